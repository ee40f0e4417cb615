/* test_keys.c - the key table does what the help says, clamps included.
 *
 * Drives app_key() - the function behind both the window's keyboard and
 * --script - on an app with the CPU backend (no GL needed: keys only change
 * state), and checks the state after each press. Where a CUDA device is
 * present it also walks K / Shift+K through every kernel variant and checks
 * the block-shape clamps of a one-thread-per-body variant.
 */
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "test_util.h"

static app make_app(sim_backend backend, sim_variant v, int p, int q) {
    app a = {0};
    a.cfg.sim = (sim_desc){.backend = backend, .body_count = 1000, .variant = v, .p = p, .q = q};
    a.cfg.n_given = true;
    a.cfg.steps_per_frame = 1;
    a.cfg.headless = true;
    if (!app_create_sim(&a)) exit(1);
    return a;
}

static sim_params press(app *a, int key, int mods) {
    a->message[0] = 0;
    app_key(a, key, mods);
    return sim_get_params(a->sim);
}

#define SHIFT GLFW_MOD_SHIFT

static void check_knobs(void) {
    /* fast: a p x q tile kernel, whose clamps the CPU backend applies too */
    app a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_FAST, 64, 2);
    sim_params p = sim_get_params(a.sim);
    CHECK(p.damping == 1.0f, "damping starts at 1");

    /* D doubles 1 - d from 1e-4; Shift+D halves it and snaps to 1 below 1e-4. */
    const double expect_up[] = {0.9999, 0.9998, 0.9996, 0.9992};
    for (int i = 0; i < 4; i++) {
        p = press(&a, GLFW_KEY_D, 0);
        CHECK(fabs(p.damping - expect_up[i]) < 1e-6, "D #%d: damping %.7f, want %.4f", i + 1,
              p.damping, expect_up[i]);
    }
    const double expect_down[] = {0.9996, 0.9998, 0.9999, 1.0};
    for (int i = 0; i < 4; i++) {
        p = press(&a, GLFW_KEY_D, SHIFT);
        CHECK(fabs(p.damping - expect_down[i]) < 1e-6, "Shift+D #%d: damping %.7f, want %.4f",
              i + 1, p.damping, expect_down[i]);
    }
    CHECK(p.damping == 1.0f, "damping back to exactly 1, not %.9f", p.damping);
    for (int i = 0; i < 20; i++) p = press(&a, GLFW_KEY_D, 0);
    CHECK(p.damping >= 0.5f - 1e-6f, "damping is capped at 0.5: %.5f", p.damping);
    for (int i = 0; i < 20; i++) p = press(&a, GLFW_KEY_D, SHIFT);
    CHECK(p.damping == 1.0f, "many Shift+D: damping off");

    /* S, T: x2 and /2; the time step is kept within [1e-6, 1]. */
    p = press(&a, GLFW_KEY_S, 0);
    CHECK(p.softening == 0.1f, "S: softening %.4f", p.softening);
    p = press(&a, GLFW_KEY_S, SHIFT);
    CHECK(p.softening == 0.05f, "Shift+S: softening %.4f", p.softening);
    sim_set_softening(a.sim, 0);
    p = press(&a, GLFW_KEY_S, 0);
    CHECK(p.softening == 1e-3f, "S from zero softening: %.4g", p.softening);
    p = press(&a, GLFW_KEY_T, 0);
    CHECK(p.dt == 1.0f / 64, "T: dt %.6f", p.dt);
    p = press(&a, GLFW_KEY_T, SHIFT);
    CHECK(p.dt == 1.0f / 128, "Shift+T: dt %.6f", p.dt);
    sim_set_dt(a.sim, 1.0f);
    p = press(&a, GLFW_KEY_T, 0);
    CHECK(p.dt == 1.0f && strstr(a.message, "stays"), "T clamps at 1: %g (%s)", p.dt, a.message);

    /* + and - double and halve N in the same scene (keypad keys too) and keep the view. */
    a.camera.distance = 7.5f;
    a.color = RENDER_COLOR_BODY;
    p = press(&a, GLFW_KEY_EQUAL, SHIFT);
    CHECK(p.body_count == 2000 && p.ic == SIM_IC_PLUMMER, "+: N %d", p.body_count);
    CHECK(a.camera.distance == 7.5f && a.color == RENDER_COLOR_BODY, "+ keeps camera and colour");
    a.color = RENDER_COLOR_SPEED;
    p = press(&a, GLFW_KEY_KP_SUBTRACT, 0);
    CHECK(p.body_count == 1000, "keypad -: N %d", p.body_count);
    p = press(&a, GLFW_KEY_KP_ADD, 0);
    CHECK(p.body_count == 2000, "keypad +: N %d", p.body_count);
    p = press(&a, GLFW_KEY_MINUS, 0);
    CHECK(p.body_count == 1000, "-: N %d", p.body_count);

    /* Scenes and seeds. */
    p = press(&a, GLFW_KEY_2, 0);
    CHECK(p.ic == SIM_IC_SHELL && p.body_count == 1000, "2: shell");
    p = press(&a, GLFW_KEY_1, 0);
    CHECK(p.ic == SIM_IC_PLUMMER, "1: Plummer");
    /* Galaxies: own units, so own N, dt and softening; N kept among them. */
    p = press(&a, GLFW_KEY_3, 0);
    CHECK(p.ic == SIM_IC_DISK && p.body_count == 8192 && p.dt == 0.025f, "3: disk, N %d, dt %g",
          p.body_count, p.dt);
    CHECK(a.hide_halo && a.color == RENDER_COLOR_COMPONENT, "3: halo hidden, by component");
    p = press(&a, GLFW_KEY_MINUS, 0);
    p = press(&a, GLFW_KEY_4, 0);
    CHECK(p.ic == SIM_IC_MERGER && p.body_count == 4096, "4: merger keeps N %d", p.body_count);
    const sim_diag m = sim_moments(a.sim);
    CHECK(m.galaxy_mass[0] > 0 && fabs(m.galaxy_mass[1] / m.galaxy_mass[0] - 1) < 1e-9,
          "4: equal masses %.3f %.3f", m.galaxy_mass[0], m.galaxy_mass[1]);
    p = press(&a, GLFW_KEY_6, 0);
    const sim_diag m6 = sim_moments(a.sim);
    CHECK(fabs(m6.galaxy_mass[1] / m6.galaxy_mass[0] - 0.25) < 1e-6, "6: 1:4, %.4f",
          m6.galaxy_mass[1] / m6.galaxy_mass[0]);
    p = press(&a, GLFW_KEY_7, 0);
    const sim_diag m7 = sim_moments(a.sim);
    CHECK(fabs(m7.galaxy_mass[1] / m7.galaxy_mass[0] - 1.6) < 1e-6, "7: 1:1.6, %.4f",
          m7.galaxy_mass[1] / m7.galaxy_mass[0]);
    p = press(&a, GLFW_KEY_1, 0);
    CHECK(p.ic == SIM_IC_PLUMMER && p.body_count == 4096 && p.dt == 1.0f / 128 &&
              p.softening == 0.05f,
          "1 from a galaxy: Plummer at its own N %d, dt and softening", p.body_count);
    sim_reset(a.sim, SIM_IC_PLUMMER, 1000, p.seed, NULL);
    const uint64_t seed = p.seed;
    p = press(&a, GLFW_KEY_R, 0);
    CHECK(p.seed == seed + 1 && p.time == 0, "R: next seed, time 0");

    /* The CPU backend has one kernel. */
    const sim_variant v = p.variant;
    p = press(&a, GLFW_KEY_K, 0);
    CHECK(p.variant == v && strstr(a.message, "CPU"), "K on the CPU backend: %s", a.message);

    /* p and q double and halve; p x q over 1024 threads is clamped with a reason. */
    p = press(&a, GLFW_KEY_P, 0);
    CHECK(p.p == 128 && p.q == 2, "P: %dx%d", p.p, p.q);
    p = press(&a, GLFW_KEY_Q, 0);
    CHECK(p.p == 128 && p.q == 4, "Q: %dx%d", p.p, p.q);
    p = press(&a, GLFW_KEY_P, 0);
    CHECK(p.p == 256 && p.q == 4, "P: %dx%d", p.p, p.q);
    p = press(&a, GLFW_KEY_P, 0);
    CHECK(p.p == 256 && p.q == 4 && strstr(a.message, "p x q"), "P past 1024 threads: %dx%d (%s)",
          p.p, p.q, a.message);
    p = press(&a, GLFW_KEY_Q, SHIFT);
    CHECK(p.p == 256 && p.q == 2, "Shift+Q: %dx%d", p.p, p.q);
    p = press(&a, GLFW_KEY_P, SHIFT);
    CHECK(p.p == 128 && p.q == 2, "Shift+P: %dx%d", p.p, p.q);

    /* best: p is whole warps; q, blocks per SM, at most what fits (4 without a device). */
    sim_error err = {0};
    CHECK(sim_set_variant(a.sim, SIM_VARIANT_BEST, &err), "best");
    sim_block blk = sim_set_block(a.sim, 100, 2);
    CHECK(blk.p == 96 && blk.q == 2 && blk.clamped && strstr(blk.reason, "warps"),
          "best 100 x 2 -> %dx%d (%s)", blk.p, blk.q, blk.reason);
    blk = sim_set_block(a.sim, 256, 64);
    CHECK(blk.p == 256 && blk.q < 64 && blk.clamped, "best 256 x 64 -> %dx%d (%s)", blk.p, blk.q,
          blk.reason);
    CHECK(sim_set_variant(a.sim, SIM_VARIANT_FAST, &err), "fast");
    sim_set_block(a.sim, 128, 2);

    /* Loop and view toggles. */
    CHECK(!a.paused, "running at start");
    press(&a, GLFW_KEY_PERIOD, 0);
    CHECK(!a.step_once, ". while running does not step");
    press(&a, GLFW_KEY_SPACE, 0);
    CHECK(a.paused, "Space pauses");
    press(&a, GLFW_KEY_PERIOD, 0);
    CHECK(a.step_once, ". while paused steps once");
    press(&a, GLFW_KEY_SPACE, 0);
    CHECK(!a.paused, "Space runs");
    const render_color order[] = {RENDER_COLOR_BODY, RENDER_COLOR_GALAXY, RENDER_COLOR_COMPONENT,
                                  RENDER_COLOR_SPEED};
    for (int i = 0; i < 4; i++) {
        press(&a, GLFW_KEY_C, 0);
        CHECK(a.color == order[i], "C #%d: colour mode %d, want %d", i + 1, a.color, order[i]);
    }
    /* Exposure: E, Shift+E scale by 1.25 and leave the automatic mode; A, B, O toggle. */
    a.auto_exposure = false;
    a.exposure = 1.0f;
    press(&a, GLFW_KEY_E, 0);
    CHECK(fabsf(a.exposure - 1.25f) < 1e-6f, "E: exposure %.4f", a.exposure);
    press(&a, GLFW_KEY_E, SHIFT);
    press(&a, GLFW_KEY_E, SHIFT);
    CHECK(fabsf(a.exposure - 0.8f) < 1e-6f, "Shift+E twice: exposure %.4f", a.exposure);
    press(&a, GLFW_KEY_A, 0);
    CHECK(a.auto_exposure, "A: automatic exposure");
    const bool bloom = a.bloom, halo = a.hide_halo;
    press(&a, GLFW_KEY_B, 0);
    CHECK(a.bloom != bloom, "B toggles bloom");
    press(&a, GLFW_KEY_O, 0);
    CHECK(a.hide_halo != halo, "O toggles the halo");
    const bool vs = a.vsync;
    press(&a, GLFW_KEY_V, 0);
    CHECK(a.vsync != vs && a.vsync_changed, "V toggles vsync");
    press(&a, GLFW_KEY_H, 0);
    CHECK(a.help, "H opens help");
    press(&a, GLFW_KEY_F1, 0);
    CHECK(!a.help, "F1 closes help");
    const bool hud = a.hud;
    press(&a, GLFW_KEY_TAB, 0);
    CHECK(a.hud != hud, "Tab toggles the HUD");
    press(&a, GLFW_KEY_F12, 0);
    CHECK(a.screenshot_requested, "F12 asks for a screenshot");
    press(&a, GLFW_KEY_G, 0);
    CHECK(a.follow_com, "G follows the centre of mass");
    a.camera.distance = 100;
    press(&a, GLFW_KEY_F, 0);
    CHECK(a.camera.distance > 0.5f && a.camera.distance < 10, "F fits: distance %.3f",
          a.camera.distance);
    press(&a, GLFW_KEY_ESCAPE, 0);
    CHECK(a.quit, "Esc quits");
    app_destroy(&a);
}

