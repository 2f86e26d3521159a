/*
 * vkt: the harness every API and render test uses. It goes through the real
 * Khronos loader (VK_DRIVER_FILES lists Shale's manifest and lavapipe's) with
 * VK_LAYER_KHRONOS_validation enabled; every validation warning or error is
 * printed and counted, and vkt_finish() turns a nonzero count into a failed
 * CHECK. The driver is picked by device name: "shale" (default) or
 * "lavapipe" (the reference), so one test can run the same work on both.
 */
#ifndef VKT_H
#define VKT_H

#include <stdbool.h>
#include <vulkan/vulkan.h>

enum vkt_driver { VKT_SHALE, VKT_LAVAPIPE };

struct vkt_options {
   enum vkt_driver driver;
   uint32_t api_version;                       /* 0: VK_API_VERSION_1_0 */
   const char *const *instance_extensions;
   uint32_t instance_extension_count;
   const char *const *device_extensions;
   uint32_t device_extension_count;
   const VkPhysicalDeviceFeatures *features;   /* NULL: none */
   const void *device_pnext;                   /* chained into VkDeviceCreateInfo */
   const VkAllocationCallbacks *alloc;         /* used for instance and device */
   bool no_validation;                         /* only for tests of the layer-less path */
};

struct vkt {
   enum vkt_driver driver;
   VkInstance instance;
   VkPhysicalDevice pdev;
   VkDevice device;
   VkQueue queue;
   VkCommandPool pool;
   VkPhysicalDeviceProperties props;
   VkPhysicalDeviceMemoryProperties mem_props;
   const VkAllocationCallbacks *alloc;
   VkDebugUtilsMessengerEXT messenger;
};

/* Creates instance, device, queue and a resettable command pool. Returns
 * false (after printing why) when the driver is not present; a test that
 * needs it should fail, a lavapipe comparison may SKIP. */
bool vkt_init(struct vkt *t, const struct vkt_options *opts);
void vkt_finish(struct vkt *t);
const char *vkt_driver_name(enum vkt_driver d);

/* Validation messages (warnings and errors) seen so far in this process. */
unsigned vkt_validation_messages(void);

/* A buffer bound to host-visible coherent memory, persistently mapped. */
struct vkt_buffer {
   VkBuffer buffer;
   VkDeviceMemory memory;
   void *map;
   VkDeviceSize size;
};
VkResult vkt_buffer_create(struct vkt *t, VkDeviceSize size, VkBufferUsageFlags usage,
                           struct vkt_buffer *out);
void vkt_buffer_destroy(struct vkt *t, struct vkt_buffer *b);

/* An image bound to its own device-local memory allocation. */
struct vkt_image {
   VkImage image;
   VkDeviceMemory memory;
};
VkResult vkt_image_create(struct vkt *t, const VkImageCreateInfo *info, struct vkt_image *out);
void vkt_image_destroy(struct vkt *t, struct vkt_image *img);

/* The index of a memory type with all `flags` allowed by `type_bits`, or -1. */
int vkt_memory_type(struct vkt *t, uint32_t type_bits, VkMemoryPropertyFlags flags);

/* A primary command buffer, begun with `flags` (VkCommandBufferUsageFlags). */
VkCommandBuffer vkt_begin_flags(struct vkt *t, VkCommandBufferUsageFlags flags);
/* A one-time-submit primary command buffer, begun. */
VkCommandBuffer vkt_begin(struct vkt *t);
/* Ends, submits, waits for the queue to go idle, frees. Returns the first error. */
VkResult vkt_submit_wait(struct vkt *t, VkCommandBuffer cb);

/* Records a full-subresource layout transition with a pipeline barrier. */
void vkt_image_barrier(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect,
                       VkImageLayout from, VkImageLayout to);

#endif
