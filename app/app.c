/* app.c - what both front-ends share: scene set-up, one frame, sampled
 * diagnostics, the camera, and the outputs written at exit.
 *
 * The window (app_window.c) and the headless front-end (app_headless.c)
 * only make a GL context and pump events; everything a frame does happens
 * here, so the headless tests exercise the same code the window runs.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

#define MESSAGE_SECONDS 3.0 /* how long a HUD message stays */

double app_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void app_message(app *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->live.message, sizeof a->live.message, fmt, ap);
    va_end(ap);
    a->live.message_until = app_now() + MESSAGE_SECONDS;
    printf("nbody: %s\n", a->live.message);
}

static bool file_exists(const char *dir, const char *name) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* Finds the folder holding shaders/ and assets/: $NBODY_DATA_DIR, next to
 * the binary, the install tree, else the source tree it was built from. */
void app_find_data_dir(char *dir, size_t len) {
    const char *probe = "shaders/bodies.vert";
    const char *env = getenv("NBODY_DATA_DIR");
    if (env && file_exists(env, probe)) {
        snprintf(dir, len, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        const char *candidates[] = {"", "/../share/nbody"};
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
            char d[PATH_MAX + 32];
            snprintf(d, sizeof d, "%s%s", exe, candidates[i]);
            if (file_exists(d, probe) && strlen(d) < len) {
                memcpy(dir, d, strlen(d) + 1);
                return;
            }
        }
    }
    snprintf(dir, len, "%s", NBODY_SOURCE_DIR);
}

bool app_create_sim(app *a) {
    /* main.c loads --script first (exit 2); callers that do not, get it here. */
    if (a->cfg.script && !a->out.script && !app_script_load(a, a->cfg.script)) return false;
    /* Decided once, here: the backend picks the scene's N. */
    char why[160] = "";
    a->cfg.sim.backend = sim_backend_resolve(a->cfg.sim.backend, why, sizeof why);
    const bool cpu = a->cfg.sim.backend == SIM_BACKEND_CPU;
    a->scene = app_scene_from_config(&a->cfg);
    sim_desc desc = app_scene_desc(a->scene, &a->cfg, cpu, true);
    if (a->cfg.load && !app_snapshot_open(a, cpu, &desc)) return false; /* its scene, its knobs */
    if (a->cfg.steps_per_frame == 0) {
        a->cfg.steps_per_frame = app_scene_steps(a->scene, cpu, desc.variant);
    }

    sim_error err = {0};
    a->sim = sim_create(&desc, &err);
    if (!a->sim) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    a->scene_desc = desc;
    /* Test hook (test_runaway): NBODY_TEST_RUNAWAY=F, a frame number. */
    const char *runaway = getenv("NBODY_TEST_RUNAWAY");
    a->live.runaway_at = runaway ? atoi(runaway) + 1 : 0;
    const sim_params p = sim_get_params(a->sim);
    if (p.backend == SIM_BACKEND_CPU) {
        const char *bodies = p.body_count == 1 ? "body" : "bodies";
        if (why[0]) {
            printf("nbody: no CUDA device (%s): running on the CPU backend, %d %s\n", why,
                   p.body_count, bodies);
        } else {
            printf("nbody: running on the CPU backend (--backend cpu), %d %s\n", p.body_count,
                   bodies);
        }
    }
    a->live.damping_gap = 1.0 - (double)p.damping;
    a->view.hud = !a->cfg.no_hud;
    a->sprites.mode = (app_sprites_mode)a->cfg.sprites;
    a->fe.vsync = !a->cfg.no_vsync;
    a->fe.content_scale = 1.0f;
    a->view.speed_scale = 1.0f;
    a->view.tree_depth = 3;
    app_scene_view(a, a->scene);
    return !a->cfg.load || app_snapshot_start(a);
}

