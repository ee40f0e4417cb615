/* ui_chart.c - the ladder chart (overlay I): one bar per rung of the
 * kernel ladder (on the CPU backend its two methods, the exact reference
 * and the tree) with the interactions/s measured on this machine at the
 * current N, the running rung highlighted, and on each bar its speedup over
 * the previous rung and over the first. Every bar is N^2 / step time, the
 * tree's too ("N^2 equivalent"), so the speedups compare step times at the
 * same N. The rungs are measured by the app (app_ladder.c) and handed in
 * as ui_facts.rungs; this file only draws them.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

static const float CHART_PANEL[4] = {0.02f, 0.03f, 0.06f, 0.86f};
static const float TRACK[4] = {0.12f, 0.14f, 0.2f, 1.0f};
static const float BAR[4] = {0.2f, 0.4f, 0.64f, 1.0f};     /* a rung */
static const float CURRENT[4] = {0.8f, 0.5f, 0.08f, 1.0f}; /* the running rung */

void ui_chart_speedups(const double *rates, int count, double *vs_prev, double *vs_first) {
    for (int i = 0; i < count; i++) {
        const bool known = rates[i] > 0 && isfinite(rates[i]);
        const bool prev = i > 0 && rates[i - 1] > 0 && isfinite(rates[i - 1]);
        const bool first = rates[0] > 0 && isfinite(rates[0]);
        vs_prev[i] = known && prev ? rates[i] / rates[i - 1] : 0;
        vs_first[i] = known && first ? rates[i] / rates[0] : 0;
    }
}

void ui_chart_toggled(ui_state *ui, const ui_facts *f, char *msg, size_t len) {
    if (!ui->shown[UI_OVERLAY_CHART]) {
        snprintf(msg, len, "ladder chart closed");
        return;
    }
    int todo = 0;
    for (int i = 0; i < f->rung_count; i++) todo += f->rungs[i].status == UI_RUNG_MEASURING;
    snprintf(msg, len, "ladder chart at N = %d: %d of %d rungs to time, one per frame (I closes)",
             sim_get_params(f->sim).body_count, todo, f->rung_count);
}

static void step_time(double ms, char *out, size_t len) {
    if (ms >= 1000) {
        snprintf(out, len, "%.3g s", ms * 1e-3);
    } else {
        snprintf(out, len, "%.3g ms", ms);
    }
}

/* Rung i's figures as its bar shows them: rate, step time, speedups. */
static void row_text(const ui_rung *rungs, int i, const double *rates, const double *vs_prev,
                     const double *vs_first, bool compact, char *line, size_t len) {
    const ui_rung *r = &rungs[i];
    char rate[32], ms[32], sp[96] = "";
    ui_sci(rates[i], rate, sizeof rate);
    step_time(r->ms, ms, sizeof ms);
    if (compact) { /* the lecture's: rate, step time and the climb from the rung below */
        if (i > 0 && vs_prev[i] > 0) snprintf(sp, sizeof sp, "   ×%.3g", vs_prev[i]);
        snprintf(line, len, "%s/s  %s%s", rate, ms, sp);
        return;
    }
    if (i > 0) {
        char prev[40] = "", first[40] = "";
        if (vs_prev[i] > 0) {
            snprintf(prev, sizeof prev, "   ×%.3g vs %s", vs_prev[i], rungs[i - 1].name);
        }
        if (i > 1 && vs_first[i] > 0) {
            snprintf(first, sizeof first, "   ×%.3g vs %s", vs_first[i], rungs[0].name);
        }
        snprintf(sp, sizeof sp, "%s%s", prev, first);
    }
    snprintf(line, len, "%s/s  %s%s%s", rate, ms,
             !r->live     ? ""
             : r->current ? " (running)"
                          : " (its last run)",
             sp);
}

