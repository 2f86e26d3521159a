/*
 * Shared by the Y'CbCr tests: a device with VK_KHR_sampler_ycbcr_conversion
 * (and what it requires) through the loader, the extension's entry points,
 * the multi-planar formats as the spec's format definitions describe them
 * (independent of the driver's tables), and host copies of plane contents.
 */
#ifndef YCBCR_COMMON_H
#define YCBCR_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

/* ---- formats, from the spec's definitions ---- */

/* A multi-planar format: plane p holds bytes[p] bytes per texel at
 * 1 / div[p] of the image's width and height; component R, G or B (index
 * 0, 1, 2) is byte byte_of[c] of plane plane_of[c]. */
struct yfmt {
   VkFormat format;
   const char *name;
   uint32_t planes;
   uint32_t bytes[3];
   uint32_t div[3];
   VkFormat plane_format[3];   /* the compatible format of each plane */
   uint32_t plane_of[3], byte_of[3];
};

static const struct yfmt yfmts[] = {
   /* G in plane 0, B in plane 1, R in plane 2; B and R planes halved. */
   { VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM, "G8_B8_R8_3PLANE_420_UNORM", 3, { 1, 1, 1 }, { 1, 2, 2 },
     { VK_FORMAT_R8_UNORM, VK_FORMAT_R8_UNORM, VK_FORMAT_R8_UNORM }, { 2, 0, 1 }, { 0, 0, 0 } },
   /* G in plane 0; plane 1 (halved) B in byte 0, R in byte 1. */
   { VK_FORMAT_G8_B8R8_2PLANE_420_UNORM, "G8_B8R8_2PLANE_420_UNORM", 2, { 1, 2, 0 }, { 1, 2, 1 },
     { VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM, VK_FORMAT_UNDEFINED }, { 1, 0, 1 }, { 1, 0, 0 } },
};
#define NYFMTS (sizeof(yfmts) / sizeof(yfmts[0]))

static inline VkImageAspectFlagBits
plane_aspect(uint32_t p)
{
   return p == 0 ? VK_IMAGE_ASPECT_PLANE_0_BIT
          : p == 1 ? VK_IMAGE_ASPECT_PLANE_1_BIT : VK_IMAGE_ASPECT_PLANE_2_BIT;
}

/* ---- host planes ---- */

struct yimg {
   const struct yfmt *f;
   uint32_t w, h;
   uint32_t pw[3], ph[3];     /* plane extents */
   uint8_t *plane[3];         /* tightly packed rows */
   size_t size[3];
};

static uint32_t yrng = 0x2545f491u;

static inline uint32_t
yrnd(void)
{
   yrng = yrng * 1664525u + 1013904223u;
   return yrng >> 8;
}

static inline double
yurand(double lo, double hi)
{
   return lo + (hi - lo) * (yrnd() & 0xffffff) / 16777216.0;
}

static inline void
yimg_init(struct yimg *im, const struct yfmt *f, uint32_t w, uint32_t h)
{
   memset(im, 0, sizeof(*im));
   im->f = f;
   im->w = w;
   im->h = h;
   for (uint32_t p = 0; p < f->planes; p++) {
      im->pw[p] = w / f->div[p];
      im->ph[p] = h / f->div[p];
      im->size[p] = (size_t)im->pw[p] * im->ph[p] * f->bytes[p];
      im->plane[p] = malloc(im->size[p]);
      for (size_t b = 0; b < im->size[p]; b++)
         im->plane[p][b] = (uint8_t)yrnd();
   }
}

static inline void
yimg_free(struct yimg *im)
{
   for (uint32_t p = 0; p < 3; p++)
      free(im->plane[p]);
}

/* Component c (0 R, 1 G, 2 B) of texel (i, j) of its plane, clamped to the
 * plane's edge, as UNORM. */
