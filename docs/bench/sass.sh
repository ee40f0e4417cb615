#!/usr/bin/env bash
# sass.sh - docs/PERFORMANCE.md, "Counting first": the issue slots per
# interaction of each force kernel's inner loop, its MUFU instructions
# (the special-function unit's: RSQ, RCP, ...) and its registers per
# thread, counted in the sm_90 SASS of sim/sim_kernels.cu. Needs nvcc and
# cuobjdump (the CUDA Toolkit, or pip's nvidia-cuda-cuobjdump with
# nvidia-cuda-nvdisasm), no GPU. The object file goes into BUILD_DIR.
#
#   docs/bench/sass.sh BUILD_DIR > sass.log
set -uo pipefail
if [ $# -ne 1 ]; then
    echo "usage: $0 BUILD_DIR > LOG   (a folder for the object file)" >&2
    exit 2
fi
repo=$(cd "$(dirname "$0")/../.." && pwd)
obj=$1/sass-kernels.o
mkdir -p "$1" || exit 1
for tool in nvcc cuobjdump; do
    command -v $tool >/dev/null || {
        echo "sass.sh: no $tool on PATH" >&2
        echo "hint: source scripts/env.sh for the CUDA Toolkit, or pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm and put their bin on PATH" >&2
        exit 1
    }
done
echo "# docs/bench/sass.sh $*"
echo "# $(date -u '+%F %T') UTC, commit $(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)"
echo "# nvcc $(nvcc --version | grep -oE "V[0-9.]+" | head -1); cuobjdump $(cuobjdump --version | grep -oE 'V[0-9.]+' | head -1)"
echo "=== nvcc -O3 -DNDEBUG -std=c++17 --generate-code=arch=compute_90,code=sm_90 -Isim -Ishaders -c sim/sim_kernels.cu"
(cd "$repo" && nvcc -O3 -DNDEBUG -std=c++17 --generate-code=arch=compute_90,code=sm_90 -Isim -Ishaders \
    -c sim/sim_kernels.cu -o "$obj") || exit 1
echo "=== cuobjdump -sass | scripts/sass-loops.py: instructions and MUFU per MUFU.RSQ of each innermost loop"
cuobjdump -sass "$obj" | "$repo/scripts/sass-loops.py"
echo "=== cuobjdump -res-usage: registers per thread"
cuobjdump -res-usage "$obj" | grep -A1 'Function forces_\|Function _Z[0-9]*forces_' |
    grep -oE 'Function [^:]+|REG:[0-9]+' | paste - -
echo "=== done"
