/* app_frame.c - one frame, and the outputs at the end of a run: what both
 * front-ends share.
 *
 * The window (app_window.c) and the headless front-end (app_headless.c)
 * only make a GL context and pump events; everything a frame does happens
 * in app_frame, so the headless tests exercise the same code the window
 * runs. This file orchestrates: each step of a frame is another file's or
 * another part's, called from here in order.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

/* F12: to nbody-<local time>-f<frame>.png in the current folder, shown and
 * printed with its absolute path. A failure is on the terminal (io_file.c)
 * and on the HUD, and makes the run exit 1 at the end. */
static void save_screenshot(app *a, int w, int h) {
    a->req.screenshot = false;
    char name[64], path[PATH_MAX + 64];
    io_stamped_name(name, sizeof name, ".png", a->live.frame);
    io_absolute(name, path, sizeof path);
    if (io_screenshot(a->render, path, w, h)) {
        base_msg_post(&a->msg, "wrote %s", path);
        return;
    }
    const int err = errno;
    a->req.write_failed = true;
    /* Not posted: the terminal has the error line already. */
    char line[sizeof a->msg.text + PATH_MAX];
    snprintf(line, sizeof line, "F12: screenshot NOT written (%s): %s", strerror(err), path);
    base_msg_show(&a->msg, BASE_MSG_SECONDS, line);
}

/* Test hook: with NBODY_TEST_RUNAWAY=F in the environment, body 0's
 * velocity becomes infinite just before frame F's steps (through
 * sim_set_bodies, so the step count and time restart at 0 there): a
 * blow-up at a known frame that the integrator itself finds at step 1,
 * for tests/test_limits.sh (exit 3). */
static void test_runaway(app *a) {
    const int n = sim_get_params(a->sim).body_count;
    sim_body *b = malloc(sizeof *b * (size_t)n);
    sim_error err = {0};
    if (b) {
        sim_get_bodies(a->sim, b);
        b[0].vel[0] = INFINITY;
        if (!sim_set_bodies(a->sim, b, n, &err)) fprintf(stderr, "nbody: %s\n", err.message);
    }
    free(b);
}

void app_step_frame(app *a) {
    const int steps = a->live.steps_per_frame;
    const double ms = sim_last_step_ms(a->sim);
    const double slow = a->fe.poll_ms > 0 ? a->fe.poll_ms : APP_POLL_MS;
    if (!a->fe.poll || steps <= 1 || !(ms * steps > slow)) {
        sim_step(a->sim, steps); /* false: stopped (app_stop_requested), the frame goes on */
        return;
    }
    /* One at a time, each finished before the input is handled (a CUDA
     * step is only queued by sim_step: sim_step_timed waits for it). */
    const sim_params p = sim_get_params(a->sim);
    const bool was_paused = a->live.paused; /* "." steps a whole frame while paused */
    for (int i = 0; i < steps; i++) {
        if (p.backend == SIM_BACKEND_CUDA) {
            sim_step_timed(a->sim, 1);
        } else if (!sim_step(a->sim, 1)) {
            break; /* stopped */
        }
        a->fe.poll(a->fe.poll_ctx);
        if (a->fe.quit || (a->live.paused && !was_paused) ||
            sim_get_params(a->sim).generation != p.generation) {
            break;
        }
    }
}

/* --record, --frames-dir (from the first frame) and M. A --record or
 * --frames-dir that failed (message printed) ends the run at once: the
 * frames after it would be simulated for nothing. */
static void record_requests(app *a, int fb_width, int fb_height) {
    io_record_update(&a->rec, fb_width, fb_height);
    const bool hud = a->ui.shown[UI_OVERLAY_HUD];
    if (a->live.frame == 0 && (a->cfg.record || a->cfg.frames_dir)) {
        io_record_start(&a->rec, a->cfg.record, a->cfg.frames_dir, false, fb_width, fb_height, hud);
    }
    if (a->rec.failed) a->fe.quit = true; /* before this frame steps */
    if (!a->req.record_toggle) return;
    a->req.record_toggle = false;
    if (io_record_running(&a->rec)) {
        io_record_stop(&a->rec);
        return;
    }
    char name[64], path[PATH_MAX];
    io_stamped_name(name, sizeof name, ".mp4", -1);
    io_absolute(name, path, sizeof path); /* named in full on the HUD and in messages */
    io_record_start(&a->rec, path, NULL, true, fb_width, fb_height, hud);
}

/* The video's own picture (--record-size, or the window's HUD kept out of
 * it), drawn first, at its own size, with the scene's overlays and
 * (--record-hud) the HUD's, and queued for it. */
