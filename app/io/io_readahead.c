/* io_readahead.c - a series' next snapshots read on a thread, so a playback
 * does not stall on the disk.
 *
 * One worker thread, one request at a time: the app asks for a file
 * (io_readahead_request), goes on drawing, and takes the result when it is
 * there (io_readahead_take; a recording waits for it, so its frames do not
 * depend on the disk's speed). The worker reads the file with
 * io_snapshot_read (units, recentring: as --load does) and sorts its IDs
 * (io_snapshot_index_ids), the two costs that grow with N. A file that fails
 * comes back as a result with its error: the app says so and stops the
 * playback. As the encoder's writer thread (io_encoder.c), the worker blocks
 * every signal, so they reach the main thread.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"

struct io_readahead {
    char *const *paths;
    int count;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int asked;  /* the file asked for and not taken, or -1 (under mu) */
    bool done;  /* the worker has finished it: result holds it (under mu) */
    bool quit;  /* destroy: the worker ends (under mu) */
    io_readahead_result result;
};

static void *worker_main(void *arg) {
    io_readahead *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->quit && (r->asked < 0 || r->done)) pthread_cond_wait(&r->cv, &r->mu);
        if (r->quit) break;
        const int index = r->asked;
        pthread_mutex_unlock(&r->mu);
        io_readahead_result res = {.index = index};
        res.ok = io_snapshot_read(r->paths[index], &res.snap, &res.err);
        if (res.ok) io_snapshot_index_ids(&res.snap, &res.duplicate);
        pthread_mutex_lock(&r->mu);
        r->result = res;
        r->done = true;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

io_readahead *io_readahead_create(char *const *paths, int count) {
    io_readahead *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->paths = paths;
    r->count = count;
    r->asked = -1;
    if (pthread_mutex_init(&r->mu, NULL) != 0) {
        free(r);
        return NULL;
    }
    if (pthread_cond_init(&r->cv, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        free(r);
        return NULL;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int rc = pthread_create(&r->thread, NULL, worker_main, r);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&r->cv);
        pthread_mutex_destroy(&r->mu);
        free(r);
        return NULL;
    }
    return r;
}

void io_readahead_destroy(io_readahead *r) {
    if (!r) return;
    pthread_mutex_lock(&r->mu);
    r->quit = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    if (r->done) io_snapshot_free(&r->result.snap);
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

bool io_readahead_request(io_readahead *r, int index) {
    if (index < 0 || index >= r->count) return false;
    pthread_mutex_lock(&r->mu);
    const bool free_now = r->asked < 0;
    if (free_now) {
        r->asked = index;
        r->done = false;
        pthread_cond_broadcast(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    return free_now;
}

bool io_readahead_take(io_readahead *r, bool wait, io_readahead_result *out) {
    pthread_mutex_lock(&r->mu);
    while (wait && r->asked >= 0 && !r->done) pthread_cond_wait(&r->cv, &r->mu);
    const bool got = r->asked >= 0 && r->done;
    if (got) {
        *out = r->result;
        memset(&r->result, 0, sizeof r->result);
        r->asked = -1;
        r->done = false;
    }
    pthread_mutex_unlock(&r->mu);
    return got;
}

int io_readahead_pending(io_readahead *r) {
    pthread_mutex_lock(&r->mu);
    const int asked = r->asked;
    pthread_mutex_unlock(&r->mu);
    return asked;
}
