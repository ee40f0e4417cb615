# xvfb.sh - sourced by the shell tests and benchmarks that open a window:
#
#   xvfb_start DIR   start Xvfb on a free display (-displayfd picks it), its
#                    log in DIR/xvfb.log; exports DISPLAY. Returns 1, the log
#                    on stderr, when it does not come up within 10 s.
#   xvfb_stop        stop it (from the caller's EXIT trap; harmless twice).
#
# NBODY_XVFB_ARGS adds arguments (the GPU machine's carried Xvfb needs
# -xkbdir, see scripts/make-window-bundle.sh).
# shellcheck shell=bash
xvfb_pid=
xvfb_start() {
    local dir=$1
    # shellcheck disable=SC2086 # NBODY_XVFB_ARGS is a list of arguments
    Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp ${NBODY_XVFB_ARGS:-} \
        3>"$dir/display" >"$dir/xvfb.log" 2>&1 &
    xvfb_pid=$!
    for _ in $(seq 100); do
        [ -s "$dir/display" ] && break
        kill -0 "$xvfb_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ ! -s "$dir/display" ]; then
        cat "$dir/xvfb.log" >&2
        return 1
    fi
    DISPLAY=":$(head -n 1 "$dir/display")"
    export DISPLAY
}
xvfb_stop() {
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null
    xvfb_pid=
}
