/* test_methods.c - sim's description of its force methods, without a GPU.
 *
 *     test_methods
 *
 * The app shows, steps through, times and draws the force methods from the
 * properties sim_method_of and sim_methods give, never by a method's name,
 * so these rows must say what the code does. Checked here: every variant
 * has a CUDA row; the ladder lists the CUDA rungs in enum order with the
 * tree last, and the CPU's reference then tree; a row is exact exactly
 * when its step grows as N^2; only the tree uses theta and has cells;
 * fp64 rows count 30 flops an interaction and the others 20; on the CPU
 * backend every exact variant runs the one reference row, whose variant is
 * best, and no row takes a block shape; names are unique per backend; and
 * a running simulation reports the row of its backend and variant.
 *
 * And the kernel cost table behind the benchmark's ceiling
 * (sim_loop_cost_of) against the builds that run (white box: sim/'s
 * sim_kernels_builds): best's row at every N and block shape is the one
 * of the build its thresholds pick (the wide one from its N in at most its
 * threads, else the prefetching one in at most its threads, else the
 * 1024-thread one), as without a device; the rows of best's builds and
 * fp64's count unroll x B MUFU.RSQ of two interactions each, B being their
 * build's, and their notes and best's p say that B; every exact CUDA method
 * has a row and the tree none; and the ceiling's arithmetic.
 *
 * And the automatic GPU count (sim_gpus_for) at and beside its measured
 * thresholds, for one to eight visible GPUs: 1, 2, then every GPU up to
 * four, never fewer as N grows; and where the tree's bodies are spread
 * (sim_spread_for): never on one GPU, from its threshold on two and on
 * three or more, and once spread, still spread as N grows.
 */
#include <limits.h>
#include <string.h>

#include "sim_internal.h"
#include "test_util.h"

/* The rows of backend b in ladder order; how many (at most max). */
static int rows_of(sim_backend b, const sim_method **rows, int max) {
    sim_variant v[SIM_VARIANT_COUNT];
    const int count = sim_methods(b, v, SIM_VARIANT_COUNT);
    CHECK(count > 0 && count <= max, "%s: %d methods", sim_backend_name(b), count);
    for (int k = 0; k < count && k < max; k++) {
        rows[k] = sim_method_of(b, v[k]);
        CHECK(rows[k] != NULL, "%s: no row for its own ladder's variant %d", sim_backend_name(b),
              v[k]);
        if (rows[k]) {
            CHECK(rows[k]->variant == v[k], "%s: the ladder's variant %d has the row of %d",
                  sim_backend_name(b), v[k], rows[k]->variant);
        }
    }
    return count < max ? count : max;
}

/* What holds for every row of either backend. */
static void check_row(sim_backend b, const sim_method *m) {
    const char *be = sim_backend_name(b);
    CHECK(m->name && m->name[0], "%s: a row without a name", be);
    CHECK(m->description && m->description[0], "%s %s: no description", be, m->name);
    CHECK(m->exact == (m->scaling == SIM_SCALING_N2), "%s %s: exact %d but scaling %d", be, m->name,
          m->exact, m->scaling);
    CHECK(m->uses_theta == (m->variant == SIM_VARIANT_TREE), "%s %s: uses_theta %d", be, m->name,
          m->uses_theta);
    CHECK(m->has_cells == (m->variant == SIM_VARIANT_TREE), "%s %s: has_cells %d", be, m->name,
          m->has_cells);
    CHECK(m->flops_per_interaction == (m->fp64 ? 30.0 : 20.0), "%s %s: %g flops (fp64 %d)", be,
          m->name, m->flops_per_interaction, m->fp64);
    CHECK(m->block_shape == (b == SIM_BACKEND_CUDA), "%s %s: block_shape %d", be, m->name,
          m->block_shape);
    if (!m->block_shape) {
        CHECK(!m->p_meaning && !m->q_meaning, "%s %s: p or q described but not used", be, m->name);
    } else {
        CHECK(m->p_meaning != NULL, "%s %s: takes a block shape, p not described", be, m->name);
    }
}

static void check_unique_names(sim_backend b, const sim_method **rows, int count) {
    for (int i = 0; i < count; i++) {
        for (int j = i + 1; j < count; j++) {
            CHECK(strcmp(rows[i]->name, rows[j]->name) != 0, "%s: two methods named %s",
                  sim_backend_name(b), rows[i]->name);
        }
    }
}

