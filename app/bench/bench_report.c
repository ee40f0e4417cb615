/* bench_report.c - the benchmark's table, JSON and bar chart (see
 * bench.h).
 *
 * Honest figures: each variant's "ceiling" is the rate its own inner loop
 * allows, issue slots per interaction counted in its SASS (sim/'s
 * sim_loop_cost_of, in sim_kernels.cu), so no row
 * can pass 100 %. GFLOP/s is an equivalent figure, interactions/s x 20 flops
 * (30 in double precision) as NVIDIA's sample counts them, whatever a kernel executes
 * (best evaluates each pair once for two bodies: fewer flops). Tree rows get
 * no N^2 figures at all: bodies/s, build and walk time, and their force
 * error against the exact sum instead.
 */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_truetype.h>

/* The backend the rows ran on, and the method each row's variant names there. */
static sim_backend backend_of(const bench_result *b) {
    return b->cuda ? SIM_BACKEND_CUDA : SIM_BACKEND_CPU;
}

static const sim_method *method_of(const bench_result *b, const bench_row *r) {
    return sim_method_of(backend_of(b), r->variant);
}

/* The loop count of row r's build (bench_ceiling); false where there is none. */
static bool cost_of(const bench_result *b, const bench_row *r, sim_loop_cost *c) {
    return b->cuda && !r->tree && sim_loop_cost_of(r->variant, r->n, r->p, r->q, c);
}

double bench_interactions_per_s(const bench_row *r) {
    return r->tree ? 0 : sim_pair_rate(r->n, r->ms);
}

static double bodies_per_s(const bench_row *r) {
    return r->ms > 0 ? r->n / (r->ms * 1e-3) : 0;
}

double bench_ceiling(const bench_result *b, const bench_row *r) {
    sim_loop_cost c;
    if (!cost_of(b, r, &c)) return 0;
    /* A row on several GPUs that split the pairs has each GPU's issue rate. */
    const int gpus = r->gpus > 1 && method_of(b, r)->splits ? r->gpus : 1;
    return gpus * sim_loop_ceiling(&c, &b->dev);
}

static double gflops_equivalent(const bench_result *b, const bench_row *r) {
    return bench_interactions_per_s(r) * method_of(b, r)->flops_per_interaction * 1e-9;
}

static double ceiling_fraction(const bench_result *b, const bench_row *r) {
    const double c = bench_ceiling(b, r);
    return c > 0 ? bench_interactions_per_s(r) / c : 0;
}

/* The fastest row of variant v (tree or not, as `tree`) at n, or NULL. */
static const bench_row *fastest(const bench_result *b, sim_variant v, bool tree, int n) {
    const bench_row *best = NULL;
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        if (r->variant == v && r->tree == tree && r->n == n && (!best || r->ms < best->ms))
            best = r;
    }
    return best;
}

/* Speedup of row r over the fastest row of the variant before it in the
 * command-line order, at the same N; 0 when there is none. */
static double speedup(const bench_result *b, const bench_row *r) {
    for (int k = 1; k < b->order_count; k++) {
        if (b->order[k] != (int)r->variant) continue;
        const sim_variant prev = (sim_variant)b->order[k - 1];
        const bench_row *p = NULL;
        for (int i = 0; i < b->count && !p; i++) /* the previous variant's kind */
            if (b->rows[i].variant == prev) p = fastest(b, prev, b->rows[i].tree, r->n);
        return p && r->ms > 0 ? p->ms / r->ms : 0;
    }
    return 0;
}

static bool any_tree(const bench_result *b) {
    for (int i = 0; i < b->count; i++)
        if (b->rows[i].tree) return true;
    return false;
}

/* One line per loop the rows run (a variant's, or each of best's builds'):
 * its ceiling and where it comes from. */
