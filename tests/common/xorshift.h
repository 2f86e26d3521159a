/*
 * xorshift: the tests' reproducible random numbers, Marsaglia's xorshift64
 * (shifts 13, 7, 17). Each test file keeps its own state and seed, so its
 * sequence does not depend on any other file. Static inline, as helpers
 * shared between test files are (check.h's counters are per file).
 */
#ifndef SHALE_TESTS_XORSHIFT_H
#define SHALE_TESTS_XORSHIFT_H

#include <stdint.h>

static inline uint64_t
xorshift64(uint64_t *state)
{
   *state ^= *state << 13;
   *state ^= *state >> 7;
   *state ^= *state << 17;
   return *state;
}

/* Bits 16-47 of the next value. */
static inline uint32_t
xorshift64_u32(uint64_t *state)
{
   return (uint32_t)(xorshift64(state) >> 16);
}

#endif
