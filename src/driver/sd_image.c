/* VkImage and VkImageView: creation, layout, memory requirements, binding, Android native buffers. */
#include "sd_image.h"

#include <string.h>

#include "rasterizer/sr_raster.h"
#include "rasterizer/sr_transfer.h"
#include "sd_ahb.h" /* AHB: external formats, image binding and requirements */
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_format.h"
#include "sd_memory.h"
#include "sd_physical_device.h"
#include "sd_sampler.h"
#include "sd_util.h"
#include "util/su_format.h"

/* ---- Android native buffers ---- */

/* Set once, when the HAL's library loads, before any device exists. */
static const struct sd_native_buffer_ops *sd_native_ops;

void
sd_image_register_native_buffer_ops(const struct sd_native_buffer_ops *ops)
{
   sd_native_ops = ops;
}

void
sd_image_presentation_properties_android(VkPhysicalDevicePresentationPropertiesANDROID *p)
{
   /* Shared presentable images need nothing beyond zero copy: the buffer
    * is the image's memory, so whatever the queue has finished is in the
    * buffer, and a release may follow a release with no acquire between. */
   p->sharedImage = VK_TRUE;
}

/* The pNext structs of VK_ANDROID_native_buffer an image creation carries;
 * all NULL unless the device enabled the extension. */
struct sd_image_android_info {
   const VkNativeBufferANDROID *native_buffer;
   const VkImageSwapchainCreateInfoKHR *swapchain;
   const VkSwapchainImageCreateInfoANDROID *swapchain_image;
};

static void
sd_image_android_info(const struct sd_device *device, const VkImageCreateInfo *ci,
                      struct sd_image_android_info *a)
{
   memset(a, 0, sizeof(*a));
   if (!device->enabled_extensions.ANDROID_native_buffer)
      return;
   a->native_buffer = sd_find_struct(ci, VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID);
   a->swapchain = sd_find_struct(ci, VK_STRUCTURE_TYPE_IMAGE_SWAPCHAIN_CREATE_INFO_KHR);
   a->swapchain_image = sd_find_struct(ci, VK_STRUCTURE_TYPE_SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID);
}

/* A gralloc buffer holds one plain 2D picture. */
static VkResult
sd_image_check_native(const VkImageCreateInfo *ci)
{
   if (!sd_native_ops)
      return sd_errorf(VK_ERROR_INITIALIZATION_FAILED, "no gralloc access in this build");
   if (ci->imageType != VK_IMAGE_TYPE_2D || ci->mipLevels != 1 || ci->arrayLayers != 1 ||
       ci->samples != VK_SAMPLE_COUNT_1_BIT || ci->extent.depth != 1 ||
       (ci->flags & (VK_IMAGE_CREATE_SPARSE_BINDING_BIT | VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT)))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "a native-buffer image is 2D with one level, layer and sample");
   if (su_format_multiplanar(ci->format))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "no multi-planar native-buffer images");
   return VK_SUCCESS;
}

/* Imports and maps the buffer and makes it the image's memory. */
static VkResult
sd_image_bind_native(struct sd_image *img, const VkNativeBufferANDROID *nb)
{
   assert(img->native && !img->native_bound && !img->data);
   struct sd_native_mapping m;
   VkResult r = sd_native_ops->import(img, nb, img->native, &m);
   if (r != VK_SUCCESS)
      return r;
   struct sd_image_level_layout *lv = &img->levels[0];
   lv->offset = 0;
   lv->row_pitch = m.row_pitch;
   lv->depth_pitch = m.row_pitch * img->extent.height;
   lv->layer_pitch = lv->depth_pitch;
   lv->size = lv->depth_pitch;
   img->size = lv->size;
   img->data = m.data;
   img->native_bound = true;
   return VK_SUCCESS;
}

