/* ui_spark.c - the energy sparkline in the HUD panel: the energy error
 * (E - E0) / |E0| against simulated time from the samples the app takes,
 * so a damping or time-step change is seen as a change of slope, not read
 * as a number. */
#include <math.h>
#include <stdio.h>

#include "ui_internal.h"

static const float SPARK_PANEL[4] = {0.02f, 0.03f, 0.06f, 0.86f};

void ui_spark_reset(ui_spark *s) {
    s->count = 0;
    s->next = 0;
}

void ui_spark_push(ui_spark *s, double t, double de) {
    /* Time running backwards means new bodies (a snapshot, a reset): start over. */
    double last_t, last_de;
    if (ui_spark_get(s, s->count - 1, &last_t, &last_de) && t < last_t) ui_spark_reset(s);
    s->t[s->next] = t;
    s->de[s->next] = de;
    s->next = (s->next + 1) % UI_SPARK_SAMPLES;
    if (s->count < UI_SPARK_SAMPLES) s->count++;
}

bool ui_spark_get(const ui_spark *s, int i, double *t, double *de) {
    if (i < 0 || i >= s->count) return false;
    const int k = (s->next - s->count + i + UI_SPARK_SAMPLES) % UI_SPARK_SAMPLES;
    *t = s->t[k];
    *de = s->de[k];
    return true;
}

void ui_spark_draw(ui_state *ui, float x, float y, float w, float h) {
    const ui_spark *s = &ui->spark;
    if (s->count < 2) return;
    render_overlay *o = ui->text;
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    if (w <= 0) w = 22 * lh;
    if (h <= 0) h = 4.5f * lh;
    double t0 = 0, t1 = 0, de = 0, now = 0, range = 0;
    ui_spark_get(s, 0, &t0, &de);
    ui_spark_get(s, s->count - 1, &t1, &now);
    for (int i = 0; i < s->count; i++) {
        double t;
        ui_spark_get(s, i, &t, &de);
        range = fmax(range, fabs(de));
    }
    /* The range rounded up to one significant digit: a bound the curve stays within. */
    if (range > 0) {
        const double unit = pow(10, floor(log10(range)));
        range = ceil(range / unit * (1 - 1e-12)) * unit;
    }
    render_overlay_rect(o, x, y, w, h, SPARK_PANEL);
    char line[128], r[32];
    snprintf(r, sizeof r, "%.1g", range);
    snprintf(line, sizeof line, "ΔE/E₀ %+.2e   t %.3g to %.3g   ±%s", now, t0, t1,
             range > 0 ? r : "0");
    render_overlay_text(o, x + pad, y + pad * 0.5f, UI_WHITE, line);
    /* The plot: zero in the middle, ±range at the edges. */
    const float px = x + pad, pw = w - 2 * pad, py = y + pad * 0.5f + lh + 0.25f * lh;
    const float ph = y + h - pad * 0.5f - py, mid = py + 0.5f * ph;
    render_overlay_rect(o, px, mid, pw, 1, UI_GRID);
    const double span = t1 > t0 ? t1 - t0 : 1;
    const float thick = fmaxf(1.5f, 0.1f * lh);
    float last_x = 0, last_y = 0;
    for (int i = 0; i < s->count; i++) {
        double t;
        ui_spark_get(s, i, &t, &de);
        const float cx = px + pw * (float)((t - t0) / span);
        const float cy = mid - 0.5f * ph * (float)(range > 0 ? de / range : 0);
        if (i > 0) { /* a step: across at the old value, then up or down */
            render_overlay_rect(o, last_x, last_y - 0.5f * thick, fmaxf(cx - last_x, 1), thick,
                                UI_CURVE);
            render_overlay_rect(o, cx - 0.5f * thick, fminf(cy, last_y) - 0.5f * thick, thick,
                                fabsf(cy - last_y) + thick, UI_CURVE);
        }
        last_x = cx;
        last_y = cy;
    }
}
