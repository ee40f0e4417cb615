/* sim_cuda_check.h - the one CUDA_CHECK of the project.
 *
 * For CUDA calls that fail only through a bug or a lost device (launches,
 * copies between buffers we allocated, event queries). The first failure
 * of a simulation is kept in its sim_fault (file:line, the call, the
 * error's name and text) and the code goes on: after a lost device every
 * later call fails too, and a caller that read something back reads
 * nothing it can trust. sim_failed (sim.h) reports the fault; the app stops
 * there. sim/ never aborts or exits. Failures a user can cause (no device,
 * out of GPU memory) are checked by hand where they happen and reported as
 * sim_error.
 *
 * Private to sim/ (not on the public include path). app/interop/interop.c has a
 * check of its own, because there the user can cause failures (interop
 * refused) and the answer is to fall back to copying through the host.
 *
 * Define NBODY_CUDA_SYNC_CHECK (cmake -DNBODY_CUDA_SYNC_CHECK=ON) to also
 * synchronize after every launch so an asynchronous fault names its kernel.
 *
 * Include after <cuda_runtime_api.h>; compiles as C and as C++.
 */
#ifndef NBODY_SIM_CUDA_CHECK_H
#define NBODY_SIM_CUDA_CHECK_H

#include <stdio.h>

/* The first failure: code 0 while there is none. */
typedef struct sim_fault {
    int code;       /* cudaError_t, or -1: out of host memory */
    char what[320]; /* "sim_tree.cu:123: cudaMemcpyAsync(...): cudaErrorX: text" */
} sim_fault;

/* Keeps the first failure in f (later ones are its consequences). */
static inline void sim_fault_record(sim_fault *f, int code, const char *file, int line,
                                    const char *call, const char *name, const char *text) {
    if (f->code != 0) return;
    f->code = code;
    const char *base = file;
    for (const char *p = file; *p; p++) {
        if (*p == '/') base = p + 1;
    }
    snprintf(f->what, sizeof f->what, "%s:%d: %.120s: %s: %s", base, line, call, name, text);
}

#define CUDA_CHECK(fault, call)                                                                    \
    do {                                                                                           \
        cudaError_t cuda_check_err_ = (call);                                                      \
        if (cuda_check_err_ != cudaSuccess) {                                                      \
            sim_fault_record((fault), (int)cuda_check_err_, __FILE__, __LINE__, #call,             \
                             cudaGetErrorName(cuda_check_err_),                                    \
                             cudaGetErrorString(cuda_check_err_));                                 \
        }                                                                                          \
    } while (0)

/* Every launcher ends with this. */
#ifdef NBODY_CUDA_SYNC_CHECK
#define CUDA_CHECK_LAUNCH(fault)                                                                   \
    do {                                                                                           \
        CUDA_CHECK(fault, cudaGetLastError());                                                     \
        CUDA_CHECK(fault, cudaDeviceSynchronize());                                                \
    } while (0)
#else
#define CUDA_CHECK_LAUNCH(fault) CUDA_CHECK(fault, cudaGetLastError())
#endif

#endif /* NBODY_SIM_CUDA_CHECK_H */
