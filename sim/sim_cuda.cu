/* sim_cuda.cu - the CUDA backend: device state, the leapfrog, diagnostics.
 *
 * Bodies live on the device as 16-byte float4 arrays of structs (x, y, z, m)
 * and (vx, vy, vz, 0). The fp64 variant switches the state to double4a arrays
 * (converted on the switch, both ways), so "double precision throughout"
 * covers the integrator too. A step is kick-drift-kick leapfrog: the force
 * kernel of the chosen variant (sim_kernels.cu) plus one O(N) kernel that
 * closes one step and opens the next (kick, damp, kick, drift): two launches
 * per step, and one more for variants that read scalar arrays (the scatter).
 * The variants that sum with atomics (best, fp64) need zeros in acc: the
 * kick writes them as it reads each acceleration for the last time, so the
 * steps need no memset; only an evaluation outside a step (new bodies, a
 * new kernel or softening: ensure_forces) clears acc first. Accelerations
 * are cached between steps and recomputed when the softening or the kernel
 * changes.
 *
 * Diagnostics are reduced on the GPU in double precision: one kernel sums
 * per-block partials (the potential is an O(N^2) tiled pass), a second sums
 * the blocks; reading the totals back waits for the stream. Non-finite state
 * is caught where it is written: the leapfrog kernel keeps the first step
 * that wrote a NaN or infinity in one device word (an atomicMin, only by the
 * threads that find one), copied to pinned host memory at the end of each
 * step call and read once an event says the copy is done (sim_nonfinite):
 * by the next wait of the frame, never with a wait of its own. Step timing uses
 * CUDA events that are read only once they have completed, so the frame
 * loop never waits on them. Writing vertices waits for the stream, on the
 * zero-copy interop path too: that is faster than leaving the ordering to
 * the interop unmap (see cuda_vertices).
 *
 * Host memory: bodies go up and come back in chunks through one fixed host
 * buffer allocated at create, so after create only the GPU allocations in
 * reserve can fail for lack of memory, and those report it.
 *
 * On several GPUs (sim_desc.gpus) one backend per GPU, the first leading
 * the others: "Several GPUs" below says how they share a step.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cuda_check.h"
#include "sim_gang.h"
#include "sim_kernels.h"
#include "sim_nccl.h"
#include "sim_tree.h"

static_assert(sizeof(sim_vertex) == sizeof(float4), "a vertex is one float4");
static_assert(sizeof(float4) == 16, "a body is 16 bytes");

/* Diagnostic sums, in this order, per block and in total. */
enum {
    DIAG_KINETIC,
    DIAG_POTENTIAL,
    DIAG_MASS,
    DIAG_P,                    /* 3: momentum */
    DIAG_L = DIAG_P + 3,       /* 3: angular momentum */
    DIAG_MR = DIAG_L + 3,      /* 3: mass-weighted position */
    DIAG_GALAXY = DIAG_MR + 3, /* per galaxy 0, 1: mass, m r (3), m v (3) */
    DIAG_COUNT = DIAG_GALAXY + 14
};
#define DIAG_THREADS 128 /* diag_partial_kernel's block: also its tile of bodies */
#define DIAG_WARPS (DIAG_THREADS / 32)
#define DIAG_BLOCKS_PER_SM 8 /* its grid where no O(N^2) potential is summed */
#define THREADS 256          /* O(N) kernels */
#define STAGE_BODIES 16384   /* bodies per chunk of host <-> device body copies */
static_assert((3 * sizeof(double4a) + 1) * STAGE_BODIES % alignof(double4a) == 0,
              "aligned_alloc needs a multiple of the alignment");

struct cuda_backend {
    sim_fault fault; /* the first CUDA failure (sim_cuda_check.h; sim_failed) */
    int device;
    int sm_count;
    int n, capacity, capacity64;
    bool fp64; /* the state lives in the double arrays */
    float4 *pos, *vel, *acc;
    double4a *pos64, *vel64, *acc64;
    float *soa;                       /* x, y, z, m scalar arrays of `capacity` each */
    uint8_t *tags;                    /* galaxy and component of each body */
    sim_vertex *stage;                /* vertices for the host-copy path */
    char *host_stage;                 /* host: STAGE_BODIES x (3 double4a + 1 tag byte) */
    double *diag_partial;             /* DIAG_COUNT per block, then DIAG_COUNT totals */
    double *diag_host;                /* pinned: the totals, valid once diag_ready has completed */
    cudaEvent_t diag_ready;           /* recorded after their copy */
    bool diag_queued;                 /* a copy is queued that has not been read */
    sim_potential_source diag_source; /* ... and the potential it sums */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    bool timing_pending; /* start/stop recorded, not yet read */
    int timed_steps;     /* steps between start and stop */
    float last_step_ms;
    bool acc_valid;
    bool acc_potential; /* acc's w holds each body's potential at pos (the tree's walk) */
    double acc_softening;
    sim_variant acc_variant;
    sim_tree *tree;          /* variant tree (sim_tree.cu): created on first use, kept after */
    best_plan *best;         /* variants best, fp64: per-warp starts (sim_kernels.cu), likewise */
    bool best_fold;          /* every body's mass suits best's folded loop (set by upload) */
    bool tree_on;            /* the tree variant is selected: reserve() grows the tree too */
    unsigned long long *bad; /* device: first non-finite step, NO_BAD_STEP: none */
    unsigned long long *bad_host; /* pinned copy, valid once bad_ready has completed */
    cudaEvent_t bad_ready;        /* recorded after the copy of each step call */
    bool bad_pending;             /* a copy is queued that has not been read */
    int64_t bad_step;             /* the first non-finite step known on the host; 0: none */
    /* Several GPUs (sim_desc.gpus; see "Several GPUs" below). The first
     * GPU's backend leads: sim.c holds it, it holds the others. */
    cuda_backend **members;   /* members[0] is the leader itself; NULL on one GPU */
    int member_count;         /* 1 on one GPU */
    sim_nccl *nccl;           /* the leader's: the communicators */
    sim_gang *gang;           /* the leader's, spread: a host thread per other GPU */
    cudaEvent_t forces_start; /* each member: its force evaluation in a timed step call */
    cudaEvent_t forces_stop;
    cudaEvent_t sum_start; /* the leader: the sum of the shares in that call */
    cudaEvent_t sum_stop;
    cudaEvent_t step_end;     /* the leader: the end of that call's first step */
    cudaEvent_t done;         /* each member: its step call's work, which the leader waits for */
    bool gpus_pending;        /* the leader: those events recorded, not yet read */
    bool pending_split;       /* ... that call's method split (its sum has events too) */
    double pending_sum_bytes; /* ... and the buffer it summed */
    float pending_share[SIM_MAX_GPUS]; /* ... and the tree's shares in it (0: not the tree) */
    sim_gpu_stats gpu_stats;  /* the leader: as of the last events read */
    /* The leader: the tree's shares, GPU k walking the groups that start in
     * [tree_at[k], tree_at[k + 1]) of the sorted bodies (balance_tree), for
     * tree_at_n bodies on tree_at_count GPUs; GPU k's tree's evaluations
     * from tree_at_since[k] on use them. */
    double tree_at[SIM_MAX_GPUS + 1];
    int tree_at_n, tree_at_count;
    long long tree_at_since[SIM_MAX_GPUS];
    /* The bodies spread over the GPUs (sim_desc.spread; "Several GPUs"):
     * every backend's n, pos, vel, acc and tags are its own bodies, those
     * of spread_index[spread_first[k] .. spread_first[k + 1]) for GPU k, in
     * that order; the rest is the leader's. */
    bool spread;
    int spread_n;                       /* all bodies */
    int spread_first[SIM_MAX_GPUS + 1]; /* sim_spread_split's */
    int *spread_index;                  /* host: each GPU's bodies' indices, GPU by GPU */
    uint64_t *spread_keys;              /* host: the split's scratch */
    int spread_capacity;                /* bodies those two hold */
    /* The leader, drawing (spread_collect): every GPU's drawn values, GPU
     * by GPU, and their places in the drawing; room for gather_capacity. */
    float4 *spread_gather;
    int *spread_place;
    int gather_capacity;
    cudaEvent_t gathered;  /* recorded after the last gather's copies */
    sim_diag spread_diag;  /* the diagnostics queued (computed when queued) */
    bool spread_ids_stale; /* bodies moved between GPUs since spread_index was read back */
    /* Each GPU, spread: its bodies' indices, and the arrays they move
     * through to their new GPUs (spread_migrate; next_capacity each). */
    int *id;
    float4 *next_pos, *next_vel, *next_acc;
    uint8_t *next_tags;
    int *next_id;     /* also, drawing, the places of its drawn bodies (spread_collect) */
    int *next_picked; /* drawing: how many of its bodies are drawn */
    int next_capacity;
    cudaEvent_t moved; /* its leavers are packed in the next arrays, its holes filled */
};

#define NO_BAD_STEP 0xffffffffffffffffull /* what a memset to 0xff bytes gives */

extern "C" int sim_cuda_device_count(char *why, size_t why_len) {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        if (why) snprintf(why, why_len, "%s", cudaGetErrorString(e));
        cudaGetLastError(); /* not sticky; clear it */
        return 0;
    }
    if (count == 0 && why) snprintf(why, why_len, "the driver reports no devices");
    return count;
}

extern "C" sim_device_limits sim_cuda_device_limits(int device) {
    sim_device_limits lim = {-1, 1024, 48 * 1024, 1};
    if (device < 0) return lim; /* no CUDA call at all: its driver would start threads */
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        lim.device = device;
        lim.max_threads_per_block = prop.maxThreadsPerBlock;
        lim.max_shared_per_block = (int)prop.sharedMemPerBlock;
        lim.sm_count = prop.multiProcessorCount;
    } else {
        cudaGetLastError();
    }
    return lim;
}

/* ------------------------------------------------------------------------ */
/* Kernels of the integrator and of the host interface, for either precision. */

/* Keeps the smallest step that wrote a non-finite value. The plain read
 * first: once a step has blown up, every later one would find NaNs too. */
static __device__ void flag_bad_step(unsigned long long *bad, unsigned long long step) {
    if (*(volatile unsigned long long *)bad > step) atomicMin(bad, step);
}

template <typename V> static __device__ bool finite3(const V &u) {
    return isfinite(u.x) && isfinite(u.y) && isfinite(u.z);
}

/* The O(N) part of leapfrog between two force evaluations: close a step
 * (kick by `close`, damp) and open the next (kick by `open`, drift by dt).
 * The first call of a sim_step opens only (close 0, damping 1); the last
 * closes only (dt 0). Step `step` is the one closed here: its velocities
 * are final after the closing kick and the next step's positions after the
 * drift, and a non-finite one flags that step in *bad (sim_nonfinite). */
template <typename T, typename V = typename vec4<T>::type>
__global__ void kick_drift_kernel(int n, V *pos, V *vel, V *acc, bool clear, T close, T damping,
                                  T open, T dt, unsigned long long step, unsigned long long *bad) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    V v = vel[i];
    const V a = acc[i];
    if (clear) acc[i] = V{}; /* read for the last time: the next forces add into zeros */
    v.x = (v.x + a.x * close) * damping;
    v.y = (v.y + a.y * close) * damping;
    v.z = (v.z + a.z * close) * damping;
    if (close != 0 && !finite3(v)) flag_bad_step(bad, step);
    if (dt > 0) {
        V x = pos[i];
        v.x += a.x * open;
        v.y += a.y * open;
        v.z += a.z * open;
        x.x += v.x * dt;
        x.y += v.y * dt;
        x.z += v.z * dt;
        pos[i] = x;
        if (!finite3(x)) flag_bad_step(bad, step + 1);
    }
    vel[i] = v;
}

/* What the renderer draws of a body: position and speed. */
template <typename V> __device__ float4 vertex_of(const V x, const V v) {
    return make_float4((float)x.x, (float)x.y, (float)x.z,
                       (float)sqrt(v.x * v.x + v.y * v.y + v.z * v.z));
}

/* Vertex j of `drawn`: body j * stride's. */
template <typename T, typename V = typename vec4<T>::type>
__global__ void vertices_kernel(int drawn, int stride, const V *pos, const V *vel, float4 *out) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= drawn) return;
    const int i = j * stride; /* at most body_count - 1 */
    out[j] = vertex_of(pos[i], vel[i]);
}

/* Array of structs to scalar arrays, for the variants that read those. */
__global__ void scatter_soa_kernel(int n, int stride, const float4 *pos, float *soa) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 x = pos[i];
    soa[i] = x.x;
    soa[stride + i] = x.y;
    soa[2 * stride + i] = x.z;
    soa[3 * stride + i] = x.w;
}

/* Precision switches. */
__global__ void widen_kernel(int n, const float4 *in, double4a *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = make_double4a(in[i].x, in[i].y, in[i].z, in[i].w);
}

__global__ void narrow_kernel(int n, const double4a *in, float4 *out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = make_float4((float)in[i].x, (float)in[i].y, (float)in[i].z, (float)in[i].w);
}

/* Sum of DIAG_COUNT values over a block of DIAG_THREADS threads: over
 * each warp by shuffles, then the warps' sums in shared memory. Thread 0
 * gets the totals. The order is fixed, so the sums repeat bit for bit. */
static __device__ void block_sum(double (*sh)[DIAG_WARPS], double *v) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int k = 0; k < DIAG_COUNT; k++) {
#pragma unroll
        for (int s = 16; s > 0; s >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], s);
        if (lane == 0) sh[k][warp] = v[k];
    }
    __syncthreads();
    if (threadIdx.x != 0) return;
#pragma unroll
    for (int k = 0; k < DIAG_COUNT; k++) {
        double t = 0;
        for (int w = 0; w < DIAG_WARPS; w++) t += sh[k][w];
        v[k] = t;
    }
}

/* -sum_{j != i} m_j / sqrt(r^2 + eps^2) for body i at xi (i >= n: a
 * block's spare thread, which still loads tiles), over tiles of
 * DIAG_THREADS bodies staged in `tile`: in T within a tile, in double across
 * tiles. Every thread of the block must call it (it synchronises). */
