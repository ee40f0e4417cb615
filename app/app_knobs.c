/* app_knobs.c - what the knobs' keys do, and the knobs' live values.
 *
 * The knob table (config/config_knobs.c) names each knob's key; this file
 * is what a press does: D, S, T, J, K, P, Q, R and + / -, each with Shift
 * stepping the other way. A value outside sim/'s range (sim_knob_check) is
 * refused with the reason on the HUD; a block shape the kernel cannot take
 * is clamped, and the HUD says why. The same live values go into the
 * status JSON (app_knob_json).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#define DAMPING_GAP_MIN 1e-4 /* the first step of D: damping 0.9999 */
#define SOFTENING_FIRST 1e-3 /* S from zero softening; Shift+S below it: zero */
#define THETA_STEP 0.1

/* ---- keys ---------------------------------------------------------------- */

static sim_params params(const app *a) {
    return sim_get_params(a->sim);
}

/* Checks v against knob r's range; on refusal flashes why and returns false. */
static bool in_range(app *a, sim_knob r, double v, double now) {
    sim_error err = {0};
    if (sim_knob_check(r, v, &err)) return true;
    base_msg_post(&a->msg, "%s stays %.4g: %s (%s)", sim_knob_get(r)->what, now, err.message,
                  err.hint);
    return false;
}

app_grow app_grow_estimate(app *a, int n) {
    const sim_params p = params(a);
    app_grow g = {.mem = sim_memory_estimate(a->sim, n)};
    /* The drawing's, of the bodies app_drawn_plan will draw of n. */
    const int drawn = app_drawn_estimate(a, n, &g.mem);
    interop_memory(&a->interop, p.backend == SIM_BACKEND_CUDA, drawn, &g.mem);
    g.mem.device_need += g.mem.device_draw * drawn;
    /* From the step time measured nearest to n (at the N it was measured
     * at: after a re-seed that is not the current N), or a pilot's. */
    g.step_ms = app_ladder_estimate(a, n, &g.n_from, &g.step_ms_from);
    return g;
}

bool app_grow_refused(const app_grow *g, int n, char *why, size_t len) {
    const sim_memory *m = &g->mem;
    if (m->host_free > 0 && m->host_need > m->host_free) {
        snprintf(why, len, "%d bodies need %.0f MiB of host memory, %.0f MiB is free", n,
                 m->host_need / 1048576.0, m->host_free / 1048576.0);
        return true;
    }
    if (m->device_free > 0 && m->device_need > m->device_free) {
        snprintf(why, len, "%d bodies need %.0f MiB of GPU memory, %.0f MiB is free", n,
                 m->device_need / 1048576.0, m->device_free / 1048576.0);
        return true;
    }
    if (g->step_ms > APP_STEP_MS_MAX) {
        snprintf(why, len, "a step of %d bodies would take about %.1f s here (%.2g s at %d)", n,
                 g->step_ms / 1000.0, g->step_ms_from / 1000.0, g->n_from);
        return true;
    }
    return false;
}

static void key_n(app *a, int dir) {
    const sim_params p = params(a);
    const double n = dir > 0 ? 2.0 * p.body_count : p.body_count / 2;
    if (!in_range(a, SIM_KNOB_BODY_COUNT, n, p.body_count)) return;
    if (dir > 0) {
        const app_grow g = app_grow_estimate(a, (int)n);
        char why[128];
        if (app_grow_refused(&g, (int)n, why, sizeof why)) {
            base_msg_post(&a->msg, "N stays %d: %s (--n %d starts with it anyway)", p.body_count,
                          why, (int)n);
            return;
        }
    }
    app_reseed(a, p.ic, (int)n, p.seed);
}

static void key_seed(app *a, int dir) {
    const sim_params p = params(a);
    app_reseed(a, p.ic, p.body_count, p.seed + (dir > 0 ? 1 : (uint64_t)-1));
}

static void key_dt(app *a, int dir) {
    const double dt = params(a).dt, next = dir > 0 ? dt * 2 : dt / 2;
    if (!in_range(a, SIM_KNOB_DT, next, dt)) return;
    sim_set_dt(a->sim, next);
    base_msg_post(&a->msg, "time step %.4g", next);
}

static void key_softening(app *a, int dir) {
    const double eps = params(a).softening;
    double next = dir > 0 ? (eps == 0 ? SOFTENING_FIRST : eps * 2) : eps / 2;
    if (dir < 0 && next < SOFTENING_FIRST) next = 0;
    if (!in_range(a, SIM_KNOB_SOFTENING, next, eps)) return;
    sim_set_softening(a->sim, next);
    app_physics_changed(a); /* E is defined with the softening: start over */
    base_msg_post(&a->msg, next == 0 ? "softening 0 (none)" : "softening %.4g", next);
}

