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
 */
#include <math.h>

#include "sim_internal.h"
#include "sim_rng.h"

/* Mass fraction of the Plummer model that is sampled. */
#define PLUMMER_MASS_CUT 0.999
/* Henon-unit length scale of the Plummer model: a = 3 pi / 16. */
#define PLUMMER_HENON_A (3.0 * 3.14159265358979323846 / 16.0)

void sim_zero_momentum(sim_body *b, int n) {
    double m = 0, r[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        m += b[i].mass;
        for (int k = 0; k < 3; k++) {
            r[k] += b[i].mass * b[i].pos[k];
            v[k] += b[i].mass * b[i].vel[k];
        }
    }
    if (m <= 0) return;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            b[i].pos[k] -= r[k] / m;
            b[i].vel[k] -= v[k] / m;
        }
    }
}

static void plummer(sim_rng *rng, int n, sim_body *out) {
    const double vscale = 1.0 / sqrt(PLUMMER_HENON_A);
    for (int i = 0; i < n; i++) {
        /* Radius from the inverted cumulative mass M(r) = r^3 / (1 + r^2)^1.5 (a = 1). */
        double x = sim_rng_range(rng, 1e-10, PLUMMER_MASS_CUT);
        double r = 1.0 / sqrt(pow(x, -2.0 / 3.0) - 1.0);
        /* Speed in units of the local escape speed, by von Neumann rejection
         * from g(q) = q^2 (1 - q^2)^3.5, whose maximum is below 0.1. */
        double q, g;
        do {
            q = sim_rng_uniform(rng);
            g = 0.1 * sim_rng_uniform(rng);
        } while (g > q * q * pow(1.0 - q * q, 3.5));
        double v = q * sqrt(2.0) * pow(1.0 + r * r, -0.25);
        double dir[3];
        sim_rng_direction(rng, dir);
        for (int k = 0; k < 3; k++) out[i].pos[k] = PLUMMER_HENON_A * r * dir[k];
        sim_rng_direction(rng, dir);
        for (int k = 0; k < 3; k++) out[i].vel[k] = vscale * v * dir[k];
    }
}

static void shell(sim_rng *rng, int n, const sim_shell_desc *d, sim_body *out) {
    const double omega =
        d->spin * sqrt(1.0 / ((double)d->outer_radius * d->outer_radius * d->outer_radius));
    for (int i = 0; i < n; i++) {
        double dir[3];
        sim_rng_direction(rng, dir);
        double r = sim_rng_range(rng, d->inner_radius, d->outer_radius);
        double *p = out[i].pos, *v = out[i].vel;
        for (int k = 0; k < 3; k++) p[k] = r * dir[k];
        /* v = omega z^ x r = omega (-y, x, 0) */
        v[0] = -omega * p[1];
        v[1] = omega * p[0];
        v[2] = 0.0;
    }
}

void sim_ic_generate(sim_ic ic, int n, uint64_t seed, const sim_desc *desc, double softening,
                     sim_body *out) {
    sim_rng rng = sim_rng_seed(seed);
    for (int i = 0; i < n; i++) {
        out[i] = (sim_body){.mass = 1.0 / n};
    }
    switch (ic) {
    case SIM_IC_SHELL:
        shell(&rng, n, &desc->shell, out);
        break;
    case SIM_IC_DISK:
        sim_galaxy_disk(desc, n, softening, &rng, out);
        break;
    case SIM_IC_MERGER:
        sim_galaxy_merger(desc, n, softening, &rng, out);
        break;
    default: /* SIM_IC_DEFAULT, SIM_IC_PLUMMER; sim.c rejects anything else */
        plummer(&rng, n, out);
        break;
    }
    sim_zero_momentum(out, n);
}