template <typename T, typename V>
__device__ double tile_potential(int n, const V *pos, T eps2, int i, V xi, V *tile) {
    V zero;
    zero.x = zero.y = zero.z = zero.w = 0;
    double phi = 0;
    for (int base = 0; base < n; base += DIAG_THREADS) {
        const int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : zero;
        __syncthreads();
        T tile_phi = 0;
        const int count = min(DIAG_THREADS, n - base);
        for (int k = 0; k < count; k++) {
            T dx = tile[k].x - xi.x, dy = tile[k].y - xi.y, dz = tile[k].z - xi.z;
            T r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (base + k == i || r2 == 0) continue;
            tile_phi -= tile[k].w / sqrt(r2);
        }
        phi += tile_phi;
        __syncthreads();
    }
    return phi;
}

/* Per-block partial sums of the diagnostics, each thread adding up bodies
 * a grid apart in double. The potential of body i,
 * phi_i = -sum_{j != i} m_j / sqrt(r^2 + eps^2), is walk_phi[i].w where the
 * tree's walk wrote it (with_potential false then), else summed in T within a
 * tile of DIAG_THREADS bodies and in double across tiles (a grid of a block
 * per DIAG_THREADS bodies then, so that O(N^2) pass has every thread it can
 * get). A pair with r^2 + eps^2 = 0 (eps = 0, the same position) adds
 * nothing, as sim.h defines and sim_cpu.c does: the branch is there for the
 * self-term anyway. */
template <typename T, typename V = typename vec4<T>::type>
__global__ void diag_partial_kernel(int n, const V *pos, const V *vel, const uint8_t *tags, T eps2,
                                    bool with_potential, const V *walk_phi, double *partial) {
    __shared__ V tile[DIAG_THREADS];
    __shared__ double sh[DIAG_COUNT][DIAG_WARPS];
    V zero;
    zero.x = zero.y = zero.z = zero.w = 0;
    double v[DIAG_COUNT];
#pragma unroll
    for (int k = 0; k < DIAG_COUNT; k++) v[k] = 0;
    /* The same trips for the whole block: tile_potential synchronises it. */
    for (int base = blockIdx.x * DIAG_THREADS; base < n; base += gridDim.x * DIAG_THREADS) {
        const int i = base + threadIdx.x;
        const V xi = i < n ? pos[i] : zero;
        const V vi = i < n ? vel[i] : zero;
        double phi = walk_phi && i < n ? (double)walk_phi[i].w : 0.0;
        if (with_potential) phi += tile_potential<T>(n, pos, eps2, i, xi, tile);
        const double m = xi.w;
        const double x = xi.x, y = xi.y, z = xi.z, vx = vi.x, vy = vi.y, vz = vi.z;
        v[DIAG_KINETIC] += 0.5 * m * (vx * vx + vy * vy + vz * vz);
        v[DIAG_POTENTIAL] += 0.5 * m * phi; /* each pair counted from both ends */
        v[DIAG_MASS] += m;
        v[DIAG_P + 0] += m * vx;
        v[DIAG_P + 1] += m * vy;
        v[DIAG_P + 2] += m * vz;
        v[DIAG_L + 0] += m * (y * vz - z * vy);
        v[DIAG_L + 1] += m * (z * vx - x * vz);
        v[DIAG_L + 2] += m * (x * vy - y * vx);
        v[DIAG_MR + 0] += m * x;
        v[DIAG_MR + 1] += m * y;
        v[DIAG_MR + 2] += m * z;
        const int galaxy = i < n ? (int)SIM_TAG_GALAXY(tags[i]) : 3; /* 3: counted in neither */
#pragma unroll
        for (int g = 0; g < 2; g++) {
            const double w = galaxy == g ? m : 0.0;
            v[DIAG_GALAXY + 7 * g + 0] += w;
            v[DIAG_GALAXY + 7 * g + 1] += w * x;
            v[DIAG_GALAXY + 7 * g + 2] += w * y;
            v[DIAG_GALAXY + 7 * g + 3] += w * z;
            v[DIAG_GALAXY + 7 * g + 4] += w * vx;
            v[DIAG_GALAXY + 7 * g + 5] += w * vy;
            v[DIAG_GALAXY + 7 * g + 6] += w * vz;
        }
    }
    block_sum(sh, v);
    if (threadIdx.x == 0) {
        for (int k = 0; k < DIAG_COUNT; k++) partial[blockIdx.x * DIAG_COUNT + k] = v[k];
    }
}

/* One block adds the per-block partials; the totals go after them. */
__global__ void diag_total_kernel(int blocks, double *partial) {
    __shared__ double sh[DIAG_COUNT][DIAG_WARPS];
    double v[DIAG_COUNT];
#pragma unroll
    for (int k = 0; k < DIAG_COUNT; k++) v[k] = 0;
    for (int b = threadIdx.x; b < blocks; b += DIAG_THREADS) {
#pragma unroll
        for (int k = 0; k < DIAG_COUNT; k++) v[k] += partial[b * DIAG_COUNT + k];
    }
    block_sum(sh, v);
    if (threadIdx.x == 0) {
        for (int k = 0; k < DIAG_COUNT; k++) partial[blocks * DIAG_COUNT + k] = v[k];
    }
}

/* ------------------------------------------------------------------------ */
/* The backend operations. */

static int blocks_for(int n, int threads) {
    return (n + threads - 1) / threads;
}

/* The arrays bodies move between GPUs through (spread). */
static void free_next(cuda_backend *c) {
    CUDA_CHECK(&c->fault, cudaFree(c->next_pos));
    CUDA_CHECK(&c->fault, cudaFree(c->next_vel));
    CUDA_CHECK(&c->fault, cudaFree(c->next_acc));
    CUDA_CHECK(&c->fault, cudaFree(c->next_tags));
    CUDA_CHECK(&c->fault, cudaFree(c->next_id));
    CUDA_CHECK(&c->fault, cudaFree(c->next_picked));
    c->next_pos = c->next_vel = c->next_acc = NULL;
    c->next_tags = NULL;
    c->next_id = c->next_picked = NULL;
    c->next_capacity = 0;
}

static void free_buffers(cuda_backend *c) {
    CUDA_CHECK(&c->fault, cudaFree(c->id));
    c->id = NULL;
    CUDA_CHECK(&c->fault, cudaFree(c->pos));
    CUDA_CHECK(&c->fault, cudaFree(c->vel));
    CUDA_CHECK(&c->fault, cudaFree(c->acc));
    CUDA_CHECK(&c->fault, cudaFree(c->soa));
    CUDA_CHECK(&c->fault, cudaFree(c->tags));
    CUDA_CHECK(&c->fault, cudaFree(c->stage));
    CUDA_CHECK(&c->fault, cudaFree(c->diag_partial));
    c->pos = c->vel = c->acc = NULL;
    c->soa = NULL;
    c->tags = NULL;
    c->stage = NULL;
    c->diag_partial = NULL;
    c->capacity = 0;
}

static void free_buffers64(cuda_backend *c) {
    CUDA_CHECK(&c->fault, cudaFree(c->pos64));
    CUDA_CHECK(&c->fault, cudaFree(c->vel64));
    CUDA_CHECK(&c->fault, cudaFree(c->acc64));
    c->pos64 = c->vel64 = c->acc64 = NULL;
    c->capacity64 = 0;
}

static void destroy_one(cuda_backend *c);

/* One GPU's backend (a leader or a member). */
static cuda_backend *create_one(int device, sim_error *err) {
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) {
        if (err) {
            snprintf(err->message, sizeof err->message, "cannot use CUDA device %d: %s", device,
                     cudaGetErrorString(e));
            snprintf(err->hint, sizeof err->hint, "run with --backend cpu");
        }
        cudaGetLastError();
        return NULL;
    }
    cuda_backend *c = (cuda_backend *)calloc(1, sizeof *c);
    /* Aligned for double4a (32 bytes); the size is a multiple of that. */
    char *host_stage =
        (char *)aligned_alloc(alignof(double4a), (3 * sizeof(double4a) + 1) * STAGE_BODIES);
    if (!c || !host_stage) {
        free(c);
        free(host_stage);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "out of host memory for the CUDA backend's %.1f MiB copy buffer",
                     (3 * sizeof(double4a) + 1) * STAGE_BODIES / 1048576.0);
            snprintf(err->hint, sizeof err->hint, "free some memory");
        }
        return NULL;
    }
    c->host_stage = host_stage;
    c->device = device;
    CUDA_CHECK(&c->fault,
               cudaDeviceGetAttribute(&c->sm_count, cudaDevAttrMultiProcessorCount, device));
    /* A blocking stream: it orders with the legacy default stream, which
     * app/interop/interop.c maps and unmaps the GL buffer on
     * (sim_queue_vertices relies on this ordering; sim_write_vertices also
     * waits, for speed: see cuda_vertices). */
    CUDA_CHECK(&c->fault, cudaStreamCreate(&c->stream));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->start));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->stop));
    CUDA_CHECK(&c->fault, cudaEventCreateWithFlags(&c->bad_ready, cudaEventDisableTiming));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->forces_start));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->forces_stop));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->sum_start));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->sum_stop));
    CUDA_CHECK(&c->fault, cudaEventCreate(&c->step_end));
    CUDA_CHECK(&c->fault, cudaEventCreateWithFlags(&c->done, cudaEventDisableTiming));
    CUDA_CHECK(&c->fault, cudaEventCreateWithFlags(&c->moved, cudaEventDisableTiming));
    c->member_count = 1;
    CUDA_CHECK(&c->fault, cudaEventCreateWithFlags(&c->diag_ready, cudaEventDisableTiming));
    if (cudaMalloc(&c->bad, sizeof *c->bad) != cudaSuccess ||
        cudaMallocHost(&c->bad_host, sizeof *c->bad_host) != cudaSuccess ||
        cudaMallocHost(&c->diag_host, sizeof(double) * DIAG_COUNT) != cudaSuccess) {
        cudaGetLastError(); /* out of memory is not sticky */
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "out of memory for the CUDA backend's non-finite flag and sums");
            snprintf(err->hint, sizeof err->hint, "free some memory");
        }
        destroy_one(c);
        return NULL;
    }
    CUDA_CHECK(&c->fault, cudaMemset(c->bad, 0xff, sizeof *c->bad));
    *c->bad_host = NO_BAD_STEP;
    return c;
}

static void destroy_one(cuda_backend *c) {
    if (!c) return;
    CUDA_CHECK(&c->fault, cudaSetDevice(c->device));
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    free_buffers(c);
    free_buffers64(c);
    free_next(c);
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->moved));
    sim_tree_destroy(c->tree);
    kernels_best_plan_destroy(c->best, &c->fault);
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->start));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->stop));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->bad_ready));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->forces_start));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->forces_stop));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->sum_start));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->sum_stop));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->step_end));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->done));
    CUDA_CHECK(&c->fault, cudaFree(c->bad));
    CUDA_CHECK(&c->fault, cudaFreeHost(c->bad_host));
    CUDA_CHECK(&c->fault, cudaFreeHost(c->diag_host));
    CUDA_CHECK(&c->fault, cudaEventDestroy(c->diag_ready));
    CUDA_CHECK(&c->fault, cudaStreamDestroy(c->stream));
    free(c->host_stage);
    free(c);
}

/* ------------------------------------------------------------------------ */
/* Several GPUs of one host (sim_desc.gpus > 1).
 *
 * Every GPU holds the whole state, and they stay identical: each computes
 * its share of the forces (force_args.share: a range of best's pairs, of
 * the tree's sorted bodies) into its own acc, zeros elsewhere; one NCCL
 * all-reduce adds the shares into every GPU's acc; each GPU then kicks and
 * drifts all bodies alike. A sum and not a gather of positions after
 * integrating shares because best applies each pair to both of its bodies
 * (half the evaluations of an i-range split), which leaves partial sums on
 * every body; it moves twice the bytes of a gather, N x 16 per step, small
 * beside the forces at the N where several GPUs gain (docs/PERFORMANCE.md,
 * "Several GPUs"). Everything that only reads the state (vertices,
 * diagnostics, snapshots, the force error, the tree's cells) reads the
 * leader's. A method whose row does not split (the ladder's first rungs)
 * runs whole on every GPU, with no sum. One host thread queues every GPU's
 * work (spread, below, but for its split, moves and tree); the leader's
 * device is the current one whenever a call returns.
 *
 * Spread (sim_desc.spread, the tree in float only): each GPU holds only
 * its own bodies, a stretch of a Morton curve (sim_spread_split at
 * upload), with each body's index beside it. Before every evaluation the
 * bodies that have moved into another GPU's stretch go there
 * (spread_migrate), each GPU builds the tree of its own and walks it with
 * the parts of the others' it needs (sim_tree_forces_domains), and kicks
 * and drifts only its own: no sum. The split, the moves and the tree's
 * phases between its waits are queued by a host thread per GPU (the
 * leader's gang, sim_gang.h), so that no GPU waits for the others' queuing.
 * What reads the state gathers it: the
 * sums of the diagnostics are added on the host, each GPU picks its drawn
 * bodies' vertices and colours and the leader puts them in drawing order
 * (spread_collect), bodies and potentials come back through the host's
 * index. The tree's cells
 * drawn are the leader's own; the force error, which needs every body on
 * one GPU, and the other methods are refused. */

static void set_device(cuda_backend *m) {
    CUDA_CHECK(&m->fault, cudaSetDevice(m->device));
}

/* GPU k's backend: the leader itself for k = 0 (also on one GPU). */
static cuda_backend *member(cuda_backend *c, int k) {
    return k == 0 ? c : c->members[k];
}

