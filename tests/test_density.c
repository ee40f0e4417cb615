/* test_density.c - the density map (density/) against what it must be.
 *
 *   test_density cpu   the CPU twin: mass totals, a Plummer sphere's profile,
 *                      the colour bar's units and ticks
 *   test_density gpu   the CUDA map against the CPU twin (exits 77 without a GPU)
 *
 * The bodies are made here (a Plummer sphere sampled from its own
 * cumulative mass, unequal masses), not by sim/.
 */
#include <cglm/cglm.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "density.h"
#include "test_check.h"

#define PI 3.14159265358979323846
#define W 320
#define H 240

/* n bodies of a Plummer sphere of scale a, truncated at r_max, into
 * vertices (x, y, z, 0) with unequal masses (1 +- 0.5, random) scaled to
 * total mass 1. */
static void plummer(int n, double a, double r_max, uint64_t seed, float *v, float *mass) {
    uint64_t s = seed;
    double total = 0;
    for (int i = 0; i < n; i++) {
        double r;
        do {
            const double u = test_splitmix(&s) * 0.999 + 1e-6;
            r = a / sqrt(pow(u, -2.0 / 3.0) - 1.0);
        } while (r > r_max);
        const double cz = 2 * test_splitmix(&s) - 1, ph = 2 * PI * test_splitmix(&s);
        const double sz = sqrt(1 - cz * cz);
        v[4 * i] = (float)(r * sz * cos(ph));
        v[4 * i + 1] = (float)(r * sz * sin(ph));
        v[4 * i + 2] = (float)(r * cz);
        v[4 * i + 3] = 0;
        mass[i] = (float)(0.5 + test_splitmix(&s));
        total += mass[i];
    }
    for (int i = 0; i < n; i++) mass[i] = (float)(mass[i] / total);
}

/* A camera on the +z axis at distance d looking at the origin, vertical
 * field of view fov (radians): the map's plane is x-y. */
