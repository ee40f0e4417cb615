/* app_playback.c - a snapshot series (--load DIR or 'GLOB') played smoothly.
 *
 * The playback has a continuous play position in files (pos: file
 * floor(pos), and the fraction of the way to the next). Every frame puts
 * the bodies at that position into the simulation with sim_set_bodies, so
 * the sprites, the HUD, the status and every view that reads the bodies
 * draw them by the normal path. Between two files the bodies are
 * interpolated (app_interp.c): cubic Hermite through both files' positions
 * and velocities (the default), linear, or none (the file at or before the
 * position, as the playback did before); Backslash cycles them. At a whole
 * position the file itself is shown, exactly.
 *
 * Times: the files' own times (in model units after io/'s unit conversion,
 * where velocity x time = length, so the Hermite curve's tangents are
 * v x dt); the play time shown is interpolated between them. Where a file's
 * time does not exceed the one before (no time in the files), the play
 * time is the position and Hermite falls back to linear (no dt), as it
 * does for a cosmological run, whose time is the scale factor a and whose
 * GADGET velocities are not dx/da: both say so on the HUD.
 *
 * Speed: snapshots per second, 9 slower and 0 faster (x 1.25). In the
 * window the position moves by speed x the wall time of the frame; headless
 * and while recording, by speed / the video's frame rate per frame, so a
 * recording is smooth and the same on every run (the frame waits for a file
 * the read-ahead has not finished: the disk's speed never shows).
 *
 * Read-ahead: the files around the position and the next one are read by
 * one worker thread (io_readahead.c) into APP_PLAYBACK_SLOTS slots. In the
 * window a file that is not there yet holds the position where it is (the
 * frames go on). A file that fails to read stops the playback, with its
 * message, when the play position reaches it; the files already shown stay.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* The longest wall time one window frame may move the play position by:
 * a frame held up (a drag of the window, a slow read) does not jump. */
#define MAX_FRAME_SECONDS 0.25

static int slot_of(const app_playback *pb, int file) {
    for (int k = 0; k < APP_PLAYBACK_SLOTS; k++) {
        if (pb->slot_file[k] == file) return k;
    }
    return -1;
}

/* Headless, or recording: a fixed play time per frame. */
static bool deterministic(const app *a) {
    return a->fe.window_width == 0 || io_record_running(&a->rec);
}

static int frame_rate(const app *a) {
    return a->cfg.record_fps > 0 ? a->cfg.record_fps : IO_RECORD_DEFAULT_FPS;
}

bool app_playback_start(app *a) {
    app_playback *pb = &a->playback;
    *pb = (app_playback){.speed = a->cfg.play_speed > 0 ? a->cfg.play_speed : CONFIG_PLAY_SPEED,
                         .mode = APP_INTERP_HERMITE,
                         .failed_file = -1,
                         .pair_a = -1,
                         .pair_b = -1,
                         .shown_pos = -1};
    for (int k = 0; k < APP_PLAYBACK_SLOTS; k++) pb->slot_file[k] = -1;
    pb->reader = io_readahead_create(a->snapshot.series, a->snapshot.series_count);
    if (!pb->reader) {
        fprintf(stderr, "nbody: --load %s: cannot start the thread that reads the series ahead\n"
                        "hint: free some memory, or load one file\n",
                a->cfg.load);
        return false;
    }
    return true;
}

void app_playback_destroy(app *a) {
    app_playback *pb = &a->playback;
    io_readahead_destroy(pb->reader);
    for (int k = 0; k < APP_PLAYBACK_SLOTS; k++) io_snapshot_free(&pb->slots[k]);
    app_interp_match_free(&pb->match);
    free(pb->out);
    free(pb->ids);
    *pb = (app_playback){.failed_file = -1, .pair_a = -1, .pair_b = -1, .shown_pos = -1};
}

/* A file that failed to read: kept with its message until the play
 * position needs it (stopped_at_failure). */
static void read_failed(app *a, const io_readahead_result *r) {
    app_playback *pb = &a->playback;
    pb->failed_file = r->index;
    snprintf(pb->failure, sizeof pb->failure, "%.200s: %.512s (%.256s)",
             io_base_name(a->snapshot.series[r->index]), r->err.message, r->err.hint);
}

/* The position needs the failed file: the playback stops where it is, saying why. */
static void stopped_at_failure(app *a) {
    app_playback *pb = &a->playback;
    if (a->snapshot.playing || !pb->failure_said) {
        base_msg_post(&a->msg, "playback stopped: %s", pb->failure);
    }
    pb->failure_said = true;
    a->snapshot.playing = false;
}

