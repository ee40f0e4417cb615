/* ui_internal.h - what the files of ui/ share: colours, lines of text, and
 * the panel and wrapping helpers (ui_text.c), and the overlays' draws. */
#ifndef NBODY_UI_INTERNAL_H
#define NBODY_UI_INTERNAL_H

#include "ui.h"

#define UI_BASE_PX 17.0f /* text size before the screen's scale */
#define UI_MIN_PX 9.0f   /* text shrinks no further in small windows */
#define UI_MAX_LINES 128 /* the help has a line per key (and its wrapped lines) */

extern const float UI_WHITE[4], UI_DIM[4], UI_WARN[4], UI_GOOD[4], UI_KEY[4], UI_PANEL[4],
    UI_GRID[4], UI_CURVE[4];

typedef struct ui_line {
    char text[UI_LINE_MAX];
    const float *color;
} ui_line;

typedef struct ui_lines {
    ui_line line[UI_MAX_LINES];
    int count;
} ui_lines;

/* The frontier (Shift+X) shares the window's lower half with the chart
 * (I / Shift+I) outside the lecture: the frontier takes the left half,
 * the chart the right, each at most ui_half_width wide. */
bool ui_frontier_shown(const ui_state *ui, const ui_facts *f);
float ui_half_width(int fb_width, float margin);
/* The lines' texts into out, each ending in '\n' (cut at len); returns the
 * bytes written. */
size_t ui_lines_text(const ui_lines *l, char *out, size_t len);
/* Appends a formatted line (dropped past UI_MAX_LINES). */
void ui_add(ui_lines *l, const float *color, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 2.04e12 -> "2.04e12": three digits, no "+", no leading zeros in the
 * exponent (the ladder chart's and the ceilings view's rates). */
void ui_sci(double v, char *out, size_t len);
/* Appends line to out, split at spaces into pieces no wider than max_w
 * (text widths times `measure`: the ratio of the size laid out for to the
 * size the font is baked at); continuation pieces are indented by `hang`
 * spaces. */
void ui_wrap(render_overlay *o, const ui_line *line, float max_w, float measure, int hang,
             ui_lines *out);
/* A panel with lines, top-left at (x, y), at least min_w wide and with
 * extra_rows empty rows below the text; returns its height. */
float ui_panel(render_overlay *o, float x, float y, const ui_lines *l, float min_w, int extra_rows);
/* The margin around panels for a line height. */
float ui_margin(float line_height);
/* The text size wanted: UI_BASE_PX times the screen's and the user's scale. */
float ui_font_px(const ui_facts *f);

/* The overlays' draws and the helpers they export to ui.c. */
void ui_hud_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_help_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_help_text(const ui_facts *f, ui_lines *l);
void ui_hud_lines(const ui_facts *f, ui_lines *l);
void ui_chart_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_chart_toggled(ui_state *ui, const ui_facts *f, char *msg, size_t len);
/* The chart overlay's draw and Shift+I (ui_roofline.c): bars or ceilings. */
void ui_chart_view_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_chart_view_adjust(ui_state *ui, const ui_facts *f, int dir, char *msg, size_t len);
void ui_roofline_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_cells_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_cells_toggled(ui_state *ui, const ui_facts *f, char *msg, size_t len);
void ui_cells_adjust(ui_state *ui, const ui_facts *f, int dir, char *msg, size_t len);
void ui_select_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_frontier_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_code_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
void ui_code_toggled(ui_state *ui, const ui_facts *f, char *msg, size_t len);
/* The selection panel's size (at the overlay's font size now); false when
 * it is not drawn. Its place: below the HUD panel (ui_hud.c), else top left. */
bool ui_select_size(ui_state *ui, const ui_facts *f, float *w, float *h);
/* Where the selection panel goes: its top left (ui_hud.c lays it out with the HUD). */
void ui_select_place(ui_state *ui, const ui_facts *f, int fb_width, int fb_height, float *x,
                     float *y);
/* The sparkline inside the HUD panel at x, y, w x h. */
void ui_spark_draw(ui_state *ui, float x, float y, float w, float h);
/* The message line at the bottom. */
void ui_message_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
bool ui_message_shown(const ui_state *ui, const ui_facts *f);
/* A tour's caption, centred near the bottom of every picture (ui_hint.c). */
void ui_caption_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
/* The density view's colour bar, bottom right (ui_colorbar.c). */
void ui_colorbar_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
/* The first-run hint and the REC indicator (ui_hint.c). */
void ui_notes_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height);
bool ui_notes_shown(const ui_state *ui, const ui_facts *f);

#endif /* NBODY_UI_INTERNAL_H */
