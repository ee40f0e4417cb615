/* app.h - the application: owns the simulation, the renderer and the parts
 * of app/, and runs the frame loop in one of two front-ends.
 *
 * The parts of app/, each a folder with one header, in layers (a part uses
 * only the parts below it; CMake links them so):
 *
 *   app/ (this)  the core: create and destroy (app_create.c), one frame
 *                (app_frame.c), the window
 *                and headless front-ends, the keys and what they do, the
 *                camera, the scenes, the sampled numbers, the ladder's
 *                timing, snapshots on screen, the status line
 *   ui/          what is drawn over the bodies: HUD, help, chart, cells
 *   io/          files: outputs, videos, snapshots, scripts, the status file
 *   interop/     CUDA-GL interop: vertices, CUDA's sprites, a video's frames
 *   config/      the command line: knobs, options, scenes
 *   base/        clock, message line, A/B trials, signals, text helpers
 *
 * and bench/ (--benchmark) above the core. The core orchestrates; the
 * parts return values and never call up into it.
 *
 * State: cfg is what the command line said and is not written after
 * app_create; everything that changes lives in the part that owns it (the
 * view and the loop here; the overlays in ui; the recordings in io).
 */
#ifndef NBODY_APP_H
#define NBODY_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base.h"
#include "config.h"
#include "density.h"
#include "interop.h"
#include "io.h"
#include "render.h"
#include "sim.h"
#include "ui.h"

/* Where the running method's force pass returns no potentials, frames
 * between samples of the energy (an O(N^2) pass, like one step: at one step
 * per frame this costs about 5 %)... */
#define APP_DIAG_EVERY 20
/* ... and at most 1 / (1 + APP_DIAG_DUTY) of the wall time. */
#define APP_DIAG_DUTY 19.0
/* Where the force pass returns the potentials (the GPU tree), samples of
 * the energy a second at most: the HUD's figures need no more, and a walk
 * that returns potentials takes longer. Frames slower than this sample
 * every frame. */
#define APP_SAMPLE_HZ 60.0
/* The force error is measured on this many bodies (X; every APP_FERR_EVERY
 * seconds while an approximate method runs). */
#define APP_FERR_SAMPLES 1024
#define APP_FERR_EVERY 5.0
/* Frames whose steps take longer than this step one at a time with
 * fe.poll between them. */
#define APP_POLL_MS 50.0
/* The + key refuses an N whose step would take longer than this here, and
 * start-up warns of a first step or energy sample that would (--n sets any
 * N regardless). */
#define APP_STEP_MS_MAX 3000.0
/* The window draws a first frame with the estimate before a first step or
 * energy sample estimated to take longer than this. */
#define APP_FIRST_FRAME_NOTE_MS 1000.0
/* The stop hook (app_stop_requested) polls the window at most this often. */
#define APP_STOP_POLL_S 0.02

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
    /* The same in the middle of a step (sim's stop hook): only what stops
     * the run (Esc, the close button) is handled now; other keys wait for
     * the next poll. NULL: none. */
    void (*poll_stop)(void *ctx);
    double stop_polled; /* base_now() of the last poll_stop */
    double poll_ms;     /* "slow": a frame's steps over this many ms; 0 -> APP_POLL_MS */
    bool fullscreen, fullscreen_changed; /* F11; the window front-end applies changes */
    int window_width, window_height;     /* the window's size now, window units (0 headless) */
} app_frontend;

/* The running loop and what it samples (app_live.c). */
typedef struct app_live {
    bool paused, step_once;
    int steps_per_frame;      /* the scene's, or --steps-per-frame */
    double damping_gap;       /* 1 - damping as the D keys set it (0: none) */
    int frame;                /* frames drawn */
    int frames_stepped;       /* of them, those that stepped the simulation */
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
    sim_potential_source energy0_source; /* E0's potential: exact, or the tree walk's */
    double energy0_exact; /* E0 from the exact sum, for the status JSON (--status-json) */
    bool energy0_exact_valid;
    bool sample_due;        /* this frame samples the walk's energy (app_live_plan_sample) */
    double sample_at;       /* the start of the frame that last did (monotonic seconds) */
    int diag_frame;         /* frame of the last sample */
    int64_t diag_steps;     /* the run's steps (status "steps") at the last sample */
    double diag_time;       /* when it ended (monotonic seconds) */
    double diag_cost;       /* seconds it took */
    bool blown_up;          /* non-finite state or energy: paused until re-seeded */
    int64_t blown_up_step;  /* the first non-finite step (sim_nonfinite); 0: the energy only */
    double blown_up_time;   /* the simulated time at its end */
    int runaway_at;         /* test hook NBODY_TEST_RUNAWAY (app_frame.c): its frame + 1; 0: off */
    double first_step_ms;   /* start-up estimate of the first step (app_first_estimate); 0: none */
    double first_energy_ms; /* ... and of the first energy sample */
    sim_force_error ferr;   /* the running method against the exact sum (X) */
    bool ferr_valid;        /* ferr belongs to the current method and theta */
    double ferr_time;       /* when it was measured */
    sim_variant ferr_variant; /* for which method */
    double ferr_theta;
    bool sim_failed; /* sim_failed said so: the run stops, exit 1, no dump or status */
} app_live;

/* Requests from keys, carried out by the frame. */
typedef struct app_requests {
    bool screenshot;    /* F12 */
    bool record_toggle; /* M */
    bool capturing;     /* this frame is saved (F12): the HUD leaves out its message */
    bool write_failed;  /* an output failed during the run: exit 1 at the end */
} app_requests;

/* --script: the key presses and the next one due. */
typedef struct app_script {
    io_script_event *events;
    int count, next;
    char caption[IO_CAPTION_MAX]; /* the last caption line's text, shown on screen */
} app_script;

/* Snapshots on screen (app_snapshot.c): --load, F5 / F9, a series
 * (--load 'run_*.hdf5' or a folder) played as a movie, and
 * --snapshot-every's series written from a run. */
