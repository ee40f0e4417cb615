/* test_snap_fuzz.c - a deterministic mutation fuzz test of snap/'s memory
 * readers (tipsy, GADGET-2, the sidecar).
 *
 * Valid images are built here (tipsy with gas, dark and star particles in
 * both byte orders and both header lengths; GADGET-2 format 1 and 2 in both
 * byte orders, with and without a MASS block, 32/64-bit IDs, an extra block;
 * our sidecar), then each is mutated a few thousand times from a fixed seed:
 * bit flips, bytes set to 0/0xFF/0x7F/0x80, truncations, header counts and
 * record markers set to edge values, ranges duplicated or removed. Every
 * mutant is copied into a buffer of exactly its length (so AddressSanitizer,
 * under which CI runs this, catches any read past the end) and handed to
 * snap_read_memory (the sidecar ones, with their valid tipsy file, to
 * snap_read_memory_sidecar). It passes when nothing crashes, every failure
 * has a message and a hint, and every success holds finite bodies.
 * Usage: test_snap_fuzz [mutations per image] (default 20000).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snap.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            if (failures++ < 20) {                                                                 \
                fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                  \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fprintf(stderr, "\n");                                                             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next(rng *r) { /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}
static size_t below(rng *r, size_t n) {
    return n ? (size_t)(next(r) % n) : 0;
}
static float frand(rng *r) {
    return (float)((next(r) >> 40) / 16777216.0 * 20 - 10);
}

/* A growing byte image with a chosen byte order. */
typedef struct image {
    uint8_t *p;
    size_t len, cap;
    bool big;
    size_t markers[64]; /* offsets of GADGET record markers, for targeted edits */
    int nmarkers;
    size_t counts_at, counts_len; /* where the header's counts are */
} image;

static void put(image *im, const void *src, size_t n) {
    if (im->len + n > im->cap) {
        im->cap = (im->len + n) * 2;
        im->p = realloc(im->p, im->cap);
        if (!im->p) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    memcpy(im->p + im->len, src, n);
    im->len += n;
}
static void put32(image *im, uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; i++) b[im->big ? i : 3 - i] = (uint8_t)(v >> (24 - 8 * i));
    put(im, b, 4);
}
static void put64(image *im, uint64_t v) {
    put32(im, (uint32_t)(im->big ? v >> 32 : v));
    put32(im, (uint32_t)(im->big ? v : v >> 32));
}
static void putf(image *im, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(im, u);
}
static void putd(image *im, double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    put64(im, u);
}

static image tipsy_image(rng *r, int nsph, int ndark, int nstar, bool big, bool pad) {
    image im = {.big = big};
    putd(&im, 1.5);
    im.counts_at = 8;
    im.counts_len = 20;
    const int32_t h[5] = {nsph + ndark + nstar, 3, nsph, ndark, nstar};
    for (int k = 0; k < 5; k++) put32(&im, (uint32_t)h[k]);
    if (pad) put32(&im, 0);
    const int counts[3] = {nsph, ndark, nstar}, floats[3] = {12, 9, 11};
    for (int kind = 0; kind < 3; kind++)
        for (int i = 0; i < counts[kind]; i++) {
            putf(&im, 0.01f + (float)i * 1e-3f);
            for (int f = 1; f < floats[kind]; f++) putf(&im, frand(r));
        }
    return im;
}

/* One record: marker, payload, marker (format 2: preceded by its label record). */
static void record(image *im, int format, const char *label, const image *payload) {
    if (format == 2) {
        im->markers[im->nmarkers++] = im->len;
        put32(im, 8);
        put(im, label, 4);
        put32(im, (uint32_t)payload->len + 8);
        put32(im, 8);
    }
    im->markers[im->nmarkers++] = im->len;
    put32(im, (uint32_t)payload->len);
    put(im, payload->p, payload->len);
    im->markers[im->nmarkers++] = im->len;
    put32(im, (uint32_t)payload->len);
}

