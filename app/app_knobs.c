/* app_knobs.c - every knob, defined once.
 *
 * A knob is anything that shapes the simulation: N, the scene, the initial
 * condition and its seed, dt, softening, damping, the tree's opening angle,
 * the backend, the force kernel and its block shape, steps per frame and the
 * merger's orbit. Each has one row below: its flag (which is also its name
 * in the status JSON), the default --help shows, one line of help, and the
 * key that steps it. The command line (app_cli.c), the key dispatch and the
 * help overlay (app_keys.c), --help and the status JSON (app_status.c) all
 * read this table. Ranges are not here: sim_knob_check (sim/) is the one
 * place that accepts or refuses a value, for flags and keys alike, and its
 * message is shown with the user's own text.
 */
#include <GLFW/glfw3.h> /* key codes only */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define NONE SIM_KNOB_COUNT /* no numeric range in sim/ */

typedef struct knob_row {
    app_knob_info info;
    sim_knob range; /* the range that sim/ checks, or NONE */
} knob_row;

#define DAMPING_GAP_MIN 1e-4 /* the first step of D: damping 0.9999 */
#define SOFTENING_FIRST 1e-3 /* S from zero softening; Shift+S below it: zero */
#define THETA_STEP 0.1
#define STEPS_PER_FRAME_MAX 100000

