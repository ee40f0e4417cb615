/* sim_tree.cu - the GPU Barnes-Hut octree: build and walk, every evaluation.
 *
 * The maths is docs/TREE.md's, shared with the CPU reference tree. Per force
 * evaluation, all on the device, one stream, no host round trip:
 *   1. bounding box: a grid-stride min/max reduction, atomics on
 *      order-preserving integer images of the floats;
 *   2. 63-bit Morton keys (21 bits per axis, z y x), box arithmetic in double;
 *   3. cub::DeviceRadixSort::SortPairs of (key, body index), 63 bits; the
 *      positions are gathered into Morton order (kept for locality);
 *   4. the octree level by level (Bonsai-style, chosen over a Karras radix
 *      tree because docs/TREE.md's cells ARE the key prefixes of each level:
 *      a level pass finds each split cell's children by searching its sorted
 *      range for the 7 digit bounds (a warp per cell at the top levels, a
 *      thread per cell below: split_wide_kernel, split_kernel), so the
 *      structure equals the spec's by construction and no collapse step is
 *      needed). Children of one cell are contiguous and in digit order; a
 *      level's cells get their slots by atomics (one per warp or block), so
 *      slot positions vary run to run but every walk visits children in
 *      digit order, and forces are deterministic;
 *   5. multipoles bottom-up, level by level (leaf: from its bodies; else
 *      from its children by the parallel-axis shift), with r_open^2 =
 *      (side / theta + delta)^2 stored beside the centre of mass, and for the
 *      relative criterion (walk_mac) M side^3 and a bound on the quadrupole's
 *      pull; a massless cell's child entry becomes (0, 0), which the walk
 *      skips;
 *   6. the walk: one warp per group of at most p (32, 64, 128) bodies: a cell
 *      of <= p bodies whose parent has more, or a run of such siblings when
 *      all of the parent's children are that small (split_kernel), so a
 *      group is consecutive in Morton order AND inside one small cell.
 *      (Plain runs of p consecutive bodies were tried first: a run in the
 *      sparse halo spans a box that overlaps the core and opens it down to
 *      its leaves, and the walk was many times slower whatever theta.) A
 *      group of v bodies is held 1, 2 or 4 per lane, the fewest that hold
 *      v (not p / 32: most groups hold fewer than p bodies). The warp pops up to 32 cells at
 *      a time from its stack (global memory), loads each one's multipole
 *      with its opening test against the group's bounding box (theta's, and
 *      with alpha the relative criterion's, walk_mac), and compacts
 *      accepted cells (their multipoles; with alpha, those whose quadrupole
 *      is negligible as monopoles, in a list of their own) and opened leaves
 *      into shared lists that are evaluated 32 at a time by every lane for
 *      its 1 to 4 bodies.
 *      Accelerations go back to the caller's body order, with each body's
 *      potential from the same sums in w when asked (walk_kernel's POT).
 * Launches per evaluation: about 50 (22 split and 22 multipole levels, each
 * returning at once past the tree's depth, so an empty level costs little
 * more than its launch).
 *
 * Capacity: every cell is a leaf (disjoint, non-empty: <= n) or split (> 16
 * bodies, disjoint within a level, 21 levels: <= 21 n / 17), so n + 21 n / 17
 * + 1 cells always fit. Should a split ever find no room, the cell stays a
 * leaf (summed directly: exact, slower). The walk stack holds STACK_CAP
 * entries per warp; a push that would overflow it accepts the cells'
 * multipoles instead (finite, less accurate), counted in `overflow` (on the
 * device; not reported).
 *
 * Counts per body, estimated from the code. Build, bytes of DRAM traffic:
 * box 16; keys 16 in, 12 out; radix sort of 63-bit keys with int values, 8
 * passes of 8-bit digits x (12 in + 12 out) ~ 200; gather 36; split ~25 and
 * multipoles ~60 (a Plummer sphere has about a quarter of a cell per body,
 * and leaves read their bodies twice): ~370 B. The build's levels are bound
 * by latency, not bytes. Walk: a cell interaction (quadrupole) is 32 FP32
 * instructions (1 rsqrt, 3 FADD, 10 FMUL, 18 FFMA: PTX), a monopole ~13,
 * a body interaction ~17; the walk is bound by instruction issue. The measured
 * build and walk, and the interactions per body: docs/PERFORMANCE.md, "The
 * tree".
 *
 * Bodies spread over GPUs (sim_tree_forces_domains, sim_tree_domains_split;
 * docs/TREE.md, "Bodies spread over GPUs"): each GPU's tree of its own
 * bodies in one root cube shared through GPU-to-GPU copies of the boxes,
 * its domain told to the others as boxes around the groups in the cells of
 * a cut through its tree, the part of its tree each other GPU's walk may
 * open sent level by level (a locally essential tree), placed after the
 * receiver's own cells and walked from their roots beside its own.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <vector>

#include "sim_cuda_check.h"
#include "sim_gang.h"
#include "sim_kernels.h"
#include "sim_tree.h"

#define LEAF 16        /* a cell splits while it holds more bodies than this */
#define LEVELS 22      /* levels 0 (root) .. 21 */
#define KEY_BITS 21    /* per axis */
#define STACK_CAP 8192 /* cell indices per warp */
#define WALK_THREADS 128
#define BUILD_THREADS 256

/* Device-side counters of one build, reset at its start. */
struct tree_counters {
    unsigned box_min[3], box_max[3]; /* order-preserving images of floats */
    double origin[3], side;          /* root cube: lower corner and side */
    int level_count[LEVELS];         /* cells per level */
    int leaves;
    int groups;     /* walk groups (cells of <= p bodies whose parent has more) */
    int group_next; /* the walk's work counter */
    int overflow;   /* stack pushes turned into accepts, splits refused */
    int walked; /* bodies whose groups the walk took (n, or a share's: sim_tree_forces) */
    unsigned long long interactions;
    unsigned long long monopoles; /* of those, cells summed as monopoles */
    unsigned long long slots; /* lane slots those took: a group's entries x 32 x bodies per lane */
};

/* Several GPUs (sim_tree_forces_domains). A GPU's domain as the others see
 * it: up to DOMAIN_BOXES boxes, one per cell of a cut through its tree
 * (the cells of at most `most` bodies and no wider than DOMAIN_WIDE times
 * their distance from the tree's centre of mass whose parent is not, and
 * leaves above them, `most` the least of n_own / 1024, n_own / 512, ...
 * n_own / 2 whose cut has at most DOMAIN_BOXES cells: the finer the cut, the
 * smaller the boxes, and the trees of domains in one root cube have long
 * chains of cells above their bodies), each the box of the
 * groups that start in it with those groups' largest 1 / (alpha a_ref)
 * (0: Barnes' test alone), the two things the walk's opening test reads
 * of a group. A cell's bodies lie in its cube, so its box stays small;
 * boxes of equal stretches of the sorted bodies were tried first, and a
 * stretch that jumps across the centre (the Morton curve does between
 * cells) gave a box over the others' cores, which then sent their whole
 * trees. The angle keeps the outskirts' few bodies out of one box: a wide
 * cell there reaches in towards the centre while its outer groups, whose
 * |a| is small, give it a large 1 / (alpha a_ref), and the others then
 * opened their trees near it as deep as the outer groups would far out.
 * A cut of more cells than DOMAIN_BOXES becomes one box around the
 * whole domain (right, but the others send more). */
#define DOMAIN_BOXES 1024
#define DOMAIN_SAMPLES 1024 /* keys each GPU samples for the splitters (sim_tree_domains_split) */
#define DOMAIN_CUTS 10      /* the cuts tried: at most n_own >> (DOMAIN_CUTS - j) bodies a cell */
#define DOMAIN_WIDE 1.0f    /* a cut's cell: side over distance from the tree's mass, at most */
struct tree_domain {
    float lo[3], hi[3];
    float inv_aa;
    int boxes; /* in box 0: how many boxes the domain has */
};

/* A box being gathered: order-preserving images of its floats and the
 * float bits of its inv_aa (positive floats order as integers). */
struct box_image {
    unsigned lo[3], hi[3], inv_aa, pad;
};

/* The part of this GPU's tree that one other GPU's walk needs (a locally
 * essential tree), cells in breadth-first order so that children stay
 * contiguous: child as in cell_child but relative to this tree, (-1, 1)
 * for a cell every group there accepts (its children are not sent); src:
 * the cell of this GPU's tree each came from; body: the bodies of the
 * leaves sent. */
struct let_buf {
    int2 *child;
    float4 *com, *q0, *q1;
    float2 *err;
    int *src;
    float4 *body;
    int cell_cap, body_cap;
};

/* Bytes a cell of a let_buf takes on the way (child, com, q0, q1, err). */
#define LET_CELL_BYTES (sizeof(int2) + 3 * sizeof(float4) + sizeof(float2))

/* A let_buf's fill: cells and bodies taken, and the level being sent
 * (cells [begin, end)). */
struct let_count {
    int cells, bodies, begin, end;
};

struct sim_tree {
    sim_fault *fault; /* the backend's (sim_cuda_check.h) */
    int sm_count;
    int capacity, cell_capacity, walk_warps;
    unsigned long long *keys[2];
    int *idx[2];
    void *sort_temp;
    size_t sort_temp_bytes;
    float4 *spos;              /* positions in Morton order */
    int *sidx;                 /* caller's index of each sorted body (points into idx[]) */
    int2 *cell_range;          /* sorted bodies [begin, end) */
    int2 *cell_child;          /* split: (first child, count); leaf: (begin, -count) */
    float4 *cell_geo;          /* geometric centre, half side */
    float4 *cell_com;          /* centre of mass, r_open^2 */
    float4 *cell_q0, *cell_q1; /* (M, qxx, qyy, qzz), (qxy, qxz, qyz, sum m |y|^2) */
    float2 *cell_err;          /* the relative criterion's error scales: M side^3 (the octupole the
                                  quadrupoles leave out), and a bound on the quadrupole's own pull
                                  times d^4 (what a monopole would leave out) */
    int2 *group;               /* walk groups: sorted bodies [begin, end) */
    int *stack;
    tree_counters *ctr;      /* device */
    tree_counters *host_ctr; /* pinned, filled asynchronously */
    cudaEvent_t ev[4];       /* start, built, walked, stats copied */
    bool pending, built;
    long long evaluations, timed_evaluation; /* started; the one ev[] times */
    sim_tree_stats stats;
    /* Several GPUs (sim_tree_forces_domains); allocated on first use. */
    tree_counters *host_build; /* pinned: the counters once the tree is built */
    box_image *boxes;          /* this GPU's domain being gathered (DOMAIN_BOXES) */
    int2 *cut;                 /* the cut's cells (their sorted bodies), DOMAIN_BOXES */
    int *cut_count;            /* how many (device); then the tries' counts (cut_count_kernel) */
    tree_domain *doms, *host_doms; /* every GPU's domain, DOMAIN_BOXES each (device, pinned) */
    let_buf let[SIM_MAX_GPUS];     /* what goes to each other GPU (host copy of the pointers) */
    let_buf *let_dev;              /* the same on the device */
    let_count *let_cnt, *host_let_cnt;
    int *roots, *host_roots; /* the imported trees' roots (device, pinned) */
    unsigned *boxes_all;     /* every GPU's box (6 images each), for the common cube */
    unsigned long long *samples, *host_samples; /* sim_tree_domains_split: this GPU's key sample */
    float4 *sample_pos; /* ... the positions it is taken from: the last tree's sorted bodies */
    bool sample_ready;  /* ... sample_pos holds them (else the split samples the keys) */
    unsigned long long *splits; /* ... the splitters, count + 1 (device) */
    int *dest_counts, *host_dest_counts; /* ... how many of its bodies go to each GPU */
    int *selected;              /* ... DeviceSelect's counts: leavers, movers, holes (device) */
    cudaEvent_t box_ready;                      /* this GPU's box sent to every GPU */
    int n_own, own_cells;           /* this GPU's bodies and its tree's cells, this evaluation */
    double sent_mb, sent_share_max; /* what it sent, for the timed evaluation's stats */
    int domain_boxes;               /* ... and its domain's boxes */
};

/* ------------------------------------------------------------------------ */
/* Build kernels. */

static __device__ unsigned float_order(float f) {
    const unsigned u = __float_as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

static __device__ float order_float(unsigned u) {
    return __uint_as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u);
}

/* The bounding box of the warp's points: every lane ends with the warp's
 * lo and hi (a butterfly of shuffles). */
static __device__ __forceinline__ void warp_box(float lo[3], float hi[3]) {
    for (int k = 0; k < 3; k++) {
        for (int o = 16; o > 0; o >>= 1) {
            lo[k] = fminf(lo[k], __shfl_xor_sync(0xffffffffu, lo[k], o));
            hi[k] = fmaxf(hi[k], __shfl_xor_sync(0xffffffffu, hi[k], o));
        }
    }
}

__global__ void box_kernel(int n, const float4 *pos, unsigned *box_min, unsigned *box_max) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float4 p = pos[i];
        lo[0] = fminf(lo[0], p.x), hi[0] = fmaxf(hi[0], p.x);
        lo[1] = fminf(lo[1], p.y), hi[1] = fmaxf(hi[1], p.y);
        lo[2] = fminf(lo[2], p.z), hi[2] = fmaxf(hi[2], p.z);
    }
    warp_box(lo, hi);
    /* Then across the block's warps, so that only one thread per block
     * takes the 6 atomics (one thread per warp serialised them). */
    __shared__ float sh[6][BUILD_THREADS / 32];
    const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if ((threadIdx.x & 31) == 0) {
        for (int k = 0; k < 3; k++) sh[k][warp] = lo[k], sh[3 + k][warp] = hi[k];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < warps; w++) {
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], sh[k][w]);
                hi[k] = fmaxf(hi[k], sh[3 + k][w]);
            }
        }
        for (int k = 0; k < 3; k++) {
            atomicMin(&box_min[k], float_order(lo[k]));
            atomicMax(&box_max[k], float_order(hi[k]));
        }
    }
}

/* Spreads the low 21 bits of v to every third bit. */
static __device__ unsigned long long spread3(unsigned long long v) {
    v &= 0x1fffffull;
    v = (v | v << 32) & 0x1f00000000ffffull;
    v = (v | v << 16) & 0x1f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

static __device__ unsigned compact3(unsigned long long v) {
    v &= 0x1249249249249249ull;
    v = (v ^ (v >> 2)) & 0x10c30c30c30c30c3ull;
    v = (v ^ (v >> 4)) & 0x100f00f00f00f00full;
    v = (v ^ (v >> 8)) & 0x1f0000ff0000ffull;
    v = (v ^ (v >> 16)) & 0x1f00000000ffffull;
    v = (v ^ (v >> 32)) & 0x1fffffull;
    return (unsigned)v;
}

/* The root cube of docs/TREE.md from the box (every thread, in double). */
static __device__ void root_cube(const tree_counters *ctr, double origin[3], double *side) {
    double lo[3], hi[3], l = 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = order_float(ctr->box_min[k]);
        hi[k] = order_float(ctr->box_max[k]);
        l = fmax(l, hi[k] - lo[k]);
    }
    l *= 1.0 + 0x1p-20;
    if (!(l > 0) || !isfinite(l)) l = 1.0;
    for (int k = 0; k < 3; k++) origin[k] = 0.5 * (lo[k] + hi[k]) - 0.5 * l;
    *side = l;
}

/* The Morton key of p in the cube at origin, 2^21 / side per unit. */
static __device__ unsigned long long key_at(const float4 p, const double origin[3], double scale) {
    const double x[3] = {p.x, p.y, p.z};
    unsigned long long key = 0;
    for (int k = 0; k < 3; k++) {
        double u = floor((x[k] - origin[k]) * scale);
        u = fmin(fmax(u, 0.0), 2097151.0); /* fmax drops a NaN: 0 */
        key |= spread3((unsigned long long)u) << k;
    }
    return key;
}

__global__ void keys_kernel(int n, const float4 *pos, tree_counters *ctr, unsigned long long *keys,
                            int *idx) {
    double origin[3], side;
    root_cube(ctr, origin, &side);
    const double scale = 2097152.0 / side; /* 2^21 */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        for (int k = 0; k < 3; k++) ctr->origin[k] = origin[k];
        ctr->side = side;
    }
    if (i >= n) return;
    keys[i] = key_at(pos[i], origin, scale);
    idx[i] = i;
}

