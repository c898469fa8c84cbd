/*
 * tests/support/xorshift.h — the tests' small seeded generator (xorshift32): the same numbers
 * on every machine for a given seed, for generated models and random poses.
 */
#ifndef MN_TEST_XORSHIFT_H
#define MN_TEST_XORSHIFT_H

#include <stdint.h>

/* The next number of the sequence in *state (which must not be 0), and the state advanced. */
static inline uint32_t mn_test_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

/* Uniform in [lo, hi] (24 bits of the next number). */
static inline float mn_test_random_in(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(mn_test_random(state) >> 8) * (1.0f / 16777215.0f);
}

#endif /* MN_TEST_XORSHIFT_H */