/* Keeps a result in a slot that holds none of the files wanted (want[0..2]). */
static void keep(app *a, io_readahead_result *r, const int want[3]) {
    app_playback *pb = &a->playback;
    if (!r->ok) {
        read_failed(a, r);
        return;
    }
    int k = -1;
    for (int i = 0; i < APP_PLAYBACK_SLOTS && k < 0; i++) {
        if (pb->slot_file[i] < 0) k = i;
    }
    for (int i = 0; i < APP_PLAYBACK_SLOTS && k < 0; i++) {
        const int f = pb->slot_file[i];
        if (f != want[0] && f != want[1] && f != want[2]) k = i;
    }
    if (k < 0) { /* cannot happen: three slots, three files wanted, this one among them */
        io_snapshot_free(&r->snap);
        return;
    }
    if (pb->pair_a == pb->slot_file[k] || pb->pair_b == pb->slot_file[k]) pb->pair_a = -1;
    io_snapshot_free(&pb->slots[k]);
    pb->slots[k] = r->snap;
    pb->slot_file[k] = r->index;
    pb->slot_dup[k] = r->duplicate;
}

/* Takes what the reader has finished (wait: for the read under way) and asks
 * for the first file of want[] that is not held. */
static void read_ahead(app *a, const int want[3], bool wait) {
    app_playback *pb = &a->playback;
    io_readahead_result r;
    if (io_readahead_take(pb->reader, wait, &r)) keep(a, &r, want);
    for (int i = 0; i < 3; i++) {
        const int f = want[i];
        if (f < 0 || f >= a->snapshot.series_count || f == pb->failed_file) continue;
        if (slot_of(pb, f) >= 0 || io_readahead_pending(pb->reader) == f) continue;
        io_readahead_request(pb->reader, f); /* false: busy; asked again next frame */
        return;
    }
}

/* The files the frame needs (first, second; -1: none) at pos. */
static void files_at(const app *a, double pos, app_interp_mode mode, int *first, int *second) {
    const int count = a->snapshot.series_count;
    int i = (int)floor(pos);
    if (i > count - 1) i = count - 1;
    if (i < 0) i = 0;
    *first = i;
    *second = (mode == APP_INTERP_NONE || pos == (double)i || i + 1 >= count) ? -1 : i + 1;
}

static app_interp_snap snap_of(const app_playback *pb, int slot) {
    const io_snapshot *p = &pb->slots[slot];
    return (app_interp_snap){.bodies = p->bodies,
                             .count = p->count,
                             .time = p->time,
                             .ids = p->ids,
                             .by_id = p->by_id};
}

static bool reserve(app_playback *pb, int n) {
    if (n <= pb->out_cap) return true;
    sim_body *out = realloc(pb->out, sizeof *out * (size_t)n);
    if (out) pb->out = out;
    uint64_t *ids = realloc(pb->ids, sizeof *ids * (size_t)n);
    if (ids) pb->ids = ids;
    if (!out || !ids) return false;
    pb->out_cap = n;
    return true;
}

