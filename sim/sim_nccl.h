/* sim_nccl.h - the one place sim/ talks to NCCL, private to sim/.
 *
 * What it is: the communicators of a simulation spread over several GPUs of
 * one host (NCCL's single-process, multi-device mode: one host thread
 * queues every GPU's work) and the one collective the CUDA backend needs,
 * an in-place sum of each GPU's partial accelerations (sim_cuda.cu says
 * why a sum and not a gather). NCCL is optional at build time (CMake's
 * "multi-GPU" line): without it sim_nccl_create fails with a hint and
 * sim_multi_gpu_support (sim.h, defined here) says there is none.
 *
 * Compiles as C and as C++ (nvcc).
 */
#ifndef NBODY_SIM_NCCL_H
#define NBODY_SIM_NCCL_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_nccl sim_nccl;

/* Communicators over devices[0 .. count-1], rank k on devices[k]. NULL
 * with *err when the build has no NCCL or NCCL cannot start. */
sim_nccl *sim_nccl_create(int count, const int *devices, sim_error *err);
void sim_nccl_destroy(sim_nccl *c); /* NULL is fine */

/* Sums `count` floats (doubles when fp64) of bufs[k] on device k into
 * every bufs[k], queued on streams[k] after the work already there.
 * false with *what naming NCCL's error (only a bug or a lost device). */
bool sim_nccl_sum(sim_nccl *c, void *const *bufs, size_t count, bool fp64,
                  const cudaStream_t *streams, char *what, size_t what_len);

#ifdef __cplusplus
}
#endif

#endif /* NBODY_SIM_NCCL_H */
