# Experiment switches (NBODY_X_*) for run 5, applied to a copy of the tree; not in the program.
def edit(p, old, new):
    s = open(p).read(); assert old in s, (p, old); open(p, 'w').write(s.replace(old, new, 1))
edit('app/app_interop.c',
"""    const cudaError_t e = cudaGraphicsGLRegisterImage(&io->picture, tex, GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsSurfaceLoadStore);""",
"""    const cudaError_t e = cudaGraphicsGLRegisterImage(&io->picture, tex, GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsSurfaceLoadStore |
                                                      (getenv("NBODY_X_WRITEDISCARD") ? cudaGraphicsRegisterFlagsWriteDiscard : 0));""")
edit('app/app_interop.c',
"""        } else if (!splat_draw(io->splat, ptr, n, sprites, array, &se)) {""",
"""        } else if (getenv("NBODY_X_MAPONLY")) {
        } else if (!splat_draw(io->splat, ptr, n, sprites, array, &se)) {""")
print("xmap: 2 edits")
