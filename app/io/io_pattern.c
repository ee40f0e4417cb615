/* io_pattern.c - the file-name pattern of --snapshot-every K --dump PATTERN:
 * one zero-padded number (%0Nd, N from 1 to 9), the rest literal ("%%" is
 * a percent sign), e.g. run_%04d.hdf5 -> run_0000.hdf5, run_0001.hdf5, ...
 *
 * The number is zero-padded so the names sort in the order they were
 * written: --load 'run_*.hdf5' plays a series sorted by name. The pattern
 * is read here, never handed to printf.
 */
#include <stdio.h>
#include <string.h>

#include "io.h"

/* The pattern's parts: text before the number, its width, text after (with
 * "%%" still in them). false with why filled. */
static bool parse(const char *pattern, size_t *head, int *width, const char **tail, char *why,
                  size_t len) {
    int found = 0;
    for (const char *c = pattern; *c; c++) {
        if (*c != '%') continue;
        if (c[1] == '%') {
            c++;
            continue;
        }
        if (found++) {
            snprintf(why, len, "it has more than one %% conversion");
            return false;
        }
        *head = (size_t)(c - pattern);
        if (c[1] != '0' || c[2] < '1' || c[2] > '9' || c[3] != 'd') {
            snprintf(why, len,
                     "'%.12s' is not a zero-padded number (%%0Nd, N from 1 to 9, so the names "
                     "sort in order)",
                     c);
            return false;
        }
        *width = c[2] - '0';
        *tail = c + 4;
        c += 3;
    }
    if (!found) {
        snprintf(why, len, "it has no number (%%0Nd) for the files' index");
        return false;
    }
    return true;
}

/* text with "%%" as "%", appended to out at *o; false when out is full. */
static bool literal(const char *text, size_t n, char *out, size_t len, size_t *o) {
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '%' && i + 1 < n && text[i + 1] == '%') i++;
        if (*o + 1 >= len) return false;
        out[(*o)++] = text[i];
    }
    out[*o] = 0;
    return true;
}

bool io_series_pattern_check(const char *pattern, int *width, char *why, size_t len) {
    size_t head = 0;
    const char *tail = NULL;
    if (!parse(pattern, &head, width, &tail, why, len)) return false;
    char first[4096];
    if (!io_series_name(pattern, 0, first, sizeof first)) {
        snprintf(why, len, "the names it makes are too long");
        return false;
    }
    if (io_dump_format(first) == SNAP_FORMAT_UNKNOWN) {
        snprintf(why, len,
                 "it names no snapshot format (.tipsy, .hdf5 or .h5), which playback "
                 "needs");
        return false;
    }
    return true;
}

bool io_series_name(const char *pattern, int index, char *out, size_t len) {
    size_t head = 0, o = 0;
    int width = 0;
    const char *tail = NULL;
    char why[160];
    if (len == 0 || index < 0 || !parse(pattern, &head, &width, &tail, why, sizeof why)) {
        return false;
    }
    char number[16];
    snprintf(number, sizeof number, "%0*d", width, index);
    if ((int)strlen(number) > width) return false; /* past the names the width holds */
    return literal(pattern, head, out, len, &o) && literal(number, strlen(number), out, len, &o) &&
           literal(tail, strlen(tail), out, len, &o);
}

bool io_series_match(const char *pattern, const char *name) {
    size_t head = 0, h = 0, t = 0;
    int width = 0;
    const char *tail = NULL;
    char why[160], head_text[4096], tail_text[4096];
    if (!parse(pattern, &head, &width, &tail, why, sizeof why) ||
        !literal(pattern, head, head_text, sizeof head_text, &h) ||
        !literal(tail, strlen(tail), tail_text, sizeof tail_text, &t) ||
        strlen(name) != h + (size_t)width + t || strncmp(name, head_text, h) != 0 ||
        strcmp(name + h + width, tail_text) != 0) {
        return false;
    }
    for (int i = 0; i < width; i++) {
        if (name[h + i] < '0' || name[h + i] > '9') return false;
    }
    return true;
}

bool io_series_glob(const char *pattern, char *out, size_t len) {
    size_t head = 0, o = 0;
    int width = 0;
    const char *tail = NULL;
    char why[160];
    if (len == 0 || !parse(pattern, &head, &width, &tail, why, sizeof why)) return false;
    return literal(pattern, head, out, len, &o) && literal("*", 1, out, len, &o) &&
           literal(tail, strlen(tail), out, len, &o);
}
