/* ui.c - the overlay table and how a frame draws it (ui.h). */
#include <GLFW/glfw3.h> /* key codes only */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui_internal.h"

#define TREE_DEPTH_DEFAULT 3 /* cells: levels drawn below the first that fits the view */

/* The overlays, in the order they are drawn within a layer and listed in
 * the help. */
static const ui_overlay overlays[UI_OVERLAY_COUNT] = {
    [UI_OVERLAY_HUD] = {.name = "HUD",
                        .key = GLFW_KEY_TAB,
                        .key_label = "Tab",
                        .help = "HUD on / off",
                        .layer = UI_LAYER_PANEL,
                        .draw = ui_hud_draw},
    [UI_OVERLAY_HELP] = {.name = "help",
                         .key = GLFW_KEY_H,
                         .key_label = "H, F1",
                         .help = "this help",
                         .layer = UI_LAYER_PANEL,
                         .covers = true,
                         .draw = ui_help_draw},
    [UI_OVERLAY_CHART] = {.name = "ladder chart",
                          .key = GLFW_KEY_I,
                          .key_label = "I",
                          .help = "ladder chart: every rung's interactions/s at this N, timed live",
                          .layer = UI_LAYER_SCREEN,
                          .draw = ui_chart_view_draw,
                          .toggled = ui_chart_toggled,
                          .adjust_key = GLFW_KEY_I, /* with Shift: app_keys.c */
                          .adjust_label = "Shift+I",
                          .adjust_help = "ladder chart: bars / each rung against its ceilings",
                          .adjust = ui_chart_view_adjust},
    [UI_OVERLAY_CELLS] = {.name = "tree cells",
                          .key = GLFW_KEY_W,
                          .key_label = "W",
                          .help = "tree cells as wire boxes on / off",
                          .layer = UI_LAYER_SCENE,
                          .draw = ui_cells_draw,
                          .toggled = ui_cells_toggled,
                          .adjust_key = GLFW_KEY_L,
                          .adjust_label = "L",
                          .adjust_help = "tree cells: one level more (Shift: fewer)",
                          .adjust = ui_cells_adjust},
    [UI_OVERLAY_SELECT] = {.name = "selection panel",
                           .key = GLFW_KEY_F6,
                           .key_label = "F6",
                           .help = "selection panel and the sets' colours on / off",
                           .layer = UI_LAYER_PANEL,
                           .draw = ui_select_draw},
    /* Shown by Shift+X's sweep (app_frontier_key): no key of its own. */
    [UI_OVERLAY_FRONTIER] = {.name = "tree frontier",
                             .key_label = "Shift+X",
                             .help = "tree frontier: sweep theta and alpha on a copy of the "
                                     "bodies (again: stop, again: close)",
                             .layer = UI_LAYER_SCREEN,
                             .draw = ui_frontier_draw},
    [UI_OVERLAY_CODE] = {.name = "code panel",
                         .key = GLFW_KEY_APOSTROPHE,
                         .key_label = "'",
                         .help = "code panel: the running rung's key lines, those new against the "
                                 "rung before marked",
                         .layer = UI_LAYER_SCREEN,
                         .draw = ui_code_draw,
                         .toggled = ui_code_toggled},
};

const ui_overlay *ui_overlay_get(ui_overlay_id id) {
    return &overlays[id];
}

void ui_init(ui_state *ui, bool hud, base_msg *msg) {
    *ui = (ui_state){.msg = msg, .tree_depth = TREE_DEPTH_DEFAULT};
    ui->shown[UI_OVERLAY_HUD] = hud;
}

bool ui_gl_begin(ui_state *ui, const ui_gl_desc *desc, render_error *err) {
    ui->text = render_overlay_create(
        &(render_overlay_desc){.shader_dir = desc->shader_dir, .font_path = desc->font_path}, err);
    if (ui->text) {
        ui->boxes = render_boxes_create(&(render_boxes_desc){.shader_dir = desc->shader_dir}, err);
    }
    return ui->text && ui->boxes;
}

void ui_gl_end(ui_state *ui) {
    render_boxes_destroy(ui->boxes);
    render_overlay_destroy(ui->text);
    free(ui->cells);
    free(ui->box_scratch);
    ui->boxes = NULL;
    ui->text = NULL;
    ui->cells = NULL;
    ui->box_scratch = NULL;
}

void ui_toggle(ui_state *ui, ui_overlay_id id, const ui_facts *f, char *msg, size_t len) {
    ui->shown[id] = !ui->shown[id];
    if (len) msg[0] = 0;
    if (overlays[id].toggled) overlays[id].toggled(ui, f, msg, len);
}

ui_overlay_id ui_overlay_of_key(int key, bool *adjust) {
    for (int i = 0; i < UI_OVERLAY_COUNT; i++) {
        if ((overlays[i].key && overlays[i].key == key) ||
            (overlays[i].adjust_key && overlays[i].adjust_key == key)) {
            *adjust = overlays[i].key != key;
            return (ui_overlay_id)i;
        }
    }
    return UI_OVERLAY_COUNT;
}

/* Whether overlay i is drawn this frame (shown, and not covered). */
static bool drawn(const ui_state *ui, int i) {
    if (!ui->shown[i]) return false;
    if (overlays[i].layer == UI_LAYER_SCENE || overlays[i].covers) return true;
    for (int k = 0; k < UI_OVERLAY_COUNT; k++) {
        if (k != i && overlays[k].covers && ui->shown[k]) return false;
    }
    return true;
}

bool ui_layer_draws(const ui_state *ui, const ui_facts *f, ui_layer layer) {
    for (int i = 0; i < UI_OVERLAY_COUNT; i++) {
        if (overlays[i].layer == layer && drawn(ui, i)) return true;
    }
    return layer == UI_LAYER_PANEL && (ui_message_shown(ui, f) || ui_notes_shown(ui, f));
}

void ui_draw(ui_state *ui, const ui_facts *f, ui_layer layer, int fb_width, int fb_height) {
    if (!ui->text) return; /* no GL */
    for (int i = 0; i < UI_OVERLAY_COUNT; i++) {
        if (overlays[i].layer != layer) continue;
        float *box = ui->code.drawn[i]; /* where it drew, which the code panel keeps clear of */
        box[0] = box[1] = box[2] = box[3] = 0;
        if (drawn(ui, i)) {
            render_overlay_extent_reset(ui->text);
            overlays[i].draw(ui, f, fb_width, fb_height);
            render_overlay_extent(ui->text, box);
        }
    }
    if (layer == UI_LAYER_SCENE) {
        ui_caption_draw(ui, f, fb_width, fb_height);
        ui_colorbar_draw(ui, f, fb_width, fb_height); /* only in the density view */
    }
    if (layer == UI_LAYER_PANEL) {
        ui_message_draw(ui, f, fb_width, fb_height);
        ui_notes_draw(ui, f, fb_width, fb_height);
    }
}
