/* render_readback.c - frames read back for videos without stalling the loop.
 *
 * glReadPixels into client memory waits until the GPU has drawn the frame.
 * Into a pixel-pack buffer it only queues a copy and returns; a fence after
 * the copy says when it is done, and the buffer is mapped only then (or
 * when the caller must have it: map with wait), so the CPU does not wait for
 * the frame it just drew. Waiting on GL is costly beyond the wait itself:
 * a CPU wait for GL's work wakes late (docs/PERFORMANCE.md, "Where a 16K
 * frame goes").
 *
 * Two formats:
 * - RGBA: the picture as drawn, 4 bytes a pixel (PNG sequences); pop hands
 *   rows out top first, as render_read_pixels does, so a recorded frame and
 *   a screenshot of it are the same bytes.
 * - YUV420: planar YUV 4:2:0, BT.709 limited range, top row first, 1.5
 *   bytes a pixel (videos), converted and flipped on the GPU by
 *   shaders/yuv420.frag from a copy of the picture (a blit: the picture may
 *   be a renderbuffer or the window's own framebuffer). The frame is the
 *   picture cut to even sizes, as yuv420p needs.
 *
 * - DEVICE: a copy of the picture (a blit) in a texture, for CUDA to read
 *   through interop (app/interop/interop.c; video/ converts it). Nothing comes back
 *   to the host here. A texture, not a pixel-pack buffer: glReadPixels into
 *   a buffer costs the GPU more time a frame than the blit
 *   (docs/PERFORMANCE.md, "Recording").
 *
 * The buffers are used in order: a frame is pushed (copy queued), mapped
 * (the caller reads it, possibly on another thread), released (unmapped,
 * the buffer free again). Only the GL calls must come from the thread whose
 * context is current; the mapped bytes may be read anywhere until release.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_gl.h"

struct render_readback {
    render_readback_format format;
    GLuint pbo[RENDER_READBACK_DEPTH];
    GLsync fence[RENDER_READBACK_DEPTH];
    int w, h;           /* the picture */
    int out_w, out_h;   /* the frame: the picture, or its even part for YUV420 */
    size_t bytes;       /* of one frame */
    int oldest;         /* the buffer of the oldest frame pushed and not released */
    int mapped, queued; /* frames from oldest on: mapped first, then queued */
    /* YUV420 and DEVICE: the picture's copy; YUV420 only: the converted
     * frame, the program. */
    GLuint src_tex, src_fbo, yuv_tex, yuv_fbo, program, vao;
    GLint u_src, u_size, u_src_height;
};

/* A texture of w x h and a framebuffer drawing into it. */
static void make_texture_target(GLenum internal, GLenum format, int w, int h, GLuint *tex,
                                GLuint *fbo) {
    glGenTextures(1, tex);
    glBindTexture(GL_TEXTURE_2D, *tex);
    glTexImage2D(GL_TEXTURE_2D, 0, (GLint)internal, w, h, 0, format, GL_UNSIGNED_BYTE, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    glGenFramebuffers(1, fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, *fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, *tex, 0);
}

static bool create_yuv(render_readback *rb, const char *shader_dir, render_error *err) {
    if (!(rb->program = render_gl_program(shader_dir, "fullscreen.vert", "yuv420.frag", err))) {
        return false;
    }
    rb->u_src = glGetUniformLocation(rb->program, "u_src");
    rb->u_size = glGetUniformLocation(rb->program, "u_size");
    rb->u_src_height = glGetUniformLocation(rb->program, "u_src_height");
    glGenVertexArrays(1, &rb->vao);
    GLint fbo = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fbo);
    make_texture_target(GL_RGBA8, GL_RGBA, rb->w, rb->h, &rb->src_tex, &rb->src_fbo);
    bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    make_texture_target(GL_R8, GL_RED, rb->out_w, rb->out_h * 3 / 2, &rb->yuv_tex, &rb->yuv_fbo);
    complete = complete && glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)fbo);
    if (GL_OUT_OF_MEMORY_AFTER("the YUV conversion's targets") || !complete) {
        render_gl_error(err, "try a smaller size", "cannot make the %dx%d YUV conversion's targets",
                        rb->w, rb->h);
        return false;
    }
    return true;
}

