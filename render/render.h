/* render.h - public API of the render module: OpenGL 3.3 core drawing.
 *
 * What it does: draws N bodies as soft point sprites from one vertex buffer,
 * through an orbit camera (cglm matrices), adding their light in a float
 * (HDR) framebuffer that a tone map with an exposure - set or automatic -
 * and an optional bloom turn into the picture, in the window's framebuffer
 * or an offscreen one (headless); reads pixels back for screenshots; draws
 * text overlays and wire boxes (the tree's cells). Shaders are files in
 * shaders/, found at run time.
 *
 * What it does not do: no kernels, no CUDA, no windows or contexts (app/
 * makes the context current before render_create), no simulation. The body
 * buffer's GL name is handed out so app/interop/interop.c can register it with
 * CUDA; that file is the only place the two meet.
 *
 * Needs a current OpenGL 3.3 core context for every call.
 */
#ifndef NBODY_RENDER_H
#define NBODY_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nbody_shared.h" /* colour modes and field of view, shared with the shaders */

typedef struct render render;

/* One body in the vertex buffer: position and speed (16 bytes). */
typedef struct render_vertex {
    float x, y, z;
    float speed;
} render_vertex;

typedef struct render_desc {
    const char *shader_dir; /* folder holding the renderer's shaders and nbody_shared.h; required */
    int offscreen_width;    /* > 0: draw into an offscreen framebuffer of this size */
    int offscreen_height;
} render_desc;

/* An orbit camera around a target point. */
typedef struct render_camera {
    float target[3];
    float distance; /* from the target, length units */
    float yaw;      /* radians about +z */
    float pitch;    /* radians above the x-y plane */
    float fov_y;    /* radians; 0 -> NBODY_FOV_Y_DEFAULT (45 degrees) */
} render_camera;

/* How bodies are coloured; the numbers are shaders/nbody_shared.h's, which
 * bodies.vert compares u_color_mode with. */
typedef enum render_color {
    /* cool to hot with speed */
    RENDER_COLOR_SPEED = NBODY_COLOR_SPEED,
    /* a fixed colour per body (its index), to follow individuals */
    RENDER_COLOR_BODY = NBODY_COLOR_BODY,
    /* galaxy of origin: amber and sky blue */
    RENDER_COLOR_GALAXY = NBODY_COLOR_GALAXY,
    /* disk blue-white, bulge gold, halo faint violet */
    RENDER_COLOR_COMPONENT = NBODY_COLOR_COMPONENT,
    /* The modes of a quantity: the vertex's 4th float holds the body's
     * place in the quantity's range (0..1, app/app_colour.c), not its speed. */
    RENDER_COLOR_DENSITY = NBODY_COLOR_DENSITY,     /* local projected density */
    RENDER_COLOR_RADIAL = NBODY_COLOR_RADIAL,       /* radial velocity */
    RENDER_COLOR_POTENTIAL = NBODY_COLOR_POTENTIAL, /* potential */
    RENDER_COLOR_COUNT
} render_color;

/* The mode in words, as the HUD and the keys say it: "speed", "per body",
 * "galaxy", "component", "density", "radial velocity", "potential". */
const char *render_color_name(render_color c);

/* What one frame looks like. Zero means default where noted. */
typedef struct render_view {
    int fb_width, fb_height; /* framebuffer pixels (not window units: HiDPI) */
    render_camera camera;
    float point_size;  /* sprite diameter in length units; 0 -> 0.02 */
    float brightness;  /* per-sprite intensity; 0 -> 0.6 */
    float speed_scale; /* speed mapped to the hot end of the palette; 0 -> 1 */
    render_color color;
    bool hide_halo;     /* skip bodies tagged as dark halo */
    float exposure;     /* multiplies the HDR light before the tone map; 0 -> 1 */
    bool auto_exposure; /* adapt exposure to the brightest part of the picture */
    bool bloom;         /* glow around the brightest light */
    /* The lens (an off-centre projection, the camera unmoved): the picture is
     * scaled by frame_scale about the framebuffer's centre and shifted so the
     * camera's target lands at frame_center_px (framebuffer pixels from the
     * top left) - the app fits the view to the part of the window its HUD
     * leaves free. Bodies and boxes use the same lens. frame_scale 0: no
     * lens (scale 1, the target at the centre; frame_center_px unused). */
    float frame_scale;
    float frame_center_px[2];
    /* The float picture already holds this frame's sprites, drawn by CUDA
     * (splat/) into render_sprite_picture's texture at this size: the frame
     * neither clears it nor draws sprites, and goes on from there. With
     * sprites_source, CUDA drew them into render_sprite_source's texture
     * of slot sprites_slot instead, which the frame reads in place. */
    bool sprites_drawn;
    bool sprites_source;
    int sprites_slot;
} render_view;

