/* sim_kernels.cu - the force kernels, one per rung of the ladder of the
 * "N-Body Simulation in CUDA" lecture (after Burtscher's tutorial), side by
 * side, the table that names them, and what each one's inner loop executes.
 *
 * Every kernel computes, for each body i,
 *     a_i = sum_{j != i} m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
 * (eps^2 at least SIM_EPS2_FLOOR, below) and writes it to acc[i];
 * sim_cuda.cu does the integrating. Each rung keeps everything of the one
 * before and adds one idea, so reading this file top to bottom is the
 * lecture, with the tiles and p x q threads per body of GPU Gems 3, ch. 31
 * (Nyland, Harris and Prins) in the middle. Every variant is correct for
 * any N (partial tiles are padded with massless bodies) and any p, q the
 * clamp allows, and is tested against the double-precision CPU reference at
 * every block shape (tests/test_gpu.c).
 *
 * Time a rung with `nbody --benchmark --variant NAME` (add --n, --p, --q
 * lists to sweep); the figures and the instruction counts of each rung are
 * in docs/PERFORMANCE.md, "The ladder". The lines between a rung's
 * "lecture: begin" and "lecture: end" comments are its key lines, which the
 * code panel (') shows; sim/sim_code.list names them, and the build checks
 * that they are there.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_code.h" /* generated: each rung's key lines (sim/sim_code.list) */
#include "sim_cuda_check.h"
#include "sim_kernels.h"
#include "sim_pairmap.h"
#include "sim_tree.h"

/* Every kernel computes with eps^2 >= SIM_EPS2_FLOOR (sim.h), which sim.c
 * applies once per step call (sim_step_params.eps2_kernel): that floor is
 * what makes a pair at zero separation contribute nothing, as sim.h defines
 * for eps = 0: dx = dy = dz = 0 times a finite m/r^3 (at most m * 1e18,
 * finite for any mass below 3e20) is exactly 0, where eps = 0 would give
 * 0 * inf = NaN. The same product is how the rungs from "noif" on drop the
 * self-interaction without a branch; the rungs before it keep their
 * if (i != j) and need the floor only for distinct bodies that coincide.
 * No instruction in any kernel. */

static int div_up(int a, int b) {
    return (a + b - 1) / b;
}

/* The grids the launchers make (and sim_launch_of reports): one block per
 * p bodies (BLOCK_THREADS, BLOCK_PQ_TILES), or q blocks per SM
 * (BLOCK_WARPS, a persistent grid). */
static int rows_grid(const force_args *a) {
    return div_up(a->n, a->p);
}
static int persistent_grid(const force_args *a) {
    return a->q * a->sm_count;
}

/* ======================================================================== */
/* Rung 1 - naive: one thread per body, the array of structs {x, y, z, m},
 * 1.0f / sqrtf (IEEE-rounded square root and division), if (i != j).
 * p = threads per block. */

/* lecture: begin naive */
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
/* lecture: end naive */

static void forces_naive(const force_args *a, cudaStream_t stream) {
    forces_naive_kernel<<<rows_grid(a), a->p, 0, stream>>>(a->n, a->pos, a->acc, a->eps2);
    CUDA_CHECK_LAUNCH(a->fault);
}

/* ======================================================================== */
/* Rung 2 - soa: the same loop over scalar arrays x[], y[], z[], m[]
 * (structure of arrays), so neighbouring threads read neighbouring words. */

/* lecture: begin soa */
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
/* lecture: end soa */

static void forces_soa(const force_args *a, cudaStream_t stream) {
    forces_soa_kernel<<<rows_grid(a), a->p, 0, stream>>>(a->n, a->x, a->y, a->z, a->m, a->acc,
                                                               a->eps2);
    CUDA_CHECK_LAUNCH(a->fault);
}

/* ======================================================================== */
/* Rung 3 - rsqrt: rsqrtf, the hardware's approximate reciprocal square root
 * (MUFU.RSQ), instead of a correctly rounded sqrt and division. */

__global__ void forces_rsqrt_kernel(int n, const float *x, const float *y, const float *z,
                                    const float *m, float4 *acc, float eps2) {
    /* lecture: begin rsqrt */
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
    /* lecture: end rsqrt */
}

static void forces_rsqrt(const force_args *a, cudaStream_t stream) {
    forces_rsqrt_kernel<<<rows_grid(a), a->p, 0, stream>>>(a->n, a->x, a->y, a->z, a->m,
                                                                 a->acc, a->eps2);
    CUDA_CHECK_LAUNCH(a->fault);
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
 * works for any q: the sequential addressing of the classic parallel
 * reduction) and returns the sum in
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
    /* lecture: begin tiled */
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
    /* lecture: end tiled */
}

