/* bench.h - --benchmark: the kernel ladder timed (bench.c), and what is
 * made of the measurements: the table, the JSON and the bar chart
 * (bench_report.c).
 *
 * The report is apart from the timing because it is a pure function of the
 * rows and the device description, so a CPU test (tests/test_bench_report.c)
 * can feed it the longest values there are and check the output without a
 * GPU or a GL context.
 *
 * Rules: bench/ sits above the core (it times whole frames through app.h)
 * and uses io/ and config/ below it; nothing calls into bench/ but main.c.
 */
#ifndef NBODY_BENCH_H
#define NBODY_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "sim.h"

/* One timed configuration. */
typedef struct bench_row {
    sim_variant variant; /* the method (sim_method_of the result's backend) */
    bool tree;           /* an approximate method's row: N^2 interactions/s do not apply */
    int n, p, q;
    int steps, repeats;
    double ms;     /* median ms per step */
    double spread; /* (max - min) / median over the repeats */
    double fps;    /* whole frames per second (--frame), or 0 */
    /* tree rows only (tree_valid false: the tree reported nothing) */
    bool tree_valid;
    double theta;
    double build_ms, walk_ms;     /* of the latest timed step (sim_get_tree_stats) */
    double interactions_per_body; /* evaluated, mean */
    double lane_use;              /* interactions over the lane slots they took */
    int error_samples;            /* 0: the force error was not measured */
    double error_median, error_p99, error_max;
    /* several GPUs (--gpus): gpus 1 on one, and the rest 0 */
    int gpus;
    sim_gpu_stats gpu;  /* of the last timed step: per-GPU forces, the sum */
    double one_gpu_ms;  /* the same configuration on one GPU, median ms per step */
    double efficiency;  /* one_gpu_ms / (gpus x ms): measured parallel efficiency */
} bench_row;

/* Everything the outputs show. */
typedef struct bench_result {
    bool cuda;           /* false: the CPU backend */
    sim_device_info dev; /* the GPU (cuda only) */
    const bench_row *rows;
    int count;
    const int *order; /* the variants in command-line order: "vs prev" compares neighbours */
    int order_count;
} bench_result;

/* N^2 / t; 0 for tree rows (not applicable). */
double bench_interactions_per_s(const bench_row *r);

/* The most interactions/s the force kernel of row r (its variant, and for
 * best the build its N and shape run) can reach on the GPU of b (times the
 * row's GPUs where its method splits its forces over them), from its
 * inner loop's issue slots counted in SASS (and, for fp64, its FP64-pipe
 * operations); 0 where there is no count (the CPU, the tree). */
double bench_ceiling(const bench_result *b, const bench_row *r);

/* Writes the table (and the device's ceilings) to f. */
void bench_print(const bench_result *b, FILE *f);

/* The results as JSON, in a malloc'd string sized to its content; NULL when
 * out of memory. */
char *bench_json(const bench_result *b);

/* The table as a bar chart, width x height RGBA (malloc'd, opaque), labels
 * drawn with the TrueType font at font_path. NULL (with a reason in *why)
 * when the font cannot be read or memory runs out. */
uint8_t *bench_chart(const bench_result *b, const char *font_path, int *width, int *height,
                     char *why, size_t why_len);

/* --benchmark with cfg's lists: prints the table, writes --json and
 * --plot; returns the exit status. */
int bench_run(const config *cfg);

#endif /* NBODY_BENCH_H */
