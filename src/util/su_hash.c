/* An intrusive hash table keyed by digests (su_hash.h). */
#include "su_hash.h"

#include <assert.h>
#include <string.h>

void
su_hash_init(struct su_hash_table *t, size_t key_size)
{
   assert(key_size > 0);
   memset(t, 0, sizeof(*t));
   t->key_size = key_size;
}

struct su_hash_node *
su_hash_find(const struct su_hash_table *t, const void *key)
{
   const uint8_t *k = key;
   for (struct su_hash_node *n = t->buckets[k[0]]; n; n = n->next)
      if (!memcmp(n->key, k, t->key_size))
         return n;
   return NULL;
}

void
su_hash_insert(struct su_hash_table *t, struct su_hash_node *n, const uint8_t *key)
{
   assert(!su_hash_find(t, key));
   n->key = key;
   n->next = t->buckets[key[0]];
   t->buckets[key[0]] = n;
   t->count++;
}

void
su_hash_remove(struct su_hash_table *t, struct su_hash_node *n)
{
   struct su_hash_node **p = &t->buckets[n->key[0]];
   while (*p != n) {
      assert(*p);
      p = &(*p)->next;
   }
   *p = n->next;
   n->next = NULL;
   t->count--;
}
