/* test_lecture.c - the lecture mode (--lecture) without GL: its layout and
 * its keys.
 *
 *   test_lecture
 *
 * The layout (ui_lecture_place) at 1920x1080, 1280x720 and a few other
 * pictures: every panel inside the picture, no two overlapping, the subject
 * between the code panel (left) and the chart (right) and a fair share of
 * the width, the text at least a 45th of the height.
 *
 * The keys, through app_key (the window's and --script's dispatch) on a CPU
 * backend app: with --lecture the run starts at the first rung at the
 * lecture's N, Page Down, Right and Space (with or without Shift) go one
 * step on, Page Up and Left one back, to the summary step and no further
 * either way; they neither pause nor move the camera. Each rung's caption
 * carries its sim_method.why (the method table's sentence, not a copy); an
 * all-pairs rung shows its code panel, the tree its frontier sweep, the
 * summary the chart's ceilings view. K
 * still steps the methods, and the lecture's step follows it. Without --lecture the
 * same keys keep their old meanings: Space pauses, Page Down zooms, Right
 * orbits, and the method stays. The help and `nbody --help` list the
 * binding, and the compact HUD says "PgDn next rung".
 */
#define _GNU_SOURCE /* open_memstream */
#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "test_check.h"

static const char *const NAMES[] = {"hud", "code", "chart", "caption", "message", "subject"};

static void check_layout(int w, int h) {
    ui_lecture_layout L;
    ui_lecture_place(w, h, 17, &L); /* 17: the HUD's size at a content scale of 1 */
    const ui_rect r[] = {L.hud, L.code, L.chart, L.caption, L.message, L.subject};
    const int count = (int)(sizeof r / sizeof r[0]);
    for (int i = 0; i < count; i++) {
        CHECK(r[i].w > 0 && r[i].h > 0, "%dx%d: %s is empty (%.1f x %.1f)", w, h, NAMES[i], r[i].w,
              r[i].h);
        CHECK(r[i].x >= 0 && r[i].y >= 0 && r[i].x + r[i].w <= w && r[i].y + r[i].h <= h,
              "%dx%d: %s [%.1f %.1f %.1f %.1f] leaves the picture", w, h, NAMES[i], r[i].x, r[i].y,
              r[i].w, r[i].h);
        for (int k = i + 1; k < count; k++) {
            CHECK(!ui_rect_overlap(r[i], r[k]), "%dx%d: %s overlaps %s", w, h, NAMES[i], NAMES[k]);
        }
    }
    CHECK(L.code.x + L.code.w <= L.subject.x && L.subject.x + L.subject.w <= L.chart.x,
          "%dx%d: code panel left, subject, chart right", w, h);
    /* The bodies get a quarter of the width at least: the lens frames them
     * in the subject's square. */
    CHECK(L.subject.w >= 0.25f * w, "%dx%d: subject %.1f px wide", w, h, L.subject.w);
    CHECK(L.font_px >= h / 45.0f - 0.5f && L.font_px >= 17, "%dx%d: text %.1f px", w, h, L.font_px);
}

static app *make_app(bool lecture, bool n_given) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = 300},
                  .steps_per_frame = 1,
                  .headless = true,
                  .lecture = lecture};
    cfg.given[CONFIG_KNOB_N] = n_given;
    int status = 0;
    app *a = app_create(&cfg, &status);
    if (!a) exit(1);
    return a;
}

static const char *method(app *a) {
    return sim_get_method(a->sim)->name;
}

/* The HUD's text now. */
static void hud(app *a, char *out, size_t len) {
    ui_facts f;
    app_ui_facts(a, &f);
    ui_hud_text(&a->ui, &f, false, out, len);
}

