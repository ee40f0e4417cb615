/* io_encoder.c - the video encoder: an ffmpeg child reading raw frames
 * from a pipe, the thread that writes the frames into that pipe, and
 * --encode DIR, which turns a --frames-dir sequence into a video through
 * the same encoder.
 *
 * The encoder is an ffmpeg child process ($NBODY_FFMPEG, else ffmpeg from
 * PATH) reading raw yuv420p frames (--encode: the PNGs' RGB, converted by
 * ffmpeg with the same matrix) from a pipe on its stdin. The file's
 * extension picks the container and the codec (CONTAINERS): .mp4 and .mov
 * H.264 (libx264, CRF 20, yuv420p, BT.709 tagged, +faststart), .mkv H.264
 * in Matroska, .avi MPEG-4 part 2, .gif a palette per frame; any other name
 * is refused at start-up (io_record_check). yuv420p needs even sizes: a
 * frame of odd width or height loses its last column or bottom row.
 *
 * A file is written to "FILE.tmp-PID.EXT", created by nbody first (a folder
 * that cannot take it is named as the cause, not ffmpeg) and renamed to
 * FILE only when ffmpeg exits with status 0 having finished it. A stream
 * (stdout, a FIFO, a device) is opened by nbody and handed to ffmpeg as its
 * stdout; one named without an extension gets a fragmented MP4, which
 * needs no seek back. ffmpeg's stderr goes to a file in memory (memfd), so
 * its words survive a full disk; when it fails, its line naming the failed
 * write (else its last line) is quoted, and the hint follows the cause: a
 * full disk or quota, a folder not writable, a reader gone, ffmpeg
 * missing, or ffmpeg's own failure. When ffmpeg cannot be started, stops
 * reading (EPIPE: the writer thread blocks every signal, so SIGPIPE stays
 * pending on it instead of killing the program; --encode ignores SIGPIPE
 * around its writes) or exits non-zero, one line says so with a hint and
 * nothing is left under FILE.
 */
#define _GNU_SOURCE /* F_SETPIPE_SZ (Linux), with the POSIX 2008 the build asks for */
#include <assert.h>
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
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "io_internal.h"

#define RECORD_CRF "20"    /* libx264's constant rate factor */
#define RECORD_MPEG4_Q "2" /* MPEG-4 part 2's quantizer (AVI): 2 is near its best */

extern char **environ; /* the libc's, handed to ffmpeg; POSIX declares it nowhere */

