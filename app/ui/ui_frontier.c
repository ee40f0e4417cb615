/* ui_frontier.c - the tree's accuracy-speed frontier (Shift+X): each
 * setting the app swept (app/app_frontier.c) as a point at its step time
 * (x, ms per step) and relative force error against the exact sum (y),
 * both log scale; the median and the 99th percentile as two markers (a
 * filled and a hollow square, joined), the two series (theta alone; alpha
 * at theta 1) in two colours with a legend, the running setting ringed,
 * and the exact kernel's step time at this N as a vertical line. Points
 * appear as they are measured. The panel sits at the left, low, at most
 * half the window wide: clear of the HUD (left, top) and of the ladder
 * chart, which keeps to the right half while the frontier is shown.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

/* The y axis's title, above the plot (the x axis's is below it); the
 * lecture's narrow column takes the short one, so that its text need not
 * shrink to fit. */
#define Y_TITLE "relative force error |a − a_exact| / |a_exact| (log)"
#define Y_TITLE_SHORT "force error (log)"

static const float FRONTIER_PANEL[4] = {0.02f, 0.03f, 0.06f, 0.88f};
static const float PLOT_BG[4] = {0.06f, 0.07f, 0.11f, 1.0f};
/* The series' colours: blue and orange tell apart with most colour vision. */
static const float SERIES[UI_FRONTIER_SERIES_COUNT][4] = {
    [UI_FRONTIER_THETA] = {0.3f, 0.65f, 1.0f, 1.0f},
    [UI_FRONTIER_ALPHA] = {1.0f, 0.55f, 0.1f, 1.0f},
    [UI_FRONTIER_RUNNING] = {0.45f, 0.95f, 0.55f, 1.0f},
};
static const float EXACT[4] = {0.95f, 0.3f, 0.35f, 1.0f};
static const float RING[4] = {1.0f, 1.0f, 1.0f, 1.0f};

/* A log axis over [lo, hi] (values > 0): its range in log10, at least a
 * decade, with a margin so markers at the ends stay inside. */
typedef struct axis {
    double lo, hi; /* log10 */
} axis;

static axis axis_of(double lo, double hi, double dflt_lo, double dflt_hi) {
    if (!(lo > 0) || !(hi >= lo) || !isfinite(hi)) lo = dflt_lo, hi = dflt_hi;
    axis a = {log10(lo), log10(hi)};
    const double pad = 0.08 * fmax(a.hi - a.lo, 1.0);
    a.lo -= pad;
    a.hi += pad;
    if (a.hi - a.lo < 1) {
        const double mid = 0.5 * (a.lo + a.hi);
        a.lo = mid - 0.5, a.hi = mid + 0.5;
    }
    return a;
}

static float place(const axis *a, double v, float from, float len) {
    return from + len * (float)((log10(v) - a->lo) / (a->hi - a->lo));
}

/* The tick values of a: decades, or 1-2-5 within them where the axis is short. */
static int ticks(const axis *a, double *out, int max) {
    const bool fine = a->hi - a->lo < 2.5;
    int count = 0;
    for (int d = (int)floor(a->lo); d <= (int)ceil(a->hi) && count < max; d++) {
        const double steps[3] = {1, 2, 5};
        for (int k = 0; k < (fine ? 3 : 1) && count < max; k++) {
            const double v = steps[k] * pow(10, d);
            if (log10(v) >= a->lo && log10(v) <= a->hi) out[count++] = v;
        }
    }
    return count;
}

static void tick_label(double v, bool ms, char *out, size_t len) {
    if (ms) {
        snprintf(out, len, "%g", v);
    } else {
        const int e = (int)floor(log10(v) + 1e-9);
        const double m = v / pow(10, e);
        if (fabs(m - 1) < 1e-6) {
            snprintf(out, len, "1e%d", e);
        } else {
            snprintf(out, len, "%.0fe%d", m, e);
        }
    }
}

static void ms_text(double ms, char *out, size_t len) {
    if (ms >= 1000) {
        snprintf(out, len, "%.3g s", ms * 1e-3);
    } else {
        snprintf(out, len, "%.3g ms", ms);
    }
}

/* A hollow square of side s centred at (x, y), lines t thick. */
static void hollow(render_overlay *o, float x, float y, float s, float t, const float *c) {
    const float h = 0.5f * s;
    render_overlay_rect(o, x - h, y - h, s, t, c);
    render_overlay_rect(o, x - h, y + h - t, s, t, c);
    render_overlay_rect(o, x - h, y - h, t, s, c);
    render_overlay_rect(o, x + h - t, y - h, t, s, c);
}

