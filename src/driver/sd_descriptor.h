/*
 * sd_descriptor: descriptor set layouts, descriptor pools, descriptor sets,
 * their writes and copies, and descriptor update templates.
 *
 * Descriptor memory is what include/shale/shader_abi.h defines: a set is an
 * array of 64-byte records (union shale_descriptor), binding b element i at
 * record first_record(b) + i, bindings laid out in binding-number order. The
 * set layout gives the compiler the same numbers (struct sc_set_layout).
 * Records are resolved when written: buffers hold base = bound memory +
 * offset and the effective range (VK_WHOLE_SIZE resolved); texel buffers
 * their view's base, range, format and element count; image kinds the
 * storage-image fields of the view's base level (base, pitches, extent,
 * format, texel size, level count, samples; taken from the view's
 * description, so a view of one plane of a multi-planar image is that
 * plane, and a view of a whole multi-planar format has texel size 0) and
 * `view`, pointing at the
 * description the image view object owns (so a set must not be used after
 * its views are destroyed, as the spec already requires). Dynamic buffers
 * hold the offset-free base; binding a set makes a bind copy with the
 * dynamic offsets added (below).
 * Sampler and combined records point `sampler` at the description the
 * sampler object owns (so, as for views, a set must not be used after its
 * samplers are destroyed), immutable samplers at copies the set layout
 * owns; sampled-image and combined records hold the `sample_fn`
 * sr_sample_select() chooses for the view (and the sampler, where the
 * record has it when written; src/rasterizer/sr_sample.h). Inline uniform blocks
 * (Vulkan 1.3) are not supported: their bindings get no records.
 *
 * Pools: one block of records, sized by the sum of the pool's descriptor
 * counts. A set takes a contiguous range of it. Allocation checks maxSets
 * and every type's count first (VK_ERROR_OUT_OF_POOL_MEMORY), then looks for
 * a range: at the end of the used space, else the first hole big enough
 * (pools with FREE_DESCRIPTOR_SET_BIT get holes). When the counts fit but no
 * hole does, VK_ERROR_FRAGMENTED_POOL; the spec's guarantees hold because a
 * pool never freed since creation or reset has no hole, and equal-sized sets
 * always fit the hole a freed one left.
 *
 * Owns: layouts own their binding table, the compiler's view of it and the
 * immutable samplers' descriptions; pools own their record block and their
 * sets; sets own their bind copies. Layouts are reference counted: sets and
 * pipeline layouts hold a reference, so an application may destroy a layout
 * while they live.
 *
 * Invariants: a set's records lie inside its pool's block and never overlap
 * another live set's; `pool->sets` is sorted by first record. Freed, reset
 * and destroyed sets release their layout reference and bind copies.
 *
 * Threading: layouts are immutable (the reference count is atomic). Pools
 * and sets follow Vulkan's external synchronization. Bind copies are made
 * and read only by the queue thread during replay (the application may not
 * update or free a set that a pending command buffer uses).
 */
#ifndef SD_DESCRIPTOR_H
#define SD_DESCRIPTOR_H

#include <stdatomic.h>
#include <stdbool.h>

#include "compiler/sc_compiler.h"
#include "sd_object.h"
#include "shale/shader_abi.h"

/* The core descriptor types of Vulkan 1.0 (VK_DESCRIPTOR_TYPE_SAMPLER = 0 ..
 * VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT = 10). */
#define SD_DESCRIPTOR_TYPE_COUNT 11

/* maxPerSetDescriptors (VkPhysicalDeviceMaintenance3Properties): what
 * vkGetDescriptorSetLayoutSupport accepts (api/version11 creates a layout
 * and allocates a set of that many). */
#define SD_MAX_PER_SET_DESCRIPTORS 65536u

struct sd_descriptor_binding {
   VkDescriptorType type;
   uint32_t count;             /* descriptorCount; 0 for absent bindings */
   VkShaderStageFlags stages;
   uint32_t first_record;
   uint32_t first_dynamic;     /* dynamic buffers: index among the set's dynamic ones */
   uint32_t first_immutable;   /* index into immutable_samplers, or UINT32_MAX */
};

struct sd_descriptor_set_layout {
   struct sd_object base;
   atomic_uint refcount;
   VkAllocationCallbacks alloc;
   VkDescriptorSetLayoutCreateFlags flags;
   uint32_t binding_count;     /* highest binding number + 1 */
   uint32_t record_count;
   uint32_t dynamic_count;
   uint32_t type_counts[SD_DESCRIPTOR_TYPE_COUNT];
   struct sd_descriptor_binding *bindings;       /* [binding_count] */
   struct sc_binding_layout *sc_bindings;        /* [binding_count] */
   struct shale_sampler_desc *immutable_samplers;
   uint8_t sha256[32];         /* of what the compiler sees (sc_bindings) */
};

struct sd_descriptor_pool;

struct sd_descriptor_set {
   struct sd_object base;
   struct sd_descriptor_pool *pool;
   struct sd_descriptor_set_layout *layout;
   struct sd_descriptor_set *prev, *next;   /* the pool's list, by first_record */
   uint64_t first_record;                   /* in the pool's block */
   union shale_descriptor *records;         /* NULL when the layout has none */
   /* Records with the dynamic offsets of the latest bind at set number i
    * added (layouts with dynamic buffers only; allocated on first use). */
   union shale_descriptor *bind_copies[SHALE_MAX_DESCRIPTOR_SETS];
};

struct sd_descriptor_pool {
   struct sd_object base;
   VkAllocationCallbacks alloc;
   VkDescriptorPoolCreateFlags flags;
   uint32_t max_sets, set_count;
   uint32_t capacity[SD_DESCRIPTOR_TYPE_COUNT];
   uint32_t used[SD_DESCRIPTOR_TYPE_COUNT];
   uint64_t record_capacity;
   union shale_descriptor *memory;
   struct sd_descriptor_set *sets, *last;
};

struct sd_descriptor_update_template {
   struct sd_object base;
   VkDescriptorUpdateTemplateType type;
   uint32_t entry_count;
   VkDescriptorUpdateTemplateEntry entries[];
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_descriptor_set_layout, base, VkDescriptorSetLayout,
                               VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_descriptor_pool, base, VkDescriptorPool,
                               VK_OBJECT_TYPE_DESCRIPTOR_POOL)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_descriptor_set, base, VkDescriptorSet,
                               VK_OBJECT_TYPE_DESCRIPTOR_SET)
SD_DEFINE_NONDISP_HANDLE_CASTS(sd_descriptor_update_template, base, VkDescriptorUpdateTemplate,
                               VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE)

void sd_descriptor_set_layout_ref(struct sd_descriptor_set_layout *layout);
void sd_descriptor_set_layout_unref(struct sd_descriptor_set_layout *layout);

/* The compiler's view of a layout. */
static inline struct sc_set_layout
sd_descriptor_set_layout_sc(const struct sd_descriptor_set_layout *layout)
{
   return (struct sc_set_layout) { layout->binding_count, layout->sc_bindings };
}

/* Replay (queue thread): the records to hand a shader for `set` bound at
 * set number `index` with the layout's dynamic_count offsets `offsets` (in
 * binding order). Sets without dynamic buffers give their records; others a
 * bind copy. NULL when a bind copy could not be allocated. */
const union shale_descriptor *sd_descriptor_set_bind(struct sd_descriptor_set *set, uint32_t index,
                                                     const uint32_t *offsets);

#endif
