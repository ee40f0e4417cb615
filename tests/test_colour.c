/* test_colour.c - the colour modes of a quantity (app/app_colour.c): each
 * body's value against what it must be, and the auto range.
 *
 *   test_colour   radial velocity against a flow made here (two galaxies,
 *                 each expanding about its own moving centre: v_r = H r
 *                 exactly) and against the simulation's merger recomputed
 *                 here; local density monotone with radius on a Plummer
 *                 sphere and near its analytic surface density; the range's
 *                 percentiles and the places in it; in the app (no GL):
 *                 the values handed to the vertex upload and the HUD's
 *                 legend of each mode
 *
 * The potential's values are sim_get_potentials' (tests/test_potentials.c).
 */
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "density.h"
#include "test_check.h"

#define PI 3.14159265358979323846
#define W 640
#define H 480

/* Two galaxies, each of bodies in pairs mirrored through its centre c_g
 * (so c_g is their centre of mass exactly, equal masses in a pair), moving
 * with the bulk velocity u_g plus a Hubble flow H_g (x - c_g) plus a
 * rotation about z (no radial part): v_r is H_g |x - c_g|. */
static void test_radial_flow(void) {
    enum { PAIRS = 500, N = 4 * PAIRS };
    static sim_body b[N];
    const double c[2][3] = {{3, -1, 2}, {-4, 5, 0.5}}, u[2][3] = {{0.3, 0.1, -0.2}, {-1, 2, 0}};
    const double hubble[2] = {0.7, -0.4}, spin[2] = {1.5, -2.0};
    uint64_t s = 5;
    for (int i = 0; i < N; i += 2) {
        const int g = i < N / 2 ? 0 : 1;
        double d[3];
        for (int k = 0; k < 3; k++) d[k] = 2 * test_splitmix(&s) - 1;
        const double m = 0.5 + test_splitmix(&s);
        for (int side = 0; side < 2; side++) {
            sim_body *p = &b[i + side];
            const double sg = side ? -1 : 1;
            const double x[3] = {sg * d[0], sg * d[1], sg * d[2]};
            const double rot[3] = {-spin[g] * x[1], spin[g] * x[0], 0};
            for (int k = 0; k < 3; k++) {
                p->pos[k] = c[g][k] + x[k];
                p->vel[k] = u[g][k] + hubble[g] * x[k] + rot[k];
            }
            p->mass = m;
            p->tag = SIM_TAG(g, (unsigned)(i / 2) % 3);
        }
    }
    float *out = malloc(sizeof *out * N);
    app_colour_radial(b, N, out);
    double worst = 0, want_at = 0;
    int at = 0;
    for (int i = 0; i < N; i++) {
        const int g = SIM_TAG_GALAXY(b[i].tag);
        double r2 = 0;
        for (int k = 0; k < 3; k++) r2 += (b[i].pos[k] - c[g][k]) * (b[i].pos[k] - c[g][k]);
        const double want = hubble[g] * sqrt(r2);
        /* float output of double sums: a few float ulps of the speeds (~3) */
        const double e = fabs(out[i] - want) / 1e-5;
        if (!(e <= worst)) {
            worst = e;
            at = i;
            want_at = want;
        }
    }
    CHECK(worst <= 1, "flow: body %d v_r %.7g, want %.7g", at, out[at], want_at);
    free(out);
}

/* The simulation's merger after some steps: each body's radial velocity
 * recomputed here, about its galaxy's centre of mass and bulk velocity
 * taken from sim_diagnostics (summed by sim/, not by app_colour.c). */
static void test_radial_merger(void) {
    sim_error err = {0};
    sim *s = sim_create(
        &(sim_desc){.body_count = 1500, .ic = SIM_IC_MERGER, .backend = SIM_BACKEND_CPU}, &err);
    CHECK(s, "sim_create: %s", err.message);
    if (!s) return;
    sim_step(s, 5);
    const int n = sim_get_params(s).body_count;
    sim_body *b = malloc(sizeof *b * n);
    float *out = malloc(sizeof *out * n);
    sim_get_bodies(s, b);
    const sim_diag d = sim_moments(s);
    app_colour_radial(b, n, out);
    int bad = 0, galaxies[2] = {0};
    for (int i = 0; i < n; i++) {
        const int g = SIM_TAG_GALAXY(b[i].tag);
        galaxies[g & 1]++;
        double dx[3], dot = 0, r2 = 0;
        for (int k = 0; k < 3; k++) {
            dx[k] = b[i].pos[k] - d.galaxy_com[g][k];
            dot += dx[k] * (b[i].vel[k] - d.galaxy_vel[g][k]);
            r2 += dx[k] * dx[k];
        }
        const double want = dot / sqrt(r2);
        /* float output; the centres summed in another order: 1e-5 of the
         * galaxy's velocities (order 1 in these units) */
        if (!(fabs(out[i] - want) <= 1e-5 + 1e-5 * fabs(want))) {
            if (bad++ < 3) printf("merger: body %d v_r %.7g, want %.7g\n", i, out[i], want);
        }
    }
    CHECK(galaxies[0] > 0 && galaxies[1] > 0, "the merger has two galaxies (%d, %d)", galaxies[0],
          galaxies[1]);
    CHECK(bad == 0, "merger: %d of %d bodies off", bad, n);
    free(b);
    free(out);
    sim_destroy(s);
}

