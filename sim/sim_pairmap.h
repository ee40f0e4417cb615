/* sim_pairmap.h - the index arithmetic of the `best` kernel: which pairs of
 * bodies each task and each warp of its persistent grid evaluates.
 *
 * Why a header of its own: the mapping (a triangle of chunk pairs, groups,
 * the intra-group task, padding) is easy to get subtly wrong and a wrong
 * mapping still gives plausible forces. Kept here, the kernel
 * (sim_kernels.cu) and a CPU test (tests/test_pairmap.c) run the very same
 * functions, so CI checks that every unordered pair is evaluated exactly
 * once for many N and warp counts without a GPU.
 *
 * The mapping: bodies in chunks of 32 (padding past N has no mass), chunks
 * in groups of B. A warp holds one group's B x 32 bodies in registers
 * ("i", B per lane). Group g's tasks are:
 * offsets o = 0 .. B-1, the pairs inside the group with its chunk r = o
 * (chunk r against the group's chunks k <= r); offsets o >= B, all pairs of
 * the group with the later chunk (g+1) B + o - B. Either way the j chunk is
 * g B + o, so a group's tasks take its chunks g B ... chunks - 1 in turn.
 * The pairs inside a group are B tasks rather than one so that every task
 * costs about the same (one chunk of j bodies against B x 32 i bodies): a
 * single intra-group task cost several ordinary ones, and since the last
 * groups have few later chunks those heavy tasks crowded the end of the
 * list, where the equal split left the last warps far more than the mean
 * work. The last group may have fewer than B
 * chunks; it has one task per chunk. In a task a lane L meets, at step
 * s = 0 .. 31, the j body in slot (L + s) mod 32 of the chunk. The task
 * list is split into contiguous ranges of equal cost, one per warp, in parts
 * of a task (intra tasks weigh 3/2 of the others; sim_pairmap_walk).
 *
 * Compiles as C (static inline) and as CUDA (__host__ __device__). */
#ifndef NBODY_SIM_PAIRMAP_H
#define NBODY_SIM_PAIRMAP_H

#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef __CUDACC__
#define SIM_PAIRMAP_FN static __host__ __device__ __forceinline__
#else
#define SIM_PAIRMAP_FN static inline
#endif

/* B, the chunks per group (= i bodies per lane), is each function's
 * argument b: each build of the kernel has its own, as many as its
 * registers hold (sim_kernels.cu, forces_best_kernel). */

/* Tasks before group g: each predecessor g' (never the last group, so all
 * its b chunks are real) has b + chunks - (g'+1) b. */
SIM_PAIRMAP_FN long long sim_pairmap_prefix(long long g, long long chunks, int b) {
    return g * (b + chunks) - (long long)b * g * (g + 1) / 2;
}

SIM_PAIRMAP_FN long long sim_pairmap_chunks(long long n) {
    return (n + 31) / 32;
}

SIM_PAIRMAP_FN long long sim_pairmap_groups(long long chunks, int b) {
    return (chunks + b - 1) / b;
}

/* All tasks: the last group has one intra task per chunk it holds and no
 * later chunks. */
SIM_PAIRMAP_FN long long sim_pairmap_tasks(long long chunks, int b) {
    const long long last = sim_pairmap_groups(chunks, b) - 1;
    return sim_pairmap_prefix(last, chunks, b) + (chunks - last * b);
}

/* A warp's share of the work may start and end inside a task: each task is
 * `parts` parts (1, 2 or 4) of 32 / parts steps, and the split counts
 * parts. With whole tasks a warp's share can miss the equal one by up to a
 * task's cost, and at N = 16K a warp has only eight to twelve tasks. A part
 * that ends a warp's share ends at step s1 < 32, where lane L holds the sum
 * of j body (L + s1) mod 32 (the sums move one lane per step), so a partial
 * task is as easy to finish as a whole one. The kernel reads each warp's
 * first and last tasks from a table the host computes (sim_kernels.cu,
 * best_walks). */
#define SIM_PAIRMAP_MAX_PARTS 4