static bool is_running(const ui_frontier *fr, const ui_frontier_point *p) {
    const double a = fr->alpha > 0 ? fr->alpha : 0;
    return fr->tree_running && fabs(p->theta - fr->theta) <= 1e-9 * fr->theta &&
           fabs(p->alpha - a) <= 1e-9 * fmax(a, 1e-300);
}

void ui_frontier_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    ui_frontier_drawn *drawn = &ui->frontier_drawn;
    memset(drawn, 0, sizeof *drawn);
    const ui_frontier *fr = &f->frontier;
    if (!fr->on) return;
    /* Below the HUD (its bottom: where the selection panel would go). */
    float hud_x, hud_bottom;
    ui_select_place(ui, f, fb_width, fb_height, &hud_x, &hud_bottom);
    /* In lecture mode: the left column of its layout, the text smaller
     * where the heading would not fit its width. */
    ui_lecture_layout lecture = {0};
    if (f->lecture.on) ui_lecture_layout_of(f, fb_width, fb_height, &lecture);
    render_overlay_set_font_px(o, f->lecture.on ? lecture.font_px : ui_font_px(f));

    /* Ranges from the points and the exact line. */
    double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY, y_hi = 0;
    const int count = fr->count < UI_FRONTIER_MAX ? fr->count : UI_FRONTIER_MAX;
    for (int i = 0; i < count; i++) {
        const ui_frontier_point *p = &fr->points[i];
        if (p->ms > 0) x_lo = fmin(x_lo, p->ms), x_hi = fmax(x_hi, p->ms);
        if (p->median > 0) y_lo = fmin(y_lo, p->median), y_hi = fmax(y_hi, p->median);
        if (p->p99 > 0) y_lo = fmin(y_lo, p->p99), y_hi = fmax(y_hi, p->p99);
    }
    if (fr->exact_ms > 0) x_lo = fmin(x_lo, fr->exact_ms), x_hi = fmax(x_hi, fr->exact_ms);
    const axis ax = axis_of(x_lo, x_hi, 0.1, 100), ay = axis_of(y_lo, y_hi, 1e-5, 1e-1);

    char line[512], n[32];
    base_commas(fr->n, n, sizeof n);
    /* In the lecture's narrow column, and where the long lines would not
     * fit the left half of the window, short lines, so that the text is set
     * at its size rather than shrunk to fit or running past the panel (the
     * chart names the GPU). */
    snprintf(line, sizeof line, "Tree frontier at N = %s on %.300s, on a copy of the bodies", n,
             fr->device ? fr->device : "this machine");
    const char *sub = "multipole order: no knob (quadrupoles, monopoles where negligible), so no "
                      "series of it";
    const float lh_long = render_overlay_line_height(o);
    const float long_w =
        fmaxf(render_overlay_text_width(o, line), render_overlay_text_width(o, sub));
    if (f->lecture.on || long_w + 1.2f * lh_long > ui_half_width(fb_width, ui_margin(lh_long))) {
        snprintf(line, sizeof line, "Tree frontier at N = %s, on a copy", n);
        sub = "multipole order: no knob, no series";
    }
    char running[96];
    if (fr->tree_running && fr->alpha > 0) {
        snprintf(running, sizeof running, "running: θ %g, α %g", fr->theta, fr->alpha);
    } else if (fr->tree_running) {
        snprintf(running, sizeof running, "running: θ %g, α off", fr->theta);
    } else {
        snprintf(running, sizeof running, "running: an exact method (no ring)");
    }
    const char *y_title = f->lecture.on ? Y_TITLE_SHORT : Y_TITLE;
    /* The lecture's column gives the running setting a row of its own and
     * the status its short form. */
    const bool narrow = f->lecture.on;
    char status[160];
    if (fr->sweeping) {
        snprintf(status, sizeof status,
                 narrow ? "sweeping: %d of %d settings"
                        : "sweeping: %d of %d settings, one per frame "
                          "(Shift+X stops)",
                 fr->count, fr->planned);
    } else {
        snprintf(status, sizeof status,
                 narrow ? "%d of %d settings, %s"
                        : "%d of %d settings; %s (Shift+X closes; again "
                          "sweeps anew)",
                 fr->count, fr->planned, fr->count == fr->planned ? "done" : "stopped");
    }
    float text_w = fmaxf(render_overlay_text_width(o, line), render_overlay_text_width(o, sub));
    { /* every row fits the lecture's column or half the window: smaller text where not */
        const float lh0 = render_overlay_line_height(o), sq0 = 0.6f * lh0;
        const float marks = 2 * (sq0 + 0.4f * lh0) + 1.2f * lh0 +
                            render_overlay_text_width(o, "median") +
                            render_overlay_text_width(o, "99th percentile");
        const float ring = 1.8f * sq0 + render_overlay_text_width(o, running);
        const float legend = narrow ? fmaxf(marks, ring) : marks + 1.2f * lh0 + ring;
        const float widest =
            fmaxf(fmaxf(fmaxf(text_w, legend), render_overlay_text_width(o, y_title)),
                  render_overlay_text_width(o, status));
        const float room = f->lecture.on ? lecture.code.w : ui_half_width(fb_width, ui_margin(lh0));
        const float wide = 1.1f * (widest + 1.2f * lh0) / room;
        const float px0 = f->lecture.on ? lecture.font_px : ui_font_px(f);
        if (wide > 1) render_overlay_set_font_px(o, fmaxf(UI_MIN_PX, px0 / wide));
        text_w = fmaxf(render_overlay_text_width(o, line), render_overlay_text_width(o, sub));
    }
    drawn->font_px = render_overlay_font_px(o);
    const float lh = render_overlay_line_height(o), pad = 0.6f * lh, m = ui_margin(lh);
    const float bottom = fb_height - m - 2.4f * lh; /* above the message line */
    float w = fminf(fmaxf(text_w + 2 * pad, 34 * lh), ui_half_width(fb_width, m));
    float h = fminf(28 * lh, fmaxf(bottom - hud_bottom, 14 * lh));
    float x = m, y = fmaxf(m, bottom - h);
    if (f->lecture.on) {
        w = lecture.code.w, h = lecture.code.h, x = lecture.code.x, y = lecture.code.y;
    }
    drawn->panel[0] = x, drawn->panel[1] = y, drawn->panel[2] = w, drawn->panel[3] = h;

    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w, h, FRONTIER_PANEL);
    float ty = y + pad;
    render_overlay_text(o, x + pad, ty, UI_WHITE, line);
    ty += lh;
    render_overlay_text(o, x + pad, ty, UI_DIM, sub);
    ty += 1.2f * lh;
    /* Legend: the series' colours, then the markers' kinds. */
    const float sq = 0.6f * lh, t = fmaxf(1.5f, 0.12f * lh);
    float lx = x + pad;
    const char *names[UI_FRONTIER_SERIES_COUNT] = {"θ alone (α off)", "α at θ = 1",
                                                   "the running setting"};
    bool has_running = false;
    for (int i = 0; i < count; i++) has_running |= fr->points[i].series == UI_FRONTIER_RUNNING;
    for (int s = 0; s < UI_FRONTIER_SERIES_COUNT; s++) {
        if (s == UI_FRONTIER_RUNNING && !has_running) continue;
        render_overlay_rect(o, lx, ty + 0.5f * (lh - sq), sq, sq, SERIES[s]);
        lx += sq + 0.4f * lh;
        lx = render_overlay_text(o, lx, ty, UI_WHITE, names[s]) + 1.2f * lh;
    }
    ty += lh;
    lx = x + pad;
    render_overlay_rect(o, lx, ty + 0.5f * (lh - sq), sq, sq, UI_DIM);
    lx = render_overlay_text(o, lx + sq + 0.4f * lh, ty, UI_DIM, "median") + 1.2f * lh;
    hollow(o, lx + 0.5f * sq, ty + 0.5f * lh, sq, t, UI_DIM);
    lx = render_overlay_text(o, lx + sq + 0.4f * lh, ty, UI_DIM, "99th percentile") + 1.2f * lh;
    if (narrow) { /* the running setting on a row of its own */
        ty += lh;
        lx = x + pad + 0.4f * sq;
    }
    hollow(o, lx + 0.5f * sq, ty + 0.5f * lh, 1.8f * sq, t, RING);
    render_overlay_text(o, lx + 1.8f * sq, ty, UI_DIM, running);
    ty += 1.2f * lh;
    render_overlay_text(o, x + pad, ty, UI_WHITE, y_title);
    ty += 1.3f * lh;

    /* The plot: y labels left of it, x labels and the axis title below. */
    double tx[16], tyv[16];
    const int nx = ticks(&ax, tx, 16), ny = ticks(&ay, tyv, 16);
    float label_w = render_overlay_text_width(o, "1e-10");
    const float px = x + pad + label_w + 0.5f * lh;
    const float pw = x + w - pad - px;
    const float ph = y + h - pad - 3.2f * lh - ty; /* tick labels, axis title, status line */
    const float py = ty;
    if (ph < 3 * lh) {
        render_overlay_end(o);
        return;
    }
    drawn->plot[0] = px, drawn->plot[1] = py, drawn->plot[2] = pw, drawn->plot[3] = ph;
    render_overlay_rect(o, px, py, pw, ph, PLOT_BG);
    char label[32];
    for (int i = 0; i < nx; i++) {
        const float gx = place(&ax, tx[i], px, pw);
        render_overlay_rect(o, gx, py, 1, ph, UI_GRID);
        tick_label(tx[i], true, label, sizeof label);
        render_overlay_text(o, gx - 0.5f * render_overlay_text_width(o, label), py + ph, UI_DIM,
                            label);
    }
    for (int i = 0; i < ny; i++) {
        const float gy = place(&ay, tyv[i], py + ph, -ph);
        render_overlay_rect(o, px, gy, pw, 1, UI_GRID);
        tick_label(tyv[i], false, label, sizeof label);
        render_overlay_text(o, px - 0.4f * lh - render_overlay_text_width(o, label),
                            gy - 0.5f * lh, UI_DIM, label);
    }
    const char *x_title = "against ms per step (log)";
    render_overlay_text(o, px + 0.5f * (pw - render_overlay_text_width(o, x_title)),
                        py + ph + lh, UI_WHITE, x_title);

    /* The exact kernel's step time. */
    if (fr->exact_ms > 0) {
        const float ex = place(&ax, fr->exact_ms, px, pw);
        drawn->exact_x = ex;
        render_overlay_rect(o, ex - 1, py, 2, ph, EXACT);
        char ms[32];
        ms_text(fr->exact_ms, ms, sizeof ms);
        snprintf(line, sizeof line, "exact (%s): %s%s", fr->exact_name ? fr->exact_name : "",
                 ms, fr->exact_estimated ? " estimated" : "");
        const float lw = render_overlay_text_width(o, line);
        const float at = ex + 0.3f * lh + lw <= px + pw ? ex + 0.3f * lh : ex - 0.3f * lh - lw;
        /* At the top or the bottom of the plot, whichever covers fewer of
         * the points' markers. */
        const float top = py + 0.2f * lh, low = py + ph - 1.2f * lh;
        int over[2] = {0, 0};
        for (int i = 0; i < count; i++) {
            const ui_frontier_point *p = &fr->points[i];
            if (!(p->ms > 0) || !(p->median > 0) || !(p->p99 > 0)) continue;
            const float mx = place(&ax, p->ms, px, pw);
            if (mx + sq < at || mx - sq > at + lw) continue;
            const float ys[2] = {place(&ay, p->median, py + ph, -ph),
                                 place(&ay, p->p99, py + ph, -ph)};
            for (int k = 0; k < 2; k++) {
                over[0] += ys[k] + sq > top && ys[k] - sq < top + lh;
                over[1] += ys[k] + sq > low && ys[k] - sq < low + lh;
            }
        }
        render_overlay_text(o, at, over[0] <= over[1] ? top : low, EXACT, line);
    }
    /* The points: p99 above the median at the same x, joined. */
    for (int i = 0; i < count; i++) {
        const ui_frontier_point *p = &fr->points[i];
        if (!(p->ms > 0) || !(p->median > 0) || !(p->p99 > 0)) continue;
        const float mx = place(&ax, p->ms, px, pw);
        const float my = place(&ay, p->median, py + ph, -ph);
        const float qy = place(&ay, p->p99, py + ph, -ph);
        const float *c = SERIES[p->series];
        render_overlay_rect(o, mx - 0.5f * t, fminf(my, qy), t, fabsf(my - qy), c);
        render_overlay_rect(o, mx - 0.5f * sq, my - 0.5f * sq, sq, sq, c);
        render_overlay_rect(o, mx - 0.5f * sq, qy - 0.5f * sq, sq, sq, PLOT_BG);
        hollow(o, mx, qy, sq, t, c);
        if (is_running(fr, p)) {
            hollow(o, mx, my, 1.8f * sq, t, RING);
            hollow(o, mx, qy, 1.8f * sq, t, RING);
        }
        drawn->median[i][0] = mx, drawn->median[i][1] = my;
        drawn->p99[i][0] = mx, drawn->p99[i][1] = qy;
    }
    drawn->count = count;
    render_overlay_text(o, x + pad, y + h - pad - lh, fr->sweeping ? UI_KEY : UI_DIM, status);
    render_overlay_end(o);
}
