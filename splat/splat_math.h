/* splat_math.h - the arithmetic of shaders/bodies.vert and bodies.frag as
 * plain functions for the host and the device: where a body's sprite lands,
 * how large and what colour it is, which pixels it covers and how much
 * light each gets. splat.cu draws with them; tests/test_splat.c holds them
 * to GL's own picture of the same bodies (llvmpipe in CI). A change to the
 * shaders is a change here too: the tests fail until both agree.
 *
 * GL's rules followed (OpenGL 3.3 core, "Point rasterization"): a point of
 * size s at window position (xw, yw) covers the pixels whose centres lie in
 * the square of side s centred there, and gl_PointCoord is (0.5 + (x + 0.5
 * - xw) / s, ...). Clipping: a point in front of the eye and between the
 * near and far planes is drawn, also where its centre lies outside the
 * picture - the part of it that is inside. That is what NVIDIA's GL does,
 * whose sprites these replace: dropping such points as well left whole
 * sprites missing along the edges of the picture, where doing this leaves
 * only rounding (docs/PERFORMANCE.md, "How we got here", CUDA's
 * sprites). Mesa's llvmpipe drops them (clipping by the centre), so
 * tests/test_splat.c compares its picture only away from the edges.
 */
#ifndef SPLAT_MATH_H
#define SPLAT_MATH_H

#include <math.h>
#include <stdint.h>

#include "nbody_shared.h" /* the tag layout and colour modes bodies.vert uses */
#include "splat.h"

#ifdef __CUDACC__
#define SPLAT_HD __host__ __device__
#else
#define SPLAT_HD
#endif

#define SPLAT_MIN_PX 1.5f /* bodies.vert's MIN_PX and MAX_PX */
#define SPLAT_MAX_PX 96.0f

typedef struct splat_rgb {
    float r, g, b;
} splat_rgb;

/* One body's sprite. */
typedef struct splat_sprite {
    float x, y;         /* centre, window pixels from the bottom left */
    float size;         /* the square's side, pixels */
    splat_rgb light;    /* at the centre */
    int x0, y0, x1, y1; /* the pixels whose centres lie in the square, inclusive,
                           within the picture; none when x1 < x0 or y1 < y0 */
} splat_sprite;

static SPLAT_HD inline splat_rgb splat_mix(splat_rgb a, splat_rgb b, float t) {
    splat_rgb c = {a.r * (1.0f - t) + b.r * t, a.g * (1.0f - t) + b.g * t,
                   a.b * (1.0f - t) + b.b * t};
    return c;
}

static SPLAT_HD inline splat_rgb splat_scale(splat_rgb a, float k) {
    splat_rgb c = {a.r * k, a.g * k, a.b * k};
    return c;
}

static SPLAT_HD inline float splat_clamp(float x, float lo, float hi) {
    return fminf(fmaxf(x, lo), hi);
}

/* bodies.vert's speed_palette: cool blue -> white -> warm orange. */
static SPLAT_HD inline splat_rgb splat_speed_palette(float t) {
    const splat_rgb cold = {NBODY_RGB_SPEED_COLD}, mid = {NBODY_RGB_SPEED_MID},
                    hot = {NBODY_RGB_SPEED_HOT};
    return t < 0.5f ? splat_mix(cold, mid, t * 2.0f) : splat_mix(mid, hot, t * 2.0f - 1.0f);
}

/* bodies.vert's body_color: a hue hashed from the body's index. */
static SPLAT_HD inline float splat_hue_channel(float hue, float shift) {
    const float f = hue + shift;
    const float k = fabsf((f - floorf(f)) * 6.0f - 3.0f) - 1.0f;
    return splat_clamp(k, 0.0f, 1.0f);
}

static SPLAT_HD inline splat_rgb splat_body_color(uint32_t i) {
    uint32_t h = i * 2654435761u;
    h ^= h >> 15;
    const float hue = (float)(h & 1023u) / 1024.0f;
    const splat_rgb white = {1.0f, 1.0f, 1.0f};
    const splat_rgb k = {splat_hue_channel(hue, 0.0f), splat_hue_channel(hue, 2.0f / 3.0f),
                         splat_hue_channel(hue, 1.0f / 3.0f)};
    return splat_mix(white, k, 0.7f);
}

/* bodies.vert's galaxy_color and component_color. */
static SPLAT_HD inline splat_rgb splat_galaxy_color(uint32_t galaxy, uint32_t component) {
    const splat_rgb amber = {NBODY_RGB_GALAXY_1}, sky = {NBODY_RGB_GALAXY_2};
    const splat_rgb bulge = {1.0f, 0.95f, 0.85f}, grey = {0.5f, 0.5f, 0.5f};
    splat_rgb c = galaxy == 0u ? amber : sky;
    if (component == NBODY_COMPONENT_BULGE) c = splat_mix(c, bulge, 0.55f);
    if (component == NBODY_COMPONENT_HALO)
        c = splat_scale(splat_mix(c, grey, 0.6f), (float)NBODY_HALO_DIM);
    return c;
}

static SPLAT_HD inline splat_rgb splat_component_color(uint32_t component) {
    const splat_rgb disk = {NBODY_RGB_DISK}, bulge = {NBODY_RGB_BULGE}, violet = {NBODY_RGB_HALO};
    const splat_rgb halo = splat_scale(violet, (float)NBODY_HALO_DIM);
    return component == NBODY_COMPONENT_DISK    ? disk
           : component == NBODY_COMPONENT_BULGE ? bulge
                                                : halo;
}