__global__ void gather_kernel(int n, const float4 *pos, const int *sidx, float4 *spos,
                              int2 *cell_range, tree_counters *ctr) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        cell_range[0] = make_int2(0, n);
        ctr->level_count[0] = 1;
    }
    if (i < n) spos[i] = pos[sidx[i]];
}

/* The same bounds as warp_digit_bounds (below) found by one thread, for
 * the many small cells of the deeper levels. The 7 binary searches run in
 * lockstep, 7 independent loads per step: one after the other they would
 * be a chain of 7 log2(e - b) dependent loads, which measured slower. A
 * search of [b, e) ends within floor(log2(e - b)) + 1 halvings. */
static __device__ void thread_digit_bounds(const unsigned long long *keys, int b, int e, int shift,
                                           int bound[9]) {
    int lo[8], hi[8];
#pragma unroll
    for (int d = 1; d < 8; d++) lo[d] = b, hi[d] = e;
    const int steps = 32 - __clz(e - b);
    for (int it = 0; it < steps; it++) {
        /* Every load unconditional (a finished search reads a valid index
         * and ignores it), so the 7 are issued before the first is used. */
        int m[8];
        unsigned long long k[8];
#pragma unroll
        for (int d = 1; d < 8; d++) {
            m[d] = min((lo[d] + hi[d]) >> 1, e - 1);
            k[d] = __ldg(&keys[m[d]]);
        }
#pragma unroll
        for (int d = 1; d < 8; d++) {
            const bool active = lo[d] < hi[d];
            const bool below = ((k[d] >> shift) & 7u) < (unsigned)d;
            lo[d] = active && below ? m[d] + 1 : lo[d];
            hi[d] = active && !below ? m[d] : hi[d];
        }
    }
    bound[0] = b;
#pragma unroll
    for (int d = 1; d < 8; d++) bound[d] = lo[d];
    bound[8] = e;
}

/* Cells of up to this many bodies count their children's digits. */
#define COUNT_DIGITS_MAX 256

/* bound[d] = the first index in [b, e) whose level-(l+1) digit is >= d, for
 * d = 1 .. 7 (bound[0] = b, bound[8] = e), found by the whole warp (every
 * lane gets the same bounds). The digits of a cell's sorted keys rise: a
 * small cell counts them; a larger one runs 7 32-way searches, every lane
 * testing one of 32 points spread over the interval still open and a
 * ballot finding the first that passed, so that the interval shrinks 32
 * times a round (4 rounds for a million bodies where one thread's binary
 * search took 20 rounds of dependent loads). */
static __device__ void warp_digit_bounds(const unsigned long long *keys, int b, int e, int shift,
                                         int lane, int bound[9]) {
    bound[0] = b;
    bound[8] = e;
    if (e - b <= COUNT_DIGITS_MAX) {
        /* A small cell: its keys read once, 32 at a time (coalesced), and
         * the bound of d is b + the number of digits below d. */
        int below[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int base = b; base < e; base += 32) {
            const int i = base + lane;
            const unsigned digit = i < e ? (unsigned)((__ldg(&keys[i]) >> shift) & 7u) : 8u;
#pragma unroll
            for (int d = 1; d < 8; d++) {
                below[d] += __popc(__ballot_sync(0xffffffffu, digit < (unsigned)d));
            }
        }
#pragma unroll
        for (int d = 1; d < 8; d++) bound[d] = b + below[d];
        return;
    }
    /* Invariant: the bound of d lies in [lo[d], hi[d]] (e when no key has
     * a digit >= d). */
    int lo[8], hi[8];
#pragma unroll
    for (int d = 1; d < 8; d++) lo[d] = b, hi[d] = e;
    for (;;) {
        bool open = false;
#pragma unroll
        for (int d = 1; d < 8; d++) open = open || lo[d] < hi[d];
        if (!open) break; /* the same in every lane */
        int q[8];
        bool pass[8];
#pragma unroll
        for (int d = 1; d < 8; d++) { /* lane j's point; lane 31's is hi, which passes */
            q[d] = lo[d] + (int)(((long long)(lane + 1) * (hi[d] - lo[d])) >> 5);
            pass[d] = q[d] >= hi[d] || ((__ldg(&keys[q[d]]) >> shift) & 7u) >= (unsigned)d;
        }
#pragma unroll
        for (int d = 1; d < 8; d++) {
            const int first = __ffs(__ballot_sync(0xffffffffu, pass[d])) - 1;
            const int at = __shfl_sync(0xffffffffu, q[d], first);
            const int before = __shfl_sync(0xffffffffu, q[d], first > 0 ? first - 1 : 0);
            lo[d] = first > 0 ? before + 1 : lo[d];
            hi[d] = at;
        }
    }
#pragma unroll
    for (int d = 1; d < 8; d++) bound[d] = lo[d];
}

/* The first cell slot of level l: the cells of the levels above come first
 * (the counts live on the device only). */
static __device__ int level_first(const tree_counters *ctr, int l) {
    int s = 0;
    for (int k = 0; k < l; k++) s += ctr->level_count[k];
    return s;
}

/* Group k of those from slot on: written unless group is NULL (counting). */
static __device__ __forceinline__ void put_group(int2 *group, int slot, int &k, int b, int e) {
    if (group) group[slot + k] = make_int2(b, e);
    k++;
}

/* The walk groups a cell of level l with sorted bodies r contributes (see
 * split_kernel): counted when group is NULL, else written from slot on.
 * Returns how many. */
static __device__ int cell_groups(int l, int2 r, bool leaf, const int bound[9], int gsize,
                                  int2 *group, int slot) {
    int k = 0;
    if (l == 0 && r.y - r.x <= gsize) put_group(group, slot, k, r.x, r.y);
    if (leaf) {
        for (int b = r.x; r.y - r.x > gsize && b < r.y; b += gsize) {
            put_group(group, slot, k, b, min(b + gsize, r.y));
        }
    } else if (r.y - r.x > gsize) { /* else already inside a group */
        bool all_small = true;
        for (int d = 0; d < 8; d++) all_small = all_small && bound[d + 1] - bound[d] <= gsize;
        int pb = -1, pe = -1; /* a run of small siblings */
        for (int d = 0; d < 8; d++) {
            const int cb = bound[d], ce = bound[d + 1];
            if (ce == cb) continue;
            if (ce - cb > gsize) { /* split further: its own groups */
                if (pb >= 0) put_group(group, slot, k, pb, pe);
                pb = -1;
            } else if (pb >= 0 && all_small && ce - pb <= gsize) {
                pe = ce; /* adjacent in Morton order: packed together */
            } else {
                if (pb >= 0) put_group(group, slot, k, pb, pe);
                pb = cb, pe = ce;
            }
        }
        if (pb >= 0) put_group(group, slot, k, pb, pe);
    }
    return k;
}

#define SPLIT_WARPS (BUILD_THREADS / 32)

/* Writes cell `cell` of level l (sorted bodies r) once its slots are known:
 * its geometry, its children's ranges from `first` on (split) or its
 * bodies (leaf), and its ngr walk groups from `slot` on. Returns whether
 * it ended a leaf. */
static __device__ bool finish_cell(int l, int cell, int2 r, bool leaf, int nch, int ngr,
                                   const int bound[9], int first, int slot,
                                   const unsigned long long *keys, int2 *cell_range,
                                   int2 *cell_child, float4 *cell_geo, int cell_capacity,
                                   int gsize, int2 *group, tree_counters *ctr) {
    const double half = ctr->side / (double)(2 << l);
    const unsigned long long key = keys[r.x];
    const int drop = KEY_BITS - l;
    float g[3];
    for (int k = 0; k < 3; k++) {
        const unsigned u = l == 0 ? 0u : compact3(key >> k) >> drop;
        g[k] = (float)(ctr->origin[k] + (2.0 * u + 1.0) * half);
    }
    cell_geo[cell] = make_float4(g[0], g[1], g[2], (float)half);
    if (!leaf && first + nch > cell_capacity) {
        /* No room (cannot happen: see Capacity above): summed directly. Its
         * group slots become empty groups, for which the walk writes
         * nothing, and a leaf of more than gsize bodies takes its runs on
         * its own. */
        atomicAdd(&ctr->overflow, 1);
        for (int k = 0; k < ngr; k++) group[slot + k] = make_int2(r.x, r.x);
        leaf = true;
        const int runs = cell_groups(l, r, true, bound, gsize, NULL, 0);
        slot = runs > 0 ? atomicAdd(&ctr->groups, runs) : 0;
    }
    if (!leaf) {
        int k = first;
        for (int d = 0; d < 8; d++) {
            if (bound[d + 1] > bound[d]) cell_range[k++] = make_int2(bound[d], bound[d + 1]);
        }
        cell_child[cell] = make_int2(first, nch);
    } else {
        cell_child[cell] = make_int2(r.x, -(r.y - r.x));
    }
    cell_groups(l, r, leaf, bound, gsize, group, slot);
    return leaf;
}

/* What cell c of level l (cell slot `cell`) becomes, before any slot is
 * taken: a leaf or split (with its children's digit bounds and count),
 * and how many walk groups it adds (cell_groups). WIDE: the whole warp
 * works on this one cell; else each thread on its own. */
template <bool WIDE>
static __device__ void plan_cell(int l, int cell, const unsigned long long *keys,
                                 const int2 *cell_range, int gsize, int lane, int2 &r, bool &leaf,
                                 int bound[9], int &nch, int &ngr) {
    r = cell_range[cell];
    leaf = r.y - r.x <= LEAF || l >= KEY_BITS;
    if (!leaf) {
        const int shift = 3 * (KEY_BITS - 1 - l);
        if (WIDE) {
            warp_digit_bounds(keys, r.x, r.y, shift, lane, bound);
        } else {
            thread_digit_bounds(keys, r.x, r.y, shift, bound);
        }
        for (int d = 0; d < 8; d++) nch += bound[d + 1] > bound[d];
    }
    ngr = cell_groups(l, r, leaf, bound, gsize, NULL, 0);
}

/* Splits the cells of level l into children (level l + 1) and writes their
 * geometry and the walk groups: the root when it holds <= gsize bodies;
 * children of <= gsize bodies of a cell with more, consecutive siblings
 * packed together while the run holds <= gsize when every child of the
 * parent is that small (so lanes are not left idle; the group's box stays
 * inside a parent of <= 8 gsize bodies: packing siblings beside a dense
 * child made boxes that overlap it, which the walk then opens); and a
 * leaf of more (level 21) cut into runs of gsize. Every body is in exactly
 * one group.
 *
 * Two kernels do it: split_wide_kernel, a warp per cell, for the top
 * levels' few large cells, and split_kernel, a thread per cell, for the
 * many small ones below (sim_tree_forces picks by level). Both take their
 * slots (children, groups, leaves) with one atomic per counter for many
 * cells, where one per cell on the same three counters queued. */