static void cuda_destroy(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    if (!c) return;
    for (int k = 1; k < c->member_count; k++) destroy_one(c->members[k]);
    set_device(c);
    CUDA_CHECK(&c->fault, cudaFree(c->spread_gather));
    CUDA_CHECK(&c->fault, cudaFree(c->spread_place));
    if (c->gathered) CUDA_CHECK(&c->fault, cudaEventDestroy(c->gathered));
    free(c->spread_index);
    free(c->spread_keys);
    sim_nccl_destroy(c->nccl);
    sim_gang_destroy(c->gang);
    free(c->members);
    destroy_one(c);
}

static void *cuda_create(int device, int gpus, bool spread, sim_error *err) {
    cuda_backend *c = create_one(device, err);
    if (!c || gpus <= 1) return c;
    c->spread = spread;
    int *devices = (int *)calloc((size_t)gpus, sizeof *devices);
    c->members = (cuda_backend **)calloc((size_t)gpus, sizeof *c->members);
    bool ok = devices && c->members;
    if (!ok && err) {
        snprintf(err->message, sizeof err->message, "out of host memory for %d GPUs", gpus);
        snprintf(err->hint, sizeof err->hint, "free some memory");
    }
    if (ok) {
        c->members[0] = c;
        c->member_count = 1;
        devices[0] = device;
        for (int k = 1; k < gpus && ok; k++) {
            devices[k] = device + k;
            c->members[k] = create_one(device + k, err);
            ok = c->members[k] != NULL;
            if (ok) c->members[k]->spread = spread;
            if (ok) c->member_count++;
        }
    }
    if (ok) {
        c->nccl = sim_nccl_create(gpus, devices, err);
        ok = c->nccl != NULL;
    }
    if (ok && spread) {
        c->gang = sim_gang_create(gpus - 1);
        ok = c->gang != NULL;
        if (!ok && err) {
            snprintf(err->message, sizeof err->message,
                     "could not start %d host threads to queue the GPUs' work", gpus - 1);
            snprintf(err->hint, sizeof err->hint, "free some memory, or drop --spread");
        }
    }
    /* The tree's GPUs copy parts of their trees to each other
     * (sim_tree_forces_domains): directly where the devices can reach each
     * other, else the copies go through the host. */
    for (int i = 0; ok && i < gpus; i++) {
        for (int j = 0; j < gpus; j++) {
            int can = 0;
            if (i == j || cudaDeviceCanAccessPeer(&can, devices[i], devices[j]) != cudaSuccess ||
                !can) {
                continue;
            }
            CUDA_CHECK(&c->fault, cudaSetDevice(devices[i]));
            const cudaError_t e = cudaDeviceEnablePeerAccess(devices[j], 0);
            if (e != cudaSuccess) cudaGetLastError(); /* already enabled is fine, and so is none */
        }
    }
    free(devices);
    CUDA_CHECK(&c->fault, cudaSetDevice(device));
    if (!ok) {
        cuda_destroy(c);
        return NULL;
    }
    return c;
}

/* n bodies' `part` (their state, double state or tree) needs `need` bytes
 * on GPU c, which it does not have beside what c already holds: the
 * message gives the GPU's free and total memory. spreadable: the state or
 * the tree asks, which --spread divides among the GPUs (not the double
 * state: spread runs the tree in float), so where several GPUs are visible
 * the hint names it. */
static void out_of_memory(const cuda_backend *c, sim_error *err, int n, const char *part,
                          size_t need, bool spreadable) {
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
    cudaGetLastError(); /* out-of-memory is not sticky; clear it */
    if (!err) return;
    if (c->spread) {
        snprintf(err->message, sizeof err->message,
                 "GPU %d's share, %d bodies: their %s needs %.1f MiB of GPU memory; it has "
                 "%.1f MiB free of %.1f",
                 c->device, n, part, need / 1048576.0, free_b / 1048576.0, total_b / 1048576.0);
        snprintf(err->hint, sizeof err->hint, "try a smaller --n, or more --gpus");
        return;
    }
    snprintf(err->message, sizeof err->message,
             "%d bodies: their %s needs %.1f MiB of GPU memory; the GPU has %.1f MiB free of %.1f",
             n, part, need / 1048576.0, free_b / 1048576.0, total_b / 1048576.0);
    if (spreadable && devices > 1) {
        snprintf(err->hint, sizeof err->hint,
                 "try a smaller --n, or --spread to spread the tree's bodies over the %d GPUs "
                 "(each keeps its own)",
                 devices);
    } else {
        snprintf(err->hint, sizeof err->hint, "try a smaller --n");
    }
}

/* Room for n bodies of double state; false leaves the old buffers. */
static bool reserve64(cuda_backend *c, int n, sim_error *err) {
    if (n <= c->capacity64) return true;
    double4a *pos = NULL, *vel = NULL, *acc = NULL;
    const size_t bytes = sizeof(double4a) * (size_t)n;
    if (cudaMalloc(&pos, bytes) != cudaSuccess || cudaMalloc(&vel, bytes) != cudaSuccess ||
        cudaMalloc(&acc, bytes) != cudaSuccess) {
        cudaFree(pos);
        cudaFree(vel);
        cudaFree(acc);
        out_of_memory(c, err, n, "double-precision state", 3 * bytes, false);
        return false;
    }
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    free_buffers64(c);
    c->pos64 = pos;
    c->vel64 = vel;
    c->acc64 = acc;
    c->capacity64 = n;
    return true;
}

/* Room for the tree of n bodies (created on first use); false: out of GPU
 * memory, reported in *err. */
static bool reserve_tree(cuda_backend *c, int n, sim_error *err) {
    const int room = c->spread ? sim_tree_domain_room(n) : n; /* and what the others send */
    if (!c->tree) c->tree = sim_tree_create(c->sm_count, &c->fault);
    if (c->tree && sim_tree_reserve(c->tree, room)) return true;
    out_of_memory(c, err, n, "tree", sim_tree_bytes(c->tree, room), true);
    return false;
}

/* Allocates room for n bodies on one GPU (and their double state when fp64
 * is on, the tree's when it is selected). On failure reports how much was
 * needed and keeps the old buffers. */
static bool reserve_one(cuda_backend *c, int n, sim_error *err) {
    if (c->tree_on && !reserve_tree(c, n, err)) return false;
    if (c->fp64 && !reserve64(c, n, err)) return false;
    if (n <= c->capacity) return true;
    const int diag_blocks = blocks_for(n, DIAG_THREADS);
    const size_t partial_bytes = sizeof(double) * DIAG_COUNT * (diag_blocks + 1);
    /* The scalar arrays only for the variants that read them, which do not
     * run spread. */
    const size_t soa_n = c->spread ? 1 : 4 * (size_t)n;
    const size_t id_n = c->spread ? (size_t)n : 1; /* spread: each body's index */
    const size_t need = (3 * sizeof(float4) + sizeof(sim_vertex) + 1) * (size_t)n +
                        sizeof(float) * soa_n + sizeof(int) * id_n + partial_bytes;
    float4 *pos = NULL, *vel = NULL, *acc = NULL;
    float *soa = NULL;
    int *id = NULL;
    uint8_t *tags = NULL;
    sim_vertex *stage = NULL;
    double *partial = NULL;
    bool ok = cudaMalloc(&pos, sizeof(float4) * n) == cudaSuccess &&
              cudaMalloc(&vel, sizeof(float4) * n) == cudaSuccess &&
              cudaMalloc(&acc, sizeof(float4) * n) == cudaSuccess &&
              cudaMalloc(&soa, sizeof(float) * soa_n) == cudaSuccess &&
              cudaMalloc(&id, sizeof(int) * id_n) == cudaSuccess &&
              cudaMalloc(&tags, (size_t)n) == cudaSuccess &&
              cudaMalloc(&stage, sizeof(sim_vertex) * n) == cudaSuccess &&
              cudaMalloc(&partial, partial_bytes) == cudaSuccess;
    if (!ok) {
        cudaFree(pos);
        cudaFree(vel);
        cudaFree(acc);
        cudaFree(soa);
        cudaFree(id);
        cudaFree(tags);
        cudaFree(stage);
        cudaFree(partial);
        out_of_memory(c, err, n, "state", need, true);
        return false;
    }
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    if (c->spread && c->n > 0) {
        /* Spread, this GPU's bodies are nowhere else: they move over, so
         * that a failure on another GPU keeps every GPU's old bodies. */
        const size_t keep = (size_t)c->n;
        CUDA_CHECK(&c->fault, cudaMemcpy(pos, c->pos, sizeof(float4) * keep, cudaMemcpyDefault));
        CUDA_CHECK(&c->fault, cudaMemcpy(vel, c->vel, sizeof(float4) * keep, cudaMemcpyDefault));
        CUDA_CHECK(&c->fault, cudaMemcpy(acc, c->acc, sizeof(float4) * keep, cudaMemcpyDefault));
        CUDA_CHECK(&c->fault, cudaMemcpy(tags, c->tags, keep, cudaMemcpyDefault));
        CUDA_CHECK(&c->fault, cudaMemcpy(id, c->id, sizeof(int) * keep, cudaMemcpyDefault));
    }
    free_buffers(c);
    c->id = id;
    c->pos = pos;
    c->vel = vel;
    c->acc = acc;
    c->soa = soa;
    c->tags = tags;
    c->stage = stage;
    c->diag_partial = partial;
    c->capacity = n;
    return true;
}

/* Copies the leader's bodies (its state in the precision it holds, and the
 * tags) to every other GPU, GPU to GPU, and waits: they start equal. */
static void mirror(cuda_backend *c) {
    const size_t n = (size_t)c->n;
    for (int k = 1; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        CUDA_CHECK(&m->fault, cudaMemsetAsync(m->bad, 0xff, sizeof *m->bad, m->stream));
        if (c->fp64) {
            CUDA_CHECK(&m->fault, cudaMemcpyPeerAsync(m->pos64, m->device, c->pos64, c->device,
                                                      sizeof(double4a) * n, m->stream));
            CUDA_CHECK(&m->fault, cudaMemcpyPeerAsync(m->vel64, m->device, c->vel64, c->device,
                                                      sizeof(double4a) * n, m->stream));
        } else {
            CUDA_CHECK(&m->fault, cudaMemcpyPeerAsync(m->pos, m->device, c->pos, c->device,
                                                      sizeof(float4) * n, m->stream));
            CUDA_CHECK(&m->fault, cudaMemcpyPeerAsync(m->vel, m->device, c->vel, c->device,
                                                      sizeof(float4) * n, m->stream));
        }
        CUDA_CHECK(&m->fault,
                   cudaMemcpyPeerAsync(m->tags, m->device, c->tags, c->device, n, m->stream));
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        *m->bad_host = NO_BAD_STEP;
        m->bad_pending = false;
        m->bad_step = 0;
        m->n = c->n;
        m->acc_valid = false;
        m->best_fold = c->best_fold;
    }
    set_device(c);
}

/* Room for n bodies on every GPU. The others first: reserve_one replaces
 * buffers without their contents, so the leader, which keeps the bodies,
 * grows last, and when any GPU cannot, the others get the leader's old
 * bodies back (false keeps the old bodies, as on one GPU). */
static bool cuda_reserve(void *b, int n, sim_error *err) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread && n < c->member_count) {
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "%d bodies cannot be spread over %d GPUs: each needs one at least", n,
                     c->member_count);
            snprintf(err->hint, sizeof err->hint, "pass a larger --n, or fewer --gpus");
        }
        return false;
    }
    if (c->spread && n > c->spread_capacity) {
        int *index = (int *)malloc(sizeof(int) * (size_t)n);
        uint64_t *keys = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)n);
        if (!index || !keys) {
            free(index);
            free(keys);
            if (err) {
                snprintf(err->message, sizeof err->message,
                         "out of host memory to split %d bodies over the GPUs (%.1f MiB)", n,
                         12.0 * n / 1048576.0);
                snprintf(err->hint, sizeof err->hint, "try a smaller --n");
            }
            return false;
        }
        free(c->spread_index);
        free(c->spread_keys);
        c->spread_index = index;
        c->spread_keys = keys;
        c->spread_capacity = n;
    }
    bool ok = true;
    for (int k = c->member_count - 1; k >= 0 && ok; k--) {
        cuda_backend *m = member(c, k);
        set_device(m);
        /* Spread: GPU k's stretch of sim_spread_split's */
        const int mine = c->spread ? (int)((long long)(k + 1) * n / c->member_count -
                                           (long long)k * n / c->member_count)
                                   : n;
        ok = reserve_one(m, mine, err);
    }
    set_device(c);
    if (!ok && c->member_count > 1 && !c->spread) mirror(c);
    return ok;
}

/* Copies host bodies into the active state (float or double), in chunks of
 * STAGE_BODIES through the host buffer: converts a chunk, copies it, waits
 * for the copy before the buffer takes the next one. */
template <typename T, typename V = typename vec4<T>::type>
static void upload(cuda_backend *c, V *pos, V *vel, const sim_body *bodies, int n,
                   const int *index) {
    V *host = (V *)c->host_stage;
    uint8_t *tags = (uint8_t *)(host + 3 * STAGE_BODIES);
    for (int first = 0; first < n; first += STAGE_BODIES) {
        const int count = n - first < STAGE_BODIES ? n - first : STAGE_BODIES;
        for (int i = 0; i < count; i++) {
            const sim_body *b = &bodies[index ? index[first + i] : first + i];
            V &x = host[i], &v = host[STAGE_BODIES + i];
            x.x = (T)b->pos[0];
            x.y = (T)b->pos[1];
            x.z = (T)b->pos[2];
            x.w = (T)b->mass;
            v.x = (T)b->vel[0];
            v.y = (T)b->vel[1];
            v.z = (T)b->vel[2];
            v.w = 0;
            tags[i] = (uint8_t)b->tag;
        }
        CUDA_CHECK(&c->fault, cudaMemcpyAsync(pos + first, host, sizeof(V) * count,
                                              cudaMemcpyHostToDevice, c->stream));
        CUDA_CHECK(&c->fault, cudaMemcpyAsync(vel + first, host + STAGE_BODIES, sizeof(V) * count,
                                              cudaMemcpyHostToDevice, c->stream));
        CUDA_CHECK(&c->fault, cudaMemcpyAsync(c->tags + first, tags, (size_t)count,
                                              cudaMemcpyHostToDevice, c->stream));
        CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    }
}

