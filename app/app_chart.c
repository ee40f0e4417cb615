/* app_chart.c - the ladder chart (I) and the energy sparkline in the HUD.
 *
 * The chart is seed 000's table of speedups, live, for a lecture: one bar
 * per rung of the kernel ladder (on the CPU backend its two methods, the
 * exact reference and the tree) with the interactions/s measured on this
 * machine at the current N, the running rung highlighted, and on each bar
 * its speedup over the previous rung and over the first. Every bar is
 * N^2 / step time, the tree's too ("N^2 equivalent"), so the speedups
 * compare step times at the same N.
 *
 * Measured live: the running method's own step time is recorded every frame
 * it steps; while the chart is open, each rung with no result at this N is
 * timed, one per frame so the window stays responsive, on a temporary sim
 * seeded with a copy of the current bodies (the running simulation is only
 * read). A rung whose step would take longer than ~1 s (naive at a million
 * bodies) is not run: its estimate, from a time measured at a smaller N
 * (a pilot on a subset of the bodies where there is none yet), says so.
 * Results are kept per (variant, N), so a rung is timed once per N.
 *
 * The sparkline plots the energy error (E - E0) / |E0| against simulated
 * time from the samples app.c takes, so a damping or time-step change is
 * seen as a change of slope, not read as a number.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define CHART_TARGET_MS 35.0 /* a timed run of ~20-50 ms ... */
#define CHART_ONE_STEP_MS 20.0 /* ... or of one step, when a step is slower */
#define CHART_CAP_MS 1000.0    /* the most one rung's timing may take (app_chart.cap_ms) */
#define CHART_MAX_STEPS 100000 /* tiny N: steps are microseconds */
#define CHART_PILOT_N 4096     /* first estimate of a rung from a subset this large: */
#define CHART_PILOT_N_CPU 1024 /* ~10 ms of the CPU reference where 4096 would take ~0.2 s */
#define CHART_PILOT_GROW 4     /* then subsets this much larger, while they fit the cap */
#define CHART_LIVE_WEIGHT 0.2  /* a new live step time's weight against the kept one */
#define CHART_BASE_PX 17.0f    /* as the HUD's, so both share the font size */

static const float WHITE[4] = {0.92f, 0.94f, 1.0f, 1.0f};
static const float DIM[4] = {0.62f, 0.68f, 0.78f, 1.0f};
static const float WARN[4] = {1.0f, 0.62f, 0.25f, 1.0f};
static const float PANEL[4] = {0.02f, 0.03f, 0.06f, 0.86f};
static const float TRACK[4] = {0.12f, 0.14f, 0.2f, 1.0f};
static const float BAR[4] = {0.2f, 0.4f, 0.64f, 1.0f};     /* a rung */
static const float CURRENT[4] = {0.8f, 0.5f, 0.08f, 1.0f}; /* the running rung */
static const float GRID[4] = {1.0f, 1.0f, 1.0f, 0.16f};
static const float CURVE[4] = {1.0f, 0.85f, 0.4f, 1.0f};

/* ---- results -------------------------------------------------------------- */

static bool cpu_backend(const app *a) {
    return sim_get_params(a->sim).backend == SIM_BACKEND_CPU;
}

/* The variant a result is kept under: on the CPU all but the tree are one method. */
static sim_variant rung_of(const app *a, sim_variant v) {
    return cpu_backend(a) && v != SIM_VARIANT_TREE ? SIM_VARIANT_BEST : v;
}

static const char *rung_name(const app *a, sim_variant v) {
    if (v == SIM_VARIANT_TREE) return "tree";
    return cpu_backend(a) ? "reference" : sim_variant_info(v)->name;
}

int app_chart_rungs(const app *a, sim_variant out[SIM_VARIANT_COUNT]) {
    if (cpu_backend(a)) {
        out[0] = SIM_VARIANT_BEST;
        out[1] = SIM_VARIANT_TREE;
        return 2;
    }
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) out[v - 1] = (sim_variant)v;
    return SIM_VARIANT_COUNT - 1;
}

