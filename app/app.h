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
 *   app_sprites.c   who draws the sprites, CUDA or GL: measured.
 *   app_output.c    PNG, CSV and JSON files, written atomically; every
 *                   write checked; devices, FIFOs and stdout in place.
 *   app_signal.c    SIGINT/SIGTERM: finish the frame, write the outputs.
 *   app_record.c    videos through an ffmpeg child (--record, M), PNG
 *                   sequences (--frames-dir) and --encode.
 *   app_snapshot.c  snapshots: --load (tipsy, GADGET-2, HDF5 through snap/),
 *                   F5 / F9, --dump .tipsy / .hdf5, series playback.
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
#include "splat.h"
#include "video.h"

/* The most tree cells the overlay (W) draws; the tree's deepest level. */
#define APP_BOXES_MAX 262144
#define APP_TREE_LEVELS 21

/* Frames between samples of the energy (an O(N^2) pass, like one step: at
 * one step per frame this costs about 5 %). */
#define APP_DIAG_EVERY 20
/* ... and at most 1 / (1 + APP_DIAG_DUTY) of the wall time (app.c). */
#define APP_DIAG_DUTY 19.0
/* |dE/E0| beyond this turns the HUD's energy line into a warning. */
#define APP_ENERGY_WARN 0.01

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
    int sprites;                /* --sprites: app_sprites_mode (auto: measured) */
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
    bool fullscreen;          /* --fullscreen: start fullscreen (F11 toggles) */
    /* Videos and PNG sequences (app_record.c); the size, HUD and rate also
     * apply to M's recordings. */
    const char *record;              /* --record FILE.mp4, or NULL */
    int record_fps;                  /* frames/s of the video; 0 -> 30 */
    int record_width, record_height; /* --record-size (even); 0: the frame's own size */
    bool record_hud;                 /* the HUD in the video too */
    const char *frames_dir;          /* --frames-dir DIR: frame-000000.png ... instead, or NULL */
    const char *encode;              /* --encode DIR: its frame-*.png into --record, nothing else */
    const char *load; /* --load FILE, 'GLOB' or DIR: start from snapshot(s), or NULL */
    bool progress;    /* --progress: the headless progress line even into a file */
    bool profile;     /* --profile: at exit, where each frame's time went */
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
    void *frame_fence;   /* GLsync after the last frame's GL work (app_interop_fence_frame) */
    sim_vertex *staging; /* host-copy path */
    int staging_capacity;
    /* A video's frames converted by CUDA (app_interop_video_*): the
     * converter, GL's copy of the picture (a texture) and, where it is a
     * renderbuffer, the picture itself, both registered; the one holding
     * a picture not converted yet, or NULL. */
    video_frames *video;
    struct cudaGraphicsResource *video_copy, *video_picture, *video_waiting;
    bool video_failed; /* video_err says why; the recording must stop */
    video_error video_err;
    /* The sprites drawn by CUDA (splat/) into the renderer's float picture,
     * whose GL texture is registered as an image of picture_w x picture_h;
     * splat NULL: GL draws them (the host copy, or CUDA's refused or failed
     * once); app_sprites.c chooses between the two where both can. */
    splat *splat;
    struct cudaGraphicsResource *picture;
    int picture_w, picture_h;
    bool sprites_drawn; /* the last upload drew its frame's sprites */
} app_interop;

/* Who draws the sprites (app_sprites.c). */
typedef enum app_sprites_mode {
    APP_SPRITES_AUTO = 0, /* measured: a trial of both, the faster kept */
    APP_SPRITES_CUDA,     /* CUDA wherever it can (the zero-copy path) */
    APP_SPRITES_GL,
    APP_SPRITES_COUNT
} app_sprites_mode;

typedef enum app_sprites_phase {
    APP_SPRITES_WARM_CUDA = 0, /* a trial: CUDA's frames, warming up, then timed, */
    APP_SPRITES_TIME_CUDA,
    APP_SPRITES_WARM_GL, /* then GL's */
    APP_SPRITES_TIME_GL,
    APP_SPRITES_DECIDED
} app_sprites_phase;

