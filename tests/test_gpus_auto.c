/* test_gpus_auto.c - --gpus auto and the tree's spread on hosts of 1 to 8
 * GPUs (config_gpus_on: the device count and NCCL given, so the CPU runs
 * every case; a host of several GPUs reaches only its own).
 *
 * - The count follows sim_gpus_for's thresholds for a method that splits
 *   its forces, at most four; a rung that does not split, or a build
 *   without NCCL, takes one.
 * - The tree spreads from sim_spread_for's N, and spread bodies take every
 *   GPU (eight at a billion bodies on eight, not the four the count stops
 *   at: four 80 GB GPUs cannot hold a billion), as --spread does.
 * - --no-spread keeps every body on the counted GPUs; --spread spreads at
 *   any N over every GPU; --gpus G keeps G, spread or not.
 */
#include <stdio.h>

#include "config.h"
#include "test_check.h"

typedef struct want {
    int gpus;
    bool spread;
} want;

static want decide(int n, sim_variant v, int devices, bool nccl, int gpus, bool spread,
                   bool no_spread) {
    config cfg = {.sim = {.body_count = n, .variant = v, .gpus = gpus, .spread = spread},
                  .no_spread = no_spread};
    sim_desc d = cfg.sim;
    config_gpus_on(&cfg, devices, nccl, &d);
    return (want){d.gpus, d.spread};
}

#define EXPECT(got, g, s, ...)                                                                     \
    CHECK((got).gpus == (g) && (got).spread == (s), "%s: got %d GPUs%s, want %d%s", __VA_ARGS__,  \
          (got).gpus, (got).spread ? " spread" : "", (g), (s) ? " spread" : "")

int main(void) {
    const sim_variant tree = SIM_VARIANT_TREE, best = SIM_VARIANT_BEST;
    const int two = SIM_SPREAD2_MIN_BODIES, more = SIM_SPREAD4_MIN_BODIES;
    /* The count alone. */
    EXPECT(decide(1000, tree, 8, true, 0, false, false), 1, false, "tree, 1,000 on 8");
    EXPECT(decide(SIM_GPUS2_MIN_BODIES_NLOGN, tree, 8, true, 0, false, false), 2, false,
           "tree at the two-GPU threshold on 8");
    EXPECT(decide(SIM_GPUS4_MIN_BODIES_NLOGN, tree, 8, true, 0, false, false), 4, false,
           "tree at the four-GPU threshold on 8");
    EXPECT(decide(SIM_GPUS4_MIN_BODIES_NLOGN, tree, 3, true, 0, false, false), 3, false,
           "tree at the four-GPU threshold on 3");
    EXPECT(decide(1 << 20, best, 8, true, 0, false, false), 4, false, "best, 1M on 8");
    EXPECT(decide(1 << 20, SIM_VARIANT_NAIVE, 8, true, 0, false, false), 1, false,
           "naive (does not split), 1M on 8");
    EXPECT(decide(1 << 20, tree, 8, false, 0, false, false), 1, false, "tree, 1M, no NCCL");
    EXPECT(decide(1 << 20, tree, 1, true, 0, false, false), 1, false, "tree, 1M on 1");
    /* The spread: from its thresholds, over every GPU. */
    EXPECT(decide(two - 1, tree, 2, true, 0, false, false), 2, false, "just below two's spread");
    EXPECT(decide(two, tree, 2, true, 0, false, false), 2, true, "two's spread threshold on 2");
    EXPECT(decide(more - 1, tree, 8, true, 0, false, false), 4, false,
           "just below the spread threshold on 8");
    EXPECT(decide(more, tree, 8, true, 0, false, false), 8, true, "the spread threshold on 8");
    EXPECT(decide(1000000000, tree, 8, true, 0, false, false), 8, true, "a billion on 8");
    EXPECT(decide(more, tree, 3, true, 0, false, false), 3, true, "the spread threshold on 3");
    EXPECT(decide(1000000000, best, 8, true, 0, false, false), 4, false,
           "best at a billion on 8 (only the tree spreads)");
    EXPECT(decide(1000000000, tree, 8, false, 0, false, false), 1, false,
           "a billion, no NCCL (one GPU; its memory check says what to do)");
    /* What the command line asks. */
    EXPECT(decide(1000000000, tree, 8, true, 0, false, true), 4, false, "--no-spread, a billion on 8");
    EXPECT(decide(1000, tree, 8, true, 0, true, false), 8, true, "--spread, 1,000 on 8");
    EXPECT(decide(1000000000, tree, 8, true, 2, false, false), 2, true, "--gpus 2, a billion on 8");
    EXPECT(decide(two - 1, tree, 8, true, 2, false, false), 2, false, "--gpus 2 below two's spread");
    EXPECT(decide(1000000000, tree, 8, true, 6, false, false), 6, true, "--gpus 6, a billion on 8");
    EXPECT(decide(1 << 20, tree, 8, true, 2, true, false), 2, true, "--gpus 2 --spread, 1M");
    return test_exit("test_gpus_auto");
}
