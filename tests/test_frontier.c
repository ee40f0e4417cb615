/* test_frontier.c - the tree's accuracy-speed frontier (Shift+X), CPU
 * backend, through the real frame (app_frame) in an offscreen EGL context
 * as the headless front-end runs it.
 *
 * A --script line presses Shift+X at frame 0 of a running tree simulation;
 * the sweep then measures a point a frame. Checked: both series are
 * measured; errors fall as theta falls and as alpha falls; each point's
 * errors equal a direct sim_measure_force_error at its setting on the same
 * bodies with the same sample; the exact kernel's time is there; the
 * running simulation's bodies after the sweep are bit-identical to those
 * of the same run without it; Shift+X stops a sweep, closes the view and
 * sweeps anew. The picture: the panel left and low, clear of the chart,
 * each point's markers in its series' colour, the exact line drawn; at
 * 1280x720 and 960x540 everything the frontier and the chart (bars and
 * ceilings) drew, text included, in the window, each in its own half.
 *
 *     test_frontier
 */
#include <GLFW/glfw3.h> /* key codes */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_util.h"

/* The projector's size the view is made for; there the chart (right,
 * low) takes the right half of the window. */
#define W 1920
#define H 1080
#define N 2000 /* a few thousand bodies: a CPU tree step is milliseconds */

static app *make_app(const char *script) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = N, .variant = SIM_VARIANT_TREE},
                  .steps_per_frame = 1,
                  .headless = true,
                  .script = script,
                  .width = W,
                  .height = H};
    cfg.given[CONFIG_KNOB_N] = cfg.given[CONFIG_KNOB_VARIANT] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    if (!app_gl_begin(a, true)) exit(1);
    return a;
}

static sim_body *bodies_of(sim *s) {
    sim_body *b = malloc(sizeof *b * N);
    if (!b) exit(1);
    sim_get_bodies(s, b);
    return b;
}

/* The force error of the tree at (theta, alpha) on bodies, measured directly. */
static sim_force_error direct(const sim_body *bodies, const sim_params *p, double theta,
                              double alpha) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .variant = SIM_VARIANT_TREE,
                                 .body_count = 64,
                                 .dt = p->dt,
                                 .softening = p->softening,
                                 .theta = theta,
                                 .tree_alpha = alpha > 0 ? alpha : -1});
    test_set_bodies(s, bodies, N);
    sim_force_error fe = {0};
    sim_error err = {0};
    CHECK(sim_measure_force_error(s, APP_FRONTIER_SAMPLES, APP_FRONTIER_SEED, &fe, &err),
          "direct measurement: %s", err.message);
    sim_destroy(s);
    return fe;
}

/* Errors along a series, in the order swept (the setting rising): each
 * larger than the last. Every point is measured on the same bodies and the
 * same sampled bodies, so the comparison is of settings, not of samples:
 * a larger opening angle or tolerance accepts more cells (a superset), and
 * the quantiles of the sample rise with it. */
static void check_rising(const app_frontier *fr, ui_frontier_series series, const char *name) {
    double last_median = 0, last_p99 = 0;
    int seen = 0;
    for (int i = 0; i < fr->count; i++) {
        const ui_frontier_point *p = &fr->points[i];
        if (p->series != series) continue;
        CHECK(p->median > last_median && p->p99 > last_p99,
              "%s series: theta %g alpha %g: median %.3g p99 %.3g, after %.3g %.3g", name,
              p->theta, p->alpha, p->median, p->p99, last_median, last_p99);
        CHECK(p->ms > 0 && p->interactions_per_body > 0, "%s: timed (%g ms, %g per body)", name,
              p->ms, p->interactions_per_body);
        last_median = p->median, last_p99 = p->p99;
        seen++;
    }
    CHECK(seen >= 5, "%s series: %d points", name, seen);
}

