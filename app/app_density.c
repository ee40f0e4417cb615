/* app_density.c - the density view: the bodies' projected surface density
 * (density/) drawn through a colour map (render_colormap) with a colour bar
 * (ui_colorbar.c), in place of the sprites.
 *
 * Each frame it is on, for each picture (the window's, a video's own):
 * the positions come from the simulation as vertices - on the CUDA backend
 * into density/'s device buffer (sim_queue_vertices), the map made there
 * and copied to the host; on the CPU backend to host memory and mapped by
 * the CPU twin - then the map goes up as a float texture. The masses and
 * tags are read once per generation of bodies (sim_get_state: a re-seed,
 * a snapshot). The range is the map's own (auto: a high percentile of its
 * lit pixels at the top, app_density_auto_top; DECADES below it at the
 * bottom) or set with Y / Shift+Y / --density-max; Ctrl+Y goes back to
 * auto and, on auto, toggles the stretch (log / asinh). Shift+N picks the
 * bodies: all, a component or a galaxy, where the scene has them.
 */
#include <GLFW/glfw3.h> /* key codes and modifier bits only */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* The colour bar spans this many decades below its upper end. */
#define DECADES 4.0

/* Which bodies the map is of: a name and whether tag t counts. */
typedef struct filter {
    const char *name;
    int galaxy;    /* -1: any */
    int component; /* -1: any */
} filter;

static const filter filters[] = {
    {"all bodies", -1, -1},
    {"disk", -1, (int)NBODY_COMPONENT_DISK},
    {"bulge", -1, (int)NBODY_COMPONENT_BULGE},
    {"halo", -1, (int)NBODY_COMPONENT_HALO},
    {"galaxy 1", 0, -1},
    {"galaxy 2", 1, -1},
};
#define FILTER_COUNT ((int)(sizeof filters / sizeof filters[0]))

/* The tags filter k lets through, as a density_view's tags mask: the
 * bodies drawn, so without the halo while O hides it, but for "halo",
 * which asks for it. */
uint32_t app_density_filter_tags(int k, bool hide_halo) {
    uint32_t mask = 0;
    for (unsigned t = 0; t < 16; t++) {
        const bool g = filters[k].galaxy < 0 || (int)SIM_TAG_GALAXY(t) == filters[k].galaxy;
        const bool c =
            filters[k].component < 0 || (int)SIM_TAG_COMPONENT(t) == filters[k].component;
        const bool hidden = filters[k].component != (int)NBODY_COMPONENT_HALO && hide_halo &&
                            SIM_TAG_COMPONENT(t) == SIM_COMPONENT_HALO;
        if (g && c && !hidden) mask |= 1u << t;
    }
    return mask;
}

static uint32_t filter_tags(int k) {
    return app_density_filter_tags(k, false);
}

/* Filter k's bodies in words, as the colour bar and Shift+N's message say
 * them: "galaxy 1 but the hidden halo (O)" where the hidden halo leaves
 * some of them out. */
static void filter_label(const app_density *d, int k, bool hide_halo, char *out, size_t len) {
    const uint32_t all = filter_tags(k) & d->present;
    const bool less = (app_density_filter_tags(k, hide_halo) & d->present) != all;
    snprintf(out, len, "%s%s", k == 0 && less ? "all" : filters[k].name,
             less ? " but the hidden halo (O)" : "");
}

/* Whether filter k picks some of the bodies but not all of them (or is "all"). */
static bool filter_useful(const app_density *d, int k) {
    const uint32_t picked = filter_tags(k) & d->present;
    return k == 0 || (picked != 0 && picked != d->present);
}

const char *app_density_units(bool galactic, double *factor) {
    if (galactic) {
        *factor =
            SIM_GALAXY_MSUN_PER_MASS / (SIM_GALAXY_KPC_PER_LENGTH * SIM_GALAXY_KPC_PER_LENGTH);
        return "M_sun/kpc²";
    }
    *factor = 1.0;
    return "mass/length² (model units)";
}

void app_density_init(app *a) {
    app_density *d = &a->density;
    d->on = a->cfg.density_view;
    d->stretch = a->cfg.density_asinh ? RENDER_STRETCH_ASINH : RENDER_STRETCH_LOG;
    d->manual = a->cfg.density_max > 0; /* in the bar's units: converted at the first map */
}

void app_density_destroy(app *a) {
    app_density *d = &a->density;
    render_colormap_destroy(d->colormap);
    density_gpu_destroy(d->gpu);
    free(d->map);
    free(d->vertices);
    free(d->mass);
    free(d->tags);
    const app_density keep = {
        .on = d->on, .filter = d->filter, .manual = d->manual, .hi = d->hi, .stretch = d->stretch};
    *d = keep;
}

