/* sim_gang.c - host threads that queue several GPUs' work at once
 * (sim_gang.h). A run is a generation: the caller publishes fn, ctx and
 * count under the lock and wakes the threads; each thread with a k below
 * count runs it and counts itself done; the caller, after its own calls,
 * sleeps until all have. */
#include "sim_gang.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct gang_thread {
    sim_gang *gang;
    int k; /* the call it makes: 1 .. threads */
    pthread_t thread;
} gang_thread;

struct sim_gang {
    pthread_mutex_t lock;
    pthread_cond_t go;   /* a new generation, or stop */
    pthread_cond_t done; /* the last thread of a generation finished */
    long generation;
    void (*fn)(void *ctx, int k);
    void *ctx;
    int count;
    int running; /* threads of this generation not done yet */
    bool stop;
    int threads; /* started */
    gang_thread *thread;
};

static void *gang_main(void *arg) {
    gang_thread *me = arg;
    sim_gang *g = me->gang;
    long seen = 0;
    pthread_mutex_lock(&g->lock);
    for (;;) {
        while (g->generation == seen && !g->stop) pthread_cond_wait(&g->go, &g->lock);
        if (g->stop) break;
        seen = g->generation;
        if (me->k >= g->count) continue;
        void (*fn)(void *, int) = g->fn;
        void *ctx = g->ctx;
        pthread_mutex_unlock(&g->lock);
        fn(ctx, me->k);
        pthread_mutex_lock(&g->lock);
        if (--g->running == 0) pthread_cond_signal(&g->done);
    }
    pthread_mutex_unlock(&g->lock);
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
    g->stop = true;
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
    const int helped = count - 1 < g->threads ? count - 1 : g->threads;
    pthread_mutex_lock(&g->lock);
    g->fn = fn;
    g->ctx = ctx;
    g->count = count;
    g->running = helped;
    g->generation++;
    pthread_cond_broadcast(&g->go);
    pthread_mutex_unlock(&g->lock);
    fn(ctx, 0);
    for (int k = g->threads + 1; k < count; k++) fn(ctx, k);
    pthread_mutex_lock(&g->lock);
    while (g->running > 0) pthread_cond_wait(&g->done, &g->lock);
    pthread_mutex_unlock(&g->lock);
}
