/* app_copy.c - temporary simulations for timing and measuring: the ladder
 * chart's rungs (app_ladder.c) and the tree's frontier (app_frontier.c)
 * run on a simulation made here, with the running desc and knobs, seeded
 * with given bodies (a copy of the running ones) or the scene's initial
 * condition. The running simulation is only read (its params), never
 * stepped or changed.
 */
#include <stdio.h>

#include "app.h"

sim *app_copy_sim(app *a, const app_copy_desc *c, sim_error *err) {
    const sim_params p = sim_get_params(a->sim);
    const bool copy = c->bodies != NULL;
    /* The running desc and knobs with method c->variant, stopped as the app is. */
    sim_desc d = a->scene_desc;
    d.ic = copy ? SIM_IC_PLUMMER : p.ic;
    d.body_count = copy ? 64 : c->count; /* a few Plummer bodies (cheap), then the copies */
    d.backend = p.backend;
    d.variant = c->variant;
    d.dt = p.dt;
    d.softening = p.softening;
    d.damping = p.damping;
    d.theta = c->theta > 0 ? c->theta : p.theta;
    /* sim_desc's tree_alpha: 0 is its default, negative off. */
    const double alpha = c->tree_alpha != 0 ? c->tree_alpha : p.tree_alpha;
    d.tree_alpha = alpha > 0 ? alpha : -1;
    d.p = c->variant == p.variant ? p.p : 0;
    d.q = c->variant == p.variant ? p.q : 0;
    d.stop = (sim_stop){app_stop_requested, a};
    sim *tmp = sim_create(&d, err);
    if (tmp && copy && !sim_set_bodies(tmp, c->bodies, c->count, err)) {
        sim_destroy(tmp);
        tmp = NULL;
    }
    return tmp;
}
