/* sim_internal.h - what the pieces of sim/ share and nobody outside sees.
 *
 * sim.c owns the context and the public API; it drives one of two backends
 * through the small table of operations below. sim_cpu.c is the double-
 * precision reference, sim_cuda.cu the GPU backend, sim_kernels.cu the table
 * of CUDA force-kernel variants, sim_ic.c the initial conditions.
 *
 * Compiles as C and as C++ (nvcc).
 */
#ifndef NBODY_SIM_INTERNAL_H
#define NBODY_SIM_INTERNAL_H

#include "sim.h"
#include "sim_rng.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything one step needs to know about the knobs, in double as they
 * were set: a float kernel rounds what it takes at its launch. */
typedef struct sim_step_params {
    double dt;
    double softening;
    /* The softening squared, computed once per call by sim.c (sim.h says
     * why two forms): as is, for the CPU backend and the exact sums that
     * skip a pair at zero separation; and raised to SIM_EPS2_FLOOR, for
     * every CUDA force kernel, in float and (fp64) in double. */
    double eps2;
    float eps2_kernel;
    double eps2_kernel64;
    double damping;
    double theta;        /* tree opening angle (variant tree) */
    double tree_alpha;   /* the tree's relative criterion (variant tree; 0: off) */
    bool tree_quadrupoles_only; /* sim_desc's: no monopole cells in the CUDA walk */
    sim_variant variant; /* resolved */
    int p, q;            /* resolved, already clamped */
    int64_t first_step;  /* the steps counter before this step call (sim_nonfinite) */
    bool no_potentials;  /* sim_step: its last pass leaves the potentials out
                            (sim_set_step_potentials) */
} sim_step_params;

/* A backend: opaque state plus these operations. n is the body count.
 * Only create, reserve, set_precision, prepare_variant and force_error can
 * fail for a reason a user can cause (no device, out of memory) and they say so in *err; a
 * backend allocates everything the others need there, so the others cannot
 * fail short of a bug or a lost device. */
