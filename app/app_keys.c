/* app_keys.c - key dispatch and the help, from the tables.
 *
 * The window's key callback and --script both call app_key(), so a script
 * exercises exactly what a person's fingers do. A key is looked up in four
 * tables, in this order: the knobs' keys (config_knobs.c, done by
 * app_knobs.c: K, P, Q, D, S, T, J, R, + and -, each with Shift stepping
 * the other way), the scenes' number keys (config_scenes.c), the
 * overlays' keys (ui.c: Tab, H, I, W, L, F6 and '), and the view and loop keys
 * below. The help and `nbody --help` list the same tables, so they cannot
 * drift from them. Every knob is live: nothing restarts, and only a scene, N or seed
 * change re-seeds. A change a variant or range cannot take is refused or
 * clamped, and the HUD says why.
 *
 * While a snapshot series plays, the keys that change the simulation (the
 * knobs', the scenes', F9) are refused with the reason and the way out:
 * Enter leaves the playback and simulates from the snapshot on screen. The
 * first key of a session ends the first-run hint.
 */
#include <GLFW/glfw3.h> /* key codes and modifier bits only */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "app.h"

typedef struct binding {
    int key;
    const char *label; /* as the help overlay shows it */
    const char *help;
    void (*action)(app *a);
} binding;

/* ---- the loop and the view ------------------------------------------------ */

static void toggle_pause(app *a) {
    if (a->live.blown_up) {
        base_msg_post(&a->msg,
                      "the bodies blew up: R re-seeds (Shift+T first halves the time step)");
        return;
    }
    a->live.paused = !a->live.paused;
    base_msg_post(&a->msg, a->live.paused ? "paused (. steps once)" : "running");
}

static void step_once(app *a) {
    if (!a->live.paused) {
        base_msg_post(&a->msg, ". steps once while paused (Space pauses)");
        return;
    }
    a->live.step_once = true;
}

static void color_next(app *a) {
    a->view.color = (render_color)((a->view.color + 1) % RENDER_COLOR_COUNT);
    base_msg_post(&a->msg, "colour: %s", render_color_name(a->view.color));
}

static void set_exposure(app *a, float factor) {
    /* From automatic to manual at the exposure it had reached. */
    if (a->view.auto_exposure) a->view.exposure = render_exposure(a->render);
    a->view.auto_exposure = false;
    a->view.exposure *= factor;
    if (a->view.exposure < 1e-3f) a->view.exposure = 1e-3f;
    if (a->view.exposure > 1e3f) a->view.exposure = 1e3f;
    base_msg_post(&a->msg, "exposure %.3g (A: automatic)", a->view.exposure);
}

static void exposure_auto(app *a) {
    a->view.auto_exposure = !a->view.auto_exposure;
    if (!a->view.auto_exposure && a->render) a->view.exposure = render_exposure(a->render);
    base_msg_post(&a->msg, a->view.auto_exposure ? "automatic exposure" : "exposure fixed at %.3g",
                  a->view.exposure);
}

static void sprites(app *a) {
    const config_sprites m = (config_sprites)((a->sprites.mode + 1) % CONFIG_SPRITES_COUNT);
    app_sprites_set_mode(a, m);
    if (m != CONFIG_SPRITES_GL && !interop_cuda_sprites(&a->interop)) {
        base_msg_post(&a->msg,
                      "sprites: %s: GL draws them (CUDA's need the zero-copy interop path)",
                      config_sprites_name(m));
    } else {
        base_msg_post(&a->msg, "sprites: %s",
                      m == CONFIG_SPRITES_AUTO   ? "auto (the faster, measured)"
                      : m == CONFIG_SPRITES_CUDA ? "CUDA draws them"
                                                 : "GL draws them");
    }
}
static void bloom(app *a) {
    a->view.bloom = !a->view.bloom;
    base_msg_post(&a->msg, a->view.bloom ? "bloom on" : "bloom off");
}

static void halo(app *a) {
    a->view.hide_halo = !a->view.hide_halo;
    base_msg_post(&a->msg, a->view.hide_halo ? "dark halo hidden" : "dark halo shown");
}

