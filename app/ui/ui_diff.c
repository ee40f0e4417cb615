/* ui_diff.c - the code panel's line diff (ui_code_diff, ui.h): which lines
 * of a rung's key lines are new against the rung before. A pure function,
 * tested on its own (tests/test_code_diff.c).
 *
 * The longest common subsequence of the two texts' lines, compared with the
 * spaces at their ends trimmed (a region cut from a deeper block is
 * indented differently, the same line all the same); lines of cur outside
 * it are the added ones. Key lines are a few dozen, so the quadratic table
 * is small (on the stack).
 */
#include <string.h>

#include "ui.h"

#define DIFF_LINES_MAX 128 /* lines of either text compared; any more count as added */

typedef struct diff_line {
    const char *s;
    size_t len;
} diff_line;

/* Splits text at '\n' into at most max trimmed lines; returns how many there are. */
static int split(const char *text, diff_line *out, int max) {
    int count = 0;
    for (const char *p = text; p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *s = p;
        while (len > 0 && (*s == ' ' || *s == '\t')) s++, len--;
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        if (count < max) out[count] = (diff_line){s, len};
        count++;
        p = e ? e + 1 : NULL;
    }
    return count;
}

static bool same(diff_line a, diff_line b) {
    return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

static bool is_gap(diff_line a) {
    return a.len == 3 && memcmp(a.s, "...", 3) == 0;
}

int ui_code_diff(const char *prev, const char *cur, bool *added, int max) {
    static const char empty[] = "";
    diff_line a[DIFF_LINES_MAX], b[DIFF_LINES_MAX];
    const int nb_all = split(cur ? cur : empty, b, DIFF_LINES_MAX);
    for (int i = 0; i < nb_all && i < max; i++) added[i] = false;
    if (!prev || !cur) return nb_all;
    const int na = split(prev, a, DIFF_LINES_MAX);
    const int n = na < DIFF_LINES_MAX ? na : DIFF_LINES_MAX;
    const int m = nb_all < DIFF_LINES_MAX ? nb_all : DIFF_LINES_MAX;
    /* lcs[i][j]: the longest common subsequence of a[i..] and b[j..] (33 KB). */
    unsigned short lcs[DIFF_LINES_MAX + 1][DIFF_LINES_MAX + 1];
    for (int i = n; i >= 0; i--) {
        for (int j = m; j >= 0; j--) {
            if (i == n || j == m) {
                lcs[i][j] = 0;
            } else if (same(a[i], b[j])) {
                lcs[i][j] = (unsigned short)(lcs[i + 1][j + 1] + 1);
            } else {
                lcs[i][j] = lcs[i + 1][j] > lcs[i][j + 1] ? lcs[i + 1][j] : lcs[i][j + 1];
            }
        }
    }
    /* Walk it: a line of cur on the subsequence is kept, any other added. */
    int i = 0, j = 0;
    while (j < m) {
        if (i < n && same(a[i], b[j])) {
            i++, j++;
        } else if (i < n && lcs[i + 1][j] >= lcs[i][j + 1]) {
            i++;
        } else {
            if (j < max) added[j] = !is_gap(b[j]);
            j++;
        }
    }
    for (int k = m; k < nb_all && k < max; k++) added[k] = true;
    return nb_all;
}
