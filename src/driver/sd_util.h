/*
 * sd_util: error reporting, pNext-chain walking and the count/array query
 * pattern, shared by every driver object.
 *
 * Invariants: sd_error() never changes the code it is given; it only logs
 * (file:line, with SHALE_DEBUG=errors). pNext helpers ignore unknown structs.
 *
 * Threading: stateless.
 */
#ifndef SD_UTIL_H
#define SD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <vulkan/vulkan_core.h>

#include "util/su_log.h"

VkResult sd_error_log(VkResult result, const char *file, int line, const char *msg);

/* return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY); logs where, returns the code. */
#define sd_error(result) sd_error_log((result), __FILE__, __LINE__, NULL)
#define sd_errorf(result, msg) sd_error_log((result), __FILE__, __LINE__, (msg))

#define sd_foreach_struct(__it, __chain)                                              \
   for (const VkBaseInStructure *__it = (const VkBaseInStructure *)(__chain); __it;   \
        __it = __it->pNext)

#define sd_foreach_struct_out(__it, __chain)                                          \
   for (VkBaseOutStructure *__it = (VkBaseOutStructure *)(__chain); __it;             \
        __it = __it->pNext)

/* The first struct of `stype` in a pNext chain starting at `start`'s pNext. */
static inline const void *
sd_find_struct(const void *start, VkStructureType stype)
{
   for (const VkBaseInStructure *s = start ? ((const VkBaseInStructure *)start)->pNext : NULL;
        s; s = s->pNext) {
      if (s->sType == stype)
         return s;
   }
   return NULL;
}

/* The count/array dance: SD_OUTARRAY(out, props, pCount); then for each item
 * sd_outarray_append(&out) returns a slot or NULL; sd_outarray_status()
 * gives VK_SUCCESS or VK_INCOMPLETE and *pCount is final. */
struct sd_outarray {
   void *data;
   size_t elem_size;
   uint32_t cap;
   uint32_t *count;
   uint32_t wanted;
};

static inline void
sd_outarray_init(struct sd_outarray *o, void *data, size_t elem_size, uint32_t *count)
{
   o->data = data;
   o->elem_size = elem_size;
   o->cap = data ? *count : UINT32_MAX;
   o->count = count;
   o->wanted = 0;
   *count = 0;
}

static inline void *
sd_outarray_append(struct sd_outarray *o)
{
   o->wanted++;
   if (!o->data) {
      (*o->count)++;
      return NULL;
   }
   if (*o->count >= o->cap)
      return NULL;
   return (char *)o->data + o->elem_size * (*o->count)++;
}

static inline VkResult
sd_outarray_status(const struct sd_outarray *o)
{
   return o->wanted > *o->count ? VK_INCOMPLETE : VK_SUCCESS;
}

static inline uint64_t sd_align64(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

#endif
