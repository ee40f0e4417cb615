/* io_file.c - the files the app writes: PNG (screenshots, F12), CSV
 * (--dump: positions, velocities, masses and the running method's
 * accelerations) and text (--status-json, the benchmark's --json), and
 * whatever later outputs write through io_write_bytes or io_file.
 *
 * One write path: every file goes through io_file (open, buffered
 * checked writes, flush, close); the whole-buffer functions are built on
 * it. Every write(2), fsync and close is checked, so a full disk is a
 * failure, not a truncated file reported as written. On a failure the file
 * is removed (never a half-written file under the user's name), one line
 * naming the file and the OS error is printed with a hint, errno is left
 * saying why, and the call returns false.
 *
 * Where the path points decides how it is written:
 *   - a regular file or a new name: to "<target>.tmp-<pid>" beside the
 *     final target, fsync'ed and renamed over it when complete (atomic);
 *   - a symbolic link: followed to its target, which is written as above;
 *     the link stays a link;
 *   - a character or block device or a FIFO: opened and written in place
 *     (no temporary, nothing renamed or replaced: `--dump /dev/null` as
 *     root leaves /dev/null alone, a FIFO stays a FIFO). A FIFO with no
 *     reader is not waited on silently: "waiting for a reader on FILE"
 *     goes to stderr first, and a Ctrl-C gives up on it;
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: written
 *     straight to that file descriptor, wherever the shell pointed it.
 * io_claim_stdout moves nbody's own text lines to stderr when an
 * output goes to stdout, so a pipe carries exactly the file.
 *
 * A stream (not atomic: the status lines) is written under its own name as
 * it goes; a write that fails leaves it as far as the last flush went (a
 * regular file is cut back to that point, so it ends with a whole line, and
 * removed when that is nothing) and prints nothing: the caller names the
 * part that failed.
 *
 * Paths are checked for writability at start-up so a typo fails before
 * minutes of simulation; the check never opens a device or a FIFO (a FIFO
 * without a reader would block) and creates nothing next to them.
 */
#define _XOPEN_SOURCE 700 /* realpath, with the POSIX 2008 the build asks for */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <stb/stb_image_write.h>

#include "io_internal.h"

#define FILE_BUFFER 65536      /* bytes collected before a write(2) */
#define LINKS_MAX 40           /* symbolic links followed, as the kernel's ELOOP limit */
#define FIFO_POLL_NS 50000000L /* between tries to open a FIFO that has no reader yet */

struct io_file {
    int fd;
    bool atomic_rename; /* tmp is renamed over target at close */
    bool stream;        /* not atomic: kept as far as it got; failures not printed */
    bool regular;       /* a regular file (a stream is cut back to `kept` on failure) */
    bool failed;        /* a write failed (message printed unless a stream) */
    off_t kept;         /* bytes written whole by the last successful flush */
    const char *what;   /* the flag or the kind of file, for messages */
    char *path;         /* the user's name, for messages */
    char *target;       /* the name written (the symlink's target) */
    char *tmp;          /* the temporary name, or NULL */
    size_t used;        /* bytes in buf */
    unsigned char buf[FILE_BUFFER];
};

const char *io_file_hint(int err) {
    switch (err) {
    case ENOSPC:
    case EDQUOT:
        return "free some space on that disk (or raise the quota), or write elsewhere";
    case EPIPE:
        return "the program reading the pipe went away before the file was complete";
    case EISDIR:
        return "give a file name, not a folder";
    case EACCES:
    case EPERM:
    case EROFS:
        return "write to a folder you may write to";
    case EINTR:
        return "start the reader first (for example: cat FILE > copy), then run nbody";
    case ENAMETOOLONG:
        return "shorten the file's name or the path to it";
    case EFBIG:
        return "the file grew past this shell's file size limit (ulimit -f): raise it";
    default:
        return "check that the folder exists, is writable and has space";
    }
}

