// overlay.frag - glyph coverage from the atlas times the colour; panels
// sample the atlas's solid texel, so they are plain translucent rectangles.
#version 330 core

in vec2 v_uv;
in vec4 v_color;
uniform sampler2D u_font;
out vec4 frag;

void main() {
    frag = vec4(v_color.rgb, v_color.a * texture(u_font, v_uv).r);
}
