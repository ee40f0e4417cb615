/* app_stop.c - whether the run is to stop: the front-end's quit (Esc, the
 * close button) or SIGINT / SIGTERM. Long work asks it: sim's stop hook
 * between blocks of a CPU evaluation, the frame before starting a step or
 * a sample, the ladder chart before timing a rung. It reads the front-end
 * and base/ only, so everything else in app/ may call it.
 */
#include "app.h"

bool app_stop_requested(void *ctx) {
    app *a = ctx;
    const double now = base_now();
    if (a->fe.poll_stop && now - a->fe.stop_polled >= APP_STOP_POLL_S) {
        a->fe.stop_polled = now;
        a->fe.poll_stop(a->fe.poll_ctx);
    }
    return app_stopping(a);
}

bool app_stopping(const app *a) {
    return a->fe.quit || base_signal_caught() != 0;
}
