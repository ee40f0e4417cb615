/* bench.c - --benchmark: time the kernel ladder, print the napkin math.
 *
 * For every variant x N x p x q (x theta for the tree) of the command-line
 * lists: create the simulation (a Plummer sphere), warm up, pick a step count
 * that makes a timed repeat last ~25 ms (or --steps), time 5 repeats with
 * CUDA events (3 when a repeat is long) and keep the median. A step is the
 * whole leapfrog step: force evaluation plus integrator, as NVIDIA's sample
 * times it. An all-pairs row reports ms per step, 10^9 interactions per
 * second (N^2 per step, as NVIDIA's nbody counts), GFLOP/s equivalent (20
 * flops per interaction, 30 for fp64), the speedup over the previous variant
 * in the list (each at its fastest shape) and the fraction of the rate the
 * variant's own inner loop allows on this GPU (bench_report.c). A tree
 * row reports bodies per second instead, its build and walk time, the
 * interactions it evaluated per body and its force error against the exact
 * sum over 1024 sampled bodies. The table, JSON and chart are made by
 * bench_report.c.
 *
 * --frame also times whole headless frames (step + interop + draw) through
 * EGL. --json writes every row and the device as JSON, --plot the table as
 * a bar chart PNG; both atomically.
 *
 *     nbody --benchmark --variant all --n 16384,262144
 *     nbody --benchmark --variant best --n 1048576 --p 64,128 --q 1,2,4
 *     nbody --benchmark --variant best,tree --n 1048576 --theta 0.4,0.6,0.8 --plot chart.png
 */
#include <GL/glew.h> /* glFinish for --frame */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bench.h"

#define TARGET_REPEAT_MS 25.0
#define MAX_ROWS 1024
#define FRAME_WARMUP 5
#define FRAME_COUNT 60

#define ERROR_SAMPLES 1024 /* bodies whose tree force is checked against the exact sum */

typedef struct bench {
    const config *cfg;
    bool cuda;
    sim_device_info dev;
    bench_row rows[MAX_ROWS];
    int count;
    app_egl *egl; /* --frame */
} bench;

/* The method variant v runs on the benchmark's backend. */
static const sim_method *method_of(const bench *b, sim_variant v) {
    return sim_method_of(b->cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU, v);
}

/* Whole frames of the configuration d: the app's own frames, made by
 * app_create from the command line with d's knobs on top, into an
 * offscreen target of 1280 x 720 with the HUD on (the frame a user sees). */
static double time_frames(bench *b, const sim_desc *d) {
    config c = *b->cfg;
    c.sim.backend = d->backend;
    c.sim.body_count = d->body_count;
    c.sim.variant = d->variant;
    c.sim.p = d->p;
    c.sim.q = d->q;
    c.sim.theta = d->theta;
    c.given[CONFIG_KNOB_N] = c.given[CONFIG_KNOB_VARIANT] = true;
    c.steps_per_frame = 1;
    c.width = 1280;
    c.height = 720;
    c.host_copy = false;
    c.no_hud = false;
    c.headless = true;
    c.benchmark = false;
    c.script = c.status_json = c.screenshot = c.dump = NULL;
    int status = 0;
    app *a = app_create(&c, &status);
    if (!a) return 0;
    if (!app_gl_begin(a, true)) {
        app_gl_end(a);
        app_destroy(a);
        return 0;
    }
    /* Warm, and in auto mode until the trial has chosen who draws the
     * sprites (app_sprites.c): the frames timed are the ones a user gets. */
    for (int i = 0; i < FRAME_WARMUP ||
                    (a->sprites.mode == CONFIG_SPRITES_AUTO && interop_cuda_sprites(&a->interop) &&
                     a->sprites.trial.phase != BASE_TRIAL_DECIDED && i < 2000);
         i++) {
        app_frame(a, c.width, c.height);
    }
    glFinish();
    const double t0 = base_now();
    for (int i = 0; i < FRAME_COUNT; i++) app_frame(a, c.width, c.height);
    glFinish();
    const double seconds = base_now() - t0;
    app_gl_end(a);
    app_destroy(a);
    return FRAME_COUNT / seconds;
}

/* Median ms per step of s over a few repeats of about TARGET_REPEAT_MS
 * (or --steps), after a warm-up step; the steps and repeats it took. */
static double time_steps(const bench *b, sim *s, int *steps_out, int *repeats_out,
                         double *spread) {
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
    qsort(t, (size_t)repeats, sizeof t[0], base_cmp_double);
    *steps_out = steps;
    *repeats_out = repeats;
    if (spread) *spread = (t[repeats - 1] - t[0]) / t[repeats / 2];
    return t[repeats / 2];
}

/* The same configuration on one GPU, for the parallel efficiency of a
 * row on several; 0 when one GPU cannot create or run it (its memory). */
