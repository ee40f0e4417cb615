/* ui_hud.c - the heads-up display and the help (overlays HUD and help).
 *
 * The HUD (Tab) shows the numbers a tuner or lecturer watches: frame rate,
 * step time from CUDA events, interactions/s and GFLOP/s (the method's
 * flops per interaction: 20, or 30 in double precision), N, scene, kernel
 * and block shape, the knobs, and the energy error sampled every few frames
 * (a warning past UI_ENERGY_WARN); galaxy scenes add Myr, kpc and km/s
 * beside the model units. Below the numbers: a scale bar at the camera
 * target's depth, a legend of the colour mode and the energy sparkline. The
 * help (H, F1) lists the key table and what p and q mean for the current
 * kernel.
 *
 * The panel keeps clear of the scene's middle: ui_fit_view lays the panel
 * out before the scene is drawn and gives the renderer a lens (an
 * off-centre, scaled projection) that fits the square the camera frames
 * around its target into the part of the window the panel leaves free
 * (ui_lens_fit, which holds it still while the text changes a little).
 * Sizes follow the window's content scale, so both read on a HiDPI laptop
 * and on a projector; in a small window the lines wrap and the font shrinks (to
 * UI_MIN_PX) until the panel fits HUD_MAX_HEIGHT of the window's height
 * (with --hud-scale, until it fits the window), never past its edge.
 *
 * While a snapshot series plays, the rows of the simulation (step time,
 * interactions, method, knobs, energy) give way to the series' own: the
 * file, its index, its time, N and the playback rate.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui_internal.h"

#define HUD_MAX_HEIGHT 0.45f /* of the window's height: beyond it the HUD font shrinks */
#define HELP_LABEL 18        /* characters of the key column in the help */
/* Rows under the HUD's text: the scale bar, the legend and the energy
 * sparkline (4.5 rows, kept while it has no samples yet so the panel does
 * not grow), but no sparkline while a series plays: nothing is simulated. */
static int rows_below(const ui_facts *f) {
    return f->playback.on ? 2 : 7;
}

/* The palettes of the colour modes, for the legend (shaders/nbody_shared.h). */
static const float SPEED_COLD[3] = {NBODY_RGB_SPEED_COLD}, SPEED_MID[3] = {NBODY_RGB_SPEED_MID},
                   SPEED_HOT[3] = {NBODY_RGB_SPEED_HOT};
static const float GALAXY1[3] = {NBODY_RGB_GALAXY_1}, GALAXY2[3] = {NBODY_RGB_GALAXY_2};
static const float DISK[3] = {NBODY_RGB_DISK}, BULGE[3] = {NBODY_RGB_BULGE};
static const float HALO_RGB[3] = {NBODY_RGB_HALO};

/* One swatch of the colour legend, or a gradient (the speed palette). */
typedef struct legend_item {
    float rgb[3];
    bool gradient;
    char label[48]; /* after the swatch */
} legend_item;

/* The HUD panel as laid out for one frame: where it goes, its lines at the
 * chosen font size, the scale bar and legend rows below them, and the lens
 * that fits the scene to the rest of the window. */
typedef struct hud_layout {
    bool panel;    /* the HUD panel is shown (HUD on, help closed) */
    float x, y, w, h;
    ui_lines lines;
    int text_rows;    /* lines that fit (all, unless the window is tiny) */
    float lens_scale; /* render_view's frame_scale and frame_center_px */
    float lens_center[2];
    float bar_px;         /* the scale bar's length in pixels, 0: none */
    char bar_label[48];   /* its length */
    char legend_head[48]; /* "colour: speed" */
    legend_item legend[4]; /* a mode's three at most, and the sets' note */
    int legend_count;
} hud_layout;

/* Several GPUs: each one's force time, the sum that joins their shares,
 * and the estimated parallel efficiency (sim_gpu_stats); spread, each
 * one's walk beside its force time and what the GPUs sent each other of
 * their trees, instead of the sum and estimate. */
static void gpus_line(const ui_facts *f, const sim_method *m, ui_lines *l) {
    const sim_gpu_stats g = sim_get_gpu_stats(f->sim);
    if (!g.measured) return;
    if (!g.split) {
        ui_add(l, UI_WHITE, "%d GPUs each compute all of %s's forces (it does not split them)",
               g.gpus, m->name);
        return;
    }
    char each[160] = "";
    int k = 0;
    for (int i = 0; i < g.gpus && k < (int)sizeof each; i++) {
        k += snprintf(each + k, sizeof each - (size_t)k, "%s%.2f", i ? " | " : "", g.forces_ms[i]);
    }
    if (g.spread) { /* no sum: each GPU integrates its own bodies */
        double sent = 0;
        char walks[160] = "";
        for (int i = 0, w = 0; i < g.gpus && w < (int)sizeof walks; i++) {
            sent += g.sent_mb[i];
            w += snprintf(walks + w, sizeof walks - (size_t)w, "%s%.2f", i ? " | " : "",
                          g.walk_ms[i]);
        }
        ui_add(l, UI_WHITE,
               "bodies spread: walks per GPU %s ms, forces with the waits %s ms   trees sent %.1f "
               "MB",
               walks, each, sent);
        return;
    }
    ui_add(l, UI_WHITE, "forces per GPU %s ms   sum %.2f ms of %.1f MB   efficiency ~%.0f%%", each,
           g.sum_ms, g.sum_bytes / 1e6, 100 * g.efficiency);
}

