/* render_gl.h - what the files of render/ share: GL error checks, shader
 * programs from files, GL loading, error reporting. Internal to render/.
 */
#ifndef NBODY_RENDER_GL_H
#define NBODY_RENDER_GL_H

#include <GL/glew.h>

#include "render.h"

/* glGetError after a GL call sequence, in debug builds only. */
#ifdef NDEBUG
#define GL_CHECK(what) ((void)0)
#else
#define GL_CHECK(what) render_gl_check(what, __FILE__, __LINE__)
void render_gl_check(const char *what, const char *file, int line);
#endif

/* Fills *err (when non-NULL) with a printf-style message and a hint. */
__attribute__((format(printf, 3, 4))) void render_gl_error(render_error *err, const char *hint,
                                                           const char *fmt, ...);

/* Loads GL entry points through GLEW; false with *err when GL 3.3 is missing. */
bool render_gl_load(render_error *err);

/* Reads a whole file; NULL with *err on failure. *len gets its size. */
char *render_gl_read_file(const char *path, const char *what, long *len, render_error *err);

/* Compiles and links dir/vs + dir/fs; 0 with *err (file name and driver log). */
GLuint render_gl_program(const char *dir, const char *vs, const char *fs, render_error *err);

#endif /* NBODY_RENDER_GL_H */
