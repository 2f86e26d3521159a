/* Android's loader, emulated on the host: AHardwareBuffer memory, images and external formats. */
/*
 * vulkan.shale.so is loaded the way Android's loader loads it (dlopen, HMI,
 * open("vk0"), the dispatch magic on every dispatchable object); the
 * AHardwareBuffers come from the host gralloc backend (sh_gralloc_host.c,
 * compiled into this program: memfd-backed buffers whose objects the
 * driver's copy of the same file shares). Checked:
 *  - the offer (android/ahb_offer, `--offer`): the HAL module lists the
 *    extension, spec version 5, with VK_KHR_sampler_ycbcr_conversion and
 *    what else it requires; the handle type is offered; its commands exist
 *    exactly on devices that enable it; the desktop ICD does not list it;
 *  - properties of buffers of every format (allocationSize from the
 *    buffer's own stride, memory types, the equivalent format, a non-zero
 *    external format), refusals (not a buffer, no CPU access, mipmapped,
 *    R8G8B8 while it is not sampled) with VK_ERROR_INVALID_EXTERNAL_HANDLE;
 *  - the capability queries: image and buffer external properties,
 *    VkAndroidHardwareBufferUsageANDROID against the spec's usage table;
 *  - imports into images (dedicated, the buffer's stride wider than the
 *    image) and buffers (BLOB), clears and copies through Vulkan checked
 *    in the buffer's pixels through the gralloc lock, writes through the
 *    lock read back through Vulkan and vkMapMemory (zero copy);
 *  - exports (BLOB and dedicated images) read back through the lock, the
 *    same buffer on every vkGetMemoryAndroidHardwareBufferANDROID, and a
 *    round trip (export, import into another memory);
 *  - every RGB format (RGBA8, RGBX8, RGB565, RGBA16F, RGBA1010102) sampled
 *    through its external format: an external-format image on the buffer,
 *    a view of format UNDEFINED and an external format conversion in an
 *    immutable combined image sampler, every model, both ranges, both
 *    reconstructions, separate chroma and luma filters, magnification and
 *    minification, off texel centres; each texel against a C reference of
 *    the spec's filtering, range expansion (n per component) and model
 *    conversion; the plain formats keep no conversion of their own;
 *  - Y'CbCr 4:2:0 buffers (NV12, NV21, I420) through their external
 *    formats and their multi-planar formats;
 *  - error paths and failing allocation callbacks, with the buffers'
 *    reference counts, the live host buffers (their memfds), their
 *    mappings, the process's fds and the allocator's live blocks counted
 *    before and after.
 * The Khronos validation layer cannot sit on this path (no desktop loader,
 * and Debian's layer is built without VK_USE_PLATFORM_ANDROID_KHR).
 *
 * References are the test's own: expected texels written out by hand from
 * the format definitions, copies from a byte pattern, the AHB numbers and
 * the usage table spelled out from the NDK and the spec, sampling and
 * Y'CbCr conversion computed in double from the spec's formulas.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hardware/hwvulkan.h>
#include <vulkan/vulkan_core.h>
#include <vulkan/vulkan_android.h>

#include "hal/sh_gralloc.h"

#include "ahb_sample_spv.h"
#include "check.h"
#include "loader_emu.h"
#include "ref_format.h"

/* NDK android/hardware_buffer.h, spelled out rather than taken from the
 * driver's headers. */
#define AHB_FMT_RGBA8 0x01
#define AHB_FMT_RGBX8 0x02
#define AHB_FMT_RGB8 0x03
#define AHB_FMT_RGB565 0x04
#define AHB_FMT_RGBA16F 0x16
#define AHB_FMT_BLOB 0x21
#define AHB_FMT_YCBCR420 0x23
#define AHB_FMT_RGBA1010102 0x2B
#define AHB_CPU_READ_OFTEN UINT64_C(0x3)
#define AHB_CPU_WRITE_OFTEN UINT64_C(0x30)
#define AHB_CPU_RW (AHB_CPU_READ_OFTEN | AHB_CPU_WRITE_OFTEN)
#define AHB_GPU_SAMPLED (UINT64_C(1) << 8)
#define AHB_GPU_FRAMEBUFFER (UINT64_C(1) << 9)
#define AHB_GPU_DATA_BUFFER (UINT64_C(1) << 24)
#define AHB_GPU_CUBE_MAP (UINT64_C(1) << 25)
#define AHB_GPU_MIPMAP_COMPLETE (UINT64_C(1) << 26)
#define AHB_TYPE VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID

#define W 37          /* odd: the host allocator's stride is wider */
#define H 23
#define BLOB_BYTES 1000
#define SENTINEL 0x5A

/* ---- counting ---- */

/* Live host AHardwareBuffers: each holds one memfd of this name. */
static int
count_live_ahbs(void)
{
   int n = 0;
   for (int fd = 0; fd < 4096; fd++) {
      char path[64], target[PATH_MAX];
      snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
      ssize_t len = readlink(path, target, sizeof(target) - 1);
      if (len <= 0)
         continue;
      target[len] = '\0';
      n += strstr(target, "memfd:" SH_GRALLOC_HOST_AHB_NAME) != NULL;
   }
   return n;
}

/* ---- the driver, as the loader sees it ---- */

struct vk {
   union {
      struct emu_vk emu;
      struct { EMU_VK_FIELDS };
   };
   PFN_vkGetPhysicalDeviceFormatProperties GetPhysicalDeviceFormatProperties;
   PFN_vkGetPhysicalDeviceImageFormatProperties2KHR GetPhysicalDeviceImageFormatProperties2KHR;
   PFN_vkGetPhysicalDeviceExternalBufferPropertiesKHR GetPhysicalDeviceExternalBufferPropertiesKHR;

   PFN_vkBindImageMemory BindImageMemory;
   PFN_vkGetImageMemoryRequirements2KHR GetImageMemoryRequirements2KHR;
   PFN_vkUnmapMemory UnmapMemory;
   PFN_vkGetDeviceMemoryCommitment GetDeviceMemoryCommitment;
   PFN_vkCmdCopyImageToBuffer CmdCopyImageToBuffer;
   PFN_vkCmdCopyBuffer CmdCopyBuffer;
   PFN_vkGetAndroidHardwareBufferPropertiesANDROID GetAndroidHardwareBufferPropertiesANDROID;
   PFN_vkGetMemoryAndroidHardwareBufferANDROID GetMemoryAndroidHardwareBufferANDROID;
   /* Y'CbCr sampling (only with VK_KHR_sampler_ycbcr_conversion) */
   PFN_vkCreateSamplerYcbcrConversionKHR CreateSamplerYcbcrConversionKHR;
   PFN_vkDestroySamplerYcbcrConversionKHR DestroySamplerYcbcrConversionKHR;
   PFN_vkCreateSampler CreateSampler;
   PFN_vkDestroySampler DestroySampler;
   PFN_vkCreateImageView CreateImageView;
   PFN_vkDestroyImageView DestroyImageView;
   PFN_vkCreateShaderModule CreateShaderModule;
   PFN_vkDestroyShaderModule DestroyShaderModule;
   PFN_vkCreateDescriptorSetLayout CreateDescriptorSetLayout;
   PFN_vkDestroyDescriptorSetLayout DestroyDescriptorSetLayout;
   PFN_vkCreatePipelineLayout CreatePipelineLayout;
   PFN_vkDestroyPipelineLayout DestroyPipelineLayout;
   PFN_vkCreateComputePipelines CreateComputePipelines;
   PFN_vkDestroyPipeline DestroyPipeline;
   PFN_vkCreateDescriptorPool CreateDescriptorPool;
   PFN_vkDestroyDescriptorPool DestroyDescriptorPool;
   PFN_vkAllocateDescriptorSets AllocateDescriptorSets;
   PFN_vkUpdateDescriptorSets UpdateDescriptorSets;
   PFN_vkCmdBindPipeline CmdBindPipeline;
   PFN_vkCmdBindDescriptorSets CmdBindDescriptorSets;
   PFN_vkCmdPushConstants CmdPushConstants;
   PFN_vkCmdDispatch CmdDispatch;

   VkCommandBuffer cmd;
   bool ycbcr;          /* VK_KHR_sampler_ycbcr_conversion listed, with what it requires */
};

/* Instance and physical device; *listed: the AHB extension is offered. */
static bool
setup_instance(struct vk *v, const hwvulkan_device_t *hal, bool *listed, uint32_t *spec_version)
{
   memset(v, 0, sizeof(*v));
   const char *iexts[] = { "VK_KHR_get_physical_device_properties2",
                           "VK_KHR_external_memory_capabilities" };
   if (!emu_instance_create(&v->emu, hal, "test_ahb", iexts, 2))
      return false;
   IPROC(v, GetPhysicalDeviceFormatProperties);
   IPROC(v, GetPhysicalDeviceImageFormatProperties2KHR);
   IPROC(v, GetPhysicalDeviceExternalBufferPropertiesKHR);
   VkExtensionProperties props[256];
   uint32_t n = 256;
   v->EnumerateDeviceExtensionProperties(v->pdev, NULL, &n, props);
   *listed = emu_has_extension(props, n, "VK_ANDROID_external_memory_android_hardware_buffer",
                               spec_version);
   v->ycbcr = emu_has_extension(props, n, "VK_KHR_sampler_ycbcr_conversion", NULL);
   if (v->ycbcr)
      CHECK(emu_has_extension(props, n, "VK_KHR_maintenance1", NULL) &&
               emu_has_extension(props, n, "VK_KHR_bind_memory2", NULL),
            "VK_KHR_sampler_ycbcr_conversion listed without what it requires");
   /* What the extension requires is there whenever it is. */
   if (*listed) {
      CHECK(emu_has_extension(props, n, "VK_KHR_external_memory", NULL) &&
               emu_has_extension(props, n, "VK_KHR_dedicated_allocation", NULL) &&
               emu_has_extension(props, n, "VK_EXT_queue_family_foreign", NULL),
            "a dependency of the AHB extension is not listed");
   }
   return true;
}

static bool
setup_device(struct vk *v, bool enable_ahb, const VkAllocationCallbacks *alloc)
{
   const char *dexts[12] = {
      "VK_KHR_external_memory", "VK_KHR_dedicated_allocation",
      "VK_KHR_get_memory_requirements2", "VK_EXT_queue_family_foreign",
   };
   uint32_t n = 4;
   if (enable_ahb)
      dexts[n++] = "VK_ANDROID_external_memory_android_hardware_buffer";
   /* Y'CbCr conversion and what it requires, with its feature. */
   const bool ycbcr = enable_ahb && v->ycbcr;
   if (ycbcr) {
      dexts[n++] = "VK_KHR_sampler_ycbcr_conversion";
      dexts[n++] = "VK_KHR_maintenance1";
      dexts[n++] = "VK_KHR_bind_memory2";
   }
   const VkPhysicalDeviceSamplerYcbcrConversionFeatures yf = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SAMPLER_YCBCR_CONVERSION_FEATURES,
      .samplerYcbcrConversion = VK_TRUE,
   };
   if (!emu_device_create(&v->emu, dexts, n, ycbcr ? &yf : NULL, alloc))
      return false;
   bool all_found = true;
   DPROC(v, BindImageMemory);
   DPROC(v, GetImageMemoryRequirements2KHR);
   DPROC(v, UnmapMemory);
   DPROC(v, GetDeviceMemoryCommitment);
   DPROC(v, CmdCopyImageToBuffer);
   DPROC(v, CmdCopyBuffer);
   DPROC(v, CreateSampler);
   DPROC(v, DestroySampler);
   DPROC(v, CreateImageView);
   DPROC(v, DestroyImageView);
   DPROC(v, CreateShaderModule);
   DPROC(v, DestroyShaderModule);
   DPROC(v, CreateDescriptorSetLayout);
   DPROC(v, DestroyDescriptorSetLayout);
   DPROC(v, CreatePipelineLayout);
   DPROC(v, DestroyPipelineLayout);
   DPROC(v, CreateComputePipelines);
   DPROC(v, DestroyPipeline);
   DPROC(v, CreateDescriptorPool);
   DPROC(v, DestroyDescriptorPool);
   DPROC(v, AllocateDescriptorSets);
   DPROC(v, UpdateDescriptorSets);
   DPROC(v, CmdBindPipeline);
   DPROC(v, CmdBindDescriptorSets);
   DPROC(v, CmdPushConstants);
   DPROC(v, CmdDispatch);
   if (ycbcr) {
      DPROC(v, CreateSamplerYcbcrConversionKHR);
      DPROC(v, DestroySamplerYcbcrConversionKHR);
   }
   v->GetAndroidHardwareBufferPropertiesANDROID =
      (PFN_vkGetAndroidHardwareBufferPropertiesANDROID)v->GetDeviceProcAddr(
         v->device, "vkGetAndroidHardwareBufferPropertiesANDROID");
   v->GetMemoryAndroidHardwareBufferANDROID =
      (PFN_vkGetMemoryAndroidHardwareBufferANDROID)v->GetDeviceProcAddr(
         v->device, "vkGetMemoryAndroidHardwareBufferANDROID");
   /* Present exactly when the extension is enabled. */
   CHECK((v->GetAndroidHardwareBufferPropertiesANDROID != NULL) == enable_ahb &&
            (v->GetMemoryAndroidHardwareBufferANDROID != NULL) == enable_ahb,
         "AHB commands %p %p with the extension %s",
         (void *)v->GetAndroidHardwareBufferPropertiesANDROID,
         (void *)v->GetMemoryAndroidHardwareBufferANDROID, enable_ahb ? "enabled" : "not enabled");
   if (!all_found)
      return false;
   const VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = v->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   CHECK_EQ_INT(v->AllocateCommandBuffers(v->device, &cai, &v->cmd), VK_SUCCESS);
   take_dispatchable(v->cmd, "command buffer");
   return v->cmd != VK_NULL_HANDLE;
}

