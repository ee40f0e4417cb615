/* app_status.c - --status-json FILE: the live state as JSON.
 *
 * At exit, and with --status-every N every N frames, one JSON object per
 * line (JSON Lines) with the knobs and the numbers the HUD shows. The energy
 * fields are computed fresh for each line, so a script can check what each
 * key press did. The file is written once, atomically, at exit.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

__attribute__((format(printf, 2, 3))) static void emit(app *a, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (a->status_len + (size_t)n + 1 > a->status_cap) {
        size_t cap = a->status_cap ? a->status_cap * 2 : 4096;
        while (cap < a->status_len + (size_t)n + 1) cap *= 2;
        char *grown = realloc(a->status, cap);
        if (!grown) return;
        a->status = grown;
        a->status_cap = cap;
    }
    memcpy(a->status + a->status_len, buf, (size_t)n + 1);
    a->status_len += (size_t)n;
}

/* JSON has no NaN or Infinity: those become null. */
static void number(char *out, size_t len, double v) {
    if (isfinite(v)) {
        snprintf(out, len, "%.9g", v);
    } else {
        snprintf(out, len, "null");
    }
}

void app_status_append(app *a) {
    const sim_params p = sim_get_params(a->sim);
    const sim_diag d = sim_diagnostics(a->sim);
    if (!a->energy0_valid && isfinite(d.total)) {
        a->energy0 = d.total;
        a->energy0_valid = true;
    }
    const double de =
        a->energy0_valid && a->energy0 != 0 ? (d.total - a->energy0) / fabs(a->energy0) : 0.0;
    const bool cuda = p.backend == SIM_BACKEND_CUDA;
    char e[32], de_s[32], vr[32];
    number(e, sizeof e, d.total);
    number(de_s, sizeof de_s, de);
    number(vr, sizeof vr, d.virial_ratio);
    emit(a,
         "{\"format\": \"nbody-status\", \"version\": 1, \"frame\": %d, \"variant\": \"%s\", "
         "\"p\": %d, \"q\": %d, \"dt\": %.9g, \"softening\": %.9g, \"damping\": %.9g, "
         "\"n\": %d, \"scene\": \"%s\", \"seed\": %llu, \"t\": %.9g, \"steps\": %lld, "
         "\"paused\": %s, \"fps\": %.4g, \"ms_per_step\": %.6g, \"interactions_per_s\": %.6g, "
         "\"energy\": %s, \"dE_over_E0\": %s, \"virial_ratio\": %s, \"backend\": \"%s\", "
         "\"interop\": \"%s\", \"color\": %d, \"hud\": %s, \"help\": %s, \"vsync\": %s}\n",
         a->frame, cuda ? sim_variant_info(p.variant)->name : "cpu-reference", p.p, p.q,
         (double)p.dt, (double)p.softening, (double)p.damping, p.body_count, sim_ic_name(p.ic),
         (unsigned long long)p.seed, p.time, (long long)p.steps, a->paused ? "true" : "false",
         a->fps, (double)sim_last_step_ms(a->sim), app_interactions_per_s(a), e, de_s, vr,
         sim_backend_name(p.backend), cuda ? app_interop_path_name(a->interop.path) : "host copy",
         (int)a->color, a->hud ? "true" : "false", a->help ? "true" : "false",
         a->vsync ? "true" : "false");
}

bool app_status_write(app *a) {
    return app_output_text(a->cfg.status_json, "--status-json", a->status ? a->status : "");
}