static void forces_tiled(const force_args *a, cudaStream_t stream) {
    forces_tiled_kernel<<<rows_grid(a), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(*a);
    CUDA_CHECK_LAUNCH(a->fault);
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
    /* lecture: begin unrolled */
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
    /* lecture: end unrolled */
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_unrolled(const force_args *a, cudaStream_t stream) {
    forces_unrolled_kernel<<<rows_grid(a), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(*a);
    CUDA_CHECK_LAUNCH(a->fault);
}

/* ======================================================================== */
/* Rung 6 - noif: the softening (at least SIM_EPS2_FLOOR) keeps the self-term
 * finite (dx = 0, so it adds 0) and padding bodies have no mass, so the
 * branch goes and the unrolled loop is straight-line code. */

__global__ void forces_noif_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    /* lecture: begin noif */
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
    /* lecture: end noif */
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_noif(const force_args *a, cudaStream_t stream) {
    forces_noif_kernel<<<rows_grid(a), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(*a);
    CUDA_CHECK_LAUNCH(a->fault);
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
    /* lecture: begin fma */
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
    /* lecture: end fma */
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_fma(const force_args *a, cudaStream_t stream) {
    forces_fma_kernel<<<rows_grid(a), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(*a);
    CUDA_CHECK_LAUNCH(a->fault);
}

/* ======================================================================== */
/* Rung 8 - fast: flush-to-zero reciprocal square root for this kernel
 * alone. rsqrtf must honour denormal inputs, which costs a compare and two
 * scalings around MUFU.RSQ; the PTX instruction rsqrt.approx.ftz.f32 is
 * MUFU.RSQ by itself. (The lecture got this with -use_fast_math / -ftz=true
 * for the whole file; a per-kernel intrinsic keeps the other rungs as they
 * were.) The input is r^2 + eps^2 >= SIM_EPS2_FLOOR, so it is never
 * denormal anyway. */

/* lecture: begin fast-rsqrt */
static __device__ __forceinline__ float rsqrt_ftz(float x) {
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/* lecture: end fast-rsqrt */

__global__ void forces_fast_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y, row = threadIdx.y * p;
    const int i = blockIdx.x * p + threadIdx.x;
    const float3 pi = own_position(a, i);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    /* lecture: begin fast */
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
    /* lecture: end fast */
    store_acc(a, i, reduce_rows(smem, make_float3(ax, ay, az)));
}

static void forces_fast(const force_args *a, cudaStream_t stream) {
    forces_fast_kernel<<<rows_grid(a), dim3(a->p, a->q), soa_tile_bytes(a), stream>>>(*a);
    CUDA_CHECK_LAUNCH(a->fault);
}

/* ======================================================================== */
/* Rung 9 - best: each pair once (Newton's third law), for Hopper.
 *
 * The rungs before evaluate N^2 interactions, every pair twice. Here a warp
 * takes B x 32 "i" bodies in registers (B = 4 or 6 per lane, by build:
 * best_build) and a chunk of 32 "j" bodies, and computes each i-j pair
 * once, adding m_j d/r^3 to a_i and -m_i d/r^3 to a_j: 17 instructions
 * for two interactions instead of 26, 16 in the folded loop (best_i).
 * The j positions sit in a warp-private slice of shared memory stored twice
 * over (64 slots), so at step s lane L reads slot L + s with an immediate
 * offset; the j accelerations travel with their bodies from lane to lane by
 * shuffles (3 per step), so after 32 steps every lane has met every j and
 * each a_j is home again. Summed over the warp's pairs, the a_j and (when
 * the warp moves to other i bodies) the a_i go to global memory with
 * atomics - so the sums' order, and their last bits, vary from run to run.
 *
 * Work: bodies in chunks of 32, chunks in groups of B. The pairs of
 * chunks form a triangle; for group g the tasks are its intra-group pairs
 * (one task per chunk r of the group: r against the group's chunks <= r)
 * and each later chunk (one task each), so every task is one chunk of j
 * bodies against the group (sim_pairmap.h says why). A persistent grid of
 * q blocks per SM, p threads each, splits the task list into contiguous
 * ranges of equal cost, one per warp, that may begin and end a quarter or
 * half way through a task (sim_pairmap_walk). Padding bodies past N have no
 * mass.
 *
 * The kernel is a template on the precision, B and the builds' other
 * choices: rung 10, fp64, is the same pairs in double (below). */

#define BEST_FOLD_EPS2_MIN 1e-6f /* eps >= 1e-3: where the folded loop may run (best_i) */
#define FULL_WARP 0xffffffffu
#define BEST_UNROLL (32 / SIM_PAIRMAP_MAX_PARTS) /* steps; a task's parts are whole multiples */

/* Where a precision's bodies are: float4 pos/acc, or the double state. */
template <typename T> struct best_io;
template <> struct best_io<float> {
    static __device__ const float4 *pos(const force_args &a) {
        return a.pos;
    }
    static __device__ float4 *acc(const force_args &a) {
        return a.acc;
    }
    static __device__ float eps2(const force_args &a) {
        return a.eps2;
    }
};
template <> struct best_io<double> {
    static __device__ const double4a *pos(const force_args &a) {
        return a.pos64;
    }
    static __device__ double4a *acc(const force_args &a) {
        return a.acc64;
    }
    static __device__ double eps2(const force_args &a) {
        return a.eps2_64;
    }
};

/* The i bodies a lane holds, and the arithmetic of one pair.
 *
 * Plain (fp64; float with a massless body or eps < 1e-3, below): x, y, z, m
 * as stored; a pair is 17 instructions - d (3), r^2 (3), 1/r^3 (3 with the
 * MUFU), s_i = m_j/r^3 and s_j = m_i/r^3 (2), both sums (6).
 *
 * FOLD (float): the lane holds its i body scaled by alpha = m_i^(-1/2):
 * x = -alpha x_i (likewise y, z), m = alpha and e = alpha^2 eps^2. Then
 * d' = alpha d is one FFMA per axis, fma(alpha, x_j, -alpha x_i),
 * r'^2 = alpha^2 (r^2 + eps^2) and t = 1/r'^3 = 1/(alpha^3 r^3) (r
 * softened), so that
 *     the force on j:  -m_i d/r^3 = -m_i alpha^2 t d' = -t d'   (m_i alpha^2 = 1)
 *     the force on i:   m_j d/r^3 = alpha^2 (m_j t d')
 * The j sum needs no mass at all, and the i sum's alpha^2 is applied once,
 * at the flush: 16 instructions a pair. Padding past N holds alpha = 0 and
 * e = 1, so d' = 0 and its pairs add nothing.
 *
 * What it costs in accuracy: -alpha x_i is rounded once, so every pair is
 * evaluated as if body i sat up to 2^-24 |x_i| (half a float ulp) away from
 * where it is, in the same direction for all its pairs - the size of the
 * rounding every drift already applies to positions - and m_i alpha^2 is 1
 * to the rounding of rsqrtf (2 ulp), below float's own error in the sums.
 * But a pair at exactly one point, which the plain loop gives d = 0 and no
 * force (sim.h), gets that of a pair half an ulp apart, up to
 * m 2^-24 |x| / eps^3. So the launcher folds only where every mass is
 * positive and in range (kernels_best_fold_mass: a zero mass has no alpha)
 * and eps >= 1e-3, where that is at most 6e1 m |x| and at the scenes'
 * eps = 0.05 it is below 5e-4 m |x|; with eps = 0 (sim.h's exact zero) or
 * massless bodies it runs the plain loop, one instruction a pair more. */
template <typename T, int B, bool FOLD> struct best_i {
    T x[B], y[B], z[B], m[B];
    T e[FOLD ? B : 1];
    T ax[B], ay[B], az[B];
};

template <typename T, int B, bool FOLD>
static __device__ void best_load_i(const force_args &a, int g, int lane, best_i<T, B, FOLD> &I) {
    typedef typename vec4<T>::type V;
    const V *pos = best_io<T>::pos(a);
#pragma unroll
    for (int k = 0; k < B; k++) {
        const unsigned i = ((unsigned)g * B + k) * 32u + lane; /* < 2^32 for any int N */
        const V p = i < (unsigned)a.n ? pos[i] : V{};
        if constexpr (FOLD) {
            const T alpha = i < (unsigned)a.n ? rsqrtf(p.w) : T(0);
            I.x[k] = -alpha * p.x;
            I.y[k] = -alpha * p.y;
            I.z[k] = -alpha * p.z;
            I.m[k] = alpha;
            I.e[k] = i < (unsigned)a.n ? alpha * alpha * best_io<T>::eps2(a) : T(1);
        } else {
            I.x[k] = p.x;
            I.y[k] = p.y;
            I.z[k] = p.z;
            I.m[k] = p.w;
        }
        I.ax[k] = I.ay[k] = I.az[k] = 0;
    }
}

template <typename T, int B, bool FOLD>
static __device__ void best_flush_i(const force_args &a, int g, int lane,
                                    const best_i<T, B, FOLD> &I) {
    typename vec4<T>::type *acc = best_io<T>::acc(a);
#pragma unroll
    for (int k = 0; k < B; k++) {
        const unsigned i = ((unsigned)g * B + k) * 32u + lane;
        const T scale = FOLD ? I.m[k] * I.m[k] : T(1); /* alpha^2 */
        if (i < (unsigned)a.n) {
            atomicAdd(&acc[i].x, I.ax[k] * scale);
            atomicAdd(&acc[i].y, I.ay[k] * scale);
            atomicAdd(&acc[i].z, I.az[k] * scale);
        }
    }
}

/* This lane's body of chunk c (massless padding past N). */
template <typename T>
static __device__ typename vec4<T>::type best_fetch_j(const force_args &a, int c, int lane) {
    const unsigned j = (unsigned)c * 32u + lane, n = (unsigned)a.n;
    typename vec4<T>::type p = best_io<T>::pos(a)[j < n ? j : n - 1];
    if (j >= n) p.w = 0;
    return p;
}

/* Puts a chunk's positions, one per lane, in the warp's 64 slots (twice over). */
template <typename V> static __device__ const V *best_put_j(V *slots, V p, int lane) {
    __syncwarp(); /* the previous task is done reading the slots */
    slots[lane] = p;
    slots[lane + 32] = p;
    __syncwarp();
    return slots + lane;
}

/* Adds lane's j sum to body j (a real body: padding has nowhere to go). */
template <typename T>
static __device__ void best_store_j(const force_args &a, unsigned j, T bx, T by, T bz) {
    if (j < (unsigned)a.n) {
        typename vec4<T>::type *acc = best_io<T>::acc(a);
        atomicAdd(&acc[j].x, bx);
        atomicAdd(&acc[j].y, by);
        atomicAdd(&acc[j].z, bz);
    }
}

/* 1/r^3 from r^2 (softened). float: MUFU.RSQ, no denormal fix-up (rung 8).
 * double: the hardware's estimate, rsqrt.approx.ftz.f64 (MUFU.RSQ64H alone,
 * good to about 2^-20), refined inside the cube: with y0 ~ 1/r and
 * e = 1 - r^2 y0^2,
 *     r^-3 = y0^3 (1 - e)^(-3/2) = y0^3 (1 + 3/2 e + 15/8 e^2 + O(e^3)),
 * so two terms leave ~e^3 ~ 2^-60, full double precision in 6 FP64
 * operations, where CUDA's rsqrt(double) adds a range check and a call to a
 * slow path on top of its Newton step. */
static __device__ __forceinline__ float best_inv3(float dsq) {
    const float inv = rsqrt_ftz(dsq);
    return inv * inv * inv;
}

/* lecture: begin fp64 */
static __device__ __forceinline__ double best_inv3(double dsq) {
    double y0;
    asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y0) : "d"(dsq));
    const double y2 = y0 * y0;
    const double e = fma(-dsq, y2, 1.0);
    const double y3 = y0 * y2;
    return fma(y3, e * fma(1.875, e, 1.5), y3);
}
/* lecture: end fp64 */

