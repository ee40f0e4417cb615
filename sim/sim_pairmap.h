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
 * in groups of SIM_PAIRMAP_B. A warp holds one group's SIM_PAIRMAP_B x 32
 * bodies in registers ("i", SIM_PAIRMAP_B per lane). Group g's tasks are:
 * offsets o = 0 .. B-1, the pairs inside the group with its chunk r = o
 * (chunk r against the group's chunks k <= r); offsets o >= B, all pairs of
 * the group with the later chunk (g+1) B + o - B. The pairs inside a group
 * are B tasks rather than one so that every task costs about the same (one
 * chunk of j bodies against B x 32 i bodies): a single intra-group task cost
 * about five ordinary ones, and since the last groups have few later chunks
 * those heavy tasks crowded the end of the list, where the equal split gave
 * the last warps about twice the mean work at N = 16K (issue 13's audit).
 * The last group may have fewer than B chunks; it has one task per chunk.
 * In a task a lane L meets, at step s = 0 .. 31, the j body in slot
 * (L + s) mod 32 of the chunk. The task list is split into contiguous
 * ranges of equal cost, one per warp (intra tasks weigh 3/2 of the others).
 *
 * Compiles as C (static inline) and as CUDA (__host__ __device__). */
#ifndef NBODY_SIM_PAIRMAP_H
#define NBODY_SIM_PAIRMAP_H

#ifdef __CUDACC__
#define SIM_PAIRMAP_FN static __host__ __device__ __forceinline__
#else
#define SIM_PAIRMAP_FN static inline
#endif

#define SIM_PAIRMAP_B 4 /* chunks per group = i bodies per lane */

/* Tasks before group g: each predecessor g' (never the last group, so all
 * its B chunks are real) has B + chunks - (g'+1) B. */
SIM_PAIRMAP_FN long long sim_pairmap_prefix(long long g, long long chunks) {
    return g * (SIM_PAIRMAP_B + chunks) - (long long)SIM_PAIRMAP_B * g * (g + 1) / 2;
}

SIM_PAIRMAP_FN long long sim_pairmap_chunks(long long n) {
    return (n + 31) / 32;
}

SIM_PAIRMAP_FN long long sim_pairmap_groups(long long chunks) {
    return (chunks + SIM_PAIRMAP_B - 1) / SIM_PAIRMAP_B;
}

/* All tasks: the last group has one intra task per chunk it holds and no
 * later chunks. */
SIM_PAIRMAP_FN long long sim_pairmap_tasks(long long chunks) {
    const long long last = sim_pairmap_groups(chunks) - 1;
    return sim_pairmap_prefix(last, chunks) + (chunks - last * SIM_PAIRMAP_B);
}

/* Issue cost of a task, in halves of an ordinary one: a task inside a group
 * computes the same 32 x 32 x B pairs as an ordinary task but weighs each
 * (1 or 0, sim_pairmap_intra_weight) in a loop that is not unrolled, about
 * half as much again. */
#ifndef SIM_PAIRMAP_COST_LATER /* -D on the command line: for measuring other weights */
#define SIM_PAIRMAP_COST_LATER 2
#define SIM_PAIRMAP_COST_INTRA 3
#endif

/* Cost of the tasks before group g (every earlier group has B intra tasks). */
SIM_PAIRMAP_FN long long sim_pairmap_cost_prefix(long long g, long long chunks) {
    return SIM_PAIRMAP_COST_LATER * sim_pairmap_prefix(g, chunks) +
           (long long)(SIM_PAIRMAP_COST_INTRA - SIM_PAIRMAP_COST_LATER) * SIM_PAIRMAP_B * g;
}

/* Cost of all tasks: one intra task per chunk, the rest ordinary. */
SIM_PAIRMAP_FN long long sim_pairmap_cost(long long chunks) {
    return SIM_PAIRMAP_COST_LATER * sim_pairmap_tasks(chunks) +
           (long long)(SIM_PAIRMAP_COST_INTRA - SIM_PAIRMAP_COST_LATER) * chunks;
}

/* The first task whose cost starts at or after c (tasks, if none): the
 * group by a binary search over the cost prefixes, then the offset in it. */
SIM_PAIRMAP_FN long long sim_pairmap_task_at_cost(long long c, long long chunks) {
    const long long groups = sim_pairmap_groups(chunks), tasks = sim_pairmap_tasks(chunks);
    long long lo = 0, hi = groups - 1;
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (sim_pairmap_cost_prefix(mid, chunks) <= c)
            lo = mid;
        else
            hi = mid - 1;
    }
    const long long co = c - sim_pairmap_cost_prefix(lo, chunks);
    const long long intra_cost = (long long)SIM_PAIRMAP_COST_INTRA * SIM_PAIRMAP_B;
    long long o;
    if (co <= 0) {
        o = 0;
    } else if (co <= intra_cost) { /* intra tasks start at 0, 3, 6, ... */
        o = (co + SIM_PAIRMAP_COST_INTRA - 1) / SIM_PAIRMAP_COST_INTRA;
    } else { /* later tasks start at 3B, 3B + 2, ... */
        o = SIM_PAIRMAP_B + (co - intra_cost + SIM_PAIRMAP_COST_LATER - 1) / SIM_PAIRMAP_COST_LATER;
    }
    const long long t = sim_pairmap_prefix(lo, chunks) + o;
    /* Past the group's last task: the next group's first (its prefix). */
    const long long next = lo + 1 < groups ? sim_pairmap_prefix(lo + 1, chunks) : tasks;
    return t < next ? t : next;
}

/* Warp w of all warps takes tasks [*first, *last): the tasks whose cost
 * starts in its equal share [cost w / all, cost (w + 1) / all). */
SIM_PAIRMAP_FN void sim_pairmap_range(long long chunks, long long w, long long all,
                                      long long *first, long long *last) {
    const long long cost = sim_pairmap_cost(chunks);
    *first = sim_pairmap_task_at_cost(cost * w / all, chunks);
    *last = sim_pairmap_task_at_cost(cost * (w + 1) / all, chunks);
}

/* The group of task t, for a warp whose previous task was in group g (-1
 * before its first): g itself while t is still in it, else a binary search
 * over the later groups for the last one with prefix <= t. */
SIM_PAIRMAP_FN long long sim_pairmap_group(long long t, long long g, long long groups,
                                           long long chunks) {
    if (g >= 0 && (g + 1 >= groups || t < sim_pairmap_prefix(g + 1, chunks))) return g;
    long long lo = g < 0 ? 0 : g + 1, hi = groups - 1;
    while (lo < hi) {
        const long long mid = (lo + hi + 1) / 2;
        if (sim_pairmap_prefix(mid, chunks) <= t)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The j chunk of the task at offset o of group g: for o < B (a task inside
 * the group) its chunk r = o, else the later chunk (g+1) B + o - B. */
SIM_PAIRMAP_FN long long sim_pairmap_chunk(long long g, long long o) {
    return o < SIM_PAIRMAP_B ? g * SIM_PAIRMAP_B + o : (g + 1) * SIM_PAIRMAP_B + (o - SIM_PAIRMAP_B);
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
