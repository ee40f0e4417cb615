/* cuda_available.c - exits 0 when a CUDA device is usable, 77 when not, so
 * the shell tests can skip their GPU parts the way CTest expects. */
#include <stdio.h>

#include "sim.h"

int main(void) {
    char why[160] = "";
    if (sim_cuda_device_count(why, sizeof why) > 0) return 0;
    printf("no CUDA device: %s\n", why);
    return 77;
}
