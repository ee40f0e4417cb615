/* sim.h - public API of the simulation module.
 *
 * What it is: a gravitational N-body simulation behind an opaque context,
 * its forces the exact all-pairs sum or a Barnes-Hut tree. Two backends sit
 * behind the same calls: a CUDA backend (the all-pairs kernel ladder of the
 * "N-Body Simulation in CUDA" lecture with p x q threads per body, and a
 * tree rebuilt on the GPU) and a plain-C CPU reference in double precision
 * (the exact sum and a tree), which is both the test oracle and the
 * fallback where there is no CUDA device. sim_method_of describes each
 * backend's force methods, so callers need not name them.
 *
 * Module rules: sim/ knows nothing of OpenGL, GLFW or windows. It hands out
 * body positions as packed vertices written to a host or device pointer that
 * the caller owns (app/interop/interop.c maps a GL buffer for that).
 *
 * Units: G = 1 throughout. The Plummer sphere is in Henon units (G = M = 1,
 * E = -1/4); the other scenes state their own scales in sim_ic.c.
 *
 * Usage:
 *     sim_error err;
 *     sim *s = sim_create(&(sim_desc){ .body_count = 16384 }, &err);
 *     if (!s) { fprintf(stderr, "%s\nhint: %s\n", err.message, err.hint); }
 *     sim_step(s, 4);
 *     sim_destroy(s);
 *
 * This header compiles as C and as C++ (nvcc).
 */
#ifndef NBODY_SIM_H
#define NBODY_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nbody_shared.h" /* the tag layout, shared with the shaders */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim sim;

typedef enum sim_backend {
    SIM_BACKEND_DEFAULT = 0, /* CUDA when a device is present, else CPU */
    SIM_BACKEND_CUDA,
    SIM_BACKEND_CPU,
    SIM_BACKEND_COUNT
} sim_backend;

typedef enum sim_ic {
    SIM_IC_DEFAULT = 0, /* Plummer */
    SIM_IC_PLUMMER,     /* Plummer sphere, Henon units, Aarseth-Henon-Wielen sampling */
    SIM_IC_SHELL,       /* cold spherical shell in solid-body rotation about +z */
    SIM_IC_DISK,        /* one disk galaxy: exponential disk, Hernquist bulge and halo */
    SIM_IC_MERGER,      /* two disk galaxies on a Kepler orbit */
    SIM_IC_COUNT
} sim_ic;

/* Force-kernel variants of the CUDA backend, in the order of the lecture's
 * ladder, then the tree. The table with names, descriptions and launchers
 * is in sim_kernels.cu; sim_variant_info() and sim_method_of() read it. */
typedef enum sim_variant {
    SIM_VARIANT_DEFAULT = 0, /* in a sim_desc: sim_variant_auto(N); elsewhere: BEST */
    SIM_VARIANT_NAIVE,       /* one thread per body, array of structs, 1/sqrtf, if (i != j) */
    SIM_VARIANT_SOA,         /* scalar arrays */
    SIM_VARIANT_RSQRT,       /* rsqrtf */
    SIM_VARIANT_TILED,       /* shared-memory tiles, p x q threads per body block */
    SIM_VARIANT_UNROLLED,    /* unrolled inner loop */
    SIM_VARIANT_NOIF,        /* no if (i != j) */
    SIM_VARIANT_FMA,         /* terms ordered for fused multiply-add */
    SIM_VARIANT_FAST,        /* flush-to-zero rsqrt, this kernel only */
    SIM_VARIANT_BEST,        /* tuned for Hopper, portable */
    SIM_VARIANT_FP64,        /* double precision throughout */
    SIM_VARIANT_TREE,        /* Barnes-Hut octree, O(N log N) */
    SIM_VARIANT_COUNT
} sim_variant;

typedef struct sim_variant_desc {
    const char *name;        /* short, lower case: "naive", "tiled", ... */
    const char *description; /* one line: what this rung adds */
    const char *p_meaning;   /* what p means for this variant, or NULL if ignored */
    const char *q_meaning;   /* what q means for this variant, or NULL if ignored */
    bool fp64;               /* computes in double precision */
} sim_variant_desc;

/* How a force method's step time grows with N. */
typedef enum sim_scaling { SIM_SCALING_N2, SIM_SCALING_NLOGN } sim_scaling;

/* A force method as one row of sim's method table: what the app needs in
 * order to show it, step through it, time it and draw its cells, without
 * naming any method. */
typedef struct sim_method {
    sim_variant variant;          /* its value for sim_desc.variant and sim_set_variant */
    const char *name;             /* "naive" ... "fp64", "tree"; CPU backend: "reference", "tree" */
    const char *description;      /* one line: what this rung adds */
    const char *p_meaning;        /* what p means, or NULL when p is not used */
    const char *q_meaning;        /* likewise q */
    bool fp64;                    /* computes in double precision */
    bool exact;                   /* the exact pairwise sum: N^2 interactions a step */
    bool uses_theta;              /* the opening angle (theta) shapes its forces */
    bool has_cells;               /* sim_tree_cells returns its cells */
    bool walk_potential;          /* its force pass returns each body's potential (sim_energy) */
    bool block_shape;             /* p and q are the method's (false on the CPU backend) */
    sim_scaling scaling;          /* how a step's time grows with N */
    double flops_per_interaction; /* the conventional count for GFLOP/s: 20, or 30 in fp64 */
    bool splits; /* on several GPUs (sim_desc.gpus) each computes a share of its forces; else
                    every GPU computes them all */
    /* Its key lines of source, cut at build time from the regions sim/sim_code.list
     * names (several regions joined by a "..." line); NULL: none. */
    const char *code;
    const char *why; /* one sentence: why it is faster than the method before, or why not */
} sim_method;

/* Rotating-shell parameters (SIM_IC_SHELL). Zero means default. */
typedef struct sim_shell_desc {
    double inner_radius; /* 0 -> 0.625 (NVIDIA's demo ratio 2.5 : 4) */
    double outer_radius; /* 0 -> 1.0 */
    double spin;         /* angular speed in units of sqrt(G M / outer^3); 0 -> 0.6 */
} sim_shell_desc;