static image gadget_image(rng *r, int format, bool big, const int npart[6], const double mass[6],
                          bool id64, bool dbl, bool extra) {
    image im = {.big = big}, h = {.big = big}, b = {.big = big};
    int total = 0;
    for (int t = 0; t < 6; t++) {
        put32(&h, (uint32_t)npart[t]);
        total += npart[t];
    }
    for (int t = 0; t < 6; t++) putd(&h, mass[t]);
    putd(&h, 0.25); /* time */
    putd(&h, 0);    /* redshift */
    put32(&h, 0);
    put32(&h, 0);
    for (int t = 0; t < 6; t++) put32(&h, (uint32_t)npart[t]);
    put32(&h, 0);
    put32(&h, 1); /* num_files */
    while (h.len < 256) put32(&h, 0);
    im.counts_at = format == 2 ? 16 + 4 : 4;
    im.counts_len = 24;
    record(&im, format, "HEAD", &h);
    for (int blk = 0; blk < 2; blk++) {
        b.len = 0;
        for (int i = 0; i < 3 * total; i++) dbl ? putd(&b, frand(r)) : putf(&b, frand(r));
        record(&im, format, blk ? "VEL " : "POS ", &b);
        if (extra && blk == 0 && format == 2) {
            b.len = 0;
            put32(&b, 12345);
            record(&im, format, "XTRA", &b);
        }
    }
    b.len = 0;
    for (int i = 0; i < total; i++) id64 ? put64(&b, (uint64_t)i) : put32(&b, (uint32_t)i);
    record(&im, format, "ID  ", &b);
    b.len = 0;
    for (int t = 0; t < 6; t++)
        for (int i = 0; mass[t] == 0 && i < npart[t]; i++)
            dbl ? putd(&b, 0.001 * (i + 1)) : putf(&b, 0.001f * (float)(i + 1));
    if (b.len) record(&im, format, "MASS", &b);
    free(h.p);
    free(b.p);
    return im;
}

/* --- mutation ------------------------------------------------------------------- */

static const uint32_t edge32[] = {0,          1,          3,          8,
                                  256,        0x7fffffff, 0x80000000, 0xffffffff,
                                  0x00010000, 0x01000000, 0x00000100, 0x08000000};

/* Applies one mutation to buf (capacity cap), returns the new length. */
static size_t mutate(rng *r, uint8_t *buf, size_t len, size_t cap, const image *seed) {
    switch (below(r, 9)) {
    case 0: /* bit flips */
        for (int k = 1 + (int)below(r, 4); k > 0 && len; k--)
            buf[below(r, len)] ^= (uint8_t)(1u << below(r, 8));
        return len;
    case 1: { /* a byte to an edge value */
        static const uint8_t v[4] = {0, 0xff, 0x7f, 0x80};
        if (len) buf[below(r, len)] = v[below(r, 4)];
        return len;
    }
    case 2: /* truncation */
        return below(r, len + 1);
    case 3: /* a header count to an edge value or one off */
    case 4: {
        if (!seed->counts_len || seed->counts_at + seed->counts_len > len) return len;
        size_t at = seed->counts_at + 4 * below(r, seed->counts_len / 4);
        uint32_t v = edge32[below(r, sizeof edge32 / sizeof edge32[0])];
        if (below(r, 2)) { /* one off, in the seed's byte order */
            uint32_t old = seed->big ? (uint32_t)buf[at] << 24 | (uint32_t)buf[at + 1] << 16 |
                                           (uint32_t)buf[at + 2] << 8 | buf[at + 3]
                                     : (uint32_t)buf[at + 3] << 24 | (uint32_t)buf[at + 2] << 16 |
                                           (uint32_t)buf[at + 1] << 8 | buf[at];
            v = old + (below(r, 2) ? 1u : 0xffffffffu);
            for (int i = 0; i < 4; i++)
                buf[at + (seed->big ? (size_t)i : 3 - (size_t)i)] = (uint8_t)(v >> (24 - 8 * i));
        } else
            memcpy(buf + at, &v, 4);
        return len;
    }
    case 5: { /* a record marker (GADGET) or a 4-byte word (others) to an edge value */
        size_t at = seed->nmarkers ? seed->markers[below(r, (size_t)seed->nmarkers)]
                                   : 4 * below(r, len / 4 + 1);
        if (at + 4 > len) return len;
        uint32_t v = edge32[below(r, sizeof edge32 / sizeof edge32[0])];
        if (below(r, 2)) { /* plus or minus a little, either byte order */
            uint32_t old;
            memcpy(&old, buf + at, 4);
            v = old + (uint32_t)below(r, 9) - 4;
        }
        memcpy(buf + at, &v, 4);
        return len;
    }
    case 6: { /* remove a range */
        if (!len) return len;
        size_t a = below(r, len), n = 1 + below(r, len - a);
        if (below(r, 2) && n > 64) n = 1 + below(r, 64);
        memmove(buf + a, buf + a + n, len - a - n);
        return len - n;
    }
    case 7: { /* duplicate a range in place after itself */
        if (!len) return len;
        size_t a = below(r, len), n = 1 + below(r, len - a);
        if (n > cap - len) n = cap - len;
        memmove(buf + a + 2 * n, buf + a + n, len - a - n);
        memcpy(buf + a + n, buf + a, n);
        return len + n;
    }
    default: { /* a float or double to NaN/inf/huge */
        static const uint8_t pat[4][4] = {
            {0x7f, 0xc0, 0, 0}, {0x7f, 0x80, 0, 0}, {0xff, 0x80, 0, 0}, {0x7f, 0x7f, 0xff, 0xff}};
        if (len < 4) return len;
        size_t at = 4 * below(r, len / 4);
        const uint8_t *p = pat[below(r, 4)];
        for (int i = 0; i < 4; i++) buf[at + (seed->big ? (size_t)i : 3 - (size_t)i)] = p[i];
        return len;
    }
    }
}