const app_rung_result *app_chart_result(const app *a, sim_variant v, int n) {
    const app_chart *c = &a->chart;
    for (int i = 0; i < c->result_count; i++) {
        if (c->results[i].variant == v && c->results[i].n == n) return &c->results[i];
    }
    return NULL;
}

/* Keeps a result, replacing the one for (variant, n) or else the least recent. */
static void store(app *a, app_rung_result r) {
    app_chart *c = &a->chart;
    r.when = app_now();
    int slot = -1;
    for (int i = 0; i < c->result_count && slot < 0; i++) {
        if (c->results[i].variant == r.variant && c->results[i].n == r.n) slot = i;
    }
    if (slot < 0 && c->result_count < APP_CHART_RESULTS) slot = c->result_count++;
    if (slot < 0) {
        slot = 0;
        for (int i = 1; i < c->result_count; i++) {
            if (c->results[i].when < c->results[slot].when) slot = i;
        }
    }
    c->results[slot] = r;
}

double app_chart_interactions_per_s(int n, double ms) {
    return ms > 0 ? (double)n * (double)n / (ms * 1e-3) : 0;
}

void app_chart_speedups(const double *ips, int count, double *vs_prev, double *vs_first) {
    for (int i = 0; i < count; i++) {
        const bool known = ips[i] > 0 && isfinite(ips[i]);
        const bool prev = i > 0 && ips[i - 1] > 0 && isfinite(ips[i - 1]);
        const bool first = ips[0] > 0 && isfinite(ips[0]);
        vs_prev[i] = known && prev ? ips[i] / ips[i - 1] : 0;
        vs_first[i] = known && first ? ips[i] / ips[0] : 0;
    }
}

double app_chart_estimate_ms(bool tree, int n_from, double ms_from, int n_to) {
    const double from = n_from, to = n_to;
    if (tree) { /* N log N; log2 of at least 2 keeps tiny N finite */
        return ms_from * (to * log2(fmax(to, 2))) / (from * log2(fmax(from, 2)));
    }
    return ms_from * (to / from) * (to / from);
}

/* ---- timing ---------------------------------------------------------------- */

/* The running method's own step time, whenever it has stepped since the
 * last frame with the same bodies, method and N (a change of either is a
 * frame late in the CUDA events, so that frame is skipped). */
static void record_running(app *a) {
    const sim_params p = sim_get_params(a->sim);
    app_chart *c = &a->chart;
    const bool same =
        p.generation == c->seen_generation && p.variant == c->seen_variant && p.body_count == c->seen_n;
    const float ms = sim_last_step_ms(a->sim);
    if (same && p.steps > c->seen_steps && ms > 0) {
        const sim_variant v = rung_of(a, p.variant);
        const app_rung_result *old = app_chart_result(a, v, p.body_count);
        double kept = ms;
        if (old && old->live && old->status == APP_RUNG_OK) { /* steadier figures on the bars */
            kept = (1 - CHART_LIVE_WEIGHT) * old->ms + CHART_LIVE_WEIGHT * ms;
        }
        store(a, (app_rung_result){.variant = v, .n = p.body_count, .status = APP_RUNG_OK,
                                   .ms = kept, .live = true});
    }
    c->seen_generation = p.generation;
    c->seen_variant = p.variant;
    c->seen_n = p.body_count;
    c->seen_steps = p.steps;
}

static double cap_ms(const app *a) {
    return a->chart.cap_ms > 0 ? a->chart.cap_ms : CHART_CAP_MS;
}

/* Times rung v on a copy of n of the current bodies (every N/n-th, masses
 * scaled to keep the total) and keeps the result at n; a failure to make the
 * copy marks (v, n_key) "no memory". */

