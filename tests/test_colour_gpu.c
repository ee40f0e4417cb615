/* test_colour_gpu.c - colour by a quantity on the GPU (app/app_colour.c's
 * CUDA path) against its CPU twins, on two galaxies of unequal masses and
 * N a prime (a multiple of no block size):
 *
 *   radial velocity  sim_radial_velocities against app_colour_radial on the
 *                    same (float) state, read back with sim_get_bodies;
 *                    drawing every 7th body, the 7th bodies' values
 *   density          density_gpu_bodies against density_bodies_cpu, all
 *                    tags and a filter of one galaxy, NaN where the CPU's is
 *   sample, place    density_gpu_sample's strided copy (exact) and
 *                    density_gpu_place against app_colour_place over the
 *                    range app_colour_range takes of that sample
 *
 * Exits 77 where there is no CUDA device.
 */
#include <cglm/cglm.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "density.h"
#include "test_check.h"

#define N 20011 /* a prime */
#define W 640
#define H 480

/* Two clumps with their own centres and bulk velocities, random motions
 * about them (so v_r has both signs), masses from 0.2 to 2 (unequal
 * between and within the galaxies), tags of both components. */
static void make_bodies(sim_body *b) {
    const double c[2][3] = {{2, -1, 0.5}, {-3, 2, -0.5}},
                 u[2][3] = {{0.3, 0.1, 0}, {-0.5, 0.4, 0.2}};
    uint64_t s = 11;
    for (int i = 0; i < N; i++) {
        const int g = i % 3 == 0 ? 1 : 0; /* a third in galaxy 1 */
        const double r = 1.5 * pow(test_splitmix(&s), 0.6);
        const double ct = 2 * test_splitmix(&s) - 1, ph = 2 * 3.14159265358979 * test_splitmix(&s);
        const double st = sqrt(1 - ct * ct);
        const double d[3] = {r * st * cos(ph), r * st * sin(ph), r * ct};
        memset(&b[i], 0, sizeof b[i]);
        for (int k = 0; k < 3; k++) {
            b[i].pos[k] = c[g][k] + d[k];
            b[i].vel[k] = u[g][k] + 0.5 * (2 * test_splitmix(&s) - 1);
        }
        b[i].mass = (0.2 + 1.8 * test_splitmix(&s)) / N;
        b[i].tag = (uint8_t)SIM_TAG(g, (i / 3) % 2);
    }
}

static void camera(density_view *dv) {
    mat4 view, proj;
    glm_lookat((vec3){0, 0, 9}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_perspective(0.8f, (float)W / H, 0.01f, 100.0f, proj);
    *dv = (density_view){.width = W, .height = H};
    memcpy(dv->view, view, sizeof dv->view);
    memcpy(dv->proj, proj, sizeof dv->proj);
}

static float *from_device(const float *d, int n) {
    float *h = malloc(sizeof *h * (size_t)n);
    if (h && cudaMemcpy(h, d, sizeof *h * (size_t)n, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        return NULL;
    }
    return h;
}

/* |gpu - cpu| <= atol + rtol |cpu| for every body, NaN where the CPU's is;
 * prints the worst few. Returns how many differ. */
static int compare(const char *what, const float *gpu, const float *cpu, int n, double atol,
                   double rtol) {
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const bool ok = isnan(cpu[i]) ? isnan(gpu[i])
                                      : fabs((double)gpu[i] - cpu[i]) <= atol + rtol * fabs(cpu[i]);
        if (!ok && bad++ < 5) printf("%s: body %d gpu %.9g cpu %.9g\n", what, i, gpu[i], cpu[i]);
    }
    return bad;
}

static void test_radial(sim *s, const sim_body *b, float *dev) {
    float *cpu = malloc(sizeof *cpu * N);
    CHECK(sim_radial_velocities(s, dev), "the CUDA backend takes them");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "kernels ran");
    float *gpu = from_device(dev, N);
    app_colour_radial(b, N, cpu);
    double top = 0;
    for (int i = 0; i < N; i++) top = fmax(top, fabs(cpu[i]));
    /* Both in double from the same float state; only the order of the
     * galaxies' double sums differs (atomics): each value is then rounded
     * to float, so 2 float ulps of the value, and of the largest near 0
     * (dx . dv cancelling). */
    CHECK(gpu && compare("radial", gpu, cpu, N, 2.4e-7 * top, 2.4e-7) == 0,
          "radial velocity as app_colour_radial's");
    free(gpu);
    /* Drawing every 7th body (sim_set_draw_stride): value j is body 7j's. */
    sim_set_draw_stride(s, 7);
    const int drawn = sim_get_params(s).drawn;
    CHECK(sim_radial_velocities(s, dev) && cudaDeviceSynchronize() == cudaSuccess,
          "radial, 1 in 7");
    gpu = from_device(dev, drawn);
    for (int j = 0; j < drawn; j++) cpu[j] = cpu[7 * j];
    CHECK(gpu && compare("radial 1 in 7", gpu, cpu, drawn, 2.4e-7 * top, 2.4e-7) == 0,
          "radial velocity of every 7th body");
    sim_set_draw_stride(s, 1);
    free(gpu);
    free(cpu);
}