typedef struct app_sprites {
    app_sprites_mode mode; /* U cycles it */
    app_sprites_phase phase;
    int count;           /* frames ended in this phase */
    double since;        /* when its first one ended */
    double cuda_s, gl_s; /* the last trial's mean frame, seconds */
    bool cuda_chosen;    /* its verdict */
    uint64_t signature;  /* what the frame did when the trial started */
    double trial_at;     /* when it started */
} app_sprites;

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
    float lens_scale;   /* the last frame's lens (app_hud_fit_view); 0: none */
} app_view;

/* What the front-end (window or headless loop) owns and reads back. */
typedef struct app_frontend {
    float content_scale;       /* the window's DPI scale (1 headless) */
    bool vsync, vsync_changed; /* the window front-end applies changes */
    bool quit;
    /* Handles pending input (the window: glfwPollEvents); app_frame calls it
     * between the steps of a frame whose steps are slow. NULL: none. */
    void (*poll)(void *ctx);
    void *poll_ctx;
    double poll_ms; /* "slow": a frame's steps over this many ms; 0 -> APP_POLL_MS */
    bool fullscreen, fullscreen_changed; /* F11; the window front-end applies changes */
    int window_width, window_height;     /* the window's size now, window units (0 headless) */
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
    int diag_frame;        /* frame of the last sample */
    double diag_time;      /* when it ended (monotonic seconds) */
    double diag_cost;      /* seconds it took */
    bool blown_up;         /* non-finite state or energy: paused until re-seeded */
    int64_t blown_up_step; /* the first non-finite step (sim_nonfinite); 0: the energy only */
    double blown_up_time;  /* the simulated time at its end */
    int runaway_at;        /* test hook NBODY_TEST_RUNAWAY (app.c): its frame + 1; 0: off */
    double energy_error;   /* (E - E0) / |E0| of the last sample, when diag_valid and
                              energy0_valid; compare its magnitude with APP_ENERGY_WARN */
    char message[192];     /* flashed on the HUD */
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
    bool record_toggle_requested;         /* M */
    struct app_recording *recording;      /* the video or PNG sequence being written, or NULL */
    struct app_recording *record_closing; /* stopped videos whose ffmpeg is finishing */
    bool record_failed;                   /* a --record / --frames-dir one failed: exit 1 */
    struct app_file *status_file;         /* --status-every: the file, written line by line */
    bool status_failed;                   /* a status line could not be written: no more are */
    bool capturing;    /* this frame is saved (F12): the HUD leaves out its message */
    bool write_failed; /* an output failed during the run: exit 1 at the end */
} app_outputs;

/* Snapshots (app_snapshot.c): --load, F5 / F9, --dump .tipsy / .hdf5, and
 * a series (--load 'run_*.hdf5' or a folder) played as a movie. */
typedef struct app_snapshot {
    char file[PATH_MAX];      /* the snapshot on screen (--load, F9, playback), or "" */
    char format[16];          /* its format's name */
    double time_offset;       /* its time: sim_set_bodies restarts the sim's clock at 0 */
    char units_note[256];     /* how its units were taken, for the HUD and the status */
    char last_save[PATH_MAX]; /* F5's last file this session (absolute), for F9 */
    char hud[320];            /* the HUD's snapshot line, or "" */
    int64_t steps_offset;     /* its steps, likewise */
    sim_body *pending;        /* --load: the bodies read before the sim existed */
    int pending_count;
    char **series; /* playback: the files, sorted by name; NULL: no series */
    int series_count;
    int series_index;    /* the file to show */
    int series_shown;    /* the file on screen */
    int series_shown_at; /* the frame it was loaded in */
    bool playing;
} app_snapshot;

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
/* --profile: the wall time of each part of app_frame, summed over the
 * frames. GL and CUDA calls return before the GPU is done, so a part's time
 * is the CPU's work plus its waits: the GPU's time shows up in the part that
 * waits for it (the interop map or the vertex write for the GL drawing and
 * the step), not necessarily in the part that queued it. */
typedef enum app_phase {
    APP_PHASE_INPUT,  /* script keys, recording start/stop, E0 */
    APP_PHASE_STEP,   /* sim_step (queued; a CUDA step is waited for below) */
    APP_PHASE_DIAG,   /* energy and force-error samples, follow */
    APP_PHASE_UPLOAD, /* the interop map, vertex write and unmap (or host copy), tags */
    APP_PHASE_DRAW,   /* the scene: the video's own picture, the window's, tree cells */
    APP_PHASE_HUD,    /* the HUD and the recording's read-back */
    APP_PHASE_REST,   /* the chart, screenshot and status lines */
    APP_PHASE_LOOP,   /* between frames: the front-end's own work */
    APP_PHASE_COUNT
} app_phase;