static void time_rung(app *a, sim_variant v, int n_key, int n) {
    const sim_params p = sim_get_params(a->sim);
    const int all = p.body_count;
    sim_body *bodies = malloc(sizeof *bodies * (size_t)all);
    sim *tmp = NULL;
    sim_error err = {0};
    snprintf(err.message, sizeof err.message, "no memory for a copy of %d bodies", all);
    if (bodies) {
        sim_get_bodies(a->sim, bodies);
        if (n < all) {
            const double scale = (double)all / n;
            for (int i = 0; i < n; i++) {
                bodies[i] = bodies[(size_t)i * (size_t)all / (size_t)n];
                bodies[i].mass *= scale;
            }
        }
        /* The running desc and knobs with method v. Made with a few Plummer
         * bodies (cheap) and then given the copies. */
        sim_desc d = a->scene_desc;
        d.ic = SIM_IC_PLUMMER;
        d.body_count = 64;
        d.backend = p.backend;
        d.variant = v;
        d.dt = p.dt;
        d.softening = p.softening;
        d.damping = p.damping;
        d.theta = p.theta;
        d.p = v == p.variant ? p.p : 0;
        d.q = v == p.variant ? p.q : 0;
        tmp = sim_create(&d, &err);
        if (tmp && !sim_set_bodies(tmp, bodies, n, &err)) {
            sim_destroy(tmp);
            tmp = NULL;
        }
    }
    free(bodies);
    if (!tmp) {
        store(a, (app_rung_result){.variant = v, .n = n_key, .status = APP_RUNG_NO_MEMORY});
        app_message(a, "ladder chart: %s not timed at N = %d: %s", rung_name(a, v), n, err.message);
        return;
    }
    /* The first step warms up (allocations, first launches) and sizes the run. */
    const double probe = sim_step_timed(tmp, 1);
    double ms = probe;
    if (probe < CHART_ONE_STEP_MS) {
        const double steps = ceil(CHART_TARGET_MS / fmax(probe, 1e-4));
        ms = sim_step_timed(tmp, (int)fmin(steps, CHART_MAX_STEPS));
    } else if (2 * probe <= cap_ms(a)) {
        ms = sim_step_timed(tmp, 1);
    }
    sim_destroy(tmp);
    store(a, (app_rung_result){.variant = v, .n = n, .status = APP_RUNG_OK, .ms = ms});
}

/* The result of v nearest to n in log N, among those measured at another N. */
static const app_rung_result *nearest(const app *a, sim_variant v, int n) {
    const app_rung_result *best = NULL;
    double best_d = INFINITY;
    for (int i = 0; i < a->chart.result_count; i++) {
        const app_rung_result *r = &a->chart.results[i];
        if (r->variant != v || r->n == n || r->status != APP_RUNG_OK) continue;
        const double d = fabs(log((double)r->n / n));
        if (d < best_d) best = r, best_d = d;
    }
    return best;
}

/* Does one rung's worth of timing for the first rung with no result at this
 * N: time it, or first a subset to estimate it from, or mark it too slow
 * from an estimate (no time spent: then on to the next rung). */
static void measure_next(app *a) {
    const int n = sim_get_params(a->sim).body_count;
    sim_variant rungs[SIM_VARIANT_COUNT];
    const int count = app_chart_rungs(a, rungs);
    for (int i = 0; i < count; i++) {
        const sim_variant v = rungs[i];
        if (app_chart_result(a, v, n)) continue;
        const bool tree = v == SIM_VARIANT_TREE;
        const app_rung_result *near = nearest(a, v, n);
        if (!near) {
            const int pilot = cpu_backend(a) ? CHART_PILOT_N_CPU : CHART_PILOT_N;
            time_rung(a, v, n, n <= pilot ? n : pilot);
            return;
        }
        const double est = app_chart_estimate_ms(tree, near->n, near->ms, n);
        if (est <= cap_ms(a)) {
            time_rung(a, v, n, n);
            return;
        }
        /* Too slow from afar: estimate again from closer, while a closer subset fits. */
        const int closer = near->n <= n / CHART_PILOT_GROW ? near->n * CHART_PILOT_GROW : n;
        if (closer < n && app_chart_estimate_ms(tree, near->n, near->ms, closer) <= cap_ms(a)) {
            time_rung(a, v, n, closer);
            return;
        }
        store(a, (app_rung_result){.variant = v, .n = n, .status = APP_RUNG_TOO_SLOW, .ms = est});
    }
}

void app_chart_update(app *a) {
    record_running(a);
    if (a->chart.open) measure_next(a);
}