/* The line about the look and the pipeline (who steps, who draws). */
static void look_line(const ui_facts *f, ui_lines *l) {
    const bool cuda = sim_get_params(f->sim).backend == SIM_BACKEND_CUDA;
    const render_view *v = &f->view;
    char exposure[48] = "exposure not measured yet"; /* the renderer's, before its first picture */
    if (f->exposure > 0) {
        snprintf(exposure, sizeof exposure, "exposure %.3g%s", f->exposure,
                 v->auto_exposure ? " (auto)" : "");
    }
    ui_add(l, UI_DIM, "%s · %s · sprites by %s%s · colour: %s · sprite %.3g · %s%s%s · H for help",
           cuda ? "CUDA" : "CPU", f->interop, f->sprites_by_cuda ? "CUDA" : "GL",
           f->sprites_auto ? " (auto)" : "", render_color_name(v->color), v->point_size, exposure,
           v->bloom ? " · bloom" : "",
           f->galactic ? (v->hide_halo ? " · halo hidden" : " · halo shown") : "");
}

/* A series plays: its own figures instead of the simulation's (nothing
 * steps, so step times, interactions and the energy's drift say nothing). */
static void playback_lines(const ui_facts *f, ui_lines *l) {
    const ui_playback *pb = &f->playback;
    const sim_params p = sim_get_params(f->sim);
    char n[32];
    base_commas(p.body_count, n, sizeof n);
    const bool end = !pb->playing && pb->index + 1 == pb->count;
    ui_add(l, UI_KEY, "PLAYBACK %.2f of %d   %s   %s", pb->position + 1, pb->count, pb->file,
           pb->playing ? "playing"
           : end       ? "at the end"
                       : "paused");
    char when[48] = "";
    if (f->galactic && !pb->time_is_index)
        snprintf(when, sizeof when, " (%.4g Myr)", pb->time * SIM_GALAXY_MYR_PER_TIME);
    ui_add(l, UI_WHITE, "%s bod%s   t = %.6g%s, %s", n, p.body_count == 1 ? "y" : "ies", pb->time,
           when,
           pb->time_is_index  ? "the file's index (the files' times do not increase)"
           : pb->time_of_file ? "the file's own"
                              : "interpolated between the files' times");
    if (f->drawn && f->drawn[0]) ui_add(l, UI_KEY, "%s", f->drawn);
    ui_add(l, UI_WHITE, "%.3g snapshots/s (9 slower, 0 faster)   interpolation: %s", pb->speed,
           pb->interp ? pb->interp : "none");
    ui_add(l, UI_WHITE, "bodies matched %s", pb->match ? pb->match : "by file order");
    ui_add(l, UI_WHITE, "%s file: %s", pb->format, pb->units);
    ui_add(l, UI_DIM,
           "Space %s   . , one snapshot   ] [ ten   \\ interpolation   Enter: simulate from the "
           "nearest",
           pb->playing ? "pauses" : "plays");
    look_line(f, l);
    if (f->snapshot && f->snapshot[0]) ui_add(l, UI_KEY, "%s", f->snapshot);
    if (f->campath && f->campath[0]) ui_add(l, UI_KEY, "%s", f->campath);
}

/* Lecture mode (--lecture): two lines, the step and the clicker's keys,
 * then the running rung's figures; a warning only when there is one. */
static void lecture_lines(const ui_facts *f, ui_lines *l) {
    const ui_lecture *k = &f->lecture;
    const sim_params p = sim_get_params(f->sim);
    const sim_method *m = sim_get_method(f->sim);
    char n[32];
    base_commas(p.body_count, n, sizeof n);
    const bool last = k->step + 1 >= k->steps;
    ui_add(l, UI_KEY, "%s   step %d of %d   %s", k->summary ? "the whole ladder" : k->rung,
           k->step + 1, k->steps,
           last ? "PgUp back (the last step)" : "PgDn next rung   PgUp back");
    char where[16] = "CPU";
    if (p.backend == SIM_BACKEND_CUDA) {
        snprintf(where, sizeof where, p.gpus > 1 ? "%d GPUs" : "GPU", p.gpus);
    }
    ui_add(l, UI_WHITE, "%s bodies   %s %s %s   %.3f ms/step   %.3g interactions/s%s   %.0f fps", n,
           m->fp64 ? "FP64" : "FP32", where, m->name, sim_last_step_ms(f->sim),
           f->interactions_per_s, m->exact ? "" : " evaluated", f->fps);
    if (f->blown_up) ui_add(l, UI_WARN, "NaN/Inf positions: paused. R re-seeds");
}

