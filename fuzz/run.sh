#!/usr/bin/env bash
# fuzz/run.sh -- runs the libFuzzer harnesses built by `make fuzz-build` (build-fuzz/fuzz_*).
# usage: fuzz/run.sh [harness ...]     (default: every build-fuzz/fuzz_* binary)
# env:   FUZZ_SECONDS  seconds per harness; unset or empty = a smoke run of ~60 s in all
#        FUZZ_JOBS     harnesses run at once (default 2)
#        FUZZ_OPTS     extra libFuzzer flags
# Each harness fuzzes its working corpus build-fuzz/corpus/<h> (new inputs go there), seeded
# from fuzz/corpus/<h>, and first replays fuzz/regress/<h> (past findings). A crash, a sanitizer
# report, a leak, a timeout (> 10 s) or an out-of-memory (> 2 GB RSS, malloc > 512 MB) fails the
# run; the input is saved as build-fuzz/artifacts/<h>-crash-* (minimise with -minimize_crash=1,
# then copy to fuzz/regress/<h>/ and add a test). Prints per harness: execs, cov:, ft:, corpus.
set -uo pipefail
cd "$(dirname "$0")/.."
B=build-fuzz
jobs=${FUZZ_JOBS:-2}
if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for f in "$B"/fuzz_*; do [ -x "$f" ] && names+=("${f#"$B"/fuzz_}"); done
fi
[ ${#names[@]} -gt 0 ] || { echo "fuzz: no harnesses in $B (make fuzz-build)"; exit 1; }
if [ -n "${FUZZ_SECONDS:-}" ]; then secs=$FUZZ_SECONDS; else
  secs=$(( 60 * jobs / ${#names[@]} )); [ "$secs" -ge 3 ] || secs=3
fi
mkdir -p "$B/logs" "$B/artifacts"
echo "fuzz: ${#names[@]} harnesses x ${secs} s, $jobs at a time"

run_one() {
  local h=$1 secs=$2 B=build-fuzz
  local dict=fuzz/posenc.dict maxlen=16384
  case $h in npy|safetensors) dict=fuzz/tensor.dict; maxlen=65536 ;;
    multipart) dict=fuzz/multipart.dict; maxlen=16384 ;; esac
  mkdir -p "$B/corpus/$h"
  local dirs=("$B/corpus/$h")
  [ -d "fuzz/corpus/$h" ] && dirs+=("fuzz/corpus/$h")
  [ -d "fuzz/regress/$h" ] && dirs+=("fuzz/regress/$h")
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0} \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  "$B/fuzz_$h" -max_total_time="$secs" -dict="$dict" -max_len="$maxlen" -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 -reload=0 \
    -artifact_prefix="$B/artifacts/$h-" ${FUZZ_OPTS:-} "${dirs[@]}" >"$B/logs/$h.log" 2>&1
  echo $? >"$B/logs/$h.rc"
}
export -f run_one
printf '%s\n' "${names[@]}" | xargs -P "$jobs" -I{} bash -c "run_one {} $secs"

fail=0 total=0
printf '%-12s %12s %8s %8s %8s  %s\n' harness execs cov ft corpus result
for h in "${names[@]}"; do
  log=$B/logs/$h.log rc=$(cat "$B/logs/$h.rc" 2>/dev/null || echo 99)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.*corp: \([0-9]*\).*/\1/p' <<<"$last")
  res=ok
  if [ "$rc" != 0 ]; then res="FAIL (rc $rc, see $log)"; fail=1; fi
  printf '%-12s %12s %8s %8s %8s  %s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$res"
  total=$(( total + ${execs:-0} ))
done
echo "fuzz: total executions $total"
if [ $fail != 0 ]; then
  echo "fuzz: FAILED -- findings:"; ls -1 "$B"/artifacts/ 2>/dev/null | sed 's/^/  /'
  for h in "${names[@]}"; do
    [ "$(cat "$B/logs/$h.rc")" = 0 ] || grep -m3 -E 'ERROR|fuzz check failed|runtime error|SUMMARY' "$B/logs/$h.log" | sed "s/^/  $h: /"
  done
fi
exit $fail
