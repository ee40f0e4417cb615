/* test_pairmap.c - the `best` kernel's task-to-pair mapping, checked on the CPU.
 *
 * Why: `best` evaluates each pair of bodies once and applies it to both, so
 * a pair mapped twice doubles a force and a pair never mapped drops one -
 * both give plausible-looking motion. The kernel's index arithmetic lives in
 * sim/sim_pairmap.h; this test runs those same functions the way the kernel
 * does (sim_kernels.cu, forces_best_kernel) and checks:
 *   1. the warps' ranges of parts (a task is 1, 2 or 4 parts) cover
 *      every part exactly once, in order, the binary search finds the group
 *      whose task range holds a task, and each warp's share of the cost
 *      (intra parts 3, others 2) is within one part's cost of the equal
 *      share, with sim_pairmap_part_at_cost agreeing with a scan of the
 *      parts' cost starts, for N = 1 .. 700 and warp counts 1 .. 300, 1000
 *      and the shapes the H100 runs (132 SMs x 32 and 28 warps, 132 x 8);
 *   2. every unordered pair {i, j} of bodies i != j < N is evaluated exactly
 *      once and no body with itself, for N = 1 .. 700, walking the tasks
 *      with sim_pairmap_walk as the warps of a grid do (one warp, and a warp
 *      count per N that makes shares start and end inside tasks); that
 *      every task's chunk is a real one (no task of padding alone) and its
 *      steps whole parts; and that the lane whose j sum the kernel stores to
 *      body (L + s1) mod 32 after a task's last step s1 - 1 does hold that
 *      body's sum.
 * Exact integer counts: no tolerance.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_pairmap.h"

#define N_MAX 700

static int failures;

/* The group whose task range [prefix(g), prefix(g + 1)) holds t, by scanning. */
static long long group_of(long long t, long long groups, long long chunks) {
    for (long long g = 0; g + 1 < groups; g++)
        if (t < sim_pairmap_prefix(g + 1, chunks)) return g;
    return groups - 1;
}

/* The cost of each part of task t (in group g at offset o), as the split counts it. */
static long long part_cost(long long o) {
    return o < SIM_PAIRMAP_B ? SIM_PAIRMAP_COST_INTRA : SIM_PAIRMAP_COST_LATER;
}

/* Check 1 for one N and warp count; false at the first error (printed). */
static bool check_split(int n, int per_task, long long all) {
    const long long chunks = sim_pairmap_chunks(n), groups = sim_pairmap_groups(chunks);
    const long long parts = per_task * sim_pairmap_tasks(chunks);
    const long long cost = sim_pairmap_cost(chunks, per_task);
    long long next = 0;  /* the part the next warp must start at */
    long long start = 0; /* cost start of part `next`, by summing */
    for (long long w = 0; w < all; w++) {
        long long first, last;
        sim_pairmap_range(chunks, per_task, w, all, &first, &last);
        if (first != next || last < first || last > parts) {
            printf("FAIL N=%d parts=%d warps=%lld: warp %lld takes [%lld, %lld), expected start "
                   "%lld of "
                   "%lld\n",
                   n, per_task, all, w, first, last, next, parts);
            return false;
        }
        next = last;
        long long share = 0;
        for (long long part = first; part < last; part++) {
            const long long t = part / per_task, g = group_of(t, groups, chunks);
            const long long o = t - sim_pairmap_prefix(g, chunks);
            /* Each part's cost start lies in this warp's share, and the
             * lookup finds exactly this part from its start. */
            if (start < cost * w / all || start >= cost * (w + 1) / all ||
                sim_pairmap_part_at_cost(start, chunks, per_task) != part) {
                printf(
                    "FAIL N=%d parts=%d warps=%lld: part %lld starts at cost %lld, warp %lld has "
                    "[%lld, %lld), lookup gives %lld\n",
                    n, per_task, all, part, start, w, cost * w / all, cost * (w + 1) / all,
                    sim_pairmap_part_at_cost(start, chunks, per_task));
                return false;
            }
            if (sim_pairmap_group(t, chunks) != g) {
                printf("FAIL N=%d: task %lld -> group %lld, expected %lld\n", n, t,
                       sim_pairmap_group(t, chunks), g);
                return false;
            }
            start += part_cost(o);
            share += part_cost(o);
        }
        const long long ideal = cost * (w + 1) / all - cost * w / all;
        if (share > ideal + SIM_PAIRMAP_COST_INTRA || share < ideal - SIM_PAIRMAP_COST_INTRA) {
            printf("FAIL N=%d parts=%d warps=%lld: warp %lld has cost %lld, its equal share %lld\n",
                   n, per_task, all, w, share, ideal);
            return false;
        }
    }
    if (next != parts || start != cost) {
        printf("FAIL N=%d parts=%d warps=%lld: parts end at %lld of %lld\n", n, per_task, all, next,
               parts);
        return false;
    }
    return true;
}

/* Counts one evaluated pair (i, j) when both are real bodies; a body
 * (padding included) paired with itself is an error at once. */
static bool visit(unsigned char *count, int n, long long i, long long j) {
    if (i == j) {
        printf("FAIL N=%d: body %lld evaluated with itself\n", n, i);
        return false;
    }
    if (i >= n || j >= n) return true; /* padding: massless, contributes nothing */
    const long long lo = i < j ? i : j, hi = i < j ? j : i;
    unsigned char *c = &count[lo * n + hi];
    if (*c < 255) (*c)++;
    return true;
}

