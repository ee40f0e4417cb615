/* test_snap.c - snap/'s readers and writers.
 *
 * Without arguments: round trips (tipsy + sidecar: every body bit for bit;
 * tipsy alone: every float exactly; HDF5 when built with it), the 28- and
 * 32-byte tipsy headers, little-endian tipsy, and every class of bad input
 * (truncated, wrong magic, counts that do not match the size, absurd N,
 * NaN/inf, negative mass, wrong byte order, bad sidecars, a directory, a
 * FIFO, a device), each with the message checked.
 *
 * With --manifest FILE: reads the snapshots an independent writer
 * (tests/snapgen.py, Python's struct module or h5py) made and compares every
 * value with the ones it says it wrote; exits 77 when the manifest names HDF5
 * files and this build has no HDF5.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snap.h"
#include "test_check.h"

/* --- helpers ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void) { /* xorshift64*: deterministic, unequal values */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

/* n bodies with exact-double values (not representable as floats), mixed tags. */
static snap_data make_state(int n) {
    snap_data d = {0};
    d.count = n;
    d.bodies = calloc((size_t)n, sizeof *d.bodies);
    for (int i = 0; i < n; i++) {
        snap_body *b = &d.bodies[i];
        for (int a = 0; a < 3; a++) {
            b->pos[a] = 20 * urand() - 10;
            b->vel[a] = 2 * urand() - 1;
        }
        b->mass = 1e-3 * (1 + urand());
        b->tag = SNAP_TAG(i % 3, (i / 3) % 3); /* galaxies 0-2, disk/bulge/halo */
    }
    d.time = 12.345678901234567;
    d.knobs = (snap_knobs){.valid = true,
                           .scene = "antennae-like",
                           .dt = 0.0123456789,
                           .softening = 0.05,
                           .damping = 1e-4,
                           .theta = 0.6,
                           .steps = 123456789};
    return d;
}

