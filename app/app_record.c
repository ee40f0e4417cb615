/* app_record.c - videos (--record FILE.mp4, key M) and PNG sequences
 * (--frames-dir DIR), and --encode DIR, which turns such a sequence into a
 * video through the same encoder code.
 *
 * Recording is tied to simulation frames, not to the wall clock: every
 * frame drawn is one video frame, so a video plays smoothly whatever the
 * GPU's speed. At --record-size the video has a picture of its own
 * (render_target) that app_frame draws before the window's; otherwise the
 * frame's own picture is read, before the HUD unless --record-hud.
 *
 * A video's frames are converted to YUV 4:2:0 (BT.709, limited range) and
 * flipped on the GPU, 1.5 bytes a pixel, by one of two rings of the same
 * depth (ring_*): on the zero-copy interop path, CUDA's (app_interop.c
 * maps the picture with the next frame's vertex buffer, video/ converts
 * it and copies it to pinned host memory); elsewhere GL's (render_readback:
 * a shader converts, pixel-pack buffers read back, each mapped once a fence
 * says its copy is done). A writer thread writes each frame straight into
 * ffmpeg's pipe, so the frame loop neither copies nor writes them: it only
 * queues work, maps and unmaps (GL calls stay on its thread). It never
 * drops a frame: when every buffer is taken (the encoder is slower than the
 * loop) it waits for the writer, or for the GPU's oldest copy. PNG
 * sequences read RGBA back through GL's ring and are written as PNGs on the
 * loop's thread. Each recording also tries two ways for the next frame to
 * wait for GL and keeps the faster (app_record_frame_end).
 *
 * The encoder is an ffmpeg child process ($NBODY_FFMPEG, else ffmpeg from
 * PATH) reading raw yuv420p frames (--encode: the PNGs' RGB, converted by
 * ffmpeg with the same matrix) from a pipe on its stdin and writing H.264
 * (libx264, CRF 20, yuv420p, BT.709 tagged, +faststart) to
 * "FILE.tmp-PID.mp4", which is renamed to FILE only when ffmpeg exits with
 * status 0. yuv420p needs even sizes: a frame of odd width or height loses
 * its last column or bottom row. ffmpeg's messages go to "FILE.tmp-PID.log",
 * whose last line is quoted when it fails; both temporary files are removed
 * either way. When ffmpeg cannot be started, stops reading (EPIPE: the
 * writer thread blocks every signal, so SIGPIPE stays pending on it instead
 * of killing the program; --encode ignores SIGPIPE around its writes) or
 * exits non-zero, one line says so with a hint and nothing is left under
 * FILE; a --record run then exits 1, a recording started with M only stops,
 * with the reason on the HUD. A recording stopped while the program runs on
 * (M, a resized window) lets its ffmpeg finish in the background, polled
 * with waitpid(WNOHANG) each frame; at exit every one is waited for.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ (Linux), with the POSIX 2008 the build asks for */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "app.h"

#define RECORD_DEFAULT_FPS 30
_Static_assert(VIDEO_DEPTH == RENDER_READBACK_DEPTH, "CUDA's frames and GL's share the writer");
#define RECORD_CRF "20"
#define RECORD_HINT                                                                                \
    "install ffmpeg (apt-get install ffmpeg) or set NBODY_FFMPEG to one; or write PNGs with "      \
    "--frames-dir DIR and encode them with nbody --encode DIR --record FILE.mp4 where ffmpeg is"

extern char **environ; /* the libc's, handed to ffmpeg; POSIX declares it nowhere */

typedef struct record_error {
    char what[768];
    char hint[320];
} record_error;

__attribute__((format(printf, 3, 4))) static bool fail(record_error *e, const char *hint,
                                                       const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->what, sizeof e->what, fmt, ap);
    va_end(ap);
    snprintf(e->hint, sizeof e->hint, "%s", hint);
    return false;
}

/* Copies in to out[len], cut short when it does not fit. */
static void copy_text(char *out, size_t len, const char *in) {
    size_t n = strlen(in);
    if (n >= len) n = len - 1;
    memcpy(out, in, n);
    out[n] = 0;
}

/* ---- the encoder: an ffmpeg child reading raw frames ------------------------ */

typedef struct encoder {
    const char *program; /* $NBODY_FFMPEG or "ffmpeg" */
    char path[PATH_MAX], tmp[PATH_MAX + 32], log[PATH_MAX + 32];
    pid_t pid;
    int fd;            /* the pipe to ffmpeg's stdin; -1 once closed */
    int width, height; /* the frames given to encoder_write */
    int out_w, out_h;  /* the video: rounded down to even */
    long frames;       /* written so far */
} encoder;

