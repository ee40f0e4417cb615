/* interop.h - CUDA-GL interop: the one place where sim/ meets render/.
 *
 * Moves the bodies' vertices from the simulation into the renderer's
 * vertex buffer each frame (zero copy on the GPU where CUDA may map the
 * GL buffer, else through host memory), lets CUDA draw the sprites into
 * the renderer's float picture (splat/) in the same map, or with no map
 * through an EGL image where the context is EGL's, and hands a video's
 * pictures to video/ for conversion.
 *
 * Rules: interop/ uses sim/, render/, splat/, video/ and base/; nothing
 * else of app/. It is the only code that includes cuda_gl_interop.h and
 * cuda_egl_interop.h.
 * A failed CUDA call here is reported on stderr and answered with a
 * fallback (the host copy, the map for CUDA's sprites, GL's sprites, GL's
 * read-back); only host or GL memory running out is left to the caller.
 */
#ifndef NBODY_INTEROP_H
#define NBODY_INTEROP_H

#include <stdbool.h>
#include <stdint.h>

#include "render.h"
#include "sim.h"
#include "splat.h"
#include "video.h"

/* How body positions reach the vertex buffer. */
typedef enum interop_path {
    INTEROP_ZERO_COPY, /* CUDA writes the GL buffer directly */
    INTEROP_HOST_COPY, /* via host memory and glBufferSubData */
} interop_path;

typedef struct interop {
    interop_path path;
    bool registered;
    struct cudaGraphicsResource *resource;
    void *frame_fence;   /* GLsync after the last frame's GL work (interop_fence_frame) */
    sim_vertex *staging; /* host-copy path */
    int staging_capacity;
    /* A video's frames converted by CUDA (interop_video_*): the converter,
     * GL's copy of the picture (a texture) and, where it is a renderbuffer,
     * the picture itself, both registered; the one holding a picture not
     * converted yet, or NULL. */
    video_frames *video;
    struct cudaGraphicsResource *video_copy, *video_picture, *video_waiting;
    bool video_failed; /* video_err says why; the recording must stop */
    video_error video_err;
    /* The sprites drawn by CUDA (splat/) into the renderer's float picture,
     * whose GL texture is registered as an image of picture_w x picture_h;
     * splat NULL: GL draws them (the host copy, or CUDA's refused or failed
     * once). */
    splat *splat;
    struct cudaGraphicsResource *picture;
    int picture_w, picture_h;
    bool sprites_drawn; /* the last upload drew its frame's sprites */
    /* Where the GL context is EGL's: render_sprite_source's textures as EGL
     * images, registered with CUDA once and written with no map, a frame
     * into one slot and the next into the other (the upload's own wait, and
     * a GL fence after GL's read of a slot waited for before CUDA writes that
     * slot again, order CUDA's and GL's use; with two, the fence waited for
     * is a frame older, so CUDA's work need not wait for GL's last frame),
     * and the vertices in a buffer of CUDA's own when GL draws none this
     * frame; source_drawn says the last upload drew so, into source_slot.
     * source_failed: refused once, the map from then on. */
    void *egl_image[RENDER_SOURCE_SLOTS];
    void *source_fence[RENDER_SOURCE_SLOTS]; /* GLsync after GL's last read (interop_source_read) */
    struct cudaGraphicsResource *source[RENDER_SOURCE_SLOTS];
    struct cudaArray *source_array[RENDER_SOURCE_SLOTS];
    int source_w, source_h, source_slot;
    bool source_failed, source_drawn;
    void *vertices; /* device memory, vertex_capacity sim_vertex */
    int vertex_capacity;
    /* Set before each upload: GL draws sprites from the vertex buffer this
     * frame (a recording's own picture), so the buffer is written even
     * where CUDA draws the window's. */
    bool vertices_for_gl;
    /* A colour mode of a quantity (app/app_colour.c): value_count floats,
     * each body's place in the palette, written over the vertices' speed
     * after the simulation writes them (both paths, so GL's and CUDA's
     * sprites read the same); NULL, or a count other than the bodies': the
     * speed stays. The caller's memory, set before each upload: host
     * memory, or CUDA device memory where values_on_device (the CUDA
     * backend's colours, taken on the GPU: copied device to device on the
     * zero-copy path, to the staging buffer on the host copy). */
    const float *values;
    int value_count;
    bool values_on_device;
} interop;