render_readback *render_readback_create(const render_readback_desc *desc, render_error *err) {
    assert(desc && desc->width > 0 && desc->height > 0);
    render_readback *rb = calloc(1, sizeof *rb);
    if (!rb) {
        render_gl_error(err, "free some memory", "out of host memory for the read-back ring");
        return NULL;
    }
    rb->format = desc->format;
    rb->w = rb->out_w = desc->width;
    rb->h = rb->out_h = desc->height;
    rb->bytes = (size_t)rb->w * (size_t)rb->h * 4;
    if (rb->format == RENDER_READBACK_YUV420) {
        assert(desc->shader_dir);
        rb->out_w = rb->w & ~1;
        rb->out_h = rb->h & ~1;
        if (rb->out_w < 2 || rb->out_h < 2) {
            render_gl_error(err, "record a larger picture",
                            "a %dx%d picture is too small for "
                            "YUV 4:2:0",
                            rb->w, rb->h);
            free(rb);
            return NULL;
        }
        rb->bytes = (size_t)rb->out_w * (size_t)rb->out_h * 3 / 2;
        if (!create_yuv(rb, desc->shader_dir, err)) {
            render_readback_destroy(rb);
            return NULL;
        }
    }
    if (rb->format == RENDER_READBACK_DEVICE) {
        GLint fbo = 0;
        glGetIntegerv(GL_FRAMEBUFFER_BINDING, &fbo);
        make_texture_target(GL_RGBA8, GL_RGBA, rb->w, rb->h, &rb->src_tex, &rb->src_fbo);
        const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
        glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)fbo);
        if (GL_OUT_OF_MEMORY_AFTER("the picture's copy") || !complete) {
            render_gl_error(err, "try a smaller size", "cannot make a %dx%d copy of the picture",
                            rb->w, rb->h);
            render_readback_destroy(rb);
            return NULL;
        }
        return rb;
    }
    glGenBuffers(RENDER_READBACK_DEPTH, rb->pbo);
    for (int i = 0; i < RENDER_READBACK_DEPTH; i++) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[i]);
        glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)rb->bytes, NULL, GL_STREAM_READ);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (GL_OUT_OF_MEMORY_AFTER("the read-back buffers")) {
        render_gl_error(err, "try a smaller size",
                        "out of GL memory for %d read-back buffers of %dx%d", RENDER_READBACK_DEPTH,
                        rb->w, rb->h);
        render_readback_destroy(rb);
        return NULL;
    }
    GL_CHECK("render_readback_create");
    return rb;
}

void render_readback_destroy(render_readback *rb) {
    if (!rb) return;
    while (rb->mapped > 0) render_readback_release(rb);
    for (int i = 0; i < RENDER_READBACK_DEPTH; i++) {
        if (rb->fence[i]) glDeleteSync(rb->fence[i]);
    }
    glDeleteBuffers(RENDER_READBACK_DEPTH, rb->pbo);
    if (rb->program) glDeleteProgram(rb->program);
    if (rb->vao) glDeleteVertexArrays(1, &rb->vao);
    const GLuint fbos[] = {rb->src_fbo, rb->yuv_fbo}, texs[] = {rb->src_tex, rb->yuv_tex};
    for (int i = 0; i < 2; i++) {
        if (fbos[i]) glDeleteFramebuffers(1, &fbos[i]);
        if (texs[i]) glDeleteTextures(1, &texs[i]);
    }
    free(rb);
}

uint32_t render_readback_texture(const render_readback *rb) {
    assert(rb->format == RENDER_READBACK_DEVICE);
    return rb->src_tex;
}

/* What the YUV pass changes, put back after it, so the caller's drawing
 * (the HUD after a capture) goes on as if nothing happened. */
typedef struct gl_state {
    GLint draw_fbo, read_fbo, viewport[4], program, vao, active, texture;
    GLboolean blend, depth, scissor;
} gl_state;

static void save_state(gl_state *s) {
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &s->draw_fbo);
    glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &s->read_fbo);
    glGetIntegerv(GL_VIEWPORT, s->viewport);
    glGetIntegerv(GL_CURRENT_PROGRAM, &s->program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &s->vao);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &s->active);
    glActiveTexture(GL_TEXTURE0);
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &s->texture);
    s->blend = glIsEnabled(GL_BLEND);
    s->depth = glIsEnabled(GL_DEPTH_TEST);
    s->scissor = glIsEnabled(GL_SCISSOR_TEST);
}

static void enable(GLenum cap, GLboolean on) {
    if (on) {
        glEnable(cap);
    } else {
        glDisable(cap);
    }
}

static void restore_state(const gl_state *s) {
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)s->draw_fbo);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)s->read_fbo);
    glViewport(s->viewport[0], s->viewport[1], s->viewport[2], s->viewport[3]);
    glUseProgram((GLuint)s->program);
    glBindVertexArray((GLuint)s->vao);
    glBindTexture(GL_TEXTURE_2D, (GLuint)s->texture);
    glActiveTexture((GLenum)s->active);
    enable(GL_BLEND, s->blend);
    enable(GL_DEPTH_TEST, s->depth);
    enable(GL_SCISSOR_TEST, s->scissor);
}

/* Copies the picture and converts it into yuv_fbo, which is left bound for
 * reading. */