/* Galaxy units, those of SIM_IC_DISK and SIM_IC_MERGER (sim_ic_galactic):
 * G = 1, length 1 kpc, mass 10^10 solar masses, hence velocity
 * sqrt(G M / L) = 207.4 km/s and time L / V = 4.71 Myr (docs/GALAXIES.md;
 * tests/test_galaxy.c derives them from the cgs values below). */
#define SIM_GALAXY_KPC_PER_LENGTH 1.0
#define SIM_GALAXY_MSUN_PER_MASS 1e10
#define SIM_GALAXY_KMS_PER_VELOCITY 207.4
#define SIM_GALAXY_MYR_PER_TIME 4.71

/* The cgs values snapshot units convert through: 1 kpc from the IAU 2012
 * astronomical unit, the solar mass as the IAU 2015 nominal GM over CODATA
 * 2018's G, and that G. */
#define SIM_KPC_CM 3.0856775814913673e21
#define SIM_MSUN_G 1.98841e33
#define SIM_G_CGS 6.67430e-8

/* A disk galaxy (SIM_IC_DISK, and galaxy 1 of SIM_IC_MERGER), in galaxy
 * units. The defaults make a Milky-Way-like galaxy with a flat rotation
 * curve near 1 (207 km/s). Zero means default. */
typedef struct sim_galaxy_desc {
    double disk_mass;        /* 0 -> 5 */
    double disk_scale;       /* exponential scale length R_d; 0 -> 3 */
    double disk_height;      /* sech^2 scale height z0; 0 -> 0.3 */
    double disk_temperature; /* Toomre Q of the radial velocity dispersion; 0 -> 1.2 */
    double bulge_mass;       /* Hernquist, within 10 scale radii; 0 -> 1 */
    double bulge_scale;      /* 0 -> 0.5 */
    double halo_mass;        /* Hernquist, within its truncation radius; 0 -> 15 */
    double halo_scale;       /* 0 -> 12 */
    double halo_cut;         /* truncation radius; 0 -> 36 */
    double disk_fraction;    /* of the bodies; 0 -> 0.5 */
    double bulge_fraction;   /* of the bodies; 0 -> 0.1 (the halo gets the rest) */
} sim_galaxy_desc;

/* Two galaxies on a two-body (Kepler) orbit (SIM_IC_MERGER). Galaxy 2 is
 * galaxy 1 with every mass times mass_ratio and every length times
 * mass_ratio^(1/3) (same mean density). The orbit lies in the x-y plane with
 * its angular momentum along +z; each disk's spin is tilted from +z by its
 * inclination (0 prograde, 180 retrograde). Zero means default. */
typedef struct sim_merger_desc {
    double mass_ratio;   /* M2 / M1; 0 -> 1 */
    double pericenter;   /* of the point-mass orbit, kpc; 0 -> 8 */
    double separation;   /* at the start, kpc; 0 -> 80 */
    double eccentricity; /* 1 parabolic, < 1 bound, > 1 unbound; 0 -> 1 */
    double incl1, incl2; /* degrees; 0 -> 0 (prograde) */
} sim_merger_desc;

/* Default opening angles of the tree variant (cell size / distance): the
 * largest that meet a median relative force error <= 1e-3 and a 99th
 * percentile <= 1e-2 on a Plummer sphere with margin. The GPU walks by
 * groups, never less accurate than body by body, and meets them at a larger
 * angle than the CPU reference, which walks body by body (docs/TREE.md,
 * "Measured"). */
#define SIM_THETA_DEFAULT 1.0
#define SIM_THETA_DEFAULT_CPU 0.6
/* The tree's relative opening criterion (docs/TREE.md): a cell is also
 * opened unless M side^3 / d^5 <= alpha |a| (|a| of the last evaluation);
 * off (0) on the CPU backend by default, where theta alone decides. */
#define SIM_TREE_ALPHA_DEFAULT 0.015
#define SIM_TREE_ALPHA_DEFAULT_CPU 0.0

/* Softening 0 (none) and bodies at the same position: a pair at zero
 * separation, r^2 + eps^2 = 0, contributes no force and no potential, just
 * as a body does not act on itself - on every backend and force method.
 * (The formula would give 0 * inf = NaN for the force and -inf for the
 * potential.) The CPU backend (reference and tree), the diagnostics and the
 * exact sum of sim_measure_force_error compute with eps^2 itself and skip
 * such a pair; every CUDA force kernel, the tree included, gets the same
 * zero by computing with eps^2 raised to at least SIM_EPS2_FLOOR, so that
 * such a pair's separation, 0, times a finite 1/r^3 is 0. The floor also
 * weakens a pair at distance r by a relative 1.5e-12 / r^2 when eps is
 * below 1e-6. sim.c squares the softening once per call, in both forms. */
#define SIM_EPS2_FLOOR 1e-12f

/* Stopping a long evaluation on the CPU backend. Between blocks of bodies
 * of a force evaluation, of the potential's sum and of a force-error sample
 * (each a few milliseconds of work), and between steps, sim asks
 * requested(ctx) on the thread that called it; true ends the evaluation
 * under way, and nothing half-computed is reported as a result: a stopped
 * sim_step keeps the state of its last whole step, sim_diagnostics says
 * stopped, sim_get_bodies gives no accelerations. The CUDA backend queues
 * its steps on the GPU and never asks. A zero sim_stop never stops. */
typedef struct sim_stop {
    bool (*requested)(void *ctx);
    void *ctx;
} sim_stop;

/* Everything sim_create needs. Zero-initialise it and set what you care
 * about; every zero field takes the default listed beside it (sokol style).
 * sim_desc_defaults() returns the filled-in copy and a test pins the values. */