__global__ void split_wide_kernel(int l, const unsigned long long *keys, int2 *cell_range,
                                  int2 *cell_child, float4 *cell_geo, int cell_capacity,
                                  int gsize, int2 *group, tree_counters *ctr) {
    const int count = ctr->level_count[l];
    if (count == 0) return;
    const int start = level_first(ctr, l), next = start + count;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __shared__ int s_children[SPLIT_WARPS], s_groups[SPLIT_WARPS], s_leaves, s_base[2];
    /* Rounds of SPLIT_WARPS cells per block: the same trip count for every
     * thread of the block, so that it can synchronise. */
    for (int c0 = blockIdx.x * SPLIT_WARPS; c0 < count; c0 += gridDim.x * SPLIT_WARPS) {
        const int c = c0 + warp, cell = start + c;
        const bool have = c < count; /* the same for the whole warp */
        int2 r = make_int2(0, 0);
        bool leaf = true;
        int bound[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, nch = 0, ngr = 0;
        if (have) {
            plan_cell<true>(l, cell, keys, cell_range, gsize, lane, r, leaf, bound, nch, ngr);
        }
        if (threadIdx.x == 0) s_leaves = 0;
        if (lane == 0) {
            s_children[warp] = nch;
            s_groups[warp] = ngr;
        }
        __syncthreads();
        if (threadIdx.x == 0) { /* exclusive offsets within the block, then its slots */
            int tc = 0, tg = 0;
            for (int w = 0; w < SPLIT_WARPS; w++) {
                const int a = s_children[w], g = s_groups[w];
                s_children[w] = tc, s_groups[w] = tg;
                tc += a, tg += g;
            }
            s_base[0] = tc > 0 ? atomicAdd(&ctr->level_count[l + 1], tc) : 0;
            s_base[1] = tg > 0 ? atomicAdd(&ctr->groups, tg) : 0;
        }
        __syncthreads();
        if (have && lane == 0) {
            const bool ended_leaf = finish_cell(
                l, cell, r, leaf, nch, ngr, bound, next + s_base[0] + s_children[warp],
                s_base[1] + s_groups[warp], keys, cell_range, cell_child, cell_geo, cell_capacity,
                gsize, group, ctr);
            if (ended_leaf) atomicAdd(&s_leaves, 1);
        }
        __syncthreads();
        if (threadIdx.x == 0 && s_leaves > 0) atomicAdd(&ctr->leaves, s_leaves);
        __syncthreads(); /* the shared slots are taken again next round */
    }
}

/* An inclusive sum over the warp's lanes (all 32 take part). */
static __device__ __forceinline__ int warp_scan(int v, int lane) {
    for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    return v;
}

__global__ void split_kernel(int l, const unsigned long long *keys, int2 *cell_range,
                             int2 *cell_child, float4 *cell_geo, int cell_capacity, int gsize,
                             int2 *group, tree_counters *ctr) {
    const int count = ctr->level_count[l];
    if (count == 0) return;
    const int start = level_first(ctr, l), next = start + count;
    const int lane = threadIdx.x & 31;
    const int stride = gridDim.x * blockDim.x;
    /* The same trip count for the whole warp, so that it can take its slots
     * with shuffles and one atomic per counter. */
    for (int c0 = (blockIdx.x * blockDim.x + threadIdx.x) & ~31; c0 < count; c0 += stride) {
        const int c = c0 + lane, cell = start + c;
        const bool have = c < count;
        int2 r = make_int2(0, 0);
        bool leaf = true;
        int bound[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0}, nch = 0, ngr = 0;
        if (have) {
            plan_cell<false>(l, cell, keys, cell_range, gsize, lane, r, leaf, bound, nch, ngr);
        }
        const int ic = warp_scan(nch, lane), ig = warp_scan(ngr, lane);
        int base_c = 0, base_g = 0;
        if (lane == 31) {
            base_c = ic > 0 ? atomicAdd(&ctr->level_count[l + 1], ic) : 0;
            base_g = ig > 0 ? atomicAdd(&ctr->groups, ig) : 0;
        }
        base_c = __shfl_sync(0xffffffffu, base_c, 31);
        base_g = __shfl_sync(0xffffffffu, base_g, 31);
        bool ended_leaf = false;
        if (have) {
            ended_leaf = finish_cell(l, cell, r, leaf, nch, ngr, bound, next + base_c + ic - nch,
                                     base_g + ig - ngr, keys, cell_range, cell_child, cell_geo,
                                     cell_capacity, gsize, group, ctr);
        }
        const int leaves = __popc(__ballot_sync(0xffffffffu, ended_leaf));
        if (lane == 0 && leaves > 0) atomicAdd(&ctr->leaves, leaves);
    }
}

/* Multipoles of the cells of level l (children done). theta: opening angle. */
__global__ void multipole_kernel(int l, float theta, const float4 *spos, int2 *cell_child,
                                 const float4 *cell_geo, float4 *cell_com, float4 *cell_q0,
                                 float4 *cell_q1, float2 *cell_err, float eps2,
                                 const tree_counters *ctr) {
    const int count = ctr->level_count[l];
    if (count == 0) return;
    const int start = level_first(ctr, l);
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < count; c += gridDim.x * blockDim.x) {
        const int cell = start + c;
        const int2 ch = cell_child[cell];
        const float4 g = cell_geo[cell];
        float m = 0, sx = 0, sy = 0, sz = 0; /* sums of m (x - g) */
        float q[6] = {0, 0, 0, 0, 0, 0};     /* xx yy zz xy xz yz */
        float i2 = 0;                        /* sum m |y|^2: the softened term */
        float cx, cy, cz;
        if (ch.y < 0 && -ch.y <= LEAF) {
            /* A leaf of <= LEAF bodies (all but level-21 ones): its bodies
             * loaded at once, then the same sums in the same order as below
             * (one by one, each load a dependent round trip, the levels
             * were bound by latency). */
            const int cnt = -ch.y;
            float4 p[LEAF];
#pragma unroll
            for (int j = 0; j < LEAF; j++) {
                p[j] = j < cnt ? spos[ch.x + j] : make_float4(0, 0, 0, 0);
            }
#pragma unroll
            for (int j = 0; j < LEAF; j++) {
                if (j < cnt) {
                    m += p[j].w;
                    sx += p[j].w * (p[j].x - g.x), sy += p[j].w * (p[j].y - g.y);
                    sz += p[j].w * (p[j].z - g.z);
                }
            }
            const float inv = m > 0 ? 1.0f / m : 0.0f;
            cx = g.x + sx * inv, cy = g.y + sy * inv, cz = g.z + sz * inv;
#pragma unroll
            for (int j = 0; j < LEAF; j++) {
                if (j < cnt && m > 0) {
                    const float dx = p[j].x - cx, dy = p[j].y - cy, dz = p[j].z - cz;
                    const float r2 = dx * dx + dy * dy + dz * dz, w = p[j].w;
                    q[0] += w * (3 * dx * dx - r2), q[1] += w * (3 * dy * dy - r2);
                    q[2] += w * (3 * dz * dz - r2), q[3] += w * 3 * dx * dy;
                    q[4] += w * 3 * dx * dz, q[5] += w * 3 * dy * dz;
                    i2 += w * r2;
                }
            }
        } else if (ch.y < 0) {
            const int b = ch.x, e = ch.x - ch.y;
#pragma unroll 4
            for (int j = b; j < e; j++) {
                const float4 p = spos[j];
                m += p.w;
                sx += p.w * (p.x - g.x), sy += p.w * (p.y - g.y), sz += p.w * (p.z - g.z);
            }
            const float inv = m > 0 ? 1.0f / m : 0.0f;
            cx = g.x + sx * inv, cy = g.y + sy * inv, cz = g.z + sz * inv;
#pragma unroll 4
            for (int j = b; j < e && m > 0; j++) {
                const float4 p = spos[j];
                const float dx = p.x - cx, dy = p.y - cy, dz = p.z - cz;
                const float r2 = dx * dx + dy * dy + dz * dz;
                q[0] += p.w * (3 * dx * dx - r2), q[1] += p.w * (3 * dy * dy - r2);
                q[2] += p.w * (3 * dz * dz - r2), q[3] += p.w * 3 * dx * dy;
                q[4] += p.w * 3 * dx * dz, q[5] += p.w * 3 * dy * dz;
                i2 += p.w * r2;
            }
        } else {
            /* Up to 8 children, loaded at once (as for leaves above). */
            float4 ccs[8], as[8], bs[8];
#pragma unroll
            for (int k = 0; k < 8; k++) {
                const bool in = k < ch.y;
                ccs[k] = in ? cell_com[ch.x + k] : make_float4(0, 0, 0, 0);
                as[k] = in ? cell_q0[ch.x + k] : make_float4(0, 0, 0, 0);
                bs[k] = in ? cell_q1[ch.x + k] : make_float4(0, 0, 0, 0);
            }
#pragma unroll
            for (int k = 0; k < 8; k++) {
                if (k < ch.y) {
                    const float4 cc = ccs[k];
                    const float mk = as[k].x;
                    m += mk;
                    sx += mk * (cc.x - g.x), sy += mk * (cc.y - g.y), sz += mk * (cc.z - g.z);
                }
            }
            const float inv = m > 0 ? 1.0f / m : 0.0f;
            cx = g.x + sx * inv, cy = g.y + sy * inv, cz = g.z + sz * inv;
#pragma unroll
            for (int k = 0; k < 8; k++) {
                if (!(k < ch.y && m > 0)) continue;
                const float4 cc = ccs[k], a = as[k], b = bs[k];
                const float dx = cc.x - cx, dy = cc.y - cy, dz = cc.z - cz;
                const float r2 = dx * dx + dy * dy + dz * dz, mk = a.x;
                q[0] += a.y + mk * (3 * dx * dx - r2), q[1] += a.z + mk * (3 * dy * dy - r2);
                q[2] += a.w + mk * (3 * dz * dz - r2), q[3] += b.x + mk * 3 * dx * dy;
                q[4] += b.y + mk * 3 * dx * dz, q[5] += b.z + mk * 3 * dy * dz;
                i2 += b.w + mk * r2; /* the parallel-axis shift of sum m |y|^2 */
            }
        }
        const float ddx = cx - g.x, ddy = cy - g.y, ddz = cz - g.z;
        const float delta = sqrtf(ddx * ddx + ddy * ddy + ddz * ddz);
        const float ropen = 2.0f * g.w / theta + delta;
        cell_com[cell] = make_float4(cx, cy, cz, ropen * ropen);
        cell_q0[cell] = make_float4(m, q[0], q[1], q[2]);
        cell_q1[cell] = make_float4(q[3], q[4], q[5], i2);
        const float side = 2.0f * g.w;
        /* The quadrupole's pull on a body at d >= r_open: |Q d| / d^5 plus
         * 5/2 |d.Q d| / d^6 is at most 7/2 |Q| / d^4 (|Q| the Frobenius
         * norm, above the spectral one), and its softened term 5/2 eps^2 I
         * / d^5 at most 5/2 eps^2 I / (r_open d^4). */
        const float qf = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] +
                               2.0f * (q[3] * q[3] + q[4] * q[4] + q[5] * q[5]));
        const float quad = 3.5f * qf + (ropen > 0.0f ? 2.5f * eps2 * i2 / ropen : 0.0f);
        cell_err[cell] = make_float2(m * side * side * side, quad);
        if (!(m > 0)) cell_child[cell] = make_int2(0, 0); /* the walk skips it */
    }
}

/* ------------------------------------------------------------------------ */
/* The walk. */

struct walk_shared {
    /* Accepted cells waiting (up to 63): centre of mass and r_open^2, (M,
     * qxx, qyy, qzz), (qxy, qxz, qyz, -eps^2 I), loaded when the cell was popped. */
    float4 ca[64], cb[64], cc[64];
    float4 cm[64]; /* accepted cells whose quadrupole is negligible: centre of mass, M */
    int llist[64]; /* opened leaves waiting */
    float4 a[32];  /* a batch of leaf bodies */
    int j[32];
    int lstart[32], lbegin[32];
};

/* pm: with POT, minus each body's potential so far; without, the compiler
 * drops it. */
template <int BPL> struct walk_bodies {
    float x[BPL], y[BPL], z[BPL];
    float ax[BPL], ay[BPL], az[BPL];
    float pm[BPL];
    int i[BPL];
};

/* One accepted cell's softened quadrupole on the lane's bodies; with POT
 * also its potential, -M / r - (d.Q d - eps^2 I) / (2 r^5) (docs/TREE.md):
 * one sum per body (two kept apart saved an instruction but spilled). */
template <int BPL, bool POT>
static __device__ __forceinline__ void cell_force(const float4 cc, const float4 q0, const float4 q1,
                                                  walk_bodies<BPL> &w, float eps2) {
#pragma unroll
    for (int t = 0; t < BPL; t++) {
        /* lecture: begin tree-cell */
        const float dx = w.x[t] - cc.x, dy = w.y[t] - cc.y, dz = w.z[t] - cc.z;
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        const float rinv = rsqrtf(r2), rinv2 = rinv * rinv;
        const float r3 = rinv * rinv2, r5 = r3 * rinv2, r7 = r5 * rinv2;
        const float qdx = q0.y * dx + q1.x * dy + q1.y * dz;
        const float qdy = q1.x * dx + q0.z * dy + q1.z * dz;
        const float qdz = q1.y * dx + q1.z * dy + q0.w * dz;
        /* d.Q d - eps^2 I (q1.w holds -eps^2 I): three FMAs, as many
         * instructions as d.Q d alone. */
        const float dqd = fmaf(dx, qdx, fmaf(dy, qdy, fmaf(dz, qdz, q1.w)));
        /* a += f d + r5 Q d as two FMAs per axis (written as
         * a += f * dx + r5 * qdx it compiled to FMUL, FFMA, FADD). */
        const float f = fmaf(-2.5f * dqd, r7, -q0.x * r3);
        w.ax[t] = fmaf(f, dx, fmaf(r5, qdx, w.ax[t]));
        w.ay[t] = fmaf(f, dy, fmaf(r5, qdy, w.ay[t]));
        w.az[t] = fmaf(f, dz, fmaf(r5, qdz, w.az[t]));
        /* lecture: end tree-cell */
        if (POT) w.pm[t] = fmaf(q0.x, rinv, fmaf(0.5f * dqd, r5, w.pm[t]));
    }
}

/* Accepted cells s.c*[0 .. m), m <= 32, already in shared memory. A full
 * batch (the common case) runs a loop of fixed length, unrolled by 4 so that
 * the loop's own instructions are few beside the 32 per cell and body. */
template <int BPL, bool POT>
static __device__ void eval_cells(walk_shared &s, int m, walk_bodies<BPL> &w, float eps2) {
    if (m == 32) {
#pragma unroll 4
        for (int k = 0; k < 32; k++) cell_force<BPL, POT>(s.ca[k], s.cb[k], s.cc[k], w, eps2);
    } else {
        for (int k = 0; k < m; k++) cell_force<BPL, POT>(s.ca[k], s.cb[k], s.cc[k], w, eps2);
    }
    __syncwarp();
}

/* One leaf body's softened force on the lane's bodies, not on itself (with
 * POT its potential too). A coincident body adds its separation, 0, times a
 * finite 1/r^3: eps2 is at least SIM_EPS2_FLOOR (sim.h). */
template <int BPL, bool POT>
static __device__ __forceinline__ void body_force(const float4 p, int j, walk_bodies<BPL> &w,
                                                  float eps2) {
#pragma unroll
    for (int t2 = 0; t2 < BPL; t2++) {
        const float dx = p.x - w.x[t2], dy = p.y - w.y[t2], dz = p.z - w.z[t2];
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        float rinv = rsqrtf(r2);
        rinv = j == w.i[t2] ? 0.0f : rinv;
        const float f = p.w * rinv * rinv * rinv;
        w.ax[t2] += f * dx;
        w.ay[t2] += f * dy;
        w.az[t2] += f * dz;
        if (POT) w.pm[t2] = fmaf(p.w, rinv, w.pm[t2]);
    }
}

/* Opened leaves list[0 .. m), m <= 32: their bodies, packed 32 at a time.
 * Returns the number of bodies summed. */
