/* snap_gadget.c - GADGET-2 binary snapshots (read only).
 *
 * The file is a sequence of Fortran-style records: a 4-byte length, the data,
 * the same length again. SnapFormat 1 has the records in a fixed order:
 *   HEAD (256 bytes), POS (3 floats per particle), VEL, ID (4 or 8 bytes per
 *   particle), MASS (only for the types whose header mass is 0 and count > 0;
 *   absent when there are none), then gas-only blocks we do not need.
 * SnapFormat 2 puts before each record an 8-byte record holding a 4-character
 * label ("HEAD", "POS ", "VEL ", "ID  ", "MASS", ...) and the length of the
 * next record plus 8, so blocks are found by name.
 * The byte order is the writer's; the first record marker tells it: 256 (the
 * header's length) in format 1, 8 (the label record's) in format 2.
 * Positions and velocities are floats, or doubles in a DOUBLEPRECISION build:
 * the record length says which. Every record marker is checked (begin equals
 * end equals the length the header's counts imply) before anything is
 * allocated, so a count the file cannot hold is refused first.
 *
 * Particle types to our tags: 1 halo, 2 disk, 3 bulge (GADGET-2's galaxy
 * examples), 0 gas and 4 stars disk, 5 (black holes) halo; galaxy 0.
 * The ID block (4- or 8-byte unsigned integers, as the record length says)
 * gives snap_data.ids; a format-2 file without one has none (file order).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "snap_internal.h"

enum { GADGET_HEADER = 256, GADGET_LABEL = 8, GADGET_TYPES = 6 };

typedef struct gadget_header {
    int32_t npart[GADGET_TYPES];
    double mass[GADGET_TYPES];
    double time, redshift;
    uint32_t npart_total[GADGET_TYPES], high_word[GADGET_TYPES];
    int32_t num_files;
    double box, omega0, omega_lambda, hubble;
} gadget_header;

/* A record found in the file: where its data starts and how long it is. */
typedef struct gadget_block {
    bool found;
    size_t offset, length;
} gadget_block;

typedef struct gadget_reader {
    const uint8_t *data;
    const char *name;
    snap_error *err;
    snap_cursor c;
    int format; /* 1 or 2 */
} gadget_reader;

static const char damaged_hint[] =
    "the file is truncated or damaged, or not a GADGET-2 snapshot; copy it again from where it "
    "was written";

bool snap_gadget_detect(const uint8_t *data, size_t len) {
    if (!data || len < 4) return false;
    for (int big = 0; big < 2; big++) {
        uint32_t first = snap_load_u32(data, big);
        if (first == GADGET_HEADER && len >= 8 + GADGET_HEADER &&
            snap_load_u32(data + 4 + GADGET_HEADER, big) == GADGET_HEADER)
            return true;
        if (first == GADGET_LABEL && len >= 16 && memcmp(data + 4, "HEAD", 4) == 0 &&
            snap_load_u32(data + 12, big) == GADGET_LABEL)
            return true;
    }
    return false;
}

/* Reads one record at the cursor: begin marker, data, end marker; checks both
 * markers agree and fit. what names the block for messages. */
static bool record(gadget_reader *r, const char *what, gadget_block *b) {
    size_t at = r->c.pos;
    uint32_t begin, end;
    if (!snap_cur_u32(&r->c, &begin))
        return snap_fail(r->err, r->name, damaged_hint,
                         "truncated GADGET file: the %s block's record marker at byte %zu is "
                         "missing",
                         what, at);
    if (begin > snap_cur_left(&r->c) || snap_cur_left(&r->c) - begin < 4)
        return snap_fail(r->err, r->name, damaged_hint,
                         "truncated GADGET file: the %s block at byte %zu says %u bytes, only %zu "
                         "remain",
                         what, at, begin, snap_cur_left(&r->c));
    b->offset = r->c.pos;
    b->length = begin;
    b->found = true;
    snap_cur_skip(&r->c, begin);
    snap_cur_u32(&r->c, &end);
    if (end != begin)
        return snap_fail(r->err, r->name, damaged_hint,
                         "GADGET %s block at byte %zu: record markers differ (begin %u, end %u)",
                         what, at, begin, end);
    return true;
}

