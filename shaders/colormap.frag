// colormap.frag - the density view: a float picture of surface density (one
// float per pixel, the size of the viewport) through a stretch between
// u_lo and u_hi to 0..1, then the palette (nbody_shared.h). render/
// render_colormap.c repeats this arithmetic in C for the colour bar.
#version 330 core

uniform sampler2D u_map;
uniform float u_lo, u_hi;
uniform int u_stretch; // NBODY_STRETCH_LOG or NBODY_STRETCH_ASINH
out vec4 frag;

const float palette[3 * NBODY_PALETTE_STOPS] = float[](NBODY_PALETTE_INFERNO);

vec3 stop(int i) {
    return vec3(palette[3 * i], palette[3 * i + 1], palette[3 * i + 2]);
}

void main() {
    float v = texelFetch(u_map, ivec2(gl_FragCoord.xy), 0).r;
    float t = 0.0;
    if (v > 0.0) {
        t = u_stretch == NBODY_STRETCH_ASINH ? asinh(v / u_lo) / asinh(u_hi / u_lo)
                                             : log(v / u_lo) / log(u_hi / u_lo);
    }
    float x = clamp(t, 0.0, 1.0) * float(NBODY_PALETTE_STOPS - 1);
    int i = min(int(x), NBODY_PALETTE_STOPS - 2);
    frag = vec4(mix(stop(i), stop(i + 1), x - float(i)), 1.0);
}