double app_density_auto_top(const float *map, size_t pixels) {
    float *v = malloc(sizeof *v * (pixels > 0 ? pixels : 1));
    size_t n = 0;
    float top = 0;
    for (size_t k = 0; k < pixels; k++) {
        if (map[k] > 0 && isfinite(map[k])) {
            top = map[k] > top ? map[k] : top;
            if (v) v[n++] = map[k];
        }
    }
    double hi = top; /* out of memory: the largest */
    if (v && n > 0) {
        const double rank = APP_DENSITY_TOP_PERCENTILE / 100 * (double)(n - 1) + 0.5;
        hi = base_kth_float(v, (ptrdiff_t)n, (ptrdiff_t)rank);
    }
    free(v);
    return hi > 0 ? hi : 1.0;
}

/* The masses and tags of the drawn bodies now, when they are new: drawn
 * body j is body j * draw_stride and weighs the stride's bodies, so the map
 * of a sample keeps its scale. false (message posted) when out of memory. */
static bool take_bodies(app *a, const sim_params *p, bool cuda) {
    app_density *d = &a->density;
    if (d->mass && d->bodies == p->drawn && d->generation == p->generation) return true;
    const int n = p->body_count, drawn = p->drawn, stride = p->draw_stride;
    sim_body *b = malloc(sizeof *b * (size_t)n);
    float *mass = malloc(sizeof *mass * (size_t)drawn);
    uint8_t *tags = malloc((size_t)drawn);
    if (!b || !mass || !tags) {
        free(b);
        free(mass);
        free(tags);
        base_msg_post(&a->msg, "density view: out of host memory for %d bodies", n);
        return false;
    }
    sim_get_state(a->sim, b); /* the masses and tags only: no forces computed */
    d->present = 0;
    for (int i = 0; i < n; i++) d->present |= 1u << (b[i].tag & 15u);
    for (int j = 0; j < drawn; j++) {
        const sim_body *body = &b[(size_t)j * (size_t)stride];
        mass[j] = (float)(body->mass * stride);
        tags[j] = (uint8_t)body->tag;
    }
    free(b);
    free(d->mass);
    free(d->tags);
    d->mass = mass;
    d->tags = tags;
    d->bodies = drawn;
    d->generation = p->generation;
    if (!filter_useful(d, d->filter)) d->filter = 0;
    if (cuda) {
        density_error err = {0};
        if (!density_gpu_set_bodies(d->gpu, mass, tags, drawn, &err)) {
            base_msg_post(&a->msg, "density view: %s", err.message);
            d->generation = 0;
            d->bodies = 0;
            return false;
        }
    }
    return true;
}

/* The map of this frame's bodies into d->map. false (message posted) on failure. */
static bool make_map(app *a, const density_view *dv, int n) {
    app_density *d = &a->density;
    const sim_params p = sim_get_params(a->sim);
    const bool cuda = p.backend == SIM_BACKEND_CUDA;
    density_error err = {0};
    if (cuda && !d->gpu && !(d->gpu = density_gpu_create(&err))) goto failed;
    if (!take_bodies(a, &p, cuda)) return false;
    if (n > d->bodies) n = d->bodies;
    if (cuda) {
        void *v = density_gpu_vertices(d->gpu, n, &err);
        if (!v) goto failed;
        sim_queue_vertices(a->sim, (sim_vertex *)v);
        if (!density_gpu_map(d->gpu, n, dv, d->map, &err)) goto failed;
        return true;
    }
    if (n > d->vertex_capacity) {
        float *v = realloc(d->vertices, sizeof(sim_vertex) * (size_t)n);
        if (!v) {
            base_msg_post(&a->msg, "density view: out of host memory for %d positions", n);
            return false;
        }
        d->vertices = v;
        d->vertex_capacity = n;
    }
    _Static_assert(sizeof(sim_vertex) == 4 * sizeof(float), "a vertex is x, y, z, speed floats");
    sim_write_vertices(a->sim, (sim_vertex *)d->vertices, false);
    if (density_map_cpu(d->vertices, d->mass, d->tags, n, dv, d->map, &err)) return true;
failed:
    base_msg_post(&a->msg, "density view: %s", err.message);
    return false;
}

