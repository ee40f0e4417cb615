/* snap_hdf5.c - HDF5 snapshots (placeholder until the reader lands). */
#include <hdf5.h>

#include "snap_internal.h"

bool snap_hdf5_available(void) { return true; }

bool snap_hdf5_read(const char *path, snap_data *out, snap_error *err) {
    return snap_fail(err, path, "not yet", "HDF5 reader not yet built");
}

bool snap_write_hdf5(const snap_data *d, uint8_t **buf, size_t *len, snap_error *err) {
    *buf = NULL;
    *len = 0;
    return snap_fail(err, "HDF5 output", "not yet", "HDF5 writer not yet built");
}
