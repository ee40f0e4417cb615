/* app_profile.c - --profile: where each frame's time went, by part of
 * app_frame (app.h, app_phase), summed over the frames and printed at exit
 * with the GPU's time of the drawing (GL timer queries) and of a step
 * (CUDA events).
 */
#include <stdio.h>

#include "app.h"

void app_profile_mark(app *a, app_phase p) {
    if (!a->cfg.profile) return;
    const double now = base_now();
    if (a->prof.last > 0) a->prof.seconds[p] += now - a->prof.last;
    a->prof.last = now;
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
    printf("nbody: profile of %ld frames (wall time per frame; the GPU's work is counted where "
           "the CPU waits for it):\n",
           a->prof.frames);
    for (int p = 0; p < APP_PHASE_COUNT; p++) {
        printf("  %-15s %8.4f ms %5.1f %%\n", names[p], 1e3 * a->prof.seconds[p] / a->prof.frames,
               100 * a->prof.seconds[p] / total);
    }
    printf("  %-15s %8.4f ms\n", "total", 1e3 * total / a->prof.frames);
    double gl_ms = 0;
    long gl_frames = 0;
    if (a->prof.gl) render_timer_result(a->prof.gl, true, &gl_ms, &gl_frames);
    if (gl_frames > 0) {
        printf("  on the GPU: drawing %.4f ms (GL timer queries, %ld frames)", gl_ms / gl_frames,
               gl_frames);
        if (sim_get_params(a->sim).backend == SIM_BACKEND_CUDA) {
            printf("; a step %.4f ms (CUDA events)", sim_last_step_ms(a->sim));
        }
        printf("\n");
    }
}
