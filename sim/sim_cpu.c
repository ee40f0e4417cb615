/* sim_cpu.c - the CPU reference backend: plain C, double precision.
 *
 * This is the oracle every CUDA variant is tested against and the fallback
 * where there is no CUDA device. It is written to be obviously right, not
 * fast: the textbook double loop with the self-interaction skipped, one
 * thread per body when OpenMP is there (each body's sum runs in the same
 * order whatever the thread count, so results do not depend on it).
 *
 * Forces: a_i = sum_{j != i} m_j r_ij / (r_ij^2 + eps^2)^(3/2), G = 1; a pair
 * with r_ij^2 + eps^2 = 0 (eps = 0, the same position) adds no force and no
 * potential (sim.h). Integrator: kick-drift-kick leapfrog; damping
 * multiplies velocities once at the end of each step.
 *
 * Every array, the potential's per-body scratch included, is allocated in
 * reserve, which reports a shortage; nothing after it can run out of memory.
 *
 * Stopping (sim_stop): the O(N^2) and O(N log N) loops (forces, the
 * potential, the force-error sample) run in blocks of bodies of about
 * BLOCK_PAIRS interactions, and the stop hook is asked between blocks and
 * between steps. A step computes its new positions and accelerations into
 * second arrays (pos_next, acc_next) and takes them only when the forces are
 * whole, so a stopped step leaves the bodies exactly as the last whole step
 * did, with their accelerations.
 *
 * Threads: OpenMP, only where a loop's work pays for waking the threads
 * (PARALLEL_MIN_PAIRS); the O(N) loops (kicks, drift, checks) run on the
 * calling thread. The force loops hand out bodies dynamically, so a thread
 * the system has taken away (a renderer, another program) delays a region
 * by one body's sum, not by its share of the bodies.
 *
 * Force methods: one table (methods[] below), a row each with its forces.
 * The exact sum runs for every variant without a row of its own; the
 * variant tree runs the Barnes-Hut tree of sim_tree_cpu.c with the live
 * theta. The tree's arrays (sized for its worst case, sim_tree_cpu_bytes)
 * are allocated by prepare_variant when the tree is first chosen, and from
 * then on by reserve with the others.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_code.h" /* generated: each method's key lines (sim/sim_code.list) */
#include "sim_internal.h"

/* Interactions (pairs, or tree interactions) between two asks of the stop
 * hook: a few milliseconds of one core. */
#define BLOCK_PAIRS (1 << 22)
/* A force loop runs on OpenMP's threads from this much work (interactions)
 * on; below it, waking them costs more than they save (docs/PERFORMANCE.md,
 * "The CPU backend in the window"). */
#define PARALLEL_MIN_PAIRS (1 << 20)

/* Bytes a body takes in the backend's arrays: pos and pos_next (4 doubles
 * each), vel, acc, acc_next (3 each), phi (1) and its tag. */
#define BODY_BYTES (18.0 * sizeof(double) + 1)

typedef struct cpu_backend {
    int n, capacity;
    double *pos;      /* x, y, z, m per body */
    double *pos_next; /* a step's new positions until its forces are whole */
    double *vel;      /* vx, vy, vz per body */
    double *acc;      /* ax, ay, az per body, valid for acc_softening when acc_valid */
    double *acc_next; /* forces being computed */
    double *phi;      /* per-body potential sums (diagnostics scratch) */
    uint8_t *tags;
    bool acc_valid;
    double acc_softening;
    int acc_method; /* the row of methods[] acc came from (with acc_theta where it uses it) */
    double acc_theta;
    sim_tree_cpu *tree; /* the tree force method (sim_tree_cpu.c) */
    bool tree_ready;    /* the tree's arrays hold capacity bodies */
    float last_step_ms;
    int64_t nonfinite_step; /* first step that ended with a NaN or infinity; 0: none */
    sim_stop stop;          /* asked between blocks (sim_stop) */
    bool stopped;           /* the last call was ended by it */
    int steps_done;         /* whole steps of the last step call */
} cpu_backend;

static bool stop_asked(const cpu_backend *c) {
    return c->stop.requested && c->stop.requested(c->stop.ctx);
}

/* Bodies a block holds when each costs `per_body` interactions. */
static int block_bodies(double per_body) {
    const double b = BLOCK_PAIRS / (per_body > 1 ? per_body : 1);
    return b < 16 ? 16 : b > 1 << 20 ? 1 << 20 : (int)b;
}