/* One i-j pair, weighted by f (1, or 0 to skip it in the intra task). */
template <typename T, int B, bool FOLD, typename V>
static __device__ __forceinline__ void best_pair(const V q, best_i<T, B, FOLD> &I, int k, T eps2,
                                                 T f, T &bx, T &by, T &bz) {
    T dx, dy, dz, si, sj; /* the separation, and the weights of the i and j sums */
    if constexpr (FOLD) { /* d' = alpha d, t = 1/r'^3: see best_i */
        dx = I.m[k] * q.x + I.x[k];
        dy = I.m[k] * q.y + I.y[k];
        dz = I.m[k] * q.z + I.z[k];
        const T t = best_inv3(dx * dx + (dy * dy + (dz * dz + I.e[k]))) * f;
        si = q.w * t;
        sj = t;
    } else {
        /* lecture: begin best-pair */
        dx = q.x - I.x[k];
        dy = q.y - I.y[k];
        dz = q.z - I.z[k];
        const T inv3 = best_inv3(dx * dx + (dy * dy + (dz * dz + eps2))) * f;
        si = q.w * inv3;
        sj = I.m[k] * inv3;
        /* lecture: end best-pair */
    }
    /* lecture: begin best-sums */
    I.ax[k] += dx * si;
    I.ay[k] += dy * si;
    I.az[k] += dz * si;
    bx -= dx * sj;
    by -= dy * sj;
    bz -= dz * sj;
    /* lecture: end best-sums */
}

/* The j accelerations move one lane down: slot L + s + 1 comes from lane L + 1. */
template <typename T>
static __device__ __forceinline__ void best_rotate(int lane, T &bx, T &by, T &bz) {
    const int from = (lane + 1) & 31;
    bx = __shfl_sync(FULL_WARP, bx, from);
    by = __shfl_sync(FULL_WARP, by, from);
    bz = __shfl_sync(FULL_WARP, bz, from);
}

/* Builds of the kernel, each with as many i bodies per lane (B, the chunks
 * per group of sim_pairmap.h) as its registers hold. float has six: the
 * folded loop or the plain one (best_i; forces_pairs picks by masses and
 * softening) in each of three kinds (best_build; the plan picks by N and
 * block, best_build_for):
 *   wide      B = 6, prefetching: blocks of at most BEST_WIDE_THREADS, from
 *             BEST_WIDE_MIN_N bodies;
 *   prefetch  B = 4, prefetching: blocks of at most BEST_PREFETCH_THREADS;
 *   plain     B = 4, held to 64 registers, so that 1024 threads (32 warps)
 *             fit an SM.
 * PREFETCH fetches the next task's j positions into registers while this
 * task's steps run, so a warp starting a task does not wait for global
 * memory; with the folded loop, the prefetching build in its smaller blocks
 * beats the 1024-thread one at large N. Six i bodies per lane spread each
 * step's shuffles and shared load over 6 pairs instead of 4 and make a
 * task 1.5 times the work for the same bookkeeping (fewer issue slots a
 * pair: loop_costs), which pays from BEST_WIDE_MIN_N bodies and costs
 * below it. Prefetching through cp.async into a second set of shared slots
 * instead, which needs no registers, was slower at every N and is not
 * kept. double has one build, B = 4, plain, in blocks of at most
 * BEST_FP64_THREADS: held to the registers of larger blocks its loop
 * spills. Measured: docs/PERFORMANCE.md, "best". */
enum best_build { BEST_PLAIN, BEST_PREFETCH, BEST_WIDE };
#define BEST_B 4              /* i bodies per lane: plain, prefetch and fp64 */
#define BEST_WIDE_B 6         /* ... wide */
#define BEST_WIDE_MIN_N 16384 /* the wide build wins from this N (docs/PERFORMANCE.md, best) */
/* The largest blocks of the builds but the 1024-thread one: as many
 * threads as leave each the registers it needs (__launch_bounds__). */
#define BEST_WIDE_THREADS 640
#define BEST_PREFETCH_THREADS 768
#define BEST_FP64_THREADS 512

/* A build's B: the one place that ties the walks the plan makes to the
 * kernel that runs them (walks made for another B never meet their last
 * task, and the kernel would not end). Checking B in the kernel instead
 * (a trap on a mismatch) measured slower (docs/PERFORMANCE.md, best). */
constexpr int best_b_of(best_build k) {
    return k == BEST_WIDE ? BEST_WIDE_B : BEST_B;
}

template <typename T, int B, bool PREFETCH> constexpr int best_max_threads() {
    return sizeof(T) == 8     ? BEST_FP64_THREADS
           : !PREFETCH        ? 1024
           : B == BEST_WIDE_B ? BEST_WIDE_THREADS
                              : BEST_PREFETCH_THREADS;
}