static void vsync(app *a) {
    a->fe.vsync = !a->fe.vsync;
    a->fe.vsync_changed = true;
    base_msg_post(&a->msg, a->cfg.headless ? "vsync does not apply headless"
                           : a->fe.vsync   ? "vsync on"
                                           : "vsync off");
}

static void screenshot(app *a) {
    a->req.screenshot = true;
}
static void record(app *a) {
    a->req.record_toggle = true;
}
static void quit(app *a) {
    a->fe.quit = true;
}
static void fit(app *a) {
    app_fit_view(a);
}

static void follow(app *a) {
    a->view.follow_com = !a->view.follow_com;
    base_msg_post(&a->msg, a->view.follow_com
                               ? "camera follows the centre of mass (of the larger galaxy)"
                               : "camera stays put");
}

static void measure(app *a) {
    app_measure_force_error(a);
    const app_live *l = &a->live;
    if (l->ferr_valid) {
        base_msg_post(&a->msg,
                      "%s vs the exact sum on %d bodies: median %.2e, 99th percentile %.2e, max "
                      "%.2e",
                      app_method_name(a), l->ferr.samples, l->ferr.median, l->ferr.p99,
                      l->ferr.max);
    }
}

/* F11: the window front-end applies it (on the monitor the window is on). */
static void fullscreen(app *a) {
    if (a->cfg.headless) {
        base_msg_post(&a->msg, "fullscreen (F11) does not apply headless");
        return;
    }
    a->fe.fullscreen = !a->fe.fullscreen;
    a->fe.fullscreen_changed = true;
}

static void camera_home(app *a) {
    app_camera_home(a);
    base_msg_post(&a->msg, "the scene's camera");
}

/* Arrows orbit by APP_ORBIT_STEP_DEG (Shift: APP_ORBIT_FINE_DEG), turning
 * the scene the way a mouse drag in that direction does; Page Up / Page
 * Down zoom by one wheel step (Shift: a quarter). false: not a camera key. */
static bool camera_key(app *a, int key, int mods) {
    const double deg = (mods & GLFW_MOD_SHIFT) ? APP_ORBIT_FINE_DEG : APP_ORBIT_STEP_DEG;
    const double zoom = (mods & GLFW_MOD_SHIFT) ? 0.25 : 1.0;
    switch (key) {
    case GLFW_KEY_LEFT:
        app_orbit_degrees(a, deg, 0);
        return true;
    case GLFW_KEY_RIGHT:
        app_orbit_degrees(a, -deg, 0);
        return true;
    case GLFW_KEY_UP:
        app_orbit_degrees(a, 0, -deg);
        return true;
    case GLFW_KEY_DOWN:
        app_orbit_degrees(a, 0, deg);
        return true;
    case GLFW_KEY_PAGE_UP:
        app_zoom(a, zoom);
        return true;
    case GLFW_KEY_PAGE_DOWN:
        app_zoom(a, -zoom);
        return true;
    default:
        return false;
    }
}

static void save(app *a) {
    app_snapshot_save(a);
}
static void leave_playback(app *a) {
    app_snapshot_leave_playback(a);
}
static void reload(app *a) {
    app_snapshot_reload(a);
}
/* , [ ]: a series only (Space and . step it too: app_key). */
static void playback(app *a, int dir) {
    if (!app_snapshot_playback_key(a, dir)) {
        base_msg_post(&a->msg, ", [ ] step a snapshot series: --load 'run_*.hdf5' or a folder");
    }
}
static void previous(app *a) {
    playback(a, -1);
}
static void back10(app *a) {
    playback(a, -10);
}
static void forward10(app *a) {
    playback(a, 10);
}

static void play_slower(app *a) {
    app_playback_speed_key(a, -1);
}
static void play_faster(app *a) {
    app_playback_speed_key(a, 1);
}
static void interp_mode(app *a) {
    app_playback_mode_key(a);
}

