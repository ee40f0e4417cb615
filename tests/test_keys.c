/* test_keys.c - the key table does what the help says, clamps included.
 *
 * Drives app_key() - the function behind both the window's keyboard and
 * --script - on an app with the CPU backend (no GL needed: keys only change
 * state), and checks the state after each press. Where a CUDA device is
 * present it also walks K / Shift+K through every kernel variant and checks
 * the block-shape clamps of a one-thread-per-body variant.
 */
#include <GLFW/glfw3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "test_util.h"

static app *make_app(sim_backend backend, sim_variant v, int p, int q) {
    config cfg = {.sim = {.backend = backend, .body_count = 1000, .variant = v, .p = p, .q = q},
                  .steps_per_frame = 1,
                  .headless = true};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    return a;
}

/* The HUD's (help: the help's) text as it is drawn now. */
static void hud_text(app *a, bool help, char *out, size_t len) {
    ui_facts f;
    app_ui_facts(a, &f);
    f.key_help = app_key_help;
    ui_hud_text(&a->ui, &f, help, out, len);
}

static sim_params press(app *a, int key, int mods) {
    a->msg.text[0] = 0;
    app_key(a, key, mods);
    return sim_get_params(a->sim);
}

#define SHIFT GLFW_MOD_SHIFT

/* z component of the spin of galaxy g's disk about its own centre of mass. */
static double disk_spin_z(sim *s, unsigned g) {
    const int n = sim_get_params(s).body_count;
    sim_body *b = malloc(sizeof *b * (size_t)n);
    CHECK(b != NULL, "memory");
    sim_get_bodies(s, b);
    double m = 0, c[3] = {0}, v[3] = {0}, lz = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
            if (SIM_TAG_GALAXY(b[i].tag) != g || SIM_TAG_COMPONENT(b[i].tag) != SIM_COMPONENT_DISK)
                continue;
            if (pass == 0) {
                m += b[i].mass;
                for (int k = 0; k < 3; k++) c[k] += b[i].mass * b[i].pos[k];
                for (int k = 0; k < 3; k++) v[k] += b[i].mass * b[i].vel[k];
            } else {
                const double x = b[i].pos[0] - c[0] / m, y = b[i].pos[1] - c[1] / m;
                const double vx = b[i].vel[0] - v[0] / m, vy = b[i].vel[1] - v[1] / m;
                lz += b[i].mass * (x * vy - y * vx);
            }
        }
    }
    free(b);
    return lz;
}