/* Issue cost of a part, in halves of an ordinary one: a task inside a group
 * computes the same 32 x 32 x B pairs as an ordinary task but weighs each
 * (1 or 0, sim_pairmap_intra_weight) in a loop that is not unrolled, about
 * half as much again. */
#ifndef SIM_PAIRMAP_COST_LATER /* -D on the command line: for measuring other weights */
#define SIM_PAIRMAP_COST_LATER 2
#define SIM_PAIRMAP_COST_INTRA 3
#endif

/* Cost of the parts before group g (every earlier group has b intra tasks). */
SIM_PAIRMAP_FN long long sim_pairmap_cost_prefix(long long g, long long chunks, int b, int parts) {
    return parts * (SIM_PAIRMAP_COST_LATER * sim_pairmap_prefix(g, chunks, b) +
                    (long long)(SIM_PAIRMAP_COST_INTRA - SIM_PAIRMAP_COST_LATER) * b * g);
}

/* Cost of all parts: one intra task per chunk, the rest ordinary. */
SIM_PAIRMAP_FN long long sim_pairmap_cost(long long chunks, int b, int parts) {
    return parts * (SIM_PAIRMAP_COST_LATER * sim_pairmap_tasks(chunks, b) +
                    (long long)(SIM_PAIRMAP_COST_INTRA - SIM_PAIRMAP_COST_LATER) * chunks);
}

/* The first part (task t's parts are t parts ... t parts + parts - 1) whose
 * cost starts at or after c (all parts, if none): the group by a binary
 * search over the cost prefixes, then the offset in it. */
SIM_PAIRMAP_FN long long sim_pairmap_part_at_cost(long long c, long long chunks, int b, int parts) {
    const long long groups = sim_pairmap_groups(chunks, b);
    long long lo = 0, hi = groups - 1;
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (sim_pairmap_cost_prefix(mid, chunks, b, parts) <= c)
            lo = mid;
        else
            hi = mid - 1;
    }
    const long long co = c - sim_pairmap_cost_prefix(lo, chunks, b, parts);
    const long long intra_parts = (long long)parts * b;
    const long long intra_cost = SIM_PAIRMAP_COST_INTRA * intra_parts;
    long long o;
    if (co <= 0) {
        o = 0;
    } else if (co <= intra_cost) { /* intra parts start at 0, 3, 6, ... */
        o = (co + SIM_PAIRMAP_COST_INTRA - 1) / SIM_PAIRMAP_COST_INTRA;
    } else { /* later parts start at 3 parts b, 3 parts b + 2, ... */
        o = intra_parts + (co - intra_cost + SIM_PAIRMAP_COST_LATER - 1) / SIM_PAIRMAP_COST_LATER;
    }
    const long long part = parts * sim_pairmap_prefix(lo, chunks, b) + o;
    /* Past the group's last part: the next group's first. */
    const long long next =
        lo + 1 < groups ? sim_pairmap_prefix(lo + 1, chunks, b) : sim_pairmap_tasks(chunks, b);
    return part < parts * next ? part : parts * next;
}

/* Warp w of all warps takes parts [*first, *last): the parts whose cost
 * starts in its equal share [cost w / all, cost (w + 1) / all). */
SIM_PAIRMAP_FN void sim_pairmap_range(long long chunks, int b, int parts, long long w,
                                      long long all, long long *first, long long *last) {
    const long long cost = sim_pairmap_cost(chunks, b, parts);
    /* cost w / all without the product cost w: at N = 2^31 - 1 (b = 4, one
     * part a task) that is 1.1e15 x the warp number, half of 2^63 at 4,224
     * warps and past it at twice as many */
    const long long per = cost / all, rest = cost % all;
    *first = sim_pairmap_part_at_cost(per * w + rest * w / all, chunks, b, parts);
    *last = sim_pairmap_part_at_cost(per * (w + 1) + rest * (w + 1) / all, chunks, b, parts);
}