/* Format 2: the 8-byte label record before a block. Fills label (4 chars + NUL)
 * and the length it announces for the next record's data. */
static bool label_record(gadget_reader *r, char label[5], uint32_t *next) {
    size_t at = r->c.pos;
    gadget_block b = {0};
    if (!record(r, "label", &b)) return false;
    if (b.length != GADGET_LABEL)
        return snap_fail(r->err, r->name, damaged_hint,
                         "GADGET format-2 label record at byte %zu has %zu bytes, expected 8", at,
                         b.length);
    memcpy(label, r->data + b.offset, 4);
    label[4] = '\0';
    *next = snap_load_u32(r->data + b.offset + 4, r->c.big);
    for (int i = 0; i < 4; i++)
        if ((unsigned char)label[i] < 0x20 || (unsigned char)label[i] > 0x7e) label[i] = '?';
    return true;
}

static bool parse_header(gadget_reader *r, const gadget_block *b, gadget_header *h) {
    snap_cursor c = {
        .data = r->data, .len = b->offset + b->length, .pos = b->offset, .big = r->c.big};
    bool ok = true;
    for (int t = 0; t < GADGET_TYPES; t++) ok = ok && snap_cur_i32(&c, &h->npart[t]);
    for (int t = 0; t < GADGET_TYPES; t++) ok = ok && snap_cur_f64(&c, &h->mass[t]);
    ok = ok && snap_cur_f64(&c, &h->time) && snap_cur_f64(&c, &h->redshift);
    ok = ok && snap_cur_skip(&c, 8); /* flag_sfr, flag_feedback */
    for (int t = 0; t < GADGET_TYPES; t++) ok = ok && snap_cur_u32(&c, &h->npart_total[t]);
    ok = ok && snap_cur_skip(&c, 4) && snap_cur_i32(&c, &h->num_files); /* after flag_cooling */
    ok = ok && snap_cur_f64(&c, &h->box) && snap_cur_f64(&c, &h->omega0) &&
         snap_cur_f64(&c, &h->omega_lambda) && snap_cur_f64(&c, &h->hubble);
    ok = ok && snap_cur_skip(&c, 8); /* flag_stellarage, flag_metals */
    for (int t = 0; t < GADGET_TYPES; t++) ok = ok && snap_cur_u32(&c, &h->high_word[t]);
    if (!ok) /* cannot happen: the record is 256 bytes */
        return snap_fail(r->err, r->name, damaged_hint, "GADGET header is short");
    for (int t = 0; t < GADGET_TYPES; t++) {
        if (h->npart[t] < 0)
            return snap_fail(r->err, r->name, damaged_hint,
                             "GADGET header: PartType%d count is %d (negative)%s", t, h->npart[t],
                             r->c.big ? "" : "; wrong byte order?");
        if (!isfinite(h->mass[t]) || h->mass[t] < 0)
            return snap_fail(r->err, r->name, damaged_hint, "GADGET header: PartType%d mass is %g",
                             t, h->mass[t]);
    }
    if (!isfinite(h->time))
        return snap_fail(r->err, r->name, damaged_hint, "GADGET header: time is %g", h->time);
    return true;
}

/* The length of a per-particle block: n elements of size 4 (float/int) or 8. */
static bool element_size(gadget_reader *r, const char *what, const gadget_block *b, uint64_t n,
                         unsigned per, unsigned *size) {
    if (b->length == n * per * 4)
        *size = 4;
    else if (b->length == n * per * 8)
        *size = 8;
    else
        return snap_fail(r->err, r->name, damaged_hint,
                         "GADGET %s block has %zu bytes; the header's %llu particles need %llu "
                         "(4-byte) or %llu (8-byte)",
                         what, b->length, (unsigned long long)n, (unsigned long long)(n * per * 4),
                         (unsigned long long)(n * per * 8));
    return true;
}

/* One float or double (size 4 or 8) from c; false past the end of its block. */
static bool cur_real(snap_cursor *c, unsigned size, double *v) {
    if (size == 4) {
        float f;
        if (!snap_cur_f32(c, &f)) return false;
        *v = f;
        return true;
    }
    return snap_cur_f64(c, v);
}

