/* sim_rng.h - the random numbers behind every initial condition.
 *
 * xoshiro256** seeded through splitmix64 (Blackman & Vigna): small, fast,
 * and the same sequence on every platform and compiler, so a seed names one
 * initial condition everywhere. Explicit state, no globals.
 *
 * Streams (sim_rng_stream): a generator of its own for each body of an
 * initial condition, seeded from the seed and the body's number alone, so
 * that the bodies can be drawn on any number of threads in any order and
 * still be the same bodies.
 */
#ifndef NBODY_SIM_RNG_H
#define NBODY_SIM_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct sim_rng {
    uint64_t s[4];
} sim_rng;

static inline uint64_t sim_rng_splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static inline sim_rng sim_rng_seed(uint64_t seed) {
    sim_rng r;
    for (int i = 0; i < 4; i++) r.s[i] = sim_rng_splitmix64(&seed);
    return r;
}

/* splitmix64's finalizer: a bijection that scrambles every input bit. */
static inline uint64_t sim_rng_mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Generator number `stream` of `seed`: a function of the two alone. The
 * seed is scrambled before the stream is added, so neighbouring seeds do
 * not share streams shifted by one. */
static inline sim_rng sim_rng_stream(uint64_t seed, uint64_t stream) {
    return sim_rng_seed(sim_rng_mix64(sim_rng_mix64(seed) + stream));
}

static inline uint64_t sim_rng_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t sim_rng_next(sim_rng *r) {
    uint64_t *s = r->s;
    uint64_t result = sim_rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sim_rng_rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1), 53 random bits. */
static inline double sim_rng_uniform(sim_rng *r) {
    return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [lo, hi). */
static inline double sim_rng_range(sim_rng *r, double lo, double hi) {
    return lo + (hi - lo) * sim_rng_uniform(r);
}

/* Standard normal deviate (Box-Muller; one of the pair is dropped). */
static inline double sim_rng_normal(sim_rng *r) {
    double u1 = 1.0 - sim_rng_uniform(r); /* (0, 1] so log is finite */
    double u2 = sim_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A direction uniform on the unit sphere. */
static inline void sim_rng_direction(sim_rng *r, double out[3]) {
    double z = sim_rng_range(r, -1.0, 1.0);
    double phi = sim_rng_range(r, 0.0, 6.283185307179586);
    double s = sqrt(1.0 - z * z);
    out[0] = s * cos(phi);
    out[1] = s * sin(phi);
    out[2] = z;
}

#endif /* NBODY_SIM_RNG_H */
