/* External memory: handle-type capability answers and the device/driver UUIDs. */
#include "sd_external.h"

#include <string.h>

#include "sd_ahb.h"
#include "sd_entrypoints.h"
#include "sd_util.h"

#define SD_STR2(x) #x
#define SD_STR(x) SD_STR2(x)

static const VkExternalMemoryProperties sd_opaque_fd_properties = {
   .externalMemoryFeatures =
      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT,
   .exportFromImportedHandleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
   .compatibleHandleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT,
};

/* AHardwareBuffers for buffers: a BLOB holds any buffer, never dedicated
 * (the spec forbids DEDICATED_ONLY for buffers). Images: sd_ahb.c. */
#define SD_AHB_TYPE VK_EXTERNAL_MEMORY_HANDLE_TYPE_ANDROID_HARDWARE_BUFFER_BIT_ANDROID
static const VkExternalMemoryProperties sd_ahb_buffer_properties = {
   .externalMemoryFeatures =
      VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT | VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT,
   .exportFromImportedHandleTypes = SD_AHB_TYPE,
   .compatibleHandleTypes = SD_AHB_TYPE,
};

bool
sd_external_memory_properties(VkExternalMemoryHandleTypeFlagBits type,
                              VkExternalMemoryProperties *out)
{
   switch (type) {
   case VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT:
      *out = sd_opaque_fd_properties;
      return true;
   case SD_AHB_TYPE:
      if (!sd_ahb_supported())
         break;
      *out = sd_ahb_buffer_properties;
      return true;
   default:
      break;
   }
   *out = (VkExternalMemoryProperties) { 0 };
   return false;
}

VKAPI_ATTR void VKAPI_CALL
sd_GetPhysicalDeviceExternalBufferProperties(VkPhysicalDevice physicalDevice,
                                             const VkPhysicalDeviceExternalBufferInfo *pInfo,
                                             VkExternalBufferProperties *pProps)
{
   /* Buffer create flags all need features Shale does not claim (sparse
    * binding, protected memory, capture/replay addresses): no buffer with
    * them exists, so none is shared. Every usage is fine: a buffer is bytes
    * in the memory, whatever it is used for. */
   VkExternalMemoryProperties *p = &pProps->externalMemoryProperties;
   if (pInfo->flags) {
      *p = (VkExternalMemoryProperties) { 0 };
      return;
   }
   sd_external_memory_properties(pInfo->handleType, p);
}

VkResult
sd_external_image_properties(VkExternalMemoryHandleTypeFlagBits handle_type,
                             const VkPhysicalDeviceImageFormatInfo2 *info,
                             VkExternalMemoryProperties *out)
{
   if (handle_type == 0) {
      *out = (VkExternalMemoryProperties) { 0 };
      return VK_SUCCESS;
   }
   /* AHardwareBuffers hold only some images, each in a dedicated allocation. */
   if (handle_type == SD_AHB_TYPE)
      return sd_ahb_external_image_properties(info, out);
   /* An image's layout is a pure function of its creation parameters
    * (sd_image.h), the same in every process with the same driverUUID, so
    * every image Shale creates may live in shared memory; the image query
    * itself decides whether the image exists. */
   if (!sd_external_memory_properties(handle_type, out))
      return VK_ERROR_FORMAT_NOT_SUPPORTED;
   return VK_SUCCESS;
}

/* 64-bit FNV-1a from a chosen start value. */
static uint64_t
sd_fnv1a64(uint64_t h, const char *s)
{
   for (; *s; s++) {
      h ^= (uint8_t)*s;
      h *= UINT64_C(0x100000001b3);
   }
   return h;
}

/* A name-based UUID: two independent 64-bit hashes of the name, then the
 * RFC 9562 version (8, "custom") and variant (binary 10) bits. */
static void
sd_name_uuid(const char *name, uint8_t uuid[VK_UUID_SIZE])
{
   uint64_t a = sd_fnv1a64(UINT64_C(0xcbf29ce484222325), name);
   uint64_t b = sd_fnv1a64(UINT64_C(0x84222325cbf29ce4), name);
   for (int i = 0; i < 8; i++) {
      uuid[i] = (uint8_t)(a >> (56 - 8 * i));
      uuid[8 + i] = (uint8_t)(b >> (56 - 8 * i));
   }
   uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x80);
   uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80);
}

void
sd_external_device_uuid(uint8_t uuid[VK_UUID_SIZE])
{
   sd_name_uuid("Shale: the CPU and host memory of this machine", uuid);
}

void
sd_external_driver_uuid(uint8_t uuid[VK_UUID_SIZE])
{
   /* The byte order is part of every layout. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SD_BYTE_ORDER "big-endian"
#else
#define SD_BYTE_ORDER "little-endian"
#endif
   sd_name_uuid("Shale driver, shared-memory layout " SD_STR(SD_EXTERNAL_LAYOUT_VERSION)
                ", " SD_BYTE_ORDER, uuid);
#undef SD_BYTE_ORDER
}

void
sd_external_fill_id_properties(VkPhysicalDeviceIDProperties *p)
{
   sd_external_device_uuid(p->deviceUUID);
   sd_external_driver_uuid(p->driverUUID);
   memset(p->deviceLUID, 0, sizeof(p->deviceLUID));
   p->deviceNodeMask = 0;
   p->deviceLUIDValid = VK_FALSE;
}
