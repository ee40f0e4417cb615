/* snap_internal.h - what the snap/ readers and writers share: a bounds-checked
 * cursor over a byte image (every read of file data goes through it, so no
 * reader can run past the end), byte-order helpers, and the error helper.
 * Private to snap/.
 */
#ifndef NBODY_SNAP_INTERNAL_H
#define NBODY_SNAP_INTERNAL_H

#include <stdarg.h>
#include <string.h>

#include "snap.h"

/* A read-only window on len bytes; a read past the end fails and sets ok=false. */
typedef struct snap_cursor {
    const uint8_t *data;
    size_t len, pos;
    bool big; /* multi-byte values are big-endian */
} snap_cursor;

bool snap_cur_skip(snap_cursor *c, size_t n);
bool snap_cur_u32(snap_cursor *c, uint32_t *v);
bool snap_cur_i32(snap_cursor *c, int32_t *v);
bool snap_cur_u64(snap_cursor *c, uint64_t *v);
bool snap_cur_f32(snap_cursor *c, float *v);
bool snap_cur_f64(snap_cursor *c, double *v);
bool snap_cur_bytes(snap_cursor *c, void *dst, size_t n);
static inline size_t snap_cur_left(const snap_cursor *c) {
    return c->len - c->pos;
}

uint32_t snap_load_u32(const uint8_t *p, bool big);
uint64_t snap_load_u64(const uint8_t *p, bool big);

/* A growing output buffer; a failed allocation sets failed and later puts do nothing. */
typedef struct snap_out {
    uint8_t *data;
    size_t len, cap;
    bool failed;
    bool big;
} snap_out;

bool snap_out_reserve(snap_out *o, size_t total);
void snap_out_bytes(snap_out *o, const void *src, size_t n);
void snap_out_u32(snap_out *o, uint32_t v);
void snap_out_u64(snap_out *o, uint64_t v);
void snap_out_f32(snap_out *o, float v);
void snap_out_f64(snap_out *o, double v);

/* Fills *err: message "<name>: <what>", hint as given. Returns false. */
bool snap_fail(snap_error *err, const char *name, const char *hint, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* The file name as messages show it: the last 80 characters of long paths. */
const char *snap_short_name(const char *name);

/* Refuses a non-finite or negative-mass body, naming the first bad one (index in the file). */
bool snap_check_bodies(const snap_data *d, const char *name, snap_error *err);

/* The component a file's particle type maps to. */
uint8_t snap_gadget_tag(int type);

/* Readers, each on a whole image; name for messages. */
bool snap_tipsy_read(const uint8_t *data, size_t len, const char *name, snap_data *out,
                     snap_error *err);
bool snap_tipsy_detect(const uint8_t *data, size_t len);
bool snap_sidecar_apply(const uint8_t *data, size_t len, const char *name, snap_data *d,
                        snap_error *err);
bool snap_gadget_read(const uint8_t *data, size_t len, const char *name, snap_data *out,
                      snap_error *err);
bool snap_gadget_detect(const uint8_t *data, size_t len);
/* One file of a GADGET snapshot that may span several (*num_files from its header). */
bool snap_gadget_read_part(const uint8_t *data, size_t len, const char *name, snap_data *out,
                           int *num_files, snap_error *err);
/* One file of an HDF5 snapshot that may span several (*num_files from NumFilesPerSnapshot). */
bool snap_hdf5_read_part(const char *path, snap_data *out, int *num_files, snap_error *err);

#endif /* NBODY_SNAP_INTERNAL_H */
