/* ui_text.c - what the overlays share: the palette of the panels, lines of
 * text, wrapping at spaces and the panel behind them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

const float UI_WHITE[4] = {0.92f, 0.94f, 1.0f, 1.0f};
const float UI_DIM[4] = {0.62f, 0.68f, 0.78f, 1.0f};
const float UI_WARN[4] = {1.0f, 0.62f, 0.25f, 1.0f};
const float UI_GOOD[4] = {0.45f, 0.95f, 0.55f, 1.0f};
const float UI_KEY[4] = {1.0f, 0.85f, 0.4f, 1.0f};
const float UI_PANEL[4] = {0.02f, 0.03f, 0.06f, 0.72f};
const float UI_GRID[4] = {1.0f, 1.0f, 1.0f, 0.16f};
const float UI_CURVE[4] = {1.0f, 0.85f, 0.4f, 1.0f};

void ui_add(ui_lines *l, const float *color, const char *fmt, ...) {
    if (l->count == UI_MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->line[l->count].text, sizeof l->line[0].text, fmt, ap);
    va_end(ap);
    l->line[l->count++].color = color;
}

void ui_sci(double v, char *out, size_t len) {
    const int e = v > 0 ? (int)floor(log10(v)) : 0;
    const double m = v / pow(10, e);
    snprintf(out, len, "%.3ge%d", m >= 9.995 ? m / 10 : m, m >= 9.995 ? e + 1 : e);
}

bool ui_frontier_shown(const ui_state *ui, const ui_facts *f) {
    return ui->shown[UI_OVERLAY_FRONTIER] && f->frontier.on && !f->lecture.on;
}

float ui_half_width(int fb_width, float margin) {
    return 0.5f * fb_width - 1.5f * margin;
}

size_t ui_lines_text(const ui_lines *l, char *out, size_t len) {
    size_t used = 0;
    if (len) out[0] = 0;
    for (int i = 0; i < l->count && used + 1 < len; i++) {
        const int w = snprintf(out + used, len - used, "%s\n", l->line[i].text);
        if (w < 0) break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    return used;
}

float ui_margin(float line_height) {
    return line_height * 0.6f;
}

float ui_font_px(const ui_facts *f) {
    return roundf(UI_BASE_PX * (f->text_scale > 0 ? f->text_scale : 1.0f));
}

/* Appends line to out, split at spaces into pieces no wider than max_w
 * (text widths times `measure`: the ratio of the size laid out for to the
 * size the font is baked at); continuation pieces are indented by `hang`
 * spaces (under the text column). */
void ui_wrap(render_overlay *o, const ui_line *line, float max_w, float measure, int hang,
             ui_lines *out) {
    static const char spaces[] = "                                ";
    const char *rest = line->text;
    bool first = true;
    while (*rest && out->count < UI_MAX_LINES) {
        ui_line piece = {.color = line->color};
        const char *indent = first ? "" : spaces + (sizeof spaces - 1 - (size_t)hang);
        /* The longest run of whole words that fits (a first word too wide
         * for the line is taken whole), measured word by word: the HUD is
         * laid out twice a frame, so this runs often. */
        const size_t len = strlen(rest);
        size_t take = len, last_space = 0, from = 0;
        float w = render_overlay_text_width(o, indent);
        for (size_t k = 1; k <= len; k++) {
            if (rest[k] != ' ' && rest[k] != 0) continue;
            char word[sizeof piece.text];
            const size_t n = k - from < sizeof word ? k - from : sizeof word - 1;
            memcpy(word, rest + from, n);
            word[n] = 0;
            w += render_overlay_text_width(o, word);
            from = k;
            if (w * measure > max_w && last_space > 0) {
                take = last_space;
                break;
            }
            if (rest[k] == ' ') last_space = k;
        }
        snprintf(piece.text, sizeof piece.text, "%s%.*s", indent, (int)take, rest);
        out->line[out->count++] = piece;
        rest += take;
        while (*rest == ' ') rest++;
        first = false;
    }
}

/* A panel with lines, top-left at (x, y), at least min_w wide and with
 * extra_rows empty rows below the text; returns its height. */
float ui_panel(render_overlay *o, float x, float y, const ui_lines *l, float min_w,
               int extra_rows) {
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    float w = min_w;
    for (int i = 0; i < l->count; i++) {
        const float tw = render_overlay_text_width(o, l->line[i].text);
        if (tw > w) w = tw;
    }
    const float h = lh * (l->count + extra_rows) + 2 * pad;
    render_overlay_rect(o, x, y, w + 2 * pad, h, UI_PANEL);
    for (int i = 0; i < l->count; i++) {
        render_overlay_text(o, x + pad, y + pad + lh * i, l->line[i].color, l->line[i].text);
    }
    return h;
}
