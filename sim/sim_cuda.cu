/* sim_cuda.cu - the CUDA backend: device state, the leapfrog, diagnostics.
 *
 * Bodies live on the device as float4 arrays of structs (x, y, z, m) and
 * (vx, vy, vz, 0), 16 bytes each. A step is kick-drift-kick leapfrog: the
 * force kernel of the chosen variant (sim_kernels.cu) plus one O(N) kernel
 * that closes one step and opens the next (kick, damp, kick, drift), so a
 * step is two launches. Accelerations are cached between steps and
 * recomputed when the softening or the kernel changes.
 *
 * Diagnostics are reduced on the GPU in double precision: one kernel sums
 * per-block partials (the potential is an O(N^2) tiled pass), a second sums
 * the blocks. Timing uses CUDA events that are read back only once they have
 * completed, so the frame loop never waits on them.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cuda_check.h"
#include "sim_kernels.h"

static_assert(sizeof(sim_vertex) == sizeof(float4), "a vertex is one float4");

/* Diagnostic sums, in this order, per block and in total. */
enum {
    DIAG_KINETIC,
    DIAG_POTENTIAL,
    DIAG_MASS,
    DIAG_P,               /* 3: momentum */
    DIAG_L = DIAG_P + 3,  /* 3: angular momentum */
    DIAG_MR = DIAG_L + 3, /* 3: mass-weighted position */
    DIAG_COUNT = DIAG_MR + 3
};
#define DIAG_THREADS 256

struct cuda_backend {
    int device;
    int n, capacity;
    float4 *pos, *vel, *acc;
    float *soa;           /* x, y, z, m scalar arrays of `capacity` each */
    sim_vertex *stage;    /* vertices for the host-copy path */
    double *diag_partial; /* DIAG_COUNT per block, then DIAG_COUNT totals */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    bool timing_pending; /* start/stop recorded, not yet read */
    int timed_steps;     /* steps between start and stop */
    float last_step_ms;
    bool acc_valid;
    float acc_softening;
    sim_variant acc_variant;
};

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
    sim_device_limits lim = {1024, 48 * 1024, 1};
    cudaDeviceProp prop;
    if (device >= 0 && cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        lim.max_threads_per_block = prop.maxThreadsPerBlock;
        lim.max_shared_per_block = (int)prop.sharedMemPerBlock;
        lim.sm_count = prop.multiProcessorCount;
    } else {
        cudaGetLastError();
    }
    return lim;
}

/* ------------------------------------------------------------------------ */
/* Kernels of the integrator and of the host interface. */

/* v += a h; x += v dt: the opening kick and drift of a step. */
__global__ void kick_drift_kernel(int n, float4 *pos, float4 *vel, const float4 *acc, float h,
                                  float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i], a = acc[i], x = pos[i];
    v.x += a.x * h;
    v.y += a.y * h;
    v.z += a.z * h;
    x.x += v.x * dt;
    x.y += v.y * dt;
    x.z += v.z * dt;
    vel[i] = v;
    pos[i] = x;
}

/* Closes a step (kick h, damp) and, when dt > 0, opens the next (kick h, drift dt). */
__global__ void kick_damp_drift_kernel(int n, float4 *pos, float4 *vel, const float4 *acc, float h,
                                       float damping, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 v = vel[i], a = acc[i];
    v.x = (v.x + a.x * h) * damping;
    v.y = (v.y + a.y * h) * damping;
    v.z = (v.z + a.z * h) * damping;
    if (dt > 0.0f) {
        float4 x = pos[i];
        v.x += a.x * h;
        v.y += a.y * h;
        v.z += a.z * h;
        x.x += v.x * dt;
        x.y += v.y * dt;
        x.z += v.z * dt;
        pos[i] = x;
    }
    vel[i] = v;
}

/* Array of structs to scalar arrays, for the variants that read those. */
__global__ void scatter_soa_kernel(int n, int stride, const float4 *pos, float *soa) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 x = pos[i];
    soa[i] = x.x;
    soa[stride + i] = x.y;
    soa[2 * stride + i] = x.z;
    soa[3 * stride + i] = x.w;
}

__global__ void vertices_kernel(int n, const float4 *pos, const float4 *vel, float4 *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 x = pos[i], v = vel[i];
    out[i] = make_float4(x.x, x.y, x.z, sqrtf(v.x * v.x + v.y * v.y + v.z * v.z));
}

/* Tree sum of DIAG_COUNT values over a block of DIAG_THREADS threads
 * (seed 004's reduction, sequential addressing). Thread 0 gets the totals. */
