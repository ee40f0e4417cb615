/* test_desc.c - pins the defaults of sim_desc and the name tables.
 *
 * A zero sim_desc must mean exactly the documented defaults; changing one is
 * a decision that should show up here. Also checks that explicit values
 * survive, and that the name tables round-trip.
 */
#include <string.h>

#include "test_util.h"

int main(void) {
    const sim_desc d = sim_desc_defaults(&(sim_desc){0});
    CHECK(d.body_count == 16384, "body_count %d", d.body_count);
    CHECK(d.ic == SIM_IC_PLUMMER, "ic %d", d.ic);
    CHECK(d.seed == 0, "seed %llu", (unsigned long long)d.seed);
    CHECK(d.dt == 1.0f / 128.0f, "dt %g", d.dt);
    /* Softening 0 is legal (none), so zero is not "default" here: it stays 0. */
    CHECK(d.softening == 0.0f, "softening %g", d.softening);
    CHECK(d.theta == SIM_THETA_DEFAULT, "theta %g", d.theta);
    CHECK(sim_desc_defaults(&(sim_desc){.backend = SIM_BACKEND_CPU}).theta == SIM_THETA_DEFAULT_CPU,
          "the CPU tree's own default theta");
    CHECK(d.tree_alpha == SIM_TREE_ALPHA_DEFAULT, "tree_alpha %g", d.tree_alpha);
    CHECK(sim_desc_defaults(&(sim_desc){.backend = SIM_BACKEND_CPU}).tree_alpha ==
              SIM_TREE_ALPHA_DEFAULT_CPU,
          "the CPU tree's own default tree_alpha");
    CHECK(sim_desc_defaults(&(sim_desc){.tree_alpha = -1}).tree_alpha == 0,
          "a negative tree_alpha is off (0)");
    CHECK(d.damping == 1.0f, "damping %g", d.damping);
    CHECK(d.backend == SIM_BACKEND_DEFAULT, "backend stays DEFAULT until create: %d", d.backend);
    CHECK(d.variant == sim_variant_resolve(SIM_VARIANT_DEFAULT), "variant %d", d.variant);
    /* The automatic method: all-pairs below the crossover, the tree from it. */
    CHECK(sim_desc_defaults(&(sim_desc){.body_count = SIM_TREE_CROSSOVER - 1}).variant ==
              SIM_VARIANT_BEST,
          "below the crossover: best");
    CHECK(sim_desc_defaults(&(sim_desc){.body_count = SIM_TREE_CROSSOVER}).variant ==
              SIM_VARIANT_TREE,
          "from the crossover: the tree");
    CHECK(d.p == 0 && d.q == 0, "p, q auto: %d %d", d.p, d.q);
    CHECK(d.device == 0, "device %d", d.device);
    CHECK(d.gpus == 1, "gpus %d", d.gpus);
    CHECK(d.shell.inner_radius == 0.625f, "shell inner %g", d.shell.inner_radius);
    CHECK(d.shell.outer_radius == 1.0f, "shell outer %g", d.shell.outer_radius);
    CHECK(d.shell.spin == 0.6, "shell spin %g", d.shell.spin);
    /* Field by field: padding bytes of two equal structs need not match. */
    const sim_desc z = sim_desc_defaults(NULL);
    CHECK(z.body_count == d.body_count && z.ic == d.ic && z.seed == d.seed && z.dt == d.dt &&
              z.softening == d.softening && z.damping == d.damping && z.backend == d.backend &&
              z.variant == d.variant && z.p == d.p && z.q == d.q && z.device == d.device &&
              z.shell.inner_radius == d.shell.inner_radius &&
              z.shell.outer_radius == d.shell.outer_radius && z.shell.spin == d.shell.spin,
          "NULL desc means all defaults");

    const sim_desc given = sim_desc_defaults(&(sim_desc){.body_count = 31,
                                                         .ic = SIM_IC_SHELL,
                                                         .seed = 7,
                                                         .dt = 0.5f,
                                                         .softening = 0.25f,
                                                         .damping = 0.5f,
                                                         .p = 64,
                                                         .q = 4});
    CHECK(given.body_count == 31 && given.ic == SIM_IC_SHELL && given.seed == 7 &&
              given.dt == 0.5f && given.softening == 0.25f && given.damping == 0.5f &&
              given.p == 64 && given.q == 4,
          "explicit values are kept");

    /* What sim_create resolves: the CPU backend is always there. */
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = 100});
    const sim_params p = sim_get_params(s);
    CHECK(p.backend == SIM_BACKEND_CPU, "backend %d", p.backend);
    CHECK(p.body_count == 100 && p.time == 0 && p.steps == 0, "fresh state");
    CHECK(p.dt == d.dt && p.softening == d.softening && p.damping == d.damping, "knobs");
    CHECK(p.p > 0 && p.q > 0, "block shape resolved: %d x %d", p.p, p.q);
    CHECK(p.gpus == 1, "gpus %d", p.gpus);
    sim_destroy(s);

    /* GPU counts: several need the CUDA backend; 0 and 17 are out of range.
     * Checked before any device is asked for, so these hold without one. */
    const int bad_gpus[][2] = {{SIM_BACKEND_CPU, 2}, {SIM_BACKEND_CUDA, -1},
                               {SIM_BACKEND_CUDA, SIM_MAX_GPUS + 1}};
    for (size_t i = 0; i < sizeof bad_gpus / sizeof bad_gpus[0]; i++) {
        sim_error err = {0};
        const sim_desc g = {.backend = (sim_backend)bad_gpus[i][0], .gpus = bad_gpus[i][1]};
        CHECK(!sim_desc_check(&g, &err) && err.message[0] && err.hint[0],
              "gpus %d on backend %d refused: '%s'", g.gpus, g.backend, err.message);
    }
    /* Spread: only on the CUDA backend, on two GPUs or more, with the tree;
     * each refusal for its own reason. */
    const struct {
        sim_desc d;
        const char *why;
    } bad_spread[] = {
        {{.spread = true, .backend = SIM_BACKEND_CPU}, "CPU backend"},
        {{.spread = true, .backend = SIM_BACKEND_CUDA, .gpus = 1}, "this run has 1"},
        {{.spread = true,
          .backend = SIM_BACKEND_CUDA,
          .gpus = 2,
          .body_count = 1000,
          .variant = SIM_VARIANT_BEST},
         "runs only the tree"},
    };
    for (size_t i = 0; i < sizeof bad_spread / sizeof bad_spread[0]; i++) {
        sim_error err = {0};
        CHECK(!sim_desc_check(&bad_spread[i].d, &err) && strstr(err.message, bad_spread[i].why) &&
                  err.hint[0],
              "spread case %zu refused for '%s': '%s'", i, bad_spread[i].why, err.message);
    }
    sim_error ok_err = {0};
    const sim_desc spread_ok = {
        .spread = true, .backend = SIM_BACKEND_CUDA, .gpus = 2, .variant = SIM_VARIANT_TREE};
    CHECK(sim_desc_check(&spread_ok, &ok_err), "spread tree on 2 GPUs passes: '%s'",
          ok_err.message);

    for (int i = 1; i < SIM_IC_COUNT; i++) {
        CHECK(sim_ic_from_name(sim_ic_name((sim_ic)i)) == (sim_ic)i || i == SIM_IC_PLUMMER,
              "ic name %d", i);
    }
    CHECK(sim_ic_from_name("nonsense") == SIM_IC_COUNT, "unknown ic");
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        const sim_variant_desc *info = sim_variant_info((sim_variant)v);
        CHECK(info && info->name && info->description, "variant %d has a name", v);
        CHECK(sim_variant_from_name(info->name) == (sim_variant)v, "variant %s round-trips",
              info->name);
    }
    CHECK(sim_variant_from_name("nonsense") == SIM_VARIANT_COUNT, "unknown variant");
    CHECK(sim_backend_from_name("cpu") == SIM_BACKEND_CPU, "cpu");
    CHECK(sim_backend_from_name("cuda") == SIM_BACKEND_CUDA, "cuda");

    /* Invalid descs are refused with a message and a hint, not a crash. */
    const sim_desc bad[] = {
        {.body_count = -1}, {.dt = -1},         {.softening = -0.1f},
        {.damping = 1.5f},  {.damping = -0.5f}, {.ic = SIM_IC_COUNT},
        {.dt = 1e-9f},      {.dt = 11},         {.softening = 1e-9f},
        {.theta = 1.5f},    {.theta = -1},      {.damping = 0.4f},
        {.p = 2000},        {.q = -3},          {.merger = {.mass_ratio = 1000}},
        {.tree_alpha = 2},  {.tree_alpha = 1e-5},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sim_desc b = bad[i];
        b.backend = SIM_BACKEND_CPU;
        sim_error err = {0};
        sim *x = sim_create(&b, &err);
        CHECK(x == NULL, "bad desc %zu accepted", i);
        CHECK(err.message[0] && err.hint[0], "bad desc %zu: message and hint", i);
        sim_destroy(x);
    }

    /* One range per knob: sim_knob_check takes the bounds and refuses what is
     * beyond them, not finite, or not whole where it must be, with a hint that
     * names the range. */
    for (int k = 0; k < SIM_KNOB_COUNT; k++) {
        const sim_knob_info *info = sim_knob_get((sim_knob)k);
        sim_error err = {0};
        CHECK(info->name && info->what && info->min <= info->max, "knob %d described", k);
        CHECK(sim_knob_check((sim_knob)k, info->min, NULL), "%s: min %g", info->name, info->min);
        CHECK(sim_knob_check((sim_knob)k, info->max, NULL), "%s: max %g", info->name, info->max);
        const double below = info->min - fmax(1.0, fabs(info->min)) * 1e-3;
        const double above = info->max + fmax(1.0, fabs(info->max)) * 1e-3;
        CHECK(!sim_knob_check((sim_knob)k, above, &err) && strstr(err.hint, info->name),
              "%s: %g refused (%s)", info->name, above, err.hint);
        const bool zero_in_range = info->min <= 0 && 0 <= info->max;
        CHECK(sim_knob_check((sim_knob)k, 0, NULL) == (info->zero_ok || zero_in_range),
              "%s: zero accepted exactly when documented", info->name);
        if (!(below <= 0 && info->zero_ok)) {
            CHECK(!sim_knob_check((sim_knob)k, below, NULL), "%s: %g refused", info->name, below);
        }
        CHECK(!sim_knob_check((sim_knob)k, NAN, NULL), "%s: NaN refused", info->name);
        CHECK(!sim_knob_check((sim_knob)k, INFINITY, NULL), "%s: inf refused", info->name);
    }
    CHECK(sim_knob_check(SIM_KNOB_SOFTENING, 0, NULL), "softening 0 is legal");
    CHECK(!sim_knob_check(SIM_KNOB_DT, 0, NULL), "dt 0 is not");
    CHECK(!sim_knob_check(SIM_KNOB_BODY_COUNT, 2.5, NULL), "N must be whole");
    CHECK(!sim_knob_check(SIM_KNOB_SOFTENING, 1e-46, NULL), "a softening below its range");
    return test_exit("test_desc");
}
