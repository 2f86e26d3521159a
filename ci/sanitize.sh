#!/usr/bin/env bash
# The unit, api, render and android suites under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer, in build-asan (BUILD_DIR overrides). Exit status
# is non-zero when a test fails; results land in $BUILD_DIR/meson-logs.
#
# Every test runs through this script's --wrap mode, which:
#  - preloads libasan into programs that are not instrumented (the vulkaninfo
#    script, python), so that dlopen'ing our instrumented ICD works; leak
#    checking is off in those processes, whose own code is not ours;
#  - preloads lavapipe (libvulkan_lvp.so, which pulls in libLLVM). The loader
#    dlcloses the drivers of each instance; memory lavapipe keeps reachable
#    from its globals then looks leaked, from frames LSan can no longer name
#    ("<unknown module>"), which no suppression can match. Preloaded, it stays
#    mapped: its memory stays reachable and its frames keep their names.
# ci/lsan.supp suppresses leaks inside third-party libraries only. It names no
# Shale code, and deliberately not the loader or the validation layer: their
# frames sit below every driver call, so a module suppression for them would
# hide Shale's own leaks too.
#
# Shale's libraries are not preloaded: a leak the ICD anchors in a global is a
# real leak once the loader unloads it. To get Shale's frames named in a leak
# report (instead of "<unknown module>"), rerun with SHALE_SANITIZE_KEEP_LOADED=1.
set -uo pipefail

if [ "${1:-}" = --wrap ]; then
   shift
   export LD_PRELOAD="${SHALE_SANITIZE_PRELOAD:-}${LD_PRELOAD:+ $LD_PRELOAD}"
   if ! readelf -d "$1" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
      export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
   fi
   exec "$@"
fi

cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${BUILD_DIR:-build-asan}
export CC=${CC:-gcc}   # the preload below is gcc's shared ASan runtime

options=(
   -Db_sanitize=address,undefined
   -Dc_args='-fno-sanitize-recover=undefined -fno-omit-frame-pointer'
   -Dbuildtype=debugoptimized
)
if [ -f "$BUILD_DIR/build.ninja" ]; then
   meson configure "$BUILD_DIR" "${options[@]}" >/dev/null || exit 1
else
   meson setup "$BUILD_DIR" "${options[@]}" || exit 1
fi
ninja -C "$BUILD_DIR" || exit 1

asan_lib=$("$CC" -print-file-name=libasan.so)
if [ ! -e "$asan_lib" ]; then
   echo "sanitize.sh: no libasan.so for $CC" >&2
   exit 1
fi
preload="$asan_lib"
lvp=$(find /usr/lib /usr/lib64 -name libvulkan_lvp.so 2>/dev/null | head -n 1)
[ -n "$lvp" ] && preload="$preload $lvp"
if [ "${SHALE_SANITIZE_KEEP_LOADED:-0}" = 1 ]; then
   preload="$preload $ROOT/$BUILD_DIR/src/hal/libvulkan_shale.so"
   [ -e "$ROOT/$BUILD_DIR/src/hal/vulkan.shale.so" ] &&
      preload="$preload $ROOT/$BUILD_DIR/src/hal/vulkan.shale.so"
fi
export SHALE_SANITIZE_PRELOAD="$preload"

export ASAN_OPTIONS=detect_leaks=1:check_initialization_order=1:detect_stack_use_after_return=1:strict_string_checks=1
export LSAN_OPTIONS="suppressions=$ROOT/ci/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Sanitized code runs a few times slower: more time per test.
meson test -C "$BUILD_DIR" --suite unit --suite api --suite render --suite android \
   --wrapper "$ROOT/ci/sanitize.sh --wrap" --timeout-multiplier 3 \
   --print-errorlogs --num-processes 2
status=$?
# With a wrapper meson names its logs testlog-sanitize.sh.*; ci/test.sh and
# people read testlog.*.
for ext in json txt; do
   cp -f "$BUILD_DIR/meson-logs/testlog-sanitize.sh.$ext" "$BUILD_DIR/meson-logs/testlog.$ext" 2>/dev/null
done
if [ $status -ne 0 ] && grep -q 'unknown module' "$BUILD_DIR/meson-logs/testlog.txt"; then
   echo "sanitize.sh: some frames are unnamed; rerun with SHALE_SANITIZE_KEEP_LOADED=1" >&2
fi
exit $status
