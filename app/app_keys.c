/* app_keys.c - every key binding, in one table.
 *
 * The window's key callback and --script both call app_key(), so a script
 * exercises exactly what a person's fingers do. The help overlay and
 * `nbody --help` list this same table, so they cannot drift from it. Every
 * knob is live: nothing restarts, and only a scene or N change re-seeds.
 * A change the variant or GPU cannot take is clamped, and the HUD says why.
 */
#include <GLFW/glfw3.h> /* key codes and modifier bits only */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app.h"

#define DAMPING_GAP_MIN 1e-4 /* the first step of D: damping 0.9999 */
#define DAMPING_GAP_MAX 0.5
#define DT_MIN 1e-6f
#define DT_MAX 1.0f
#define SOFTENING_FIRST 1e-3f /* S from zero softening */
#define SOFTENING_MAX 10.0f

typedef enum shift_rule { UNSHIFTED, SHIFTED, EITHER } shift_rule;

typedef struct binding {
    int key, alt; /* GLFW key codes; alt 0 when none */
    shift_rule shift;
    const char *label; /* as the help overlay shows it */
    const char *help;
    void (*action)(app *a);
} binding;

static sim_params params(const app *a) {
    return sim_get_params(a->sim);
}

/* ---- kernel and block shape ---------------------------------------------- */

static void switch_variant(app *a, int step) {
    const sim_params p = params(a);
    if (p.backend == SIM_BACKEND_CPU) {
        app_message(a, "the CPU backend has one kernel: the double-precision reference");
        return;
    }
    int v = (int)p.variant;
    const int count = SIM_VARIANT_COUNT - 1; /* variants 1 .. COUNT-1 */
    v = (v - 1 + step + count) % count + 1;
    sim_error err = {0};
    if (!sim_set_variant(a->sim, (sim_variant)v, &err)) {
        app_message(a, "cannot switch to %s: %s", sim_variant_info((sim_variant)v)->name,
                    err.message);
        return;
    }
    const sim_params q = params(a);
    app_message(a, "kernel %s (%dx%d): %s", sim_variant_info(q.variant)->name, q.p, q.q,
                sim_variant_info(q.variant)->description);
}

static void variant_next(app *a) {
    switch_variant(a, 1);
}
static void variant_prev(app *a) {
    switch_variant(a, -1);
}

static void set_block(app *a, int p, int q) {
    const sim_params before = params(a);
    const sim_block b = sim_set_block(a->sim, p, q);
    if (b.clamped) {
        app_message(a, "p x q = %d x %d (asked %d x %d): %s", b.p, b.q, p, q, b.reason);
    } else if (b.p == before.p && b.q == before.q) {
        app_message(a, "p x q stays %d x %d", b.p, b.q);
    } else {
        app_message(a, "p x q = %d x %d", b.p, b.q);
    }
}

static void p_up(app *a) {
    set_block(a, params(a).p * 2, params(a).q);
}
static void p_down(app *a) {
    set_block(a, params(a).p > 1 ? params(a).p / 2 : 1, params(a).q);
}
static void q_up(app *a) {
    set_block(a, params(a).p, params(a).q * 2);
}
static void q_down(app *a) {
    set_block(a, params(a).p, params(a).q > 1 ? params(a).q / 2 : 1);
}

/* ---- physics knobs -------------------------------------------------------- */

static void apply_damping(app *a) {
    sim_set_damping(a->sim, (float)(1.0 - a->damping_gap));
    if (a->damping_gap == 0) {
        app_message(a, "damping off (1): energy is conserved again");
    } else {
        app_message(a, "damping %.6g per step", 1.0 - a->damping_gap);
    }
}

static void damping_more(app *a) {
    if (a->damping_gap == 0) {
        a->damping_gap = DAMPING_GAP_MIN;
    } else if (a->damping_gap * 2 <= DAMPING_GAP_MAX) {
        a->damping_gap *= 2;
    } else {
        app_message(a, "damping is at its strongest (%.3g)", 1.0 - a->damping_gap);
        return;
    }
    apply_damping(a);
}

