/* config_cli.c - the command line: the knob table's flags plus the options.
 *
 * Knob flags (--n, --dt, --softening, --variant, ...) are parsed by
 * config_knobs.c from its one table; this file adds the options that only
 * say how to run (front-end, files, benchmark). --help prints both tables
 * with each default. A bad value prints one line naming the flag and the
 * user's own text and a hint line, and the caller exits with status 2
 * before anything runs or any file is touched.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "config_internal.h"

enum option_id {
    O_HEADLESS,
    O_FRAMES,
    O_SCREENSHOT,
    O_DUMP,
    O_WIDTH,
    O_HEIGHT,
    O_HOST_COPY,
    O_SPRITES,
    O_NO_VSYNC,
    O_NO_HUD,
    O_HUD_SCALE,
    O_SCRIPT,
    O_STATUS_JSON,
    O_STATUS_EVERY,
    O_BENCHMARK,
    O_STEPS,
    O_JSON,
    O_FRAME,
    O_PLOT,
    O_HELP,
    O_HELP_MARKDOWN,
    O_FULLSCREEN,
    O_RECORD,
    O_RECORD_FPS,
    O_RECORD_SIZE,
    O_RECORD_HUD,
    O_FRAMES_DIR,
    O_ENCODE,
    O_LOAD,
    O_PROGRESS,
    O_PROFILE,
    O_SNAPSHOT_EVERY,
    O_CAMERA_PATH,
    O_PLAY_SPEED,
    O_SPREAD,
    O_NO_SPREAD,
    O_DRAW_MAX,
    /* the density view (app/app_density.c) */
    O_VIEW,
    O_DENSITY_MAX,
    O_DENSITY_STRETCH,
    /* the lecture mode (app/app_lecture.c) */
    O_LECTURE,
    O_COUNT
};

typedef enum value_kind { SWITCH, WHOLE, REAL, PATH, TEXT } value_kind; /* TEXT: parsed in apply */

typedef struct option_spec {
    enum option_id id;
    const char *name;    /* without the leading -- */
    const char *metavar; /* NULL: a switch */
    value_kind kind;
    double min, max; /* WHOLE and REAL: inclusive range */
    const char *def; /* default, as shown by --help */
    const char *help;
} option_spec;