static const knob_row rows[] = {
    [APP_KNOB_N] = {{"n", "N", "by scene: 16384; galaxies 1048576 on the tree, 65536 all-pairs (CPU: 4096, 8192)",
                     "number of bodies (a list with --benchmark)", GLFW_KEY_EQUAL,
                     "N x2, re-seeded", "N /2, re-seeded", true},
                    SIM_KNOB_BODY_COUNT},
    [APP_KNOB_SCENE] = {{"preset", "NAME", "the --ic's scene",
                         "scene with its N, dt, softening and view (keys 1-7): plummer shell disk "
                         "antennae-like retrograde minor-merger milky-way-andromeda",
                         0, NULL, NULL, false},
                        NONE},
    [APP_KNOB_IC] = {{"ic", "plummer|shell|disk|merger", "the preset's, else plummer",
                      "initial condition", 0, NULL, NULL, false},
                     NONE},
    [APP_KNOB_SEED] = {{"seed", "S", "0", "random seed of the initial condition", GLFW_KEY_R,
                        "re-seed the scene (next seed)", "re-seed the scene (previous seed)",
                        false},
                       NONE},
    [APP_KNOB_DT] = {{"dt", "DT", "by scene: 1/128, galaxies 0.025", "time step, model time units",
                      GLFW_KEY_T, "time step x2", "time step /2", false},
                     SIM_KNOB_DT},
    [APP_KNOB_SOFTENING] = {{"softening", "EPS", "by scene: 0.05, galaxies 0.15",
                             "Plummer softening length (0: none)", GLFW_KEY_S,
                             "softening x2 (from 0: 0.001)", "softening /2 (below 0.001: 0)",
                             false},
                            SIM_KNOB_SOFTENING},
    [APP_KNOB_DAMPING] = {{"damping", "D", "1 (none)", "velocity factor per step", GLFW_KEY_D,
                           "more damping: 1-d doubles from 1e-4",
                           "less damping; below 1e-4 it is off", false},
                          SIM_KNOB_DAMPING},
    [APP_KNOB_THETA] = {{"theta", "THETA", "0.8 (CPU: 0.6)",
                         "tree opening angle: cell size / distance (a list with --benchmark)",
                         GLFW_KEY_J, "opening angle +0.1 (tree)", "opening angle -0.1 (tree)",
                         true},
                        SIM_KNOB_THETA},
    [APP_KNOB_BACKEND] = {{"backend", "cuda|cpu", "cuda if a GPU is present, else cpu",
                           "simulation backend", 0, NULL, NULL, false},
                          NONE},
    [APP_KNOB_VARIANT] = {{"variant", "NAME", "best",
                           "force kernel: naive soa rsqrt tiled unrolled noif fma fast best fp64 "
                           "tree (a list or all with --benchmark)",
                           GLFW_KEY_K, "next kernel variant", "previous kernel variant", true},
                          NONE},
    [APP_KNOB_P] = {{"p", "P|auto", "auto",
                     "bodies per tile / threads per block in x; tree: bodies per group (list: "
                     "--benchmark)",
                     GLFW_KEY_P, "double p", "halve p", true},
                    SIM_KNOB_P},
    [APP_KNOB_Q] = {{"q", "Q|auto", "auto",
                     "threads per body, rows of the block (list: --benchmark)", GLFW_KEY_Q,
                     "double q", "halve q", true},
                    SIM_KNOB_Q},
    [APP_KNOB_STEPS_PER_FRAME] = {{"steps-per-frame", "K", "by scene: 1; galaxies 2 on the tree, 4 all-pairs (CPU: 1)",
                                   "simulation steps per drawn frame (1 .. 100000)", 0, NULL, NULL,
                                   false},
                                  NONE},
    [APP_KNOB_MASS_RATIO] = {{"mass-ratio", "Q", "by scene: 1",
                              "merger: mass of galaxy 2 / galaxy 1", 0, NULL, NULL, false},
                             SIM_KNOB_MASS_RATIO},
    [APP_KNOB_PERICENTER] = {{"pericenter", "KPC", "by scene: 8",
                              "merger: pericenter of the point-mass orbit", 0, NULL, NULL, false},
                             SIM_KNOB_PERICENTER},
    [APP_KNOB_SEPARATION] = {{"separation", "KPC", "by scene: 80",
                              "merger: separation at the start", 0, NULL, NULL, false},
                             SIM_KNOB_SEPARATION},
    [APP_KNOB_ECCENTRICITY] = {{"eccentricity", "E", "by scene: 1 (parabolic)",
                                "merger: orbit eccentricity", 0, NULL, NULL, false},
                               SIM_KNOB_ECCENTRICITY},
    [APP_KNOB_INCL1] = {{"incl1", "DEG", "by scene: 0",
                         "merger: tilt of galaxy 1's spin from the orbit's (0 prograde)", 0, NULL,
                         NULL, false},
                        SIM_KNOB_INCL1},
    [APP_KNOB_INCL2] = {{"incl2", "DEG", "by scene: 0", "merger: tilt of galaxy 2's spin", 0, NULL,
                         NULL, false},
                        SIM_KNOB_INCL2},
    [APP_KNOB_RETROGRADE] = {{"retrograde", NULL, "off",
                              "merger: both disks spin against the orbit (+180)", 0, NULL, NULL,
                              false},
                             NONE},
    [APP_KNOB_DISK_TEMPERATURE] = {{"disk-temperature", "QT", "1.2",
                                    "Toomre Q of the disks' random motion (higher: hotter)", 0,
                                    NULL, NULL, false},
                                   SIM_KNOB_DISK_TEMPERATURE},
};
_Static_assert(sizeof rows / sizeof rows[0] == APP_KNOB_COUNT, "one row per knob");

const app_knob_info *app_knob_get(app_knob k) {
    return &rows[k].info;
}

app_knob app_knob_find(const char *name, size_t len) {
    for (int k = 0; k < APP_KNOB_COUNT; k++) {
        if (strlen(rows[k].info.name) == len && strncmp(rows[k].info.name, name, len) == 0) {
            return (app_knob)k;
        }
    }
    return APP_KNOB_COUNT;
}

/* ---- the command line ------------------------------------------------------ */

/* Prints "nbody: --<flag> <text>: <what>" and "hint: <hint>"; returns 2. */
__attribute__((format(printf, 4, 5))) static int refuse(app_knob k, const char *text,
                                                        const char *hint, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nbody: --%s '%s': ", rows[k].info.name, text);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nhint: %s\n", hint);
    va_end(ap);
    return 2;
}

