/* app_colour.c - colour by a quantity: C's modes after component (local
 * density, radial velocity, potential).
 *
 * How a value reaches the sprites: each frame one of these modes is on,
 * every body's value is computed (model units: colour.raw on the host, or
 * on the GPU, below), the auto range taken (the 1st..99th percentile of
 * the bodies drawn: a hidden halo's do not count, app_colour_range) and
 * each body's place in it, 0..1 (colour.values, or
 * device memory), handed to the vertex upload (interop.values), which
 * writes it over the vertex's 4th float,
 * the speed, on both paths: so GL's shaders (bodies.vert) and CUDA's
 * sprites (splat/) read the same number and draw it with the same palette
 * (the speed palette, cold to mid to hot). The legend (ui_hud.c) shows the
 * quantity's name, units and range (colour.shown).
 *
 * The quantities:
 * - density: each body's local projected surface density, pass 1 of the
 *   density view's map (density_bodies_cpu: the mass in its coarse cell of
 *   the window's picture over the cell's area at its depth), placed by log.
 *   Projected, not 3-D: it is what the density view shows, from the same
 *   cells, and costs one O(N) pass with no neighbour search; it changes
 *   with the camera as the picture does.
 * - radial velocity: (v - v_c) . (x - x_c) / |x - x_c| about the centre of
 *   mass and bulk velocity of the body's galaxy (the tag's galaxy bits; a
 *   scene of one galaxy has all its bodies in galaxy 0, so that is all the
 *   bodies); the range is symmetric about 0, so 0 is the palette's middle.
 * - potential: sim_get_potentials (the tree walk's on CUDA with the tree,
 *   else the exact sum). The exact sum is O(N^2), so the potentials are
 *   taken again only when the bodies have moved and at most once every
 *   POTENTIAL_EVERY_S seconds; until the first ones arrive (or when Esc
 *   ended the sum) every body is at the palette's middle and the legend
 *   says "not computed".
 * Only the drawn bodies get values (sim_set_draw_stride: a sample where
 * not every body is drawn): on the GPU only theirs are computed, a drawn
 * body weighing the stride's bodies for density; on the host every body's
 * is, and the range is of them all.
 * On the CPU backend the bodies come from sim_get_state, and density and
 * radial velocity are taken again only while that costs at most
 * COLOUR_DUTY of the wall time
 * (every frame at small N). On the CUDA backend they are taken every frame
 * on the GPU (take_on_gpu: density/'s density_gpu_bodies from the
 * vertices sim_queue_vertices writes, sim_radial_velocities from the
 * simulation's state), placed in the palette there (density_gpu_place) and
 * handed to the upload as device memory, so no body comes to the host:
 * only a strided sample of at most RANGE_SAMPLE values for the auto range
 * (the same bodies app_colour_range samples on the host), and the masses
 * and tags once per generation of bodies (sim_get_state).
 * A video's own picture (--record-size) shares the vertices, so its
 * density colours are those of the window's cells.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define POTENTIAL_EVERY_S 1.0 /* the potentials at most this often (the exact sum is O(N^2)) */
#define LO_PERCENTILE 0.01    /* the auto range: 1st .. */
#define HI_PERCENTILE 0.99    /* .. 99th percentile, so a few outliers do not flatten it */
#define RANGE_SAMPLE 65536    /* values ranked for the percentiles, at most (a stride sample) */
/* On the CPU backend density and radial velocity are taken again only once
 * their last cost is at most this share of the time since (at large N the
 * pass takes a large part of a frame; between takes the bodies keep their
 * colours). The CUDA backend takes them on the GPU every frame. */
#define COLOUR_DUTY 0.2

static bool is_quantity(render_color m) {
    return m >= RENDER_COLOR_DENSITY && m < RENDER_COLOR_COUNT;
}

const char *app_colour_units(render_color m, bool galactic, double *factor) {
    const double kms = SIM_GALAXY_KMS_PER_VELOCITY;
    switch (m) {
    case RENDER_COLOR_DENSITY:
        return app_density_units(galactic, factor);
    case RENDER_COLOR_RADIAL:
        *factor = galactic ? kms : 1.0;
        return galactic ? "km/s" : "velocity (model units)";
    default:
        *factor = galactic ? kms * kms : 1.0;
        return galactic ? "(km/s)²" : "velocity² (model units)";
    }
}

