#version 330 core
// boxes.vert - one edge vertex of a wire cube per vertex, one cube per
// instance: the tree's cells (render/render_boxes.c).
layout(location = 0) in vec3 corner;   // a cube corner in [-1, 1]^3
layout(location = 1) in vec4 cell;     // centre xyz, half side w
layout(location = 2) in float level;   // octree level, root 0
uniform mat4 view_proj;
uniform float max_level;
out vec4 color;

void main() {
    gl_Position = view_proj * vec4(cell.xyz + cell.w * corner, 1.0);
    // Shallow cells bright and warm, deep ones faint and cool: the eye reads
    // the hierarchy, and the many small cells do not drown the bodies.
    float t = max_level > 0.0 ? level / max_level : 0.0;
    color = vec4(mix(vec3(1.0, 0.75, 0.3), vec3(0.3, 0.6, 1.0), t), mix(0.9, 0.25, t));
}