typedef struct stats {
    long ok, failed;
} stats;

/* Reads one mutant from an exact-size copy; checks the outcome. */
static void try_read(const uint8_t *data, size_t len, const uint8_t *tipsy, size_t tipsy_len,
                     const char *what, long iter, stats *st) {
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memcpy(exact, data, len);
    snap_data d;
    snap_error err = {0};
    bool ok = tipsy ? snap_read_memory_sidecar(tipsy, tipsy_len, exact, len, "fuzz", &d, &err)
                    : snap_read_memory(exact, len, "fuzz", &d, &err);
    if (ok) {
        st->ok++;
        CHECK(d.count > 0 && d.bodies, "%s #%ld: success without bodies", what, iter);
        bool finite = true;
        for (int i = 0; i < d.count; i++)
            for (int a = 0; a < 3; a++)
                finite = finite && isfinite(d.bodies[i].pos[a]) && isfinite(d.bodies[i].vel[a]) &&
                         isfinite(d.bodies[i].mass);
        CHECK(finite, "%s #%ld: success with a non-finite body", what, iter);
        CHECK((size_t)d.count * 12 <= (tipsy ? tipsy_len : len),
              "%s #%ld: %d bodies from %zu bytes", what, iter, d.count, len);
        snap_free(&d);
    } else {
        st->failed++;
        CHECK(err.message[0] && err.hint[0], "%s #%ld: failure without message or hint (\"%s\")",
              what, iter, err.message);
        CHECK(d.count == 0 && d.bodies == NULL, "%s #%ld: output not cleared", what, iter);
    }
    free(exact);
}

static void fuzz(const char *what, const image *seed, const uint8_t *tipsy, size_t tipsy_len,
                 long rounds, uint64_t seed_value) {
    rng r = {seed_value};
    size_t cap = seed->len * 4 + 64;
    uint8_t *buf = malloc(cap);
    stats st = {0};
    /* the unmutated image must read */
    try_read(seed->p, seed->len, tipsy, tipsy_len, what, -1, &st);
    CHECK(st.ok == 1, "%s: the valid image does not read", what);
    for (long i = 0; i < rounds; i++) {
        memcpy(buf, seed->p, seed->len);
        size_t len = seed->len;
        for (int k = 1 + (int)below(&r, 3); k > 0; k--) len = mutate(&r, buf, len, cap, seed);
        try_read(buf, len, tipsy, tipsy_len, what, i, &st);
    }
    printf("%-28s %6ld mutants: %6ld read, %6ld refused\n", what, rounds, st.ok, st.failed);
    free(buf);
}

/* As fuzz, through a file and snap_read_file (HDF5 is read from files only):
 * bit flips, edge bytes and truncations. */
