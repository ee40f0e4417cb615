/* test_tree_domains.c - the tree over domains that each hold their own
 * bodies, with locally essential trees (sim_tree_forces_domains, white
 * box), against the one tree.
 *
 * The domain path is what the tree runs on GPUs the bodies are spread
 * over (sim_desc.spread); here one GPU stands in for 2, 3, 4, 8 and
 * SIM_MAX_GPUS (the same device named again: the code is the same, the
 * copies between GPUs become copies within one), and with two or more
 * devices the real thing runs too. Each "GPU" gets its own bodies
 * (sim_spread_split's stretches of a Morton curve) and writes their
 * accelerations; put back in body order they are compared with the exact
 * forces and with the one tree's. Each tree starts with room for its own
 * bodies only, so the first evaluation grows it for what it receives and
 * starts again. Needs a CUDA device: exits 77 (skipped) where there is
 * none.
 *
 * Checks and tolerances:
 * - every body is walked (its potential, which the walk always writes
 *   negative, is below zero).
 * - Plummer sphere of 100,003 unequal masses, eps 0.05, the GPU defaults
 *   (theta 1 with the relative criterion alpha 0.015, monopoles on) and
 *   Barnes' test alone at theta 0.75: the force error against the exact
 *   sum within issue 10's targets (median <= 1e-3, 99th percentile <=
 *   1e-2, as test_tree_gpu), and no more than twice the one tree's median,
 *   99th percentile and maximum. The domains' trees have other cells than
 *   the one tree (cells are cut where the domains meet) but each group
 *   opens cells by the same test, so their errors are alike; a part of a
 *   tree that one domain needed and another did not send (a cell its
 *   group would have opened arriving without children) loses that cell's
 *   mass, which shows as errors of order one in the maximum. At theta >=
 *   0.75 no domain sends another 90 % or more of its cells (boxes over
 *   stretches of the sorted bodies, which jump across the centre, once
 *   sent whole trees).
 * - theta 0.1, Barnes' test: nearly every cell is opened, so the sum is
 *   nearly the direct one: median <= 2e-5 and 99th percentile <= 2e-4
 *   (test_tree_gpu's bound for theta -> 0).
 * - the walk's potential energy (1/2 sum m phi) within 2e-4 of the one
 *   tree's: each is within 1e-4 of the exact one (test_tree_gpu).
 * - domains split by index (each over the whole sphere, so each sends
 *   nearly its whole tree): the same errors, within twice the one tree's.
 * - two cusps far apart, one per domain (density ~ r^-3 from radius 1 to
 *   1e-4, cells split around each domain's centre of mass on every level):
 *   each domain is told the others in more than one box, and the errors
 *   are within twice the one tree's.
 * - tiny and degenerate: 5 and 50 bodies on 4 domains (domains of a few
 *   bodies whose roots are leaves: direct sums, median <= 1e-5), and 64
 *   bodies on 3 points (equal keys; cells of coincident bodies down to the
 *   last level): errors within twice the one tree's and 1e-3.
 * - on two devices: the accelerations equal the one-device stand-in's bit
 *   for bit (the same arithmetic; only the copies differ).
 * Each domain's work is queued by a host thread of its own (sim_gang), as
 * the backend's are, stand-ins included.
 */
#include <cuda_runtime_api.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_gang.h"
#include "sim_tree.h"
#include "test_util.h"

#define EPS2 (0.05f * 0.05f)

typedef struct result {
    sim_force_error err;
    double potential;      /* 1/2 sum m phi from the walk */
    int unwritten;         /* bodies with no potential from the walk (it writes one < 0 for each) */
    double sent_share_max; /* the largest share of a domain's cells sent to another */
    int boxes_min;         /* the fewest boxes a domain told the others it was */
    float4 *acc;           /* host, in body order */
} result;

static sim_fault fault;                /* the force error's */
static sim_fault faults[SIM_MAX_GPUS]; /* each domain's tree's: their threads record apart */

