#!/bin/sh
# Builds Shale (release) and the benchmarks, runs each on Shale and lavapipe, prints one table.
#
# usage: tests/bench/run.sh [build-dir]   (default: <repo>/build-bench, set up if missing)
# Details (every run's time, cache sizes, the host C loops) come first as
# "#" lines, then the Markdown table. Ratios are "how many times better
# Shale is" than lavapipe measured in the same run; limits are
# ../shared/MACHINE.md's (2 threads). Timings on a busy machine are noisy:
# the load average is printed before and after.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build-bench}
arch=$(uname -m)

if [ ! -f "$build/build.ninja" ]; then
   out=$(meson setup "$build" "$root" --buildtype=release 2>&1) || { echo "$out"; exit 1; }
fi
ninja -C "$build" src/hal/libvulkan_shale.so tests/bench/bench_pipeline \
   tests/bench/bench_compute tests/bench/bench_render demo/shale_demo >"$build/bench-build.log" 2>&1 ||
   { tail -40 "$build/bench-build.log"; exit 1; }

export VK_DRIVER_FILES="$build/src/hal/shale_icd.$arch.json:/usr/share/vulkan/icd.d/lvp_icd.$arch.json"
export NODEVICE_SELECT=1
export MESA_SHADER_CACHE_DISABLE=true

log=$(mktemp /tmp/shale-bench-XXXXXX)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $cpu, $(nproc) CPUs, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
"$build/tests/bench/bench_pipeline" >>"$log" 2>&1 || status=1
"$build/tests/bench/bench_compute" --no-header >>"$log" 2>&1 || status=1
"$build/tests/bench/bench_render" --no-header >>"$log" 2>&1 || status=1
# Presentation (vkcube, the demo's window) under an Xvfb of its own.
"$here/bench_wsi.sh" "$build" >>"$log" 2>&1 || status=1
grep -v '^|' "$log"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg); $(($(date +%s) - start)) s"
echo
grep '^|' "$log"
[ $status -eq 0 ] || echo "some benchmark failed (see above)" >&2
exit $status
