/* sim_tree_cpu.c - the CPU reference Barnes-Hut tree: plain C, double precision.
 *
 * What it is: the `tree` force method of the CPU backend (sim_cpu.c calls it
 * when the variant is SIM_VARIANT_TREE) and the reference the GPU tree
 * (sim_tree.cu) is tested against. The same maths as the GPU tree (the
 * specification both implement, in short), written to be obviously right
 * first:
 *   - root: the cube about the centre of the bodies' bounding box, side
 *     L = max extent * (1 + 2^-20), or 1 when every body is at one point;
 *   - keys: 63-bit Morton keys of u = floor((x - lo) / L * 2^21) clamped to
 *     [0, 2^21 - 1], bits interleaved z y x (x lowest), sorted by a stable
 *     LSD radix sort (equal keys keep body order);
 *   - cells: a cell of level l is the run of sorted bodies sharing the top 3l
 *     key bits; it is split into its non-empty children while it holds more
 *     than LEAF = 16 bodies and l < 21. Cells are stored level by level
 *     (breadth first), so parents come before children, the children of a
 *     cell are contiguous, and the cells of levels <= d are a prefix;
 *   - multipoles about the centre of mass c: mass M and the traceless
 *     quadrupole Q_ab = sum m (3 y_a y_b - |y|^2 delta_ab), y = x - c, built
 *     bottom up (leaves from their bodies, parents from their children with
 *     the parallel-axis shift); massless cells are skipped by the walk;
 *   - opening: a cell is accepted for target x when |x - c| > l/theta + delta,
 *     delta = |c - geometric centre| (Barnes 1994) and, with the relative
 *     criterion (alpha > 0), M l^3 <= alpha a_ref |x - c|^5, a_ref = |a| of
 *     the body's last evaluation (the GPU's group of one); the root is always opened
 *     and an opened leaf is summed body by body, skipping the target itself
 *     and any pair with r^2 + eps^2 == 0 (softening 0, coincident bodies);
 *   - accepted cell, d = x - c, r2 = |d|^2 + eps^2, I = sum m |y|^2:
 *       a += -M d r^-3 + (Q d) r^-5 - (5/2) (d.Q d - eps^2 I) d r^-7
 *     (the Plummer-softened expansion to second order: expanding
 *     1/sqrt(|d - y|^2 + eps^2) about r leaves -eps^2 |y|^2 / (2 r^5) beside
 *     the traceless term; without it the error at eps ~ cell size is
 *     several times larger).
 * The walk is per body (a group of one). With theta <= 1 a body's own cell is
 * never accepted: every point of a cube of side l lies within sqrt(3)/2 l of
 * its centre, hence within sqrt(3)/2 l + delta < l/theta + delta of c.
 *
 * Threads: OpenMP over bodies in the key computation, the leaf multipoles, the
 * multipoles of each level (from BUILD_PARALLEL_MIN bodies on) and the walk
 * (from WALK_PARALLEL_MIN on: below, waking the threads costs more than they
 * save); every body's and every cell's sum runs in a fixed order, so the
 * results do not depend on the thread count.
 *
 * Stopping (sim_stop): the stop hook is asked between the build's phases
 * (and its sort's passes, and every CELLS_PER_ASK cells) and between blocks
 * of WALK_BLOCK bodies of the walk.
 *
 * Memory: everything is allocated by sim_tree_cpu_reserve (which the CPU
 * backend calls from prepare_variant and reserve), sized for the worst case,
 * so an evaluation cannot run out of memory. The worst case of the cell
 * count: leaves are disjoint and non-empty, so at most n; a split cell holds
 * >= 17 bodies and the split cells of one level are disjoint, so at most n/17
 * per level over levels 0..20. Hence cells <= n + 21 * floor(n/17) + 1, and
 * the tree holds at most sim_tree_cpu_bytes(n).
 *
 * Tested by tests/test_tree_cpu.c; its --sweep mode prints the accuracy
 * against theta (not a test).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

#define LEAF 16                         /* a cell with more bodies is split (below level 21) */
#define KEY_BITS 21                     /* per axis */
#define MAX_LEVEL 21                    /* = KEY_BITS: a level-21 cell is one key */
#define STACK (8 * (MAX_LEVEL + 1) + 8) /* DFS: <= 7 siblings waiting per level */

