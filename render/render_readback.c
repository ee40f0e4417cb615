/* render_readback.c - frames read back for videos without stalling the loop.
 *
 * glReadPixels into client memory waits until the GPU has drawn the frame.
 * Into a pixel-pack buffer it only queues a copy and returns; the buffer is
 * mapped RENDER_READBACK_DEPTH - 1 frames later, when that copy is long
 * done, so the CPU never waits for the frame it just drew. The app (app/
 * app_record.c) pushes every drawn frame and pops the oldest once the ring
 * is full, and pops the rest at the end. GL's first row is the bottom one;
 * pop hands rows out top first, as render_read_pixels does, so a recorded
 * frame and a screenshot of it are the same bytes.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_gl.h"

struct render_readback {
    GLuint pbo[RENDER_READBACK_DEPTH];
    int w, h;
    int head;  /* the buffer the next push fills */
    int count; /* buffers holding a frame not yet popped; the oldest is head - count */
};

render_readback *render_readback_create(int width, int height, render_error *err) {
    assert(width > 0 && height > 0);
    render_readback *rb = calloc(1, sizeof *rb);
    if (!rb) {
        render_gl_error(err, "free some memory", "out of host memory for the read-back ring");
        return NULL;
    }
    rb->w = width;
    rb->h = height;
    glGenBuffers(RENDER_READBACK_DEPTH, rb->pbo);
    for (int i = 0; i < RENDER_READBACK_DEPTH; i++) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[i]);
        glBufferData(GL_PIXEL_PACK_BUFFER, (GLsizeiptr)width * height * 4, NULL, GL_STREAM_READ);
    }
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    if (GL_OUT_OF_MEMORY_AFTER("the read-back buffers")) {
        render_gl_error(err, "try a smaller size",
                        "out of GL memory for %d read-back buffers of %dx%d", RENDER_READBACK_DEPTH,
                        width, height);
        render_readback_destroy(rb);
        return NULL;
    }
    GL_CHECK("render_readback_create");
    return rb;
}

void render_readback_destroy(render_readback *rb) {
    if (!rb) return;
    glDeleteBuffers(RENDER_READBACK_DEPTH, rb->pbo);
    free(rb);
}

bool render_readback_push(render *r, render_readback *rb) {
    if (rb->count == RENDER_READBACK_DEPTH) return false;
    glBindFramebuffer(GL_READ_FRAMEBUFFER, render_gl_output_fbo(r));
    glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[rb->head]);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, rb->w, rb->h, GL_RGBA, GL_UNSIGNED_BYTE, (void *)0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    rb->head = (rb->head + 1) % RENDER_READBACK_DEPTH;
    rb->count++;
    GL_CHECK("render_readback_push");
    return true;
}

int render_readback_pending(const render_readback *rb) {
    return rb->count;
}

bool render_readback_pop(render_readback *rb, uint8_t *rgba, render_error *err) {
    if (rb->count == 0) {
        render_gl_error(err, "push a frame first", "no frame queued for read-back");
        return false;
    }
    const int oldest = (rb->head - rb->count + RENDER_READBACK_DEPTH) % RENDER_READBACK_DEPTH;
    rb->count--;
    const size_t row = (size_t)rb->w * 4;
    glBindBuffer(GL_PIXEL_PACK_BUFFER, rb->pbo[oldest]);
    const uint8_t *src = glMapBufferRange(GL_PIXEL_PACK_BUFFER, 0,
                                          (GLsizeiptr)(row * (size_t)rb->h), GL_MAP_READ_BIT);
    if (!src) {
        glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
        render_gl_error(err, "try a smaller size",
                        "cannot map a read-back buffer (GL error 0x%04x)", glGetError());
        return false;
    }
    for (int y = 0; y < rb->h; y++) { /* GL's first row is the bottom one */
        memcpy(rgba + row * (size_t)y, src + row * (size_t)(rb->h - 1 - y), row);
    }
    glUnmapBuffer(GL_PIXEL_PACK_BUFFER);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    GL_CHECK("render_readback_pop");
    return true;
}