static bool write_file(const char *path, const uint8_t *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Expects failure with a message containing want and a non-empty hint. */
static void expect_fail(bool ok, const snap_error *err, const char *want, const char *what) {
    CHECK(!ok, "%s: accepted", what);
    if (ok) return;
    CHECK(strstr(err->message, want) != NULL, "%s: message \"%s\" lacks \"%s\"", what, err->message,
          want);
    CHECK(err->hint[0] != '\0', "%s: no hint (message \"%s\")", what, err->message);
}

static void expect_mem_fail(const uint8_t *data, size_t len, const char *want, const char *what) {
    snap_data d;
    snap_error err = {0};
    bool ok = snap_read_memory(data, len, "mem.snap", &d, &err);
    expect_fail(ok, &err, want, what);
    CHECK(!ok || d.bodies != NULL, "%s", what);
    if (ok)
        snap_free(&d);
    else
        CHECK(d.bodies == NULL && d.count == 0, "%s: output not zeroed on failure", what);
}

/* v rounded to float. Through a volatile: GCC 12.2's SLP vectorizer at -O2/-O3
 * dropped the rounding of (float) in the loop below (seen: doubles that are
 * not floats), which made the check fail on correct data. */
static double round_float(double v) {
    volatile float f = (float)v;
    return f;
}

static bool same_double(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

static int bodies_differ(const snap_body *a, const snap_body *b) {
    for (int k = 0; k < 3; k++)
        if (!same_double(a->pos[k], b->pos[k]) || !same_double(a->vel[k], b->vel[k])) return 1;
    return !same_double(a->mass, b->mass) || a->tag != b->tag;
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_be_float(uint8_t *p, float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_be32(p, u);
}

static void swap_range(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n / 2; i++) {
        uint8_t t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

/* --- round trips ------------------------------------------------------------- */

static char dir[256];

static void test_tipsy_round_trip(void) {
    snap_data d = make_state(301);
    snap_error err = {0};
    uint8_t *tip, *side;
    size_t tip_len, side_len;
    CHECK(snap_write_tipsy(&d, &tip, &tip_len, &err), "%s", err.message);
    CHECK(snap_write_sidecar(&d, &side, &side_len, &err), "%s", err.message);
    CHECK(snap_detect_memory(tip, tip_len) == SNAP_FORMAT_TIPSY, "tipsy not detected");

    char path[300], spath[310];
    snprintf(path, sizeof path, "%s/save.tipsy", dir);
    snprintf(spath, sizeof spath, "%s%s", path, SNAP_SIDECAR_SUFFIX);
    CHECK(write_file(path, tip, tip_len) && write_file(spath, side, side_len), "write");

    /* tipsy + sidecar: every body, the time and the knobs exactly */
    snap_data r;
    CHECK(snap_read_file(path, &r, &err), "%s (%s)", err.message, err.hint);
    CHECK(r.count == d.count && r.format == SNAP_FORMAT_TIPSY, "count %d", r.count);
    int bad = 0;
    for (int i = 0; i < d.count && i < r.count; i++)
        bad += bodies_differ(&d.bodies[i], &r.bodies[i]);
    CHECK(bad == 0, "%d bodies differ after tipsy + sidecar", bad);
    CHECK(same_double(r.time, d.time), "time %.17g", r.time);
    CHECK(r.knobs.valid && strcmp(r.knobs.scene, d.knobs.scene) == 0 &&
              same_double(r.knobs.dt, d.knobs.dt) &&
              same_double(r.knobs.softening, d.knobs.softening) &&
              same_double(r.knobs.damping, d.knobs.damping) &&
              same_double(r.knobs.theta, d.knobs.theta) && r.knobs.steps == d.knobs.steps,
          "knobs differ: scene %s dt %.17g", r.knobs.scene, r.knobs.dt);
    snap_free(&r);

    /* tipsy alone: halo bodies first as dark particles, then the rest as stars,
     * each float exactly the double rounded */
    unlink(spath);
    CHECK(snap_read_file(path, &r, &err), "%s", err.message);
    CHECK(!r.knobs.valid, "knobs without a sidecar");
    int ndark = 0;
    for (int i = 0; i < d.count; i++)
        ndark += SNAP_TAG_COMPONENT(d.bodies[i].tag) == SNAP_COMPONENT_HALO;
    CHECK(r.type_counts[1] == ndark && r.type_counts[2] == d.count - ndark && r.type_counts[0] == 0,
          "dark %d star %d", r.type_counts[1], r.type_counts[2]);
    bad = 0;
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < d.count; i++) {
            const snap_body *b = &d.bodies[i];
            bool halo = SNAP_TAG_COMPONENT(b->tag) == SNAP_COMPONENT_HALO;
            if (halo != (pass == 0) || k >= r.count) continue;
            snap_body want = {.mass = round_float(b->mass),
                              .tag = halo ? SNAP_TAG(0, SNAP_COMPONENT_HALO)
                                          : SNAP_TAG(0, SNAP_COMPONENT_DISK)};
            for (int a = 0; a < 3; a++) {
                want.pos[a] = round_float(b->pos[a]);
                want.vel[a] = round_float(b->vel[a]);
            }
            if (bodies_differ(&want, &r.bodies[k]) && bad++ == 0)
                fprintf(stderr,
                        "tipsy alone: body %d (file %d): x %.9g vs %.9g, m %.9g vs %.9g, "
                        "tag %u vs %u\n",
                        i, k, want.pos[0], r.bodies[k].pos[0], want.mass, r.bodies[k].mass,
                        want.tag, r.bodies[k].tag);
            k++;
        }
    CHECK(bad == 0 && k == r.count, "%d bodies differ in the tipsy file alone", bad);
    snap_free(&r);

    /* 28-byte header: the same file without the 4 bytes of padding */
    uint8_t *t28 = malloc(tip_len - 4);
    memcpy(t28, tip, 28);
    memcpy(t28 + 28, tip + 32, tip_len - 32);
    snap_data r28;
    CHECK(snap_read_memory(t28, tip_len - 4, "t28", &r28, &err), "28-byte header: %s", err.message);
    CHECK(snap_read_memory(tip, tip_len, "t32", &r, &err), "%s", err.message);
    bad = r28.count != r.count;
    for (int i = 0; !bad && i < r.count; i++) bad += bodies_differ(&r28.bodies[i], &r.bodies[i]);
    CHECK(bad == 0, "28-byte header reads differently");
    snap_free(&r28);

    /* native little-endian tipsy: every field byte-swapped */
    uint8_t *le = malloc(tip_len);
    memcpy(le, tip, tip_len);
    swap_range(le, 8);
    for (size_t off = 8; off + 4 <= tip_len; off += 4) swap_range(le + off, 4);
    snap_data rle;
    CHECK(snap_read_memory(le, tip_len, "le", &rle, &err), "little-endian: %s", err.message);
    bad = rle.count != r.count || !same_double(rle.time, r.time);
    for (int i = 0; !bad && i < r.count; i++) bad += bodies_differ(&rle.bodies[i], &r.bodies[i]);
    CHECK(bad == 0, "little-endian tipsy reads differently");
    snap_free(&rle);
    snap_free(&r);

    /* --- bad tipsy input --- */
    expect_mem_fail(tip, 0, "is empty", "empty");
    expect_mem_fail(tip, 20, "is not a snapshot this nbody can read (20 bytes", "short header");
    expect_mem_fail(tip, tip_len - 1, "but the file has", "truncated by one byte");
    expect_mem_fail(tip, tip_len - 44, "but the file has", "truncated by one particle");
    uint8_t *m = malloc(tip_len + 4);
    memcpy(m, tip, tip_len);
    put_be32(m + 8, (uint32_t)d.count + 1); /* nbodies and ndark one more: the size disagrees */
    put_be32(m + 20, (uint32_t)ndark + 1);
    expect_mem_fail(m, tip_len, "but the file has", "count one too high");
    put_be32(m + 8, 0x7fffffff); /* absurd N, consistent counts: refused before allocation */
    put_be32(m + 20, 0x7fffffff - (uint32_t)(d.count - ndark));
    expect_mem_fail(m, tip_len, "but the file has", "absurd N");
    memcpy(m, tip, tip_len);
    put_be32(m + 12, 2); /* ndim 2 in both byte orders: no consistent header */
    expect_mem_fail(m, tip_len, "is not a snapshot", "ndim 2");
    memcpy(m, tip, tip_len);
    memcpy(m + tip_len, "junk", 4); /* trailing bytes */
    expect_mem_fail(m, tip_len + 4, "but the file has", "trailing bytes");
    memcpy(m, tip, tip_len);
    put_be_float(m + 32 + 36 * 2 + 4 + 4, NAN); /* third dark particle's y */
    expect_mem_fail(m, tip_len, "body 2 of 301 has a non-finite position (y = nan)", "NaN");
    memcpy(m, tip, tip_len);
    put_be_float(m + 32 + 36 * 5 + 16, INFINITY); /* sixth particle's vx */
    expect_mem_fail(m, tip_len, "body 5 of 301 has a non-finite velocity", "inf");
    memcpy(m, tip, tip_len);
    put_be_float(m + 32 + 36 * 7, -1); /* eighth particle's mass */
    expect_mem_fail(m, tip_len, "body 7 of 301 has mass -1", "negative mass");
    memcpy(m, tip, tip_len);
    put_be_float(m + 32, NAN);
    expect_mem_fail(m, tip_len, "body 0 of 301 has mass nan", "NaN mass");
    memcpy(m,
           "\x7f"
           "ELF\2\1\1\0garbage-garbage-garbage-garbage",
           40);
    expect_mem_fail(m, tip_len, "is not a snapshot this nbody can read", "wrong magic");

    /* --- bad sidecars --- */
    uint8_t *s = malloc(side_len + 57);
    snap_data rs;
    memcpy(s, side, side_len);
    s[0] = 'X';
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "bad magic", "sidecar magic");
    memcpy(s, side, side_len);
    s[7] = 9;
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "version 9", "sidecar version");
    expect_fail(snap_read_memory_sidecar(tip, tip_len, side, 100, "sc", &rs, &err), &err,
                "sidecar is truncated", "sidecar header truncated");
    expect_fail(snap_read_memory_sidecar(tip, tip_len, side, side_len - 1, "sc", &rs, &err), &err,
                "need exactly", "sidecar body truncated");
    memcpy(s, side, side_len);
    s[8] = 44; /* count, little-endian */
    s[9] = 0;
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "sidecar is for 44 bodies but the tipsy file has 301", "sidecar count");
    memcpy(s, side, side_len);
    s[128 + 56 * 10 + 5] ^= 0x40; /* body 10's x changes beyond float rounding */
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "sidecar body 10 does not match", "sidecar from another file");
    memcpy(s, side, side_len);
    s[128 + 56 * 301 + 4] = 0x0c; /* body 4's tag: component 3 */
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "invalid tag", "sidecar tag");
    memcpy(s, side, side_len);
    memset(s + 24, 'a', 64); /* scene without a terminator */
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "not terminated", "sidecar scene");
    memcpy(s, side, side_len);
    uint64_t nan_bits = 0x7ff8000000000000ull;
    for (int b = 0; b < 8; b++) s[88 + b] = (uint8_t)(nan_bits >> (8 * b)); /* dt */
    expect_fail(snap_read_memory_sidecar(tip, tip_len, s, side_len, "sc", &rs, &err), &err,
                "sidecar dt is nan", "sidecar NaN knob");
    /* a sidecar that is a directory: the file read names it */
    CHECK(write_file(path, tip, tip_len), "write");
    CHECK(mkdir(spath, 0700) == 0, "mkdir %s", strerror(errno));
    expect_fail(snap_read_file(path, &rs, &err), &err, "is a directory", "sidecar directory");
    CHECK(strstr(err.message, ".nbody") != NULL, "message does not name the sidecar: %s",
          err.message);
    rmdir(spath);

    /* writers refuse what they cannot write */
    d.bodies[17].vel[1] = NAN;
    uint8_t *junk;
    size_t junk_len;
    expect_fail(snap_write_tipsy(&d, &junk, &junk_len, &err), &err, "body 17 of 301",
                "writing NaN to tipsy");
    expect_fail(snap_write_sidecar(&d, &junk, &junk_len, &err), &err, "body 17 of 301",
                "writing NaN to the sidecar");
    d.bodies[17].vel[1] = 1e300;
    expect_fail(snap_write_tipsy(&d, &junk, &junk_len, &err), &err, "beyond float range",
                "writing 1e300 to tipsy");

    free(s);
    free(m);
    free(le);
    free(t28);
    free(tip);
    free(side);
    snap_free(&d);
}