/* What the sprite pass draws with for a view: the uniforms of
 * shaders/bodies.vert, as render_frame sets them. For drawing the same
 * sprites elsewhere (app/interop/interop.c hands them to CUDA's, splat/). */
typedef struct render_sprite_params {
    int width, height;        /* the framebuffer's pixels */
    float view[16], proj[16]; /* column-major (cglm), the lens included */
    float point_px;           /* pixels covered by a sprite of diameter 1 at distance 1 */
    float speed_scale, brightness;
    render_color color;
    bool hide_halo;
} render_sprite_params;

void render_sprite_params_of(const render_view *view, render_sprite_params *out);

typedef struct render_error {
    char message[512]; /* every module's error has these sizes: one fits another */
    char hint[256];
} render_error;

/* Loads GL entry points (GLEW), compiles the shaders and makes the buffers
 * (offscreen: also the framebuffers of that size). Returns NULL on failure
 * (missing or broken shader file, no GL 3.3, an offscreen size GL cannot
 * hold) with *err filled. */
render *render_create(const render_desc *desc, render_error *err);
void render_destroy(render *r);

/* Makes room for n bodies in the vertex buffer (contents undefined). When n
 * exceeds render_body_capacity the buffer object is replaced by a new one
 * with a new name (render_body_buffer), so an interop registration of the
 * old one is stale: let go of it first. Returns false with *err filled (GL
 * out of memory), keeping the old buffer. */
bool render_reserve_bodies(render *r, int n, render_error *err);

/* Bodies the vertex buffer holds now. */
int render_body_capacity(const render *r);

/* The GL name of the body vertex buffer (for CUDA-GL interop). */
uint32_t render_body_buffer(const render *r);

/* Host path: copies n vertices into the body buffer. */
void render_upload_bodies(render *r, const render_vertex *v, int n);

/* Per-body tags for the palettes and for hiding the halo: the renderer's
 * 16 bits (shaders/nbody_shared.h), the simulation's tag (galaxy, component,
 * fade level) and the selection's bits above it; they change when the
 * bodies or the selections do. */
void render_upload_tags(render *r, const uint16_t *tags, int n);

/* The float (RGBA16F, GL_TEXTURE_2D) picture that the next render_frame of
 * a width x height view adds its sprites into - the renderer's own, with
 * no render_target bound - made at that size now: its GL name, for CUDA to
 * draw the sprites into instead (render_view.sprites_drawn). Only this and
 * render_frame at another size replace it (the same name may come back for
 * the new texture): an interop registration must be let go before a call
 * at another size. 0 with *err when GL cannot make it. */
uint32_t render_sprite_picture(render *r, int width, int height, render_error *err);
/* The same for one of RENDER_SOURCE_SLOTS plain float textures (RGBA16F,
 * no mipmaps, which the picture has for the automatic exposure) that CUDA
 * may draw the sprites into instead, one frame into one and the next into
 * the other: render_frame reads the one render_view.sprites_slot names in
 * place of the picture when render_view.sprites_source says so (and copies
 * it into the picture for the automatic exposure). An EGL image can be
 * made of them, not of the picture. The same rules of size and
 * replacement, slot by slot. */
#define RENDER_SOURCE_SLOTS 2
uint32_t render_sprite_source(render *r, int slot, int width, int height, render_error *err);

/* Clears and draws n bodies with view: sprites add up in a float
 * framebuffer, then bloom and the tone map write the final image. Returns
 * false, having drawn nothing, when GL cannot make the float framebuffer at
 * this size (out of memory); a bloom GL cannot make is left out. For an
 * offscreen render of the size given to render_create it cannot fail. */
bool render_frame(render *r, const render_view *view, int n);

/* The exposure the last frame used (the automatic one when it is on). */
float render_exposure(const render *r);

/* Reads the last frame as tightly packed RGBA8, top row first, into
 * rgba[width * height * 4]. */
void render_read_pixels(render *r, int width, int height, uint8_t *rgba);

/* Human-readable GL renderer and version strings ("llvmpipe ...", "4.5 ..."). */
const char *render_gl_renderer(void);
const char *render_gl_version(void);

/* The widest and tallest image the current GL context can draw into: the
 * least of its largest renderbuffer, texture and viewport. Whether one of
 * that size fits in its memory is another matter (render_create says). */
int render_gl_max_image(void);

/* ------------------------------------------------------------------------ */
/* Overlay: text and translucent panels drawn over the scene (HUD, help).
 * Coordinates are framebuffer pixels, origin at the top left. */

typedef struct render_overlay render_overlay;

typedef struct render_overlay_desc {
    const char *shader_dir; /* overlay.vert and overlay.frag; required */
    const char *font_path;  /* a TrueType font; required */
    float font_px;          /* glyph pixel height; 0 -> 18 */
} render_overlay_desc;

