/* test_code_panel.c - the code panel (') laid out in a 1920 x 1080 picture,
 * CPU backend, through app_frame in an offscreen EGL context as the headless
 * front-end runs it.
 *
 * ' shows it and hides it; it shows the running method's rows (its code's
 * lines), marked where ui_code_diff says against the method before (none
 * for the first); K moves it to the next method; its font is at least
 * 18 px at 1080 lines (a projector's); it sits in the left half, below the
 * HUD, and never overlaps the chart, nor the HUD; and in the picture each
 * marked row has its bar's colour at the mark's place and each unmarked row
 * has not. F7's selection panel is drawn, but not in the lecture, where
 * the tree's frontier is set at the lecture's text size. With "gpu", the
 * same on the CUDA backend for every rung of the ladder in turn (K from
 * naive to the tree), each against the one before, with the HUD hidden,
 * as a lecture keeps it small: every rung's rows fit a 1080-line projector
 * at a readable size. Exits 77 where there is no CUDA device.
 *
 *     test_code_panel [gpu]
 */
#include <GLFW/glfw3.h> /* key codes */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_util.h"

#define W 1920
#define H 1080
#define N 1000

static bool overlap(const float a[4], const float b[4]) {
    return a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
}

static int lines_of(const char *s) {
    int n = 1;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Whether the pixel at (x, y) is the marks' colour (opaque, so exact to a step). */
static bool is_mark(const uint8_t *px, int x, int y) {
    const uint8_t *p = px + ((size_t)y * W + x) * 4;
    return abs(p[0] - 255) <= 2 && abs(p[1] - 158) <= 2 && abs(p[2] - 31) <= 2;
}

static void check_panel(app *a, const char *want_name, const char *prev_code, uint8_t *px) {
    const ui_code_view *v = &a->ui.code;
    const sim_method *m = sim_get_method(a->sim);
    CHECK(strcmp(m->name, want_name) == 0, "running %s, want %s", m->name, want_name);
    CHECK(v->box[2] > 0 && v->box[3] > 0, "%s: the panel is drawn", m->name);
    CHECK(v->font_px >= 18, "%s: its font reads on a projector: %.0f px", m->name, v->font_px);
    CHECK(v->rows == lines_of(m->code), "%s: all %d rows shown (%d)", m->name, lines_of(m->code),
          v->rows);
    const float *hud = v->drawn[UI_OVERLAY_HUD], *chart = v->drawn[UI_OVERLAY_CHART];
    CHECK((hud[2] > 0) == a->ui.shown[UI_OVERLAY_HUD] && chart[2] > 0,
          "the HUD (where shown) and the chart are drawn too");
    CHECK(!overlap(v->box, chart), "%s: clear of the chart (%.0f,%.0f %.0fx%.0f vs %.0f,%.0f)",
          m->name, v->box[0], v->box[1], v->box[2], v->box[3], chart[0], chart[1]);
    CHECK(hud[2] == 0 || (!overlap(v->box, hud) && v->box[1] >= hud[1] + hud[3]),
          "%s: below the HUD", m->name);
    CHECK(v->box[0] < 0.05f * W && v->box[0] + v->box[2] <= 0.5f * W,
          "%s: on the left: x %.0f-%.0f", m->name, v->box[0], v->box[0] + v->box[2]);
    bool want[UI_CODE_ROWS_MAX];
    ui_code_diff(prev_code, m->code, want, UI_CODE_ROWS_MAX);
    int marked = 0;
    render_read_pixels(a->render, W, H, px);
    const int mx = (int)(v->mark_x + 0.5f * v->mark_w);
    for (int i = 0; i < v->rows; i++) {
        CHECK(v->added[i] == want[i], "%s row %d: marked %d, the diff says %d", m->name, i,
              v->added[i], want[i]);
        const int my = (int)(v->row_y[i] + 0.5f * 1.2f * v->font_px);
        CHECK(is_mark(px, mx, my) == want[i], "%s row %d: the picture %s a mark at (%d, %d)",
              m->name, i, want[i] ? "lacks" : "has", mx, my);
        marked += want[i];
    }
    CHECK(prev_code ? marked > 0 : marked == 0, "%s: %d rows marked", m->name, marked);
}

/* F7's selection panel is drawn (F7 shows it) outside the lecture, and
 * not in it, whose layout has no place for it: the sets keep their
 * colours there. */
static void check_select_panel(bool lecture) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = N},
                  .lecture = lecture,
                  .steps_per_frame = 1,
                  .headless = true,
                  .width = W,
                  .height = H};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a || !app_gl_begin(a, true)) exit(1);
    app_frame(a, W, H);
    app_key(a, GLFW_KEY_F7, 0);
    app_frame(a, W, H);
    app_frame(a, W, H); /* the sets measured at the end of the first */
    const float *box = a->ui.code.drawn[UI_OVERLAY_SELECT];
    CHECK(a->ui.shown[UI_OVERLAY_SELECT] && (lecture ? box[2] == 0 : box[2] > 0),
          "%s: the selection panel %s (drawn %.0f x %.0f)", lecture ? "lecture" : "no lecture",
          lecture ? "not drawn" : "drawn", box[2], box[3]);
    if (lecture) { /* the tree's rung: its frontier at the lecture's text size */
        app_key(a, GLFW_KEY_PAGE_DOWN, 0);
        for (int i = 0; i < 3; i++) app_frame(a, W, H);
        ui_facts f;
        app_ui_facts(a, &f);
        ui_lecture_layout place;
        ui_lecture_layout_of(&f, W, H, &place);
        const float got = a->ui.frontier_drawn.font_px;
        CHECK(a->ui.shown[UI_OVERLAY_FRONTIER] && got == place.font_px,
              "lecture: the frontier's text %.0f px, the lecture's %.0f px", got, place.font_px);
    }
    app_gl_end(a);
    app_destroy(a);
}

