/* render.c - OpenGL 3.3 core drawing of the bodies (see render.h).
 *
 * A frame: (1) every body is a soft point sprite, additively blended into a
 * float (RGBA16F) framebuffer - stars are light, they do not occlude, and
 * light that piles up in a dense core is kept, not clipped; (2) optionally
 * a bloom: the brightest light, downsampled 4x and blurred; (3) the tone map
 * (shaders/tonemap.frag) writes the picture into the window or the offscreen
 * target: the bloom is added, the light is multiplied by the exposure, each
 * pixel is scaled by 1 / (1 + m) where m is its brightest channel (Reinhard
 * on the brightest channel: the hue stays, the brightest channel m becomes
 * m / (1 + m) < 1), and a power of 1/1.2 lifts the faint parts. Automatic
 * exposure reads a small mipmap of the HDR image every few frames and aims
 * its brightest 0.5 % at m = AUTO_TARGET.
 *
 * GL errors are checked after each entry point in debug builds; shader
 * compile and link failures are reported with the file name and the log;
 * GL running out of memory for a buffer or framebuffer (a large N or image)
 * is reported as a render_error.
 */
#include <assert.h>
#include <cglm/cglm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_gl.h"

_Static_assert(sizeof(render_vertex) == 16, "a body vertex is 16 bytes");

#define BLOOM_DOWN 4 /* bloom works at a quarter of the resolution */
#define BLOOM_STRENGTH 0.6f
#define BLOOM_THRESHOLD 0.7f /* of the exposed light, before the roll-off */
#define AUTO_EVERY 8         /* frames between automatic-exposure readings */
/* The automatic exposure puts the brightest 0.5 % of the picture at m = 3
 * after exposure: 3 / (1 + 3) = 75 % of white, 79 % after the 1/1.2 power. */
#define AUTO_TARGET 3.0f

/* A colour texture with its framebuffer. */
typedef struct target {
    GLuint fbo, tex;
    int w, h;
} target;

struct render {
    GLuint bodies, tonemap, bright, blur; /* programs */
    GLint u_view, u_proj, u_point_px, u_speed_scale, u_brightness, u_color_mode, u_hide_halo;
    GLint tm_hdr, tm_bloom, tm_exposure, tm_bloom_strength; /* tonemap */
    GLint br_hdr, br_texel, br_exposure, br_threshold;      /* bright pass */
    GLint bl_src, bl_step;                                  /* blur */
    GLuint vao, vbo, tag_vbo, empty_vao;
    int capacity; /* bodies the buffers hold */
    target hdr;   /* float, with mipmaps for the automatic exposure */
    /* CUDA's sprites (render_sprite_source), read in place of hdr */
    target source[RENDER_SOURCE_SLOTS];
    target bloom_a, bloom_b;
    GLuint fbo, color_rb; /* offscreen final target (headless), or 0: the window */
    int off_w, off_h;
    render_target *bound; /* render_bind_target's target, or NULL */
    float auto_exposure;  /* current automatic exposure (0: not measured yet) */
    float last_exposure;
    int frame;
};

static void destroy_target(target *t) {
    if (t->fbo) glDeleteFramebuffers(1, &t->fbo);
    if (t->tex) glDeleteTextures(1, &t->tex);
    *t = (target){0};
}

/* (Re)creates t as a w x h RGBA16F texture target when the size changed.
 * false (with *err when non-NULL) when GL cannot make it - out of memory, or
 * a size the driver refuses - and t is left empty. */