/* Spread: each GPU its stretch of sim_spread_split's (float state only:
 * prepare_variant and set_precision keep the spread state in float). */
static void upload_spread(cuda_backend *c, const sim_body *bodies, int n) {
    sim_spread_split(bodies, n, c->member_count, c->spread_keys, c->spread_index, c->spread_first);
    c->spread_n = n;
    c->spread_ids_stale = false;
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        const int first = c->spread_first[k], mine = c->spread_first[k + 1] - first;
        CUDA_CHECK(&m->fault, cudaMemsetAsync(m->bad, 0xff, sizeof *m->bad, m->stream));
        upload<float>(m, m->pos, m->vel, bodies, mine, c->spread_index + first);
        CUDA_CHECK(&m->fault, cudaMemcpy(m->id, c->spread_index + first, sizeof(int) * (size_t)mine,
                                         cudaMemcpyHostToDevice));
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        *m->bad_host = NO_BAD_STEP;
        m->bad_pending = false;
        m->bad_step = 0;
        m->n = mine;
        m->acc_valid = false;
        if (m->tree) sim_tree_domains_forget(m->tree);
    }
    set_device(c);
}

static void cuda_upload(void *b, const sim_body *bodies, int n) {
    cuda_backend *c = (cuda_backend *)b;
    /* New bodies, no non-finite step yet. The wait below means no copy of
     * the old flag is in flight when the host copy is reset. */
    CUDA_CHECK(&c->fault, cudaMemsetAsync(c->bad, 0xff, sizeof *c->bad, c->stream));
    if (c->spread) {
        upload_spread(c, bodies, n);
        return;
    }
    if (c->fp64) {
        upload<double>(c, c->pos64, c->vel64, bodies, n, NULL);
    } else {
        upload<float>(c, c->pos, c->vel, bodies, n, NULL);
    }
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream)); /* also when n == 0 */
    *c->bad_host = NO_BAD_STEP;
    c->bad_pending = false;
    c->bad_step = 0;
    c->n = n;
    c->acc_valid = false;
    c->best_fold = true; /* best's folded loop needs every mass positive and in range */
    for (int i = 0; i < n && c->best_fold; i++) {
        c->best_fold = kernels_best_fold_mass(bodies[i].mass);
    }
    if (c->member_count > 1) mirror(c);
}

/* Moves the state to double (fp64 on) or back to float. */
static bool set_precision_one(cuda_backend *c, bool fp64, sim_error *err) {
    if (fp64 == c->fp64) return true;
    const int n = c->n, blocks = blocks_for(n, THREADS);
    if (fp64) {
        if (!reserve64(c, c->capacity, err)) return false;
        if (n > 0) {
            widen_kernel<<<blocks, THREADS, 0, c->stream>>>(n, c->pos, c->pos64);
            CUDA_CHECK_LAUNCH(&c->fault);
            widen_kernel<<<blocks, THREADS, 0, c->stream>>>(n, c->vel, c->vel64);
            CUDA_CHECK_LAUNCH(&c->fault);
        }
    } else if (n > 0) {
        narrow_kernel<<<blocks, THREADS, 0, c->stream>>>(n, c->pos64, c->pos);
        CUDA_CHECK_LAUNCH(&c->fault);
        narrow_kernel<<<blocks, THREADS, 0, c->stream>>>(n, c->vel64, c->vel);
        CUDA_CHECK_LAUNCH(&c->fault);
    }
    c->fp64 = fp64;
    c->acc_valid = false;
    return true;
}

/* Every GPU converts its own state (the same arithmetic on the same
 * numbers). When one has no room, those that switched switch back. */
static bool cuda_set_precision(void *b, bool fp64, sim_error *err) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread && fp64) {
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "the bodies spread over GPUs (--spread) are kept in float");
            snprintf(err->hint, sizeof err->hint, "drop --spread to run in double precision");
        }
        return false;
    }
    int done = 0;
    bool ok = true;
    for (; done < c->member_count && ok; done++) {
        cuda_backend *m = member(c, done);
        set_device(m);
        ok = set_precision_one(m, fp64, err);
    }
    for (int k = 0; !ok && k < done - 1; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        set_precision_one(m, !fp64, NULL); /* back to the buffers it came from: no allocation */
    }
    set_device(c);
    return ok;
}

/* acc_zero: acc holds zeros (a variant that sums into it then skips its memset).
 * potential: the tree also writes each body's potential (the others cannot).
 * share of shares: the part of the work this GPU does (force_args). */
static void compute_forces(cuda_backend *c, const sim_step_params *sp, bool acc_zero,
                           bool potential, int share, int shares, const double *tree_at) {
    const variant_entry *e = kernels_entry(sp->variant);
    force_args a = {};
    a.fault = &c->fault;
    a.acc_zero = acc_zero;
    a.n = c->n;
    a.pos = c->pos;
    a.acc = c->acc;
    a.pos64 = c->pos64;
    a.acc64 = c->acc64;
    a.eps2 = sp->eps2_kernel;
    a.eps2_64 = sp->eps2_kernel64;
    a.p = sp->p;
    a.q = sp->q;
    a.sm_count = c->sm_count;
    a.share = share;
    a.shares = shares;
    if (shares > 1) { /* the tree's: balance_tree's, else equal ones */
        a.share_from = tree_at ? tree_at[share] : (double)share / shares;
        a.share_to = tree_at ? tree_at[share + 1] : (double)(share + 1) / shares;
    }
    if (sp->variant == SIM_VARIANT_TREE) {
        /* prepare_variant made room: only a bug finds none */
        if (!c->tree) c->tree = sim_tree_create(c->sm_count, &c->fault);
        if (!c->tree) {
            sim_fault_record(&c->fault, -1, __FILE__, __LINE__, "sim_tree_create", "out of memory",
                             "cannot create the tree");
            return;
        }
        a.tree = c->tree;
        a.theta = (float)sp->theta; /* the tree kernel walks in float */
        a.potential = potential;
        a.alpha = (float)sp->tree_alpha;
        a.monopoles = !sp->tree_quadrupoles_only;
        a.acc_old = c->acc_valid; /* the last evaluation of these bodies */
    }
    if (e->id == SIM_VARIANT_BEST || e->id == SIM_VARIANT_FP64) {
        if (!c->best) c->best = kernels_best_plan_create();
        if (!c->best) {
            sim_fault_record(&c->fault, -1, __FILE__, __LINE__, "kernels_best_plan_create",
                             "out of host memory", "cannot create best's plan");
            return;
        }
        a.best = c->best;
        a.best_fold = c->best_fold;
    }
    if (e->reads_soa) {
        scatter_soa_kernel<<<blocks_for(c->n, THREADS), THREADS, 0, c->stream>>>(c->n, c->capacity,
                                                                                 c->pos, c->soa);
        CUDA_CHECK_LAUNCH(&c->fault);
        a.x = c->soa;
        a.y = c->soa + c->capacity;
        a.z = c->soa + 2 * c->capacity;
        a.m = c->soa + 3 * c->capacity;
    }
    e->launch(&a, c->stream);
    c->acc_valid = true;
    c->acc_potential = potential && sp->variant == SIM_VARIANT_TREE;
    c->acc_softening = sp->softening;
    c->acc_variant = sp->variant;
}

/* The tree's shares on several GPUs: equal stretches of the sorted bodies
 * at first (and for a new N or GPU count), then moved toward equal work
 * (sim_balance_shares) once every GPU's tree has counted the lane slots of
 * a walk with the current ones. A stretch's walk costs more where the
 * bodies are dense, and the sum waits for the last GPU. Lane slots rather
 * than the walk's time: the walk is bound by issue, the count is the same
 * run to run, and the evaluation a tree times is a call's first, whose
 * time also holds the host's launches (docs/PERFORMANCE.md, "Several
 * GPUs"). The forces do not depend on the shares: each group's walk is the
 * same on every GPU, and the others add zeros for it. */
static void tree_at_from_now(cuda_backend *c) {
    for (int k = 0; k < c->member_count; k++) {
        const cuda_backend *m = member(c, k);
        c->tree_at_since[k] = m->tree ? sim_tree_evaluations(m->tree) + 1 : 1;
    }
}

static void balance_tree(cuda_backend *c) {
    const int count = c->member_count;
    if (c->tree_at_n != c->n || c->tree_at_count != count) {
        for (int k = 0; k <= count; k++) c->tree_at[k] = (double)k / count;
        c->tree_at_n = c->n;
        c->tree_at_count = count;
        tree_at_from_now(c);
        return;
    }
    double w[SIM_MAX_GPUS];
    for (int k = 0; k < count; k++) {
        cuda_backend *m = member(c, k);
        if (!m->tree) {
            set_device(c);
            return;
        }
        set_device(m);
        const sim_tree_stats st = sim_tree_get_stats(m->tree);
        if (!st.valid || st.evaluation < c->tree_at_since[k] || !(st.walk_slots > 0)) {
            set_device(c);
            return;
        }
        w[k] = st.walk_slots;
    }
    set_device(c);
    double at[SIM_MAX_GPUS + 1];
    sim_balance_shares(c->tree_at, w, count, at);
    for (int j = 1; j < count; j++) c->tree_at[j] = at[j];
    tree_at_from_now(c);
}

/* A GPU's m leavers, listed in leave (grouped by the GPU they go to:
 * sim_tree_domains_split), packed into its next arrays for the others to
 * copy. */
__global__ void spread_pack_kernel(int m, const int *leave, const float4 *pos, const float4 *vel,
                                   const float4 *acc, const uint8_t *tags, const int *id,
                                   float4 *npos, float4 *nvel, float4 *nacc, uint8_t *ntags,
                                   int *nid) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int j = leave[i];
    npos[i] = pos[j];
    nvel[i] = vel[j];
    nacc[i] = acc[j];
    ntags[i] = tags[j];
    nid[i] = id[j];
}

/* Once they are packed: the stayers past the stayers' count into the
 * leavers' places below it, *count of them (device), at most m. */
__global__ void spread_fill_kernel(int m, const int *holes, const int *movers, const int *count,
                                   float4 *pos, float4 *vel, float4 *acc, uint8_t *tags, int *id) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m || i >= *count) return;
    const int to = holes[i], from = movers[i];
    pos[to] = pos[from];
    vel[to] = vel[from];
    acc[to] = acc[from];
    tags[to] = tags[from];
    id[to] = id[from];
}

/* Room in a GPU's next arrays for its capacity; false: no GPU memory. */
static bool next_room(cuda_backend *m) {
    if (m->next_capacity >= m->capacity) return true;
    CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
    free_next(m);
    const size_t n = (size_t)m->capacity;
    const bool ok = cudaMalloc(&m->next_pos, sizeof(float4) * n) == cudaSuccess &&
                    cudaMalloc(&m->next_vel, sizeof(float4) * n) == cudaSuccess &&
                    cudaMalloc(&m->next_acc, sizeof(float4) * n) == cudaSuccess &&
                    cudaMalloc(&m->next_tags, n) == cudaSuccess &&
                    cudaMalloc(&m->next_id, sizeof(int) * n) == cudaSuccess &&
                    cudaMalloc(&m->next_picked, sizeof(int)) == cudaSuccess;
    if (!ok) {
        cudaGetLastError();
        free_next(m);
        return false;
    }
    m->next_capacity = m->capacity;
    return true;
}

/* The bodies spread over the GPUs move as they orbit, and a GPU's bodies
 * that have drifted among another's make both trees' cells there overlap
 * (each body's walk then meets both): before each evaluation every body
 * goes to the GPU whose stretch of the Morton curve it is in now
 * (sim_tree_domains_split). The few that leave a GPU are packed into its
 * next arrays, grouped by where they go; its stayers from past the
 * stayers' count fill the holes they left, so the stayers keep a run from
 * 0 and most keep their places; each group is copied GPU to GPU after the
 * stayers of its new GPU, behind every GPU's packing. The bodies' indices
 * go with them; the host's copy is read back when something needs every
 * body in order (spread_index_now: bodies, potentials). */