static const option_spec options[] = {
    {O_HEADLESS, "headless", NULL, SWITCH, 0, 0, "off", "no window: render offscreen through EGL"},
    {O_FRAMES, "frames", "N", WHOLE, 1, INT_MAX, "until closed (headless: 60)",
     "stop after N frames"},
    {O_SCREENSHOT, "screenshot", "FILE.png", PATH, 0, 0, "none",
     "write the last frame as PNG (.png; a name without an extension or - writes PNG too)"},
    {O_DUMP, "dump", "FILE.csv", PATH, 0, 0, "none",
     "write x,y,z,vx,vy,vz,m,ax,ay,az of every body at exit (.csv, or a name without an "
     "extension or -); .tipsy, .hdf5, .h5: a snapshot; other extensions are refused"},
    {O_WIDTH, "width", "W", WHOLE, 16, 16384, "1280", "window or image width in pixels"},
    {O_HEIGHT, "height", "H", WHOLE, 16, 16384, "720", "window or image height in pixels"},
    {O_HOST_COPY, "host-copy", NULL, SWITCH, 0, 0, "off",
     "copy positions through the host, not CUDA-GL interop"},
    {O_SPRITES, "sprites", "auto|cuda|gl", TEXT, 0, 0, "auto",
     "who draws the sprites: the faster, measured; CUDA (zero-copy interop only); GL (U cycles)"},
    {O_NO_VSYNC, "no-vsync", NULL, SWITCH, 0, 0, "vsync on",
     "do not wait for the display's refresh"},
    {O_NO_HUD, "no-hud", NULL, SWITCH, 0, 0, "HUD on", "start with the HUD hidden (Tab shows it)"},
    {O_HUD_SCALE, "hud-scale", "X", REAL, 0.25, 8, "1",
     "HUD text size factor on top of the screen's scale (without it the panel keeps to 45 % of "
     "the window's height; with it, the window's; text at most 96 px)"},
    {O_SCRIPT, "script", "FILE", PATH, 0, 0, "none",
     "key presses from FILE: lines \"FRAME KEY\" (e.g. 120 K)"},
    {O_STATUS_JSON, "status-json", "FILE", PATH, 0, 0, "none",
     "write the live state as JSON at exit"},
    {O_STATUS_EVERY, "status-every", "N", WHOLE, 1, INT_MAX, "at exit only",
     "with --status-json: also every N frames"},
    {O_BENCHMARK, "benchmark", NULL, SWITCH, 0, 0, "off",
     "time every --variant x --n x --p x --q (x --theta), print a table, no window (the "
     "run's outputs are refused)"},
    {O_STEPS, "steps", "K", WHOLE, 1, 1000000, "auto (~25 ms a repeat)",
     "benchmark: steps per timed repeat"},
    {O_JSON, "json", "FILE.json", PATH, 0, 0, "none", "benchmark: also write the results as JSON"},
    {O_FRAME, "frame", NULL, SWITCH, 0, 0, "off",
     "benchmark: also time whole headless frames (step+interop+draw)"},
    {O_PLOT, "plot", "FILE.png", PATH, 0, 0, "none",
     "benchmark: also draw the table as a chart (PNG)"},
    {O_HELP, "help", NULL, SWITCH, 0, 0, "", "print this and exit"},
    {O_HELP_MARKDOWN, "help-markdown", NULL, SWITCH, 0, 0, "",
     "print the keys and flags as Markdown tables (docs/REFERENCE.md) and exit"},
    {O_FULLSCREEN, "fullscreen", NULL, SWITCH, 0, 0, "off",
     "start fullscreen on the window's monitor (F11 toggles)"},
    {O_RECORD, "record", "FILE.mp4", PATH, 0, 0, "none",
     "record every frame drawn to a video through ffmpeg ($NBODY_FFMPEG): .mp4, .mov, .mkv "
     "(H.264), .avi, .gif; - for stdout (fragmented MP4)"},
    {O_RECORD_FPS, "record-fps", "N", WHOLE, 1, 240, "30",
     "frames/s of --record's video (also --encode's and M's, and a headless --camera-path's)"},
    {O_RECORD_SIZE, "record-size", "WxH", TEXT, 16, 16384, "the window's or image's size",
     "record at this size, drawn offscreen, rounded down to even (--record, --frames-dir, M)"},
    {O_RECORD_HUD, "record-hud", NULL, SWITCH, 0, 0, "off",
     "put the HUD in the recording too (--record, --frames-dir, M)"},
    {O_FRAMES_DIR, "frames-dir", "DIR", PATH, 0, 0, "none",
     "write every frame as DIR/frame-000000.png ... instead of a video"},
    {O_ENCODE, "encode", "DIR", PATH, 0, 0, "none",
     "with --record: encode DIR/frame-*.png into the video, nothing else"},
    {O_LOAD, "load", "FILE|DIR|'GLOB'", PATH, 0, 0, "none",
     "start from a tipsy, GADGET-2 or HDF5 snapshot; a folder or pattern plays as a movie"},
    {O_PROGRESS, "progress", NULL, SWITCH, 0, 0, "only when stderr is a terminal",
     "headless: a progress line on stderr every second, even into a file"},
    {O_PROFILE, "profile", NULL, SWITCH, 0, 0, "off",
     "at exit, print where each frame's time went (step, upload, draw, HUD, ...)"},
    {O_SNAPSHOT_EVERY, "snapshot-every", "K", WHOLE, 1, INT_MAX, "off",
     "with --dump PATTERN (e.g. run_%04d.hdf5): the state at the start and every K frames that "
     "step, as the pattern's files 0, 1, ..., for --load 'run_*.hdf5' to play back"},
    {O_CAMERA_PATH, "camera-path", "FILE", PATH, 0, 0, "none",
     "fly the camera along FILE's keyframes from the first frame (F4 saves one); headless, or "
     "recording without --frames, the run ends where the path does"},
    {O_PLAY_SPEED, "play-speed", "S", REAL, CONFIG_PLAY_SPEED_MIN, CONFIG_PLAY_SPEED_MAX, "1",
     "a series' playback: snapshots per second (9 / 0 change it); headless and --record: "
     "S / --record-fps snapshots a frame"},
    {O_SPREAD, "spread", NULL, SWITCH, 0, 0,
     "auto: the tree on 2 GPUs from " CONFIG_TEXT(
         SIM_SPREAD2_MIN_BODIES) " bodies, on more from " CONFIG_TEXT(SIM_SPREAD4_MIN_BODIES),
     "several GPUs, the tree: each GPU keeps only its own bodies and gets the parts of the "
     "others' trees it needs, so together they hold N one cannot (float only; --gpus auto "
     "then takes every GPU)"},
    {O_NO_SPREAD, "no-spread", NULL, SWITCH, 0, 0, "auto (--spread)",
     "several GPUs, the tree: every body on every GPU, whatever N"},
    {O_DRAW_MAX, "draw-max", "N", WHOLE, 1, INT_MAX, "as many as the first GPU has room for",
     "draw every k-th body, k the least that leaves at most N drawn (the HUD says so); the "
     "simulation still runs every body"},
    {O_VIEW, "view", "sprites|density", TEXT, 0, 0, "sprites",
     "what is drawn: the bodies' light, or their projected surface density with a colour bar "
     "(N toggles)"},
    {O_DENSITY_MAX, "density-max", "X", REAL, 1e-30, 1e30, "auto (99.9th percentile)",
     "density view: the colour bar's upper end, in its units (M_sun/kpc² for galaxies, model "
     "units otherwise); the lower end is 10^-4 of it (Y / Shift+Y)"},
    {O_DENSITY_STRETCH, "density-stretch", "log|asinh", TEXT, 0, 0, "log",
     "density view: the colour map's stretch (Ctrl+Y on the auto range toggles it)"},
    {O_LECTURE, "lecture", NULL, SWITCH, 0, 0, "off",
     "lecture mode: the kernel ladder one rung per key (PgDn, Right, Space next; PgUp, Left "
     "back), the chart and the code panel laid out for a projector; from the first rung at "
     "--n (default: " CONFIG_TEXT(CONFIG_LECTURE_N_GPU) " on a GPU, " CONFIG_TEXT(
         CONFIG_LECTURE_N_CPU) " on the CPU)"},
};
_Static_assert(sizeof options / sizeof options[0] == O_COUNT, "one spec per option id");

