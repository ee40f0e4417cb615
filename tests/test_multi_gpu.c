/* test_multi_gpu.c - the simulation spread over several GPUs (sim_desc.gpus)
 * against the same simulation on one.
 *
 * Needs two CUDA devices and a build with NCCL; exits 77 (skipped) where
 * either is missing, after checking what one GPU can check: that asking
 * for more GPUs than there are is refused with a message, not a crash.
 *
 * Cases, from random unequal masses (test_random_bodies) at N = 20011, a
 * prime, so no share, warp, tile or group divides it, eps = 0.05, dt =
 * 1/128, 10 steps in two calls, on 1 GPU and on 2 from the same bodies:
 * - best and the tree (which split their forces: each GPU a share, one
 *   all-reduce adds them): positions, velocities and accelerations within
 *   atol = rtol = 2e-4 of one GPU's. Two GPUs add the same float terms in
 *   another order (best's pairs fall to other warps and are summed by
 *   atomics; the shares are added by NCCL), a relative ~1e-6 in each
 *   acceleration that 10 steps of 1/128 carry into velocities and
 *   positions about as far (test_gpu.c's float tolerance, which has
 *   room for that). A share walked twice or not at all is far outside:
 *   a body's acceleration doubles or vanishes.
 * - fp64 (splits too): atol = rtol = 1e-9, test_gpu.c's double tolerance.
 * - tiled (does not split: each GPU computes all the forces): bit for bit
 *   the one-GPU run, the same kernel on the same numbers.
 * - after every case, the GPUs' own copies of the state are identical bit
 *   for bit (sim_gpus_disagree): each integrates all bodies from the same
 *   summed accelerations.
 * - sim_get_gpu_stats after a timed step: measured, split as the method's
 *   row says, each GPU's force time positive, the sum's buffer N x 16 bytes
 *   (32 in fp64), the tree's shares of the bodies positive, adding to 1 and
 *   moved from equal by the balancing (none for the other methods).
 * - the tree's potential energy from the walk (sim_energy) on two GPUs
 *   against one: within 1e-5 relative (the same cells' sums, added in
 *   another order).
 * - a run that switches method mid-way (best, tree, fp64, best) and then
 *   grows N (sim_reset: every GPU reallocates, the leader's bodies are
 *   copied to the others) stays equal to the one-GPU run and the GPUs
 *   stay identical.
 * - the tree at N = 100003 (many groups, several per SM), 4 steps.
 * - with more than two GPUs, best, the tree at N = 100003 and the
 *   switches again on all of them.
 * - the tree with the bodies spread (sim_desc.spread) on 2 GPUs at 20011
 *   and 100003 bodies (and on all of them at 100003), from a Plummer
 *   sphere of unequal masses, 10 steps, against one GPU's tree: each GPU
 *   builds the tree of its own bodies, so the cells differ and the forces
 *   agree within the tree's error (accelerations: median <= 2e-3, 99th
 *   percentile <= 2e-2, twice the tree's targets against the exact sum);
 *   positions within 1e-3 for 99 % of bodies; the vertices in body order
 *   (each the body's position); potentials within 1 % for 99 % of bodies;
 *   the energy's W within 5e-4, K within 1e-4, M within 1e-6; stats
 *   spread with no sum and no efficiency estimate, shares adding to 1
 *   and, a step later, each within 2 % of N of an equal share,
 *   what each GPU sent positive; drawing every body and every 7th
 *   (sim_set_draw_stride), the vertices (to host and device memory) and
 *   the radial velocities are the drawn bodies', in drawing order;
 *   best and the force error refused with a message; a reset to a new N
 *   and 3 more steps agree the same way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "test_util.h"

#define N 20011
#define STEPS 5 /* per call; two calls */

static sim_desc desc_of(sim_variant v, int n, int gpus) {
    return (sim_desc){
        .body_count = n,
        .backend = SIM_BACKEND_CUDA,
        .variant = v,
        .softening = 0.05,
        .dt = 1.0 / 128.0,
        .gpus = gpus,
    };
}