template <int BPL, bool POT>
static __device__ int eval_leaves(walk_shared &s, const int *list, int m, walk_bodies<BPL> &w,
                                  float eps2, int lane, const int2 *cell_child,
                                  const float4 *spos) {
    int cnt = 0, begin = 0;
    if (lane < m) {
        const int2 ch = cell_child[list[lane]];
        begin = ch.x;
        cnt = -ch.y;
    }
    int incl = cnt;
    for (int o = 1; o < 32; o <<= 1) {
        const int v = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += v;
    }
    const int total = __shfl_sync(0xffffffffu, incl, 31);
    s.lstart[lane] = incl - cnt;
    s.lbegin[lane] = begin;
    __syncwarp();
    for (int t0 = 0; t0 < total; t0 += 32) {
        const int t = t0 + lane;
        if (t < total) {
            int lo = 0, hi = m - 1; /* last leaf whose start <= t */
            while (lo < hi) {
                const int mid = (lo + hi + 1) >> 1;
                if (s.lstart[mid] <= t)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            const int j = s.lbegin[lo] + (t - s.lstart[lo]);
            s.a[lane] = spos[j];
            s.j[lane] = j;
        }
        __syncwarp();
        const int chunk = min(32, total - t0);
        if (chunk == 32) {
#pragma unroll 4
            for (int k = 0; k < 32; k++) body_force<BPL, POT>(s.a[k], s.j[k], w, eps2);
        } else {
            for (int k = 0; k < chunk; k++) body_force<BPL, POT>(s.a[k], s.j[k], w, eps2);
        }
        __syncwarp();
    }
    return total;
}

/* One accepted cell's monopole (centre of mass, M in .w) on the lane's
 * bodies, with POT its potential too: a body's force without the self
 * test (a cell the group's box touches is never accepted). */
template <int BPL, bool POT>
static __device__ __forceinline__ void mono_force(const float4 p, walk_bodies<BPL> &w, float eps2) {
#pragma unroll
    for (int t = 0; t < BPL; t++) {
        const float dx = p.x - w.x[t], dy = p.y - w.y[t], dz = p.z - w.z[t];
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        const float rinv = rsqrtf(r2);
        const float f = p.w * rinv * rinv * rinv;
        w.ax[t] = fmaf(f, dx, w.ax[t]);
        w.ay[t] = fmaf(f, dy, w.ay[t]);
        w.az[t] = fmaf(f, dz, w.az[t]);
        if (POT) w.pm[t] = fmaf(p.w, rinv, w.pm[t]);
    }
}

/* Monopole cells s.cm[0 .. m), m <= 32, as eval_cells. */
template <int BPL, bool POT>
static __device__ void eval_monos(walk_shared &s, int m, walk_bodies<BPL> &w, float eps2) {
    if (m == 32) {
#pragma unroll 4
        for (int k = 0; k < 32; k++) mono_force<BPL, POT>(s.cm[k], w, eps2);
    } else {
        for (int k = 0; k < m; k++) mono_force<BPL, POT>(s.cm[k], w, eps2);
    }
    __syncwarp();
}

/* Moves accepted-cell entries [32, 32 + rest) of the shared list to the front. */
static __device__ void shift_cells(walk_shared &s, int rest, int lane) {
    if (lane < rest) {
        s.ca[lane] = s.ca[32 + lane];
        s.cb[lane] = s.cb[32 + lane];
        s.cc[lane] = s.cc[32 + lane];
    }
    __syncwarp();
}

/* The relative opening criterion's inputs (alpha 0: Barnes' criterion
 * alone). A cell is accepted when it passes Barnes' test with r_open (the
 * guard that keeps the expansion convergent) AND its error scale M side^3
 * over d^5 is at most alpha times the group's acceleration of the last
 * evaluation, read from acc_old (caller's order): the octupole term the
 * quadrupole expansion leaves out, relative to the force it is added to,
 * as GADGET's relative criterion does for the monopole's quadrupole term. */
struct walk_mac {
    const float4 *acc_old;
    const float2 *cell_err;
    float alpha;
    float mono_margin; /* 0: every accepted cell as a quadrupole */
};

/* The walk of one group, sorted bodies [base, end), held BPL per lane
 * (end - base <= 32 BPL). Writes each body's acceleration and, with POT,
 * its potential in w (else 0). Returns the cells and bodies it summed. */
template <int BPL, bool POT>
static __device__ int walk_group(walk_shared &s, int *stack, int base, int end, const float4 *spos,
                                 const int *sidx, float4 *acc, float eps2, const int2 *cell_child,
                                 const float4 *cell_com, const float4 *cell_q0,
                                 const float4 *cell_q1, walk_mac mac, int2 root, const int *roots,
                                 int nroots, int lane, int &overflow, int &monos) {
    const unsigned lt = (1u << lane) - 1u;
    walk_bodies<BPL> w;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
#pragma unroll
    for (int t = 0; t < BPL; t++) {
        const int i = base + t * 32 + lane;
        const float4 p = spos[i < end ? i : base];
        w.x[t] = p.x, w.y[t] = p.y, w.z[t] = p.z;
        w.ax[t] = w.ay[t] = w.az[t] = 0.0f;
        w.pm[t] = 0.0f;
        w.i[t] = i;
        lo[0] = fminf(lo[0], p.x), hi[0] = fmaxf(hi[0], p.x);
        lo[1] = fminf(lo[1], p.y), hi[1] = fmaxf(hi[1], p.y);
        lo[2] = fminf(lo[2], p.z), hi[2] = fmaxf(hi[2], p.z);
    }
    warp_box(lo, hi);
    /* 1 / (alpha a_ref): a_ref the group's least |a| of the last evaluation,
     * floored at a tenth of its mean (a body at a sphere's very centre has
     * |a| near 0 and would open everything). 0: Barnes' test alone. */
    float inv_aa = 0.0f;
    if (mac.alpha > 0.0f) {
        float amin = INFINITY, asum = 0.0f;
#pragma unroll
        for (int t = 0; t < BPL; t++) {
            if (w.i[t] < end) {
                const float4 a = mac.acc_old[sidx[w.i[t]]];
                const float am = sqrtf(a.x * a.x + a.y * a.y + a.z * a.z);
                amin = fminf(amin, am);
                asum += am;
            }
        }
        for (int o = 16; o > 0; o >>= 1) {
            amin = fminf(amin, __shfl_xor_sync(0xffffffffu, amin, o));
            asum += __shfl_xor_sync(0xffffffffu, asum, o);
        }
        const float aref = fmaxf(amin, 0.1f * asum / (float)(end - base));
        if (aref > 0.0f) inv_aa = 1.0f / (mac.alpha * aref);
    }
    int sp = 0, ncl = 0, nml = 0, nll = 0, entries = 0;
    if (root.y < 0) { /* the root is a leaf: everything directly */
        if (lane == 0) s.llist[0] = 0;
        nll = 1;
    } else {
        if (lane < root.y) stack[lane] = root.x + lane;
        sp = root.y;
    }
    /* Several GPUs: the roots of the trees the other GPUs sent, tested like
     * any cell (sim_tree_forces_domains). */
    if (lane < nroots) stack[sp + lane] = roots[lane];
    sp += nroots;
    __syncwarp();
    while (sp > 0) {
        const int take = min(32, sp);
        sp -= take;
        const int cell = lane < take ? stack[sp + lane] : -1;
        bool accept = false, mono = false, open_leaf = false, open_cell = false;
        int2 ch = make_int2(0, 0);
        float4 cc = make_float4(0, 0, 0, 0), q0 = cc, q1 = cc;
        if (cell >= 0) {
            /* The multipole is loaded with the test (most popped cells are
             * accepted), so the evaluation reads shared memory only. */
            cc = cell_com[cell];
            ch = cell_child[cell]; /* (0, 0): massless, nothing to do */
            q0 = cell_q0[cell];
            q1 = cell_q1[cell];
            /* lecture: begin tree-open */
            const float dx = fmaxf(0.0f, fmaxf(lo[0] - cc.x, cc.x - hi[0]));
            const float dy = fmaxf(0.0f, fmaxf(lo[1] - cc.y, cc.y - hi[1]));
            const float dz = fmaxf(0.0f, fmaxf(lo[2] - cc.z, cc.z - hi[2]));
            const float d2 = dx * dx + dy * dy + dz * dz;
            accept = ch.y != 0 && d2 > cc.w;
            /* lecture: end tree-open */
            if (inv_aa > 0.0f && accept) {
                /* Accepted when the octupole left out is small; as a monopole
                 * when the quadrupole itself is, by mono_margin. */
                const float2 e = mac.cell_err[cell];
                accept = e.x * inv_aa <= d2 * d2 * sqrtf(d2);
                mono =
                    accept && mac.mono_margin > 0.0f && mac.mono_margin * e.y * inv_aa <= d2 * d2;
            }
            open_leaf = !accept && ch.y < 0;
            open_cell = !accept && ch.y > 0;
        }
        int nch = open_cell ? ch.y : 0, incl = nch;
        for (int o = 1; o < 32; o <<= 1) {
            const int v = __shfl_up_sync(0xffffffffu, incl, o);
            if (lane >= o) incl += v;
        }
        const int pushed = __shfl_sync(0xffffffffu, incl, 31);
        __syncwarp();                  /* every lane has read its stack entry */
        if (sp + pushed > STACK_CAP) { /* no room: use their multipoles */
            accept = accept || open_cell;
            open_cell = false;
            mono = false;
            overflow += lane == 0;
        } else {
            for (int k = 0; k < nch; k++) stack[sp + incl - nch + k] = ch.x + k;
            sp += pushed;
        }
        const unsigned bm = __ballot_sync(0xffffffffu, mono);
        if (mono) s.cm[nml + __popc(bm & lt)] = make_float4(cc.x, cc.y, cc.z, q0.x);
        nml += __popc(bm);
        accept = accept && !mono;
        const unsigned ba = __ballot_sync(0xffffffffu, accept);
        if (accept) {
            const int at = ncl + __popc(ba & lt);
            s.ca[at] = cc;
            s.cb[at] = q0;
            /* w: -eps^2 I, the softened expansion's term beside d.Q d
             * (docs/TREE.md), once per accepted cell rather than per body. */
            s.cc[at] = make_float4(q1.x, q1.y, q1.z, -eps2 * q1.w);
        }
        ncl += __popc(ba);
        const unsigned bl = __ballot_sync(0xffffffffu, open_leaf);
        if (open_leaf) s.llist[nll + __popc(bl & lt)] = cell;
        nll += __popc(bl);
        __syncwarp();
        if (ncl >= 32) {
            eval_cells<BPL, POT>(s, 32, w, eps2);
            entries += 32;
            ncl -= 32;
            shift_cells(s, ncl, lane);
        }
        if (nml >= 32) {
            eval_monos<BPL, POT>(s, 32, w, eps2);
            entries += 32;
            monos += 32;
            nml -= 32;
            if (lane < nml) s.cm[lane] = s.cm[32 + lane];
            __syncwarp();
        }
        if (nll >= 32) {
            entries += eval_leaves<BPL, POT>(s, s.llist, 32, w, eps2, lane, cell_child, spos);
            if (lane < nll - 32) s.llist[lane] = s.llist[32 + lane];
            nll -= 32;
            __syncwarp();
        }
    }
    if (ncl > 0) eval_cells<BPL, POT>(s, ncl, w, eps2);
    if (nml > 0) eval_monos<BPL, POT>(s, nml, w, eps2);
    entries += ncl + nml;
    monos += nml;
    if (nll > 0) {
        entries += eval_leaves<BPL, POT>(s, s.llist, nll, w, eps2, lane, cell_child, spos);
    }
#pragma unroll
    for (int t = 0; t < BPL; t++) {
        if (w.i[t] < end) acc[sidx[w.i[t]]] = make_float4(w.ax[t], w.ay[t], w.az[t], -w.pm[t]);
    }
    return entries;
}

/* One warp per group at a time (a work counter). A group of v bodies is
 * held 1, 2 or 4 per lane, the fewest that hold v (at most MAXB): groups
 * of <= 32 bodies, a
 * good share of them at p = 64, would leave half of the lanes' slots idle
 * with 2 per lane. */
template <int MAXB, bool POT>
__global__ void __launch_bounds__(WALK_THREADS, MAXB >= 4 ? 6 : 8)
    walk_kernel(const int2 *group, const float4 *spos, const int *sidx, float4 *acc, float eps2,
                const int2 *cell_child, const float4 *cell_com, const float4 *cell_q0,
                const float4 *cell_q1, walk_mac mac, int *stacks, int lo, int hi, const int *roots,
                int nroots, tree_counters *ctr) {
    __shared__ walk_shared shared[WALK_THREADS / 32];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    walk_shared &s = shared[wib];
    int *stack = stacks + (size_t)(blockIdx.x * (WALK_THREADS / 32) + wib) * STACK_CAP;
    const int groups = ctr->groups;
    unsigned long long evaluated = 0, slots = 0, monopoles = 0;
    int overflow = 0, walked = 0;
    const int2 root = cell_child[0];
    for (;;) {
        int g = 0;
        if (lane == 0) g = atomicAdd(&ctr->group_next, 1);
        g = __shfl_sync(0xffffffffu, g, 0);
        if (g >= groups) break;
        const int base = group[g].x, end = group[g].y;
        if (base < lo || base >= hi) continue; /* another GPU's share */
        const int valid = end - base;
        walked += valid;
        int entries, per_lane, monos = 0;
        if (MAXB >= 4 && valid > 64) {
            per_lane = 4;
            entries = walk_group<(MAXB >= 4 ? 4 : 1), POT>(
                s, stack, base, end, spos, sidx, acc, eps2, cell_child, cell_com, cell_q0, cell_q1,
                mac, root, roots, nroots, lane, overflow, monos);
        } else if (MAXB >= 2 && valid > 32) {
            per_lane = 2;
            entries = walk_group<(MAXB >= 2 ? 2 : 1), POT>(
                s, stack, base, end, spos, sidx, acc, eps2, cell_child, cell_com, cell_q0, cell_q1,
                mac, root, roots, nroots, lane, overflow, monos);
        } else {
            per_lane = 1;
            entries = walk_group<1, POT>(s, stack, base, end, spos, sidx, acc, eps2, cell_child,
                                         cell_com, cell_q0, cell_q1, mac, root, roots, nroots, lane,
                                         overflow, monos);
        }
        evaluated += (unsigned long long)entries * valid;
        monopoles += (unsigned long long)monos * valid;
        slots += (unsigned long long)entries * 32 * per_lane;
    }
    if (lane == 0) {
        atomicAdd(&ctr->interactions, evaluated);
        atomicAdd(&ctr->monopoles, monopoles);
        atomicAdd(&ctr->slots, slots);
        atomicAdd(&ctr->walked, walked);
        if (overflow) atomicAdd(&ctr->overflow, overflow);
    }
}

/* Several GPUs: zeros for the bodies of the groups another GPU walks (those
 * that start outside [lo, hi)), after the walk, which may read their old
 * accelerations first (walk_mac). */
__global__ void zero_others_kernel(const int2 *group, const int *sidx, float4 *acc, int lo, int hi,
                                   const tree_counters *ctr) {
    const int groups = ctr->groups;
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += gridDim.x * blockDim.x) {
        const int2 r = group[g];
        if (r.x >= lo && r.x < hi) continue;
        for (int i = r.x; i < r.y; i++) acc[sidx[i]] = make_float4(0, 0, 0, 0);
    }
}

/* ------------------------------------------------------------------------ */
/* Several GPUs: domains and locally essential trees (sim_tree_forces_domains). */

/* The common root cube of the domains: the union of every GPU's box. */
__global__ void box_union_kernel(int count, const unsigned *boxes, tree_counters *ctr) {
    const int k = threadIdx.x;
    if (k >= 6) return;
    unsigned v = boxes[k];
    for (int g = 1; g < count; g++) {
        const unsigned w = boxes[6 * g + k];
        v = k < 3 ? min(v, w) : max(v, w);
    }
    if (k < 3) {
        ctr->box_min[k] = v;
    } else {
        ctr->box_max[k - 3] = v;
    }
}

/* DOMAIN_SAMPLES of the n keys at even places (a split with no sample
 * from a tree yet: the bodies in their arrays' order). */
__global__ void sample_spaced_kernel(int n, const unsigned long long *keys,
                                     unsigned long long *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < DOMAIN_SAMPLES) out[i] = keys[(long long)i * n / DOMAIN_SAMPLES];
}

/* DOMAIN_SAMPLES of the n sorted bodies' positions at even ranks: the
 * next split's sample (sim_tree_domains_split). */
__global__ void sample_pos_kernel(int n, const float4 *spos, float4 *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < DOMAIN_SAMPLES) out[i] = spos[(long long)i * n / DOMAIN_SAMPLES];
}

/* The sample positions' keys in this evaluation's cube (keys_kernel's,
 * which ran before on the stream and stored it in ctr). */
__global__ void sample_keys_kernel(const float4 *pos, const tree_counters *ctr,
                                   unsigned long long *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= DOMAIN_SAMPLES) return;
    const double origin[3] = {ctr->origin[0], ctr->origin[1], ctr->origin[2]};
    out[i] = key_at(pos[i], origin, 2097152.0 / ctr->side);
}

/* Each of the n bodies' GPU: g where splits[g] <= key < splits[g + 1];
 * whether it leaves GPU self or stays (flags for DeviceSelect), and how
 * many go to each GPU (counts[0 .. count), zeroed before). */
__global__ void dest_kernel(int n, const unsigned long long *keys, const unsigned long long *splits,
                            int count, int self, uint8_t *dest, uint8_t *leave, uint8_t *stay,
                            int *counts) {
    __shared__ int block_counts[SIM_MAX_GPUS];
    if (threadIdx.x < SIM_MAX_GPUS) block_counts[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const unsigned long long key = keys[i];
        int g = 0;
        while (g + 1 < count && key >= splits[g + 1]) g++;
        dest[i] = (uint8_t)g;
        leave[i] = g != self;
        stay[i] = g == self;
        atomicAdd(&block_counts[g], 1);
    }
    __syncthreads();
    if (threadIdx.x < count && block_counts[threadIdx.x] > 0) {
        atomicAdd(&counts[threadIdx.x], block_counts[threadIdx.x]);
    }
}

/* The GPUs of the m bodies idx[] (dest_kernel's), as sort keys. */
__global__ void gather_dest_kernel(int m, const int *idx, const uint8_t *dest, uint8_t *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) out[i] = dest[idx[i]];
}

/* Cut j's largest cell (tree_domain). */
static __device__ int cut_most(int n_own, int j) {
    return max(n_own >> (DOMAIN_CUTS - j), LEAF);
}

/* Whether a cell ends cut j: a leaf or massless cell (the walk never
 * reaches below those), or one of at most `most` bodies no wider than
 * DOMAIN_WIDE times its distance from its tree's centre of mass. A
 * descendant of a cell that ends also would (half the side, its centre at
 * most sqrt(3)/4 of the side nearer: true for DOMAIN_WIDE up to 1.15), so
 * the cut's cells partition the bodies. Away from the centre of mass a
 * cell's children soon are narrow enough; only the few cells a level
 * around it are split down to the leaves, and a cusp there still fits the
 * boxes (test_tree_domains). */
static __device__ bool cut_ends(int2 r, int2 ch, float4 geo, float4 com, int most) {
    if (ch.y <= 0) return true;
    if (r.y - r.x > most) return false;
    const float dx = geo.x - com.x, dy = geo.y - com.y, dz = geo.z - com.z;
    const float side = 2.0f * geo.w;
    return side * side <= DOMAIN_WIDE * DOMAIN_WIDE * (dx * dx + dy * dy + dz * dz);
}

/* How many cells each cut j would have (tries[j], cleared before): as
 * cut_kernel takes them. */
__global__ void cut_count_kernel(int n_own, const int2 *cell_range, const int2 *cell_child,
                                 const float4 *cell_geo, const float4 *cell_com,
                                 const tree_counters *ctr, int *tries) {
    const int cells = level_first(ctr, LEVELS);
    const float4 com = cell_com[0];
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cells; c += gridDim.x * blockDim.x) {
        const int2 r = cell_range[c];
        const int2 ch = cell_child[c];
        const float4 geo = cell_geo[c];
        for (int j = 0; j < DOMAIN_CUTS; j++) {
            const int most = cut_most(n_own, j);
            const bool ends = cut_ends(r, ch, geo, com, most);
            int count = c == 0 && ends;
            for (int k = ch.x; !ends && k < ch.x + ch.y; k++) {
                count += cut_ends(cell_range[k], cell_child[k], cell_geo[k], com, most);
            }
            if (count) atomicAdd(&tries[j], count);
        }
    }
}

/* The cut through this GPU's tree (tree_domain), the finest of the tries
 * with at most DOMAIN_BOXES cells (else the coarsest): the children of
 * every cell that does not end the cut that do (cut_ends), and the root
 * when it ends it. Their sorted bodies partition [0, n_own). Counts past
 * DOMAIN_BOXES without writing. */
__global__ void cut_kernel(int n_own, const int *tries, const int2 *cell_range,
                           const int2 *cell_child, const float4 *cell_geo, const float4 *cell_com,
                           const tree_counters *ctr, int2 *cut, int *cut_count) {
    int j = 0;
    while (j + 1 < DOMAIN_CUTS && tries[j] > DOMAIN_BOXES) j++;
    const int most = cut_most(n_own, j);
    const int cells = level_first(ctr, LEVELS);
    const float4 com = cell_com[0];
    for (int c = blockIdx.x * blockDim.x + threadIdx.x; c < cells; c += gridDim.x * blockDim.x) {
        const int2 r = cell_range[c];
        const int2 ch = cell_child[c];
        const bool ends = cut_ends(r, ch, cell_geo[c], com, most);
        if (c == 0 && ends) {
            const int slot = atomicAdd(cut_count, 1);
            if (slot < DOMAIN_BOXES) cut[slot] = r;
        }
        if (ends) continue;
        for (int k = ch.x; k < ch.x + ch.y; k++) {
            const int2 rk = cell_range[k];
            if (cut_ends(rk, cell_child[k], cell_geo[k], com, most)) {
                const int slot = atomicAdd(cut_count, 1);
                if (slot < DOMAIN_BOXES) cut[slot] = rk;
            }
        }
    }
}