typedef struct sim_desc {
    int body_count;      /* N; 0 -> 16384 */
    sim_ic ic;           /* initial condition; 0 -> Plummer */
    uint64_t seed;       /* random seed; 0 is a valid seed and the default */
    double dt;           /* time step in model time units; 0 -> 1/128 */
    double softening;    /* Plummer softening length eps (length units). 0 is legal and means
                            none, so it is not a "use the default" value: scenes set their own
                            (the app's scene table: 0.05 for Plummer and shell, 0.15 galaxies) */
    double damping;      /* velocity factor applied once per step, in (0, 1]; 0 -> 1 (none) */
    double theta;        /* tree opening angle (variant tree); 0 -> SIM_THETA_DEFAULT, on
                            the CPU backend SIM_THETA_DEFAULT_CPU */
    double tree_alpha;   /* the tree's relative criterion; 0 -> SIM_TREE_ALPHA_DEFAULT, on the
                            CPU backend SIM_TREE_ALPHA_DEFAULT_CPU; negative -> off */
    bool tree_quadrupoles_only; /* the CUDA tree: every accepted cell as a quadrupole. false
                                   (default): with the relative criterion on, a cell whose
                                   quadrupole's pull is negligible as a monopole (docs/TREE.md);
                                   for comparisons, fixed at sim_create */
    sim_backend backend; /* 0 -> CUDA if a device is present, else CPU */
    sim_variant variant; /* CUDA force kernel; 0 -> the fastest */
    int p;               /* bodies per tile (threads per block in x); 0 -> variant's choice */
    int q;               /* threads sharing one body's loop; 0 -> variant's choice */
    int device;          /* CUDA device ordinal; 0 -> the first */
    int gpus;            /* CUDA devices to run on, device, device + 1, ...; 0 -> 1. More than
                            one needs a build with NCCL (sim_multi_gpu_support) */
    bool spread;         /* gpus > 1, the tree in float only: each GPU keeps only its own
                            bodies (a stretch of a Morton curve) and receives the parts of
                            the others' trees it needs, so the GPUs together hold what one
                            cannot; false: every GPU holds every body */
    sim_shell_desc shell;
    sim_galaxy_desc galaxy;
    sim_merger_desc merger;
    sim_stop stop; /* asked during long CPU evaluations; zero: never stopped */
} sim_desc;

/* A failure a user can cause, in words: one line saying what went wrong and
 * one saying what to do about it. */
typedef struct sim_error {
    char message[512]; /* every module's error has these sizes: one fits another */
    char hint[256];
} sim_error;

/* The numeric knobs and their one range each. The command line, the keys,
 * --script and sim_create all check values through sim_knob_check, so a
 * value is accepted or refused the same way whatever the path to it. */
typedef enum sim_knob {
    SIM_KNOB_BODY_COUNT,
    SIM_KNOB_DT,
    SIM_KNOB_SOFTENING,
    SIM_KNOB_DAMPING,
    SIM_KNOB_THETA,
    SIM_KNOB_TREE_ALPHA,
    SIM_KNOB_P,
    SIM_KNOB_Q,
    SIM_KNOB_MASS_RATIO,
    SIM_KNOB_PERICENTER,
    SIM_KNOB_SEPARATION,
    SIM_KNOB_ECCENTRICITY,
    SIM_KNOB_INCL1,
    SIM_KNOB_INCL2,
    SIM_KNOB_DISK_TEMPERATURE,
    SIM_KNOB_COUNT
} sim_knob;

typedef struct sim_knob_info {
    const char *name; /* "dt", as the flag and the status JSON spell it */
    const char *what; /* "time step", for messages */
    const char *unit; /* "model time units", or "" */
    double min, max;  /* inclusive range */
    bool zero_ok;     /* 0 is legal too, below min (softening 0: none) */
    bool integer;     /* whole numbers only */
} sim_knob_info;

const sim_knob_info *sim_knob_get(sim_knob k);

/* true when v is a legal value of knob k; else false with *err saying
 * "<what> <v> is outside [min, max] <unit>" and a hint. Non-finite values
 * are refused. Callers check user text as a double before narrowing it. */
bool sim_knob_check(sim_knob k, double v, sim_error *err);

/* Per-body tag: which galaxy (bits 0-1) and which component (bits 2-3) a
 * body was born in; 0 for the Plummer sphere and the shell. */
typedef enum sim_component {
    SIM_COMPONENT_DISK = NBODY_COMPONENT_DISK,
    SIM_COMPONENT_BULGE = NBODY_COMPONENT_BULGE,
    SIM_COMPONENT_HALO = NBODY_COMPONENT_HALO,
} sim_component;
#define SIM_TAG(galaxy, component)                                                                 \
    ((unsigned)(galaxy) | ((unsigned)(component) << NBODY_TAG_COMPONENT_SHIFT))
#define SIM_TAG_GALAXY(tag) ((tag)&NBODY_TAG_GALAXY_MASK)
#define SIM_TAG_COMPONENT(tag) (((tag) >> NBODY_TAG_COMPONENT_SHIFT) & NBODY_TAG_COMPONENT_MASK)

/* One body as the host sees it (double precision, owned by the caller). */
typedef struct sim_body {
    double pos[3];
    double vel[3];
    double acc[3]; /* read back: acceleration at the current positions; ignored on set */
    double mass;
    unsigned tag; /* SIM_TAG(galaxy, component) */
} sim_body;

/* What the renderer draws: position and speed, 16 bytes per body. */
typedef struct sim_vertex {
    float x, y, z;
    float speed;
} sim_vertex;

/* The live state of the knobs (sim_get_params). */
typedef struct sim_params {
    int body_count;
    sim_ic ic;
    uint64_t seed;
    /* dt, softening, damping and theta as set (a float kernel rounds what it takes) */
    double dt, softening, damping;
    double theta;        /* tree opening angle */
    double tree_alpha;   /* the tree's relative criterion (0: off) */
    sim_backend backend; /* resolved: CUDA or CPU, never DEFAULT */
    sim_variant variant; /* resolved, never DEFAULT */
    int p, q;            /* resolved block shape in use */
    int gpus;            /* GPUs it runs on (sim_desc.gpus), 1 on the CPU backend */
    bool spread;         /* each GPU holds its own bodies (sim_desc.spread) */
    int draw_stride;     /* the vertices are of bodies 0, k, 2k, ... (sim_set_draw_stride) */
    int drawn;           /* how many: body_count / draw_stride, rounded up */
    double time;         /* simulated time since the last reset */
    int64_t steps;       /* steps since the last reset */
    uint32_t generation; /* counts resets and sim_set_bodies: new bodies, new tags */
} sim_params;

