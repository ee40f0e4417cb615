/* app.c - what both front-ends share: scene set-up, one frame, the keys,
 * and the outputs written at exit.
 *
 * The window (app_window.c) and the headless front-end (app_headless.c)
 * only make a GL context and pump events; everything a frame does happens
 * here, so the headless tests exercise the same code the window runs.
 */
#include <GLFW/glfw3.h> /* key codes only; no GLFW calls here */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

#define CPU_DEFAULT_BODIES 4096

/* Camera distance that frames a scene of unit scale. */
static float scene_distance(sim_ic ic) {
    return ic == SIM_IC_SHELL ? 3.2f : 3.6f;
}

static void frame_scene(app *a) {
    const sim_params p = sim_get_params(a->sim);
    a->camera = (render_camera){
        .distance = scene_distance(p.ic),
        .yaw = 0.6f,
        .pitch = 0.35f,
    };
}

static bool file_exists(const char *dir, const char *name) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* Finds shaders/: $NBODY_SHADER_DIR, next to the binary, in the install
 * tree, else the source tree the binary was built from. */
static void find_shader_dir(char *dir, size_t len) {
    const char *env = getenv("NBODY_SHADER_DIR");
    if (env && file_exists(env, "bodies.vert")) {
        snprintf(dir, len, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        const char *candidates[] = {"shaders", "../share/nbody/shaders"};
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
            char d[PATH_MAX + 32];
            snprintf(d, sizeof d, "%s/%s", exe, candidates[i]);
            if (file_exists(d, "bodies.vert")) {
                snprintf(dir, len, "%s", d);
                return;
            }
        }
    }
    snprintf(dir, len, "%s", NBODY_SOURCE_SHADER_DIR);
}

bool app_create_sim(app *a) {
    sim_desc d = a->cfg.sim;
    char why[160] = "";
    const int devices = sim_cuda_device_count(why, sizeof why);
    if (d.backend == SIM_BACKEND_DEFAULT && devices == 0) d.backend = SIM_BACKEND_CPU;
    if (d.backend == SIM_BACKEND_CPU && !a->cfg.n_given) d.body_count = CPU_DEFAULT_BODIES;

    sim_error err = {0};
    a->sim = sim_create(&d, &err);
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
    frame_scene(a);
    a->point_size = 0.035f;
    /* Keep the total light of the cloud about the same whatever N is. */
    a->brightness = 0.3f * sqrtf(16384.0f / (float)p.body_count);
    if (a->brightness > 1.0f) a->brightness = 1.0f;
    return true;
}

bool app_create_render(app *a, bool offscreen) {
    char shader_dir[PATH_MAX + 32];
    find_shader_dir(shader_dir, sizeof shader_dir);
    render_error err = {0};
    a->render = render_create(
        &(render_desc){
            .shader_dir = shader_dir,
            .offscreen_width = offscreen ? a->cfg.width : 0,
            .offscreen_height = offscreen ? a->cfg.height : 0,
        },
        &err);
    if (!a->render) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    const sim_params p = sim_get_params(a->sim);
    app_interop_init(&a->interop, p.backend == SIM_BACKEND_CUDA, a->cfg.host_copy);
    return true;
}

void app_frame(app *a, int fb_width, int fb_height) {
    if (!a->paused) sim_step(a->sim, a->cfg.steps_per_frame);
    app_interop_upload(&a->interop, a->sim, a->render);
    const render_view view = {
        .fb_width = fb_width,
        .fb_height = fb_height,
        .camera = a->camera,
        .point_size = a->point_size,
        .brightness = a->brightness,
        .speed_scale = 1.0f,
    };
    render_frame(a->render, &view, sim_get_params(a->sim).body_count);
    a->frame++;
}

static void reseed(app *a, sim_ic ic, uint64_t seed) {
    const sim_params p = sim_get_params(a->sim);
    sim_error err = {0};
    if (!sim_reset(a->sim, ic, p.body_count, seed, &err)) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return;
    }
    if (ic != p.ic) frame_scene(a);
}

void app_key(app *a, int key, int mods) {
    (void)mods;
    const sim_params p = sim_get_params(a->sim);
    switch (key) {
    case GLFW_KEY_1:
        reseed(a, SIM_IC_PLUMMER, p.seed);
        break;
    case GLFW_KEY_2:
        reseed(a, SIM_IC_SHELL, p.seed);
        break;
    case GLFW_KEY_R:
        reseed(a, p.ic, p.seed + 1);
        break;
    case GLFW_KEY_SPACE:
        a->paused = !a->paused;
        break;
    case GLFW_KEY_ESCAPE:
        a->quit = true;
        break;
    default:
        break;
    }
}

bool app_finish(app *a, int fb_width, int fb_height) {
    bool ok = true;
    if (a->cfg.screenshot) {
        uint8_t *rgba = malloc((size_t)fb_width * (size_t)fb_height * 4);
        if (!rgba) {
            fprintf(stderr, "nbody: out of memory for a %dx%d screenshot\n", fb_width, fb_height);
            return false;
        }
        render_read_pixels(a->render, fb_width, fb_height, rgba);
        for (size_t i = 3; i < (size_t)fb_width * fb_height * 4; i += 4) rgba[i] = 255;
        ok = app_output_png(a->cfg.screenshot, fb_width, fb_height, rgba) && ok;
        free(rgba);
        if (ok) printf("nbody: wrote %s (%dx%d)\n", a->cfg.screenshot, fb_width, fb_height);
    }
    if (a->cfg.dump) {
        const int n = sim_get_params(a->sim).body_count;
        sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
        if (!b) {
            fprintf(stderr, "nbody: out of memory for a dump of %d bodies\n", n);
            return false;
        }
        sim_get_bodies(a->sim, b);
        bool dumped = app_output_csv(a->cfg.dump, b, n);
        free(b);
        if (dumped) printf("nbody: wrote %s (%d bodies)\n", a->cfg.dump, n);
        ok = dumped && ok;
    }
    return ok;
}

void app_destroy(app *a) {
    app_interop_destroy(&a->interop);
    render_destroy(a->render);
    sim_destroy(a->sim);
    a->render = NULL;
    a->sim = NULL;
}