static void convert_yuv(render *r, render_readback *rb) {
    glBindFramebuffer(GL_READ_FRAMEBUFFER, render_gl_output_fbo(r));
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, rb->src_fbo);
    glDisable(GL_SCISSOR_TEST);
    glBlitFramebuffer(0, 0, rb->w, rb->h, 0, 0, rb->w, rb->h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, rb->yuv_fbo);
    glViewport(0, 0, rb->out_w, rb->out_h * 3 / 2);
    glDisable(GL_BLEND);
    glDisable(GL_DEPTH_TEST);
    glUseProgram(rb->program);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, rb->src_tex);
    glUniform1i(rb->u_src, 0);
    glUniform2i(rb->u_size, rb->out_w, rb->out_h);
    glUniform1i(rb->u_src_height, rb->h);
    glBindVertexArray(rb->vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

bool render_readback_push(render *r, render_readback *rb) {
    if (rb->format == RENDER_READBACK_DEVICE) {
        GLint read_fbo = 0, draw_fbo = 0;
        glGetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &read_fbo);
        glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_fbo);
        const GLboolean scissor = glIsEnabled(GL_SCISSOR_TEST);
        glDisable(GL_SCISSOR_TEST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, render_gl_output_fbo(r));
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, rb->src_fbo);
        glBlitFramebuffer(0, 0, rb->w, rb->h, 0, 0, rb->w, rb->h, GL_COLOR_BUFFER_BIT, GL_NEAREST);
        glBindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)read_fbo);
        glBindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw_fbo);
        enable(GL_SCISSOR_TEST, scissor);
        GL_CHECK("render_readback_push");
        return true;
    }
    if (rb->mapped + rb->queued == RENDER_READBACK_DEPTH) return false;
    const int slot = (rb->oldest + rb->mapped + rb->queued) % RENDER_READBACK_DEPTH;
    gl_state saved;
    save_state(&saved);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[slot]);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    if (rb->format == RENDER_READBACK_YUV420) {
        convert_yuv(r, rb);
        glReadPixels(0, 0, rb->out_w, rb->out_h * 3 / 2, GL_RED, GL_UNSIGNED_BYTE, (void *)0);
    } else {
        glBindFramebuffer(GL_READ_FRAMEBUFFER, render_gl_output_fbo(r));
        glReadPixels(0, 0, rb->w, rb->h, GL_RGBA, GL_UNSIGNED_BYTE, (void *)0);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    rb->fence[slot] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    restore_state(&saved);
    rb->queued++;
    GL_CHECK("render_readback_push");
    return true;
}

int render_readback_pending(const render_readback *rb) {
    return rb->mapped + rb->queued;
}

int render_readback_mapped(const render_readback *rb) {
    return rb->mapped;
}

bool render_readback_map(render_readback *rb, bool wait, const uint8_t **data, render_error *err) {
    assert(rb->format != RENDER_READBACK_DEVICE);
    *data = NULL;
    if (rb->queued == 0) return true;
    const int slot = (rb->oldest + rb->mapped) % RENDER_READBACK_DEPTH;
    /* The flush bit makes sure the copy reaches the GPU; a wait of 0 only
     * asks. GL_WAIT_FAILED would mean a lost context: the map reports it. */
    GLenum s = glClientWaitSync(rb->fence[slot], GL_SYNC_FLUSH_COMMANDS_BIT, 0);
    while (wait && s == GL_TIMEOUT_EXPIRED) {
        s = glClientWaitSync(rb->fence[slot], GL_SYNC_FLUSH_COMMANDS_BIT, 100000000); /* 0.1 s */
    }
    if (s == GL_TIMEOUT_EXPIRED) return true; /* not done yet */
    glDeleteSync(rb->fence[slot]);
    rb->fence[slot] = 0;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[slot]);
    *data = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0, (GLsizeiptr)rb->bytes, GL_MAP_READ_BIT);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (!*data) {
        render_gl_error(err, "try a smaller size",
                        "cannot map a read-back buffer (GL error 0x%04x)", glGetError());
        return false;
    }
    rb->queued--;
    rb->mapped++;
    GL_CHECK("render_readback_map");
    return true;
}

void render_readback_release(render_readback *rb) {
    if (rb->mapped == 0) return;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[rb->oldest]);
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    rb->oldest = (rb->oldest + 1) % RENDER_READBACK_DEPTH;
    rb->mapped--;
    GL_CHECK("render_readback_release");
}

bool render_readback_pop(render_readback *rb, uint8_t *rgba, render_error *err) {
    assert(rb->format == RENDER_READBACK_RGBA && rb->mapped == 0);
    const uint8_t *src = NULL;
    if (!render_readback_map(rb, true, &src, err)) return false;
    if (!src) {
        render_gl_error(err, "push a frame first", "no frame queued for read-back");
        return false;
    }
    const size_t row = (size_t)rb->w * 4;
    for (int y = 0; y < rb->h; y++) { /* GL's first row is the bottom one */
        memcpy(rgba + row * (size_t)y, src + row * (size_t)(rb->h - 1 - y), row);
    }
    render_readback_release(rb);
    return true;
}
