/* test_chart.c - the ladder chart (I) and the energy sparkline, CPU backend.
 *
 * The arithmetic (interactions/s, speedups, the step-time estimate) and the
 * sparkline's ring are called with numbers. The rest runs the real frame
 * (app_frame) into an offscreen EGL context, as the headless front-end
 * does: I times both CPU methods within a few frames, on copies, leaving
 * the running simulation's bodies, time and steps as they were; results are
 * kept per N (+ measures the new N, - finds the old one kept); a rung too
 * slow by its estimate is not run, and a closer subset is timed first where
 * it fits; a temporary sim that cannot be made marks its rung instead of
 * failing; the running method's own step time is recorded; the bars are in
 * the picture; the sparkline holds exactly the energy errors sampled, is
 * reset with the physics and keeps going (a slope, not a reset) when the
 * damping changes; the walk's samples come at most APP_SAMPLE_HZ a second.
 *
 *     test_chart
 */
#include <GLFW/glfw3.h> /* key codes */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_util.h"

#define W 960
#define H 540
#define N 1000              /* the current N: small, so a CPU step is a few ms */
#define FRAMES_TO_MEASURE 6 /* two rungs, one per frame, with room to spare */

static void check_arithmetic(void) {
    CHECK(sim_pair_rate(1000, 2.0) == 5e8, "1000^2 in 2 ms: %g", sim_pair_rate(1000, 2.0));
    CHECK(sim_pair_rate(1000, 0) == 0, "no time, no rate");
    const double ips[] = {1e9, 2e9, 0, 8e9, 4e9};
    double prev[5], first[5];
    ui_chart_speedups(ips, 5, prev, first);
    const double want_prev[] = {0, 2, 0, 0, 0.5}, want_first[] = {1, 2, 0, 8, 4};
    for (int i = 0; i < 5; i++) {
        CHECK(prev[i] == want_prev[i], "rung %d over the previous: %g, want %g", i, prev[i],
              want_prev[i]);
        CHECK(first[i] == want_first[i], "rung %d over the first: %g, want %g", i, first[i],
              want_first[i]);
    }
    const double none[] = {0, 3e9};
    ui_chart_speedups(none, 2, prev, first);
    CHECK(prev[1] == 0 && first[1] == 0, "no first rate, no speedups: %g %g", prev[1], first[1]);
    CHECK(app_step_ms_at(SIM_SCALING_N2, 1000, 2.0, 4000) == 32.0, "N^2: %g",
          app_step_ms_at(SIM_SCALING_N2, 1000, 2.0, 4000));
    const double tree = app_step_ms_at(SIM_SCALING_NLOGN, 1024, 3.0, 4096);
    CHECK(fabs(tree - 3.0 * 4 * 12 / 10) < 1e-12, "N log N: %g", tree);
}

static void check_ring(void) {
    ui_spark s = {.count = 0};
    double t, de;
    CHECK(!ui_spark_get(&s, 0, &t, &de), "empty");
    for (int i = 0; i < UI_SPARK_SAMPLES + 44; i++) ui_spark_push(&s, i, -1e-6 * i);
    CHECK(s.count == UI_SPARK_SAMPLES, "full at %d: %d", UI_SPARK_SAMPLES, s.count);
    CHECK(ui_spark_get(&s, 0, &t, &de) && t == 44 && de == -44e-6, "oldest kept: t %g", t);
    CHECK(ui_spark_get(&s, UI_SPARK_SAMPLES - 1, &t, &de) && t == UI_SPARK_SAMPLES + 43,
          "newest: t %g", t);
    CHECK(!ui_spark_get(&s, UI_SPARK_SAMPLES, &t, &de), "past the end");
    ui_spark_push(&s, 3.0, 0); /* time went back: new bodies */
    CHECK(s.count == 1 && ui_spark_get(&s, 0, &t, &de) && t == 3.0, "starts over: %d", s.count);
    ui_spark_reset(&s);
    CHECK(s.count == 0, "reset");
}

/* The walk's energy samples: the first at once, then none until 1 /
 * APP_SAMPLE_HZ after the last; frames slower than that sample each time. */
