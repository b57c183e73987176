#!/usr/bin/env bash
# tests/replay/build_old.sh REV OUTDIR -- builds the daemon of git revision REV of this repository
# into OUTDIR/build/posencd, for tests/replay/replay.py --old. OUTDIR receives `git archive REV`
# (the tree only: no .git, no work-tree changes), so OUTDIR/web and OUTDIR/openapi.yaml are what
# REV serves; once built, only those, the daemon and build.log are kept. A finished build is
# reused when OUTDIR/.replay-rev names the same commit; an OUTDIR that is not empty and was not
# made by this script is refused (never deleted).
# Builds with make -j2 (the machine is shared). Needs the build packages `make deps` installs.
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 REV OUTDIR" >&2
  exit 2
fi
rev=$1
out=$2
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
sha=$(git -C "$repo" rev-parse --verify --quiet "$rev^{commit}") || {
  echo "build_old: $rev is not a commit of $repo" >&2
  exit 2
}
short=$(git -C "$repo" rev-parse --short "$sha")
if [ -f "$out/.replay-rev" ] && [ "$(cat "$out/.replay-rev")" = "$sha" ] && [ -x "$out/build/posencd" ]; then
  echo "build_old: $out/build/posencd is $short (reused)"
  exit 0
fi
if [ -d "$out" ] && [ -n "$(ls -A "$out")" ] && [ ! -f "$out/.replay-rev" ]; then
  echo "build_old: $out is not empty and was not made by build_old.sh; give another OUTDIR" >&2
  exit 2
fi
rm -rf "$out"
mkdir -p "$out"
git -C "$repo" archive --format=tar "$sha" | tar -x -C "$out"
# GIT_REV on the command line: inside this repository's tree `git rev-parse HEAD` (what the
# Makefile asks) would name the current checkout, not REV
make -C "$out" -j2 build/posencd GIT_REV="$short" >"$out/build.log" 2>&1 || {
  tail -n 30 "$out/build.log" >&2
  echo "build_old: building $short failed (log: $out/build.log)" >&2
  exit 1
}
# keep what replay.py runs and serves (the daemon, web/, openapi.yaml): the old sources and docs
# would sit in this checkout's build/, where searches of the repository find them
find "$out" -mindepth 1 -maxdepth 1 ! -name build ! -name web ! -name openapi.yaml ! -name build.log \
  -exec rm -rf {} +
find "$out/build" -mindepth 1 -maxdepth 1 ! -name posencd -exec rm -rf {} +
echo "$sha" >"$out/.replay-rev"
echo "build_old: built $out/build/posencd ($short)"