bool app_create_render(app *a, bool offscreen) {
    app_find_data_dir(a->data_dir, sizeof a->data_dir);
    char shaders[PATH_MAX + 16], font[PATH_MAX + 48];
    snprintf(shaders, sizeof shaders, "%s/shaders", a->data_dir);
    snprintf(font, sizeof font, "%s/assets/fonts/DejaVuSansMono.ttf", a->data_dir);
    render_error err = {0};
    a->render = render_create(
        &(render_desc){
            .shader_dir = shaders,
            .offscreen_width = offscreen ? a->cfg.width : 0,
            .offscreen_height = offscreen ? a->cfg.height : 0,
        },
        &err);
    if (a->render) {
        a->overlay = render_overlay_create(
            &(render_overlay_desc){.shader_dir = shaders, .font_path = font}, &err);
    }
    if (a->overlay)
        a->boxes = render_boxes_create(&(render_boxes_desc){.shader_dir = shaders}, &err);
    if (!a->render || !a->overlay || !a->boxes) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    const sim_params p = sim_get_params(a->sim);
    app_interop_init(&a->interop, p.backend == SIM_BACKEND_CUDA, a->cfg.host_copy);
    return true;
}

void app_physics_changed(app *a) {
    a->live.energy0_valid = false;
    a->live.diag_valid = false;
    a->live.blown_up = false;
    app_spark_reset(&a->chart.spark); /* the sparkline starts over with E0 */
}

const char *app_method_name(const app *a) {
    const sim_params p = sim_get_params(a->sim);
    if (p.variant == SIM_VARIANT_TREE) return "tree";
    return p.backend == SIM_BACKEND_CUDA ? sim_variant_info(p.variant)->name : "cpu-reference";
}

void app_reseed(app *a, sim_ic ic, int n, uint64_t seed) {
    const sim_params before = sim_get_params(a->sim);
    sim_error err = {0};
    if (!sim_reset(a->sim, ic, n, seed, &err)) {
        app_message(a, "%s (%s)", err.message, err.hint);
        return;
    }
    app_physics_changed(a);
    if (n != before.body_count) app_scene_brightness(a); /* the view stays as it is */
    app_message(a, "%s, %d %s, seed %llu", sim_ic_name(ic), n, n == 1 ? "body" : "bodies",
                (unsigned long long)seed);
}

void app_measure_force_error(app *a) {
    const sim_params p = sim_get_params(a->sim);
    sim_error err = {0};
    app_live *l = &a->live;
    if (!sim_measure_force_error(a->sim, APP_FERR_SAMPLES, (uint64_t)l->frame, &l->ferr, &err)) {
        app_message(a, "force error not measured: %s (%s)", err.message, err.hint);
        l->ferr_valid = false;
        return;
    }
    l->ferr_valid = true;
    l->ferr_time = app_now();
    l->ferr_variant = p.variant;
    l->ferr_theta = p.theta;
}

/* The force error goes stale when the method or theta changes; the tree's
 * is measured again every APP_FERR_EVERY seconds (it changes as the bodies
 * move), an exact kernel's only on X. */
static void sample_force_error(app *a) {
    const sim_params p = sim_get_params(a->sim);
    app_live *l = &a->live;
    if (l->ferr_valid && (l->ferr_variant != p.variant || l->ferr_theta != p.theta)) {
        l->ferr_valid = false;
    }
    if (p.variant == SIM_VARIANT_TREE &&
        (!l->ferr_valid || l->now - l->ferr_time > APP_FERR_EVERY)) {
        app_measure_force_error(a);
    }
}

double app_interactions_per_s(const app *a) {
    const float ms = sim_last_step_ms(a->sim);
    const sim_params p = sim_get_params(a->sim);
    if (ms <= 0) return 0;
    if (p.variant == SIM_VARIANT_TREE) { /* what the tree evaluated, not N^2 */
        const sim_tree_stats t = sim_get_tree_stats(a->sim);
        return t.valid ? p.body_count * t.interactions_per_body / (ms * 1e-3) : 0;
    }
    return (double)p.body_count * p.body_count / (ms * 1e-3);
}