typedef struct app_snapshot {
    char file[PATH_MAX];      /* the snapshot last put on screen (--load, F9, playback), or "" */
    char format[16];          /* its format's name */
    double time_offset;       /* its time: sim_set_bodies restarts the sim's clock at 0 */
    int64_t steps_offset;     /* its steps, likewise */
    uint32_t generation;      /* the sim's generation holding its bodies (new bodies: not shown) */
    bool own;                 /* our own save: knobs holds its knobs */
    snap_knobs knobs;
    char units_note[256];     /* how its units were taken, for the HUD and the status */
    char last_save[PATH_MAX]; /* F5's last file this session (absolute), for F9 */
    char hud[PATH_MAX + 640]; /* the HUD's snapshot line, or "" (app_snapshot_line) */
    char title[PATH_MAX + 32]; /* the HUD's title for a foreign file (app_snapshot_title) */
    sim_body *pending;        /* --load: the bodies read before the sim existed */
    int pending_count;
    char **series; /* playback: the files, sorted by name; NULL: no series */
    int series_count;
    int series_shown; /* the file at or before the play position (app_playback.c) */
    bool playing;
    /* --snapshot-every K: the run's state every K frames that step */
    int every_next;        /* the index of the next file */
    long every_frames;     /* frames that stepped so far */
    long every_written_at; /* every_frames when the last file was written */
    int64_t every_steps;   /* the sim's steps and generation at the last look */
    uint32_t every_generation;
    bool every_done; /* stopped: a write failed or the names ran out */
} app_snapshot;

/* How the bodies between two snapshots of a series are drawn (app_interp.c). */
typedef enum app_interp_mode {
    APP_INTERP_HERMITE, /* cubic Hermite through both positions and velocities (the default) */
    APP_INTERP_LINEAR,  /* straight lines between the positions */
    APP_INTERP_NONE,    /* the file at or before the play time, as it is */
    APP_INTERP_COUNT
} app_interp_mode;

/* Which body of one snapshot is which of the next (app_interp_match_make). */
typedef struct app_interp_match {
    int *a_to_b;      /* per body of the first: its index in the second, or -1 */
    int *b_only;      /* the second's bodies that the first lacks */
    int b_only_count;
    bool by_id;       /* matched by particle ID (else by file order) */
} app_interp_match;

/* A series' smooth playback (app_playback.c): a continuous play position,
 * the files around it read ahead on a thread, the bodies between them
 * interpolated every frame. */
#define APP_PLAYBACK_SLOTS 3 /* the files held: the two around the play time, the next */
typedef struct app_playback {
    double pos;           /* play position in files: file floor(pos), fraction pos - floor */
    double speed;         /* snapshots per second (9 / 0) */
    app_interp_mode mode; /* Backslash */
    io_readahead *reader;
    io_snapshot slots[APP_PLAYBACK_SLOTS];
    int slot_file[APP_PLAYBACK_SLOTS]; /* the file each slot holds, -1: none */
    bool slot_dup[APP_PLAYBACK_SLOTS]; /* its IDs are not unique */
    int failed_file;                   /* a file that failed to read (-1: none) */
    char failure[1024];                /* its message and hint */
    bool failure_said;                 /* on the message line already */
    int pair_a, pair_b;                /* the files the match is for (-1: none) */
    app_interp_match match;
    sim_body *out; /* the frame's bodies */
    int out_cap;
    uint64_t *ids; /* their IDs (the file index where a file has none), in their order */
    int ids_count;
    uint32_t ids_generation; /* the sim generation the bodies went in with */
    double shown_pos;        /* the position last put on screen (-1: none) */
    double wall;             /* live.now of the last frame (the window's play time) */
    app_interp_mode shown_mode;
    double time;        /* the play time shown */
    bool time_is_index; /* the files' times do not increase: time is the position */
    bool time_of_file;  /* time is a file's own: on a file, or no interpolation */
    char interp[128];   /* what the frame did, and why where it fell back */
    char match_note[96];
} app_playback;

/* The ladder chart's measurements (app_ladder.c): step times per (method, N). */
#define APP_LADDER_RESULTS 64

typedef struct app_rung_result {
    sim_variant variant;
    int n;
    ui_rung_status status;
    double ms;   /* milliseconds per step (estimated when too slow) */
    bool live;   /* from the running simulation's own steps, not a timed copy */
    double when; /* base_now() of the measurement */
} app_rung_result;

typedef struct app_ladder {
    app_rung_result results[APP_LADDER_RESULTS];
    int result_count;
    char device[256]; /* what the rungs ran on */
    double cap_ms;    /* the most one rung's timing may take; 0 -> about a second */
    /* The running simulation last frame: its step time is recorded when it
     * has stepped since with the same bodies, method and N. */
    uint32_t seen_generation;
    sim_variant seen_variant;
    int seen_n;
    int64_t seen_steps;
    ui_rung rows[UI_RUNGS_MAX]; /* the chart's bars, as last made (app_ladder_rows) */
} app_ladder;

/* The tree's accuracy-speed frontier (app_frontier.c, Shift+X): the tree
 * timed and measured at a range of settings on a copy of the bodies, a
 * point per frame, against the exact kernel's step time. */
#define APP_FRONTIER_SEED 1 /* the force error's sample: the benchmark's seed ... */
#define APP_FRONTIER_SAMPLES APP_FERR_SAMPLES /* ... and size (X's size) */

typedef enum app_frontier_state {
    APP_FRONTIER_OFF,      /* no sweep yet: the view is closed */
    APP_FRONTIER_SWEEPING, /* a point a frame */
    APP_FRONTIER_STOPPED,  /* stopped by Shift+X or a failure: the points so far */
    APP_FRONTIER_DONE,     /* every point and the exact time */
} app_frontier_state;

typedef struct app_frontier {
    app_frontier_state state;
    sim_body *bodies; /* the copy every point is measured on, taken at the start */
    int n;
    ui_frontier_point plan[UI_FRONTIER_MAX]; /* the settings to sweep, in order */
    int planned;
    ui_frontier_point points[UI_FRONTIER_MAX]; /* the points measured, in plan order */
    int count;
    double exact_ms;      /* the exact kernel's step time at n; 0: not known (yet) */
    bool exact_estimated; /* ... estimated from a smaller N: too slow to run at n */
    bool exact_done;      /* known, or given up (another N, no memory) */
    char device[256];     /* what it ran on */
} app_frontier;

/* Who draws the sprites (app_sprites.c): the mode, and in auto mode the
 * trial of CUDA (way A) against GL (way B). */
typedef struct app_sprites {
    config_sprites mode; /* U cycles it */
    base_trial trial;
} app_sprites;