/* The grammar of numbers (base.h), as --help and the reference state it. */
static const char numbers_text[] =
    "A number is decimal: an optional sign, digits with an optional point, an optional "
    "exponent (100, +100, 1e2, 100.0, 0.05, .5, 5e-2), nothing around it: no spaces, no 0x, "
    "no inf or nan, no separators. Every flag, --script frame number and "
    "NBODY_TEST_RUNAWAY reads numbers so. A whole number is one whose value is whole (1e2 "
    "yes, 2.5 no); with a point or exponent it must be at most 2^53 (write larger ones, "
    "seeds, in digits). Knobs are kept in double precision as given.";

static void usage_line(FILE *f, const char *name, const char *metavar, const char *help,
                       const char *def) {
    char left[64];
    snprintf(left, sizeof left, "--%s%s%s", name, metavar ? " " : "", metavar ? metavar : "");
    fprintf(f, "  %-30s %s", left, help);
    if (def[0]) fprintf(f, " [default: %s]", def);
    fprintf(f, "\n");
}

void config_usage(FILE *f) {
    fprintf(f, "nbody - interactive N-body simulation on the GPU\n\n"
               "usage: nbody [flags]\n\nknobs (the ranges are checked the same way for keys):\n");
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        const config_knob_info *i = config_knob_get((config_knob)k);
        usage_line(f, i->name, i->metavar, i->help, i->def);
    }
    fprintf(f, "\nrunning and output:\n");
    for (int i = 0; i < O_COUNT; i++) {
        usage_line(f, options[i].name, options[i].metavar, options[i].help, options[i].def);
    }
    fprintf(f, "\nnumbers: %s\n", numbers_text);
    fprintf(f, "\nmethods (--variant, K), in the ladder's order:\n");
    const sim_backend backends[] = {SIM_BACKEND_CUDA, SIM_BACKEND_CPU};
    for (int b = 0; b < 2; b++) {
        sim_variant v[CONFIG_LIST_MAX];
        const int count = sim_methods(backends[b], v, CONFIG_LIST_MAX);
        for (int i = 0; i < count && i < CONFIG_LIST_MAX; i++) {
            const sim_method *m = sim_method_of(backends[b], v[i]);
            fprintf(f, "  %-4s %-10s %s\n", b ? "cpu" : "cuda", m->name, m->description);
        }
    }
}

/* text for a Markdown table cell: '|' escaped, '<' and '>' as entities. */
static void cell(FILE *f, const char *text) {
    for (; *text; text++) {
        if (*text == '<') {
            fputs("&lt;", f);
        } else if (*text == '>') {
            fputs("&gt;", f);
        } else {
            if (*text == '|') fputc('\\', f);
            fputc(*text, f);
        }
    }
}

static void flag_cell(FILE *f, const char *name, const char *metavar) {
    fprintf(f, "| `--%s", name);
    if (metavar) {
        fputc(' ', f);
        cell(f, metavar);
    }
    fprintf(f, "` | ");
}

/* A knob's range as sim/ checks it, or as its parser does. */
static void range_cell(FILE *f, config_knob k) {
    const sim_knob r = config_knob_range(k);
    if (r != SIM_KNOB_COUNT) {
        const sim_knob_info *i = sim_knob_get(r);
        char lo[32], hi[32];
        base_real_text(i->min, lo, sizeof lo);
        base_real_text(i->max, hi, sizeof hi);
        fprintf(f, "%s%s%s … %s", i->integer ? "whole, " : "", i->zero_ok ? "0, or " : "", lo, hi);
    } else if (config_knob_get(k)->range_text) {
        cell(f, config_knob_get(k)->range_text);
    }
}