double app_flops_per_interaction(const app *a) {
    const sim_params p = sim_get_params(a->sim);
    return p.backend == SIM_BACKEND_CUDA && sim_variant_info(p.variant)->fp64 ? 30.0 : 20.0;
}

/* The integrator's own check (sim_nonfinite), read after the frame's wait
 * for the GPU (the vertex upload), so the frame whose steps blew up is the
 * one that pauses and says at which step and simulated time. */
static void check_nonfinite(app *a) {
    int64_t step = 0;
    double t = 0;
    if (a->live.blown_up || !sim_nonfinite(a->sim, &step, &t)) return;
    a->live.blown_up = true;
    a->live.blown_up_step = step;
    a->live.blown_up_time = t;
    a->live.paused = true;
    app_message(a,
                "NaN or infinity at step %lld (t = %.6g): paused. R re-seeds; Shift+T halves "
                "the time step, S raises the softening",
                (long long)step, t);
}

/* Energy, momenta and the virial ratio every APP_DIAG_EVERY frames, and no
 * more often than keeps their cost within 1 / (1 + APP_DIAG_DUTY) of the
 * wall time: the potential is an O(N^2) pass, which at a million bodies on
 * the tree costs as much as a hundred steps. A non-finite energy pauses: a
 * second line of defence behind check_nonfinite (the energy can overflow
 * while every position and velocity is still finite). */
static void sample_diagnostics(app *a) {
    app_live *l = &a->live;
    if (l->diag_valid && l->energy0_valid &&
        (l->frame - l->diag_frame < APP_DIAG_EVERY ||
         app_now() - l->diag_time < APP_DIAG_DUTY * l->diag_cost)) {
        return;
    }
    const double t0 = app_now();
    l->diag = sim_diagnostics(a->sim);
    l->diag_time = app_now();
    l->diag_cost = l->diag_time - t0;
    l->diag_valid = true;
    l->diag_frame = l->frame;
    if (!isfinite(a->live.diag.total) || !isfinite(a->live.diag.kinetic)) {
        check_nonfinite(a); /* the step is known by now: sim_diagnostics waited */
        if (!a->live.blown_up) {
            a->live.blown_up = true;
            a->live.blown_up_step = 0;
            a->live.blown_up_time = sim_get_params(a->sim).time;
            a->live.paused = true;
            app_message(a,
                        "the energy is not finite (sampled at t = %.6g): paused. R re-seeds; "
                        "Shift+T halves the time step, S raises the softening",
                        a->live.blown_up_time);
        }
        return;
    }
    if (!a->live.energy0_valid) {
        a->live.energy0 = a->live.diag.total;
        a->live.energy0_valid = true;
    }
    a->live.energy_error =
        a->live.energy0 != 0 ? (a->live.diag.total - a->live.energy0) / fabs(a->live.energy0) : 0;
    app_spark_sample(a); /* the sparkline (app_chart.c) */
}

/* Frames per second over windows of half a second; until the first window
 * is full, over the frames since the first (so a run of a few frames shows
 * its rate, not 0). */
static void update_fps(app *a) {
    app_live *l = &a->live;
    l->now = app_now();
    if (l->fps_since == 0) {
        l->fps_since = l->now; /* the first frame starts the clock */
        return;
    }
    l->fps_frames++;
    const double elapsed = l->now - l->fps_since;
    if (elapsed >= 0.5) {
        l->fps = l->fps_frames / elapsed;
        l->fps_since = l->now;
        l->fps_frames = 0;
        l->fps_window_done = true;
    } else if (!l->fps_window_done && elapsed > 0) {
        l->fps = l->fps_frames / elapsed;
    }
}