template <typename T, int B, bool PREFETCH, bool FOLD>
__global__ void __launch_bounds__(best_max_threads<T, B, PREFETCH>(), 1)
    forces_best_kernel(force_args a) {
    static_assert(!FOLD || sizeof(T) == 4, "the folded loop is float's (best_load_i: rsqrtf)");
    typedef typename vec4<T>::type V;
    extern __shared__ __align__(32) unsigned char best_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    V *slots = reinterpret_cast<V *>(best_smem) + warp * 64;
    sim_pairmap_walk W = a.best_walks[(long long)blockIdx.x * warps + warp];
    if (W.g < 0) return; /* no share (the whole warp: W is the warp's) */
    const int chunks = (int)(((unsigned)a.n + 31u) / 32u);
    const T eps2 = best_io<T>::eps2(a);
    best_i<T, B, FOLD> I;
    int g = -1;
    V next = V{};
    if (PREFETCH) next = best_fetch_j<T>(a, W.c, lane);
    for (;;) {
        if (W.g != g) {
            if (g >= 0) best_flush_i(a, g, lane, I);
            g = W.g;
            best_load_i(a, g, lane, I);
        }
        const int c = W.c, s0 = W.s0; /* this task */
        const bool last = sim_pairmap_walk_last(&W);
        int s1 = sim_pairmap_walk_s1(&W);
        /* Held in a register: left to itself the compiler recomputes s1
         * from W inside the step loop, one instruction more per 8 steps and
         * a schedule that measured slower (docs/PERFORMANCE.md, best). */
        asm volatile("" : "+r"(s1));
        const V *q;
        if (PREFETCH) { /* move on now, and fetch the next task's j bodies */
            q = best_put_j(slots, next, lane);
            if (!last) {
                sim_pairmap_walk_next(&W, chunks, B);
                next = best_fetch_j<T>(a, W.c, lane);
            }
        } else {
            q = best_put_j(slots, best_fetch_j<T>(a, c, lane), lane);
        }
        T bx = 0, by = 0, bz = 0;
        const int r = c - g * B; /* the chunk's place in the group, if < B */
        if (r >= B) {            /* a later chunk: all 32 x 32 x B pairs of each step */
            /* lecture: begin best-loop */
            for (int s = s0; s < s1; s += BEST_UNROLL) {
#pragma unroll
                for (int u = 0; u < BEST_UNROLL; u++) {
                    const V pj = q[s + u];
#pragma unroll
                    for (int k = 0; k < B; k++) best_pair(pj, I, k, eps2, T(1), bx, by, bz);
                    best_rotate(lane, bx, by, bz);
                }
            }
            /* lecture: end best-loop */
        } else { /* the group's chunk r against its chunks k <= r */
#pragma unroll 1
            for (int s = s0; s < s1; s++) {
                const V pj = q[s];
#pragma unroll
                for (int k = 0; k < B; k++) {
                    const T f = sim_pairmap_intra_weight(k, r, s, lane); /* 1 or 0 */
                    best_pair(pj, I, k, eps2, f, bx, by, bz);
                }
                best_rotate(lane, bx, by, bz);
            }
        }
        best_store_j(a, (unsigned)c * 32u + sim_pairmap_held_slot(lane, s1), bx, by, bz);
        if (last) break;
        if (!PREFETCH) sim_pairmap_walk_next(&W, chunks, B);
    }
    best_flush_i(a, g, lane, I);
}

/* Dynamic shared memory of a block of p threads: 64 slots per warp. */
template <typename T> static size_t best_smem_bytes(int p) {
    return sizeof(typename vec4<T>::type) * 64 * (size_t)(p / 32);
}

struct best_plan {
    sim_pairmap_walk *walks; /* device: one per warp of the grid */
    long long capacity;      /* walks allocated */
    int n, p, q, sm_count;   /* the launch they are for (n = 0: none yet) */
    int share, shares;       /* ... its share of the pairs (force_args) */
    bool fp64;               /* ... and its precision */
    best_build build;        /* the build to launch */
    int b;                   /* ... its i bodies per lane (chunks per group) */
};

best_plan *kernels_best_plan_create(void) {
    return (best_plan *)calloc(1, sizeof(best_plan));
}

void kernels_best_plan_destroy(best_plan *p, sim_fault *fault) {
    if (!p) return;
    CUDA_CHECK(fault, cudaFree(p->walks));
    free(p);
}

/* Parts per task: 1 while every warp has four tasks or more, or when there
 * are fewer tasks than warps (splitting them would only add loads and
 * atomics); in between, enough that each warp gets about four parts. */
static int best_parts(int n, int b, long long warps) {
    const long long tasks = sim_pairmap_tasks(sim_pairmap_chunks(n), b);
    int parts = 1;
    while (parts < SIM_PAIRMAP_MAX_PARTS && tasks >= warps && parts * tasks < 4 * warps) {
        parts *= 2;
    }
    return parts;
}

/* The smallest N a build runs at: the wide build's extra i bodies per lane
 * only pay off from BEST_WIDE_MIN_N (docs/PERFORMANCE.md, `best`). */
constexpr int best_min_n(best_build k) {
    return k == BEST_WIDE ? BEST_WIDE_MIN_N : 0;
}

/* Whether float's build K (folded and plain) runs blocks of p threads, q
 * per SM: at most its largest block, and all q must fit an SM at once (the
 * grid is persistent: a block that waited for another would make a second
 * wave). On a device (the current one) its occupancy says; without one
 * (device false: sim_loop_cost_of on a machine with no GPU) the threads an
 * SM decide, at most its largest block in all, which its registers always
 * fit (__launch_bounds__). The two agree but for a few unusual shapes (a
 * build may fit a little more than its largest block in smaller blocks). */
template <best_build K> static bool best_fits(int p, int q, bool device) {
    constexpr int B = best_b_of(K);
    constexpr bool PREFETCH = K != BEST_PLAIN;
    constexpr int most = best_max_threads<float, B, PREFETCH>();
    int blocks = 0;
    if (p > most) return false;
    if (!device) return (long long)p * (q > 1 ? q : 1) <= most;
    for (void (*k)(force_args) : {forces_best_kernel<float, B, PREFETCH, true>,
                                  forces_best_kernel<float, B, PREFETCH, false>}) {
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &blocks, k, p, best_smem_bytes<float>(p)) != cudaSuccess ||
            blocks < q) {
            cudaGetLastError();
            return false;
        }
    }
    return true;
}

/* The build for n bodies in blocks of p threads, q per SM (best_build):
 * the plan's choice, and sim_loop_cost_of's. */
static best_build best_build_for(int n, int p, int q, bool fp64, bool device) {
    if (fp64) return BEST_PLAIN;
    if (n >= best_min_n(BEST_WIDE) && best_fits<BEST_WIDE>(p, q, device)) return BEST_WIDE;
    return best_fits<BEST_PREFETCH>(p, q, device) ? BEST_PREFETCH : BEST_PLAIN;
}

/* The plan for this launch (NULL: no host memory, kept in a->fault): the
 * build to run, and each warp's first and
 * last tasks for that build's B. A warp that found its share itself ran two
 * binary searches over the groups and 64-bit arithmetic for each task's
 * group and chunk; the host computes the walks instead, with the function
 * the CPU test checks, when N, the block shape or the precision changes,
 * and copies them in stream order; the copy is from pageable memory, so
 * that once the CPU waits for the stream (docs/PERFORMANCE.md, best). */
