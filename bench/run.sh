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
#   4. /healthz and the small /rope again with nothing pinned, against posencd and against the peer
#      with one uvicorn worker per CPU (skipped with BENCH_PIN=0, where everything is unpinned).
# bench_micro also costs one small /rope request in process (jansson's parse vs the whole handler).
# With 2+ CPUs the server (posencd with its 2 epoll workers, or uvicorn) is pinned to CPU 0 and wrk
# and bench_micro to CPU 1 (taskset), so load generator and server do not share a core
# (BENCH_PIN=0: no pinning). BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_OUT as below.
# Prints one table (bench/report.py); the raw figures stay in $BENCH_OUT (default build/bench).
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build}
PY=/usr/bin/python3 # Debian's interpreter: python3-fastapi, -uvicorn and -numpy live there
SECS=${BENCH_SECONDS:-5}
CONNS=${BENCH_CONNECTIONS:-64}
OUT=${BENCH_OUT:-$B/bench}
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

echo "bench: kernels and number writer (single thread on CPU $LOAD_CPU; ~1 min)"
taskset -c "$LOAD_CPU" "$B/bench_micro" | tee -a "$res" | cut -f1,2,3 | sed 's/^/  /'
taskset -c "$LOAD_CPU" "$B/bench_micro" request "$OUT/rope.json" | tee -a "$res" | cut -f1,2,3 | sed 's/^/  /'
nvec=$(${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -O2 -fopt-info-vec-optimized \
  -I. -c core/rope_rotate.c -o /dev/null 2>&1 | grep -c 'vectorized' || true)
printf 'rope_vectorized\t%s\tloops/blocks\t-fopt-info-vec-optimized on core/rope_rotate.c at -O2\n' "$nvec" >>"$res"

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
  PORT=""
  for _ in $(seq 100); do
    PORT=$(sed -n 's/.*listening on http:\/\/[0-9.]*:\([0-9]*\).*/\1/p' "$log" | head -1)
    [ -n "$PORT" ] && break
    sleep 0.05
  done
  [ -n "$PORT" ] || { echo "bench: posencd did not start"; cat "$log"; exit 1; }
}

stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

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

echo "bench: FastAPI + numpy peer (bench/peer.py, uvicorn, 1 worker, CPU $SRV_CPU, no access log)"
start_peer 1
run_wrk peer_healthz "http://127.0.0.1:$PPORT/healthz"
run_wrk peer_rope "http://127.0.0.1:$PPORT/rope" "$OUT/rope.json"
run_wrk peer_alibi "http://127.0.0.1:$PPORT/alibi" "$OUT/alibi.json"
stop_pid "$PPID_"

# The same small requests with nothing pinned, as a user would run both on this machine: posencd
# (2 HTTP workers + compute pool) and uvicorn with one worker per CPU share every CPU with wrk.
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

echo
"$PY" bench/report.py "$res" | tee "$OUT/table.md"
