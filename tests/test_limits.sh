#!/usr/bin/env bash
# test_limits.sh - limits of the inputs and of the numbers, from the command
# line, on the CPU backend (headless, Mesa's llvmpipe where there is no GPU).
#
#   test_limits.sh NBODY
#
# --script files:
#   - a valid script with 300-character comment lines runs (exit 0), and a
#     bad key after such a line is reported with its own line number (3);
#   - a frame number past the last one a script can address says so ("is
#     beyond the last frame"), a negative one keeps "must be 0 or more";
#   - a directory, a FIFO (no writer: must not hang, run under timeout) and a
#     device are refused up front with one "nbody:" line naming the kind and
#     a "hint:" line.
# --preset and --ic that disagree are refused; "1 body", "1 step/frame";
# the summary counts every frame and says the first was not timed, and
# --profile of one frame says there is nothing to profile.
# A blow-up in a headless run (NBODY_TEST_RUNAWAY=F: body 0's velocity
# becomes infinite before frame F's steps): the run stops at that frame
# (F + 1 frames of the 100 asked), names step 1 and its simulated time (dt),
# still writes the screenshot, dump and status, and exits 3.
set -u
nbody=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
limit=30 # seconds; a hang (the FIFO) shows as exit 124
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" # GL-driving runs: see tests/CMakeLists.txt

fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}

