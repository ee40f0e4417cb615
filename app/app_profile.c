/* app_profile.c - --profile: where each frame's time went, by part of
 * app_frame (app.h, app_phase), summed over the frames and printed at exit
 * with the time of GL's drawing (timer queries, on the GL renderer named:
 * a GPU, or the CPU with a software GL such as llvmpipe), of a CUDA step
 * (CUDA events), and who drew the sprites (CUDA or GL, frames counted).
 */
#include <stdio.h>

#include "app.h"

void app_profile_mark(app *a, app_phase p) {
    if (!a->cfg.profile) return;
    const double now = base_now();
    if (a->prof.last > 0) a->prof.seconds[p] += now - a->prof.last;
    a->prof.last = now;
    /* The upload part ends with the sprites drawn by CUDA or not. */
    if (p == APP_PHASE_UPLOAD && a->interop.sprites_drawn) a->prof.cuda_sprites++;
}

void app_profile_reset(app *a) {
    render_timer_destroy(a->prof.gl);
    a->prof = (app_profile){0};
}

void app_profile_print(app *a) {
    static const char *const names[APP_PHASE_COUNT] = {
        "input", "step", "diagnostics", "upload", "draw", "hud + readback", "rest", "loop"};
    double total = 0;
    for (int p = 0; p < APP_PHASE_COUNT; p++) total += a->prof.seconds[p];
    if (a->prof.frames <= 0 || total <= 0) return;
    printf("nbody: profile of %ld frames (wall time per frame; GL's and CUDA's work is counted "
           "where the CPU waits for it):\n",
           a->prof.frames);
    for (int p = 0; p < APP_PHASE_COUNT; p++) {
        printf("  %-15s %8.4f ms %5.1f %%\n", names[p], 1e3 * a->prof.seconds[p] / a->prof.frames,
               100 * a->prof.seconds[p] / total);
    }
    printf("  %-15s %8.4f ms\n", "total", 1e3 * total / a->prof.frames);
    const long cuda = a->prof.cuda_sprites, frames = a->prof.frames;
    if (cuda == 0) {
        printf("  sprites drawn by GL in every frame%s\n",
               interop_cuda_sprites(&a->interop) ? ""
                                                 : " (CUDA's need the zero-copy interop path)");
    } else if (cuda >= frames) {
        printf("  sprites drawn by CUDA in every frame\n");
    } else {
        printf("  sprites drawn by CUDA in %ld frame%s, by GL in %ld\n", cuda, base_plural(cuda),
               frames - cuda);
    }
    double gl_ms = 0;
    long gl_frames = 0;
    if (a->prof.gl) render_timer_result(a->prof.gl, true, &gl_ms, &gl_frames);
    if (gl_frames > 0) {
        printf("  GL's drawing %.4f ms (timer queries, %ld frames, on %s)", gl_ms / gl_frames,
               gl_frames, render_gl_renderer());
        if (sim_get_params(a->sim).backend == SIM_BACKEND_CUDA) {
            printf("; a step on the GPU %.4f ms (CUDA events)", sim_last_step_ms(a->sim));
        }
        printf("\n");
    }
}
