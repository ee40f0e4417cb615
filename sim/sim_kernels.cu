/* sim_kernels.cu - the force kernels, one per rung of the seed lecture's
 * ladder, side by side, and the table that names them.
 *
 * Every kernel computes, for each body i,
 *     a_i = sum_{j != i} m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2)
 * and writes it to acc[i]; sim_cuda.cu does the integrating. Each rung keeps
 * everything of the one before and adds one idea, so reading this file top
 * to bottom is the lecture. Every variant is correct for any N (partial
 * tiles are padded with massless bodies) and any p, q the clamp allows, and
 * is tested against the double-precision CPU reference (tests/test_gpu.c).
 */
#include <cuda_runtime.h>
#include <string.h>

#include "sim_cuda_check.h"
#include "sim_kernels.h"

/* ------------------------------------------------------------------------ */
/* Rung 1: naive. One thread per body, array of structs, 1/sqrtf, if (i != j).
 * p = threads per block. */

__global__ void naive_kernel(int n, const float4 *pos, float4 *acc, float eps2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 pi = pos[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 1
    for (int j = 0; j < n; j++) {
        if (i != j) {
            float4 pj = pos[j];
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

static void naive(const force_args *a, cudaStream_t stream) {
    int blocks = (a->n + a->p - 1) / a->p;
    naive_kernel<<<blocks, a->p, 0, stream>>>(a->n, a->pos, a->acc, a->eps2);
    CUDA_CHECK_LAUNCH();
}

/* ------------------------------------------------------------------------ */
/* Helpers of the tiled rungs (GPU Gems 3, ch. 31). A block is p x q threads:
 * threadIdx.x picks one of the block's p bodies, threadIdx.y one of q rows
 * that split that body's loop. Each pass loads a tile of p*q bodies into
 * shared memory (scalar arrays, one body per thread, coalesced); row ty then
 * works through the p bodies of its part of the tile. At the end the q
 * partial sums of each body are added in shared memory. */

struct tile_smem {
    float *x, *y, *z, *m;
};

static __device__ tile_smem tile_arrays(float *smem) {
    const int t = blockDim.x * blockDim.y;
    return tile_smem{smem, smem + t, smem + 2 * t, smem + 3 * t};
}

/* Loads tile bodies [base, base + p*q) into shared memory; bodies past N get
 * zero mass so they add nothing. */
static __device__ void load_tile(const force_args &a, const tile_smem &s, int base) {
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int j = base + t;
    const bool in = j < a.n;
    s.x[t] = in ? a.x[j] : 0.0f;
    s.y[t] = in ? a.y[j] : 0.0f;
    s.z[t] = in ? a.z[j] : 0.0f;
    s.m[t] = in ? a.m[j] : 0.0f;
}

/* Adds the q row partials of each body (a tree over rows, any q) and stores
 * the sum. Reuses the tile memory, so call it after the last tile's barrier. */
static __device__ void reduce_rows_and_store(float *smem, float ax, float ay, float az, int i,
                                             int n, float4 *acc) {
    const int p = blockDim.x, q = blockDim.y, tx = threadIdx.x, ty = threadIdx.y;
    if (q > 1) {
        float *rx = smem, *ry = smem + p * q, *rz = smem + 2 * p * q;
        rx[ty * p + tx] = ax;
        ry[ty * p + tx] = ay;
        rz[ty * p + tx] = az;
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
        ax = rx[tx];
        ay = ry[tx];
        az = rz[tx];
    }
    if (ty == 0 && i < n) acc[i] = make_float4(ax, ay, az, 0.0f);
}

static size_t tile_bytes(const force_args *a) {
    return sizeof(float) * 4 * a->p * a->q;
}

static dim3 tile_grid(const force_args *a) {
    return dim3((a->n + a->p - 1) / a->p);
}

/* ------------------------------------------------------------------------ */
/* Rung 4: tiled. Shared-memory tiles of p*q bodies, p x q threads per block,
 * scalar arrays, rsqrtf, still with the if (i != j) and a rolled loop. */

__global__ void tiled_kernel(force_args a) {
    extern __shared__ float smem[];
    const tile_smem s = tile_arrays(smem);
    const int p = blockDim.x, tile = p * blockDim.y;
    const int i = blockIdx.x * p + threadIdx.x;
    const int row = threadIdx.y * p;
    const float xi = i < a.n ? a.x[i] : 0.0f, yi = i < a.n ? a.y[i] : 0.0f,
                zi = i < a.n ? a.z[i] : 0.0f;
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < a.n; base += tile) {
        load_tile(a, s, base);
        __syncthreads();
#pragma unroll 1
        for (int k = 0; k < p; k++) {
            const int j = base + row + k;
            if (j != i && j < a.n) {
                float dx = s.x[row + k] - xi, dy = s.y[row + k] - yi, dz = s.z[row + k] - zi;
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
    reduce_rows_and_store(smem, ax, ay, az, i, a.n, a.acc);
}

static void tiled(const force_args *a, cudaStream_t stream) {
    dim3 block(a->p, a->q);
    tiled_kernel<<<tile_grid(a), block, tile_bytes(a), stream>>>(*a);
    CUDA_CHECK_LAUNCH();
}

/* ------------------------------------------------------------------------ */
/* The table. Order = the lecture's order = sim_variant's order. */

static const char P_THREADS[] = "threads per block, one body per thread";
static const char P_TILE[] = "bodies per block (tile row length); tile = p*q bodies";
static const char Q_ROWS[] = "threads sharing one body's loop (rows of the block)";

static constexpr variant_entry variants[] = {
    {SIM_VARIANT_DEFAULT, {}, nullptr, false, BLOCK_THREADS},
    {SIM_VARIANT_NAIVE,
     {"naive", "one thread per body, array of structs, 1/sqrtf, if (i != j)", P_THREADS, nullptr,
      false},
     naive,
     false,
     BLOCK_THREADS},
    {SIM_VARIANT_TILED,
     {"tiled", "shared-memory tiles of p*q bodies, p x q threads per block, rsqrtf, scalar arrays",
      P_TILE, Q_ROWS, false},
     tiled,
     true,
     BLOCK_PQ_TILES},
};

constexpr bool table_matches_enum() {
    for (int v = 0; v < SIM_VARIANT_COUNT; v++) {
        if (variants[v].id != v) return false;
    }
    return sizeof variants / sizeof variants[0] == SIM_VARIANT_COUNT;
}
static_assert(table_matches_enum(), "variants[] must list every sim_variant, in order");

const variant_entry *kernels_entry(sim_variant v) {
    v = sim_variant_resolve(v);
    return &variants[v];
}

extern "C" sim_variant sim_variant_resolve(sim_variant v) {
    return v == SIM_VARIANT_DEFAULT ? SIM_VARIANT_TILED : v;
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

static int floor_pow2(int x) {
    int r = 1;
    while (r * 2 <= x) r *= 2;
    return r;
}

static void note(sim_block *b, const char *reason) {
    b->clamped = true;
    snprintf(b->reason, sizeof b->reason, "%s", reason);
}

extern "C" sim_block sim_kernels_clamp(sim_variant v, int p, int q, int n,
                                       const sim_device_limits *lim) {
    const variant_entry *e = kernels_entry(v);
    const int max_threads = lim->max_threads_per_block;
    sim_block b = {p, q, false, ""};
    if (e->rule == BLOCK_THREADS) {
        if (b.p <= 0) b.p = 256;
        if (b.p > max_threads) {
            b.p = max_threads;
            note(&b, "p <= the device's threads per block");
        }
        if (q > 1) note(&b, "this variant has one thread per body: q = 1");
        b.q = 1;
        return b;
    }
    /* BLOCK_PQ_TILES: p x q threads, 16 bytes of shared memory each. */
    if (b.q <= 0) {
        /* Auto: enough threads to fill the GPU (2048 per SM), p x q <= max. */
        b.q = 1;
        const long target = 2048L * lim->sm_count;
        while ((long)n * b.q < target && b.q * 2 * 32 <= max_threads) b.q *= 2;
    }
    if (b.p <= 0) b.p = floor_pow2(max_threads / b.q < 256 ? max_threads / b.q : 256);
    if (b.q > max_threads) {
        b.q = max_threads;
        note(&b, "q <= the device's threads per block");
    }
    if (b.p * b.q > max_threads) {
        b.p = max_threads / b.q;
        note(&b, "p x q <= the device's threads per block");
    }
    if ((long)b.p * b.q * 16 > lim->max_shared_per_block) {
        b.p = lim->max_shared_per_block / (16 * b.q);
        note(&b, "p x q tile must fit in shared memory");
    }
    return b;
}
