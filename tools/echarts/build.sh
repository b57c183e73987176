#!/bin/sh
# tools/echarts/build.sh [--check] -- rebuilds web/vendor/echarts/echarts.min.js, the teaching demo's ECharts:
# Apache ECharts 6.1.0's core with only the series, components and renderer that web/js draws with (entry.js),
# bundled and minified by esbuild into one classic script that defines the global `echarts`, and copies the
# licences of everything bundled next to it.
#
# The bundle is committed: `make` never runs this (a fresh machine builds without reaching npm). Run it by hand
# after changing entry.js or the pins in package.json / package-lock.json (needs node >= 18 and the npm
# registry), then commit web/vendor/echarts/. With --check it rebuilds into a temporary file and fails unless
# that is byte for byte the committed bundle (esbuild's output is deterministic for the same inputs).
#
# When web/js starts using a series type or component not imported in entry.js, ECharts leaves that part out
# silently (or logs "[ECharts] Component x is used but not imported" in a development build): add it there.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=$ROOT/web/vendor/echarts
cd "$HERE"

stamp=node_modules/.posenc-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -d node_modules/esbuild ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
fi

EC=$(node -p "require('echarts/package.json').version")
ZR=$(node -p "require('zrender/package.json').version")
ES=$(node -p "require('esbuild/package.json').version")
BANNER="/*! Apache ECharts $EC (Apache-2.0; NOTICE, LICENSE), with ZRender $ZR (BSD-3-Clause; LICENSE-zrender) and
 * tslib (0BSD; LICENSE-tslib): posenc's build of the npm packages with only what its teaching demo draws,
 * bundled by esbuild $ES from tools/echarts/entry.js (tools/echarts/build.sh). */"

TMP=$(mktemp "${TMPDIR:-/tmp}/echarts-bundle.XXXXXX")
trap 'rm -f "$TMP"' EXIT INT TERM
node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --target=es2018 --charset=utf8 \
    --legal-comments=eof --banner:js="$BANNER" --log-level=warning --outfile="$TMP" --allow-overwrite

if [ "${1:-}" = "--check" ]; then
    if cmp -s "$TMP" "$OUT/echarts.min.js"; then
        echo "echarts bundle: web/vendor/echarts/echarts.min.js is this build ($(wc -c < "$TMP") bytes)"
        exit 0
    fi
    echo "echarts bundle: web/vendor/echarts/echarts.min.js differs from a fresh build (run tools/echarts/build.sh)" >&2
    exit 1
fi

cp "$TMP" "$OUT/echarts.min.js"
cp node_modules/echarts/LICENSE node_modules/echarts/NOTICE "$OUT/"
cp node_modules/echarts/licenses/LICENSE-d3 "$OUT/LICENSE-d3"
cp node_modules/zrender/LICENSE "$OUT/LICENSE-zrender"
cp node_modules/tslib/LICENSE.txt "$OUT/LICENSE-tslib"
echo "echarts bundle: $(wc -c < "$OUT/echarts.min.js") bytes, sha256 $(sha256sum "$OUT/echarts.min.js" | cut -d' ' -f1)"