/* Puts the bodies at pos on screen; false when a file is not read yet. */
static bool put(app *a, double pos) {
    app_playback *pb = &a->playback;
    app_snapshot *s = &a->snapshot;
    int fa, fb;
    files_at(a, pos, pb->mode, &fa, &fb);
    const int ka = slot_of(pb, fa), kb = fb >= 0 ? slot_of(pb, fb) : -1;
    if (ka < 0 || (fb >= 0 && kb < 0)) return false;
    const app_interp_snap sa = snap_of(pb, ka);
    int n = sa.count;
    double u = 0;
    app_interp_mode used = APP_INTERP_NONE;
    const char *why = "";
    pb->time = sa.time;
    pb->time_is_index = false;
    pb->time_of_file = fb < 0;
    if (fb >= 0) {
        const app_interp_snap sb = snap_of(pb, kb);
        u = pos - fa;
        if (pb->pair_a != fa || pb->pair_b != fb) {
            app_interp_match_free(&pb->match);
            pb->pair_a = pb->pair_b = -1;
            if (!app_interp_match_make(&sa, &sb, &pb->match)) {
                base_msg_post(&a->msg, "playback stopped: out of memory matching %d bodies",
                              sa.count);
                s->playing = false;
                return true;
            }
            pb->pair_a = fa;
            pb->pair_b = fb;
        }
        const bool times = sb.time > sa.time;
        used = pb->mode;
        if (used == APP_INTERP_HERMITE && !times) {
            used = APP_INTERP_LINEAR;
            why = " (Hermite needs increasing times)";
        } else if (used == APP_INTERP_HERMITE &&
                   (pb->slots[ka].comoving || pb->slots[kb].comoving)) {
            used = APP_INTERP_LINEAR;
            why = " (Hermite: not for a cosmological run's scale factor)";
        }
        pb->time_is_index = !times;
        pb->time = times ? sa.time + u * (sb.time - sa.time) : pos;
        n = app_interp_count(&sa, &pb->match);
        if (!reserve(pb, n)) {
            base_msg_post(&a->msg, "playback stopped: out of memory for %d bodies", n);
            s->playing = false;
            return true;
        }
        app_interp_bodies(&sa, &sb, &pb->match, used, u, pb->out, pb->ids);
        const bool dup = pb->slot_dup[ka] || pb->slot_dup[kb];
        snprintf(pb->match_note, sizeof pb->match_note, "%s",
                 pb->match.by_id ? "by particle ID"
                 : dup           ? "by file order (a file's particle IDs are not unique)"
                                 : "by file order (the files have no particle IDs)");
    } else {
        if (!reserve(pb, n)) {
            base_msg_post(&a->msg, "playback stopped: out of memory for %d bodies", n);
            s->playing = false;
            return true;
        }
        memcpy(pb->out, sa.bodies, sizeof *pb->out * (size_t)n);
        for (int i = 0; i < n; i++) pb->ids[i] = sa.ids ? sa.ids[i] : (uint64_t)i;
        if (pb->match_note[0] == 0) {
            snprintf(pb->match_note, sizeof pb->match_note, "%s",
                     sa.ids ? "by particle ID" : "by file order (the files have no particle IDs)");
        }
    }
    if (fb < 0 && pb->mode != APP_INTERP_NONE) {
        snprintf(pb->interp, sizeof pb->interp, "%s, on a file: the file itself",
                 app_interp_mode_name(pb->mode));
    } else {
        snprintf(pb->interp, sizeof pb->interp, "%s%s", app_interp_mode_name(used), why);
    }
    const int before = sim_get_params(a->sim).body_count;
    sim_error e = {0};
    if (!sim_set_bodies(a->sim, pb->out, n, &e)) {
        base_msg_post(&a->msg, "playback stopped: %s (%s)", e.message, e.hint);
        s->playing = false;
        return true;
    }
    pb->ids_count = n;
    pb->ids_generation = sim_get_params(a->sim).generation;
    pb->shown_pos = pos;
    pb->shown_mode = pb->mode;
    /* The file at or before the position stands for it in the title, F5,
     * the status and Enter; the time is the play time. */
    const io_snapshot *p = &pb->slots[ka];
    snprintf(s->file, sizeof s->file, "%s", s->series[fa]);
    snprintf(s->format, sizeof s->format, "%s", p->format);
    snprintf(s->units_note, sizeof s->units_note, "%s", p->note);
    s->own = p->own;
    s->knobs = p->knobs;
    s->steps_offset = 0;
    s->time_offset = pb->time;
    s->generation = pb->ids_generation;
    s->series_shown = fa;
    if (n != before) { /* a new N: its brightness (no energy is sampled while a series plays) */
        app_physics_changed(a);
        app_scene_brightness(a);
    }
    return true;
}

void app_playback_frame(app *a) {
    app_playback *pb = &a->playback;
    app_snapshot *s = &a->snapshot;
    const int count = s->series_count;
    const bool fixed = deterministic(a);
    const double last = count - 1;
    /* The position this frame: moved on from the last one shown. */
    double pos = pb->pos;
    if (s->playing && !a->live.paused && pb->shown_pos >= 0) {
        const double dt = fixed ? 1.0 / frame_rate(a) : a->live.now - pb->wall;
        pos += pb->speed * (dt < 0 ? 0 : dt > MAX_FRAME_SECONDS ? MAX_FRAME_SECONDS : dt);
        /* Sums of speed / frame rate land on a file exactly, not a rounding short of it. */
        if (fabs(pos - round(pos)) < 1e-9) pos = round(pos);
        if (pos >= last) {
            pos = last;
            s->playing = false;
            base_msg_post(&a->msg, "end of the series (Space plays it again; , and [ step back; "
                                   "Enter simulates from here)");
        }
    }
    pb->wall = a->live.now;
    int fa, fb;
    files_at(a, pos, pb->mode, &fa, &fb);
    const int want[3] = {fa, fb >= 0 ? fb : fa + 1, (fb >= 0 ? fb : fa) + 1};
    read_ahead(a, want, false);
    /* A failed file stops the playback before it: the files already shown stay. */
    if (pb->failed_file >= 0 && (fa == pb->failed_file || fb == pb->failed_file)) {
        stopped_at_failure(a);
        pb->pos = pb->shown_pos >= 0 ? pb->shown_pos : 0;
        return;
    }
    if (pos == pb->shown_pos && pb->mode == pb->shown_mode &&
        sim_get_params(a->sim).generation == pb->ids_generation) {
        return; /* nothing moved */
    }
    bool shown = put(a, pos);
    /* A recording waits for the disk: at most the read under way, then the
     * two files asked for one after the other. */
    for (int tries = 0; !shown && fixed && tries < 4; tries++) {
        read_ahead(a, want, true);
        if (pb->failed_file >= 0 && (fa == pb->failed_file || fb == pb->failed_file)) {
            stopped_at_failure(a);
            pb->pos = pb->shown_pos >= 0 ? pb->shown_pos : 0;
            return;
        }
        shown = put(a, pos);
    }
    if (shown) pb->pos = pos; /* else the window holds the position until the file is there */
}

