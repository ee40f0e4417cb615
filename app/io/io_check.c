/* io_check.c - the files a command line names, checked before anything
 * runs: outputs writable, --load readable (read whole, so a bad snapshot
 * stops the program before a window opens), --dump's format built in,
 * --frames-dir empty, --encode a folder. config_parse has checked the
 * syntax and the combinations by then.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "io.h"

static bool check_load(const char *load) {
    bool series = false;
    char **list = NULL;
    int count = 0;
    snap_error err = {0};
    if (!io_series_resolve(load, &series, &list, &count, &err)) {
        io_load_error(load, &err);
        return false;
    }
    io_snapshot p;
    const char *first = series ? list[0] : load;
    const bool ok = io_snapshot_read(first, &p, &err);
    if (!ok) io_load_error(first, &err);
    io_snapshot_free(&p);
    io_series_free(list, count);
    return ok;
}

bool io_check_config(const config *c) {
    const struct {
        const char *path, *flag;
    } files[] = {{c->screenshot, "--screenshot"},
                 {c->dump, "--dump"},
                 {c->json, "--json"},
                 {c->status_json, "--status-json"},
                 {c->plot, "--plot"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (files[i].path && !io_check_writable(files[i].path, files[i].flag)) return false;
    }
    if (c->dump && io_dump_format(c->dump) == SNAP_FORMAT_HDF5 && !snap_hdf5_available()) {
        fprintf(stderr,
                "nbody: --dump %s: this nbody was built without HDF5\n"
                "hint: install libhdf5-dev (scripts/install-deps.sh) and rebuild, or dump "
                "FILE.tipsy or FILE.csv\n",
                c->dump);
        return false;
    }
    if (c->load && !check_load(c->load)) return false;
    struct stat st;
    if (c->encode && (stat(c->encode, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "nbody: --encode %s: not a folder\n", c->encode);
        fprintf(stderr, "hint: give the folder that --frames-dir wrote\n");
        return false;
    }
    if (c->record && !io_check_writable(c->record, "--record")) return false;
    if (c->frames_dir && !io_check_frames_dir(c->frames_dir, "--frames-dir")) return false;
    return true;
}