typedef struct sim_backend_ops {
    const char *name;
    /* gpus: sim_desc.gpus, >= 1; spread: sim_desc.spread (CUDA, gpus > 1) */
    void *(*create)(int device, int gpus, bool spread, sim_error *err);
    void (*destroy)(void *b);
    /* Makes room for n bodies before any host work is spent on them; false
     * (out of memory, with the sizes in *err) keeps the old bodies. */
    bool (*reserve)(void *b, int n, sim_error *err);
    /* Replaces the bodies (and their tags); reserve(n) has succeeded. */
    void (*upload)(void *b, const sim_body *bodies, int n);
    /* Keeps the state in double (fp64 variant) or float; false (out of
     * memory) keeps the current one. */
    bool (*set_precision)(void *b, bool fp64, sim_error *err);
    /* Copies bodies back, accelerations at the current positions included
     * (tags are left to sim.c, which keeps them). */
    /* sp NULL: no forces are computed (sim_get_state); acc is then left to the caller. */
    void (*download)(void *b, sim_body *out, const sim_step_params *sp);
    void (*step)(void *b, const sim_step_params *sp, int steps);
    /* The vertices of bodies 0, stride, 2 stride, ... (sim_set_draw_stride);
     * wait false (device memory only): queued, not waited for. */
    void (*vertices)(void *b, sim_vertex *dst, bool dst_on_device, bool wait, int stride);
    /* potential: NONE skips it (W and E stay 0), EXACT sums it with
     * sp->eps2, WALK takes the force pass's at the current positions where
     * sp's method returns them (a pass is run when there is none yet), else
     * the exact sum. Sets d.source to what it did. */
    sim_diag (*diagnostics)(void *b, const sim_step_params *sp, sim_potential_source potential);
    float (*last_step_ms)(void *b);
    /* Waits for the timing of the last step call to be readable. */
    void (*wait_timing)(void *b);
    /* Forget the cached accelerations (softening or kernel changed). */
    void (*invalidate)(void *b);
    /* The tree variant (sim_tree.cu, sim_tree_cpu.c): stats of the last
     * evaluation, its cells down to max_depth, and the force error of the
     * running method on a random sample (see sim.h). */
    sim_tree_stats (*tree_stats)(void *b);
    int (*tree_cells)(void *b, int max_depth, sim_tree_cell *out, int max_cells);
    bool (*force_error)(void *b, const sim_step_params *sp, int samples, uint64_t seed,
                        sim_force_error *out, sim_error *err);
    /* Makes room for what variant v needs beyond the bodies (the GPU tree)
     * before it runs; false (out of memory, in *err) keeps the old variant.
     * NULL: nothing to prepare. */
    bool (*prepare_variant)(void *b, sim_variant v, sim_error *err);
    /* The first step (numbered as sp->first_step + 1 + the step's index in
     * its call) at whose end a position or velocity was non-finite, as far
     * as the host knows without waiting; 0: none since the last upload. */
    int64_t (*nonfinite_step)(void *b);
    /* Adds what n bodies with force method v need to out (host and device
     * bytes) and fills device_free (sim_memory_estimate). */
    void (*memory)(void *b, int n, sim_variant v, sim_memory *out);
    /* The backend's method table, with no backend state: its variants in
     * ladder order (sim_methods) and the row that runs variant v, NULL when
     * v is not a variant (sim_method_of). */
    int (*methods)(sim_variant *out, int max);
    const sim_method *(*method)(sim_variant v);
    /* sim_launched_build; NULL: the backend launches no builds. */
    const char *(*launched_build)(void *b);
    /* sim_failed: the first failure, in err->message; NULL: nothing fails. */
    bool (*failed)(void *b, sim_error *err);
    /* The stop hook (sim_stop) its long evaluations ask, and whether the
     * last step, download, diagnostics or force-error call was ended by it
     * (then *steps_done: the whole steps of that step call). NULL: a
     * backend that never stops (CUDA). */
    void (*set_stop)(void *b, const sim_stop *stop);
    bool (*stopped)(void *b, int *steps_done);
    /* Several GPUs (sim_get_gpu_stats, sim_gpus_disagree); NULL: one. */
    sim_gpu_stats (*gpu_stats)(void *b);
    int (*gpus_disagree)(void *b);
    /* sim_get_potentials: each body's potential into out (host floats);
     * the source it took (WALK, EXACT), NONE when stopped or refused. */
    sim_potential_source (*potentials)(void *b, const sim_step_params *sp, float *out);
    /* sim_radial_velocities: into device memory, queued; NULL: a backend
     * whose state is not on a GPU (the CPU). */
    void (*radial)(void *b, float *device_out, int stride);
    /* diagnostics in two halves (sim_energy_queue): queued behind the work
     * queued so far, and collected, waiting for them alone (source NONE
     * when nothing was queued). NULL: a backend that computes them at once
     * (sim.c keeps them). */
    void (*diagnostics_queue)(void *b, const sim_step_params *sp, sim_potential_source potential);
    sim_diag (*diagnostics_collect)(void *b);
} sim_backend_ops;

/* GFLOP/s as NVIDIA's nbody sample counts it: 20 flops per interaction in
 * float, 30 in double, whatever a kernel executes (sim_method). */
#define SIM_FLOPS_PER_INTERACTION 20.0
#define SIM_FLOPS_PER_INTERACTION_FP64 30.0

extern const sim_backend_ops sim_cpu_ops;
extern const sim_backend_ops sim_cuda_ops;

/* CUDA device limits that decide which block shapes are valid. */
typedef struct sim_device_limits {
    int device; /* CUDA ordinal, or -1: no device (typical limits, no occupancy queries) */
    int max_threads_per_block;
    int max_shared_per_block; /* bytes, the opt-in maximum */
    int sm_count;
} sim_device_limits;

/* Limits of device `device`, or typical ones (1024 threads, 48 KiB, 1 SM)
 * when device < 0 or there is no such device. */
sim_device_limits sim_cuda_device_limits(int device);

/* The variant's clamp rules (sim_kernels.cu). p or q <= 0 ask for auto. */
sim_block sim_kernels_clamp(sim_variant v, int p, int q, int n, const sim_device_limits *lim);

/* sim_loop_cost_of with the device said outright: true asks the current
 * device's occupancy as the launch does, false answers from the builds'
 * thresholds alone (what sim_loop_cost_of does where there is no device). */
bool sim_kernels_loop_cost(sim_variant v, int n, int p, int q, bool device, sim_loop_cost *out);