static void
teardown(struct vk *v)
{
   emu_teardown(&v->emu);
}

/* ---- host buffers ---- */

struct ahb {
   struct AHardwareBuffer *buf;
   struct sh_ahb_desc desc;
   uint32_t bpp;
};

static bool
ahb_alloc(struct ahb *a, uint32_t width, uint32_t height, uint32_t format, uint64_t usage)
{
   memset(a, 0, sizeof(*a));
   const struct sh_ahb_desc d = {
      .width = width, .height = height, .layers = 1, .format = format, .usage = usage,
   };
   int r = sh_gralloc_host_ahb_allocate(&d, &a->buf);
   CHECK(r == 0, "host AHB allocate 0x%x: %d", format, r);
   if (r != 0)
      return false;
   CHECK_EQ_INT(sh_gralloc_host_ahb_describe(a->buf, &a->desc), 0);
   return true;
}

static void
ahb_free(struct ahb *a)
{
   sh_gralloc_host_ahb_release(a->buf);
   a->buf = NULL;
}

/* The buffer's bytes for the CPU, through AHardwareBuffer_lock. */
static uint8_t *
ahb_lock(struct ahb *a)
{
   void *p = NULL;
   CHECK_EQ_INT(sh_gralloc_host_ahb_lock(a->buf, AHB_CPU_RW, &p), 0);
   return p;
}

static void
ahb_unlock(struct ahb *a)
{
   CHECK_EQ_INT(sh_gralloc_host_ahb_unlock(a->buf), 0);
}

static size_t
ahb_row_bytes(const struct ahb *a)
{
   return (size_t)a->desc.stride * a->bpp;
}

/* ---- recording ---- */

static const VkImageSubresourceRange color_range = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 };

static void
begin(struct vk *v)
{
   const VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
   };
   CHECK_EQ_INT(v->BeginCommandBuffer(v->cmd, &bi), VK_SUCCESS);
}

static void
image_barrier(struct vk *v, VkImage image, VkImageLayout from, VkImageLayout to)
{
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT,
      .oldLayout = from,
      .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = color_range,
   };
   v->CmdPipelineBarrier(v->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 0, NULL, 0, NULL, 1, &b);
}

static void
submit_wait(struct vk *v)
{
   CHECK_EQ_INT(v->EndCommandBuffer(v->cmd), VK_SUCCESS);
   const VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &v->cmd,
   };
   CHECK_EQ_INT(v->QueueSubmit(v->queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(v->QueueWaitIdle(v->queue), VK_SUCCESS);
}

static void
clear_image(struct vk *v, VkImage image, const float color[4])
{
   begin(v);
   image_barrier(v, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkClearColorValue c;
   memcpy(c.float32, color, sizeof(c.float32));
   v->CmdClearColorImage(v->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &c, 1, &color_range);
   submit_wait(v);
}

static const VkBufferImageCopy whole_image = {
   .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
   .imageExtent = { W, H, 1 },
};

static void
copy_to_image(struct vk *v, VkBuffer src, VkImage image)
{
   begin(v);
   image_barrier(v, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   v->CmdCopyBufferToImage(v->cmd, src, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1,
                           &whole_image);
   submit_wait(v);
}

static void
copy_from_image(struct vk *v, VkImage image, VkBuffer dst)
{
   begin(v);
   image_barrier(v, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   v->CmdCopyImageToBuffer(v->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, dst, 1,
                           &whole_image);
   submit_wait(v);
}

static void
copy_buffer(struct vk *v, VkBuffer src, VkBuffer dst, VkDeviceSize size)
{
   begin(v);
   const VkBufferCopy region = { 0, 0, size };
   v->CmdCopyBuffer(v->cmd, src, dst, 1, &region);
   submit_wait(v);
}

/* ---- staging ---- */

#define STAGING_BYTES ((VkDeviceSize)W * H * 16)   /* also W x H vec4s of sampling results */

/* ---- images and memory on buffers ---- */

#define IMAGE_USAGE                                                                     \
   (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |                 \
    VK_IMAGE_USAGE_SAMPLED_BIT)

/* An image to bind to a buffer (VkExternalMemoryImageCreateInfo): `external`
 * non-zero makes it an external-format image (format UNDEFINED, sampled only). */
static VkResult
image_create(struct vk *v, uint64_t external, VkFormat format, uint32_t w, uint32_t h,
             VkImageUsageFlags usage, const VkAllocationCallbacks *alloc, VkImage *out)
{
   const VkExternalFormatANDROID ef = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_FORMAT_ANDROID,
      .externalFormat = external,
   };
   const VkExternalMemoryImageCreateInfo ext = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
      .pNext = external ? &ef : NULL,
      .handleTypes = AHB_TYPE,
   };
   const VkImageCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .pNext = &ext,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = external ? VK_FORMAT_UNDEFINED : format,
      .extent = { w, h, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   *out = VK_NULL_HANDLE;
   return v->CreateImage(v->device, &ci, alloc, out);
}

/* vkAllocateMemory of `size` from memory type `type` with `info` (an import
 * or export structure, whose pNext this sets) first in the chain, dedicated
 * to `image` when given. */
static VkResult
allocate_memory(struct vk *v, VkBaseOutStructure *info, VkDeviceSize size, uint32_t type,
                VkImage image, const VkAllocationCallbacks *alloc, VkDeviceMemory *out)
{
   VkMemoryDedicatedAllocateInfo ded = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
      .image = image,
   };
   info->pNext = image ? (VkBaseOutStructure *)&ded : NULL;
   const VkMemoryAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .pNext = info,
      .allocationSize = size,
      .memoryTypeIndex = type,
   };
   *out = VK_NULL_HANDLE;
   return v->AllocateMemory(v->device, &ai, alloc, out);
}

/* vkAllocateMemory importing `buf`, dedicated to `image` when given. */
static VkResult
import_memory(struct vk *v, struct AHardwareBuffer *buf, VkDeviceSize size, VkImage image,
              const VkAllocationCallbacks *alloc, VkDeviceMemory *out)
{
   VkImportAndroidHardwareBufferInfoANDROID imp = {
      .sType = VK_STRUCTURE_TYPE_IMPORT_ANDROID_HARDWARE_BUFFER_INFO_ANDROID,
      .buffer = buf,
   };
   return allocate_memory(v, (VkBaseOutStructure *)&imp, size, 0, image, alloc, out);
}

/* vkAllocateMemory exporting an AHB (`types` in VkExportMemoryAllocateInfo). */
static VkResult
export_memory(struct vk *v, VkExternalMemoryHandleTypeFlags types, VkDeviceSize size,
              VkImage image, const VkAllocationCallbacks *alloc, VkDeviceMemory *out)
{
   VkExportMemoryAllocateInfo exp = {
      .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
      .handleTypes = types,
   };
   return allocate_memory(v, (VkBaseOutStructure *)&exp, size, v->coherent_type, image, alloc,
                          out);
}

static VkResult
ahb_properties(struct vk *v, const struct AHardwareBuffer *buf,
               VkAndroidHardwareBufferPropertiesANDROID *p,
               VkAndroidHardwareBufferFormatPropertiesANDROID *f)
{
   memset(f, 0x5a, sizeof(*f));
   f->sType = VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_FORMAT_PROPERTIES_ANDROID;
   f->pNext = NULL;
   memset(p, 0x5a, sizeof(*p));
   p->sType = VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_PROPERTIES_ANDROID;
   p->pNext = f;
   return v->GetAndroidHardwareBufferPropertiesANDROID(v->device, buf, p);
}

/* ---- the formats, from the spec's equivalence table ---- */

struct format_case {
   uint32_t ahb;
   VkFormat vk;
   float clear[4];
   uint8_t texel[8];   /* the clear's bytes, from the format's definition */
};

static const struct format_case format_cases[] = {
   { AHB_FMT_RGBA8, VK_FORMAT_R8G8B8A8_UNORM,
     { 0x11 / 255.0f, 0x80 / 255.0f, 0xEE / 255.0f, 1.0f }, { 0x11, 0x80, 0xEE, 0xFF } },
   { AHB_FMT_RGBX8, VK_FORMAT_R8G8B8A8_UNORM,
     { 0x11 / 255.0f, 0x80 / 255.0f, 0xEE / 255.0f, 1.0f }, { 0x11, 0x80, 0xEE, 0xFF } },
   /* (20 << 11) | (40 << 5) | 10 = 0xA50A */
   { AHB_FMT_RGB565, VK_FORMAT_R5G6B5_UNORM_PACK16,
     { 20 / 31.0f, 40 / 63.0f, 10 / 31.0f, 1.0f }, { 0x0A, 0xA5 } },
   /* half 0.5 = 0x3800, 0.25 = 0x3400, 1.0 = 0x3C00, 0 */
   { AHB_FMT_RGBA16F, VK_FORMAT_R16G16B16A16_SFLOAT,
     { 0.5f, 0.25f, 1.0f, 0.0f }, { 0x00, 0x38, 0x00, 0x34, 0x00, 0x3C, 0x00, 0x00 } },
   /* R 100 | G 512 << 10 | B 1023 << 20 | A 2 << 30 = 0xBFF80064 */
   { AHB_FMT_RGBA1010102, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
     { 100 / 1023.0f, 512 / 1023.0f, 1.0f, 2 / 3.0f }, { 0x64, 0x00, 0xF8, 0xBF } },
};
#define FORMAT_CASES (sizeof(format_cases) / sizeof(format_cases[0]))

/* Every texel of the W x H picture holds `texel`, every padding byte of the
 * buffer's rows still SENTINEL. */
static bool
check_clear(struct ahb *a, const uint8_t *texel, const char *what)
{
   const uint8_t *p = ahb_lock(a);
   if (!p)
      return false;
   int bad = 0;
   for (uint32_t y = 0; y < H; y++) {
      const uint8_t *row = p + y * ahb_row_bytes(a);
      for (uint32_t x = 0; x < a->desc.stride; x++) {
         for (uint32_t b = 0; b < a->bpp; b++) {
            uint8_t want = x < W ? texel[b] : SENTINEL;
            if (row[x * a->bpp + b] != want && bad++ < 4)
               fprintf(stderr, "%s: (%u,%u) byte %u = 0x%02x, expected 0x%02x\n", what, x, y, b,
                       row[x * a->bpp + b], want);
         }
      }
   }
   ahb_unlock(a);
   CHECK(bad == 0, "%s: %d wrong bytes", what, bad);
   return bad == 0;
}

/* Row y of the buffer holds pattern bytes of a tightly packed W-wide
 * source, padding SENTINEL. */
static bool
check_copy(struct ahb *a, uint32_t seed, const char *what)
{
   const uint8_t *p = ahb_lock(a);
   if (!p)
      return false;
   int bad = 0;
   const size_t packed = (size_t)W * a->bpp;
   for (uint32_t y = 0; y < H; y++) {
      const uint8_t *row = p + y * ahb_row_bytes(a);
      for (size_t x = 0; x < ahb_row_bytes(a); x++) {
         uint8_t want = x < packed ? pattern(seed, y * packed + x) : SENTINEL;
         if (row[x] != want && bad++ < 4)
            fprintf(stderr, "%s: row %u byte %zu = 0x%02x, expected 0x%02x\n", what, y, x,
                    row[x], want);
      }
   }
   ahb_unlock(a);
   CHECK(bad == 0, "%s: %d wrong bytes", what, bad);
   return bad == 0;
}

static void
fill_sentinel(struct ahb *a)
{
   uint8_t *p = ahb_lock(a);
   if (p) {
      memset(p, SENTINEL, ahb_row_bytes(a) * a->desc.height);
      ahb_unlock(a);
   }
}

/* ---- properties ---- */

/* External-format images are sampled only through Y'CbCr conversions:
 * every external format has at least what the spec requires of it,
 * SAMPLED_IMAGE and a chroma sample location. */
static void
check_external_features(struct vk *v, VkFormatFeatureFlags features, uint32_t what)
{
   const VkFormatFeatureFlags chroma =
      VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT;
   const bool complete = (features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) && (features & chroma);
   CHECK(v->ycbcr && complete, "0x%x: external format features 0x%x", what, features);
}

static void
check_properties(struct vk *v)
{
   const uint32_t all_types = (1u << v->type_count) - 1;
   for (size_t i = 0; i < FORMAT_CASES; i++) {
      const struct format_case *fc = &format_cases[i];
      struct ahb a;
      if (!ahb_alloc(&a, W, H, fc->ahb, AHB_GPU_SAMPLED | AHB_CPU_RW))
         continue;
      a.bpp = ref_color_texel_size(fc->vk);
      CHECK(a.desc.stride > W, "format 0x%x: the test wants a stride wider than %u (%u)", fc->ahb,
            W, a.desc.stride);
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
      /* The rows the CPU sees: the buffer's own stride. */
      CHECK_EQ_INT(p.allocationSize, (uint64_t)a.desc.stride * a.bpp * H);
      CHECK_EQ_INT(p.memoryTypeBits, all_types);
      CHECK_EQ_INT(f.format, fc->vk);
      CHECK(f.externalFormat != 0, "format 0x%x: externalFormat 0", fc->ahb);
      /* Identity, but for RGBX's undefined X, which may read as one. */
      CHECK(f.samplerYcbcrConversionComponents.r == VK_COMPONENT_SWIZZLE_IDENTITY &&
               f.samplerYcbcrConversionComponents.g == VK_COMPONENT_SWIZZLE_IDENTITY &&
               f.samplerYcbcrConversionComponents.b == VK_COMPONENT_SWIZZLE_IDENTITY &&
               (f.samplerYcbcrConversionComponents.a == VK_COMPONENT_SWIZZLE_IDENTITY ||
                (fc->ahb == AHB_FMT_RGBX8 &&
                 f.samplerYcbcrConversionComponents.a == VK_COMPONENT_SWIZZLE_ONE)),
            "format 0x%x: components", fc->ahb);
      CHECK(f.suggestedYcbcrModel <= VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020 &&
               f.suggestedYcbcrRange <= VK_SAMPLER_YCBCR_RANGE_ITU_NARROW &&
               f.suggestedXChromaOffset <= VK_CHROMA_LOCATION_MIDPOINT &&
               f.suggestedYChromaOffset <= VK_CHROMA_LOCATION_MIDPOINT,
            "format 0x%x: suggestions out of range", fc->ahb);
      check_external_features(v, f.formatFeatures, fc->ahb);
      /* Same buffer kind, same external format. */
      struct ahb b;
      if (ahb_alloc(&b, 5, 3, fc->ahb, AHB_GPU_SAMPLED | AHB_GPU_DATA_BUFFER | AHB_CPU_RW)) {
         VkAndroidHardwareBufferPropertiesANDROID p2;
         VkAndroidHardwareBufferFormatPropertiesANDROID f2;
         CHECK_EQ_INT(ahb_properties(v, b.buf, &p2, &f2), VK_SUCCESS);
         CHECK(f2.externalFormat == f.externalFormat, "format 0x%x: external formats differ",
               fc->ahb);
         ahb_free(&b);
      }
      ahb_free(&a);
   }

   /* A BLOB: width bytes, no Vulkan format. */
   struct ahb blob;
   if (ahb_alloc(&blob, BLOB_BYTES, 1, AHB_FMT_BLOB, AHB_GPU_DATA_BUFFER | AHB_CPU_RW)) {
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, blob.buf, &p, &f), VK_SUCCESS);
      CHECK_EQ_INT(p.allocationSize, BLOB_BYTES);
      CHECK_EQ_INT(p.memoryTypeBits, all_types);
      CHECK_EQ_INT(f.format, VK_FORMAT_UNDEFINED);
      CHECK(f.externalFormat != 0, "BLOB: externalFormat 0");
      ahb_free(&blob);
   }

   /* Refused: not a buffer; no CPU write (Shale's GPU is the CPU); a
    * mipmapped buffer; R8G8B8 unless R8G8B8_UNORM is sampled (the GPU usage
    * a buffer must carry could not be honoured). The Vulkan spec leaves the
    * outputs undefined; the result is the check. */
   VkAndroidHardwareBufferPropertiesANDROID p;
   VkAndroidHardwareBufferFormatPropertiesANDROID f;
   uint64_t not_a_buffer[32];
   memset(not_a_buffer, 0, sizeof(not_a_buffer));
   CHECK_EQ_INT(ahb_properties(v, (const struct AHardwareBuffer *)not_a_buffer, &p, &f),
                VK_ERROR_INVALID_EXTERNAL_HANDLE);
   struct ahb a;
   if (ahb_alloc(&a, W, H, AHB_FMT_RGBA8, AHB_GPU_SAMPLED | AHB_CPU_READ_OFTEN)) {
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      ahb_free(&a);
   }
   if (ahb_alloc(&a, W, H, AHB_FMT_RGBA8, AHB_GPU_SAMPLED | AHB_GPU_MIPMAP_COMPLETE | AHB_CPU_RW)) {
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      ahb_free(&a);
   }
   VkFormatProperties rgb;
   v->GetPhysicalDeviceFormatProperties(v->pdev, VK_FORMAT_R8G8B8_UNORM, &rgb);
   const bool rgb_sampled = rgb.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
   if (ahb_alloc(&a, W, H, AHB_FMT_RGB8, AHB_GPU_SAMPLED | AHB_CPU_RW)) {
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f),
                   rgb_sampled ? VK_SUCCESS : VK_ERROR_INVALID_EXTERNAL_HANDLE);
      ahb_free(&a);
   }
}

