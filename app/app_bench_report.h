/* app_bench_report.h - what --benchmark makes of its measurements: the
 * table, the JSON and the bar chart.
 *
 * Why apart from app_bench.c (which runs and times the simulations): these
 * are pure functions of the rows and the device description, so a CPU test
 * (tests/test_bench_report.c) can feed them the longest values there are and
 * check the output without a GPU or a GL context.
 */
#ifndef NBODY_APP_BENCH_REPORT_H
#define NBODY_APP_BENCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim.h"

/* One timed configuration. */
typedef struct app_bench_row {
    sim_variant variant; /* SIM_VARIANT_COUNT: the CPU reference's all-pairs loop */
    bool tree;           /* a Barnes-Hut row: N^2 interactions/s do not apply */
    int n, p, q;
    int steps, repeats;
    double ms;     /* median ms per step */
    double spread; /* (max - min) / median over the repeats */
    double fps;    /* whole frames per second (--frame), or 0 */
    /* tree rows only (tree_valid false: the tree reported nothing) */
    bool tree_valid;
    double theta;
    double build_ms, walk_ms;     /* of the last timed step (sim_get_tree_stats) */
    double interactions_per_body; /* evaluated, mean */
    int error_samples;            /* 0: the force error was not measured */
    double error_median, error_p99;
} app_bench_row;

/* Everything the outputs show. */
typedef struct app_bench_result {
    bool cuda;           /* false: the CPU backend */
    sim_device_info dev; /* the GPU (cuda only) */
    const app_bench_row *rows;
    int count;
    const int *order; /* the variants in command-line order: "vs prev" compares neighbours */
    int order_count;
} app_bench_result;

/* N^2 / t; 0 for tree rows (not applicable). */
double app_bench_interactions_per_s(const app_bench_row *r);

/* The most interactions/s the force kernel of row r (its variant, and for
 * best the build its N and shape run) can reach on the GPU of b, from its
 * inner loop's issue slots counted in SASS (and, for fp64, its FP64-pipe
 * operations); 0 where there is no count (the CPU, the tree). */
double app_bench_ceiling(const app_bench_result *b, const app_bench_row *r);

/* Writes the table (and the device's ceilings) to f. */
void app_bench_print(const app_bench_result *b, FILE *f);

/* The results as JSON, in a malloc'd string sized to its content; NULL when
 * out of memory. */
char *app_bench_json(const app_bench_result *b);

/* The table as a bar chart, width x height RGBA (malloc'd, opaque), labels
 * drawn with the TrueType font at font_path. NULL (with a reason in *why)
 * when the font cannot be read or memory runs out. */
uint8_t *app_bench_chart(const app_bench_result *b, const char *font_path, int *width, int *height,
                         char *why, size_t why_len);

#endif /* NBODY_APP_BENCH_REPORT_H */
