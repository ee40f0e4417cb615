/* io_check.c - the files a command line names, checked before anything
 * runs: outputs each to a file of its own, of a format nbody writes and
 * writable (a tipsy dump's sidecar too), --load readable (read whole, so a
 * bad snapshot stops the program before a window opens) and --preset only
 * with a file it applies to, --dump's format built in, --frames-dir empty,
 * --encode a folder. config_parse has checked the syntax and the
 * combinations by then.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "io_internal.h"

/* The extension of path's last part (".png"), or NULL when it has none (a
 * leading dot is a hidden file's, not an extension). */
static const char *extension(const char *path) {
    const char *base = io_base_name(path), *dot = strrchr(base, '.');
    return dot && dot != base ? dot : NULL;
}

/* Whether path's extension is one of exts (NULL-terminated, any case); a
 * name without one, and a stream (stdout, a FIFO, a device), are written
 * whatever their name. false with a message naming flag. */
static bool check_extension(const char *path, const char *flag, const char *const *exts,
                            const char *hint) {
    const char *ext = extension(path);
    if (!ext || io_is_stream(path)) return true;
    for (int i = 0; exts[i]; i++) {
        if (strcasecmp(ext, exts[i]) == 0) return true;
    }
    fprintf(stderr, "nbody: %s %s: %s is not a format nbody writes there\nhint: %s\n", flag, path,
            ext, hint);
    return false;
}

/* --load: readable, and --preset only where it is used: a foreign file
 * runs on the preset's scene, our own save on the scene it was saved in. */
static bool check_load(const config *c) {
    const char *load = c->load;
    bool series = false;
    char **list = NULL;
    int count = 0;
    snap_error err = {0};
    if (!io_series_resolve(load, &series, &list, &count, NULL, &err)) {
        io_load_error(load, &err);
        return false;
    }
    io_snapshot p;
    const char *first = series ? list[0] : load;
    bool ok = io_snapshot_read(first, &p, &err);
    if (!ok) io_load_error(first, &err);
    if (ok && p.own && c->preset && strcmp(c->preset, p.knobs.scene) != 0) {
        fprintf(stderr,
                "nbody: --preset %s does not apply: %s is nbody's own save, which runs on its own "
                "scene (%s)\n"
                "hint: drop --preset (a file without its .nbody sidecar runs on the preset's "
                "scene)\n",
                c->preset, io_base_name(first), p.knobs.scene);
        ok = false;
    }
    io_snapshot_free(&p);
    io_series_free(list, count);
    return ok;
}

/* --snapshot-every K --dump PATTERN: the pattern, and room in its width
 * for the files a run of known length writes (one at the start and one
 * every K frames). Its first file's name goes to *first. */
static bool check_series_pattern(const config *c, char *first, size_t len) {
    int width = 0;
    char why[256];
    if (!io_series_pattern_check(c->dump, &width, why, sizeof why)) {
        fprintf(stderr, "nbody: --dump %s: not a pattern for --snapshot-every: %s\n", c->dump, why);
        fprintf(stderr, "hint: give one zero-padded number and a snapshot format, e.g. --dump "
                        "run_%%04d.hdf5 or out/snap_%%06d.tipsy\n");
        return false;
    }
    const long frames = c->frames > 0 ? c->frames : c->headless ? CONFIG_HEADLESS_FRAMES : 0;
    const long files = frames / c->snapshot_every + 1;
    char last[4096];
    if (frames > 0 && !io_series_name(c->dump, (int)(files - 1), last, sizeof last)) {
        fprintf(stderr,
                "nbody: --dump %s: %d digit%s cannot number the %ld snapshots of %ld "
                "frames every %d\n",
                c->dump, width, base_plural(width), files, frames, c->snapshot_every);
        fprintf(stderr, "hint: a wider number (e.g. %%0%dd) or a larger --snapshot-every\n",
                width + 1 <= 9 ? width + 1 : 9);
        return false;
    }
    return io_series_name(c->dump, 0, first, len);
}

/* One file a run writes: its flag, its name, and whether the name is a
 * --snapshot-every pattern standing for its files. */
typedef struct output {
    const char *flag, *path;
    bool pattern;
    bool sidecar; /* the FILE.nbody beside --dump FILE.tipsy */
} output;

/* Whether x's file (or one of a pattern's files) is y's. */
static bool same_output(const output *x, const output *y, io_same *how) {
    *how = IO_SAME_FILE;
    if (x->pattern && y->pattern) return false; /* one pattern at most, and its sidecar's */
    if (!x->pattern && !y->pattern) return (*how = io_same_output(x->path, y->path)) != 0;
    const output *p = x->pattern ? x : y, *f = x->pattern ? y : x;
    char cp[PATH_MAX + 256], cf[PATH_MAX + 256];
    return io_canonical(p->path, cp, sizeof cp) && io_canonical(f->path, cf, sizeof cf) &&
           io_series_match(cp, cf);
}

/* No two outputs write one file: the later would silently replace the
 * earlier, and both would say "wrote". */
