/* sim_kernels.h - the contract between the CUDA backend and its force kernels.
 *
 * A force kernel reads body positions and masses and writes accelerations;
 * it does not integrate. Each variant in sim_kernels.cu's table has a
 * launcher with this signature, says which inputs it reads (the float4 array
 * of structs, the scalar arrays, or double precision), and states its block
 * rules. CUDA C++ only (included by .cu files).
 */
#ifndef NBODY_SIM_KERNELS_H
#define NBODY_SIM_KERNELS_H

#include <cuda_runtime.h>

#include "sim_internal.h"

/* Inputs and outputs of one force evaluation. */
struct force_args {
    int n;
    const float4 *pos;          /* x, y, z, m per body (array of structs) */
    const float *x, *y, *z, *m; /* the same as scalar arrays, when the variant asks */
    float4 *acc;                /* out: ax, ay, az, unused */
    float eps2;                 /* softening squared */
    int p, q;                   /* block shape, already clamped */
};

/* How a variant reads p and q. */
enum block_rule {
    BLOCK_THREADS,  /* p = threads per block, one body each; q unused */
    BLOCK_PQ_TILES, /* p bodies per block row, q rows share each body's loop */
};

struct variant_entry {
    sim_variant id; /* its own index, checked at compile time */
    sim_variant_desc desc;
    void (*launch)(const force_args *a, cudaStream_t stream);
    bool reads_soa; /* needs x, y, z, m scalar arrays */
    block_rule rule;
};

/* The entry for a resolved variant (never DEFAULT). */
const variant_entry *kernels_entry(sim_variant v);

#endif /* NBODY_SIM_KERNELS_H */
