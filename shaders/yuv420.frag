// yuv420.frag - a picture as planar YUV 4:2:0 (BT.709, limited range), for
// videos: the GPU converts and flips, so 1.5 bytes a pixel come back instead
// of 4 and the CPU only hands them on.
//
// The target is one byte per texel, u_size.x wide and u_size.y * 3 / 2
// high, read back bottom row first, so texel (x, y) is byte y * W + x of the
// frame: the Y plane (W x H) from the top row of the picture down, then U and
// V (W/2 x H/2 each), each a 2 x 2 average of the picture. u_size is the
// frame (even); u_src_height is the picture's own height, whose GL row 0 is
// its bottom: an odd height loses its bottom row, an odd width its last
// column, as the encoder always did.
#version 330 core

uniform sampler2D u_src; // RGBA8, as drawn
uniform ivec2 u_size;
uniform int u_src_height;
out float frag;

const vec3 LUMA = vec3(0.2126, 0.7152, 0.0722); // BT.709

// The picture's pixel x, y counted from its top row.
vec3 pixel(int x, int y) {
    return texelFetch(u_src, ivec2(x, u_src_height - 1 - y), 0).rgb;
}

void main() {
    int w = u_size.x, h = u_size.y;
    int i = int(gl_FragCoord.y) * w + int(gl_FragCoord.x); // the byte of the frame
    if (i < w * h) {
        frag = (16.0 + 219.0 * dot(pixel(i % w, i / w), LUMA)) / 255.0;
        return;
    }
    int k = i - w * h, cw = w / 2, plane = w * h / 4;
    bool v = k >= plane;
    if (v) k -= plane;
    int cx = 2 * (k % cw), cy = 2 * (k / cw);
    vec3 c = 0.25 * (pixel(cx, cy) + pixel(cx + 1, cy) + pixel(cx, cy + 1) + pixel(cx + 1, cy + 1));
    float y = dot(c, LUMA);
    float d = v ? (c.r - y) / 1.5748 : (c.b - y) / 1.8556; // Cr or Cb in -0.5 .. 0.5
    frag = (128.0 + 224.0 * d) / 255.0;
}
