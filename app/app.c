/* app.c - what both front-ends share: scene set-up, one frame, sampled
 * diagnostics, the camera, and the outputs written at exit.
 *
 * The window (app_window.c) and the headless front-end (app_headless.c)
 * only make a GL context and pump events; everything a frame does happens
 * here, so the headless tests exercise the same code the window runs.
 */
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
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
    a->message_until = app_now() + MESSAGE_SECONDS;
    printf("nbody: %s\n", a->message);
}

static bool file_exists(const char *dir, const char *name) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* Finds the folder holding shaders/ and assets/: $NBODY_DATA_DIR, next to
 * the binary, the install tree, else the source tree it was built from. */
static void find_data_dir(char *dir, size_t len) {
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

/* The preset a command line means: --preset, else the one for --ic. */
static int startup_preset(const app_config *c) {
    if (c->preset) return app_preset_find(c->preset);
    switch (c->sim.ic) {
    case SIM_IC_SHELL:
        return app_preset_find("shell");
    case SIM_IC_DISK:
        return app_preset_find("disk");
    case SIM_IC_MERGER:
        return app_preset_find("antennae-like");
    default:
        return app_preset_find("plummer");
    }
}

bool app_create_sim(app *a) {
    if (a->cfg.script && !app_script_load(a, a->cfg.script)) return false;
    char why[160] = "";
    const int devices = sim_cuda_device_count(why, sizeof why);
    if (a->cfg.sim.backend == SIM_BACKEND_DEFAULT && devices == 0) {
        a->cfg.sim.backend = SIM_BACKEND_CPU;
    }
    const bool cpu = a->cfg.sim.backend == SIM_BACKEND_CPU;
    const int preset = startup_preset(&a->cfg);
    app_preset_config(&a->cfg, preset);
    app_preset_knobs(&a->cfg, preset, cpu);

    sim_error err = {0};
    a->sim = sim_create(&a->cfg.sim, &err);
    if (!a->sim) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    if (a->cfg.softening_zero) sim_set_softening(a->sim, 0.0f);
    const sim_params p = sim_get_params(a->sim);
    if (p.backend == SIM_BACKEND_CPU) {
        if (devices == 0) {
            printf("nbody: no CUDA device (%s): running on the CPU backend, %d bodies\n", why,
                   p.body_count);
        } else {
            printf("nbody: running on the CPU backend (--backend cpu), %d bodies\n", p.body_count);
        }
    }
    a->damping_gap = 1.0 - (double)p.damping;
    a->hud = !a->cfg.no_hud;
    a->vsync = !a->cfg.no_vsync;
    a->content_scale = 1.0f;
    a->speed_scale = 1.0f;
    app_preset_view(a, preset);
    return true;
}

bool app_create_render(app *a, bool offscreen) {
    find_data_dir(a->data_dir, sizeof a->data_dir);
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
    if (!a->render || !a->overlay) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    const sim_params p = sim_get_params(a->sim);
    app_interop_init(&a->interop, p.backend == SIM_BACKEND_CUDA, a->cfg.host_copy);
    return true;
}

void app_reseed(app *a, sim_ic ic, int n, uint64_t seed) {
    const sim_params before = sim_get_params(a->sim);
    sim_error err = {0};
    if (!sim_reset(a->sim, ic, n, seed, &err)) {
        app_message(a, "%s (%s)", err.message, err.hint);
        return;
    }
    a->energy0_valid = false;
    a->diag_valid = false;
    a->blown_up = false;
    if (n != before.body_count) app_preset_brightness(a); /* the view stays as it is */
    app_message(a, "%s, %d bodies, seed %llu", sim_ic_name(ic), n, (unsigned long long)seed);
}

double app_interactions_per_s(const app *a) {
    const float ms = sim_last_step_ms(a->sim);
    const double n = sim_get_params(a->sim).body_count;
    return ms > 0 ? n * n / (ms * 1e-3) : 0;
}

double app_flops_per_interaction(const app *a) {
    const sim_params p = sim_get_params(a->sim);
    return p.backend == SIM_BACKEND_CUDA && sim_variant_info(p.variant)->fp64 ? 30.0 : 20.0;
}

/* Energy, momenta and the virial ratio every APP_DIAG_EVERY frames (an O(N^2)
 * pass, like a step); a non-finite energy pauses the run. */
static void sample_diagnostics(app *a) {
    if (a->diag_valid && a->energy0_valid && a->frame - a->diag_frame < APP_DIAG_EVERY) return;
    a->diag = sim_diagnostics(a->sim);
    a->diag_valid = true;
    a->diag_frame = a->frame;
    if (!isfinite(a->diag.total) || !isfinite(a->diag.kinetic)) {
        if (!a->blown_up) {
            a->blown_up = true;
            a->paused = true;
            app_message(a,
                        "positions became NaN or infinite at t = %.4g: paused. R re-seeds; "
                        "Shift+T halves the time step, S raises the softening",
                        sim_get_params(a->sim).time);
        }
        return;
    }
    if (!a->energy0_valid) {
        a->energy0 = a->diag.total;
        a->energy0_valid = true;
    }
}

static void update_fps(app *a) {
    a->now = app_now();
    if (a->fps_since == 0) a->fps_since = a->now;
    a->fps_frames++;
    if (a->now - a->fps_since >= 0.5) {
        a->fps = a->fps_frames / (a->now - a->fps_since);
        a->fps_since = a->now;
        a->fps_frames = 0;
    }
}

/* Writes the frame as drawn (HUD included) to path as PNG; false on failure
 * (message printed). */
static bool write_frame(app *a, const char *path, int w, int h) {
    uint8_t *rgba = malloc((size_t)w * (size_t)h * 4);
    if (!rgba) {
        fprintf(stderr, "nbody: out of memory for a %dx%d screenshot\n", w, h);
        return false;
    }
    render_read_pixels(a->render, w, h, rgba);
    for (size_t i = 3; i < (size_t)w * h * 4; i += 4) rgba[i] = 255;
    const bool ok = app_output_png(path, w, h, rgba);
    free(rgba);
    return ok;
}

/* F12: to nbody-<local time>-f<frame>.png in the current folder. */
static void save_screenshot(app *a, int w, int h) {
    a->screenshot_requested = false;
    char path[64], stamp[32];
    const time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(path, sizeof path, "nbody-%s-f%06d.png", stamp, a->frame);
    if (write_frame(a, path, w, h)) app_message(a, "wrote %s", path);
}

void app_frame(app *a, int fb_width, int fb_height) {
    update_fps(a);
    app_script_dispatch(a);
    if (!a->energy0_valid) sample_diagnostics(a); /* E0 before the first step */
    if (!a->paused || a->step_once) {
        sim_step(a->sim, a->cfg.steps_per_frame);
        a->step_once = false;
    }
    sample_diagnostics(a);
    if (a->follow_com) {
        const sim_diag m = sim_moments(a->sim);
        /* In a merger, the larger galaxy; else everything. */
        const int g = m.galaxy_mass[1] > m.galaxy_mass[0] ? 1 : 0;
        const double *c = m.galaxy_mass[g] > 0 ? m.galaxy_com[g] : m.center_of_mass;
        for (int k = 0; k < 3; k++) a->camera.target[k] = (float)c[k];
    }
    app_interop_upload(&a->interop, a->sim, a->render);
    const sim_params p = sim_get_params(a->sim);
    if (p.generation != a->tags_generation) {
        uint8_t *tags = malloc((size_t)p.body_count);
        if (tags) {
            sim_get_tags(a->sim, tags);
            render_upload_tags(a->render, tags, p.body_count);
            a->tags_generation = p.generation;
            free(tags);
        }
    }
    const render_view view = {
        .fb_width = fb_width,
        .fb_height = fb_height,
        .camera = a->camera,
        .point_size = a->point_size,
        .brightness = a->brightness,
        .speed_scale = a->speed_scale,
        .color = a->color,
        .hide_halo = a->hide_halo,
        .exposure = a->exposure,
        .auto_exposure = a->auto_exposure,
        .bloom = a->bloom,
    };
    render_frame(a->render, &view, p.body_count);
    app_hud_draw(a, fb_width, fb_height);
    if (a->screenshot_requested) save_screenshot(a, fb_width, fb_height);
    if (a->cfg.status_every > 0 && a->frame % a->cfg.status_every == 0) app_status_append(a);
    a->frame++;
}

void app_orbit(app *a, double dx, double dy) {
    a->camera.yaw -= (float)(dx * 0.005);
    a->camera.pitch += (float)(dy * 0.005);
    const float limit = 1.55f; /* just short of the poles */
    if (a->camera.pitch > limit) a->camera.pitch = limit;
    if (a->camera.pitch < -limit) a->camera.pitch = -limit;
}

void app_pan(app *a, double dx, double dy, int fb_height) {
    /* Move the target in the view plane so the point under the cursor follows it. */
    const float fov = a->camera.fov_y > 0 ? a->camera.fov_y : 0.785398f;
    const float per_pixel =
        2.0f * a->camera.distance * tanf(fov / 2) / (float)(fb_height > 0 ? fb_height : 1);
    const float cy = cosf(a->camera.yaw), sy = sinf(a->camera.yaw);
    const float cp = cosf(a->camera.pitch), sp = sinf(a->camera.pitch);
    const float right[3] = {-sy, cy, 0};
    const float up[3] = {-sp * cy, -sp * sy, cp};
    for (int k = 0; k < 3; k++) {
        a->camera.target[k] += per_pixel * (float)(-dx * right[k] + dy * up[k]);
    }
    a->follow_com = false;
}

void app_zoom(app *a, double steps) {
    a->camera.distance *= powf(0.9f, (float)steps); /* proportional to the distance */
    if (a->camera.distance < 1e-3f) a->camera.distance = 1e-3f;
    if (a->camera.distance > 1e4f) a->camera.distance = 1e4f;
}

static int cmp_double(const void *x, const void *y) {
    const double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}

void app_fit_view(app *a) {
    const int n = sim_get_params(a->sim).body_count;
    sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
    double *r = malloc(sizeof(double) * (size_t)n);
    if (!b || !r) {
        free(b);
        free(r);
        app_message(a, "out of memory fitting the view");
        return;
    }
    sim_get_bodies(a->sim, b);
    const sim_diag m = sim_moments(a->sim);
    for (int i = 0; i < n; i++) {
        double d2 = 0;
        for (int k = 0; k < 3; k++) d2 += pow(b[i].pos[k] - m.center_of_mass[k], 2);
        r[i] = sqrt(d2);
    }
    qsort(r, (size_t)n, sizeof r[0], cmp_double);
    const double r90 = r[(size_t)(0.9 * (n - 1))]; /* stragglers do not set the scale */
    const float fov = a->camera.fov_y > 0 ? a->camera.fov_y : 0.785398f;
    for (int k = 0; k < 3; k++) a->camera.target[k] = (float)m.center_of_mass[k];
    a->camera.distance = (float)fmax(1.2 * r90 / tan(fov / 2), 1e-3);
    free(b);
    free(r);
    app_message(a, "view fitted: 90%% of the bodies within %.3g of the centre", r90);
}

bool app_finish(app *a, int fb_width, int fb_height) {
    bool ok = true;
    if (a->cfg.screenshot) {
        const bool written = write_frame(a, a->cfg.screenshot, fb_width, fb_height);
        if (written) printf("nbody: wrote %s (%dx%d)\n", a->cfg.screenshot, fb_width, fb_height);
        ok = written && ok;
    }
    if (a->cfg.dump) {
        const int n = sim_get_params(a->sim).body_count;
        sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
        if (!b) {
            fprintf(stderr, "nbody: out of memory for a dump of %d bodies\n", n);
            return false;
        }
        sim_get_bodies(a->sim, b);
        const bool dumped = app_output_csv(a->cfg.dump, b, n);
        free(b);
        if (dumped) printf("nbody: wrote %s (%d bodies)\n", a->cfg.dump, n);
        ok = dumped && ok;
    }
    if (a->cfg.status_json) {
        app_status_append(a); /* the state at exit */
        ok = app_status_write(a) && ok;
    }
    return ok;
}

void app_destroy(app *a) {
    app_interop_destroy(&a->interop);
    render_overlay_destroy(a->overlay);
    render_destroy(a->render);
    sim_destroy(a->sim);
    free(a->script);
    free(a->status);
    a->overlay = NULL;
    a->render = NULL;
    a->sim = NULL;
    a->script = NULL;
    a->status = NULL;
}
