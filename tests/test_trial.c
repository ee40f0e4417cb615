/* test_trial.c - the two run-time A/B choices as state machines, on a
 * made-up clock: who draws the sprites (APP_SPRITES_TRIAL, CUDA against GL)
 * and whether a recorded frame polls a fence before the interop map
 * (IO_RECORD_POLL_TRIAL).
 *
 * Each trial is driven frame by frame with frame times of our choosing, so
 * the verdict is known: the faster way wins, within the margin the slower
 * way keeps; the warm-up frames are not timed (slow ones there must not
 * decide anything); a frame that differs (the sprites' signature, which
 * covers N, the method, the steps per frame, the picture's size, the HUD,
 * bloom and pausing) starts the trial over; a decided trial is tried again
 * after its period. A verdict that ignored the times, or took them the
 * wrong way round, fails here.
 *
 *     test_trial
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "app.h"
#include "test_check.h"

/* A clock the test moves: each frame of way A takes a_ms, of way B b_ms,
 * and the warm-up frames warm_ms whatever their way. */
typedef struct run {
    base_trial t;
    double now;
    int frames;   /* until the verdict */
    int b_frames; /* of them, done way B */
} run;

static bool frame(run *r, uint64_t sig, double a_ms, double b_ms, double warm_ms) {
    const bool a = base_trial_use_a(&r->t, sig, r->now);
    const bool warm = r->t.phase == BASE_TRIAL_WARM_A || r->t.phase == BASE_TRIAL_WARM_B;
    r->now += 1e-3 * (warm ? warm_ms : a ? a_ms : b_ms);
    r->frames++;
    r->b_frames += !a;
    return base_trial_frame_end(&r->t, r->now);
}

/* Frames until a verdict (at most limit); false if none came. */
static bool decide(run *r, uint64_t sig, double a_ms, double b_ms, double warm_ms, int limit) {
    for (int i = 0; i < limit; i++) {
        if (frame(r, sig, a_ms, b_ms, warm_ms)) return true;
    }
    return false;
}

static run start(base_trial_desc desc, uint64_t sig) {
    run r = {.now = 100.0};
    r.t.desc = desc;
    base_trial_start(&r.t, sig, r.now);
    return r;
}

static void check_verdicts(const char *name, base_trial_desc d) {
    /* A faster: A. */
    run r = start(d, 1);
    CHECK(decide(&r, 1, 1.0, 2.0, 50.0, 1000) && r.t.a_chosen,
          "%s: A at 1 ms, B at 2 ms: A chosen (A %.3g ms, B %.3g ms)", name, 1e3 * r.t.a_s,
          1e3 * r.t.b_s);
    CHECK(fabs(r.t.a_s - 1e-3) < 1e-9 && fabs(r.t.b_s - 2e-3) < 1e-9,
          "%s: the slow warm-up frames are not in the means (A %.4g, B %.4g ms)", name,
          1e3 * r.t.a_s, 1e3 * r.t.b_s);
    CHECK(base_trial_use_a(&r.t, 1, r.now), "%s: decided A, A it is", name);
    /* B faster by far: B. */
    r = start(d, 1);
    CHECK(decide(&r, 1, 2.0, 1.0, 0.1, 1000) && !r.t.a_chosen, "%s: A at 2 ms, B at 1: B chosen",
          name);
    CHECK(!base_trial_use_a(&r.t, 1, r.now), "%s: decided B, B it is", name);
    /* B faster, but by less than the margin A keeps. */
    const double margin = d.b_margin > 0 ? d.b_margin : 1.0;
    if (margin > 1.0) {
        r = start(d, 1);
        const double within = 1.0 / (1.0 + 0.5 * (margin - 1.0));
        CHECK(decide(&r, 1, 1.0, within, 1.0, 1000) && r.t.a_chosen,
              "%s: B %.1f %% faster, inside the %.0f %% margin: A kept", name,
              100 * (1 / within - 1), 100 * (margin - 1));
    }
}

static void check_restarts(void) {
    const base_trial_desc d = APP_SPRITES_TRIAL;
    run r = start(d, 7);
    CHECK(decide(&r, 7, 1.0, 2.0, 1.0, 1000), "a verdict");
    /* Decided: the same frames go on without a new trial, ... */
    for (int i = 0; i < 100; i++) frame(&r, 7, 1.0, 2.0, 1.0);
    CHECK(r.t.phase == BASE_TRIAL_DECIDED, "same signature: still decided");
    /* ... another frame starts one, whatever was decided ... */
    CHECK(base_trial_use_a(&r.t, 8, r.now) && r.t.phase == BASE_TRIAL_WARM_A,
          "a new signature starts a trial with A");
    /* ... and so does a change in the middle of a trial (those frames were
     * another frame's). */
    for (int i = 0; i < 10; i++) frame(&r, 8, 1.0, 2.0, 1.0);
    CHECK(r.t.phase != BASE_TRIAL_WARM_A, "the trial has gone on");
    base_trial_use_a(&r.t, 9, r.now);
    CHECK(r.t.phase == BASE_TRIAL_WARM_A && r.t.count == 0, "a change mid-trial starts over");
    /* A decided trial is tried again after its period, not before. */
    r = start(d, 1);
    CHECK(decide(&r, 1, 2.0, 1.0, 1.0, 1000) && !r.t.a_chosen, "B decided");
    r.now += 0.5 * d.every;
    CHECK(!base_trial_use_a(&r.t, 1, r.now) && r.t.phase == BASE_TRIAL_DECIDED,
          "half the period later: still B");
    r.now += d.every;
    CHECK(base_trial_use_a(&r.t, 1, r.now) && r.t.phase == BASE_TRIAL_WARM_A,
          "after the period: a new trial");
    /* The sprites' trial stops timing a way after max_seconds: slow frames
     * end it early. */
    r = start(d, 1);
    CHECK(decide(&r, 1, 100.0, 200.0, 1.0, 1000) && r.frames < 2 * d.timed,
          "slow frames: a verdict in %d frames (%d timed each way at most)", r.frames, d.timed);
}

