/* interop.c - CUDA-GL interop: the one place where sim/ meets render/.
 *
 * Normal path (zero copy): the body vertex buffer is registered with CUDA
 * once (and again only if render/ re-creates it for a larger N); each frame
 * it is mapped on the legacy default stream (stream 0), the simulation
 * writes position + speed straight into it on the GPU, and it is unmapped on
 * stream 0 before GL draws. No byte crosses the bus. The CUDA backend's
 * stream is a blocking stream, so its vertex kernel is ordered after the
 * map and before the unmap, and the unmap orders the CUDA work before GL's
 * later use of the buffer (stream 0 means the legacy default stream only
 * because nothing is built with --default-stream per-thread). When GL
 * draws the sprites, the vertex write waits for the GPU before the unmap
 * (sim_write_vertices: measured faster than leaving the wait to the unmap;
 * docs/PERFORMANCE.md, "Frames"); when CUDA draws them, the write is only
 * queued and splat/ waits once for both (sim_queue_vertices). While frames
 * are recorded, the map may be preceded by a poll of a GL fence set at the
 * end of the last frame (poll_frame_fence says why).
 *
 * Videos (interop_video_*): the next frame maps the picture - in place
 * where it is a renderbuffer nothing else is drawn into before then, else
 * a copy GL blits into a texture - together with the vertex buffer, in one
 * cudaGraphicsMapResources, and video/ converts it to YUV 4:2:0 and sends
 * it to pinned host memory on the copy engine. The map's wait for GL is
 * the one the vertex buffer needs anyway, so a video costs the frame a
 * small kernel (and the blit where there is one), not a CPU wait.
 *
 * Sprites (interop_upload's view): on the zero-copy path the
 * renderer's float picture (RGBA16F) is registered too, as an image, and
 * mapped in the same cudaGraphicsMapResources as the vertex buffer; after
 * the simulation has written the vertices, splat/ draws the frame's sprites
 * from them into that picture, and render_frame goes on from there (bloom,
 * tone map), which takes that work off GL's graphics pipeline, small on
 * data-centre GPUs (docs/PERFORMANCE.md, "Frames").
 * A refused registration or a failed draw prints one line and GL draws the
 * sprites from then on. Where both can, the app chooses (app_sprites.c). With
 * NBODY_TEST_REFUSE_SPRITES=1 the registration is treated as refused.
 *
 * Sprites with no map: every map, issued while the frame's steps run,
 * costs the GPU time beside them (docs/PERFORMANCE.md, "Where a 1M frame
 * goes"). Where the GL context is EGL's (headless), a plain float texture of
 * render/'s (render_sprite_source) is made an EGL image and registered with
 * CUDA once; an EGL image's registration needs no map, and leaves the
 * ordering to the caller: splat_draw waits for CUDA before GL reads the
 * texture (render_frame reads it in place of the picture), and a GL fence after
 * that read (interop_source_read) is waited for before CUDA writes it again;
 * two such textures, one frame each in turn, so that the fence waited for
 * is a frame older and CUDA need not wait for GL's last frame.
 * The vertices then go into a buffer of CUDA's own, unless GL draws sprites
 * from the vertex buffer this frame (vertices_for_gl), and a frame that
 * converts a video's picture maps as before. Anything here failing once
 * prints one note and the map is used from then on; NBODY_TEST_NO_EGL_IMAGE=1
 * uses it from the start.
 *
 * Fallback (host copy): when registration is refused - error 304
 * (cudaErrorOperatingSystem) on hybrid-GPU laptops and remote desktops, or
 * the GL context is on another GPU - or when --host-copy asks for it, the
 * vertices come to host memory and go up with glBufferSubData. The CPU
 * backend always takes this path. A refusal prints one line on stderr that
 * names the reason and says positions are copied through the host instead;
 * a later failure of the zero-copy path (map, mapped pointer, a mapped
 * buffer smaller than the drawn vertices, unmap) prints the same kind of line and
 * falls back the same way.
 *
 * Test hooks: with NBODY_TEST_REFUSE_INTEROP=1 in the environment,
 * registration is treated as refused - the same path and the same one-line
 * warning as a real refusal, the reason being that variable - so the
 * fallback can be tested on a machine where interop works (a video's
 * frames then come back through GL). With NBODY_TEST_VIDEO_COPY=1 a
 * video's pictures are always copied before CUDA reads them, as in the
 * window, so that path is tested headless too.
 *
 * Errors: this file does not use sim/'s CUDA_CHECK (private to sim/, and it
 * aborts). A failed CUDA call here is reported and answered with a
 * fallback: the host copy for the vertices, the map for the EGL images,
 * GL for the sprites, GL's read-back for a video (the recording reports
 * it). Only host memory or GL running out is left to the caller.
 *
 * This is the only file that includes cuda_gl_interop.h and cuda_egl_interop.h.
 */
