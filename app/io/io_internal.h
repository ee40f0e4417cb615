/* io_internal.h - what the files of io/ share and nobody outside sees: the
 * ffmpeg encoder and the thread that feeds it (io_encoder.c), used by the
 * recordings (io_record.c) and by --encode. */
#ifndef NBODY_IO_INTERNAL_H
#define NBODY_IO_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io.h"

/* Frames in flight to the writer: GL's read-back ring and CUDA's share it. */
#define IO_WRITER_DEPTH RENDER_READBACK_DEPTH
_Static_assert(VIDEO_DEPTH == RENDER_READBACK_DEPTH, "CUDA's frames and GL's share the writer");
/* ffmpeg could not be started. */
#define IO_RECORD_HINT                                                                             \
    "install ffmpeg (apt-get install ffmpeg) or set NBODY_FFMPEG to one; or write PNGs with "      \
    "--frames-dir DIR and encode them with nbody --encode DIR --record FILE.mp4 where ffmpeg is"
/* ffmpeg ran and failed, its words naming no disk or folder. */
#define IO_RECORD_FFMPEG_HINT                                                                      \
    "ffmpeg's own words (quoted) say why; check that this ffmpeg has the encoder (ffmpeg "         \
    "-encoders: libx264, mpeg4, gif), or write PNGs with --frames-dir DIR and encode them "        \
    "with nbody --encode DIR --record FILE.mp4 where ffmpeg works"

/* Why a recording failed: what, and what to do. */
typedef struct io_record_error {
    char what[768];
    char hint[320];
} io_record_error;

/* Fills *e; returns false (for `return io_record_fail(...)`). */
bool io_record_fail(io_record_error *e, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An ffmpeg child reading raw frames on its stdin and writing the video
 * path's extension names to a temporary file renamed over path when it
 * finished the file (a stream, path written in place, gets it directly). */
typedef struct io_encoder {
    const char *program; /* $NBODY_FFMPEG or "ffmpeg" */
    char path[PATH_MAX], tmp[PATH_MAX + 32];
    bool stream; /* stdout, a FIFO or a device: ffmpeg writes it, no temporary */
    int log;     /* ffmpeg's stderr, kept in memory to quote; -1 when none */
    pid_t pid;
    int fd;            /* the pipe to ffmpeg's stdin; -1 once closed */
    int width;         /* the frames' row length (io_encoder_write) */
    int out_w, out_h;  /* the video: rounded down to even */
    long frames;       /* written so far */
} io_encoder;

/* yuv: frames come as yuv420p (the GPU's conversion), else as RGB0 that
 * ffmpeg converts with the same matrix and range. false with *err. */
bool io_encoder_open(io_encoder *e, const char *path, int width, int height, int fps, bool yuv,
                     io_record_error *err);
/* One frame, width x height RGBA8 top row first (the odd last column or
 * row is left out). false: the encoder is closed and *err says why. */
bool io_encoder_write(io_encoder *e, const uint8_t *rgba, io_record_error *err);
/* Ends the input, waits for ffmpeg and settles (io_encoder_settle). */
bool io_encoder_close(io_encoder *e, bool keep, const char *why, io_record_error *err);
/* After ffmpeg exited with status (or signal sig): renames its file over
 * e->path when keep and ffmpeg finished the file (status 0, and no
 * unfinished file in its words), else removes it. why (may be
 * NULL) says what stopped the recording early, for the message. */
bool io_encoder_settle(io_encoder *e, int status, int sig, bool keep, const char *why,
                       io_record_error *err);
/* ffmpeg's exit: its status, -1 when a signal ended it (*sig), or -2 when
 * block is false and it is still running. */
int io_encoder_wait(pid_t pid, bool block, int *sig);

/* The thread that writes mapped frames into ffmpeg's pipe, in order
 * (pointers into read-back buffers, valid until the loop releases them,
 * which it does only once the thread is done with them). */
typedef struct io_writer {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started;
    int fd;
    size_t len; /* bytes a frame */
    const uint8_t *job[IO_WRITER_DEPTH];
    long handed, done; /* frames handed over; frames the thread is done with */
    bool quit;         /* no more will come: end once done == handed */
    bool abandon;      /* skip the ones left */
    int err;           /* errno of the first failed write; the frames after it are skipped */
} io_writer;

/* Starts the thread with every signal blocked; false with errno. */
bool io_writer_start(io_writer *w, int fd, size_t len);
void io_writer_hand(io_writer *w, const uint8_t *frame);
/* Frames done so far (waiting until at least `least`), and the first
 * write's error, if any. */
long io_writer_done(io_writer *w, long least, int *err);
/* Ends the thread once it has done every frame handed over (abandon: skips
 * those it has not started). */
void io_writer_stop(io_writer *w, bool abandon);

/* path, made absolute against the current folder (for messages). */
void io_absolute(const char *path, char *out, size_t len);

/* ---- io_file.c, for the encoder and the status lines --------------------- */

/* The hint for a failed write that set errno to err. */
const char *io_file_hint(int err);
/* Whether path is written in place as a stream: stdout ("-", /dev/fd/N),
 * a FIFO or a device. */
bool io_is_stream(const char *path);
/* path (io_is_stream) opened for writing, the way io_file_open opens it
 * (a FIFO with no reader says it waits); -1 with errno, nothing printed. */
int io_open_stream(const char *path);
/* Whether two outputs would write one file: IO_SAME_FD when both name one
 * descriptor ("-" and /dev/stdout), IO_SAME_FILE when both reach one file
 * (./a.png and a.png, a path through a symlinked folder or a link to the
 * file, the file behind a descriptor), else IO_SAME_NONE. Devices such as
 * /dev/null may take several outputs. */
typedef enum io_same { IO_SAME_NONE, IO_SAME_FD, IO_SAME_FILE } io_same;
io_same io_same_output(const char *a, const char *b);
/* path with its folder made canonical (realpath; the file need not exist,
 * links to it followed), for comparing names; path itself when the folder
 * cannot be resolved. false when out is too small. */
bool io_canonical(const char *path, char *out, size_t len);

#endif /* NBODY_IO_INTERNAL_H */