/* The cut's cells in the order of their bodies (one block of DOMAIN_BOXES
 * threads, a bitonic sort), or one cell of all n_own bodies when there
 * were more than DOMAIN_BOXES. */
__global__ void cut_sort_kernel(int n_own, int2 *cut, int *cut_count) {
    __shared__ int2 s[DOMAIN_BOXES];
    const int i = threadIdx.x, count = *cut_count;
    if (count > DOMAIN_BOXES) {
        if (i == 0) cut[0] = make_int2(0, n_own), *cut_count = 1;
        return;
    }
    s[i] = i < count ? cut[i] : make_int2(INT_MAX, INT_MAX);
    __syncthreads();
    for (int k = 2; k <= DOMAIN_BOXES; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            const int o = i ^ j;
            if (o > i && (s[i].x > s[o].x) == ((i & k) == 0)) {
                const int2 v = s[i];
                s[i] = s[o];
                s[o] = v;
            }
            __syncthreads();
        }
    }
    if (i < count) cut[i] = s[i];
}

/* This GPU's domain: each group's box and, with alpha, its 1 / (alpha
 * a_ref) as walk_group takes them, gathered into the box of the cut's
 * cell its first body falls in (a group of siblings may reach past that
 * cell; the box takes all of it). */
__global__ void domain_boxes_kernel(const int2 *group, const float4 *spos, const int *sidx,
                                    const float4 *acc_old, float alpha, const int2 *cut,
                                    const int *cut_count, box_image *boxes,
                                    const tree_counters *ctr) {
    __shared__ int s_begin[DOMAIN_BOXES];
    const int boxes_n = *cut_count;
    for (int j = threadIdx.x; j < boxes_n; j += blockDim.x) s_begin[j] = cut[j].x;
    __syncthreads();
    const int groups = ctr->groups;
    for (int g = blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += gridDim.x * blockDim.x) {
        const int2 r = group[g];
        if (r.y <= r.x) continue;
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        float amin = INFINITY, asum = 0.0f;
        for (int i = r.x; i < r.y; i++) {
            const float4 p = spos[i];
            lo[0] = fminf(lo[0], p.x), hi[0] = fmaxf(hi[0], p.x);
            lo[1] = fminf(lo[1], p.y), hi[1] = fmaxf(hi[1], p.y);
            lo[2] = fminf(lo[2], p.z), hi[2] = fmaxf(hi[2], p.z);
            if (acc_old) {
                const float4 a = acc_old[sidx[i]];
                const float am = sqrtf(a.x * a.x + a.y * a.y + a.z * a.z);
                amin = fminf(amin, am);
                asum += am;
            }
        }
        int lo_j = 0, hi_j = boxes_n - 1; /* the last cell beginning at or before r.x */
        while (lo_j < hi_j) {
            const int mid = (lo_j + hi_j + 1) >> 1;
            if (s_begin[mid] <= r.x) {
                lo_j = mid;
            } else {
                hi_j = mid - 1;
            }
        }
        box_image &b = boxes[lo_j];
        for (int k = 0; k < 3; k++) {
            atomicMin(&b.lo[k], float_order(lo[k]));
            atomicMax(&b.hi[k], float_order(hi[k]));
        }
        const float aref = fmaxf(amin, 0.1f * asum / (float)(r.y - r.x));
        if (acc_old && aref > 0.0f) {
            atomicMax(&b.inv_aa, __float_as_uint(1.0f / (alpha * aref)));
        }
    }
}

/* The boxes as the others read them; inv_aa with a margin of 1 %, which
 * covers the rounding of the walk's own sum in another order. A box no
 * group fell in is empty (lo above hi: every distance to it infinite). */
__global__ void domain_kernel(const box_image *boxes, const int *cut_count, tree_domain *out) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= DOMAIN_BOXES) return;
    const box_image b = boxes[j];
    tree_domain d;
    const bool empty = b.lo[0] == 0xffffffffu;
    for (int k = 0; k < 3; k++) {
        d.lo[k] = empty ? INFINITY : order_float(b.lo[k]);
        d.hi[k] = empty ? -INFINITY : order_float(b.hi[k]);
    }
    d.inv_aa = __uint_as_float(b.inv_aa) * 1.01f;
    d.boxes = j == 0 ? (cut_count ? *cut_count : 0) : 0;
    out[j] = d;
}

/* Starts every destination's let_buf at this tree's root (none when this
 * GPU has no bodies). */
__global__ void let_start_kernel(int count, int self, const let_buf *bufs, let_count *cnt,
                                 int n_own) {
    const int d = threadIdx.x;
    if (d >= count || d == self) return;
    const int root = n_own > 0 && bufs[d].cell_cap > 0 ? 1 : 0;
    cnt[d] = {root, 0, 0, root};
    if (root) bufs[d].src[0] = 0;
}

/* The next level: [begin, end) becomes the cells taken so far past it. */
__global__ void let_next_kernel(int count, let_count *cnt) {
    const int d = threadIdx.x;
    if (d >= count) return;
    cnt[d].begin = cnt[d].end;
    cnt[d].end = cnt[d].cells;
}

/* One level of every destination's let_buf (blockIdx.y: the destination),
 * a warp per cell. A cell that every group of the destination accepts goes
 * as itself; one some group may open takes its children (the next level)
 * or, a leaf, its bodies. The test is walk_group's against each of the
 * destination's boxes with its largest inv_aa (every group there lies
 * inside one box, so its distance is no less): what passes for every box,
 * each of those groups accepts. The warp's lanes test a box each, 32 at a
 * time, and stop at the first round where one refuses: a thread per cell
 * would test up to DOMAIN_BOXES boxes in a row, and a level's few cells
 * would then take that long with the GPU nearly idle. Past a buffer's
 * capacity nothing is written but the counts still grow, so that the
 * caller can make room and send again. */
__global__ void let_level_kernel(int self, const let_buf *bufs, let_count *cnt,
                                 const tree_domain *doms, const int2 *cell_child,
                                 const float4 *cell_com, const float4 *cell_q0,
                                 const float4 *cell_q1, const float2 *cell_err,
                                 const float4 *spos) {
    const int d = blockIdx.y;
    if (d == self) return;
    const let_buf b = bufs[d];
    __shared__ tree_domain box[DOMAIN_BOXES];
    const int boxes_n = doms[d * DOMAIN_BOXES].boxes;
    for (int j = threadIdx.x; j < boxes_n; j += blockDim.x) box[j] = doms[d * DOMAIN_BOXES + j];
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int warps = gridDim.x * (blockDim.x / 32);
    const int begin = cnt[d].begin, end = min(cnt[d].end, b.cell_cap);
    for (int slot = begin + blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; slot < end;
         slot += warps) {
        const int cell = b.src[slot];
        const int2 ch = cell_child[cell];
        const float4 cc = cell_com[cell];
        const float2 e = cell_err[cell];
        bool accept = ch.y != 0;
        for (int j0 = 0; j0 < boxes_n && accept; j0 += 32) {
            bool mine = true;
            const int j = j0 + lane;
            if (j < boxes_n) {
                const tree_domain &dom = box[j];
                const float dx = fmaxf(0.0f, fmaxf(dom.lo[0] - cc.x, cc.x - dom.hi[0]));
                const float dy = fmaxf(0.0f, fmaxf(dom.lo[1] - cc.y, cc.y - dom.hi[1]));
                const float dz = fmaxf(0.0f, fmaxf(dom.lo[2] - cc.z, cc.z - dom.hi[2]));
                const float d2 = dx * dx + dy * dy + dz * dz;
                mine = d2 > cc.w;
                if (dom.inv_aa > 0.0f && mine) mine = e.x * dom.inv_aa <= d2 * d2 * sqrtf(d2);
            }
            accept = __all_sync(0xffffffffu, mine);
        }
        int2 out = ch; /* (0, 0): massless, as it is */
        if (ch.y != 0 && accept) {
            out = make_int2(-1, 1);
        } else if (ch.y < 0) {
            int first = lane == 0 ? atomicAdd(&cnt[d].bodies, -ch.y) : 0;
            first = __shfl_sync(0xffffffffu, first, 0);
            out = make_int2(first, ch.y);
            for (int k = lane; k < -ch.y && first - ch.y <= b.body_cap; k += 32) {
                b.body[first + k] = spos[ch.x + k];
            }
        } else if (ch.y > 0) {
            int first = lane == 0 ? atomicAdd(&cnt[d].cells, ch.y) : 0;
            first = __shfl_sync(0xffffffffu, first, 0);
            out = make_int2(first, ch.y);
            for (int k = lane; k < ch.y && first + k < b.cell_cap; k += 32)
                b.src[first + k] = ch.x + k;
        }
        if (lane == 0) {
            b.child[slot] = out;
            b.com[slot] = cc;
            b.q0[slot] = cell_q0[cell];
            b.q1[slot] = cell_q1[cell];
            b.err[slot] = e;
        }
    }
}

/* An imported tree placed at cell slot `cells_at` and body slot
 * `bodies_at`: its child entries made absolute, its accepted-only cells
 * pointed at the empty cell `empty` (which a walk that ever opened one would
 * skip). Thread 0 also writes the empty cell. */
__global__ void let_place_kernel(int cells, int cells_at, int bodies_at, int empty,
                                 int2 *cell_child, float4 *cell_com) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        cell_child[empty] = make_int2(0, 0);
        cell_com[empty] = make_float4(0, 0, 0, 0);
    }
    if (i >= cells) return;
    const int2 ch = cell_child[cells_at + i];
    if (ch.y > 0) {
        cell_child[cells_at + i] =
            ch.x < 0 ? make_int2(empty, 1) : make_int2(ch.x + cells_at, ch.y);
    } else if (ch.y < 0) {
        cell_child[cells_at + i] = make_int2(ch.x + bodies_at, ch.y);
    }
}

/* ------------------------------------------------------------------------ */
/* Host side. */

static int div_up(int a, int b) {
    return (a + b - 1) / b;
}

/* The tree's cells (Capacity, above); with the bodies spread over GPUs
 * the others' parts come after them (sim_tree_forces_domains grows the
 * tree where they do not fit). */
static long long cells_for(int n) {
    return n + 21LL * n / 17 + 2 + SIM_MAX_GPUS;
}

/* Blocks of the walk's persistent grid: as many as fit at once for the
 * walk that fits most (each variant's launch bounds cap its registers). */
static int walk_blocks(const sim_tree *t) {
    const void *walks[] = {(const void *)walk_kernel<1, false>, (const void *)walk_kernel<2, false>,
                           (const void *)walk_kernel<4, false>, (const void *)walk_kernel<1, true>,
                           (const void *)walk_kernel<2, true>,  (const void *)walk_kernel<4, true>};
    int per_sm = 0;
    for (const void *k : walks) {
        int fit = 0;
        CUDA_CHECK(t->fault,
                   cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, k, WALK_THREADS, 0));
        per_sm = std::max(per_sm, fit);
    }
    return t->sm_count * (per_sm > 0 ? per_sm : 1);
}

extern "C" sim_tree *sim_tree_create(int sm_count, sim_fault *fault) {
    sim_tree *t = (sim_tree *)calloc(1, sizeof *t);
    if (!t) return NULL;
    t->fault = fault;
    t->sm_count = sm_count;
    t->walk_warps = walk_blocks(t) * (WALK_THREADS / 32);
    if (cudaMalloc(&t->ctr, sizeof(tree_counters)) != cudaSuccess ||
        cudaMallocHost(&t->host_ctr, sizeof(tree_counters)) != cudaSuccess ||
        cudaMalloc(&t->stack, sizeof(int) * STACK_CAP * (size_t)t->walk_warps) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(t->ctr);
        cudaFreeHost(t->host_ctr);
        cudaFree(t->stack);
        free(t);
        return NULL;
    }
    for (int k = 0; k < 4; k++) CUDA_CHECK(t->fault, cudaEventCreate(&t->ev[k]));
    return t;
}

static void free_arrays(sim_tree *t) {
    for (int k = 0; k < 2; k++) {
        CUDA_CHECK(t->fault, cudaFree(t->keys[k]));
        CUDA_CHECK(t->fault, cudaFree(t->idx[k]));
        t->keys[k] = NULL;
        t->idx[k] = NULL;
    }
    void **p[] = {&t->sort_temp,           (void **)&t->spos,       (void **)&t->group,
                  (void **)&t->cell_range, (void **)&t->cell_child, (void **)&t->cell_geo,
                  (void **)&t->cell_com,   (void **)&t->cell_q0,    (void **)&t->cell_q1,
                  (void **)&t->cell_err};
    for (void **q : p) {
        CUDA_CHECK(t->fault, cudaFree(*q));
        *q = NULL;
    }
    t->capacity = t->cell_capacity = 0;
    t->built = false;
}

static void domain_free(sim_tree *t);

extern "C" void sim_tree_destroy(sim_tree *t) {
    if (!t) return;
    CUDA_CHECK(t->fault, cudaDeviceSynchronize());
    free_arrays(t);
    if (t->boxes) domain_free(t);
    CUDA_CHECK(t->fault, cudaFree(t->ctr));
    CUDA_CHECK(t->fault, cudaFreeHost(t->host_ctr));
    CUDA_CHECK(t->fault, cudaFree(t->stack));
    for (int k = 0; k < 4; k++) CUDA_CHECK(t->fault, cudaEventDestroy(t->ev[k]));
    free(t);
}

/* The radix sort's scratch for n keys. t may be NULL (an estimate before the
 * tree exists): a failed query then reports nothing and counts 0. */
static size_t sort_temp_bytes(const sim_tree *t, int n) {
    size_t bytes = 0, split_sort = 0, select = 0;
    cub::DoubleBuffer<unsigned long long> k(NULL, NULL);
    cub::DoubleBuffer<uint8_t> g(NULL, NULL); /* sim_tree_domains_split's, by GPU */
    cub::DoubleBuffer<int> v(NULL, NULL);
    const int *no_int = NULL;
    const uint8_t *no_flag = NULL;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(NULL, bytes, k, v, n, 0, 3 * KEY_BITS);
    if (e == cudaSuccess) e = cub::DeviceRadixSort::SortPairs(NULL, split_sort, g, v, n, 0, 4);
    if (e == cudaSuccess) {
        e = cub::DeviceSelect::Flagged(NULL, select, no_int, no_flag, (int *)NULL, (int *)NULL, n);
    }
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (t) CUDA_CHECK(t->fault, e);
        return 0;
    }
    return std::max(bytes, std::max(split_sort, select));
}

extern "C" size_t sim_tree_bytes(const sim_tree *t, int n) {
    const size_t cells = (size_t)cells_for(n); /* 64-bit: past INT_MAX near a billion bodies */
    return (2 * sizeof(unsigned long long) + 2 * sizeof(int) + sizeof(float4) + sizeof(int2)) *
               (size_t)n +
           (2 * sizeof(int2) + 4 * sizeof(float4) + sizeof(float2)) * cells +
           sort_temp_bytes(t, n) + (t ? sizeof(int) * STACK_CAP * (size_t)t->walk_warps : 0);
}