/* --profile: the wall time of each part of app_frame, summed over the
 * frames (app_profile.c). GL and CUDA calls return before the GPU is done,
 * so a part's time is the CPU's work plus its waits. */
typedef enum app_phase {
    APP_PHASE_INPUT,  /* script keys, recording start/stop, E0 */
    APP_PHASE_STEP,   /* sim_step (queued; a CUDA step is waited for below) */
    APP_PHASE_DIAG,   /* follow; energy and force-error samples (after the upload) */
    APP_PHASE_UPLOAD, /* the interop map, vertex write and unmap (or host copy), tags */
    APP_PHASE_DRAW,   /* the scene: the video's own picture, the window's, tree cells */
    APP_PHASE_HUD,    /* the HUD and the recording's read-back */
    APP_PHASE_REST,   /* the chart, screenshot and status lines */
    APP_PHASE_LOOP,   /* between frames: the front-end's own work */
    APP_PHASE_COUNT
} app_phase;

typedef struct app_profile {
    double seconds[APP_PHASE_COUNT];
    double last; /* base_now() at the end of the last part timed */
    long frames;
    long cuda_sprites; /* frames whose sprites CUDA drew (the rest: GL) */
    render_timer *gl; /* the GPU time of the drawing (draw and HUD parts) */
} app_profile;

/* Selection sets that follow bodies (app_select.c): up to UI_SELECT_SETS
 * named sets, kept by identity - the body's index while the simulation
 * runs (it never reorders), the particle IDs through a series' playback
 * (app_playback_ids), the file's order through F9 and files without IDs -
 * and measured for the panel (F6) and the status JSON. */
#define APP_SELECT_LIVE_N 65536 /* above this N the panel is measured ... */
#define APP_SELECT_EVERY 0.25   /* ... at most every this many seconds (else every frame) ... */
#define APP_SELECT_DUTY 19.0    /* ... and in at most 1 / (1 + APP_SELECT_DUTY) of the wall time */
#define APP_SELECT_PENDING 16   /* selections waiting for the next frame's view */

typedef enum app_select_quantity {
    APP_SELECT_RADIUS, /* distance from the set's centre of mass */
    APP_SELECT_SPEED,
    APP_SELECT_HEIGHT, /* above the disk plane of the body's galaxy */
    APP_SELECT_QUANTITY_COUNT
} app_select_quantity;

typedef struct app_select {
    uint8_t *member;     /* per body: bit k set = in set k (index = identity) */
    int count;           /* bodies member covers */
    uint64_t *ids;       /* their IDs while a series plays (app_playback_ids), else NULL:
                            index order = file order; owned */
    uint32_t generation; /* the sim generation member belongs to */
    bool generation_known;
    int active;                   /* the set the keys act on */
    app_select_quantity quantity; /* the histogram's (Shift+F7) */
    int property;                 /* F7's next property */
    char names[UI_SELECT_SETS][IO_SELECT_NAME_MAX];
    ui_select_set stats[UI_SELECT_SETS]; /* as last measured */
    bool stats_valid;
    int64_t stats_steps; /* the sim's steps and generation they were measured at */
    uint32_t stats_generation;
    uint32_t version, stats_version;       /* membership changes; the one measured */
    double stats_when;                     /* base_now() of the last measurement */
    double stats_ms;                       /* what it took (read-back included) */
    uint32_t tags_version;                 /* the membership the renderer's tags show */
    bool tags_drawn;                       /* ... with the sets drawn (F6) */
    io_select pending[APP_SELECT_PENDING]; /* box and sphere selections wait for a view */
    int pending_count;
    render_view window; /* the last frame's view of the window (box and sphere use it) */
    bool window_valid;
} app_select;
/* Camera paths (app_campath.c): the keyframes (F2, --camera-path) and
 * their playback (F3). */
#define APP_CAMPATH_GAP_S 3.0 /* F2: seconds on the path after the last keyframe */

typedef struct app_campath {
    io_campath path;
    bool playing;
    bool started;     /* the playing path has drawn its first frame */
    bool from_cli;    /* --camera-path: played from frame 0 */
    double wall;      /* path seconds gone by the clock (the window, not recording) */
    long frames;      /* frames played frame by frame (headless, or recording) */
    double last_now;  /* base_now() at the last frame played */
    double t;         /* the path's time on screen, seconds from its first keyframe */
    int key;          /* the keyframe last passed, 0-based */
    char hud[128];    /* the HUD's line while it plays, or "" */
} app_campath;
/* The density view (app_density.c): --view density, N, Shift+N, Y, Ctrl+Y. */
typedef struct app_density {
    bool on;              /* N: the surface density map instead of the sprites */
    int filter;           /* Shift+N: which bodies (app_density.c's filter table) */
    bool manual;          /* the range's upper end is set (Y, --density-max), not the map's */
    double hi;            /* the upper end set, model units (manual) */
    render_stretch stretch;
    ui_density shown;     /* the last map's range and labels, for the colour bar */
    char label[64];       /* its bodies in words (shown.bodies points here) */
    float *map;           /* width x height, model units */
    size_t map_pixels;
    float *vertices;      /* the CPU backend's host copy of the positions */
    int vertex_capacity;
    float *mass; /* per drawn body (times the draw stride), kept for a generation */
    uint8_t *tags;
    int bodies;           /* drawn bodies they are of */
    uint32_t generation;  /* of the masses and tags held; 0 with bodies 0: none */
    uint32_t present;     /* bit t: some body has tag t */
    density_gpu *gpu;     /* the CUDA backend's map */
    render_colormap *colormap;
} app_density;

/* Colour by a quantity (app_colour.c): C's modes after component. */
typedef struct app_colour {
    float *raw;          /* per body: the quantity, model units; NaN: none */
    float *values;       /* per body: its place in the palette, 0..1 (interop.values) */
    float *vertices;     /* positions, x, y, z, speed (density) */
    sim_body *bodies;    /* positions, velocities, masses, tags (radial velocity, density) */
    uint8_t *tags;       /* per body, for the range's bodies drawn (of tags_n, _generation) */
    int tags_n;
    uint32_t tags_generation;
    int capacity;        /* bodies the arrays hold */
    bool have_potential; /* raw holds the potentials of potential_steps, _generation */
    int64_t potential_steps;
    uint32_t potential_generation;
    double potential_at; /* base_now() when they were computed */
    /* The values last computed (density, radial velocity): kept for frames
     * while their cost would exceed COLOUR_DUTY (app_colour.c) of the wall
     * time. */
    render_color values_mode;
    int values_n;
    uint32_t values_generation;
    bool values_hide;              /* whether the halo was hidden (the range's bodies) */
    double values_at, values_cost; /* base_now() when computed; seconds it took */
    ui_quantity shown;             /* for the legend */
    /* The CUDA backend's density and radial velocity, taken on the GPU: its
     * buffers, and the bodies whose masses and tags it holds. */
    density_gpu *gpu;
    int gpu_bodies;
    uint32_t gpu_generation;
} app_colour;