/* --- GADGET: a minimal image, for byte-order and label checks ---------------- */

/* Format 2, little-endian, n halo particles with masses in the MASS block;
 * with_ids: an ID block of 8-byte IDs (2^40 + n - 1 - i: above 32 bits,
 * descending) before it. */
static uint8_t *gadget_image_ids(int n, bool with_ids, size_t *len) {
    size_t cap = 16 + 264 + 3 * (16 + 8 + 12 * (size_t)n) + (16 + 8 + 4 * (size_t)n) +
                 (16 + 8 + 8 * (size_t)n);
    uint8_t *p = calloc(1, cap), *q = p;
#define U32(v)                                                                                     \
    (q[0] = (uint8_t)(v), q[1] = (uint8_t)((v) >> 8), q[2] = (uint8_t)((v) >> 16),                 \
     q[3] = (uint8_t)((uint32_t)(v) >> 24), q += 4)
#define LABEL(s, next) (U32(8), memcpy(q, s, 4), q += 4, U32(next), U32(8))
    LABEL("HEAD", 264);
    U32(256);
    uint8_t *h = q;
    h[4] = (uint8_t)n; /* npart[1] */
    q += 256;
    U32(256);
    const char *labels[3] = {"POS ", "VEL ", "MASS"};
    for (int b = 0; b < 3; b++) {
        if (b == 2 && with_ids) {
            const uint32_t bytes = (uint32_t)n * 8u;
            LABEL("ID  ", bytes + 8);
            U32(bytes);
            for (int i = 0; i < n; i++) {
                const uint64_t id = (1ull << 40) + (uint64_t)(n - 1 - i);
                U32((uint32_t)id);
                U32((uint32_t)(id >> 32));
            }
            U32(bytes);
        }
        uint32_t bytes = (uint32_t)n * (b < 2 ? 12u : 4u);
        LABEL(labels[b], bytes + 8);
        U32(bytes);
        for (uint32_t i = 0; i < bytes / 4; i++) {
            float f = b == 2 ? 0.5f : (float)i;
            uint32_t u;
            memcpy(&u, &f, 4);
            U32(u);
        }
        U32(bytes);
    }
#undef U32
#undef LABEL
    *len = (size_t)(q - p);
    return p;
}

