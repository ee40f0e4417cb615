/* sim_galaxy.c - self-consistent disk galaxies and two of them on an orbit.
 *
 * Units: G = 1, length 1 kpc, mass 10^10 solar masses; so time 4.71 Myr and
 * velocity 207.4 km/s (sim.h's SIM_GALAXY_* constants; docs/GALAXIES.md
 * derives them).
 *
 * A galaxy is three components of one all-pairs system (tags say which):
 *  - an exponential disk, surface density ~ exp(-R/R_d), vertical profile
 *    sech^2(z/z0), cut at 10 R_d;
 *  - a Hernquist bulge, rho ~ 1/(r (r+a)^3), cut at 10 a;
 *  - a Hernquist dark halo, cut at halo_cut.
 * Spheroid velocities come from the isotropic Jeans equation in the total
 * (spherically averaged) enclosed mass, capped below the local escape speed.
 * Disk velocities: the circular speed v_c(R) is measured numerically - the
 * softened midplane pull of the sampled bodies (at most VC_MAX_SOURCES of
 * them, evenly strided, masses scaled to match), averaged over 16
 * azimuths on 48 radii - then the radial dispersion follows from a Toomre Q
 * ("disk temperature"), sigma_R = Q 3.36 G Sigma / kappa, the vertical one
 * from the isothermal sheet, sigma_z^2 = pi G Sigma z0, the azimuthal one
 * from the epicyclic ratio kappa^2 / 4 Omega^2, and the mean rotation from
 * the asymmetric-drift equation (Hernquist 1993, ApJS 86, 389).
 *
 * A merger places galaxy 1 and a scaled copy (masses x q, lengths x q^1/3)
 * on a point-mass Kepler orbit of the requested pericenter and eccentricity,
 * at the requested separation, in the x-y plane.
 *
 * Threads: every body draws from streams of its own (sim_rng_stream),
 * numbered by its galaxy, the pass and its place in the galaxy, so the
 * passes over the bodies run in parallel and give the same bodies on any
 * number of threads; the rotation curve adds fixed blocks of its sources in
 * a fixed order for the same reason.
 */
#include <math.h>
#include <string.h>

#include "sim_internal.h"
#include "sim_rng.h"

#define PI 3.14159265358979323846
#define DISK_CUT 10.0  /* disk sampled out to 10 R_d */
#define BULGE_CUT 10.0 /* bulge sampled out to 10 a */
#define VC_RADII 48
#define VC_AZIMUTHS 16
#define VC_POINTS (VC_RADII * VC_AZIMUTHS)
#define VC_MAX_SOURCES 262144 /* bodies the rotation curve is measured with */
#define VC_BLOCKS 32          /* ... summed in this many blocks, each on one thread */
/* The rotation curve runs on OpenMP's threads from this many source-point
 * pairs on; below it waking them costs more than they save. */
#define VC_PARALLEL_MIN_PAIRS (1 << 20)
#define JEANS_GRID 512

/* The passes over a galaxy's bodies that draw random numbers: each body
 * has a stream per pass (body_stream). */
typedef enum pass { PASS_DISK_POSITION, PASS_SPHEROID, PASS_DISK_VELOCITY, PASS_COUNT } pass;

/* The generator of body i (its place in its galaxy) in pass p. */
static sim_rng body_stream(uint64_t seed, unsigned galaxy, pass p, int i) {
    const uint64_t stream = (uint64_t)galaxy * PASS_COUNT + (uint64_t)p;
    return sim_rng_stream(seed, stream << 32 | (uint32_t)i);
}

/* One galaxy's parameters after scaling. */
typedef struct model {
    double md, rd, z0, q;  /* disk */
    double mb, ab, rb_cut; /* bulge: mass within the cut */
    double mh, ah, rh_cut; /* halo: mass within the cut */
} model;

/* Fraction of a Hernquist sphere's mass within r. */
static double hernquist_fraction(double r, double a) {
    return r * r / ((r + a) * (r + a));
}

