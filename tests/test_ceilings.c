/* test_ceilings.c - the ladder's ceilings (sim_ceilings.c) and the roofline
 * view's log axes (ui_roofline.c), on the CPU: no device, no GL.
 *
 * A made-up sim_device_info with an H100 SXM's numbers (132 SMs, 1980 MHz,
 * compute capability 9.0, 2619 MHz memory on a 5120-bit bus): each ceiling
 * must be its formula (docs/PERFORMANCE.md, "The ladder on its ceilings")
 * of the SASS counts and those numbers, written out here term by term, so
 * that a changed formula or count fails. Relative tolerance 1e-12: the
 * same few double operations in another order.
 *
 * With "gpu" (label gpu; 77 without a CUDA device): the device's memory
 * attributes are read and not zero, and every all-pairs rung, run briefly
 * at 16,384 bodies at its automatic block shape, measures below each of its
 * ceilings, every one of them finite.
 *
 *     test_ceilings [gpu]
 */
#include <GLFW/glfw3.h> /* key codes */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "test_util.h"

#define TOL 1e-12

static const sim_device_info H100 = {.name = "made-up H100",
                                     .sm_count = 132,
                                     .clock_khz = 1980000,
                                     .cc_major = 9,
                                     .cc_minor = 0,
                                     .memory_clock_khz = 2619000,
                                     .memory_bus_bits = 5120};

static void near(const char *what, double got, double want) {
    CHECK(fabs(got - want) <= TOL * fabs(want), "%s: %.9g, want %.9g", what, got, want);
}

static void check_device(void) {
    near("DRAM bandwidth", sim_dram_bandwidth(&H100), 2619e6 * 2 * 5120 / 8);
    CHECK(sim_mufu_lanes(&H100) == 16, "cc 9.0: %d MUFU lanes", sim_mufu_lanes(&H100));
    const int ccs[][3] = {{7, 5, 16}, {8, 0, 16}, {8, 6, 16}, {6, 0, 16}, {6, 1, 32}, {10, 0, 0}};
    for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
        sim_device_info d = H100;
        d.cc_major = ccs[i][0], d.cc_minor = ccs[i][1];
        CHECK(sim_mufu_lanes(&d) == ccs[i][2], "cc %d.%d: %d MUFU lanes, want %d", ccs[i][0],
              ccs[i][1], sim_mufu_lanes(&d), ccs[i][2]);
    }
    sim_device_info none = H100;
    none.memory_bus_bits = 0;
    CHECK(sim_dram_bandwidth(&none) == 0, "no bus width, no bandwidth");
}

/* naive: 47 instructions and 2 MUFU (RSQ and RCP) an interaction; one
 * block of 256 threads per 256 bodies. */
static void check_naive(int n) {
    sim_ceilings c;
    CHECK(sim_rung_ceilings(SIM_VARIANT_NAIVE, n, 256, 1, &H100, &c), "naive at %d", n);
    const double issue = 132 * 128 * 1.98e9 / 47;
    near("naive issue", c.value[SIM_CEILING_ISSUE], issue);
    near("naive MUFU", c.value[SIM_CEILING_MUFU], 132 * 16 * 1.98e9 / 2);
    const double bytes = 16.0 / 256 + 32.0 / n;
    near("naive bytes per interaction", c.launch.bytes_per_interaction, bytes);
    near("naive memory", c.value[SIM_CEILING_MEMORY], sim_dram_bandwidth(&H100) / bytes);
    const int blocks = n / 256; /* 16 at 4,096, 64 at 16,384: fewer than 132 SMs */
    CHECK(c.launch.blocks == blocks && c.launch.threads == 256, "naive at %d: %lld blocks of %d",
          n, c.launch.blocks, c.launch.threads);
    CHECK(c.sms_busy == blocks && c.warps_per_sm == 8, "naive at %d: %d SMs busy, %d warps", n,
          c.sms_busy, c.warps_per_sm);
    near("naive schedulers' fraction", c.fraction, blocks / 132.0);
    near("naive schedulers", c.value[SIM_CEILING_SCHEDULERS], issue * blocks / 132.0);
    CHECK(c.binding == SIM_CEILING_SCHEDULERS, "naive at %d: %s binds, want schedulers", n,
          sim_ceiling_name(c.binding));
    near("naive bound", c.bound, issue * blocks / 132.0);
}

/* tiled: 35 instructions, 1 MUFU; p bodies per block of p x q threads. At
 * 4,096 bodies in blocks of 32: 128 blocks either way, but 32 x 1 is one
 * warp a block, one scheduler of four busy; q = 32 fills all four. */
