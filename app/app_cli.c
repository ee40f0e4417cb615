/* app_cli.c - the command line: one table of flags, strict parsing.
 *
 * Every flag fills app_config (and through it sim_desc); --help prints the
 * table with each default. A bad value prints one line saying what is wrong
 * and a hint line, and the caller exits with status 2 before anything runs
 * or any file is touched.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

enum flag_id {
    F_N,
    F_IC,
    F_SEED,
    F_DT,
    F_SOFTENING,
    F_DAMPING,
    F_STEPS_PER_FRAME,
    F_BACKEND,
    F_VARIANT,
    F_P,
    F_Q,
    F_HEADLESS,
    F_FRAMES,
    F_SCREENSHOT,
    F_DUMP,
    F_WIDTH,
    F_HEIGHT,
    F_HOST_COPY,
    F_NO_VSYNC,
    F_PRESET,
    F_MASS_RATIO,
    F_PERICENTER,
    F_SEPARATION,
    F_ECCENTRICITY,
    F_INCL1,
    F_INCL2,
    F_RETROGRADE,
    F_DISK_TEMPERATURE,
    F_NO_HUD,
    F_HUD_SCALE,
    F_SCRIPT,
    F_STATUS_JSON,
    F_STATUS_EVERY,
    F_BENCHMARK,
    F_STEPS,
    F_JSON,
    F_FRAME,
    F_HELP,
    F_COUNT
};

typedef struct flag_spec {
    enum flag_id id;
    const char *name;    /* without the leading -- */
    const char *metavar; /* NULL: takes no value */
    const char *def;     /* default, as shown by --help */
    const char *help;
} flag_spec;

static const flag_spec flags[] = {
    {F_N, "n", "N", "by scene: 16384, galaxies 65536 (CPU: 4096, 8192)",
     "number of bodies (a list with --benchmark)"},
    {F_IC, "ic", "plummer|shell|disk|merger", "plummer", "initial condition"},
    {F_SEED, "seed", "S", "0", "random seed of the initial condition"},
    {F_DT, "dt", "DT", "by scene: 1/128, galaxies 0.025", "time step, model time units"},
    {F_SOFTENING, "softening", "EPS", "by scene: 0.05, galaxies 0.15",
     "Plummer softening length (0 allowed)"},
    {F_DAMPING, "damping", "D", "1 (none)", "velocity factor per step, in (0, 1]"},
    {F_STEPS_PER_FRAME, "steps-per-frame", "K", "by scene: 1, galaxies 4 (CPU: 1)",
     "simulation steps per drawn frame"},
    {F_BACKEND, "backend", "cuda|cpu", "cuda if a GPU is present, else cpu", "simulation backend"},
    {F_VARIANT, "variant", "NAME", "best",
     "CUDA force kernel: naive soa rsqrt tiled unrolled noif fma fast best fp64 (a list or all "
     "with --benchmark)"},
    {F_P, "p", "P|auto", "auto", "bodies per tile / threads per block in x (list: --benchmark)"},
    {F_Q, "q", "Q|auto", "auto", "threads per body, rows of the block (list: --benchmark)"},
    {F_HEADLESS, "headless", NULL, "off", "no window: render offscreen through EGL"},
    {F_FRAMES, "frames", "N", "until closed (headless: 60)", "stop after N frames"},
    {F_SCREENSHOT, "screenshot", "FILE.png", "none", "write the last frame as PNG"},
    {F_DUMP, "dump", "FILE.csv", "none", "write x,y,z,vx,vy,vz,m of every body at exit"},
    {F_WIDTH, "width", "W", "1280", "window or image width in pixels"},
    {F_HEIGHT, "height", "H", "720", "window or image height in pixels"},
    {F_HOST_COPY, "host-copy", NULL, "off", "copy positions through the host, not CUDA-GL interop"},
    {F_NO_VSYNC, "no-vsync", NULL, "vsync on", "do not wait for the display's refresh"},
    {F_PRESET, "preset", "NAME", "none",
     "scene with its N, dt, view: plummer shell disk antennae-like retrograde minor-merger "
     "milky-way-andromeda"},
    {F_MASS_RATIO, "mass-ratio", "Q", "1", "merger: mass of galaxy 2 / galaxy 1"},
    {F_PERICENTER, "pericenter", "KPC", "8", "merger: pericenter of the point-mass orbit"},
    {F_SEPARATION, "separation", "KPC", "80", "merger: separation at the start"},
    {F_ECCENTRICITY, "eccentricity", "E", "1 (parabolic)", "merger: orbit eccentricity"},
    {F_INCL1, "incl1", "DEG", "0", "merger: tilt of galaxy 1's spin from the orbit's (0 prograde)"},
    {F_INCL2, "incl2", "DEG", "0", "merger: tilt of galaxy 2's spin from the orbit's"},
    {F_RETROGRADE, "retrograde", NULL, "off", "merger: both disks spin against the orbit (+180)"},
    {F_DISK_TEMPERATURE, "disk-temperature", "QT", "1.2",
     "Toomre Q of the disks' random motion (higher: hotter, thicker)"},
    {F_NO_HUD, "no-hud", NULL, "HUD on", "start with the HUD hidden (Tab shows it)"},
    {F_HUD_SCALE, "hud-scale", "X", "1", "HUD text size factor on top of the screen's scale"},
    {F_SCRIPT, "script", "FILE", "none", "key presses from FILE: lines \"FRAME KEY\" (e.g. 120 K)"},
    {F_STATUS_JSON, "status-json", "FILE", "none", "write the live state as JSON at exit"},
    {F_STATUS_EVERY, "status-every", "N", "at exit only",
     "with --status-json: also every N frames"},
    {F_BENCHMARK, "benchmark", NULL, "off",
     "time every --variant x --n x --p x --q, print a table, no window"},
    {F_STEPS, "steps", "K", "auto (~25 ms a repeat)", "benchmark: steps per timed repeat"},
    {F_JSON, "json", "FILE.json", "none", "benchmark: also write the results as JSON"},
    {F_FRAME, "frame", NULL, "off",
     "benchmark: also time whole headless frames (step+interop+draw)"},
    {F_HELP, "help", NULL, "", "print this and exit"},
};
_Static_assert(sizeof flags / sizeof flags[0] == F_COUNT, "one spec per flag id");