static void check_knobs(void) {
    /* fast: a p x q tile kernel, whose clamps the CPU backend applies too */
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_FAST, 64, 2);
    sim_params p = sim_get_params(a->sim);
    CHECK(p.damping == 1.0f, "damping starts at 1");

    /* D doubles 1 - d from 1e-4; Shift+D halves it and snaps to 1 below 1e-4. */
    const double expect_up[] = {0.9999, 0.9998, 0.9996, 0.9992};
    for (int i = 0; i < 4; i++) {
        p = press(a, GLFW_KEY_D, 0);
        CHECK(fabs(p.damping - expect_up[i]) < 1e-6, "D #%d: damping %.7f, want %.4f", i + 1,
              p.damping, expect_up[i]);
    }
    const double expect_down[] = {0.9996, 0.9998, 0.9999, 1.0};
    for (int i = 0; i < 4; i++) {
        p = press(a, GLFW_KEY_D, SHIFT);
        CHECK(fabs(p.damping - expect_down[i]) < 1e-6, "Shift+D #%d: damping %.7f, want %.4f",
              i + 1, p.damping, expect_down[i]);
    }
    CHECK(p.damping == 1.0f, "damping back to exactly 1, not %.9f", p.damping);
    for (int i = 0; i < 20; i++) p = press(a, GLFW_KEY_D, 0);
    CHECK(p.damping >= 0.5f - 1e-6f, "damping is capped at 0.5: %.5f", p.damping);
    for (int i = 0; i < 20; i++) p = press(a, GLFW_KEY_D, SHIFT);
    CHECK(p.damping == 1.0f, "many Shift+D: damping off");

    /* S, T: x2 and /2; the time step is kept within [1e-6, 1]. */
    p = press(a, GLFW_KEY_S, 0);
    CHECK(p.softening == 0.1, "S: softening %.4f", p.softening);
    p = press(a, GLFW_KEY_S, SHIFT);
    CHECK(p.softening == 0.05, "Shift+S: softening %.4f", p.softening);
    int presses = 0;
    while (p.softening > 0 && presses < 20) {
        p = press(a, GLFW_KEY_S, SHIFT);
        presses++;
    }
    CHECK(p.softening == 0 && presses <= 6, "Shift+S reaches 0 in %d presses", presses);
    p = press(a, GLFW_KEY_S, 0);
    CHECK(p.softening == 1e-3, "S from zero softening: %.4g", p.softening);
    sim_set_softening(a->sim, 0.05f);
    p = press(a, GLFW_KEY_T, 0);
    CHECK(p.dt == 1.0f / 64, "T: dt %.6f", p.dt);
    p = press(a, GLFW_KEY_T, SHIFT);
    CHECK(p.dt == 1.0f / 128, "Shift+T: dt %.6f", p.dt);
    sim_set_dt(a->sim, 8.0f);
    p = press(a, GLFW_KEY_T, 0);
    CHECK(p.dt == 8.0f && strstr(a->msg.text, "stays"), "T stops within the dt range: %g (%s)",
          p.dt, a->msg.text);
    sim_set_dt(a->sim, 1.0f / 128);

    /* + and - double and halve N in the same scene (keypad keys too) and keep the view. */
    a->view.camera.distance = 7.5f;
    a->view.color = RENDER_COLOR_BODY;
    p = press(a, GLFW_KEY_EQUAL, SHIFT);
    CHECK(p.body_count == 2000 && p.ic == SIM_IC_PLUMMER, "+: N %d", p.body_count);
    CHECK(a->view.camera.distance == 7.5f && a->view.color == RENDER_COLOR_BODY,
          "+ keeps camera and colour");
    a->view.color = RENDER_COLOR_SPEED;
    p = press(a, GLFW_KEY_KP_SUBTRACT, 0);
    CHECK(p.body_count == 1000, "keypad -: N %d", p.body_count);
    p = press(a, GLFW_KEY_KP_ADD, 0);
    CHECK(p.body_count == 2000, "keypad +: N %d", p.body_count);
    p = press(a, GLFW_KEY_MINUS, 0);
    CHECK(p.body_count == 1000, "-: N %d", p.body_count);

    /* Scenes and seeds. */
    p = press(a, GLFW_KEY_2, 0);
    CHECK(p.ic == SIM_IC_SHELL && p.body_count == 1000, "2: shell");
    p = press(a, GLFW_KEY_1, 0);
    CHECK(p.ic == SIM_IC_PLUMMER, "1: Plummer");
    /* Galaxies: own units, so own N, dt and softening; N kept among them. */
    p = press(a, GLFW_KEY_3, 0);
    CHECK(p.ic == SIM_IC_DISK && p.body_count == 8192 && p.dt == 0.025, "3: disk, N %d, dt %g",
          p.body_count, p.dt);
    CHECK(a->view.hide_halo && a->view.color == RENDER_COLOR_COMPONENT,
          "3: halo hidden, by component");
    p = press(a, GLFW_KEY_MINUS, 0);
    p = press(a, GLFW_KEY_4, 0);
    CHECK(p.ic == SIM_IC_MERGER && p.body_count == 4096, "4: merger keeps N %d", p.body_count);
    const double spin4 = disk_spin_z(a->sim, 0);
    CHECK(spin4 > 0, "4: galaxy 1's disk spins with the orbit (L_z %.3g)", spin4);
    const sim_diag m4 = sim_moments(a->sim);
    CHECK(m4.galaxy_mass[0] > 0 && fabs(m4.galaxy_mass[1] / m4.galaxy_mass[0] - 1) < 1e-9,
          "4: equal masses %.3f %.3f", m4.galaxy_mass[0], m4.galaxy_mass[1]);
    p = press(a, GLFW_KEY_5, 0);
    const double spin5 = disk_spin_z(a->sim, 0);
    CHECK(p.ic == SIM_IC_MERGER && a->scene == config_scene_find("retrograde") && spin5 < 0,
          "5: the retrograde encounter, galaxy 1's disk against the orbit (L_z %.3g)", spin5);
    const sim_diag m = sim_moments(a->sim);
    CHECK(m.galaxy_mass[0] > 0 && fabs(m.galaxy_mass[1] / m.galaxy_mass[0] - 1) < 1e-9,
          "5: equal masses %.3f %.3f", m.galaxy_mass[0], m.galaxy_mass[1]);
    p = press(a, GLFW_KEY_6, 0);
    const sim_diag m6 = sim_moments(a->sim);
    CHECK(fabs(m6.galaxy_mass[1] / m6.galaxy_mass[0] - 0.25) < 1e-6, "6: 1:4, %.4f",
          m6.galaxy_mass[1] / m6.galaxy_mass[0]);
    p = press(a, GLFW_KEY_7, 0);
    const sim_diag m7 = sim_moments(a->sim);
    CHECK(fabs(m7.galaxy_mass[1] / m7.galaxy_mass[0] - 1.6) < 1e-6, "7: 1:1.6, %.4f",
          m7.galaxy_mass[1] / m7.galaxy_mass[0]);
    p = press(a, GLFW_KEY_1, 0);
    CHECK(p.ic == SIM_IC_PLUMMER && p.body_count == 4096 && p.dt == 1.0f / 128 &&
              p.softening == 0.05,
          "1 from a galaxy: Plummer at its own N %d, dt and softening", p.body_count);
    sim_reset(a->sim, SIM_IC_PLUMMER, 1000, p.seed, NULL);
    const uint64_t seed = p.seed;
    p = press(a, GLFW_KEY_R, 0);
    CHECK(p.seed == seed + 1 && p.time == 0, "R: next seed, time 0");

    /* The CPU backend has two force methods: K goes to the tree and back. */
    const sim_variant v = p.variant;
    p = press(a, GLFW_KEY_K, 0);
    CHECK(p.variant == SIM_VARIANT_TREE && strcmp(app_method_name(a), "tree") == 0,
          "K on the CPU backend: the tree (%s)", a->msg.text);
    p = press(a, GLFW_KEY_K, SHIFT);
    CHECK(p.variant != SIM_VARIANT_TREE && strcmp(app_method_name(a), "reference") == 0,
          "Shift+K: back to the reference (%s)", a->msg.text);
    sim_set_variant(a->sim, v, NULL);

    /* J and Shift+J step the opening angle by 0.1 within its range. */
    const double theta0 = p.theta;
    p = press(a, GLFW_KEY_J, 0);
    CHECK(fabs(p.theta - (theta0 + 0.1)) < 1e-6, "J: theta %.3f", p.theta);
    p = press(a, GLFW_KEY_J, SHIFT);
    CHECK(fabs(p.theta - theta0) < 1e-6, "Shift+J: theta %.3f", p.theta);
    for (int i = 0; i < 20; i++) p = press(a, GLFW_KEY_J, 0);
    CHECK(p.theta == 1.0f && strstr(a->msg.text, "stays"), "J stops at 1: %.3f (%s)", p.theta,
          a->msg.text);
    sim_set_theta(a->sim, theta0);

    /* P and Q on the CPU backend: no GPU kernel to shape; they say so and
     * change nothing, and the status JSON has no p and q. */
    const int p0 = p.p, q0 = p.q;
    for (int i = 0; i < 4; i++) {
        const int key = i % 2 ? GLFW_KEY_Q : GLFW_KEY_P;
        p = press(a, key, i < 2 ? 0 : SHIFT);
        CHECK(p.p == p0 && p.q == q0 && strstr(a->msg.text, "reference takes none"),
              "%s on the CPU: %dx%d (%s)", i % 2 ? "Q" : "P", p.p, p.q, a->msg.text);
    }
    char json[32];
    app_knob_json(a, CONFIG_KNOB_P, json, sizeof json);
    CHECK(strcmp(json, "null") == 0, "status p on the CPU: %s", json);
    app_knob_json(a, CONFIG_KNOB_Q, json, sizeof json);
    CHECK(strcmp(json, "null") == 0, "status q on the CPU: %s", json);
    /* The clamps themselves (sim/): p x q over 1024 threads is clamped with a reason. */
    sim_block b0 = sim_set_block(a->sim, 128, 4);
    CHECK(b0.p == 128 && b0.q == 4 && !b0.clamped, "128 x 4: %dx%d", b0.p, b0.q);
    b0 = sim_set_block(a->sim, 512, 4);
    CHECK(b0.p * b0.q <= 1024 && b0.clamped && strstr(b0.reason, "p x q"), "512 x 4: %dx%d (%s)",
          b0.p, b0.q, b0.reason);
    sim_set_block(a->sim, p0, q0);

    /* best: p is whole warps; q, blocks per SM, at most what fits (4 without a device). */
    sim_error err = {0};
    CHECK(sim_set_variant(a->sim, SIM_VARIANT_BEST, &err), "best");
    sim_block blk = sim_set_block(a->sim, 100, 2);
    CHECK(blk.p == 96 && blk.q == 2 && blk.clamped && strstr(blk.reason, "warps"),
          "best 100 x 2 -> %dx%d (%s)", blk.p, blk.q, blk.reason);
    blk = sim_set_block(a->sim, 256, 64);
    CHECK(blk.p == 256 && blk.q < 64 && blk.clamped, "best 256 x 64 -> %dx%d (%s)", blk.p, blk.q,
          blk.reason);
    CHECK(sim_set_variant(a->sim, SIM_VARIANT_FAST, &err), "fast");
    sim_set_block(a->sim, 128, 2);

    /* Loop and view toggles. */
    CHECK(!a->live.paused, "running at start");
    press(a, GLFW_KEY_PERIOD, 0);
    CHECK(!a->live.step_once, ". while running does not step");
    press(a, GLFW_KEY_SPACE, 0);
    CHECK(a->live.paused, "Space pauses");
    press(a, GLFW_KEY_PERIOD, 0);
    CHECK(a->live.step_once, ". while paused steps once");
    press(a, GLFW_KEY_SPACE, 0);
    CHECK(!a->live.paused, "Space runs");
    /* C's order: the modes of the tags, then those of a quantity, back to speed. */
    const render_color order[] = {RENDER_COLOR_BODY,      RENDER_COLOR_GALAXY,
                                  RENDER_COLOR_COMPONENT, RENDER_COLOR_DENSITY,
                                  RENDER_COLOR_RADIAL,    RENDER_COLOR_POTENTIAL,
                                  RENDER_COLOR_SPEED};
    for (int i = 0; i < (int)(sizeof order / sizeof order[0]); i++) {
        press(a, GLFW_KEY_C, 0);
        CHECK(a->view.color == order[i], "C #%d: colour mode %d, want %d", i + 1, a->view.color,
              order[i]);
    }
    /* Exposure: E, Shift+E scale by 1.25 and leave the automatic mode; A, B, O toggle. */
    a->view.auto_exposure = false;
    a->view.exposure = 1.0f;
    press(a, GLFW_KEY_E, 0);
    CHECK(fabsf(a->view.exposure - 1.25f) < 1e-6f, "E: exposure %.4f", a->view.exposure);
    press(a, GLFW_KEY_E, SHIFT);
    press(a, GLFW_KEY_E, SHIFT);
    CHECK(fabsf(a->view.exposure - 0.8f) < 1e-6f, "Shift+E twice: exposure %.4f", a->view.exposure);
    press(a, GLFW_KEY_A, 0);
    CHECK(a->view.auto_exposure, "A: automatic exposure");
    const bool bloom = a->view.bloom, halo = a->view.hide_halo;
    press(a, GLFW_KEY_B, 0);
    CHECK(a->view.bloom != bloom, "B toggles bloom");
    press(a, GLFW_KEY_O, 0);
    CHECK(a->view.hide_halo != halo, "O toggles the halo");
    const bool vs = a->fe.vsync;
    press(a, GLFW_KEY_V, 0);
    CHECK(a->fe.vsync != vs && a->fe.vsync_changed, "V toggles vsync");
    press(a, GLFW_KEY_H, 0);
    CHECK(a->ui.shown[UI_OVERLAY_HELP], "H opens help");
    press(a, GLFW_KEY_F1, 0);
    CHECK(!a->ui.shown[UI_OVERLAY_HELP], "F1 closes help");
    const bool hud = a->ui.shown[UI_OVERLAY_HUD];
    press(a, GLFW_KEY_TAB, 0);
    CHECK(a->ui.shown[UI_OVERLAY_HUD] != hud, "Tab toggles the HUD");
    press(a, GLFW_KEY_F12, 0);
    CHECK(a->req.screenshot, "F12 asks for a screenshot");
    press(a, GLFW_KEY_G, 0);
    CHECK(a->view.follow_com, "G follows the centre of mass");
    a->view.camera.distance = 100;
    press(a, GLFW_KEY_F, 0);
    CHECK(a->view.camera.distance > 0.5f && a->view.camera.distance < 10, "F fits: distance %.3f",
          a->view.camera.distance);
    press(a, GLFW_KEY_ESCAPE, 0);
    CHECK(a->fe.quit, "Esc quits");
    app_destroy(a);
}