/* A whole double: no junk, not empty. 1: not a number; 2: overflow or
 * underflow (a value that is not zero must not become zero or infinity). */
static int parse_real(const char *s, double *out) {
    char *end;
    errno = 0;
    const double v = strtod(s, &end);
    if (end == s || *end) return 1;
    if (errno == ERANGE) return 2;
    *out = v;
    return 0;
}

/* Parses one number of knob k and checks it against sim's range. */
static int real_value(app_knob k, const char *text, double *out) {
    const sim_knob r = rows[k].range;
    sim_error err = {0};
    if (r != NONE) sim_knob_check(r, NAN, &err); /* fills the hint with the range */
    const char *hint = r != NONE ? err.hint : "pass a number";
    switch (parse_real(text, out)) {
    case 1:
        return refuse(k, text, hint, "not a number");
    case 2:
        return refuse(k, text, hint, "beyond what a double can hold");
    default:
        break;
    }
    if (r != NONE && !sim_knob_check(r, *out, &err)) {
        return refuse(k, text, err.hint, "%s", err.message);
    }
    return 0;
}

/* "a,b,c" into values via one, at most APP_LIST_MAX, none empty. */
static int each_item(app_knob k, const char *text, int (*one)(app_knob, const char *, void *, int),
                     void *dst) {
    const char *p = text;
    int count = 0;
    for (;;) {
        const char *comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[128];
        if (len == 0 || len >= sizeof item) {
            return refuse(k, text, "give one value, or a comma-separated list with --benchmark",
                          "an empty or overlong item");
        }
        if (count == APP_LIST_MAX) {
            return refuse(k, text, "give at most 16 values", "too many values");
        }
        memcpy(item, p, len);
        item[len] = 0;
        const int rc = one(k, item, dst, count);
        if (rc) return rc;
        count++;
        if (!comma) return 0;
        p = comma + 1;
    }
}

static int one_count(app_knob k, const char *item, void *dst, int i) {
    double v;
    const int rc = real_value(k, item, &v);
    if (rc) return rc;
    app_list *l = dst;
    l->values[i] = (int)v;
    l->count = i + 1;
    return 0;
}

static int one_block(app_knob k, const char *item, void *dst, int i) {
    app_list *l = dst;
    if (strcmp(item, "auto") == 0) {
        l->values[i] = 0;
        l->count = i + 1;
        return 0;
    }
    return one_count(k, item, dst, i);
}

static int one_real(app_knob k, const char *item, void *dst, int i) {
    app_real_list *l = dst;
    const int rc = real_value(k, item, &l->values[i]);
    if (rc) return rc;
    l->count = i + 1;
    return 0;
}

static int one_variant(app_knob k, const char *item, void *dst, int i) {
    const sim_variant v = sim_variant_from_name(item);
    if (v == SIM_VARIANT_COUNT) {
        return refuse(k, item, "see nbody --help for the variant names", "unknown variant");
    }
    app_list *l = dst;
    l->values[i] = v;
    l->count = i + 1;
    return 0;
}