#include <GL/glew.h> /* before cuda_gl_interop.h, which includes GL/gl.h */

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <cuda_egl_interop.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "interop.h"

_Static_assert(sizeof(sim_vertex) == sizeof(render_vertex), "sim and render vertices match");
_Static_assert(offsetof(sim_vertex, speed) == offsetof(render_vertex, speed),
               "sim and render vertices match");

/* The reason for a failed CUDA call, for the one-line warning. Clears the
 * error when it is not sticky. */
static void describe(char *why, size_t len, const char *call, cudaError_t e) {
    snprintf(why, len, "%s: %s, error %d: %s", call, cudaGetErrorName(e), (int)e,
             cudaGetErrorString(e));
    cudaGetLastError();
}

const char *interop_path_name(interop_path p) {
    return p == INTEROP_ZERO_COPY ? "zero-copy interop" : "host copy";
}

static void unregister_image(struct cudaGraphicsResource **res) {
    if (!*res) return;
    const cudaError_t e = cudaGraphicsUnregisterResource(*res);
    if (e != cudaSuccess) {
        char why[512];
        describe(why, sizeof why, "cudaGraphicsUnregisterResource", e);
        fprintf(stderr, "nbody: warning: CUDA-GL interop: %s\n", why);
    }
    *res = NULL;
}

/* Lets go of the EGL images of render_sprite_source's textures (before GL
 * replaces them, or for good). */
