#!/usr/bin/env bash
# make lint: the habits docs/style.md describes, checked on every `make check`.
#   1. layering from #include lines (docs/architecture.md): core/ includes nothing of ours above it
#      and no I/O or JSON library; wire/ and store/ include no api/ or server/ header; api/ no
#      server/ header and no libmicrohttpd; cli/ (the in-process CLI) no server/ header and no
#      libmicrohttpd either: it links api/ and below only;
#      a *_priv.h header is its folder's own (tests may include it);
#   2. banned functions (unbounded or locale-dependent: sprintf, strcpy, strcat, atoi, atof,
#      strtok, gets);
#   3. no file over 600 lines in the five layers and cli/, except those listed in
#      tests/lint/oversize.txt (each with the reason; the list may only shrink: a listed file that
#      fits fails too);
#   4. clang-format (the repository's .clang-format) over every C, C++ and header file we own;
#   5. no AVX-SSE transition in the object code of core/'s AVX kernels at -O0 to -O3
#      (tests/lint/avx_sse.py: no legacy SSE, call or return with the ymm/zmm upper halves dirty).
# Prints "lint: ok" or every violation, and exits 1 on any.
set -uo pipefail
cd "$(dirname "$0")/../.."
fail=0
bad() { echo "lint: $*"; fail=1; }

incl() { grep -HnE "$2" $1 2>/dev/null; }
v=$(incl "core/*.c core/*.h" '#include *"(wire|store|api|server)/|#include *<(microhttpd|jansson|curl/)')
[ -z "$v" ] || bad "core/ includes an upper layer or an I/O/JSON library:"$'\n'"$v"
v=$(incl "wire/*.c wire/*.h wire/*.cc store/*.c store/*.h" '#include *"(api|server)/|#include *<microhttpd')
[ -z "$v" ] || bad "wire/ or store/ includes api/ or server/:"$'\n'"$v"
v=$(incl "api/*.c api/*.h" '#include *"server/|#include *<microhttpd')
[ -z "$v" ] || bad "api/ includes server/ or libmicrohttpd:"$'\n'"$v"
v=$(incl "cli/*.c cli/*.h" '#include *"server/|#include *<microhttpd')
[ -z "$v" ] || bad "cli/ includes server/ or libmicrohttpd (the CLI runs without the daemon):"$'\n'"$v"
v=$(for L in core wire store api server cli; do grep -HnE '#include *"[a-z]+/[a-z_]+_priv\.h"' $L/*.c $L/*.h 2>/dev/null \
    | grep -v "^$L/[^:]*:[0-9]*:#include *\"$L/"; done)
[ -z "$v" ] || bad "a layer includes another layer's private header (*_priv.h):"$'\n'"$v"
v=$(grep -rnwE '(sprintf|strcpy|strcat|atoi|atof|strtok|gets)\(' core wire store api server cli)
[ -z "$v" ] || bad "banned function:"$'\n'"$v"

allowed=$(grep -v '^#' tests/lint/oversize.txt | awk 'NF {print $1}')
for f in $(ls core/* wire/* store/* api/* server/* cli/* | grep -E '\.(c|h|cc)$'); do
    n=$(wc -l <"$f")
    listed=0; for a in $allowed; do [ "$a" = "$f" ] && listed=1; done
    if [ "$n" -gt 600 ] && [ $listed = 0 ]; then bad "$f has $n lines (> 600): split it by concern"; fi
    if [ "$n" -le 600 ] && [ $listed = 1 ]; then bad "$f fits now ($n lines): take it off tests/lint/oversize.txt"; fi
done

files=$(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cc' | grep -vE '^(web|tests/(browser|contract)/node_modules)/')
v=$(for f in $files; do [ -f "$f" ] && clang-format --dry-run "$f" 2>&1 | grep -m1 -o '^[^:]*:[0-9]*' ; done)
[ -z "$v" ] || bad "not clang-formatted (run: make format):"$'\n'"$v"

v=$(python3 tests/lint/avx_sse.py "${CC:-cc}" 2>&1) || bad "AVX-SSE transition (core/rope_rotate.c's AVX_DONE):"$'\n'"$v"

[ $fail = 0 ] && echo "lint: ok"
exit $fail
