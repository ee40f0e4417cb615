/* app_campath.c - camera paths: F2 drops a keyframe at the camera (Shift+F2
 * takes the last one back), F3 plays the path or stops it, F4 saves it to
 * nbody-<time>.campath; --camera-path FILE plays a file's path from frame
 * 0, and with --record renders a fly-through in one command. The file
 * format is io's (io_campath.c).
 *
 * The interpolation (app_campath_eval and the quaternion helpers) is pure:
 * Catmull-Rom with the keyframes' times as its knots (Barry and Goldman's
 * pyramid of linear interpolations; on evenly spaced keyframes the uniform
 * Catmull-Rom), on the target, on the log of the distance (a zoom is
 * even in scale) and on the field of view. The orientation is a unit
 * quaternion on a cubic Bezier curve on the sphere (de Casteljau's
 * construction with slerp, the short way, as squad is) whose tangents at
 * the keyframes are the same Catmull-Rom tangents, taken on the sphere.
 * All are C1 in time: the velocity of each has no jump at an interior
 * keyframe (the knots are the times themselves, not a reparametrisation),
 * and the path passes through every keyframe exactly. Past the ends, each
 * quantity continues its first (last) segment's step (a reflected phantom
 * keyframe). The camera has no roll: the interpolated orientation's view
 * direction gives its yaw and pitch.
 *
 * A keyframe dropped while G is on follows what G follows (the larger
 * galaxy's centre of mass, or the centre of mass of all bodies): its target
 * is stored relative to that centre, and the centres are taken afresh each
 * frame the path plays, so the path flies with the merger.
 *
 * Time: headless, and while a video or PNG sequence records, the path's
 * time moves on 1 / --record-fps a frame (deterministic, whatever the frame
 * costs); in the window otherwise, by the clock. At its end the camera
 * stays at the last keyframe; a --camera-path run without --frames that is
 * headless or records from the command line ends there.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#define PI 3.14159265358979323846
#define DEG (PI / 180)
#define PITCH_LIMIT 1.55 /* the orbit's (app_camera.c) */

/* ---- the maths ------------------------------------------------------------ */

void app_quat_from_angles(double yaw, double pitch, double q[4]) {
    /* q = rz(yaw) ry(-pitch): +x to (cp cy, cp sy, sp), +z to (-sp cy, -sp sy, cp). */
    const double cz = cos(yaw / 2), sz = sin(yaw / 2);
    const double cy = cos(-pitch / 2), sy = sin(-pitch / 2);
    q[0] = cz * cy;
    q[1] = -sz * sy;
    q[2] = cz * sy;
    q[3] = sz * cy;
}

void app_quat_eye_dir(const double q[4], double dir[3]) {
    /* v' = v + 2w (u x v) + 2 u x (u x v), u = (x, y, z), v = +x. */
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    dir[0] = 1 - 2 * (y * y + z * z);
    dir[1] = 2 * (x * y + w * z);
    dir[2] = 2 * (x * z - w * y);
}