static bool check_distinct(const config *c) {
    char sidecar[PATH_MAX + 16] = "";
    const bool tipsy = c->dump && io_dump_format(c->dump) == SNAP_FORMAT_TIPSY;
    if (tipsy) snprintf(sidecar, sizeof sidecar, "%s%s", c->dump, SNAP_SIDECAR_SUFFIX);
    const bool series = c->snapshot_every > 0;
    const output all[] = {{"--screenshot", c->screenshot, false, false},
                          {"--dump", c->dump, series, false},
                          {"--dump", tipsy ? sidecar : NULL, series, true},
                          {"--status-json", c->status_json, false, false},
                          {"--json", c->json, false, false},
                          {"--plot", c->plot, false, false},
                          {"--record", c->record, false, false}};
    const int count = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < count; i++) {
        for (int j = i + 1; all[i].path && j < count; j++) {
            io_same how;
            if (!all[j].path || !same_output(&all[i], &all[j], &how)) continue;
            const output *x = &all[i], *y = &all[j];
            if (how == IO_SAME_FD) {
                const bool out = !strcmp(x->path, "-") || !strcmp(x->path, "/dev/stdout");
                fprintf(stderr, "nbody: %s and %s both write to %s\n", x->flag, y->flag,
                        out ? "stdout" : x->path);
            } else if (x->pattern || y->pattern) {
                const output *p = x->pattern ? x : y, *f = x->pattern ? y : x;
                fprintf(stderr, "nbody: %s %s is one of the files of --dump %s%s\n", f->flag,
                        f->path, c->dump, p->sidecar ? " (a tipsy file's .nbody sidecar)" : "");
            } else if (x->sidecar || y->sidecar) {
                const output *o = x->sidecar ? y : x;
                fprintf(stderr,
                        "nbody: --dump %s and %s name the same file %s (the tipsy file's "
                        ".nbody sidecar)\n",
                        c->dump, o->flag, o->path);
            } else if (strcmp(x->path, y->path) == 0) {
                fprintf(stderr, "nbody: %s and %s name the same file %s\n", x->flag, y->flag,
                        x->path);
            } else {
                fprintf(stderr, "nbody: %s and %s name the same file (%s and %s)\n", x->flag,
                        y->flag, x->path, y->path);
            }
            fprintf(stderr, "hint: give each output a file of its own\n");
            return false;
        }
    }
    return true;
}

/* A tipsy dump writes its sidecar FILE.nbody beside it (io_snapshot_write):
 * checked like the dump itself, so that a run does not end in a failed
 * write after all its frames. */
static bool check_sidecar(const char *dump) {
    if (io_dump_format(dump) != SNAP_FORMAT_TIPSY) return true;
    char side[PATH_MAX + 8];
    snprintf(side, sizeof side, "%s.nbody", dump);
    struct stat st;
    if (stat(side, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "nbody: --dump %s: its sidecar %s is a folder\n", dump, side);
        fprintf(stderr, "hint: a tipsy dump writes FILE.nbody beside it: move that folder away, "
                        "or dump under another name\n");
        return false;
    }
    return io_check_writable(side, "--dump's sidecar");
}

bool io_check_config(const config *c) {
    char series_first[4096];
    if (c->snapshot_every && !check_series_pattern(c, series_first, sizeof series_first)) {
        return false;
    }
    if (!check_distinct(c)) return false;
    static const char *const png[] = {".png", NULL};
    static const char *const dump[] = {".csv", ".tipsy", ".hdf5", ".h5", NULL};
    if ((c->screenshot && !check_extension(c->screenshot, "--screenshot", png,
                                           "name it .png (screenshots are PNG)")) ||
        (c->plot && !check_extension(c->plot, "--plot", png, "name it .png (the chart is PNG)")) ||
        (c->dump && !c->snapshot_every &&
         !check_extension(c->dump, "--dump", dump,
                          "name it .csv (a table), .tipsy (with its .nbody sidecar), .hdf5 or .h5 "
                          "(a snapshot)"))) {
        return false;
    }
    const struct {
        const char *path, *flag;
    } files[] = {{c->screenshot, "--screenshot"},
                 {c->snapshot_every ? series_first : c->dump, "--dump"},
                 {c->json, "--json"},
                 {c->status_json, "--status-json"},
                 {c->plot, "--plot"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (files[i].path && !io_check_writable(files[i].path, files[i].flag)) return false;
    }
    if (c->dump && !check_sidecar(c->snapshot_every ? series_first : c->dump)) return false;
    if (c->dump && io_dump_format(c->dump) == SNAP_FORMAT_HDF5 && !snap_hdf5_available()) {
        fprintf(stderr,
                "nbody: --dump %s: this nbody was built without HDF5\n"
                "hint: install libhdf5-dev (scripts/install-deps.sh) and rebuild, or dump "
                "FILE.tipsy or FILE.csv\n",
                c->dump);
        return false;
    }
    if (c->load && !check_load(c)) return false;
    struct stat st;
    if (c->encode && (stat(c->encode, &st) != 0 || !S_ISDIR(st.st_mode))) {
        fprintf(stderr, "nbody: --encode %s: not a folder\n", c->encode);
        fprintf(stderr, "hint: give the folder that --frames-dir wrote\n");
        return false;
    }
    if (c->record &&
        !(io_record_check(c->record, "--record") && io_check_writable(c->record, "--record"))) {
        return false;
    }
    if (c->frames_dir && !io_check_frames_dir(c->frames_dir, "--frames-dir")) return false;
    return true;
}