typedef struct app_profile {
    double seconds[APP_PHASE_COUNT];
    double last; /* app_now() at the end of the last part timed */
    long frames;
    render_timer *gl; /* the GPU time of the drawing (draw and HUD parts) */
} app_profile;

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
    app_snapshot snapshot;
    app_chart chart;  /* I, and the energy sparkline */
    app_profile prof; /* --profile */
    app_sprites sprites;
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

/* The + key's guard (app_knobs.c): a doubling of N is refused when the
 * memory a step of the new N needs exceeds what is free, or when its step
 * would take longer than APP_STEP_MS_MAX on this backend (the frame loop
 * polls input only between steps). --n sets any N regardless. */
#define APP_STEP_MS_MAX 3000.0
typedef struct app_grow {
    sim_memory mem;     /* sim_memory_estimate plus the vertex buffer, tags and host staging */
    double step_ms_now; /* measured per step at the current N; 0: not measured yet */
    double step_ms;     /* estimated at the new N: x (n/now)^2, tree x n log n; 0: unknown */
} app_grow;
app_grow app_grow_estimate(app *a, int n);
/* true (why filled) when growing to n bodies with estimate g is refused. */
bool app_grow_refused(const app_grow *g, int n, char *why, size_t len);
/* Frames whose steps take longer than this step one at a time with
 * fe.poll between them (app.c). */
#define APP_POLL_MS 50.0

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
/* --profile: adds the time since the last mark to phase p. */
void app_profile_mark(app *a, app_phase p);
/* --profile: starts over (the frames after this one are timed). */
void app_profile_reset(app *a);
/* --profile: the table of where the frames' time went, on stdout (waits
 * for the GPU's last timings). */
void app_profile_print(app *a);
/* The frame's steps (app_frame calls it; unless paused): one call of
 * sim_step, or, when the last measured step time says the frame's steps
 * take longer than fe.poll_ms and there is a fe.poll, one step at a time
 * with fe.poll between them, stopping early when the input quits, pauses
 * or re-seeds. */
void app_step_frame(app *a);
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
/* The camera keys: orbit by degrees (yaw about +z, pitch towards the pole),
 * zoom by steps as the wheel does, back to the scene's camera (Home). */
#define APP_ORBIT_STEP_DEG 5.0 /* an arrow key; Shift: APP_ORBIT_FINE_DEG */
#define APP_ORBIT_FINE_DEG 1.0
void app_orbit_degrees(app *a, double yaw_deg, double pitch_deg);
void app_camera_home(app *a);
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
/* 16384 -> "16,384" into out (the HUD's and the chart's numbers). */
void app_with_commas(long v, char *out, size_t len);
/* |dE/E0| above which the HUD's energy line becomes a warning. */
#define APP_ENERGY_WARN 0.01
void app_hud_draw(app *a, int fb_width, int fb_height);
/* Sets view's lens so the scene is centred in the part of the window the
 * HUD panel leaves free (no lens when the panel is hidden). */
void app_hud_fit_view(app *a, int fb_width, int fb_height, render_view *view);
/* The HUD's lines (help: the help overlay's), one per line, into out; no GL
 * needed (tests). */
void app_hud_text(app *a, bool help, char *out, size_t len);

/* app_script.c: loads --script; false with a message naming the line. */
bool app_script_load(app *a, const char *path);
/* Feeds the events due at this frame to app_key. */
void app_script_dispatch(app *a);

/* app_snapshot.c */
/* Start-up checks for the command line (exit 2 when false, message
 * printed): --load names readable snapshot(s), --dump's format is built. */
bool app_snapshot_check_cli(const app_config *c);
/* --load, in app_create_sim: reads the file (or the series' first) and
 * picks the scene and the knobs for it in *desc (before sim_create), then
 * puts its bodies in the simulation and fits the view (after). false with
 * a message printed. */
bool app_snapshot_open(app *a, bool cpu, sim_desc *desc);
bool app_snapshot_start(app *a);
/* app_frame in playback: loads the file due; true when a series plays
 * (then nothing is stepped). */
bool app_snapshot_playback_frame(app *a);
/* Playback keys: Space, '.', ',', '[' and ']' (dir: frames to move; 0
 * play / pause). false when no series is loaded. */
