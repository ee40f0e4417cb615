#!/usr/bin/env bash
# test_headless.sh - the headless front-end draws the bodies where they are,
# and says from its status JSON which path the positions took to GL.
#
#   test_headless.sh NBODY PNG_CHECK CUDA_AVAILABLE cpu|cuda YUV_CHECK
#
# cpu:  CPU backend through whatever EGL gives (Mesa llvmpipe on CI).
# cuda: CUDA backend on the GPU's EGL device; exits 77 without a GPU.
#
# The pictures are checked with the HUD off (--no-hud), so only bodies can
# light pixels:
#   - one body (N = 1): centre-of-mass zeroing puts it at the origin, and the
#     Plummer view looks at the origin, so every lit pixel must lie within
#     2 % of the image height of the image centre. The sprite itself is about
#     1 % of the height across (4 px at 360, 8 px at 720, measured), so a body
#     drawn anywhere else, or not at all, fails;
#   - a Plummer sphere and a shell of 4096 bodies: symmetric about the origin,
#     so the lit pixels' centroid must lie within 10 % of the height of the
#     centre (measured: 4 px of 360), and the lit fraction must be between
#     2 % and 50 % (measured: 13 % for the sphere) - a blank frame or one
#     washed out by a broken blend fails. The same sphere with bloom on is
#     brighter on average than without (png_check --brighter-than).
# A run with the HUD on must light at least 1 % of the image, which the one
# body alone (~0.005 %) cannot: the HUD draws. Two negative controls show the
# checks can fail: the one-body image with nothing counted as lit (threshold
# 255), and the HUD image against the one-body radius.
#
# The HUD's frame rate is measured from the first frames: a 2-frame run's
# status JSON must report "fps" above 0 (it used to stay 0 until half a
# second of frames had passed).
#
# CPU backend only: the tree's cells (W, --variant tree) are drawn: a
# 4096-body sphere with them lights at least 20 % of the image, without
# them at most 20 % (the two fall well to either side). And a 16384 x 16384 image,
# against the largest this GL takes (its limits, in the headless line):
# beyond it refused with one "nbody:" line naming the limit, a "hint:" line
# and exit 1; within it drawn (exit 0) or refused for GL's memory; never an
# abort.
#
# CPU backend only: the HUD never covers the scene. With the HUD on, the
# view is fitted (a lens) to the part of the window right of or below the
# HUD panel; png_check --hud-free finds the panel and measures the rest:
# one body (at the origin, the camera's target) lies within 30 px of the
# free area's centre (its sprite is 8 px across; the app rounds the panel's
# edges up to whole lines, up to ~13 px off png_check's centre), and in the
# Milky Way and Andromeda preset the light's centroid lies within 10 % of
# the height of it with nothing under the panel's edges (measured: 17 px at
# 1280x720; without the lens 174 px, Andromeda behind the panel); the same
# at 480x320, where the panel wraps and shrinks its font to fit.
#
# --profile's table adds up: its parts times the frames are the run's time.
# A recorded frame (the encoder replaced by tests/ffmpeg-capture.sh) is the
# screenshot in BT.709 YUV, on this backend's path to GL.
#
# CUDA backend only: with --sprites cuda, CUDA draws the sprites on the
# zero-copy path (the status JSON's "sprites" is "cuda"; "gl" on the host
# copy, with --sprites gl, after U, on the CPU backend, and with
# NBODY_TEST_REFUSE_SPRITES=1, which must also print exactly one line
# "nbody: warning: CUDA cannot draw the sprites (...)"), in headless EGL's
# context into an EGL image with no map ("sprites_via" "egl-image"; with
# NBODY_TEST_NO_EGL_IMAGE=1 "interop-map"), and its pictures are GL's: a
# 16,384-body sphere at 1280x720 (drawn both ways) and the two-galaxy preset
# in galaxy colours, paused before their first step (the same bodies in all
# runs), drawn with --sprites cuda and gl, must pass png_check --same-as
# (bounds there). --sprites auto (the default) prints its trial's verdict with
# --profile, and the last frame of a 400-frame run is drawn that way.
#
# The status JSON's "interop" field must be "host-copy" on the CPU backend;
# on CUDA "zero-copy" by default, "host-copy" with --host-copy, and
# "host-copy" with NBODY_TEST_REFUSE_INTEROP=1, which must also print exactly
# one line "nbody: warning: CUDA-GL interop refused (...)".
#
# --draw-max 1000 of a 4096-body sphere draws 1 body in 5, 820 of them (the
# status JSON's "drawn" and "draw_stride"), still a sphere about the centre
# (lit 0.5 % to 50 %, centroid within 10 % of the height); on CUDA by the
# zero-copy path and the host copy.
set -u
nbody=$1 png_check=$2 cuda_available=$3 backend=$4 yuv_check=$5
capture=$(cd "$(dirname "$0")" && pwd)/ffmpeg-capture.sh
if [ "$backend" = cuda ] && ! "$cuda_available" >/dev/null; then exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
failed() {
    echo "FAIL $*"
    fail=1
}

