/* app_live.c - the running loop's numbers: the frame rate, the energy and
 * the virial ratio (from the tree walk's potentials up to APP_SAMPLE_HZ
 * times a second, else sampled every few frames), the force error of the
 * running method, and the watch for non-finite bodies that pauses the run.
 *
 * The HUD, the status line and the sparkline read these; keys that change
 * the physics (softening, a new scene, a snapshot) call
 * app_physics_changed, which starts the energy reference over.
 */
#include <math.h>
#include <stdio.h>

#include "app.h"

void app_physics_changed(app *a) {
    a->live.energy0_valid = false;
    a->live.energy0_exact_valid = false;
    a->live.diag_valid = false;
    a->live.blown_up = false;
    ui_spark_reset(&a->ui.spark); /* the sparkline starts over with E0 */
}

/* Frames per second over windows of half a second; until the first window
 * is full, over the frames since the first (so a run of a few frames shows
 * its rate, not 0). */
void app_live_frame_start(app *a) {
    app_live *l = &a->live;
    l->now = base_now();
    if (l->fps_since == 0) {
        l->fps_since = l->now; /* the first frame starts the clock */
        return;
    }
    l->fps_frames++;
    const double elapsed = l->now - l->fps_since;
    if (elapsed >= 0.5) {
        l->fps = l->fps_frames / elapsed;
        l->fps_since = l->now;
        l->fps_frames = 0;
        l->fps_window_done = true;
    } else if (!l->fps_window_done && elapsed > 0) {
        l->fps = l->fps_frames / elapsed;
    }
}

/* Pauses a run whose bodies or energy are no longer finite, saying where. */
static void blow_up(app *a, int64_t step, double t) {
    app_live *l = &a->live;
    l->blown_up = true;
    l->blown_up_step = step;
    l->blown_up_time = t;
    l->paused = true;
    if (step > 0) {
        base_msg_post(&a->msg,
                      "NaN or infinity at step %lld (t = %.6g): paused. R re-seeds; Shift+T "
                      "halves the time step, S raises the softening",
                      (long long)step, t);
    } else {
        base_msg_post(&a->msg,
                      "the energy is not finite (sampled at t = %.6g): paused. R re-seeds; "
                      "Shift+T halves the time step, S raises the softening",
                      t);
    }
}

/* The integrator's own check (sim_nonfinite), read after the frame's wait
 * for the GPU (the vertex upload), so the frame whose steps blew up is the
 * one that pauses and says at which step and simulated time. */
void app_live_check_nonfinite(app *a) {
    int64_t step = 0;
    double t = 0;
    if (a->live.blown_up || !sim_nonfinite(a->sim, &step, &t)) return;
    blow_up(a, step, t);
}

bool app_sample_due(bool have, double last, double now) {
    return !have || !(now - last < 1.0 / APP_SAMPLE_HZ);
}

/* The walk returns the potentials on the frames that sample, and on every
 * frame while the bodies are coloured by their potential (app_colour.c
 * reads them; without, it would make a pass of its own). */
void app_live_plan_sample(app *a) {
    app_live *l = &a->live;
    const bool walk = sim_get_method(a->sim)->walk_potential;
    const bool have = l->diag_valid && l->energy0_valid;
    l->sample_due = !walk || app_sample_due(have, l->sample_at, l->now);
    sim_set_step_potentials(a->sim, l->sample_due || a->view.color == RENDER_COLOR_POTENTIAL);
}

/* Energy, momenta and the virial ratio. Where the force pass returns each
 * body's potential (the GPU tree), at O(N) on the frames
 * app_live_plan_sample chose, queued behind the frame's steps
 * (app_live_queue_sample) and collected here. Otherwise
 * every APP_DIAG_EVERY frames, and no more often than keeps their cost
 * within 1 / (1 + APP_DIAG_DUTY) of the wall time: the exact potential is an
 * O(N^2) pass (the frame samples nothing while a snapshot series plays).
 * E0 restarts when the potential's source changes (the walk's differs from
 * the exact sum by its approximation). A non-finite energy pauses: a second
 * line of defence behind the integrator's check (the energy can overflow
 * while every position and velocity is still finite). */