bool app_snapshot_playback_key(app *a, int dir);
void app_snapshot_save(app *a);   /* F5 */
void app_snapshot_reload(app *a); /* F9 */
/* Writes the bodies to path in the format its extension names (.tipsy,
 * .hdf5, .h5); false when path is not one of those. *ok: written. */
bool app_snapshot_dump(app *a, const char *path, bool *ok);
/* The "snapshot" and "playback" fields of a status line (", ..."). */
void app_snapshot_json(const app *a, char *out, size_t len);
void app_snapshot_destroy(app *a);

/* app_status.c */
/* Appends the live state as one JSON line to the status buffer. */
void app_status_append(app *a);
/* Writes the buffer to --status-json; false with a message on failure. */
bool app_status_write(app *a);

/* app_sprites.c: who draws the sprites. Whether CUDA draws this frame's
 * (the mode, and in auto mode the trial or its verdict); false where CUDA
 * cannot. */
bool app_sprites_cuda(app *a, int fb_width, int fb_height);
/* At the end of every frame: times the trial. */
void app_sprites_frame_end(app *a);
/* A new mode (auto: a new trial). */
void app_sprites_set_mode(app *a, app_sprites_mode m);
const char *app_sprites_mode_name(app_sprites_mode m);
bool app_sprites_parse(const char *s, app_sprites_mode *out);

/* app_interop.c */
void app_interop_init(app_interop *io, bool cuda_backend, bool force_host_copy);
/* Moves the current bodies into the render's vertex buffer. With sprites
 * (a view) on the zero-copy path, CUDA also draws that view's sprites into
 * the renderer's float picture in the same interop map, and
 * io->sprites_drawn says it did (render_view.sprites_drawn); without it,
 * or where CUDA cannot, GL draws them. false: the bodies could not be
 * moved (no host memory for the host copy, no GL memory for the buffer),
 * message printed. A failure of the zero-copy path is not one: it falls
 * back to the host copy with a warning, and a failure of CUDA's sprites
 * to GL's. */
bool app_interop_upload(app_interop *io, sim *s, render *r, const render_view *sprites);
/* The bodies' tags for CUDA's sprites (sim_get_tags), each time they change. */
void app_interop_tags(app_interop *io, const uint8_t *tags, int n);
/* Whether CUDA draws the sprites (the zero-copy path, and CUDA's sprites
 * neither refused nor failed). */
bool app_interop_cuda_sprites(const app_interop *io);
/* What CUDA's sprites of view are drawn with: the uniforms GL's would get
 * (render_sprite_params_of). */
void app_interop_splat_view(const render_view *view, splat_view *out);
void app_interop_destroy(app_interop *io);
/* At the end of a frame: the next upload waits for this frame's GL work by
 * polling a fence before the interop map (app_interop.c says when that is
 * faster; app_record_frame_end decides). */
void app_interop_fence_frame(app_interop *io);
const char *app_interop_path_name(app_interop_path p);
/* A video's frames through CUDA instead of GL's read-back: the picture -
 * the renderbuffer `picture` (render_picture_renderbuffer; 0: the window's
 * framebuffer, never read in place) or GL's copy of it in rb (a
 * RENDER_READBACK_DEVICE texture), both width x height - is converted to
 * YUV 4:2:0 by video/ when the next frame's upload maps the vertex buffer,
 * in the same map, so the CPU waits for GL no more than it did without a
 * video; the frames then come to pinned host memory on the copy engine.
 * false with *err (nothing kept) where the zero-copy path is off or CUDA
 * refuses the texture: the caller reads back through GL. */
bool app_interop_video_begin(app_interop *io, const render_readback *rb, uint32_t picture,
                             int width, int height, video_error *err);
/* The frame's picture is the video's next frame: read in place when
 * in_place (nothing is drawn into the picture before the next upload) and
 * it was registered, else copied by GL into rb first. A frame still
 * waiting is converted first. Needs app_interop_video_pending <
 * VIDEO_DEPTH. */
void app_interop_video_push(app_interop *io, render *r, render_readback *rb, bool in_place);
/* Frames pushed and not released (the one waiting counts), and of those the
 * mapped ones. */