# field FILE NAME: the value of a string field in the last JSON line.
field() {
    tail -n 1 "$1" | sed -n "s/.*\"$2\": *\"\\([^\"]*\\)\".*/\\1/p"
}

# run NAME ARGS...: a headless run writing $tmp/NAME.png and NAME.json.
# Returns non-zero (and records a failure) when nbody fails.
run() {
    local name=$1
    shift
    "$nbody" --headless --backend "$backend" --screenshot "$tmp/$name.png" \
        --status-json "$tmp/$name.json" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    local rc=$?
    cat "$tmp/$name.out" "$tmp/$name.err"
    [ "$rc" -eq 0 ] || { failed "$name: exit $rc"; return 1; }
    return 0
}

# expect FIELD NAME VALUE: the status JSON of run NAME has FIELD = VALUE
# (interop: the path positions took; sprites: who drew the last frame's).
expect() {
    local got
    got=$(field "$tmp/$2.json" "$1")
    if [ "$got" = "$3" ]; then
        echo "ok   $2: $1 \"$got\""
    else
        failed "$2: $1 \"$got\", expected \"$3\""
    fi
}
expect_interop() { expect interop "$@"; }
expect_sprites() { expect sprites "$@"; }

# check NAME ARGS...: png_check on NAME.png with ARGS; must pass.
check() {
    local name=$1
    shift
    "$png_check" "$tmp/$name.png" "$@" || failed "$name: png_check $*"
}

# bodies PREFIX: the one-body, sphere, shell and HUD pictures.
bodies() {
    local p=$1
    shift
    if run "${p}one" --n 1 --frames 2 --no-hud --width 640 --height 360 "$@"; then
        # 2 % of 360 = 7.2 px; at least one pixel of 230400 lit.
        check "${p}one" --size 640x360 --min-lit 0.000004 --max-lit 0.001 --within 7.2
        if "$png_check" "$tmp/${p}one.png" --threshold 255 --within 7.2 >/dev/null 2>&1; then
            failed "${p}one: negative control: png_check passed an image with nothing lit"
        fi
    fi
    for ic in plummer shell; do
        if run "$p$ic" --ic "$ic" --n 4096 --frames 10 --no-hud --width 640 --height 360 "$@"; then
            check "$p$ic" --size 640x360 --min-lit 0.02 --max-lit 0.5 --centroid-within 36
        fi
    done
    # Bloom (B from the first frame) adds light to the same sphere: the mean
    # brightness rises by at least 0.4 of 255 (measured 0.87 on llvmpipe; 0
    # while the bright pass read a stale mipmap level of the float picture).
    printf '0 B\n' >"$tmp/bloom.txt"
    if run "${p}bloom" --n 4096 --frames 10 --no-hud --width 640 --height 360 \
        --script "$tmp/bloom.txt" "$@"; then
        check "${p}bloom" --size 640x360 --min-lit 0.02 --max-lit 0.5 --centroid-within 36 \
            --brighter-than "$tmp/${p}plummer.png" 0.4
    fi
    if run "${p}hud" --n 1 --frames 2 --width 640 --height 360 "$@"; then
        check "${p}hud" --size 640x360 --min-lit 0.01
        if "$png_check" "$tmp/${p}hud.png" --within 7.2 >/dev/null 2>&1; then
            failed "${p}hud: negative control: the HUD's pixels passed the one-body radius"
        fi
    fi
}

