/* test_pairmap.c - the `best` kernel's task-to-pair mapping, checked on the CPU.
 *
 * Why: `best` evaluates each pair of bodies once and applies it to both, so
 * a pair mapped twice doubles a force and a pair never mapped drops one -
 * both give plausible-looking motion. The kernel's index arithmetic lives in
 * sim/sim_pairmap.h; this test runs those same functions the way the kernel
 * does (sim_kernels.cu, forces_best_kernel) and checks, for B = 4 and 6
 * chunks per group (the kernel's builds) and, up to N = 200, B = 1 .. 8:
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
 *      body's sum;
 *   3. for N up to the largest int (no pair counts there), that the warps'
 *      walks, whose fields are 32-bit in the kernel, tile the task list:
 *      each starts where the one before stopped, every group, chunk and step
 *      in range, the last ending at the last chunk's step 32.
 * Exact integer counts: no tolerance.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_pairmap.h"

#define N_MAX 700

/* The group whose task range [prefix(g), prefix(g + 1)) holds t, by scanning. */
static long long group_of(long long t, long long groups, long long chunks, int b) {
    for (long long g = 0; g + 1 < groups; g++)
        if (t < sim_pairmap_prefix(g + 1, chunks, b)) return g;
    return groups - 1;
}

/* The cost of each part of task t (in group g at offset o), as the split counts it. */
static long long part_cost(long long o, int b) {
    return o < b ? SIM_PAIRMAP_COST_INTRA : SIM_PAIRMAP_COST_LATER;
}

