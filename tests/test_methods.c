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
 */
#include <string.h>

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

int main(void) {
    check_cuda();
    check_cpu();
    check_edges();
    check_running();
    return test_exit("test_methods");
}