/* The group of task t: a binary search for the last group with prefix <= t. */
SIM_PAIRMAP_FN long long sim_pairmap_group(long long t, long long chunks, int b) {
    long long lo = 0, hi = sim_pairmap_groups(chunks, b) - 1;
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (sim_pairmap_prefix(mid, chunks, b) <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* A warp's walk through its share, task by task. The tasks of group g are
 * its chunks g b ... chunks - 1 taken as j (the first b of them inside the
 * group), so moving on is c + 1, or the next group's first chunk. The share
 * ends with a task named by its group and chunk and the step it stops at,
 * so that the kernel's bookkeeping per task is a few 32-bit operations: a
 * count of the parts left needs 64 bits from about 2.5e8 bodies (n^2 /
 * (2048 b) tasks over a few thousand warps), the bodies' indices fit 32
 * bits unsigned for every int N. */
typedef struct sim_pairmap_walk {
    int g, c; /* the current task: group g (i bodies), chunk c (j bodies); g < 0: no share */
    int s0;   /* the first task's first step (a share may start inside a task); 0 after */
    int g_end, c_end; /* the share's last task */
    int s_end;        /* ... and the step it stops before (a whole part: 32 / parts, ... 32) */
} sim_pairmap_walk;

/* Whether the current task is the share's last. */
SIM_PAIRMAP_FN bool sim_pairmap_walk_last(const sim_pairmap_walk *w) {
    return w->c == w->c_end && w->g == w->g_end;
}

/* The step the current task stops before: 32, or the share's end. */
SIM_PAIRMAP_FN int sim_pairmap_walk_s1(const sim_pairmap_walk *w) {
    return sim_pairmap_walk_last(w) ? w->s_end : 32;
}

/* Group and chunk of task t. */
SIM_PAIRMAP_FN void sim_pairmap_task(long long t, long long chunks, int b, int *g, int *c) {
    const long long group = sim_pairmap_group(t, chunks, b);
    *g = (int)group;
    *c = (int)(group * b + (t - sim_pairmap_prefix(group, chunks, b)));
}

/* Warp w of all, with tasks of `parts` parts (1, 2 or 4): its first task
 * and its last; w->g < 0 when it has none. */
SIM_PAIRMAP_FN void sim_pairmap_walk_start(sim_pairmap_walk *w, long long chunks, int b, int parts,
                                           long long warp, long long all) {
    long long first, last;
    sim_pairmap_range(chunks, b, parts, warp, all, &first, &last);
    const int steps = 32 / parts; /* per part */
    if (first >= last) {
        w->g = w->c = w->g_end = w->c_end = -1;
        w->s0 = w->s_end = 0;
        return;
    }
    sim_pairmap_task(first / parts, chunks, b, &w->g, &w->c);
    w->s0 = (int)(first % parts) * steps;
    sim_pairmap_task((last - 1) / parts, chunks, b, &w->g_end, &w->c_end);
    w->s_end = (int)((last - 1) % parts + 1) * steps;
}

/* Moves a walk that is not at its last task to the next task over `chunks`
 * chunks, from its first step. */
SIM_PAIRMAP_FN void sim_pairmap_walk_next(sim_pairmap_walk *w, int chunks, int b) {
    if (++w->c == chunks) {
        w->g++;
        w->c = w->g * b;
    }
    w->s0 = 0;
}

/* The j slot whose sum lane L holds after a task's last step s1 - 1: the
 * sums move one lane down per step (lane L takes lane L + 1's). */
SIM_PAIRMAP_FN int sim_pairmap_held_slot(int lane, int s1) {
    return (lane + s1) & 31;
}

/* Weight of a pair in an intra-group task (1 evaluated, 0 skipped): j chunk
 * r of the group meets i chunk k at step s on lane `lane`. Chunks k < r: every
 * pair. k == r: within one chunk each pair once - offsets 1 .. 15 on every
 * lane, 16 on lanes 0 .. 15 (the other half would repeat those pairs), 0 is
 * the body itself. k > r: those pairs come when r and k swap roles. */
SIM_PAIRMAP_FN float sim_pairmap_intra_weight(int k, int r, int s, int lane) {
    const float half = (s >= 1 && s <= 15) || (s == 16 && lane < 16) ? 1.0f : 0.0f;
    return k < r ? 1.0f : k == r ? half : 0.0f;
}

#endif /* NBODY_SIM_PAIRMAP_H */