void app_colour_radial(const sim_body *b, int n, float *out) {
    double m[4] = {0}, x[4][3] = {{0}}, v[4][3] = {{0}};
    for (int i = 0; i < n; i++) {
        const unsigned g = SIM_TAG_GALAXY(b[i].tag);
        m[g] += b[i].mass;
        for (int k = 0; k < 3; k++) {
            x[g][k] += b[i].mass * b[i].pos[k];
            v[g][k] += b[i].mass * b[i].vel[k];
        }
    }
    for (int g = 0; g < 4; g++) {
        for (int k = 0; k < 3 && m[g] > 0; k++) {
            x[g][k] /= m[g];
            v[g][k] /= m[g];
        }
    }
    for (int i = 0; i < n; i++) {
        const unsigned g = SIM_TAG_GALAXY(b[i].tag);
        double dx[3], dv[3], r2 = 0, dot = 0;
        for (int k = 0; k < 3; k++) {
            dx[k] = b[i].pos[k] - x[g][k];
            dv[k] = b[i].vel[k] - v[g][k];
            r2 += dx[k] * dx[k];
            dot += dx[k] * dv[k];
        }
        out[i] = r2 > 0 ? (float)(dot / sqrt(r2)) : 0.0f;
    }
}

bool app_colour_quantity(render_color m, const sim_body *b, const float *vertices, int n,
                         const density_view *dv, float *out) {
    if (m == RENDER_COLOR_RADIAL) {
        app_colour_radial(b, n, out);
        return true;
    }
    if (m != RENDER_COLOR_DENSITY) return false;
    float *mass = malloc(sizeof *mass * (size_t)n);
    uint8_t *tags = malloc((size_t)n);
    bool ok = mass && tags;
    for (int i = 0; ok && i < n; i++) {
        mass[i] = (float)b[i].mass;
        tags[i] = (uint8_t)b[i].tag;
    }
    ok = ok && density_bodies_cpu(vertices, mass, tags, n, dv, out, NULL);
    free(mass);
    free(tags);
    return ok;
}

bool app_colour_range(render_color m, const float *raw, int n, const app_colour_drawn *drawn,
                      double *lo, double *hi) {
    const int stride = n > RANGE_SAMPLE ? (n + RANGE_SAMPLE - 1) / RANGE_SAMPLE : 1;
    float *s = malloc(sizeof *s * (size_t)(n / stride + 1));
    int count = 0;
    for (int i = 0; s && i < n; i += stride) {
        const float v = raw[i];
        const bool shown = !drawn || !drawn->tags ||
                           (drawn->mask >> (drawn->tags[(size_t)i * drawn->stride] & 15u)) & 1u;
        if (shown && isfinite(v) && (m != RENDER_COLOR_DENSITY || v > 0)) s[count++] = v;
    }
    if (count == 0) {
        free(s);
        return false;
    }
    /* Two selections, not a sort: this runs every frame on the CUDA backend. */
    *lo = base_kth_float(s, count, (int)(LO_PERCENTILE * (count - 1) + 0.5));
    *hi = base_kth_float(s, count, (int)(HI_PERCENTILE * (count - 1) + 0.5));
    free(s);
    if (m == RENDER_COLOR_RADIAL) {
        const double a = fmax(fabs(*lo), fabs(*hi));
        *lo = -a;
        *hi = a;
    }
    return true;
}

float app_colour_place(render_color m, double lo, double hi, float v) {
    if (!isfinite(v)) return 0.0f;
    double t;
    if (m == RENDER_COLOR_DENSITY) {
        if (!(v > 0)) return 0.0f;
        t = hi > lo ? log((double)v / lo) / log(hi / lo) : 0.5;
    } else {
        t = hi > lo ? ((double)v - lo) / (hi - lo) : 0.5;
    }
    return (float)(t < 0 ? 0 : t > 1 ? 1 : t);
}

void app_colour_destroy(app *a) {
    app_colour *c = &a->colour;
    density_gpu_destroy(c->gpu);
    free(c->raw);
    free(c->values);
    free(c->vertices);
    free(c->bodies);
    free(c->tags);
    *c = (app_colour){0};
    a->interop.values = NULL;
    a->interop.value_count = 0;
    a->interop.values_on_device = false;
}

/* Room for n bodies in every array. false (message posted) when out of memory. */
static bool reserve(app *a, int n) {
    app_colour *c = &a->colour;
    if (n <= c->capacity) return true;
    app_colour_destroy(a);
    c->raw = malloc(sizeof *c->raw * (size_t)n);
    c->values = malloc(sizeof *c->values * (size_t)n);
    c->vertices = malloc(sizeof(sim_vertex) * (size_t)n);
    c->bodies = malloc(sizeof *c->bodies * (size_t)n);
    c->tags = malloc((size_t)n);
    if (!c->raw || !c->values || !c->vertices || !c->bodies || !c->tags) {
        app_colour_destroy(a);
        base_msg_post(&a->msg, "colour: out of host memory for %d bodies; by speed instead", n);
        return false;
    }
    c->capacity = n;
    return true;
}

