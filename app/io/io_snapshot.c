/* io_snapshot.c - snapshot files as the app reads and writes them: a file
 * (tipsy, GADGET-2, HDF5, recognised from its content by snap/) read into
 * bodies in model units, the files --load names (one, or a series: a
 * folder's snapshots or a glob's matches, sorted by name), and the state
 * written as tipsy with its sidecar, or as HDF5.
 *
 * Our own saves (tipsy plus its "<file>.nbody" sidecar, whose knobs are
 * valid) come back exactly: the same bodies, time and knobs, nothing
 * recentred or converted. A foreign file is recentred (centre of mass and
 * mean velocity to zero) and, when it states its units (HDF5), converted to
 * the galaxy units (1 kpc, 10^10 solar masses, G = 1, hence 207.4 km/s and
 * 4.71 Myr: docs/GALAXIES.md), GADGET's /h in lengths, masses and times
 * divided out; a file without units (tipsy, GADGET-2 binary) is taken as
 * G = 1 model units as it is. io_snapshot.note says which. Units that do
 * not convert, and bodies that come out of the conversion beyond what the
 * simulation can hold (check_values), are refused before anything runs.
 * What a snapshot means for the scene on screen is the app's
 * (app_snapshot.c).
 *
 * Written HDF5 states its units: the galaxy units for a galaxy scene, and
 * for the others (G = 1 model units) the same cgs values, one choice of
 * scale for a scale-free model, with /Nbody/UnitSystem saying which.
 */
#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io.h"

/* The galaxy units in cgs (sim.h: SIM_GALAXY_*, SIM_KPC_CM, SIM_MSUN_G, SIM_G_CGS). */
#define GALAXY_LENGTH_CM (SIM_GALAXY_KPC_PER_LENGTH * SIM_KPC_CM)
#define GALAXY_MASS_G (SIM_GALAXY_MSUN_PER_MASS * SIM_MSUN_G)
#define GALAXY_VELOCITY_CM_S (sqrt(SIM_G_CGS * GALAXY_MASS_G / GALAXY_LENGTH_CM))

/* The most a position, velocity or mass may be, in model units, for the
 * simulation to hold it: the CUDA backend's float kernels keep them in
 * float, square differences of positions (three squares of up to 2e18 add
 * to 1.2e37) and add up masses over all bodies (2^31 of 1e18: 2e27), all
 * below FLT_MAX (3.4e38). A snapshot beyond it has units that do not match
 * its values. */
#define BODY_VALUE_MAX 1e18

void io_snapshot_free(io_snapshot *p) {
    free(p->bodies);
    free(p->ids);
    free(p->by_id);
    p->bodies = NULL;
    p->ids = NULL;
    p->by_id = NULL;
}

typedef struct id_pair {
    uint64_t id;
    int index;
} id_pair;

