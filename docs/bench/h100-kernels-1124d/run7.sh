#!/usr/bin/env bash
# Session 2026-11-24d, run 7: the kernel stops with an error (__trap) when
# the walks were made for another B than its own, instead of looping. trap =
# the working tree, notrap = 516e713 (gpu-in/notrap.tar.gz). The check moves
# the compiler's register allocation (the loops' SASS differ), so: A/B at
# small and large N, GPU tests and memcheck on the trap tree, and the broken
# copy of run 5 (wide build on walks for B = 4) with the trap.
set -uo pipefail
exec > >(tee "$OUT/run7.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
pids=
rm -rf /tmp/notrap; mkdir -p /tmp/notrap && tar xzf gpu-in/notrap.tar.gz -C /tmp/notrap
(cmake -S /tmp/notrap -B /tmp/notrap/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build /tmp/notrap/build -j4 --target nbody > /tmp/notrap/b.log 2>&1; echo "notrap build exit $?") & pids="$pids $!"
d=/tmp/wrongb; rm -rf $d; mkdir -p $d
tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
sed -i 's/    p->b = p->build == BEST_WIDE ? BEST_WIDE_B : BEST_B;/    p->b = BEST_B;/' $d/sim/sim_kernels.cu
echo "wrongb: $(diff -r sim $d/sim | grep -c '^>') line(s) changed"
(cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
 cmake --build $d/build -j4 --target test_gpu > $d/b.log 2>&1; echo "wrongb build exit $?") & pids="$pids $!"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j8 > /tmp/b.log 2>&1; echo "trap build exit $?"; grep -E "error|warning" /tmp/b.log | head
for p in $pids; do wait $p; done
nb=build-gpu/nbody; nt=/tmp/notrap/build/nbody
B() { echo "$1: $(timeout 150 "${@:2}" 2>&1 | grep -E '^(best|fp64|fast) ' | tr -s ' ' | cut -d' ' -f2-5 | tr '\n' '|')"; }
T A/B
for r in 1 2 3; do
  B trap $nb --benchmark --variant best --n 2048,4096,6144,8192,12288,16384,65536,262144,1048576
  B notrap $nt --benchmark --variant best --n 2048,4096,6144,8192,12288,16384,65536,262144,1048576
done
for r in 1 2; do
  B "trap fp64" $nb --benchmark --variant fp64 --n 65536,262144
  B "notrap fp64" $nt --benchmark --variant fp64 --n 65536,262144
  B "trap eps 0" $nb --benchmark --variant best --n 16384,262144 --softening 0
  B "notrap eps 0" $nt --benchmark --variant best --n 16384,262144 --softening 0
done
T wrongb
timeout 120 /tmp/wrongb/build/tests/test_gpu --quick > /tmp/wrongb.txt 2>&1; rc=$?
echo "wrongb: test_gpu --quick exit $rc; last lines:"; tail -3 /tmp/wrongb.txt | cut -c1-300
T tests
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -20
cp /tmp/ctest.txt $OUT/ctest-gpu-run7.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
timeout 200 $cs --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick > /tmp/s.txt 2>&1; echo "memcheck test_gpu --quick: exit $?; $(grep 'ERROR SUMMARY' /tmp/s.txt)"
timeout 60 $nb --headless --n 16384 --frames 300 --screenshot $OUT/plummer-run7.png 2>&1 | grep -E "frames of|wrote"
T done