int app_knob_parse(app_config *c, app_knob k, const char *v) {
    double d = 0;
    int rc = 0;
    c->given[k] = true;
    switch (k) {
    case APP_KNOB_N:
        rc = each_item(k, v, one_count, &c->n_list);
        if (!rc) c->sim.body_count = c->n_list.values[0];
        return rc;
    case APP_KNOB_SCENE:
        if (app_scene_find(v) < 0) {
            return refuse(k, v,
                          "presets: plummer shell disk antennae-like retrograde minor-merger "
                          "milky-way-andromeda",
                          "unknown preset");
        }
        c->preset = v;
        return 0;
    case APP_KNOB_IC:
        c->sim.ic = sim_ic_from_name(v);
        if (c->sim.ic == SIM_IC_COUNT) {
            return refuse(k, v, "use --ic plummer, shell, disk or merger",
                          "unknown initial condition");
        }
        return 0;
    case APP_KNOB_SEED: {
        char *end;
        errno = 0;
        const unsigned long long s = strtoull(v, &end, 10);
        if (errno || end == v || *end || v[0] == '-' || v[0] == '+' || v[0] == ' ') {
            return refuse(k, v, "pass a whole number from 0 to 18446744073709551615", "not a seed");
        }
        c->sim.seed = s;
        return 0;
    }
    case APP_KNOB_DT:
    case APP_KNOB_SOFTENING:
    case APP_KNOB_DAMPING:
    case APP_KNOB_MASS_RATIO:
    case APP_KNOB_PERICENTER:
    case APP_KNOB_SEPARATION:
    case APP_KNOB_ECCENTRICITY:
    case APP_KNOB_INCL1:
    case APP_KNOB_INCL2:
    case APP_KNOB_DISK_TEMPERATURE:
        rc = real_value(k, v, &d);
        if (rc) return rc;
        float *field[] = {
            [APP_KNOB_DT] = &c->sim.dt,
            [APP_KNOB_SOFTENING] = &c->sim.softening,
            [APP_KNOB_DAMPING] = &c->sim.damping,
            [APP_KNOB_MASS_RATIO] = &c->sim.merger.mass_ratio,
            [APP_KNOB_PERICENTER] = &c->sim.merger.pericenter,
            [APP_KNOB_SEPARATION] = &c->sim.merger.separation,
            [APP_KNOB_ECCENTRICITY] = &c->sim.merger.eccentricity,
            [APP_KNOB_INCL1] = &c->sim.merger.incl1,
            [APP_KNOB_INCL2] = &c->sim.merger.incl2,
            [APP_KNOB_DISK_TEMPERATURE] = &c->sim.galaxy.disk_temperature,
        };
        *field[k] = (float)d;
        return 0;
    case APP_KNOB_THETA:
        rc = each_item(k, v, one_real, &c->theta_list);
        if (!rc) c->sim.theta = (float)c->theta_list.values[0];
        return rc;
    case APP_KNOB_BACKEND: {
        const sim_backend b = sim_backend_from_name(v);
        if (b == SIM_BACKEND_COUNT || b == SIM_BACKEND_DEFAULT) {
            return refuse(k, v, "use --backend cuda or --backend cpu", "unknown backend");
        }
        c->sim.backend = b;
        return 0;
    }
    case APP_KNOB_VARIANT:
        c->variant_list.count = 0;
        if (strcmp(v, "all") == 0) {
            for (int i = 1; i < SIM_VARIANT_COUNT; i++) c->variant_list.values[i - 1] = i;
            c->variant_list.count = SIM_VARIANT_COUNT - 1;
        } else {
            rc = each_item(k, v, one_variant, &c->variant_list);
            if (rc) return rc;
        }
        c->sim.variant = (sim_variant)c->variant_list.values[0];
        return 0;
    case APP_KNOB_P:
    case APP_KNOB_Q: {
        app_list *l = k == APP_KNOB_P ? &c->p_list : &c->q_list;
        rc = each_item(k, v, one_block, l);
        if (rc) return rc;
        if (k == APP_KNOB_P) {
            c->sim.p = l->values[0];
        } else {
            c->sim.q = l->values[0];
        }
        return 0;
    }
    case APP_KNOB_STEPS_PER_FRAME: {
        char *end;
        errno = 0;
        const long s = strtol(v, &end, 10);
        if (errno || end == v || *end || s < 1 || s > STEPS_PER_FRAME_MAX) {
            return refuse(k, v, "pass a whole number of steps from 1 to 100000",
                          "not a step count");
        }
        c->steps_per_frame = (int)s;
        return 0;
    }
    case APP_KNOB_RETROGRADE:
        c->retrograde = true;
        return 0;
    case APP_KNOB_COUNT:
        break;
    }
    return 0;
}

/* ---- keys ---------------------------------------------------------------- */