/* A Plummer sphere (scale a, mass 1, unequal masses) seen down the z axis:
 * each body's local projected density (density_bodies_cpu, through
 * app_colour_quantity) falls with projected radius R, bin by bin, and near
 * the middle is the analytic Sigma(R) = a^2 / (pi (a^2 + R^2)^2). */
static void test_density_profile(void) {
    enum { N = 40000 };
    const double a = 1.0, dist = 10.0, fov = 0.8;
    static sim_body b[N];
    static float v[4 * N], out[N];
    uint64_t s = 9;
    double total = 0;
    for (int i = 0; i < N; i++) {
        double r;
        do {
            r = a / sqrt(pow(test_splitmix(&s) * 0.999 + 1e-6, -2.0 / 3.0) - 1.0);
        } while (r > 20 * a);
        const double cz = 2 * test_splitmix(&s) - 1, ph = 2 * PI * test_splitmix(&s), sz = sqrt(1 - cz * cz);
        b[i].pos[0] = r * sz * cos(ph);
        b[i].pos[1] = r * sz * sin(ph);
        b[i].pos[2] = r * cz;
        b[i].mass = 0.5 + test_splitmix(&s);
        total += b[i].mass;
        for (int k = 0; k < 3; k++) v[4 * i + k] = (float)b[i].pos[k];
    }
    for (int i = 0; i < N; i++) b[i].mass /= total;
    mat4 view, proj;
    glm_lookat((vec3){0, 0, (float)dist}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_perspective((float)fov, (float)W / H, (float)dist * 1e-3f, (float)dist * 1e3f, proj);
    density_view dv = {.width = W, .height = H};
    memcpy(dv.view, view, sizeof dv.view);
    memcpy(dv.proj, proj, sizeof dv.proj);
    CHECK(app_colour_quantity(RENDER_COLOR_DENSITY, b, v, N, &dv, out), "density computed");
    /* Mean density per bin of projected radius, bodies near the mid-plane
     * depth only (|z| < 1: the perspective's area changes by 20 % there). */
    enum { BINS = 6 };
    const double edge[BINS + 1] = {0, 0.25, 0.5, 1, 1.5, 2, 3};
    double sum[BINS] = {0}, analytic[BINS] = {0}; /* the latter at each body's R */
    int count[BINS] = {0}, nan_inside = 0;
    for (int i = 0; i < N; i++) {
        const double R = hypot(b[i].pos[0], b[i].pos[1]);
        if (R < 3 && fabs(b[i].pos[2]) < 2 && !isfinite(out[i])) nan_inside++;
        if (fabs(b[i].pos[2]) > 1) continue;
        for (int k = 0; k < BINS; k++) {
            if (R >= edge[k] && R < edge[k + 1]) {
                sum[k] += out[i];
                analytic[k] += a * a / (PI * pow(a * a + R * R, 2));
                count[k]++;
            }
        }
    }
    CHECK(nan_inside == 0, "%d bodies inside the picture have no density", nan_inside);
    for (int k = 0; k < BINS; k++) {
        const double mean = sum[k] / count[k], want = analytic[k] / count[k];
        printf("R %.2f..%.2f: %5d bodies, mean density %.4g, analytic %.4g\n", edge[k], edge[k + 1],
               count[k], mean, want);
        if (k > 0) {
            const double prev = sum[k - 1] / count[k - 1];
            CHECK(mean < prev, "density does not fall from bin %d (%.4g) to %d (%.4g)", k - 1, prev,
                  k, mean);
        }
        /* Out to 1.5 a the coarse cells (0.16 a across here) smooth little
         * and each bin holds thousands of bodies (Poisson: a few per cent
         * per cell, less in the mean): within 10 %. Farther out a cell
         * holds a handful of bodies and the estimate runs high (a body
         * counts itself): not held to the profile, only to falling. */
        if (edge[k + 1] <= 1.5) {
            CHECK(fabs(mean / want - 1) < 0.1, "bin %d: mean %.4g, analytic %.4g", k, mean, want);
        }
    }
}

/* The range: the 1st and 99th percentiles (so one outlier does not set
 * it), symmetric for radial velocity, positive values only for density;
 * and the places in it. */
static void test_range(void) {
    enum { N = 1001 };
    static float raw[N];
    for (int i = 0; i < N; i++) raw[i] = (float)i; /* 0 .. 1000 */
    raw[500] = 1e9f;                               /* an outlier */
    raw[501] = NAN;                                /* a body with none */
    double lo, hi;
    CHECK(app_colour_range(RENDER_COLOR_POTENTIAL, raw, N, NULL, &lo, &hi), "a range");
    /* 1000 finite values: ranks 10 and 989 of them (0-based), 500 and 501 gone */
    CHECK(lo == 10 && hi == 991, "percentiles %g .. %g, want 10 .. 991", lo, hi);
    CHECK(app_colour_place(RENDER_COLOR_POTENTIAL, lo, hi, 10) == 0.0f &&
              app_colour_place(RENDER_COLOR_POTENTIAL, lo, hi, 991) == 1.0f &&
              fabsf(app_colour_place(RENDER_COLOR_POTENTIAL, lo, hi, 500.5f) - 0.5f) < 1e-6f &&
              app_colour_place(RENDER_COLOR_POTENTIAL, lo, hi, 1e9f) == 1.0f &&
              app_colour_place(RENDER_COLOR_POTENTIAL, lo, hi, NAN) == 0.0f,
          "linear places");
    for (int i = 0; i < N; i++) raw[i] = (float)(i - 300); /* -300 .. 700 */
    CHECK(app_colour_range(RENDER_COLOR_RADIAL, raw, N, NULL, &lo, &hi), "a range");
    CHECK(lo == -690 && hi == 690, "radial: %g .. %g, want -690 .. 690 (symmetric)", lo, hi);
    CHECK(app_colour_place(RENDER_COLOR_RADIAL, lo, hi, 0) == 0.5f, "radial 0 is the middle");
    for (int i = 0; i < N; i++) raw[i] = (float)pow(10.0, (i - 500) / 100.0); /* 1e-5 .. 1e5 */
    raw[0] = 0;
    raw[1] = -1;
    CHECK(app_colour_range(RENDER_COLOR_DENSITY, raw, N, NULL, &lo, &hi), "a range");
    const double want_lo = pow(10.0, (2 + 10 - 500) / 100.0),
                 want_hi = pow(10.0, (2 + 988 - 500) / 100.0);
    CHECK(fabs(lo / want_lo - 1) < 1e-6 && fabs(hi / want_hi - 1) < 1e-6,
          "density: %g .. %g, want %g .. %g (positive values only)", lo, hi, want_lo, want_hi);
    CHECK(fabsf(app_colour_place(RENDER_COLOR_DENSITY, 1, 100, 10) - 0.5f) < 1e-6f,
          "density is placed by log");
    CHECK(!app_colour_range(RENDER_COLOR_DENSITY, raw, 2, NULL, &lo, &hi),
          "no positive density: none");

    /* Of the bodies drawn: a hidden halo's values (here the wide ones,
     * every odd body) do not set the range, in a strided sample too. */
    static uint8_t tags[N];
    for (int i = 0; i < N; i++) {
        const bool halo = i % 2;
        tags[i] = (uint8_t)SIM_TAG(0, halo ? SIM_COMPONENT_HALO : SIM_COMPONENT_DISK);
        /* The halo's values reach +-5000, the disk's +-50. */
        raw[i] = halo ? (float)(10 * (i - 500)) : (float)(i - 500) / 10;
    }
    const app_colour_drawn all = {tags, 1, app_density_filter_tags(0, false)};
    const app_colour_drawn no_halo = {tags, 1, app_density_filter_tags(0, true)};
    CHECK(app_colour_range(RENDER_COLOR_RADIAL, raw, N, &all, &lo, &hi) && hi > 4000,
          "halo shown: %g .. %g, the halo's", lo, hi);
    CHECK(app_colour_range(RENDER_COLOR_RADIAL, raw, N, &no_halo, &lo, &hi) && hi <= 50 && hi > 45,
          "halo hidden: %g .. %g, the disk's", lo, hi);
    static float sample[(N + 2) / 3];
    int count = 0;
    for (int i = 0; i < N; i += 3) sample[count++] = raw[i];
    const app_colour_drawn sampled = {tags, 3, app_density_filter_tags(0, true)};
    CHECK(app_colour_range(RENDER_COLOR_RADIAL, sample, count, &sampled, &lo, &hi) && hi <= 50,
          "halo hidden, every 3rd body: %g .. %g, the disk's", lo, hi);
}

/* The HUD's legend (ui_hud_text's last line) names the quantity, its
 * range and units, in the app without GL: a Plummer sphere by density and
 * by potential (model units), the merger by radial velocity (km/s, a range
 * symmetric about 0). */
static app *make(sim_ic ic) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = 2000, .ic = ic},
                  .steps_per_frame = 1,
                  .headless = true,
                  .width = 640,
                  .height = 400};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    return a;
}