double sim_now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double sim_host_memory_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : 0.0;
}

double sim_host_available_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[128];
    double kib = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
        kib = 0;
    }
    fclose(f);
    return kib * 1024.0;
}

/* The exact acceleration of body i at positions p: the reference's sum
 * over all j != i. */
static void exact_acc(const double *p, int n, int i, double eps2, double *a) {
    /* lecture: begin reference */
    double ax = 0, ay = 0, az = 0;
    const double xi = p[4 * i], yi = p[4 * i + 1], zi = p[4 * i + 2];
    for (int j = 0; j < n; j++) {
        double dx = p[4 * j] - xi, dy = p[4 * j + 1] - yi, dz = p[4 * j + 2] - zi;
        double r2 = dx * dx + dy * dy + dz * dz + eps2;
        if (j == i || r2 == 0) continue;
        double inv = 1.0 / sqrt(r2);
        double s = p[4 * j + 3] * inv * inv * inv;
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
    }
    /* lecture: end reference */
    a[0] = ax;
    a[1] = ay;
    a[2] = az;
}

/* The exact sum, every body, a block at a time; false: stopped. */
static bool exact_forces(cpu_backend *c, const sim_step_params *sp, const double *p, double *acc) {
    const int n = c->n, block = block_bodies(n);
    const double eps2 = sp->eps2;
    for (int i0 = 0; i0 < n; i0 += block) {
        const int i1 = n - i0 > block ? i0 + block : n;
        const bool wide = (double)(i1 - i0) * n >= PARALLEL_MIN_PAIRS;
        (void)wide; /* without OpenMP */
        SIM_PARALLEL_FOR(schedule(dynamic, 1) if (wide))
        for (int i = i0; i < i1; i++) exact_acc(p, n, i, eps2, &acc[3 * i]);
        if (i1 < n && stop_asked(c)) return false;
    }
    return true;
}

/* With the relative criterion and no last accelerations (acc_valid false),
 * a first pass by theta alone gives them. */
static bool tree_forces(cpu_backend *c, const sim_step_params *sp, const double *p, double *acc) {
    const double alpha = sp->tree_alpha;
    const double *old = c->acc_valid ? c->acc : NULL;
    if (alpha > 0 && !old) {
        if (!sim_tree_cpu_forces(c->tree, p, c->n, sp->eps2, sp->theta, 0, NULL, acc, &c->stop)) {
            return false;
        }
        old = acc;
    }
    return sim_tree_cpu_forces(c->tree, p, c->n, sp->eps2, sp->theta, alpha, old, acc, &c->stop);
}

#ifdef NBODY_TEST_METHOD
/* A method added by a test (tests/CMakeLists.txt builds nbody_test_method
 * with it, tests/test_method.py runs it): the textbook loop, one thread,
 * each body's sum taken from the last body to the first - exact, and
 * deliberately slow. */
static bool naive_forces(cpu_backend *c, const sim_step_params *sp, const double *p, double *acc) {
    for (int i = 0; i < c->n; i++) {
        double a[3] = {0, 0, 0};
        for (int j = c->n - 1; j >= 0; j--) {
            const double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1],
                         dz = p[4 * j + 2] - p[4 * i + 2];
            const double r2 = dx * dx + dy * dy + dz * dz + sp->eps2;
            if (j == i || r2 == 0) continue;
            const double s = p[4 * j + 3] / (r2 * sqrt(r2));
            a[0] += s * dx;
            a[1] += s * dy;
            a[2] += s * dz;
        }
        memcpy(&acc[3 * i], a, sizeof a);
    }
    return true;
}
#endif

/* The CPU backend's force methods, in ladder order. The exact sum's row
 * stands for every all-pairs variant without a row of its own (as
 * SIM_VARIANT_BEST, the default); the tree has the variant tree. All in
 * double precision; p and q mean nothing here. */
typedef struct cpu_method_row {
    sim_method method;
    /* Writes acc of the bodies at p (c->pos or c->pos_next); false: stopped. */
    bool (*forces)(cpu_backend *c, const sim_step_params *sp, const double *p, double *acc);
    bool tree; /* needs the tree's arrays */
} cpu_method_row;

