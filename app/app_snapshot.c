/* app_snapshot.c - snapshots in the app: --load, F5 / F9, --dump FILE.tipsy
 * or .hdf5, and a series of snapshots played as a movie.
 *
 * The file formats are snap/'s (tipsy, GADGET-2, HDF5, recognised from the
 * content); this file decides what a snapshot means for the scene on
 * screen. Our own saves (tipsy plus its "<file>.nbody" sidecar, whose knobs
 * are valid) continue exactly: the same bodies, time, dt, softening,
 * damping, theta and scene, nothing recentred or converted. A foreign file
 * is recentred (centre of mass and mean velocity to zero) and, when it
 * states its units (HDF5), converted to the galaxy units (1 kpc, 10^10
 * solar masses, G = 1, hence 207.4 km/s and 4.71 Myr: docs/GALAXIES.md),
 * GADGET's /h in lengths, masses and times divided out; a file without
 * units (tipsy, GADGET-2 binary) is taken as G = 1 model units as it is.
 * The HUD and stdout say which. A foreign file runs with the galaxy scene's
 * dt and softening when converted, else the Plummer sphere's (--dt and
 * --softening on top).
 *
 * sim_set_bodies restarts the simulation's clock at 0, so the file's time
 * and steps are kept here and added wherever time is shown or saved.
 *
 * Playback: --load 'GLOB' (expanded here with glob(3)) or --load DIR (its
 * snapshot files, sorted by name) shows one file per frame without
 * stepping, inside the normal app_frame, so drawing, colouring and
 * recording are those of a live run. A file that fails to load is reported
 * on the HUD and skipped.
 */
#include <dirent.h>
#include <errno.h>
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

#include "app.h"
#include "snap.h"

/* Galaxy units in cgs: 1 kpc, 10^10 solar masses and G = 1 (IAU 2015 and
 * CODATA 2018 values), which give 207.4 km/s and 4.71 Myr. */
#define KPC_CM 3.0856775814913673e21
#define MSUN_G 1.98841e33
#define G_CGS 6.67430e-8
#define GALAXY_MASS_G (1e10 * MSUN_G)

/* Bodies the sim is created with before a loaded file replaces them. */
#define PLACEHOLDER_BODIES 1024

/* A snapshot read and made ready for the scene. */
typedef struct prepared {
    sim_body *bodies;
    int count;
    double time;
    bool own;          /* our save: knobs valid, nothing converted */
    bool galaxy_units; /* converted from the file's units to the galaxy units */
    snap_knobs knobs;
    const char *format;
    char note[256]; /* how the units were taken */
} prepared;

static void prepared_free(prepared *p) {
    free(p->bodies);
    p->bodies = NULL;
}

