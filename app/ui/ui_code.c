/* ui_code.c - the code panel (overlay '): the running method's name, why
 * it is faster than the one before it (or why not), and its key lines of
 * source, the lines new against the method before it marked (a bar at the
 * left, bright text) and the rest dim. It follows K: every frame shows the
 * method running then. On the CPU backend it shows the reference's and the
 * CPU tree's code.
 *
 * The lines are sim_method.code, cut at build time from the marked regions
 * of sim/'s sources (sim/sim_code.list); the diff is ui_code_diff
 * (ui_diff.c) against the previous method of sim_methods(). The panel sits
 * on the left, below the HUD and the selection panel where they are shown,
 * and keeps clear of the chart (right and low) and any other overlay drawn
 * before it (ui_code_view.drawn): beside it where that leaves room, else
 * above or below it. In a window too small for it below the HUD it covers
 * the HUD instead, never the chart. In lecture mode it fills the lecture's
 * left column and leaves the reason to the caption. Its font reads on a
 * projector (at least fb_height / CODE_PX_PER_HEIGHT pixels, the overlays'
 * size where that is larger); long lines end in an ellipsis at the panel's
 * edge.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

/* 1080 / 54 = 20 px: code that reads on a 1920 x 1080 projector. */
#define CODE_PX_PER_HEIGHT 54.0f
/* It shrinks no further than this (18 px at 1080) before rows are cut. */
#define CODE_MIN_PX_PER_HEIGHT 60.0f
#define CODE_MIN_BESIDE 0.35f /* of the width: narrower beside the chart, it goes above it */
#define CODE_MIN_ROWS 12      /* fewer rows below the HUD: the panel starts at the top */
#define CODE_LINE_BYTES 256

static const float CODE_PANEL[4] = {0.02f, 0.03f, 0.06f, 0.95f}; /* code reads on an even ground */
static const float CODE_MARK[4] = {1.0f, 0.62f, 0.12f,
                                   1.0f}; /* a line new against the rung before */

/* The running method's place in its backend's list, and the one before it (NULL: none). */
static const sim_method *previous_method(const ui_facts *f, const sim_method *m) {
    const sim_backend b = sim_get_params(f->sim).backend;
    sim_variant v[SIM_VARIANT_COUNT + 4];
    const int n = sim_methods(b, v, SIM_VARIANT_COUNT + 4);
    for (int k = 1; k < n && k < SIM_VARIANT_COUNT + 4; k++) {
        if (sim_method_of(b, v[k]) == m) return sim_method_of(b, v[k - 1]);
    }
    return NULL;
}

void ui_code_toggled(ui_state *ui, const ui_facts *f, char *msg, size_t len) {
    if (!ui->shown[UI_OVERLAY_CODE]) {
        snprintf(msg, len, "code panel closed");
        return;
    }
    const sim_method *m = sim_get_method(f->sim), *prev = previous_method(f, m);
    if (prev) {
        snprintf(msg, len, "code panel: %s, its new lines against %s marked (K: the next rung)",
                 m->name, prev->name);
    } else {
        snprintf(msg, len, "code panel: %s (K: the next rung)", m->name);
    }
}

/* Line k of text (split at '\n') into out; false past the end. */
static bool line_of(const char *text, int k, char *out, size_t len) {
    const char *p = text;
    for (int i = 0; i < k && p; i++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p) return false;
    const char *e = strchr(p, '\n');
    const size_t n = e ? (size_t)(e - p) : strlen(p);
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p);
    return true;
}

/* Cuts line to fit max_w, ending it in an ellipsis where it was cut. */
static void clip(render_overlay *o, char *line, float max_w) {
    if (render_overlay_text_width(o, line) <= max_w) return;
    static const char ellipsis[] = "…";
    const float ew = render_overlay_text_width(o, ellipsis);
    size_t n = strlen(line);
    while (n > 0) {
        do n--; /* back to the start of a UTF-8 character */
        while (n > 0 && ((unsigned char)line[n] & 0xC0) == 0x80);
        const char keep = line[n];
        line[n] = 0;
        const float w = render_overlay_text_width(o, line);
        line[n] = keep;
        if (w + ew <= max_w) break;
    }
    snprintf(line + n, CODE_LINE_BYTES - n, "%s", ellipsis);
}

