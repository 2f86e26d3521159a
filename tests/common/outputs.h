/*
 * outputs: results one driver produced, kept by name to be compared word
 * for word with another driver's (Shale's with lavapipe's) at the end of a
 * test. A kept result may say which of its words departed from the test's
 * own (C) reference: where the comparison driver departed, its words are
 * not compared (its departures are printed by the test, not asserted, and
 * the comparison must not assert them in their place). Header-only, so
 * that its CHECKs count in the test that includes it (after check.h). Owns
 * copies of the kept data; single-threaded.
 */
#ifndef SHALE_TEST_OUTPUTS_H
#define SHALE_TEST_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OUTPUTS_MAX 32

struct outputs {
   uint32_t *data[OUTPUTS_MAX];
   bool *departed[OUTPUTS_MAX];     /* a flag per word, or NULL: none departed */
   size_t size[OUTPUTS_MAX];
   const char *what[OUTPUTS_MAX];   /* not copied: a string literal */
   unsigned count;
};

/* Keeps a copy of size bytes (a multiple of 4) under the name `what`, and
 * of `departed` (NULL, or size / 4 flags: the words where the driver's
 * results departed from the test's reference). */
static inline void
outputs_keep_departed(struct outputs *o, const char *what, const void *data, size_t size,
                      const bool *departed)
{
   if (o->count >= OUTPUTS_MAX)
      return;
   o->data[o->count] = malloc(size);
   memcpy(o->data[o->count], data, size);
   o->departed[o->count] = NULL;
   if (departed) {
      o->departed[o->count] = malloc(size / 4 * sizeof(bool));
      memcpy(o->departed[o->count], departed, size / 4 * sizeof(bool));
   }
   o->size[o->count] = size;
   o->what[o->count] = what;
   o->count++;
}

/* Keeps a copy of size bytes (a multiple of 4) under the name `what`. */
static inline void
outputs_keep(struct outputs *o, const char *what, const void *data, size_t size)
{
   outputs_keep_departed(o, what, data, size, NULL);
}

static inline void
outputs_free(struct outputs *o)
{
   for (unsigned i = 0; i < o->count; i++) {
      free(o->data[i]);
      free(o->departed[i]);
   }
   memset(o, 0, sizeof(*o));
}

/* Pairs a's (Shale's) results with b's (lavapipe's) of the same name, in
 * order (a name kept n times pairs n times), and checks each pair is the
 * same size and the same words, except the words where b departed from the
 * test's reference: those are counted and printed, not compared. (Where a
 * departed, its own checks have failed; its words are compared all the
 * same.) Returns how many pairs were compared. */
static inline unsigned
outputs_compare(const char *label, const struct outputs *a, const struct outputs *b)
{
   bool used[OUTPUTS_MAX] = { false };
   unsigned compared = 0;
   for (unsigned i = 0; i < a->count; i++) {
      for (unsigned j = 0; j < b->count; j++) {
         if (used[j] || strcmp(a->what[i], b->what[j]))
            continue;
         used[j] = true;
         compared++;
         CHECK(a->size[i] == b->size[j], "%s: %s: sizes differ (%zu vs %zu bytes)", label,
               a->what[i], a->size[i], b->size[j]);
         if (a->size[i] != b->size[j])
            break;
         const uint32_t *x = a->data[i], *y = b->data[j];
         const bool *skip = b->departed[j];
         size_t words = a->size[i] / 4, diff = 0, first = 0, skipped = 0, skipped_diff = 0;
         for (size_t w = 0; w < words; w++) {
            if (skip && skip[w]) {
               skipped++;
               skipped_diff += x[w] != y[w];
            } else if (x[w] != y[w] && !diff++) {
               first = w;
            }
         }
         if (skipped)
            fprintf(stderr,
                    "note: %s: %s: %zu of %zu words not compared: lavapipe departed from the C "
                    "reference there (%zu of them differ from Shale's)\n",
                    label, a->what[i], skipped, words, skipped_diff);
         CHECK(diff == 0,
               "%s: %s: Shale and lavapipe differ in %zu words (first: [%zu] %08x vs %08x)", label,
               a->what[i], diff, first, x[first], y[first]);
         break;
      }
   }
   return compared;
}

#endif