static void check_cuda(void) {
    const sim_method *rows[SIM_VARIANT_COUNT];
    const int count = rows_of(SIM_BACKEND_CUDA, rows, SIM_VARIANT_COUNT);
    CHECK(count == SIM_VARIANT_COUNT - 1, "cuda: %d methods, want every variant", count);
    for (int k = 0; k < count; k++) {
        CHECK(rows[k]->variant == (sim_variant)(k + 1),
              "cuda: rung %d is variant %d, not enum order", k, rows[k]->variant);
        check_row(SIM_BACKEND_CUDA, rows[k]);
    }
    CHECK(count > 0 && rows[count - 1]->variant == SIM_VARIANT_TREE, "cuda: the tree is not last");
    check_unique_names(SIM_BACKEND_CUDA, rows, count);
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        const sim_method *m = sim_method_of(SIM_BACKEND_CUDA, (sim_variant)v);
        const sim_variant_desc *d = sim_variant_info((sim_variant)v);
        CHECK(m && (int)m->variant == v, "cuda: variant %d has no row of its own", v);
        if (!m || !d) continue;
        CHECK(strcmp(m->name, d->name) == 0 && m->fp64 == d->fp64 &&
                  m->description == d->description && m->p_meaning == d->p_meaning &&
                  m->q_meaning == d->q_meaning,
              "cuda %s: the row and sim_variant_info disagree", m->name);
        CHECK((int)sim_variant_from_name(m->name) == v, "cuda %s: its name is not its variant's",
              m->name);
    }
    CHECK(sim_method_of(SIM_BACKEND_CUDA, SIM_VARIANT_DEFAULT) ==
              sim_method_of(SIM_BACKEND_CUDA, sim_variant_resolve(SIM_VARIANT_DEFAULT)),
          "cuda: DEFAULT is not resolved as sim_variant_resolve does");
}

static void check_cpu(void) {
    const sim_method *rows[SIM_VARIANT_COUNT];
    const int count = rows_of(SIM_BACKEND_CPU, rows, SIM_VARIANT_COUNT);
    CHECK(count == 2, "cpu: %d methods, want the reference and the tree", count);
    if (count == 2) {
        CHECK(strcmp(rows[0]->name, "reference") == 0 && rows[0]->variant == SIM_VARIANT_BEST &&
                  rows[0]->exact && rows[0]->fp64,
              "cpu: the first method is not the double-precision reference as best");
        CHECK(strcmp(rows[1]->name, "tree") == 0 && rows[1]->variant == SIM_VARIANT_TREE,
              "cpu: the second method is not the tree");
    }
    for (int k = 0; k < count; k++) check_row(SIM_BACKEND_CPU, rows[k]);
    check_unique_names(SIM_BACKEND_CPU, rows, count);
    /* Every variant the CUDA backend sums exactly runs the reference here. */
    for (int v = 0; v < SIM_VARIANT_COUNT; v++) {
        const sim_method *cuda = sim_method_of(SIM_BACKEND_CUDA, (sim_variant)v);
        const sim_method *cpu = sim_method_of(SIM_BACKEND_CPU, (sim_variant)v);
        CHECK(cpu != NULL, "cpu: variant %d has no method", v);
        if (!cpu || !cuda) continue;
        if (cuda->exact) {
            CHECK(cpu == rows[0], "cpu: exact variant %s runs %s, not the reference", cuda->name,
                  cpu->name);
        } else {
            CHECK((int)cpu->variant == v, "cpu: variant %s runs %s", cuda->name, cpu->name);
        }
    }
}

/* Out of range, other backends, short and absent out arrays. */
static void check_edges(void) {
    for (int b = 0; b < 2; b++) {
        const sim_backend be = b ? SIM_BACKEND_CPU : SIM_BACKEND_CUDA;
        CHECK(!sim_method_of(be, SIM_VARIANT_COUNT), "%s: a row for COUNT", sim_backend_name(be));
        CHECK(!sim_method_of(be, (sim_variant)-1), "%s: a row for -1", sim_backend_name(be));
        const int count = sim_methods(be, NULL, 0);
        sim_variant out[SIM_VARIANT_COUNT + 1];
        for (int k = 0; k <= SIM_VARIANT_COUNT; k++) out[k] = SIM_VARIANT_COUNT;
        CHECK(sim_methods(be, out, 1) == count, "%s: the count depends on max",
              sim_backend_name(be));
        CHECK(out[0] != SIM_VARIANT_COUNT && out[1] == SIM_VARIANT_COUNT, "%s: max 1 wrote %s",
              sim_backend_name(be), out[1] == SIM_VARIANT_COUNT ? "none" : "2");
    }
    CHECK(sim_methods(SIM_BACKEND_DEFAULT, NULL, 0) == 0 &&
              sim_methods(SIM_BACKEND_COUNT, NULL, 0) == 0,
          "methods for a backend that is neither CUDA nor CPU");
    CHECK(!sim_method_of(SIM_BACKEND_DEFAULT, SIM_VARIANT_BEST), "a row for backend DEFAULT");
}

