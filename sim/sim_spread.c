/* sim_spread.c - the split of the bodies over GPUs when each keeps only its
 * own (sim_desc.spread).
 *
 * Each GPU's bodies should lie close together, so that the parts of its
 * tree the others need are small (sim_tree_forces_domains): the split cuts
 * a Morton curve through the bodies' bounding box into stretches of equal
 * count. The cut points are found by selecting keys at the ranks k n /
 * parts with four passes of 16-bit histograms (every rank at once), so the
 * split is O(n) in time with no sort, which matters at a billion bodies.
 * Bodies whose key equals a cut point go below it in index order until its
 * rank is reached. The keys are computed on OpenMP's threads where there
 * are many; the passes over them are serial. Pure C: the CPU tests run
 * it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

#define SPREAD_KEY_BITS 21 /* per axis: 63-bit keys */
#define SPREAD_DIGIT 16
#define SPREAD_BUCKETS (1 << SPREAD_DIGIT)

/* p's 63-bit Morton key in the cube whose low corner is lo, `scale` cells
 * of the finest level per unit length. */
static uint64_t morton_key(const double p[3], const double lo[3], double scale) {
    uint64_t key = 0;
    for (int a = 0; a < 3; a++) {
        double u = floor((p[a] - lo[a]) * scale);
        const double top = (double)((1u << SPREAD_KEY_BITS) - 1);
        u = u > 0 ? (u < top ? u : top) : 0; /* NaN goes to 0 */
        key |= sim_morton_spread((uint64_t)u) << a;
    }
    return key;
}

void sim_spread_split(const sim_body *b, int n, int parts, uint64_t *keys, int *index, int *first) {
    if (parts < 1) parts = 1;
    if (parts > SIM_MAX_GPUS) parts = SIM_MAX_GPUS;
    for (int k = 0; k <= parts; k++) first[k] = (int)((long long)k * n / parts);
    if (n <= 0) return;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            if (b[i].pos[a] < lo[a]) lo[a] = b[i].pos[a];
            if (b[i].pos[a] > hi[a]) hi[a] = b[i].pos[a];
        }
    }
    /* The cube the GPU tree takes (sim_tree.cu, root_cube): centred on the
     * box, its longest side a little enlarged, so that the stretches are
     * made of the cells the GPUs' trees will have. */
    double side = 0;
    for (int a = 0; a < 3; a++) {
        if (!isfinite(lo[a]) || !isfinite(hi[a])) lo[a] = hi[a] = 0;
        if (hi[a] - lo[a] > side) side = hi[a] - lo[a];
    }
    side *= 1.0 + 0x1p-20;
    double origin[3];
    for (int a = 0; a < 3; a++) origin[a] = 0.5 * (lo[a] + hi[a]) - 0.5 * side;
    const double scale = side > 0 ? (double)(1u << SPREAD_KEY_BITS) / side : 0.0;
    const bool wide = n >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_PARALLEL_FOR(schedule(static) if (wide))
    for (int i = 0; i < n; i++) keys[i] = morton_key(b[i].pos, origin, scale);

    /* Cut j (1 .. parts - 1) is the key at rank first[j] of the sorted
     * keys: each pass fixes its next 16 bits from a histogram of the keys
     * that share the bits fixed so far. */
    uint64_t cut[SIM_MAX_GPUS] = {0}, mask = 0;
    long long left[SIM_MAX_GPUS]; /* the cut's rank among the keys that share its prefix */
    for (int j = 1; j < parts; j++) left[j] = first[j];
    unsigned *hist = calloc((size_t)(parts > 1 ? parts - 1 : 1) * SPREAD_BUCKETS, sizeof *hist);
    for (int shift = 48; shift >= 0 && parts > 1 && hist; shift -= SPREAD_DIGIT) {
        memset(hist, 0, sizeof *hist * (size_t)(parts - 1) * SPREAD_BUCKETS);
        for (int i = 0; i < n; i++) {
            const uint64_t key = keys[i];
            const unsigned digit = (unsigned)(key >> shift) & (SPREAD_BUCKETS - 1);
            for (int j = 1; j < parts; j++) {
                if ((key & mask) == cut[j]) hist[(size_t)(j - 1) * SPREAD_BUCKETS + digit]++;
            }
        }
        for (int j = 1; j < parts; j++) {
            const unsigned *h = hist + (size_t)(j - 1) * SPREAD_BUCKETS;
            unsigned d = 0;
            while (d + 1 < SPREAD_BUCKETS && left[j] >= (long long)h[d]) left[j] -= h[d++];
            cut[j] |= (uint64_t)d << shift;
        }
        mask |= (uint64_t)(SPREAD_BUCKETS - 1) << shift;
    }
    /* Without scratch for the histograms (out of host memory), equal
     * stretches of the index order: right, only with more sent. */
    if (!hist && parts > 1) {
        for (int i = 0; i < n; i++) index[i] = i;
        return;
    }
    free(hist);

    /* left[j] now counts the keys equal to cut j that go below it. */
    int at[SIM_MAX_GPUS];
    for (int k = 0; k < parts; k++) at[k] = first[k];
    long long below[SIM_MAX_GPUS] = {0};
    for (int i = 0; i < n; i++) {
        const uint64_t key = keys[i];
        int k = 0;
        for (int j = 1; j < parts; j++) {
            bool above = key > cut[j];
            if (key == cut[j]) above = below[j]++ >= left[j];
            k += above;
        }
        index[at[k]++] = i;
    }
}
