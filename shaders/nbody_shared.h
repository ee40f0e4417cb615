/* nbody_shared.h - the constants that C, CUDA and GLSL must agree on, in one
 * place: the layout of the tag of a body (with its fade and selection bits),
 * the colour modes and their colours, the density view's palette and
 * stretches, and the default vertical field of view.
 *
 * Why one file read three ways: C and CUDA include it (sim/sim.h,
 * snap/snap.h, render/render.h, splat/splat_math.h), and the shader loader
 * of render (render/render_gl.c) inserts its text after the version line of
 * every shader it compiles, so that the shaders use the same names
 * and no number is typed twice. It sits with the shaders because the
 * program reads it at run time from the shader folder next to the binary.
 *
 * What it may hold: the common subset of C, C++ and GLSL 330 - comments in
 * plain ASCII without quote marks, include guards, and defines of integer
 * or floating literals or lists of them (a u suffix where GLSL compares
 * them with a uint, as GLSL 330 does not convert int to uint).
 */
#ifndef NBODY_SHARED_H
#define NBODY_SHARED_H

/* The tag of a body (SIM_TAG in sim/sim.h): its galaxy in bits 0-1, its
 * component in bits 2-3. */
#define NBODY_TAG_GALAXY_MASK 3u
#define NBODY_TAG_COMPONENT_SHIFT 2u
#define NBODY_TAG_COMPONENT_MASK 3u

/* A fade level in bits 4-7 of the tag: brightness 1 - level / 15 (0: as
 * bright as any body, 15: dark). Only a snapshot series' playback sets it,
 * for bodies in one of the two snapshots around the play time (they fade in
 * or out); bodies.vert and splat/ dim the sprite by it. */
#define NBODY_TAG_FADE_SHIFT 4u
#define NBODY_TAG_FADE_MASK 15u

/* The simulation's tags are 8 bits (the fields above). The renderer's copy
 * of them (GL's tag attribute, CUDA's sprites) is 16 bits: those 8 and the
 * selection's, which app_select.c sets in the renderer's copy only, above
 * bit 7, so they never meet a fade level (its _Static_asserts check): bits
 * 8-10 the selection set a body is drawn in (1-6, 0 none), drawn in that
 * set's colour; bit 11 a body in no set while sets are shown, its light
 * times NBODY_SET_DIM. */
#define NBODY_TAG_SET_SHIFT 8u
#define NBODY_TAG_SET_MASK 7u
#define NBODY_TAG_DIM 2048u
#define NBODY_SET_DIM 0.2

/* The components inside a tag (sim_component). */
#define NBODY_COMPONENT_DISK 0u
#define NBODY_COMPONENT_BULGE 1u
#define NBODY_COMPONENT_HALO 2u

/* How the sprites are coloured: render_color in render/render.h, the int
 * uniform u_color_mode of shaders/bodies.vert, splat_view.color. */
#define NBODY_COLOR_SPEED 0     /* cool to hot with speed */
#define NBODY_COLOR_BODY 1      /* a fixed colour per body index */
#define NBODY_COLOR_GALAXY 2    /* galaxy of origin */
#define NBODY_COLOR_COMPONENT 3 /* disk, bulge, halo */
/* The modes of a quantity (app/app_colour.c): the app writes each body's
 * place in its range, 0 to 1, over the vertex's speed, and the sprites draw
 * it with the speed palette (cold to mid to hot). NBODY_COLOR_QUANTITY is
 * the first of them. */
#define NBODY_COLOR_DENSITY 4   /* local projected surface density, log */
#define NBODY_COLOR_RADIAL 5    /* radial velocity about its galaxy's centre */
#define NBODY_COLOR_POTENTIAL 6 /* gravitational potential */
#define NBODY_COLOR_QUANTITY NBODY_COLOR_DENSITY

