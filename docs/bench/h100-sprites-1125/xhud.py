# Experiment switches (NBODY_X_*) for run 3, applied to a copy of the tree; not in the program.
import re
def edit(p, old, new):
    s = open(p).read(); assert old in s, (p, old); open(p, 'w').write(s.replace(old, new, 1))
edit('render/render_overlay.c', "    if (o->count == 0) return;\n",
     "    if (o->count == 0) return;\n    if (getenv(\"NBODY_X_NOOVERLAY\")) { o->count = 0; return; }\n")
edit('render/render.c', "    glFlush();\n}", "    if (getenv(\"NBODY_X_FINISH\")) glFinish(); else glFlush();\n}")
edit('app/app.c', "    app_record_frame_end(a);", "    if (getenv(\"NBODY_X_FENCE\")) app_interop_fence_frame(&a->interop);\n    app_record_frame_end(a);")
edit('app/app.c', "    render_frame(a->render, &window, p.body_count);\n",
     "    render_frame(a->render, &window, p.body_count);\n    if (getenv(\"NBODY_X_FLUSH2\")) render_flush(a->render);\n")
print("xhud: 4 edits")