static sim_params params(const app *a) {
    return sim_get_params(a->sim);
}

/* Checks v against knob r's range; on refusal flashes why and returns false. */
static bool in_range(app *a, sim_knob r, double v, double now) {
    sim_error err = {0};
    if (sim_knob_check(r, v, &err)) return true;
    app_message(a, "%s stays %.4g: %s (%s)", sim_knob_get(r)->what, now, err.message, err.hint);
    return false;
}

app_grow app_grow_estimate(app *a, int n) {
    const sim_params p = params(a);
    app_grow g = {.mem = sim_memory_estimate(a->sim, n)};
    /* The render's vertex buffer and tags: GPU memory beside a CUDA
     * simulation; counted as host memory otherwise (a software GL driver
     * keeps them there). The host copy's staging buffer is host memory. */
    const double render_bytes = (sizeof(sim_vertex) + 1.0) * n;
    if (p.backend == SIM_BACKEND_CUDA) {
        g.mem.device_need += render_bytes;
    } else {
        g.mem.host_need += render_bytes;
    }
    if (p.backend == SIM_BACKEND_CPU || a->interop.path == APP_INTEROP_HOST_COPY) {
        g.mem.host_need += (double)sizeof(sim_vertex) * n;
    }
    g.step_ms_now = sim_last_step_ms(a->sim);
    const double now = p.body_count > 1 ? p.body_count : 2, want = n > 1 ? n : 2;
    if (g.step_ms_now > 0) {
        const double ratio = want / now;
        g.step_ms = g.step_ms_now * (p.variant == SIM_VARIANT_TREE
                                         ? ratio * log2(want) / log2(now) /* N log N */
                                         : ratio * ratio);                /* N^2 */
    }
    return g;
}

bool app_grow_refused(const app_grow *g, int n, char *why, size_t len) {
    const sim_memory *m = &g->mem;
    if (m->host_free > 0 && m->host_need > m->host_free) {
        snprintf(why, len, "%d bodies need %.0f MiB of host memory, %.0f MiB is free", n,
                 m->host_need / 1048576.0, m->host_free / 1048576.0);
        return true;
    }
    if (m->device_free > 0 && m->device_need > m->device_free) {
        snprintf(why, len, "%d bodies need %.0f MiB of GPU memory, %.0f MiB is free", n,
                 m->device_need / 1048576.0, m->device_free / 1048576.0);
        return true;
    }
    if (g->step_ms > APP_STEP_MS_MAX) {
        snprintf(why, len, "a step of %d bodies would take about %.1f s here (%.2f s now)", n,
                 g->step_ms / 1000.0, g->step_ms_now / 1000.0);
        return true;
    }
    return false;
}

static void key_n(app *a, int dir) {
    const sim_params p = params(a);
    const double n = dir > 0 ? 2.0 * p.body_count : p.body_count / 2;
    if (!in_range(a, SIM_KNOB_BODY_COUNT, n, p.body_count)) return;
    if (dir > 0) {
        const app_grow g = app_grow_estimate(a, (int)n);
        char why[128];
        if (app_grow_refused(&g, (int)n, why, sizeof why)) {
            app_message(a, "N stays %d: %s (--n %d starts with it anyway)", p.body_count, why,
                        (int)n);
            return;
        }
    }
    app_reseed(a, p.ic, (int)n, p.seed);
}

static void key_seed(app *a, int dir) {
    const sim_params p = params(a);
    app_reseed(a, p.ic, p.body_count, p.seed + (dir > 0 ? 1 : (uint64_t)-1));
}

static void key_dt(app *a, int dir) {
    const double dt = params(a).dt, next = dir > 0 ? dt * 2 : dt / 2;
    if (!in_range(a, SIM_KNOB_DT, next, dt)) return;
    sim_set_dt(a->sim, (float)next);
    app_message(a, "time step %.4g", next);
}