void ui_hud_lines(const ui_facts *f, ui_lines *l) {
    if (f->lecture.on) {
        lecture_lines(f, l);
        return;
    }
    if (f->playback.on) {
        playback_lines(f, l);
        return;
    }
    const sim_params p = sim_get_params(f->sim);
    const bool cuda = p.backend == SIM_BACKEND_CUDA;
    const bool units = f->galactic;
    const sim_method *m = sim_get_method(f->sim);
    char n[32];
    base_commas(p.body_count, n, sizeof n);
    const float ms = sim_last_step_ms(f->sim);
    const double ips = f->interactions_per_s, fpi = f->flops_per_interaction;

    char fps[32] = "frames/s not measured yet"; /* the first frame's */
    if (f->fps > 0) {
        snprintf(fps, sizeof fps, "%.0f frame%s/s", f->fps, base_plural(lround(f->fps)));
    }
    ui_add(l, UI_WHITE, "%s   %.3f ms/step (%s)   %d step%s/frame%s", fps, ms,
           cuda ? "CUDA events" : "CPU clock", f->steps_per_frame, base_plural(f->steps_per_frame),
           f->headless ? ""
           : f->vsync  ? "   vsync"
                       : "");
    if (!m->exact) {
        ui_add(l, UI_WHITE, "%.3g interactions/s evaluated (cells and bodies, not N²)", ips);
    } else {
        ui_add(l, UI_WHITE, "%.3g interactions/s   %.1f GFLOP/s  (N²/step, %.0f flops each)", ips,
               ips * fpi * 1e-9, fpi);
    }
    char when[48] = "";
    if (units) snprintf(when, sizeof when, "%.4g Myr, ", f->time * SIM_GALAXY_MYR_PER_TIME);
    ui_add(l, UI_WHITE, "%s bod%s   %s   t = %.3f (%s%lld step%s)", n,
           p.body_count == 1 ? "y" : "ies", f->scene_title, f->time, when, f->steps,
           base_plural((long)f->steps));
    if (f->drawn && f->drawn[0]) ui_add(l, UI_KEY, "%s", f->drawn);
    /* The method: its precision, where it runs, its name and knobs, what it adds. */
    char knobs[64] = "";
    int k = 0;
    if (m->uses_theta) k += snprintf(knobs + k, sizeof knobs - (size_t)k, "  θ %.2f", p.theta);
    if (m->uses_theta && p.tree_alpha > 0) {
        k += snprintf(knobs + k, sizeof knobs - (size_t)k, "  α %.3g", p.tree_alpha);
    }
    if (m->block_shape && m->q_meaning) {
        snprintf(knobs + k, sizeof knobs - (size_t)k, "  p×q %d×%d", p.p, p.q);
    } else if (m->block_shape) {
        snprintf(knobs + k, sizeof knobs - (size_t)k, "  p %d", p.p);
    }
    char where[16] = "CPU";
    if (cuda) snprintf(where, sizeof where, p.gpus > 1 ? "%d GPUs" : "GPU", p.gpus);
    ui_add(l, m->fp64 ? UI_GOOD : UI_KEY, "%s %s %s%s: %s", m->fp64 ? "FP64" : "FP32", where,
           m->name, knobs, m->description);
    const sim_tree_stats t = sim_get_tree_stats(f->sim);
    if (m->has_cells && t.valid) {
        char cells[32];
        base_commas(t.cells, cells, sizeof cells);
        ui_add(l, UI_WHITE,
               "build %.2f ms  walk %.2f ms%s  depth %d  %s cells  %.0f interactions/body",
               t.build_ms, t.walk_ms, p.gpus > 1 ? " (GPU 0's share)" : "", t.depth, cells,
               t.interactions_per_body);
    }
    if (p.gpus > 1) gpus_line(f, m, l);
    if (f->ferr_valid) {
        ui_add(l, f->ferr.p99 > 1e-2 ? UI_WARN : UI_WHITE,
               "force error vs exact (%d bod%s, %.0f s ago): median %.1e  99%% %.1e  (X)",
               f->ferr.samples, f->ferr.samples == 1 ? "y" : "ies", fmax(0, f->now - f->ferr_time),
               f->ferr.median, f->ferr.p99);
    }
    char damping[48];
    if (p.damping == 1.0f) {
        snprintf(damping, sizeof damping, "1 (none)");
    } else {
        snprintf(damping, sizeof damping, "%.6g", (double)p.damping);
    }
    if (units) {
        ui_add(l, UI_WHITE, "dt %.4g (%.3g Myr)   ε %.4g (%.3g kpc)   damping %s", p.dt,
               p.dt * SIM_GALAXY_MYR_PER_TIME, p.softening, p.softening * SIM_GALAXY_KPC_PER_LENGTH,
               damping);
    } else {
        ui_add(l, UI_WHITE, "dt %.4g   ε %.4g   damping %s", p.dt, p.softening, damping);
    }
    if (f->energy_valid) {
        if (fabs(f->energy_error) > UI_ENERGY_WARN) {
            ui_add(l, UI_WARN,
                   "E %.6g   ΔE/E₀ %+.2e: energy not conserved (Shift+T halves dt, S raises ε)",
                   f->energy, f->energy_error);
        } else if (f->energy_walk) {
            ui_add(l, UI_WHITE, "E %.6g   ΔE/E₀ %+.2e   2K/|W| %.3f   (the tree's, up to %.0f/s)",
                   f->energy, f->energy_error, f->virial_ratio, f->energy_hz);
        } else {
            ui_add(l, UI_WHITE, "E %.6g   ΔE/E₀ %+.2e   2K/|W| %.3f   (sampled %.1f s ago)",
                   f->energy, f->energy_error, f->virial_ratio, fmax(0, f->now - f->energy_time));
        }
    }
    look_line(f, l);
    if (f->snapshot && f->snapshot[0]) ui_add(l, UI_KEY, "%s", f->snapshot);
    if (f->campath && f->campath[0]) ui_add(l, UI_KEY, "%s", f->campath);
    if (p.damping < 1.0f) ui_add(l, UI_WARN, "damping < 1: energy is not conserved");
    if (f->blown_up) {
        ui_add(l, UI_WARN, "NaN/Inf positions: paused. R re-seeds, Shift+T halves dt, S softens");
    } else if (f->paused) {
        ui_add(l, UI_WARN, "PAUSED   (Space runs, . steps once)");
    }
}