static const best_plan *best_plan_for(best_plan *p, const force_args *a, bool fp64,
                                      cudaStream_t stream) {
    const int shares = a->shares > 1 ? a->shares : 1, share = shares > 1 ? a->share : 0;
    if (p->n == a->n && p->p == a->p && p->q == a->q && p->sm_count == a->sm_count &&
        p->share == share && p->shares == shares && p->fp64 == fp64) {
        return p;
    }
    const long long warps = (long long)a->q * a->sm_count * (a->p / 32);
    if (warps > p->capacity) {
        CUDA_CHECK(a->fault, cudaFree(p->walks)); /* waits for the kernels that read them */
        p->walks = nullptr;
        CUDA_CHECK(a->fault, cudaMalloc(&p->walks, sizeof *p->walks * warps));
        p->capacity = warps;
    }
    sim_pairmap_walk *host = (sim_pairmap_walk *)malloc(sizeof *host * warps);
    if (!host) {
        sim_fault_record(a->fault, -1, __FILE__, __LINE__, "malloc", "out of host memory",
                         "no room for best's plan");
        return nullptr;
    }
    p->build = best_build_for(a->n, a->p, a->q, fp64, true);
    p->b = best_b_of(p->build);
    const long long chunks = sim_pairmap_chunks(a->n);
    /* A share of the pairs is the share of the warps of a grid `shares`
     * times this one's: the GPUs' walks together cover the pairs once. */
    const int parts = best_parts(a->n, p->b, warps * shares);
    for (long long w = 0; w < warps; w++) {
        sim_pairmap_walk_start(&host[w], chunks, p->b, parts, share * warps + w, warps * shares);
    }
    CUDA_CHECK(a->fault, cudaMemcpyAsync(p->walks, host, sizeof *host * warps,
                                         cudaMemcpyHostToDevice, stream));
    free(host); /* pageable: staged before cudaMemcpyAsync returns */
    p->n = a->n;
    p->p = a->p;
    p->q = a->q;
    p->sm_count = a->sm_count;
    p->share = share;
    p->shares = shares;
    p->fp64 = fp64;
    return p;
}

/* Launches float's build K, folded or not. */
template <best_build K>
static void best_launch(bool fold, int blocks, int threads, size_t smem, cudaStream_t stream,
                        const force_args &b) {
    constexpr int B = best_b_of(K);
    constexpr bool PREFETCH = K != BEST_PLAIN;
    if (fold) {
        forces_best_kernel<float, B, PREFETCH, true><<<blocks, threads, smem, stream>>>(b);
    } else {
        forces_best_kernel<float, B, PREFETCH, false><<<blocks, threads, smem, stream>>>(b);
    }
    CUDA_CHECK_LAUNCH(b.fault);
}

/* The launcher of best (T = float) and fp64 (T = double): acc zeroed
 * unless the integrator left zeros, the plan (with the build
 * best_build_for picks by N and block: wide, prefetching or 1024-thread),
 * and float's folded loop where the masses and the softening allow it
 * (best_i). */
template <typename T> static void forces_pairs(const force_args *a, cudaStream_t stream) {
    constexpr bool fp64 = sizeof(T) == 8;
    force_args b = *a;
    if (!a->acc_zero) { /* sums by atomics; the integrator clears acc between steps */
        void *acc = fp64 ? (void *)a->acc64 : (void *)a->acc;
        CUDA_CHECK(a->fault,
                   cudaMemsetAsync(acc, 0, sizeof(typename vec4<T>::type) * a->n, stream));
    }
    const best_plan *plan = best_plan_for(a->best, a, fp64, stream);
    if (!plan) return; /* a fault, kept in a->fault */
    b.best_walks = plan->walks;
    const int blocks = persistent_grid(a);
    const size_t smem = best_smem_bytes<T>(a->p);
    if constexpr (!fp64) {
        const bool fold = a->best_fold && a->eps2 >= BEST_FOLD_EPS2_MIN;
        switch (plan->build) {
        case BEST_WIDE:
            best_launch<BEST_WIDE>(fold, blocks, a->p, smem, stream, b);
            break;
        case BEST_PREFETCH:
            best_launch<BEST_PREFETCH>(fold, blocks, a->p, smem, stream, b);
            break;
        case BEST_PLAIN:
            best_launch<BEST_PLAIN>(fold, blocks, a->p, smem, stream, b);
            break;
        }
        return;
    }
    forces_best_kernel<double, best_b_of(BEST_PLAIN), false, false>
        <<<blocks, a->p, smem, stream>>>(b);
    CUDA_CHECK_LAUNCH(a->fault);
}

/* ======================================================================== */
/* Rung 10 - fp64: double precision throughout (state, forces, integrator),
 * for accuracy comparisons: best's pairs, each evaluated once, in double
 * (best_inv3 refines the reciprocal square root to double precision), with
 * the same launcher, forces_pairs<double>. Each pair is 20 FP64 operations
 * for two interactions (3 DADD, 3 DFMA for r^2, 6 for r^-3, 2 DMUL for the
 * masses, 6 DFMA into both sums), where one interaction at a time costs 16.
 * The FP64 pipe, not issue, is the limit here: even where it is widest it
 * has half the lanes of the issue rate (sim_fp64_lanes), and most of the
 * loop's instructions are FP64 (its row in loop_costs, below). The sums
 * use double atomics (sm_60 on). */

/* ======================================================================== */
/* What each kernel's innermost loop executes: the table behind the
 * benchmark's issue ceiling (sim_loop_cost_of, sim_loop_ceiling), keyed by
 * the build that runs, so that best's row is always the one of the build
 * its plan launches (best_build_for decides both).
 *
 * Counted in `cuobjdump -sass` of the sm_90 Release build by
 * scripts/sass-loops.py (command and date in docs/PERFORMANCE.md,
 * "Counting first"): of each kernel's innermost loops, the one holding the
 * most MUFU.RSQ; its instructions over its MUFU.RSQ count are the issue
 * slots per evaluation. An evaluation is one interaction, except for best
 * and fp64, where it is one pair applied to two bodies; their unrolled loop
 * evaluates BEST_UNROLL steps of B pairs, one MUFU.RSQ each (checked below
 * and by tests/test_methods.c). fp64 also counts its FP64-pipe
 * instructions (DADD, DFMA, DMUL), the tighter limit there. Re-count after
 * changing a kernel.
 *
 * Each row also counts the loop's MUFU instructions (every MUFU.*: the
 * special-function unit's issue, for the MUFU ceiling, sim_rung_ceilings);
 * naive's and soa's IEEE 1/sqrtf is a MUFU.RSQ and a MUFU.RCP.
 *
 * best's rows are its folded loop's; with softening < 1e-3 or a massless
 * body best runs the plain loop of the same build instead (best_i), one
 * instruction a pair more, whose count the note gives. */
#define BEST_PLAIN_NOTE                                                                            \
    "; its folded loop: with softening < 1e-3 or massless bodies the plain one, "

struct loop_cost_row {
    sim_variant variant;
    int build; /* best: its best_build; every other kernel has one build, -1 */
    sim_loop_cost cost;
};

static constexpr loop_cost_row loop_costs[] = {
    {SIM_VARIANT_NAIVE, -1, {"naive", 47, 1, 1, 0, nullptr, 2}},
    {SIM_VARIANT_SOA, -1, {"soa", 56, 1, 1, 0, nullptr, 2}},
    {SIM_VARIANT_RSQRT, -1, {"rsqrt", 36, 1, 1, 0, nullptr, 1}},
    {SIM_VARIANT_TILED, -1, {"tiled", 35, 1, 1, 0, nullptr, 1}},
    {SIM_VARIANT_UNROLLED, -1, {"unrolled", 225, 8, 1, 0, nullptr, 8}},
    {SIM_VARIANT_NOIF, -1, {"noif", 175, 8, 1, 0, nullptr, 8}},
    {SIM_VARIANT_FMA, -1, {"fma", 167, 8, 1, 0, nullptr, 8}},
    {SIM_VARIANT_FAST, -1, {"fast", 143, 8, 1, 0, nullptr, 8}},
    {SIM_VARIANT_BEST,
     BEST_PLAIN,
     {"1024-thread", 554, 32, 2, 0,
      ", the 1024-thread build (4 i bodies per lane)" BEST_PLAIN_NOTE "18.28", 32}},
    {SIM_VARIANT_BEST,
     BEST_PREFETCH,
     {"prefetching", 552, 32, 2, 0,
      ", the prefetching build (4 i bodies per lane)" BEST_PLAIN_NOTE "18.34", 32}},
    {SIM_VARIANT_BEST,
     BEST_WIDE,
     {"wide", 808, 48, 2, 0, ", the wide build (6 i bodies per lane)" BEST_PLAIN_NOTE "17.92", 48}},
    {SIM_VARIANT_FP64, -1, {"fp64", 782, 32, 2, 640, nullptr, 32}},
};