static const binding bindings[] = {
    {GLFW_KEY_SPACE, "Space", "pause / run", toggle_pause},
    {GLFW_KEY_PERIOD, ".", "one step while paused", step_once},
    {GLFW_KEY_C, "C",
     "colour: speed, per body, galaxy, component, density, radial velocity, potential", color_next},
    {GLFW_KEY_E, "E", "exposure x1.25 (Shift: /1.25)", NULL},
    {GLFW_KEY_A, "A", "automatic exposure on / off", exposure_auto},
    {GLFW_KEY_B, "B", "bloom on / off", bloom},
    {GLFW_KEY_U, "U", "sprites drawn by: the faster (measured), CUDA, GL", sprites},
    {GLFW_KEY_O, "O", "show / hide the dark halo", halo},
    {GLFW_KEY_V, "V", "vsync on / off", vsync},
    {GLFW_KEY_X, "X", "measure the force error against the exact sum", measure},
    {GLFW_KEY_F, "F", "fit the view to the bodies", fit},
    {GLFW_KEY_G, "G", "camera follows the centre of mass (larger galaxy)", follow},
    {GLFW_KEY_F12, "F12", "screenshot to nbody-<time>-f<frame>.png", screenshot},
    {GLFW_KEY_ESCAPE, "Esc", "quit", quit},
    {GLFW_KEY_LEFT, "arrow keys", "orbit 5 degrees as a drag that way would (Shift: 1)", NULL},
    {GLFW_KEY_PAGE_UP, "PgUp / PgDn", "zoom in / out (Shift: a quarter as far)", NULL},
    {GLFW_KEY_HOME, "Home", "back to the scene's camera", camera_home},
    {GLFW_KEY_F11, "F11", "fullscreen on / off", fullscreen},
    {GLFW_KEY_M, "M", "record a video to nbody-<time>.mp4 / stop", record},
    {GLFW_KEY_F5, "F5", "save the state to nbody-<time>-f<frame>.tipsy (+ .nbody)", save},
    {GLFW_KEY_F9, "F9", "reload the last save of this session", reload},
    {GLFW_KEY_COMMA, ",", "snapshot series: previous (Space plays, . next)", previous},
    {GLFW_KEY_LEFT_BRACKET, "[", "snapshot series: 10 back", back10},
    {GLFW_KEY_RIGHT_BRACKET, "]", "snapshot series: 10 forward", forward10},
    {GLFW_KEY_ENTER, "Enter", "snapshot series: leave the playback, simulate from the nearest file",
     leave_playback},
    {GLFW_KEY_F2, "F2 / Shift+F2", "camera path: keyframe at the camera (follows with G) / undo",
     NULL},
    {GLFW_KEY_F3, "F3", "camera path: play / stop", app_campath_play},
    {GLFW_KEY_F4, "F4", "camera path: save to nbody-<time>.campath", app_campath_save},
    /* A series' smooth playback (app_playback.c). */
    {GLFW_KEY_9, "9", "snapshot series: play slower (/1.25 snapshots per second)", play_slower},
    {GLFW_KEY_0, "0", "snapshot series: play faster (x1.25 snapshots per second)", play_faster},
    {GLFW_KEY_BACKSLASH, "\\", "snapshot series: interpolation Hermite, linear, none",
     interp_mode},
    /* the density view (app_density.c, through app_density_key) */
    {GLFW_KEY_N, "N", "density view (surface density, colour bar) / sprites", NULL},
    {GLFW_KEY_N, "Shift+N", "density of: all, disk, bulge, halo, galaxy 1, galaxy 2", NULL},
    {GLFW_KEY_Y, "Y", "density range: upper end x2 (Shift: /2); leaves auto", NULL},
    {GLFW_KEY_Y, "Ctrl+Y", "density range: back to auto; on auto, log / asinh", NULL},
    /* selections (app_select.c; F6, the panel, is an overlay's key) */
    {GLFW_KEY_F7, "F7", "select into the active set: galaxy 1, 2, disk, bulge, halo, fast", NULL},
    {GLFW_KEY_F7, "Shift+F7", "selection histogram: radius, speed, height above the disk", NULL},
    {GLFW_KEY_F8, "F8", "clear the active selection set", NULL},
    {GLFW_KEY_Z, "Z / Shift+Z", "next / previous selection set (6)", NULL},
    /* the lecture mode (app_lecture.c, through app_lecture_key) */
    {GLFW_KEY_PAGE_DOWN, "PgDn, Right, Space",
     "lecture mode (--lecture): next rung; there these keys do nothing else", NULL},
    {GLFW_KEY_PAGE_UP, "PgUp, Left", "lecture mode (--lecture): previous rung; nothing else", NULL},
};
#define BINDING_COUNT ((int)(sizeof bindings / sizeof bindings[0]))

