/* app_status.c - --status-json FILE: the live state as JSON.
 *
 * At exit, and with --status-every N every N frames, one JSON object per
 * line (JSON Lines): every knob of the knob table under its flag's name
 * (app_knobs.c), then the numbers the HUD shows. The energy fields are
 * computed fresh for each line, so a script can check what each key press
 * did. Each line is formatted in a growing buffer (no line length limit).
 *
 * With --status-every the file is opened at the first line and written
 * under its own name as the run goes, each line flushed as it is made, so
 * `tail -f` follows a long run and a killed one keeps its lines. Without it
 * the one line is written at exit, atomically. A line that cannot be
 * written stops the status (one message) and the run exits 1 at the end.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* Appends printf output to the status buffer, growing it to fit. */
__attribute__((format(printf, 2, 3))) static void emit(app *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    app_outputs *o = &a->out;
    if (o->status_len + (size_t)n + 1 > o->status_cap) {
        size_t cap = o->status_cap ? o->status_cap : 4096;
        while (cap < o->status_len + (size_t)n + 1) cap *= 2;
        char *grown = realloc(o->status, cap);
        if (!grown) {
            fprintf(stderr, "nbody: out of memory for the status lines; one is lost\n");
            return;
        }
        o->status = grown;
        o->status_cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(o->status + o->status_len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    o->status_len += (size_t)n;
}

/* JSON has no NaN or Infinity: those become null. */
static void number(char *out, size_t len, double v) {
    if (isfinite(v)) {
        snprintf(out, len, "%.9g", v);
    } else {
        snprintf(out, len, "null");
    }
}

/* --status-every: the line in the buffer goes to the file now. */
static void stream_line(app *a) {
    app_outputs *o = &a->out;
    if (o->status_failed) return;
    if (!o->status_file) o->status_file = app_file_open(a->cfg.status_json, "--status-json", false);
    const bool ok = o->status_file && app_file_write(o->status_file, o->status, o->status_len) &&
                    app_file_flush(o->status_file);
    o->status_len = 0;
    if (ok) return;
    o->status_failed = true; /* the message is printed; no more lines */
    o->write_failed = true;
    if (o->status_file) app_file_close(o->status_file, false);
    o->status_file = NULL;
}

void app_status_append(app *a) {
    const sim_params p = sim_get_params(a->sim);
    const sim_diag d = sim_diagnostics(a->sim);
    app_live *l = &a->live;
    if (!l->energy0_valid && isfinite(d.total)) {
        l->energy0 = d.total;
        l->energy0_valid = true;
    }
    const double de =
        l->energy0_valid && l->energy0 != 0 ? (d.total - l->energy0) / fabs(l->energy0) : 0.0;
    const bool zero_copy =
        p.backend == SIM_BACKEND_CUDA && a->interop.path == APP_INTEROP_ZERO_COPY;
    emit(a, "{\"format\": \"nbody-status\", \"version\": 2, \"frame\": %d", l->frame);
    for (int k = 0; k < APP_KNOB_COUNT; k++) {
        char value[96];
        app_knob_json(a, (app_knob)k, value, sizeof value);
        emit(a, ", \"%s\": %s", app_knob_get((app_knob)k)->name, value);
    }
    char e[32], de_s[32], vr[32];
    number(e, sizeof e, d.total);
    number(de_s, sizeof de_s, de);
    number(vr, sizeof vr, d.virial_ratio);
    emit(a, ", \"fullscreen\": %s, \"window\": [%d, %d]", a->fe.fullscreen ? "true" : "false",
         a->fe.window_width, a->fe.window_height);
    char snapshot[3 * PATH_MAX + 1024]; /* "snapshot" and "playback" (app_snapshot.c) */
    app_snapshot_json(a, snapshot, sizeof snapshot);
    emit(a, "%s", snapshot);
    emit(a,
         ", \"t\": %.9g, \"steps\": %lld, \"paused\": %s, \"fps\": %.4g, \"ms_per_step\": %.6g, "
         "\"interactions_per_s\": %.6g, \"energy\": %s, \"dE_over_E0\": %s, \"virial_ratio\": %s, "
         "\"interop\": \"%s\", \"sprites\": \"%s\", \"sprites_mode\": \"%s\", \"color\": %d, "
         "\"hud\": %s, \"help\": %s, \"vsync\": %s}\n",
         p.time, (long long)p.steps, l->paused ? "true" : "false", l->fps,
         (double)sim_last_step_ms(a->sim), app_interactions_per_s(a), e, de_s, vr,
         zero_copy ? "zero-copy" : "host-copy", a->interop.sprites_drawn ? "cuda" : "gl",
         app_sprites_mode_name(a->sprites.mode), (int)a->view.color, a->view.hud ? "true" : "false",
         a->view.help ? "true" : "false", a->fe.vsync ? "true" : "false");
    if (a->cfg.status_every > 0) stream_line(a);
}

bool app_status_write(app *a) {
    app_outputs *o = &a->out;
    if (a->cfg.status_every > 0) { /* every line, the last one too, is in the file */
        if (o->status_failed) return false;
        const bool ok = app_file_close(o->status_file, true);
        o->status_file = NULL;
        o->status_failed = !ok;
        return ok;
    }
    return app_output_text(a->cfg.status_json, "--status-json", o->status ? o->status : "");
}