/* A CPU simulation reports the row of its variant as it switches. */
static void check_running(void) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .body_count = 64,
                                 .softening = 0.05f,
                                 .variant = SIM_VARIANT_TREE});
    CHECK(sim_get_method(s) == sim_method_of(SIM_BACKEND_CPU, SIM_VARIANT_TREE),
          "a CPU tree simulation does not report the tree");
    sim_error err = {0};
    CHECK(sim_set_variant(s, SIM_VARIANT_FP64, &err), "switch to fp64: %s", err.message);
    const sim_method *m = sim_get_method(s);
    CHECK(m && strcmp(m->name, "reference") == 0, "a CPU fp64 simulation reports %s",
          m ? m->name : "nothing");
    sim_destroy(s);
}

/* The build of best that the thresholds give n bodies in blocks of p x q
 * threads (builds[] as sim_kernels_builds lists them): the wide one from
 * its N in at most its threads, else the prefetching one in at most its
 * threads, else the 1024-thread one. */
static const sim_kernel_build *expected_build(const sim_kernel_build *builds, int count, int n,
                                              int p, int q) {
    const sim_kernel_build *wide = NULL, *prefetch = NULL, *plain = NULL;
    for (int k = 0; k < count; k++) {
        if (builds[k].fp64) continue;
        if (builds[k].min_n > 0)
            wide = &builds[k];
        else if (builds[k].max_threads < 1024)
            prefetch = &builds[k];
        else
            plain = &builds[k];
    }
    CHECK(wide && prefetch && plain, "best's three builds are not wide, prefetching, 1024-thread");
    if (!wide || !prefetch || !plain) return NULL;
    const long long threads = (long long)p * (q > 1 ? q : 1);
    if (n >= wide->min_n && threads <= wide->max_threads) return wide;
    return threads <= prefetch->max_threads ? prefetch : plain;
}

/* A row of best or fp64 against its build: each pass of the unrolled loop
 * evaluates unroll x B pairs (one MUFU.RSQ each) of two interactions, and
 * the note names B. */
static void check_pair_row(const sim_loop_cost *c, const sim_kernel_build *b, const char *what) {
    CHECK(c->rsqrts == b->unroll * b->b, "%s: row %s counts %d rsqrts, build %s has %d x B = %d",
          what, c->build, c->rsqrts, b->name, b->unroll, b->unroll * b->b);
    CHECK(c->interactions == 2, "%s: row %s: %d interactions an evaluation, not 2", what, c->build,
          c->interactions);
    CHECK(c->instructions > c->rsqrts, "%s: row %s: %d instructions", what, c->build,
          c->instructions);
    char lane[64];
    snprintf(lane, sizeof lane, "(%d i bodies per lane)", b->b);
    CHECK(b->fp64 || (c->note && strstr(c->note, lane)), "%s: row %s's note does not say %s", what,
          c->build, lane);
}

/* best's rows are chosen by the builds' thresholds (no device: this is a
 * CPU test) and agree with the build chosen; fp64's row with its build;
 * the other rungs have a row each and the tree none. */