/* Where a sim_diag's potential energy comes from. */
typedef enum sim_potential_source {
    SIM_POTENTIAL_NONE,  /* not computed (sim_moments): potential, total, virial_ratio are 0 */
    SIM_POTENTIAL_EXACT, /* the exact pairwise sum, O(N^2) */
    SIM_POTENTIAL_WALK,  /* each body's potential from the last force pass (the tree), O(N) */
} sim_potential_source;

/* Conserved quantities and their friends (sim_diagnostics). Potential energy
 * uses the same Plummer softening as the forces. */
typedef struct sim_diag {
    sim_potential_source source; /* of potential, total and virial_ratio */
    double kinetic;             /* K = sum m v^2 / 2 */
    double potential;           /* W = -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2) */
    double total;               /* E = K + W */
    double virial_ratio;        /* 2K / |W| */
    double mass;                /* total mass */
    double momentum[3];         /* sum m v */
    double angular_momentum[3]; /* sum m r x v, about the origin */
    double center_of_mass[3];
    /* per galaxy (tag bits 0-1), galaxies 0 and 1 */
    double galaxy_mass[2];
    double galaxy_com[2][3]; /* centre of mass */
    double galaxy_vel[2][3]; /* bulk velocity: momentum / mass */
    bool stopped; /* sim_stop ended the potential's sum: potential, total, virial ratio 0 */
} sim_diag;

/* A block shape after clamping to what a variant and device accept. */
typedef struct sim_block {
    int p, q;
    bool clamped;     /* true when p or q differ from what was asked */
    char reason[128]; /* why, when clamped ("p x q <= 1024 threads per block") */
} sim_block;

/* Fills every zero field of *desc with its default. */
sim_desc sim_desc_defaults(const sim_desc *desc);

/* true when sim_create would accept desc's values (every knob in its range
 * and the combinations: an orbit the merger can start on, galaxy and shell
 * shapes); else false with *err naming what is wrong. Checks values only:
 * no device or memory is asked for. */
bool sim_desc_check(const sim_desc *desc, sim_error *err);

/* Number of usable CUDA devices; 0 when there is none or no driver. When 0
 * and why is non-NULL, writes the CUDA runtime's reason into why. */
int sim_cuda_device_count(char *why, size_t why_len);

/* The backend `want` means: itself, or for SIM_BACKEND_DEFAULT, CUDA when a
 * device is present, else CPU (then why, when non-NULL, gets the reason).
 * sim_create decides with this, so callers who must know first agree. */
sim_backend sim_backend_resolve(sim_backend want, char *why, size_t why_len);

/* Creates a simulation and seeds it with desc->ic. Returns NULL on failure
 * (invalid desc, no CUDA device for SIM_BACKEND_CUDA, out of memory) and
 * fills *err when err is non-NULL. */
sim *sim_create(const sim_desc *desc, sim_error *err);
void sim_destroy(sim *s);

/* Re-seeds with initial condition ic, n bodies and seed. Returns false and
 * keeps the old state when n cannot be allocated. */
bool sim_reset(sim *s, sim_ic ic, int n, uint64_t seed, sim_error *err);

/* Re-seeds with the scene of desc: its ic, body_count, seed, dt, softening
 * and the shell, galaxy and merger parameters (zero fields take their
 * defaults; softening 0 means none). The bodies are a pure function of these
 * (a disk's rotation curve is measured with desc->softening), and dt and
 * softening become the live knobs; damping, theta, kernel and block shape
 * stay. Returns false (invalid parameters, no memory) and keeps the old
 * state. */
bool sim_reset_scene(sim *s, const sim_desc *desc, sim_error *err);

/* Advances by steps kick-drift-kick leapfrog steps. false when sim_stop
 * ended a step (CPU backend): the steps before it count (time, steps), and
 * the bodies are as the last whole step left them. */
bool sim_step(sim *s, int steps);
/* Whether each sim_step's last force pass also returns each body's
 * potential, where the method's pass can (sim_method.walk_potential), for
 * sim_energy_queue and sim_get_potentials to read without a pass of their
 * own. On at creation. The walk takes longer with them, so a loop that
 * samples the energy less often than it steps turns them off for the steps
 * it does not sample (sim_energy and the others still give the same sums:
 * they make the pass they need). */
void sim_set_step_potentials(sim *s, bool on);

/* Live knobs. Values are taken as given (callers validate user input). */
void sim_set_dt(sim *s, double dt);
void sim_set_softening(sim *s, double softening);
void sim_set_damping(sim *s, double damping);
void sim_set_theta(sim *s, double theta);
/* The tree's relative criterion's tolerance, >= 0 (0: off). */
void sim_set_tree_alpha(sim *s, double alpha);

/* Switches the force method mid-run: on the CUDA backend the kernel, on the
 * CPU backend between the reference sum and the tree. Switching to or from
 * fp64 converts the state between float and double. The block shape is
 * clamped to the new variant. Returns false (with *err) when there is no
 * room for the tree or, on the GPU, for the double state; the old variant
 * stays. */
bool sim_set_variant(sim *s, sim_variant v, sim_error *err);

/* Clamps (p, q) to what variant v accepts on this simulation's device.
 * p <= 0 or q <= 0 asks for the variant's automatic choice. */
sim_block sim_clamp_block(const sim *s, sim_variant v, int p, int q);

/* Sets the block shape after clamping and returns what was applied. */
sim_block sim_set_block(sim *s, int p, int q);

sim_params sim_get_params(const sim *s);

/* Copies every body to out[0 .. body_count-1]. false when the
 * accelerations had to be computed and sim_stop ended that: then every
 * acc is NaN (not computed); the rest is whole. */
bool sim_get_bodies(sim *s, sim_body *out);
/* The same without the accelerations (every acc NaN): it never computes
 * forces, so it costs a copy whatever the method and N (the view's fit,
 * the selections, the density view's masses and tags). */
void sim_get_state(sim *s, sim_body *out);

/* Copies every body's tag to out[0 .. body_count-1] (cheap: kept on the host). */
void sim_get_tags(const sim *s, uint8_t *out);