/* The potentials into c->raw when they are due; whether raw holds some. */
static bool take_potentials(app *a, const sim_params *p) {
    app_colour *c = &a->colour;
    const bool fresh = c->have_potential && c->potential_generation == p->generation &&
                       c->potential_steps == p->steps;
    const bool recent = c->have_potential && c->potential_generation == p->generation &&
                        base_now() - c->potential_at < POTENTIAL_EVERY_S;
    if (fresh || recent) return true;
    if (sim_get_potentials(a->sim, c->raw) == SIM_POTENTIAL_NONE) { /* Esc ended the sum */
        c->have_potential = false;
        return false;
    }
    c->have_potential = true;
    c->potential_generation = p->generation;
    c->potential_steps = p->steps;
    c->potential_at = base_now();
    return true;
}

/* The bodies the range is of: those drawn (a hidden halo's are not), by
 * their tags, read once per generation of bodies; value j of the ranked
 * values is body j * stride's. */
static app_colour_drawn drawn_of(app *a, const sim_params *p, int stride) {
    app_colour *c = &a->colour;
    if (c->tags_n != p->body_count || c->tags_generation != p->generation) {
        sim_get_tags(a->sim, c->tags);
        c->tags_n = p->body_count;
        c->tags_generation = p->generation;
    }
    return (app_colour_drawn){
        .tags = c->tags, .stride = stride, .mask = app_density_filter_tags(0, a->view.hide_halo)};
}

/* The window's picture as density/ sees it. */
static density_view view_of(const render_view *view) {
    density_view dv = {.width = view->fb_width, .height = view->fb_height};
    render_sprite_params sp;
    render_sprite_params_of(view, &sp);
    memcpy(dv.view, sp.view, sizeof dv.view);
    memcpy(dv.proj, sp.proj, sizeof dv.proj);
    return dv;
}

/* The masses and tags of the drawn bodies now on the GPU, when they are
 * new (density: the cells add masses and filter by tag). Drawn body j is
 * body j * draw_stride, and weighs the stride's bodies, so a sample's
 * densities keep their scale. */
static bool gpu_bodies(app *a, const sim_params *p, density_error *err) {
    app_colour *c = &a->colour;
    const int n = p->drawn, stride = p->draw_stride;
    if (c->gpu_bodies == n && c->gpu_generation == p->generation) return true;
    uint8_t *tags = malloc((size_t)n);
    if (!tags) {
        snprintf(err->message, sizeof err->message, "out of host memory for %d tags", n);
        return false;
    }
    sim_get_state(a->sim, c->bodies); /* the masses and tags only: no forces */
    for (int j = 0; j < n; j++) {
        const sim_body *b = &c->bodies[(size_t)j * (size_t)stride];
        c->raw[j] = (float)(b->mass * stride);
        tags[j] = (uint8_t)b->tag;
    }
    const bool ok = density_gpu_set_bodies(c->gpu, c->raw, tags, n, err);
    free(tags);
    c->gpu_bodies = ok ? n : 0;
    c->gpu_generation = p->generation;
    return ok;
}

/* Density or radial velocity on the CUDA backend (the file's header says
 * how): the places into device memory, handed to the upload; *lo, *hi the
 * range and *computed whether there was one. false with *err. */
static bool take_on_gpu(app *a, const render_view *view, const sim_params *p, double *lo,
                        double *hi, bool *computed, density_error *err) {
    app_colour *c = &a->colour;
    const render_color m = a->view.color;
    const int n = p->drawn; /* value j: drawn body j, body j * draw_stride */
    float *raw = NULL, *place = NULL;
    if (!c->gpu && !(c->gpu = density_gpu_create(err))) return false;
    if (!density_gpu_values(c->gpu, n, &raw, &place, err)) return false;
    if (m == RENDER_COLOR_DENSITY) {
        if (!gpu_bodies(a, p, err)) return false;
        void *v = density_gpu_vertices(c->gpu, n, err);
        if (!v) return false;
        sim_queue_vertices(a->sim, (sim_vertex *)v);
        const density_view dv = view_of(view);
        if (!density_gpu_bodies(c->gpu, n, &dv, raw, err)) return false;
    } else {
        sim_radial_velocities(a->sim, raw);
    }
    const int stride = n > RANGE_SAMPLE ? (n + RANGE_SAMPLE - 1) / RANGE_SAMPLE : 1;
    const int count = (n + stride - 1) / stride; /* <= RANGE_SAMPLE: all of them are ranked */
    if (!density_gpu_sample(raw, n, stride, c->raw, err)) return false;
    const app_colour_drawn drawn = drawn_of(a, p, stride * p->draw_stride);
    *computed = app_colour_range(m, c->raw, count, &drawn, lo, hi);
    if (!*computed) *lo = *hi = 0; /* every place 0.5, as the host's, where finite */
    if (!density_gpu_place(raw, n, *lo, *hi, *computed && m == RENDER_COLOR_DENSITY, place, err)) {
        return false;
    }
    a->interop.values = place;
    a->interop.value_count = n;
    a->interop.values_on_device = true;
    return true;
}

