#!/usr/bin/env bash
# run.sh - the README's first command: install what is missing, build a
# Release binary, open the window. Extra arguments go to nbody, e.g.
#     scripts/run.sh --ic shell --n 65536
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
source scripts/env.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target nbody
exec ./build/nbody "$@"
