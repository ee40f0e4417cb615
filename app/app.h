/* app.h - the application module: owns the simulation, the renderer and
 * the seam between them, and runs the frame loop in one of two front-ends.
 *
 *   main.c          parses the command line, picks a front-end, exits.
 *   app_cli.c       command line -> app_config (flags, defaults, validation).
 *   app.c           state shared by both front-ends: scene set-up, one frame,
 *                   key dispatch, shutdown outputs.
 *   app_window.c    GLFW window front-end.
 *   app_headless.c  EGL front-end: no window, no X server (GPU machines, CI).
 *   app_interop.c   CUDA-GL interop: the only file that includes
 *                   cuda_gl_interop.h.
 *   app_output.c    PNG and CSV files, written atomically.
 *
 * Module rules: app/ may call sim/ and render/; they never call app/ or
 * each other.
 */
#ifndef NBODY_APP_H
#define NBODY_APP_H

#include <stdbool.h>
#include <stdint.h>

#include "render.h"
#include "sim.h"

/* A comma-separated list on the command line (--n 16384,65536). For p and
 * q, 0 stands for "auto". */
#define APP_LIST_MAX 16
typedef struct app_list {
    int count;
    int values[APP_LIST_MAX];
} app_list;

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
    int width, height;      /* window or offscreen size in pixels; 0 -> 1280 x 720 */
    bool host_copy;         /* force the host-copy path instead of CUDA-GL interop */
    bool no_vsync;
    /* --benchmark: every (variant, N, p, q) of these lists, no window. */
    bool benchmark;
    app_list n_list, p_list, q_list;
    app_list variant_list; /* sim_variant values */
    int bench_steps;       /* steps per timed repeat; 0 -> enough for ~25 ms */
    const char *json;      /* benchmark results as JSON, or NULL */
    bool frame;            /* also time whole headless frames */
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

/* The whole running application. One instance, passed by pointer (GLFW
 * callbacks reach it through the window user pointer). */
typedef struct app {
    app_config cfg;
    sim *sim;
    render *render;
    app_interop interop;
    render_camera camera;
    float point_size;
    float brightness;
    bool paused;
    bool quit;
    int frame;  /* frames drawn */
    double fps; /* frames per second, smoothed */
    bool warned_cpu;
} app;

/* app_cli.c: returns 0 to run, 1 when --help was printed (exit 0), 2 on a
 * bad command line (message already printed). */
int app_cli_parse(int argc, char **argv, app_config *cfg);
void app_cli_usage(void);

/* app.c */
/* Creates the simulation (prints the backend line). false: message printed. */
bool app_create_sim(app *a);
/* Creates the renderer in the current GL context and the interop.
 * offscreen: draw into an offscreen framebuffer of the configured size. */
bool app_create_render(app *a, bool offscreen);
/* Steps (unless paused), moves vertices to the GL buffer and draws. */
void app_frame(app *a, int fb_width, int fb_height);
/* Keyboard, shared by the window and scripted input. key: GLFW_KEY_*. */
void app_key(app *a, int key, int mods);
/* Writes --screenshot and --dump; false when either failed (message printed). */
bool app_finish(app *a, int fb_width, int fb_height);
void app_destroy(app *a);

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

#endif /* NBODY_APP_H */
