/* sim_kernels.cu - the force kernels, one per rung of the seed lecture's
 * ladder, side by side, and the table that names them.
 *
 * Every kernel computes, for each body i,
 *     a_i = sum_{j != i} m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
 * (eps^2 at least EPS2_MIN, below) and writes it to acc[i]; sim_cuda.cu does
 * the integrating. Each rung keeps everything of the one before and adds one
 * idea, so reading this file top to bottom is the lecture (seed 000) with the
 * tiles and p x q threads per body of GPU Gems 3 (seed 001) in the middle.
 * Every variant is correct for any N (partial tiles are padded with massless
 * bodies) and any p, q the clamp allows, and is tested against the
 * double-precision CPU reference at every block shape (tests/test_gpu.c).
 *
 * Timings and the instruction counts of each rung on the H100 are in
 * docs/PERFORMANCE.md.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "sim_cuda_check.h"
#include "sim_kernels.h"
#include "sim_pairmap.h"
#include "sim_tree.h"

/* Every launcher computes with eps^2 >= EPS2_MIN (a softening of 1e-6 length
 * units, far below any scale the scenes resolve). That floor is what makes a
 * pair at zero separation contribute nothing, as sim.h defines for eps = 0:
 * dx = dy = dz = 0 times a finite m/r^3 (at most m * 1e18, finite for any
 * mass below 3e20) is exactly 0, where eps = 0 would give 0 * inf = NaN.
 * The same product is how the rungs from "noif" on drop the self-interaction
 * without a branch; the rungs before it keep their if (i != j) and need the
 * floor only for distinct bodies that coincide. Cost: one fmaxf on the host
 * per launch, no instruction in any kernel. Where eps^2 < EPS2_MIN (eps = 0)
 * the floor weakens a pair at distance r by a relative 1.5e-12 / r^2
 * (r = 1e-3: 1.5e-6). */
#define EPS2_MIN 1e-12f

/* The softening squared a kernel computes with (see EPS2_MIN). */
static float eps2_floor(float eps2) {
    return fmaxf(eps2, EPS2_MIN);
}

static int div_up(int a, int b) {
    return (a + b - 1) / b;
}

/* ======================================================================== */
/* Rung 1 - naive: one thread per body, the array of structs {x, y, z, m},
 * 1.0f / sqrtf (IEEE-rounded square root and division), if (i != j).
 * p = threads per block. */