static bool quat_equal(const double a[4], const double b[4]) {
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

void app_quat_slerp(const double a[4], const double b[4], double u, double out[4]) {
    if (quat_equal(a, b)) { /* exactly a: a path that does not turn does not move */
        memcpy(out, a, 4 * sizeof a[0]);
        return;
    }
    double dot = 0;
    for (int k = 0; k < 4; k++) dot += a[k] * b[k];
    const double s = dot < 0 ? -1 : 1; /* b and -b are one rotation: the nearer one */
    double diff = 0, sum = 0;
    for (int k = 0; k < 4; k++) {
        diff += (a[k] - s * b[k]) * (a[k] - s * b[k]);
        sum += (a[k] + s * b[k]) * (a[k] + s * b[k]);
    }
    /* The angle between them, accurate when small (acos of the dot is not). */
    const double theta = 2 * atan2(sqrt(diff), sqrt(sum));
    if (theta < 1e-9) { /* sin(theta) ~ theta: linear, then back to unit length */
        double norm = 0;
        for (int k = 0; k < 4; k++) {
            out[k] = (1 - u) * a[k] + u * s * b[k];
            norm += out[k] * out[k];
        }
        norm = sqrt(norm);
        for (int k = 0; k < 4; k++) out[k] /= norm;
        return;
    }
    const double wa = sin((1 - u) * theta) / sin(theta), wb = s * sin(u * theta) / sin(theta);
    for (int k = 0; k < 4; k++) out[k] = wa * a[k] + wb * b[k];
}

/* (1 - u) a + u b: exactly a at u = 0, b at u = 1, a where a == b. */
static double lerp(double a, double b, double u) {
    return a == b ? a : (1 - u) * a + u * b;
}

/* Catmull-Rom between p[1] (at time t[1]) and p[2] (at t[2]), p[0] and
 * p[3] beside them, at time x: the pyramid of Barry and Goldman. */
static double catmull_rom(const double p[4], const double t[4], double x) {
    const double a1 = lerp(p[0], p[1], (x - t[0]) / (t[1] - t[0]));
    const double a2 = lerp(p[1], p[2], (x - t[1]) / (t[2] - t[1]));
    const double a3 = lerp(p[2], p[3], (x - t[2]) / (t[3] - t[2]));
    const double b1 = lerp(a1, a2, (x - t[0]) / (t[2] - t[0]));
    const double b2 = lerp(a2, a3, (x - t[1]) / (t[3] - t[1]));
    return lerp(b1, b2, (x - t[1]) / (t[2] - t[1]));
}

/* a b, quaternions (w, x, y, z). */
static void quat_mul(const double a[4], const double b[4], double out[4]) {
    out[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    out[1] = a[0] * b[1] + b[0] * a[1] + a[2] * b[3] - a[3] * b[2];
    out[2] = a[0] * b[2] + b[0] * a[2] + a[3] * b[1] - a[1] * b[3];
    out[3] = a[0] * b[3] + b[0] * a[3] + a[1] * b[2] - a[2] * b[1];
}

/* The turn from a to b, the short way, as a rotation vector (axis times
 * angle) in a's own frame: b = a exp(r). */
static void quat_turn_to(const double a[4], const double b[4], double r[3]) {
    const double ai[4] = {a[0], -a[1], -a[2], -a[3]};
    double d[4];
    quat_mul(ai, b, d);
    if (d[0] < 0) {
        for (int k = 0; k < 4; k++) d[k] = -d[k];
    }
    const double s = sqrt(d[1] * d[1] + d[2] * d[2] + d[3] * d[3]);
    const double f = s > 0 ? 2 * atan2(s, d[0]) / s : 0;
    for (int k = 0; k < 3; k++) r[k] = f * d[k + 1];
}

/* q exp(r): q turned by the rotation vector r in its own frame. */
static void quat_turn(const double q[4], const double r[3], double out[4]) {
    const double angle = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    if (angle == 0) { /* exactly q */
        memcpy(out, q, 4 * sizeof q[0]);
        return;
    }
    const double f = sin(angle / 2) / angle;
    const double e[4] = {cos(angle / 2), f * r[0], f * r[1], f * r[2]};
    quat_mul(q, e, out);
}

/* The orientation between v1 (at t1) and v2 (at t2), v0 and v3 beside
 * them, at time x: a cubic Bezier on the sphere (de Casteljau's slerps)
 * whose ends turn at the Catmull-Rom rates, each keyframe's from its two
 * neighbours weighted by the times as catmull_rom's tangent is. Its
 * control points stay near the keyframes, so uneven spacing does not fling
 * it round the sphere. */
static void orientation(const double q[4][4], const double t[4], double x, double out[4]) {
    const double d0 = t[1] - t[0], d1 = t[2] - t[1], d2 = t[3] - t[2];
    double back1[3], ahead1[3], back2[3], ahead2[3];
    quat_turn_to(q[1], q[0], back1);
    quat_turn_to(q[1], q[2], ahead1);
    quat_turn_to(q[2], q[1], back2);
    quat_turn_to(q[2], q[3], ahead2);
    double r1[3], r2[3]; /* the rates at q1 and q2 (radians/s, own frames) times d1 / 3 */
    for (int k = 0; k < 3; k++) {
        const double w1 = (d1 * (-back1[k] / d0) + d0 * (ahead1[k] / d1)) / (d0 + d1);
        const double w2 = (d2 * (-back2[k] / d1) + d1 * (ahead2[k] / d2)) / (d1 + d2);
        r1[k] = w1 * d1 / 3;
        r2[k] = -w2 * d1 / 3;
    }
    /* A leg of more than a quarter turn (a fast turn beside a much longer
     * segment) is cut to one: a slerp cannot go the long way round, and the
     * curve would turn back. Only there does the rate jump at the keyframe. */
    const double n1 = sqrt(r1[0] * r1[0] + r1[1] * r1[1] + r1[2] * r1[2]);
    const double n2 = sqrt(r2[0] * r2[0] + r2[1] * r2[1] + r2[2] * r2[2]);
    for (int k = 0; k < 3; k++) {
        if (n1 > PI / 2) r1[k] *= PI / 2 / n1;
        if (n2 > PI / 2) r2[k] *= PI / 2 / n2;
    }
    double c1[4], c2[4], a[4], b[4], c[4], d[4], e[4];
    quat_turn(q[1], r1, c1);
    quat_turn(q[2], r2, c2);
    const double u = (x - t[1]) / d1;
    app_quat_slerp(q[1], c1, u, a);
    app_quat_slerp(c1, c2, u, b);
    app_quat_slerp(c2, q[2], u, c);
    app_quat_slerp(a, b, u, d);
    app_quat_slerp(b, c, u, e);
    app_quat_slerp(d, e, u, out);
}

/* A keyframe's values as the interpolation takes them. */
typedef struct node {
    double t, pos[3], log_distance, fov, q[4];
} node;

static node node_of(const io_campath_key *k, const app_campath_centres *centre) {
    node n = {.t = k->time, .log_distance = log(k->distance), .fov = k->fov * DEG};
    for (int c = 0; c < 3; c++) {
        n.pos[c] = k->anchor == IO_CAMPATH_WORLD ? k->target[c] : centre->at[k->anchor][c] + k->target[c];
    }
    app_quat_from_angles(k->yaw * DEG, k->pitch * DEG, n.q);
    return n;
}

/* The phantom beyond an end: the end mirrored away from its neighbour. */
static node phantom(const node *end, const node *next) {
    node n = {.t = 2 * end->t - next->t,
              .log_distance = 2 * end->log_distance - next->log_distance,
              .fov = 2 * end->fov - next->fov};
    for (int c = 0; c < 3; c++) n.pos[c] = 2 * end->pos[c] - next->pos[c];
    app_quat_slerp(end->q, next->q, -1, n.q);
    return n;
}

static void key_pose(const io_campath_key *k, const app_campath_centres *centre,
                     int index, app_campath_pose *out) {
    const node n = node_of(k, centre);
    *out = (app_campath_pose){.target = {n.pos[0], n.pos[1], n.pos[2]},
                              .distance = k->distance,
                              .yaw = k->yaw * DEG,
                              .pitch = k->pitch * DEG,
                              .fov_y = n.fov,
                              .key = index};
}

void app_campath_eval(const io_campath *p, const app_campath_centres *centre,
                      double t, app_campath_pose *out) {
    const int n = p->count;
    const io_campath_key *k = p->keys;
    int i = 0; /* the segment: k[i].time <= t < k[i + 1].time */
    while (i + 2 < n && k[i + 1].time <= t) i++;
    if (n == 1 || t <= k[0].time || t >= k[n - 1].time || t == k[i].time) {
        const int at = n == 1 || t <= k[0].time ? 0 : t >= k[n - 1].time ? n - 1 : i;
        key_pose(&k[at], centre, at, out);
        return;
    }
    node v[4];
    v[1] = node_of(&k[i], centre);
    v[2] = node_of(&k[i + 1], centre);
    v[0] = i > 0 ? node_of(&k[i - 1], centre) : phantom(&v[1], &v[2]);
    v[3] = i + 2 < n ? node_of(&k[i + 2], centre) : phantom(&v[2], &v[1]);
    const double times[4] = {v[0].t, v[1].t, v[2].t, v[3].t};
    *out = (app_campath_pose){.key = i};
    for (int c = 0; c < 3; c++) {
        const double x[4] = {v[0].pos[c], v[1].pos[c], v[2].pos[c], v[3].pos[c]};
        out->target[c] = catmull_rom(x, times, t);
    }
    const double ld[4] = {v[0].log_distance, v[1].log_distance, v[2].log_distance,
                          v[3].log_distance};
    const double log_d = catmull_rom(ld, times, t);
    /* exp(log(d)) need not give d back: a distance that does not change stays exact. */
    out->distance = log_d == v[1].log_distance ? k[i].distance : exp(log_d);
    const double fov[4] = {v[0].fov, v[1].fov, v[2].fov, v[3].fov};
    out->fov_y = fmin(fmax(catmull_rom(fov, times, t), IO_CAMPATH_FOV_MIN_DEG * DEG),
                      IO_CAMPATH_FOV_MAX_DEG * DEG);
    const double q[4][4] = {{v[0].q[0], v[0].q[1], v[0].q[2], v[0].q[3]},
                            {v[1].q[0], v[1].q[1], v[1].q[2], v[1].q[3]},
                            {v[2].q[0], v[2].q[1], v[2].q[2], v[2].q[3]},
                            {v[3].q[0], v[3].q[1], v[3].q[2], v[3].q[3]}};
    double r[4];
    orientation(q, times, t, r);
    if (quat_equal(r, v[1].q)) { /* a path that does not turn keeps its angles exactly */
        out->yaw = k[i].yaw * DEG;
        out->pitch = k[i].pitch * DEG;
        return;
    }
    double dir[3];
    app_quat_eye_dir(r, dir);
    const double yaw = atan2(dir[1], dir[0]), yaw_i = k[i].yaw * DEG;
    out->yaw = yaw + 2 * PI * round((yaw_i - yaw) / (2 * PI)); /* the turn nearest keyframe i's */
    out->pitch = fmin(fmax(asin(fmin(fmax(dir[2], -1.0), 1.0)), -PITCH_LIMIT), PITCH_LIMIT);
}

/* ---- playback and keys ------------------------------------------------------- */

/* The anchors' centres now (sim_moments only when a keyframe follows one). */
static void anchor_centres(app *a, app_campath_centres *out) {
    *out = (app_campath_centres){0};
    double(*c)[3] = out->at;
    bool any = false;
    for (int i = 0; i < a->campath.path.count; i++) {
        any = any || a->campath.path.keys[i].anchor != IO_CAMPATH_WORLD;
    }
    if (!any) return;
    const sim_diag m = sim_moments(a->sim);
    for (int k = 0; k < 3; k++) {
        c[IO_CAMPATH_COM][k] = m.center_of_mass[k];
        for (int g = 0; g < 2; g++) { /* a scene without that galaxy: the centre of mass */
            c[IO_CAMPATH_GALAXY1 + g][k] =
                m.galaxy_mass[g] > 0 ? m.galaxy_com[g][k] : m.center_of_mass[k];
        }
    }
}

/* The frame (from the path's first) at which it ends when played frame by frame. */
static long last_frame(const io_campath *p, int fps) {
    const double length = p->keys[p->count - 1].time - p->keys[0].time;
    const double f = ceil(length * fps - 1e-6); /* a length of whole frames: not one more */
    return f > 0 ? (long)fmin(f, (double)INT_MAX - 1) : 0;
}

static void start(app *a) {
    app_campath *c = &a->campath;
    c->playing = true;
    c->started = false;
    c->wall = 0;
    c->frames = 0;
    c->t = 0;
    c->key = 0;
    a->view.follow_com = false; /* the path moves the camera now */
}

bool app_campath_open(app *a) {
    if (!a->cfg.camera_path) return true;
    if (!io_campath_load(a->cfg.camera_path, "--camera-path", &a->campath.path)) return false;
    a->campath.from_cli = true;
    start(a);
    return true;
}

void app_campath_frame(app *a) {
    app_campath *c = &a->campath;
    if (!c->playing || c->path.count == 0) return;
    const bool by_frame = a->cfg.headless || io_record_running(&a->rec);
    const double now = base_now();
    if (!c->started) {
        c->started = true; /* the first frame shows the first keyframe */
    } else if (by_frame) {
        c->frames++;
    } else {
        c->wall += now - c->last_now;
    }
    c->last_now = now;
    const io_campath *p = &c->path;
    const double t0 = p->keys[0].time, length = p->keys[p->count - 1].time - t0;
    const int fps = io_campath_fps(a->cfg.record_fps);
    double t = c->wall + (double)c->frames / fps;
    const bool end = t >= length || (c->wall == 0 && c->frames >= last_frame(p, fps));
    if (end) t = length;
    app_campath_centres centre;
    anchor_centres(a, &centre);
    app_campath_pose pose;
    app_campath_eval(p, &centre, t0 + t, &pose);
    render_camera *cam = &a->view.camera;
    for (int k = 0; k < 3; k++) cam->target[k] = (float)pose.target[k];
    cam->distance = (float)pose.distance;
    cam->yaw = (float)pose.yaw;
    cam->pitch = (float)pose.pitch;
    cam->fov_y = (float)pose.fov_y;
    c->t = t;
    c->key = pose.key;
    /* t floored to the tenth shown, so that it reads less than the length
     * until the end; a length between tenths is shown as it is. */
    char of[32], at[32];
    snprintf(of, sizeof of, fabs(length * 10 - round(length * 10)) < 1e-6 ? "%.1f" : "%.6g",
             length);
    snprintf(at, sizeof at, "%.1f", floor(t * 10) / 10);
    snprintf(c->hud, sizeof c->hud, "path: keyframe %d/%d, t = %.16s s of %.16s s%s", pose.key + 1,
             p->count, end ? of : at, of,
             end ? ", at its end (F3 plays it again)" : "   (F3 stops)");
    if (!end) return;
    c->playing = false;
    const bool records = a->cfg.record || a->cfg.frames_dir;
    if (c->from_cli && a->cfg.frames == 0 && (a->cfg.headless || records)) a->fe.quit = true;
}

/* What G follows now (app_follow): the larger galaxy, else everything. */
static io_campath_anchor followed(app *a) {
    const sim_diag m = sim_moments(a->sim);
    const int g = m.galaxy_mass[1] > m.galaxy_mass[0] ? 1 : 0;
    return m.galaxy_mass[g] > 0 ? (io_campath_anchor)(IO_CAMPATH_GALAXY1 + g) : IO_CAMPATH_COM;
}

void app_campath_drop(app *a, int dir) {
    app_campath *c = &a->campath;
    io_campath *p = &c->path;
    if (c->playing) {
        base_msg_post(&a->msg, "%s: the path is playing (F3 stops it)",
                      dir > 0 ? "F2" : "Shift+F2");
        return;
    }
    c->hud[0] = 0;
    if (dir < 0) {
        if (p->count == 0) {
            base_msg_post(&a->msg, "no keyframe to take back (F2 drops one at the camera)");
            return;
        }
        p->count--;
        base_msg_post(&a->msg, "keyframe %d taken back: %d left", p->count + 1, p->count);
        return;
    }
    if (p->count == IO_CAMPATH_KEYS_MAX) {
        base_msg_post(&a->msg, "the path holds %d keyframes at most (Shift+F2 takes one back)",
                      IO_CAMPATH_KEYS_MAX);
        return;
    }
    const render_camera *cam = &a->view.camera;
    io_campath_key k = {
        .time = p->count ? p->keys[p->count - 1].time + APP_CAMPATH_GAP_S : 0,
        .anchor = a->view.follow_com ? followed(a) : IO_CAMPATH_WORLD,
        .distance = cam->distance,
        .yaw = cam->yaw / DEG,
        .pitch = fmin(fmax(cam->pitch / DEG, -IO_CAMPATH_PITCH_MAX_DEG), IO_CAMPATH_PITCH_MAX_DEG),
        .fov = (cam->fov_y > 0 ? cam->fov_y : NBODY_FOV_Y_DEFAULT) / DEG,
    };
    app_campath_centres centre = {0};
    if (k.anchor != IO_CAMPATH_WORLD) {
        p->keys[p->count] = k; /* so that anchor_centres takes the centres */
        p->count++;
        anchor_centres(a, &centre);
        p->count--;
    }
    for (int i = 0; i < 3; i++) k.target[i] = cam->target[i] - centre.at[k.anchor][i];
    p->keys[p->count++] = k;
    static const char *const follows[IO_CAMPATH_ANCHOR_COUNT] = {
        "", ", following the centre of mass", ", following galaxy 1's centre",
        ", following galaxy 2's centre"};
    base_msg_post(&a->msg, "keyframe %d at %.3g s%s (F2 adds, F3 plays, F4 saves)", p->count,
                  k.time, follows[k.anchor]);
}

void app_campath_play(app *a) {
    app_campath *c = &a->campath;
    if (c->playing) {
        c->playing = false;
        c->hud[0] = 0;
        base_msg_post(&a->msg, "path stopped at %.3g s", c->t);
        return;
    }
    if (c->path.count == 0) {
        base_msg_post(&a->msg, "no camera path: F2 drops keyframes at the camera, or "
                               "--camera-path FILE");
        return;
    }
    start(a);
    base_msg_post(&a->msg, "path: playing %d keyframe%s (F3 stops)", c->path.count,
                  base_plural(c->path.count));
}

void app_campath_save(app *a) {
    const io_campath *p = &a->campath.path;
    if (p->count == 0) {
        base_msg_post(&a->msg, "no camera path to save: F2 drops keyframes at the camera");
        return;
    }
    char name[64], path[PATH_MAX + 64];
    io_stamped_name(name, sizeof name, ".campath", -1);
    io_absolute(name, path, sizeof path);
    if (io_campath_save(path, p)) {
        base_msg_post(&a->msg, "wrote %s (%d keyframe%s)", path, p->count, base_plural(p->count));
        return;
    }
    a->req.write_failed = true; /* the terminal has the error line */
    base_msg_post(&a->msg, "F4: camera path NOT written: %s", path);
}

int app_campath_run_frames(const app *a) {
    if (a->cfg.frames > 0) return a->cfg.frames;
    if (!a->campath.from_cli) return CONFIG_HEADLESS_FRAMES;
    return (int)last_frame(&a->campath.path, io_campath_fps(a->cfg.record_fps)) + 1;
}

const char *app_campath_line(const app *a) {
    return a->campath.hud;
}

void app_campath_json(const app *a, char *out, size_t len) {
    const render_camera *cam = &a->view.camera;
    const app_campath *c = &a->campath;
    snprintf(out, len,
             ", \"camera\": {\"target\": [%.9g, %.9g, %.9g], \"distance\": %.9g, \"yaw\": %.9g, "
             "\"pitch\": %.9g, \"fov_y\": %.9g}, \"camera_path\": {\"keyframes\": %d, "
             "\"playing\": %s, \"t\": %.9g, \"keyframe\": %d}",
             cam->target[0], cam->target[1], cam->target[2], cam->distance, cam->yaw, cam->pitch,
             cam->fov_y > 0 ? cam->fov_y : NBODY_FOV_Y_DEFAULT, c->path.count,
             c->playing ? "true" : "false", c->t, c->path.count ? c->key + 1 : 0);
}