static void check_legend(app *a, render_color m, const char *name, const char *units, bool log) {
    static char text[32768];
    a->view.color = m;
    const render_view v = {.fb_width = 640, .fb_height = 400, .camera = a->view.camera};
    app_colour_frame(a, &v);
    const ui_quantity *q = &a->colour.shown;
    CHECK(q->on && q->computed && q->lo < q->hi, "%s: on %d computed %d, %g .. %g", name, q->on,
          q->computed, q->lo, q->hi);
    const int n = sim_get_params(a->sim).body_count;
    uint8_t *tags = malloc((size_t)n);
    if (!tags) exit(1);
    sim_get_tags(a->sim, tags);
    const uint32_t drawn = app_density_filter_tags(0, a->view.hide_halo); /* the range's bodies */
    int lo = 0, hi = 0, valued = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(a->colour.raw[i])) continue; /* density: off the picture */
        if (!((drawn >> (tags[i] & 15u)) & 1u)) continue; /* a hidden halo */
        valued++;
        lo += a->colour.values[i] == 0.0f;
        hi += a->colour.values[i] == 1.0f;
    }
    /* The range is the 1st..99th percentile: about 1 % of the bodies with
     * a value at each end (radial velocity's symmetric range: 1 % at one
     * end, fewer at the other; density: the bodies of one cell tie). */
    free(tags);
    printf("%s: %d bodies at the bottom, %d at the top, of %d drawn with a value\n", name, lo, hi,
           valued);
    CHECK(valued > n / 2 && lo + hi >= valued / 100 && lo + hi <= 3 * valued / 100,
          "%s: %d bodies at the ends of %d", name, lo + hi, valued);
    CHECK(a->interop.values == a->colour.values && a->interop.value_count == n,
          "%s: the values go to the vertex upload", name);
    ui_facts f;
    app_ui_facts(a, &f);
    ui_hud_text(&a->ui, &f, false, text, sizeof text);
    char want[200];
    snprintf(want, sizeof want, "colour: %s %.3g | %.3g %s%s\n", name, q->lo, q->hi, units,
             log ? " (log)" : "");
    CHECK(strstr(text, want) != NULL, "the legend says \"%s\" in:\n%s", want, text);
}

static void test_legend(void) {
    app *a = make(SIM_IC_PLUMMER);
    check_legend(a, RENDER_COLOR_DENSITY, "density", "mass/length² (model units)", true);
    check_legend(a, RENDER_COLOR_POTENTIAL, "potential", "velocity² (model units)", false);
    CHECK(a->colour.shown.hi < 0, "potential: every body's is negative (top %g)",
          a->colour.shown.hi);
    a->view.color = RENDER_COLOR_SPEED;
    app_colour_frame(a, &(render_view){.fb_width = 640, .fb_height = 400});
    CHECK(!a->colour.shown.on && !a->interop.values, "by speed: no values");
    app_destroy(a);
    a = make(SIM_IC_MERGER);
    check_legend(a, RENDER_COLOR_RADIAL, "radial velocity", "km/s", false);
    CHECK(a->colour.shown.lo == -a->colour.shown.hi, "radial: %g .. %g", a->colour.shown.lo,
          a->colour.shown.hi);
    app_destroy(a);
}

int main(void) {
    test_radial_flow();
    test_radial_merger();
    test_density_profile();
    test_range();
    test_legend();
    return test_exit("test_colour");
}
