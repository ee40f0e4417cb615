// bodies.vert - one body per vertex, drawn as a point sprite.
// Sprite size is a world-space diameter projected to framebuffer pixels, so
// it shrinks with distance and fills HiDPI framebuffers the same way. Sprites
// clamped to the minimum size are dimmed so total light is conserved.
#version 330 core

layout(location = 0) in vec4 a_body; // x, y, z, speed

uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_point_px;    // pixels covered by a sprite of diameter 1 at distance 1
uniform float u_speed_scale; // speed at the hot end of the palette
uniform float u_brightness;
uniform int u_color_mode;    // 0 speed, 1 per body (render_color)

out vec3 v_color;

const float MIN_PX = 1.5;
const float MAX_PX = 96.0;

vec3 palette(float t) {
    // cool blue -> white -> warm orange
    vec3 cold = vec3(0.25, 0.45, 1.0), mid = vec3(0.95, 0.95, 1.0), hot = vec3(1.0, 0.55, 0.2);
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

void main() {
    vec4 eye = u_view * vec4(a_body.xyz, 1.0);
    gl_Position = u_proj * eye;
    float depth = max(-eye.z, 1e-4);
    float px = u_point_px / depth;
    float dim = px < MIN_PX ? (px * px) / (MIN_PX * MIN_PX) : 1.0;
    gl_PointSize = clamp(px, MIN_PX, MAX_PX);
    vec3 c = u_color_mode == 1 ? body_color(gl_VertexID)
                               : palette(clamp(a_body.w / u_speed_scale, 0.0, 1.0));
    v_color = c * u_brightness * dim;
}