/* The keys that are not the knobs' own: Minus steps N down, the keypad's
 * + and - are + and -, F1 is H. */
static int canonical(int key, int *mods) {
    switch (key) {
    case GLFW_KEY_KP_ADD:
        *mods &= ~GLFW_MOD_SHIFT;
        return GLFW_KEY_EQUAL;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
        *mods |= GLFW_MOD_SHIFT; /* - is N's "other way" */
        return GLFW_KEY_EQUAL;
    case GLFW_KEY_F1:
        return GLFW_KEY_H;
    default:
        return key;
    }
}

/* An overlay's key: shows or hides it (its adjust key: dir +1 or -1), and
 * says what it did where the overlay has something to say. */
static void overlay_key(app *a, ui_overlay_id id, bool adjust, int dir) {
    char msg[sizeof a->msg.text] = "";
    ui_facts f;
    app_ui_facts(a, &f);
    if (adjust) {
        ui_overlay_get(id)->adjust(&a->ui, &f, dir, msg, sizeof msg);
    } else {
        ui_toggle(&a->ui, id, &f, msg, sizeof msg);
    }
    if (msg[0]) base_msg_post(&a->msg, "%s", msg);
}

/* While a series plays: refuses a key that would change the simulation
 * (label: as the user knows it), saying why and how to leave the
 * playback. true: refused. */
static bool refused_in_playback(app *a, const char *label) {
    if (!app_snapshot_playback(a)) return false;
    base_msg_post(&a->msg,
                  "%s changes the simulation: refused while a snapshot series plays (Enter "
                  "leaves the playback and simulates from the snapshot on screen)",
                  label);
    return true;
}

/* The knob key's name as the help shows it: "+", "-", "T", "Shift+T". */
static void knob_label(int key, int dir, char *out, size_t len) {
    if (key == GLFW_KEY_EQUAL) {
        snprintf(out, len, "%s", dir > 0 ? "+" : "-");
    } else {
        snprintf(out, len, "%s%c", dir > 0 ? "" : "Shift+", (char)('A' + (key - GLFW_KEY_A)));
    }
}

void app_key(app *a, int key, int mods) {
    ui_hint_end(&a->ui); /* the first key ends the first-run hint */
    /* + is Shift+= on most layouts: + and = both step N up. */
    if (key == GLFW_KEY_EQUAL) mods &= ~GLFW_MOD_SHIFT;
    key = canonical(key, &mods);
    if (app_lecture_key(a, key)) return; /* --lecture: the clicker's keys mean only this */
    /* A snapshot series plays instead of the simulation: Space and . drive it. */
    if ((key == GLFW_KEY_SPACE || key == GLFW_KEY_PERIOD) &&
        app_snapshot_playback_key(a, key == GLFW_KEY_SPACE ? 0 : 1)) {
        return;
    }
    const int dir = (mods & GLFW_MOD_SHIFT) ? -1 : 1;
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        if (config_knob_get((config_knob)k)->key == key) {
            char label[16];
            knob_label(key, dir, label, sizeof label);
            if (!refused_in_playback(a, label)) app_knob_key(a, (config_knob)k, dir);
            return;
        }
    }
    if (key >= GLFW_KEY_1 && key < GLFW_KEY_1 + config_scene_count()) {
        const char label[2] = {(char)('1' + (key - GLFW_KEY_1)), 0};
        if (!refused_in_playback(a, label)) app_scene_switch(a, key - GLFW_KEY_1);
        return;
    }
    if (key == GLFW_KEY_F9 && refused_in_playback(a, "F9")) return;
    if (key == GLFW_KEY_E) {
        set_exposure(a, dir > 0 ? 1.25f : 1 / 1.25f);
        return;
    }
    bool adjust = false;
    const ui_overlay_id o = ui_overlay_of_key(key, &adjust);
    /* An overlay whose adjust key is its own key takes it with Shift (Shift+I). */
    if (o != UI_OVERLAY_COUNT && (mods & GLFW_MOD_SHIFT) && ui_overlay_get(o)->adjust_key == key) {
        adjust = true;
    }
    if (o != UI_OVERLAY_COUNT) {
        overlay_key(a, o, adjust, dir);
        return;
    }
    if (camera_key(a, key, mods)) return;
    if (app_select_key(a, key, mods)) return;
    if (key == GLFW_KEY_F2) { /* Shift+F2 takes the last keyframe back */
        app_campath_drop(a, dir);
        return;
    }
    if (app_density_key(a, key, mods)) return; /* N, Y: the density view */
    if (app_frontier_key(a, key, mods)) return; /* Shift+X: the tree's frontier */
    for (int i = 0; i < BINDING_COUNT; i++) {
        if (bindings[i].key == key && bindings[i].action) {
            bindings[i].action(a);
            return;
        }
    }
}

