/* app_bench.c - --benchmark: time the kernel ladder, print the napkin math.
 *
 * For every variant x N x p x q of the command-line lists: create the
 * simulation (a Plummer sphere), warm up, pick a step count that makes a
 * timed repeat last ~25 ms (or --steps), time 5 repeats with CUDA events
 * (3 when a repeat is long) and keep the median. A row reports ms per step,
 * 10^9 interactions per second (N^2 per step, as NVIDIA's nbody counts),
 * GFLOP/s at 20 flops per interaction (30 for fp64), the speedup over the
 * previous variant in the list (each at its fastest shape), and the fraction
 * of this GPU's issue ceiling, computed from the SM count and clock read at
 * run time (derivation in docs/PERFORMANCE.md). A step is the whole
 * leapfrog step: force kernel plus integrator, as NVIDIA's sample times it.
 *
 * --frame also times whole headless frames (step + interop + draw) through
 * EGL. --json writes every row and the device as JSON, atomically.
 *
 *     nbody --benchmark --variant all --n 16384,262144
 *     nbody --benchmark --variant best --n 1048576 --p 64,128 --q 1,2,4
 */
#include <GL/glew.h> /* glFinish for --frame */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

#define TARGET_REPEAT_MS 25.0
#define MAX_ROWS 1024
#define FRAME_WARMUP 5
#define FRAME_COUNT 60

/* Issue slots per fp32 interaction in the ceiling: 3 FADD, 6 FFMA, 3 FMUL,
 * 1 MUFU.RSQ, 1 LDS (the README of the GPU machine; docs/PERFORMANCE.md). */
#define FP32_SLOTS 14.0
/* FP64 pipe operations per interaction of the fp64 kernel (3 DADD, 3 DFMA
 * for r^2, 7 for 1/r^3 from the MUFU.RSQ64H seed, 3 DFMA to accumulate). */
#define FP64_OPS 16.0

typedef struct bench_row {
    sim_variant variant; /* SIM_VARIANT_COUNT: the CPU reference */
    int n, p, q;
    int steps, repeats;
    double ms;     /* median ms per step */
    double spread; /* (max - min) / median over the repeats */
    double fps;    /* whole frames per second (--frame), or 0 */
} bench_row;

typedef struct bench {
    const app_config *cfg;
    bool cuda;
    sim_device_info dev;
    double ceiling32, ceiling64; /* interactions/s; 0 when unknown */
    bench_row rows[MAX_ROWS];
    int count;
    app_egl *egl; /* --frame */
} bench;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* FP64 lanes per SM by architecture (0: unknown). */
static int fp64_lanes(int major, int minor) {
    if ((major == 9 && minor == 0) || (major == 10 && minor == 0)) return 64; /* H100, B200 */
    if ((major == 8 && minor == 0) || (major == 7 && minor == 0)) return 32;  /* A100, V100 */
    if (major >= 7) return 2;                                                 /* GeForce-class */
    return 0;
}

static const char *variant_name(sim_variant v) {
    return v == SIM_VARIANT_COUNT ? "cpu" : sim_variant_info(v)->name;
}

static double interactions_per_s(const bench_row *r) {
    return (double)r->n * (double)r->n / (r->ms * 1e-3);
}

/* Whole frames: the app's own frame code into an offscreen target. */
static double time_frames(bench *b, sim *s) {
    app a = {0};
    a.cfg = *b->cfg;
    a.cfg.width = 1280;
    a.cfg.height = 720;
    a.cfg.steps_per_frame = 1;
    a.cfg.host_copy = false;
    a.sim = s;
    a.point_size = 0.035f;
    a.brightness = 0.3f;
    a.speed_scale = 1.0f;
    a.content_scale = 1.0f;
    a.hud = true; /* the frame a user sees */
    a.camera = (render_camera){.distance = 3.6f, .yaw = 0.6f, .pitch = 0.35f};
    if (!app_create_render(&a, true)) return 0;
    for (int i = 0; i < FRAME_WARMUP; i++) app_frame(&a, a.cfg.width, a.cfg.height);
    glFinish();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < FRAME_COUNT; i++) app_frame(&a, a.cfg.width, a.cfg.height);
    glFinish();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    a.sim = NULL; /* the caller owns it */
    app_destroy(&a);
    const double seconds =
        (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return FRAME_COUNT / seconds;
}