static void *dev_alloc(size_t bytes) {
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        fprintf(stderr, "out of GPU memory\n");
        exit(1);
    }
    return p;
}

/* The forces on pos by `count` domains on devices[] (count 1: the one tree,
 * sim_tree_forces), each domain holding its own bodies: stretches of a
 * Morton curve (sim_spread_split, as the backend spreads them) or, with
 * spatial false, equal stretches of the index order (domains all over one
 * another). The relative criterion's first pass by theta alone, as the
 * backend does it. Each tree is given room for its own bodies only, so
 * the parts received grow it (sim_tree_forces_domains starts again). */
static result forces(int count, const int *devices, int n, const float4 *pos, sim_tree_params p,
                     bool spatial) {
    /* A thread per domain queues its work, as the backend's do. */
    sim_tree_team team = {.count = count, .gang = sim_gang_create(count - 1)};
    if (!team.gang) exit(1);
    sim_tree **trees = team.trees;
    cudaStream_t *streams = team.streams;
    const float4 *dpos[SIM_MAX_GPUS];
    float4 *dacc[SIM_MAX_GPUS];
    int first[SIM_MAX_GPUS + 1], mine[SIM_MAX_GPUS];
    int *index = malloc(sizeof(int) * (size_t)n);
    sim_body *bodies = calloc((size_t)n, sizeof *bodies);
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)n);
    float4 *host = malloc(sizeof(float4) * (size_t)n);
    result r = {.acc = calloc((size_t)n, sizeof(float4))};
    if (!index || !bodies || !keys || !host || !r.acc) exit(1);
    for (int i = 0; i < n; i++) {
        bodies[i] = (sim_body){.pos = {pos[i].x, pos[i].y, pos[i].z}, .mass = pos[i].w};
    }
    if (spatial) {
        sim_spread_split(bodies, n, count, keys, index, first);
    } else {
        for (int i = 0; i < n; i++) index[i] = i;
        for (int k = 0; k <= count; k++) first[k] = (int)((long long)k * n / count);
    }
    for (int k = 0; k < count; k++) {
        mine[k] = first[k + 1] - first[k];
        const size_t bytes = sizeof(float4) * (size_t)(mine[k] > 0 ? mine[k] : 1);
        cudaSetDevice(devices[k]);
        int sms = 0;
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, devices[k]);
        team.devices[k] = devices[k];
        trees[k] = sim_tree_create(sms, &faults[k]);
        if (!trees[k] || !sim_tree_reserve(trees[k], mine[k] > 0 ? mine[k] : 1)) {
            fprintf(stderr, "no GPU memory for the tree\n");
            exit(1);
        }
        cudaStreamCreate(&streams[k]);
        for (int j = 0; j < mine[k]; j++) host[j] = pos[index[first[k] + j]];
        float4 *d = dev_alloc(bytes);
        cudaMemcpy(d, host, sizeof(float4) * (size_t)mine[k], cudaMemcpyHostToDevice);
        dpos[k] = d;
        dacc[k] = dev_alloc(bytes);
        cudaMemset(dacc[k], 0, bytes);
    }
    const float alpha = p.alpha;
    for (int pass = alpha > 0 ? 0 : 1; pass < 2; pass++) {
        sim_tree_params q = p;
        q.alpha = pass == 0 ? 0.0f : alpha;
        q.potential = pass == 1;
        q.acc_old = pass == 1 && alpha > 0 ? dacc[0] : NULL;
        if (count == 1) {
            sim_tree_forces(trees[0], n, dpos[0], dacc[0], &q, streams[0]);
        } else {
            sim_tree_forces_domains(&team, mine, dpos, dacc, &q);
        }
        for (int k = 0; k < count; k++) {
            cudaSetDevice(devices[k]);
            cudaMemcpy(host, dacc[k], sizeof(float4) * (size_t)mine[k], cudaMemcpyDeviceToHost);
            for (int j = 0; j < mine[k]; j++) r.acc[index[first[k] + j]] = host[j];
        }
    }
    r.unwritten = 0;
    for (int i = 0; i < n; i++) r.unwritten += !(r.acc[i].w < 0.0f);
    r.boxes_min = count > 1 ? INT_MAX : 0;
    for (int k = 0; k < count && count > 1; k++) {
        const sim_tree_stats st = sim_tree_get_stats(trees[k]);
        CHECK(st.valid, "domain %d: stats of the evaluation", k);
        if (st.sent_share_max > r.sent_share_max) r.sent_share_max = st.sent_share_max;
        if (st.domain_boxes < r.boxes_min) r.boxes_min = st.domain_boxes;
    }
    r.potential = 0;
    for (int i = 0; i < n; i++) r.potential += 0.5 * pos[i].w * r.acc[i].w;
    cudaSetDevice(devices[0]);
    const size_t bytes = sizeof(float4) * (size_t)n;
    float4 *sum = dev_alloc(bytes), *all = dev_alloc(bytes);
    cudaMemcpy(sum, r.acc, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(all, pos, bytes, cudaMemcpyHostToDevice);
    sim_error err = {0};
    const int samples = n <= 20000 ? n : 8192;
    CHECK(sim_tree_force_error(n, all, sum, NULL, NULL, false, EPS2, samples, 99u, &r.err, &err,
                               &fault, streams[0]),
          "force error: %s", err.message);
    cudaFree(sum);
    cudaFree(all);
    for (int k = 0; k < count; k++) {
        cudaSetDevice(devices[k]);
        cudaStreamSynchronize(streams[k]);
        sim_tree_destroy(trees[k]);
        cudaStreamDestroy(streams[k]);
        cudaFree((void *)dpos[k]);
        cudaFree(dacc[k]);
    }
    cudaSetDevice(devices[0]);
    sim_gang_destroy(team.gang);
    free(host);
    free(keys);
    free(bodies);
    free(index);
    CHECK(fault.code == 0, "no CUDA fault: %s", fault.what);
    for (int k = 0; k < count; k++) {
        CHECK(faults[k].code == 0, "domain %d: no CUDA fault: %s", k, faults[k].what);
    }
    return r;
}

