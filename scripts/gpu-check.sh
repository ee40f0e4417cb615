#!/usr/bin/env bash
# gpu-check.sh - everything that needs the GPU, for a lent GPU machine that
# runs a copy of this tree. Results land in $OUT (default ./gpu-out).
#
#   source .devbundle/env.sh && scripts/gpu-check.sh test|bench|tree|gallery
#
# SKIP_RACECHECK=1 and SKIP_SWEEP=1 leave out the two slowest parts.
#
#   test     build for sm_90, the whole test suite (test_gpu's summary in
#            test_gpu.txt), compute-sanitizer memcheck and racecheck on the
#            kernel test, memcheck on a headless interop run, the window
#            (below), headless frame rates at 16K and 128K bodies.
#            The window: with .devbundle-x carried (scripts/make-window-
#            bundle.sh; carry [".devbundle", ".devbundle-x"]), unpacks it,
#            starts its Xvfb, prints whether GLX comes up and on which GL
#            vendor/renderer (glxinfo -B, with the NVIDIA GLX vendor library
#            and with Mesa's), then runs test_window_gpu (the window on the
#            CUDA backend: "interop" must be "zero-copy" in the status JSON,
#            and host copy with one warning line when NBODY_TEST_REFUSE_INTEROP=1)
#            and test_window (CPU backend); all in window.txt.
#   tree     headless frames (zero-copy vs host copy; the galaxy scenes on
#            the tree), energy drift of a 1M Plummer sphere over one time
#            unit with the tree and with best, the benchmark's tree rows
#            and chart, screenshots of a 1M merger and of the tree's cells.
#   bench    the kernel ladder, best and fp64 at the target sizes, a shape
#            sweep of best, whole-frame timing (tables and JSON).
#   gallery  scripts/gallery.sh: every galaxy scene at three moments, the HUD
#            and the help overlay, and each scene's frame rate; one tar file.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
what=${1:-test}
exec > >(tee "$OUT/gpu-check-$what.log") 2>&1
stage() { echo; echo "=== $* ($(date +%T))"; }

stage build
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.sm,power.limit,temperature.gpu --format=csv
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNBODY_WERROR=ON >/dev/null && cmake --build build-gpu -j 16 2>&1 | grep -E "error|warning|Built target nbody$" || exit 1
nb=build-gpu/nbody

case $what in
test)
    stage test_gpu
    timeout 300 build-gpu/tests/test_gpu > "$OUT/test_gpu.txt" 2>&1
    echo "test_gpu: exit $?"
    grep -E "shapes|FAIL|refusal|passed|failed" "$OUT/test_gpu.txt" | grep -v " 0 failed" | tail -30
    stage ctest
    timeout 400 ctest --test-dir build-gpu --output-on-failure -j 8 -E '^test_gpu$' > "$OUT/ctest.txt" 2>&1
    grep -E "Test +#|tests passed|first pericenter|FAIL" "$OUT/ctest.txt"
    stage compute-sanitizer
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -n 1)
    for tool in memcheck ${SKIP_RACECHECK:+}${SKIP_RACECHECK:-racecheck}; do
        for t in test_gpu test_tree_gpu; do
            timeout 240 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/$t --quick \
                > /tmp/$tool-$t.txt 2>&1
            echo "$tool $t --quick: exit $?; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/$tool-$t.txt)"
            cat /tmp/$tool-$t.txt >> "$OUT/$tool.txt"
        done
    done
    timeout 120 "$cs" --tool memcheck --error-exitcode 9 $nb --headless --n 4096 --frames 5 2>&1 | tail -1
    echo "memcheck headless interop: exit ${PIPESTATUS[0]}"
    stage window: Xvfb from .devbundle-x, GLX, test_window on the CUDA backend
    # Everything of this stage also goes to $OUT/window.txt.
    window_stage() {
        if [ ! -x .devbundle-x/unpack.sh ]; then
            echo "window: SKIPPED: no .devbundle-x (scripts/make-window-bundle.sh, then carry it)"
            return
        fi
        .devbundle-x/unpack.sh || { echo "window: unpack.sh failed"; return; }
        # shellcheck disable=SC1091
        source .devbundle-x/env.sh
        echo "GLX vendor library: __GLX_VENDOR_LIBRARY_NAME=${__GLX_VENDOR_LIBRARY_NAME:-unset (glvnd asks the server: Mesa)}"
        ls /usr/local/nvidia/lib*/libGLX_nvidia.so.0 2>/dev/null; ldconfig -p | grep -E 'libGLX_nvidia|libnvidia-glcore' | head -3
        # A probe on a display of its own: does GLX come up, and on what?
        Xvfb :97 -screen 0 1280x800x24 -nolisten tcp $NBODY_XVFB_ARGS >/tmp/xvfb97.log 2>&1 &
        local xp=$! ok=0
        for _ in $(seq 50); do [ -e /tmp/.X11-unix/X97 ] && break; sleep 0.1; done
        if kill -0 $xp 2>/dev/null; then
            echo "Xvfb: started"
            for vendor in "${__GLX_VENDOR_LIBRARY_NAME:-}" mesa; do
                [ -n "$vendor" ] || continue
                echo "--- glxinfo -B with __GLX_VENDOR_LIBRARY_NAME=$vendor"
                DISPLAY=:97 __GLX_VENDOR_LIBRARY_NAME=$vendor timeout 30 glxinfo -B >/tmp/glxinfo.txt 2>&1
                local rc=$?
                grep -E "direct rendering|server glx vendor|OpenGL vendor|OpenGL renderer|core profile version|Error|error" /tmp/glxinfo.txt | head -8
                echo "GLX with vendor $vendor: $([ $rc -eq 0 ] && echo "came up" || echo "FAILED (glxinfo exit $rc)")"
            done
            kill $xp; wait $xp 2>/dev/null
        else
            echo "Xvfb: FAILED to start"; cat /tmp/xvfb97.log
        fi
        echo "--- test_window on the CUDA backend (vendor ${__GLX_VENDOR_LIBRARY_NAME:-default})"
        timeout 300 ctest --test-dir build-gpu --output-on-failure -R '^test_window_gpu$' >/tmp/window-ctest.txt 2>&1
        ok=$?
        grep -E "Xvfb on|interop|refused|png_check: FAIL|FAIL|test_window|Test +#|GLFW|cannot" /tmp/window-ctest.txt | head -30
        if [ $ok -ne 0 ] && [ -n "${__GLX_VENDOR_LIBRARY_NAME:-}" ]; then
            echo "--- again with __GLX_VENDOR_LIBRARY_NAME=mesa (GL on llvmpipe: zero-copy is expected to be refused)"
            __GLX_VENDOR_LIBRARY_NAME=mesa timeout 300 ctest --test-dir build-gpu --output-on-failure \
                -R '^test_window_gpu$' >/tmp/window-ctest-mesa.txt 2>&1
            grep -E "Xvfb on|interop|refused|FAIL|test_window|Test +#|GLFW|cannot" /tmp/window-ctest-mesa.txt | head -30
        fi
        echo "--- test_window on the CPU backend"
        timeout 120 ctest --test-dir build-gpu --output-on-failure -R '^test_window$' 2>&1 |
            grep -E "interop|FAIL|test_window|Test +#"
        if grep -qE "Not Run|Skipped" /tmp/window-ctest.txt; then
            echo "window summary: test_window_gpu SKIPPED (no Xvfb or no CUDA device?)"
        else
            echo "window summary: test_window_gpu $([ $ok -eq 0 ] && echo passed || echo FAILED)"
        fi
    }
    window_stage 2>&1 | tee "$OUT/window.txt"
    stage headless frame rates
    for n in 16384 131072; do
        $nb --headless --no-hud --n $n --frames 600 2>&1 | grep -E "frames of|interop"
    done
    $nb --headless --no-hud --n 16384 --frames 600 --host-copy 2>&1 | grep -E "frames of"
    ;;
