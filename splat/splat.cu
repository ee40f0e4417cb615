/* splat.cu - point sprites drawn by CUDA (splat.h says what and why).
 *
 * A frame is two kernels on the legacy default stream (STREAM says why):
 *
 * sprites_kernel: a thread per body works out its sprite (splat_math.h);
 * each warp then shares out the pixels of its 32 sprites evenly among its
 * lanes - a prefix sum of their pixel counts in shared memory, each lane
 * taking every 32nd pixel and walking the sums forward - so a 96-pixel
 * sprite beside 2-pixel ones does not leave 31 lanes idle; each lane adds
 * its pixel's light into a float4 per
 * pixel with an atomic add (one vector atomic on sm_90 and later when nvcc
 * is 12.8 or newer, else one per channel). Order of the additions varies
 * from run to run, so the last bits of a pixel's sum in float do; rounded
 * to half floats they rarely show.
 *
 * resolve_kernel: a thread per pixel rounds the light to half floats into
 * the picture (a surface write) and zeroes the float4 for the next frame,
 * so no separate clear pass is needed.
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "splat.h"
#include "splat_math.h"

#define SPRITE_THREADS 256
#define RESOLVE_X 32
#define RESOLVE_Y 8

static_assert(SPRITE_THREADS % 32 == 0, "whole warps");

/* The legacy default stream: ordered after the interop map, the
 * simulation's vertices (sim_queue_vertices: its stream is a blocking one)
 * and before the unmap, all of which app/interop/interop.c issues there or on
 * blocking streams - so one wait covers the vertices and the sprites. */
#define STREAM cudaStreamLegacy

struct splat {
    float4 *light; /* width x height, zero between frames */
    size_t light_pixels;
    bool light_clean; /* all zeros (false after a failed frame) */
    uint16_t *tags;   /* the renderer's 16-bit tags (shaders/nbody_shared.h) */
    int tag_count, tag_capacity;
    cudaArray_t array;           /* the picture the surface object writes, */
    cudaSurfaceObject_t surface; /* made again when the array changes */
};

static bool cuda_ok(cudaError_t e, const char *call, splat_error *err) {
    if (e == cudaSuccess) return true;
    if (err) {
        snprintf(err->message, sizeof err->message, "%s: %s (CUDA error %d)", call,
                 cudaGetErrorString(e), (int)e);
        snprintf(err->hint, sizeof err->hint, "%s",
                 e == cudaErrorMemoryAllocation ? "try a smaller window or --width/--height"
                                                : "check the GPU with nvidia-smi");
    }
    cudaGetLastError(); /* clear it when it is not sticky */
    return false;
}

__device__ __forceinline__ void add_light(float4 *p, float r, float g, float b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 &&                                              \
    (__CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 8))
    atomicAdd(p, make_float4(r, g, b, 0.0f)); /* one vector atomic (sm_90) */
#else
    atomicAdd(&p->x, r);
    atomicAdd(&p->y, g);
    atomicAdd(&p->z, b);
#endif
}

__global__ void __launch_bounds__(SPRITE_THREADS)
    sprites_kernel(const float4 *__restrict__ vertices, const uint16_t *__restrict__ tags,
                   int tag_count, int n, splat_view view, float4 *__restrict__ light) {
    __shared__ splat_sprite sprite[SPRITE_THREADS];
    __shared__ int end[SPRITE_THREADS]; /* inclusive prefix sums of the pixel counts, per warp */
    const int t = threadIdx.x, lane = t & 31, warp0 = t & ~31;
    const int i = blockIdx.x * SPRITE_THREADS + t;
    int count = 0;
    splat_sprite s;
    if (i < n) {
        const float4 v = vertices[i];
        const float body[4] = {v.x, v.y, v.z, v.w};
        const uint32_t tag = i < tag_count ? tags[i] : 0u;
        if (splat_setup(&view, body, tag, (uint32_t)i, &s) && s.x1 >= s.x0 && s.y1 >= s.y0) {
            count = (s.x1 - s.x0 + 1) * (s.y1 - s.y0 + 1);
        }
    }
    int sum = count;
    for (int o = 1; o < 32; o <<= 1) {
        const int below = __shfl_up_sync(0xffffffffu, sum, o);
        if (lane >= o) sum += below;
    }
    if (count > 0) sprite[t] = s;
    end[t] = sum;
    const int total = __shfl_sync(0xffffffffu, sum, 31);
    __syncwarp();
    /* Lane `lane` takes the warp's pixels lane, lane + 32, ...: the sprite
     * holding each (the first whose end exceeds it) only moves forward, and
     * within one sprite the pixel's row and column move on by 32 places, so
     * both are carried from pixel to pixel rather than searched for and
     * divided out each time. */
    int j = -1, width = 1, row = 0, col = 0;
    splat_sprite q;
    for (int k = lane; k < total; k += 32) {
        if (j < 0 || end[warp0 + j] <= k) {
            do {
                j++;
            } while (end[warp0 + j] <= k);
            q = sprite[warp0 + j];
            const int local = k - (j > 0 ? end[warp0 + j - 1] : 0);
            width = q.x1 - q.x0 + 1;
            row = local / width;
            col = local - row * width;
        } else {
            col += 32;
            while (col >= width) {
                col -= width;
                row++;
            }
        }
        const int x = q.x0 + col, y = q.y0 + row;
        const float w = splat_weight(&q, x, y);
        if (w > 0.0f) {
            add_light(light + (size_t)y * view.width + x, q.light.r * w, q.light.g * w,
                      q.light.b * w);
        }
    }
}

