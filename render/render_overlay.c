/* render_overlay.c - text and translucent panels over the scene (HUD, help).
 *
 * Glyphs come from a TrueType font (assets/fonts/DejaVuSansMono.ttf) packed
 * into one atlas by stb_truetype at the pixel size asked for, so the HUD is
 * crisp at any content scale; it is re-packed only when that size changes.
 * Text is UTF-8: ASCII, Latin-1, Greek and a few symbols (x, ², ≈, →, ₀…₉)
 * are in the atlas; anything else shows as '?'. Quads are batched per frame
 * and drawn in one call with alpha blending into whatever framebuffer is
 * bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stb/stb_truetype.h>

#include "render_gl.h"

/* Codepoint ranges in the atlas. */
static const struct {
    int first, count;
} ranges[] = {
    {32, 95},     /* ASCII */
    {160, 96},    /* Latin-1: × ² ³ ± · µ */
    {0x391, 57},  /* Greek */
    {0x2022, 1},  /* • */
    {0x2026, 1},  /* … */
    {0x2080, 10}, /* ₀ … ₉ */
    {0x2190, 4},  /* ← ↑ → ↓ */
    {0x2212, 1},  /* − */
    {0x2248, 1},  /* ≈ */
    {0x2264, 2},  /* ≤ ≥ */
};
#define RANGE_COUNT ((int)(sizeof ranges / sizeof ranges[0]))
#define GLYPH_MAX 300
#define QUADS_MAX 16384

typedef struct overlay_vertex {
    float x, y, u, v;
    float r, g, b, a;
} overlay_vertex;

struct render_overlay {
    GLuint program, vao, vbo, texture;
    GLint u_screen, u_font;
    unsigned char *font_data;
    stbtt_fontinfo font;
    float px;     /* baked pixel height */
    float ascent; /* pixels above the baseline */
    int atlas_w, atlas_h;
    stbtt_packedchar glyphs[GLYPH_MAX];
    float white_u, white_v; /* a solid texel for panels */
    overlay_vertex *verts;
    int count; /* vertices this frame */
    int fb_w, fb_h;
    float extent[4]; /* x0, y0, x1, y1 of the quads since the last extent reset; x1 < x0: none */
};

/* Index of codepoint c in glyphs[], or -1. */
static int glyph_index(int c) {
    int base = 0;
    for (int r = 0; r < RANGE_COUNT; r++) {
        if (c >= ranges[r].first && c < ranges[r].first + ranges[r].count) {
            return base + c - ranges[r].first;
        }
        base += ranges[r].count;
    }
    return -1;
}

/* Packs every range at o->px into a new atlas texture. */
static bool bake(render_overlay *o, render_error *err) {
    for (int size = 512; size <= 4096; size *= 2) {
        unsigned char *pixels = calloc((size_t)size, (size_t)size);
        if (!pixels) break;
        stbtt_pack_context pc;
        stbtt_pack_range pr[RANGE_COUNT];
        int base = 0;
        for (int r = 0; r < RANGE_COUNT; r++) {
            pr[r] = (stbtt_pack_range){.font_size = o->px,
                                       .first_unicode_codepoint_in_range = ranges[r].first,
                                       .num_chars = ranges[r].count,
                                       .chardata_for_range = o->glyphs + base};
            base += ranges[r].count;
        }
        /* Leave the last 2 rows out of the packing: the solid texel lives there. */
        bool ok = stbtt_PackBegin(&pc, pixels, size, size - 2, size, 1, NULL) &&
                  (stbtt_PackSetOversampling(&pc, 1, 1), true) &&
                  stbtt_PackFontRanges(&pc, o->font_data, 0, pr, RANGE_COUNT);
        stbtt_PackEnd(&pc);
        if (ok) {
            pixels[(size_t)(size - 1) * size + 0] = 255;
            pixels[(size_t)(size - 1) * size + 1] = 255;
            o->white_u = 0.75f / size;
            o->white_v = (size - 0.5f) / size;
            o->atlas_w = o->atlas_h = size;
            if (!o->texture) glGenTextures(1, &o->texture);
            glBindTexture(GL_TEXTURE_2D, o->texture);
            glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
            glTexImage2D(GL_TEXTURE_2D, 0, GL_R8, size, size, 0, GL_RED, GL_UNSIGNED_BYTE, pixels);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
            glBindTexture(GL_TEXTURE_2D, 0);
            free(pixels);
            int ascent = 0, descent = 0, gap = 0;
            stbtt_GetFontVMetrics(&o->font, &ascent, &descent, &gap);
            o->ascent = ascent * stbtt_ScaleForPixelHeight(&o->font, o->px);
            GL_CHECK("overlay bake");
            return true;
        }
        free(pixels);
    }
    render_gl_error(err, "use a smaller HUD scale", "cannot fit the HUD font at %.0f px", o->px);
    return false;
}