static uint8_t *gadget_image(int n, size_t *len) {
    return gadget_image_ids(n, false, len);
}

/* Particle IDs: GADGET's ID block, our sidecar (version 2) and HDF5 keep them. */
static void test_ids(void) {
    size_t len;
    uint8_t *g = gadget_image_ids(5, true, &len);
    snap_data d;
    snap_error err = {0};
    CHECK(snap_read_memory(g, len, "g", &d, &err), "GADGET with IDs: %s", err.message);
    bool ids_ok = d.ids != NULL && d.bodies[4].pos[2] == 14 && d.bodies[3].mass == 0.5;
    for (int i = 0; ids_ok && i < 5; i++) ids_ok = d.ids[i] == (1ull << 40) + (uint64_t)(4 - i);
    CHECK(ids_ok, "GADGET's 8-byte ID block is read as the bodies' IDs");
    snap_free(&d);
    free(g);
    g = gadget_image(5, &len);
    CHECK(snap_read_memory(g, len, "g", &d, &err) && d.ids == NULL,
          "a GADGET file without an ID block has none (file order)");
    snap_free(&d);
    free(g);

    /* Tipsy + sidecar: IDs round-trip through the sidecar (version 2). */
    snap_data s = make_state(41);
    s.ids = malloc(sizeof *s.ids * 41);
    for (int i = 0; i < 41; i++) s.ids[i] = 0xfedcba9876543210ull - 7919ull * (uint64_t)i;
    uint8_t *tipsy, *side;
    size_t tipsy_len, side_len;
    CHECK(snap_write_tipsy(&s, &tipsy, &tipsy_len, &err) &&
              snap_write_sidecar(&s, &side, &side_len, &err),
          "%s", err.message);
    CHECK(side[7] == 2, "a sidecar with IDs is version 2");
    snap_data r;
    CHECK(snap_read_memory_sidecar(tipsy, tipsy_len, side, side_len, "t", &r, &err), "%s",
          err.message);
    int same = r.ids != NULL && r.count == 41;
    for (int i = 0; same && i < 41; i++) same = r.ids[i] == s.ids[i];
    CHECK(same, "tipsy + sidecar: the IDs come back");
    snap_free(&r);
    CHECK(snap_read_memory(tipsy, tipsy_len, "t", &r, &err) && r.ids == NULL,
          "tipsy alone: no IDs (file order)");
    snap_free(&r);
    free(tipsy);
    free(side);

    /* HDF5: ParticleIDs hold the IDs, NbodyIndex the order; both come back. */
    if (snap_hdf5_available()) {
        s.units = (snap_units){.known = true,
                               .length_cm = 3.0856775814913673e21,
                               .mass_g = 1.98841e43,
                               .velocity_cm_s = 2.0738653644138841e7,
                               .hubble = 1};
        uint8_t *buf;
        CHECK(snap_write_hdf5(&s, &buf, &len, &err), "%s", err.message);
        char path[300];
        snprintf(path, sizeof path, "%s/ids.hdf5", dir);
        CHECK(write_file(path, buf, len), "write");
        free(buf);
        CHECK(snap_read_file(path, &r, &err), "%s (%s)", err.message, err.hint);
        same = r.ids != NULL && r.count == 41;
        for (int i = 0; same && i < 41; i++)
            same = r.ids[i] == s.ids[i] && !bodies_differ(&r.bodies[i], &s.bodies[i]);
        CHECK(same, "HDF5: the IDs and the body order come back");
        snap_free(&r);
        unlink(path);
    }
    snap_free(&s);
}