/* ---- capability queries ---- */

static VkResult
image_format_query(struct vk *v, VkFormat format, VkImageType type, VkImageTiling tiling,
                   VkImageUsageFlags usage, VkImageCreateFlags flags,
                   VkExternalMemoryProperties *ext, uint64_t *ahb_usage,
                   VkImageFormatProperties *limits)
{
   const VkPhysicalDeviceExternalImageFormatInfo ei = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO,
      .handleType = AHB_TYPE,
   };
   const VkPhysicalDeviceImageFormatInfo2 info = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
      .pNext = &ei,
      .format = format,
      .type = type,
      .tiling = tiling,
      .usage = usage,
      .flags = flags,
   };
   VkAndroidHardwareBufferUsageANDROID u = {
      .sType = VK_STRUCTURE_TYPE_ANDROID_HARDWARE_BUFFER_USAGE_ANDROID,
      .androidHardwareBufferUsage = 0x5a5a,
   };
   VkExternalImageFormatProperties e = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES,
      .pNext = &u,
   };
   VkImageFormatProperties2 p = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2,
      .pNext = &e,
   };
   VkResult r = v->GetPhysicalDeviceImageFormatProperties2KHR(v->pdev, &info, &p);
   *ext = e.externalMemoryProperties;
   *ahb_usage = u.androidHardwareBufferUsage;
   *limits = p.imageFormatProperties;
   return r;
}

/* The spec's usage equivalence table, the test's own copy. */
static uint64_t
ref_ahb_usage(VkImageUsageFlags usage)
{
   uint64_t u = 0;
   if (usage & (VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT))
      u |= AHB_GPU_SAMPLED;
   if (usage & (VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT))
      u |= AHB_GPU_FRAMEBUFFER;
   if (usage & VK_IMAGE_USAGE_STORAGE_BIT)
      u |= AHB_GPU_DATA_BUFFER;
   return u;
}

static void
check_capabilities(struct vk *v)
{
   VkExternalMemoryProperties e;
   uint64_t usage;
   VkImageFormatProperties lim;
   const VkExternalMemoryFeatureFlags image_features =
      VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT | VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
      VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT;
   for (size_t i = 0; i < FORMAT_CASES; i++) {
      const VkFormat fmt = format_cases[i].vk;
      VkFormatProperties fp;
      v->GetPhysicalDeviceFormatProperties(v->pdev, fmt, &fp);
      const VkImageUsageFlags usages[] = {
         VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
         IMAGE_USAGE,
         VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      };
      for (size_t k = 0; k < sizeof(usages) / sizeof(usages[0]); k++) {
         VkResult r = image_format_query(v, fmt, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                         usages[k], 0, &e, &usage, &lim);
         /* Whatever the format supports for a plain image, an AHB image
          * supports too (every format here is sampled). */
         const bool storage = fp.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
         const bool color = fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
         const bool want = (usages[k] & VK_IMAGE_USAGE_STORAGE_BIT)          ? storage
                           : (usages[k] & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) ? color
                                                                              : true;
         CHECK_EQ_INT(r, want ? VK_SUCCESS : VK_ERROR_FORMAT_NOT_SUPPORTED);
         if (r != VK_SUCCESS) {
            CHECK_EQ_INT(e.externalMemoryFeatures, 0);
            CHECK_EQ_INT(usage, 0);
            continue;
         }
         CHECK_EQ_INT(e.externalMemoryFeatures, image_features);
         CHECK_EQ_INT(e.compatibleHandleTypes, AHB_TYPE);
         CHECK_EQ_INT(e.exportFromImportedHandleTypes, AHB_TYPE);
         CHECK_EQ_INT(lim.maxMipLevels, 1);
         CHECK_EQ_INT(lim.maxArrayLayers, 1);
         /* The table's bits, at least one GPU bit, and CPU read/write
          * (the CPU is this device's GPU). */
         const uint64_t gpu = ref_ahb_usage(usages[k]);
         CHECK((usage & gpu) == gpu, "usage 0x%x: AHB usage 0x%llx lacks 0x%llx", usages[k],
               (unsigned long long)usage, (unsigned long long)gpu);
         CHECK(usage & (AHB_GPU_SAMPLED | AHB_GPU_FRAMEBUFFER | AHB_GPU_DATA_BUFFER),
               "usage 0x%x: no GPU bit in 0x%llx", usages[k], (unsigned long long)usage);
         CHECK((usage & AHB_CPU_RW) == AHB_CPU_RW, "usage 0x%x: AHB usage 0x%llx lacks CPU r/w",
               usages[k], (unsigned long long)usage);
         CHECK(!(usage & (AHB_GPU_CUBE_MAP | AHB_GPU_MIPMAP_COMPLETE)), "usage 0x%llx",
               (unsigned long long)usage);
      }
   }
   /* Not an AHB picture: 3D, linear (not offered), a format outside the
    * equivalence table, cube maps. */
   CHECK_EQ_INT(image_format_query(v, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_3D,
                                   VK_IMAGE_TILING_OPTIMAL, IMAGE_USAGE, 0, &e, &usage, &lim),
                VK_ERROR_FORMAT_NOT_SUPPORTED);
   CHECK_EQ_INT(image_format_query(v, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                   VK_IMAGE_TILING_LINEAR, IMAGE_USAGE, 0, &e, &usage, &lim),
                VK_ERROR_FORMAT_NOT_SUPPORTED);
   CHECK_EQ_INT(image_format_query(v, VK_FORMAT_R8G8B8A8_SRGB, VK_IMAGE_TYPE_2D,
                                   VK_IMAGE_TILING_OPTIMAL, IMAGE_USAGE, 0, &e, &usage, &lim),
                VK_ERROR_FORMAT_NOT_SUPPORTED);
   CHECK_EQ_INT(image_format_query(v, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                   VK_IMAGE_TILING_OPTIMAL, IMAGE_USAGE,
                                   VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT, &e, &usage, &lim),
                VK_ERROR_FORMAT_NOT_SUPPORTED);
   CHECK_EQ_INT(usage, 0);
   /* R8G8B8 exactly when it is sampled. */
   VkFormatProperties rgb;
   v->GetPhysicalDeviceFormatProperties(v->pdev, VK_FORMAT_R8G8B8_UNORM, &rgb);
   CHECK_EQ_INT(image_format_query(v, VK_FORMAT_R8G8B8_UNORM, VK_IMAGE_TYPE_2D,
                                   VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_TRANSFER_DST_BIT, 0, &e,
                                   &usage, &lim),
                (rgb.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)
                   ? VK_SUCCESS
                   : VK_ERROR_FORMAT_NOT_SUPPORTED);

   /* Buffers: any buffer, never dedicated-only (the spec forbids it). */
   const VkPhysicalDeviceExternalBufferInfo bi = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
      .handleType = AHB_TYPE,
   };
   VkExternalBufferProperties bp = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };
   v->GetPhysicalDeviceExternalBufferPropertiesKHR(v->pdev, &bi, &bp);
   CHECK_EQ_INT(bp.externalMemoryProperties.externalMemoryFeatures,
                VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
                    VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT);
   CHECK_EQ_INT(bp.externalMemoryProperties.compatibleHandleTypes, AHB_TYPE);
   CHECK_EQ_INT(bp.externalMemoryProperties.exportFromImportedHandleTypes, AHB_TYPE);
}

/* ---- imports ---- */

static void
check_image_import(struct vk *v, struct staging *st)
{
   for (size_t i = 0; i < FORMAT_CASES; i++) {
      const struct format_case *fc = &format_cases[i];
      struct ahb a;
      if (!ahb_alloc(&a, W, H, fc->ahb, AHB_GPU_SAMPLED | AHB_CPU_RW))
         continue;
      a.bpp = ref_color_texel_size(fc->vk);
      char what[64];
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
      VkImage image;
      CHECK_EQ_INT(image_create(v, 0, fc->vk, W, H, IMAGE_USAGE, NULL, &image), VK_SUCCESS);
      VkDeviceMemory mem;
      CHECK_EQ_INT(import_memory(v, a.buf, p.allocationSize, image, NULL, &mem), VK_SUCCESS);
      if (!mem) {
         v->DestroyImage(v->device, image, NULL);
         ahb_free(&a);
         continue;
      }
      /* The memory holds its own reference. */
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 2);
      CHECK_EQ_INT(v->BindImageMemory(v->device, image, mem, 0), VK_SUCCESS);

      /* Bound: the image's rows are the buffer's rows, and its memory is
       * dedicated to it. */
      VkSubresourceLayout layout;
      const VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
      v->GetImageSubresourceLayout(v->device, image, &sub, &layout);
      CHECK_EQ_INT(layout.offset, 0);
      CHECK_EQ_INT(layout.rowPitch, ahb_row_bytes(&a));
      VkMemoryDedicatedRequirements ded = {
         .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS,
      };
      VkMemoryRequirements2 req = {
         .sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2,
         .pNext = &ded,
      };
      const VkImageMemoryRequirementsInfo2 ri = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
         .image = image,
      };
      v->GetImageMemoryRequirements2KHR(v->device, &ri, &req);
      CHECK_EQ_INT(ded.requiresDedicatedAllocation, VK_TRUE);
      CHECK(req.memoryRequirements.size <= p.allocationSize, "requirements %llu > %llu",
            (unsigned long long)req.memoryRequirements.size,
            (unsigned long long)p.allocationSize);
      CHECK(req.memoryRequirements.memoryTypeBits & 1u, "memory type 0 not allowed");

      /* Vulkan writes, the buffer's lock reads. */
      fill_sentinel(&a);
      clear_image(v, image, fc->clear);
      snprintf(what, sizeof(what), "import 0x%x clear", fc->ahb);
      check_clear(&a, fc->texel, what);
      const uint32_t seed = 100 + (uint32_t)i;
      for (size_t b = 0; b < (size_t)W * H * a.bpp; b++)
         st->map[b] = pattern(seed, b);
      fill_sentinel(&a);
      copy_to_image(v, st->buffer, image);
      snprintf(what, sizeof(what), "import 0x%x copy in", fc->ahb);
      check_copy(&a, seed, what);

      /* The lock writes, Vulkan reads. */
      uint8_t *px = ahb_lock(&a);
      if (px) {
         for (uint32_t y = 0; y < H; y++)
            for (size_t x = 0; x < (size_t)W * a.bpp; x++)
               px[y * ahb_row_bytes(&a) + x] = pattern(seed + 50, y * (size_t)W * a.bpp + x);
         ahb_unlock(&a);
      }
      memset(st->map, 0, (size_t)W * H * a.bpp);
      copy_from_image(v, image, st->buffer);
      int bad = 0;
      for (size_t b = 0; b < (size_t)W * H * a.bpp; b++)
         bad += st->map[b] != pattern(seed + 50, b);
      CHECK(bad == 0, "import 0x%x copy out: %d wrong bytes", fc->ahb, bad);

      v->DestroyImage(v->device, image, NULL);
      v->FreeMemory(v->device, mem, NULL);
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
      ahb_free(&a);
   }
}

