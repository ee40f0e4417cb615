/* app_frontier.c - the tree's accuracy-speed frontier, measured live
 * (Shift+X; the view is ui/ui_frontier.c).
 *
 * A sweep takes one copy of the running bodies and then, one setting per
 * frame, makes a temporary tree simulation of that copy (app_copy_sim),
 * measures its force error against the exact sum on a fixed sample
 * (APP_FRONTIER_SAMPLES bodies, seed APP_FRONTIER_SEED: the benchmark's)
 * and times its steps (sim_step_timed, after a warm-up step). Two series:
 * theta alone (the relative criterion off) and the relative criterion
 * alpha at theta 1; the running setting is one more point where it is on
 * neither. The multipole order is no knob (quadrupoles, and on the GPU
 * with alpha monopoles where the quadrupole is negligible), so it is no
 * series. Every point is measured on the same bodies, so the points
 * compare settings, not moments of the run. The exact kernel's step time
 * at this N comes from the ladder chart's results, or its timing
 * (app_ladder_measure: a pilot, or an estimate where too slow). The
 * running simulation is only read: its bodies are copied once, at the
 * start.
 *
 *     nbody --backend cpu --n 4096 --variant tree    then Shift+X
 */
#include <GLFW/glfw3.h> /* key codes only */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* The settings swept. theta stops at 1, the knob's top (sim.c: above it a
 * cell's own bodies could be approximated by its multipole); alpha spans
 * the relative criterion's useful range around the CUDA default. */
static const double THETAS[] = {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
static const double ALPHAS[] = {0.003, 0.005, 0.008, 0.015, 0.025, 0.04, 0.06};
#define ALPHA_THETA 1.0 /* the alpha series' theta: the guard the CUDA default uses */
#define THETA_COUNT ((int)(sizeof THETAS / sizeof THETAS[0]))
#define ALPHA_COUNT ((int)(sizeof ALPHAS / sizeof ALPHAS[0]))
_Static_assert(THETA_COUNT + ALPHA_COUNT + 1 <= UI_FRONTIER_MAX, "room for every point");

#define FRONTIER_TARGET_MS 40.0   /* a point's timed run: a frame stays under ~100 ms ... */
#define FRONTIER_ONE_STEP_MS 20.0 /* ... or one more step, when a step is slower */
#define FRONTIER_MAX_STEPS 10000  /* tiny N: steps are microseconds */

static bool same(double x, double y) {
    return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y));
}

/* The running setting, when the tree runs: is (theta, alpha) on a series? */
static bool on_a_series(double theta, double alpha) {
    for (int i = 0; i < THETA_COUNT; i++) {
        if (alpha == 0 && same(theta, THETAS[i])) return true;
    }
    for (int i = 0; i < ALPHA_COUNT; i++) {
        if (same(theta, ALPHA_THETA) && same(alpha, ALPHAS[i])) return true;
    }
    return false;
}

static void plan(app *a) {
    app_frontier *fr = &a->frontier;
    const sim_params p = sim_get_params(a->sim);
    fr->planned = 0;
    for (int i = 0; i < THETA_COUNT; i++) {
        fr->plan[fr->planned++] = (ui_frontier_point){.series = UI_FRONTIER_THETA,
                                                      .theta = THETAS[i]};
    }
    for (int i = 0; i < ALPHA_COUNT; i++) {
        fr->plan[fr->planned++] = (ui_frontier_point){
            .series = UI_FRONTIER_ALPHA, .theta = ALPHA_THETA, .alpha = ALPHAS[i]};
    }
    if (sim_get_method(a->sim)->uses_theta && !on_a_series(p.theta, p.tree_alpha)) {
        fr->plan[fr->planned++] = (ui_frontier_point){
            .series = UI_FRONTIER_RUNNING, .theta = p.theta, .alpha = p.tree_alpha};
    }
}