static inline double
yimg_comp(const struct yimg *im, int c, int64_t i, int64_t j)
{
   const uint32_t p = im->f->plane_of[c];
   i = i < 0 ? 0 : i >= im->pw[p] ? im->pw[p] - 1 : i;
   j = j < 0 ? 0 : j >= im->ph[p] ? im->ph[p] - 1 : j;
   return im->plane[p][((size_t)j * im->pw[p] + (size_t)i) * im->f->bytes[p] + im->f->byte_of[c]] /
          255.0;
}

/* ---- devices ---- */

struct ydev {
   struct vkt t;
   bool ycbcr;   /* the extension and the samplerYcbcrConversion feature are on */
   PFN_vkCreateSamplerYcbcrConversionKHR create_conversion;
   PFN_vkDestroySamplerYcbcrConversionKHR destroy_conversion;
   PFN_vkBindImageMemory2KHR bind_image_memory2;
   PFN_vkGetImageMemoryRequirements2KHR image_requirements2;
   PFN_vkGetPhysicalDeviceFormatProperties2KHR format_properties2;
   PFN_vkGetPhysicalDeviceImageFormatProperties2KHR image_format_properties2;
   PFN_vkGetPhysicalDeviceFeatures2KHR features2;
};

/* A device of `which` with VK_KHR_sampler_ycbcr_conversion, its required
 * extensions and the feature when the driver offers them (want_ycbcr),
 * else the plain required ones it has; `features` as given. */
static inline bool
ydev_init(struct ydev *d, enum vkt_driver which, bool want_ycbcr, bool no_validation,
          const VkAllocationCallbacks *alloc, const VkPhysicalDeviceFeatures *features)
{
   memset(d, 0, sizeof(*d));
   static const char *const iexts[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   struct vkt_options o = { .driver = which, .instance_extensions = iexts,
                            .instance_extension_count = 1, .no_validation = no_validation,
                            .alloc = alloc, .features = features };
   if (!vkt_init(&d->t, &o))
      return false;
   static const char *const all[] = {
      VK_KHR_MAINTENANCE_1_EXTENSION_NAME, VK_KHR_BIND_MEMORY_2_EXTENSION_NAME,
      VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME, VK_KHR_SAMPLER_YCBCR_CONVERSION_EXTENSION_NAME,
   };
   bool has[4], all_present = true;
   for (uint32_t i = 0; i < 4; i++) {
      has[i] = vkt_has_device_extension(d->t.pdev, all[i]);
      all_present &= has[i];
   }
   PFN_vkGetPhysicalDeviceFeatures2KHR f2 = (PFN_vkGetPhysicalDeviceFeatures2KHR)vkGetInstanceProcAddr(
      d->t.instance, "vkGetPhysicalDeviceFeatures2KHR");
   bool ycbcr = want_ycbcr && all_present && f2;
   if (ycbcr) {
      VkPhysicalDeviceSamplerYcbcrConversionFeatures yf = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES };
      VkPhysicalDeviceFeatures2 pf = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &yf };
      f2(d->t.pdev, &pf);
      ycbcr = yf.samplerYcbcrConversion;
   }
   vkt_finish(&d->t);
   const char *exts[4];
   uint32_t n = 0;
   for (uint32_t i = 0; i < 3; i++)
      if (has[i])
         exts[n++] = all[i];
   if (ycbcr)
      exts[n++] = all[3];
   VkPhysicalDeviceSamplerYcbcrConversionFeatures enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES,
      .samplerYcbcrConversion = VK_TRUE };
   o.device_extensions = exts;
   o.device_extension_count = n;
   o.device_pnext = ycbcr ? &enable : NULL;
   if (!vkt_init(&d->t, &o))
      return false;
   d->ycbcr = ycbcr;
   VkDevice dev = d->t.device;
   VkInstance inst = d->t.instance;
   if (ycbcr) {
      d->create_conversion = (PFN_vkCreateSamplerYcbcrConversionKHR)vkGetDeviceProcAddr(
         dev, "vkCreateSamplerYcbcrConversionKHR");
      d->destroy_conversion = (PFN_vkDestroySamplerYcbcrConversionKHR)vkGetDeviceProcAddr(
         dev, "vkDestroySamplerYcbcrConversionKHR");
   }
   d->bind_image_memory2 =
      (PFN_vkBindImageMemory2KHR)vkGetDeviceProcAddr(dev, "vkBindImageMemory2KHR");
   d->image_requirements2 = (PFN_vkGetImageMemoryRequirements2KHR)vkGetDeviceProcAddr(
      dev, "vkGetImageMemoryRequirements2KHR");
   d->format_properties2 = (PFN_vkGetPhysicalDeviceFormatProperties2KHR)vkGetInstanceProcAddr(
      inst, "vkGetPhysicalDeviceFormatProperties2KHR");
   d->image_format_properties2 = (PFN_vkGetPhysicalDeviceImageFormatProperties2KHR)
      vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceImageFormatProperties2KHR");
   d->features2 = f2 ? (PFN_vkGetPhysicalDeviceFeatures2KHR)vkGetInstanceProcAddr(
                          inst, "vkGetPhysicalDeviceFeatures2KHR")
                     : NULL;
   CHECK(!ycbcr || (d->create_conversion && d->destroy_conversion), "%s: conversion entry points",
         vkt_driver_name(which));
   return true;
}

