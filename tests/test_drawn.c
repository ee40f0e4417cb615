/* test_drawn.c - which bodies the vertices are of (sim_set_draw_stride), on
 * the CPU backend; test_gpu.c and test_multi_gpu.c check the CUDA paths.
 *
 * From random unequal masses (test_random_bodies) at N = 1003, a prime's
 * neighbour that no stride below divides:
 * - by default every body is drawn: stride 1, drawn = N, vertex i body i's;
 * - stride 7: drawn = 144 (1003 / 7 rounded up), vertex j body 7j's, the
 *   last body 1001's; the vertex after the last is not written;
 * - a stride of N or more draws body 0 alone; 0 and -3 are taken as 1;
 * - the stride stays across new bodies (sim_reset to N = 10), drawn is
 *   counted again (2 of 10 at stride 7);
 * - after steps, the vertices are the bodies' new positions.
 */
#include <string.h>

#include "test_util.h"

#define N 1003

static void check_stride(sim *s, const sim_body *b, int n, int stride, int want_drawn) {
    char what[64];
    snprintf(what, sizeof what, "N %d, stride %d", n, stride);
    sim_set_draw_stride(s, stride);
    const sim_params p = sim_get_params(s);
    CHECK(p.drawn == want_drawn && p.draw_stride == (stride > 1 ? stride : 1),
          "%s: drawn %d (want %d), stride %d", what, p.drawn, want_drawn, p.draw_stride);
    sim_vertex *v = malloc(sizeof *v * (size_t)(n + 1));
    if (!v) exit(1);
    memset(v, 0x7f, sizeof *v * (size_t)(n + 1)); /* a mark no vertex has */
    sim_write_vertices(s, v, false);
    CHECK(test_misdrawn(what, b, n, p.draw_stride, v) == 0, "%s: vertices of the wrong bodies",
          what);
    sim_vertex mark;
    memset(&mark, 0x7f, sizeof mark);
    CHECK(memcmp(&v[p.drawn], &mark, sizeof mark) == 0, "%s: vertex %d written past the drawn",
          what, p.drawn);
    free(v);
}

int main(void) {
    sim *s = test_sim((sim_desc){.backend = SIM_BACKEND_CPU, .body_count = N, .softening = 0.05});
    sim_body *b = malloc(sizeof *b * N);
    if (!b) return 1;
    test_random_bodies(b, N, 11);
    test_set_bodies(s, b, N);
    const sim_params p = sim_get_params(s);
    CHECK(p.draw_stride == 1 && p.drawn == N, "default: stride %d, drawn %d", p.draw_stride,
          p.drawn);
    check_stride(s, b, N, 1, N);
    check_stride(s, b, N, 7, 144);
    check_stride(s, b, N, N, 1);
    check_stride(s, b, N, 5000, 1);
    check_stride(s, b, N, 0, N);
    check_stride(s, b, N, -3, N);
    /* Steps move the bodies; the vertices follow. */
    sim_set_draw_stride(s, 7);
    sim_step(s, 3);
    sim_get_state(s, b);
    check_stride(s, b, N, 7, 144);
    /* New bodies keep the stride. */
    sim_error err = {0};
    CHECK(sim_reset(s, SIM_IC_PLUMMER, 10, 3, &err), "reset to 10: %s", err.message);
    const sim_params q = sim_get_params(s);
    CHECK(q.draw_stride == 7 && q.drawn == 2, "after a reset to 10: stride %d, drawn %d",
          q.draw_stride, q.drawn);
    sim_body ten[10];
    sim_get_state(s, ten);
    check_stride(s, ten, 10, 7, 2);
    sim_destroy(s);
    free(b);
    return test_exit("test_drawn");
}