void app_frontier_start(app *a) {
    app_frontier *fr = &a->frontier;
    const sim_params p = sim_get_params(a->sim);
    free(fr->bodies);
    fr->bodies = malloc(sizeof *fr->bodies * (size_t)p.body_count);
    if (!fr->bodies) {
        fr->state = APP_FRONTIER_OFF;
        base_msg_post(&a->msg, "tree frontier: no memory for a copy of %d bodies", p.body_count);
        return;
    }
    sim_get_bodies(a->sim, fr->bodies);
    fr->n = p.body_count;
    fr->count = 0;
    fr->exact_ms = 0;
    fr->exact_estimated = false;
    fr->exact_done = false;
    plan(a);
    sim_device_info dev;
    if (p.backend == SIM_BACKEND_CUDA && sim_cuda_device_info(a->cfg.sim.device, &dev)) {
        snprintf(fr->device, sizeof fr->device, "%s", dev.name);
    } else {
        snprintf(fr->device, sizeof fr->device, "the CPU backend");
    }
    fr->state = APP_FRONTIER_SWEEPING;
    a->ui.shown[UI_OVERLAY_FRONTIER] = true;
    base_msg_post(&a->msg,
                  "tree frontier: %d settings on a copy of the %d bodies, one per frame "
                  "(Shift+X stops)",
                  fr->planned, fr->n);
}

void app_frontier_stop(app *a) {
    app_frontier *fr = &a->frontier;
    if (fr->state != APP_FRONTIER_SWEEPING) return;
    fr->state = APP_FRONTIER_STOPPED;
    free(fr->bodies); /* the points stay; the copy is not needed any more */
    fr->bodies = NULL;
    base_msg_post(&a->msg, "tree frontier stopped: %d of %d points", fr->count, fr->planned);
}

bool app_frontier_key(app *a, int key, int mods) {
    if (key != GLFW_KEY_X || !(mods & GLFW_MOD_SHIFT)) return false;
    if (a->frontier.state == APP_FRONTIER_SWEEPING) {
        app_frontier_stop(a);
    } else if (a->ui.shown[UI_OVERLAY_FRONTIER]) {
        a->ui.shown[UI_OVERLAY_FRONTIER] = false;
        base_msg_post(&a->msg, "tree frontier closed (Shift+X sweeps again)");
    } else {
        app_frontier_start(a);
    }
    return true;
}

/* Measures plan point k on the copy; false (said on the message line) when
 * it could not be made or was stopped. */
static bool measure_point(app *a, int k) {
    app_frontier *fr = &a->frontier;
    ui_frontier_point pt = fr->plan[k];
    sim_error err = {0};
    sim *tmp = app_copy_sim(a,
                            &(app_copy_desc){.variant = SIM_VARIANT_TREE,
                                             .bodies = fr->bodies,
                                             .count = fr->n,
                                             .theta = pt.theta,
                                             .tree_alpha = pt.alpha > 0 ? pt.alpha : -1},
                            &err);
    sim_force_error fe = {0};
    /* The error first, on the copy as taken: every point on the same positions. */
    const bool ok =
        tmp && sim_measure_force_error(tmp, APP_FRONTIER_SAMPLES, APP_FRONTIER_SEED, &fe, &err);
    if (!ok) {
        sim_destroy(tmp);
        if (!app_stopping(a)) {
            base_msg_post(&a->msg, "tree frontier: theta %g alpha %g not measured: %s", pt.theta,
                          pt.alpha, err.message);
        }
        return false;
    }
    /* The first step warms up (allocations, first launches) and sizes the run. */
    const double probe = sim_step_timed(tmp, 1);
    double ms = probe;
    if (probe < FRONTIER_ONE_STEP_MS) {
        const double steps = ceil(FRONTIER_TARGET_MS / fmax(probe, 1e-4));
        ms = sim_step_timed(tmp, (int)fmin(steps, FRONTIER_MAX_STEPS));
    } else {
        ms = sim_step_timed(tmp, 1);
    }
    const sim_tree_stats ts = sim_get_tree_stats(tmp);
    sim_destroy(tmp);
    if (app_stopping(a) || !(ms > 0)) return false;
    pt.ms = ms;
    pt.median = fe.median;
    pt.p99 = fe.p99;
    pt.interactions_per_body = ts.valid ? ts.interactions_per_body : 0;
    fr->points[fr->count++] = pt;
    return true;
}

/* One unit of the exact kernel's timing at the copy's N (the ladder's). */
static void measure_exact(app *a) {
    app_frontier *fr = &a->frontier;
    if (sim_get_params(a->sim).body_count != fr->n) { /* N changed: no exact time at the copy's */
        fr->exact_done = true;
        return;
    }
    const app_rung_result *r = app_ladder_measure(a, SIM_VARIANT_BEST);
    if (!r) return; /* a pilot this frame: again next frame */
    fr->exact_done = true;
    if (r->status == UI_RUNG_OK || r->status == UI_RUNG_TOO_SLOW) {
        fr->exact_ms = r->ms;
        fr->exact_estimated = r->status == UI_RUNG_TOO_SLOW;
    }
}