static bool ensure_target(target *t, int w, int h, bool mipmaps, render_error *err) {
    if (t->fbo && t->w == w && t->h == h) return true;
    destroy_target(t);
    glGenTextures(1, &t->tex);
    glBindTexture(GL_TEXTURE_2D, t->tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA16F, w, h, 0, GL_RGBA, GL_HALF_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER,
                    mipmaps ? GL_LINEAR_MIPMAP_LINEAR : GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    if (mipmaps) glGenerateMipmap(GL_TEXTURE_2D); /* allocate the chain */
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t->tex, 0);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    const bool oom = GL_OUT_OF_MEMORY_AFTER("a float framebuffer");
    glBindTexture(GL_TEXTURE_2D, 0);
    if (oom || status != GL_FRAMEBUFFER_COMPLETE) {
        /* GL 3.3 has RGBA16F render targets; what fails is the size. */
        render_gl_error(err, "try a smaller --width/--height (or window)",
                        "cannot make a %dx%d float (RGBA16F) framebuffer: %s (status 0x%04x)", w, h,
                        oom ? "GL is out of memory" : "incomplete", status);
        destroy_target(t); /* also unbinds its framebuffer */
        return false;
    }
    t->w = w;
    t->h = h;
    return true;
}

render *render_create(const render_desc *desc, render_error *err) {
    assert(desc && desc->shader_dir);
    if (!render_gl_load(err)) return NULL;
    render *r = calloc(1, sizeof *r);
    if (!r) {
        render_gl_error(err, "free some memory", "out of host memory for the renderer");
        return NULL;
    }
    const char *dir = desc->shader_dir;
    if (!(r->bodies = render_gl_program(dir, "bodies.vert", "bodies.frag", err)) ||
        !(r->tonemap = render_gl_program(dir, "fullscreen.vert", "tonemap.frag", err)) ||
        !(r->bright = render_gl_program(dir, "fullscreen.vert", "bright.frag", err)) ||
        !(r->blur = render_gl_program(dir, "fullscreen.vert", "blur.frag", err))) {
        render_destroy(r);
        return NULL;
    }
    r->u_view = glGetUniformLocation(r->bodies, "u_view");
    r->u_proj = glGetUniformLocation(r->bodies, "u_proj");
    r->u_point_px = glGetUniformLocation(r->bodies, "u_point_px");
    r->u_speed_scale = glGetUniformLocation(r->bodies, "u_speed_scale");
    r->u_brightness = glGetUniformLocation(r->bodies, "u_brightness");
    r->u_color_mode = glGetUniformLocation(r->bodies, "u_color_mode");
    r->u_hide_halo = glGetUniformLocation(r->bodies, "u_hide_halo");
    r->tm_hdr = glGetUniformLocation(r->tonemap, "u_hdr");
    r->tm_bloom = glGetUniformLocation(r->tonemap, "u_bloom");
    r->tm_exposure = glGetUniformLocation(r->tonemap, "u_exposure");
    r->tm_bloom_strength = glGetUniformLocation(r->tonemap, "u_bloom_strength");
    r->br_hdr = glGetUniformLocation(r->bright, "u_hdr");
    r->br_texel = glGetUniformLocation(r->bright, "u_texel");
    r->br_exposure = glGetUniformLocation(r->bright, "u_exposure");
    r->br_threshold = glGetUniformLocation(r->bright, "u_threshold");
    r->bl_src = glGetUniformLocation(r->blur, "u_src");
    r->bl_step = glGetUniformLocation(r->blur, "u_step");

    glGenVertexArrays(1, &r->vao);
    glGenVertexArrays(1, &r->empty_vao);
    glGenBuffers(1, &r->vbo);
    glGenBuffers(1, &r->tag_vbo);

    if (desc->offscreen_width > 0 && desc->offscreen_height > 0) {
        r->off_w = desc->offscreen_width;
        r->off_h = desc->offscreen_height;
        const int most = render_gl_max_image();
        if (r->off_w > most || r->off_h > most) {
            render_gl_error(err, "", "a %dx%d image is larger than this GL's largest, %dx%d",
                            r->off_w, r->off_h, most, most);
            if (err)
                snprintf(err->hint, sizeof err->hint, "give --width and --height of %d or less",
                         most);
            render_destroy(r);
            return NULL;
        }
        glGenFramebuffers(1, &r->fbo);
        glGenRenderbuffers(1, &r->color_rb);
        glBindRenderbuffer(GL_RENDERBUFFER, r->color_rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, r->off_w, r->off_h);
        glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                  r->color_rb);
        GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        const bool oom = GL_OUT_OF_MEMORY_AFTER("the offscreen framebuffer");
        if (oom || status != GL_FRAMEBUFFER_COMPLETE) {
            render_gl_error(err, "try a smaller --width/--height",
                            "cannot make a %dx%d offscreen framebuffer: %s (status 0x%04x)",
                            r->off_w, r->off_h, oom ? "GL is out of memory" : "incomplete", status);
            render_destroy(r);
            return NULL;
        }
        /* The float framebuffer every frame draws into, made now so that a
         * size GL cannot hold fails here, with a message, not mid-run. */
        if (!ensure_target(&r->hdr, r->off_w, r->off_h, true, err)) {
            render_destroy(r);
            return NULL;
        }
    }
    GL_CHECK("render_create");
    return r;
}

