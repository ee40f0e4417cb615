/* app_status.c - --status-json FILE: the live state as JSON lines.
 *
 * At exit, and with --status-every N every N frames, one JSON object per
 * line (JSON Lines; "at_exit" marks the one written at exit): every knob
 * of the knob table under its flag's name (config_knobs.c), then the
 * numbers the HUD shows. The energy fields are computed fresh from the
 * exact sum for each line, against an exact E0, so a script can check what
 * each key press did; the *_live fields are the HUD's own. io/ keeps the
 * lines and writes the file (io_status.c).
 *
 * "mode" is "playback" while a snapshot series plays, when the figures of a
 * running simulation (ms_per_step, interactions_per_s, dE_over_E0 and the
 * live energy) are null and t is the snapshot's own; else "simulation". t
 * and steps go on from a loaded file's own.
 */
#include <math.h>
#include <stdio.h>

#include "app.h"

/* JSON has no NaN or Infinity: those become null. */
static void number(char *out, size_t len, double v) {
    if (isfinite(v)) {
        snprintf(out, len, "%.9g", v);
    } else {
        snprintf(out, len, "null");
    }
}

void app_status_line(app *a, bool at_exit) {
    const sim_params p = sim_get_params(a->sim);
    const sim_diag d = sim_diagnostics(a->sim);
    app_live *l = &a->live;
    if (!l->energy0_exact_valid && isfinite(d.total)) {
        l->energy0_exact = d.total;
        l->energy0_exact_valid = true;
    }
    const bool playback = app_snapshot_playback(a);
    const double de = l->energy0_exact_valid && l->energy0_exact != 0
                          ? (d.total - l->energy0_exact) / fabs(l->energy0_exact)
                          : 0.0;
    const bool zero_copy = p.backend == SIM_BACKEND_CUDA && a->interop.path == INTEROP_ZERO_COPY;
    io_status_printf(&a->status,
                     "{\"format\": \"nbody-status\", \"version\": 2, \"at_exit\": %s, "
                     "\"frame\": %d",
                     at_exit ? "true" : "false", l->frame);
    for (int k = 0; k < CONFIG_KNOB_COUNT; k++) {
        char value[96];
        app_knob_json(a, (config_knob)k, value, sizeof value);
        io_status_printf(&a->status, ", \"%s\": %s", config_knob_get((config_knob)k)->name, value);
    }
    char e[32], de_s[32], vr[32], ms[32], ips[32], e_live[32], de_live[32];
    char caption[6 * IO_CAPTION_MAX + 3]; /* room for every byte escaped */
    base_json_string(caption, sizeof caption, a->script.caption);
    number(e, sizeof e, d.total);
    number(de_s, sizeof de_s, playback ? NAN : de); /* nothing steps: no drift */
    number(vr, sizeof vr, d.virial_ratio);
    number(ms, sizeof ms, playback ? NAN : (double)sim_last_step_ms(a->sim));
    number(ips, sizeof ips, playback ? NAN : app_interactions_per_s(a));
    /* The HUD's figures: from the tree's walk up to APP_SAMPLE_HZ times a
     * second, else sampled every few frames; energy_live_steps says after
     * how many steps (the line's own state when it equals "steps"). */
    const bool live = !playback && l->diag_valid && l->energy0_valid;
    number(e_live, sizeof e_live, live ? l->diag.total : NAN);
    number(de_live, sizeof de_live, live ? app_energy_error(a) : NAN);
    char live_steps[24] = "null";
    if (live) snprintf(live_steps, sizeof live_steps, "%lld", (long long)l->diag_steps);
    io_status_printf(&a->status, ", \"fullscreen\": %s, \"window\": [%d, %d]",
                     a->fe.fullscreen ? "true" : "false", a->fe.window_width, a->fe.window_height);
    io_status_printf(&a->status, ", \"drawn\": %d, \"draw_stride\": %d", p.drawn, p.draw_stride);
    char snapshot[3 * PATH_MAX + 1024]; /* "snapshot" and "playback" (app_snapshot.c) */
    app_snapshot_json(a, snapshot, sizeof snapshot);
    io_status_printf(&a->status, "%s", snapshot);
    app_select_status(a); /* "view" and "selection" */
    char campath[512]; /* "camera" and "camera_path" (app_campath.c) */
    app_campath_json(a, campath, sizeof campath);
    io_status_printf(&a->status, "%s", campath);
    char frontier[8192]; /* "frontier" (app_frontier.c) */
    app_frontier_json(a, frontier, sizeof frontier);
    io_status_printf(&a->status, "%s", frontier);
    char lecture[4096]; /* "lecture" (app_lecture.c), its layout the overlays' */
    ui_facts facts;
    app_ui_facts(a, &facts);
    app_lecture_json(a, &facts, lecture, sizeof lecture);
    io_status_printf(&a->status, "%s", lecture);
    /* How CUDA's sprites reached the picture (interop.c). */
    const char *via = !a->interop.sprites_drawn ? "gl"
                      : a->interop.source_drawn ? "egl-image"
                                                : "interop-map";
    io_status_printf(
        &a->status,
        ", \"mode\": \"%s\", \"t\": %.9g, \"steps\": %lld, \"paused\": %s, \"fps\": %.4g, "
        "\"ms_per_step\": %s, \"interactions_per_s\": %s, \"energy\": %s, \"dE_over_E0\": %s, "
        "\"virial_ratio\": %s, \"energy_live\": %s, \"dE_over_E0_live\": %s, "
        "\"energy_live_source\": \"%s\", \"energy_live_steps\": %s, \"interop\": \"%s\", "
        "\"sprites\": \"%s\", \"sprites_via\": \"%s\", \"sprites_mode\": \"%s\", \"color\": %d, "
        "\"hud\": %s, \"help\": %s, \"vsync\": %s, \"caption\": %s}\n",
        playback ? "playback" : "simulation", app_snapshot_time(a),
        (long long)app_snapshot_steps(a), l->paused ? "true" : "false", l->fps, ms, ips, e, de_s,
        vr, e_live, de_live, live && l->energy0_source == SIM_POTENTIAL_WALK ? "walk" : "exact",
        live_steps, zero_copy ? "zero-copy" : "host-copy", a->interop.sprites_drawn ? "cuda" : "gl",
        via, config_sprites_name(a->sprites.mode), (int)a->view.color,
        a->ui.shown[UI_OVERLAY_HUD] ? "true" : "false",
        a->ui.shown[UI_OVERLAY_HELP] ? "true" : "false", a->fe.vsync ? "true" : "false", caption);
    io_status_end_line(&a->status);
}