/* Fraction of an exponential disk's mass within cylindrical radius R. */
static double disk_fraction(double R, double rd) {
    const double x = R / rd;
    return 1.0 - (1.0 + x) * exp(-x);
}

/* Enclosed mass of a truncated Hernquist component of mass m within cut. */
static double hernquist_enclosed(double r, double m, double a, double cut) {
    return r >= cut ? m : m * hernquist_fraction(r, a) / hernquist_fraction(cut, a);
}

/* Spherically averaged total enclosed mass (the disk counted as if spherical:
 * good enough for the spheroids' dispersions, where the halo dominates). */
static double enclosed(const model *g, double r) {
    return hernquist_enclosed(r, g->mb, g->ab, g->rb_cut) +
           hernquist_enclosed(r, g->mh, g->ah, g->rh_cut) +
           g->md * disk_fraction(fmin(r, DISK_CUT * g->rd), g->rd);
}

/* Hernquist density shape (any normalization). */
static double hernquist_shape(double r, double a) {
    return a / (r * pow(r + a, 3));
}

/* Radii uniform in Hernquist mass within cut. */
static double sample_hernquist(sim_rng *rng, double a, double cut) {
    const double s = sqrt(sim_rng_uniform(rng) * hernquist_fraction(cut, a));
    return a * s / (1.0 - s);
}

/* Cylindrical radius of the mass fraction u in [0, 1) of an exponential
 * disk within DISK_CUT R_d: solves F(x) = 1 - (1 + x) e^-x = u F(DISK_CUT)
 * for x = R / R_d by Newton's method (F' = x e^-x), every step kept inside
 * the bracket the signs of F so far allow (halving it where Newton would
 * leave it), until F is within 2^-50 of its target (a few roundings of F
 * itself): a few steps, where bisection to the same point took 60. */
static double sample_disk_radius(double u, double rd) {
    const double target = u * disk_fraction(DISK_CUT, 1.0);
    /* Start from F ~ x^2 / 2 near the centre, from x - ln(1 + x) = -ln(1 - F) farther out. */
    const double tail = -log1p(-target);
    double lo = 0, hi = DISK_CUT, x = target < 0.5 ? sqrt(2 * target) : tail + log1p(tail);
    if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    for (int i = 0; i < 100; i++) {
        const double e = exp(-x), f = 1.0 - (1.0 + x) * e - target;
        if (fabs(f) <= 0x1p-50) break;
        if (f < 0) {
            lo = x;
        } else {
            hi = x;
        }
        const double next = x - f / (x * e);
        x = next > lo && next < hi ? next : 0.5 * (lo + hi);
    }
    return x * rd;
}

/* Log-spaced radial grid from r0 to r1 with tabulated values. */
typedef struct radial {
    double r[JEANS_GRID];
    double v[JEANS_GRID];
} radial;

static double interp(const radial *t, double r) {
    if (r <= t->r[0]) return t->v[0];
    if (r >= t->r[JEANS_GRID - 1]) return t->v[JEANS_GRID - 1];
    const double f = log(r / t->r[0]) / log(t->r[JEANS_GRID - 1] / t->r[0]) * (JEANS_GRID - 1);
    const int k = (int)f;
    const double w = f - k;
    return (1 - w) * t->v[k] + w * t->v[k + 1];
}

/* Isotropic Jeans: sigma^2(r) = 1/rho(r) int_r^cut rho(r') G M(r') / r'^2 dr'. */
static void jeans(const model *g, double a, double cut, radial *sigma2) {
    for (int k = 0; k < JEANS_GRID; k++) {
        sigma2->r[k] = 1e-3 * a * pow(cut / (1e-3 * a), (double)k / (JEANS_GRID - 1));
    }
    double integral = 0;
    sigma2->v[JEANS_GRID - 1] = 0;
    for (int k = JEANS_GRID - 2; k >= 0; k--) {
        const double r0 = sigma2->r[k], r1 = sigma2->r[k + 1];
        const double f0 = hernquist_shape(r0, a) * enclosed(g, r0) / (r0 * r0);
        const double f1 = hernquist_shape(r1, a) * enclosed(g, r1) / (r1 * r1);
        integral += 0.5 * (f0 + f1) * (r1 - r0);
        sigma2->v[k] = integral / hernquist_shape(r0, a);
    }
}

