/* app.h - the application module: owns the simulation, the renderer and
 * the seam between them, and runs the frame loop in one of two front-ends.
 *
 *   main.c          parses the command line, picks a front-end, exits.
 *   app_knobs.c     the one table of knobs (N, scene, dt, softening, damping,
 *                   theta, kernel, p, q, the merger's orbit, ...): flag, key,
 *                   default, help; the CLI, keys, help and status read it.
 *                   Ranges live in sim/ (sim_knob_check) alone.
 *   app_cli.c       command line -> app_config: the knob table's flags plus
 *                   the front-end and output options.
 *   app_presets.c   the one table of scenes: keys 1-7 and --preset.
 *   app.c           what both front-ends share: scene set-up, one frame,
 *                   diagnostics sampling, outputs at exit.
 *   app_camera.c    orbit, pan, zoom, fit (F) and follow (G).
 *   app_keys.c      key dispatch: the knobs' keys, the scenes' keys and the
 *                   view and loop keys; help text; key names for --script.
 *   app_hud.c       the HUD and the help overlay.
 *   app_chart.c     the ladder chart (I) and the energy sparkline.
 *   app_script.c    --script: "frame key" lines fed through the key dispatch.
 *   app_status.c    --status-json: the live state as JSON.
 *   app_window.c    GLFW window front-end: keys, mouse, vsync, HiDPI.
 *   app_headless.c  EGL front-end: no window, no X server (GPU machines, CI).
 *   app_bench.c     --benchmark: the kernel ladder, timed.
 *   app_bench_report.c  the benchmark's table, JSON and --plot chart, apart
 *                   from the timing so a CPU test can check them.
 *   app_interop.c   CUDA-GL interop: the only file that includes
 *                   cuda_gl_interop.h.
 *   app_output.c    PNG, CSV and JSON files, written atomically.
 *
 * The state is split along its seams: app_config (what the command line
 * said, fixed after start-up), app_view (camera and look), app_frontend
 * (what the window or headless loop owns), app_live (the running loop and
 * its sampled numbers) and app_outputs (script, status lines, requests).
 *
 * Module rules: app/ may call sim/ and render/; they never call app/ or
 * each other.
 */
#ifndef NBODY_APP_H
#define NBODY_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render.h"
#include "sim.h"

/* The most tree cells the overlay (W) draws; the tree's deepest level. */
#define APP_BOXES_MAX 262144
#define APP_TREE_LEVELS 21

/* Frames between samples of the energy (an O(N^2) pass, like one step: at
 * one step per frame this costs about 5 %). */
#define APP_DIAG_EVERY 20
/* ... and at most 1 / (1 + APP_DIAG_DUTY) of the wall time (app.c). */
#define APP_DIAG_DUTY 19.0

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

/* The knobs (app_knobs.c): everything that shapes the simulation, each
 * defined once with its flag, key, default, help and (in sim/) range. */
typedef enum app_knob {
    APP_KNOB_N,
    APP_KNOB_SCENE, /* --preset */
    APP_KNOB_IC,
    APP_KNOB_SEED,
    APP_KNOB_DT,
    APP_KNOB_SOFTENING,
    APP_KNOB_DAMPING,
    APP_KNOB_THETA,
    APP_KNOB_BACKEND,
    APP_KNOB_VARIANT,
    APP_KNOB_P,
    APP_KNOB_Q,
    APP_KNOB_STEPS_PER_FRAME,
    APP_KNOB_MASS_RATIO,
    APP_KNOB_PERICENTER,
    APP_KNOB_SEPARATION,
    APP_KNOB_ECCENTRICITY,
    APP_KNOB_INCL1,
    APP_KNOB_INCL2,
    APP_KNOB_RETROGRADE,
    APP_KNOB_DISK_TEMPERATURE,
    APP_KNOB_COUNT
} app_knob;

typedef struct app_knob_info {
    const char *name;              /* the flag without "--", and the status JSON key */
    const char *metavar;           /* NULL: a switch */
    const char *def;               /* the default as --help shows it */
    const char *help;              /* one line */
    int key;                       /* GLFW key that steps it up (Shift: down); 0: none */
    const char *key_up, *key_down; /* what the key and Shift+key do, for the help */
    bool list;                     /* takes a list with --benchmark */
} app_knob_info;

/* Everything the command line can say. given[k] records which knobs the
 * user set, so a value of zero is never mistaken for "not given". */