void render_destroy(render *r) {
    if (!r) return;
    render_bind_target(r, NULL); /* its own float framebuffers back, to be deleted here */
    const GLuint programs[] = {r->bodies, r->tonemap, r->bright, r->blur};
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        if (programs[i]) glDeleteProgram(programs[i]);
    }
    glDeleteBuffers(1, &r->vbo);
    glDeleteBuffers(1, &r->tag_vbo);
    glDeleteVertexArrays(1, &r->vao);
    glDeleteVertexArrays(1, &r->empty_vao);
    destroy_target(&r->hdr);
    for (int k = 0; k < RENDER_SOURCE_SLOTS; k++) destroy_target(&r->source[k]);
    destroy_target(&r->bloom_a);
    destroy_target(&r->bloom_b);
    if (r->fbo) glDeleteFramebuffers(1, &r->fbo);
    if (r->color_rb) glDeleteRenderbuffers(1, &r->color_rb);
    free(r);
}

bool render_reserve_bodies(render *r, int n, render_error *err) {
    if (n <= r->capacity) return true;
    /* New buffer objects (not just new storage), made while the old ones
     * still exist, so their names differ and a CUDA registration of the old
     * one can never alias the new storage. */
    GLuint vbo = 0, tag_vbo = 0;
    glGenBuffers(1, &vbo);
    glGenBuffers(1, &tag_vbo);
    uint16_t *zeros = calloc((size_t)n, sizeof *zeros); /* the tags: 16 bits a body */
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)sizeof(render_vertex) * n, NULL, GL_DYNAMIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, tag_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)sizeof *zeros * n, zeros, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    const bool oom = GL_OUT_OF_MEMORY_AFTER("render_reserve_bodies") || !zeros;
    free(zeros);
    if (oom) {
        glDeleteBuffers(1, &vbo);
        glDeleteBuffers(1, &tag_vbo);
        render_gl_error(err, "try a smaller --n",
                        "out of memory for the vertex buffers of %d bodies (%.1f MiB)", n,
                        (sizeof(render_vertex) + sizeof(uint16_t)) * (double)n / 1048576.0);
        return false;
    }
    glDeleteBuffers(1, &r->vbo);
    glDeleteBuffers(1, &r->tag_vbo);
    r->vbo = vbo;
    r->tag_vbo = tag_vbo;
    glBindVertexArray(r->vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(render_vertex), (void *)0);
    glBindBuffer(GL_ARRAY_BUFFER, r->tag_vbo);
    glEnableVertexAttribArray(1);
    glVertexAttribIPointer(1, 1, GL_UNSIGNED_SHORT, sizeof(uint16_t), (void *)0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    r->capacity = n;
    GL_CHECK("render_reserve_bodies");
    return true;
}

uint32_t render_body_buffer(const render *r) {
    return r->vbo;
}

int render_body_capacity(const render *r) {
    return r->capacity;
}

void render_upload_bodies(render *r, const render_vertex *v, int n) {
    assert(n <= r->capacity);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)sizeof(render_vertex) * n, v);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    GL_CHECK("render_upload_bodies");
}

void render_flush(render *r) {
    (void)r; /* the context current with r */
    glFlush();
}