static bool has_box(const float b[4]) {
    return b[2] > 0 && b[3] > 0;
}

/* The room from left and top down to bottom (the message line below, as
 * the chart leaves), clear of every other overlay drawn before the panel
 * this frame (the chart, right and low; the frontier, left and low; any
 * other screen panel): beside it where that leaves the panel room, else
 * above it (where need pixels fit, or nothing fits below), else below it. */
static void room(const ui_code_view *v, float left, float top, int fb_width, float bottom, float m0,
                 float need, float *out_top, float *out_bottom, float *out_right) {
    float right = fb_width - m0;
    for (int k = 0; k < UI_OVERLAY_COUNT; k++) {
        const float *b = v->drawn[k];
        if (k == UI_OVERLAY_HUD || k == UI_OVERLAY_SELECT || k == UI_OVERLAY_CODE || !has_box(b)) {
            continue;
        }
        if (b[0] >= right || b[0] + b[2] <= left || b[1] >= bottom || b[1] + b[3] <= top) continue;
        if (b[0] - left - m0 >= CODE_MIN_BESIDE * fb_width) {
            right = b[0] - m0; /* beside it */
        } else if (b[1] - m0 - top >= need || b[1] + b[3] + m0 >= bottom) {
            bottom = b[1] - m0; /* above it */
        } else {
            top = b[1] + b[3] + m0; /* below it */
        }
    }
    *out_top = top, *out_bottom = bottom, *out_right = right;
}