/* Replaces the bodies with n given ones (time restarts at 0). Returns false
 * when n cannot be allocated. */
bool sim_set_bodies(sim *s, const sim_body *bodies, int n, sim_error *err);

/* Energies, momenta and the virial ratio at the current positions
 * (reduced on the GPU for the CUDA backend). O(N^2) like one force step;
 * waits for the GPU (it reads the sums back). */
sim_diag sim_diagnostics(sim *s);

/* The same at O(N) where the running method's force pass returns each
 * body's potential (sim_method.walk_potential: the tree on the CUDA
 * backend): W = sum m_i phi_i / 2 from the pass at the current positions
 * (one is made when there is none, as before the first step), as
 * approximate as its forces. Otherwise the exact sum, as sim_diagnostics.
 * d.source says which. Waits for the GPU. */
sim_diag sim_energy(sim *s);
/* sim_energy in two halves, for a frame loop: sim_energy_queue puts the
 * sums behind the steps queued so far and returns (the CUDA backend; the
 * CPU's are made there and then), and sim_energy_collect gives them,
 * waiting for them alone, not for what was queued after. Collected after
 * a step, new bodies, another softening, method or opening criterion, or
 * with none queued, the sums are sim_energy's at the state of the
 * collect. */
void sim_energy_queue(sim *s);
sim_diag sim_energy_collect(sim *s);

/* Each body's potential, phi_i = -sum_{j != i} m_j / sqrt(r^2 + eps^2)
 * (the softening of the forces; a pair at zero separation adds nothing),
 * at the current positions, into out[0 .. body_count-1]: the colour mode
 * "potential". Where the running method's force pass returns potentials
 * (the tree on the CUDA backend) they are its walk's, as approximate as its
 * forces (a pass is made when there is none at these positions); otherwise
 * the exact sum, O(N^2), in double on the CPU backend. Returns where they
 * came from; SIM_POTENTIAL_NONE when sim_stop ended the CPU's sum: out is
 * then untouched. Waits for the GPU. */
sim_potential_source sim_get_potentials(sim *s, float *out);

/* Each drawn body's radial velocity, (v - v_c) . (x - x_c) / |x - x_c| (0
 * where x = x_c), about the centre of mass x_c and bulk velocity v_c of its
 * galaxy (SIM_TAG_GALAXY), into CUDA device memory device_out[0 ..
 * drawn-1], value j body j * draw_stride's (sim_params): the colour mode "radial velocity" with no
 * copy of the bodies to the host (app_colour_radial is its host twin). Queued on the simulation's
 * stream, a blocking one, and not waited for: work queued next on the legacy default stream runs
 * after it. false on a backend whose state is not on a GPU (the CPU): nothing written. */
bool sim_radial_velocities(sim *s, float *device_out);

/* The O(N) part only: mass, kinetic energy, momenta, centre of mass
 * (potential, total and virial ratio are 0). Cheap enough for every frame,
 * but like sim_diagnostics it waits for the GPU to finish the steps queued
 * before it. */
sim_diag sim_moments(sim *s);

/* Which bodies the vertices are of: every stride-th (1, the default: all;
 * less than 1 is taken as 1), vertex j body j * stride's, sim_params.drawn
 * of them, from the next vertex write on and across new bodies. For a
 * drawing that cannot hold every body: a stride through the index keeps
 * each galaxy's and component's share, as the scenes lay them out in runs. */
void sim_set_draw_stride(sim *s, int stride);

/* Writes the drawn vertices (sim_params.drawn; vertex j is body
 * j * draw_stride's) to dst: CUDA device memory when dst_on_device
 * (only valid for the CUDA backend; the write is also ordered after work
 * queued before it on the legacy default stream and before work queued
 * there after it, as app/interop/interop.c's map and unmap bracket it), else
 * host memory. Either way it is written when this returns: the call waits
 * for the GPU (on the device path because that is faster than leaving the
 * wait to the interop unmap: docs/PERFORMANCE.md, "How we got here", the
 * frame's waits). */
void sim_write_vertices(sim *s, sim_vertex *dst, bool dst_on_device);

/* The same into CUDA device memory (CUDA backend only), queued and not
 * waited for: work the caller queues next on the legacy default stream
 * runs after the write (splat/'s sprites read the vertices so, and wait
 * once for both). */
void sim_queue_vertices(sim *s, sim_vertex *dst);

/* Non-finite state (NaN or infinity), caught by the integrator itself:
 * every step of every backend and force method checks the positions and
 * velocities it writes (on the GPU a flag in device memory, set by the
 * leapfrog kernel and copied back with the step, so reading it adds no
 * wait). True once some position or velocity has been non-finite at the
 * end of a step since the last sim_reset, sim_reset_scene or
 * sim_set_bodies; then *step (when non-NULL) is that first step, counted
 * as sim_params.steps counts (a state already non-finite at the start is
 * caught at step 1), and *time the simulated time at its end (exact while
 * dt has not changed during the last 64 sim_step calls). On the CUDA
 * backend the answer is as of the last time the host waited for the GPU
 * (sim_write_vertices, sim_diagnostics, sim_moments, sim_get_bodies,
 * sim_step_timed): a frame that writes its vertices after stepping knows
 * about its own steps. Never waits. */
bool sim_nonfinite(sim *s, int64_t *step, double *time);

/* True once a CUDA call of this simulation has failed (a lost device, a
 * faulting kernel, a bug): *err then names the first failure and gives a
 * hint, and nothing the simulation returns can be trusted. sim/ never
 * aborts or exits: the caller decides (the app says so and exits 1).
 * Always false on the CPU backend. Makes no CUDA call. */
bool sim_failed(const sim *s, sim_error *err);

/* What n bodies would need with this simulation's backend and force
 * method (its state, the tree's buffers when the tree runs, and the host
 * buffer sim_reset builds them in), and what is free now: host memory as
 * /proc/meminfo's MemAvailable, device memory as the CUDA runtime reports
 * it. Bytes; a free count of 0 means unknown. Buffers that are already
 * this size are counted too (an estimate to compare with free memory
 * before growing, not an exact accounting). */
