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
 * Force methods: one table (methods[] below), a row each with its forces.
 * The exact sum runs for every variant without a row of its own; the
 * variant tree runs the Barnes-Hut tree of sim_tree_cpu.c with the live
 * theta. The tree's arrays (sized for its worst case, ~300 bytes a body)
 * are allocated by prepare_variant when the tree is first chosen, and from
 * then on by reserve with the others.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim_internal.h"

#ifdef _OPENMP
#define PARALLEL_FOR _Pragma("omp parallel for schedule(static)")
#define PARALLEL_FOR_DYNAMIC _Pragma("omp parallel for schedule(dynamic, 64)")
#define PARALLEL_FOR_ALL _Pragma("omp parallel for schedule(static) reduction(&& : ok)")
#else
#define PARALLEL_FOR_ALL
#define PARALLEL_FOR
#define PARALLEL_FOR_DYNAMIC
#endif

typedef struct cpu_backend {
    int n, capacity;
    double *pos; /* x, y, z, m per body */
    double *vel; /* vx, vy, vz per body */
    double *acc; /* ax, ay, az per body, valid for acc_softening when acc_valid */
    double *phi; /* per-body potential sums (diagnostics scratch) */
    uint8_t *tags;
    bool acc_valid;
    double acc_softening;
    int acc_method; /* the row of methods[] acc came from (with acc_theta where it uses it) */
    double acc_theta;
    sim_tree_cpu *tree; /* the tree force method (sim_tree_cpu.c) */
    bool tree_ready;    /* the tree's arrays hold capacity bodies */
    float last_step_ms;
    int64_t nonfinite_step; /* first step that ended with a NaN or infinity; 0: none */
} cpu_backend;

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

/* The exact acceleration of body i: the reference's sum over all j != i. */
static void exact_acc(const cpu_backend *c, int i, double eps2, double *a) {
    const int n = c->n;
    const double *p = c->pos;
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
    a[0] = ax;
    a[1] = ay;
    a[2] = az;
}

/* The exact sum, every body. */
static void exact_forces(cpu_backend *c, const sim_step_params *sp) {
    const int n = c->n;
    PARALLEL_FOR
    for (int i = 0; i < n; i++) exact_acc(c, i, sp->eps2, &c->acc[3 * i]);
}

static void tree_forces(cpu_backend *c, const sim_step_params *sp) {
    sim_tree_cpu_forces(c->tree, c->pos, c->n, sp->eps2, sp->theta, c->acc);
}

#ifdef NBODY_TEST_METHOD
/* A method added by a test (tests/CMakeLists.txt builds nbody_test_method
 * with it, tests/test_method.py runs it): the textbook loop, one thread,
 * each body's sum taken from the last body to the first - exact, and
 * deliberately slow. */
static void naive_forces(cpu_backend *c, const sim_step_params *sp) {
    const double *p = c->pos;
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
        memcpy(&c->acc[3 * i], a, sizeof a);
    }
}
#endif

/* The CPU backend's force methods, in ladder order. The exact sum's row
 * stands for every all-pairs variant without a row of its own (as
 * SIM_VARIANT_BEST, the default); the tree has the variant tree. All in
 * double precision; p and q mean nothing here. */
typedef struct cpu_method_row {
    sim_method method;
    void (*forces)(cpu_backend *c, const sim_step_params *sp); /* writes c->acc */
    bool tree;                                                 /* needs the tree's arrays */
} cpu_method_row;

