#!/usr/bin/env bash
# Runs the golden cases copied into tests/vectors/ against a freshly started posencd on an
# ephemeral loopback port. usage: tests/oracle_local.sh [path/to/posencd] [family ...]
# Families default to every endpoint family the daemon implements.
set -euo pipefail
bin=${1:-build/posencd}
shift || true
families=("$@")
[ ${#families[@]} -gt 0 ] || families=(sinusoidal rope alibi attention t5 errors rope2d relative)
here=$(cd "$(dirname "$0")" && pwd)
log=$(mktemp)
"$bin" --bind 127.0.0.1 --port 0 --web-dir "$here/../web" --spec "$here/../openapi.yaml" >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*listening on http:\/\/[0-9.]*:\([0-9]*\).*/\1/p' "$log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "oracle_local: posencd did not start"; cat "$log"; exit 1; }
dirs=()
for f in "${families[@]}"; do dirs+=("$here/vectors/$f"); done
echo "oracle: ${families[*]} against 127.0.0.1:$port"
python3 "$here/oracle-run" "http://127.0.0.1:$port" "${dirs[@]}"