typedef struct sim_memory {
    double host_need, host_free;
    double device_need, device_free; /* 0 and 0 on the CPU backend */
    /* Device bytes a drawn body adds to the first GPU when the vertices
     * are written there (spread: every GPU's drawn bodies gathered, with
     * their places); 0 where the vertices are written in place. */
    double device_draw;
} sim_memory;
sim_memory sim_memory_estimate(sim *s, int n);

/* Milliseconds per step of a recent sim_step call: CUDA events on the CUDA
 * backend (read when they have completed, never waited for), the monotonic
 * clock on the CPU backend. 0 before the first step. */
float sim_last_step_ms(sim *s);

/* For benchmarks: advances by steps, waits until they are done and returns
 * their milliseconds per step (CUDA events around exactly these steps). */
float sim_step_timed(sim *s, int steps);

/* The tree variant's numbers for the HUD and the benchmark (sim_tree_stats). */
typedef struct sim_tree_stats {
    bool valid;                   /* false: the tree variant has not run yet */
    float build_ms, walk_ms;      /* of the latest timed force evaluation */
    int depth;                    /* deepest level (root 0) */
    int cells, leaves;            /* cells in the octree, of which leaves */
    double interactions_per_body; /* evaluated (cell + body) interactions, mean per body */
    double lane_use; /* those over the lane slots they took (groups fill lanes unevenly) */
    double monopole_share; /* of those interactions, cells summed as monopoles (CUDA) */
    double walk_slots;     /* the lane slots the walk took: its work (CUDA) */
    long long evaluation;  /* which evaluation of this tree they are from, from 1 (CUDA) */
    /* Several GPUs, each its own tree (sim_tree_forces_domains): what this
     * GPU sent the others of its tree, MB, and the largest share of its
     * cells that went to one of them. */
    double sent_mb, sent_share_max;
    int domain_boxes; /* ... and the boxes it told them its domain as (a cut of its tree) */
} sim_tree_stats;

/* One octree cell for drawing: an axis-aligned cube. */
typedef struct sim_tree_cell {
    float center[3];
    float half; /* half the side */
    int level;  /* root 0 */
} sim_tree_cell;

/* Relative force error of the running method against the exact sum, over
 * a random sample of bodies: |a - a_exact| / |a_exact|. */
typedef struct sim_force_error {
    int samples;
    double median, p99, max;
} sim_force_error;

/* Stats of the last tree evaluation (valid false unless the variant is tree). */
sim_tree_stats sim_get_tree_stats(sim *s);

/* Copies up to max_cells cells of levels <= max_depth of the last tree
 * built into out (parents before children); returns how many. 0 when the
 * tree variant is not running. */
int sim_tree_cells(sim *s, int max_depth, sim_tree_cell *out, int max_cells);

/* Measures the running force method's error on `samples` bodies chosen at
 * random (seeded) against the exact all-pairs sum at the current positions.
 * false (with *err) when it cannot run (no memory). */
bool sim_measure_force_error(sim *s, int samples, uint64_t seed, sim_force_error *out,
                             sim_error *err);

/* What the benchmark and the HUD say about a GPU. */
typedef struct sim_device_info {
    char name[256];
    int sm_count;
    int clock_khz; /* peak SM clock */
    int cc_major, cc_minor;
    int driver_version, runtime_version; /* CUDA's encoding: 13000 = 13.0 */
    size_t memory_bytes;
    int memory_clock_khz; /* peak memory clock (cudaDevAttrMemoryClockRate); 0: unknown */
    int memory_bus_bits;  /* global memory bus width (cudaDevAttrGlobalMemoryBusWidth) */
} sim_device_info;

/* Several GPUs of one host (sim_desc.gpus). Every GPU holds the whole
 * state; where the method splits (sim_method.splits: best, fp64, the tree)
 * each computes a share of the forces and one all-reduce adds the shares,
 * and every GPU integrates all bodies alike, so their states stay
 * identical; otherwise each GPU computes all the forces. With
 * sim_desc.spread each GPU holds and integrates only its own bodies. */
#define SIM_MAX_GPUS 16

/* Writes what this build runs several GPUs with ("NCCL 2.32.3") to out and
 * returns true; false (out "") for a build without NCCL. */
bool sim_multi_gpu_support(char *out, size_t len);

/* From these N on, a method that splits its forces ran faster on two GPUs
 * than on one, and on four than on two, on one host's NVLink-joined GPUs
 * (docs/PERFORMANCE.md, "Several GPUs"): all-pairs (N^2) and the tree
 * (N log N). More than four were not measured, so the automatic count
 * stops at SIM_GPUS_AUTO_MAX. */
#define SIM_GPUS2_MIN_BODIES_N2 12288
#define SIM_GPUS4_MIN_BODIES_N2 16384
#define SIM_GPUS2_MIN_BODIES_NLOGN 131072
#define SIM_GPUS4_MIN_BODIES_NLOGN 786432
#define SIM_GPUS_AUTO_MAX 4

/* The GPU count for n bodies of a method with this scaling that splits
 * its forces, of `devices` visible: 1 below the two-GPU threshold, 2 from
 * it, every device up to SIM_GPUS_AUTO_MAX from the four-GPU one (three
 * GPUs take four's threshold). */
int sim_gpus_for(int n, sim_scaling scaling, int devices);

/* From these N on, the tree with its bodies spread over the GPUs
 * (sim_desc.spread) ran faster than with every body on every GPU, on one
 * host's NVLink-joined GPUs (docs/PERFORMANCE.md, "Where spreading pays"):
 * two GPUs, and four (three and more take four's; more than four were not
 * measured). Where a GPU cannot hold N bodies below them, creating the
 * simulation fails with a hint to spread. */
#define SIM_SPREAD2_MIN_BODIES 10000000
#define SIM_SPREAD4_MIN_BODIES 12000000

/* Whether the tree's n bodies on `gpus` GPUs run faster spread. */
bool sim_spread_for(int n, int gpus);

/* The GPUs' numbers for the HUD and the benchmark: the times from one
 * step, the first of a recent step call (CUDA events, read when they have
 * completed, never waited for), except build_ms. */
