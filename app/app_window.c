/* app_window.c - the GLFW front-end: a resizable window, keys, mouse, vsync.
 *
 * Makes an OpenGL 3.3 core context, hands the app to the GLFW callbacks
 * through the window user pointer, and pumps frames: the number of
 * simulation steps per frame (--steps-per-frame) is independent of the
 * display rate. Drawing uses the framebuffer size, not the window size, and
 * the HUD follows the window's content scale, so HiDPI screens are filled
 * and readable. A minimized window (zero-size framebuffer) waits for events
 * instead of drawing. F11 and --fullscreen put the window fullscreen on the
 * monitor that holds most of it, and F11 brings back the windowed position
 * and size it had.
 *
 * Mouse: left drag orbits, right or middle drag pans, the wheel zooms.
 *
 * Losing the display (the X server goes away) would make Xlib exit the
 * process at once, losing every output; where Xlib lets a program handle
 * that (XSetIOErrorExitHandler, built in when CMake finds it), the loop
 * instead ends as if the window were closed, without the display: the
 * last frame is drawn, the outputs are written, and the run exits 1.
 */
#include <GL/glew.h> /* before glfw3.h */

#include <GLFW/glfw3.h>
#include <stdio.h>
#include <string.h>

#include "app.h"

#ifdef NBODY_X11_IO_EXIT
#include <X11/Xlib.h>
/* GLFW's X11 connection. glfw3native.h declares it, but with X11 exposed
 * that header also includes Xrandr's, which nbody does not otherwise need. */
Display *glfwGetX11Display(void);
#endif

typedef struct window_input {
    bool orbiting, panning;
    double x, y; /* cursor at the last event, window units */
    bool boxing; /* Ctrl+left drag: a selection box from (box_x, box_y) */
    double box_x, box_y;
} window_input;

/* Keys pressed during a step (poll_stop), handled after it. */
#define DEFERRED_KEYS 64

/* The app and this front-end's mouse state, reached from GLFW callbacks. */
typedef struct window_state {
    app *app;
    window_input input;
    int windowed[4];                /* x, y, width, height before going fullscreen (window units) */
    bool display_lost;              /* the X connection broke: finish without the display */
    bool deferring;                 /* inside a step: keys wait (but Esc) */
    int deferred[DEFERRED_KEYS][2]; /* key, mods */
    int deferred_count;
} window_state;

static window_state *state_of(GLFWwindow *w) {
    return (window_state *)glfwGetWindowUserPointer(w);
}

static void on_glfw_error(int code, const char *description) {
    fprintf(stderr, "nbody: GLFW error 0x%x: %s\n", code, description);
}

#ifdef NBODY_X11_IO_EXIT
/* Xlib's handler of a fatal I/O error on a display; Xlib's own prints a
 * line and exits. Returning hands over to the exit handler below. */
static int on_io_error(Display *display) {
    (void)display;
    return 0;
}

/* Xlib calls this after on_io_error, instead of exit(); Xlib calls on that
 * display return at once from then on. */
static void on_display_lost(Display *display, void *user) {
    window_state *s = user;
    if (!s->display_lost) {
        fprintf(stderr, "nbody: lost the display %s; writing the outputs without it\n",
                DisplayString(display));
    }
    s->display_lost = true;
}
#endif

static void on_key(GLFWwindow *window, int key, int scancode, int action, int mods) {
    (void)scancode;
    if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
    window_state *s = state_of(window);
    /* In the middle of a step only Esc is handled (its binding only asks
     * the loop to quit); a key that changes the simulation waits for the
     * step to end (a full queue drops the key). */
    if (s->deferring && key != GLFW_KEY_ESCAPE) {
        if (s->deferred_count < DEFERRED_KEYS) {
            s->deferred[s->deferred_count][0] = key;
            s->deferred[s->deferred_count][1] = mods;
            s->deferred_count++;
        }
        return;
    }
    app_key(s->app, key, mods);
}

/* The keys pressed during the last step, in order. */
static void replay_keys(window_state *s) {
    for (int i = 0; i < s->deferred_count; i++) {
        app_key(s->app, s->deferred[i][0], s->deferred[i][1]);
    }
    s->deferred_count = 0;
}

static void on_mouse_button(GLFWwindow *window, int button, int action, int mods) {
    window_state *s = state_of(window);
    window_input *in = &s->input;
    const bool down = action == GLFW_PRESS, ctrl = mods & GLFW_MOD_CONTROL;
    glfwGetCursorPos(window, &in->x, &in->y);
    int ww = 0, wh = 0;
    glfwGetWindowSize(window, &ww, &wh);
    /* Ctrl: selections (app_select.c) instead of orbit and pan. */
    if (button == GLFW_MOUSE_BUTTON_LEFT && down && ctrl) {
        in->boxing = true;
        in->box_x = in->x, in->box_y = in->y;
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_LEFT && !down && in->boxing) {
        in->boxing = false;
        app_select_box(s->app, in->box_x, in->box_y, in->x, in->y, ww, wh);
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_RIGHT && down && ctrl) {
        app_select_sphere(s->app, in->x, in->y, ww, wh);
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_LEFT) in->orbiting = down;
    if (button == GLFW_MOUSE_BUTTON_RIGHT || button == GLFW_MOUSE_BUTTON_MIDDLE) in->panning = down;
}