static void key_softening(app *a, int dir) {
    const double eps = params(a).softening;
    double next = dir > 0 ? (eps == 0 ? SOFTENING_FIRST : eps * 2) : eps / 2;
    if (dir < 0 && next < SOFTENING_FIRST) next = 0;
    if (!in_range(a, SIM_KNOB_SOFTENING, next, eps)) return;
    sim_set_softening(a->sim, (float)next);
    app_physics_changed(a); /* E is defined with the softening: start over */
    app_message(a, next == 0 ? "softening 0 (none)" : "softening %.4g", next);
}

static void key_damping(app *a, int dir) {
    double gap = a->live.damping_gap;
    if (dir > 0) {
        gap = gap == 0 ? DAMPING_GAP_MIN : gap * 2;
    } else {
        gap /= 2;
        if (gap < DAMPING_GAP_MIN) gap = 0;
    }
    if (!in_range(a, SIM_KNOB_DAMPING, 1.0 - gap, 1.0 - a->live.damping_gap)) return;
    a->live.damping_gap = gap;
    sim_set_damping(a->sim, (float)(1.0 - gap));
    if (gap == 0) {
        app_message(a, "damping off (1): energy is conserved again");
    } else {
        app_message(a, "damping %.6g per step", 1.0 - gap);
    }
}

static void key_theta(app *a, int dir) {
    const double theta = params(a).theta;
    /* On the 0.05 grid, so +0.1 and -0.1 retrace each other exactly. */
    const double next = round((theta + dir * THETA_STEP) * 20) / 20;
    if (!in_range(a, SIM_KNOB_THETA, next, theta)) return;
    sim_set_theta(a->sim, (float)next);
    app_message(a, "opening angle %.2f%s", next,
                params(a).variant == SIM_VARIANT_TREE ? "" : " (used by the tree: K to it)");
}

static void key_variant(app *a, int dir) {
    const sim_params p = params(a);
    int v = (int)p.variant;
    if (p.backend == SIM_BACKEND_CPU) {
        /* Two methods on the CPU: the exact reference and the tree. */
        v = v == SIM_VARIANT_TREE ? SIM_VARIANT_BEST : SIM_VARIANT_TREE;
    } else {
        const int count = SIM_VARIANT_COUNT - 1; /* variants 1 .. COUNT-1 */
        v = (v - 1 + dir + count) % count + 1;
    }
    sim_error err = {0};
    if (!sim_set_variant(a->sim, (sim_variant)v, &err)) {
        app_message(a, "cannot switch to %s: %s", sim_variant_info((sim_variant)v)->name,
                    err.message);
        return;
    }
    const sim_params q = params(a);
    if (q.backend == SIM_BACKEND_CPU) {
        app_message(a, "CPU force method: %s", app_method_name(a));
    } else {
        app_message(a, "kernel %s (%dx%d): %s", sim_variant_info(q.variant)->name, q.p, q.q,
                    sim_variant_info(q.variant)->description);
    }
}

static void key_block(app *a, app_knob k, int dir) {
    const sim_params before = params(a);
    if (before.backend == SIM_BACKEND_CPU) {
        /* The CPU's force loops (the exact sum and the tree's walk, body by
         * body) take no block shape. */
        app_message(a, "%s: p and q shape the GPU kernels; the CPU backend has none",
                    k == APP_KNOB_P ? "P" : "Q");
        return;
    }
    const int now = k == APP_KNOB_P ? before.p : before.q;
    const int want = dir > 0 ? now * 2 : (now > 1 ? now / 2 : 1);
    const sim_block b = k == APP_KNOB_P ? sim_set_block(a->sim, want, before.q)
                                        : sim_set_block(a->sim, before.p, want);
    const int p = k == APP_KNOB_P ? want : before.p, q = k == APP_KNOB_P ? before.q : want;
    if (b.clamped) {
        app_message(a, "p x q = %d x %d (asked %d x %d): %s", b.p, b.q, p, q, b.reason);
    } else if (b.p == before.p && b.q == before.q) {
        app_message(a, "p x q stays %d x %d", b.p, b.q);
    } else {
        app_message(a, "p x q = %d x %d", b.p, b.q);
    }
}