/* NULL on failure (missing font or shader) with *err filled. */
render_overlay *render_overlay_create(const render_overlay_desc *desc, render_error *err);
void render_overlay_destroy(render_overlay *o);
/* Re-packs the font at a new pixel height (HiDPI, projector); clamped to 8..96. */
void render_overlay_set_font_px(render_overlay *o, float px);
float render_overlay_font_px(const render_overlay *o); /* as baked, after the clamp */
float render_overlay_line_height(const render_overlay *o);
float render_overlay_text_width(const render_overlay *o, const char *utf8);
/* Collects quads for one frame of size fb_w x fb_h... */
void render_overlay_begin(render_overlay *o, int fb_w, int fb_h);
void render_overlay_rect(render_overlay *o, float x, float y, float w, float h,
                         const float rgba[4]);
/* Text whose line box starts at (x, y); returns the x where it ends. */
float render_overlay_text(render_overlay *o, float x, float y, const float rgba[4],
                          const char *utf8);
/* ... and draws them into the bound framebuffer. */
void render_overlay_end(render_overlay *o);
/* The box (x, y, w, h) around every rectangle and glyph drawn since the last
 * render_overlay_extent_reset, through any number of begin/end pairs; w and
 * h 0 when nothing was: where an overlay drew, so that another can keep
 * clear of it. */
void render_overlay_extent_reset(render_overlay *o);
void render_overlay_extent(const render_overlay *o, float box[4]);

/* ------------------------------------------------------------------------ */
/* Colour map: the density view's float picture (one float per pixel, row 0
 * at the bottom) drawn through a stretch and a palette (render_colormap.c,
 * shaders/colormap.frag) into the output of r: what the tone map writes in
 * the sprites' view. */

typedef struct render_colormap render_colormap;

typedef enum render_stretch {
    RENDER_STRETCH_LOG = NBODY_STRETCH_LOG,     /* log(v / lo) / log(hi / lo) */
    RENDER_STRETCH_ASINH = NBODY_STRETCH_ASINH, /* asinh(v / lo) / asinh(hi / lo) */
    RENDER_STRETCH_COUNT
} render_stretch;

/* What values the palette spans: lo at its bottom (0 and below too), hi at
 * its top (and above). 0 < lo < hi. */
typedef struct render_colormap_range {
    float lo, hi;
    render_stretch stretch;
} render_colormap_range;

typedef struct render_colormap_desc {
    const char *shader_dir; /* fullscreen.vert and colormap.frag; required */
} render_colormap_desc;

/* NULL on failure (missing or broken shader, out of memory) with *err filled. */
render_colormap *render_colormap_create(const render_colormap_desc *desc, render_error *err);
void render_colormap_destroy(render_colormap *c);
/* Uploads map (width x height floats) and draws it over the whole output of
 * r (the bound render_target, the offscreen target or the window), which
 * must be width x height. false with *err (GL out of memory), nothing drawn. */
bool render_colormap_draw(render_colormap *c, render *r, const float *map, int width, int height,
                          const render_colormap_range *range, render_error *err);
/* Where value falls in the palette, 0..1, as the shader computes it. */
float render_colormap_t(const render_colormap_range *range, float value);
/* The palette's colour at t (0..1, clamped), as the shader computes it. */
void render_colormap_rgb(float t, float rgb[3]);
const char *render_stretch_name(render_stretch s); /* "log", "asinh" */

/* ------------------------------------------------------------------------ */
/* Boxes: wire cubes over the scene (the tree code's cells), through the
 * view's camera, blended into the bound framebuffer after the tone map. */

typedef struct render_boxes render_boxes;

typedef struct render_boxes_desc {
    const char *shader_dir; /* boxes.vert and boxes.frag; required */
} render_boxes_desc;

/* One cube: centre, half its side, and its level (0 the root: drawn
 * brightest; deeper levels fade). */
typedef struct render_box {
    float center[3];
    float half;
    float level;
} render_box;

/* NULL on failure (missing or broken shader) with *err filled. */
render_boxes *render_boxes_create(const render_boxes_desc *desc, render_error *err);
void render_boxes_destroy(render_boxes *b);
/* Draws count boxes with view's camera and framebuffer size; false with
 * *err (GL out of memory) having drawn nothing. */
bool render_boxes_draw(render_boxes *b, const render_view *view, const render_box *boxes, int count,
                       render_error *err);

/* ------------------------------------------------------------------------ */
/* Targets and read-back, for videos: a picture of a size of its own (drawn
 * by the same render_frame as the window, e.g. 1920x1080 from a 1280x720
 * window) and a ring of pixel-pack buffers that reads frames back without
 * waiting for the GPU, as drawn or converted to YUV 4:2:0 on the GPU
 * (render_readback.c). */

