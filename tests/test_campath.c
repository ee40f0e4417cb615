/* test_campath.c - camera paths: the interpolation, the file format and the
 * keys (app_campath.c, app/io/io_campath.c).
 *
 *     test_campath assets/paths/merger.campath
 *
 * The maths: the path passes through every keyframe exactly; it has no jump
 * anywhere and no jump of its velocity at an interior keyframe (finite
 * differences, with a piecewise-linear path as the control that the check
 * does catch a kink); slerp stays unit length and takes the short way; a
 * path of two keyframes changes only what differs between them; a path
 * that follows a galaxy moves with its centre. The format: the example
 * path loads, and save -> load -> save gives the same keyframes and the
 * same text; bad texts are refused. The keys (an app on the CPU backend,
 * no GL): F2 / Shift+F2 / F3 / F4 and the HUD's line, whose time reads
 * less than the path's length until its end.
 */
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "test_util.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)

/* The pose as numbers: target xyz, distance, yaw, pitch, fov. */
#define VALUES 7
static void values(const app_campath_pose *p, double v[VALUES]) {
    v[0] = p->target[0];
    v[1] = p->target[1];
    v[2] = p->target[2];
    v[3] = p->distance;
    v[4] = p->yaw;
    v[5] = p->pitch;
    v[6] = p->fov_y;
}
static const char *const names[VALUES] = {"x", "y", "z", "distance", "yaw", "pitch", "fov"};

typedef void (*eval_fn)(const io_campath *p, const app_campath_centres *c, double t,
                        app_campath_pose *out);

/* The control: straight lines between the keyframes (a kink at each). */
static void eval_linear(const io_campath *p, const app_campath_centres *c, double t,
                        app_campath_pose *out) {
    int i = 0;
    while (i + 2 < p->count && p->keys[i + 1].time <= t) i++;
    app_campath_pose a, b;
    app_campath_eval(p, c, p->keys[i].time, &a);
    app_campath_eval(p, c, p->keys[i + 1].time, &b);
    const double u = (t - p->keys[i].time) / (p->keys[i + 1].time - p->keys[i].time);
    double va[VALUES], vb[VALUES];
    values(&a, va);
    values(&b, vb);
    *out = a;
    double *o[VALUES] = {&out->target[0], &out->target[1], &out->target[2], &out->distance,
                         &out->yaw,       &out->pitch,     &out->fov_y};
    for (int k = 0; k < VALUES; k++) *o[k] = (1 - u) * va[k] + u * vb[k];
}

static void eval_values(eval_fn f, const io_campath *p, const app_campath_centres *c, double t,
                        double v[VALUES]) {
    app_campath_pose pose;
    f(p, c, t, &pose);
    values(&pose, v);
}

/* The worst jump of the first derivative at the interior keyframes, over
 * (1 + |derivative|): the one-sided differences (f(t + h) - f(t)) / h and
 * (f(t) - f(t - h)) / h each differ from f'(t) by at most M h / 2 where f is
 * C1 with |f''| <= M, so they differ by M h; a kink differs by its jump. */
static double derivative_jump(eval_fn f, const io_campath *p, const app_campath_centres *c,
                              double h, char *where, size_t len) {
    double worst = 0;
    for (int i = 1; i + 1 < p->count; i++) {
        const double t = p->keys[i].time;
        double lo[VALUES], mid[VALUES], hi[VALUES];
        eval_values(f, p, c, t - h, lo);
        eval_values(f, p, c, t, mid);
        eval_values(f, p, c, t + h, hi);
        for (int k = 0; k < VALUES; k++) {
            const double left = (mid[k] - lo[k]) / h, right = (hi[k] - mid[k]) / h;
            const double jump = fabs(right - left) / (1 + fabs(left));
            if (jump > worst) {
                worst = jump;
                snprintf(where, len, "keyframe %d, %s: %.6g then %.6g", i + 1, names[k], left,
                         right);
            }
        }
    }
    return worst;
}

static app_campath_centres some_centres(void) {
    return (app_campath_centres){.at = {{0, 0, 0}, {1.5, -2, 0.25}, {-12, 3, 1}, {14, -4, -2}}};
}