/* W: the tree's cells down to the chosen level, as wire boxes. */
static void draw_tree_cells(app *a, const render_view *view) {
    if (!a->view.tree_cells || sim_get_params(a->sim).variant != SIM_VARIANT_TREE) return;
    if (!a->cell_scratch) a->cell_scratch = malloc(sizeof *a->cell_scratch * APP_BOXES_MAX);
    if (!a->box_scratch) a->box_scratch = malloc(sizeof *a->box_scratch * APP_BOXES_MAX);
    sim_tree_cell *cells = a->cell_scratch;
    render_box *boxes = a->box_scratch;
    if (!cells || !boxes) {
        a->view.tree_cells = false;
        app_message(a, "tree cells hidden: no memory for %d of them", APP_BOXES_MAX);
        return;
    }
    /* The tree is rebuilt every step, so its cells are read every frame. */
    const int got = sim_tree_cells(a->sim, APP_TREE_LEVELS, cells, APP_BOXES_MAX);
    /* Levels count from the first one whose cells fit the view: the root of
     * a Plummer sphere or a galaxy's halo spans stragglers far out, and cells
     * much larger than the view only cross the picture as lines through the
     * camera. L / Shift+L then go levels deeper or shallower from there. */
    const float largest = 0.35f * a->view.camera.distance;
    int first = APP_TREE_LEVELS;
    for (int i = 0; i < got; i++) {
        if (cells[i].half <= largest && cells[i].level < first) first = cells[i].level;
    }
    int n = 0;
    for (int i = 0; i < got; i++) {
        const int level = cells[i].level;
        if (cells[i].half > largest || level > first + a->view.tree_depth) continue;
        boxes[n++] =
            (render_box){.center = {cells[i].center[0], cells[i].center[1], cells[i].center[2]},
                         .half = cells[i].half,
                         .level = (float)(level - first)};
    }
    render_error err = {0};
    if (n > 0 && !render_boxes_draw(a->boxes, view, boxes, n, &err)) {
        a->view.tree_cells = false;
        app_message(a, "tree cells hidden: %s (%s)", err.message, err.hint);
    }
}

/* Writes the frame as drawn (HUD included) to path as PNG; false on failure
 * (message printed). */
static bool write_frame(app *a, const char *path, int w, int h) {
    uint8_t *rgba = malloc((size_t)w * (size_t)h * 4);
    if (!rgba) {
        fprintf(stderr, "nbody: out of memory for a %dx%d screenshot\n", w, h);
        errno = ENOMEM;
        return false;
    }
    render_read_pixels(a->render, w, h, rgba);
    for (size_t i = 3; i < (size_t)w * h * 4; i += 4) rgba[i] = 255;
    const bool ok = app_output_png(path, w, h, rgba);
    free(rgba);
    return ok;
}

/* F12: to nbody-<local time>-f<frame>.png in the current folder, shown and
 * printed with its absolute path. A failure is on the terminal (app_output.c)
 * and on the HUD, and makes the run exit 1 at the end. */
static void save_screenshot(app *a, int w, int h) {
    a->out.screenshot_requested = false;
    char name[64], stamp[32], cwd[PATH_MAX], path[PATH_MAX + 64];
    const time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, sizeof name, "nbody-%s-f%06d.png", stamp, a->live.frame);
    if (getcwd(cwd, sizeof cwd)) {
        snprintf(path, sizeof path, "%s/%s", cwd, name);
    } else {
        snprintf(path, sizeof path, "%s", name);
    }
    if (write_frame(a, path, w, h)) {
        app_message(a, "wrote %s", path);
        return;
    }
    const int err = errno;
    a->out.write_failed = true;
    /* Not app_message: the terminal has the error line already. */
    const int len = snprintf(a->live.message, sizeof a->live.message,
                             "F12: screenshot NOT written (%s): ", strerror(err));
    if (len > 0 && (size_t)len < sizeof a->live.message) { /* the path's end, as fits */
        const size_t room = sizeof a->live.message - (size_t)len - 1, plen = strlen(path);
        const char *end = plen > room ? path + plen - room : path;
        memcpy(a->live.message + len, end, strlen(end) + 1);
    }
    a->live.message_until = app_now() + MESSAGE_SECONDS;
}

