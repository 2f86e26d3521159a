/*
 * What the tests of tests/android share when they play Android's loader
 * against vulkan.shale.so: the loader's check and overwrite of the dispatch
 * word of every dispatchable object, allocation callbacks that count live
 * blocks and fail on demand, a count of mappings of a named memfd, and a
 * byte pattern for copies. Include after check.h; everything is static
 * inline (a program uses what it needs).
 *
 * ABI values are spelled out rather than taken from the driver's headers.
 */
#ifndef SHALE_TEST_LOADER_EMU_H
#define SHALE_TEST_LOADER_EMU_H

#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan_core.h>

#define ABI_DISPATCH_MAGIC ((uintptr_t)0x01CDC0DE)
#define ABI_MODULE_TAG 0x48574D54u

/* What the loader writes into the dispatch slot: its own table. */
static const struct { const void *slots[64]; } emu_loader_table;

static inline uintptr_t
emu_dispatch_word(const void *object)
{
   uintptr_t word;
   memcpy(&word, object, sizeof(word));
   return word;
}

/* The loader's check on every dispatchable object a driver returns, then
 * its own table in the slot. */
static inline void
take_dispatchable(const void *object, const char *what)
{
   CHECK(object != NULL, "%s is NULL", what);
   if (!object)
      return;
   CHECK(emu_dispatch_word(object) == ABI_DISPATCH_MAGIC, "%s dispatch word 0x%jx", what,
         (uintmax_t)emu_dispatch_word(object));
   const void *table = &emu_loader_table;
   memcpy((void *)object, &table, sizeof(table));
}

/* Lines of /proc/self/maps naming `what` (a memfd's name: the mappings of
 * it, the driver's and the test's); -1 without /proc. */
static inline int
count_maps(const char *what)
{
   FILE *f = fopen("/proc/self/maps", "r");
   if (!f)
      return -1;
   char line[512];
   int n = 0;
   while (fgets(line, sizeof(line), f))
      n += strstr(line, what) != NULL;
   fclose(f);
   return n;
}

/* A byte of a reproducible pattern (seed, index). */
static inline uint8_t
pattern(uint32_t seed, size_t i)
{
   uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 17);
   return (uint8_t)(x >> 31);
}

/* ---- allocation callbacks that count, and fail on demand ---- */

struct alloc_ctl {
   atomic_long live;
   atomic_int fail_in;   /* fail the allocation this many allocations from now; <0 never */
};

static inline void *VKAPI_PTR
ctl_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct alloc_ctl *c = user;
   if (atomic_load(&c->fail_in) >= 0 && atomic_fetch_sub(&c->fail_in, 1) == 0)
      return NULL;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
      return NULL;
   atomic_fetch_add(&c->live, 1);
   return p;
}

static inline void VKAPI_PTR
ctl_free(void *user, void *p)
{
   struct alloc_ctl *c = user;
   if (p) {
      atomic_fetch_sub(&c->live, 1);
      free(p);
   }
}

static inline void *VKAPI_PTR
ctl_realloc(void *user, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (!orig)
      return ctl_alloc(user, size, align, scope);
   if (size == 0) {
      ctl_free(user, orig);
      return NULL;
   }
   void *p = ctl_alloc(user, size, align, scope);
   if (!p)
      return NULL;
   size_t old = malloc_usable_size(orig);
   memcpy(p, orig, old < size ? old : size);
   ctl_free(user, orig);
   return p;
}

/* Callbacks counting into `ctl`. */
static inline VkAllocationCallbacks
ctl_callbacks(struct alloc_ctl *ctl)
{
   return (VkAllocationCallbacks) {
      .pUserData = ctl,
      .pfnAllocation = ctl_alloc,
      .pfnReallocation = ctl_realloc,
      .pfnFree = ctl_free,
   };
}

#endif
