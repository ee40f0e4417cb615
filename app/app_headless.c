/* app_headless.c - the headless front-end: EGL, no window, no X server.
 *
 * On a GPU machine it makes an OpenGL 3.3 core context on the NVIDIA device
 * through the EGL device platform (EGL_EXT_device_enumeration), preferring
 * the device that is the simulation's CUDA device (EGL_NV_device_cuda), so
 * CUDA-GL interop works exactly as in the window. Where EGL offers no GPU
 * device (CI, Mesa) it takes whatever device or default display EGL gives,
 * e.g. llvmpipe. It then runs the same app_frame() the window runs, into an
 * offscreen framebuffer, for --frames frames, prints the frame rate, and
 * writes --screenshot / --dump.
 */
#include <GL/glew.h> /* before any GL header */

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"

#define HEADLESS_DEFAULT_FRAMES 60

#ifndef EGL_CUDA_DEVICE_NV
#define EGL_CUDA_DEVICE_NV 0x323A
#endif

struct app_egl {
    EGLDisplay display;
    EGLContext context;
    EGLSurface surface;
};

/* Initializes dpy and makes a current 3.3 core context on it. */
static bool try_display(EGLDisplay dpy, app_egl *out) {
    if (dpy == EGL_NO_DISPLAY) return false;
    EGLint major = 0, minor = 0;
    if (!eglInitialize(dpy, &major, &minor)) return false;
    if (!eglBindAPI(EGL_OPENGL_API)) {
        eglTerminate(dpy);
        return false;
    }
    const char *exts = eglQueryString(dpy, EGL_EXTENSIONS);
    const bool surfaceless = exts && strstr(exts, "EGL_KHR_surfaceless_context");
    const EGLint pbuffer_attrs[] = {EGL_SURFACE_TYPE,
                                    EGL_PBUFFER_BIT,
                                    EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT,
                                    EGL_RED_SIZE,
                                    8,
                                    EGL_GREEN_SIZE,
                                    8,
                                    EGL_BLUE_SIZE,
                                    8,
                                    EGL_NONE};
    const EGLint any_attrs[] = {EGL_SURFACE_TYPE, 0, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint count = 0;
    bool pbuffer = eglChooseConfig(dpy, pbuffer_attrs, &config, 1, &count) && count > 0;
    if (!pbuffer &&
        !(surfaceless && eglChooseConfig(dpy, any_attrs, &config, 1, &count) && count > 0)) {
        eglTerminate(dpy);
        return false;
    }
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                3,
                                EGL_CONTEXT_MINOR_VERSION,
                                3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, ctx_attrs);
    if (ctx == EGL_NO_CONTEXT) {
        eglTerminate(dpy);
        return false;
    }
    EGLSurface surf = EGL_NO_SURFACE;
    if (pbuffer) {
        const EGLint surf_attrs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
        surf = eglCreatePbufferSurface(dpy, config, surf_attrs);
    }
    if (!eglMakeCurrent(dpy, surf, surf, ctx)) {
        if (surf != EGL_NO_SURFACE) eglDestroySurface(dpy, surf);
        eglDestroyContext(dpy, ctx);
        eglTerminate(dpy);
        return false;
    }
    *out = (app_egl){dpy, ctx, surf};
    return true;
}

/* Device platform first (the simulation's CUDA device, then any other),
 * then the default display. */
static bool egl_open(int cuda_device, app_egl *out) {
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLQUERYDEVICEATTRIBEXTPROC query_attrib =
        (PFNEGLQUERYDEVICEATTRIBEXTPROC)eglGetProcAddress("eglQueryDeviceAttribEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (query_devices && platform_display) {
        EGLDeviceEXT devices[16];
        EGLint n = 0;
        if (query_devices(16, devices, &n)) {
            for (int pass = 0; pass < 2; pass++) {
                for (int i = 0; i < n; i++) {
                    EGLAttrib cuda = -1;
                    bool is_ours = cuda_device >= 0 && query_attrib &&
                                   query_attrib(devices[i], EGL_CUDA_DEVICE_NV, &cuda) &&
                                   cuda == cuda_device;
                    eglGetError(); /* a device without EGL_NV_device_cuda sets an error */
                    if ((pass == 0) != is_ours) continue;
                    EGLDisplay dpy = platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL);
                    if (try_display(dpy, out)) return true;
                }
            }
        }
    }
    return try_display(eglGetDisplay(EGL_DEFAULT_DISPLAY), out);
}

app_egl *app_egl_open(int cuda_device) {
    app_egl *e = calloc(1, sizeof *e);
    if (e && egl_open(cuda_device, e)) return e;
    free(e);
    return NULL;
}

void app_egl_close(app_egl *e) {
    if (!e) return;
    eglMakeCurrent(e->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (e->surface != EGL_NO_SURFACE) eglDestroySurface(e->display, e->surface);
    eglDestroyContext(e->display, e->context);
    eglTerminate(e->display);
    free(e);
}

int app_headless_run(app *a) {
    const sim_params p = sim_get_params(a->sim);
    app_egl *egl = app_egl_open(p.backend == SIM_BACKEND_CUDA ? a->cfg.sim.device : -1);
    if (!egl) {
        fprintf(stderr,
                "nbody: cannot make a headless OpenGL 3.3 context through EGL (0x%x)\n"
                "hint: install the GPU's EGL driver (libegl1 and the NVIDIA or Mesa "
                "vendor library)\n",
                (unsigned)eglGetError());
        return 1;
    }
    if (!app_create_render(a, true)) {
        app_egl_close(egl);
        return 1;
    }

    const int frames = a->cfg.frames > 0 ? a->cfg.frames : HEADLESS_DEFAULT_FRAMES;
    const int w = a->cfg.width, h = a->cfg.height;
    /* The first frame pays for allocation and registration; time the rest.
     * The interop path is known once registration has been tried. */
    app_frame(a, w, h);
    printf("nbody: headless on %s (OpenGL %s), %s\n", render_gl_renderer(), render_gl_version(),
           app_interop_path_name(a->interop.path));
    glFinish();
    const double t0 = app_now();
    while (a->live.frame < frames && !a->fe.quit) {
        app_frame(a, w, h);
    }
    glFinish();
    const double seconds = app_now() - t0;
    const int timed = a->live.frame - 1;
    const sim_params end = sim_get_params(a->sim);
    if (timed > 0) {
        printf("nbody: %d frame%s of %d bod%s (%d step%s/frame) in %.3f s: %.1f frames/s, "
               "%.3f ms/step\n",
               timed, timed == 1 ? "" : "s", end.body_count, end.body_count == 1 ? "y" : "ies",
               a->cfg.steps_per_frame, a->cfg.steps_per_frame == 1 ? "" : "s", seconds,
               timed / seconds, sim_last_step_ms(a->sim));
    }
    bool ok = app_finish(a, w, h);
    app_destroy(a);
    app_egl_close(egl);
    return ok ? 0 : 1;
}