void ui_help_text(const ui_facts *f, ui_lines *l) {
    ui_add(l, UI_WHITE, "nbody: keys and mouse");
    char label[64], text[160];
    for (int i = 0; f->key_help && f->key_help(i, label, sizeof label, text, sizeof text); i++) {
        ui_add(l, UI_KEY, "%-*s %s", HELP_LABEL, label, text);
    }
    /* What K steps through here, and what p and q mean for the running method. */
    const sim_backend b = sim_get_params(f->sim).backend;
    sim_variant methods[UI_RUNGS_MAX];
    const int count = sim_methods(b, methods, UI_RUNGS_MAX);
    char names[256] = "";
    for (int i = 0, k = 0; i < count && i < UI_RUNGS_MAX && k < (int)sizeof names; i++) {
        k += snprintf(names + k, sizeof names - (size_t)k, "%s%s", i ? ", " : "",
                      sim_method_of(b, methods[i])->name);
    }
    ui_add(l, UI_DIM, "K steps through the %s methods: %s",
           b == SIM_BACKEND_CPU ? "CPU's" : "GPU's", names);
    const sim_method *m = sim_get_method(f->sim);
    if (!m->block_shape) {
        ui_add(l, UI_DIM, "%s takes no block shape: P and Q (the GPU kernels' p and q) do nothing",
               m->name);
        return;
    }
    ui_add(l, UI_DIM, "for %s: p = %s", m->name, m->p_meaning ? m->p_meaning : "not used");
    ui_add(l, UI_DIM, "         q = %s",
           m->q_meaning ? m->q_meaning : "not used (one thread per body)");
}

/* ---- scale bar and legend ------------------------------------------------ */

/* The largest 1, 2 or 5 times a power of ten not above x (> 0). Consecutive
 * ones differ by at most 2.5, so between 10 % and 25 % of a width there is
 * always one. */
static double round_length(double x) {
    const double decade = pow(10, floor(log10(x)));
    const double m = x / decade;
    return (m >= 5 ? 5 : m >= 2 ? 2 : 1) * decade;
}

/* Pixels per length unit at the camera target's depth, through the lens. */
static double pixels_per_unit(const ui_facts *f, int fb_height, float lens_scale) {
    const render_camera *c = &f->view.camera;
    const double fov = c->fov_y > 0 ? c->fov_y : NBODY_FOV_Y_DEFAULT;
    return lens_scale * (fb_height / 2.0) / (tan(fov / 2) * (c->distance > 0 ? c->distance : 1));
}

static void scale_bar(const ui_facts *f, int fb_width, int fb_height, hud_layout *L) {
    const double ppu = pixels_per_unit(f, fb_height, L->lens_scale);
    L->bar_px = 0;
    if (!(ppu > 0) || !isfinite(ppu)) return;
    const double len = round_length(0.25 * fb_width / ppu);
    L->bar_px = (float)(len * ppu);
    if (f->galactic) {
        snprintf(L->bar_label, sizeof L->bar_label, "%g kpc", len * SIM_GALAXY_KPC_PER_LENGTH);
    } else {
        snprintf(L->bar_label, sizeof L->bar_label, "%g length unit%s", len, len == 1 ? "" : "s");
    }
}

/* The legend as the colour mode's name and a note, no swatch. */
static void legend_note(const ui_facts *f, hud_layout *L, const char *note) {
    snprintf(L->legend_head, sizeof L->legend_head, "colour: %s", render_color_name(f->view.color));
    snprintf(L->legend[0].label, sizeof L->legend[0].label, "%s", note);
    L->legend[0].rgb[0] = -1;
    L->legend_count = 1;
}

/* Whether the selection sets' colours are drawn over the mode's: the panel
 * shown and some body in a set (app_select.c tags them then). */
static bool set_colours(const ui_state *ui, const ui_facts *f) {
    if (!ui->shown[UI_OVERLAY_SELECT] || !f->select.sets || f->lecture.on) return false;
    for (int k = 0; k < UI_SELECT_SETS; k++) {
        if (f->select.sets[k].count > 0) return true;
    }
    return false;
}

