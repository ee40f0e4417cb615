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
 * The softening is a double knob: set to 0.05 (through the desc and the
 * setter) it must stay exactly the double 0.05, not the float 0.0500000007,
 * and the forces must match a sum with exactly 0.05 to a few ulps
 * (check_exact_softening).
 *
 * Tolerance: both sides are double precision. Each term carries ~1e-16
 * relative rounding and a sum of N <= 1531 terms of magnitude <= m/eps^2
 * ~ 1 accumulates at most ~1e-13 absolute error, so atol = rtol = 1e-10 is
 * loose for rounding yet a thousand times tighter than any real mistake
 * (a missing softening term or a wrong mass changes accelerations by
 * >= 1e-3 here).
 */
#include <float.h>
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
    sim_set_softening(s, eps);
    test_set_bodies(s, in, n);
    sim_get_bodies(s, out);
    const double w = brute_force(in, n, eps, acc);
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

/* The softening 0.05 as a double end to end: the knob reads back as the
 * double 0.05, and the forces are those of exactly 0.05.
 *
 * A pair closer than the softening (r = 0.01, eps = 0.05) makes the knob's
 * precision show: a = m d / (r^2 + eps^2)^(3/2), so a softening rounded to
 * float (0.05 + 7.45e-10, eps^2 off by 7.45e-11) moves a by
 * 1.5 * 7.45e-11 / 0.0026 = 4.3e-8 relative. Both sides compute in double
 * with a handful of roundings each (differences, squares, a sum, a power,
 * a product): each side is within ~8 ulps, so 16 * DBL_EPSILON = 3.6e-15
 * relative separates rounding from a float knob by seven orders of
 * magnitude.
 *
 * Then 1000 random bodies with eps = 0.05 given through the desc: each
 * body's error against the brute-force sum is bounded by the rounding of a
 * sum of N terms, (N + 16) * DBL_EPSILON times the sum of the terms'
 * magnitudes (the standard bound for recursive summation, terms computed
 * to within 16 ulps); the float knob exceeds that bound for the closest
 * pairs by orders of magnitude. The largest relative error seen is
 * printed. */
static void check_exact_softening(void) {
    const double eps = 0.05;
    sim_body pair[2] = {{.pos = {0.1, -0.2, 0.3}, .mass = 0.7},
                        {.pos = {0.1 + 0.006, -0.2 + 0.0048, 0.3 + 0.0064}, .mass = 0.3}};
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = 1});
    sim_set_softening(s, eps);
    CHECK(sim_get_params(s).softening == eps, "the softening knob reads back %.17g, set 0.05",
          sim_get_params(s).softening);
    test_set_bodies(s, pair, 2);
    sim_body out[2];
    sim_get_bodies(s, out);
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = pair[1].pos[k] - pair[0].pos[k];
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double f = 1.0 / pow(r2 + eps * eps, 1.5);
    for (int i = 0; i < 2; i++) {
        const double m = pair[1 - i].mass, sign = i == 0 ? 1 : -1;
        double diff2 = 0, ref2 = 0;
        for (int k = 0; k < 3; k++) {
            const double want = sign * m * f * d[k];
            diff2 += (out[i].acc[k] - want) * (out[i].acc[k] - want);
            ref2 += want * want;
        }
        const double rel = sqrt(diff2 / ref2);
        CHECK(rel <= 16 * DBL_EPSILON, "pair, eps 0.05: body %d's force off by %.3g relative", i,
              rel);
    }
    sim_destroy(s);

    enum { N = 1000 };
    sim_body *in = malloc(sizeof(sim_body) * N), *got = malloc(sizeof(sim_body) * N);
    double(*acc)[3] = malloc(sizeof(double[3]) * N), *mag = calloc(N, sizeof(double));
    test_random_bodies(in, N, 77);
    s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = 1, .softening = eps});
    CHECK(sim_get_params(s).softening == eps, "the desc's softening reads back %.17g, gave 0.05",
          sim_get_params(s).softening);
    test_set_bodies(s, in, N);
    sim_get_bodies(s, got);
    brute_force(in, N, eps, acc);
    for (int i = 0; i < N; i++) { /* sum of |m_j d_ij| / (r^2 + eps^2)^(3/2) */
        for (int j = 0; j < N; j++) {
            if (j == i) continue;
            double dd[3];
            for (int k = 0; k < 3; k++) dd[k] = in[j].pos[k] - in[i].pos[k];
            const double q2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
            mag[i] += in[j].mass * sqrt(q2) / pow(q2 + eps * eps, 1.5);
        }
    }
    int bad = 0;
    double worst = 0;
    for (int i = 0; i < N; i++) {
        double diff2 = 0, ref2 = 0;
        for (int k = 0; k < 3; k++) {
            diff2 += (got[i].acc[k] - acc[i][k]) * (got[i].acc[k] - acc[i][k]);
            ref2 += acc[i][k] * acc[i][k];
        }
        if (!(sqrt(diff2) <= (N + 16) * DBL_EPSILON * mag[i])) bad++;
        if (ref2 > 0 && sqrt(diff2 / ref2) > worst) worst = sqrt(diff2 / ref2);
    }
    CHECK(bad == 0, "N=%d, eps 0.05: %d bodies beyond the rounding bound (worst %.3g relative)", N,
          bad, worst);
    printf("exact softening: N=%d, eps 0.05, worst relative force error %.3g\n", N, worst);
    sim_destroy(s);
    free(in);
    free(got);
    free(acc);
    free(mag);
}

/* sim_get_state copies the bodies without computing forces: on the CPU
 * backend's exact sum, new bodies have none yet, so every acc is NaN where
 * sim_get_bodies would have summed them; the rest equals sim_get_bodies'. */
static void check_state(void) {
    const int n = 1531;
    sim *s = test_sim((sim_desc){.body_count = n, .backend = SIM_BACKEND_CPU, .seed = 5,
                                 .softening = 0.05});
    sim_body *st = malloc(sizeof(sim_body) * n), *full = malloc(sizeof(sim_body) * n);
    sim_get_state(s, st);
    int finite = 0;
    for (int i = 0; i < n; i++) finite += isfinite(st[i].acc[0]) || isfinite(st[i].acc[1]);
    CHECK(finite == 0, "sim_get_state: %d bodies with accelerations", finite);
    CHECK(sim_get_bodies(s, full), "sim_get_bodies");
    int differ = 0;
    for (int i = 0; i < n; i++) {
        differ += memcmp(st[i].pos, full[i].pos, sizeof st[i].pos) != 0 ||
                  memcmp(st[i].vel, full[i].vel, sizeof st[i].vel) != 0 ||
                  st[i].mass != full[i].mass || st[i].tag != full[i].tag;
        finite += !isfinite(full[i].acc[0]);
    }
    CHECK(differ == 0, "sim_get_state and sim_get_bodies differ in %d bodies", differ);
    CHECK(finite == 0, "sim_get_bodies: %d bodies without accelerations", finite);
    sim_get_state(s, st); /* forces known now: still none copied */
    CHECK(!isfinite(st[0].acc[0]), "sim_get_state copied an acceleration");
    free(st);
    free(full);
    sim_destroy(s);
}

int main(void) {
    check_state();
    check_exact_softening();
    const int sizes[] = {1, 2, 31, 1000, 1531};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_n(sizes[i], 0.05, 1000 + i, 0);
        check_n(sizes[i], 0.0, 2000 + i, 0);
        check_n(sizes[i], 0.0, 3000 + i, sizes[i] / 10 + 1);
    }
    return test_exit("test_forces");
}