void app_colour_frame(app *a, const render_view *view) {
    app_colour *c = &a->colour;
    const render_color m = a->view.color;
    a->interop.values = NULL;
    a->interop.value_count = 0;
    a->interop.values_on_device = false;
    if (!is_quantity(m) || a->density.on) { /* the density view draws no sprites */
        c->shown.on = false;
        c->have_potential = false;
        return;
    }
    const sim_params p = sim_get_params(a->sim);
    const int n = p.body_count; /* the values: p.drawn, value j body j * draw_stride's */
    if (!reserve(a, n)) {
        a->view.color = RENDER_COLOR_SPEED;
        c->shown.on = false;
        return;
    }
    bool computed = true;
    const double now = base_now();
    const bool on_gpu = p.backend == SIM_BACKEND_CUDA && m != RENDER_COLOR_POTENTIAL;
    if (!on_gpu && m != RENDER_COLOR_POTENTIAL && c->values_mode == m && c->values_n == n &&
        c->values_generation == p.generation && c->values_hide == a->view.hide_halo &&
        c->shown.on && now - c->values_at < c->values_cost / COLOUR_DUTY) {
        a->interop.values = c->values; /* the last values, legend as it was */
        a->interop.value_count = p.drawn;
        return;
    }
    double lo = 0, hi = 0, factor = 1;
    if (on_gpu) {
        c->have_potential = false;
        density_error err = {0};
        if (!take_on_gpu(a, view, &p, &lo, &hi, &computed, &err)) {
            base_msg_post(&a->msg, "colour: %s; by speed instead", err.message);
            a->view.color = RENDER_COLOR_SPEED;
            a->interop.values = NULL;
            a->interop.value_count = 0;
            a->interop.values_on_device = false;
            c->shown.on = false;
            return;
        }
    } else if (m == RENDER_COLOR_POTENTIAL) {
        computed = take_potentials(a, &p);
    } else {
        c->have_potential = false;
        sim_get_state(a->sim, c->bodies); /* positions, velocities, masses, tags */
        density_view dv = {.width = view->fb_width, .height = view->fb_height};
        if (m == RENDER_COLOR_DENSITY) { /* every body's position, as the vertices round it */
            dv = view_of(view);
            for (int i = 0; i < n; i++) {
                for (int k = 0; k < 3; k++)
                    c->vertices[4 * (size_t)i + k] = (float)c->bodies[i].pos[k];
            }
        }
        if (!app_colour_quantity(m, c->bodies, c->vertices, n, &dv, c->raw)) {
            base_msg_post(&a->msg, "colour: out of host memory for the %s; by speed instead",
                          render_color_name(m));
            a->view.color = RENDER_COLOR_SPEED;
            c->shown.on = false;
            return;
        }
    }
    if (!on_gpu) {
        const app_colour_drawn drawn = drawn_of(a, &p, 1);
        computed = computed && app_colour_range(m, c->raw, n, &drawn, &lo, &hi);
        for (int j = 0; j < p.drawn; j++) {
            const float v = c->raw[(size_t)j * (size_t)p.draw_stride];
            c->values[j] = computed ? app_colour_place(m, lo, hi, v) : 0.5f;
        }
        a->interop.values = c->values;
        a->interop.value_count = p.drawn;
    }
    c->values_mode = m;
    c->values_n = n;
    c->values_generation = p.generation;
    c->values_hide = a->view.hide_halo;
    c->values_at = now;
    c->values_cost = base_now() - now;
    const char *units = app_colour_units(m, sim_ic_galactic(p.ic), &factor);
    c->shown = (ui_quantity){.on = true,
                             .computed = computed,
                             .name = render_color_name(m),
                             .units = units,
                             .lo = lo * factor,
                             .hi = hi * factor,
                             .log = m == RENDER_COLOR_DENSITY};
}
