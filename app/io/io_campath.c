/* io_campath.c - camera path files: read (--camera-path FILE) and written
 * (F4), one format both ways (docs/USAGE.md, "Camera paths"):
 *
 *     nbody-campath 1
 *     # time  anchor   x y z     distance  yaw   pitch  fov
 *     0       world    0 0 0     120       34.4  51.6   45
 *     6       galaxy1  0 0 0     40        80    30     45
 *
 * The first line that is not blank or a comment is the version line; then
 * one keyframe a line: its time in seconds on the path (strictly
 * increasing), what its target is relative to (world: the origin; com: the
 * centre of mass of all bodies; galaxy1, galaxy2: that galaxy's centre of
 * mass), the target (length units of the scene), the distance from it, yaw
 * and pitch (degrees) and the vertical field of view (degrees). Numbers use
 * the flags' one grammar (base.h). A line that does not parse is refused
 * with its number and a hint; nothing is half-read. The maths of flying a
 * path is the core's (app_campath.c); this file only reads and writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io_internal.h"

#define FIELDS 9 /* time anchor x y z distance yaw pitch fov */
#define HINT                                                                                       \
    "the first line is \"nbody-campath 1\", then one keyframe a line: \"TIME ANCHOR X Y Z "        \
    "DISTANCE YAW PITCH FOV\" (seconds; world, com, galaxy1 or galaxy2; length units; degrees), "  \
    "e.g. \"0 world 0 0 0 120 34 52 45\" (docs/USAGE.md, \"Camera paths\")"

static const char *const anchor_names[IO_CAMPATH_ANCHOR_COUNT] = {"world", "com", "galaxy1",
                                                                  "galaxy2"};

const char *io_campath_anchor_name(io_campath_anchor a) {
    return a >= 0 && a < IO_CAMPATH_ANCHOR_COUNT ? anchor_names[a] : "?";
}

int io_campath_fps(int record_fps) {
    return record_fps > 0 ? record_fps : IO_RECORD_DEFAULT_FPS;
}

/* The one failure line and its hint; false. */
static bool bad_line(const char *flag, const char *name, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool bad_line(const char *flag, const char *name, int line, const char *fmt, ...) {
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "nbody: %s %s line %d: %s\nhint: %s\n", flag, name, line, what, HINT);
    return false;
}

/* The next whitespace-separated word of *p, NUL-terminated in place; NULL
 * at the end of the line. */
static char *next_word(char **p) {
    *p += strspn(*p, " \t\r\f\v");
    if (!**p) return NULL;
    char *w = *p;
    *p += strcspn(*p, " \t\r\f\v");
    if (**p) *(*p)++ = 0;
    return w;
}

/* A keyframe's fields: their names for messages and their ranges. */
static const struct {
    const char *name;
    double min, max;
} fields[FIELDS] = {
    {"time", 0, IO_CAMPATH_COORD_MAX},
    {"anchor", 0, 0},
    {"x", -IO_CAMPATH_COORD_MAX, IO_CAMPATH_COORD_MAX},
    {"y", -IO_CAMPATH_COORD_MAX, IO_CAMPATH_COORD_MAX},
    {"z", -IO_CAMPATH_COORD_MAX, IO_CAMPATH_COORD_MAX},
    {"distance", IO_CAMPATH_DISTANCE_MIN, IO_CAMPATH_DISTANCE_MAX},
    {"yaw", -IO_CAMPATH_COORD_MAX, IO_CAMPATH_COORD_MAX},
    {"pitch", -IO_CAMPATH_PITCH_MAX_DEG, IO_CAMPATH_PITCH_MAX_DEG},
    {"fov", IO_CAMPATH_FOV_MIN_DEG, IO_CAMPATH_FOV_MAX_DEG},
};

