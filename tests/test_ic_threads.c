/* test_ic_threads.c - an initial condition is the same on any number of threads.
 *
 * sim_ic_generate draws every body from its own random stream and sums the
 * bodies in fixed blocks, so that its loops can run on OpenMP's threads
 * (sim_internal.h). This checks the promise bit for bit: each scene
 * (Plummer, shell, disk, merger) of N = 70,001 bodies, enough that every
 * loop of the generators runs in parallel (each disk of the merger has more
 * than SIM_IC_PARALLEL_MIN bodies), is generated on 1 thread and on 3 (not
 * a power of two, so the threads' shares are uneven) and every position,
 * velocity, acceleration, mass and tag must be identical; another seed must
 * give other bodies, and the scene must have its centre of mass and total
 * momentum at zero either way. A stream that depended on the thread or on
 * the order in which the threads took the bodies would fail the first check.
 *
 * White box (it includes sim_internal.h): the generator is called directly,
 * without a simulation, so no force is computed. Skipped (77) in a build
 * without OpenMP, where there is only one thread count to compare.
 */
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "sim_internal.h"
#include "test_util.h"

#define N 70001
_Static_assert(N / 4 > SIM_IC_PARALLEL_MIN, "each disk of the merger runs its loops in parallel");

/* Bodies that differ in any bit of a field (the padding after the tag is not compared). */
static int differing(const sim_body *a, const sim_body *b, int n) {
    int count = 0;
    for (int i = 0; i < n; i++) {
        count += memcmp(a[i].pos, b[i].pos, sizeof a[i].pos) != 0 ||
                 memcmp(a[i].vel, b[i].vel, sizeof a[i].vel) != 0 ||
                 memcmp(a[i].acc, b[i].acc, sizeof a[i].acc) != 0 ||
                 memcmp(&a[i].mass, &b[i].mass, sizeof a[i].mass) != 0 || a[i].tag != b[i].tag;
    }
    return count;
}

/* The scene ic of n bodies and seed, generated on `threads` threads. */
static void generate(sim_ic ic, uint64_t seed, int threads, sim_body *out) {
#ifdef _OPENMP
    omp_set_num_threads(threads);
#endif
    const sim_desc d = sim_desc_defaults(&(sim_desc){.backend = SIM_BACKEND_CPU, .ic = ic});
    /* Each run fills with another pattern, so that a field left unwritten
     * shows as a difference. */
    memset(out, threads == 1 ? 0xa5 : 0x5a, sizeof *out * N);
    sim_ic_generate(ic, N, seed, &d, 0.15, out);
}

static void check_centred(const char *name, const sim_body *b) {
    double m = 0, r[3] = {0, 0, 0}, p[3] = {0, 0, 0}, scale = 0;
    for (int i = 0; i < N; i++) {
        m += b[i].mass;
        for (int k = 0; k < 3; k++) {
            r[k] += b[i].mass * b[i].pos[k];
            p[k] += b[i].mass * b[i].vel[k];
            scale += b[i].mass * (fabs(b[i].pos[k]) + fabs(b[i].vel[k]));
        }
    }
    /* Zero up to the rounding of N terms of the sums' size: 1e-12 of the
     * mass-weighted sum of |x| and |v|, far above double's rounding of
     * 70,001 additions (~1e-16 x N) and far below any real offset. */
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(r[k]) <= 1e-12 * scale && fabs(p[k]) <= 1e-12 * scale,
              "%s: centre of mass %.3g, momentum %.3g (axis %d, scale %.3g)", name, r[k] / m,
              p[k] / m, k, scale);
    }
}

int main(void) {
#ifndef _OPENMP
    printf("test_ic_threads: skipped: built without OpenMP\n");
    return TEST_SKIP;
#else
    sim_body *one = malloc(sizeof(sim_body) * N), *three = malloc(sizeof(sim_body) * N);
    if (!one || !three) {
        fprintf(stderr, "test_ic_threads: out of memory\n");
        return 1;
    }
    const sim_ic ics[] = {SIM_IC_PLUMMER, SIM_IC_SHELL, SIM_IC_DISK, SIM_IC_MERGER};
    for (size_t k = 0; k < sizeof ics / sizeof ics[0]; k++) {
        const char *name = sim_ic_name(ics[k]);
        generate(ics[k], 12345, 1, one);
        generate(ics[k], 12345, 3, three);
        CHECK(omp_get_max_threads() == 3, "%s: 3 threads asked, %d given", name,
              omp_get_max_threads());
        const int bad = differing(one, three, N);
        printf("%s: %d of %d bodies differ between 1 and 3 threads\n", name, bad, N);
        CHECK(bad == 0, "%s: %d bodies differ between 1 and 3 threads", name, bad);
        check_centred(name, three);
        generate(ics[k], 12346, 3, three);
        CHECK(differing(one, three, N) > N / 2, "%s: another seed gives other bodies", name);
    }
    free(one);
    free(three);
    return test_exit("test_ic_threads");
#endif
}
