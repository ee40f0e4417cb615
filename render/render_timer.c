/* render_timer.c - the GPU time of GL work, for nbody --profile.
 *
 * GL calls return before the GPU runs them, so the CPU's clock cannot say
 * how long the drawing takes on the GPU. A GL_TIME_ELAPSED query (core in
 * OpenGL 3.3) can: begin and end bracket the commands, and the result is
 * read once GL says it is available, a few frames later, from a ring of
 * queries - so the timer never makes the CPU wait for the GPU except in the
 * last collect (wait true), after the run. A frame whose query slot is
 * still in flight is not timed; the count says how many were.
 */
#include <stdlib.h>

#include "render.h"
#include "render_gl.h"

#define TIMER_QUERIES 8

struct render_timer {
    GLuint query[TIMER_QUERIES];
    bool busy[TIMER_QUERIES]; /* ended, result not read yet */
    int next;                 /* the slot the next begin uses */
    int open;                 /* the slot begun and not ended, or -1 */
    double ms;                /* the results read so far, summed */
    long count;
};

render_timer *render_timer_create(void) {
    render_timer *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    glGenQueries(TIMER_QUERIES, t->query);
    t->open = -1;
    GL_CHECK("render_timer_create");
    return t;
}

void render_timer_destroy(render_timer *t) {
    if (!t) return;
    glDeleteQueries(TIMER_QUERIES, t->query);
    free(t);
}

/* Reads the finished results (all of them, waiting, when wait). */
static void collect(render_timer *t, bool wait) {
    for (int i = 0; i < TIMER_QUERIES; i++) {
        if (!t->busy[i]) continue;
        GLint ready = 0;
        if (!wait) glGetQueryObjectiv(t->query[i], GL_QUERY_RESULT_AVAILABLE, &ready);
        if (!wait && !ready) continue;
        GLuint64 ns = 0;
        glGetQueryObjectui64v(t->query[i], GL_QUERY_RESULT, &ns);
        t->ms += (double)ns * 1e-6;
        t->count++;
        t->busy[i] = false;
    }
}

void render_timer_begin(render_timer *t) {
    collect(t, false);
    if (t->open >= 0 || t->busy[t->next]) return; /* this frame goes untimed */
    t->open = t->next;
    t->next = (t->next + 1) % TIMER_QUERIES;
    glBeginQuery(GL_TIME_ELAPSED, t->query[t->open]);
}

void render_timer_end(render_timer *t) {
    if (t->open < 0) return;
    glEndQuery(GL_TIME_ELAPSED);
    t->busy[t->open] = true;
    t->open = -1;
}

void render_timer_result(render_timer *t, bool wait, double *ms, long *count) {
    render_timer_end(t);
    collect(t, wait);
    *ms = t->ms;
    *count = t->count;
}