/* The mouse's camera moves: orbit, pan, zoom (the window's callbacks call these). */
static void check_camera(void) {
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_DEFAULT, 0, 0);
    const render_camera c0 = a->view.camera;
    app_zoom(a, 1);
    CHECK(fabsf(a->view.camera.distance - 0.9f * c0.distance) < 1e-5f,
          "scroll zooms by 10 %%: %.4f", a->view.camera.distance);
    app_zoom(a, -1);
    CHECK(fabsf(a->view.camera.distance - c0.distance) < 1e-5f, "and back");
    app_orbit(a, 100, 0);
    CHECK(a->view.camera.yaw != c0.yaw && a->view.camera.pitch == c0.pitch,
          "horizontal drag turns the yaw");
    app_orbit(a, 0, 1e6);
    CHECK(a->view.camera.pitch <= 1.55f && a->view.camera.pitch > 1.5f,
          "pitch stops short of the pole: %.3f", a->view.camera.pitch);
    a->view.follow_com = true;
    app_pan(a, 50, -20, 720);
    const float moved = fabsf(a->view.camera.target[0]) + fabsf(a->view.camera.target[1]) +
                        fabsf(a->view.camera.target[2]);
    CHECK(moved > 0 && !a->view.follow_com, "pan moves the target and stops following: %.4f",
          moved);
    app_destroy(a);
}

