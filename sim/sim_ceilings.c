/* sim_ceilings.c - the ceilings each all-pairs rung runs under on a device
 * (sim.h, "the ladder on its ceilings"; docs/PERFORMANCE.md, "The ladder on
 * its ceilings"), and the CPU backend's stated ceiling.
 *
 * Arithmetic only: the SASS counts (sim_loop_cost_of), the launch's
 * geometry and bytes (sim_launch_of, beside the kernels) and the device's
 * attributes (sim_device_info) in, interactions/s out. Nothing here is
 * measured; the roofline view (app/ui/ui_roofline.c) puts the measured
 * rates against these, and tests/test_ceilings.c pins every formula with
 * a fixed device's numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim.h"

int sim_mufu_lanes(const sim_device_info *dev) {
    /* The Programming Guide's throughput table, 32-bit reciprocal and
     * reciprocal square root per clock per SM: 16 on 6.0 and on 7.x to 9.0,
     * 32 on the other 5.x and 6.x. Later ones: unknown here. */
    const int major = dev->cc_major, minor = dev->cc_minor;
    if (major >= 7 && major <= 9) return major == 9 && minor > 0 ? 0 : 16;
    if (major == 6) return minor == 0 ? 16 : 32;
    if (major == 5) return 32;
    return 0;
}

double sim_dram_bandwidth(const sim_device_info *dev) {
    if (dev->memory_clock_khz <= 0 || dev->memory_bus_bits <= 0) return 0;
    return dev->memory_clock_khz * 1e3 * 2.0 * dev->memory_bus_bits / 8.0;
}

const char *sim_ceiling_name(sim_ceiling_kind k) {
    static const char *const names[] = {"issue", "MUFU", "memory", "schedulers"};
    _Static_assert(sizeof names / sizeof names[0] == SIM_CEILING_COUNT, "one name per ceiling");
    return (int)k >= 0 && k < SIM_CEILING_COUNT ? names[k] : NULL;
}

bool sim_rung_ceilings(sim_variant v, int n, int p, int q, const sim_device_info *dev,
                       sim_ceilings *out) {
    memset(out, 0, sizeof *out);
    if (!dev || dev->sm_count <= 0 || dev->clock_khz <= 0) return false;
    if (!sim_loop_cost_of(v, n, p, q, &out->cost) ||
        !sim_launch_of(v, n, p, q, dev->sm_count, &out->launch)) {
        memset(out, 0, sizeof *out);
        return false;
    }
    const sim_loop_cost *c = &out->cost;
    const double sms = dev->sm_count, clock = dev->clock_khz * 1e3;
    out->value[SIM_CEILING_ISSUE] = sim_loop_ceiling(c, dev);
    /* MUFU: the table's lanes are 32-bit; fp64's MUFU.RSQ64H has no row. */
    const int mufu_lanes = c->fp64_ops > 0 ? 0 : sim_mufu_lanes(dev);
    if (mufu_lanes > 0 && c->mufu > 0) {
        const double per_interaction = (double)c->mufu / c->rsqrts / c->interactions;
        out->value[SIM_CEILING_MUFU] = sms * mufu_lanes * clock / per_interaction;
    }
    out->bandwidth = sim_dram_bandwidth(dev);
    if (out->launch.bytes_per_interaction > 0) {
        out->intensity = 1 / out->launch.bytes_per_interaction;
        out->value[SIM_CEILING_MEMORY] = out->bandwidth * out->intensity;
    }
    /* The schedulers: the grid's blocks in waves over the SMs, each busy
     * SM's schedulers fed by its warps. */
    const long long blocks = out->launch.blocks;
    const long long waves = (blocks + dev->sm_count - 1) / dev->sm_count;
    const int warps_per_block = (out->launch.threads + 31) / 32;
    out->sms_busy = blocks < dev->sm_count ? (int)blocks : dev->sm_count;
    const long long warps = waves * warps_per_block;
    out->warps_per_sm = warps > 1 << 20 ? 1 << 20 : (int)warps;
    out->balance = waves > 0 ? (double)blocks / (sms * (double)waves) : 0;
    const int busy = out->warps_per_sm < SIM_SCHEDULERS_PER_SM ? out->warps_per_sm
                                                               : SIM_SCHEDULERS_PER_SM;
    out->fraction = out->balance * busy / SIM_SCHEDULERS_PER_SM;
    out->value[SIM_CEILING_SCHEDULERS] = out->value[SIM_CEILING_ISSUE] * out->fraction;
    for (int k = 0; k < SIM_CEILING_COUNT; k++) {
        const double x = out->value[k];
        if (x > 0 && (out->bound == 0 || x < out->bound)) {
            out->bound = x;
            out->binding = (sim_ceiling_kind)k;
        }
    }
    return true;
}

/* The highest clock in Hz: cpufreq's cpuinfo_max_freq (kHz) of CPU 0, else
 * the highest "cpu MHz" line of /proc/cpuinfo (the current clocks); 0 when
 * neither says. */
static double cpu_clock_hz(void) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    double khz = 0;
    if (f) {
        if (fscanf(f, "%lf", &khz) != 1) khz = 0;
        fclose(f);
        if (khz > 0) return khz * 1e3;
    }
    f = fopen("/proc/cpuinfo", "r");
    if (!f) return 0;
    char line[512];
    double mhz = 0;
    while (fgets(line, sizeof line, f)) {
        const char *colon = strchr(line, ':');
        double v;
        if (strncmp(line, "cpu MHz", 7) == 0 && colon && sscanf(colon + 1, "%lf", &v) == 1) {
            mhz = fmax(mhz, v);
        }
    }
    fclose(f);
    return mhz * 1e6;
}

bool sim_cpu_info_read(sim_cpu_info *out) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    *out = (sim_cpu_info){.cpus = cpus > 0 ? (int)cpus : 1, .clock_hz = cpu_clock_hz()};
#if defined(__AVX512F__)
    out->fp64_lanes = 8;
#elif defined(__AVX__)
    out->fp64_lanes = 4;
#elif defined(__SSE2__) || defined(__aarch64__)
    out->fp64_lanes = 2;
#else
    out->fp64_lanes = 1;
#endif
    return out->clock_hz > 0;
}

double sim_cpu_ceiling(const sim_cpu_info *cpu, double flops_per_interaction) {
    if (!cpu || cpu->cpus <= 0 || cpu->clock_hz <= 0 || cpu->fp64_lanes <= 0 ||
        flops_per_interaction <= 0) {
        return 0;
    }
    return cpu->cpus * cpu->clock_hz * cpu->fp64_lanes * 2.0 / flops_per_interaction;
}