static void legend_mode(const ui_facts *f, hud_layout *L) {
    const sim_params p = sim_get_params(f->sim);
    L->legend_count = 0;
    legend_item *it = L->legend;
    if (f->density.on) { /* the map's colour bar says what its colours are */
        legend_note(f, L, "(the sprites': not in the density view)");
        return;
    }
    switch (f->view.color) {
    case RENDER_COLOR_SPEED: {
        snprintf(L->legend_head, sizeof L->legend_head, "colour: speed 0");
        const double top = f->view.speed_scale > 0 ? f->view.speed_scale : 1.0;
        it[0].gradient = true;
        if (f->galactic) {
            snprintf(it[0].label, sizeof it[0].label, "%.3g and more (%.0f km/s)", top,
                     top * SIM_GALAXY_KMS_PER_VELOCITY);
        } else {
            snprintf(it[0].label, sizeof it[0].label, "%.3g and more", top);
        }
        L->legend_count = 1;
        break;
    }
    case RENDER_COLOR_BODY:
        snprintf(L->legend_head, sizeof L->legend_head, "colour: per body");
        snprintf(it[0].label, sizeof it[0].label, "(a fixed colour each, to follow them)");
        it[0].rgb[0] = -1; /* no swatch */
        L->legend_count = 1;
        break;
    case RENDER_COLOR_GALAXY: {
        snprintf(L->legend_head, sizeof L->legend_head, "colour: galaxy");
        memcpy(it[0].rgb, GALAXY1, sizeof GALAXY1);
        snprintf(it[0].label, sizeof it[0].label, "%s", p.ic == SIM_IC_MERGER ? "first" : "one");
        L->legend_count = 1;
        if (p.ic == SIM_IC_MERGER) {
            memcpy(it[1].rgb, GALAXY2, sizeof GALAXY2);
            snprintf(it[1].label, sizeof it[1].label, "second");
            L->legend_count = 2;
        }
        break;
    }
    case RENDER_COLOR_DENSITY:
    case RENDER_COLOR_RADIAL:
    case RENDER_COLOR_POTENTIAL: {
        /* The quantity's range, its name and units: "colour: density 0.1
         * [gradient] 30 M_sun/kpc² (log)"; the palette is the speed's. */
        const ui_quantity *q = &f->quantity;
        if (!q->on || !q->computed) {
            legend_note(f, L, "(not computed yet)");
            break;
        }
        snprintf(L->legend_head, sizeof L->legend_head, "colour: %s %.3g", q->name, q->lo);
        it[0].gradient = true;
        snprintf(it[0].label, sizeof it[0].label, "%.3g %s%s", q->hi, q->units,
                 q->log ? " (log)" : "");
        L->legend_count = 1;
        break;
    }
    case RENDER_COLOR_COMPONENT:
    case RENDER_COLOR_COUNT:
        snprintf(L->legend_head, sizeof L->legend_head, "colour: component");
        memcpy(it[0].rgb, DISK, sizeof DISK);
        memcpy(it[1].rgb, BULGE, sizeof BULGE);
        for (int k = 0; k < 3; k++) it[2].rgb[k] = HALO_RGB[k] * (float)NBODY_HALO_DIM;
        snprintf(it[0].label, sizeof it[0].label, "disk");
        snprintf(it[1].label, sizeof it[1].label, "bulge");
        snprintf(it[2].label, sizeof it[2].label, "%s",
                 f->view.hide_halo ? "halo (hidden)" : "halo");
        L->legend_count = 3;
        break;
    }
}

/* The colour mode's legend, and a note where the selection sets' colours
 * are drawn over it (the other bodies dimmed). */
static void legend(const ui_state *ui, const ui_facts *f, hud_layout *L) {
    legend_mode(f, L);
    if (!f->density.on && set_colours(ui, f) && L->legend_count < 4) {
        legend_item *it = &L->legend[L->legend_count++];
        snprintf(it->label, sizeof it->label, "%s", "sets in their own colours (F6)");
        it->rgb[0] = -1;
        it->gradient = false;
    }
}

/* Width of the legend row at the baked font size. */
static float legend_width(render_overlay *o, const hud_layout *L) {
    const float lh = render_overlay_line_height(o);
    float w = render_overlay_text_width(o, L->legend_head);
    for (int i = 0; i < L->legend_count; i++) {
        if (L->legend[i].rgb[0] >= 0 || L->legend[i].gradient) {
            w += L->legend[i].gradient ? 0.5f * lh + 6 * lh : 0.5f * lh + lh;
        }
        w += 0.5f * lh + render_overlay_text_width(o, L->legend[i].label);
    }
    return w;
}

static void draw_legend(render_overlay *o, const hud_layout *L, float x, float y) {
    const float lh = render_overlay_line_height(o), sw = 0.55f * lh;
    float pen = render_overlay_text(o, x, y, UI_DIM, L->legend_head);
    for (int i = 0; i < L->legend_count; i++) {
        const legend_item *it = &L->legend[i];
        if (it->gradient) {
            pen += 0.5f * lh;
            const int steps = 24;
            const float seg = 6 * lh / steps;
            for (int k = 0; k < steps; k++) {
                const float t = (k + 0.5f) / steps; /* bodies.vert's speed_palette */
                const float *from = t < 0.5f ? SPEED_COLD : SPEED_MID;
                const float *to = t < 0.5f ? SPEED_MID : SPEED_HOT;
                const float f = t < 0.5f ? t * 2 : t * 2 - 1;
                const float c[4] = {from[0] + (to[0] - from[0]) * f,
                                    from[1] + (to[1] - from[1]) * f,
                                    from[2] + (to[2] - from[2]) * f, 1};
                render_overlay_rect(o, pen + k * seg, y + 0.5f * (lh - sw), seg + 0.5f, sw, c);
            }
            pen += 6 * lh;
        } else if (it->rgb[0] >= 0) {
            pen += 0.5f * lh;
            const float c[4] = {it->rgb[0], it->rgb[1], it->rgb[2], 1};
            render_overlay_rect(o, pen, y + 0.5f * (lh - sw), lh, sw, c);
            pen += lh;
        }
        pen = render_overlay_text(o, pen + 0.5f * lh, y, UI_DIM, it->label);
    }
}

/* ---- layout ------------------------------------------------------------- */

/* The lens for panels that reach right and down to (right, bottom): the
 * free part is right of them (full height) or below them (full width),
 * whichever holds the larger square; the square the camera frames in the
 * whole window (its shorter side) is scaled to it. So that the picture
 * stays put while the panels' text changes (the frame rate's digits, a
 * legend's words), the width counts in steps of UI_LENS_WIDTH_STEP lines and
 * the height in whole lines, and the lens holds on to what it was made
 * for: the extents grow at once but shrink only past UI_LENS_HOLD_LINES
 * lines, and the free part changes side only when the other holds a
 * square UI_LENS_SWITCH_GAIN larger; a new window size starts afresh. */