void config_markdown(FILE *f) {
    fprintf(f, "## Knobs\n\nThe first block of `nbody --help`. A knob with a key (the keys "
               "above) steps the same value; each knob is a field of the status JSON under its "
               "flag's name; the range is checked the same way for flags, keys and scripts.\n\n"
               "| flag | default | range | meaning |\n|---|---|---|---|\n");
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        const config_knob_info *i = config_knob_get((config_knob)k);
        flag_cell(f, i->name, i->metavar);
        cell(f, i->def);
        fprintf(f, " | ");
        range_cell(f, (config_knob)k);
        fprintf(f, " | ");
        cell(f, i->help);
        fprintf(f, " |\n");
    }
    fprintf(f, "\n%s\n", numbers_text);
    fprintf(f, "\n## Methods\n\nWhat `--variant` names and `K` steps through, in the ladder's "
               "order (the CPU backend has its own two).\n\n| backend | method | what it adds "
               "|\n|---|---|---|\n");
    const sim_backend backends[] = {SIM_BACKEND_CUDA, SIM_BACKEND_CPU};
    for (int b = 0; b < 2; b++) {
        sim_variant v[CONFIG_LIST_MAX];
        const int count = sim_methods(backends[b], v, CONFIG_LIST_MAX);
        for (int i = 0; i < count && i < CONFIG_LIST_MAX; i++) {
            const sim_method *m = sim_method_of(backends[b], v[i]);
            fprintf(f, "| %s | `%s` | ", sim_backend_name(backends[b]), m->name);
            cell(f, m->description);
            fprintf(f, " |\n");
        }
    }
    fprintf(f, "\n## Running and output\n\n| flag | default | range | meaning |\n"
               "|---|---|---|---|\n");
    for (int i = 0; i < O_COUNT; i++) {
        const option_spec *o = &options[i];
        flag_cell(f, o->name, o->metavar);
        cell(f, o->def);
        fprintf(f, " | ");
        if (o->max > 0) { /* WxH: each side */
            char lo[32], hi[32];
            base_real_text(o->min, lo, sizeof lo);
            base_real_text(o->max, hi, sizeof hi);
            fprintf(f, "%s%s … %s", o->kind == REAL ? "" : "whole, ", lo, hi);
        }
        fprintf(f, " | ");
        cell(f, o->help);
        fprintf(f, " |\n");
    }
}

/* Prints "nbody: <what>" and "hint: <hint>"; returns the exit status 2. */
__attribute__((format(printf, 2, 3))) static int bad(const char *hint, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nbody: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nhint: %s\n", hint);
    va_end(ap);
    return 2;
}

static const option_spec *find_option(const char *name, size_t len) {
    for (int i = 0; i < O_COUNT; i++) {
        if (strlen(options[i].name) == len && strncmp(options[i].name, name, len) == 0) {
            return &options[i];
        }
    }
    return NULL;
}

/* Parses a WHOLE or REAL option's value (base.h's grammar) within its range. */
static bool number(const option_spec *o, const char *v, double *out) {
    base_number r;
    if (o->kind == WHOLE) {
        long long w = 0;
        r = base_parse_whole(v, (long long)o->min, (long long)o->max, &w);
        *out = (double)w;
    } else {
        r = base_parse_real(v, out);
        if (r == BASE_NUMBER_OK && !(*out >= o->min && *out <= o->max)) r = BASE_NUMBER_RANGE;
    }
    if (r == BASE_NUMBER_OK) return true;
    char lo[32], hi[32], hint[96];
    base_real_text(o->min, lo, sizeof lo);
    base_real_text(o->max, hi, sizeof hi);
    snprintf(hint, sizeof hint, "pass %s from %s to %s",
             o->kind == WHOLE ? "a whole number" : "a number", lo, hi);
    bad(hint, "--%s '%s': %s", o->name, v, base_number_problem(r));
    return false;
}

/* What a flag's value is, for messages: "a file name", "a folder" (a PATH
 * whose metavar names no file) or "a value (METAVAR)". */
static const char *value_noun(const char *metavar, bool path, char *out, size_t len) {
    if (path) return strstr(metavar, "FILE") ? "a file name" : "a folder";
    snprintf(out, len, "a value (%s)", metavar);
    return out;
}