void app_chart_toggle(app *a) {
    app_chart *c = &a->chart;
    c->open = !c->open;
    if (!c->open) {
        app_message(a, "ladder chart closed");
        return;
    }
    const sim_params p = sim_get_params(a->sim);
    sim_device_info dev;
    if (p.backend == SIM_BACKEND_CUDA && sim_cuda_device_info(a->cfg.sim.device, &dev)) {
        snprintf(c->device, sizeof c->device, "%s", dev.name);
    } else {
        snprintf(c->device, sizeof c->device, "the CPU backend");
    }
    sim_variant rungs[SIM_VARIANT_COUNT];
    const int count = app_chart_rungs(a, rungs);
    int todo = 0;
    for (int i = 0; i < count; i++) todo += app_chart_result(a, rungs[i], p.body_count) == NULL;
    app_message(a, "ladder chart at N = %d: %d of %d rungs to time, one per frame (I closes)",
                p.body_count, todo, count);
}

/* ---- drawing --------------------------------------------------------------- */

/* 2.04e12 -> "2.04e12" (no "+", no leading zeros in the exponent). */
static void sci(double v, char *out, size_t len) {
    const int e = v > 0 ? (int)floor(log10(v)) : 0;
    const double m = v / pow(10, e);
    snprintf(out, len, "%.3ge%d", m >= 9.995 ? m / 10 : m, m >= 9.995 ? e + 1 : e);
}

static void step_time(double ms, char *out, size_t len) {
    if (ms >= 1000) {
        snprintf(out, len, "%.3g s", ms * 1e-3);
    } else {
        snprintf(out, len, "%.3g ms", ms);
    }
}