# number FILE NAME: the value of a numeric field in the last JSON line.
number() {
    tail -n 1 "$1" | sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p"
}

if [ "$backend" = cpu ]; then
    bodies ""
    for name in one plummer shell hud; do expect_interop "$name" host-copy; done
    for name in one plummer shell hud; do expect_sprites "$name" gl; done
    printf '0 W\n' >"$tmp/cells.txt"
    if run nocells --variant tree --n 4096 --frames 3 --no-hud --width 640 --height 360 &&
        run cells --variant tree --n 4096 --frames 3 --no-hud --width 640 --height 360 \
            --script "$tmp/cells.txt"; then
        check nocells --size 640x360 --max-lit 0.2
        check cells --size 640x360 --min-lit 0.2
    fi
    if run hudone --n 1 --frames 2; then
        check hudone --size 1280x720 --min-lit 0.00001 --hud-free 30 --within 30
    fi
    if run mwa --preset milky-way-andromeda --n 8192 --frames 2; then
        check mwa --size 1280x720 --hud-free 72
    fi
    if run mwa_small --preset milky-way-andromeda --n 8192 --frames 2 --width 480 --height 320; then
        check mwa_small --size 480x320 --hud-free 32
    fi
    # GL's own limit, as nbody reports it, decides what a 16384 x 16384
    # image must do: beyond it, a refusal naming it; within it, drawn, or
    # refused for GL's memory only.
    most=$("$nbody" --headless --backend cpu --n 16 --width 64 --height 64 --frames 1 2>&1 |
        sed -n 's/.*images up to \([0-9]*\)x.*/\1/p')
    "$nbody" --headless --backend cpu --width 16384 --height 16384 --frames 1 \
        >"$tmp/huge.out" 2>"$tmp/huge.err"
    rc=$?
    refused=false
    if [ $rc -eq 1 ] && grep -q '^nbody: ' "$tmp/huge.err" && grep -q '^hint: ' "$tmp/huge.err"; then
        refused=true
    fi
    if [ -z "$most" ]; then
        failed "no 'images up to' in the headless line"
    elif [ "$most" -lt 16384 ]; then
        if $refused && grep -q "larger than this GL's largest, ${most}x$most" "$tmp/huge.err"; then
            echo "ok   16384x16384 beyond this GL's ${most}: refused, exit 1"
        else
            failed "16384x16384 beyond this GL's $most: exit $rc, expected a refusal naming it"
            cat "$tmp/huge.err"
        fi
    elif [ $rc -eq 0 ] && grep -q '^nbody: headless on' "$tmp/huge.out"; then
        echo "ok   16384x16384 within this GL's $most: drawn"
    elif $refused && grep -q 'out of memory' "$tmp/huge.err"; then
        echo "ok   16384x16384 within this GL's $most: refused for memory: $(head -n 1 "$tmp/huge.err")"
    else
        failed "16384x16384 within this GL's $most: exit $rc, expected drawn or out of memory"
        cat "$tmp/huge.err"
    fi