/* Mouse actions, listed in the help after the keys. */
static const char *const mouse_help[][2] = {
    {"left drag", "orbit"},
    {"right/middle drag", "pan"},
    {"scroll", "zoom"},
    {"Ctrl+left drag", "select the bodies in a box into the active set"},
    {"Ctrl+right click", "select a sphere (a tenth of the view) around the nearest body"},
};

/* The knobs' keys in the help: "T / Shift+T", "+ / -". */
static int knob_keys(int i, char *label, size_t label_len, char *text, size_t text_len) {
    int seen = 0;
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        const config_knob_info *info = config_knob_get((config_knob)k);
        if (!info->key) continue;
        if (seen++ != i) continue;
        if (info->key == GLFW_KEY_EQUAL) {
            snprintf(label, label_len, "+ / -");
        } else {
            const char c = (char)('A' + (info->key - GLFW_KEY_A));
            snprintf(label, label_len, "%c / Shift+%c", c, c);
        }
        snprintf(text, text_len, "%s / %s", info->key_up, info->key_down);
        return -1;
    }
    return seen;
}

bool app_key_help(int i, char *label, size_t label_len, char *text, size_t text_len) {
    const int knobs = knob_keys(i, label, label_len, text, text_len);
    if (knobs < 0) return true;
    i -= knobs;
    if (i < config_scene_count()) {
        snprintf(label, label_len, "%d", i + 1);
        snprintf(text, text_len, "%s", config_scene_key_help(i));
        return true;
    }
    i -= config_scene_count();
    for (int o = 0; o < UI_OVERLAY_COUNT; o++) {
        const ui_overlay *ov = ui_overlay_get((ui_overlay_id)o);
        if (i == 0) {
            snprintf(label, label_len, "%s", ov->key_label);
            snprintf(text, text_len, "%s", ov->help);
            return true;
        }
        i--;
        if (!ov->adjust_key) continue;
        if (i == 0) {
            snprintf(label, label_len, "%s", ov->adjust_label);
            snprintf(text, text_len, "%s", ov->adjust_help);
            return true;
        }
        i--;
    }
    if (i < BINDING_COUNT) {
        snprintf(label, label_len, "%s", bindings[i].label);
        snprintf(text, text_len, "%s", bindings[i].help);
        return true;
    }
    i -= BINDING_COUNT;
    if (i < (int)(sizeof mouse_help / sizeof mouse_help[0])) {
        snprintf(label, label_len, "%s", mouse_help[i][0]);
        snprintf(text, text_len, "%s", mouse_help[i][1]);
        return true;
    }
    return false;
}

void app_keys_usage(FILE *f) {
    fprintf(f, "\nkeys (H or F1 shows them in the window too):\n");
    char label[64], text[160];
    for (int i = 0; app_key_help(i, label, sizeof label, text, sizeof text); i++) {
        fprintf(f, "  %-20s %s\n", label, text);
    }
}

void app_keys_markdown(FILE *f) {
    fprintf(f, "## Keys\n\nThe help (`H`) and `nbody --help` list the same.\n\n"
               "| key | action |\n|---|---|\n");
    char label[64], text[160];
    for (int i = 0; app_key_help(i, label, sizeof label, text, sizeof text); i++) {
        fprintf(f, "| %s | ", label);
        for (const char *c = text; *c; c++) { /* <time> is not HTML */
            if (*c == '<') {
                fputs("&lt;", f);
            } else if (*c == '>') {
                fputs("&gt;", f);
            } else {
                fputc(*c, f);
            }
        }
        fprintf(f, " |\n");
    }
}
