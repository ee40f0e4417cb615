#!/usr/bin/env bash
# Session 2026-11-25, run 2: why the HUD slows CUDA's sprites (the overlay's
# buffer upload with and without orphaning), and whether NVIDIA's GL clips
# points by their centre (splat_math.h's rule) or draws the visible part of
# points whose centre is outside (a "guard band" copy of the rule).
set -uo pipefail
exec > >(tee "$OUT/run2.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
mk() { # name, then a command run in the copy
  local d=/tmp/$1; rm -rf $d; mkdir -p $d
  tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
  (cd $d && eval "$2")
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build $d/build -j5 --target nbody test_splat png_check > $d/b.log 2>&1; echo "$1 build exit $?")
}
mk noorphan "cp $PWD/gpu-in/render_overlay.head.c render/render_overlay.c; cp $PWD/gpu-in/render_boxes.head.c render/render_boxes.c" & p1=$!
mk guard "sed -i 's/if (!(w > 0.0f) || !(fabsf(clip\[0\]) <= w \&\& fabsf(clip\[1\]) <= w \&\& fabsf(clip\[2\]) <= w)) {/if (!(w > 0.0f) || !(fabsf(clip[2]) <= w)) {/' splat/splat_math.h; grep -c 'fabsf(clip\[2\]) <= w)) {' splat/splat_math.h" & p2=$!
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j6 --target nbody test_splat png_check > /tmp/b.log 2>&1; echo "new build exit $?"; grep -E "error|warning" /tmp/b.log | head
wait $p1; wait $p2
nb=build-gpu/nbody
T HUD frames
F() { echo "$1: $(timeout 60 "${@:2}" 2>&1 | grep -E 'frames of|cannot|rror|warning' | tail -2 | tr -s ' ' | tr '\n' ' ')"; }
for r in 1 2; do
  F "16K HUD, orphaning" $nb --headless --n 16384 --frames 3000
  F "16K HUD, no orphaning" /tmp/noorphan/build/nbody --headless --n 16384 --frames 3000
  F "16K HUD, orphaning, GL sprites" $nb --headless --n 16384 --frames 3000 --gl-sprites
  F "16K no HUD, orphaning" $nb --headless --no-hud --n 16384 --frames 3000
done
echo "1 W" > /tmp/w.txt
F "131K tree, HUD, cells (W), orphaning" $nb --headless --n 131072 --frames 600 --script /tmp/w.txt
F "131K tree, HUD, cells (W), no orphaning" /tmp/noorphan/build/nbody --headless --n 131072 --frames 600 --script /tmp/w.txt
echo "--- profile HUD, orphaning"; timeout 60 $nb --headless --n 16384 --frames 3000 --profile 2>&1 | tail -12
echo "--- profile HUD, no orphaning"; timeout 60 /tmp/noorphan/build/nbody --headless --n 16384 --frames 3000 --profile 2>&1 | tail -12
T edges
echo "--- test_splat cpu (NVIDIA GL), centre rule"; timeout 60 build-gpu/tests/test_splat cpu 2>&1 | tail -8
echo "--- test_splat cpu (NVIDIA GL), guard band rule"; timeout 60 /tmp/guard/build/tests/test_splat cpu 2>&1 | tail -8
echo "0 Space" > /tmp/pause.txt
for b in build-gpu /tmp/guard/build; do
  tag=centre; [ $b = build-gpu ] || tag=guard
  for how in cuda gl; do
    flag=; [ $how = gl ] && flag=--gl-sprites
    timeout 60 $b/nbody --headless --n 16384 --frames 3 --no-hud --script /tmp/pause.txt --screenshot /tmp/s-$how.png $flag > /dev/null 2>&1
    timeout 60 $b/nbody --headless --n 16384 --frames 3 --no-hud --script /tmp/pause.txt --screenshot /tmp/z-$how.png --ic shell $flag > /dev/null 2>&1
  done
  echo "$b sphere: $(build-gpu/tests/png_check /tmp/s-cuda.png --same-as /tmp/s-gl.png 9 1 2>&1 | grep against)"
  echo "$b shell: $(build-gpu/tests/png_check /tmp/z-cuda.png --same-as /tmp/z-gl.png 9 1 2>&1 | grep against)"
  cp /tmp/s-cuda.png $OUT/sphere-cuda-$tag.png; cp /tmp/s-gl.png $OUT/sphere-gl.png
  cp /tmp/z-cuda.png $OUT/shell-cuda-$tag.png; cp /tmp/z-gl.png $OUT/shell-gl.png
done
T done
