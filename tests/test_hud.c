/* test_hud.c - what the HUD says, and the keys around it (issue 25's HUD
 * items), on the CPU backend through the app itself.
 *
 * Without GL (app_key, app_ui_facts, ui_hud_text):
 *   - E on the HUD fits any magnitude (1e80 and 1e-9, not 80 digits or
 *     0.000000); no age is negative ("sampled -0.2 s ago": a sample taken
 *     later in the frame than the frame's start);
 *   - L stops at the tree's depth and says so; Shift+J and J reach both
 *     ends of θ's range;
 *   - the lens holds still while the panels' width changes a little,
 *     follows a step wider or a few lines narrower, changes side only for
 *     a square 10 % larger, and starts afresh in a new window size;
 *   - before the first frame is timed and exposed: "not measured yet",
 *     not 0 frames/s and exposure 0;
 *   - the colour legend names the merger's galaxies, and in the density
 *     view says the sprites' colours are not shown, and its colour bar
 *     is not drawn under the help;
 *   - F (fit) frames the bodies drawn: a disk whose halo is hidden is
 *     framed by the disk, not by the halo;
 *   - a foreign file (tipsy without our sidecar, time 1.25): the HUD's
 *     title is its name, t goes on from 1.25; new bodies (R) end that;
 *   - a series plays: the HUD shows the series' rows (file, k of n, its
 *     time, N, frames per snapshot) and none of the simulation's; t is
 *     named the file's own on a file (the mode named too) and with no
 *     interpolation, and interpolated between files; every
 *     key that changes the simulation (+ - R Shift+R T S D J K P Q, 1-7,
 *     F9) is refused with the reason and "Enter"; the playback keys say
 *     what they did; Enter leaves the playback and the simulation runs on
 *     from the snapshot's time;
 *   - the first-run hint: on in a window app, off headless, ended by the
 *     first key, gone after UI_HINT_SECONDS + UI_HINT_FADE;
 *   - the REC indicator's text: frames written / frames/s.
 * In an offscreen EGL context (skipped parts say so when there is none):
 *   - a recording (a PNG sequence) shows REC with the frames written;
 *   - --hud-scale makes the text larger at 1280x720: 1, 1.5 and 3 give
 *     growing font sizes, and the panel stays in the window.
 */
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "test_util.h"

#define SHIFT_MOD GLFW_MOD_SHIFT

static char text[32768];

static app *make(sim_backend backend, int n, const char *preset, const char *load, bool headless) {
    config cfg = {.sim = {.backend = backend, .body_count = n},
                  .steps_per_frame = 1,
                  .headless = headless,
                  .preset = preset,
                  .load = load,
                  .width = 1280,
                  .height = 720};
    cfg.given[CONFIG_KNOB_N] = n > 0;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    return a;
}

static const char *hud(app *a) {
    ui_facts f;
    app_ui_facts(a, &f);
    f.key_help = app_key_help;
    ui_hud_text(&a->ui, &f, false, text, sizeof text);
    return text;
}

static void press(app *a, int key, int mods) {
    a->msg.text[0] = 0;
    app_key(a, key, mods);
}

static void check_energy_and_ages(void) {
    app *a = make(SIM_BACKEND_CPU, 1000, NULL, NULL, true);
    app_live *l = &a->live;
    l->diag_valid = l->energy0_valid = true;
    l->diag_time = base_now();
    for (int i = 0; i < 2; i++) {
        const double e = i == 0 ? 1e80 : -1e-9;
        l->energy0 = l->diag.total = e;
        hud(a);
        const char *line = strstr(text, "E ");
        char want[32];
        snprintf(want, sizeof want, "E %.6g ", e);
        CHECK(strstr(text, want) && !strstr(text, "0.000000") && !strstr(text, "00000000000"),
              "E = %g on the HUD as '%s':\n%s", e, want, line ? line : text);
    }
    /* The frame starts, then the energy is sampled (an O(N^2) pass that
     * takes a while at 1000 bodies): its age is never negative. */
    l->diag_valid = l->energy0_valid = false;
    app_live_frame_start(a);
    app_live_sample(a);
    hud(a);
    CHECK(strstr(text, "sampled ") && !strstr(text, "sampled -"), "no negative age:\n%s", text);
    app_destroy(a);
}