/* A VkDeviceMemory of `size` bytes from the first type `bits` allows with
 * `flags`; mapped into *map when host visible (map may be NULL). */
static inline VkResult
ydev_alloc(struct ydev *d, VkDeviceSize size, uint32_t bits, VkMemoryPropertyFlags flags,
           VkDeviceMemory *mem, void **map)
{
   int type = vkt_memory_type(&d->t, bits, flags);
   if (type < 0)
      return VK_ERROR_OUT_OF_DEVICE_MEMORY;
   VkMemoryAllocateInfo ai = { VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, NULL, size, (uint32_t)type };
   VkResult r = vkAllocateMemory(d->t.device, &ai, NULL, mem);
   if (r == VK_SUCCESS && map)
      r = vkMapMemory(d->t.device, *mem, 0, VK_WHOLE_SIZE, 0, map);
   return r;
}

/* Memory for plane p of a disjoint image (its requirements through
 * VkImagePlaneMemoryRequirementsInfo) or, not disjoint, for the whole
 * image: the requirements (req_next chained into VkMemoryRequirements2, may
 * be NULL; the size into *size, may be NULL), an allocation of them with
 * `flags` (mapped into *map, may be NULL), and *bind (with *pinfo chained
 * when disjoint) to bind it with vkBindImageMemory2KHR. */
static inline VkResult
ydev_plane_memory(struct ydev *d, VkImage image, bool disjoint, uint32_t p,
                  VkMemoryPropertyFlags flags, void *req_next, VkDeviceSize *size,
                  VkDeviceMemory *mem, void **map, VkBindImageMemoryInfo *bind,
                  VkBindImagePlaneMemoryInfo *pinfo)
{
   VkImagePlaneMemoryRequirementsInfo pi = { VK_STRUCTURE_TYPE_IMAGE_PLANE_MEMORY_REQUIREMENTS_INFO,
                                             NULL, plane_aspect(p) };
   VkImageMemoryRequirementsInfo2 ri = { VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
                                         disjoint ? &pi : NULL, image };
   VkMemoryRequirements2 req = { .sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
                                 .pNext = req_next };
   d->image_requirements2(d->t.device, &ri, &req);
   if (size)
      *size = req.memoryRequirements.size;
   *pinfo = (VkBindImagePlaneMemoryInfo) { VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO, NULL,
                                           plane_aspect(p) };
   *bind = (VkBindImageMemoryInfo) { VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO,
                                     disjoint ? pinfo : NULL, image, VK_NULL_HANDLE, 0 };
   VkResult r = ydev_alloc(d, req.memoryRequirements.size, req.memoryRequirements.memoryTypeBits,
                           flags, mem, map);
   bind->memory = *mem;
   return r;
}

#endif