static float4 *plummer(int n) {
    sim_desc d = {.body_count = n, .backend = SIM_BACKEND_CPU, .ic = SIM_IC_PLUMMER, .seed = 3};
    sim *s = test_sim(d);
    sim_body *b = malloc(sizeof *b * n);
    float4 *pos = malloc(sizeof *pos * n);
    if (!b || !pos) exit(1);
    sim_get_bodies(s, b);
    unsigned long long seed = 17;
    for (int i = 0; i < n; i++) { /* unequal masses, the same total */
        const float m = b[i].mass * (float)(0.5 + test_uniform(&seed));
        pos[i] = (float4){b[i].pos[0], b[i].pos[1], b[i].pos[2], m};
    }
    sim_destroy(s);
    free(b);
    return pos;
}

static sim_tree_params params(float theta, float alpha) {
    return (sim_tree_params){
        .eps2 = EPS2, .theta = theta, .group = 32, .alpha = alpha, .monopoles = alpha > 0};
}

/* The domains against the one tree on the same bodies. */
static void check_against_one(const char *what, int n, const float4 *pos, sim_tree_params p,
                              double median_max, double p99_max) {
    const int one_dev[1] = {0};
    result one = forces(1, one_dev, n, pos, p, true);
    printf("%s, one tree: median %.2e, p99 %.2e, max %.2e\n", what, one.err.median, one.err.p99,
           one.err.max);
    const int counts[] = {2, 3, 4, 8, SIM_MAX_GPUS};
    const int devs[SIM_MAX_GPUS] = {0};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        const int count = counts[c];
        result r = forces(count, devs, n, pos, p, true);
        printf("%s, %d domains: median %.2e, p99 %.2e, max %.2e; most cells sent to one other "
               "%.1f %%\n",
               what, count, r.err.median, r.err.p99, r.err.max, 100 * r.sent_share_max);
        CHECK(r.unwritten == 0, "%s, %d domains: %d bodies not walked", what, count, r.unwritten);
        /* Each domain's groups open only the others' cells near them: at
         * this N that is much of a neighbour's tree but not all of it, where
         * boxes over stretches of the sorted bodies (which jump across the
         * centre) opened all of it. */
        if (p.theta >= 0.75f) {
            CHECK(r.sent_share_max < 0.9,
                  "%s, %d domains: a domain sent another %.0f %% of its cells", what, count,
                  100 * r.sent_share_max);
        }
        CHECK(r.err.median <= median_max && r.err.p99 <= p99_max,
              "%s, %d domains: median %.2e (<= %.0e), p99 %.2e (<= %.0e)", what, count,
              r.err.median, median_max, r.err.p99, p99_max);
        CHECK(r.err.median <= 2 * one.err.median && r.err.p99 <= 2 * one.err.p99 &&
                  r.err.max <= 2 * one.err.max,
              "%s, %d domains: errors within twice the one tree's", what, count);
        CHECK(fabs(r.potential - one.potential) <= 2e-4 * fabs(one.potential),
              "%s, %d domains: W %.9g, one tree %.9g", what, count, r.potential, one.potential);
        free(r.acc);
    }
    free(one.acc);
}

