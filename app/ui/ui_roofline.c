/* ui_roofline.c - the ladder chart's second view (Shift+I): every rung at
 * its measured rate against the ceilings that bind it on this machine, a
 * roofline. Log-log: across, the rung's arithmetic intensity (interactions
 * per byte a block fetches from L2, sim_launch); up, interactions/s. The
 * memory roof is the diagonal DRAM bandwidth x intensity; the running rung's
 * issue, MUFU and schedulers' ceilings are horizontal lines, the other
 * rungs' binding ceilings short faint ones above their points; NVIDIA's DLI
 * pass line where N is 4,096 or 65,536. Every ceiling is sim/'s arithmetic
 * (sim_rung_ceilings), its formula in the legend; the rates are the chart's
 * own (ui_facts.rungs, measured by app_ladder.c). On the CPU backend the
 * same view puts the CPU's methods against its stated peak
 * (sim_cpu_ceiling), with no memory roof. This file also switches the
 * chart overlay between its views (ui_chart.c draws the bars).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

static const float PANEL[4] = {0.02f, 0.03f, 0.06f, 0.86f};
static const float PLOT[4] = {0.06f, 0.07f, 0.11f, 1.0f};
static const float ROOF[4] = {0.45f, 0.7f, 1.0f, 1.0f};     /* the memory roof */
static const float ISSUE[4] = {1.0f, 0.55f, 0.25f, 1.0f};   /* the running rung's issue */
static const float MUFU[4] = {0.85f, 0.45f, 0.95f, 1.0f};   /* ... MUFU */
static const float SCHED[4] = {1.0f, 0.85f, 0.4f, 1.0f};    /* ... schedulers */
static const float FAINT[4] = {1.0f, 1.0f, 1.0f, 0.35f};    /* the other rungs' ceilings */
static const float POINT[4] = {0.55f, 0.75f, 0.95f, 1.0f};  /* a rung */
static const float CURRENT[4] = {1.0f, 0.5f, 0.08f, 1.0f};  /* the running rung */
/* The DLI pass line: a green found nowhere else in the view, so that a test
 * can find it in a picture. */
static const float DLI[4] = {0.1f, 1.0f, 0.2f, 1.0f};

/* NVIDIA DLI's CUDA assessment passes above these (issue 28). */
static const struct {
    int n;
    double rate;
} DLI_PASS[] = {{4096, 3e10}, {65536, 3.25e11}};

bool ui_roof_place(const ui_roof_axes *ax, double intensity, double rate, float *px, float *py) {
    if (!(intensity > 0) || !(rate > 0) || !isfinite(intensity) || !isfinite(rate) ||
        !(ax->x_hi10 > ax->x_lo10) || !(ax->y_hi10 > ax->y_lo10)) {
        return false;
    }
    const double fx = (log10(intensity) - ax->x_lo10) / (ax->x_hi10 - ax->x_lo10);
    const double fy = (log10(rate) - ax->y_lo10) / (ax->y_hi10 - ax->y_lo10);
    *px = ax->x + ax->w * (float)fx;
    *py = ax->y + ax->h * (float)(1 - fy);
    return true;
}

void ui_chart_view_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    if (ui->chart_view == UI_CHART_CEILINGS) {
        ui_roofline_draw(ui, f, fb_width, fb_height);
    } else {
        ui_chart_draw(ui, f, fb_width, fb_height);
    }
}

void ui_chart_view_adjust(ui_state *ui, const ui_facts *f, int dir, char *msg, size_t len) {
    (void)dir; /* two views: either way switches */
    ui->chart_view = ui->chart_view == UI_CHART_BARS ? UI_CHART_CEILINGS : UI_CHART_BARS;
    const bool opened = !ui->shown[UI_OVERLAY_CHART];
    ui->shown[UI_OVERLAY_CHART] = true; /* the view is of the chart: show it */
    if (opened) ui_chart_toggled(ui, f, msg, len);
    const size_t used = strlen(msg);
    snprintf(msg + used, len - used, "%sladder chart: %s (Shift+I: %s)", used ? "; " : "",
             ui->chart_view == UI_CHART_CEILINGS ? "each rung against its ceilings"
                                                 : "bars of the measured rates",
             ui->chart_view == UI_CHART_CEILINGS ? "bars" : "ceilings");
}

