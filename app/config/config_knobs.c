/* config_knobs.c - every knob, defined once, and its flag's parser.
 *
 * A knob is anything that shapes the simulation: N, the scene, the initial
 * condition and its seed, dt, softening, damping, the tree's opening angle,
 * the backend, the force kernel and its block shape, steps per frame and the
 * merger's orbit. Each has one row below: its flag (which is also its name
 * in the status JSON), the default --help shows, one line of help, and the
 * key that steps it. The command line (config_cli.c), the key dispatch and
 * the help (app_keys.c), --help and the status JSON (app_status.c) all read
 * this table. Numeric ranges are sim/'s where sim/ has one: sim_knob_check
 * accepts or refuses a value, for flags and keys alike, and its message is
 * shown with the user's own text; seed, gpus and steps-per-frame are
 * checked here, and range_text states every knob's range.
 */
#include <GLFW/glfw3.h> /* key codes only */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "config_internal.h"

#define NONE SIM_KNOB_COUNT /* no numeric range in sim/ */

typedef struct knob_row {
    config_knob_info info;
    sim_knob range; /* the range that sim/ checks, or NONE */
} knob_row;

#define STEPS_PER_FRAME_MAX 100000
#define STR_(x) #x
#define STR(x) STR_(x) /* a number macro's digits, for the help text */
/* --gpus: its default and range, from the numbers sim/ uses. */
#define GPUS_MAX STR(SIM_GPUS_AUTO_MAX)
#define GPUS_N2 "best and fp64 on 2 GPUs from " STR(SIM_GPUS2_MIN_BODIES_N2) " bodies"
#define GPUS_N2_MAX " and up to " GPUS_MAX " from " STR(SIM_GPUS4_MIN_BODIES_N2)
#define GPUS_TREE ", the tree on 2 from " STR(SIM_GPUS2_MIN_BODIES_NLOGN)
#define GPUS_TREE_MAX " and up to " GPUS_MAX " from " STR(SIM_GPUS4_MIN_BODIES_NLOGN)
#define GPUS_AUTO "auto (with NCCL): " GPUS_N2 GPUS_N2_MAX GPUS_TREE GPUS_TREE_MAX "; else 1"
#define GPUS_RANGE "whole, 1 … " STR(SIM_MAX_GPUS) ", or auto"

