/* io.h - the files the app reads and writes: outputs written atomically
 * (PNG, CSV, text), screenshots, the status lines, videos and PNG sequences
 * of the frames drawn (with the ffmpeg encoder), snapshots and series,
 * --script files, and the start-up check of every file a command line
 * names.
 *
 * Rules: io/ uses sim/ (bodies), snap/ (file formats), render/ (pictures
 * read back), interop/ (CUDA's video conversion), config/ and base/;
 * nothing else of app/. It decides nothing about the scene: it reads and
 * writes what it is given and reports. Every failure a user can cause is
 * one line naming the file plus a hint (on stderr, or on the message line
 * for a recording started with M) and a false return; never a
 * half-written file under the user's name.
 */
#ifndef NBODY_IO_H
#define NBODY_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "config.h"
#include "interop.h"
#include "render.h"
#include "sim.h"
#include "snap.h"

/* ---- files (io_file.c) --------------------------------------------------- */

/* Whether path can be written (at start-up: a typo fails before any work
 * is done); false with a message naming flag. Never opens a device or a
 * FIFO, creates nothing beside them. */
bool io_check_writable(const char *path, const char *flag);
/* Whole files, written atomically (to a temporary renamed over path) where
 * path is a regular file or a new name, in place on devices, FIFOs and
 * stdout ("-"). false with a message printed and errno saying why. */
bool io_write_png(const char *path, const char *what, int width, int height,
                  const uint8_t *rgba);
bool io_write_csv(const char *path, const sim_body *bodies, int n);
bool io_write_text(const char *path, const char *what, const char *text);
bool io_write_bytes(const char *path, const char *what, const void *data, size_t len);

/* A file written over time. atomic: to a temporary renamed over path at
 * close when ok and every write succeeded (else removed), a failure
 * printed once; not atomic (a stream: status lines for tail -f): under the
 * real name as it goes, and a failed write leaves it as far as the last
 * flush went (cut back to there; removed if that is nothing) and prints
 * nothing, so the caller can say which part failed. Devices, FIFOs and "-"
 * are always written in place; a FIFO with no reader says that it waits
 * for one (on stderr). Writes are buffered; flush pushes them to the file.
 * Each returns false once a write failed (errno says why); open returns
 * NULL, its message printed. close frees f. */
typedef struct io_file io_file;
io_file *io_file_open(const char *path, const char *what, bool atomic);
bool io_file_write(io_file *f, const void *data, size_t len);
bool io_file_flush(io_file *f);
bool io_file_close(io_file *f, bool ok);

/* When one of *paths[0..count) names stdout ("-", /dev/stdout): keeps the
 * real stdout for it alone (the path becomes "/dev/fd/N", written into
 * name) and points nbody's own stdout text at stderr, so the pipe carries
 * exactly the file. false: message printed. */
bool io_claim_stdout(const char **paths[], int count, char *name, size_t len);

/* path, made absolute against the current folder (for messages). */
void io_absolute(const char *path, char *out, size_t len);
/* path as messages name it: "stdout" for the output io_claim_stdout gave
 * c->stdout_name, else path itself. */
const char *io_shown_name(const config *c, const char *path);
/* "nbody-<local date>-<time>[-f<frame>]<suffix>" (frame < 0: none). */
void io_stamped_name(char *out, size_t len, const char *suffix, int frame);
/* The w x h picture GL drew last, as PNG (opaque); false with a message,
 * and no file, where it has no pixels (w or h 0). */
bool io_screenshot(render *r, const char *path, int w, int h);

/* ---- the status lines (io_status.c) -------------------------------------- */

/* --status-json: lines formatted by the app, kept for the end or (stream,
 * --status-every) written and flushed as each ends. */
typedef struct io_status {
    const char *path;
    bool stream;
    char *buf; /* the line being made (stream), or every line */
    size_t len, cap;
    io_file *file; /* stream: open from the first line */
    long lines;    /* stream: lines handed to the file */
    bool failed;   /* a line could not be written: no more are; the run exits 1 */
} io_status;