static uint32_t rgb_at(const uint8_t *px, float x, float y) {
    const int xi = (int)x, yi = (int)y;
    if (xi < 0 || yi < 0 || xi >= W || yi >= H) return 0xffffffffu;
    const uint8_t *p = px + ((size_t)yi * W + xi) * 4; /* rows top-down (render_read_pixels) */
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t rgb_of(const float c[3]) {
    return (uint32_t)(c[0] * 255 + 0.5f) << 16 | (uint32_t)(c[1] * 255 + 0.5f) << 8 |
           (uint32_t)(c[2] * 255 + 0.5f);
}

static bool near_rgb(uint32_t a, uint32_t b) {
    for (int s = 0; s < 24; s += 8) {
        if (abs((int)(a >> s & 255) - (int)(b >> s & 255)) > 3) return false;
    }
    return true;
}

/* At smaller windows, beside the chart's bars (I) and its ceilings view
 * (Shift+I): all they drew (text included, ui_draw's boxes) inside the
 * window, the frontier in the left half, the chart right of it. */
static bool overlap(const float *a, const float *b) {
    return a[2] > 0 && b[2] > 0 && a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] &&
           b[1] < a[1] + a[3];
}

static void check_layout(app *a) {
    /* At 1920 x 1080 the code panel (') finds room in the right half, above
     * the chart, instead of covering the HUD. */
    if (!a->ui.shown[UI_OVERLAY_CHART]) app_key(a, GLFW_KEY_I, 0);
    a->ui.chart_view = UI_CHART_BARS;
    app_key(a, GLFW_KEY_APOSTROPHE, 0);
    app_frame(a, W, H);
    const float *code = a->ui.code.box, *hud = a->ui.code.drawn[UI_OVERLAY_HUD];
    const float *front = a->ui.code.drawn[UI_OVERLAY_FRONTIER];
    const float *chart = a->ui.code.drawn[UI_OVERLAY_CHART];
    CHECK(code[2] > 0 && hud[2] > 0 && !overlap(code, hud) && !overlap(code, front) &&
              !overlap(code, chart),
          "the code panel (%.0f, %.0f, %.0f x %.0f) clear of the HUD, frontier and chart", code[0],
          code[1], code[2], code[3]);
    app_key(a, GLFW_KEY_APOSTROPHE, 0);
    static const int sizes[][2] = {{1280, 720}, {960, 540}};
    if (!a->ui.shown[UI_OVERLAY_CHART]) app_key(a, GLFW_KEY_I, 0);
    for (int s = 0; s < 2; s++) {
        for (int view = 0; view < 2; view++) {
            const int w = sizes[s][0], h = sizes[s][1];
            app_frame(a, w, h);
            const float *fb = a->ui.code.drawn[UI_OVERLAY_FRONTIER];
            const float *cb = a->ui.code.drawn[UI_OVERLAY_CHART];
            const char *what = a->ui.chart_view == UI_CHART_CEILINGS ? "ceilings" : "bars";
            CHECK(fb[2] > 0 && cb[2] > 0, "%dx%d, %s: both drawn", w, h, what);
            CHECK(fb[0] >= 0 && fb[0] + fb[2] <= 0.5f * w, "%dx%d, %s: frontier x %.0f to %.0f", w,
                  h, what, fb[0], fb[0] + fb[2]);
            CHECK(cb[0] >= fb[0] + fb[2] && cb[0] + cb[2] <= w && cb[1] >= 0 && cb[1] + cb[3] <= h,
                  "%dx%d, %s: chart x %.0f to %.0f, y %.0f to %.0f, beside the frontier to %.0f", w,
                  h, what, cb[0], cb[0] + cb[2], cb[1], cb[1] + cb[3], fb[0] + fb[2]);
            app_key(a, GLFW_KEY_I, GLFW_MOD_SHIFT); /* the other view of the chart */
        }
    }
}

