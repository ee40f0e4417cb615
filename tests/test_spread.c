/* test_spread.c - the split of the bodies over GPUs with --spread (white
 * box: sim_spread_split, sim/sim_spread.c). No GPU: it runs on the host
 * before the bodies go up.
 *
 * Checks:
 * - stretch k starts at k n / parts (equal counts, to the body), the
 *   stretches hold every body once, each in ascending index.
 * - the stretches follow a Morton curve through the bounding box: along
 *   the order stretch 0, 1, ... no body of a later stretch comes before
 *   one of an earlier (compared here by the most significant differing
 *   bit of the quantized coordinates, not through the code's keys), for a
 *   Plummer sphere of 100,003 unequal masses on 2, 3, 4 and 7 parts.
 * - degenerate: every body on one point (all keys equal: the index order
 *   decides), fewer bodies than parts (empty stretches), a NaN position
 *   (the split stays a permutation), one part (the index order).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_internal.h"
#include "test_util.h"

/* Quantized as sim_spread_split states it: 21 bits an axis in the GPU
 * tree's cube (centred on the bounding box, its longest side enlarged by
 * 2^-20). */
static void quantize(const sim_body *b, int n, unsigned *q) {
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], b[i].pos[a]), hi[a] = fmax(hi[a], b[i].pos[a]);
        }
    }
    double side = 0;
    for (int a = 0; a < 3; a++) side = fmax(side, hi[a] - lo[a]);
    side *= 1.0 + 0x1p-20;
    const double top = (double)((1u << 21) - 1), scale = (double)(1u << 21) / side;
    for (int i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            const double u = floor((b[i].pos[a] - (0.5 * (lo[a] + hi[a]) - 0.5 * side)) * scale);
            q[3 * i + a] = (unsigned)(u > top ? top : u < 0 ? 0 : u);
        }
    }
}

/* Morton order without keys: the axis whose coordinates differ in the
 * most significant bit decides (z over y over x where they tie, as the
 * key interleaves x in its lowest place). */
static int morton_cmp(const unsigned *p, const unsigned *r) {
    int axis = 2;
    unsigned best = 0;
    for (int a = 2; a >= 0; a--) {
        const unsigned d = p[a] ^ r[a];
        if (d > best && (d ^ best) > best) best = d, axis = a; /* a higher top bit */
    }
    return p[axis] < r[axis] ? -1 : p[axis] > r[axis] ? 1 : 0;
}

/* Equal counts, a permutation, ascending within each stretch. */
static void check_shape(const char *what, int n, int parts, const int *index, const int *first) {
    for (int k = 0; k <= parts; k++) {
        CHECK(first[k] == (int)((long long)k * n / parts), "%s: stretch %d starts at %d", what, k,
              first[k]);
    }
    char *seen = calloc((size_t)n + 1, 1);
    int bad = 0;
    for (int j = 0; j < n; j++) {
        const int i = index[j];
        bad += i < 0 || i >= n || seen[i]++;
    }
    CHECK(bad == 0, "%s: %d entries repeat or fall outside the bodies", what, bad);
    int order = 0;
    for (int k = 0; k < parts; k++) {
        for (int j = first[k] + 1; j < first[k + 1]; j++) order += index[j] <= index[j - 1];
    }
    CHECK(order == 0, "%s: %d bodies out of index order within their stretch", what, order);
    free(seen);
}

static void check_plummer(const sim_body *b, int n, int parts) {
    int *index = malloc(sizeof(int) * n), first[SIM_MAX_GPUS + 1];
    uint64_t *keys = malloc(sizeof(uint64_t) * n);
    unsigned *q = malloc(sizeof(unsigned) * 3 * n);
    if (!index || !keys || !q) exit(1);
    sim_spread_split(b, n, parts, keys, index, first);
    char what[64];
    snprintf(what, sizeof what, "Plummer %d on %d", n, parts);
    check_shape(what, n, parts, index, first);
    quantize(b, n, q);
    /* Each stretch's last body in Morton order against the next's first:
     * found by scanning, then compared. */
    int late = 0;
    for (int k = 0; k + 1 < parts; k++) {
        int hi = index[first[k]], lo = index[first[k + 1]];
        for (int j = first[k]; j < first[k + 1]; j++) {
            if (morton_cmp(&q[3 * index[j]], &q[3 * hi]) > 0) hi = index[j];
        }
        for (int j = first[k + 1]; j < first[k + 2]; j++) {
            if (morton_cmp(&q[3 * index[j]], &q[3 * lo]) < 0) lo = index[j];
        }
        late += morton_cmp(&q[3 * hi], &q[3 * lo]) > 0;
    }
    CHECK(late == 0, "%s: %d stretches reach past the next one's start on the curve", what, late);
    free(q);
    free(keys);
    free(index);
}

int main(void) {
    const int n = 100003;
    sim *s = test_sim((sim_desc){.body_count = n, .backend = SIM_BACKEND_CPU, .seed = 11});
    sim_body *b = malloc(sizeof *b * n);
    if (!b) return 1;
    sim_get_bodies(s, b);
    sim_destroy(s);
    unsigned long long seed = 3;
    for (int i = 0; i < n; i++) b[i].mass *= 0.5 + test_uniform(&seed); /* unequal masses */
    const int parts[] = {2, 3, 4, 7};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) check_plummer(b, n, parts[k]);

    int index[16], first[SIM_MAX_GPUS + 1];
    uint64_t keys[16];
    sim_body same[10] = {0};
    for (int i = 0; i < 10; i++) same[i].pos[0] = same[i].pos[1] = same[i].pos[2] = 1.5;
    sim_spread_split(same, 10, 4, keys, index, first);
    check_shape("one point", 10, 4, index, first);
    int moved = 0;
    for (int i = 0; i < 10; i++) moved += index[i] != i;
    CHECK(moved == 0, "one point: equal keys keep the index order (%d moved)", moved);

    sim_spread_split(b, 3, 4, keys, index, first);
    check_shape("3 bodies on 4", 3, 4, index, first);

    b[5].pos[1] = NAN;
    sim_spread_split(b, 16, 3, keys, index, first);
    check_shape("a NaN position", 16, 3, index, first);

    sim_spread_split(b, 16, 1, keys, index, first);
    check_shape("one part", 16, 1, index, first);
    free(b);
    return test_exit("test_spread");
}