static void test_density_place(sim *s, const sim_body *b, float *raw, float *place,
                               density_gpu *g) {
    sim_vertex *v = malloc(sizeof *v * N);
    float *mass = malloc(sizeof *mass * N), *cpu = malloc(sizeof *cpu * N);
    uint8_t *tags = malloc(N);
    density_error err = {0};
    sim_write_vertices(s, v, false);
    for (int i = 0; i < N; i++) {
        mass[i] = (float)b[i].mass;
        tags[i] = (uint8_t)b[i].tag;
    }
    void *dv_ptr = density_gpu_vertices(g, N, &err);
    CHECK(dv_ptr && density_gpu_set_bodies(g, mass, tags, N, &err), "%s", err.message);
    if (!dv_ptr) return;
    sim_queue_vertices(s, dv_ptr); /* as app_colour.c fills it */
    const uint32_t filters[2] = {0, 1u << SIM_TAG(1, 0) | 1u << SIM_TAG(1, 1)};
    for (int k = 0; k < 2; k++) {
        density_view dv;
        camera(&dv);
        dv.tags = filters[k];
        CHECK(density_gpu_bodies(g, N, &dv, raw, &err), "%s", err.message);
        CHECK(density_bodies_cpu((const float *)v, mass, tags, N, &dv, cpu, &err), "%s",
              err.message);
        float *gpu = from_device(raw, N);
        /* A cell's mass adds up in float atomics (any order) against the
         * CPU's double sum: a cell of k bodies is within about k float
         * roundings, 1e-3 of its value for the densest cells here (some
         * thousands of bodies), then two float products. */
        int nan = 0;
        for (int i = 0; i < N; i++) nan += isnan(cpu[i]);
        CHECK(gpu && compare("density", gpu, cpu, N, 0, 1e-3) == 0,
              "filter %d: density as density_bodies_cpu's", k);
        /* Galaxy 1 is every third body: its filter leaves out at least the rest. */
        CHECK(nan < N && (k == 0 || nan >= N - (N + 2) / 3),
              "filter %d: %d bodies left out, not all (at least galaxy 0's by its filter)", k, nan);
        /* The range from a strided sample, as app_colour.c takes it. */
        const int stride = 7, count = (N + stride - 1) / stride;
        float sample[(N + 6) / 7];
        CHECK(density_gpu_sample(raw, N, stride, sample, &err), "%s", err.message);
        int wrong = 0;
        for (int i = 0; gpu && i < count; i++) {
            wrong += memcmp(&sample[i], &gpu[(size_t)i * stride], sizeof(float)) != 0;
        }
        CHECK(wrong == 0, "the sample is every 7th value (%d differ)", wrong);
        double lo = 0, hi = 0;
        CHECK(app_colour_range(RENDER_COLOR_DENSITY, sample, count, NULL, &lo, &hi) && hi > lo,
              "a range");
        CHECK(density_gpu_place(raw, N, lo, hi, true, place, &err), "%s", err.message);
        float *placed = from_device(place, N), *want = malloc(sizeof *want * N);
        for (int i = 0; gpu && i < N; i++) {
            want[i] = app_colour_place(RENDER_COLOR_DENSITY, lo, hi, gpu[i]);
        }
        /* The same double arithmetic rounded to float once; the device's
         * log may differ from libm's in the last double bits. */
        CHECK(placed && gpu && compare("place", placed, want, N, 1e-6, 0) == 0,
              "places as app_colour_place's");
        free(placed);
        free(want);
        free(gpu);
    }
    /* Linear places (radial velocity's), with a range of one value: 0.5. */
    CHECK(density_gpu_place(raw, N, 1.0, 1.0, false, place, &err), "%s", err.message);
    float *placed = from_device(place, N), *gpu = from_device(raw, N);
    int bad = 0;
    for (int i = 0; placed && gpu && i < N; i++) {
        bad += placed[i] != app_colour_place(RENDER_COLOR_RADIAL, 1.0, 1.0, gpu[i]);
    }
    CHECK(placed && gpu && bad == 0, "an empty range places as app_colour_place (%d differ)", bad);
    free(placed);
    free(gpu);
    free(v);
    free(mass);
    free(cpu);
    free(tags);
}

int main(void) {
    char why[160] = "";
    if (sim_cuda_device_count(why, sizeof why) == 0) {
        printf("no CUDA device (%s): skipped\n", why);
        return TEST_SKIP;
    }
    sim_error err = {0};
    sim *s = sim_create(&(sim_desc){.body_count = 64, .backend = SIM_BACKEND_CUDA}, &err);
    sim_body *b = malloc(sizeof *b * N);
    if (!s || !b) {
        printf("FAIL: %s\n", err.message);
        return 1;
    }
    make_bodies(b);
    CHECK(sim_set_bodies(s, b, N, &err), "%s", err.message);
    sim_get_bodies(s, b); /* the state as the GPU holds it (float) */
    density_error de = {0};
    density_gpu *g = density_gpu_create(&de);
    float *raw = NULL, *place = NULL;
    if (!g || !density_gpu_values(g, N, &raw, &place, &de)) {
        printf("FAIL: %s\n", de.message);
        return 1;
    }
    test_radial(s, b, raw);
    test_density_place(s, b, raw, place, g);
    density_gpu_destroy(g);
    sim_destroy(s);
    free(b);
    return test_exit("test_colour_gpu");
}