void render_upload_tags(render *r, const uint16_t *tags, int n) {
    assert(n <= r->capacity);
    glBindBuffer(GL_ARRAY_BUFFER, r->tag_vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)sizeof *tags * n, tags);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    GL_CHECK("render_upload_tags");
}

void render_gl_camera(const render_view *rv, mat4 view, mat4 proj) {
    const render_camera *c = &rv->camera;
    const float aspect = (float)rv->fb_width / (float)rv->fb_height;
    const float cp = cosf(c->pitch), sp = sinf(c->pitch);
    const float cy = cosf(c->yaw), sy = sinf(c->yaw);
    vec3 dir = {cp * cy, cp * sy, sp};  /* from target towards the eye */
    vec3 up = {-sp * cy, -sp * sy, cp}; /* perpendicular to dir: no gimbal at the poles */
    vec3 eye, center = {c->target[0], c->target[1], c->target[2]};
    glm_vec3_scale(dir, c->distance, eye);
    glm_vec3_add(eye, center, eye);
    glm_lookat(eye, center, up, view);
    float fov = c->fov_y > 0 ? c->fov_y : (float)NBODY_FOV_Y_DEFAULT;
    glm_perspective(fov, aspect, c->distance * 1e-3f, c->distance * 1e3f, proj);
    if (rv->frame_scale > 0) {
        /* The lens: scale the picture about the framebuffer's centre and move
         * it so the target lands at frame_center_px. In clip space that is
         * x' = s x + o w (w is the clip w), the same as an off-centre frustum,
         * so the camera itself - and what it orbits - stays where it was. */
        const float s = rv->frame_scale;
        const float ox = 2.0f * rv->frame_center_px[0] / (float)rv->fb_width - 1.0f;
        const float oy = 1.0f - 2.0f * rv->frame_center_px[1] / (float)rv->fb_height;
        for (int col = 0; col < 4; col++) { /* cglm is column-major: proj[col][row] */
            proj[col][0] = s * proj[col][0] + ox * proj[col][3];
            proj[col][1] = s * proj[col][1] + oy * proj[col][3];
        }
    }
}

void render_sprite_params_of(const render_view *view, render_sprite_params *out) {
    mat4 v, p;
    render_gl_camera(view, v, p);
    const float size = view->point_size > 0 ? view->point_size : 0.02f;
    *out = (render_sprite_params){
        .width = view->fb_width,
        .height = view->fb_height,
        /* p[1][1] = cot(fov/2) times the lens's scale: a unit length at unit
         * depth spans p[1][1] * h / 2 pixels. */
        .point_px = size * p[1][1] * 0.5f * (float)view->fb_height,
        .speed_scale = view->speed_scale > 0 ? view->speed_scale : 1.0f,
        .brightness = view->brightness > 0 ? view->brightness : 0.6f,
        .color = view->color,
        .hide_halo = view->hide_halo,
    };
    memcpy(out->view, v, sizeof out->view);
    memcpy(out->proj, p, sizeof out->proj);
}

static void draw_sprites(render *r, const render_view *view, int n) {
    render_sprite_params sp;
    render_sprite_params_of(view, &sp);
    glUseProgram(r->bodies);
    glUniformMatrix4fv(r->u_view, 1, GL_FALSE, sp.view);
    glUniformMatrix4fv(r->u_proj, 1, GL_FALSE, sp.proj);
    glUniform1f(r->u_point_px, sp.point_px);
    glUniform1f(r->u_speed_scale, sp.speed_scale);
    glUniform1f(r->u_brightness, sp.brightness);
    _Static_assert(RENDER_COLOR_SPEED == 0 && RENDER_COLOR_COUNT == NBODY_COLOR_POTENTIAL + 1,
                   "the colour modes are 0 .. RENDER_COLOR_COUNT - 1, as the app cycles them");
    glUniform1i(r->u_color_mode, (int)sp.color);
    glUniform1i(r->u_hide_halo, sp.hide_halo ? 1 : 0);
    glEnable(GL_PROGRAM_POINT_SIZE);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_ONE, GL_ONE);
    glBindVertexArray(r->vao);
    glDrawArrays(GL_POINTS, 0, n);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
}