static void spread_migrate(cuda_backend *c, const sim_tree_team *team) {
    const int count = c->member_count;
    int n[SIM_MAX_GPUS], sends[SIM_MAX_GPUS * SIM_MAX_GPUS], next_n[SIM_MAX_GPUS] = {0};
    const float4 *pos[SIM_MAX_GPUS];
    const int *leave[SIM_MAX_GPUS], *holes[SIM_MAX_GPUS], *movers[SIM_MAX_GPUS],
        *fill[SIM_MAX_GPUS];
    for (int k = 0; k < count; k++) n[k] = member(c, k)->n, pos[k] = member(c, k)->pos;
    if (!sim_tree_domains_split(team, n, pos, sends, leave, holes, movers, fill)) {
        return;
    }
    bool moves = false;
    for (int j = 0; j < count; j++) {
        for (int k = 0; k < count; k++) {
            next_n[k] += sends[j * count + k];
            moves = moves || (j != k && sends[j * count + k] > 0);
        }
    }
    if (!moves) return;
    for (int k = 0; k < count; k++) { /* room: a GPU that grows keeps its bodies */
        cuda_backend *m = member(c, k);
        set_device(m);
        sim_error err = {};
        const int want = next_n[k] > m->capacity ? next_n[k] + next_n[k] / 8 : m->capacity;
        /* Not the tree: the lists live in it (sim_tree_forces_domains
         * grows it when it builds). */
        const bool tree_on = m->tree_on;
        m->tree_on = false;
        const bool room = reserve_one(m, want, &err);
        m->tree_on = tree_on;
        if (!room || !next_room(m)) {
            sim_fault_record(&m->fault, (int)cudaErrorMemoryAllocation, __FILE__, __LINE__,
                             "spread_migrate", "cudaErrorMemoryAllocation",
                             "no GPU memory for the bodies that move between GPUs");
            set_device(c);
            return;
        }
    }
    sim_gang_each(team->gang, count, [&](int j) {
        cuda_backend *m = member(c, j);
        set_device(m);
        const int leavers = m->n - sends[j * count + j];
        if (leavers > 0) {
            spread_pack_kernel<<<blocks_for(leavers, THREADS), THREADS, 0, m->stream>>>(
                leavers, leave[j], m->pos, m->vel, m->acc, m->tags, m->id, m->next_pos, m->next_vel,
                m->next_acc, m->next_tags, m->next_id);
            CUDA_CHECK_LAUNCH(&m->fault);
            spread_fill_kernel<<<blocks_for(leavers, THREADS), THREADS, 0, m->stream>>>(
                leavers, holes[j], movers[j], fill[j], m->pos, m->vel, m->acc, m->tags, m->id);
            CUDA_CHECK_LAUNCH(&m->fault);
        }
        CUDA_CHECK(&m->fault, cudaEventRecord(m->moved, m->stream));
    });
    /* Into GPU k's arrays, behind every GPU's packing. */
    sim_gang_each(team->gang, count, [&](int k) {
        cuda_backend *to = member(c, k);
        set_device(to);
        for (int j = 0; j < count; j++) {
            CUDA_CHECK(&to->fault, cudaStreamWaitEvent(to->stream, member(c, j)->moved, 0));
        }
        size_t at = (size_t)sends[k * count + k];
        for (int j = 0; j < count; j++) {
            if (j == k) continue;
            const cuda_backend *from = member(c, j);
            size_t first = 0; /* GPU j's group for k: after its groups for GPUs below k */
            for (int d = 0; d < k; d++) first += d == j ? 0 : (size_t)sends[j * count + d];
            const size_t cnt = (size_t)sends[j * count + k];
            if (cnt == 0) continue;
            const int a = from->device, b = to->device;
            CUDA_CHECK(&to->fault, cudaMemcpyPeerAsync(to->pos + at, b, from->next_pos + first, a,
                                                       sizeof(float4) * cnt, to->stream));
            CUDA_CHECK(&to->fault, cudaMemcpyPeerAsync(to->vel + at, b, from->next_vel + first, a,
                                                       sizeof(float4) * cnt, to->stream));
            CUDA_CHECK(&to->fault, cudaMemcpyPeerAsync(to->acc + at, b, from->next_acc + first, a,
                                                       sizeof(float4) * cnt, to->stream));
            CUDA_CHECK(&to->fault, cudaMemcpyPeerAsync(to->tags + at, b, from->next_tags + first, a,
                                                       cnt, to->stream));
            CUDA_CHECK(&to->fault, cudaMemcpyPeerAsync(to->id + at, b, from->next_id + first, a,
                                                       sizeof(int) * cnt, to->stream));
            at += cnt;
        }
    });
    int first = 0;
    for (int k = 0; k < count; k++) {
        member(c, k)->n = next_n[k];
        c->spread_first[k] = first;
        first += next_n[k];
    }
    c->spread_first[count] = first;
    c->spread_ids_stale = true;
    set_device(c);
}

/* The host's index of every GPU's bodies, read back from the GPUs when
 * bodies have moved between them since (spread_migrate). */
static void spread_index_now(cuda_backend *c) {
    if (!c->spread_ids_stale) return;
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault,
                   cudaMemcpyAsync(c->spread_index + c->spread_first[k], m->id,
                                   sizeof(int) * (size_t)m->n, cudaMemcpyDeviceToHost, m->stream));
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
    }
    set_device(c);
    c->spread_ids_stale = false;
}

/* The tree on GPUs the bodies are spread over: each GPU's own bodies
 * through its own tree and the parts of the others' it needs
 * (sim_tree_forces_domains); no sum. */
static void forces_spread(cuda_backend *c, const sim_step_params *sp, bool potential, bool timed) {
    const int count = c->member_count;
    sim_tree_team team = {};
    team.count = count;
    team.gang = c->gang;
    int n[SIM_MAX_GPUS];
    const float4 *pos[SIM_MAX_GPUS];
    float4 *acc[SIM_MAX_GPUS];
    for (int k = 0; k < count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        /* prepare_variant made room: only a bug finds none */
        if (!m->tree) m->tree = sim_tree_create(m->sm_count, &m->fault);
        if (!m->tree) {
            sim_fault_record(&m->fault, -1, __FILE__, __LINE__, "sim_tree_create", "out of memory",
                             "cannot create the tree");
            set_device(c);
            return;
        }
        team.trees[k] = m->tree;
        team.devices[k] = m->device;
        n[k] = m->n;
        team.streams[k] = m->stream;
        pos[k] = m->pos;
        acc[k] = m->acc;
        if (timed) CUDA_CHECK(&m->fault, cudaEventRecord(m->forces_start, m->stream));
    }
    spread_migrate(c, &team);
    for (int k = 0; k < count; k++) { /* the GPUs' bodies after the move */
        const cuda_backend *m = member(c, k);
        n[k] = m->n;
        pos[k] = m->pos;
        acc[k] = m->acc;
    }
    sim_tree_params p = {};
    p.eps2 = sp->eps2_kernel;
    p.theta = (float)sp->theta; /* the tree kernel walks in float */
    p.group = sp->p;
    p.potential = potential;
    p.alpha = (float)sp->tree_alpha;
    p.monopoles = !sp->tree_quadrupoles_only;
    if (p.alpha > 0 && !c->acc_valid) {
        /* As forces_tree (sim_kernels.cu): a first pass by theta alone for
         * the relative criterion's reference |a|. */
        sim_tree_params first = p;
        first.alpha = 0;
        first.potential = false;
        first.untimed = true;
        sim_tree_forces_domains(&team, n, pos, acc, &first);
    }
    if (p.alpha > 0) p.acc_old = acc[0]; /* each GPU's own acc (sim_tree.h) */
    sim_tree_forces_domains(&team, n, pos, acc, &p);
    for (int k = 0; k < count && timed; k++) {
        c->pending_share[k] = c->spread_n > 0 ? (float)((double)n[k] / c->spread_n) : 0.0f;
    }
    for (int k = 0; k < count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        if (timed) CUDA_CHECK(&m->fault, cudaEventRecord(m->forces_stop, m->stream));
        m->acc_valid = true;
        m->acc_potential = potential;
        m->acc_softening = sp->softening;
        m->acc_variant = sp->variant;
    }
    set_device(c);
}

/* The forces on every GPU: each its share and one sum where the method
 * splits, else each all of them. timed: the first step of a timed call,
 * whose force evaluations and sum get events (sim_gpu_stats). */
static void forces_all(cuda_backend *c, const sim_step_params *sp, bool acc_zero, bool potential,
                       bool timed) {
    const int count = c->member_count;
    if (count <= 1) {
        compute_forces(c, sp, acc_zero, potential, 0, 1, NULL);
        return;
    }
    if (c->spread) { /* prepare_variant lets only the tree run spread */
        forces_spread(c, sp, potential, timed);
        return;
    }
    const bool split = kernels_method(sp->variant)->splits;
    const bool tree = split && sp->variant == SIM_VARIANT_TREE;
    if (tree) balance_tree(c);
    for (int k = 0; k < count && timed; k++) {
        c->pending_share[k] = tree ? (float)(c->tree_at[k + 1] - c->tree_at[k]) : 0.0f;
    }
    for (int k = 0; k < count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        if (timed) CUDA_CHECK(&m->fault, cudaEventRecord(m->forces_start, m->stream));
        compute_forces(m, sp, acc_zero, potential, split ? k : 0, split ? count : 1,
                       tree ? c->tree_at : NULL);
        if (timed) CUDA_CHECK(&m->fault, cudaEventRecord(m->forces_stop, m->stream));
    }
    set_device(c);
    if (!split) return;
    void *bufs[SIM_MAX_GPUS];
    cudaStream_t streams[SIM_MAX_GPUS];
    for (int k = 0; k < count; k++) {
        cuda_backend *m = member(c, k);
        bufs[k] = c->fp64 ? (void *)m->acc64 : (void *)m->acc;
        streams[k] = m->stream;
    }
    if (timed) CUDA_CHECK(&c->fault, cudaEventRecord(c->sum_start, c->stream));
    char what[200];
    if (!sim_nccl_sum(c->nccl, bufs, 4 * (size_t)c->n, c->fp64, streams, what, sizeof what)) {
        sim_fault_record(&c->fault, -1, __FILE__, __LINE__, "sim_nccl_sum", "NCCL", what);
    }
    set_device(c);
    if (timed) CUDA_CHECK(&c->fault, cudaEventRecord(c->sum_stop, c->stream));
}

static void ensure_forces(cuda_backend *c, const sim_step_params *sp) {
    if (!c->acc_valid || c->acc_softening != sp->softening || c->acc_variant != sp->variant) {
        forces_all(c, sp, false, true, false);
    }
}

/* Reads the last step's timing if its events have completed; never waits. */
static void harvest_timing(cuda_backend *c) {
    if (!c->timing_pending) return;
    cudaError_t e = cudaEventQuery(c->stop);
    if (e == cudaErrorNotReady) return;
    CUDA_CHECK(&c->fault, e);
    float ms = 0;
    CUDA_CHECK(&c->fault, cudaEventElapsedTime(&ms, c->start, c->stop));
    c->last_step_ms = ms / c->timed_steps;
    c->timing_pending = false;
}

/* One GPU's O(N) kernel of leapfrog (kick_drift_kernel) in the precision
 * of its state; the float one takes the knobs rounded to float. */
static void kick(cuda_backend *m, bool clear, double close, double damping, double open, double dt,
                 unsigned long long step) {
    const int blocks = blocks_for(m->n, THREADS);
    if (m->fp64) {
        kick_drift_kernel<double><<<blocks, THREADS, 0, m->stream>>>(
            m->n, m->pos64, m->vel64, m->acc64, clear, close, damping, open, dt, step, m->bad);
    } else {
        kick_drift_kernel<float><<<blocks, THREADS, 0, m->stream>>>(
            m->n, m->pos, m->vel, m->acc, clear, (float)close, (float)damping, (float)open,
            (float)dt, step, m->bad);
    }
    CUDA_CHECK_LAUNCH(&m->fault);
}

/* Kick-drift-kick, the kicks of consecutive steps fused, on every GPU. A
 * kick followed by a force evaluation that sums into acc (best, fp64)
 * clears acc as it reads it, so that evaluation needs no memset of its
 * own. The half step is rounded as the kernel's precision rounds dt: 0.5
 * dt in double rounds to float as 0.5f times dt rounded to float. */
static void leapfrog(cuda_backend *c, const sim_step_params *sp, int steps, bool timed) {
    const double dt = sp->dt, h = 0.5 * dt, damping = sp->damping;
    const unsigned long long first = (unsigned long long)sp->first_step;
    const bool sums = kernels_entry(sp->variant)->sums_acc;
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        kick(m, sums, 0, 1, h, dt, first);
        m->acc_potential = false; /* the bodies have moved */
    }
    for (int s = 0; s < steps; s++) {
        /* The potentials of the last evaluation only (unless the caller
         * wants none): those of the positions the call leaves, which
         * sim_energy reads. */
        forces_all(c, sp, sums, s + 1 == steps && !sp->no_potentials, timed && s == 0);
        for (int k = 0; k < c->member_count; k++) {
            cuda_backend *m = member(c, k);
            set_device(m);
            kick(m, sums && s + 1 < steps, h, damping, h, s + 1 < steps ? dt : 0, first + s + 1);
        }
        if (timed && s == 0) {
            set_device(c);
            CUDA_CHECK(&c->fault, cudaEventRecord(c->step_end, c->stream));
        }
    }
    /* The leader goes no further than the slowest GPU (a method that does
     * not split has no sum that would hold it back). */
    for (int k = 1; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaEventRecord(m->done, m->stream));
        CUDA_CHECK(&c->fault, cudaStreamWaitEvent(c->stream, m->done, 0));
    }
    /* The flag comes back behind the steps; cuda_nonfinite_step reads it
     * once the event says it has arrived. Every GPU's state is the
     * leader's, so the leader's flag is every GPU's, unless the bodies are
     * spread: then each GPU's flag is its own bodies'. */
    for (int k = c->spread ? c->member_count - 1 : 0; k >= 0; k--) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaMemcpyAsync(m->bad_host, m->bad, sizeof *m->bad,
                                              cudaMemcpyDeviceToHost, m->stream));
        CUDA_CHECK(&m->fault, cudaEventRecord(m->bad_ready, m->stream));
        m->bad_pending = true;
    }
}

/* Reads the per-GPU events of the last timed call once all have
 * completed; never waits. */
static void harvest_gpus(cuda_backend *c) {
    if (!c->gpus_pending) return;
    for (int k = 0; k < c->member_count; k++) {
        const cudaError_t e = cudaEventQuery(member(c, k)->forces_stop);
        if (e == cudaErrorNotReady) return;
        CUDA_CHECK(&c->fault, e);
    }
    const cudaError_t e = cudaEventQuery(c->step_end); /* after the sum, when there is one */
    if (e == cudaErrorNotReady) return;
    CUDA_CHECK(&c->fault, e);
    sim_gpu_stats *g = &c->gpu_stats;
    CUDA_CHECK(&c->fault, cudaEventElapsedTime(&g->step_ms, c->start, c->step_end));
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        CUDA_CHECK(&c->fault,
                   cudaEventElapsedTime(&g->forces_ms[k], m->forces_start, m->forces_stop));
    }
    for (int k = 0; k < c->member_count; k++) g->share[k] = c->pending_share[k];
    g->sum_ms = 0;
    g->split = c->pending_split;
    g->spread = c->spread;
    g->sum_bytes = c->pending_split && !c->spread ? c->pending_sum_bytes : 0;
    if (g->split && !c->spread) { /* spread: no sum */
        CUDA_CHECK(&c->fault, cudaEventElapsedTime(&g->sum_ms, c->sum_start, c->sum_stop));
    }
    g->measured = true;
    c->gpus_pending = false;
}

