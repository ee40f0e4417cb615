// bodies.vert - one body per vertex, drawn as a point sprite.
// Sprite size is a world-space diameter projected to framebuffer pixels, so
// it shrinks with distance and fills HiDPI framebuffers the same way. Sprites
// clamped to the minimum size are dimmed so total light is conserved. The
// tag (galaxy in bits 0-1, component in bits 2-3) picks palettes and hides
// the dark halo when asked; its fade level (bits 4-7, a series' playback)
// dims the sprite; the renderer's selection bits (8-11, NBODY_TAG_SET_SHIFT)
// draw a body in its set's colour, or dim one in no set. The NBODY_ names
// come from nbody_shared.h, which the loader (render/render_gl.c) inserts after the version line.
#version 330 core

layout(location = 0) in vec4 a_body; // x, y, z, speed (or 0..1 in a quantity's range)
layout(location = 1) in uint a_tag;  // the renderer's 16-bit tag (nbody_shared.h)

uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_point_px;    // pixels covered by a sprite of diameter 1 at distance 1
uniform float u_speed_scale; // speed at the hot end of the palette
uniform float u_brightness;
uniform int u_color_mode;    // render_color: NBODY_COLOR_SPEED, _BODY, _GALAXY, _COMPONENT, ...
uniform bool u_hide_halo;

out vec3 v_color;

const float MIN_PX = 1.5;
const float MAX_PX = 96.0;

vec3 speed_palette(float t) {
    // cool blue -> white -> warm orange
    vec3 cold = vec3(NBODY_RGB_SPEED_COLD), mid = vec3(NBODY_RGB_SPEED_MID),
         hot = vec3(NBODY_RGB_SPEED_HOT);
    return t < 0.5 ? mix(cold, mid, t * 2.0) : mix(mid, hot, t * 2.0 - 1.0);
}

// A stable, saturated colour per body index, to follow individuals.
vec3 body_color(int i) {
    uint h = uint(i) * 2654435761u;
    h ^= h >> 15;
    float hue = float(h & 1023u) / 1024.0;
    vec3 k = clamp(abs(fract(hue + vec3(0.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - 3.0) - 1.0, 0.0, 1.0);
    return mix(vec3(1.0), k, 0.7);
}

// Galaxy 1 amber, galaxy 2 sky blue (they stay apart on a projector and
// for common colour-vision deficiencies); bulges whiter, halos faint.
vec3 galaxy_color(uint galaxy, uint component) {
    vec3 c = galaxy == 0u ? vec3(NBODY_RGB_GALAXY_1) : vec3(NBODY_RGB_GALAXY_2);
    if (component == NBODY_COMPONENT_BULGE) c = mix(c, vec3(1.0, 0.95, 0.85), 0.55);
    if (component == NBODY_COMPONENT_HALO) c = mix(c, vec3(0.5), 0.6) * NBODY_HALO_DIM;
    return c;
}

vec3 component_color(uint component) {
    if (component == NBODY_COMPONENT_DISK) return vec3(NBODY_RGB_DISK);
    if (component == NBODY_COMPONENT_BULGE) return vec3(NBODY_RGB_BULGE);
    return vec3(NBODY_RGB_HALO) * NBODY_HALO_DIM;
}

// The selection set k's colour (1-6).
vec3 set_color(uint k) {
    if (k == 1u) return vec3(NBODY_RGB_SET_1);
    if (k == 2u) return vec3(NBODY_RGB_SET_2);
    if (k == 3u) return vec3(NBODY_RGB_SET_3);
    if (k == 4u) return vec3(NBODY_RGB_SET_4);
    if (k == 5u) return vec3(NBODY_RGB_SET_5);
    return vec3(NBODY_RGB_SET_6);
}

void main() {
    uint galaxy = a_tag & NBODY_TAG_GALAXY_MASK;
    uint component = (a_tag >> NBODY_TAG_COMPONENT_SHIFT) & NBODY_TAG_COMPONENT_MASK;
    if (u_hide_halo && component == NBODY_COMPONENT_HALO) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: not drawn
        gl_PointSize = 1.0;
        v_color = vec3(0.0);
        return;
    }
    vec4 eye = u_view * vec4(a_body.xyz, 1.0);
    gl_Position = u_proj * eye;
    float depth = max(-eye.z, 1e-4);
    float px = u_point_px / depth;
    float dim = px < MIN_PX ? (px * px) / (MIN_PX * MIN_PX) : 1.0;
    gl_PointSize = clamp(px, MIN_PX, MAX_PX);
    vec3 c;
    if (u_color_mode == NBODY_COLOR_BODY) c = body_color(gl_VertexID);
    else if (u_color_mode == NBODY_COLOR_GALAXY) c = galaxy_color(galaxy, component);
    else if (u_color_mode == NBODY_COLOR_COMPONENT) c = component_color(component);
    else if (u_color_mode >= NBODY_COLOR_QUANTITY) c = speed_palette(clamp(a_body.w, 0.0, 1.0));
    else c = speed_palette(clamp(a_body.w / u_speed_scale, 0.0, 1.0));
    uint set = (a_tag >> NBODY_TAG_SET_SHIFT) & NBODY_TAG_SET_MASK;
    if (set != 0u) c = set_color(set);
    if ((a_tag & NBODY_TAG_DIM) != 0u) c *= NBODY_SET_DIM;
    float fade = float((a_tag >> NBODY_TAG_FADE_SHIFT) & NBODY_TAG_FADE_MASK);
    v_color = c * u_brightness * dim * (1.0 - fade / float(NBODY_TAG_FADE_MASK));
}
