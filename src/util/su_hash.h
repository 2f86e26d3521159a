/*
 * su_hash: an intrusive hash table of objects keyed by digests (fixed-size
 * keys whose bytes are already uniformly distributed, such as SHA-256
 * outputs: the shader runtime's memory cache uses one).
 *
 * Design note
 * -----------
 * Owns: nothing but its bucket array. Each object embeds a struct
 * su_hash_node that points at the object's own key (key_size bytes, which
 * must not change while the node is in the table); SU_HASH_BUCKETS chains,
 * chosen by the key's first byte, newest first. No hashing is done: keys
 * that are not digests (uneven first bytes) would crowd a few chains, so
 * hash such keys into a digest first. No allocation: insertion cannot fail.
 *
 * Invariants: a node is in at most one table and at most once; keys in a
 * table are distinct (su_hash_insert's caller checks with su_hash_find
 * first); `count` is the number of nodes in the table.
 *
 * Threading: none inside; the owner locks.
 */
#ifndef SU_HASH_H
#define SU_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SU_HASH_BUCKETS 256

struct su_hash_node {
   struct su_hash_node *next;
   const uint8_t *key;
};

struct su_hash_table {
   size_t key_size;
   uint32_t count;
   struct su_hash_node *buckets[SU_HASH_BUCKETS];
};

/* The object of type `type` whose member `member` is the node `node`. */
#define su_hash_entry(node, type, member) \
   ((type *)((char *)(node) - offsetof(type, member)))

void su_hash_init(struct su_hash_table *t, size_t key_size);

/* The node whose key equals `key`, or NULL. */
struct su_hash_node *su_hash_find(const struct su_hash_table *t, const void *key);

/* Adds `n`, keyed by `key` (the object's own bytes; no node with an equal
 * key may be in the table). */
void su_hash_insert(struct su_hash_table *t, struct su_hash_node *n, const uint8_t *key);

/* Takes `n`, which is in the table, out of it. */
void su_hash_remove(struct su_hash_table *t, struct su_hash_node *n);

#endif