run() { # run ARGS...: nbody headless on a tiny scene; rc in $rc, stderr in $tmp/err
    timeout "$limit" "$nbody" --backend cpu --headless --n 64 --width 32 --height 32 "$@" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect_script_refusal WHAT FILE PATTERN: exit 2 (not a timeout), one
# "nbody:" line matching PATTERN and a "hint:" line.
expect_script_refusal() {
    local what=$1 file=$2 pattern=$3
    run --frames 3 --script "$file"
    if [ "$rc" -ne 2 ]; then # a bad script is a bad command line
        fail "($what): exit $rc"
    elif [ "$(grep -c '^nbody: ' "$tmp/err")" -ne 1 ] || ! grep -q '^hint: ' "$tmp/err"; then
        fail "($what): not one 'nbody:' and a 'hint:' line"; cat "$tmp/err"
    elif ! grep -q -- "$pattern" "$tmp/err"; then
        fail "($what): no '$pattern' in:"; cat "$tmp/err"
    else
        echo "ok   ($what): $(head -n 1 "$tmp/err")"
    fi
}

long=$(printf '%0300d' 0 | tr 0 x)
printf '# %s\n0 K\n# %s\n2 Shift+K\n' "$long" "$long" >"$tmp/long.txt"
run --frames 3 --script "$tmp/long.txt"
if [ "$rc" -ne 0 ]; then
    fail "(300-character comment lines): exit $rc"; cat "$tmp/err"
else
    echo "ok   (300-character comment lines): the script runs"
fi
printf '# %s\n0 K\n3 Nope # %s\n' "$long" "$long" >"$tmp/badkey.txt"
expect_script_refusal "bad key after a long line" "$tmp/badkey.txt" "badkey.txt line 3: unknown key 'Nope'"
printf '0 K\n99999999999 K\n' >"$tmp/huge.txt"
expect_script_refusal "huge frame" "$tmp/huge.txt" \
    "line 2: frame 99999999999 is beyond the last frame this script can address (max 1000000000)"
printf '0 K\n1000000001 K\n' >"$tmp/over.txt"
expect_script_refusal "frame one past the last" "$tmp/over.txt" "line 2: frame 1000000001 is beyond"
printf '0 K\n1000000000 K\n' >"$tmp/last.txt"
run --frames 1 --script "$tmp/last.txt"
[ "$rc" -eq 0 ] && echo "ok   (the last frame is accepted)" || fail "(frame 1000000000): exit $rc"
printf -- '-5 K\n' >"$tmp/neg.txt"
expect_script_refusal "negative frame" "$tmp/neg.txt" "line 1: the frame number must be 0 or more"
printf -- '-99999999999999999999999 K\n' >"$tmp/negbig.txt"
expect_script_refusal "huge negative frame" "$tmp/negbig.txt" "must be 0 or more"
mkdir "$tmp/adir"
expect_script_refusal "directory" "$tmp/adir" "is a directory"
mkfifo "$tmp/fifo"
expect_script_refusal "FIFO without a writer" "$tmp/fifo" "is a FIFO"
expect_script_refusal "device" /dev/null "is a device"

# Scene flags that contradict each other are refused (exit 2, both named, no
# file); agreeing ones run.
for pair in "--preset antennae-like --ic shell" "--ic disk --preset plummer"; do
    # shellcheck disable=SC2086 # the pair is two flags and their values
    run --frames 1 $pair --screenshot "$tmp/c.png"
    if [ "$rc" -ne 2 ] || [ -e "$tmp/c.png" ] || ! grep -q '^nbody: --ic .* contradicts --preset' \
        "$tmp/err" || ! grep -q '^hint: ' "$tmp/err"; then
        fail "($pair): exit $rc, want 2 with a message and no file"; cat "$tmp/err"
    else
        echo "ok   ($pair): refused"
    fi
done
run --frames 1 --preset disk --ic disk
[ "$rc" -eq 0 ] && echo "ok   (--preset disk --ic disk runs)" || fail "(--preset disk --ic disk): $rc"

# One body, one step: singular words. The summary counts every frame ran
# and says which were timed; one frame has none to time or profile.
run --frames 3 --n 1 --steps-per-frame 1
if [ "$rc" -ne 0 ] || ! grep -q 'CPU backend (--backend cpu), 1 body$' "$tmp/out" ||
   ! grep -q '^nbody: 3 frames of 1 body (1 step/frame); timed: the last 2 (the first is warm-up), in ' "$tmp/out"; then
    fail "(--n 1): exit $rc or plural words:"; cat "$tmp/out"
else
    echo "ok   (--n 1): '1 body', '1 step/frame', 3 frames of which the last 2 timed"
fi
run --frames 1 --n 1 --profile
if [ "$rc" -ne 0 ] || ! grep -q '^nbody: 1 frame of 1 body (1 step/frame); none timed' "$tmp/out" ||
   ! grep -q '^nbody: --profile: nothing to profile' "$tmp/out"; then
    fail "(--frames 1 --profile): exit $rc, or no word of nothing timed:"; cat "$tmp/out"
else
    echo "ok   (--frames 1 --profile): nothing timed, nothing to profile"
fi

# The blow-up.
NBODY_TEST_RUNAWAY=7 run --frames 100 --dt 0.25 --screenshot "$tmp/b.png" --dump "$tmp/b.csv" \
    --status-json "$tmp/b.json"
if [ "$rc" -ne 3 ]; then
    fail "(blow-up): exit $rc, want 3"; cat "$tmp/err"
elif ! grep -q 'NaN or infinity at step 1 (t = 0.25): stopped after 8 frames' "$tmp/err"; then
    fail "(blow-up): stderr does not name step 1, t = 0.25 and 8 frames:"; cat "$tmp/err"
elif ! grep -q 'NaN or infinity at step 1 (t = 0.25): paused' "$tmp/out"; then
    fail "(blow-up): no paused message on stdout:"; cat "$tmp/out"
elif [ ! -s "$tmp/b.png" ] || [ "$(wc -l <"$tmp/b.csv")" -ne 65 ] ||
     ! grep -q '"frame": 8,' "$tmp/b.json"; then
    fail "(blow-up): outputs missing or not of frame 8"; ls -l "$tmp"; cat "$tmp/b.json"
else
    echo "ok   (blow-up): exit 3 at frame 8 of 100, step 1 named, outputs written"
fi
# Without the hook the same run is fine (the test above is about the hook's blow-up).
run --frames 10 --dt 0.25
[ "$rc" -eq 0 ] && echo "ok   (no blow-up: exit 0)" || fail "(no blow-up): exit $rc"

echo "test_limits: $failures failure(s)"
[ "$failures" -eq 0 ]