/* Check 1 for one N and warp count; false at the first error (printed). */
static bool check_split(int n, int b, int per_task, long long all) {
    const long long chunks = sim_pairmap_chunks(n), groups = sim_pairmap_groups(chunks, b);
    const long long parts = per_task * sim_pairmap_tasks(chunks, b);
    const long long cost = sim_pairmap_cost(chunks, b, per_task);
    long long next = 0;  /* the part the next warp must start at */
    long long start = 0; /* cost start of part `next`, by summing */
    for (long long w = 0; w < all; w++) {
        long long first, last;
        sim_pairmap_range(chunks, b, per_task, w, all, &first, &last);
        if (first != next || last < first || last > parts) {
            printf("FAIL B=%d N=%d parts=%d warps=%lld: warp %lld takes [%lld, %lld), expected "
                   "start %lld of %lld\n",
                   b, n, per_task, all, w, first, last, next, parts);
            return false;
        }
        next = last;
        long long share = 0;
        for (long long part = first; part < last; part++) {
            const long long t = part / per_task, g = group_of(t, groups, chunks, b);
            const long long o = t - sim_pairmap_prefix(g, chunks, b);
            /* Each part's cost start lies in this warp's share, and the
             * lookup finds exactly this part from its start. */
            if (start < cost * w / all || start >= cost * (w + 1) / all ||
                sim_pairmap_part_at_cost(start, chunks, b, per_task) != part) {
                printf("FAIL B=%d N=%d parts=%d warps=%lld: part %lld starts at cost %lld, warp "
                       "%lld has [%lld, %lld), lookup gives %lld\n",
                       b, n, per_task, all, part, start, w, cost * w / all, cost * (w + 1) / all,
                       sim_pairmap_part_at_cost(start, chunks, b, per_task));
                return false;
            }
            if (sim_pairmap_group(t, chunks, b) != g) {
                printf("FAIL B=%d N=%d: task %lld -> group %lld, expected %lld\n", b, n, t,
                       sim_pairmap_group(t, chunks, b), g);
                return false;
            }
            start += part_cost(o, b);
            share += part_cost(o, b);
        }
        const long long ideal = cost * (w + 1) / all - cost * w / all;
        if (share > ideal + SIM_PAIRMAP_COST_INTRA || share < ideal - SIM_PAIRMAP_COST_INTRA) {
            printf("FAIL B=%d N=%d parts=%d warps=%lld: warp %lld has cost %lld, its equal share "
                   "%lld\n",
                   b, n, per_task, all, w, share, ideal);
            return false;
        }
    }
    if (next != parts || start != cost) {
        printf("FAIL B=%d N=%d parts=%d warps=%lld: parts end at %lld of %lld\n", b, n, per_task,
               all, next, parts);
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
static bool run_task(unsigned char *count, int n, int b, const sim_pairmap_walk *w, int s1) {
    bool ok = true;
    const long long g = w->g, c = w->c, r = c - g * b;
    const bool intra = r < b;
    int holds[32]; /* the j slot whose sum lane L holds */
    for (int lane = 0; lane < 32; lane++) holds[lane] = (lane + w->s0) % 32;
    for (int s = w->s0; s < s1; s++) {
        for (int lane = 0; lane < 32; lane++) {
            const int slot = (lane + s) % 32;
            if (holds[lane] != slot) {
                printf(
                    "FAIL B=%d N=%d: lane %d holds the sum of slot %d at step %d, reads slot %d\n",
                    b, n, lane, holds[lane], s, slot);
                return false;
            }
            const long long j = c * 32 + slot;
            for (int k = 0; k < b; k++) {
                const float f = intra ? sim_pairmap_intra_weight(k, (int)r, s, lane) : 1.0f;
                if (f != 0.0f && f != 1.0f) {
                    printf("FAIL B=%d N=%d: weight %g (k %d r %lld s %d lane %d)\n", b, n, f, k, r,
                           s, lane);
                    return false;
                }
                if (f == 1.0f) ok = visit(count, n, (g * b + k) * 32 + lane, j) && ok;
            }
        }
        const int first = holds[0]; /* the sums move one lane down, as best_rotate does */
        for (int lane = 0; lane < 31; lane++) holds[lane] = holds[lane + 1];
        holds[31] = first;
    }
    for (int lane = 0; lane < 32; lane++) {
        if (holds[lane] != sim_pairmap_held_slot(lane, s1)) {
            printf("FAIL B=%d N=%d: after step %d lane %d holds slot %d, stored to %d\n", b, n,
                   s1 - 1, lane, holds[lane], sim_pairmap_held_slot(lane, s1));
            return false;
        }
    }
    return ok;
}

/* Check 2 for one N, walking the tasks as `all` warps do; also that each
 * walk's steps are whole parts and its chunks real ones. */
static bool check_pairs(int n, int b, int per_task, long long all, unsigned char *count) {
    memset(count, 0, (size_t)n * (size_t)n);
    const long long chunks = sim_pairmap_chunks(n);
    bool ok = true;
    for (long long warp = 0; warp < all && ok; warp++) {
        sim_pairmap_walk w;
        sim_pairmap_walk_start(&w, chunks, b, per_task, warp, all);
        if (w.g < 0) continue; /* no share: check 1 says it took no parts */
        for (int tasks = 0;; tasks++) {
            const int s1 = sim_pairmap_walk_s1(&w);
            if (w.c < w.g * b || w.c >= chunks || w.s0 < 0 || s1 > 32 || w.s0 >= s1 ||
                w.s0 % (32 / per_task) || s1 % (32 / per_task) ||
                tasks > sim_pairmap_tasks(chunks, b)) {
                printf("FAIL B=%d N=%d parts=%d warps=%lld: warp %lld walks to group %d chunk %d "
                       "steps "
                       "[%d, %d) of %lld chunks (task %d of its share)\n",
                       b, n, per_task, all, warp, w.g, w.c, w.s0, s1, chunks, tasks);
                return false;
            }
            ok = run_task(count, n, b, &w, s1) && ok;
            if (sim_pairmap_walk_last(&w) || !ok) break;
            sim_pairmap_walk_next(&w, (int)chunks, b);
        }
    }
    int bad = 0;
    for (int i = 0; ok && i < n; i++) {
        for (int j = i + 1; j < n; j++) {
            const int c = count[(size_t)i * (size_t)n + (size_t)j];
            if (c != 1 && bad++ < 5)
                printf("FAIL B=%d N=%d parts=%d warps=%lld: pair (%d, %d) evaluated %d times\n", b,
                       n, per_task, all, i, j, c);
        }
    }
    return ok && bad == 0;
}

/* Check 3 for one large N: the walks of `all` warps (every warp has a share
 * here) tile the task list - each starts where the one before ended, the
 * last ends at the list's end - with every group, chunk and step in range.
 * The kernel's walk is 32-bit (sim_pairmap_walk); this is where it would
 * overflow. */
static bool check_large(int n, int b, int parts, long long all) {
    const long long chunks = sim_pairmap_chunks(n);
    const int steps = 32 / parts;
    sim_pairmap_walk prev = {0};
    for (long long warp = 0; warp < all; warp++) {
        sim_pairmap_walk w;
        sim_pairmap_walk_start(&w, chunks, b, parts, warp, all);
        bool ok = w.g >= 0 && w.g <= w.g_end && w.c >= w.g * b && w.c < chunks &&
                  w.c_end >= w.g_end * b && w.c_end < chunks && w.s0 >= 0 && w.s0 < 32 &&
                  w.s0 % steps == 0 && w.s_end > 0 && w.s_end <= 32 && w.s_end % steps == 0 &&
                  (w.g < w.g_end || w.c <= w.c_end);
        if (ok && warp == 0) ok = w.g == 0 && w.c == 0 && w.s0 == 0;
        if (ok && warp > 0) { /* starts where the previous share stopped */
            sim_pairmap_walk at = prev;
            at.g = prev.g_end;
            at.c = prev.c_end;
            if (prev.s_end == 32) sim_pairmap_walk_next(&at, (int)chunks, b);
            ok = w.g == at.g && w.c == at.c && w.s0 == prev.s_end % 32;
        }
        if (ok && warp == all - 1) /* the last task: the last group's last chunk, to step 32 */
            ok = w.g_end == sim_pairmap_groups(chunks, b) - 1 && w.c_end == chunks - 1 &&
                 w.s_end == 32;
        if (!ok) {
            printf("FAIL B=%d N=%d parts=%d warps=%lld: warp %lld walks from group %d chunk %d "
                   "step %d "
                   "to group %d chunk %d step %d (%lld chunks)\n",
                   b, n, parts, all, warp, w.g, w.c, w.s0, w.g_end, w.c_end, w.s_end, chunks);
            return false;
        }
        prev = w;
    }
    return true;
}

/* Checks 1 and 2 for N = 1 .. n_max with b chunks per group; failing N
 * counted (at most 5). */
static int check_small(int b, int n_max, unsigned char *count) {
    static const long long h100[] = {1000, 132 * 32, 132 * 28, 132 * 8};
    int failed = 0;
    for (int n = 1; n <= n_max && failed < 5; n++) {
        bool ok = true;
        for (int parts = 1; parts <= SIM_PAIRMAP_MAX_PARTS && ok; parts *= 2) {
            for (long long all = 1; all <= 300 && ok; all++) ok = check_split(n, b, parts, all);
            for (size_t k = 0; k < sizeof h100 / sizeof h100[0] && ok; k++)
                ok = check_split(n, b, parts, h100[k]);
            /* Pairs: one warp for all tasks, and warp counts that vary with N
             * so that the shares start and end inside tasks and groups at
             * many places (with 97 or more, some warps have one part or none). */
            ok = ok && check_pairs(n, b, parts, 1, count) &&
                 check_pairs(n, b, parts, 2 + n % 37, count) &&
                 check_pairs(n, b, parts, 97 + n % 211, count);
        }
        if (!ok) failed++;
    }
    return failed;
}

int main(void) {
    unsigned char *count = malloc((size_t)N_MAX * N_MAX);
    if (!count) return 1;
    /* The kernel's builds use 4 and 6 chunks per group (sim_kernels.cu): all
     * N up to N_MAX; other b, to keep the arithmetic general, up to 200. */
    int failures = 0;
    for (int b = 1; b <= 8; b++) failures += check_small(b, b == 4 || b == 6 ? N_MAX : 200, count);
    free(count);
    /* Large N (no pair counts): up to the largest int, with the H100's warps. */
    static const int large[] = {1 << 20, 250000001, 1 << 30, 2147483647};
    static const long long warps[] = {1000, 132 * 32, 132 * 28, 132 * 20, 132 * 8};
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++) {
        for (int b = 4; b <= 6; b += 2) {
            for (int parts = 1; parts <= SIM_PAIRMAP_MAX_PARTS; parts *= 2) {
                for (size_t k = 0; k < sizeof warps / sizeof warps[0]; k++)
                    if (!check_large(large[i], b, parts, warps[k])) failures++;
            }
        }
    }
    if (failures) {
        printf("test_pairmap: %d failed\n", failures);
        return 1;
    }
    printf("test_pairmap: N = 1 .. %d (B = 4, 6; other B to 200), tasks in 1, 2 and 4 parts, "
           "every pair exactly once; walks tile the tasks up to N = 2^31 - 1\n",
           N_MAX);
    return 0;
}