static void check_through_keyframes(const io_campath *p) {
    const app_campath_centres c = some_centres();
    for (int i = 0; i < p->count; i++) {
        const io_campath_key *k = &p->keys[i];
        app_campath_pose pose;
        app_campath_eval(p, &c, k->time, &pose);
        for (int d = 0; d < 3; d++) {
            const double want = k->anchor == IO_CAMPATH_WORLD ? k->target[d]
                                                              : c.at[k->anchor][d] + k->target[d];
            CHECK(pose.target[d] == want, "keyframe %d target[%d] %.17g, want %.17g", i + 1, d,
                  pose.target[d], want);
        }
        CHECK(pose.distance == k->distance, "keyframe %d distance %.17g", i + 1, pose.distance);
        CHECK(pose.yaw == k->yaw * DEG && pose.pitch == k->pitch * DEG,
              "keyframe %d yaw, pitch %.17g %.17g", i + 1, pose.yaw, pose.pitch);
        CHECK(pose.fov_y == k->fov * DEG, "keyframe %d fov %.17g", i + 1, pose.fov_y);
        CHECK(pose.key == i, "keyframe %d: pose says keyframe %d", i + 1, pose.key + 1);
        /* Approached from either side, the interpolation itself goes there:
         * within 1e-6 of it 1e-9 s away (speeds here are below 100 units/s). */
        double at[VALUES], near[VALUES];
        values(&pose, at);
        for (int side = -1; side <= 1; side += 2) {
            if ((side < 0 && i == 0) || (side > 0 && i + 1 == p->count)) continue;
            eval_values(app_campath_eval, p, &c, k->time + side * 1e-9, near);
            for (int v = 0; v < VALUES; v++) {
                CHECK(fabs(near[v] - at[v]) < 1e-6, "keyframe %d approached from %s: %s %.9g "
                      "vs %.9g", i + 1, side < 0 ? "before" : "after", names[v], near[v], at[v]);
            }
        }
    }
}

static void check_smooth(const io_campath *p) {
    const app_campath_centres c = some_centres();
    /* No jump anywhere (a yaw turned by 2 pi, a segment that starts
     * elsewhere): in 1 ms steps, no step is more than twice the larger of
     * its neighbours plus 1e-4 (smooth motion changes its step by |f''|
     * dt^2, below 1e-4 for |f''| below 100; a jump is one step apart). */
    const double t0 = p->keys[0].time, t1 = p->keys[p->count - 1].time, dt = 1e-3;
    const int steps = (int)((t1 - t0) / dt) + 2;
    double(*v)[VALUES] = malloc(sizeof *v * (size_t)(steps + 1));
    CHECK(v != NULL, "memory");
    if (!v) return;
    for (int s = 0; s <= steps; s++) eval_values(app_campath_eval, p, &c, t0 + (s - 1) * dt, v[s]);
    double worst = 0, fastest = 0;
    int worst_k = 0;
    double worst_t = t0;
    for (int s = 1; s + 1 < steps; s++) {
        for (int k = 0; k < VALUES; k++) {
            const double before = fabs(v[s][k] - v[s - 1][k]), step = fabs(v[s + 1][k] - v[s][k]),
                         after = fabs(v[s + 2][k] - v[s + 1][k]);
            const double excess = step - (2 * fmax(before, after) + 1e-4);
            fastest = fmax(fastest, step);
            if (excess > worst) {
                worst = excess;
                worst_k = k;
                worst_t = t0 + s * dt;
            }
        }
    }
    free(v);
    CHECK(worst <= 0, "a jump (%.3g over its neighbours' steps) in %s at t = %.4g", worst,
          names[worst_k], worst_t);
    /* The first derivative: h = 1e-5 s. Rounding adds ~1e-16 * 100 / h =
     * 1e-9; the curvature M h with M (|f''|) below ~100 here adds < 1e-3;
     * a kink adds its whole jump. 1e-2 of (1 + |f'|) between them. */
    char where[160] = "";
    const double jump = derivative_jump(app_campath_eval, p, &c, 1e-5, where, sizeof where);
    CHECK(jump < 1e-2, "the velocity jumps at an interior keyframe (%.3g): %s", jump, where);
    const double kink = derivative_jump(eval_linear, p, &c, 1e-5, where, sizeof where);
    CHECK(kink > 0.1, "the control (straight lines) should show a kink: %.3g", kink);
    printf("smooth: largest 1 ms step %.3g, no jump; velocity jump %.2g (straight lines: %.2g)\n",
           fastest, jump, kink);
}

