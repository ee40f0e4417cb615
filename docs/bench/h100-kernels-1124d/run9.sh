#!/usr/bin/env bash
# Session 2026-11-24d, run 9: do the tests catch a wrong wide build? Two
# copies of the tree, each breaking only the B = 6 loop (the j force
# halved): widefold (the folded loop: the --quick N = 16411 case must fail)
# and wideplain (the plain loop: the full test's massless N = 16411 case
# must fail; the B = 4 builds are untouched in both).
set -uo pipefail
exec > >(tee "$OUT/run9.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
T build
pids=
for v in widefold wideplain; do
  d=/tmp/$v; rm -rf $d; mkdir -p $d
  tar cf - --exclude=./build-gpu --exclude=./.devbundle --exclude=./gpu-in --exclude=./docs --exclude=./.git . | tar xf - -C $d
  case $v in
    widefold) sed -i 's/^        sj = t;/        sj = B == 6 ? T(0.5) * t : t;/' $d/sim/sim_kernels.cu ;;
    wideplain) sed -i 's/^        sj = I.m\[k\] \* inv3;/        sj = (B == 6 ? T(0.5) : T(1)) * I.m[k] * inv3;/' $d/sim/sim_kernels.cu ;;
  esac
  echo "$v: $(diff -r sim $d/sim | grep -c '^>') line(s) changed"
  (cmake -S $d -B $d/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null &&
   cmake --build $d/build -j8 --target test_gpu > $d/b.log 2>&1; echo "$v build exit $?") & pids="$pids $!"
done
for p in $pids; do wait $p; done
T widefold quick
timeout 150 /tmp/widefold/build/tests/test_gpu --quick > /tmp/wf.txt 2>&1; echo "widefold --quick exit $?; $(grep -c FAILED /tmp/wf.txt) FAILED lines"; grep -m3 FAILED /tmp/wf.txt | cut -c1-220
T wideplain full
timeout 240 /tmp/wideplain/build/tests/test_gpu > /tmp/wp.txt 2>&1; echo "wideplain full exit $?; $(grep -c FAILED /tmp/wp.txt) FAILED lines"; grep FAILED /tmp/wp.txt | cut -c1-160 | sort | uniq -c | head -8
T done