/* bodies.vert's set_color: selection set k's colour (1-6). */
static SPLAT_HD inline splat_rgb splat_set_color(uint32_t k) {
    const splat_rgb c1 = {NBODY_RGB_SET_1}, c2 = {NBODY_RGB_SET_2}, c3 = {NBODY_RGB_SET_3},
                    c4 = {NBODY_RGB_SET_4}, c5 = {NBODY_RGB_SET_5}, c6 = {NBODY_RGB_SET_6};
    return k == 1u ? c1 : k == 2u ? c2 : k == 3u ? c3 : k == 4u ? c4 : k == 5u ? c5 : c6;
}

/* m (column-major 4x4) times (x, y, z, w). */
static SPLAT_HD inline void splat_transform(const float *m, const float v[4], float out[4]) {
    for (int r = 0; r < 4; r++) {
        out[r] = m[r] * v[0] + m[4 + r] * v[1] + m[8 + r] * v[2] + m[12 + r] * v[3];
    }
}

/* The first and last pixel whose centre lies in [c - s/2, c + s/2], within
 * 0 .. count - 1 (last < first: none). */
static SPLAT_HD inline void splat_span(float c, float s, int count, int *first, int *last) {
    const float lo = ceilf(c - 0.5f * s - 0.5f), hi = floorf(c + 0.5f * s - 0.5f);
    *first = (int)splat_clamp(lo, 0.0f, (float)count);
    *last = (int)splat_clamp(hi, -1.0f, (float)(count - 1));
}

/* Body index (x, y, z, speed, tag: the renderer's 16 bits) through view:
 * its sprite (bodies.vert), in its selection set's colour or dimmed for
 * none (bits 8-11), dimmed by the tag's fade level (bits 4-7).
 * false when it is not drawn: a hidden halo body, behind the eye, or
 * nearer than the near plane or farther than the far one. */
static SPLAT_HD inline int splat_setup(const splat_view *view, const float body[4], uint32_t tag,
                                       uint32_t index, splat_sprite *out) {
    const uint32_t galaxy = tag & NBODY_TAG_GALAXY_MASK,
                   component = (tag >> NBODY_TAG_COMPONENT_SHIFT) & NBODY_TAG_COMPONENT_MASK;
    if (view->hide_halo && component == NBODY_COMPONENT_HALO) return 0;
    const float p[4] = {body[0], body[1], body[2], 1.0f};
    float eye[4], clip[4];
    splat_transform(view->view, p, eye);
    splat_transform(view->proj, eye, clip);
    const float w = clip[3];
    if (!(w > 0.0f) || !(fabsf(clip[2]) <= w)) return 0;
    out->x = (clip[0] / w * 0.5f + 0.5f) * (float)view->width;
    out->y = (clip[1] / w * 0.5f + 0.5f) * (float)view->height;
    const float depth = fmaxf(-eye[2], 1e-4f);
    const float px = view->point_px / depth;
    const float dim = px < SPLAT_MIN_PX ? (px * px) / (SPLAT_MIN_PX * SPLAT_MIN_PX) : 1.0f;
    out->size = splat_clamp(px, SPLAT_MIN_PX, SPLAT_MAX_PX);
    splat_rgb c;
    if (view->color == NBODY_COLOR_BODY) {
        c = splat_body_color(index);
    } else if (view->color == NBODY_COLOR_GALAXY) {
        c = splat_galaxy_color(galaxy, component);
    } else if (view->color == NBODY_COLOR_COMPONENT) {
        c = splat_component_color(component);
    } else if (view->color >= NBODY_COLOR_QUANTITY) { /* body[3]: the place in its range */
        c = splat_speed_palette(splat_clamp(body[3], 0.0f, 1.0f));
    } else {
        c = splat_speed_palette(splat_clamp(body[3] / view->speed_scale, 0.0f, 1.0f));
    }
    const uint32_t set = (tag >> NBODY_TAG_SET_SHIFT) & NBODY_TAG_SET_MASK;
    if (set != 0u) c = splat_set_color(set);
    if (tag & NBODY_TAG_DIM) c = splat_scale(c, (float)NBODY_SET_DIM);
    const float fade = (float)((tag >> NBODY_TAG_FADE_SHIFT) & NBODY_TAG_FADE_MASK);
    out->light = splat_scale(c, view->brightness * dim * (1.0f - fade / (float)NBODY_TAG_FADE_MASK));
    splat_span(out->x, out->size, view->width, &out->x0, &out->x1);
    splat_span(out->y, out->size, view->height, &out->y0, &out->y1);
    return 1;
}

/* The share of the sprite's light at pixel (x, y): bodies.frag's Gaussian
 * profile, 0 past the rim. */
static SPLAT_HD inline float splat_weight(const splat_sprite *s, int x, int y) {
    const float cx = 2.0f * ((float)x + 0.5f - s->x) / s->size;
    const float cy = 2.0f * ((float)y + 0.5f - s->y) / s->size;
    const float r2 = cx * cx + cy * cy;
    return r2 > 1.0f ? 0.0f : expf(-4.0f * r2);
}

#endif
