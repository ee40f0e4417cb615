/* test_galaxy.c - the galaxy initial conditions are the physics they claim.
 *
 * 1. One disk galaxy alone (N = 3001, eps = 0.3 kpc) is in
 *    equilibrium: 2K/|W| within 0.1 of 1 at the start, and after three
 *    rotation periods at 2 R_d (about 0.5 Gyr) its disk keeps its size (disk
 *    half-mass radius within 15 % of the start), keeps rotating (rotational
 *    kinetic energy > 70 % of the disk's kinetic energy, from ~90 %) and
 *    stays thin (rms height < 20 % of the half-mass radius). A disk with no
 *    random motion would ring and collapse into clumps, one too hot would
 *    puff up and lose rotation: both break these bounds. The bounds leave room
 *    for the two-body heating of 1500 disk bodies (measured values print).
 *    It runs on the CPU tree (theta 0.6): its forces are within 1e-3 of the
 *    exact sum (median, tests/test_tree_cpu.c), far below the 1/sqrt(N)
 *    graininess of 3001 bodies that heats the disk, and its ~2,100 steps
 *    cost N log N each instead of the exact sum's 9 million pairs, which were
 *    nearly all of this test's time. The exact sum meets the same bounds
 *    (run it with .variant = SIM_VARIANT_BEST below).
 * 2. A merger (N = 4000, mass ratio 1:4, unequal masses): total mass
 *    M1 (1 + q); centre of mass and momentum zero; each galaxy's own centre
 *    and bulk velocity on the requested orbit: separation, relative speed
 *    and angular momentum (which alone sees the pericenter of a parabola)
 *    within 1e-6 of the Kepler values, approaching, for a parabolic and a
 *    bound orbit; the
 *    angular momentum of galaxy 2's disk tilted by the requested inclination
 *    (within 5 degrees: 400 disk bodies of random velocities).
 * 3. The galaxy units sim.h exports follow from its cgs values: the
 *    velocity unit sqrt(G M / L) rounds to SIM_GALAXY_KMS_PER_VELOCITY
 *    (207.4 km/s) and the time unit L / V to SIM_GALAXY_MYR_PER_TIME
 *    (4.71 Myr, with a Julian year: 1 Myr = 3.15576e13 s); disk and merger
 *    are the scenes in those units.
 */
#include <stdio.h>
#include <string.h>

#include "test_util.h"

#define PI 3.14159265358979323846

typedef struct disk_stats {
    double r_half, f_rot, z_rms, vc_2rd;
} disk_stats;

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Half-mass radius, rotational fraction of the kinetic energy and rms height
 * of the disk bodies (equal masses), about the disk's own centre. */