static void fuzz_file(const char *what, const image *seed, long rounds, uint64_t seed_value) {
    const char *tmp = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/test_snap_fuzz_%ld.h5", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    rng r = {seed_value};
    uint8_t *buf = malloc(seed->len);
    stats st = {0};
    for (long i = -1; i < rounds; i++) {
        memcpy(buf, seed->p, seed->len);
        size_t len = seed->len;
        for (int k = i < 0 ? 0 : 1 + (int)below(&r, 3); k > 0; k--) {
            static const uint8_t edge[4] = {0, 0xff, 0x7f, 0x80};
            switch (below(&r, 3)) {
            case 0:
                buf[below(&r, len)] ^= (uint8_t)(1u << below(&r, 8));
                break;
            case 1:
                buf[below(&r, len)] = edge[below(&r, 4)];
                break;
            default:
                len = len > 8 ? 8 + below(&r, len - 8) : len;
                break;
            }
        }
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
            fprintf(stderr, "cannot write %s\n", path);
            exit(1);
        }
        snap_data d;
        snap_error err = {0};
        if (snap_read_file(path, &d, &err)) {
            st.ok++;
            snap_free(&d);
        } else {
            st.failed++;
            CHECK(err.message[0] && err.hint[0], "%s #%ld: failure without message or hint", what,
                  i);
        }
        CHECK(i >= 0 || st.ok == 1, "%s: the valid image does not read (%s)", what, err.message);
    }
    remove(path);
    printf("%-28s %6ld mutants: %6ld read, %6ld refused\n", what, rounds, st.ok, st.failed);
    free(buf);
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
    if (rounds < 1) rounds = 1;
    rng r = {0x5eed5eed5eedull};
    struct {
        const char *name;
        image im;
    } seeds[] = {
        {"tipsy big-endian 32", tipsy_image(&r, 3, 5, 4, true, true)},
        {"tipsy little-endian 28", tipsy_image(&r, 2, 4, 3, false, false)},
        {"gadget1 LE with MASS",
         gadget_image(&r, 1, false, (int[6]){0, 6, 4, 2, 0, 0}, (double[6]){0, 0.01, 0, 0, 0, 0},
                      false, false, false)},
        {"gadget1 BE no MASS, id64",
         gadget_image(&r, 1, true, (int[6]){0, 5, 3, 0, 0, 0}, (double[6]){0, 0.01, 0.02, 0, 0, 0},
                      true, false, false)},
        {"gadget2 LE, extra block",
         gadget_image(&r, 2, false, (int[6]){2, 4, 0, 0, 3, 0}, (double[6]){0, 0.01, 0, 0, 0, 0},
                      true, false, true)},
        {"gadget2 BE double", gadget_image(&r, 2, true, (int[6]){0, 4, 3, 2, 0, 0},
                                           (double[6]){0, 0, 0, 0.03, 0, 0}, false, true, true)},
    };
    int nseeds = (int)(sizeof seeds / sizeof seeds[0]);
    for (int s = 0; s < nseeds; s++)
        fuzz(seeds[s].name, &seeds[s].im, NULL, 0, rounds, 1000 + (uint64_t)s);

    /* the sidecar, against a valid tipsy file of the same state */
    snap_data st = {0};
    st.count = 23;
    st.bodies = calloc(23, sizeof *st.bodies);
    for (int i = 0; i < st.count; i++) {
        for (int a = 0; a < 3; a++) {
            st.bodies[i].pos[a] = frand(&r) / 3.0;
            st.bodies[i].vel[a] = frand(&r) / 7.0;
        }
        st.bodies[i].mass = 0.001 * (i + 1);
        st.bodies[i].tag = SNAP_TAG(i % 2, i % 3);
    }
    st.knobs = (snap_knobs){.valid = true, .scene = "plummer", .dt = 0.01, .theta = 0.5};
    st.units = (snap_units){.known = true,
                            .length_cm = 3.0856775814913673e21,
                            .mass_g = 1.98841e43,
                            .velocity_cm_s = 2.0738653644e7,
                            .hubble = 1,
                            .system = "G = 1 model units"};
    uint8_t *tip, *side;
    size_t tip_len, side_len;
    snap_error err = {0};
    if (!snap_write_tipsy(&st, &tip, &tip_len, &err) ||
        !snap_write_sidecar(&st, &side, &side_len, &err)) {
        fprintf(stderr, "writers failed: %s\n", err.message);
        return 1;
    }
    image sc = {.p = side, .len = side_len, .big = false, .counts_at = 8, .counts_len = 8};
    fuzz("sidecar", &sc, tip, tip_len, rounds, 2000);
    image tp = {.p = tip, .len = tip_len, .big = true, .counts_at = 8, .counts_len = 20};
    fuzz("tipsy from our writer", &tp, NULL, 0, rounds, 3000);

    /* HDF5 goes through libhdf5 from a file: fewer mutants (each is a file). */
    uint8_t *h5;
    size_t h5_len;
    if (snap_hdf5_available()) {
        if (!snap_write_hdf5(&st, &h5, &h5_len, &err)) {
            fprintf(stderr, "HDF5 writer failed: %s\n", err.message);
            return 1;
        }
        image hi = {.p = h5, .len = h5_len};
        fuzz_file("hdf5 (ours)", &hi, rounds / 40 + 1, 4000);
        free(h5);
    }

    for (int s = 0; s < nseeds; s++) free(seeds[s].im.p);
    free(tip);
    free(side);
    snap_free(&st);
    if (failures) {
        fprintf(stderr, "test_snap_fuzz: %d check(s) failed\n", failures);
        return 1;
    }
    printf("test_snap_fuzz: all checks passed\n");
    return 0;
}