/* One keyframe line into *k; false with the message printed. */
static bool parse_key(char *p, const char *flag, const char *name, int line, io_campath_key *k) {
    char *w[FIELDS + 1];
    int n = 0;
    while (n <= FIELDS && (w[n] = next_word(&p)) != NULL) n++;
    if (n != FIELDS) {
        return bad_line(flag, name, line, "%d field%s, expected %d (time anchor x y z distance "
                        "yaw pitch fov)",
                        n > FIELDS ? FIELDS + 1 : n, n == 1 ? "" : "s", FIELDS);
    }
    double v[FIELDS] = {0};
    for (int f = 0; f < FIELDS; f++) {
        if (f == 1) continue;
        const base_number r = base_parse_real(w[f], &v[f]);
        if (r != BASE_NUMBER_OK) {
            return bad_line(flag, name, line, "%s '%.40s': %s", fields[f].name, w[f],
                            base_number_problem(r));
        }
        if (!(v[f] >= fields[f].min && v[f] <= fields[f].max)) {
            char lo[32], hi[32];
            base_real_text(fields[f].min, lo, sizeof lo);
            base_real_text(fields[f].max, hi, sizeof hi);
            return bad_line(flag, name, line, "%s '%.40s' is outside %s to %s", fields[f].name,
                            w[f], lo, hi);
        }
    }
    int a = 0;
    while (a < IO_CAMPATH_ANCHOR_COUNT && strcmp(w[1], anchor_names[a]) != 0) a++;
    if (a == IO_CAMPATH_ANCHOR_COUNT) {
        return bad_line(flag, name, line, "anchor '%.40s': not world, com, galaxy1 or galaxy2",
                        w[1]);
    }
    *k = (io_campath_key){.time = v[0],
                          .anchor = (io_campath_anchor)a,
                          .target = {v[2], v[3], v[4]},
                          .distance = v[5],
                          .yaw = v[6],
                          .pitch = v[7],
                          .fov = v[8]};
    return true;
}

bool io_campath_parse(const char *text, const char *flag, const char *name, io_campath *out) {
    out->count = 0;
    bool version = false;
    int line = 0;
    const char *s = text;
    while (*s) {
        line++;
        const size_t len = strcspn(s, "\n");
        char *buf = strndup(s, len);
        if (!buf) return bad_line(flag, name, line, "out of memory");
        s += len + (s[len] == '\n');
        char *hash = strchr(buf, '#');
        if (hash) *hash = 0;
        bool ok = true;
        if (strspn(buf, " \t\r\f\v") == strlen(buf)) {
            /* blank or a comment */
        } else if (!version) {
            char *p = buf, *first = next_word(&p), *number = next_word(&p),
                 *extra = next_word(&p);
            long long v = 0;
            if (strcmp(first, IO_CAMPATH_MAGIC) != 0 || !number || extra) {
                ok = bad_line(flag, name, line, "expected the version line \"%s %d\" first",
                              IO_CAMPATH_MAGIC, IO_CAMPATH_VERSION);
            } else if (base_parse_whole(number, 0, 1000000, &v) != BASE_NUMBER_OK ||
                       v != IO_CAMPATH_VERSION) {
                ok = bad_line(flag, name, line, "version '%.40s': this nbody reads version %d",
                              number, IO_CAMPATH_VERSION);
            }
            version = true;
        } else if (out->count == IO_CAMPATH_KEYS_MAX) {
            ok = bad_line(flag, name, line, "more than %d keyframes", IO_CAMPATH_KEYS_MAX);
        } else {
            io_campath_key k;
            ok = parse_key(buf, flag, name, line, &k);
            if (ok && out->count > 0 && !(k.time > out->keys[out->count - 1].time)) {
                char t[32], prev[32];
                base_real_text(k.time, t, sizeof t);
                base_real_text(out->keys[out->count - 1].time, prev, sizeof prev);
                ok = bad_line(flag, name, line,
                              "time %s is not after the previous keyframe's %s (times increase)",
                              t, prev);
            }
            if (ok) out->keys[out->count++] = k;
        }
        free(buf);
        if (!ok) {
            out->count = 0;
            return false;
        }
    }
    if (out->count == 0) {
        return bad_line(flag, name, line > 0 ? line : 1, "%s",
                        version ? "no keyframes" : "empty: no version line and no keyframes");
    }
    return true;
}

