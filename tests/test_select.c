/* test_select.c - selections that follow bodies (app_select.c), checked
 * against sums the test makes itself from the simulation's bodies and tags.
 *
 * Drives the app without GL (CPU backend, a 3,001-body merger): a --script
 * file of select lines read by io_script_load and handed over as app_frame
 * does, the keys through app_key, the frame's part through
 * app_select_frame with a view the test makes (a lens included). Checks:
 * galaxy 1's disk stars by script - count, mass and centre of mass equal
 * the test's own sums over the bodies so tagged, and after 20 steps the
 * centre of the same bodies, which moved; a box of the picture equals the
 * bodies the test projects into it with its own (double) camera maths; a
 * speed range; every histogram's counts add up to its set's and its range
 * is the set's; F7's properties (the speed median too), F8, Z; F5 then F9
 * keeps the sets on the same bodies, a re-seed clears them; sets carried
 * over by IDs through a shuffled order (app_select_remap), and by index
 * where the IDs are not unique. A series of three tipsy files with IDs
 * (written here through snap_write_tipsy and _sidecar), the second and
 * third in shuffled orders and the third without one of the set's bodies
 * and with a new one, played between and on the files: at every position
 * the set holds exactly the bodies whose IDs were in it (the new one in no
 * set), and the renderer's tags carry the set's bits beside the
 * simulation's own (a fading body in the set has both).
 *
 *     test_select    (run in a scratch folder: F5 writes there)
 */
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "test_util.h"

#define N 3001

/* Bodies now. */
static sim_body *bodies(app *a) {
    sim_body *b = malloc(sizeof *b * N);
    CHECK(b != NULL, "memory");
    sim_get_bodies(a->sim, b);
    return b;
}

/* The frame's part of the selection, as app_frame calls it. */
static void frame(app *a, const render_view *view) {
    uint16_t *tags = NULL;
    app_select_frame(a, view, &tags);
    free(tags);
    app_select_measure(a);
}

/* Count, mass and centre of mass of the bodies with in[i]. */
static long sums(const sim_body *b, const bool *in, double *mass, double c[3]) {
    long count = 0;
    *mass = 0;
    double x[3] = {0};
    for (int i = 0; i < N; i++) {
        if (!in[i]) continue;
        count++;
        *mass += b[i].mass;
        for (int k = 0; k < 3; k++) x[k] += b[i].mass * b[i].pos[k];
    }
    for (int k = 0; k < 3; k++) c[k] = *mass > 0 ? x[k] / *mass : 0;
    return count;
}

/* Set k of the app against in[]: the same bodies, and its figures against
 * the test's sums. Mass and centre: the same doubles summed in the same
 * order, so equal to rounding (1e-12 relative). */
static void check_set(app *a, int k, const sim_body *b, const bool *in, const char *what) {
    double mass = 0, c[3];
    const long count = sums(b, in, &mass, c);
    int differ = 0;
    for (int i = 0; i < N; i++) differ += (bool)((a->select.member[i] >> k) & 1u) != in[i];
    const ui_select_set *st = &a->select.stats[k];
    CHECK(differ == 0, "%s: %d bodies differ from the test's", what, differ);
    CHECK(st->count == count, "%s: count %ld, the test counts %ld", what, st->count, count);
    CHECK(fabs(st->mass - mass) <= 1e-12 * fabs(mass), "%s: mass %.17g, want %.17g", what, st->mass,
          mass);
    for (int j = 0; j < 3; j++) {
        CHECK(fabs(st->center[j] - c[j]) <= 1e-12 * (1 + fabs(c[j])),
              "%s: centre[%d] %.17g, want %.17g", what, j, st->center[j], c[j]);
    }
    long sum = st->outside;
    for (int i = 0; i < UI_SELECT_BINS; i++) sum += st->hist[i];
    CHECK(sum == count, "%s: the histogram holds %ld bodies of %ld", what, sum, count);
    printf("%-34s %5ld bodies, mass %.6g, centre (%.4g, %.4g, %.4g)\n", what, count, mass, c[0],
           c[1], c[2]);
}

/* Where p lands in view, as fractions of the picture from its top left,
 * in double: gluLookAt and gluPerspective written out, then the lens
 * (render.h's render_view: scale about the centre, the target moved to
 * frame_center_px). false when it is outside the clip volume. */
