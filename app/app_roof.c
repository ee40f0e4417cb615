/* app_roof.c - what the ladder chart's ceilings view (app/ui/ui_roofline.c)
 * is told about the machine: the CUDA device's attributes (SMs, clocks,
 * memory bus) on the CUDA backend, the CPU's numbers on the CPU backend.
 * Read once, on the first frame that draws or toggles an overlay, and kept:
 * neither changes while the app runs. */
#include "app.h"

ui_roof app_roof_facts(app *a) {
    app_roof *r = &a->roof;
    if (!r->read) {
        r->read = true;
        if (sim_get_params(a->sim).backend == SIM_BACKEND_CUDA) {
            r->gpu_known = sim_cuda_device_info(a->cfg.sim.device, &r->gpu);
        } else {
            r->cpu_known = sim_cpu_info_read(&r->cpu);
        }
    }
    return (ui_roof){.gpu = r->gpu_known ? &r->gpu : NULL, .cpu = r->cpu_known ? &r->cpu : NULL};
}
