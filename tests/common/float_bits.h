/*
 * A float's bits and back, for tests that build or compare floats bit by
 * bit. Header-only (static inline): no state, safe in any test program.
 */
#ifndef SHALE_TEST_FLOAT_BITS_H
#define SHALE_TEST_FLOAT_BITS_H

#include <stdint.h>
#include <string.h>

/* The IEEE binary32 encoding of f. */
static inline uint32_t
fbits(float f)
{
   uint32_t u;
   memcpy(&u, &f, 4);
   return u;
}

/* The float whose IEEE binary32 encoding is u. */
static inline float
bitsf(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

#endif