int main(int argc, char **argv) {
    const bool gpu = argc > 1 && strcmp(argv[1], "gpu") == 0;
    char why[256];
    if (gpu && sim_cuda_device_count(why, sizeof why) == 0) {
        printf("no CUDA device (%s): skipped\n", why);
        return TEST_SKIP;
    }
    config cfg = {.sim = {.backend = gpu ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU,
                          .body_count = N,
                          .variant = gpu ? SIM_VARIANT_NAIVE : SIM_VARIANT_DEFAULT},
                  .no_hud = gpu,
                  .steps_per_frame = 1,
                  .headless = true,
                  .width = W,
                  .height = H};
    cfg.given[CONFIG_KNOB_N] = true;
    cfg.given[CONFIG_KNOB_VARIANT] = gpu;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) return 1;
    app_egl *egl = app_egl_open(-1);
    if (!egl) {
        fprintf(stderr, "test_code_panel: no EGL context (install Mesa's EGL)\n");
        return 1;
    }
    if (!app_gl_begin(a, true)) return 1;
    uint8_t *px = malloc((size_t)W * H * 4);
    CHECK(px != NULL, "memory");
    a->live.paused = true;
    app_frame(a, W, H);
    CHECK(a->ui.code.box[2] == 0, "hidden at the start");
    app_key(a, GLFW_KEY_APOSTROPHE, 0);
    CHECK(a->ui.shown[UI_OVERLAY_CODE], "' shows it");
    app_key(a, GLFW_KEY_I, 0);
    app_frame(a, W, H);
    const sim_backend b = gpu ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
    sim_variant v[SIM_VARIANT_COUNT + 4];
    const int methods = sim_methods(b, v, SIM_VARIANT_COUNT + 4);
    for (int k = 0; k < methods && px; k++) {
        if (k > 0) {
            app_key(a, GLFW_KEY_K, 0); /* K: the next method */
            app_frame(a, W, H);
        }
        const sim_method *m = sim_method_of(b, v[k]), *prev = k ? sim_method_of(b, v[k - 1]) : NULL;
        check_panel(a, m->name, prev ? prev->code : NULL, px);
    }
    app_key(a, GLFW_KEY_APOSTROPHE, 0);
    app_frame(a, W, H);
    CHECK(!a->ui.shown[UI_OVERLAY_CODE] && a->ui.code.drawn[UI_OVERLAY_CODE][2] == 0, "' hides it");
    free(px);
    app_gl_end(a);
    app_destroy(a);
    if (!gpu) {
        check_select_panel(false);
        check_select_panel(true);
    }
    app_egl_close(egl);
    return test_exit("test_code_panel");
}