bench)
    stage benchmark: the ladder
    timeout 240 $nb --benchmark --variant all --n 16384,262144 --json "$OUT/ladder.json" 2>/dev/null
    stage benchmark: best and fp64 at the target sizes
    timeout 200 $nb --benchmark --variant fast,best,fp64 --n 16384,65536,262144,1048576 \
        --json "$OUT/auto.json" 2>/dev/null
    stage benchmark: best shapes
    [ -n "${SKIP_SWEEP:-}" ] || timeout 120 $nb --benchmark --variant best --n 16384,262144 --p 128,256,384,512,640,768,1024 --q 1,2,4,8 \
        --json "$OUT/sweep.json" 2>/dev/null | sort -k5 -n -r | head -12
    stage benchmark: whole frames
    timeout 100 $nb --benchmark --variant best --n 16384,131072 --frame 2>/dev/null
    ;;
tree)
    # Issue 10's figures: whole frames of the galaxy scenes on the tree, the
    # energy drift of a 1M Plummer sphere over one time unit with the tree
    # and with best (same N, dt, softening), the benchmark's tree rows, and
    # screenshots: the merger at a million bodies, the tree's cells.
    stage headless frames: zero-copy vs host copy, all-pairs and tree
    for n in 16384 131072; do
        for copy in "" --host-copy; do
            echo "n $n ${copy:-zero-copy}: $($nb --headless --no-hud --n $n --frames 1200 $copy 2>&1 |
                grep -E "frames of")"
        done
    done
    for preset in antennae-like milky-way-andromeda; do
        echo "$preset (scene default on a GPU): $($nb --headless --no-hud --preset $preset --frames 300 \
            2>&1 | grep -E "frames of")"
    done
    stage energy drift over one time unit, 1M Plummer, dt 1/128, eps 0.05
    for v in tree best; do
        timeout 200 $nb --headless --no-hud --n 1048576 --variant $v --frames 128 --width 320 \
            --height 180 --status-json "$OUT/drift-$v.json" 2>&1 | grep -E "frames of"
        python3 -c "import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); \
print(sys.argv[2], 't', d['t'], 'dE/E0', d['dE_over_E0'], 'virial', d['virial_ratio'])" \
            "$OUT/drift-$v.json" $v
    done
    stage benchmark: best and tree at 1M, theta 0.5 0.6 0.7
    timeout 240 $nb --benchmark --variant best,tree --n 1048576 --theta 0.5,0.6,0.7 \
        --json "$OUT/tree-bench.json" --plot "$OUT/tree-bench.png" 2>/dev/null
    stage screenshots
    $nb --headless --preset antennae-like --frames 1200 --width 1280 --height 720 \
        --screenshot "$OUT/merger-1m.png" 2>&1 | grep -E "frames of|wrote"
    printf '0 W\n0 L\n0 L\n' > /tmp/overlay.txt
    $nb --headless --preset disk --frames 40 --width 1280 --height 720 --script /tmp/overlay.txt \
        --screenshot "$OUT/tree-cells.png" 2>&1 | grep -E "frames of|wrote"
    ;;
gallery)
    stage gallery
    rm -rf gallery && timeout 560 scripts/gallery.sh build-gpu gallery && tar cf "$OUT/gallery.tar" gallery
    ;;
esac
stage done