void ui_code_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    ui_code_view *v = &ui->code;
    v->box[2] = v->box[3] = 0;
    v->rows = 0;
    const sim_method *m = sim_get_method(f->sim);
    if (!m) return;
    const sim_method *prev = previous_method(f, m);
    const char *code = m->code ? m->code : "(no key lines for this method)";
    bool added[UI_CODE_ROWS_MAX];
    int rows = ui_code_diff(prev && m->code ? prev->code : NULL, code, added, UI_CODE_ROWS_MAX);
    if (rows > UI_CODE_ROWS_MAX) rows = UI_CODE_ROWS_MAX;

    /* The room: left, below the HUD and selection panels, clear of the chart. */
    float px = fmaxf(ui_font_px(f), roundf(fb_height / CODE_PX_PER_HEIGHT));
    const float min_px = fmaxf(UI_MIN_PX, fminf(px, roundf(fb_height / CODE_MIN_PX_PER_HEIGHT)));
    render_overlay_set_font_px(o, px);
    float lh = render_overlay_line_height(o);
    const float m0 = ui_margin(lh);
    const int need = rows + 3 < CODE_MIN_ROWS ? rows + 3 : CODE_MIN_ROWS;
    float hud_bottom = m0;
    for (int k = 0; k < UI_OVERLAY_COUNT; k++) {
        const float *b = v->drawn[k];
        if ((k == UI_OVERLAY_HUD || k == UI_OVERLAY_SELECT) && has_box(b)) {
            hud_bottom = fmaxf(hud_bottom, b[1] + b[3] + m0);
        }
    }
    float top = 0, bottom = 0, right = 0, left = m0;
    const float lowest = fb_height - m0 - 2.4f * lh;
    room(v, left, hud_bottom, fb_width, lowest, m0, need * lh, &top, &bottom, &right);
    /* The frontier holds the left half below the HUD: the right half, from
     * below whatever of the HUD reaches into it, clear of the chart. */
    if (bottom - top < need * lh && ui_frontier_shown(ui, f)) {
        const float half = 0.5f * fb_width + 0.5f * m0;
        float from = m0;
        for (int k = 0; k < UI_OVERLAY_COUNT; k++) {
            const float *b = v->drawn[k];
            if ((k == UI_OVERLAY_HUD || k == UI_OVERLAY_SELECT) && has_box(b) &&
                b[0] + b[2] > half) {
                from = fmaxf(from, b[1] + b[3] + m0);
            }
        }
        float t2 = 0, b2 = 0, r2 = 0;
        room(v, half, from, fb_width, lowest, m0, need * lh, &t2, &b2, &r2);
        if (b2 - t2 >= need * lh) left = half, top = t2, bottom = b2, right = r2;
    }
    /* A small window with no room below the HUD: over it, from the top
     * (the panel was asked for; the HUD is back when it closes). */
    if (bottom - top < need * lh && hud_bottom > m0) {
        left = m0;
        room(v, left, m0, fb_width, lowest, m0, need * lh, &top, &bottom, &right);
    }
    if (f->lecture.on) { /* lecture mode: its left column (ui_lecture_place) */
        ui_lecture_layout place;
        ui_lecture_layout_of(f, fb_width, fb_height, &place);
        px = fmaxf(px, place.font_px);
        left = place.code.x, top = place.code.y, right = place.code.x + place.code.w;
        bottom = place.code.y + place.code.h;
    }
    if (bottom <= top || right <= left) return;

    /* The font: the wanted size, smaller (to min_px) until every row fits. */
    char title[256];
    if (prev) {
        snprintf(title, sizeof title, "%s: new lines against %s marked", m->name, prev->name);
    } else {
        snprintf(title, sizeof title, "%s", m->name);
    }
    ui_lines why = {.count = 0};
    float pad = 0, w = 0, mark_w = 0;
    for (;;) {
        render_overlay_set_font_px(o, px);
        lh = render_overlay_line_height(o);
        pad = 0.6f * lh;
        mark_w = 0.35f * lh;
        const float gutter = mark_w + 0.5f * lh;
        const float max_w = right - left - 2 * pad;
        w = render_overlay_text_width(o, title);
        char line[CODE_LINE_BYTES];
        for (int i = 0; i < rows && line_of(code, i, line, sizeof line); i++) {
            w = fmaxf(w, gutter + render_overlay_text_width(o, line));
        }
        w = fminf(fmaxf(w, 40 * render_overlay_text_width(o, "M")), max_w);
        why.count = 0;
        const ui_line reason = {.color = UI_WHITE};
        ui_line r = reason;
        /* (In lecture mode the caption says why.) */
        snprintf(r.text, sizeof r.text, "%s", m->why && !f->lecture.on ? m->why : "");
        if (r.text[0]) ui_wrap(o, &r, w, 1, 0, &why);
        const float h = 2 * pad + lh * (1 + why.count) + 0.4f * lh + lh * rows;
        if (h <= bottom - top || px <= min_px) break;
        px = fmaxf(min_px, floorf(px * 0.93f));
    }
    const float gutter = mark_w + 0.5f * lh;
    /* Rows that still do not fit are cut, the last one saying how many. */
    const int room = (int)((bottom - top - 2 * pad - lh * (1 + why.count) - 0.4f * lh) / lh);
    int shown = rows <= room ? rows : (room > 1 ? room - 1 : 0);
    const float h = 2 * pad + lh * (1 + why.count) + 0.4f * lh + lh * (shown + (shown < rows));
    const float x = left, y = top;

    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w + 2 * pad, h, CODE_PANEL);
    float ty = y + pad;
    render_overlay_text(o, x + pad, ty, UI_KEY, title);
    ty += lh;
    for (int i = 0; i < why.count; i++, ty += lh) {
        render_overlay_text(o, x + pad, ty, why.line[i].color, why.line[i].text);
    }
    ty += 0.4f * lh;
    char line[CODE_LINE_BYTES];
    for (int i = 0; i < shown && line_of(code, i, line, sizeof line); i++, ty += lh) {
        clip(o, line, w - gutter);
        if (added[i]) render_overlay_rect(o, x + pad, ty + 0.1f * lh, mark_w, 0.8f * lh, CODE_MARK);
        render_overlay_text(o, x + pad + gutter, ty, added[i] ? UI_WHITE : UI_DIM, line);
        v->row_y[i] = ty;
        v->added[i] = added[i];
    }
    if (shown < rows) {
        snprintf(line, sizeof line, "… %d more lines (Tab hides the HUD)", rows - shown);
        render_overlay_text(o, x + pad + gutter, ty, UI_DIM, line);
    }
    render_overlay_end(o);
    v->rows = shown;
    v->box[0] = x, v->box[1] = y, v->box[2] = w + 2 * pad, v->box[3] = h;
    v->font_px = render_overlay_font_px(o);
    v->mark_x = x + pad;
    v->mark_w = mark_w;
}