static void damping_less(app *a) {
    a->damping_gap /= 2;
    if (a->damping_gap < DAMPING_GAP_MIN) a->damping_gap = 0;
    apply_damping(a);
}

static void set_softening(app *a, float eps) {
    sim_set_softening(a->sim, eps);
    a->energy0_valid = false; /* E is defined with the softening: start over */
    app_message(a, "softening %.4g", eps);
}

static void softening_up(app *a) {
    const float eps = params(a).softening;
    if (eps == 0) {
        set_softening(a, SOFTENING_FIRST);
    } else if (eps * 2 <= SOFTENING_MAX) {
        set_softening(a, eps * 2);
    } else {
        app_message(a, "softening stays %.4g (at most %g)", eps, SOFTENING_MAX);
    }
}

static void softening_down(app *a) {
    set_softening(a, params(a).softening / 2);
}

static void set_dt(app *a, float dt) {
    if (dt < DT_MIN || dt > DT_MAX) {
        app_message(a, "time step stays %.4g (kept within %g .. %g)", params(a).dt, DT_MIN, DT_MAX);
        return;
    }
    sim_set_dt(a->sim, dt);
    app_message(a, "time step %.4g", dt);
}

static void dt_up(app *a) {
    set_dt(a, params(a).dt * 2);
}
static void dt_down(app *a) {
    set_dt(a, params(a).dt / 2);
}

static void n_up(app *a) {
    const sim_params p = params(a);
    if (p.body_count > (1 << 29)) {
        app_message(a, "N stays %d", p.body_count);
        return;
    }
    app_reseed(a, p.ic, p.body_count * 2, p.seed);
}

static void n_down(app *a) {
    const sim_params p = params(a);
    if (p.body_count < 2) {
        app_message(a, "N stays 1");
        return;
    }
    app_reseed(a, p.ic, p.body_count / 2, p.seed);
}

/* ---- scenes --------------------------------------------------------------- */

#define SCENE(k)                                                                                   \
    static void scene_##k(app *a) {                                                                \
        app_preset_switch(a, (k)-1);                                                               \
    }
SCENE(1)
SCENE(2)
SCENE(3)
SCENE(4)
SCENE(5)
SCENE(6)
SCENE(7)
#undef SCENE

static void reseed(app *a) {
    app_reseed(a, params(a).ic, params(a).body_count, params(a).seed + 1);
}

/* ---- the loop and the view ------------------------------------------------ */

static void toggle_pause(app *a) {
    if (a->blown_up) {
        app_message(a, "the bodies blew up: R re-seeds (Shift+T first halves the time step)");
        return;
    }
    a->paused = !a->paused;
    app_message(a, a->paused ? "paused (. steps once)" : "running");
}

static void step_once(app *a) {
    if (!a->paused) {
        app_message(a, ". steps once while paused (Space pauses)");
        return;
    }
    a->step_once = true;
}

static void color_next(app *a) {
    static const char *const names[] = {"speed", "per body", "galaxy", "component"};
    _Static_assert(sizeof names / sizeof names[0] == RENDER_COLOR_COUNT, "one name per mode");
    a->color = (render_color)((a->color + 1) % RENDER_COLOR_COUNT);
    app_message(a, "colour by %s", names[a->color]);
}

static void set_exposure(app *a, float factor) {
    /* From automatic to manual at the exposure it had reached. */
    if (a->auto_exposure) a->exposure = render_exposure(a->render);
    a->auto_exposure = false;
    a->exposure *= factor;
    if (a->exposure < 1e-3f) a->exposure = 1e-3f;
    if (a->exposure > 1e3f) a->exposure = 1e3f;
    app_message(a, "exposure %.3g (A: automatic)", a->exposure);
}

static void exposure_up(app *a) {
    set_exposure(a, 1.25f);
}
static void exposure_down(app *a) {
    set_exposure(a, 1 / 1.25f);
}

static void exposure_auto(app *a) {
    a->auto_exposure = !a->auto_exposure;
    if (!a->auto_exposure && a->render) a->exposure = render_exposure(a->render);
    app_message(a, a->auto_exposure ? "automatic exposure" : "exposure fixed at %.3g", a->exposure);
}