static void check_key_names(void) {
    int key, mods;
    CHECK(io_key_parse("Shift+P", &key, &mods) && key == GLFW_KEY_P && mods == GLFW_MOD_SHIFT,
          "Shift+P");
    CHECK(io_key_parse("k", &key, &mods) && key == GLFW_KEY_K && mods == 0, "k");
    CHECK(io_key_parse("7", &key, &mods) && key == GLFW_KEY_7, "7");
    CHECK(io_key_parse("Space", &key, &mods) && key == GLFW_KEY_SPACE, "Space");
    CHECK(io_key_parse("+", &key, &mods) && key == GLFW_KEY_EQUAL, "+");
    CHECK(io_key_parse(".", &key, &mods) && key == GLFW_KEY_PERIOD, ".");
    CHECK(io_key_parse("F12", &key, &mods) && key == GLFW_KEY_F12, "F12");
    static const struct {
        const char *name;
        int key;
    } stage[] = {{"Left", GLFW_KEY_LEFT},      {"Right", GLFW_KEY_RIGHT},
                 {"Up", GLFW_KEY_UP},          {"Down", GLFW_KEY_DOWN},
                 {"PageUp", GLFW_KEY_PAGE_UP}, {"PageDown", GLFW_KEY_PAGE_DOWN},
                 {"Home", GLFW_KEY_HOME},      {"F11", GLFW_KEY_F11}};
    for (size_t i = 0; i < sizeof stage / sizeof stage[0]; i++) {
        CHECK(io_key_parse(stage[i].name, &key, &mods) && key == stage[i].key && mods == 0,
              "--script knows %s", stage[i].name);
    }
    CHECK(io_key_parse("Shift+Left", &key, &mods) && key == GLFW_KEY_LEFT && mods == GLFW_MOD_SHIFT,
          "Shift+Left");
    CHECK(io_key_parse("F5", &key, &mods) && key == GLFW_KEY_F5, "F5");
    CHECK(io_key_parse("F9", &key, &mods) && key == GLFW_KEY_F9, "F9");
    CHECK(io_key_parse(",", &key, &mods) && key == GLFW_KEY_COMMA, ",");
    CHECK(io_key_parse("[", &key, &mods) && key == GLFW_KEY_LEFT_BRACKET, "[");
    CHECK(io_key_parse("]", &key, &mods) && key == GLFW_KEY_RIGHT_BRACKET, "]");
    CHECK(io_key_parse("Enter", &key, &mods) && key == GLFW_KEY_ENTER, "Enter");
    CHECK(io_key_parse("Shift+F7", &key, &mods) && key == GLFW_KEY_F7 && mods == GLFW_MOD_SHIFT,
          "Shift+F7");
    CHECK(io_key_parse("F6", &key, &mods) && key == GLFW_KEY_F6, "F6");
    CHECK(io_key_parse("F8", &key, &mods) && key == GLFW_KEY_F8, "F8");
    CHECK(!io_key_parse("Ctrl+X", &key, &mods), "Ctrl+X is not a key here");
    CHECK(!io_key_parse("", &key, &mods), "empty");
    /* The help lists exactly the bindings app_key serves: the knobs' keys, a
     * line per scene, the view and loop keys, the mouse, the selections'. */
    static const char *const want[] = {"+ / -",
                                       "R / Shift+R",
                                       "T / Shift+T",
                                       "S / Shift+S",
                                       "D / Shift+D",
                                       "J / Shift+J",
                                       "K / Shift+K",
                                       "P / Shift+P",
                                       "Q / Shift+Q",
                                       "1",
                                       "2",
                                       "3",
                                       "4",
                                       "5",
                                       "6",
                                       "7",
                                       "Space",
                                       ".",
                                       "C",
                                       "E",
                                       "A",
                                       "B",
                                       "O",
                                       "V",
                                       "X",
                                       "W",
                                       "L",
                                       "F",
                                       "G",
                                       "H, F1",
                                       "Tab",
                                       "F12",
                                       "Esc",
                                       "arrow keys",
                                       "PgUp / PgDn",
                                       "Home",
                                       "F11",
                                       "M",
                                       "F5",
                                       "F9",
                                       ",",
                                       "[",
                                       "]",
                                       "Enter",
                                       "left drag",
                                       "right/middle drag",
                                       "scroll",
                                       "I",
                                       "Shift+I",
                                       "U",
                                       "F2 / Shift+F2",
                                       "F3",
                                       "F4",
                                       "9",
                                       "0",
                                       "\\",
                                       "N",
                                       "Shift+N",
                                       "Y",
                                       "Ctrl+Y",
                                       "F6",
                                       "Shift+X",
                                       "F7",
                                       "Shift+F7",
                                       "F8",
                                       "Z / Shift+Z",
                                       "Ctrl+left drag",
                                       "Ctrl+right click",
                                       "PgDn, Right, Space",
                                       "PgUp, Left",
                                       "'"};
    const int count = (int)(sizeof want / sizeof want[0]);
    bool found[sizeof want / sizeof want[0]] = {false};
    char label[64], text[160];
    int n = 0;
    for (; app_key_help(n, label, sizeof label, text, sizeof text); n++) {
        int hit = -1;
        for (int i = 0; i < count; i++) {
            if (strcmp(label, want[i]) == 0) hit = i;
        }
        CHECK(hit >= 0 && !found[hit], "help line %d '%s: %s' is expected once", n, label, text);
        CHECK(text[0] != 0, "help line '%s' says what it does", label);
        if (hit >= 0) found[hit] = true;
    }
    for (int i = 0; i < count; i++) CHECK(found[i], "the help lists '%s'", want[i]);
    CHECK(n == count, "help: %d lines, want %d", n, count);
}

