/* test_check.h - CHECK and the exit status, for every C test.
 *
 * CHECK(cond, ...) reports a failure with file:line and a message and keeps
 * going, so one run shows every broken property; test_exit() turns the count
 * into the exit status. Exit code 77 means "skipped" to CTest
 * (SKIP_RETURN_CODE). Needs nothing but libc, so the snapshot tests, which
 * do not link the simulation, share it with the rest (test_util.h).
 */
#ifndef NBODY_TEST_CHECK_H
#define NBODY_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>

#define TEST_SKIP 77

/* Uniform in [0, 1) from splitmix64 (state advanced in place): the tests'
 * own generator, independent of the simulation's. */
static inline double test_splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (double)((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
}

static int test_failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            test_failures++;                                                                       \
            fprintf(stderr, "%s:%d: FAILED %s: ", __FILE__, __LINE__, #cond);                      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static inline int test_exit(const char *name) {
    if (test_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, test_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif /* NBODY_TEST_CHECK_H */
