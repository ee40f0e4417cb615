/* render_gl.c - GL plumbing shared by the files of render/: loading
 * entry points, shader programs from files with their compile logs, error
 * checks. Every shader is compiled with shaders/nbody_shared.h's text
 * inserted after its version line, so GLSL names the constants C and CUDA
 * share with it instead of repeating their numbers. */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_gl.h"

/* Reads and clears up to 16 error flags (a lost context may keep returning
 * one); prints each one but GL_OUT_OF_MEMORY when oom is given, where it
 * counts that one instead. Returns how many were printed. */
static int drain_errors(const char *what, const char *file, int line, bool *oom) {
    int printed = 0;
    for (int k = 0; k < 16; k++) {
        const GLenum e = glGetError();
        if (e == GL_NO_ERROR) break;
        if (oom && e == GL_OUT_OF_MEMORY) {
            *oom = true;
            continue;
        }
        fprintf(stderr, "%s:%d: GL error 0x%04x after %s\n", file, line, e, what);
        printed++;
    }
    return printed;
}

#ifndef NDEBUG
void render_gl_check(const char *what, const char *file, int line) {
    const int errors = drain_errors(what, file, line, NULL);
    assert(errors == 0 && "GL error (printed above)");
    (void)errors;
}
#endif

bool render_gl_out_of_memory(const char *what, const char *file, int line) {
    bool oom = false;
    const int errors = drain_errors(what, file, line, &oom);
    assert(errors == 0 && "GL error (printed above)");
    (void)errors;
    return oom;
}

void render_gl_error(render_error *err, const char *hint, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    snprintf(err->hint, sizeof err->hint, "%s", hint);
}

char *render_gl_read_file(const char *path, const char *what, long *len, render_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        render_gl_error(err, "run the binary from its build folder, or reinstall its data files",
                        "cannot open %s %s: %s", what, path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        render_gl_error(err, "check the file is readable", "cannot read %s %s", what, path);
        free(data);
        fclose(f);
        return NULL;
    }
    data[n] = 0;
    fclose(f);
    if (len) *len = n;
    return data;
}

/* The header every shader gets, in the shader folder (nbody_shared.h says
 * what it may hold). */
#define SHARED_HEADER "nbody_shared.h"

/* Where the line after the #version line starts (the first line that is
 * one, blanks before the # allowed), or NULL when there is none. */
static const char *after_version_line(const char *src) {
    for (const char *line = src; *line;) {
        const char *c = line + strspn(line, " \t");
        const char *end = strchr(line, '\n');
        if (strncmp(c, "#version", 8) == 0) return end ? end + 1 : NULL;
        if (!end) return NULL;
        line = end + 1;
    }
    return NULL;
}

/* Compiles dir/name with the shared header's text inserted after its
 * #version line (which must come first, GLSL says) and a #line directive,
 * so that the driver's log counts the file's own lines: from GLSL 3.30 on,
 * "#line n" numbers the next line n. */
static GLuint compile(GLenum type, const char *dir, const char *name, const char *header,
                      render_error *err) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *src = render_gl_read_file(path, "shader", NULL, err);
    if (!src) return 0;
    const char *rest = after_version_line(src);
    if (!rest) {
        render_gl_error(err, "start the shader with a #version line",
                        "shader %s has no #version line", path);
        free(src);
        return 0;
    }
    int line = 1; /* of rest, in the file */
    for (const char *c = src; c < rest; c++) line += *c == '\n';
    char directive[32];
    snprintf(directive, sizeof directive, "\n#line %d\n", line);
    const GLchar *parts[] = {src, header, directive, rest};
    const GLint lengths[] = {(GLint)(rest - src), -1, -1, -1};
    GLuint sh = glCreateShader(type);
    glShaderSource(sh, 4, parts, lengths);
    glCompileShader(sh);
    free(src);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[400];
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        render_gl_error(err, "fix the shader source (the GL driver's log is in the message)",
                        "shader %s does not compile: %s", path, log);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

GLuint render_gl_program(const char *dir, const char *vs_name, const char *fs_name,
                         render_error *err) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, SHARED_HEADER);
    char *header = render_gl_read_file(path, "shader header", NULL, err);
    if (!header) return 0;
    GLuint vs = compile(GL_VERTEX_SHADER, dir, vs_name, header, err);
    GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, dir, fs_name, header, err) : 0;
    free(header);
    if (!fs) {
        if (vs) glDeleteShader(vs);
        return 0;
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, vs);
    glAttachShader(prog, fs);
    glLinkProgram(prog);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[400];
        glGetProgramInfoLog(prog, sizeof log, NULL, log);
        render_gl_error(err, "fix the shader sources", "shaders %s + %s do not link: %s", vs_name,
                        fs_name, log);
        glDeleteProgram(prog);
        return 0;
    }
    return prog;
}

/* GLEW 2.2 built for GLX returns GLEW_ERROR_NO_GLX_DISPLAY on an EGL or
 * Wayland context after it has loaded every core entry point; that one code
 * is not a failure. This is the only place that decides so. */
bool render_gl_load(render_error *err) {
    glewExperimental = GL_TRUE;
    GLenum e = glewInit();
#ifdef GLEW_ERROR_NO_GLX_DISPLAY
    if (e == GLEW_ERROR_NO_GLX_DISPLAY) e = GLEW_OK;
#endif
    glGetError(); /* glewInit may leave GL_INVALID_ENUM behind on core profiles */
    if (e != GLEW_OK) {
        render_gl_error(err, "check the OpenGL driver (glxinfo -B)", "cannot load OpenGL: %s",
                        (const char *)glewGetErrorString(e));
        return false;
    }
    if (!glCreateShader || !glGenVertexArrays) {
        render_gl_error(err, "update the graphics driver, or use --headless",
                        "OpenGL 3.3 core is not available (%s)", render_gl_version());
        return false;
    }
    return true;
}
