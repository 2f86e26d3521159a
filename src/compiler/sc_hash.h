/*
 * SHA-256 for compile keys and shader blob checksums.
 *
 * Design note
 * -----------
 * Owns nothing: struct sc_sha256 is caller-owned state. FIPS 180-4 SHA-256,
 * byte-oriented input, big-endian digest as the standard defines it.
 * Threading: one state per thread; the functions keep no global state.
 */
#ifndef SC_HASH_H
#define SC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SC_SHA256_SIZE 32

struct sc_sha256 {
   uint32_t h[8];
   uint64_t length;        /* bytes hashed so far */
   uint8_t block[64];
   uint32_t used;          /* bytes waiting in block */
};

void sc_sha256_init(struct sc_sha256 *s);
void sc_sha256_update(struct sc_sha256 *s, const void *data, size_t size);
void sc_sha256_final(struct sc_sha256 *s, uint8_t digest[SC_SHA256_SIZE]);

/* One-shot digest of a byte range. */
void sc_sha256(const void *data, size_t size, uint8_t digest[SC_SHA256_SIZE]);

#endif