static disk_stats disk_measure(const sim_body *b, int n, unsigned galaxy) {
    double c[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    int nd = 0;
    for (int i = 0; i < n; i++) {
        if (b[i].tag != SIM_TAG(galaxy, SIM_COMPONENT_DISK)) continue;
        for (int k = 0; k < 3; k++) c[k] += b[i].pos[k], v[k] += b[i].vel[k];
        nd++;
    }
    for (int k = 0; k < 3; k++) c[k] /= nd, v[k] /= nd;
    double *radii = malloc(sizeof(double) * (size_t)nd);
    double k_rot = 0, k_all = 0, z2 = 0, vc = 0;
    int m = 0, nvc = 0;
    for (int i = 0; i < n; i++) {
        if (b[i].tag != SIM_TAG(galaxy, SIM_COMPONENT_DISK)) continue;
        const double x = b[i].pos[0] - c[0], y = b[i].pos[1] - c[1], z = b[i].pos[2] - c[2];
        const double vx = b[i].vel[0] - v[0], vy = b[i].vel[1] - v[1], vz = b[i].vel[2] - v[2];
        const double R = sqrt(x * x + y * y);
        const double vphi = R > 0 ? (x * vy - y * vx) / R : 0;
        radii[m++] = R;
        k_rot += vphi * vphi;
        k_all += vx * vx + vy * vy + vz * vz;
        z2 += z * z;
        if (R > 5.5 && R < 6.5) vc += vphi, nvc++;
    }
    qsort(radii, (size_t)nd, sizeof radii[0], cmp_double);
    disk_stats s = {radii[nd / 2], k_rot / k_all, sqrt(z2 / nd), nvc ? vc / nvc : 0};
    free(radii);
    return s;
}

static void check_isolated_disk(void) {
    const int n = 3001;
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU,
                                 .variant = SIM_VARIANT_TREE,
                                 .ic = SIM_IC_DISK,
                                 .body_count = n,
                                 .seed = 11,
                                 .softening = 0.3f,
                                 .dt = 0.05f});
    sim_body *b = malloc(sizeof(sim_body) * n);
    sim_get_bodies(s, b);
    const disk_stats s0 = disk_measure(b, n, 0);
    const sim_diag d0 = sim_diagnostics(s);
    const double period = 2 * PI * 6.0 / s0.vc_2rd; /* at 2 R_d */
    const int steps = (int)ceil(3 * period / 0.05);
    printf("disk: 2K/|W| %.3f, v_phi(2 R_d) %.3f (%.0f km/s), period %.1f (%.0f Myr), %d steps\n",
           d0.virial_ratio, s0.vc_2rd, 207.4 * s0.vc_2rd, period, 4.71 * period, steps);
    CHECK(fabs(d0.virial_ratio - 1) < 0.1, "virial ratio %.3f", d0.virial_ratio);
    sim_step(s, steps);
    sim_get_bodies(s, b);
    const disk_stats s1 = disk_measure(b, n, 0);
    const sim_diag d1 = sim_diagnostics(s);
    printf("disk start: r_half %.3f, K_rot/K %.3f, z_rms %.3f\n", s0.r_half, s0.f_rot, s0.z_rms);
    printf("disk end:   r_half %.3f, K_rot/K %.3f, z_rms %.3f, dE/E %.2e\n", s1.r_half, s1.f_rot,
           s1.z_rms, (d1.total - d0.total) / fabs(d0.total));
    CHECK(fabs(s1.r_half / s0.r_half - 1) < 0.15, "half-mass radius %.3f -> %.3f", s0.r_half,
          s1.r_half);
    CHECK(s0.f_rot > 0.8 && s1.f_rot > 0.7, "rotation fraction %.3f -> %.3f", s0.f_rot, s1.f_rot);
    CHECK(s1.z_rms < 0.2 * s1.r_half, "thickness %.3f vs radius %.3f", s1.z_rms, s1.r_half);
    free(b);
    sim_destroy(s);
}