bool app_density_draw(app *a, const render_view *view, ui_facts *facts, int n) {
    app_density *d = &a->density;
    facts->density.on = false;
    const int w = view->fb_width, h = view->fb_height;
    if (!d->on || w <= 0 || h <= 0 || !a->render) return false;
    render_error rerr = {0};
    if (!d->colormap && !(d->colormap = render_colormap_create(
                              &(render_colormap_desc){.shader_dir = a->shader_dir}, &rerr))) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", rerr.message, rerr.hint);
        base_msg_post(&a->msg, "density view off: %s", rerr.message);
        d->on = false;
        return false;
    }
    const size_t pixels = (size_t)w * (size_t)h;
    if (pixels > d->map_pixels) {
        float *m = realloc(d->map, sizeof(float) * pixels);
        if (!m) {
            base_msg_post(&a->msg, "density view off: out of host memory for a %dx%d map", w, h);
            d->on = false;
            return false;
        }
        d->map = m;
        d->map_pixels = pixels;
    }
    render_sprite_params sp;
    render_sprite_params_of(view, &sp);
    filter_label(d, d->filter, a->view.hide_halo, d->label, sizeof d->label);
    density_view dv = {
        .width = w, .height = h, .tags = app_density_filter_tags(d->filter, a->view.hide_halo)};
    memcpy(dv.view, sp.view, sizeof dv.view);
    memcpy(dv.proj, sp.proj, sizeof dv.proj);
    if (!make_map(a, &dv, n)) {
        d->on = false;
        return false;
    }
    double factor = 1;
    const char *units = app_density_units(facts->galactic, &factor);
    if (a->cfg.density_max > 0 && d->hi == 0) d->hi = a->cfg.density_max / factor;
    const double hi = d->manual ? d->hi : app_density_auto_top(d->map, pixels);
    const render_colormap_range range = {(float)(hi * pow(10.0, -DECADES)), (float)hi, d->stretch};
    if (!render_colormap_draw(d->colormap, a->render, d->map, w, h, &range, &rerr)) {
        base_msg_post(&a->msg, "density view off: %s", rerr.message);
        d->on = false;
        return false;
    }
    d->shown = (ui_density){.on = true,
                            .lo = range.lo * factor,
                            .hi = range.hi * factor,
                            .stretch = d->stretch,
                            .manual = d->manual,
                            .units = units,
                            .bodies = d->label};
    facts->density = d->shown;
    return true;
}

/* The range as words, for the message line. */
static void say_range(app *a) {
    const app_density *d = &a->density;
    if (!d->shown.on) {
        base_msg_post(&a->msg, "density range: %s, %s (N shows the density view)",
                      d->manual ? "set" : "auto", render_stretch_name(d->stretch));
        return;
    }
    double factor = 1;
    const char *units = app_density_units(sim_ic_galactic(sim_get_params(a->sim).ic), &factor);
    base_msg_post(&a->msg, "density range: up to %.3g %s, %s, %s",
                  d->manual ? d->hi * factor : d->shown.hi, units, d->manual ? "set" : "auto",
                  render_stretch_name(d->stretch));
}

bool app_density_key(app *a, int key, int mods) {
    app_density *d = &a->density;
    if (key == GLFW_KEY_N && (mods & GLFW_MOD_SHIFT)) {
        int k = d->filter;
        for (int i = 0; i < FILTER_COUNT; i++) {
            k = (k + 1) % FILTER_COUNT;
            if (filter_useful(d, k)) break;
        }
        d->filter = k;
        char label[sizeof d->label];
        filter_label(d, k, a->view.hide_halo, label, sizeof label);
        base_msg_post(&a->msg, "density of: %s%s", label,
                      d->on ? "" : " (N shows the density view)");
        return true;
    }
    if (key == GLFW_KEY_N) {
        d->on = !d->on;
        if (!d->on) d->shown.on = false;
        base_msg_post(&a->msg, d->on ? "density view (Shift+N: which bodies, Y: range)"
                                     : "sprites (N: density view)");
        return true;
    }
    if (key != GLFW_KEY_Y) return false;
    if (mods & GLFW_MOD_CONTROL) {
        if (d->manual) {
            d->manual = false;
        } else {
            d->stretch =
                d->stretch == RENDER_STRETCH_LOG ? RENDER_STRETCH_ASINH : RENDER_STRETCH_LOG;
        }
        say_range(a);
        return true;
    }
    if (!d->manual) { /* from the range on screen */
        double factor = 1;
        app_density_units(sim_ic_galactic(sim_get_params(a->sim).ic), &factor);
        d->hi = d->shown.on ? d->shown.hi / factor : (d->hi > 0 ? d->hi : 1.0);
        d->manual = true;
    }
    d->hi *= (mods & GLFW_MOD_SHIFT) ? 0.5 : 2.0;
    say_range(a);
    return true;
}
