/* sim_tree.h - the GPU Barnes-Hut octree (variant "tree"), private to sim/.
 *
 * What it is: a tree rebuilt on the device at every force evaluation and a
 * walk by groups of spatially adjacent bodies, the maths of
 * docs/TREE.md (63-bit Morton keys, octree of key prefixes with
 * LEAF = 16, monopole + traceless quadrupole, Barnes' opening criterion with
 * the centre-of-mass offset). sim_cuda.cu owns one sim_tree per backend and
 * calls it through the variant table (sim_kernels.cu). Also here: the exact
 * all-pairs sample behind sim_measure_force_error, for any variant.
 *
 * C-compatible (extern "C"); the device pointers are plain CUDA types.
 */
#ifndef NBODY_SIM_TREE_H
#define NBODY_SIM_TREE_H

#include <cuda_runtime_api.h>

#include "sim_cuda_check.h"
#include "sim_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_tree sim_tree;

/* Group sizes (p) the walk takes: 32, 64 or 128 bodies; auto 32. Smaller
 * groups' boxes are tighter, so each body sums fewer cells, and the walk
 * of one body per lane needs the fewest registers: 32 was the fastest at
 * every N measured, 64 and 128 slower (docs/PERFORMANCE.md, "The tree"). */
#define SIM_TREE_GROUP_MIN 32
#define SIM_TREE_GROUP_MAX 128
#define SIM_TREE_GROUP_AUTO 32

/* How far below alpha |a| a cell's quadrupole pull must be for the walk to
 * drop it (sim_tree_params.monopoles). The octupole scale M side^3 that
 * accepts a cell bounds a term that is far smaller in practice, while the
 * quadrupole's bound is close to its pull: at this margin the mixed walk's
 * errors stayed close to the quadrupoles' (measured: docs/TREE.md). */
#define SIM_TREE_MONO_MARGIN 128.0f

/* CUDA failures go to *fault, the backend's (sim_cuda_check.h). NULL: no
 * host memory. */
sim_tree *sim_tree_create(int sm_count, sim_fault *fault);
void sim_tree_destroy(sim_tree *t); /* NULL is fine */

/* Device bytes the tree needs for n bodies (for messages and accounting). */
size_t sim_tree_bytes(const sim_tree *t, int n);

/* Room for n bodies; false (out of GPU memory) keeps the old buffers. */
bool sim_tree_reserve(sim_tree *t, int n);

/* One force evaluation's settings (zero-default except eps2 and theta). */
typedef struct sim_tree_params {
    float eps2;  /* softening squared, at least SIM_EPS2_FLOOR (sim_step_params.eps2_kernel) */
    float theta; /* opening angle */
    int group;   /* bodies per walk group: 32, 64 or 128 (clamped) */
    bool potential;    /* also each body's potential in acc's w */
    /* Several GPUs: with share_to > 0, walk only the groups that start in
     * [share_from, share_to) of the sorted bodies (fractions of n: equal
     * fractions give the same body on every GPU, so shares that meet do not
     * overlap); 0: all of them. */
    double share_from, share_to;
    /* The relative criterion (sim_tree.cu, walk_mac): alpha > 0 with acc_old,
     * the accelerations of the last evaluation of these bodies (caller's
     * order; may be acc itself; with a share only this share's are read).
     * Else theta alone. */
    float alpha;
    const float4 *acc_old;
    /* With the relative criterion: an accepted cell whose quadrupole's pull
     * is at most alpha |a| / SIM_TREE_MONO_MARGIN is summed as a monopole
     * (sim_tree.cu, walk_mac). */
    bool monopoles;
    bool untimed; /* leave the stats to the next evaluation (a first pass for acc_old) */
} sim_tree_params;

/* acc[i] = the tree's acceleration of body i (caller's order) at pos. With
 * potential, acc[i].w is body i's potential from the same walk (-sum m_j /
 * sqrt(r^2 + eps^2) over the bodies and cells it summed, the cells'
 * quadrupoles included); else 0. With a share (share_to > 0) it walks only
 * that share of the sorted bodies (the whole tree is built) and writes
 * zeros for the rest, so that the shares' acc summed over GPUs is the
 * whole.
 * Asynchronous. */
void sim_tree_forces(sim_tree *t, int n, const float4 *pos, float4 *acc, const sim_tree_params *p,
                     cudaStream_t stream);

/* GPUs that share one set of bodies spread over them: GPU k's tree
 * (created on its device), device and stream, for k below count. gang:
 * host threads that queue the GPUs' work at once (sim_gang.h; NULL: the
 * caller queues each GPU's in turn). devices may repeat (one GPU standing
 * in for several: the tests). */
