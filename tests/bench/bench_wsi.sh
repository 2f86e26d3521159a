#!/bin/sh
# Presentation benchmarks under an Xvfb of their own, Shale against lavapipe in the same run.
#
# usage: tests/bench/bench_wsi.sh BUILD_DIR [RUNS]   (run.sh calls it with its release build)
#   vkcube: vkcube --present_mode 0 (immediate) in its 500x500 window, timed
#     from outside: a run of S frames and one of S + N frames; the frame rate
#     is N over the difference, so start-up (instance, device, pipelines)
#     drops out.
#   demo: demo/shale_demo --window --present immediate --frames F (640x480,
#     4x MSAA, resolved straight into the swapchain's images); its own rate
#     over every frame but the first.
# Each figure is the median of RUNS (default 3) runs, the drivers alternated
# run by run (Shale, lavapipe, Shale, ...). Prints "#" lines with every run,
# then Markdown table rows: benchmark | Shale | lavapipe | vs lavapipe | -,
# with CPU time a frame (user + system, every thread) beside each rate:
# on a loaded machine the rate follows the load, the CPU time much less.
# Skips (prints why, exits 0) where Xvfb or vkcube is not installed.
set -u
build=${1:?usage: bench_wsi.sh BUILD_DIR [RUNS]}
runs=${2:-3}
arch=$(uname -m)
shale_icd="$build/src/hal/shale_icd.$arch.json"
lvp_icd="/usr/share/vulkan/icd.d/lvp_icd.$arch.json"
demo="$build/demo/shale_demo"
S=10 N=${SHALE_BENCH_VKCUBE_FRAMES:-150} F=${SHALE_BENCH_DEMO_FRAMES:-40}

for tool in /usr/bin/Xvfb /usr/bin/time /usr/bin/xdpyinfo; do
   if [ ! -x $tool ]; then
      echo "# bench_wsi: $tool is not installed: skipped"
      exit 0
   fi
done
display=":$((900 + $$ % 90))"
Xvfb "$display" -screen 0 800x600x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null' EXIT
export DISPLAY="$display" NODEVICE_SELECT=1 MESA_SHADER_CACHE_DISABLE=true
unset VK_INSTANCE_LAYERS
i=0
until xdpyinfo >/dev/null 2>&1; do
   i=$((i + 1))
   if [ $i -gt 100 ]; then echo "# bench_wsi: Xvfb did not come up"; exit 1; fi
   sleep 0.1
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'; }
status=0
tf=$(mktemp /tmp/shale-bench-wsi-time-XXXXXX)

# Runs a command; prints its elapsed time and its CPU time (user + system,
# every thread of the process), in seconds.
timed() {
   /usr/bin/time -f "%e %U %S" -o "$tf" "$@" >/dev/null 2>&1 || return 1
   awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$tf"
}

# vkcube on manifest $1: "frames per second, CPU ms per frame" over the N
# frames a run of S + N frames has beyond a run of S.
vkcube_run() {
   a=$(timed env VK_DRIVER_FILES=$1 vkcube --present_mode 0 --c $S) || return 1
   b=$(timed env VK_DRIVER_FILES=$1 vkcube --present_mode 0 --c $((S + N))) || return 1
   echo "$a $b" | awk -v n=$N '{ printf "%.2f %.1f\n", n / ($3 - $1), 1000 * ($4 - $2) / n }'
}

# The demo's window on manifest $1: its own frames per second (all frames
# but the first), and CPU ms per frame over the F - 2 frames a run of F has
# beyond a run of 2.
demo_run() {
   fps=$(VK_DRIVER_FILES=$1 /usr/bin/time -f "%e %U %S" -o "$tf" \
           "$demo" --window --present immediate --frames $F 2>/dev/null |
         sed -n 's/.*frames presented.*then \([0-9.]*\) frames per second.*/\1/p')
   [ -n "$fps" ] || return 1
   b=$(awk '{ printf "%.3f\n", $2 + $3 }' "$tf")
   a=$(timed env VK_DRIVER_FILES=$1 "$demo" --window --present immediate --frames 2) || return 1
   echo "$fps $a $b" | awk -v n=$((F - 2)) '{ printf "%s %.1f\n", $1, 1000 * ($4 - $3) / n }'
}

rows=$(mktemp /tmp/shale-bench-wsi-XXXXXX)
trap 'rm -f "$rows" "$tf"; kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null' EXIT

row() {   # name, then Shale's and lavapipe's "fps cpu-ms" pairs, one a line
   sf=$(printf '%s\n' "$2" | awk 'NF { print $1 }' | median)
   sc=$(printf '%s\n' "$2" | awk 'NF { print $2 }' | median)
   lf=$(printf '%s\n' "$3" | awk 'NF { print $1 }' | median)
   lc=$(printf '%s\n' "$3" | awk 'NF { print $2 }' | median)
   r=$(awk -v s="$sf" -v l="$lf" 'BEGIN { if (l > 0) printf "%.2fx", s / l; else print "-" }')
   rc=$(awk -v s="$sc" -v l="$lc" 'BEGIN { if (s > 0) printf "%.2fx", l / s; else print "-" }')
   echo "| $1 | $sf fps ($sc ms CPU a frame) | $lf fps ($lc ms) | $r ($rc in CPU time) | - |" >>"$rows"
}

if command -v vkcube >/dev/null 2>&1; then
   shale="" lvp=""
   for k in $(seq "$runs"); do
      a=$(vkcube_run "$shale_icd") || { a="0 0"; status=1; }
      b=$(vkcube_run "$lvp_icd") || { b="0 0"; status=1; }
      echo "# vkcube run $k: Shale $a, lavapipe $b (frames per second, CPU ms a frame; $N frames)"
      shale="$shale
$a" lvp="$lvp
$b"
   done
   row "vkcube, 500x500, immediate present, $N frames, start-up excluded" "$shale" "$lvp"
else
   echo "# bench_wsi: vkcube is not installed: skipped"
fi

if [ -x "$demo" ]; then
   shale="" lvp=""
   for k in $(seq "$runs"); do
      a=$(demo_run "$shale_icd") || { a="0 0"; status=1; }
      b=$(demo_run "$lvp_icd") || { b="0 0"; status=1; }
      echo "# demo --window run $k: Shale $a, lavapipe $b (frames per second, CPU ms a frame; $F frames)"
      shale="$shale
$a" lvp="$lvp
$b"
   done
   row "demo --window, 640x480 4x MSAA torus, immediate present" "$shale" "$lvp"
else
   echo "# bench_wsi: $demo is not built: skipped"
fi
cat "$rows"
exit $status
