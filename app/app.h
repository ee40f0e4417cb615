/* app.h - the application module: owns the simulation, the renderer and
 * the seam between them, and runs the frame loop in one of two front-ends.
 *
 *   main.c          parses the command line, picks a front-end, exits.
 *   app_cli.c       command line -> app_config (flags, defaults, validation).
 *   app.c           what both front-ends share: scene set-up, one frame,
 *                   diagnostics sampling, the camera, outputs at exit.
 *   app_keys.c      the one table of key bindings: dispatch, help text,
 *                   key names for --script.
 *   app_hud.c       the HUD and the help overlay.
 *   app_script.c    --script: "frame key" lines fed through the key dispatch.
 *   app_status.c    --status-json: the live state as JSON.
 *   app_window.c    GLFW window front-end: keys, mouse, vsync, HiDPI.
 *   app_headless.c  EGL front-end: no window, no X server (GPU machines, CI).
 *   app_bench.c     --benchmark: the kernel ladder, timed.
 *   app_interop.c   CUDA-GL interop: the only file that includes
 *                   cuda_gl_interop.h.
 *   app_output.c    PNG, CSV and JSON files, written atomically.
 *
 * Module rules: app/ may call sim/ and render/; they never call app/ or
 * each other.
 */
#ifndef NBODY_APP_H
#define NBODY_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "render.h"
#include "sim.h"

/* Frames between samples of the energy (an O(N^2) pass, like one step: at
 * one step per frame this costs about 5 %). */
#define APP_DIAG_EVERY 20

/* A comma-separated list on the command line (--n 16384,65536). For p and
 * q, 0 stands for "auto". */
#define APP_LIST_MAX 16
typedef struct app_list {
    int count;
    int values[APP_LIST_MAX];
} app_list;

/* A list of real numbers (--theta 0.3,0.5,0.7 with --benchmark). */
typedef struct app_real_list {
    int count;
    double values[APP_LIST_MAX];
} app_real_list;

/* Everything the command line can say. Zero means default. */
typedef struct app_config {
    sim_desc sim;           /* physics knobs (sim/ fills its own defaults) */
    bool n_given;           /* --n was given (else the CPU backend picks fewer bodies) */
    bool softening_zero;    /* --softening 0: no softening at all */
    int steps_per_frame;    /* 0 -> 1 */
    bool headless;          /* EGL offscreen front-end instead of a window */
    int frames;             /* stop after this many frames; 0 -> until closed (headless: 60) */
    const char *screenshot; /* PNG of the last frame, or NULL */
    const char *dump;       /* CSV of the bodies at exit, or NULL */
    int width, height;      /* window or image size in pixels; 0 -> 1280 x 720 */
    bool host_copy;         /* force the host-copy path instead of CUDA-GL interop */
    bool no_vsync;
    bool no_hud;             /* start with the HUD hidden (Tab shows it) */
    float hud_scale;         /* HUD size factor on top of the screen's content scale; 0 -> 1 */
    const char *script;      /* --script FILE: scripted key presses */
    const char *status_json; /* --status-json FILE */
    int status_every;        /* also every N frames, as JSON lines; 0 -> at exit only */
    const char *preset;      /* --preset NAME: a scene with its knobs and view */
    bool incl_given;         /* --incl1/--incl2 given (0 is a valid angle) */
    bool retrograde;         /* --retrograde: both disks turned by 180 degrees */
    /* --benchmark: every (variant, N, p, q) of these lists, no window. */
    bool benchmark;
    app_list n_list, p_list, q_list;
    app_list variant_list;   /* sim_variant values */
    app_real_list theta_list; /* tree opening angles; empty -> the sim's theta */
    int bench_steps;       /* steps per timed repeat; 0 -> enough for ~25 ms */
    const char *json;      /* benchmark results as JSON, or NULL */
    bool bench_frames;     /* --frame: also time whole headless frames */
    const char *plot;      /* --plot FILE.png: the benchmark table as a bar chart, or NULL */
} app_config;

/* How body positions reach the vertex buffer. */
typedef enum app_interop_path {
    APP_INTEROP_ZERO_COPY, /* CUDA writes the GL buffer directly */
    APP_INTEROP_HOST_COPY, /* via host memory and glBufferSubData */
} app_interop_path;

typedef struct app_interop {
    app_interop_path path;
    bool registered;
    uint32_t vbo; /* the GL buffer that is registered */
    struct cudaGraphicsResource *resource;
    sim_vertex *staging; /* host-copy path */
    int staging_capacity;
} app_interop;

/* A key press from --script, fed through app_key at a given frame. */
typedef struct app_script_event {
    int frame;
    int key, mods; /* GLFW_KEY_*, GLFW_MOD_* */
    int line;      /* in the script file, for messages */
} app_script_event;

/* The whole running application. One instance, passed by pointer (GLFW
 * callbacks reach it through the window user pointer). */