void app_knob_key(app *a, app_knob k, int dir) {
    switch (k) {
    case APP_KNOB_N:
        key_n(a, dir);
        break;
    case APP_KNOB_SEED:
        key_seed(a, dir);
        break;
    case APP_KNOB_DT:
        key_dt(a, dir);
        break;
    case APP_KNOB_SOFTENING:
        key_softening(a, dir);
        break;
    case APP_KNOB_DAMPING:
        key_damping(a, dir);
        break;
    case APP_KNOB_THETA:
        key_theta(a, dir);
        break;
    case APP_KNOB_VARIANT:
        key_variant(a, dir);
        break;
    case APP_KNOB_P:
    case APP_KNOB_Q:
        key_block(a, k, dir);
        break;
    default:
        break; /* no key */
    }
}

/* ---- the status JSON ------------------------------------------------------- */

static void real(char *out, size_t len, double v) {
    if (isfinite(v)) {
        snprintf(out, len, "%.9g", v);
    } else {
        snprintf(out, len, "null"); /* JSON has no NaN or Infinity */
    }
}

void app_knob_json(const app *a, app_knob k, char *out, size_t len) {
    const sim_params p = sim_get_params(a->sim);
    const sim_merger_desc *m = &a->scene_desc.merger; /* the scene's, as built */
    switch (k) {
    case APP_KNOB_N:
        snprintf(out, len, "%d", p.body_count);
        return;
    case APP_KNOB_SCENE:
        snprintf(out, len, "\"%s\"", app_scene_name(a->scene));
        return;
    case APP_KNOB_IC:
        snprintf(out, len, "\"%s\"", sim_ic_name(p.ic));
        return;
    case APP_KNOB_SEED:
        snprintf(out, len, "%llu", (unsigned long long)p.seed);
        return;
    case APP_KNOB_DT:
        real(out, len, p.dt);
        return;
    case APP_KNOB_SOFTENING:
        real(out, len, p.softening);
        return;
    case APP_KNOB_DAMPING:
        real(out, len, p.damping);
        return;
    case APP_KNOB_THETA:
        real(out, len, p.theta);
        return;
    case APP_KNOB_BACKEND:
        snprintf(out, len, "\"%s\"", sim_backend_name(p.backend));
        return;
    case APP_KNOB_VARIANT:
        snprintf(out, len, "\"%s\"", app_method_name(a));
        return;
    case APP_KNOB_P: /* null on the CPU backend: it has no block shape */
    case APP_KNOB_Q:
        if (p.backend == SIM_BACKEND_CUDA) {
            snprintf(out, len, "%d", k == APP_KNOB_P ? p.p : p.q);
        } else {
            snprintf(out, len, "null");
        }
        return;
    case APP_KNOB_STEPS_PER_FRAME:
        snprintf(out, len, "%d", a->cfg.steps_per_frame);
        return;
    case APP_KNOB_MASS_RATIO:
        real(out, len, m->mass_ratio);
        return;
    case APP_KNOB_PERICENTER:
        real(out, len, m->pericenter);
        return;
    case APP_KNOB_SEPARATION:
        real(out, len, m->separation);
        return;
    case APP_KNOB_ECCENTRICITY:
        real(out, len, m->eccentricity);
        return;
    case APP_KNOB_INCL1:
        real(out, len, m->incl1);
        return;
    case APP_KNOB_INCL2:
        real(out, len, m->incl2);
        return;
    case APP_KNOB_RETROGRADE:
        snprintf(out, len, "%s", a->cfg.retrograde ? "true" : "false");
        return;
    case APP_KNOB_DISK_TEMPERATURE:
        real(out, len, a->scene_desc.galaxy.disk_temperature);
        return;
    case APP_KNOB_COUNT:
        break;
    }
    snprintf(out, len, "null");
}