static const knob_row rows[] = {
    [CONFIG_KNOB_N] =
        {{"n", "N",
          "by scene: 16384; galaxies 1048576 on the tree, 65536 all-pairs (CPU: 4096, 8192)",
          "number of bodies (a list with --benchmark)", GLFW_KEY_EQUAL, "N x2, re-seeded",
          "N /2, re-seeded", true},
         SIM_KNOB_BODY_COUNT},
    [CONFIG_KNOB_SCENE] =
        {{"preset", "NAME", "the --ic's scene",
          "scene with its N, dt, softening and view (keys 1-7): plummer shell disk "
          "antennae-like retrograde minor-merger milky-way-andromeda",
          0, NULL, NULL, false},
         NONE},
    [CONFIG_KNOB_IC] = {{"ic", "plummer|shell|disk|merger", "the preset's, else plummer",
                         "initial condition", 0, NULL, NULL, false},
                        NONE},
    [CONFIG_KNOB_SEED] = {{"seed", "S", "0", "random seed of the initial condition", GLFW_KEY_R,
                           "re-seed the scene (next seed)", "re-seed the scene (previous seed)",
                           false, "whole, 0 … 18446744073709551615"},
                          NONE},
    [CONFIG_KNOB_DT] = {{"dt", "DT", "by scene: 1/128, galaxies 0.025",
                         "time step, model time units", GLFW_KEY_T, "time step x2", "time step /2",
                         false},
                        SIM_KNOB_DT},
    [CONFIG_KNOB_SOFTENING] = {{"softening", "EPS", "by scene: 0.05, galaxies 0.15",
                                "Plummer softening length (0: none)", GLFW_KEY_S,
                                "softening x2 (from 0: 0.001)", "softening /2 (below 0.001: 0)",
                                false},
                               SIM_KNOB_SOFTENING},
    [CONFIG_KNOB_DAMPING] = {{"damping", "D", "1 (none)", "velocity factor per step", GLFW_KEY_D,
                              "more damping: 1-d doubles from 1e-4",
                              "less damping; below 1e-4 it is off", false},
                             SIM_KNOB_DAMPING},
    [CONFIG_KNOB_THETA] = {{"theta", "THETA", "1 (CPU: 0.6)",
                            "tree opening angle: cell size / distance (a list with --benchmark)",
                            GLFW_KEY_J, "opening angle +0.1 (tree)", "opening angle -0.1 (tree)",
                            true},
                           SIM_KNOB_THETA},
    [CONFIG_KNOB_TREE_ALPHA] = {{"tree-alpha", "A", "0.015 (CPU: 0, off)",
                                 "tree: also open a cell unless M side^3 / d^5 <= A x the group's "
                                 "last |a| (0: theta alone)",
                                 0, NULL, NULL, false},
                                SIM_KNOB_TREE_ALPHA},
    [CONFIG_KNOB_BACKEND] = {{"backend", "cuda|cpu", "cuda if a GPU is present, else cpu",
                              "simulation backend", 0, NULL, NULL, false},
                             NONE},
    [CONFIG_KNOB_GPUS] = {{"gpus", "G|auto", GPUS_AUTO,
                           "GPUs of this host to spread the forces over (NCCL)", 0, NULL, NULL,
                           false, GPUS_RANGE},
                          NONE},
    [CONFIG_KNOB_VARIANT] =
        {{"variant", "NAME", "best",
          "force method: a name from the methods below (a list or all with --benchmark); the CPU "
          "backend runs its tree for tree and its reference for reference or any cuda name",
          GLFW_KEY_K, "next kernel variant", "previous kernel variant", true},
         NONE},
    [CONFIG_KNOB_P] = {{"p", "P|auto", "auto",
                        "bodies per tile / threads per block in x; tree: bodies per group (list: "
                        "--benchmark)",
                        GLFW_KEY_P, "double p", "halve p", true},
                       SIM_KNOB_P},
    [CONFIG_KNOB_Q] = {{"q", "Q|auto", "auto",
                        "threads per body, rows of the block (list: --benchmark)", GLFW_KEY_Q,
                        "double q", "halve q", true},
                       SIM_KNOB_Q},
    [CONFIG_KNOB_STEPS_PER_FRAME] = {{"steps-per-frame", "K",
                                      "by scene: 1; galaxies 2 on the tree, 4 all-pairs (CPU: 1)",
                                      "simulation steps per drawn frame", 0, NULL, NULL, false,
                                      "whole, 1 … 100000"},
                                     NONE},
    [CONFIG_KNOB_MASS_RATIO] = {{"mass-ratio", "Q", "by scene: 1",
                                 "merger: mass of galaxy 2 / galaxy 1", 0, NULL, NULL, false},
                                SIM_KNOB_MASS_RATIO},
    [CONFIG_KNOB_PERICENTER] = {{"pericenter", "KPC", "by scene: 6",
                                 "merger: pericenter of the point-mass orbit", 0, NULL, NULL,
                                 false},
                                SIM_KNOB_PERICENTER},
    [CONFIG_KNOB_SEPARATION] = {{"separation", "KPC", "by scene: 80",
                                 "merger: separation at the start", 0, NULL, NULL, false},
                                SIM_KNOB_SEPARATION},
    [CONFIG_KNOB_ECCENTRICITY] = {{"eccentricity", "E", "by scene: 1 (parabolic)",
                                   "merger: orbit eccentricity", 0, NULL, NULL, false},
                                  SIM_KNOB_ECCENTRICITY},
    [CONFIG_KNOB_INCL1] = {{"incl1", "DEG", "by scene: 0",
                            "merger: tilt of galaxy 1's spin from the orbit's (0 prograde)", 0,
                            NULL, NULL, false},
                           SIM_KNOB_INCL1},
    [CONFIG_KNOB_INCL2] = {{"incl2", "DEG", "by scene: 30", "merger: tilt of galaxy 2's spin", 0,
                            NULL, NULL, false},
                           SIM_KNOB_INCL2},
    [CONFIG_KNOB_RETROGRADE] = {{"retrograde", NULL, "off",
                                 "merger: both disks spin against the orbit (+180)", 0, NULL, NULL,
                                 false},
                                NONE},
    [CONFIG_KNOB_DISK_TEMPERATURE] =
        {{"disk-temperature", "QT", "1.2",
          "galaxies: Toomre Q of the disks' random motion (higher: hotter)", 0, NULL, NULL, false},
         SIM_KNOB_DISK_TEMPERATURE},
};
_Static_assert(sizeof rows / sizeof rows[0] == CONFIG_KNOB_COUNT, "one row per knob");