/* Reads a mipmap of the HDR image no larger than 256 x 256 and moves the
 * automatic exposure towards putting its brightest 0.5 % at AUTO_TARGET. */
static void measure_exposure(render *r) {
    glBindTexture(GL_TEXTURE_2D, r->hdr.tex);
    glGenerateMipmap(GL_TEXTURE_2D);
    int level = 0, w = r->hdr.w, h = r->hdr.h;
    while (w > 256 || h > 256) {
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : 1;
        level++;
    }
    float *px = malloc(sizeof(float) * 4 * (size_t)w * (size_t)h);
    float *lum = malloc(sizeof(float) * (size_t)w * (size_t)h);
    if (px && lum) {
        glGetTexImage(GL_TEXTURE_2D, level, GL_RGBA, GL_FLOAT, px);
        const int count = w * h;
        for (int i = 0; i < count; i++) {
            lum[i] = fmaxf(px[4 * i], fmaxf(px[4 * i + 1], px[4 * i + 2]));
        }
        /* The 99.5th percentile by partial selection sort of the top 0.5 %. */
        const int top = count / 200 + 1;
        for (int k = 0; k < top; k++) {
            int best = k;
            for (int i = k + 1; i < count; i++) {
                if (lum[i] > lum[best]) best = i;
            }
            const float t = lum[k];
            lum[k] = lum[best];
            lum[best] = t;
        }
        const float bright = lum[top - 1];
        if (bright > 1e-6f) {
            const float want = fminf(fmaxf(AUTO_TARGET / bright, 1e-3f), 1e3f);
            r->auto_exposure = r->auto_exposure > 0
                                   ? r->auto_exposure * powf(want / r->auto_exposure, 0.5f)
                                   : want;
        }
    }
    free(px);
    free(lum);
    glBindTexture(GL_TEXTURE_2D, 0);
}

