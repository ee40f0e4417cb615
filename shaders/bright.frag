// bright.frag - the bloom's source: light above a threshold (after
// exposure), averaged over a 4x4 block as the image is downsampled 4x.
// Four bilinear taps, each at the corner shared by four texels, read the
// 16 texels with equal weights (the filter's weights at a texel corner are
// exactly 1/4): a quarter of the texture reads of one tap per texel. That
// is exact where the picture's size is a multiple of 4; otherwise the
// block's centre falls a fraction of a texel off a corner and the weights
// move by as much.
#version 330 core

in vec2 v_uv;
uniform sampler2D u_hdr;
uniform vec2 u_texel; // one source texel in uv
uniform float u_exposure;
uniform float u_threshold;
out vec4 frag;

void main() {
    // Level 0, named: the float picture has mipmaps (for the automatic
    // exposure), and at a 4x smaller target an implicit level would be 2,
    // a mipmap made only when the exposure is measured (or never).
    // v_uv is the block's centre, a texel corner; the taps are the corners
    // one texel away diagonally, the centres of the block's four 2x2 quads.
    vec3 sum = textureLod(u_hdr, v_uv + vec2(-1.0, -1.0) * u_texel, 0.0).rgb +
               textureLod(u_hdr, v_uv + vec2(1.0, -1.0) * u_texel, 0.0).rgb +
               textureLod(u_hdr, v_uv + vec2(-1.0, 1.0) * u_texel, 0.0).rgb +
               textureLod(u_hdr, v_uv + vec2(1.0, 1.0) * u_texel, 0.0).rgb;
    vec3 c = sum / 4.0 * u_exposure;
    float l = max(c.r, max(c.g, c.b));
    frag = vec4(c * max(l - u_threshold, 0.0) / max(l, 1e-6) / u_exposure, 1.0);
}