/* The colours of the modes, red, green and blue from 0 to 1: bodies.vert
 * draws with them, splat/ repeats its arithmetic, the HUD's legend shows
 * them (vec3(NBODY_RGB_DISK) in GLSL, {NBODY_RGB_DISK} in C). Speed runs
 * cold to mid to hot; galaxy 1 amber, galaxy 2 sky blue (apart on a
 * projector and for common colour-vision deficiencies); disk blue-white,
 * bulge gold, halo a violet dimmed by NBODY_HALO_DIM. */
#define NBODY_RGB_SPEED_COLD 0.25, 0.45, 1.0
#define NBODY_RGB_SPEED_MID 0.95, 0.95, 1.0
#define NBODY_RGB_SPEED_HOT 1.0, 0.55, 0.2
#define NBODY_RGB_GALAXY_1 1.0, 0.62, 0.28
#define NBODY_RGB_GALAXY_2 0.32, 0.66, 1.0
#define NBODY_RGB_DISK 0.55, 0.72, 1.0
#define NBODY_RGB_BULGE 1.0, 0.78, 0.4
#define NBODY_RGB_HALO 0.55, 0.4, 0.8
#define NBODY_HALO_DIM 0.3
/* The selection sets' colours, set 1 to 6: green, magenta, yellow, cyan,
 * red, white (apart from the palettes above and from each other). */
#define NBODY_RGB_SET_1 0.3, 1.0, 0.35
#define NBODY_RGB_SET_2 1.0, 0.3, 0.9
#define NBODY_RGB_SET_3 1.0, 0.92, 0.2
#define NBODY_RGB_SET_4 0.2, 0.95, 1.0
#define NBODY_RGB_SET_5 1.0, 0.3, 0.25
#define NBODY_RGB_SET_6 1.0, 1.0, 1.0

/* The density view's palette (shaders/colormap.frag, the colour bar):
 * NBODY_PALETTE_STOPS colours, red, green and blue from 0 to 1, evenly
 * spaced from the bottom of the range to its top and linearly interpolated
 * between; sampled from matplotlib inferno (perceptually uniform, black
 * at the bottom so an empty sky stays dark). In pieces: GLSL 330 has no
 * line continuations. */
#define NBODY_PALETTE_STOPS 9
#define NBODY_INFERNO_0 0.001462, 0.000466, 0.013866
#define NBODY_INFERNO_1 0.087411, 0.044556, 0.224813
#define NBODY_INFERNO_2 0.258234, 0.038571, 0.406485
#define NBODY_INFERNO_3 0.416331, 0.090834, 0.432943
#define NBODY_INFERNO_4 0.578304, 0.148039, 0.404411
#define NBODY_INFERNO_5 0.735683, 0.215906, 0.330245
#define NBODY_INFERNO_6 0.865006, 0.316822, 0.226055
#define NBODY_INFERNO_7 0.954506, 0.468744, 0.099874
#define NBODY_INFERNO_8 0.988362, 0.998364, 0.644924
#define NBODY_INFERNO_LOW NBODY_INFERNO_0, NBODY_INFERNO_1, NBODY_INFERNO_2, NBODY_INFERNO_3
#define NBODY_INFERNO_HIGH NBODY_INFERNO_4, NBODY_INFERNO_5, NBODY_INFERNO_6, NBODY_INFERNO_7
#define NBODY_PALETTE_INFERNO NBODY_INFERNO_LOW, NBODY_INFERNO_HIGH, NBODY_INFERNO_8

/* The density view's stretches (render_stretch, u_stretch of colormap.frag). */
#define NBODY_STRETCH_LOG 0   /* log(v / lo) / log(hi / lo) */
#define NBODY_STRETCH_ASINH 1 /* asinh(v / lo) / asinh(hi / lo): linear below lo */

/* The default vertical field of view of the camera, radians (45 degrees). */
#define NBODY_FOV_Y_DEFAULT 0.78539816339744831

#endif /* NBODY_SHARED_H */
