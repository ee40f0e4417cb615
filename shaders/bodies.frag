// bodies.frag - a soft round sprite: a Gaussian profile cut off at the rim,
// added to what is already there (blending is GL_ONE, GL_ONE).
#version 330 core

in vec3 v_color;
out vec4 frag;

void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    float profile = exp(-4.0 * r2);
    frag = vec4(v_color * profile, 1.0);
}