bool io_record_fail(io_record_error *e, const char *hint, const char *fmt, ...) {
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

/* ---- the containers, by the file's extension ------------------------------- */

typedef enum { CODEC_H264, CODEC_MPEG4, CODEC_GIF } record_codec;

typedef struct record_container {
    const char *ext;    /* with the dot, lower case; matched in any case */
    const char *format; /* ffmpeg's -f */
    record_codec codec;
    bool mov; /* MP4 / QuickTime: +faststart in a file, fragments in a stream */
} record_container;

/* H.264 where the container is made for it; AVI gets MPEG-4 part 2, the
 * codec its players expect; GIF a palette made for each frame (no frame is
 * kept waiting for a palette of the whole video, so memory stays flat). */
static const record_container CONTAINERS[] = {
    {".mp4", "mp4", CODEC_H264, true},       {".mov", "mov", CODEC_H264, true},
    {".mkv", "matroska", CODEC_H264, false}, {".avi", "avi", CODEC_MPEG4, false},
    {".gif", "gif", CODEC_GIF, false},
};
/* A stream (stdout, a FIFO, a device) named without an extension: a
 * fragmented MP4, which needs no seek back to its start. */
#define STREAM_CONTAINER (&CONTAINERS[0])
#define RECORD_EXTENSIONS ".mp4, .mov, .mkv, .avi or .gif"

/* The extension of path's last part (from its last dot), or NULL. */
static const char *extension(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot && dot != base && dot[1] ? dot : NULL;
}

/* The container path's extension names; a stream without one gets
 * STREAM_CONTAINER; NULL for any other name. */
static const record_container *container_of(const char *path, bool stream) {
    const char *ext = extension(path);
    if (!ext) return stream ? STREAM_CONTAINER : NULL;
    for (size_t i = 0; i < sizeof CONTAINERS / sizeof CONTAINERS[0]; i++) {
        if (strcasecmp(ext, CONTAINERS[i].ext) == 0) return &CONTAINERS[i];
    }
    return NULL;
}

bool io_record_check(const char *path, const char *flag) {
    if (container_of(path, io_is_stream(path))) return true;
    const char *ext = extension(path);
    if (ext) {
        fprintf(stderr, "nbody: %s %s: nbody does not write %s videos\n", flag, path, ext);
    } else {
        fprintf(stderr, "nbody: %s %s: no extension to say what kind of video\n", flag, path);
    }
    fprintf(stderr, "hint: end the name in " RECORD_EXTENSIONS
                    " (stdout, a FIFO or a device named without one gets a fragmented MP4)\n");
    return false;
}

/* ---- the encoder: an ffmpeg child reading raw frames ------------------------ */

#define ARGS_MAX 48
typedef struct arg_list {
    char *v[ARGS_MAX + 1]; /* NULL-terminated */
    int n;
} arg_list;

static void arg(arg_list *a, const char *s) {
    assert(a->n < ARGS_MAX);
    a->v[a->n++] = (char *)s;
    a->v[a->n] = NULL;
}

/* What ffmpeg said on its stderr (kept in memory): the line to quote (the
 * last one naming a failed write, else its last line), the errno its words
 * name when a write failed (0: none), and
 * whether it failed to finish the file (ffmpeg 5.1 exits with status 0
 * when only writing the trailer or closing the file failed). */
typedef struct ffmpeg_words {
    char last[400];
    int cause;
    bool unfinished;
} ffmpeg_words;

static void read_words(int log, ffmpeg_words *w) {
    *w = (ffmpeg_words){0};
    struct stat st;
    if (log < 0 || fstat(log, &st) != 0) return;
    char text[8192]; /* its end: ffmpeg's last words say why */
    const off_t from =
        st.st_size > (off_t)sizeof text - 1 ? st.st_size - (off_t)sizeof text + 1 : 0;
    const ssize_t n = pread(log, text, sizeof text - 1, from);
    if (n <= 0) return;
    text[n] = 0;
    /* Write errors, as this libc spells them (ffmpeg's strerror is the same). */
    static const int causes[] = {ENOSPC, EDQUOT, EFBIG, EROFS, EACCES, EPERM, EPIPE};
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        line[strcspn(line, "\r")] = 0;
        if (!line[0] || strstr(line, "Last message repeated")) continue;
        if (strncmp(line, "Error writing trailer", 21) == 0 ||
            strncmp(line, "Error closing file", 18) == 0) {
            w->unfinished = true;
        }
        int cause = 0;
        for (size_t i = 0; i < sizeof causes / sizeof causes[0]; i++) {
            if (strstr(line, strerror(causes[i]))) cause = causes[i];
        }
        if (cause || !w->cause) copy_text(w->last, sizeof w->last, line);
        if (cause) w->cause = cause;
    }
    if (w->cause) w->unfinished = true;
}

/* ffmpeg's exit: its status, -1 when a signal ended it (*sig), or -2 when
 * block is false and it is still running. */