bool io_campath_load(const char *path, const char *flag, io_campath *out) {
    /* O_NONBLOCK: a FIFO is refused below, not waited on. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "nbody: cannot read %s %s: %s\nhint: check the path\n", flag, path,
                strerror(errno));
        return false;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "nbody: %s %s is not a regular file\nhint: give a camera path file "
                        "(F4 saves one; assets/paths/ has an example)\n",
                flag, path);
        close(fd);
        return false;
    }
    /* A path of IO_CAMPATH_KEYS_MAX lines with long comments is far below this. */
    const off_t most = 16 << 20;
    if (st.st_size > most) {
        fprintf(stderr, "nbody: %s %s is %lld bytes, more than a camera path holds\nhint: give "
                        "a camera path file (F4 saves one)\n",
                flag, path, (long long)st.st_size);
        close(fd);
        return false;
    }
    char *text = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (text && got < (size_t)st.st_size) {
        const ssize_t r = read(fd, text + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    const int err = errno;
    close(fd);
    if (!text || got != (size_t)st.st_size) {
        fprintf(stderr, "nbody: cannot read %s %s: %s\nhint: check the file\n", flag, path,
                text ? strerror(err) : "out of memory");
        free(text);
        return false;
    }
    text[got] = 0;
    if (strlen(text) != got) {
        free(text);
        fprintf(stderr, "nbody: %s %s holds a NUL byte: not a text file\nhint: give a camera "
                        "path file (F4 saves one)\n",
                flag, path);
        return false;
    }
    const bool ok = io_campath_parse(text, flag, path, out);
    free(text);
    return ok;
}

/* Appends to out (len bytes) at *used, counting what did not fit. */
static void add(char *out, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *out, size_t len, size_t *used, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(*used < len ? out + *used : NULL, *used < len ? len - *used : 0, fmt,
                            ap);
    va_end(ap);
    if (n > 0) *used += (size_t)n;
}

size_t io_campath_format(const io_campath *p, char *out, size_t len) {
    size_t used = 0;
    if (len > 0) out[0] = 0;
    add(out, len, &used,
        "%s %d\n"
        "# nbody camera path (docs/USAGE.md, \"Camera paths\"): one keyframe a line.\n"
        "# time: seconds on the path; anchor: what x y z are relative to (world: the origin,\n"
        "# com: the centre of mass, galaxy1 / galaxy2: that galaxy's centre of mass);\n"
        "# x y z distance: length units of the scene; yaw pitch fov: degrees.\n"
        "# time anchor x y z distance yaw pitch fov\n",
        IO_CAMPATH_MAGIC, IO_CAMPATH_VERSION);
    for (int i = 0; i < p->count; i++) {
        const io_campath_key *k = &p->keys[i];
        const double v[] = {k->target[0], k->target[1], k->target[2], k->distance,
                            k->yaw,       k->pitch,     k->fov};
        char t[32];
        base_real_text(k->time, t, sizeof t);
        add(out, len, &used, "%s %s", t, io_campath_anchor_name(k->anchor));
        for (size_t f = 0; f < sizeof v / sizeof v[0]; f++) {
            char x[32];
            base_real_text(v[f], x, sizeof x);
            add(out, len, &used, " %s", x);
        }
        add(out, len, &used, "\n");
    }
    return used;
}

bool io_campath_save(const char *path, const io_campath *p) {
    const size_t need = io_campath_format(p, NULL, 0) + 1;
    char *text = malloc(need);
    if (!text) {
        fprintf(stderr, "nbody: cannot write camera path %s: out of memory\nhint: free some "
                        "memory\n",
                path);
        errno = ENOMEM;
        return false;
    }
    io_campath_format(p, text, need);
    const bool ok = io_write_text(path, "camera path", text);
    const int err = errno;
    free(text);
    errno = err;
    return ok;
}
