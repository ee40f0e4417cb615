/* base_trial.c - A/B trials of two ways to do a frame (base.h).
 *
 * Used where the faster way depends on the GPU, the picture and the load
 * and cannot be known in advance: who draws the sprites (app_sprites.c),
 * and whether a recording's next frame polls a fence before the interop
 * map (io_record.c). Whole frames are timed on the wall clock, since the
 * difference is in how the CPU and the GPU wait for each other.
 */
#include "base.h"

static void start_phase(base_trial *t, base_trial_phase phase) {
    t->phase = phase;
    t->count = 0;
}

void base_trial_start(base_trial *t, uint64_t signature, double now) {
    start_phase(t, BASE_TRIAL_WARM_A);
    t->signature = signature;
    t->started = now;
}

bool base_trial_use_a(base_trial *t, uint64_t signature, double now) {
    const bool decided = t->phase == BASE_TRIAL_DECIDED;
    const bool expired = t->desc.every > 0 && now - t->started > t->desc.every;
    if (signature != t->signature || (decided && expired)) base_trial_start(t, signature, now);
    switch (t->phase) {
    case BASE_TRIAL_WARM_A:
    case BASE_TRIAL_TIME_A:
        return true;
    case BASE_TRIAL_WARM_B:
    case BASE_TRIAL_TIME_B:
        return false;
    case BASE_TRIAL_DECIDED:
        break;
    }
    return t->a_chosen;
}

bool base_trial_frame_end(base_trial *t, double now) {
    const double frame = t->last_end > 0 ? now - t->last_end : 0;
    t->last_end = now;
    switch (t->phase) {
    case BASE_TRIAL_WARM_A:
    case BASE_TRIAL_WARM_B: {
        const int warm = t->phase == BASE_TRIAL_WARM_A ? t->desc.warm_a : t->desc.warm_b;
        if (t->count == 0) t->since = now - frame; /* when the phase's first frame began */
        const bool long_enough = t->desc.warm_seconds > 0 && now - t->since >= t->desc.warm_seconds;
        if (++t->count > warm || long_enough) start_phase(t, (base_trial_phase)(t->phase + 1));
        return false;
    }
    case BASE_TRIAL_TIME_A:
    case BASE_TRIAL_TIME_B:
        break;
    case BASE_TRIAL_DECIDED:
        return false;
    }
    if (t->phase == BASE_TRIAL_TIME_B && t->desc.b_give_up > 0 &&
        frame > t->desc.give_up_seconds && frame > t->desc.b_give_up * t->a_s) {
        t->b_s = frame;
        t->a_chosen = true;
        t->b_given_up = true;
        start_phase(t, BASE_TRIAL_DECIDED);
        return true;
    }
    if (t->count == 0) t->since = now;
    t->count++;
    const double spent = now - t->since;
    const bool long_enough = t->desc.max_seconds > 0 && spent >= t->desc.max_seconds;
    if (t->count <= t->desc.timed && !long_enough) return false;
    /* count - 1 frames ended since the first one timed */
    const double period = t->count > 1 ? spent / (t->count - 1) : 0;
    if (t->phase == BASE_TRIAL_TIME_A) {
        t->a_s = period;
        start_phase(t, BASE_TRIAL_WARM_B);
        return false;
    }
    t->b_s = period;
    t->a_chosen = !(t->a_s > t->b_s * (t->desc.b_margin > 0 ? t->desc.b_margin : 1.0));
    t->b_given_up = false;
    start_phase(t, BASE_TRIAL_DECIDED);
    return true;
}

uint64_t base_signature(const int64_t *parts, int count) {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < count; i++) h = (h ^ (uint64_t)parts[i]) * 1099511628211ull;
    return h;
}