void ui_lens_fit(ui_lens_hold *hold, float right_px, float bottom_px, float lh, int fb_width,
                 int fb_height, float *scale, float center[2]) {
    const float m = ui_margin(lh);
    float right = ceilf(right_px / (UI_LENS_WIDTH_STEP * lh)) * UI_LENS_WIDTH_STEP * lh + 0.5f * m;
    float bottom = ceilf(bottom_px / lh) * lh + 0.5f * m;
    const bool held = hold->fb_width == fb_width && hold->fb_height == fb_height;
    if (held && right <= hold->right && right >= hold->right - UI_LENS_HOLD_LINES * lh) {
        right = hold->right;
    }
    if (held && bottom <= hold->bottom && bottom >= hold->bottom - UI_LENS_HOLD_LINES * lh) {
        bottom = hold->bottom;
    }
    const float side = (float)(fb_width < fb_height ? fb_width : fb_height);
    const float s_right = fminf(fb_width - right, (float)fb_height) / side;
    const float s_below = fminf((float)fb_width, fb_height - bottom) / side;
    const bool below = held ? (hold->below ? s_right <= (1 + UI_LENS_SWITCH_GAIN) * s_below
                                           : s_below > (1 + UI_LENS_SWITCH_GAIN) * s_right)
                            : s_below > s_right;
    *hold = (ui_lens_hold){.fb_width = fb_width,
                           .fb_height = fb_height,
                           .right = right,
                           .bottom = bottom,
                           .below = below};
    if (!below) {
        *scale = fminf(1.0f, fmaxf(s_right, 0.05f));
        center[0] = 0.5f * (right + fb_width);
        center[1] = 0.5f * fb_height;
    } else {
        *scale = fminf(1.0f, fmaxf(s_below, 0.05f));
        center[0] = 0.5f * fb_width;
        center[1] = 0.5f * (bottom + fb_height);
    }
}

static void fit_lens(ui_lens_hold *hold, hud_layout *L, float right_px, float bottom_px, float lh,
                     int fb_width, int fb_height) {
    ui_lens_fit(hold, right_px, bottom_px, lh, fb_width, fb_height, &L->lens_scale, L->lens_center);
}

/* Lecture mode: the compact lines in the layout's HUD box, and the lens on
 * its subject (whether the HUD is shown or not: the chart and the code
 * panel keep their places). */
static void lecture_layout(ui_state *ui, const ui_facts *f, int fb_width, int fb_height,
                           hud_layout *L) {
    ui_lecture_layout P;
    ui_lecture_layout_of(f, fb_width, fb_height, &P);
    const float side = (float)(fb_width < fb_height ? fb_width : fb_height);
    L->lens_scale = fminf(1.0f, fmaxf(0.05f, fminf(P.subject.w, P.subject.h) / side));
    L->lens_center[0] = P.subject.x + 0.5f * P.subject.w;
    L->lens_center[1] = P.subject.y + 0.5f * P.subject.h;
    render_overlay *o = ui->text;
    if (!o || !L->panel) return;
    render_overlay_set_font_px(o, P.font_px);
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    ui_lines raw = {.count = 0};
    ui_hud_lines(f, &raw);
    for (int i = 0; i < raw.count; i++) {
        ui_wrap(o, &raw.line[i], P.hud.w - 2 * pad, 1, 4, &L->lines);
    }
    const int fit = (int)((P.hud.h - 2 * pad) / lh + 0.01f);
    L->text_rows = L->lines.count < fit ? L->lines.count : fit;
    float w = 0;
    for (int i = 0; i < L->text_rows; i++) {
        w = fmaxf(w, render_overlay_text_width(o, L->lines.line[i].text));
    }
    L->x = P.hud.x;
    L->y = P.hud.y;
    L->w = fminf(w + 2 * pad, P.hud.w);
    L->h = lh * L->text_rows + 2 * pad;
}

/* Lays the HUD panel out for a fb_width x fb_height window: the biggest font
 * up to the wanted one at which the wrapped lines, scale bar and legend fit
 * HUD_MAX_HEIGHT of the window; then the lens that centres the scene in the
 * part of the window the panel (and the selection panel below it)
 * leaves free. Sets the overlay's font. */