VkDeviceSize
sd_image_compute_layout(const struct su_format_desc *desc, VkExtent3D extent, uint32_t mip_levels,
                        uint32_t array_layers, uint32_t samples,
                        struct sd_image_level_layout *levels)
{
   assert(mip_levels >= 1 && mip_levels <= SD_MAX_MIP_LEVELS);
   VkDeviceSize offset = 0;
   for (uint32_t l = 0; l < mip_levels; l++) {
      const VkExtent3D e = sd_minify_extent(extent, l);
      const uint64_t bx = (e.width + desc->block_width - 1) / desc->block_width;
      const uint64_t by = (e.height + desc->block_height - 1) / desc->block_height;
      struct sd_image_level_layout *lv = &levels[l];
      lv->offset = offset;
      const uint64_t row = bx * samples * desc->block_size;
      lv->row_pitch = sd_align64(row, row >= SD_IMAGE_ALIGNMENT ? SD_IMAGE_ALIGNMENT
                                                                 : SD_IMAGE_ROW_ALIGNMENT);
      lv->depth_pitch = lv->row_pitch * by;
      lv->layer_pitch = sd_align64(lv->depth_pitch * e.depth, SD_IMAGE_ALIGNMENT);
      lv->size = lv->layer_pitch * array_layers;
      offset += lv->size;   /* a multiple of SD_IMAGE_ALIGNMENT */
   }
   return offset;
}

/* The planes of a multi-planar image of `extent`; returns the bytes a
 * non-disjoint image needs (planes back to back), and leaves every plane at
 * offset 0 for a disjoint one. */
static VkDeviceSize
sd_image_plane_layout(const struct su_multiplanar_desc *mp, VkExtent3D extent, bool disjoint,
                      struct sd_image_plane *planes)
{
   VkDeviceSize offset = 0;
   for (uint32_t p = 0; p < mp->plane_count; p++) {
      const struct su_plane_desc *pd = &mp->planes[p];
      struct sd_image_plane *pl = &planes[p];
      memset(pl, 0, sizeof(*pl));
      pl->desc = su_format_desc(pd->format);
      pl->extent = (VkExtent3D) { (extent.width + pd->width_divisor - 1) / pd->width_divisor,
                                  (extent.height + pd->height_divisor - 1) / pd->height_divisor,
                                  1 };
      pl->row_pitch = sd_align64((uint64_t)pl->extent.width * pl->desc->block_size,
                                 SD_IMAGE_ROW_ALIGNMENT);
      pl->size = sd_align64(pl->row_pitch * pl->extent.height, SD_IMAGE_ALIGNMENT);
      pl->offset = disjoint ? 0 : offset;
      offset += pl->size;
   }
   return offset;
}

void
sd_image_level(const struct sd_image *img, uint32_t level, VkImageAspectFlags aspect,
               struct sr_image_level *out)
{
   assert(level < img->mip_levels);
   const int plane = su_plane_of_aspect(aspect);
   if (img->plane_count) {
      assert(plane >= 0 && (uint32_t)plane < img->plane_count && level == 0);
      const struct sd_image_plane *pl = &img->planes[plane];
      assert(pl->data);
      *out = (struct sr_image_level) {
         .base = pl->data,
         .format = pl->desc,
         .width = pl->extent.width,
         .height = pl->extent.height,
         .depth = 1,
         .layers = 1,
         .row_pitch = (size_t)pl->row_pitch,
         .depth_pitch = (size_t)(pl->row_pitch * pl->extent.height),
         .layer_pitch = (size_t)pl->size,
      };
      return;
   }
   assert(img->data);
   assert(aspect && !(aspect & ~img->desc->aspects));
   const struct sd_image_level_layout *lv = &img->levels[level];
   const VkExtent3D e = sd_minify_extent(img->extent, level);
   *out = (struct sr_image_level) {
      .base = img->data + lv->offset,
      .format = img->desc,
      .width = e.width * img->samples,
      .height = e.height,
      .depth = e.depth,
      .layers = img->array_layers,
      .row_pitch = (size_t)lv->row_pitch,
      .depth_pitch = (size_t)lv->depth_pitch,
      .layer_pitch = (size_t)lv->layer_pitch,
   };
}

/* Whether the parameters are ones vkGetPhysicalDeviceImageFormatProperties
 * accepts, within its limits (the spec makes anything else invalid usage; it
 * is reported, as VK_ERROR_FORMAT_NOT_SUPPORTED, rather than building an
 * image the driver may not handle). `p` receives the query's answer. */