static void cuda_step(void *b, const sim_step_params *sp, int steps) {
    cuda_backend *c = (cuda_backend *)b;
    set_device(c);
    harvest_timing(c);
    harvest_gpus(c);
    ensure_forces(c, sp);
    const bool timed = !c->timing_pending;
    const bool timed_gpus = timed && c->member_count > 1 && !c->gpus_pending;
    if (timed) CUDA_CHECK(&c->fault, cudaEventRecord(c->start, c->stream));
    leapfrog(c, sp, steps, timed_gpus);
    if (timed_gpus) {
        c->gpus_pending = true;
        c->pending_split = kernels_method(sp->variant)->splits;
        c->pending_sum_bytes = (c->fp64 ? sizeof(double4a) : sizeof(float4)) * (double)c->n;
    }
    if (timed) {
        CUDA_CHECK(&c->fault, cudaEventRecord(c->stop, c->stream));
        c->timing_pending = true;
        c->timed_steps = steps;
    }
}

/* Copies the bodies back in chunks of STAGE_BODIES through the host buffer. */
template <typename T, typename V = typename vec4<T>::type>
static void download(cuda_backend *c, const V *pos, const V *vel, const V *acc, sim_body *out,
                     const int *index) {
    V *host = (V *)c->host_stage;
    for (int first = 0; first < c->n; first += STAGE_BODIES) {
        const int count = c->n - first < STAGE_BODIES ? c->n - first : STAGE_BODIES;
        const size_t bytes = sizeof(V) * count;
        CUDA_CHECK(&c->fault,
                   cudaMemcpyAsync(host, pos + first, bytes, cudaMemcpyDeviceToHost, c->stream));
        CUDA_CHECK(&c->fault, cudaMemcpyAsync(host + STAGE_BODIES, vel + first, bytes,
                                              cudaMemcpyDeviceToHost, c->stream));
        if (acc) {
            CUDA_CHECK(&c->fault, cudaMemcpyAsync(host + 2 * STAGE_BODIES, acc + first, bytes,
                                                  cudaMemcpyDeviceToHost, c->stream));
        }
        CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
        for (int i = 0; i < count; i++) {
            const V x = host[i], v = host[STAGE_BODIES + i];
            const V a = acc ? host[2 * STAGE_BODIES + i] : V{0, 0, 0, 0};
            out[index ? index[first + i] : first + i] =
                sim_body{{x.x, x.y, x.z}, {v.x, v.y, v.z}, {a.x, a.y, a.z}, x.w, 0};
        }
    }
}

static void cuda_download(void *b, sim_body *out, const sim_step_params *sp) {
    cuda_backend *c = (cuda_backend *)b;
    if (sp) ensure_forces(c, sp);
    if (c->spread) {
        spread_index_now(c);
        for (int k = 0; k < c->member_count; k++) {
            cuda_backend *m = member(c, k);
            set_device(m);
            download<float>(m, m->pos, m->vel, sp ? m->acc : NULL, out,
                            c->spread_index + c->spread_first[k]);
        }
        set_device(c);
    } else if (c->fp64) {
        download<double>(c, c->pos64, c->vel64, sp ? c->acc64 : NULL, out, NULL);
    } else {
        download<float>(c, c->pos, c->vel, sp ? c->acc : NULL, out, NULL);
    }
}

/* Spread, drawing every stride-th body: a GPU's drawn bodies packed, each
 * with its place in the drawing. pick: this thread's body is drawn; its
 * index in the pack, one atomic a warp (every lane of the warp calls it). */
__device__ int pick_place(bool pick, int *count) {
    const unsigned lanes = __ballot_sync(0xffffffffu, pick);
    const int lane = (int)(threadIdx.x & 31);
    int first = 0;
    if (lane == 0 && lanes) first = atomicAdd(count, __popc(lanes));
    first = __shfl_sync(0xffffffffu, first, 0);
    return first + __popc(lanes & ((1u << lane) - 1u));
}

/* vertices_kernel on a GPU of spread bodies: body i (index id[i]) is drawn
 * when its index is a multiple of stride, at place id[i] / stride. */
__global__ void vertices_pick_kernel(int n, const float4 *pos, const float4 *vel, const int *id,
                                     int stride, int *count, float4 *out, int *place) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int index = i < n ? id[i] : 0;
    const bool pick = i < n && index % stride == 0;
    const int at = pick_place(pick, count);
    if (!pick) return;
    out[at] = vertex_of(pos[i], vel[i]);
    place[at] = index / stride;
}

/* The drawn values put in drawing order: dst[place[i]] = src[i]. */
template <typename T>
__global__ void spread_scatter_kernel(int n, const T *src, const int *place, T *dst) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[place[i]] = src[i];
}

/* Before a GPU's drawing kernels write its stage and next_id: every GPU's
 * stream waits for the work queued on the others (a step's bodies are
 * copied from their next arrays by the GPUs they move to). */
static void spread_barrier(cuda_backend *c) {
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaEventRecord(m->moved, m->stream));
    }
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        for (int j = 0; j < c->member_count; j++) {
            if (j != k)
                CUDA_CHECK(&m->fault, cudaStreamWaitEvent(m->stream, member(c, j)->moved, 0));
        }
        CUDA_CHECK(&m->fault, cudaMemsetAsync(m->next_picked, 0, sizeof(int), m->stream));
    }
    set_device(c);
}

/* Room to draw `drawn` bodies spread: the leader's gather buffers, made on
 * first use (a benchmark never pays for them), and every GPU's next arrays
 * (where its drawn bodies' places wait); then spread_barrier. false: no
 * GPU memory (a fault; sim_failed). */
static bool spread_gather_room(cuda_backend *c, int drawn) {
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        if (!next_room(m)) {
            sim_fault_record(&m->fault, (int)cudaErrorMemoryAllocation, __FILE__, __LINE__,
                             "spread_gather_room", "cudaErrorMemoryAllocation",
                             "no GPU memory to pick the bodies drawn");
            set_device(c);
            return false;
        }
    }
    set_device(c);
    if (!c->gathered)
        CUDA_CHECK(&c->fault, cudaEventCreateWithFlags(&c->gathered, cudaEventDisableTiming));
    if (drawn > c->gather_capacity) {
        CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
        CUDA_CHECK(&c->fault, cudaFree(c->spread_gather));
        CUDA_CHECK(&c->fault, cudaFree(c->spread_place));
        c->spread_gather = NULL;
        c->spread_place = NULL;
        c->gather_capacity = 0;
        if (cudaMalloc(&c->spread_gather, sizeof(float4) * (size_t)drawn) != cudaSuccess ||
            cudaMalloc(&c->spread_place, sizeof(int) * (size_t)drawn) != cudaSuccess) {
            cudaGetLastError();
            sim_fault_record(&c->fault, (int)cudaErrorMemoryAllocation, __FILE__, __LINE__,
                             "spread_gather_room", "cudaErrorMemoryAllocation",
                             "no GPU memory on the first GPU to gather the bodies drawn");
            return false;
        }
        c->gather_capacity = drawn;
    }
    spread_barrier(c);
    return true;
}

/* Spread: every GPU's drawn values (packed in its stage by a pick kernel,
 * their places in its next_id) into dst[0 .. drawn) in drawing order:
 * device memory on the leader, queued on its stream, or host memory,
 * waited for. Waits for the GPUs' counts; each GPU's later work waits for
 * the copies out of its stage. */
template <typename T>
static void spread_collect(cuda_backend *c, int drawn, T *dst, bool dst_on_device) {
    int count[SIM_MAX_GPUS] = {0};
    long long total = 0;
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaMemcpyAsync(&count[k], m->next_picked, sizeof(int),
                                              cudaMemcpyDeviceToHost, m->stream));
    }
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        total += count[k];
    }
    set_device(c);
    if (total != drawn) { /* a body lost or doubled between GPUs */
        char what[160];
        snprintf(what, sizeof what, "the GPUs hold %lld of the %d bodies drawn", total, drawn);
        sim_fault_record(&c->fault, -1, __FILE__, __LINE__, "spread_collect", "bodies lost", what);
        return;
    }
    T *gather = (T *)c->spread_gather;
    size_t at = 0;
    for (int k = 0; k < c->member_count; k++) {
        const cuda_backend *m = member(c, k);
        if (count[k] == 0) continue;
        const size_t cnt = (size_t)count[k];
        CUDA_CHECK(&c->fault, cudaMemcpyPeerAsync(gather + at, c->device, m->stage, m->device,
                                                  sizeof(T) * cnt, c->stream));
        CUDA_CHECK(&c->fault, cudaMemcpyPeerAsync(c->spread_place + at, c->device, m->next_id,
                                                  m->device, sizeof(int) * cnt, c->stream));
        at += cnt;
    }
    CUDA_CHECK(&c->fault, cudaEventRecord(c->gathered, c->stream));
    for (int k = 1; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaStreamWaitEvent(m->stream, c->gathered, 0));
    }
    set_device(c);
    if (dst_on_device) {
        spread_scatter_kernel<T><<<blocks_for(drawn, THREADS), THREADS, 0, c->stream>>>(
            drawn, gather, c->spread_place, dst);
        CUDA_CHECK_LAUNCH(&c->fault);
        return;
    }
    T *values = (T *)malloc(sizeof(T) * (size_t)drawn);
    int *place = (int *)malloc(sizeof(int) * (size_t)drawn);
    if (!values || !place) {
        free(values);
        free(place);
        sim_fault_record(&c->fault, -1, __FILE__, __LINE__, "spread_collect", "out of host memory",
                         "no host memory to gather the bodies drawn");
        return;
    }
    CUDA_CHECK(&c->fault, cudaMemcpyAsync(values, gather, sizeof(T) * (size_t)drawn,
                                          cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(&c->fault, cudaMemcpyAsync(place, c->spread_place, sizeof(int) * (size_t)drawn,
                                          cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    for (int j = 0; j < drawn; j++) memcpy(&dst[place[j]], &values[j], sizeof *dst);
    free(values);
    free(place);
}

/* cuda_vertices with the bodies spread: each GPU picks its drawn bodies,
 * the leader gathers them and puts them in drawing order. */
static void vertices_spread(cuda_backend *c, sim_vertex *dst, bool dst_on_device, bool wait,
                            int stride) {
    const int drawn = (int)(((long long)c->spread_n + stride - 1) / stride);
    if (drawn <= 0 || !spread_gather_room(c, drawn)) return;
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        if (m->n <= 0) continue;
        set_device(m);
        vertices_pick_kernel<<<blocks_for(m->n, THREADS), THREADS, 0, m->stream>>>(
            m->n, m->pos, m->vel, m->id, stride, m->next_picked, (float4 *)m->stage, m->next_id);
        CUDA_CHECK_LAUNCH(&m->fault);
    }
    spread_collect<float4>(c, drawn, (float4 *)dst, dst_on_device);
    if (dst_on_device && wait) CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
}

/* Writes the vertices and waits for them, whether dst is the host (the
 * caller reads it when this returns) or device memory (the zero-copy interop
 * path). For device memory the wait is not needed for correctness: the
 * stream is a blocking one (cudaStreamCreate), so the interop unmap on the
 * legacy default stream orders the kernel before GL's use of the buffer.
 * It is there for speed: leaving the wait to the unmap made whole frames
 * slower, since the driver's wait behind the unmap is slower than this one
 * (measured: docs/PERFORMANCE.md, "How we got here", the frame's waits).
 * Without wait (sim_queue_vertices) the caller waits later,
 * after more work on the legacy stream. */
static void cuda_vertices(void *b, sim_vertex *dst, bool dst_on_device, bool wait, int stride) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread) {
        vertices_spread(c, dst, dst_on_device, wait, stride);
        return;
    }
    const int drawn = (int)(((long long)c->n + stride - 1) / stride);
    float4 *out = dst_on_device ? (float4 *)dst : (float4 *)c->stage;
    const int blocks = blocks_for(drawn, THREADS);
    if (drawn > 0 && c->fp64) {
        vertices_kernel<double>
            <<<blocks, THREADS, 0, c->stream>>>(drawn, stride, c->pos64, c->vel64, out);
    } else if (drawn > 0) {
        vertices_kernel<float>
            <<<blocks, THREADS, 0, c->stream>>>(drawn, stride, c->pos, c->vel, out);
    }
    CUDA_CHECK_LAUNCH(&c->fault);
    if (!dst_on_device) {
        CUDA_CHECK(&c->fault, cudaMemcpyAsync(dst, c->stage, sizeof(sim_vertex) * drawn,
                                              cudaMemcpyDeviceToHost, c->stream));
    }
    if (wait || !dst_on_device) CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
}

/* The diagnostics' kernels and the copy of their totals to dst (host
 * memory), queued behind the work queued so far; the potential they sum. */
static sim_potential_source queue_sums(cuda_backend *c, const sim_step_params *sp,
                                       sim_potential_source source, double *dst) {
    const double eps2 = sp->eps2;
    const bool walk = source == SIM_POTENTIAL_WALK && sp->variant == SIM_VARIANT_TREE;
    if (walk && !(c->acc_valid && c->acc_potential && c->acc_variant == SIM_VARIANT_TREE &&
                  c->acc_softening == sp->softening)) {
        forces_all(c, sp, false, true, false); /* no pass at these positions yet */
    }
    if (source == SIM_POTENTIAL_WALK && !walk) source = SIM_POTENTIAL_EXACT;
    const bool exact = source == SIM_POTENTIAL_EXACT;
    /* Without the O(N^2) potential a few blocks a multiprocessor, each
     * thread adding up several bodies, leave diag_total_kernel little. */
    const int all = blocks_for(c->n, DIAG_THREADS), few = DIAG_BLOCKS_PER_SM * c->sm_count;
    const int blocks = exact || all < few ? all : few;
    if (c->fp64) {
        diag_partial_kernel<double>
            <<<blocks, DIAG_THREADS, 0, c->stream>>>(c->n, c->pos64, c->vel64, c->tags, eps2, exact,
                                                     (decltype(c->pos64))nullptr, c->diag_partial);
    } else {
        diag_partial_kernel<float><<<blocks, DIAG_THREADS, 0, c->stream>>>(
            c->n, c->pos, c->vel, c->tags, (float)eps2, exact, walk ? c->acc : nullptr,
            c->diag_partial);
    }
    CUDA_CHECK_LAUNCH(&c->fault);
    diag_total_kernel<<<1, DIAG_THREADS, 0, c->stream>>>(blocks, c->diag_partial);
    CUDA_CHECK_LAUNCH(&c->fault);
    CUDA_CHECK(&c->fault,
               cudaMemcpyAsync(dst, c->diag_partial + blocks * DIAG_COUNT,
                               sizeof(double) * DIAG_COUNT, cudaMemcpyDeviceToHost, c->stream));
    return source;
}