static void release_source(interop *io) {
    PFNEGLDESTROYIMAGEKHRPROC destroy =
        (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
    for (int k = 0; k < RENDER_SOURCE_SLOTS; k++) {
        unregister_image(&io->source[k]);
        if (io->egl_image[k] && destroy) {
            destroy(eglGetCurrentDisplay(), (EGLImageKHR)io->egl_image[k]);
        }
        io->egl_image[k] = NULL;
        io->source_array[k] = NULL;
    }
    io->source_w = io->source_h = 0;
}

/* CUDA's sprites are over: GL draws them from now on. */
static void release_sprites(interop *io) {
    unregister_image(&io->picture);
    release_source(io);
    splat_destroy(io->splat);
    io->splat = NULL;
}

/* The same, with one line saying why. */
static void sprites_off(interop *io, const char *why) {
    fprintf(stderr, "nbody: warning: CUDA cannot draw the sprites (%s); GL draws them instead\n",
            why);
    release_sprites(io);
}

void interop_init(interop *io, bool cuda_backend, bool force_host_copy) {
    *io = (interop){0};
    io->path = cuda_backend && !force_host_copy ? INTEROP_ZERO_COPY : INTEROP_HOST_COPY;
    if (io->path != INTEROP_ZERO_COPY) return;
    splat_error e = {0};
    if (!(io->splat = splat_create(&e))) sprites_off(io, e.message);
}

bool interop_cuda_sprites(const interop *io) {
    return io->path == INTEROP_ZERO_COPY && io->splat;
}

void interop_memory(const interop *io, bool cuda_backend, int n, sim_memory *out) {
    const double vertices = (double)(sizeof(render_vertex) + sizeof(uint16_t)) *
                            n; /* render_reserve_bodies: vertices, 16-bit tags */
    if (cuda_backend) {
        out->device_need += vertices;
    } else {
        out->host_need += vertices;
    }
    if (!cuda_backend || io->path == INTEROP_HOST_COPY) {
        out->host_need += (double)sizeof(sim_vertex) * n; /* io->staging */
    }
    if (cuda_backend && interop_cuda_sprites(io)) {
        /* splat_set_tags: 16 bits a body; the vertices of CUDA's own
         * (io->vertices, where it draws with no map) */
        out->device_need += (double)(sizeof(uint16_t) + sizeof(sim_vertex)) * n;
    }
}

void interop_tags(interop *io, const uint16_t *tags, int n) {
    splat_error e = {0};
    if (io->splat && !splat_set_tags(io->splat, tags, n, &e)) sprites_off(io, e.message);
}

static void unregister(interop *io) {
    if (!io->registered) return;
    const cudaError_t e = cudaGraphicsUnregisterResource(io->resource);
    if (e != cudaSuccess) {
        char why[512];
        describe(why, sizeof why, "cudaGraphicsUnregisterResource", e);
        fprintf(stderr, "nbody: warning: CUDA-GL interop: %s\n", why);
    }
    io->registered = false;
    io->resource = NULL;
}

/* The zero-copy path is over: one line saying why, and the host copy from
 * now on (and GL's sprites). what: "refused" or "failed". */
static void fall_back(interop *io, const char *what, const char *why) {
    fprintf(stderr,
            "nbody: warning: CUDA-GL interop %s (%s); copying positions through the host "
            "instead\n",
            what, why);
    unregister(io);
    release_sprites(io);
    io->path = INTEROP_HOST_COPY;
}

/* Registers the render's buffer; on refusal (or the test hook), falls back
 * to the host path. */
static void ensure_registered(interop *io, render *r) {
    if (io->registered) return;
    const char *refuse = getenv("NBODY_TEST_REFUSE_INTEROP");
    if (refuse && strcmp(refuse, "1") == 0) {
        fall_back(io, "refused", "NBODY_TEST_REFUSE_INTEROP=1 is set");
        return;
    }
    const uint32_t vbo = render_body_buffer(r);
    const cudaError_t e =
        cudaGraphicsGLRegisterBuffer(&io->resource, vbo, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        char why[512];
        describe(why, sizeof why, "cudaGraphicsGLRegisterBuffer", e);
        io->resource = NULL;
        fall_back(io, "refused", why);
        return;
    }
    io->registered = true;
}

/* A failed CUDA call on the video's path: kept for the recording to
 * report (interop_video_map); the vertices go on. */
static void video_fail(interop *io, const char *call, cudaError_t e) {
    describe(io->video_err.message, sizeof io->video_err.message, call, e);
    snprintf(io->video_err.hint, sizeof io->video_err.hint, "record with --host-copy");
    io->video_failed = true;
}

/* The waiting picture, mapped, goes to video/ for conversion (queued on
 * the GPU, read before the unmap lets GL on). */
static void video_convert_mapped(interop *io) {
    cudaArray_t array = NULL;
    const cudaError_t e = cudaGraphicsSubResourceGetMappedArray(&array, io->video_waiting, 0, 0);
    io->video_waiting = NULL;
    if (e != cudaSuccess) {
        video_fail(io, "cudaGraphicsSubResourceGetMappedArray", e);
    } else if (!video_frames_push(io->video, array, &io->video_err)) {
        io->video_failed = true;
    }
}

/* Converts the waiting picture on its own: a map of it alone (which waits
 * for GL's drawing). For the frames no upload follows: the last one, and a
 * second push before an upload. */
static void video_convert_alone(interop *io) {
    struct cudaGraphicsResource *res = io->video_waiting;
    if (!res) return;
    cudaError_t e = cudaGraphicsMapResources(1, &res, 0);
    if (e != cudaSuccess) {
        io->video_waiting = NULL;
        video_fail(io, "cudaGraphicsMapResources", e);
        return;
    }
    video_convert_mapped(io);
    e = cudaGraphicsUnmapResources(1, &res, 0);
    if (e != cudaSuccess && !io->video_failed) video_fail(io, "cudaGraphicsUnmapResources", e);
}

/* The renderer's float picture at w x h, registered for CUDA's sprites
 * (again after a resize: let go of first, since render/ replaces the
 * texture). false when it is not: GL cannot make it (render_frame will
 * say so), or CUDA refused it (then GL draws the sprites from now on). */
static bool ensure_picture(interop *io, render *r, int w, int h) {
    if (io->picture && io->picture_w == w && io->picture_h == h) return true;
    unregister_image(&io->picture);
    render_error gl = {0};
    const uint32_t tex = render_sprite_picture(r, w, h, &gl);
    if (!tex) return false;
    const char *refuse = getenv("NBODY_TEST_REFUSE_SPRITES");
    if (refuse && strcmp(refuse, "1") == 0) {
        sprites_off(io, "NBODY_TEST_REFUSE_SPRITES=1 is set");
        return false;
    }
    const cudaError_t e = cudaGraphicsGLRegisterImage(&io->picture, tex, GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsSurfaceLoadStore);
    if (e != cudaSuccess) {
        char why[512];
        describe(why, sizeof why, "cudaGraphicsGLRegisterImage", e);
        io->picture = NULL;
        sprites_off(io, why);
        return false;
    }
    io->picture_w = w;
    io->picture_h = h;
    return true;
}

/* A quantity's colours (io->values) over the speed of n vertices in device
 * memory, on the legacy stream: after the simulation's write (its stream
 * is a blocking one), before the sprites and the unmap. From pageable host
 * memory the values have been read when it returns; device values
 * (values_on_device) were queued before on the same stream. why: a failure. */
static void copy_values(const interop *io, void *vertices, int n, char *why, size_t len) {
    if (!io->values || io->value_count != n) return;
    const cudaError_t e = cudaMemcpy2DAsync(
        (char *)vertices + offsetof(sim_vertex, speed), sizeof(sim_vertex), io->values,
        sizeof(float), sizeof(float), (size_t)n,
        io->values_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice, 0);
    if (e != cudaSuccess) describe(why, len, "cudaMemcpy2DAsync (colour values)", e);
}

/* CUDA's sprites go through the map from now on, with one note saying why. */
static void source_off(interop *io, const char *why) {
    fprintf(stderr, "nbody: note: CUDA's sprites go through the interop map (%s)\n", why);
    release_source(io);
    io->source_failed = true;
}

/* One slot of render_sprite_source at w x h as an EGL image registered
 * with CUDA; false with why. */
static bool make_source(interop *io, render *r, int k, int w, int h, char *why, size_t len) {
    render_error gl = {0};
    const uint32_t tex = render_sprite_source(r, k, w, h, &gl);
    PFNEGLCREATEIMAGEKHRPROC create =
        (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
    const EGLint attrs[] = {EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_NONE};
    cudaEglFrame frame;
    cudaError_t e = cudaSuccess;
    if (!tex) {
        snprintf(why, len, "%s", gl.message);
    } else if (!create || !(io->egl_image[k] = create(eglGetCurrentDisplay(),
                                                      eglGetCurrentContext(), EGL_GL_TEXTURE_2D_KHR,
                                                      (EGLClientBuffer)(uintptr_t)tex, attrs))) {
        snprintf(why, len, "eglCreateImageKHR: EGL error 0x%x", (unsigned)eglGetError());
        io->egl_image[k] = NULL;
    } else if ((e = cudaGraphicsEGLRegisterImage(&io->source[k], (EGLImageKHR)io->egl_image[k],
                                                 cudaGraphicsRegisterFlagsNone)) != cudaSuccess) {
        describe(why, len, "cudaGraphicsEGLRegisterImage", e);
        io->source[k] = NULL;
    } else if ((e = cudaGraphicsResourceGetMappedEglFrame(&frame, io->source[k], 0, 0)) !=
               cudaSuccess) {
        describe(why, len, "cudaGraphicsResourceGetMappedEglFrame", e);
    } else if (frame.frameType != cudaEglFrameTypeArray) {
        snprintf(why, len, "the EGL image is not a CUDA array");
    } else {
        io->source_array[k] = frame.frame.pArray[0];
        return true;
    }
    return false;
}

/* render_sprite_source's textures at w x h as EGL images registered with
 * CUDA, whose arrays CUDA writes with no map (the EGL image's registration
 * needs none: CUDA's driver API, cuGraphicsEGLRegisterImage, leaves the
 * ordering to the caller). false where the GL context is not EGL's, with
 * NBODY_TEST_NO_EGL_IMAGE=1, or once anything here failed (said once on
 * stderr; the map from then on). */
static bool ensure_source(interop *io, render *r, int w, int h) {
    if (io->source_failed) return false;
    if (io->source_array[0] && io->source_w == w && io->source_h == h) return true;
    release_source(io);
    const char *off = getenv("NBODY_TEST_NO_EGL_IMAGE");
    if ((off && strcmp(off, "1") == 0) || eglGetCurrentDisplay() == EGL_NO_DISPLAY ||
        eglGetCurrentContext() == EGL_NO_CONTEXT) {
        io->source_failed = true; /* not EGL's context: it will not become one */
        return false;
    }
    char why[512] = "";
    bool ok = true;
    for (int k = 0; k < RENDER_SOURCE_SLOTS && ok; k++) {
        ok = make_source(io, r, k, w, h, why, sizeof why);
    }
    if (ok) {
        io->source_w = w;
        io->source_h = h;
        return true;
    }
    source_off(io, why);
    return false;
}

/* The frame with no map: the vertices into CUDA's own buffer (GL draws
 * none this frame), the sprites into the EGL image once GL's last read of
 * it is done (its fence), and splat_draw's wait before GL reads it again.
 * false: CUDA failed and the caller maps as before; a failed allocation
 * leaves CUDA's sprites to the map, a failed values copy or draw hands
 * them to GL from now on. */
static bool write_direct(interop *io, sim *s, int n, const splat_view *sprites) {
    char why[512] = "";
    if (n > io->vertex_capacity) {
        cudaFree(io->vertices);
        io->vertices = NULL;
        io->vertex_capacity = 0;
        const cudaError_t e = cudaMalloc(&io->vertices, sizeof(sim_vertex) * (size_t)n);
        if (e != cudaSuccess) {
            describe(why, sizeof why, "cudaMalloc (vertices for CUDA's sprites)", e);
            io->vertices = NULL;
            source_off(io, why);
            return false;
        }
        io->vertex_capacity = n;
    }
    const int k = (io->source_slot + 1) % RENDER_SOURCE_SLOTS; /* not the one GL read last */
    if (io->source_fence[k]) {
        glClientWaitSync((GLsync)io->source_fence[k], GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000ull);
        glDeleteSync((GLsync)io->source_fence[k]);
        io->source_fence[k] = NULL;
    }
    sim_queue_vertices(s, (sim_vertex *)io->vertices);
    copy_values(io, io->vertices, n, why, sizeof why);
    splat_error se = {0};
    if (!why[0] && !splat_draw(io->splat, io->vertices, n, sprites, io->source_array[k], &se)) {
        snprintf(why, sizeof why, "%s", se.message);
    }
    if (why[0]) {
        sprites_off(io, why);
        return false;
    }
    io->sprites_drawn = io->source_drawn = true;
    io->source_slot = k;
    return true;
}

void interop_source_read(interop *io) {
    if (!io->source_drawn) return;
    void **fence = &io->source_fence[io->source_slot];
    if (*fence) glDeleteSync((GLsync)*fence);
    *fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

void interop_splat_view(const render_view *view, splat_view *out) {
    render_sprite_params p;
    render_sprite_params_of(view, &p);
    _Static_assert(sizeof out->view == sizeof p.view && sizeof out->proj == sizeof p.proj,
                   "4x4 matrices both");
    *out = (splat_view){
        .width = p.width,
        .height = p.height,
        .point_px = p.point_px,
        .speed_scale = p.speed_scale,
        .brightness = p.brightness,
        .color = (int)p.color,
        .hide_halo = p.hide_halo,
    };
    memcpy(out->view, p.view, sizeof out->view);
    memcpy(out->proj, p.proj, sizeof out->proj);
}

/* Maps the buffer (with the video's waiting picture, if any, and the
 * float picture when sprites asks CUDA to draw them: one map, one wait for
 * GL), has the simulation write n vertices into it (and video/ convert the
 * picture, and splat/ draw the sprites), unmaps. false: a step failed, the
 * warning is printed and the path is now the host copy (nothing was drawn
 * from this attempt). A failure of the sprites alone turns them over to
 * GL, with a warning, and the vertices go on. */
static bool write_zero_copy(interop *io, sim *s, int n, const splat_view *sprites) {
    char why[512] = "", sprites_why[512] = "";
    struct cudaGraphicsResource *res[3] = {io->resource};
    int count = 1;
    if (io->video_waiting) res[count++] = io->video_waiting;
    if (sprites) res[count++] = io->picture;
    cudaError_t e = cudaGraphicsMapResources(count, res, 0);
    if (e != cudaSuccess && sprites) { /* the vertices may still map alone */
        describe(why, sizeof why, "cudaGraphicsMapResources", e);
        sprites_off(io, why);
        return write_zero_copy(io, s, n, NULL);
    }
    if (e != cudaSuccess) {
        describe(why, sizeof why, "cudaGraphicsMapResources", e);
        fall_back(io, "failed", why);
        return false;
    }
    if (io->video_waiting) video_convert_mapped(io);
    void *ptr = NULL;
    size_t size = 0;
    const size_t need = sizeof(sim_vertex) * (size_t)n;
    e = cudaGraphicsResourceGetMappedPointer(&ptr, &size, io->resource);
    if (e != cudaSuccess) {
        describe(why, sizeof why, "cudaGraphicsResourceGetMappedPointer", e);
    } else if (size < need) {
        snprintf(why, sizeof why, "the mapped buffer holds %zu bytes, %d vertices need %zu", size,
                 n, need);
    } else if (sprites) {
        sim_queue_vertices(s, (sim_vertex *)ptr); /* splat_draw waits for both */
    } else {
        sim_write_vertices(s, (sim_vertex *)ptr, true);
    }
    if (!why[0]) copy_values(io, ptr, n, why, sizeof why);
    if (!why[0] && sprites) {
        cudaArray_t array = NULL;
        splat_error se = {0};
        e = cudaGraphicsSubResourceGetMappedArray(&array, io->picture, 0, 0);
        if (e != cudaSuccess) {
            describe(sprites_why, sizeof sprites_why, "cudaGraphicsSubResourceGetMappedArray", e);
        } else if (!splat_draw(io->splat, ptr, n, sprites, array, &se)) {
            snprintf(sprites_why, sizeof sprites_why, "%s", se.message);
        } else {
            io->sprites_drawn = true;
        }
    }
    e = cudaGraphicsUnmapResources(count, res, 0);
    if (e != cudaSuccess && !why[0]) describe(why, sizeof why, "cudaGraphicsUnmapResources", e);
    if (why[0]) {
        io->sprites_drawn = false;
        fall_back(io, "failed", why);
        return false;
    }
    if (sprites_why[0]) sprites_off(io, sprites_why); /* unmapped: it may be let go */
    return true;
}

static bool upload_via_host(interop *io, sim *s, render *r, int n) {
    if (n > io->staging_capacity) {
        sim_vertex *p = realloc(io->staging, sizeof(sim_vertex) * (size_t)n);
        if (!p) {
            fprintf(stderr,
                    "nbody: out of host memory for %d vertices (%.1f MiB) to copy to the GPU\n"
                    "hint: try a smaller --n\n",
                    n, sizeof(sim_vertex) * (double)n / 1048576.0);
            return false;
        }
        io->staging = p;
        io->staging_capacity = n;
    }
    sim_write_vertices(s, io->staging, false);
    if (io->values && io->value_count == n && io->values_on_device) {
        const cudaError_t e = cudaMemcpy2D((char *)io->staging + offsetof(sim_vertex, speed),
                                           sizeof(sim_vertex), io->values, sizeof(float),
                                           sizeof(float), (size_t)n, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) { /* the speeds stay; said once a frame at most */
            fprintf(stderr, "nbody: cudaMemcpy2D (colour values): %s\n", cudaGetErrorString(e));
            cudaGetLastError();
        }
    } else if (io->values && io->value_count == n) {
        for (int i = 0; i < n; i++) io->staging[i].speed = io->values[i];
    }
    render_upload_bodies(r, (const render_vertex *)io->staging, n);
    return true;
}

void interop_fence_frame(interop *io) {
    if (io->path != INTEROP_ZERO_COPY) return;
    if (io->frame_fence) glDeleteSync((GLsync)io->frame_fence);
    io->frame_fence = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

/* Polls the last frame's fence until GL's work is done (at most a second).
 * Whether that is faster than the map's own wait for GL depends on the
 * picture's size and on who converts a video's frames, both ways by large
 * factors, measured and not explained (docs/PERFORMANCE.md, "Recording"):
 * so it is done only while recording, when the recording's trial finds it
 * faster (io_record.c). */
static void poll_frame_fence(interop *io) {
    if (!io->frame_fence) return;
    const GLsync f = (GLsync)io->frame_fence;
    const double give_up = base_now() + 1.0;
    for (long i = 0; glClientWaitSync(f, 0, 0) == GL_TIMEOUT_EXPIRED; i++) {
        if (i % 1024 == 1023 && base_now() > give_up) break;
    }
    glDeleteSync(f);
    io->frame_fence = NULL;
}

bool interop_upload(interop *io, sim *s, render *r, const render_view *sprites) {
    const int n = sim_get_params(s).drawn; /* the vertices the simulation writes */
    io->sprites_drawn = io->source_drawn = false;
    if (io->path == INTEROP_ZERO_COPY) poll_frame_fence(io);
    /* A larger N makes render/ replace its buffer. Let go of the old one
     * first: CUDA must not hold a buffer GL deletes, and GL may hand the
     * same name out again, so names alone cannot tell buffers apart. */
    if (n > render_body_capacity(r)) unregister(io);
    render_error err = {0};
    if (!render_reserve_bodies(r, n, &err)) {
        fprintf(stderr, "nbody: %s\nhint: %s\n", err.message, err.hint);
        return false;
    }
    if (io->path == INTEROP_ZERO_COPY) ensure_registered(io, r);
    splat_view view;
    const bool cuda_sprites = sprites && interop_cuda_sprites(io) && sprites->fb_width > 0 &&
                              sprites->fb_height > 0 &&
                              ensure_picture(io, r, sprites->fb_width, sprites->fb_height);
    if (cuda_sprites) interop_splat_view(sprites, &view);
    if (cuda_sprites && !io->vertices_for_gl && !io->video_waiting &&
        ensure_source(io, r, sprites->fb_width, sprites->fb_height) &&
        write_direct(io, s, n, &view)) {
        return true;
    }
    if (io->path == INTEROP_ZERO_COPY &&
        write_zero_copy(io, s, n, cuda_sprites && interop_cuda_sprites(io) ? &view : NULL))
        return true;
    video_convert_alone(io);
    return upload_via_host(io, s, r, n);
}

/* Registers a GL image of the video's for CUDA to read; false with *err. */
static bool register_image(struct cudaGraphicsResource **res, uint32_t name, GLenum target,
                           video_error *err) {
    const cudaError_t e =
        cudaGraphicsGLRegisterImage(res, name, target, cudaGraphicsRegisterFlagsReadOnly);
    if (e == cudaSuccess) return true;
    describe(err->message, sizeof err->message, "cudaGraphicsGLRegisterImage", e);
    snprintf(err->hint, sizeof err->hint, "GL reads the frames back instead");
    *res = NULL;
    return false;
}

bool interop_video_begin(interop *io, const render_readback *rb, uint32_t picture, int width,
                         int height, video_error *err) {
    const char *refuse = getenv("NBODY_TEST_REFUSE_INTEROP");
    if (io->path != INTEROP_ZERO_COPY || (refuse && strcmp(refuse, "1") == 0)) {
        snprintf(err->message, sizeof err->message, "the zero-copy interop path is off");
        err->hint[0] = 0;
        return false;
    }
    io->video_waiting = NULL;
    io->video_failed = false;
    if (!register_image(&io->video_copy, render_readback_texture(rb), GL_TEXTURE_2D, err)) {
        return false;
    }
    video_error ignored = {0}; /* without it, pictures are copied first */
    const char *copy = getenv("NBODY_TEST_VIDEO_COPY");
    if (picture && !(copy && strcmp(copy, "1") == 0)) {
        register_image(&io->video_picture, picture, GL_RENDERBUFFER, &ignored);
    }
    if (!(io->video =
              video_frames_create(&(video_frames_desc){.width = width, .height = height}, err))) {
        unregister_image(&io->video_copy);
        unregister_image(&io->video_picture);
        return false;
    }
    return true;
}

void interop_video_push(interop *io, render *r, render_readback *rb, bool in_place) {
    video_convert_alone(io); /* GL must not overwrite a picture not converted */
    if (in_place && io->video_picture) {
        io->video_waiting = io->video_picture;
        return;
    }
    render_readback_push(r, rb);
    io->video_waiting = io->video_copy;
}

int interop_video_pending(const interop *io) {
    return video_frames_pending(io->video) + (io->video_waiting ? 1 : 0);
}

int interop_video_mapped(const interop *io) {
    return video_frames_mapped(io->video);
}

bool interop_video_map(interop *io, bool wait, const uint8_t **data, video_error *err) {
    *data = NULL;
    if (wait && video_frames_pending(io->video) == video_frames_mapped(io->video)) {
        video_convert_alone(io);
    }
    if (io->video_failed) {
        *err = io->video_err;
        return false;
    }
    return video_frames_map(io->video, wait, data, err);
}

void interop_video_release(interop *io) {
    video_frames_release(io->video);
}

void interop_video_end(interop *io) {
    video_frames_destroy(io->video); /* waits for the GPU's work on them */
    io->video = NULL;
    unregister_image(&io->video_copy);
    unregister_image(&io->video_picture);
    io->video_waiting = NULL;
    io->video_failed = false;
}

void interop_destroy(interop *io) {
    if (io->video) interop_video_end(io);
    if (io->frame_fence) glDeleteSync((GLsync)io->frame_fence);
    unregister(io);
    for (int k = 0; k < RENDER_SOURCE_SLOTS; k++) {
        if (io->source_fence[k]) glDeleteSync((GLsync)io->source_fence[k]);
    }
    release_sprites(io);
    cudaFree(io->vertices);
    free(io->staging);
    *io = (interop){0};
}
