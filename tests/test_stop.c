/* test_stop.c - stopping a long CPU evaluation (sim_stop), and OpenMP's
 * threads left asleep where they do not pay.
 *
 * 1. Threads: a CPU simulation of 256 bodies stepped and sampled (exact sum
 *    and tree) starts no OpenMP thread: the process still has one task
 *    (/proc/self/task). Run first, before anything larger wakes the team.
 * 2. A stop hook that says stop at its k-th ask, k = 1, 2, 3, 5, 8, ... up
 *    to the first k that falls after a whole step, on the exact
 *    sum of 3,000 bodies (three blocks an evaluation) and the tree of 10,000
 *    (three blocks of its walk): sim_step returns false, the steps counted
 *    are the whole ones, and the bodies (positions, velocities and
 *    accelerations) are bit for bit those of a simulation stepped that many
 *    steps without a hook; stepping on without the hook ends bit for bit
 *    where the uninterrupted run does.
 * 3. sim_diagnostics stopped: stopped set, the potential 0; sim_get_bodies
 *    before any force was computed, stopped: false, the accelerations NaN
 *    (the first and the last body's checked), the positions whole.
 */
#include <dirent.h>
#include <string.h>

#include "test_util.h"

typedef struct stopper {
    int asks, stop_at; /* stop at the stop_at-th ask; 0: never */
} stopper;

static bool ask(void *ctx) {
    stopper *s = ctx;
    s->asks++;
    return s->stop_at > 0 && s->asks >= s->stop_at;
}

static int tasks(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) count += e->d_name[0] != '.';
    closedir(d);
    return count;
}

static sim_desc desc_of(sim_variant v, int n) {
    return (sim_desc){
        .backend = SIM_BACKEND_CPU, .variant = v, .body_count = n, .seed = 3, .softening = 0.05f};
}

static void check_threads(void) {
    const int before = tasks();
    for (int k = 0; k < 2; k++) {
        sim *s = test_sim(desc_of(k ? SIM_VARIANT_TREE : SIM_VARIANT_BEST, 256));
        sim_step(s, 20);
        sim_diagnostics(s);
        sim_force_error f;
        sim_measure_force_error(s, 64, 1, &f, NULL);
        sim_destroy(s);
    }
    CHECK(before == 1 && tasks() == 1, "256 bodies: %d task(s) before, %d after (no OpenMP team)",
          before, tasks());
}

/* Positions, velocities and accelerations, bit for bit. */
static bool same(const sim_body *a, const sim_body *b, int n) {
    for (int i = 0; i < n; i++) {
        if (memcmp(a[i].pos, b[i].pos, sizeof a[i].pos) ||
            memcmp(a[i].vel, b[i].vel, sizeof a[i].vel) ||
            memcmp(a[i].acc, b[i].acc, sizeof a[i].acc)) {
            return false;
        }
    }
    return true;
}

static void check_stopped_steps(sim_variant v, int n) {
    const int steps = 3;
    sim_body *got = malloc(sizeof *got * (size_t)n), *want = malloc(sizeof *want * (size_t)n);
    CHECK(got && want, "memory");
    for (int k = 1, next = 2; k < 1000; next += k, k = next - k) { /* Fibonacci */
        stopper st = {.stop_at = k};
        sim_desc d = desc_of(v, n);
        d.stop = (sim_stop){ask, &st};
        sim *s = test_sim(d);
        const bool whole = sim_step(s, steps);
        const int64_t done = sim_get_params(s).steps;
        const int asked = st.asks;
        if (done > 0) {
            /* The last whole step's accelerations are kept: reading them
             * evaluates nothing, so a hook that stops at once is not asked. */
            st.asks = 0;
            st.stop_at = 1;
            CHECK(sim_get_bodies(s, got) && st.asks == 0,
                  "k = %d: the last whole step's accelerations kept after a stop (%d asks)", k,
                  st.asks);
            st.stop_at = 0; /* the steps below run on unstopped */
        } else {
            /* Stopped in the first evaluation: the read computes them. */
            st.stop_at = 0;
            CHECK(sim_get_bodies(s, got), "k = %d: accelerations whole after a stop", k);
        }
        sim *ref = test_sim(desc_of(v, n));
        sim_step(ref, (int)done);
        sim_get_bodies(ref, want);
        printf("%s, stop at ask %d (%d asked): %lld whole steps\n",
               v == SIM_VARIANT_TREE ? "tree" : "exact", k, asked, (long long)done);
        CHECK(!whole && done < steps && same(got, want, n),
              "%s, stop at ask %d: %s after %lld whole steps, bodies %s",
              v == SIM_VARIANT_TREE ? "tree" : "exact", k, whole ? "not stopped" : "stopped",
              (long long)done, same(got, want, n) ? "bit for bit" : "DIFFER");
        CHECK(sim_get_params(s).time == sim_get_params(ref).time, "k = %d: time %.9g vs %.9g", k,
              sim_get_params(s).time, sim_get_params(ref).time);
        sim_step(s, steps - (int)done);
        sim_step(ref, steps - (int)done);
        sim_get_bodies(s, got);
        sim_get_bodies(ref, want);
        CHECK(same(got, want, n), "k = %d: stepped on, the same as without the stop", k);
        sim_destroy(ref);
        sim_destroy(s);
        if (done > 0) break; /* stopped inside the first steps and later: both seen */
    }
    free(got);
    free(want);
}

static void check_stopped_samples(void) {
    const int n = 3000;
    stopper st = {.stop_at = 1};
    sim_desc d = desc_of(SIM_VARIANT_BEST, n);
    d.stop = (sim_stop){ask, &st};
    sim *s = test_sim(d);
    const sim_diag dg = sim_diagnostics(s);
    CHECK(dg.stopped && dg.potential == 0 && dg.total == 0, "diagnostics stopped: W %g, E %g",
          dg.potential, dg.total);
    sim_body *b = malloc(sizeof *b * (size_t)n);
    CHECK(b != NULL, "memory");
    st.asks = 0;
    CHECK(!sim_get_bodies(s, b), "bodies without their forces: false");
    CHECK(isnan(b[0].acc[0]) && isnan(b[n - 1].acc[2]) && isfinite(b[0].pos[0]) && b[0].mass > 0,
          "acc NaN, the rest whole");
    free(b);
    sim_destroy(s);
}

int main(void) {
    check_threads();
    check_stopped_steps(SIM_VARIANT_BEST, 3000);
    check_stopped_steps(SIM_VARIANT_TREE, 10000);
    check_stopped_samples();
    return test_exit("test_stop");
}