/* Times one configuration; false when the simulation cannot be made. */
static bool run_one(bench *b, sim_variant v, int n, int p, int q) {
    sim_desc d = b->cfg->sim;
    d.backend = b->cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
    d.body_count = n;
    d.variant = v == SIM_VARIANT_COUNT ? SIM_VARIANT_DEFAULT : v;
    d.p = p;
    d.q = q;
    sim_error err = {0};
    sim *s = sim_create(&d, &err);
    if (!s) {
        fprintf(stderr, "nbody: %s (variant %s, N %d)\nhint: %s\n", err.message, variant_name(v), n,
                err.hint);
        return false;
    }
    const sim_params prm = sim_get_params(s);
    /* A shape the clamp moved onto one already timed is not timed twice. */
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        if (r->variant == v && r->n == n && r->p == prm.p && r->q == prm.q) {
            sim_destroy(s);
            return true;
        }
    }
    sim_step_timed(s, 1); /* warm-up: first launches, caches */
    const double one = sim_step_timed(s, 1);
    int steps = b->cfg->bench_steps;
    if (steps <= 0) {
        steps = (int)ceil(TARGET_REPEAT_MS / fmax(one, 1e-3));
        if (steps > 2000) steps = 2000;
        if (steps < 1) steps = 1;
    }
    const int repeats = one * steps > 500.0 ? 3 : 5;
    double t[5];
    for (int k = 0; k < repeats; k++) t[k] = sim_step_timed(s, steps);
    qsort(t, (size_t)repeats, sizeof t[0], cmp_double);
    bench_row row = {
        .variant = v,
        .n = n,
        .p = prm.p,
        .q = prm.q,
        .steps = steps,
        .repeats = repeats,
        .ms = t[repeats / 2],
        .spread = (t[repeats - 1] - t[0]) / t[repeats / 2],
    };
    if (b->egl) row.fps = time_frames(b, s);
    sim_destroy(s);
    if (b->count < MAX_ROWS) b->rows[b->count++] = row;
    fprintf(stderr, "  %-9s N=%-8d %4dx%-3d %10.4f ms/step (%d steps x %d, spread %.1f%%)\n",
            variant_name(v), n, row.p, row.q, row.ms, steps, repeats, 100 * row.spread);
    return true;
}

/* The fastest row of variant v at n, or NULL. */
static const bench_row *fastest(const bench *b, sim_variant v, int n) {
    const bench_row *best = NULL;
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        if (r->variant == v && r->n == n && (!best || r->ms < best->ms)) best = r;
    }
    return best;
}

/* Speedup of row r over the fastest row of the variant before it in the list. */
static double speedup(const bench *b, const bench_row *r) {
    const app_list *vl = &b->cfg->variant_list;
    for (int k = 1; k < vl->count; k++) {
        if (vl->values[k] == (int)r->variant) {
            const bench_row *prev = fastest(b, (sim_variant)vl->values[k - 1], r->n);
            return prev ? prev->ms / r->ms : 0;
        }
    }
    return 0;
}

static double ceiling_fraction(const bench *b, const bench_row *r) {
    if (r->variant == SIM_VARIANT_COUNT) return 0;
    const double c = sim_variant_info(r->variant)->fp64 ? b->ceiling64 : b->ceiling32;
    return c > 0 ? interactions_per_s(r) / c : 0;
}

static double gflops(const bench_row *r) {
    const bool fp64 = r->variant != SIM_VARIANT_COUNT && sim_variant_info(r->variant)->fp64;
    return interactions_per_s(r) * (fp64 ? 30.0 : 20.0) * 1e-9;
}

static void print_table(const bench *b) {
    printf("\n%-9s %9s %8s %11s %11s %10s %8s %8s", "variant", "N", "p x q", "ms/step", "1e9 int/s",
           "GFLOP/s", "vs prev", "ceiling");
    if (b->egl) printf(" %9s", "frames/s");
    printf("\n");
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        char shape[32], up[16] = "", ceil_s[16] = "";
        snprintf(shape, sizeof shape, r->variant == SIM_VARIANT_COUNT ? "-" : "%dx%d", r->p, r->q);
        const double s = speedup(b, r);
        if (s > 0) snprintf(up, sizeof up, "%.2fx", s);
        const double c = ceiling_fraction(b, r);
        if (c > 0) snprintf(ceil_s, sizeof ceil_s, "%.0f%%", 100 * c);
        printf("%-9s %9d %8s %11.4f %11.1f %10.0f %8s %8s", variant_name(r->variant), r->n, shape,
               r->ms, interactions_per_s(r) * 1e-9, gflops(r), up, ceil_s);
        if (b->egl) printf(" %9.1f", r->fps);
        printf("\n");
    }
    for (int i = 0; i < b->count; i++) {
        if (b->rows[i].variant == SIM_VARIANT_BEST) {
            printf("(best evaluates each pair once and applies it to both bodies, so it can pass "
                   "the ceiling of one-interaction-at-a-time kernels; interactions are N^2 per "
                   "step all the same)\n");
            break;
        }
    }
}