/* Applies one option with its value (NULL for switches). Returns 0 or 2. */
static int apply(config *c, const option_spec *o, const char *v) {
    double d = 0;
    if ((o->kind == WHOLE || o->kind == REAL) && !number(o, v, &d)) return 2;
    if (o->kind == PATH && v[0] == 0) {
        char buf[64];
        const char *noun = value_noun(o->metavar, true, buf, sizeof buf);
        return bad(strcmp(noun, "a folder") == 0 ? "give a folder" : "give a file name",
                   "--%s needs %s, not an empty value", o->name, noun);
    }
    switch (o->id) {
    case O_HEADLESS:
        c->headless = true;
        break;
    case O_FRAMES:
        c->frames = (int)d;
        break;
    case O_SCREENSHOT:
        c->screenshot = v;
        break;
    case O_DUMP:
        c->dump = v;
        break;
    case O_WIDTH:
        c->width = (int)d;
        break;
    case O_HEIGHT:
        c->height = (int)d;
        break;
    case O_HOST_COPY:
        c->host_copy = true;
        break;
    case O_SPRITES: {
        if (!config_sprites_parse(v, &c->sprites)) {
            return bad("give auto, cuda or gl", "--sprites '%s': not auto, cuda or gl", v);
        }
        break;
    }
    case O_NO_VSYNC:
        c->no_vsync = true;
        break;
    case O_NO_HUD:
        c->no_hud = true;
        break;
    case O_HUD_SCALE:
        c->hud_scale = (float)d;
        break;
    case O_SCRIPT:
        c->script = v;
        break;
    case O_STATUS_JSON:
        c->status_json = v;
        break;
    case O_STATUS_EVERY:
        c->status_every = (int)d;
        break;
    case O_BENCHMARK:
        c->benchmark = true;
        break;
    case O_STEPS:
        c->bench_steps = (int)d;
        break;
    case O_JSON:
        c->json = v;
        break;
    case O_FRAME:
        c->bench_frames = true;
        break;
    case O_PLOT:
        c->plot = v;
        break;
    case O_FULLSCREEN:
        c->fullscreen = true;
        break;
    case O_RECORD:
        c->record = v;
        break;
    case O_RECORD_FPS:
        c->record_fps = (int)d;
        break;
    case O_RECORD_SIZE: {
        /* Two whole numbers (base.h's grammar) around an x, each within the
         * range, then rounded down to even (yuv420p). */
        const size_t cut = strcspn(v, "xX");
        char w_text[32] = "";
        long long w = 0, h = 0;
        if (cut < sizeof w_text) {
            memcpy(w_text, v, cut);
            w_text[cut] = 0;
        }
        if (!v[cut] || cut >= sizeof w_text ||
            base_parse_whole(w_text, INT_MIN, INT_MAX, &w) != BASE_NUMBER_OK ||
            base_parse_whole(v + cut + 1, INT_MIN, INT_MAX, &h) != BASE_NUMBER_OK || w < o->min ||
            w > o->max || h < o->min || h > o->max) {
            return bad("give WxH with both from 16 to 16384, e.g. --record-size 1920x1080",
                       "--record-size '%s': not WxH in range", v);
        }
        c->record_width = (int)(w & ~1);
        c->record_height = (int)(h & ~1);
        break;
    }
    case O_RECORD_HUD:
        c->record_hud = true;
        break;
    case O_FRAMES_DIR:
        c->frames_dir = v;
        break;
    case O_ENCODE:
        c->encode = v;
        break;
    case O_LOAD:
        c->load = v;
        break;
    case O_PROGRESS:
        c->progress = true;
        break;
    case O_PROFILE:
        c->profile = true;
        break;
    case O_SNAPSHOT_EVERY:
        c->snapshot_every = (int)d;
        break;
    case O_CAMERA_PATH:
        c->camera_path = v;
        break;
    case O_PLAY_SPEED:
        c->play_speed = d;
        break;
    case O_SPREAD:
        c->sim.spread = true;
        break;
    case O_NO_SPREAD:
        c->no_spread = true;
        break;
    case O_DRAW_MAX:
        c->draw_max = (int)d;
        break;
    case O_VIEW:
        if (strcmp(v, "sprites") != 0 && strcmp(v, "density") != 0) {
            return bad("give sprites or density", "--view '%s': not sprites or density", v);
        }
        c->density_view = strcmp(v, "density") == 0;
        break;
    case O_DENSITY_MAX:
        c->density_max = d;
        break;
    case O_DENSITY_STRETCH:
        if (strcmp(v, "log") != 0 && strcmp(v, "asinh") != 0) {
            return bad("give log or asinh", "--density-stretch '%s': not log or asinh", v);
        }
        c->density_asinh = strcmp(v, "asinh") == 0;
        break;
    case O_LECTURE:
        c->lecture = true;
        break;
    case O_HELP:
    case O_HELP_MARKDOWN:
    case O_COUNT:
        break;
    }
    return 0;
}

bool config_asks_block(const config *c) {
    for (int i = 0; i < c->p_list.count; i++) {
        if (c->p_list.values[i] != 0) return true;
    }
    for (int i = 0; i < c->q_list.count; i++) {
        if (c->q_list.values[i] != 0) return true;
    }
    return false;
}

static const option_spec *spec_of(enum option_id id) {
    for (int i = 0; i < O_COUNT; i++) {
        if (options[i].id == id) return &options[i];
    }
    return NULL;
}

/* Options that shape a run (a window or --headless) and that --benchmark,
 * which makes its own runs, would not use. */
