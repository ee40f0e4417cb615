/* app_ui.c - what the overlays are told: the app's state as ui/ reads it
 * (ui_facts), made fresh whenever the UI draws or a key toggles an
 * overlay. The help's key lines (key_help) are left to the caller that
 * draws: they are the key table's (app_keys.c), which uses this file.
 *
 * "now" is the clock when the facts are made, after the frame's samples:
 * the ages the HUD shows ("sampled 0.2 s ago") count from it, so a sample
 * taken later in the frame than the frame's start is never in the future. */
#include <math.h>

#include "app.h"

void app_ui_facts(app *a, ui_facts *f) {
    const sim_params p = sim_get_params(a->sim);
    const app_live *l = &a->live;
    const io_record_info rec = io_record_get_info(&a->rec);
    *f = (ui_facts){
        .sim = a->sim,
        .view = {.camera = a->view.camera,
                 .point_size = a->view.point_size,
                 .brightness = a->view.brightness,
                 .speed_scale = a->view.speed_scale,
                 .color = a->view.color,
                 .hide_halo = a->view.hide_halo,
                 .exposure = a->view.exposure,
                 .auto_exposure = a->view.auto_exposure,
                 .bloom = a->view.bloom},
        .exposure = a->render ? render_exposure(a->render) : a->view.exposure,
        .scene_title = app_snapshot_title(a),
        .time = app_snapshot_time(a),
        .steps = app_snapshot_steps(a),
        .galactic = sim_ic_galactic(p.ic),
        .now = base_now(),
        .fps = l->fps,
        .steps_per_frame = l->steps_per_frame,
        .headless = a->cfg.headless,
        .vsync = a->fe.vsync,
        .text_scale = a->fe.content_scale * (a->cfg.hud_scale > 0 ? a->cfg.hud_scale : 1.0f),
        .text_scale_asked = a->cfg.hud_scale > 0,
        .playback = app_snapshot_playback_facts(a),
        .select = app_select_facts(a),
        .recording = {.on = rec.on, .video = rec.video, .frames = rec.frames, .fps = rec.fps},
        .interactions_per_s = app_interactions_per_s(a),
        .flops_per_interaction = app_flops_per_interaction(a),
        .energy_valid = l->diag_valid && l->energy0_valid && isfinite(l->diag.total),
        .energy = l->diag.total,
        .energy_walk = l->diag.source == SIM_POTENTIAL_WALK,
        .energy_hz = APP_SAMPLE_HZ,
        .energy_error = app_energy_error(a),
        .virial_ratio = l->diag.virial_ratio,
        .energy_time = l->diag_time,
        .ferr_valid = l->ferr_valid,
        .ferr = l->ferr,
        .ferr_time = l->ferr_time,
        .paused = l->paused,
        .blown_up = l->blown_up,
        .interop = p.backend == SIM_BACKEND_CUDA ? interop_path_name(a->interop.path) : "host copy",
        .sprites_by_cuda = a->interop.sprites_drawn,
        .sprites_auto = a->sprites.mode == CONFIG_SPRITES_AUTO && interop_cuda_sprites(&a->interop),
        .snapshot = app_snapshot_line(a),
        .drawn = a->drawn.line,
        .caption = app_lecture_caption(a), /* a --script tour's, or the lecture's */
        .campath = app_campath_line(a),
        .msg = &a->msg,
        .capturing = a->req.capturing,
        .rungs = a->ladder.rows,
        .rung_count = app_ladder_rows(a),
        .device = a->ladder.device,
        .quantity = a->colour.shown,
        .lecture = app_lecture_facts(a),
        .roof = app_roof_facts(a),
    };
}
