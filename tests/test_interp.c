/* test_interp.c - the bodies between two snapshots (app/app_interp.c)
 * against an analytic orbit, and the matching of bodies by particle ID.
 *
 * A Kepler orbit (G M = 1, a = 1, e = 0.5, period 2 pi) sampled 16 times an
 * orbit, as a series' snapshots would be; bodies on it at several phases.
 * Between each pair of samples the interpolated positions at 9 inner times
 * are compared with the true orbit (Kepler's equation solved by Newton's
 * method): Hermite within its error bound, linear visibly worse. Then the
 * second snapshot's bodies are shuffled with their IDs (the result must not
 * change), and a body missing from one snapshot fades.
 *
 * Run: ctest --test-dir build -R test_interp
 * The CPU cost of a playback frame at N bodies (interpolation, and
 * sim_set_bodies on the CPU backend), not a test: build/tests/test_interp --bench N
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define PI 3.14159265358979323846
#define ECC 0.5
#define SAMPLES 16 /* snapshots per orbit */
#define INNER 9    /* times checked between two snapshots */
#define BODIES 7   /* bodies on the orbit, at phases k / BODIES of it */

static int failures;

static void check(bool ok, const char *what) {
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) failures++;
}

/* The body on the orbit at time t (phase: mean anomaly at t = 0). */
static sim_body kepler(double t, double phase) {
    const double mean = fmod(t + phase, 2 * PI);
    double e_anom = mean;
    for (int i = 0; i < 50; i++) {
        e_anom -= (e_anom - ECC * sin(e_anom) - mean) / (1 - ECC * cos(e_anom));
    }
    const double c = cos(e_anom), s = sin(e_anom), b = sqrt(1 - ECC * ECC);
    const double rdot = 1 / (1 - ECC * c); /* n = 1 for a = 1, G M = 1 */
    return (sim_body){.pos = {c - ECC, b * s, 0},
                      .vel = {-s * rdot, b * c * rdot, 0},
                      .mass = 1e-6,
                      .tag = 0};
}

static double dist(const double *p, const double *q) {
    return sqrt((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) +
                (p[2] - q[2]) * (p[2] - q[2]));
}

/* A snapshot at time t: BODIES bodies with IDs 100 + k, in order. */
static void sample(double t, sim_body *b, uint64_t *ids) {
    for (int k = 0; k < BODIES; k++) {
        b[k] = kepler(t, 2 * PI * k / BODIES);
        ids[k] = 100 + (uint64_t)k;
    }
}

/* The worst position error over an orbit, interpolating with mode. */
static double worst_error(app_interp_mode mode) {
    const double h = 2 * PI / SAMPLES;
    double worst = 0;
    for (int j = 0; j < SAMPLES; j++) {
        sim_body a[BODIES], b[BODIES], out[BODIES];
        uint64_t ia[BODIES], ib[BODIES];
        sample(j * h, a, ia);
        sample((j + 1) * h, b, ib);
        const app_interp_snap sa = {.bodies = a, .count = BODIES, .time = j * h, .ids = NULL};
        const app_interp_snap sb = {.bodies = b, .count = BODIES, .time = (j + 1) * h};
        app_interp_match m;
        if (!app_interp_match_make(&sa, &sb, &m)) return INFINITY;
        for (int q = 1; q <= INNER; q++) {
            const double u = (double)q / (INNER + 1);
            app_interp_bodies(&sa, &sb, &m, mode, u, out, NULL);
            for (int k = 0; k < BODIES; k++) {
                const sim_body truth = kepler(j * h + u * h, 2 * PI * k / BODIES);
                const double d = dist(out[k].pos, truth.pos);
                if (d > worst) worst = d;
            }
        }
        app_interp_match_free(&m);
    }
    return worst;
}