__global__ void resolve_kernel(float4 *__restrict__ light, int width, int height,
                               cudaSurfaceObject_t picture) {
    const int x = blockIdx.x * RESOLVE_X + threadIdx.x, y = blockIdx.y * RESOLVE_Y + threadIdx.y;
    if (x >= width || y >= height) return;
    float4 *p = light + (size_t)y * width + x;
    const float4 c = *p;
    *p = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    const ushort4 h = make_ushort4(
        __half_as_ushort(__float2half_rn(c.x)), __half_as_ushort(__float2half_rn(c.y)),
        __half_as_ushort(__float2half_rn(c.z)), __half_as_ushort(__float2half_rn(1.0f)));
    surf2Dwrite(h, picture, x * (int)sizeof(ushort4), y);
}

splat *splat_create(splat_error *err) {
    splat *s = (splat *)calloc(1, sizeof *s);
    if (!s) {
        snprintf(err->message, sizeof err->message, "out of host memory for CUDA's sprites");
        snprintf(err->hint, sizeof err->hint, "free some memory");
        return NULL;
    }
    return s;
}

void splat_destroy(splat *s) {
    if (!s) return;
    cudaStreamSynchronize(STREAM);
    if (s->surface) cudaDestroySurfaceObject(s->surface);
    cudaFree(s->light);
    cudaFree(s->tags);
    free(s);
}

bool splat_set_tags(splat *s, const uint16_t *tags, int n, splat_error *err) {
    if (n > s->tag_capacity) {
        uint16_t *p = NULL;
        if (!cuda_ok(cudaMalloc(&p, sizeof *p * (size_t)n), "cudaMalloc (sprite tags)", err)) {
            return false;
        }
        cudaStreamSynchronize(STREAM); /* the old ones may still be read */
        cudaFree(s->tags);
        s->tags = p;
        s->tag_capacity = n;
    }
    s->tag_count = 0;
    if (n > 0 && !cuda_ok(cudaMemcpyAsync(s->tags, tags, sizeof *tags * (size_t)n,
                                          cudaMemcpyHostToDevice, STREAM),
                          "cudaMemcpyAsync (sprite tags)", err)) {
        return false;
    }
    /* The copy is from pageable memory: it has left tags when this returns. */
    s->tag_count = n;
    return true;
}

/* The float4 of light per pixel, zeroed, for a picture of pixels. */
static bool ensure_light(splat *s, size_t pixels, splat_error *err) {
    if (pixels > s->light_pixels) {
        cudaStreamSynchronize(STREAM);
        cudaFree(s->light);
        s->light = NULL;
        s->light_pixels = 0;
        if (!cuda_ok(cudaMalloc(&s->light, pixels * sizeof(float4)), "cudaMalloc (sprite light)",
                     err)) {
            return false;
        }
        s->light_pixels = pixels;
        s->light_clean = false;
    }
    if (!s->light_clean) {
        if (!cuda_ok(cudaMemsetAsync(s->light, 0, s->light_pixels * sizeof(float4), STREAM),
                     "cudaMemsetAsync (sprite light)", err)) {
            return false;
        }
        s->light_clean = true;
    }
    return true;
}

static bool ensure_surface(splat *s, cudaArray_t array, splat_error *err) {
    if (s->surface && s->array == array) return true;
    if (s->surface) cudaDestroySurfaceObject(s->surface); /* the stream is idle: draws wait */
    s->surface = 0;
    s->array = NULL;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    if (!cuda_ok(cudaCreateSurfaceObject(&s->surface, &res), "cudaCreateSurfaceObject", err)) {
        s->surface = 0;
        return false;
    }
    s->array = array;
    return true;
}

bool splat_draw(splat *s, const void *vertices, int n, const splat_view *view,
                struct cudaArray *picture, splat_error *err) {
    const int w = view->width, h = view->height;
    if (w <= 0 || h <= 0) return true;
    if (!ensure_light(s, (size_t)w * (size_t)h, err) || !ensure_surface(s, picture, err)) {
        return false;
    }
    s->light_clean = false; /* until the resolve has run */
    if (n > 0) {
        const int blocks = (int)(((long long)n + SPRITE_THREADS - 1) / SPRITE_THREADS);
        sprites_kernel<<<blocks, SPRITE_THREADS, 0, STREAM>>>((const float4 *)vertices, s->tags,
                                                              s->tag_count, n, *view, s->light);
        if (!cuda_ok(cudaGetLastError(), "sprites_kernel", err)) return false;
    }
    const dim3 block(RESOLVE_X, RESOLVE_Y);
    const dim3 grid((unsigned)((w + RESOLVE_X - 1) / RESOLVE_X),
                    (unsigned)((h + RESOLVE_Y - 1) / RESOLVE_Y));
    resolve_kernel<<<grid, block, 0, STREAM>>>(s->light, w, h, s->surface);
    if (!cuda_ok(cudaGetLastError(), "resolve_kernel", err)) return false;
    if (!cuda_ok(cudaStreamSynchronize(STREAM), "the sprite kernels", err)) return false;
    s->light_clean = true;
    return true;
}
