/* video_frames.cu - a video's frames converted to YUV 4:2:0 by a kernel and
 * copied to pinned host memory by the copy engine (video.h says the order
 * of things). This replaces, where CUDA can read GL's picture, a GL
 * conversion pass and a GL read-back that cost the frame loop more
 * (docs/PERFORMANCE.md, "Recording").
 *
 * The arithmetic is shaders/yuv420.frag's, in float: Y from each pixel,
 * U and V from the 2x2 average, BT.709 weights, limited range (Y 16..235,
 * chroma 16..240), rounded to the nearest level; tests/yuv_check.c holds
 * both to the formula in double precision.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "video.h"

struct video_frames {
    int w, h;         /* the picture */
    int out_w, out_h; /* the frame: its even part */
    size_t bytes;     /* of one frame */
    cudaStream_t convert, copy;
    uint8_t *dev[VIDEO_DEPTH];  /* converted frames */
    uint8_t *host[VIDEO_DEPTH]; /* pinned, where the copies land */
    cudaEvent_t converted[VIDEO_DEPTH], copied[VIDEO_DEPTH];
    cudaArray_t array;       /* the picture the texture object reads, */
    cudaTextureObject_t tex; /* made again when the array changes */
    int oldest;              /* the slot of the oldest frame pushed and not released */
    int mapped, queued;      /* frames from oldest on: mapped first, then queued */
};

static bool cuda_ok(cudaError_t e, const char *call, video_error *err) {
    if (e == cudaSuccess) return true;
    snprintf(err->message, sizeof err->message, "%s: %s (CUDA error %d)", call,
             cudaGetErrorString(e), (int)e);
    snprintf(err->hint, sizeof err->hint, "%s",
             e == cudaErrorMemoryAllocation ? "try a smaller --record-size"
                                            : "check the GPU with nvidia-smi");
    cudaGetLastError(); /* clear it when it is not sticky */
    return false;
}

/* The BT.709 weights and the limited range: level = offset + range * value. */
__device__ __forceinline__ float luma(float r, float g, float b) {
    return 0.2126f * r + 0.7152f * g + 0.0722f * b;
}

__device__ __forceinline__ uint8_t level(float x) {
    return (uint8_t)__float2int_rn(fminf(fmaxf(x, 0.0f), 255.0f));
}

/* One thread per 2x2 block of the frame: its four Y, one U, one V. The
 * frame's row y (from the top) is GL's row h - 1 - y of the picture. */
__global__ void yuv420_kernel(cudaTextureObject_t rgba, int h, int out_w, int out_h,
                              uint8_t *__restrict__ out) {
    const int cx = blockIdx.x * blockDim.x + threadIdx.x;
    const int cy = blockIdx.y * blockDim.y + threadIdx.y;
    const int cw = out_w / 2, ch = out_h / 2;
    if (cx >= cw || cy >= ch) return;
    float r = 0.0f, g = 0.0f, b = 0.0f;
    for (int dy = 0; dy < 2; dy++) {
        const int y = 2 * cy + dy;
        const float row = (float)(h - 1 - y) + 0.5f;
        uchar2 ys;
        for (int dx = 0; dx < 2; dx++) {
            const uchar4 p = tex2D<uchar4>(rgba, (float)(2 * cx + dx) + 0.5f, row);
            const float pr = p.x / 255.0f, pg = p.y / 255.0f, pb = p.z / 255.0f;
            const uint8_t yl = level(16.0f + 219.0f * luma(pr, pg, pb));
            if (dx == 0) {
                ys.x = yl;
            } else {
                ys.y = yl;
            }
            r += pr;
            g += pg;
            b += pb;
        }
        *(uchar2 *)(out + (size_t)y * out_w + 2 * cx) = ys;
    }
    r *= 0.25f;
    g *= 0.25f;
    b *= 0.25f;
    const float y = luma(r, g, b);
    const size_t plane = (size_t)cw * ch, at = (size_t)cy * cw + cx;
    uint8_t *u = out + (size_t)out_w * out_h;
    u[at] = level(128.0f + 224.0f * (b - y) / 1.8556f);         /* Cb */
    u[plane + at] = level(128.0f + 224.0f * (r - y) / 1.5748f); /* Cr */
}