static const cpu_method_row methods[] = {
    {{.variant = SIM_VARIANT_BEST,
      .name = "reference",
      .description = "the exact pairwise sum in double precision, plain C",
      .fp64 = true,
      .exact = true,
      .scaling = SIM_SCALING_N2,
      .flops_per_interaction = SIM_FLOPS_PER_INTERACTION_FP64,
      .code = SIM_CODE_CPU_REFERENCE,
      .why = "The exact pairwise sum in double precision, O(N^2): the reference every other "
             "method's forces are checked against."},
     exact_forces,
     false},
    {{.variant = SIM_VARIANT_TREE,
      .name = "tree",
      .description = "Barnes-Hut octree in double precision, walked body by body, quadrupoles",
      .fp64 = true,
      .uses_theta = true,
      .has_cells = true,
      .scaling = SIM_SCALING_NLOGN,
      .flops_per_interaction = SIM_FLOPS_PER_INTERACTION_FP64,
      .code = SIM_CODE_CPU_TREE,
      .why = "Faster at large N: a far cell acts through one quadrupole instead of all its "
             "bodies, so a step costs O(N log N) interactions instead of N^2, at an error the "
             "opening angle sets."},
     tree_forces,
     true},
#ifdef NBODY_TEST_METHOD
    {{.variant = SIM_VARIANT_NAIVE,
      .name = "naive",
      .description = "the textbook loop on one thread, last body first: a slow exact sum",
      .fp64 = true,
      .exact = true,
      .scaling = SIM_SCALING_N2,
      .flops_per_interaction = SIM_FLOPS_PER_INTERACTION_FP64},
     naive_forces,
     false},
#endif
};
#define CPU_METHODS ((int)(sizeof methods / sizeof methods[0]))

static int cpu_methods(sim_variant *out, int max) {
    for (int k = 0; out && k < CPU_METHODS && k < max; k++) out[k] = methods[k].method.variant;
    return CPU_METHODS;
}

/* The row of variant v: its own, else the exact sum's; -1 when v is none. */
static int row_of(sim_variant v) {
    v = sim_variant_resolve(v);
    if ((int)v <= 0 || v >= SIM_VARIANT_COUNT) return -1;
    for (int k = 0; k < CPU_METHODS; k++) {
        if (methods[k].method.variant == v) return k;
    }
    return 0;
}

static const sim_method *cpu_method(sim_variant v) {
    const int k = row_of(v);
    return k < 0 ? NULL : &methods[k].method;
}

/* The forces at p into acc_next; false: stopped (acc and acc_valid as they were). */
static bool forces_next(cpu_backend *c, const sim_step_params *sp, const double *p) {
    return methods[row_of(sp->variant)].forces(c, sp, p, c->acc_next);
}

/* Takes acc_next as the accelerations of sp's method at the current positions. */
static void take_acc(cpu_backend *c, const sim_step_params *sp) {
    double *t = c->acc;
    c->acc = c->acc_next;
    c->acc_next = t;
    c->acc_valid = true;
    c->acc_softening = sp->softening;
    c->acc_method = row_of(sp->variant);
    c->acc_theta = sp->theta;
}

/* The cached accelerations are those of the method, softening and (where
 * the method uses it) theta in sp, or they are computed again; false:
 * stopped before they were. */
static bool ensure_acc(cpu_backend *c, const sim_step_params *sp) {
    const int k = row_of(sp->variant);
    if (c->acc_valid && c->acc_softening == sp->softening && c->acc_method == k &&
        (!methods[k].method.uses_theta || c->acc_theta == sp->theta)) {
        return true;
    }
    if (!forces_next(c, sp, c->pos)) return false;
    take_acc(c, sp);
    return true;
}

static void *cpu_create(int device, int gpus, bool spread, sim_error *err) {
    (void)device, (void)gpus, (void)spread; /* sim_create refuses gpus > 1 on the CPU backend */
    cpu_backend *c = calloc(1, sizeof(cpu_backend));
    if (c) c->tree = sim_tree_cpu_create();
    if (!c || !c->tree) {
        free(c);
        if (err) {
            snprintf(err->message, sizeof err->message, "out of host memory for the CPU backend");
            snprintf(err->hint, sizeof err->hint, "close other programs and try again");
        }
        return NULL;
    }
    return c;
}