static struct AHardwareBuffer *
get_ahb(struct vk *v, VkDeviceMemory mem)
{
   struct AHardwareBuffer *out = NULL;
   const VkMemoryGetAndroidHardwareBufferInfoANDROID gi = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_GET_ANDROID_HARDWARE_BUFFER_INFO_ANDROID,
      .memory = mem,
   };
   CHECK_EQ_INT(v->GetMemoryAndroidHardwareBufferANDROID(v->device, &gi, &out), VK_SUCCESS);
   return out;
}

static VkBuffer
ahb_buffer_create(struct vk *v, VkDeviceSize size)
{
   const VkExternalMemoryBufferCreateInfo ext = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
      .handleTypes = AHB_TYPE,
   };
   const VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .pNext = &ext,
      .size = size,
      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
   };
   VkBuffer b = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateBuffer(v->device, &bi, NULL, &b), VK_SUCCESS);
   return b;
}

static void
check_buffer_import(struct vk *v, struct staging *st)
{
   struct ahb a;
   if (!ahb_alloc(&a, BLOB_BYTES, 1, AHB_FMT_BLOB, AHB_GPU_DATA_BUFFER | AHB_CPU_RW))
      return;
   a.bpp = 1;
   VkAndroidHardwareBufferPropertiesANDROID p;
   VkAndroidHardwareBufferFormatPropertiesANDROID f;
   CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
   VkBuffer buffer = ahb_buffer_create(v, BLOB_BYTES);
   VkMemoryRequirements req;
   v->GetBufferMemoryRequirements(v->device, buffer, &req);
   /* A buffer of the BLOB's size fits the BLOB. */
   CHECK(req.size <= p.allocationSize, "buffer needs %llu of %llu bytes",
         (unsigned long long)req.size, (unsigned long long)p.allocationSize);
   VkDeviceMemory mem;
   CHECK_EQ_INT(import_memory(v, a.buf, p.allocationSize, VK_NULL_HANDLE, NULL, &mem), VK_SUCCESS);
   if (mem) {
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 2);
      CHECK_EQ_INT(v->BindBufferMemory(v->device, buffer, mem, 0), VK_SUCCESS);

      /* Vulkan copies in; the lock sees it. */
      for (size_t b = 0; b < BLOB_BYTES; b++)
         st->map[b] = pattern(7, b);
      copy_buffer(v, st->buffer, buffer, BLOB_BYTES);
      const uint8_t *px = ahb_lock(&a);
      int bad = 0;
      for (size_t b = 0; px && b < BLOB_BYTES; b++)
         bad += px[b] != pattern(7, b);
      if (px)
         ahb_unlock(&a);
      CHECK(bad == 0, "BLOB copy in: %d wrong bytes", bad);

      /* vkMapMemory is the buffer's bytes: written there, seen in the lock,
       * and the other way round. */
      void *map = NULL;
      CHECK_EQ_INT(v->MapMemory(v->device, mem, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
      uint8_t *m = map;
      if (m) {
         m[3] = 0xC3;
         uint8_t *lk = ahb_lock(&a);
         if (lk) {
            CHECK_EQ_INT(lk[3], 0xC3);
            lk[BLOB_BYTES - 1] = 0x3C;
            ahb_unlock(&a);
         }
         CHECK_EQ_INT(m[BLOB_BYTES - 1], 0x3C);
         v->UnmapMemory(v->device, mem);
      }
      /* The lock writes; Vulkan copies out. */
      uint8_t *lk = ahb_lock(&a);
      if (lk) {
         for (size_t b = 0; b < BLOB_BYTES; b++)
            lk[b] = pattern(8, b);
         ahb_unlock(&a);
      }
      memset(st->map, 0, BLOB_BYTES);
      copy_buffer(v, buffer, st->buffer, BLOB_BYTES);
      bad = 0;
      for (size_t b = 0; b < BLOB_BYTES; b++)
         bad += st->map[b] != pattern(8, b);
      CHECK(bad == 0, "BLOB copy out: %d wrong bytes", bad);

      /* An imported memory gives back the same buffer, one reference more
       * each time. */
      struct AHardwareBuffer *out = get_ahb(v, mem);
      CHECK(out == a.buf, "the import gave back %p, not %p", (void *)out, (void *)a.buf);
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 3);
      if (out)
         sh_gralloc_host_ahb_release(out);
      v->DestroyBuffer(v->device, buffer, NULL);
      v->FreeMemory(v->device, mem, NULL);
   }
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
   ahb_free(&a);
}

/* ---- exports ---- */

static void
check_blob_export(struct vk *v)
{
   const int live = count_live_ahbs();
   const VkDeviceSize size = 4096 + 100;
   VkDeviceMemory mem;
   CHECK_EQ_INT(export_memory(v, AHB_TYPE, size, VK_NULL_HANDLE, NULL, &mem), VK_SUCCESS);
   if (!mem)
      return;
   CHECK_EQ_INT(count_live_ahbs(), live + 1);
   struct ahb a;
   memset(&a, 0, sizeof(a));
   a.buf = get_ahb(v, mem);
   if (a.buf) {
      /* What the spec says an export without a dedicated image is. */
      CHECK_EQ_INT(sh_gralloc_host_ahb_describe(a.buf, &a.desc), 0);
      CHECK_EQ_INT(a.desc.format, AHB_FMT_BLOB);
      CHECK_EQ_INT(a.desc.width, size);
      CHECK_EQ_INT(a.desc.height, 1);
      CHECK_EQ_INT(a.desc.layers, 1);
      CHECK(a.desc.usage & AHB_GPU_DATA_BUFFER, "BLOB usage 0x%llx",
            (unsigned long long)a.desc.usage);
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 2);
      /* The same buffer every time. */
      struct AHardwareBuffer *again = get_ahb(v, mem);
      CHECK(again == a.buf, "second export %p, first %p", (void *)again, (void *)a.buf);
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 3);
      sh_gralloc_host_ahb_release(again);
      /* Written through vkMapMemory, read through the lock. */
      void *map = NULL;
      CHECK_EQ_INT(v->MapMemory(v->device, mem, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
      if (map) {
         for (size_t b = 0; b < size; b++)
            ((uint8_t *)map)[b] = pattern(21, b);
         v->UnmapMemory(v->device, mem);
      }
      const uint8_t *lk = ahb_lock(&a);
      int bad = 0;
      for (size_t b = 0; lk && b < size; b++)
         bad += lk[b] != pattern(21, b);
      if (lk)
         ahb_unlock(&a);
      CHECK(bad == 0, "BLOB export: %d wrong bytes", bad);
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
      CHECK_EQ_INT(p.allocationSize, size);
   }
   /* The buffer outlives the memory while someone holds it. */
   v->FreeMemory(v->device, mem, NULL);
   if (a.buf) {
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
      CHECK_EQ_INT(count_live_ahbs(), live + 1);
      ahb_free(&a);
   }
   CHECK_EQ_INT(count_live_ahbs(), live);
}

static void
check_image_export(struct vk *v, struct staging *st)
{
   const int live = count_live_ahbs();
   VkImage image;
   CHECK_EQ_INT(image_create(v, 0, VK_FORMAT_R8G8B8A8_UNORM, W, H, IMAGE_USAGE, NULL, &image),
                VK_SUCCESS);
   VkDeviceMemory mem;
   /* Dedicated to an image: allocationSize 0, the spec says. */
   CHECK_EQ_INT(export_memory(v, AHB_TYPE, 0, image, NULL, &mem), VK_SUCCESS);
   if (!mem) {
      v->DestroyImage(v->device, image, NULL);
      return;
   }
   CHECK_EQ_INT(v->BindImageMemory(v->device, image, mem, 0), VK_SUCCESS);
   struct ahb a;
   memset(&a, 0, sizeof(a));
   a.buf = get_ahb(v, mem);
   a.bpp = 4;
   if (a.buf) {
      /* Properties derived from the image. */
      CHECK_EQ_INT(sh_gralloc_host_ahb_describe(a.buf, &a.desc), 0);
      CHECK_EQ_INT(a.desc.format, AHB_FMT_RGBA8);
      CHECK_EQ_INT(a.desc.width, W);
      CHECK_EQ_INT(a.desc.height, H);
      CHECK_EQ_INT(a.desc.layers, 1);
      CHECK((a.desc.usage & AHB_GPU_SAMPLED) && (a.desc.usage & AHB_CPU_RW) == AHB_CPU_RW,
            "exported image usage 0x%llx", (unsigned long long)a.desc.usage);
      VkDeviceSize committed = 0;
      v->GetDeviceMemoryCommitment(v->device, mem, &committed);
      CHECK_EQ_INT(committed, ahb_row_bytes(&a) * H);
      VkSubresourceLayout layout;
      const VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
      v->GetImageSubresourceLayout(v->device, image, &sub, &layout);
      CHECK_EQ_INT(layout.rowPitch, ahb_row_bytes(&a));

      static const float green[4] = { 0.0f, 1.0f, 0.0f, 1.0f };
      static const uint8_t green_texel[4] = { 0x00, 0xFF, 0x00, 0xFF };
      fill_sentinel(&a);
      clear_image(v, image, green);
      check_clear(&a, green_texel, "image export clear");

      /* Round trip: the exported buffer imported into another memory and
       * image sees the same pixels and writes the same buffer. */
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
      CHECK_EQ_INT(p.allocationSize, committed);
      VkImage image2;
      CHECK_EQ_INT(image_create(v, 0, VK_FORMAT_R8G8B8A8_UNORM, W, H, IMAGE_USAGE, NULL, &image2),
                   VK_SUCCESS);
      VkDeviceMemory mem2;
      CHECK_EQ_INT(import_memory(v, a.buf, p.allocationSize, image2, NULL, &mem2), VK_SUCCESS);
      if (mem2) {
         CHECK_EQ_INT(v->BindImageMemory(v->device, image2, mem2, 0), VK_SUCCESS);
         memset(st->map, 0, (size_t)W * H * 4);
         copy_from_image(v, image2, st->buffer);
         int bad = 0;
         for (size_t b = 0; b < (size_t)W * H * 4; b++)
            bad += st->map[b] != green_texel[b % 4];
         CHECK(bad == 0, "round trip: %d wrong bytes", bad);
         for (size_t b = 0; b < (size_t)W * H * 4; b++)
            st->map[b] = pattern(33, b);
         fill_sentinel(&a);
         copy_to_image(v, st->buffer, image2);
         check_copy(&a, 33, "round trip copy");
         v->FreeMemory(v->device, mem2, NULL);
      }
      v->DestroyImage(v->device, image2, NULL);
   }
   v->DestroyImage(v->device, image, NULL);
   v->FreeMemory(v->device, mem, NULL);
   if (a.buf) {
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
      ahb_free(&a);
   }
   CHECK_EQ_INT(count_live_ahbs(), live);
}

/* ---- Y'CbCr buffers and external formats ---- */

#define YW 36         /* even, as 4:2:0 wants; the host's stride (64) is wider */
#define YH 22

enum yuv_layout { YUV_NV12, YUV_NV21, YUV_I420, YUV_LAYOUTS };
static const uint64_t yuv_usage_bits[YUV_LAYOUTS] = {
   0, SH_GRALLOC_HOST_AHB_USAGE_NV21, SH_GRALLOC_HOST_AHB_USAGE_I420,
};
static const char *const yuv_names[YUV_LAYOUTS] = { "NV12", "NV21", "I420" };

/* The host allocator's layouts (sh_gralloc.h), written out. */
struct yuv_planes {
   size_t y_pitch, cb_off, cr_off, c_pitch, c_step, bytes;
};

static struct yuv_planes
yuv_planes(const struct sh_ahb_desc *d, enum yuv_layout l)
{
   const size_t chroma = (size_t)d->stride * d->height, ch = (d->height + 1) / 2;
   struct yuv_planes p = { d->stride, chroma, chroma + 1, d->stride, 2, 0 };
   if (l == YUV_NV21) {
      p.cb_off = chroma + 1;
      p.cr_off = chroma;
   } else if (l == YUV_I420) {
      p.c_pitch = d->stride / 2;
      p.c_step = 1;
      p.cr_off = chroma + p.c_pitch * ch;
   }
   p.bytes = (size_t)d->stride * (d->height + ch);
   return p;
}

/* The samples: luma, and chroma per 2x2 block, well inside the 8-bit
 * limited ranges and giving RGB inside [0, 1]. */
static uint8_t yuv_y(uint32_t x, uint32_t y) { return (uint8_t)(80 + (x * 7 + y * 13) % 121); }
static uint8_t yuv_cb(uint32_t i, uint32_t j) { return (uint8_t)(116 + (i * 5 + j * 3) % 25); }
static uint8_t yuv_cr(uint32_t i, uint32_t j) { return (uint8_t)(116 + (i * 3 + j * 11) % 25); }

