/* app_headless.c - the headless front-end: EGL, no window, no X server.
 *
 * On a GPU machine it makes an OpenGL 3.3 core context on the NVIDIA device
 * through the EGL device platform (EGL_EXT_device_enumeration), preferring
 * the device that is the simulation's CUDA device (EGL_NV_device_cuda), so
 * CUDA-GL interop works exactly as in the window. Where EGL offers no GPU
 * device (CI, Mesa) it takes whatever device or default display EGL gives,
 * e.g. llvmpipe. It then runs the same app_frame() the window runs, into an
 * offscreen framebuffer, for --frames frames, prints the frame rate, and
 * writes --screenshot / --dump. A first SIGINT or SIGTERM ends the loop
 * after the current frame; the outputs are written all the same.
 *
 * A long run shows a progress line on stderr (frames, simulated time,
 * frames/s, ETA) at most once a second plus a last one at the end: in place
 * when stderr is a terminal, and one line per update into a file only with
 * --progress (a redirected stderr gets none otherwise).
 */
#include <GL/glew.h> /* before any GL header */

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"

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
    EGLConfig egl_config;
    EGLint count = 0;
    bool pbuffer = eglChooseConfig(dpy, pbuffer_attrs, &egl_config, 1, &count) && count > 0;
    if (!pbuffer &&
        !(surfaceless && eglChooseConfig(dpy, any_attrs, &egl_config, 1, &count) && count > 0)) {
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
    EGLContext ctx = eglCreateContext(dpy, egl_config, EGL_NO_CONTEXT, ctx_attrs);
    if (ctx == EGL_NO_CONTEXT) {
        eglTerminate(dpy);
        return false;
    }
    EGLSurface surf = EGL_NO_SURFACE;
    if (pbuffer) {
        const EGLint surf_attrs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
        surf = eglCreatePbufferSurface(dpy, egl_config, surf_attrs);
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

/* The progress line's state: where it goes and when it last went. */
typedef struct progress {
    bool on, tty; /* shown at all; on a terminal (rewritten in place) */
    bool shown;   /* the line is on the terminal, to be completed at the end */
    double t0;    /* when the loop started */
    double last;  /* when the line was last printed */
    int frame0;   /* frames done at t0 */
} progress;

static void progress_update(progress *pr, const app *a, int frames, bool done) {
    const double now = base_now();
    if (!pr->on || (!done && now - pr->last < 1.0)) return;
    if (done && pr->tty && !pr->shown) return; /* a short run: no line to complete */
    pr->last = now;
    const int frame = a->live.frame;
    const double rate = now > pr->t0 ? (frame - pr->frame0) / (now - pr->t0) : 0;
    char eta[32] = "-";
    if (rate > 0 && !done) {
        const double left = (frames - frame) / rate;
        if (left < 360000) {
            const long s = (long)(left + 0.5);
            snprintf(eta, sizeof eta, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
        } else {
            snprintf(eta, sizeof eta, "%.3g days", left / 86400);
        }
    }
    char line[160];
    snprintf(line, sizeof line, "nbody: frame %d/%d (%.1f%%), t = %.6g, %.1f frames/s, ETA %s",
             frame, frames, 100.0 * frame / frames, sim_get_params(a->sim).time, rate, eta);
    if (pr->tty) { /* rewrite the line; erase what a longer one left */
        fprintf(stderr, "\r%s\033[K%s", line, done ? "\n" : "");
        pr->shown = !done;
    } else {
        fprintf(stderr, "%s\n", line);
    }
    fflush(stderr);
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
    if (!app_gl_begin(a, true)) {
        app_gl_end(a);
        app_egl_close(egl);
        return 1;
    }

    const int frames = app_campath_run_frames(a); /* --frames, a --camera-path's, or the default */
    const int w = a->cfg.width, h = a->cfg.height;
    /* The first frame pays for allocation and registration; time the rest.
     * The interop path is known once registration has been tried. */
    app_frame(a, w, h);
    const int most = render_gl_max_image();
    printf("nbody: headless on %s (OpenGL %s), %s, images up to %dx%d\n", render_gl_renderer(),
           render_gl_version(), interop_path_name(a->interop.path), most, most);
    glFinish();
    app_profile_reset(a); /* --profile: the timed frames only */
    const double t0 = base_now();
    progress pr = {.tty = isatty(2) != 0, .t0 = t0, .last = t0, .frame0 = a->live.frame};
    pr.on = pr.tty || a->cfg.progress;
    while (a->live.frame < frames && !a->fe.quit && !a->live.blown_up && !base_signal_caught()) {
        app_frame(a, w, h);
        progress_update(&pr, a, frames, false);
    }
    glFinish();
    app_profile_mark(a, APP_PHASE_LOOP); /* the last frame's GPU work */
    progress_update(&pr, a, frames, true);
    const double seconds = base_now() - t0;
    /* Every frame ran is counted; the first (allocation, registration) is
     * left out of the timing, and the line says so. */
    const int ran = a->live.frame, timed = ran - 1, steps = a->live.steps_per_frame;
    const sim_params end = sim_get_params(a->sim);
    char per_frame[64];
    if (a->live.frames_stepped > 0) {
        snprintf(per_frame, sizeof per_frame, "%d step%s/frame", steps, base_plural(steps));
    } else {
        snprintf(per_frame, sizeof per_frame, "%sno steps taken",
                 app_snapshot_playback(a) ? "a series played, " : "");
    }
    printf("nbody: %d frame%s of %d %s (%s)", ran, base_plural(ran), end.body_count,
           end.body_count == 1 ? "body" : "bodies", per_frame);
    if (timed > 0) {
        char last[32] = "one";
        if (timed > 1) snprintf(last, sizeof last, "%d", timed);
        printf("; timed: the last %s (the first is warm-up), in %.3f s: %.1f frames/s", last,
               seconds, timed / seconds);
        if (a->live.frames_stepped > 0) printf(", %.3f ms/step", sim_last_step_ms(a->sim));
        printf("\n");
    } else {
        printf("; none timed (the first is warm-up)\n");
    }
    if (a->cfg.profile && timed > 0) {
        app_profile_print(a);
    } else if (a->cfg.profile) {
        printf("nbody: --profile: nothing to profile: only the first frame ran, which is warm-up "
               "and not timed (--frames 2 or more)\n");
    }
    /* A blow-up stops the run at its frame; the outputs show that frame. */
    const bool blown_up = a->live.blown_up;
    if (blown_up && a->live.blown_up_step > 0) {
        fprintf(stderr, "nbody: NaN or infinity at step %lld (t = %.6g): stopped after %d frames\n",
                (long long)a->live.blown_up_step, a->live.blown_up_time, a->live.frame);
    } else if (blown_up) {
        fprintf(stderr, "nbody: the energy is not finite (t = %.6g): stopped after %d frames\n",
                a->live.blown_up_time, a->live.frame);
    }
    /* The energy at the end, fresh (the HUD's sample can be frames old),
     * against the run's E0 from the same kind of sum. */
    const app_live *l = &a->live;
    if (!blown_up && l->energy0_valid && l->energy0 != 0 && !app_snapshot_playback(a) &&
        !base_signal_caught()) {
        const sim_diag d = sim_energy(a->sim);
        const double de = (d.total - l->energy0) / fabs(l->energy0);
        if (d.source == l->energy0_source && !(fabs(de) <= UI_ENERGY_WARN)) {
            fprintf(stderr,
                    "nbody: warning: the energy was not conserved: ΔE/E₀ = %+.2e at t = %.6g "
                    "(more than %g)\nhint: halve --dt, or raise --softening\n",
                    de, sim_get_params(a->sim).time, UI_ENERGY_WARN);
        }
    }
    if (base_signal_caught()) {
        fprintf(stderr, "nbody: stopped by signal %d after frame %d; writing the outputs\n",
                base_signal_caught(), a->live.frame);
    }
    bool ok = app_finish(a, w, h);
    app_gl_end(a);
    app_egl_close(egl);
    const int rc = base_signal_exit_code(ok); /* 1: an output failed; 128 + signal */
    return rc == 0 && blown_up ? 3 : rc;
}
