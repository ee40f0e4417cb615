/* app_hud.c - the heads-up display and the help overlay.
 *
 * The HUD (Tab) shows the numbers a tuner or lecturer watches: frame rate,
 * step time from CUDA events, interactions/s and GFLOP/s (20 flops per
 * interaction, 30 in fp64), N, scene, kernel and block shape, the knobs, and
 * the energy error sampled every few frames. The help overlay (H, F1) lists
 * the key table of app_keys.c and what p and q mean for the current kernel.
 * Sizes follow the window's content scale, so both read on a HiDPI laptop
 * and on a projector.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#define HUD_BASE_PX 17.0f
#define MAX_LINES 64
#define HELP_LABEL 18 /* characters of the key column in the help */

static const float WHITE[4] = {0.92f, 0.94f, 1.0f, 1.0f};
static const float DIM[4] = {0.62f, 0.68f, 0.78f, 1.0f};
static const float WARN[4] = {1.0f, 0.62f, 0.25f, 1.0f};
static const float GOOD[4] = {0.45f, 0.95f, 0.55f, 1.0f};
static const float KEY[4] = {1.0f, 0.85f, 0.4f, 1.0f};
static const float PANEL[4] = {0.02f, 0.03f, 0.06f, 0.72f};

typedef struct hud_line {
    char text[200];
    const float *color;
} hud_line;

typedef struct hud_lines {
    hud_line line[MAX_LINES];
    int count;
} hud_lines;

__attribute__((format(printf, 3, 4))) static void add(hud_lines *l, const float *color,
                                                      const char *fmt, ...) {
    if (l->count == MAX_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->line[l->count].text, sizeof l->line[0].text, fmt, ap);
    va_end(ap);
    l->line[l->count++].color = color;
}

/* 16384 -> "16,384" */
static void with_commas(long v, char *out, size_t len) {
    char digits[32];
    snprintf(digits, sizeof digits, "%ld", v);
    const size_t n = strlen(digits);
    size_t o = 0;
    for (size_t i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0) out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = 0;
}

/* Appends line to out, split at spaces into pieces no wider than max_w;
 * continuation pieces are indented by `hang` spaces (under the text column). */