/* One row per build of every all-pairs kernel: best's three, one each for
 * the others. */
constexpr int rows_for(sim_variant v, int build) {
    int count = 0;
    for (const loop_cost_row &r : loop_costs) count += r.variant == v && r.build == build;
    return count;
}
constexpr bool rows_cover_builds() {
    for (int v = SIM_VARIANT_NAIVE; v <= SIM_VARIANT_FP64; v++) {
        if (v == SIM_VARIANT_BEST) {
            for (best_build k : {BEST_PLAIN, BEST_PREFETCH, BEST_WIDE}) {
                if (rows_for(SIM_VARIANT_BEST, k) != 1) return false;
            }
        } else if (rows_for((sim_variant)v, -1) != 1) {
            return false;
        }
    }
    return sizeof loop_costs / sizeof loop_costs[0] == SIM_VARIANT_FP64 + 2;
}
static_assert(rows_cover_builds(), "loop_costs: one row per build of every all-pairs kernel");

/* best's and fp64's rows count BEST_UNROLL x B evaluations of two
 * interactions each, B being their build's. */
constexpr bool pair_rows_match_builds() {
    for (const loop_cost_row &r : loop_costs) {
        if (r.variant != SIM_VARIANT_BEST && r.variant != SIM_VARIANT_FP64) continue;
        const int b = r.variant == SIM_VARIANT_BEST ? best_b_of((best_build)r.build) : BEST_B;
        if (r.cost.rsqrts != BEST_UNROLL * b || r.cost.interactions != 2) return false;
    }
    return true;
}
static_assert(pair_rows_match_builds(), "best's and fp64's loop costs must match their builds' B");

/* The row of variant v's kernel build `build` (-1 but for best); NULL for
 * the tree and anything not a kernel. */
static constexpr const sim_loop_cost *row_of(sim_variant v, int build) {
    for (const loop_cost_row &r : loop_costs) {
        if (r.variant == v && r.build == build) return &r.cost;
    }
    return nullptr;
}

extern "C" bool sim_kernels_loop_cost(sim_variant v, int n, int p, int q, bool device,
                                      sim_loop_cost *out) {
    v = sim_variant_resolve(v);
    const int build = v == SIM_VARIANT_BEST ? (int)best_build_for(n, p, q, false, device) : -1;
    const sim_loop_cost *c = row_of(v, build);
    if (c) *out = *c;
    return c != nullptr;
}

const char *kernels_best_plan_build(const best_plan *p) {
    if (!p || p->n == 0) return nullptr;
    return p->fp64 ? row_of(SIM_VARIANT_FP64, -1)->build
                   : row_of(SIM_VARIANT_BEST, p->build)->build;
}

extern "C" bool sim_loop_cost_of(sim_variant v, int n, int p, int q, sim_loop_cost *out) {
    return sim_kernels_loop_cost(v, n, p, q, sim_cuda_device_count(NULL, 0) > 0, out);
}

/* Bytes a launch moves per interaction, at the level sim_launch states (the
 * bytes each block fetches from L2): each of a block's passes over the j
 * bodies reads every j body once, and every body's own position and
 * acceleration move once a step; best's warp task reads 32 j bodies and adds
 * 32 sums (3 atomics each) into their accelerations, for 32 steps of 32 x B
 * pairs, two interactions each. */
static double bytes_per_interaction(const variant_entry *e, int n, int p, int b) {
    const bool fp64 = e->id == SIM_VARIANT_FP64;
    const double body = fp64 ? sizeof(double4a) : sizeof(float4);
    const double own = 2 * body / n; /* its position in, its acceleration out */
    if (e->rule == BLOCK_WARPS) {
        const double sum = 3 * (fp64 ? sizeof(double) : sizeof(float));
        return 32 * (body + sum) / (2.0 * 32 * 32 * b) + own;
    }
    return body / p + own; /* N j bodies for p bodies' N interactions */
}

extern "C" bool sim_launch_of(sim_variant v, int n, int p, int q, int sm_count,
                              sim_launch *out) {
    *out = sim_launch{};
    v = sim_variant_resolve(v);
    if ((int)v <= 0 || v >= SIM_VARIANT_COUNT || n <= 0 || p <= 0 || sm_count <= 0) return false;
    const variant_entry *e = kernels_entry(v);
    if (e->rule == BLOCK_GROUPS) return false; /* the tree: no all-pairs launch */
    force_args a{};
    a.n = n;
    a.p = p;
    a.q = q > 0 ? q : 1;
    a.sm_count = sm_count;
    int b = 1;
    if (e->rule == BLOCK_WARPS) {
        const bool fp64 = v == SIM_VARIANT_FP64;
        b = best_b_of(best_build_for(n, p, a.q, fp64, sim_cuda_device_count(NULL, 0) > 0));
        out->blocks = persistent_grid(&a);
        out->threads = p;
    } else {
        out->blocks = rows_grid(&a);
        out->threads = e->rule == BLOCK_PQ_TILES ? p * a.q : p;
    }
    out->bytes_per_interaction = bytes_per_interaction(e, n, p, b);
    return true;
}

template <best_build K> static sim_kernel_build float_build() {
    constexpr int B = best_b_of(K);
    return sim_kernel_build{row_of(SIM_VARIANT_BEST, K)->build,
                            false,
                            B,
                            BEST_UNROLL,
                            best_max_threads<float, B, K != BEST_PLAIN>(),
                            best_min_n(K)};
}

extern "C" int sim_kernels_builds(sim_kernel_build *out, int max) {
    const sim_kernel_build builds[] = {
        float_build<BEST_PLAIN>(),
        float_build<BEST_PREFETCH>(),
        float_build<BEST_WIDE>(),
        {row_of(SIM_VARIANT_FP64, -1)->build, true, BEST_B, BEST_UNROLL,
         best_max_threads<double, BEST_B, false>(), 0},
    };
    const int count = (int)(sizeof builds / sizeof builds[0]);
    for (int k = 0; out && k < count && k < max; k++) out[k] = builds[k];
    return count;
}

/* FP64 lanes per SM by compute capability (0: unknown): the data-centre
 * parts of Volta, Ampere, Hopper and Blackwell have many, the others 2. */
extern "C" int sim_fp64_lanes(const sim_device_info *dev) {
    const int major = dev->cc_major, minor = dev->cc_minor;
    if ((major == 9 && minor == 0) || (major == 10 && minor == 0)) return 64;
    if ((major == 8 && minor == 0) || (major == 7 && minor == 0)) return 32;
    if (major >= 7) return 2;
    return 0;
}

