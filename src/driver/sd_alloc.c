/* Host allocation through VkAllocationCallbacks, with an aligned-malloc default. */
#include "sd_alloc.h"

#include <stdlib.h>
#include <string.h>

/* The default allocator keeps the size in a header so realloc can copy. */
struct sd_default_header {
   size_t size;
   size_t offset;   /* from the malloc'd block to the user pointer */
};

static void *VKAPI_PTR
sd_default_allocation(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (align < sizeof(void *))
      align = sizeof(void *);
   size_t offset = (sizeof(struct sd_default_header) + align - 1) & ~(align - 1);
   if (size > SIZE_MAX - offset)
      return NULL;
   char *block;
   if (posix_memalign((void **)&block, align, offset + size) != 0)
      return NULL;
   char *p = block + offset;
   struct sd_default_header *h = (struct sd_default_header *)p - 1;
   h->size = size;
   h->offset = offset;
   return p;
}

static void VKAPI_PTR
sd_default_free(void *user, void *ptr)
{
   if (!ptr)
      return;
   struct sd_default_header *h = (struct sd_default_header *)ptr - 1;
   free((char *)ptr - h->offset);
}

static void *VKAPI_PTR
sd_default_reallocation(void *user, void *orig, size_t size, size_t align,
                        VkSystemAllocationScope scope)
{
   if (!orig)
      return sd_default_allocation(user, size, align, scope);
   if (size == 0) {
      sd_default_free(user, orig);
      return NULL;
   }
   void *p = sd_default_allocation(user, size, align, scope);
   if (!p)
      return NULL;
   struct sd_default_header *h = (struct sd_default_header *)orig - 1;
   memcpy(p, orig, h->size < size ? h->size : size);
   sd_default_free(user, orig);
   return p;
}

const VkAllocationCallbacks sd_default_alloc = {
   .pUserData = NULL,
   .pfnAllocation = sd_default_allocation,
   .pfnReallocation = sd_default_reallocation,
   .pfnFree = sd_default_free,
};

void *
sd_alloc(const VkAllocationCallbacks *a, size_t size, size_t align, VkSystemAllocationScope scope)
{
   a = a ? a : &sd_default_alloc;
   return a->pfnAllocation(a->pUserData, size, align, scope);
}

void *
sd_zalloc(const VkAllocationCallbacks *a, size_t size, size_t align, VkSystemAllocationScope scope)
{
   void *p = sd_alloc(a, size, align, scope);
   if (p)
      memset(p, 0, size);
   return p;
}

void *
sd_realloc(const VkAllocationCallbacks *a, void *ptr, size_t size, size_t align,
           VkSystemAllocationScope scope)
{
   a = a ? a : &sd_default_alloc;
   return a->pfnReallocation(a->pUserData, ptr, size, align, scope);
}

void
sd_free(const VkAllocationCallbacks *a, void *ptr)
{
   if (!ptr)
      return;
   a = a ? a : &sd_default_alloc;
   a->pfnFree(a->pUserData, ptr);
}

char *
sd_strdup(const VkAllocationCallbacks *a, const char *s, VkSystemAllocationScope scope)
{
   size_t len = strlen(s) + 1;
   char *p = sd_alloc(a, len, 1, scope);
   if (p)
      memcpy(p, s, len);
   return p;
}
