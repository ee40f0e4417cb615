/* density.cu - the density map on the GPU (density.h says what and why).
 *
 * Three launches on the legacy default stream, then one copy to the host:
 *
 * count_kernel: a grid-stride loop over the bodies; each block counts its
 * bodies per coarse cell in shared memory (DENSITY_CELLS_MAX counters fit)
 * and adds its non-zero counts to the global grid, so a dense centre costs
 * shared-memory atomics, not contended global ones.
 *
 * deposit_kernel: a thread per body works out its footprint and kernel
 * (density_math.h, the CPU's arithmetic); each warp shares out the pixels
 * of its 32 footprints among its lanes (prefix sums of their pixel counts
 * and a binary search of them per pixel), so a lone body's large
 * kernel beside small ones does not leave the warp idle. A body's kernel
 * weights are summed in the same order as the CPU's before any deposit;
 * each pixel gets an atomic float add.
 *
 * The map is cleared with a memset before each frame and copied to the
 * host after: width x height floats.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "density.h"
#include "density_math.h"

#define COUNT_THREADS 256
#define COUNT_BLOCKS_PER_SM 4
#define DEPOSIT_THREADS 256
#define STREAM cudaStreamLegacy

static_assert(DEPOSIT_THREADS % 32 == 0, "whole warps");

struct density_gpu {
    float4 *vertices;
    int vertex_capacity;
    float *mass;
    uint8_t *tags;
    int body_count, body_capacity;
    uint32_t *count; /* DENSITY_CELLS_MAX */
    float *map;
    size_t map_pixels;
    float *cell_mass; /* DENSITY_CELLS_MAX: density_gpu_bodies' pass 1 */
    float *values;    /* 2 x values_capacity: density_gpu_values' raw, then place */
    int values_capacity;
    int sms;
};

static bool cuda_ok(cudaError_t e, const char *call, density_error *err) {
    if (e == cudaSuccess) return true;
    if (err) {
        snprintf(err->message, sizeof err->message, "%s: %s (CUDA error %d)", call,
                 cudaGetErrorString(e), (int)e);
        snprintf(err->hint, sizeof err->hint, "%s",
                 e == cudaErrorMemoryAllocation ? "try fewer bodies or a smaller picture"
                                                : "check the GPU with nvidia-smi");
    }
    cudaGetLastError(); /* clear it when it is not sticky */
    return false;
}

/* The device's multiprocessors (the grids' size), asked once. */
static void query_sms(density_gpu *g) {
    if (g->sms) return;
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device);
    if (g->sms <= 0) g->sms = 1;
}

/* Per coarse cell, the bodies' count (mass NULL, T uint32_t) or their mass
 * (T float), summed per block in shared memory, then added to out. */