static void camera(density_view *dv, double d, double fov) {
    mat4 view, proj;
    glm_lookat((vec3){0, 0, (float)d}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_perspective((float)fov, (float)W / H, (float)d * 1e-3f, (float)d * 1e3f, proj);
    *dv = (density_view){.width = W, .height = H};
    memcpy(dv->view, view, sizeof dv->view);
    memcpy(dv->proj, proj, sizeof dv->proj);
}

/* The total: sum of pixels x the pixel's area at the target's depth equals
 * sum of m (d / depth)^2 over the bodies (density.h: each body's mass is
 * per unit area at its own depth). */
static void test_total(void) {
    const int n = 5003; /* not a multiple of any block */
    float *v = malloc(sizeof(float) * 4 * n), *m = malloc(sizeof(float) * n);
    float *map = malloc(sizeof(float) * W * H);
    uint8_t *tags = malloc(n);
    plummer(n, 1.0, 4.0, 7, v, m);
    for (int i = 0; i < n; i++) tags[i] = (uint8_t)(i % 3 == 0 ? SIM_TAG(1, 2) : SIM_TAG(0, 0));
    density_view dv;
    const double d = 30; /* the sphere (r <= 4) well inside the picture: kernels lose nothing */
    camera(&dv, d, 0.6);
    const uint32_t masks[] = {0, 1u << SIM_TAG(1, 2)};
    for (int k = 0; k < 2; k++) {
        dv.tags = masks[k];
        density_error err = {0};
        CHECK(density_map_cpu(v, m, tags, n, &dv, map, &err), "%s", err.message);
        double sum = 0, want = 0;
        for (int p = 0; p < W * H; p++) sum += map[p];
        sum *= density_pixel_area(&dv, d);
        for (int i = 0; i < n; i++) {
            if (k == 1 && tags[i] != SIM_TAG(1, 2)) continue;
            const double depth = d - v[4 * i + 2]; /* the camera looks down -z */
            want += m[i] * (d / depth) * (d / depth);
        }
        /* Float weights and per-body scales: a relative error of a few
         * 1e-7 per body, summed in double: 1e-5 is ample and far below the
         * 1/n a lost or doubled body would make. */
        CHECK(fabs(sum - want) <= 1e-5 * want, "filter %d: map total %.9g, bodies %.9g", k, sum,
              want);
        printf("total (filter %d): map %.9g, bodies %.9g\n", k, sum, want);
    }
    free(v);
    free(m);
    free(map);
    free(tags);
}

/* Sigma(R) of a Plummer sphere of mass M and scale a cut at r_max: the
 * analytic M a^2 / (pi (a^2 + R^2)^2) times the share of its line of sight
 * inside r_max, both integrals of rho ~ (a^2 + R^2 + z^2)^(-5/2) by the
 * midpoint rule (steps of a / 100: well under 0.1 %). */
static double sigma(double M, double a, double r_max, double R) {
    const double zm = sqrt(r_max * r_max - R * R), far = 200 * a;
    double in = 0, all = 0;
    const int steps = 20000;
    for (int i = 0; i < steps; i++) {
        const double z = (i + 0.5) * far / steps;
        const double rho = pow(a * a + R * R + z * z, -2.5);
        all += rho;
        if (z < zm) in += rho;
    }
    return M * a * a / (PI * pow(a * a + R * R, 2)) * in / all;
}

/* A Plummer sphere seen from far (distance 1000 a, a narrow field: depths
 * within 0.5 % of the target's, so areas within 1 %): the azimuthal mean
 * in rings follows Sigma(R) = M a^2 / (pi (a^2 + R^2)^2). */
static void test_profile(void) {
    const int n = 200000;
    const double a = 1.0, d = 1000.0;
    float *v = malloc(sizeof(float) * 4 * n), *m = malloc(sizeof(float) * n);
    float *map = malloc(sizeof(float) * W * H);
    plummer(n, a, 5.0, 11, v, m);
    /* Truncated at 5 a and scaled to mass 1: the sphere whose inner 5 a
     * that is has M = (26 / 25)^(3/2) (the mass within r is
     * M r^3 / (r^2 + a^2)^(3/2)). Its Sigma(R) is the analytic one less the
     * line of sight past 5 a (about 6 % of it at 3 a): sigma() below. */
    const double M = pow(26.0 / 25.0, 1.5);
    density_view dv;
    camera(&dv, d, 2 * atan(6.0 / d)); /* the picture 12 a high */
    density_error err = {0};
    CHECK(density_map_cpu(v, m, NULL, n, &dv, map, &err), "%s", err.message);
    const double px = sqrt(density_pixel_area(&dv, d)); /* length units per pixel */
    /* Rings 0.25 a wide from 0.5 a to 3 a. Inside 0.5 a the kernel (of up to
     * a few pixels, 0.05 a per pixel here) and the ring's curvature blur
     * the core a little; past 3 a the truncation at 5 a removes a
     * noticeable part of the line of sight. Each ring holds 3000 or more
     * bodies: its Poisson error is under 2 %; 6 % allows three times that
     * with the depths' 1 % added in quadrature (independent errors). */
    for (double r0 = 0.5; r0 < 3.0 - 1e-9; r0 += 0.25) {
        double sum = 0;
        long count = 0;
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                const double rx = (x + 0.5 - W / 2.0) * px, ry = (y + 0.5 - H / 2.0) * px;
                const double R = sqrt(rx * rx + ry * ry);
                if (R >= r0 && R < r0 + 0.25) {
                    sum += map[y * W + x];
                    count++;
                }
            }
        }
        const double R = r0 + 0.125, got = sum / (double)count;
        const double want = sigma(M, a, 5.0 * a, R);
        printf("R %.3f: Sigma %.5g, analytic %.5g (%+.1f %%)\n", R, got, want,
               100 * (got / want - 1));
        CHECK(fabs(got / want - 1) < 0.06, "R %.3f: Sigma %.5g, analytic %.5g", R, got, want);
    }
    free(v);
    free(m);
    free(map);
}

/* The colour bar: units and factor of galaxy and model units; ticks at the
 * powers of ten, placed where the stretch puts them. */
