/* app_lecture.c - the lecture mode (--lecture): the kernel ladder climbed
 * one rung per key press, for a class watching a projector.
 *
 *   nbody --lecture --fullscreen            (65,536 bodies on a GPU)
 *
 * The steps are this backend's methods in the ladder's order (sim_methods:
 * naive ... fp64 and the tree on a GPU; the reference and the tree on the
 * CPU backend), then a summary step. Each step switches the running method
 * (the bodies stay where they are), shows the ladder chart (I; it times
 * every rung at this N, one a frame) and puts the rung's name and why in
 * the caption. An all-pairs rung shows its key lines (the code panel, ');
 * the tree sweeps its accuracy-speed frontier (Shift+X, app_frontier.c)
 * there instead; the summary shows the whole ladder on its ceilings (the
 * chart's roofline view, Shift+I). The keys a presentation clicker sends
 * mean only this here: Page Down, Right and Space the next step, Page Up
 * and Left the previous one. The overlays take their places from
 * ui_lecture_place (ui/ui_lecture.c), the HUD its compact form.
 *
 * The simulation runs (it is not paused): the bodies move while the
 * lecturer talks, and the running rung's own step time feeds its bar.
 */
#include <GLFW/glfw3.h> /* key codes only */
#include <stdio.h>
#include <string.h>

#include "app.h"

static sim_backend backend(const app *a) {
    return sim_get_params(a->sim).backend;
}

void app_lecture_config(config *c, bool cpu) {
    if (!c->lecture) return;
    sim_variant first = SIM_VARIANT_DEFAULT;
    if (!c->given[CONFIG_KNOB_VARIANT] &&
        sim_methods(cpu ? SIM_BACKEND_CPU : SIM_BACKEND_CUDA, &first, 1) >= 1) {
        c->sim.variant = first; /* a --variant given starts the lecture at that rung */
        c->given[CONFIG_KNOB_VARIANT] = true;
    }
    if (!c->given[CONFIG_KNOB_N]) {
        c->sim.body_count = cpu ? CONFIG_LECTURE_N_CPU : CONFIG_LECTURE_N_GPU;
        c->given[CONFIG_KNOB_N] = true;
    }
}

/* The rung's one sentence: why it is faster than the rung before, or why
 * not (sim_method.why; its description where a method has none). */
static const char *why_of(const sim_method *m) {
    return m->why ? m->why : m->description;
}

/* The caption of the step now. */
static void make_caption(app *a) {
    app_lecture *l = &a->lecture;
    const sim_params p = sim_get_params(a->sim);
    if (l->step < l->rung_count) {
        const sim_method *m = sim_method_of(p.backend, l->rungs[l->step]);
        snprintf(l->caption, sizeof l->caption, "%s (rung %d of %d): %s", m->name, l->step + 1,
                 l->rung_count, why_of(m));
        return;
    }
    char n[32];
    base_commas(p.body_count, n, sizeof n);
    snprintf(l->caption, sizeof l->caption,
             "the whole ladder at N = %s on its ceilings: every rung's rate, measured live on "
             "%s, against the ceiling that binds it",
             n, p.backend == SIM_BACKEND_CUDA ? "this GPU" : "this CPU");
}

void app_lecture_go(app *a, int k) {
    app_lecture *l = &a->lecture;
    if (!l->on || l->rung_count <= 0) return;
    l->step = k < 0 ? 0 : k > l->rung_count ? l->rung_count : k;
    /* The summary keeps the last rung (the tree) running. */
    const sim_variant v = l->rungs[l->step < l->rung_count ? l->step : l->rung_count - 1];
    const sim_backend b = backend(a);
    if (sim_get_method(a->sim)->variant != sim_method_of(b, v)->variant) {
        sim_error err = {0};
        if (!sim_set_variant(a->sim, v, &err)) {
            base_msg_post(&a->msg, "lecture: cannot switch to %s: %s", sim_method_of(b, v)->name,
                          err.message);
        }
    }
    /* Every step shows the chart again (I may have closed it): the bars at
     * each rung, the ladder on its ceilings (Shift+I's view) at the summary. */
    a->ui.shown[UI_OVERLAY_CHART] = true;
    a->ui.chart_view = l->step == l->rung_count ? UI_CHART_CEILINGS : UI_CHART_BARS;
    /* An all-pairs rung shows its key lines (the code panel, ') in the left
     * column; the tree's step sweeps its frontier (Shift+X) there instead,
     * and the summary keeps it; an all-pairs rung stops and hides it. */
    const bool tree = !sim_method_of(b, v)->exact;
    a->ui.shown[UI_OVERLAY_CODE] = !tree;
    if (tree && !a->ui.shown[UI_OVERLAY_FRONTIER]) app_frontier_start(a);
    if (!tree) {
        app_frontier_stop(a);
        a->ui.shown[UI_OVERLAY_FRONTIER] = false;
    }
    make_caption(a);
}

