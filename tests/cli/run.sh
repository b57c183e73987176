#!/usr/bin/env bash
# tests/cli/run.sh -- `make cli-check`: the CLI build/posenc against a live build/posencd, byte for
# byte, over every request of tests/vectors/ (JSON and .npy) and the extra cases of compare.py.
# usage: tests/cli/run.sh [path/to/posenc] [path/to/posencd]
# Prints one line per failure and "cli: N passed, N failed"; exit 1 on any failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
exec python3 "$here/compare.py" "${1:-build/posenc}" "${2:-build/posencd}" --vectors "$here/../vectors"