/* Escape speed squared: -2 Phi(r), Phi from the enclosed mass out to rmax. */
static void escape_speed2(const model *g, double rmin, double rmax, radial *vesc2) {
    for (int k = 0; k < JEANS_GRID; k++) {
        vesc2->r[k] = rmin * pow(rmax / rmin, (double)k / (JEANS_GRID - 1));
    }
    double phi = -enclosed(g, rmax) / rmax;
    vesc2->v[JEANS_GRID - 1] = -2 * phi;
    for (int k = JEANS_GRID - 2; k >= 0; k--) {
        const double r0 = vesc2->r[k], r1 = vesc2->r[k + 1];
        phi -= 0.5 * (enclosed(g, r0) / (r0 * r0) + enclosed(g, r1) / (r1 * r1)) * (r1 - r0);
        vesc2->v[k] = -2 * phi;
    }
}

static void spheroid_velocity(sim_rng *rng, const radial *sigma2, const radial *vesc2, double r,
                              double v[3]) {
    const double s = sqrt(fmax(interp(sigma2, r), 0.0)), vmax = 0.95 * sqrt(interp(vesc2, r));
    for (int tries = 0; tries < 50; tries++) {
        for (int k = 0; k < 3; k++) v[k] = s * sim_rng_normal(rng);
        if (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] < vmax * vmax) return;
    }
    for (int k = 0; k < 3; k++) v[k] = 0; /* a body that keeps drawing escapers sits still */
}

/* v_c^2(R) = -R <a_R> in the midplane, from the bodies themselves: every
 * stride-th body (at most VC_MAX_SOURCES of them) pulls on VC_AZIMUTHS
 * points on each of VC_RADII radii. Each source is read once and pulls on
 * all the points, so a sample spread over a large array costs one memory
 * read per source, not one per source and point. */
static void rotation_curve(const model *g, const sim_body *b, int n, double eps, double *radius,
                           double *vc2) {
    const int stride = n > VC_MAX_SOURCES ? (n + VC_MAX_SOURCES - 1) / VC_MAX_SOURCES : 1;
    const int sources = (n + stride - 1) / stride; /* j = 0, stride, 2 stride, ... < n */
    const double eps2 = eps * eps;
    double px[VC_POINTS], py[VC_POINTS], cx[VC_POINTS], cy[VC_POINTS];
    for (int k = 0; k < VC_RADII; k++) {
        radius[k] = g->rd * pow(10.0, -1.3 + 2.3 * k / (VC_RADII - 1)); /* 0.05 .. 10 R_d */
        for (int t = 0; t < VC_AZIMUTHS; t++) {
            const double phi = 2 * PI * (t + 0.5) / VC_AZIMUTHS;
            const int p = k * VC_AZIMUTHS + t;
            cx[p] = cos(phi);
            cy[p] = sin(phi);
            px[p] = radius[k] * cx[p];
            py[p] = radius[k] * cy[p];
        }
    }
    /* Each block's radial pull at each point, added up in block order. */
    double part[VC_BLOCKS][VC_POINTS];
    const int blocks = sources < VC_BLOCKS ? sources : VC_BLOCKS;
    const bool wide = (double)sources * VC_POINTS >= VC_PARALLEL_MIN_PAIRS;
    (void)wide; /* without OpenMP */
    SIM_PARALLEL_FOR(schedule(dynamic, 1) if (wide))
    for (int k = 0; k < blocks; k++) {
        const int s0 = (int)((int64_t)sources * k / blocks);
        const int s1 = (int)((int64_t)sources * (k + 1) / blocks);
        double ar[VC_POINTS] = {0};
        for (int s = s0; s < s1; s++) {
            const sim_body *src = &b[(int64_t)s * stride];
            const double x = src->pos[0], y = src->pos[1], z2 = src->pos[2] * src->pos[2];
            const double m = stride * src->mass;
            for (int p = 0; p < VC_POINTS; p++) {
                const double dx = x - px[p], dy = y - py[p];
                const double r2 = dx * dx + dy * dy + z2 + eps2;
                ar[p] += m / (r2 * sqrt(r2)) * (dx * cx[p] + dy * cy[p]);
            }
        }
        memcpy(part[k], ar, sizeof ar);
    }
    for (int k = 0; k < VC_RADII; k++) {
        double sum = 0;
        for (int t = 0; t < VC_AZIMUTHS; t++) {
            double ar = 0;
            for (int j = 0; j < blocks; j++) ar += part[j][k * VC_AZIMUTHS + t];
            sum += -ar * radius[k];
        }
        vc2[k] = fmax(sum / VC_AZIMUTHS, 0.0);
    }
}

