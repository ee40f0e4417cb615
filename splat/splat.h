/* splat.h - the bodies' point sprites drawn by CUDA into the float picture.
 *
 * What it does: the sprite pass of render/ (shaders/bodies.vert and
 * bodies.frag: a soft round sprite per body, its light added into a float
 * picture) done by kernels instead of GL's graphics pipeline, reading the
 * vertices CUDA just wrote and writing GL's float (RGBA16F) picture, which
 * render/'s bloom and tone map then use as if GL had drawn it. Why: on a
 * data-centre GPU the graphics pipeline is small, and GL's clear and
 * sprites took a large share of a frame, where CUDA writes memory at its
 * full speed (docs/PERFORMANCE.md, "How we got here", CUDA's sprites).
 *
 * The picture is the same as GL's within rounding: splat_math.h holds the
 * vertex and fragment shaders' arithmetic, and tests/test_splat.c holds it
 * to GL's own picture of the same bodies (test_splat cpu) and the kernels
 * to it on a GPU (test_splat gpu).
 * One difference by design: GL adds each sprite into half floats, rounding
 * every addition; here the light adds up in 32-bit floats and is rounded
 * to half floats once. The picture's alpha is 1 (GL's counts the sprites
 * over each pixel; nothing reads it).
 *
 * What it does not do: no GL (app/interop/interop.c maps GL's picture and
 * vertex buffer and hands them in), no simulation.
 */
#ifndef SPLAT_H
#define SPLAT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct splat splat;

typedef struct splat_error {
    char message[512]; /* every module's error has these sizes: one fits another */
    char hint[256];
} splat_error;

/* What the sprites are drawn with: the uniforms of shaders/bodies.vert
 * (render_sprite_params fills the same values for GL). */
typedef struct splat_view {
    int width, height;        /* the picture, pixels */
    float view[16], proj[16]; /* column-major, as cglm and GL hold them */
    float point_px;           /* pixels covered by a sprite of diameter 1 at distance 1 */
    float speed_scale;        /* speed at the hot end of the palette */
    float brightness;
    int color; /* render_color: NBODY_COLOR_SPEED, _BODY, _GALAXY, _COMPONENT or a quantity's */
    bool hide_halo;
} splat_view;

struct cudaArray; /* cudaArray_t, without the CUDA headers */

/* Buffers are made at first use. NULL with *err (out of host memory).
 * Its kernels run on the legacy default stream: after the work queued
 * before splat_draw there and on blocking streams (cudaStreamCreate's), so
 * vertices that sim_queue_vertices queued need no wait of their own. */
splat *splat_create(splat_error *err);
/* Waits for its work on the GPU, then frees it. */
void splat_destroy(splat *s);

/* Per-body tags, the renderer's 16 bits (shaders/nbody_shared.h: sim.h's
 * SIM_TAG with its fade level in bits 0-7, the selection's bits 8-11),
 * copied to the GPU; bodies past the last tag set count as tag 0. false
 * with *err (out of device memory), the old tags kept. */
bool splat_set_tags(splat *s, const uint16_t *tags, int n, splat_error *err);

/* Draws n bodies from vertices (device memory: n x {x, y, z, speed} floats,
 * as sim_write_vertices and sim_queue_vertices write them) with view into
 * picture, a CUDA array of half-float RGBA texels of view's size that the
 * sprites replace (surface writes; GL's texture mapped for CUDA), and waits
 * for the GPU before it returns: a CPU that waits on a CUDA stream before
 * the interop unmap keeps frames faster than one that leaves the wait to
 * the unmap (docs/PERFORMANCE.md, "How we got here", the frame's waits).
 * false with *err when
 * CUDA refuses (out of memory for the light of a large picture, a launch). */
bool splat_draw(splat *s, const void *vertices, int n, const splat_view *view,
                struct cudaArray *picture, splat_error *err);

#ifdef __cplusplus
}
#endif

#endif