else
    bodies "" --sprites cuda
    for name in one plummer shell hud; do expect_interop "$name" zero-copy; done
    for name in one plummer shell hud; do expect_sprites "$name" cuda; done
    bodies host_ --host-copy --sprites cuda
    for name in one plummer shell hud; do expect_interop "host_$name" host-copy; done
    for name in one plummer shell hud; do expect_sprites "host_$name" gl; done
    # CUDA's sprites against GL's, the same bodies (paused before the first
    # step). Bounds: GL adds each sprite into half floats, CUDA in float and
    # rounds once, so dense cores differ by a level or two after the tone
    # map; the mean over the picture stays a fraction of a level.
    printf '0 Space\n' >"$tmp/pause.txt"
    printf '0 Space\n0 C\n0 C\n' >"$tmp/galaxy.txt"
    for how in cuda gl; do
        flag=(--sprites "$how")
        run "sphere_$how" --n 16384 --frames 3 --no-hud --script "$tmp/pause.txt" "${flag[@]}"
        run "mwa_$how" --preset milky-way-andromeda --n 8192 --frames 3 --no-hud \
            --width 640 --height 360 --script "$tmp/galaxy.txt" "${flag[@]}"
        expect_sprites "sphere_$how" "$how"
        expect_sprites "mwa_$how" "$how"
    done
    expect sprites_via sphere_cuda egl-image
    expect sprites_via mwa_cuda egl-image
    expect sprites_via sphere_gl gl
    NBODY_TEST_NO_EGL_IMAGE=1 run sphere_map --n 16384 --frames 3 --no-hud \
        --script "$tmp/pause.txt" --sprites cuda && expect sprites_via sphere_map interop-map
    check sphere_cuda --size 1280x720 --min-lit 0.02 --same-as "$tmp/sphere_gl.png" 0.2 0.0001
    check sphere_map --size 1280x720 --min-lit 0.02 --same-as "$tmp/sphere_gl.png" 0.2 0.0001
    check mwa_cuda --size 640x360 --min-lit 0.005 --same-as "$tmp/mwa_gl.png" 0.2 0.0001
    if "$png_check" "$tmp/mwa_cuda.png" --same-as "$tmp/plummer.png" 0.2 0.0001 >/dev/null 2>&1; then
        failed "negative control: png_check --same-as passed two different scenes"
    fi
    printf '2 U\n' >"$tmp/u.txt" # cuda -> gl
    run u_key --n 4096 --frames 4 --no-hud --width 640 --height 360 --script "$tmp/u.txt" \
        --sprites cuda && expect_sprites u_key gl
    # auto: a trial of both ways, its verdict printed with --profile, and
    # the frames after it drawn that way.
    if run auto --n 16384 --frames 400 --no-hud --profile; then
        verdict=$(sed -n 's/^nbody: sprites: .*: \(CUDA\|GL\) draws them$/\1/p' "$tmp/auto.out" |
            tail -n 1 | tr 'A-Z' 'a-z')
        if [ -n "$verdict" ]; then
            echo "ok   auto: the trial chose $verdict"
            expect_sprites auto "$verdict"
        else
            failed "auto: no 'nbody: sprites: ... draws them' line from the trial"
        fi
    fi
    if NBODY_TEST_REFUSE_SPRITES=1 run no_sprites --n 4096 --frames 10 --no-hud --width 640 \
        --height 360 --sprites cuda; then
        check no_sprites --size 640x360 --min-lit 0.02 --max-lit 0.5 --centroid-within 36
        expect_interop no_sprites zero-copy
        expect_sprites no_sprites gl
        warnings=$(grep -c '^nbody: warning: CUDA cannot draw the sprites (' "$tmp/no_sprites.err")
        [ "$warnings" -eq 1 ] && echo "ok   no_sprites: one warning line" ||
            failed "no_sprites: $warnings lines 'nbody: warning: CUDA cannot draw the sprites" \
                "(...', expected 1"
    fi
    export NBODY_TEST_REFUSE_INTEROP=1
    if run refused --n 4096 --frames 10 --no-hud --width 640 --height 360; then
        check refused --size 640x360 --min-lit 0.02 --max-lit 0.5 --centroid-within 36
        expect_interop refused host-copy
        warnings=$(grep -c '^nbody: warning: CUDA-GL interop refused (' "$tmp/refused.err")
        [ "$warnings" -eq 1 ] && echo "ok   refused: one warning line" ||
            failed "refused: $warnings lines 'nbody: warning: CUDA-GL interop refused (...'," \
                "expected 1"
    fi
    unset NBODY_TEST_REFUSE_INTEROP
fi
# --draw-max: 1 body in 5 of 4096 drawn (820), as the status JSON says, a
# sphere about the centre like the whole (on CUDA by both paths to GL).
sample_runs=(sample)
[ "$backend" = cuda ] && sample_runs+=(sample_host)
for name in "${sample_runs[@]}"; do
    extra=()
    [ "$name" = sample_host ] && extra=(--host-copy)
    if run "$name" --n 4096 --draw-max 1000 --frames 3 --no-hud --width 640 --height 360 \
        "${extra[@]}"; then
        check "$name" --size 640x360 --min-lit 0.005 --max-lit 0.5 --centroid-within 36
        got="$(number "$tmp/$name.json" drawn) $(number "$tmp/$name.json" draw_stride)"
        [ "$got" = "820 5" ] && echo "ok   $name: drawn 820, stride 5" ||
            failed "$name: drawn and stride '$got', expected '820 5'"
    fi
