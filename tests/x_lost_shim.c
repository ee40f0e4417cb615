/* x_lost_shim.c - an LD_PRELOAD library that breaks the X connection on
 * the Nth call of XGetWindowAttributes (N from NBODY_TEST_LOSE_DISPLAY_AT).
 *
 * GLFW asks for the window and framebuffer sizes through that call every
 * frame; breaking the connection just before it makes the display go away
 * inside a size query, the moment a real X server's exit can hit but a test
 * cannot time. The socket's reading side is shut, so the call's reply never
 * comes and Xlib takes its I/O-error path. Says on stderr when it fires, so
 * a test can tell a GLFW that does not reach Xlib through this symbol.
 */
#define _GNU_SOURCE
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

typedef Status (*get_attributes_fn)(Display *, Window, XWindowAttributes *);

Status XGetWindowAttributes(Display *display, Window w, XWindowAttributes *attributes) {
    /* One test process per run: a call counter is all the state there is. */
    static int calls;
    static get_attributes_fn real;
    if (!real) real = (get_attributes_fn)dlsym(RTLD_NEXT, "XGetWindowAttributes");
    const char *at = getenv("NBODY_TEST_LOSE_DISPLAY_AT");
    if (at && ++calls == atoi(at)) {
        fprintf(stderr, "x_lost_shim: broke the connection at call %d\n", calls);
        shutdown(ConnectionNumber(display), SHUT_RD);
    }
    return real(display, w, attributes);
}