static const enum option_id run_only[] = {
    O_FRAMES,      O_SCREENSHOT,   O_DUMP,        O_WIDTH,      O_HEIGHT,
    O_HOST_COPY,   O_NO_VSYNC,     O_NO_HUD,      O_HUD_SCALE,  O_SCRIPT,
    O_STATUS_JSON, O_STATUS_EVERY, O_FULLSCREEN,  O_RECORD,     O_RECORD_FPS,
    O_RECORD_SIZE, O_RECORD_HUD,   O_FRAMES_DIR,  O_ENCODE,     O_LOAD,
    O_PROGRESS,    O_PROFILE,      O_CAMERA_PATH, O_PLAY_SPEED, O_DRAW_MAX,
};

/* The knobs that only the merger scenes have. */
static const config_knob orbit_knobs[] = {
    CONFIG_KNOB_MASS_RATIO,   CONFIG_KNOB_PERICENTER, CONFIG_KNOB_SEPARATION,
    CONFIG_KNOB_ECCENTRICITY, CONFIG_KNOB_INCL1,      CONFIG_KNOB_INCL2,
    CONFIG_KNOB_RETROGRADE,
};

/* Refuses the --record-size, --record-hud and --record-fps that nothing
 * would use: they shape --record's video (--record-fps also --encode's, and
 * the frames/s a --camera-path is flown at headless),
 * --frames-dir's PNGs (size and HUD), and the videos M records in a window
 * or from a --script. */
static int check_recording(const config *c, const bool *given) {
    const bool by_key = !c->benchmark && (!c->headless || c->script);
    const bool video = c->record && !c->encode;
    if ((given[O_RECORD_SIZE] || given[O_RECORD_HUD]) && c->encode) {
        return bad("drop them: --encode takes the PNGs as they are",
                   "--record-size and --record-hud do not apply to --encode");
    }
    if ((given[O_RECORD_SIZE] || given[O_RECORD_HUD]) && !video && !c->frames_dir && !by_key) {
        return bad("add --record FILE.mp4 or --frames-dir DIR (in a window, M records with them)",
                   "--%s shapes a recording, and this run records nothing",
                   given[O_RECORD_SIZE] ? "record-size" : "record-hud");
    }
    if (given[O_RECORD_FPS] && !c->record && !by_key && !c->camera_path) {
        return bad("add --record FILE.mp4 (in a window, M records at this rate)",
                   "--record-fps is a video's rate, and this run records no video%s",
                   c->frames_dir ? " (--frames-dir writes PNGs, which have none)" : "");
    }
    return 0;
}

/* The command line's own scene as sim_create will be asked for it, checked
 * by sim/ now, so a value that cannot make it (an orbit the merger cannot
 * start on) is a bad command line, refused before anything runs. The
 * flags of the merger's orbit that were given are named. */
static int check_scene(const config *c) {
    sim_error err = {0};
    const int scene = config_scene_of(c);
    const sim_desc d = config_scene_desc(scene, c, c->sim.backend == SIM_BACKEND_CPU, true);
    if (sim_desc_check(&d, &err)) return 0;
    char flags[160] = "";
    size_t used = 0;
    const struct {
        config_knob k;
        double v;
    } orbit[] = {{CONFIG_KNOB_PERICENTER, c->sim.merger.pericenter},
                 {CONFIG_KNOB_SEPARATION, c->sim.merger.separation},
                 {CONFIG_KNOB_ECCENTRICITY, c->sim.merger.eccentricity}};
    for (size_t i = 0; i < sizeof orbit / sizeof orbit[0] && used < sizeof flags; i++) {
        if (!c->given[orbit[i].k]) continue;
        char value[32];
        base_real_text(orbit[i].v, value, sizeof value);
        used += (size_t)snprintf(flags + used, sizeof flags - used, "%s--%s %s", used ? " " : "",
                                 config_knob_get(orbit[i].k)->name, value);
    }
    return bad(err.hint, "%s%s%s", flags, used ? ": " : "", err.message);
}

/* Checks what single flags cannot: lists only with --benchmark, options
 * that need others or exclude each other, flags that the run would
 * ignore, and the scene they make. given[o]: option o was on the command
 * line. Files are io's to check (io_check_config), after this. */