bool app_playback_key(app *a, int dir) {
    app_playback *pb = &a->playback;
    app_snapshot *s = &a->snapshot;
    if (!s->series) return false;
    const int count = s->series_count;
    if (dir == 0) {
        s->playing = !s->playing;
        const bool again = s->playing && pb->pos >= count - 1;
        if (again) pb->pos = 0;
        pb->wall = a->live.now; /* the first move comes with the next frame */
        if (s->playing) { /* try the failed file again */
            pb->failed_file = -1;
            pb->failure_said = false;
        }
        if (!s->playing) {
            base_msg_post(&a->msg, "playback paused at %.2f of %d: %s (Space plays, . , step)",
                          pb->pos + 1, count, io_base_name(s->file));
        } else {
            base_msg_post(&a->msg, "playback %s at %.2f of %d (Space pauses)",
                          again ? "starts again" : "plays on", pb->pos + 1, count);
        }
        return true;
    }
    /* To a whole file: from between two files, one back goes to the first. */
    double to = dir > 0 ? floor(pb->pos) + dir : ceil(pb->pos) + dir;
    if (to < 0) to = 0;
    if (to > count - 1) to = count - 1;
    s->playing = false;
    pb->failed_file = -1;
    pb->failure_said = false;
    if (to == pb->pos) {
        base_msg_post(&a->msg, "%s snapshot of the series: %d/%d stays (%s)",
                      dir < 0 ? "the first" : "the last", (int)to + 1, count,
                      io_base_name(s->file));
        return true;
    }
    pb->pos = to;
    base_msg_post(&a->msg, "snapshot %d/%d: %s (paused)", (int)to + 1, count,
                  io_base_name(s->series[(int)to]));
    return true;
}

void app_playback_speed_key(app *a, int dir) {
    app_playback *pb = &a->playback;
    if (!a->snapshot.series) {
        base_msg_post(&a->msg, "9 and 0 set a snapshot series' play speed: --load 'run_*.hdf5' "
                               "or a folder");
        return;
    }
    double v = dir > 0 ? pb->speed * 1.25 : pb->speed / 1.25;
    if (v < CONFIG_PLAY_SPEED_MIN) v = CONFIG_PLAY_SPEED_MIN;
    if (v > CONFIG_PLAY_SPEED_MAX) v = CONFIG_PLAY_SPEED_MAX;
    pb->speed = v;
    base_msg_post(&a->msg, "play speed %.3g snapshots/s (%.3g s for the series of %d)", v,
                  (a->snapshot.series_count - 1) / v, a->snapshot.series_count);
}

void app_playback_mode_key(app *a) {
    app_playback *pb = &a->playback;
    if (!a->snapshot.series) {
        base_msg_post(&a->msg, "Backslash sets how a snapshot series is interpolated: "
                               "--load 'run_*.hdf5' or a folder");
        return;
    }
    pb->mode = (app_interp_mode)((pb->mode + 1) % APP_INTERP_COUNT);
    static const char *const what[APP_INTERP_COUNT] = {
        "cubic Hermite through both files' positions and velocities",
        "straight lines between the files' positions", "the file at or before the play time"};
    base_msg_post(&a->msg, "interpolation: %s (%s)", app_interp_mode_name(pb->mode),
                  what[pb->mode]);
}

const uint64_t *app_playback_ids(const app *a, int *count) {
    const app_playback *pb = &a->playback;
    *count = 0;
    if (!a->snapshot.series || !pb->ids ||
        sim_get_params(a->sim).generation != pb->ids_generation) {
        return NULL;
    }
    *count = pb->ids_count;
    return pb->ids;
}

void app_playback_settle(app *a) {
    app_playback *pb = &a->playback;
    const double near = floor(pb->shown_pos >= 0 ? pb->shown_pos + 0.5 : 0);
    const app_interp_mode mode = pb->mode;
    pb->mode = APP_INTERP_NONE;
    const int want[3] = {(int)near, -1, -1};
    bool shown = put(a, near);
    /* At most: the read under way, then the one asked for. */
    for (int tries = 0; !shown && tries < 3 && pb->failed_file < 0; tries++) {
        read_ahead(a, want, true);
        shown = put(a, near);
    }
    pb->mode = mode;
    if (shown) pb->pos = near;
}