done
fps=$(number "$tmp/one.json" fps)
if awk -v f="${fps:-0}" 'BEGIN { exit !(f > 0) }'; then
    echo "ok   one: fps $fps after 2 frames"
else
    failed "one: fps '${fps}' after 2 frames, expected above 0"
fi
# A video's frames on this backend's paths: the last frame handed to the
# encoder is the screenshot in BT.709 YUV (tests/ffmpeg-capture.sh keeps the
# frames; yuv_check compares). CUDA converts them where the zero-copy
# interop path is on (its start message says so), reading the picture in
# place or, with NBODY_TEST_VIDEO_COPY=1 as in the window, a copy; an odd
# size tests the cut to even sizes and the flip. GL converts and reads them
# back on the host copy, and on the CPU backend.
video() { # name, who converts (CUDA or GL), nbody's arguments
    local name=$1 by=$2 path=0
    shift 2
    if NBODY_FFMPEG="$capture" NBODY_CAPTURE="$tmp/video.yuv" "$nbody" --headless \
        --backend "$backend" --n 4096 --frames 12 --no-hud --record "$tmp/video.mp4" \
        --screenshot "$tmp/video.png" "$@" >"$tmp/video.out" 2>&1 &&
        "$yuv_check" "$tmp/video.png" "$tmp/video.yuv"; then
        grep -q "^nbody: recording .*(converted by CUDA)" "$tmp/video.out" || path=1
        if [ "$path" = "$([ "$by" = CUDA ] && echo 0 || echo 1)" ]; then
            echo "ok   $name: the recorded frame is the picture, converted by $by"
            return
        fi
    fi
    failed "$name: the recorded frame is not the picture, or not converted by $by"
    cat "$tmp/video.out"
}
if [ "$backend" = cuda ]; then
    video "video" CUDA --width 641 --height 361
    NBODY_TEST_VIDEO_COPY=1 video "video, copied first" CUDA --width 640 --height 360
    video "video, --host-copy" GL --width 640 --height 360 --host-copy
else
    video "video" GL --width 641 --height 361
fi

# --profile: the parts of the frame account for the whole timed run. The
# sum of the parts' ms per frame times the frames must match the run's own
# "in S s" within 3 % + 2 ms (the clock is read at a few more points than
# the parts cover: the rate line's own start and end), and the GL timer line
# must report at least one frame timed.
if run profile --n 256 --frames 40 --no-hud --width 320 --height 180 --profile; then
    out="$tmp/profile.out"
    seconds=$(sed -n 's/^nbody: [0-9]* frames of .*; timed: the last \([0-9]*\) .* in \([0-9.]*\) s:.*/\1 \2/p' "$out")
    total=$(sed -n 's/^  total *\([0-9.]*\) ms$/\1/p' "$out")
    parts=$(awk '/^  (input|step|diagnostics|upload|draw|hud|rest|loop) / { s += $(NF - 3) }
                 END { print s }' "$out")
    if [ -n "$seconds" ] && [ -n "$total" ] &&
        awk -v fs="$seconds" -v t="$total" -v p="$parts" 'BEGIN {
            split(fs, a, " "); want = a[2] * 1e3; got = t * a[1];
            exit !(got > want - 0.03 * want - 2 && got < want + 0.03 * want + 2 &&
                   p > t - 0.01 * t - 0.01 && p < t + 0.01 * t + 0.01) }' &&
        grep -q "^  GL's drawing [0-9.]* ms (timer queries, [1-9][0-9]* frames, on " "$out"; then
        echo "ok   profile: $total ms/frame over '$seconds' (frames, s)"
    else
        failed "profile: parts '$parts', total '$total' ms/frame, run '$seconds' (frames, s)"
        cat "$out"
    fi
fi
echo "test_headless ($backend): $([ $fail -eq 0 ] && echo passed || echo FAILED)"
exit $fail
