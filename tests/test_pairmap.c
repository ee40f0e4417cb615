/* test_pairmap.c - the `best` kernel's task-to-pair mapping, checked on the CPU.
 *
 * Why: `best` evaluates each pair of bodies once and applies it to both, so
 * a pair mapped twice doubles a force and a pair never mapped drops one -
 * both give plausible-looking motion. The kernel's index arithmetic lives in
 * sim/sim_pairmap.h; this test runs those same functions the way the kernel
 * does (sim_kernels.cu, forces_best_kernel) and checks:
 *   1. the warps' task ranges cover every task exactly once, in order, the
 *      group each warp finds for a task (with the kernel's incremental
 *      search from its previous group) is the one whose task range holds it,
 *      every task's chunk is a real one (no task of padding alone), and
 *      each warp's share of the cost (intra tasks 3, others 2) is within one
 *      task's cost of the equal share, with sim_pairmap_task_at_cost agreeing
 *      with a scan of the tasks' cost starts,
 *      for N = 1 .. 700 and warp counts 1 .. 300, 1000 and the shapes the
 *      H100 runs (132 SMs x 28 warps, 132 x 8);
 *   2. every unordered pair {i, j} of bodies i != j < N is evaluated exactly
 *      once and no body with itself, for N = 1 .. 700, walking the tasks as
 *      the warps of a grid do (two warp counts per N).
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

/* The cost of task t (in group g at offset o), as the split counts it. */
static long long task_cost(long long o) {
    return o < SIM_PAIRMAP_B ? SIM_PAIRMAP_COST_INTRA : SIM_PAIRMAP_COST_LATER;
}

/* Check 1 for one N and warp count; false at the first error (printed). */
static bool check_split(int n, long long all) {
    const long long chunks = sim_pairmap_chunks(n), groups = sim_pairmap_groups(chunks);
    const long long tasks = sim_pairmap_tasks(chunks), cost = sim_pairmap_cost(chunks);
    long long next = 0; /* the task the next warp must start at */
    long long start = 0; /* cost start of task `next`, by summing */
    for (long long w = 0; w < all; w++) {
        long long first, last;
        sim_pairmap_range(chunks, w, all, &first, &last);
        if (first != next || last < first || last > tasks) {
            printf(
                "FAIL N=%d warps=%lld: warp %lld takes [%lld, %lld), expected start %lld of %lld\n",
                n, all, w, first, last, next, tasks);
            return false;
        }
        next = last;
        long long g = -1, share = 0;
        for (long long t = first; t < last; t++) {
            g = sim_pairmap_group(t, g, groups, chunks);
            const long long want = group_of(t, groups, chunks);
            const long long o = t - sim_pairmap_prefix(g, chunks);
            /* Each task's cost start lies in this warp's share, and the
             * lookup finds exactly this task from its start. */
            if (start < cost * w / all || start >= cost * (w + 1) / all ||
                sim_pairmap_task_at_cost(start, chunks) != t) {
                printf("FAIL N=%d warps=%lld: task %lld starts at cost %lld, warp %lld has [%lld, "
                       "%lld), lookup gives %lld\n",
                       n, all, t, start, w, cost * w / all, cost * (w + 1) / all,
                       sim_pairmap_task_at_cost(start, chunks));
                return false;
            }
            start += task_cost(o);
            share += task_cost(o);
            if (g != want || o < 0 || sim_pairmap_chunk(g, o) >= chunks) {
                printf("FAIL N=%d warps=%lld: task %lld -> group %lld offset %lld, expected group "
                       "%lld of %lld (%lld chunks)\n",
                       n, all, t, g, o, want, groups, chunks);
                return false;
            }
        }
        const long long ideal = cost * (w + 1) / all - cost * w / all;
        if (share > ideal + SIM_PAIRMAP_COST_INTRA || share < ideal - SIM_PAIRMAP_COST_INTRA) {
            printf("FAIL N=%d warps=%lld: warp %lld has cost %lld, its equal share %lld\n", n, all,
                   w, share, ideal);
            return false;
        }
    }
    if (next != tasks || start != cost) {
        printf("FAIL N=%d warps=%lld: tasks end at %lld of %lld\n", n, all, next, tasks);
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

/* One task of group g at offset o, as a warp runs it: lane L holds i bodies
 * (g B + k) 32 + L and meets the j body in slot (L + s) mod 32 of the task's
 * chunk at step s; inside the group (o < B) the pairs are weighted. */
static bool run_task(unsigned char *count, int n, long long g, long long o) {
    bool ok = true;
    const long long c = sim_pairmap_chunk(g, o);
    const bool intra = o < SIM_PAIRMAP_B;
    for (int s = 0; s < 32; s++) {
        for (int lane = 0; lane < 32; lane++) {
            const long long j = c * 32 + (lane + s) % 32;
            for (int k = 0; k < SIM_PAIRMAP_B; k++) {
                const float f = intra ? sim_pairmap_intra_weight(k, (int)o, s, lane) : 1.0f;
                if (f != 0.0f && f != 1.0f) {
                    printf("FAIL N=%d: weight %g (k %d r %lld s %d lane %d)\n", n, f, k, o, s,
                           lane);
                    return false;
                }
                if (f == 1.0f) ok = visit(count, n, (g * SIM_PAIRMAP_B + k) * 32 + lane, j) && ok;
            }
        }
    }
    return ok;
}

/* Check 2 for one N, walking the tasks as `all` warps do. */
static bool check_pairs(int n, long long all, unsigned char *count) {
    memset(count, 0, (size_t)n * (size_t)n);
    const long long chunks = sim_pairmap_chunks(n), groups = sim_pairmap_groups(chunks);
    bool ok = true;
    for (long long w = 0; w < all && ok; w++) {
        long long first, last, g = -1;
        sim_pairmap_range(chunks, w, all, &first, &last);
        for (long long t = first; t < last && ok; t++) {
            g = sim_pairmap_group(t, g, groups, chunks);
            ok = run_task(count, n, g, t - sim_pairmap_prefix(g, chunks));
        }
    }
    int bad = 0;
    for (int i = 0; ok && i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            const int c = count[(size_t)i * (size_t)n + (size_t)j];
            if (c != 1 && bad++ < 5)
                printf("FAIL N=%d warps=%lld: pair (%d, %d) evaluated %d times\n", n, all, i, j, c);
        }
    }
    return ok && bad == 0;
}

int main(void) {
    static const long long h100[] = {1000, 132 * 28, 132 * 8};
    unsigned char *count = malloc((size_t)N_MAX * N_MAX);
    if (!count) return 1;
    for (int n = 1; n <= N_MAX; n++) {
        bool ok = true;
        for (long long all = 1; all <= 300 && ok; all++) ok = check_split(n, all);
        for (size_t k = 0; k < sizeof h100 / sizeof h100[0] && ok; k++)
            ok = check_split(n, h100[k]);
        /* Pairs: one warp for all tasks, and a warp count that varies with N
         * so that the ranges start mid-group at many places. */
        ok = ok && check_pairs(n, 1, count) && check_pairs(n, 2 + n % 37, count);
        if (!ok) failures++;
        if (failures >= 5) break;
    }
    free(count);
    if (failures) {
        printf("test_pairmap: %d N failed\n", failures);
        return 1;
    }
    printf("test_pairmap: N = 1 .. %d, every pair exactly once\n", N_MAX);
    return 0;
}
