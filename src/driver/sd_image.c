/* VkImage and VkImageView: creation, layout, memory requirements, binding. */
#include "sd_image.h"

#include "rasterizer/sr_transfer.h"
#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_format.h"
#include "sd_memory.h"
#include "sd_physical_device.h"
#include "sd_util.h"
#include "util/su_format.h"

VkDeviceSize
sd_image_compute_layout(const struct su_format_desc *desc, VkExtent3D extent, uint32_t mip_levels,
                        uint32_t array_layers, struct sd_image_level_layout *levels)
{
   assert(mip_levels >= 1 && mip_levels <= SD_MAX_MIP_LEVELS);
   VkDeviceSize offset = 0;
   for (uint32_t l = 0; l < mip_levels; l++) {
      const VkExtent3D e = sd_minify_extent(extent, l);
      const uint64_t bx = (e.width + desc->block_width - 1) / desc->block_width;
      const uint64_t by = (e.height + desc->block_height - 1) / desc->block_height;
      struct sd_image_level_layout *lv = &levels[l];
      lv->offset = offset;
      lv->row_pitch = sd_align64(bx * desc->block_size, SD_IMAGE_ROW_ALIGNMENT);
      lv->depth_pitch = lv->row_pitch * by;
      lv->layer_pitch = sd_align64(lv->depth_pitch * e.depth, SD_IMAGE_ALIGNMENT);
      lv->size = lv->layer_pitch * array_layers;
      offset += lv->size;   /* a multiple of SD_IMAGE_ALIGNMENT */
   }
   return offset;
}

void
sd_image_level(const struct sd_image *img, uint32_t level, VkImageAspectFlags aspect,
               struct sr_image_level *out)
{
   assert(level < img->mip_levels);
   assert(img->data);
   assert(aspect && !(aspect & ~img->desc->aspects));
   const struct sd_image_level_layout *lv = &img->levels[level];
   const VkExtent3D e = sd_minify_extent(img->extent, level);
   *out = (struct sr_image_level) {
      .base = img->data + lv->offset,
      .format = img->desc,
      .width = e.width,
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
   if (sd_format_image_properties(pdev, ci->format, ci->imageType, ci->tiling, ci->usage,
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
   if (!(ci->samples & p->sampleCounts))
      return sd_errorf(VK_ERROR_FORMAT_NOT_SUPPORTED, "vkCreateImage: sample count not supported");
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateImage(VkDevice _device, const VkImageCreateInfo *pCreateInfo,
               const VkAllocationCallbacks *pAllocator, VkImage *pImage)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const struct sd_physical_device *pdev = device->physical_device;
   const VkImageCreateInfo *ci = pCreateInfo;

   /* pNext: nothing Shale claims extends VkImageCreateInfo yet (external
    * memory, format lists, swapchain and Android native buffers come later);
    * unknown structs are ignored. */
   VkImageFormatProperties p;
   VkResult r = sd_image_check(pdev, ci, &p);
   if (r != VK_SUCCESS)
      return r;

   struct sd_image_level_layout levels[SD_MAX_MIP_LEVELS];
   const struct su_format_desc *desc = su_format_desc(ci->format);
   const VkDeviceSize size =
      sd_image_compute_layout(desc, ci->extent, ci->mipLevels, ci->arrayLayers, levels);
   if (size > p.maxResourceSize)
      return sd_errorf(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkCreateImage: larger than maxResourceSize");

   struct sd_image *img = sd_zalloc(sd_choose_alloc(pAllocator, &device->alloc), sizeof(*img),
                                    SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!img)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&img->base, VK_OBJECT_TYPE_IMAGE, device);
   img->type = ci->imageType;
   img->format = ci->format;
   img->desc = desc;
   img->extent = ci->extent;
   img->mip_levels = ci->mipLevels;
   img->array_layers = ci->arrayLayers;
   img->samples = ci->samples;
   img->tiling = ci->tiling;
   img->usage = ci->usage;
   img->flags = ci->flags;
   memcpy(img->levels, levels, sizeof(levels[0]) * ci->mipLevels);
   img->size = size;
   *pImage = sd_image_to_handle(img);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyImage(VkDevice _device, VkImage _image, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_image, img, _image);
   if (img)
      sd_free(sd_choose_alloc(pAllocator, &device->alloc), img);
}

static void
sd_image_requirements(const struct sd_image *img, VkMemoryRequirements *req)
{
   req->size = img->size;
   req->alignment = SD_IMAGE_ALIGNMENT;
   req->memoryTypeBits = (1u << SD_MEMORY_TYPE_COUNT) - 1;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageMemoryRequirements(VkDevice _device, VkImage _image, VkMemoryRequirements *pReq)
{
   sd_image_requirements(sd_image_from_handle(_image), pReq);
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageMemoryRequirements2(VkDevice _device, const VkImageMemoryRequirementsInfo2 *pInfo,
                               VkMemoryRequirements2 *pReq)
{
   /* VkImagePlaneMemoryRequirementsInfo needs disjoint multi-planar images,
    * which are not supported. */
   sd_image_requirements(sd_image_from_handle(pInfo->image), &pReq->memoryRequirements);
   sd_fill_dedicated_requirements(pReq->pNext);
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
   /* pNext: VkBindImagePlaneMemoryInfo (disjoint, unsupported) and device
    * groups do not apply; VkBindImageMemorySwapchainInfoKHR comes with
    * swapchains. Unknown structs are ignored. */
   for (uint32_t i = 0; i < count; i++)
      sd_image_bind(sd_image_from_handle(pInfos[i].image),
                    sd_device_memory_from_handle(pInfos[i].memory), pInfos[i].memoryOffset);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetImageSubresourceLayout(VkDevice _device, VkImage _image,
                             const VkImageSubresource *pSubresource, VkSubresourceLayout *pLayout)
{
   SD_FROM_HANDLE(sd_image, img, _image);
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

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateImageView(VkDevice _device, const VkImageViewCreateInfo *pCreateInfo,
                   const VkAllocationCallbacks *pAllocator, VkImageView *pView)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_image, img, pCreateInfo->image);
   /* pNext: VkImageViewUsageCreateInfo (maintenance2) and Y'CbCr conversions
    * are not claimed; unknown structs are ignored. */
   struct sd_image_view *view = sd_zalloc(sd_choose_alloc(pAllocator, &device->alloc),
                                          sizeof(*view), SD_ALIGN_DEFAULT,
                                          VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!view)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&view->base, VK_OBJECT_TYPE_IMAGE_VIEW, device);
   view->image = img;
   view->view_type = pCreateInfo->viewType;
   view->format = pCreateInfo->format;
   view->desc = su_format_desc(pCreateInfo->format);
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
   *pView = sd_image_view_to_handle(view);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyImageView(VkDevice _device, VkImageView _view, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_image_view, view, _view);
   if (view)
      sd_free(sd_choose_alloc(pAllocator, &device->alloc), view);
}