static void on_cursor(GLFWwindow *window, double x, double y) {
    window_state *s = state_of(window);
    window_input *in = &s->input;
    const double dx = x - in->x, dy = y - in->y;
    in->x = x;
    in->y = y;
    if (in->orbiting) app_orbit(s->app, dx, dy);
    if (in->panning) {
        int ww = 0, wh = 0;
        glfwGetWindowSize(window, &ww, &wh);
        app_pan(s->app, dx, dy, wh);
    }
}

static void on_scroll(GLFWwindow *window, double dx, double dy) {
    (void)dx;
    app_zoom(state_of(window)->app, dy);
}

static void on_content_scale(GLFWwindow *window, float xs, float ys) {
    state_of(window)->app->fe.content_scale = xs > ys ? xs : ys;
}

/* app_frame's hook between slow steps: the input, and the close button. */
static void poll_window(void *ctx) {
    GLFWwindow *window = ctx;
    replay_keys(state_of(window));
    glfwPollEvents();
    if (glfwWindowShouldClose(window)) state_of(window)->app->fe.quit = true;
}

/* The stop hook's poll, in the middle of a step: Esc and the close button
 * now, other keys later (replay_keys). */
static void poll_window_stop(void *ctx) {
    GLFWwindow *window = ctx;
    window_state *s = state_of(window);
    s->deferring = true;
    glfwPollEvents();
    s->deferring = false;
    if (glfwWindowShouldClose(window)) s->app->fe.quit = true;
}

/* The monitor whose area holds most of the window (the primary one when
 * the window is on none); NULL when there is no monitor. */
static GLFWmonitor *monitor_of(GLFWwindow *window) {
    int wx = 0, wy = 0, ww = 0, wh = 0, count = 0;
    glfwGetWindowPos(window, &wx, &wy);
    glfwGetWindowSize(window, &ww, &wh);
    GLFWmonitor **monitors = glfwGetMonitors(&count);
    GLFWmonitor *best = glfwGetPrimaryMonitor();
    long best_area = 0;
    for (int i = 0; i < count; i++) {
        const GLFWvidmode *mode = glfwGetVideoMode(monitors[i]);
        if (!mode) continue;
        int mx = 0, my = 0;
        glfwGetMonitorPos(monitors[i], &mx, &my);
        const int x0 = wx > mx ? wx : mx;
        const int x1 = wx + ww < mx + mode->width ? wx + ww : mx + mode->width;
        const int y0 = wy > my ? wy : my;
        const int y1 = wy + wh < my + mode->height ? wy + wh : my + mode->height;
        const long area = x1 > x0 && y1 > y0 ? (long)(x1 - x0) * (y1 - y0) : 0;
        if (area > best_area) {
            best_area = area;
            best = monitors[i];
        }
    }
    return best;
}

/* F11 / --fullscreen: a->fe.fullscreen says what is wanted. */
static void apply_fullscreen(GLFWwindow *window, window_state *s) {
    app *a = s->app;
    a->fe.fullscreen_changed = false;
    const bool now = glfwGetWindowMonitor(window) != NULL;
    if (a->fe.fullscreen == now) return;
    if (a->fe.fullscreen) {
        GLFWmonitor *m = monitor_of(window);
        const GLFWvidmode *mode = m ? glfwGetVideoMode(m) : NULL;
        if (!mode) {
            a->fe.fullscreen = false;
            base_msg_post(&a->msg, "fullscreen: no monitor to fill");
            return;
        }
        glfwGetWindowPos(window, &s->windowed[0], &s->windowed[1]);
        glfwGetWindowSize(window, &s->windowed[2], &s->windowed[3]);
        glfwSetWindowMonitor(window, m, 0, 0, mode->width, mode->height, mode->refreshRate);
        const char *name = glfwGetMonitorName(m);
        base_msg_post(&a->msg, "fullscreen on %s (%dx%d); F11 goes back",
                      name ? name : "the monitor", mode->width, mode->height);
    } else {
        glfwSetWindowMonitor(window, NULL, s->windowed[0], s->windowed[1], s->windowed[2],
                             s->windowed[3], GLFW_DONT_CARE);
        base_msg_post(&a->msg, "windowed again (%dx%d)", s->windowed[2], s->windowed[3]);
    }
    glfwSwapInterval(a->fe.vsync ? 1 : 0); /* some drivers reset it with the monitor */
}

