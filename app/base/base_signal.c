/* base_signal.c - Ctrl-C and SIGTERM without losing the outputs (base.h).
 *
 * The first SIGINT or SIGTERM only records itself: the front-end's loop
 * sees it after the current frame, writes every requested output (the
 * screenshot, the dump, the status JSON, ...) and exits with 128 + the
 * signal (130, 143). The handler also restores the default action of both
 * signals, so a second one (the user giving up on a write that blocks, say
 * on a FIFO nobody reads) ends the process at once.
 *
 * SIGPIPE is ignored: a reader that goes away makes the write fail with
 * EPIPE, which io_file.c reports like any other write failure, instead of
 * killing the process silently.
 */
#include <signal.h>
#include <string.h>

#include "base.h"

/* The one mutable file-scope variable of the app, and unavoidably so: a
 * signal handler can reach nothing else. Written only by the handler, read
 * by base_signal_caught; 0 until a signal is caught. */
static volatile sig_atomic_t caught_signal;

static void on_signal(int sig) {
    if (caught_signal == 0) caught_signal = sig;
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGINT, &dfl, NULL); /* async-signal-safe */
    sigaction(SIGTERM, &dfl, NULL);
}

void base_signal_install(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* Restarted system calls: the first signal must not fail a write that
     * is under way; the loop looks at the flag between frames. */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, NULL);
}

int base_signal_caught(void) {
    return (int)caught_signal;
}

int base_signal_exit_code(bool ok) {
    if (!ok) return 1;
    return caught_signal ? 128 + (int)caught_signal : 0;
}