/* A build of best's kernel, or fp64's one (sim_kernels.cu), as the
 * selection and the cost rows must agree on it (tests/test_methods.c). */
typedef struct sim_kernel_build {
    const char *name; /* its sim_loop_cost row's build */
    bool fp64;
    int b;           /* i bodies per lane */
    int unroll;      /* j steps per pass of its unrolled loop (of b pairs each) */
    int max_threads; /* its largest block; without a device, also its most threads an SM */
    int min_n;       /* it runs from this N on */
} sim_kernel_build;

/* Writes up to max builds to out (out may be NULL); returns how many. */
int sim_kernels_builds(sim_kernel_build *out, int max);

/* The build the last force evaluation of best or fp64 launched (its
 * sim_loop_cost row's name); NULL before one, or on the CPU backend. */
const char *sim_launched_build(sim *s);

/* Initial conditions (sim_ic.c): fills out[0..n-1] with zero centre of mass
 * and momentum. Plummer and shell have total mass 1; galaxies are in their
 * own units (sim_galaxy_desc). softening is the force softening the
 * rotation curves of galaxy disks are measured with. The bodies are a
 * function of the arguments alone, whatever the number of threads: each
 * body draws from its own stream (sim_rng_stream) and every sum over the
 * bodies adds the same blocks in the same order. */
void sim_ic_generate(sim_ic ic, int n, uint64_t seed, const sim_desc *desc, double softening,
                     sim_body *out);

/* The initial conditions' loops over bodies run on OpenMP's threads from
 * this many bodies on; below it waking the threads costs more than they
 * save, and a small simulation starts none (tests/test_stop.c). */
#define SIM_IC_PARALLEL_MIN 16384
#define SIM_PRAGMA(x) _Pragma(#x)
/* The loop that follows on OpenMP's threads with these clauses, where the
 * build has OpenMP; a plain loop elsewhere (then a condition named in the
 * clauses goes unused: (void) it). */
#ifdef _OPENMP
#define SIM_PARALLEL_FOR(clauses) SIM_PRAGMA(omp parallel for clauses)
#else
#define SIM_PARALLEL_FOR(clauses)
#endif
/* Bodies handed out in fixed runs, to whichever thread is free. */
#define SIM_IC_PARALLEL_FOR(wide) SIM_PARALLEL_FOR(schedule(dynamic, 4096) if (wide))

/* Subtracts the mass-weighted mean position and velocity of b[0..n-1]
 * (sim_ic.c): centre of mass at the origin, zero momentum. */
void sim_zero_momentum(sim_body *b, int n);

/* Galaxies (sim_galaxy.c), drawn from the streams of seed. */
void sim_galaxy_disk(const sim_desc *desc, int n, double softening, uint64_t seed, sim_body *out);
void sim_galaxy_merger(const sim_desc *desc, int n, double softening, uint64_t seed, sim_body *out);
/* The relative position and velocity (galaxy 2 minus galaxy 1) at the start. */
void sim_merger_orbit(const sim_desc *desc, double rel_x[3], double rel_v[3]);

/* Shared by both backends: turns the sums a backend collected into the
 * diagnostics. In: kinetic, potential, mass, momentum, angular momentum, and
 * mass-weighted sums in center_of_mass, galaxy_com (m r) and galaxy_vel
 * (m v). Out: totals, virial ratio, and those sums divided by the masses. */
void sim_diag_finish(sim_diag *d);

/* The force error's one definition, for every backend (sim.c): the relative
 * error |a - exact| / |exact| of one body (a body with no exact force
 * counts 0 when a is 0 too, else infinity), and the summary of n of them,
 * sorted in place: median (the mean of the middle two for even n), 99th
 * percentile (nearest rank: the ceil(0.99 n)-th smallest) and maximum. */
double sim_relative_error(const double a[3], const double exact[3]);
void sim_force_error_summary(double *rel, int n, sim_force_error *out);

/* Seconds on a monotonic clock. */
double sim_now_seconds(void);

/* Physical memory of this machine in bytes (0 if unknown). Allocations are
 * checked against it up front: with memory overcommit a malloc far beyond it
 * can "succeed" and the process is killed later instead of reporting. */