/* The mouse's camera moves: orbit, pan, zoom (the window's callbacks call these). */
static void check_camera(void) {
    app a = make_app(SIM_BACKEND_CPU, SIM_VARIANT_DEFAULT, 0, 0);
    const render_camera c0 = a.camera;
    app_zoom(&a, 1);
    CHECK(fabsf(a.camera.distance - 0.9f * c0.distance) < 1e-5f, "scroll zooms by 10 %%: %.4f",
          a.camera.distance);
    app_zoom(&a, -1);
    CHECK(fabsf(a.camera.distance - c0.distance) < 1e-5f, "and back");
    app_orbit(&a, 100, 0);
    CHECK(a.camera.yaw != c0.yaw && a.camera.pitch == c0.pitch, "horizontal drag turns the yaw");
    app_orbit(&a, 0, 1e6);
    CHECK(a.camera.pitch <= 1.55f && a.camera.pitch > 1.5f, "pitch stops short of the pole: %.3f",
          a.camera.pitch);
    a.follow_com = true;
    app_pan(&a, 50, -20, 720);
    const float moved =
        fabsf(a.camera.target[0]) + fabsf(a.camera.target[1]) + fabsf(a.camera.target[2]);
    CHECK(moved > 0 && !a.follow_com, "pan moves the target and stops following: %.4f", moved);
    app_destroy(&a);
}

