/* test_tree_cpu.c - the CPU reference Barnes-Hut tree (sim/sim_tree_cpu.c).
 *
 * Run: test_tree_cpu            the checks below (label cpu; also under ASan)
 *      test_tree_cpu --sweep [N] the opening-angle sweep of
 *                                docs/bench/cpu-tree-theta-sweep.txt (not a test)
 *
 * White-box where it must be (it includes sim_internal.h): the tree of a set of
 * bodies is built with sim_tree_cpu_forces and its cells are checked against
 * the invariants of the specification (every body in exactly one leaf, leaves
 * of more than 16 bodies only at level 21, children inside their parent and
 * partitioning its bodies, parents before children, masses that add up,
 * centres of mass inside their cells, the root quadrupole equal to the one
 * summed body by body). Everything else goes through the public API, with
 * .backend = SIM_BACKEND_CPU and .variant = SIM_VARIANT_TREE, against the
 * exact sum (the CPU backend with any other variant).
 *
 * Accuracy: relative error |a_tree - a_exact| / |a_exact| per body, over every
 * body. At the default theta the goal (median <= 1e-3, 99th
 * percentile <= 1e-2) must hold on a Plummer sphere and on a galaxy merger of
 * N not a power of two with unequal masses; at theta = 0.05 both statistics
 * must be at least 10x smaller (almost every cell is opened, so the tree tends
 * to the exact sum; the measured factor is far larger, the run prints it).
 */
#include <stdint.h>
#include <string.h>

#include "sim_internal.h"
#include "test_util.h"

/* ---- helpers --------------------------------------------------------------- */

typedef struct err_stats {
    double median, p99, max;
} err_stats;

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median, 99th percentile (nearest rank) and max of |a - ref| / |ref| over n bodies. */
static err_stats rel_errors(const sim_body *a, const sim_body *ref, int n) {
    double *e = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        double d2 = 0, r2 = 0;
        for (int k = 0; k < 3; k++) {
            d2 += (a[i].acc[k] - ref[i].acc[k]) * (a[i].acc[k] - ref[i].acc[k]);
            r2 += ref[i].acc[k] * ref[i].acc[k];
        }
        e[i] = r2 > 0 ? sqrt(d2 / r2) : d2 == 0 ? 0.0 : INFINITY;
    }
    qsort(e, (size_t)n, sizeof *e, cmp_double);
    err_stats s = {n % 2 ? e[n / 2] : 0.5 * (e[n / 2 - 1] + e[n / 2]),
                   e[(99 * (long long)n + 99) / 100 - 1], e[n - 1]};
    free(e);
    return s;
}

static bool all_finite(const sim_body *b, int n) {
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            if (!isfinite(b[i].acc[k])) return false;
        }
    }
    return true;
}

/* The accelerations of bodies b under variant v (tree or exact) and theta. */
static void forces(const sim_body *b, int n, float eps, sim_variant v, float theta, sim_body *out) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .body_count = 1,
                                 .softening = eps,
                                 .variant = v,
                                 .theta = theta});
    test_set_bodies(s, b, n);
    sim_get_bodies(s, out);
    sim_destroy(s);
}

/* Bodies of a scene; masses times a seeded factor in [0.5, 1.5) when unequal. */
static sim_body *scene(sim_ic ic, int n, uint64_t seed, float eps, bool unequal) {
    sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .ic = ic,
                                 .body_count = n,
                                 .seed = seed,
                                 .softening = eps,
                                 .variant = SIM_VARIANT_TREE}); /* the cheap force method */
    sim_get_bodies(s, b);
    sim_destroy(s);
    if (unequal) {
        sim_rng r = sim_rng_seed(seed + 1);
        for (int i = 0; i < n; i++) b[i].mass *= 0.5 + sim_rng_uniform(&r);
    }
    return b;
}

/* The tree's accelerations of bodies b at theta with the relative criterion's
 * alpha (0: off); *per_body gets the walk's interactions per body. */
static void tree_alpha(const sim_body *b, int n, float eps, double theta, double alpha,
                       sim_body *out, double *per_body) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .body_count = 1,
                                 .softening = eps,
                                 .variant = SIM_VARIANT_TREE,
                                 .theta = theta,
                                 .tree_alpha = alpha > 0 ? alpha : -1});
    test_set_bodies(s, b, n);
    sim_get_bodies(s, out); /* the first evaluation: theta alone, then the criterion */
    *per_body = sim_get_tree_stats(s).interactions_per_body;
    sim_destroy(s);
}

/* ---- tree invariants (white box) --------------------------------------------- */

static bool inside(double x, double lo, double side, double slack) {
    return x >= lo - slack && x <= lo + side + slack;
}