/* A horizontal line at rate from x0 to x1 inside the plot (dashed: in
 * pieces); nothing when the rate is off the axes. */
static void hline(render_overlay *o, const ui_roof_axes *ax, double rate, float x0, float x1,
                  float thick, bool dashed, const float c[4]) {
    float px, py;
    if (!ui_roof_place(ax, 1, rate, &px, &py) || py < ax->y || py > ax->y + ax->h) return;
    x0 = fmaxf(x0, ax->x), x1 = fminf(x1, ax->x + ax->w);
    const float dash = dashed ? 3 * thick : x1 - x0;
    for (float x = x0; x < x1; x += dashed ? 2 * dash : dash) {
        render_overlay_rect(o, x, py - 0.5f * thick, fminf(dash, x1 - x), thick, c);
    }
}

/* The memory roof: y = bandwidth x intensity, in small squares along the
 * plot's width while it is inside. */
static void roof_line(render_overlay *o, const ui_roof_axes *ax, double bandwidth, float thick) {
    for (float x = ax->x; x < ax->x + ax->w; x += thick) {
        const double intensity = pow(10, ax->x_lo10 + (x - ax->x) / ax->w * (ax->x_hi10 - ax->x_lo10));
        float px, py;
        if (!ui_roof_place(ax, intensity, bandwidth * intensity, &px, &py)) return;
        if (py < ax->y) return; /* above the top from here on */
        if (py <= ax->y + ax->h) render_overlay_rect(o, px, py - 0.5f * thick, thick, thick, ROOF);
    }
}

/* Where the memory roof reaches rate (the x of its knee with a ceiling),
 * clamped to the plot. */
static float roof_x(const ui_roof_axes *ax, double bandwidth, double rate) {
    float px, py;
    if (bandwidth <= 0 || !ui_roof_place(ax, rate / bandwidth, rate, &px, &py)) return ax->x;
    return fminf(fmaxf(px, ax->x), ax->x + ax->w);
}

typedef struct rung_view {
    sim_variant variant;
    double rate;  /* measured, interactions/s; 0: none */
    bool ok;      /* ceilings known (GPU: an all-pairs kernel on a known device) */
    sim_ceilings c;
    double cpu_ceiling; /* CPU backend: the exact method's stated peak */
} rung_view;

/* Whether a label of w x h at (x, y) overlaps none of the boxes placed. */
static bool label_clear(float (*placed)[4], int count, float x, float y, float w, float h) {
    for (int k = 0; k < count; k++) {
        const float *b = placed[k];
        if (x < b[2] && x + w > b[0] && y < b[3] && y + h > b[1]) return false;
    }
    return true;
}

static void decade_range(double lo, double hi, double *lo10, double *hi10, int least) {
    *lo10 = floor(log10(lo));
    *hi10 = floor(log10(hi)) + 1;
    if (*hi10 - *lo10 < least) *lo10 = *hi10 - least;
}

