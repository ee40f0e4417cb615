/* test_code_diff.c - the code panel's line diff (ui_code_diff, app/ui/ui_diff.c).
 *
 * On small texts whose answer is plain by eye (a changed line, lines
 * inserted and removed, indentation, a "..." join, nothing to compare to),
 * then on the ladder's own key lines (sim_method.code): a rung that changes
 * one idea gets that idea's lines marked and no others - unrolled against
 * tiled is its #pragma alone, rsqrt against soa its rsqrtf line, fast
 * against fma its helper and the line that calls it.
 *
 *     test_code_diff
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "test_check.h"
#include "ui.h"

#define MAX 64

/* The marks as a string of '+' (added) and '.' (kept), one per line. */
static const char *marks(const char *prev, const char *cur) {
    static char out[MAX + 1];
    bool added[MAX];
    const int n = ui_code_diff(prev, cur, added, MAX);
    for (int i = 0; i < n && i < MAX; i++) out[i] = added[i] ? '+' : '.';
    out[n < MAX ? n : MAX] = 0;
    return out;
}

#define EXPECT(prev, cur, want)                                                                    \
    do {                                                                                           \
        const char *got = marks(prev, cur);                                                        \
        CHECK(strcmp(got, want) == 0, "diff of [%s] -> [%s]: %s, want %s", prev ? prev : "NULL",   \
              cur, got, want);                                                                     \
    } while (0)

static void small_texts(void) {
    EXPECT("a\nb\nc", "a\nb\nc", "...");
    EXPECT("a\nb\nc", "a\nB\nc", ".+.");
    EXPECT("a\nc", "a\nb\nc", ".+.");        /* inserted */
    EXPECT("a\nb\nc", "a\nc", "..");         /* removed: nothing to mark */
    EXPECT("    a\n  b", "a\nb", "..");      /* indentation is not a change */
    EXPECT("a b", "a  b", "+");              /* ... but spaces inside a line are */
    EXPECT("x\ny", "a\n...\nb", "+.+");      /* a join is never new */
    EXPECT(NULL, "a\nb", "..");              /* the first rung: nothing marked */
    EXPECT("b\na", "a\nb", ".+");            /* one order kept, one line moved */
    EXPECT("a\na\nb", "a\nb\na\nb", ".+.."); /* repeats matched once each */
    EXPECT("", "a", "+");
    bool added[2];
    CHECK(ui_code_diff("a", "a\nb\nc", added, 2) == 3 && !added[0] && added[1],
          "lines past max are counted, not written");
}

static const char *code_of(sim_variant v) {
    const sim_method *m = sim_method_of(SIM_BACKEND_CUDA, v);
    return m ? m->code : NULL;
}

/* The lines of cur marked against prev, joined by " | ", trimmed. */
static void marked_lines(sim_variant prev, sim_variant cur, char *out, size_t len) {
    bool added[MAX];
    const char *text = code_of(cur);
    const int n = ui_code_diff(code_of(prev), text, added, MAX);
    out[0] = 0;
    const char *p = text;
    for (int i = 0; i < n && i < MAX && p; i++) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        while (l > 0 && *p == ' ') p++, l--;
        if (added[i]) {
            const size_t k = strlen(out);
            snprintf(out + k, len - k, "%s%.*s", k ? " | " : "", (int)l, p);
        }
        p = e ? e + 1 : NULL;
    }
}

static void ladder(void) {
    char got[4096];
    CHECK(code_of(SIM_VARIANT_TILED) && code_of(SIM_VARIANT_UNROLLED), "the rungs have code");
    marked_lines(SIM_VARIANT_TILED, SIM_VARIANT_UNROLLED, got, sizeof got);
    CHECK(strcmp(got, "#pragma unroll 8") == 0, "unrolled vs tiled: [%s]", got);
    marked_lines(SIM_VARIANT_SOA, SIM_VARIANT_RSQRT, got, sizeof got);
    CHECK(strcmp(got, "float dinv = rsqrtf(dsq + eps2);") == 0, "rsqrt vs soa: [%s]", got);
    marked_lines(SIM_VARIANT_FMA, SIM_VARIANT_FAST, got, sizeof got);
    CHECK(strstr(got, "rsqrt_ftz(float x)") && strstr(got, "float dinv = rsqrt_ftz(dsq);") &&
              !strstr(got, "load_tile") && !strstr(got, "scale"),
          "fast vs fma: its helper and the call, nothing of the loop around: [%s]", got);
    marked_lines(SIM_VARIANT_UNROLLED, SIM_VARIANT_NOIF, got, sizeof got);
    CHECK(strstr(got, "for (int k = row; k < row + p; k++) {") && !strstr(got, "__syncthreads") &&
              !strstr(got, "#pragma"),
          "noif vs unrolled: the loop without the branch: [%s]", got);
}

int main(void) {
    small_texts();
    ladder();
    return test_exit("test_code_diff");
}