const config_knob_info *config_knob_get(config_knob k) {
    return &rows[k].info;
}

sim_knob config_knob_range(config_knob k) {
    return rows[k].range;
}

config_knob config_knob_find(const char *name, size_t len) {
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        if (strlen(rows[k].info.name) == len && strncmp(rows[k].info.name, name, len) == 0) {
            return (config_knob)k;
        }
    }
    return CONFIG_KNOB_COUNT;
}

/* ---- the command line ------------------------------------------------------ */

/* Prints "nbody: --<flag> <text>: <what>" and "hint: <hint>"; returns 2. */
__attribute__((format(printf, 4, 5))) static int refuse(config_knob k, const char *text,
                                                        const char *hint, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "nbody: --%s '%s': ", rows[k].info.name, text);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nhint: %s\n", hint);
    va_end(ap);
    return 2;
}

/* Parses one number of knob k (base.h's grammar; a whole number where
 * sim/ says the knob is one) and checks it against sim's range. */
static int real_value(config_knob k, const char *text, double *out) {
    const sim_knob r = rows[k].range;
    sim_error err = {0};
    if (r != NONE) sim_knob_check(r, NAN, &err); /* fills the hint with the range */
    const char *hint = r != NONE ? err.hint : "pass a number";
    base_number rc;
    if (r != NONE && sim_knob_get(r)->integer) {
        long long v = 0;
        rc = base_parse_whole(text, LLONG_MIN, LLONG_MAX, &v);
        *out = (double)v;
    } else {
        rc = base_parse_real(text, out);
    }
    if (rc == BASE_NUMBER_RANGE) {
        if (r != NONE && sim_knob_get(r)->integer) {
            return refuse(k, text, hint, "beyond what a 64-bit integer can hold");
        }
        /* Well formed, so strtod reads it: 0 or a subnormal where it underflowed. */
        return refuse(k, text, hint, "%s",
                      fabs(strtod(text, NULL)) < 1
                          ? "too small for a double to hold (it underflows)"
                          : "beyond what a double can hold");
    }
    if (rc != BASE_NUMBER_OK) return refuse(k, text, hint, "%s", base_number_problem(rc));
    if (r != NONE && !sim_knob_check(r, *out, &err)) {
        return refuse(k, text, err.hint, "%s", err.message);
    }
    return 0;
}