/* Separation, relative speed and galaxy 2's disk tilt of a merger's IC. */
static void check_merger(float e, float incl2) {
    const int n = 4000;
    const sim_desc desc = sim_desc_defaults(&(sim_desc){.backend = SIM_BACKEND_CPU,
                                                        .ic = SIM_IC_MERGER,
                                                        .body_count = n,
                                                        .seed = 3,
                                                        .merger = {.mass_ratio = 0.25f,
                                                                   .pericenter = 10,
                                                                   .separation = 60,
                                                                   .eccentricity = e,
                                                                   .incl2 = incl2}});
    sim *s = test_sim(desc);
    const sim_diag d = sim_moments(s);
    const sim_galaxy_desc *g = &desc.galaxy;
    const double m1 = (double)g->disk_mass + g->bulge_mass + g->halo_mass, m2 = 0.25 * m1;
    double sep = 0, vrel2 = 0, dx[3], dv[3];
    for (int k = 0; k < 3; k++) {
        dx[k] = d.galaxy_com[1][k] - d.galaxy_com[0][k];
        dv[k] = d.galaxy_vel[1][k] - d.galaxy_vel[0][k];
        sep += dx[k] * dx[k];
        vrel2 += dv[k] * dv[k];
    }
    sep = sqrt(sep);
    /* Kepler: v^2 = GM (2/d - (1 - e)/r_p) for pericenter r_p, any e; the
     * speed alone does not see r_p at e = 1, the angular momentum
     * |dx x dv| = sqrt(GM r_p (1 + e)) does. */
    const double gm = m1 + m2, vk = sqrt(gm * (2.0 / 60.0 - (1.0 - e) / 10.0));
    const double lk = sqrt(gm * 10.0 * (1.0 + e));
    const double lx = dx[1] * dv[2] - dx[2] * dv[1], ly = dx[2] * dv[0] - dx[0] * dv[2],
                 lz = dx[0] * dv[1] - dx[1] * dv[0];
    const double l = sqrt(lx * lx + ly * ly + lz * lz);
    const double vr = (dx[0] * dv[0] + dx[1] * dv[1] + dx[2] * dv[2]) / sep;
    printf("merger e=%.2f: M %.4f (want %.4f), M1 %.4f M2 %.4f, separation %.4f, |v| %.5f "
           "(Kepler %.5f)\n",
           e, d.mass, m1 + m2, d.galaxy_mass[0], d.galaxy_mass[1], sep, sqrt(vrel2), vk);
    CHECK(fabs(d.mass / (m1 + m2) - 1) < 1e-9, "total mass %.6f", d.mass);
    CHECK(fabs(d.galaxy_mass[0] / m1 - 1) < 1e-9 && fabs(d.galaxy_mass[1] / m2 - 1) < 1e-9,
          "galaxy masses %.4f %.4f", d.galaxy_mass[0], d.galaxy_mass[1]);
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(d.center_of_mass[k]) < 1e-9, "centre of mass[%d] %.3g", k, d.center_of_mass[k]);
        CHECK(fabs(d.momentum[k]) < 1e-9, "momentum[%d] %.3g", k, d.momentum[k]);
    }
    /* Each galaxy is moved to its orbit's point after its own centre and
     * momentum are zeroed, so the centres carry only double rounding over
     * a few thousand bodies (far below 1e-12): 1e-6 has room for that, and
     * a wrong orbit (another r_p, e or d) is off by percents. */
    CHECK(fabs(sep / 60 - 1) < 1e-6, "separation %.9f, want 60", sep);
    CHECK(fabs(sqrt(vrel2) / vk - 1) < 1e-6, "relative speed %.9f, Kepler %.9f", sqrt(vrel2), vk);
    CHECK(fabs(l / lk - 1) < 1e-6, "angular momentum %.9f, Kepler %.9f (pericenter 10)", l, lk);
    CHECK(vr < 0, "the galaxies approach (radial velocity %.5f)", vr);

    /* Galaxy 2's disk spin: tilted by incl2 from +z about the x axis. */
    sim_body *b = malloc(sizeof(sim_body) * n);
    sim_get_bodies(s, b);
    double L[3] = {0, 0, 0};
    for (int i = 0; i < n; i++) {
        if (b[i].tag != SIM_TAG(1, SIM_COMPONENT_DISK)) continue;
        double r[3], v[3];
        for (int k = 0; k < 3; k++) {
            r[k] = b[i].pos[k] - d.galaxy_com[1][k];
            v[k] = b[i].vel[k] - d.galaxy_vel[1][k];
        }
        L[0] += r[1] * v[2] - r[2] * v[1];
        L[1] += r[2] * v[0] - r[0] * v[2];
        L[2] += r[0] * v[1] - r[1] * v[0];
    }
    const double tilt = acos(L[2] / sqrt(L[0] * L[0] + L[1] * L[1] + L[2] * L[2])) * 180 / PI;
    printf("merger: galaxy 2 disk tilt %.2f degrees (asked %.0f)\n", tilt, incl2);
    CHECK(fabs(tilt - incl2) < 5, "tilt %.2f, asked %.0f", tilt, incl2);
    free(b);
    sim_destroy(s);
}

static void check_units(void) {
    const double length = SIM_GALAXY_KPC_PER_LENGTH * SIM_KPC_CM;
    const double mass = SIM_GALAXY_MSUN_PER_MASS * SIM_MSUN_G;
    const double velocity = sqrt(SIM_G_CGS * mass / length); /* cm/s */
    const double kms = velocity * 1e-5, myr = length / velocity / 3.15576e13;
    printf("galaxy units: %.6f km/s, %.6f Myr\n", kms, myr);
    CHECK(round(kms * 10) / 10 == SIM_GALAXY_KMS_PER_VELOCITY, "velocity unit %.6f km/s, not %g",
          kms, SIM_GALAXY_KMS_PER_VELOCITY);
    CHECK(round(myr * 100) / 100 == SIM_GALAXY_MYR_PER_TIME, "time unit %.6f Myr, not %g", myr,
          SIM_GALAXY_MYR_PER_TIME);
    for (int ic = 0; ic < SIM_IC_COUNT; ic++) {
        CHECK(sim_ic_galactic((sim_ic)ic) == (ic == SIM_IC_DISK || ic == SIM_IC_MERGER),
              "sim_ic_galactic(%s)", sim_ic_name((sim_ic)ic));
    }
}

int main(void) {
    check_units();
    check_merger(1.0f, 60);
    check_merger(0.8f, 180);
    check_isolated_disk();
    return test_exit("test_galaxy");
}