/* Builds the tree of b and checks its invariants; returns the depth. */
static int check_tree(const char *what, const sim_body *b, int n, double eps, double theta) {
    double *pos = malloc(sizeof(double) * 4 * (size_t)n),
           *acc = malloc(sizeof(double) * 3 * (size_t)n);
    int *seen = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) {
        memcpy(&pos[4 * i], b[i].pos, sizeof b[i].pos);
        pos[4 * i + 3] = b[i].mass;
    }
    sim_tree_cpu *t = sim_tree_cpu_create();
    sim_error err = {0};
    CHECK(t && sim_tree_cpu_reserve(t, n, &err), "%s: reserve: %s", what, err.message);
    sim_tree_cpu_forces(t, pos, n, eps * eps, theta, 0, NULL, acc, NULL);

    const int cells = sim_tree_cpu_node_count(t);
    const int *order = sim_tree_cpu_order(t);
    const sim_tree_cpu_node root = sim_tree_cpu_node_get(t, 0);
    const double slack = 1e-9 * root.side; /* rounding of lo + u * side / 2^21 */
    int bad = 0, depth = 0, leaves = 0;
    double total_mass = 0;
    for (int i = 0; i < n; i++) total_mass += b[i].mass;
    for (int i = 0; i < n; i++) seen[order[i]]++;
    for (int i = 0; i < n; i++) bad += seen[i] != 1;
    CHECK(bad == 0, "%s: the sorted order is not a permutation (%d bodies wrong)", what, bad);
    memset(seen, 0, sizeof(int) * (size_t)n);
    CHECK(root.level == 0 && root.first == 0 && root.count == n, "%s: root", what);
    CHECK(fabs(root.mass - total_mass) <= 1e-12 * total_mass, "%s: root mass %.17g vs %.17g", what,
          root.mass, total_mass);

    bad = 0;
    for (int c = 0; c < cells; c++) {
        const sim_tree_cpu_node x = sim_tree_cpu_node_get(t, c);
        depth = x.level > depth ? x.level : depth;
        bad += x.count < 1;
        if (x.nchild == 0) {
            leaves++;
            bad += x.count > 16 && x.level != 21;
            double m = 0;
            for (int k = x.first; k < x.first + x.count; k++) {
                seen[k]++;
                const double *p = &pos[4 * order[k]];
                m += p[3];
                for (int a = 0; a < 3; a++) bad += !inside(p[a], x.lo[a], x.side, slack);
            }
            bad += fabs(x.mass - m) > 1e-12 * fabs(m);
        } else {
            bad += x.nchild > 8 || x.child <= c || x.count <= 16 || x.level >= 21;
            double m = 0;
            int next = x.first;
            for (int k = x.child; k < x.child + x.nchild; k++) {
                const sim_tree_cpu_node y = sim_tree_cpu_node_get(t, k);
                bad += y.level != x.level + 1 || y.first != next || y.side != 0.5 * x.side;
                next = y.first + y.count;
                m += y.mass;
                for (int a = 0; a < 3; a++) {
                    bad += !inside(y.lo[a], x.lo[a], x.side, slack) ||
                           !inside(y.lo[a] + y.side, x.lo[a], x.side, slack);
                }
            }
            bad += next != x.first + x.count;
            bad += fabs(x.mass - m) > 1e-12 * fabs(m);
        }
        if (x.mass > 0) {
            for (int a = 0; a < 3; a++) bad += !inside(x.com[a], x.lo[a], x.side, slack);
        }
    }
    CHECK(bad == 0, "%s: %d cell invariants broken", what, bad);
    int twice = 0;
    for (int i = 0; i < n; i++) twice += seen[i] != 1;
    CHECK(twice == 0, "%s: %d bodies not in exactly one leaf", what, twice);

    /* The root quadrupole, shifted up level by level, equals the direct sum. */
    double q[6] = {0}, i2 = 0;
    for (int i = 0; i < n; i++) {
        const double m = pos[4 * i + 3],
                     y[3] = {pos[4 * i] - root.com[0], pos[4 * i + 1] - root.com[1],
                             pos[4 * i + 2] - root.com[2]};
        const double y2 = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
        q[0] += m * (3 * y[0] * y[0] - y2);
        q[1] += m * (3 * y[1] * y[1] - y2);
        q[2] += m * (3 * y[2] * y[2] - y2);
        q[3] += m * 3 * y[0] * y[1];
        q[4] += m * 3 * y[0] * y[2];
        q[5] += m * 3 * y[1] * y[2];
        i2 += m * y2;
    }
    double qscale = 0, qdiff = 0;
    for (int a = 0; a < 6; a++) {
        qscale = fmax(qscale, fabs(q[a]));
        qdiff = fmax(qdiff, fabs(q[a] - root.quad[a]));
    }
    /* Both sums are of terms up to M * size^2: 1e-9 of that covers rounding. */
    CHECK(qdiff <= 1e-9 * (qscale + total_mass * root.side * root.side),
          "%s: root quadrupole off by %.3g", what, qdiff);
    CHECK(fabs(i2 - root.second_moment) <= 1e-9 * (i2 + total_mass * root.side * root.side),
          "%s: root second moment %.9g, direct %.9g", what, root.second_moment, i2);

    bad = 0;
    for (int i = 0; i < 3 * n; i++) bad += !isfinite(acc[i]);
    CHECK(bad == 0, "%s: %d acceleration components not finite", what, bad);
    const sim_tree_stats st = sim_tree_cpu_stats(t);
    CHECK(st.valid && st.cells == cells && st.leaves == leaves && st.depth == depth,
          "%s: stats %d cells %d leaves depth %d vs %d %d %d", what, st.cells, st.leaves, st.depth,
          cells, leaves, depth);
    printf("%-28s N=%6d: %6d cells, %6d leaves, depth %2d, %.1f interactions/body\n", what, n,
           cells, leaves, depth, st.interactions_per_body);
    sim_tree_cpu_destroy(t);
    free(pos);
    free(acc);
    free(seen);
    return depth;
}