/* Test hook: with NBODY_TEST_RUNAWAY=F in the environment, body 0's
 * velocity becomes infinite just before frame F's steps (through
 * sim_set_bodies, so the step count and time restart at 0 there): a
 * blow-up at a known frame that the integrator itself finds at step 1,
 * for tests/test_headless.sh (exit 3). */
static void test_runaway(app *a) {
    const int n = sim_get_params(a->sim).body_count;
    sim_body *b = malloc(sizeof *b * (size_t)n);
    sim_error err = {0};
    if (b) {
        sim_get_bodies(a->sim, b);
        b[0].vel[0] = INFINITY;
        if (!sim_set_bodies(a->sim, b, n, &err)) fprintf(stderr, "nbody: %s\n", err.message);
    }
    free(b);
}

void app_step_frame(app *a) {
    const int steps = a->cfg.steps_per_frame;
    const double ms = sim_last_step_ms(a->sim);
    const double slow = a->fe.poll_ms > 0 ? a->fe.poll_ms : APP_POLL_MS;
    if (!a->fe.poll || steps <= 1 || !(ms * steps > slow)) {
        sim_step(a->sim, steps);
        return;
    }
    /* One at a time, each finished before the input is handled (a CUDA
     * step is only queued by sim_step: sim_step_timed waits for it). */
    const sim_params p = sim_get_params(a->sim);
    const bool was_paused = a->live.paused; /* "." steps a whole frame while paused */
    for (int i = 0; i < steps; i++) {
        if (p.backend == SIM_BACKEND_CUDA) {
            sim_step_timed(a->sim, 1);
        } else {
            sim_step(a->sim, 1);
        }
        a->fe.poll(a->fe.poll_ctx);
        if (a->fe.quit || (a->live.paused && !was_paused) ||
            sim_get_params(a->sim).generation != p.generation) {
            break;
        }
    }
}

/* The video's own picture (--record-size, or the window's HUD kept out of
 * it), drawn first, at its own size, with the tree's cells and
 * (--record-hud) the HUD, and queued for it. */
static void record_offscreen(app *a, const render_view *view, int n) {
    render_view v = *view;
    render_target *t = app_record_target(a, &v.fb_width, &v.fb_height);
    if (!t) return;
    /* With the HUD in the video, the video's own layout leaves it room (its
     * lens is the video's: the window's stays the mouse's, app_camera.c). */
    const float window_lens = a->view.lens_scale;
    if (a->cfg.record_hud) app_hud_fit_view(a, v.fb_width, v.fb_height, &v);
    a->view.lens_scale = window_lens;
    render_bind_target(a->render, t);
    render_frame(a->render, &v, n);
    draw_tree_cells(a, &v);
    if (a->cfg.record_hud) app_hud_draw(a, v.fb_width, v.fb_height);
    app_record_capture(a, true);
    render_bind_target(a->render, NULL);
}

void app_profile_mark(app *a, app_phase p) {
    if (!a->cfg.profile) return;
    const double now = app_now();
    if (a->prof.last > 0) a->prof.seconds[p] += now - a->prof.last;
    a->prof.last = now;
}

void app_profile_reset(app *a) {
    render_timer_destroy(a->prof.gl);
    a->prof = (app_profile){0};
}