/* A seeded uniform number in [-1, 1). */
static double rnd(uint64_t *s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / (double)(1ULL << 52) - 1.0;
}

static double quat_angle(const double a[4], const double b[4]) {
    double d = 0;
    for (int k = 0; k < 4; k++) d += a[k] * b[k];
    return 2 * acos(fmin(fabs(d), 1.0)); /* the rotation between them, the short way */
}

static void check_slerp(void) {
    uint64_t seed = 27;
    double worst_norm = 0, worst_way = 0;
    for (int trial = 0; trial < 2000; trial++) {
        double a[4], b[4], nb[4], na = 0, nbn = 0;
        for (int k = 0; k < 4; k++) {
            a[k] = rnd(&seed);
            b[k] = rnd(&seed);
            na += a[k] * a[k];
            nbn += b[k] * b[k];
        }
        for (int k = 0; k < 4; k++) {
            a[k] /= sqrt(na);
            b[k] /= sqrt(nbn);
            nb[k] = -b[k];
        }
        const double theta = quat_angle(a, b); /* in [0, pi] */
        for (int s = 0; s <= 12; s++) {
            const double u = -1 + 3.0 * s / 12; /* -1 ... 2: extrapolation too */
            double q[4], qn[4], n = 0;
            app_quat_slerp(a, b, u, q);
            app_quat_slerp(a, nb, u, qn);
            for (int k = 0; k < 4; k++) n += q[k] * q[k];
            /* Unit length: a handful of roundings of unit terms, 1e-12. */
            worst_norm = fmax(worst_norm, fabs(sqrt(n) - 1));
            /* b and -b are one rotation: the same result (up to sign). */
            worst_way = fmax(worst_way, quat_angle(q, qn));
            /* The short way: at u in [0, 1] the rotation from a is u theta
             * (quat_angle's acos near 1 is good to ~1e-8: 1e-6 below). */
            if (u >= 0 && u <= 1) {
                worst_way = fmax(worst_way, fabs(quat_angle(a, q) - u * theta));
            }
        }
    }
    CHECK(worst_norm < 1e-12, "slerp leaves the unit sphere by %.3g", worst_norm);
    CHECK(worst_way < 1e-6, "slerp does not take the short way: off by %.3g rad", worst_way);
    /* A long-way pair, by hand: a quarter turn one way is three quarters the other. */
    double a[4], b[4], mid[4], want[4];
    app_quat_from_angles(0, 0, a);
    app_quat_from_angles(-PI / 2, 0, b);
    for (int k = 0; k < 4; k++) b[k] = -b[k]; /* the same rotation, the far hemisphere */
    app_quat_slerp(a, b, 0.5, mid);
    app_quat_from_angles(-PI / 4, 0, want);
    CHECK(quat_angle(mid, want) < 1e-12, "half of a quarter turn: %.3g rad off", quat_angle(mid, want));
    /* The orientation is render_camera's: +x to the eye's direction. */
    double dir[3], q[4];
    app_quat_from_angles(0.6, 0.35, q);
    app_quat_eye_dir(q, dir);
    const double want_dir[3] = {cos(0.35) * cos(0.6), cos(0.35) * sin(0.6), sin(0.35)};
    for (int k = 0; k < 3; k++) {
        CHECK(fabs(dir[k] - want_dir[k]) < 1e-15, "eye direction[%d] %.17g, want %.17g", k, dir[k],
              want_dir[k]);
    }
    printf("slerp: unit length within %.2g, short way within %.2g rad\n", worst_norm, worst_way);
}

