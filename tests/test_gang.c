/* test_gang.c - the host threads that queue several GPUs' work at once
 * (white box: sim/sim_gang.c).
 *
 * - Every k of a run is called exactly once, over many runs back to back
 *   (a thread that missed or repeated a generation shows here), for gangs
 *   of 0, 1, 3 and 7 threads and counts from 0 to past the gang's size.
 * - k = 0 runs on the caller; each k the gang has a thread for runs on a
 *   thread other than the caller's, and calls beyond the gang's threads on
 *   the caller.
 * - The calls run at once: k = 0 waits for k = 1 to start, and k = 1 for
 *   k = 0 (a gang that ran them in turn would never see both started; the
 *   wait gives up after a few seconds so the test fails rather than hangs).
 * - A NULL gang runs the calls in order on the caller.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "sim_gang.h"
#include "test_check.h"

#define MOST 16

typedef struct calls {
    atomic_int hits[MOST];
    pthread_t caller;
    pthread_t who[MOST];
    int order[MOST]; /* the NULL gang's: k in the order called */
    atomic_int called;
} calls;

static void count_call(void *ctx, int k) {
    calls *c = ctx;
    atomic_fetch_add(&c->hits[k], 1);
    c->who[k] = pthread_self();
    c->order[atomic_fetch_add(&c->called, 1)] = k;
}

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct meet {
    atomic_int started[2];
    bool met[2];
} meet;

/* k waits until the other has started too (at most 5 s). */
static void meet_call(void *ctx, int k) {
    meet *m = ctx;
    atomic_store(&m->started[k], 1);
    const double until = now_s() + 5.0;
    while (!atomic_load(&m->started[1 - k]) && now_s() < until) {
    }
    m->met[k] = atomic_load(&m->started[1 - k]) != 0;
}

static void check_runs(sim_gang *g, int threads) {
    for (int count = 0; count <= threads + 3 && count <= MOST; count++) {
        calls c;
        memset(&c, 0, sizeof c);
        c.caller = pthread_self();
        const int runs = 500;
        bool own_thread = true, on_caller = true;
        for (int r = 0; r < runs; r++) {
            atomic_store(&c.called, 0);
            sim_gang_run(g, count, count_call, &c);
            on_caller = on_caller && (count == 0 || pthread_equal(c.who[0], c.caller));
            for (int k = 1; k < count; k++) {
                const bool caller = pthread_equal(c.who[k], c.caller) != 0;
                if (k <= threads) own_thread = own_thread && !caller;
                if (k > threads) on_caller = on_caller && caller;
            }
        }
        for (int k = 0; k < MOST; k++) {
            const int want = k < count ? runs : 0;
            CHECK(atomic_load(&c.hits[k]) == want,
                  "%d threads, count %d: k = %d called %d times in %d runs (want %d)", threads,
                  count, k, atomic_load(&c.hits[k]), runs, want);
        }
        CHECK(on_caller, "%d threads, count %d: k = 0 and the calls past the threads run on "
                         "the caller", threads, count);
        CHECK(own_thread, "%d threads, count %d: a k the gang has a thread for ran on the caller",
              threads, count);
    }
}

int main(void) {
    const int sizes[] = {0, 1, 3, 7};
    for (int s = 0; s < 4; s++) {
        sim_gang *g = sim_gang_create(sizes[s]);
        CHECK(g != NULL, "a gang of %d threads", sizes[s]);
        if (!g) continue;
        check_runs(g, sizes[s]);
        if (sizes[s] >= 1) {
            meet m;
            memset(&m, 0, sizeof m);
            sim_gang_run(g, 2, meet_call, &m);
            CHECK(m.met[0] && m.met[1], "%d threads: k = 0 and 1 run at once (%d, %d)", sizes[s],
                  m.met[0], m.met[1]);
        }
        sim_gang_destroy(g);
    }

    calls c;
    memset(&c, 0, sizeof c);
    c.caller = pthread_self();
    sim_gang_run(NULL, 5, count_call, &c);
    bool in_order = atomic_load(&c.called) == 5;
    for (int k = 0; k < 5; k++) {
        in_order = in_order && c.order[k] == k && pthread_equal(c.who[k], c.caller);
    }
    CHECK(in_order, "a NULL gang calls k = 0 .. 4 in order on the caller");
    sim_gang_destroy(NULL);
    return test_exit("test_gang");
}