void io_status_init(io_status *s, const char *path, bool stream);
/* Appends to the current line. */
void io_status_printf(io_status *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The line (ending in '\n') is complete: a stream writes it now. */
void io_status_end_line(io_status *s);
/* At exit: writes the lines (or closes the stream); false on failure. */
bool io_status_finish(io_status *s);
void io_status_destroy(io_status *s);

/* ---- videos and PNG sequences (io_record.c, io_encoder.c) ------------------ */

#define IO_RECORD_DEFAULT_FPS 30 /* a video's frames/s without --record-fps */

typedef struct io_recorder_desc {
    render *render;         /* pictures: targets and read-back rings */
    interop *interop;       /* CUDA converts a video's frames where the zero-copy path is on */
    base_msg *msg;          /* what the HUD says */
    const char *shader_dir; /* the read-back's conversion shader */
    bool headless;          /* a --record failure is not shown on the (absent) HUD */
    bool profile;           /* print the verdict of the fence trial */
    int fps;                /* frames/s of the video; 0 -> IO_RECORD_DEFAULT_FPS */
    int width, height;      /* --record-size; 0: the frame's own size */
    bool hud;               /* --record-hud: the HUD in the video too */
} io_recorder_desc;

typedef struct io_recording io_recording;
typedef struct io_recorder {
    io_recorder_desc desc;
    io_recording *recording; /* the video or PNG sequence being written, or NULL */
    io_recording *closing;   /* stopped videos whose ffmpeg is finishing */
    bool failed;             /* a --record / --frames-dir recording failed: exit 1 */
} io_recorder;

/* The trial of the two ways a recorded frame waits for GL before the next
 * interop map (zero-copy path only): way A the map's own wait, way B a
 * fence polled first; the faster is kept for the rest of the recording. A
 * trial costs ~100 frames at worst, once per recording. */
extern const base_trial_desc IO_RECORD_POLL_TRIAL;

void io_record_init(io_recorder *rec, const io_recorder_desc *desc);
/* Starts a video to path (frames_dir NULL) or a PNG sequence in
 * frames_dir, at the frame's size or desc's; hud_shown: the window's HUD is
 * on, so a video without it gets a picture of its own. by_key (M): a
 * failure only stops it. */
void io_record_start(io_recorder *rec, const char *path, const char *frames_dir, bool by_key,
                     int fb_width, int fb_height, bool hud_shown);
/* Stops the running recording; a video's ffmpeg finishes in the background. */
void io_record_stop(io_recorder *rec);
bool io_record_running(const io_recorder *rec);
/* What the running recording has done so far (the REC indicator). */
typedef struct io_record_info {
    bool on;          /* a recording runs */
    bool video;       /* a video; else a PNG sequence */
    long frames;      /* frames written so far (a video's: by its writer thread) */
    int fps;          /* the video's frames/s */
} io_record_info;
io_record_info io_record_get_info(const io_recorder *rec);
/* At the start of a frame: settles the videos whose ffmpeg has exited, and
 * stops a recording at the frame's size when the framebuffer was resized. */
void io_record_update(io_recorder *rec, int fb_width, int fb_height);
/* The picture a recording of its own size draws into, and its size; NULL
 * when none is running so. */
render_target *io_record_target(const io_recorder *rec, int *width, int *height);
/* Queues the picture just drawn for the recording: offscreen true for the
 * picture in io_record_target, false for the frame's own (ignored unless
 * the recording is at the frame's size). drawn_after: something is drawn
 * into that picture after this, before the next upload. */
void io_record_capture(io_recorder *rec, bool offscreen, bool drawn_after);
/* At the end of each frame: the trial of the two ways to wait for GL, and
 * the fence for the next frame's poll when that is the way. */
void io_record_frame_end(io_recorder *rec);
/* Ends a running recording: the last frames, ffmpeg's exit, the rename.
 * false (message printed) when a --record or --frames-dir recording failed
 * at any point; M's failures are only reported. Needs the GL context. */
bool io_record_finish(io_recorder *rec);
/* --record FILE (at start-up): FILE's extension names a video nbody
 * writes (.mp4, .mov, .mkv, .avi, .gif), or it is a stream (stdout, a FIFO,
 * a device) named without one, written as a fragmented MP4. false with a
 * message naming flag. */
bool io_record_check(const char *path, const char *flag);
/* --frames-dir: creates DIR if missing and checks that it is writable and
 * holds no frame-*.png yet; false with a message (flag names the option). */
bool io_check_frames_dir(const char *dir, const char *flag);
/* --encode DIR --record FILE: DIR's frame-*.png in order through the same
 * ffmpeg settings; no GL. Returns the exit code. */
int io_encode(const char *dir, const char *video, int fps);

/* ---- snapshots (io_snapshot.c) ------------------------------------------- */

/* A snapshot read and made ready for the scene. */
typedef struct io_snapshot {
    sim_body *bodies; /* malloc'd; io_snapshot_free */
    int count;
    double time;
    bool own;          /* our save: knobs valid, nothing converted */
    bool galaxy_units; /* converted from the file's units to the galaxy units */
    bool comoving;     /* a cosmological run: time is the scale factor a */
    snap_knobs knobs;
    const char *format;
    char note[256]; /* how the units were taken */
    /* The file's particle IDs, ids[i] for bodies[i] (snap_data.ids), or NULL:
     * then a body's identity is its index (file order). malloc'd. */
    uint64_t *ids;
    /* The indices 0..count-1 sorted by ID (io_snapshot_index_ids), or NULL:
     * not made, no IDs, or two bodies share an ID. malloc'd. */
    int *by_id;
} io_snapshot;

/* Reads path (format from its content) into *out, in model units,
 * recentred unless it is our own save. false with *err, also when its units
 * do not convert or its bodies are beyond what the simulation holds (a
 * position, velocity or mass above 1e18 model units, a positive mass below
 * the smallest normal float). */
bool io_snapshot_read(const char *path, io_snapshot *out, snap_error *err);
void io_snapshot_free(io_snapshot *s);
/* Makes s->by_id from s->ids (O(N log N)); leaves it NULL when s has no IDs,
 * when two bodies share one (*duplicate then true) or when memory is short. */
void io_snapshot_index_ids(io_snapshot *s, bool *duplicate);

/* ---- a series' files read ahead on a thread (io_readahead.c) ------------- */

/* One worker thread reads the file asked for (io_snapshot_read, then
 * io_snapshot_index_ids) while the frames go on; one request at a time. */
typedef struct io_readahead io_readahead;
typedef struct io_readahead_result {
    int index;        /* which file of the series */
    bool ok;          /* else err says why */
    bool duplicate;   /* its IDs are not unique (snap.by_id is NULL) */
    io_snapshot snap; /* ok: the caller owns it (io_snapshot_free) */
    snap_error err;
} io_readahead_result;
/* paths[0..count-1] must outlive the reader. NULL when the thread cannot
 * be started (out of memory or threads). */
io_readahead *io_readahead_create(char *const *paths, int count);
/* Joins the thread (after the read under way) and frees what it holds. */
void io_readahead_destroy(io_readahead *r);
/* Asks for file index; false when a request is under way or its result not
 * yet taken. */
bool io_readahead_request(io_readahead *r, int index);
/* The result, when there is one (wait: until the request under way ends);
 * false when there is none (nothing asked, or not done and !wait). */
bool io_readahead_take(io_readahead *r, bool wait, io_readahead_result *out);
/* The file asked for and not taken yet, or -1. */
int io_readahead_pending(io_readahead *r);
/* The regular files a series left out because snap/ does not recognise
 * them as snapshots (a sidecar beside its tipsy file is not counted). */
#define IO_SERIES_SKIPPED_NAMED 3
typedef struct io_series_skipped {
    int count;
    char names[256]; /* the first IO_SERIES_SKIPPED_NAMED by name: "a, b and 2 more" */
} io_series_skipped;

/* What --load ARG names: one file (*series false), or a series (a folder's
 * snapshots or a glob's matches, sorted by name, in *list; the files left
 * out in *skipped, which may be NULL). false with *err. */
bool io_series_resolve(const char *arg, bool *series, char ***list, int *count,
                       io_series_skipped *skipped, snap_error *err);
void io_series_free(char **list, int count);
/* "nbody: --load ARG: <what>" and its hint, on stderr. */
void io_load_error(const char *arg, const snap_error *err);
/* The snapshot format --dump's extension names; SNAP_FORMAT_UNKNOWN for CSV. */
snap_format io_dump_format(const char *path);
/* The state as tipsy with its sidecar (knobs), or as HDF5 with its units:
 * the galaxy units (galaxy_units: the bodies are in them), else G = 1 model
 * units given the same cgs scale, the file saying which. false with a
 * message printed. */
bool io_snapshot_write(const char *path, snap_format format, const sim_body *bodies, int n,
                       double time, const snap_knobs *knobs, bool galaxy_units);
/* The last part of a path. */
const char *io_base_name(const char *path);

/* ---- --snapshot-every's file names (io_pattern.c) ------------------------- */

/* Whether pattern holds one zero-padded number (%0Nd, N 1-9; "%%" a
 * percent sign) and names a snapshot format; its width in *width. false
 * with why filled (what is wrong with it). */
bool io_series_pattern_check(const char *pattern, int *width, char *why, size_t len);
/* The pattern's file name for index into out; false when the index needs
 * more digits than the pattern's width, or out is too small. */
bool io_series_name(const char *pattern, int index, char *out, size_t len);
/* Whether name is one of the pattern's file names (any index its width holds). */
bool io_series_match(const char *pattern, const char *name);
/* The glob that matches its names (the number as "*"), for --load. */
bool io_series_glob(const char *pattern, char *out, size_t len);

/* ---- --script (io_script.c) ---------------------------------------------- */

#define IO_CAPTION_MAX 200 /* bytes of a caption line's text, its end included */

/* "FRAME select SET ...": a selection line (the app's app_select.c does it). */
#define IO_SELECT_SETS 6      /* sets 1 .. IO_SELECT_SETS */
#define IO_SELECT_NAME_MAX 32 /* bytes of a set's name, its end included */

typedef enum io_select_op {
    IO_SELECT_MATCH,  /* the bodies matching every criterion given (none: "all") */
    IO_SELECT_BOX,    /* those drawn inside a box of the picture */
    IO_SELECT_SPHERE, /* those in a sphere around the body drawn nearest a point */
    IO_SELECT_CLEAR,  /* none */
    IO_SELECT_NAME,   /* names the set */
} io_select_op;

typedef struct io_select {
    io_select_op op;
    int set;       /* 0 .. IO_SELECT_SETS - 1 */
    int galaxy;    /* match: 0 or 1 (the script's 1 or 2); -1 any */
    int component; /* match: NBODY_COMPONENT_*; -1 any */
    bool speed;    /* match: speed in [speed_lo, speed_hi] too */
    double speed_lo, speed_hi;
    double rect[4];                /* box: x0, y0, x1, y1; sphere: x, y; fractions of the picture's
                                      width and height from its top left */
    char name[IO_SELECT_NAME_MAX]; /* name: the set's new name */
} io_select;

/* Parses the words after "select" (e.g. "1 galaxy 1 component disk") into
 * *out; false with why filled. */
bool io_select_parse(const char *text, io_select *out, char *why, size_t len);

/* A key press from --script: pressed just before frame `frame`. */
typedef struct io_script_event {
    int frame;
    int key, mods;                /* GLFW_KEY_*, GLFW_MOD_*; key 0: a caption or select line */
    int line;                     /* in the script file, for messages */
    char caption[IO_CAPTION_MAX]; /* "FRAME caption TEXT": the text; "": clear it */
    bool is_select;               /* "FRAME select SET ...": select holds it */
    io_select select;
} io_script_event;

/* Reads path's "FRAME KEY", "FRAME caption TEXT" and "FRAME select SET ..."
 * lines, sorted by frame (same frame: file order), into a malloc'd *events;
 * false with a message naming the line. */
bool io_script_load(const char *path, io_script_event **events, int *count);
/* Key name ("K", "Shift+P", "Space", "F12") to GLFW key and modifiers;
 * false if unknown. */
bool io_key_parse(const char *name, int *key, int *mods);

/* ---- camera paths (io_campath.c) ----------------------------------------- */

/* A camera path file (docs/USAGE.md, "Camera paths"): the line
 * "nbody-campath 1", then one keyframe a line, "TIME ANCHOR X Y Z DISTANCE
 * YAW PITCH FOV", # comments and blank lines skipped. */
#define IO_CAMPATH_MAGIC "nbody-campath"
#define IO_CAMPATH_VERSION 1
#define IO_CAMPATH_KEYS_MAX 256         /* keyframes a path holds */
#define IO_CAMPATH_DISTANCE_MIN 1e-3    /* the zoom's range (app_camera.c) */
#define IO_CAMPATH_DISTANCE_MAX 1e4
#define IO_CAMPATH_PITCH_MAX_DEG 88.8   /* within the orbit's limit of 1.55 radians */
#define IO_CAMPATH_FOV_MIN_DEG 1.0
#define IO_CAMPATH_FOV_MAX_DEG 170.0
#define IO_CAMPATH_COORD_MAX 1e9        /* |x|, |y|, |z|, |time| and |yaw| in the file */

/* What a keyframe's target is relative to: the origin, the centre of mass
 * of all bodies, or one galaxy's centre of mass (the path flies with it). */
typedef enum io_campath_anchor {
    IO_CAMPATH_WORLD,
    IO_CAMPATH_COM,
    IO_CAMPATH_GALAXY1,
    IO_CAMPATH_GALAXY2,
    IO_CAMPATH_ANCHOR_COUNT
} io_campath_anchor;
const char *io_campath_anchor_name(io_campath_anchor a); /* "world", "com", "galaxy1", ... */

typedef struct io_campath_key {
    double time; /* seconds on the path (a video's seconds when recorded) */
    io_campath_anchor anchor;
    double target[3];  /* length units of the scene, relative to the anchor's centre */
    double distance;   /* from the target, length units */
    double yaw, pitch; /* degrees: about +z, and above the x-y plane (render_camera's) */
    double fov;        /* the vertical field of view, degrees */
} io_campath_key;

typedef struct io_campath {
    int count;
    io_campath_key keys[IO_CAMPATH_KEYS_MAX]; /* times strictly increasing */
} io_campath;

/* Parses a path file's text; name (the file) and flag name it in messages.
 * false with "nbody: FLAG NAME line N: what" and a hint line printed. */
bool io_campath_parse(const char *text, const char *flag, const char *name, io_campath *out);
/* Reads path (a regular file) and parses it; false with a message printed. */
bool io_campath_load(const char *path, const char *flag, io_campath *out);
/* The path as the file's text (every number as the shortest text that
 * reads back as it, so load then save gives the same file); the length it
 * needs (as snprintf: out is cut short when len is too small). */
size_t io_campath_format(const io_campath *p, char *out, size_t len);
/* Writes the path to file atomically (io_write_text); false with a message
 * printed and errno saying why. */
bool io_campath_save(const char *path, const io_campath *p);
/* The frames/s a path is played at frame by frame: --record-fps's, or a
 * video's default. */
int io_campath_fps(int record_fps);

/* ---- the start-up check (io_check.c) ------------------------------------- */

/* Every file cfg names: outputs writable, --load readable, --dump's format
 * built in, --frames-dir usable, --encode a folder. false with the message
 * printed (exit 2). */
bool io_check_config(const config *cfg);

#endif /* NBODY_IO_H */