static bool write_json(const bench *b, const char *path) {
    size_t cap = 4096 + (size_t)b->count * 512, len = 0;
    char *out = malloc(cap);
    if (!out) return false;
#define EMIT(...) len += (size_t)snprintf(out + len, cap - len, __VA_ARGS__)
    EMIT("{\n  \"format\": \"nbody-benchmark\",\n  \"version\": 1,\n");
    EMIT("  \"device\": {\"name\": \"%s\", \"sm_count\": %d, \"clock_mhz\": %.0f, "
         "\"compute_capability\": \"%d.%d\", \"driver\": %d, \"runtime\": %d},\n",
         b->cuda ? b->dev.name : "cpu", b->dev.sm_count, b->dev.clock_khz / 1000.0, b->dev.cc_major,
         b->dev.cc_minor, b->dev.driver_version, b->dev.runtime_version);
    EMIT("  \"ceiling_fp32_interactions_per_s\": %.6g,\n", b->ceiling32);
    EMIT("  \"ceiling_fp64_interactions_per_s\": %.6g,\n  \"rows\": [\n", b->ceiling64);
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        EMIT("    {\"variant\": \"%s\", \"n\": %d, \"p\": %d, \"q\": %d, \"steps\": %d, "
             "\"repeats\": %d, \"ms_per_step\": %.6g, \"spread\": %.4f, "
             "\"interactions_per_s\": %.6g, \"gflops\": %.6g, \"speedup_vs_previous\": %.4f, "
             "\"ceiling_fraction\": %.4f, \"frames_per_s\": %.4g}%s\n",
             variant_name(r->variant), r->n, r->p, r->q, r->steps, r->repeats, r->ms, r->spread,
             interactions_per_s(r), gflops(r), speedup(b, r), ceiling_fraction(b, r), r->fps,
             i + 1 < b->count ? "," : "");
    }
    EMIT("  ]\n}\n");
#undef EMIT
    bool ok = len < cap && app_output_text(path, "--json", out);
    free(out);
    return ok;
}

int app_bench_run(const app_config *cfg) {
    bench *b = calloc(1, sizeof *b);
    if (!b) return 1;
    b->cfg = cfg;
    char why[160] = "";
    const bool have_cuda = sim_cuda_device_count(why, sizeof why) > 0;
    b->cuda = cfg->sim.backend == SIM_BACKEND_CUDA ||
              (cfg->sim.backend == SIM_BACKEND_DEFAULT && have_cuda);
    if (b->cuda && !have_cuda) {
        fprintf(stderr, "nbody: no CUDA device: %s\nhint: run with --backend cpu\n", why);
        free(b);
        return 1;
    }
    if (b->cuda) {
        sim_cuda_device_info(cfg->sim.device, &b->dev);
        const double clock = b->dev.clock_khz * 1e3;
        b->ceiling32 = b->dev.sm_count * 4.0 * 32.0 * clock / FP32_SLOTS;
        b->ceiling64 =
            b->dev.sm_count * fp64_lanes(b->dev.cc_major, b->dev.cc_minor) * clock / FP64_OPS;
        printf("device: %s, %d SMs, %.0f MHz, compute capability %d.%d, driver %d.%d, "
               "runtime %d.%d\n",
               b->dev.name, b->dev.sm_count, clock * 1e-6, b->dev.cc_major, b->dev.cc_minor,
               b->dev.driver_version / 1000, b->dev.driver_version % 1000 / 10,
               b->dev.runtime_version / 1000, b->dev.runtime_version % 1000 / 10);
        printf("ceiling fp32: %d SMs x 128 lanes x %.3f GHz / %.0f issue slots = %.3g "
               "interactions/s\n",
               b->dev.sm_count, clock * 1e-9, FP32_SLOTS, b->ceiling32);
        if (b->ceiling64 > 0) {
            printf("ceiling fp64: %d SMs x %d FP64 lanes x %.3f GHz / %.0f FP64 ops = %.3g "
                   "interactions/s\n",
                   b->dev.sm_count, fp64_lanes(b->dev.cc_major, b->dev.cc_minor), clock * 1e-9,
                   FP64_OPS, b->ceiling64);
        }
    } else {
        printf("device: CPU reference backend (double precision)\n");
    }
    if (cfg->bench_frames) {
        b->egl = app_egl_open(b->cuda ? cfg->sim.device : -1);
        if (!b->egl) {
            fprintf(stderr, "nbody: --frame needs an EGL context and none could be made\n"
                            "hint: drop --frame, or install the GPU's EGL driver\n");
            free(b);
            return 1;
        }
    }

    app_list variants = cfg->variant_list;
    if (!b->cuda) {
        variants.count = 1;
        variants.values[0] = SIM_VARIANT_COUNT; /* the CPU reference */
    } else if (variants.count == 0) {
        variants.count = 1;
        variants.values[0] = sim_variant_resolve(SIM_VARIANT_DEFAULT);
    }
    const app_list one_auto = {1, {0}};
    const app_list default_n = {1, {16384}};
    const app_list *ns = cfg->n_list.count ? &cfg->n_list : &default_n;
    const app_list *ps = cfg->p_list.count ? &cfg->p_list : &one_auto;
    const app_list *qs = cfg->q_list.count ? &cfg->q_list : &one_auto;
    bool ok = true;
    for (int iv = 0; iv < variants.count; iv++) {
        for (int in = 0; in < ns->count; in++) {
            for (int ip = 0; ip < ps->count; ip++) {
                for (int iq = 0; iq < qs->count; iq++) {
                    ok = run_one(b, (sim_variant)variants.values[iv], ns->values[in],
                                 ps->values[ip], qs->values[iq]) &&
                         ok;
                }
            }
        }
    }
    print_table(b);
    if (cfg->json) ok = write_json(b, cfg->json) && ok;
    if (b->egl) app_egl_close(b->egl);
    free(b);
    return ok ? 0 : 1;
}