static void draw_chart(app *a, int fb_width, int fb_height) {
    render_overlay *o = a->overlay;
    app_chart *c = &a->chart;
    memset(c->bar, 0, sizeof c->bar);
    const sim_params p = sim_get_params(a->sim);
    const bool cpu = p.backend == SIM_BACKEND_CPU;
    sim_variant rungs[SIM_VARIANT_COUNT];
    const int count = app_chart_rungs(a, rungs);
    double ips[SIM_VARIANT_COUNT], vs_prev[SIM_VARIANT_COUNT], vs_first[SIM_VARIANT_COUNT];
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < count; i++) {
        const app_rung_result *r = app_chart_result(a, rungs[i], p.body_count);
        ips[i] = r && r->status == APP_RUNG_OK ? app_chart_interactions_per_s(r->n, r->ms) : 0;
        if (ips[i] > 0 && isfinite(ips[i])) lo = fmin(lo, ips[i]), hi = fmax(hi, ips[i]);
    }
    app_chart_speedups(ips, count, vs_prev, vs_first);
    /* Log scale from the decade below the slowest: the ladder spans orders
     * of magnitude, and the slowest rung still gets a bar. */
    const double lo10 = hi > 0 ? floor(log10(lo)) - (lo == hi ? 1 : 0) : 0;
    const double hi10 = hi > 0 ? log10(hi) : 1;

    const float scale = a->fe.content_scale * (a->cfg.hud_scale > 0 ? a->cfg.hud_scale : 1.0f);
    render_overlay_set_font_px(o, roundf(CHART_BASE_PX * scale));
    const float lh = render_overlay_line_height(o), pad = 0.6f * lh, row = 1.45f * lh;
    const float margin = 0.6f * lh;
    float label_w = 0;
    for (int i = 0; i < count; i++) {
        label_w = fmaxf(label_w, render_overlay_text_width(o, rung_name(a, rungs[i])));
    }
    label_w += lh;
    char n[32], line[sizeof c->device + 96];
    app_with_commas(p.body_count, n, sizeof n);
    snprintf(line, sizeof line, "The ladder at N = %s, measured live on %s", n, c->device);
    const char *const lines[] = {
        line,
        "bars: N²/step time in interactions/s, log scale; for the tree an N² equivalent,",
        "so each speedup (×) compares step times at the same N",
        "the kernel ladder is a GPU feature; the CPU backend has the exact reference and the tree",
    };
    const float *const colors[] = {WHITE, DIM, DIM, WARN};
    const int head = cpu ? 4 : 3;
    float text_w = 0;
    for (int i = 0; i < head; i++) text_w = fmaxf(text_w, render_overlay_text_width(o, lines[i]));
    const float w = fminf(fb_width - 2 * margin, fmaxf(0.5f * fb_width, text_w + 2 * pad));
    const float h = 2 * pad + lh * head + 0.4f * lh + row * count + 1.2f * lh;
    /* Right and low, above the message line: clear of the HUD where the screen allows. */
    const float x = fb_width - margin - w, y = fmaxf(margin, fb_height - margin - 2.4f * lh - h);
    const float bar_x = x + pad + label_w, bar_w = w - 2 * pad - label_w;

    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w, h, PANEL);
    for (int i = 0; i < head; i++) render_overlay_text(o, x + pad, y + pad + lh * i, colors[i], lines[i]);
    const float top = y + pad + lh * head + 0.4f * lh;
    /* Decade lines under the bars. */
    for (int d = (int)lo10; hi > 0 && d <= (int)ceil(hi10) && hi10 - lo10 < 12; d++) {
        const float gx = bar_x + bar_w * (float)((d - lo10) / (hi10 - lo10));
        if (gx > bar_x + bar_w + 1) break;
        render_overlay_rect(o, gx, top, 1, row * count, GRID);
        snprintf(line, sizeof line, "1e%d", d);
        render_overlay_text(o, gx - 0.5f * render_overlay_text_width(o, line), top + row * count,
                            DIM, line);
    }
    for (int i = 0; i < count; i++) {
        const sim_variant v = rungs[i];
        const bool current = rung_of(a, p.variant) == v;
        const float ry = top + row * i, bh = row - 0.3f * lh;
        const app_rung_result *r = app_chart_result(a, v, p.body_count);
        render_overlay_text(o, x + pad, ry + 0.5f * (bh - lh), current ? CURVE : WHITE,
                            rung_name(a, v));
        render_overlay_rect(o, bar_x, ry, bar_w, bh, TRACK);
        const float ty = ry + 0.5f * (bh - lh), tx = bar_x + 0.4f * lh;
        if (!r) {
            render_overlay_text(o, tx, ty, DIM, "measuring…");
            continue;
        }
        if (r->status == APP_RUNG_TOO_SLOW) {
            char est[32];
            step_time(r->ms, est, sizeof est);
            snprintf(line, sizeof line, "too slow at this N (about %s a step)", est);
            render_overlay_text(o, tx, ty, DIM, line);
            continue;
        }
        if (r->status == APP_RUNG_NO_MEMORY) {
            render_overlay_text(o, tx, ty, WARN, "no memory");
            continue;
        }
        const double f = (log10(ips[i]) - lo10) / (hi10 - lo10);
        const float len = fmaxf(2, bar_w * (float)fmin(fmax(f, 0), 1));
        render_overlay_rect(o, bar_x, ry, len, bh, current ? CURRENT : BAR);
        c->bar[i][0] = bar_x, c->bar[i][1] = ry, c->bar[i][2] = len, c->bar[i][3] = bh;
        char rate[32], ms[32], sp[96] = "";
        sci(ips[i], rate, sizeof rate);
        step_time(r->ms, ms, sizeof ms);
        if (i > 0) {
            char prev[40] = "", first[40] = "";
            if (vs_prev[i] > 0) snprintf(prev, sizeof prev, "   ×%.3g vs %s", vs_prev[i],
                                         rung_name(a, rungs[i - 1]));
            if (i > 1 && vs_first[i] > 0)
                snprintf(first, sizeof first, "   ×%.3g vs %s", vs_first[i], rung_name(a, rungs[0]));
            snprintf(sp, sizeof sp, "%s%s", prev, first);
        }
        snprintf(line, sizeof line, "%s/s  %s%s%s", rate, ms,
                 !r->live ? "" : current ? " (running)" : " (its last run)", sp);
        render_overlay_text(o, tx, ty, WHITE, line);
    }
    render_overlay_end(o);
}