static void check_lecture_keys(void) {
    app *a = make_app(true, false);
    CHECK(sim_get_params(a->sim).body_count == CONFIG_LECTURE_N_CPU,
          "--lecture without --n: %d bodies, want %d", sim_get_params(a->sim).body_count,
          CONFIG_LECTURE_N_CPU);
    app_destroy(a);

    a = make_app(true, true);
    CHECK(a->lecture.on && a->lecture.step == 0 && strcmp(method(a), "reference") == 0,
          "starts at the first rung: step %d, %s", a->lecture.step, method(a));
    CHECK(a->ui.shown[UI_OVERLAY_CHART], "the chart is shown");
    CHECK(strstr(a->lecture.caption, "reference") == a->lecture.caption,
          "the caption starts with the rung's name: '%s'", a->lecture.caption);
    char text[4096];
    hud(a, text, sizeof text);
    CHECK(strstr(text, "PgDn next rung") != NULL, "the HUD says PgDn next rung: '%s'", text);
    const render_camera cam = a->view.camera;
    CHECK(!a->ui.shown[UI_OVERLAY_FRONTIER] && a->ui.shown[UI_OVERLAY_CODE],
          "the first rung: its code panel, no frontier");
    /* An all-pairs rung shows its code panel; the tree's step sweeps its
     * frontier instead, the summary keeps it, an all-pairs rung hides it. */
    const struct {
        int key, mods, step;
        const char *method;
        bool frontier;
    } presses[] = {
        {GLFW_KEY_PAGE_DOWN, 0, 1, "tree", true},
        {GLFW_KEY_PAGE_UP, 0, 0, "reference", false},
        {GLFW_KEY_RIGHT, 0, 1, "tree", true},
        {GLFW_KEY_LEFT, 0, 0, "reference", false},
        {GLFW_KEY_LEFT, 0, 0, "reference", false}, /* no step before the first */
        {GLFW_KEY_SPACE, 0, 1, "tree", true},
        {GLFW_KEY_PAGE_DOWN, GLFW_MOD_SHIFT, 2, "tree", true}, /* the summary keeps the tree */
        {GLFW_KEY_SPACE, 0, 2, "tree", true},                  /* no step after the last */
        {GLFW_KEY_RIGHT, GLFW_MOD_SHIFT, 2, "tree", true},
        {GLFW_KEY_PAGE_UP, GLFW_MOD_SHIFT, 1, "tree", true},
    };
    for (size_t i = 0; i < sizeof presses / sizeof presses[0]; i++) {
        app_key(a, presses[i].key, presses[i].mods);
        CHECK(a->lecture.step == presses[i].step && strcmp(method(a), presses[i].method) == 0,
              "press %zu: step %d (%s), want %d (%s)", i, a->lecture.step, method(a),
              presses[i].step, presses[i].method);
        CHECK(!a->live.paused, "press %zu: not paused", i);
        CHECK(a->ui.shown[UI_OVERLAY_FRONTIER] == presses[i].frontier &&
                  a->ui.shown[UI_OVERLAY_CODE] == !presses[i].frontier,
              "press %zu: the left column: %s", i,
              presses[i].frontier ? "the frontier" : "the code panel");
        CHECK(a->view.camera.distance == cam.distance && a->view.camera.yaw == cam.yaw,
              "press %zu: the camera stays", i);
        ui_facts f;
        app_ui_facts(a, &f);
        CHECK(f.lecture.on && f.lecture.step == a->lecture.step &&
                  f.lecture.summary == (a->lecture.step == 2) && f.lecture.steps == 3,
              "press %zu: the overlays' facts", i);
        CHECK(a->ui.chart_view == (a->lecture.step == 2 ? UI_CHART_CEILINGS : UI_CHART_BARS),
              "press %zu: the chart's view: the ceilings at the summary, else the bars", i);
        CHECK(f.caption == a->lecture.caption, "press %zu: the lecture's caption is shown", i);
        const sim_method *m = sim_get_method(a->sim);
        CHECK(a->lecture.step == 2 || (m->why && strstr(a->lecture.caption, m->why)),
              "press %zu: the caption carries the method's own why: '%s'", i, a->lecture.caption);
    }
    CHECK(strstr(a->lecture.caption, "tree") == a->lecture.caption, "caption '%s'",
          a->lecture.caption);
    CHECK(a->frontier.state == APP_FRONTIER_SWEEPING, "the tree's step sweeps the frontier");
    /* K changes the method as ever; the lecture's step follows it. */
    app_key(a, GLFW_KEY_K, 0);
    app_lecture_frame(a, 1920, 1080);
    CHECK(strcmp(method(a), "reference") == 0 && a->lecture.step == 0 &&
              strstr(a->lecture.caption, "reference") == a->lecture.caption,
          "K to %s: step %d, caption '%s'", method(a), a->lecture.step, a->lecture.caption);
    CHECK(!a->ui.shown[UI_OVERLAY_FRONTIER] && a->ui.shown[UI_OVERLAY_CODE],
          "K off the tree: the code panel, no frontier");
    /* Other keys keep their meanings in lecture mode. */
    const bool bloom = a->view.bloom;
    app_key(a, GLFW_KEY_B, 0);
    CHECK(a->view.bloom != bloom, "B still toggles bloom");
    app_destroy(a);
}