/* Shuffling the second snapshot's bodies with their IDs changes nothing. */
static void shuffled(void) {
    const double h = 2 * PI / SAMPLES;
    sim_body a[BODIES], b[BODIES], bs[BODIES], plain[BODIES], mixed[BODIES];
    uint64_t ia[BODIES], ib[BODIES], ibs[BODIES];
    sample(3 * h, a, ia);
    sample(4 * h, b, ib);
    const int perm[BODIES] = {4, 0, 6, 2, 5, 1, 3};
    for (int k = 0; k < BODIES; k++) {
        bs[k] = b[perm[k]];
        ibs[k] = ib[perm[k]];
    }
    /* The IDs' sorted index as the read-ahead makes it (io_snapshot_index_ids). */
    io_snapshot pa = {.count = BODIES, .ids = ia}, pb = {.count = BODIES, .ids = ibs};
    bool dup_a = true, dup_b = true;
    io_snapshot_index_ids(&pa, &dup_a);
    io_snapshot_index_ids(&pb, &dup_b);
    check(!dup_a && !dup_b && pa.by_id && pb.by_id, "unique IDs get a sorted index");
    const app_interp_snap sa = {a, BODIES, 3 * h, ia, pa.by_id};
    const app_interp_snap sb = {b, BODIES, 4 * h, NULL, NULL}; /* file order: the same order */
    const app_interp_snap sbs = {bs, BODIES, 4 * h, ibs, pb.by_id};
    app_interp_match m1, m2;
    const bool made = app_interp_match_make(&sa, &sb, &m1) && app_interp_match_make(&sa, &sbs, &m2);
    check(made && !m1.by_id && m2.by_id && m2.b_only_count == 0, "matched by ID when both have IDs");
    uint64_t out_ids[BODIES];
    app_interp_bodies(&sa, &sb, &m1, APP_INTERP_HERMITE, 0.37, plain, NULL);
    app_interp_bodies(&sa, &sbs, &m2, APP_INTERP_HERMITE, 0.37, mixed, out_ids);
    bool same = true;
    for (int k = 0; k < BODIES; k++) {
        same = same && dist(plain[k].pos, mixed[k].pos) == 0 && out_ids[k] == ia[k];
    }
    check(same, "IDs shuffled in the second snapshot: the same bodies, the same IDs out");
    /* Duplicate IDs: no index (the caller matches by file order). */
    ibs[1] = ibs[0];
    bool dup = false;
    io_snapshot_index_ids(&pb, &dup);
    check(dup && !pb.by_id, "duplicate IDs are found and give no index");
    pa.ids = pb.ids = NULL; /* the test's own arrays */
    io_snapshot_free(&pa);
    io_snapshot_free(&pb);
    app_interp_match_free(&m1);
    app_interp_match_free(&m2);
}

/* Body 102 is missing from the second snapshot and 107 new in it: both fade. */
static void fading(void) {
    const double h = 2 * PI / SAMPLES;
    sim_body a[BODIES], b[BODIES + 1], out[BODIES + 2];
    uint64_t ia[BODIES], ib[BODIES + 1], out_ids[BODIES + 2];
    sample(0, a, ia);
    sample(h, b, ib);
    b[2] = kepler(h, 0.123); /* 102's place: a newcomer */
    ib[2] = 107;
    io_snapshot pa = {.count = BODIES, .ids = ia}, pb = {.count = BODIES, .ids = ib};
    bool dup;
    io_snapshot_index_ids(&pa, &dup);
    io_snapshot_index_ids(&pb, &dup);
    const app_interp_snap sa = {a, BODIES, 0, ia, pa.by_id};
    const app_interp_snap sb = {b, BODIES, h, ib, pb.by_id};
    app_interp_match m;
    if (!app_interp_match_make(&sa, &sb, &m)) {
        check(false, "match");
        return;
    }
    const int n = app_interp_count(&sa, &m);
    check(n == BODIES + 1 && m.b_only_count == 1, "one body only in each: N = 7 + 1");
    app_interp_bodies(&sa, &sb, &m, APP_INTERP_HERMITE, 0.5, out, out_ids);
    const double gone = app_interp_brightness(out[2].tag), born = app_interp_brightness(out[7].tag);
    char what[160];
    snprintf(what, sizeof what,
             "at the midpoint the vanishing body (%llu) has brightness %.3g and the new one "
             "(%llu) %.3g, both between 0 and 1",
             (unsigned long long)out_ids[2], gone, (unsigned long long)out_ids[7], born);
    check(out_ids[2] == 102 && out_ids[7] == 107 && gone > 0 && gone < 1 && born > 0 && born < 1,
          what);
    bool full = true;
    for (int k = 0; k < BODIES; k++) {
        if (k != 2) full = full && app_interp_brightness(out[k].tag) == 1.0;
    }
    check(full, "bodies in both snapshots keep full brightness");
    check(SIM_TAG_COMPONENT(out[2].tag) == SIM_TAG_COMPONENT(a[2].tag) &&
              SIM_TAG_GALAXY(out[2].tag) == SIM_TAG_GALAXY(a[2].tag),
          "the fade level leaves galaxy and component alone");
    app_interp_bodies(&sa, &sb, &m, APP_INTERP_HERMITE, 0.9, out, NULL);
    check(app_interp_brightness(out[2].tag) < gone && app_interp_brightness(out[7].tag) > born,
          "later the vanishing body is dimmer, the new one brighter");
    pa.ids = pb.ids = NULL;
    io_snapshot_free(&pa);
    io_snapshot_free(&pb);
    app_interp_match_free(&m);
}