/* The bodies of a scene do not depend on how it was reached: --preset disk
 * and key 3 from a Plummer sphere build the same disk, whose rotation curve
 * is measured with the softening it then runs with. */
static app *app_with(const char *preset, sim_ic ic, double softening, bool softening_given) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .ic = ic, .softening = softening},
                  .preset = preset,
                  .headless = true};
    cfg.given[CONFIG_KNOB_IC] = ic != SIM_IC_DEFAULT;
    cfg.given[CONFIG_KNOB_SOFTENING] = softening_given;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    return a;
}

static int differing_bodies(sim *x, sim *y) {
    const int n = sim_get_params(x).body_count;
    if (sim_get_params(y).body_count != n) return -1;
    sim_body *bx = malloc(sizeof *bx * (size_t)n), *by = malloc(sizeof *by * (size_t)n);
    CHECK(bx && by, "memory");
    sim_get_bodies(x, bx);
    sim_get_bodies(y, by);
    int differ = 0;
    for (int i = 0; i < n; i++) {
        bool same = bx[i].mass == by[i].mass && bx[i].tag == by[i].tag;
        for (int k = 0; k < 3; k++) same = same && bx[i].pos[k] == by[i].pos[k];
        for (int k = 0; k < 3; k++) same = same && bx[i].vel[k] == by[i].vel[k];
        differ += !same;
    }
    free(bx);
    free(by);
    return differ;
}

static void check_scene_paths(void) {
    app *flag = app_with("disk", SIM_IC_DEFAULT, 0, false);
    app *key = app_with("plummer", SIM_IC_DEFAULT, 0, false);
    press(key, GLFW_KEY_3, 0);
    const sim_params pf = sim_get_params(flag->sim), pk = sim_get_params(key->sim);
    CHECK(pf.softening == 0.15 && pk.softening == pf.softening && pk.dt == pf.dt,
          "disk by flag and by key: eps %g and %g, dt %g and %g", pf.softening, pk.softening, pf.dt,
          pk.dt);
    const int differ = differing_bodies(flag->sim, key->sim);
    CHECK(differ == 0, "--preset disk and key 3 from Plummer: %d of %d bodies differ", differ,
          pf.body_count);
    /* --softening 0 --ic disk builds with no softening and runs with none. */
    app *zero = app_with(NULL, SIM_IC_DISK, 0, true);
    const sim_params pz = sim_get_params(zero->sim);
    CHECK(pz.softening == 0 && zero->scene == config_scene_find("disk"),
          "--softening 0 --ic disk: %g", pz.softening);
    sim_desc d = config_scene_desc(zero->scene, NULL, true, false);
    d.backend = SIM_BACKEND_CPU;
    d.softening = 0;
    sim *direct = test_sim(d);
    CHECK(differing_bodies(zero->sim, direct) == 0, "the same disk as a desc with softening 0");
    CHECK(differing_bodies(zero->sim, flag->sim) > 0,
          "and not the disk of softening 0.15 (the rotation curve depends on it)");
    sim_destroy(direct);
    app_destroy(flag);
    app_destroy(key);
    app_destroy(zero);
}

/* The status line holds every knob, whatever its length (no fixed buffer). */
static void check_status_line(void) {
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_DEFAULT, 0, 0);
    sim_reset(a->sim, SIM_IC_PLUMMER, 1000, UINT64_MAX, NULL); /* the longest seed */
    a->live.frame = 2147483647;
    for (int i = 0; i < 3; i++) app_status_line(a, false);
    const char *s = a->status.buf;
    CHECK(s && a->status.len == strlen(s), "status buffer");
    int lines = 0;
    for (const char *c = s; *c; c++) lines += *c == '\n';
    CHECK(lines == 3, "three lines: %d", lines);
    const char *last = s;
    for (int i = 0; i < 2; i++) last = strchr(last, '\n') + 1;
    CHECK(strncmp(last, "{\"format\"", 9) == 0 && strstr(last, "\"vsync\": ") &&
              strcmp(s + a->status.len - 2, "}\n") == 0,
          "the third line is whole (%zu bytes in all)", a->status.len);
    CHECK(strstr(s, "18446744073709551615") != NULL, "the longest seed is written in full");
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        char key[64];
        snprintf(key, sizeof key, "\"%s\": ", config_knob_get((config_knob)k)->name);
        CHECK(strstr(last, key) != NULL, "status has the knob %s", key);
    }
    app_destroy(a);
}

static void check_bad_script(void) {
    char path[] = "/tmp/nbody-test-script-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    const char text[] = "# ok\n10 K\n\n20 Ctrl+Z\n";
    CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "write");
    close(fd);
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = 10}, .script = path};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    CHECK(!app_create(&cfg, &status), "a script with an unknown key is refused at start-up");
    CHECK(status == 2, "as a bad command line: status %d", status);
    unlink(path);
}

/* +: a doubling is refused when its memory or its step time would be too
 * much (app_grow_refused, given estimates), the estimate counts what a step
 * needs (the sim's arrays, the tree's when it runs, the render's vertex
 * buffer, tags and staging, CUDA's sprites' tags), and an ordinary doubling
 * goes through. */