typedef struct sim_tree_team {
    int count;
    sim_tree *trees[SIM_MAX_GPUS];
    int devices[SIM_MAX_GPUS];
    cudaStream_t streams[SIM_MAX_GPUS];
    struct sim_gang *gang;
} sim_tree_team;

/* The bodies spread over GPUs drift out of their domains as they move:
 * where each GPU's n[k] bodies at pos[k] belong now. Every GPU's keys in
 * one root cube; the splitters at the ranks j N / count of a sample of
 * every GPU's bodies (their positions at even ranks of its last tree's
 * sorted bodies, keyed in the cube of now: equal counts, to a sample's
 * resolution, without sorting them again). sends[j * count + k] gets how
 * many of GPU j's bodies go to GPU k. The bodies that stay keep their
 * places but for the fill: with stay = sends[j * count + j], GPU j's
 * leave[j] lists its n[j] - stay leavers grouped by GPU (ascending, and
 * by index within one), and movers[j][m], its stayers at or past stay,
 * go into holes[j][m], its leavers' places below stay, for m below
 * *fill_count[j] (device memory, which only the device reads). All are
 * GPU j's device arrays, NULL where none leave; they stay valid until the
 * tree's next call. Waits for the GPUs twice. false: no GPU memory (a
 * fault). */
bool sim_tree_domains_split(const sim_tree_team *team, const int *n, const float4 *const *pos,
                            int *sends, const int **leave, const int **holes, const int **movers,
                            const int **fill_count);
/* Bodies that a tree's last evaluation did not see (an upload): its
 * sample is of other bodies, so the next split samples the keys instead. */
void sim_tree_domains_forget(sim_tree *t);

/* The bodies a tree of n own bodies makes room for in
 * sim_tree_forces_domains: a quarter more, for what the others send (a
 * few percent of a domain at 100M bodies on four GPUs, more at small N:
 * docs/PERFORMANCE.md, "Spread"; more than the room grows the tree). */
int sim_tree_domain_room(int n);

/* Several GPUs, the bodies spread over them (sim_desc.spread): GPU k of
 * the team holds n[k] bodies of its own, pos[k] and acc[k] on its device.
 * Each GPU builds the tree of its own bodies, sends each other GPU the
 * part of it that GPU's groups need (a locally essential tree:
 * docs/TREE.md) and walks its own groups through its tree and the parts
 * it received: acc[k] gets the accelerations (and potentials, as above) of
 * GPU k's bodies. Right for any split of the bodies; fewer cells travel
 * where each GPU's bodies are close together (a stretch of a space-filling
 * curve). p's share is not read; a non-NULL p->acc_old means that each
 * acc[k] holds the last evaluation of these bodies. Waits for the GPUs at
 * least twice (each one's domain, the sizes of what it sends, again for a
 * buffer that had to grow); the walks are left queued. A tree with no room
 * for what it receives grows and the evaluation starts again (no GPU
 * memory for that is a fault). */
void sim_tree_forces_domains(const sim_tree_team *team, const int *n, const float4 *const *pos,
                             float4 *const *acc, const sim_tree_params *p);

/* Stats of the latest timed evaluation whose events have completed (never
 * waits); valid false before the first. */
sim_tree_stats sim_tree_get_stats(sim_tree *t);

/* Evaluations started so far (sim_tree_stats.evaluation numbers them). */
long long sim_tree_evaluations(const sim_tree *t);

/* Cells of levels <= max_depth of the last tree built, parents first (waits
 * for the stream). Returns how many were written. */
int sim_tree_get_cells(sim_tree *t, int max_depth, sim_tree_cell *out, int max_cells,
                       cudaStream_t stream);

/* Force error of acc (or acc64 when fp64) against the exact all-pairs sum in
 * double at the same positions with the softening squared eps2
 * (sim_step_params.eps2), over `samples` bodies drawn with replacement
 * with the seed (all bodies, in order, when samples >= n; drawing without
 * replacement would need an n-long shuffle each time, 40 MB at 10M), the
 * statistics being sim_force_error_summary's, as on the CPU. Waits. */
bool sim_tree_force_error(int n, const float4 *pos, const float4 *acc, const void *pos64,
                          const void *acc64, bool fp64, double eps2, int samples, uint64_t seed,
                          sim_force_error *out, sim_error *err, sim_fault *fault,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* NBODY_SIM_TREE_H */
