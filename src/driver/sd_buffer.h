/*
 * sd_buffer: VkBuffer and VkBufferView.
 *
 * Owns: a buffer's size, usage, external handle types and binding (memory
 * + offset); a view's format and range (VK_WHOLE_SIZE resolved at
 * creation). Memory requirements: the size rounded up to
 * SD_BUFFER_ALIGNMENT, except for buffers that may live in an
 * AHardwareBuffer (their exact size: a BLOB is as many bytes as the app
 * asked for).
 *
 * Invariants: `data` is NULL until bound, then points at the bound memory
 * plus offset, and never changes again (buffers bind once).
 *
 * Threading: immutable after binding.
 */
#ifndef SD_BUFFER_H
#define SD_BUFFER_H

#include "sd_object.h"

struct sd_device_memory;

struct sd_buffer {
   struct sd_object base;
   VkDeviceSize size;
   VkBufferUsageFlags usage;
   VkBufferCreateFlags flags;
   VkExternalMemoryHandleTypeFlags external_types;   /* VkExternalMemoryBufferCreateInfo */
   struct sd_device_memory *memory;
   VkDeviceSize offset;
   uint8_t *data;
};

struct sd_buffer_view {
   struct sd_object base;
   struct sd_buffer *buffer;
   VkFormat format;
   VkDeviceSize offset, range;
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_buffer, base, VkBuffer, VK_OBJECT_TYPE_BUFFER)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_buffer_view, base, VkBufferView, VK_OBJECT_TYPE_BUFFER_VIEW)

/* Alignment of buffers in memory (covers every min*OffsetAlignment limit). */
#define SD_BUFFER_ALIGNMENT 64

#endif