static bool project(const render_view *v, const double p[3], double *fx, double *fy) {
    const render_camera *c = &v->camera;
    const double cp = cos(c->pitch), sp = sin(c->pitch), cy = cos(c->yaw), sy = sin(c->yaw);
    const double dir[3] = {cp * cy, cp * sy, sp}, up[3] = {-sp * cy, -sp * sy, cp};
    double eye[3], f[3], s[3], u[3], r[3];
    for (int k = 0; k < 3; k++) eye[k] = c->target[k] + c->distance * dir[k], f[k] = -dir[k];
    s[0] = f[1] * up[2] - f[2] * up[1], s[1] = f[2] * up[0] - f[0] * up[2];
    s[2] = f[0] * up[1] - f[1] * up[0];
    const double sl = sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    for (int k = 0; k < 3; k++) s[k] /= sl;
    u[0] = s[1] * f[2] - s[2] * f[1], u[1] = s[2] * f[0] - s[0] * f[2];
    u[2] = s[0] * f[1] - s[1] * f[0];
    for (int k = 0; k < 3; k++) r[k] = p[k] - eye[k];
    const double xe = s[0] * r[0] + s[1] * r[1] + s[2] * r[2];
    const double ye = u[0] * r[0] + u[1] * r[1] + u[2] * r[2];
    const double ze = -(f[0] * r[0] + f[1] * r[1] + f[2] * r[2]);
    const double fov = c->fov_y > 0 ? c->fov_y : NBODY_FOV_Y_DEFAULT;
    const double t = 1 / tan(0.5 * fov), aspect = (double)v->fb_width / v->fb_height;
    const double near = c->distance * 1e-3, far = c->distance * 1e3;
    double xc = t / aspect * xe, yc = t * ye;
    const double zc = (far + near) / (near - far) * ze + 2 * far * near / (near - far), w = -ze;
    if (v->frame_scale > 0) {
        xc = v->frame_scale * xc + (2.0 * v->frame_center_px[0] / v->fb_width - 1) * w;
        yc = v->frame_scale * yc + (1 - 2.0 * v->frame_center_px[1] / v->fb_height) * w;
    }
    if (!(w > 0) || !(fabs(zc) <= w)) return false;
    *fx = 0.5 + 0.5 * xc / w;
    *fy = 0.5 - 0.5 * yc / w;
    return true;
}

/* The panel's text for the active set (set 1: galaxy 1's disk) in galaxy
 * units: its mass in M_sun, its centre in kpc, the histogram's range in
 * kpc or km/s, each the model figure times the unit (sim.h). */
static void check_panel_units(app *a) {
    ui_facts f;
    app_ui_facts(a, &f);
    char text[1024], want[160];
    ui_select_text(&f, text, sizeof text);
    const ui_select_set *s = &a->select.stats[a->select.active];
    const double e = floor(log10(s->mass * SIM_GALAXY_MSUN_PER_MASS));
    snprintf(want, sizeof want, "mass %.4g (%.3ge%.0f M_sun)", s->mass,
             s->mass * SIM_GALAXY_MSUN_PER_MASS / pow(10, e), e);
    CHECK(strstr(text, want) != NULL, "panel has '%s':\n%s", want, text);
    snprintf(want, sizeof want, "centre (%.3g, %.3g, %.3g) kpc",
             s->center[0] * SIM_GALAXY_KPC_PER_LENGTH, s->center[1] * SIM_GALAXY_KPC_PER_LENGTH,
             s->center[2] * SIM_GALAXY_KPC_PER_LENGTH);
    CHECK(strstr(text, want) != NULL, "panel has '%s':\n%s", want, text);
    const bool speed = a->select.quantity == APP_SELECT_SPEED;
    const double k = speed ? SIM_GALAXY_KMS_PER_VELOCITY : SIM_GALAXY_KPC_PER_LENGTH;
    snprintf(want, sizeof want, " %.3g to %.3g %s\n", k * s->lo, k * s->hi, speed ? "km/s" : "kpc");
    CHECK(strstr(text, want) != NULL, "panel has '%s':\n%s", want, text);
}

static app *make_app(void) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = N},
                  .preset = "antennae-like",
                  .steps_per_frame = 1,
                  .headless = true};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    return a;
}