static void check_tree_levels_and_theta(void) {
    app *a = make(SIM_BACKEND_CPU, 2000, NULL, NULL, true);
    while (sim_get_params(a->sim).variant != SIM_VARIANT_TREE) press(a, GLFW_KEY_K, 0);
    sim_step(a->sim, 1);
    const sim_tree_stats t = sim_get_tree_stats(a->sim);
    CHECK(t.valid && t.depth > 0 && t.depth < UI_TREE_LEVELS, "a tree of depth %d", t.depth);
    press(a, GLFW_KEY_W, 0);
    char last[sizeof a->msg.text] = "";
    for (int i = 0; i < UI_TREE_LEVELS + 5; i++) {
        press(a, GLFW_KEY_L, 0);
        if (a->msg.text[0]) snprintf(last, sizeof last, "%s", a->msg.text);
    }
    CHECK(a->ui.tree_depth <= t.depth, "L stops at the tree's depth %d: %d", t.depth,
          a->ui.tree_depth);
    char levels[64];
    snprintf(levels, sizeof levels, "the tree has %d levels", t.depth + 1);
    CHECK(strstr(last, levels), "L at the bottom says so: '%s'", last);
    press(a, GLFW_KEY_L, SHIFT_MOD);
    CHECK(a->ui.tree_depth == t.depth - 1, "Shift+L goes back up one: %d", a->ui.tree_depth);

    /* θ: from 0.1 Shift+J reaches the range's start, from 0.95 J its end. */
    const sim_knob_info *r = sim_knob_get(SIM_KNOB_THETA);
    sim_set_theta(a->sim, 0.1f);
    press(a, GLFW_KEY_J, SHIFT_MOD);
    CHECK(fabs(sim_get_params(a->sim).theta - r->min) < 1e-6, "Shift+J from 0.1: %g (%s)",
          sim_get_params(a->sim).theta, a->msg.text);
    press(a, GLFW_KEY_J, SHIFT_MOD);
    CHECK(fabs(sim_get_params(a->sim).theta - r->min) < 1e-6 && strstr(a->msg.text, "stays"),
          "Shift+J at the start stays: %s", a->msg.text);
    sim_set_theta(a->sim, 0.95f);
    press(a, GLFW_KEY_J, 0);
    CHECK(fabs(sim_get_params(a->sim).theta - r->max) < 1e-6, "J from 0.95: %g",
          sim_get_params(a->sim).theta);
    app_destroy(a);
}

/* The disk preset hides its halo: F frames the disk and bulge. */
/* Before the first frame is timed and its picture exposed, the HUD says
 * so rather than "0 frames/s" and "exposure 0". */
static void check_first_frame(void) {
    app *a = make(SIM_BACKEND_CPU, 1000, NULL, NULL, true);
    a->live.fps = 0;
    ui_facts f;
    app_ui_facts(a, &f);
    f.exposure = 0; /* the renderer's, before its first automatic exposure */
    f.view.auto_exposure = true;
    ui_hud_text(&a->ui, &f, false, text, sizeof text);
    CHECK(strstr(text, "frames/s not measured yet") && !strstr(text, "0 frames/s") &&
              strstr(text, "exposure not measured yet") && !strstr(text, "exposure 0"),
          "the first frame's HUD:\n%s", text);
    a->live.fps = 59.6;
    app_ui_facts(a, &f);
    f.exposure = 2.5;
    ui_hud_text(&a->ui, &f, false, text, sizeof text);
    CHECK(strstr(text, "60 frames/s") && strstr(text, "exposure 2.5"), "later:\n%s", text);
    app_destroy(a);
}

/* The legend row names the sprites' colours; in the density view, whose
 * colour bar says what the map's colours are, it says they are not shown. */
