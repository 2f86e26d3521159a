/*
 * sd_alloc: host memory for driver objects, through VkAllocationCallbacks.
 *
 * Owns: the default allocator (aligned malloc) and the choose-the-allocator
 * rule: an object created with pAllocator uses it, otherwise its device's,
 * otherwise its instance's, otherwise the default. The same callbacks must be
 * used to free (the spec requires the app to pass compatible ones).
 *
 * Invariants: every host allocation of the driver goes through here (never raw
 * malloc), so an application allocator that fails is seen on every path. A
 * failing allocation returns NULL; callers unwind and return
 * VK_ERROR_OUT_OF_HOST_MEMORY.
 *
 * Threading: the default allocator is thread-safe; application callbacks are
 * called as the spec allows (possibly from the queue thread for command-scope
 * allocations).
 */
#ifndef SD_ALLOC_H
#define SD_ALLOC_H

#include <stddef.h>
#include <vulkan/vulkan_core.h>

extern const VkAllocationCallbacks sd_default_alloc;

/* The callbacks to use: `local` if non-NULL, else `parent` (already resolved). */
static inline const VkAllocationCallbacks *
sd_choose_alloc(const VkAllocationCallbacks *local, const VkAllocationCallbacks *parent)
{
   return local ? local : (parent ? parent : &sd_default_alloc);
}

void *sd_alloc(const VkAllocationCallbacks *a, size_t size, size_t align,
               VkSystemAllocationScope scope);
void *sd_zalloc(const VkAllocationCallbacks *a, size_t size, size_t align,
                VkSystemAllocationScope scope);
void *sd_realloc(const VkAllocationCallbacks *a, void *ptr, size_t size, size_t align,
                 VkSystemAllocationScope scope);
void sd_free(const VkAllocationCallbacks *a, void *ptr);
char *sd_strdup(const VkAllocationCallbacks *a, const char *s, VkSystemAllocationScope scope);

#define SD_ALIGN_DEFAULT 16

#endif