/* The lecture mode (app_lecture.c, --lecture): the ladder one rung per
 * key press, then a summary step. */
#define APP_LECTURE_CAPTION 384
typedef struct app_lecture {
    bool on;
    int step;                        /* 0 .. rung_count - 1: a rung; rung_count: the summary */
    int rung_count;                  /* the rungs on this backend, naive (reference) to the tree */
    sim_variant rungs[UI_RUNGS_MAX]; /* in ladder order */
    char caption[APP_LECTURE_CAPTION]; /* the step's name and why, on screen */
    int fb_width, fb_height;         /* the last frame's picture (the layout in the status) */
} app_lecture;

/* The roofline view's device numbers (app_roof.c): read once, on the
 * first frame that asks. */
typedef struct app_roof {
    bool read;           /* asked already */
    bool gpu_known, cpu_known;
    sim_device_info gpu; /* the CUDA backend's device */
    sim_cpu_info cpu;    /* the CPU backend's */
} app_roof;

/* Which bodies are drawn (app_drawn.c). */
typedef struct app_drawn {
    int n;          /* the N it was planned for; 0: not yet */
    long long room; /* bodies the first GPU has room to draw; 0: not asked (the CPU) */
    bool by_room;   /* that room set the stride, not --draw-max */
    char line[160]; /* the HUD's line about a sample; "" when every body is drawn */
} app_drawn;

/* The whole running application, made by app_create. GLFW callbacks reach
 * it through the window user pointer. */
typedef struct app {
    config cfg;                     /* what the command line said: not written after app_create */
    char data_dir[PATH_MAX];        /* holds shaders/ and assets/ */
    char shader_dir[PATH_MAX + 16]; /* data_dir/shaders */
    sim *sim;
    render *render;      /* NULL until app_gl_begin */
    int scene;           /* the scene on screen (config's scene table) */
    sim_desc scene_desc; /* the desc that built it (its orbit and galaxy parameters) */
    app_view view;
    app_frontend fe;
    app_live live;
    app_requests req;
    app_script script;
    app_snapshot snapshot;
    app_playback playback;
    app_ladder ladder;
    app_frontier frontier;
    app_sprites sprites;
    app_profile prof;
    app_select select;
    app_campath campath;
    base_msg msg; /* the HUD's message line */
    ui_state ui;
    interop interop;
    io_recorder rec;
    io_status status;
    app_density density;
    app_colour colour;
    app_lecture lecture;
    app_drawn drawn;

    app_roof roof;
} app;

/* ---- app_create.c, app_frame.c: the life of an app, and one frame --------- */

/* Makes the app for cfg: loads --script and --load, creates the simulation
 * (and prints the backend line on the CPU backend). NULL with the message
 * printed and *status the exit status: 2 for a bad command line found
 * before anything ran (--script, --camera-path, --gpus with no CUDA
 * device, NBODY_TEST_RUNAWAY), else 1. */
app *app_create(const config *cfg, int *status);
/* Makes the renderer and the overlays in the current GL context, and
 * resolves the interop path. offscreen: draw into an offscreen framebuffer
 * of the configured size. false: message printed. */
bool app_gl_begin(app *a, bool offscreen);
/* Ends a running recording and frees the GL objects (the context must be
 * current). Called by app_destroy when the front-end has not. */
void app_gl_end(app *a);
void app_destroy(app *a);
/* One frame: scripted keys, steps (unless paused), diagnostics, vertices to
 * the GL buffer, the scene, the overlays, F12 and --status-every. */
void app_frame(app *a, int fb_width, int fb_height);
/* The frame's steps (unless paused): one call of sim_step, or, when the
 * last measured step time says the frame's steps take longer than
 * fe.poll_ms and there is a fe.poll, one step at a time with fe.poll
 * between them, stopping early when the input quits, pauses or re-seeds. */
void app_step_frame(app *a);
/* Writes --screenshot, --dump and --status-json; false when one failed. */
bool app_finish(app *a, int fb_width, int fb_height);
/* sim's stop hook (sim_stop, ctx: the app): true once the run is to stop
 * (Esc, the close button, SIGINT or SIGTERM); polls fe.poll_stop at most
 * every APP_STOP_POLL_S. */
bool app_stop_requested(void *ctx);
/* The run is to stop: no new steps or O(N^2) samples are started. */
bool app_stopping(const app *a);
/* At start-up on the CPU backend: estimates the first step and energy
 * sample from a pilot (app_ladder_estimate), warns on stderr when one would
 * take longer than APP_STEP_MS_MAX, and keeps them for the first frame. */
void app_first_estimate(app *a);
/* The window's first frame before a slow first step: the bodies and the
 * HUD, with the estimate on the message line; nothing steps or samples. */
void app_first_frame(app *a, int fb_width, int fb_height);

/* ---- app_window.c, app_headless.c: the front-ends ------------------------ */

/* Each returns the process exit code and destroys nothing it did not make. */
int app_window_run(app *a);
int app_headless_run(app *a);
/* An EGL context on the GPU (or whatever EGL offers) for offscreen work:
 * the headless front-end and --benchmark --frame. */
typedef struct app_egl app_egl;
app_egl *app_egl_open(int cuda_device);
void app_egl_close(app_egl *e);

/* ---- app_keys.c: the key table ------------------------------------------- */

/* Handles one key press (key: GLFW_KEY_*, mods: GLFW_MOD_*), from the window
 * or from --script. */
void app_key(app *a, int key, int mods);
/* Help lines: fills *label and *text for binding i; false past the end. */
bool app_key_help(int i, char *label, size_t label_len, char *text, size_t text_len);
/* The keys, for nbody --help, and as a Markdown table (--help-markdown). */
void app_keys_usage(FILE *f);
void app_keys_markdown(FILE *f);