static void check_legend_in_density_view(void) {
    app *a = make(SIM_BACKEND_CPU, 2000, "antennae-like", NULL, true);
    CHECK(strstr(hud(a), "\ncolour: galaxy | first | second\n") != NULL,
          "the merger's legend: galaxies first and second:\n%s", text);
    ui_facts f;
    app_ui_facts(a, &f);
    f.density.on = true; /* as app_density_draw says when it drew the map */
    ui_hud_text(&a->ui, &f, false, text, sizeof text);
    CHECK(strstr(text, "\ncolour: galaxy | (the sprites': not in the density view)\n") != NULL &&
              !strstr(text, "| first"),
          "the density view's legend:\n%s", text);
    /* Its colour bar, but not under the help. */
    CHECK(ui_colorbar_shown(&a->ui, &f), "the density view's colour bar drawn");
    press(a, GLFW_KEY_H, 0);
    CHECK(a->ui.shown[UI_OVERLAY_HELP] && !ui_colorbar_shown(&a->ui, &f),
          "no colour bar under the help");
    app_destroy(a);
}

/* The lens stays put while the panels' text changes a little, and follows
 * real changes (ui_lens_fit): a window 1280 x 720, lines 20 px. */
static void check_lens_hold(void) {
    const float lh = 20, step = UI_LENS_WIDTH_STEP * lh;
    /* Panels 690 px wide: a strip of 590 right of them (the lens there,
     * scaled below 1); the width's step ends at `edge`. */
    const float wide = 690, edge = ceilf(wide / step) * step;
    ui_lens_hold hold = {0};
    float s0 = 0, c0[2], s = 0, c[2];
    ui_lens_fit(&hold, wide, 300, lh, 1280, 720, &s0, c0);
    CHECK(c0[1] == 360 && c0[0] > 640 && s0 < 1, "panels 690 px wide: the lens right of them");
    /* A line narrower (a step less, were it not held), or wider within the
     * step: as it was. */
    ui_lens_fit(&hold, wide - lh, 300, lh, 1280, 720, &s, c);
    CHECK(s == s0 && c[0] == c0[0], "a line narrower: lens %g at %g, was %g at %g", s, c[0], s0,
          c0[0]);
    ui_lens_fit(&hold, edge - 1, 300, lh, 1280, 720, &s, c);
    CHECK(s == s0 && c[0] == c0[0], "a little wider, same step: lens %g at %g, was %g at %g", s,
          c[0], s0, c0[0]);
    /* Past the step: at once; then narrower than the hold: follows. */
    ui_lens_fit(&hold, edge + 1, 300, lh, 1280, 720, &s, c);
    CHECK(s < s0 && c[0] > c0[0], "a step wider: lens %g at %g, was %g at %g", s, c[0], s0, c0[0]);
    ui_lens_fit(&hold, wide - (UI_LENS_HOLD_LINES + 2) * lh, 300, lh, 1280, 720, &s, c);
    CHECK(s > s0, "narrower past the hold: lens %g, was %g", s, s0);
    /* Side: the free part moves below only for a square UI_LENS_SWITCH_GAIN
     * larger. Panels 380 px tall (19 lines, plus half a margin: 386) leave
     * 334 px below; 880, 960 and 1000 px wide (whole steps, plus 6) leave
     * strips of 394, 314 and 274 px right. */
    hold = (ui_lens_hold){0};
    ui_lens_fit(&hold, 960, 380, lh, 1280, 720, &s, c);
    CHECK(c[0] == 640 && c[1] > 360, "fresh, 314 right, 334 below: below (%g, %g)", c[0], c[1]);
    hold = (ui_lens_hold){0};
    ui_lens_fit(&hold, 880, 380, lh, 1280, 720, &s, c);
    CHECK(c[1] == 360 && c[0] > 640, "fresh, 394 right, 334 below: right (%g, %g)", c[0], c[1]);
    ui_lens_fit(&hold, 960, 380, lh, 1280, 720, &s, c);
    CHECK(c[1] == 360, "then 314 right: below only 6 %% larger, stays right (%g, %g)", c[0], c[1]);
    ui_lens_fit(&hold, 1000, 380, lh, 1280, 720, &s, c);
    CHECK(c[0] == 640 && c[1] > 360, "then 274 right: below 22 %% larger, moves (%g, %g)", c[0],
          c[1]);
    /* Another window size starts afresh. */
    ui_lens_fit(&hold, wide, 300, lh, 1920, 1080, &s, c);
    ui_lens_fit(&hold, wide - 2 * step, 300, lh, 1280, 720, &s, c);
    CHECK(s > s0, "a new window size: no hold (lens %g, the held one %g)", s, s0);
}

