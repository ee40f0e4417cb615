/* app_sprites.c - who draws the sprites: CUDA (splat/, through interop/)
 * or GL (render/), and the automatic choice between them.
 *
 * Why a choice, and why measured: CUDA's sprites take GL's clear and sprite
 * passes off the GL pipeline, which on a data-centre GPU is small, and made
 * whole frames much faster there with the HUD off; but with the HUD on the
 * same frames ran at very different rates from one run to the next, where
 * GL's ran steadily (docs/PERFORMANCE.md, "Frames"; not understood). So
 * CONFIG_SPRITES_AUTO times both with a base_trial: a few frames each way -
 * whole frames, wall time - keeping CUDA unless GL is more than GL_MARGIN
 * faster (the same picture for less GPU work), and tries again when what
 * the frame does changes (app_sprites_signature) and every 20 seconds
 * (APP_SPRITES_TRIAL). Watching the choice's frames between trials and trying again
 * when they slowed down was tried and lost to not watching: it re-tried on
 * passing slow spells.
 */
#include <stdio.h>

#include "app.h"

#define GL_MARGIN 1.02 /* GL must be this much faster to be chosen */

/* At large N GL's sprites are slower by far, and a trial of them every 20
 * seconds would show as a stall and cost frames: warm-up ends after 0.05 s,
 * and a timed frame of GL 1.4 times as long as CUDA's mean and longer than
 * 5 ms ends the trial. One frame decides it: GL would have to be 2 % faster
 * than CUDA on the mean to be chosen, and a single frame 40 % slower is
 * taken as GL being slower, not as noise; shorter frames, where a hiccup of
 * the system weighs more and where the two ways have been close, are timed
 * in full (a wrong call keeps CUDA, the default, until the next trial). */
const base_trial_desc APP_SPRITES_TRIAL = {.warm_a = 3,
                                           .warm_b = 3,
                                           .warm_seconds = 0.05,
                                           .timed = 30,
                                           .max_seconds = 0.15,
                                           .b_margin = GL_MARGIN,
                                           .every = 20.0,
                                           .b_give_up = 1.4,
                                           .give_up_seconds = 0.005};

uint64_t app_sprites_signature(int n, sim_variant v, int steps_per_frame, int fb_width,
                               int fb_height, bool hud, bool bloom, bool paused) {
    const int64_t parts[] = {n, v, steps_per_frame, fb_width, fb_height, hud, bloom, paused};
    return base_signature(parts, (int)(sizeof parts / sizeof parts[0]));
}

bool app_sprites_cuda(app *a, int fb_width, int fb_height) {
    app_sprites *s = &a->sprites;
    if (!interop_cuda_sprites(&a->interop) || s->mode == CONFIG_SPRITES_GL) return false;
    if (s->mode == CONFIG_SPRITES_CUDA) return true;
    const sim_params p = sim_get_params(a->sim);
    s->trial.desc = APP_SPRITES_TRIAL;
    const uint64_t sig =
        app_sprites_signature(p.body_count, p.variant, a->live.steps_per_frame, fb_width, fb_height,
                              a->ui.shown[UI_OVERLAY_HUD], a->view.bloom, a->live.paused);
    return base_trial_use_a(&s->trial, sig, base_now());
}

void app_sprites_frame_end(app *a) {
    app_sprites *s = &a->sprites;
    if (s->mode != CONFIG_SPRITES_AUTO || !interop_cuda_sprites(&a->interop)) return;
    if (base_trial_frame_end(&s->trial, base_now()) && a->cfg.profile) {
        printf("nbody: sprites: %.0f frames/s drawn by CUDA, %.0f by GL%s: %s\n",
               1.0 / s->trial.a_s, 1.0 / s->trial.b_s,
               s->trial.b_given_up ? " (one frame, trial given up)" : "",
               s->trial.a_chosen ? "CUDA draws them" : "GL draws them");
    }
}

void app_sprites_set_mode(app *a, config_sprites m) {
    a->sprites.mode = m;
    a->sprites.trial.desc = APP_SPRITES_TRIAL;
    base_trial_start(&a->sprites.trial, 0, base_now()); /* auto: a new trial */
}