/* Tree vs exact on bodies b: returns the error statistics (and checks finiteness). */
static err_stats compare(const char *what, const sim_body *b, int n, float eps, float theta) {
    sim_body *tree = malloc(sizeof(sim_body) * (size_t)n),
             *exact = malloc(sizeof(sim_body) * (size_t)n);
    forces(b, n, eps, SIM_VARIANT_TREE, theta, tree);
    forces(b, n, eps, SIM_VARIANT_FP64, theta, exact);
    CHECK(all_finite(tree, n), "%s: tree forces not finite", what);
    const err_stats e = rel_errors(tree, exact, n);
    printf("%-28s N=%6d theta %.2f: median %.3g  p99 %.3g  max %.3g\n", what, n, theta, e.median,
           e.p99, e.max);
    free(tree);
    free(exact);
    return e;
}

/* ---- the checks ------------------------------------------------------------ */

/* The scenes the accuracy goal is checked on (check_accuracy,
 * check_relative): N not a power of two, unequal masses. */
typedef struct scene_case {
    const char *what;
    sim_ic ic;
    int n;
    float eps;
} scene_case;
static const scene_case goal_cases[] = {
    {"plummer, unequal masses", SIM_IC_PLUMMER, 8191, 0.05f},
    {"merger, unequal masses", SIM_IC_MERGER, 7001, 0.15f},
};
#define GOAL_CASES ((int)(sizeof goal_cases / sizeof goal_cases[0]))

/* The accuracy goal at the default theta, and theta -> 0. */
static void check_accuracy(void) {
    const float th = SIM_THETA_DEFAULT_CPU;
    const scene_case *cases = goal_cases;
    for (int c = 0; c < GOAL_CASES; c++) {
        sim_body *b = scene(cases[c].ic, cases[c].n, 7, cases[c].eps, true);
        const err_stats e = compare(cases[c].what, b, cases[c].n, cases[c].eps, th);
        CHECK(e.median <= 1e-3, "%s: median %.3g > 1e-3 at theta %.2f", cases[c].what, e.median,
              th);
        CHECK(e.p99 <= 1e-2, "%s: p99 %.3g > 1e-2 at theta %.2f", cases[c].what, e.p99, th);
        const err_stats small = compare(cases[c].what, b, cases[c].n, cases[c].eps, 0.05f);
        CHECK(small.median <= 0.1 * e.median && small.p99 <= 0.1 * e.p99,
              "%s: theta 0.05 gives median %.3g p99 %.3g, not 10x below %.3g %.3g", cases[c].what,
              small.median, small.p99, e.median, e.p99);
        check_tree(cases[c].what, b, cases[c].n, cases[c].eps, th);
        free(b);
    }
}

/* The accuracy goal of the issue is for a Plummer sphere (check_accuracy).
 * These distributions are harder for a relative error (in-plane
 * cancellations in a flat disk, no softening between close bodies) and are
 * held to 3x the goal: enough to catch a wrong multipole, since the tree
 * without its quadrupole misses it by 3x (measured at N = 3001: median
 * 1.0e-2, p99 7.2e-2 for the flat disk; 9.5e-3, 6.6e-2 with a third of it
 * massless). */
#define DEGENERATE_MEDIAN 3e-3
#define DEGENERATE_P99 3e-2