static void record_offscreen(app *a, const render_view *view, const ui_facts *facts, int n) {
    render_view v = *view;
    render_target *t = io_record_target(&a->rec, &v.fb_width, &v.fb_height);
    if (!t) return;
    /* With the HUD in the video, the video's own layout leaves it room (its
     * lens is the video's: the window's stays the mouse's, app_camera.c). */
    const float window_lens = a->ui.lens_scale;
    if (a->cfg.record_hud) ui_fit_view(&a->ui, facts, v.fb_width, v.fb_height, &v);
    a->ui.lens_scale = window_lens;
    ui_facts f = *facts;
    f.view = v;
    render_bind_target(a->render, t);
    if (!app_density_draw(a, &v, &f, n)) render_frame(a->render, &v, n);
    ui_draw(&a->ui, &f, UI_LAYER_SCENE, v.fb_width, v.fb_height);
    if (a->cfg.record_hud) ui_draw(&a->ui, &f, UI_LAYER_PANEL, v.fb_width, v.fb_height);
    io_record_capture(&a->rec, true, false);
    render_bind_target(a->render, NULL);
}

/* The drawn bodies' tags, when they are new, as the renderer's 16 bits:
 * to CUDA's sprites now, to GL's after the upload (the vertex buffers hold
 * the drawn bodies then). The draw stride is planned first: it changes
 * only with N, so new tags come with it. */
static uint16_t *new_tags(app *a) {
    app_drawn_plan(a);
    const sim_params p = sim_get_params(a->sim);
    uint16_t *tags = NULL;
    if (p.generation != a->live.tags_generation && (tags = app_select_sim_tags(a))) {
        interop_tags(&a->interop, tags, p.drawn);
    }
    return tags;
}

