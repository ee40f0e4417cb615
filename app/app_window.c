/* app_window.c - the GLFW front-end: a resizable window, vsync, the keys.
 *
 * Makes an OpenGL 3.3 core context, hands the app to the GLFW callbacks
 * through the window user pointer, and pumps frames: the number of
 * simulation steps per frame (--steps-per-frame) is independent of the
 * display rate. Drawing uses the framebuffer size, not the window size, so
 * HiDPI screens are filled. A minimized window (zero-size framebuffer) waits
 * for events instead of drawing.
 */
#include <GL/glew.h> /* before glfw3.h */

#include <GLFW/glfw3.h>
#include <stdio.h>

#include "app.h"

static void on_glfw_error(int code, const char *description) {
    fprintf(stderr, "nbody: GLFW error 0x%x: %s\n", code, description);
}

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods) {
    (void)scancode;
    if (action == GLFW_PRESS || action == GLFW_REPEAT) {
        app_key((app *)glfwGetWindowUserPointer(window), key, mods);
    }
}

static void update_title(GLFWwindow *window, app *a, double fps) {
    const sim_params p = sim_get_params(a->sim);
    char title[256];
    snprintf(title, sizeof title, "nbody - %d bodies, %s, %s%s%s, %.0f frames/s%s", p.body_count,
             sim_ic_name(p.ic), sim_backend_name(p.backend),
             p.backend == SIM_BACKEND_CUDA ? " " : "",
             p.backend == SIM_BACKEND_CUDA ? sim_variant_info(p.variant)->name : "", fps,
             a->paused ? " (paused)" : "");
    glfwSetWindowTitle(window, title);
}

int app_window_run(app *a) {
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        fprintf(stderr, "nbody: cannot open a window (no display?)\n"
                        "hint: set DISPLAY, or run with --headless\n");
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    GLFWwindow *window = glfwCreateWindow(a->cfg.width, a->cfg.height, "nbody", NULL, NULL);
    if (!window) {
        fprintf(stderr, "nbody: cannot create an OpenGL 3.3 core window\n"
                        "hint: update the graphics driver, or run with --headless\n");
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(a->cfg.no_vsync ? 0 : 1);
    glfwSetWindowUserPointer(window, a);
    glfwSetKeyCallback(window, on_key);
    if (!app_create_render(a, false)) {
        glfwDestroyWindow(window);
        glfwTerminate();
        return 1;
    }

    bool finished = false, ok = true;
    double t_title = glfwGetTime();
    int frames_title = 0;
    while (!finished) {
        glfwPollEvents();
        const bool closing = glfwWindowShouldClose(window) || a->quit;
        int fbw = 0, fbh = 0;
        glfwGetFramebufferSize(window, &fbw, &fbh);
        if ((fbw == 0 || fbh == 0) && !closing) {
            glfwWaitEvents(); /* minimized */
            continue;
        }
        /* When the user closes the window, draw the final frame without
         * stepping so --screenshot and --dump see the same state. */
        if (closing) a->paused = true;
        app_frame(a, fbw, fbh);
        finished = closing || (a->cfg.frames > 0 && a->frame >= a->cfg.frames);
        if (finished) ok = app_finish(a, fbw, fbh);
        glfwSwapBuffers(window);

        frames_title++;
        const double now = glfwGetTime();
        if (now - t_title >= 0.5) {
            a->fps = frames_title / (now - t_title);
            update_title(window, a, a->fps);
            t_title = now;
            frames_title = 0;
        }
    }
    app_destroy(a); /* GL objects go while the context is current */
    glfwDestroyWindow(window);
    glfwTerminate();
    return ok ? 0 : 1;
}
