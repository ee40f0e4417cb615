/* config.h - what the command line says: the knob table, the options, the
 * scene table, and the parser that turns argv into a config.
 *
 * A config is made once, at start-up, and not written after it: the live
 * state (the scene on screen, N, the kernel, steps per frame) belongs to
 * the app (app.h), which starts from it. This part parses and checks
 * syntax and combinations; whether files are readable and writable is
 * io's check (io_check_config), made after parsing.
 *
 * Rules: config/ uses sim/ (knob ranges, names, scene descs) and base/;
 * nothing else of app/. The knobs' keys are GLFW key codes (the table
 * names them; app_keys.c dispatches them).
 */
#ifndef NBODY_CONFIG_H
#define NBODY_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "render.h"
#include "sim.h"

/* A comma-separated list on the command line (--n 16384,65536). For p and
 * q, 0 stands for "auto". */
#define CONFIG_LIST_MAX 16
typedef struct config_list {
    int count;
    int values[CONFIG_LIST_MAX];
} config_list;

/* A list of real numbers (--theta 0.3,0.5,0.7 with --benchmark). */
typedef struct config_real_list {
    int count;
    double values[CONFIG_LIST_MAX];
} config_real_list;

/* The knobs (config_knobs.c): everything that shapes the simulation, each
 * defined once with its flag, key, default, help and range. */
typedef enum config_knob {
    CONFIG_KNOB_N,
    CONFIG_KNOB_SCENE, /* --preset */
    CONFIG_KNOB_IC,
    CONFIG_KNOB_SEED,
    CONFIG_KNOB_DT,
    CONFIG_KNOB_SOFTENING,
    CONFIG_KNOB_DAMPING,
    CONFIG_KNOB_THETA,
    CONFIG_KNOB_TREE_ALPHA,
    CONFIG_KNOB_BACKEND,
    CONFIG_KNOB_GPUS,
    CONFIG_KNOB_VARIANT,
    CONFIG_KNOB_P,
    CONFIG_KNOB_Q,
    CONFIG_KNOB_STEPS_PER_FRAME,
    CONFIG_KNOB_MASS_RATIO,
    CONFIG_KNOB_PERICENTER,
    CONFIG_KNOB_SEPARATION,
    CONFIG_KNOB_ECCENTRICITY,
    CONFIG_KNOB_INCL1,
    CONFIG_KNOB_INCL2,
    CONFIG_KNOB_RETROGRADE,
    CONFIG_KNOB_DISK_TEMPERATURE,
    CONFIG_KNOB_COUNT
} config_knob;

typedef struct config_knob_info {
    const char *name;              /* the flag without "--", and the status JSON key */
    const char *metavar;           /* NULL: a switch */
    const char *def;               /* the default as --help shows it */
    const char *help;              /* one line */
    int key;                       /* GLFW key that steps it up (Shift: down); 0: none */
    const char *key_up, *key_down; /* what the key and Shift+key do, for the help */
    bool list;                     /* takes a list with --benchmark */
    const char *range_text;        /* the range, where sim/ has none for it; NULL: none */
} config_knob_info;

const config_knob_info *config_knob_get(config_knob k);
/* The range sim/ checks knob k's values against; SIM_KNOB_COUNT: none. */
sim_knob config_knob_range(config_knob k);
/* Finds a knob by flag name (len characters of name); CONFIG_KNOB_COUNT if none. */
config_knob config_knob_find(const char *name, size_t len);

/* Who draws the sprites (--sprites, U). */
typedef enum config_sprites {
    CONFIG_SPRITES_AUTO = 0, /* measured: a trial of both, the faster kept */
    CONFIG_SPRITES_CUDA,     /* CUDA wherever it can (the zero-copy path) */
    CONFIG_SPRITES_GL,
    CONFIG_SPRITES_COUNT
} config_sprites;
const char *config_sprites_name(config_sprites m); /* "auto", "cuda", "gl" */
bool config_sprites_parse(const char *s, config_sprites *out);

