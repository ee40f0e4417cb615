// bright.frag - the bloom's source: light above a threshold (after
// exposure), averaged over a 4x4 block as the image is downsampled.
#version 330 core

in vec2 v_uv;
uniform sampler2D u_hdr;
uniform vec2 u_texel; // one source texel in uv
uniform float u_exposure;
uniform float u_threshold;
out vec4 frag;

void main() {
    vec3 sum = vec3(0.0);
    for (int y = -1; y <= 2; y++)
        for (int x = -1; x <= 2; x++) sum += texture(u_hdr, v_uv + vec2(x, y) * u_texel).rgb;
    vec3 c = sum / 16.0 * u_exposure;
    float l = max(c.r, max(c.g, c.b));
    frag = vec4(c * max(l - u_threshold, 0.0) / max(l, 1e-6) / u_exposure, 1.0);
}