static void check_fit(void) {
    app *a = make(SIM_BACKEND_CPU, 4096, "disk", NULL, true);
    CHECK(a->view.hide_halo, "the disk scene hides its halo");
    const int n = sim_get_params(a->sim).body_count;
    sim_body *b = malloc(sizeof *b * (size_t)n);
    double *r = malloc(sizeof *r * (size_t)n);
    sim_get_bodies(a->sim, b);
    double c[3] = {0, 0, 0}, m = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (SIM_TAG_COMPONENT(b[i].tag) == SIM_COMPONENT_HALO) continue;
        m += b[i].mass;
        for (int d = 0; d < 3; d++) c[d] += b[i].mass * b[i].pos[d];
    }
    for (int i = 0; i < n; i++) {
        if (SIM_TAG_COMPONENT(b[i].tag) == SIM_COMPONENT_HALO) continue;
        double d2 = 0;
        for (int d = 0; d < 3; d++) d2 += pow(b[i].pos[d] - c[d] / m, 2);
        r[k++] = sqrt(d2);
    }
    CHECK(k > 0 && k < n, "%d of %d bodies are the halo's", n - k, n);
    qsort(r, (size_t)k, sizeof *r, base_cmp_double);
    const double r90 = r[(size_t)(0.9 * (k - 1))];
    app_fit_view(a);
    const double fov = a->view.camera.fov_y > 0 ? a->view.camera.fov_y : NBODY_FOV_Y_DEFAULT;
    const double want = 1.2 * r90 / tan(fov / 2);
    /* 1e-5: the camera's distance is a float */
    CHECK(fabs(a->view.camera.distance / want - 1) < 1e-5,
          "F frames the bodies drawn: distance %.4g, want %.4g (r90 of the disk and bulge %.3g)",
          a->view.camera.distance, want, r90);
    a->view.hide_halo = false;
    app_fit_view(a);
    CHECK(a->view.camera.distance > 1.5 * want, "with the halo shown it counts: %.4g",
          a->view.camera.distance);
    free(b);
    free(r);
    app_destroy(a);
}

/* n bodies on a ring, unequal masses, as an io snapshot written to path
 * (own: with our sidecar, else a foreign tipsy). */
static void write_file(const char *path, int n, double time, bool own) {
    sim_body *b = calloc((size_t)n, sizeof *b);
    for (int i = 0; i < n; i++) {
        const double phi = 6.283185307179586 * i / n;
        b[i].pos[0] = cos(phi);
        b[i].pos[1] = sin(phi);
        b[i].pos[2] = 0.1 * sin(3 * phi);
        b[i].vel[0] = -0.5 * sin(phi);
        b[i].vel[1] = 0.5 * cos(phi);
        b[i].mass = (1.0 + i % 3) / (2.0 * n);
    }
    snap_knobs k = {.valid = true, .dt = 0.01, .softening = 0.05, .damping = 1, .theta = 0.5};
    snprintf(k.scene, sizeof k.scene, "plummer");
    CHECK(io_snapshot_write(path, SNAP_FORMAT_TIPSY, b, n, time, &k, false), "wrote %s", path);
    free(b);
    if (!own) {
        char side[PATH_MAX];
        snprintf(side, sizeof side, "%s.nbody", path);
        unlink(side);
    }
}

static void check_foreign_file(const char *dir) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/ring.tipsy", dir);
    write_file(path, 300, 1.25, false);
    app *a = make(SIM_BACKEND_CPU, 0, NULL, path, true);
    hud(a);
    CHECK(strstr(text, "ring.tipsy (tipsy)") && !strstr(text, "Plummer sphere"),
          "the title is the file's name:\n%s", text);
    CHECK(strstr(text, "t = 1.250 (0 steps)"), "t starts at the file's time:\n%s", text);
    sim_step(a->sim, 2);
    const double want = 1.25 + 2 * (double)sim_get_params(a->sim).dt;
    hud(a);
    char t[32];
    snprintf(t, sizeof t, "t = %.3f (2 steps)", want);
    CHECK(strstr(text, t), "t goes on from it (%s):\n%s", t, text);
    CHECK(fabs(app_snapshot_time(a) - want) < 1e-9, "the time shown and saved: %.9g, want %.9g",
          app_snapshot_time(a), want);
    press(a, GLFW_KEY_R, 0);
    hud(a);
    CHECK(!strstr(text, "ring.tipsy") && strstr(text, "t = 0.000") &&
              fabs(app_snapshot_time(a)) < 1e-12,
          "R: new bodies, the scene's title and t from 0:\n%s", text);
    app_destroy(a);
}

