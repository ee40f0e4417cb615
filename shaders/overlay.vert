// overlay.vert - HUD and help text: screen-space quads in framebuffer pixels
// (origin top left), textured from the baked font atlas.
#version 330 core

layout(location = 0) in vec2 a_pos;   // pixels
layout(location = 1) in vec2 a_uv;
layout(location = 2) in vec4 a_color;

uniform vec2 u_screen; // framebuffer size in pixels

out vec2 v_uv;
out vec4 v_color;

void main() {
    vec2 ndc = a_pos / u_screen * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    v_uv = a_uv;
    v_color = a_color;
}
