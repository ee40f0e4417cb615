/* sim_cpu.c - the CPU reference backend: plain C, double precision.
 *
 * This is the oracle every CUDA variant is tested against and the fallback
 * where there is no CUDA device. It is written to be obviously right, not
 * fast: the textbook double loop with the self-interaction skipped, one
 * thread per body when OpenMP is there (each body's sum runs in the same
 * order whatever the thread count, so results do not depend on it).
 *
 * Forces: a_i = sum_{j != i} m_j r_ij / (r_ij^2 + eps^2)^(3/2), G = 1.
 * Integrator: kick-drift-kick leapfrog; damping multiplies velocities once at
 * the end of each step.
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
#else
#define PARALLEL_FOR
#define PARALLEL_FOR_DYNAMIC
#endif

typedef struct cpu_backend {
    int n, capacity;
    double *pos; /* x, y, z, m per body */
    double *vel; /* vx, vy, vz per body */
    double *acc; /* ax, ay, az per body, valid for acc_softening when acc_valid */
    uint8_t *tags;
    bool acc_valid;
    float acc_softening;
    float last_step_ms;
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

static void compute_acc(cpu_backend *c, float softening) {
    const int n = c->n;
    const double eps2 = (double)softening * softening;
    const double *p = c->pos;
    double *a = c->acc;
    PARALLEL_FOR
    for (int i = 0; i < n; i++) {
        double ax = 0, ay = 0, az = 0;
        const double xi = p[4 * i], yi = p[4 * i + 1], zi = p[4 * i + 2];
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            double dx = p[4 * j] - xi, dy = p[4 * j + 1] - yi, dz = p[4 * j + 2] - zi;
            double r2 = dx * dx + dy * dy + dz * dz + eps2;
            double inv = 1.0 / sqrt(r2);
            double s = p[4 * j + 3] * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        a[3 * i] = ax;
        a[3 * i + 1] = ay;
        a[3 * i + 2] = az;
    }
    c->acc_valid = true;
    c->acc_softening = softening;
}

static void ensure_acc(cpu_backend *c, float softening) {
    if (!c->acc_valid || c->acc_softening != softening) compute_acc(c, softening);
}

static void *cpu_create(int device, sim_error *err) {
    (void)device;
    (void)err;
    return calloc(1, sizeof(cpu_backend));
}

static void cpu_destroy(void *b) {
    cpu_backend *c = b;
    if (!c) return;
    free(c->pos);
    free(c->vel);
    free(c->acc);
    free(c->tags);
    free(c);
}

static bool cpu_reserve(void *b, int n, sim_error *err) {
    cpu_backend *c = b;
    if (n <= c->capacity) return true;
    const double need = 10.0 * sizeof(double) * n, have = sim_host_memory_bytes();
    double *pos = NULL, *vel = NULL, *acc = NULL;
    uint8_t *tags = NULL;
    if (have <= 0 || need < have) {
        pos = malloc(sizeof(double) * 4 * (size_t)n);
        vel = malloc(sizeof(double) * 3 * (size_t)n);
        acc = malloc(sizeof(double) * 3 * (size_t)n);
        tags = malloc((size_t)n);
    }
    if (!pos || !vel || !acc || !tags) {
        free(pos);
        free(vel);
        free(acc);
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
    free(c->tags);
    c->pos = pos;
    c->vel = vel;
    c->acc = acc;
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
    ensure_acc(c, sp->softening);
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

static void cpu_step(void *b, const sim_step_params *sp, int steps) {
    cpu_backend *c = b;
    const int n = c->n;
    const double dt = sp->dt, damping = sp->damping;
    double t0 = sim_now_seconds();
    ensure_acc(c, sp->softening);
    for (int s = 0; s < steps; s++) {
        kick(c, 0.5 * dt);
        PARALLEL_FOR
        for (int i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) c->pos[4 * i + k] += dt * c->vel[3 * i + k];
        }
        compute_acc(c, sp->softening);
        kick(c, 0.5 * dt);
        if (damping != 1.0) {
            PARALLEL_FOR
            for (int i = 0; i < 3 * n; i++) c->vel[i] *= damping;
        }
    }
    if (steps > 0) c->last_step_ms = (float)(1e3 * (sim_now_seconds() - t0) / steps);
}

static void cpu_vertices(void *b, sim_vertex *dst, bool dst_on_device) {
    cpu_backend *c = b;
    (void)dst_on_device; /* sim.c only passes host memory to this backend */
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

/* W = -sum_{i<j} m_i m_j / sqrt(r^2 + eps^2). Per-body sums first, then
 * added in body order: the result does not depend on the thread count. */
static double potential(const cpu_backend *c, double eps2) {
    const int n = c->n;
    const double *p = c->pos;
    double *w = malloc(sizeof(double) * (size_t)n);
    if (!w) {
        fprintf(stderr, "sim: out of host memory for diagnostics of %d bodies\n", n);
        abort();
    }
    PARALLEL_FOR_DYNAMIC
    for (int i = 0; i < n; i++) {
        double wi = 0;
        for (int j = i + 1; j < n; j++) {
            double dx = p[4 * j] - p[4 * i], dy = p[4 * j + 1] - p[4 * i + 1],
                   dz = p[4 * j + 2] - p[4 * i + 2];
            wi -= p[4 * j + 3] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
        w[i] = p[4 * i + 3] * wi;
    }
    double total = 0;
    for (int i = 0; i < n; i++) total += w[i];
    free(w);
    return total;
}

static sim_diag cpu_diagnostics(void *b, float softening, bool with_potential) {
    cpu_backend *c = b;
    const int n = c->n;
    const double eps2 = (double)softening * softening;
    const double *p = c->pos;
    sim_diag d = {0};
    if (with_potential) d.potential = potential(c, eps2);
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

static void cpu_invalidate(void *b) {
    ((cpu_backend *)b)->acc_valid = false;
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
};