/* Prints the one failure line and its hint; leaves errno = err; false. */
static bool fail(const char *what, const char *path, int err) {
    /* EINTR comes only from a Ctrl-C while waiting for a FIFO's reader. */
    fprintf(stderr, "nbody: cannot write %s %s: %s\n", what, path,
            err == EINTR ? "no reader came before Ctrl-C" : strerror(err));
    fprintf(stderr, "hint: %s\n", io_file_hint(err));
    errno = err;
    return false;
}

/* The file descriptor a name stands for ("-", /dev/stdout, /dev/fd/N, ...),
 * or -1: those are written to the descriptor itself, so the bytes go where
 * the shell sent them (a pipe, a socket, a terminal, a file opened with >>). */
static int named_fd(const char *path) {
    if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    const char *digits = NULL;
    if (strncmp(path, "/dev/fd/", 8) == 0) digits = path + 8;
    if (strncmp(path, "/proc/self/fd/", 14) == 0) digits = path + 14;
    if (!digits || !*digits) return -1;
    long fd = 0;
    for (const char *c = digits; *c; c++) {
        if (*c < '0' || *c > '9' || fd > 1000000) return -1;
        fd = fd * 10 + (*c - '0');
    }
    return (int)fd;
}

/* Follows symbolic links from path to the name that is finally written (a
 * dangling link gives its missing target, which is then created). Returns
 * a malloc'ed name, or NULL with errno set. */
static char *resolve(const char *path) {
    char *cur = strdup(path);
    for (int i = 0; cur && i < LINKS_MAX; i++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        char link[PATH_MAX];
        const ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        link[n] = 0;
        /* A relative link is relative to the folder holding the link. */
        const char *slash = strrchr(cur, '/');
        const size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dir + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dir);
            memcpy(next + dir, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    if (cur) {
        free(cur);
        errno = ELOOP;
    } else {
        errno = ENOMEM;
    }
    return NULL;
}

/* The temporary name beside target (malloc'ed), or NULL. */
static char *temp_name(const char *target) {
    const size_t len = strlen(target) + 32;
    char *tmp = malloc(len);
    if (tmp) snprintf(tmp, len, "%s.tmp-%ld", target, (long)getpid());
    return tmp;
}

/* Is fd open for writing? */
static bool fd_writable(int fd) {
    const int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && ((flags & O_ACCMODE) == O_WRONLY || (flags & O_ACCMODE) == O_RDWR);
}

bool io_is_stream(const char *path) {
    if (named_fd(path) >= 0) return true;
    char *target = resolve(path);
    struct stat st;
    const bool stream =
        target && stat(target, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
    free(target);
    return stream;
}

bool io_check_writable(const char *path, const char *flag) {
    if (path[0] == 0) return fail(flag, "''", ENOENT);
    const int fd = named_fd(path);
    if (fd >= 0) return fd_writable(fd) ? true : fail(flag, path, EBADF);
    char *target = resolve(path);
    if (!target) return fail(flag, path, errno);
    struct stat st;
    bool ok = true;
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        ok = fail(flag, path, EISDIR);
    } else if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or FIFO is written in place: opening a FIFO would block
         * until a reader comes, so only the permission is checked. */
        if (access(target, W_OK) != 0) ok = fail(flag, path, errno);
    } else {
        /* A regular file is replaced by renaming a temporary over it: the
         * folder must let us create one. */
        char *tmp = temp_name(target);
        const int t = tmp ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;
        if (t < 0) {
            ok = fail(flag, path, tmp ? errno : ENOMEM);
        } else {
            close(t);
            unlink(tmp);
        }
        free(tmp);
    }
    free(target);
    return ok;
}

bool io_canonical(const char *path, char *out, size_t len) {
    char *target = resolve(path);
    const char *name = target ? target : path;
    const char *slash = strrchr(name, '/');
    char dir[PATH_MAX], real[PATH_MAX];
    const int dir_len = !slash || slash == name ? 1 : (int)(slash - name); /* "/" or "." */
    snprintf(dir, sizeof dir, "%.*s", dir_len, slash ? name : ".");
    int n;
    if (!realpath(dir, real)) {
        n = snprintf(out, len, "%s", name);
    } else {
        n = snprintf(out, len, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/",
                     slash ? slash + 1 : name);
    }
    free(target);
    return n >= 0 && (size_t)n < len;
}