video_frames *video_frames_create(const video_frames_desc *desc, video_error *err) {
    if (desc->width < 2 || desc->height < 2) {
        snprintf(err->message, sizeof err->message, "a %dx%d picture is too small for YUV 4:2:0",
                 desc->width, desc->height);
        snprintf(err->hint, sizeof err->hint, "record a larger picture");
        return NULL;
    }
    video_frames *v = (video_frames *)calloc(1, sizeof *v);
    if (!v) {
        snprintf(err->message, sizeof err->message, "out of host memory for the video's frames");
        snprintf(err->hint, sizeof err->hint, "free some memory");
        return NULL;
    }
    v->w = desc->width;
    v->h = desc->height;
    v->out_w = v->w & ~1;
    v->out_h = v->h & ~1;
    v->bytes = (size_t)v->out_w * (size_t)v->out_h * 3 / 2;
    bool ok = cuda_ok(cudaStreamCreateWithFlags(&v->convert, cudaStreamDefault), "cudaStreamCreate",
                      err) &&
              cuda_ok(cudaStreamCreateWithFlags(&v->copy, cudaStreamNonBlocking),
                      "cudaStreamCreate", err);
    for (int i = 0; ok && i < VIDEO_DEPTH; i++) {
        ok = cuda_ok(cudaMalloc((void **)&v->dev[i], v->bytes), "cudaMalloc", err) &&
             cuda_ok(cudaHostAlloc((void **)&v->host[i], v->bytes, cudaHostAllocDefault),
                     "cudaHostAlloc", err) &&
             cuda_ok(cudaEventCreateWithFlags(&v->converted[i], cudaEventDisableTiming),
                     "cudaEventCreate", err) &&
             cuda_ok(cudaEventCreateWithFlags(&v->copied[i], cudaEventDisableTiming),
                     "cudaEventCreate", err);
    }
    if (!ok) {
        video_frames_destroy(v);
        return NULL;
    }
    return v;
}

void video_frames_destroy(video_frames *v) {
    if (!v) return;
    /* Errors are ignored: nothing is left to do about them. */
    if (v->convert) cudaStreamSynchronize(v->convert);
    if (v->tex) cudaDestroyTextureObject(v->tex);
    if (v->copy) cudaStreamSynchronize(v->copy);
    for (int i = 0; i < VIDEO_DEPTH; i++) {
        if (v->dev[i]) cudaFree(v->dev[i]);
        if (v->host[i]) cudaFreeHost(v->host[i]);
        if (v->converted[i]) cudaEventDestroy(v->converted[i]);
        if (v->copied[i]) cudaEventDestroy(v->copied[i]);
    }
    if (v->convert) cudaStreamDestroy(v->convert);
    if (v->copy) cudaStreamDestroy(v->copy);
    cudaGetLastError();
    free(v);
}

int video_frames_pending(const video_frames *v) {
    return v->mapped + v->queued;
}

int video_frames_mapped(const video_frames *v) {
    return v->mapped;
}

/* The texture object reading array: texel (x, y) as stored, no filtering. */
static bool bind_array(video_frames *v, cudaArray_t array, video_error *err) {
    if (v->tex && v->array == array) return true;
    if (v->tex) cudaDestroyTextureObject(v->tex);
    v->tex = 0;
    v->array = NULL;
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    if (!cuda_ok(cudaCreateTextureObject(&v->tex, &res, &td, NULL), "cudaCreateTextureObject",
                 err)) {
        v->tex = 0;
        return false;
    }
    v->array = array;
    return true;
}

bool video_frames_push(video_frames *v, struct cudaArray *rgba, video_error *err) {
    if (v->mapped + v->queued == VIDEO_DEPTH) {
        snprintf(err->message, sizeof err->message, "every video frame buffer is taken");
        snprintf(err->hint, sizeof err->hint, "this is a bug: please report it");
        return false;
    }
    const int slot = (v->oldest + v->mapped + v->queued) % VIDEO_DEPTH;
    const dim3 block(32, 8);
    const dim3 grid((unsigned)(v->out_w / 2 + 31) / 32, (unsigned)(v->out_h / 2 + 7) / 8);
    if (!bind_array(v, rgba, err)) return false;
    yuv420_kernel<<<grid, block, 0, v->convert>>>(v->tex, v->h, v->out_w, v->out_h, v->dev[slot]);
    if (!cuda_ok(cudaGetLastError(), "the YUV conversion kernel", err) ||
        !cuda_ok(cudaEventRecord(v->converted[slot], v->convert), "cudaEventRecord", err) ||
        !cuda_ok(cudaStreamWaitEvent(v->copy, v->converted[slot], 0), "cudaStreamWaitEvent", err) ||
        !cuda_ok(
            cudaMemcpyAsync(v->host[slot], v->dev[slot], v->bytes, cudaMemcpyDeviceToHost, v->copy),
            "cudaMemcpyAsync", err) ||
        !cuda_ok(cudaEventRecord(v->copied[slot], v->copy), "cudaEventRecord", err)) {
        return false;
    }
    v->queued++;
    return true;
}

bool video_frames_map(video_frames *v, bool wait, const uint8_t **data, video_error *err) {
    *data = NULL;
    if (v->queued == 0) return true;
    const int slot = (v->oldest + v->mapped) % VIDEO_DEPTH;
    const cudaError_t e =
        wait ? cudaEventSynchronize(v->copied[slot]) : cudaEventQuery(v->copied[slot]);
    if (e == cudaErrorNotReady) return true; /* not done yet */
    if (!cuda_ok(e, wait ? "cudaEventSynchronize" : "cudaEventQuery", err)) return false;
    *data = v->host[slot];
    v->queued--;
    v->mapped++;
    return true;
}

void video_frames_release(video_frames *v) {
    if (v->mapped == 0) return;
    v->oldest = (v->oldest + 1) % VIDEO_DEPTH;
    v->mapped--;
}