static void check_picture(app *a) {
    app_key(a, GLFW_KEY_I, 0); /* the chart too: the panels must not overlap */
    a->ladder.cap_ms = 1e9;
    app_frame(a, W, H);
    uint8_t *px = malloc((size_t)W * H * 4);
    if (!px) exit(1);
    render_read_pixels(a->render, W, H, px);
    const ui_frontier_drawn *d = &a->ui.frontier_drawn;
    const float *pn = d->panel;
    CHECK(pn[2] > 0.25f * W && pn[3] > 0.3f * H, "the panel drawn: %.0f x %.0f", pn[2], pn[3]);
    CHECK(pn[0] < 0.05f * W && pn[0] + pn[2] <= 0.5f * W, "left: x %.0f to %.0f", pn[0],
          pn[0] + pn[2]);
    CHECK(pn[1] + pn[3] > 0.8f * H && pn[1] > 0.3f * H, "low: y %.0f to %.0f", pn[1],
          pn[1] + pn[3]);
    for (int i = 0; i < UI_RUNGS_MAX; i++) {
        const float *b = a->ui.bars[i];
        if (b[2] <= 0) continue;
        CHECK(b[0] >= pn[0] + pn[2], "chart bar %d at x %.0f, right of the panel (%.0f)", i, b[0],
              pn[0] + pn[2]);
    }
    /* The series' colours (ui_frontier.c): theta blue, alpha orange. */
    const float theta_rgb[3] = {0.3f, 0.65f, 1.0f}, alpha_rgb[3] = {1.0f, 0.55f, 0.1f};
    const app_frontier *fr = &a->frontier;
    CHECK(d->count == fr->count, "every point placed: %d of %d", d->count, fr->count);
    /* A marker can hide under a later one (the two series share step
     * times), so most, not all, show their own colour; both series do. */
    int shown = 0, shown_theta = 0, shown_alpha = 0;
    const float edge = 0.5f * 0.6f * render_overlay_line_height(a->ui.text) - 1;
    for (int i = 0; i < d->count; i++) {
        const ui_frontier_point *p = &fr->points[i];
        const uint32_t want = rgb_of(p->series == UI_FRONTIER_THETA ? theta_rgb : alpha_rgb);
        const float *m = d->median[i], *q = d->p99[i];
        const bool inside = m[0] > d->plot[0] && m[0] < d->plot[0] + d->plot[2] &&
                            q[1] > d->plot[1] && m[1] < d->plot[1] + d->plot[3];
        CHECK(inside, "point %d inside the plot", i);
        /* The median a filled square: its centre in the series' colour; the
         * p99 a hollow square: its edge in it. */
        const bool ok = near_rgb(rgb_at(px, m[0], m[1]), want) &&
                        near_rgb(rgb_at(px, q[0] - edge, q[1]), want);
        shown += ok;
        shown_theta += ok && p->series == UI_FRONTIER_THETA;
        shown_alpha += ok && p->series == UI_FRONTIER_ALPHA;
    }
    CHECK(3 * shown >= 2 * d->count && shown_theta > 0 && shown_alpha > 0,
          "markers in their series' colours: %d of %d (theta %d, alpha %d)", shown, d->count,
          shown_theta, shown_alpha);
    int hollow = 0;
    for (int i = 0; i < d->count; i++) {
        const ui_frontier_point *p = &fr->points[i];
        const uint32_t c = rgb_of(p->series == UI_FRONTIER_THETA ? theta_rgb : alpha_rgb);
        hollow += !near_rgb(rgb_at(px, d->p99[i][0] + 1, d->p99[i][1] + 1), c);
    }
    CHECK(hollow > d->count / 2, "the p99 markers are hollow: %d of %d", hollow, d->count);
    CHECK(d->exact_x > d->plot[0] && d->exact_x < d->plot[0] + d->plot[2], "the exact line at %.0f",
          d->exact_x);
    const float exact_rgb[3] = {0.95f, 0.3f, 0.35f};
    int on_line = 0;
    for (int k = 1; k < 10; k++) {
        on_line += near_rgb(rgb_at(px, d->exact_x, d->plot[1] + d->plot[3] * k / 10.0f),
                            rgb_of(exact_rgb));
    }
    CHECK(on_line >= 6, "the exact line drawn: %d of 9 places", on_line);
    free(px);
    app_key(a, GLFW_KEY_I, 0);
}

