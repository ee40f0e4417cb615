// tonemap.frag - HDR light to display colour. Sprites add up in a float
// framebuffer; here exposure scales it and a Reinhard curve on the brightest
// channel, m / (1 + m), rolls it off while keeping each pixel's hue: a core
// where thousands of sprites pile up keeps its colour and approaches full
// brightness gradually instead of clipping to white, and faint outskirts
// stay visible. Bloom adds a blurred copy of the brightest light first.
#version 330 core

in vec2 v_uv;
uniform sampler2D u_hdr;
uniform sampler2D u_bloom;
uniform float u_exposure;
uniform float u_bloom_strength; // 0: no bloom
out vec4 frag;

void main() {
    vec3 hdr = texture(u_hdr, v_uv).rgb;
    if (u_bloom_strength > 0.0) hdr += u_bloom_strength * texture(u_bloom, v_uv).rgb;
    vec3 c = hdr * u_exposure;
    float m = max(c.r, max(c.g, c.b));
    c *= m > 0.0 ? (1.0 / (1.0 + m)) : 1.0;
    frag = vec4(pow(c, vec3(1.0 / 1.2)), 1.0); // lift the faint outskirts a little
}