static __device__ void block_sum(double (*sh)[DIAG_THREADS], double *v) {
    const int t = threadIdx.x;
    for (int k = 0; k < DIAG_COUNT; k++) sh[k][t] = v[k];
    __syncthreads();
    for (int s = DIAG_THREADS / 2; s > 0; s >>= 1) {
        if (t < s) {
            for (int k = 0; k < DIAG_COUNT; k++) sh[k][t] += sh[k][t + s];
        }
        __syncthreads();
    }
    for (int k = 0; k < DIAG_COUNT; k++) v[k] = sh[k][0];
}

/* Per-block partial sums of the diagnostics. The potential of body i,
 * phi_i = -sum_{j != i} m_j / sqrt(r^2 + eps^2), is summed in float within a
 * tile of DIAG_THREADS bodies and in double across tiles. */
__global__ void diag_partial_kernel(int n, const float4 *pos, const float4 *vel, float eps2,
                                    double *partial) {
    __shared__ float4 tile[DIAG_THREADS];
    __shared__ double sh[DIAG_COUNT][DIAG_THREADS];
    const int i = blockIdx.x * DIAG_THREADS + threadIdx.x;
    const float4 xi = i < n ? pos[i] : make_float4(0, 0, 0, 0);
    const float4 vi = i < n ? vel[i] : make_float4(0, 0, 0, 0);
    double phi = 0.0;
    for (int base = 0; base < n; base += DIAG_THREADS) {
        const int j = base + threadIdx.x;
        tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
        __syncthreads();
        float tile_phi = 0.0f;
        const int count = min(DIAG_THREADS, n - base);
        for (int k = 0; k < count; k++) {
            if (base + k == i) continue;
            float dx = tile[k].x - xi.x, dy = tile[k].y - xi.y, dz = tile[k].z - xi.z;
            tile_phi -= tile[k].w * rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
        }
        phi += tile_phi;
        __syncthreads();
    }
    const double m = xi.w;
    const double x = xi.x, y = xi.y, z = xi.z, vx = vi.x, vy = vi.y, vz = vi.z;
    double v[DIAG_COUNT];
    v[DIAG_KINETIC] = 0.5 * m * (vx * vx + vy * vy + vz * vz);
    v[DIAG_POTENTIAL] = 0.5 * m * phi; /* each pair counted from both ends */
    v[DIAG_MASS] = m;
    v[DIAG_P + 0] = m * vx;
    v[DIAG_P + 1] = m * vy;
    v[DIAG_P + 2] = m * vz;
    v[DIAG_L + 0] = m * (y * vz - z * vy);
    v[DIAG_L + 1] = m * (z * vx - x * vz);
    v[DIAG_L + 2] = m * (x * vy - y * vx);
    v[DIAG_MR + 0] = m * x;
    v[DIAG_MR + 1] = m * y;
    v[DIAG_MR + 2] = m * z;
    block_sum(sh, v);
    if (threadIdx.x == 0) {
        for (int k = 0; k < DIAG_COUNT; k++) partial[blockIdx.x * DIAG_COUNT + k] = v[k];
    }
}