/* The relative criterion (docs/TREE.md): a cell is opened unless it also has
 * M l^3 / d^5 <= alpha |a| with |a| the body's last acceleration. Its
 * truncation error is the octupole's, ~M b^3 / d^5 with b <= l, so the
 * relative error per body falls with alpha. At theta 1 (a cell accepted
 * from d > l + delta) and ALPHA_LOOSE, the GPU's default, the criterion must
 * open more than theta alone (median at least 1.5-fold lower). At
 * ALPHA_LOOSE / 8 the median and p99 must fall at least 2-fold more (in
 * proportion they would fall 8-fold; theta's own openings and the leaves
 * summed body by body make it less), meet the
 * issue's goal (the flat disk: the degenerate bound below), and on the
 * Plummer sphere and the merger take fewer interactions than theta 0.6
 * alone, the CPU's default, at a median no more than 1.2 times its own: the
 * point of the criterion. (Walked body by body, the CPU opens by each
 * body's own distance and |a|; the GPU by its group's nearest point and
 * least |a|, which is stricter: the same alpha is more accurate there.) */
#define ALPHA_LOOSE SIM_TREE_ALPHA_DEFAULT
static void check_relative(void) {
    const scene_case cases[GOAL_CASES + 1] = {
        goal_cases[0], goal_cases[1], {"cold flat disk", SIM_IC_PLUMMER, 6007, 0.02f}};
    for (int c = 0; c < GOAL_CASES + 1; c++) {
        const int n = cases[c].n;
        const float eps = cases[c].eps;
        sim_body *b = scene(cases[c].ic, n, 11, eps, true);
        const bool flat = c == GOAL_CASES;
        if (flat) { /* z = 0 exactly, at rest */
            sim_rng r = sim_rng_seed(3);
            for (int i = 0; i < n; i++) {
                const double rad = sqrt(sim_rng_uniform(&r)),
                             ph = 6.283185307 * sim_rng_uniform(&r);
                b[i] = (sim_body){.pos = {rad * cos(ph), rad * sin(ph), 0}, .mass = 1.0 / n};
            }
        }
        sim_body *x = malloc(sizeof(sim_body) * (size_t)n),
                 *t = malloc(sizeof(sim_body) * (size_t)n);
        forces(b, n, eps, SIM_VARIANT_FP64, 0.5f, x);
        double ib = 0, ia = 0, ia8 = 0, i6 = 0;
        tree_alpha(b, n, eps, 1.0, 0, t, &ib);
        const err_stats barnes = rel_errors(t, x, n);
        tree_alpha(b, n, eps, 1.0, ALPHA_LOOSE, t, &ia);
        const err_stats rel = rel_errors(t, x, n);
        CHECK(all_finite(t, n), "%s: relative criterion: forces not finite", cases[c].what);
        tree_alpha(b, n, eps, 1.0, ALPHA_LOOSE / 8, t, &ia8);
        const err_stats rel8 = rel_errors(t, x, n);
        tree_alpha(b, n, eps, 0.6, 0, t, &i6);
        const err_stats b6 = rel_errors(t, x, n);
        printf("%-24s theta 1: median %.3g p99 %.3g (%.0f/body); alpha %g: %.3g %.3g (%.0f); "
               "alpha/8: %.3g %.3g (%.0f); theta 0.6 alone: %.3g %.3g (%.0f)\n",
               cases[c].what, barnes.median, barnes.p99, ib, ALPHA_LOOSE, rel.median, rel.p99, ia,
               rel8.median, rel8.p99, ia8, b6.median, b6.p99, i6);
        CHECK(rel.median * 1.5 <= barnes.median && ia > ib,
              "%s: alpha %g opens nothing more than theta 1 (median %.3g vs %.3g)", cases[c].what,
              ALPHA_LOOSE, rel.median, barnes.median);
        CHECK(rel8.median * 2 <= rel.median && rel8.p99 * 2 <= rel.p99,
              "%s: alpha / 8: median %.3g p99 %.3g, not 2x below %.3g %.3g", cases[c].what,
              rel8.median, rel8.p99, rel.median, rel.p99);
        const double med = flat ? DEGENERATE_MEDIAN : 1e-3, p99 = flat ? DEGENERATE_P99 : 1e-2;
        CHECK(rel8.median <= med && rel8.p99 <= p99, "%s: alpha %g: median %.3g p99 %.3g",
              cases[c].what, ALPHA_LOOSE / 8, rel8.median, rel8.p99);
        CHECK(flat || (ia8 < i6 && rel8.median <= 1.2 * b6.median),
              "%s: alpha %g: %.0f interactions a body at median %.3g; theta 0.6: %.0f at %.3g",
              cases[c].what, ALPHA_LOOSE / 8, ia8, rel8.median, i6, b6.median);
        free(x);
        free(t);
        free(b);
    }
}

