/* snap_tipsy.c - tipsy snapshots (read and write) and our sidecar.
 *
 * Tipsy: a header `double time; int nbodies, ndim, nsph, ndark, nstar;`, in
 * standard tipsy followed by 4 bytes of padding (32 bytes; the C struct's
 * alignment, which most writers keep) or not (28 bytes: the XDR writers); then
 * nsph gas, ndark dark and nstar star particles, all as 4-byte floats:
 *   gas  (12): mass, pos[3], vel[3], rho, temp, hsmooth, metals, phi
 *   dark  (9): mass, pos[3], vel[3], eps, phi
 *   star (11): mass, pos[3], vel[3], metals, tform, eps, phi
 * Standard tipsy is big-endian (XDR); "native" tipsy written on a PC is
 * little-endian: the header's counts tell which (only one byte order makes
 * nbodies = nsph + ndark + nstar with ndim = 3), the file size tells which
 * header length (only one makes the particles fill the file exactly).
 * Mapping to our tags: gas and stars are disk, dark matter is halo.
 *
 * The sidecar "<file>.nbody" (little-endian, version 1, or 2 with IDs):
 *     0  "NBODYSC" + version byte
 *     8  int64 count (must equal the tipsy file's)
 *    16  double time
 *    24  char scene[64] (NUL-terminated)
 *    88  double dt, softening, damping, theta
 *   120  int64 steps
 *   128  count x double pos[3], vel[3], mass   (body order of the save)
 *        count x uint8 tag
 *        count x uint64 id                     (version 2 only: snap_data.ids)
 * Our tipsy writer puts halo bodies first (dark), then the rest (star), each
 * in body order; the sidecar keeps the body order, and the reader checks that
 * every tipsy float equals the sidecar's double rounded to float, so a
 * sidecar that belongs to another file is refused rather than trusted.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "snap_internal.h"

enum {
    TIPSY_HEADER_PAD = 32,
    TIPSY_HEADER_NOPAD = 28,
    TIPSY_GAS_FLOATS = 12,
    TIPSY_DARK_FLOATS = 9,
    TIPSY_STAR_FLOATS = 11,
    SIDECAR_VERSION = 1,     /* without IDs */
    SIDECAR_VERSION_IDS = 2, /* the same, then an ID per body */
    SIDECAR_HEADER = 128,
    SIDECAR_BODY = 57, /* 7 doubles + 1 tag byte */
    SIDECAR_ID = 8,
};
static const char sidecar_magic[7] = {'N', 'B', 'O', 'D', 'Y', 'S', 'C'};

typedef struct tipsy_header {
    double time;
    int32_t nbodies, ndim, nsph, ndark, nstar;
} tipsy_header;

static bool header_read(const uint8_t *data, size_t len, bool big, tipsy_header *h) {
    snap_cursor c = {.data = data, .len = len, .big = big};
    return snap_cur_f64(&c, &h->time) && snap_cur_i32(&c, &h->nbodies) &&
           snap_cur_i32(&c, &h->ndim) && snap_cur_i32(&c, &h->nsph) &&
           snap_cur_i32(&c, &h->ndark) && snap_cur_i32(&c, &h->nstar);
}

static bool header_consistent(const tipsy_header *h) {
    return h->ndim == 3 && h->nsph >= 0 && h->ndark >= 0 && h->nstar >= 0 &&
           (int64_t)h->nsph + h->ndark + h->nstar == (int64_t)h->nbodies;
}

/* Which byte order makes the header consistent: 1 big, 0 little, -1 neither. */
static int header_order(const uint8_t *data, size_t len, tipsy_header *h) {
    if (header_read(data, len, true, h) && header_consistent(h)) return 1;
    tipsy_header le;
    if (header_read(data, len, false, &le) && header_consistent(&le)) {
        *h = le;
        return 0;
    }
    return -1;
}

bool snap_tipsy_detect(const uint8_t *data, size_t len) {
    tipsy_header h;
    return header_order(data, len, &h) >= 0;
}

