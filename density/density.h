/* density.h - the projected surface density of the bodies in view: a float
 * picture of mass per unit area (model units), each body spread by a
 * smoothing kernel whose size follows the local density.
 *
 * What it does: given the bodies' positions (the renderer's vertices:
 * x, y, z, speed floats), masses and tags, the camera's view and
 * projection (render_sprite_params: the same matrices as the sprites, so
 * the map lines up with them), a picture size and a filter of tags, it
 * writes width x height floats, row 0 at the bottom (as GL's textures).
 * Two passes: (1) the bodies are counted on a coarse grid of cells
 * (DENSITY_CELLS_MAX at most, DENSITY_CELL_MIN_PX pixels a side at least),
 * which gives each body the projected number density n of its cell and a
 * smoothing length h = sqrt(k / (pi n)) pixels (k = neighbours), clamped to
 * [DENSITY_MIN_H_PX, max_h_px]; (2) each body's mass is spread with the 2-D
 * cubic spline of radius h, its weights normalised over the pixels its
 * kernel covers, so a body whose kernel lies inside the picture deposits
 * exactly its mass; a kernel crossing the picture's edge loses the part
 * outside.
 *
 * Perspective: a pixel's physical area is taken at each body's own depth
 * (clip w): area = 4 w^2 / (P00 P11 width height), so a body at the
 * camera's target distance D contributes m / area(D) in all and the map's
 * total times area(D) is the sum of m (D / w)^2 over the bodies in view.
 *
 * Two implementations of one algorithm (density_math.h holds their
 * arithmetic): density_map_cpu on host arrays (the CPU backend, and the
 * tests), accumulated in double; density_gpu_* on the GPU, accumulated in
 * float with atomics, the picture copied to the host for the colour map.
 *
 * What it does not do: no GL, no simulation; the app converts to physical
 * units and draws the picture (render_colormap).
 */
#ifndef DENSITY_H
#define DENSITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DENSITY_NEIGHBOURS 32   /* k: bodies within a body's kernel, about */
#define DENSITY_MIN_H_PX 1.0f   /* the smallest smoothing length, pixels */
#define DENSITY_MAX_H_PX 24.0f  /* the largest, pixels (a lone body's footprint) */
#define DENSITY_CELLS_MAX 4096  /* coarse cells at most (the GPU's count fits shared memory) */
#define DENSITY_CELL_MIN_PX 8   /* a coarse cell's side at least, pixels */

typedef struct density_error {
    char message[512]; /* every module's error has these sizes: one fits another */
    char hint[256];
} density_error;

/* What the map is of. Zero means default where noted. */
typedef struct density_view {
    int width, height;        /* the picture, pixels; required */
    float view[16], proj[16]; /* column-major (cglm, GL), as render_sprite_params */
    uint32_t tags;            /* bit t set: bodies of tag t (SIM_TAG) count; 0 -> all */
    int neighbours;           /* k; 0 -> DENSITY_NEIGHBOURS */
    float max_h_px;           /* 0 -> DENSITY_MAX_H_PX */
} density_view;

/* The physical area of one pixel at clip depth w (the distance along the
 * view axis) for view: 4 w^2 / (P00 P11 width height). */
double density_pixel_area(const density_view *v, double w);

/* The map on the CPU: vertices (n x {x, y, z, speed} floats), mass[n] and
 * tags[n] (NULL: all tag 0) into map[width * height]. false with *err when
 * out of host memory (map untouched). */
bool density_map_cpu(const float *vertices, const float *mass, const uint8_t *tags, int n,
                     const density_view *v, float *map, density_error *err);

/* Each body's local projected surface density from pass 1 of the map (the
 * colour mode "density", app/app_colour.c): the mass of the bodies that
 * count (v's tags) in its coarse cell over the cell's physical area at the
 * body's own depth, model units (mass/length²), into out[n]; NaN for a body
 * the map leaves out (behind the eye, off the picture, filtered out).
 * false with *err when out of host memory (out untouched). */
bool density_bodies_cpu(const float *vertices, const float *mass, const uint8_t *tags, int n,
                        const density_view *v, float *out, density_error *err);

/* ---- the GPU ---------------------------------------------------------------- */

typedef struct density_gpu density_gpu;

/* Buffers are made at first use. NULL with *err (out of host memory). Its
 * work runs on the legacy default stream, after what was queued there
 * before (sim_queue_vertices). */
density_gpu *density_gpu_create(density_error *err);
/* Waits for its work, then frees it. */
void density_gpu_destroy(density_gpu *g);
/* The masses and tags of n bodies (host arrays; tags NULL: all 0), copied to
 * the GPU; they change only when the bodies do. false with *err (out of
 * device memory). */
bool density_gpu_set_bodies(density_gpu *g, const float *mass, const uint8_t *tags, int n,
                            density_error *err);
/* A device buffer of n vertices for the caller to fill (sim_queue_vertices)
 * before density_gpu_map; NULL with *err (out of device memory). */
void *density_gpu_vertices(density_gpu *g, int n, density_error *err);
/* The map of the n bodies in density_gpu_vertices (masses and tags as last
 * set; n at most as many) into the host's map[width * height]; waits for
 * the GPU. false with *err when CUDA refuses (memory, a launch). */
bool density_gpu_map(density_gpu *g, int n, const density_view *v, float *map,
                     density_error *err);

/* ---- per-body values on the GPU (colour by a quantity) ---------------------
 * The colour modes "density" and "radial velocity" on the CUDA backend
 * (app/app_colour.c) take every body's value, its auto range and its place
 * in the palette here, on the device, so no body is copied to the host:
 * only a strided sample of the values comes back, for the range. They are
 * here beside the map because the density is the map's pass 1 and needs
 * its buffers (the vertices, masses and tags above); the radial velocity
 * comes from sim_radial_velocities into density_gpu_values' raw buffer.
 * Everything is queued on the legacy default stream. */

/* Two device buffers of n floats, each body's value (raw) and its place in
 * the palette (place), the caller's to fill and read until the next call
 * with a larger n; false with *err (out of device memory). */
bool density_gpu_values(density_gpu *g, int n, float **raw, float **place, density_error *err);
/* Each body's local projected surface density, as density_bodies_cpu (its
 * twin) computes it, of the n bodies in density_gpu_vertices (masses and
 * tags as last set) into device memory out[n], NaN for a body the map
 * leaves out; the cells' masses add up in float. Queued, not waited for.
 * false with *err when CUDA refuses. */
bool density_gpu_bodies(density_gpu *g, int n, const density_view *v, float *out,
                        density_error *err);
/* Copies values[0], values[stride], ... (device memory, n values) to the
 * host's sample[(n + stride - 1) / stride]; waits for the GPU. false with *err. */
bool density_gpu_sample(const float *values, int n, int stride, float *sample, density_error *err);
/* Each value's place in [lo, hi], 0..1, into out[n] (device memory both):
 * log(v / lo) / log(hi / lo) when logarithmic (0 for v <= 0), else
 * (v - lo) / (hi - lo); clamped to [0, 1], 0 where v is not finite, 0.5
 * where hi <= lo (app_colour_place is its twin). Queued, not waited for.
 * false with *err when the launch fails. */
bool density_gpu_place(const float *values, int n, double lo, double hi, bool logarithmic,
                       float *out, density_error *err);

#ifdef __cplusplus
}
#endif

#endif /* DENSITY_H */