static void check_tiled(void) {
    sim_ceilings c;
    const double issue = 132 * 128 * 1.98e9 / 35;
    CHECK(sim_rung_ceilings(SIM_VARIANT_TILED, 16384, 128, 8, &H100, &c), "tiled");
    near("tiled issue", c.value[SIM_CEILING_ISSUE], issue);
    near("tiled MUFU", c.value[SIM_CEILING_MUFU], 132 * 16 * 1.98e9);
    near("tiled bytes", c.launch.bytes_per_interaction, 16.0 / 128 + 32.0 / 16384);
    CHECK(c.launch.blocks == 128 && c.launch.threads == 1024 && c.warps_per_sm == 32,
          "tiled 128 x 8: %lld blocks of %d", c.launch.blocks, c.launch.threads);
    near("tiled fraction", c.fraction, 128 / 132.0);
    sim_ceilings one, rows;
    CHECK(sim_rung_ceilings(SIM_VARIANT_TILED, 4096, 32, 1, &H100, &one) &&
              sim_rung_ceilings(SIM_VARIANT_TILED, 4096, 32, 32, &H100, &rows),
          "tiled at 4096");
    near("tiled 32 x 1 fraction", one.fraction, 128 / 132.0 * 1 / 4);
    near("tiled 32 x 32 fraction", rows.fraction, 128 / 132.0);
    CHECK(one.binding == SIM_CEILING_SCHEDULERS, "32 x 1: %s binds", sim_ceiling_name(one.binding));
}

/* best's wide build (6 i bodies a lane) at 65,536 in 640 x 1: 808
 * instructions and 48 MUFU for 48 pairs, 2 interactions each; one block on
 * every SM. A warp task: 32 j bodies in, 32 x 3 atomic sums out, for 32 x
 * 32 x 6 pairs. */
static void check_best(void) {
    sim_ceilings c;
    CHECK(sim_rung_ceilings(SIM_VARIANT_BEST, 65536, 640, 1, &H100, &c), "best");
    CHECK(strcmp(c.cost.build, "wide") == 0, "best at 65536 in 640 x 1: the %s build", c.cost.build);
    const double issue = 132 * 128 * 1.98e9 / (808 / 48.0) * 2;
    near("best issue", c.value[SIM_CEILING_ISSUE], issue);
    near("best MUFU", c.value[SIM_CEILING_MUFU], 132 * 16 * 1.98e9 * 2);
    near("best bytes", c.launch.bytes_per_interaction,
         32 * (16.0 + 12) / (2.0 * 32 * 32 * 6) + 32.0 / 65536);
    CHECK(c.launch.blocks == 132 && c.fraction == 1, "best: %lld blocks, fraction %g",
          c.launch.blocks, c.fraction);
    CHECK(c.binding == SIM_CEILING_ISSUE, "best: %s binds, want issue (a tie with schedulers)",
          sim_ceiling_name(c.binding));
    /* fp64: the FP64 pipe; its MUFU.RSQ64H has no row in the table: unknown. */
    CHECK(sim_rung_ceilings(SIM_VARIANT_FP64, 65536, 512, 1, &H100, &c), "fp64");
    near("fp64 FP64 pipe", c.value[SIM_CEILING_ISSUE], 132 * 64 * 1.98e9 / 20.0 * 2);
    CHECK(c.value[SIM_CEILING_MUFU] == 0, "fp64 MUFU: %g, want unknown", c.value[SIM_CEILING_MUFU]);
    CHECK(!sim_rung_ceilings(SIM_VARIANT_TREE, 65536, 64, 1, &H100, &c) && c.bound == 0,
          "the tree has no all-pairs ceilings");
    sim_device_info none = {.sm_count = 0};
    CHECK(!sim_rung_ceilings(SIM_VARIANT_NAIVE, 4096, 256, 1, &none, &c), "no device numbers");
}

static void check_cpu(void) {
    const sim_cpu_info cpu = {.cpus = 8, .clock_hz = 3e9, .fp64_lanes = 2};
    near("CPU ceiling", sim_cpu_ceiling(&cpu, 30), 8 * 3e9 * 2 * 2 / 30);
    CHECK(sim_cpu_ceiling(&(sim_cpu_info){.cpus = 8}, 30) == 0, "no clock, no ceiling");
}