static uint64_t particle_bytes(const tipsy_header *h) {
    return 4u * ((uint64_t)h->nsph * TIPSY_GAS_FLOATS + (uint64_t)h->ndark * TIPSY_DARK_FLOATS +
                 (uint64_t)h->nstar * TIPSY_STAR_FLOATS);
}

static const char tipsy_damaged_hint[] =
    "the file is truncated or its header is damaged; copy it again from where it was written";

bool snap_tipsy_read(const uint8_t *data, size_t len, const char *name, snap_data *out,
                     snap_error *err) {
    memset(out, 0, sizeof *out);
    tipsy_header h;
    if (len < TIPSY_HEADER_NOPAD)
        return snap_fail(err, name, tipsy_damaged_hint,
                         "truncated tipsy file: %zu bytes, the header alone needs %d", len,
                         TIPSY_HEADER_NOPAD);
    int order = header_order(data, len, &h);
    if (order < 0) {
        header_read(data, len, true, &h);
        return snap_fail(err, name, tipsy_damaged_hint,
                         "tipsy header is inconsistent in either byte order: nbodies %d, ndim %d, "
                         "%d gas + %d dark + %d star",
                         h.nbodies, h.ndim, h.nsph, h.ndark, h.nstar);
    }
    if (h.nbodies == 0)
        return snap_fail(err, name, "write the snapshot again from a run with bodies",
                         "tipsy file has no particles");
    if (!isfinite(h.time))
        return snap_fail(err, name, tipsy_damaged_hint, "tipsy header time is %g", h.time);
    uint64_t body_bytes = particle_bytes(&h);
    size_t header;
    if ((uint64_t)len == TIPSY_HEADER_PAD + body_bytes)
        header = TIPSY_HEADER_PAD;
    else if ((uint64_t)len == TIPSY_HEADER_NOPAD + body_bytes)
        header = TIPSY_HEADER_NOPAD;
    else
        return snap_fail(err, name, tipsy_damaged_hint,
                         "tipsy header says %d gas + %d dark + %d star particles = %llu bytes "
                         "after the 28- or 32-byte header, but the file has %zu bytes",
                         h.nsph, h.ndark, h.nstar, (unsigned long long)body_bytes, len);
    /* The file size has now confirmed the count. */
    out->bodies = calloc((size_t)h.nbodies, sizeof *out->bodies);
    if (!out->bodies)
        return snap_fail(err, name, "free some memory, or load a smaller snapshot",
                         "cannot allocate %d bodies", h.nbodies);
    out->count = h.nbodies;
    out->time = h.time;
    out->format = SNAP_FORMAT_TIPSY;
    out->units.hubble = 1;
    out->type_counts[0] = h.nsph;
    out->type_counts[1] = h.ndark;
    out->type_counts[2] = h.nstar;

    snap_cursor c = {.data = data, .len = len, .pos = header, .big = order == 1};
    const int counts[3] = {h.nsph, h.ndark, h.nstar};
    const int floats[3] = {TIPSY_GAS_FLOATS, TIPSY_DARK_FLOATS, TIPSY_STAR_FLOATS};
    const uint8_t tags[3] = {SNAP_TAG(0, SNAP_COMPONENT_DISK), SNAP_TAG(0, SNAP_COMPONENT_HALO),
                             SNAP_TAG(0, SNAP_COMPONENT_DISK)};
    int i = 0;
    for (int kind = 0; kind < 3; kind++) {
        for (int k = 0; k < counts[kind]; k++, i++) {
            float v[TIPSY_GAS_FLOATS];
            for (int f = 0; f < floats[kind]; f++)
                if (!snap_cur_f32(&c, &v[f])) /* cannot happen after the size check */
                    return snap_fail(err, name, tipsy_damaged_hint, "truncated at particle %d", i);
            snap_body *b = &out->bodies[i];
            b->mass = v[0];
            for (int a = 0; a < 3; a++) {
                b->pos[a] = v[1 + a];
                b->vel[a] = v[4 + a];
            }
            b->tag = tags[kind];
        }
    }
    return true;
}

