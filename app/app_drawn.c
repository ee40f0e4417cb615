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

void app_drawn_plan(app *a) {
    app_drawn *d = &a->drawn;
    const sim_params p = sim_get_params(a->sim);
    if (d->n == p.body_count && d->n > 0) return;
    d->n = p.body_count;
    d->room = 0;
    if (p.backend == SIM_BACKEND_CUDA && p.body_count > 0) {
        sim_memory m = sim_memory_estimate(a->sim, p.body_count);
        sim_memory one = {0};
        interop_memory(&a->interop, true, 1, &one); /* a drawn body's vertex, tags, sprites */
        const double per_body = one.device_need + m.device_draw;
        if (m.device_free > 0 && per_body > 0) {
            const double room = APP_DRAW_ROOM * m.device_free / per_body;
            d->room = room < 1 ? 1 : room > 2e9 ? 2000000000LL : (long long)room;
        }
    }
    const int by_room = stride_for(p.body_count, d->room);
    const int by_flag = stride_for(p.body_count, a->cfg.draw_max);
    d->by_room = by_room > by_flag;
    const int stride = d->by_room ? by_room : by_flag;
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