template <typename T>
__global__ void __launch_bounds__(COUNT_THREADS)
    count_kernel(const float4 *__restrict__ vertices, const float *__restrict__ mass,
                 const uint8_t *__restrict__ tags, int n, density_frame f, T *__restrict__ out) {
    __shared__ T local[DENSITY_CELLS_MAX];
    const int cells = f.cells_x * f.cells_y;
    for (int c = threadIdx.x; c < cells; c += COUNT_THREADS) local[c] = 0;
    __syncthreads();
    for (int i = blockIdx.x * COUNT_THREADS + threadIdx.x; i < n; i += gridDim.x * COUNT_THREADS) {
        const float4 v = vertices[i];
        density_body b;
        if (density_body_of(&f, v.x, v.y, v.z, tags[i], &b)) {
            atomicAdd(&local[b.cy * f.cells_x + b.cx], mass ? (T)mass[i] : (T)1);
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cells; c += COUNT_THREADS) {
        if (local[c] != 0) atomicAdd(&out[c], local[c]);
    }
}

/* One footprint as a warp shares it out. */
typedef struct footprint {
    float px, py, inv_h, scale; /* scale: mass / (area x the weights' sum) */
    int x0, y0, width;          /* its first pixel and its width in pixels */
} footprint;

__global__ void __launch_bounds__(DEPOSIT_THREADS)
    deposit_kernel(const float4 *__restrict__ vertices, const float *__restrict__ mass,
                   const uint8_t *__restrict__ tags, int n, density_frame f,
                   const uint32_t *__restrict__ count, float *__restrict__ map) {
    __shared__ footprint foot[DEPOSIT_THREADS];
    __shared__ int end[DEPOSIT_THREADS]; /* inclusive prefix sums of the pixel counts, per warp */
    const int t = threadIdx.x, lane = t & 31, warp0 = t & ~31;
    const int i = blockIdx.x * DEPOSIT_THREADS + t;
    int pixels = 0;
    footprint q;
    if (i < n) {
        const float4 v = vertices[i];
        density_body b;
        if (density_body_of(&f, v.x, v.y, v.z, tags[i], &b)) {
            const float h = density_h(&f, count[b.cy * f.cells_x + b.cx]), inv_h = 1.0f / h;
            int x0, x1, y0, y1;
            density_footprint(b.px, b.py, h, &x0, &x1, &y0, &y1);
            float total = 0.0f; /* over the whole footprint, in the CPU's order */
            for (int y = y0; y <= y1; y++) {
                for (int x = x0; x <= x1; x++) total += density_pixel_w(b.px, b.py, inv_h, x, y);
            }
            /* Only the pixels on the picture are shared out. */
            const int cx0 = x0 > 0 ? x0 : 0, cy0 = y0 > 0 ? y0 : 0;
            const int cx1 = x1 < f.width - 1 ? x1 : f.width - 1;
            const int cy1 = y1 < f.height - 1 ? y1 : f.height - 1;
            if (total > 0.0f && cx1 >= cx0 && cy1 >= cy0) {
                q = footprint{b.px, b.py, inv_h, mass[i] * b.inv_area / total, cx0, cy0,
                              cx1 - cx0 + 1};
                pixels = (cx1 - cx0 + 1) * (cy1 - cy0 + 1);
            }
        }
    }
    int sum = pixels;
    for (int o = 1; o < 32; o <<= 1) {
        const int below = __shfl_up_sync(0xffffffffu, sum, o);
        if (lane >= o) sum += below;
    }
    if (pixels > 0) foot[t] = q;
    end[t] = sum;
    const int all = __shfl_sync(0xffffffffu, sum, 31);
    __syncwarp();
    for (int k = lane; k < all; k += 32) {
        int j = 0; /* the footprint holding the warp's pixel k: the first whose end > k */
        for (int step = 16; step > 0; step >>= 1) {
            if (end[warp0 + j + step - 1] <= k) j += step;
        }
        const footprint &p = foot[warp0 + j];
        const int local = k - (j > 0 ? end[warp0 + j - 1] : 0);
        const int row = local / p.width;
        const int x = p.x0 + local - row * p.width, y = p.y0 + row;
        const float w = density_pixel_w(p.px, p.py, p.inv_h, x, y);
        if (w > 0.0f) atomicAdd(map + (size_t)y * f.width + x, p.scale * w);
    }
}

/* Each body's cell's mass over the cell's area at its depth
 * (density_bodies_cpu's second loop). */
__global__ void body_density_kernel(const float4 *__restrict__ vertices,
                                    const uint8_t *__restrict__ tags, int n, density_frame f,
                                    const float *__restrict__ cell_mass, float *__restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 v = vertices[i];
    density_body b;
    const float cell_pixels = f.cell_px * f.cell_px;
    out[i] = density_body_of(&f, v.x, v.y, v.z, tags[i], &b)
                 ? cell_mass[b.cy * f.cells_x + b.cx] * b.inv_area / cell_pixels
                 : __int_as_float(0x7fc00000); /* NaN */
}

/* app_colour_place's arithmetic, in double as there. */
__global__ void place_kernel(const float *__restrict__ values, int n, double lo, double hi,
                             bool logarithmic, float *__restrict__ out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float v = values[i];
    double t;
    if (!isfinite(v) || (logarithmic && !(v > 0.0f))) {
        t = 0.0;
    } else if (!(hi > lo)) {
        t = 0.5;
    } else if (logarithmic) {
        t = log((double)v / lo) / log(hi / lo);
    } else {
        t = ((double)v - lo) / (hi - lo);
    }
    out[i] = (float)(t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t);
}

density_gpu *density_gpu_create(density_error *err) {
    density_gpu *g = (density_gpu *)calloc(1, sizeof *g);
    if (!g && err) {
        snprintf(err->message, sizeof err->message, "out of host memory for the density map");
        snprintf(err->hint, sizeof err->hint, "free some memory");
    }
    return g;
}

void density_gpu_destroy(density_gpu *g) {
    if (!g) return;
    cudaStreamSynchronize(STREAM);
    cudaFree(g->vertices);
    cudaFree(g->mass);
    cudaFree(g->tags);
    cudaFree(g->count);
    cudaFree(g->map);
    cudaFree(g->cell_mass);
    cudaFree(g->values);
    free(g);
}

bool density_gpu_set_bodies(density_gpu *g, const float *mass, const uint8_t *tags, int n,
                            density_error *err) {
    if (n > g->body_capacity) {
        cudaFree(g->mass);
        cudaFree(g->tags);
        g->mass = NULL;
        g->tags = NULL;
        g->body_capacity = 0;
        g->body_count = 0;
        if (!cuda_ok(cudaMalloc(&g->mass, sizeof(float) * (size_t)n), "cudaMalloc (masses)",
                     err) ||
            !cuda_ok(cudaMalloc(&g->tags, (size_t)n), "cudaMalloc (tags)", err)) {
            return false;
        }
        g->body_capacity = n;
    }
    if (!cuda_ok(cudaMemcpy(g->mass, mass, sizeof(float) * (size_t)n, cudaMemcpyHostToDevice),
                 "cudaMemcpy (masses)", err)) {
        return false;
    }
    const cudaError_t e = tags ? cudaMemcpy(g->tags, tags, (size_t)n, cudaMemcpyHostToDevice)
                               : cudaMemset(g->tags, 0, (size_t)n);
    if (!cuda_ok(e, "cudaMemcpy (tags)", err)) return false;
    g->body_count = n;
    return true;
}

void *density_gpu_vertices(density_gpu *g, int n, density_error *err) {
    if (n > g->vertex_capacity) {
        cudaFree(g->vertices);
        g->vertices = NULL;
        g->vertex_capacity = 0;
        if (!cuda_ok(cudaMalloc(&g->vertices, sizeof(float4) * (size_t)n), "cudaMalloc (vertices)",
                     err)) {
            return NULL;
        }
        g->vertex_capacity = n;
    }
    return g->vertices;
}

bool density_gpu_map(density_gpu *g, int n, const density_view *v, float *map,
                     density_error *err) {
    if (n > g->body_count) n = g->body_count;
    if (n > g->vertex_capacity) n = g->vertex_capacity;
    density_frame f;
    density_frame_setup(v, &f);
    const size_t pixels = (size_t)v->width * (size_t)v->height;
    if (pixels > g->map_pixels) {
        cudaFree(g->map);
        g->map = NULL;
        g->map_pixels = 0;
        if (!cuda_ok(cudaMalloc(&g->map, sizeof(float) * pixels), "cudaMalloc (density map)",
                     err)) {
            return false;
        }
        g->map_pixels = pixels;
    }
    if (!g->count && !cuda_ok(cudaMalloc(&g->count, sizeof(uint32_t) * DENSITY_CELLS_MAX),
                              "cudaMalloc (density cells)", err)) {
        return false;
    }
    query_sms(g);
    const size_t cells = (size_t)f.cells_x * (size_t)f.cells_y;
    if (!cuda_ok(cudaMemsetAsync(g->count, 0, sizeof(uint32_t) * cells, STREAM), "cudaMemset",
                 err) ||
        !cuda_ok(cudaMemsetAsync(g->map, 0, sizeof(float) * pixels, STREAM), "cudaMemset", err)) {
        return false;
    }
    if (n > 0) {
        int blocks = (n + COUNT_THREADS - 1) / COUNT_THREADS;
        if (blocks > g->sms * COUNT_BLOCKS_PER_SM) blocks = g->sms * COUNT_BLOCKS_PER_SM;
        count_kernel<uint32_t>
            <<<blocks, COUNT_THREADS, 0, STREAM>>>(g->vertices, NULL, g->tags, n, f, g->count);
        if (!cuda_ok(cudaGetLastError(), "count_kernel", err)) return false;
        deposit_kernel<<<(n + DEPOSIT_THREADS - 1) / DEPOSIT_THREADS, DEPOSIT_THREADS, 0, STREAM>>>(
            g->vertices, g->mass, g->tags, n, f, g->count, g->map);
        if (!cuda_ok(cudaGetLastError(), "deposit_kernel", err)) return false;
    }
    return cuda_ok(cudaMemcpy(map, g->map, sizeof(float) * pixels, cudaMemcpyDeviceToHost),
                   "cudaMemcpy (density map)", err);
}

bool density_gpu_values(density_gpu *g, int n, float **raw, float **place, density_error *err) {
    if (n > g->values_capacity) {
        cudaFree(g->values);
        g->values = NULL;
        g->values_capacity = 0;
        if (!cuda_ok(cudaMalloc(&g->values, 2 * sizeof(float) * (size_t)n),
                     "cudaMalloc (colour values)", err)) {
            return false;
        }
        g->values_capacity = n;
    }
    *raw = g->values;
    *place = g->values + g->values_capacity;
    return true;
}

bool density_gpu_bodies(density_gpu *g, int n, const density_view *v, float *out,
                        density_error *err) {
    if (n > g->body_count) n = g->body_count;
    if (n > g->vertex_capacity) n = g->vertex_capacity;
    if (n <= 0) return true;
    density_frame f;
    density_frame_setup(v, &f);
    if (!g->cell_mass && !cuda_ok(cudaMalloc(&g->cell_mass, sizeof(float) * DENSITY_CELLS_MAX),
                                  "cudaMalloc (density cells)", err)) {
        return false;
    }
    query_sms(g);
    const size_t cells = (size_t)f.cells_x * (size_t)f.cells_y;
    if (!cuda_ok(cudaMemsetAsync(g->cell_mass, 0, sizeof(float) * cells, STREAM), "cudaMemset",
                 err)) {
        return false;
    }
    int blocks = (n + COUNT_THREADS - 1) / COUNT_THREADS;
    if (blocks > g->sms * COUNT_BLOCKS_PER_SM) blocks = g->sms * COUNT_BLOCKS_PER_SM;
    count_kernel<float>
        <<<blocks, COUNT_THREADS, 0, STREAM>>>(g->vertices, g->mass, g->tags, n, f, g->cell_mass);
    if (!cuda_ok(cudaGetLastError(), "count_kernel (masses)", err)) return false;
    body_density_kernel<<<(n + DEPOSIT_THREADS - 1) / DEPOSIT_THREADS, DEPOSIT_THREADS, 0,
                          STREAM>>>(g->vertices, g->tags, n, f, g->cell_mass, out);
    return cuda_ok(cudaGetLastError(), "body_density_kernel", err);
}

bool density_gpu_sample(const float *values, int n, int stride, float *sample, density_error *err) {
    if (n <= 0) return true;
    if (stride < 1) stride = 1;
    const size_t count = (size_t)(n + stride - 1) / (size_t)stride;
    return cuda_ok(cudaMemcpy2DAsync(sample, sizeof(float), values, sizeof(float) * (size_t)stride,
                                     sizeof(float), count, cudaMemcpyDeviceToHost, STREAM),
                   "cudaMemcpy2DAsync (colour sample)", err) &&
           cuda_ok(cudaStreamSynchronize(STREAM), "cudaStreamSynchronize (colour sample)", err);
}

bool density_gpu_place(const float *values, int n, double lo, double hi, bool logarithmic,
                       float *out, density_error *err) {
    if (n <= 0) return true;
    place_kernel<<<(n + DEPOSIT_THREADS - 1) / DEPOSIT_THREADS, DEPOSIT_THREADS, 0, STREAM>>>(
        values, n, lo, hi, logarithmic, out);
    return cuda_ok(cudaGetLastError(), "place_kernel", err);
}
