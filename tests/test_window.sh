#!/usr/bin/env bash
# test_window.sh - the windowed front-end (GLFW, GLX) on an X server of its
# own (Xvfb): keys through the same dispatch as the keyboard, the bodies drawn
# where they are, and the interop path from the status JSON.
#
#   test_window.sh NBODY PNG_CHECK [cpu|cuda [CUDA_AVAILABLE]]
#
# cpu (default): on CI, Xvfb's GLX is Mesa (llvmpipe); positions go through
#   the host ("interop": "host-copy").
# cuda: the CUDA backend in the window: "interop" must be "zero-copy", and
#   with NBODY_TEST_REFUSE_INTEROP=1 "host-copy" with exactly one line
#   "nbody: warning: CUDA-GL interop refused (...)". Exits 77 without a GPU.
#
# Xvfb is taken from PATH and started with -displayfd (it picks a free
# display); NBODY_XVFB_ARGS adds arguments (the GPU machine's carried Xvfb
# needs -xkbdir, see scripts/make-window-bundle.sh). Where there is no Xvfb
# the test is skipped, except on CI (CI=true), where it must run.
#
# Checks (the reasons for the numbers are in tests/test_headless.sh, which
# makes the same pictures headless):
#   - 60 frames with scripted keys (help on and off, a colour change, a
#     pause and a single step): the status JSON says frame 60 and 51 steps;
#   - one body, HUD off: every lit pixel within 2 % of the height of the
#     centre; a Plummer sphere of 4096, HUD off: lit fraction 2-50 %, lit
#     centroid within 10 % of the height of the centre;
#   - one body, HUD on: at least 1 % lit (the HUD draws);
#   - F11 from --script goes fullscreen on the 1280x800 screen and F11 again
#     brings back the 640x360 window (the status JSON's "fullscreen" and
#     "window" every frame, the last frame's picture 640x360); --fullscreen
#     starts fullscreen and F11 leaves it for the --width x --height window.
set -u
nbody=$1 png_check=$2 backend=${3:-cpu} cuda_available=${4:-}
if [ "$backend" = cuda ] && ! "$cuda_available" >/dev/null; then exit 77; fi
if ! command -v Xvfb >/dev/null; then
    echo "Xvfb is not installed (apt-get install xvfb)"
    [ "${CI:-}" = true ] && exit 1 # on CI the window test must run, not skip
    exit 77
fi
# shellcheck source-path=SCRIPTDIR source=../scripts/xvfb.sh
source "$(dirname "$0")/../scripts/xvfb.sh"
tmp=$(mktemp -d)
cleanup() {
    xvfb_stop
    rm -rf "$tmp"
}
trap cleanup EXIT

xvfb_start "$tmp" || { echo "FAIL: Xvfb did not start"; exit 1; }
echo "Xvfb on $DISPLAY"

fail=0
failed() {
    echo "FAIL $*"
    fail=1
}
field() { # field FILE NAME: a string field of the last JSON line
    tail -n 1 "$1" | sed -n "s/.*\"$2\": *\"\\([^\"]*\\)\".*/\\1/p"
}
run() { # run NAME ARGS...: a window run writing $tmp/NAME.png and NAME.json
    local name=$1
    shift
    "$nbody" --backend "$backend" --screenshot "$tmp/$name.png" --status-json "$tmp/$name.json" \
        "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    local rc=$?
    cat "$tmp/$name.out" "$tmp/$name.err"
    [ "$rc" -eq 0 ] || { failed "$name: nbody exited $rc"; return 1; }
    return 0
}
check() { # check NAME ARGS...: png_check on NAME.png must pass
    local name=$1
    shift
    "$png_check" "$tmp/$name.png" "$@" || failed "$name: png_check $*"
}
expect_interop() { # expect_interop NAME PATH
    local got
    got=$(field "$tmp/$1.json" interop)
    [ "$got" = "$2" ] && echo "ok   $1: interop \"$got\"" ||
        failed "$1: interop \"$got\", expected \"$2\""
}
expected_path=host-copy
[ "$backend" = cuda ] && expected_path=zero-copy

printf '10 H\n25 H\n30 C\n40 Space\n45 .\n50 Space\n' >"$tmp/keys.txt"
if run keys --n 2048 --frames 60 --width 800 --height 500 --script "$tmp/keys.txt" \
    --status-every 10; then
    grep -q '"frame": 60' "$tmp/keys.json" || failed "keys: no status line for frame 60"
    tail -n 1 "$tmp/keys.json" | grep -q '"steps": 51,' ||
        failed "keys: 60 frames, 10 of them paused, one single step: 51 steps expected"
    check keys --size 800x500 --min-lit 0.002
    expect_interop keys "$expected_path"
fi
if run one --n 1 --frames 5 --no-hud --width 640 --height 360; then
    check one --size 640x360 --min-lit 0.000004 --max-lit 0.001 --within 7.2
    expect_interop one "$expected_path"
fi
if run plummer --n 4096 --frames 10 --no-hud --width 640 --height 360; then
    check plummer --size 640x360 --min-lit 0.02 --max-lit 0.5 --centroid-within 36
fi
if run hud --n 1 --frames 5 --width 640 --height 360; then
    check hud --size 640x360 --min-lit 0.01
fi
screen() { # screen NAME: "fullscreen, width, height" of each status line
    sed -n 's/.*"fullscreen": \([a-z]*\), "window": \[\([0-9]*\), \([0-9]*\)\].*/\1 \2x\3/p' \
        "$tmp/$1.json"
}
printf '3 F11\n6 F11\n' >"$tmp/f11.txt"
if run f11 --n 256 --frames 9 --width 640 --height 360 --script "$tmp/f11.txt" \
    --status-every 1; then
    screen f11 | grep -qx 'true 1280x800' || failed "f11: never fullscreen at 1280x800: $(screen f11 | tr '\n' ' ')"
    [ "$(screen f11 | tail -n 1)" = 'false 640x360' ] ||
        failed "f11: the window is $(screen f11 | tail -n 1) after F11 twice, expected false 640x360"
    check f11 --size 640x360
fi
printf '3 F11\n' >"$tmp/start.txt"
if run start --fullscreen --n 256 --frames 6 --width 640 --height 360 --script "$tmp/start.txt" \
    --status-every 1; then
    [ "$(screen start | sed -n 2p)" = 'true 1280x800' ] ||
        failed "start: --fullscreen gives $(screen start | sed -n 2p), expected true 1280x800"
    [ "$(screen start | tail -n 1)" = 'false 640x360' ] ||
        failed "start: after F11 $(screen start | tail -n 1), expected false 640x360"
fi
if [ "$backend" = cuda ]; then
    if NBODY_TEST_REFUSE_INTEROP=1 run refused --n 4096 --frames 10 --no-hud --width 640 \
        --height 360; then
        check refused --size 640x360 --min-lit 0.02 --max-lit 0.5 --centroid-within 36
        expect_interop refused host-copy
        warnings=$(grep -c '^nbody: warning: CUDA-GL interop refused (' "$tmp/refused.err")
        [ "$warnings" -eq 1 ] && echo "ok   refused: one warning line" ||
            failed "refused: $warnings lines 'nbody: warning: CUDA-GL interop refused (...'," \
                "expected 1"
    fi
fi
echo "test_window ($backend): $([ $fail -eq 0 ] && echo passed || echo FAILED)"
exit $fail