static const cpu_method_row methods[] = {
    {{.variant = SIM_VARIANT_BEST,
      .name = "reference",
      .description = "the exact pairwise sum in double precision, plain C",
      .fp64 = true,
      .exact = true,
      .scaling = SIM_SCALING_N2,
      .flops_per_interaction = SIM_FLOPS_PER_INTERACTION_FP64},
     exact_forces,
     false},
    {{.variant = SIM_VARIANT_TREE,
      .name = "tree",
      .description = "Barnes-Hut octree in double precision, walked body by body, quadrupoles",
      .fp64 = true,
      .uses_theta = true,
      .has_cells = true,
      .scaling = SIM_SCALING_NLOGN,
      .flops_per_interaction = SIM_FLOPS_PER_INTERACTION_FP64},
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

static void compute_acc(cpu_backend *c, const sim_step_params *sp) {
    const int k = row_of(sp->variant);
    methods[k].forces(c, sp);
    c->acc_valid = true;
    c->acc_softening = sp->softening;
    c->acc_method = k;
    c->acc_theta = sp->theta;
}

/* The cached accelerations are those of the method, softening and (where
 * the method uses it) theta in sp, or they are computed again. */
static void ensure_acc(cpu_backend *c, const sim_step_params *sp) {
    const int k = row_of(sp->variant);
    if (!c->acc_valid || c->acc_softening != sp->softening || c->acc_method != k ||
        (methods[k].method.uses_theta && c->acc_theta != sp->theta)) {
        compute_acc(c, sp);
    }
}

static void *cpu_create(int device, sim_error *err) {
    (void)device;
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
    free(c->vel);
    free(c->acc);
    free(c->phi);
    free(c->tags);
    sim_tree_cpu_destroy(c->tree);
    free(c);
}

static bool cpu_reserve(void *b, int n, sim_error *err) {
    cpu_backend *c = b;
    if (n <= c->capacity) return true;
    const double need =
                     (11.0 * sizeof(double) + 1) * n + (c->tree_ready ? sim_tree_cpu_bytes(n) : 0),
                 have = sim_host_memory_bytes();
    double *pos = NULL, *vel = NULL, *acc = NULL, *phi = NULL;
    uint8_t *tags = NULL;
    if (have <= 0 || need < have) {
        pos = malloc(sizeof(double) * 4 * (size_t)n);
        vel = malloc(sizeof(double) * 3 * (size_t)n);
        acc = malloc(sizeof(double) * 3 * (size_t)n);
        phi = malloc(sizeof(double) * (size_t)n);
        tags = malloc((size_t)n);
    }
    /* The tree's arrays last: it keeps its old ones when it fails. */
    if (!pos || !vel || !acc || !phi || !tags ||
        (c->tree_ready && !sim_tree_cpu_reserve(c->tree, n, NULL))) {
        free(pos);
        free(vel);
        free(acc);
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
    free(c->vel);
    free(c->acc);
    free(c->phi);
    free(c->tags);
    c->pos = pos;
    c->vel = vel;
    c->acc = acc;
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
    ensure_acc(c, sp);
    for (int i = 0; i < c->n; i++) {
        for (int k = 0; k < 3; k++) {
            out[i].pos[k] = c->pos[4 * i + k];
            out[i].vel[k] = c->vel[3 * i + k];
            out[i].acc[k] = c->acc[3 * i + k];
        }
        out[i].mass = c->pos[4 * i + 3];
    }
}

static void kick(cpu_backend *c, double h) {
    const int n = c->n;
    PARALLEL_FOR
    for (int i = 0; i < 3 * n; i++) c->vel[i] += h * c->acc[i];
}

/* Every position and velocity is finite: one O(N) pass, next to the O(N^2)
 * or O(N log N) force evaluation of the step. */
static bool all_finite(const cpu_backend *c) {
    const int n = c->n;
    const double *p = c->pos, *v = c->vel;
    bool ok = true;
    PARALLEL_FOR_ALL
    for (int i = 0; i < n; i++) {
        ok = ok && isfinite(p[4 * i]) && isfinite(p[4 * i + 1]) && isfinite(p[4 * i + 2]) &&
             isfinite(v[3 * i]) && isfinite(v[3 * i + 1]) && isfinite(v[3 * i + 2]);
    }
    return ok;
}

static void cpu_step(void *b, const sim_step_params *sp, int steps) {
    cpu_backend *c = b;
    const int n = c->n;
    const double dt = sp->dt, damping = sp->damping;
    double t0 = sim_now_seconds();
    ensure_acc(c, sp);
    for (int s = 0; s < steps; s++) {
        kick(c, 0.5 * dt);
        PARALLEL_FOR
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) c->pos[4 * i + k] += dt * c->vel[3 * i + k];
        }
        compute_acc(c, sp);
        kick(c, 0.5 * dt);
        if (damping != 1.0) {
            PARALLEL_FOR
            for (int i = 0; i < 3 * n; i++) c->vel[i] *= damping;
        }
        /* The first step that ended non-finite (sim_nonfinite). */
        if (c->nonfinite_step == 0 && !all_finite(c)) c->nonfinite_step = sp->first_step + s + 1;
    }
    if (steps > 0) c->last_step_ms = (float)(1e3 * (sim_now_seconds() - t0) / steps);
}

static void cpu_vertices(void *b, sim_vertex *dst, bool dst_on_device, bool wait) {
    cpu_backend *c = b;
    (void)dst_on_device; /* sim.c only passes host memory to this backend, */
    (void)wait;          /* which is written when this returns */
    for (int i = 0; i < c->n; i++) {
        const double *v = &c->vel[3 * i];
        dst[i] = (sim_vertex){
            .x = (float)c->pos[4 * i],
            .y = (float)c->pos[4 * i + 1],
            .z = (float)c->pos[4 * i + 2],
            .speed = (float)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]),
        };
    }
}

