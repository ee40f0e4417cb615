/* sim_kernels.h - the contract between the CUDA backend and its force kernels.
 *
 * A force kernel reads body positions and masses and writes accelerations;
 * it does not integrate. Each variant in sim_kernels.cu's table has a
 * launcher with this signature, says which inputs it reads (the float4 array
 * of structs, the scalar arrays, or the double state), and states its block
 * rules. CUDA C++ only (included by .cu files).
 */
#ifndef NBODY_SIM_KERNELS_H
#define NBODY_SIM_KERNELS_H

#include <cuda_runtime.h>

#include "sim_cuda_check.h"
#include "sim_internal.h"

/* CUDA 13 asks for an explicit alignment on 32-byte vectors. */
#if CUDART_VERSION >= 13000
typedef double4_32a double4a;
#define make_double4a make_double4_32a
#else
typedef double4 double4a;
#define make_double4a make_double4
#endif

/* The state's vector type for each precision. */
template <typename T> struct vec4;
template <> struct vec4<float> { typedef float4 type; };
template <> struct vec4<double> { typedef double4a type; };

/* Inputs and outputs of one force evaluation. A float32 variant reads pos
 * (or the scalar arrays x, y, z, m when it asks for them) and writes acc; the
 * fp64 variant reads pos64 and writes acc64. */
struct force_args {
    int n;
    const float4 *pos;          /* x, y, z, m per body (array of structs) */
    const float *x, *y, *z, *m; /* the same as scalar arrays, when the variant asks */
    float4 *acc;                /* out: ax, ay, az; the tree's potential or unused */
    sim_fault *fault;           /* CUDA failures go here (sim_cuda_check.h) */
    const double4a *pos64;      /* fp64 state */
    double4a *acc64;
    float eps2;             /* softening squared, at least SIM_EPS2_FLOOR (sim_step_params) */
    double eps2_64;         /* the same for the fp64 variant */
    int p, q;               /* block shape, already clamped */
    int sm_count;           /* multiprocessors of the device (persistent grids) */
    struct sim_tree *tree;  /* variant tree: its state (sim_tree.h); p = the walk's group size */
    float theta;            /* variant tree: opening angle */
    bool potential;         /* variant tree: each body's potential into acc's w as well */
    float alpha;            /* variant tree: the relative criterion's tolerance (0: off) */
    bool monopoles;         /* variant tree: negligible quadrupoles summed as monopoles */
    bool acc_old;           /* variant tree: acc holds the last evaluation of these bodies */
    bool acc_zero;          /* acc holds zeros already (the integrator cleared it) */
    /* Several GPUs (sim_cuda.cu): a variant whose method row `splits` computes
     * share `share` of `shares` of the work into acc, zeros elsewhere, and
     * the GPUs' acc summed are the whole; shares <= 1: all of it. The tree
     * takes its share as [share_from, share_to) of its sorted bodies
     * (fractions, set whenever shares > 1). */
    int share, shares;
    double share_from, share_to;
    bool best_fold;         /* best: every mass suits the folded loop (kernels_best_fold_mass) */
    struct best_plan *best; /* variants best, fp64: where each warp starts, kept between calls */
    const struct sim_pairmap_walk *best_walks; /* set by forces_pairs: on the device */
};

/* How a variant reads p and q. */
enum block_rule {
    BLOCK_THREADS,  /* p = threads per block, one body each; q unused */
    BLOCK_PQ_TILES, /* block of p x q threads: p columns of bodies, q rows share their loops */
    BLOCK_WARPS,    /* p threads per block (whole warps), q blocks per SM, persistent */
    BLOCK_GROUPS,   /* p = bodies per walk group (32, 64 or 128; one warp each); q unused */
};

struct variant_entry {
    sim_variant id;    /* its own index, checked at compile time */
    sim_method method; /* its row of the method table (sim_method_of) */
    void (*launch)(const force_args *a, cudaStream_t stream);
    bool reads_soa; /* needs x, y, z, m scalar arrays */
    block_rule rule;
    int bodies_per_thread;      /* each thread of a block carries this many bodies */
    int smem_per_thread;        /* bytes of dynamic shared memory per thread */
    void (*kernel)(force_args); /* p x q kernels, for occupancy queries */
    bool sums_acc; /* adds into acc (atomics): acc must hold zeros first; the integrator's kick
                      clears it when forces follow, so no memset a step */
};

/* The entry for a variant (DEFAULT resolved). */
const variant_entry *kernels_entry(sim_variant v);

/* Its method row; NULL when v is not a variant (sim_method_of, CUDA). */
const sim_method *kernels_method(sim_variant v);

/* Whether a body's mass suits best's folded loop in float (sim_kernels.cu,
 * best_i): alpha = m^(-1/2) must exist - a zero mass (a test particle, a
 * snapshot's massless body) has none - and its intermediates stay far from
 * float's limits: d' = alpha d grows d by at most 1e6 (m >= 1e-12), and
 * the i sum carries m_i a_i until the flush, at most 1e4 times a_i
 * (m <= 1e4; the scenes' masses are below 1). Otherwise best runs its plain
 * loop, one instruction a pair more. */
static inline bool kernels_best_fold_mass(double m) {
    return m >= 1e-12 && m <= 1e4;
}

/* The plan of best and fp64: each warp's first task, computed on the host
 * when N, the grid or the precision changes (sim_kernels.cu). Created
 * empty; destroy(NULL) is a no-op. */
struct best_plan *kernels_best_plan_create(void); /* NULL: no host memory */
void kernels_best_plan_destroy(struct best_plan *p, sim_fault *fault);

/* The build p was last made for, as its cost row names it; NULL before its
 * first launch (sim_launched_build). */
const char *kernels_best_plan_build(const struct best_plan *p);

#endif /* NBODY_SIM_KERNELS_H */
