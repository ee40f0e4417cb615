/* snap.c - the snapshot module's front door: format names, content sniffing,
 * reading a file (refusing directories, FIFOs and devices before opening them
 * for reading; the tipsy sidecar; snapshots split into numbered files), the
 * bounds-checked cursor and output buffer that the tipsy, sidecar and GADGET
 * code reads and writes through, the body checks, and the HDF5 stand-ins of a
 * build without libhdf5.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snap_internal.h"

static const char *const format_names[] = {"unknown", "tipsy", "gadget2", "hdf5"};
_Static_assert(sizeof format_names / sizeof format_names[0] == SNAP_FORMAT_COUNT,
               "one name per snap_format");

/* How much of a file snap_detect_file looks at: the HDF5 signature may sit at
 * 0, 512, 1024 or 2048 (after a user block); the GADGET and tipsy headers are
 * in the first 300 bytes. */
#define DETECT_BYTES 4096

static const uint8_t hdf5_signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

const char *snap_format_name(snap_format f) {
    return (f >= 0 && f < SNAP_FORMAT_COUNT) ? format_names[f] : "unknown";
}

/* --- cursor ---------------------------------------------------------------- */

uint32_t snap_load_u32(const uint8_t *p, bool big) {
    if (big) return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

uint64_t snap_load_u64(const uint8_t *p, bool big) {
    uint64_t hi = snap_load_u32(p + (big ? 0 : 4), big);
    uint64_t lo = snap_load_u32(p + (big ? 4 : 0), big);
    return hi << 32 | lo;
}

bool snap_cur_skip(snap_cursor *c, size_t n) {
    if (n > c->len - c->pos) return false;
    c->pos += n;
    return true;
}

bool snap_cur_bytes(snap_cursor *c, void *dst, size_t n) {
    if (n > c->len - c->pos) return false;
    memcpy(dst, c->data + c->pos, n);
    c->pos += n;
    return true;
}

bool snap_cur_u32(snap_cursor *c, uint32_t *v) {
    if (4 > c->len - c->pos) return false;
    *v = snap_load_u32(c->data + c->pos, c->big);
    c->pos += 4;
    return true;
}

bool snap_cur_i32(snap_cursor *c, int32_t *v) {
    uint32_t u;
    if (!snap_cur_u32(c, &u)) return false;
    memcpy(v, &u, sizeof u); /* two's complement reinterpretation, no UB */
    return true;
}

bool snap_cur_u64(snap_cursor *c, uint64_t *v) {
    if (8 > c->len - c->pos) return false;
    *v = snap_load_u64(c->data + c->pos, c->big);
    c->pos += 8;
    return true;
}

bool snap_cur_f32(snap_cursor *c, float *v) {
    uint32_t u;
    if (!snap_cur_u32(c, &u)) return false;
    memcpy(v, &u, sizeof u);
    return true;
}

bool snap_cur_f64(snap_cursor *c, double *v) {
    uint64_t u;
    if (!snap_cur_u64(c, &u)) return false;
    memcpy(v, &u, sizeof u);
    return true;
}

/* --- output buffer ---------------------------------------------------------- */

bool snap_out_reserve(snap_out *o, size_t total) {
    if (o->failed) return false;
    if (total <= o->cap) return true;
    uint8_t *p = realloc(o->data, total);
    if (!p) {
        o->failed = true;
        return false;
    }
    o->data = p;
    o->cap = total;
    return true;
}

void snap_out_bytes(snap_out *o, const void *src, size_t n) {
    if (o->failed) return;
    if (n > o->cap - o->len) {
        size_t want = o->cap ? o->cap : 256;
        while (want - o->len < n) {
            if (want > SIZE_MAX / 2) {
                o->failed = true;
                return;
            }
            want *= 2;
        }
        if (!snap_out_reserve(o, want)) return;
    }
    memcpy(o->data + o->len, src, n);
    o->len += n;
}

void snap_out_u32(snap_out *o, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[o->big ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
    snap_out_bytes(o, b, 4);
}

void snap_out_u64(snap_out *o, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[o->big ? i : 7 - i] = (uint8_t)(v >> (56 - 8 * i));
    snap_out_bytes(o, b, 8);
}

void snap_out_f32(snap_out *o, float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    snap_out_u32(o, u);
}

void snap_out_f64(snap_out *o, double v) {
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    snap_out_u64(o, u);
}

/* --- errors and checks ------------------------------------------------------ */

const char *snap_short_name(const char *name) {
    if (!name || !*name) return "snapshot";
    size_t n = strlen(name);
    return n > 80 ? name + (n - 80) : name;
}

bool snap_fail(snap_error *err, const char *name, const char *hint, const char *fmt, ...) {
    if (!err) return false;
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(err->message, sizeof err->message, "%s: %s", snap_short_name(name), what);
    snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
    return false;
}

bool snap_check_bodies(const snap_data *d, const char *name, snap_error *err) {
    static const char axis[] = "xyz";
    for (int i = 0; i < d->count; i++) {
        const snap_body *b = &d->bodies[i];
        for (int k = 0; k < 3; k++) {
            if (!isfinite(b->pos[k]))
                return snap_fail(err, name,
                                 "the file is damaged, or the run that wrote it blew up; load "
                                 "an earlier snapshot",
                                 "body %d of %d has a non-finite position (%c = %g)", i, d->count,
                                 axis[k], b->pos[k]);
            if (!isfinite(b->vel[k]))
                return snap_fail(err, name,
                                 "the file is damaged, or the run that wrote it blew up; load "
                                 "an earlier snapshot",
                                 "body %d of %d has a non-finite velocity (v%c = %g)", i, d->count,
                                 axis[k], b->vel[k]);
        }
        if (!isfinite(b->mass) || b->mass < 0)
            return snap_fail(err, name,
                             "masses must be finite and not negative; the file is damaged",
                             "body %d of %d has mass %g", i, d->count, b->mass);
        if (b->tag > 15 || SNAP_TAG_COMPONENT(b->tag) > SNAP_COMPONENT_HALO)
            return snap_fail(err, name, "tags are galaxy (bits 0-1) | component 0-2 (bits 2-3)",
                             "body %d of %d has an invalid tag %u", i, d->count, b->tag);
    }
    return true;
}

uint8_t snap_gadget_tag(int type) {
    switch (type) {
    case 1:
        return SNAP_TAG(0, SNAP_COMPONENT_HALO);
    case 2:
        return SNAP_TAG(0, SNAP_COMPONENT_DISK);
    case 3:
        return SNAP_TAG(0, SNAP_COMPONENT_BULGE);
    case 5:
        return SNAP_TAG(0, SNAP_COMPONENT_HALO); /* black holes: point masses, drawn dim */
    default:
        return SNAP_TAG(0, SNAP_COMPONENT_DISK); /* 0 gas, 4 stars */
    }
}

void snap_free(snap_data *d) {
    if (!d) return;
    free(d->bodies);
    free(d->ids);
    memset(d, 0, sizeof *d);
}

/* --- detection ------------------------------------------------------------ */

static bool hdf5_detect(const uint8_t *data, size_t len) {
    /* The superblock sits at 0 or, after a user block, at 512, 1024, 2048, ... */
    for (size_t off = 0; off + 8 <= len; off = off ? off * 2 : 512)
        if (memcmp(data + off, hdf5_signature, 8) == 0) return true;
    return false;
}

/* GADGET-2 with only the first record marker checked: a damaged header then
 * reaches the GADGET reader, whose message says what is wrong with it. */
static bool gadget_detect_lenient(const uint8_t *data, size_t len) {
    if (len < 4) return false;
    uint32_t le = snap_load_u32(data, false), be = snap_load_u32(data, true);
    return le == 256 || be == 256 || le == 8 || be == 8;
}

snap_format snap_detect_memory(const uint8_t *data, size_t len) {
    if (!data) return SNAP_FORMAT_UNKNOWN;
    if (hdf5_detect(data, len)) return SNAP_FORMAT_HDF5;
    if (snap_gadget_detect(data, len)) return SNAP_FORMAT_GADGET2;
    if (snap_tipsy_detect(data, len)) return SNAP_FORMAT_TIPSY;
    if (gadget_detect_lenient(data, len)) return SNAP_FORMAT_GADGET2;
    return SNAP_FORMAT_UNKNOWN;
}

/* Opens path for reading only when it is a regular file; fills *st. -1 with
 * *err otherwise. O_NONBLOCK so a FIFO that slipped past stat cannot hang us. */
static int open_regular(const char *path, struct stat *st, snap_error *err) {
    if (!path || !*path) {
        snap_fail(err, "snapshot", "give the path of a snapshot file", "no file name given");
        return -1;
    }
    if (stat(path, st) != 0) {
        snap_fail(err, path, "check the path and its permissions", "cannot open: %s",
                  strerror(errno));
        return -1;
    }
    if (!S_ISREG(st->st_mode)) {
        const char *what = S_ISDIR(st->st_mode)    ? "a directory"
                           : S_ISFIFO(st->st_mode) ? "a FIFO (named pipe)"
                           : S_ISCHR(st->st_mode)  ? "a character device"
                           : S_ISBLK(st->st_mode)  ? "a block device"
                           : S_ISSOCK(st->st_mode) ? "a socket"
                                                   : "not a regular file";
        snap_fail(err, path,
                  S_ISDIR(st->st_mode) ? "give one snapshot file inside it (a series of snapshots "
                                         "is played from a directory by the app, not read as one)"
                                       : "copy the snapshot into a regular file and load that",
                  "is %s, not a snapshot file", what);
        return -1;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snap_fail(err, path, "check the path and its permissions", "cannot open: %s",
                  strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        snap_fail(err, path, "copy the snapshot into a regular file and load that",
                  "is not a regular file");
        return -1;
    }
    return fd;
}

/* Reads up to max bytes (the whole file when max is SIZE_MAX) into a
 * malloc'd buffer; the file's whole size into *size unless it is NULL. */
static bool read_path(const char *path, size_t max, uint8_t **data, size_t *len, uintmax_t *size,
                      snap_error *err) {
    *data = NULL;
    *len = 0;
    struct stat st;
    int fd = open_regular(path, &st, err);
    if (fd < 0) return false;
    if ((uintmax_t)st.st_size > (uintmax_t)SIZE_MAX / 2) {
        close(fd);
        return snap_fail(err, path, "the file is too large for this machine's memory",
                         "is %jd bytes", (intmax_t)st.st_size);
    }
    if (size) *size = (uintmax_t)st.st_size;
    size_t want = (size_t)st.st_size < max ? (size_t)st.st_size : max;
    uint8_t *buf = malloc(want ? want : 1);
    if (!buf) {
        close(fd);
        return snap_fail(err, path, "free some memory, or load a smaller snapshot",
                         "cannot allocate %zu bytes to read it", want);
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return snap_fail(err, path, "check the file and the disk", "read failed: %s",
                             strerror(e));
        }
        if (r == 0) break; /* shrank while we read: the readers see the shorter image */
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *len = got;
    return true;
}

static const char unknown_hint[] =
    "nbody reads tipsy, GADGET-2 binary (SnapFormat 1 or 2) and HDF5 (GADGET/AREPO/SWIFT) "
    "snapshots, recognised by their content";

/* data: the first len bytes of a file (or image) of size bytes. */
static bool fail_unknown(const uint8_t *data, size_t len, uintmax_t size, const char *name,
                         snap_error *err) {
    if (size == 0) return snap_fail(err, name, unknown_hint, "is empty");
    char first[40] = "";
    for (size_t i = 0; i < len && i < 8; i++)
        snprintf(first + 3 * i, sizeof first - 3 * i, "%02x ", data[i]);
    first[strlen(first) - 1] = '\0';
    return snap_fail(err, name, unknown_hint,
                     "is not a snapshot this nbody can read (%ju bytes, starting %s)", size, first);
}

snap_format snap_detect_file(const char *path, snap_error *err) {
    uint8_t *data;
    size_t len;
    uintmax_t size = 0;
    if (!read_path(path, DETECT_BYTES, &data, &len, &size, err)) return SNAP_FORMAT_UNKNOWN;
    snap_format f = snap_detect_memory(data, len);
    if (f == SNAP_FORMAT_UNKNOWN) fail_unknown(data, len, size, path, err);
    free(data);
    return f;
}

/* --- reading ------------------------------------------------------------------ */

bool snap_read_memory_sidecar(const uint8_t *data, size_t len, const uint8_t *sidecar,
                              size_t sidecar_len, const char *name, snap_data *out,
                              snap_error *err) {
    memset(out, 0, sizeof *out);
    if (!data) len = 0;
    bool ok;
    switch (snap_detect_memory(data, len)) {
    case SNAP_FORMAT_TIPSY:
        ok = snap_tipsy_read(data, len, name, out, err);
        if (ok && sidecar) ok = snap_sidecar_apply(sidecar, sidecar_len, name, out, err);
        break;
    case SNAP_FORMAT_GADGET2:
        ok = snap_gadget_read(data, len, name, out, err);
        break;
    case SNAP_FORMAT_HDF5:
        ok = snap_fail(err, name, "load HDF5 snapshots from a file (snap_read_file)",
                       "is HDF5, which is read from a file, not from memory");
        break;
    default:
        ok = fail_unknown(data, len, len, name, err);
        break;
    }
    if (ok) ok = snap_check_bodies(out, name, err);
    if (!ok) snap_free(out);
    return ok;
}

bool snap_read_memory(const uint8_t *data, size_t len, const char *name, snap_data *out,
                      snap_error *err) {
    return snap_read_memory_sidecar(data, len, NULL, 0, name, out, err);
}

/* One file of a snapshot that may span several: *num_files from its header. */
typedef bool (*part_reader)(const char *path, snap_data *out, int *num_files, snap_error *err);

static bool gadget_part(const char *path, snap_data *out, int *num_files, snap_error *err) {
    uint8_t *data;
    size_t len;
    if (!read_path(path, SIZE_MAX, &data, &len, NULL, err)) return false;
    bool ok = snap_gadget_read_part(data, len, path, out, num_files, err);
    free(data);
    return ok;
}

/* HDF5 files are opened by libhdf5; a sibling that is missing or not a
 * regular file is reported here first, in our words. */
static bool hdf5_part(const char *path, snap_data *out, int *num_files, snap_error *err) {
    memset(out, 0, sizeof *out);
    *num_files = 1;
    struct stat st;
    int fd = open_regular(path, &st, err);
    if (fd < 0) return false;
    close(fd);
    return snap_hdf5_read_part(path, out, num_files, err);
}

/* Where the file number sits in a name like snap_099.3 or snap_099.3.hdf5:
 * the last dot-separated run of digits, either at the end or before one
 * extension. false when there is none. */
static bool file_number(const char *path, size_t *at, size_t *digits) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *last = strrchr(name, '.');
    for (int pass = 0; last && pass < 2; pass++) {
        size_t n = strspn(last + 1, "0123456789");
        if (n > 0 && (last[1 + n] == '\0' || last[1 + n] == '.')) {
            *at = (size_t)(last + 1 - path);
            *digits = n;
            return true;
        }
        const char *prev = last;
        last = NULL;
        for (const char *q = name; q < prev; q++)
            if (*q == '.') last = q;
    }
    return false;
}

/* A snapshot of several files is named <base>.0<ext>, <base>.1<ext>, ...
 * (GADGET and AREPO/SWIFT alike); the header's file count says how many.
 * Whichever of them path names, all are read, in order, and their bodies
 * concatenated; time, units and knobs are file 0's. */
enum { MAX_FILES = 65536 };

static bool read_parts(const char *path, part_reader read_part, const char *kind, snap_data *out,
                       snap_error *err) {
    int num_files = 1;
    if (!read_part(path, out, &num_files, err)) return false;
    if (num_files == 1) return true;
    snap_free(out);
    size_t at, digits;
    if (!file_number(path, &at, &digits))
        return snap_fail(err, path,
                         "the files of a multi-file snapshot are named <base>.0, <base>.1, ... "
                         "(before any extension); keep those names",
                         "is one file of a %d-file %s snapshot, and its name has no file number",
                         num_files, kind);
    if (num_files > MAX_FILES)
        return snap_fail(err, path, "the header is damaged",
                         "%s header says the snapshot spans %d files", kind, num_files);
    const char *suffix = path + at + digits;
    size_t cap = at + strlen(suffix) + 16;
    char *sibling = malloc(cap);
    if (!sibling) return snap_fail(err, path, "free some memory", "out of memory");
    bool ok = true;
    for (int i = 0; i < num_files && ok; i++) {
        snprintf(sibling, cap, "%.*s%d%s", (int)at, path, i, suffix);
        snap_data part = {0};
        int n = 0;
        ok = read_part(sibling, &part, &n, err);
        if (!ok && strcmp(sibling, path) != 0)
            snprintf(err->hint, sizeof err->hint,
                     "the snapshot spans %d files, %.*s0%s to %.*s%d%s; all of them must be there",
                     num_files, (int)(at < 60 ? at : 60), path + (at < 60 ? 0 : at - 60), suffix,
                     (int)(at < 60 ? at : 60), path + (at < 60 ? 0 : at - 60), num_files - 1,
                     suffix);
        if (ok && n != num_files)
            ok = snap_fail(err, sibling, "the files belong to different snapshots",
                           "says the snapshot spans %d files, %s says %d", n, path, num_files);
        if (ok && (int64_t)out->count + part.count > SNAP_MAX_BODIES)
            ok = snap_fail(err, sibling, "the headers are damaged",
                           "the files together hold more than %d particles", SNAP_MAX_BODIES);
        snap_body *grown = NULL;
        if (ok) {
            grown = realloc(out->bodies,
                            ((size_t)out->count + (size_t)part.count) * sizeof *out->bodies);
            if (!grown) ok = snap_fail(err, sibling, "free some memory", "out of memory");
            else out->bodies = grown;
        }
        /* IDs only while every file so far has them. */
        if (ok && (i == 0 || out->ids) && part.ids) {
            uint64_t *ids =
                realloc(out->ids, ((size_t)out->count + (size_t)part.count) * sizeof *ids);
            if (!ids) ok = snap_fail(err, sibling, "free some memory", "out of memory");
            else {
                memcpy(ids + out->count, part.ids, (size_t)part.count * sizeof *ids);
                out->ids = ids;
            }
        } else if (ok) {
            free(out->ids);
            out->ids = NULL;
        }
        if (ok) {
            memcpy(out->bodies + out->count, part.bodies, (size_t)part.count * sizeof *part.bodies);
            out->count += part.count;
            for (int t = 0; t < 6; t++) out->type_counts[t] += part.type_counts[t];
            if (i == 0) {
                out->time = part.time;
                out->format = part.format;
                out->units = part.units;
                out->knobs = part.knobs;
            }
        }
        snap_free(&part);
    }
    free(sibling);
    if (!ok) snap_free(out);
    return ok;
}

bool snap_read_file(const char *path, snap_data *out, snap_error *err) {
    memset(out, 0, sizeof *out);
    snap_format f = snap_detect_file(path, err);
    if (f == SNAP_FORMAT_UNKNOWN) return false;
    if (f == SNAP_FORMAT_HDF5 || f == SNAP_FORMAT_GADGET2) {
        bool ok = f == SNAP_FORMAT_HDF5 ? read_parts(path, hdf5_part, "HDF5", out, err)
                                        : read_parts(path, gadget_part, "GADGET", out, err);
        ok = ok && snap_check_bodies(out, path, err);
        if (!ok) snap_free(out);
        return ok;
    }
    uint8_t *data;
    size_t len;
    if (!read_path(path, SIZE_MAX, &data, &len, NULL, err)) return false;
    uint8_t *side = NULL;
    size_t side_len = 0;
    if (f == SNAP_FORMAT_TIPSY) {
        size_t n = strlen(path);
        char *side_path = malloc(n + sizeof SNAP_SIDECAR_SUFFIX);
        if (!side_path) {
            free(data);
            return snap_fail(err, path, "free some memory", "out of memory");
        }
        memcpy(side_path, path, n);
        memcpy(side_path + n, SNAP_SIDECAR_SUFFIX, sizeof SNAP_SIDECAR_SUFFIX);
        struct stat st;
        bool ok = true;
        if (lstat(side_path, &st) == 0 || errno != ENOENT) {
            ok = read_path(side_path, SIZE_MAX, &side, &side_len, NULL, err);
            if (!ok) /* the message names the sidecar's path */
                snprintf(err->hint, sizeof err->hint,
                         "make the sidecar a readable file, or remove it to load the tipsy file "
                         "alone");
        }
        free(side_path);
        if (!ok) {
            free(data);
            return false;
        }
    }
    bool ok = snap_read_memory_sidecar(data, len, side, side_len, path, out, err);
    free(data);
    free(side);
    return ok;
}

/* --- HDF5 stand-ins ------------------------------------------------------------ */

#ifndef NBODY_HAVE_HDF5
static const char no_hdf5_hint[] =
    "this nbody was built without HDF5; install libhdf5-dev (scripts/install-deps.sh) and "
    "rebuild";

bool snap_hdf5_available(void) {
    return false;
}

bool snap_hdf5_read_part(const char *path, snap_data *out, int *num_files, snap_error *err) {
    memset(out, 0, sizeof *out);
    *num_files = 1;
    return snap_fail(err, path, no_hdf5_hint, "is an HDF5 snapshot, and HDF5 support is missing");
}

bool snap_write_hdf5(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err) {
    *buf = NULL;
    *len = 0;
    return snap_fail(err, "HDF5 output", no_hdf5_hint, "cannot be written: no HDF5 support");
}
#endif
