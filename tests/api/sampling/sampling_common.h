/*
 * Shared by the sampling tests: the reference's wrapping, how they open a
 * driver and how they make a kernel. A test enables only the features (and
 * extensions) the driver offers, so it opens the driver once to read them,
 * closes it, and opens it again with what it chose. Owns nothing beyond the
 * struct vkt it opens; single-threaded, like the tests.
 */
#ifndef SAMPLING_COMMON_H
#define SAMPLING_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "check.h"
#include "vkt.h"

/* The reference's Wrapping Operation (the spec's "Image Operations"
 * chapter) of texel index i in a size-n dimension; sets *border when the
 * texel is a border texel. */
static inline int64_t
smp_wrap(int64_t i, int64_t n, VkSamplerAddressMode m, bool *border)
{
   switch (m) {
   case VK_SAMPLER_ADDRESS_MODE_REPEAT:
      return ((i % n) + n) % n;
   case VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT: {
      int64_t t = ((i % (2 * n)) + 2 * n) % (2 * n) - n;
      return (n - 1) - (t >= 0 ? t : -(1 + t));
   }
   case VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER:
      if (i < 0 || i >= n)
         *border = true;
      return i < 0 ? 0 : i >= n ? n - 1 : i;
   case VK_SAMPLER_ADDRESS_MODE_MIRROR_CLAMP_TO_EDGE: {
      /* clamp(mirror(i), 0, size - 1), mirror(n) = n >= 0 ? n : -(1 + n) */
      int64_t mirror = i >= 0 ? i : -(1 + i);
      return mirror >= n ? n - 1 : mirror;
   }
   default:
      return i < 0 ? 0 : i >= n ? n - 1 : i;
   }
}

/* Picks, on the probe device t (open with no features) whose features are
 * `have`, the features *want (zeroed on entry) and the options in *o
 * (device extensions; the driver is set) of the device the test runs on.
 * ctx is the caller's. */
typedef void (*smp_choose_fn)(struct vkt *t, const VkPhysicalDeviceFeatures *have,
                              VkPhysicalDeviceFeatures *want, struct vkt_options *o, void *ctx);

/* Opens `which` with no features, reads its features into *have, lets
 * choose pick, closes it and opens it again with the choice. Returns false
 * (with nothing open) when the driver is missing. */
static inline bool
smp_open(struct vkt *t, enum vkt_driver which, VkPhysicalDeviceFeatures *have,
         smp_choose_fn choose, void *ctx)
{
   struct vkt_options o = { .driver = which };
   if (!vkt_init(t, &o))
      return false;
   vkGetPhysicalDeviceFeatures(t->pdev, have);
   VkPhysicalDeviceFeatures want = { 0 };
   choose(t, have, &want, &o, ctx);
   vkt_finish(t);
   o.features = &want;
   return vkt_init(t, &o);
}

/* vkt_kernel_create with a CHECK for each object it makes: set layout,
 * pipeline layout, module and pipeline, each named after `what`. */
static inline VkResult
smp_kernel_create(struct vkt *t, const struct vkt_kernel_info *info, struct vkt_kernel *k,
                  const char *what)
{
   VkResult r = vkt_kernel_create(t, info, k);
   CHECK(k->set_count == 1, "%s: set layout", what);
   CHECK(k->layout != VK_NULL_HANDLE, "%s: pipeline layout", what);
   CHECK(k->module != VK_NULL_HANDLE, "%s: module", what);
   CHECK(r == VK_SUCCESS && k->pipeline != VK_NULL_HANDLE, "%s: pipeline: %d", what, r);
   return r;
}

#endif
