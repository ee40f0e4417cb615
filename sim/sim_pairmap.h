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
 * offset 0, the pairs inside the group (chunk r against chunks k <= r of the
 * group); offset o > 0, all pairs of the group with chunk (g+1) B + o - 1.
 * In a task a lane L meets, at step s = 0 .. 31, the j body in slot
 * (L + s) mod 32 of the chunk. The task list is split into equal contiguous
 * ranges, one per warp.
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

/* Tasks before group g: each predecessor g' has 1 + chunks - (g'+1) B. */
SIM_PAIRMAP_FN long long sim_pairmap_prefix(long long g, long long chunks) {
    return g * (1 + chunks) - (long long)SIM_PAIRMAP_B * g * (g + 1) / 2;
}

SIM_PAIRMAP_FN long long sim_pairmap_chunks(long long n) {
    return (n + 31) / 32;
}

SIM_PAIRMAP_FN long long sim_pairmap_groups(long long chunks) {
    return (chunks + SIM_PAIRMAP_B - 1) / SIM_PAIRMAP_B;
}

/* All tasks: the last group has its intra task only. */
SIM_PAIRMAP_FN long long sim_pairmap_tasks(long long chunks) {
    return sim_pairmap_prefix(sim_pairmap_groups(chunks) - 1, chunks) + 1;
}

/* Warp w of all warps takes tasks [*first, *last). */
SIM_PAIRMAP_FN void sim_pairmap_range(long long tasks, long long w, long long all, long long *first,
                                      long long *last) {
    *first = tasks * w / all;
    *last = tasks * (w + 1) / all;
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

/* The j chunk of the task at offset o > 0 of group g. */
SIM_PAIRMAP_FN long long sim_pairmap_later_chunk(long long g, long long o) {
    return (g + 1) * SIM_PAIRMAP_B + (o - 1);
}

/* Weight of a pair in the intra-group task (1 evaluated, 0 skipped): j chunk
 * r of the group meets i chunk k at step s on lane `lane`. Chunks k < r: every
 * pair. k == r: within one chunk each pair once - offsets 1 .. 15 on every
 * lane, 16 on lanes 0 .. 15 (the other half would repeat those pairs), 0 is
 * the body itself. k > r: those pairs come when r and k swap roles. */
SIM_PAIRMAP_FN float sim_pairmap_intra_weight(int k, int r, int s, int lane) {
    const float half = (s >= 1 && s <= 15) || (s == 16 && lane < 16) ? 1.0f : 0.0f;
    return k < r ? 1.0f : k == r ? half : 0.0f;
}

#endif /* NBODY_SIM_PAIRMAP_H */