static void print_ceilings(const bench_result *b, FILE *f) {
    for (int i = 0; i < b->count; i++) {
        sim_loop_cost c, other;
        if (!cost_of(b, &b->rows[i], &c)) continue;
        bool seen = false;
        for (int k = 0; k < i && !seen; k++) {
            seen = b->rows[k].variant == b->rows[i].variant && cost_of(b, &b->rows[k], &other) &&
                   strcmp(other.build, c.build) == 0;
        }
        const double ceiling = sim_loop_ceiling(&c, &b->dev);
        if (seen || ceiling <= 0) continue;
        fprintf(f,
                "ceiling %-8s %.3g interactions/s: %d SMs x %d lanes x %.3f GHz / %.2f issue "
                "slots per %s (SASS)",
                method_of(b, &b->rows[i])->name, ceiling, b->dev.sm_count, SIM_ISSUE_LANES_PER_SM,
                b->dev.clock_khz * 1e-6, (double)c.instructions / c.rsqrts,
                c.interactions == 2 ? "pair of 2 interactions" : "interaction");
        if (c.fp64_ops) {
            fprintf(f, ", FP64 pipe: %d lanes / %.0f FP64 ops", sim_fp64_lanes(&b->dev),
                    (double)c.fp64_ops / c.rsqrts);
        }
        fprintf(f, "%s\n", c.note ? c.note : "");
    }
}

/* Rows on several GPUs: the time on one, the measured efficiency, and
 * what one step spent where. */
static void print_gpus(const bench_result *b, FILE *f) {
    bool any = false;
    for (int i = 0; i < b->count; i++) any = any || b->rows[i].gpus > 1;
    if (!any) return;
    fprintf(f, "\n%-9s %9s %5s %11s %11s %11s %9s %11s  %s\n", "variant", "N", "GPUs",
            "ms/step", "1 GPU ms", "efficiency", "sum ms", "sum MB", "forces ms per GPU");
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        if (r->gpus <= 1) continue;
        fprintf(f, "%-9s %9d %5d %11.4f ", method_of(b, r)->name, r->n, r->gpus, r->ms);
        if (r->one_gpu_ms > 0) /* else one GPU could not run it: no efficiency */
            fprintf(f, "%11.4f %10.1f%% ", r->one_gpu_ms, 100 * r->efficiency);
        else
            fprintf(f, "%11s %11s ", "-", "-");
        fprintf(f, "%9.3f %11.2f ", r->gpu.sum_ms, r->gpu.sum_bytes / 1e6);
        for (int k = 0; k < r->gpus && k < SIM_MAX_GPUS && r->gpu.measured; k++) {
            fprintf(f, "%s%.3f", k ? " | " : " ", r->gpu.forces_ms[k]);
        }
        if (r->gpu.spread) {
            fprintf(f, "  (spread; walks ms:");
            for (int k = 0; k < r->gpus && k < SIM_MAX_GPUS && r->gpu.measured; k++) {
                fprintf(f, "%s%.3f", k ? " | " : " ", r->gpu.walk_ms[k]);
            }
            fprintf(f, "; trees sent, MB:");
            for (int k = 0; k < r->gpus && k < SIM_MAX_GPUS && r->gpu.measured; k++) {
                fprintf(f, "%s%.1f", k ? " | " : " ", r->gpu.sent_mb[k]);
            }
            fprintf(f, "; domain boxes:");
            for (int k = 0; k < r->gpus && k < SIM_MAX_GPUS && r->gpu.measured; k++) {
                fprintf(f, "%s%d", k ? " | " : " ", r->gpu.domain_boxes[k]);
            }
            fprintf(f, ")");
        }
        fprintf(f, "%s\n", r->gpu.split ? "" : "  (each GPU computes all: the method does not split)");
    }
    fprintf(
        f,
        "efficiency: one GPU's ms/step over GPUs x ms/step, both measured here; sum: the "
        "all-reduce adding the GPUs' shares of the forces, timed on GPU 0 (it waits for the "
        "slowest GPU); spread: each GPU its own bodies and tree, no sum; its forces hold its waits "
        "for the others' boxes and parts, its walk is work alone.\n");
}

