#!/usr/bin/env bash
# test_headless.sh - the headless front-end renders a real picture.
#
#   test_headless.sh NBODY PNG_CHECK CUDA_AVAILABLE cpu|cuda
#
# cpu:  CPU backend through whatever EGL gives (Mesa llvmpipe on CI).
# cuda: CUDA backend on the GPU's EGL device, through zero-copy interop and
#       again through the forced host-copy path; exits 77 without a GPU.
set -u
nbody=$1 png_check=$2 cuda_available=$3 backend=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$backend" = cuda ] && ! "$cuda_available"; then exit 77; fi
fail=0
run() { # run NAME EXPECTED_PATH_TEXT ARGS...
    local name=$1 expect=$2
    shift 2
    "$nbody" --headless --backend "$backend" --screenshot "$tmp/$name.png" "$@" | tee "$tmp/$name.log"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || { echo "FAIL $name: exit $rc"; fail=1; return; }
    grep -q "$expect" "$tmp/$name.log" || { echo "FAIL $name: expected '$expect'"; fail=1; }
    "$png_check" "$tmp/$name.png" 0.002 640 360 || fail=1
}
if [ "$backend" = cpu ]; then
    run plummer "host copy" --n 4096 --frames 10 --width 640 --height 360
    run shell "host copy" --ic shell --n 4096 --frames 10 --width 640 --height 360
else
    run zero_copy "zero-copy interop" --n 16384 --frames 30 --width 640 --height 360
    run host_copy "host copy" --n 16384 --frames 30 --width 640 --height 360 --host-copy
fi
exit $fail