static void test_gadget_small(void) {
    size_t len;
    uint8_t *g = gadget_image(5, &len);
    snap_data d;
    snap_error err = {0};
    CHECK(snap_detect_memory(g, len) == SNAP_FORMAT_GADGET2, "not detected");
    CHECK(snap_read_memory(g, len, "g", &d, &err), "%s", err.message);
    CHECK(d.count == 5 && d.type_counts[1] == 5 && d.bodies[4].pos[2] == 14 &&
              d.bodies[3].mass == 0.5 && d.bodies[0].tag == SNAP_TAG(0, SNAP_COMPONENT_HALO),
          "count %d", d.count);
    snap_free(&d);
    /* wrong byte order inside: the header's count big-endian in a little-endian file */
    uint8_t *m = malloc(len);
    memcpy(m, g, len);
    swap_range(m + 16 + 4 + 4, 4);
    expect_mem_fail(m, len, "POS block has 60 bytes; the header's 83886080 particles",
                    "header count in the wrong byte order");
    memcpy(m, g, len);
    memcpy(m + 16 + 264 + 4, "XYZ ", 4);
    expect_mem_fail(m, len, "no \"POS \" block", "renamed POS block");
    memcpy(m, g, len);
    m[16 + 264 + 8] = 99; /* the POS label's next-block length */
    expect_mem_fail(m, len, "its label says", "label length");
    memcpy(m, g, len);
    m[16 + 4 + 24 + 8 + 7] =
        0x3f; /* PartType1 header mass -> MASS block no longer expected: fine */
    CHECK(snap_read_memory(m, len, "g", &d, &err), "header mass: %s", err.message);
    snap_free(&d);
    memcpy(m, g, len);
    m[16 + 4 + 72 + 7] = 0x7f; /* time = NaN-ish: exponent all ones */
    m[16 + 4 + 72 + 6] = 0xf8;
    expect_mem_fail(m, len, "time is nan", "NaN time");
    memcpy(m, g, len);
    float inf = INFINITY;
    memcpy(m + len - 4 - 4, &inf, 4); /* last mass (little-endian host) */
    expect_mem_fail(m, len, "body 4 of 5 has mass inf", "inf mass");
    free(m);
    free(g);
}