/* The build's O(N) loops use OpenMP's threads from this many bodies on, the
 * walk from WALK_PARALLEL_MIN on (docs/PERFORMANCE.md, "The CPU backend in
 * the window"). */
#define BUILD_PARALLEL_MIN (1 << 17)
#define WALK_PARALLEL_MIN 2048
#define WALK_BLOCK 4096     /* bodies of the walk between two asks of the stop hook */
#define CELLS_PER_ASK 65536 /* cells built between two asks */

static bool stop_asked(const sim_stop *stop) {
    return stop && stop->requested && stop->requested(stop->ctx);
}

/* What the walk's opening test reads comes first (one cache line of the
 * two a cell spans); the quadrupole is read only when a cell is accepted. */
typedef struct tree_cell {
    double m;         /* mass */
    double c[3];      /* centre of mass (geometric centre when m == 0) */
    double r_open2;   /* (l / theta + delta)^2 */
    double err;       /* m l^3: the relative criterion's error scale */
    int first, count; /* sorted bodies [first, first + count) */
    int child;        /* first child (children are contiguous); -1 for a leaf */
    int nchild;
    int level;
    double q[6]; /* traceless quadrupole about c: xx, yy, zz, xy, xz, yz */
    double i2;   /* second moment sum m |y|^2 about c: the softening's quadrupole term */
} tree_cell;

struct sim_tree_cpu {
    int capacity;      /* bodies the arrays hold */
    int cell_capacity; /* the worst-case cell count for capacity bodies */
    uint64_t *key, *key_tmp;
    int *order, *order_tmp; /* body index of sorted position k */
    double *spos;           /* sorted x, y, z, m */
    tree_cell *cells;
    int n, ncells, nleaves, depth;
    int level_start[MAX_LEVEL + 2]; /* cells of level l: [level_start[l], level_start[l+1]) */
    double lo[3], side;             /* root cube: lowest corner and side */
    long long interactions; /* of the last walk, all bodies */
    float build_ms, walk_ms;
    bool built;
};

sim_tree_cpu *sim_tree_cpu_create(void) {
    return calloc(1, sizeof(sim_tree_cpu));
}

static void free_arrays(sim_tree_cpu *t) {
    free(t->key);
    free(t->key_tmp);
    free(t->order);
    free(t->order_tmp);
    free(t->spos);
    free(t->cells);
}

void sim_tree_cpu_destroy(sim_tree_cpu *t) {
    if (!t) return;
    free_arrays(t);
    free(t);
}

static int max_cells(int n) {
    return n + MAX_LEVEL * (n / (LEAF + 1)) + 1;
}

double sim_tree_cpu_bytes(int n) {
    return (double)n * (2 * sizeof(uint64_t) + 2 * sizeof(int) + 4 * sizeof(double)) +
           (double)max_cells(n) * sizeof(tree_cell);
}

bool sim_tree_cpu_reserve(sim_tree_cpu *t, int n, sim_error *err) {
    if (n <= t->capacity) return true;
    const size_t un = (size_t)n, uc = (size_t)max_cells(n);
    sim_tree_cpu grown = *t;
    grown.key = malloc(sizeof(uint64_t) * un);
    grown.key_tmp = malloc(sizeof(uint64_t) * un);
    grown.order = malloc(sizeof(int) * un);
    grown.order_tmp = malloc(sizeof(int) * un);
    grown.spos = malloc(sizeof(double) * 4 * un);
    grown.cells = malloc(sizeof(tree_cell) * uc);
    if (!grown.key || !grown.key_tmp || !grown.order || !grown.order_tmp || !grown.spos ||
        !grown.cells) {
        free_arrays(&grown);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "the CPU tree of %d bodies needs %.1f MiB of host memory", n,
                     sim_tree_cpu_bytes(n) / 1048576.0);
            snprintf(err->hint, sizeof err->hint, "try a smaller --n");
        }
        return false;
    }
    free_arrays(t);
    *t = grown;
    t->capacity = n;
    t->cell_capacity = (int)uc;
    t->built = false;
    return true;
}

