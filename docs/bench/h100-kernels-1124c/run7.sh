#!/usr/bin/env bash
# Session 2026-11-24c, run 7: the folded loop with four float builds; GPU
# tests; the shape sweep that sets best's automatic shape for it.
set -uo pipefail
exec > >(tee "$OUT/run7.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: a722249 + fold2.patch (uncommitted)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
nb=build-gpu/nbody
T tests
(timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1; echo "ctest exit $?" >> /tmp/ctest.txt) & pc=$!
wait $pc; grep -E "Test +#|tests passed|exit|FAILED|runaway" /tmp/ctest.txt | head -20
T sweep folded
NS=2048,4096,6144,8192,12288,16384,20480,24576,32768,65536,262144,1048576
for r in 1 2; do
  timeout 200 $nb --benchmark --variant best --p 256,384,512,640,768,1024 --q 1 --n $NS --json $OUT/sweep-fold-$r.json 2>&1 | grep -E "^best " | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|'; echo
  timeout 60 $nb --benchmark --variant best --p 128 --q 2 --n 2048,4096,6144,8192 2>&1 | grep -E "^best " | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|'; echo
done
T sweep plain, eps 0
timeout 200 $nb --benchmark --variant best --softening 0 --p 512,640,768,1024 --q 1 --n 16384,65536,262144,1048576 2>&1 | grep -E "^best " | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|'; echo
T done