static void check_playback(const char *dir) {
    char series[PATH_MAX], path[PATH_MAX + 32];
    snprintf(series, sizeof series, "%s/series", dir);
    CHECK(mkdir(series, 0755) == 0, "made %s", series);
    const int ns[3] = {50, 80, 60};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/run_%03d.tipsy", series, i);
        write_file(path, ns[i], 0.5 * i, true);
    }
    app *a = make(SIM_BACKEND_CPU, 0, NULL, series, true);
    a->live.fps = 60;
    CHECK(app_snapshot_playback(a), "a series plays");
    hud(a);
    CHECK(strstr(text, "PLAYBACK 1.00 of 3") && strstr(text, "run_000.tipsy") &&
              strstr(text, "50 bodies") && strstr(text, "t = 0,") &&
              strstr(text, "1 snapshots/s (9 slower, 0 faster)") &&
              strstr(text, "bodies matched by file order"),
          "the series' rows:\n%s", text);
    CHECK(!strstr(text, "ms/step") && !strstr(text, "interactions/s") && !strstr(text, "ΔE/E₀"),
          "none of the simulation's rows:\n%s", text);

    /* Every key that changes the simulation is refused, saying how to leave. */
    const struct {
        int key, mods;
        const char *label;
    } keys[] = {{GLFW_KEY_EQUAL, 0, "+"},
                {GLFW_KEY_MINUS, 0, "-"},
                {GLFW_KEY_R, 0, "R"},
                {GLFW_KEY_R, SHIFT_MOD, "Shift+R"},
                {GLFW_KEY_T, 0, "T"},
                {GLFW_KEY_S, 0, "S"},
                {GLFW_KEY_D, 0, "D"},
                {GLFW_KEY_J, 0, "J"},
                {GLFW_KEY_K, 0, "K"},
                {GLFW_KEY_P, 0, "P"},
                {GLFW_KEY_Q, SHIFT_MOD, "Shift+Q"},
                {GLFW_KEY_1, 0, "1"},
                {GLFW_KEY_3, 0, "3"},
                {GLFW_KEY_7, 0, "7"},
                {GLFW_KEY_F9, 0, "F9"}};
    const sim_params before = sim_get_params(a->sim);
    const int scene = a->scene;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        press(a, keys[i].key, keys[i].mods);
        const sim_params p = sim_get_params(a->sim);
        char want[32];
        snprintf(want, sizeof want, "%s changes the simulation", keys[i].label);
        CHECK(p.generation == before.generation && p.body_count == before.body_count &&
                  p.dt == before.dt && p.softening == before.softening &&
                  p.variant == before.variant && p.theta == before.theta &&
                  p.damping == before.damping && p.seed == before.seed && a->scene == scene,
              "%s during playback changes nothing", keys[i].label);
        CHECK(strstr(a->msg.text, want) && strstr(a->msg.text, "Enter"),
              "%s is refused with its reason and the way out: '%s'", keys[i].label, a->msg.text);
    }

    /* The playback keys say what they did. */
    press(a, GLFW_KEY_SPACE, 0);
    CHECK(strstr(a->msg.text, "paused at 1.00 of 3"), "Space: '%s'", a->msg.text);
    press(a, GLFW_KEY_PERIOD, 0);
    CHECK(strstr(a->msg.text, "snapshot 2/3: run_001.tipsy"), ".: '%s'", a->msg.text);
    app_snapshot_frame(a); /* the move happens in the next frame */
    CHECK(fabs(app_snapshot_time(a) - 0.5) < 1e-12, ". shows the second file, t = 0.5: %g",
          app_snapshot_time(a));
    press(a, GLFW_KEY_RIGHT_BRACKET, 0);
    app_snapshot_frame(a);
    CHECK(strstr(a->msg.text, "snapshot 3/3"), "]: '%s'", a->msg.text);
    press(a, GLFW_KEY_PERIOD, 0);
    CHECK(strstr(a->msg.text, "the last snapshot") && strstr(a->msg.text, "3/3 stays"),
          ". at the end: '%s'", a->msg.text);
    hud(a);
    CHECK(strstr(text, "PLAYBACK 3.00 of 3") && strstr(text, "60 bodies") && strstr(text, "t = 1,"),
          "the HUD follows:\n%s", text);
    /* Where t comes from: on a file, the file's own (the mode named);
     * between files, interpolated, or the file's own with no interpolation. */
    char mode[64];
    snprintf(mode, sizeof mode, "interpolation: %s, on a file: the file itself",
             app_interp_mode_name(a->playback.mode));
    CHECK(strstr(text, "t = 1, the file's own") && strstr(text, mode), "on a file:\n%s", text);
    a->playback.pos = 1.5;
    app_snapshot_frame(a);
    hud(a);
    CHECK(strstr(text, "t = 0.75, interpolated between the files' times"), "between files:\n%s",
          text);
    for (int i = 0; i < 3 && a->playback.mode != APP_INTERP_NONE; i++) {
        press(a, GLFW_KEY_BACKSLASH, 0);
    }
    app_snapshot_frame(a);
    hud(a);
    CHECK(a->playback.mode == APP_INTERP_NONE && strstr(text, "t = 0.5, the file's own") &&
              strstr(text, "interpolation: none"),
          "between files with no interpolation:\n%s", text);

    /* Enter: the simulation runs on from the snapshot on screen. */
    press(a, GLFW_KEY_ENTER, 0);
    CHECK(!app_snapshot_playback(a) && strstr(a->msg.text, "simulating from run_002.tipsy"),
          "Enter leaves the playback: '%s'", a->msg.text);
    CHECK(!app_snapshot_frame(a), "nothing plays now");
    sim_step(a->sim, 1);
    hud(a);
    CHECK(strstr(text, "ms/step") && !strstr(text, "PLAYBACK") &&
              fabs(app_snapshot_time(a) - (1.0 + sim_get_params(a->sim).dt)) < 1e-9,
          "the simulation's rows, t from the snapshot's 1.0: %.6g\n%s", app_snapshot_time(a), text);
    press(a, GLFW_KEY_EQUAL, 0);
    CHECK(sim_get_params(a->sim).body_count == 120, "+ works again: N %d",
          sim_get_params(a->sim).body_count);
    app_destroy(a);
}