int main(void) {
    const char *script = "test_frontier.script";
    FILE *f = fopen(script, "w");
    if (!f || fputs("0 Shift+X\n", f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "test_frontier: cannot write %s\n", script);
        return 1;
    }
    app_egl *egl = app_egl_open(-1);
    if (!egl) {
        fprintf(stderr, "test_frontier: no EGL context (install Mesa's EGL)\n");
        return 1;
    }
    app *a = make_app(script);
    app *b = make_app(NULL);
    /* The bodies the sweep copies: those before the first frame's steps. */
    sim_body *start = bodies_of(a->sim);
    const sim_params p = sim_get_params(a->sim);
    int frames = 0;
    do {
        app_frame(a, W, H);
        app_frame(b, W, H);
        frames++;
    } while (a->frontier.state == APP_FRONTIER_SWEEPING && frames < UI_FRONTIER_MAX + 10);
    const app_frontier *fr = &a->frontier;
    CHECK(fr->state == APP_FRONTIER_DONE && fr->count == fr->planned,
          "the sweep done in %d frames: %d of %d points", frames, fr->count, fr->planned);
    CHECK(frames <= fr->planned + 3, "a point a frame: %d frames for %d points", frames,
          fr->planned);
    CHECK(a->ui.shown[UI_OVERLAY_FRONTIER], "the view shown");
    CHECK(!b->ui.shown[UI_OVERLAY_FRONTIER] && b->frontier.state == APP_FRONTIER_OFF,
          "no sweep in the other run");
    check_rising(fr, UI_FRONTIER_THETA, "theta");
    check_rising(fr, UI_FRONTIER_ALPHA, "alpha");
    /* Equal to the direct measurement: the same arithmetic on the same
     * bodies and sample, so equal but for the last bits of a sum (none are
     * expected; 1e-12 leaves room for nothing else). */
    for (int i = 0; i < fr->count; i++) {
        const ui_frontier_point *pt = &fr->points[i];
        const sim_force_error fe = direct(start, &p, pt->theta, pt->alpha);
        CHECK(fabs(fe.median - pt->median) <= 1e-12 * fe.median &&
                  fabs(fe.p99 - pt->p99) <= 1e-12 * fe.p99,
              "theta %g alpha %g: median %.9g p99 %.9g, direct %.9g %.9g", pt->theta, pt->alpha,
              pt->median, pt->p99, fe.median, fe.p99);
    }
    CHECK(fr->exact_ms > 0 && !fr->exact_estimated, "the exact reference timed: %g ms",
          fr->exact_ms);
    /* Undisturbed: the running bodies as in the run without the sweep. */
    sim_body *xa = bodies_of(a->sim), *xb = bodies_of(b->sim);
    const sim_params pa = sim_get_params(a->sim), pb = sim_get_params(b->sim);
    CHECK(pa.steps == frames && pa.steps == pb.steps && pa.time == pb.time,
          "both ran %d steps: %lld and %lld", frames, (long long)pa.steps, (long long)pb.steps);
    CHECK(test_same_bodies(xa, xb, N), "the running bodies bit-identical with and without the sweep");
    free(xa);
    free(xb);
    free(start);

    check_picture(a);
    check_layout(a);

    /* Shift+X: closes the finished view; sweeps anew; stops that sweep. */
    app_key(a, GLFW_KEY_X, GLFW_MOD_SHIFT);
    CHECK(!a->ui.shown[UI_OVERLAY_FRONTIER], "Shift+X closes the finished view");
    app_key(a, GLFW_KEY_X, GLFW_MOD_SHIFT);
    CHECK(a->ui.shown[UI_OVERLAY_FRONTIER] && fr->state == APP_FRONTIER_SWEEPING &&
              fr->count == 0,
          "again: a new sweep");
    app_frame(a, W, H);
    app_key(a, GLFW_KEY_X, GLFW_MOD_SHIFT);
    app_frame(a, W, H);
    CHECK(fr->state == APP_FRONTIER_STOPPED && fr->count == 1 && a->ui.shown[UI_OVERLAY_FRONTIER],
          "again: stopped after %d point, the view kept", fr->count);
    /* X alone measures the running method's error, no sweep. */
    app_key(a, GLFW_KEY_X, 0);
    CHECK(fr->state == APP_FRONTIER_STOPPED && a->live.ferr_valid, "X alone: the force error");

    app_gl_end(a);
    app_gl_end(b);
    app_destroy(a);
    app_destroy(b);
    app_egl_close(egl);
    remove(script);
    return test_exit("test_frontier");
}
