/* app_interop.c - CUDA-GL interop: the one place where sim/ meets render/.
 *
 * Normal path (zero copy): the body vertex buffer is registered with CUDA
 * once (and again only if render/ re-creates it for a larger N); each frame
 * it is mapped, the simulation writes position + speed straight into it on
 * the GPU, and it is unmapped before GL draws - the unmap orders the CUDA
 * work before the GL work, so the CPU does not wait. No byte crosses the bus.
 *
 * Fallback (host copy): when registration is refused - error 304
 * (cudaErrorOperatingSystem) on hybrid-GPU laptops and remote desktops, or
 * the GL context is on another GPU - or when --host-copy asks for it, the
 * vertices come to host memory and go up with glBufferSubData. The CPU
 * backend always takes this path.
 *
 * This is the only file that includes cuda_gl_interop.h.
 */
#include <GL/glew.h> /* before cuda_gl_interop.h, which includes GL/gl.h */

#include <cuda_gl_interop.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "sim_cuda_check.h"

_Static_assert(sizeof(sim_vertex) == sizeof(render_vertex), "sim and render vertices match");
_Static_assert(offsetof(sim_vertex, speed) == offsetof(render_vertex, speed),
               "sim and render vertices match");

const char *app_interop_path_name(app_interop_path p) {
    return p == APP_INTEROP_ZERO_COPY ? "zero-copy interop" : "host copy";
}

void app_interop_init(app_interop *io, bool cuda_backend, bool force_host_copy) {
    *io = (app_interop){0};
    io->path = cuda_backend && !force_host_copy ? APP_INTEROP_ZERO_COPY : APP_INTEROP_HOST_COPY;
}

static void unregister(app_interop *io) {
    if (!io->registered) return;
    CUDA_CHECK(cudaGraphicsUnregisterResource(io->resource));
    io->registered = false;
    io->resource = NULL;
}

/* Registers the render's buffer; on refusal, falls back to the host path
 * and says so once. */
static void ensure_registered(app_interop *io, render *r) {
    if (io->registered) return;
    const uint32_t vbo = render_body_buffer(r);
    cudaError_t e =
        cudaGraphicsGLRegisterBuffer(&io->resource, vbo, cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
        cudaGetLastError();
        fprintf(stderr,
                "nbody: warning: CUDA-GL interop refused (%s, error %d); copying positions "
                "through the host instead\n",
                cudaGetErrorName(e), (int)e);
        io->path = APP_INTEROP_HOST_COPY;
        return;
    }
    io->registered = true;
    io->vbo = vbo;
}

static void upload_via_host(app_interop *io, sim *s, render *r, int n) {
    if (n > io->staging_capacity) {
        sim_vertex *p = realloc(io->staging, sizeof(sim_vertex) * (size_t)n);
        if (!p) {
            fprintf(stderr, "nbody: out of host memory for %d vertices\n", n);
            abort();
        }
        io->staging = p;
        io->staging_capacity = n;
    }
    sim_write_vertices(s, io->staging, false);
    render_upload_bodies(r, (const render_vertex *)io->staging, n);
}

void app_interop_upload(app_interop *io, sim *s, render *r) {
    const int n = sim_get_params(s).body_count;
    /* A larger N makes render/ replace its buffer. Let go of the old one
     * first: CUDA must not hold a buffer GL deletes, and GL may hand the
     * same name out again, so names alone cannot tell buffers apart. */
    if (n > render_body_capacity(r)) unregister(io);
    render_reserve_bodies(r, n);
    if (io->path == APP_INTEROP_ZERO_COPY) ensure_registered(io, r);
    if (io->path == APP_INTEROP_HOST_COPY) {
        upload_via_host(io, s, r, n);
        return;
    }
    void *ptr = NULL;
    size_t size = 0;
    CUDA_CHECK(cudaGraphicsMapResources(1, &io->resource, 0));
    CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&ptr, &size, io->resource));
    if (size < sizeof(sim_vertex) * (size_t)n) {
        fprintf(stderr, "nbody: mapped buffer holds %zu bytes, %d vertices need more\n", size, n);
        abort();
    }
    sim_write_vertices(s, (sim_vertex *)ptr, true);
    CUDA_CHECK(cudaGraphicsUnmapResources(1, &io->resource, 0));
}

void app_interop_destroy(app_interop *io) {
    unregister(io);
    free(io->staging);
    *io = (app_interop){0};
}