/* Steps [s0, s1) of the task of group g with j chunk c, as a warp runs
 * them: lane L holds i bodies (g B + k) 32 + L and meets the j body in slot
 * (L + s) mod 32 of chunk c at step s; inside the group (c < (g + 1) B) the
 * pairs are weighted. The j sums move one lane per step, so the kernel
 * stores lane L's sum to body (L + s1) mod 32: checked here by following
 * each sum from lane to lane (sim_pairmap_held_slot). */
static bool run_task(unsigned char *count, int n, const sim_pairmap_walk *w) {
    bool ok = true;
    const long long g = w->g, c = w->c, r = c - g * SIM_PAIRMAP_B;
    const bool intra = r < SIM_PAIRMAP_B;
    int holds[32]; /* the j slot whose sum lane L holds */
    for (int lane = 0; lane < 32; lane++) holds[lane] = (lane + w->s0) % 32;
    for (int s = w->s0; s < w->s1; s++) {
        for (int lane = 0; lane < 32; lane++) {
            const int slot = (lane + s) % 32;
            if (holds[lane] != slot) {
                printf("FAIL N=%d: lane %d holds the sum of slot %d at step %d, reads slot %d\n", n,
                       lane, holds[lane], s, slot);
                return false;
            }
            const long long j = c * 32 + slot;
            for (int k = 0; k < SIM_PAIRMAP_B; k++) {
                const float f = intra ? sim_pairmap_intra_weight(k, (int)r, s, lane) : 1.0f;
                if (f != 0.0f && f != 1.0f) {
                    printf("FAIL N=%d: weight %g (k %d r %lld s %d lane %d)\n", n, f, k, r, s,
                           lane);
                    return false;
                }
                if (f == 1.0f) ok = visit(count, n, (g * SIM_PAIRMAP_B + k) * 32 + lane, j) && ok;
            }
        }
        const int first = holds[0]; /* the sums move one lane down, as best_rotate does */
        for (int lane = 0; lane < 31; lane++) holds[lane] = holds[lane + 1];
        holds[31] = first;
    }
    for (int lane = 0; lane < 32; lane++) {
        if (holds[lane] != sim_pairmap_held_slot(lane, w->s1)) {
            printf("FAIL N=%d: after step %d lane %d holds slot %d, stored to %d\n", n, w->s1 - 1,
                   lane, holds[lane], sim_pairmap_held_slot(lane, w->s1));
            return false;
        }
    }
    return ok;
}

/* Check 2 for one N, walking the tasks as `all` warps do; also that each
 * walk's steps are whole parts and its chunks real ones. */
static bool check_pairs(int n, int per_task, long long all, unsigned char *count) {
    memset(count, 0, (size_t)n * (size_t)n);
    const long long chunks = sim_pairmap_chunks(n);
    bool ok = true;
    for (long long warp = 0; warp < all && ok; warp++) {
        sim_pairmap_walk w;
        for (sim_pairmap_walk_start(&w, chunks, per_task, warp, all); w.left > 0 && ok;
             sim_pairmap_walk_next(&w, chunks)) {
            if (w.c < w.g * SIM_PAIRMAP_B || w.c >= chunks || w.s0 < 0 || w.s1 > 32 ||
                w.s0 >= w.s1 || w.s0 % (32 / per_task) || w.s1 % (32 / per_task)) {
                printf("FAIL N=%d parts=%d warps=%lld: warp %lld walks to group %d chunk %d steps "
                       "[%d, %d) of %lld chunks\n",
                       n, per_task, all, warp, w.g, w.c, w.s0, w.s1, chunks);
                return false;
            }
            ok = run_task(count, n, &w);
        }
    }
    int bad = 0;
    for (int i = 0; ok && i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            const int c = count[(size_t)i * (size_t)n + (size_t)j];
            if (c != 1 && bad++ < 5)
                printf("FAIL N=%d parts=%d warps=%lld: pair (%d, %d) evaluated %d times\n", n,
                       per_task, all, i, j, c);
        }
    }
    return ok && bad == 0;
}

int main(void) {
    static const long long h100[] = {1000, 132 * 32, 132 * 28, 132 * 8};
    unsigned char *count = malloc((size_t)N_MAX * N_MAX);
    if (!count) return 1;
    for (int n = 1; n <= N_MAX; n++) {
        bool ok = true;
        for (int parts = 1; parts <= SIM_PAIRMAP_MAX_PARTS && ok; parts *= 2) {
            for (long long all = 1; all <= 300 && ok; all++) ok = check_split(n, parts, all);
            for (size_t k = 0; k < sizeof h100 / sizeof h100[0] && ok; k++)
                ok = check_split(n, parts, h100[k]);
            /* Pairs: one warp for all tasks, and warp counts that vary with N
             * so that the shares start and end inside tasks and groups at
             * many places (with 97 or more, some warps have one part or none). */
            ok = ok && check_pairs(n, parts, 1, count) &&
                 check_pairs(n, parts, 2 + n % 37, count) &&
                 check_pairs(n, parts, 97 + n % 211, count);
        }
        if (!ok) failures++;
        if (failures >= 5) break;
    }
    free(count);
    if (failures) {
        printf("test_pairmap: %d N failed\n", failures);
        return 1;
    }
    printf("test_pairmap: N = 1 .. %d, tasks in 1, 2 and 4 parts, every pair exactly once\n",
           N_MAX);
    return 0;
}
