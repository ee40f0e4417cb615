/* sim_cuda_check.h - the one CUDA_CHECK of the project.
 *
 * For CUDA calls that fail only through a bug or a lost device (launches,
 * copies between buffers we allocated, event queries): prints file:line, the
 * call, the error's name and text, and aborts - the assert tier of the error
 * model. Failures a user can cause (no device, out of GPU memory) are
 * checked by hand where they happen and reported as sim_error.
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
#include <stdlib.h>

#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t cuda_check_err_ = (call);                                                      \
        if (cuda_check_err_ != cudaSuccess) {                                                      \
            fprintf(stderr, "%s:%d: CUDA call failed: %s\n  %s: %s\n", __FILE__, __LINE__, #call,  \
                    cudaGetErrorName(cuda_check_err_), cudaGetErrorString(cuda_check_err_));       \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Every launcher ends with this. */
#ifdef NBODY_CUDA_SYNC_CHECK
#define CUDA_CHECK_LAUNCH()                                                                        \
    do {                                                                                           \
        CUDA_CHECK(cudaGetLastError());                                                            \
        CUDA_CHECK(cudaDeviceSynchronize());                                                       \
    } while (0)
#else
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
#endif

#endif /* NBODY_SIM_CUDA_CHECK_H */