/* ---- app_camera.c: orbit, pan, zoom, fit (F), follow (G) ----------------- */

void app_orbit(app *a, double dx, double dy);
void app_pan(app *a, double dx, double dy, int fb_height);
void app_zoom(app *a, double steps);
void app_fit_view(app *a);
void app_follow(app *a);
#define APP_ORBIT_STEP_DEG 5.0 /* an arrow key; Shift: APP_ORBIT_FINE_DEG */
#define APP_ORBIT_FINE_DEG 1.0
void app_orbit_degrees(app *a, double yaw_deg, double pitch_deg);
/* Back to the scene's camera (Home); the rest of the look stays. */
void app_camera_home(app *a);

/* ---- app_campath.c: camera paths ----------------------------------------- */

/* The camera a path puts on screen: double precision, angles in radians. */
typedef struct app_campath_pose {
    double target[3], distance, yaw, pitch, fov_y;
    int key; /* the keyframe last passed, 0-based */
} app_campath_pose;

/* The pure maths (no app): a keyframe's orientation as a unit quaternion
 * (w, x, y, z) that turns +x into the direction from the target to the
 * eye and +z into the camera's up (render_camera's yaw and pitch, no
 * roll); slerp from a (u 0) to b (u 1), the short way, u outside [0, 1]
 * extrapolating; the unit vector q turns +x into. */
void app_quat_from_angles(double yaw, double pitch, double q[4]);
void app_quat_slerp(const double a[4], const double b[4], double u, double out[4]);
void app_quat_eye_dir(const double q[4], double dir[3]);
/* Where the anchors' centres are now (length units; world is the origin
 * whatever at[IO_CAMPATH_WORLD] says). */
typedef struct app_campath_centres {
    double at[IO_CAMPATH_ANCHOR_COUNT][3];
} app_campath_centres;
/* The pose of path p at time t (seconds, the keyframes' own clock: t of
 * keyframe 0 is its time) with the anchors' centres c. Before the first and
 * after the last keyframe: that keyframe. p->count > 0. */
void app_campath_eval(const io_campath *p, const app_campath_centres *c, double t,
                      app_campath_pose *out);

/* --camera-path, in app_create: reads the file and plays it from frame 0;
 * false with the message printed (exit 2). */
bool app_campath_open(app *a);
/* In app_frame after the follow: while a path plays, its time moves on (a
 * frame at --record-fps headless or while recording, else the clock) and
 * the camera goes where it says; at its end the camera stays there. */
void app_campath_frame(app *a);
/* F2 (dir +1: a keyframe at the camera, following what G follows while G is
 * on; -1: the last one taken back), F3 (play / stop), F4 (save). */
void app_campath_drop(app *a, int dir);
void app_campath_play(app *a);
void app_campath_save(app *a);
/* Frames a headless run draws: --frames, else the whole --camera-path,
 * else CONFIG_HEADLESS_FRAMES. */
int app_campath_run_frames(const app *a);
/* The HUD's line while a path plays, or "". */
const char *app_campath_line(const app *a);
/* The status line's "camera" and "camera_path" fields (", ..."). */
void app_campath_json(const app *a, char *out, size_t len);

/* ---- app_scene.c: the scene on screen ------------------------------------ */

/* The scene's view: sprite size, colours, exposure, camera. */
void app_scene_view(app *a, int scene);
/* Sprite brightness for the bodies drawn (sim_params.drawn) and the scene
 * (+ and - keep the rest). */
void app_scene_brightness(app *a);
/* Switches scene live (keys 1-7). */
void app_scene_switch(app *a, int scene);
/* Re-seeds with ic, n bodies and seed; keeps the old state when n does not fit. */
void app_reseed(app *a, sim_ic ic, int n, uint64_t seed);

/* ---- app_live.c: the loop's numbers -------------------------------------- */

/* Forget the energy reference and the blow-up flag: the physics changed. */
void app_physics_changed(app *a);
/* The frame rate, at the start of each frame. */
void app_live_frame_start(app *a);
/* Whether this frame samples the energy from the force pass's potentials,
 * and so whether its steps return them (sim_set_step_potentials): before
 * the frame's steps. */
void app_live_plan_sample(app *a);
/* Whether a frame starting at now samples, the last that did having
 * started at last (have: there is one): APP_SAMPLE_HZ at most. */
bool app_sample_due(bool have, double last, double now);
/* Energy, momenta and the virial ratio: where the force pass gives the
 * potentials, on the frames app_live_plan_sample chose (collecting what
 * app_live_queue_sample queued), else every APP_DIAG_EVERY frames, within
 * their share of the time. */
void app_live_sample(app *a);
/* Where the force pass gives the potentials (the GPU tree), queues the
 * frame's sample behind its steps, for app_live_sample to collect after
 * the upload has waited for them: no wait of its own. */
void app_live_queue_sample(app *a);
/* The integrator's own non-finite check, after the frame's wait for the GPU. */
void app_live_check_nonfinite(app *a);
/* The force error: stale when the method or theta changed; measured again
 * every APP_FERR_EVERY seconds while an approximate method runs. */
void app_live_force_error(app *a);
/* Measures the running method's force error on APP_FERR_SAMPLES bodies now (X). */
void app_measure_force_error(app *a);
/* A step's time at n_to bodies from ms_from at n_from, as a method of this
 * scaling grows (N^2, N log N); N below 2 counts as 2. */
double app_step_ms_at(sim_scaling scaling, int n_from, double ms_from, int n_to);
/* (E - E0) / |E0| of the last sample (0 where E0 is 0 or unknown). */
double app_energy_error(const app *a);
/* Frame-rate-independent numbers the HUD and the status share. */
double app_interactions_per_s(const app *a);
double app_flops_per_interaction(const app *a);
/* The running force method's name (sim_method.name). */
const char *app_method_name(const app *a);

/* ---- app_knobs.c: the knobs' keys and live values ------------------------- */

/* The key of knob k: dir +1 (the key) or -1 (Shift+key). */
void app_knob_key(app *a, config_knob k, int dir);
/* The live value of k as JSON (a number or a quoted name) into out. */
void app_knob_json(const app *a, config_knob k, char *out, size_t len);
/* The + key's guard: a doubling of N is refused when the memory a step of
 * the new N needs exceeds what is free, or when its step would take longer
 * than APP_STEP_MS_MAX on this backend. */