static void layout(ui_state *ui, const ui_facts *f, int fb_width, int fb_height, hud_layout *L) {
    *L = (hud_layout){.lens_scale = 0};
    render_overlay *o = ui->text;
    const float want = ui_font_px(f);
    L->panel = ui->shown[UI_OVERLAY_HUD] && !ui->shown[UI_OVERLAY_HELP];
    if (fb_width <= 0 || fb_height <= 0) return;
    if (f->lecture.on) {
        lecture_layout(ui, f, fb_width, fb_height, L);
        return;
    }
    if (!o) return;
    if (!L->panel) { /* the selection panel alone, top left, at the wanted size */
        if (!ui->shown[UI_OVERLAY_SELECT]) return;
        render_overlay_set_font_px(o, want);
        const float lh = render_overlay_line_height(o), m = ui_margin(lh);
        float sw = 0, sh = 0;
        if (ui_select_size(ui, f, &sw, &sh)) {
            fit_lens(&ui->lens_hold, L, m + sw, m + sh, lh, fb_width, fb_height);
        }
        return;
    }
    ui_lines raw = {.count = 0};
    ui_hud_lines(f, &raw);
    legend(ui, f, L);
    /* Measured once at the baked size; widths scale with the font size. */
    const float baked = render_overlay_font_px(o), lh1 = render_overlay_line_height(o) / baked;
    const float legend_w1 = legend_width(o, L) / baked;
    /* The panel's share of the window's height; a size asked for with
     * --hud-scale may take the whole window. */
    const float share = f->text_scale_asked ? 1.0f : HUD_MAX_HEIGHT;
    float px = want;
    for (;;) {
        const float lh = lh1 * px, m = ui_margin(lh), pad = 0.5f * lh;
        const float max_w = fb_width - 2 * m - 2 * pad;
        ui_lines wrapped = {.count = 0};
        for (int i = 0; i < raw.count; i++)
            ui_wrap(o, &raw.line[i], max_w, px / baked, 4, &wrapped);
        const float h = lh * (wrapped.count + rows_below(f)) + 2 * pad;
        if (h + 2 * m <= share * fb_height && legend_w1 * px <= max_w) break;
        if (px <= UI_MIN_PX) break;
        px = fmaxf(UI_MIN_PX, floorf(px * 0.9f));
    }
    render_overlay_set_font_px(o, px);
    const float lh = render_overlay_line_height(o), m = ui_margin(lh), pad = 0.5f * lh;
    const float max_w = fb_width - 2 * m - 2 * pad;
    for (int i = 0; i < raw.count; i++) ui_wrap(o, &raw.line[i], max_w, 1, 4, &L->lines);
    /* The panel never leaves the window: in a tiny one, the last lines go. */
    const int fit = (int)((fb_height - 2 * m - 2 * pad) / lh) - rows_below(f);
    L->text_rows = L->lines.count < fit ? L->lines.count : (fit > 0 ? fit : 0);
    float w = fminf(legend_width(o, L), max_w);
    for (int i = 0; i < L->text_rows; i++) {
        w = fmaxf(w, fminf(render_overlay_text_width(o, L->lines.line[i].text), max_w));
    }
    L->x = m;
    L->y = m;
    L->w = w + 2 * pad;
    L->h = lh * (L->text_rows + rows_below(f)) + 2 * pad;

    /* The selection panel goes below the HUD's (ui_select_place). */
    float right = L->x + L->w, bottom = L->y + L->h, sw = 0, sh = 0;
    if (ui_select_size(ui, f, &sw, &sh)) {
        right = fmaxf(right, m + sw);
        bottom += m + sh;
    }
    fit_lens(&ui->lens_hold, L, right, bottom, lh, fb_width, fb_height);
    scale_bar(f, fb_width, fb_height, L);
    if (L->bar_px > max_w - render_overlay_text_width(o, L->bar_label) - lh) {
        L->bar_px = 0; /* no room for it: a tiny window */
    }
}

/* The help: one column if it fits the height, else two side by side, long
 * lines wrapped at spaces so both fit the width; the font shrinks (to
 * UI_MIN_PX) until they do. */
void ui_help_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    const float want = ui_font_px(f);
    ui_lines l = {.count = 0};
    ui_help_text(f, &l);
    /* Measured at the baked size; widths scale with the font size. */
    const float baked = render_overlay_font_px(o);
    const float lh1 = render_overlay_line_height(o) / baked;
    float px = want;
    ui_lines wrapped;
    bool two = false;
    for (;;) {
        const float lh = lh1 * px, margin = ui_margin(lh), gap = lh;
        const int rows = (int)((fb_height - 2 * margin) / lh) - 1;
        two = l.count > rows;
        const float max_w =
            two ? (fb_width - 2 * margin - 2 * gap) / 2 - lh : fb_width - 2 * margin - lh;
        wrapped.count = 0;
        for (int i = 0; i < l.count; i++) {
            ui_wrap(o, &l.line[i], max_w, px / baked,
                    l.line[i].color == UI_KEY ? HELP_LABEL + 1 : 4, &wrapped);
        }
        const int per = two ? (wrapped.count + 1) / 2 : wrapped.count;
        if (per <= rows || px <= UI_MIN_PX) break;
        px = fmaxf(UI_MIN_PX, floorf(px * 0.9f));
    }
    if (px != baked) { /* lay out again at the size now baked */
        render_overlay_set_font_px(o, px);
        const float lh = render_overlay_line_height(o), margin = ui_margin(lh), gap = lh;
        const float max_w =
            two ? (fb_width - 2 * margin - 2 * gap) / 2 - lh : fb_width - 2 * margin - lh;
        wrapped.count = 0;
        for (int i = 0; i < l.count; i++) {
            ui_wrap(o, &l.line[i], max_w, 1, l.line[i].color == UI_KEY ? HELP_LABEL + 1 : 4,
                    &wrapped);
        }
    }
    const float lh = render_overlay_line_height(o), margin = ui_margin(lh), gap = lh;
    const int rows = (int)((fb_height - 2 * margin) / lh) - 1;
    int per = two ? (wrapped.count + 1) / 2 : wrapped.count;
    if (per > rows && rows > 0) { /* a tiny window: the rest is cut, not overflowed */
        per = rows;
        ui_line *last = &wrapped.line[(two ? 2 * per : per) - 1];
        snprintf(last->text, sizeof last->text, "... more in a larger window");
        last->color = UI_DIM;
    }
    ui_lines col[2] = {{.count = 0}, {.count = 0}};
    float w[2] = {0, 0};
    for (int i = 0; i < wrapped.count && i < 2 * per; i++) {
        const int c = i < per ? 0 : 1;
        col[c].line[col[c].count++] = wrapped.line[i];
        w[c] = fmaxf(w[c], render_overlay_text_width(o, wrapped.line[i].text));
    }
    const float total = w[0] + (col[1].count ? w[1] + 2 * gap : 0);
    const float x = fmaxf(margin, (fb_width - total) / 2);
    const float y = fmaxf(margin, (fb_height - lh * (per + 1)) / 2);
    render_overlay_begin(o, fb_width, fb_height);
    ui_panel(o, x, y, &col[0], 0, 0);
    if (col[1].count) ui_panel(o, x + w[0] + 2 * gap, y, &col[1], 0, 0);
    render_overlay_end(o);
}