void app_frame(app *a, int fb_width, int fb_height) {
    app_profile_mark(a, APP_PHASE_LOOP);
    app_live_frame_start(a);
    while (a->script.next < a->script.count &&
           a->script.events[a->script.next].frame <= a->live.frame) {
        const io_script_event *e = &a->script.events[a->script.next++];
        if (e->is_select) {
            app_select_request(a, &e->select);
        } else if (e->key == 0) {
            snprintf(a->script.caption, sizeof a->script.caption, "%s", e->caption);
        } else {
            app_key(a, e->key, e->mods);
        }
    }
    record_requests(a, fb_width, fb_height);
    /* Once the run is to stop, nothing long starts: the frame draws the
     * state as the last whole step left it. */
    if (!a->live.energy0_valid && !app_stopping(a) && !app_snapshot_playback(a)) {
        app_live_sample(a); /* E0 before the first step */
    }
    if (a->live.frame + 1 == a->live.runaway_at) test_runaway(a);
    const bool playback = app_snapshot_frame(a); /* a series plays: nothing steps */
    app_profile_mark(a, APP_PHASE_INPUT);
    app_live_plan_sample(a); /* whether this frame's steps return potentials for the HUD */
    if (!playback && (!a->live.paused || a->live.step_once) && !app_stopping(a)) {
        app_step_frame(a);
        a->live.step_once = false;
        a->live.frames_stepped++;
    }
    if (!playback && !app_stopping(a)) app_live_queue_sample(a); /* collected after the upload */
    app_profile_mark(a, APP_PHASE_STEP);
    if (a->view.follow_com) app_follow(a);
    app_campath_frame(a); /* a camera path playing moves the camera */
    app_profile_mark(a, APP_PHASE_DIAG);

    uint16_t *tags = new_tags(a);
    const sim_params p = sim_get_params(a->sim);
    ui_facts facts;
    app_ui_facts(a, &facts);
    render_view view = facts.view; /* the camera and look, at this frame's size */
    view.fb_width = fb_width;
    view.fb_height = fb_height;
    render_view window = view;
    /* The HUD keeps clear of the scene's middle. */
    ui_fit_view(&a->ui, &facts, fb_width, fb_height, &window);
    app_select_frame(a, &window, &tags); /* selections in this view, their colours in the tags */
    app_colour_frame(a, &window); /* a quantity's colours, over the vertices' speed */
    /* The vertices, and (app_sprites.c says when) the window's sprites drawn
     * by CUDA, in the same interop map or with none (interop.c); a video of
     * its own picture has GL draw sprites from the vertex buffer. */
    int record_w = 0, record_h = 0;
    a->interop.vertices_for_gl = io_record_target(&a->rec, &record_w, &record_h) != NULL;
    if (!interop_upload(&a->interop, a->sim, a->render,
                        !a->density.on && app_sprites_cuda(a, fb_width, fb_height) ? &window
                                                                                    : NULL)) {
        a->fe.quit = true; /* message printed */
    }
    window.sprites_drawn = a->interop.sprites_drawn;
    window.sprites_source = a->interop.source_drawn;
    window.sprites_slot = a->interop.source_slot;
    sim_error failure = {0};
    if (!a->live.sim_failed && sim_failed(a->sim, &failure)) { /* a lost GPU, a faulting kernel */
        fprintf(stderr, "nbody: %s\nhint: %s\n", failure.message, failure.hint);
        a->live.sim_failed = true;
        a->fe.quit = true;
    }
    app_live_check_nonfinite(a);
    if (tags) {
        render_upload_tags(a->render, tags, p.drawn);
        a->live.tags_generation = p.generation;
        free(tags);
    }
    app_profile_mark(a, APP_PHASE_UPLOAD);
    /* After the upload's wait for the steps: the tree's sample, queued
     * behind them, is in; another waits for its own pass alone. Either way
     * this frame's HUD shows it. None once the run is to stop. */
    if (!app_stopping(a) && !playback) { /* a series plays: its figures, nothing sampled */
        app_live_sample(a);
        app_live_force_error(a);
    }
    app_profile_mark(a, APP_PHASE_DIAG);

    if (a->cfg.profile && !a->prof.gl) a->prof.gl = render_timer_create();
    if (a->prof.gl) render_timer_begin(a->prof.gl);
    app_lecture_frame(a, fb_width, fb_height); /* --lecture: its step follows K */
    app_ui_facts(a, &facts); /* again: who drew the sprites, and a blow-up it found */
    facts.key_help = app_key_help;
    record_offscreen(a, &view, &facts, p.drawn); /* GL draws a video's own sprites */
    facts.view = window;
    if (!app_density_draw(a, &window, &facts, p.drawn)) {
        render_frame(a->render, &window, p.drawn);
        interop_source_read(&a->interop);
    }
    ui_draw(&a->ui, &facts, UI_LAYER_SCENE, fb_width, fb_height);
    app_profile_mark(a, APP_PHASE_DRAW);
    a->req.capturing = a->req.screenshot; /* no old "wrote ..." in the new picture */
    facts.capturing = a->req.capturing;
    /* A video of the window's picture: before the panel, or after it with
     * --record-hud; CUDA reads it in place unless something is drawn after. */
    const bool after_panel = ui_layer_draws(&a->ui, &facts, UI_LAYER_SCREEN);
    if (!a->cfg.record_hud) {
        io_record_capture(&a->rec, false,
                          ui_layer_draws(&a->ui, &facts, UI_LAYER_PANEL) || after_panel);
    }
    ui_draw(&a->ui, &facts, UI_LAYER_PANEL, fb_width, fb_height);
    if (a->cfg.record_hud) io_record_capture(&a->rec, false, after_panel);
    if (a->prof.gl) render_timer_end(a->prof.gl);
    app_profile_mark(a, APP_PHASE_HUD);

    if (!app_stopping(a)) app_ladder_update(a); /* I: one rung timed a frame while shown */
    app_frontier_frame(a, &facts); /* Shift+X: one point a frame while it sweeps */
    if (a->ui.shown[UI_OVERLAY_CHART] || a->ui.shown[UI_OVERLAY_FRONTIER]) {
        facts.rung_count = app_ladder_rows(a);
    }
    if (ui_layer_draws(&a->ui, &facts, UI_LAYER_SCREEN)) { /* chart, frontier, code panel */
        ui_draw(&a->ui, &facts, UI_LAYER_SCREEN, fb_width, fb_height);
    }
    if (a->req.screenshot) save_screenshot(a, fb_width, fb_height);
    if (a->cfg.status_every > 0 && a->live.frame % a->cfg.status_every == 0) {
        app_status_line(a, false);
    }
    io_record_frame_end(&a->rec); /* and the fence for the next frame's map, if it polls */
    if (a->rec.failed) a->fe.quit = true; /* a --record that failed in this frame */
    app_sprites_frame_end(a);
    /* The frame's drawing goes to the GPU now, not when the next frame's
     * interop map forces it out (docs/PERFORMANCE.md, "Frames"). */
    render_flush(a->render);
    app_profile_mark(a, APP_PHASE_REST);
    if (a->prof.last > 0) a->prof.frames++;
    a->live.frame++;
}

