/* app_interp.c - the bodies between two snapshots of a series: pure
 * functions, no app state, so tests/test_interp.c checks them directly
 * against an analytic orbit.
 *
 * Bodies are matched by particle ID where both snapshots have unique IDs
 * (io_snapshot.ids and its sorted index by_id: one merge of the two sorted
 * lists), else by file order (body i with body i). A matched body moves on
 * the cubic Hermite curve through both snapshots' positions and velocities
 * (dt = the snapshots' time difference, which must be in the velocities'
 * time unit: the caller says when it is not, and uses linear), or on the
 * straight line between the positions (velocities likewise). A body in only
 * one of the two fades: out (brightness 1 - u) from the first, in
 * (brightness u) towards the second, drifting on its own velocity (where
 * dt is known) so it does not stand still while its neighbours move. The
 * brightness goes into the tag's fade bits (shaders/nbody_shared.h), which
 * the sprites (GL's and CUDA's) dim by.
 *
 * Output order: the first snapshot's bodies in its order, then the bodies
 * only the second has, in its order; ids_out says which is which.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

static const char *const mode_names[APP_INTERP_COUNT] = {"Hermite", "linear", "none"};

const char *app_interp_mode_name(app_interp_mode m) {
    return m >= 0 && m < APP_INTERP_COUNT ? mode_names[m] : "?";
}

void app_interp_match_free(app_interp_match *m) {
    free(m->a_to_b);
    free(m->b_only);
    *m = (app_interp_match){0};
}

bool app_interp_match_make(const app_interp_snap *a, const app_interp_snap *b,
                           app_interp_match *m) {
    *m = (app_interp_match){0};
    m->a_to_b = malloc(sizeof *m->a_to_b * (size_t)(a->count > 0 ? a->count : 1));
    bool *b_seen = calloc((size_t)(b->count > 0 ? b->count : 1), sizeof *b_seen);
    if (!m->a_to_b || !b_seen) {
        free(b_seen);
        app_interp_match_free(m);
        return false;
    }
    m->by_id = a->ids && b->ids && a->by_id && b->by_id;
    if (m->by_id) { /* a merge of the two lists sorted by ID */
        int j = 0;
        for (int k = 0; k < a->count; k++) {
            const int i = a->by_id[k];
            const uint64_t id = a->ids[i];
            while (j < b->count && b->ids[b->by_id[j]] < id) j++;
            const bool hit = j < b->count && b->ids[b->by_id[j]] == id;
            m->a_to_b[i] = hit ? b->by_id[j] : -1;
            if (hit) b_seen[b->by_id[j]] = true;
        }
    } else { /* file order */
        for (int i = 0; i < a->count; i++) {
            m->a_to_b[i] = i < b->count ? i : -1;
            if (i < b->count) b_seen[i] = true;
        }
    }
    int only = 0;
    for (int j = 0; j < b->count; j++) only += !b_seen[j];
    m->b_only = malloc(sizeof *m->b_only * (size_t)(only > 0 ? only : 1));
    if (!m->b_only) {
        free(b_seen);
        app_interp_match_free(m);
        return false;
    }
    for (int j = 0; j < b->count; j++) {
        if (!b_seen[j]) m->b_only[m->b_only_count++] = j;
    }
    free(b_seen);
    return true;
}

int app_interp_count(const app_interp_snap *a, const app_interp_match *m) {
    return a->count + m->b_only_count;
}

unsigned app_interp_fade_tag(unsigned tag, double brightness) {
    const double b = brightness < 0 ? 0 : brightness > 1 ? 1 : brightness;
    const unsigned level = (unsigned)lround((1.0 - b) * NBODY_TAG_FADE_MASK);
    return (tag & ~(NBODY_TAG_FADE_MASK << NBODY_TAG_FADE_SHIFT)) | level << NBODY_TAG_FADE_SHIFT;
}

double app_interp_brightness(unsigned tag) {
    const unsigned level = (tag >> NBODY_TAG_FADE_SHIFT) & NBODY_TAG_FADE_MASK;
    return 1.0 - (double)level / NBODY_TAG_FADE_MASK;
}

/* A body of one snapshot only, drifting from its snapshot by dt_from (0:
 * where it is), at the given brightness. */
static sim_body lone(const sim_body *s, double dt_from, double brightness) {
    sim_body o = *s;
    for (int k = 0; k < 3; k++) o.pos[k] = s->pos[k] + s->vel[k] * dt_from;
    o.tag = app_interp_fade_tag(s->tag, brightness);
    return o;
}

void app_interp_bodies(const app_interp_snap *a, const app_interp_snap *b,
                       const app_interp_match *m, app_interp_mode mode, double u, sim_body *out,
                       uint64_t *ids_out) {
    const double s = u < 0 ? 0 : u > 1 ? 1 : u;
    const double h = b->time - a->time; /* > 0 for Hermite (the caller's check) */
    const bool drift = h > 0 && isfinite(h);
    /* The cubic Hermite basis and its derivative in s. */
    const double s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
                 h11 = s3 - s2;
    const double d00 = 6 * s2 - 6 * s, d10 = 3 * s2 - 4 * s + 1, d01 = -6 * s2 + 6 * s,
                 d11 = 3 * s2 - 2 * s;
    const bool hermite = mode == APP_INTERP_HERMITE && drift;
    for (int i = 0; i < a->count; i++) {
        const sim_body *p = &a->bodies[i];
        const int j = m->a_to_b[i];
        if (ids_out) ids_out[i] = a->ids ? a->ids[i] : (uint64_t)i;
        if (j < 0) {
            out[i] = lone(p, drift ? s * h : 0, 1 - s);
            continue;
        }
        const sim_body *q = &b->bodies[j];
        sim_body o = *p;
        o.tag = app_interp_fade_tag(p->tag, 1);
        for (int k = 0; k < 3; k++) {
            if (hermite) {
                o.pos[k] = h00 * p->pos[k] + h10 * h * p->vel[k] + h01 * q->pos[k] +
                           h11 * h * q->vel[k];
                o.vel[k] = (d00 * p->pos[k] + d01 * q->pos[k]) / h + d10 * p->vel[k] +
                           d11 * q->vel[k];
            } else {
                o.pos[k] = (1 - s) * p->pos[k] + s * q->pos[k];
                o.vel[k] = (1 - s) * p->vel[k] + s * q->vel[k];
            }
            o.acc[k] = 0;
        }
        o.mass = (1 - s) * p->mass + s * q->mass;
        out[i] = o;
    }
    for (int k = 0; k < m->b_only_count; k++) {
        const int j = m->b_only[k];
        out[a->count + k] = lone(&b->bodies[j], drift ? -(1 - s) * h : 0, s);
        if (ids_out) ids_out[a->count + k] = b->ids ? b->ids[j] : (uint64_t)j;
    }
}
