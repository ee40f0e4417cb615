/* app_snapshot.c - snapshots on screen: --load, F5 / F9, --dump FILE.tipsy
 * or .hdf5, and a series of snapshots played as a movie.
 *
 * io/ reads and writes the files (io_snapshot.c: formats, units, the files
 * --load names); this file decides what a snapshot means for the scene on
 * screen. Our own saves continue exactly: the same bodies, time, dt,
 * softening, damping, theta and scene, unless --dt, --softening, --damping
 * or --theta change a knob (the note then says which). A foreign file runs
 * with --preset's scene, else the galaxy scene's dt and softening when its
 * units were converted to the galaxy units, else the Plummer sphere's
 * (--dt and --softening on top). The flags that make bodies (--n, --ic,
 * --seed, the orbit's) are refused with --load (config_cli.c), and so is
 * a --preset other than our save's own scene (io_check.c).
 *
 * sim_set_bodies restarts the simulation's clock at 0, so the file's time
 * and steps are kept here and added wherever time is shown or saved.
 *
 * While a file's bodies are on screen (the simulation's generation is the
 * one they were put in with) the HUD's title is a foreign file's name, and
 * t and the steps go on from the file's own; new bodies (R, +, a scene)
 * end that.
 *
 * Playback: --load 'GLOB' or --load DIR plays the files without stepping,
 * interpolated between them at a continuous play time (app_playback.c),
 * inside the normal app_frame, so drawing, colouring and recording are
 * those of a live run. While a series is loaded, the keys that would
 * change the simulation are refused (app_keys.c); Enter leaves the
 * playback and simulates from the file nearest the play time.
 *
 * --snapshot-every K --dump PATTERN: the run's state every K frames that
 * step, as PATTERN's files 0, 1, 2, ... (the state before the first step
 * is file 0), so `--load 'PATTERN's glob'` plays the run back.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* Bodies the sim is created with before a loaded file replaces them. */
#define PLACEHOLDER_BODIES 1024

/* ---- into the simulation -------------------------------------------------- */

/* Records where the bodies on screen came from (the simulation holds them
 * from now on: its generation says so). */
static void remember(app *a, const char *path, const io_snapshot *p) {
    app_snapshot *s = &a->snapshot;
    snprintf(s->file, sizeof s->file, "%s", path);
    snprintf(s->format, sizeof s->format, "%s", p->format);
    snprintf(s->units_note, sizeof s->units_note, "%s", p->note);
    s->time_offset = p->time;
    s->steps_offset = p->own ? p->knobs.steps : 0;
    s->own = p->own;
    s->knobs = p->knobs;
    if (a->sim) s->generation = sim_get_params(a->sim).generation;
}

/* Whether the bodies on screen are the file's (and their time its own). */
static bool on_screen(const app *a) {
    const app_snapshot *s = &a->snapshot;
    return s->file[0] && !s->pending && sim_get_params(a->sim).generation == s->generation;
}

/* Puts p's bodies into the simulation and records where they came from. */
static bool install(app *a, const char *path, io_snapshot *p, snap_error *err) {
    sim_error e = {0};
    if (!sim_set_bodies(a->sim, p->bodies, p->count, &e)) {
        snprintf(err->message, sizeof err->message, "%s", e.message);
        snprintf(err->hint, sizeof err->hint, "%s", e.hint);
        return false;
    }
    remember(a, path, p);
    return true;
}

/* Our save's knobs become the live ones (F9; at start-up they go into the
 * desc instead). */
static void apply_knobs(app *a, const snap_knobs *k) {
    sim_set_dt(a->sim, k->dt);
    sim_set_softening(a->sim, k->softening);
    sim_set_damping(a->sim, k->damping);
    sim_set_theta(a->sim, k->theta);
    a->live.damping_gap = 1.0 - k->damping;
    const int scene = config_scene_find(k->scene);
    if (scene >= 0) a->scene = scene;
}

/* Puts the command line's --dt, --softening, --damping and --theta on top
 * of our save's knobs k. Where one changes what the save had, note (the
 * save's "continues exactly") says which instead: the run does not
 * continue the save exactly then. */