extern "C" bool sim_tree_reserve(sim_tree *t, int n) {
    if (n <= t->capacity) return true;
    if (cells_for(n) > INT_MAX) return false; /* cells are numbered in int */
    sim_tree f = *t; /* the new arrays, built beside the old ones */
    for (int k = 0; k < 2; k++) f.keys[k] = NULL, f.idx[k] = NULL;
    f.sort_temp = NULL;
    f.spos = NULL;
    f.group = NULL;
    f.cell_range = f.cell_child = NULL;
    f.cell_geo = f.cell_com = f.cell_q0 = f.cell_q1 = NULL;
    f.cell_err = NULL;
    const size_t cells = (size_t)cells_for(n);
    f.sort_temp_bytes = sort_temp_bytes(t, n);
    bool ok = true;
    for (int k = 0; k < 2; k++) {
        ok = ok && cudaMalloc(&f.keys[k], sizeof(unsigned long long) * n) == cudaSuccess;
        ok = ok && cudaMalloc(&f.idx[k], sizeof(int) * n) == cudaSuccess;
    }
    ok = ok && cudaMalloc(&f.sort_temp, f.sort_temp_bytes) == cudaSuccess &&
         cudaMalloc(&f.spos, sizeof(float4) * n) == cudaSuccess &&
         cudaMalloc(&f.group, sizeof(int2) * n) == cudaSuccess &&
         cudaMalloc(&f.cell_range, sizeof(int2) * cells) == cudaSuccess &&
         cudaMalloc(&f.cell_child, sizeof(int2) * cells) == cudaSuccess &&
         cudaMalloc(&f.cell_geo, sizeof(float4) * cells) == cudaSuccess &&
         cudaMalloc(&f.cell_com, sizeof(float4) * cells) == cudaSuccess &&
         cudaMalloc(&f.cell_q0, sizeof(float4) * cells) == cudaSuccess &&
         cudaMalloc(&f.cell_q1, sizeof(float4) * cells) == cudaSuccess &&
         cudaMalloc(&f.cell_err, sizeof(float2) * cells) == cudaSuccess;
    if (!ok) {
        cudaGetLastError(); /* out of memory is not sticky */
        free_arrays(&f);    /* the old buffers stay */
        return false;
    }
    CUDA_CHECK(t->fault, cudaDeviceSynchronize());
    free_arrays(t);
    *t = f;
    t->capacity = n;
    t->cell_capacity = (int)cells;
    t->built = false;
    return true;
}

/* Blocks of a split_wide_kernel level: a warp per cell, SPLIT_WARPS cells
 * a block's round. */
static int split_blocks(int l, int n, int sm_count) {
    const long long most = l < 10 ? std::min<long long>(1LL << (3 * l), n) : n;
    return (int)std::max<long long>(
        1, std::min<long long>((most + SPLIT_WARPS - 1) / SPLIT_WARPS, 16LL * sm_count));
}

static int level_blocks(int l, int n, int sm_count) {
    const long long most = l < 10 ? std::min<long long>(1LL << (3 * l), n) : n;
    return (int)std::max<long long>(
        1, std::min<long long>(div_up((int)most, BUILD_THREADS), 4LL * sm_count));
}

static void harvest(sim_tree *t);

static int group_size(const sim_tree_params *p) {
    return p->group >= 128 ? 128 : p->group >= 64 ? 64 : 32;
}

/* Starts an evaluation: the last one's stats harvested (never waits), the
 * counters reset. Returns whether this one is timed. */
static bool begin_eval(sim_tree *t, const sim_tree_params *p, cudaStream_t stream) {
    harvest(t);
    const bool timed = !t->pending && !p->untimed;
    t->evaluations++;
    if (timed) {
        CUDA_CHECK(t->fault, cudaEventRecord(t->ev[0], stream));
        t->timed_evaluation = t->evaluations;
        t->sent_mb = t->sent_share_max = 0; /* sim_tree_forces_domains sets them */
        t->domain_boxes = 0;
    }
    CUDA_CHECK(t->fault, cudaMemsetAsync(t->ctr, 0, sizeof(tree_counters), stream));
    CUDA_CHECK(t->fault, cudaMemsetAsync((char *)t->ctr + offsetof(tree_counters, box_min), 0xff,
                                         sizeof(unsigned) * 3, stream));
    return timed;
}

/* The root cube from the box of pos[0 .. n), and every body's key (in
 * keys, with idx[i] = i). */
static void compute_keys(sim_tree *t, int n, const float4 *pos, unsigned long long *keys, int *idx,
                         cudaStream_t stream) {
    box_kernel<<<std::min(div_up(n, BUILD_THREADS), 4 * t->sm_count), BUILD_THREADS, 0, stream>>>(
        n, pos, t->ctr->box_min, t->ctr->box_max);
    CUDA_CHECK_LAUNCH(t->fault);
    keys_kernel<<<div_up(n, BUILD_THREADS), BUILD_THREADS, 0, stream>>>(n, pos, t->ctr, keys, idx);
    CUDA_CHECK_LAUNCH(t->fault);
}

/* Sorts n (key, index) pairs from keys[0] / idx[0]; t->sidx and the
 * returned keys are the sorted ones. */
static const unsigned long long *sort_keys(sim_tree *t, int n, cudaStream_t stream) {
    cub::DoubleBuffer<unsigned long long> keys(t->keys[0], t->keys[1]);
    cub::DoubleBuffer<int> idx(t->idx[0], t->idx[1]);
    size_t temp = t->sort_temp_bytes;
    CUDA_CHECK(t->fault, cub::DeviceRadixSort::SortPairs(t->sort_temp, temp, keys, idx, n, 0,
                                                         3 * KEY_BITS, stream));
    t->sidx = idx.Current();
    return keys.Current();
}

/* The octree of the n sorted bodies (their keys skeys, their indices in
 * pos t->sidx): positions gathered, levels split, multipoles bottom up. */
static void build_sorted(sim_tree *t, int n, const float4 *pos, const unsigned long long *skeys,
                         const sim_tree_params *p, cudaStream_t stream) {
    gather_kernel<<<div_up(n, BUILD_THREADS), BUILD_THREADS, 0, stream>>>(n, pos, t->sidx, t->spos,
                                                                          t->cell_range, t->ctr);
    CUDA_CHECK_LAUNCH(t->fault);
    /* Each level's first slot is the sum of the counts above it, which only
     * the device knows: the kernels add them up (level_first). */
    const int gsize = group_size(p);
    for (int l = 0; l < LEVELS; l++) {
        /* A warp per cell while an even spread would give cells of more
         * than COUNT_DIGITS_MAX bodies, a thread per cell below. */
        if (((long long)n >> (3 * l)) > COUNT_DIGITS_MAX) {
            split_wide_kernel<<<split_blocks(l, n, t->sm_count), BUILD_THREADS, 0, stream>>>(
                l, skeys, t->cell_range, t->cell_child, t->cell_geo, t->cell_capacity, gsize,
                t->group, t->ctr);
        } else {
            split_kernel<<<level_blocks(l, n, t->sm_count), BUILD_THREADS, 0, stream>>>(
                l, skeys, t->cell_range, t->cell_child, t->cell_geo, t->cell_capacity, gsize,
                t->group, t->ctr);
        }
        CUDA_CHECK_LAUNCH(t->fault);
    }
    for (int l = LEVELS - 1; l >= 0; l--) {
        multipole_kernel<<<level_blocks(l, n, t->sm_count), BUILD_THREADS, 0, stream>>>(
            l, p->theta, t->spos, t->cell_child, t->cell_geo, t->cell_com, t->cell_q0, t->cell_q1,
            t->cell_err, p->eps2, t->ctr);
        CUDA_CHECK_LAUNCH(t->fault);
    }
}

/* The walk of the groups that start in the sorted bodies [lo, hi), with the
 * other GPUs' trees' roots (nroots of them) beside this tree's. */
static void launch_walk(sim_tree *t, float4 *acc, const sim_tree_params *p, int lo, int hi,
                        const int *roots, int nroots, cudaStream_t stream) {
    const int bpl = group_size(p) / 32, blocks = t->walk_warps / (WALK_THREADS / 32);
    using walk_fn = decltype(&walk_kernel<1, false>);
    const walk_fn walks[3][2] = {{walk_kernel<1, false>, walk_kernel<1, true>},
                                 {walk_kernel<2, false>, walk_kernel<2, true>},
                                 {walk_kernel<4, false>, walk_kernel<4, true>}};
    const walk_mac mac = {p->acc_old, t->cell_err, p->acc_old ? p->alpha : 0.0f,
                          p->monopoles ? SIM_TREE_MONO_MARGIN : 0.0f};
    walks[bpl == 4 ? 2 : bpl - 1][p->potential]<<<blocks, WALK_THREADS, 0, stream>>>(
        t->group, t->spos, t->sidx, acc, p->eps2, t->cell_child, t->cell_com, t->cell_q0,
        t->cell_q1, mac, t->stack, lo, hi, roots, nroots, t->ctr);
    CUDA_CHECK_LAUNCH(t->fault);
}