static void check_hint_and_rec(void) {
    app *a = make(SIM_BACKEND_CPU, 100, NULL, NULL, false); /* a window's app (none opened) */
    ui_facts f;
    app_ui_facts(a, &f);
    float alpha = 0;
    const char *hint = ui_hint_text(&a->ui, &f, &alpha);
    CHECK(hint && strstr(hint, "drag to orbit") && strstr(hint, "1-7 scenes") &&
              strstr(hint, "K kernels") && strstr(hint, "H help") && alpha == 1,
          "the first-run hint: '%s' at %.2f", hint ? hint : "(none)", alpha);
    a->ui.hint_since = f.now - UI_HINT_SECONDS - 0.5 * UI_HINT_FADE;
    hint = ui_hint_text(&a->ui, &f, &alpha);
    CHECK(hint && fabs(alpha - 0.5) < 1e-6, "half faded: %.3f", alpha);
    a->ui.hint_since = f.now - UI_HINT_SECONDS - UI_HINT_FADE - 0.01;
    CHECK(!ui_hint_text(&a->ui, &f, &alpha), "gone after it faded");
    a->ui.hint_since = 0;
    CHECK(ui_hint_text(&a->ui, &f, &alpha), "shown again from its start");
    press(a, GLFW_KEY_C, 0);
    app_ui_facts(a, &f);
    CHECK(!ui_hint_text(&a->ui, &f, &alpha), "the first key ends it");
    app_destroy(a);
    a = make(SIM_BACKEND_CPU, 100, NULL, NULL, true);
    app_ui_facts(a, &f);
    CHECK(!ui_hint_text(&a->ui, &f, &alpha), "none headless");
    char rec[64];
    CHECK(!ui_rec_text(&f, rec, sizeof rec), "no REC while nothing records");
    f.recording = (ui_recording){.on = true, .video = true, .frames = 95, .fps = 30};
    CHECK(ui_rec_text(&f, rec, sizeof rec) && strcmp(rec, "REC 0:03.2") == 0,
          "95 frames at 30/s: '%s'", rec);
    f.recording.frames = 30 * 75;
    CHECK(ui_rec_text(&f, rec, sizeof rec) && strcmp(rec, "REC 1:15.0") == 0, "75 s: '%s'", rec);
    f.recording = (ui_recording){.on = true, .video = false, .frames = 1};
    CHECK(ui_rec_text(&f, rec, sizeof rec) && strcmp(rec, "REC 1 frame") == 0, "'%s'", rec);
    app_destroy(a);
}