static VkResult
sd_image_check(const struct sd_physical_device *pdev, const VkImageCreateInfo *ci,
               VkImageFormatProperties *p)
{
   /* A separate stencil usage (VkImageStencilUsageCreateInfo, Vulkan 1.2)
    * must be supported as well, as vkGetPhysicalDeviceImageFormatProperties2
    * answers it. */
   VkImageUsageFlags usage = ci->usage;
   const VkImageStencilUsageCreateInfo *stencil =
      sd_find_struct(ci, VK_STRUCTURE_TYPE_IMAGE_STENCIL_USAGE_CREATE_INFO);
   if (stencil)
      usage |= stencil->stencilUsage;
   if (sd_format_image_properties(pdev, ci->format, ci->imageType, ci->tiling, usage,
                                  ci->flags, p) != VK_SUCCESS)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "vkCreateImage: format/type/tiling/usage/flags not supported");
   if (ci->extent.width == 0 || ci->extent.height == 0 || ci->extent.depth == 0 ||
       ci->extent.width > p->maxExtent.width || ci->extent.height > p->maxExtent.height ||
       ci->extent.depth > p->maxExtent.depth)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "vkCreateImage: extent out of range");
   uint32_t max_dim = ci->extent.width > ci->extent.height ? ci->extent.width : ci->extent.height;
   max_dim = max_dim > ci->extent.depth ? max_dim : ci->extent.depth;
   uint32_t chain = 0;   /* floor(log2(max_dim)) + 1 */
   for (; max_dim; max_dim >>= 1)
      chain++;
   if (ci->mipLevels == 0 || ci->mipLevels > p->maxMipLevels || ci->mipLevels > chain ||
       ci->mipLevels > SD_MAX_MIP_LEVELS)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "vkCreateImage: mipLevels out of range");
   if (ci->arrayLayers == 0 || ci->arrayLayers > p->maxArrayLayers)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "vkCreateImage: arrayLayers out of range");
   /* _420 formats need even widths and heights (their chroma planes halve
    * both). */
   const struct su_multiplanar_desc *mp = su_format_multiplanar(ci->format);
   for (uint32_t i = 0; mp && i < mp->plane_count; i++) {
      if (ci->extent.width % mp->planes[i].width_divisor ||
          ci->extent.height % mp->planes[i].height_divisor)
         return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                          "vkCreateImage: a multi-planar extent its planes do not divide");
   }
   if (!(ci->samples & p->sampleCounts))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "vkCreateImage: sample count not supported");
   /* VkImageFormatListCreateInfo (VK_KHR_image_format_list): the formats
    * views will have. Memory is the same whatever they are, so the list only
    * has to be valid: without MUTABLE_FORMAT at most one format, the
    * image's; with it, formats compatible with the image's (or with one of
    * its planes'). */
   const VkImageFormatListCreateInfo *list =
      sd_find_struct(ci, VK_STRUCTURE_TYPE_IMAGE_FORMAT_LIST_CREATE_INFO);
   if (list && list->viewFormatCount) {
      const bool mutable = ci->flags & VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
      if (!mutable && (list->viewFormatCount > 1 || list->pViewFormats[0] != ci->format))
         return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                          "vkCreateImage: a view format list other than the image's format "
                          "without MUTABLE_FORMAT");
      const struct su_format_desc *own = su_format_desc(ci->format);
      for (uint32_t i = 0; i < list->viewFormatCount; i++) {
         const VkFormat f = list->pViewFormats[i];
         const struct su_format_desc *d = su_format_desc(f);
         bool ok = f == ci->format || (d && own && d->compat_class == own->compat_class);
         for (uint32_t pl = 0; !ok && d && mp && pl < mp->plane_count; pl++) {
            const struct su_format_desc *pd = su_format_desc(mp->planes[pl].format);
            ok = pd && pd->compat_class == d->compat_class;
         }
         if (!ok)
            return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                             "vkCreateImage: a view format list format incompatible with the "
                             "image's");
      }
   }
   if (ci->samples != VK_SAMPLE_COUNT_1_BIT && ci->mipLevels != 1)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "vkCreateImage: a multisampled image has one mip level");
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateImage(VkDevice _device, const VkImageCreateInfo *pCreateInfo,
               const VkAllocationCallbacks *pAllocator, VkImage *pImage)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const struct sd_physical_device *pdev = device->physical_device;
   const VkImageCreateInfo *ci = pCreateInfo;
   /* AHB: an external format (VkExternalFormatANDROID) stands for a real format. */
   VkImageCreateInfo ahb_ci;
   VkResult ahb_r = sd_ahb_image_create_info(device, &ci, &ahb_ci);
   if (ahb_r != VK_SUCCESS)
      return ahb_r;

   /* pNext: VK_ANDROID_native_buffer's structs (below); unknown structs are
    * ignored. */
   struct sd_image_android_info android;
   sd_image_android_info(device, ci, &android);
   const bool native = android.native_buffer || android.swapchain;
   VkImageFormatProperties p;
   VkResult r = native ? sd_image_check_native(ci) : VK_SUCCESS;
   if (r == VK_SUCCESS)
      r = sd_image_check(pdev, ci, &p);
   if (r != VK_SUCCESS)
      return r;

   struct sd_image_level_layout levels[SD_MAX_MIP_LEVELS];
   struct sd_image_plane planes[3];
   const struct su_format_desc *desc = su_format_desc(ci->format);
   const struct su_multiplanar_desc *mp = su_format_multiplanar(ci->format);
   const bool disjoint = mp && (ci->flags & VK_IMAGE_CREATE_DISJOINT_BIT);
   VkDeviceSize size;
   if (mp) {
      /* levels[0] repeats plane 0 for code that reads levels[] alone. */
      size = sd_image_plane_layout(mp, ci->extent, disjoint, planes);
      levels[0] = (struct sd_image_level_layout) {
         .offset = 0,
         .row_pitch = planes[0].row_pitch,
         .depth_pitch = planes[0].row_pitch * planes[0].extent.height,
         .layer_pitch = planes[0].size,
         .size = planes[0].size,
      };
   } else {
      size = sd_image_compute_layout(desc, ci->extent, ci->mipLevels, ci->arrayLayers,
                                     ci->samples, levels);
   }
   if (size > p.maxResourceSize)
      return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkCreateImage: larger than maxResourceSize");

   /* A native-buffer image keeps the platform's state after the struct. */
   const size_t img_bytes = sd_align64(sizeof(struct sd_image), SD_ALIGN_DEFAULT);
   const size_t native_bytes = native ? sd_native_ops->storage_size : 0;
   struct sd_image *img =
      sd_device_object_alloc(device, pAllocator, img_bytes + native_bytes, VK_OBJECT_TYPE_IMAGE);
   if (!img)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   img->type = ci->imageType;
   img->format = ci->format;
   img->desc = desc;
   img->mp = mp;
   img->plane_count = mp ? mp->plane_count : 0;
   img->disjoint = disjoint;
   if (mp)
      memcpy(img->planes, planes, sizeof(planes[0]) * mp->plane_count);
   img->extent = ci->extent;
   img->mip_levels = ci->mipLevels;
   img->array_layers = ci->arrayLayers;
   img->samples = ci->samples;
   img->tiling = ci->tiling;
   img->usage = ci->usage;
   img->flags = ci->flags;
   memcpy(img->levels, levels, sizeof(levels[0]) * ci->mipLevels);
   img->size = size;
   if (native) {
      img->native = (char *)img + img_bytes;
      if (android.swapchain_image)
         img->swapchain_usage = android.swapchain_image->usage;
      /* With VkNativeBufferANDROID here the buffer is the memory now;
       * otherwise (spec version 8) it comes with vkBindImageMemory2. */
      if (android.native_buffer) {
         r = sd_image_bind_native(img, android.native_buffer);
         if (r != VK_SUCCESS) {
            sd_device_object_free(device, pAllocator, img);
            return r;
         }
      }
   }
   *pImage = sd_image_to_handle(img);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyImage(VkDevice _device, VkImage _image, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_image, img, _image);
   if (!img)
      return;
   if (img->native_bound)
      sd_native_ops->release(img->native);
   sd_device_object_free(device, pAllocator, img);
}

