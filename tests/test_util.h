/* test_util.h - the few helpers the C tests of the simulation share.
 *
 * CHECK, test_exit and TEST_SKIP come from test_check.h (which tests that do
 * not link the simulation include alone). compare_bodies() applies
 * |a - b| <= atol + rtol*|ref| to every component of every body and prints
 * the worst few; test_same_bodies() compares two sets bit for bit.
 */
#ifndef NBODY_TEST_UTIL_H
#define NBODY_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"
#include "test_check.h"

/* Creates a simulation or fails the test loudly. */
static inline sim *test_sim(sim_desc d) {
    sim_error err = {0};
    sim *s = sim_create(&d, &err);
    if (!s) {
        fprintf(stderr, "sim_create failed: %s (hint: %s)\n", err.message, err.hint);
        exit(1);
    }
    return s;
}

static inline void test_set_bodies(sim *s, const sim_body *b, int n) {
    sim_error err = {0};
    if (!sim_set_bodies(s, b, n, &err)) {
        fprintf(stderr, "sim_set_bodies failed: %s\n", err.message);
        exit(1);
    }
}

/* Whether bodies x and y are bit for bit the same (mass, tag, position,
 * velocity): a run left undisturbed by what the test did beside it. */
static inline bool test_same_bodies(const sim_body *x, const sim_body *y, int n) {
    for (int i = 0; i < n; i++) {
        bool same = x[i].mass == y[i].mass && x[i].tag == y[i].tag;
        for (int k = 0; k < 3; k++) same = same && x[i].pos[k] == y[i].pos[k];
        for (int k = 0; k < 3; k++) same = same && x[i].vel[k] == y[i].vel[k];
        if (!same) return false;
    }
    return true;
}

/* Worst offender bookkeeping for compare_bodies. */
typedef struct test_worst {
    double excess; /* |a-b| / (atol + rtol |ref|) */
    int body, field;
    double got, want;
} test_worst;

/* Compares pos, vel (and acc when with_acc) of n bodies; returns the number
 * of components out of tolerance and prints the worst 5. */
static inline int compare_bodies(const char *what, const sim_body *got, const sim_body *ref, int n,
                                 double atol, double rtol, int with_acc) {
    test_worst worst[5] = {{0}};
    int bad = 0;
    const int fields = with_acc ? 9 : 6;
    for (int i = 0; i < n; i++) {
        for (int f = 0; f < fields; f++) {
            const double *ga = f < 3 ? got[i].pos : f < 6 ? got[i].vel : got[i].acc;
            const double *ra = f < 3 ? ref[i].pos : f < 6 ? ref[i].vel : ref[i].acc;
            const double g = ga[f % 3], r = ra[f % 3];
            const double excess = fabs(g - r) / (atol + rtol * fabs(r));
            if (!(excess <= 1.0)) bad++; /* NaN counts as bad */
            const double e = isnan(excess) ? INFINITY : excess;
            for (int k = 0; k < 5; k++) {
                if (e > worst[k].excess) {
                    for (int m = 4; m > k; m--) worst[m] = worst[m - 1];
                    worst[k] = (test_worst){e, i, f, g, r};
                    break;
                }
            }
        }
    }
    static const char *names[] = {"x", "y", "z", "vx", "vy", "vz", "ax", "ay", "az"};
    printf("%s: %d of %d components out of tolerance (atol %.1e, rtol %.1e); worst:\n", what, bad,
           n * fields, atol, rtol);
    for (int k = 0; k < 5 && worst[k].excess > 0; k++) {
        printf("    body %d %s: got %.9g want %.9g (%.2f x tolerance)\n", worst[k].body,
               names[worst[k].field], worst[k].got, worst[k].want, worst[k].excess);
    }
    return bad;
}

/* Uniform in [0, 1) from a small LCG, independent of sim's generator. */
static inline double test_uniform(unsigned long long *state) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * 0x1.0p-53;
}

/* n bodies in the cube [-1, 1)^3, velocities in [-0.5, 0.5), unequal masses in
 * [0.2, 1.8) / n. Values are rounded to float so a float backend starts from
 * exactly the same state as the double reference. */
static inline void test_random_bodies(sim_body *b, int n, unsigned long long seed) {
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            b[i].pos[k] = (float)(test_uniform(&seed) * 2.0 - 1.0);
            b[i].vel[k] = (float)(test_uniform(&seed) - 0.5);
            b[i].acc[k] = 0;
        }
        b[i].mass = (float)((0.2 + 1.6 * test_uniform(&seed)) / n);
    }
}

/* The vertices drawn at a stride (sim_set_draw_stride) that are not what
 * bodies b[0 .. n) give: vertex j is body j * stride's position, rounded to
 * float, and its speed within a float rounding. Prints the first few. */
static inline int test_misdrawn(const char *what, const sim_body *b, int n, int stride,
                                const sim_vertex *v) {
    int bad = 0;
    for (int j = 0; (long long)j * stride < n; j++) {
        const sim_body *s = &b[(long long)j * stride];
        const double speed =
            sqrt(s->vel[0] * s->vel[0] + s->vel[1] * s->vel[1] + s->vel[2] * s->vel[2]);
        const bool ok = v[j].x == (float)s->pos[0] && v[j].y == (float)s->pos[1] &&
                        v[j].z == (float)s->pos[2] &&
                        fabs(v[j].speed - speed) <= 1e-6 * (1 + speed);
        if (!ok && bad++ < 3) {
            printf("%s: vertex %d (%g %g %g) is not body %lld's (%g %g %g)\n", what, j, v[j].x,
                   v[j].y, v[j].z, (long long)j * stride, s->pos[0], s->pos[1], s->pos[2]);
        }
    }
    return bad;
}

#endif /* NBODY_TEST_UTIL_H */