static int by_id_then_index(const void *x, const void *y) {
    const id_pair *a = x, *b = y;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

void io_snapshot_index_ids(io_snapshot *s, bool *duplicate) {
    *duplicate = false;
    free(s->by_id);
    s->by_id = NULL;
    if (!s->ids || s->count <= 0) return;
    id_pair *pairs = malloc(sizeof *pairs * (size_t)s->count);
    int *order = malloc(sizeof *order * (size_t)s->count);
    if (!pairs || !order) {
        free(pairs);
        free(order);
        return;
    }
    for (int i = 0; i < s->count; i++) pairs[i] = (id_pair){s->ids[i], i};
    qsort(pairs, (size_t)s->count, sizeof *pairs, by_id_then_index);
    for (int i = 0; i < s->count; i++) {
        order[i] = pairs[i].index;
        if (i > 0 && pairs[i].id == pairs[i - 1].id) *duplicate = true;
    }
    free(pairs);
    if (*duplicate) {
        free(order);
        return;
    }
    s->by_id = order;
}

const char *io_base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Centre of mass and mean (mass-weighted) velocity to zero; unweighted
 * when the masses do not add up to a positive total. */
static void recentre(sim_body *b, int n) {
    double m = 0;
    for (int i = 0; i < n; i++) m += b[i].mass;
    const bool weighted = m > 0 && isfinite(m);
    if (!weighted) m = n;
    double c[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        const double w = weighted ? b[i].mass : 1.0;
        for (int k = 0; k < 3; k++) {
            c[k] += w * b[i].pos[k];
            v[k] += w * b[i].vel[k];
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            b[i].pos[k] -= c[k] / m;
            b[i].vel[k] -= v[k] / m;
        }
    }
}

static const char units_hint[] =
    "the file's unit attributes (UnitLength_in_cm, UnitMass_in_g, UnitVelocity_in_cm_per_s, or "
    "SWIFT's /Units) do not match its values; correct them, or delete them to load the values as "
    "G = 1 model units";

/* Scales a foreign file's bodies and time to the galaxy units when its
 * units are known; writes what was done to p->note, and the factors to
 * factor (length, velocity, mass; 1 when not converted). false with *err
 * when the units do not convert (a factor or the time not finite and
 * positive). */
static bool convert_units(const snap_data *d, io_snapshot *p, double factor[3], snap_error *err) {
    const snap_units *u = &d->units;
    const double h = u->hubble > 0 && isfinite(u->hubble) ? u->hubble : 1.0;
    const double length = u->length_cm / h / GALAXY_LENGTH_CM, mass = u->mass_g / h / GALAXY_MASS_G;
    const double velocity = u->velocity_cm_s / GALAXY_VELOCITY_CM_S;
    const double time =
        (u->length_cm / u->velocity_cm_s) / h / (GALAXY_LENGTH_CM / GALAXY_VELOCITY_CM_S);
    factor[0] = factor[1] = factor[2] = 1;
    if (!u->known) {
        snprintf(p->note, sizeof p->note,
                 "%.8s: no units in the file; taken as G = 1 model units as they are", p->format);
        return true;
    }
    const struct {
        const char *name, *cgs;
        double file, ours, factor;
    } factors[] = {
        {"length", "cm", u->length_cm / h, GALAXY_LENGTH_CM, length},
        {"mass", "g", u->mass_g / h, GALAXY_MASS_G, mass},
        {"velocity", "cm/s", u->velocity_cm_s, GALAXY_VELOCITY_CM_S, velocity},
        {"time", "s", u->length_cm / u->velocity_cm_s / h, GALAXY_LENGTH_CM / GALAXY_VELOCITY_CM_S,
         time},
    };
    for (size_t i = 0; i < sizeof factors / sizeof factors[0]; i++) {
        if (!(isfinite(factors[i].factor) && factors[i].factor > 0)) {
            snprintf(err->message, sizeof err->message,
                     "its %s unit, %g %s, is %g galaxy units of %g %s: it does not convert",
                     factors[i].name, factors[i].file, factors[i].cgs, factors[i].factor,
                     factors[i].ours, factors[i].cgs);
            snprintf(err->hint, sizeof err->hint, "%s", units_hint);
            return false;
        }
    }
    for (int i = 0; i < p->count; i++) {
        for (int k = 0; k < 3; k++) {
            p->bodies[i].pos[k] *= length;
            p->bodies[i].vel[k] *= velocity;
        }
        p->bodies[i].mass *= mass;
    }
    /* A cosmological run's time is the scale factor a: shown as it is. */
    if (!u->comoving) p->time *= time;
    factor[0] = length;
    factor[1] = velocity;
    factor[2] = mass;
    p->galaxy_units = true;
    snprintf(p->note, sizeof p->note,
             "%.8s units -> galaxy units (kpc, 1e10 Msun, 207.4 km/s): length x%.4g, mass x%.4g, "
             "velocity x%.4g%s%s",
             p->format, length, mass, velocity, h != 1.0 ? " (h divided out)" : "",
             u->comoving ? ", comoving, t is the scale factor" : "");
    return true;
}

/* Refuses bodies the simulation cannot hold after the conversion: a
 * position or velocity beyond BODY_VALUE_MAX, a mass beyond it or a
 * positive mass below the smallest normal float (which the float kernels
 * would lose), a time that is not finite. factor is convert_units' (length,
 * velocity, mass), for the message. */
static bool check_values(const io_snapshot *p, bool converted, const double factor[3],
                         snap_error *err) {
    static const char axis[] = "xyz";
    char how[160];
    if (converted)
        snprintf(how, sizeof how,
                 "after the file's units are converted (length x%.4g, velocity "
                 "x%.4g, mass x%.4g)",
                 factor[0], factor[1], factor[2]);
    else
        snprintf(how, sizeof how, "%s", p->own ? "in the save" : "taken as G = 1 model units");
    const char *hint = converted
                           ? units_hint
                           : "the file's values are damaged, or in units far from G = 1 model "
                             "units: rescale them";
    int bad = -1;
    char what[64] = "";
    bool tiny = false;
    for (int i = 0; i < p->count && bad < 0; i++) {
        const sim_body *b = &p->bodies[i];
        for (int k = 0; k < 3 && !what[0]; k++) {
            if (!(fabs(b->pos[k]) <= BODY_VALUE_MAX))
                snprintf(what, sizeof what, "position %c = %g", axis[k], b->pos[k]);
            else if (!(fabs(b->vel[k]) <= BODY_VALUE_MAX))
                snprintf(what, sizeof what, "velocity v%c = %g", axis[k], b->vel[k]);
        }
        if (!what[0]) {
            tiny = b->mass > 0 && b->mass < FLT_MIN;
            if (tiny || !(b->mass >= 0 && b->mass <= BODY_VALUE_MAX))
                snprintf(what, sizeof what, "mass %g", b->mass);
        }
        if (what[0]) bad = i;
    }
    if (bad >= 0) {
        char limit[96];
        if (tiny)
            snprintf(limit, sizeof limit, "a positive mass below %g is lost in float arithmetic",
                     (double)FLT_MIN);
        else
            snprintf(limit, sizeof limit,
                     "nbody simulates positions, velocities and masses up to %g in model units",
                     BODY_VALUE_MAX);
        snprintf(err->message, sizeof err->message, "body %d of %d has %s %s; %s", bad, p->count,
                 what, how, limit);
        snprintf(err->hint, sizeof err->hint, "%s", hint);
        return false;
    }
    if (!isfinite(p->time)) {
        snprintf(err->message, sizeof err->message, "its time is %g %s", p->time, how);
        snprintf(err->hint, sizeof err->hint, "%s", hint);
        return false;
    }
    return true;
}

/* Checks the knobs of our own save with the same ranges as the flags. */
static bool check_knobs(const snap_knobs *k, snap_error *err) {
    const struct {
        sim_knob knob;
        double v;
    } knobs[] = {{SIM_KNOB_DT, k->dt},
                 {SIM_KNOB_SOFTENING, k->softening},
                 {SIM_KNOB_DAMPING, k->damping},
                 {SIM_KNOB_THETA, k->theta}};
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        sim_error e = {0};
        if (!sim_knob_check(knobs[i].knob, knobs[i].v, &e)) {
            snprintf(err->message, sizeof err->message, "its sidecar's %.200s", e.message);
            snprintf(err->hint, sizeof err->hint,
                     "the .nbody sidecar is damaged: remove it to "
                     "load the bodies as a foreign file");
            return false;
        }
    }
    return true;
}