/* The identity of what path names (the descriptor's file for "-" and the
 * like); false when it does not exist yet. */
static bool identity(const char *path, struct stat *st) {
    const int fd = named_fd(path);
    if (fd >= 0) return fstat(fd, st) == 0;
    char *target = resolve(path);
    const bool ok = target && stat(target, st) == 0;
    free(target);
    return ok;
}

io_same io_same_output(const char *a, const char *b) {
    const int fa = named_fd(a), fb = named_fd(b);
    if (fa >= 0 && fa == fb) return IO_SAME_FD;
    struct stat sa, sb;
    const bool has_a = identity(a, &sa), has_b = identity(b, &sb);
    if ((has_a && (S_ISCHR(sa.st_mode) || S_ISBLK(sa.st_mode))) ||
        (has_b && (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode)))) {
        return IO_SAME_NONE; /* a device (/dev/null, a terminal) takes what it is given */
    }
    if (has_a && has_b && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) return IO_SAME_FILE;
    char ca[PATH_MAX + 256], cb[PATH_MAX + 256];
    if (fa < 0 && fb < 0 && io_canonical(a, ca, sizeof ca) && io_canonical(b, cb, sizeof cb) &&
        strcmp(ca, cb) == 0) {
        return IO_SAME_FILE;
    }
    return IO_SAME_NONE;
}

bool io_claim_stdout(const char **paths[], int count, char *name, size_t len) {
    bool any = false;
    for (int i = 0; i < count; i++) any = any || (*paths[i] && named_fd(*paths[i]) == 1);
    if (!any) return true;
    fflush(stdout);
    const int data = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (data < 0 || dup2(2, 1) < 0) {
        fprintf(stderr, "nbody: cannot keep stdout for the output: %s\n", strerror(errno));
        fprintf(stderr, "hint: write the output to a file instead of '-'\n");
        if (data >= 0) close(data);
        return false;
    }
    snprintf(name, len, "/dev/fd/%d", data);
    for (int i = 0; i < count; i++) {
        if (*paths[i] && named_fd(*paths[i]) == 1) *paths[i] = name;
    }
    return true;
}

/* Opens the FIFO target for writing. One with no reader yet would block
 * open() with no word: say so on stderr, then try again every
 * FIFO_POLL_NS until a reader comes, or until a Ctrl-C (SIGINT or SIGTERM)
 * arrives during the wait, which gives up on it (-1, errno EINTR). After a
 * first signal its default action is back (base_signal.c), so the next one
 * ends the process. The descriptor returned blocks as usual. */