/* One block adds the per-block partials; the totals go after them. */
__global__ void diag_total_kernel(int blocks, double *partial) {
    __shared__ double sh[DIAG_COUNT][DIAG_THREADS];
    double v[DIAG_COUNT] = {};
    for (int b = threadIdx.x; b < blocks; b += DIAG_THREADS) {
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

static void free_buffers(cuda_backend *c) {
    CUDA_CHECK(cudaFree(c->pos));
    CUDA_CHECK(cudaFree(c->vel));
    CUDA_CHECK(cudaFree(c->acc));
    CUDA_CHECK(cudaFree(c->soa));
    CUDA_CHECK(cudaFree(c->stage));
    CUDA_CHECK(cudaFree(c->diag_partial));
    c->pos = c->vel = c->acc = NULL;
    c->soa = NULL;
    c->stage = NULL;
    c->diag_partial = NULL;
    c->capacity = 0;
}

static void *cuda_create(int device, sim_error *err) {
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
    if (!c) return NULL;
    c->device = device;
    CUDA_CHECK(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreate(&c->start));
    CUDA_CHECK(cudaEventCreate(&c->stop));
    return c;
}

static void cuda_destroy(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    if (!c) return;
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
    free_buffers(c);
    CUDA_CHECK(cudaEventDestroy(c->start));
    CUDA_CHECK(cudaEventDestroy(c->stop));
    CUDA_CHECK(cudaStreamDestroy(c->stream));
    free(c);
}

/* Allocates room for n bodies. On failure reports how much was needed and
 * leaves the old buffers as they were. */
static bool cuda_reserve(void *b, int n, sim_error *err) {
    cuda_backend *c = (cuda_backend *)b;
    if (n <= c->capacity) return true;
    const size_t per_body = 3 * sizeof(float4) + 4 * sizeof(float) + sizeof(sim_vertex);
    const int diag_blocks = blocks_for(n, DIAG_THREADS);
    const size_t need = per_body * (size_t)n + sizeof(double) * DIAG_COUNT * (diag_blocks + 1);
    float4 *pos = NULL, *vel = NULL, *acc = NULL;
    float *soa = NULL;
    sim_vertex *stage = NULL;
    double *partial = NULL;
    bool ok = cudaMalloc(&pos, sizeof(float4) * n) == cudaSuccess &&
              cudaMalloc(&vel, sizeof(float4) * n) == cudaSuccess &&
              cudaMalloc(&acc, sizeof(float4) * n) == cudaSuccess &&
              cudaMalloc(&soa, sizeof(float) * 4 * n) == cudaSuccess &&
              cudaMalloc(&stage, sizeof(sim_vertex) * n) == cudaSuccess &&
              cudaMalloc(&partial, sizeof(double) * DIAG_COUNT * (diag_blocks + 1)) == cudaSuccess;
    if (!ok) {
        cudaGetLastError(); /* out-of-memory is not sticky; clear it */
        cudaFree(pos);
        cudaFree(vel);
        cudaFree(acc);
        cudaFree(soa);
        cudaFree(stage);
        cudaFree(partial);
        size_t free_b = 0, total_b = 0;
        cudaMemGetInfo(&free_b, &total_b);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "%d bodies need %.1f MiB of GPU memory; the GPU has %.1f MiB free", n,
                     need / 1048576.0, free_b / 1048576.0);
            snprintf(err->hint, sizeof err->hint, "try a smaller --n");
        }
        return false;
    }
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
    free_buffers(c);
    c->pos = pos;
    c->vel = vel;
    c->acc = acc;
    c->soa = soa;
    c->stage = stage;
    c->diag_partial = partial;
    c->capacity = n;
    return true;
}

static void cuda_upload(void *b, const sim_body *bodies, int n) {
    cuda_backend *c = (cuda_backend *)b;
    float4 *host = (float4 *)malloc(sizeof(float4) * 2 * (size_t)n);
    if (!host) {
        fprintf(stderr, "sim: out of host memory uploading %d bodies\n", n);
        abort();
    }
    for (int i = 0; i < n; i++) {
        const sim_body *s = &bodies[i];
        host[i] = make_float4((float)s->pos[0], (float)s->pos[1], (float)s->pos[2], (float)s->mass);
        host[n + i] = make_float4((float)s->vel[0], (float)s->vel[1], (float)s->vel[2], 0.0f);
    }
    CUDA_CHECK(
        cudaMemcpyAsync(c->pos, host, sizeof(float4) * n, cudaMemcpyHostToDevice, c->stream));
    CUDA_CHECK(
        cudaMemcpyAsync(c->vel, host + n, sizeof(float4) * n, cudaMemcpyHostToDevice, c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
    free(host);
    c->n = n;
    c->acc_valid = false;
}

static void compute_forces(cuda_backend *c, const sim_step_params *sp) {
    const variant_entry *e = kernels_entry(sp->variant);
    force_args a = {};
    a.n = c->n;
    a.pos = c->pos;
    a.acc = c->acc;
    a.eps2 = sp->softening * sp->softening;
    a.p = sp->p;
    a.q = sp->q;
    if (e->reads_soa) {
        scatter_soa_kernel<<<blocks_for(c->n, 256), 256, 0, c->stream>>>(c->n, c->capacity, c->pos,
                                                                         c->soa);
        CUDA_CHECK_LAUNCH();
        a.x = c->soa;
        a.y = c->soa + c->capacity;
        a.z = c->soa + 2 * c->capacity;
        a.m = c->soa + 3 * c->capacity;
    }
    e->launch(&a, c->stream);
    c->acc_valid = true;
    c->acc_softening = sp->softening;
    c->acc_variant = sp->variant;
}

static void ensure_forces(cuda_backend *c, const sim_step_params *sp) {
    if (!c->acc_valid || c->acc_softening != sp->softening || c->acc_variant != sp->variant) {
        compute_forces(c, sp);
    }
}

/* Reads the last step's timing if its events have completed; never waits. */
static void harvest_timing(cuda_backend *c) {
    if (!c->timing_pending) return;
    cudaError_t e = cudaEventQuery(c->stop);
    if (e == cudaErrorNotReady) return;
    CUDA_CHECK(e);
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, c->start, c->stop));
    c->last_step_ms = ms / c->timed_steps;
    c->timing_pending = false;
}