/* --bench N: a frame's CPU work at N bodies, best of 5. */
static int bench(int n) {
    sim_body *a = malloc(sizeof *a * (size_t)n), *b = malloc(sizeof *b * (size_t)n),
             *out = malloc(sizeof *out * (size_t)n);
    uint64_t *ia = malloc(sizeof *ia * (size_t)n), *ib = malloc(sizeof *ib * (size_t)n),
             *ids = malloc(sizeof *ids * (size_t)n);
    if (!a || !b || !out || !ia || !ib || !ids) return 1;
    for (int i = 0; i < n; i++) {
        a[i] = kepler(0, 2 * PI * i / n);
        b[i] = kepler(0.1, 2 * PI * (n - 1 - i) / n);
        ia[i] = (uint64_t)i;
        ib[i] = (uint64_t)(n - 1 - i); /* reversed: matched by ID */
    }
    io_snapshot pa = {.count = n, .ids = ia}, pb = {.count = n, .ids = ib};
    bool dup;
    double t0 = base_now();
    io_snapshot_index_ids(&pa, &dup);
    io_snapshot_index_ids(&pb, &dup);
    const double sort_ms = (base_now() - t0) * 500; /* per file */
    const app_interp_snap sa = {a, n, 0, ia, pa.by_id}, sb = {b, n, 0.1, ib, pb.by_id};
    app_interp_match m;
    t0 = base_now();
    if (!app_interp_match_make(&sa, &sb, &m)) return 1;
    const double match_ms = (base_now() - t0) * 1000;
    sim_error err = {0};
    sim *s = sim_create(&(sim_desc){.body_count = 1024, .backend = SIM_BACKEND_CPU}, &err);
    if (!s) return 1;
    double interp_ms = INFINITY, set_ms = INFINITY;
    for (int r = 0; r < 5; r++) {
        t0 = base_now();
        app_interp_bodies(&sa, &sb, &m, APP_INTERP_HERMITE, 0.3 + 0.1 * r, out, ids);
        const double t1 = base_now();
        sim_set_bodies(s, out, n, &err);
        const double t2 = base_now();
        interp_ms = fmin(interp_ms, (t1 - t0) * 1000);
        set_ms = fmin(set_ms, (t2 - t1) * 1000);
    }
    printf("N = %d: per frame: interpolation %.1f ms, sim_set_bodies (CPU backend) %.1f ms;\n"
           "per new pair of files: match %.1f ms; per file read: ID sort %.1f ms\n",
           n, interp_ms, set_ms, match_ms, sort_ms);
    sim_destroy(s);
    app_interp_match_free(&m);
    pa.ids = pb.ids = NULL;
    io_snapshot_free(&pa);
    io_snapshot_free(&pb);
    free(a);
    free(b);
    free(out);
    free(ia);
    free(ib);
    free(ids);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--bench") == 0) return bench(atoi(argv[2]));
    const double hermite = worst_error(APP_INTERP_HERMITE), linear = worst_error(APP_INTERP_LINEAR);
    /* Bounds: cubic Hermite's error is at most h^4 / 384 max|x''''| and the
     * line's h^2 / 8 max|x''|, h = 2 pi / 16. At pericentre (r = 0.5,
     * angular rate w = sqrt(1.5 / 0.125) = 3.46) |x''| = 1 / r^2 = 4 and
     * |x''''| is about r w^4 = 72: bounds 0.0045 and 0.077. Hermite is held
     * to 0.01 (the estimate of x'''' is rough: twice the bound), and the
     * line must be at least 5 times worse. */
    char what[160];
    snprintf(what, sizeof what, "Hermite's worst error over an orbit %.3g <= 0.01 (a = 1, e = 0.5)",
             hermite);
    check(hermite <= 0.01, what);
    snprintf(what, sizeof what, "linear is visibly worse: %.3g, %.1f x Hermite's (>= 5)", linear,
             linear / hermite);
    check(linear >= 5 * hermite, what);
    shuffled();
    fading();
    if (failures) {
        printf("%d check%s failed\n", failures, failures == 1 ? "" : "s");
        return 1;
    }
    printf("all interpolation checks passed\n");
    return 0;
}