static void
yuv_fill(struct ahb *a, enum yuv_layout l)
{
   const struct yuv_planes p = yuv_planes(&a->desc, l);
   uint8_t *m = ahb_lock(a);
   if (!m)
      return;
   memset(m, SENTINEL, p.bytes);
   for (uint32_t y = 0; y < a->desc.height; y++)
      for (uint32_t x = 0; x < a->desc.width; x++)
         m[y * p.y_pitch + x] = yuv_y(x, y);
   for (uint32_t j = 0; j < a->desc.height / 2; j++) {
      for (uint32_t i = 0; i < a->desc.width / 2; i++) {
         m[p.cb_off + j * p.c_pitch + i * p.c_step] = yuv_cb(i, j);
         m[p.cr_off + j * p.c_pitch + i * p.c_step] = yuv_cr(i, j);
      }
   }
   ahb_unlock(a);
}

/* BT.601, 8-bit limited range (the spec's range expansion and model
 * conversion, written out). */
static void
ref_601_narrow(uint8_t y8, uint8_t cb8, uint8_t cr8, float rgb[3])
{
   const double y = (y8 - 16.0) / 219.0, cb = (cb8 - 128.0) / 224.0, cr = (cr8 - 128.0) / 224.0;
   rgb[0] = (float)(y + 1.402 * cr);
   rgb[1] = (float)(y - 0.202008 / 0.587 * cb - 0.419198 / 0.587 * cr);
   rgb[2] = (float)(y + 1.772 * cb);
}

/* How sample_image samples: the sampler's filters, where in each texel
 * (offset from its corner, in texels), at which LOD. */
struct sample_params {
   VkFilter mag, min;
   float offset[2];
   float lod;
};

static const struct sample_params texel_centres = {
   VK_FILTER_NEAREST, VK_FILTER_NEAREST, { 0.5f, 0.5f }, 0.0f,
};

/* Every texel of image (w x h) sampled through `conv_ci` (an immutable
 * sampler) as `sp` says, into `out` (w * h RGBA). */
static bool
sample_image(struct vk *v, struct staging *st, VkImage image, VkFormat view_format,
             const VkSamplerYcbcrConversionCreateInfo *conv_ci, const struct sample_params *sp,
             uint32_t w, uint32_t h, float *out)
{
   VkSamplerYcbcrConversion conv = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateSamplerYcbcrConversionKHR(v->device, conv_ci, NULL, &conv), VK_SUCCESS);
   if (!conv)
      return false;
   const VkSamplerYcbcrConversionInfo ci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_INFO,
      .conversion = conv,
   };
   const VkSamplerCreateInfo si = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .pNext = &ci,
      .magFilter = sp->mag,
      .minFilter = sp->min,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .maxLod = 0.25f,
   };
   VkSampler sampler = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateSampler(v->device, &si, NULL, &sampler), VK_SUCCESS);
   const VkImageViewCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .pNext = &ci,
      .image = image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = view_format,
      .subresourceRange = color_range,
   };
   VkImageView view = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateImageView(v->device, &vi, NULL, &view), VK_SUCCESS);
   const VkDescriptorSetLayoutBinding bindings[2] = {
      { 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_COMPUTE_BIT, &sampler },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   const VkDescriptorSetLayoutCreateInfo dli = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 2,
      .pBindings = bindings,
   };
   VkDescriptorSetLayout dsl = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateDescriptorSetLayout(v->device, &dli, NULL, &dsl), VK_SUCCESS);
   struct {
      uint32_t size[2];
      float offset[2];
      float lod;
   } push = { { w, h }, { sp->offset[0], sp->offset[1] }, sp->lod };
   const VkPushConstantRange pcr = { VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push) };
   const VkPipelineLayoutCreateInfo pli = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &dsl,
      .pushConstantRangeCount = 1,
      .pPushConstantRanges = &pcr,
   };
   VkPipelineLayout layout = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreatePipelineLayout(v->device, &pli, NULL, &layout), VK_SUCCESS);
   const VkShaderModuleCreateInfo smi = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = sizeof(ahb_sample_spv),
      .pCode = ahb_sample_spv,
   };
   VkShaderModule module = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateShaderModule(v->device, &smi, NULL, &module), VK_SUCCESS);
   const VkComputePipelineCreateInfo cpi = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_COMPUTE_BIT,
         .module = module,
         .pName = "main",
      },
      .layout = layout,
   };
   VkPipeline pipeline = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateComputePipelines(v->device, VK_NULL_HANDLE, 1, &cpi, NULL, &pipeline),
                VK_SUCCESS);
   const VkDescriptorPoolSize sizes[2] = {
      { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 },
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1 },
   };
   const VkDescriptorPoolCreateInfo dpi = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
      .maxSets = 1,
      .poolSizeCount = 2,
      .pPoolSizes = sizes,
   };
   VkDescriptorPool pool = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->CreateDescriptorPool(v->device, &dpi, NULL, &pool), VK_SUCCESS);
   const VkDescriptorSetAllocateInfo dai = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
      .descriptorPool = pool,
      .descriptorSetCount = 1,
      .pSetLayouts = &dsl,
   };
   VkDescriptorSet set = VK_NULL_HANDLE;
   CHECK_EQ_INT(v->AllocateDescriptorSets(v->device, &dai, &set), VK_SUCCESS);
   bool ok = conv && sampler && view && dsl && layout && module && pipeline && pool && set;
   if (ok) {
      const VkDescriptorImageInfo ii = { VK_NULL_HANDLE, view,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
      const VkDescriptorBufferInfo bi = { st->buffer, 0, (VkDeviceSize)w * h * 16 };
      const VkWriteDescriptorSet writes[2] = {
         { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 0,
           .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
           .pImageInfo = &ii },
         { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set, .dstBinding = 1,
           .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
           .pBufferInfo = &bi },
      };
      v->UpdateDescriptorSets(v->device, 2, writes, 0, NULL);
      memset(st->map, 0, (size_t)w * h * 16);
      begin(v);
      image_barrier(v, image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
      v->CmdBindPipeline(v->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      v->CmdBindDescriptorSets(v->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0,
                               NULL);
      v->CmdPushConstants(v->cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
      v->CmdDispatch(v->cmd, (w + 7) / 8, (h + 7) / 8, 1);
      submit_wait(v);
      memcpy(out, st->map, (size_t)w * h * 16);
   }
   v->DestroyDescriptorPool(v->device, pool, NULL);
   v->DestroyPipeline(v->device, pipeline, NULL);
   v->DestroyShaderModule(v->device, module, NULL);
   v->DestroyPipelineLayout(v->device, layout, NULL);
   v->DestroyDescriptorSetLayout(v->device, dsl, NULL);
   v->DestroyImageView(v->device, view, NULL);
   v->DestroySampler(v->device, sampler, NULL);
   v->DestroySamplerYcbcrConversionKHR(v->device, conv, NULL);
   return ok;
}

/* Samples a buffer's pictures through its external format (or, `format`
 * not UNDEFINED, through that format with a conversion of the same model)
 * and compares with `expect` (w * h RGB). */
static void
check_sampling(struct vk *v, struct staging *st, struct ahb *a, uint64_t external, VkFormat format,
               VkSamplerYcbcrModelConversion model, VkSamplerYcbcrRange range,
               const float *expect, const char *what)
{
   VkAndroidHardwareBufferPropertiesANDROID p;
   VkAndroidHardwareBufferFormatPropertiesANDROID f;
   CHECK_EQ_INT(ahb_properties(v, a->buf, &p, &f), VK_SUCCESS);
   const uint32_t w = a->desc.width, h = a->desc.height;
   VkImage image;
   CHECK_EQ_INT(image_create(v, external, format, w, h, VK_IMAGE_USAGE_SAMPLED_BIT, NULL, &image),
                VK_SUCCESS);
   VkDeviceMemory mem;
   CHECK_EQ_INT(import_memory(v, a->buf, p.allocationSize, image, NULL, &mem), VK_SUCCESS);
   if (!image || !mem) {
      v->DestroyImage(v->device, image, NULL);
      return;
   }
   CHECK_EQ_INT(v->BindImageMemory(v->device, image, mem, 0), VK_SUCCESS);
   const VkExternalFormatANDROID ef = {
      .sType = VK_STRUCTURE_TYPE_EXTERNAL_FORMAT_ANDROID,
      .externalFormat = external,
   };
   /* External format conversions ignore components: pass nonsense. */
   const VkSamplerYcbcrConversionCreateInfo cci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO,
      .pNext = external ? &ef : NULL,
      .format = external ? VK_FORMAT_UNDEFINED : format,
      .ycbcrModel = model,
      .ycbcrRange = range,
      .components = external ? (VkComponentMapping) { VK_COMPONENT_SWIZZLE_ZERO,
                                                      VK_COMPONENT_SWIZZLE_ZERO,
                                                      VK_COMPONENT_SWIZZLE_ZERO,
                                                      VK_COMPONENT_SWIZZLE_ZERO }
                             : (VkComponentMapping) { 0 },
      .xChromaOffset = VK_CHROMA_LOCATION_MIDPOINT,
      .yChromaOffset = VK_CHROMA_LOCATION_MIDPOINT,
      .chromaFilter = VK_FILTER_NEAREST,
   };
   float *got = calloc((size_t)w * h * 4, sizeof(float));
   if (got &&
       sample_image(v, st, image, external ? VK_FORMAT_UNDEFINED : format, &cci, &texel_centres,
                    w, h, got)) {
      int bad = 0;
      for (uint32_t i = 0; i < w * h; i++) {
         for (int c = 0; c < 4; c++) {
            const float want = c < 3 ? expect[i * 3 + c] : 1.0f;
            if (fabsf(got[i * 4 + c] - want) > 2.0f / 255.0f && bad++ < 4)
               fprintf(stderr, "%s: texel (%u,%u) component %d = %f, expected %f\n", what, i % w,
                       i / w, c, got[i * 4 + c], want);
         }
      }
      CHECK(bad == 0, "%s: %d wrong components", what, bad);
   }
   free(got);
   v->DestroyImage(v->device, image, NULL);
   v->FreeMemory(v->device, mem, NULL);
}

/* ---- RGB buffers through their external formats ---- */

/* A picture of an RGB AHB format, built by the test from integer fields
 * (so its decoded values are exact): each texel's bytes and R, G, B, A as
 * the format defines them (alpha one where the format has none; RGBX's X
 * bytes hold junk, which its conversion's ONE hides). */
struct rgb_picture {
   uint32_t w, h, bpp;
   int bits[3];              /* bit depth n of R, G, B (half floats: 16) */
   uint8_t *bytes;           /* w * h * bpp, tightly packed */
   double *rgba;             /* w * h * 4 */
};

/* An exactly representable half float: m / 1024, 0 <= m < 2048. */
static uint16_t
half_of_1024ths(uint32_t m)
{
   if (m == 0)
      return 0;
   int e = 0;   /* m = 1.f * 2^e */
   while ((m >> (e + 1)) != 0)
      e++;
   const uint32_t mant = (m << (10 - e)) & 0x3ff;   /* e <= 10 */
   return (uint16_t)(((uint32_t)(e - 10 + 15) << 10) | mant);
}

static bool
rgb_picture_make(struct rgb_picture *pic, uint32_t ahb_format, uint32_t w, uint32_t h,
                 uint32_t seed)
{
   memset(pic, 0, sizeof(*pic));
   pic->w = w;
   pic->h = h;
   switch (ahb_format) {
   case AHB_FMT_RGB565:
      pic->bpp = 2;
      pic->bits[0] = 5, pic->bits[1] = 6, pic->bits[2] = 5;
      break;
   case AHB_FMT_RGBA16F:
      pic->bpp = 8;
      pic->bits[0] = pic->bits[1] = pic->bits[2] = 16;
      break;
   case AHB_FMT_RGBA1010102:
      pic->bpp = 4;
      pic->bits[0] = pic->bits[1] = pic->bits[2] = 10;
      break;
   default:   /* RGBA8, RGBX8 */
      pic->bpp = 4;
      pic->bits[0] = pic->bits[1] = pic->bits[2] = 8;
      break;
   }
   pic->bytes = calloc((size_t)w * h, pic->bpp);
   pic->rgba = calloc((size_t)w * h * 4, sizeof(double));
   if (!pic->bytes || !pic->rgba)
      return false;
   for (uint32_t t = 0; t < w * h; t++) {
      uint8_t *b = pic->bytes + (size_t)t * pic->bpp;
      double *c = pic->rgba + (size_t)t * 4;
      /* Four fields from the byte pattern, two bytes each. */
      uint32_t f[4];
      for (int k = 0; k < 4; k++)
         f[k] = pattern(seed, t * 8 + k * 2) | (uint32_t)pattern(seed, t * 8 + k * 2 + 1) << 8;
      switch (ahb_format) {
      case AHB_FMT_RGB565: {
         const uint32_t r = f[0] % 32, g = f[1] % 64, bl = f[2] % 32;
         const uint32_t v = r << 11 | g << 5 | bl;
         b[0] = (uint8_t)v;
         b[1] = (uint8_t)(v >> 8);
         c[0] = r / 31.0, c[1] = g / 63.0, c[2] = bl / 31.0, c[3] = 1.0;
         break;
      }
      case AHB_FMT_RGBA16F:
         /* [0, 1.5): beyond one too (the conversion does not clamp). */
         for (int k = 0; k < 4; k++) {
            const uint32_t m = f[k] % 1536;
            const uint16_t hv = half_of_1024ths(m);
            b[2 * k] = (uint8_t)hv;
            b[2 * k + 1] = (uint8_t)(hv >> 8);
            c[k] = m / 1024.0;
         }
         break;
      case AHB_FMT_RGBA1010102: {
         const uint32_t r = f[0] % 1024, g = f[1] % 1024, bl = f[2] % 1024, a = f[3] % 4;
         const uint32_t v = r | g << 10 | bl << 20 | a << 30;
         memcpy(b, &v, 4);   /* little endian, as the host is */
         c[0] = r / 1023.0, c[1] = g / 1023.0, c[2] = bl / 1023.0, c[3] = a / 3.0;
         break;
      }
      default:
         for (int k = 0; k < 4; k++) {
            b[k] = (uint8_t)f[k];
            c[k] = k == 3 && ahb_format == AHB_FMT_RGBX8 ? 1.0 : (uint8_t)f[k] / 255.0;
         }
         break;
      }
   }
   return true;
}

static void
rgb_picture_free(struct rgb_picture *pic)
{
   free(pic->bytes);
   free(pic->rgba);
}

/* The picture into the buffer through the lock, at its stride. */
static void
rgb_picture_store(const struct rgb_picture *pic, struct ahb *a)
{
   uint8_t *m = ahb_lock(a);
   if (!m)
      return;
   for (uint32_t y = 0; y < pic->h; y++)
      memcpy(m + (size_t)y * a->desc.stride * pic->bpp, pic->bytes + (size_t)y * pic->w * pic->bpp,
             (size_t)pic->w * pic->bpp);
   ahb_unlock(a);
}

/* One way of sampling an RGB external format. */
struct rgb_case {
   VkSamplerYcbcrModelConversion model;
   VkSamplerYcbcrRange range;
   VkChromaLocation location;
   VkFilter chroma;
   VkBool32 explicit_reconstruction;
   struct sample_params sp;
   const char *name;
};

static const struct rgb_case rgb_cases[] = {
   /* The suggested conversion. */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY, VK_SAMPLER_YCBCR_RANGE_ITU_FULL,
     VK_CHROMA_LOCATION_MIDPOINT, VK_FILTER_NEAREST, VK_FALSE,
     { VK_FILTER_NEAREST, VK_FILTER_NEAREST, { 0.5f, 0.5f }, 0.0f }, "RGB identity, full" },
   /* RGB identity ignores the range. */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY, VK_SAMPLER_YCBCR_RANGE_ITU_NARROW,
     VK_CHROMA_LOCATION_COSITED_EVEN, VK_FILTER_LINEAR, VK_FALSE,
     { VK_FILTER_LINEAR, VK_FILTER_LINEAR, { 0.55f, 0.15f }, 0.0f },
     "RGB identity, narrow, linear" },
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_IDENTITY, VK_SAMPLER_YCBCR_RANGE_ITU_NARROW,
     VK_CHROMA_LOCATION_MIDPOINT, VK_FILTER_NEAREST, VK_FALSE,
     { VK_FILTER_NEAREST, VK_FILTER_NEAREST, { 0.5f, 0.5f }, 0.0f }, "Y'CbCr identity, narrow" },
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_IDENTITY, VK_SAMPLER_YCBCR_RANGE_ITU_FULL,
     VK_CHROMA_LOCATION_COSITED_EVEN, VK_FILTER_NEAREST, VK_FALSE,
     { VK_FILTER_NEAREST, VK_FILTER_NEAREST, { 0.2f, 0.9f }, 0.0f }, "Y'CbCr identity, full" },
   /* Every filter linear, off the texel centres. */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709, VK_SAMPLER_YCBCR_RANGE_ITU_FULL,
     VK_CHROMA_LOCATION_MIDPOINT, VK_FILTER_LINEAR, VK_FALSE,
     { VK_FILTER_LINEAR, VK_FILTER_LINEAR, { 0.3f, 0.7f }, 0.0f }, "709, full, linear" },
   /* Separate filters: chroma (R, B) nearest, G and A linear... */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601, VK_SAMPLER_YCBCR_RANGE_ITU_NARROW,
     VK_CHROMA_LOCATION_COSITED_EVEN, VK_FILTER_NEAREST, VK_FALSE,
     { VK_FILTER_LINEAR, VK_FILTER_LINEAR, { 0.25f, 0.6f }, 0.0f },
     "601, narrow, chroma nearest, luma linear" },
   /* ...and the other way round. */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020, VK_SAMPLER_YCBCR_RANGE_ITU_NARROW,
     VK_CHROMA_LOCATION_MIDPOINT, VK_FILTER_LINEAR, VK_FALSE,
     { VK_FILTER_NEAREST, VK_FILTER_NEAREST, { 0.7f, 0.2f }, 0.0f },
     "2020, narrow, chroma linear, luma nearest" },
   /* Explicit reconstruction: nothing to reconstruct, every component
    * filtered by the sampler's filter. */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601, VK_SAMPLER_YCBCR_RANGE_ITU_FULL,
     VK_CHROMA_LOCATION_MIDPOINT, VK_FILTER_NEAREST, VK_TRUE,
     { VK_FILTER_LINEAR, VK_FILTER_LINEAR, { 0.4f, 0.35f }, 0.0f },
     "601, full, explicit, luma linear" },
   /* Minification picks minFilter. */
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709, VK_SAMPLER_YCBCR_RANGE_ITU_NARROW,
     VK_CHROMA_LOCATION_COSITED_EVEN, VK_FILTER_LINEAR, VK_FALSE,
     { VK_FILTER_NEAREST, VK_FILTER_LINEAR, { 0.6f, 0.45f }, 1.5f },
     "709, narrow, minified (linear)" },
   { VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020, VK_SAMPLER_YCBCR_RANGE_ITU_FULL,
     VK_CHROMA_LOCATION_MIDPOINT, VK_FILTER_NEAREST, VK_TRUE,
     { VK_FILTER_LINEAR, VK_FILTER_NEAREST, { 0.85f, 0.65f }, 2.0f },
     "2020, full, explicit, minified (nearest)" },
};
#define RGB_CASES (sizeof(rgb_cases) / sizeof(rgb_cases[0]))