/* The diagnostics of the totals t. */
static sim_diag diag_of(const double *t, sim_potential_source source) {
    sim_diag d = {};
    d.source = source;
    d.kinetic = t[DIAG_KINETIC];
    d.potential = t[DIAG_POTENTIAL];
    d.mass = t[DIAG_MASS];
    for (int k = 0; k < 3; k++) {
        d.momentum[k] = t[DIAG_P + k];
        d.angular_momentum[k] = t[DIAG_L + k];
        d.center_of_mass[k] = t[DIAG_MR + k];
    }
    for (int g = 0; g < 2; g++) {
        d.galaxy_mass[g] = t[DIAG_GALAXY + 7 * g];
        for (int k = 0; k < 3; k++) {
            d.galaxy_com[g][k] = t[DIAG_GALAXY + 7 * g + 1 + k];
            d.galaxy_vel[g][k] = t[DIAG_GALAXY + 7 * g + 4 + k];
        }
    }
    sim_diag_finish(&d);
    return d;
}

/* The diagnostics with the bodies spread: every sum is one over bodies,
 * so each GPU sums its own and the host adds them; waits. The potential is
 * the walk's (an exact O(N^2) pass over spread bodies is not built). */
static sim_diag diagnostics_spread(cuda_backend *c, const sim_step_params *sp,
                                   sim_potential_source source) {
    if (source != SIM_POTENTIAL_NONE) {
        source = SIM_POTENTIAL_WALK;
        if (!(c->acc_valid && c->acc_potential && c->acc_variant == SIM_VARIANT_TREE &&
              c->acc_softening == sp->softening)) {
            forces_all(c, sp, false, true, false); /* every GPU's acc now holds potentials */
        }
    }
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        queue_sums(m, sp, source, m->diag_host);
    }
    double t[DIAG_COUNT] = {0};
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        for (int j = 0; j < DIAG_COUNT; j++) t[j] += m->diag_host[j];
    }
    set_device(c);
    return diag_of(t, source);
}

static sim_diag cuda_diagnostics(void *b, const sim_step_params *sp, sim_potential_source source) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread) return diagnostics_spread(c, sp, source);
    double t[DIAG_COUNT];
    source = queue_sums(c, sp, source, t);
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    return diag_of(t, source);
}

/* The same, into pinned memory, with an event after it: not waited for
 * here (a later cuda_diagnostics leaves these sums alone). */
static void cuda_diagnostics_queue(void *b, const sim_step_params *sp,
                                   sim_potential_source source) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread) { /* computed now (it waits); collect hands them over */
        c->spread_diag = diagnostics_spread(c, sp, source);
        c->diag_queued = true;
        return;
    }
    c->diag_source = queue_sums(c, sp, source, c->diag_host);
    CUDA_CHECK(&c->fault, cudaEventRecord(c->diag_ready, c->stream));
    c->diag_queued = true;
}

/* The sums cuda_diagnostics_queue queued, waiting for them alone; source
 * NONE when none were. */
static sim_diag cuda_diagnostics_collect(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    if (!c->diag_queued) {
        const sim_diag none = {};
        return none;
    }
    if (c->spread) {
        c->diag_queued = false;
        return c->spread_diag;
    }
    CUDA_CHECK(&c->fault, cudaEventSynchronize(c->diag_ready));
    c->diag_queued = false;
    return diag_of(c->diag_host, c->diag_source);
}

/* Each body's potential into out[i].w (sim_get_potentials): walk_phi[i].w
 * where the tree's walk wrote it, else the exact sum over the other bodies,
 * tiled as diag_partial_kernel does (the same pairs skipped). */
template <typename T, typename V = typename vec4<T>::type>
__global__ void potentials_kernel(int n, const V *pos, T eps2, const float4 *walk_phi,
                                  float4 *out) {
    __shared__ V tile[DIAG_THREADS];
    const int i = blockIdx.x * DIAG_THREADS + threadIdx.x;
    V zero;
    zero.x = zero.y = zero.z = zero.w = 0;
    const V xi = i < n ? pos[i] : zero;
    double phi = walk_phi && i < n ? (double)walk_phi[i].w : 0.0;
    if (!walk_phi) phi += tile_potential<T>(n, pos, eps2, i, xi, tile);
    if (i < n) out[i].w = (float)phi;
}

/* sim_get_potentials: the tree's walk (made now when there is none at these
 * positions) where it runs in float, else the exact pass; written into the
 * host-copy staging buffer's w, then copied out strided. */
/* cuda_potentials with the bodies spread: the walk's, each GPU's copied
 * back and put in body order on the host. */
static sim_potential_source potentials_spread(cuda_backend *c, const sim_step_params *sp,
                                              float *out) {
    if (c->spread_n <= 0) return SIM_POTENTIAL_NONE;
    if (!(c->acc_valid && c->acc_potential && c->acc_variant == SIM_VARIANT_TREE &&
          c->acc_softening == sp->softening)) {
        forces_all(c, sp, false, true, false);
    }
    spread_index_now(c);
    int most = 0;
    for (int k = 0; k < c->member_count; k++) most = std::max(most, member(c, k)->n);
    float *host = (float *)malloc(sizeof(float) * (size_t)most);
    if (!host) {
        sim_fault_record(&c->fault, -1, __FILE__, __LINE__, "potentials_spread",
                         "out of host memory", "no host memory to gather the potentials");
        return SIM_POTENTIAL_NONE;
    }
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        CUDA_CHECK(&m->fault, cudaMemcpy2DAsync(host, sizeof(float), &m->acc[0].w, sizeof(float4),
                                                sizeof(float), (size_t)m->n, cudaMemcpyDeviceToHost,
                                                m->stream));
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        const int *index = c->spread_index + c->spread_first[k];
        for (int j = 0; j < m->n; j++) out[index[j]] = host[j];
    }
    set_device(c);
    free(host);
    return SIM_POTENTIAL_WALK;
}

static sim_potential_source cuda_potentials(void *b, const sim_step_params *sp, float *out) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread) return potentials_spread(c, sp, out);
    if (c->n <= 0) return SIM_POTENTIAL_NONE;
    const int blocks = blocks_for(c->n, DIAG_THREADS);
    const bool walk = sp->variant == SIM_VARIANT_TREE && !c->fp64;
    if (walk && !(c->acc_valid && c->acc_potential && c->acc_variant == SIM_VARIANT_TREE &&
                  c->acc_softening == sp->softening)) {
        forces_all(c, sp, false, true, false); /* no pass at these positions yet */
    }
    float4 *stage = (float4 *)c->stage;
    if (c->fp64) {
        potentials_kernel<double><<<blocks, DIAG_THREADS, 0, c->stream>>>(c->n, c->pos64, sp->eps2,
                                                                          nullptr, stage);
    } else {
        potentials_kernel<float><<<blocks, DIAG_THREADS, 0, c->stream>>>(
            c->n, c->pos, (float)sp->eps2, walk ? c->acc : nullptr, stage);
    }
    CUDA_CHECK_LAUNCH(&c->fault);
    CUDA_CHECK(&c->fault, cudaMemcpy2DAsync(out, sizeof(float), &stage[0].w, sizeof(float4),
                                            sizeof(float), (size_t)c->n, cudaMemcpyDeviceToHost,
                                            c->stream));
    CUDA_CHECK(&c->fault, cudaStreamSynchronize(c->stream));
    return walk ? SIM_POTENTIAL_WALK : SIM_POTENTIAL_EXACT;
}

/* sim_radial_velocities, in two launches on the simulation's stream and no
 * wait. galaxy_sums_kernel adds, per galaxy (the tag's 2 bits: 4), the mass
 * and the mass-weighted position and velocity, in double: each thread over
 * its bodies in registers, then across its warp by shuffles, its block in
 * shared memory, and one atomic add per block and sum into sums[4 x 7]
 * (cleared before), so a galaxy's few sums are not contended per body.
 * radial_kernel then divides them (as app_colour_radial does) and projects
 * each body's velocity on its direction from its galaxy's centre. */
#define RADIAL_SUMS 7 /* mass, m x, m v */
#define RADIAL_THREADS 256
template <typename T, typename V = typename vec4<T>::type>
__global__ void __launch_bounds__(RADIAL_THREADS)
    galaxy_sums_kernel(int n, const V *pos, const V *vel, const uint8_t *tags, double *sums) {
    __shared__ double sh[4 * RADIAL_SUMS];
    for (int k = threadIdx.x; k < 4 * RADIAL_SUMS; k += RADIAL_THREADS) sh[k] = 0.0;
    double acc[4 * RADIAL_SUMS];
#pragma unroll
    for (int k = 0; k < 4 * RADIAL_SUMS; k++) acc[k] = 0.0;
    for (int i = blockIdx.x * RADIAL_THREADS + threadIdx.x; i < n;
         i += gridDim.x * RADIAL_THREADS) {
        const V x = pos[i], v = vel[i];
        const double m = x.w;
        const double w[RADIAL_SUMS] = {m, m * x.x, m * x.y, m * x.z, m * v.x, m * v.y, m * v.z};
        const int g = (int)SIM_TAG_GALAXY(tags[i]);
        /* Unrolled over the galaxies so acc stays in registers. */
#pragma unroll
        for (int h = 0; h < 4; h++) {
#pragma unroll
            for (int k = 0; k < RADIAL_SUMS; k++) acc[RADIAL_SUMS * h + k] += g == h ? w[k] : 0.0;
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 4 * RADIAL_SUMS; k++) {
        double a = acc[k];
        for (int o = 16; o > 0; o >>= 1) a += __shfl_down_sync(0xffffffffu, a, o);
        if ((threadIdx.x & 31) == 0 && a != 0.0) atomicAdd(&sh[k], a);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < 4 * RADIAL_SUMS; k += RADIAL_THREADS) {
        if (sh[k] != 0.0) atomicAdd(sums + k, sh[k]);
    }
}

/* A body's radial velocity about its galaxy's centre (the sums). */
template <typename V>
__device__ float radial_of(const V x, const V v, uint8_t tag, const double *sums) {
    const double *g = sums + RADIAL_SUMS * SIM_TAG_GALAXY(tag);
    const double m = g[0] > 0 ? g[0] : 1.0; /* a galaxy with a body has mass */
    const double dx = x.x - g[1] / m, dy = x.y - g[2] / m, dz = x.z - g[3] / m;
    const double dvx = v.x - g[4] / m, dvy = v.y - g[5] / m, dvz = v.z - g[6] / m;
    const double r2 = dx * dx + dy * dy + dz * dz;
    return r2 > 0 ? (float)((dx * dvx + dy * dvy + dz * dvz) / sqrt(r2)) : 0.0f;
}

/* Value j of `drawn`: body j * stride's. */
template <typename T, typename V = typename vec4<T>::type>
__global__ void radial_kernel(int drawn, int stride, const V *pos, const V *vel,
                              const uint8_t *tags, const double *sums, float *out) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= drawn) return;
    const int i = j * stride;
    out[j] = radial_of(pos[i], vel[i], tags[i], sums);
}

/* radial_kernel on a GPU of spread bodies (vertices_pick_kernel's picks). */
__global__ void radial_pick_kernel(int n, const float4 *pos, const float4 *vel, const uint8_t *tags,
                                   const double *sums, const int *id, int stride, int *count,
                                   float *out, int *place) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int index = i < n ? id[i] : 0;
    const bool pick = i < n && index % stride == 0;
    const int at = pick_place(pick, count);
    if (!pick) return;
    out[at] = radial_of(pos[i], vel[i], tags[i], sums);
    place[at] = index / stride;
}

/* The sums go in diag_partial's first 28 doubles: it holds at least
 * 2 x DIAG_COUNT, and every use of it is on this stream. */
/* cuda_radial with the bodies spread: the galaxies' sums added over the
 * GPUs on the host (so this one waits), each GPU's drawn bodies' values
 * gathered in drawing order on the leader (spread_collect). */
static void radial_spread(cuda_backend *c, float *out, int stride) {
    const int drawn = (int)(((long long)c->spread_n + stride - 1) / stride);
    if (drawn <= 0 || !spread_gather_room(c, drawn)) return;
    double total[4 * RADIAL_SUMS] = {0};
    double host[4 * RADIAL_SUMS];
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        double *sums = m->diag_partial;
        const int blocks = blocks_for(m->n, RADIAL_THREADS);
        CUDA_CHECK(&m->fault,
                   cudaMemsetAsync(sums, 0, sizeof(double) * 4 * RADIAL_SUMS, m->stream));
        if (m->n > 0) {
            galaxy_sums_kernel<float>
                <<<std::min(blocks, 2 * m->sm_count), RADIAL_THREADS, 0, m->stream>>>(
                    m->n, m->pos, m->vel, m->tags, sums);
            CUDA_CHECK_LAUNCH(&m->fault);
        }
        CUDA_CHECK(&m->fault, cudaMemcpyAsync(host, sums, sizeof(double) * 4 * RADIAL_SUMS,
                                              cudaMemcpyDeviceToHost, m->stream));
        CUDA_CHECK(&m->fault, cudaStreamSynchronize(m->stream));
        for (int j = 0; j < 4 * RADIAL_SUMS; j++) total[j] += host[j];
    }
    for (int k = 0; k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        double *sums = m->diag_partial;
        CUDA_CHECK(&m->fault, cudaMemcpy(sums, total, sizeof total, cudaMemcpyHostToDevice));
        if (m->n > 0) {
            radial_pick_kernel<<<blocks_for(m->n, RADIAL_THREADS), RADIAL_THREADS, 0, m->stream>>>(
                m->n, m->pos, m->vel, m->tags, sums, m->id, stride, m->next_picked,
                (float *)m->stage, m->next_id);
            CUDA_CHECK_LAUNCH(&m->fault);
        }
    }
    spread_collect<float>(c, drawn, out, true);
}