static void check_sample_rate(void) {
    const double period = 1.0 / APP_SAMPLE_HZ;
    CHECK(app_sample_due(false, 5.0, 5.0), "no sample yet: due");
    CHECK(!app_sample_due(true, 5.0, 5.0), "the same frame: not due");
    CHECK(!app_sample_due(true, 5.0, 5.0 + 0.9 * period), "0.9 periods on: not due");
    CHECK(app_sample_due(true, 5.0, 5.0 + 1.001 * period), "a period on: due");
    CHECK(app_sample_due(true, 5.0, 5.0 + 3 * period), "frames slower than the rate: due");
    /* Frames of 4 ms: every fifth samples, 50 a second (at most the rate). */
    int samples = 0;
    double last = 0;
    bool have = false;
    for (int f = 0; f < 250; f++) {
        const double now = 0.004 * f;
        if (app_sample_due(have, last, now)) {
            samples++;
            last = now;
            have = true;
        }
    }
    CHECK(samples >= 40 && samples <= APP_SAMPLE_HZ, "250 frames of 4 ms: %d samples", samples);
}

static sim_body *bodies_of(sim *s, int *n) {
    *n = sim_get_params(s).body_count;
    sim_body *b = malloc(sizeof *b * (size_t)*n);
    CHECK(b != NULL, "memory");
    if (b) sim_get_bodies(s, b);
    return b;
}

static void frame(app *a) {
    app_frame(a, W, H);
}

/* Frames until both CPU rungs have a result at n; how many it took. */
static int frames_until_measured(app *a, int n) {
    int f = 0;
    while (f < FRAMES_TO_MEASURE && !(app_ladder_result(a, SIM_VARIANT_BEST, n) &&
                                      app_ladder_result(a, SIM_VARIANT_TREE, n))) {
        frame(a);
        f++;
    }
    return f;
}

/* The share of bar i's pixels in its most common colour, which goes to *rgb. */
static double bar_fill(const uint8_t *px, const float bar[4], uint32_t *rgb) {
    const int x0 = (int)ceilf(bar[0]), x1 = (int)floorf(bar[0] + bar[2]);
    const int y0 = (int)ceilf(bar[1]), y1 = (int)floorf(bar[1] + bar[3]);
    uint32_t seen[64];
    int counts[64] = {0}, kinds = 0, total = 0;
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = px + ((size_t)y * W + x) * 4;
            const uint32_t c = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
            int k = 0;
            while (k < kinds && seen[k] != c) k++;
            if (k == kinds && kinds < 64) seen[kinds++] = c;
            if (k < kinds) counts[k]++;
            total++;
        }
    }
    int best = 0;
    for (int k = 1; k < kinds; k++) best = counts[k] > counts[best] ? k : best;
    *rgb = kinds ? seen[best] : 0;
    return total ? (double)counts[best] / total : 0;
}

static double share_of(const uint8_t *px, const float bar[4], uint32_t rgb) {
    const int x0 = (int)ceilf(bar[0]), x1 = (int)floorf(bar[0] + bar[2]);
    const int y0 = (int)ceilf(bar[1]), y1 = (int)floorf(bar[1] + bar[3]);
    int hits = 0, total = 0;
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = px + ((size_t)y * W + x) * 4;
            hits += ((uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]) == rgb;
            total++;
        }
    }
    return total ? (double)hits / total : 0;
}