/* Degenerate distributions: a valid tree, finite forces, close to exact. */
static void check_degenerate(void) {
    const int n = 3001;
    sim_body *b = calloc((size_t)n, sizeof(sim_body));
    sim_rng r = sim_rng_seed(11);

    /* All bodies at one point: every pair is at r = 0, so every force is 0
     * (with softening the pull of a coincident body is m * 0 / eps^3; without
     * it the pair is skipped). 50 > 16 bodies with one key: a chain of cells
     * down to a level-21 leaf. */
    for (int i = 0; i < 50; i++) b[i] = (sim_body){.pos = {0.25, -1, 3}, .mass = 0.02};
    for (int e = 0; e < 2; e++) {
        const float eps = e ? 0.05f : 0.0f;
        CHECK(check_tree("one point", b, 50, eps, SIM_THETA_DEFAULT_CPU) == 21,
              "one point: not depth 21");
        sim_body out[50];
        forces(b, 50, eps, SIM_VARIANT_TREE, SIM_THETA_DEFAULT_CPU, out);
        int nonzero = 0;
        for (int i = 0; i < 50; i++)
            nonzero += out[i].acc[0] != 0 || out[i].acc[1] != 0 || out[i].acc[2] != 0;
        CHECK(nonzero == 0, "one point, eps %g: %d bodies feel a force", eps, nonzero);
    }

    /* Two clusters far apart. 10^6 apart and 10^-2 across: each cluster
     * lies within one or two level-21 cells (10^6 / 2^21 = 0.48), so the
     * tree is two chains of cells ending in leaves of far more than 16
     * bodies. 10^3 apart and 1 across: chains above resolved clusters. */
    err_stats e;
    for (int c = 0; c < 2; c++) {
        const double apart = c ? 1e3 : 1e6, size = c ? 1 : 1e-2;
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++)
                b[i].pos[k] = (i % 2 ? apart : 0) + size * sim_rng_normal(&r);
            b[i].mass = (1 + sim_rng_uniform(&r)) / n;
        }
        const char *what = c ? "two clusters 1e3 apart" : "two clusters 1e6 apart";
        const int depth = check_tree(what, b, n, 1e-3 * size, SIM_THETA_DEFAULT_CPU);
        CHECK(c || depth == 21, "%s: depth %d, not 21", what, depth);
        e = compare(what, b, n, (float)(1e-3 * size), SIM_THETA_DEFAULT_CPU);
        CHECK(e.median <= DEGENERATE_MEDIAN && e.p99 <= DEGENERATE_P99, "%s: median %.3g p99 %.3g",
              what, e.median, e.p99);
    }

    /* A cold disk exactly flat in z: zero z extent. Every z displacement is
     * 0, so a_z is exactly 0 in the tree as in the exact sum. */
    for (int i = 0; i < n; i++) {
        const double rad = 3 * sqrt(sim_rng_uniform(&r)),
                     phi = sim_rng_range(&r, 0, 6.283185307179586);
        b[i] = (sim_body){.pos = {rad * cos(phi), rad * sin(phi), 0},
                          .mass = (1 + sim_rng_uniform(&r)) / n};
    }
    check_tree("flat disk", b, n, 0.05, SIM_THETA_DEFAULT_CPU);
    e = compare("flat disk", b, n, 0.05f, SIM_THETA_DEFAULT_CPU);
    CHECK(e.median <= DEGENERATE_MEDIAN && e.p99 <= DEGENERATE_P99,
          "flat disk: median %.3g p99 %.3g", e.median, e.p99);
    sim_body *out = malloc(sizeof(sim_body) * (size_t)n);
    forces(b, n, 0.05f, SIM_VARIANT_TREE, SIM_THETA_DEFAULT_CPU, out);
    int az = 0;
    for (int i = 0; i < n; i++) az += out[i].acc[2] != 0;
    CHECK(az == 0, "flat disk: %d bodies with a_z != 0", az);

    /* Massless bodies: a third of a disk with mass 0, then all of them. */
    for (int i = 0; i < n; i += 3) b[i].mass = 0;
    check_tree("a third massless", b, n, 0.05, SIM_THETA_DEFAULT_CPU);
    e = compare("a third massless", b, n, 0.05f, SIM_THETA_DEFAULT_CPU);
    CHECK(e.median <= DEGENERATE_MEDIAN && e.p99 <= DEGENERATE_P99,
          "a third massless: median %.3g p99 %.3g", e.median, e.p99);
    for (int i = 0; i < n; i++) b[i].mass = 0;
    check_tree("all massless", b, n, 0.05, SIM_THETA_DEFAULT_CPU);
    forces(b, n, 0.05f, SIM_VARIANT_TREE, SIM_THETA_DEFAULT_CPU, out);
    int moved = 0;
    for (int i = 0; i < n; i++)
        moved += out[i].acc[0] != 0 || out[i].acc[1] != 0 || out[i].acc[2] != 0;
    CHECK(moved == 0, "all massless: %d bodies feel a force", moved);

    /* Softening 0 with coincident pairs: a Gaussian blob where every body
     * has a twin at its position; the twin adds nothing (sim.h), as in the
     * exact sum. */
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) b[i].pos[k] = i % 2 ? b[i - 1].pos[k] : sim_rng_normal(&r);
        b[i].mass = (1 + sim_rng_uniform(&r)) / n;
    }
    check_tree("coincident pairs, eps 0", b, n, 0, SIM_THETA_DEFAULT_CPU);
    e = compare("coincident pairs, eps 0", b, n, 0.0f, SIM_THETA_DEFAULT_CPU);
    CHECK(e.median <= DEGENERATE_MEDIAN && e.p99 <= DEGENERATE_P99,
          "coincident pairs: median %.3g p99 %.3g", e.median, e.p99);

    /* N = 1, 2, 3: the root is a leaf, so the tree sums directly: the same
     * terms in the same order as the exact sum, hence identical results. */
    for (int m = 1; m <= 3; m++) {
        sim_body few[3] = {
            {.pos = {0, 0, 0}, .mass = 1},
            {.pos = {1, 0.5, 0}, .mass = 0.25},
            {.pos = {-0.5, 2, 1}, .mass = 0.5},
        };
        sim_body tr[3], ex[3];
        check_tree("N = 1, 2, 3", few, m, 0.05, SIM_THETA_DEFAULT_CPU);
        forces(few, m, 0.05f, SIM_VARIANT_TREE, SIM_THETA_DEFAULT_CPU, tr);
        forces(few, m, 0.05f, SIM_VARIANT_FP64, SIM_THETA_DEFAULT_CPU, ex);
        int diff = 0;
        for (int i = 0; i < m; i++) diff += memcmp(tr[i].acc, ex[i].acc, sizeof tr[i].acc) != 0;
        CHECK(diff == 0, "N = %d: %d bodies differ from the exact sum", m, diff);
    }
    free(out);
    free(b);
}