typedef struct app_config {
    sim_desc sim;               /* physics knobs */
    bool given[APP_KNOB_COUNT]; /* the knob's flag was on the command line */
    int steps_per_frame;        /* 0 -> the scene's */
    int scene;                  /* scene table index; -1 until resolved */
    const char *preset;         /* --preset NAME, or NULL */
    bool retrograde;            /* --retrograde: both disks turned by 180 degrees */
    bool headless;              /* EGL offscreen front-end instead of a window */
    int frames;                 /* stop after this many frames; 0 -> until closed (headless: 60) */
    const char *screenshot;     /* PNG of the last frame, or NULL */
    const char *dump;           /* CSV of the bodies at exit, or NULL */
    int width, height;          /* window or image size in pixels; 0 -> 1280 x 720 */
    bool host_copy;             /* force the host-copy path instead of CUDA-GL interop */
    bool no_vsync;
    bool no_hud;             /* start with the HUD hidden (Tab shows it) */
    float hud_scale;         /* HUD size factor on top of the screen's content scale; 0 -> 1 */
    const char *script;      /* --script FILE: scripted key presses */
    const char *status_json; /* --status-json FILE */
    int status_every;        /* also every N frames, as JSON lines; 0 -> at exit only */
    /* --benchmark: every (variant, N, p, q) of these lists, no window. */
    bool benchmark;
    app_list n_list, p_list, q_list;
    app_list variant_list;    /* sim_variant values */
    app_real_list theta_list; /* tree opening angles; empty -> the sim's theta */
    int bench_steps;          /* steps per timed repeat; 0 -> enough for ~25 ms */
    const char *json;         /* benchmark results as JSON, or NULL */
    bool bench_frames;        /* --frame: also time whole headless frames */
    const char *plot;         /* --plot FILE.png: the benchmark table as a bar chart, or NULL */
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

/* What the picture looks like: camera and the look of the bodies. */
typedef struct app_view {
    render_camera camera;
    float point_size, brightness, speed_scale;
    render_color color;
    bool follow_com;    /* G: the camera tracks the (larger galaxy's) centre of mass */
    bool hide_halo;     /* O shows it */
    float exposure;     /* E / Shift+E */
    bool auto_exposure; /* A */
    bool bloom;         /* B */
    bool hud, help;     /* Tab, H */
    bool tree_cells;    /* W: the tree's cells as wire boxes */
    int tree_depth;     /* L / Shift+L: the deepest level drawn */
} app_view;

/* What the front-end (window or headless loop) owns and reads back. */
typedef struct app_frontend {
    float content_scale;       /* the window's DPI scale (1 headless) */
    bool vsync, vsync_changed; /* the window front-end applies changes */
    bool quit;
} app_frontend;

/* The running loop and what it samples. */
typedef struct app_live {
    bool paused, step_once;
    double damping_gap;       /* 1 - damping as the D keys set it (0: none) */
    int frame;                /* frames drawn */
    double now;               /* monotonic seconds at the start of this frame */
    double fps;               /* frames/s: over the last half second, or since the first frame */
    double fps_since;         /* start of the current averaging window */
    int fps_frames;           /* frames in it */
    bool fps_window_done;     /* a whole window has been measured */
    uint32_t tags_generation; /* the sim generation whose tags the renderer has */
    sim_diag diag;            /* sampled diagnostics */
    bool diag_valid;
    double energy0; /* E at the start of this run of the current physics */
    bool energy0_valid;
    int diag_frame;    /* frame of the last sample */
    double diag_time;  /* when it ended (monotonic seconds) */
    double diag_cost;  /* seconds it took */
    bool blown_up;     /* non-finite energy: paused until re-seeded */
    char message[192]; /* flashed on the HUD */
    double message_until;
    sim_force_error ferr;     /* the running method against the exact sum (X) */
    bool ferr_valid;          /* ferr belongs to the current method and theta */
    double ferr_time;         /* when it was measured */
    sim_variant ferr_variant; /* for which method */
    float ferr_theta;
} app_live;

/* Scripted input and the files and requests that come out. */
typedef struct app_outputs {
    bool screenshot_requested; /* F12 */
    app_script_event *script;  /* --script */
    int script_count, script_next;
    char *status; /* --status-json lines, written at exit */
    size_t status_len, status_cap;
} app_outputs;

/* ---- the ladder chart (I) and the energy sparkline: app_chart.c ---------- */
typedef struct app app;

/* (variant, N) results the chart keeps; the least recent goes first. */
#define APP_CHART_RESULTS 64
/* Samples of the energy error the sparkline keeps (a ring). */
#define APP_SPARK_SAMPLES 256

typedef enum app_rung_status {
    APP_RUNG_OK = 1,    /* ms holds the measured step time */
    APP_RUNG_TOO_SLOW,  /* not timed: ms is the estimate, over the ~1 s a rung may take */
    APP_RUNG_NO_MEMORY, /* the copy to time could not be made */
} app_rung_status;

/* One rung's step time at one N. On the CPU backend every variant but the
 * tree runs the exact reference; its results are kept as SIM_VARIANT_BEST
 * (the variant K switches the CPU back to). */
typedef struct app_rung_result {
    sim_variant variant;
    int n;
    app_rung_status status;
    double ms;   /* milliseconds per step (estimated when TOO_SLOW) */
    bool live;   /* from the running simulation's own steps, not a timed copy */
    double when; /* app_now() of the measurement */
} app_rung_result;

typedef struct app_spark {
    double t[APP_SPARK_SAMPLES];  /* simulated time of the sample */
    double de[APP_SPARK_SAMPLES]; /* (E - E0) / |E0| */
    int count, next;              /* samples held; where the next one goes */
} app_spark;

typedef struct app_chart {
    bool open; /* I */
    app_rung_result results[APP_CHART_RESULTS];
    int result_count;
    char device[256]; /* what the title says the rungs ran on */
    double cap_ms;    /* the most one rung's timing may take; 0 -> about a second */
    /* The running simulation last frame: its step time is recorded when it
     * has stepped since with the same bodies, method and N. */
    uint32_t seen_generation;
    sim_variant seen_variant;
    int seen_n;
    int64_t seen_steps;
    /* Where the last frame drew each rung's bar (framebuffer pixels; w 0:
     * none), in app_chart_rungs order, for the tests. */
    float bar[SIM_VARIANT_COUNT][4];
    app_spark spark;
} app_chart;

/* I: opens or closes the chart. */
void app_chart_toggle(app *a);
/* Every frame, after the HUD: records the running method's step time, times
 * one rung that has no result at this N while the chart is open (on a copy
 * of the bodies; the running simulation is not touched), draws the chart. */
void app_chart_frame(app *a, int fb_width, int fb_height);
/* The timing part of app_chart_frame alone (no GL). */
void app_chart_update(app *a);
/* The rungs on this backend, in ladder order, into out; returns how many. */
int app_chart_rungs(const app *a, sim_variant out[SIM_VARIANT_COUNT]);
/* The result of rung v at n bodies, or NULL. */
const app_rung_result *app_chart_result(const app *a, sim_variant v, int n);
/* n^2 / time: what every bar shows (the tree's "N^2 equivalent"). */
double app_chart_interactions_per_s(int n, double ms);
/* Speedups of rung i over rung i-1 and over rung 0 from their rates;
 * 0 where a rate is unknown (<= 0 or not finite), vs_prev[0] = 0. */
void app_chart_speedups(const double *ips, int count, double *vs_prev, double *vs_first);
/* A step time at n_to from one at n_from: N^2 scaling, N log N for the tree. */
double app_chart_estimate_ms(bool tree, int n_from, double ms_from, int n_to);
/* The sparkline: after each energy sample, on a change of physics, and drawn
 * inside an open overlay into the rectangle x, y, w, h (w, h <= 0: a size
 * from the line height). */
void app_spark_sample(app *a);
void app_spark_push(app_spark *s, double t, double de);
void app_spark_reset(app_spark *s);
/* Sample i, oldest first; false past the end. */
bool app_spark_get(const app_spark *s, int i, double *t, double *de);
void app_spark_draw(app *a, float x, float y, float w, float h);

/* The whole running application. One instance, passed by pointer (GLFW
 * callbacks reach it through the window user pointer). */
typedef struct app {
    app_config cfg;
    char data_dir[PATH_MAX]; /* holds shaders/ and assets/ */
    sim *sim;
    render *render;
    render_overlay *overlay;
    render_boxes *boxes;         /* the tree's cells (W) */
    sim_tree_cell *cell_scratch; /* APP_BOXES_MAX cells and boxes, made on the first W */
    render_box *box_scratch;
    app_interop interop;
    int scene;           /* the scene on screen (app_presets.c) */
    sim_desc scene_desc; /* the desc that built it (its orbit and galaxy parameters) */
    app_view view;
    app_frontend fe;
    app_live live;
    app_outputs out;
    app_chart chart; /* I, and the energy sparkline */
} app;

/* app_knobs.c */
const app_knob_info *app_knob_get(app_knob k);
/* Finds a knob by flag name (len characters of name); APP_KNOB_COUNT if none. */
app_knob app_knob_find(const char *name, size_t len);
/* Applies --name value to the config (value NULL for a switch). Returns 0,
 * or 2 after printing one line naming the flag and the user's text plus a
 * hint. */
int app_knob_parse(app_config *c, app_knob k, const char *value);
/* The key of knob k: dir +1 (the key) or -1 (Shift+key). */
void app_knob_key(app *a, app_knob k, int dir);
/* The live value of k as JSON (a number or a quoted name) into out. */
void app_knob_json(const app *a, app_knob k, char *out, size_t len);

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
/* app_camera.c: orbit by (dx, dy) pixels, pan by pixels, zoom by scroll
 * steps, fit the view to the bodies, aim at the (larger galaxy's) centre
 * of mass. */
void app_orbit(app *a, double dx, double dy);
void app_pan(app *a, double dx, double dy, int fb_height);
void app_zoom(app *a, double steps);
void app_fit_view(app *a);
void app_follow(app *a);
/* Re-seeds with scene ic and n bodies; keeps the old state when n does not fit. */
void app_reseed(app *a, sim_ic ic, int n, uint64_t seed);
/* Forget the energy reference and the blow-up flag: the physics changed. */
void app_physics_changed(app *a);
/* Measures the running method's force error on APP_FERR_SAMPLES bodies now
 * (X; every APP_FERR_EVERY seconds while the tree runs). */
#define APP_FERR_SAMPLES 1024
#define APP_FERR_EVERY 5.0
void app_measure_force_error(app *a);
/* Frame-rate-independent numbers the HUD and the status share. */
double app_interactions_per_s(const app *a);
double app_flops_per_interaction(const app *a);
/* The running force method's name: a CUDA variant, "cpu-reference" or "tree". */
const char *app_method_name(const app *a);

/* app_keys.c */
/* Handles one key press (key: GLFW_KEY_*, mods: GLFW_MOD_*), from the window
 * or from --script. */
void app_key(app *a, int key, int mods);
/* Key name for --script ("K", "Shift+P", "Space", "F12"); false if unknown. */
bool app_key_parse(const char *name, int *key, int *mods);
/* Help lines: fills *label and *text for binding i; false past the end. */
bool app_key_help(int i, char *label, size_t label_len, char *text, size_t text_len);

/* app_presets.c: the scene table (keys 1-7 and --preset). */
int app_scene_count(void);
const char *app_scene_name(int i);
const char *app_scene_title(int i);
const char *app_scene_key_help(int i); /* its number key's line in the help */
int app_scene_find(const char *name);  /* -1 if unknown */
/* The scene a command line means: --preset, else the one for --ic; -1 and a
 * message printed when the two disagree. */
int app_scene_from_config(const app_config *c);
/* The desc that builds scene i on the CPU or GPU backend: the scene's own
 * N, dt, softening, orbit and (on a GPU) force method, with cfg's backend,
 * damping, theta, seed and galaxy structure (cfg may be NULL: defaults). At
 * start-up the command line's N, dt, softening, orbit and variant flags go
 * on top. */
sim_desc app_scene_desc(int i, const app_config *cfg, bool cpu, bool startup);
/* Steps per frame of scene i on this backend with force method v. */
int app_scene_steps(int i, bool cpu, sim_variant v);
/* The scene's view: sprite size, colours, exposure, camera. */
void app_scene_view(app *a, int i);
/* Sprite brightness for the current N and scene (+ and - keep the rest of the view). */
void app_scene_brightness(app *a);
/* Switches scene live (keys 1-7). */
void app_scene_switch(app *a, int i);

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
/* Moves the current bodies into the render's vertex buffer. false: they
 * could not be (no host memory for the host copy, no GL memory for the
 * buffer), message printed. A failure of the zero-copy path is not one: it
 * falls back to the host copy with a warning. */
bool app_interop_upload(app_interop *io, sim *s, render *r);
void app_interop_destroy(app_interop *io);
const char *app_interop_path_name(app_interop_path p);

/* The folder holding shaders/ and assets/ (app.c): $NBODY_DATA_DIR, next to the binary,
 * the install tree, else the source tree it was built from. */
void app_find_data_dir(char *dir, size_t len);

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