static void cpu_destroy(void *b) {
    cpu_backend *c = b;
    if (!c) return;
    free(c->pos);
    free(c->pos_next);
    free(c->vel);
    free(c->acc);
    free(c->acc_next);
    free(c->phi);
    free(c->tags);
    sim_tree_cpu_destroy(c->tree);
    free(c);
}

static bool cpu_reserve(void *b, int n, sim_error *err) {
    cpu_backend *c = b;
    if (n <= c->capacity) return true;
    const double need = BODY_BYTES * n + (c->tree_ready ? sim_tree_cpu_bytes(n) : 0),
                 have = sim_host_memory_bytes();
    const size_t un = (size_t)n;
    double *pos = NULL, *pos_next = NULL, *vel = NULL, *acc = NULL, *acc_next = NULL, *phi = NULL;
    uint8_t *tags = NULL;
    if (have <= 0 || need < have) {
        pos = malloc(sizeof(double) * 4 * un);
        pos_next = malloc(sizeof(double) * 4 * un);
        vel = malloc(sizeof(double) * 3 * un);
        acc = malloc(sizeof(double) * 3 * un);
        acc_next = malloc(sizeof(double) * 3 * un);
        phi = malloc(sizeof(double) * un);
        tags = malloc(un);
    }
    /* The tree's arrays last: it keeps its old ones when it fails. */
    if (!pos || !pos_next || !vel || !acc || !acc_next || !phi || !tags ||
        (c->tree_ready && !sim_tree_cpu_reserve(c->tree, n, NULL))) {
        free(pos);
        free(pos_next);
        free(vel);
        free(acc);
        free(acc_next);
        free(phi);
        free(tags);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "%d bodies need %.1f MiB of host memory; this machine has %.1f MiB", n,
                     need / 1048576.0, have / 1048576.0);
            snprintf(err->hint, sizeof err->hint, "try a smaller --n");
        }
        return false;
    }
    free(c->pos);
    free(c->pos_next);
    free(c->vel);
    free(c->acc);
    free(c->acc_next);
    free(c->phi);
    free(c->tags);
    c->pos = pos;
    c->pos_next = pos_next;
    c->vel = vel;
    c->acc = acc;
    c->acc_next = acc_next;
    c->phi = phi;
    c->tags = tags;
    c->capacity = n;
    return true;
}

static void cpu_upload(void *b, const sim_body *bodies, int n) {
    cpu_backend *c = b;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            c->pos[4 * i + k] = bodies[i].pos[k];
            c->vel[3 * i + k] = bodies[i].vel[k];
        }
        c->pos[4 * i + 3] = bodies[i].mass;
        c->tags[i] = (uint8_t)bodies[i].tag;
    }
    c->n = n;
    c->acc_valid = false;
    c->nonfinite_step = 0;
}

/* The reference is double precision whatever the variant. */
static bool cpu_set_precision(void *b, bool fp64, sim_error *err) {
    (void)b;
    (void)fp64;
    (void)err;
    return true;
}

static void cpu_download(void *b, sim_body *out, const sim_step_params *sp) {
    cpu_backend *c = b;
    if (sp) c->stopped = !ensure_acc(c, sp);
    const bool acc = sp && !c->stopped;
    for (int i = 0; i < c->n; i++) {
        for (int k = 0; k < 3; k++) {
            out[i].pos[k] = c->pos[4 * i + k];
            out[i].vel[k] = c->vel[3 * i + k];
            out[i].acc[k] = acc ? c->acc[3 * i + k] : NAN;
        }
        out[i].mass = c->pos[4 * i + 3];
    }
}

/* Every position and velocity is finite: one O(N) pass, next to the O(N^2)
 * or O(N log N) force evaluation of the step. */
static bool all_finite(const cpu_backend *c) {
    const double *p = c->pos, *v = c->vel;
    for (int i = 0; i < c->n; i++) {
        if (!(isfinite(p[4 * i]) && isfinite(p[4 * i + 1]) && isfinite(p[4 * i + 2]) &&
              isfinite(v[3 * i]) && isfinite(v[3 * i + 1]) && isfinite(v[3 * i + 2]))) {
            return false;
        }
    }
    return true;
}

/* Kick-drift-kick, written so that nothing of a step is kept until its
 * forces are whole: the half kick is computed twice (for the drift into
 * pos_next, and again with the new forces), with the same rounding as
 * storing it, so the result is the textbook loop's. */
