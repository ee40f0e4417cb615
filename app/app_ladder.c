/* app_ladder.c - the ladder chart's timing: the step time of every rung
 * of the kernel ladder at the current N, measured live on this machine.
 *
 * The running method's own step time is recorded every frame it steps;
 * while the chart is shown, each rung with no result at this N is timed,
 * one per frame so the window stays responsive, on a temporary sim seeded
 * with a copy of the current bodies (the running simulation is only read).
 * A rung whose step would take longer than ~1 s (naive at a million
 * bodies) is not run: its estimate, from a time measured at a smaller N
 * (a pilot on a subset of the bodies where there is none yet), says so.
 * Results are kept per (method, N), so a rung is timed once per N. The
 * chart itself is ui/'s (ui_chart.c); app_ladder_rows hands it the bars.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define LADDER_TARGET_MS 35.0   /* a timed run of ~20-50 ms ... */
#define LADDER_ONE_STEP_MS 20.0 /* ... or of one step, when a step is slower */
#define LADDER_CAP_MS 1000.0    /* the most one rung's timing may take (app_ladder.cap_ms) */
#define LADDER_MAX_STEPS 100000 /* tiny N: steps are microseconds */
#define LADDER_PILOT_N 4096     /* first estimate of a rung from a subset this large */
#define LADDER_PILOT_N_CPU 1024 /* ... on the CPU backend, whose exact sum is slower */
#define LADDER_PILOT_GROW 4     /* then subsets this much larger, while they fit the cap */
#define LADDER_LIVE_WEIGHT 0.2  /* a new live step time's weight against the kept one */

/* ---- results -------------------------------------------------------------- */

static sim_backend backend(const app *a) {
    return sim_get_params(a->sim).backend;
}

/* The rung a result is kept under: the method that runs (on the CPU every
 * exact variant is the one reference). */
static sim_variant rung_of(const app *a, sim_variant v) {
    return sim_method_of(backend(a), v)->variant;
}

static const char *rung_name(const app *a, sim_variant v) {
    return sim_method_of(backend(a), v)->name;
}

/* The rungs on this backend, in ladder order, at most max. */
static int ladder_rungs(const app *a, sim_variant *out, int max) {
    const int count = sim_methods(backend(a), out, max);
    return count < max ? count : max;
}

const app_rung_result *app_ladder_result(const app *a, sim_variant v, int n) {
    const app_ladder *c = &a->ladder;
    for (int i = 0; i < c->result_count; i++) {
        if (c->results[i].variant == v && c->results[i].n == n) return &c->results[i];
    }
    return NULL;
}

/* Keeps a result, replacing the one for (variant, n) or else the least recent. */
static void store(app *a, app_rung_result r) {
    app_ladder *c = &a->ladder;
    r.when = base_now();
    int slot = -1;
    for (int i = 0; i < c->result_count && slot < 0; i++) {
        if (c->results[i].variant == r.variant && c->results[i].n == r.n) slot = i;
    }
    if (slot < 0 && c->result_count < APP_LADDER_RESULTS) slot = c->result_count++;
    if (slot < 0) {
        slot = 0;
        for (int i = 1; i < c->result_count; i++) {
            if (c->results[i].when < c->results[slot].when) slot = i;
        }
    }
    c->results[slot] = r;
}

/* ---- timing ---------------------------------------------------------------- */

/* The running method's own step time, whenever it has stepped since the
 * last frame with the same bodies, method and N (a change of either is a
 * frame late in the CUDA events, so that frame is skipped). */
static void record_running(app *a) {
    const sim_params p = sim_get_params(a->sim);
    app_ladder *c = &a->ladder;
    const bool same = p.generation == c->seen_generation && p.variant == c->seen_variant &&
                      p.body_count == c->seen_n;
    const float ms = sim_last_step_ms(a->sim);
    if (same && p.steps > c->seen_steps && ms > 0) {
        const sim_variant v = rung_of(a, p.variant);
        const app_rung_result *old = app_ladder_result(a, v, p.body_count);
        double kept = ms;
        if (old && old->live && old->status == UI_RUNG_OK) { /* steadier figures on the bars */
            kept = (1 - LADDER_LIVE_WEIGHT) * old->ms + LADDER_LIVE_WEIGHT * ms;
        }
        store(a,
              (app_rung_result){
                  .variant = v, .n = p.body_count, .status = UI_RUNG_OK, .ms = kept, .live = true});
    }
    c->seen_generation = p.generation;
    c->seen_variant = p.variant;
    c->seen_n = p.body_count;
    c->seen_steps = p.steps;
}

