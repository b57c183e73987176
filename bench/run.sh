#!/usr/bin/env bash
# bench/run.sh -- `make bench` (issue 8): figures, not tests. usage: bench/run.sh [BUILD_DIR]
#   1. build/bench_micro: single-thread kernels against memcpy of the same bytes, and the JSON number
#      writer against jansson's json_dumps (bench/micro.c says how each figure is taken);
#   2. posencd under wrk (loopback only): GET /healthz, a small POST /rope (head_dim 128, 8 positions,
#      q and k one vector of 128 numbers each: q_rotated, k_rotated [8][128] and scores [8][8] come
#      back, 2176 numbers), the demo's ALiBi heatmap POST /alibi (8 heads, 16 positions, causal), each with
#      $BENCH_CONNECTIONS (64) connections for $BENCH_SECONDS (5) s, requests/s and p99; then a
#      4096 x 1024 /sinusoidal (82 MB of JSON per response) with 4 connections on a fresh daemon:
#      MB/s and the daemon's peak RSS (VmHWM from /proc/<pid>/status);
#   3. the same small requests against bench/peer.py (FastAPI + numpy under uvicorn), same run;
#   4. the small /rope in $BENCH_ROUNDS (5) interleaved rounds against posencd, the Go, Node and
#      FastAPI peers and the bench build's transport floor ($B/bench/posencd, `make bench` builds it),
#      each answer checked against posenc's first; ratios are medians over the rounds (see below);
#   5. /healthz and the small /rope again with nothing pinned, against posencd and against the peer
#      with one uvicorn worker per CPU (skipped with BENCH_PIN=0, where everything is unpinned).
# bench_micro also costs one small /rope request in process (jansson's parse vs the whole handler).
# With 2+ CPUs the server (posencd with its 2 epoll workers, or uvicorn) is pinned to CPU 0 and wrk
# and bench_micro to CPU 1 (taskset), so load generator and server do not share a core
# (BENCH_PIN=0: no pinning). BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_OUT, BENCH_ROUNDS as below;
# BENCH_ONLY=rounds runs step 4 alone.
# Prints one table (bench/report.py); the raw figures stay in $BENCH_OUT (default build/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/listen.sh
. bench/listen.sh
B=${1:-build}
PY=/usr/bin/python3 # Debian's interpreter: python3-fastapi, -uvicorn and -numpy live there
SECS=${BENCH_SECONDS:-5}
CONNS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$B/bench}
ONLY=${BENCH_ONLY:-} # "rounds": only step 4 (the table's other rows are then empty)
mkdir -p "$OUT"
res=$OUT/results.tsv
: >"$res"
if [ "$(nproc)" -ge 2 ]; then SRV_CPU=0 LOAD_CPU=1; else SRV_CPU=0 LOAD_CPU=0; fi
if [ "${BENCH_PIN:-1}" = 0 ]; then # BENCH_PIN=0: no pinning, server and wrk share every CPU
  ALL=$(seq -s, 0 $(($(nproc) - 1)))
  SRV_CPU=$ALL LOAD_CPU=$ALL
fi
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# request bodies
"$PY" - "$OUT" <<'EOF'
import json, math, sys
out = sys.argv[1]
# q and k: one vector each (rotated at every position, docs/api.md), values as float32 prints them
q = [float("%.8g" % math.sin(0.1 * c)) for c in range(128)]
k = [float("%.8g" % math.cos(0.07 * c)) for c in range(128)]
json.dump({"head_dim": 128, "positions": list(range(8)), "q": q, "k": k}, open(f"{out}/rope.json", "w"))
json.dump({"num_heads": 8, "seq_len": 16, "mode": "causal"}, open(f"{out}/alibi.json", "w"))
json.dump({"d_model": 1024, "seq_len": 4096}, open(f"{out}/sinusoidal.json", "w"))
EOF

