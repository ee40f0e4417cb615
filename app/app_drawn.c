/* app_drawn.c - which bodies are drawn: every one, or every k-th
 * (sim_set_draw_stride) when the first GPU has no room to draw them all
 * beside the simulation, or --draw-max asks for fewer. The HUD and the
 * status JSON say so; the simulation runs every body either way.
 *
 * The room: APP_DRAW_ROOM of the first GPU's free memory, as the CUDA
 * runtime reports it once the simulation has made its buffers for this N,
 * over what a drawn body takes there (interop_memory: the vertex buffer,
 * the tags, CUDA's sprites; sim_memory.device_draw: the spread bodies'
 * gather). Not all of it: the tree grows its buffers as the bodies
 * cluster, and the frame's own work (colours, the density view, a video)
 * takes some. Planned again when N changes, not while it stays (the free
 * memory then counts the drawing's own buffers as taken). On the CPU
 * backend only --draw-max samples. A sample is drawn as that many bodies
 * would be (app_scene_brightness), so its picture looks as a run of them.
 */
#include <stdio.h>

#include "app.h"

#define APP_DRAW_ROOM 0.5 /* the share of the first GPU's free memory the drawing may take */

/* The least stride that leaves at most `most` of n drawn. */
static int stride_for(int n, long long most) {
    if (most <= 0 || most >= n) return 1;
    return (int)(((long long)n + most - 1) / most);
}

/* The bodies the first GPU has room to draw, where `free` bytes are free
 * there beside the simulation (m: its estimate); 0: no limit known (the
 * CPU backend, or the free memory unknown). */
static long long room_for(app *a, const sim_memory *m, double free) {
    if (sim_get_params(a->sim).backend != SIM_BACKEND_CUDA || !(free > 0)) return 0;
    sim_memory one = {0};
    interop_memory(&a->interop, true, 1, &one); /* a drawn body's vertex, tags, sprites */
    const double per_body = one.device_need + m->device_draw;
    if (!(per_body > 0)) return 0;
    const double room = APP_DRAW_ROOM * free / per_body;
    return room < 1 ? 1 : room > 2e9 ? 2000000000LL : (long long)room;
}

/* The stride for n bodies with room for `room` drawn (0: no limit known);
 * *by_room: the room, not --draw-max, set it. */
static int stride_of(const app *a, int n, long long room, bool *by_room) {
    const int of_room = stride_for(n, room), of_flag = stride_for(n, a->cfg.draw_max);
    *by_room = of_room > of_flag;
    return *by_room ? of_room : of_flag;
}

int app_drawn_estimate(app *a, int n, const sim_memory *m) {
    /* The free memory once the simulation has grown: less than it will be,
     * as m's need counts the buffers it holds now too (sim_memory). */
    const long long room = room_for(a, m, m->device_free - m->device_need);
    bool by_room = false;
    const int stride = stride_of(a, n, room, &by_room);
    return (int)(((long long)n + stride - 1) / stride);
}

void app_drawn_plan(app *a) {
    app_drawn *d = &a->drawn;
    const sim_params p = sim_get_params(a->sim);
    if (d->n == p.body_count && d->n > 0) return;
    d->n = p.body_count;
    d->room = 0;
    if (p.body_count > 0) {
        /* Free memory now counts the simulation's buffers for this N as taken. */
        const sim_memory m = sim_memory_estimate(a->sim, p.body_count);
        d->room = room_for(a, &m, m.device_free);
    }
    const int stride = stride_of(a, p.body_count, d->room, &d->by_room);
    sim_set_draw_stride(a->sim, stride);
    if (stride != p.draw_stride) app_scene_brightness(a); /* a body's light is set by the drawn */
    d->line[0] = 0;
    if (stride == 1) return;
    const sim_params now = sim_get_params(a->sim);
    char drawn[32], n[32];
    base_commas(now.drawn, drawn, sizeof drawn);
    base_commas(now.body_count, n, sizeof n);
    if (d->by_room) {
        snprintf(d->line, sizeof d->line,
                 "drawn: 1 body in %d (%s of %s), all the first GPU has room to draw", stride,
                 drawn, n);
    } else {
        snprintf(d->line, sizeof d->line, "drawn: 1 body in %d (%s of %s), as --draw-max asks",
                 stride, drawn, n);
    }
}