/* W = -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2), pairs with r^2 + eps^2 = 0
 * left out. Per-body sums first (in c->phi), then added in body order: the
 * result does not depend on the thread count. */
static double potential(const cpu_backend *c, double eps2) {
    const int n = c->n;
    const double *p = c->pos;
    double *w = c->phi;
    PARALLEL_FOR_DYNAMIC
    for (int i = 0; i < n; i++) {
        double wi = 0;
        for (int j = i + 1; j < n; j++) {
            double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1],
                   dz = p[4 * j + 2] - p[4 * i + 2];
            const double r2 = dx * dx + dy * dy + dz * dz + eps2;
            if (r2 > 0) wi -= p[4 * j + 3] / sqrt(r2);
        }
        w[i] = p[4 * i + 3] * wi;
    }
    double total = 0;
    for (int i = 0; i < n; i++) total += w[i];
    return total;
}

/* No CPU force pass returns potentials: WALK sums them exactly too. */
static sim_diag cpu_diagnostics(void *b, const sim_step_params *sp,
                                sim_potential_source source) {
    cpu_backend *c = b;
    const int n = c->n;
    const double *p = c->pos;
    sim_diag d = {0};
    if (source != SIM_POTENTIAL_NONE) {
        d.potential = potential(c, sp->eps2);
        d.source = SIM_POTENTIAL_EXACT;
    }
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
    out->host_need += (11.0 * sizeof(double) + 1) * n +
                      (row_of(v) >= 0 && methods[row_of(v)].tree ? sim_tree_cpu_bytes(n) : 0);
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
    ensure_acc(c, sp);
    for (int i = 0; i < n; i++) pick[i] = i;
    sim_rng rng = sim_rng_seed(seed);
    for (int k = 0; k < m; k++) {
        const int j = k + (int)(sim_rng_next(&rng) % (uint64_t)(n - k));
        const int tmp = pick[k];
        pick[k] = pick[j];
        pick[j] = tmp;
    }
    PARALLEL_FOR_DYNAMIC
    for (int k = 0; k < m; k++) {
        double exact[3];
        exact_acc(c, pick[k], sp->eps2, exact);
        e[k] = sim_relative_error(&c->acc[3 * pick[k]], exact);
    }
    sim_force_error_summary(e, m, out);
    free(pick);
    free(e);
    return true;
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
};
