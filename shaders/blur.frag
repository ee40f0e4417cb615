// blur.frag - one direction of a separable 9-tap Gaussian (sigma ~ 2 texels)
// in 5 texture reads: the centre, and each pair of neighbouring taps (1 and
// 2, 3 and 4, on either side) as one bilinear read placed between them so
// that the filter's split gives the two taps' weights (Rakos's "linear
// sampling"). The hardware's filter weights have 8 fractional bits, so each
// pair's split is within 1/512 of the exact one.
#version 330 core

in vec2 v_uv;
uniform sampler2D u_src;
uniform vec2 u_step; // one texel along the blur direction, in uv
out vec4 frag;

// The 9 taps' weights: 0.2270 (centre), 0.1946, 0.1216, 0.0541, 0.0162.
// Pairs: weight w1 + w2 at offset (1 w1 + 2 w2) / (w1 + w2), likewise 3 and 4.
const float W0 = 0.2270, W12 = 0.1946 + 0.1216, W34 = 0.0541 + 0.0162;
const float O12 = (1.0 * 0.1946 + 2.0 * 0.1216) / W12;
const float O34 = (3.0 * 0.0541 + 4.0 * 0.0162) / W34;

void main() {
    vec3 c = texture(u_src, v_uv).rgb * W0;
    c += (texture(u_src, v_uv + u_step * O12).rgb + texture(u_src, v_uv - u_step * O12).rgb) * W12;
    c += (texture(u_src, v_uv + u_step * O34).rgb + texture(u_src, v_uv - u_step * O34).rgb) * W34;
    frag = vec4(c, 1.0);
}
