/* ui_lecture.c - where the panels go in lecture mode (--lecture): a pure
 * function of the picture's size, so a test can check it without GL.
 *
 *   +------------------------------------------------------------+
 *   | HUD (compact: the rung, step k of n, "PgDn next rung")     |
 *   +----------------+    subject     +--------------------------+
 *   | code panel     |  (the bodies:  | ladder chart             |
 *   | (the rung's    |   the lens     | (bars, or the ceilings)  |
 *   |  key lines; or |   centres      |                          |
 *   |  the frontier) |   them here)   |                          |
 *   +----------------+                +--------------------------+
 *   | caption: the rung's name and why (two lines)               |
 *   | message line                                               |
 *   +------------------------------------------------------------+
 *
 * The text is at least UI_LECTURE_FONT_SHARE of the height (24 px at 1080
 * lines), larger than the HUD's usual size at a content scale of 1, so
 * it reads from a lecture hall's back rows; a panel whose lines are wider
 * than its column makes its own text smaller, wraps or cuts them.
 */
#include <math.h>

#include "ui_internal.h"

#define LINE_RATIO 1.2f /* render_overlay_line_height: 1.2 x the font size */
#define FONT_MAX 96.0f  /* render/'s largest baked size */

bool ui_rect_overlap(ui_rect a, ui_rect b) {
    if (a.w <= 0 || a.h <= 0 || b.w <= 0 || b.h <= 0) return false;
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

void ui_lecture_place(int fb_width, int fb_height, float want_px, ui_lecture_layout *out) {
    const float W = (float)(fb_width > 0 ? fb_width : 0),
                H = (float)(fb_height > 0 ? fb_height : 0);
    float px = fmaxf(want_px, roundf(H * UI_LECTURE_FONT_SHARE));
    px = fminf(FONT_MAX, fmaxf(UI_MIN_PX, px));
    const float lh = LINE_RATIO * px, m = roundf(ui_margin(lh)), pad = 0.5f * lh;
    ui_lecture_layout L = {.font_px = px};
    L.hud = (ui_rect){m, m, fmaxf(0, W - 2 * m), 2 * lh + 2 * pad};
    L.message = (ui_rect){m, H - m - (lh + 2 * pad), fmaxf(0, W - 2 * m), lh + 2 * pad};
    L.caption = (ui_rect){m, L.message.y - 0.5f * m - (2 * lh + 2 * pad), fmaxf(0, W - 2 * m),
                          2 * lh + 2 * pad};
    const float top = L.hud.y + L.hud.h + m, bottom = L.caption.y - m;
    const float body = fmaxf(0, bottom - top);
    const float code_w = fmaxf(0, roundf(W * UI_LECTURE_CODE_SHARE) - m);
    const float chart_w = fmaxf(0, roundf(W * UI_LECTURE_CHART_SHARE) - m);
    L.code = (ui_rect){m, top, code_w, body};
    L.chart = (ui_rect){W - m - chart_w, top, chart_w, body};
    const float sx = L.code.x + L.code.w + m;
    L.subject = (ui_rect){sx, top, fmaxf(0, L.chart.x - m - sx), body};
    *out = L;
}

void ui_lecture_layout_of(const ui_facts *f, int fb_width, int fb_height, ui_lecture_layout *out) {
    ui_lecture_place(fb_width, fb_height, ui_font_px(f), out);
}
