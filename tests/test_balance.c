/* test_balance.c - the tree's shares on several GPUs move toward equal work
 * (white box: sim_balance_shares, sim/sim_internal.h). No GPU: the rule is
 * arithmetic on the boundaries and the work the GPUs counted.
 */
#include <math.h>
#include <stdio.h>

#include "sim_internal.h"
#include "test_util.h"

/* The walk's work on [a, b) of the sorted bodies when the cost per body is
 * cost(x) = 1 + 9 exp(-((x - 0.4) / 0.05)^2): a dense core in the second
 * of four equal stretches, as a Plummer sphere's Morton order puts it. */
static double work_of(double a, double b) {
    const int steps = 2000;
    double t = 0;
    for (int i = 0; i < steps; i++) {
        const double x = a + (b - a) * (i + 0.5) / steps;
        const double u = (x - 0.4) / 0.05;
        t += (1 + 9 * exp(-u * u)) * (b - a) / steps;
    }
    return t;
}

static double spread_of(const double *at, int count, double *w) {
    double lo = INFINITY, hi = 0;
    for (int k = 0; k < count; k++) {
        w[k] = work_of(at[k], at[k + 1]);
        lo = fmin(lo, w[k]), hi = fmax(hi, w[k]);
    }
    return hi / lo;
}

int main(void) {
    /* Equal work leaves the shares where they are. */
    const double at2[3] = {0, 0.3, 1}, same[2] = {2, 2};
    double out[SIM_MAX_GPUS + 1];
    sim_balance_shares(at2, same, 2, out);
    CHECK(out[0] == 0 && out[2] == 1 && fabs(out[1] - 0.3) < 1e-15, "equal work: %.17g",
          out[1]);

    /* Two halves, the second three times the first: evenly split, the
     * boundary would sit a third into the second half (1/2 + 1/6); it moves
     * halfway there. */
    const double half[3] = {0, 0.5, 1}, w2[2] = {1, 3};
    sim_balance_shares(half, w2, 2, out);
    CHECK(fabs(out[1] - (0.5 + 0.5 * (1.0 / 6))) < 1e-12, "1 : 3 halves: %.17g (0.58333)", out[1]);

    /* Four GPUs from equal shares: the GPU with the core is the slowest;
     * repeated, the rule brings the four shares' work within 2 % of each other
     * (halving the distance each time: 25 rounds are ample), with the
     * boundaries in order inside (0, 1). */
    double at[5] = {0, 0.25, 0.5, 0.75, 1}, w[4];
    const double first = spread_of(at, 4, w);
    CHECK(first > 2, "equal shares: slowest over fastest %.2f (the core's share is slower)", first);
    for (int round = 0; round < 25; round++) {
        spread_of(at, 4, w);
        sim_balance_shares(at, w, 4, out);
        for (int k = 0; k <= 4; k++) at[k] = out[k];
    }
    const double last = spread_of(at, 4, w);
    printf("four shares: slowest over fastest %.3f at first, %.4f after 25 rounds; at %.4f %.4f "
           "%.4f\n",
           first, last, at[1], at[2], at[3]);
    CHECK(last < 1.02, "after 25 rounds: slowest over fastest %.4f (< 1.02)", last);
    CHECK(at[0] == 0 && at[4] == 1 && 0 < at[1] && at[1] < at[2] && at[2] < at[3] && at[3] < 1,
          "boundaries in order: %g %g %g", at[1], at[2], at[3]);

    return test_exit("test_balance");
}
