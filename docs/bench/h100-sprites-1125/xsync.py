# Experiment switches (NBODY_X_*) for run 8, applied to a copy of the tree; not in the program.
def edit(p, old, new):
    s = open(p).read(); assert old in s, (p, old); open(p, 'w').write(s.replace(old, new, 1))
edit('app/app_interop.c', """    e = cudaGraphicsUnmapResources(count, res, 0);
    if (e != cudaSuccess && !why[0]) describe(why, sizeof why, "cudaGraphicsUnmapResources", e);
    if (why[0]) {
        io->sprites_drawn = false;""", """    e = cudaGraphicsUnmapResources(count, res, 0);
    if (getenv("NBODY_X_SYNCUNMAP")) cudaStreamSynchronize(0);
    if (getenv("NBODY_X_DEVSYNCUNMAP")) cudaDeviceSynchronize();
    if (e != cudaSuccess && !why[0]) describe(why, sizeof why, "cudaGraphicsUnmapResources", e);
    if (why[0]) {
        io->sprites_drawn = false;""")
edit('app/app_sprites.c', """        if (period > other * WATCH_SLOWER) {""", """        if (period > other * WATCH_SLOWER && !getenv("NBODY_X_NOWATCH")) {""")
edit('app/app_sprites.c', "#include <string.h>\n", "#include <stdlib.h>\n#include <string.h>\n")
print("xsync: 3 edits")