static void bloom(app *a) {
    a->bloom = !a->bloom;
    app_message(a, a->bloom ? "bloom on" : "bloom off");
}

static void halo(app *a) {
    a->hide_halo = !a->hide_halo;
    app_message(a, a->hide_halo ? "dark halo hidden" : "dark halo shown");
}

static void vsync(app *a) {
    a->vsync = !a->vsync;
    a->vsync_changed = true;
    app_message(a, a->cfg.headless ? "vsync does not apply headless"
                   : a->vsync      ? "vsync on"
                                   : "vsync off");
}

static void help(app *a) {
    a->help = !a->help;
}
static void hud(app *a) {
    a->hud = !a->hud;
}
static void screenshot(app *a) {
    a->screenshot_requested = true;
}
static void quit(app *a) {
    a->quit = true;
}
static void fit(app *a) {
    app_fit_view(a);
}

static void follow(app *a) {
    a->follow_com = !a->follow_com;
    app_message(a, a->follow_com ? "camera follows the centre of mass (of the larger galaxy)"
                                 : "camera stays put");
}

static const binding bindings[] = {
    {GLFW_KEY_K, 0, UNSHIFTED, "K", "next kernel variant", variant_next},
    {GLFW_KEY_K, 0, SHIFTED, "Shift+K", "previous kernel variant", variant_prev},
    {GLFW_KEY_P, 0, UNSHIFTED, "P", "double p (bodies per tile / threads per block in x)", p_up},
    {GLFW_KEY_P, 0, SHIFTED, "Shift+P", "halve p", p_down},
    {GLFW_KEY_Q, 0, UNSHIFTED, "Q", "double q (threads per body)", q_up},
    {GLFW_KEY_Q, 0, SHIFTED, "Shift+Q", "halve q", q_down},
    {GLFW_KEY_D, 0, UNSHIFTED, "D", "more damping: 1-d doubles from 1e-4", damping_more},
    {GLFW_KEY_D, 0, SHIFTED, "Shift+D", "less damping; below 1e-4 it is off", damping_less},
    {GLFW_KEY_S, 0, UNSHIFTED, "S", "softening x2", softening_up},
    {GLFW_KEY_S, 0, SHIFTED, "Shift+S", "softening /2", softening_down},
    {GLFW_KEY_T, 0, UNSHIFTED, "T", "time step x2", dt_up},
    {GLFW_KEY_T, 0, SHIFTED, "Shift+T", "time step /2", dt_down},
    {GLFW_KEY_EQUAL, GLFW_KEY_KP_ADD, EITHER, "+", "N x2, same scene, re-seeded", n_up},
    {GLFW_KEY_MINUS, GLFW_KEY_KP_SUBTRACT, EITHER, "-", "N /2, same scene, re-seeded", n_down},
    {GLFW_KEY_1, 0, EITHER, "1", "Plummer sphere", scene_1},
    {GLFW_KEY_2, 0, EITHER, "2", "rotating shell", scene_2},
    {GLFW_KEY_3, 0, EITHER, "3", "one disk galaxy, face-on", scene_3},
    {GLFW_KEY_4, 0, EITHER, "4", "galaxies: prograde encounter (long tails)", scene_4},
    {GLFW_KEY_5, 0, EITHER, "5", "galaxies: retrograde encounter (few tails)", scene_5},
    {GLFW_KEY_6, 0, EITHER, "6", "galaxies: 1:4 minor merger, inclined", scene_6},
    {GLFW_KEY_7, 0, EITHER, "7", "Milky Way and Andromeda", scene_7},
    {GLFW_KEY_R, 0, EITHER, "R", "re-seed the scene (next seed)", reseed},
    {GLFW_KEY_SPACE, 0, EITHER, "Space", "pause / run", toggle_pause},
    {GLFW_KEY_PERIOD, 0, EITHER, ".", "one step while paused", step_once},
    {GLFW_KEY_C, 0, EITHER, "C", "colour: speed, per body, galaxy, component", color_next},
    {GLFW_KEY_E, 0, UNSHIFTED, "E", "exposure x1.25", exposure_up},
    {GLFW_KEY_E, 0, SHIFTED, "Shift+E", "exposure /1.25", exposure_down},
    {GLFW_KEY_A, 0, EITHER, "A", "automatic exposure on / off", exposure_auto},
    {GLFW_KEY_B, 0, EITHER, "B", "bloom on / off", bloom},
    {GLFW_KEY_O, 0, EITHER, "O", "show / hide the dark halo", halo},
    {GLFW_KEY_V, 0, EITHER, "V", "vsync on / off", vsync},
    {GLFW_KEY_F, 0, EITHER, "F", "fit the view to the bodies", fit},
    {GLFW_KEY_G, 0, EITHER, "G", "camera follows the centre of mass (larger galaxy)", follow},
    {GLFW_KEY_H, GLFW_KEY_F1, EITHER, "H, F1", "this help", help},
    {GLFW_KEY_TAB, 0, EITHER, "Tab", "HUD on / off", hud},
    {GLFW_KEY_F12, 0, EITHER, "F12", "screenshot to nbody-<time>-f<frame>.png", screenshot},
    {GLFW_KEY_ESCAPE, 0, EITHER, "Esc", "quit", quit},
};
#define BINDING_COUNT ((int)(sizeof bindings / sizeof bindings[0]))