static void fullscreen(render *r, GLuint program) {
    glUseProgram(program);
    glBindVertexArray(r->empty_vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
}

/* Leaves the blurred bright light of picture (hdr's size) in bloom_a;
 * false (nothing done) when its framebuffers cannot be made. */
static bool bloom(render *r, GLuint picture, float exposure) {
    const int w = r->hdr.w / BLOOM_DOWN > 0 ? r->hdr.w / BLOOM_DOWN : 1;
    const int h = r->hdr.h / BLOOM_DOWN > 0 ? r->hdr.h / BLOOM_DOWN : 1;
    if (!ensure_target(&r->bloom_a, w, h, false, NULL) ||
        !ensure_target(&r->bloom_b, w, h, false, NULL)) {
        return false;
    }
    glViewport(0, 0, w, h);
    glActiveTexture(GL_TEXTURE0);
    glBindFramebuffer(GL_FRAMEBUFFER, r->bloom_a.fbo);
    glBindTexture(GL_TEXTURE_2D, picture);
    glUseProgram(r->bright);
    glUniform1i(r->br_hdr, 0);
    glUniform2f(r->br_texel, 1.0f / r->hdr.w, 1.0f / r->hdr.h);
    glUniform1f(r->br_exposure, exposure);
    glUniform1f(r->br_threshold, BLOOM_THRESHOLD);
    fullscreen(r, r->bright);
    glUseProgram(r->blur);
    glUniform1i(r->bl_src, 0);
    const GLint step = r->bl_step;
    for (int pass = 0; pass < 2; pass++) {
        glBindFramebuffer(GL_FRAMEBUFFER, r->bloom_b.fbo);
        glBindTexture(GL_TEXTURE_2D, r->bloom_a.tex);
        glUniform2f(step, 1.0f / w, 0.0f);
        fullscreen(r, r->blur);
        glBindFramebuffer(GL_FRAMEBUFFER, r->bloom_a.fbo);
        glBindTexture(GL_TEXTURE_2D, r->bloom_b.tex);
        glUniform2f(step, 0.0f, 1.0f / h);
        fullscreen(r, r->blur);
    }
    return true;
}

uint32_t render_sprite_picture(render *r, int width, int height, render_error *err) {
    assert(!r->bound && width > 0 && height > 0);
    return ensure_target(&r->hdr, width, height, true, err) ? r->hdr.tex : 0;
}

uint32_t render_sprite_source(render *r, int slot, int width, int height, render_error *err) {
    assert(!r->bound && width > 0 && height > 0 && slot >= 0 && slot < RENDER_SOURCE_SLOTS);
    target *t = &r->source[slot];
    return ensure_target(t, width, height, false, err) ? t->tex : 0;
}

bool render_frame(render *r, const render_view *view, int n) {
    const int w = view->fb_width, h = view->fb_height;
    if (w <= 0 || h <= 0) return true;
    /* A picture of another size is a new texture, which CUDA did not draw. */
    const int slot = view->sprites_slot;
    const bool from_source = view->sprites_source && slot >= 0 && slot < RENDER_SOURCE_SLOTS;
    const target *cuda = from_source ? &r->source[slot] : &r->hdr;
    const bool drawn = view->sprites_drawn && cuda->fbo && cuda->w == w && cuda->h == h;
    if (!ensure_target(&r->hdr, w, h, true, NULL)) return false;
    /* CUDA's source texture is read in place; hdr gets a copy only for the
     * automatic exposure's mipmaps. */
    const GLuint picture = drawn && from_source ? cuda->tex : r->hdr.tex;
    if (!drawn) {
        glBindFramebuffer(GL_FRAMEBUFFER, r->hdr.fbo);
        glViewport(0, 0, w, h);
        glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        if (n > 0) draw_sprites(r, view, n);
    }

    float exposure = view->exposure > 0 ? view->exposure : 1.0f;
    if (view->auto_exposure) {
        if (r->auto_exposure == 0 || r->frame % AUTO_EVERY == 0) {
            if (picture != r->hdr.tex) {
                glBindFramebuffer(GL_READ_FRAMEBUFFER, cuda->fbo);
                glBindFramebuffer(GL_DRAW_FRAMEBUFFER, r->hdr.fbo);
                glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
                glBindFramebuffer(GL_FRAMEBUFFER, 0);
            }
            measure_exposure(r);
        }
        if (r->auto_exposure > 0) exposure = r->auto_exposure;
    }
    r->last_exposure = exposure;
    r->frame++;
    const bool bloomed = view->bloom && bloom(r, picture, exposure);

    glBindFramebuffer(GL_FRAMEBUFFER, render_gl_output_fbo(r));
    glViewport(0, 0, w, h);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, picture);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, bloomed ? r->bloom_a.tex : picture);
    glUseProgram(r->tonemap);
    glUniform1i(r->tm_hdr, 0);
    glUniform1i(r->tm_bloom, 1);
    glUniform1f(r->tm_exposure, exposure);
    glUniform1f(r->tm_bloom_strength, bloomed ? BLOOM_STRENGTH : 0.0f);
    fullscreen(r, r->tonemap);
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, 0);
    glUseProgram(0);
    GL_CHECK("render_frame");
    return true;
}

float render_exposure(const render *r) {
    return r->last_exposure;
}

void render_read_pixels(render *r, int width, int height, uint8_t *rgba) {
    glBindFramebuffer(GL_FRAMEBUFFER, render_gl_output_fbo(r));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    /* GL's first row is the bottom one: swap rows in place. */
    const size_t row = (size_t)width * 4;
    for (int y = 0; y < height / 2; y++) {
        uint8_t *a = rgba + row * (size_t)y, *b = rgba + row * (size_t)(height - 1 - y);
        for (size_t k = 0; k < row; k++) {
            const uint8_t t = a[k];
            a[k] = b[k];
            b[k] = t;
        }
    }
    GL_CHECK("render_read_pixels");
}

const char *render_color_name(render_color c) {
    static const char *const names[] = {"speed",   "per body",        "galaxy",   "component",
                                        "density", "radial velocity", "potential"};
    _Static_assert(sizeof names / sizeof names[0] == RENDER_COLOR_COUNT, "one name per mode");
    return c >= 0 && c < RENDER_COLOR_COUNT ? names[c] : "?";
}

