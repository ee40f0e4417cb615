/* sim_nccl.c - NCCL's communicators and sum for a simulation on several
 * GPUs (sim_nccl.h), or, in a build without NCCL, the stand-ins that say
 * how to get it. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_nccl.h"

#ifdef NBODY_HAVE_NCCL
#include <nccl.h>

struct sim_nccl {
    int count;
    ncclComm_t *comms;
};

/* sim.h: the library's own version, asked at run time. */
bool sim_multi_gpu_support(char *out, size_t len) {
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) {
        snprintf(out, len, "NCCL (version unknown)");
    } else { /* since 2.9 the code is major * 10000 + minor * 100 + patch */
        snprintf(out, len, "NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    }
    return true;
}

sim_nccl *sim_nccl_create(int count, const int *devices, sim_error *err) {
    sim_nccl *c = calloc(1, sizeof *c);
    ncclComm_t *comms = calloc((size_t)count, sizeof *comms);
    if (!c || !comms) {
        free(c);
        free(comms);
        if (err) {
            snprintf(err->message, sizeof err->message, "out of host memory for NCCL");
            snprintf(err->hint, sizeof err->hint, "free some memory");
        }
        return NULL;
    }
    const ncclResult_t r = ncclCommInitAll(comms, count, devices);
    if (r != ncclSuccess) {
        free(comms);
        free(c);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "NCCL cannot connect the %d GPUs: %s", count, ncclGetErrorString(r));
            snprintf(err->hint, sizeof err->hint,
                     "NCCL_DEBUG=WARN says why; run with --gpus 1 meanwhile");
        }
        return NULL;
    }
    c->count = count;
    c->comms = comms;
    return c;
}

void sim_nccl_destroy(sim_nccl *c) {
    if (!c) return;
    for (int k = 0; k < c->count; k++) ncclCommDestroy(c->comms[k]);
    free(c->comms);
    free(c);
}

bool sim_nccl_sum(sim_nccl *c, void *const *bufs, size_t count, bool fp64,
                  const cudaStream_t *streams, char *what, size_t what_len) {
    ncclResult_t r = ncclGroupStart();
    for (int k = 0; k < c->count && r == ncclSuccess; k++) {
        r = ncclAllReduce(bufs[k], bufs[k], count, fp64 ? ncclDouble : ncclFloat, ncclSum,
                          c->comms[k], streams[k]);
    }
    const ncclResult_t end = ncclGroupEnd();
    if (r == ncclSuccess) r = end;
    if (r != ncclSuccess) {
        snprintf(what, what_len, "ncclAllReduce: %s", ncclGetErrorString(r));
        return false;
    }
    return true;
}

#else /* no NCCL: the stand-ins */

bool sim_multi_gpu_support(char *out, size_t len) {
    if (len) out[0] = '\0';
    return false;
}

sim_nccl *sim_nccl_create(int count, const int *devices, sim_error *err) {
    (void)devices;
    if (err) {
        snprintf(err->message, sizeof err->message,
                 "running on %d GPUs needs NCCL, and this nbody was built without it", count);
        snprintf(err->hint, sizeof err->hint,
                 "pip install nvidia-nccl-cu13 (or install libnccl-dev) and rebuild: cmake "
                 "then says \"multi-GPU: enabled\"; or run with --gpus 1");
    }
    return NULL;
}

void sim_nccl_destroy(sim_nccl *c) {
    (void)c;
}

bool sim_nccl_sum(sim_nccl *c, void *const *bufs, size_t count, bool fp64,
                  const cudaStream_t *streams, char *what, size_t what_len) {
    (void)c, (void)bufs, (void)count, (void)fp64, (void)streams;
    snprintf(what, what_len, "sim_nccl_sum: built without NCCL");
    return false;
}

#endif
