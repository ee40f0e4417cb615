/* render_boxes.c - wire boxes over the scene: the cells of the tree code.
 *
 * The octree of the tree variant is shown as one wire cube per cell, drawn
 * after the tone map (so the lines keep their colour whatever the exposure)
 * with alpha blending into whatever framebuffer is bound, through the same
 * orbit camera as the bodies. One instanced draw: the 24 edge endpoints of
 * a unit cube are the vertices, each cell (centre, half side, level) is an
 * instance. Bonsai's demo draws its octree the same way; it shows a class
 * what the tree does.
 */
#include <stdlib.h>
#include <string.h>

#include "render_gl.h"

struct render_boxes {
    GLuint program, vao, corners, cells;
    GLint u_view_proj, u_max_level;
    int capacity; /* cells the instance buffer holds */
};

/* The 12 edges of the cube [-1, 1]^3 as 24 endpoints. */
static const float cube_edges[24][3] = {
    {-1, -1, -1}, {1, -1, -1}, {-1, 1, -1},  {1, 1, -1},  {-1, -1, 1},  {1, -1, 1},
    {-1, 1, 1},   {1, 1, 1},   {-1, -1, -1}, {-1, 1, -1}, {1, -1, -1},  {1, 1, -1},
    {-1, -1, 1},  {-1, 1, 1},  {1, -1, 1},   {1, 1, 1},   {-1, -1, -1}, {-1, -1, 1},
    {1, -1, -1},  {1, -1, 1},  {-1, 1, -1},  {-1, 1, 1},  {1, 1, -1},   {1, 1, 1},
};

_Static_assert(sizeof(render_box) == 5 * sizeof(float), "a box is 5 floats, as the VAO reads");

render_boxes *render_boxes_create(const render_boxes_desc *desc, render_error *err) {
    render_boxes *b = calloc(1, sizeof *b);
    if (!b) {
        render_gl_error(err, "free some memory", "out of memory for the box renderer");
        return NULL;
    }
    b->program = render_gl_program(desc->shader_dir, "boxes.vert", "boxes.frag", err);
    if (!b->program) {
        free(b);
        return NULL;
    }
    b->u_view_proj = glGetUniformLocation(b->program, "view_proj");
    b->u_max_level = glGetUniformLocation(b->program, "max_level");
    glGenVertexArrays(1, &b->vao);
    glGenBuffers(1, &b->corners);
    glGenBuffers(1, &b->cells);
    glBindVertexArray(b->vao);
    glBindBuffer(GL_ARRAY_BUFFER, b->corners);
    glBufferData(GL_ARRAY_BUFFER, sizeof cube_edges, cube_edges, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, NULL);
    glBindBuffer(GL_ARRAY_BUFFER, b->cells);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(render_box), NULL);
    glVertexAttribDivisor(1, 1);
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 1, GL_FLOAT, GL_FALSE, sizeof(render_box),
                          (const void *)offsetof(render_box, level));
    glVertexAttribDivisor(2, 1);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    GL_CHECK("render_boxes_create");
    return b;
}

void render_boxes_destroy(render_boxes *b) {
    if (!b) return;
    glDeleteBuffers(1, &b->corners);
    glDeleteBuffers(1, &b->cells);
    glDeleteVertexArrays(1, &b->vao);
    glDeleteProgram(b->program);
    free(b);
}

bool render_boxes_draw(render_boxes *b, const render_view *view, const render_box *boxes, int count,
                       render_error *err) {
    if (count <= 0 || view->fb_width <= 0 || view->fb_height <= 0) return true;
    glBindBuffer(GL_ARRAY_BUFFER, b->cells);
    if (count > b->capacity) {
        glBufferData(GL_ARRAY_BUFFER, sizeof(render_box) * (size_t)count, boxes, GL_STREAM_DRAW);
        if (GL_OUT_OF_MEMORY_AFTER("tree boxes")) {
            glBindBuffer(GL_ARRAY_BUFFER, 0);
            b->capacity = 0;
            render_gl_error(err, "draw fewer levels (Shift+L)", "no GL memory for %d boxes", count);
            return false;
        }
        b->capacity = count;
    } else { /* new storage first, as render_overlay_end does (orphaning) */
        glBufferData(GL_ARRAY_BUFFER, sizeof(render_box) * (size_t)b->capacity, NULL,
                     GL_STREAM_DRAW);
        glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(render_box) * (size_t)count, boxes);
    }
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    float max_level = 0;
    for (int i = 0; i < count; i++) {
        if (boxes[i].level > max_level) max_level = boxes[i].level;
    }
    mat4 v, p, vp;
    render_gl_camera(view, v, p);
    glm_mat4_mul(p, v, vp);
    glViewport(0, 0, view->fb_width, view->fb_height);
    glDisable(GL_DEPTH_TEST);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(b->program);
    glUniformMatrix4fv(b->u_view_proj, 1, GL_FALSE, (const GLfloat *)vp);
    glUniform1f(b->u_max_level, max_level);
    glBindVertexArray(b->vao);
    glDrawArraysInstanced(GL_LINES, 0, 24, count);
    glBindVertexArray(0);
    glUseProgram(0);
    glDisable(GL_BLEND);
    GL_CHECK("render_boxes_draw");
    return true;
}