static void cpu_step(void *b, const sim_step_params *sp, int steps) {
    cpu_backend *c = b;
    const int n = c->n;
    const double dt = sp->dt, h = 0.5 * dt, damping = sp->damping;
    const double t0 = sim_now_seconds();
    c->steps_done = 0;
    c->stopped = !ensure_acc(c, sp);
    for (int s = 0; s < steps && !c->stopped; s++) {
        if (s > 0 && stop_asked(c)) {
            c->stopped = true;
            break;
        }
        const double *pos = c->pos, *vel = c->vel, *acc = c->acc;
        double *next = c->pos_next;
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                const double half = vel[3 * i + k] + h * acc[3 * i + k];
                next[4 * i + k] = pos[4 * i + k] + dt * half;
            }
            next[4 * i + 3] = pos[4 * i + 3];
        }
        if (!forces_next(c, sp, next)) {
            c->stopped = true;
            break;
        }
        const double *acc_new = c->acc_next;
        for (int i = 0; i < 3 * n; i++) {
            const double half = c->vel[i] + h * c->acc[i];
            c->vel[i] = half + h * acc_new[i];
            if (damping != 1.0) c->vel[i] *= damping;
        }
        c->pos_next = c->pos;
        c->pos = next;
        take_acc(c, sp);
        c->steps_done++;
        /* The first step that ended non-finite (sim_nonfinite). */
        if (c->nonfinite_step == 0 && !all_finite(c)) c->nonfinite_step = sp->first_step + s + 1;
    }
    if (c->steps_done > 0) {
        c->last_step_ms = (float)(1e3 * (sim_now_seconds() - t0) / c->steps_done);
    }
}

static void cpu_vertices(void *b, sim_vertex *dst, bool dst_on_device, bool wait, int stride) {
    cpu_backend *c = b;
    (void)dst_on_device; /* sim.c only passes host memory to this backend, */
    (void)wait;          /* which is written when this returns */
    const int drawn = (int)(((long long)c->n + stride - 1) / stride);
    for (int j = 0; j < drawn; j++) {
        const int i = j * stride;
        const double *v = &c->vel[3 * i];
        dst[j] = (sim_vertex){
            .x = (float)c->pos[4 * i],
            .y = (float)c->pos[4 * i + 1],
            .z = (float)c->pos[4 * i + 2],
            .speed = (float)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
        };
    }
}

/* W = -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2), pairs with r^2 + eps^2 = 0
 * left out. Per-body sums first (in c->phi), then added in body order: the
 * result does not depend on the thread count. Row i holds n - 1 - i pairs;
 * the blocks are cut by pairs. false: stopped. */
static bool potential(cpu_backend *c, double eps2, double *out) {
    const int n = c->n;
    const double *p = c->pos;
    double *w = c->phi;
    for (int i0 = 0; i0 < n;) {
        int i1 = i0;
        double pairs = 0;
        while (i1 < n && pairs < BLOCK_PAIRS) pairs += n - 1 - i1++;
        const bool wide = pairs >= PARALLEL_MIN_PAIRS;
        (void)wide; /* without OpenMP */
        SIM_PARALLEL_FOR(schedule(dynamic, 1) if (wide))
        for (int i = i0; i < i1; i++) {
            double wi = 0;
            for (int j = i + 1; j < n; j++) {
                double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1],
                       dz = p[4 * j + 2] - p[4 * i + 2];
                const double r2 = dx * dx + dy * dy + dz * dz + eps2;
                if (r2 > 0) wi -= p[4 * j + 3] / sqrt(r2);
            }
            w[i] = p[4 * i + 3] * wi;
        }
        i0 = i1;
        if (i0 < n && stop_asked(c)) return false;
    }
    double total = 0;
    for (int i = 0; i < n; i++) total += w[i];
    *out = total;
    return true;
}

/* Each body's potential, exactly: every pair from both ends (row i holds
 * n - 1 pairs), in double, in blocks cut by pairs as potential() does.
 * No CPU force pass returns potentials, so it is always EXACT; NONE when
 * the stop hook ended it (out untouched: the sums are in c->phi first). */