if [ "$ONLY" != rounds ]; then # BENCH_ONLY=rounds skips this
echo "bench: kernels and number writer (single thread on CPU $LOAD_CPU; ~1 min)"
taskset -c "$LOAD_CPU" "$B/bench_micro" | tee -a "$res" | cut -f1,2,3 | sed 's/^/  /'
taskset -c "$LOAD_CPU" "$B/bench_micro" request "$OUT/rope.json" | tee -a "$res" | cut -f1,2,3 | sed 's/^/  /'
nvec=$(${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -fopt-info-vec-optimized \
  -I. -c core/rope_rotate.c -o /dev/null 2>&1 | grep -c 'vectorized' || true)
printf 'rope_vectorized\t%s\tloops/blocks\t-fopt-info-vec-optimized on core/rope_rotate.c at -O2\n' "$nvec" >>"$res"
fi # BENCH_ONLY

# wrk NAME URL [BODY [CONNECTIONS]]: one run, appends req/s, p99 (ms) and MB/s to the results
run_wrk() {
  local name=$1 url=$2 body=${3:-} conns=${4:-$CONNS} log=$OUT/wrk-$1.txt
  local args=(-t1 -c"$conns" -d"${SECS}s" --latency --timeout 10s)
  if [ -n "$body" ]; then
    BENCH_BODY=$body taskset -c "$LOAD_CPU" wrk "${args[@]}" -s bench/post.lua "$url" >"$log" 2>&1
  else
    taskset -c "$LOAD_CPU" wrk "${args[@]}" "$url" >"$log" 2>&1
  fi
  "$PY" - "$log" "$name" >>"$res" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
name = sys.argv[2]
def ms(v, u):
    return float(v) * {"us": 1e-3, "ms": 1.0, "s": 1e3}[u]
def mb(v, u):
    return float(v) * {"B": 1e-6, "KB": 1.024e-3, "MB": 1.048576, "GB": 1073.741824}[u]
rps = re.search(r"Requests/sec:\s*([\d.]+)", text)
p99 = re.search(r"^\s*99%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
tr = re.search(r"Transfer/sec:\s*([\d.]+)(B|KB|MB|GB)", text)
errs = re.search(r"Non-2xx or 3xx responses:\s*(\d+)", text)
sock = re.search(r"Socket errors:.*", text)
note = (f"non-2xx {errs.group(1)}; " if errs else "") + (sock.group(0) if sock else "")
print(f"{name}_rps\t{float(rps.group(1)) if rps else 0:.1f}\treq/s\t{note}")
print(f"{name}_p99\t{ms(*p99.groups()) if p99 else -1:.3f}\tms\t")
print(f"{name}_mbps\t{mb(*tr.groups()) if tr else 0:.1f}\tMB/s\t")
EOF
  grep -E "Requests/sec|Transfer/sec|^ +99%" "$log" | tr -s ' ' | sed "s/^/  $name: /"
}

# start_posencd: a fresh daemon on an ephemeral port, pinned to the server CPU; sets PORT, PID
start_posencd() {
  local log=$OUT/posencd-$1.log
  shift
  taskset -c "$SRV_CPU" "$B/posencd" --bind 127.0.0.1 --port 0 --threads 2 --web-dir "" \
    --data-dir "$OUT/data" "$@" >"$log" 2>&1 &
  PID=$!
  pids+=("$PID")
  PORT=$(wait_listening "$log")
  [ -n "$PORT" ] || { echo "bench: posencd did not start"; cat "$log"; exit 1; }
}

stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

if [ "$ONLY" != rounds ]; then # BENCH_ONLY=rounds skips this
echo "bench: posencd (CPU $SRV_CPU, 2 workers; access log on, to a file) with wrk -t1 -c$CONNS -d${SECS}s (CPU $LOAD_CPU)"
mkdir -p "$OUT/data"
start_posencd small
run_wrk posenc_healthz "http://127.0.0.1:$PORT/healthz"
run_wrk posenc_rope "http://127.0.0.1:$PORT/rope" "$OUT/rope.json"
run_wrk posenc_alibi "http://127.0.0.1:$PORT/alibi" "$OUT/alibi.json"
stop_pid "$PID"

# 4096 x 1024 numbers are exactly the default max_output_elements (4,194,304)
echo "bench: posencd, 4096 x 1024 /sinusoidal, 4 connections, fresh daemon"
start_posencd big
base_rss=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
run_wrk posenc_sinusoidal "http://127.0.0.1:$PORT/sinusoidal" "$OUT/sinusoidal.json" 4
hwm=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
printf 'posenc_sinusoidal_hwm\t%.1f\tMiB\tVmHWM after the run (%.1f MiB right after start)\n' \
  "$(echo "$hwm / 1024" | bc -l)" "$(echo "$base_rss / 1024" | bc -l)" >>"$res"
echo "  peak RSS (VmHWM): $((hwm / 1024)) MiB (at start: $((base_rss / 1024)) MiB)"
stop_pid "$PID"
fi # BENCH_ONLY

# start_peer WORKERS: bench/peer.py under uvicorn on an ephemeral port, on the server CPU; sets PPORT, PPID_
start_peer() {
  PPORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  taskset -c "$SRV_CPU" "$PY" -m uvicorn --app-dir bench peer:app --host 127.0.0.1 --port "$PPORT" \
    --workers "$1" --no-access-log --log-level warning >"$OUT/peer.log" 2>&1 &
  PPID_=$!
  pids+=("$PPID_")
  for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$PPORT/healthz" >/dev/null 2>&1 && break
    sleep 0.1
  done
  curl -sf "http://127.0.0.1:$PPORT/healthz" >/dev/null || { echo "bench: peer did not start"; cat "$OUT/peer.log"; exit 1; }
}

if [ "$ONLY" != rounds ]; then # BENCH_ONLY=rounds skips this
echo "bench: FastAPI + numpy peer (bench/peer.py, uvicorn, 1 worker, CPU $SRV_CPU, no access log)"
start_peer 1
run_wrk peer_healthz "http://127.0.0.1:$PPORT/healthz"
run_wrk peer_rope "http://127.0.0.1:$PPORT/rope" "$OUT/rope.json"
run_wrk peer_alibi "http://127.0.0.1:$PPORT/alibi" "$OUT/alibi.json"
stop_pid "$PPID_"
fi # BENCH_ONLY

# ---- the small /rope against the Go, Node and FastAPI peers and the transport floor (issue 16) ----
# Six servers on the server CPU at once (each idle while another is timed): posencd (the product
# binary), bench/peer_go.go (net/http + encoding/json), bench/peer_node.mjs (node:http + JSON.parse),
# bench/peer.py (FastAPI + numpy, 1 uvicorn worker) and the bench build's floor ($B/bench/posencd,
# POST /bench/floor: the same body read, posenc's answer sent from a prebuilt copy), and last posencd
# --inline-work 16384 (tiny requests on the HTTP thread, docs/performance.md). Each answer is
# checked against posenc's before anything is timed (bench/check_answer.py: docs/conventions.md's
# tolerance; the floor byte for byte). Then $BENCH_ROUNDS (5) interleaved rounds, each timing every
# server in turn with wrk as above; every ratio is the median of the per-round ratios. Besides
# requests/s, each run records the server's CPU time per request (utime + stime of its process over
# the run), which other tenants of a shared CPU change less than they change requests/s.
ROUNDS=${BENCH_ROUNDS:-5}
mkdir -p "$OUT/data"
echo "bench: small /rope, $ROUNDS interleaved rounds: posenc, go, node, fastapi, floor, inline (CPU $SRV_CPU)"
gotmp=$(realpath -m "$OUT")
GOCACHE=$gotmp/gocache GOPATH=$gotmp/gopath GO111MODULE=off go build -o "$OUT/peer-go" bench/peer_go.go
# start_listener NAME CMD...: CMD prints "listening on http://127.0.0.1:PORT"; sets LPORT, LPID
start_listener() {
  local name=$1 log=$OUT/$1.log
  shift
  taskset -c "$SRV_CPU" "$@" >"$log" 2>&1 &
  LPID=$!
  pids+=("$LPID")
  LPORT=$(wait_listening "$log" 200)
  [ -n "$LPORT" ] || { echo "bench: $name did not start"; cat "$log"; exit 1; }
}
declare -A URL SPID
start_posencd rounds
URL[posenc]=http://127.0.0.1:$PORT/rope SPID[posenc]=$PID
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
  --data-binary @"$OUT/rope.json" "http://127.0.0.1:$PORT/bench/floor")
[ "$code" != 200 ] || { echo "bench: the product posencd answers POST /bench/floor"; exit 1; }
curl -sf -H 'Content-Type: application/json' --data-binary @"$OUT/rope.json" "${URL[posenc]}" \
  >"$OUT/answer-posenc.json"
start_listener peer-go "$OUT/peer-go" 127.0.0.1:0
URL[go]=http://127.0.0.1:$LPORT/rope SPID[go]=$LPID
start_listener peer-node node bench/peer_node.mjs 127.0.0.1:0
URL[node]=http://127.0.0.1:$LPORT/rope SPID[node]=$LPID
start_peer 1
URL[fastapi]=http://127.0.0.1:$PPORT/rope SPID[fastapi]=$PPID_
POSENC_BENCH_FLOOR_ANSWER=$OUT/answer-posenc.json start_listener floor "$B/bench/posencd" \
  --bind 127.0.0.1 --port 0 --threads 2 --web-dir "" --data-dir "$OUT/data"
URL[floor]=http://127.0.0.1:$LPORT/bench/floor SPID[floor]=$LPID
# and posencd with tiny requests answered on its HTTP threads (--inline-work, off by default)
start_posencd inline --inline-work 16384
URL[inline]=http://127.0.0.1:$PORT/rope SPID[inline]=$PID
SERVERS="posenc go node fastapi floor inline"
for s in go node fastapi floor inline; do
  curl -sf -H 'Content-Type: application/json' --data-binary @"$OUT/rope.json" "${URL[$s]}" \
    >"$OUT/answer-$s.json" || { echo "bench: $s did not answer the small /rope"; exit 1; }
done
for s in floor inline; do
  cmp -s "$OUT/answer-posenc.json" "$OUT/answer-$s.json" || { echo "bench: $s's answer is not posenc's"; exit 1; }
done
echo "  floor, inline: posenc's answer, byte for byte ($(wc -c <"$OUT/answer-floor.json") bytes)"
for s in go node fastapi; do
  "$PY" bench/check_answer.py "$OUT/answer-posenc.json" "$OUT/answer-$s.json" "$s" | sed 's/^/  /'
done
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
printf 'rounds_load_before\t%s\tload\t/proc/loadavg before the rounds\n' "$(cut -d' ' -f1 /proc/loadavg)" >>"$res"
for r in $(seq "$ROUNDS"); do
  line="  round $r:"
  for s in $SERVERS; do
    t0=$(ticks "${SPID[$s]}")
    BENCH_BODY=$OUT/rope.json taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNS" -d"${SECS}s" --latency \
      --timeout 10s -s bench/post.lua "${URL[$s]}" >"$OUT/wrk-round$r-$s.txt" 2>&1
    t1=$(ticks "${SPID[$s]}")
    rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/wrk-round$r-$s.txt")
    n=$(awk '/requests in/ {print $1}' "$OUT/wrk-round$r-$s.txt")
    bad=$(awk '/Non-2xx/ {print $NF}' "$OUT/wrk-round$r-$s.txt")
    [ -z "$bad" ] || { echo "bench: $s answered $bad non-2xx in round $r"; exit 1; }
    us=$(echo "($t1 - $t0) * 1000000 / $hz / ${n:-1}" | bc -l)
    printf 'round%s_%s_rps\t%s\treq/s\t\n' "$r" "$s" "${rps:-0}" >>"$res"
    printf 'round%s_%s_cpu_us\t%.1f\tus/req\tserver CPU time per request\n' "$r" "$s" "$us" >>"$res"
    line="$line $s $(printf '%.0f' "${rps:-0}")/s ($(printf '%.0f' "$us") us)"
  done
  echo "$line"
done
printf 'rounds_load_after\t%s\tload\t/proc/loadavg after the rounds\n' "$(cut -d' ' -f1 /proc/loadavg)" >>"$res"
printf 'rounds\t%s\trounds\t%s s each, %s connections\n' "$ROUNDS" "$SECS" "$CONNS" >>"$res"
for s in $SERVERS; do stop_pid "${SPID[$s]}"; done

# The same small requests with nothing pinned, as a user would run both on this machine: posencd
# (2 HTTP workers + compute pool) and uvicorn with one worker per CPU share every CPU with wrk.
if [ "$ONLY" != rounds ]; then # BENCH_ONLY=rounds skips this
if [ "${BENCH_PIN:-1}" != 0 ] && [ "$(nproc)" -ge 2 ]; then
  SRV_CPU=$(seq -s, 0 $(($(nproc) - 1)))
  LOAD_CPU=$SRV_CPU
  echo "bench: unpinned (server and wrk share CPUs $SRV_CPU; the peer with $(nproc) uvicorn workers)"
  start_posencd unpinned
  run_wrk posenc_u_healthz "http://127.0.0.1:$PORT/healthz"
  run_wrk posenc_u_rope "http://127.0.0.1:$PORT/rope" "$OUT/rope.json"
  stop_pid "$PID"
  start_peer "$(nproc)"
  run_wrk peer_u_rope "http://127.0.0.1:$PPORT/rope" "$OUT/rope.json"
  stop_pid "$PPID_"
fi
fi # BENCH_ONLY

echo
"$PY" bench/report.py "$res" | tee "$OUT/table.md"