static void check_chart(app *a) {
    a->live.paused = true; /* so the running simulation must not move at all */
    /* Whatever this machine's speed, every rung fits (the cap is ~1 s). */
    a->ladder.cap_ms = 1e9;
    frame(a);
    int n0;
    sim_body *before = bodies_of(a->sim, &n0);
    const sim_params p0 = sim_get_params(a->sim);

    app_key(a, GLFW_KEY_I, 0);
    CHECK(a->ui.shown[UI_OVERLAY_CHART], "I opens the chart");
    const int took = frames_until_measured(a, N);
    const app_rung_result *ref = app_ladder_result(a, SIM_VARIANT_BEST, N);
    const app_rung_result *tree = app_ladder_result(a, SIM_VARIANT_TREE, N);
    CHECK(ref && tree, "both CPU methods timed within %d frames (took %d)", FRAMES_TO_MEASURE,
          took);
    CHECK(took <= 2, "one rung per frame: %d frames for two", took);
    if (!ref || !tree) return;
    CHECK(ref->status == UI_RUNG_OK && !ref->live && ref->ms > 0 && sim_pair_rate(N, ref->ms) > 0,
          "reference: %.3g ms/step, timed on a copy", ref->ms);
    CHECK(tree->status == UI_RUNG_OK && !tree->live && tree->ms > 0 &&
              sim_pair_rate(N, tree->ms) > 0,
          "tree: %.3g ms/step, timed on a copy", tree->ms);
    const double when_ref = ref->when, when_tree = tree->when;

    int n1;
    sim_body *after = bodies_of(a->sim, &n1);
    const sim_params p1 = sim_get_params(a->sim);
    CHECK(n1 == n0 && test_same_bodies(before, after, n0), "the running bodies are untouched");
    CHECK(p1.time == p0.time && p1.steps == p0.steps && p1.generation == p0.generation,
          "time %g -> %g, steps %lld -> %lld", p0.time, p1.time, (long long)p0.steps,
          (long long)p1.steps);
    CHECK(p1.variant == p0.variant, "the running method stays");
    free(before);
    free(after);

    /* The picture: each bar drawn in one colour, the running rung's differing. */
    uint8_t *px = malloc((size_t)W * H * 4);
    CHECK(px != NULL, "memory");
    if (!px) return;
    frame(a);
    render_read_pixels(a->render, W, H, px);
    uint32_t colour[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        const float *bar = a->ui.bars[i];
        CHECK(bar[2] >= 2 && bar[3] >= 4, "bar %d drawn: %.0f x %.0f px", i, bar[2], bar[3]);
        const double fill = bar_fill(px, bar, &colour[i]);
        const uint8_t r = colour[i] >> 16, g = colour[i] >> 8 & 255, b = colour[i] & 255;
        CHECK(fill > 0.5 && r + g + b > 150, "bar %d: %.0f%% of it is #%06x", i, 100 * fill,
              colour[i]);
    }
    CHECK(colour[0] != colour[1], "the running rung stands out: #%06x, #%06x", colour[0],
          colour[1]);
    const float bar0[4] = {a->ui.bars[0][0], a->ui.bars[0][1], a->ui.bars[0][2], a->ui.bars[0][3]};
    app_key(a, GLFW_KEY_I, 0);
    CHECK(!a->ui.shown[UI_OVERLAY_CHART], "I closes it");
    frame(a);
    render_read_pixels(a->render, W, H, px);
    CHECK(share_of(px, bar0, colour[0]) < 0.05, "closed: no bar (%.0f%% of its colour left)",
          100 * share_of(px, bar0, colour[0]));
    free(px);

    /* Per N: + measures the new N; - back finds the old results kept. */
    app_key(a, GLFW_KEY_I, 0);
    app_key(a, GLFW_KEY_EQUAL, 0);
    CHECK(sim_get_params(a->sim).body_count == 2 * N, "+ doubles N");
    CHECK(!app_ladder_result(a, SIM_VARIANT_BEST, 2 * N), "nothing yet at the new N");
    frames_until_measured(a, 2 * N);
    const app_rung_result *ref2 = app_ladder_result(a, SIM_VARIANT_BEST, 2 * N);
    const app_rung_result *tree2 = app_ladder_result(a, SIM_VARIANT_TREE, 2 * N);
    CHECK(ref2 && ref2->status == UI_RUNG_OK && ref2->ms > 0 && tree2 &&
              tree2->status == UI_RUNG_OK && tree2->ms > 0,
          "both timed again at N = %d", 2 * N);
    app_key(a, GLFW_KEY_MINUS, 0);
    frame(a);
    frame(a);
    ref = app_ladder_result(a, SIM_VARIANT_BEST, N);
    tree = app_ladder_result(a, SIM_VARIANT_TREE, N);
    CHECK(ref && tree && ref->when == when_ref && tree->when == when_tree,
          "back at N = %d: the results kept, not timed again", N);

    /* Too slow by an estimate: not run. With a cap of 100 s, the tree
     * "took" 1e6 ms at 10 bodies: 6e6 ms at 40 and 3e8 ms at N. */
    a->ladder.cap_ms = 1e5;
    a->ladder.result_count = 0;
    a->ladder.results[a->ladder.result_count++] = (app_rung_result){
        .variant = SIM_VARIANT_TREE, .n = 10, .status = UI_RUNG_OK, .ms = 1e6, .when = 0};
    /* The reference 2 s at 100: 200 s at N from there, but 32 s at 400, so a
     * subset of 400 bodies is timed first, then N from that. */
    a->ladder.results[a->ladder.result_count++] = (app_rung_result){
        .variant = SIM_VARIANT_BEST, .n = 100, .status = UI_RUNG_OK, .ms = 2000, .when = 0};
    frame(a);
    const app_rung_result *pilot = app_ladder_result(a, SIM_VARIANT_BEST, 400);
    CHECK(pilot && pilot->status == UI_RUNG_OK && pilot->ms > 0 &&
              !app_ladder_result(a, SIM_VARIANT_BEST, N),
          "a subset of 400 timed first");
    frame(a);
    ref = app_ladder_result(a, SIM_VARIANT_BEST, N);
    CHECK(ref && ref->status == UI_RUNG_OK && ref->ms > 0, "then N itself");
    frame(a);
    tree = app_ladder_result(a, SIM_VARIANT_TREE, N);
    CHECK(tree && tree->status == UI_RUNG_TOO_SLOW && tree->ms > 1e8,
          "the tree too slow by its estimate (%g ms), not run", tree ? tree->ms : 0);

    /* A temporary sim that cannot be made (here a desc sim_create refuses,
     * failing the way an allocation does: NULL and a message) marks the
     * rung and the frame goes on. */
    a->ladder.result_count = 0;
    const sim_desc keep = a->scene_desc;
    a->scene_desc.galaxy.disk_mass = -1;
    frame(a);
    frame(a);
    a->scene_desc = keep;
    ref = app_ladder_result(a, SIM_VARIANT_BEST, N);
    tree = app_ladder_result(a, SIM_VARIANT_TREE, N);
    CHECK(ref && ref->status == UI_RUNG_NO_MEMORY && tree && tree->status == UI_RUNG_NO_MEMORY,
          "both marked, not failed");

    /* Running: its own step time goes in, as the running method's. */
    a->ladder.result_count = 0;
    a->live.paused = false;
    frame(a);
    frame(a);
    ref = app_ladder_result(a, SIM_VARIANT_BEST, N);
    CHECK(ref && ref->live && ref->status == UI_RUNG_OK && ref->ms > 0,
          "the running reference's own step time recorded");
    app_key(a, GLFW_KEY_I, 0);
}