static void update_title(GLFWwindow *window, app *a) {
    const sim_params p = sim_get_params(a->sim);
    char title[256];
    const char *file = a->snapshot.file[0] ? strrchr(a->snapshot.file, '/') : NULL;
    file = file ? file + 1 : a->snapshot.file; /* --load's file, by name */
    snprintf(title, sizeof title, "nbody - %.96s%s%d bod%s, %s, %s, %.0f frames/s%s", file,
             file[0] ? ", " : "", p.body_count, p.body_count == 1 ? "y" : "ies", sim_ic_name(p.ic),
             app_method_name(a), a->live.fps, a->live.paused ? " (paused)" : "");
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
    window_state state = {.app = a};
#ifdef NBODY_X11_IO_EXIT
    Display *display = glfwGetX11Display();
    if (display) {
        XSetIOErrorHandler(on_io_error);
        XSetIOErrorExitHandler(display, on_display_lost, &state);
    }
#endif
    glfwMakeContextCurrent(window);
    glfwSwapInterval(a->fe.vsync ? 1 : 0);
    glfwSetWindowUserPointer(window, &state);
    glfwSetKeyCallback(window, on_key);
    glfwSetMouseButtonCallback(window, on_mouse_button);
    glfwSetCursorPosCallback(window, on_cursor);
    glfwSetScrollCallback(window, on_scroll);
    glfwSetWindowContentScaleCallback(window, on_content_scale);
    a->fe.poll = poll_window;
    a->fe.poll_stop = poll_window_stop;
    a->fe.poll_ctx = window;
    float xs = 1, ys = 1;
    glfwGetWindowContentScale(window, &xs, &ys);
    a->fe.content_scale = xs > ys ? xs : ys;
    if (!app_gl_begin(a, false)) {
        app_gl_end(a);
        glfwDestroyWindow(window);
        glfwTerminate();
        return 1;
    }

    a->fe.fullscreen = a->cfg.fullscreen;
    a->fe.fullscreen_changed = a->cfg.fullscreen;
    if (a->live.first_step_ms + a->live.first_energy_ms > APP_FIRST_FRAME_NOTE_MS) {
        /* Something to look at, and the estimate, before the long first step. */
        int fbw = 0, fbh = 0;
        glfwGetFramebufferSize(window, &fbw, &fbh);
        if (fbw > 0 && fbh > 0) app_first_frame(a, fbw, fbh);
        glfwSwapBuffers(window);
    }
    bool finished = false, ok = true;
    double t_title = 0;
    int fbw = 0, fbh = 0;
    while (!finished) {
        replay_keys(&state);
        glfwPollEvents();
        if (a->fe.fullscreen_changed) apply_fullscreen(window, &state);
        /* Without the display the last sizes stand. Losing it inside these
         * calls leaves what they return undefined: keep only sizes read
         * while the display was still there. */
        if (!state.display_lost) {
            int ww = 0, wh = 0, w = 0, h = 0;
            glfwGetWindowSize(window, &ww, &wh);
            glfwGetFramebufferSize(window, &w, &h);
            if (!state.display_lost) {
                a->fe.window_width = ww;
                a->fe.window_height = wh;
                fbw = w;
                fbh = h;
            }
        }
        const bool closing = glfwWindowShouldClose(window) || a->fe.quit || base_signal_caught() ||
                             state.display_lost;
        if ((fbw == 0 || fbh == 0) && !closing) {
            glfwWaitEvents(); /* minimized */
            continue;
        }
        if (a->fe.vsync_changed) {
            glfwSwapInterval(a->fe.vsync ? 1 : 0);
            a->fe.vsync_changed = false;
        }
        /* When the user closes the window, draw the final frame without
         * stepping so --screenshot and --dump see the same state. */
        if (closing) a->live.paused = true;
        app_frame(a, fbw, fbh);
        if (a->live.frame == 1) { /* registration has been tried by now */
            printf("nbody: window on %s (OpenGL %s), %s\n", render_gl_renderer(),
                   render_gl_version(), interop_path_name(a->interop.path));
            app_profile_reset(a); /* --profile: the frames after the first */
        }
        finished = closing || (a->cfg.frames > 0 && a->live.frame >= a->cfg.frames);
        if (finished) ok = app_finish(a, fbw, fbh) && !state.display_lost;
        if (!state.display_lost) glfwSwapBuffers(window);
        if (a->live.now - t_title >= 0.5 && !state.display_lost) {
            update_title(window, a);
            t_title = a->live.now;
        }
    }
    if (a->cfg.profile) app_profile_print(a);
    app_gl_end(a); /* GL objects go while the context is current */
    glfwDestroyWindow(window);
    glfwTerminate();
    return base_signal_exit_code(ok);
}
