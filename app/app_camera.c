/* app_camera.c - the camera seam of the app: orbit, pan and zoom (the
 * mouse in the window, and the arrow keys, Page Up / Page Down and Home, so
 * a clicker or a --script tour can fly the camera too), fitting the view to
 * the bodies drawn (F), and following the centre of mass (G). Only the camera
 * changes here; the simulation is read, never changed.
 */
#include <math.h>
#include <stdlib.h>

#include "app.h"

#define PI 3.14159265358979323846

/* Yaw and pitch by radians; the pitch stops just short of the poles. */
static void orbit_radians(app *a, double yaw, double pitch) {
    a->view.camera.yaw += (float)yaw;
    a->view.camera.pitch += (float)pitch;
    const float limit = 1.55f;
    if (a->view.camera.pitch > limit) a->view.camera.pitch = limit;
    if (a->view.camera.pitch < -limit) a->view.camera.pitch = -limit;
}

void app_orbit(app *a, double dx, double dy) {
    orbit_radians(a, -dx * 0.005, dy * 0.005); /* 0.005 radians per pixel dragged */
}

void app_orbit_degrees(app *a, double yaw_deg, double pitch_deg) {
    orbit_radians(a, yaw_deg * PI / 180, pitch_deg * PI / 180);
}

void app_camera_home(app *a) {
    /* The scene's camera and follow setting; the rest of the look stays. */
    a->view.camera = config_scene_look_of(a->scene).camera;
    a->view.follow_com = false;
}

void app_pan(app *a, double dx, double dy, int fb_height) {
    /* Move the target in the view plane so the point under the cursor follows it. */
    const float fov = a->view.camera.fov_y > 0 ? a->view.camera.fov_y : (float)NBODY_FOV_Y_DEFAULT;
    const float lens = a->ui.lens_scale > 0 ? a->ui.lens_scale : 1.0f; /* the HUD's fit */
    const float per_pixel = 2.0f * a->view.camera.distance * tanf(fov / 2) /
                            (lens * (float)(fb_height > 0 ? fb_height : 1));
    const float cy = cosf(a->view.camera.yaw), sy = sinf(a->view.camera.yaw);
    const float cp = cosf(a->view.camera.pitch), sp = sinf(a->view.camera.pitch);
    const float right[3] = {-sy, cy, 0};
    const float up[3] = {-sp * cy, -sp * sy, cp};
    for (int k = 0; k < 3; k++) {
        a->view.camera.target[k] += per_pixel * (float)(-dx * right[k] + dy * up[k]);
    }
    a->view.follow_com = false;
}

void app_zoom(app *a, double steps) {
    a->view.camera.distance *= powf(0.9f, (float)steps); /* proportional to the distance */
    if (a->view.camera.distance < 1e-3f) a->view.camera.distance = 1e-3f;
    if (a->view.camera.distance > 1e4f) a->view.camera.distance = 1e4f;
}

void app_fit_view(app *a) {
    const int n = sim_get_params(a->sim).body_count;
    sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
    double *r = malloc(sizeof(double) * (size_t)n);
    if (!b || !r) {
        free(b);
        free(r);
        base_msg_post(&a->msg, "out of memory fitting the view");
        return;
    }
    sim_get_state(a->sim, b); /* no forces: a fit costs a copy at any N */
    /* The bodies drawn: a hidden halo (O) does not set the view, or a disk
     * in its much larger halo shows as a dot. All of them when none is
     * drawn. */
    int drawn = 0;
    for (int i = 0; i < n; i++) {
        const bool hidden = a->view.hide_halo && SIM_TAG_COMPONENT(b[i].tag) == SIM_COMPONENT_HALO;
        if (!hidden) b[drawn++] = b[i];
    }
    const bool all = drawn == 0;
    if (all) {
        sim_get_state(a->sim, b);
        drawn = n;
    }
    /* Their centre of mass (unweighted where the masses add up to nothing). */
    double c[3] = {0, 0, 0}, mass = 0;
    for (int i = 0; i < drawn; i++) mass += b[i].mass;
    const bool weighted = mass > 0 && isfinite(mass);
    for (int i = 0; i < drawn; i++) {
        for (int k = 0; k < 3; k++) c[k] += (weighted ? b[i].mass : 1.0) * b[i].pos[k];
    }
    for (int k = 0; k < 3; k++) c[k] /= weighted ? mass : drawn;
    for (int i = 0; i < drawn; i++) {
        double d2 = 0;
        for (int k = 0; k < 3; k++) d2 += pow(b[i].pos[k] - c[k], 2);
        r[i] = sqrt(d2);
    }
    qsort(r, (size_t)drawn, sizeof r[0], base_cmp_double);
    const double r90 = r[(size_t)(0.9 * (drawn - 1))]; /* stragglers do not set the scale */
    const float fov = a->view.camera.fov_y > 0 ? a->view.camera.fov_y : (float)NBODY_FOV_Y_DEFAULT;
    for (int k = 0; k < 3; k++) a->view.camera.target[k] = (float)c[k];
    a->view.camera.distance = (float)fmax(1.2 * r90 / tan(fov / 2), 1e-3);
    free(b);
    free(r);
    base_msg_post(&a->msg, "view fitted: 90%% of the %s within %.3g of their centre",
                  all || !a->view.hide_halo ? "bodies" : "bodies drawn (the halo hidden)", r90);
}

void app_follow(app *a) {
    const sim_diag m = sim_moments(a->sim);
    /* In a merger, the larger galaxy; else everything. */
    const int g = m.galaxy_mass[1] > m.galaxy_mass[0] ? 1 : 0;
    const double *c = m.galaxy_mass[g] > 0 ? m.galaxy_com[g] : m.center_of_mass;
    for (int k = 0; k < 3; k++) a->view.camera.target[k] = (float)c[k];
}