/* The newest sample is the energy error the HUD shows, at the time it was
 * taken: after the frame's steps, or before them (the first sample, E0). */
static bool newest_is_sampled(app *a, double t_before) {
    double t, de;
    if (!ui_spark_get(&a->ui.spark, a->ui.spark.count - 1, &t, &de)) return false;
    const double want = app_energy_error(a);
    return de == want && (t == sim_get_params(a->sim).time || t == t_before);
}

static void check_sparkline(app *a) {
    app_key(a, GLFW_KEY_MINUS, 0); /* N / 2: cheaper steps */
    a->live.paused = false;
    app_physics_changed(a);
    CHECK(a->ui.spark.count == 0, "app_physics_changed empties the sparkline");
    int samples = 0;
    for (int f = 0; f < 3 * APP_DIAG_EVERY + 1; f++) {
        const double t_before = sim_get_params(a->sim).time;
        frame(a);
        if (a->live.diag_frame == a->live.frame - 1) {
            samples++;
            CHECK(a->ui.spark.count == samples, "one point per sample: %d, want %d",
                  a->ui.spark.count, samples);
            CHECK(newest_is_sampled(a, t_before), "point %d is the energy error sampled", samples);
        }
    }
    CHECK(samples >= 3, "%d samples in %d frames", samples, 3 * APP_DIAG_EVERY + 1);
    /* Damping: the sparkline keeps going and turns down. */
    double t, de_before, de_after;
    ui_spark_get(&a->ui.spark, a->ui.spark.count - 1, &t, &de_before);
    const int kept = a->ui.spark.count;
    for (int i = 0; i < 6; i++) app_key(a, GLFW_KEY_D, 0); /* 1 - 3.2e-3 per step */
    /* Samples also wait for their wall-time share (APP_DIAG_DUTY): on a fast
     * machine 2 APP_DIAG_EVERY frames of small N can pass before two come. */
    for (int f = 0; f < 20 * APP_DIAG_EVERY && a->ui.spark.count < kept + 2; f++) frame(a);
    CHECK(a->ui.spark.count >= kept + 2, "damping does not reset it: %d points, had %d",
          a->ui.spark.count, kept);
    ui_spark_get(&a->ui.spark, a->ui.spark.count - 1, &t, &de_after);
    CHECK(de_after < de_before - 1e-3, "damped: the energy error falls, %.3g -> %.3g", de_before,
          de_after);
    app_key(a, GLFW_KEY_S, 0); /* the softening redefines E: start over */
    CHECK(a->ui.spark.count == 0, "S (softening) resets it: %d", a->ui.spark.count);
    const double t_before = sim_get_params(a->sim).time;
    frame(a);
    CHECK(a->ui.spark.count == 1 && newest_is_sampled(a, t_before),
          "the new E0 is the first point");
}

int main(void) {
    check_arithmetic();
    check_ring();
    check_sample_rate();

    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = N},
                  .steps_per_frame = 1,
                  .headless = true,
                  .width = W,
                  .height = H};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) return 1;
    app_egl *egl = app_egl_open(-1);
    if (!egl) {
        fprintf(stderr, "test_chart: no EGL context (install Mesa's EGL)\n");
        return 1;
    }
    if (!app_gl_begin(a, true)) return 1;
    check_chart(a);
    check_sparkline(a);
    app_gl_end(a);
    app_destroy(a);
    app_egl_close(egl);
    return test_exit("test_chart");
}
