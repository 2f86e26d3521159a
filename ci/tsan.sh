#!/usr/bin/env bash
# The api and android suites under ThreadSanitizer, in build-tsan (BUILD_DIR
# overrides). Exit status is non-zero when a test fails or TSan reports a
# race; results land in $BUILD_DIR/meson-logs (testlog.json for
# ci/summary.py). ci/test.sh runs it (SHALE_SKIP_TSAN=1 skips it).
#
# Every test of the two suites runs, at its normal size but one:
# api/alloc_fail keeps every allocation-failure point among each sweep's
# first and last 64 and one in SHALE_TSAN_ALLOC_FAIL_STRIDE (default 32)
# between them (SHALE_TEST_ALLOC_FAIL_STRIDE, tests/api/test_alloc_fail.c):
# vkCreateInstance's 2553 points, each an ICD load and unload, made the
# test take 6 minutes under TSan, and run past its 480 s limit at a load
# average of 13 (the normal and ASan builds still test every point; 2 min
# under TSan now).
#
# Every test runs through this script's --wrap mode, which preloads gcc's
# libtsan into programs that are not instrumented (the vulkaninfo script,
# python), so that dlopen'ing the instrumented ICD works, and preloads
# lavapipe (its frames then keep their names in reports, for the
# suppressions).
# ci/tsan.supp suppresses races inside third-party libraries only: LLVM,
# lavapipe, the Vulkan loader and the validation layer, whose code is not
# instrumented (TSan cannot see their atomics, so their own synchronisation
# looks racy). It names no Shale code. Synchronisation of Shale's that TSan
# cannot see (sync fds, eventfds) is annotated where it happens instead
# (src/util/su_tsan.h).
set -uo pipefail

if [ "${1:-}" = --wrap ]; then
   shift
   preload="${SHALE_TSAN_PRELOAD:-}${LD_PRELOAD:+ $LD_PRELOAD}"
   # api/exit exits on purpose with the optimizer and its own threads
   # running (what it tests): no thread-leak reports there.
   case "$1" in
   */api_exit) export TSAN_OPTIONS="$TSAN_OPTIONS:report_thread_leaks=0" ;;
   esac
   # Address-space randomisation off for the test (setarch -R) where the
   # kernel allows it: gcc 12's TSan maps its shadow memory at fixed
   # addresses and, now and then, failed at start-up when a randomly placed
   # mapping sat there ("ThreadSanitizer failed to allocate ... (errno: 12)",
   # api/subgroup_types once in session 17's second CI run). libtsan is
   # preloaded into the test only, not into setarch.
   if setarch "$(uname -m)" -R true 2>/dev/null; then
      exec setarch "$(uname -m)" -R env LD_PRELOAD="$preload" "$@"
   fi
   export LD_PRELOAD="$preload"
   exec "$@"
fi

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-tsan}
export CC=${CC:-gcc}   # the preload below is gcc's shared TSan runtime

options=(
   -Db_sanitize=thread
   -Dc_args='-fno-omit-frame-pointer'
   -Dbuildtype=debugoptimized
)
if [ -f "$BUILD_DIR/build.ninja" ]; then
   meson configure "$BUILD_DIR" "${options[@]}" >/dev/null || exit 1
else
   meson setup "$BUILD_DIR" "${options[@]}" >/dev/null || exit 1
fi
# Only what the api and android suites run (their executables and the
# libraries they load): 256 build steps from an empty build-tsan instead of
# 455 with the unit, render and benchmark programs.
targets=$(meson introspect --tests --targets "$BUILD_DIR" | python3 -c '
import json, os, sys
info = json.load(sys.stdin)
want = {d for t in info["tests"] if any(s.endswith((":api", ":android")) for s in t["suite"])
        for d in t["depends"]}
print(" ".join(os.path.relpath(f, sys.argv[1]) for t in info["targets"] if t["id"] in want
               for f in t["filename"]))' "$(cd "$BUILD_DIR" && pwd)")
[ -n "$targets" ] || { echo "tsan.sh: no api/android test targets" >&2; exit 1; }
# shellcheck disable=SC2086  # a list of paths without spaces
ninja -C "$BUILD_DIR" -j "${SHALE_TSAN_JOBS:-2}" $targets || exit 1

tsan_lib=$("$CC" -print-file-name=libtsan.so)
if [ ! -e "$tsan_lib" ]; then
   echo "tsan.sh: no libtsan.so for $CC" >&2
   exit 1
fi
preload="$tsan_lib"
lvp=$(find /usr/lib /usr/lib64 -name libvulkan_lvp.so 2>/dev/null | head -n 1)
[ -n "$lvp" ] && preload="$preload $lvp"
# Shale's own libraries are not preloaded: the loader unloads them as it
# would in an application (src/compiler/sc_exit.c registers its exit hook
# for the library, with __cxa_atexit and __dso_handle, not with atexit,
# which gcc's TSan runtime binds to the process).
export SHALE_TSAN_PRELOAD="$preload"

export SHALE_TEST_ALLOC_FAIL_STRIDE=${SHALE_TSAN_ALLOC_FAIL_STRIDE:-32}

# Every report is printed; any fails the test (exit code 66).
export TSAN_OPTIONS="suppressions=$ROOT/ci/tsan.supp:halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4"

meson test -C "$BUILD_DIR" --suite api --suite android \
   --wrapper "$ROOT/ci/tsan.sh --wrap" --timeout-multiplier 4 \
   --print-errorlogs --num-processes 2
status=$?
for ext in json txt; do
   cp -f "$BUILD_DIR/meson-logs/testlog-tsan.sh.$ext" "$BUILD_DIR/meson-logs/testlog.$ext" 2>/dev/null
done
exit $status
