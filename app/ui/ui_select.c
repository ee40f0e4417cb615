/* ui_select.c - the selection panel (overlay F6): the active selection
 * set's name, count, total mass and centre of mass, a histogram of the
 * quantity Shift+F7 picks (radius from the set's centre, speed, height
 * above its galaxy's disk plane) in the set's colour (galaxy scenes give
 * the mass in M_sun too, and the rest in kpc or km/s), and one line with
 * every set's count in its colour (* the active one). Its size is fixed
 * for a font size, so the lens does not move as the figures change. The app measures the sets
 * (app_select.c) and hands them in as ui_facts.select; this file only draws them.
 *
 * Its place: below the HUD panel (top left without it); ui_hud.c's layout
 * counts it in the lens, so the picture's subject stays in the part of the
 * window both panels leave free.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

#define PANEL_LINES 4  /* lines of text above the histogram */
#define HIST_ROWS 5    /* the histogram's height, lines */
#define PANEL_WIDTH 18 /* the panel's width, line heights (longer text runs past it) */

/* Whether the panel is drawn: shown, not under the help, and not in the
 * lecture, whose layout has no place for it (the sets keep their colours). */
static bool shown(const ui_state *ui, const ui_facts *f) {
    return ui->shown[UI_OVERLAY_SELECT] && !ui->shown[UI_OVERLAY_HELP] && !f->lecture.on &&
           f->select.sets;
}

/* Its lines: always PANEL_LINES of them, so its size (and the lens that
 * leaves it room) does not change with the figures. */
static void lines_of(const ui_facts *f, ui_lines *l) {
    const ui_select *s = &f->select;
    const ui_select_set *a = &s->sets[s->active];
    char n[32];
    base_commas(a->count, n, sizeof n);
    char plain[16];
    snprintf(plain, sizeof plain, "set %d", s->active + 1);
    if (!strcmp(a->name, plain)) { /* not named */
        ui_add(l, UI_WHITE, "Set %d", s->active + 1);
    } else {
        ui_add(l, UI_WHITE, "Set %d: %s", s->active + 1, a->name);
    }
    const char *what = a->count == 1 ? "body" : "bodies";
    if (f->galactic && a->mass > 0) {
        char msun[32];
        ui_sci(a->mass * SIM_GALAXY_MSUN_PER_MASS, msun, sizeof msun);
        ui_add(l, UI_WHITE, "%s %s, mass %.4g (%s M_sun)", n, what, a->mass, msun);
    } else {
        ui_add(l, UI_WHITE, "%s %s, mass %.4g", n, what, a->mass);
    }
    if (a->count > 0) {
        const double k = f->galactic ? SIM_GALAXY_KPC_PER_LENGTH : 1;
        ui_add(l, UI_WHITE, "centre (%.3g, %.3g, %.3g)%s", k * a->center[0], k * a->center[1],
               k * a->center[2], f->galactic ? " kpc" : "");
    } else {
        ui_add(l, UI_DIM, "F7: by property; Ctrl+drag: a box");
    }
    if (s->units) {
        ui_add(l, UI_DIM, "%s %.3g to %.3g %s", s->quantity, s->scale * a->lo, s->scale * a->hi,
               s->units);
    } else {
        ui_add(l, UI_DIM, "%s %.3g to %.3g", s->quantity, a->lo, a->hi);
    }
}

void ui_select_text(const ui_facts *f, char *out, size_t len) {
    ui_lines l = {.count = 0};
    if (f->select.sets) lines_of(f, &l);
    ui_lines_text(&l, out, len);
}

bool ui_select_size(ui_state *ui, const ui_facts *f, float *w, float *h) {
    if (!shown(ui, f) || !ui->text) return false;
    const float lh = render_overlay_line_height(ui->text), pad = 0.5f * lh;
    *w = PANEL_WIDTH * lh + 2 * pad;
    *h = lh * (PANEL_LINES + HIST_ROWS + 1) + 2 * pad;
    return true;
}

void ui_select_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    if (!shown(ui, f)) return;
    render_overlay *o = ui->text;
    float x = 0, y = 0, w = 0, h = 0;
    ui_select_place(ui, f, fb_width, fb_height, &x, &y); /* sets the font */
    if (!ui_select_size(ui, f, &w, &h)) return;
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    ui_lines l = {.count = 0};
    lines_of(f, &l);
    render_overlay_begin(o, fb_width, fb_height);
    render_overlay_rect(o, x, y, w, h, UI_PANEL);
    for (int i = 0; i < l.count; i++) {
        render_overlay_text(o, x + pad, y + pad + lh * i, l.line[i].color, l.line[i].text);
    }
    const ui_select *s = &f->select;
    const ui_select_set *a = &s->sets[s->active];
    float rgba[4] = {s->colors[s->active][0], s->colors[s->active][1], s->colors[s->active][2], 1};
    /* The histogram: bars in the set's colour, the tallest bin full height. */
    const float hx = x + pad, hy = y + pad + lh * l.count, hw = w - 2 * pad, hh = lh * HIST_ROWS;
    render_overlay_rect(o, hx, hy, hw, hh, UI_GRID);
    long most = 0;
    for (int i = 0; i < UI_SELECT_BINS; i++) most = a->hist[i] > most ? a->hist[i] : most;
    const float bw = hw / UI_SELECT_BINS;
    for (int i = 0; i < UI_SELECT_BINS && most > 0; i++) {
        const float bh = hh * (float)a->hist[i] / (float)most;
        if (bh > 0) render_overlay_rect(o, hx + i * bw, hy + hh - bh, fmaxf(1, bw - 1), bh, rgba);
    }
    /* Every set's count, each in its colour. */
    float tx = hx;
    for (int k = 0; k < UI_SELECT_SETS; k++) {
        const float c[4] = {s->colors[k][0], s->colors[k][1], s->colors[k][2], 1};
        char t[48];
        snprintf(t, sizeof t, "%s%d:%ld ", k == s->active ? "*" : "", k + 1, s->sets[k].count);
        tx = render_overlay_text(o, tx, hy + hh, c, t);
    }
    render_overlay_end(o);
}