typedef struct sim_gpu_stats {
    int gpus;                      /* GPUs the simulation runs on; 1: one (the rest is 0) */
    bool measured;                 /* the times below are from a step on them */
    bool split;                    /* that step's method split its forces (sim_method.splits) */
    float forces_ms[SIM_MAX_GPUS]; /* each GPU's force evaluation: its share (the tree: the
                                      whole build, then its share of the walk) */
    float share[SIM_MAX_GPUS];     /* the tree: each GPU's share of the sorted bodies whose
                                      groups it walked in that step (they start equal and move
                                      toward equal work: sim_tree_stats.walk_slots); 0 for the
                                      other methods */
    float build_ms;                /* the tree's build on the first GPU (each builds it), of
                                      its last timed evaluation (sim_tree_stats); 0 spread */
    bool spread;                   /* the bodies are spread (sim_desc.spread): each GPU's
                                      forces hold the build of its own tree, and no sum */
    float sent_mb[SIM_MAX_GPUS];   /* spread: what each GPU sent the others of its tree, MB */
    float walk_ms[SIM_MAX_GPUS];   /* spread: each GPU's walk of its own bodies, of its tree's
                                      last timed evaluation: work alone, where forces_ms also
                                      holds the waits for the other GPUs' boxes and parts */
    int domain_boxes[SIM_MAX_GPUS]; /* spread: the boxes each told the others its domain as */
    float sum_ms;                  /* the all-reduce adding the shares, on the first GPU, from
                                      its own forces' end: it waits for the slowest GPU */
    double sum_bytes;              /* the buffer it sums: N x 16 bytes (32 in fp64); 0 when
                                      the method does not split */
    float step_ms;                 /* that step, whole (the first GPU's clock) */
    /* Estimated parallel efficiency: one GPU's time for that step (the
     * shares' times added, the build and integration that every GPU
     * repeats once, no sum) over gpus x step_ms, in (0, 1]; 1 / gpus where
     * the method does not split; 0 spread (each GPU's forces hold its
     * waits for the others, so their sum is not one GPU's time). The
     * benchmark measures the real ratio. */
    double efficiency;
} sim_gpu_stats;
sim_gpu_stats sim_get_gpu_stats(sim *s);

/* How many bodies differ, in any bit of position or velocity, between the
 * first GPU's state and each other's, added over the others (0 on one
 * GPU; -1: no host memory to compare in). Waits for the GPUs. For tests:
 * the GPUs' states are meant to be identical. */
int sim_gpus_disagree(sim *s);

/* Fills *out for CUDA device `device`; false when there is none. */
bool sim_cuda_device_info(int device, sim_device_info *out);

/* What the innermost loop of the CUDA build that runs method v for n
 * bodies in blocks of p x q executes, counted in its sm_90 SASS by
 * scripts/sass-loops.py (the command is in docs/PERFORMANCE.md). One
 * evaluation = one MUFU.RSQ; `best` applies each pair to two bodies. */
typedef struct sim_loop_cost {
    const char *build;        /* "wide", "prefetching", "1024-thread", or the variant's name */
    int instructions, rsqrts; /* of the loop */
    int interactions;         /* per evaluation: 2 for best and fp64, else 1 */
    int fp64_ops;             /* FP64-pipe instructions in the loop (fp64), else 0 */
    const char *note;         /* printed after the ceiling, or NULL */
    int mufu;                 /* MUFU instructions in the loop (RSQ, RCP, RSQ64H, ...) */
} sim_loop_cost;

/* false when there is no count (the tree, the CPU backend, v out of range).
 * DEFAULT is resolved as sim_variant_resolve does. best's build is the one
 * its launch would pick: by the occupancy of the current CUDA device (the
 * one sim_create last chose) where there is a device, else by the builds'
 * thresholds alone. p and q as launched (sim_get_params); q < 1 counts 1. */
bool sim_loop_cost_of(sim_variant v, int n, int p, int q, sim_loop_cost *out);

/* Issue lanes per SM: 4 schedulers x 32 lanes, one warp instruction each
 * per clock. */
#define SIM_ISSUE_LANES_PER_SM 128

/* FP64 lanes per SM by dev's compute capability; 0 when unknown. */
int sim_fp64_lanes(const sim_device_info *dev);

/* The most interactions/s that loop allows on dev: SMs x 128 issue lanes x
 * clock / (instructions / rsqrts) x interactions, and for fp64 no more than
 * the FP64 pipe allows (its lanes per SM by compute capability). 0 when
 * unknown. */
double sim_loop_ceiling(const sim_loop_cost *c, const sim_device_info *dev);

/* ---- the ladder on its ceilings (sim_ceilings.c) ---------------------------
 * docs/PERFORMANCE.md, "The ladder on its ceilings": each all-pairs rung's
 * ceilings at its N and block shape on a device, from the SASS counts above
 * and the device's attributes; the roofline view draws them. */

/* A kernel's launch: the grid its launcher makes (sim_kernels.cu), and the
 * bytes it moves per interaction, counted at one level: the bytes each
 * block fetches from L2 (or DRAM). A block fetches every j body once (into
 * its shared-memory tile, or through the L1 that serves its warps the same
 * line; best: each warp task's 32 j bodies and the 32 atomic sums it adds
 * into their accelerations) and every body's own position and acceleration
 * once a step. Reuse between blocks (L1, L2) is not counted: L2 moves at
 * least what DRAM does, so against DRAM bandwidth the memory roof is a
 * lower bound. */
typedef struct sim_launch {
    long long blocks;             /* in the grid */
    int threads;                  /* per block */
    double bytes_per_interaction; /* as above */
} sim_launch;

/* The launch of all-pairs method v for n bodies in blocks of p x q on a
 * device of sm_count SMs (p and q as launched: sim_get_params); false for
 * the tree and anything not an all-pairs kernel. best's build (its i bodies
 * per lane) as sim_loop_cost_of picks it. */
bool sim_launch_of(sim_variant v, int n, int p, int q, int sm_count, sim_launch *out);

/* MUFU (special-function unit) lanes per SM by dev's compute capability,
 * 32-bit reciprocal and reciprocal square root per clock (the CUDA C++
 * Programming Guide's table of arithmetic instruction throughput); 0 when
 * unknown. */
