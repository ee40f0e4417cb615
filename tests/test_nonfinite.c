/* test_nonfinite.c - the integrator reports the first step that went
 * non-finite (sim_nonfinite), on the CPU backend, exact sum and tree.
 *
 * 1. A runaway body: body 0 moves at 1e308 (finite) among two ordinary
 *    bodies, so its x grows by dt * 1e308 a step and overflows to infinity
 *    after a few steps. Its velocity stays exactly 1e308 (the other bodies'
 *    pull, ~1, is far below its last place), so an independent loop of the
 *    same drift, x += dt * v in double, gives the exact step of the
 *    overflow. The steps are taken in calls of 1, 1, then 10 with dt
 *    changed from 0.25 to 0.5 between them, so the step inside a call and
 *    the simulated time across a dt change are both checked. Before that
 *    step nothing is reported.
 * 2. Gravity that overflows: two bodies of mass 1e300 at 1e-10 apart with
 *    softening 0 pull with m / r^2 = 1e320 > DBL_MAX: the first kick is
 *    infinite, so step 1 ends non-finite (step 1, time dt).
 * 3. An infinite velocity given through sim_set_bodies: step 1.
 * 4. No false alarm: a Plummer sphere stepped 64 times reports nothing, and
 *    sim_reset after a blow-up forgets it.
 * Cases 2-4 run on the tree too (the tree's own arithmetic overflows with a
 * body at 1e307, so case 1 there only checks a report at or before the
 * exact sum's step).
 */
#include <string.h>

#include "test_util.h"

/* The runaway of case 1 in plain double: the first step whose drift
 * overflows, and the simulated time at its end. */
static int64_t runaway_reference(double x0, double v, double *time) {
    const double dts[2] = {0.25, 0.5}; /* steps 1-2, then the rest */
    double x = x0, t = 0;
    for (int64_t k = 1; k < 100; k++) {
        const double dt = dts[k <= 2 ? 0 : 1];
        x += dt * v;
        t += dt;
        if (!isfinite(x)) {
            *time = t;
            return k;
        }
    }
    return -1;
}

static sim *three_bodies(sim_variant variant, double v0) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .body_count = 16,
                                 .dt = 0.25f,
                                 .softening = 0.05f,
                                 .variant = variant});
    sim_body b[3] = {
        {.pos = {0.5, 0, 0}, .vel = {v0, 0, 0}, .mass = 0.25},
        {.pos = {-0.5, 0.25, 0}, .vel = {0, 0.1, 0}, .mass = 0.5},
        {.pos = {0, -0.5, 0.5}, .vel = {0.1, 0, 0}, .mass = 0.25},
    };
    test_set_bodies(s, b, 3);
    return s;
}

static void check_runaway(sim_variant variant, const char *name) {
    const double v0 = 1e308;
    double want_time = 0;
    const int64_t want = runaway_reference(0.5, v0, &want_time);
    CHECK(want > 3, "reference step %lld", (long long)want);
    sim *s = three_bodies(variant, v0);
    int64_t step = -1;
    double time = -1;
    CHECK(!sim_nonfinite(s, &step, &time), "%s: non-finite before any step", name);
    sim_step(s, 1);
    sim_step(s, 1);
    CHECK(!sim_nonfinite(s, &step, &time), "%s: non-finite after 2 steps (step %lld)", name,
          (long long)step);
    sim_set_dt(s, 0.5f);
    sim_step(s, 10);
    const bool got = sim_nonfinite(s, &step, &time);
    printf("%s runaway: reported %s step %lld t = %g; reference step %lld t = %g\n", name,
           got ? "at" : "nothing,", (long long)step, time, (long long)want, want_time);
    CHECK(got, "%s: the overflow at step %lld is not reported", name, (long long)want);
    if (variant == SIM_VARIANT_TREE) {
        CHECK(got && step >= 1 && step <= want, "%s: step %lld, reference %lld", name,
              (long long)step, (long long)want);
    } else {
        CHECK(step == want, "%s: step %lld, want %lld", name, (long long)step, (long long)want);
        CHECK(time == want_time, "%s: time %.17g, want %.17g", name, time, want_time);
    }
    /* The first step stays reported while later ones are non-finite too. */
    int64_t again = -1;
    sim_step(s, 3);
    CHECK(sim_nonfinite(s, &again, NULL) && again == step, "%s: step %lld became %lld", name,
          (long long)step, (long long)again);
    /* A reset forgets it. */
    sim_error err = {0};
    CHECK(sim_reset(s, SIM_IC_PLUMMER, 64, 1, &err), "reset: %s", err.message);
    CHECK(!sim_nonfinite(s, NULL, NULL), "%s: still reported after sim_reset", name);
    sim_step(s, 4);
    CHECK(!sim_nonfinite(s, &step, NULL), "%s: Plummer after reset reported step %lld", name,
          (long long)step);
    sim_destroy(s);
}

static void check_step_one(sim_variant variant, const char *name) {
    /* Gravity that overflows. */
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = 16, .variant = variant});
    sim_set_softening(s, 0);
    sim_set_dt(s, 0.125f);
    sim_body pair[2] = {
        {.pos = {0, 0, 0}, .mass = 1e300},
        {.pos = {1e-10, 0, 0}, .mass = 1e300},
    };
    test_set_bodies(s, pair, 2);
    sim_step(s, 5);
    int64_t step = -1;
    double time = -1;
    CHECK(sim_nonfinite(s, &step, &time) && step == 1 && time == 0.125,
          "%s: massive pair: step %lld t %g, want 1 and 0.125", name, (long long)step, time);

    /* An infinite velocity from outside; sim_set_bodies also forgets the
     * pair's blow-up first. */
    sim_body b[2] = {
        {.pos = {0, 0, 0}, .vel = {0, INFINITY, 0}, .mass = 0.5},
        {.pos = {1, 0, 0}, .mass = 0.5},
    };
    test_set_bodies(s, b, 2);
    CHECK(!sim_nonfinite(s, NULL, NULL), "%s: set_bodies did not forget the last blow-up", name);
    sim_step(s, 2);
    CHECK(sim_nonfinite(s, &step, &time) && step == 1 && time == 0.125,
          "%s: inf velocity: step %lld t %g, want 1 and 0.125", name, (long long)step, time);
    sim_destroy(s);

    /* No false alarm on an ordinary run. */
    s = test_sim((sim_desc){
        .backend = SIM_BACKEND_CPU, .body_count = 512, .softening = 0.05f, .variant = variant});
    sim_step(s, 64);
    CHECK(!sim_nonfinite(s, &step, NULL), "%s: Plummer reported step %lld", name, (long long)step);
    sim_destroy(s);
}

int main(void) {
    check_runaway(SIM_VARIANT_BEST, "exact");
    check_runaway(SIM_VARIANT_TREE, "tree");
    check_step_one(SIM_VARIANT_BEST, "exact");
    check_step_one(SIM_VARIANT_TREE, "tree");
    return test_exit("test_nonfinite");
}