/* Source component `sw` (a swizzle of the external format's components)
 * of the picture at (u, v), filtered, clamped to the edge. */
static double
ref_rgb_filter(const struct rgb_picture *pic, VkComponentSwizzle sw, VkFilter filter, double u,
               double v)
{
   if (sw == VK_COMPONENT_SWIZZLE_ONE)
      return 1.0;
   if (sw == VK_COMPONENT_SWIZZLE_ZERO)
      return 0.0;
   const int k = sw - VK_COMPONENT_SWIZZLE_R;
#define REF_TEXEL(i, j)                                                                     \
   pic->rgba[((size_t)((j) < 0 ? 0 : (j) >= (int)pic->h ? (int)pic->h - 1 : (j)) * pic->w + \
              (size_t)((i) < 0 ? 0 : (i) >= (int)pic->w ? (int)pic->w - 1 : (i))) * 4 + k]
   if (filter == VK_FILTER_NEAREST)
      return REF_TEXEL((int)floor(u), (int)floor(v));
   const double uu = u - 0.5, vv = v - 0.5;
   const int i0 = (int)floor(uu), j0 = (int)floor(vv);
   const double a = uu - i0, b = vv - j0;
   return (1 - a) * (1 - b) * REF_TEXEL(i0, j0) + a * (1 - b) * REF_TEXEL(i0 + 1, j0) +
          (1 - a) * b * REF_TEXEL(i0, j0 + 1) + a * b * REF_TEXEL(i0 + 1, j0 + 1);
#undef REF_TEXEL
}

/* The spec's range expansion (n per component) and model conversion,
 * written out (KDFS's BT.709 / BT.601 / BT.2020 matrices from Kr, Kb). */
static void
ref_ycbcr_convert(VkSamplerYcbcrModelConversion model, VkSamplerYcbcrRange range,
                  const int bits[3], double t[4])
{
   if (model == VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY)
      return;
   double e[3];
   for (int k = 0; k < 3; k++) {
      const double n_max = ldexp(1.0, bits[k]) - 1.0, s = ldexp(1.0, bits[k] - 8);
      if (range == VK_SAMPLER_YCBCR_RANGE_ITU_NARROW)
         e[k] = (t[k] * n_max - (k == 1 ? 16.0 : 128.0) * s) / ((k == 1 ? 219.0 : 224.0) * s);
      else
         e[k] = k == 1 ? t[k] : t[k] - ldexp(1.0, bits[k] - 1) / n_max;
   }
   const double cr = e[0], y = e[1], cb = e[2];
   double kr, kb;
   switch (model) {
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709: kr = 0.2126, kb = 0.0722; break;
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601: kr = 0.299, kb = 0.114; break;
   case VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020: kr = 0.2627, kb = 0.0593; break;
   default:   /* Y'CbCr identity: (Cr, Y', Cb) */
      t[0] = cr, t[1] = y, t[2] = cb;
      return;
   }
   const double kg = 1.0 - kr - kb;
   t[0] = y + (2 - 2 * kr) * cr;
   t[1] = y - (2 * kb * (1 - kb) / kg) * cb - (2 * kr * (1 - kr) / kg) * cr;
   t[2] = y + (2 - 2 * kb) * cb;
}

/* What a conversion of the external format gives at texel (x, y) +
 * offset: implicit reconstruction filters R and B (chroma) by chromaFilter,
 * G and A by the sampler's filter (magnification at LOD 0, else
 * minification: the image has one level); explicit reconstruction filters
 * all four by the sampler's; then the conversion. */
static void
ref_rgb_sample(const struct rgb_picture *pic, const VkComponentMapping *components,
               const struct rgb_case *rc, uint32_t x, uint32_t y, double out[4])
{
   const VkComponentSwizzle sw[4] = {
      components->r ? components->r : VK_COMPONENT_SWIZZLE_R,
      components->g ? components->g : VK_COMPONENT_SWIZZLE_G,
      components->b ? components->b : VK_COMPONENT_SWIZZLE_B,
      components->a ? components->a : VK_COMPONENT_SWIZZLE_A,
   };
   const VkFilter filter = rc->sp.lod > 0.0f ? rc->sp.min : rc->sp.mag;
   const double u = x + (double)rc->sp.offset[0], v = y + (double)rc->sp.offset[1];
   for (int k = 0; k < 4; k++) {
      const bool chroma = (k == 0 || k == 2) && !rc->explicit_reconstruction;
      out[k] = ref_rgb_filter(pic, sw[k], chroma ? rc->chroma : filter, u, v);
   }
   ref_ycbcr_convert(rc->model, rc->range, pic->bits, out);
}

/* Every RGB AHB format sampled through its external format with every
 * case above (the application's components are nonsense: ignored), each
 * texel against the reference. Also: what the external formats report, and
 * that the plain formats still have no conversions of their own. */