bool app_finish(app *a, int fb_width, int fb_height) {
    bool ok = io_record_finish(&a->rec); /* --record, --frames-dir, M */
    if (a->live.sim_failed) {            /* the bodies cannot be trusted: nothing made from them */
        const char *outputs[] = {a->cfg.screenshot, a->cfg.dump, a->cfg.status_json};
        for (int k = 0; k < 3; k++) {
            if (outputs[k])
                fprintf(stderr, "nbody: %s not written: the simulation failed\n", outputs[k]);
        }
        return false;
    }
    if (a->cfg.screenshot) {
        const bool written = io_screenshot(a->render, a->cfg.screenshot, fb_width, fb_height);
        if (written) {
            printf("nbody: wrote %s (%dx%d)\n", io_shown_name(&a->cfg, a->cfg.screenshot), fb_width,
                   fb_height);
        }
        ok = written && ok;
    }
    bool snapshot = false;
    if (a->cfg.dump && app_snapshot_dump(a, a->cfg.dump, &snapshot)) { /* .tipsy, .hdf5, .h5 */
        ok = snapshot && ok;
    } else if (a->cfg.dump) {
        const int n = sim_get_params(a->sim).body_count;
        sim_body *b = malloc(sizeof(sim_body) * (size_t)n);
        if (b && !sim_get_bodies(a->sim, b)) {
            fprintf(stderr,
                    "nbody: %s: stopped before the accelerations were computed: ax, ay, "
                    "az are nan\n",
                    a->cfg.dump);
        }
        if (!b) {
            fprintf(stderr, "nbody: out of memory for a dump of %d %s\n", n,
                    n == 1 ? "body" : "bodies");
        }
        const bool dumped = b && io_write_csv(a->cfg.dump, b, n);
        free(b);
        if (dumped) {
            printf("nbody: wrote %s (%d %s)\n", io_shown_name(&a->cfg, a->cfg.dump), n,
                   n == 1 ? "body" : "bodies");
        }
        ok = dumped && ok;
    }
    if (a->cfg.status_json) {
        app_status_line(a, true); /* the state at exit */
        ok = io_status_finish(&a->status) && ok;
    }
    return ok && !a->req.write_failed && !a->status.failed;
}

/* How long ms milliseconds is, in words: "0.8 s", "45 s", "3.2 min", "1.5 h". */
static void duration(char *out, size_t len, double ms) {
    const double s = ms / 1000.0;
    if (s < 100) {
        snprintf(out, len, "%.2g s", s);
    } else if (s < 6000) {
        snprintf(out, len, "%.2g min", s / 60);
    } else {
        snprintf(out, len, "%.2g h", s / 3600);
    }
}

void app_first_estimate(app *a) {
    const sim_params p = sim_get_params(a->sim);
    if (p.backend != SIM_BACKEND_CPU || p.body_count <= APP_PILOT_N) return;
    int n_from = 0;
    double ms_from = 0;
    a->live.first_step_ms = app_ladder_estimate(a, p.body_count, &n_from, &ms_from);
    /* The first energy sample (E0, before the first step) sums the potential
     * over all pairs: half an exact step's pairs, timed on the same pilot. */
    a->live.first_energy_ms = app_ladder_energy_estimate(a, p.body_count);
    const double step = a->live.first_step_ms, energy = a->live.first_energy_ms;
    if (step <= APP_STEP_MS_MAX && energy <= APP_STEP_MS_MAX) return;
    char s_step[32], s_energy[32];
    duration(s_step, sizeof s_step, step);
    duration(s_energy, sizeof s_energy, energy);
    const sim_method *m = sim_get_method(a->sim);
    fprintf(stderr,
            "nbody: warning: a step of %d bodies with %s will take ~%s here, the first energy "
            "sample ~%s (timed on %d of them); Esc or Ctrl-C stops within a block\n",
            p.body_count, m->name, s_step, s_energy, n_from);
    if (m->exact) {
        fprintf(stderr, "hint: --variant tree (or K in the window) steps in N log N; or a smaller "
                        "--n\n");
    } else {
        fprintf(stderr, "hint: a smaller --n, or a larger --theta (the tree's opening angle)\n");
    }
}

void app_first_frame(app *a, int fb_width, int fb_height) {
    uint16_t *tags = new_tags(a);
    const sim_params p = sim_get_params(a->sim);
    const double first = a->live.first_step_ms + a->live.first_energy_ms;
    if (first > APP_FIRST_FRAME_NOTE_MS) {
        char s_first[32];
        duration(s_first, sizeof s_first, first);
        base_msg_post(&a->msg,
                      "first step of %d bodies takes ~%s here (with the energy's "
                      "first sample); Esc quits",
                      p.body_count, s_first);
    }
    ui_facts facts;
    app_ui_facts(a, &facts);
    facts.key_help = app_key_help;
    render_view window = facts.view;
    window.fb_width = fb_width;
    window.fb_height = fb_height;
    ui_fit_view(&a->ui, &facts, fb_width, fb_height, &window);
    app_colour_frame(a, &window);
    if (!interop_upload(&a->interop, a->sim, a->render, NULL)) a->fe.quit = true;
    window.sprites_drawn = a->interop.sprites_drawn;
    if (tags) {
        render_upload_tags(a->render, tags, p.drawn);
        a->live.tags_generation = p.generation;
        free(tags);
    }
    facts.view = window;
    render_frame(a->render, &window, p.drawn);
    ui_draw(&a->ui, &facts, UI_LAYER_SCENE, fb_width, fb_height);
    ui_draw(&a->ui, &facts, UI_LAYER_PANEL, fb_width, fb_height);
    render_flush(a->render);
}