/* Reads path (format from its content) into *p, in model units, recentred
 * unless it is our own save. false with *err. */
bool io_snapshot_read(const char *path, io_snapshot *p, snap_error *err) {
    *p = (io_snapshot){0};
    *err = (snap_error){0};
    if (snap_detect_file(path, err) == SNAP_FORMAT_UNKNOWN) {
        if (!err->message[0]) {
            snprintf(err->message, sizeof err->message, "not a tipsy, GADGET-2 or HDF5 snapshot");
        }
        if (!err->hint[0]) snprintf(err->hint, sizeof err->hint, "check the file name");
        return false;
    }
    snap_data d = {0};
    if (!snap_read_file(path, &d, err)) return false;
    if (d.count <= 0 || !d.bodies) {
        snap_free(&d);
        snprintf(err->message, sizeof err->message, "the snapshot holds no bodies");
        snprintf(err->hint, sizeof err->hint, "give a snapshot with at least one body");
        return false;
    }
    if (d.knobs.valid && !check_knobs(&d.knobs, err)) {
        snap_free(&d);
        return false;
    }
    p->bodies = malloc(sizeof *p->bodies * (size_t)d.count);
    if (!p->bodies) {
        snap_free(&d);
        snprintf(err->message, sizeof err->message, "out of memory for %d bodies", d.count);
        snprintf(err->hint, sizeof err->hint, "load a smaller snapshot");
        return false;
    }
    p->count = d.count;
    for (int i = 0; i < d.count; i++) {
        const snap_body *s = &d.bodies[i];
        p->bodies[i] = (sim_body){.pos = {s->pos[0], s->pos[1], s->pos[2]},
                                  .vel = {s->vel[0], s->vel[1], s->vel[2]},
                                  .mass = s->mass,
                                  .tag = s->tag};
    }
    p->ids = d.ids; /* the file's IDs travel with the bodies: nothing reorders them */
    d.ids = NULL;
    p->time = d.time;
    p->knobs = d.knobs;
    p->comoving = d.units.comoving;
    p->own = d.knobs.valid;
    p->format = snap_format_name(d.format);
    double factor[3] = {1, 1, 1};
    bool ok = true;
    if (p->own) {
        snprintf(p->note, sizeof p->note, "%.8s save with its knobs: continues exactly", p->format);
    } else {
        ok = convert_units(&d, p, factor, err);
    }
    ok = ok && check_values(p, p->galaxy_units, factor, err);
    snap_free(&d);
    if (!ok) {
        io_snapshot_free(p);
        return false;
    }
    if (!p->own) {
        recentre(p->bodies, p->count);
        const size_t used = strlen(p->note);
        snprintf(p->note + used, sizeof p->note - used, "; recentred");
    }
    return true;
}

