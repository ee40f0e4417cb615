/* test_gpu.c - every CUDA variant against the double-precision CPU
 * reference. Needs a CUDA device: exits 77 (skipped) where there is none.
 *
 * For each N in {1, 2, 31, 1000, 4097, 16384} (none a multiple of a block
 * size except 16384, which is one of all of them), random unequal masses in
 * a unit cube, eps = 0.05, dt = 1/128: the CPU reference runs 10 steps once;
 * then every variant at every block shape it honours (powers of two with
 * p*q <= 1024, plus odd shapes such as 96 x 3) runs the same 10 steps from
 * the same float-exact start, and every component of every body's position,
 * velocity and acceleration is compared.
 *
 * Tolerance, float32 variants: atol = rtol = 2e-4. Float sums of N terms
 * carry ~1e-6 relative error in the acceleration (rsqrtf's 2 ulp plus
 * accumulation); over 10 steps of 1/128 that moves velocities by ~1e-6 and
 * positions by ~1e-7, and positions near 1 are themselves rounded to 6e-8
 * per step. A real bug is far larger: one body of 16384 left out of a tile
 * changes its neighbours' accelerations by m/eps^2 ~ 2e-2.
 * fp64: atol = rtol = 1e-9. Its state and sums are double and its 1/r^3 is
 * good to ~1e-13 relative (one Newton step on a 2^-22 estimate); 10 steps
 * leave differences of order 1e-13, so 1e-9 has room while being 1e5 times
 * tighter than float could meet - a float slipping into the fp64 path fails.
 *
 * Also: switching variants mid-run (float -> fp64 -> float) lands on the
 * same answer (physics continuous across a switch); GPU diagnostics match
 * the CPU's; vertices are positions plus speed.
 *
 * --quick runs N = 31 and 1000 at three shapes per variant, for
 * compute-sanitizer (memcheck and racecheck), which slows kernels 10-100x.
 */
#include <string.h>

#include "test_util.h"

#define STEPS 10
#define TOL32 2e-4
#define TOL64 1e-9

typedef struct shape {
    int p, q;
} shape;

/* Block shapes worth trying for a variant: every power-of-two p x q within
 * 1024 threads (q = 1 when the variant ignores q), plus odd ones. */
static int shapes_for(const sim_variant_desc *info, bool quick, shape *out) {
    int count = 0;
    for (int p = 1; p <= 1024; p *= 2) {
        for (int q = 1; p * q <= 1024; q *= 2) {
            if (!info->q_meaning && q > 1) break;
            if (quick && !((p == 32 && q == 4) || (p == 256 && q == 1))) continue;
            out[count++] = (shape){p, q};
        }
    }
    out[count++] = (shape){7, info->q_meaning ? 5 : 1};
    if (!quick) out[count++] = (shape){96, info->q_meaning ? 3 : 1};
    return count;
}

static sim *cuda_sim(int n) {
    return test_sim((sim_desc){
        .backend = SIM_BACKEND_CUDA, .body_count = n, .softening = 0.05f, .dt = 1.0f / 128.0f});
}