typedef struct app {
    app_config cfg;
    char data_dir[PATH_MAX]; /* holds shaders/ and assets/ */
    sim *sim;
    render *render;
    render_overlay *overlay;
    app_interop interop;

    /* view */
    render_camera camera;
    float point_size, brightness, speed_scale;
    render_color color;
    bool follow_com;          /* G: the camera tracks the (larger galaxy's) centre of mass */
    bool hide_halo;           /* O shows it */
    float exposure;           /* E / Shift+E */
    bool auto_exposure;       /* A */
    bool bloom;               /* B */
    int preset;               /* the scene (app_presets.c) */
    uint32_t tags_generation; /* the sim generation whose tags the renderer has */
    float content_scale;      /* the window's DPI scale (1 headless) */

    /* the loop */
    bool paused, step_once, quit;
    bool hud, help;
    bool vsync, vsync_changed; /* the window front-end applies changes */
    bool screenshot_requested; /* F12 */
    double damping_gap;        /* 1 - damping as the D keys set it (0: none) */
    int frame;                 /* frames drawn */
    double now;                /* monotonic seconds at the start of this frame */
    double fps, fps_since;     /* smoothed frames/s and its window start */
    int fps_frames;

    /* sampled diagnostics */
    sim_diag diag;
    bool diag_valid;
    double energy0; /* E at the start of this run of the current physics */
    bool energy0_valid;
    int diag_frame; /* frame of the last sample */
    bool blown_up;  /* non-finite energy: paused until re-seeded */

    /* a message flashed on the HUD */
    char message[192];
    double message_until;

    /* --script */
    app_script_event *script;
    int script_count, script_next;

    /* --status-json lines, written at exit */
    char *status;
    size_t status_len, status_cap;
} app;

/* app_cli.c: returns 0 to run, 1 when --help was printed (exit 0), 2 on a
 * bad command line (message already printed). */
int app_cli_parse(int argc, char **argv, app_config *cfg);
void app_cli_usage(void);

/* app.c */
/* Creates the simulation and loads --script (prints the backend line).
 * false: message printed. */
bool app_create_sim(app *a);
/* Creates the renderer, overlay and interop in the current GL context.
 * offscreen: draw into an offscreen framebuffer of the configured size. */
bool app_create_render(app *a, bool offscreen);
/* One frame: scripted keys, steps (unless paused), diagnostics, vertices to
 * the GL buffer, the scene, the HUD, F12 and --status-every. */
void app_frame(app *a, int fb_width, int fb_height);
/* Writes --screenshot, --dump and --status-json; false when one failed. */
bool app_finish(app *a, int fb_width, int fb_height);
void app_destroy(app *a);
/* Shows msg on the HUD for a few seconds and prints it. */
void app_message(app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Camera: orbit by (dx, dy) pixels, pan by pixels, zoom by scroll steps,
 * fit the view to the bodies. */
void app_orbit(app *a, double dx, double dy);
void app_pan(app *a, double dx, double dy, int fb_height);
void app_zoom(app *a, double steps);
void app_fit_view(app *a);
/* Re-seeds with scene ic and n bodies; keeps the old state when n does not fit. */
void app_reseed(app *a, sim_ic ic, int n, uint64_t seed);
/* Frame-rate-independent numbers the HUD and the status share. */
double app_interactions_per_s(const app *a);
double app_flops_per_interaction(const app *a);

/* app_keys.c */
/* Handles one key press (key: GLFW_KEY_*, mods: GLFW_MOD_*), from the window
 * or from --script. */
void app_key(app *a, int key, int mods);
/* Key name for --script ("K", "Shift+P", "Space", "F12"); false if unknown. */
bool app_key_parse(const char *name, int *key, int *mods);
/* Help lines: fills *label and *text for binding i; false past the end. */
bool app_key_help(int i, const char **label, const char **text);

/* app_presets.c: the scenes on keys 1-7 and --preset. */
const char *app_preset_title(int i);
int app_preset_find(const char *name); /* -1 if unknown */
/* The preset's initial condition on the command line's zeros. */
void app_preset_config(app_config *c, int i);
/* The preset's N, dt, softening and steps per frame on the command line's zeros. */
void app_preset_knobs(app_config *c, int i, bool cpu);
/* The preset's view: sprite size, colours, exposure, camera. */
void app_preset_view(app *a, int i);
/* Sprite brightness for the current N and scene (+ and - keep the rest of the view). */
void app_preset_brightness(app *a);
/* Switches scene live (keys 1-7). */
void app_preset_switch(app *a, int i);

/* app_hud.c */
void app_hud_draw(app *a, int fb_width, int fb_height);

/* app_script.c: loads --script; false with a message naming the line. */
bool app_script_load(app *a, const char *path);
/* Feeds the events due at this frame to app_key. */
void app_script_dispatch(app *a);

/* app_status.c */
/* Appends the live state as one JSON line to the status buffer. */
void app_status_append(app *a);
/* Writes the buffer to --status-json; false with a message on failure. */
bool app_status_write(app *a);

/* app_interop.c */
void app_interop_init(app_interop *io, bool cuda_backend, bool force_host_copy);
/* Moves the current bodies into the render's vertex buffer. */
void app_interop_upload(app_interop *io, sim *s, render *r);
void app_interop_destroy(app_interop *io);
const char *app_interop_path_name(app_interop_path p);

/* app_output.c: atomic file writing. All return false with a message printed. */
bool app_output_check_writable(const char *path, const char *flag);
bool app_output_png(const char *path, int width, int height, const uint8_t *rgba);
bool app_output_csv(const char *path, const sim_body *bodies, int n);
bool app_output_text(const char *path, const char *what, const char *text);

/* Front-ends: return the process exit code. */
int app_window_run(app *a);
int app_headless_run(app *a);
int app_bench_run(const app_config *cfg);

/* app_headless.c: an EGL context on the GPU (or whatever EGL offers) for
 * offscreen work; used by the headless front-end and --benchmark --frame. */
typedef struct app_egl app_egl;
app_egl *app_egl_open(int cuda_device);
void app_egl_close(app_egl *e);

/* Monotonic seconds. */
double app_now(void);

#endif /* NBODY_APP_H */