void app_frontier_frame(app *a, ui_facts *f) {
    app_frontier *fr = &a->frontier;
    if (fr->state == APP_FRONTIER_SWEEPING && !app_stopping(a)) {
        if (fr->count < fr->planned) {
            if (!measure_point(a, fr->count)) app_frontier_stop(a);
        } else if (!fr->exact_done) {
            measure_exact(a);
        }
        if (fr->count == fr->planned && fr->exact_done) {
            fr->state = APP_FRONTIER_DONE;
            free(fr->bodies);
            fr->bodies = NULL;
        }
    }
    const sim_params p = sim_get_params(a->sim);
    f->frontier = (ui_frontier){
        .on = fr->state != APP_FRONTIER_OFF,
        .sweeping = fr->state == APP_FRONTIER_SWEEPING,
        .points = fr->points,
        .count = fr->count,
        .planned = fr->planned,
        .n = fr->n,
        .exact_ms = fr->exact_ms,
        .exact_estimated = fr->exact_estimated,
        .exact_name = sim_method_of(p.backend, SIM_VARIANT_BEST)->name,
        .theta = p.theta,
        .alpha = p.tree_alpha,
        .tree_running = sim_get_method(a->sim)->uses_theta,
        .device = fr->device,
    };
}

/* JSON has no NaN or Infinity: those become null. */
static void number(char *out, size_t len, double v) {
    if (isfinite(v)) {
        snprintf(out, len, "%.9g", v);
    } else {
        snprintf(out, len, "null");
    }
}

static const char *const SERIES_NAMES[UI_FRONTIER_SERIES_COUNT] = {"theta", "alpha", "running"};
static const char *const STATE_NAMES[] = {"off", "sweeping", "stopped", "done"};
_Static_assert(sizeof STATE_NAMES / sizeof STATE_NAMES[0] == APP_FRONTIER_DONE + 1,
               "a name per state");

void app_frontier_json(const app *a, char *out, size_t len) {
    const app_frontier *fr = &a->frontier;
    if (fr->state == APP_FRONTIER_OFF) {
        snprintf(out, len, ", \"frontier\": null");
        return;
    }
    const sim_params p = sim_get_params(a->sim);
    char exact[32];
    number(exact, sizeof exact, fr->exact_ms > 0 ? fr->exact_ms : NAN);
    size_t used = (size_t)snprintf(
        out, len,
        ", \"frontier\": {\"state\": \"%s\", \"n\": %d, \"samples\": %d, \"seed\": %d, "
        "\"planned\": %d, \"exact_method\": \"%s\", \"exact_ms\": %s, \"exact_estimated\": %s, "
        "\"points\": [",
        STATE_NAMES[fr->state], fr->n, APP_FRONTIER_SAMPLES, APP_FRONTIER_SEED, fr->planned,
        sim_method_of(p.backend, SIM_VARIANT_BEST)->name, exact,
        fr->exact_estimated ? "true" : "false");
    for (int i = 0; i < fr->count && used < len; i++) {
        const ui_frontier_point *pt = &fr->points[i];
        char v[6][32];
        const double values[6] = {pt->theta, pt->alpha,  pt->ms,
                                  pt->median, pt->p99, pt->interactions_per_body > 0
                                                           ? pt->interactions_per_body
                                                           : NAN};
        for (int k = 0; k < 6; k++) number(v[k], sizeof v[k], values[k]);
        used += (size_t)snprintf(out + used, len - used,
                                 "%s{\"series\": \"%s\", \"theta\": %s, \"alpha\": %s, \"ms\": %s, "
                                 "\"median\": %s, \"p99\": %s, \"interactions_per_body\": %s}",
                                 i ? ", " : "", SERIES_NAMES[pt->series], v[0], v[1], v[2], v[3],
                                 v[4], v[5]);
    }
    if (used < len) snprintf(out + used, len - used, "]}");
}

void app_frontier_destroy(app *a) {
    free(a->frontier.bodies);
    a->frontier.bodies = NULL;
}