static void check_grow_guard(void) {
    char why[128];
    const app_grow fine = {.mem = {.host_need = 1e6, .host_free = 1e9}, .step_ms = 10};
    CHECK(!app_grow_refused(&fine, 2000, why, sizeof why), "a small doubling is fine");
    const app_grow host = {.mem = {.host_need = 2e9, .host_free = 1e9}};
    CHECK(app_grow_refused(&host, 2000, why, sizeof why) && strstr(why, "host memory"),
          "host memory: %s", why);
    const app_grow dev = {
        .mem = {.host_need = 1e6, .host_free = 1e9, .device_need = 3e9, .device_free = 2e9}};
    CHECK(app_grow_refused(&dev, 2000, why, sizeof why) && strstr(why, "GPU memory"),
          "GPU memory: %s", why);
    const app_grow slow = {.mem = {.host_need = 1e6, .host_free = 1e9},
                           .step_ms_from = 1000,
                           .n_from = 1000,
                           .step_ms = APP_STEP_MS_MAX + 1};
    CHECK(app_grow_refused(&slow, 2000, why, sizeof why) && strstr(why, "would take about") &&
              strstr(why, "at 1000"),
          "step time: %s", why);
    const app_grow unknown = {.mem = {.host_need = 1e12}, .step_ms = 0}; /* nothing known */
    CHECK(!app_grow_refused(&unknown, 2000, why, sizeof why), "unknowns do not refuse");

    /* The drawing's share (interop_memory) is what interop/, render/ and
     * splat/ allocate per body: on the zero-copy path with CUDA's sprites
     * the vertex buffer and its tags, 16 bits a body (render_reserve_bodies),
     * the sprites' copy of the tags (splat_set_tags) and the vertices CUDA
     * draws them from without a map (interop.c), all on the GPU; on the
     * host copy the staging buffer too, on the host; on the CPU backend
     * all of it on the host. (splat_create asks no device, so this runs
     * without a GPU.) */
    const int m = 1000;
    interop io;
    interop_init(&io, true, false);
    CHECK(interop_cuda_sprites(&io), "zero copy: CUDA may draw the sprites");
    sim_memory mem = {0};
    interop_memory(&io, true, m, &mem);
    CHECK(mem.device_need == (sizeof(render_vertex) + 2.0 + 2.0 + sizeof(sim_vertex)) * m &&
              mem.host_need == 0,
          "zero copy: %.0f bytes on the GPU, %.0f on the host", mem.device_need, mem.host_need);
    interop_destroy(&io);
    interop_init(&io, true, true);
    mem = (sim_memory){0};
    interop_memory(&io, true, m, &mem);
    CHECK(mem.device_need == (sizeof(render_vertex) + 2.0) * m &&
              mem.host_need == (double)sizeof(sim_vertex) * m,
          "host copy: %.0f bytes on the GPU, %.0f on the host", mem.device_need, mem.host_need);
    interop_destroy(&io);
    interop_init(&io, false, false);
    mem = (sim_memory){0};
    interop_memory(&io, false, m, &mem);
    CHECK(mem.device_need == 0 &&
              mem.host_need == (sizeof(render_vertex) + 2.0 + sizeof(sim_vertex)) * m,
          "CPU backend: %.0f bytes on the GPU, %.0f on the host", mem.device_need, mem.host_need);
    interop_destroy(&io);

    /* Nothing measured yet: a pilot is timed (at the new N, below APP_PILOT_N). */
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_BEST, 0, 0);
    const int n = 1000;
    app_grow g = app_grow_estimate(a, 2 * n);
    CHECK(g.n_from == 2 * n && g.step_ms > 0 && g.step_ms == g.step_ms_from,
          "no step yet: a pilot of %d bodies, %.3g ms", g.n_from, g.step_ms);
    app_destroy(a);

    /* The running simulation's own step time, as the frame records it. */
    a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_BEST, 0, 0);
    app_ladder_update(a);
    sim_step(a->sim, 2);
    app_ladder_update(a);
    g = app_grow_estimate(a, 2 * n);
    /* at least the CPU's pos, pos_next, vel, acc, acc_next, phi, tags, the
     * reset's bodies and tags, the vertex buffer, its tags and staging */
    const double least =
        2.0 * n * (18 * sizeof(double) + 1 + sizeof(sim_body) + 1 + 2 * sizeof(sim_vertex) + 1);
    CHECK(g.mem.host_need >= least && g.mem.device_need == 0, "host need %.0f, at least %.0f",
          g.mem.host_need, least);
    CHECK(g.n_from == n && fabs(g.step_ms / g.step_ms_from - 4) < 1e-9,
          "all pairs: 4x the step time (%.3g -> %.3g ms, from N = %d)", g.step_ms_from, g.step_ms,
          g.n_from);
    /* After a re-seed with no step in between, still from the N the time
     * was measured at: + twice in one frame estimates 4 N from N. */
    sim_params p = press(a, GLFW_KEY_EQUAL, SHIFT);
    CHECK(p.body_count == 2 * n, "+ from %d: %d (%s)", n, p.body_count, a->msg.text);
    const app_grow again = app_grow_estimate(a, 4 * n);
    CHECK(again.n_from == n && fabs(again.step_ms / g.step_ms_from - 16) < 1e-9,
          "after a re-seed: 16x from N = %d (%.3g ms at 4 N)", again.n_from, again.step_ms);
    CHECK(sim_set_variant(a->sim, SIM_VARIANT_TREE, NULL), "tree");
    app_ladder_update(a);
    sim_step(a->sim, 2);
    app_ladder_update(a);
    const app_grow t = app_grow_estimate(a, 4 * n);
    const double nlogn = 2.0 * log2(4.0 * n) / log2(2.0 * n);
    CHECK(t.mem.host_need > g.mem.host_need, "the tree's arrays counted: %.0f vs %.0f",
          t.mem.host_need, g.mem.host_need);
    CHECK(t.n_from == 2 * n && fabs(t.step_ms / t.step_ms_from - nlogn) < 1e-9,
          "tree: N log N (x%.3f)", t.step_ms / t.step_ms_from);
    if (g.mem.host_free > 0) {
        const app_grow huge = app_grow_estimate(a, 2147483647);
        CHECK(huge.mem.host_need > huge.mem.host_free &&
                  app_grow_refused(&huge, 2147483647, why, sizeof why),
              "2^31 - 1 bodies: %.0f bytes against %.0f free", huge.mem.host_need,
              huge.mem.host_free);
    }
    /* The drawing is charged for the bodies drawn alone (app_drawn_estimate):
     * with --draw-max 100, 100 of 4000 (1 in 40), 98 of 4001 (1 in 41). */
    const app_grow all = app_grow_estimate(a, 4000);
    a->cfg.draw_max = 100;
    CHECK(app_drawn_estimate(a, 4000, &all.mem) == 100 &&
              app_drawn_estimate(a, 4001, &all.mem) == 98 &&
              app_drawn_estimate(a, 50, &all.mem) == 50,
          "--draw-max 100: %d of 4000, %d of 4001, %d of 50", app_drawn_estimate(a, 4000, &all.mem),
          app_drawn_estimate(a, 4001, &all.mem), app_drawn_estimate(a, 50, &all.mem));
    const app_grow some = app_grow_estimate(a, 4000);
    const double per_drawn = sizeof(render_vertex) + 2.0 + sizeof(sim_vertex); /* CPU: host */
    CHECK(fabs(all.mem.host_need - some.mem.host_need - per_drawn * 3900) < 0.5,
          "the drawing charged for 100 of 4000: %.0f bytes less, %.0f expected",
          all.mem.host_need - some.mem.host_need, per_drawn * 3900);
    a->cfg.draw_max = 0;
    app_destroy(a);
}