/* Halo bodies are dark particles, the rest star particles. */
static bool is_dark(uint8_t tag) {
    return SNAP_TAG_COMPONENT(tag) == SNAP_COMPONENT_HALO;
}

static bool fits_float(double v) {
    return fabs(v) <= FLT_MAX;
}

bool snap_write_tipsy(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err) {
    *buf = NULL;
    *len = 0;
    const char *name = "tipsy output";
    if (!d || d->count <= 0 || !d->bodies)
        return snap_fail(err, name, "save a state with bodies", "no bodies to write");
    if (!snap_check_bodies(d, name, err)) return false;
    if (!isfinite(d->time))
        return snap_fail(err, name, "the simulation time is damaged", "time is %g", d->time);
    int ndark = 0;
    for (int i = 0; i < d->count; i++) {
        const snap_body *b = &d->bodies[i];
        ndark += is_dark(b->tag);
        bool fits = fits_float(b->mass);
        for (int a = 0; a < 3; a++) fits = fits && fits_float(b->pos[a]) && fits_float(b->vel[a]);
        if (!fits)
            return snap_fail(err, name, "tipsy holds 4-byte floats; save as HDF5 instead",
                             "body %d has a value beyond float range", i);
    }
    int nstar = d->count - ndark;
    uint64_t total = TIPSY_HEADER_PAD + 4u * ((uint64_t)ndark * TIPSY_DARK_FLOATS +
                                              (uint64_t)nstar * TIPSY_STAR_FLOATS);
    snap_out o = {.big = true};
    if (total > SIZE_MAX || !snap_out_reserve(&o, (size_t)total))
        return snap_fail(err, name, "free some memory", "cannot allocate %llu bytes",
                         (unsigned long long)total);
    snap_out_f64(&o, d->time);
    const uint32_t header[6] = {(uint32_t)d->count, 3, 0, (uint32_t)ndark, (uint32_t)nstar, 0};
    for (int k = 0; k < 6; k++) snap_out_u32(&o, header[k]);
    float eps = d->knobs.valid && fits_float(d->knobs.softening) ? (float)d->knobs.softening : 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < d->count; i++) {
            const snap_body *b = &d->bodies[i];
            if (is_dark(b->tag) != (pass == 0)) continue;
            snap_out_f32(&o, (float)b->mass);
            for (int a = 0; a < 3; a++) snap_out_f32(&o, (float)b->pos[a]);
            for (int a = 0; a < 3; a++) snap_out_f32(&o, (float)b->vel[a]);
            if (pass == 1) { /* star: metals, tform */
                snap_out_f32(&o, 0);
                snap_out_f32(&o, 0);
            }
            snap_out_f32(&o, eps);
            snap_out_f32(&o, 0); /* phi: not known here */
        }
    }
    if (o.failed || o.len != total) {
        free(o.data);
        return snap_fail(err, name, "free some memory", "out of memory while writing");
    }
    *buf = o.data;
    *len = o.len;
    return true;
}

/* --- sidecar ---------------------------------------------------------------- */

