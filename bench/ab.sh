#!/usr/bin/env bash
# bench/ab.sh -- old against new daemon on the small /rope, in interleaved rounds (issue 16).
# usage: bench/ab.sh NAME=COMMAND... (each COMMAND a posencd binary with its options, quoted), e.g.
#   bench/ab.sh "old=/tmp/posencd-old" "new=build/posencd" "inline=build/posencd --inline-work 16384"
# Every daemon is started once (--bind 127.0.0.1 --port 0 --threads 2, no web dir) pinned to CPU 0,
# answers are compared byte for byte with the first one's, then $AB_ROUNDS (5) rounds each run wrk
# (-t1 -c$AB_CONNS, default 64, for $AB_SECONDS, default 5 s, on CPU 1) against every daemon in turn.
# Per round and daemon: requests/s and the daemon's CPU time per request (utime + stime of the
# process over the run / requests). Prints each round, then for every daemon after the first the
# median of its per-round ratios to the first (CPU time: first / it, so > 1 is cheaper; requests/s:
# it / first). AB_BODY (default build/bench/rope.json, written as bench/run.sh writes it), AB_PATH
# (/rope), AB_OUT (build/ab) as named.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/listen.sh
. bench/listen.sh
ROUNDS=${AB_ROUNDS:-5} SECS=${AB_SECONDS:-5} CONNS=${AB_CONNS:-64}
OUT=${AB_OUT:-build/ab} BODY=${AB_BODY:-build/bench/rope.json} RPATH=${AB_PATH:-/rope}
mkdir -p "$OUT" "$(dirname "$BODY")"
if [ ! -f "$BODY" ]; then
  /usr/bin/python3 - "$BODY" <<'EOF'
import json, math, sys
q = [float("%.8g" % math.sin(0.1 * c)) for c in range(128)]
k = [float("%.8g" % math.cos(0.07 * c)) for c in range(128)]
json.dump({"head_dim": 128, "positions": list(range(8)), "q": q, "k": k}, open(sys.argv[1], "w"))
EOF
fi
if [ "$(nproc)" -ge 2 ]; then SRV_CPU=0 LOAD_CPU=1; else SRV_CPU=0 LOAD_CPU=0; fi
declare -a NAMES PIDS PORTS
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
for spec in "$@"; do
  name=${spec%%=*} cmd=${spec#*=}
  log=$OUT/$name.log
  # shellcheck disable=SC2086 # cmd is a command line
  taskset -c "$SRV_CPU" $cmd --bind 127.0.0.1 --port 0 --threads 2 --web-dir "" \
    --data-dir "$OUT/data" --log-format text >"$log" 2>&1 &
  pid=$!
  port=$(wait_listening "$log")
  [ -n "$port" ] || { echo "ab: $name did not start"; cat "$log"; exit 1; }
  NAMES+=("$name") PIDS+=("$pid") PORTS+=("$port")
  curl -sf -H 'Content-Type: application/json' --data-binary @"$BODY" \
    "http://127.0.0.1:$port$RPATH" >"$OUT/answer-$name.json"
  cmp -s "$OUT/answer-${NAMES[0]}.json" "$OUT/answer-$name.json" ||
    { echo "ab: $name's answer differs from ${NAMES[0]}'s"; exit 1; }
done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
res=$OUT/rounds.tsv
: >"$res"
echo "ab: ${#NAMES[@]} daemons on CPU $SRV_CPU, wrk -t1 -c$CONNS -d${SECS}s on CPU $LOAD_CPU, load $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$ROUNDS"); do
  line="  round $r:"
  for i in "${!NAMES[@]}"; do
    t0=$(ticks "${PIDS[$i]}")
    BENCH_BODY=$BODY taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNS" -d"${SECS}s" --latency --timeout 10s \
      -s bench/post.lua "http://127.0.0.1:${PORTS[$i]}$RPATH" >"$OUT/wrk-$r-${NAMES[$i]}.txt" 2>&1
    t1=$(ticks "${PIDS[$i]}")
    rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/wrk-$r-${NAMES[$i]}.txt")
    n=$(awk '/requests in/ {print $1}' "$OUT/wrk-$r-${NAMES[$i]}.txt")
    ! grep -q Non-2xx "$OUT/wrk-$r-${NAMES[$i]}.txt" || { echo "ab: non-2xx answers"; exit 1; }
    us=$(echo "($t1 - $t0) * 1000000 / $hz / ${n:-1}" | bc -l)
    printf '%s\t%s\t%s\t%.1f\n' "$r" "${NAMES[$i]}" "${rps:-0}" "$us" >>"$res"
    line="$line ${NAMES[$i]} $(printf '%.0f' "${rps:-0}")/s $(printf '%.0f' "$us")us"
  done
  echo "$line"
done
echo "ab: load after $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 - "$res" "${NAMES[0]}" <<'EOF'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
base = sys.argv[2]
by = {}
for r, name, rps, us in rows:
    by.setdefault(name, {})[r] = (float(rps), float(us))
for name, rs in by.items():
    us = [rs[r][1] for r in sorted(rs)]
    rps = [rs[r][0] for r in sorted(rs)]
    line = f"  {name}: CPU {statistics.median(us):.0f} us/request, {statistics.median(rps):.0f} req/s (medians)"
    if name != base:
        cpu = [by[base][r][1] / rs[r][1] for r in sorted(rs)]
        thr = [rs[r][0] / by[base][r][0] for r in sorted(rs)]
        line += (f"; {base}/{name} CPU {statistics.median(cpu):.2f}x (rounds "
                 + ", ".join(f"{x:.2f}" for x in cpu) + f"), req/s {statistics.median(thr):.2f}x (rounds "
                 + ", ".join(f"{x:.2f}" for x in thr) + ")")
    print(line)
EOF