static int check_combinations(config *c, const bool *given) {
    const config_list *lists[] = {&c->n_list, &c->p_list, &c->q_list, &c->variant_list};
    const char *names[] = {"--n", "--p", "--q", "--variant"};
    for (int k = 0; k < 4; k++) {
        if (!c->benchmark && lists[k]->count > 1) {
            return bad("give one value, or add --benchmark to time each",
                       "%s takes a list only with --benchmark", names[k]);
        }
    }
    if (!c->benchmark && c->theta_list.count > 1) {
        return bad("give one value, or add --benchmark to time each",
                   "--theta takes a list only with --benchmark");
    }
    if (!c->benchmark && (c->json || c->bench_frames || c->bench_steps || c->plot)) {
        return bad("add --benchmark", "--json, --frame, --steps and --plot belong to --benchmark");
    }
    for (size_t i = 0; c->benchmark && i < sizeof run_only / sizeof run_only[0]; i++) {
        if (!given[run_only[i]]) continue;
        return bad("drop it, or run without --benchmark",
                   "--%s does not apply to --benchmark, which makes runs of its own",
                   spec_of(run_only[i])->name);
    }
    if (c->fullscreen && c->headless) {
        return bad("drop --fullscreen (it needs a window)", "--fullscreen does not apply with "
                                                            "--headless");
    }
    if (c->snapshot_every && !c->dump) {
        return bad("add --dump PATTERN, e.g. --dump run_%04d.hdf5",
                   "--snapshot-every needs --dump with a file-name pattern");
    }
    if (c->snapshot_every && c->benchmark) {
        return bad("drop --snapshot-every, or --benchmark",
                   "--snapshot-every does not apply to --benchmark");
    }
    if (c->status_every && !c->status_json) {
        return bad("add --status-json FILE", "--status-every needs --status-json");
    }
    char nccl[64];
    if (c->sim.gpus > 1 && !sim_multi_gpu_support(nccl, sizeof nccl)) {
        return bad("pip install nvidia-nccl-cu13 (or install libnccl-dev) and rebuild: cmake then "
                   "says \"multi-GPU: enabled\"; or drop --gpus",
                   "--gpus %d needs NCCL, and this nbody was built without it", c->sim.gpus);
    }
    if (c->sim.spread && c->no_spread) {
        return bad("pick one: --spread or --no-spread", "--spread and --no-spread contradict");
    }
    if (c->no_spread && c->sim.backend == SIM_BACKEND_CPU) {
        return bad("drop --no-spread, or run on the GPU (--backend cuda)",
                   "--no-spread keeps every body on every GPU; --backend cpu runs on the CPU");
    }
    if (c->sim.spread && c->sim.backend == SIM_BACKEND_CPU) {
        return bad("drop --spread, or run on the GPU (--backend cuda)",
                   "--spread spreads the bodies over GPUs; --backend cpu runs on the CPU");
    }
    if (c->sim.spread && c->sim.gpus == 1) {
        return bad("pass --gpus 2 or more (or auto) with --spread, or drop --spread",
                   "--spread spreads the bodies over several GPUs, and --gpus 1 is one");
    }
    if (c->sim.spread && sim_backend_resolve(c->sim.backend, NULL, 0) == SIM_BACKEND_CPU) {
        return bad("drop --spread, or run where CUDA devices are (nvidia-smi lists them)",
                   "--spread spreads the bodies over GPUs, and this machine has no CUDA device");
    }
    if (c->sim.backend == SIM_BACKEND_CPU && c->sim.gpus > 1) {
        return bad("drop --gpus, or run on the GPU (--backend cuda)",
                   "--gpus %d spreads the GPU's work; --backend cpu runs on the CPU", c->sim.gpus);
    }
    if (c->variant_cpu_name && sim_backend_resolve(c->sim.backend, NULL, 0) != SIM_BACKEND_CPU) {
        return bad("add --backend cpu, or give a cuda name (fp64 is the GPU's sum in double "
                   "precision)",
                   "--variant %s is the CPU backend's method, and this run is on the GPU",
                   c->variant_cpu_name);
    }
    if (given[O_PLAY_SPEED] && !c->load) {
        return bad(
            "add --load with a snapshot series (a folder or a pattern), or drop --play-speed",
            "--play-speed sets a series' playback, and this run loads none");
    }
    if (c->sim.backend == SIM_BACKEND_CPU && config_asks_block(c)) {
        return bad("drop --p and --q (or give auto), or run on the GPU (--backend cuda)",
                   "--p and --q shape the GPU kernels; --backend cpu has none to shape");
    }
    if (c->preset && c->given[CONFIG_KNOB_IC]) {
        const sim_ic preset_ic =
            config_scene_desc(config_scene_find(c->preset), NULL, false, false).ic;
        if (preset_ic != c->sim.ic) {
            return bad("drop --ic (the preset sets it) or pick a preset of that kind",
                       "--ic %s contradicts --preset %s, which is a %s scene",
                       sim_ic_name(c->sim.ic), c->preset, sim_ic_name(preset_ic));
        }
    }
    const int scene = config_scene_of(c);
    if (config_scene_desc(scene, NULL, false, false).ic != SIM_IC_MERGER) {
        for (size_t i = 0; i < sizeof orbit_knobs / sizeof orbit_knobs[0]; i++) {
            if (!c->given[orbit_knobs[i]]) continue;
            return bad("add --ic merger, or a merger --preset (antennae-like, retrograde, "
                       "minor-merger, milky-way-andromeda)",
                       "--%s shapes the merger's orbit, and the %s scene has none",
                       config_knob_get(orbit_knobs[i])->name, config_scene_name(scene));
        }
    }
    if (c->record && c->frames_dir) {
        return bad("pick one: a video (--record) or PNGs (--frames-dir)",
                   "--record and --frames-dir cannot be given together");
    }
    if (c->encode && !c->record) {
        return bad("add --record FILE.mp4", "--encode %s needs --record", c->encode);
    }
    if (c->lecture && (c->benchmark || c->load)) { /* the lecture steps a simulation */
        return bad(c->benchmark ? "drop --lecture, or --benchmark" : "drop --lecture, or --load",
                   "--lecture climbs the ladder on a running simulation: not with %s",
                   c->benchmark ? "--benchmark" : "--load");
    }
    /* A loaded file gives the bodies: the flags that make them would do
     * nothing (R, + and the scene keys build from the running seed and N). */
    static const config_knob makes_bodies[] = {
        CONFIG_KNOB_N,
        CONFIG_KNOB_IC,
        CONFIG_KNOB_SEED,
        CONFIG_KNOB_MASS_RATIO,
        CONFIG_KNOB_PERICENTER,
        CONFIG_KNOB_SEPARATION,
        CONFIG_KNOB_ECCENTRICITY,
        CONFIG_KNOB_INCL1,
        CONFIG_KNOB_INCL2,
        CONFIG_KNOB_RETROGRADE,
    };
    for (size_t i = 0; c->load && i < sizeof makes_bodies / sizeof makes_bodies[0]; i++) {
        if (!c->given[makes_bodies[i]]) continue;
        return bad("drop it: the file's bodies replace the scene's (--dt, --softening, --damping "
                   "and --theta do apply)",
                   "--%s makes the scene's bodies, and --load %s gives them",
                   config_knob_get(makes_bodies[i])->name, c->load);
    }
    const int rc = check_recording(c, given);
    if (rc) return rc;
    return check_scene(c);
}