int sim_mufu_lanes(const sim_device_info *dev);

/* dev's DRAM bandwidth in bytes/s: memory clock x bus width / 8 x 2 (two
 * transfers a clock); 0 when unknown. */
double sim_dram_bandwidth(const sim_device_info *dev);

/* Warp schedulers per SM, each issuing one warp instruction a clock. */
#define SIM_SCHEDULERS_PER_SM 4

typedef enum sim_ceiling_kind {
    SIM_CEILING_ISSUE,      /* sim_loop_ceiling: issue slots (fp64: or the FP64 pipe) */
    SIM_CEILING_MUFU,       /* SMs x MUFU lanes x clock / MUFU per interaction */
    SIM_CEILING_MEMORY,     /* DRAM bandwidth x interactions per byte (sim_launch) */
    SIM_CEILING_SCHEDULERS, /* issue x the share of SMs and schedulers the launch keeps busy */
    SIM_CEILING_COUNT
} sim_ceiling_kind;

/* "issue", "MUFU", "memory", "schedulers"; NULL past the end. */
const char *sim_ceiling_name(sim_ceiling_kind k);

typedef struct sim_ceilings {
    double value[SIM_CEILING_COUNT]; /* interactions/s; 0: unknown */
    sim_ceiling_kind binding;        /* the least known one (issue on a tie) */
    double bound;                    /* its value; 0: none known */
    double intensity;                /* interactions per byte (1 / sim_launch's bytes) */
    double bandwidth;                /* bytes/s (sim_dram_bandwidth) */
    sim_loop_cost cost;
    sim_launch launch;
    /* The schedulers' ceiling: blocks spread over the SMs in waves of
     * sm_count (balance = blocks / (SMs x waves): the average SM's share of
     * the busiest one's), and each busy SM's schedulers with a warp
     * (min(4, warps per SM)); fraction = balance x schedulers / 4. */
    int sms_busy;     /* SMs with a block */
    int warps_per_sm; /* warps on a busy SM, at most (blocks per SM x warps per block) */
    double balance, fraction;
} sim_ceilings;

/* The ceilings of all-pairs method v for n bodies in blocks of p x q on dev
 * (sim_loop_cost_of, sim_launch_of; every figure from counts and dev's
 * attributes, none measured). false (out zeroed) for the tree, anything
 * not an all-pairs kernel, or a dev without SMs or a clock. */
bool sim_rung_ceilings(sim_variant v, int n, int p, int q, const sim_device_info *dev,
                       sim_ceilings *out);

/* The CPU backend's stated ceiling: its numbers, read from the system. */
typedef struct sim_cpu_info {
    int cpus;        /* logical CPUs online */
    double clock_hz; /* the highest clock of CPU 0 (cpufreq), else /proc/cpuinfo's highest MHz */
    int fp64_lanes;  /* doubles per SIMD register this build was compiled for (SSE2: 2, AVX: 4,
                        AVX-512: 8; 1 when unknown) */
} sim_cpu_info;

/* Fills *out from /sys and /proc/cpuinfo; false (with what it found) when
 * the clock is unknown. */
bool sim_cpu_info_read(sim_cpu_info *out);

/* The CPU's ceiling in interactions/s: cpus x clock x FP64 lanes x 2 (an add
 * and a multiply, or one FMA, a cycle) / flops per interaction. A peak the
 * reference's square root and division keep it far below; 0 when unknown. */
double sim_cpu_ceiling(const sim_cpu_info *cpu, double flops_per_interaction);

/* From this N on the tree (at its default theta) is faster than the best
 * all-pairs kernel on the GPU it was measured on, and below it slower
 * (docs/PERFORMANCE.md, "The tree": the crossover); on other GPUs and on
 * the CPU backend the best switch point may differ. */
#define SIM_TREE_CROSSOVER 45056

/* The automatic force method for n bodies: the best all-pairs kernel below
 * SIM_TREE_CROSSOVER, the tree from it. A sim_desc's SIM_VARIANT_DEFAULT
 * means this. */
sim_variant sim_variant_auto(int n);

/* The methods of backend b (SIM_BACKEND_CUDA or SIM_BACKEND_CPU) in ladder
 * order: the order the K key steps through and the ladder chart shows.
 * Writes up to max of them to out (out may be NULL) and returns how many
 * there are (0 for any other b). CUDA: naive ... fp64, tree. CPU:
 * reference, tree. */
int sim_methods(sim_backend b, sim_variant *out, int max);

/* The method that runs when backend b is asked for variant v (DEFAULT is
 * resolved as sim_variant_resolve does; on the CPU backend every exact
 * variant runs the one double-precision reference, whose row's variant is
 * SIM_VARIANT_BEST). NULL when v is not a variant or b is neither CUDA nor
 * CPU. The rows are static: the pointer stays valid. */
const sim_method *sim_method_of(sim_backend b, sim_variant v);

/* The running simulation's method (sim_method_of its backend and variant). */
const sim_method *sim_get_method(const sim *s);

/* All-pairs interactions per second: n^2 / step_ms, what an exact method's
 * step evaluates (and an approximate one's N^2 equivalent); 0 when step_ms
 * is not positive. */
double sim_pair_rate(int n, double step_ms);

/* Variant table and names. */
const sim_variant_desc *sim_variant_info(sim_variant v); /* v resolved if DEFAULT */
sim_variant sim_variant_resolve(sim_variant v);          /* DEFAULT -> the best all-pairs kernel */
sim_variant sim_variant_from_name(const char *name);     /* SIM_VARIANT_COUNT if unknown */
const char *sim_ic_name(sim_ic ic);                      /* "plummer", "shell", "disk", "merger" */
sim_ic sim_ic_from_name(const char *name);               /* SIM_IC_COUNT if unknown */
bool sim_ic_galactic(sim_ic ic);                     /* galaxy units (SIM_GALAXY_*): disk, merger */
const char *sim_backend_name(sim_backend b);         /* "cuda", "cpu" */
sim_backend sim_backend_from_name(const char *name); /* SIM_BACKEND_COUNT if unknown */

#ifdef __cplusplus
}
#endif

#endif /* NBODY_SIM_H */
