/* render.c - OpenGL 3.3 core drawing of the bodies (see render.h).
 *
 * One program (shaders/bodies.vert + bodies.frag), one VAO with the body
 * buffer as attribute 0, additive blending, no depth test: stars are light,
 * they do not occlude. GL errors are checked after each entry point in debug
 * builds; shader compile and link failures are reported with the file name
 * and the driver's log.
 */
#include <GL/glew.h>
#include <assert.h>
#include <cglm/cglm.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "render_gl.h"

_Static_assert(sizeof(render_vertex) == 16, "a body vertex is 16 bytes");

struct render {
    GLuint program;
    GLint u_view, u_proj, u_point_px, u_speed_scale, u_brightness, u_color_mode;
    GLuint vao, vbo;
    int capacity; /* bodies the vbo holds */
    GLuint fbo, color_rb;
    int off_w, off_h;
};

render *render_create(const render_desc *desc, render_error *err) {
    assert(desc && desc->shader_dir);
    if (!render_gl_load(err)) return NULL;
    render *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->program = render_gl_program(desc->shader_dir, "bodies.vert", "bodies.frag", err);
    if (!r->program) {
        free(r);
        return NULL;
    }
    r->u_view = glGetUniformLocation(r->program, "u_view");
    r->u_proj = glGetUniformLocation(r->program, "u_proj");
    r->u_point_px = glGetUniformLocation(r->program, "u_point_px");
    r->u_speed_scale = glGetUniformLocation(r->program, "u_speed_scale");
    r->u_brightness = glGetUniformLocation(r->program, "u_brightness");
    r->u_color_mode = glGetUniformLocation(r->program, "u_color_mode");

    glGenVertexArrays(1, &r->vao);
    glGenBuffers(1, &r->vbo);
    glBindVertexArray(r->vao);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(render_vertex), (void *)0);
    glBindVertexArray(0);

    if (desc->offscreen_width > 0 && desc->offscreen_height > 0) {
        r->off_w = desc->offscreen_width;
        r->off_h = desc->offscreen_height;
        glGenFramebuffers(1, &r->fbo);
        glGenRenderbuffers(1, &r->color_rb);
        glBindRenderbuffer(GL_RENDERBUFFER, r->color_rb);
        glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, r->off_w, r->off_h);
        glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                  r->color_rb);
        GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
        if (status != GL_FRAMEBUFFER_COMPLETE) {
            render_gl_error(err, "try a smaller --width/--height",
                            "offscreen framebuffer incomplete (0x%04x)", status);
            render_destroy(r);
            return NULL;
        }
    }
    GL_CHECK("render_create");
    return r;
}

void render_destroy(render *r) {
    if (!r) return;
    glDeleteProgram(r->program);
    glDeleteBuffers(1, &r->vbo);
    glDeleteVertexArrays(1, &r->vao);
    if (r->fbo) glDeleteFramebuffers(1, &r->fbo);
    if (r->color_rb) glDeleteRenderbuffers(1, &r->color_rb);
    free(r);
}

bool render_reserve_bodies(render *r, int n) {
    if (n <= r->capacity) return false;
    /* A new buffer object (not just new storage) so a CUDA registration of the
     * old one can never alias the new storage. */
    glDeleteBuffers(1, &r->vbo);
    glGenBuffers(1, &r->vbo);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)sizeof(render_vertex) * n, NULL, GL_DYNAMIC_DRAW);
    glBindVertexArray(r->vao);
    glVertexAttribPointer(0, 4, GL_FLOAT, GL_FALSE, sizeof(render_vertex), (void *)0);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    r->capacity = n;
    GL_CHECK("render_reserve_bodies");
    return true;
}

uint32_t render_body_buffer(const render *r) {
    return r->vbo;
}

void render_upload_bodies(render *r, const render_vertex *v, int n) {
    assert(n <= r->capacity);
    glBindBuffer(GL_ARRAY_BUFFER, r->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)sizeof(render_vertex) * n, v);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    GL_CHECK("render_upload_bodies");
}

/* View and projection matrices of the orbit camera. */
static void camera_matrices(const render_camera *c, float aspect, mat4 view, mat4 proj) {
    const float cp = cosf(c->pitch), sp = sinf(c->pitch);
    const float cy = cosf(c->yaw), sy = sinf(c->yaw);
    vec3 dir = {cp * cy, cp * sy, sp};  /* from target towards the eye */
    vec3 up = {-sp * cy, -sp * sy, cp}; /* perpendicular to dir: no gimbal at the poles */
    vec3 eye, center = {c->target[0], c->target[1], c->target[2]};
    glm_vec3_scale(dir, c->distance, eye);
    glm_vec3_add(eye, center, eye);
    glm_lookat(eye, center, up, view);
    float fov = c->fov_y > 0 ? c->fov_y : glm_rad(45.0f);
    glm_perspective(fov, aspect, c->distance * 1e-3f, c->distance * 1e3f, proj);
}

void render_frame(render *r, const render_view *view, int n) {
    const int w = view->fb_width, h = view->fb_height;
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glViewport(0, 0, w, h);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (n > 0 && w > 0 && h > 0) {
        mat4 v, p;
        camera_matrices(&view->camera, (float)w / (float)h, v, p);
        const float size = view->point_size > 0 ? view->point_size : 0.02f;
        glUseProgram(r->program);
        glUniformMatrix4fv(r->u_view, 1, GL_FALSE, (const GLfloat *)v);
        glUniformMatrix4fv(r->u_proj, 1, GL_FALSE, (const GLfloat *)p);
        /* p[1][1] = cot(fov/2): a unit length at unit depth spans p[1][1] * h / 2 pixels. */
        glUniform1f(r->u_point_px, size * p[1][1] * 0.5f * (float)h);
        glUniform1f(r->u_speed_scale, view->speed_scale > 0 ? view->speed_scale : 1.0f);
        glUniform1f(r->u_brightness, view->brightness > 0 ? view->brightness : 0.6f);
        glUniform1i(r->u_color_mode, (int)view->color);
        glEnable(GL_PROGRAM_POINT_SIZE);
        glDisable(GL_DEPTH_TEST);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE);
        glBindVertexArray(r->vao);
        glDrawArrays(GL_POINTS, 0, n);
        glBindVertexArray(0);
        glDisable(GL_BLEND);
        glUseProgram(0);
    }
    GL_CHECK("render_frame");
}

void render_read_pixels(render *r, int width, int height, uint8_t *rgba) {
    glBindFramebuffer(GL_FRAMEBUFFER, r->fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    /* GL's first row is the bottom one. */
    const size_t row = (size_t)width * 4;
    uint8_t *tmp = malloc(row);
    if (tmp) {
        for (int y = 0; y < height / 2; y++) {
            uint8_t *a = rgba + row * (size_t)y, *b = rgba + row * (size_t)(height - 1 - y);
            memcpy(tmp, a, row);
            memcpy(a, b, row);
            memcpy(b, tmp, row);
        }
        free(tmp);
    }
    GL_CHECK("render_read_pixels");
}

const char *render_gl_renderer(void) {
    const GLubyte *s = glGetString(GL_RENDERER);
    return s ? (const char *)s : "?";
}

const char *render_gl_version(void) {
    const GLubyte *s = glGetString(GL_VERSION);
    return s ? (const char *)s : "?";
}
