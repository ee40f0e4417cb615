/* sim_ic.c - initial conditions, in stated units, seeded and reproducible.
 *
 * Plummer and the shell have total mass 1 (G = 1) and equal body masses 1/N;
 * the galaxies (sim_galaxy.c) have their own units and unequal masses. Every
 * scene has its centre of mass and total momentum set to zero.
 *
 * Plummer sphere (SIM_IC_PLUMMER): Aarseth, Henon & Wielen (1974, A&A 37,
 * 183) sampling of the Plummer model, scaled to Henon units (G = M = 1,
 * E = -1/4): the Plummer radius is a = 3 pi / 16 = 0.589 and the half-mass
 * radius a / sqrt(2^(2/3) - 1) = 0.769. The outermost 0.1 % of the mass is
 * not sampled (as NEMO's mkplummer does) so that a handful of far-flung
 * bodies do not set the camera's scale.
 *
 * Rotating shell (SIM_IC_SHELL): the scene of the GPU Gems 3 chapter and
 * NVIDIA's nbody demo: directions uniform on the sphere, radii uniform in
 * [inner, outer] (NVIDIA's 2.5 : 4 ratio by default), cold, in solid-body
 * rotation v = omega z^ x r about +z with omega = spin * sqrt(G M / outer^3).
 * (NVIDIA's demo takes r x z^, which turns the other way; ours has its
 * angular momentum along +z.)
 *
 * Threads: body i draws its numbers from stream i of the seed
 * (sim_rng_stream), so the bodies are drawn in parallel and are the same
 * on any number of threads; the sums of sim_zero_momentum add fixed blocks
 * of bodies in a fixed order for the same reason.
 */
#include <math.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_rng.h"

/* Mass fraction of the Plummer model that is sampled. */
#define PLUMMER_MASS_CUT 0.999
/* Henon-unit length scale of the Plummer model: a = 3 pi / 16. */
#define PLUMMER_HENON_A (3.0 * 3.14159265358979323846 / 16.0)
/* sim_zero_momentum sums the bodies in this many blocks of (nearly) equal
 * size, a number that depends on no thread count. */
#define SUM_BLOCKS 1024

void sim_zero_momentum(sim_body *b, int n) {
    if (n <= 0) return;
    /* Per block: mass, m r (3), m v (3). */
    double part[SUM_BLOCKS][7];
    const int blocks = n < SUM_BLOCKS ? n : SUM_BLOCKS;
    const bool wide = n >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_PARALLEL_FOR(schedule(dynamic, 1) if (wide))
    for (int k = 0; k < blocks; k++) {
        const int i0 = (int)((int64_t)n * k / blocks), i1 = (int)((int64_t)n * (k + 1) / blocks);
        double s[7] = {0, 0, 0, 0, 0, 0, 0};
        for (int i = i0; i < i1; i++) {
            s[0] += b[i].mass;
            for (int c = 0; c < 3; c++) {
                s[1 + c] += b[i].mass * b[i].pos[c];
                s[4 + c] += b[i].mass * b[i].vel[c];
            }
        }
        memcpy(part[k], s, sizeof s);
    }
    double m = 0, r[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    for (int k = 0; k < blocks; k++) {
        m += part[k][0];
        for (int c = 0; c < 3; c++) {
            r[c] += part[k][1 + c];
            v[c] += part[k][4 + c];
        }
    }
    if (m <= 0) return;
    for (int c = 0; c < 3; c++) {
        r[c] /= m;
        v[c] /= m;
    }
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n; i++) {
        for (int c = 0; c < 3; c++) {
            b[i].pos[c] -= r[c];
            b[i].vel[c] -= v[c];
        }
    }
}

/* One Plummer body from its own generator. */
static sim_body plummer_body(sim_rng *rng, double mass) {
    const double vscale = 1.0 / sqrt(PLUMMER_HENON_A);
    /* Radius from the inverted cumulative mass M(r) = r^3 / (1 + r^2)^1.5 (a = 1). */
    const double x = sim_rng_range(rng, 1e-10, PLUMMER_MASS_CUT);
    const double r = 1.0 / sqrt(pow(x, -2.0 / 3.0) - 1.0);
    /* Speed in units of the local escape speed, by von Neumann rejection
     * from g(q) = q^2 (1 - q^2)^3.5, whose maximum is below 0.1. */
    double q, g;
    do {
        q = sim_rng_uniform(rng);
        g = 0.1 * sim_rng_uniform(rng);
    } while (g > q * q * pow(1.0 - q * q, 3.5));
    const double v = q * sqrt(2.0) * pow(1.0 + r * r, -0.25);
    sim_body b = {.mass = mass};
    double dir[3];
    sim_rng_direction(rng, dir);
    for (int k = 0; k < 3; k++) b.pos[k] = PLUMMER_HENON_A * r * dir[k];
    sim_rng_direction(rng, dir);
    for (int k = 0; k < 3; k++) b.vel[k] = vscale * v * dir[k];
    return b;
}

static void plummer(uint64_t seed, int n, sim_body *out) {
    const bool wide = n >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n; i++) {
        sim_rng rng = sim_rng_stream(seed, (uint64_t)i);
        out[i] = plummer_body(&rng, 1.0 / n);
    }
}

static void shell(uint64_t seed, int n, const sim_shell_desc *d, sim_body *out) {
    const double omega =
        d->spin * sqrt(1.0 / ((double)d->outer_radius * d->outer_radius * d->outer_radius));
    const bool wide = n >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n; i++) {
        sim_rng rng = sim_rng_stream(seed, (uint64_t)i);
        double dir[3];
        sim_rng_direction(&rng, dir);
        const double r = sim_rng_range(&rng, d->inner_radius, d->outer_radius);
        sim_body *b = &out[i];
        *b = (sim_body){.mass = 1.0 / n};
        for (int k = 0; k < 3; k++) b->pos[k] = r * dir[k];
        /* v = omega z^ x r = omega (-y, x, 0) */
        b->vel[0] = -omega * b->pos[1];
        b->vel[1] = omega * b->pos[0];
        b->vel[2] = 0.0;
    }
}

void sim_ic_generate(sim_ic ic, int n, uint64_t seed, const sim_desc *desc, double softening,
                     sim_body *out) {
    switch (ic) { /* each writes every field of every body */
    case SIM_IC_SHELL:
        shell(seed, n, &desc->shell, out);
        break;
    case SIM_IC_DISK:
        sim_galaxy_disk(desc, n, softening, seed, out);
        break;
    case SIM_IC_MERGER:
        sim_galaxy_merger(desc, n, softening, seed, out);
        break;
    default: /* SIM_IC_DEFAULT, SIM_IC_PLUMMER; sim.c rejects anything else */
        plummer(seed, n, out);
        break;
    }
    sim_zero_momentum(out, n);
}
