/* render_colormap.c - the density view's colour map (render.h): a float
 * picture uploaded to a single-channel float texture and drawn with
 * shaders/colormap.frag over the whole output, one texel per pixel (no
 * filtering: the map is made at the picture's size). The stretch and the
 * palette are repeated here in C for the colour bar and the tests; the
 * shader and this file read the same palette (nbody_shared.h).
 */
#include <math.h>
#include <stdlib.h>

#include "render_gl.h"

struct render_colormap {
    GLuint program, tex, vao;
    GLint u_map, u_lo, u_hi, u_stretch;
    int w, h; /* the texture's size */
};

static const float palette[3 * NBODY_PALETTE_STOPS] = {NBODY_PALETTE_INFERNO};

_Static_assert(sizeof palette == 3 * NBODY_PALETTE_STOPS * sizeof(float),
               "the palette holds NBODY_PALETTE_STOPS colours");

render_colormap *render_colormap_create(const render_colormap_desc *desc, render_error *err) {
    render_colormap *c = calloc(1, sizeof *c);
    if (!c) {
        render_gl_error(err, "free some memory", "out of memory for the colour map");
        return NULL;
    }
    c->program = render_gl_program(desc->shader_dir, "fullscreen.vert", "colormap.frag", err);
    if (!c->program) {
        free(c);
        return NULL;
    }
    c->u_map = glGetUniformLocation(c->program, "u_map");
    c->u_lo = glGetUniformLocation(c->program, "u_lo");
    c->u_hi = glGetUniformLocation(c->program, "u_hi");
    c->u_stretch = glGetUniformLocation(c->program, "u_stretch");
    glGenVertexArrays(1, &c->vao);
    glGenTextures(1, &c->tex);
    GL_CHECK("render_colormap_create");
    return c;
}

void render_colormap_destroy(render_colormap *c) {
    if (!c) return;
    glDeleteProgram(c->program);
    glDeleteTextures(1, &c->tex);
    glDeleteVertexArrays(1, &c->vao);
    free(c);
}

bool render_colormap_draw(render_colormap *c, render *r, const float *map, int width, int height,
                          const render_colormap_range *range, render_error *err) {
    glBindTexture(GL_TEXTURE_2D, c->tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    if (c->w != width || c->h != height) {
        glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, width, height, 0, GL_RED, GL_FLOAT, map);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        if (GL_OUT_OF_MEMORY_AFTER("the density map's texture")) {
            c->w = c->h = 0;
            glBindTexture(GL_TEXTURE_2D, 0);
            render_gl_error(err, "try a smaller window or --width/--height",
                            "GL is out of memory for a %dx%d density map", width, height);
            return false;
        }
        c->w = width;
        c->h = height;
    } else {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width, height, GL_RED, GL_FLOAT, map);
    }
    glBindFramebuffer(GL_FRAMEBUFFER, render_gl_output_fbo(r));
    glViewport(0, 0, width, height);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glActiveTexture(GL_TEXTURE0);
    glUseProgram(c->program);
    glUniform1i(c->u_map, 0);
    glUniform1f(c->u_lo, range->lo);
    glUniform1f(c->u_hi, range->hi);
    glUniform1i(c->u_stretch, (int)range->stretch);
    glBindVertexArray(c->vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glUseProgram(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    GL_CHECK("render_colormap_draw");
    return true;
}

float render_colormap_t(const render_colormap_range *range, float value) {
    if (!(value > 0.0f)) return 0.0f;
    const float lo = range->lo, hi = range->hi;
    const float t = range->stretch == RENDER_STRETCH_ASINH ? asinhf(value / lo) / asinhf(hi / lo)
                                                           : logf(value / lo) / logf(hi / lo);
    return t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
}

void render_colormap_rgb(float t, float rgb[3]) {
    const float x = (t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t) * (NBODY_PALETTE_STOPS - 1);
    int i = (int)x;
    if (i > NBODY_PALETTE_STOPS - 2) i = NBODY_PALETTE_STOPS - 2;
    const float f = x - (float)i;
    for (int k = 0; k < 3; k++) {
        rgb[k] = palette[3 * i + k] * (1.0f - f) + palette[3 * (i + 1) + k] * f;
    }
}

const char *render_stretch_name(render_stretch s) {
    return s == RENDER_STRETCH_ASINH ? "asinh" : "log";
}