void app_lecture_start(app *a) {
    app_lecture *l = &a->lecture;
    if (!a->cfg.lecture) return;
    const int count = sim_methods(backend(a), l->rungs, UI_RUNGS_MAX);
    l->rung_count = count < UI_RUNGS_MAX ? count : UI_RUNGS_MAX;
    l->on = l->rung_count > 0;
    int start = 0; /* the running method's rung: the first, or --variant's */
    const sim_variant now = sim_get_method(a->sim)->variant;
    for (int i = 0; i < l->rung_count; i++) {
        if (sim_method_of(backend(a), l->rungs[i])->variant == now) start = i;
    }
    ui_hint_end(&a->ui); /* its bottom line would sit on the caption */
    app_lecture_go(a, start);
}

bool app_lecture_key(app *a, int key) {
    app_lecture *l = &a->lecture;
    if (!l->on) return false;
    int dir = 0;
    switch (key) {
    case GLFW_KEY_PAGE_DOWN:
    case GLFW_KEY_RIGHT:
    case GLFW_KEY_SPACE:
        dir = 1;
        break;
    case GLFW_KEY_PAGE_UP:
    case GLFW_KEY_LEFT:
        dir = -1;
        break;
    default:
        return false;
    }
    const int to = l->step + dir;
    if (to < 0) {
        base_msg_post(&a->msg, "lecture: this is the first rung (PgDn goes on)");
    } else if (to > l->rung_count) {
        base_msg_post(&a->msg, "lecture: this is the last step (PgUp goes back)");
    } else {
        app_lecture_go(a, to);
    }
    return true;
}

void app_lecture_frame(app *a, int fb_width, int fb_height) {
    app_lecture *l = &a->lecture;
    l->fb_width = fb_width;
    l->fb_height = fb_height;
    if (!l->on) return;
    /* Another key changed the method (K, Shift+K): the lecture follows to
     * that rung, so the caption and the step say what runs. */
    const sim_backend b = backend(a);
    const sim_variant now = sim_get_method(a->sim)->variant;
    const int shown = l->step < l->rung_count ? l->step : l->rung_count - 1;
    if (sim_method_of(b, l->rungs[shown])->variant == now) return;
    for (int i = 0; i < l->rung_count; i++) {
        if (sim_method_of(b, l->rungs[i])->variant == now) {
            app_lecture_go(a, i);
            return;
        }
    }
}

ui_lecture app_lecture_facts(const app *a) {
    const app_lecture *l = &a->lecture;
    if (!l->on) return (ui_lecture){.on = false};
    return (ui_lecture){.on = true,
                        .step = l->step,
                        .steps = l->rung_count + 1,
                        .rung = sim_get_method(a->sim)->name,
                        .summary = l->step == l->rung_count};
}

const char *app_lecture_caption(const app *a) {
    return a->lecture.on ? a->lecture.caption : a->script.caption;
}

static int rect_json(char *out, size_t len, const char *name, ui_rect r) {
    return snprintf(out, len, "%s\"%s\": [%.1f, %.1f, %.1f, %.1f]", strcmp(name, "hud") ? ", " : "",
                    name, r.x, r.y, r.w, r.h);
}

void app_lecture_json(const app *a, const ui_facts *f, char *out, size_t len) {
    const app_lecture *l = &a->lecture;
    if (!l->on) {
        snprintf(out, len, ", \"lecture\": null");
        return;
    }
    char caption[6 * APP_LECTURE_CAPTION + 3]; /* room for every byte escaped */
    base_json_string(caption, sizeof caption, l->caption);
    ui_lecture_layout L;
    ui_lecture_layout_of(f, l->fb_width, l->fb_height, &L);
    char rects[512];
    int k = 0;
    const struct {
        const char *name;
        ui_rect r;
    } all[] = {{"hud", L.hud},         {"code", L.code},       {"chart", L.chart},
               {"caption", L.caption}, {"message", L.message}, {"subject", L.subject}};
    for (size_t i = 0; i < sizeof all / sizeof all[0] && k >= 0 && (size_t)k < sizeof rects; i++) {
        k += rect_json(rects + k, sizeof rects - (size_t)k, all[i].name, all[i].r);
    }
    snprintf(out, len,
             ", \"lecture\": {\"step\": %d, \"steps\": %d, \"rung\": \"%s\", \"summary\": %s, "
             "\"caption\": %s, \"layout\": {\"width\": %d, \"height\": %d, \"font_px\": %.1f, %s}}",
             l->step, l->rung_count + 1, sim_get_method(a->sim)->name,
             l->step == l->rung_count ? "true" : "false", caption, l->fb_width, l->fb_height,
             L.font_px, rects);
}
