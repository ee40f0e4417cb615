#version 330 core
// boxes.frag - the tree's wire boxes, blended over the tone-mapped picture.
in vec4 color;
out vec4 frag;

void main() {
    frag = color;
}