/* ---- with GL ---------------------------------------------------------- */

static void frame(app *a) {
    app_frame(a, a->cfg.width, a->cfg.height);
}

static void check_recording(const char *dir) {
    char frames[PATH_MAX];
    snprintf(frames, sizeof frames, "%s/frames", dir);
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = 64},
                  .steps_per_frame = 1,
                  .headless = true,
                  .width = 320,
                  .height = 180,
                  .frames_dir = frames};
    cfg.given[CONFIG_KNOB_N] = true;
    CHECK(io_check_frames_dir(frames, "--frames-dir"), "frames dir");
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a || !app_gl_begin(a, true)) {
        CHECK(false, "an app with GL");
        return;
    }
    for (int i = 0; i < 12; i++) frame(a);
    ui_facts f;
    app_ui_facts(a, &f);
    char rec[64];
    CHECK(f.recording.on && !f.recording.video && f.recording.frames > 0 &&
              f.recording.frames <= 12 && ui_rec_text(&f, rec, sizeof rec) && strstr(rec, "REC ") &&
              strstr(rec, " frames"),
          "a PNG sequence records: %ld frames written, '%s'", f.recording.frames, rec);
    app_gl_end(a);
    app_destroy(a);
}

/* The HUD's font at 1280x720 for --hud-scale x (0: not given). */
static float font_at(app *a, float x) {
    a->cfg.hud_scale = x;
    ui_facts f;
    app_ui_facts(a, &f);
    render_view v = f.view;
    ui_fit_view(&a->ui, &f, 1280, 720, &v);
    return render_overlay_font_px(a->ui.text);
}

static void check_hud_scale(void) {
    app *a = make(SIM_BACKEND_CPU, 1000, NULL, NULL, true);
    if (!app_gl_begin(a, true)) {
        CHECK(false, "an app with GL");
        return;
    }
    frame(a);
    const float none = font_at(a, 0), one = font_at(a, 1), more = font_at(a, 1.5f),
                most = font_at(a, 3);
    CHECK(one >= none && more > one && most > more,
          "--hud-scale grows the text at 1280x720: none %.0f px, 1: %.0f, 1.5: %.0f, 3: %.0f", none,
          one, more, most);
    CHECK(fabsf(more - roundf(1.5f * 17)) <= 1, "1.5 as asked: %.0f px", more);
    const float eight = font_at(a, 8);
    CHECK(eight >= most && eight <= 96, "8: %.0f px, the most that fits (the font's cap 96)",
          eight);
    printf(
        "test_hud: --hud-scale at 1280x720: none %.0f px, 1: %.0f, 1.5: %.0f, 3: %.0f, 8: %.0f\n",
        none, one, more, most, eight);
    app_gl_end(a);
    app_destroy(a);
}

int main(void) {
    char dir[] = "/tmp/test_hud.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    check_energy_and_ages();
    check_tree_levels_and_theta();
    check_fit();
    check_legend_in_density_view();
    check_first_frame();
    check_lens_hold();
    check_foreign_file(dir);
    check_playback(dir);
    check_hint_and_rec();
    app_egl *egl = app_egl_open(-1);
    if (egl) {
        check_recording(dir);
        check_hud_scale();
        app_egl_close(egl);
    } else {
        printf("test_hud: no EGL context: the recording and --hud-scale checks skipped\n");
    }
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "test_hud: %s left behind\n", dir);
    return test_exit("test_hud");
}