static void wrap(render_overlay *o, const hud_line *line, float max_w, int hang, hud_lines *out) {
    static const char spaces[] = "                                ";
    const char *rest = line->text;
    bool first = true;
    while (*rest && out->count < MAX_LINES) {
        hud_line piece = {.color = line->color};
        const char *indent = first ? "" : spaces + (sizeof spaces - 1 - (size_t)hang);
        size_t take = strlen(rest), last_space = 0;
        for (size_t k = 1; k <= strlen(rest); k++) {
            char buf[sizeof piece.text];
            const size_t indent_len = strlen(indent);
            const size_t len = indent_len + k < sizeof buf ? k : sizeof buf - 1 - indent_len;
            memcpy(buf, indent, indent_len);
            memcpy(buf + indent_len, rest, len);
            buf[indent_len + len] = 0;
            if (render_overlay_text_width(o, buf) > max_w && last_space > 0) {
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

/* A panel with lines, top-left at (x, y); returns its height. */
static float panel(render_overlay *o, float x, float y, const hud_lines *l) {
    const float lh = render_overlay_line_height(o), pad = 0.5f * lh;
    float w = 0;
    for (int i = 0; i < l->count; i++) {
        const float tw = render_overlay_text_width(o, l->line[i].text);
        if (tw > w) w = tw;
    }
    const float h = lh * l->count + 2 * pad;
    render_overlay_rect(o, x, y, w + 2 * pad, h, PANEL);
    for (int i = 0; i < l->count; i++) {
        render_overlay_text(o, x + pad, y + pad + lh * i, l->line[i].color, l->line[i].text);
    }
    return h;
}

static void hud_text(app *a, hud_lines *l) {
    const sim_params p = sim_get_params(a->sim);
    const bool cuda = p.backend == SIM_BACKEND_CUDA;
    const sim_variant_desc *v = sim_variant_info(p.variant);
    char n[32];
    with_commas(p.body_count, n, sizeof n);
    const float ms = sim_last_step_ms(a->sim);
    const double ips = app_interactions_per_s(a), fpi = app_flops_per_interaction(a);

    add(l, WHITE, "%.0f frames/s   %.3f ms/step (%s)   %d step%s/frame%s", a->live.fps, ms,
        cuda ? "CUDA events" : "CPU clock", a->cfg.steps_per_frame,
        a->cfg.steps_per_frame == 1 ? "" : "s",
        a->cfg.headless ? ""
        : a->fe.vsync   ? "   vsync"
                        : "");
    const bool tree = p.variant == SIM_VARIANT_TREE;
    if (tree) {
        add(l, WHITE, "%.3g interactions/s evaluated (cells and bodies, not N²)", ips);
    } else {
        add(l, WHITE, "%.3g interactions/s   %.1f GFLOP/s  (N²/step, %.0f flops each)", ips,
            ips * fpi * 1e-9, fpi);
    }
    add(l, WHITE, "N %s   %s   t = %.3f (%lld steps)", n, app_scene_title(a->scene), p.time,
        (long long)p.steps);
    if (tree) {
        char group[32] = ""; /* the GPU walks by groups; the CPU reference body by body */
        if (cuda) snprintf(group, sizeof group, "  group %d", p.p);
        add(l, KEY, "%s tree  θ %.2f%s: %s", cuda ? "FP32 GPU" : "FP64 CPU", p.theta, group,
            v->description);
        const sim_tree_stats t = sim_get_tree_stats(a->sim);
        if (t.valid) {
            char cells[32];
            with_commas(t.cells, cells, sizeof cells);
            add(l, WHITE, "build %.2f ms  walk %.2f ms  depth %d  %s cells  %.0f interactions/body",
                t.build_ms, t.walk_ms, t.depth, cells, t.interactions_per_body);
        }
    } else if (cuda) {
        add(l, v->fp64 ? GOOD : KEY, "%s %s  p×q %d×%d: %s", v->fp64 ? "FP64" : "FP32", v->name,
            p.p, p.q, v->description);
    } else {
        add(l, GOOD, "FP64 CPU reference (plain C, double precision, exact sum)");
    }
    const app_live *lv = &a->live;
    if (lv->ferr_valid) {
        add(l, lv->ferr.p99 > 1e-2 ? WARN : WHITE,
            "force error vs exact (%d bodies, %.0f s ago): median %.1e  99%% %.1e  (X)",
            lv->ferr.samples, a->live.now - lv->ferr_time, lv->ferr.median, lv->ferr.p99);
    }
    char damping[48];
    if (p.damping == 1.0f) {
        snprintf(damping, sizeof damping, "1 (none)");
    } else {
        snprintf(damping, sizeof damping, "%.6g", (double)p.damping);
    }
    add(l, WHITE, "dt %.4g   ε %.4g   damping %s", p.dt, p.softening, damping);
    if (a->live.diag_valid && a->live.energy0_valid && isfinite(a->live.diag.total)) {
        const double de = a->live.energy0 != 0
                              ? (a->live.diag.total - a->live.energy0) / fabs(a->live.energy0)
                              : 0;
        add(l, WHITE, "E %.6f   ΔE/E₀ %+.2e   2K/|W| %.3f   (sampled %.1f s ago)",
            a->live.diag.total, de, a->live.diag.virial_ratio, a->live.now - a->live.diag_time);
    }
    static const char *const colors[] = {"speed", "per body", "galaxy", "component"};
    _Static_assert(sizeof colors / sizeof colors[0] == RENDER_COLOR_COUNT, "one name per mode");
    add(l, DIM, "%s · %s · colour: %s · sprite %.3g · exposure %.3g%s%s%s · H for help",
        cuda ? "CUDA" : "CPU", cuda ? app_interop_path_name(a->interop.path) : "host copy",
        colors[a->view.color], a->view.point_size, render_exposure(a->render),
        a->view.auto_exposure ? " (auto)" : "", a->view.bloom ? " · bloom" : "",
        p.ic == SIM_IC_DISK || p.ic == SIM_IC_MERGER
            ? (a->view.hide_halo ? " · halo hidden" : " · halo shown")
            : "");
    if (p.damping < 1.0f) add(l, WARN, "damping < 1: energy is not conserved");
    if (a->live.blown_up) {
        add(l, WARN, "NaN/Inf positions: paused. R re-seeds, Shift+T halves dt, S softens");
    } else if (a->live.paused) {
        add(l, WARN, "PAUSED   (Space runs, . steps once)");
    }
}

static void help_text(app *a, hud_lines *l) {
    add(l, WHITE, "nbody: keys and mouse");
    char label[64], text[160];
    for (int i = 0; app_key_help(i, label, sizeof label, text, sizeof text); i++) {
        add(l, KEY, "%-*s %s", HELP_LABEL, label, text);
    }
    const sim_params p = sim_get_params(a->sim);
    const sim_variant_desc *v = sim_variant_info(p.variant);
    add(l, DIM, "for %s: p = %s", v->name, v->p_meaning ? v->p_meaning : "not used");
    add(l, DIM, "         q = %s", v->q_meaning ? v->q_meaning : "not used (one thread per body)");
}

void app_hud_draw(app *a, int fb_width, int fb_height) {
    /* Messages belong to the HUD: with it off (Tab, --no-hud) the picture is
     * clean - screenshots too - and messages still go to stdout. */
    const bool message = a->view.hud && a->live.message[0] && app_now() < a->live.message_until;
    if (!a->view.hud && !a->view.help && !message) return;
    render_overlay *o = a->overlay;
    const float scale = a->fe.content_scale * (a->cfg.hud_scale > 0 ? a->cfg.hud_scale : 1.0f);
    render_overlay_set_font_px(o, roundf(HUD_BASE_PX * scale));
    const float margin = render_overlay_line_height(o) * 0.6f;
    render_overlay_begin(o, fb_width, fb_height);
    if (a->view.hud && !a->view.help) { /* the help panel takes the screen while it is open */
        hud_lines l = {.count = 0};
        hud_text(a, &l);
        panel(o, margin, margin, &l);
        app_spark_draw(a, margin, margin + render_overlay_line_height(o) * (l.count + 1.4f), 0, 0);
    }
    if (a->view.help) {
        hud_lines l = {.count = 0};
        help_text(a, &l);
        const float lh = render_overlay_line_height(o);
        /* One column if it fits the height, else two side by side, long lines
         * wrapped at spaces so both fit the width. */
        const int rows = (int)((fb_height - 2 * margin) / lh) - 1;
        const bool two = l.count > rows;
        const float gap = lh, max_w = two ? (fb_width - 2 * margin - 2 * gap) / 2 - lh
                                          : fb_width - 2 * margin - lh;
        hud_lines wrapped = {.count = 0};
        for (int i = 0; i < l.count; i++) {
            wrap(o, &l.line[i], max_w, l.line[i].color == KEY ? HELP_LABEL + 1 : 4, &wrapped);
        }
        const int per = two ? (wrapped.count + 1) / 2 : wrapped.count;
        hud_lines col[2] = {{.count = 0}, {.count = 0}};
        float w[2] = {0, 0};
        for (int i = 0; i < wrapped.count; i++) {
            const int c = i < per ? 0 : 1;
            col[c].line[col[c].count++] = wrapped.line[i];
            w[c] = fmaxf(w[c], render_overlay_text_width(o, wrapped.line[i].text));
        }
        const float total = w[0] + (col[1].count ? w[1] + 2 * gap : 0);
        const float x = fmaxf(margin, (fb_width - total) / 2);
        const float y = fmaxf(margin, (fb_height - lh * (per + 1)) / 2);
        panel(o, x, y, &col[0]);
        if (col[1].count) panel(o, x + w[0] + 2 * gap, y, &col[1]);
    }
    if (message) {
        hud_lines l = {.count = 0};
        add(&l, WHITE, "%s", a->live.message);
        panel(o, margin, fb_height - margin - 2 * render_overlay_line_height(o), &l);
    }
    render_overlay_end(o);
}