/* The last non-empty line of ffmpeg's log, or "" (it says why it failed). */
static void last_log_line(const char *log, char *out, size_t len) {
    out[0] = 0;
    FILE *f = fopen(log, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0]) copy_text(out, len, line);
    }
    fclose(f);
}

/* ffmpeg's exit: its status, -1 when a signal ended it (*sig), or -2 when
 * block is false and it is still running. */
static int wait_child(pid_t pid, bool block, int *sig) {
    int status = 0;
    pid_t got;
    while ((got = waitpid(pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
    }
    *sig = 0;
    if (got == 0) return -2;
    if (got < 0) return -1;
    *sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* yuv: frames come as yuv420p (the GPU's conversion), else as RGB0 that
 * ffmpeg converts with the same matrix and range. */
static bool encoder_open(encoder *e, const char *path, int width, int height, int fps, bool yuv,
                         record_error *err) {
    const char *env = getenv("NBODY_FFMPEG");
    *e = (encoder){.program = env && env[0] ? env : "ffmpeg",
                   .fd = -1,
                   .width = width,
                   .height = height,
                   .out_w = width & ~1,
                   .out_h = height & ~1};
    snprintf(e->path, sizeof e->path, "%s", path);
    snprintf(e->tmp, sizeof e->tmp, "%s.tmp-%ld.mp4", path, (long)getpid());
    snprintf(e->log, sizeof e->log, "%s.tmp-%ld.log", path, (long)getpid());
    if (e->out_w < 2 || e->out_h < 2) {
        return fail(err, "record a larger picture", "cannot record %s: a %dx%d frame is too small",
                    path, width, height);
    }
    int fds[2];
    if (pipe(fds) != 0) {
        return fail(err, "close some programs", "cannot record %s: no pipe for ffmpeg: %s", path,
                    strerror(errno));
    }
    /* Neither end may stay open in ffmpeg beyond its stdin: a write end
     * there would keep it from ever seeing the end of the video. */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
#ifdef F_SETPIPE_SZ
    /* 1 MiB (the unprivileged limit by default) instead of 64 KiB: fewer
     * trips through the kernel per frame. Refused: the default will do. */
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20);
#endif
    char size[32], rate[16];
    snprintf(size, sizeof size, "%dx%d", e->out_w, e->out_h);
    snprintf(rate, sizeof rate, "%d", fps);
    /* BT.709 limited range, what the GPU's conversion writes, and tagged so
     * that players decode it with that matrix. */
    /* clang-format off */
    char *const argv[] = {
        (char *)e->program, "-hide_banner", "-loglevel", "error",
        "-f", "rawvideo", "-pix_fmt", yuv ? "yuv420p" : "rgb0", "-video_size", size,
        "-framerate", rate, "-i", "pipe:0", "-an",
        "-vf", yuv ? "null" : "scale=out_color_matrix=bt709:out_range=tv",
        "-c:v", "libx264", "-crf", RECORD_CRF, "-pix_fmt", "yuv420p",
        "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709",
        "-color_range", "tv",
        "-movflags", "+faststart", "-f", "mp4", "-y", e->tmp, NULL};
    /* clang-format on */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, e->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    /* ffmpeg in a process group of its own: Ctrl-C at the terminal goes to
     * the foreground group, and ffmpeg killed by it would leave a video that
     * is never renamed into place; nbody instead finishes the frame, closes
     * ffmpeg's input and waits for it (app_signal.c). SIGPIPE back to its
     * default, which nbody ignores (ignored signals survive exec). */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    const int rc = posix_spawnp(&e->pid, e->program, &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (rc != 0) {
        close(fds[1]);
        unlink(e->log);
        unlink(e->tmp);
        return fail(err, RECORD_HINT, "cannot record %s: cannot start '%s': %s", path, e->program,
                    strerror(rc));
    }
    e->fd = fds[1];
    return true;
}

/* After ffmpeg exited with status (or signal sig): renames its file over
 * e->path when keep and the status is 0; otherwise removes it. why (may be
 * NULL) says what stopped the recording early, for the message. */
static bool encoder_settle(encoder *e, int status, int sig, bool keep, const char *why,
                           record_error *err) {
    char last[400];
    last_log_line(e->log, last, sizeof last);
    unlink(e->log);
    if (keep && status == 0) {
        if (rename(e->tmp, e->path) == 0) return true;
        const int rename_err = errno;
        unlink(e->tmp);
        if (rename_err == ENOENT) {
            return fail(err, RECORD_HINT,
                        "cannot record %s: '%s' exited with status 0 but wrote no %s", e->path,
                        e->program, e->tmp);
        }
        return fail(err, "check that the folder is writable", "cannot record %s: rename: %s",
                    e->path, strerror(rename_err));
    }
    unlink(e->tmp);
    if (!keep && !why) return true; /* given up on deliberately */
    char how[64];
    if (status == 127) {
        snprintf(how, sizeof how, "could not be run (exit status 127)");
    } else if (status >= 0) {
        snprintf(how, sizeof how, "exited with status %d", status);
    } else {
        snprintf(how, sizeof how, "was killed by signal %d", sig);
    }
    return fail(err, RECORD_HINT, "cannot record %s: '%s' %s%s%s after %ld frames%s%s%s", e->path,
                e->program, why ? why : "", why ? ", then " : "", how, e->frames,
                last[0] ? " (it said: " : "", last, last[0] ? ")" : "");
}

/* Ends the input, waits for ffmpeg and settles (encoder_settle). */
static bool encoder_close(encoder *e, bool keep, const char *why, record_error *err) {
    if (e->fd >= 0) close(e->fd);
    e->fd = -1;
    int sig = 0;
    const int status = wait_child(e->pid, true, &sig);
    return encoder_settle(e, status, sig, keep, why, err);
}

/* Writes all of buf, or false with errno set (EPIPE: ffmpeg stopped reading). */
static bool write_all(int fd, const uint8_t *buf, size_t len) {
    while (len > 0) {
        const ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        buf += n;
        len -= (size_t)n;
    }
    return true;
}

/* One frame, width x height RGBA8 top row first; an odd width or height
 * loses its last column or bottom row. false: the encoder is closed and
 * *err says why. */
static bool encoder_write(encoder *e, const uint8_t *rgba, record_error *err) {
    /* A closed pipe must come back as EPIPE, not kill the program. */
    struct sigaction ignore = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &old);
    const size_t row = (size_t)e->width * 4, out_row = (size_t)e->out_w * 4;
    bool ok = true;
    if (out_row == row) {
        ok = write_all(e->fd, rgba, row * (size_t)e->out_h);
    } else {
        for (int y = 0; ok && y < e->out_h; y++) ok = write_all(e->fd, rgba + row * y, out_row);
    }
    const int write_err = errno;
    sigaction(SIGPIPE, &old, NULL);
    if (ok) {
        e->frames++;
        return true;
    }
    char why[128];
    snprintf(why, sizeof why, "stopped reading (%s)", strerror(write_err));
    encoder_close(e, false, why, err);
    return false;
}

/* ---- the writer thread: mapped frames into the pipe ------------------------ */

/* Frames handed over in order (pointers into mapped read-back buffers,
 * valid until the loop releases them, which it does only once the thread
 * is done with them). */
typedef struct writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started;
    int fd;
    size_t len; /* bytes a frame */
    const uint8_t *job[RENDER_READBACK_DEPTH];
    long handed, done; /* frames handed over; frames the thread is done with */
    bool quit;         /* no more will come: end once done == handed */
    bool abandon;      /* skip the ones left */
    int err;           /* errno of the first failed write; the frames after it are skipped */
} writer;

static void *writer_main(void *arg) {
    writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->done == w->handed && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
        if (w->done == w->handed) break; /* told to quit, all done */
        const uint8_t *frame = w->job[w->done % RENDER_READBACK_DEPTH];
        const bool skip = w->err != 0 || w->abandon;
        pthread_mutex_unlock(&w->mu);
        errno = 0;
        const int e = skip || write_all(w->fd, frame, w->len) ? 0 : errno ? errno : EIO;
        pthread_mutex_lock(&w->mu);
        if (e && !w->err) w->err = e;
        w->done++;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Starts the thread with every signal blocked: SIGINT and SIGTERM go to the
 * loop's thread (app_signal.c), and a SIGPIPE from a write into a closed
 * pipe stays pending on this thread while write() returns EPIPE. */
static bool writer_start(writer *w, int fd, size_t len) {
    *w = (writer){.fd = fd, .len = len};
    if (pthread_mutex_init(&w->mu, NULL) != 0) return false;
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return false;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int rc = pthread_create(&w->thread, NULL, writer_main, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        errno = rc;
        return false;
    }
    w->started = true;
    return true;
}

static void writer_hand(writer *w, const uint8_t *frame) {
    pthread_mutex_lock(&w->mu);
    w->job[w->handed % RENDER_READBACK_DEPTH] = frame;
    w->handed++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Frames done so far (waiting until at least `least`), and the first
 * write's error, if any. */
static long writer_done(writer *w, long least, int *err) {
    pthread_mutex_lock(&w->mu);
    while (w->done < least) pthread_cond_wait(&w->cv, &w->mu);
    const long done = w->done;
    *err = w->err;
    pthread_mutex_unlock(&w->mu);
    return done;
}

/* Ends the thread once it has done every frame handed over (abandon: skips
 * those it has not started). */
static void writer_stop(writer *w, bool abandon) {
    if (!w->started) return;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    w->abandon = w->abandon || abandon;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    w->started = false;
}

/* ---- recording drawn frames ------------------------------------------------- */

struct app_recording {
    bool by_key;          /* M: a failure only stops it */
    bool video;           /* else a PNG sequence */
    encoder enc;          /* video */
    char dir[PATH_MAX];   /* PNG sequence */
    char shown[PATH_MAX]; /* the absolute path, for the messages */
    int width, height;    /* the frames read back */
    bool offscreen;       /* drawn into target (--record-size, or the HUD on but not recorded), else
                             the frame's own picture */
    render_target *target;
    render_readback *ring; /* the GL read-back; with cuda, the picture's buffer for CUDA */
    bool cuda;             /* video: converted and sent to the host by CUDA (app_interop) */
    writer out;            /* video: the thread writing into ffmpeg's pipe */
    uint8_t *rgba;         /* PNG sequence: one frame */
    long frames;           /* frames written (video: by the writer) */
    app_recording *next;   /* in the list of videos whose ffmpeg is finishing */
    /* The trial of the two ways the next frame waits for GL (app_record_frame_end). */
    long trial_frame;  /* frames ended since the start */
    double trial_t[3]; /* when the no-poll and the poll runs started, and the latter ended */
    int poll;          /* -1 during the trial, then 0 or 1 */
};

/* Says why a recording failed, in the terminal and (window) on the HUD. */
static void report(app *a, bool by_key, const record_error *err) {
    if (by_key) {
        app_message(a, "recording stopped: %s", err->what);
        printf("hint: %s\n", err->hint);
        return;
    }
    fprintf(stderr, "nbody: %s\nhint: %s\n", err->what, err->hint);
    if (!a->cfg.headless) {
        copy_text(a->live.message, sizeof a->live.message, err->what);
        a->live.message_until = app_now() + 10.0;
    }
}

/* The writer, the GL objects and the frame buffer; the rest goes with
 * free(). The writer ends first: it may be reading a mapped buffer. */
static void free_frames(app *a, app_recording *r) {
    writer_stop(&r->out, true);
    if (r->cuda) app_interop_video_end(&a->interop); /* before GL deletes the buffer */
    r->cuda = false;
    render_target_destroy(a->render, r->target);
    render_readback_destroy(r->ring);
    free(r->rgba);
    r->target = NULL;
    r->ring = NULL;
    r->rgba = NULL;
}

static void free_recording(app *a, app_recording *r) {
    free_frames(a, r);
    free(r);
}

/* Stops the recording after a failure: the encoder closed, the reason
 * reported, nothing left under the file's name. */
static void failed(app *a, const record_error *err) {
    app_recording *r = a->out.recording;
    a->out.recording = NULL;
    if (!r->by_key) a->out.record_failed = true;
    report(a, r->by_key, err);
    free_recording(a, r);
}

/* PNG sequence: writes the oldest frame of the ring. false: the recording
 * failed and is gone. */
static bool write_oldest(app *a) {
    app_recording *r = a->out.recording;
    render_error gl = {0};
    record_error err = {0};
    if (!render_readback_pop(r->ring, r->rgba, &gl)) {
        fail(&err, gl.hint, "cannot record %s: %s", r->shown, gl.message);
        failed(a, &err);
        return false;
    }
    for (size_t i = 3; i < (size_t)r->width * r->height * 4; i += 4) r->rgba[i] = 255;
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/frame-%06ld.png", r->dir, r->frames);
    if (!app_output_png(path, r->width, r->height, r->rgba)) { /* message printed */
        fail(&err, "check the folder", "stopped writing frames to %s", r->dir);
        failed(a, &err);
        return false;
    }
    r->frames++;
    return true;
}

/* Video: the recording failed, with the ffmpeg message of encoder_close
 * (why: what the writer saw, or NULL with *gl: a GL failure). */
static bool video_failed(app *a, const char *why, const render_error *gl) {
    app_recording *r = a->out.recording;
    record_error err = {0};
    writer_stop(&r->out, true);
    r->enc.frames = r->frames;
    if (gl) {
        fail(&err, gl->hint, "cannot record %s: %s", r->shown, gl->message);
        encoder_close(&r->enc, false, NULL, NULL);
    } else {
        encoder_close(&r->enc, false, why, &err);
    }
    failed(a, &err);
    return false;
}

/* ---- a video's frames: GL's read-back ring, or CUDA's (app_interop) -------- */

static int ring_pending(app *a, const app_recording *r) {
    return r->cuda ? app_interop_video_pending(&a->interop) : render_readback_pending(r->ring);
}

static int ring_mapped(app *a, const app_recording *r) {
    return r->cuda ? app_interop_video_mapped(&a->interop) : render_readback_mapped(r->ring);
}

static bool ring_map(app *a, app_recording *r, bool wait, const uint8_t **frame, render_error *gl) {
    if (!r->cuda) return render_readback_map(r->ring, wait, frame, gl);
    video_error e = {0};
    if (app_interop_video_map(&a->interop, wait, frame, &e)) return true;
    snprintf(gl->message, sizeof gl->message, "%s", e.message);
    snprintf(gl->hint, sizeof gl->hint, "%s", e.hint);
    return false;
}

static void ring_release(app *a, app_recording *r) {
    if (r->cuda) {
        app_interop_video_release(&a->interop);
    } else {
        render_readback_release(r->ring);
    }
}

static void ring_push(app *a, app_recording *r) {
    if (r->cuda) {
        /* In place unless something is drawn into the picture after this:
         * the chart, or help when the HUD is not in the video (app_frame). */
        const bool later = a->chart.open || (!a->cfg.record_hud && a->view.help);
        app_interop_video_push(&a->interop, a->render, r->ring, r->offscreen || !later);
    } else {
        render_readback_push(a->render, r->ring);
    }
}

/* Video: releases the buffers the writer is done with and hands it every
 * frame the GPU has finished copying. until_free: and then, while every
 * buffer is taken, waits for the writer (or, when it holds none, for the
 * GPU's oldest copy); drain: until every frame is written. false: the
 * recording failed and is gone. */
static bool pump(app *a, bool until_free, bool drain) {
    app_recording *r = a->out.recording;
    render_error gl = {0};
    long least = 0; /* frames the writer must have done before going on */
    for (;;) {
        int werr = 0;
        const long done = writer_done(&r->out, least, &werr);
        for (; r->frames < done; r->frames++) ring_release(a, r);
        if (werr) {
            char why[128];
            snprintf(why, sizeof why, "stopped reading (%s)", strerror(werr));
            return video_failed(a, why, NULL);
        }
        const int pending = ring_pending(a, r);
        const bool must = (until_free && pending == RENDER_READBACK_DEPTH) || (drain && pending);
        const bool copies = pending > ring_mapped(a, r); /* not handed over yet */
        /* Waits for the GPU only when the writer holds nothing to free. */
        const bool wait_gpu = must && copies && (drain || ring_mapped(a, r) == 0);
        const uint8_t *frame = NULL;
        bool first = true;
        do {
            if (!ring_map(a, r, wait_gpu && first, &frame, &gl)) {
                return video_failed(a, NULL, &gl);
            }
            if (frame) writer_hand(&r->out, frame);
            first = false;
        } while (frame);
        if (!must) return true;
        least = wait_gpu ? 0 : r->frames + 1;
    }
}

/* path, made absolute against the current folder for the messages. */
static void absolute(const char *path, char *out, size_t len) {
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd) ||
        snprintf(out, len, "%s/%s", cwd, path) >= (int)len) {
        copy_text(out, len, path);
    }
}

/* A video's frames: converted and sent to the host by CUDA where the
 * zero-copy interop path is on (r->cuda; a GL buffer for the picture,
 * desc's size), else GL's YUV420 read-back ring. NULL with *gl. */
static render_readback *video_ring(app *a, app_recording *r, const render_readback_desc *desc,
                                   render_error *gl) {
    render_readback_desc d = *desc;
    d.format = RENDER_READBACK_DEVICE;
    render_readback *rb = NULL;
    if (a->interop.path == APP_INTEROP_ZERO_COPY && (rb = render_readback_create(&d, gl))) {
        video_error e = {0};
        const uint32_t picture = render_picture_renderbuffer(a->render, r->target);
        if (app_interop_video_begin(&a->interop, rb, picture, d.width, d.height, &e)) {
            r->cuda = true;
            return rb;
        }
        render_readback_destroy(rb);
        if (e.hint[0]) { /* more than the path being off: say why GL reads back instead */
            printf("nbody: the video's frames come back through GL: %s\n", e.message);
        }
    }
    return render_readback_create(desc, gl);
}

/* Starts a video to path (frames_dir NULL) or a PNG sequence in frames_dir,
 * of the frame's size or --record-size. */
static void start(app *a, const char *path, const char *frames_dir, bool by_key, int fb_width,
                  int fb_height) {
    app_recording *r = calloc(1, sizeof *r);
    record_error err = {0};
    if (!r) {
        fail(&err, "free some memory", "cannot record: out of memory");
        report(a, by_key, &err);
        if (!by_key) a->out.record_failed = true;
        return;
    }
    r->by_key = by_key;
    r->video = frames_dir == NULL;
    /* Offscreen at --record-size; and at the frame's size when the HUD is on
     * but not wanted in the video, since the window's picture is then
     * shifted to leave the HUD room (app_hud_fit_view) and the video should
     * show the scene centred. Decided once: Tab during a recording does not
     * change it. */
    r->offscreen = a->cfg.record_width > 0 || (a->view.hud && !a->cfg.record_hud);
    r->width = a->cfg.record_width > 0 ? a->cfg.record_width : fb_width;
    r->height = a->cfg.record_width > 0 ? a->cfg.record_height : fb_height;
    absolute(r->video ? path : frames_dir, r->shown, sizeof r->shown);
    if (!r->video) snprintf(r->dir, sizeof r->dir, "%s", frames_dir);
    a->out.recording = r;
    render_error gl = {0};
    char shaders[PATH_MAX + 16];
    snprintf(shaders, sizeof shaders, "%s/shaders", a->data_dir);
    const render_readback_desc rd = {.width = r->width,
                                     .height = r->height,
                                     .format =
                                         r->video ? RENDER_READBACK_YUV420 : RENDER_READBACK_RGBA,
                                     .shader_dir = shaders};
    if (!r->video && !(r->rgba = malloc((size_t)r->width * (size_t)r->height * 4))) {
        fail(&err, "try a smaller --record-size",
             "cannot record %s: out of memory for a %dx%d frame", r->shown, r->width, r->height);
    } else if ((r->offscreen && !(r->target = render_target_create(r->width, r->height, &gl))) ||
               !(r->ring =
                     r->video ? video_ring(a, r, &rd, &gl) : render_readback_create(&rd, &gl))) {
        fail(&err, gl.hint, "cannot record %s: %s", r->shown, gl.message);
    } else if (r->video) {
        const int fps = a->cfg.record_fps > 0 ? a->cfg.record_fps : RECORD_DEFAULT_FPS;
        if (encoder_open(&r->enc, path, r->width, r->height, fps, true, &err)) {
            const size_t bytes = (size_t)r->enc.out_w * (size_t)r->enc.out_h * 3 / 2;
            if (writer_start(&r->out, r->enc.fd, bytes)) {
                app_message(a, "recording %dx%d at %d frames/s to %s%s%s", r->enc.out_w,
                            r->enc.out_h, fps, r->shown, by_key ? " (M stops)" : "",
                            r->cuda ? " (converted by CUDA)" : "");
                return;
            }
            fail(&err, "free some memory or close some programs",
                 "cannot record %s: no thread for the writer: %s", r->shown, strerror(errno));
            encoder_close(&r->enc, false, NULL, NULL);
        }
    } else {
        app_message(a, "writing %dx%d frames to %s/frame-NNNNNN.png", r->width, r->height,
                    r->shown);
        return;
    }
    failed(a, &err);
}

/* Says how a video ended once its ffmpeg exited, and frees it. */
static bool settled(app *a, app_recording *r, int status, int sig) {
    record_error err = {0};
    const bool ok = encoder_settle(&r->enc, status, sig, true, NULL, &err);
    if (ok) {
        app_message(a, "wrote %s (%ld frames, %dx%d)", r->shown, r->frames, r->enc.out_w,
                    r->enc.out_h);
    } else {
        if (!r->by_key) a->out.record_failed = true;
        report(a, r->by_key, &err);
    }
    free_recording(a, r);
    return ok;
}

/* Ends the recording: the frames still in the ring, then the input of
 * ffmpeg. With wait, until ffmpeg has exited; else ffmpeg finishes (the
 * encoder's last frames take a while at large sizes) while the loop runs
 * on, and app_record_update settles it. */
static void stop(app *a, bool wait) {
    app_recording *r = a->out.recording;
    if (r->video && !pump(a, false, true)) return; /* reported, freed */
    while (!r->video && render_readback_pending(r->ring) > 0) {
        if (!write_oldest(a)) return; /* reported, freed */
    }
    a->out.recording = NULL;
    r->enc.frames = r->frames;
    free_frames(a, r); /* the writer has written every frame: it just ends */
    if (!r->video) {
        app_message(a, "wrote %ld frames to %s", r->frames, r->shown);
        free_recording(a, r);
        return;
    }
    close(r->enc.fd);
    r->enc.fd = -1;
    int sig = 0;
    const int status = wait_child(r->enc.pid, wait, &sig);
    if (status != -2) {
        settled(a, r, status, sig);
        return;
    }
    r->next = a->out.record_closing;
    a->out.record_closing = r;
}

/* Settles the videos whose ffmpeg has exited (block: waits for all). */
static void settle_closing(app *a, bool block) {
    app_recording **link = &a->out.record_closing;
    while (*link) {
        app_recording *r = *link;
        int sig = 0;
        const int status = wait_child(r->enc.pid, block, &sig);
        if (status == -2) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        settled(a, r, status, sig);
    }
}

void app_record_update(app *a, int fb_width, int fb_height) {
    settle_closing(a, false);
    app_recording *r = a->out.recording;
    if (r && !r->offscreen && (fb_width != r->width || fb_height != r->height)) {
        stop(a, false);
        app_message(a, "recording stopped: the window was resized (--record-size keeps one size)");
    }
    if (a->live.frame == 0 && (a->cfg.record || a->cfg.frames_dir)) {
        start(a, a->cfg.record, a->cfg.frames_dir, false, fb_width, fb_height);
    }
    if (!a->out.record_toggle_requested) return;
    a->out.record_toggle_requested = false;
    if (a->out.recording) {
        stop(a, false);
        return;
    }
    char name[64], stamp[32], path[PATH_MAX];
    const time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(name, sizeof name, "nbody-%s.mp4", stamp);
    absolute(name, path, sizeof path); /* named in full on the HUD and in messages */
    start(a, path, NULL, true, fb_width, fb_height);
}

render_target *app_record_target(const app *a, int *width, int *height) {
    const app_recording *r = a->out.recording;
    if (!r || !r->offscreen) return NULL;
    *width = r->width;
    *height = r->height;
    return r->target;
}

/* The trial: RECORD_TRIAL_WARM frames to settle, RECORD_TRIAL frames with
 * the interop map's own wait for GL, as many polling a fence first, then
 * the faster from then on. Which is faster depends on the picture's size
 * and the path, measured on an H100 both ways by 3x (app_interop.c,
 * poll_frame_fence), and a trial costs ~100 frames at worst once. */
#define RECORD_TRIAL_WARM 16
#define RECORD_TRIAL 32

void app_record_frame_end(app *a) {
    app_recording *r = a->out.recording;
    if (!r) return;
    const long f = r->trial_frame++;
    if (f == 0) r->poll = a->interop.path == APP_INTEROP_ZERO_COPY ? -1 : 0; /* else no map */
    if (r->poll < 0) {
        const long k = f - RECORD_TRIAL_WARM;
        if (k == 0 || k == RECORD_TRIAL || k == 2 * RECORD_TRIAL) {
            r->trial_t[k / RECORD_TRIAL] = app_now();
        }
        if (k == 2 * RECORD_TRIAL) {
            const double wait = r->trial_t[1] - r->trial_t[0], poll = r->trial_t[2] - r->trial_t[1];
            r->poll = poll < wait;
            if (a->cfg.profile) {
                printf("nbody: recording: %.0f frames/s with the interop map's wait for GL, %.0f "
                       "polling a fence first; %s\n",
                       RECORD_TRIAL / wait, RECORD_TRIAL / poll,
                       r->poll ? "polling from now on" : "not polling");
            }
        }
    }
    const bool polling = r->poll == 1 || (r->poll < 0 && f >= RECORD_TRIAL_WARM + RECORD_TRIAL);
    if (polling) app_interop_fence_frame(&a->interop);
}

void app_record_capture(app *a, bool offscreen) {
    app_recording *r = a->out.recording;
    if (!r || r->offscreen != offscreen) return;
    if (r->video) {
        if (!pump(a, true, false)) return; /* reported, freed */
        ring_push(a, r);                   /* a buffer is free */
        pump(a, false, false);
        return;
    }
    /* The ring is never full here: a full one is emptied by one below. */
    render_readback_push(a->render, r->ring);
    if (render_readback_pending(r->ring) == RENDER_READBACK_DEPTH) write_oldest(a);
}

bool app_record_finish(app *a) {
    if (a->out.recording) stop(a, true);
    settle_closing(a, true);
    return !a->out.record_failed;
}

/* ---- --frames-dir and --encode ---------------------------------------------- */

/* "frame-<digits>.png" */
static bool is_frame_name(const char *name) {
    if (strncmp(name, "frame-", 6) != 0) return false;
    const char *p = name + 6;
    const size_t digits = strspn(p, "0123456789");
    return digits > 0 && strcmp(p + digits, ".png") == 0;
}

/* Frame order: by number (more digits is later, then by digits). */
static int by_frame_name(const void *x, const void *y) {
    const char *a = *(const char *const *)x, *b = *(const char *const *)y;
    const size_t la = strlen(a), lb = strlen(b);
    if (la != lb) return la < lb ? -1 : 1;
    return strcmp(a, b);
}

/* DIR's frame-*.png names in order; NULL with *count 0 when none, or on failure (errno). */
static char **list_frames(const char *dir, int *count) {
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **names = NULL;
    int cap = 0;
    const struct dirent *e;
    while ((e = readdir(d))) {
        if (!is_frame_name(e->d_name)) continue;
        if (*count == cap) {
            cap = cap ? 2 * cap : 256;
            char **grown = realloc(names, sizeof *names * (size_t)cap);
            if (!grown) break;
            names = grown;
        }
        if (!(names[*count] = strdup(e->d_name))) break;
        (*count)++;
    }
    closedir(d);
    if (names) qsort(names, (size_t)*count, sizeof *names, by_frame_name);
    return names;
}

static void free_names(char **names, int count) {
    for (int i = 0; i < count; i++) free(names[i]);
    free(names);
}

bool app_record_check_frames_dir(const char *dir, const char *flag) {
    struct stat st;
    if (stat(dir, &st) != 0 && mkdir(dir, 0755) != 0) {
        fprintf(stderr, "nbody: %s %s: cannot create the folder: %s\n", flag, dir, strerror(errno));
        fprintf(stderr, "hint: check that its parent folder exists and is writable\n");
        return false;
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nbody: %s %s: not a folder\n", flag, dir);
        fprintf(stderr, "hint: give a folder (it is created if missing)\n");
        return false;
    }
    int count = 0;
    char **names = list_frames(dir, &count);
    free_names(names, count);
    if (count > 0) {
        fprintf(stderr, "nbody: %s %s already holds %d frame-*.png files\n", flag, dir, count);
        fprintf(stderr, "hint: remove them or give another folder, so the sequence is one run's\n");
        return false;
    }
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/frame-000000.png", dir);
    return app_output_check_writable(probe, flag);
}

int app_record_encode(const app_config *cfg) {
    struct stat st;
    if (stat(cfg->encode, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nbody: --encode %s: not a folder\n", cfg->encode);
        fprintf(stderr, "hint: give the folder that --frames-dir wrote\n");
        return 1;
    }
    int count = 0;
    char **names = list_frames(cfg->encode, &count);
    if (count == 0) {
        free_names(names, count);
        fprintf(stderr, "nbody: --encode %s: no frame-*.png in it\n", cfg->encode);
        fprintf(stderr, "hint: write them with nbody --frames-dir %s\n", cfg->encode);
        return 1;
    }
    const int fps = cfg->record_fps > 0 ? cfg->record_fps : RECORD_DEFAULT_FPS;
    encoder enc;
    record_error err = {0};
    bool ok = true, opened = false;
    int width = 0, height = 0;
    for (int i = 0; ok && i < count; i++) {
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", cfg->encode, names[i]);
        int w = 0, h = 0, channels = 0;
        uint8_t *rgba = stbi_load(path, &w, &h, &channels, 4);
        if (!rgba) {
            ok = fail(&err, "rewrite the sequence with --frames-dir",
                      "--encode: cannot read %s: %s", path, stbi_failure_reason());
        } else if (i == 0) {
            width = w;
            height = h;
            ok = opened = encoder_open(&enc, cfg->record, w, h, fps, false, &err);
        } else if (w != width || h != height) {
            ok = fail(&err, "encode frames of one size", "--encode: %s is %dx%d, %s is %dx%d", path,
                      w, h, names[0], width, height);
        }
        if (ok) ok = encoder_write(&enc, rgba, &err); /* closes it on failure */
        if (!ok && opened && enc.fd >= 0) encoder_close(&enc, false, NULL, NULL);
        opened = opened && ok;
        stbi_image_free(rgba);
    }
    if (opened) ok = encoder_close(&enc, true, NULL, &err);
    free_names(names, count);
    if (!ok) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.what, err.hint);
        return 1;
    }
    printf("nbody: wrote %s (%ld frames, %dx%d, %d frames/s)\n", cfg->record, enc.frames, enc.out_w,
           enc.out_h, fps);
    return 0;
}
