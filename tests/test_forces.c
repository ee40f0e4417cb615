/* test_forces.c - the CPU reference's accelerations against an independent
 * brute-force double sum.
 *
 * The independent sum is written differently on purpose: pairs i < j once,
 * Newton's third law for the partner, pow() for the 3/2 power. Random
 * unequal masses, N = 1, 2, 31, 1000, 1531 (not multiples of 32 or 256),
 * with and without softening. Without softening, also bodies at the same
 * position: sim.h says such a pair adds no force and no potential, so the
 * accelerations and the potential must be finite and match a brute-force
 * sum that leaves those pairs out, and two coincident bodies feel exactly
 * the same acceleration.
 *
 * Tolerance: both sides are double precision. Each term carries ~1e-16
 * relative rounding and a sum of N <= 1531 terms of magnitude <= m/eps^2
 * ~ 1 accumulates at most ~1e-13 absolute error, so atol = rtol = 1e-10 is
 * loose for rounding yet a thousand times tighter than any real mistake
 * (a missing softening term or a wrong mass changes accelerations by
 * >= 1e-3 here).
 */
#include <string.h>

#include "test_util.h"

/* Accelerations, and the potential W = -sum_{i<j} m_i m_j / r, of the
 * pairs with r^2 + eps^2 > 0. */
static double brute_force(const sim_body *b, int n, double eps, double (*acc)[3]) {
    memset(acc, 0, sizeof(double[3]) * (size_t)n);
    double w = 0;
    for (int i = 0; i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            double d[3];
            for (int k = 0; k < 3; k++) d[k] = b[j].pos[k] - b[i].pos[k];
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
            if (r2 == 0) continue;
            w -= b[i].mass * b[j].mass / pow(r2, 0.5);
            double f = 1.0 / pow(r2, 1.5);
            for (int k = 0; k < 3; k++) {
                acc[i][k] += b[j].mass * f * d[k];
                acc[j][k] -= b[i].mass * f * d[k];
            }
        }
    }
    return w;
}

/* coincident > 0: that many bodies are moved onto others (body 3k + 1 onto
 * body 3k), so with eps = 0 those pairs are at zero separation. */
static void check_n(int n, double eps, unsigned long long seed, int coincident) {
    sim_body *in = malloc(sizeof(sim_body) * (size_t)n);
    sim_body *out = malloc(sizeof(sim_body) * (size_t)n);
    sim_body *ref = malloc(sizeof(sim_body) * (size_t)n);
    double(*acc)[3] = malloc(sizeof(double[3]) * (size_t)n);
    test_random_bodies(in, n, seed);
    for (int k = 0; k < coincident && 3 * k + 1 < n; k++) {
        memcpy(in[3 * k + 1].pos, in[3 * k].pos, sizeof in[0].pos);
    }
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = 1});
    sim_set_softening(s, (float)eps);
    test_set_bodies(s, in, n);
    sim_get_bodies(s, out);
    const double w = brute_force(in, n, (float)eps, acc);
    for (int i = 0; i < n; i++) {
        ref[i] = in[i];
        memcpy(ref[i].acc, acc[i], sizeof acc[i]);
    }
    char what[64];
    snprintf(what, sizeof what, "N=%d eps=%g%s", n, eps, coincident ? " coincident" : "");
    int bad = compare_bodies(what, out, ref, n, 1e-10, 1e-10, 1);
    CHECK(bad == 0, "%s: %d components off", what, bad);
    for (int k = 0; k < coincident && 3 * k + 1 < n; k++) {
        const double *a = out[3 * k].acc, *b = out[3 * k + 1].acc;
        CHECK(a[0] == b[0] && a[1] == b[1] && a[2] == b[2],
              "%s: bodies %d and %d at one point feel different forces", what, 3 * k, 3 * k + 1);
    }
    /* The potential: same pairs, same rule (relative 1e-12: sums of N^2/2
     * double terms in different orders). */
    const double potential = sim_diagnostics(s).potential;
    CHECK(isfinite(potential) && fabs(potential - w) <= 1e-12 * fabs(w), "%s: W %.17g want %.17g",
          what, potential, w);
    /* A single body feels nothing. */
    if (n == 1) CHECK(out[0].acc[0] == 0 && out[0].acc[1] == 0 && out[0].acc[2] == 0, "N=1");
    sim_destroy(s);
    free(in);
    free(out);
    free(ref);
    free(acc);
}

int main(void) {
    const int sizes[] = {1, 2, 31, 1000, 1531};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_n(sizes[i], 0.05, 1000 + i, 0);
        check_n(sizes[i], 0.0, 2000 + i, 0);
        check_n(sizes[i], 0.0, 3000 + i, sizes[i] / 10 + 1);
    }
    return test_exit("test_forces");
}