/* ---- the files --load names ---------------------------------------------- */

static int by_name(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

void io_series_free(char **list, int count) {
    for (int i = 0; i < count; i++) free(list[i]);
    free(list);
}

/* A growing list of names. */
typedef struct name_list {
    char **v;
    int count, cap;
} name_list;

static bool list_add(name_list *l, const char *name) {
    if (l->count == l->cap) {
        const int cap = l->cap ? 2 * l->cap : 64;
        char **grown = realloc(l->v, sizeof *grown * (size_t)cap);
        if (!grown) return false;
        l->v = grown;
        l->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy) return false;
    l->v[l->count++] = copy;
    return true;
}

/* Adds name to the snapshots if snap/ recognises it, else a regular file to
 * the others (a folder or FIFO is no file of the series, and said nowhere). */
static bool sort_file(name_list *snaps, name_list *others, const char *name) {
    snap_error quiet = {0};
    if (snap_detect_file(name, &quiet) != SNAP_FORMAT_UNKNOWN) return list_add(snaps, name);
    struct stat st;
    if (stat(name, &st) != 0 || !S_ISREG(st.st_mode)) return true;
    return list_add(others, name);
}

/* Counts the others into *out, naming the first few, leaving out the
 * sidecars whose tipsy file is in the (sorted) series. */
static void say_skipped(const name_list *snaps, name_list *others, io_series_skipped *out) {
    *out = (io_series_skipped){0};
    if (others->count > 1) qsort(others->v, (size_t)others->count, sizeof *others->v, by_name);
    size_t used = 0;
    for (int i = 0; i < others->count; i++) {
        const char *name = others->v[i];
        const size_t len = strlen(name);
        if (len > 6 && strcmp(name + len - 6, ".nbody") == 0) {
            char tipsy[PATH_MAX];
            snprintf(tipsy, sizeof tipsy, "%.*s", (int)(len - 6), name);
            const char *key = tipsy;
            if (snaps->count > 0 &&
                bsearch(&key, snaps->v, (size_t)snaps->count, sizeof *snaps->v, by_name)) {
                continue;
            }
        }
        if (++out->count <= IO_SERIES_SKIPPED_NAMED && used < sizeof out->names) {
            used += (size_t)snprintf(out->names + used, sizeof out->names - used, "%s%s",
                                     out->count > 1 ? ", " : "", io_base_name(name));
        }
    }
    if (out->count > IO_SERIES_SKIPPED_NAMED && used < sizeof out->names) {
        snprintf(out->names + used, sizeof out->names - used, " and %d more",
                 out->count - IO_SERIES_SKIPPED_NAMED);
    }
}

bool io_series_resolve(const char *arg, bool *series, char ***list, int *count,
                       io_series_skipped *skipped, snap_error *err) {
    *list = NULL;
    *count = 0;
    if (skipped) *skipped = (io_series_skipped){0};
    struct stat st;
    const bool exists = stat(arg, &st) == 0;
    const bool folder = exists && S_ISDIR(st.st_mode);
    const bool pattern = !exists && strpbrk(arg, "*?[") != NULL;
    if (!folder && !pattern) {
        *series = false;
        return true;
    }
    *series = true;
    name_list snaps = {0}, others = {0};
    bool ok = true;
    if (folder) {
        DIR *dir = opendir(arg);
        if (!dir) {
            snprintf(err->message, sizeof err->message, "cannot read the folder: %s",
                     strerror(errno));
            snprintf(err->hint, sizeof err->hint, "check its permissions");
            return false;
        }
        const struct dirent *e;
        while (ok && (e = readdir(dir)) != NULL) {
            if (e->d_name[0] == '.') continue; /* ., .. and hidden files */
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", arg, e->d_name) >= (int)sizeof path) continue;
            ok = sort_file(&snaps, &others, path);
        }
        closedir(dir);
    } else {
        glob_t g;
        const int rc = glob(arg, 0, NULL, &g);
        if (rc != 0 && rc != GLOB_NOMATCH) ok = false;
        for (size_t i = 0; ok && rc == 0 && i < g.gl_pathc; i++) {
            ok = sort_file(&snaps, &others, g.gl_pathv[i]);
        }
        if (rc == 0 || rc == GLOB_NOMATCH) globfree(&g);
    }
    /* qsort and bsearch want a list, even of none: the empty one is NULL. */
    if (ok && snaps.count > 1) qsort(snaps.v, (size_t)snaps.count, sizeof *snaps.v, by_name);
    if (ok && skipped) say_skipped(&snaps, &others, skipped);
    io_series_free(others.v, others.count);
    if (!ok) {
        io_series_free(snaps.v, snaps.count);
        snprintf(err->message, sizeof err->message, "out of memory listing the snapshots");
        snprintf(err->hint, sizeof err->hint, "name fewer files");
        return false;
    }
    if (snaps.count == 0) {
        free(snaps.v);
        snprintf(err->message, sizeof err->message,
                 folder ? "no tipsy, GADGET-2 or HDF5 snapshot in this folder"
                        : "the pattern matches no tipsy, GADGET-2 or HDF5 snapshot");
        snprintf(err->hint, sizeof err->hint,
                 "give a snapshot file, a folder of snapshots, or a quoted pattern such as "
                 "--load 'run_*.hdf5'");
        return false;
    }
    *list = snaps.v;
    *count = snaps.count;
    return true;
}

void io_load_error(const char *arg, const snap_error *err) {
    /* snap/'s messages start with the file's name (as given, its tail or its
     * last part), which this line already gives. */
    const char *what = err->message;
    const size_t arg_len = strlen(arg);
    for (const char *c = strstr(what, ": "); c; c = strstr(c + 1, ": ")) {
        const size_t len = (size_t)(c - what);
        if (len > 0 && len <= arg_len && strncmp(what, arg + arg_len - len, len) == 0) {
            what = c + 2;
            break;
        }
    }
    fprintf(stderr, "nbody: --load %s: %s\nhint: %s\n", arg, what,
            err->hint[0] ? err->hint : "check the file");
}

/* The format --dump's extension names; UNKNOWN for CSV. */
snap_format io_dump_format(const char *path) {
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return SNAP_FORMAT_UNKNOWN;
    if (strcasecmp(dot, ".tipsy") == 0) return SNAP_FORMAT_TIPSY;
    if (strcasecmp(dot, ".hdf5") == 0 || strcasecmp(dot, ".h5") == 0) return SNAP_FORMAT_HDF5;
    return SNAP_FORMAT_UNKNOWN;
}

/* ---- writing -------------------------------------------------------------- */

bool io_snapshot_write(const char *path, snap_format format, const sim_body *b, int n, double time,
                       const snap_knobs *knobs, bool galaxy_units) {
    snap_data d = {.bodies = malloc(sizeof(snap_body) * (size_t)n),
                   .count = n,
                   .time = time,
                   .format = SNAP_FORMAT_TIPSY,
                   .knobs = *knobs,
                   .units = {.known = true,
                             .length_cm = GALAXY_LENGTH_CM,
                             .mass_g = GALAXY_MASS_G,
                             .velocity_cm_s = GALAXY_VELOCITY_CM_S,
                             .hubble = 1}};
    if (galaxy_units)
        snprintf(d.units.system, sizeof d.units.system,
                 "galaxy units: G = 1, length %g kpc, mass %g Msun, velocity %g km/s, time %g Myr",
                 SIM_GALAXY_KPC_PER_LENGTH, SIM_GALAXY_MSUN_PER_MASS, SIM_GALAXY_KMS_PER_VELOCITY,
                 SIM_GALAXY_MYR_PER_TIME);
    else
        snprintf(d.units.system, sizeof d.units.system,
                 "G = 1 model units (Henon units, G = M = 1, for the Plummer sphere and the "
                 "shell); the cgs units given are one choice of scale for them");
    if (!d.bodies) {
        fprintf(stderr, "nbody: out of memory for a snapshot of %d bodies\nhint: fewer bodies\n",
                n);
        return false;
    }
    for (int i = 0; i < n; i++) {
        d.bodies[i] = (snap_body){.pos = {b[i].pos[0], b[i].pos[1], b[i].pos[2]},
                                  .vel = {b[i].vel[0], b[i].vel[1], b[i].vel[2]},
                                  .mass = b[i].mass,
                                  /* without a playback's fade level */
                                  .tag = (uint8_t)(b[i].tag & ~(NBODY_TAG_FADE_MASK << NBODY_TAG_FADE_SHIFT))};
    }
    snap_error err = {0};
    uint8_t *buf = NULL, *side = NULL;
    size_t len = 0, side_len = 0;
    bool ok;
    if (format == SNAP_FORMAT_HDF5) {
        ok = snap_write_hdf5(&d, &buf, &len, &err);
    } else {
        ok = snap_write_tipsy(&d, &buf, &len, &err) &&
             snap_write_sidecar(&d, &side, &side_len, &err);
    }
    snap_free(&d);
    if (!ok) {
        fprintf(stderr, "nbody: cannot write %s: %s\nhint: %s\n", path, err.message, err.hint);
        free(buf);
        free(side);
        return false;
    }
    /* The sidecar first: a tipsy file never stands without its knobs. */
    char side_path[PATH_MAX + 8];
    snprintf(side_path, sizeof side_path, "%s.nbody", path);
    if (side && !io_write_bytes(side_path, "snapshot sidecar", side, side_len)) {
        ok = false;
    } else if (!io_write_bytes(path, "snapshot", buf, len)) {
        if (side) unlink(side_path);
        ok = false;
    }
    free(buf);
    free(side);
    return ok;
}