/* app_step_frame: slow steps go one at a time with the front-end's poll
 * between them, and stop when the input quits or pauses. fe.poll_ms is set
 * to a tiny value so any measured step counts as slow. */
typedef struct poll_probe {
    app *a;
    int calls, quit_at, pause_at;
} poll_probe;

static void probe_poll(void *ctx) {
    poll_probe *pp = ctx;
    pp->calls++;
    if (pp->calls == pp->quit_at) pp->a->fe.quit = true;
    if (pp->calls == pp->pause_at) pp->a->live.paused = true;
}

static void check_poll(void) {
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_BEST, 0, 0);
    poll_probe pp = {.a = a};
    a->live.steps_per_frame = 5;
    a->fe.poll = probe_poll;
    a->fe.poll_ctx = &pp;
    a->fe.poll_ms = 1e-9;
    app_step_frame(a); /* no step time yet: one call, no poll */
    CHECK(sim_get_params(a->sim).steps == 5 && pp.calls == 0, "first frame: %lld steps, %d polls",
          (long long)sim_get_params(a->sim).steps, pp.calls);
    app_step_frame(a);
    CHECK(sim_get_params(a->sim).steps == 10 && pp.calls == 5, "slow: %lld steps, %d polls",
          (long long)sim_get_params(a->sim).steps, pp.calls);
    pp.quit_at = pp.calls + 2;
    app_step_frame(a);
    CHECK(sim_get_params(a->sim).steps == 12 && a->fe.quit, "quit after the 2nd step: %lld",
          (long long)sim_get_params(a->sim).steps);
    a->fe.quit = false;
    pp.pause_at = pp.calls + 3;
    app_step_frame(a);
    CHECK(sim_get_params(a->sim).steps == 15 && a->live.paused, "paused after the 3rd step: %lld",
          (long long)sim_get_params(a->sim).steps);
    a->fe.poll_ms = 1e12; /* nothing is slow now */
    const int calls = pp.calls;
    app_step_frame(a);
    CHECK(sim_get_params(a->sim).steps == 20 && pp.calls == calls, "fast: %lld steps, %d polls",
          (long long)sim_get_params(a->sim).steps, pp.calls - calls);
    app_destroy(a);
}

static void check_cuda_variants(void) {
    if (sim_cuda_device_count(NULL, 0) == 0) {
        printf("no CUDA device: K on the CUDA backend not checked\n");
        return;
    }
    app *a = make_app(SIM_BACKEND_CUDA, SIM_VARIANT_DEFAULT, 0, 0);
    sim_params p = sim_get_params(a->sim);
    CHECK(p.variant == SIM_VARIANT_BEST, "starts on best");
    /* K walks the whole ladder (the tree included) and wraps; Shift+K walks back. */
    sim_variant seen[SIM_VARIANT_COUNT];
    for (int i = 0; i < SIM_VARIANT_COUNT - 1; i++) {
        p = press(a, GLFW_KEY_K, 0);
        seen[i] = p.variant;
        CHECK(strstr(a->msg.text, sim_variant_info(p.variant)->name) != NULL, "K: %s", a->msg.text);
    }
    CHECK(p.variant == SIM_VARIANT_BEST, "K wraps around to best");
    CHECK(seen[0] == SIM_VARIANT_FP64 && seen[1] == SIM_VARIANT_TREE &&
              seen[2] == SIM_VARIANT_NAIVE,
          "K order: fp64, tree, naive");
    p = press(a, GLFW_KEY_K, SHIFT);
    CHECK(p.variant == SIM_VARIANT_FAST, "Shift+K: back to fast");
    /* A one-thread-per-body variant takes no q: Q is clamped with its reason. */
    while (p.variant != SIM_VARIANT_RSQRT) p = press(a, GLFW_KEY_K, SHIFT);
    CHECK(p.q == 1, "rsqrt: q = 1");
    p = press(a, GLFW_KEY_Q, 0);
    CHECK(p.q == 1 && strstr(a->msg.text, "one thread per body"), "Q on rsqrt: %s", a->msg.text);
    /* P and Q shape a tile kernel on the GPU (the CPU backend refuses them). */
    while (p.variant != SIM_VARIANT_FAST) p = press(a, GLFW_KEY_K, 0);
    sim_set_block(a->sim, 64, 2);
    p = press(a, GLFW_KEY_P, 0);
    CHECK(p.p == 128 && p.q == 2, "P: %dx%d (%s)", p.p, p.q, a->msg.text);
    p = press(a, GLFW_KEY_Q, 0);
    CHECK(p.p == 128 && p.q == 4, "Q: %dx%d (%s)", p.p, p.q, a->msg.text);
    p = press(a, GLFW_KEY_Q, SHIFT);
    CHECK(p.p == 128 && p.q == 2, "Shift+Q: %dx%d", p.p, p.q);
    char json[32];
    app_knob_json(a, CONFIG_KNOB_P, json, sizeof json);
    CHECK(strcmp(json, "128") == 0, "status p on the GPU: %s", json);
    app_destroy(a);
}

/* The camera keys: arrows orbit by APP_ORBIT_STEP_DEG (Shift: the fine
 * step) as a drag that way would, Page Up / Down zoom by a wheel step
 * (Shift: a quarter), Home brings back the scene's camera. */