void app_live_sample(app *a) {
    app_live *l = &a->live;
    const bool walk = sim_get_method(a->sim)->walk_potential;
    if (walk && !l->sample_due && l->diag_valid && l->energy0_valid) return;
    if (!walk && l->diag_valid && l->energy0_valid && l->energy0_source == SIM_POTENTIAL_EXACT &&
        (l->frame - l->diag_frame < APP_DIAG_EVERY ||
         base_now() - l->diag_time < APP_DIAG_DUTY * l->diag_cost)) {
        return;
    }
    const double t0 = base_now();
    const sim_diag d = walk ? sim_energy_collect(a->sim) : sim_diagnostics(a->sim);
    if (d.stopped) return; /* the run is stopping: no half sum on the HUD */
    l->diag = d;
    l->diag_time = base_now();
    l->diag_cost = l->diag_time - t0;
    l->diag_valid = true;
    l->diag_frame = l->frame;
    l->diag_steps = app_snapshot_steps(a);
    l->sample_at = l->now;
    if (!isfinite(l->diag.total) || !isfinite(l->diag.kinetic)) {
        app_live_check_nonfinite(a); /* the step is known by now: sim_diagnostics waited */
        if (!l->blown_up) blow_up(a, 0, sim_get_params(a->sim).time);
        return;
    }
    if (l->energy0_valid && l->energy0_source != l->diag.source) {
        l->energy0_valid = false;
        ui_spark_reset(&a->ui.spark);
    }
    if (!l->energy0_valid) {
        l->energy0 = l->diag.total;
        l->energy0_valid = true;
        l->energy0_source = l->diag.source;
    }
    /* The status JSON's E0 is exact: an O(N^2) pass at the start where the
     * walk gave E0 (once per physics), only when a status is written. */
    if (!l->energy0_exact_valid && (l->diag.source == SIM_POTENTIAL_EXACT || a->cfg.status_json)) {
        l->energy0_exact =
            l->diag.source == SIM_POTENTIAL_EXACT ? l->diag.total : sim_diagnostics(a->sim).total;
        l->energy0_exact_valid = isfinite(l->energy0_exact);
    }
    ui_spark_push(&a->ui.spark, sim_get_params(a->sim).time, app_energy_error(a));
}

void app_live_queue_sample(app *a) {
    if (sim_get_method(a->sim)->walk_potential && a->live.energy0_valid && a->live.sample_due) {
        sim_energy_queue(a->sim);
    }
}

void app_measure_force_error(app *a) {
    const sim_params p = sim_get_params(a->sim);
    sim_error err = {0};
    app_live *l = &a->live;
    if (!sim_measure_force_error(a->sim, APP_FERR_SAMPLES, (uint64_t)l->frame, &l->ferr, &err)) {
        base_msg_post(&a->msg, "force error not measured: %s (%s)", err.message, err.hint);
        l->ferr_valid = false;
        return;
    }
    l->ferr_valid = true;
    l->ferr_time = base_now();
    l->ferr_variant = p.variant;
    l->ferr_theta = p.theta;
}

void app_live_force_error(app *a) {
    const sim_params p = sim_get_params(a->sim);
    app_live *l = &a->live;
    if (l->ferr_valid && (l->ferr_variant != p.variant || l->ferr_theta != p.theta)) {
        l->ferr_valid = false;
    }
    /* Spread over GPUs, no GPU holds every body for the exact sums. */
    if (!sim_get_method(a->sim)->exact && !p.spread &&
        (!l->ferr_valid || l->now - l->ferr_time > APP_FERR_EVERY)) {
        app_measure_force_error(a);
    }
}

double app_step_ms_at(sim_scaling scaling, int n_from, double ms_from, int n_to) {
    const double from = n_from > 2 ? n_from : 2, to = n_to > 2 ? n_to : 2; /* tiny N finite */
    if (scaling == SIM_SCALING_NLOGN) return ms_from * (to * log2(to)) / (from * log2(from));
    return ms_from * (to / from) * (to / from);
}

double app_energy_error(const app *a) {
    const app_live *l = &a->live;
    return l->energy0_valid && l->energy0 != 0 ? (l->diag.total - l->energy0) / fabs(l->energy0)
                                               : 0;
}

double app_interactions_per_s(const app *a) {
    const float ms = sim_last_step_ms(a->sim);
    const sim_params p = sim_get_params(a->sim);
    if (ms <= 0) return 0;
    if (!sim_get_method(a->sim)->exact) { /* what it evaluated (the tree's cells), not N^2 */
        const sim_tree_stats t = sim_get_tree_stats(a->sim);
        return t.valid ? p.body_count * t.interactions_per_body / (ms * 1e-3) : 0;
    }
    return sim_pair_rate(p.body_count, ms);
}

double app_flops_per_interaction(const app *a) {
    return sim_get_method(a->sim)->flops_per_interaction;
}

const char *app_method_name(const app *a) {
    return sim_get_method(a->sim)->name;
}