static void flags_on_save(const config *cfg, snap_knobs *k, char *note, size_t len,
                          const char *format) {
    const struct {
        config_knob knob;
        double *save, flag;
    } rows[] = {{CONFIG_KNOB_DT, &k->dt, cfg->sim.dt},
                {CONFIG_KNOB_SOFTENING, &k->softening, cfg->sim.softening},
                {CONFIG_KNOB_DAMPING, &k->damping, cfg->sim.damping},
                {CONFIG_KNOB_THETA, &k->theta, cfg->sim.theta}};
    char changed[192] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!cfg->given[rows[i].knob] || rows[i].flag == *rows[i].save) continue;
        char flag[32], save[32];
        base_real_text(rows[i].flag, flag, sizeof flag);
        base_real_text(*rows[i].save, save, sizeof save);
        if (used < sizeof changed) {
            used +=
                (size_t)snprintf(changed + used, sizeof changed - used, "%s--%s %s (it had %s)",
                                 used ? ", " : "", config_knob_get(rows[i].knob)->name, flag, save);
        }
        *rows[i].save = rows[i].flag;
    }
    if (changed[0]) {
        snprintf(note, len, "%.8s save with %s: does not continue it exactly", format, changed);
    }
}

const char *app_snapshot_line(app *a) {
    app_snapshot *s = &a->snapshot;
    int n = 0;
    if (s->series) {
        n = 0; /* the HUD's playback rows say it all */
    } else if (on_screen(a)) {
        n = snprintf(s->hud, sizeof s->hud, "from %s (%s) at t = %.6g: %s", io_base_name(s->file),
                     s->format, s->time_offset, s->units_note);
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
    return s->hud;
}

double app_snapshot_time(const app *a) {
    const double t = sim_get_params(a->sim).time;
    return on_screen(a) ? a->snapshot.time_offset + t : t;
}

int64_t app_snapshot_steps(const app *a) {
    const int64_t steps = sim_get_params(a->sim).steps;
    return on_screen(a) ? a->snapshot.steps_offset + steps : steps;
}

const char *app_snapshot_title(app *a) {
    app_snapshot *s = &a->snapshot;
    if (!on_screen(a) || s->own) return config_scene_title(a->scene); /* ours knows its scene */
    snprintf(s->title, sizeof s->title, "%s (%s)", io_base_name(s->file), s->format);
    return s->title;
}

ui_playback app_snapshot_playback_facts(const app *a) {
    const app_snapshot *s = &a->snapshot;
    if (!s->series) return (ui_playback){.on = false};
    const app_playback *pb = &a->playback;
    return (ui_playback){.on = true,
                         .playing = s->playing,
                         .index = s->series_shown,
                         .count = s->series_count,
                         .file = io_base_name(s->file),
                         .format = s->format,
                         .units = s->units_note,
                         .time = s->time_offset,
                         .position = pb->shown_pos >= 0 ? pb->shown_pos : pb->pos,
                         .speed = pb->speed,
                         .interp = pb->interp[0] ? pb->interp : "none",
                         .match = pb->match_note[0] ? pb->match_note : NULL,
                         .time_is_index = pb->time_is_index,
                         .time_of_file = pb->time_of_file};
}

bool app_snapshot_playback(const app *a) {
    return a->snapshot.series != NULL;
}

bool app_snapshot_open(app *a, bool cpu, sim_desc *desc) {
    app_snapshot *s = &a->snapshot;
    bool series = false;
    snap_error err = {0};
    io_series_skipped skipped;
    if (!io_series_resolve(a->cfg.load, &series, &s->series, &s->series_count, &skipped, &err)) {
        io_load_error(a->cfg.load, &err);
        return false;
    }
    if (skipped.count > 0) {
        const bool one = skipped.count == 1;
        printf("nbody: skipped %d %s not %s nbody can read: %s\n", skipped.count,
               one ? "file that is" : "files that are", one ? "a snapshot" : "snapshots",
               skipped.names);
    }
    const char *first = series ? s->series[0] : a->cfg.load;
    io_snapshot p;
    if (!io_snapshot_read(first, &p, &err)) {
        io_load_error(first, &err);
        return false;
    }
    /* The save's scene; for a foreign file --preset, else a galaxy scene in
     * galaxy units and the Plummer sphere's G = 1 units otherwise. */
    int scene = -1;
    if (p.own) scene = config_scene_find(p.knobs.scene);
    if (scene < 0 && a->cfg.preset) scene = config_scene_find(a->cfg.preset);
    if (scene < 0) scene = config_scene_find(p.galaxy_units ? "disk" : "plummer");
    a->scene = scene;
    *desc = config_scene_desc(scene, &a->cfg, cpu, true);
    const bool *given = a->cfg.given;
    if (p.own) { /* the save's knobs, unless the command line says otherwise */
        flags_on_save(&a->cfg, &p.knobs, p.note, sizeof p.note, p.format);
        desc->dt = p.knobs.dt;
        desc->softening = p.knobs.softening;
        desc->damping = p.knobs.damping;
        desc->theta = p.knobs.theta;
    }
    /* The method and the GPUs for the file's N; a few placeholder bodies
     * until then. */
    if (!cpu && !given[CONFIG_KNOB_VARIANT]) desc->variant = sim_variant_auto(p.count);
    desc->body_count = p.count;
    config_gpus(&a->cfg, cpu, desc);
    desc->body_count = p.count < PLACEHOLDER_BODIES ? p.count : PLACEHOLDER_BODIES;
    if (desc->body_count < 64) desc->body_count = 64; /* the scenes' generators want a few */
    remember(a, first, &p);
    s->pending = p.bodies;
    s->pending_count = p.count;
    p.bodies = NULL;
    io_snapshot_free(&p); /* its IDs: the playback reads the files again */
    s->playing = series;
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
    s->generation = sim_get_params(a->sim).generation;
    app_physics_changed(a);
    app_scene_brightness(a); /* for the file's N */
    app_fit_view(a);
    s->series_shown = 0;
    const sim_params p = sim_get_params(a->sim);
    if (s->series) {
        if (!app_playback_start(a)) return false;
        base_msg_post(&a->msg,
                      "playing %d snapshots from %s at %.3g a second (Space pauses; 9 0 speed; "
                      "\\ interpolation; . , step; [ ] 10; Enter simulates from the nearest): %s",
                      s->series_count, io_base_name(s->file), a->playback.speed, s->units_note);
    } else {
        base_msg_post(&a->msg, "loaded %s (%s, %d %s, t = %.6g): %s", io_base_name(s->file),
                      s->format, p.body_count, p.body_count == 1 ? "body" : "bodies",
                      s->time_offset, s->units_note);
    }
    return true;
}

/* ---- playback (app_playback.c) ------------------------------------------------ */

static void snapshot_every(app *a);

bool app_snapshot_frame(app *a) {
    if (!a->snapshot.series) {
        snapshot_every(a);
        return false;
    }
    app_playback_frame(a);
    return true;
}

bool app_snapshot_playback_key(app *a, int dir) {
    return app_playback_key(a, dir);
}

void app_snapshot_leave_playback(app *a) {
    app_snapshot *s = &a->snapshot;
    if (!s->series) {
        base_msg_post(&a->msg, "Enter leaves a snapshot series' playback: none plays");
        return;
    }
    app_playback_settle(a); /* the nearest file, as it is */
    const int index = s->series_shown, count = s->series_count;
    app_playback_destroy(a);
    io_series_free(s->series, s->series_count);
    s->series = NULL;
    s->series_count = 0;
    s->playing = false;
    if (s->own) { /* our save runs on as it was saved, the command line's knobs on top */
        flags_on_save(&a->cfg, &s->knobs, s->units_note, sizeof s->units_note, s->format);
        apply_knobs(a, &s->knobs);
    }
    app_physics_changed(a);
    a->live.paused = false;
    base_msg_post(&a->msg, "left the playback: simulating from %s (%d/%d, t = %.6g; Space pauses)",
                  io_base_name(s->file), index + 1, count, s->time_offset);
}

/* ---- saving --------------------------------------------------------------- */

/* Writes the state to path as tipsy with its sidecar, or as HDF5. false
 * with a message printed. */
static bool write_snapshot(app *a, const char *path, snap_format format) {
    const sim_params p = sim_get_params(a->sim);
    sim_body *b = malloc(sizeof *b * (size_t)p.body_count);
    if (!b) {
        fprintf(stderr, "nbody: out of memory for a snapshot of %d %s\nhint: fewer bodies\n",
                p.body_count, p.body_count == 1 ? "body" : "bodies");
        errno = ENOMEM;
        return false;
    }
    sim_get_bodies(a->sim, b);
    snap_knobs knobs = {.valid = true,
                        .dt = p.dt,
                        .softening = p.softening,
                        .damping = p.damping,
                        .theta = p.theta,
                        .steps = app_snapshot_steps(a)};
    snprintf(knobs.scene, sizeof knobs.scene, "%s", config_scene_name(a->scene));
    errno = 0;
    const bool ok = io_snapshot_write(path, format, b, p.body_count, app_snapshot_time(a), &knobs,
                                      sim_ic_galactic(p.ic));
    const int err = errno;
    free(b);
    errno = err;
    return ok;
}

bool app_snapshot_dump(app *a, const char *path, bool *ok) {
    if (a->cfg.snapshot_every > 0) { /* PATTERN: the series' last file, when due */
        snapshot_every(a);           /* a failed write has set req.write_failed: exit 1 */
        *ok = true;
        const app_snapshot *s = &a->snapshot;
        char glob[PATH_MAX];
        if (s->every_next > 0 && io_series_glob(path, glob, sizeof glob)) {
            printf("nbody: wrote %d snapshot%s %s (files 0 to %d; --load '%s' plays them)\n",
                   s->every_next, base_plural(s->every_next), path, s->every_next - 1, glob);
        }
        return true;
    }
    const snap_format f = io_dump_format(path);
    if (f == SNAP_FORMAT_UNKNOWN) return false;
    *ok = write_snapshot(a, path, f);
    if (*ok) {
        const int n = sim_get_params(a->sim).body_count;
        printf("nbody: wrote %s (%s, %d %s)\n", io_shown_name(&a->cfg, path), snap_format_name(f),
               n, n == 1 ? "body" : "bodies");
    }
    return true;
}

void app_snapshot_save(app *a) {
    char name[96];
    io_stamped_name(name, sizeof name, ".tipsy", a->live.frame);
    if (!write_snapshot(a, name, SNAP_FORMAT_TIPSY)) {
        /* The terminal has the whole line; the HUD says why in short. */
        base_msg_post(&a->msg, "F5: %s not written: %s", name,
                      errno ? strerror(errno)
                            : "the snapshot could not be made (see the terminal)");
        return;
    }
    app_snapshot *s = &a->snapshot;
    io_absolute(name, s->last_save, sizeof s->last_save);
    if (s->series) {
        base_msg_post(&a->msg, "saved snapshot %d/%d (%s) as %s (F9 reloads it)",
                      s->series_shown + 1, s->series_count, io_base_name(s->file), s->last_save);
    } else {
        base_msg_post(&a->msg, "saved %s (F9 reloads it)", s->last_save);
    }
}

/* ---- --snapshot-every ------------------------------------------------------- */

/* Before each frame's steps (and once at exit): counts the frames that
 * stepped since the last look, and writes the next file of the pattern when
 * K of them have passed since the last one (file 0: the state before the
 * first step). A failed write stops the series and makes the run exit 1. */
static void snapshot_every(app *a) {
    app_snapshot *s = &a->snapshot;
    const int k = a->cfg.snapshot_every;
    if (k <= 0 || s->every_done || !a->cfg.dump) return;
    const sim_params p = sim_get_params(a->sim);
    const bool first = s->every_next == 0;
    if (!first && (p.steps != s->every_steps || p.generation != s->every_generation)) {
        s->every_frames++;
    }
    s->every_steps = p.steps;
    s->every_generation = p.generation;
    if (!first && s->every_frames - s->every_written_at < k) return;
    char path[PATH_MAX];
    if (!io_series_name(a->cfg.dump, s->every_next, path, sizeof path)) {
        s->every_done = true;
        base_msg_post(&a->msg,
                      "--snapshot-every: %s has no name for file %d: the series stops (a wider "
                      "number, e.g. %%06d, holds more)",
                      a->cfg.dump, s->every_next);
        return;
    }
    if (!write_snapshot(a, path, io_dump_format(path))) {
        s->every_done = true;
        a->req.write_failed = true; /* message printed: exit 1 at the end */
        return;
    }
    s->every_written_at = s->every_frames;
    s->every_next++;
}

void app_snapshot_reload(app *a) {
    app_snapshot *s = &a->snapshot;
    if (!s->last_save[0]) {
        base_msg_post(&a->msg, "F9 reloads the last save of this session: none yet (F5 saves)");
        return;
    }
    io_snapshot p;
    snap_error err = {0};
    bool ok = io_snapshot_read(s->last_save, &p, &err);
    if (ok && !p.own) {
        snprintf(err.message, sizeof err.message, "its sidecar %.200s.nbody is missing",
                 io_base_name(s->last_save));
        snprintf(err.hint, sizeof err.hint, "F5 saves again");
        ok = false;
    }
    ok = ok && install(a, s->last_save, &p, &err);
    if (ok) {
        apply_knobs(a, &p.knobs);
        app_physics_changed(a);
    }
    io_snapshot_free(&p);
    if (!ok) {
        base_msg_post(&a->msg, "F9: %s: %s (%s)", s->last_save, err.message, err.hint);
        return;
    }
    base_msg_post(&a->msg, "reloaded %s (t = %.6g)", s->last_save, s->time_offset);
}

/* ---- the status line -------------------------------------------------------- */

void app_snapshot_json(const app *a, char *out, size_t len) {
    const app_snapshot *s = &a->snapshot;
    const sim_params p = sim_get_params(a->sim);
    char file[PATH_MAX + 64], save[PATH_MAX + 64], note[400];
    base_json_string(file, sizeof file, s->file);
    base_json_string(save, sizeof save, s->last_save);
    base_json_string(note, sizeof note, s->units_note);
    const bool shown = on_screen(a); /* else new bodies replaced the file's */
    int n = snprintf(out, len,
                     ", \"snapshot\": {\"file\": %s, \"format\": %s%s%s, \"time\": %.17g, "
                     "\"steps\": %lld, \"units\": %s, \"last_save\": %s}",
                     shown ? file : "null", shown ? "\"" : "", shown ? s->format : "null",
                     shown ? "\"" : "", app_snapshot_time(a), (long long)app_snapshot_steps(a),
                     shown ? note : "null", s->last_save[0] ? save : "null");
    if (n < 0 || (size_t)n >= len) return;
    if (!s->series) {
        snprintf(out + n, len - (size_t)n, ", \"playback\": null");
        return;
    }
    const app_playback *pb = &a->playback;
    snprintf(out + n, len - (size_t)n,
             ", \"playback\": {\"index\": %d, \"count\": %d, \"file\": %s, \"playing\": %s, "
             "\"time\": %.17g, \"bodies\": %d, \"position\": %.17g, \"speed\": %.17g, "
             "\"mode\": \"%s\", \"interpolation\": \"%s\", \"time_is_index\": %s, "
             "\"matched_by_id\": %s}",
             s->series_shown, s->series_count, file, s->playing ? "true" : "false", s->time_offset,
             p.body_count, pb->shown_pos >= 0 ? pb->shown_pos : pb->pos, pb->speed,
             app_interp_mode_name(pb->mode), pb->interp[0] ? pb->interp : "none",
             pb->time_is_index ? "true" : "false", pb->match.by_id ? "true" : "false");
}

void app_snapshot_destroy(app *a) {
    app_snapshot *s = &a->snapshot;
    free(s->pending);
    if (s->series) app_playback_destroy(a);
    io_series_free(s->series, s->series_count);
    s->pending = NULL;
    s->series = NULL;
    s->series_count = 0;
}