uint64_t sim_morton_spread(uint64_t v) {
    v &= 0x1fffffull;
    v = (v | v << 32) & 0x001f00000000ffffull;
    v = (v | v << 16) & 0x001f0000ff0000ffull;
    v = (v | v << 8) & 0x100f00f00f00f00full;
    v = (v | v << 4) & 0x10c30c30c30c30c3ull;
    v = (v | v << 2) & 0x1249249249249249ull;
    return v;
}

/* The integer coordinate of x on one axis, clamped (NaN maps to 0). */
static uint64_t grid(double x, double lo, double side) {
    const double u = floor((x - lo) / side * (double)(1 << KEY_BITS));
    if (!(u >= 0)) return 0;
    if (u > (double)((1 << KEY_BITS) - 1)) return (1 << KEY_BITS) - 1;
    return (uint64_t)u;
}

/* Stable LSD radix sort of (key, order) by key, 8 bits a pass; passes where
 * every key has the same digit are skipped. false: stopped. */
static bool radix_sort(sim_tree_cpu *t, int n, const sim_stop *stop) {
    for (int shift = 0; shift < 64; shift += 8) {
        if (stop_asked(stop)) return false;
        size_t count[257] = {0};
        for (int i = 0; i < n; i++) count[((t->key[i] >> shift) & 255) + 1]++;
        bool trivial = false;
        for (int d = 1; d <= 256; d++) trivial |= count[d] == (size_t)n;
        if (trivial) continue;
        for (int d = 1; d <= 256; d++) count[d] += count[d - 1];
        for (int i = 0; i < n; i++) {
            const size_t to = count[(t->key[i] >> shift) & 255]++;
            t->key_tmp[to] = t->key[i];
            t->order_tmp[to] = t->order[i];
        }
        uint64_t *k = t->key;
        t->key = t->key_tmp;
        t->key_tmp = k;
        int *o = t->order;
        t->order = t->order_tmp;
        t->order_tmp = o;
    }
    return true;
}

