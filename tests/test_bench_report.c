/* test_bench_report.c - the benchmark's outputs at their largest, without a GPU.
 *
 *     test_bench_report OUT.json OUT.png FONT.ttf
 *
 * Feeds bench_report.c the most rows the benchmark keeps (1024: the
 * CONFIG_LIST_MAX variants x N x p x q lists give more, the benchmark keeps the
 * first 1024) with the longest numbers there are (N = INT_MAX, times from
 * 1e-300 to 1e300 ms, inf and NaN), every tree field, and a device name of
 * 255 characters full of quotes, backslashes and control characters - the
 * longest a driver can give (sim_device_info.name is 256 bytes). Writes the
 * JSON and the chart for tests/test_bench_report.py to check (the JSON
 * parses and holds every row; the PNG has the size and content below), and
 * checks here what the script cannot see: the JSON is one allocation sized
 * to its content, and the chart is drawn (not blank: both bar colours and
 * dark text are present). Every fourth row is on SIM_MAX_GPUS GPUs, with
 * per-GPU times or without, inf and NaN among them.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "io.h"

#define ROWS 1024

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: test_bench_report OUT.json OUT.png FONT.ttf\n");
        return 2;
    }
    bench_row *rows = calloc(ROWS, sizeof *rows);
    if (!rows) return 1;
    static const double ms[] = {1e-300, 1e300, 123456.789, 0.001, INFINITY, NAN};
    for (int i = 0; i < ROWS; i++) {
        bench_row *r = &rows[i];
        r->variant = (sim_variant)(1 + i % (SIM_VARIANT_COUNT - 1)); /* every all-pairs rung */
        r->tree = i % 7 == 3;
        r->n = i % 2 ? INT_MAX : i + 1;
        r->p = INT_MAX - i;
        r->q = INT_MIN + i;
        r->steps = INT_MAX;
        r->repeats = 5;
        r->ms = ms[i % 6];
        r->spread = -1e300;
        r->fps = i % 3 ? 1e300 : 0;
        r->tree_valid = i % 2 == 1;
        r->theta = 0.6;
        r->build_ms = 1e300;
        r->walk_ms = -1e-300;
        r->interactions_per_body = NAN;
        r->lane_use = i % 2 ? 1e300 : NAN;
        r->error_samples = i % 5 ? 1024 : 0;
        r->error_median = 1e-300;
        r->error_p99 = 1e300;
        r->error_max = INFINITY;
        /* every fourth row on the most GPUs, half of those with per-GPU times
         * (finite and not), and a third of them from a method that does not split */
        r->gpus = i % 4 == 1 ? SIM_MAX_GPUS : i % 4 == 2 ? 0 : 1;
        if (r->gpus > 1) {
            r->gpu.gpus = SIM_MAX_GPUS;
            r->gpu.measured = i % 8 == 1;
            r->gpu.split = i % 3 != 0;
            for (int k = 0; k < SIM_MAX_GPUS; k++) r->gpu.forces_ms[k] = k % 2 ? NAN : 1e30f;
            r->gpu.sum_ms = INFINITY;
            r->gpu.sum_bytes = 1e300;
            r->one_gpu_ms = 1e300;
            r->efficiency = NAN;
        }
    }
    bench_result res = {.cuda = true, .rows = rows, .count = ROWS};
    for (int i = 0; i < (int)sizeof res.dev.name - 1; i++) /* quotes, backslashes, tabs, newlines */
        res.dev.name[i] = "a\"\\\t\nZ"[i % 6];
    res.dev.sm_count = INT_MAX;
    res.dev.clock_khz = INT_MAX;
    res.dev.cc_major = 9;
    res.dev.driver_version = INT_MAX;
    res.dev.runtime_version = INT_MIN;
    int order[CONFIG_LIST_MAX];
    for (int k = 0; k < CONFIG_LIST_MAX; k++) order[k] = 1 + k % (SIM_VARIANT_COUNT - 1);
    res.order = order;
    res.order_count = CONFIG_LIST_MAX;

    int failed = 0;
    FILE *null = fopen("/dev/null", "w"); /* the table: here only for ASan to watch */
    if (null) {
        bench_print(&res, null);
        fclose(null);
    }
    /* A row on several GPUs that one GPU could not run (no baseline) shows
     * dashes for the one GPU and the efficiency, not a 0 % efficiency. */
    bench_row big = {.variant = SIM_VARIANT_TREE,
                     .tree = true,
                     .n = 1000000000,
                     .gpus = 4,
                     .ms = 508.4,
                     .gpu = {.gpus = 4, .measured = true, .split = true}};
    bench_result alone = res;
    alone.rows = &big, alone.count = 1;
    FILE *table = tmpfile();
    char text[8192] = "";
    if (table) {
        bench_print(&alone, table);
        rewind(table);
        text[fread(text, 1, sizeof text - 1, table)] = 0;
        fclose(table);
    }
    const char *row = strstr(text, "1000000000     4");
    const char *end = row ? strchr(row, '\n') : NULL;
    if (!row || !end || memchr(row, '%', (size_t)(end - row)) || !strstr(row, " -           - "))
        failed++, printf("FAIL: a row with no one-GPU baseline reads:\n%s\n", row ? row : text);
    char *json = bench_json(&res);
    if (!json) {
        printf("FAIL: bench_json returned NULL\n");
        return 1;
    }
    printf("JSON: %zu bytes for %d rows\n", strlen(json), ROWS);
    /* Each row is one line; the last must be there, closed. */
    if (!strstr(json, "  ]\n}\n"))
        failed++, printf("FAIL: the JSON does not end with its closing\n");
    if (!io_write_text(argv[1], "--json", json)) failed++;
    free(json);

    int w = 0, h = 0;
    char why[512] = "";
    uint8_t *rgba = bench_chart(&res, argv[3], &w, &h, why, sizeof why);
    if (!rgba) {
        printf("FAIL: bench_chart: %s\n", why);
        return 1;
    }
    /* Both bar colours (all-pairs blue 52,101,164 and tree orange 204,102,0)
     * and near-black text must be present. */
    long blue = 0, orange = 0, dark = 0;
    for (long i = 0; i < (long)w * h; i++) {
        const uint8_t *p = rgba + i * 4;
        blue += p[0] == 52 && p[1] == 101 && p[2] == 164;
        orange += p[0] == 204 && p[1] == 102 && p[2] == 0;
        dark += p[0] < 80 && p[1] < 80 && p[2] < 80;
    }
    printf("chart %d x %d: %ld blue, %ld orange, %ld dark pixels\n", w, h, blue, orange, dark);
    if (blue < 100 || orange < 100 || dark < 1000)
        failed++, printf("FAIL: the chart looks blank\n");
    if (!io_write_png(argv[2], "--plot chart", w, h, rgba)) failed++;
    free(rgba);

    char bad[64] = "";
    if (bench_chart(&res, "/nonexistent/font.ttf", &w, &h, bad, sizeof bad) || !bad[0])
        failed++, printf("FAIL: a missing font gives no error\n");
    free(rows);
    printf("%s\n", failed ? "FAIL" : "ok");
    return failed ? 1 : 0;
}
