/* ui_hint.c - the caption of a --script tour, in every picture, and two
 * notes on the panel layer that belong to the HUD (shown with it, left out
 * of F12's pictures like the message line):
 *
 *   the first-run hint: a newcomer's four ways in (drag, scenes, kernels,
 *   help), centred near the bottom of the window, for UI_HINT_SECONDS
 *   from the first frame that shows it, then fading over UI_HINT_FADE;
 *   the first key press ends it. The window turns it on (app_create.c);
 *   headless pictures never have it.
 *
 *   the REC indicator: while a video or PNG sequence records, a red dot
 *   and the video's time so far (frames written / its frames/s) in the
 *   top-right corner, for as long as the recording runs. With
 *   --record-hud the video holds the HUD as the window shows it, this
 *   included.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

static const char HINT[] = "drag to orbit  ·  1-7 scenes  ·  K kernels  ·  H help";
static const float REC_RED[4] = {1.0f, 0.22f, 0.2f, 1.0f};

void ui_hint_start(ui_state *ui) {
    ui->hint = true;
    ui->hint_since = 0;
}

void ui_hint_end(ui_state *ui) {
    ui->hint = false;
}

const char *ui_hint_text(const ui_state *ui, const ui_facts *f, float *alpha) {
    if (!ui->hint || !ui->shown[UI_OVERLAY_HUD] || f->capturing) return NULL;
    const double age = ui->hint_since > 0 ? f->now - ui->hint_since : 0;
    const double a = age <= UI_HINT_SECONDS ? 1.0 : 1.0 - (age - UI_HINT_SECONDS) / UI_HINT_FADE;
    if (a <= 0) return NULL;
    if (alpha) *alpha = (float)a;
    return HINT;
}

bool ui_rec_text(const ui_facts *f, char *out, size_t len) {
    const ui_recording *r = &f->recording;
    if (!r->on) return false;
    if (!r->video) {
        snprintf(out, len, "REC %ld frame%s", r->frames, base_plural(r->frames));
        return true;
    }
    const double s = r->fps > 0 ? (double)r->frames / r->fps : 0;
    const int minutes = (int)(s / 60);
    snprintf(out, len, "REC %d:%04.1f", minutes, s - 60.0 * minutes);
    return true;
}

/* Lecture mode: the caption in its place, wrapped to two lines, each
 * centred. One that needs more is set smaller, down to three quarters of
 * the layout's size; past that its second line ends in an ellipsis. */
static void lecture_caption(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    ui_lecture_layout P;
    ui_lecture_layout_of(f, fb_width, fb_height, &P);
    ui_lines one = {.count = 0}, l = {.count = 0};
    ui_add(&one, UI_WHITE, "%s", f->caption);
    float px = P.font_px, lh = 0, pad = 0;
    for (;;) {
        render_overlay_set_font_px(o, px);
        lh = render_overlay_line_height(o), pad = 0.5f * lh;
        l.count = 0;
        ui_wrap(o, &one.line[0], P.caption.w - 2 * pad, 1, 0, &l);
        if (l.count <= 2 || px <= 0.75f * P.font_px) break;
        px = fmaxf(0.75f * P.font_px, px - 1);
    }
    if (l.count > 2) {
        l.count = 2;
        char *t = l.line[1].text;
        size_t len = strlen(t);
        const float max_w = P.caption.w - 2 * pad - render_overlay_text_width(o, "…");
        while (len > 0 && render_overlay_text_width(o, t) > max_w) t[--len] = 0;
        snprintf(t + len, sizeof l.line[1].text - len, "…");
    }
    float w = 0;
    for (int i = 0; i < l.count; i++) w = fmaxf(w, render_overlay_text_width(o, l.line[i].text));
    const float x = P.caption.x + 0.5f * (P.caption.w - w - 2 * pad);
    const float y = P.caption.y + P.caption.h - (l.count * lh + 2 * pad);
    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w + 2 * pad, l.count * lh + 2 * pad, UI_PANEL);
    for (int i = 0; i < l.count; i++) {
        const float tw = render_overlay_text_width(o, l.line[i].text);
        render_overlay_text(o, x + pad + 0.5f * (w - tw), y + pad + lh * i, UI_WHITE,
                            l.line[i].text);
    }
    render_overlay_end(o);
}

void ui_caption_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    if (!f->caption || !f->caption[0]) return;
    if (f->lecture.on) {
        lecture_caption(ui, f, fb_width, fb_height);
        return;
    }
    render_overlay *o = ui->text; /* at the size the HUD or the help last set */
    render_overlay_begin(o, fb_width, fb_height);
    const float lh = render_overlay_line_height(o), m = ui_margin(lh), pad = 0.5f * lh;
    const float w = render_overlay_text_width(o, f->caption);
    const float x = fmaxf(m, 0.5f * (fb_width - w) - pad), y = fb_height - m - 3.5f * lh;
    render_overlay_rect(o, x, y, w + 2 * pad, lh + 2 * pad, UI_PANEL);
    render_overlay_text(o, x + pad, y + pad, UI_WHITE, f->caption);
    render_overlay_end(o);
}

bool ui_notes_shown(const ui_state *ui, const ui_facts *f) {
    char rec[64];
    float alpha = 0;
    return (ui->shown[UI_OVERLAY_HUD] && !f->capturing && ui_rec_text(f, rec, sizeof rec)) ||
           ui_hint_text(ui, f, &alpha);
}

void ui_notes_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text; /* at the size the HUD or the help last set */
    float alpha = 0;
    const char *hint = ui_hint_text(ui, f, &alpha);
    char rec[64];
    const bool recording =
        ui->shown[UI_OVERLAY_HUD] && !f->capturing && ui_rec_text(f, rec, sizeof rec);
    if (!hint && !recording) return;
    if (hint && ui->hint_since == 0) ui->hint_since = f->now; /* its first frame */
    render_overlay_begin(o, fb_width, fb_height);
    const float lh = render_overlay_line_height(o), m = ui_margin(lh), pad = 0.5f * lh;
    if (recording) { /* top right: a dot and the time */
        const float w = lh + render_overlay_text_width(o, rec);
        const float x = fb_width - m - w - 2 * pad, y = m;
        render_overlay_rect(o, x, y, w + 2 * pad, lh + 2 * pad, UI_PANEL);
        const float d = 0.6f * lh;
        render_overlay_rect(o, x + pad + 0.1f * lh, y + pad + 0.5f * (lh - d), d, d, REC_RED);
        render_overlay_text(o, x + pad + lh, y + pad, REC_RED, rec);
    }
    if (hint) { /* centred, above where the message line goes */
        const float w = render_overlay_text_width(o, hint);
        const float x = fmaxf(m, 0.5f * (fb_width - w) - pad);
        const float y = fb_height - m - 6 * lh;
        const float panel[4] = {UI_PANEL[0], UI_PANEL[1], UI_PANEL[2], UI_PANEL[3] * alpha};
        const float text[4] = {UI_KEY[0], UI_KEY[1], UI_KEY[2], alpha};
        render_overlay_rect(o, x, y, w + 2 * pad, lh + 2 * pad, panel);
        render_overlay_text(o, x + pad, y + pad, text, hint);
    }
    render_overlay_end(o);
}