static double one_gpu_ms(const bench *b, sim_desc d) {
    d.gpus = 1;
    d.spread = false;
    sim_error err = {0};
    sim *s = sim_create(&d, &err);
    if (!s) {
        fprintf(stderr, "nbody: no one-GPU baseline: %s\n", err.message);
        return 0;
    }
    int steps = 0, repeats = 0;
    const double ms = time_steps(b, s, &steps, &repeats, NULL);
    const bool failed = sim_failed(s, &err);
    sim_destroy(s);
    return failed ? 0 : ms;
}

/* Times one configuration (theta: the tree's opening angle, 0 for the
 * sim's own); false when the simulation cannot be made or failed. */
static bool run_one(bench *b, sim_variant v, int n, int p, int q, double theta) {
    /* The scene the command line means (Plummer unless told otherwise), with
     * its softening and dt and the flags given on top. */
    sim_desc d = config_scene_desc(config_scene_of(b->cfg), b->cfg, !b->cuda, true);
    d.backend = b->cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
    d.body_count = n;
    d.variant = v;
    config_gpus(b->cfg, !b->cuda, &d); /* --gpus auto and the spread: for this row's N */
    d.p = p;
    d.q = q;
    const sim_method *m = method_of(b, v);
    const bool tree = !m->exact; /* the tree's own figures, no N^2 ones */
    if (m->uses_theta && theta > 0) d.theta = theta;
    sim_error err = {0};
    sim *s = sim_create(&d, &err);
    if (!s) {
        fprintf(stderr, "nbody: %s (method %s, N %d)\nhint: %s\n", err.message, m->name, n,
                err.hint);
        return false;
    }
    const sim_params prm = sim_get_params(s);
    /* A shape the clamp moved onto one already timed is not timed twice. */
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        if (r->variant == v && r->n == n && r->p == prm.p && r->q == prm.q &&
            (!tree || r->theta == prm.theta)) {
            sim_destroy(s);
            return true;
        }
    }
    int steps = 0, repeats = 0;
    double spread = 0;
    const double ms = time_steps(b, s, &steps, &repeats, &spread);
    if (sim_failed(s, &err)) { /* a faulting kernel or a lost GPU: no row to trust */
        fprintf(stderr, "nbody: %s (method %s, N %d)\nhint: %s\n", err.message, m->name, n,
                err.hint);
        sim_destroy(s);
        return false;
    }
    bench_row row = {
        .variant = v,
        .tree = tree,
        .n = n,
        .p = prm.p,
        .q = prm.q,
        .steps = steps,
        .repeats = repeats,
        .ms = ms,
        .spread = spread,
        .gpus = prm.gpus,
    };
    if (tree) {
        row.theta = prm.theta;
        const sim_tree_stats ts = sim_get_tree_stats(s); /* of the last timed step */
        row.tree_valid = ts.valid;
        row.build_ms = ts.build_ms;
        row.walk_ms = ts.walk_ms;
        row.interactions_per_body = ts.interactions_per_body;
        row.lane_use = ts.lane_use;
        sim_force_error fe = {0};
        const int samples = n < ERROR_SAMPLES ? n : ERROR_SAMPLES;
        if (sim_measure_force_error(s, samples, 1, &fe, &err)) {
            row.error_samples = fe.samples;
            row.error_median = fe.median;
            row.error_p99 = fe.p99;
            row.error_max = fe.max;
        } else {
            fprintf(stderr, "nbody: force error not measured: %s\n", err.message);
        }
    }
    if (row.gpus > 1) row.gpu = sim_get_gpu_stats(s);
    sim_destroy(s);
    if (row.gpus > 1) {
        row.one_gpu_ms = one_gpu_ms(b, d);
        row.efficiency = row.one_gpu_ms > 0 ? row.one_gpu_ms / (row.gpus * row.ms) : 0;
    }
    if (b->egl) row.fps = time_frames(b, &d);
    b->rows[b->count++] = row; /* bench_run keeps the configurations <= MAX_ROWS */
    char shape[32] = "-"; /* as the table says it: no p x q where the method has no block shape */
    if (m->block_shape && !row.tree) snprintf(shape, sizeof shape, "%dx%d", row.p, row.q);
    fprintf(stderr, "  %-9s N=%-8d %8s %10.4f ms/step (%d steps x %d, spread %.1f%%)\n", m->name, n,
            shape, row.ms, steps, repeats, 100 * row.spread);
    return true;
}

/* --plot: the table as a bar chart PNG, drawn on the CPU. */
static bool write_plot(const bench_result *r, const char *path) {
    char dir[4096], font[4096 + 64], why[4096 + 128] = "";
    base_data_dir(NBODY_SOURCE_DIR, dir, sizeof dir);
    snprintf(font, sizeof font, "%s/assets/fonts/DejaVuSansMono.ttf", dir);
    int w = 0, h = 0;
    uint8_t *rgba = bench_chart(r, font, &w, &h, why, sizeof why);
    if (!rgba) {
        fprintf(stderr,
                "nbody: --plot: %s\nhint: set NBODY_DATA_DIR to the folder holding "
                "assets/\n",
                why);
        return false;
    }
    const bool ok = io_write_png(path, "--plot chart", w, h, rgba);
    free(rgba);
    return ok;
}