/* --- files that are not files ----------------------------------------------- */

static void test_not_files(void) {
    snap_data d;
    snap_error err = {0};
    expect_fail(snap_read_file(dir, &d, &err), &err, "is a directory", "directory");
    CHECK(snap_detect_file(dir, &err) == SNAP_FORMAT_UNKNOWN, "directory detected");
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    expect_fail(snap_read_file(fifo, &d, &err), &err, "is a FIFO", "FIFO"); /* must not hang */
    unlink(fifo);
    expect_fail(snap_read_file("/dev/null", &d, &err), &err, "is a character device", "device");
    char missing[300];
    snprintf(missing, sizeof missing, "%s/missing.tipsy", dir);
    expect_fail(snap_read_file(missing, &d, &err), &err, "cannot open", "missing file");
    CHECK(strstr(err.message, "missing.tipsy") != NULL, "message lacks the name: %s", err.message);
    expect_fail(snap_read_file("", &d, &err), &err, "no file name", "empty name");

    /* Longer than detection reads: the message gives the file's own size. */
    static uint8_t orphan[11528];
    memcpy(orphan, "NBODYSC\1", 8);
    char orphan_path[300];
    snprintf(orphan_path, sizeof orphan_path, "%s/orphan.nbody", dir);
    CHECK(write_file(orphan_path, orphan, sizeof orphan), "write");
    CHECK(snap_detect_file(orphan_path, &err) == SNAP_FORMAT_UNKNOWN, "a sidecar alone detected");
    CHECK(strstr(err.message, "(11528 bytes, starting 4e 42 4f 44") != NULL,
          "an 11528-byte file's size: %s", err.message);
    expect_fail(snap_read_file(orphan_path, &d, &err), &err, "(11528 bytes", "sidecar alone");
    unlink(orphan_path);

    /* an HDF5 signature with garbage after it */
    uint8_t fake[600] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
    memset(fake + 8, 0xAB, sizeof fake - 8);
    char path[300];
    snprintf(path, sizeof path, "%s/fake.h5", dir);
    CHECK(write_file(path, fake, sizeof fake), "write");
    CHECK(snap_detect_file(path, &err) == SNAP_FORMAT_HDF5, "HDF5 signature not detected");
    expect_fail(snap_read_file(path, &d, &err), &err,
                snap_hdf5_available() ? "cannot open as HDF5" : "HDF5 support is missing",
                "damaged HDF5");
    expect_mem_fail(fake, sizeof fake, "from a file", "HDF5 from memory");
    CHECK(strcmp(snap_format_name(SNAP_FORMAT_GADGET2), "gadget2") == 0 &&
              strcmp(snap_format_name((snap_format)99), "unknown") == 0,
          "format names");
}

/* --- HDF5 round trip ---------------------------------------------------------- */

