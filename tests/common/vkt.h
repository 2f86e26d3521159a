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

/* Whether the physical device (or, for the instance, the loader with its
 * drivers and layers) lists the extension. */
bool vkt_has_device_extension(VkPhysicalDevice pdev, const char *name);
bool vkt_has_instance_extension(const char *name);

/* Opens drv (Vulkan 1.1, no validation layer) only to read its features:
 * fills f2 and the pNext chain the caller gave it and, when ext is not NULL,
 * sets *has_ext to whether the device lists that extension; the instance is
 * gone on return. False, with nothing filled, when the driver is absent. */
bool vkt_query_features(enum vkt_driver drv, VkPhysicalDeviceFeatures2 *f2, const char *ext,
                        bool *has_ext);

/* ---- compute ---- */

/* The creators below print which call failed (with the driver's name) and
 * return its result; the test asserts on that result. */

/* A compute kernel: a module, one or two descriptor set layouts, a
 * pipeline layout (push constants of push_size bytes from offset 0) and
 * a pipeline. Destroying it destroys whatever of it was made. */
struct vkt_kernel {
   VkShaderModule module;
   VkDescriptorSetLayout set_layouts[2];
   uint32_t set_count;
   VkPipelineLayout layout;
   VkPipeline pipeline;
};

struct vkt_kernel_info {
   const uint32_t *code;                             /* SPIR-V */
   size_t code_size;                                 /* bytes */
   const VkDescriptorSetLayoutBinding *bindings[2];  /* set 0; set 1 or NULL */
   uint32_t binding_counts[2];
   uint32_t push_size;
   const VkSpecializationInfo *spec;
   VkPipelineCreateFlags flags;
   bool no_pipeline;                                 /* module and layouts only */
};

VkResult vkt_shader_module(struct vkt *t, const uint32_t *code, size_t size, VkShaderModule *out);
VkResult vkt_set_layout(struct vkt *t, const VkDescriptorSetLayoutBinding *b, uint32_t n,
                        VkDescriptorSetLayout *out);
VkResult vkt_kernel_create(struct vkt *t, const struct vkt_kernel_info *info, struct vkt_kernel *k);
void vkt_kernel_destroy(struct vkt *t, struct vkt_kernel *k);
/* A compute pipeline of `module` ("main") and `layout`; *out is
 * VK_NULL_HANDLE on failure. */
VkResult vkt_compute_pipeline(struct vkt *t, VkPipelineCache cache, VkShaderModule module,
                              VkPipelineLayout layout, const VkSpecializationInfo *spec,
                              VkPipelineCreateFlags flags, const void *pnext, VkPipeline *out);

/* A pipeline cache from `size` bytes of initial data (0: empty). */
VkResult vkt_pipeline_cache(struct vkt *t, const void *data, size_t size, VkPipelineCache *out);

VkResult vkt_descriptor_pool(struct vkt *t, uint32_t max_sets, const VkDescriptorPoolSize *sizes,
                             uint32_t n, VkDescriptorPoolCreateFlags flags, VkDescriptorPool *out);
/* Does not print: tests of pool exhaustion expect failures. */
VkResult vkt_alloc_sets(struct vkt *t, VkDescriptorPool pool, const VkDescriptorSetLayout *layouts,
                        uint32_t n, VkDescriptorSet *out);
/* Writes n buffer descriptors from (binding, element) on. */
void vkt_write_buffers(struct vkt *t, VkDescriptorSet set, uint32_t binding, uint32_t element,
                       VkDescriptorType type, const VkDescriptorBufferInfo *infos, uint32_t n);
/* Points bindings 0..n-1 at whole buffers, binding i as types[i] (types
 * NULL: all storage buffers). */
void vkt_bind_buffers(struct vkt *t, VkDescriptorSet set, const VkDescriptorType *types,
                      const VkBuffer *buffers, uint32_t n);

/* Shader and transfer writes before it are visible to shaders, indirect
 * arguments, transfers and the host after it. */
void vkt_compute_barrier(VkCommandBuffer cb);
/* Binds k and its sets (from set 0), pushes push_size bytes, dispatches,
 * adds vkt_compute_barrier, submits and waits. */
VkResult vkt_dispatch(struct vkt *t, const struct vkt_kernel *k, const VkDescriptorSet *sets,
                      uint32_t nsets, const void *push, uint32_t push_size, uint32_t x, uint32_t y,
                      uint32_t z);

/* A kernel over n whole buffers, binding i of set 0 being buffer i, in
 * steps so that the test checks each one as it sees fit:
 *   vkt_ssbo_kernel (zeroes *s, then makes the kernel), vkt_ssbo_buffers
 *   (host-visible buffers of the given sizes, storage or uniform by type),
 *   vkt_ssbo_set (a pool of one set, the set, every binding written),
 *   then the test fills s->bufs[i].map and calls vkt_ssbo_dispatch as often
 *   as it likes, and vkt_ssbo_end destroys whatever was made (also after a
 *   failed step; *s must have been through vkt_ssbo_kernel). */
#define VKT_SSBO_MAX 8
struct vkt_ssbo_info {
   const uint32_t *code;           /* SPIR-V */
   size_t code_size;               /* bytes */
   uint32_t n;                     /* bindings, at most VKT_SSBO_MAX */
   const VkDescriptorType *types;  /* storage or uniform buffers; NULL: all storage */
   uint32_t push_size;
   const VkSpecializationInfo *spec;
};
struct vkt_ssbo_run {
   struct vkt_kernel kernel;
   uint32_t n;
   VkDescriptorType types[VKT_SSBO_MAX];
   struct vkt_buffer bufs[VKT_SSBO_MAX];
   VkDescriptorPool pool;
   VkDescriptorSet set;
};
VkResult vkt_ssbo_kernel(struct vkt *t, const struct vkt_ssbo_info *info, struct vkt_ssbo_run *s);
/* Stops at the first failure and returns it. */
VkResult vkt_ssbo_buffers(struct vkt *t, struct vkt_ssbo_run *s, const VkDeviceSize *sizes);
VkResult vkt_ssbo_set(struct vkt *t, struct vkt_ssbo_run *s);
/* vkt_dispatch of s's kernel with its set. */
VkResult vkt_ssbo_dispatch(struct vkt *t, const struct vkt_ssbo_run *s, const void *push,
                           uint32_t push_size, uint32_t x, uint32_t y, uint32_t z);
void vkt_ssbo_end(struct vkt *t, struct vkt_ssbo_run *s);

#endif