static void test_colorbar(void) {
    double f = 0;
    CHECK(strcmp(app_density_units(true, &f), "M_sun/kpc²") == 0 && f == 1e10,
          "galaxy units: %s x %g", app_density_units(true, &f), f);
    CHECK(strcmp(app_density_units(false, &f), "mass/length² (model units)") == 0 && f == 1,
          "model units: %s x %g", app_density_units(false, &f), f);
    ui_density d = {.on = true, .lo = 1e6, .hi = 1e10, .stretch = RENDER_STRETCH_LOG};
    ui_tick t[UI_TICKS_MAX];
    int n = ui_colorbar_ticks(&d, t);
    CHECK(n == 5, "log 1e6..1e10: %d ticks", n);
    for (int k = 0; k < n && k < 5; k++) {
        char want[16];
        snprintf(want, sizeof want, "1e%d", 6 + k);
        CHECK(strcmp(t[k].label, want) == 0 && fabsf(t[k].t - 0.25f * (float)k) < 1e-5f,
              "tick %d: %s at %g, want %s at %g", k, t[k].label, t[k].t, want, 0.25 * k);
    }
    d = (ui_density){.on = true, .lo = 2e-4, .hi = 2.0, .stretch = RENDER_STRETCH_ASINH};
    n = ui_colorbar_ticks(&d, t);
    /* 0, 1e-3 .. 1e0 and the top end (2): asinh(v / lo) / asinh(hi / lo) */
    CHECK(n == 6 && strcmp(t[0].label, "0") == 0 && t[0].t == 0 && strcmp(t[5].label, "2") == 0,
          "asinh: %d ticks, first %s, last %s", n, t[0].label, t[n - 1].label);
    for (int k = 1; k < n - 1; k++) {
        const double v = pow(10.0, -4 + k);
        const double want = asinh(v / 2e-4) / asinh(2.0 / 2e-4);
        CHECK(fabs(t[k].t - want) < 1e-5, "asinh tick %s at %g, want %g", t[k].label, t[k].t, want);
    }
}

/* The CUDA map against the CPU twin: unequal masses, N a prime, two
 * filters, a camera close enough that kernels cross the edges. */
static int test_gpu(void) {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    const int n = 100003;
    float *v = malloc(sizeof(float) * 4 * n), *m = malloc(sizeof(float) * n);
    float *cpu = malloc(sizeof(float) * W * H), *gpu = malloc(sizeof(float) * W * H);
    uint8_t *tags = malloc(n);
    plummer(n, 1.0, 10.0, 3, v, m);
    for (int i = 0; i < n; i++) tags[i] = (uint8_t)SIM_TAG(i % 2, (i / 2) % 3);
    density_error err = {0};
    density_gpu *g = density_gpu_create(&err);
    void *dv_ptr = g ? density_gpu_vertices(g, n, &err) : NULL;
    if (!dv_ptr || !density_gpu_set_bodies(g, m, tags, n, &err) ||
        cudaMemcpy(dv_ptr, v, sizeof(float) * 4 * n, cudaMemcpyHostToDevice) != cudaSuccess) {
        printf("FAIL: %s\n", err.message);
        return 1;
    }
    const uint32_t masks[] = {0, 1u << SIM_TAG(1, 0) | 1u << SIM_TAG(1, 1)};
    for (int k = 0; k < 2; k++) {
        density_view dv;
        camera(&dv, 8.0, 0.8);
        dv.tags = masks[k];
        CHECK(density_map_cpu(v, m, tags, n, &dv, cpu, &err), "cpu: %s", err.message);
        CHECK(density_gpu_map(g, n, &dv, gpu, &err), "gpu: %s", err.message);
        float top = 0;
        for (int p = 0; p < W * H; p++) top = fmaxf(top, cpu[p]);
        /* Float atomics in any order against a double sum of the same
         * float terms: a pixel of some hundred terms is within 1e-5 of its
         * value; 1e-6 of the map's top covers pixels near 0. */
        int bad = 0;
        for (int p = 0; p < W * H; p++) {
            if (fabsf(gpu[p] - cpu[p]) > 1e-6f * top + 1e-5f * fabsf(cpu[p])) {
                if (bad++ < 5) printf("pixel %d: gpu %g cpu %g\n", p, gpu[p], cpu[p]);
            }
        }
        CHECK(bad == 0, "filter %d: %d pixels differ", k, bad);
    }
    density_gpu_destroy(g);
    free(v);
    free(m);
    free(cpu);
    free(gpu);
    free(tags);
    return test_exit("test_density gpu");
}

/* The colour bar's box: at the bottom right, and none where it would reach
 * into the middle of the picture (the subject): a bar of a 640 x 400
 * picture's size (the overlay's text at its usual size) fits there, not in
 * 320 x 240 (it would cover the middle), 200 x 400 or 640 x 90 (it would
 * not fit). */