static double cap_ms(const app *a) {
    return a->ladder.cap_ms > 0 ? a->ladder.cap_ms : LADDER_CAP_MS;
}

/* A simulation of method v with n of the current bodies (copy: every
 * N/n-th, masses scaled to keep the total) or else n bodies of the scene's
 * initial condition (no copy: the bodies' accelerations, which a copy
 * computes when they are not known yet, cost a whole step); NULL with *err. */
static sim *pilot_sim(app *a, sim_variant v, int n, bool copy, sim_error *err) {
    const int all = sim_get_params(a->sim).body_count;
    if (!copy || n > all) return app_copy_sim(a, &(app_copy_desc){.variant = v, .count = n}, err);
    snprintf(err->message, sizeof err->message, "no memory for a copy of %d bodies", all);
    sim_body *bodies = malloc(sizeof *bodies * (size_t)all);
    sim *tmp = NULL;
    if (bodies) {
        sim_get_bodies(a->sim, bodies);
        if (n < all) {
            const double scale = (double)all / n;
            for (int i = 0; i < n; i++) {
                bodies[i] = bodies[(size_t)i * (size_t)all / (size_t)n];
                bodies[i].mass *= scale;
            }
        }
        tmp = app_copy_sim(a, &(app_copy_desc){.variant = v, .bodies = bodies, .count = n}, err);
    }
    free(bodies);
    return tmp;
}

/* Times rung v on pilot_sim(n, copy) and keeps the result at n; a failure
 * to make the sim marks (v, n_key) "no memory". Nothing is kept when stopped. */
static void time_rung(app *a, sim_variant v, int n_key, int n, bool copy) {
    sim_error err = {0};
    sim *tmp = pilot_sim(a, v, n, copy, &err);
    if (!tmp) {
        store(a, (app_rung_result){.variant = v, .n = n_key, .status = UI_RUNG_NO_MEMORY});
        base_msg_post(&a->msg, "ladder chart: %s not timed at N = %d: %s", rung_name(a, v), n,
                      err.message);
        return;
    }
    /* The first step warms up (allocations, first launches) and sizes the run. */
    const double probe = sim_step_timed(tmp, 1);
    double ms = probe;
    if (probe < LADDER_ONE_STEP_MS) {
        const double steps = ceil(LADDER_TARGET_MS / fmax(probe, 1e-4));
        ms = sim_step_timed(tmp, (int)fmin(steps, LADDER_MAX_STEPS));
    } else if (2 * probe <= cap_ms(a)) {
        ms = sim_step_timed(tmp, 1);
    }
    sim_destroy(tmp);
    if (app_stopping(a) || !(ms > 0)) return;
    store(a, (app_rung_result){.variant = rung_of(a, v), .n = n, .status = UI_RUNG_OK, .ms = ms});
}

/* The result of v nearest to n in log N, among those measured at another N. */
static const app_rung_result *nearest(const app *a, sim_variant v, int n) {
    const app_rung_result *best = NULL;
    double best_d = INFINITY;
    for (int i = 0; i < a->ladder.result_count; i++) {
        const app_rung_result *r = &a->ladder.results[i];
        if (r->variant != v || r->n == n || r->status != UI_RUNG_OK) continue;
        const double d = fabs(log((double)r->n / n));
        if (d < best_d) best = r, best_d = d;
    }
    return best;
}

/* One rung's worth of work toward a result for rung v at this N: time it,
 * or first a subset to estimate it from; true when time was spent. Marking
 * it too slow from an estimate spends none (false), as does a result
 * already there. */