bool snap_write_sidecar(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err) {
    *buf = NULL;
    *len = 0;
    const char *name = "sidecar output";
    if (!d || d->count <= 0 || !d->bodies)
        return snap_fail(err, name, "save a state with bodies", "no bodies to write");
    if (!snap_check_bodies(d, name, err)) return false;
    const double knobs[4] = {d->knobs.dt, d->knobs.softening, d->knobs.damping, d->knobs.theta};
    for (int k = 0; k < 4; k++)
        if (!isfinite(knobs[k]))
            return snap_fail(err, name, "the knobs are damaged", "knob %d is %g", k, knobs[k]);
    uint64_t total =
        SIDECAR_HEADER + (uint64_t)d->count * (SIDECAR_BODY + (d->ids ? SIDECAR_ID : 0));
    snap_out o = {.big = false};
    if (total > SIZE_MAX || !snap_out_reserve(&o, (size_t)total))
        return snap_fail(err, name, "free some memory", "cannot allocate %llu bytes",
                         (unsigned long long)total);
    snap_out_bytes(&o, sidecar_magic, sizeof sidecar_magic);
    const uint8_t version = d->ids ? SIDECAR_VERSION_IDS : SIDECAR_VERSION;
    snap_out_bytes(&o, &version, 1);
    snap_out_u64(&o, (uint64_t)d->count);
    snap_out_f64(&o, d->time);
    char scene[64] = {0};
    snprintf(scene, sizeof scene, "%s", d->knobs.scene);
    snap_out_bytes(&o, scene, sizeof scene);
    for (int k = 0; k < 4; k++) snap_out_f64(&o, knobs[k]);
    snap_out_u64(&o, (uint64_t)d->knobs.steps);
    for (int i = 0; i < d->count; i++) {
        const snap_body *b = &d->bodies[i];
        for (int a = 0; a < 3; a++) snap_out_f64(&o, b->pos[a]);
        for (int a = 0; a < 3; a++) snap_out_f64(&o, b->vel[a]);
        snap_out_f64(&o, b->mass);
    }
    for (int i = 0; i < d->count; i++) snap_out_bytes(&o, &d->bodies[i].tag, 1);
    for (int i = 0; d->ids && i < d->count; i++) snap_out_u64(&o, d->ids[i]);
    if (o.failed || o.len != total) {
        free(o.data);
        return snap_fail(err, name, "free some memory", "out of memory while writing");
    }
    *buf = o.data;
    *len = o.len;
    return true;
}

static const char sidecar_hint[] =
    "the sidecar (<file>.nbody) belongs to another save or is damaged; remove or rename it to "
    "load the tipsy file alone";

static bool same_float(float stored, double exact) {
    return stored == (float)exact;
}

