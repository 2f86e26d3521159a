/* Unit test of su_hash: find, insert and remove of digest-keyed nodes,
 * chains shared by keys with the same first byte, against a plain array
 * as the reference. */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "util/su_hash.h"
#include "util/su_sha256.h"

struct object {
   uint8_t key[32];
   int value;
   struct su_hash_node node;
   int in_table;
};

#define N 600

static struct object objects[N];

static struct object *
find(struct su_hash_table *t, const uint8_t *key)
{
   struct su_hash_node *n = su_hash_find(t, key);
   return n ? su_hash_entry(n, struct object, node) : NULL;
}

int
main(void)
{
   struct su_hash_table t;
   su_hash_init(&t, 32);
   CHECK_EQ_INT(t.count, 0);
   for (int i = 0; i < N; i++) {
      /* Digest keys, with a block of them sharing one first byte (one
       * chain) and differing only in the last byte. */
      if (i < 500) {
         uint32_t v = (uint32_t)i;
         su_sha256(&v, sizeof(v), objects[i].key);
      } else {
         memset(objects[i].key, 0x5a, 32);
         objects[i].key[31] = (uint8_t)i;
      }
      objects[i].value = i;
   }
   for (int i = 0; i < N; i += 2) {
      CHECK(find(&t, objects[i].key) == NULL, "key %d found before insertion", i);
      su_hash_insert(&t, &objects[i].node, objects[i].key);
      objects[i].in_table = 1;
   }
   CHECK_EQ_INT(t.count, N / 2);
   for (int i = 0; i < N; i++) {
      struct object *o = find(&t, objects[i].key);
      if (objects[i].in_table)
         CHECK(o == &objects[i], "key %d maps to %d", i, o ? o->value : -1);
      else
         CHECK(o == NULL, "key %d (not inserted) maps to %d", i, o ? o->value : -1);
   }
   /* A copy of a key finds its node (the table compares bytes, not
    * pointers). */
   uint8_t copy[32];
   memcpy(copy, objects[42].key, 32);
   CHECK(find(&t, copy) == &objects[42], "copied key");
   /* Remove every fourth, from heads, middles and tails of chains. */
   for (int i = 0; i < N; i += 4) {
      su_hash_remove(&t, &objects[i].node);
      objects[i].in_table = 0;
   }
   CHECK_EQ_INT(t.count, N / 4);
   for (int i = 0; i < N; i++) {
      struct object *o = find(&t, objects[i].key);
      CHECK(o == (objects[i].in_table ? &objects[i] : NULL), "after removals: key %d", i);
   }
   /* Everything out: every chain is empty. */
   for (int i = 0; i < N; i++)
      if (objects[i].in_table)
         su_hash_remove(&t, &objects[i].node);
   CHECK_EQ_INT(t.count, 0);
   int nonempty = 0;
   for (int b = 0; b < SU_HASH_BUCKETS; b++)
      nonempty += t.buckets[b] != NULL;
   CHECK_EQ_INT(nonempty, 0);
   return check_finish();
}