extern "C" double sim_loop_ceiling(const sim_loop_cost *c, const sim_device_info *dev) {
    if (!c || !dev || c->rsqrts <= 0) return 0;
    const double clock = dev->clock_khz * 1e3;
    const double per_eval = (double)c->instructions / c->rsqrts;
    double ceiling =
        dev->sm_count * (double)SIM_ISSUE_LANES_PER_SM * clock / per_eval * c->interactions;
    if (c->fp64_ops > 0) {
        const int lanes = sim_fp64_lanes(dev);
        if (lanes == 0) return 0;
        const double fp64 = dev->sm_count * (double)lanes * clock /
                            ((double)c->fp64_ops / c->rsqrts) * c->interactions;
        ceiling = fmin(ceiling, fp64);
    }
    return ceiling;
}

/* ======================================================================== */
/* Beyond the ladder - tree: Barnes-Hut octree rebuilt every evaluation and
 * walked by groups of p bodies (sim_tree.cu). */

static void forces_tree(const force_args *a, cudaStream_t stream) {
    sim_tree_params p = {};
    p.eps2 = a->eps2;
    p.theta = a->theta;
    p.group = a->p;
    p.potential = a->potential;
    p.share_from = a->share_from;
    p.share_to = a->share_to;
    p.alpha = a->alpha;
    p.monopoles = a->monopoles;
    if (a->alpha > 0 && !a->acc_old) {
        /* No last accelerations for the relative criterion: a first pass by
         * theta alone gives them (its accuracy suffices for a reference
         * |a|: docs/TREE.md). */
        sim_tree_params first = p;
        first.alpha = 0;
        first.potential = false;
        first.untimed = true;
        sim_tree_forces(a->tree, a->n, a->pos, a->acc, &first, stream);
    }
    if (a->alpha > 0) p.acc_old = a->acc;
    sim_tree_forces(a->tree, a->n, a->pos, a->acc, &p, stream);
}

/* ======================================================================== */
/* The table. Order = the lecture's order = sim_variant's order. */

static const char P_THREADS[] = "threads per block, one body per thread";
static const char P_TILE[] = "bodies per block (a tile row); tile = p*q bodies";
static const char P_BEST[] =
    "threads per block (whole warps); a warp holds 192 i bodies (128 below 16384 bodies or "
    "above 640 threads)";
static const char P_FP64[] = "threads per block (whole warps); a warp holds 128 i bodies";
static const char Q_BEST[] = "blocks per SM (a persistent grid walks the triangle of pairs)";
static const char Q_ROWS[] = "threads sharing one body's loop (rows of the block)";
static const char P_GROUP[] = "bodies per walk group sharing one interaction list (32, 64, 128)";

/* Why each rung is faster than the one before (or why not), for the code
 * panel and the lecture: what the SASS counts and the ladder's
 * measurements in docs/PERFORMANCE.md show, in words. */
static const char WHY_NAIVE[] =
    "The starting point: one thread per body walks every other body in global memory and pays "
    "for an IEEE square root and a division in each interaction.";
static const char WHY_SOA[] =
    "Often slower: a warp's threads all read the same j, so scalar arrays turn one broadcast "
    "load of a body into four, and the loop issues more instructions.";
static const char WHY_RSQRT[] =
    "Faster: the hardware's approximate reciprocal square root replaces the correctly rounded "
    "square root and division with their slow-path checks, so each interaction issues fewer "
    "instructions.";
static const char WHY_TILED[] =
    "Faster: a block loads each tile of bodies into shared memory once for all its threads, and "
    "q threads share each body's loop, so even at small N the SMs get enough warps to keep busy.";
static const char WHY_UNROLLED[] =
    "Faster: unrolling the tile loop 8 times spreads the loop's own counting and branching over "
    "8 interactions, fewer instructions per interaction.";
static const char WHY_NOIF[] =
    "Faster: the softening makes a body's pull on itself exactly zero and padding bodies are "
    "massless, so the branch goes and the unrolled loop is straight-line code.";
static const char WHY_FMA[] =
    "Faster: written as dx*dx + (dy*dy + (dz*dz + eps2)), the sum compiles to fused "
    "multiply-adds, fewer instructions per interaction.";
static const char WHY_FAST[] =
    "Faster: the flush-to-zero reciprocal square root is the MUFU instruction alone, without "
    "rsqrtf's fix-up for denormal inputs, which the softening rules out anyway.";
static const char WHY_BEST[] =
    "Faster: each pair is evaluated once and applied to both bodies (Newton's third law), about "
    "half the instructions per interaction, the j bodies' sums passed between lanes by shuffles.";
static const char WHY_FP64[] =
    "Slower, for accuracy: best's pairs in double precision, where the GPU's FP64 pipe, with "
    "fewer lanes than FP32 issue, is the limit.";
static const char WHY_TREE[] =
    "Faster at large N: a far cell acts through one quadrupole instead of all its bodies, so a "
    "step costs O(N log N) interactions instead of N^2, at an error the opening angle sets.";

/* An all-pairs rung's row of the method table: the exact sum, N^2
 * interactions a step, p and q its own, its key lines and why. */
static constexpr sim_method rung(sim_variant v, const char *name, const char *description,
                                 const char *p_meaning, const char *q_meaning, bool fp64,
                                 const char *code, const char *why) {
    sim_method m{};
    m.variant = v;
    m.name = name;
    m.description = description;
    m.p_meaning = p_meaning;
    m.q_meaning = q_meaning;
    m.fp64 = fp64;
    m.exact = true;
    m.block_shape = true;
    m.scaling = SIM_SCALING_N2;
    m.flops_per_interaction = fp64 ? SIM_FLOPS_PER_INTERACTION_FP64 : SIM_FLOPS_PER_INTERACTION;
    m.code = code;
    m.why = why;
    return m;
}

/* A row that spreads its forces over several GPUs (sim_method.splits). */
static constexpr sim_method splitting(sim_method m) {
    m.splits = true;
    return m;
}

