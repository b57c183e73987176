#!/bin/sh
# tests/contract/demo-rename.sh -- shows that the contract tests fail when the server renames a
# response field that the spec documents (issue 10, "Must show").
#
# In a scratch copy of the C sources (the work tree is not touched), api/sinusoidal.c writes the
# response key "table" instead of "matrix"; that copy is built and the contract walk and fuzz run
# against it with the unchanged openapi.yaml. Expected: failures naming the missing "matrix".
# Exit 0 when the tests failed as they should (the demonstration worked), 1 otherwise.
# Usage: sh tests/contract/demo-rename.sh   (needs what `make contract` needs)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/posenc-rename-demo.XXXXXX)
trap 'rm -rf "$TMP"' EXIT INT TERM
cp -r "$ROOT/Makefile" "$ROOT/core" "$ROOT/api" "$ROOT/server" "$TMP/"
grep -q 'api_jw_key(out, "matrix");' "$TMP/api/sinusoidal.c"
sed -i 's/api_jw_key(out, "matrix");/api_jw_key(out, "table");/' "$TMP/api/sinusoidal.c"
echo "== scratch change in $TMP/api/sinusoidal.c:"
grep -n 'api_jw_key(out, "table");' "$TMP/api/sinusoidal.c"
make -s -C "$TMP" BUILD="$TMP/build" "$TMP/build/posencd"
echo "== contract walk + fuzz against the renamed server (spec unchanged):"
if POSENC_BIN="$TMP/build/posencd" CONTRACT_SHOW_LINES=4 node "$ROOT/tests/contract/run.mjs" walk fuzz >"$TMP/out.txt" 2>&1; then
  cat "$TMP/out.txt"
  echo "DEMO FAILED: the renamed response field went unnoticed"
  exit 1
fi
grep -E "not ok - (postSinusoidal|POST \/sinusoidal|valid requests)|required property 'matrix'|passed, " "$TMP/out.txt" | cut -c1-240 | head -12
echo "== the contract tests failed, as they must when the server renames a documented field"
