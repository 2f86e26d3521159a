#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz) with clang, ASan and UBSan in
# build-fuzz (BUILD_DIR overrides) and runs each: every seed and regression
# input once, then mutations for a bounded time (SHALE_FUZZ_SECONDS per
# target overrides the defaults: 90 s for SPIR-V, 45 s for pipeline cache
# data, 25 s for gralloc descriptions; about 3 minutes in all). Fails on any crash, sanitizer
# report, leak or hang (an input running past -timeout). Prints each target's
# executions and executions per second, and writes
# $BUILD_DIR/meson-logs/testlog.json (one line per target, meson's format)
# for ci/summary.py. A failing input is left in $BUILD_DIR/fuzz-artifacts.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-fuzz}

flags='-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined -fno-omit-frame-pointer'
options=(
   -Dfuzz=true
   -Db_sanitize=address,undefined
   -Db_lundef=false
   -Dc_args="$flags"
   -Dcpp_args="$flags"
   -Dbuildtype=debugoptimized
)
if [ -f "$BUILD_DIR/build.ninja" ]; then
   meson configure "$BUILD_DIR" "${options[@]}" >"$BUILD_DIR/configure.log" 2>&1 ||
      { cat "$BUILD_DIR/configure.log"; exit 1; }
else
   CC=clang CXX=clang++ meson setup "$BUILD_DIR" "${options[@]}" >"$BUILD_DIR.configure.log" 2>&1 ||
      { cat "$BUILD_DIR.configure.log"; exit 1; }
fi

# Seconds of mutation per target (the seed pass comes first, uncounted
# when it runs longer).
seconds=${SHALE_FUZZ_SECONDS:-}
ninja -C "$BUILD_DIR" -j "${SHALE_FUZZ_JOBS:-2}" \
   tests/fuzz/fuzz_spirv tests/fuzz/spirv_corpus.stamp \
   tests/fuzz/fuzz_pipeline_cache \
   tests/fuzz/fuzz_gralloc tests/fuzz/gralloc_corpus.stamp || exit 1

export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export LSAN_OPTIONS="suppressions=$ROOT/ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

log_dir=$BUILD_DIR/meson-logs
mkdir -p "$log_dir" "$BUILD_DIR/fuzz-artifacts"
: > "$log_dir/testlog.json"
status=0

# run_target NAME SECONDS SEED_DIR...
run_target() {
   local name=$1 seconds=$2
   shift 2
   local work=$BUILD_DIR/fuzz-work/$name
   rm -rf "$work"
   mkdir -p "$work"
   local out=$log_dir/$name.txt
   local start=$SECONDS
   "$BUILD_DIR/tests/fuzz/$name" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$BUILD_DIR/fuzz-artifacts/$name-" \
      "$work" "$@" > "$out" 2>&1
   local rc=$?
   local wall=$((SECONDS - start))
   local execs rate
   execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -n 1)
   rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out" | tail -n 1)
   local result=OK
   if [ $rc -ne 0 ] || grep -q -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|==ERROR' "$out"; then
      result=FAIL
      status=1
      tail -n 60 "$out"
   fi
   printf 'fuzz %-14s %s: %s executions, %s exec/s, %d s (inputs: %s)\n' "$name" "$result" \
      "${execs:-?}" "${rate:-?}" "$wall" "$*"
   printf '{"name": "fuzz/%s", "result": "%s", "duration": %d}\n' "$name" "$result" "$wall" \
      >> "$log_dir/testlog.json"
}

regressions() { [ -d "tests/fuzz/regressions/$1" ] && echo "tests/fuzz/regressions/$1"; }
run_target fuzz_spirv "${seconds:-90}" "$BUILD_DIR/tests/fuzz/spirv_corpus" $(regressions spirv)
# The pipeline cache target writes its own seed: one pipeline's real data.
cache_seeds=$BUILD_DIR/fuzz-work/pipeline_cache_seeds
rm -rf "$cache_seeds"
mkdir -p "$cache_seeds"
export SHALE_FUZZ_WRITE_SEED=$cache_seeds/saxpy.bin
run_target fuzz_pipeline_cache "${seconds:-45}" "$cache_seeds" $(regressions pipeline_cache)
unset SHALE_FUZZ_WRITE_SEED
run_target fuzz_gralloc "${seconds:-25}" "$BUILD_DIR/tests/fuzz/gralloc_corpus" $(regressions gralloc)
exit $status