static int open_fifo(const char *target, const char *shown) {
    int fd = open(target, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENXIO) { /* no reader */
        const int before = base_signal_caught();
        fprintf(stderr, "nbody: waiting for a reader on %s (Ctrl-C %squits)\n", shown,
                before ? "again " : "");
        const struct timespec pause = {.tv_nsec = FIFO_POLL_NS};
        while ((fd = open(target, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 && errno == ENXIO) {
            if (base_signal_caught() != before) {
                errno = EINTR;
                return -1;
            }
            nanosleep(&pause, NULL);
        }
    }
    const int flags = fd >= 0 ? fcntl(fd, F_GETFL) : 0;
    if (fd >= 0 && (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)) {
        const int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int io_open_stream(const char *path) {
    const int named = named_fd(path);
    if (named >= 0) return fcntl(named, F_DUPFD_CLOEXEC, 3);
    char *target = resolve(path);
    if (!target) return -1;
    struct stat st;
    int fd = -1;
    if (stat(target, &st) == 0 && S_ISFIFO(st.st_mode)) {
        fd = open_fifo(target, path);
    } else {
        fd = open(target, O_WRONLY | O_CLOEXEC);
    }
    const int err = errno;
    free(target);
    errno = err;
    return fd;
}

/* Frees f's names and f itself. */
static void file_free(io_file *f) {
    free(f->path);
    free(f->target);
    free(f->tmp);
    free(f);
}

io_file *io_file_open(const char *path, const char *what, bool atomic) {
    io_file *f = calloc(1, sizeof *f);
    if (!f) {
        fail(what, path, ENOMEM);
        return NULL;
    }
    f->fd = -1;
    f->what = what;
    f->stream = !atomic;
    f->path = strdup(path);
    const int named = named_fd(path);
    if (named >= 0) { /* the descriptor itself; closing the copy leaves it open */
        f->fd = fcntl(named, F_DUPFD_CLOEXEC, 3);
        if (f->fd < 0 || !f->path) {
            fail(what, path, f->path ? errno : ENOMEM);
            if (f->fd >= 0) close(f->fd);
            file_free(f);
            return NULL;
        }
        return f;
    }
    f->target = f->path ? resolve(path) : NULL;
    if (!f->target) {
        fail(what, path, f->path ? errno : ENOMEM);
        file_free(f);
        return NULL;
    }
    struct stat st;
    const bool exists = stat(f->target, &st) == 0;
    int err = 0;
    if (exists && S_ISDIR(st.st_mode)) {
        err = EISDIR;
    } else if (exists && S_ISFIFO(st.st_mode)) {
        f->fd = open_fifo(f->target, path); /* in place: a FIFO stays a FIFO */
    } else if (exists && !S_ISREG(st.st_mode)) {
        f->fd = open(f->target, O_WRONLY | O_CLOEXEC); /* a device: in place, never replaced */
    } else if (atomic) {
        f->tmp = temp_name(f->target);
        if (f->tmp) {
            f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (f->fd < 0 && errno == EEXIST) { /* left by a killed run with our pid */
                unlink(f->tmp);
                f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            }
            /* The replacement keeps the replaced file's permissions. */
            if (f->fd >= 0 && exists) fchmod(f->fd, st.st_mode & 07777);
        } else {
            err = ENOMEM;
        }
        f->atomic_rename = true;
    } else {
        f->fd = open(f->target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        f->regular = true; /* a stream: kept as far as it got, even on a failure */
    }
    if (f->fd < 0) {
        fail(what, path, err ? err : errno);
        file_free(f);
        return NULL;
    }
    return f;
}

/* Writes all of data to fd, through partial writes and interruptions. */
static bool write_all(int fd, const unsigned char *data, size_t len) {
    while (len > 0) {
        const ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

/* Records the first failure and prints it (a stream's caller does that);
 * a regular stream file is cut back to what its last flush wrote whole,
 * so it ends where a complete write ended. Later calls stay quiet. */
static bool file_failed(io_file *f, int err) {
    if (!f->failed && !f->stream) fail(f->what, f->path, err);
    if (!f->failed && f->stream && f->regular && ftruncate(f->fd, f->kept) != 0) {
        /* cannot cut it back: the part of the failed write stays at the end */
    }
    f->failed = true;
    errno = err;
    return false;
}

/* Writes len bytes of data through to the file; false with errno. */
static bool write_through(io_file *f, const unsigned char *data, size_t len) {
    if (!write_all(f->fd, data, len)) return false;
    f->kept += (off_t)len;
    return true;
}

bool io_file_flush(io_file *f) {
    if (f->failed) return false;
    const bool ok = write_through(f, f->buf, f->used);
    f->used = 0;
    return ok ? true : file_failed(f, errno);
}

bool io_file_write(io_file *f, const void *data, size_t len) {
    if (f->failed) return false;
    const unsigned char *p = data;
    if (f->used + len > sizeof f->buf) {
        if (!io_file_flush(f)) return false;
        if (len > sizeof f->buf) return write_through(f, p, len) ? true : file_failed(f, errno);
    }
    memcpy(f->buf + f->used, p, len);
    f->used += len;
    return true;
}

bool io_file_close(io_file *f, bool ok) {
    if (!f) return false;
    if (ok && !f->failed) io_file_flush(f);
    /* Data on the disk before the rename, so a crash leaves the old file or
     * the new one; fsync also reports write-back errors (NFS, quotas). A
     * device or pipe need not support it. */
    if (ok && !f->failed && f->atomic_rename && fsync(f->fd) != 0) file_failed(f, errno);
    if (close(f->fd) != 0 && ok && !f->failed) file_failed(f, errno);
    if (ok && !f->failed && f->atomic_rename && rename(f->tmp, f->target) != 0) {
        file_failed(f, errno);
    }
    const bool done = ok && !f->failed;
    if (!done && (f->atomic_rename || (f->regular && f->kept == 0))) {
        const int err = errno; /* a stream keeps what it wrote, if anything */
        unlink(f->atomic_rename ? f->tmp : f->target);
        errno = err;
    }
    file_free(f);
    return done;
}

bool io_write_bytes(const char *path, const char *what, const void *data, size_t len) {
    io_file *f = io_file_open(path, what, true);
    if (!f) return false;
    return io_file_close(f, io_file_write(f, data, len));
}

/* stb hands the encoded PNG over in one piece. */
static void png_chunk(void *context, void *data, int size) {
    io_file_write(context, data, (size_t)size);
}

bool io_write_png(const char *path, const char *what, int width, int height,
                  const uint8_t *rgba) {
    io_file *f = io_file_open(path, what, true);
    if (!f) return false;
    /* stb encodes to memory and calls png_chunk; 0 means it had no memory. */
    if (!stbi_write_png_to_func(png_chunk, f, width, height, 4, rgba, width * 4)) {
        io_file_close(f, false);
        return fail("screenshot", path, ENOMEM);
    }
    return io_file_close(f, true);
}

bool io_write_csv(const char *path, const sim_body *b, int n) {
    io_file *f = io_file_open(path, "dump", true);
    if (!f) return false;
    static const char header[] = "x,y,z,vx,vy,vz,m,ax,ay,az\n";
    bool ok = io_file_write(f, header, sizeof header - 1);
    /* %.9g round-trips a float exactly; the CPU backend's doubles are printed
     * at the same precision the GPU holds. The accelerations are the running
     * force method's at the dumped positions. */
    for (int i = 0; ok && i < n; i++) {
        char line[256];
        const int len =
            snprintf(line, sizeof line, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n",
                     b[i].pos[0], b[i].pos[1], b[i].pos[2], b[i].vel[0], b[i].vel[1], b[i].vel[2],
                     b[i].mass, b[i].acc[0], b[i].acc[1], b[i].acc[2]);
        ok = len > 0 && (size_t)len < sizeof line && io_file_write(f, line, (size_t)len);
    }
    return io_file_close(f, ok);
}

bool io_write_text(const char *path, const char *what, const char *text) {
    return io_write_bytes(path, what, text, strlen(text));
}

/* ---- names and pictures ---------------------------------------------------- */

void io_absolute(const char *path, char *out, size_t len) {
    char cwd[PATH_MAX];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd) ||
        snprintf(out, len, "%s/%s", cwd, path) >= (int)len) {
        snprintf(out, len, "%s", path);
    }
}

const char *io_shown_name(const config *c, const char *path) {
    return c->stdout_name && path && strcmp(path, c->stdout_name) == 0 ? "stdout" : path;
}

void io_stamped_name(char *out, size_t len, const char *suffix, int frame) {
    char stamp[32];
    const time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (frame >= 0) {
        snprintf(out, len, "nbody-%s-f%06d%s", stamp, frame, suffix);
    } else {
        snprintf(out, len, "nbody-%s%s", stamp, suffix);
    }
}

bool io_screenshot(render *r, const char *path, int w, int h) {
    if (w <= 0 || h <= 0) { /* a minimized window, or a display lost before a size was read */
        fprintf(stderr,
                "nbody: %s not written: the picture has no pixels (%dx%d)\n"
                "hint: keep the window open and on screen until the run ends, or use --headless\n",
                path, w, h);
        return false;
    }
    uint8_t *rgba = malloc((size_t)w * (size_t)h * 4);
    if (!rgba) {
        fprintf(stderr, "nbody: out of memory for a %dx%d screenshot\n", w, h);
        errno = ENOMEM;
        return false;
    }
    render_read_pixels(r, w, h, rgba);
    for (size_t i = 3; i < (size_t)w * h * 4; i += 4) rgba[i] = 255;
    const bool ok = io_write_png(path, "screenshot", w, h, rgba);
    free(rgba);
    return ok;
}