static void check_key_names(void) {
    int key, mods;
    CHECK(app_key_parse("Shift+P", &key, &mods) && key == GLFW_KEY_P && mods == GLFW_MOD_SHIFT,
          "Shift+P");
    CHECK(app_key_parse("k", &key, &mods) && key == GLFW_KEY_K && mods == 0, "k");
    CHECK(app_key_parse("7", &key, &mods) && key == GLFW_KEY_7, "7");
    CHECK(app_key_parse("Space", &key, &mods) && key == GLFW_KEY_SPACE, "Space");
    CHECK(app_key_parse("+", &key, &mods) && key == GLFW_KEY_EQUAL, "+");
    CHECK(app_key_parse(".", &key, &mods) && key == GLFW_KEY_PERIOD, ".");
    CHECK(app_key_parse("F12", &key, &mods) && key == GLFW_KEY_F12, "F12");
    CHECK(!app_key_parse("Ctrl+X", &key, &mods), "Ctrl+X is not a key here");
    CHECK(!app_key_parse("", &key, &mods), "empty");
    const char *label, *text;
    int n = 0;
    while (app_key_help(n, &label, &text)) n++;
    CHECK(n >= 27, "help lists every binding and the mouse: %d lines", n);
}

static void check_bad_script(void) {
    char path[] = "/tmp/nbody-test-script-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "temp file");
    const char text[] = "# ok\n10 K\n\n20 Ctrl+Z\n";
    CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "write");
    close(fd);
    app a = {0};
    a.cfg.sim = (sim_desc){.backend = SIM_BACKEND_CPU, .body_count = 10};
    a.cfg.script = path;
    CHECK(!app_create_sim(&a), "a script with an unknown key is refused at start-up");
    CHECK(a.sim == NULL, "and nothing was created");
    unlink(path);
}

