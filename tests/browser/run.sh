#!/bin/sh
# Runs the browser tests of the teaching demo (tests/browser/*.test.mjs) against a live posencd.
#
#   tests/browser/run.sh [path/to/posencd [test files...]]   (default build/posencd and every *.test.mjs;
#                                                             `make browser` builds it first)
#
# 1. Installs what is missing, as root via apt-get (else prints the apt-get line and stops): Debian's
#    chromium (never a Playwright-downloaded browser), fonts-noto-cjk (Korean glyphs in screenshots),
#    node and npm.
# 2. `npm ci` in tests/browser when node_modules is missing or older than package-lock.json.
# 3. Starts posencd on 127.0.0.1 with --port 0 (it prints "listening on http://127.0.0.1:PORT"), with a
#    throw-away data directory; stops it (by PID) on exit.
# 4. Runs the test with node's runner (spec output on the terminal, TAP kept in tests/artifacts/browser/)
#    and ends with one line "browser: N passed, N failed". Exit status: the test runner's.
# Screenshots: tests/artifacts/browser/*.png (gitignored).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=${1:-$ROOT/build/posencd}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
[ $# -gt 0 ] && shift
FILES=""
for f in "$@"; do
    case $f in /*) ;; *) f=$(pwd)/$f ;; esac
    FILES="$FILES $f"
done
[ -n "$FILES" ] || FILES="$HERE/*.test.mjs"
ART=$ROOT/tests/artifacts/browser
mkdir -p "$ART"

# ---- 1. system packages
missing=""
[ -x /usr/bin/chromium ] || missing="$missing chromium"
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || missing="$missing fonts-noto-cjk"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v npm >/dev/null 2>&1 || missing="$missing npm"
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "browser: installing:$missing"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    else
        echo "browser: missing packages; run: sudo apt-get install -y$missing" >&2
        exit 1
    fi
fi

# ---- 2. JS dependencies (exact pins in package-lock.json)
cd "$HERE"
stamp=node_modules/.posenc-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -d node_modules/playwright-core ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "browser: npm ci (node $(node --version))"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
fi

# ---- 3. the demo's precompressed copies (speed.test.mjs expects brotli on the ECharts bundle), the daemon
make -s -C "$ROOT" web-compressed >/dev/null
[ -x "$BIN" ] || { echo "browser: $BIN not built (make build/posencd)" >&2; exit 1; }
DATA=$(mktemp -d "${TMPDIR:-/tmp}/posenc-browser-data.XXXXXX")
LOG=$ART/posencd.log
rm -f "$LOG" # a previous run's "listening on" line must not be read before the new daemon's
"$BIN" --bind 127.0.0.1 --port 0 --web-dir "$ROOT/web" --spec "$ROOT/openapi.yaml" --data-dir "$DATA" \
    >"$LOG" 2>&1 &
PID=$!
cleanup() {
    kill "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
    rm -rf "$DATA"
}
trap cleanup EXIT INT TERM
URL=""
i=0
while [ $i -lt 100 ]; do
    URL=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$LOG" 2>/dev/null | head -n 1)
    [ -n "$URL" ] && break
    kill -0 "$PID" 2>/dev/null || { echo "browser: posencd exited:" >&2; cat "$LOG" >&2; exit 1; }
    sleep 0.1
    i=$((i + 1))
done
[ -n "$URL" ] || { echo "browser: posencd did not report its port:" >&2; cat "$LOG" >&2; exit 1; }
echo "browser: posencd at $URL (pid $PID), node $(node --version)"

# ---- 4. the test
TAP=$ART/results.tap
rc=0
POSENC_URL=$URL timeout 900 node --test --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$TAP" $FILES || rc=$?
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$TAP" | tail -n 1)
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$TAP" | tail -n 1)
if [ -z "$pass" ] || [ -z "$fail" ]; then
    pass=${pass:-0}
    fail=${fail:-1}
    [ $rc -ne 0 ] || rc=1
fi
echo "screenshots: $ART"
echo "browser: $pass passed, $fail failed"
exit $rc
