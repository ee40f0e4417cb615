/* base_number.c - the one way the app reads a number from text, and the
 * one way it writes a real back.
 *
 * Every flag, knob, --script line and environment variable that takes a
 * number parses it here, so a spelling is accepted or refused the same way
 * wherever it is typed. The grammar (base.h, docs/USAGE.md) is decimal and
 * strict: an optional sign, digits with an optional point, an optional
 * exponent, and nothing around it. strtod alone would also take leading
 * spaces, hexadecimal, "inf" and "nan", and strtol a trailing exponent as
 * junk; the text is checked against the grammar first, then converted.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"

/* Every whole number up to 2^53 is a double; beyond, a double rounds. */
#define EXACT_WHOLE 9007199254740992.0

/* Whether s is a number of the grammar; *plain: only a sign and digits. */
static bool well_formed(const char *s, bool *plain) {
    const char *p = s;
    if (*p == '+' || *p == '-') p++;
    size_t digits = strspn(p, "0123456789");
    p += digits;
    *plain = digits > 0;
    if (*p == '.') {
        *plain = false;
        p++;
        const size_t fraction = strspn(p, "0123456789");
        p += fraction;
        digits += fraction;
    }
    if (digits == 0) return false;
    if (*p == 'e' || *p == 'E') {
        *plain = false;
        p++;
        if (*p == '+' || *p == '-') p++;
        const size_t exponent = strspn(p, "0123456789");
        if (exponent == 0) return false;
        p += exponent;
    }
    return *p == 0;
}

/* s (well formed) as a double: RANGE when beyond a double, or when a
 * non-zero number rounds to zero or to a subnormal (glibc reports both as
 * ERANGE); *v is strtod's answer either way. */
static base_number to_double(const char *s, double *v) {
    errno = 0;
    *v = strtod(s, NULL);
    return errno == ERANGE || !isfinite(*v) ? BASE_NUMBER_RANGE : BASE_NUMBER_OK;
}

base_number base_parse_real(const char *s, double *out) {
    bool plain;
    double v;
    if (!s || !well_formed(s, &plain)) return BASE_NUMBER_SYNTAX;
    const base_number r = to_double(s, &v);
    if (r == BASE_NUMBER_OK) *out = v;
    return r;
}

/* A whole number's sign and magnitude, up to 2^64 - 1. */
static base_number whole(const char *s, bool *negative, unsigned long long *magnitude) {
    bool plain;
    if (!s || !well_formed(s, &plain)) return BASE_NUMBER_SYNTAX;
    *negative = s[0] == '-';
    if (plain) { /* exact, whatever the length */
        const char *digits = s + (s[0] == '+' || s[0] == '-');
        errno = 0;
        *magnitude = strtoull(digits, NULL, 10);
        return errno == ERANGE ? BASE_NUMBER_RANGE : BASE_NUMBER_OK;
    }
    double v;
    if (to_double(s, &v) != BASE_NUMBER_OK) {
        return fabs(v) < 1 ? BASE_NUMBER_FRACTION : BASE_NUMBER_RANGE; /* 1e-400, 1e400 */
    }
    if (v != floor(v)) return BASE_NUMBER_FRACTION;
    if (fabs(v) > EXACT_WHOLE) return BASE_NUMBER_INEXACT;
    *magnitude = (unsigned long long)fabs(v);
    return BASE_NUMBER_OK;
}

base_number base_parse_whole(const char *s, long long min, long long max, long long *out) {
    bool negative = false;
    unsigned long long m = 0;
    const base_number r = whole(s, &negative, &m);
    if (r != BASE_NUMBER_OK) return r;
    /* In range of long long first: -m down to LLONG_MIN, m up to LLONG_MAX. */
    if (negative ? m > (unsigned long long)LLONG_MAX + 1 : m > (unsigned long long)LLONG_MAX) {
        return BASE_NUMBER_RANGE;
    }
    const long long v = negative ? (long long)(0 - m) : (long long)m;
    if (v < min || v > max) return BASE_NUMBER_RANGE;
    *out = v;
    return BASE_NUMBER_OK;
}

base_number base_parse_u64(const char *s, uint64_t *out) {
    bool negative = false;
    unsigned long long m = 0;
    const base_number r = whole(s, &negative, &m);
    if (r != BASE_NUMBER_OK) return r;
    if (negative && m != 0) return BASE_NUMBER_RANGE;
    *out = (uint64_t)m;
    return BASE_NUMBER_OK;
}

const char *base_number_problem(base_number r) {
    switch (r) {
    case BASE_NUMBER_OK:
        return "a number";
    case BASE_NUMBER_SYNTAX:
        return "not a number";
    case BASE_NUMBER_FRACTION:
        return "not a whole number";
    case BASE_NUMBER_INEXACT:
        return "past 2^53 with a point or exponent (write its digits)";
    case BASE_NUMBER_RANGE:
        break;
    }
    return "out of range";
}

void base_real_text(double v, char *out, size_t len) {
    int digits = 1;
    while (digits < 17 && isfinite(v)) {
        snprintf(out, len, "%.*g", digits, v);
        if (strtod(out, NULL) == v) break;
        digits++;
    }
    /* A whole number below 10^17 in all its digits: 10, not 1e+01. */
    const double a = fabs(v);
    if (a >= 1 && a < 1e17 && a == floor(a)) {
        const int whole = (int)floor(log10(a)) + 1;
        if (whole > digits) digits = whole;
    }
    snprintf(out, len, "%.*g", digits, v);
}