static void key_damping(app *a, int dir) {
    double gap = a->live.damping_gap;
    if (dir > 0) {
        gap = gap == 0 ? DAMPING_GAP_MIN : gap * 2;
    } else {
        gap /= 2;
        if (gap < DAMPING_GAP_MIN) gap = 0;
    }
    if (!in_range(a, SIM_KNOB_DAMPING, 1.0 - gap, 1.0 - a->live.damping_gap)) return;
    a->live.damping_gap = gap;
    sim_set_damping(a->sim, 1.0 - gap);
    if (gap == 0) {
        base_msg_post(&a->msg, "damping off (1): energy is conserved again");
    } else {
        base_msg_post(&a->msg, "damping %.6g per step", 1.0 - gap);
    }
}

static void key_theta(app *a, int dir) {
    const double theta = params(a).theta;
    /* On the 0.05 grid, so +0.1 and -0.1 retrace each other exactly; a
     * step past an end of the range stops at that end. */
    const sim_knob_info *range = sim_knob_get(SIM_KNOB_THETA);
    const double on_grid = round(theta * 20) / 20; /* theta is a float: 0.05 reads 0.0500000007 */
    double next = round((theta + dir * THETA_STEP) * 20) / 20;
    if (on_grid > range->min && next < range->min) next = range->min;
    if (on_grid < range->max && next > range->max) next = range->max;
    if (!in_range(a, SIM_KNOB_THETA, next, theta)) return;
    sim_set_theta(a->sim, next);
    if (sim_get_method(a->sim)->uses_theta) {
        base_msg_post(&a->msg, "opening angle %.2f", next);
        return;
    }
    /* Name the method that uses it, as the table has it. */
    const sim_backend b = params(a).backend;
    sim_variant methods[32];
    const int count = sim_methods(b, methods, 32);
    const char *user = "an approximate method";
    for (int i = count - 1; i >= 0; i--) {
        if (sim_method_of(b, methods[i])->uses_theta) user = sim_method_of(b, methods[i])->name;
    }
    base_msg_post(&a->msg, "opening angle %.2f (used by %s: K to it)", next, user);
}

/* K and Shift+K: the next or previous method of this backend, in the
 * ladder's order (sim_methods), wrapping around. */
static void key_variant(app *a, int dir) {
    const sim_params p = params(a);
    sim_variant methods[32];
    const int count = sim_methods(p.backend, methods, 32);
    const sim_variant now = sim_get_method(a->sim)->variant;
    int i = 0;
    while (i < count && methods[i] != now) i++;
    const sim_variant v = methods[((i < count ? i : 0) + dir + count) % count];
    sim_error err = {0};
    if (!sim_set_variant(a->sim, v, &err)) {
        base_msg_post(&a->msg, "cannot switch to %s: %s", sim_method_of(p.backend, v)->name,
                      err.message);
        return;
    }
    const sim_params q = params(a);
    const sim_method *m = sim_get_method(a->sim);
    if (m->block_shape) {
        base_msg_post(&a->msg, "kernel %s (%dx%d): %s", m->name, q.p, q.q, m->description);
    } else {
        base_msg_post(&a->msg, "%s force method: %s", q.backend == SIM_BACKEND_CPU ? "CPU" : "GPU",
                      m->name);
    }
}

static void key_block(app *a, config_knob k, int dir) {
    const sim_params before = params(a);
    if (!sim_get_method(a->sim)->block_shape) {
        /* The CPU's force loops (the exact sum and the tree's walk, body by
         * body) take no block shape. */
        base_msg_post(&a->msg, "%s: p and q shape the GPU kernels; %s takes none",
                      k == CONFIG_KNOB_P ? "P" : "Q", sim_get_method(a->sim)->name);
        return;
    }
    const int now = k == CONFIG_KNOB_P ? before.p : before.q;
    const int want = dir > 0 ? now * 2 : (now > 1 ? now / 2 : 1);
    const sim_block b = k == CONFIG_KNOB_P ? sim_set_block(a->sim, want, before.q)
                                           : sim_set_block(a->sim, before.p, want);
    const int p = k == CONFIG_KNOB_P ? want : before.p, q = k == CONFIG_KNOB_P ? before.q : want;
    if (b.clamped) {
        base_msg_post(&a->msg, "p x q = %d x %d (asked %d x %d): %s", b.p, b.q, p, q, b.reason);
    } else if (b.p == before.p && b.q == before.q) {
        base_msg_post(&a->msg, "p x q stays %d x %d", b.p, b.q);
    } else {
        base_msg_post(&a->msg, "p x q = %d x %d", b.p, b.q);
    }
}

