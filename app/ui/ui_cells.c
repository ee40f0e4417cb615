/* ui_cells.c - the tree's cells as wire boxes (overlay W), in the scene's
 * view: the levels from the first whose cells fit the view down to
 * tree_depth more (L / Shift+L). The tree is rebuilt every step, so its
 * cells are read from the simulation every frame they are drawn.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ui_internal.h"

#define CELLS_MAX 262144 /* the most cells drawn */

static bool has_cells(const ui_facts *f) {
    return sim_get_method(f->sim)->has_cells;
}

void ui_cells_toggled(ui_state *ui, const ui_facts *f, char *msg, size_t len) {
    if (!ui->shown[UI_OVERLAY_CELLS]) {
        snprintf(msg, len, "tree cells hidden");
    } else if (has_cells(f)) {
        snprintf(msg, len, "tree cells: %d level%s from the first that fits the view (L / Shift+L)",
                 ui->tree_depth + 1, base_plural(ui->tree_depth + 1));
    } else {
        snprintf(msg, len, "tree cells shown when the tree runs (K to it)");
    }
}

void ui_cells_adjust(ui_state *ui, const ui_facts *f, int dir, char *msg, size_t len) {
    /* No deeper than the tree goes below the first level drawn (the tree
     * as last built; before it has run, the levels read from it). */
    const sim_tree_stats t = sim_get_tree_stats(f->sim);
    const int deepest = t.valid && t.depth < UI_TREE_LEVELS ? t.depth : UI_TREE_LEVELS;
    const int first = ui->tree_first < deepest ? ui->tree_first : deepest;
    const int most = deepest - first;
    int d = ui->tree_depth + dir;
    if (d < 0) d = 0;
    if (d > most) d = most;
    const bool stopped = dir > 0 && d == ui->tree_depth;
    ui->tree_depth = d;
    if (stopped && deepest < UI_TREE_LEVELS) {
        snprintf(msg, len,
                 "tree cells: %d level%s from the first that fits the view: the tree has %d "
                 "level%s, none more to show",
                 d + 1, base_plural(d + 1), t.depth + 1, base_plural(t.depth + 1));
    } else if (stopped) {
        snprintf(msg, len,
                 "tree cells: %d level%s from the first that fits the view, down to "
                 "level %d, the deepest drawn",
                 d + 1, base_plural(d + 1), UI_TREE_LEVELS);
    } else {
        snprintf(msg, len, "tree cells: %d level%s from the first that fits the view", d + 1,
                 base_plural(d + 1));
    }
}

void ui_cells_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    (void)fb_width;
    (void)fb_height;
    if (!has_cells(f) || !ui->boxes) return;
    if (!ui->cells) ui->cells = malloc(sizeof *ui->cells * CELLS_MAX);
    if (!ui->box_scratch) ui->box_scratch = malloc(sizeof *ui->box_scratch * CELLS_MAX);
    sim_tree_cell *cells = ui->cells;
    render_box *boxes = ui->box_scratch;
    if (!cells || !boxes) {
        ui->shown[UI_OVERLAY_CELLS] = false;
        base_msg_post(ui->msg, "tree cells hidden: no memory for %d of them", CELLS_MAX);
        return;
    }
    const int got = sim_tree_cells(f->sim, UI_TREE_LEVELS, cells, CELLS_MAX);
    /* Levels count from the first one whose cells fit the view: the root of
     * a Plummer sphere or a galaxy's halo spans stragglers far out, and cells
     * much larger than the view only cross the picture as lines through the
     * camera. L / Shift+L then go levels deeper or shallower from there. */
    const float largest = 0.35f * f->view.camera.distance;
    int first = UI_TREE_LEVELS;
    for (int i = 0; i < got; i++) {
        if (cells[i].half <= largest && cells[i].level < first) first = cells[i].level;
    }
    ui->tree_first = first; /* for L's limit */
    int n = 0;
    for (int i = 0; i < got; i++) {
        const int level = cells[i].level;
        if (cells[i].half > largest || level > first + ui->tree_depth) continue;
        boxes[n++] =
            (render_box){.center = {cells[i].center[0], cells[i].center[1], cells[i].center[2]},
                         .half = cells[i].half,
                         .level = (float)(level - first)};
    }
    render_error err = {0};
    if (n > 0 && !render_boxes_draw(ui->boxes, &f->view, boxes, n, &err)) {
        ui->shown[UI_OVERLAY_CELLS] = false;
        base_msg_post(ui->msg, "tree cells hidden: %s (%s)", err.message, err.hint);
    }
}