/* Two keyframes that differ in one thing: only that thing changes. */
static void check_only_what_differs(void) {
    const io_campath_key base = {.time = 1,
                                 .anchor = IO_CAMPATH_WORLD,
                                 .target = {0.3, -0.7, 0.1},
                                 .distance = 3.6,
                                 .yaw = 34.4,
                                 .pitch = 20.1,
                                 .fov = 45};
    const app_campath_centres c = some_centres();
    for (int what = 0; what < 5; what++) { /* target, distance, yaw, pitch, fov */
        io_campath p = {.count = 2, .keys = {base, base}};
        io_campath_key *k = &p.keys[1];
        k->time = 4;
        if (what == 0) k->target[1] = 5.5;
        if (what == 1) k->distance = 40;
        if (what == 2) k->yaw = 120;
        if (what == 3) k->pitch = -30;
        if (what == 4) k->fov = 70;
        double first[VALUES], v[VALUES];
        eval_values(app_campath_eval, &p, &c, 1, first);
        for (int s = 0; s <= 30; s++) {
            const double t = 1 + 3.0 * s / 30;
            eval_values(app_campath_eval, &p, &c, t, v);
            for (int q = 0; q < VALUES; q++) {
                const bool differs = (what == 0 && q == 1) || (what == 1 && q == 3) ||
                                     ((what == 2 || what == 3) && (q == 4 || q == 5)) ||
                                     (what == 4 && q == 6);
                if (differs) continue;
                CHECK(v[q] == first[q], "only %s differs, yet %s moves at t = %g: %.17g vs %.17g",
                      (const char *[]){"target", "distance", "yaw", "pitch", "fov"}[what],
                      names[q], t, v[q], first[q]);
            }
            /* A turn about z keeps the pitch (up to rounding: 1e-12). */
            if (what == 2) {
                CHECK(fabs(v[5] - first[5]) < 1e-12, "a turn in yaw moves the pitch: %.17g",
                      v[5] - first[5]);
            }
            /* Two keyframes: straight and even, with the reflected ends. */
            if (what == 0) {
                const double want = -0.7 + (5.5 + 0.7) * (t - 1) / 3;
                CHECK(fabs(v[1] - want) < 1e-12, "target y %.17g, want %.17g", v[1], want);
            }
        }
    }
}

/* A path that follows galaxy 1 moves as its centre moves. */
static void check_follow(const io_campath *example) {
    io_campath p = *example;
    for (int i = 0; i < p.count; i++) p.keys[i].anchor = IO_CAMPATH_GALAXY1;
    app_campath_centres c = some_centres(), moved = c;
    const double shift[3] = {30, -8, 2};
    for (int k = 0; k < 3; k++) moved.at[IO_CAMPATH_GALAXY1][k] += shift[k];
    double worst = 0;
    for (double t = p.keys[0].time; t <= p.keys[p.count - 1].time; t += 0.37) {
        app_campath_pose a, b;
        app_campath_eval(&p, &c, t, &a);
        app_campath_eval(&p, &moved, t, &b);
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(b.target[k] - a.target[k] - shift[k]));
        CHECK(a.distance == b.distance && a.yaw == b.yaw && a.pitch == b.pitch,
              "the centre moved the camera's orientation or distance at t = %g", t);
    }
    /* Affine combinations of points moved by one shift: rounding of ~100. */
    CHECK(worst < 1e-12, "the target did not move with the galaxy: off by %.3g", worst);
}

static bool keys_equal(const io_campath *a, const io_campath *b) {
    if (a->count != b->count) return false;
    for (int i = 0; i < a->count; i++) {
        const io_campath_key *x = &a->keys[i], *y = &b->keys[i];
        if (x->time != y->time || x->anchor != y->anchor || x->distance != y->distance ||
            x->yaw != y->yaw || x->pitch != y->pitch || x->fov != y->fov) {
            return false;
        }
        for (int k = 0; k < 3; k++) {
            if (x->target[k] != y->target[k]) return false;
        }
    }
    return true;
}

static void check_round_trip(const io_campath *example) {
    /* Numbers that need all 17 digits, and ones that need few. */
    io_campath p = *example;
    p.keys[1].target[0] = 0.1 + 0.2;
    p.keys[1].yaw = 1.0 / 3;
    p.keys[2].distance = 12345.678901234567 / 2;
    char path[] = "/tmp/test_campath_XXXXXX";
    const int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    CHECK(io_campath_save(path, &p), "save %s", path);
    static io_campath back, again;
    CHECK(io_campath_load(path, "test", &back), "load %s", path);
    CHECK(keys_equal(&p, &back), "save -> load changed the keyframes");
    static char text1[65536], text2[65536];
    io_campath_format(&p, text1, sizeof text1);
    io_campath_format(&back, text2, sizeof text2);
    CHECK(strcmp(text1, text2) == 0, "save -> load -> save changed the text:\n%s\n%s", text1, text2);
    CHECK(io_campath_parse(text2, "test", "text", &again) && keys_equal(&again, &p),
          "the text does not parse back to the keyframes");
    const size_t need = io_campath_format(&p, NULL, 0);
    CHECK(need == strlen(text1), "format's length %zu, text %zu", need, strlen(text1));
    unlink(path);
}