static sim_potential_source cpu_potentials(void *b, const sim_step_params *sp, float *out) {
    cpu_backend *c = b;
    const int n = c->n;
    const double *p = c->pos, eps2 = sp->eps2;
    double *w = c->phi;
    c->stopped = false;
    const int block = block_bodies(n - 1);
    for (int i0 = 0; i0 < n; i0 += block) {
        const int i1 = i0 + block < n ? i0 + block : n;
        const bool wide = (double)(i1 - i0) * n >= PARALLEL_MIN_PAIRS;
        (void)wide; /* without OpenMP */
        SIM_PARALLEL_FOR(schedule(static) if (wide))
        for (int i = i0; i < i1; i++) {
            double wi = 0;
            for (int j = 0; j < n; j++) {
                const double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1],
                             dz = p[4 * j + 2] - p[4 * i + 2];
                const double r2 = dx * dx + dy * dy + dz * dz + eps2;
                if (j != i && r2 > 0) wi -= p[4 * j + 3] / sqrt(r2);
            }
            w[i] = wi;
        }
        if (i1 < n && stop_asked(c)) {
            c->stopped = true;
            return SIM_POTENTIAL_NONE;
        }
    }
    for (int i = 0; i < n; i++) out[i] = (float)w[i];
    return SIM_POTENTIAL_EXACT;
}

/* No CPU force pass returns potentials: WALK sums them exactly too. */
static sim_diag cpu_diagnostics(void *b, const sim_step_params *sp,
                                sim_potential_source source) {
    cpu_backend *c = b;
    const int n = c->n;
    const double *p = c->pos;
    sim_diag d = {0};
    c->stopped = false;
    if (source != SIM_POTENTIAL_NONE) {
        c->stopped = !potential(c, sp->eps2, &d.potential);
        d.source = SIM_POTENTIAL_EXACT;
    }
    d.stopped = c->stopped;
    for (int i = 0; i < n; i++) {
        const double m = p[4 * i + 3], *r = &p[4 * i], *v = &c->vel[3 * i];
        d.mass += m;
        d.kinetic += 0.5 * m * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int k = 0; k < 3; k++) {
            d.momentum[k] += m * v[k];
            d.center_of_mass[k] += m * r[k];
        }
        d.angular_momentum[0] += m * (r[1] * v[2] - r[2] * v[1]);
        d.angular_momentum[1] += m * (r[2] * v[0] - r[0] * v[2]);
        d.angular_momentum[2] += m * (r[0] * v[1] - r[1] * v[0]);
        const unsigned g = SIM_TAG_GALAXY(c->tags[i]);
        if (g < 2) {
            d.galaxy_mass[g] += m;
            for (int k = 0; k < 3; k++) {
                d.galaxy_com[g][k] += m * r[k];
                d.galaxy_vel[g][k] += m * v[k];
            }
        }
    }
    sim_diag_finish(&d);
    if (d.stopped) d.total = d.virial_ratio = 0; /* no energy from a part of the potential */
    return d;
}

static float cpu_last_step_ms(void *b) {
    return ((cpu_backend *)b)->last_step_ms;
}

static void cpu_wait_timing(void *b) {
    (void)b; /* the CPU clock is read synchronously */
}

/* What cpu_reserve and the tree allocate for n bodies. */
static void cpu_memory(void *b, int n, sim_variant v, sim_memory *out) {
    (void)b;
    out->host_need +=
        BODY_BYTES * n + (row_of(v) >= 0 && methods[row_of(v)].tree ? sim_tree_cpu_bytes(n) : 0);
}

static int64_t cpu_nonfinite_step(void *b) {
    return ((cpu_backend *)b)->nonfinite_step;
}

static void cpu_invalidate(void *b) {
    ((cpu_backend *)b)->acc_valid = false;
}

/* The tree's arrays for capacity bodies, before the tree first runs. */
static bool cpu_prepare_variant(void *b, sim_variant v, sim_error *err) {
    cpu_backend *c = b;
    if (row_of(v) < 0 || !methods[row_of(v)].tree || c->tree_ready) return true;
    const double need = sim_tree_cpu_bytes(c->capacity), have = sim_host_memory_bytes();
    if ((have > 0 && need >= have) || !sim_tree_cpu_reserve(c->tree, c->capacity, NULL)) {
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "the CPU tree of %d bodies needs %.1f MiB of host memory; this machine has "
                     "%.1f MiB",
                     c->capacity, need / 1048576.0, have / 1048576.0);
            snprintf(err->hint, sizeof err->hint, "try a smaller --n or another --variant");
        }
        return false;
    }
    c->tree_ready = true;
    return true;
}