static void
check_rgb_external(struct vk *v, struct staging *st)
{
   const VkFormatFeatureFlags chroma =
      VK_FORMAT_FEATURE_MIDPOINT_CHROMA_SAMPLES_BIT | VK_FORMAT_FEATURE_COSITED_CHROMA_SAMPLES_BIT;
   const VkFormatFeatureFlags ycbcr_bits =
      chroma | VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_SEPARATE_RECONSTRUCTION_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT;
   /* What the cases use, each of which the spec conditions on a feature. */
   const VkFormatFeatureFlags used =
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
      chroma | VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_LINEAR_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_SEPARATE_RECONSTRUCTION_FILTER_BIT |
      VK_FORMAT_FEATURE_SAMPLED_IMAGE_YCBCR_CONVERSION_CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE_BIT;
   const VkComponentMapping nonsense = { VK_COMPONENT_SWIZZLE_B, VK_COMPONENT_SWIZZLE_ZERO,
                                         VK_COMPONENT_SWIZZLE_ONE, VK_COMPONENT_SWIZZLE_R };

   for (size_t i = 0; i < FORMAT_CASES; i++) {
      const struct format_case *fc = &format_cases[i];
      char what[160];
      /* The plain format: no Y'CbCr bits, no conversion of its own. */
      VkFormatProperties plain;
      v->GetPhysicalDeviceFormatProperties(v->pdev, fc->vk, &plain);
      CHECK(!(plain.optimalTilingFeatures & ycbcr_bits) &&
               !(plain.linearTilingFeatures & ycbcr_bits),
            "format %d: Y'CbCr features 0x%x of its own", fc->vk, plain.optimalTilingFeatures);
      const VkSamplerYcbcrConversionCreateInfo plain_ci = {
         .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO,
         .format = fc->vk,
         .ycbcrModel = VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY,
         .ycbcrRange = VK_SAMPLER_YCBCR_RANGE_ITU_FULL,
         .xChromaOffset = VK_CHROMA_LOCATION_MIDPOINT,
         .yChromaOffset = VK_CHROMA_LOCATION_MIDPOINT,
         .chromaFilter = VK_FILTER_NEAREST,
      };
      VkSamplerYcbcrConversion conv = VK_NULL_HANDLE;
      CHECK_EQ_INT(v->CreateSamplerYcbcrConversionKHR(v->device, &plain_ci, NULL, &conv),
                   VK_ERROR_FORMAT_NOT_SUPPORTED);
      v->DestroySamplerYcbcrConversionKHR(v->device, conv, NULL);

      struct ahb a;
      if (!ahb_alloc(&a, W, H, fc->ahb, AHB_GPU_SAMPLED | AHB_CPU_RW))
         continue;
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
      /* The suggested conversion for RGB data, and the features the cases
       * need; RGBX's undefined X reads as one. */
      CHECK_EQ_INT(f.suggestedYcbcrModel, VK_SAMPLER_YCBCR_MODEL_CONVERSION_RGB_IDENTITY);
      CHECK_EQ_INT(f.suggestedYcbcrRange, VK_SAMPLER_YCBCR_RANGE_ITU_FULL);
      CHECK((f.formatFeatures & used) == used, "format 0x%x: external format features 0x%x",
            fc->ahb, f.formatFeatures);
      CHECK_EQ_INT(f.samplerYcbcrConversionComponents.a,
                   fc->ahb == AHB_FMT_RGBX8 ? VK_COMPONENT_SWIZZLE_ONE
                                            : VK_COMPONENT_SWIZZLE_IDENTITY);
      struct rgb_picture pic;
      float *got = calloc((size_t)W * H * 4, sizeof(float));
      if (!rgb_picture_make(&pic, fc->ahb, W, H, 40 + (uint32_t)i) || !got) {
         CHECK(false, "out of memory");
         free(got);
         rgb_picture_free(&pic);
         ahb_free(&a);
         continue;
      }
      rgb_picture_store(&pic, &a);

      VkImage image;
      CHECK_EQ_INT(image_create(v, f.externalFormat, VK_FORMAT_UNDEFINED, W, H,
                                VK_IMAGE_USAGE_SAMPLED_BIT, NULL, &image),
                   VK_SUCCESS);
      VkDeviceMemory mem;
      CHECK_EQ_INT(import_memory(v, a.buf, p.allocationSize, image, NULL, &mem), VK_SUCCESS);
      if (image && mem)
         CHECK_EQ_INT(v->BindImageMemory(v->device, image, mem, 0), VK_SUCCESS);
      const VkExternalFormatANDROID ef = {
         .sType = VK_STRUCTURE_TYPE_EXTERNAL_FORMAT_ANDROID,
         .externalFormat = f.externalFormat,
      };
      /* Allocation callbacks that fail: an external format conversion and
       * an external-format image, neither made nor leaked. */
      struct alloc_ctl ctl = { 0, 0 };
      const VkAllocationCallbacks failing = ctl_callbacks(&ctl);
      const VkSamplerYcbcrConversionCreateInfo suggested = {
         .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO,
         .pNext = &ef,
         .ycbcrModel = f.suggestedYcbcrModel,
         .ycbcrRange = f.suggestedYcbcrRange,
         .components = f.samplerYcbcrConversionComponents,
         .xChromaOffset = f.suggestedXChromaOffset,
         .yChromaOffset = f.suggestedYChromaOffset,
         .chromaFilter = VK_FILTER_NEAREST,
      };
      CHECK_EQ_INT(v->CreateSamplerYcbcrConversionKHR(v->device, &suggested, &failing, &conv),
                   VK_ERROR_OUT_OF_HOST_MEMORY);
      VkImage failed = VK_NULL_HANDLE;
      atomic_store(&ctl.fail_in, 0);
      CHECK_EQ_INT(image_create(v, f.externalFormat, VK_FORMAT_UNDEFINED, W, H,
                                VK_IMAGE_USAGE_SAMPLED_BIT, &failing, &failed),
                   VK_ERROR_OUT_OF_HOST_MEMORY);
      CHECK_EQ_INT(atomic_load(&ctl.live), 0);
      for (size_t c = 0; image && mem && c < RGB_CASES; c++) {
         const struct rgb_case *rc = &rgb_cases[c];
         snprintf(what, sizeof(what), "AHB format 0x%x external format, %s", fc->ahb, rc->name);
         const VkSamplerYcbcrConversionCreateInfo cci = {
            .sType = VK_STRUCTURE_TYPE_SAMPLER_YCBCR_CONVERSION_CREATE_INFO,
            .pNext = &ef,
            .format = VK_FORMAT_UNDEFINED,
            .ycbcrModel = rc->model,
            .ycbcrRange = rc->range,
            .components = c % 2 ? nonsense : f.samplerYcbcrConversionComponents,
            .xChromaOffset = rc->location,
            .yChromaOffset = rc->location,
            .chromaFilter = rc->chroma,
            .forceExplicitReconstruction = rc->explicit_reconstruction,
         };
         memset(got, 0, (size_t)W * H * 16);
         if (!sample_image(v, st, image, VK_FORMAT_UNDEFINED, &cci, &rc->sp, W, H, got))
            continue;
         /* Within a thousandth: far below what a wrong filter, model,
          * range or bit depth changes. */
         int bad = 0;
         for (uint32_t t = 0; t < W * H; t++) {
            double want[4];
            ref_rgb_sample(&pic, &f.samplerYcbcrConversionComponents, rc, t % W, t / W, want);
            for (int k = 0; k < 4; k++) {
               if (fabs(got[t * 4 + k] - want[k]) > 1e-3 && bad++ < 4)
                  fprintf(stderr, "%s: texel (%u,%u) component %d = %f, expected %f\n", what,
                          t % W, t / W, k, got[t * 4 + k], want[k]);
            }
         }
         CHECK(bad == 0, "%s: %d wrong components", what, bad);
      }
      v->DestroyImage(v->device, image, NULL);
      v->FreeMemory(v->device, mem, NULL);
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
      free(got);
      rgb_picture_free(&pic);
      ahb_free(&a);
   }
}

static void
check_yuv(struct vk *v, struct staging *st)
{
   uint64_t externals[YUV_LAYOUTS] = { 0 };
   float *expect = calloc((size_t)YW * YH * 3, sizeof(float));
   for (uint32_t i = 0; expect && i < YW * YH; i++)
      ref_601_narrow(yuv_y(i % YW, i / YW), yuv_cb(i % YW / 2, i / YW / 2),
                     yuv_cr(i % YW / 2, i / YW / 2), &expect[i * 3]);
   for (int l = 0; l < YUV_LAYOUTS; l++) {
      struct ahb a;
      if (!ahb_alloc(&a, YW, YH, AHB_FMT_YCBCR420,
                     AHB_GPU_SAMPLED | AHB_CPU_RW | yuv_usage_bits[l]))
         continue;
      a.bpp = 1;
      const struct yuv_planes yp = yuv_planes(&a.desc, (enum yuv_layout)l);
      /* Taken exactly when the multi-planar format its pictures are in is
       * sampled (through conversions). */
      const VkFormat planar = l == YUV_I420 ? VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM
                                            : VK_FORMAT_G8_B8R8_2PLANE_420_UNORM;
      VkFormatProperties fp;
      v->GetPhysicalDeviceFormatProperties(v->pdev, planar, &fp);
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) {
         CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_ERROR_INVALID_EXTERNAL_HANDLE);
         ahb_free(&a);
         continue;
      }
      CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
      /* Up to the last sample of the plane that ends last. */
      const size_t y_end = yp.y_pitch * (YH - 1) + YW;
      const size_t cb_end = yp.cb_off + yp.c_pitch * (YH / 2 - 1) + yp.c_step * (YW / 2 - 1) + 1;
      const size_t cr_end = yp.cr_off + yp.c_pitch * (YH / 2 - 1) + yp.c_step * (YW / 2 - 1) + 1;
      size_t end = y_end > cb_end ? y_end : cb_end;
      end = end > cr_end ? end : cr_end;
      CHECK_EQ_INT(p.allocationSize, end);
      /* The multi-planar format the layout is, if any (Cr,Cb pairs are
       * none), and a distinct external format for each layout. */
      const VkFormat want = l == YUV_NV12   ? VK_FORMAT_G8_B8R8_2PLANE_420_UNORM
                            : l == YUV_I420 ? VK_FORMAT_G8_B8_R8_3PLANE_420_UNORM
                                            : VK_FORMAT_UNDEFINED;
      CHECK_EQ_INT(f.format, want);
      externals[l] = f.externalFormat;
      CHECK(f.externalFormat != 0, "%s: externalFormat 0", yuv_names[l]);
      for (int k = 0; k < l; k++)
         CHECK(externals[k] != externals[l], "%s and %s share an external format", yuv_names[k],
               yuv_names[l]);
      CHECK(f.samplerYcbcrConversionComponents.r == VK_COMPONENT_SWIZZLE_IDENTITY &&
               f.samplerYcbcrConversionComponents.g == VK_COMPONENT_SWIZZLE_IDENTITY &&
               f.samplerYcbcrConversionComponents.b == VK_COMPONENT_SWIZZLE_IDENTITY &&
               f.samplerYcbcrConversionComponents.a == VK_COMPONENT_SWIZZLE_IDENTITY,
            "%s: components", yuv_names[l]);
      CHECK(f.suggestedYcbcrModel >= VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_709 &&
               f.suggestedYcbcrModel <= VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_2020,
            "%s: suggested model %d is not a Y'CbCr one", yuv_names[l], f.suggestedYcbcrModel);
      check_external_features(v, f.formatFeatures, AHB_FMT_YCBCR420);

      yuv_fill(&a, (enum yuv_layout)l);
      if (f.formatFeatures) {
         char what[64];
         snprintf(what, sizeof(what), "%s external format", yuv_names[l]);
         check_sampling(v, st, &a, f.externalFormat, VK_FORMAT_UNDEFINED,
                        VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601,
                        VK_SAMPLER_YCBCR_RANGE_ITU_NARROW, expect, what);
         if (want != VK_FORMAT_UNDEFINED) {
            snprintf(what, sizeof(what), "%s as its format", yuv_names[l]);
            check_sampling(v, st, &a, 0, want, VK_SAMPLER_YCBCR_MODEL_CONVERSION_YCBCR_601,
                           VK_SAMPLER_YCBCR_RANGE_ITU_NARROW, expect, what);
         }
      }
      CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);

      /* NV12 as G8_B8R8_2PLANE_420: the image's planes are the buffer's. */
      VkExternalMemoryProperties e;
      uint64_t usage;
      VkImageFormatProperties lim;
      const VkImageUsageFlags copy_usage =
         VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
      if (l == YUV_NV12 && v->ycbcr &&
          image_format_query(v, want, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL, copy_usage, 0, &e,
                             &usage, &lim) == VK_SUCCESS) {
         CHECK_EQ_INT(e.externalMemoryFeatures,
                      VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT |
                         VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
                         VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT);
         VkImage image;
         CHECK_EQ_INT(image_create(v, 0, want, YW, YH, copy_usage, NULL, &image), VK_SUCCESS);
         VkDeviceMemory mem;
         CHECK_EQ_INT(import_memory(v, a.buf, p.allocationSize, image, NULL, &mem), VK_SUCCESS);
         if (image && mem) {
            CHECK_EQ_INT(v->BindImageMemory(v->device, image, mem, 0), VK_SUCCESS);
            VkSubresourceLayout sl;
            const VkImageSubresource sub0 = { VK_IMAGE_ASPECT_PLANE_0_BIT, 0, 0 };
            const VkImageSubresource sub1 = { VK_IMAGE_ASPECT_PLANE_1_BIT, 0, 0 };
            v->GetImageSubresourceLayout(v->device, image, &sub0, &sl);
            CHECK_EQ_INT(sl.offset, 0);
            CHECK_EQ_INT(sl.rowPitch, yp.y_pitch);
            v->GetImageSubresourceLayout(v->device, image, &sub1, &sl);
            CHECK_EQ_INT(sl.offset, yp.cb_off);
            CHECK_EQ_INT(sl.rowPitch, yp.c_pitch);
            /* Planes out through Vulkan: the samples the lock wrote. */
            const VkBufferImageCopy regions[2] = {
               { .imageSubresource = { VK_IMAGE_ASPECT_PLANE_0_BIT, 0, 0, 1 },
                 .imageExtent = { YW, YH, 1 } },
               { .bufferOffset = YW * YH,
                 .imageSubresource = { VK_IMAGE_ASPECT_PLANE_1_BIT, 0, 0, 1 },
                 .imageExtent = { YW / 2, YH / 2, 1 } },
            };
            memset(st->map, 0, (size_t)YW * YH * 2);
            begin(v);
            image_barrier(v, image, VK_IMAGE_LAYOUT_UNDEFINED,
                          VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
            v->CmdCopyImageToBuffer(v->cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, st->buffer,
                                    2, regions);
            submit_wait(v);
            int bad = 0;
            for (uint32_t i = 0; i < YW * YH; i++)
               bad += st->map[i] != yuv_y(i % YW, i / YW);
            for (uint32_t i = 0; i < YW / 2 * YH / 2; i++) {
               bad += st->map[YW * YH + 2 * i] != yuv_cb(i % (YW / 2), i / (YW / 2));
               bad += st->map[YW * YH + 2 * i + 1] != yuv_cr(i % (YW / 2), i / (YW / 2));
            }
            CHECK(bad == 0, "NV12 planes out: %d wrong bytes", bad);
            /* A plane in through Vulkan: the lock sees it where NV12 has it. */
            for (uint32_t i = 0; i < YW / 2 * YH / 2 * 2; i++)
               st->map[YW * YH + i] = pattern(77, i);
            begin(v);
            image_barrier(v, image, VK_IMAGE_LAYOUT_UNDEFINED,
                          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
            v->CmdCopyBufferToImage(v->cmd, st->buffer, image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                    1, &regions[1]);
            submit_wait(v);
            const uint8_t *m = ahb_lock(&a);
            bad = 0;
            for (uint32_t j = 0; m && j < YH / 2; j++)
               for (uint32_t i = 0; i < YW; i++)
                  bad += m[yp.cb_off + j * yp.c_pitch + i] != pattern(77, j * YW + i);
            for (uint32_t y = 0; m && y < YH; y++)
               bad += m[y * yp.y_pitch + 5] != yuv_y(5, y);
            if (m)
               ahb_unlock(&a);
            CHECK(bad == 0, "NV12 chroma in: %d wrong bytes", bad);
         }
         v->DestroyImage(v->device, image, NULL);
         v->FreeMemory(v->device, mem, NULL);
      }
      ahb_free(&a);
   }
   free(expect);

   /* Refused: odd 4:2:0 extents; an external format Shale did not hand
    * out; an external-format image with a usage other than sampling. */
   struct ahb odd;
   if (ahb_alloc(&odd, YW - 1, YH, AHB_FMT_YCBCR420, AHB_GPU_SAMPLED | AHB_CPU_RW)) {
      VkAndroidHardwareBufferPropertiesANDROID p;
      VkAndroidHardwareBufferFormatPropertiesANDROID f;
      CHECK_EQ_INT(ahb_properties(v, odd.buf, &p, &f), VK_ERROR_INVALID_EXTERNAL_HANDLE);
      ahb_free(&odd);
   }
   VkImage image = VK_NULL_HANDLE;
   CHECK(image_create(v, UINT64_C(0x7777), VK_FORMAT_UNDEFINED, YW, YH,
                      VK_IMAGE_USAGE_SAMPLED_BIT, NULL, &image) != VK_SUCCESS,
         "an unknown external format made an image");
   v->DestroyImage(v->device, image, NULL);
   if (externals[YUV_NV12]) {
      CHECK(image_create(v, externals[YUV_NV12], VK_FORMAT_UNDEFINED, YW, YH,
                         VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, NULL,
                         &image) != VK_SUCCESS,
            "an external-format image with transfer usage");
      v->DestroyImage(v->device, image, NULL);
   }
}

