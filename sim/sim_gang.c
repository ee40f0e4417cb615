/* sim_gang.c - host threads that queue several GPUs' work at once
 * (sim_gang.h). A run is a generation: the caller publishes fn, ctx and
 * count, then the generation's number, and wakes the threads; each thread
 * runs its k if it is below count and counts itself done (every thread,
 * so that none still reads a run's fields when the next one writes them);
 * the caller, after its own calls, waits until all have. A run's phases are short (the
 * launches between two waits for the GPUs), so both sides spin a little
 * before they sleep on the lock's conditions. */
#include "sim_gang.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

/* How often each side checks the other before it sleeps: spinning covers
 * the short gaps between a run's phases without a wake-up, then gives the
 * core back. */
#define GANG_SPINS 20000

typedef struct gang_thread {
    sim_gang *gang;
    int k; /* the call it makes: 1 .. threads */
    pthread_t thread;
} gang_thread;

struct sim_gang {
    pthread_mutex_t lock;
    pthread_cond_t go;   /* a new generation, or stop */
    pthread_cond_t done; /* the last thread of a generation finished */
    atomic_long generation;
    atomic_bool stop;
    atomic_int running; /* threads not done with this generation yet */
    void (*fn)(void *ctx, int k);
    void *ctx;
    int count;
    int threads; /* started */
    gang_thread *thread;
};

/* Waits for a generation past `seen` (or stop); returns it. */
static long gang_next(sim_gang *g, long seen) {
    for (int i = 0; i < GANG_SPINS; i++) {
        const long now = atomic_load_explicit(&g->generation, memory_order_acquire);
        if (now != seen || atomic_load(&g->stop)) return now;
    }
    pthread_mutex_lock(&g->lock);
    long now;
    while ((now = atomic_load_explicit(&g->generation, memory_order_acquire)) == seen &&
           !atomic_load(&g->stop)) {
        pthread_cond_wait(&g->go, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
    return now;
}

static void *gang_main(void *arg) {
    gang_thread *me = arg;
    sim_gang *g = me->gang;
    long seen = 0;
    for (;;) {
        seen = gang_next(g, seen);
        if (atomic_load(&g->stop)) break;
        if (me->k < g->count) g->fn(g->ctx, me->k);
        if (atomic_fetch_sub_explicit(&g->running, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&g->lock);
            pthread_cond_signal(&g->done);
            pthread_mutex_unlock(&g->lock);
        }
    }
    return NULL;
}

sim_gang *sim_gang_create(int threads) {
    if (threads < 0) return NULL;
    sim_gang *g = calloc(1, sizeof *g);
    gang_thread *t = calloc((size_t)(threads > 0 ? threads : 1), sizeof *t);
    if (!g || !t) {
        free(g);
        free(t);
        return NULL;
    }
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->go, NULL);
    pthread_cond_init(&g->done, NULL);
    atomic_init(&g->generation, 0);
    atomic_init(&g->stop, false);
    atomic_init(&g->running, 0);
    g->thread = t;
    for (int i = 0; i < threads; i++) {
        t[i].gang = g;
        t[i].k = i + 1;
        if (pthread_create(&t[i].thread, NULL, gang_main, &t[i]) != 0) {
            sim_gang_destroy(g);
            return NULL;
        }
        g->threads++;
    }
    return g;
}

void sim_gang_destroy(sim_gang *g) {
    if (!g) return;
    pthread_mutex_lock(&g->lock);
    atomic_store(&g->stop, true);
    pthread_cond_broadcast(&g->go);
    pthread_mutex_unlock(&g->lock);
    for (int i = 0; i < g->threads; i++) pthread_join(g->thread[i].thread, NULL);
    pthread_cond_destroy(&g->done);
    pthread_cond_destroy(&g->go);
    pthread_mutex_destroy(&g->lock);
    free(g->thread);
    free(g);
}

void sim_gang_run(sim_gang *g, int count, void (*fn)(void *ctx, int k), void *ctx) {
    if (!g || g->threads == 0 || count <= 1) {
        for (int k = 0; k < count; k++) fn(ctx, k);
        return;
    }
    g->fn = fn;
    g->ctx = ctx;
    g->count = count;
    atomic_store_explicit(&g->running, g->threads, memory_order_relaxed);
    pthread_mutex_lock(&g->lock); /* a thread about to sleep sees the new generation or is woken */
    atomic_fetch_add_explicit(&g->generation, 1, memory_order_release);
    pthread_cond_broadcast(&g->go);
    pthread_mutex_unlock(&g->lock);
    fn(ctx, 0);
    for (int k = g->threads + 1; k < count; k++) fn(ctx, k);
    for (int i = 0; i < GANG_SPINS; i++) {
        if (atomic_load_explicit(&g->running, memory_order_acquire) == 0) return;
    }
    pthread_mutex_lock(&g->lock);
    while (atomic_load_explicit(&g->running, memory_order_acquire) > 0) {
        pthread_cond_wait(&g->done, &g->lock);
    }
    pthread_mutex_unlock(&g->lock);
}