/* Domains split by index, each over the whole sphere: right, though each
 * sends the others nearly its whole tree (and the trees grow for it). */
static void check_index_split(int n, const float4 *pos) {
    const int devs[4] = {0, 0, 0, 0};
    const sim_tree_params p = params(0.75f, 0);
    result one = forces(1, devs, n, pos, p, true);
    result r = forces(3, devs, n, pos, p, false);
    printf("index split, 3 domains: median %.2e, p99 %.2e, max %.2e; most cells sent to one "
           "other %.1f %%\n",
           r.err.median, r.err.p99, r.err.max, 100 * r.sent_share_max);
    CHECK(r.unwritten == 0, "index split: %d bodies not walked", r.unwritten);
    CHECK(r.err.median <= 2 * one.err.median && r.err.p99 <= 2 * one.err.p99 &&
              r.err.max <= 2 * one.err.max,
          "index split: median %.2e, p99 %.2e, max %.2e; one tree %.2e, %.2e, %.2e", r.err.median,
          r.err.p99, r.err.max, one.err.median, one.err.p99, one.err.max);
    CHECK(fabs(r.potential - one.potential) <= 2e-4 * fabs(one.potential),
          "index split: W %.9g, one tree %.9g", r.potential, one.potential);
    free(r.acc);
    free(one.acc);
}

/* Two cusps far apart, one per domain, each with as many bodies in every
 * factor of ten of radius from 1 down to 1e-4 (density ~ r^-3): on each of
 * a domain's levels the cut splits the cells around its centre of mass,
 * which are wider than their distance from it (DOMAIN_WIDE), down to the
 * leaves. Those must still fit the boxes a domain is told in, else it
 * becomes one box around the domain, which the others open everything
 * near. */