static bool write_json(const bench_result *r, const char *path) {
    char *json = bench_json(r);
    if (!json) {
        fprintf(stderr, "nbody: --json: out of memory\nhint: benchmark fewer configurations\n");
        return false;
    }
    const bool ok = io_write_text(path, "--json", json);
    free(json);
    return ok;
}

int bench_run(const config *cfg) {
    bench *b = calloc(1, sizeof *b);
    if (!b) return 1;
    b->cfg = cfg;
    char why[160] = "";
    const bool have_cuda = sim_cuda_device_count(why, sizeof why) > 0;
    b->cuda = sim_backend_resolve(cfg->sim.backend, NULL, 0) == SIM_BACKEND_CUDA;
    if (b->cuda && !have_cuda) {
        fprintf(stderr, "nbody: no CUDA device: %s\nhint: run with --backend cpu\n", why);
        free(b);
        return 1;
    }
    if (!b->cuda && config_asks_block(cfg)) {
        printf("nbody: no CUDA device: --p and --q do not change the CPU backend's rows\n");
    }
    if (b->cuda) {
        sim_cuda_device_info(cfg->sim.device, &b->dev);
        printf("device: %s, %d SMs, %.0f MHz, compute capability %d.%d, driver %d.%d, "
               "runtime %d.%d\n",
               b->dev.name, b->dev.sm_count, b->dev.clock_khz * 1e-3, b->dev.cc_major,
               b->dev.cc_minor, b->dev.driver_version / 1000, b->dev.driver_version % 1000 / 10,
               b->dev.runtime_version / 1000, b->dev.runtime_version % 1000 / 10);
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

    /* The methods the variants run on this backend, each once (on the CPU
     * every all-pairs variant is the one reference). */
    config_list variants = {0};
    const config_list asked = cfg->variant_list.count
                                  ? cfg->variant_list
                                  : (config_list){1, {sim_variant_resolve(SIM_VARIANT_DEFAULT)}};
    for (int k = 0; k < asked.count; k++) {
        const sim_variant v = method_of(b, (sim_variant)asked.values[k])->variant;
        bool seen = false;
        for (int i = 0; i < variants.count; i++) seen = seen || variants.values[i] == (int)v;
        if (!seen) variants.values[variants.count++] = v;
    }
    const config_list one_auto = {1, {0}};
    const config_list default_n = {1, {16384}};
    const config_real_list own_theta = {1, {0}};
    const config_list *ns = cfg->n_list.count ? &cfg->n_list : &default_n;
    const config_list *ps = cfg->p_list.count ? &cfg->p_list : &one_auto;
    const config_list *qs = cfg->q_list.count ? &cfg->q_list : &one_auto;
    const config_real_list *thetas = cfg->theta_list.count ? &cfg->theta_list : &own_theta;
    long long configs = 0; /* refused up front rather than timed and left out of the table */
    for (int iv = 0; iv < variants.count; iv++)
        configs += (long long)ns->count * ps->count * qs->count *
                   (method_of(b, (sim_variant)variants.values[iv])->uses_theta ? thetas->count : 1);
    if (configs > MAX_ROWS) {
        fprintf(stderr,
                "nbody: --benchmark: %lld configurations, the table holds %d\n"
                "hint: give shorter --variant, --n, --p, --q or --theta lists\n",
                configs, MAX_ROWS);
        if (b->egl) app_egl_close(b->egl);
        free(b);
        return 1;
    }
    bool ok = true;
    for (int iv = 0; iv < variants.count; iv++) {
        const sim_variant v = (sim_variant)variants.values[iv];
        const config_real_list *th = method_of(b, v)->uses_theta ? thetas : &own_theta;
        for (int in = 0; in < ns->count; in++) {
            for (int ip = 0; ip < ps->count; ip++) {
                for (int iq = 0; iq < qs->count; iq++) {
                    for (int it = 0; it < th->count; it++) {
                        ok = run_one(b, v, ns->values[in], ps->values[ip], qs->values[iq],
                                     th->values[it]) &&
                             ok;
                    }
                }
            }
        }
    }
    const bench_result result = {
        .cuda = b->cuda,
        .dev = b->dev,
        .rows = b->rows,
        .count = b->count,
        .order = variants.values,
        .order_count = variants.count,
    };
    bench_print(&result, stdout);
    if (cfg->json) ok = write_json(&result, cfg->json) && ok;
    if (cfg->plot) ok = write_plot(&result, cfg->plot) && ok;
    if (b->egl) app_egl_close(b->egl);
    free(b);
    return ok ? 0 : 1;
}