int io_encoder_wait(pid_t pid, bool block, int *sig) {
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

/* Makes the output ready for ffmpeg: a stream opened in place (*out, for
 * ffmpeg's stdout), or the temporary created empty (*out -1: ffmpeg writes
 * it by name, -y), so that a folder that cannot take the file is named as
 * the cause, not ffmpeg. false with *err. */
static bool open_output(io_encoder *e, int *out, io_record_error *err) {
    int fd = -1;
    *out = -1;
    if (e->stream) {
        fd = *out = io_open_stream(e->path);
    } else {
        fd = open(e->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST) { /* left by a killed run with our pid */
            unlink(e->tmp);
            fd = open(e->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        }
        if (fd >= 0) close(fd);
    }
    if (fd >= 0) return true;
    const int why = errno;
    return io_record_fail(err, io_file_hint(why), "cannot record %s: %s", e->path,
                          why == EINTR ? "no reader came before Ctrl-C" : strerror(why));
}

/* yuv: frames come as yuv420p (the GPU's conversion), else as RGB0 that
 * ffmpeg converts with the same matrix and range. */
bool io_encoder_open(io_encoder *e, const char *path, int width, int height, int fps, bool yuv,
                     io_record_error *err) {
    const char *env = getenv("NBODY_FFMPEG");
    *e = (io_encoder){.program = env && env[0] ? env : "ffmpeg",
                      .stream = io_is_stream(path),
                      .log = -1,
                      .fd = -1,
                      .width = width,
                      .out_w = width & ~1,
                      .out_h = height & ~1};
    snprintf(e->path, sizeof e->path, "%s", path);
    const record_container *c = container_of(path, e->stream);
    if (!c) {
        return io_record_fail(err, "end the name in " RECORD_EXTENSIONS,
                              "cannot record %s: no kind of video nbody writes is named so", path);
    }
    snprintf(e->tmp, sizeof e->tmp, "%s.tmp-%ld%s", path, (long)getpid(), c->ext);
    if (e->out_w < 2 || e->out_h < 2) {
        return io_record_fail(err, "record a larger picture",
                              "cannot record %s: a %dx%d frame is too small", path, width, height);
    }
    int out = -1;
    if (!open_output(e, &out, err)) return false;
    int fds[2];
    if (pipe(fds) != 0) {
        const int why = errno;
        if (out >= 0) close(out);
        if (!e->stream) unlink(e->tmp);
        return io_record_fail(err, "close some programs",
                              "cannot record %s: no pipe for ffmpeg: %s", path, strerror(why));
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
    /* ffmpeg's stderr in memory, not beside the video: on a full disk or in
     * a read-only folder its words would be lost with the file. */
    e->log = memfd_create("nbody-ffmpeg-log", MFD_CLOEXEC);
    char size[32], rate[16];
    snprintf(size, sizeof size, "%dx%d", e->out_w, e->out_h);
    snprintf(rate, sizeof rate, "%d", fps);
    arg_list a = {0};
    /* clang-format off */
    const char *const input[] = {
        e->program, "-hide_banner", "-loglevel", "error",
        "-f", "rawvideo", "-pix_fmt", yuv ? "yuv420p" : "rgb0", "-video_size", size,
        "-framerate", rate, "-i", "pipe:0", "-an"};
    /* BT.709 limited range, what the GPU's conversion writes, and tagged so
     * that players decode it with that matrix. */
    const char *const tags[] = {
        "-pix_fmt", "yuv420p", "-colorspace", "bt709", "-color_primaries", "bt709",
        "-color_trc", "bt709", "-color_range", "tv"};
    /* clang-format on */
    for (size_t i = 0; i < sizeof input / sizeof input[0]; i++) arg(&a, input[i]);
    if (c->codec == CODEC_GIF) {
        /* To RGB by the matrix the frames were made with, then 256 colours. */
        arg(&a, "-vf");
        arg(&a, yuv ? "scale=in_color_matrix=bt709:in_range=tv:out_range=pc,format=rgb24,"
                      "split[a][b];[a]palettegen=stats_mode=single[p];[b][p]paletteuse=new=1"
                    : "format=rgb24,split[a][b];[a]palettegen=stats_mode=single[p];"
                      "[b][p]paletteuse=new=1");
        arg(&a, "-loop");
        arg(&a, "0");
    } else {
        arg(&a, "-vf");
        arg(&a, yuv ? "null" : "scale=out_color_matrix=bt709:out_range=tv");
        arg(&a, "-c:v");
        arg(&a, c->codec == CODEC_H264 ? "libx264" : "mpeg4");
        arg(&a, c->codec == CODEC_H264 ? "-crf" : "-q:v");
        arg(&a, c->codec == CODEC_H264 ? RECORD_CRF : RECORD_MPEG4_Q);
        for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) arg(&a, tags[i]);
    }
    if (c->mov) {
        arg(&a, "-movflags");
        arg(&a, e->stream ? "frag_keyframe+empty_moov+default_base_moof" : "+faststart");
    }
    arg(&a, "-f");
    arg(&a, c->format);
    arg(&a, "-y");
    arg(&a, e->stream ? "pipe:1" : e->tmp);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
    if (e->stream) {
        posix_spawn_file_actions_adddup2(&fa, out, 1);
    } else {
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    }
    if (e->log >= 0) {
        posix_spawn_file_actions_adddup2(&fa, e->log, 2);
    } else {
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    }
    /* ffmpeg in a process group of its own: Ctrl-C at the terminal goes to
     * the foreground group, and ffmpeg killed by it would leave a video that
     * is never renamed into place; nbody instead finishes the frame, closes
     * ffmpeg's input and waits for it (base_signal.c). SIGPIPE back to its
     * default, which nbody ignores (ignored signals survive exec). */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    const int rc = posix_spawnp(&e->pid, e->program, &fa, &attr, a.v, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[0]);
    if (out >= 0) close(out); /* ffmpeg holds the stream now */
    if (rc != 0) {
        close(fds[1]);
        if (e->log >= 0) close(e->log);
        e->log = -1;
        if (!e->stream) unlink(e->tmp);
        return io_record_fail(err, IO_RECORD_HINT, "cannot record %s: cannot start '%s': %s", path,
                              e->program, strerror(rc));
    }
    e->fd = fds[1];
    return true;
}

/* The hint for a failed ffmpeg: the cause its words name, else by how it
 * ended. */
static const char *ffmpeg_hint(const io_encoder *e, const ffmpeg_words *w, int status, int sig) {
    if (w->cause) return io_file_hint(w->cause);
    if (status == 127) return IO_RECORD_HINT; /* the shell's "command not found" */
    if (sig == SIGPIPE && e->stream) return io_file_hint(EPIPE);
    return IO_RECORD_FFMPEG_HINT;
}

/* After ffmpeg exited with status (or signal sig): renames its file over
 * e->path when keep and it finished the file; otherwise removes it. why
 * (may be NULL) says what stopped the recording early, for the message. */
bool io_encoder_settle(io_encoder *e, int status, int sig, bool keep, const char *why,
                       io_record_error *err) {
    ffmpeg_words w;
    read_words(e->log, &w);
    if (e->log >= 0) close(e->log);
    e->log = -1;
    const bool finished = status == 0 && !w.unfinished;
    if (keep && finished) {
        if (e->stream || rename(e->tmp, e->path) == 0) return true;
        const int rename_err = errno;
        unlink(e->tmp);
        if (rename_err == ENOENT) {
            return io_record_fail(err, IO_RECORD_FFMPEG_HINT,
                                  "cannot record %s: '%s' exited with status 0 but wrote no %s",
                                  e->path, e->program, e->tmp);
        }
        return io_record_fail(err, io_file_hint(rename_err), "cannot record %s: rename: %s",
                              e->path, strerror(rename_err));
    }
    if (!e->stream) unlink(e->tmp);
    if (!keep && !why) return true; /* given up on deliberately */
    char how[64];
    if (status == 0) {
        snprintf(how, sizeof how, "exited with status 0 but could not finish the file");
    } else if (status == 127) {
        snprintf(how, sizeof how, "could not be run (exit status 127)");
    } else if (status >= 0) {
        snprintf(how, sizeof how, "exited with status %d", status);
    } else {
        snprintf(how, sizeof how, "was killed by signal %d", sig);
    }
    return io_record_fail(err, ffmpeg_hint(e, &w, status, sig),
                          "cannot record %s: %s%s'%s' %s%s%s after %ld frames%s%s%s", e->path,
                          w.cause ? strerror(w.cause) : "", w.cause ? ": " : "", e->program,
                          why ? why : "", why ? ", then " : "", how, e->frames,
                          w.last[0] ? " (it said: " : "", w.last, w.last[0] ? ")" : "");
}

/* Ends the input, waits for ffmpeg and settles (io_encoder_settle). */
bool io_encoder_close(io_encoder *e, bool keep, const char *why, io_record_error *err) {
    if (e->fd >= 0) close(e->fd);
    e->fd = -1;
    int sig = 0;
    const int status = io_encoder_wait(e->pid, true, &sig);
    return io_encoder_settle(e, status, sig, keep, why, err);
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
bool io_encoder_write(io_encoder *e, const uint8_t *rgba, io_record_error *err) {
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
    io_encoder_close(e, false, why, err);
    return false;
}

/* ---- the writer thread: mapped frames into the pipe ------------------------ */

static void *writer_main(void *arg) {
    io_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->done == w->handed && !w->quit) pthread_cond_wait(&w->cv, &w->mu);
        if (w->done == w->handed) break; /* told to quit, all done */
        const uint8_t *frame = w->job[w->done % IO_WRITER_DEPTH];
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
 * loop's thread (base_signal.c), and a SIGPIPE from a write into a closed
 * pipe stays pending on this thread while write() returns EPIPE. */
bool io_writer_start(io_writer *w, int fd, size_t len) {
    *w = (io_writer){.fd = fd, .len = len};
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

void io_writer_hand(io_writer *w, const uint8_t *frame) {
    pthread_mutex_lock(&w->mu);
    w->job[w->handed % IO_WRITER_DEPTH] = frame;
    w->handed++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Frames done so far (waiting until at least `least`), and the first
 * write's error, if any. */
long io_writer_done(io_writer *w, long least, int *err) {
    pthread_mutex_lock(&w->mu);
    while (w->done < least) pthread_cond_wait(&w->cv, &w->mu);
    const long done = w->done;
    *err = w->err;
    pthread_mutex_unlock(&w->mu);
    return done;
}

/* Ends the thread once it has done every frame handed over (abandon: skips
 * those it has not started). */
void io_writer_stop(io_writer *w, bool abandon) {
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

/* ---- --frames-dir and --encode ----------------------------------------------- */

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

bool io_check_frames_dir(const char *dir, const char *flag) {
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
    return io_check_writable(probe, flag);
}

int io_encode(const char *dir, const char *video, int record_fps) {
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nbody: --encode %s: not a folder\n", dir);
        fprintf(stderr, "hint: give the folder that --frames-dir wrote\n");
        return 1;
    }
    int count = 0;
    char **names = list_frames(dir, &count);
    if (count == 0) {
        free_names(names, count);
        fprintf(stderr, "nbody: --encode %s: no frame-*.png in it\n", dir);
        fprintf(stderr, "hint: write them with nbody --frames-dir %s\n", dir);
        return 1;
    }
    const int fps = record_fps > 0 ? record_fps : IO_RECORD_DEFAULT_FPS;
    io_encoder enc;
    io_record_error err = {0};
    bool ok = true, opened = false;
    int width = 0, height = 0;
    for (int i = 0; ok && i < count; i++) {
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        int w = 0, h = 0, channels = 0;
        uint8_t *rgba = stbi_load(path, &w, &h, &channels, 4);
        if (!rgba) {
            ok = io_record_fail(&err, "rewrite the sequence with --frames-dir",
                                "--encode: cannot read %s: %s", path, stbi_failure_reason());
        } else if (i == 0) {
            width = w;
            height = h;
            ok = opened = io_encoder_open(&enc, video, w, h, fps, false, &err);
        } else if (w != width || h != height) {
            ok = io_record_fail(&err, "encode frames of one size",
                                "--encode: %s is %dx%d, %s is %dx%d", path, w, h, names[0], width,
                                height);
        }
        if (ok) ok = io_encoder_write(&enc, rgba, &err); /* closes it on failure */
        if (!ok && opened && enc.fd >= 0) io_encoder_close(&enc, false, NULL, NULL);
        opened = opened && ok;
        stbi_image_free(rgba);
    }
    if (opened) ok = io_encoder_close(&enc, true, NULL, &err);
    free_names(names, count);
    if (!ok) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.what, err.hint);
        return 1;
    }
    printf("nbody: wrote %s (%ld frames, %dx%d, %d frames/s)\n", video, enc.frames, enc.out_w,
           enc.out_h, fps);
    return 0;
}
