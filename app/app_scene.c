/* app_scene.c - the scene on screen: its look when it starts, switching
 * scenes live (keys 1-7) and re-seeding it (R, + and -).
 *
 * The scenes themselves are config/'s table (config_scenes.c): this file
 * turns a row into the running simulation and the view. A number key
 * builds the scene from the table with the running seed (and N, when
 * switching between scenes of the same kind: Plummer and shell, or
 * galaxies - the two kinds have different units), so `--preset disk` and
 * key 3 from a Plummer sphere build the same bodies.
 */
#include <math.h>
#include <stdio.h>

#include "app.h"

void app_scene_view(app *a, int scene) {
    const config_scene_look look = config_scene_look_of(scene);
    app_view *v = &a->view;
    v->point_size = look.point_size;
    v->color = look.color;
    v->hide_halo = look.hide_halo;
    v->auto_exposure = look.exposure == 0;
    v->exposure = look.exposure > 0 ? look.exposure : 1.0f;
    v->follow_com = false;
    v->camera = look.camera;
    app_scene_brightness(a);
}

void app_scene_brightness(app *a) {
    const sim_params p = sim_get_params(a->sim);
    a->view.brightness = config_scene_brightness(p.drawn, p.ic);
}

void app_scene_switch(app *a, int i) {
    const sim_params now = sim_get_params(a->sim);
    const bool cpu = now.backend == SIM_BACKEND_CPU;
    sim_desc scene = config_scene_desc(i, &a->cfg, cpu, false);
    /* Galaxies and the other scenes have different units: N and the method
     * carry over only between scenes of the same kind. */
    if (sim_ic_galactic(now.ic) == sim_ic_galactic(scene.ic)) {
        scene.body_count = now.body_count; /* same units: N stays, and so does the method */
        scene.variant = now.variant;
    }
    scene.seed = now.seed;
    sim_error err = {0};
    const char *name = config_scene_name(i);
    /* The scene's method first (a million bodies want the tree), then the bodies. */
    if (scene.variant != now.variant && !sim_set_variant(a->sim, scene.variant, &err)) {
        base_msg_post(&a->msg, "%s: %s (%s)", name, err.message, err.hint);
        return;
    }
    if (!sim_reset_scene(a->sim, &scene, &err)) {
        if (scene.variant != now.variant) sim_set_variant(a->sim, now.variant, NULL);
        base_msg_post(&a->msg, "%s: %s (%s)", name, err.message, err.hint);
        return;
    }
    a->scene = i;
    a->scene_desc = scene;
    a->live.steps_per_frame = config_scene_steps(i, cpu, scene.variant);
    app_physics_changed(a);
    app_scene_view(a, i);
    const int steps = a->live.steps_per_frame;
    base_msg_post(&a->msg, "%d: %s, %d bod%s, dt %.3g, eps %.3g, %d step%s/frame", i + 1,
                  config_scene_title(i), scene.body_count, scene.body_count == 1 ? "y" : "ies",
                  scene.dt, scene.softening, steps, base_plural(steps));
}

void app_reseed(app *a, sim_ic ic, int n, uint64_t seed) {
    const sim_params before = sim_get_params(a->sim);
    sim_error err = {0};
    if (!sim_reset(a->sim, ic, n, seed, &err)) {
        base_msg_post(&a->msg, "%s (%s)", err.message, err.hint);
        return;
    }
    app_physics_changed(a);
    if (n != before.body_count) app_scene_brightness(a); /* the view stays as it is */
    base_msg_post(&a->msg, "%s, %d %s, seed %llu", sim_ic_name(ic), n, n == 1 ? "body" : "bodies",
                  (unsigned long long)seed);
}
