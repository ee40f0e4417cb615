/* sim_gang.h - host threads that queue several GPUs' work at once.
 *
 * One host thread queuing every GPU's launches in turn makes the last GPU
 * wait for the others' queuing after each time the host waits for them
 * all: with the bodies spread over GPUs that is four times an evaluation,
 * with over a hundred launches a GPU in between (docs/PERFORMANCE.md,
 * "Spread"). A gang runs fn(ctx, k) for k = 0 .. count-1 at once, k = 0
 * on the calling thread and each other k on a thread of its own kept for
 * the gang's life, and returns when every call has. The calls share
 * nothing but what ctx gives them: each k may write only its own GPU's
 * state.
 *
 * Private to sim/. Pure C (pthreads); sim_gang_each wraps a C++ lambda. */
#ifndef NBODY_SIM_GANG_H
#define NBODY_SIM_GANG_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_gang sim_gang;

/* A gang of `threads` threads beside the caller's (count up to threads +
 * 1 at once); NULL: no host memory or no thread could start. */
sim_gang *sim_gang_create(int threads);
/* Stops and joins the threads (not while a run is in progress). */
void sim_gang_destroy(sim_gang *g);
/* fn(ctx, k) for every k in [0, count): at once where the gang has a
 * thread for k, else on the caller after its own (k = 0) in order; a NULL
 * gang runs them all on the caller in order. Returns when all have. One
 * caller at a time. */
void sim_gang_run(sim_gang *g, int count, void (*fn)(void *ctx, int k), void *ctx);

#ifdef __cplusplus
}

/* sim_gang_run with a lambda: sim_gang_each(g, count, [&](int k) { ... }). */
template <typename F> static inline void sim_gang_each(sim_gang *g, int count, const F &f) {
    sim_gang_run(
        g, count, [](void *ctx, int k) { (*(const F *)ctx)(k); }, (void *)&f);
}
#endif

#endif /* NBODY_SIM_GANG_H */