static void check_refusals(void) {
    static io_campath p;
    const char *const bad[] = {
        "",                                                   /* empty */
        "nbody-campath 1\n",                                  /* no keyframes */
        "nbody-campath 2\n0 world 0 0 0 1 0 0 45\n",          /* a later version */
        "0 world 0 0 0 1 0 0 45\n",                           /* no version line */
        "nbody-campath 1\n0 world 0 0 0 1 0 0\n",             /* a field short */
        "nbody-campath 1\n0 world 0 0 0 1 0 0 45 9\n",        /* a field more */
        "nbody-campath 1\n0 moon 0 0 0 1 0 0 45\n",           /* no such anchor */
        "nbody-campath 1\n0 world 0 0 0 0 0 0 45\n",          /* distance 0 */
        "nbody-campath 1\n0 world 0 0 0 1 0 90 45\n",         /* at the pole */
        "nbody-campath 1\n0 world 0 0 0 1 0 0 180\n",         /* fov */
        "nbody-campath 1\n0 world nan 0 0 1 0 0 45\n",        /* not a number */
        "nbody-campath 1\n0 world 0 0 0 1 0 0 45\n0 world 0 0 0 1 0 0 45\n", /* same time */
        "nbody-campath 1\n-1 world 0 0 0 1 0 0 45\n",        /* before 0 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(!io_campath_parse(bad[i], "test", "text", &p), "bad text %zu accepted", i);
        CHECK(p.count == 0, "a refused text left %d keyframes", p.count);
    }
    CHECK(io_campath_parse("# a comment\n\n  nbody-campath 1  # the version\n0 com 1 2 3 0.001 "
                           "-720 -88.8 1\n2.5 galaxy2 0 0 0 10000 0 88.8 170 # end\n",
                           "test", "text", &p) &&
              p.count == 2 && p.keys[0].anchor == IO_CAMPATH_COM && p.keys[1].fov == 170,
          "a good text with comments and the ranges' ends refused");
}

/* The keys, on an app with the CPU backend (no GL: keys change state). */
static void check_keys(void) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = 600, .ic = SIM_IC_MERGER},
                  .steps_per_frame = 1,
                  .headless = true};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    CHECK(a != NULL, "app_create");
    if (!a) return;
    app_key(a, GLFW_KEY_F3, 0);
    CHECK(!a->campath.playing && strstr(a->msg.text, "no camera path"), "F3 with no path: %s",
          a->msg.text);
    app_key(a, GLFW_KEY_F2, 0);
    const render_camera c0 = a->view.camera;
    app_key(a, GLFW_KEY_LEFT, 0);
    app_key(a, GLFW_KEY_PAGE_UP, 0);
    app_key(a, GLFW_KEY_F2, 0);
    app_key(a, GLFW_KEY_F2, 0);
    app_key(a, GLFW_KEY_F2, GLFW_MOD_SHIFT); /* takes the third back */
    app_key(a, GLFW_KEY_G, 0);               /* follow: the next keyframe follows a galaxy */
    app_follow(a);
    app_key(a, GLFW_KEY_F2, 0);
    const io_campath *p = &a->campath.path;
    CHECK(p->count == 3, "F2 F2 F2 Shift+F2 F2: %d keyframes, want 3", p->count);
    CHECK(p->count == 3 && p->keys[1].time == APP_CAMPATH_GAP_S &&
              p->keys[2].time == 2 * APP_CAMPATH_GAP_S,
          "keyframe times");
    CHECK(p->keys[0].anchor == IO_CAMPATH_WORLD && p->keys[1].anchor == IO_CAMPATH_WORLD,
          "keyframes without G follow nothing");
    CHECK(p->keys[2].anchor == IO_CAMPATH_GALAXY1 || p->keys[2].anchor == IO_CAMPATH_GALAXY2,
          "a keyframe with G on follows a galaxy: %s", io_campath_anchor_name(p->keys[2].anchor));
    CHECK(fabs(p->keys[0].yaw * DEG - c0.yaw) < 1e-6 && p->keys[0].distance == c0.distance,
          "keyframe 1 is the camera");
    CHECK(fabs((p->keys[1].yaw - p->keys[0].yaw) - APP_ORBIT_STEP_DEG) < 1e-4,
          "keyframe 2 is the camera turned by the arrow: %.6g degrees",
          p->keys[1].yaw - p->keys[0].yaw);
    /* Follows with an offset of nothing: the camera was on the centre. */
    for (int k = 0; k < 3; k++) CHECK(fabs(p->keys[2].target[k]) < 1e-4, "offset %d", k);
    app_key(a, GLFW_KEY_F3, 0);
    CHECK(a->campath.playing && !a->view.follow_com, "F3 plays (and G lets go)");
    app_key(a, GLFW_KEY_F2, 0);
    CHECK(p->count == 3 && strstr(a->msg.text, "F3 stops"), "F2 while playing refused: %s",
          a->msg.text);
    const int fps = io_campath_fps(0);
    const long frames = lround(2 * APP_CAMPATH_GAP_S * fps);
    char hud[8192];
    for (long f = 0; f <= frames; f++) {
        app_campath_frame(a);
        if (f == fps) { /* a second in */
            ui_facts facts;
            app_ui_facts(a, &facts);
            ui_hud_text(&a->ui, &facts, false, hud, sizeof hud);
            CHECK(strstr(hud, "path: keyframe 1/3, t = 1.0 s of 6.0 s"), "the HUD: %s", hud);
            CHECK(fabs(a->view.camera.yaw - c0.yaw) > 1e-4, "a second in, the camera turned");
        }
        if (f == frames - 1) { /* a frame before the end, t = 5.97 s: not yet 6.0 */
            CHECK(strstr(a->campath.hud, "t = 5.9 s of 6.0 s") &&
                      strstr(a->campath.hud, "F3 stops"),
                  "a frame before the end: %s", a->campath.hud);
        }
        CHECK(a->campath.playing == (f < frames), "frame %ld: playing %d", f, a->campath.playing);
    }
    CHECK(strstr(a->campath.hud, "keyframe 3/3") && strstr(a->campath.hud, "at its end"),
          "the end: %s", a->campath.hud);
    CHECK(!a->fe.quit, "a path played by key ends nothing");
    app_key(a, GLFW_KEY_F3, 0);
    app_key(a, GLFW_KEY_F3, 0);
    CHECK(!a->campath.playing && strstr(a->msg.text, "stopped"), "F3 F3: %s", a->msg.text);
    /* F4: into a scratch folder, then loaded back. */
    char dir[] = "/tmp/test_campath_dir_XXXXXX", cwd[4096];
    CHECK(mkdtemp(dir) && getcwd(cwd, sizeof cwd) && chdir(dir) == 0, "scratch folder");
    app_key(a, GLFW_KEY_F4, 0);
    CHECK(strstr(a->msg.text, "wrote ") && strstr(a->msg.text, ".campath (3 keyframes)"),
          "F4: %s", a->msg.text);
    const char *name = strstr(a->msg.text, "wrote ") ? strstr(a->msg.text, "wrote ") + 6 : "";
    char file[4096];
    snprintf(file, sizeof file, "%.*s", (int)(strstr(name, " (") ? strstr(name, " (") - name : 0),
             name);
    static io_campath back;
    CHECK(io_campath_load(file, "F4's", &back) && keys_equal(&back, p),
          "F4's file does not load back as the path");
    unlink(file);
    CHECK(chdir(cwd) == 0 && rmdir(dir) == 0, "scratch folder left clean");
    app_destroy(a);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: test_campath assets/paths/merger.campath\n");
        return 2;
    }
    static io_campath example;
    CHECK(io_campath_load(argv[1], "example", &example) && example.count >= 4,
          "the example path %s loads with 4 or more keyframes", argv[1]);
    if (example.count < 4) return test_exit("test_campath");
    check_through_keyframes(&example);
    check_smooth(&example);
    /* Knots not evenly spaced (gaps 5, 1.5, 5.5, 2, 5, ...): where uniform
     * Catmull-Rom would have the velocity jump. */
    static io_campath uneven;
    uneven = example;
    for (int i = 1; i < uneven.count; i++) {
        uneven.keys[i].time = uneven.keys[i - 1].time + (const double[]){2, 5, 1.5, 5.5}[i % 4];
    }
    check_smooth(&uneven);
    check_slerp();
    check_only_what_differs();
    check_follow(&example);
    check_round_trip(&example);
    check_refusals();
    check_keys();
    return test_exit("test_campath");
}