/* Ends an evaluation: its stats copied behind it when timed. */
static void end_eval(sim_tree *t, bool timed, cudaStream_t stream) {
    t->built = true;
    if (!timed) return;
    CUDA_CHECK(t->fault, cudaEventRecord(t->ev[2], stream));
    CUDA_CHECK(t->fault, cudaMemcpyAsync(t->host_ctr, t->ctr, sizeof(tree_counters),
                                         cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(t->fault, cudaEventRecord(t->ev[3], stream));
    t->pending = true;
}

static bool reserve_or_fault(sim_tree *t, int n) {
    if (sim_tree_reserve(t, n)) return true;
    /* reserve() was checked up front: only a bug gets here */
    sim_fault_record(t->fault, (int)cudaErrorMemoryAllocation, __FILE__, __LINE__,
                     "sim_tree_reserve", "cudaErrorMemoryAllocation", "no GPU memory for the tree");
    return false;
}

extern "C" void sim_tree_forces(sim_tree *t, int n, const float4 *pos, float4 *acc,
                                const sim_tree_params *p, cudaStream_t stream) {
    if (n <= 0 || !reserve_or_fault(t, n)) return;
    const bool timed = begin_eval(t, p, stream);
    compute_keys(t, n, pos, t->keys[0], t->idx[0], stream);
    const unsigned long long *skeys = sort_keys(t, n, stream);
    build_sorted(t, n, pos, skeys, p, stream);
    if (timed) CUDA_CHECK(t->fault, cudaEventRecord(t->ev[1], stream));
    /* A share is a range of the sorted bodies (a stretch of the Morton
     * curve): the groups that start in it. The group list's order differs
     * from GPU to GPU (atomics fill it), the sorted order does not. */
    const bool part = p->share_to > 0;
    int lo = 0, hi = n;
    if (part) {
        lo = (int)std::min((double)n, std::max(0.0, (double)n * p->share_from));
        hi = (int)std::min((double)n, std::max(0.0, (double)n * p->share_to));
    }
    launch_walk(t, acc, p, lo, hi, NULL, 0, stream);
    if (part) {
        zero_others_kernel<<<std::min(div_up(n, BUILD_THREADS), 4 * t->sm_count), BUILD_THREADS, 0,
                             stream>>>(t->group, t->sidx, acc, lo, hi, t->ctr);
        CUDA_CHECK_LAUNCH(t->fault);
    }
    end_eval(t, timed, stream);
}

/* ------------------------------------------------------------------------ */
/* Several GPUs: each builds the tree of its own domain and walks it with the
 * parts of the others' trees its groups need (sim_tree_forces_domains). */

/* The small arrays of domain mode, on first use. */
static bool domain_alloc(sim_tree *t) {
    if (t->boxes) return true;
    bool ok =
        cudaMallocHost(&t->host_build, sizeof(tree_counters)) == cudaSuccess &&
        cudaMalloc(&t->boxes, sizeof(box_image) * DOMAIN_BOXES) == cudaSuccess &&
        cudaMalloc(&t->cut, sizeof(int2) * DOMAIN_BOXES) == cudaSuccess &&
        cudaMalloc(&t->cut_count, sizeof(int) * (1 + DOMAIN_CUTS)) == cudaSuccess &&
        cudaMalloc(&t->doms, sizeof(tree_domain) * DOMAIN_BOXES * SIM_MAX_GPUS) == cudaSuccess &&
        cudaMallocHost(&t->host_doms, sizeof(tree_domain) * DOMAIN_BOXES * SIM_MAX_GPUS) ==
            cudaSuccess &&
        cudaMalloc(&t->let_dev, sizeof(let_buf) * SIM_MAX_GPUS) == cudaSuccess &&
        cudaMalloc(&t->let_cnt, sizeof(let_count) * SIM_MAX_GPUS) == cudaSuccess &&
        cudaMallocHost(&t->host_let_cnt, sizeof(let_count) * SIM_MAX_GPUS) == cudaSuccess &&
        cudaMalloc(&t->roots, sizeof(int) * SIM_MAX_GPUS) == cudaSuccess &&
        cudaMalloc(&t->boxes_all, sizeof(unsigned) * 6 * SIM_MAX_GPUS) == cudaSuccess &&
        cudaMalloc(&t->samples, sizeof(unsigned long long) * DOMAIN_SAMPLES) == cudaSuccess &&
        cudaMallocHost(&t->host_samples, sizeof(unsigned long long) * DOMAIN_SAMPLES) ==
            cudaSuccess &&
        cudaMalloc(&t->sample_pos, sizeof(float4) * DOMAIN_SAMPLES) == cudaSuccess &&
        cudaMalloc(&t->selected, sizeof(int) * 3) == cudaSuccess &&
        cudaMalloc(&t->splits, sizeof(unsigned long long) * (SIM_MAX_GPUS + 1)) == cudaSuccess &&
        cudaMalloc(&t->dest_counts, sizeof(int) * (SIM_MAX_GPUS + 1)) == cudaSuccess &&
        cudaMallocHost(&t->host_dest_counts, sizeof(int) * (SIM_MAX_GPUS + 1)) == cudaSuccess &&
        cudaEventCreateWithFlags(&t->box_ready, cudaEventDisableTiming) == cudaSuccess &&
        cudaMallocHost(&t->host_roots, sizeof(int) * SIM_MAX_GPUS) == cudaSuccess;
    if (!ok) cudaGetLastError();
    return ok;
}

static void let_free(let_buf *b) {
    void *p[] = {b->child, b->com, b->q0, b->q1, b->err, b->src, b->body};
    for (void *q : p) cudaFree(q);
    *b = let_buf{};
}

static void domain_free(sim_tree *t) {
    for (int d = 0; d < SIM_MAX_GPUS; d++) let_free(&t->let[d]);
    void *dev[] = {t->boxes,       t->cut,        t->cut_count, t->doms,    t->let_dev,
                   t->let_cnt,     t->roots,      t->boxes_all, t->samples, t->splits,
                   t->dest_counts, t->sample_pos, t->selected};
    for (void *q : dev) CUDA_CHECK(t->fault, cudaFree(q));
    CUDA_CHECK(t->fault, cudaFreeHost(t->host_samples));
    CUDA_CHECK(t->fault, cudaFreeHost(t->host_dest_counts));
    CUDA_CHECK(t->fault, cudaEventDestroy(t->box_ready));
    void *host[] = {t->host_build, t->host_doms, t->host_let_cnt, t->host_roots};
    for (void *q : host) CUDA_CHECK(t->fault, cudaFreeHost(q));
    t->boxes = NULL;
    t->sample_ready = false;
}

/* A quarter more than n (at least 1): a buffer that grows keeps room for
 * the next evaluations, whose trees and shares differ by a little. */
static int with_slack(int n) {
    return (int)std::min<long long>(INT_MAX, std::max(1LL, n + (long long)n / 4));
}

/* Room in t->let[d] for cells and bodies; false: out of GPU memory. A
 * buffer that grows gets slack (with_slack): growing waits for the GPU and
 * frees and allocates seven arrays, which nearly every evaluation did
 * while the parts' sizes crept up. */
static bool let_reserve(sim_tree *t, int d, int cells, int bodies) {
    let_buf *b = &t->let[d];
    if (cells <= b->cell_cap && bodies <= b->body_cap) return true;
    CUDA_CHECK(t->fault, cudaDeviceSynchronize());
    let_free(b);
    cells = with_slack(cells);
    bodies = with_slack(bodies);
    const bool ok = cudaMalloc(&b->child, sizeof(int2) * cells) == cudaSuccess &&
                    cudaMalloc(&b->com, sizeof(float4) * cells) == cudaSuccess &&
                    cudaMalloc(&b->q0, sizeof(float4) * cells) == cudaSuccess &&
                    cudaMalloc(&b->q1, sizeof(float4) * cells) == cudaSuccess &&
                    cudaMalloc(&b->err, sizeof(float2) * cells) == cudaSuccess &&
                    cudaMalloc(&b->src, sizeof(int) * cells) == cudaSuccess &&
                    cudaMalloc(&b->body, sizeof(float4) * bodies) == cudaSuccess;
    if (!ok) {
        cudaGetLastError();
        let_free(b);
        return false;
    }
    b->cell_cap = cells;
    b->body_cap = bodies;
    return true;
}

static void no_room(sim_tree *t, const char *what) {
    sim_fault_record(t->fault, (int)cudaErrorMemoryAllocation, __FILE__, __LINE__, what,
                     "cudaErrorMemoryAllocation", "no GPU memory for the trees sent between GPUs");
}

/* Copies `bytes` from device src_dev to device dst_dev on the stream. */
static void copy_between(sim_tree *t, void *dst, int dst_dev, const void *src, int src_dev,
                         size_t bytes, cudaStream_t stream) {
    if (bytes == 0) return;
    if (dst_dev == src_dev) {
        CUDA_CHECK(t->fault, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    } else {
        CUDA_CHECK(t->fault, cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, stream));
    }
}

/* GPU k's box of its n_own bodies (its counters cleared before) into
 * every GPU's boxes_all, GPU to GPU; box_ready after it. */
static void send_box(sim_tree *const *trees, const int *devices, int count, int k,
                     const float4 *pos, cudaStream_t st) {
    sim_tree *t = trees[k];
    if (t->n_own > 0) {
        box_kernel<<<std::min(div_up(t->n_own, BUILD_THREADS), 4 * t->sm_count), BUILD_THREADS, 0,
                     st>>>(t->n_own, pos, t->ctr->box_min, t->ctr->box_max);
        CUDA_CHECK_LAUNCH(t->fault);
    }
    for (int j = 0; j < count; j++) {
        copy_between(t, trees[j]->boxes_all + 6 * k, devices[j], t->ctr->box_min, devices[k],
                     sizeof(unsigned) * 6, st);
    }
    CUDA_CHECK(t->fault, cudaEventRecord(t->box_ready, st));
}

/* GPU k's root cube, once every GPU's box has come (send_box). */
static void take_cube(sim_tree *const *trees, int count, int k, cudaStream_t st) {
    sim_tree *t = trees[k];
    for (int j = 0; j < count; j++) {
        CUDA_CHECK(t->fault, cudaStreamWaitEvent(st, trees[j]->box_ready, 0));
    }
    box_union_kernel<<<1, 32, 0, st>>>(count, t->boxes_all, t->ctr);
    CUDA_CHECK_LAUNCH(t->fault);
}

/* GPU self's split, once the counts are known (dest_kernel): its leavers
 * grouped by GPU, and the holes they leave below its stayers' count with
 * the stayers past it that fill them. Byte arrays in keys[1] (8 bytes a
 * body): the bodies' GPUs, leave and stay flags, the leavers' GPUs and
 * their sort's other buffer; int arrays in keys[0] (the keys are spent):
 * movers, then holes past n. */
static void split_lists(sim_tree *t, int n, int stay, int count, cudaStream_t st, const int **leave,
                        const int **holes, const int **movers) {
    uint8_t *bytes = (uint8_t *)t->keys[1];
    const uint8_t *dest = bytes, *leaving = bytes + n, *staying = bytes + 2 * (size_t)n;
    uint8_t *lkeys = bytes + 3 * (size_t)n, *lkeys_alt = bytes + 4 * (size_t)n;
    int *move = (int *)t->keys[0], *hole = (int *)t->keys[0] + n;
    const int leavers = n - stay;
    size_t temp = t->sort_temp_bytes;
    /* idx[0] is 0 .. n-1 (keys_kernel): the selects' input */
    CUDA_CHECK(t->fault, cub::DeviceSelect::Flagged(t->sort_temp, temp, t->idx[0], leaving,
                                                    t->idx[1], t->selected, n, st));
    temp = t->sort_temp_bytes;
    CUDA_CHECK(t->fault, cub::DeviceSelect::Flagged(t->sort_temp, temp, t->idx[0], leaving, hole,
                                                    t->selected + 2, stay, st));
    temp = t->sort_temp_bytes;
    CUDA_CHECK(t->fault,
               cub::DeviceSelect::Flagged(t->sort_temp, temp, t->idx[0] + stay, staying + stay,
                                          move, t->selected + 1, leavers, st));
    gather_dest_kernel<<<div_up(leavers, BUILD_THREADS), BUILD_THREADS, 0, st>>>(leavers, t->idx[1],
                                                                                 dest, lkeys);
    CUDA_CHECK_LAUNCH(t->fault);
    int bits = 1;
    while ((1 << bits) < count) bits++;
    cub::DoubleBuffer<uint8_t> keys(lkeys, lkeys_alt);
    cub::DoubleBuffer<int> idx(t->idx[1], t->idx[0]);
    temp = t->sort_temp_bytes;
    CUDA_CHECK(t->fault, cub::DeviceRadixSort::SortPairs(t->sort_temp, temp, keys, idx, leavers, 0,
                                                         bits, st));
    *leave = idx.Current();
    *holes = hole;
    *movers = move;
}

extern "C" void sim_tree_domains_forget(sim_tree *t) {
    t->sample_ready = false;
}

extern "C" bool sim_tree_domains_split(const sim_tree_team *team, const int *n,
                                       const float4 *const *pos, int *sends, const int **leave,
                                       const int **holes, const int **movers,
                                       const int **fill_count) {
    const int count = team->count;
    sim_tree *const *trees = team->trees;
    const int *devices = team->devices;
    const cudaStream_t *streams = team->streams;
    if (count < 1 || count > SIM_MAX_GPUS) return false;
    for (int k = 0; k < count; k++) {
        sim_tree *t = trees[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        if (t->capacity < n[k] && !reserve_or_fault(t, sim_tree_domain_room(n[k]))) return false;
        if (!domain_alloc(t)) {
            no_room(t, "sim_tree_domains_split");
            return false;
        }
    }
    /* Every GPU's keys in the common cube, and a sample of them: the keys
     * now of the positions its last tree sampled at even ranks of its
     * sorted bodies (the same bodies, a step ago), else keys at even
     * places in its arrays; each GPU's thread waits for its sample. */
    for (int k = 0; k < count; k++) {
        sim_tree *t = trees[k];
        const cudaStream_t st = streams[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        CUDA_CHECK(t->fault, cudaMemsetAsync(t->ctr, 0, sizeof(tree_counters), st));
        CUDA_CHECK(t->fault, cudaMemsetAsync((char *)t->ctr + offsetof(tree_counters, box_min),
                                             0xff, sizeof(unsigned) * 3, st));
        t->n_own = n[k];
        send_box(trees, devices, count, k, pos[k], st);
    }
    sim_gang_each(team->gang, count, [&](int k) {
        sim_tree *t = trees[k];
        const cudaStream_t st = streams[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        take_cube(trees, count, k, st);
        if (n[k] <= 0) return;
        keys_kernel<<<div_up(n[k], BUILD_THREADS), BUILD_THREADS, 0, st>>>(n[k], pos[k], t->ctr,
                                                                           t->keys[0], t->idx[0]);
        CUDA_CHECK_LAUNCH(t->fault);
        if (t->sample_ready) {
            sample_keys_kernel<<<div_up(DOMAIN_SAMPLES, 256), 256, 0, st>>>(t->sample_pos, t->ctr,
                                                                            t->samples);
        } else {
            sample_spaced_kernel<<<div_up(DOMAIN_SAMPLES, 256), 256, 0, st>>>(n[k], t->keys[0],
                                                                              t->samples);
        }
        CUDA_CHECK_LAUNCH(t->fault);
        CUDA_CHECK(t->fault, cudaMemcpyAsync(t->host_samples, t->samples,
                                             sizeof(unsigned long long) * DOMAIN_SAMPLES,
                                             cudaMemcpyDeviceToHost, st));
        CUDA_CHECK(t->fault, cudaStreamSynchronize(st));
    });
    /* The splitters: the keys at the ranks k N / count of all samples,
     * each standing for its GPU's n / DOMAIN_SAMPLES bodies. */
    struct weighted {
        unsigned long long key;
        double w;
    };
    std::vector<weighted> all((size_t)count * DOMAIN_SAMPLES);
    int m = 0;
    double total = 0;
    for (int k = 0; k < count; k++) {
        for (int i = 0; i < DOMAIN_SAMPLES && n[k] > 0; i++) {
            all[m++] = {trees[k]->host_samples[i], (double)n[k] / DOMAIN_SAMPLES};
        }
        total += n[k];
    }
    std::sort(all.begin(), all.begin() + m,
              [](const weighted &a, const weighted &b) { return a.key < b.key; });
    unsigned long long split[SIM_MAX_GPUS + 1];
    split[0] = 0;
    split[count] = ~0ull;
    double seen = 0;
    int at = 0;
    for (int g = 1; g < count; g++) {
        while (at < m && seen + all[at].w <= total * g / count) seen += all[at++].w;
        split[g] = at < m ? all[at].key : ~0ull;
    }
    /* Each body's GPU by its key, and how many go to each. */
    sim_gang_each(team->gang, count, [&](int k) {
        sim_tree *t = trees[k];
        const cudaStream_t st = streams[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        CUDA_CHECK(t->fault, cudaMemcpyAsync(t->splits, split, sizeof(split[0]) * (count + 1),
                                             cudaMemcpyHostToDevice, st));
        CUDA_CHECK(t->fault, cudaMemsetAsync(t->dest_counts, 0, sizeof(int) * count, st));
        if (n[k] > 0) {
            uint8_t *bytes = (uint8_t *)t->keys[1];
            dest_kernel<<<std::min(div_up(n[k], BUILD_THREADS), 4 * t->sm_count), BUILD_THREADS, 0,
                          st>>>(n[k], t->keys[0], t->splits, count, k, bytes, bytes + n[k],
                                bytes + 2 * (size_t)n[k], t->dest_counts);
            CUDA_CHECK_LAUNCH(t->fault);
        }
        CUDA_CHECK(t->fault, cudaMemcpyAsync(t->host_dest_counts, t->dest_counts,
                                             sizeof(int) * count, cudaMemcpyDeviceToHost, st));
        CUDA_CHECK(t->fault, cudaStreamSynchronize(st));
        /* Its leavers, holes and movers (split_lists). */
        for (int j = 0; j < count; j++) sends[k * count + j] = t->host_dest_counts[j];
        const int stay = sends[k * count + k];
        leave[k] = holes[k] = movers[k] = fill_count[k] = NULL;
        if (stay == n[k]) return;
        split_lists(t, n[k], stay, count, st, &leave[k], &holes[k], &movers[k]);
        fill_count[k] = t->selected + 1;
    });
    return true;
}

extern "C" int sim_tree_domain_room(int n) {
    return n + std::min(n / 4 + 4096, INT_MAX - n);
}

extern "C" void sim_tree_forces_domains(const sim_tree_team *team, const int *n,
                                        const float4 *const *pos, float4 *const *acc,
                                        const sim_tree_params *p) {
    const int count = team->count;
    sim_tree *const *trees = team->trees;
    const int *devices = team->devices;
    const cudaStream_t *streams = team->streams;
    if (count < 1 || count > SIM_MAX_GPUS) return;
    bool timed[SIM_MAX_GPUS];
    sim_tree_params own_p[SIM_MAX_GPUS]; /* each GPU's: its acc holds its last evaluation */
    for (int k = 0; k < count; k++) {
        own_p[k] = *p;
        if (p->acc_old) own_p[k].acc_old = acc[k];
    }
    /* 1. Every GPU: the box of its bodies, sent to every GPU (GPU to GPU,
     *    no wait for the host), so that all build in one root cube: a
     *    domain's cells are then cells of the one tree's, and a box around
     *    its groups in one of them cannot reach around another domain. */
    for (int k = 0; k < count; k++) { /* every GPU's room first: they copy to each other */
        sim_tree *t = trees[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        if (t->capacity < n[k] && !reserve_or_fault(t, sim_tree_domain_room(n[k]))) return;
        if (!domain_alloc(t)) return no_room(t, "sim_tree_forces_domains");
    }
    for (int k = 0; k < count; k++) {
        sim_tree *t = trees[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        timed[k] = begin_eval(t, p, streams[k]);
        t->n_own = n[k];
        send_box(trees, devices, count, k, pos[k], streams[k]);
    }
    /* 2. Every GPU: the common cube, the tree of its own bodies, and its
     *    domain; its thread waits for them. */
    sim_gang_each(team->gang, count, [&](int k) {
        sim_tree *t = trees[k];
        const cudaStream_t st = streams[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        take_cube(trees, count, k, st);
        if (t->n_own > 0) {
            keys_kernel<<<div_up(t->n_own, BUILD_THREADS), BUILD_THREADS, 0, st>>>(
                t->n_own, pos[k], t->ctr, t->keys[0], t->idx[0]);
            CUDA_CHECK_LAUNCH(t->fault);
            const unsigned long long *skeys = sort_keys(t, t->n_own, st);
            build_sorted(t, t->n_own, pos[k], skeys, p, st);
            sample_pos_kernel<<<div_up(DOMAIN_SAMPLES, 256), 256, 0, st>>>(t->n_own, t->spos,
                                                                           t->sample_pos);
            CUDA_CHECK_LAUNCH(t->fault);
        }
        t->sample_ready = t->n_own > 0; /* sim_tree_domains_split's next sample */
        /* Empty boxes: the images' lo all ones, hi and inv_aa zeros. */
        const size_t half = offsetof(box_image, hi);
        CUDA_CHECK(t->fault,
                   cudaMemset2DAsync(t->boxes, sizeof(box_image), 0xff, half, DOMAIN_BOXES, st));
        CUDA_CHECK(t->fault, cudaMemset2DAsync((char *)t->boxes + half, sizeof(box_image), 0,
                                               sizeof(box_image) - half, DOMAIN_BOXES, st));
        if (t->n_own > 0) {
            CUDA_CHECK(t->fault,
                       cudaMemsetAsync(t->cut_count, 0, sizeof(int) * (1 + DOMAIN_CUTS), st));
            int *tries = t->cut_count + 1;
            cut_count_kernel<<<4 * t->sm_count, BUILD_THREADS, 0, st>>>(
                t->n_own, t->cell_range, t->cell_child, t->cell_geo, t->cell_com, t->ctr, tries);
            CUDA_CHECK_LAUNCH(t->fault);
            cut_kernel<<<4 * t->sm_count, BUILD_THREADS, 0, st>>>(
                t->n_own, tries, t->cell_range, t->cell_child, t->cell_geo, t->cell_com, t->ctr,
                t->cut, t->cut_count);
            CUDA_CHECK_LAUNCH(t->fault);
            cut_sort_kernel<<<1, DOMAIN_BOXES, 0, st>>>(t->n_own, t->cut, t->cut_count);
            CUDA_CHECK_LAUNCH(t->fault);
            const bool rel = p->acc_old && p->alpha > 0.0f;
            domain_boxes_kernel<<<std::max(1, std::min(div_up(t->n_own / 16, BUILD_THREADS),
                                                       4 * t->sm_count)),
                                  BUILD_THREADS, 0, st>>>(t->group, t->spos, t->sidx,
                                                          rel ? acc[k] : NULL, p->alpha, t->cut,
                                                          t->cut_count, t->boxes, t->ctr);
            CUDA_CHECK_LAUNCH(t->fault);
        }
        tree_domain *mine = t->doms + (size_t)k * DOMAIN_BOXES;
        domain_kernel<<<div_up(DOMAIN_BOXES, 128), 128, 0, st>>>(
            t->boxes, t->n_own > 0 ? t->cut_count : NULL, mine);
        CUDA_CHECK_LAUNCH(t->fault);
        CUDA_CHECK(t->fault,
                   cudaMemcpyAsync(t->host_doms + (size_t)k * DOMAIN_BOXES, mine,
                                   sizeof(tree_domain) * DOMAIN_BOXES, cudaMemcpyDeviceToHost, st));
        CUDA_CHECK(t->fault, cudaMemcpyAsync(t->host_build, t->ctr, sizeof(tree_counters),
                                             cudaMemcpyDeviceToHost, st));
        CUDA_CHECK(t->fault, cudaStreamSynchronize(st));
    });
    /* 3. Every GPU: what each other GPU needs of its tree; should a buffer
     *    have been too small, again with twice the room (up to the whole
     *    tree, which holds any part of it): a buffer that filled stopped
     *    the count, so what it needs is not known. A level of the parts
     *    takes the children of the cells opened at the one above: none
     *    past the tree's deepest level. */
    int levels[SIM_MAX_GPUS]; /* each tree's levels that hold cells */
    for (int k = 0; k < count; k++) {
        sim_tree *t = trees[k];
        t->own_cells = 0;
        levels[k] = 0;
        for (int l = 0; l < LEVELS; l++) {
            t->own_cells += t->host_build->level_count[l];
            if (t->host_build->level_count[l] > 0) levels[k] = l + 1;
        }
        if (t->n_own == 0) t->own_cells = levels[k] = 0;
    }
    for (int round = 0;; round++) {
        bool fits = true, room[SIM_MAX_GPUS];
        sim_gang_each(team->gang, count, [&](int k) {
            sim_tree *t = trees[k];
            const cudaStream_t st = streams[k];
            room[k] = true;
            CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
            for (int d = 0; d < count; d++) {
                const size_t at = (size_t)d * DOMAIN_BOXES;
                if (d != k) {
                    memcpy(t->host_doms + at, trees[d]->host_doms + at,
                           sizeof(tree_domain) * DOMAIN_BOXES);
                }
                if (d == k) continue;
                const let_buf &b = t->let[d];
                const int cells =
                    std::min(t->own_cells + 1,
                             round > 0 ? 2 * b.cell_cap : std::max(4096, t->own_cells / 8));
                const int bodies =
                    std::min(t->n_own, round > 0 ? 2 * b.body_cap : std::max(4096, t->n_own / 8));
                if (!let_reserve(t, d, cells, bodies)) {
                    no_room(t, "let_reserve");
                    room[k] = false;
                    return;
                }
            }
            CUDA_CHECK(t->fault, cudaMemcpyAsync(t->doms, t->host_doms,
                                                 sizeof(tree_domain) * DOMAIN_BOXES * count,
                                                 cudaMemcpyHostToDevice, st));
            CUDA_CHECK(t->fault, cudaMemcpyAsync(t->let_dev, t->let, sizeof(let_buf) * count,
                                                 cudaMemcpyHostToDevice, st));
            let_start_kernel<<<1, SIM_MAX_GPUS, 0, st>>>(count, k, t->let_dev, t->let_cnt,
                                                         t->n_own);
            CUDA_CHECK_LAUNCH(t->fault);
            for (int l = 0; l < levels[k]; l++) {
                /* a warp a cell, the GPU's fill of blocks over the destinations */
                const int blocks = std::min(div_up(std::max(t->own_cells, 1), BUILD_THREADS / 32),
                                            4 * t->sm_count);
                let_level_kernel<<<dim3(std::max(1, blocks / count + 1), count), BUILD_THREADS, 0,
                                   st>>>(k, t->let_dev, t->let_cnt, t->doms, t->cell_child,
                                         t->cell_com, t->cell_q0, t->cell_q1, t->cell_err, t->spos);
                CUDA_CHECK_LAUNCH(t->fault);
                let_next_kernel<<<1, SIM_MAX_GPUS, 0, st>>>(count, t->let_cnt);
                CUDA_CHECK_LAUNCH(t->fault);
            }
            CUDA_CHECK(t->fault,
                       cudaMemcpyAsync(t->host_let_cnt, t->let_cnt, sizeof(let_count) * count,
                                       cudaMemcpyDeviceToHost, st));
            CUDA_CHECK(t->fault, cudaStreamSynchronize(st));
        });
        for (int k = 0; k < count; k++) {
            if (!room[k]) return;
        }
        for (int k = 0; k < count; k++) {
            for (int d = 0; d < count; d++) {
                if (d == k || trees[k]->n_own == 0) continue;
                const let_count c = trees[k]->host_let_cnt[d];
                fits = fits && c.cells <= trees[k]->let[d].cell_cap &&
                       c.bodies <= trees[k]->let[d].body_cap;
            }
        }
        if (fits) break;
        bool whole = true; /* every buffer holds a whole tree: only a bug finds no room */
        for (int k = 0; k < count; k++) {
            for (int d = 0; d < count; d++) {
                if (d == k || trees[k]->n_own == 0) continue;
                whole = whole && trees[k]->let[d].cell_cap > trees[k]->own_cells &&
                        trees[k]->let[d].body_cap >= trees[k]->n_own;
            }
        }
        if (whole) return no_room(trees[0], "sim_tree_forces_domains");
    }
    for (int k = 0; k < count; k++) {
        sim_tree *t = trees[k];
        if (!timed[k]) continue;
        double bytes = 0, share = 0;
        for (int d = 0; d < count && t->n_own > 0; d++) {
            if (d == k) continue;
            const let_count c = t->host_let_cnt[d];
            bytes += (double)c.cells * LET_CELL_BYTES + (double)c.bodies * sizeof(float4);
            share = std::max(share, (double)c.cells / std::max(t->own_cells, 1));
        }
        t->sent_mb = bytes * 1e-6;
        t->sent_share_max = share;
        t->domain_boxes = t->host_doms[(size_t)k * DOMAIN_BOXES].boxes;
    }
    /* A GPU whose tree has no room for what it receives grows it, which
     * drops what it built: the evaluation starts again (the same trees
     * and parts come out, now with room). */
    bool regrown = false;
    for (int k = 0; k < count; k++) {
        sim_tree *t = trees[k];
        long long cells = t->own_cells + 1, bodies = t->n_own;
        for (int j = 0; j < count; j++) {
            if (j == k || trees[j]->n_own == 0) continue;
            cells += trees[j]->host_let_cnt[k].cells;
            bodies += trees[j]->host_let_cnt[k].bodies;
        }
        if (cells <= t->cell_capacity && bodies <= t->capacity) continue;
        /* cells_for(n) >= n, so n = cells has room for them */
        const long long need = std::max(cells, bodies) + t->n_own / 4;
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        /* What it built goes anyway: freed first, so that the old arrays
         * and the new never need room at once. */
        CUDA_CHECK(t->fault, cudaDeviceSynchronize());
        free_arrays(t);
        if (need > INT_MAX / 3 || !sim_tree_reserve(t, (int)need)) {
            return no_room(t, "sim_tree_forces_domains");
        }
        regrown = true;
    }
    if (regrown) return sim_tree_forces_domains(team, n, pos, acc, p);
    /* 4. Every GPU: the others' parts placed after its own tree (cells past
     *    one empty cell, bodies past its own), then its walk. */
    sim_gang_each(team->gang, count, [&](int k) {
        sim_tree *t = trees[k];
        const cudaStream_t st = streams[k];
        CUDA_CHECK(t->fault, cudaSetDevice(devices[k]));
        const int empty = t->own_cells;
        int cells_at = empty + 1, bodies_at = t->n_own, nroots = 0;
        for (int j = 0; j < count; j++) {
            const sim_tree *src = trees[j];
            const let_count c = src->host_let_cnt[k];
            if (j == k || src->n_own == 0 || c.cells == 0) continue;
            if (cells_at + c.cells > t->cell_capacity || bodies_at + c.bodies > t->capacity) {
                no_room(t, "sim_tree_forces_domains"); /* cannot happen: grown above */
                return;
            }
            const let_buf &b = src->let[k];
            const int from = devices[j], to = devices[k];
            copy_between(t, t->cell_child + cells_at, to, b.child, from, sizeof(int2) * c.cells,
                         st);
            copy_between(t, t->cell_com + cells_at, to, b.com, from, sizeof(float4) * c.cells, st);
            copy_between(t, t->cell_q0 + cells_at, to, b.q0, from, sizeof(float4) * c.cells, st);
            copy_between(t, t->cell_q1 + cells_at, to, b.q1, from, sizeof(float4) * c.cells, st);
            copy_between(t, t->cell_err + cells_at, to, b.err, from, sizeof(float2) * c.cells, st);
            copy_between(t, t->spos + bodies_at, to, b.body, from, sizeof(float4) * c.bodies, st);
            let_place_kernel<<<div_up(c.cells, BUILD_THREADS), BUILD_THREADS, 0, st>>>(
                c.cells, cells_at, bodies_at, empty, t->cell_child, t->cell_com);
            CUDA_CHECK_LAUNCH(t->fault);
            t->host_roots[nroots++] = cells_at;
            cells_at += c.cells;
            bodies_at += c.bodies;
        }
        CUDA_CHECK(t->fault, cudaMemcpyAsync(t->roots, t->host_roots, sizeof(int) * SIM_MAX_GPUS,
                                             cudaMemcpyHostToDevice, st));
        if (timed[k]) CUDA_CHECK(t->fault, cudaEventRecord(t->ev[1], st));
        if (t->n_own > 0) launch_walk(t, acc[k], &own_p[k], 0, t->n_own, t->roots, nroots, st);
        end_eval(t, timed[k], st);
    });
}

/* Reads the last timed evaluation once its events have completed (called
 * at every evaluation and by sim_tree_get_stats). */
static void harvest(sim_tree *t) {
    if (!t->pending) return;
    const cudaError_t e = cudaEventQuery(t->ev[3]);
    if (e == cudaErrorNotReady) return;
    CUDA_CHECK(t->fault, e);
    sim_tree_stats st = {};
    st.valid = true;
    CUDA_CHECK(t->fault, cudaEventElapsedTime(&st.build_ms, t->ev[0], t->ev[1]));
    CUDA_CHECK(t->fault, cudaEventElapsedTime(&st.walk_ms, t->ev[1], t->ev[2]));
    const tree_counters *h = t->host_ctr;
    for (int l = 0; l < LEVELS; l++) {
        st.cells += h->level_count[l];
        if (h->level_count[l] > 0) st.depth = l;
    }
    st.leaves = h->leaves;
    st.interactions_per_body = h->walked > 0 ? (double)h->interactions / h->walked : 0.0;
    st.lane_use = h->slots > 0 ? (double)h->interactions / (double)h->slots : 0.0;
    st.monopole_share = h->interactions > 0 ? (double)h->monopoles / h->interactions : 0.0;
    st.walk_slots = (double)h->slots;
    st.evaluation = t->timed_evaluation;
    st.sent_mb = t->sent_mb;
    st.domain_boxes = t->domain_boxes;
    st.sent_share_max = t->sent_share_max;
    t->stats = st;
    t->pending = false;
}

extern "C" sim_tree_stats sim_tree_get_stats(sim_tree *t) {
    harvest(t);
    return t->stats;
}

extern "C" long long sim_tree_evaluations(const sim_tree *t) {
    return t->evaluations;
}

extern "C" int sim_tree_get_cells(sim_tree *t, int max_depth, sim_tree_cell *out, int max_cells,
                                  cudaStream_t stream) {
    if (!t->built || max_cells <= 0 || max_depth < 0) return 0;
    tree_counters h;
    CUDA_CHECK(t->fault, cudaMemcpyAsync(&h, t->ctr, sizeof h, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(t->fault, cudaStreamSynchronize(stream));
    int last = std::min(max_depth, LEVELS - 1), count = 0;
    for (int l = 0; l <= last; l++) count += h.level_count[l];
    count = std::min(count, max_cells);
    float4 *geo = (float4 *)malloc(sizeof(float4) * (size_t)std::max(count, 1));
    if (!geo) return 0;
    CUDA_CHECK(t->fault, cudaMemcpyAsync(geo, t->cell_geo, sizeof(float4) * count,
                                         cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(t->fault, cudaStreamSynchronize(stream));
    int l = 0, end = h.level_count[0];
    for (int k = 0; k < count; k++) {
        while (k >= end && l < LEVELS - 1) end += h.level_count[++l];
        out[k].center[0] = geo[k].x;
        out[k].center[1] = geo[k].y;
        out[k].center[2] = geo[k].z;
        out[k].half = geo[k].w;
        out[k].level = l;
    }
    free(geo);
    return count;
}

/* ------------------------------------------------------------------------ */
/* Exact accelerations of sampled bodies, for sim_measure_force_error. */

#define EXACT_THREADS 256

/* One block per sample: the all-pairs sum in double, the same coincident
 * rule as everywhere (a pair with r^2 + eps^2 == 0 contributes nothing). */
template <typename V>
__global__ void exact_kernel(int n, const V *pos, const V *acc, const int *sample, double eps2,
                             double *out) {
    __shared__ double sh[3][EXACT_THREADS / 32];
    const int i = sample[blockIdx.x];
    const V pi = pos[i];
    const double xi = pi.x, yi = pi.y, zi = pi.z;
    double a[3] = {0, 0, 0};
    for (int j = threadIdx.x; j < n; j += EXACT_THREADS) {
        const V pj = pos[j];
        const double dx = (double)pj.x - xi, dy = (double)pj.y - yi, dz = (double)pj.z - zi;
        const double r2 = dx * dx + dy * dy + dz * dz + eps2;
        if (j == i || r2 == 0.0) continue;
        const double rinv = 1.0 / sqrt(r2), f = (double)pj.w * rinv * rinv * rinv;
        a[0] += f * dx, a[1] += f * dy, a[2] += f * dz;
    }
    for (int k = 0; k < 3; k++) {
        for (int o = 16; o > 0; o >>= 1) a[k] += __shfl_xor_sync(0xffffffffu, a[k], o);
        if ((threadIdx.x & 31) == 0) sh[k][threadIdx.x >> 5] = a[k];
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        double sum = 0;
        for (int w = 0; w < EXACT_THREADS / 32; w++) sum += sh[threadIdx.x][w];
        out[6 * blockIdx.x + threadIdx.x] = sum;
        const V ai = acc[i];
        const double m[3] = {(double)ai.x, (double)ai.y, (double)ai.z};
        out[6 * blockIdx.x + 3 + threadIdx.x] = m[threadIdx.x];
    }
}

extern "C" bool sim_tree_force_error(int n, const float4 *pos, const float4 *acc, const void *pos64,
                                     const void *acc64, bool fp64, double eps2, int samples,
                                     uint64_t seed, sim_force_error *out, sim_error *err,
                                     sim_fault *fault, cudaStream_t stream) {
    memset(out, 0, sizeof *out);
    const bool all = samples >= n;
    const int m = all ? n : samples;
    int *host_idx = (int *)malloc(sizeof(int) * (size_t)m);
    double *host_out = (double *)malloc(sizeof(double) * 6 * (size_t)m);
    double *rel = (double *)malloc(sizeof(double) * (size_t)m);
    int *dev_idx = NULL;
    double *dev_out = NULL;
    if (!host_idx || !host_out || !rel || cudaMalloc(&dev_idx, sizeof(int) * m) != cudaSuccess ||
        cudaMalloc(&dev_out, sizeof(double) * 6 * m) != cudaSuccess) {
        cudaGetLastError();
        free(host_idx);
        free(host_out);
        free(rel);
        cudaFree(dev_idx);
        if (err) {
            snprintf(err->message, sizeof err->message, "no memory for %d force-error samples", m);
            snprintf(err->hint, sizeof err->hint, "ask for fewer samples");
        }
        return false;
    }
    sim_rng rng = sim_rng_seed(seed);
    for (int k = 0; k < m; k++) host_idx[k] = all ? k : (int)(sim_rng_next(&rng) % (uint64_t)n);
    CUDA_CHECK(fault,
               cudaMemcpyAsync(dev_idx, host_idx, sizeof(int) * m, cudaMemcpyHostToDevice, stream));
    if (fp64) {
        exact_kernel<double4a><<<m, EXACT_THREADS, 0, stream>>>(
            n, (const double4a *)pos64, (const double4a *)acc64, dev_idx, eps2, dev_out);
    } else {
        exact_kernel<float4><<<m, EXACT_THREADS, 0, stream>>>(n, pos, acc, dev_idx, eps2, dev_out);
    }
    CUDA_CHECK_LAUNCH(fault);
    CUDA_CHECK(fault, cudaMemcpyAsync(host_out, dev_out, sizeof(double) * 6 * m,
                                      cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(fault, cudaStreamSynchronize(stream));
    for (int k = 0; k < m; k++) rel[k] = sim_relative_error(host_out + 6 * k + 3, host_out + 6 * k);
    sim_force_error_summary(rel, m, out);
    free(host_idx);
    free(host_out);
    free(rel);
    CUDA_CHECK(fault, cudaFree(dev_idx));
    CUDA_CHECK(fault, cudaFree(dev_out));
    return true;
}