/* A cursor over one block's data only. */
static snap_cursor block_cursor(const gadget_reader *r, const gadget_block *b) {
    return (snap_cursor){
        .data = r->data, .len = b->offset + b->length, .pos = b->offset, .big = r->c.big};
}

bool snap_gadget_read_part(const uint8_t *data, size_t len, const char *name, snap_data *out,
                           int *num_files, snap_error *err) {
    memset(out, 0, sizeof *out);
    *num_files = 1;
    gadget_reader r = {.data = data, .name = name, .err = err};
    r.c = (snap_cursor){.data = data, .len = data ? len : 0};
    if (len < 4) return snap_fail(err, name, damaged_hint, "truncated GADGET file: %zu bytes", len);
    uint32_t le = snap_load_u32(data, false), be = snap_load_u32(data, true);
    r.format = (le == GADGET_LABEL || be == GADGET_LABEL) ? 2 : 1;
    r.c.big = !(le == GADGET_HEADER || le == GADGET_LABEL);
    if (!r.c.big ? (le != GADGET_HEADER && le != GADGET_LABEL)
                 : (be != GADGET_HEADER && be != GADGET_LABEL))
        return snap_fail(err, name, damaged_hint,
                         "not a GADGET-2 file: the first record marker is %u (little-endian), "
                         "expected 256 (format 1) or 8 (format 2)",
                         le);

    /* Header. */
    gadget_block head = {0};
    if (r.format == 2) {
        char label[5];
        uint32_t next;
        if (!label_record(&r, label, &next)) return false;
        if (strcmp(label, "HEAD") != 0)
            return snap_fail(err, name, damaged_hint,
                             "GADGET format-2 file starts with block \"%s\", expected \"HEAD\"",
                             label);
        if (next != GADGET_HEADER + 8)
            return snap_fail(err, name, damaged_hint,
                             "GADGET block \"HEAD\": its label says %u bytes, expected 264", next);
    }
    if (!record(&r, "header", &head)) return false;
    if (head.length != GADGET_HEADER)
        return snap_fail(err, name, damaged_hint,
                         "GADGET header record has %zu bytes, expected 256", head.length);
    gadget_header h;
    if (!parse_header(&r, &head, &h)) return false;
    int64_t total = 0, in_mass_block = 0;
    for (int t = 0; t < GADGET_TYPES; t++) {
        total += h.npart[t];
        if (h.mass[t] == 0) in_mass_block += h.npart[t];
    }
    if (total == 0)
        return snap_fail(err, name, "write the snapshot again from a run with particles",
                         "GADGET header says the file holds no particles");
    if (total > SNAP_MAX_BODIES)
        return snap_fail(err, name, damaged_hint,
                         "GADGET header claims %lld particles, more than %d", (long long)total,
                         SNAP_MAX_BODIES);
    *num_files = h.num_files > 1 ? h.num_files : 1;

    /* Blocks: POS, VEL, ID, MASS (when the header's table leaves masses open). */
    enum { POS, VEL, ID, MASS, NBLOCKS };
    static const char *const names[NBLOCKS] = {"POS", "VEL", "ID", "MASS"};
    static const char *const labels[NBLOCKS] = {"POS ", "VEL ", "ID  ", "MASS"};
    gadget_block blocks[NBLOCKS] = {{0}};
    int wanted = in_mass_block > 0 ? NBLOCKS : MASS;
    if (r.format == 1) {
        for (int k = 0; k < wanted; k++)
            if (!record(&r, names[k], &blocks[k])) return false;
    } else {
        /* Walk the labelled blocks until all we need are found or the file ends. */
        while (snap_cur_left(&r.c) > 0) {
            bool all = true;
            for (int k = 0; k < wanted; k++) all = all && blocks[k].found;
            if (all) break;
            char label[5];
            uint32_t next;
            if (!label_record(&r, label, &next)) return false;
            gadget_block b = {0};
            if (!record(&r, label, &b)) return false;
            if ((uint64_t)b.length + 8 != next)
                return snap_fail(err, name, damaged_hint,
                                 "GADGET block \"%s\": its label says %u bytes, the record has "
                                 "%zu (+8)",
                                 label, next, b.length);
            for (int k = 0; k < NBLOCKS; k++)
                if (strcmp(label, labels[k]) == 0 && !blocks[k].found) blocks[k] = b;
        }
        for (int k = 0; k < wanted; k++)
            if (!blocks[k].found && k != ID)
                return snap_fail(err, name, damaged_hint,
                                 "GADGET format-2 file has no \"%s\" block%s", labels[k],
                                 k == MASS ? " (the header's mass table leaves masses to it)" : "");
    }
    unsigned pos_size = 4, vel_size = 4, id_size = 4, mass_size = 4;
    if (!element_size(&r, "POS", &blocks[POS], (uint64_t)total, 3, &pos_size) ||
        !element_size(&r, "VEL", &blocks[VEL], (uint64_t)total, 3, &vel_size))
        return false;
    if (blocks[ID].found && !element_size(&r, "ID", &blocks[ID], (uint64_t)total, 1, &id_size))
        return false;
    if (in_mass_block > 0 &&
        !element_size(&r, "MASS", &blocks[MASS], (uint64_t)in_mass_block, 1, &mass_size))
        return false;

    /* The POS block's length has now confirmed the count. */
    out->bodies = calloc((size_t)total, sizeof *out->bodies);
    if (!out->bodies)
        return snap_fail(err, name, "free some memory, or load a smaller snapshot",
                         "cannot allocate %lld bodies", (long long)total);
    if (blocks[ID].found && !(out->ids = malloc((size_t)total * sizeof *out->ids))) {
        snap_free(out);
        return snap_fail(err, name, "free some memory, or load a smaller snapshot",
                         "cannot allocate %lld particle IDs", (long long)total);
    }
    out->count = (int)total;
    out->time = h.time;
    out->format = SNAP_FORMAT_GADGET2;
    out->units.comoving = h.omega0 > 0 || h.omega_lambda > 0;
    out->units.hubble = out->units.comoving && isfinite(h.hubble) && h.hubble > 0 ? h.hubble : 1;
    snap_cursor pc = block_cursor(&r, &blocks[POS]), vc = block_cursor(&r, &blocks[VEL]);
    snap_cursor mc = block_cursor(&r, &blocks[MASS]), ic = block_cursor(&r, &blocks[ID]);
    bool ok = true;
    size_t i = 0;
    for (int t = 0; t < GADGET_TYPES; t++) {
        out->type_counts[t] = h.npart[t];
        for (int k = 0; k < h.npart[t]; k++, i++) {
            snap_body *b = &out->bodies[i];
            for (int a = 0; a < 3; a++)
                ok = ok && cur_real(&pc, pos_size, &b->pos[a]) &&
                     cur_real(&vc, vel_size, &b->vel[a]);
            b->mass = h.mass[t];
            if (h.mass[t] == 0) ok = ok && cur_real(&mc, mass_size, &b->mass);
            b->tag = snap_gadget_tag(t);
            if (out->ids) {
                uint32_t id32 = 0;
                if (id_size == 8) ok = ok && snap_cur_u64(&ic, &out->ids[i]);
                else if ((ok = ok && snap_cur_u32(&ic, &id32))) out->ids[i] = id32;
            }
        }
    }
    if (!ok) { /* cannot happen: every block's length was checked against the counts */
        snap_free(out);
        return snap_fail(err, name, damaged_hint, "GADGET blocks shorter than their counts");
    }
    return true;
}

bool snap_gadget_read(const uint8_t *data, size_t len, const char *name, snap_data *out,
                      snap_error *err) {
    int num_files;
    if (!snap_gadget_read_part(data, len, name, out, &num_files, err)) return false;
    if (num_files > 1) {
        int here = out->count;
        snap_free(out);
        return snap_fail(err, name,
                         "load it from its file <base>.<n> (nbody then reads all the numbered "
                         "files), or combine the files into one",
                         "is one file of a %d-file GADGET snapshot (%d particles here)", num_files,
                         here);
    }
    return true;
}
