#!/bin/sh
# Runs the Python client's tests against a live daemon: run_tests.sh [BIN] [pytest args...]
# BIN (default $POSENC_BIN, else build/posencd of this repository) is started by the tests on an
# ephemeral loopback port with a temporary data directory, and stopped at the end.
# Needs Debian's python3-numpy, python3-requests, python3-pytest (and python3-venv, python3-pip
# for the installation test). The last line printed is pytest's summary line.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -gt 0 ]; then
    POSENC_BIN=$1
    shift
fi
if [ -n "${POSENC_BIN:-}" ]; then
    case $POSENC_BIN in
        /*) ;;
        *) POSENC_BIN=$(pwd)/$POSENC_BIN ;;
    esac
    export POSENC_BIN
fi
# Debian's interpreter, where python3-numpy and friends live (a pyenv or conda python3 earlier on
# PATH would not have them); PYTHON overrides.
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
cd "$here"
PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1 \
    exec "$python" -m pytest -p no:cacheprovider -q -rs tests "$@"
