#!/usr/bin/env bash
# test_nccl_build.sh - the other half of "multi-GPU is optional at build
# time": nbody built once more the other way round from the main build,
# and what --gpus says in each.
#
#   test_nccl_build.sh SOURCE_DIR WORK_DIR MAIN_NBODY with|without
#
# with: the main build has NCCL; the other is configured -DNBODY_NCCL=OFF,
# and its --gpus 2 must be refused with the way to get NCCL (exit 2), the
# main build's not for that reason. without: NCCL comes from PyPI
# (nvidia-nccl-cu13 in a venv under WORK_DIR; exit 77 where it cannot be
# installed), cmake must say "multi-GPU: enabled", and the roles swap.
# Only the nbody target is built, for one CUDA architecture (sm_75).
set -uo pipefail
src=$1 work=$2 main=$3 main_has=$4
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
mkdir -p "$work"
flags=(-DCMAKE_BUILD_TYPE=Release -DNBODY_WERROR=ON -DCMAKE_CUDA_ARCHITECTURES=75)
if [ "$main_has" = with ]; then
    flags+=(-DNBODY_NCCL=OFF)
    want="multi-GPU: disabled"
else
    venv=$work/nccl-venv
    if ! { [ -x "$venv/bin/python" ] || python3 -m venv "$venv"; } ||
       ! "$venv/bin/python" -m pip install -q nvidia-nccl-cu13 >"$work/pip.txt" 2>&1; then
        echo "skipped: nvidia-nccl-cu13 could not be installed from PyPI"
        tail -n 3 "$work/pip.txt" 2>/dev/null
        exit 77
    fi
    root=$("$venv/bin/python" -c "import nvidia.nccl as n; print(list(n.__path__)[0])")
    flags+=(-DNCCL_ROOT="$root")
    want="multi-GPU: enabled"
fi
if ! cmake -S "$src" -B "$work/build" "${flags[@]}" >"$work/configure.txt" 2>&1; then
    cat "$work/configure.txt"
    fail "configure the other way (${flags[*]})"
    exit 1
fi
grep -q "$want" "$work/configure.txt" || fail "cmake did not say '$want'"
grep "multi-GPU" "$work/configure.txt"
if ! cmake --build "$work/build" --target nbody -j "$(nproc)" >"$work/build.txt" 2>&1; then
    grep -E "error|warning" "$work/build.txt" | head -20
    fail "build nbody the other way"
    exit 1
fi
echo "ok   built nbody the other way"

# The build without NCCL refuses --gpus 2 with the way to get it, whatever
# the machine has (exit 2, no output written); the build with it does not
# say that (here it goes on to the next reason, the CPU or no GPU).
without=$main with=$work/build/nbody
[ "$main_has" = with ] && without=$work/build/nbody && with=$main
run=(--gpus 2 --headless --n 8 --frames 1 --width 16 --height 16)
"$without" "${run[@]}" >"$work/out.txt" 2>"$work/err.txt"
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q "^nbody: --gpus 2 needs NCCL" "$work/err.txt" ||
   ! grep -q "^hint: pip install nvidia-nccl-cu13" "$work/err.txt"; then
    fail "without NCCL, --gpus 2: exit $rc"; cat "$work/err.txt"
else
    echo "ok   without NCCL: $(head -n 1 "$work/err.txt")"
fi
"$with" "${run[@]}" >"$work/out.txt" 2>"$work/err.txt"
if grep -q "needs NCCL" "$work/err.txt"; then
    fail "with NCCL, --gpus 2 still says it needs NCCL"; cat "$work/err.txt"
else
    echo "ok   with NCCL, --gpus 2 goes on: $(head -n 1 "$work/err.txt")"
fi
[ "$fails" -eq 0 ] || { echo "test_nccl_build: $fails failure(s)"; exit 1; }
echo "test_nccl_build: passed"