static constexpr variant_entry variants[] = {
    {SIM_VARIANT_DEFAULT, {}, nullptr, false, BLOCK_THREADS, 1, 0, nullptr, false},
    {SIM_VARIANT_NAIVE,
     rung(SIM_VARIANT_NAIVE, "naive", "one thread per body, array of structs, 1/sqrtf, if (i != j)",
          P_THREADS, nullptr, false, SIM_CODE_CUDA_NAIVE, WHY_NAIVE),
     forces_naive, false, BLOCK_THREADS, 1, 0, nullptr, false},
    {SIM_VARIANT_SOA,
     rung(SIM_VARIANT_SOA, "soa", "scalar arrays x[], y[], z[], m[] instead of an array of structs",
          P_THREADS, nullptr, false, SIM_CODE_CUDA_SOA, WHY_SOA),
     forces_soa, true, BLOCK_THREADS, 1, 0, nullptr, false},
    {SIM_VARIANT_RSQRT,
     rung(SIM_VARIANT_RSQRT, "rsqrt", "rsqrtf (hardware reciprocal square root) instead of 1/sqrtf",
          P_THREADS, nullptr, false, SIM_CODE_CUDA_RSQRT, WHY_RSQRT),
     forces_rsqrt, true, BLOCK_THREADS, 1, 0, nullptr, false},
    {SIM_VARIANT_TILED,
     rung(SIM_VARIANT_TILED, "tiled",
          "shared-memory tiles of p*q bodies, p x q threads per block (GPU Gems 3)", P_TILE, Q_ROWS,
          false, SIM_CODE_CUDA_TILED, WHY_TILED),
     forces_tiled, true, BLOCK_PQ_TILES, 1, 16, forces_tiled_kernel, false},
    {SIM_VARIANT_UNROLLED,
     rung(SIM_VARIANT_UNROLLED, "unrolled", "inner loop over the tile unrolled 8 times", P_TILE,
          Q_ROWS, false, SIM_CODE_CUDA_UNROLLED, WHY_UNROLLED),
     forces_unrolled, true, BLOCK_PQ_TILES, 1, 16, forces_unrolled_kernel, false},
    {SIM_VARIANT_NOIF,
     rung(SIM_VARIANT_NOIF, "noif",
          "softening makes the self-interaction zero, so if (i != j) goes", P_TILE, Q_ROWS, false,
          SIM_CODE_CUDA_NOIF, WHY_NOIF),
     forces_noif, true, BLOCK_PQ_TILES, 1, 16, forces_noif_kernel, false},
    {SIM_VARIANT_FMA,
     rung(SIM_VARIANT_FMA, "fma", "terms ordered so the compiler fuses multiply-adds", P_TILE,
          Q_ROWS, false, SIM_CODE_CUDA_FMA, WHY_FMA),
     forces_fma, true, BLOCK_PQ_TILES, 1, 16, forces_fma_kernel, false},
    {SIM_VARIANT_FAST,
     rung(SIM_VARIANT_FAST, "fast",
          "flush-to-zero rsqrt for this kernel alone (no denormal fix-up)", P_TILE, Q_ROWS, false,
          SIM_CODE_CUDA_FAST, WHY_FAST),
     forces_fast, true, BLOCK_PQ_TILES, 1, 16, forces_fast_kernel, false},
    {SIM_VARIANT_BEST,
     splitting(rung(SIM_VARIANT_BEST, "best",
                    "each pair once (Newton's third law), j bodies rotate through the warp",
                    P_BEST, Q_BEST, false, SIM_CODE_CUDA_BEST, WHY_BEST)),
     forces_pairs<float>, false, BLOCK_WARPS,
     BEST_WIDE_B, /* unread: best's automatic shape is clamp_warps's, not auto_shape's */
     32, forces_best_kernel<float, BEST_B, false, true>, /* 1024 threads: the largest block */
     true},
    {SIM_VARIANT_FP64,
     splitting(rung(SIM_VARIANT_FP64, "fp64",
                    "double precision throughout: state, forces and integrator", P_FP64, Q_BEST,
                    true, SIM_CODE_CUDA_FP64, WHY_FP64)),
     forces_pairs<double>, false, BLOCK_WARPS, BEST_B, 64,
     forces_best_kernel<double, BEST_B, false, false>, true},
    {SIM_VARIANT_TREE,
     /* approximate, O(N log N): theta shapes its forces and its cells can be drawn */
     sim_method{SIM_VARIANT_TREE, "tree",
                "Barnes-Hut octree rebuilt every step, quadrupoles or monopoles, O(N log N)",
                P_GROUP, nullptr,
                false, /* fp64 */
                false, /* exact */
                true,  /* uses_theta */
                true,  /* has_cells */
                true,  /* walk_potential */
                true,  /* block_shape */
                SIM_SCALING_NLOGN, SIM_FLOPS_PER_INTERACTION,
                true /* splits */, SIM_CODE_CUDA_TREE, WHY_TREE},
     forces_tree, false, BLOCK_GROUPS, 1, 0, nullptr, false},
};

constexpr bool table_matches_enum() {
    for (int v = 0; v < SIM_VARIANT_COUNT; v++) {
        if (variants[v].id != v || (v > 0 && variants[v].method.variant != v)) return false;
    }
    return sizeof variants / sizeof variants[0] == SIM_VARIANT_COUNT;
}
static_assert(table_matches_enum(), "variants[] must list every sim_variant, in order");

/* sim_variant_info's view of the method rows, made from them at compile time. */
struct variant_descs {
    sim_variant_desc d[SIM_VARIANT_COUNT];
};

constexpr variant_descs make_descs() {
    variant_descs t{};
    for (int v = 0; v < SIM_VARIANT_COUNT; v++) {
        const sim_method &m = variants[v].method;
        t.d[v] = sim_variant_desc{m.name, m.description, m.p_meaning, m.q_meaning, m.fp64};
    }
    return t;
}
static constexpr variant_descs descs = make_descs();

const variant_entry *kernels_entry(sim_variant v) {
    return &variants[sim_variant_resolve(v)];
}

const sim_method *kernels_method(sim_variant v) {
    v = sim_variant_resolve(v);
    if ((int)v <= 0 || v >= SIM_VARIANT_COUNT) return NULL;
    return &variants[v].method;
}

extern "C" sim_variant sim_variant_resolve(sim_variant v) {
    return v == SIM_VARIANT_DEFAULT ? SIM_VARIANT_BEST : v;
}

extern "C" const sim_variant_desc *sim_variant_info(sim_variant v) {
    v = sim_variant_resolve(v);
    if ((int)v <= 0 || v >= SIM_VARIANT_COUNT) return NULL;
    return &descs.d[v];
}

extern "C" sim_variant sim_variant_from_name(const char *name) {
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        if (strcmp(variants[v].method.name, name) == 0) return (sim_variant)v;
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
    if (lim->device < 0 || !e->kernel) return lim->max_threads_per_block; /* no CUDA call */
    if (cudaFuncGetAttributes(&attr, e->kernel) != cudaSuccess) {
        cudaGetLastError();
        return lim->max_threads_per_block;
    }
    return attr.maxThreadsPerBlock < lim->max_threads_per_block ? attr.maxThreadsPerBlock
                                                                : lim->max_threads_per_block;
}

/* Auto shape for the p x q variants, from a sweep of shapes
 * (docs/PERFORMANCE.md, best): the largest block the kernel can launch
 * always won (it keeps the most warps on an SM between barriers), and the
 * best p was the power of two nearest to N / (bodies per thread x SM
 * count), i.e. about one block per SM, clamped to 16..256; q fills the
 * rest of the block. */
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
    if (lim->device < 0) return 4; /* no CUDA call */
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, e->kernel, threads, (size_t)e->smem_per_thread * threads) != cudaSuccess) {
        cudaGetLastError();
        return 4;
    }
    return blocks > 0 ? blocks : 1;
}

/* Warps per SM for `best` (and fp64) at n bodies when p and q are both
 * automatic: n / 1024 + 4 in whole fours, from 8 up to 20 (640 threads,
 * the wide build's largest block, reached at BEST_WIDE_MIN_N bodies, where
 * the wide build takes over: best_build_for). With few tasks per warp a
 * full SM of warps spends its time loading and flushing i bodies. The rule
 * follows sweeps of the shapes at each N, for both builds and for fp64
 * (which runs at most 512 x 1); the plain loop (eps < 1e-3, massless
 * bodies) runs the same shapes (docs/PERFORMANCE.md, best). */
static int small_n_warps(int n) {
    const int w = n / 1024 + 4, most = BEST_WIDE_THREADS / 32;
    return (w < 8 ? 8 : w > most ? most : w) / 4 * 4;
}

/* A persistent grid: p threads per block in whole warps, q blocks per SM.
 * Auto: the warps small_n_warps asks for, at most the largest block the
 * kernel's registers allow (512 x 1 for fp64), in one block per SM - one
 * block of all the warps an SM holds beat two or three smaller ones
 * (docs/PERFORMANCE.md, best) - or 128 x 2 for 8 warps. */
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
