/* test_ic.c - the initial conditions are the physics they claim to be.
 *
 * Plummer at N = 16384 in Henon units: total mass 1; centre of mass and
 * momentum zero; virial ratio 2K/|W| within 0.05 of 1 (finite-N scatter is
 * ~1/sqrt(N) ~ 0.01, the 0.1 % mass cut-off moves it by far less); half-mass
 * radius within 5 % of 0.769 (its sampling scatter at this N is ~1 %);
 * total energy within 5 % of -1/4. The same seed gives the same bodies,
 * another seed different ones.
 *
 * Rotating shell at N = 16384, outer radius 1 and 2: every radius within
 * the recipe's bounds [inner, outer], widened by 0.03 outer because zeroing
 * the centre of mass shifts every body by the sample mean (~0.006 outer per
 * axis at this N; 0.03 is ~5 sigma); angular momentum along +z (the x, y
 * components below 2 % of L_z, a ~1/sqrt(N) effect), and L_z equal to
 * omega * sum m R^2 of solid-body rotation, omega = spin / outer^1.5, to
 * double rounding (1e-9).
 */
#include <string.h>

#include "test_util.h"

#define N 16384

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void check_plummer(void) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = N, .seed = 42});
    sim_set_softening(s, 0.0f); /* the model's own potential energy */
    sim_body *b = malloc(sizeof(sim_body) * N);
    sim_get_bodies(s, b);
    sim_diag d = sim_diagnostics(s);
    printf("plummer: M=%.6f K=%.5f W=%.5f E=%.5f 2K/|W|=%.4f\n", d.mass, d.kinetic, d.potential,
           d.total, d.virial_ratio);
    CHECK(fabs(d.mass - 1.0) < 1e-12, "total mass %.15f", d.mass);
    CHECK(fabs(d.virial_ratio - 1.0) < 0.05, "virial ratio %.4f", d.virial_ratio);
    CHECK(fabs(d.total + 0.25) < 0.05 * 0.25, "energy %.5f, Henon units say -0.25", d.total);
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(d.center_of_mass[k]) < 1e-12, "centre of mass[%d] %.3g", k, d.center_of_mass[k]);
        CHECK(fabs(d.momentum[k]) < 1e-12, "momentum[%d] %.3g", k, d.momentum[k]);
    }
    double *r = malloc(sizeof(double) * N);
    for (int i = 0; i < N; i++) {
        r[i] =
            sqrt(b[i].pos[0] * b[i].pos[0] + b[i].pos[1] * b[i].pos[1] + b[i].pos[2] * b[i].pos[2]);
    }
    qsort(r, N, sizeof r[0], cmp_double);
    const double r_half = 0.5 * (r[N / 2 - 1] + r[N / 2]); /* equal masses: the median */
    printf("plummer: half-mass radius %.4f (model 0.769)\n", r_half);
    CHECK(fabs(r_half / 0.769 - 1.0) < 0.05, "half-mass radius %.4f", r_half);

    /* Reproducible: same seed, same bodies; other seed, other bodies. */
    sim_body *again = malloc(sizeof(sim_body) * N);
    sim_error err = {0};
    CHECK(sim_reset(s, SIM_IC_PLUMMER, N, 42, &err), "reset");
    sim_get_bodies(s, again);
    CHECK(memcmp(b[0].pos, again[0].pos, sizeof b[0].pos) == 0 &&
              memcmp(b[N - 1].vel, again[N - 1].vel, sizeof b[0].vel) == 0,
          "same seed, same bodies");
    CHECK(sim_reset(s, SIM_IC_PLUMMER, N, 43, &err), "reset");
    sim_get_bodies(s, again);
    CHECK(b[0].pos[0] != again[0].pos[0], "another seed, other bodies");
    free(again);
    free(r);
    free(b);
    sim_destroy(s);
}

/* outer: the shell's outer radius (0: the default), so that omega's scaling
 * with it is seen too. */
static void check_shell(double outer) {
    const sim_desc desc = sim_desc_defaults(&(sim_desc){.backend = SIM_BACKEND_CPU,
                                                        .body_count = N,
                                                        .ic = SIM_IC_SHELL,
                                                        .seed = 5,
                                                        .shell = {.outer_radius = outer}});
    sim *s = test_sim(desc);
    sim_body *b = malloc(sizeof(sim_body) * N);
    sim_get_bodies(s, b);
    sim_diag d = sim_diagnostics(s);
    const double widen = 0.03 * desc.shell.outer_radius; /* the centre's shift scales with it */
    const double lo = desc.shell.inner_radius - widen, hi = desc.shell.outer_radius + widen;
    const double omega = desc.shell.spin / pow(desc.shell.outer_radius, 1.5);
    int outside = 0;
    double rmin = 1e30, rmax = 0, inertia = 0;
    for (int i = 0; i < N; i++) {
        const double *p = b[i].pos;
        const double r = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        rmin = fmin(rmin, r);
        rmax = fmax(rmax, r);
        if (r < lo || r > hi) outside++;
        inertia += b[i].mass * (p[0] * p[0] + p[1] * p[1]);
    }
    const double *L = d.angular_momentum;
    printf("shell: radii %.4f..%.4f, L = (%.3g, %.3g, %.5f), omega*I = %.5f\n", rmin, rmax, L[0],
           L[1], L[2], omega * inertia);
    CHECK(outside == 0, "%d radii outside [%g, %g]", outside, lo, hi);
    CHECK(L[2] > 0, "L_z %.5f must be positive (rotation about +z)", L[2]);
    CHECK(hypot(L[0], L[1]) < 0.02 * L[2], "L not along z: (%.3g, %.3g, %.3g)", L[0], L[1], L[2]);
    /* Solid-body rotation stays solid-body about the new centre when the
     * centre of mass and momentum are zeroed (the mean velocity is omega x
     * the mean position), so L_z = omega sum m R^2 up to double rounding. */
    CHECK(fabs(L[2] / (omega * inertia) - 1.0) < 1e-9, "L_z %.9f vs solid body %.9f", L[2],
          omega * inertia);
    CHECK(fabs(d.mass - 1.0) < 1e-12, "total mass %.15f", d.mass);
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(d.center_of_mass[k]) < 1e-12, "centre of mass[%d] %.3g", k, d.center_of_mass[k]);
        CHECK(fabs(d.momentum[k]) < 1e-12, "momentum[%d] %.3g", k, d.momentum[k]);
    }
    free(b);
    sim_destroy(s);
}

int main(void) {
    check_plummer();
    check_shell(0);
    check_shell(2);
    return test_exit("test_ic");
}
