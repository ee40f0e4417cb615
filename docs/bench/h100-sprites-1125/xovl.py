# Experiment switches (NBODY_X_OVL_*) for run 4, applied to a copy of the tree; not in the program.
def edit(p, old, new):
    s = open(p).read(); assert old in s, (p, old); open(p, 'w').write(s.replace(old, new, 1))
edit('render/render_overlay.c',
"""    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(overlay_vertex) * 6 * QUADS_MAX), NULL,
                 GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(overlay_vertex) * o->count), o->verts);
    glDrawArrays(GL_TRIANGLES, 0, o->count);""",
"""    if (getenv("NBODY_X_OVL_NOUPLOAD")) {
    } else if (getenv("NBODY_X_OVL_ONECALL")) {
        glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(overlay_vertex) * o->count), o->verts, GL_STREAM_DRAW);
    } else if (getenv("NBODY_X_OVL_NOORPHAN")) {
        glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(overlay_vertex) * o->count), o->verts);
    } else {
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(sizeof(overlay_vertex) * 6 * QUADS_MAX), NULL,
                 GL_STREAM_DRAW);
    glBufferSubData(GL_ARRAY_BUFFER, 0, (GLsizeiptr)(sizeof(overlay_vertex) * o->count), o->verts);
    }
    if (!getenv("NBODY_X_OVL_NODRAW")) glDrawArrays(GL_TRIANGLES, 0, o->count);""")
edit('app/app.c', "    render_frame(a->render, &window, p.body_count);\n",
     "    render_frame(a->render, &window, p.body_count);\n    if (getenv(\"NBODY_X_FLUSH2\")) render_flush(a->render);\n")
print("xovl: 2 edits")