/* Linear interpolation in the rotation-curve table for x[0] < at <= x[last]. */
static double table_at(const double *x, const double *y, double at) {
    int k = 1;
    while (k < VC_RADII - 1 && at > x[k]) k++;
    const double w = (at - x[k - 1]) / (x[k] - x[k - 1]);
    return (1 - w) * y[k - 1] + w * y[k];
}

/* v_c^2 at R from the table: ~R^2 (solid body) inside it, Keplerian outside. */
static double vc2_at(const double *x, const double *y, double at) {
    if (at <= x[0]) return y[0] * (at / x[0]) * (at / x[0]);
    if (at >= x[VC_RADII - 1]) return y[VC_RADII - 1] * x[VC_RADII - 1] / at;
    return table_at(x, y, at);
}

/* A tabulated value at R, held constant beyond the ends. */
static double clamped_at(const double *x, const double *y, double at) {
    if (at <= x[0]) return y[0];
    if (at >= x[VC_RADII - 1]) return y[VC_RADII - 1];
    return table_at(x, y, at);
}

static void disk_velocities(const model *g, const sim_body *all, int n, sim_body *disk, int n_disk,
                            double eps, uint64_t seed, unsigned galaxy) {
    double radius[VC_RADII], vc2[VC_RADII], kappa2[VC_RADII];
    rotation_curve(g, all, n, eps, radius, vc2);
    for (int k = 0; k < VC_RADII; k++) {
        const int a = k > 0 ? k - 1 : k, b = k + 1 < VC_RADII ? k + 1 : k;
        const double om2 = vc2[k] / (radius[k] * radius[k]);
        const double om2a = vc2[a] / (radius[a] * radius[a]),
                     om2b = vc2[b] / (radius[b] * radius[b]);
        const double d = radius[k] * (om2b - om2a) / (radius[b] - radius[a]);
        /* Physical disks have Omega <= kappa <= 2 Omega; noise must not leave that. */
        kappa2[k] = fmin(fmax(4 * om2 + d, om2), 4 * om2);
    }
    const bool wide = n_disk >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n_disk; i++) {
        sim_rng rng = body_stream(seed, galaxy, PASS_DISK_VELOCITY, i);
        double *p = disk[i].pos, *v = disk[i].vel;
        const double R = fmax(sqrt(p[0] * p[0] + p[1] * p[1]), 1e-6 * g->rd);
        const double v2 = vc2_at(radius, vc2, R);
        const double om2 = v2 / (R * R);
        /* kappa^2 / Omega^2 from the table; near the centre Omega is flat too. */
        const double om2_table = clamped_at(radius, vc2, R) / (R * R);
        const double k2 =
            fmax(clamped_at(radius, kappa2, R) * (R < radius[0] ? om2 / om2_table : 1.0), 1e-30);
        const double sigma = g->md / (2 * PI * g->rd * g->rd) * exp(-R / g->rd);
        const double vc = sqrt(v2);
        const double sr = fmin(g->q * 3.36 * sigma / sqrt(k2), 0.5 * vc);
        const double sz = sqrt(PI * sigma * g->z0);
        const double ratio = om2 > 0 ? k2 / (4 * om2) : 1.0;
        const double sphi = sr * sqrt(ratio);
        const double vphi2 = v2 + sr * sr * (1 - ratio - 2 * R / g->rd);
        const double vphi = sqrt(fmax(vphi2, 0.0));
        const double vr = sr * sim_rng_normal(&rng), vt = vphi + sphi * sim_rng_normal(&rng);
        const double c = p[0] / R, s = p[1] / R;
        v[0] = vr * c - vt * s;
        v[1] = vr * s + vt * c;
        v[2] = sz * sim_rng_normal(&rng);
    }
}