const char *render_gl_renderer(void) {
    const GLubyte *s = glGetString(GL_RENDERER);
    return s ? (const char *)s : "?";
}

const char *render_gl_version(void) {
    const GLubyte *s = glGetString(GL_VERSION);
    return s ? (const char *)s : "?";
}

int render_gl_max_image(void) {
    GLint rb = 0, tex = 0, vp[2] = {0, 0};
    glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &rb);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &tex);
    glGetIntegerv(GL_MAX_VIEWPORT_DIMS, vp);
    GLint m = rb < tex ? rb : tex;
    if (vp[0] < m) m = vp[0];
    if (vp[1] < m) m = vp[1];
    return m;
}

/* ---- targets of their own size (render_target) ------------------------------
 * A video at --record-size is drawn by the same render_frame as the window,
 * into a picture of another size. Its float framebuffers (HDR and bloom) are
 * its own, swapped into the renderer while it is bound, so that drawing the
 * window and the video in one frame never resizes (reallocates) them. The
 * automatic exposure stays one state: it is measured on whichever picture
 * its turn falls on, and both pictures show the same scene. */

struct render_target {
    GLuint fbo, color_rb; /* the final RGBA8 picture */
    target hdr, bloom_a, bloom_b; /* the renderer's own while this one is bound */
};

uint32_t render_picture_renderbuffer(const render *r, const render_target *t) {
    return t ? t->color_rb : r->color_rb;
}

GLuint render_gl_output_fbo(const render *r) {
    return r->bound ? r->bound->fbo : r->fbo;
}

render_target *render_target_create(int width, int height, render_error *err) {
    render_target *t = calloc(1, sizeof *t);
    if (!t) {
        render_gl_error(err, "free some memory", "out of host memory for a render target");
        return NULL;
    }
    glGenFramebuffers(1, &t->fbo);
    glGenRenderbuffers(1, &t->color_rb);
    glBindRenderbuffer(GL_RENDERBUFFER, t->color_rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->color_rb);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    const bool oom = GL_OUT_OF_MEMORY_AFTER("a render target");
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    if (oom || status != GL_FRAMEBUFFER_COMPLETE) {
        render_gl_error(err, "try a smaller size",
                        "cannot make a %dx%d offscreen framebuffer: %s (status 0x%04x)", width,
                        height, oom ? "GL is out of memory" : "incomplete", status);
        render_target_destroy(NULL, t);
        return NULL;
    }
    /* The float framebuffer its frames draw into, made now so a size GL
     * cannot hold fails here, not mid-run. */
    if (!ensure_target(&t->hdr, width, height, true, err)) {
        render_target_destroy(NULL, t);
        return NULL;
    }
    GL_CHECK("render_target_create");
    return t;
}

void render_target_destroy(render *r, render_target *t) {
    if (!t) return;
    if (r && r->bound == t) render_bind_target(r, NULL);
    destroy_target(&t->hdr);
    destroy_target(&t->bloom_a);
    destroy_target(&t->bloom_b);
    if (t->fbo) glDeleteFramebuffers(1, &t->fbo);
    if (t->color_rb) glDeleteRenderbuffers(1, &t->color_rb);
    free(t);
}

static void swap_targets(target *a, target *b) {
    const target t = *a;
    *a = *b;
    *b = t;
}

/* Swaps t's float framebuffers with the renderer's (binding and unbinding
 * are the same swap). */
static void swap_float_targets(render *r, render_target *t) {
    swap_targets(&r->hdr, &t->hdr);
    swap_targets(&r->bloom_a, &t->bloom_a);
    swap_targets(&r->bloom_b, &t->bloom_b);
}

void render_bind_target(render *r, render_target *t) {
    if (r->bound == t) return;
    if (r->bound) swap_float_targets(r, r->bound);
    r->bound = t;
    if (t) swap_float_targets(r, t);
    glBindFramebuffer(GL_FRAMEBUFFER, render_gl_output_fbo(r));
}
