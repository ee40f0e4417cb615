#!/usr/bin/env bash
# The final HEAD: GPU tests, racecheck on test_gpu --quick (it ran past 120 s in final7).
set -uo pipefail
exec > >(tee "$OUT/final8.log") 2>&1
source .devbundle/env.sh
T() { echo "=== $* $(date +%T)"; }
echo "tree: $(cat gpu-in/HEAD)"
T build
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DNBODY_WERROR=ON >/dev/null
cmake --build build-gpu -j16 2>&1 | grep -E "error|warning|Built target nbody$"
T ctest gpu
timeout 200 ctest --test-dir build-gpu -L gpu --output-on-failure -j3 > /tmp/ctest.txt 2>&1
echo "ctest exit $?"; grep -E "Test +#|tests passed|FAIL" /tmp/ctest.txt | head -20
T racecheck
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
timeout 300 "$cs" --tool racecheck --error-exitcode 9 build-gpu/tests/test_gpu --quick > /tmp/cs.txt 2>&1
echo "racecheck test_gpu --quick: exit $?; $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' /tmp/cs.txt)"; tail -3 /tmp/cs.txt
T done