/* ---- error paths ---- */

static void
check_errors(struct vk *v)
{
   const int fds = check_open_fds();
   const int live = count_live_ahbs();
   const int maps = count_maps("memfd:" SH_GRALLOC_HOST_AHB_NAME);
   struct ahb a, blob, rgb565;
   if (!ahb_alloc(&a, W, H, AHB_FMT_RGBA8, AHB_GPU_SAMPLED | AHB_CPU_RW))
      return;
   if (!ahb_alloc(&blob, BLOB_BYTES, 1, AHB_FMT_BLOB, AHB_GPU_DATA_BUFFER | AHB_CPU_RW))
      return;
   if (!ahb_alloc(&rgb565, W, H, AHB_FMT_RGB565, AHB_GPU_SAMPLED | AHB_CPU_RW))
      return;
   VkAndroidHardwareBufferPropertiesANDROID p;
   VkAndroidHardwareBufferFormatPropertiesANDROID f;
   CHECK_EQ_INT(ahb_properties(v, a.buf, &p, &f), VK_SUCCESS);
   const VkDeviceSize size = p.allocationSize;
   VkImage image, small, storage;
   CHECK_EQ_INT(image_create(v, 0, VK_FORMAT_R8G8B8A8_UNORM, W, H, IMAGE_USAGE, NULL, &image),
                VK_SUCCESS);
   CHECK_EQ_INT(image_create(v, 0, VK_FORMAT_R8G8B8A8_UNORM, W - 1, H, IMAGE_USAGE, NULL, &small),
                VK_SUCCESS);
   CHECK_EQ_INT(image_create(v, 0, VK_FORMAT_R8G8B8A8_UNORM, W, H,
                             VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, NULL,
                             &storage),
                VK_SUCCESS);
   VkDeviceMemory mem = VK_NULL_HANDLE;
   const VkResult bad_handle = VK_ERROR_INVALID_EXTERNAL_HANDLE;
   /* Imports: a size not the buffer's; an image buffer for a buffer (not
    * a BLOB); a picture of another extent, format or usage; not a buffer. */
   CHECK_EQ_INT(import_memory(v, a.buf, size + 64, image, NULL, &mem), bad_handle);
   CHECK_EQ_INT(import_memory(v, a.buf, size, VK_NULL_HANDLE, NULL, &mem), bad_handle);
   CHECK_EQ_INT(import_memory(v, a.buf, size, small, NULL, &mem), bad_handle);
   CHECK_EQ_INT(import_memory(v, a.buf, size, storage, NULL, &mem), bad_handle);
   CHECK_EQ_INT(ahb_properties(v, rgb565.buf, &p, &f), VK_SUCCESS);
   CHECK_EQ_INT(import_memory(v, rgb565.buf, p.allocationSize, image, NULL, &mem), bad_handle);
   CHECK_EQ_INT(import_memory(v, blob.buf, BLOB_BYTES, image, NULL, &mem), bad_handle);
   uint64_t not_a_buffer[32];
   memset(not_a_buffer, 0, sizeof(not_a_buffer));
   CHECK_EQ_INT(import_memory(v, (struct AHardwareBuffer *)not_a_buffer, size, VK_NULL_HANDLE, NULL,
                              &mem),
                bad_handle);
   CHECK(mem == VK_NULL_HANDLE, "a failed import returned memory");
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(blob.buf), 1);
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(rgb565.buf), 1);

   /* Exports: with another handle type; an empty BLOB. No buffer made. */
   CHECK_EQ_INT(export_memory(v, AHB_TYPE | VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT, 4096,
                              VK_NULL_HANDLE, NULL, &mem),
                bad_handle);
   CHECK(export_memory(v, AHB_TYPE, 0, VK_NULL_HANDLE, NULL, &mem) != VK_SUCCESS,
         "an empty BLOB export succeeded");
   CHECK_EQ_INT(count_live_ahbs(), live + 3);

   /* Memory that is not an AHB has none to give. */
   const VkMemoryAllocateInfo plain = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = 4096,
      .memoryTypeIndex = 0,
   };
   CHECK_EQ_INT(v->AllocateMemory(v->device, &plain, NULL, &mem), VK_SUCCESS);
   struct AHardwareBuffer *none = NULL;
   const VkMemoryGetAndroidHardwareBufferInfoANDROID gi = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_GET_ANDROID_HARDWARE_BUFFER_INFO_ANDROID,
      .memory = mem,
   };
   CHECK(v->GetMemoryAndroidHardwareBufferANDROID(v->device, &gi, &none) != VK_SUCCESS,
         "plain memory gave an AHardwareBuffer");
   CHECK(none == NULL, "plain memory gave %p", (void *)none);
   v->FreeMemory(v->device, mem, NULL);
   mem = VK_NULL_HANDLE;

   /* Allocation callbacks that fail: no memory, no reference kept, no
    * buffer made, nothing leaked. */
   struct alloc_ctl ctl = { 0, 0 };
   const VkAllocationCallbacks failing = ctl_callbacks(&ctl);
   CHECK_EQ_INT(import_memory(v, a.buf, size, image, &failing, &mem), VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);
   atomic_store(&ctl.fail_in, 0);
   CHECK_EQ_INT(import_memory(v, blob.buf, BLOB_BYTES, VK_NULL_HANDLE, &failing, &mem),
                VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(blob.buf), 1);
   atomic_store(&ctl.fail_in, 0);
   CHECK_EQ_INT(export_memory(v, AHB_TYPE, 4096, VK_NULL_HANDLE, &failing, &mem),
                VK_ERROR_OUT_OF_HOST_MEMORY);
   atomic_store(&ctl.fail_in, 0);
   CHECK_EQ_INT(export_memory(v, AHB_TYPE, 0, image, &failing, &mem), VK_ERROR_OUT_OF_HOST_MEMORY);
   CHECK_EQ_INT(count_live_ahbs(), live + 3);
   /* ...and the same allocator, not failing, through a full life. */
   atomic_store(&ctl.fail_in, -1);
   CHECK_EQ_INT(import_memory(v, a.buf, size, image, &failing, &mem), VK_SUCCESS);
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 2);
   CHECK(atomic_load(&ctl.live) > 0, "the memory did not use its allocator");
   v->FreeMemory(v->device, mem, &failing);
   CHECK_EQ_INT(atomic_load(&ctl.live), 0);
   CHECK_EQ_INT(sh_gralloc_host_ahb_refs(a.buf), 1);

   v->DestroyImage(v->device, image, NULL);
   v->DestroyImage(v->device, small, NULL);
   v->DestroyImage(v->device, storage, NULL);
   ahb_free(&a);
   ahb_free(&blob);
   ahb_free(&rgb565);
   CHECK_EQ_INT(count_live_ahbs(), live);
   CHECK_EQ_INT(count_maps("memfd:" SH_GRALLOC_HOST_AHB_NAME), maps);
   CHECK_EQ_INT(check_open_fds(), fds);
}

/* ---- the offer ---- */

/* android/ahb_offer: the HAL module lists the extension (spec version 5,
 * with what it requires), the handle type is offered, a device that
 * enables it has its commands, and one that does not has neither them nor
 * the handle type; the desktop ICD, which never sees AHardwareBuffers, does
 * not list it. */
static void
check_offer(struct vk *v, uint32_t spec_version, const char *icd_path)
{
   CHECK_EQ_INT(spec_version, VK_ANDROID_EXTERNAL_MEMORY_ANDROID_HARDWARE_BUFFER_SPEC_VERSION);
   CHECK(v->ycbcr, "the AHB extension without VK_KHR_sampler_ycbcr_conversion");
   const VkPhysicalDeviceExternalBufferInfo bi = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
      .handleType = AHB_TYPE,
   };
   VkExternalBufferProperties bp = { .sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES };
   v->GetPhysicalDeviceExternalBufferPropertiesKHR(v->pdev, &bi, &bp);
   CHECK_EQ_INT(bp.externalMemoryProperties.externalMemoryFeatures,
                VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT |
                   VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT);
   /* Commands present with the extension enabled (setup_device checks),
    * absent without, and then no AHB exports. */
   if (setup_device(v, true, NULL)) {
      v->DestroyCommandPool(v->device, v->pool, NULL);
      v->DestroyDevice(v->device, NULL);
      v->device = VK_NULL_HANDLE;
   }
   if (setup_device(v, false, NULL)) {
      VkDeviceMemory mem = VK_NULL_HANDLE;
      CHECK_EQ_INT(export_memory(v, AHB_TYPE, 4096, VK_NULL_HANDLE, NULL, &mem),
                   VK_ERROR_INVALID_EXTERNAL_HANDLE);
   }

   /* The desktop ICD, through the loader-ICD interface. */
   void *icd = dlopen(icd_path, RTLD_NOW | RTLD_LOCAL);
   CHECK(icd != NULL, "dlopen(%s): %s", icd_path, dlerror());
   if (!icd)
      return;
   PFN_vkGetInstanceProcAddr gipa =
      (PFN_vkGetInstanceProcAddr)dlsym(icd, "vk_icdGetInstanceProcAddr");
   /* vk_icd.h's PFN_vkNegotiateLoaderICDInterfaceVersion. */
   typedef VkResult(VKAPI_PTR * negotiate_fn)(uint32_t * version);
   negotiate_fn negotiate = (negotiate_fn)dlsym(icd, "vk_icdNegotiateLoaderICDInterfaceVersion");
   CHECK(gipa && negotiate, "the desktop ICD's exports");
   uint32_t version = 5;
   PFN_vkCreateInstance create =
      gipa && negotiate && negotiate(&version) == VK_SUCCESS
         ? (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance")
         : NULL;
   const VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
   VkInstance instance = VK_NULL_HANDLE;
   if (create)
      CHECK_EQ_INT(create(&ici, NULL, &instance), VK_SUCCESS);
   if (instance) {
      PFN_vkEnumeratePhysicalDevices enumerate =
         (PFN_vkEnumeratePhysicalDevices)gipa(instance, "vkEnumeratePhysicalDevices");
      PFN_vkEnumerateDeviceExtensionProperties exts = (PFN_vkEnumerateDeviceExtensionProperties)
         gipa(instance, "vkEnumerateDeviceExtensionProperties");
      PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(instance, "vkDestroyInstance");
      uint32_t count = 1;
      VkPhysicalDevice pdev = VK_NULL_HANDLE;
      VkResult r = enumerate(instance, &count, &pdev);
      CHECK(r == VK_SUCCESS || r == VK_INCOMPLETE, "desktop vkEnumeratePhysicalDevices: %d", r);
      VkExtensionProperties props[256];
      uint32_t n = 256;
      if (pdev)
         CHECK_EQ_INT(exts(pdev, NULL, &n, props), VK_SUCCESS);
      else
         n = 0;
      CHECK(emu_has_extension(props, n, "VK_KHR_sampler_ycbcr_conversion", NULL),
            "the desktop ICD does not list VK_KHR_sampler_ycbcr_conversion");
      CHECK(!emu_has_extension(props, n, "VK_ANDROID_external_memory_android_hardware_buffer",
                               NULL),
            "the desktop ICD lists the AHB extension");
      CHECK(!emu_has_extension(props, n, "VK_ANDROID_native_buffer", NULL),
            "the desktop ICD lists VK_ANDROID_native_buffer");
      destroy(instance, NULL);
   }
   dlclose(icd);
}

int
main(int argc, char **argv)
{
   /* test_ahb MODULE: everything; test_ahb MODULE --offer ICD: the offer. */
   const bool offer = argc == 4 && strcmp(argv[2], "--offer") == 0;
   if (argc != 2 && !offer) {
      fprintf(stderr, "usage: %s path/to/vulkan.shale.so [--offer path/to/libvulkan_shale.so]\n",
              argv[0]);
      return 1;
   }
   const int live_before = count_live_ahbs();

   struct hw_device_t *common = emu_hal_open(argv[1]);
   if (!common)
      return check_finish();
   const hwvulkan_device_t *hal = (const hwvulkan_device_t *)common;
   const int fds_loaded = check_open_fds();

   struct vk v;
   bool listed = false;
   uint32_t spec_version = 0;
   if (setup_instance(&v, hal, &listed, &spec_version)) {
      /* Offered by the HAL module, with its dependency. */
      CHECK(listed, "the AHB extension is not listed");
      if (offer) {
         check_offer(&v, spec_version, argv[3]);
      } else if (listed && setup_device(&v, true, NULL)) {
         struct staging st;
         check_properties(&v);
         check_capabilities(&v);
         if (staging_create(&v.emu, &st, STAGING_BYTES,
                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                               VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)) {
            check_image_import(&v, &st);
            check_buffer_import(&v, &st);
            check_blob_export(&v);
            check_image_export(&v, &st);
            check_rgb_external(&v, &st);
            check_yuv(&v, &st);
            staging_destroy(&v.emu, &st);
         }
         check_errors(&v);
      }
   }
   teardown(&v);
   CHECK_EQ_INT(count_live_ahbs(), live_before);
   CHECK_EQ_INT(count_maps("memfd:" SH_GRALLOC_HOST_AHB_NAME), 0);
   CHECK_EQ_INT(check_open_fds(), fds_loaded);
   CHECK_EQ_INT(common->close(common), 0);
   return check_finish();
}
