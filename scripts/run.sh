#!/usr/bin/env bash
# run.sh - the README's first command: install what is missing, build a
# Release binary, open the window. Extra arguments go to nbody, e.g.
#     scripts/run.sh --ic shell --n 65536
#
# nbody runs in the folder run.sh was started from, so relative paths
# (--load a.tipsy, --screenshot x.png) and the files F12, F5 and M write are
# the user's, not the checkout's; nbody finds its shaders and assets next
# to its binary. The build works on the checkout by its absolute path, and
# its output goes to stderr, so `scripts/run.sh --dump - ...` pipes only
# what nbody writes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
{
    "$root/scripts/install-deps.sh"
    source "$root/scripts/env.sh"
    cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release
    cmake --build "$root/build" -j "$(nproc)" --target nbody
} >&2
exec "$root/build/nbody" "$@"