void ui_fit_view(ui_state *ui, const ui_facts *f, int fb_width, int fb_height, render_view *view) {
    hud_layout L;
    layout(ui, f, fb_width, fb_height, &L);
    view->frame_scale = L.lens_scale;
    ui->lens_scale = L.lens_scale; /* for the mouse's pan */
    view->frame_center_px[0] = L.lens_center[0];
    view->frame_center_px[1] = L.lens_center[1];
}

void ui_select_place(ui_state *ui, const ui_facts *f, int fb_width, int fb_height, float *x,
                     float *y) {
    hud_layout L;
    layout(ui, f, fb_width, fb_height, &L); /* sets the font the selection panel uses */
    const float m = ui_margin(render_overlay_line_height(ui->text));
    *x = m;
    *y = L.panel ? L.y + L.h + m : m;
}

void ui_hud_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    render_overlay *o = ui->text;
    hud_layout L;
    layout(ui, f, fb_width, fb_height, &L);
    if (!L.panel) return;
    render_overlay_begin(o, fb_width, fb_height);
    ui_lines shown = L.lines;
    shown.count = L.text_rows;
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    if (f->lecture.on) { /* compact: the lines alone */
        ui_panel(o, L.x, L.y, &shown, L.w - 2 * pad, 0);
        render_overlay_end(o);
        return;
    }
    ui_panel(o, L.x, L.y, &shown, L.w - 2 * pad, rows_below(f));
    /* The scale bar: a line with end ticks, its length beside it. */
    const float bx = L.x + pad, by = L.y + pad + lh * L.text_rows;
    if (L.bar_px > 0) {
        const float t = fmaxf(1.0f, roundf(lh / 10)), tick = 0.5f * lh;
        render_overlay_rect(o, bx, by + 0.5f * lh - 0.5f * t, L.bar_px, t, UI_WHITE);
        render_overlay_rect(o, bx, by + 0.5f * lh - 0.5f * tick, t, tick, UI_WHITE);
        render_overlay_rect(o, bx + L.bar_px - t, by + 0.5f * lh - 0.5f * tick, t, tick, UI_WHITE);
        render_overlay_text(o, bx + L.bar_px + 0.5f * lh, by, UI_WHITE, L.bar_label);
    }
    draw_legend(o, &L, bx, by + lh);
    /* ΔE/E₀ over time, inside the panel so the lens leaves it room (not
     * while a series plays: nothing is simulated) */
    if (!f->playback.on) {
        ui_spark_draw(ui, bx, by + 2.25f * lh, fminf(22 * lh, L.w - 2 * pad), 4.5f * lh);
    }
    render_overlay_end(o);
}

bool ui_message_shown(const ui_state *ui, const ui_facts *f) {
    /* Messages belong to the HUD: with it off (Tab, --no-hud) the picture is
     * clean - screenshots too - and messages still go to stdout. */
    return ui->shown[UI_OVERLAY_HUD] && !f->capturing && f->msg && base_msg_visible(f->msg, f->now);
}

void ui_message_draw(ui_state *ui, const ui_facts *f, int fb_width, int fb_height) {
    if (!ui_message_shown(ui, f)) return;
    render_overlay *o = ui->text; /* at the size the HUD or the help last set */
    /* Lecture mode: one line, in the lecture's place for it. */
    if (f->lecture.on) {
        ui_lecture_layout P;
        ui_lecture_layout_of(f, fb_width, fb_height, &P);
        render_overlay_set_font_px(o, P.font_px);
        render_overlay_begin(o, fb_width, fb_height);
        const float pad = 0.5f * render_overlay_line_height(o);
        ui_lines one = {.count = 0}, l = {.count = 0};
        ui_add(&one, UI_WHITE, "%s", f->msg->text);
        ui_wrap(o, &one.line[0], P.message.w - 2 * pad, 1, 2, &l);
        l.count = l.count > 1 ? 1 : l.count;
        ui_panel(o, P.message.x, P.message.y, &l, 0, 0);
        render_overlay_end(o);
        return;
    }
    render_overlay_begin(o, fb_width, fb_height);
    const float lh = render_overlay_line_height(o), margin = ui_margin(lh);
    ui_lines one = {.count = 0}, l = {.count = 0};
    ui_add(&one, UI_WHITE, "%s", f->msg->text);
    ui_wrap(o, &one.line[0], fb_width - 3 * margin - lh, 1, 2, &l);
    if (l.count > 3) l.count = 3;
    ui_panel(o, margin, fb_height - margin - (l.count + 1) * lh, &l, 0, 0);
    render_overlay_end(o);
}

void ui_hud_text(ui_state *ui, const ui_facts *f, bool help, char *out, size_t len) {
    (void)ui;
    ui_lines l = {.count = 0};
    if (help) {
        ui_help_text(f, &l);
    } else {
        ui_hud_lines(f, &l);
    }
    const size_t used = ui_lines_text(&l, out, len);
    if (help) return;
    hud_layout L = {0}; /* the legend's row, as one line of words */
    legend(ui, f, &L);
    char row[256];
    int k = snprintf(row, sizeof row, "%s", L.legend_head);
    for (int i = 0; i < L.legend_count && k >= 0 && (size_t)k < sizeof row; i++) {
        k += snprintf(row + k, sizeof row - (size_t)k, " | %s", L.legend[i].label);
    }
    if (used + 1 < len) snprintf(out + used, len - used, "%s\n", row);
}