void bench_print(const bench_result *b, FILE *f) {
    bool frames = false;
    for (int i = 0; i < b->count; i++) frames = frames || b->rows[i].fps > 0;
    const bool tree = any_tree(b);
    print_ceilings(b, f);
    fprintf(f, "\n%-9s %9s %8s %11s %11s %11s %8s %8s", "variant", "N", "p x q", "ms/step",
            "1e9 int/s", "GFLOP/s eq", "vs prev", "ceiling");
    if (frames) fprintf(f, " %9s", "frames/s");
    if (tree)
        fprintf(f, " %6s %9s %9s %9s %6s %10s %9s %9s %9s", "theta", "build ms", "walk ms",
                "int/body", "lanes", "1e6 body/s", "err med", "err p99", "err max");
    fprintf(f, "\n");
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        char shape[32] = "-", up[400] = "", ceil_s[400] = "", ips[400] = "n/a", gf[400] = "n/a";
        if (method_of(b, r)->block_shape && !r->tree)
            snprintf(shape, sizeof shape, "%dx%d", r->p, r->q);
        const double s = speedup(b, r);
        if (s > 0) snprintf(up, sizeof up, "%.2fx", s);
        const double c = ceiling_fraction(b, r);
        if (c > 0) snprintf(ceil_s, sizeof ceil_s, "%.0f%%", 100 * c);
        if (!r->tree) {
            snprintf(ips, sizeof ips, "%.1f", bench_interactions_per_s(r) * 1e-9);
            snprintf(gf, sizeof gf, "%.0f", gflops_equivalent(b, r));
        }
        fprintf(f, "%-9s %9d %8s %11.4f %11s %11s %8s %8s", method_of(b, r)->name, r->n, shape,
                r->ms, ips, gf, up, ceil_s);
        if (frames) fprintf(f, " %9.1f", r->fps);
        if (tree && r->tree && r->tree_valid) {
            char lanes[16] = "-"; /* the CPU's tree walks no lanes */
            if (r->lane_use > 0) snprintf(lanes, sizeof lanes, "%.0f%%", 100 * r->lane_use);
            fprintf(f, " %6.2f %9.3f %9.3f %9.0f %6s %10.2f", r->theta, r->build_ms, r->walk_ms,
                    r->interactions_per_body, lanes, bodies_per_s(r) * 1e-6);
            if (r->error_samples > 0)
                fprintf(f, " %9.2e %9.2e %9.2e", r->error_median, r->error_p99, r->error_max);
            else
                fprintf(f, " %9s %9s %9s", "-", "-", "-");
        } else if (tree && r->tree) {
            fprintf(f, " %6.2f %9s", r->theta, "(no tree stats)");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "GFLOP/s eq: interactions/s x 20 flops (30 in double precision), the count "
               "NVIDIA's sample uses; best evaluates each pair once for both bodies and executes "
               "fewer.\n");
    if (b->cuda)
        fprintf(f, "ceiling: of the rate this variant's own inner loop allows (issue slots counted "
                   "in its sm_90 SASS; FP64 pipe for fp64; docs/PERFORMANCE.md).\n");
    if (tree)
        fprintf(f, "tree: interactions/s do not apply (it evaluates ~int/body cell and body "
                   "interactions per body, not N); err: relative force error against the exact "
                   "sum over sampled bodies.\n");
    print_gpus(b, f);
}

/* ---- JSON into a buffer that grows to fit -------------------------------- */

