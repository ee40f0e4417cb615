#!/usr/bin/env bash
# Session 2026-11-24c, run 12: the final tree (3ea4a5b): GPU tests,
# memcheck, a headless screenshot; and test_gpu --quick against three
# deliberately broken copies of the folded loop, each of which must fail:
#   noscale: the flush without alpha^2; noeps: folding at any softening
#   (eps = 0 included); nomass: folding with massless bodies.
set -uo pipefail
exec > >(tee "$OUT/run12.log") 2>&1
source .devbundle/env.sh
R=$(pwd)
T() { echo "=== $* $(date +%T)"; }
echo "tree: 3ea4a5b (working tree files)"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader
T build
pids=
for v in noscale noeps nomass; do
  d=/tmp/$v; rm -rf $d; mkdir -p $d
  tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
  case $v in
    noscale) sed -i 's/const T scale = FOLD ? I.m\[k\] \* I.m\[k\] : T(1);/const T scale = T(1);/' $d/sim/sim_kernels.cu ;;
    noeps) sed -i 's/const bool fold = a->best_fold \&\& a->eps2 >= BEST_FOLD_EPS2_MIN;/const bool fold = a->best_fold;/' $d/sim/sim_kernels.cu ;;
    nomass) sed -i 's/c->best_fold = kernels_best_fold_mass(bodies\[i\].mass);/c->best_fold = true;/' $d/sim/sim_cuda.cu ;;
  esac
  echo "$v: $(diff -r $R/sim $d/sim | grep -c '^>') line(s) changed"
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build $d/build -j4 --target test_gpu > $d/b.log 2>&1; echo "$v build exit $?") & pids="$pids $!"
done
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j6 > /tmp/b.log 2>&1; echo "build exit $?"; grep -E "error|warning" /tmp/b.log | head
for p in $pids; do wait $p; done
T tests
timeout 240 ctest --test-dir build-gpu -L gpu --output-on-failure -j1 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAILED" /tmp/ctest.txt | head -20
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
timeout 150 $cs --tool memcheck --error-exitcode 9 build-gpu/tests/test_gpu --quick > /tmp/s.txt 2>&1; echo "memcheck test_gpu --quick: exit $?; $(grep 'ERROR SUMMARY' /tmp/s.txt)"
timeout 60 build-gpu/nbody --headless --n 16384 --frames 300 --screenshot $OUT/plummer-final.png 2>&1 | grep -E "frames of|wrote"
T broken copies
for v in noscale noeps nomass; do
  timeout 120 /tmp/$v/build/tests/test_gpu --quick > /tmp/$v.txt 2>&1; rc=$?
  echo "$v: test_gpu --quick exit $rc; $(grep -c FAILED /tmp/$v.txt) FAILED lines; first: $(grep -m1 FAILED /tmp/$v.txt | cut -c1-200)"
done
T done