void app_key(app *a, int key, int mods) {
    const bool shift = (mods & GLFW_MOD_SHIFT) != 0;
    for (int i = 0; i < BINDING_COUNT; i++) {
        const binding *b = &bindings[i];
        if (key != b->key && (b->alt == 0 || key != b->alt)) continue;
        if ((b->shift == SHIFTED && !shift) || (b->shift == UNSHIFTED && shift)) continue;
        b->action(a);
        return;
    }
}

/* Mouse actions, listed in the help after the keys. */
static const char *const mouse_help[][2] = {
    {"left drag", "orbit"},
    {"right/middle drag", "pan"},
    {"scroll", "zoom"},
};

bool app_key_help(int i, const char **label, const char **text) {
    if (i < BINDING_COUNT) {
        *label = bindings[i].label;
        *text = bindings[i].help;
        return true;
    }
    i -= BINDING_COUNT;
    if (i < (int)(sizeof mouse_help / sizeof mouse_help[0])) {
        *label = mouse_help[i][0];
        *text = mouse_help[i][1];
        return true;
    }
    return false;
}

/* Names --script understands beyond single letters and digits. */
static const struct {
    const char *name;
    int key;
} key_names[] = {
    {"Space", GLFW_KEY_SPACE},   {".", GLFW_KEY_PERIOD},   {"Period", GLFW_KEY_PERIOD},
    {"+", GLFW_KEY_EQUAL},       {"Plus", GLFW_KEY_EQUAL}, {"-", GLFW_KEY_MINUS},
    {"Minus", GLFW_KEY_MINUS},   {"Tab", GLFW_KEY_TAB},    {"Esc", GLFW_KEY_ESCAPE},
    {"Escape", GLFW_KEY_ESCAPE}, {"F1", GLFW_KEY_F1},      {"F12", GLFW_KEY_F12},
};

bool app_key_parse(const char *name, int *key, int *mods) {
    *mods = 0;
    if (strncasecmp(name, "Shift+", 6) == 0) {
        *mods = GLFW_MOD_SHIFT;
        name += 6;
    }
    if (name[0] && !name[1]) {
        const char c = name[0];
        if (c >= 'a' && c <= 'z') return *key = GLFW_KEY_A + (c - 'a'), true;
        if (c >= 'A' && c <= 'Z') return *key = GLFW_KEY_A + (c - 'A'), true;
        if (c >= '0' && c <= '9') return *key = GLFW_KEY_0 + (c - '0'), true;
    }
    for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
        if (strcasecmp(name, key_names[i].name) == 0) return *key = key_names[i].key, true;
    }
    return false;
}