static void check_camera_keys(void) {
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_DEFAULT, 0, 0);
    app_scene_view(a, a->scene);
    const render_camera c0 = a->view.camera;
    const double rad = 3.14159265358979 / 180;
    const struct {
        int key, mods;
        double yaw_deg, pitch_deg, zoom; /* expected change from c0 */
    } step[] = {
        {GLFW_KEY_LEFT, 0, APP_ORBIT_STEP_DEG, 0, 1},
        {GLFW_KEY_RIGHT, 0, -APP_ORBIT_STEP_DEG, 0, 1},
        {GLFW_KEY_LEFT, SHIFT, APP_ORBIT_FINE_DEG, 0, 1},
        {GLFW_KEY_UP, 0, 0, -APP_ORBIT_STEP_DEG, 1},
        {GLFW_KEY_DOWN, 0, 0, APP_ORBIT_STEP_DEG, 1},
        {GLFW_KEY_DOWN, SHIFT, 0, APP_ORBIT_FINE_DEG, 1},
        {GLFW_KEY_PAGE_UP, 0, 0, 0, 0.9},
        {GLFW_KEY_PAGE_DOWN, 0, 0, 0, 1 / 0.9},
        {GLFW_KEY_PAGE_UP, SHIFT, 0, 0, 0.974},
    };
    for (size_t i = 0; i < sizeof step / sizeof step[0]; i++) {
        a->view.camera = c0;
        press(a, step[i].key, step[i].mods);
        const render_camera *c = &a->view.camera;
        CHECK(fabs(c->yaw - (c0.yaw + step[i].yaw_deg * rad)) < 1e-5 &&
                  fabs(c->pitch - (c0.pitch + step[i].pitch_deg * rad)) < 1e-5 &&
                  fabs(c->distance / c0.distance - step[i].zoom) < 1e-3,
              "camera key #%zu: yaw %+.2f deg, pitch %+.2f deg, distance x%.4f", i,
              (c->yaw - c0.yaw) / rad, (c->pitch - c0.pitch) / rad, c->distance / c0.distance);
    }
    /* Fly somewhere, change the look, then Home: the scene's camera, the look kept. */
    a->view.camera = c0;
    for (int i = 0; i < 7; i++) press(a, GLFW_KEY_LEFT, 0);
    press(a, GLFW_KEY_UP, 0);
    press(a, GLFW_KEY_PAGE_DOWN, 0);
    app_pan(a, 40, 10, 720);
    press(a, GLFW_KEY_C, 0);
    const render_color color = a->view.color;
    CHECK(a->view.camera.yaw != c0.yaw && a->view.camera.distance != c0.distance, "flown away");
    press(a, GLFW_KEY_HOME, 0);
    CHECK(memcmp(&a->view.camera, &c0, sizeof c0) == 0, "Home: the scene's camera again");
    CHECK(a->view.color == color, "Home keeps the colour mode");

    /* F11 headless: nothing changes, and it says why. */
    CHECK(a->cfg.headless, "a headless app");
    press(a, GLFW_KEY_F11, 0);
    CHECK(!a->ui.shown[UI_OVERLAY_HELP] && !a->fe.fullscreen && !a->fe.fullscreen_changed &&
              strstr(a->msg.text, "does not apply headless"),
          "F11 headless: '%s'", a->msg.text);
    app_destroy(a);
}

/* The HUD's and help's words: no kernel talk on the CPU, singular and
 * plural, the energy warning past UI_ENERGY_WARN. */
static void check_hud_text(void) {
    static char text[16384];
    app *a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_DEFAULT, 0, 0);
    hud_text(a, true, text, sizeof text);
    CHECK(strstr(text, "nbody: keys and mouse") && strstr(text, "F11"), "the help text");
    CHECK(!strstr(text, " p = ") && !strstr(text, " q = "), "CPU help: no p / q lines:\n%s", text);
    CHECK(strstr(text, "K steps through the CPU's methods: reference, tree"),
          "CPU help says what K does");

    hud_text(a, false, text, sizeof text);
    CHECK(strstr(text, "1,000 bodies") && strstr(text, " 1 step/frame") &&
              !strstr(text, "steps/frame"),
          "plural bodies, singular step:\n%s", text);
    CHECK(sim_reset(a->sim, SIM_IC_PLUMMER, 1, 1, NULL), "one body");
    a->live.steps_per_frame = 2;
    hud_text(a, false, text, sizeof text);
    CHECK(strstr(text, "\n1 body ") && strstr(text, "2 steps/frame") && !strstr(text, "bodies"),
          "singular body, plural steps:\n%s", text);

    /* Energy: just inside the threshold a plain line, just outside a warning. */
    a->live.diag_valid = a->live.energy0_valid = true;
    a->live.energy0 = -2.0;
    a->live.diag.total = -2.0 * (1 - 0.9 * UI_ENERGY_WARN);
    hud_text(a, false, text, sizeof text);
    CHECK(strstr(text, "ΔE/E₀") && !strstr(text, "energy not conserved"),
          "%.2g of the threshold: no warning:\n%s", 0.9, text);
    a->live.diag.total = -2.0 * (1 + 1.1 * UI_ENERGY_WARN);
    hud_text(a, false, text, sizeof text);
    CHECK(strstr(text, "energy not conserved") && strstr(text, "Shift+T"),
          "%.2g of the threshold: the warning:\n%s", 1.1, text);
    a->live.diag.total = -2.0 * (1 - 1.1 * UI_ENERGY_WARN);
    hud_text(a, false, text, sizeof text);
    CHECK(strstr(text, "energy not conserved"), "a loss warns as a gain does");

    /* Galaxies: Myr and kpc beside the model units. */
    press(a, GLFW_KEY_3, 0);
    hud_text(a, false, text, sizeof text);
    CHECK(strstr(text, " Myr") && strstr(text, "kpc)"), "galaxy units:\n%s", text);
    press(a, GLFW_KEY_1, 0);
    hud_text(a, false, text, sizeof text);
    CHECK(!strstr(text, "Myr") && !strstr(text, "kpc"), "none in a Plummer sphere");
    app_destroy(a);
}

int main(void) {
    check_knobs();
    check_camera();
    check_camera_keys();
    check_hud_text();
    check_key_names();
    check_scene_paths();
    check_status_line();
    check_bad_script();
    check_grow_guard();
    check_poll();
    check_cuda_variants();
    return test_exit("test_keys");
}
