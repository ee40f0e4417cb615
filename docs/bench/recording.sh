#!/usr/bin/env bash
# recording.sh - docs/PERFORMANCE.md, "Recording": frames/s of headless
# runs with and without --record, the encoder replaced by one that discards
# the frames (scripts/ffmpeg-discard.sh), so the figures are the frame
# loop's own. --profile adds the recording's trial of the wait for GL;
# the long runs spread that trial over 6000 frames.
#
#   docs/bench/recording.sh BUILD_DIR > recording.log
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "$0")/common.sh"
export NBODY_FFMPEG=$repo/scripts/ffmpeg-discard.sh
video=$(mktemp -d)/r.mp4
trap 'rm -rf "$(dirname "$video")"' EXIT
rec() { frames "$1" "${@:2}" --profile --record "$video"; }
k16=(--headless --n 16384)
for r in 1 2 3; do
    stage "16K, round $r"
    frames "plain" "$nb" "${k16[@]}" --no-hud --frames 1500
    rec "record" "$nb" "${k16[@]}" --no-hud --frames 1500
done
for r in 1 2; do
    stage "pictures, round $r"
    rec "record, picture copied first" env NBODY_TEST_VIDEO_COPY=1 "$nb" "${k16[@]}" --no-hud --frames 1500
    frames "plain, HUD" "$nb" "${k16[@]}" --frames 1500
    rec "record, HUD in the video" "$nb" "${k16[@]}" --frames 1500 --record-hud
    rec "record, HUD not in the video" "$nb" "${k16[@]}" --frames 1500
    rec "record 1920x1080" "$nb" "${k16[@]}" --no-hud --frames 1200 --record-size 1920x1080
    rec "record 3840x2160" "$nb" "${k16[@]}" --no-hud --frames 400 --record-size 3840x2160
    frames "plain 131K (tree)" "$nb" --headless --no-hud --n 131072 --frames 600
    rec "record 131K (tree)" "$nb" --headless --no-hud --n 131072 --frames 600
done
# Long runs: the recording's trial of the wait for GL spread over more frames.
for r in 1 2; do
    stage "16K, long runs, round $r"
    frames "plain, 6000 frames" "$nb" "${k16[@]}" --no-hud --frames 6000
    frames "record, 6000 frames" "$nb" "${k16[@]}" --no-hud --frames 6000 --record "$video"
done
stage "done"
