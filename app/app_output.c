/* app_output.c - the files the app writes: PNG (screenshots, F12), CSV
 * (--dump: positions, velocities, masses and the running method's
 * accelerations) and text (--status-json, the benchmark's --json).
 *
 * Every file is written to "<path>.tmp-<pid>" and renamed over <path> only
 * when complete, so a failed write (one that stdio or stb reports) never
 * leaves a half-written file under the name the user asked for. Paths are
 * checked for writability at start-up so a typo fails before minutes of
 * simulation.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stb/stb_image_write.h>

#include "app.h"

static void temp_path(const char *path, char *out, size_t len) {
    snprintf(out, len, "%s.tmp-%ld", path, (long)getpid());
}

static bool fail(const char *what, const char *path, int err) {
    fprintf(stderr, "nbody: cannot write %s %s: %s\n", what, path, strerror(err));
    fprintf(stderr, "hint: check that the folder exists, is writable and has space\n");
    return false;
}

bool app_output_check_writable(const char *path, const char *flag) {
    struct stat st;
    if (path[0] == 0) return fail(flag, "''", ENOENT);
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return fail(flag, path, EISDIR);
    char tmp[4096];
    temp_path(path, tmp, sizeof tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return fail(flag, path, errno);
    close(fd);
    unlink(tmp);
    return true;
}

/* Renames tmp over path, or removes tmp when ok is false. */
static bool commit(const char *tmp, const char *path, bool ok, const char *what, int err) {
    if (ok && rename(tmp, path) == 0) return true;
    if (ok) err = errno;
    unlink(tmp);
    return fail(what, path, err);
}

bool app_output_png(const char *path, int width, int height, const uint8_t *rgba) {
    char tmp[4096];
    temp_path(path, tmp, sizeof tmp);
    errno = 0;
    bool ok = stbi_write_png(tmp, width, height, 4, rgba, width * 4) != 0;
    return commit(tmp, path, ok, "screenshot", errno ? errno : EIO);
}

bool app_output_csv(const char *path, const sim_body *b, int n) {
    char tmp[4096];
    temp_path(path, tmp, sizeof tmp);
    FILE *f = fopen(tmp, "w");
    if (!f) return fail("dump", path, errno);
    bool ok = fprintf(f, "x,y,z,vx,vy,vz,m,ax,ay,az\n") > 0;
    /* %.9g round-trips a float exactly; the CPU backend's doubles are printed
     * at the same precision the GPU holds. The accelerations are the running
     * force method's at the dumped positions. */
    for (int i = 0; ok && i < n; i++) {
        ok = fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g\n", b[i].pos[0],
                     b[i].pos[1], b[i].pos[2], b[i].vel[0], b[i].vel[1], b[i].vel[2], b[i].mass,
                     b[i].acc[0], b[i].acc[1], b[i].acc[2]) > 0;
    }
    int err = errno ? errno : EIO;
    if (fclose(f) != 0) ok = false;
    return commit(tmp, path, ok, "dump", err);
}

bool app_output_text(const char *path, const char *what, const char *text) {
    char tmp[4096];
    temp_path(path, tmp, sizeof tmp);
    FILE *f = fopen(tmp, "w");
    if (!f) return fail(what, path, errno);
    bool ok = fputs(text, f) >= 0;
    int err = errno ? errno : EIO;
    if (fclose(f) != 0) ok = false;
    return commit(tmp, path, ok, what, err);
}

/* Raw bytes (snapshots: tipsy, its sidecar, HDF5), atomically like the rest.
 * A simple version for the snapshot work; the outputs branch has its own. */
bool app_output_bytes(const char *path, const char *what, const void *data, size_t len) {
    char tmp[4096];
    temp_path(path, tmp, sizeof tmp);
    FILE *f = fopen(tmp, "wb");
    if (!f) return fail(what, path, errno);
    errno = 0;
    bool ok = len == 0 || fwrite(data, 1, len, f) == len;
    int err = errno ? errno : EIO;
    if (fclose(f) != 0) {
        if (ok) err = errno ? errno : EIO;
        ok = false;
    }
    return commit(tmp, path, ok, what, err);
}