/* One galaxy with n bodies, masses x mass_scale, lengths x length_scale,
 * centred and at rest, disk in the x-y plane spinning about +z. */
static void make_galaxy(const sim_galaxy_desc *d, double mass_scale, double length_scale, int n,
                        unsigned galaxy, double eps, uint64_t seed, sim_body *out) {
    const double ls = length_scale;
    const model g = {
        .md = d->disk_mass * mass_scale,
        .rd = d->disk_scale * ls,
        .z0 = d->disk_height * ls,
        .q = d->disk_temperature,
        .mb = d->bulge_mass * mass_scale,
        .ab = d->bulge_scale * ls,
        .rb_cut = BULGE_CUT * d->bulge_scale * ls,
        .mh = d->halo_mass * mass_scale,
        .ah = d->halo_scale * ls,
        .rh_cut = d->halo_cut * ls,
    };
    int n_disk = (int)lround(n * (double)d->disk_fraction);
    int n_bulge = (int)lround(n * (double)d->bulge_fraction);
    if (n >= 3) { /* every component gets a body so its mass is there */
        if (n_disk < 1) n_disk = 1;
        if (n_bulge < 1) n_bulge = 1;
        if (n_disk + n_bulge > n - 1) n_disk = n - 1 - n_bulge;
    } else {
        n_disk = n;
        n_bulge = 0;
    }
    const int n_halo = n - n_disk - n_bulge;
    sim_body *disk = out, *bulge = out + n_disk; /* the halo follows the bulge */

    const bool wide = n >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n_disk; i++) {
        sim_rng rng = body_stream(seed, galaxy, PASS_DISK_POSITION, i);
        const double R = sample_disk_radius(sim_rng_uniform(&rng), g.rd);
        const double phi = sim_rng_range(&rng, 0, 2 * PI);
        const double u = sim_rng_range(&rng, 1e-9, 1 - 1e-9);
        disk[i] = (sim_body){.pos = {R * cos(phi), R * sin(phi), g.z0 * atanh(2 * u - 1)},
                             .mass = g.md / n_disk,
                             .tag = SIM_TAG(galaxy, SIM_COMPONENT_DISK)};
    }
    /* Bulge and halo: radii uniform in Hernquist mass within the cut,
     * isotropic directions, velocities from the Jeans equation (tables of
     * the model alone, so each body's position and velocity are one draw). */
    radial sigma2_b, sigma2_h, vesc2;
    jeans(&g, g.ab, g.rb_cut, &sigma2_b);
    jeans(&g, g.ah, g.rh_cut, &sigma2_h);
    escape_speed2(&g, 1e-3 * g.ab, fmax(g.rh_cut, DISK_CUT * g.rd), &vesc2);
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n_bulge + n_halo; i++) {
        sim_rng rng = body_stream(seed, galaxy, PASS_SPHEROID, n_disk + i);
        const bool in_bulge = i < n_bulge;
        const double a = in_bulge ? g.ab : g.ah, cut = in_bulge ? g.rb_cut : g.rh_cut;
        const double r = sample_hernquist(&rng, a, cut);
        double dir[3];
        sim_rng_direction(&rng, dir);
        sim_body *b = bulge + i;
        *b =
            (sim_body){.pos = {r * dir[0], r * dir[1], r * dir[2]},
                       .mass = in_bulge ? g.mb / n_bulge : g.mh / n_halo,
                       .tag = SIM_TAG(galaxy, in_bulge ? SIM_COMPONENT_BULGE : SIM_COMPONENT_HALO)};
        spheroid_velocity(&rng, in_bulge ? &sigma2_b : &sigma2_h, &vesc2, r, b->vel);
    }
    if (n_disk > 0 && n > 1) disk_velocities(&g, out, n, disk, n_disk, eps, seed, galaxy);
    sim_zero_momentum(out, n);
}