#define CONFIG_DEFAULT_WIDTH 1280
#define CONFIG_DEFAULT_HEIGHT 720
#define CONFIG_HEADLESS_FRAMES 60 /* --frames without a window, when not given */
/* A series' playback speed in snapshots per second: --play-speed's default
 * (its help says "1") and range; 9 and 0 keep it in the range. */
/* --lecture's N where --n is not given: on a GPU the DLI assessment's
 * larger N, where every rung runs at a frame rate a class can watch; on the
 * CPU backend one whose exact sum steps in a frame. Written as literals so
 * the help's text is made from them (CONFIG_TEXT). */
#define CONFIG_LECTURE_N_GPU 65536
#define CONFIG_LECTURE_N_CPU 2048
#define CONFIG_TEXT_(x) #x
#define CONFIG_TEXT(x) CONFIG_TEXT_(x)
#define CONFIG_PLAY_SPEED 1.0
#define CONFIG_PLAY_SPEED_MIN 0.001
#define CONFIG_PLAY_SPEED_MAX 1000.0

/* Everything the command line can say. given[k] records which knobs the
 * user set, so a value of zero is never mistaken for "not given". */
typedef struct config {
    sim_desc sim;                  /* physics knobs */
    bool given[CONFIG_KNOB_COUNT]; /* the knob's flag was on the command line */
    int steps_per_frame;           /* 0 -> the scene's */
    const char *preset;            /* --preset NAME, or NULL */
    bool retrograde;               /* --retrograde: both disks turned by 180 degrees */
    bool headless;                 /* EGL offscreen front-end instead of a window */
    int frames;                    /* stop after this many frames; 0 -> until closed
                                      (headless: CONFIG_HEADLESS_FRAMES) */
    const char *screenshot;        /* PNG of the last frame, or NULL */
    const char *dump;              /* CSV (or snapshot) of the bodies at exit, or NULL */
    int snapshot_every;            /* --snapshot-every K: --dump is a pattern, a file every K
                                      frames that step; 0: off */
    /* the density view (app/app_density.c) */
    bool density_view;   /* --view density */
    double density_max;  /* --density-max: the colour bar's upper end, its units; 0: auto */
    bool density_asinh;  /* --density-stretch asinh */
    int width, height;             /* window or image size in pixels (config_parse fills them) */
    bool host_copy;                /* force the host-copy path instead of CUDA-GL interop */
    int draw_max;                  /* --draw-max: bodies drawn at most; 0: what GPU 0 holds */
    bool no_spread;                /* --no-spread: every body on every GPU, whatever N
                                      (sim.spread: --spread asks for it; neither: auto) */
    config_sprites sprites;        /* --sprites */
    bool no_vsync;
    bool no_hud;             /* start with the HUD hidden (Tab shows it) */
    float hud_scale;         /* HUD size factor on top of the screen's content scale; 0 -> 1 */
    const char *script;      /* --script FILE: scripted key presses */
    const char *status_json; /* --status-json FILE */
    int status_every;        /* also every N frames, as JSON lines; 0 -> at exit only */
    /* --benchmark: every (variant, N, p, q) of these lists, no window. */
    bool benchmark;
    config_list n_list, p_list, q_list;
    config_list variant_list;    /* sim_variant values */
    const char *variant_cpu_name; /* a --variant the CPU backend alone has; NULL: none */
    config_real_list theta_list; /* tree opening angles; empty -> the sim's theta */
    int bench_steps;             /* steps per timed repeat; 0 -> enough for ~25 ms */
    const char *json;            /* benchmark results as JSON, or NULL */
    bool bench_frames;           /* --frame: also time whole headless frames */
    const char *plot;            /* --plot FILE.png: the benchmark table as a bar chart, or NULL */
    bool fullscreen;             /* --fullscreen: start fullscreen (F11 toggles) */
    /* Videos and PNG sequences (io_record.c); the size, HUD and rate also
     * apply to M's recordings. */
    const char *record;              /* --record FILE.mp4, or NULL */
    int record_fps;                  /* frames/s of the video; 0 -> 30 */
    double play_speed; /* --play-speed: a series' snapshots per second; 0 -> CONFIG_PLAY_SPEED */
    int record_width, record_height; /* --record-size (even); 0: the frame's own size */
    bool record_hud;                 /* the HUD in the video too */
    const char *frames_dir;          /* --frames-dir DIR: frame-000000.png ... instead, or NULL */
    const char *encode;              /* --encode DIR: its frame-*.png into --record, nothing else */
    const char *load; /* --load FILE, 'GLOB' or DIR: start from snapshot(s), or NULL */
    const char *camera_path; /* --camera-path FILE: keyframes flown from frame 0, or NULL */
    bool progress;    /* --progress: the headless progress line even into a file */
    bool profile;     /* --profile: at exit, where each frame's time went */
    bool lecture;     /* --lecture: the lecture mode (app/app_lecture.c) */
    /* Set by main, not the command line: the name io_claim_stdout gave the
     * output that goes to stdout ("/dev/fd/N"), or NULL. */
    const char *stdout_name;
} config;

