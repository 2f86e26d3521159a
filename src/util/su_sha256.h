/*
 * su_sha256: SHA-256 for compile keys, shader blob checksums and pipeline
 * cache keys (the compiler and the driver share it).
 *
 * Design note
 * -----------
 * Owns nothing: struct su_sha256 is caller-owned state. FIPS 180-4 SHA-256,
 * byte-oriented input, big-endian digest as the standard defines it.
 * Threading: one state per thread; the functions keep no global state.
 */
#ifndef SU_SHA256_H
#define SU_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SU_SHA256_SIZE 32

struct su_sha256 {
   uint32_t h[8];
   uint64_t length;        /* bytes hashed so far */
   uint8_t block[64];
   uint32_t used;          /* bytes waiting in block */
};

void su_sha256_init(struct su_sha256 *s);
void su_sha256_update(struct su_sha256 *s, const void *data, size_t size);
void su_sha256_final(struct su_sha256 *s, uint8_t digest[SU_SHA256_SIZE]);

/* One-shot digest of a byte range. */
void su_sha256(const void *data, size_t size, uint8_t digest[SU_SHA256_SIZE]);

#endif