typedef struct app_grow {
    sim_memory mem;      /* sim_memory_estimate plus interop_memory */
    double step_ms_from; /* measured per step at n_from bodies (app_ladder_estimate); 0: none */
    int n_from;
    double step_ms; /* estimated at the new N: x (n/n_from)^2, tree x n log n; 0: unknown */
} app_grow;
app_grow app_grow_estimate(app *a, int n);
/* true (why filled) when growing to n bodies with estimate g is refused. */
bool app_grow_refused(const app_grow *g, int n, char *why, size_t len);

/* ---- app_ladder.c: the ladder chart's timing ----------------------------- */

/* Every frame: records the running method's step time; while the chart is
 * shown, times one rung that has no result at this N (on a copy of the
 * bodies; the running simulation is not touched). */
void app_ladder_update(app *a);
/* The rungs on this backend, in ladder order, with their results at the
 * current N, into a->ladder.rows; returns how many. */
int app_ladder_rows(app *a);
/* The result of rung v at n bodies, or NULL. */
const app_rung_result *app_ladder_result(const app *a, sim_variant v, int n);
/* One unit of the ladder's work toward rung v's step time at this N (as the
 * chart does it: a pilot on a subset first, an estimate where too slow);
 * its result at this N, or NULL while there is none yet (also used by
 * app_frontier.c). */
const app_rung_result *app_ladder_measure(app *a, sim_variant v);
/* The step time in ms of the running method at n bodies here: from its
 * result nearest to n (the running simulation's own steps, or the chart's
 * timings), else from a pilot timed now on min(n, APP_PILOT_N) bodies of
 * the scene's initial condition. The N and time it came from go to *n_from
 * and *ms_from. 0 when it could not be
 * timed (no memory, or stopped). */
#define APP_PILOT_N 4096
double app_ladder_estimate(app *a, int n, int *n_from, double *ms_from);
/* The time in ms of an energy sample (sim_diagnostics) at n bodies here,
 * timed now on a pilot of min(n, APP_PILOT_N) bodies and grown as N^2 (its
 * exact potential sums every pair); 0 when it could not be timed. */
double app_ladder_energy_estimate(app *a, int n);

/* ---- app_sprites.c: who draws the sprites -------------------------------- */

/* The trial of CUDA's sprites (way A) against GL's (way B): a few frames
 * each way; GL must be a few per cent faster to be chosen (the same picture
 * for less GPU work); again when the signature changes and every 20 s. A
 * trial costs what GL's frames lose where CUDA's are faster: a few frames. */
extern const base_trial_desc APP_SPRITES_TRIAL;

/* Whether CUDA draws this frame's sprites (the mode, and in auto mode the
 * trial or its verdict); false where CUDA cannot. */
bool app_sprites_cuda(app *a, int fb_width, int fb_height);
/* At the end of every frame: times the trial. */
void app_sprites_frame_end(app *a);
/* A new mode (auto: a new trial). */
void app_sprites_set_mode(app *a, config_sprites m);
/* What a frame does, as far as its time goes: a change starts a new trial. */
uint64_t app_sprites_signature(int n, sim_variant v, int steps_per_frame, int fb_width,
                               int fb_height, bool hud, bool bloom, bool paused);

/* ---- app_snapshot.c: snapshots on screen ---------------------------------- */

/* --load, in app_create: reads the file (or the series' first) and picks
 * the scene and knobs for it in *desc (before sim_create), then puts its
 * bodies in the simulation and fits the view (after). false with a message
 * printed. */
bool app_snapshot_open(app *a, bool cpu, sim_desc *desc);
bool app_snapshot_start(app *a);
/* In app_frame, before the steps: loads the file due and returns true when
 * a series plays (then nothing is stepped); else writes --snapshot-every's
 * file when one is due and returns false. */
bool app_snapshot_frame(app *a);
/* Playback keys: Space, '.', ',', '[' and ']' (dir: files to move; 0 play /
 * pause), each saying what it did (app_playback_key). false when no series
 * is loaded. */
bool app_snapshot_playback_key(app *a, int dir);
/* Whether a series is loaded (playing or paused): the keys that change the
 * simulation are refused then (app_keys.c). */
bool app_snapshot_playback(const app *a);
/* Enter: leaves the playback and simulates from the snapshot on screen
 * (its own knobs if it is our save); says so. */
void app_snapshot_leave_playback(app *a);
void app_snapshot_save(app *a);   /* F5 */
void app_snapshot_reload(app *a); /* F9 */
/* --dump to a .tipsy, .hdf5 or .h5 path; false when path is none of those.
 * *ok: written. With --snapshot-every, the series' last file when it is
 * due. */
bool app_snapshot_dump(app *a, const char *path, bool *ok);
/* The simulated time and steps shown: the file's own plus the steps since,
 * while its bodies are on screen; the simulation's otherwise. */
double app_snapshot_time(const app *a);
int64_t app_snapshot_steps(const app *a);
/* The HUD's title: a foreign file's name while its bodies are on screen,
 * else the scene's. */
const char *app_snapshot_title(app *a);
/* The HUD's snapshot line (the file on screen, the last save), or "". */
const char *app_snapshot_line(app *a);
/* What the HUD shows of a series playing. */
ui_playback app_snapshot_playback_facts(const app *a);
/* The "snapshot" and "playback" fields of a status line (", ..."). */
void app_snapshot_json(const app *a, char *out, size_t len);
void app_snapshot_destroy(app *a);

/* ---- app_select.c: selections that follow bodies ------------------------- */

/* Z / Shift+Z (next / previous set), F7 / Shift+F7 (select by the next
 * property / the histogram's next quantity), F8 (clear): true when key was
 * one of them. */
bool app_select_key(app *a, int key, int mods);
/* A selection from --script or the mouse (box and sphere: fractions of the
 * window's picture). Box and sphere wait for the next app_select_frame
 * (they need its view); the others are done at once. */
void app_select_request(app *a, const io_select *sel);
/* Ctrl+left drag (x0, y0 to x1, y1) and Ctrl+right click (x, y): window
 * units of a window w x h. */