static void check_keys_outside(void) {
    app *a = make_app(false, true);
    CHECK(!a->lecture.on && strcmp(method(a), "reference") == 0, "no lecture");
    const render_camera cam = a->view.camera;
    app_key(a, GLFW_KEY_PAGE_DOWN, 0);
    CHECK(a->view.camera.distance > cam.distance, "PgDn zooms out: %.3f -> %.3f", cam.distance,
          a->view.camera.distance);
    const float d = a->view.camera.distance;
    app_key(a, GLFW_KEY_PAGE_UP, 0);
    CHECK(a->view.camera.distance < d, "PgUp zooms in");
    app_key(a, GLFW_KEY_RIGHT, 0);
    CHECK(a->view.camera.yaw != cam.yaw, "Right orbits");
    const float yaw = a->view.camera.yaw;
    app_key(a, GLFW_KEY_LEFT, 0);
    CHECK(a->view.camera.yaw != yaw, "Left orbits");
    CHECK(!a->live.paused, "running");
    app_key(a, GLFW_KEY_SPACE, 0);
    CHECK(a->live.paused, "Space pauses");
    CHECK(strcmp(method(a), "reference") == 0, "the method stays: %s", method(a));
    CHECK(!app_lecture_key(a, GLFW_KEY_PAGE_DOWN), "app_lecture_key: false outside the lecture");
    ui_facts f;
    app_ui_facts(a, &f);
    CHECK(!f.lecture.on && f.caption == a->script.caption, "no lecture facts");
    app_destroy(a);
}

static void check_help(void) {
    char label[64], text[160];
    bool next = false, back = false;
    for (int i = 0; app_key_help(i, label, sizeof label, text, sizeof text); i++) {
        if (strcmp(label, "PgDn, Right, Space") == 0) next = strstr(text, "next rung") != NULL;
        if (strcmp(label, "PgUp, Left") == 0) back = strstr(text, "previous rung") != NULL;
    }
    CHECK(next && back, "the help lists the lecture's keys");
    char *usage = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&usage, &len);
    CHECK(f != NULL, "memstream");
    if (!f) return;
    app_keys_usage(f);
    config_usage(f);
    fclose(f);
    CHECK(strstr(usage, "PgDn, Right, Space") && strstr(usage, "--lecture"),
          "nbody --help names the lecture's keys and flag");
    free(usage);
}

/* Every rung's caption, as the lecture writes it ("NAME (rung K of N):
 * WHY"), fits one line of the UI's before it is wrapped: a longer one
 * would lose its end on screen (tiled's did, when a line held 200 bytes). */
static void check_captions(void) {
    const sim_backend backends[] = {SIM_BACKEND_CUDA, SIM_BACKEND_CPU};
    for (int b = 0; b < 2; b++) {
        sim_variant v[UI_RUNGS_MAX];
        const int count = sim_methods(backends[b], v, UI_RUNGS_MAX);
        for (int i = 0; i < count; i++) {
            const sim_method *m = sim_method_of(backends[b], v[i]);
            char caption[2 * UI_LINE_MAX];
            const int len = snprintf(caption, sizeof caption, "%s (rung %d of %d): %s", m->name,
                                     count, count, m->why ? m->why : m->description);
            CHECK(len < UI_LINE_MAX, "%s's caption is %d bytes, a UI line holds %d", m->name, len,
                  UI_LINE_MAX - 1);
        }
    }
}

int main(void) {
    check_captions();
    const int sizes[][2] = {{1920, 1080}, {1280, 720}, {3840, 2160}, {1024, 768}, {1366, 768}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_layout(sizes[i][0], sizes[i][1]);
    }
    check_lecture_keys();
    check_keys_outside();
    check_help();
    return test_exit("test_lecture");
}