/* The whole image's requirements, or (plane >= 0, disjoint images) one
 * plane's. */
static void
sd_image_requirements(const struct sd_image *img, int plane, VkMemoryRequirements *req)
{
   req->size = plane >= 0 && img->disjoint && (uint32_t)plane < img->plane_count
                  ? img->planes[plane].size
                  : img->size;
   req->alignment = SD_IMAGE_ALIGNMENT;
   req->memoryTypeBits = (1u << SD_MEMORY_TYPE_COUNT) - 1;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageMemoryRequirements(VkDevice _device, VkImage _image, VkMemoryRequirements *pReq)
{
   sd_image_requirements(sd_image_from_handle(_image), -1, pReq);
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageMemoryRequirements2(VkDevice _device, const VkImageMemoryRequirementsInfo2 *pInfo,
                               VkMemoryRequirements2 *pReq)
{
   /* VkImagePlaneMemoryRequirementsInfo: one plane of a disjoint image. */
   const VkImagePlaneMemoryRequirementsInfo *plane =
      sd_find_struct(pInfo, VK_STRUCTURE_TYPE_IMAGE_PLANE_MEMORY_REQUIREMENTS_INFO);
   sd_image_requirements(sd_image_from_handle(pInfo->image),
                         plane ? su_plane_of_aspect(plane->planeAspect) : -1,
                         &pReq->memoryRequirements);
   sd_fill_dedicated_requirements(pReq->pNext);
   /* AHB: images on AHardwareBuffers need their dedicated allocation. */
   sd_ahb_image_requirements(sd_image_from_handle(pInfo->image), pReq);
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageSparseMemoryRequirements(VkDevice _device, VkImage _image, uint32_t *pCount,
                                    VkSparseImageMemoryRequirements *pReqs)
{
   /* No sparse residency: images are never created with the sparse flags. */
   *pCount = 0;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageSparseMemoryRequirements2(VkDevice _device,
                                     const VkImageSparseMemoryRequirementsInfo2 *pInfo,
                                     uint32_t *pCount, VkSparseImageMemoryRequirements2 *pReqs)
{
   *pCount = 0;
}

static void
sd_image_bind(struct sd_image *img, struct sd_device_memory *mem, VkDeviceSize offset)
{
   img->memory = mem;
   img->memory_offset = offset;
   img->data = mem->data + offset;
   for (uint32_t p = 0; p < img->plane_count; p++) {
      img->planes[p].memory = mem;
      img->planes[p].memory_offset = offset + img->planes[p].offset;
      img->planes[p].data = img->data + img->planes[p].offset;
   }
   /* AHB: an image on an AHardwareBuffer dedicated to it takes the buffer's layout. */
   sd_ahb_image_bind(img, mem);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_BindImageMemory(VkDevice _device, VkImage _image, VkDeviceMemory _mem, VkDeviceSize offset)
{
   sd_image_bind(sd_image_from_handle(_image), sd_device_memory_from_handle(_mem), offset);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_BindImageMemory2(VkDevice _device, uint32_t count, const VkBindImageMemoryInfo *pInfos)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   /* pNext: VkBindImagePlaneMemoryInfo binds one plane of a disjoint image
    * (plane 0's binding is also the image's `memory` and `data`); device
    * groups do not apply. With VK_ANDROID_native_buffer enabled,
    * VkBindImageMemorySwapchainInfoKHR with VkNativeBufferANDROID chained
    * binds a native buffer (the swapchain handle and index are the
    * loader's, meaningless here). Unknown structs are ignored. */
   const bool android = device->enabled_extensions.ANDROID_native_buffer;
   for (uint32_t i = 0; i < count; i++) {
      struct sd_image *img = sd_image_from_handle(pInfos[i].image);
      const VkBindImageMemorySwapchainInfoKHR *sc =
         android ? sd_find_struct(&pInfos[i], VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR)
                 : NULL;
      const VkNativeBufferANDROID *nb =
         android ? sd_find_struct(&pInfos[i], VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID) : NULL;
      const VkBindImagePlaneMemoryInfo *plane =
         sd_find_struct(&pInfos[i], VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO);
      if (plane && img->disjoint) {
         const int p = su_plane_of_aspect(plane->planeAspect);
         if (p < 0 || (uint32_t)p >= img->plane_count)
            return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                             "vkBindImageMemory2: planeAspect names no plane of the image");
         struct sd_device_memory *mem = sd_device_memory_from_handle(pInfos[i].memory);
         struct sd_image_plane *pl = &img->planes[p];
         pl->memory = mem;
         pl->memory_offset = pInfos[i].memoryOffset;
         pl->data = mem->data + pInfos[i].memoryOffset;
         if (p == 0) {
            img->memory = mem;
            img->memory_offset = pInfos[i].memoryOffset;
            img->data = pl->data;
         }
         continue;
      }
      if (!sc && !nb) {
         sd_image_bind(img, sd_device_memory_from_handle(pInfos[i].memory),
                       pInfos[i].memoryOffset);
         continue;
      }
      /* Only swapchain images (created with VkImageSwapchainCreateInfoKHR)
       * take a native buffer here, and swapchain memory comes only from one. */
      if (!nb || !img->native || img->native_bound)
         return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY,
                          "swapchain binding without a native buffer, or to a non-swapchain image");
      VkResult r = sd_image_bind_native(img, nb);
      if (r != VK_SUCCESS)
         return r;
   }
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageSubresourceLayout(VkDevice _device, VkImage _image,
                             const VkImageSubresource *pSubresource, VkSubresourceLayout *pLayout)
{
   SD_FROM_HANDLE(sd_image, img, _image);
   /* Planes: offsets from the image's start, or from the plane's own
    * binding in a disjoint image. */
   const int plane = su_plane_of_aspect(pSubresource->aspectMask);
   if (img->plane_count && plane >= 0 && (uint32_t)plane < img->plane_count) {
      const struct sd_image_plane *pl = &img->planes[plane];
      pLayout->offset = pl->offset;
      pLayout->size = pl->size;
      pLayout->rowPitch = pl->row_pitch;
      pLayout->arrayPitch = pl->size;
      pLayout->depthPitch = pl->size;
      return;
   }
   /* Both tilings share one layout, so this is meaningful for either; depth
    * and stencil aspects of combined formats are interleaved and share it. */
   const struct sd_image_level_layout *lv = &img->levels[pSubresource->mipLevel];
   const VkExtent3D e = sd_minify_extent(img->extent, pSubresource->mipLevel);
   pLayout->offset = lv->offset + lv->layer_pitch * pSubresource->arrayLayer;
   pLayout->size = lv->depth_pitch * e.depth;
   pLayout->rowPitch = lv->row_pitch;
   pLayout->arrayPitch = lv->layer_pitch;
   pLayout->depthPitch = lv->depth_pitch;
}

/* ---- image views ---- */

static VkComponentSwizzle
sd_resolve_swizzle(VkComponentSwizzle s, VkComponentSwizzle identity)
{
   return s == VK_COMPONENT_SWIZZLE_IDENTITY ? identity : s;
}

/* Whether a view of a 3D image sees its z slices as array layers (2D and 2D
 * array views of a 2D_ARRAY_COMPATIBLE image, VK_KHR_maintenance1). */
static bool
sd_image_view_slices_as_layers(const struct sd_image *img, VkImageViewType type)
{
   return img->type == VK_IMAGE_TYPE_3D && type != VK_IMAGE_VIEW_TYPE_3D;
}

/* A multi-planar view's planes (every plane of the image, the view covers
 * the whole format). */
static void
sd_image_view_fill_planes(struct sd_image_view *view)
{
   const struct sd_image *img = view->image;
   struct shale_image_view_desc *d = &view->abi;
   d->plane_count = img->plane_count;
   for (uint32_t p = 0; p < img->plane_count; p++) {
      const struct sd_image_plane *pl = &img->planes[p];
      d->planes[p] = (struct shale_plane_desc) {
         .base = pl->data,
         .row_pitch = pl->row_pitch,
         .width = pl->extent.width,
         .height = pl->extent.height,
         .format = pl->desc->format,
         .texel_size = pl->desc->block_size,
      };
   }
   /* The single-plane fields describe plane 0 (luma), which storage and
    * fetch paths never reach for these views (texel_size 0). */
   d->base = img->planes[0].data;
   d->row_pitch[0] = img->planes[0].row_pitch;
   d->slice_pitch[0] = img->planes[0].size;
}

/* The view's shader ABI description. Texel (x, y, z) of view level i is at
 * abi.base + level_offset[i] + x * texel_size + y * row_pitch[i] +
 * z * slice_pitch[i]; z is the depth slice of 3D images, the view's array
 * layer otherwise (layer_pitch; z slices for 2D views of 3D images). A view
 * of one plane is an image of the plane's extent. Swizzles are resolved (no
 * IDENTITY). */
static void
sd_image_view_fill_abi(struct sd_image_view *view)
{
   const struct sd_image *img = view->image;
   struct shale_image_view_desc *d = &view->abi;
   const uint32_t base_level = view->range.baseMipLevel;
   const uint32_t base_layer = view->range.baseArrayLayer;
   const bool slices = sd_image_view_slices_as_layers(img, view->view_type);
   const bool is_3d = img->type == VK_IMAGE_TYPE_3D && !slices;
   const struct sd_image_level_layout *l0 = &img->levels[base_level];
   const VkDeviceSize base_offset =
      l0->offset + (VkDeviceSize)base_layer * (slices ? l0->depth_pitch : l0->layer_pitch);
   const VkExtent3D e = sd_minify_extent(img->extent, base_level);

   memset(d, 0, sizeof(*d));
   d->base = img->data ? img->data + base_offset : NULL;
   d->format = view->format;
   d->view_type = view->view_type;
   d->width = e.width;
   d->height = e.height;
   d->depth = is_3d ? e.depth : 1;
   d->level_count = view->range.levelCount;
   d->layer_count = view->range.layerCount;
   d->samples = img->samples;
   d->texel_size = view->desc ? view->desc->block_size : 0;
   /* One aspect: depth/stencil views read the aspect they name (depth
    * when they name both, which only non-sampling uses may). */
   const VkImageAspectFlags aspects = view->range.aspectMask;
   d->aspect = (aspects & VK_IMAGE_ASPECT_DEPTH_BIT)     ? VK_IMAGE_ASPECT_DEPTH_BIT
               : (aspects & VK_IMAGE_ASPECT_STENCIL_BIT) ? VK_IMAGE_ASPECT_STENCIL_BIT
                                                         : VK_IMAGE_ASPECT_COLOR_BIT;
   d->swizzle[0] = view->swizzle.r;
   d->swizzle[1] = view->swizzle.g;
   d->swizzle[2] = view->swizzle.b;
   d->swizzle[3] = view->swizzle.a;
   if (view->plane >= 0) {
      const struct sd_image_plane *pl = &img->planes[view->plane];
      d->base = pl->data;
      d->width = pl->extent.width;
      d->height = pl->extent.height;
      d->row_pitch[0] = pl->row_pitch;
      d->slice_pitch[0] = pl->size;
      return;
   }
   if (img->plane_count) {
      sd_image_view_fill_planes(view);
      return;
   }
   for (uint32_t i = 0; i < view->range.levelCount && i < 16; i++) {
      const struct sd_image_level_layout *l = &img->levels[base_level + i];
      const VkDeviceSize layer_pitch = slices ? l->depth_pitch : l->layer_pitch;
      d->row_pitch[i] = l->row_pitch;
      d->slice_pitch[i] = is_3d ? l->depth_pitch : layer_pitch;
      d->level_offset[i] = l->offset + (VkDeviceSize)base_layer * layer_pitch - base_offset;
   }
}

void
sd_image_view_surface(const struct sd_image_view *view, struct sr_surface *out)
{
   const struct sd_image *img = view->image;
   const uint32_t level = view->range.baseMipLevel;
   const struct sd_image_level_layout *lv = &img->levels[level];
   const VkDeviceSize layer_pitch =
      sd_image_view_slices_as_layers(img, view->view_type) ? lv->depth_pitch : lv->layer_pitch;
   const VkExtent3D e = sd_minify_extent(img->extent, level);
   assert(img->data && view->desc);
   *out = (struct sr_surface) {
      .base = img->data + lv->offset + layer_pitch * view->range.baseArrayLayer,
      .format = view->desc,
      .vk_format = view->format,
      .width = e.width,
      .height = e.height,
      .layers = view->range.layerCount,
      .samples = img->samples,
      .row_pitch = lv->row_pitch,
      .layer_pitch = layer_pitch,
   };
}

/* Which plane a view of a multi-planar image reads (-1: the whole format),
 * or an error for a view the image cannot have: the whole format under the
 * COLOR aspect, or one plane in a format compatible with that plane's. */
static VkResult
sd_image_view_plane(const struct sd_image *img, const VkImageViewCreateInfo *ci, int *plane)
{
   *plane = -1;
   if (!img->plane_count)
      return VK_SUCCESS;
   const VkImageAspectFlags aspect = ci->subresourceRange.aspectMask;
   if (aspect == VK_IMAGE_ASPECT_COLOR_BIT && ci->format == img->format)
      return VK_SUCCESS;
   const int p = su_plane_of_aspect(aspect);
   const struct su_format_desc *d = su_format_desc(ci->format);
   if (p < 0 || (uint32_t)p >= img->plane_count || !d ||
       d->compat_class != img->planes[p].desc->compat_class)
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED,
                       "vkCreateImageView: neither the whole multi-planar format nor one plane "
                       "in a format compatible with it");
   *plane = p;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateImageView(VkDevice _device, const VkImageViewCreateInfo *pCreateInfo,
                   const VkAllocationCallbacks *pAllocator, VkImageView *pView)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_image, img, pCreateInfo->image);
   /* AHB: a view of an external-format image names no format (the image's). */
   VkImageViewCreateInfo ahb_vi;
   pCreateInfo = sd_ahb_image_view_create_info(device, img, pCreateInfo, &ahb_vi);
   /* pNext: VkSamplerYcbcrConversionInfo (the conversion a view of a
    * multi-planar format is sampled with; sampling takes it from the
    * immutable sampler, which must carry the same); VkImageViewUsageCreateInfo
    * (maintenance2, Vulkan 1.1) narrows the usage the view is used for,
    * which changes nothing here (a view's memory and layout are its
    * image's); unknown structs are ignored. */
   int plane;
   VkResult r = sd_image_view_plane(img, pCreateInfo, &plane);
   if (r != VK_SUCCESS)
      return r;
   const VkSamplerYcbcrConversionInfo *conv =
      sd_find_struct(pCreateInfo, VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO);
   struct sd_image_view *view =
      sd_device_object_alloc(device, pAllocator, sizeof(*view), VK_OBJECT_TYPE_IMAGE_VIEW);
   if (!view)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   view->image = img;
   view->view_type = pCreateInfo->viewType;
   view->format = pCreateInfo->format;
   view->desc = su_format_desc(pCreateInfo->format);
   view->plane = plane;
   view->conversion = conv ? sd_ycbcr_conversion_from_handle(conv->conversion) : NULL;
   const VkComponentMapping *c = &pCreateInfo->components;
   view->swizzle = (VkComponentMapping) {
      sd_resolve_swizzle(c->r, VK_COMPONENT_SWIZZLE_R),
      sd_resolve_swizzle(c->g, VK_COMPONENT_SWIZZLE_G),
      sd_resolve_swizzle(c->b, VK_COMPONENT_SWIZZLE_B),
      sd_resolve_swizzle(c->a, VK_COMPONENT_SWIZZLE_A),
   };
   view->range = pCreateInfo->subresourceRange;
   view->range.levelCount = sd_image_level_count(img, &pCreateInfo->subresourceRange);
   view->range.layerCount = sd_image_layer_count(img, &pCreateInfo->subresourceRange);
   if (sd_image_view_slices_as_layers(img, view->view_type) &&
       pCreateInfo->subresourceRange.layerCount == VK_REMAINING_ARRAY_LAYERS)
      view->range.layerCount =
         sd_minify_extent(img->extent, view->range.baseMipLevel).depth - view->range.baseArrayLayer;
   sd_image_view_fill_abi(view);
   *pView = sd_image_view_to_handle(view);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyImageView(VkDevice _device, VkImageView _view, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_image_view, view, _view);
   if (view)
      sd_device_object_free(device, pAllocator, view);
}
