/* app_create.c - the life of an app: made from a config (the simulation,
 * --script, --load), given its GL objects when a front-end has a context,
 * and taken apart in the reverse order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"

/* The app before its simulation: the config, the view defaults, the parts'
 * state. */
static app *app_alloc(const config *cfg) {
    app *a = calloc(1, sizeof *a);
    if (!a) {
        fprintf(stderr, "nbody: out of memory\nhint: close some programs\n");
        return NULL;
    }
    a->cfg = *cfg;
    a->fe.vsync = !cfg->no_vsync;
    a->fe.content_scale = 1.0f;
    a->view.speed_scale = 1.0f;
    a->sprites.mode = cfg->sprites;
    ui_init(&a->ui, !cfg->no_hud, &a->msg);
    if (!cfg->headless) ui_hint_start(&a->ui); /* a newcomer's first look at the window */
    io_status_init(&a->status, cfg->status_json, cfg->status_every > 0);
    app_density_init(a);
    return a;
}

app *app_create(const config *cfg, int *status) {
    *status = 1;
    app *a = app_alloc(cfg);
    if (!a) return NULL;
    if (cfg->script && !io_script_load(cfg->script, &a->script.events, &a->script.count)) {
        *status = 2;
        app_destroy(a);
        return NULL;
    }
    if (!app_campath_open(a)) { /* --camera-path: a bad file, before anything runs */
        *status = 2;
        app_destroy(a);
        return NULL;
    }
    /* Decided once, here: the backend picks the scene's N. */
    char why[160] = "";
    sim_desc start = cfg->sim;
    start.backend = sim_backend_resolve(cfg->sim.backend, why, sizeof why);
    const bool cpu = start.backend == SIM_BACKEND_CPU;
    if (cpu && cfg->sim.gpus > 1) { /* --backend cpu with --gpus was refused at parse time */
        fprintf(stderr, "nbody: --gpus %d needs CUDA devices, and none is usable: %s\n"
                        "hint: drop --gpus to run on the CPU\n",
                cfg->sim.gpus, why);
        *status = 2;
        app_destroy(a);
        return NULL;
    }
    config resolved = *cfg;
    resolved.sim.backend = start.backend;
    app_lecture_config(&resolved, cpu); /* --lecture: its first rung and N */
    a->scene = config_scene_of(cfg);
    sim_desc desc = config_scene_desc(a->scene, &resolved, cpu, true);
    if (cfg->load && !app_snapshot_open(a, cpu, &desc)) { /* its scene, its knobs */
        app_destroy(a);
        return NULL;
    }
    a->live.steps_per_frame = cfg->steps_per_frame > 0
                                  ? cfg->steps_per_frame
                                  : config_scene_steps(a->scene, cpu, desc.variant);
    desc.stop = (sim_stop){app_stop_requested, a}; /* Esc and signals stop long CPU work */
    sim_error err = {0};
    a->sim = sim_create(&desc, &err);
    if (!a->sim) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        app_destroy(a);
        return NULL;
    }
    a->scene_desc = desc;
    /* Test hook (test_runaway): NBODY_TEST_RUNAWAY=F, a frame number. */
    const char *runaway = getenv("NBODY_TEST_RUNAWAY");
    long long runaway_at = -1;
    const base_number r =
        runaway ? base_parse_whole(runaway, 0, INT_MAX - 1, &runaway_at) : BASE_NUMBER_OK;
    if (r != BASE_NUMBER_OK) {
        fprintf(stderr, "nbody: NBODY_TEST_RUNAWAY '%s': %s\nhint: give a frame number\n", runaway,
                base_number_problem(r));
        *status = 2;
        app_destroy(a);
        return NULL;
    }
    a->live.runaway_at = (int)(runaway_at + 1); /* 0: off */
    const sim_params p = sim_get_params(a->sim);
    if (p.backend == SIM_BACKEND_CPU) {
        /* The loaded file's N, not the placeholder's the sim starts with. */
        const int n = cfg->load ? a->snapshot.pending_count : p.body_count;
        const char *bodies = n == 1 ? "body" : "bodies";
        if (why[0]) {
            printf("nbody: no CUDA device (%s): running on the CPU backend, %d %s\n", why, n,
                   bodies);
        } else {
            printf("nbody: running on the CPU backend (--backend cpu), %d %s\n", n, bodies);
        }
        /* --backend cpu with them is refused (config); here no GPU was found. */
        if (config_asks_block(cfg)) {
            printf("nbody: --p and --q are ignored: the CPU backend's methods take no block "
                   "shape\n");
        }
    }
    a->live.damping_gap = 1.0 - (double)p.damping;
    app_scene_view(a, a->scene);
    if (cfg->load && !app_snapshot_start(a)) {
        app_destroy(a);
        return NULL;
    }
    app_lecture_start(a); /* --lecture: its chart, panels and first caption */
    app_first_estimate(a); /* a slow first step: said now, and shown in the first frame */
    return a;
}

bool app_gl_begin(app *a, bool offscreen) {
    base_data_dir(NBODY_SOURCE_DIR, a->data_dir, sizeof a->data_dir);
    char font[PATH_MAX + 48];
    const char *shaders = a->shader_dir;
    snprintf(a->shader_dir, sizeof a->shader_dir, "%s/shaders", a->data_dir);
    snprintf(font, sizeof font, "%s/assets/fonts/DejaVuSansMono.ttf", a->data_dir);
    render_error err = {0};
    a->render = render_create(
        &(render_desc){
            .shader_dir = shaders,
            .offscreen_width = offscreen ? a->cfg.width : 0,
            .offscreen_height = offscreen ? a->cfg.height : 0,
        },
        &err);
    if (!a->render ||
        !ui_gl_begin(&a->ui, &(ui_gl_desc){.shader_dir = shaders, .font_path = font}, &err)) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    const sim_params p = sim_get_params(a->sim);
    interop_init(&a->interop, p.backend == SIM_BACKEND_CUDA, a->cfg.host_copy);
    io_record_init(&a->rec, &(io_recorder_desc){.render = a->render,
                                                .interop = &a->interop,
                                                .msg = &a->msg,
                                                .shader_dir = shaders,
                                                .headless = a->cfg.headless,
                                                .profile = a->cfg.profile,
                                                .fps = a->cfg.record_fps,
                                                .width = a->cfg.record_width,
                                                .height = a->cfg.record_height,
                                                .hud = a->cfg.record_hud});
    return true;
}

void app_gl_end(app *a) {
    if (!a->render) return;
    io_record_finish(&a->rec); /* a recording still running ends here */
    interop_destroy(&a->interop);
    app_density_destroy(a);
    app_colour_destroy(a);
    app_profile_reset(a); /* its GL queries, while the context is current */
    ui_gl_end(&a->ui);
    render_destroy(a->render);
    a->render = NULL;
}

void app_destroy(app *a) {
    if (!a) return;
    app_gl_end(a);
    sim_destroy(a->sim);
    app_snapshot_destroy(a);
    app_select_destroy(a);
    app_frontier_destroy(a);
    free(a->script.events);
    io_status_destroy(&a->status);
    free(a);
}