static void cuda_radial(void *b, float *out, int stride) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread) {
        radial_spread(c, out, stride);
        return;
    }
    if (c->n <= 0) return;
    const int drawn = (int)(((long long)c->n + stride - 1) / stride);
    static_assert(4 * RADIAL_SUMS <= 2 * DIAG_COUNT, "the sums fit diag_partial");
    double *sums = c->diag_partial;
    const int threads = RADIAL_THREADS, blocks = blocks_for(c->n, threads);
    const int sum_blocks = blocks < 2 * c->sm_count ? blocks : 2 * c->sm_count;
    CUDA_CHECK(&c->fault, cudaMemsetAsync(sums, 0, sizeof(double) * 4 * RADIAL_SUMS, c->stream));
    if (c->fp64) {
        galaxy_sums_kernel<double>
            <<<sum_blocks, threads, 0, c->stream>>>(c->n, c->pos64, c->vel64, c->tags, sums);
        CUDA_CHECK_LAUNCH(&c->fault);
        radial_kernel<double><<<blocks_for(drawn, threads), threads, 0, c->stream>>>(
            drawn, stride, c->pos64, c->vel64, c->tags, sums, out);
    } else {
        galaxy_sums_kernel<float>
            <<<sum_blocks, threads, 0, c->stream>>>(c->n, c->pos, c->vel, c->tags, sums);
        CUDA_CHECK_LAUNCH(&c->fault);
        radial_kernel<float><<<blocks_for(drawn, threads), threads, 0, c->stream>>>(
            drawn, stride, c->pos, c->vel, c->tags, sums, out);
    }
    CUDA_CHECK_LAUNCH(&c->fault);
}

static float cuda_last_step_ms(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    harvest_timing(c);
    return c->last_step_ms;
}

static void cuda_wait_timing(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->timing_pending) CUDA_CHECK(&c->fault, cudaEventSynchronize(c->stop));
    harvest_timing(c);
}

/* The flag's latest copy, if it has arrived; never waits. The event is
 * recorded after the last copy queued, so when it has completed no copy
 * into bad_host is in flight. */
static int64_t nonfinite_one(cuda_backend *c) {
    if (c->bad_step == 0 && c->bad_pending) {
        const cudaError_t e = cudaEventQuery(c->bad_ready);
        if (e == cudaErrorNotReady) return 0;
        CUDA_CHECK(&c->fault, e);
        c->bad_pending = false;
        if (*c->bad_host != NO_BAD_STEP) c->bad_step = (int64_t)*c->bad_host;
    }
    return c->bad_step;
}

/* Spread, the first step any GPU's flag names. */
static int64_t cuda_nonfinite_step(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    int64_t first = 0;
    for (int k = 0; k < (c->spread ? c->member_count : 1); k++) {
        const int64_t s = nonfinite_one(member(c, k));
        if (s > 0 && (first == 0 || s < first)) first = s;
    }
    return first;
}

/* What cuda_reserve, reserve64 and the tree allocate for n bodies (the
 * same sums), and the device's free memory. */
static void cuda_memory(void *b, int n, sim_variant v, sim_memory *out) {
    cuda_backend *c = (cuda_backend *)b;
    /* Spread: the largest GPU's stretch, with no scalar arrays and a tree
     * with room for what the others send; the leader's buffers for drawing
     * come on first use, a drawn body's value and place. */
    if (c->spread) n = (int)(((long long)n + c->member_count - 1) / c->member_count);
    if (c->spread) out->device_draw = sizeof(float4) + sizeof(int);
    const double partial = sizeof(double) * DIAG_COUNT * (blocks_for(n, DIAG_THREADS) + 1);
    /* Spread: each body's index, and the arrays it moves through
     * (spread_migrate): 3 float4, a tag and an index. */
    const double spread_bytes = 2 * sizeof(int) + 3 * sizeof(float4) + 1;
    double need = (3 * sizeof(float4) + (c->spread ? spread_bytes : 4 * sizeof(float)) +
                   sizeof(sim_vertex) + 1) *
                      (double)n +
                  partial;
    if (sim_variant_info(v)->fp64) need += 3.0 * sizeof(double4a) * n;
    if (v == SIM_VARIANT_TREE) {
        need += (double)sim_tree_bytes(c->tree, c->spread ? sim_tree_domain_room(n) : n);
    }
    out->device_need += need;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        free_b = 0;
    }
    out->device_free = (double)free_b;
}

static void cuda_invalidate(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    for (int k = 0; k < c->member_count; k++) member(c, k)->acc_valid = false;
}

static bool cuda_prepare_variant(void *b, sim_variant v, sim_error *err) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread && v != SIM_VARIANT_TREE) {
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "%s needs every body on each GPU; with --spread each GPU holds its own",
                     sim_variant_info(v)->name);
            snprintf(err->hint, sizeof err->hint,
                     "only the tree runs spread: keep --variant tree, or drop --spread");
        }
        return false;
    }
    bool ok = true;
    for (int k = 0; k < c->member_count && ok; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        const int n = m->capacity > m->n ? m->capacity : m->n; /* spread: its own bodies */
        ok = v != SIM_VARIANT_TREE || reserve_tree(m, n, err);
    }
    set_device(c);
    if (!ok) return false;
    for (int k = 0; k < c->member_count; k++) member(c, k)->tree_on = v == SIM_VARIANT_TREE;
    return true;
}

static sim_tree_stats cuda_tree_stats(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    if (!c->tree || c->acc_variant != SIM_VARIANT_TREE) return sim_tree_stats{};
    return sim_tree_get_stats(c->tree);
}

static int cuda_tree_cells(void *b, int max_depth, sim_tree_cell *out, int max_cells) {
    cuda_backend *c = (cuda_backend *)b;
    if (!c->tree || !c->acc_valid || c->acc_variant != SIM_VARIANT_TREE) return 0;
    return sim_tree_get_cells(c->tree, max_depth, out, max_cells, c->stream);
}

/* The running method's accelerations against the exact sum (sim_tree.cu). */
static bool cuda_force_error(void *b, const sim_step_params *sp, int samples, uint64_t seed,
                             sim_force_error *out, sim_error *err) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->spread) {
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "the force error sums every body on one GPU; with --spread none holds them "
                     "all");
            snprintf(err->hint, sizeof err->hint,
                     "measure it without --spread (docs/TREE.md: the forces are the same)");
        }
        return false;
    }
    ensure_forces(c, sp);
    return sim_tree_force_error(c->n, c->pos, c->acc, c->pos64, c->acc64, c->fp64, sp->eps2,
                                samples, seed, out, err, &c->fault, c->stream);
}

extern "C" bool sim_cuda_device_info(int device, sim_device_info *out) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    out->sm_count = prop.multiProcessorCount;
    out->cc_major = prop.major;
    out->cc_minor = prop.minor;
    out->memory_bytes = prop.totalGlobalMem;
    if (cudaDeviceGetAttribute(&out->clock_khz, cudaDevAttrClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&out->memory_clock_khz, cudaDevAttrMemoryClockRate, device) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&out->memory_bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) !=
            cudaSuccess ||
        cudaDriverGetVersion(&out->driver_version) != cudaSuccess ||
        cudaRuntimeGetVersion(&out->runtime_version) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return true;
}

static bool cuda_failed(void *b, sim_error *err) {
    cuda_backend *c = (cuda_backend *)b;
    const cuda_backend *f = NULL; /* the first GPU with a fault */
    for (int k = 0; k < c->member_count && !f; k++) {
        if (member(c, k)->fault.code != 0) f = member(c, k);
    }
    if (!f) return false;
    if (err) {
        if (c->member_count > 1) {
            snprintf(err->message, sizeof err->message, "a CUDA call failed on GPU %d: %s",
                     f->device, f->fault.what);
        } else {
            snprintf(err->message, sizeof err->message, "a CUDA call failed: %s", f->fault.what);
        }
        if (f->fault.code == (int)cudaErrorMemoryAllocation) {
            /* memory that only a step found it needed (spread: the parts the
             * GPUs send, the bodies that move, the buffers for drawing) */
            snprintf(err->hint, sizeof err->hint,
                     "the GPUs ran out of memory during the run: try a smaller --n, or more "
                     "--gpus with --spread");
        } else {
            snprintf(err->hint, sizeof err->hint,
                     "the GPU was lost or a kernel faulted; nvidia-smi shows the GPU's state, and "
                     "compute-sanitizer names a faulting kernel");
        }
    }
    return true;
}

static sim_gpu_stats cuda_gpu_stats(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    harvest_timing(c);
    harvest_gpus(c);
    sim_gpu_stats g = c->gpu_stats;
    g.gpus = c->member_count;
    if (g.gpus <= 1 || !g.measured) return g;
    const sim_tree_stats t = c->tree && c->acc_variant == SIM_VARIANT_TREE
                                 ? sim_tree_get_stats(c->tree)
                                 : sim_tree_stats{};
    /* Spread, each GPU's forces include the build of its own tree: none is
     * repeated, and what each sent the others comes from its tree. */
    g.build_ms = t.valid && !c->spread ? t.build_ms : 0.0f;
    for (int k = 0; k < g.gpus && c->spread; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        const sim_tree_stats mt = m->tree ? sim_tree_get_stats(m->tree) : sim_tree_stats{};
        g.sent_mb[k] = mt.valid ? (float)mt.sent_mb : 0.0f;
        g.walk_ms[k] = mt.valid ? mt.walk_ms : 0.0f;
        g.domain_boxes[k] = mt.valid ? mt.domain_boxes : 0;
    }
    set_device(c);
    if (c->spread) { /* each GPU's forces wait for the others' parts: no estimate */
        g.efficiency = 0;
        return g;
    }
    if (!g.split) { /* every GPU computes everything: one alone would take as long */
        g.efficiency = 1.0 / g.gpus;
        return g;
    }
    /* One GPU would do every share and the rest once, with no sum. The
     * times are of one step, the sum inside it, so this stays above 0; the
     * build is the last one timed (a share is never below 0). */
    double shares = 0, slowest = 0;
    for (int k = 0; k < g.gpus; k++) {
        const double share = fmax(0.0, g.forces_ms[k] - g.build_ms);
        shares += share;
        slowest = share > slowest ? share : slowest;
    }
    const double one = g.step_ms - slowest - g.sum_ms + shares;
    g.efficiency = g.step_ms > 0 ? one / (g.gpus * g.step_ms) : 0.0;
    if (g.efficiency > 1) g.efficiency = 1;
    if (g.efficiency < 0) g.efficiency = 0;
    return g;
}

/* Compares each GPU's positions and velocities with the leader's, bit for
 * bit, through the host. */
static int cuda_gpus_disagree(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    if (c->member_count <= 1 || c->n == 0 || c->spread) return 0; /* spread: nothing shared */
    const size_t each = c->fp64 ? sizeof(double4a) : sizeof(float4), n = (size_t)c->n;
    char *mine = (char *)malloc(2 * each * n), *theirs = (char *)malloc(2 * each * n);
    int differ = -1; /* no host memory to compare in */
    for (int k = 0; mine && theirs && k < c->member_count; k++) {
        cuda_backend *m = member(c, k);
        set_device(m);
        char *dst = k == 0 ? mine : theirs;
        const void *pos = c->fp64 ? (const void *)m->pos64 : (const void *)m->pos;
        const void *vel = c->fp64 ? (const void *)m->vel64 : (const void *)m->vel;
        CUDA_CHECK(&m->fault, cudaMemcpy(dst, pos, each * n, cudaMemcpyDeviceToHost));
        CUDA_CHECK(&m->fault, cudaMemcpy(dst + each * n, vel, each * n, cudaMemcpyDeviceToHost));
        if (k == 0) {
            differ = 0;
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            differ += memcmp(mine + i * each, theirs + i * each, each) != 0 ||
                      memcmp(mine + (n + i) * each, theirs + (n + i) * each, each) != 0;
        }
    }
    set_device(c);
    free(mine);
    free(theirs);
    return differ;
}

/* The kernel table's order is the ladder: naive ... fp64, then the tree. */
static int cuda_methods(sim_variant *out, int max) {
    for (int v = 1; v < SIM_VARIANT_COUNT; v++) {
        if (out && v - 1 < max) out[v - 1] = (sim_variant)v;
    }
    return SIM_VARIANT_COUNT - 1;
}

static const char *cuda_launched_build(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    return c->best ? kernels_best_plan_build(c->best) : NULL;
}

extern "C" const sim_backend_ops sim_cuda_ops = {
    "cuda",
    cuda_create,
    cuda_destroy,
    cuda_reserve,
    cuda_upload,
    cuda_set_precision,
    cuda_download,
    cuda_step,
    cuda_vertices,
    cuda_diagnostics,
    cuda_last_step_ms,
    cuda_wait_timing,
    cuda_invalidate,
    cuda_tree_stats,
    cuda_tree_cells,
    cuda_force_error,
    cuda_prepare_variant,
    cuda_nonfinite_step,
    cuda_memory,
    cuda_methods,
    kernels_method,
    cuda_launched_build,
    cuda_failed,
    NULL, /* set_stop: steps are queued on the GPU, never stopped */
    NULL, /* stopped */
    cuda_gpu_stats,
    cuda_gpus_disagree,
    cuda_potentials,
    cuda_radial,
    cuda_diagnostics_queue,
    cuda_diagnostics_collect,
};