/* The cache follows the method and theta; stats and cells; the force error op. */
static void check_api(void) {
    const int n = 3001;
    sim_body *b = scene(SIM_IC_PLUMMER, n, 5, 0.05f, true);
    sim_body *tree = malloc(sizeof(sim_body) * (size_t)n),
             *again = malloc(sizeof(sim_body) * (size_t)n),
             *exact = malloc(sizeof(sim_body) * (size_t)n);
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .body_count = 1,
                                 .softening = 0.05f,
                                 .variant = SIM_VARIANT_TREE});
    test_set_bodies(s, b, n);
    sim_get_bodies(s, tree);
    const sim_tree_stats st = sim_get_tree_stats(s);
    CHECK(st.valid && st.cells > 1 && st.leaves > 1 && st.depth > 0 &&
              st.interactions_per_body > 0 && st.interactions_per_body < n,
          "tree stats: valid %d cells %d leaves %d depth %d ipb %.1f", st.valid, st.cells,
          st.leaves, st.depth, st.interactions_per_body);
    sim_tree_cell cells[4096];
    const int got = sim_tree_cells(s, 2, cells, 4096);
    int order_ok = got > 1 && cells[0].level == 0;
    for (int i = 1; i < got; i++)
        order_ok &= cells[i].level >= cells[i - 1].level && cells[i].level <= 2;
    CHECK(order_ok, "sim_tree_cells(depth 2): %d cells, not levels 0..2 parents first", got);
    CHECK(sim_tree_cells(s, 2, cells, 3) == 3, "sim_tree_cells does not stop at max_cells");

    /* The force error over all bodies equals the errors computed here. */
    sim_error err = {0};
    sim_force_error fe;
    forces(b, n, 0.05f, SIM_VARIANT_FP64, SIM_THETA_DEFAULT_CPU, exact);
    const err_stats mine = rel_errors(tree, exact, n);
    CHECK(sim_measure_force_error(s, n + 10, 1, &fe, &err), "force error: %s", err.message);
    CHECK(fe.samples == n && fabs(fe.median - mine.median) <= 1e-12 * mine.median &&
              fabs(fe.p99 - mine.p99) <= 1e-12 * mine.p99 &&
              fabs(fe.max - mine.max) <= 1e-12 * mine.max,
          "force error %d: %.6g %.6g %.6g vs %.6g %.6g %.6g", fe.samples, fe.median, fe.p99, fe.max,
          mine.median, mine.p99, mine.max);
    CHECK(sim_measure_force_error(s, 100, 2, &fe, &err) && fe.samples == 100 && fe.median > 0 &&
              fe.median <= fe.p99 && fe.p99 <= fe.max && fe.max <= mine.max,
          "force error of 100 samples: %d %.3g %.3g %.3g", fe.samples, fe.median, fe.p99, fe.max);

    /* Switching methods: the exact method gives exact forces, and back on
     * the tree the same tree forces, bit for bit. */
    CHECK(sim_set_variant(s, SIM_VARIANT_FP64, &err), "to fp64: %s", err.message);
    sim_get_bodies(s, again);
    CHECK(memcmp(again[7].acc, exact[7].acc, sizeof exact[7].acc) == 0 &&
              memcmp(again[n - 1].acc, exact[n - 1].acc, sizeof exact[7].acc) == 0,
          "the exact method after the tree does not give the exact forces");
    CHECK(!sim_get_tree_stats(s).valid && sim_tree_cells(s, 2, cells, 4096) == 0,
          "tree stats or cells while the exact method runs");
    CHECK(sim_measure_force_error(s, n, 1, &fe, &err) && fe.max == 0, "exact vs exact: max %.3g",
          fe.max);
    CHECK(sim_set_variant(s, SIM_VARIANT_TREE, &err), "to tree: %s", err.message);
    sim_get_bodies(s, again);
    int same = 1;
    for (int i = 0; i < n; i++) same &= memcmp(again[i].acc, tree[i].acc, sizeof tree[i].acc) == 0;
    CHECK(same, "the tree forces changed after a switch to exact and back");
    /* theta is part of the cache key: half the theta, smaller errors (the
     * median error goes roughly as theta^2.5 here, so about 5x smaller; the
     * sweep in docs/bench/cpu-tree-theta-sweep.txt shows the trend). */
    sim_set_theta(s, 0.5f * SIM_THETA_DEFAULT_CPU);
    sim_get_bodies(s, again);
    const err_stats fine = rel_errors(again, exact, n);
    CHECK(fine.median < 0.5 * mine.median, "theta %.2f: median %.3g not below half of %.3g",
          0.5 * SIM_THETA_DEFAULT_CPU, fine.median, mine.median);
    sim_destroy(s);
    free(b);
    free(tree);
    free(again);
    free(exact);
}