static void check_cuda_variants(void) {
    if (sim_cuda_device_count(NULL, 0) == 0) {
        printf("no CUDA device: K on the CUDA backend not checked\n");
        return;
    }
    app a = make_app(SIM_BACKEND_CUDA, SIM_VARIANT_DEFAULT, 0, 0);
    sim_params p = sim_get_params(a.sim);
    CHECK(p.variant == SIM_VARIANT_BEST, "starts on best");
    /* K walks the whole ladder and wraps; Shift+K walks back. */
    sim_variant seen[SIM_VARIANT_COUNT];
    for (int i = 0; i < SIM_VARIANT_COUNT - 1; i++) {
        p = press(&a, GLFW_KEY_K, 0);
        seen[i] = p.variant;
        CHECK(strstr(a.message, sim_variant_info(p.variant)->name) != NULL, "K: %s", a.message);
    }
    CHECK(p.variant == SIM_VARIANT_BEST, "K wraps around to best");
    CHECK(seen[0] == SIM_VARIANT_FP64 && seen[1] == SIM_VARIANT_NAIVE, "K order: fp64, naive");
    p = press(&a, GLFW_KEY_K, SHIFT);
    CHECK(p.variant == SIM_VARIANT_FAST, "Shift+K: back to fast");
    /* A one-thread-per-body variant takes no q: Q is clamped with its reason. */
    while (p.variant != SIM_VARIANT_RSQRT) p = press(&a, GLFW_KEY_K, SHIFT);
    CHECK(p.q == 1, "rsqrt: q = 1");
    p = press(&a, GLFW_KEY_Q, 0);
    CHECK(p.q == 1 && strstr(a.message, "one thread per body"), "Q on rsqrt: %s", a.message);
    app_destroy(&a);
}

int main(void) {
    check_knobs();
    check_camera();
    check_key_names();
    check_bad_script();
    check_cuda_variants();
    return test_exit("test_keys");
}