typedef struct text {
    char *s;
    size_t len, cap;
    bool failed; /* out of memory: the text is incomplete */
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
emit(text *t, const char *fmt, ...) {
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = true;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = t->cap ? t->cap : 4096;
        while (cap <= t->len + (size_t)n) cap *= 2;
        char *s = realloc(t->s, cap);
        if (!s) {
            t->failed = true;
            return;
        }
        t->s = s;
        t->cap = cap;
    }
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void emit_string(text *t, const char *s) {
    emit(t, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\')
            emit(t, "\\%c", *c);
        else if (*c < 0x20)
            emit(t, "\\u%04x", *c);
        else
            emit(t, "%c", *c);
    }
    emit(t, "\"");
}

/* A JSON number, or null for what JSON cannot hold (inf, NaN) or does not apply. */
static void emit_value(text *t, double v, bool applies) {
    if (applies && isfinite(v))
        emit(t, "%.6g", v);
    else
        emit(t, "null");
}

static void emit_number(text *t, const char *key, double v, bool applies) {
    emit(t, ", \"%s\": ", key);
    emit_value(t, v, applies);
}

char *bench_json(const bench_result *b) {
    text t = {0};
    emit(&t, "{\n  \"format\": \"nbody-benchmark\",\n  \"version\": 2,\n  \"device\": {\"name\": ");
    /* The name is the driver's text: bounded by its array, escaped here. */
    char name[sizeof b->dev.name + 1];
    memcpy(name, b->dev.name, sizeof b->dev.name);
    name[sizeof b->dev.name] = 0;
    emit_string(&t, b->cuda ? name : "cpu");
    emit(&t,
         ", \"sm_count\": %d, \"clock_mhz\": %.0f, \"compute_capability\": \"%d.%d\", "
         "\"driver\": %d, \"runtime\": %d},\n",
         b->dev.sm_count, b->dev.clock_khz / 1000.0, b->dev.cc_major, b->dev.cc_minor,
         b->dev.driver_version, b->dev.runtime_version);
    emit(&t, "  \"gflops_equivalent_flops_per_interaction\": {\"fp32\": 20, \"fp64\": 30},\n");
    emit(&t, "  \"rows\": [\n");
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        const double ceiling = bench_ceiling(b, r);
        emit(&t, "    {\"variant\": ");
        emit_string(&t, method_of(b, r)->name);
        emit(&t, ", \"method\": \"%s\", \"n\": %d", r->tree ? "tree" : "all-pairs", r->n);
        if (method_of(b, r)->block_shape) { /* else null, as the status JSON's */
            emit(&t, ", \"p\": %d, \"q\": %d", r->p, r->q);
        } else {
            emit(&t, ", \"p\": null, \"q\": null");
        }
        emit(&t, ", \"steps\": %d, \"repeats\": %d", r->steps, r->repeats);
        emit_number(&t, "ms_per_step", r->ms, true);
        emit_number(&t, "spread", r->spread, true);
        emit_number(&t, "bodies_per_s", bodies_per_s(r), true);
        emit_number(&t, "interactions_per_s", bench_interactions_per_s(r), !r->tree);
        emit_number(&t, "gflops_equivalent", gflops_equivalent(b, r), !r->tree);
        emit_number(&t, "speedup_vs_previous", speedup(b, r), speedup(b, r) > 0);
        emit_number(&t, "ceiling_interactions_per_s", ceiling, ceiling > 0);
        emit_number(&t, "ceiling_fraction", ceiling_fraction(b, r), ceiling > 0);
        emit_number(&t, "frames_per_s", r->fps, r->fps > 0);
        emit(&t, ", \"gpus\": %d", r->gpus > 1 ? r->gpus : 1);
        if (r->gpus > 1) {
            emit_number(&t, "one_gpu_ms_per_step", r->one_gpu_ms, r->one_gpu_ms > 0);
            emit_number(&t, "parallel_efficiency", r->efficiency, r->one_gpu_ms > 0);
            emit(&t, ", \"split\": %s", r->gpu.split ? "true" : "false");
            emit(&t, ", \"spread\": %s", r->gpu.spread ? "true" : "false");
            emit_number(&t, "sum_ms", r->gpu.sum_ms, r->gpu.measured && r->gpu.split);
            emit_number(&t, "sum_bytes", r->gpu.sum_bytes, r->gpu.split);
            emit(&t, ", \"forces_ms_per_gpu\": [");
            for (int k = 0; k < r->gpus && k < SIM_MAX_GPUS; k++) {
                if (k) emit(&t, ", ");
                emit_value(&t, r->gpu.forces_ms[k], r->gpu.measured);
            }
            emit(&t, "]");
            if (r->gpu.spread) {
                emit(&t, ", \"walk_ms_per_gpu\": [");
                for (int k = 0; k < r->gpus && k < SIM_MAX_GPUS; k++) {
                    if (k) emit(&t, ", ");
                    emit_value(&t, r->gpu.walk_ms[k], r->gpu.measured && r->gpu.walk_ms[k] > 0);
                }
                emit(&t, "]");
            }
        }
        if (r->tree) {
            emit_number(&t, "theta", r->theta, true);
            emit_number(&t, "build_ms", r->build_ms, r->tree_valid);
            emit_number(&t, "walk_ms", r->walk_ms, r->tree_valid);
            emit_number(&t, "interactions_per_body", r->interactions_per_body, r->tree_valid);
            emit_number(&t, "lane_use", r->lane_use, r->tree_valid && r->lane_use > 0);
            emit(&t, ", \"force_error_samples\": %d", r->error_samples);
            emit_number(&t, "force_error_median", r->error_median, r->error_samples > 0);
            emit_number(&t, "force_error_p99", r->error_p99, r->error_samples > 0);
            emit_number(&t, "force_error_max", r->error_max, r->error_samples > 0);
        }
        emit(&t, "}%s\n", i + 1 < b->count ? "," : "");
    }
    emit(&t, "  ]\n}\n");
    if (t.failed) {
        free(t.s);
        return NULL;
    }
    return t.s;
}

