/* io_status.c - --status-json FILE: the file the status lines go to.
 *
 * The app formats each line (app_status.c); this file keeps them: without
 * --status-every the one line is written at exit, atomically; with it the
 * file is opened at the first line and written under its own name as the
 * run goes, each line flushed as it is made, so `tail -f` follows a long
 * run and a killed one keeps its lines. A line that cannot be written (a
 * full disk, a reader gone) stops the status with one message naming that
 * line and the reason; the lines written before it stay in the file, which
 * ends with the last whole one, and io_status.failed makes the run exit 1.
 * A line is formatted into a growing buffer (no line length limit).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

void io_status_init(io_status *s, const char *path, bool stream) {
    *s = (io_status){.path = path, .stream = stream};
}

void io_status_printf(io_status *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + (size_t)n + 1) cap *= 2;
        char *grown = realloc(s->buf, cap);
        if (!grown) {
            fprintf(stderr, "nbody: out of memory for the status lines; one is lost\n");
            return;
        }
        s->buf = grown;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

/* A stream's write failed (errno says why) at line `line` (0: at close):
 * one message, the file kept with the lines before it. */
static void stream_failed(io_status *s, long line) {
    const int err = errno;
    if (line > 2) {
        fprintf(stderr,
                "nbody: cannot write --status-json %s: line %ld: %s; it keeps lines 1-%ld\n",
                s->path, line, strerror(err), line - 1);
    } else if (line > 0) {
        fprintf(stderr, "nbody: cannot write --status-json %s: line %ld: %s; %s\n", s->path, line,
                strerror(err), line == 2 ? "it keeps line 1" : "no line was written");
    } else {
        fprintf(stderr, "nbody: cannot write --status-json %s: %s\n", s->path, strerror(err));
    }
    fprintf(stderr, "hint: %s\n", io_file_hint(err));
    s->failed = true; /* no more lines */
}

void io_status_end_line(io_status *s) {
    if (!s->stream) return; /* kept for the end */
    if (s->failed) {
        s->len = 0;
        return;
    }
    if (!s->file && !(s->file = io_file_open(s->path, "--status-json", false))) {
        s->failed = true; /* the message is printed */
        s->len = 0;
        return;
    }
    const bool ok = io_file_write(s->file, s->buf, s->len) && io_file_flush(s->file);
    s->len = 0;
    s->lines++;
    if (ok) return;
    stream_failed(s, s->lines);
    io_file_close(s->file, false);
    s->file = NULL;
}

bool io_status_finish(io_status *s) {
    if (s->stream) { /* every line, the last one too, is in the file */
        if (s->failed) return false;
        /* No line was made: the file is made empty, as without --status-every. */
        if (!s->file && !(s->file = io_file_open(s->path, "--status-json", false))) return false;
        const bool ok = io_file_close(s->file, true);
        s->file = NULL;
        if (!ok) stream_failed(s, 0);
        return ok;
    }
    return io_write_text(s->path, "--status-json", s->buf ? s->buf : "");
}

void io_status_destroy(io_status *s) {
    if (s->file) io_file_close(s->file, true); /* ended early */
    free(s->buf);
    *s = (io_status){0};
}