void ui_chart_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    memset(ui->bars, 0, sizeof ui->bars);
    const sim_params p = sim_get_params(f->sim);
    const bool cpu = p.backend == SIM_BACKEND_CPU;
    const int count = f->rung_count < UI_RUNGS_MAX ? f->rung_count : UI_RUNGS_MAX;
    if (count <= 0) return;
    const ui_rung *rungs = f->rungs;
    double rates[UI_RUNGS_MAX], vs_prev[UI_RUNGS_MAX], vs_first[UI_RUNGS_MAX];
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < count; i++) {
        rates[i] = rungs[i].status == UI_RUNG_OK ? sim_pair_rate(p.body_count, rungs[i].ms) : 0;
        if (rates[i] > 0 && isfinite(rates[i])) lo = fmin(lo, rates[i]), hi = fmax(hi, rates[i]);
    }
    ui_chart_speedups(rates, count, vs_prev, vs_first);
    /* Log scale from the decade below the slowest: the ladder spans orders
     * of magnitude, and the slowest rung still gets a bar. */
    const double lo10 = hi > 0 ? floor(log10(lo)) - (lo == hi ? 1 : 0) : 0;
    const double hi10 = hi > 0 ? log10(hi) : 1;

    /* In lecture mode the chart fills its place in the lecture's layout:
     * the heading wrapped to its width, the text smaller where the bars'
     * figures or the rows would not fit. */
    ui_lecture_layout place = {0};
    if (f->lecture.on) ui_lecture_layout_of(f, fb_width, fb_height, &place);
    const bool beside_frontier = ui_frontier_shown(ui, f);
    float px = f->lecture.on ? place.font_px : ui_font_px(f);
    char n[32], line[512];
    base_commas(p.body_count, n, sizeof n);
    snprintf(line, sizeof line, "The ladder at N = %s, measured live on %.300s", n,
             f->device ? f->device : "this machine");
    const char *const lines[] = {
        line,
        "bars: N²/step time in interactions/s, log scale; for the tree an N² equivalent,",
        f->lecture.on ? "so each speedup (×, over the rung above) compares step times at the same N"
                      : "so each speedup (×) compares step times at the same N",
        "the kernel ladder is a GPU feature; the CPU backend has the exact reference and the tree",
    };
    const float *const colors[] = {UI_WHITE, UI_DIM, UI_DIM, UI_WARN};
    ui_lines heading = {.count = 0};
    float lh = 0, pad = 0, row = 0, margin = 0, label_w = 0, w = 0, h = 0, x = 0, y = 0;
    for (int attempt = 0; attempt < 8; attempt++) {
        render_overlay_set_font_px(o, px);
        lh = render_overlay_line_height(o), pad = 0.6f * lh, row = 1.45f * lh;
        margin = 0.6f * lh;
        label_w = 0;
        for (int i = 0; i < count; i++) {
            label_w = fmaxf(label_w, render_overlay_text_width(o, rungs[i].name));
        }
        label_w += lh;
        heading.count = 0;
        float text_w = 0;
        /* The heading wrapped to the lecture's box, or to the right half
         * beside the frontier; else a line each. */
        const float wrap_w = f->lecture.on     ? place.chart.w - 2 * pad
                             : beside_frontier ? ui_half_width(fb_width, margin) - 2 * pad
                                               : 0;
        for (int i = 0; i < (cpu ? 4 : 3); i++) {
            const ui_line one = {.color = colors[i]};
            ui_line *l = &heading.line[heading.count];
            if (wrap_w > 0) {
                ui_line full = one;
                snprintf(full.text, sizeof full.text, "%s", lines[i]);
                ui_wrap(o, &full, wrap_w, 1, 2, &heading);
            } else {
                *l = one;
                snprintf(l->text, sizeof l->text, "%s", lines[i]);
                heading.count++;
            }
        }
        for (int i = 0; i < heading.count; i++) {
            text_w = fmaxf(text_w, render_overlay_text_width(o, heading.line[i].text));
        }
        h = 2 * pad + lh * heading.count + 0.4f * lh + row * count + 1.2f * lh;
        float room_h = place.chart.h;
        if (beside_frontier) { /* the right half, low: smaller text where the rows need it */
            w = ui_half_width(fb_width, margin);
            x = fb_width - margin - w, y = fmaxf(margin, fb_height - margin - 2.4f * lh - h);
            room_h = fb_height - 2 * margin - 2.4f * lh;
        } else if (!f->lecture.on) {
            w = fminf(fb_width - 2 * margin, fmaxf(0.5f * fb_width, text_w + 2 * pad));
            /* Right and low, above the message line: clear of the HUD where the screen allows. */
            x = fb_width - margin - w, y = fmaxf(margin, fb_height - margin - 2.4f * lh - h);
            break;
        } else {
            w = place.chart.w, x = place.chart.x, y = place.chart.y;
        }
        float rows_w = 0;
        for (int i = 0; i < count; i++) {
            if (rungs[i].status != UI_RUNG_OK) continue;
            char figures[256];
            row_text(rungs, i, rates, vs_prev, vs_first, f->lecture.on, figures, sizeof figures);
            rows_w = fmaxf(rows_w, render_overlay_text_width(o, figures));
        }
        const float need = fmaxf(label_w + 0.4f * lh + rows_w, text_w) + 2 * pad;
        const float shrink = fminf(w / need, room_h / h);
        if (shrink >= 1 || px <= UI_MIN_PX) break;
        px = fmaxf(UI_MIN_PX, floorf(px * fmaxf(0.8f, shrink)));
    }
    const int head = heading.count;
    const float bar_x = x + pad + label_w, bar_w = w - 2 * pad - label_w;

    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w, h, CHART_PANEL);
    for (int i = 0; i < head; i++) {
        render_overlay_text(o, x + pad, y + pad + lh * i, heading.line[i].color,
                            heading.line[i].text);
    }
    const float top = y + pad + lh * head + 0.4f * lh;
    /* Decade lines under the bars. */
    for (int d = (int)lo10; hi > 0 && d <= (int)ceil(hi10) && hi10 - lo10 < 12; d++) {
        const float gx = bar_x + bar_w * (float)((d - lo10) / (hi10 - lo10));
        if (gx > bar_x + bar_w + 1) break;
        render_overlay_rect(o, gx, top, 1, row * count, UI_GRID);
        snprintf(line, sizeof line, "1e%d", d);
        render_overlay_text(o, gx - 0.5f * render_overlay_text_width(o, line), top + row * count,
                            UI_DIM, line);
    }
    for (int i = 0; i < count; i++) {
        const ui_rung *r = &rungs[i];
        const float ry = top + row * i, bh = row - 0.3f * lh;
        render_overlay_text(o, x + pad, ry + 0.5f * (bh - lh), r->current ? UI_CURVE : UI_WHITE,
                            r->name);
        render_overlay_rect(o, bar_x, ry, bar_w, bh, TRACK);
        const float ty = ry + 0.5f * (bh - lh), tx = bar_x + 0.4f * lh;
        if (r->status == UI_RUNG_MEASURING) {
            render_overlay_text(o, tx, ty, UI_DIM, "measuring…");
            continue;
        }
        if (r->status == UI_RUNG_TOO_SLOW) {
            char est[32];
            step_time(r->ms, est, sizeof est);
            snprintf(line, sizeof line, "too slow at this N (about %s a step)", est);
            render_overlay_text(o, tx, ty, UI_DIM, line);
            continue;
        }
        if (r->status == UI_RUNG_NO_MEMORY) {
            render_overlay_text(o, tx, ty, UI_WARN, "no memory");
            continue;
        }
        const double frac = (log10(rates[i]) - lo10) / (hi10 - lo10);
        const float len = fmaxf(2, bar_w * (float)fmin(fmax(frac, 0), 1));
        render_overlay_rect(o, bar_x, ry, len, bh, r->current ? CURRENT : BAR);
        ui->bars[i][0] = bar_x, ui->bars[i][1] = ry, ui->bars[i][2] = len, ui->bars[i][3] = bh;
        row_text(rungs, i, rates, vs_prev, vs_first, f->lecture.on, line, sizeof line);
        render_overlay_text(o, tx, ty, UI_WHITE, line);
    }
    render_overlay_end(o);
}