void app_cli_usage(void) {
    printf("nbody - interactive all-pairs N-body simulation on the GPU\n\n"
           "usage: nbody [flags]\n\n");
    for (int i = 0; i < F_COUNT; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", flags[i].name, flags[i].metavar ? " " : "",
                 flags[i].metavar ? flags[i].metavar : "");
        printf("  %-30s %s", left, flags[i].help);
        if (flags[i].def[0]) printf(" [default: %s]", flags[i].def);
        printf("\n");
    }
    printf("\nkeys (H or F1 shows them in the window too):\n");
    const char *label, *text;
    for (int i = 0; app_key_help(i, &label, &text); i++) printf("  %-20s %s\n", label, text);
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

static bool parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return false;
    *out = v;
    return true;
}

/* Parses "a,b,c" into list; "auto" (when allowed) is 0. */
static bool parse_list(const char *s, long lo, long hi, bool allow_auto, app_list *list) {
    list->count = 0;
    char buf[512];
    if (strlen(s) >= sizeof buf) return false;
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long v = 0;
        if (list->count == APP_LIST_MAX) return false;
        if (!(allow_auto && strcmp(tok, "auto") == 0) && !parse_long(tok, lo, hi, &v)) {
            return false;
        }
        list->values[list->count++] = (int)v;
    }
    return list->count > 0;
}

static const flag_spec *find_flag(const char *name, size_t len) {
    for (int i = 0; i < F_COUNT; i++) {
        if (strlen(flags[i].name) == len && strncmp(flags[i].name, name, len) == 0) {
            return &flags[i];
        }
    }
    return NULL;
}