static void check_cusps(void) {
    const int n = 100002; /* even: each domain's stretch is one cusp */
    float4 *pos = malloc(sizeof(float4) * n);
    if (!pos) exit(1);
    unsigned long long seed = 23;
    for (int i = 0; i < n; i++) {
        const double r = pow(10.0, -4.0 * test_uniform(&seed));
        const double z = 2 * test_uniform(&seed) - 1, phi = 6.283185307179586 * test_uniform(&seed);
        const double s = sqrt(1 - z * z), c = i % 2 ? 4 : -4;
        pos[i] = (float4){(float)(c + r * s * cos(phi)), (float)(c + r * s * sin(phi)),
                          (float)(c + r * z), (float)((0.5 + test_uniform(&seed)) / n)};
    }
    const int devs[2] = {0, 0};
    const sim_tree_params p = params(1.0f, 0.015f);
    result one = forces(1, devs, n, pos, p, true);
    result r = forces(2, devs, n, pos, p, true);
    printf("two cusps, 2 domains: median %.2e, p99 %.2e, max %.2e (one tree %.2e, %.2e, %.2e); "
           "fewest boxes %d\n",
           r.err.median, r.err.p99, r.err.max, one.err.median, one.err.p99, one.err.max,
           r.boxes_min);
    CHECK(r.unwritten == 0, "two cusps: %d bodies not walked", r.unwritten);
    CHECK(r.boxes_min > 1, "two cusps: a domain told the others it was %d box", r.boxes_min);
    CHECK(r.err.median <= 2 * one.err.median && r.err.p99 <= 2 * one.err.p99 &&
              r.err.max <= 2 * one.err.max,
          "two cusps: errors within twice the one tree's");
    free(r.acc);
    free(one.acc);
    free(pos);
}

/* Few bodies, or equal keys. */
static void check_small(const char *what, int n, const float4 *pos, int count, double median_max) {
    const int devs[4] = {0, 0, 0, 0};
    result one = forces(1, devs, n, pos, params(0.75f, 0), true);
    result r = forces(count, devs, n, pos, params(0.75f, 0), true);
    printf("%s: median %.2e, max %.2e; one tree %.2e, %.2e\n", what, r.err.median, r.err.max,
           one.err.median, one.err.max);
    CHECK(r.unwritten == 0, "%s: %d bodies not walked", what, r.unwritten);
    CHECK(r.err.median <= median_max && r.err.median <= 2 * one.err.median + 1e-6 &&
              r.err.max <= 2 * one.err.max + 1e-6,
          "%s: median %.2e (<= %.0e), max %.2e, one tree's %.2e and %.2e", what, r.err.median,
          median_max, r.err.max, one.err.median, one.err.max);
    free(r.acc);
    free(one.acc);
}

int main(void) {
    char why[160] = "";
    const int devices = sim_cuda_device_count(why, sizeof why);
    if (devices < 1) {
        printf("test_tree_domains: skipped: no CUDA device (%s)\n", why);
        return TEST_SKIP;
    }
    const int n = 100003;
    float4 *pos = plummer(n);
    check_against_one("Plummer 100003, theta 1, alpha 0.015", n, pos, params(1.0f, 0.015f), 1e-3,
                      1e-2);
    check_against_one("Plummer 100003, theta 0.75", n, pos, params(0.75f, 0), 1e-3, 1e-2);
    check_against_one("Plummer 100003, theta 0.1", n, pos, params(0.1f, 0), 2e-5, 2e-4);
    check_index_split(n, pos);
    check_cusps();

    float4 few[64];
    unsigned long long seed = 5;
    for (int i = 0; i < 64; i++) {
        few[i] = (float4){(float)test_uniform(&seed), (float)test_uniform(&seed),
                          (float)test_uniform(&seed), (float)(0.5 + test_uniform(&seed)) / 64};
    }
    check_small("5 bodies, 4 domains", 5, few, 4, 1e-5);
    check_small("50 bodies, 4 domains", 50, few, 4, 1e-5);
    for (int i = 0; i < 64; i++) few[i].x = few[i].y = few[i].z = (float)(i % 3);
    check_small("64 bodies on 3 points, 3 domains", 64, few, 3, 1e-3);

    if (devices >= 2) {
        const int stand_in[2] = {0, 0}, real[2] = {0, 1};
        const sim_tree_params p = params(1.0f, 0.015f);
        result a = forces(2, stand_in, n, pos, p, true), b = forces(2, real, n, pos, p, true);
        CHECK(memcmp(a.acc, b.acc, sizeof(float4) * n) == 0 && b.unwritten == 0,
              "two devices give the one-device stand-in's accelerations bit for bit");
        free(a.acc);
        free(b.acc);
    }
    free(pos);
    return test_exit("test_tree_domains");
}