static bool measure_rung(app *a, sim_variant v) {
    const int n = sim_get_params(a->sim).body_count;
    if (app_ladder_result(a, v, n)) return false;
    const sim_scaling scaling = sim_method_of(backend(a), v)->scaling;
    const app_rung_result *near = nearest(a, v, n);
    if (!near) {
        const int pilot = backend(a) == SIM_BACKEND_CPU ? LADDER_PILOT_N_CPU : LADDER_PILOT_N;
        time_rung(a, v, n, n <= pilot ? n : pilot, true);
        return true;
    }
    const double est = app_step_ms_at(scaling, near->n, near->ms, n);
    if (est <= cap_ms(a)) {
        time_rung(a, v, n, n, true);
        return true;
    }
    /* Too slow from afar: estimate again from closer, while a closer subset fits. */
    const int closer = near->n <= n / LADDER_PILOT_GROW ? near->n * LADDER_PILOT_GROW : n;
    if (closer < n && app_step_ms_at(scaling, near->n, near->ms, closer) <= cap_ms(a)) {
        time_rung(a, v, n, closer, true);
        return true;
    }
    store(a, (app_rung_result){.variant = v, .n = n, .status = UI_RUNG_TOO_SLOW, .ms = est});
    return false;
}

/* Does one rung's worth of timing for the first rung with no result at this
 * N (rungs marked too slow on the way cost nothing: then on to the next). */
static void measure_next(app *a) {
    sim_variant rungs[UI_RUNGS_MAX];
    const int count = ladder_rungs(a, rungs, UI_RUNGS_MAX);
    for (int i = 0; i < count; i++) {
        if (measure_rung(a, rungs[i])) return;
    }
}

const app_rung_result *app_ladder_measure(app *a, sim_variant v) {
    v = rung_of(a, v);
    measure_rung(a, v);
    return app_ladder_result(a, v, sim_get_params(a->sim).body_count);
}

double app_ladder_estimate(app *a, int n, int *n_from, double *ms_from) {
    const sim_params p = sim_get_params(a->sim);
    const sim_variant v = rung_of(a, p.variant);
    const app_rung_result *r = app_ladder_result(a, v, n);
    if (!r || r->status != UI_RUNG_OK) r = nearest(a, v, n);
    /* None, or only at far fewer bodies than a pilot has (a few bodies'
     * step is mostly overhead, which does not grow as the method does): a
     * pilot. */
    const int pilot = n < APP_PILOT_N ? n : APP_PILOT_N;
    if (!r || r->n < pilot / 4) {
        time_rung(a, v, pilot, pilot, false);
        const app_rung_result *timed = app_ladder_result(a, v, pilot);
        if (timed && timed->status == UI_RUNG_OK) r = timed;
        if (!r) return 0;
    }
    if (n_from) *n_from = r->n;
    if (ms_from) *ms_from = r->ms;
    return app_step_ms_at(sim_method_of(backend(a), v)->scaling, r->n, r->ms, n);
}

double app_ladder_energy_estimate(app *a, int n) {
    const int pilot = n < APP_PILOT_N ? n : APP_PILOT_N;
    sim_error err = {0};
    sim *tmp = pilot_sim(a, sim_get_params(a->sim).variant, pilot, false, &err);
    if (!tmp) return 0;
    double ms = INFINITY; /* the faster of two: the first also warms up */
    bool stopped = false;
    for (int k = 0; k < 2 && !stopped; k++) {
        const double t0 = base_now();
        stopped = sim_diagnostics(tmp).stopped;
        ms = fmin(ms, 1e3 * (base_now() - t0));
    }
    sim_destroy(tmp);
    return stopped ? 0 : app_step_ms_at(SIM_SCALING_N2, pilot, ms, n);
}

void app_ladder_update(app *a) {
    record_running(a);
    if (a->ui.shown[UI_OVERLAY_CHART]) measure_next(a);
}

int app_ladder_rows(app *a) {
    const sim_params p = sim_get_params(a->sim);
    app_ladder *l = &a->ladder;
    if (!l->device[0]) {
        sim_device_info dev;
        if (p.backend == SIM_BACKEND_CUDA && sim_cuda_device_info(a->cfg.sim.device, &dev)) {
            snprintf(l->device, sizeof l->device, "%s", dev.name);
        } else {
            snprintf(l->device, sizeof l->device, "the CPU backend");
        }
    }
    sim_variant rungs[UI_RUNGS_MAX];
    const int count = ladder_rungs(a, rungs, UI_RUNGS_MAX);
    for (int i = 0; i < count; i++) {
        const app_rung_result *r = app_ladder_result(a, rungs[i], p.body_count);
        l->rows[i] = (ui_rung){.name = rung_name(a, rungs[i]),
                               .status = r ? r->status : UI_RUNG_MEASURING,
                               .ms = r ? r->ms : 0,
                               .live = r && r->live,
                               .current = rung_of(a, p.variant) == rungs[i]};
    }
    return count;
}