/* Applies one flag with its value (NULL for switches). Returns 0 or 2. */
static int apply(app_config *c, const flag_spec *f, const char *v) {
    long l;
    double d;
    switch (f->id) {
    case F_N:
        if (!parse_list(v, 1, INT_MAX, false, &c->n_list)) {
            return bad("pass a whole number from 1 to 2147483647 (lists: 1024,4096)",
                       "--n %s is not a positive body count", v);
        }
        c->sim.body_count = c->n_list.values[0];
        c->n_given = true;
        return 0;
    case F_IC:
        c->sim.ic = sim_ic_from_name(v);
        if (c->sim.ic == SIM_IC_COUNT)
            return bad("use --ic plummer or --ic shell", "unknown --ic %s", v);
        return 0;
    case F_SEED: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-')
            return bad("pass a non-negative whole number", "--seed %s is not a seed", v);
        c->sim.seed = s;
        return 0;
    }
    case F_DT:
        if (!parse_double(v, &d) || !(d > 0))
            return bad("pass a positive number, e.g. --dt 0.01",
                       "--dt %s is not a positive time step", v);
        c->sim.dt = (float)d;
        return 0;
    case F_SOFTENING:
        if (!parse_double(v, &d) || d < 0)
            return bad("pass 0 or a positive length, e.g. --softening 0.05",
                       "--softening %s is not a length >= 0", v);
        c->sim.softening = (float)d;
        c->softening_zero = d == 0;
        return 0;
    case F_DAMPING:
        if (!parse_double(v, &d) || !(d > 0 && d <= 1))
            return bad("pass a number in (0, 1]; 1 means no damping",
                       "--damping %s is outside (0, 1]", v);
        c->sim.damping = (float)d;
        return 0;
    case F_STEPS_PER_FRAME:
        if (!parse_long(v, 1, 1000000, &l))
            return bad("pass a whole number of steps, 1 or more",
                       "--steps-per-frame %s is not a step count", v);
        c->steps_per_frame = (int)l;
        return 0;
    case F_BACKEND: {
        sim_backend b = sim_backend_from_name(v);
        if (b == SIM_BACKEND_COUNT || b == SIM_BACKEND_DEFAULT)
            return bad("use --backend cuda or --backend cpu", "unknown --backend %s", v);
        c->sim.backend = b;
        return 0;
    }
    case F_VARIANT: {
        app_list *list = &c->variant_list;
        list->count = 0;
        if (strcmp(v, "all") == 0) {
            for (int k = 1; k < SIM_VARIANT_COUNT; k++) list->values[list->count++] = k;
        } else {
            char buf[512];
            snprintf(buf, sizeof buf, "%s", v);
            char *save = NULL;
            for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                sim_variant var = sim_variant_from_name(tok);
                if (var == SIM_VARIANT_COUNT || list->count == APP_LIST_MAX) {
                    return bad("see nbody --help for the variant names", "unknown --variant %s",
                               tok);
                }
                list->values[list->count++] = var;
            }
        }
        if (list->count == 0) return bad("name a variant, e.g. --variant best", "empty --variant");
        c->sim.variant = (sim_variant)list->values[0];
        return 0;
    }
    case F_P:
    case F_Q: {
        app_list *list = f->id == F_P ? &c->p_list : &c->q_list;
        if (!parse_list(v, 1, 1024, true, list)) {
            return bad("pass a whole number from 1 to 1024, or auto", "--%s %s is not a block size",
                       f->name, v);
        }
        if (f->id == F_P)
            c->sim.p = list->values[0];
        else
            c->sim.q = list->values[0];
        return 0;
    }
    case F_HEADLESS:
        c->headless = true;
        return 0;
    case F_FRAMES:
        if (!parse_long(v, 1, INT_MAX, &l))
            return bad("pass a whole number of frames, 1 or more",
                       "--frames %s is not a frame count", v);
        c->frames = (int)l;
        return 0;
    case F_SCREENSHOT:
        c->screenshot = v;
        return 0;
    case F_DUMP:
        c->dump = v;
        return 0;
    case F_WIDTH:
    case F_HEIGHT:
        if (!parse_long(v, 16, 16384, &l))
            return bad("pass a size from 16 to 16384 pixels", "--%s %s is not a size", f->name, v);
        if (f->id == F_WIDTH)
            c->width = (int)l;
        else
            c->height = (int)l;
        return 0;
    case F_HOST_COPY:
        c->host_copy = true;
        return 0;
    case F_NO_VSYNC:
        c->no_vsync = true;
        return 0;
    case F_PRESET:
        if (app_preset_find(v) < 0) {
            return bad("presets: plummer shell disk antennae-like retrograde minor-merger "
                       "milky-way-andromeda",
                       "unknown --preset %s", v);
        }
        c->preset = v;
        return 0;
    case F_MASS_RATIO:
        if (!parse_double(v, &d) || !(d >= 0.01 && d <= 100)) {
            return bad("pass a ratio from 0.01 to 100", "--mass-ratio %s is out of range", v);
        }
        c->sim.merger.mass_ratio = (float)d;
        return 0;
    case F_PERICENTER:
    case F_SEPARATION:
        if (!parse_double(v, &d) || !(d > 0 && d < 1e5)) {
            return bad("pass a positive distance in kpc", "--%s %s is not a distance", f->name, v);
        }
        if (f->id == F_PERICENTER)
            c->sim.merger.pericenter = (float)d;
        else
            c->sim.merger.separation = (float)d;
        return 0;
    case F_ECCENTRICITY:
        if (!parse_double(v, &d) || !(d > 0 && d <= 10)) {
            return bad("pass an eccentricity in (0, 10]; 1 is parabolic",
                       "--eccentricity %s is out of range", v);
        }
        c->sim.merger.eccentricity = (float)d;
        return 0;
    case F_INCL1:
    case F_INCL2:
        if (!parse_double(v, &d) || !(d >= -360 && d <= 360)) {
            return bad("pass an angle in degrees", "--%s %s is not an angle", f->name, v);
        }
        if (f->id == F_INCL1)
            c->sim.merger.incl1 = (float)d;
        else
            c->sim.merger.incl2 = (float)d;
        c->incl_given = true;
        return 0;
    case F_RETROGRADE:
        c->retrograde = true;
        return 0;
    case F_DISK_TEMPERATURE:
        if (!parse_double(v, &d) || !(d > 0 && d <= 10)) {
            return bad("pass a Toomre Q in (0, 10], e.g. 1.2",
                       "--disk-temperature %s is out of range", v);
        }
        c->sim.galaxy.disk_temperature = (float)d;
        return 0;
    case F_NO_HUD:
        c->no_hud = true;
        return 0;
    case F_HUD_SCALE:
        if (!parse_double(v, &d) || !(d >= 0.25 && d <= 8)) {
            return bad("pass a factor from 0.25 to 8", "--hud-scale %s is not a scale", v);
        }
        c->hud_scale = (float)d;
        return 0;
    case F_SCRIPT:
        c->script = v;
        return 0;
    case F_STATUS_JSON:
        c->status_json = v;
        return 0;
    case F_STATUS_EVERY:
        if (!parse_long(v, 1, INT_MAX, &l)) {
            return bad("pass a whole number of frames, 1 or more",
                       "--status-every %s is not a frame count", v);
        }
        c->status_every = (int)l;
        return 0;
    case F_BENCHMARK:
        c->benchmark = true;
        return 0;
    case F_STEPS:
        if (!parse_long(v, 1, 1000000, &l)) {
            return bad("pass a whole number of steps, 1 or more", "--steps %s is not a step count",
                       v);
        }
        c->bench_steps = (int)l;
        return 0;
    case F_JSON:
        c->json = v;
        return 0;
    case F_FRAME:
        c->bench_frames = true;
        return 0;
    case F_HELP:
    case F_COUNT:
        break;
    }
    return 0;
}