static void check_remap_by_ids(void) {
    enum { M = 1000 };
    app_select s = {0};
    s.count = M;
    s.member = malloc(M);
    uint64_t *old_ids = malloc(sizeof *old_ids * M), *new_ids = malloc(sizeof *new_ids * (M + 5));
    int *perm = malloc(sizeof *perm * M);
    CHECK(s.member && old_ids && new_ids && perm, "memory");
    for (int i = 0; i < M; i++) {
        s.member[i] = (uint8_t)(i * 37 % 64);
        old_ids[i] = 1000003ull * (uint64_t)(M - i); /* not sorted, not the index */
        perm[i] = i;
    }
    uint64_t st = 42;
    for (int i = M - 1; i > 0; i--) { /* Fisher-Yates */
        st = st * 6364136223846793005ull + 1442695040888963407ull;
        const int j = (int)((st >> 33) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    uint8_t *was = malloc(M);
    memcpy(was, s.member, M);
    for (int j = 0; j < M; j++) new_ids[j] = old_ids[perm[j]];
    for (int j = M; j < M + 5; j++) new_ids[j] = 7 + (uint64_t)j; /* new bodies: in no set */
    app_select_remap(&s, old_ids, new_ids, M + 5);
    int wrong = 0;
    for (int j = 0; j < M; j++) wrong += s.member[j] != was[perm[j]];
    for (int j = M; j < M + 5; j++) wrong += s.member[j] != 0;
    CHECK(s.count == M + 5 && wrong == 0, "remap by IDs: %d bodies in the wrong sets", wrong);
    /* Without IDs: the index is the identity. */
    app_select_remap(&s, NULL, NULL, 10);
    wrong = 0;
    for (int j = 0; j < 10; j++) wrong += s.member[j] != was[perm[j]];
    CHECK(s.count == 10 && wrong == 0, "remap by index: %d bodies in the wrong sets", wrong);
    /* IDs that are not unique say nothing: index order, as without IDs. */
    memcpy(was, s.member, 10);
    const uint64_t dup_old[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 9};
    const uint64_t dup_new[10] = {9, 9, 8, 7, 6, 5, 4, 3, 2, 1};
    CHECK(app_select_remap(&s, dup_old, dup_new, 10), "remap with duplicate IDs");
    wrong = 0;
    for (int j = 0; j < 10; j++) wrong += s.member[j] != was[j];
    CHECK(wrong == 0, "remap with duplicate IDs: %d bodies not kept by index", wrong);
    free(s.member);
    free(old_ids), free(new_ids), free(perm), free(was);
}

/* One file of the series: body k of the series (k < M, or M: the one that
 * appears last) is ID 7919 k + 13, galaxy k % 2 (galaxy 1: even k), at
 * (k / M, sin k, cos k) + its velocity times t; bodies are written in
 * order[0 .. count). */
enum { SERIES_M = 300 };
static void write_series_file(const char *path, double t, const int *order, int count) {
    snap_body *b = calloc((size_t)count, sizeof *b);
    uint64_t *ids = calloc((size_t)count, sizeof *ids);
    CHECK(b && ids, "memory");
    for (int i = 0; i < count; i++) {
        const int k = order[i];
        const double v[3] = {0.01 * cos(k), 0.02, -0.01 * sin(k)};
        const double x0[3] = {(double)k / SERIES_M, sin(k), cos(k)};
        for (int j = 0; j < 3; j++) b[i].pos[j] = x0[j] + v[j] * t, b[i].vel[j] = v[j];
        b[i].mass = 1.0 / SERIES_M;
        b[i].tag = SNAP_TAG((unsigned)(k % 2), (unsigned)(k % 3 == 0));
        ids[i] = 7919u * (uint64_t)k + 13u;
    }
    const snap_data d = {.count = count,
                         .bodies = b,
                         .time = t,
                         .format = SNAP_FORMAT_TIPSY,
                         .knobs = {.valid = true,
                                   .scene = "plummer",
                                   .dt = 0.01,
                                   .softening = 0.05,
                                   .damping = 1,
                                   .theta = 0.5},
                         .ids = ids};
    uint8_t *buf = NULL;
    size_t len = 0;
    snap_error err = {0};
    CHECK(snap_write_tipsy(&d, &buf, &len, &err) && io_write_bytes(path, "tipsy", buf, len),
          "%s: %s", path, err.message);
    free(buf);
    char sidecar[PATH_MAX];
    snprintf(sidecar, sizeof sidecar, "%s%s", path, SNAP_SIDECAR_SUFFIX);
    CHECK(snap_write_sidecar(&d, &buf, &len, &err) && io_write_bytes(sidecar, "sidecar", buf, len),
          "%s: %s", sidecar, err.message);
    free(buf);
    free(b);
    free(ids);
}

static void shuffle(int *v, int n, uint64_t seed) {
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        const int j = (int)((seed >> 33) % (uint64_t)(i + 1)), t = v[i];
        v[i] = v[j], v[j] = t;
    }
}

/* Set 1 (galaxy 1 = the even k, by script, on the first file) followed
 * through the series by ID, at positions between and on the files. */
static void check_series_by_ids(void) {
    int order[SERIES_M + 1];
    for (int i = 0; i < SERIES_M; i++) order[i] = i;
    write_series_file("sel_0.tipsy", 0, order, SERIES_M);
    shuffle(order, SERIES_M, 7);
    write_series_file("sel_1.tipsy", 1, order, SERIES_M);
    /* The third: shuffled again, without body 4 (in the set), with body M. */
    shuffle(order, SERIES_M, 11);
    for (int i = 0; i < SERIES_M; i++) {
        if (order[i] == 4) order[i] = SERIES_M;
    }
    write_series_file("sel_2.tipsy", 2, order, SERIES_M);
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU},
                  .load = "sel_*.tipsy",
                  .steps_per_frame = 1,
                  .headless = true};
    int status = 0;
    app *a = app_create(&cfg, &status);
    CHECK(a != NULL, "the series loads");
    if (!a) return;
    app_key(a, GLFW_KEY_SPACE, 0); /* paused: the test moves the play position */
    CHECK(!a->snapshot.playing, "Space pauses the series");
    const render_view view = {.fb_width = 320, .fb_height = 200, .camera = a->view.camera};
    app_snapshot_frame(a);
    frame(a, &view);
    io_select sel = {.op = IO_SELECT_MATCH, .set = 0, .galaxy = 0, .component = -1};
    app_select_request(a, &sel);
    /* Back to the first file last: body 4 left the set when it left the
     * series, and comes back in none. */
    const double at[] = {0.5, 1.0, 1.5, 2.0, 0.0};
    bool gone = false; /* body 4 was not on screen */
    for (int p = 0; p < (int)(sizeof at / sizeof at[0]); p++) {
        gone = gone || at[p] >= 2.0;
        a->playback.pos = at[p];
        app_snapshot_frame(a);
        uint16_t *tags = NULL;
        app_select_frame(a, &view, &tags);
        int n = 0;
        const uint64_t *ids = app_playback_ids(a, &n);
        CHECK(ids && n == sim_get_params(a->sim).body_count && n == a->select.count,
              "at %g: the playback's IDs for %d bodies", at[p], n);
        uint8_t *sim_tags = malloc((size_t)(n > 0 ? n : 1));
        CHECK(tags && sim_tags, "at %g: the renderer's tags", at[p]);
        if (!ids || !tags || !sim_tags || n != a->select.count) {
            free(tags), free(sim_tags);
            break;
        }
        sim_get_tags(a->sim, sim_tags);
        int wrong = 0, members = 0, tag_wrong = 0, faded_members = 0;
        for (int i = 0; i < n; i++) {
            const uint64_t k = (ids[i] - 13u) / 7919u;
            const bool want = k < SERIES_M && k % 2 == 0 && !(gone && k == 4); /* M: in none */
            const bool in = a->select.member[i] & 1u;
            wrong += in != want;
            members += in;
            /* The renderer's tag: the simulation's (fade level too) in the low
             * 8 bits, set 1 or the dim bit above. */
            const unsigned want_tag =
                sim_tags[i] | (in ? 1u << NBODY_TAG_SET_SHIFT : NBODY_TAG_DIM);
            tag_wrong += tags[i] != want_tag;
            faded_members += in && ((sim_tags[i] >> NBODY_TAG_FADE_SHIFT) & NBODY_TAG_FADE_MASK);
        }
        printf("series at %.1f: %d bodies, %d in set 1 (%d fading), %d in the wrong set, %d "
               "renderer's tags wrong\n",
               at[p], n, members, faded_members, wrong, tag_wrong);
        CHECK(wrong == 0, "at %g: %d bodies in the wrong set (by ID)", at[p], wrong);
        CHECK(tag_wrong == 0, "at %g: %d renderer's tags wrong", at[p], tag_wrong);
        CHECK(members == SERIES_M / 2 - gone, "at %g: %d in the set", at[p], members);
        /* Between the second and the third file, body 4 fades out in the set. */
        if (at[p] == 1.5)
            CHECK(faded_members == 1, "at 1.5: %d fading bodies in the set", faded_members);
        free(tags);
        free(sim_tags);
    }
    app_destroy(a);
    const char *const files[] = {"sel_0.tipsy", "sel_1.tipsy", "sel_2.tipsy"};
    for (int i = 0; i < 3; i++) {
        char sidecar[PATH_MAX];
        snprintf(sidecar, sizeof sidecar, "%s%s", files[i], SNAP_SIDECAR_SUFFIX);
        unlink(files[i]);
        unlink(sidecar);
    }
}