static void test_colorbar_box(void) {
    const float w = 250, h = 95, m = 8; /* about the bar at a 16-pixel line height */
    float b[4];
    CHECK(ui_colorbar_box(w, h, m, 640, 400, b) && b[0] == 640 - m - w && b[1] == 400 - m - h,
          "640x400: at (%g, %g)", b[0], b[1]);
    CHECK(ui_colorbar_box(w, h, m, 1920, 1080, b), "1920x1080: shown");
    CHECK(!ui_colorbar_box(w, h, m, 320, 240, b), "320x240: hidden (at %g, %g)", b[0], b[1]);
    CHECK(!ui_colorbar_box(w, h, m, 200, 400, b), "200x400: hidden (wider than the picture)");
    CHECK(!ui_colorbar_box(w, h, m, 640, 90, b), "640x90: hidden (taller than the picture)");
    /* Wherever it is shown, the middle of the picture is clear of it. */
    for (int fw = 100; fw <= 2000; fw += 50) {
        for (int fh = 80; fh <= 1200; fh += 40) {
            if (!ui_colorbar_box(w, h, m, fw, fh, b)) continue;
            const bool clear = b[0] >= 0.7f * (float)fw || b[1] >= 0.7f * (float)fh;
            CHECK(clear, "%dx%d: the bar at (%g, %g) reaches into the middle", fw, fh, b[0], b[1]);
        }
    }
}

/* The auto range's top: a high percentile of the positive pixels, exactly
 * (against a sort made here), and not one bright pixel's value. */
static int cmp_float(const void *pa, const void *pb) {
    const float a = *(const float *)pa, b = *(const float *)pb;
    return (a > b) - (a < b);
}

/* Each filter maps what the sprites draw: while O hides the halo, every
 * filter but "halo" (index 3, which asks for it) leaves the halo's tags
 * out - "all bodies" and each galaxy alike. */
static void test_filter_halo(void) {
    uint32_t all = 0, no_halo = 0;
    for (unsigned t = 0; t < 16; t++) {
        all |= 1u << t;
        if (SIM_TAG_COMPONENT(t) != SIM_COMPONENT_HALO) no_halo |= 1u << t;
    }
    CHECK(app_density_filter_tags(0, false) == all, "all bodies: %#x",
          app_density_filter_tags(0, false));
    CHECK(app_density_filter_tags(0, true) == no_halo, "all bodies, halo hidden: %#x vs %#x",
          app_density_filter_tags(0, true), no_halo);
    for (int k = 1; k < 6; k++) {
        const uint32_t shown = app_density_filter_tags(k, false);
        const uint32_t hidden = app_density_filter_tags(k, true);
        const uint32_t want = k == 3 ? shown : shown & no_halo;
        CHECK(hidden == want, "filter %d with the halo hidden: %#x, want %#x", k, hidden, want);
    }
    CHECK(app_density_filter_tags(4, true) != app_density_filter_tags(4, false),
          "galaxy 1 leaves its hidden halo out");
}

static void test_auto_top(void) {
    enum { PIXELS = 20011 };
    static float map[PIXELS], sorted[PIXELS];
    uint64_t s = 17;
    int n = 0;
    for (int k = 0; k < PIXELS; k++) {
        map[k] = k % 3 == 0 ? 0.0f : (float)pow(10.0, 4 * test_splitmix(&s) - 2); /* a third empty */
        if (map[k] > 0) sorted[n++] = map[k];
    }
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_float);
    const double want = sorted[(int)(APP_DENSITY_TOP_PERCENTILE / 100 * (n - 1) + 0.5)];
    double got = app_density_auto_top(map, PIXELS);
    CHECK(got == want, "random map: top %.9g, want %.9g (of %d positive pixels)", got, want, n);
    /* A flat map of 1 with one pixel a million times brighter (a body
     * near the camera): the top stays 1, where the largest pixel put it at
     * 1e6 and the whole map at the bottom of the palette. */
    for (int k = 0; k < PIXELS; k++) map[k] = k % 2 ? 1.0f : 0.0f;
    map[PIXELS / 2] = 1e6f;
    got = app_density_auto_top(map, PIXELS);
    CHECK(got == 1.0, "one bright pixel: top %g, want 1", got);
    for (int k = 0; k < PIXELS; k++) map[k] = 0;
    CHECK(app_density_auto_top(map, PIXELS) == 1.0, "an empty map: top 1");
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) return test_gpu();
    test_total();
    test_profile();
    test_colorbar();
    test_colorbar_box();
    test_auto_top();
    test_filter_halo();
    return test_exit("test_density");
}
