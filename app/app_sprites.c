/* app_sprites.c - who draws the sprites: CUDA (splat/, through app_interop.c)
 * or GL (render/), and the automatic choice between them.
 *
 * Why a choice, and why measured: CUDA's sprites take GL's clear and sprite
 * passes off the GL pipeline, which on a data-centre GPU such as the H100
 * is small - measured on one (docs/PERFORMANCE.md, "CUDA draws the
 * sprites"), whole 16K frames with the HUD off went from ~1,080 to
 * 1,513-1,556 frames/s and 1M-body tree frames from 51 to 126 - but with
 * the HUD on at 16K bodies the same frames ran anywhere from 339 to 1,440
 * frames/s from one run to the next, where GL's sprites ran 1,070-1,175 in
 * every run. Not understood (the GPU switches between the two contexts
 * later at times; neither orphaning the HUD's buffer nor an earlier flush
 * made it steady). So APP_SPRITES_AUTO times both: a trial of a few frames
 * each way - whole frames, wall time - and keeps the faster (CUDA unless GL
 * is more than 2 % faster: the same picture for less GPU work), and tries
 * again when what the frame does changes (N, the method, the HUD, the
 * picture's size, the steps per frame, bloom, pausing) and every
 * TRIAL_EVERY_S seconds. (Watching the choice's frames between trials and
 * trying again when they ran 10 % slower than the other way's did was
 * tried: with the HUD off it re-tried on passing slow spells and lost to
 * not watching, 1,111-1,507 frames/s against 1,470-1,490 at 16K.)
 */
#include <stdio.h>
#include <string.h>

#include "app.h"

/* A trial costs what GL's frames lose where CUDA's are faster: 33 frames
 * at ~0.92 ms where CUDA's take ~0.66, ~9 ms of a 2 s, 3,000-frame 16K run
 * with the HUD off (a 60-frame trial cost auto 1-3 % against --sprites
 * cuda in such runs). The trials with the HUD on found CUDA 3.4x slower to
 * 1.3x faster (run6, run7), which 30 frames tell apart. */
#define WARM_FRAMES 3    /* after a switch, before timing */
#define TRIAL_FRAMES 30  /* timed each way, */
#define TRIAL_MAX_S 0.15 /* or fewer when they take longer than this */
#define TRIAL_EVERY_S 20.0
#define GL_MARGIN 1.02 /* GL must be this much faster to be chosen */

static const char *const mode_names[APP_SPRITES_COUNT] = {"auto", "cuda", "gl"};

const char *app_sprites_mode_name(app_sprites_mode m) {
    return m >= 0 && m < APP_SPRITES_COUNT ? mode_names[m] : "?";
}

bool app_sprites_parse(const char *s, app_sprites_mode *out) {
    for (int m = 0; m < APP_SPRITES_COUNT; m++) {
        if (strcmp(s, mode_names[m]) == 0) return *out = (app_sprites_mode)m, true;
    }
    return false;
}

/* What a frame does, as far as its time goes: a change starts a new trial. */
static uint64_t signature(const app *a, int fb_width, int fb_height) {
    const sim_params p = sim_get_params(a->sim);
    uint64_t h = 1469598103934665603ull;
    const int64_t parts[] = {p.body_count, p.variant,   a->cfg.steps_per_frame, fb_width,
                             fb_height,    a->view.hud, a->view.bloom,          a->live.paused};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        h = (h ^ (uint64_t)parts[i]) * 1099511628211ull;
    }
    return h;
}

static void start_trial(app_sprites *s, uint64_t sig, double now) {
    s->phase = APP_SPRITES_WARM_CUDA;
    s->count = 0;
    s->signature = sig;
    s->trial_at = now;
}

bool app_sprites_cuda(app *a, int fb_width, int fb_height) {
    app_sprites *s = &a->sprites;
    if (!app_interop_cuda_sprites(&a->interop) || s->mode == APP_SPRITES_GL) return false;
    if (s->mode == APP_SPRITES_CUDA) return true;
    const double now = app_now();
    const uint64_t sig = signature(a, fb_width, fb_height);
    if (s->phase == APP_SPRITES_DECIDED &&
        (sig != s->signature || now - s->trial_at > TRIAL_EVERY_S)) {
        start_trial(s, sig, now);
    } else if (s->phase != APP_SPRITES_DECIDED && sig != s->signature) {
        start_trial(s, sig, now); /* the frames timed so far were another frame's */
    }
    switch (s->phase) {
    case APP_SPRITES_WARM_CUDA:
    case APP_SPRITES_TIME_CUDA:
        return true;
    case APP_SPRITES_WARM_GL:
    case APP_SPRITES_TIME_GL:
        return false;
    default:
        return s->cuda_chosen;
    }
}

void app_sprites_frame_end(app *a) {
    app_sprites *s = &a->sprites;
    if (s->mode != APP_SPRITES_AUTO || s->phase == APP_SPRITES_DECIDED) return;
    const double now = app_now();
    const bool warm = s->phase == APP_SPRITES_WARM_CUDA || s->phase == APP_SPRITES_WARM_GL;
    if (s->count == 0) s->since = now;
    s->count++;
    const double spent = now - s->since;
    if (warm ? s->count <= WARM_FRAMES : s->count <= TRIAL_FRAMES && spent < TRIAL_MAX_S) return;
    const double period = spent / (s->count - 1); /* count - 1 frames ended since the first */
    s->count = 0;
    if (s->phase == APP_SPRITES_TIME_CUDA) s->cuda_s = period;
    if (s->phase == APP_SPRITES_TIME_GL) {
        s->gl_s = period;
        s->cuda_chosen = s->cuda_s <= s->gl_s * GL_MARGIN;
        if (a->cfg.profile) {
            printf("nbody: sprites: %.0f frames/s drawn by CUDA, %.0f by GL: %s\n", 1.0 / s->cuda_s,
                   1.0 / s->gl_s, s->cuda_chosen ? "CUDA draws them" : "GL draws them");
        }
    }
    s->phase = (app_sprites_phase)(s->phase + 1);
}

void app_sprites_set_mode(app *a, app_sprites_mode m) {
    a->sprites.mode = m;
    a->sprites.phase = APP_SPRITES_WARM_CUDA; /* auto: a new trial */
    a->sprites.count = 0;
    a->sprites.signature = 0;
    a->sprites.trial_at = app_now();
}
