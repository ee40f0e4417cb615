/* base.c - the clock, the message line, text and number helpers, and the
 * data folder (base.h).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

double base_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void base_msg_post(base_msg *m, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof m->text, fmt, ap);
    va_end(ap);
    m->until = base_now() + BASE_MSG_SECONDS;
    printf("nbody: %s\n", m->text);
}

void base_msg_show(base_msg *m, double seconds, const char *text) {
    const size_t len = strlen(text), room = sizeof m->text - 1;
    const char *from = len > room ? text + len - room : text;
    memcpy(m->text, from, strlen(from) + 1);
    m->until = base_now() + seconds;
}

bool base_msg_visible(const base_msg *m, double now) {
    return m->text[0] && now < m->until;
}

size_t base_json_string(char *out, size_t len, const char *s) {
    size_t o = 0;
    if (len < 3) return 0;
    out[o++] = '"';
    for (; *s && o + 8 < len; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(out + o, len - o, "\\u%04x", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o++] = '"';
    out[o] = 0;
    return o;
}

void base_commas(long v, char *out, size_t len) {
    char digits[32];
    snprintf(digits, sizeof digits, "%ld", v);
    const size_t n = strlen(digits);
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && digits[i - 1] != '-' && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = 0;
}

const char *base_plural(long n) {
    return n == 1 ? "" : "s";
}

int base_cmp_double(const void *x, const void *y) {
    const double p = *(const double *)x, q = *(const double *)y;
    return (p > q) - (p < q);
}

/* Wirth's selection: partition about v[k], keep the side that holds k. */
float base_kth_float(float *v, ptrdiff_t n, ptrdiff_t k) {
    ptrdiff_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const float x = v[k];
        ptrdiff_t i = lo, j = hi;
        do {
            while (v[i] < x) i++;
            while (x < v[j]) j--;
            if (i <= j) {
                const float t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
    return v[k];
}

static bool readable(const char *dir, const char *name) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

void base_data_dir(const char *source_dir, char *dir, size_t len) {
    const char *probe = "shaders/bodies.vert";
    const char *env = getenv("NBODY_DATA_DIR");
    if (env && readable(env, probe)) {
        snprintf(dir, len, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) *slash = 0;
        const char *candidates[] = {"", "/../share/nbody"};
        for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
            char d[PATH_MAX + 32];
            snprintf(d, sizeof d, "%s%s", exe, candidates[i]);
            if (readable(d, probe) && strlen(d) < len) {
                memcpy(dir, d, strlen(d) + 1);
                return;
            }
        }
    }
    snprintf(dir, len, "%s", source_dir);
}
