# shellcheck shell=bash
# bench/listen.sh -- sourced by bench/run.sh and bench/ab.sh.
# wait_listening LOG [TRIES]: waits (TRIES x 50 ms, default 100) until a server started with
# --port 0 has written "listening on http://HOST:PORT" to LOG; prints PORT, or nothing if it never
# did.
wait_listening() {
  local port="" i
  for ((i = 0; i < ${2:-100}; i++)); do
    port=$(sed -n 's/.*listening on http:\/\/[0-9.]*:\([0-9]*\).*/\1/p' "$1" 2>/dev/null | head -1 || true)
    [ -n "$port" ] && break
    sleep 0.05
  done
  printf '%s' "$port"
}