/* ---- the chart ------------------------------------------------------------ */

#define CHART_W 1200
#define CHART_ROW 30    /* px per bar */
#define CHART_TOP 70    /* title and legend */
#define CHART_LABEL 330 /* px of labels left of the bars */
#define CHART_VALUE 250 /* px of value text right of the bars */
#define CHART_PX 17.0f  /* label size */

typedef struct canvas {
    uint8_t *rgba;
    int w, h;
    stbtt_fontinfo font;
    float scale;
    int ascent;
} canvas;

static void fill(canvas *c, int x0, int y0, int x1, int y1, const uint8_t rgb[3]) {
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < c->h; y++) {
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < c->w; x++) {
            uint8_t *p = c->rgba + ((size_t)y * c->w + x) * 4;
            p[0] = rgb[0], p[1] = rgb[1], p[2] = rgb[2], p[3] = 255;
        }
    }
}

/* Draws ASCII text with its top-left at (x, y); returns the pen's end x. */
static int draw_text(canvas *c, int x, int y, const char *s, const uint8_t rgb[3]) {
    int pen = x;
    const int base = y + (int)lroundf(c->ascent * c->scale);
    for (; *s; s++) {
        int adv, lsb, x0, y0, x1, y1;
        stbtt_GetCodepointHMetrics(&c->font, (unsigned char)*s, &adv, &lsb);
        stbtt_GetCodepointBitmapBox(&c->font, (unsigned char)*s, c->scale, c->scale, &x0, &y0, &x1,
                                    &y1);
        const int gw = x1 - x0, gh = y1 - y0;
        if (gw > 0 && gh > 0 && gw <= 64 && gh <= 64) {
            uint8_t glyph[64 * 64];
            stbtt_MakeCodepointBitmap(&c->font, glyph, gw, gh, gw, c->scale, c->scale,
                                      (unsigned char)*s);
            for (int gy = 0; gy < gh; gy++) {
                for (int gx = 0; gx < gw; gx++) {
                    const int px = pen + x0 + gx, py = base + y0 + gy;
                    if (px < 0 || py < 0 || px >= c->w || py >= c->h) continue;
                    uint8_t *p = c->rgba + ((size_t)py * c->w + px) * 4;
                    const int a = glyph[gy * gw + gx];
                    for (int k = 0; k < 3; k++)
                        p[k] = (uint8_t)((rgb[k] * a + p[k] * (255 - a)) / 255);
                }
            }
        }
        pen += (int)lroundf(adv * c->scale);
    }
    return pen;
}

static unsigned char *read_file(const char *path, char *why, size_t why_len) {
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (data = malloc((size_t)size))) {
        if (fread(data, 1, (size_t)size, f) != (size_t)size) {
            free(data);
            data = NULL;
        }
    }
    if (f) fclose(f);
    if (!data) snprintf(why, why_len, "cannot read the font %s", path);
    return data;
}