void app_chart_frame(app *a, int fb_width, int fb_height) {
    app_chart_update(a);
    if (a->chart.open && !a->view.help) draw_chart(a, fb_width, fb_height);
}

/* ---- the sparkline --------------------------------------------------------- */

void app_spark_reset(app_spark *s) {
    s->count = 0;
    s->next = 0;
}

void app_spark_push(app_spark *s, double t, double de) {
    /* Time running backwards means new bodies (a snapshot, a reset): start over. */
    double last_t, last_de;
    if (app_spark_get(s, s->count - 1, &last_t, &last_de) && t < last_t) app_spark_reset(s);
    s->t[s->next] = t;
    s->de[s->next] = de;
    s->next = (s->next + 1) % APP_SPARK_SAMPLES;
    if (s->count < APP_SPARK_SAMPLES) s->count++;
}

bool app_spark_get(const app_spark *s, int i, double *t, double *de) {
    if (i < 0 || i >= s->count) return false;
    const int k = (s->next - s->count + i + APP_SPARK_SAMPLES) % APP_SPARK_SAMPLES;
    *t = s->t[k];
    *de = s->de[k];
    return true;
}

void app_spark_sample(app *a) {
    const app_live *l = &a->live;
    if (!l->diag_valid || !l->energy0_valid || !isfinite(l->diag.total)) return;
    const double de = l->energy0 != 0 ? (l->diag.total - l->energy0) / fabs(l->energy0) : 0;
    app_spark_push(&a->chart.spark, sim_get_params(a->sim).time, de);
}

void app_spark_draw(app *a, float x, float y, float w, float h) {
    const app_spark *s = &a->chart.spark;
    if (s->count < 2) return;
    render_overlay *o = a->overlay;
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    if (w <= 0) w = 22 * lh;
    if (h <= 0) h = 4.5f * lh;
    double t0 = 0, t1 = 0, de = 0, now = 0, range = 0;
    app_spark_get(s, 0, &t0, &de);
    app_spark_get(s, s->count - 1, &t1, &now);
    for (int i = 0; i < s->count; i++) {
        double t;
        app_spark_get(s, i, &t, &de);
        range = fmax(range, fabs(de));
    }
    /* The range rounded up to one significant digit: a bound the curve stays within. */
    if (range > 0) {
        const double unit = pow(10, floor(log10(range)));
        range = ceil(range / unit * (1 - 1e-12)) * unit;
    }
    render_overlay_rect(o, x, y, w, h, PANEL);
    char line[128], r[32];
    snprintf(r, sizeof r, "%.1g", range);
    snprintf(line, sizeof line, "ΔE/E₀ %+.2e   t %.3g to %.3g   ±%s", now, t0, t1,
             range > 0 ? r : "0");
    render_overlay_text(o, x + pad, y + pad * 0.5f, WHITE, line);
    /* The plot: zero in the middle, ±range at the edges. */
    const float px = x + pad, pw = w - 2 * pad, py = y + pad * 0.5f + lh + 0.25f * lh;
    const float ph = y + h - pad * 0.5f - py, mid = py + 0.5f * ph;
    render_overlay_rect(o, px, mid, pw, 1, GRID);
    const double span = t1 > t0 ? t1 - t0 : 1;
    const float thick = fmaxf(1.5f, 0.1f * lh);
    float last_x = 0, last_y = 0;
    for (int i = 0; i < s->count; i++) {
        double t;
        app_spark_get(s, i, &t, &de);
        const float cx = px + pw * (float)((t - t0) / span);
        const float cy = mid - 0.5f * ph * (float)(range > 0 ? de / range : 0);
        if (i > 0) { /* a step: across at the old value, then up or down */
            render_overlay_rect(o, last_x, last_y - 0.5f * thick, fmaxf(cx - last_x, 1), thick,
                                CURVE);
            render_overlay_rect(o, cx - 0.5f * thick, fminf(cy, last_y) - 0.5f * thick, thick,
                                fabsf(cy - last_y) + thick, CURVE);
        }
        last_x = cx;
        last_y = cy;
    }
}
