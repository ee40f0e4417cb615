/* density_math.h - the arithmetic of one body's part of the density map,
 * shared by the CPU twin (density.c) and the kernels (density.cu), so both
 * compute the same picture: the projection, the smoothing length from the
 * coarse grid's count, the kernel's footprint and weights.
 *
 * Private to density/ (and its tests). Compiles as C and as CUDA C++.
 */
#ifndef DENSITY_MATH_H
#define DENSITY_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "density.h"

#ifdef __CUDACC__
#define DENSITY_FN __host__ __device__ static inline
#else
#define DENSITY_FN static inline
#endif

/* One body as the map sees it: where it lands, how far its kernel
 * reaches, and what one unit of its kernel's weight is worth. */
typedef struct density_body {
    float px, py;     /* picture pixels from the lower left, pixel centres at k + 0.5 */
    float inv_area;   /* 1 / (the physical area of a pixel at the body's depth) */
    int cx, cy;       /* its coarse cell */
} density_body;

/* The picture's geometry for a view (density_frame_setup). */
typedef struct density_frame {
    int width, height;
    float view[16], proj[16];
    float cell_px;           /* a coarse cell's side, pixels */
    int cells_x, cells_y;
    float k_over_pi;         /* neighbours / pi */
    float max_h;             /* the largest smoothing length, pixels */
    float area_scale;        /* pixel area at depth w is area_scale * w^2 */
    uint32_t tags;           /* bit t: bodies of tag t count */
} density_frame;

/* Projects a body through view and proj (column-major, as GL): false when
 * it is behind the camera, outside the picture by more than the largest
 * kernel, or filtered out. */
DENSITY_FN bool density_body_of(const density_frame *f, float x, float y, float z, uint32_t tag,
                                density_body *out) {
    if (!((f->tags >> (tag & 15u)) & 1u)) return false;
    const float *V = f->view, *P = f->proj;
    const float ex = V[0] * x + V[4] * y + V[8] * z + V[12];
    const float ey = V[1] * x + V[5] * y + V[9] * z + V[13];
    const float ez = V[2] * x + V[6] * y + V[10] * z + V[14];
    const float ew = V[3] * x + V[7] * y + V[11] * z + V[15];
    const float cx = P[0] * ex + P[4] * ey + P[8] * ez + P[12] * ew;
    const float cy = P[1] * ex + P[5] * ey + P[9] * ez + P[13] * ew;
    const float cw = P[3] * ex + P[7] * ey + P[11] * ez + P[15] * ew;
    if (!(cw > 0.0f)) return false; /* behind the eye (and NaN) */
    const float px = (cx / cw + 1.0f) * 0.5f * (float)f->width;
    const float py = (cy / cw + 1.0f) * 0.5f * (float)f->height;
    const float m = f->max_h + 1.0f;
    if (!(px > -m && px < (float)f->width + m && py > -m && py < (float)f->height + m)) {
        return false;
    }
    out->px = px;
    out->py = py;
    out->inv_area = 1.0f / (f->area_scale * cw * cw);
    int gx = (int)floorf(px / f->cell_px), gy = (int)floorf(py / f->cell_px);
    gx = gx < 0 ? 0 : gx >= f->cells_x ? f->cells_x - 1 : gx;
    gy = gy < 0 ? 0 : gy >= f->cells_y ? f->cells_y - 1 : gy;
    out->cx = gx;
    out->cy = gy;
    return true;
}

/* The smoothing length in pixels from the count of bodies in the body's
 * coarse cell: h = sqrt(k / (pi n)) with n the bodies per square pixel,
 * clamped to [DENSITY_MIN_H_PX, max_h]. */
DENSITY_FN float density_h(const density_frame *f, uint32_t count) {
    const float n = (float)(count > 0 ? count : 1u) / (f->cell_px * f->cell_px);
    const float h = sqrtf(f->k_over_pi / n);
    return h < DENSITY_MIN_H_PX ? DENSITY_MIN_H_PX : h > f->max_h ? f->max_h : h;
}

/* The 2-D cubic spline (M4) of support radius 1 at q = r / h, unnormalised:
 * the weights are normalised over the pixels a body touches. */
DENSITY_FN float density_w(float q) {
    if (q >= 1.0f) return 0.0f;
    if (q < 0.5f) return 1.0f - 6.0f * q * q + 6.0f * q * q * q;
    const float t = 1.0f - q;
    return 2.0f * t * t * t;
}

/* The pixels [x0, x1] x [y0, y1] that a kernel of radius h at (px, py)
 * may touch (whether on the picture or not). */
DENSITY_FN void density_footprint(float px, float py, float h, int *x0, int *x1, int *y0,
                                  int *y1) {
    *x0 = (int)ceilf(px - h - 0.5f);
    *x1 = (int)floorf(px + h - 0.5f);
    *y0 = (int)ceilf(py - h - 0.5f);
    *y1 = (int)floorf(py + h - 0.5f);
}

/* The weight of pixel (x, y) for a kernel of radius h at (px, py). */
DENSITY_FN float density_pixel_w(float px, float py, float inv_h, int x, int y) {
    const float dx = ((float)x + 0.5f - px) * inv_h, dy = ((float)y + 0.5f - py) * inv_h;
    return density_w(sqrtf(dx * dx + dy * dy));
}

/* The geometry of v's picture (density.c): cells, kernel limits, areas. */
#ifdef __cplusplus
extern "C"
#endif
    void
    density_frame_setup(const density_view *v, density_frame *f);

#endif /* DENSITY_MATH_H */