uint8_t *bench_chart(const bench_result *b, const char *font_path, int *width, int *height,
                     char *why, size_t why_len) {
    unsigned char *ttf = read_file(font_path, why, why_len);
    if (!ttf) return NULL;
    canvas c = {.w = CHART_W, .h = CHART_TOP + CHART_ROW * (b->count > 0 ? b->count : 1) + 40};
    if (!stbtt_InitFont(&c.font, ttf, stbtt_GetFontOffsetForIndex(ttf, 0))) {
        snprintf(why, why_len, "%s is not a TrueType font", font_path);
        free(ttf);
        return NULL;
    }
    c.rgba = malloc((size_t)c.w * c.h * 4);
    if (!c.rgba) {
        snprintf(why, why_len, "out of memory for a %d x %d chart", c.w, c.h);
        free(ttf);
        return NULL;
    }
    c.scale = stbtt_ScaleForPixelHeight(&c.font, CHART_PX);
    stbtt_GetFontVMetrics(&c.font, &c.ascent, NULL, NULL);
    static const uint8_t bg[3] = {250, 250, 250}, ink[3] = {20, 20, 20}, grey[3] = {110, 110, 110},
                         pairs[3] = {52, 101, 164}, tree[3] = {204, 102, 0};
    fill(&c, 0, 0, c.w, c.h, bg);

    /* Scales: all-pairs bars by interactions/s, tree bars by bodies/s; each
     * kind against its own largest value, and said so in the legend. */
    double max_ips = 0, max_bps = 0;
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        const double v = r->tree ? bodies_per_s(r) : bench_interactions_per_s(r);
        if (!isfinite(v)) continue; /* drawn as an empty bar */
        if (r->tree)
            max_bps = fmax(max_bps, v);
        else
            max_ips = fmax(max_ips, v);
    }
    char line[sizeof b->dev.name + 64];
    snprintf(line, sizeof line, "nbody --benchmark on %s",
             b->cuda ? b->dev.name : "the CPU backend");
    draw_text(&c, 12, 10, line, ink);
    int x = 12;
    fill(&c, x, 40, x + 14, 54, pairs);
    x = draw_text(&c, x + 20, 38, "all-pairs: 1e9 interactions/s (N^2 per step)", grey);
    if (max_bps > 0) {
        fill(&c, x + 24, 40, x + 38, 54, tree);
        draw_text(&c, x + 44, 38, "tree: 1e6 bodies/s (own scale)", grey);
    }
    const int bar0 = CHART_LABEL, bar_w = CHART_W - CHART_LABEL - CHART_VALUE;
    for (int i = 0; i < b->count; i++) {
        const bench_row *r = &b->rows[i];
        const int y = CHART_TOP + i * CHART_ROW;
        const sim_method *m = method_of(b, r);
        if (r->tree)
            snprintf(line, sizeof line, "%s N=%d theta=%.2f", m->name, r->n, r->theta);
        else if (!m->block_shape)
            snprintf(line, sizeof line, "%s N=%d", m->name, r->n);
        else
            snprintf(line, sizeof line, "%s N=%d %dx%d", m->name, r->n, r->p, r->q);
        draw_text(&c, 12, y + 4, line, ink);
        const double v = r->tree ? bodies_per_s(r) : bench_interactions_per_s(r);
        const double max = r->tree ? max_bps : max_ips;
        const int len = max > 0 && isfinite(v) ? (int)lround(bar_w * fmin(v / max, 1.0)) : 0;
        fill(&c, bar0, y + 4, bar0 + (len > 1 ? len : 1), y + CHART_ROW - 4,
             r->tree ? tree : pairs);
        snprintf(line, sizeof line, "%.3g (%.3g ms/step)", v * (r->tree ? 1e-6 : 1e-9), r->ms);
        draw_text(&c, bar0 + len + 8, y + 4, line, ink);
    }
    free(ttf);
    *width = c.w;
    *height = c.h;
    return c.rgba;
}