void app_knob_key(app *a, config_knob k, int dir) {
    switch (k) {
    case CONFIG_KNOB_N:
        key_n(a, dir);
        break;
    case CONFIG_KNOB_SEED:
        key_seed(a, dir);
        break;
    case CONFIG_KNOB_DT:
        key_dt(a, dir);
        break;
    case CONFIG_KNOB_SOFTENING:
        key_softening(a, dir);
        break;
    case CONFIG_KNOB_DAMPING:
        key_damping(a, dir);
        break;
    case CONFIG_KNOB_THETA:
        key_theta(a, dir);
        break;
    case CONFIG_KNOB_VARIANT:
        key_variant(a, dir);
        break;
    case CONFIG_KNOB_P:
    case CONFIG_KNOB_Q:
        key_block(a, k, dir);
        break;
    default:
        break; /* no key */
    }
}

/* ---- the status JSON ------------------------------------------------------- */

static void real(char *out, size_t len, double v) {
    if (isfinite(v)) {
        base_real_text(v, out, len); /* reads back as exactly v */
    } else {
        snprintf(out, len, "null"); /* JSON has no NaN or Infinity */
    }
}

void app_knob_json(const app *a, config_knob k, char *out, size_t len) {
    const sim_params p = sim_get_params(a->sim);
    const sim_merger_desc *m = &a->scene_desc.merger; /* the scene's, as built */
    /* A scene without a merger has no orbit: its knobs are null, not the
     * zeros its desc holds. */
    const bool orbit = p.ic == SIM_IC_MERGER;
    switch (k) {
    case CONFIG_KNOB_N:
        snprintf(out, len, "%d", p.body_count);
        return;
    case CONFIG_KNOB_SCENE:
        snprintf(out, len, "\"%s\"", config_scene_name(a->scene));
        return;
    case CONFIG_KNOB_IC:
        snprintf(out, len, "\"%s\"", sim_ic_name(p.ic));
        return;
    case CONFIG_KNOB_SEED:
        snprintf(out, len, "%llu", (unsigned long long)p.seed);
        return;
    case CONFIG_KNOB_DT:
        real(out, len, p.dt);
        return;
    case CONFIG_KNOB_SOFTENING:
        real(out, len, p.softening);
        return;
    case CONFIG_KNOB_DAMPING:
        real(out, len, p.damping);
        return;
    case CONFIG_KNOB_THETA:
        real(out, len, p.theta);
        return;
    case CONFIG_KNOB_TREE_ALPHA:
        real(out, len, p.tree_alpha);
        return;
    case CONFIG_KNOB_BACKEND:
        snprintf(out, len, "\"%s\"", sim_backend_name(p.backend));
        return;
    case CONFIG_KNOB_GPUS:
        snprintf(out, len, "%d", p.gpus);
        return;
    case CONFIG_KNOB_VARIANT:
        snprintf(out, len, "\"%s\"", app_method_name(a));
        return;
    case CONFIG_KNOB_P: /* null where the method has no block shape (the CPU's) */
    case CONFIG_KNOB_Q:
        if (sim_get_method(a->sim)->block_shape) {
            snprintf(out, len, "%d", k == CONFIG_KNOB_P ? p.p : p.q);
        } else {
            snprintf(out, len, "null");
        }
        return;
    case CONFIG_KNOB_STEPS_PER_FRAME:
        snprintf(out, len, "%d", a->live.steps_per_frame);
        return;
    case CONFIG_KNOB_MASS_RATIO:
        real(out, len, orbit ? m->mass_ratio : NAN);
        return;
    case CONFIG_KNOB_PERICENTER:
        real(out, len, orbit ? m->pericenter : NAN);
        return;
    case CONFIG_KNOB_SEPARATION:
        real(out, len, orbit ? m->separation : NAN);
        return;
    case CONFIG_KNOB_ECCENTRICITY:
        real(out, len, orbit ? m->eccentricity : NAN);
        return;
    case CONFIG_KNOB_INCL1:
        real(out, len, orbit ? m->incl1 : NAN);
        return;
    case CONFIG_KNOB_INCL2:
        real(out, len, orbit ? m->incl2 : NAN);
        return;
    case CONFIG_KNOB_RETROGRADE:
        snprintf(out, len, "%s", a->cfg.retrograde ? "true" : "false");
        return;
    case CONFIG_KNOB_DISK_TEMPERATURE: /* the value built with, not 0 for "the default" */
        real(out, len, sim_desc_defaults(&a->scene_desc).galaxy.disk_temperature);
        return;
    case CONFIG_KNOB_COUNT:
        break;
    }
    snprintf(out, len, "null");
}