double sim_host_memory_bytes(void);

/* Host memory available now without swapping (MemAvailable in
 * /proc/meminfo) in bytes; 0 if unknown. */
double sim_host_available_bytes(void);

/* The CPU reference Barnes-Hut tree (sim_tree_cpu.c), the CPU backend's
 * `tree` force method: double precision, the same maths as the GPU tree. */
typedef struct sim_tree_cpu sim_tree_cpu;
sim_tree_cpu *sim_tree_cpu_create(void); /* NULL when out of memory */
void sim_tree_cpu_destroy(sim_tree_cpu *t);
/* Host bytes the tree of n bodies holds at most (all of it from reserve). */
double sim_tree_cpu_bytes(int n);
/* Allocates for n bodies, worst case; false (with *err) keeps the old arrays. */
bool sim_tree_cpu_reserve(sim_tree_cpu *t, int n, sim_error *err);
/* Builds the tree of pos[4*i] = x, y, z, m (i < n <= reserved) and writes
 * acc[3*i] with the softening squared eps2 (sim_step_params.eps2); theta
 * in (0, 1]; alpha > 0 with acc_old (the last evaluation of these bodies,
 * may be acc itself): the relative criterion too. false when stop (may be
 * NULL) ended it between the build's phases or blocks of the walk: then
 * acc is partly written. */
bool sim_tree_cpu_forces(sim_tree_cpu *t, const double *pos, int n, double eps2, double theta,
                         double alpha, const double *acc_old, double *acc, const sim_stop *stop);
/* Stats of the last sim_tree_cpu_forces (valid false before it). */
sim_tree_stats sim_tree_cpu_stats(const sim_tree_cpu *t);
/* Cells of levels <= max_depth of the last tree, parents first; how many. */
int sim_tree_cpu_cells(const sim_tree_cpu *t, int max_depth, sim_tree_cell *out, int max_cells);
/* Read-only view of the last tree, for white-box tests (tests/test_tree_cpu.c). */
typedef struct sim_tree_cpu_node {
    int level;            /* root 0 */
    int first, count;     /* sorted bodies [first, first + count) */
    int child, nchild;    /* children [child, child + nchild); nchild 0: a leaf */
    double lo[3], side;   /* the cube: lowest corner, side */
    double mass, com[3];  /* com is the geometric centre when mass is 0 */
    double quad[6];       /* traceless quadrupole about com: xx, yy, zz, xy, xz, yz */
    double second_moment; /* sum m |y|^2 about com (the softened quadrupole's eps^2 term) */
    double r_open;        /* side / theta + |com - centre| */
} sim_tree_cpu_node;
int sim_tree_cpu_node_count(const sim_tree_cpu *t); /* 0 before the first build */
sim_tree_cpu_node sim_tree_cpu_node_get(const sim_tree_cpu *t, int i);
const int *sim_tree_cpu_order(const sim_tree_cpu *t); /* body index of sorted k; NULL before */

/* Several GPUs, the tree (sim_cuda.cu's balance_tree): out[0 .. count]
 * gets the boundaries of `count` shares of the sorted bodies moved from
 * at[] (0 = at[0] < ... < at[count] = 1) toward equal work, given each
 * share's work w[k] > 0 at the current ones: each share's work taken as
 * spread evenly over it, every inner boundary moves halfway to where that
 * would split the work evenly (halfway: it is not even within a share,
 * and a whole move can overshoot). out may not be at. */
void sim_balance_shares(const double *at, const double *w, int count, double *out);

/* The low 21 bits of v spread so that bit b lands on bit 3b: one axis of a
 * 63-bit Morton key (sim_tree_cpu.c; sim_spread.c uses it too). */
uint64_t sim_morton_spread(uint64_t v);

/* The bodies spread over `parts` GPUs (sim_spread.c, sim_desc.spread):
 * first[0 .. parts] gets the stretches' starts k n / parts, and
 * index[first[k] .. first[k + 1]) the bodies of stretch k of a Morton curve
 * through their bounding box, in ascending index. keys: n of scratch. */
void sim_spread_split(const sim_body *b, int n, int parts, uint64_t *keys, int *index, int *first);

#ifdef __cplusplus
}
#endif

#endif /* NBODY_SIM_INTERNAL_H */