/* The tree's stats and cells while the tree is the method in use. */
static sim_tree_stats cpu_tree_stats(void *b) {
    cpu_backend *c = b;
    return methods[c->acc_method].tree ? sim_tree_cpu_stats(c->tree) : (sim_tree_stats){0};
}

static int cpu_tree_cells(void *b, int max_depth, sim_tree_cell *out, int max_cells) {
    cpu_backend *c = b;
    return methods[c->acc_method].tree ? sim_tree_cpu_cells(c->tree, max_depth, out, max_cells) : 0;
}

/* The running method's accelerations against the exact sum on min(samples,
 * n) distinct bodies: the first ones of a Fisher-Yates shuffle seeded with
 * seed; the statistics are sim_force_error_summary's. */
static bool cpu_force_error(void *b, const sim_step_params *sp, int samples, uint64_t seed,
                            sim_force_error *out, sim_error *err) {
    cpu_backend *c = b;
    const int n = c->n, m = samples < n ? samples : n;
    int *pick = malloc(sizeof(int) * (size_t)n);
    double *e = malloc(sizeof(double) * (size_t)m);
    if (!pick || !e) {
        free(pick);
        free(e);
        if (err) {
            snprintf(err->message, sizeof err->message,
                     "out of host memory for a force-error sample of %d bodies", m);
            snprintf(err->hint, sizeof err->hint, "ask for fewer samples or a smaller --n");
        }
        return false;
    }
    c->stopped = !ensure_acc(c, sp);
    for (int i = 0; i < n; i++) pick[i] = i;
    sim_rng rng = sim_rng_seed(seed);
    for (int k = 0; k < m; k++) {
        const int j = k + (int)(sim_rng_next(&rng) % (uint64_t)(n - k));
        const int tmp = pick[k];
        pick[k] = pick[j];
        pick[j] = tmp;
    }
    const int block = block_bodies(n);
    for (int k0 = 0; k0 < m && !c->stopped; k0 += block) {
        const int k1 = m - k0 > block ? k0 + block : m;
        const bool wide = (double)(k1 - k0) * n >= PARALLEL_MIN_PAIRS;
        (void)wide; /* without OpenMP */
        SIM_PARALLEL_FOR(schedule(dynamic, 1) if (wide))
        for (int k = k0; k < k1; k++) {
            double exact[3];
            exact_acc(c->pos, n, pick[k], sp->eps2, exact);
            e[k] = sim_relative_error(&c->acc[3 * pick[k]], exact);
        }
        c->stopped = k1 < m && stop_asked(c);
    }
    if (!c->stopped) sim_force_error_summary(e, m, out);
    free(pick);
    free(e);
    if (c->stopped && err) {
        snprintf(err->message, sizeof err->message, "stopped before the sample was whole");
        snprintf(err->hint, sizeof err->hint, "measure again (X)");
    }
    return !c->stopped;
}

static void cpu_set_stop(void *b, const sim_stop *stop) {
    ((cpu_backend *)b)->stop = *stop;
}

static bool cpu_stopped(void *b, int *steps_done) {
    const cpu_backend *c = b;
    if (steps_done) *steps_done = c->steps_done;
    return c->stopped;
}

const sim_backend_ops sim_cpu_ops = {
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .reserve = cpu_reserve,
    .upload = cpu_upload,
    .set_precision = cpu_set_precision,
    .download = cpu_download,
    .step = cpu_step,
    .vertices = cpu_vertices,
    .diagnostics = cpu_diagnostics,
    .last_step_ms = cpu_last_step_ms,
    .wait_timing = cpu_wait_timing,
    .invalidate = cpu_invalidate,
    .tree_stats = cpu_tree_stats,
    .tree_cells = cpu_tree_cells,
    .prepare_variant = cpu_prepare_variant,
    .force_error = cpu_force_error,
    .nonfinite_step = cpu_nonfinite_step,
    .memory = cpu_memory,
    .methods = cpu_methods,
    .method = cpu_method,
    .set_stop = cpu_set_stop,
    .stopped = cpu_stopped,
    .potentials = cpu_potentials,
};