void app_profile_print(app *a) {
    static const char *const names[APP_PHASE_COUNT] = {
        "input", "step", "diagnostics", "upload", "draw", "hud + readback", "rest", "loop"};
    double total = 0;
    for (int p = 0; p < APP_PHASE_COUNT; p++) total += a->prof.seconds[p];
    if (a->prof.frames <= 0 || total <= 0) return;
    printf("nbody: profile of %ld frames (wall time per frame; the GPU's work is counted where "
           "the CPU waits for it):\n",
           a->prof.frames);
    for (int p = 0; p < APP_PHASE_COUNT; p++) {
        printf("  %-15s %8.4f ms %5.1f %%\n", names[p], 1e3 * a->prof.seconds[p] / a->prof.frames,
               100 * a->prof.seconds[p] / total);
    }
    printf("  %-15s %8.4f ms\n", "total", 1e3 * total / a->prof.frames);
    double gl_ms = 0;
    long gl_frames = 0;
    if (a->prof.gl) render_timer_result(a->prof.gl, true, &gl_ms, &gl_frames);
    if (gl_frames > 0) {
        printf("  on the GPU: drawing %.4f ms (GL timer queries, %ld frames)", gl_ms / gl_frames,
               gl_frames);
        if (sim_get_params(a->sim).backend == SIM_BACKEND_CUDA) {
            printf("; a step %.4f ms (CUDA events)", sim_last_step_ms(a->sim));
        }
        printf("\n");
    }
}

void app_frame(app *a, int fb_width, int fb_height) {
    app_profile_mark(a, APP_PHASE_LOOP);
    update_fps(a);
    app_script_dispatch(a);
    /* --record, --frames-dir, M: started and stopped before the frame is drawn */
    app_record_update(a, fb_width, fb_height);
    if (!a->live.energy0_valid) sample_diagnostics(a); /* E0 before the first step */
    if (a->live.frame + 1 == a->live.runaway_at) test_runaway(a);
    const bool playback = app_snapshot_playback_frame(a); /* a series plays: nothing steps */
    app_profile_mark(a, APP_PHASE_INPUT);
    if (!playback && (!a->live.paused || a->live.step_once)) {
        app_step_frame(a);
        a->live.step_once = false;
    }
    app_profile_mark(a, APP_PHASE_STEP);
    sample_diagnostics(a);
    sample_force_error(a);
    if (a->view.follow_com) app_follow(a);
    app_profile_mark(a, APP_PHASE_DIAG);
    const sim_params p = sim_get_params(a->sim);
    uint8_t *tags = NULL; /* new ones: CUDA's sprites take them now, GL's after the upload */
    if (p.generation != a->live.tags_generation && (tags = malloc((size_t)p.body_count))) {
        sim_get_tags(a->sim, tags);
        app_interop_tags(&a->interop, tags, p.body_count);
    }
    render_view view = {
        .fb_width = fb_width,
        .fb_height = fb_height,
        .camera = a->view.camera,
        .point_size = a->view.point_size,
        .brightness = a->view.brightness,
        .speed_scale = a->view.speed_scale,
        .color = a->view.color,
        .hide_halo = a->view.hide_halo,
        .exposure = a->view.exposure,
        .auto_exposure = a->view.auto_exposure,
        .bloom = a->view.bloom,
    };
    render_view window = view;
    app_hud_fit_view(a, fb_width, fb_height, &window); /* the HUD never covers the scene */
    /* The vertices, and (app_sprites.c says when) the window's sprites drawn
     * by CUDA in the same interop map. */
    if (!app_interop_upload(&a->interop, a->sim, a->render,
                            app_sprites_cuda(a, fb_width, fb_height) ? &window : NULL)) {
        a->fe.quit = true; /* message printed */
    }
    window.sprites_drawn = a->interop.sprites_drawn;
    check_nonfinite(a);
    if (tags) { /* the vertex buffers hold N bodies now */
        render_upload_tags(a->render, tags, p.body_count);
        a->live.tags_generation = p.generation;
        free(tags);
    }
    app_profile_mark(a, APP_PHASE_UPLOAD);
    if (a->cfg.profile && !a->prof.gl) a->prof.gl = render_timer_create();
    if (a->prof.gl) render_timer_begin(a->prof.gl);
    record_offscreen(a, &view, p.body_count); /* GL draws a video's own picture's sprites */
    render_frame(a->render, &window, p.body_count);
    draw_tree_cells(a, &window);
    app_profile_mark(a, APP_PHASE_DRAW);
    if (!a->cfg.record_hud) app_record_capture(a, false); /* the video: the scene only */
    a->out.capturing = a->out.screenshot_requested; /* no old "wrote ..." in the new picture */
    app_hud_draw(a, fb_width, fb_height);
    if (a->cfg.record_hud) app_record_capture(a, false);
    if (a->prof.gl) render_timer_end(a->prof.gl);
    app_profile_mark(a, APP_PHASE_HUD);
    app_chart_frame(a, fb_width, fb_height); /* I: the ladder chart, timed and drawn */
    if (a->out.screenshot_requested) save_screenshot(a, fb_width, fb_height);
    if (a->cfg.status_every > 0 && a->live.frame % a->cfg.status_every == 0) app_status_append(a);
    app_record_frame_end(a); /* and the fence for the next frame's map, if it is to be polled */
    app_sprites_frame_end(a);
    /* The frame's drawing goes to the GPU now, not when the next frame's
     * interop map forces it out: measured on an H100 at 16K bodies, headless,
     * 1,035-1,064 frames/s in 4 runs against 506-954 in 7 without
     * (docs/PERFORMANCE.md, "Where a 16K frame goes"). */
    render_flush(a->render);
    app_profile_mark(a, APP_PHASE_REST);
    if (a->prof.last > 0) a->prof.frames++;
    a->live.frame++;
}