void app_select_box(app *a, double x0, double y0, double x1, double y1, int w, int h);
void app_select_sphere(app *a, double x, double y, int w, int h);
/* Each frame, with the window's view: bodies re-seeded (the sets cleared)
 * or loaded (kept by identity), the waiting selections, the renderer's
 * tags (*tags: the simulation's new tags, widened, or NULL; made here when
 * the sets' colours change, the caller uploads them to GL and frees them),
 * and the panel's figures when due. */
void app_select_frame(app *a, const render_view *window, uint16_t **tags);
/* The drawn bodies' 8-bit tags (sim_params.drawn; drawn body j is body
 * j * draw_stride) widened to the renderer's 16 bits (no selection bits),
 * malloc'd; NULL without memory. */
uint16_t *app_select_sim_tags(app *a);
/* Carries the sets over to new bodies by identity: old_ids / new_ids the
 * IDs of the old and new bodies (NULL, or IDs that are not unique: index
 * order, the file's order); a body whose identity is not among the new
 * ones leaves its sets. false without memory: the sets are then as before,
 * or cleared when the match by ID ran short. */
bool app_select_remap(app_select *s, const uint64_t *old_ids, const uint64_t *new_ids, int new_n);
/* Measures every set now (count, mass, centre, histogram) from the bodies. */
void app_select_measure(app *a);
/* What the panel shows. */
ui_select app_select_facts(app *a);
/* The "view" and "selection" fields of a status line, measured fresh. */
void app_select_status(app *a);
void app_select_destroy(app *a);
/* ---- app_interp.c: the bodies between two snapshots (pure functions) ------ */

/* One snapshot of the pair: bodies, time, IDs (NULL: file order) and their
 * sorted index (io_snapshot.by_id; NULL: match by file order). */
typedef struct app_interp_snap {
    const sim_body *bodies;
    int count;
    double time;
    const uint64_t *ids;
    const int *by_id;
} app_interp_snap;
const char *app_interp_mode_name(app_interp_mode m);
/* Matches the bodies of a and b: by ID where both have a sorted index, else
 * by file order. false when memory is short. */
bool app_interp_match_make(const app_interp_snap *a, const app_interp_snap *b,
                           app_interp_match *m);
void app_interp_match_free(app_interp_match *m);
/* The bodies app_interp_bodies writes: a's, then those only b has. */
int app_interp_count(const app_interp_snap *a, const app_interp_match *m);
/* The bodies at fraction u (0: a, 1: b) into out[app_interp_count] and their
 * IDs into ids_out (NULL: not wanted). APP_INTERP_HERMITE needs b->time >
 * a->time in the velocities' time unit (else it is linear); a body in one
 * snapshot only fades (tag's fade level) and drifts on its own velocity. */
void app_interp_bodies(const app_interp_snap *a, const app_interp_snap *b,
                       const app_interp_match *m, app_interp_mode mode, double u, sim_body *out,
                       uint64_t *ids_out);
/* tag with its fade level set for brightness (0 to 1), and back. */
unsigned app_interp_fade_tag(unsigned tag, double brightness);
double app_interp_brightness(unsigned tag);

/* ---- app_playback.c: a series played smoothly ----------------------------- */

/* Starts the read-ahead thread and the play state for a->snapshot.series.
 * false (message printed) when the thread cannot be started. */
bool app_playback_start(app *a);
/* Every frame while a series is loaded: advances the play time (playing:
 * speed x the frame's wall time; headless or recording: speed / the video's
 * frame rate, so a recording is smooth and the same every run), takes the
 * files read ahead, and puts the bodies at the play time into the
 * simulation. */
void app_playback_frame(app *a);
/* Space (dir 0), . , ] [ (files to move): the play position; true when a
 * series is loaded. */
bool app_playback_key(app *a, int dir);
void app_playback_speed_key(app *a, int dir); /* 9 (-1), 0 (+1) */
void app_playback_mode_key(app *a);           /* Backslash */
/* The IDs of the bodies on screen while a series plays, in body order (the
 * file index where a file has no IDs); NULL otherwise or when the bodies
 * are no longer those the playback put there. */
const uint64_t *app_playback_ids(const app *a, int *count);
/* Puts the nearest file on screen as it is (Enter leaves the playback from it). */
void app_playback_settle(app *a);
void app_playback_destroy(app *a);

/* ---- app_status.c, app_ui.c, app_profile.c -------------------------------- */

/* Appends the live state as one JSON line to the status (--status-json);
 * at_exit marks the line written as the run ends. */
void app_status_line(app *a, bool at_exit);
/* What the overlays are told now (all but key_help, the key table's). */
void app_ui_facts(app *a, ui_facts *f);
/* --profile: adds the time since the last mark to phase p; starts over;
 * prints the table (waits for the GPU's last timings). */
void app_profile_mark(app *a, app_phase p);
void app_profile_reset(app *a);
void app_profile_print(app *a);

/* ---- app_drawn.c: which bodies are drawn --------------------------------- */

/* Sets the simulation's draw stride for its N (sim_set_draw_stride): 1
 * unless the first GPU has no room to draw every body or --draw-max asks
 * for fewer. Does nothing while N stays what it was planned for. Called
 * before a frame draws (after the interop path is known). */
void app_drawn_plan(app *a);
/* How many of n bodies app_drawn_plan would draw once the simulation holds
 * them, m being sim_memory_estimate's for n: for the + key's guard, which
 * charges the drawing for those alone. */
int app_drawn_estimate(app *a, int n, const sim_memory *m);

/* ---- app_density.c: the density view ------------------------------------ */

/* From the command line (--view, --density-max, --density-stretch). */
void app_density_init(app *a);
/* Draws the scene as the density map of the n drawn bodies (sim_params.drawn)
 * with view (the window's or a video's own size) instead of render_frame,
 * and puts its colour bar in *facts;
 * false when the density view is off or could not be drawn (then the
 * caller draws the sprites; a failure is said on the message line). */
bool app_density_draw(app *a, const render_view *view, ui_facts *facts, int n);
/* The auto range's upper end for a map of pixels floats: the
 * APP_DENSITY_TOP_PERCENTILE-th percentile of its positive pixels, so a
 * few pixels (a body close to the camera, one heavy body) do not push the
 * rest down the palette; 1 when no pixel is positive. */
