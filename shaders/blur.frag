// blur.frag - one direction of a separable 9-tap Gaussian (sigma ~ 2 texels).
#version 330 core

in vec2 v_uv;
uniform sampler2D u_src;
uniform vec2 u_step; // one texel along the blur direction, in uv
out vec4 frag;

const float W[5] = float[](0.2270, 0.1946, 0.1216, 0.0541, 0.0162);

void main() {
    vec3 c = texture(u_src, v_uv).rgb * W[0];
    for (int i = 1; i < 5; i++) {
        c += texture(u_src, v_uv + u_step * float(i)).rgb * W[i];
        c += texture(u_src, v_uv - u_step * float(i)).rgb * W[i];
    }
    frag = vec4(c, 1.0);
}