/* What config_parse found. */
typedef enum config_result {
    CONFIG_RUN = 0,       /* run with *cfg */
    CONFIG_HELP,          /* --help: print config_usage (and the keys), exit 0 */
    CONFIG_HELP_MARKDOWN, /* --help-markdown: print config_markdown (and the keys), exit 0 */
    CONFIG_BAD,           /* a bad command line: the message is printed; exit 2 */
} config_result;

/* Parses argv into *cfg: every flag's syntax and range, and the
 * combinations single flags cannot check. Prints one line naming the flag
 * and the user's text plus a hint on failure. */
config_result config_parse(int argc, char **argv, config *cfg);
/* Whether --p or --q asks for a block shape (a value that is not auto). */
bool config_asks_block(const config *cfg);
/* The flags with their defaults: the knobs, then the options. */
void config_usage(FILE *f);
/* The same as Markdown tables, with the ranges (docs/REFERENCE.md). */
void config_markdown(FILE *f);

/* ---- the scenes (config_scenes.c): keys 1-7 and --preset ----------------- */

/* How a scene looks when it starts. */
typedef struct config_scene_look {
    float point_size;
    float exposure; /* 0: automatic */
    render_color color;
    bool hide_halo;
    render_camera camera; /* looking at the origin */
} config_scene_look;

int config_scene_count(void);
const char *config_scene_name(int i);
const char *config_scene_title(int i);
const char *config_scene_key_help(int i); /* its number key's line in the help */
int config_scene_find(const char *name);  /* -1 if unknown */
/* The scene a command line means: --preset, else the one for --ic. */
int config_scene_of(const config *cfg);
/* The desc that builds scene i on the CPU or GPU backend: the scene's own
 * N, dt, softening, orbit and (on a GPU) force method, with cfg's backend,
 * damping, theta, seed and galaxy structure (cfg may be NULL: defaults). At
 * start-up the command line's N, dt, softening, orbit and variant flags go
 * on top. */
sim_desc config_scene_desc(int i, const config *cfg, bool cpu, bool startup);
/* The GPUs for d's N and method (d->gpus, d->spread): --gpus, or auto
 * (sim_gpus_for where this build has NCCL and the method splits its
 * forces, else 1); the tree's bodies spread where --spread asks or, unless
 * --no-spread, where sim_spread_for finds it faster, and spread bodies
 * take every GPU under auto, whose memories together hold what fewer
 * cannot. On the CPU backend cfg's own values. */
void config_gpus(const config *cfg, bool cpu, sim_desc *d);
/* config_gpus on a GPU backend with `devices` GPUs visible, nccl: this
 * build can join them (sim_multi_gpu_support). */
void config_gpus_on(const config *cfg, int devices, bool nccl, sim_desc *d);
/* Steps per frame of scene i on this backend with force method v. */
int config_scene_steps(int i, bool cpu, sim_variant v);
config_scene_look config_scene_look_of(int i);
/* Sprite brightness for n bodies of initial condition ic: a body's falls as
 * 1 / sqrt(N) (at most 1), so a large N does not white the picture out. */
float config_scene_brightness(int n, sim_ic ic);

#endif /* NBODY_CONFIG_H */