/* First k in [lo, hi) with (key[k] >> shift) > v (keys sorted). */
static int upper_bound(const uint64_t *key, int lo, int hi, int shift, uint64_t v) {
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if ((key[mid] >> shift) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Lowest corner and side of cell i's cube. */
static void cell_cube(const sim_tree_cpu *t, const tree_cell *cell, double lo[3], double *side) {
    const int shift = 3 * (MAX_LEVEL - cell->level);
    const uint64_t key = shift >= 64 ? 0 : (t->key[cell->first] >> shift) << shift;
    const double unit = t->side / (double)(1 << KEY_BITS);
    for (int a = 0; a < 3; a++) {
        uint64_t u = 0;
        for (int b = 0; b < KEY_BITS; b++) u |= ((key >> (3 * b + a)) & 1u) << b;
        lo[a] = t->lo[a] + (double)u * unit;
    }
    *side = t->side / (double)(1u << cell->level);
}

static void multipole_leaf(sim_tree_cpu *t, tree_cell *cell) {
    double m = 0, s[3] = {0, 0, 0};
    for (int k = cell->first; k < cell->first + cell->count; k++) {
        const double *p = &t->spos[4 * k];
        m += p[3];
        for (int a = 0; a < 3; a++) s[a] += p[3] * p[a];
    }
    cell->m = m;
    memset(cell->q, 0, sizeof cell->q);
    cell->i2 = 0;
    if (m == 0) return; /* centre set to the geometric one by the caller */
    for (int a = 0; a < 3; a++) cell->c[a] = s[a] / m;
    for (int k = cell->first; k < cell->first + cell->count; k++) {
        const double *p = &t->spos[4 * k];
        const double y[3] = {p[0] - cell->c[0], p[1] - cell->c[1], p[2] - cell->c[2]};
        const double y2 = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
        cell->q[0] += p[3] * (3 * y[0] * y[0] - y2);
        cell->q[1] += p[3] * (3 * y[1] * y[1] - y2);
        cell->q[2] += p[3] * (3 * y[2] * y[2] - y2);
        cell->q[3] += p[3] * 3 * y[0] * y[1];
        cell->q[4] += p[3] * 3 * y[0] * y[2];
        cell->q[5] += p[3] * 3 * y[1] * y[2];
        cell->i2 += p[3] * y2;
    }
}

static void multipole_parent(sim_tree_cpu *t, tree_cell *cell) {
    double m = 0, s[3] = {0, 0, 0};
    for (int k = cell->child; k < cell->child + cell->nchild; k++) {
        const tree_cell *ch = &t->cells[k];
        m += ch->m;
        for (int a = 0; a < 3; a++) s[a] += ch->m * ch->c[a];
    }
    cell->m = m;
    memset(cell->q, 0, sizeof cell->q);
    cell->i2 = 0;
    if (m == 0) return;
    for (int a = 0; a < 3; a++) cell->c[a] = s[a] / m;
    for (int k = cell->child; k < cell->child + cell->nchild; k++) {
        const tree_cell *ch = &t->cells[k];
        if (ch->m == 0) continue;
        const double y[3] = {ch->c[0] - cell->c[0], ch->c[1] - cell->c[1], ch->c[2] - cell->c[2]};
        const double y2 = y[0] * y[0] + y[1] * y[1] + y[2] * y[2], mc = ch->m;
        cell->q[0] += ch->q[0] + mc * (3 * y[0] * y[0] - y2);
        cell->q[1] += ch->q[1] + mc * (3 * y[1] * y[1] - y2);
        cell->q[2] += ch->q[2] + mc * (3 * y[2] * y[2] - y2);
        cell->q[3] += ch->q[3] + mc * 3 * y[0] * y[1];
        cell->q[4] += ch->q[4] + mc * 3 * y[0] * y[2];
        cell->q[5] += ch->q[5] + mc * 3 * y[1] * y[2];
        cell->i2 += ch->i2 + mc * y2;
    }
}

/* false: stopped (the tree is then not whole). */
static bool build(sim_tree_cpu *t, const double *pos, int n, double theta, const sim_stop *stop) {
    const bool wide = n >= BUILD_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    /* Root cube. */
    double mn[3] = {pos[0], pos[1], pos[2]}, mx[3] = {pos[0], pos[1], pos[2]};
    for (int i = 1; i < n; i++) {
        for (int a = 0; a < 3; a++) {
            mn[a] = fmin(mn[a], pos[4 * i + a]);
            mx[a] = fmax(mx[a], pos[4 * i + a]);
        }
    }
    double ext = 0;
    for (int a = 0; a < 3; a++) ext = fmax(ext, mx[a] - mn[a]);
    double side = ext * (1.0 + 0x1p-20);
    if (!(side > 0) || !isfinite(side)) side = 1.0; /* one point (or no finite extent) */
    for (int a = 0; a < 3; a++) t->lo[a] = 0.5 * (mn[a] + mx[a]) - 0.5 * side;
    t->side = side;

    /* Keys, sorted. */
    SIM_PARALLEL_FOR(schedule(static) if (wide))
    for (int i = 0; i < n; i++) {
        t->key[i] = sim_morton_spread(grid(pos[4 * i], t->lo[0], side)) |
                    sim_morton_spread(grid(pos[4 * i + 1], t->lo[1], side)) << 1 |
                    sim_morton_spread(grid(pos[4 * i + 2], t->lo[2], side)) << 2;
        t->order[i] = i;
    }
    if (!radix_sort(t, n, stop)) return false;
    SIM_PARALLEL_FOR(schedule(static) if (wide))
    for (int k = 0; k < n; k++) memcpy(&t->spos[4 * k], &pos[4 * t->order[k]], 4 * sizeof(double));

    /* Cells, breadth first. */
    t->cells[0] = (tree_cell){.first = 0, .count = n, .child = -1, .level = 0};
    t->ncells = 1;
    t->nleaves = 0;
    t->depth = 0;
    for (int l = 0; l <= MAX_LEVEL + 1; l++) t->level_start[l] = 0;
    for (int i = 0; i < t->ncells; i++) {
        if (i % CELLS_PER_ASK == CELLS_PER_ASK - 1 && stop_asked(stop)) return false;
        tree_cell *cell = &t->cells[i];
        if (cell->level > t->depth) {
            t->depth = cell->level;
            t->level_start[cell->level] = i;
        }
        if (cell->count <= LEAF || cell->level >= MAX_LEVEL) {
            t->nleaves++;
            continue;
        }
        const int shift = 3 * (MAX_LEVEL - cell->level - 1); /* the children's digit */
        const uint64_t prefix = (t->key[cell->first] >> shift) & ~(uint64_t)7;
        cell->child = t->ncells;
        int k = cell->first;
        const int end = cell->first + cell->count;
        for (uint64_t d = 0; d < 8 && k < end; d++) {
            const int next = upper_bound(t->key, k, end, shift, prefix | d);
            if (next == k) continue;
            assert(t->ncells < t->cell_capacity); /* the bound in the header comment */
            t->cells[t->ncells++] =
                (tree_cell){.first = k, .count = next - k, .child = -1, .level = cell->level + 1};
            k = next;
        }
        cell->nchild = t->ncells - cell->child;
    }
    t->level_start[t->depth + 1] = t->ncells;

    /* Multipoles, deepest level first; within a level the cells are independent. */
    for (int l = t->depth; l >= 0; l--) {
        if (stop_asked(stop)) return false;
        const int lo = t->level_start[l], hi = t->level_start[l + 1];
        SIM_PARALLEL_FOR(schedule(static) if (wide))
        for (int i = lo; i < hi; i++) {
            tree_cell *cell = &t->cells[i];
            double corner[3], s;
            cell_cube(t, cell, corner, &s);
            const double g[3] = {corner[0] + 0.5 * s, corner[1] + 0.5 * s, corner[2] + 0.5 * s};
            if (cell->child < 0)
                multipole_leaf(t, cell);
            else
                multipole_parent(t, cell);
            if (cell->m == 0) memcpy(cell->c, g, sizeof g);
            const double delta = sqrt((cell->c[0] - g[0]) * (cell->c[0] - g[0]) +
                                      (cell->c[1] - g[1]) * (cell->c[1] - g[1]) +
                                      (cell->c[2] - g[2]) * (cell->c[2] - g[2]));
            const double r_open = s / theta + delta;
            cell->r_open2 = r_open * r_open;
            cell->err = cell->m * s * s * s;
        }
    }
    return true;
}

/* The acceleration of sorted body k; adds the interactions it evaluated to
 * *count. inv_aa: 1 / (alpha a_ref) of the relative criterion, 0: off. */
static void walk_one(const sim_tree_cpu *t, int k, double eps2, double inv_aa, double a[3],
                     long long *count) {
    const double x = t->spos[4 * k], y = t->spos[4 * k + 1], z = t->spos[4 * k + 2];
    double ax = 0, ay = 0, az = 0;
    long long interactions = 0;
    int stack[STACK], top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const int ci = stack[--top];
        const tree_cell *cell = &t->cells[ci];
        if (cell->m == 0) continue; /* massless: no force */
        /* lecture: begin tree-open */
        const double dx = x - cell->c[0], dy = y - cell->c[1], dz = z - cell->c[2];
        const double d2 = dx * dx + dy * dy + dz * dz;
        if (ci != 0 && d2 > cell->r_open2 && cell->err * inv_aa <= d2 * d2 * sqrt(d2)) {
            /* lecture: end tree-open */
            /* lecture: begin tree-force */
            const double *q = cell->q;
            const double rinv = 1.0 / sqrt(d2 + eps2), rinv2 = rinv * rinv;
            const double rinv3 = rinv * rinv2, rinv5 = rinv3 * rinv2, rinv7 = rinv5 * rinv2;
            const double qx = q[0] * dx + q[3] * dy + q[4] * dz;
            const double qy = q[3] * dx + q[1] * dy + q[5] * dz;
            const double qz = q[4] * dx + q[5] * dy + q[2] * dz;
            /* d.Q d - eps^2 I: the softened expansion's second-order term. */
            const double dqd = dx * qx + dy * qy + dz * qz - eps2 * cell->i2;
            const double radial = -cell->m * rinv3 - 2.5 * dqd * rinv7;
            ax += radial * dx + qx * rinv5;
            ay += radial * dy + qy * rinv5;
            az += radial * dz + qz * rinv5;
            /* lecture: end tree-force */
            interactions++;
        } else if (cell->child < 0) {
            for (int j = cell->first; j < cell->first + cell->count; j++) {
                if (j == k) continue;
                const double *p = &t->spos[4 * j];
                const double ex = p[0] - x, ey = p[1] - y, ez = p[2] - z;
                const double r2 = ex * ex + ey * ey + ez * ez + eps2;
                interactions++;
                if (r2 == 0) continue; /* softening 0, coincident: no force */
                const double inv = 1.0 / sqrt(r2), s = p[3] * inv * inv * inv;
                ax += s * ex;
                ay += s * ey;
                az += s * ez;
            }
        } else {
            assert(top + cell->nchild <= STACK);
            for (int c = cell->nchild - 1; c >= 0; c--) stack[top++] = cell->child + c;
        }
    }
    a[0] = ax;
    a[1] = ay;
    a[2] = az;
    *count += interactions;
}

bool sim_tree_cpu_forces(sim_tree_cpu *t, const double *pos, int n, double eps2, double theta,
                         double alpha, const double *acc_old, double *acc, const sim_stop *stop) {
    assert(n >= 1 && n <= t->capacity);
    assert(theta > 0 && theta <= 1);
    const double t0 = sim_now_seconds();
    t->n = n;
    t->built = false;
    if (!build(t, pos, n, theta, stop)) return false;
    t->built = true;
    const double t1 = sim_now_seconds();
    long long interactions = 0;
    const bool wide = n >= WALK_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    for (int k0 = 0; k0 < n; k0 += WALK_BLOCK) {
        if (k0 > 0 && stop_asked(stop)) return false;
        const int k1 = n - k0 > WALK_BLOCK ? k0 + WALK_BLOCK : n;
        SIM_PARALLEL_FOR(schedule(dynamic, 64) reduction(+ : interactions) if (wide))
        for (int k = k0; k < k1; k++) {
            double a[3], inv_aa = 0;
            if (alpha > 0 && acc_old) {
                const double *o = &acc_old[3 * t->order[k]];
                const double aref = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
                if (aref > 0) inv_aa = 1.0 / (alpha * aref);
            }
            walk_one(t, k, eps2, inv_aa, a, &interactions);
            memcpy(&acc[3 * t->order[k]], a, sizeof a);
        }
    }
    const double t2 = sim_now_seconds();
    t->interactions = interactions;
    t->build_ms = (float)(1e3 * (t1 - t0));
    t->walk_ms = (float)(1e3 * (t2 - t1));
    return true;
}

sim_tree_stats sim_tree_cpu_stats(const sim_tree_cpu *t) {
    if (!t->built) return (sim_tree_stats){0};
    return (sim_tree_stats){
        .valid = true,
        .build_ms = t->build_ms,
        .walk_ms = t->walk_ms,
        .depth = t->depth,
        .cells = t->ncells,
        .leaves = t->nleaves,
        .interactions_per_body = (double)t->interactions / t->n,
    };
}

int sim_tree_cpu_cells(const sim_tree_cpu *t, int max_depth, sim_tree_cell *out,
                       int max_cells_out) {
    if (!t->built || max_depth < 0) return 0;
    const int last = max_depth >= t->depth ? t->ncells : t->level_start[max_depth + 1];
    const int count = last < max_cells_out ? last : max_cells_out;
    for (int i = 0; i < count; i++) {
        double lo[3], side;
        cell_cube(t, &t->cells[i], lo, &side);
        out[i] = (sim_tree_cell){
            .center = {(float)(lo[0] + 0.5 * side), (float)(lo[1] + 0.5 * side),
                       (float)(lo[2] + 0.5 * side)},
            .half = (float)(0.5 * side),
            .level = t->cells[i].level,
        };
    }
    return count;
}

int sim_tree_cpu_node_count(const sim_tree_cpu *t) {
    return t->built ? t->ncells : 0;
}

sim_tree_cpu_node sim_tree_cpu_node_get(const sim_tree_cpu *t, int i) {
    assert(t->built && i >= 0 && i < t->ncells);
    const tree_cell *cell = &t->cells[i];
    sim_tree_cpu_node node = {
        .level = cell->level,
        .first = cell->first,
        .count = cell->count,
        .child = cell->child,
        .nchild = cell->child < 0 ? 0 : cell->nchild,
        .mass = cell->m,
    };
    cell_cube(t, cell, node.lo, &node.side);
    memcpy(node.com, cell->c, sizeof node.com);
    memcpy(node.quad, cell->q, sizeof node.quad);
    node.second_moment = cell->i2;
    node.r_open = sqrt(cell->r_open2);
    return node;
}

const int *sim_tree_cpu_order(const sim_tree_cpu *t) {
    return t->built ? t->order : NULL;
}