/* "a,b,c" into values via one, at most CONFIG_LIST_MAX, none empty. */
static int each_item(config_knob k, const char *text,
                     int (*one)(config_knob, const char *, void *, int), void *dst) {
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
        if (count == CONFIG_LIST_MAX) {
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

static int one_count(config_knob k, const char *item, void *dst, int i) {
    double v;
    const int rc = real_value(k, item, &v);
    if (rc) return rc;
    config_list *l = dst;
    l->values[i] = (int)v;
    l->count = i + 1;
    return 0;
}

static int one_block(config_knob k, const char *item, void *dst, int i) {
    config_list *l = dst;
    if (strcmp(item, "auto") == 0) {
        l->values[i] = 0;
        l->count = i + 1;
        return 0;
    }
    return one_count(k, item, dst, i);
}

static int one_real(config_knob k, const char *item, void *dst, int i) {
    config_real_list *l = dst;
    const int rc = real_value(k, item, &l->values[i]);
    if (rc) return rc;
    l->count = i + 1;
    return 0;
}

/* Where --variant's items go: the list, and the first name only the CPU
 * backend has (its "reference"; config_parse refuses it on the GPU). */
typedef struct variant_items {
    config_list *list;
    const char *cpu_name; /* the CPU method's own, static */
} variant_items;

/* A method's name on the CPU backend that the CUDA backend does not use:
 * its variant, or SIM_VARIANT_COUNT. */
static sim_variant cpu_only_variant(const char *name) {
    for (int v = 0; v < SIM_VARIANT_COUNT; v++) {
        const sim_method *m = sim_method_of(SIM_BACKEND_CPU, (sim_variant)v);
        if (m && strcmp(m->name, name) == 0) return (sim_variant)v;
    }
    return SIM_VARIANT_COUNT;
}

static int one_variant(config_knob k, const char *item, void *dst, int i) {
    variant_items *d = dst;
    sim_variant v = sim_variant_from_name(item);
    if (!sim_method_of(SIM_BACKEND_CUDA, v)) {
        v = cpu_only_variant(item);
        if (v == SIM_VARIANT_COUNT) {
            return refuse(k, item, "see nbody --help for the methods' names", "unknown method");
        }
        if (!d->cpu_name) d->cpu_name = sim_method_of(SIM_BACKEND_CPU, v)->name;
    }
    d->list->values[i] = v;
    d->list->count = i + 1;
    return 0;
}

int config_knob_parse(config *c, config_knob k, const char *v) {
    double d = 0;
    int rc = 0;
    c->given[k] = true;
    switch (k) {
    case CONFIG_KNOB_N:
        rc = each_item(k, v, one_count, &c->n_list);
        if (!rc) c->sim.body_count = c->n_list.values[0];
        return rc;
    case CONFIG_KNOB_SCENE:
        if (config_scene_find(v) < 0) {
            return refuse(k, v,
                          "presets: plummer shell disk antennae-like retrograde minor-merger "
                          "milky-way-andromeda",
                          "unknown preset");
        }
        c->preset = v;
        return 0;
    case CONFIG_KNOB_IC:
        c->sim.ic = sim_ic_from_name(v);
        if (c->sim.ic == SIM_IC_COUNT) {
            return refuse(k, v, "use --ic plummer, shell, disk or merger",
                          "unknown initial condition");
        }
        return 0;
    case CONFIG_KNOB_SEED: {
        const base_number r = base_parse_u64(v, &c->sim.seed);
        if (r != BASE_NUMBER_OK) {
            return refuse(k, v, "pass a whole number from 0 to 18446744073709551615", "%s",
                          base_number_problem(r));
        }
        return 0;
    }
    case CONFIG_KNOB_DT:
    case CONFIG_KNOB_SOFTENING:
    case CONFIG_KNOB_DAMPING:
    case CONFIG_KNOB_MASS_RATIO:
    case CONFIG_KNOB_PERICENTER:
    case CONFIG_KNOB_SEPARATION:
    case CONFIG_KNOB_ECCENTRICITY:
    case CONFIG_KNOB_INCL1:
    case CONFIG_KNOB_INCL2:
    case CONFIG_KNOB_DISK_TEMPERATURE:
        rc = real_value(k, v, &d);
        if (rc) return rc;
        double *field[] = {
            [CONFIG_KNOB_DT] = &c->sim.dt,
            [CONFIG_KNOB_SOFTENING] = &c->sim.softening,
            [CONFIG_KNOB_DAMPING] = &c->sim.damping,
            [CONFIG_KNOB_MASS_RATIO] = &c->sim.merger.mass_ratio,
            [CONFIG_KNOB_PERICENTER] = &c->sim.merger.pericenter,
            [CONFIG_KNOB_SEPARATION] = &c->sim.merger.separation,
            [CONFIG_KNOB_ECCENTRICITY] = &c->sim.merger.eccentricity,
            [CONFIG_KNOB_INCL1] = &c->sim.merger.incl1,
            [CONFIG_KNOB_INCL2] = &c->sim.merger.incl2,
            [CONFIG_KNOB_DISK_TEMPERATURE] = &c->sim.galaxy.disk_temperature,
        };
        *field[k] = d;
        return 0;
    case CONFIG_KNOB_TREE_ALPHA:
        rc = real_value(k, v, &d);
        if (rc) return rc;
        c->sim.tree_alpha = d > 0 ? d : -1; /* sim_desc: 0 is its default, negative off */
        return 0;
    case CONFIG_KNOB_THETA:
        rc = each_item(k, v, one_real, &c->theta_list);
        if (!rc) c->sim.theta = c->theta_list.values[0];
        return rc;
    case CONFIG_KNOB_BACKEND: {
        const sim_backend b = sim_backend_from_name(v);
        if (b == SIM_BACKEND_COUNT || b == SIM_BACKEND_DEFAULT) {
            return refuse(k, v, "use --backend cuda or --backend cpu", "unknown backend");
        }
        c->sim.backend = b;
        return 0;
    }
    case CONFIG_KNOB_GPUS: {
        if (strcmp(v, "auto") == 0) {
            c->sim.gpus = 0; /* config_scene_desc asks config_gpus */
            return 0;
        }
        long long g = 0;
        const base_number r = base_parse_whole(v, 1, SIM_MAX_GPUS, &g);
        if (r != BASE_NUMBER_OK) {
            return refuse(k, v,
                          "pass a whole number of GPUs from 1 to " STR(SIM_MAX_GPUS) ", or auto",
                          "%s", base_number_problem(r));
        }
        c->sim.gpus = (int)g;
        return 0;
    }
    case CONFIG_KNOB_VARIANT:
        c->variant_list.count = 0;
        c->variant_cpu_name = NULL;
        if (strcmp(v, "all") == 0) { /* the GPU's ladder, in order */
            sim_variant all[CONFIG_LIST_MAX];
            c->variant_list.count = sim_methods(SIM_BACKEND_CUDA, all, CONFIG_LIST_MAX);
            for (int i = 0; i < c->variant_list.count; i++) c->variant_list.values[i] = all[i];
        } else {
            variant_items items = {&c->variant_list, NULL};
            rc = each_item(k, v, one_variant, &items);
            if (rc) return rc;
            c->variant_cpu_name = items.cpu_name;
        }
        c->sim.variant = (sim_variant)c->variant_list.values[0];
        return 0;
    case CONFIG_KNOB_P:
    case CONFIG_KNOB_Q: {
        config_list *l = k == CONFIG_KNOB_P ? &c->p_list : &c->q_list;
        rc = each_item(k, v, one_block, l);
        if (rc) return rc;
        if (k == CONFIG_KNOB_P) {
            c->sim.p = l->values[0];
        } else {
            c->sim.q = l->values[0];
        }
        return 0;
    }
    case CONFIG_KNOB_STEPS_PER_FRAME: {
        long long s = 0;
        const base_number r = base_parse_whole(v, 1, STEPS_PER_FRAME_MAX, &s);
        if (r != BASE_NUMBER_OK) {
            return refuse(k, v, "pass a whole number of steps from 1 to 100000", "%s",
                          base_number_problem(r));
        }
        c->steps_per_frame = (int)s;
        return 0;
    }
    case CONFIG_KNOB_RETROGRADE:
        c->retrograde = true;
        return 0;
    case CONFIG_KNOB_COUNT:
        break;
    }
    return 0;
}