/* Energy and momentum of a Plummer sphere integrated with the tree. */
static void check_conservation(void) {
    const int n = 2001, steps = 128; /* 1 time unit at dt = 1/128 */
    double de[2], dp[2];
    double err_momentum_rate = 0; /* sum m |a_tree - a_exact| at the start */
    double err_energy_rate = 0;   /* sum m |v| |a_tree - a_exact| at the start */
    for (int method = 0; method < 2; method++) {
        const sim_variant v = method ? SIM_VARIANT_TREE : SIM_VARIANT_FP64;
        sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                     .body_count = n,
                                     .seed = 3,
                                     .softening = 0.05f,
                                     .dt = 1.0f / 128.0f,
                                     .variant = v});
        if (method == 1) {
            sim_body *tree = malloc(sizeof(sim_body) * (size_t)n),
                     *exact = malloc(sizeof(sim_body) * (size_t)n);
            sim_get_bodies(s, tree);
            forces(tree, n, 0.05f, SIM_VARIANT_FP64, SIM_THETA_DEFAULT_CPU, exact);
            for (int i = 0; i < n; i++) {
                double d2 = 0;
                for (int k = 0; k < 3; k++) d2 += pow(tree[i].acc[k] - exact[i].acc[k], 2);
                err_momentum_rate += tree[i].mass * sqrt(d2);
                err_energy_rate +=
                    tree[i].mass * sqrt(d2) *
                    sqrt(pow(tree[i].vel[0], 2) + pow(tree[i].vel[1], 2) + pow(tree[i].vel[2], 2));
            }
            free(tree);
            free(exact);
        }
        const sim_diag d0 = sim_diagnostics(s);
        sim_step(s, steps);
        const sim_diag d1 = sim_diagnostics(s);
        de[method] = fabs((d1.total - d0.total) / d0.total);
        dp[method] =
            sqrt(pow(d1.momentum[0] - d0.momentum[0], 2) + pow(d1.momentum[1] - d0.momentum[1], 2) +
                 pow(d1.momentum[2] - d0.momentum[2], 2));
        sim_destroy(s);
    }
    const double t = steps / 128.0, e0 = 0.25; /* |E0| of the Plummer sphere in Henon units */
    printf(
        "plummer N=%d, %d steps: |dE/E0| exact %.3g tree %.3g (bound t sum m|v||da|/|E0| = %.3g); "
        "|dP| exact %.3g tree %.3g (bound t sum m|da| = %.3g)\n",
        n, steps, de[0], de[1], t * err_energy_rate / e0, dp[0], dp[1], t * err_momentum_rate);
    /* Energy: the standard the exact method is held to in test_leapfrog
     * (|dE/E0| < 1e-4 over 2 time units at this N, dt and softening): the
     * tree must meet it over 1 time unit. The line above also prints the
     * worst case a force error da allows, t * sum m |v| |da| / |E0| (errors
     * all aligned with the velocities); it is far looser than 1e-4 here, so
     * it is shown, not checked. */
    CHECK(de[1] < 1e-4, "tree |dE/E0| %.3g", de[1]);
    /* Momentum: the exact sum is pairwise antisymmetric (test_leapfrog:
     * rounding only). The tree's forces are not: dP/dt = sum m_i da_i, so
     * |dP| <= int sum m |da| dt ~ t * (its value at the start) for a sphere
     * in equilibrium; a factor 2 covers its change along the run. The errors
     * point in different directions, so the drift is far below that. */
    CHECK(dp[0] < 1e-12, "exact |dP| %.3g", dp[0]);
    CHECK(dp[1] <= 2 * t * err_momentum_rate, "tree |dP| %.3g above 2 t sum m|da| = %.3g", dp[1],
          2 * t * err_momentum_rate);
}