int app_interop_video_pending(const app_interop *io);
int app_interop_video_mapped(const app_interop *io);
/* video_frames_map on the oldest frame (with wait, a frame still waiting is
 * converted first). false with *err. */
bool app_interop_video_map(app_interop *io, bool wait, const uint8_t **data, video_error *err);
void app_interop_video_release(app_interop *io);
/* The error that stopped the conversion during an upload, or NULL. */
const video_error *app_interop_video_error(const app_interop *io);
/* Lets go of the buffer and frees the frames (none may be in use). */
void app_interop_video_end(app_interop *io);

/* The folder holding shaders/ and assets/ (app.c): $NBODY_DATA_DIR, next to the binary,
 * the install tree, else the source tree it was built from. */
void app_find_data_dir(char *dir, size_t len);

/* app_output.c: atomic file writing. All return false with a message printed. */
bool app_output_check_writable(const char *path, const char *flag);
bool app_output_png(const char *path, int width, int height, const uint8_t *rgba);
bool app_output_csv(const char *path, const sim_body *bodies, int n);
bool app_output_text(const char *path, const char *what, const char *text);
/* The whole buffer, by the same rules. */
bool app_output_bytes(const char *path, const char *what, const void *data, size_t len);
/* A file written over time. atomic: to a temporary renamed over path at
 * close when ok and every write succeeded (else removed); not atomic: under
 * the real name as it goes (status lines for tail -f), removed on a failure.
 * Devices, FIFOs and "-" are always written in place. Writes are buffered;
 * flush pushes them to the file. Each returns false once a write failed (the
 * message printed once, errno says why); open returns NULL. close frees f. */
typedef struct app_file app_file;
app_file *app_file_open(const char *path, const char *what, bool atomic);
bool app_file_write(app_file *f, const void *data, size_t len);
bool app_file_flush(app_file *f);
bool app_file_close(app_file *f, bool ok);
/* When one of *paths[0..count) names stdout ("-", /dev/stdout): keeps the
 * real stdout for it alone (the path becomes "/dev/fd/N", written into
 * name) and points nbody's own stdout text at stderr, so the pipe carries
 * exactly the file. false: message printed. */
bool app_output_claim_stdout(const char **paths[], int count, char *name, size_t len);

/* app_signal.c: the first SIGINT or SIGTERM asks the front-end to finish
 * the frame, write every output and exit with 128 + the signal; a second
 * one ends the process at once. SIGPIPE is ignored, so writing to a closed
 * pipe is a reported failure (EPIPE). */
void app_signal_install(void);
/* The first signal caught (SIGINT, SIGTERM), or 0. */
int app_signal_caught(void);
/* The exit status of a front-end whose run went ok or not: 1 when not ok
 * (an output failed), else 128 + the signal when one stopped it, else 0. */
int app_signal_exit_code(bool ok);

/* app_record.c: videos through an ffmpeg child (--record, M) and PNG
 * sequences (--frames-dir). Every drawn frame is one video frame. */
typedef struct app_recording app_recording;
/* At the start of a frame: starts --record / --frames-dir on the first one,
 * M's start or stop, and stops a recording at the frame's size when the
 * framebuffer is resized. */
void app_record_update(app *a, int fb_width, int fb_height);
/* The target a --record-size recording draws into, and its size; NULL when
 * none is running at a size of its own. */
render_target *app_record_target(const app *a, int *width, int *height);
/* Queues the picture just drawn for the recording: offscreen true for the
 * picture in app_record_target, false for the frame's own (ignored unless
 * the recording is at the frame's size). */
void app_record_capture(app *a, bool offscreen);
/* At the end of each frame, while recording: the frame's time for the
 * trial of the two ways to wait for GL (app_record.c), and the fence for
 * the next frame's poll when that is the way. */
void app_record_frame_end(app *a);
/* Ends a running recording: the last frames, ffmpeg's exit, the rename.
 * false (message printed) when a --record or --frames-dir recording failed
 * at any point; M's failures are only reported. Needs the GL context. */
bool app_record_finish(app *a);
/* --frames-dir: creates DIR if missing and checks that it is writable and
 * holds no frame-*.png yet; false with a message (flag names the option). */
bool app_record_check_frames_dir(const char *dir, const char *flag);
/* --encode DIR --record FILE: DIR's frame-*.png in order through the same
 * ffmpeg settings; no GL. Returns the exit code. */
int app_record_encode(const app_config *cfg);

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