#define APP_DENSITY_TOP_PERCENTILE 99.9
double app_density_auto_top(const float *map, size_t pixels);
/* The tags (bit t: tag t) that filter k (Shift+N's list, 0: all bodies)
 * maps; filter 0 leaves the halo out while it is hidden (O), as the
 * sprites do. */
uint32_t app_density_filter_tags(int k, bool hide_halo);
/* N, Shift+N, Y, Shift+Y, Ctrl+Y; false for any other key. */
bool app_density_key(app *a, int key, int mods);
/* The colour bar's units for a scene: "M_sun/kpc²" (factor 1e10 / 1²,
 * SIM_GALAXY_*) for galaxy units, else model units (factor 1). */
const char *app_density_units(bool galactic, double *factor);
/* Frees the GL objects (the context current) and the buffers. */
void app_density_destroy(app *a);

/* ---- app_colour.c: colour by a quantity ---------------------------------- */

/* For a colour mode of a quantity (RENDER_COLOR_DENSITY, _RADIAL,
 * _POTENTIAL): each body's value and its place in the auto range, handed to
 * the vertex upload (interop.values) and the legend (colour.shown); for the
 * other modes nothing is. view: the window's (density is of its projection).
 * A failure (out of memory) is posted on the message line and the sprites
 * keep their speed. */
void app_colour_frame(app *a, const render_view *view);
void app_colour_destroy(app *a);
/* The quantity of mode m into out[n] (model units; NaN where a body has
 * none), from bodies b[n] and, for density, vertices (n x {x, y, z, speed})
 * seen through dv. Potential is not computed here (sim_get_potentials).
 * false when out of memory. */
bool app_colour_quantity(render_color m, const sim_body *b, const float *vertices, int n,
                         const density_view *dv, float *out);
/* Radial velocity (v - v_c) . (x - x_c) / |x - x_c| of each body about the
 * centre of mass x_c and bulk velocity v_c of its galaxy (the tag's galaxy
 * bits; a scene of one galaxy: all bodies), into out[n]; 0 at x_c itself. */
void app_colour_radial(const sim_body *b, int n, float *out);
/* Which values a range ranks: value j is body j * stride's, counted when
 * its tag tags[j * stride] is in `mask` (bit t: tag t; the bodies drawn,
 * app_density_filter_tags(0, hide_halo)). */
typedef struct app_colour_drawn {
    const uint8_t *tags;
    int stride;
    uint32_t mask;
} app_colour_drawn;
/* The auto range of mode m over raw[n]: the 1st and 99th percentiles of the
 * finite values of the bodies drawn (drawn NULL: all; density: of the
 * positive ones; radial velocity: symmetric about 0, so 0 is the
 * palette's middle). false when there is no value. */
bool app_colour_range(render_color m, const float *raw, int n, const app_colour_drawn *drawn,
                      double *lo, double *hi);
/* Where v falls in [lo, hi], 0..1 (density: by log); NaN goes to 0. */
float app_colour_place(render_color m, double lo, double hi, float v);
/* The quantity's units for a scene (galactic: SIM_GALAXY_*) with the
 * factor from model units to them (its name: render_color_name). */
const char *app_colour_units(render_color m, bool galactic, double *factor);

/* ---- app_copy.c, app_frontier.c: temporary sims, the tree's frontier ------ */

/* A temporary simulation (app_copy_sim): method variant with the running
 * desc and knobs, theta and tree_alpha as given (0: the running sim's;
 * tree_alpha negative: off), seeded with bodies[count] (NULL: count bodies
 * of the scene's initial condition). */
typedef struct app_copy_desc {
    sim_variant variant;
    const sim_body *bodies;
    int count;
    double theta, tree_alpha;
} app_copy_desc;
/* Makes it, asking the app's stop hook during long evaluations; the running
 * simulation is only read. NULL with *err. */
sim *app_copy_sim(app *a, const app_copy_desc *c, sim_error *err);
/* Starts a sweep on a copy of the current bodies (and shows the view), or
 * stops the one under way (the points so far stay). */
void app_frontier_start(app *a);
void app_frontier_stop(app *a);
/* Shift+X: starts a sweep; while one runs, stops it; once stopped or done,
 * closes the view. false for any other key. */
bool app_frontier_key(app *a, int key, int mods);
/* Each frame: one point (or one unit of the exact kernel's timing) while a
 * sweep runs, unless the run is to stop; then the view's facts into *f. */
void app_frontier_frame(app *a, ui_facts *f);
/* The status line's "frontier" field (", \"frontier\": ..."). */
void app_frontier_json(const app *a, char *out, size_t len);
void app_frontier_destroy(app *a);

/* ---- app_lecture.c: the lecture mode (--lecture) ------------------------- */

/* In app_create, before the simulation is made: with --lecture, where
 * --variant is not given the first rung of this backend's ladder, and where
 * --n is not given the lecture's N, CONFIG_LECTURE_N_GPU or _CPU, into
 * *resolved. */
void app_lecture_config(config *resolved, bool cpu);
/* After it is made: the chart and the code panel shown, the first step's
 * caption; nothing without --lecture. */
void app_lecture_start(app *a);
/* The clicker's keys in lecture mode: Page Down, Right and Space go to the
 * next step, Page Up and Left to the previous one, whatever the modifiers.
 * true when key was one of them (then it means nothing else); always false
 * outside lecture mode. */
bool app_lecture_key(app *a, int key);
/* Goes to step k (clamped to the first and the summary): its method, its
 * panels and its caption. */
void app_lecture_go(app *a, int k);
/* Every frame, before the overlays' facts: the picture's size (for the
 * layout in the status), and the step of the running method where another
 * key (K) changed it. */
void app_lecture_frame(app *a, int fb_width, int fb_height);
/* What the overlays are told; the caption shown (the lecture's in lecture
 * mode, else a --script tour's). */
ui_lecture app_lecture_facts(const app *a);
const char *app_lecture_caption(const app *a);
/* The status line's "lecture" field (", \"lecture\": {...}" or null), its
 * layout from the overlays' facts f (app_ui_facts). */
void app_lecture_json(const app *a, const ui_facts *f, char *out, size_t len);

/* ---- app_roof.c: the ladder chart's ceilings view ----------------------- */

/* The device numbers the roofline view needs for the running backend (the
 * CUDA device's attributes, or the CPU's from /proc): read on the first
 * call, then kept. */
ui_roof app_roof_facts(app *a);

#endif /* NBODY_APP_H */
