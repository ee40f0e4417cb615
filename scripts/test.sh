#!/usr/bin/env bash
# test.sh - the README's second command: install what is missing, build
# everything (warnings are errors), run the whole test suite, then build
# the C code again under AddressSanitizer + UBSan and rerun the CPU tests.
# Tests that need a GPU exit 77 and show as skipped where there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DNBODY_WERROR=ON
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

# The sanitizer build only needs to run the CPU tests: one CUDA target keeps it quick.
# -O1 keeps the double-precision reference runs of the physics tests quick.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNBODY_WERROR=ON -DNBODY_ASAN=ON \
      -DCMAKE_CUDA_ARCHITECTURES=75 "-DCMAKE_C_FLAGS_DEBUG=-g -O1"
cmake --build build-asan -j "$jobs"
ctest --test-dir build-asan --output-on-failure -L cpu -j "$jobs"