/* Tilts a galaxy's bodies by incl degrees about the x axis (its own centre is
 * the origin), then moves it to position x and velocity v. */
static void place(sim_body *b, int n, double incl_deg, const double x[3], const double v[3]) {
    const double a = incl_deg * PI / 180.0, c = cos(a), s = sin(a);
    const bool wide = n >= SIM_IC_PARALLEL_MIN;
    (void)wide; /* without OpenMP */
    SIM_IC_PARALLEL_FOR(wide)
    for (int i = 0; i < n; i++) {
        double *p = b[i].pos, *u = b[i].vel;
        const double py = p[1], pz = p[2], uy = u[1], uz = u[2];
        p[1] = c * py - s * pz;
        p[2] = s * py + c * pz;
        u[1] = c * uy - s * uz;
        u[2] = s * uy + c * uz;
        for (int k = 0; k < 3; k++) {
            p[k] += x[k];
            u[k] += v[k];
        }
    }
}

static double galaxy_mass(const sim_galaxy_desc *d) {
    return (double)d->disk_mass + d->bulge_mass + d->halo_mass;
}

void sim_galaxy_disk(const sim_desc *desc, int n, double softening, uint64_t seed, sim_body *out) {
    make_galaxy(&desc->galaxy, 1.0, 1.0, n, 0, softening, seed, out);
}

void sim_galaxy_merger(const sim_desc *desc, int n, double softening, uint64_t seed,
                       sim_body *out) {
    const sim_merger_desc *m = &desc->merger;
    const double q = m->mass_ratio;
    int n1 = (int)lround(n / (1.0 + q));
    if (n >= 2 && n1 >= n) n1 = n - 1;
    if (n >= 2 && n1 < 1) n1 = 1;
    const int n2 = n - n1;
    make_galaxy(&desc->galaxy, 1.0, 1.0, n1, 0, softening, seed, out);
    make_galaxy(&desc->galaxy, q, cbrt(q), n2, 1, softening, seed, out + n1);

    /* The relative orbit of two point masses M1 and M2 = q M1. */
    double rel_x[3], rel_v[3];
    sim_merger_orbit(desc, rel_x, rel_v);
    const double m1 = galaxy_mass(&desc->galaxy), m2 = q * m1, mt = m1 + m2;
    double x1[3], v1[3], x2[3], v2[3];
    for (int k = 0; k < 3; k++) {
        x1[k] = -m2 / mt * rel_x[k];
        v1[k] = -m2 / mt * rel_v[k];
        x2[k] = m1 / mt * rel_x[k];
        v2[k] = m1 / mt * rel_v[k];
    }
    place(out, n1, m->incl1, x1, v1);
    place(out + n1, n2, m->incl2, x2, v2);
}

void sim_merger_orbit(const sim_desc *desc, double rel_x[3], double rel_v[3]) {
    const sim_merger_desc *m = &desc->merger;
    const double gm = galaxy_mass(&desc->galaxy) * (1.0 + m->mass_ratio);
    const double rp = m->pericenter, e = m->eccentricity, d = m->separation;
    const double L = sqrt(gm * rp * (1 + e));
    const double energy = gm * (e - 1) / (2 * rp);
    const double v2 = 2 * (energy + gm / d), vt = L / d;
    const double vr = -sqrt(fmax(v2 - vt * vt, 0.0)); /* approaching */
    rel_x[0] = d;
    rel_x[1] = 0;
    rel_x[2] = 0;
    rel_v[0] = vr;
    rel_v[1] = vt;
    rel_v[2] = 0;
}
