#!/bin/sh
# Presentation benchmarks under an Xvfb of their own, Shale against lavapipe in the same run.
#
# usage: tests/bench/bench_wsi.sh BUILD_DIR [RUNS]   (run.sh calls it with its release build)
#   vkcube: vkcube --present_mode 0 (immediate) in its 500x500 window, timed
#     from outside: a run of S frames and one of S + N frames; the frame rate
#     is N over the difference, so start-up (instance, device, pipelines)
#     drops out. Then the same in a 32x32 window over T frames: next to no
#     pixels, so what a frame costs besides rasterizing (recording, submit,
#     semaphores and fences, the queue and present threads, X requests).
#   demo: demo/shale_demo --window --present immediate --frames F (640x480,
#     4x MSAA, resolved straight into the swapchain's images); its own rate
#     over every frame but the first.
#   glmark2: glmark2-es2 through zink (Mesa's OpenGL on Vulkan) in its
#     800x600 window, six scenes of D seconds each (build, texture, phong
#     shading, bump normals, effect2d, desktop shadow), with Mesa's glthread
#     off (as README's figures were measured); glmark2's score (the scenes' mean frame
#     rate), and CPU time over the frames the scenes' rates add up to.
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
# N and T: long enough that the difference of two runs outweighs start-up's
# spread and /usr/bin/time's 10 ms steps at Shale's 2000-20000 fps (150
# frames gave negative rates in session 17).
S=10 N=${SHALE_BENCH_VKCUBE_FRAMES:-3000} F=${SHALE_BENCH_DEMO_FRAMES:-40}
T=${SHALE_BENCH_VKCUBE_SMALL_FRAMES:-20000}
D=${SHALE_BENCH_GLMARK2_SECONDS:-2}

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

# vkcube on manifest $1 in a window of $2 x $2 (500: vkcube's own):
# "frames per second, CPU ms per frame" over the $3 frames a run of S + $3
# frames has beyond a run of S.
vkcube_run() {
   a=$(timed env VK_DRIVER_FILES=$1 vkcube --present_mode 0 --width $2 --height $2 --c $S) ||
      return 1
   b=$(timed env VK_DRIVER_FILES=$1 vkcube --present_mode 0 --width $2 --height $2 \
       --c $((S + $3))) || return 1
   echo "$a $b" | awk -v n=$3 '{ printf "%.2f %.3f\n", n / ($3 - $1), 1000 * ($4 - $2) / n }'
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

# glmark2-es2 through zink on manifest $1: "score, CPU ms per frame" (the
# frames are the scenes' frame rates times D, as glmark2 prints them).
glmark2_run() {
   out=$(VK_DRIVER_FILES=$1 MESA_LOADER_DRIVER_OVERRIDE=zink LIBGL_ALWAYS_SOFTWARE=1 \
         mesa_glthread=false /usr/bin/time -f "%e %U %S" -o "$tf" glmark2-es2 \
         -b build:use-vbo=true:duration=$D -b texture:texture-filter=linear:duration=$D \
         -b shading:shading=phong:duration=$D -b bump:bump-render=normals:duration=$D \
         -b "effect2d:kernel=0,1,0;1,-4,1;0,1,0;:duration=$D" \
         -b desktop:effect=shadow:windows=4:duration=$D 2>/dev/null) || return 1
   score=$(printf '%s\n' "$out" | sed -n 's/.*glmark2 Score: *\([0-9]*\).*/\1/p')
   frames=$(printf '%s\n' "$out" | sed -n 's/.* FPS: *\([0-9]*\) .*/\1/p' |
            awk -v d=$D '{ n += $1 * d } END { print n + 0 }')
   [ -n "$score" ] && [ "$frames" -gt 0 ] || return 1
   awk -v s="$score" -v n="$frames" '{ printf "%s %.1f\n", s, 1000 * ($2 + $3) / n }' "$tf"
}

rows=$(mktemp /tmp/shale-bench-wsi-XXXXXX)
trap 'rm -f "$rows" "$tf"; kill $xvfb 2>/dev/null; wait $xvfb 2>/dev/null' EXIT

row() {   # name, then Shale's and lavapipe's "fps cpu-ms" pairs, one a line; unit (fps)
   sf=$(printf '%s\n' "$2" | awk 'NF { print $1 }' | median)
   sc=$(printf '%s\n' "$2" | awk 'NF { print $2 }' | median)
   lf=$(printf '%s\n' "$3" | awk 'NF { print $1 }' | median)
   lc=$(printf '%s\n' "$3" | awk 'NF { print $2 }' | median)
   r=$(awk -v s="$sf" -v l="$lf" 'BEGIN { if (l > 0) printf "%.2fx", s / l; else print "-" }')
   rc=$(awk -v s="$sc" -v l="$lc" 'BEGIN { if (s > 0) printf "%.2fx", l / s; else print "-" }')
   u=${4:-fps}
   echo "| $1 | $sf $u ($sc ms CPU a frame) | $lf $u ($lc ms) | $r ($rc in CPU time) | - |" >>"$rows"
}

# Runs "$5 MANIFEST ARGS..." (ARGS: what follows $5) RUNS times on each
# driver, alternated run by run; prints each run's pair as "# $1 run k:
# ..." (with $2 naming the figures) and adds the row $3 of the medians, in
# unit $4.
alternate() {
   label=$1 what=$2 name=$3 unit=$4 fn=$5
   shift 5
   shale="" lvp=""
   for k in $(seq "$runs"); do
      a=$("$fn" "$shale_icd" "$@") || { a="0 0"; status=1; }
      b=$("$fn" "$lvp_icd" "$@") || { b="0 0"; status=1; }
      echo "# $label run $k: Shale $a, lavapipe $b ($what)"
      shale="$shale
$a" lvp="$lvp
$b"
   done
   row "$name" "$shale" "$lvp" "$unit"
}

if command -v vkcube >/dev/null 2>&1; then
   alternate vkcube "frames per second, CPU ms a frame; $N frames" \
      "vkcube, 500x500, immediate present, $N frames, start-up excluded" fps vkcube_run 500 $N
   alternate "vkcube 32x32" "frames per second, CPU ms a frame; $T frames" \
      "vkcube, 32x32 (a frame's fixed costs), immediate present, $T frames" fps vkcube_run 32 $T
else
   echo "# bench_wsi: vkcube is not installed: skipped"
fi

if [ -x "$demo" ]; then
   alternate "demo --window" "frames per second, CPU ms a frame; $F frames" \
      "demo --window, 640x480 4x MSAA torus, immediate present" fps demo_run
else
   echo "# bench_wsi: $demo is not built: skipped"
fi
if [ -x /usr/bin/glmark2-es2 ] && [ -r /usr/lib/$arch-linux-gnu/dri/zink_dri.so ]; then
   alternate "glmark2-es2 (zink)" "score, CPU ms a frame; 6 scenes of $D s" \
      "glmark2-es2 through zink, 800x600, 6 scenes of $D s, glthread off" score glmark2_run
else
   echo "# bench_wsi: glmark2-es2 or zink is not installed: skipped"
fi
cat "$rows"
exit $status