static void cuda_step(void *b, const sim_step_params *sp, int steps) {
    cuda_backend *c = (cuda_backend *)b;
    const int n = c->n, threads = 256, blocks = blocks_for(n, threads);
    const float h = 0.5f * sp->dt;
    harvest_timing(c);
    ensure_forces(c, sp);
    const bool timed = !c->timing_pending;
    if (timed) CUDA_CHECK(cudaEventRecord(c->start, c->stream));
    kick_drift_kernel<<<blocks, threads, 0, c->stream>>>(n, c->pos, c->vel, c->acc, h, sp->dt);
    CUDA_CHECK_LAUNCH();
    for (int s = 0; s < steps; s++) {
        compute_forces(c, sp);
        const float next_dt = s + 1 < steps ? sp->dt : 0.0f;
        kick_damp_drift_kernel<<<blocks, threads, 0, c->stream>>>(n, c->pos, c->vel, c->acc, h,
                                                                  sp->damping, next_dt);
        CUDA_CHECK_LAUNCH();
    }
    if (timed) {
        CUDA_CHECK(cudaEventRecord(c->stop, c->stream));
        c->timing_pending = true;
        c->timed_steps = steps;
    }
}

static void cuda_download(void *b, sim_body *out, const sim_step_params *sp) {
    cuda_backend *c = (cuda_backend *)b;
    const int n = c->n;
    ensure_forces(c, sp);
    float4 *host = (float4 *)malloc(sizeof(float4) * 3 * (size_t)n);
    if (!host) {
        fprintf(stderr, "sim: out of host memory reading back %d bodies\n", n);
        abort();
    }
    CUDA_CHECK(
        cudaMemcpyAsync(host, c->pos, sizeof(float4) * n, cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(
        cudaMemcpyAsync(host + n, c->vel, sizeof(float4) * n, cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(cudaMemcpyAsync(host + 2 * n, c->acc, sizeof(float4) * n, cudaMemcpyDeviceToHost,
                               c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
    for (int i = 0; i < n; i++) {
        const float4 x = host[i], v = host[n + i], a = host[2 * n + i];
        out[i] = sim_body{{x.x, x.y, x.z}, {v.x, v.y, v.z}, {a.x, a.y, a.z}, x.w};
    }
    free(host);
}

static void cuda_vertices(void *b, sim_vertex *dst, bool dst_on_device) {
    cuda_backend *c = (cuda_backend *)b;
    float4 *out = dst_on_device ? (float4 *)dst : (float4 *)c->stage;
    vertices_kernel<<<blocks_for(c->n, 256), 256, 0, c->stream>>>(c->n, c->pos, c->vel, out);
    CUDA_CHECK_LAUNCH();
    if (!dst_on_device) {
        CUDA_CHECK(cudaMemcpyAsync(dst, c->stage, sizeof(sim_vertex) * c->n, cudaMemcpyDeviceToHost,
                                   c->stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
}

static sim_diag cuda_diagnostics(void *b, float softening) {
    cuda_backend *c = (cuda_backend *)b;
    const int blocks = blocks_for(c->n, DIAG_THREADS);
    diag_partial_kernel<<<blocks, DIAG_THREADS, 0, c->stream>>>(
        c->n, c->pos, c->vel, softening * softening, c->diag_partial);
    CUDA_CHECK_LAUNCH();
    diag_total_kernel<<<1, DIAG_THREADS, 0, c->stream>>>(blocks, c->diag_partial);
    CUDA_CHECK_LAUNCH();
    double t[DIAG_COUNT];
    CUDA_CHECK(cudaMemcpyAsync(t, c->diag_partial + blocks * DIAG_COUNT, sizeof t,
                               cudaMemcpyDeviceToHost, c->stream));
    CUDA_CHECK(cudaStreamSynchronize(c->stream));
    sim_diag d = {};
    d.kinetic = t[DIAG_KINETIC];
    d.potential = t[DIAG_POTENTIAL];
    d.mass = t[DIAG_MASS];
    for (int k = 0; k < 3; k++) {
        d.momentum[k] = t[DIAG_P + k];
        d.angular_momentum[k] = t[DIAG_L + k];
        d.center_of_mass[k] = t[DIAG_MR + k];
    }
    sim_diag_finish(&d);
    return d;
}

static float cuda_last_step_ms(void *b) {
    cuda_backend *c = (cuda_backend *)b;
    harvest_timing(c);
    return c->last_step_ms;
}

static void cuda_invalidate(void *b) {
    ((cuda_backend *)b)->acc_valid = false;
}

extern "C" const sim_backend_ops sim_cuda_ops = {
    "cuda",    cuda_create,   cuda_destroy,     cuda_reserve,      cuda_upload,     cuda_download,
    cuda_step, cuda_vertices, cuda_diagnostics, cuda_last_step_ms, cuda_invalidate,
};