bool app_finish(app *a, int fb_width, int fb_height) {
    bool ok = app_record_finish(a); /* --record, --frames-dir, M */
    if (a->cfg.screenshot) {
        const bool written = write_frame(a, a->cfg.screenshot, fb_width, fb_height);
        if (written) printf("nbody: wrote %s (%dx%d)\n", a->cfg.screenshot, fb_width, fb_height);
        ok = written && ok;
    }
    bool snapshot = false;
    if (a->cfg.dump && app_snapshot_dump(a, a->cfg.dump, &snapshot)) { /* .tipsy, .hdf5, .h5 */
        ok = snapshot && ok;
    } else if (a->cfg.dump) {
        const int n = sim_get_params(a->sim).body_count;
        sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
        if (b) sim_get_bodies(a->sim, b);
        if (!b) {
            fprintf(stderr, "nbody: out of memory for a dump of %d %s\n", n,
                    n == 1 ? "body" : "bodies");
        }
        const bool dumped = b && app_output_csv(a->cfg.dump, b, n);
        free(b);
        if (dumped) printf("nbody: wrote %s (%d %s)\n", a->cfg.dump, n, n == 1 ? "body" : "bodies");
        ok = dumped && ok;
    }
    if (a->cfg.status_json) {
        app_status_append(a); /* the state at exit */
        ok = app_status_write(a) && ok;
    }
    return ok && !a->out.write_failed; /* F12 or a status line failed earlier */
}

void app_destroy(app *a) {
    if (a->render) app_record_finish(a); /* a recording still running ends here */
    app_interop_destroy(&a->interop);
    if (a->render) app_profile_reset(a); /* its GL queries, while the context is current */
    render_boxes_destroy(a->boxes);
    render_overlay_destroy(a->overlay);
    render_destroy(a->render);
    sim_destroy(a->sim);
    app_snapshot_destroy(a);
    free(a->cell_scratch);
    free(a->box_scratch);
    a->cell_scratch = NULL;
    a->box_scratch = NULL;
    free(a->out.script);
    free(a->out.status);
    if (a->out.status_file) app_file_close(a->out.status_file, true); /* ended early */
    a->out.status_file = NULL;
    a->overlay = NULL;
    a->boxes = NULL;
    a->render = NULL;
    a->sim = NULL;
    a->out.script = NULL;
    a->out.status = NULL;
}
