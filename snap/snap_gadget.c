/* snap_gadget.c - GADGET-2 binary snapshots (placeholder until the reader lands). */
#include "snap_internal.h"

bool snap_gadget_detect(const uint8_t *data, size_t len) { return false; }

bool snap_gadget_read(const uint8_t *data, size_t len, const char *name, snap_data *out,
                      snap_error *err) {
    return snap_fail(err, name, "not yet", "GADGET-2 reader not yet built");
}
