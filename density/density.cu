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
 * and a binary search per pixel, as splat/ does), so a lone body's large
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

__global__ void __launch_bounds__(COUNT_THREADS)
    count_kernel(const float4 *__restrict__ vertices, const uint8_t *__restrict__ tags, int n,
                 density_frame f, uint32_t *__restrict__ count) {
    __shared__ uint32_t local[DENSITY_CELLS_MAX];
    const int cells = f.cells_x * f.cells_y;
    for (int c = threadIdx.x; c < cells; c += COUNT_THREADS) local[c] = 0;
    __syncthreads();
    for (int i = blockIdx.x * COUNT_THREADS + threadIdx.x; i < n; i += gridDim.x * COUNT_THREADS) {
        const float4 v = vertices[i];
        density_body b;
        if (density_body_of(&f, v.x, v.y, v.z, tags[i], &b)) {
            atomicAdd(&local[b.cy * f.cells_x + b.cx], 1u);
        }
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cells; c += COUNT_THREADS) {
        if (local[c]) atomicAdd(&count[c], local[c]);
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
    if (!g->sms) {
        int device = 0;
        cudaGetDevice(&device);
        cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, device);
        if (g->sms <= 0) g->sms = 1;
    }
    const size_t cells = (size_t)f.cells_x * (size_t)f.cells_y;
    if (!cuda_ok(cudaMemsetAsync(g->count, 0, sizeof(uint32_t) * cells, STREAM), "cudaMemset",
                 err) ||
        !cuda_ok(cudaMemsetAsync(g->map, 0, sizeof(float) * pixels, STREAM), "cudaMemset", err)) {
        return false;
    }
    if (n > 0) {
        int blocks = (n + COUNT_THREADS - 1) / COUNT_THREADS;
        if (blocks > g->sms * COUNT_BLOCKS_PER_SM) blocks = g->sms * COUNT_BLOCKS_PER_SM;
        count_kernel<<<blocks, COUNT_THREADS, 0, STREAM>>>(g->vertices, g->tags, n, f, g->count);
        if (!cuda_ok(cudaGetLastError(), "count_kernel", err)) return false;
        deposit_kernel<<<(n + DEPOSIT_THREADS - 1) / DEPOSIT_THREADS, DEPOSIT_THREADS, 0, STREAM>>>(
            g->vertices, g->mass, g->tags, n, f, g->count, g->map);
        if (!cuda_ok(cudaGetLastError(), "deposit_kernel", err)) return false;
    }
    return cuda_ok(cudaMemcpy(map, g->map, sizeof(float) * pixels, cudaMemcpyDeviceToHost),
                   "cudaMemcpy (density map)", err);
}