int app_cli_parse(int argc, char **argv, app_config *c) {
    *c = (app_config){0};
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0) {
            return bad("flags start with --; see nbody --help", "unexpected argument '%s'", arg);
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const flag_spec *f = find_flag(name, len);
        if (!f) return bad("see nbody --help for the flags", "unknown flag '%s'", arg);
        if (f->id == F_HELP) {
            app_cli_usage();
            return 1;
        }
        const char *value = NULL;
        if (f->metavar) {
            if (eq) {
                value = eq + 1;
            } else if (i + 1 < argc) {
                value = argv[++i];
            } else {
                return bad("give the flag a value; see nbody --help", "--%s needs a value (%s)",
                           f->name, f->metavar);
            }
        } else if (eq) {
            return bad("this flag is a switch; drop the =value", "--%s takes no value", f->name);
        }
        int rc = apply(c, f, value);
        if (rc) return rc;
    }
    const app_list *lists[] = {&c->n_list, &c->p_list, &c->q_list, &c->variant_list};
    const char *names[] = {"--n", "--p", "--q", "--variant"};
    for (int k = 0; k < 4; k++) {
        if (!c->benchmark && lists[k]->count > 1) {
            return bad("give one value, or add --benchmark to time each",
                       "%s takes a list only with --benchmark", names[k]);
        }
    }
    if (!c->benchmark && (c->json || c->bench_frames || c->bench_steps)) {
        return bad("add --benchmark", "--json, --frame and --steps belong to --benchmark");
    }
    /* Files are checked now so a bad path fails before any work is done. */
    if (c->screenshot && !app_output_check_writable(c->screenshot, "--screenshot")) return 2;
    if (c->dump && !app_output_check_writable(c->dump, "--dump")) return 2;
    if (c->json && !app_output_check_writable(c->json, "--json")) return 2;
    if (c->status_json && !app_output_check_writable(c->status_json, "--status-json")) return 2;
    if (c->status_every && !c->status_json) {
        return bad("add --status-json FILE", "--status-every needs --status-json");
    }
    return 0;
}