__global__ void forces_naive_kernel(int n, const float4 *pos, float4 *acc, float eps2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; j++) {
        if (i != j) {
            const float4 pj = pos[j];
            float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
            float dsq = dx * dx + dy * dy + dz * dz;
            float dinv = 1.0f / sqrtf(dsq + eps2);
            float scale = pj.w * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

static void forces_naive(const force_args *a, cudaStream_t stream) {
    forces_naive_kernel<<<div_up(a->n, a->p), a->p, 0, stream>>>(a->n, a->pos, a->acc,
                                                                 eps2_floor(a->eps2));
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 2 - soa: the same loop over scalar arrays x[], y[], z[], m[]
 * (structure of arrays), so neighbouring threads read neighbouring words. */

__global__ void forces_soa_kernel(int n, const float *x, const float *y, const float *z,
                                  const float *m, float4 *acc, float eps2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i], yi = y[i], zi = z[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; j++) {
        if (i != j) {
            float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            float dsq = dx * dx + dy * dy + dz * dz;
            float dinv = 1.0f / sqrtf(dsq + eps2);
            float scale = m[j] * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

static void forces_soa(const force_args *a, cudaStream_t stream) {
    forces_soa_kernel<<<div_up(a->n, a->p), a->p, 0, stream>>>(a->n, a->x, a->y, a->z, a->m, a->acc,
                                                               eps2_floor(a->eps2));
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 3 - rsqrt: rsqrtf, the hardware's approximate reciprocal square root
 * (MUFU.RSQ), instead of a correctly rounded sqrt and division. */

__global__ void forces_rsqrt_kernel(int n, const float *x, const float *y, const float *z,
                                    const float *m, float4 *acc, float eps2) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i], yi = y[i], zi = z[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; j++) {
        if (i != j) {
            float dx = x[j] - xi, dy = y[j] - yi, dz = z[j] - zi;
            float dsq = dx * dx + dy * dy + dz * dz;
            float dinv = rsqrtf(dsq + eps2);
            float scale = m[j] * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
    }
    acc[i] = make_float4(ax, ay, az, 0.0f);
}

static void forces_rsqrt(const force_args *a, cudaStream_t stream) {
    forces_rsqrt_kernel<<<div_up(a->n, a->p), a->p, 0, stream>>>(a->n, a->x, a->y, a->z, a->m,
                                                                 a->acc, eps2_floor(a->eps2));
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* What the tiled rungs share (GPU Gems 3, ch. 31). A block is p x q threads:
 * threadIdx.x picks one of the block's p bodies, threadIdx.y one of q rows
 * that split that body's loop. Each pass loads a tile of p*q bodies into
 * shared memory (scalar arrays, one body per thread, coalesced); row ty then
 * works through its own p bodies of the tile. At the end the q partial sums
 * of each body are added in shared memory. */

struct tile_smem {
    float *x, *y, *z, *m;
};

static __device__ tile_smem tile_arrays(float *smem) {
    const int t = blockDim.x * blockDim.y;
    return tile_smem{smem, smem + t, smem + 2 * t, smem + 3 * t};
}

/* Loads tile bodies [base, base + p*q); bodies past N get zero mass (and
 * sit at the origin) so they add nothing. */
static __device__ void load_tile(const force_args &a, const tile_smem &s, int base) {
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int j = base + t;
    const bool in = j < a.n;
    s.x[t] = in ? a.x[j] : 0.0f;
    s.y[t] = in ? a.y[j] : 0.0f;
    s.z[t] = in ? a.z[j] : 0.0f;
    s.m[t] = in ? a.m[j] : 0.0f;
}

/* Adds the q row partials of one body per column (a tree over rows that
 * works for any q, seed 004's sequential addressing) and returns the sum in
 * row 0. Uses 3 * p * q floats of smem; the caller has passed a barrier
 * after its last read of the tile, and this ends with one. */
static __device__ float3 reduce_rows(float *smem, float3 v) {
    const int p = blockDim.x, q = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
    if (q == 1) return v;
    float *rx = smem, *ry = smem + p * q, *rz = smem + 2 * p * q;
    rx[ty * p + tx] = v.x;
    ry[ty * p + tx] = v.y;
    rz[ty * p + tx] = v.z;
    __syncthreads();
    int half = 1;
    while (half < q) half <<= 1;
    for (half >>= 1; half > 0; half >>= 1) {
        if (ty < half && ty + half < q) {
            rx[ty * p + tx] += rx[(ty + half) * p + tx];
            ry[ty * p + tx] += ry[(ty + half) * p + tx];
            rz[ty * p + tx] += rz[(ty + half) * p + tx];
        }
        __syncthreads();
    }
    v = make_float3(rx[tx], ry[tx], rz[tx]);
    __syncthreads(); /* smem may be reused right after */
    return v;
}

static __device__ void store_acc(const force_args &a, int i, float3 v) {
    if (threadIdx.y == 0 && i < a.n) a.acc[i] = make_float4(v.x, v.y, v.z, 0.0f);
}

/* The body this thread computes, read from the scalar arrays. */
static __device__ float3 own_position(const force_args &a, int i) {
    return i < a.n ? make_float3(a.x[i], a.y[i], a.z[i]) : make_float3(0.0f, 0.0f, 0.0f);
}

static size_t soa_tile_bytes(const force_args *a) {
    return sizeof(float) * 4 * a->p * a->q;
}

/* ======================================================================== */
/* Rung 4 - tiled: shared-memory tiles of p*q bodies, p x q threads per
 * block, scalar arrays, rsqrtf; still the if (i != j) and a rolled loop. */

__global__ void forces_tiled_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < a.n; base += tile) {
        load_tile(a, s, base);
        __syncthreads();
#pragma unroll 1
        for (int k = 0; k < p; k++) {
            const int j = base + row + k;
            if (j != i && j < a.n) {
                float dx = s.x[row + k] - pi.x, dy = s.y[row + k] - pi.y, dz = s.z[row + k] - pi.z;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = rsqrtf(dsq + a.eps2);
                float scale = s.m[row + k] * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        __syncthreads();
    }
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_tiled(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2 = eps2_floor(a->eps2);
    forces_tiled_kernel<<<div_up(a->n, a->p), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 5 - unrolled: the same, with the inner loop unrolled 8 times. */

__global__ void forces_unrolled_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < a.n; base += tile) {
        load_tile(a, s, base);
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < p; k++) {
            const int j = base + row + k;
            if (j != i && j < a.n) {
                float dx = s.x[row + k] - pi.x, dy = s.y[row + k] - pi.y, dz = s.z[row + k] - pi.z;
                float dsq = dx * dx + dy * dy + dz * dz;
                float dinv = rsqrtf(dsq + a.eps2);
                float scale = s.m[row + k] * dinv * dinv * dinv;
                ax += dx * scale;
                ay += dy * scale;
                az += dz * scale;
            }
        }
        __syncthreads();
    }
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_unrolled(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2 = eps2_floor(a->eps2);
    forces_unrolled_kernel<<<div_up(a->n, a->p), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 6 - noif: the softening (at least EPS2_MIN) keeps the self-term
 * finite (dx = 0, so it adds 0) and padding bodies have no mass, so the
 * branch goes and the unrolled loop is straight-line code. */

__global__ void forces_noif_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < a.n; base += tile) {
        load_tile(a, s, base);
        __syncthreads();
#pragma unroll 8
        for (int k = row; k < row + p; k++) {
            float dx = s.x[k] - pi.x, dy = s.y[k] - pi.y, dz = s.z[k] - pi.z;
            float dsq = dx * dx + dy * dy + dz * dz;
            float dinv = rsqrtf(dsq + a.eps2);
            float scale = s.m[k] * dinv * dinv * dinv;
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
        __syncthreads();
    }
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_noif(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2 = eps2_floor(a->eps2);
    forces_noif_kernel<<<div_up(a->n, a->p), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 7 - fma: the squared distance written as
 * dx*dx + (dy*dy + (dz*dz + eps2)), which the compiler turns into three
 * fused multiply-adds (the left-to-right order costs an FMUL and an FADD
 * more), and the 1/r^3 product ordered to need no temporary. */

__global__ void forces_fma_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < a.n; base += tile) {
        load_tile(a, s, base);
        __syncthreads();
#pragma unroll 8
        for (int k = row; k < row + p; k++) {
            float dx = s.x[k] - pi.x, dy = s.y[k] - pi.y, dz = s.z[k] - pi.z;
            float dsq = dx * dx + (dy * dy + (dz * dz + a.eps2));
            float dinv = rsqrtf(dsq);
            float scale = (s.m[k] * dinv) * (dinv * dinv);
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
        __syncthreads();
    }
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_fma(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2 = eps2_floor(a->eps2);
    forces_fma_kernel<<<div_up(a->n, a->p), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 8 - fast: flush-to-zero reciprocal square root for this kernel
 * alone. rsqrtf must honour denormal inputs, which costs a compare and two
 * scalings around MUFU.RSQ; the PTX instruction rsqrt.approx.ftz.f32 is
 * MUFU.RSQ by itself. (The lecture got this with -use_fast_math / -ftz=true
 * for the whole file; a per-kernel intrinsic keeps the other rungs as they
 * were.) The input is r^2 + eps^2 >= EPS2_MIN = 1e-12, so it is never
 * denormal anyway. */

static __device__ __forceinline__ float rsqrt_ftz(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

__global__ void forces_fast_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < a.n; base += tile) {
        load_tile(a, s, base);
        __syncthreads();
#pragma unroll 8
        for (int k = row; k < row + p; k++) {
            float dx = s.x[k] - pi.x, dy = s.y[k] - pi.y, dz = s.z[k] - pi.z;
            float dsq = dx * dx + (dy * dy + (dz * dz + a.eps2));
            float dinv = rsqrt_ftz(dsq);
            float scale = (s.m[k] * dinv) * (dinv * dinv);
            ax += dx * scale;
            ay += dy * scale;
            az += dz * scale;
        }
        __syncthreads();
    }
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_fast(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2 = eps2_floor(a->eps2);
    forces_fast_kernel<<<div_up(a->n, a->p), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 9 - best: each pair once (Newton's third law), for Hopper.
 *
 * The rungs before evaluate N^2 interactions, every pair twice. Here a warp
 * takes 4 x 32 "i" bodies in registers (BEST_B per lane) and a chunk of 32
 * "j" bodies, and computes each i-j pair once, adding m_j d/r^3 to a_i and
 * -m_i d/r^3 to a_j: 17 instructions for two interactions instead of 26.
 * The j positions sit in a warp-private slice of shared memory stored twice
 * over (64 slots), so at step s lane L reads slot L + s with an immediate
 * offset; the j accelerations travel with their bodies from lane to lane by
 * shuffles (3 per step), so after 32 steps every lane has met every j and
 * each a_j is home again. Summed over the warp's pairs, the a_j and (when
 * the warp moves to other i bodies) the a_i go to global memory with float
 * atomics - so the sums' order, and their last bits, vary from run to run.
 *
 * Work: bodies in chunks of 32, chunks in groups of BEST_B. The pairs of
 * chunks form a triangle; for group g the tasks are its intra-group pairs
 * (one task per chunk r of the group: r against the group's chunks <= r)
 * and each later chunk (one task each), so every task is one chunk of j
 * bodies against the group (sim_pairmap.h says why). A persistent grid of
 * q blocks per SM, p threads each, splits the task list into contiguous
 * ranges of equal cost, one per warp. Padding bodies past N have no mass. */

#define BEST_B SIM_PAIRMAP_B /* i bodies per lane; the task arithmetic is in sim_pairmap.h */
#define FULL_WARP 0xffffffffu

struct best_i {
    float x[BEST_B], y[BEST_B], z[BEST_B], m[BEST_B];
    float ax[BEST_B], ay[BEST_B], az[BEST_B];
};

static __device__ void best_load_i(const force_args &a, long long g, int lane, best_i &I) {
#pragma unroll
    for (int k = 0; k < BEST_B; k++) {
        const long long i = (g * BEST_B + k) * 32 + lane;
        const float4 p = i < a.n ? a.pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        I.x[k] = p.x;
        I.y[k] = p.y;
        I.z[k] = p.z;
        I.m[k] = p.w;
        I.ax[k] = I.ay[k] = I.az[k] = 0.0f;
    }
}

static __device__ void best_flush_i(const force_args &a, long long g, int lane, const best_i &I) {
#pragma unroll
    for (int k = 0; k < BEST_B; k++) {
        const long long i = (g * BEST_B + k) * 32 + lane;
        if (i < a.n) {
            atomicAdd(&a.acc[i].x, I.ax[k]);
            atomicAdd(&a.acc[i].y, I.ay[k]);
            atomicAdd(&a.acc[i].z, I.az[k]);
        }
    }
}

/* Puts chunk c's positions in the warp's 64 slots (twice over). */
static __device__ float4 *best_load_j(const force_args &a, float4 *slots, long long c, int lane) {
    const long long j = c * 32 + lane;
    const float4 p = j < a.n ? a.pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncwarp(); /* the previous task is done reading the slots */
    slots[lane] = p;
    slots[lane + 32] = p;
    __syncwarp();
    return slots + lane;
}

static __device__ void best_store_j(const force_args &a, long long c, int lane, float bx, float by,
                                    float bz) {
    const long long j = c * 32 + lane;
    if (j < a.n) {
        atomicAdd(&a.acc[j].x, bx);
        atomicAdd(&a.acc[j].y, by);
        atomicAdd(&a.acc[j].z, bz);
    }
}

/* One i-j pair, weighted by f (1, or 0 to skip it in the intra task). */
static __device__ __forceinline__ void best_pair(const float4 q, best_i &I, int k, float eps2,
                                                 float f, float &bx, float &by, float &bz) {
    const float dx = q.x - I.x[k], dy = q.y - I.y[k], dz = q.z - I.z[k];
    const float dsq = dx * dx + (dy * dy + (dz * dz + eps2));
    const float inv = rsqrt_ftz(dsq);
    const float inv3 = inv * inv * inv * f;
    const float si = q.w * inv3, sj = I.m[k] * inv3;
    I.ax[k] += dx * si;
    I.ay[k] += dy * si;
    I.az[k] += dz * si;
    bx -= dx * sj;
    by -= dy * sj;
    bz -= dz * sj;
}

/* The j accelerations move one lane down: slot L + s + 1 comes from lane L + 1. */
static __device__ __forceinline__ void best_rotate(int lane, float &bx, float &by, float &bz) {
    const int from = (lane + 1) & 31;
    bx = __shfl_sync(FULL_WARP, bx, from);
    by = __shfl_sync(FULL_WARP, by, from);
    bz = __shfl_sync(FULL_WARP, bz, from);
}

__global__ void forces_best_kernel(force_args a) {
    extern __shared__ float4 best_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    float4 *slots = best_smem + warp * 64;
    const long long chunks = sim_pairmap_chunks(a.n), groups = sim_pairmap_groups(chunks);
    const long long w = (long long)blockIdx.x * warps + warp, all = (long long)gridDim.x * warps;
    long long first, last;
    sim_pairmap_range(chunks, w, all, &first, &last);
    const float eps2 = a.eps2;
    best_i I;
    long long g = -1;
    for (long long t = first; t < last; t++) {
        const long long tg = sim_pairmap_group(t, g, groups, chunks);
        if (tg != g) {
            if (g >= 0) best_flush_i(a, g, lane, I);
            g = tg;
            best_load_i(a, g, lane, I);
        }
        const long long o = t - sim_pairmap_prefix(g, chunks);
        const long long c = sim_pairmap_chunk(g, o);
        const float4 *q = best_load_j(a, slots, c, lane);
        float bx = 0.0f, by = 0.0f, bz = 0.0f;
        if (o >= BEST_B) { /* a later chunk: all 32 x 32 x BEST_B pairs */
#pragma unroll 8
            for (int s = 0; s < 32; s++) {
                const float4 pj = q[s];
#pragma unroll
                for (int k = 0; k < BEST_B; k++) best_pair(pj, I, k, eps2, 1.0f, bx, by, bz);
                best_rotate(lane, bx, by, bz);
            }
        } else { /* the group's chunk r = o against its chunks k <= r */
            const int r = (int)o;
#pragma unroll 1
            for (int s = 0; s < 32; s++) {
                const float4 pj = q[s];
#pragma unroll
                for (int k = 0; k < BEST_B; k++) {
                    const float f = sim_pairmap_intra_weight(k, r, s, lane); /* 1 or 0 */
                    best_pair(pj, I, k, eps2, f, bx, by, bz);
                }
                best_rotate(lane, bx, by, bz);
            }
        }
        best_store_j(a, c, lane, bx, by, bz);
    }
    if (g >= 0) best_flush_i(a, g, lane, I);
}

static void forces_best(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2 = eps2_floor(a->eps2);
    if (!a->acc_zero) { /* sums by atomics; the integrator clears acc between steps */
        CUDA_CHECK(cudaMemsetAsync(a->acc, 0, sizeof(float4) * a->n, stream));
    }
    const size_t smem = sizeof(float4) * 64 * (a->p / 32);
    forces_best_kernel<<<a->q * a->sm_count, a->p, smem, stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Rung 10 - fp64: double precision throughout (state, forces, integrator),
 * for accuracy comparisons. The best kernel's layout with double4 tiles and
 * FP64_B = 2 bodies per thread. The reciprocal square root starts from the
 * hardware's estimate (rsqrt.approx.ftz.f64 is MUFU.RSQ64H alone, good to
 * about 2^-20) and is refined inside the 1/r^3 factor: with y0 ~ 1/r and
 * e = 1 - r^2 y0^2,
 *     r^-3 = y0^3 (1 - e)^(-3/2) = y0^3 (1 + 3/2 e + 15/8 e^2 + O(e^3)),
 * so two terms leave ~e^3 ~ 2^-60: full double precision for three more
 * instructions, where CUDA's rsqrt(double) adds a range check and a call to
 * a slow path on top of its Newton step. */

#define FP64_B 2

static __device__ __forceinline__ double rsqrt_estimate64(double x) {
    double y;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(x));
    return y;
}

static __device__ double3 reduce_rows64(double *smem, double3 v) {
    const int p = blockDim.x, q = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
    if (q == 1) return v;
    double *rx = smem, *ry = smem + p * q, *rz = smem + 2 * p * q;
    rx[ty * p + tx] = v.x;
    ry[ty * p + tx] = v.y;
    rz[ty * p + tx] = v.z;
    __syncthreads();
    int half = 1;
    while (half < q) half <<= 1;
    for (half >>= 1; half > 0; half >>= 1) {
        if (ty < half && ty + half < q) {
            rx[ty * p + tx] += rx[(ty + half) * p + tx];
            ry[ty * p + tx] += ry[(ty + half) * p + tx];
            rz[ty * p + tx] += rz[(ty + half) * p + tx];
        }
        __syncthreads();
    }
    v = make_double3(rx[tx], ry[tx], rz[tx]);
    __syncthreads();
    return v;
}

__global__ void forces_fp64_kernel(force_args a) {
    extern __shared__ double4a tile64[];
    const int p = blockDim.x, tx = threadIdx.x, ty = threadIdx.y;
    const int t = ty * p + tx, tile = p * blockDim.y;
    const int first = blockIdx.x * p * FP64_B + tx;
    double xi[FP64_B], yi[FP64_B], zi[FP64_B], ax[FP64_B], ay[FP64_B], az[FP64_B];
#pragma unroll
    for (int b = 0; b < FP64_B; b++) {
        const int i = first + b * p;
        const double4a pi = i < a.n ? a.pos64[i] : make_double4a(0.0, 0.0, 0.0, 0.0);
        xi[b] = pi.x;
        yi[b] = pi.y;
        zi[b] = pi.z;
        ax[b] = ay[b] = az[b] = 0.0;
    }
    const double eps2 = a.eps2_64;
    const double4a *row = tile64 + ty * p;
    for (int base = 0; base < a.n; base += tile) {
        const int j = base + t;
        tile64[t] = j < a.n ? a.pos64[j] : make_double4a(0.0, 0.0, 0.0, 0.0);
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < p; k++) {
            const double4a pj = row[k];
#pragma unroll
            for (int b = 0; b < FP64_B; b++) {
                double dx = pj.x - xi[b], dy = pj.y - yi[b], dz = pj.z - zi[b];
                double dsq = dx * dx + (dy * dy + (dz * dz + eps2));
                double y0 = rsqrt_estimate64(dsq);
                double y2 = y0 * y0;
                double e = fma(-dsq, y2, 1.0);
                double s0 = (pj.w * y0) * y2;
                double c = e * fma(1.875, e, 1.5);
                double scale = fma(s0, c, s0);
                ax[b] += dx * scale;
                ay[b] += dy * scale;
                az[b] += dz * scale;
            }
        }
        __syncthreads();
    }
    double *smem = (double *)tile64;
#pragma unroll
    for (int b = 0; b < FP64_B; b++) {
        const double3 v = reduce_rows64(smem, make_double3(ax[b], ay[b], az[b]));
        const int i = first + b * p;
        if (ty == 0 && i < a.n) a.acc64[i] = make_double4a(v.x, v.y, v.z, 0.0);
    }
}

static void forces_fp64(const force_args *a, cudaStream_t stream) {
    force_args b = *a;
    b.eps2_64 = fmax(a->eps2_64, (double)EPS2_MIN);
    const size_t smem = sizeof(double4a) * a->p * a->q;
    forces_fp64_kernel<<<div_up(a->n, a->p * FP64_B), dim3(a->p, a->q), smem, stream>>>(b);
    CUDA_CHECK_LAUNCH();
}

/* ======================================================================== */
/* Beyond the ladder - tree: Barnes-Hut octree rebuilt every evaluation and
 * walked by groups of p bodies (sim_tree.cu). */

static void forces_tree(const force_args *a, cudaStream_t stream) {
    sim_tree_forces(a->tree, a->n, a->pos, a->acc, a->eps2, a->theta, a->p, stream);
}

/* ======================================================================== */
/* The table. Order = the lecture's order = sim_variant's order. */

static const char P_THREADS[] = "threads per block, one body per thread";
static const char P_TILE[] = "bodies per block (a tile row); tile = p*q bodies";
static const char P_BEST[] = "threads per block (whole warps); a warp holds 128 i bodies";
static const char Q_BEST[] = "blocks per SM (a persistent grid walks the triangle of pairs)";
static const char P_FP64[] = "threads per block row, 2 bodies each; tile = p*q bodies";
static const char Q_ROWS[] = "threads sharing one body's loop (rows of the block)";
static const char P_GROUP[] = "bodies per walk group sharing one interaction list (32, 64, 128)";

static constexpr variant_entry variants[] = {
    {SIM_VARIANT_DEFAULT, {}, nullptr, false, BLOCK_THREADS, 1, 0, nullptr, false},
    {SIM_VARIANT_NAIVE,
     {"naive", "one thread per body, array of structs, 1/sqrtf, if (i != j)", P_THREADS, nullptr,
      false},
     forces_naive,
     false,
     BLOCK_THREADS,
     1,
     0,
     nullptr,
     false},
    {SIM_VARIANT_SOA,
     {"soa", "scalar arrays x[], y[], z[], m[] instead of an array of structs", P_THREADS, nullptr,
      false},
     forces_soa,
     true,
     BLOCK_THREADS,
     1,
     0,
     nullptr,
     false},
    {SIM_VARIANT_RSQRT,
     {"rsqrt", "rsqrtf (hardware reciprocal square root) instead of 1/sqrtf", P_THREADS, nullptr,
      false},
     forces_rsqrt,
     true,
     BLOCK_THREADS,
     1,
     0,
     nullptr,
     false},
    {SIM_VARIANT_TILED,
     {"tiled", "shared-memory tiles of p*q bodies, p x q threads per block (GPU Gems 3)", P_TILE,
      Q_ROWS, false},
     forces_tiled,
     true,
     BLOCK_PQ_TILES,
     1,
     16,
     forces_tiled_kernel,
     false},
    {SIM_VARIANT_UNROLLED,
     {"unrolled", "inner loop over the tile unrolled 8 times", P_TILE, Q_ROWS, false},
     forces_unrolled,
     true,
     BLOCK_PQ_TILES,
     1,
     16,
     forces_unrolled_kernel,
     false},
    {SIM_VARIANT_NOIF,
     {"noif", "softening makes the self-interaction zero, so if (i != j) goes", P_TILE, Q_ROWS,
      false},
     forces_noif,
     true,
     BLOCK_PQ_TILES,
     1,
     16,
     forces_noif_kernel,
     false},
    {SIM_VARIANT_FMA,
     {"fma", "terms ordered so the compiler fuses multiply-adds", P_TILE, Q_ROWS, false},
     forces_fma,
     true,
     BLOCK_PQ_TILES,
     1,
     16,
     forces_fma_kernel,
     false},
    {SIM_VARIANT_FAST,
     {"fast", "flush-to-zero rsqrt for this kernel alone (no denormal fix-up)", P_TILE, Q_ROWS,
      false},
     forces_fast,
     true,
     BLOCK_PQ_TILES,
     1,
     16,
     forces_fast_kernel,
     false},
    {SIM_VARIANT_BEST,
     {"best", "each pair once (Newton's third law), j bodies rotate through the warp", P_BEST,
      Q_BEST, false},
     forces_best,
     false,
     BLOCK_WARPS,
     BEST_B,
     32,
     forces_best_kernel,
     true},
    {SIM_VARIANT_FP64,
     {"fp64", "double precision throughout: state, forces and integrator", P_FP64, Q_ROWS, true},
     forces_fp64,
     false,
     BLOCK_PQ_TILES,
     FP64_B,
     32,
     forces_fp64_kernel,
     false},
    {SIM_VARIANT_TREE,
     {"tree", "Barnes-Hut octree rebuilt every step, quadrupoles, O(N log N)", P_GROUP, nullptr,
      false},
     forces_tree,
     false,
     BLOCK_GROUPS,
     1,
     0,
     nullptr,
     false},
};

constexpr bool table_matches_enum() {
    for (int v = 0; v < SIM_VARIANT_COUNT; v++) {
        if (variants[v].id != v) return false;
    }
    return sizeof variants / sizeof variants[0] == SIM_VARIANT_COUNT;
}
static_assert(table_matches_enum(), "variants[] must list every sim_variant, in order");

const variant_entry *kernels_entry(sim_variant v) {
    return &variants[sim_variant_resolve(v)];
}

extern "C" sim_variant sim_variant_resolve(sim_variant v) {
    return v == SIM_VARIANT_DEFAULT ? SIM_VARIANT_BEST : v;
}

extern "C" const sim_variant_desc *sim_variant_info(sim_variant v) {
    v = sim_variant_resolve(v);
    if ((int)v <= 0 || v >= SIM_VARIANT_COUNT) return NULL;
    return &variants[v].desc;
}

extern "C" sim_variant sim_variant_from_name(const char *name) {
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        if (strcmp(variants[v].desc.name, name) == 0) return (sim_variant)v;
    }
    return SIM_VARIANT_COUNT;
}

/* ======================================================================== */
/* Block shapes. */

static void note(sim_block *b, const char *reason) {
    b->clamped = true;
    snprintf(b->reason, sizeof b->reason, "%s", reason);
}

/* Threads per block this kernel can launch with: the device limit, or less
 * when its registers per thread do not fit 1024 threads in a block. */
static int kernel_max_threads(const variant_entry *e, const sim_device_limits *lim) {
    cudaFuncAttributes attr;
    if (lim->device < 0 || !e->kernel || cudaFuncGetAttributes(&attr, e->kernel) != cudaSuccess) {
        cudaGetLastError();
        return lim->max_threads_per_block;
    }
    return attr.maxThreadsPerBlock < lim->max_threads_per_block ? attr.maxThreadsPerBlock
                                                                : lim->max_threads_per_block;
}

/* Auto shape for the p x q variants, from the H100 sweep in
 * docs/PERFORMANCE.md: the largest block the kernel can launch always won
 * (it keeps the most warps on an SM between barriers), and the best p was
 * the power of two nearest to N / (bodies per thread x SM count), i.e. about
 * one block per SM, clamped to 16..256; q fills the rest of the block. */
static sim_block auto_shape(const variant_entry *e, int n, const sim_device_limits *lim) {
    int threads = kernel_max_threads(e, lim);
    while (threads * e->smem_per_thread > lim->max_shared_per_block) threads /= 2;
    const double target = (double)n / ((double)e->bodies_per_thread * lim->sm_count);
    int p = 16;
    while (p < 256 && p * 2 <= threads && fabs(log2(p * 2.0 / target)) < fabs(log2(p / target))) {
        p *= 2;
    }
    return sim_block{p, threads / p > 0 ? threads / p : 1, false, ""};
}

/* Blocks of `threads` threads of kernel e that fit on one SM at once (4
 * without a device). */
static int blocks_per_sm(const variant_entry *e, int threads, const sim_device_limits *lim) {
    int blocks = 0;
    if (lim->device < 0 ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, e->kernel, threads, (size_t)e->smem_per_thread * threads) != cudaSuccess) {
        cudaGetLastError();
        return 4;
    }
    return blocks > 0 ? blocks : 1;
}

/* Warps per SM for `best` at n bodies when p and q are both automatic: about
 * n / 512, at least 8. Below ~14K bodies a warp has only a few tasks and a
 * full SM of warps spends its time loading and flushing i bodies; the H100
 * sweep of 2026-11-23 (docs/PERFORMANCE.md) was fastest at 8 warps per SM up
 * to 4,096 bodies (128 x 2), 16 at 8,192 (512 x 1), and with the largest
 * block from 16,384 on. */
static int small_n_warps(int n) {
    return n / 512 < 8 ? 8 : n / 512;
}

/* A persistent grid: p threads per block in whole warps, q blocks per SM.
 * Auto: the largest block the kernel's registers allow, as many as fit
 * (on the H100, 896 x 1 beat 512 x 1 and 256 x 3 by 2-8 % at 16K and more:
 * docs/PERFORMANCE.md), except at small N (small_n_warps). */
static sim_block clamp_warps(const variant_entry *e, int p, int q, int n,
                             const sim_device_limits *lim) {
    const int max_threads = kernel_max_threads(e, lim) / 32 * 32;
    if (p <= 0 && q <= 0 && n > 0) {
        const int warps = small_n_warps(n);
        const int full = max_threads / 32 * blocks_per_sm(e, max_threads, lim);
        if (warps < full) {
            p = warps <= 8 ? 128 : warps * 32 <= max_threads ? warps * 32 : max_threads;
            q = warps <= 8 ? warps / 4 : 1;
        }
    }
    sim_block b = {p > 0 ? p : max_threads, q, false, ""};
    if (b.p % 32) {
        b.p = b.p < 32 ? 32 : b.p / 32 * 32;
        note(&b, "p is a whole number of warps (a multiple of 32)");
    }
    if (b.p > max_threads) {
        b.p = max_threads;
        note(&b, "p <= the threads per block this kernel can launch");
    }
    const int fit = blocks_per_sm(e, b.p, lim);
    if (q <= 0) {
        b.q = fit; /* auto: as many as fit, every SM full */
    } else if (q > fit) {
        b.q = fit;
        note(&b, "q <= the blocks of p threads that fit on one SM");
    }
    return b;
}

/* The tree walk: one warp per group of 32, 64 or 128 bodies (1, 2 or 4 per
 * lane); other p round down to one of those (up to 32). q is unused. */
static sim_block clamp_groups(int p, int q) {
    sim_block b = {p > 0 ? p : SIM_TREE_GROUP_AUTO, 1, false, ""};
    const int want = b.p;
    b.p = want >= SIM_TREE_GROUP_MAX ? SIM_TREE_GROUP_MAX : want >= 64 ? 64 : SIM_TREE_GROUP_MIN;
    if (b.p != want) note(&b, "p (group size) is 32, 64 or 128 bodies");
    if (q > 1) note(&b, "the tree variant has no q: q = 1");
    return b;
}

extern "C" sim_block sim_kernels_clamp(sim_variant v, int p, int q, int n,
                                       const sim_device_limits *lim) {
    const variant_entry *e = kernels_entry(v);
    if (e->rule == BLOCK_WARPS) return clamp_warps(e, p, q, n, lim);
    if (e->rule == BLOCK_GROUPS) return clamp_groups(p, q);
    const int max_threads = kernel_max_threads(e, lim);
    sim_block b = {p, q, false, ""};
    if (e->rule == BLOCK_THREADS) {
        if (b.p <= 0) b.p = 256;
        if (b.p > max_threads) {
            b.p = max_threads;
            note(&b, "p <= the threads per block this kernel can launch");
        }
        if (q > 1) note(&b, "this variant has one thread per body: q = 1");
        b.q = 1;
        return b;
    }
    if (b.p <= 0 && b.q <= 0) return auto_shape(e, n, lim);
    /* One of them given: the other fills the largest block. */
    if (b.q <= 0) b.q = b.p < max_threads ? max_threads / b.p : 1;
    if (b.p <= 0) b.p = b.q < max_threads ? max_threads / b.q : 1;
    if (b.q > max_threads) {
        b.q = max_threads;
        note(&b, "q <= the threads per block this kernel can launch");
    }
    if (b.p * b.q > max_threads) {
        b.p = max_threads / b.q;
        note(&b, "p x q <= the threads per block this kernel can launch");
    }
    if ((long)b.p * b.q * e->smem_per_thread > lim->max_shared_per_block) {
        b.p = lim->max_shared_per_block / (e->smem_per_thread * b.q);
        note(&b, "the p x q tile must fit in shared memory");
    }
    if (b.p < 1) b.p = 1;
    return b;
}
