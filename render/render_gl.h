/* render_gl.h - what the files of render/ share: GL error checks, shader
 * programs from files, GL loading, error reporting. Internal to render/.
 */
#ifndef NBODY_RENDER_GL_H
#define NBODY_RENDER_GL_H

#include <GL/glew.h>
#include <cglm/cglm.h>

#include "render.h"

/* glGetError after a GL call sequence, in debug builds only: prints every
 * error with file:line and fails an assert - the programmer-error tier.
 * Errors a user can cause (GL out of memory for a large N or image) are
 * read where they can happen, with GL_OUT_OF_MEMORY_AFTER, and reported
 * as render_error before a GL_CHECK sees them. */
#ifdef NDEBUG
#define GL_CHECK(what) ((void)0)
#else
#define GL_CHECK(what) render_gl_check(what, __FILE__, __LINE__)
void render_gl_check(const char *what, const char *file, int line);
#endif

/* Reads and clears GL's error flags after an allocation; true when one of
 * them was GL_OUT_OF_MEMORY. Any other error is treated as GL_CHECK treats
 * it (printed; an assert in debug builds). */
#define GL_OUT_OF_MEMORY_AFTER(what) render_gl_out_of_memory(what, __FILE__, __LINE__)
bool render_gl_out_of_memory(const char *what, const char *file, int line);

/* Fills *err (when non-NULL) with a printf-style message and a hint. */
__attribute__((format(printf, 3, 4))) void render_gl_error(render_error *err, const char *hint,
                                                           const char *fmt, ...);

/* Loads GL entry points through GLEW; false with *err when GL 3.3 is missing. */
bool render_gl_load(render_error *err);

/* Reads a whole file; NULL with *err on failure. *len gets its size. */
char *render_gl_read_file(const char *path, const char *what, long *len, render_error *err);

/* Compiles and links dir/vs + dir/fs, each with dir/nbody_shared.h's text
 * inserted after its #version line; 0 with *err (file name and driver log). */
GLuint render_gl_program(const char *dir, const char *vs, const char *fs, render_error *err);

/* View and projection matrices of the view's orbit camera and lens
 * (render.c): the bodies and the boxes are drawn through the same one. */
void render_gl_camera(const render_view *v, mat4 view, mat4 proj);

/* The framebuffer a frame ends in (render.c): the bound render_target's, else
 * the offscreen one of render_create, else 0 (the window's). */
GLuint render_gl_output_fbo(const render *r);

#endif /* NBODY_RENDER_GL_H */
