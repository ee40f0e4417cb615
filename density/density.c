/* density.c - the density map on the CPU (density.h), and the picture's
 * geometry both implementations share.
 *
 * The same two passes as the kernels (density.cu), one body at a time:
 * count the bodies per coarse cell, then spread each body's mass with its
 * normalised kernel. The pixels add up in double and are rounded to float
 * once, so the CPU's map is the reference the GPU's is held to
 * (tests/test_density.c, run as test_density gpu).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "density.h"
#include "density_math.h"

void density_frame_setup(const density_view *v, density_frame *f) {
    memset(f, 0, sizeof *f);
    f->width = v->width;
    f->height = v->height;
    memcpy(f->view, v->view, sizeof f->view);
    memcpy(f->proj, v->proj, sizeof f->proj);
    /* The smallest square cell that keeps the grid within DENSITY_CELLS_MAX. */
    const double pixels = (double)v->width * (double)v->height;
    int cell = (int)ceil(sqrt(pixels / DENSITY_CELLS_MAX));
    if (cell < DENSITY_CELL_MIN_PX) cell = DENSITY_CELL_MIN_PX;
    while (((v->width + cell - 1) / cell) * ((v->height + cell - 1) / cell) > DENSITY_CELLS_MAX) {
        cell++;
    }
    f->cell_px = (float)cell;
    f->cells_x = (v->width + cell - 1) / cell;
    f->cells_y = (v->height + cell - 1) / cell;
    const int k = v->neighbours > 0 ? v->neighbours : DENSITY_NEIGHBOURS;
    f->k_over_pi = (float)(k / 3.14159265358979323846);
    f->max_h = v->max_h_px > 0 ? v->max_h_px : DENSITY_MAX_H_PX;
    if (f->max_h < DENSITY_MIN_H_PX) f->max_h = DENSITY_MIN_H_PX;
    f->area_scale = (float)density_pixel_area(v, 1.0);
    f->tags = v->tags ? v->tags : 0xffffu;
}

double density_pixel_area(const density_view *v, double w) {
    /* A length L at depth w spans L P00 width / (2 w) pixels across (and
     * likewise P11 upwards): a pixel is 2 w / (P00 width) wide. */
    const double p00 = v->proj[0], p11 = v->proj[5];
    return 4.0 * w * w / (p00 * p11 * (double)v->width * (double)v->height);
}

bool density_bodies_cpu(const float *vertices, const float *mass, const uint8_t *tags, int n,
                        const density_view *v, float *out, density_error *err) {
    density_frame f;
    density_frame_setup(v, &f);
    double *cell_mass = calloc((size_t)f.cells_x * (size_t)f.cells_y, sizeof *cell_mass);
    if (!cell_mass) {
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "out of host memory for the density of %d bodies", n);
            snprintf(err->hint, sizeof err->hint, "try a smaller --n");
        }
        return false;
    }
    density_body b;
    for (int i = 0; i < n; i++) { /* pass 1, by mass */
        const float *p = vertices + 4 * (size_t)i;
        if (density_body_of(&f, p[0], p[1], p[2], tags ? tags[i] : 0u, &b)) {
            cell_mass[b.cy * f.cells_x + b.cx] += mass[i];
        }
    }
    const double cell_pixels = (double)f.cell_px * (double)f.cell_px;
    for (int i = 0; i < n; i++) {
        const float *p = vertices + 4 * (size_t)i;
        out[i] = density_body_of(&f, p[0], p[1], p[2], tags ? tags[i] : 0u, &b)
                     ? (float)(cell_mass[b.cy * f.cells_x + b.cx] * b.inv_area / cell_pixels)
                     : NAN;
    }
    free(cell_mass);
    return true;
}

bool density_map_cpu(const float *vertices, const float *mass, const uint8_t *tags, int n,
                     const density_view *v, float *map, density_error *err) {
    density_frame f;
    density_frame_setup(v, &f);
    const size_t pixels = (size_t)v->width * (size_t)v->height;
    uint32_t *count = calloc((size_t)f.cells_x * (size_t)f.cells_y, sizeof *count);
    double *sum = calloc(pixels, sizeof *sum);
    if (!count || !sum) {
        free(count);
        free(sum);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "out of host memory for a %dx%d density map", v->width, v->height);
            snprintf(err->hint, sizeof err->hint, "try a smaller window or --width/--height");
        }
        return false;
    }
    density_body b;
    for (int i = 0; i < n; i++) { /* pass 1: bodies per coarse cell */
        const float *p = vertices + 4 * (size_t)i;
        if (density_body_of(&f, p[0], p[1], p[2], tags ? tags[i] : 0u, &b)) {
            count[b.cy * f.cells_x + b.cx]++;
        }
    }
    for (int i = 0; i < n; i++) { /* pass 2: each body's mass, spread */
        const float *p = vertices + 4 * (size_t)i;
        if (!density_body_of(&f, p[0], p[1], p[2], tags ? tags[i] : 0u, &b)) continue;
        const float h = density_h(&f, count[b.cy * f.cells_x + b.cx]), inv_h = 1.0f / h;
        int x0, x1, y0, y1;
        density_footprint(b.px, b.py, h, &x0, &x1, &y0, &y1);
        float total = 0.0f;
        for (int y = y0; y <= y1; y++) {
            for (int x = x0; x <= x1; x++) total += density_pixel_w(b.px, b.py, inv_h, x, y);
        }
        if (!(total > 0.0f)) continue;
        const double scale = (double)mass[i] * b.inv_area / total;
        for (int y = y0 > 0 ? y0 : 0; y <= y1 && y < v->height; y++) {
            for (int x = x0 > 0 ? x0 : 0; x <= x1 && x < v->width; x++) {
                sum[(size_t)y * v->width + x] += scale * density_pixel_w(b.px, b.py, inv_h, x, y);
            }
        }
    }
    for (size_t k = 0; k < pixels; k++) map[k] = (float)sum[k];
    free(count);
    free(sum);
    return true;
}