void ui_roofline_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    const sim_params p = sim_get_params(f->sim);
    const bool cpu = p.backend == SIM_BACKEND_CPU;
    const int n = p.body_count;
    sim_variant methods[UI_RUNGS_MAX];
    const int known = sim_methods(p.backend, methods, UI_RUNGS_MAX);
    int count = f->rung_count < UI_RUNGS_MAX ? f->rung_count : UI_RUNGS_MAX;
    if (known < count) count = known;
    if (count <= 0) return;

    /* Each rung: its rate and ceilings at its block shape (the running
     * rung's own, the others' automatic one, as app_ladder.c times them). */
    rung_view r[UI_RUNGS_MAX];
    int running = -1, todo = 0;
    double cpu_flops = 0; /* the CPU's exact method's flops per interaction */
    double ylo = INFINITY, yhi = 0, xlo = INFINITY, xhi = 0;
    for (int i = 0; i < count; i++) {
        const ui_rung *u = &f->rungs[i];
        r[i] = (rung_view){.variant = methods[i]};
        r[i].rate = u->status == UI_RUNG_OK ? sim_pair_rate(n, u->ms) : 0;
        todo += u->status == UI_RUNG_MEASURING;
        if (u->current) running = i;
        const sim_method *m = sim_method_of(p.backend, methods[i]);
        if (cpu) {
            if (m && m->exact) {
                cpu_flops = m->flops_per_interaction;
                r[i].cpu_ceiling = sim_cpu_ceiling(f->roof.cpu, cpu_flops);
            }
        } else if (f->roof.gpu) {
            const sim_block b = u->current ? (sim_block){.p = p.p, .q = p.q}
                                           : sim_clamp_block(f->sim, methods[i], 0, 0);
            r[i].ok = sim_rung_ceilings(methods[i], n, b.p, b.q, f->roof.gpu, &r[i].c);
        }
        const double ys[] = {r[i].rate, r[i].cpu_ceiling,
                             r[i].ok ? r[i].c.value[SIM_CEILING_ISSUE] : 0,
                             r[i].ok ? r[i].c.value[SIM_CEILING_MUFU] : 0,
                             r[i].ok ? r[i].c.value[SIM_CEILING_SCHEDULERS] : 0};
        for (size_t k = 0; k < sizeof ys / sizeof ys[0]; k++) {
            if (ys[k] > 0 && isfinite(ys[k])) ylo = fmin(ylo, ys[k]), yhi = fmax(yhi, ys[k]);
        }
        if (r[i].ok && r[i].c.intensity > 0) {
            xlo = fmin(xlo, r[i].c.intensity), xhi = fmax(xhi, r[i].c.intensity);
        }
    }
    double dli = 0;
    for (size_t k = 0; k < sizeof DLI_PASS / sizeof DLI_PASS[0]; k++) {
        if (DLI_PASS[k].n == n) dli = DLI_PASS[k].rate;
    }
    if (dli > 0) ylo = fmin(ylo, dli), yhi = fmax(yhi, dli);
    ui_roof_axes ax = {0};
    if (yhi > 0) {
        decade_range(ylo, yhi, &ax.y_lo10, &ax.y_hi10, 2);
    } else {
        ax.y_lo10 = 9, ax.y_hi10 = 13;
    }
    if (xhi > 0) {
        decade_range(xlo, xhi, &ax.x_lo10, &ax.x_hi10, 3);
        ax.x_lo10 -= 1; /* room on the left for the memory roof to climb */
    } else {
        ax.x_lo10 = -1, ax.x_hi10 = 2;
    }

    /* The text: a title, the running rung's place, the formulas. */
    ui_lecture_layout lecture = {0}; /* lecture mode: the chart's place in its layout */
    if (f->lecture.on) ui_lecture_layout_of(f, fb_width, fb_height, &lecture);
    render_overlay_set_font_px(o, f->lecture.on ? lecture.font_px : ui_font_px(f));
    float lh = render_overlay_line_height(o), pad = 0.6f * lh, margin = 0.6f * lh;
    char nb[32], rate[32], bound[32];
    base_commas(n, nb, sizeof nb);
    ui_lines l = {.count = 0};
    ui_add(&l, UI_WHITE, "The ladder on its ceilings at N = %s, on %.200s", nb,
           f->device ? f->device : "this machine");
    const rung_view *run = running >= 0 ? &r[running] : NULL;
    if (run && run->rate > 0 && (run->ok || run->cpu_ceiling > 0)) {
        const double b = cpu ? run->cpu_ceiling : run->c.bound;
        ui_sci(run->rate, rate, sizeof rate);
        ui_sci(b, bound, sizeof bound);
        ui_add(&l, UI_CURVE, "%s: %s/s measured, %.0f %% of its %s ceiling (%s/s), the least",
               f->rungs[running].name, rate, 100 * run->rate / b,
               cpu ? "CPU" : sim_ceiling_name(run->c.binding), bound);
    } else if (run) {
        ui_add(&l, UI_CURVE, "%s: %s", f->rungs[running].name,
               run->rate > 0 ? "no ceiling known for it here" : "not measured yet");
    }
    if (cpu) {
        const sim_cpu_info *c = f->roof.cpu;
        if (c) {
            ui_add(&l, UI_DIM,
                   "CPU ceiling = CPUs × clock × FP64 lanes × 2 / flops per interaction = "
                   "%d × %.2f GHz × %d × 2 / %.0f",
                   c->cpus, c->clock_hz * 1e-9, c->fp64_lanes, cpu_flops);
        } else {
            ui_add(&l, UI_WARN, "CPU ceiling unknown: no clock in /sys or /proc/cpuinfo");
        }
        ui_add(&l, UI_DIM, "a peak (an add and a multiply a lane a cycle); no memory roof stated");
        ui_add(&l, UI_DIM, "across: the methods in order; up: interactions/s (log)");
    } else if (f->roof.gpu && f->lecture.on) {
        /* The lecture's column is narrow: the ceilings named in their colours,
         * the formulas left to the window's view and docs/PERFORMANCE.md. */
        ui_add(&l, ISSUE, "issue: SASS instructions per interaction");
        ui_add(&l, MUFU, "MUFU: rsqrt and reciprocal units");
        ui_add(&l, ROOF, "memory: bytes a block fetches from L2");
        ui_add(&l, SCHED, "schedulers: SMs and warp schedulers with work");
        ui_add(&l, UI_DIM, "across: interactions per byte; up: interactions/s");
    } else if (f->roof.gpu) {
        const sim_device_info *d = f->roof.gpu;
        ui_add(&l, ISSUE, "issue = %d SMs × 128 lanes × %.2f GHz / SASS instructions per interaction",
               d->sm_count, d->clock_khz * 1e-6);
        if (sim_mufu_lanes(d) > 0) {
            ui_add(&l, MUFU, "MUFU = %d SMs × %d lanes × clock / MUFU per interaction",
                   d->sm_count, sim_mufu_lanes(d));
        } else {
            ui_add(&l, MUFU, "MUFU: lanes unknown for compute capability %d.%d", d->cc_major,
                   d->cc_minor);
        }
        ui_sci(sim_dram_bandwidth(d), bound, sizeof bound);
        ui_add(&l, ROOF,
               "memory = %s B/s (memory clock × bus × 2) × interactions per byte a block "
               "fetches from L2",
               bound);
        ui_add(&l, SCHED, "schedulers = issue × blocks / (SMs × waves) × min(4, warps per SM) / 4");
        ui_add(&l, UI_DIM, "across: interactions per byte; up: interactions/s (log-log)");
    } else {
        ui_add(&l, UI_WARN, "no device numbers: the ceilings are unknown here");
    }
    for (int i = 0; i < count; i++) {
        if (r[i].rate > 0 && !r[i].ok && !cpu) {
            ui_sci(r[i].rate, rate, sizeof rate);
            ui_add(&l, UI_DIM, "%s: %s/s (N² equivalent), no all-pairs ceiling", f->rungs[i].name,
                   rate);
        }
    }
    if (todo > 0) ui_add(&l, UI_DIM, "%d of %d rungs still to time, one per frame", todo, count);

    float text_w = 0;
    for (int i = 0; i < l.count; i++) {
        text_w = fmaxf(text_w, render_overlay_text_width(o, l.line[i].text));
    }
    float w = fminf(fb_width - 2 * margin, fmaxf(0.55f * fb_width, text_w + 2 * pad));
    if (ui_frontier_shown(ui, f)) { /* the right half, the lines wrapped to it */
        w = ui_half_width(fb_width, margin);
        const ui_lines all = l;
        l.count = 0;
        for (int i = 0; i < all.count; i++) ui_wrap(o, &all.line[i], w - 2 * pad, 1, 2, &l);
    }
    const float plot_h = fmaxf(8 * lh, 0.4f * fb_height);
    float h = fminf(2 * pad + lh * (l.count + 1.6f) + plot_h, fb_height - 2 * margin - 2.4f * lh);
    /* Right and low, above the message line, as the bars: clear of the HUD. */
    float x = fb_width - margin - w, y = fmaxf(margin, fb_height - margin - 2.4f * lh - h);
    if (f->lecture.on) { /* its box, the lines wrapped to it, smaller until a plot fits */
        x = lecture.chart.x, y = lecture.chart.y, w = lecture.chart.w, h = lecture.chart.h;
        const ui_lines all = l;
        for (float px = lecture.font_px;; px = fmaxf(UI_MIN_PX, floorf(0.9f * px))) {
            render_overlay_set_font_px(o, px);
            lh = render_overlay_line_height(o), pad = 0.6f * lh;
            l.count = 0;
            for (int i = 0; i < all.count; i++) ui_wrap(o, &all.line[i], w - 2 * pad, 1, 2, &l);
            if (2 * pad + lh * (l.count + 1.6f) + 8 * lh <= h || px <= UI_MIN_PX) break;
        }
    }
    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w, h, PANEL);
    for (int i = 0; i < l.count; i++) {
        render_overlay_text(o, x + pad, y + pad + lh * i, l.line[i].color, l.line[i].text);
    }
    const float axis_w = render_overlay_text_width(o, "1e-10") + 0.5f * lh;
    ax.x = x + pad + axis_w;
    ax.y = y + pad + lh * (l.count + 0.4f);
    ax.w = x + w - pad - ax.x;
    ax.h = y + h - pad - 1.2f * lh - ax.y;
    if (ax.w < 4 * lh || ax.h < 3 * lh) {
        render_overlay_end(o);
        return; /* no room for a plot */
    }
    render_overlay_rect(o, ax.x, ax.y, ax.w, ax.h, PLOT);
    const float thick = fmaxf(2, 0.12f * lh);
    char label[128];
    for (int d = (int)ax.y_lo10; d <= (int)ax.y_hi10; d++) {
        float px = 0, py = 0;
        ui_roof_place(&ax, 1, pow(10, d), &px, &py);
        render_overlay_rect(o, ax.x, py, ax.w, 1, UI_GRID);
        snprintf(label, sizeof label, "1e%d", d);
        render_overlay_text(o, ax.x - 0.3f * lh - render_overlay_text_width(o, label),
                            py - 0.5f * lh, UI_DIM, label);
    }
    for (int d = (int)ax.x_lo10; !cpu && d <= (int)ax.x_hi10; d++) {
        float px = 0, py = 0;
        ui_roof_place(&ax, pow(10, d), 1, &px, &py);
        render_overlay_rect(o, px, ax.y, 1, ax.h, UI_GRID);
        snprintf(label, sizeof label, "1e%d", d);
        render_overlay_text(o, px - 0.5f * render_overlay_text_width(o, label), ax.y + ax.h,
                            UI_DIM, label);
    }
    if (cpu) {
        render_overlay_text(o, ax.x, ax.y + ax.h, UI_DIM, "methods, in the ladder's order");
    }

    /* The ceilings: the running rung's as lines, the others' as faint
     * strokes above their points; the memory roof. */
    float px = 0, py = 0;
    const double bw = run && run->ok ? run->c.bandwidth : 0;
    if (bw > 0) roof_line(o, &ax, bw, thick);
    for (int i = 0; i < count; i++) {
        if (cpu && r[i].cpu_ceiling > 0) {
            hline(o, &ax, r[i].cpu_ceiling, ax.x, ax.x + ax.w, thick, false, ISSUE);
            ui_sci(r[i].cpu_ceiling, rate, sizeof rate);
            snprintf(label, sizeof label, "CPU ceiling %s/s", rate);
            ui_roof_place(&ax, 1, r[i].cpu_ceiling, &px, &py);
            render_overlay_text(o, ax.x + ax.w - render_overlay_text_width(o, label) - 0.3f * lh,
                                py - 1.1f * lh, ISSUE, label);
            continue;
        }
        if (!r[i].ok) continue;
        if (i == running) {
            const sim_ceiling_kind kinds[] = {SIM_CEILING_ISSUE, SIM_CEILING_MUFU,
                                              SIM_CEILING_SCHEDULERS};
            const float *colors[] = {ISSUE, MUFU, SCHED};
            for (int k = 0; k < 3; k++) {
                const double v = r[i].c.value[kinds[k]];
                if (!(v > 0)) continue;
                const bool binds = r[i].c.binding == kinds[k];
                hline(o, &ax, v, roof_x(&ax, bw, v), ax.x + ax.w, binds ? 1.5f * thick : thick,
                      kinds[k] == SIM_CEILING_SCHEDULERS, colors[k]);
                ui_sci(v, rate, sizeof rate);
                snprintf(label, sizeof label, "%s %s%s", sim_ceiling_name(kinds[k]), rate,
                         binds ? " (binds)" : "");
                if (ui_roof_place(&ax, 1, v, &px, &py) && py >= ax.y && py <= ax.y + ax.h) {
                    render_overlay_text(o,
                                        ax.x + ax.w - render_overlay_text_width(o, label) -
                                            0.3f * lh,
                                        py - 1.05f * lh + (k == 2 ? 1.1f * lh : 0), colors[k],
                                        label);
                }
            }
        } else if (ui_roof_place(&ax, r[i].c.intensity, r[i].c.bound, &px, &py)) {
            hline(o, &ax, r[i].c.bound, px - 1.5f * lh, px + 1.5f * lh, thick, false, FAINT);
        }
    }
    if (dli > 0) {
        hline(o, &ax, dli, ax.x, ax.x + ax.w, thick, true, DLI);
        ui_sci(dli, rate, sizeof rate);
        snprintf(label, sizeof label, "NVIDIA DLI pass: %s/s at N = %s", rate, nb);
        ui_roof_place(&ax, 1, dli, &px, &py);
        render_overlay_text(o, ax.x + 0.4f * lh, py + 0.15f * lh, DLI, label);
    }

    /* The points, labelled, from the highest rate down: a label that would
     * overlap one placed before it goes left of its point, or else below
     * the labels in its way (rungs of one intensity stand in a column,
     * their rates close). */
    int order[UI_RUNGS_MAX];
    for (int i = 0; i < count; i++) order[i] = i;
    for (int i = 1; i < count; i++) { /* insertion sort by rate, descending */
        for (int k = i; k > 0 && r[order[k]].rate > r[order[k - 1]].rate; k--) {
            const int t = order[k];
            order[k] = order[k - 1], order[k - 1] = t;
        }
    }
    float placed[UI_RUNGS_MAX][4]; /* x0, y0, x1, y1 of the labels drawn */
    int placed_count = 0;
    const float dot = fmaxf(6, 0.5f * lh);
    for (int j = 0; j < count; j++) {
        const int i = order[j];
        if (!(r[i].rate > 0)) continue;
        if (cpu) {
            px = ax.x + ax.w * (float)(i + 1) / (float)(count + 1);
            if (!ui_roof_place(&ax, 1, r[i].rate, &(float){0}, &py)) continue;
        } else if (!r[i].ok || !ui_roof_place(&ax, r[i].c.intensity, r[i].rate, &px, &py)) {
            continue;
        }
        if (py < ax.y || py > ax.y + ax.h || px < ax.x || px > ax.x + ax.w) continue;
        const bool cur = i == running;
        render_overlay_rect(o, px - 0.5f * dot, py - 0.5f * dot, dot, dot, cur ? CURRENT : POINT);
        const sim_method *m = sim_method_of(p.backend, r[i].variant);
        snprintf(label, sizeof label, "%s%s", f->rungs[i].name,
                 m && !m->exact ? " (N² equivalent)" : "");
        const float lw = render_overlay_text_width(o, label);
        float lx = px + 0.6f * dot, ly = py - 0.5f * lh;
        /* Right of the point; else left of it; else below the labels in the
         * way, on the side that stays in the plot. */
        const float left = px - 0.6f * dot - lw;
        const bool fits_right = lx + lw <= ax.x + ax.w, fits_left = left >= ax.x;
        bool clear = fits_right && label_clear(placed, placed_count, lx, ly, lw, lh);
        if (!clear && fits_left && label_clear(placed, placed_count, left, ly, lw, lh)) {
            lx = left;
            clear = true;
        }
        if (!clear && !fits_right && fits_left) lx = left;
        for (bool moved = !clear; moved;) {
            moved = false;
            for (int k = 0; k < placed_count; k++) {
                const float *b = placed[k];
                if (lx < b[2] && lx + lw > b[0] && ly < b[3] && ly + lh > b[1]) {
                    ly = b[3];
                    moved = true;
                }
            }
        }
        placed[placed_count][0] = lx, placed[placed_count][1] = ly;
        placed[placed_count][2] = lx + lw, placed[placed_count][3] = ly + lh;
        placed_count++;
        render_overlay_text(o, lx, ly, cur ? CURRENT : UI_WHITE, label);
    }
    render_overlay_end(o);
}