/* One case: the same bodies on one GPU and on `gpus`, stepped alike. */
static void check_variant(sim_variant v, int n, int steps, int gpus, double tol) {
    const sim_method *m = sim_method_of(SIM_BACKEND_CUDA, v);
    sim_body *start = malloc(sizeof *start * n), *one = malloc(sizeof *one * n),
             *many = malloc(sizeof *many * n);
    if (!start || !one || !many) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    test_random_bodies(start, n, 12345u + (unsigned)n);
    sim *s1 = test_sim(desc_of(v, n, 1));
    sim *sk = test_sim(desc_of(v, n, gpus));
    test_set_bodies(s1, start, n);
    test_set_bodies(sk, start, n);
    CHECK(sim_gpus_disagree(sk) == 0, "%s: the GPUs start from the same bodies", m->name);
    for (int call = 0; call < 2; call++) {
        sim_step(s1, steps);
        sim_step_timed(sk, steps); /* timed: the per-GPU events */
    }
    sim_get_bodies(s1, one);
    sim_get_bodies(sk, many);
    char what[96];
    snprintf(what, sizeof what, "%s N=%d on %d GPUs vs 1", m->name, n, gpus);
    if (tol > 0) {
        CHECK(compare_bodies(what, many, one, n, tol, tol, 1) == 0, "%s", what);
    } else { /* bit for bit */
        int differ_bodies = 0;
        for (int i = 0; i < n; i++) {
            differ_bodies += memcmp(many[i].pos, one[i].pos, sizeof one[i].pos) != 0 ||
                             memcmp(many[i].vel, one[i].vel, sizeof one[i].vel) != 0 ||
                             memcmp(many[i].acc, one[i].acc, sizeof one[i].acc) != 0;
        }
        CHECK(differ_bodies == 0, "%s: %d bodies differ in some bit", what, differ_bodies);
    }
    const int differ = sim_gpus_disagree(sk);
    CHECK(differ == 0, "%s: %d bodies differ between the GPUs' states", what, differ);

    const sim_gpu_stats g = sim_get_gpu_stats(sk);
    CHECK(g.gpus == gpus, "%s: gpu stats count %d GPUs", what, g.gpus);
    CHECK(g.measured, "%s: the per-GPU times were measured", what);
    CHECK(g.split == m->splits, "%s: split %d, the method's row says %d", what, g.split,
          m->splits);
    for (int k = 0; k < gpus && g.measured; k++) {
        CHECK(g.forces_ms[k] > 0, "%s: GPU %d's force time %g ms", what, k, g.forces_ms[k]);
    }
    if (m->splits) {
        const double bytes = (m->fp64 ? 32.0 : 16.0) * n;
        CHECK(g.sum_bytes == bytes, "%s: the sum moves %.0f bytes, want %.0f", what, g.sum_bytes,
              bytes);
        CHECK(g.efficiency > 0 && g.efficiency <= 1, "%s: efficiency %g", what, g.efficiency);
    }
    /* The tree's shares of the sorted bodies (moved toward equal work
     * between steps, which changes no force: the comparison above holds
     * with them) cover the bodies once; other methods have none. */
    double shares = 0;
    bool positive = true;
    for (int k = 0; k < gpus; k++) shares += g.share[k], positive = positive && g.share[k] > 0;
    if (v == SIM_VARIANT_TREE) {
        printf("%s: shares", what);
        for (int k = 0; k < gpus; k++) printf(" %.4f", g.share[k]);
        printf("\n");
        CHECK(positive && fabs(shares - 1) < 1e-5, "%s: the tree's shares add to %.7f", what,
              shares);
        /* Balanced after the first call's walks: the GPUs' lane slots are
         * never all alike, so some share has left 1 / gpus. */
        double moved = 0;
        for (int k = 0; k < gpus; k++) moved = fmax(moved, fabs(g.share[k] - 1.0 / gpus));
        CHECK(moved > 1e-4, "%s: the tree's shares stayed equal (moved %.2g)", what, moved);
    } else {
        CHECK(shares == 0, "%s: shares %g without the tree", what, shares);
    }
    if (m->walk_potential) {
        const sim_diag d1 = sim_energy(s1), dk = sim_energy(sk);
        CHECK(d1.source == SIM_POTENTIAL_WALK && dk.source == SIM_POTENTIAL_WALK,
              "%s: the walk's potential on both", what);
        CHECK(fabs(dk.potential - d1.potential) <= 1e-5 * fabs(d1.potential),
              "%s: W %.9g on %d GPUs, %.9g on one", what, dk.potential, gpus, d1.potential);
    }
    sim_error err = {0};
    CHECK(!sim_failed(sk, &err), "%s: %s", what, err.message);
    sim_destroy(s1);
    sim_destroy(sk);
    free(start);
    free(one);
    free(many);
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Relative differences |got - want| / |want| of the bodies' accelerations:
 * *median and *p99 over the bodies. */
static void acc_differences(const sim_body *got, const sim_body *want, int n, double *median,
                            double *p99) {
    double *rel = malloc(sizeof *rel * n);
    if (!rel) exit(1);
    for (int i = 0; i < n; i++) {
        double d2 = 0, w2 = 0;
        for (int a = 0; a < 3; a++) {
            const double d = got[i].acc[a] - want[i].acc[a];
            d2 += d * d, w2 += want[i].acc[a] * want[i].acc[a];
        }
        rel[i] = w2 > 0 ? sqrt(d2 / w2) : sqrt(d2);
    }
    qsort(rel, (size_t)n, sizeof *rel, cmp_double);
    *median = rel[n / 2];
    *p99 = rel[(int)(0.99 * (n - 1))];
    free(rel);
}

/* The tree with the bodies spread (sim_desc.spread: each GPU its own
 * bodies and tree, with the parts of the others' it needs) against the
 * one-GPU tree from the same Plummer sphere: other cells, so the forces
 * agree within the tree's error rather than to rounding. */
/* Every body's radial velocity about the bodies' centre of mass and bulk
 * velocity (one galaxy: a Plummer sphere's tags are all 0), into out. */
static void radial_of(const sim_body *b, int n, double *out) {
    double m = 0, x[3] = {0}, v[3] = {0};
    for (int j = 0; j < n; j++) {
        m += b[j].mass;
        for (int k = 0; k < 3; k++)
            x[k] += b[j].mass * b[j].pos[k], v[k] += b[j].mass * b[j].vel[k];
    }
    for (int i = 0; i < n; i++) {
        double r2 = 0, dot = 0;
        for (int k = 0; k < 3; k++) {
            const double dx = b[i].pos[k] - x[k] / m, dv = b[i].vel[k] - v[k] / m;
            r2 += dx * dx;
            dot += dx * dv;
        }
        out[i] = r2 > 0 ? dot / sqrt(r2) : 0;
    }
}

/* Spread, drawing every body and every 7th (sim_set_draw_stride): each GPU
 * picks its drawn bodies and the leader puts them in drawing order, into
 * host and device memory; the radial velocities likewise. b: the bodies
 * now (sim_get_bodies). */
static void check_spread_drawn(sim *s, const sim_body *b, int n, const char *what) {
    sim_vertex *host = malloc(sizeof *host * (size_t)n), *back = malloc(sizeof *back * (size_t)n);
    float *radial = malloc(sizeof *radial * (size_t)n);
    double *want = malloc(sizeof *want * (size_t)n);
    void *dev = NULL, *dev_radial = NULL;
    if (!host || !back || !radial || !want ||
        cudaMalloc(&dev, sizeof(sim_vertex) * (size_t)n) != cudaSuccess ||
        cudaMalloc(&dev_radial, sizeof(float) * (size_t)n) != cudaSuccess) {
        exit(1);
    }
    radial_of(b, n, want);
    double top = 0;
    for (int i = 0; i < n; i++) top = fmax(top, fabs(want[i]));
    for (int stride = 1; stride <= 7; stride += 6) {
        char at[160];
        snprintf(at, sizeof at, "%s, drawn 1 in %d", what, stride);
        sim_set_draw_stride(s, stride);
        const int drawn = sim_get_params(s).drawn;
        sim_write_vertices(s, host, false);
        CHECK(test_misdrawn(at, b, n, stride, host) == 0, "%s: host vertices", at);
        sim_write_vertices(s, (sim_vertex *)dev, true);
        CHECK(cudaMemcpy(back, dev, sizeof *back * (size_t)drawn, cudaMemcpyDeviceToHost) ==
                      cudaSuccess &&
                  test_misdrawn(at, b, n, stride, back) == 0,
              "%s: device vertices", at);
        CHECK(sim_radial_velocities(s, (float *)dev_radial) &&
                  cudaMemcpy(radial, dev_radial, sizeof *radial * (size_t)drawn,
                             cudaMemcpyDeviceToHost) == cudaSuccess,
              "%s: radial velocities", at);
        /* The GPUs sum the centre in double from the same float state, in
         * another order; the value is rounded to float: 2 float ulps of it,
         * and of the largest near 0 (dx . dv cancelling). */
        int off = 0;
        for (int j = 0; j < drawn; j++) {
            const double w = want[j * stride];
            off += !(fabs(radial[j] - w) <= 2.4e-7 * (top + fabs(w)));
        }
        CHECK(off == 0, "%s: %d radial velocities not their body's", at, off);
    }
    sim_set_draw_stride(s, 1);
    cudaFree(dev);
    cudaFree(dev_radial);
    free(host);
    free(back);
    free(radial);
    free(want);
}

static void check_spread(int gpus, int n) {
    sim_body *start = malloc(sizeof *start * n), *one = malloc(sizeof *one * n),
             *many = malloc(sizeof *many * n);
    sim_vertex *vert = malloc(sizeof *vert * n);
    float *phi1 = malloc(sizeof *phi1 * n), *phik = malloc(sizeof *phik * n);
    if (!start || !one || !many || !vert || !phi1 || !phik) exit(1);
    sim_desc d = desc_of(SIM_VARIANT_TREE, n, 1);
    d.ic = SIM_IC_PLUMMER;
    d.seed = 21;
    sim *s1 = test_sim(d);
    d.gpus = gpus;
    d.spread = true;
    sim *sk = test_sim(d);
    sim_get_bodies(s1, start);
    unsigned long long seed = 9;
    for (int i = 0; i < n; i++) start[i].mass *= 0.5 + test_uniform(&seed); /* unequal */
    test_set_bodies(s1, start, n);
    test_set_bodies(sk, start, n);
    char what[96];
    snprintf(what, sizeof what, "tree N=%d spread over %d GPUs vs 1", n, gpus);
    for (int call = 0; call < 2; call++) {
        sim_step(s1, STEPS);
        sim_step_timed(sk, STEPS);
    }
    sim_get_bodies(s1, one);
    sim_get_bodies(sk, many);
    /* The tree's targets (median 1e-3, 99th percentile 1e-2 against the
     * exact sum: test_tree_gpu) for each, so at most about twice that
     * between them; a body walked by no GPU, or a part not sent, is off
     * by its whole acceleration. */
    double median = 0, p99 = 0;
    acc_differences(many, one, n, &median, &p99);
    printf("%s: accelerations differ by median %.2e, p99 %.2e\n", what, median, p99);
    CHECK(median <= 2e-3 && p99 <= 2e-2, "%s: median %.2e (<= 2e-3), p99 %.2e (<= 2e-2)", what,
          median, p99);
    /* 10 steps of 1/128 from the same start: those differences move a
     * body by about a t^2 / 2, ~3e-3 of its acceleration: far below 1e-3 in
     * position for the 99 % of bodies whose acceleration is below ~30. */
    int moved = 0;
    for (int i = 0; i < n; i++) {
        double d2 = 0;
        for (int a = 0; a < 3; a++) d2 += pow(many[i].pos[a] - one[i].pos[a], 2);
        moved += !(sqrt(d2) <= 1e-3);
    }
    CHECK(moved <= n / 100, "%s: %d bodies more than 1e-3 from the one GPU's (<= 1 %%)", what,
          moved);
    /* The vertices and the potentials come back in body order. */
    sim_write_vertices(sk, vert, false);
    int misplaced = 0;
    for (int i = 0; i < n; i++) {
        misplaced += vert[i].x != (float)many[i].pos[0] || vert[i].y != (float)many[i].pos[1] ||
                     vert[i].z != (float)many[i].pos[2];
    }
    CHECK(misplaced == 0, "%s: %d vertices are not their body's position", what, misplaced);
    check_spread_drawn(sk, many, n, what);
    CHECK(sim_get_potentials(s1, phi1) == SIM_POTENTIAL_WALK &&
              sim_get_potentials(sk, phik) == SIM_POTENTIAL_WALK,
          "%s: the walk's potentials", what);
    int far = 0;
    for (int i = 0; i < n; i++) far += !(fabs(phik[i] - phi1[i]) <= 1e-2 * fabs(phi1[i]));
    CHECK(far <= n / 100, "%s: %d potentials off by more than 1 %% (<= 1 %% of bodies)", what, far);
    const sim_diag d1 = sim_energy(s1), dk = sim_energy(sk);
    CHECK(dk.source == SIM_POTENTIAL_WALK, "%s: spread, the energy's potential is the walk's",
          what);
    CHECK(fabs(dk.potential - d1.potential) <= 5e-4 * fabs(d1.potential) &&
              fabs(dk.kinetic - d1.kinetic) <= 1e-4 * d1.kinetic &&
              fabs(dk.mass - d1.mass) <= 1e-6 * d1.mass,
          "%s: W %.9g vs %.9g, K %.9g vs %.9g, M %.9g vs %.9g", what, dk.potential, d1.potential,
          dk.kinetic, d1.kinetic, dk.mass, d1.mass);
    /* One more (timed) step: its split samples the bodies at even ranks
     * of the last trees (sim_tree_domains_split), so the GPUs' shares are
     * equal to that sample's resolution, a 1,024th of each GPU's bodies,
     * and a step's drift: 2 % of N is far from both, and a split that
     * sent the bodies the wrong way would be far from it. */
    sim_step_timed(sk, 1);
    const sim_gpu_stats g = sim_get_gpu_stats(sk);
    double shares = 0, uneven = 0;
    for (int k = 0; k < gpus; k++) {
        shares += g.share[k];
        uneven = fmax(uneven, fabs(g.share[k] - 1.0 / gpus));
    }
    CHECK(uneven <= 0.02, "%s: the GPUs' shares of the bodies are %.4f from equal", what, uneven);
    CHECK(g.measured && g.spread && g.split && g.sum_bytes == 0 && fabs(shares - 1) < 1e-5 &&
              g.efficiency == 0,
          "%s: stats measured %d, spread %d, sum %.0f bytes, shares %.6f, efficiency %g (none)",
          what, g.measured, g.spread, g.sum_bytes, shares, g.efficiency);
    for (int k = 0; k < gpus && g.measured; k++) {
        CHECK(g.forces_ms[k] > 0 && g.sent_mb[k] > 0, "%s: GPU %d forces %g ms, sent %g MB", what,
              k, g.forces_ms[k], g.sent_mb[k]);
    }
    /* What needs every body on a GPU is refused with a message. */
    sim_error err = {0};
    CHECK(!sim_set_variant(sk, SIM_VARIANT_BEST, &err) && strstr(err.message, "--spread") &&
              err.hint[0],
          "%s: best is refused: '%s'", what, err.message);
    sim_force_error fe = {0};
    CHECK(!sim_measure_force_error(sk, 100, 1, &fe, &err) && err.hint[0],
          "%s: the force error is refused: '%s'", what, err.message);
    /* A new N: every GPU's stretch is sized again. */
    const int n2 = n + 10007;
    CHECK(sim_reset(s1, SIM_IC_PLUMMER, n2, 5, &err) && sim_reset(sk, SIM_IC_PLUMMER, n2, 5, &err),
          "%s: reset to %d bodies: %s", what, n2, err.message);
    sim_step(s1, 3);
    sim_step(sk, 3);
    sim_body *one2 = malloc(sizeof *one2 * n2), *many2 = malloc(sizeof *many2 * n2);
    if (!one2 || !many2) exit(1);
    sim_get_bodies(s1, one2);
    sim_get_bodies(sk, many2);
    acc_differences(many2, one2, n2, &median, &p99);
    CHECK(median <= 2e-3 && p99 <= 2e-2, "%s: after a reset to %d, median %.2e, p99 %.2e", what, n2,
          median, p99);
    CHECK(!sim_failed(sk, &err), "%s: %s", what, err.message);
    sim_destroy(s1);
    sim_destroy(sk);
    free(one2);
    free(many2);
    free(start);
    free(one);
    free(many);
    free(vert);
    free(phi1);
    free(phik);
}

/* Method switches and a new N mid-run, on one GPU and on several alike. */
static void check_switches(int gpus) {
    const int n2 = 30011;
    sim_body *one = malloc(sizeof *one * n2), *many = malloc(sizeof *many * n2);
    if (!one || !many) exit(1);
    test_random_bodies(one, N, 777u);
    sim *s1 = test_sim(desc_of(SIM_VARIANT_BEST, N, 1));
    sim *sk = test_sim(desc_of(SIM_VARIANT_BEST, N, gpus));
    test_set_bodies(s1, one, N);
    test_set_bodies(sk, one, N);
    const sim_variant order[] = {SIM_VARIANT_BEST, SIM_VARIANT_TREE, SIM_VARIANT_FP64,
                                 SIM_VARIANT_BEST};
    sim_error err = {0};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        CHECK(sim_set_variant(s1, order[i], &err) && sim_set_variant(sk, order[i], &err),
              "switch to %s: %s", sim_variant_info(order[i])->name, err.message);
        sim_step(s1, 3);
        sim_step(sk, 3);
        CHECK(sim_gpus_disagree(sk) == 0, "after 3 steps of %s the GPUs agree",
              sim_variant_info(order[i])->name);
    }
    sim_get_bodies(s1, one);
    sim_get_bodies(sk, many);
    CHECK(compare_bodies("best, tree, fp64, best on 2 GPUs vs 1", many, one, N, 2e-4, 2e-4, 1) ==
              0,
          "the switches");
    CHECK(sim_reset(s1, SIM_IC_PLUMMER, n2, 5, &err) && sim_reset(sk, SIM_IC_PLUMMER, n2, 5, &err),
          "reset to %d bodies: %s", n2, err.message);
    CHECK(sim_gpus_disagree(sk) == 0, "after growing to %d bodies the GPUs agree", n2);
    sim_step(s1, 4);
    sim_step(sk, 4);
    sim_get_bodies(s1, one);
    sim_get_bodies(sk, many);
    CHECK(compare_bodies("Plummer 30011 after a reset, 2 GPUs vs 1", many, one, n2, 2e-4, 2e-4,
                         1) == 0,
          "after the reset");
    CHECK(sim_gpus_disagree(sk) == 0, "after the reset and 4 steps the GPUs agree");
    CHECK(!sim_failed(sk, &err), "%s", err.message);
    sim_destroy(s1);
    sim_destroy(sk);
    free(one);
    free(many);
}