static const char *base_name(const char *path) {
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

/* Scales a foreign file's bodies and time to the galaxy units when its
 * units are known and usable; writes what was done to p->note. */
static void convert_units(const snap_data *d, prepared *p) {
    const snap_units *u = &d->units;
    const double h = u->hubble > 0 && isfinite(u->hubble) ? u->hubble : 1.0;
    const double length = u->length_cm / h / KPC_CM, mass = u->mass_g / h / GALAXY_MASS_G;
    const double v_unit = sqrt(G_CGS * GALAXY_MASS_G / KPC_CM); /* cm/s */
    const double velocity = u->velocity_cm_s / v_unit;
    const double time = (u->length_cm / u->velocity_cm_s) / h / (KPC_CM / v_unit);
    const bool usable = u->known && isfinite(length) && length > 0 && isfinite(mass) && mass > 0 &&
                        isfinite(velocity) && velocity > 0 && isfinite(time);
    if (!usable) {
        snprintf(p->note, sizeof p->note, "%.8s: %s; taken as G = 1 model units as they are",
                 p->format, u->known ? "its units are not usable" : "no units in the file");
        return;
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
    p->galaxy_units = true;
    snprintf(p->note, sizeof p->note,
             "%.8s units -> galaxy units (kpc, 1e10 Msun, 207.4 km/s): length x%.4g, mass x%.4g, "
             "velocity x%.4g%s%s",
             p->format, length, mass, velocity, h != 1.0 ? " (h divided out)" : "",
             u->comoving ? ", comoving, t is the scale factor" : "");
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
static bool prepare(const char *path, prepared *p, snap_error *err) {
    *p = (prepared){0};
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
    p->time = d.time;
    p->knobs = d.knobs;
    p->own = d.knobs.valid;
    p->format = snap_format_name(d.format);
    if (p->own) {
        snprintf(p->note, sizeof p->note, "%.8s save with its knobs: continues exactly", p->format);
    } else {
        convert_units(&d, p);
        recentre(p->bodies, p->count);
        const size_t used = strlen(p->note);
        snprintf(p->note + used, sizeof p->note - used, "; recentred");
    }
    snap_free(&d);
    return true;
}

/* ---- the files --load names ---------------------------------------------- */

static int by_name(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void free_list(char **list, int count) {
    for (int i = 0; i < count; i++) free(list[i]);
    free(list);
}

/* Appends a copy of name to *list unless it is no snapshot (a folder, a
 * FIFO, a sidecar, a README): a series holds the files snap/ recognises. */
static bool append_snapshot(char ***list, int *count, int *cap, const char *name) {
    snap_error quiet = {0};
    if (snap_detect_file(name, &quiet) == SNAP_FORMAT_UNKNOWN) return true;
    if (*count == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        char **grown = realloc(*list, sizeof *grown * (size_t)*cap);
        if (!grown) return false;
        *list = grown;
    }
    char *copy = strdup(name);
    if (!copy) return false;
    (*list)[(*count)++] = copy;
    return true;
}

typedef enum load_kind { LOAD_FILE, LOAD_SERIES } load_kind;

/* What --load ARG names: one file, or a series (a folder's snapshots or a
 * glob's matches, sorted by name, in *list). false with *err. */
static bool resolve(const char *arg, load_kind *kind, char ***list, int *count, snap_error *err) {
    *list = NULL;
    *count = 0;
    struct stat st;
    const bool exists = stat(arg, &st) == 0;
    const bool folder = exists && S_ISDIR(st.st_mode);
    const bool pattern = !exists && strpbrk(arg, "*?[") != NULL;
    if (!folder && !pattern) {
        *kind = LOAD_FILE;
        return true;
    }
    *kind = LOAD_SERIES;
    int cap = 0;
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
            ok = append_snapshot(list, count, &cap, path);
        }
        closedir(dir);
    } else {
        glob_t g;
        const int rc = glob(arg, 0, NULL, &g);
        if (rc != 0 && rc != GLOB_NOMATCH) ok = false;
        for (size_t i = 0; ok && rc == 0 && i < g.gl_pathc; i++) {
            ok = append_snapshot(list, count, &cap, g.gl_pathv[i]);
        }
        if (rc == 0 || rc == GLOB_NOMATCH) globfree(&g);
    }
    if (!ok) {
        free_list(*list, *count);
        *list = NULL;
        *count = 0;
        snprintf(err->message, sizeof err->message, "out of memory listing the snapshots");
        snprintf(err->hint, sizeof err->hint, "name fewer files");
        return false;
    }
    if (*count == 0) {
        free(*list);
        *list = NULL;
        snprintf(err->message, sizeof err->message,
                 folder ? "no tipsy, GADGET-2 or HDF5 snapshot in this folder"
                        : "the pattern matches no tipsy, GADGET-2 or HDF5 snapshot");
        snprintf(err->hint, sizeof err->hint,
                 "give a snapshot file, a folder of snapshots, or a quoted pattern such as "
                 "--load 'run_*.hdf5'");
        return false;
    }
    qsort(*list, (size_t)*count, sizeof **list, by_name);
    return true;
}

static void load_error(const char *arg, const snap_error *err) {
    /* snap/'s messages start with the file's name, which this line already gives. */
    const char *what = err->message, *name = base_name(arg);
    const size_t len = strlen(name);
    if (strncmp(what, name, len) == 0 && strncmp(what + len, ": ", 2) == 0) what += len + 2;
    fprintf(stderr, "nbody: --load %s: %s\nhint: %s\n", arg, what,
            err->hint[0] ? err->hint : "check the file");
}

/* The format --dump's extension names; UNKNOWN for CSV. */
static snap_format dump_format(const char *path) {
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return SNAP_FORMAT_UNKNOWN;
    if (strcasecmp(dot, ".tipsy") == 0) return SNAP_FORMAT_TIPSY;
    if (strcasecmp(dot, ".hdf5") == 0 || strcasecmp(dot, ".h5") == 0) return SNAP_FORMAT_HDF5;
    return SNAP_FORMAT_UNKNOWN;
}

bool app_snapshot_check_cli(const app_config *c) {
    if (c->dump && dump_format(c->dump) == SNAP_FORMAT_HDF5 && !snap_hdf5_available()) {
        fprintf(stderr,
                "nbody: --dump %s: this nbody was built without HDF5\n"
                "hint: install libhdf5-dev (scripts/install-deps.sh) and rebuild, or dump "
                "FILE.tipsy or FILE.csv\n",
                c->dump);
        return false;
    }
    if (!c->load) return true;
    if (c->benchmark) {
        fprintf(stderr,
                "nbody: --load %s does not apply to --benchmark\n"
                "hint: drop --load, or --benchmark\n",
                c->load);
        return false;
    }
    /* The file (a series: its first) is read whole now, so a bad one stops
     * the program before any window opens; app_snapshot_open reads it again. */
    load_kind kind;
    char **list = NULL;
    int count = 0;
    snap_error err = {0};
    if (!resolve(c->load, &kind, &list, &count, &err)) {
        load_error(c->load, &err);
        return false;
    }
    prepared p;
    const char *first = kind == LOAD_SERIES ? list[0] : c->load;
    const bool ok = prepare(first, &p, &err);
    if (!ok) load_error(first, &err);
    prepared_free(&p);
    free_list(list, count);
    return ok;
}

/* ---- into the simulation -------------------------------------------------- */

/* Puts p's bodies into the simulation and records where they came from. */
static bool install(app *a, const char *path, prepared *p, snap_error *err) {
    sim_error e = {0};
    if (!sim_set_bodies(a->sim, p->bodies, p->count, &e)) {
        snprintf(err->message, sizeof err->message, "%s", e.message);
        snprintf(err->hint, sizeof err->hint, "%s", e.hint);
        return false;
    }
    app_snapshot *s = &a->snapshot;
    snprintf(s->file, sizeof s->file, "%s", path);
    snprintf(s->format, sizeof s->format, "%s", p->format);
    snprintf(s->units_note, sizeof s->units_note, "%s", p->note);
    s->time_offset = p->time;
    s->steps_offset = p->own ? p->knobs.steps : 0;
    return true;
}

/* Our save's knobs become the live ones (F9; at start-up they go into the
 * desc instead). */
static void apply_knobs(app *a, const snap_knobs *k) {
    sim_set_dt(a->sim, (float)k->dt);
    sim_set_softening(a->sim, (float)k->softening);
    sim_set_damping(a->sim, (float)k->damping);
    sim_set_theta(a->sim, (float)k->theta);
    a->live.damping_gap = 1.0 - k->damping;
    const int scene = app_scene_find(k->scene);
    if (scene >= 0) a->scene = scene;
}

static void update_hud(app *a) {
    app_snapshot *s = &a->snapshot;
    const double t = s->time_offset + sim_get_params(a->sim).time;
    int n = 0;
    if (s->series) {
        n = snprintf(s->hud, sizeof s->hud, "%s %d/%d  %s  t = %.4g  (%s)",
                     s->playing ? "playing" : "paused", s->series_shown + 1, s->series_count,
                     base_name(s->file), t, s->units_note);
    } else if (s->file[0]) {
        n = snprintf(s->hud, sizeof s->hud, "%s at t = %.4g (the t above counts from it): %s",
                     base_name(s->file), s->time_offset, s->units_note);
    }
    if (n < 0 || (size_t)n >= sizeof s->hud) n = 0;
    if (s->last_save[0]) { /* the newest news first, in case the line is cut */
        char line[sizeof s->hud];
        snprintf(line, sizeof line, "saved %.160s (F9)%s%.*s", s->last_save, n ? "  ·  " : "", n,
                 s->hud);
        memcpy(s->hud, line, sizeof line);
    } else if (n == 0) {
        s->hud[0] = 0;
    }
}

bool app_snapshot_open(app *a, bool cpu, sim_desc *desc) {
    app_snapshot *s = &a->snapshot;
    load_kind kind;
    snap_error err = {0};
    if (!resolve(a->cfg.load, &kind, &s->series, &s->series_count, &err)) {
        load_error(a->cfg.load, &err);
        return false;
    }
    const char *first = kind == LOAD_SERIES ? s->series[0] : a->cfg.load;
    prepared p;
    if (!prepare(first, &p, &err)) {
        load_error(first, &err);
        return false;
    }
    /* The save's scene; for a foreign file --preset, else a galaxy scene in
     * galaxy units and the Plummer sphere's G = 1 units otherwise. */
    int scene = -1;
    if (p.own) scene = app_scene_find(p.knobs.scene);
    if (scene < 0 && a->cfg.preset) scene = app_scene_find(a->cfg.preset);
    if (scene < 0) scene = app_scene_find(p.galaxy_units ? "disk" : "plummer");
    a->scene = scene;
    *desc = app_scene_desc(scene, &a->cfg, cpu, true);
    const bool *given = a->cfg.given;
    if (p.own) { /* the save's knobs, unless the command line says otherwise */
        if (!given[APP_KNOB_DT]) desc->dt = (float)p.knobs.dt;
        if (!given[APP_KNOB_SOFTENING]) desc->softening = (float)p.knobs.softening;
        if (!given[APP_KNOB_DAMPING]) desc->damping = (float)p.knobs.damping;
        if (!given[APP_KNOB_THETA]) desc->theta = (float)p.knobs.theta;
    }
    /* The method for the file's N; a few placeholder bodies until then. */
    if (!cpu && !given[APP_KNOB_VARIANT]) desc->variant = sim_variant_auto(p.count);
    desc->body_count = p.count < PLACEHOLDER_BODIES ? p.count : PLACEHOLDER_BODIES;
    if (desc->body_count < 64) desc->body_count = 64; /* the scenes' generators want a few */
    s->pending = p.bodies;
    s->pending_count = p.count;
    p.bodies = NULL;
    snprintf(s->file, sizeof s->file, "%s", first);
    snprintf(s->format, sizeof s->format, "%s", p.format);
    snprintf(s->units_note, sizeof s->units_note, "%s", p.note);
    s->time_offset = p.time;
    s->steps_offset = p.own ? p.knobs.steps : 0;
    s->playing = kind == LOAD_SERIES;
    return true;
}

bool app_snapshot_start(app *a) {
    app_snapshot *s = &a->snapshot;
    sim_error e = {0};
    const bool ok = sim_set_bodies(a->sim, s->pending, s->pending_count, &e);
    free(s->pending);
    s->pending = NULL;
    if (!ok) {
        fprintf(stderr, "nbody: --load %s: %s\nhint: %s\n", s->file, e.message, e.hint);
        return false;
    }
    app_physics_changed(a);
    app_scene_brightness(a); /* for the file's N */
    app_fit_view(a);
    s->series_index = s->series_shown = s->series_shown_at = 0;
    update_hud(a);
    const sim_params p = sim_get_params(a->sim);
    if (s->series) {
        app_message(a, "playing %d snapshots from %s (Space pauses; . , step; [ ] 10): %s",
                    s->series_count, base_name(s->file), s->units_note);
    } else {
        app_message(a, "loaded %s (%s, %d bodies, t = %.6g): %s", base_name(s->file), s->format,
                    p.body_count, s->time_offset, s->units_note);
    }
    return true;
}

/* ---- playback ------------------------------------------------------------- */

/* Shows the first loadable file from index `from` on in direction step
 * (+1 or -1); a file that fails is reported and skipped. */
static void show(app *a, int from, int step) {
    app_snapshot *s = &a->snapshot;
    for (int i = from; i >= 0 && i < s->series_count; i += step) {
        prepared p;
        snap_error err = {0};
        const int before = sim_get_params(a->sim).body_count;
        const bool ok = prepare(s->series[i], &p, &err) && install(a, s->series[i], &p, &err);
        prepared_free(&p);
        if (ok) {
            /* A new N: a new energy reference and brightness. The same N
             * keeps the first file's energy, so the HUD's dE/E0 is the
             * series' drift (and the O(N^2) energy is not paid per frame). */
            if (sim_get_params(a->sim).body_count != before) {
                app_physics_changed(a);
                app_scene_brightness(a);
            }
            s->series_index = s->series_shown = i;
            s->series_shown_at = a->live.frame;
            update_hud(a);
            return;
        }
        app_message(a, "skipped %s: %s (%s)", base_name(s->series[i]), err.message, err.hint);
    }
    s->series_index = s->series_shown; /* nothing loadable that way: stay */
    s->playing = false;
    update_hud(a);
}

bool app_snapshot_playback_frame(app *a) {
    app_snapshot *s = &a->snapshot;
    if (!s->series) return false;
    if (s->series_index != s->series_shown) {
        show(a, s->series_index, s->series_index > s->series_shown ? 1 : -1);
    } else if (s->playing && !a->live.paused && a->live.frame > s->series_shown_at) {
        /* (paused: the window's last frame as it closes shows what is on screen) */
        if (s->series_shown + 1 < s->series_count) {
            show(a, s->series_shown + 1, 1);
        } else {
            s->playing = false;
            update_hud(a);
            app_message(a, "end of the series (Space plays it again; , and [ step back)");
        }
    }
    return true;
}

bool app_snapshot_playback_key(app *a, int dir) {
    app_snapshot *s = &a->snapshot;
    if (!s->series) return false;
    if (dir == 0) {
        s->playing = !s->playing;
        if (s->playing && s->series_shown + 1 >= s->series_count) s->series_index = 0; /* again */
        s->series_shown_at = a->live.frame; /* the first step comes next frame */
    } else {
        int i = s->series_shown + dir;
        if (i < 0) i = 0;
        if (i > s->series_count - 1) i = s->series_count - 1;
        s->series_index = i;
        s->playing = false;
    }
    update_hud(a);
    return true;
}

/* ---- saving --------------------------------------------------------------- */

/* The whole state as snap/ data: bodies, tags, time and the knobs. */
static bool gather(app *a, snap_data *d) {
    const sim_params p = sim_get_params(a->sim);
    sim_body *b = malloc(sizeof *b * (size_t)p.body_count);
    *d = (snap_data){.bodies = malloc(sizeof *d->bodies * (size_t)p.body_count)};
    if (!b || !d->bodies) {
        free(b);
        free(d->bodies);
        d->bodies = NULL;
        return false;
    }
    sim_get_bodies(a->sim, b);
    for (int i = 0; i < p.body_count; i++) {
        d->bodies[i] = (snap_body){.pos = {b[i].pos[0], b[i].pos[1], b[i].pos[2]},
                                   .vel = {b[i].vel[0], b[i].vel[1], b[i].vel[2]},
                                   .mass = b[i].mass,
                                   .tag = (uint8_t)b[i].tag};
    }
    free(b);
    d->count = p.body_count;
    d->time = a->snapshot.time_offset + p.time;
    d->format = SNAP_FORMAT_TIPSY;
    d->knobs = (snap_knobs){.valid = true,
                            .dt = p.dt,
                            .softening = p.softening,
                            .damping = p.damping,
                            .theta = p.theta,
                            .steps = a->snapshot.steps_offset + p.steps};
    snprintf(d->knobs.scene, sizeof d->knobs.scene, "%s", app_scene_name(a->scene));
    return true;
}

/* Writes the state to path as tipsy with its sidecar, or as HDF5. false
 * with a message printed. */
static bool write_snapshot(app *a, const char *path, snap_format format) {
    snap_data d;
    if (!gather(a, &d)) {
        fprintf(stderr, "nbody: out of memory for a snapshot of %d bodies\nhint: fewer bodies\n",
                sim_get_params(a->sim).body_count);
        return false;
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
    if (side && !app_output_bytes(side_path, "snapshot sidecar", side, side_len)) {
        ok = false;
    } else if (!app_output_bytes(path, "snapshot", buf, len)) {
        if (side) unlink(side_path);
        ok = false;
    }
    free(buf);
    free(side);
    return ok;
}

bool app_snapshot_dump(app *a, const char *path, bool *ok) {
    const snap_format f = dump_format(path);
    if (f == SNAP_FORMAT_UNKNOWN) return false;
    *ok = write_snapshot(a, path, f);
    if (*ok) {
        printf("nbody: wrote %s (%s, %d bodies)\n", path, snap_format_name(f),
               sim_get_params(a->sim).body_count);
    }
    return true;
}

void app_snapshot_save(app *a) {
    char stamp[32], name[96];
    const time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, sizeof name, "nbody-%s-f%06d.tipsy", stamp, a->live.frame);
    if (!write_snapshot(a, name, SNAP_FORMAT_TIPSY)) {
        app_message(a, "F5: %s not written (see the terminal)", name);
        return;
    }
    app_snapshot *s = &a->snapshot;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) { /* name has no slash: the current folder's */
        snprintf(s->last_save, sizeof s->last_save, "%.*s/%s",
                 (int)(sizeof s->last_save - sizeof name - 2), cwd, name);
    } else {
        snprintf(s->last_save, sizeof s->last_save, "%s", name);
    }
    update_hud(a);
    app_message(a, "saved %s (F9 reloads it)", s->last_save);
}

void app_snapshot_reload(app *a) {
    app_snapshot *s = &a->snapshot;
    if (!s->last_save[0]) {
        app_message(a, "F9 reloads the last save of this session: none yet (F5 saves)");
        return;
    }
    prepared p;
    snap_error err = {0};
    bool ok = prepare(s->last_save, &p, &err);
    if (ok && !p.own) {
        snprintf(err.message, sizeof err.message, "its sidecar %.200s.nbody is missing",
                 base_name(s->last_save));
        snprintf(err.hint, sizeof err.hint, "F5 saves again");
        ok = false;
    }
    ok = ok && install(a, s->last_save, &p, &err);
    if (ok) {
        apply_knobs(a, &p.knobs);
        app_physics_changed(a);
    }
    prepared_free(&p);
    if (!ok) {
        app_message(a, "F9: %s: %s (%s)", s->last_save, err.message, err.hint);
        return;
    }
    update_hud(a);
    app_message(a, "reloaded %s (t = %.6g)", s->last_save, s->time_offset);
}

/* ---- status --------------------------------------------------------------- */

/* s as a JSON string (quotes, backslashes and control characters escaped). */
static size_t json_string(char *out, size_t len, const char *s) {
    size_t o = 0;
    if (len < 3) return 0;
    out[o++] = '"';
    for (; *s && o + 8 < len; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = 0;
    return o;
}

void app_snapshot_json(const app *a, char *out, size_t len) {
    const app_snapshot *s = &a->snapshot;
    const sim_params p = sim_get_params(a->sim);
    char file[PATH_MAX + 64], save[PATH_MAX + 64], note[400];
    json_string(file, sizeof file, s->file);
    json_string(save, sizeof save, s->last_save);
    json_string(note, sizeof note, s->units_note);
    int n = snprintf(out, len,
                     ", \"snapshot\": {\"file\": %s, \"format\": \"%s\", \"time\": %.17g, "
                     "\"steps\": %lld, \"units\": %s, \"last_save\": %s}",
                     s->file[0] ? file : "null", s->format, s->time_offset + p.time,
                     (long long)(s->steps_offset + p.steps), note, s->last_save[0] ? save : "null");
    if (n < 0 || (size_t)n >= len) return;
    if (!s->series) {
        snprintf(out + n, len - (size_t)n, ", \"playback\": null");
        return;
    }
    snprintf(out + n, len - (size_t)n,
             ", \"playback\": {\"index\": %d, \"count\": %d, \"file\": %s, \"playing\": %s, "
             "\"time\": %.17g, \"bodies\": %d}",
             s->series_shown, s->series_count, file, s->playing ? "true" : "false", s->time_offset,
             p.body_count);
}

void app_snapshot_destroy(app *a) {
    app_snapshot *s = &a->snapshot;
    free(s->pending);
    free_list(s->series, s->series_count);
    s->pending = NULL;
    s->series = NULL;
    s->series_count = 0;
}
