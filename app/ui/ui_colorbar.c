/* ui_colorbar.c - the density view's colour bar: in the scene's layer (in
 * every picture, a video's too), at the bottom right of the picture where
 * the HUD's panel (top left) and the caption (bottom centre) are not, and
 * away from the subject, which the lens keeps in the middle of the part of
 * the window the HUD leaves free. A row above the bar names Σ and its
 * units, the tick labels below it are in those units, and a last row says
 * the stretch, auto or set, and which bodies. A picture too small for it
 * to stay out of the middle gets none (ui_colorbar_box).
 */
#include <math.h>
#include <stdio.h>

#include "ui_internal.h"

#define BAR_SEGMENTS 64 /* rectangles the gradient is drawn with */

int ui_colorbar_ticks(const ui_density *d, ui_tick *out) {
    if (!(d->lo > 0) || !(d->hi > d->lo)) return 0;
    const render_colormap_range range = {(float)d->lo, (float)d->hi, d->stretch};
    int count = 0;
    if (d->stretch == RENDER_STRETCH_ASINH) { /* asinh reaches 0: the bar starts there */
        out[count].t = 0;
        snprintf(out[count].label, sizeof out[count].label, "0");
        count++;
    }
    /* The powers of ten inside [lo, hi], every step-th so that at most
     * UI_TICKS_MAX - 2 of them are labelled. */
    const int first = (int)ceil(log10(d->lo) - 1e-9), last = (int)floor(log10(d->hi) + 1e-9);
    int step = 1;
    while ((last - first) / step + 1 > UI_TICKS_MAX - 2) step++;
    for (int e = first; e <= last && count < UI_TICKS_MAX; e += step) {
        out[count].t = render_colormap_t(&range, (float)pow(10.0, e));
        snprintf(out[count].label, sizeof out[count].label, "1e%d", e);
        count++;
    }
    /* The top end, when no power of ten falls on it. */
    if (count < UI_TICKS_MAX && fabs(log10(d->hi) - last) > 1e-6) {
        out[count].t = 1;
        snprintf(out[count].label, sizeof out[count].label, "%.2g", d->hi);
        count++;
    }
    return count;
}

bool ui_colorbar_box(float w, float h, float m, int fb_width, int fb_height, float box[4]) {
    box[0] = fmaxf(m, (float)fb_width - m - w);
    box[1] = (float)fb_height - m - h;
    box[2] = w;
    box[3] = h;
    /* The middle's right and bottom edges: the box must stay right of the
     * one or below the other. */
    const float right = 0.5f * (1 + UI_COLORBAR_CLEAR) * (float)fb_width;
    const float bottom = 0.5f * (1 + UI_COLORBAR_CLEAR) * (float)fb_height;
    const bool fits = w + 2 * m <= (float)fb_width && h + 2 * m <= (float)fb_height;
    return fits && (box[0] >= right || box[1] >= bottom);
}

bool ui_colorbar_shown(const ui_state *ui, const ui_facts *f) {
    return f->density.on && !ui->shown[UI_OVERLAY_HELP]; /* the help covers the window */
}

void ui_colorbar_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    const ui_density *d = &f->density;
    if (!ui_colorbar_shown(ui, f)) return;
    render_overlay *o = ui->text; /* at the size the HUD or the help last set */
    render_overlay_begin(o, fb_width, fb_height);
    const float lh = render_overlay_line_height(o), m = ui_margin(lh), pad = 0.5f * lh;
    char title[96], what[96];
    snprintf(title, sizeof title, "Σ %s", d->units);
    snprintf(what, sizeof what, "%s · %s · %s", render_stretch_name(d->stretch),
             d->manual ? "set" : "auto", d->bodies);
    const float text_w =
        fmaxf(render_overlay_text_width(o, title), render_overlay_text_width(o, what));
    const float bar_w = fminf(0.3f * (float)fb_width, 16 * lh), bar_h = 0.8f * lh;
    const float w = fmaxf(bar_w + 2 * lh, text_w) + 2 * pad, h = 4 * lh + bar_h + 2 * pad;
    float box[4];
    if (!ui_colorbar_box(w, h, m, fb_width, fb_height, box)) {
        render_overlay_end(o);
        return;
    }
    const float x = box[0], y = box[1];
    render_overlay_rect(o, x, y, w, h, UI_PANEL);
    render_overlay_text(o, x + pad, y + pad, UI_WHITE, title);
    render_overlay_text(o, x + pad, y + pad + 3 * lh + bar_h, UI_DIM, what);
    const float bx = x + w - pad - lh - bar_w, by = y + pad + 1.25f * lh;
    for (int k = 0; k < BAR_SEGMENTS; k++) {
        float rgb[3];
        render_colormap_rgb((k + 0.5f) / BAR_SEGMENTS, rgb);
        const float c[4] = {rgb[0], rgb[1], rgb[2], 1.0f};
        render_overlay_rect(o, bx + bar_w * k / BAR_SEGMENTS, by, bar_w / BAR_SEGMENTS + 0.5f, bar_h,
                            c);
    }
    ui_tick ticks[UI_TICKS_MAX];
    const int n = ui_colorbar_ticks(d, ticks);
    const float tick_w = fmaxf(1.0f, roundf(lh / 10));
    float right = -1e30f; /* where the last label ended: a label that would overlap is left out */
    for (int k = 0; k < n; k++) {
        const float tx = bx + ticks[k].t * bar_w;
        render_overlay_rect(o, tx - 0.5f * tick_w, by + bar_h, tick_w, 0.3f * lh, UI_WHITE);
        const float lw = render_overlay_text_width(o, ticks[k].label);
        const float lx = fminf(tx - 0.5f * lw, x + w - pad - lw);
        if (lx < right + 0.5f * lh) continue;
        render_overlay_text(o, lx, by + bar_h + 0.35f * lh, UI_WHITE, ticks[k].label);
        right = lx + lw;
    }
    render_overlay_end(o);
}
