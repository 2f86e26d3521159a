/* VkBuffer and VkBufferView: creation, memory requirements, binding. */
#include "sd_buffer.h"

#include <assert.h>

#include "sd_alloc.h"
#include "sd_device.h"
#include "sd_external.h"
#include "sd_memory.h"
#include "sd_physical_device.h"
#include "sd_util.h"
#include "util/su_format.h"

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateBuffer(VkDevice _device, const VkBufferCreateInfo *pCreateInfo,
                const VkAllocationCallbacks *pAllocator, VkBuffer *pBuffer)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   /* Sparse flags need sparse features, which are not claimed. */
   VkExternalMemoryHandleTypeFlags external = 0;
   sd_foreach_struct(s, pCreateInfo->pNext) {
      if (s->sType == VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO) {
         /* Memory of every handle type sd_external offers holds a buffer
          * like any other memory: same alignment and types. Other types are
          * invalid usage (vkGetPhysicalDeviceExternalBufferProperties says
          * none). */
         external |= ((const VkExternalMemoryBufferCreateInfo *)s)->handleTypes;
      }
   }
   assert(!(external & ~(VkExternalMemoryHandleTypeFlags)(
                          SD_EXTERNAL_MEMORY_HANDLE_TYPES |
                          VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID)));
   if (pCreateInfo->size > device->physical_device->memory.memoryHeaps[0].size)
      return sd_error(VK_ERROR_OUT_OF_DEVICE_MEMORY);
   struct sd_buffer *buffer = sd_device_object_alloc(device, pAllocator, sizeof(*buffer),
                                                     VK_OBJECT_TYPE_BUFFER);
   if (!buffer)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   buffer->size = pCreateInfo->size;
   buffer->usage = pCreateInfo->usage;
   buffer->flags = pCreateInfo->flags;
   buffer->external_types = external;
   *pBuffer = sd_buffer_to_handle(buffer);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyBuffer(VkDevice _device, VkBuffer _buffer, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_buffer, buffer, _buffer);
   if (buffer)
      sd_device_object_free(device, pAllocator, buffer);
}

static void
sd_buffer_requirements(struct sd_buffer *buffer, VkMemoryRequirements *req)
{
   /* Whole multiples of the alignment, so buffers placed one after another
    * stay aligned; but a buffer that may live in an AHardwareBuffer asks for
    * its own size only, so a BLOB of exactly that many bytes holds it. */
   const bool ahb = buffer->external_types &
                    VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID;
   req->size = ahb ? buffer->size : sd_align64(buffer->size, SD_BUFFER_ALIGNMENT);
   req->alignment = SD_BUFFER_ALIGNMENT;
   req->memoryTypeBits = (1u << SD_MEMORY_TYPE_COUNT) - 1;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetBufferMemoryRequirements(VkDevice _device, VkBuffer _buffer, VkMemoryRequirements *pReq)
{
   sd_buffer_requirements(sd_buffer_from_handle(_buffer), pReq);
}

void
sd_fill_dedicated_requirements(void *pNext)
{
   sd_foreach_struct_out(s, pNext) {
      if (s->sType == VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS) {
         VkMemoryDedicatedRequirements *d = (VkMemoryDedicatedRequirements *)s;
         d->prefersDedicatedAllocation = VK_FALSE;
         d->requiresDedicatedAllocation = VK_FALSE;
      }
   }
}

VKAPI_ATTR void VKAPI_CALL
sd_GetBufferMemoryRequirements2(VkDevice _device, const VkBufferMemoryRequirementsInfo2 *pInfo,
                                VkMemoryRequirements2 *pReq)
{
   sd_buffer_requirements(sd_buffer_from_handle(pInfo->buffer), &pReq->memoryRequirements);
   sd_fill_dedicated_requirements(pReq->pNext);
}

static void
sd_buffer_bind(struct sd_buffer *buffer, struct sd_device_memory *mem, VkDeviceSize offset)
{
   buffer->memory = mem;
   buffer->offset = offset;
   buffer->data = mem->data + offset;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_BindBufferMemory(VkDevice _device, VkBuffer _buffer, VkDeviceMemory _mem, VkDeviceSize offset)
{
   sd_buffer_bind(sd_buffer_from_handle(_buffer), sd_device_memory_from_handle(_mem), offset);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_BindBufferMemory2(VkDevice _device, uint32_t count, const VkBindBufferMemoryInfo *pInfos)
{
   for (uint32_t i = 0; i < count; i++)
      sd_buffer_bind(sd_buffer_from_handle(pInfos[i].buffer),
                     sd_device_memory_from_handle(pInfos[i].memory), pInfos[i].memoryOffset);
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateBufferView(VkDevice _device, const VkBufferViewCreateInfo *pCreateInfo,
                    const VkAllocationCallbacks *pAllocator, VkBufferView *pView)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_buffer, buffer, pCreateInfo->buffer);
   struct sd_buffer_view *view = sd_device_object_alloc(device, pAllocator, sizeof(*view),
                                                        VK_OBJECT_TYPE_BUFFER_VIEW);
   if (!view)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   view->buffer = buffer;
   view->format = pCreateInfo->format;
   view->offset = pCreateInfo->offset;
   /* VK_WHOLE_SIZE: the rest of the buffer, down to a whole number of
    * texels (the spec's "nearest smaller multiple"). */
   if (pCreateInfo->range == VK_WHOLE_SIZE) {
      const struct su_format_desc *desc = su_format_desc(pCreateInfo->format);
      const VkDeviceSize texel = desc && desc->block_size ? desc->block_size : 1;
      view->range = (buffer->size - pCreateInfo->offset) / texel * texel;
   } else {
      view->range = pCreateInfo->range;
   }
   *pView = sd_buffer_view_to_handle(view);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyBufferView(VkDevice _device, VkBufferView _view, const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_buffer_view, view, _view);
   if (view)
      sd_device_object_free(device, pAllocator, view);
}