/* The log axes: decades map linearly onto the box, y up. */
static void check_place(void) {
    const ui_roof_axes ax = {.x = 100, .y = 50, .w = 300, .h = 200, .x_lo10 = -1, .x_hi10 = 2,
                             .y_lo10 = 9, .y_hi10 = 13};
    float px, py;
    CHECK(ui_roof_place(&ax, 0.1, 1e9, &px, &py) && px == 100 && py == 250, "bottom left: %g %g",
          px, py);
    CHECK(ui_roof_place(&ax, 100, 1e13, &px, &py) && px == 400 && py == 50, "top right: %g %g",
          px, py);
    CHECK(ui_roof_place(&ax, 1, 1e11, &px, &py) && fabsf(px - 200) < 1e-3f &&
              fabsf(py - 150) < 1e-3f,
          "one decade across, two up: %g %g", px, py);
    CHECK(!ui_roof_place(&ax, 0, 1e11, &px, &py) && !ui_roof_place(&ax, 1, -1, &px, &py) &&
              !ui_roof_place(&ax, 1, NAN, &px, &py),
          "no place for a zero, negative or NaN");
    const ui_roof_axes empty = {.w = 10, .h = 10};
    CHECK(!ui_roof_place(&empty, 1, 1, &px, &py), "empty axes");
}

static int test_gpu(void) {
    if (sim_cuda_device_count(NULL, 0) == 0) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    sim_device_info dev;
    CHECK(sim_cuda_device_info(0, &dev), "device 0's numbers");
    CHECK(dev.memory_clock_khz > 0 && dev.memory_bus_bits > 0 && sim_dram_bandwidth(&dev) > 0,
          "memory clock %d kHz, bus %d bits", dev.memory_clock_khz, dev.memory_bus_bits);
    const int n = 16384;
    for (int v = SIM_VARIANT_NAIVE; v <= SIM_VARIANT_FP64; v++) {
        sim_error err = {0};
        sim *s = sim_create(&(sim_desc){.body_count = n, .backend = SIM_BACKEND_CUDA,
                                        .variant = (sim_variant)v, .seed = 5},
                            &err);
        CHECK(s != NULL, "%s: %s", sim_variant_info((sim_variant)v)->name, err.message);
        if (!s) continue;
        sim_step_timed(s, 1); /* warm-up */
        const double rate = sim_pair_rate(n, sim_step_timed(s, 5));
        const sim_params p = sim_get_params(s);
        sim_ceilings c;
        CHECK(sim_rung_ceilings((sim_variant)v, n, p.p, p.q, &dev, &c), "%s: ceilings",
              sim_variant_info((sim_variant)v)->name);
        for (int k = 0; k < SIM_CEILING_COUNT; k++) {
            const double x = c.value[k];
            CHECK(isfinite(x) && (x == 0 || x > rate), "%s: %s ceiling %.3g, measured %.3g",
                  sim_variant_info((sim_variant)v)->name, sim_ceiling_name((sim_ceiling_kind)k),
                  x, rate);
        }
        CHECK(c.bound > rate, "%s: bound %.3g, measured %.3g",
              sim_variant_info((sim_variant)v)->name, c.bound, rate);
        printf("%-8s %4d x %-3d %.3g int/s, %s binds at %.3g (%.0f %%)\n",
               sim_variant_info((sim_variant)v)->name, p.p, p.q, rate,
               sim_ceiling_name(c.binding), c.bound, 100 * rate / c.bound);
        sim_destroy(s);
    }
    return test_exit("test_ceilings gpu");
}

/* I shows and hides the chart and keeps its view; Shift+I switches the
 * view and shows the chart (an app without GL: keys only). */
static void check_keys(void) {
    config cfg = {.sim = {.backend = SIM_BACKEND_CPU, .body_count = 500}, .headless = true};
    cfg.given[CONFIG_KNOB_N] = true;
    int status = 0;
    app *a = app_create(&cfg, &status);
    CHECK(a != NULL, "an app: status %d", status);
    if (!a) return;
    const bool *shown = &a->ui.shown[UI_OVERLAY_CHART];
    CHECK(!*shown && a->ui.chart_view == UI_CHART_BARS, "starts hidden, bars");
    app_key(a, GLFW_KEY_I, 0);
    CHECK(*shown && a->ui.chart_view == UI_CHART_BARS, "I: shown, bars");
    app_key(a, GLFW_KEY_I, GLFW_MOD_SHIFT);
    CHECK(*shown && a->ui.chart_view == UI_CHART_CEILINGS, "Shift+I: ceilings");
    app_key(a, GLFW_KEY_I, 0);
    CHECK(!*shown && a->ui.chart_view == UI_CHART_CEILINGS, "I: hidden, the view kept");
    app_key(a, GLFW_KEY_I, GLFW_MOD_SHIFT);
    CHECK(*shown && a->ui.chart_view == UI_CHART_BARS, "Shift+I while hidden: shown, bars");
    app_destroy(a);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "gpu") == 0) return test_gpu();
    check_device();
    check_naive(4096);
    check_naive(16384);
    check_tiled();
    check_best();
    check_cpu();
    check_place();
    check_keys();
    return test_exit("test_ceilings");
}