/* The sprites' trial gives GL up on one timed frame b_give_up times CUDA's and
 * longer than give_up_seconds (slow warm-up frames ending the warm-up
 * early), and only then. */
static void check_give_up(void) {
    const base_trial_desc d = APP_SPRITES_TRIAL;
    const double min_ms = 1e3 * d.give_up_seconds;
    run r = start(d, 1);
    CHECK(decide(&r, 1, 30.0, 120.0, 120.0, 1000) && r.t.a_chosen && r.t.b_given_up,
          "CUDA 30 ms, GL 120 ms: GL given up (A chosen %d, given up %d)", r.t.a_chosen,
          r.t.b_given_up);
    CHECK(r.b_frames == 2 && fabs(r.t.b_s - 0.120) < 1e-9,
          "... after %d GL frames (one warm, one timed), GL's frame %.4g ms", r.b_frames,
          1e3 * r.t.b_s);
    /* Three times CUDA's, but short: timed in full. */
    r = start(d, 1);
    CHECK(decide(&r, 1, 0.25 * min_ms, 0.75 * min_ms, 1.0, 1000) && r.t.a_chosen &&
              !r.t.b_given_up && fabs(r.t.b_s - 0.75e-3 * min_ms) < 1e-9,
          "GL 3x CUDA at %.3g ms a frame: timed, not given up (GL %.4g ms)", 0.75 * min_ms,
          1e3 * r.t.b_s);
    /* Long, but within b_give_up of CUDA's: timed in full. */
    const double near_ms = 30.0 * (1.0 + 0.5 * (d.b_give_up - 1.0));
    r = start(d, 1);
    CHECK(decide(&r, 1, 30.0, near_ms, 30.0, 1000) && r.t.a_chosen && !r.t.b_given_up &&
              fabs(r.t.b_s - 1e-3 * near_ms) < 1e-9,
          "CUDA 30 ms, GL %.4g ms: timed, not given up (GL %.4g ms)", near_ms, 1e3 * r.t.b_s);
    /* Just beyond it: given up. */
    r = start(d, 1);
    CHECK(decide(&r, 1, 30.0, 30.0 * d.b_give_up * 1.05, 30.0, 1000) && r.t.b_given_up,
          "CUDA 30 ms, GL %.4g ms: given up", 30.0 * d.b_give_up * 1.05);
    /* Long frames where GL is faster: GL. */
    r = start(d, 1);
    CHECK(decide(&r, 1, 100.0, 60.0, 100.0, 1000) && !r.t.a_chosen && !r.t.b_given_up,
          "CUDA 100 ms, GL 60 ms: GL chosen");
    /* A trial started again forgets the last one's giving up. */
    r = start(d, 1);
    decide(&r, 1, 30.0, 120.0, 120.0, 1000);
    r.now += 2 * d.every;
    CHECK(decide(&r, 1, 30.0, near_ms, 30.0, 1000) && r.t.a_chosen && !r.t.b_given_up,
          "the next trial, GL at %.4g ms: timed in full", near_ms);
}

/* The sprites' signature covers each thing that changes a frame's time. */
static void check_signature(void) {
    const uint64_t s =
        app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1280, 720, true, false, false);
    CHECK(s == app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1280, 720, true, false, false),
          "the same frame, the same signature");
    const uint64_t other[] = {
        app_sprites_signature(32768, SIM_VARIANT_BEST, 1, 1280, 720, true, false, false),
        app_sprites_signature(16384, SIM_VARIANT_TREE, 1, 1280, 720, true, false, false),
        app_sprites_signature(16384, SIM_VARIANT_BEST, 2, 1280, 720, true, false, false),
        app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1920, 720, true, false, false),
        app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1280, 1080, true, false, false),
        app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1280, 720, false, false, false),
        app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1280, 720, true, true, false),
        app_sprites_signature(16384, SIM_VARIANT_BEST, 1, 1280, 720, true, false, true),
    };
    static const char *const what[] = {"N",      "the method", "steps per frame", "width",
                                       "height", "the HUD",    "bloom",           "pausing"};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        CHECK(other[i] != s, "the signature changes with %s", what[i]);
    }
}

int main(void) {
    check_verdicts("sprites (CUDA = A, GL = B)", APP_SPRITES_TRIAL);
    check_verdicts("recording (map's wait = A, fence poll = B)", IO_RECORD_POLL_TRIAL);
    check_restarts();
    check_give_up();
    check_signature();
    return test_exit("test_trial");
}