config_result config_parse(int argc, char **argv, config *c) {
    *c = (config){.width = CONFIG_DEFAULT_WIDTH, .height = CONFIG_DEFAULT_HEIGHT};
    bool given[O_COUNT] = {false};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0) {
            bad("flags start with --; see nbody --help", "unexpected argument '%s'", arg);
            return CONFIG_BAD;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        const size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const config_knob k = config_knob_find(name, len);
        const option_spec *o = k == CONFIG_KNOB_COUNT ? find_option(name, len) : NULL;
        if (k == CONFIG_KNOB_COUNT && !o) {
            bad("see nbody --help for the flags", "unknown flag '%s'", arg);
            return CONFIG_BAD;
        }
        const char *metavar = o ? o->metavar : config_knob_get(k)->metavar;
        const char *flag = o ? o->name : config_knob_get(k)->name;
        const char *value = NULL;
        if (metavar) {
            if (eq) {
                value = eq + 1;
            } else if (i + 1 < argc) {
                value = argv[++i];
                /* A missing value would take the next flag as one (--dump --headless). */
                const size_t vlen = strcspn(value, "=");
                if (strncmp(value, "--", 2) == 0 &&
                    (config_knob_find(value + 2, vlen - 2) != CONFIG_KNOB_COUNT ||
                     find_option(value + 2, vlen - 2))) {
                    const bool path = o && o->kind == PATH;
                    char noun[64], hint[160];
                    snprintf(hint, sizeof hint, "put it right after --%s%s%s", flag,
                             path ? "; for one named so, write ./" : "", path ? value : "");
                    bad(hint, "--%s needs %s; '%s' is a flag", flag,
                        value_noun(metavar, path, noun, sizeof noun), value);
                    return CONFIG_BAD;
                }
            } else {
                bad("give the flag a value; see nbody --help", "--%s needs a value (%s)", flag,
                    metavar);
                return CONFIG_BAD;
            }
        } else if (eq) {
            bad("this flag is a switch; drop the =value", "--%s takes no value", flag);
            return CONFIG_BAD;
        }
        if (o && o->id == O_HELP) return CONFIG_HELP;
        if (o && o->id == O_HELP_MARKDOWN) return CONFIG_HELP_MARKDOWN;
        if (o ? apply(c, o, value) : config_knob_parse(c, k, value)) return CONFIG_BAD;
        if (o) given[o->id] = true;
    }
    return check_combinations(c, given) ? CONFIG_BAD : CONFIG_RUN;
}

static const char *const sprites_names[CONFIG_SPRITES_COUNT] = {"auto", "cuda", "gl"};

const char *config_sprites_name(config_sprites m) {
    return m >= 0 && m < CONFIG_SPRITES_COUNT ? sprites_names[m] : "?";
}

bool config_sprites_parse(const char *s, config_sprites *out) {
    for (int m = 0; m < CONFIG_SPRITES_COUNT; m++) {
        if (strcmp(s, sprites_names[m]) == 0) return *out = (config_sprites)m, true;
    }
    return false;
}
