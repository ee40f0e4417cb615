#!/usr/bin/env bash
# test_record.sh - videos and PNG sequences: --record, --record-size,
# --record-hud, --frames-dir, --encode, key M in the window, and ffmpeg
# missing or failing (NBODY_FFMPEG).
#
#   test_record.sh NBODY PNG_CHECK YUV_CHECK
#
# CPU backend, 256 bodies, 30 frames of 640x360. The PNG checks need no
# ffmpeg; the video checks read the files back with ffprobe and are skipped
# (the test exits 77 once the rest has passed) where ffprobe is absent. The
# window part runs on an Xvfb of its own, and is skipped without Xvfb.
#
# PNGs are compared with cmp: --screenshot and --frames-dir both go through
# io_write_png, which encodes equal pixels into equal bytes.
#
# What a video's encoder is handed (no ffmpeg needed): tests/ffmpeg-capture.sh
# keeps the raw frames, and yuv_check compares the last one with a
# screenshot of the same picture converted by the BT.709 limited-range
# formula (it fails on swapped U and V, an unflipped picture, BT.601 or full
# range); the arguments ask for yuv420p and the BT.709 tags. An encoder that
# stops reading after a few frames ends the recording with one line naming
# what happened, exit 1 and no file, through the writer thread.
#
# Containers: each extension gives the format and codec ffprobe reports
# (.mp4, .mov, .mkv in any case, .avi, .gif); no extension or another one is
# refused with exit 2. Streams: --record - piped into ffprobe carries the
# video alone, and a FIFO named .mkv stays a FIFO and carries Matroska.
# A recording that cannot start (ffmpeg missing) ends the run at its first
# frame, exit 1. Failures name their cause with ffmpeg's own words and its hint: stdout on
# /dev/full, a tmpfs filled to leave 0 to 48 KiB (as root: a whole video or
# one line naming the full disk, never a truncated video reported written),
# and M in a read-only folder.
set -u
nbody=$1 png_check=$2 yuv_check=$3
capture=$(cd "$(dirname "$0")" && pwd)/ffmpeg-capture.sh
tmp=$(mktemp -d)
# shellcheck source-path=SCRIPTDIR source=../scripts/xvfb.sh
source "$(dirname "$0")/../scripts/xvfb.sh"
cleanup() {
    xvfb_stop
    rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1

fail=0
failed() {
    echo "FAIL $*"
    fail=1
}
ok() { echo "ok   $*"; }
args=(--headless --backend cpu --n 256 --frames 30 --width 640 --height 360)
short=(--headless --backend cpu --n 256 --frames 8 --width 640 --height 360) # no frames counted
run() { # run NAME [ENV=VALUE...] -- ARGS...: nbody with its output in NAME.out/.err; sets rc
    local name=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do
        envs+=("$1")
        shift
    done
    shift
    env "${envs[@]}" "$nbody" "$@" >"$name.out" 2>"$name.err"
    rc=$?
    cat "$name.out" "$name.err"
}
same() { # same NAME A.png B.png
    cmp -s "$2" "$3" && ok "$1: $2 = $3" || failed "$1: $2 and $3 differ"
}
differ() { # differ NAME A.png B.png: both there, and not the same
    if [ ! -f "$2" ] || [ ! -f "$3" ]; then
        failed "$1: $2 or $3 is missing"
    elif cmp -s "$2" "$3"; then
        failed "$1: $2 and $3 are the same"
    else
        ok "$1: $2 != $3"
    fi
}

# --- PNG sequences (no ffmpeg) ---------------------------------------------------

run frames -- "${args[@]}" --no-hud --frames-dir fr --screenshot shot.png
[ "$rc" -eq 0 ] || failed "frames: exit $rc"
count=$(find fr -name 'frame-*.png' | wc -l)
[ "$count" -eq 30 ] && ok "frames: 30 PNGs" || failed "frames: $count PNGs, expected 30"
[ -f fr/frame-000000.png ] && [ -f fr/frame-000029.png ] || failed "frames: not numbered 0-29"
"$png_check" fr/frame-000029.png --size 640x360 || failed "frames: png_check"
# The recorded frame is exactly the picture drawn: the last one is the screenshot.
same frames fr/frame-000029.png shot.png

# The HUD (on by default) stays out of the video unless --record-hud.
run nohud -- "${short[@]}" --frames-dir h0 --screenshot h0.png
[ "$rc" -eq 0 ] || failed "nohud: exit $rc"
differ nohud h0/frame-000007.png h0.png
run hud -- "${short[@]}" --record-hud --frames-dir h1 --screenshot h1.png
[ "$rc" -eq 0 ] || failed "hud: exit $rc"
same hud h1/frame-000007.png h1.png

# --record-size: drawn offscreen at its own size, an odd one rounded down to even.
run size -- "${short[@]}" --record-size 321x241 --frames-dir rs
[ "$rc" -eq 0 ] || failed "size: exit $rc"
"$png_check" rs/frame-000007.png --size 320x240 || failed "size: png_check --size 320x240"

run again -- "${args[@]}" --frames-dir fr
[ "$rc" -eq 2 ] && ok "again: a folder holding frames refused" || failed "again: exit $rc, not 2"

# --- what the encoder is handed (no ffmpeg) -------------------------------------------
# yuv NAME ARGS...: a recording into the capture, the screenshot of its last frame
yuv() { # yuv NAME [ENV=VALUE...] ARGS...
    local name=$1 envs=()
    shift
    while [[ "${1:-}" == *=* ]]; do
        envs+=("$1")
        shift
    done
    run "$name" "${envs[@]}" NBODY_FFMPEG="$capture" NBODY_CAPTURE="$PWD/$name.yuv" -- "$@" \
        --record "$name.mp4" --screenshot "$name.png"
    [ "$rc" -eq 0 ] || failed "$name: exit $rc"
    "$yuv_check" "$name.png" "$name.yuv" && ok "$name: the frame is the picture in BT.709 YUV" ||
        failed "$name: yuv_check"
}
yuv yuv "${short[@]}" --no-hud
grep -qx yuv420p yuv.yuv.args && grep -qx bt709 yuv.yuv.args && grep -qx tv yuv.yuv.args &&
    ok "yuv: the encoder is told yuv420p, BT.709, limited range" ||
    failed "yuv: the encoder's arguments lack yuv420p, bt709 or tv: $(tr '\n' ' ' <yuv.yuv.args)"
yuv yuv_odd "${short[@]}" --no-hud --width 321 --height 181 # cut to 320x180
yuv yuv_hud "${short[@]}" --record-hud                     # the window's own picture, HUD in it
printf '#!/bin/sh\nhead -c 600000 >/dev/null\nexit 1\n' >dies.sh # 2 frames of 640x360 and a bit
chmod +x dies.sh
run dies NBODY_FFMPEG="$PWD/dies.sh" -- "${args[@]}" --record dies.mp4
lines=$(grep -c '^nbody: cannot record dies.mp4: .* stopped reading (Broken pipe), then exited with status 1 after [0-9]* frames' dies.err)
[ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && [ ! -e dies.mp4 ] &&
    ok "dies: one line, exit 1, no file" || failed "dies: exit $rc, $lines message lines"

# --- the command line ---------------------------------------------------------------
refused() { # refused NAME ARGS...: exit 2, nothing written
    local name=$1
    shift
    run "$name" -- "$@"
    [ "$rc" -eq 2 ] && grep -q '^hint: ' "$name.err" && ok "$name: refused with a hint" ||
        failed "$name: exit $rc, expected 2 with a hint"
}
refused both "${args[@]}" --record both.mp4 --frames-dir both
refused encode_alone --encode fr
refused tiny "${args[@]}" --record tiny.mp4 --record-size 15x15
refused not_size "${args[@]}" --record x.mp4 --record-size 640-360
refused bad_fps "${args[@]}" --record x.mp4 --record-fps 0
[ ! -e both ] && [ ! -e both.mp4 ] && [ ! -e tiny.mp4 ] && [ ! -e x.mp4 ] ||
    failed "refused command lines left files"

# --- videos (ffprobe reads them back) ----------------------------------------------
if ! command -v ffprobe >/dev/null || ! command -v ffmpeg >/dev/null; then
    echo "ffmpeg/ffprobe not installed: the video checks are skipped"
    [ $fail -eq 0 ] && exit 77
    exit 1
fi
probe() { # probe FILE: frames,width,height,pix_fmt,codec
    ffprobe -v error -count_frames -select_streams v:0 \
        -show_entries stream=nb_read_frames,width,height,pix_fmt,codec_name -of csv=p=0 "$1" |
        awk -F, '{print $5 "," $2 "," $3 "," $4 "," $1}'
}
expect_video() { # expect_video NAME FILE FRAMES,W,H
    local got
    got=$(probe "$2")
    [ "$got" = "$3,yuv420p,h264" ] && ok "$1: $2 is $got" ||
        failed "$1: $2 is '$got', expected '$3,yuv420p,h264'"
}
no_leftovers() { # no_leftovers NAME: no temporary file of a recording left
    local left
    left=$(find . -maxdepth 1 -name '*.tmp-*')
    [ -z "$left" ] && ok "$1: no temporary files" || failed "$1: left $left"
}

run record -- "${args[@]}" --record a.mp4
[ "$rc" -eq 0 ] || failed "record: exit $rc"
expect_video record a.mp4 30,640,360
grep -q 'frames/s' record.out && ok "record: frames/s printed" || failed "record: no frames/s"
run record_size -- "${args[@]}" --record b.mp4 --record-size 320x240 --record-fps 24
expect_video record_size b.mp4 30,320,240
run record_odd -- "${short[@]}" --width 641 --height 361 --record c.mp4
expect_video record_odd c.mp4 8,640,360
no_leftovers record

# A missing encoder gets the install hint; one that runs and fails, the hint
# that its own words say why.
for bad in /nonexistent:'apt-get install ffmpeg' /bin/false:"ffmpeg's own words"; do
    hint=${bad#*:} bad=${bad%%:*}
    run broken NBODY_FFMPEG=$bad -- "${short[@]}" --record broken.mp4
    lines=$(grep -c '^nbody: cannot record broken.mp4: ' broken.err)
    [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q "^hint: .*$hint" broken.err &&
        ok "NBODY_FFMPEG=$bad: one line, the hint '$hint', exit 1" ||
        failed "NBODY_FFMPEG=$bad: exit $rc, $lines message lines, or no hint '$hint'"
    [ ! -e broken.mp4 ] || failed "NBODY_FFMPEG=$bad: broken.mp4 written"
    no_leftovers "NBODY_FFMPEG=$bad"
done
# A recording that cannot start ends the run there: of 400 frames asked,
# the first is drawn and nothing steps.
run unstarted NBODY_FFMPEG=/nonexistent -- "${short[@]}" --frames 400 --record late.mp4 \
    --status-json unstarted.json
[ "$rc" -eq 1 ] && [ "$(grep -c '^nbody: cannot record late.mp4: ' unstarted.err)" -eq 1 ] &&
    grep -q '"frame": 1, ' unstarted.json && grep -q '"steps": 0, ' unstarted.json &&
    ok "a recording that cannot start ends the run at once, exit 1" ||
    failed "a recording that cannot start: exit $rc, $(grep -o '"frame": [0-9]*' unstarted.json)"

# --- the container the extension names ------------------------------------------------
# ffprobe's format (and, for the two ISO formats it names alike, the brand)
# and codec; the frame count says the whole video is there.
container() { # container FILE: format,brand,codec,frames
    local f b c
    f=$(ffprobe -v error -show_entries format=format_name -of default=nw=1:nk=1 "$1")
    b=$(ffprobe -v error -show_entries format_tags=major_brand -of default=nw=1:nk=1 "$1")
    c=$(ffprobe -v error -count_frames -select_streams v:0 \
        -show_entries stream=codec_name,nb_read_frames -of csv=p=0 "$1")
    echo "$f,${b// /},$c"
}
for want in mp4:mov,mp4,m4a,3gp,3g2,mj2,isom,h264,8 mov:mov,mp4,m4a,3gp,3g2,mj2,qt,h264,8 \
    mkv:matroska,webm,,h264,8 MKV:matroska,webm,,h264,8 avi:avi,,mpeg4,8 gif:gif,,gif,8; do
    ext=${want%%:*} want=${want#*:}
    run "ext_$ext" -- "${short[@]}" --record "v.$ext"
    got=$(container "v.$ext")
    [ "$rc" -eq 0 ] && [ "$got" = "$want" ] && ok "--record v.$ext: $got" ||
        failed "--record v.$ext: exit $rc, '$got', expected '$want'"
done
no_leftovers extensions
for name in v v.webm v.mp4.part; do # no extension, or one nbody does not write: refused
    run "refused_ext" -- "${short[@]}" --record "$name"
    [ "$rc" -eq 2 ] && grep -q '^hint: end the name in .mp4, .mov, .mkv, .avi or .gif' refused_ext.err &&
        [ ! -e "$name" ] && ok "--record $name: refused (exit 2), the extensions listed" ||
        failed "--record $name: exit $rc, expected 2 with the list and no file"
done

# --- streams: stdout and a FIFO, written in place ------------------------------------
# --record -: the pipe carries the video alone (a fragmented MP4), nbody's
# own lines go to stderr.
probe_stream() { # probe_stream FILE: codec frames format
    ffprobe -v error -count_frames -of default=nw=1:nk=1 \
        -show_entries format=format_name:stream=codec_name,nb_read_frames "$1" 2>&1 | tr '\n' ' '
}
"$nbody" "${short[@]}" --record - 2>stdout.err | probe_stream - >stdout.probe
got=$(cat stdout.probe)
[ "$got" = "h264 8 mov,mp4,m4a,3gp,3g2,mj2 " ] && grep -q '^nbody: wrote' stdout.err &&
    ok "--record - | ffprobe -: $got" || failed "--record - | ffprobe: '$got'; $(cat stdout.err)"
# A FIFO keeps being a FIFO; its reader gets the container its name says.
mkfifo v.fifo.mkv
timeout 60 bash -c "$(declare -f probe_stream); probe_stream v.fifo.mkv" >fifo.probe & # no hang
probe_pid=$!
run fifo -- "${short[@]}" --record v.fifo.mkv
wait "$probe_pid"
got=$(cat fifo.probe)
[ "$rc" -eq 0 ] && [ -p v.fifo.mkv ] && [ "$got" = "h264 8 matroska,webm " ] &&
    ok "--record FIFO.mkv: still a FIFO, its reader got $got" ||
    failed "--record FIFO.mkv: exit $rc, FIFO $([ -p v.fifo.mkv ] && echo kept || echo replaced), '$got'"
rm -f v.fifo.mkv

# --- a full disk: the disk is named, not ffmpeg ------------------------------------------
# Root can mount a tmpfs of its own (full, or read-only) in a private mount
# namespace; elsewhere those cases are skipped or use chmod.
can_mount=0
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
    unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs '$PWD'" 2>/dev/null; then
    can_mount=1
fi
# full_says NAME: exit 1, one line naming the full disk with ffmpeg's own
# words, the disk's hint, and no video.
full_says() {
    local lines
    lines=$(grep -c '^nbody: cannot record .*: No space left on device: .* (it said: .*No space left on device)$' "$1.err")
    [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -q '^hint: free some space on that disk' "$1.err"
}
# stdout on a full device (/dev/full: every write fails with ENOSPC).
"$nbody" "${short[@]}" --record - >/dev/full 2>devfull.err
rc=$?
cat devfull.err
full_says devfull && ok "--record - >/dev/full: exit 1, the disk named, ffmpeg quoted" ||
    failed "--record - >/dev/full: exit $rc or not one line naming the full disk"
# A small tmpfs (root, in a mount namespace of its own) filled to leave
# 0 to 48 KiB: the 30-frame video needs about 30 KiB, so some fit and some
# do not, one of them only just. Each run either writes a whole video (ffprobe counts 30 frames)
# or fails as above with no file; never a truncated video reported as
# written (ffmpeg 5.1 exits 0 when only its trailer could not be written).
if [ "$can_mount" -eq 1 ]; then
    mkdir full
    for free in 0 16 28 48; do
        unshare -m sh -c 'free=$1; shift; mount -t tmpfs -o size=128k tmpfs full && cd full &&
            dd if=/dev/zero of=fill bs=1024 count=$((128 - free)) 2>/dev/null; "$@"; rc=$?
            got=$(ffprobe -v error -count_frames -select_streams v:0 -of csv=p=0 \
                -show_entries stream=nb_read_frames v.mp4 2>/dev/null)
            echo "$rc ${got:-none} $(ls -A | grep -vx fill | tr "\n" " ")" >../full.result' \
            sh "$free" "$nbody" --headless --backend cpu --n 256 --frames 30 --width 320 \
            --height 180 --record v.mp4 >full.out 2>full.err
        read -r rc got left <full.result
        cat full.err
        if [ "$rc" -eq 0 ] && [ "$got" = 30 ] && [ "$left" = v.mp4 ]; then
            ok "full disk, $free KiB free: a whole video"
        elif full_says full && [ "$got" = none ] && [ -z "$left" ]; then
            ok "full disk, $free KiB free: refused, the disk named, nothing left"
            full_failed=1
        else
            failed "full disk, $free KiB free: exit $rc, video '$got', left '$left'"
        fi
    done
    [ "${full_failed:-0}" -eq 1 ] || failed "full disk: no case ran out of space"
else
    echo "skip full disk (file): a tmpfs needs root and unshare -m"
fi


# Ctrl-C at a terminal signals the whole foreground process group. nbody
# finishes the frame and the video and exits 130; ffmpeg runs in a group of
# its own, so it is not killed half-way (it would leave no video to rename).
setsid "$nbody" --headless --backend cpu --n 256 --frames 100000000 --width 320 --height 180 \
    --record sigint.mp4 >sigint.out 2>sigint.err &
pid=$!
for _ in $(seq 300); do
    [ "$(find . -maxdepth 1 -name 'sigint.mp4.tmp-*' -size +1k | head -n 1)" ] && break
    sleep 0.1
done
kill -INT -- "-$pid" 2>/dev/null
wait "$pid"
rc=$?
cat sigint.out sigint.err
got=$(probe sigint.mp4)
if [ "$rc" -eq 130 ] && [[ "$got" =~ ^[1-9][0-9]*,320,180,yuv420p,h264$ ]]; then
    ok "sigint: exit 130 and a whole video ($got)"
else
    failed "sigint: exit $rc, sigint.mp4 is '$got'"
fi
no_leftovers sigint
run encode -- --encode fr --record enc.mp4
[ "$rc" -eq 0 ] || failed "encode: exit $rc"
expect_video encode enc.mp4 30,640,360
# Both ways to a video are tagged as what they hold: BT.709, limited range.
for v in a.mp4 enc.mp4; do
    tags=$(ffprobe -v error -select_streams v:0 -of csv=p=0 \
        -show_entries stream=color_range,color_space,color_transfer,color_primaries "$v")
    [ "$tags" = "tv,bt709,bt709,bt709" ] && ok "tags: $v is $tags" ||
        failed "tags: $v is '$tags', expected 'tv,bt709,bt709,bt709'"
done

# --- the window: M starts and stops a recording -------------------------------------
if ! command -v Xvfb >/dev/null; then
    echo "Xvfb is not installed: the window check is skipped"
else
    if ! xvfb_start "$tmp"; then
        failed "Xvfb did not start"
    else
        mkdir win && cd win || exit 1
        printf '5 M\n25 M\n' >keys.txt
        run window DISPLAY="$DISPLAY" -- --backend cpu --n 256 --frames 30 \
            --width 640 --height 360 --script keys.txt
        [ "$rc" -eq 0 ] || failed "window: exit $rc"
        videos=(nbody-*.mp4)
        if [ ${#videos[@]} -eq 1 ] && [ -f "${videos[0]}" ]; then
            expect_video window "${videos[0]}" 20,640,360
            grep -q "recording 640x360 at 30 frames/s to $PWD/${videos[0]}" window.out &&
                ok "window: the absolute path shown" || failed "window: no absolute path shown"
        else
            failed "window: ${#videos[@]} nbody-*.mp4 files: ${videos[*]}"
        fi
        no_leftovers window
        # M with a failing encoder: the window runs on and says why; no file.
        rm -f nbody-*.mp4
        run window_broken NBODY_FFMPEG=/bin/false DISPLAY="$DISPLAY" -- \
            --backend cpu --n 256 --frames 30 --width 640 --height 360 --script keys.txt
        [ "$rc" -eq 0 ] && grep -q "^nbody: recording stopped: cannot record $PWD/nbody-" \
            window_broken.out && ok "window_broken: runs on, says why" ||
            failed "window_broken: exit $rc or no message"
        left=$(find . -name 'nbody-*')
        [ -z "$left" ] && ok "window_broken: no file" || failed "window_broken: left $left"
        # M in a folder nbody may not write (a read-only tmpfs as root, else
        # chmod): the folder is named as the cause, not ffmpeg.
        mkdir ro
        if [ "$can_mount" -eq 1 ]; then
            in_ro() { unshare -m sh -c 'mount -t tmpfs -o ro tmpfs ro && cd ro && "$@"' sh "$@"; }
        else
            chmod a-w ro
            in_ro() { (cd ro && "$@"); }
        fi
        in_ro env DISPLAY="$DISPLAY" "$nbody" --backend cpu --n 256 --frames 30 \
            --width 640 --height 360 --script "$PWD/keys.txt" >ro.out 2>ro.err
        rc=$?
        cat ro.out ro.err
        grep -Eq '^nbody: recording stopped: cannot record .*/nbody-[-0-9]*\.mp4: (Read-only file system|Permission denied)$' ro.out &&
            grep -q '^hint: write to a folder you may write to' ro.out && [ "$rc" -eq 0 ] &&
            ok "read-only folder: M says the folder, exit 0" ||
            failed "read-only folder: exit $rc, or not the folder named with its hint"
        chmod u+w ro
        # The window's own framebuffer as the video's picture (HUD off: not offscreen).
        yuv yuv_window DISPLAY="$DISPLAY" --backend cpu --n 256 --frames 8 \
            --width 640 --height 360 --no-hud
        cd ..
    fi
fi
echo "test_record: $([ $fail -eq 0 ] && echo passed || echo FAILED)"
exit $fail