int main(void) {
    char why[160] = "", nccl[64] = "";
    const int devices = sim_cuda_device_count(why, sizeof why);
    if (devices < 1) {
        printf("test_multi_gpu: skipped: no CUDA device (%s)\n", why);
        return TEST_SKIP;
    }
    /* More GPUs than there are: a message, no simulation. */
    sim_error err = {0};
    sim_desc too_many = desc_of(SIM_VARIANT_BEST, 1000, devices + 1);
    sim *s = sim_create(&too_many, &err);
    CHECK(!s && strstr(err.message, "--gpus") && err.hint[0],
          "--gpus %d with %d visible is refused: '%s'", devices + 1, devices, err.message);
    sim_destroy(s);
    if (devices < 2 || !sim_multi_gpu_support(nccl, sizeof nccl)) {
        printf("test_multi_gpu: skipped: %d CUDA device%s, %s\n", devices, devices == 1 ? "" : "s",
               nccl[0] ? nccl : "built without NCCL");
        return test_failures ? test_exit("test_multi_gpu") : TEST_SKIP;
    }
    printf("test_multi_gpu: %d devices, %s\n", devices, nccl);
    check_variant(SIM_VARIANT_BEST, N, STEPS, 2, 2e-4);
    check_variant(SIM_VARIANT_TREE, N, STEPS, 2, 2e-4);
    check_variant(SIM_VARIANT_FP64, N, STEPS, 2, 1e-9);
    check_variant(SIM_VARIANT_TILED, N, STEPS, 2, 0);
    check_variant(SIM_VARIANT_TREE, 100003, 2, 2, 2e-4);
    if (devices > 2) {
        check_variant(SIM_VARIANT_BEST, N, STEPS, devices, 2e-4);
        check_variant(SIM_VARIANT_TREE, 100003, 2, devices, 2e-4);
        check_switches(devices);
    }
    check_switches(2);
    check_spread(2, N);
    check_spread(2, 100003);
    if (devices > 2) check_spread(devices, 100003);
    return test_exit("test_multi_gpu");
}