static void check_costs(void) {
    sim_kernel_build builds[8];
    const int count = sim_kernels_builds(builds, 8);
    CHECK(count == 4, "%d kernel builds, want best's three and fp64's", count);
    const int ns[] = {1, 1000, 4096, 16383, 16384, 16385, 65536, 1 << 20, 2147483647};
    int seen[8] = {0};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        for (int p = 32; p <= 1056; p += 32) {
            for (int q = 0; q <= 8; q++) {
                const sim_kernel_build *want = expected_build(builds, count, ns[i], p, q);
                sim_loop_cost c;
                if (!want || !sim_kernels_loop_cost(SIM_VARIANT_BEST, ns[i], p, q, false, &c)) {
                    CHECK(false, "best at N=%d %d x %d: no row", ns[i], p, q);
                    continue;
                }
                seen[want - builds]++;
                char what[64];
                snprintf(what, sizeof what, "best N=%d %d x %d", ns[i], p, q);
                CHECK(strcmp(c.build, want->name) == 0, "%s: row %s, the thresholds say %s", what,
                      c.build, want->name);
                check_pair_row(&c, want, what);
            }
        }
    }
    for (int k = 0; k < count; k++) {
        CHECK(builds[k].fp64 || seen[k] > 0, "build %s never chosen", builds[k].name);
        if (!builds[k].fp64) continue;
        sim_loop_cost c;
        CHECK(sim_kernels_loop_cost(SIM_VARIANT_FP64, 1000, 128, 2, false, &c), "fp64: no row");
        CHECK(strcmp(c.build, builds[k].name) == 0, "fp64's row is %s", c.build);
        check_pair_row(&c, &builds[k], "fp64");
        CHECK(c.fp64_ops > 0 && c.fp64_ops <= c.instructions, "fp64: %d FP64 ops of %d", c.fp64_ops,
              c.instructions);
    }
    /* best's p says how many i bodies a warp holds, and where that changes. */
    const sim_method *best = sim_method_of(SIM_BACKEND_CUDA, SIM_VARIANT_BEST);
    const sim_kernel_build *wide = expected_build(builds, count, 1 << 30, 32, 1);
    const sim_kernel_build *narrow = expected_build(builds, count, 1, 32, 1);
    if (best && wide && narrow) {
        char text[160];
        snprintf(text, sizeof text,
                 "a warp holds %d i bodies (%d below %d bodies or above %d threads)", 32 * wide->b,
                 32 * narrow->b, wide->min_n, wide->max_threads);
        CHECK(strstr(best->p_meaning, text), "best's p says \"%s\", not \"%s\"", best->p_meaning,
              text);
    }

    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        const sim_method *m = sim_method_of(SIM_BACKEND_CUDA, (sim_variant)v);
        sim_loop_cost c = {0};
        const bool has = sim_loop_cost_of((sim_variant)v, 1000, 128, 1, &c);
        CHECK(has == m->exact, "%s: a loop cost %s", m->name, has ? "but not exact" : "missing");
        if (!has || v == SIM_VARIANT_BEST || v == SIM_VARIANT_FP64) continue;
        CHECK(strcmp(c.build, m->name) == 0 && c.interactions == 1 && c.fp64_ops == 0 &&
                  c.rsqrts >= 1 && c.instructions > c.rsqrts,
              "%s: row %s %d/%d x%d", m->name, c.build, c.instructions, c.rsqrts, c.interactions);
    }
    sim_loop_cost c;
    CHECK(!sim_loop_cost_of(SIM_VARIANT_COUNT, 1000, 128, 1, &c), "a row for COUNT");
    CHECK(sim_loop_cost_of(SIM_VARIANT_DEFAULT, 1000, 128, 1, &c) && strcmp(c.build, "fp64") != 0,
          "DEFAULT is not best");
}

/* The ceiling's arithmetic on a made-up device: SMs x 128 x clock / slots
 * x interactions, and fp64 held to its FP64 pipe; 0 where unknown. */
static void check_ceiling(void) {
    sim_device_info dev = {.sm_count = 100, .clock_khz = 2000000, .cc_major = 9, .cc_minor = 0};
    const sim_loop_cost one = {"x", 50, 2, 1, 0, NULL, 2}, pair = {"y", 100, 4, 2, 80, NULL, 4};
    const double issue = 100 * 128.0 * 2e9 / 25.0;
    CHECK(fabs(sim_loop_ceiling(&one, &dev) - issue) <= 1e-9 * issue, "issue ceiling %g, want %g",
          sim_loop_ceiling(&one, &dev), issue);
    /* the pair: issue 2 x issue; FP64 pipe 100 x 64 x 2e9 / 20 x 2 = 1.28e12, lower */
    const double fp64 = 100 * 64.0 * 2e9 / 20.0 * 2;
    CHECK(fabs(sim_loop_ceiling(&pair, &dev) - fp64) <= 1e-9 * fp64, "fp64 ceiling %g, want %g",
          sim_loop_ceiling(&pair, &dev), fp64);
    CHECK(sim_fp64_lanes(&dev) == 64, "cc 9.0: %d FP64 lanes", sim_fp64_lanes(&dev));
    dev.cc_major = 6;
    CHECK(sim_loop_ceiling(&pair, &dev) == 0, "fp64 on an unknown architecture: not 0");
    CHECK(sim_loop_ceiling(&one, &dev) > 0, "float on an unknown architecture: 0");
    CHECK(sim_loop_ceiling(NULL, &dev) == 0, "no row: not 0");
}