int main(void) {
    char dir[] = "/tmp/test_select_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "a scratch folder");
    CHECK(chdir(dir) == 0, "into %s", dir);
    app *a = make_app();
    render_view view = {.fb_width = 640,
                        .fb_height = 360,
                        .camera = a->view.camera,
                        .hide_halo = a->view.hide_halo,
                        .frame_scale = 0.8f,
                        .frame_center_px = {380, 170}};

    /* Galaxy 1's disk stars, a box and a speed range, by script. */
    FILE *f = fopen("select.txt", "w");
    CHECK(f != NULL, "script");
    fprintf(f, "0 select 1 galaxy 1 component disk\n"
               "0 select 2 box 0.62 0.2 0.3 0.7   # corners in either order\n"
               "0 select 3 speed 0.4 0.9\n"
               "0 select 4 name the other halo\n"
               "0 select 4 galaxy 2 component halo\n");
    fclose(f);
    io_script_event *ev = NULL;
    int count = 0;
    CHECK(io_script_load("select.txt", &ev, &count) && count == 5, "the script reads");
    for (int i = 0; i < count; i++) {
        CHECK(ev[i].is_select, "line %d is a selection", ev[i].line);
        app_select_request(a, &ev[i].select);
    }
    free(ev);
    frame(a, &view);
    CHECK(a->ui.shown[UI_OVERLAY_SELECT], "a selection shows the panel");
    /* The HUD's legend says the sets are drawn in their own colours, and
     * stops saying it when F6 hides the panel (and the colours). */
    {
        static char hud[32768];
        ui_facts facts;
        app_ui_facts(a, &facts);
        ui_hud_text(&a->ui, &facts, false, hud, sizeof hud);
        CHECK(strstr(hud, "| sets in their own colours (F6)\n"), "the legend names the sets:\n%s",
              hud);
        app_key(a, GLFW_KEY_F6, 0);
        app_ui_facts(a, &facts);
        ui_hud_text(&a->ui, &facts, false, hud, sizeof hud);
        CHECK(!strstr(hud, "sets in their own colours"), "F6 hid them:\n%s", hud);
        app_key(a, GLFW_KEY_F6, 0);
    }
    sim_body *b = bodies(a);
    bool *in = calloc(N, sizeof *in), *disk1 = calloc(N, sizeof *disk1);
    for (int i = 0; i < N; i++) {
        disk1[i] =
            SIM_TAG_GALAXY(b[i].tag) == 0 && SIM_TAG_COMPONENT(b[i].tag) == SIM_COMPONENT_DISK;
    }
    check_set(a, 0, b, disk1, "galaxy 1 disk (script)");
    int boxed = 0;
    for (int i = 0; i < N; i++) {
        double fx = 0, fy = 0;
        const bool halo = SIM_TAG_COMPONENT(b[i].tag) == SIM_COMPONENT_HALO;
        in[i] = !(view.hide_halo && halo) && project(&view, b[i].pos, &fx, &fy) && fx >= 0.3 &&
                fx <= 0.62 && fy >= 0.2 && fy <= 0.7;
        boxed += in[i];
    }
    CHECK(boxed > 50 && boxed < N / 2, "the box holds some of the bodies (%d)", boxed);
    check_set(a, 1, b, in, "box 0.3-0.62 x 0.2-0.7 (lens)");
    for (int i = 0; i < N; i++) {
        const double v =
            sqrt(b[i].vel[0] * b[i].vel[0] + b[i].vel[1] * b[i].vel[1] + b[i].vel[2] * b[i].vel[2]);
        in[i] = v >= 0.4 && v <= 0.9;
    }
    check_set(a, 2, b, in, "speed 0.4 to 0.9");
    for (int i = 0; i < N; i++) {
        in[i] = SIM_TAG_GALAXY(b[i].tag) == 1 && SIM_TAG_COMPONENT(b[i].tag) == SIM_COMPONENT_HALO;
    }
    check_set(a, 3, b, in, "galaxy 2 halo");
    CHECK(!strcmp(a->select.stats[3].name, "the other halo"), "name '%s'", a->select.stats[3].name);

    /* The radius histogram's range is the set's: 0 to the farthest body. */
    double rmax = 0;
    for (int i = 0; i < N; i++) {
        if (!disk1[i]) continue;
        double r2 = 0;
        for (int k = 0; k < 3; k++) r2 += pow(b[i].pos[k] - a->select.stats[0].center[k], 2);
        rmax = fmax(rmax, sqrt(r2));
    }
    CHECK(a->select.stats[0].lo == 0 && fabs(a->select.stats[0].hi - rmax) <= 1e-12 * rmax,
          "radius range %g to %g, want 0 to %g", a->select.stats[0].lo, a->select.stats[0].hi,
          rmax);
    /* Every quantity's histogram holds the whole set (Shift+F7 cycles);
     * the panel gives the merger's galaxy units beside the model's. */
    for (int q = 0; q < APP_SELECT_QUANTITY_COUNT; q++) {
        app_key(a, GLFW_KEY_F7, GLFW_MOD_SHIFT);
        frame(a, &view);
        for (int k = 0; k < 4; k++) {
            long sum = 0;
            for (int i = 0; i < UI_SELECT_BINS; i++) sum += a->select.stats[k].hist[i];
            CHECK(sum == a->select.stats[k].count, "quantity %d set %d: %ld in bins of %ld",
                  (int)a->select.quantity, k + 1, sum, a->select.stats[k].count);
        }
        check_panel_units(a);
    }
    CHECK(a->select.quantity == APP_SELECT_RADIUS, "Shift+F7 cycles back to the radius");

    /* The set follows its bodies through 20 steps: the centre of the same
     * bodies, now, and they moved. */
    const double c0[3] = {a->select.stats[0].center[0], a->select.stats[0].center[1],
                          a->select.stats[0].center[2]};
    sim_step(a->sim, 20);
    frame(a, &view);
    free(b);
    b = bodies(a);
    check_set(a, 0, b, disk1, "galaxy 1 disk after 20 steps");
    const double moved = sqrt(pow(a->select.stats[0].center[0] - c0[0], 2) +
                              pow(a->select.stats[0].center[1] - c0[1], 2) +
                              pow(a->select.stats[0].center[2] - c0[2], 2));
    CHECK(moved > 0.1, "the centre moved by %g only", moved);
    const double c20[3] = {a->select.stats[0].center[0], a->select.stats[0].center[1],
                           a->select.stats[0].center[2]};
    const double t20 = app_snapshot_time(a); /* a loaded file's time is the app's offset */

    /* F5, more steps, F9: the sets are on the same bodies again, where the
     * save left them (the tipsy file and its sidecar keep doubles whole). */
    app_key(a, GLFW_KEY_F5, 0);
    sim_step(a->sim, 5);
    frame(a, &view);
    app_key(a, GLFW_KEY_F9, 0);
    frame(a, &view);
    free(b);
    b = bodies(a);
    check_set(a, 0, b, disk1, "galaxy 1 disk after F5, 5 steps, F9");
    double back = 0;
    for (int k = 0; k < 3; k++) back = fmax(back, fabs(a->select.stats[0].center[k] - c20[k]));
    CHECK(back < 1e-12 && app_snapshot_time(a) == t20,
          "F9 brought back the save's bodies: centre %g from the save's, t %.17g (saved %.17g)",
          back, app_snapshot_time(a), t20);

    /* F7's properties into the set four Z presses on: the box waited for
     * the frame's view, so set 2 was made last and is the active one. */
    CHECK(a->select.active == 1, "active set %d, want 2 (the last made)", a->select.active + 1);
    for (int i = 0; i < 4; i++) app_key(a, GLFW_KEY_Z, 0);
    CHECK(a->select.active == 5, "Z: active set %d, want 6", a->select.active + 1);
    app_key(a, GLFW_KEY_Z, GLFW_MOD_SHIFT);
    CHECK(a->select.active == 4, "Shift+Z: active set %d, want 5", a->select.active + 1);
    app_key(a, GLFW_KEY_Z, 0);
    app_key(a, GLFW_KEY_Z, 0);
    CHECK(a->select.active == 0, "Z past set 6: active set %d, want 1", a->select.active + 1);
    for (int i = 0; i < 5; i++) app_key(a, GLFW_KEY_Z, GLFW_MOD_SHIFT);
    CHECK(a->select.active == 1, "Shift+Z past set 1: active set %d, want 2", a->select.active + 1);
    for (int i = 0; i < 3; i++) app_key(a, GLFW_KEY_Z, 0);
    for (int p = 0; p < 6; p++) {
        app_key(a, GLFW_KEY_F7, 0);
        frame(a, &view);
        for (int i = 0; i < N; i++) {
            const unsigned g = SIM_TAG_GALAXY(b[i].tag), c = SIM_TAG_COMPONENT(b[i].tag);
            in[i] = p == 0   ? g == 0
                    : p == 1 ? g == 1
                    : p == 2 ? c == SIM_COMPONENT_DISK
                    : p == 3 ? c == SIM_COMPONENT_BULGE
                             : c == SIM_COMPONENT_HALO;
        }
        if (p == 5) { /* above the median speed: the test sorts */
            double *v = malloc(sizeof *v * N), *sorted = malloc(sizeof *sorted * N);
            for (int i = 0; i < N; i++) {
                v[i] = sqrt(b[i].vel[0] * b[i].vel[0] + b[i].vel[1] * b[i].vel[1] +
                            b[i].vel[2] * b[i].vel[2]);
                sorted[i] = v[i];
            }
            for (int i = 1; i < N; i++) { /* insertion sort: N is small */
                const double t = sorted[i];
                int j = i;
                for (; j > 0 && sorted[j - 1] > t; j--) sorted[j] = sorted[j - 1];
                sorted[j] = t;
            }
            for (int i = 0; i < N; i++) in[i] = v[i] > sorted[N / 2];
            free(v), free(sorted);
        }
        static const char *const names[] = {"F7: galaxy 1", "F7: galaxy 2",
                                            "F7: disk",     "F7: bulge",
                                            "F7: halo",     "F7: above the median speed"};
        check_set(a, 4, b, in, names[p]);
    }
    app_key(a, GLFW_KEY_F8, 0);
    frame(a, &view);
    CHECK(a->select.stats[4].count == 0 && a->select.stats[0].count > 0,
          "F8 clears the active set only (%ld, %ld)", a->select.stats[4].count,
          a->select.stats[0].count);

    /* A re-seed (R: a new seed) clears every set and says so. */
    app_key(a, GLFW_KEY_R, 0);
    frame(a, &view);
    long left = 0;
    for (int k = 0; k < UI_SELECT_SETS; k++) left += a->select.stats[k].count;
    CHECK(left == 0, "after a re-seed %ld bodies are still selected", left);
    CHECK(strstr(a->msg.text, "cleared") != NULL, "the message says so: '%s'", a->msg.text);

    /* A Plummer sphere is in model units: the panel gives no galaxy units. */
    app_key(a, GLFW_KEY_1, 0);
    app_key(a, GLFW_KEY_F7, GLFW_MOD_SHIFT); /* radius -> speed */
    app_select_request(a, &(io_select){.op = IO_SELECT_MATCH,
                                       .galaxy = -1,
                                       .component = -1,
                                       .speed = true,
                                       .speed_lo = 0,
                                       .speed_hi = 1e3});
    frame(a, &view);
    ui_facts facts;
    app_ui_facts(a, &facts);
    char text[1024];
    ui_select_text(&facts, text, sizeof text);
    CHECK(a->select.stats[0].count == sim_get_params(a->sim).body_count && strstr(text, "speed ") &&
              !strstr(text, "M_sun") && !strstr(text, "kpc") && !strstr(text, "km/s"),
          "Plummer sphere: %ld selected, panel:\n%s", a->select.stats[0].count, text);

    check_remap_by_ids();
    check_series_by_ids();
    char sidecar[PATH_MAX + 16];
    snprintf(sidecar, sizeof sidecar, "%s.nbody", a->snapshot.last_save);
    unlink(a->snapshot.last_save);
    unlink(sidecar);
    unlink("select.txt");
    CHECK(rmdir(dir) == 0, "nothing else left in %s", dir);
    free(b), free(in), free(disk1);
    app_destroy(a);
    return test_exit("test_select");
}