bool snap_sidecar_apply(const uint8_t *data, size_t len, const char *name, snap_data *d,
                        snap_error *err) {
    snap_cursor c = {.data = data, .len = data ? len : 0, .big = false};
    char magic[7];
    uint8_t version;
    uint64_t count, steps;
    double time, knobs[4];
    char scene[64];
    if (!snap_cur_bytes(&c, magic, sizeof magic) || !snap_cur_bytes(&c, &version, 1) ||
        !snap_cur_u64(&c, &count) || !snap_cur_f64(&c, &time) ||
        !snap_cur_bytes(&c, scene, sizeof scene) || !snap_cur_f64(&c, &knobs[0]) ||
        !snap_cur_f64(&c, &knobs[1]) || !snap_cur_f64(&c, &knobs[2]) ||
        !snap_cur_f64(&c, &knobs[3]) || !snap_cur_u64(&c, &steps)) {
        if (len >= sizeof magic && memcmp(data, sidecar_magic, sizeof magic) != 0)
            return snap_fail(err, name, sidecar_hint,
                             "sidecar is not an nbody sidecar (bad magic)");
        return snap_fail(err, name, sidecar_hint,
                         "sidecar is truncated: %zu bytes, its header needs %d", len,
                         SIDECAR_HEADER);
    }
    if (memcmp(magic, sidecar_magic, sizeof magic) != 0)
        return snap_fail(err, name, sidecar_hint, "sidecar is not an nbody sidecar (bad magic)");
    if (version != SIDECAR_VERSION && version != SIDECAR_VERSION_IDS)
        return snap_fail(err, name,
                         "it was written by another nbody version; remove or rename the sidecar "
                         "to load the tipsy file alone",
                         "sidecar has version %u, this nbody reads versions %d and %d", version,
                         SIDECAR_VERSION, SIDECAR_VERSION_IDS);
    const uint64_t per_body = SIDECAR_BODY + (version == SIDECAR_VERSION_IDS ? SIDECAR_ID : 0);
    if (count != (uint64_t)d->count)
        return snap_fail(err, name, sidecar_hint,
                         "sidecar is for %llu bodies but the tipsy file has %d",
                         (unsigned long long)count, d->count);
    uint64_t want = SIDECAR_HEADER + count * per_body; /* count <= INT_MAX: no overflow */
    if ((uint64_t)len != want)
        return snap_fail(err, name, sidecar_hint,
                         "sidecar has %zu bytes, %llu bodies need exactly %llu", len,
                         (unsigned long long)count, (unsigned long long)want);
    if (!(time == d->time))
        return snap_fail(err, name, sidecar_hint,
                         "sidecar time %.17g differs from the tipsy file's %.17g", time, d->time);
    if (!memchr(scene, '\0', sizeof scene))
        return snap_fail(err, name, sidecar_hint, "sidecar scene name is not terminated");
    for (const char *s = scene; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return snap_fail(err, name, sidecar_hint,
                             "sidecar scene name has a non-printable byte 0x%02x",
                             (unsigned char)*s);
    static const char *const knob_names[4] = {"dt", "softening", "damping", "theta"};
    for (int k = 0; k < 4; k++)
        if (!isfinite(knobs[k]))
            return snap_fail(err, name, sidecar_hint, "sidecar %s is %g", knob_names[k], knobs[k]);
    if (steps > (uint64_t)INT64_MAX)
        return snap_fail(err, name, sidecar_hint, "sidecar step count is negative");

    snap_body *bodies = calloc((size_t)count, sizeof *bodies);
    uint64_t *ids = version == SIDECAR_VERSION_IDS ? malloc((size_t)count * sizeof *ids) : NULL;
    if (!bodies || (version == SIDECAR_VERSION_IDS && !ids)) {
        free(bodies);
        free(ids);
        return snap_fail(err, name, "free some memory", "cannot allocate the sidecar's bodies");
    }
    for (size_t i = 0; i < count; i++) {
        snap_body *b = &bodies[i];
        for (int a = 0; a < 3; a++) snap_cur_f64(&c, &b->pos[a]);
        for (int a = 0; a < 3; a++) snap_cur_f64(&c, &b->vel[a]);
        snap_cur_f64(&c, &b->mass);
    }
    for (size_t i = 0; i < count; i++) snap_cur_bytes(&c, &bodies[i].tag, 1);
    for (size_t i = 0; ids && i < count; i++) snap_cur_u64(&c, &ids[i]);
    /* The sidecar must describe this very tipsy file: same dark/star split,
     * and each tipsy float the rounding of the sidecar's double. */
    int ndark = 0;
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        const snap_body *b = &bodies[i];
        if (b->tag > 15 || SNAP_TAG_COMPONENT(b->tag) > SNAP_COMPONENT_HALO)
            ok = snap_fail(err, name, sidecar_hint, "sidecar body %zu has an invalid tag %u", i,
                           b->tag);
        ndark += is_dark(b->tag);
    }
    if (ok && (d->type_counts[0] != 0 || d->type_counts[1] != ndark))
        ok = snap_fail(err, name, sidecar_hint,
                       "sidecar has %d halo bodies, the tipsy file %d dark and %d gas particles",
                       ndark, d->type_counts[1], d->type_counts[0]);
    int next[2] = {0, ndark}; /* file index of the next dark, star particle */
    for (size_t i = 0; i < count && ok; i++) {
        const snap_body *b = &bodies[i];
        const snap_body *t = &d->bodies[next[is_dark(b->tag) ? 0 : 1]++];
        bool same = same_float((float)t->mass, b->mass);
        for (int a = 0; a < 3; a++)
            same = same && same_float((float)t->pos[a], b->pos[a]) &&
                   same_float((float)t->vel[a], b->vel[a]);
        if (!same)
            ok = snap_fail(err, name, sidecar_hint,
                           "sidecar body %zu does not match the tipsy file's particle", i);
    }
    if (!ok) {
        free(bodies);
        free(ids);
        return false;
    }
    free(d->bodies);
    d->bodies = bodies;
    free(d->ids);
    d->ids = ids;
    d->time = time;
    d->knobs.valid = true;
    memcpy(d->knobs.scene, scene, sizeof scene);
    d->knobs.dt = knobs[0];
    d->knobs.softening = knobs[1];
    d->knobs.damping = knobs[2];
    d->knobs.theta = knobs[3];
    d->knobs.steps = (int64_t)steps;
    return true;
}