static void check_gpus_for(void) {
    const struct {
        sim_scaling scaling;
        int two, four;
    } rows[] = {{SIM_SCALING_N2, SIM_GPUS2_MIN_BODIES_N2, SIM_GPUS4_MIN_BODIES_N2},
                {SIM_SCALING_NLOGN, SIM_GPUS2_MIN_BODIES_NLOGN, SIM_GPUS4_MIN_BODIES_NLOGN}};
    for (int r = 0; r < 2; r++) {
        const sim_scaling sc = rows[r].scaling;
        const int two = rows[r].two, four = rows[r].four;
        CHECK(two < four, "scaling %d: two GPUs' threshold %d below four's %d", (int)sc, two, four);
        CHECK(sim_gpus_for(100000000, sc, 1) == 1, "one device: one GPU");
        CHECK(sim_gpus_for(two - 1, sc, 4) == 1 && sim_gpus_for(two, sc, 4) == 2,
              "scaling %d: 2 GPUs from %d bodies: %d at %d, %d at %d", (int)sc, two,
              sim_gpus_for(two - 1, sc, 4), two - 1, sim_gpus_for(two, sc, 4), two);
        CHECK(sim_gpus_for(four - 1, sc, 4) == 2 && sim_gpus_for(four, sc, 4) == 4,
              "scaling %d: 4 GPUs from %d bodies: %d at %d, %d at %d", (int)sc, four,
              sim_gpus_for(four - 1, sc, 4), four - 1, sim_gpus_for(four, sc, 4), four);
        CHECK(sim_gpus_for(four, sc, 2) == 2 && sim_gpus_for(four, sc, 3) == 3 &&
                  sim_gpus_for(100000000, sc, 8) == SIM_GPUS_AUTO_MAX,
              "scaling %d: 2 of 2, 3 of 3, %d of 8 (got %d, %d, %d)", (int)sc, SIM_GPUS_AUTO_MAX,
              sim_gpus_for(four, sc, 2), sim_gpus_for(four, sc, 3), sim_gpus_for(100000000, sc, 8));
        for (int devices = 1; devices <= 8; devices++) {
            int last = 1;
            for (int n = 1; n <= 4 * four; n += n / 8 + 1) {
                const int g = sim_gpus_for(n, sc, devices);
                CHECK(g >= last && g <= devices, "scaling %d, %d devices, %d bodies: %d GPUs",
                      (int)sc, devices, n, g);
                last = g;
            }
        }
    }
}

static void check_spread_for(void) {
    const int two = SIM_SPREAD2_MIN_BODIES, four = SIM_SPREAD4_MIN_BODIES;
    CHECK(two <= four, "spread on two GPUs from %d, on four from %d", two, four);
    CHECK(!sim_spread_for(INT_MAX, 1) && !sim_spread_for(INT_MAX, 0), "one GPU: not spread");
    CHECK(!sim_spread_for(two - 1, 2) && sim_spread_for(two, 2), "two GPUs: spread from %d", two);
    for (int gpus = 3; gpus <= SIM_MAX_GPUS; gpus++) {
        CHECK(!sim_spread_for(four - 1, gpus) && sim_spread_for(four, gpus),
              "%d GPUs: spread from %d", gpus, four);
    }
    for (int gpus = 2; gpus <= 8; gpus++) {
        bool was = false;
        for (int n = 1; n <= INT_MAX / 2; n *= 2) {
            const bool now = sim_spread_for(n, gpus);
            CHECK(now || !was, "%d GPUs: spread at %d bodies but not at %d", gpus, n / 2, n);
            was = now;
        }
    }
}

int main(void) {
    check_gpus_for();
    check_spread_for();
    check_cuda();
    check_cpu();
    check_edges();
    check_running();
    check_costs();
    check_ceiling();
    return test_exit("test_methods");
}