typedef struct render_target render_target;

/* An offscreen RGBA8 picture of width x height with float framebuffers of
 * its own: the HDR one made now, the bloom's at the first bloomed frame.
 * NULL with *err when GL cannot hold that size. */
render_target *render_target_create(int width, int height, render_error *err);
/* Unbinds t from r first when it is bound there (r may be NULL: never bound). */
void render_target_destroy(render *r, render_target *t);
/* Where the next render_frame, the overlays and boxes drawn after it,
 * render_read_pixels and render_readback_push go: t (draw it with a view of
 * t's size), or NULL for the window (or render_create's offscreen target). */
void render_bind_target(render *r, render_target *t);
/* The GL renderbuffer (RGBA8) that holds t's picture, or r's own when t is
 * NULL; 0 when that is the window's framebuffer. For CUDA to read a
 * picture where it was drawn, without a copy (app/interop/interop.c). */
uint32_t render_picture_renderbuffer(const render *r, const render_target *t);

typedef struct render_readback render_readback;

/* Buffers in the ring: frames pushed and not yet released. */
#define RENDER_READBACK_DEPTH 4

typedef enum render_readback_format {
    RENDER_READBACK_RGBA = 0, /* width x height x 4 bytes, as drawn (PNG sequences) */
    RENDER_READBACK_YUV420,   /* planar YUV 4:2:0, BT.709 limited range, top row first, of
                                 the even part of the picture: 1.5 bytes a pixel (videos) */
    RENDER_READBACK_DEVICE,   /* the picture copied into one RGBA8 texture on the GPU, for
                                 CUDA to read (render_readback_texture): no ring, no map;
                                 each push overwrites the last */
} render_readback_format;

typedef struct render_readback_desc {
    int width, height; /* the picture's; required */
    render_readback_format format;
    const char *shader_dir; /* holds yuv420.frag; required for YUV420 */
} render_readback_desc;

/* A ring of RENDER_READBACK_DEPTH buffers; NULL with *err (GL out of
 * memory, a YUV420 picture under 2x2, the shader missing). */
render_readback *render_readback_create(const render_readback_desc *desc, render_error *err);
/* Releases mapped frames and drops queued ones. */
void render_readback_destroy(render_readback *rb);
/* DEVICE: the GL texture (GL_TEXTURE_2D, RGBA8, width x height) each push
 * copies the picture into. */
uint32_t render_readback_texture(const render_readback *rb);
/* Queues a copy (YUV420: the conversion) of the lower-left width x height
 * pixels of what r drew last (its bound target) into the next buffer and
 * returns at once, GL's state as it was. false when every buffer holds a
 * frame not yet released (never for DEVICE, whose one buffer is
 * overwritten: its reader must be done with it). */
bool render_readback_push(render *r, render_readback *rb);
/* Frames pushed and not yet released, and of those the mapped ones. */
int render_readback_pending(const render_readback *rb);
int render_readback_mapped(const render_readback *rb);
/* Maps the oldest pushed frame not mapped yet: *data its bytes (RGBA bottom
 * row first, YUV420 top row first), valid on any thread until it is
 * released; NULL when there is none or, without wait, when the GPU has not
 * finished its copy. false with *err when the buffer cannot be mapped. */
bool render_readback_map(render_readback *rb, bool wait, const uint8_t **data, render_error *err);
/* Unmaps the oldest mapped frame; its buffer takes pushes again. */
void render_readback_release(render_readback *rb);
/* RGBA, none mapped: maps the oldest frame (waiting for the GPU if it must),
 * copies it top row first (as render_read_pixels) into rgba[width * height *
 * 4] and releases it. false with *err when nothing is pending or the buffer
 * cannot be mapped. */
bool render_readback_pop(render_readback *rb, uint8_t *rgba, render_error *err);

/* Hands the GL commands queued so far to the GPU now (glFlush) instead of
 * when the driver's buffer fills or something waits for them. */
void render_flush(render *r);

/* ------------------------------------------------------------------------ */
/* The GPU time of GL work (render_timer.c), for --profile: timer queries
 * read a few frames later, so timing never makes the CPU wait. */

typedef struct render_timer render_timer;

/* NULL when out of host memory. */
render_timer *render_timer_create(void);
void render_timer_destroy(render_timer *t);
/* Brackets GL commands (not nested); a pair whose query slot is still busy
 * is skipped, not waited for. */
void render_timer_begin(render_timer *t);
void render_timer_end(render_timer *t);
/* The GPU milliseconds summed over the pairs timed so far, and how many
 * there were; with wait, every pair ended so far is included (waits). */
void render_timer_result(render_timer *t, bool wait, double *ms, long *count);

#endif /* NBODY_RENDER_H */