static void check_size(int n, bool quick) {
    sim_body *start = malloc(sizeof(sim_body) * (size_t)n);
    sim_body *ref = malloc(sizeof(sim_body) * (size_t)n);
    sim_body *got = malloc(sizeof(sim_body) * (size_t)n);
    test_random_bodies(start, n, 77 + (unsigned long long)n);

    sim *cpu = test_sim((sim_desc){
        .backend = SIM_BACKEND_CPU, .body_count = n, .softening = 0.05f, .dt = 1.0f / 128.0f});
    test_set_bodies(cpu, start, n);
    const sim_diag cpu_d0 = sim_diagnostics(cpu);
    sim_step(cpu, STEPS);
    sim_get_bodies(cpu, ref);

    sim *gpu = cuda_sim(n);
    shape shapes[128];
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        const sim_variant_desc *info = sim_variant_info((sim_variant)v);
        const double tol = info->fp64 ? TOL64 : TOL32;
        sim_error err = {0};
        CHECK(sim_set_variant(gpu, (sim_variant)v, &err), "switch to %s: %s", info->name,
              err.message);
        const int count = shapes_for(info, quick, shapes);
        int failed_shapes = 0;
        for (int k = 0; k < count; k++) {
            test_set_bodies(gpu, start, n);
            sim_block b = sim_set_block(gpu, shapes[k].p, shapes[k].q);
            if (b.clamped && b.p * b.q != shapes[k].p * shapes[k].q) continue; /* not honoured */
            sim_step(gpu, STEPS);
            sim_get_bodies(gpu, got);
            char what[96];
            snprintf(what, sizeof what, "N=%d %s p=%d q=%d", n, info->name, b.p, b.q);
            int bad = compare_bodies(what, got, ref, n, tol, tol, 1);
            CHECK(bad == 0, "%s: %d components off", what, bad);
            failed_shapes += bad != 0;
        }
        printf("N=%d %s: %d shapes, %d failed\n", n, info->name, count, failed_shapes);
    }

    /* Switch kernels mid-run, through double state and back: same answer. */
    sim_error err = {0};
    CHECK(sim_set_variant(gpu, SIM_VARIANT_NAIVE, &err), "naive");
    test_set_bodies(gpu, start, n);
    sim_step(gpu, 3);
    CHECK(sim_set_variant(gpu, SIM_VARIANT_FP64, &err), "fp64: %s", err.message);
    sim_step(gpu, 4);
    CHECK(sim_set_variant(gpu, SIM_VARIANT_DEFAULT, &err), "default");
    sim_step(gpu, STEPS - 7);
    sim_get_bodies(gpu, got);
    char what[64];
    snprintf(what, sizeof what, "N=%d naive, fp64, best", n);
    CHECK(compare_bodies(what, got, ref, n, TOL32, TOL32, 1) == 0, "%s", what);

    /* Diagnostics reduced on the GPU match the CPU's (float positions:
     * relative 1e-5 on energies, 1e-6 absolute on momenta of order 1e-2). */
    test_set_bodies(gpu, start, n);
    const sim_diag g = sim_diagnostics(gpu);
    if (n > 1) {
        CHECK(fabs(g.potential / cpu_d0.potential - 1) < 1e-5, "N=%d W gpu %.9g cpu %.9g", n,
              g.potential, cpu_d0.potential);
    }
    CHECK(fabs(g.kinetic / cpu_d0.kinetic - 1) < 1e-5, "N=%d K gpu %.9g cpu %.9g", n, g.kinetic,
          cpu_d0.kinetic);
    CHECK(fabs(g.mass / cpu_d0.mass - 1) < 1e-6, "N=%d M", n);
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(g.momentum[k] - cpu_d0.momentum[k]) < 1e-6, "N=%d P[%d]", n, k);
        CHECK(fabs(g.angular_momentum[k] - cpu_d0.angular_momentum[k]) < 1e-6, "N=%d L[%d]", n, k);
        CHECK(fabs(g.center_of_mass[k] - cpu_d0.center_of_mass[k]) < 1e-6, "N=%d com[%d]", n, k);
    }

    /* Vertices: position and speed. */
    sim_vertex *vtx = malloc(sizeof(sim_vertex) * (size_t)n);
    sim_write_vertices(gpu, vtx, false);
    int vbad = 0;
    for (int i = 0; i < n; i++) {
        const sim_body *s = &start[i];
        double speed = sqrt(s->vel[0] * s->vel[0] + s->vel[1] * s->vel[1] + s->vel[2] * s->vel[2]);
        vbad += vtx[i].x != (float)s->pos[0] || vtx[i].y != (float)s->pos[1] ||
                vtx[i].z != (float)s->pos[2] || fabs(vtx[i].speed - speed) > 1e-6;
    }
    CHECK(vbad == 0, "N=%d: %d vertices wrong", n, vbad);
    free(vtx);

    sim_destroy(gpu);
    sim_destroy(cpu);
    free(start);
    free(ref);
    free(got);
}

int main(int argc, char **argv) {
    if (sim_cuda_device_count(NULL, 0) == 0) {
        printf("test_gpu: no CUDA device, skipped\n");
        return TEST_SKIP;
    }
    const bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const int sizes[] = {1, 2, 31, 1000, 4097, 16384};
    const int quick_sizes[] = {31, 1000};
    const int *n = quick ? quick_sizes : sizes;
    const int count = quick ? 2 : 6;
    for (int i = 0; i < count; i++) check_size(n[i], quick);

    /* Growing N reallocates; the new bodies must all be there. */
    sim *s = cuda_sim(10);
    sim_error err = {0};
    CHECK(sim_reset(s, SIM_IC_PLUMMER, 5000, 1, &err), "grow to 5000");
    CHECK(sim_get_params(s).body_count == 5000, "N after grow");
    const sim_diag d = sim_diagnostics(s);
    CHECK(fabs(d.mass - 1.0) < 1e-5, "mass after grow %.7f", d.mass);
    /* Absurd N is refused with a message, and the old state is kept. (Not
     * under --quick: the sanitizer rightly reports the failed cudaMalloc.) */
    if (!quick) {
        CHECK(!sim_reset(s, SIM_IC_PLUMMER, 2000000000, 1, &err), "2e9 bodies refused");
        printf("refusal says: %s / %s\n", err.message, err.hint);
        CHECK(sim_get_params(s).body_count == 5000, "state kept after refusal");
    }
    sim_destroy(s);
    return test_exit("test_gpu");
}