render_overlay *render_overlay_create(const render_overlay_desc *desc, render_error *err) {
    render_overlay *o = calloc(1, sizeof *o);
    if (!o) {
        render_gl_error(err, "free some memory", "out of host memory for the text overlay");
        return NULL;
    }
    o->px = desc->font_px > 0 ? desc->font_px : 18.0f;
    render_overlay_extent_reset(o);
    o->font_data = (unsigned char *)render_gl_read_file(desc->font_path, "font", NULL, err);
    if (!o->font_data) {
        free(o);
        return NULL;
    }
    if (!stbtt_InitFont(&o->font, o->font_data, stbtt_GetFontOffsetForIndex(o->font_data, 0))) {
        render_gl_error(err, "reinstall assets/fonts", "%s is not a TrueType font",
                        desc->font_path);
        free(o->font_data);
        free(o);
        return NULL;
    }
    o->verts = malloc(sizeof(overlay_vertex) * 6 * QUADS_MAX);
    if (!o->verts) {
        render_gl_error(err, "free some memory", "out of host memory for the text overlay");
        render_overlay_destroy(o);
        return NULL;
    }
    o->program = render_gl_program(desc->shader_dir, "overlay.vert", "overlay.frag", err);
    if (!o->verts || !o->program || !bake(o, err)) {
        render_overlay_destroy(o);
        return NULL;
    }
    o->u_screen = glGetUniformLocation(o->program, "u_screen");
    o->u_font = glGetUniformLocation(o->program, "u_font");
    glGenVertexArrays(1, &o->vao);
    glGenBuffers(1, &o->vbo);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(overlay_vertex) * 6 * QUADS_MAX), NULL,
                 GL_STREAM_DRAW);
    const GLsizei stride = sizeof(overlay_vertex);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(overlay_vertex, x));
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(overlay_vertex, u));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, stride, (void *)offsetof(overlay_vertex, r));
    glBindVertexArray(0);
    GL_CHECK("render_overlay_create");
    return o;
}

void render_overlay_destroy(render_overlay *o) {
    if (!o) return;
    if (o->program) glDeleteProgram(o->program);
    if (o->vbo) glDeleteBuffers(1, &o->vbo);
    if (o->vao) glDeleteVertexArrays(1, &o->vao);
    if (o->texture) glDeleteTextures(1, &o->texture);
    free(o->verts);
    free(o->font_data);
    free(o);
}

void render_overlay_set_font_px(render_overlay *o, float px) {
    if (px < 8.0f) px = 8.0f;
    if (px > 96.0f) px = 96.0f;
    if (px == o->px) return;
    const float old = o->px;
    o->px = px;
    if (!bake(o, NULL)) {
        o->px = old;
        bake(o, NULL);
    }
}

float render_overlay_font_px(const render_overlay *o) {
    return o->px;
}

float render_overlay_line_height(const render_overlay *o) {
    return o->px * 1.2f;
}

/* Decodes one UTF-8 codepoint; advances *s. Bad bytes give '?'. */
static int next_codepoint(const char **s) {
    const unsigned char *p = (const unsigned char *)*s;
    int c = p[0], extra = 0;
    if (c < 0x80) {
        extra = 0;
    } else if ((c & 0xE0) == 0xC0) {
        c &= 0x1F;
        extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
        c &= 0x0F;
        extra = 2;
    } else if ((c & 0xF8) == 0xF0) {
        c &= 0x07;
        extra = 3;
    } else {
        *s += 1;
        return '?';
    }
    for (int i = 1; i <= extra; i++) {
        if ((p[i] & 0xC0) != 0x80) {
            *s += i;
            return '?';
        }
        c = (c << 6) | (p[i] & 0x3F);
    }
    *s += 1 + extra;
    return c;
}

