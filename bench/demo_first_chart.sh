#!/bin/sh
# bench/demo_first_chart.sh [path/to/posencd] [runs] -- the demo's first-chart figures (bench/demo_first_chart.mjs)
# against a daemon started here on an ephemeral loopback port with a throw-away data directory (stopped by PID).
# Needs what `make browser` installs (chromium, node, tests/browser/node_modules) and the precompressed copies
# (`make`). Not part of `make check`: figures, not a test.
# WEB_DIR=dir serves another web/ with the same probe, e.g. an older commit's for a ratio in one session:
#   git archive REV web Makefile | tar -x -C build/old && make -s -C build/old web-compressed
#   WEB_DIR=build/old/web sh bench/demo_first_chart.sh build/posencd 5
# TRACE=1 runs bench/demo_trace.mjs instead (one load with a DevTools trace: the long tasks before the chart and
# what they hold, JS self time); TRACE=4 the same at 4x CPU slowdown on the throttled link.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build/posencd}
RUNS=${2:-5}
WEB=${WEB_DIR:-$ROOT/web}
[ -n "${WEB_DIR:-}" ] || make -s -C "$ROOT" web-compressed >/dev/null
DATA=$(mktemp -d "${TMPDIR:-/tmp}/posenc-bench-data.XXXXXX")
LOG=$DATA/posencd.log
"$BIN" --bind 127.0.0.1 --port 0 --web-dir "$WEB" --spec "$ROOT/openapi.yaml" --data-dir "$DATA" >"$LOG" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null || true; wait $PID 2>/dev/null || true; rm -rf "$DATA"' EXIT INT TERM
URL=""
i=0
while [ -z "$URL" ] && [ $i -lt 100 ]; do
    URL=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$LOG" | head -n 1)
    sleep 0.1
    i=$((i + 1))
done
[ -n "$URL" ] || { cat "$LOG" >&2; exit 1; }
if [ -n "${TRACE:-}" ]; then
    node "$ROOT/bench/demo_trace.mjs" "$URL" "$TRACE"
else
    node "$ROOT/bench/demo_first_chart.mjs" "$URL" "$RUNS"
fi