/* ---- the sweep (not a test) ---------------------------------------------------- */

static int sweep(int n) {
    const float thetas[] = {0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f};
    const struct {
        const char *name;
        sim_ic ic;
        float eps;
    } scenes[] = {{"plummer", SIM_IC_PLUMMER, 0.05f}, {"merger", SIM_IC_MERGER, 0.15f}};
    const int samples = 4096;
    printf("# CPU reference tree (double precision, per-body walk), N = %d, %d sampled bodies\n", n,
           samples);
    printf("# error = |a_tree - a_exact| / |a_exact|; p99 = 99th percentile\n");
    printf("%-8s %5s %11s %11s %11s %12s %9s %9s\n", "scene", "theta", "median", "p99", "max",
           "inter/body", "build_ms", "walk_ms");
    for (size_t c = 0; c < sizeof scenes / sizeof scenes[0]; c++) {
        sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                     .ic = scenes[c].ic,
                                     .body_count = n,
                                     .seed = 1,
                                     .softening = scenes[c].eps,
                                     .variant = SIM_VARIANT_TREE});
        for (size_t k = 0; k < sizeof thetas / sizeof thetas[0]; k++) {
            sim_set_theta(s, thetas[k]);
            sim_force_error fe;
            sim_error err = {0};
            if (!sim_measure_force_error(s, samples, 42, &fe, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            const sim_tree_stats st = sim_get_tree_stats(s);
            printf("%-8s %5.2f %11.3e %11.3e %11.3e %12.1f %9.1f %9.1f\n", scenes[c].name,
                   thetas[k], fe.median, fe.p99, fe.max, st.interactions_per_body, st.build_ms,
                   st.walk_ms);
            fflush(stdout);
        }
        sim_destroy(s);
    }
    return 0;
}

/* The force error's one definition (sim.c), which both backends report. */
static void check_error_summary(void) {
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, many[200];
    sim_force_error e;
    sim_force_error_summary(odd, 3, &e);
    CHECK(e.samples == 3 && e.median == 2 && e.p99 == 3 && e.max == 3, "summary of 3: %g %g %g",
          e.median, e.p99, e.max);
    sim_force_error_summary(even, 4, &e);
    CHECK(e.median == 2.5 && e.max == 4, "summary of 4: median %g", e.median);
    for (int i = 0; i < 200; i++) many[i] = 200 - i; /* 1 .. 200, reversed */
    sim_force_error_summary(many, 200, &e);
    CHECK(e.p99 == 198 && e.median == 100.5, "summary of 200: p99 %g (the 198th), median %g", e.p99,
          e.median);
    const double zero[3] = {0, 0, 0}, one[3] = {1, 0, 0}, half[3] = {0.5, 0, 0};
    CHECK(sim_relative_error(half, one) == 0.5, "relative error 0.5");
    CHECK(sim_relative_error(zero, zero) == 0, "no force, none computed: 0");
    CHECK(isinf(sim_relative_error(one, zero)), "no force, some computed: infinite");
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "--sweep") == 0)
        return sweep(argc >= 3 ? atoi(argv[2]) : 131071);
    check_error_summary();
    check_degenerate();
    check_api();
    check_accuracy();
    check_relative();
    check_conservation();
    return test_exit("test_tree_cpu");
}