void interop_init(interop *io, bool cuda_backend, bool force_host_copy);
void interop_destroy(interop *io);
/* "zero-copy interop" or "host copy". */
const char *interop_path_name(interop_path p);

/* Moves the drawn bodies (sim_params.drawn) into the render's vertex buffer. With sprites
 * (a view) on the zero-copy path, CUDA also draws that view's sprites into
 * the renderer's float picture in the same interop map, or (an EGL
 * context, no video to convert, GL drawing no sprites this frame: then the
 * vertex buffer is left alone) into render_sprite_source's texture with no
 * map; io->sprites_drawn says it drew them (render_view.sprites_drawn), and
 * io->source_drawn and source_slot where (sprites_source, sprites_slot);
 * without it, or where CUDA cannot, GL draws them. false: the bodies could not be
 * moved (no host memory for the host copy, no GL memory for the buffer),
 * message printed. A failure of the zero-copy path is not one: it falls
 * back to the host copy with a warning, and a failure of CUDA's sprites
 * to GL's. */
bool interop_upload(interop *io, sim *s, render *r, const render_view *sprites);
/* After the render_frame that reads an upload's sprites: where CUDA drew
 * them with no map (io->source_drawn), a GL fence an upload waits for
 * before CUDA writes that slot again. */
void interop_source_read(interop *io);
/* Adds what n bodies need on their way to the screen to *out: the
 * renderer's vertex buffer and tags (GPU memory beside a CUDA simulation,
 * host memory otherwise: a software GL keeps them there), the host copy's
 * staging buffer (host memory, on the host-copy path and the CPU backend)
 * and CUDA's sprites' own copy of the tags and of the vertices (GPU memory,
 * while CUDA may draw the sprites). The `+` key's guard adds this to sim_memory_estimate. */
void interop_memory(const interop *io, bool cuda_backend, int n, sim_memory *out);
/* The renderer's 16-bit tags (sim_get_tags widened, the selection's bits
 * added) for CUDA's sprites, each time they change. */
void interop_tags(interop *io, const uint16_t *tags, int n);
/* Whether CUDA draws the sprites (the zero-copy path, and CUDA's sprites
 * neither refused nor failed). */
bool interop_cuda_sprites(const interop *io);
/* What CUDA's sprites of view are drawn with: the uniforms GL's would get
 * (render_sprite_params_of). */
void interop_splat_view(const render_view *view, splat_view *out);
/* At the end of a frame: the next upload waits for this frame's GL work by
 * polling a fence before the interop map (io_record.c decides when). */
void interop_fence_frame(interop *io);

/* A video's frames through CUDA instead of GL's read-back: the picture -
 * the renderbuffer `picture` (render_picture_renderbuffer; 0: the window's
 * framebuffer, never read in place) or GL's copy of it in rb (a
 * RENDER_READBACK_DEVICE texture), both width x height - is converted to
 * YUV 4:2:0 by video/ when the next frame's upload maps the vertex buffer,
 * in the same map, so the CPU waits for GL no more than it did without a
 * video; the frames then come to pinned host memory on the copy engine.
 * false with *err (nothing kept) where the zero-copy path is off or CUDA
 * refuses the texture: the caller reads back through GL. */
bool interop_video_begin(interop *io, const render_readback *rb, uint32_t picture, int width,
                         int height, video_error *err);
/* The frame's picture is the video's next frame: read in place when
 * in_place (nothing is drawn into the picture before the next upload) and
 * it was registered, else copied by GL into rb first. A frame still
 * waiting is converted first. Needs interop_video_pending < VIDEO_DEPTH. */
void interop_video_push(interop *io, render *r, render_readback *rb, bool in_place);
/* Frames pushed and not released (the one waiting counts), and of those the
 * mapped ones. */
int interop_video_pending(const interop *io);
int interop_video_mapped(const interop *io);
/* video_frames_map on the oldest frame (with wait, a frame still waiting is
 * converted first). false with *err. */
bool interop_video_map(interop *io, bool wait, const uint8_t **data, video_error *err);
void interop_video_release(interop *io);
/* Lets go of the buffer and frees the frames (none may be in use). */
void interop_video_end(interop *io);

#endif /* NBODY_INTEROP_H */