static void test_hdf5_round_trip(void) {
    snap_data d = make_state(97);
    snap_error err = {0};
    uint8_t *buf;
    size_t len;
    bool ok = snap_write_hdf5(&d, &buf, &len, &err);
    if (!snap_hdf5_available()) {
        expect_fail(ok, &err, "no HDF5 support", "HDF5 writer without HDF5");
        snap_free(&d);
        return;
    }
    expect_fail(ok, &err, "no usable units", "HDF5 without units");
    d.units = (snap_units){.known = true,
                           .length_cm = 3.0856775814913673e21,
                           .mass_g = 1.98841e43,
                           .velocity_cm_s = 2.0738653644138841e7,
                           .hubble = 1,
                           .system = "galaxy units: G = 1, 1 kpc, 1e10 Msun"};
    ok = snap_write_hdf5(&d, &buf, &len, &err);
    CHECK(ok, "%s", err.message);
    char path[300];
    snprintf(path, sizeof path, "%s/save.hdf5", dir);
    CHECK(write_file(path, buf, len), "write");
    CHECK(snap_detect_memory(buf, len) == SNAP_FORMAT_HDF5, "HDF5 not detected");
    snap_data r;
    CHECK(snap_read_file(path, &r, &err), "%s (%s)", err.message, err.hint);
    int bad = r.count != d.count;
    for (int i = 0; !bad && i < d.count; i++) bad += bodies_differ(&d.bodies[i], &r.bodies[i]);
    CHECK(bad == 0, "HDF5 round trip: %d bodies differ", bad);
    CHECK(same_double(r.time, d.time) && r.knobs.valid && r.knobs.steps == d.knobs.steps &&
              same_double(r.knobs.dt, d.knobs.dt) && strcmp(r.knobs.scene, d.knobs.scene) == 0,
          "HDF5 round trip: time or knobs differ");
    CHECK(r.units.known && same_double(r.units.length_cm, d.units.length_cm) &&
              same_double(r.units.mass_g, d.units.mass_g) &&
              same_double(r.units.velocity_cm_s, d.units.velocity_cm_s) && !r.units.comoving &&
              strcmp(r.units.system, d.units.system) == 0,
          "HDF5 round trip: units %g cm %g g %g cm/s comoving %d \"%s\"", r.units.length_cm,
          r.units.mass_g, r.units.velocity_cm_s, r.units.comoving, r.units.system);
    /* The halo is dark matter (PartType1), disk and bulge stars (PartType4),
     * as pynbody and SWIFT number them. */
    int halo = 0;
    for (int i = 0; i < d.count; i++)
        halo += SNAP_TAG_COMPONENT(d.bodies[i].tag) == SNAP_COMPONENT_HALO;
    CHECK(r.type_counts[1] == halo && r.type_counts[4] == d.count - halo && r.type_counts[0] == 0 &&
              r.type_counts[2] == 0 && r.type_counts[3] == 0 && r.type_counts[5] == 0,
          "HDF5 types: %d %d %d %d %d %d, want halo %d in type 1 and %d stars in type 4",
          r.type_counts[0], r.type_counts[1], r.type_counts[2], r.type_counts[3], r.type_counts[4],
          r.type_counts[5], halo, d.count - halo);
    snap_free(&r);
    free(buf);
    /* without knobs (e.g. a foreign file saved again): tags and order still exact */
    d.knobs.valid = false;
    CHECK(snap_write_hdf5(&d, &buf, &len, &err) && write_file(path, buf, len), "%s", err.message);
    CHECK(snap_read_file(path, &r, &err), "%s", err.message);
    bad = r.count != d.count || r.knobs.valid;
    for (int i = 0; !bad && i < d.count; i++) bad += bodies_differ(&d.bodies[i], &r.bodies[i]);
    CHECK(bad == 0, "HDF5 round trip without knobs differs");
    snap_free(&r);
    free(buf);
    d.bodies[3].pos[0] = INFINITY;
    expect_fail(snap_write_hdf5(&d, &buf, &len, &err), &err, "body 3 of 97", "writing inf");
    snap_free(&d);
}

/* --- the independent writer's files ---------------------------------------- */