float render_overlay_text_width(const render_overlay *o, const char *text) {
    float w = 0;
    while (*text) {
        int g = glyph_index(next_codepoint(&text));
        if (g < 0) g = glyph_index('?');
        w += o->glyphs[g].xadvance;
    }
    return w;
}

void render_overlay_begin(render_overlay *o, int fb_w, int fb_h) {
    o->count = 0;
    o->fb_w = fb_w;
    o->fb_h = fb_h;
}

static void quad(render_overlay *o, float x0, float y0, float x1, float y1, float u0, float v0,
                 float u1, float v1, const float c[4]) {
    if (o->count + 6 > 6 * QUADS_MAX) return;
    if (o->extent[2] < o->extent[0]) {
        o->extent[0] = x0, o->extent[1] = y0, o->extent[2] = x1, o->extent[3] = y1;
    } else {
        o->extent[0] = fminf(o->extent[0], x0), o->extent[1] = fminf(o->extent[1], y0);
        o->extent[2] = fmaxf(o->extent[2], x1), o->extent[3] = fmaxf(o->extent[3], y1);
    }
    overlay_vertex *v = o->verts + o->count;
    const overlay_vertex a = {x0, y0, u0, v0, c[0], c[1], c[2], c[3]},
                         b = {x1, y0, u1, v0, c[0], c[1], c[2], c[3]},
                         d = {x1, y1, u1, v1, c[0], c[1], c[2], c[3]},
                         e = {x0, y1, u0, v1, c[0], c[1], c[2], c[3]};
    v[0] = a;
    v[1] = b;
    v[2] = d;
    v[3] = a;
    v[4] = d;
    v[5] = e;
    o->count += 6;
}

void render_overlay_rect(render_overlay *o, float x, float y, float w, float h,
                         const float rgba[4]) {
    quad(o, x, y, x + w, y + h, o->white_u, o->white_v, o->white_u, o->white_v, rgba);
}

float render_overlay_text(render_overlay *o, float x, float y, const float rgba[4],
                          const char *text) {
    float pen_x = x, pen_y = y + o->ascent;
    while (*text) {
        int g = glyph_index(next_codepoint(&text));
        if (g < 0) g = glyph_index('?');
        stbtt_aligned_quad q;
        stbtt_GetPackedQuad(o->glyphs, o->atlas_w, o->atlas_h, g, &pen_x, &pen_y, &q, 1);
        if (q.x1 > q.x0) quad(o, q.x0, q.y0, q.x1, q.y1, q.s0, q.t0, q.s1, q.t1, rgba);
    }
    return pen_x;
}

void render_overlay_extent_reset(render_overlay *o) {
    o->extent[0] = o->extent[1] = 0;
    o->extent[2] = o->extent[3] = -1;
}

void render_overlay_extent(const render_overlay *o, float box[4]) {
    const bool none = o->extent[2] < o->extent[0];
    box[0] = none ? 0 : o->extent[0];
    box[1] = none ? 0 : o->extent[1];
    box[2] = none ? 0 : o->extent[2] - o->extent[0];
    box[3] = none ? 0 : o->extent[3] - o->extent[1];
}

void render_overlay_end(render_overlay *o) {
    if (o->count == 0) return;
    glViewport(0, 0, o->fb_w, o->fb_h);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_DEPTH_TEST);
    glUseProgram(o->program);
    glUniform2f(o->u_screen, (float)o->fb_w, (float)o->fb_h);
    glUniform1i(o->u_font, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, o->texture);
    glBindVertexArray(o->vao);
    glBindBuffer(GL_ARRAY_BUFFER, o->vbo);
    /* New storage (orphaning) before the upload: the last frame's draw may
     * still be reading the old, and writing into it could make the CPU wait
     * for that draw. */
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(overlay_vertex) * 6 * QUADS_MAX), NULL,
                 GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(overlay_vertex) * o->count), o->verts);
    glDrawArrays(GL_TRIANGLES, 0, o->count);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    o->count = 0;
    GL_CHECK("render_overlay_end");
}