static int check_manifest(const char *manifest) {
    FILE *f = fopen(manifest, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", manifest);
        return 1;
    }
    char base[512];
    snprintf(base, sizeof base, "%s", manifest);
    char *slash = strrchr(base, '/');
    if (slash)
        slash[1] = '\0';
    else
        base[0] = '\0';
    char line[4096];
    int files = 0;
    while (fgets(line, sizeof line, f)) {
        char kind[8], name[256], fmt[16];
        if (sscanf(line, "%7s %255s", kind, name) != 2) continue;
        char path[800];
        snprintf(path, sizeof path, "%s%s", base, name);
        snap_data d;
        snap_error err = {0};
        if (strcmp(kind, "fail") == 0) {
            const char *want = strstr(line, name) + strlen(name) + 1;
            char text[256];
            snprintf(text, sizeof text, "%s", want);
            text[strcspn(text, "\n")] = '\0';
            if (strstr(name, ".hdf5") && !snap_hdf5_available()) {
                fclose(f);
                return 77;
            }
            expect_fail(snap_read_file(path, &d, &err), &err, text, name);
            files++;
            continue;
        }
        int count, known, comoving, tc[6];
        double time, lcm, mg, vcm, hubble;
        if (sscanf(line, "%*s %*s %15s %d %lf %d %lf %lf %lf %d %lf %d %d %d %d %d %d", fmt, &count,
                   &time, &known, &lcm, &mg, &vcm, &comoving, &hubble, &tc[0], &tc[1], &tc[2],
                   &tc[3], &tc[4], &tc[5]) != 15) {
            fprintf(stderr, "bad manifest line: %s", line);
            fclose(f);
            return 1;
        }
        if (strcmp(fmt, "hdf5") == 0 && !snap_hdf5_available()) {
            printf("test_snap: %s needs HDF5, which this build lacks: skipped\n", name);
            fclose(f);
            return 77;
        }
        bool ok = snap_read_file(path, &d, &err);
        CHECK(ok, "%s: %s (hint: %s)", name, err.message, err.hint);
        files++;
        int bad = 0, worst = -1;
        for (int i = 0; i < count; i++) {
            snap_body want = {0};
            unsigned tag;
            if (!fgets(line, sizeof line, f) ||
                sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %u", &want.pos[0], &want.pos[1],
                       &want.pos[2], &want.vel[0], &want.vel[1], &want.vel[2], &want.mass,
                       &tag) != 8) {
                fprintf(stderr, "bad body line in the manifest for %s\n", name);
                fclose(f);
                return 1;
            }
            want.tag = (uint8_t)tag;
            if (ok && i < d.count && bodies_differ(&want, &d.bodies[i]) && bad++ == 0) worst = i;
        }
        if (!ok) continue;
        CHECK(strcmp(snap_format_name(d.format), fmt) == 0, "%s: format %s", name,
              snap_format_name(d.format));
        CHECK(d.count == count, "%s: %d bodies, expected %d", name, d.count, count);
        CHECK(bad == 0, "%s: %d bodies differ, first %d (x %.9g)", name, bad, worst,
              worst >= 0 ? d.bodies[worst].pos[0] : 0.0);
        CHECK(same_double(d.time, time), "%s: time %.17g, expected %.17g", name, d.time, time);
        CHECK(d.units.known == (known != 0), "%s: units known %d", name, d.units.known);
        if (known)
            CHECK(fabs(d.units.length_cm / lcm - 1) < 1e-12 &&
                      fabs(d.units.mass_g / mg - 1) < 1e-12 &&
                      fabs(d.units.velocity_cm_s / vcm - 1) < 1e-12,
                  "%s: units %g cm %g g %g cm/s", name, d.units.length_cm, d.units.mass_g,
                  d.units.velocity_cm_s);
        CHECK(d.units.comoving == (comoving != 0) && same_double(d.units.hubble, hubble),
              "%s: comoving %d hubble %g", name, d.units.comoving, d.units.hubble);
        for (int t = 0; t < 6; t++)
            CHECK(d.type_counts[t] == tc[t], "%s: type %d count %d, expected %d", name, t,
                  d.type_counts[t], tc[t]);
        snap_free(&d);
    }
    fclose(f);
    CHECK(files > 0, "empty manifest");
    if (test_failures) return test_exit("test_snap");
    printf("test_snap: %d files from the independent writer read back exactly\n", files);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--manifest") == 0) return check_manifest(argv[2]);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/test_snap.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_tipsy_round_trip();
    test_gadget_small();
    test_ids();
    test_not_files();
    test_hdf5_round_trip();
    char path[300];
    snprintf(path, sizeof path, "%s/save.tipsy", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/fake.h5", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/save.hdf5", dir);
    unlink(path);
    rmdir(dir);
    return test_exit("test_snap");
}
