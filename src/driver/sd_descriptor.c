/* Descriptor set layouts, pools, sets, writes, copies and update templates. */
#include "sd_descriptor.h"

#include <string.h>

#include "sd_alloc.h"
#include "sd_buffer.h"
#include "sd_device.h"
#include "sd_image.h"
#include "sd_pipeline_cache.h"
#include "sd_sampler.h"
#include "sd_util.h"
#include "rasterizer/sr_sample.h"
#include "util/su_format.h"

static bool
sd_descriptor_type_known(VkDescriptorType type)
{
   return (uint32_t)type < SD_DESCRIPTOR_TYPE_COUNT;
}

static bool
sd_descriptor_type_dynamic(VkDescriptorType type)
{
   return type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC ||
          type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
}

/* ---- set layouts ---- */

/* Vulkan 1.1 (maintenance3): a layout is reported supported when its
 * descriptors (every binding's count) stay within maxPerSetDescriptors;
 * larger ones may still be created while host memory lasts. */
VKAPI_ATTR void VKAPI_CALL
sd_GetDescriptorSetLayoutSupport(VkDevice _device, const VkDescriptorSetLayoutCreateInfo *pCreateInfo,
                                 VkDescriptorSetLayoutSupport *pSupport)
{
   uint64_t total = 0;
   for (uint32_t i = 0; i < pCreateInfo->bindingCount; i++)
      total += pCreateInfo->pBindings[i].descriptorCount;
   pSupport->supported = total <= SD_MAX_PER_SET_DESCRIPTORS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateDescriptorSetLayout(VkDevice _device, const VkDescriptorSetLayoutCreateInfo *pCreateInfo,
                             const VkAllocationCallbacks *pAllocator,
                             VkDescriptorSetLayout *pSetLayout)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   uint32_t binding_count = 0, immutable_count = 0;
   for (uint32_t i = 0; i < pCreateInfo->bindingCount; i++) {
      const VkDescriptorSetLayoutBinding *b = &pCreateInfo->pBindings[i];
      if (b->binding + 1 > binding_count)
         binding_count = b->binding + 1;
      if ((b->descriptorType == VK_DESCRIPTOR_TYPE_SAMPLER ||
           b->descriptorType == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) &&
          b->pImmutableSamplers)
         immutable_count += b->descriptorCount;
   }

   /* One allocation: the layout, its binding tables, its immutable samplers. */
   size_t size = sizeof(struct sd_descriptor_set_layout);
   size_t bindings_off = size;
   size += binding_count * sizeof(struct sd_descriptor_binding);
   size_t sc_off = size;
   size += binding_count * sizeof(struct sc_binding_layout);
   size = (size + 15) & ~(size_t)15;
   size_t samplers_off = size;
   size += immutable_count * sizeof(struct shale_sampler_desc);
   struct sd_descriptor_set_layout *layout =
      sd_zalloc(alloc, size, SD_ALIGN_DEFAULT, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!layout)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&layout->base, VK_OBJECT_TYPE_DESCRIPTOR_SET_LAYOUT, device);
   atomic_init(&layout->refcount, 1);
   layout->alloc = *alloc;
   layout->flags = pCreateInfo->flags;
   layout->binding_count = binding_count;
   layout->bindings = (struct sd_descriptor_binding *)((char *)layout + bindings_off);
   layout->sc_bindings = (struct sc_binding_layout *)((char *)layout + sc_off);
   layout->immutable_samplers = (struct shale_sampler_desc *)((char *)layout + samplers_off);

   for (uint32_t i = 0; i < binding_count; i++)
      layout->bindings[i].first_immutable = UINT32_MAX;
   for (uint32_t i = 0; i < pCreateInfo->bindingCount; i++) {
      const VkDescriptorSetLayoutBinding *src = &pCreateInfo->pBindings[i];
      struct sd_descriptor_binding *b = &layout->bindings[src->binding];
      b->type = src->descriptorType;
      b->stages = src->stageFlags;
      /* Types this driver does not know (inline uniform blocks, extension
       * types) get no records. */
      b->count = sd_descriptor_type_known(src->descriptorType) ? src->descriptorCount : 0;
      if (b->count && src->pImmutableSamplers &&
          (b->type == VK_DESCRIPTOR_TYPE_SAMPLER ||
           b->type == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER))
         b->first_immutable = 0;   /* placed below, in binding order */
   }
   /* Records, dynamic indices and immutable samplers in binding order. */
   uint32_t record = 0, dynamic = 0, immutable = 0;
   for (uint32_t n = 0; n < binding_count; n++) {
      struct sd_descriptor_binding *b = &layout->bindings[n];
      b->first_record = record;
      layout->sc_bindings[n] = (struct sc_binding_layout) { record, b->count };
      record += b->count;
      if (!b->count)
         continue;
      layout->type_counts[b->type] += b->count;
      if (sd_descriptor_type_dynamic(b->type)) {
         b->first_dynamic = dynamic;
         dynamic += b->count;
      }
      if (b->first_immutable != UINT32_MAX) {
         b->first_immutable = immutable;
         immutable += b->count;
      }
   }
   layout->record_count = record;
   layout->dynamic_count = dynamic;
   for (uint32_t i = 0; i < pCreateInfo->bindingCount; i++) {
      const VkDescriptorSetLayoutBinding *src = &pCreateInfo->pBindings[i];
      const struct sd_descriptor_binding *b = &layout->bindings[src->binding];
      if (b->first_immutable == UINT32_MAX)
         continue;
      for (uint32_t j = 0; j < b->count; j++) {
         SD_FROM_HANDLE(sd_sampler, sampler, src->pImmutableSamplers[j]);
         layout->immutable_samplers[b->first_immutable + j] = sampler->desc;
      }
   }

   struct su_sha256 h;
   su_sha256_init(&h);
   su_sha256_update(&h, &layout->binding_count, sizeof(layout->binding_count));
   su_sha256_update(&h, layout->sc_bindings, binding_count * sizeof(struct sc_binding_layout));
   su_sha256_final(&h, layout->sha256);

   *pSetLayout = sd_descriptor_set_layout_to_handle(layout);
   return VK_SUCCESS;
}

void
sd_descriptor_set_layout_ref(struct sd_descriptor_set_layout *layout)
{
   atomic_fetch_add(&layout->refcount, 1);
}

void
sd_descriptor_set_layout_unref(struct sd_descriptor_set_layout *layout)
{
   if (atomic_fetch_sub(&layout->refcount, 1) == 1) {
      VkAllocationCallbacks alloc = layout->alloc;
      sd_free(&alloc, layout);
   }
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyDescriptorSetLayout(VkDevice _device, VkDescriptorSetLayout _layout,
                              const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_descriptor_set_layout, layout, _layout);
   if (layout)
      sd_descriptor_set_layout_unref(layout);
}

/* ---- pools ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateDescriptorPool(VkDevice _device, const VkDescriptorPoolCreateInfo *pCreateInfo,
                        const VkAllocationCallbacks *pAllocator, VkDescriptorPool *pDescriptorPool)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   const VkAllocationCallbacks *alloc = sd_choose_alloc(pAllocator, &device->alloc);
   uint32_t capacity[SD_DESCRIPTOR_TYPE_COUNT] = { 0 };
   uint64_t records = 0;
   for (uint32_t i = 0; i < pCreateInfo->poolSizeCount; i++) {
      const VkDescriptorPoolSize *s = &pCreateInfo->pPoolSizes[i];
      if (!sd_descriptor_type_known(s->type))
         continue;
      uint64_t c = (uint64_t)capacity[s->type] + s->descriptorCount;
      capacity[s->type] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
      records += s->descriptorCount;
   }
   if (records > SIZE_MAX / sizeof(union shale_descriptor))
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);

   struct sd_descriptor_pool *pool = sd_zalloc(alloc, sizeof(*pool), SD_ALIGN_DEFAULT,
                                               VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!pool)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   if (records) {
      pool->memory = sd_alloc(alloc, records * sizeof(union shale_descriptor), 64,
                              VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!pool->memory) {
         sd_free(alloc, pool);
         return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
      }
   }
   sd_object_init(&pool->base, VK_OBJECT_TYPE_DESCRIPTOR_POOL, device);
   pool->alloc = *alloc;
   pool->flags = pCreateInfo->flags;
   pool->max_sets = pCreateInfo->maxSets;
   pool->record_capacity = records;
   memcpy(pool->capacity, capacity, sizeof(capacity));
   *pDescriptorPool = sd_descriptor_pool_to_handle(pool);
   return VK_SUCCESS;
}

/* Unlinks a set, gives its descriptors back to the pool and frees it. */
static void
sd_descriptor_set_destroy(struct sd_descriptor_set *set)
{
   struct sd_descriptor_pool *pool = set->pool;
   if (set->prev)
      set->prev->next = set->next;
   else
      pool->sets = set->next;
   if (set->next)
      set->next->prev = set->prev;
   else
      pool->last = set->prev;
   for (uint32_t t = 0; t < SD_DESCRIPTOR_TYPE_COUNT; t++)
      pool->used[t] -= set->layout->type_counts[t];
   pool->set_count--;
   for (uint32_t i = 0; i < SHALE_MAX_DESCRIPTOR_SETS; i++)
      sd_free(&pool->alloc, set->bind_copies[i]);
   sd_descriptor_set_layout_unref(set->layout);
   sd_free(&pool->alloc, set);
}

static void
sd_descriptor_pool_reset(struct sd_descriptor_pool *pool)
{
   while (pool->sets)
      sd_descriptor_set_destroy(pool->sets);
   assert(pool->set_count == 0);
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyDescriptorPool(VkDevice _device, VkDescriptorPool _pool,
                         const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_descriptor_pool, pool, _pool);
   if (!pool)
      return;
   sd_descriptor_pool_reset(pool);
   VkAllocationCallbacks alloc = pool->alloc;
   sd_free(&alloc, pool->memory);
   sd_free(&alloc, pool);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_ResetDescriptorPool(VkDevice _device, VkDescriptorPool _pool, VkDescriptorPoolResetFlags flags)
{
   sd_descriptor_pool_reset(sd_descriptor_pool_from_handle(_pool));
   return VK_SUCCESS;
}

/* Finds `count` free records: after the last set, else the first hole.
 * Returns false when none is big enough. *after is the set to insert after
 * (NULL: at the head). */
static bool
sd_descriptor_pool_find_range(struct sd_descriptor_pool *pool, uint64_t count, uint64_t *first,
                              struct sd_descriptor_set **after)
{
   struct sd_descriptor_set *last = pool->last;
   uint64_t end = last ? last->first_record + last->layout->record_count : 0;
   if (count <= pool->record_capacity - end) {
      *first = end;
      *after = last;
      return true;
   }
   uint64_t prev_end = 0;
   struct sd_descriptor_set *prev = NULL;
   for (struct sd_descriptor_set *s = pool->sets; s; prev = s, s = s->next) {
      if (s->first_record >= prev_end && s->first_record - prev_end >= count) {
         *first = prev_end;
         *after = prev;
         return true;
      }
      uint64_t s_end = s->first_record + s->layout->record_count;
      if (s_end > prev_end)
         prev_end = s_end;
   }
   return false;
}

/* Allocates one set, or returns why not (nothing changed then). */
static VkResult
sd_descriptor_set_create(struct sd_device *device, struct sd_descriptor_pool *pool,
                         struct sd_descriptor_set_layout *layout, struct sd_descriptor_set **out)
{
   if (pool->set_count >= pool->max_sets)
      return sd_errorf(VK_ERROR_OUT_OF_POOL_MEMORY, "descriptor pool: maxSets reached");
   for (uint32_t t = 0; t < SD_DESCRIPTOR_TYPE_COUNT; t++) {
      if (layout->type_counts[t] > pool->capacity[t] - pool->used[t])
         return sd_errorf(VK_ERROR_OUT_OF_POOL_MEMORY, "descriptor pool: out of descriptors");
   }
   uint64_t first;
   struct sd_descriptor_set *after;
   if (!sd_descriptor_pool_find_range(pool, layout->record_count, &first, &after))
      return sd_errorf(VK_ERROR_FRAGMENTED_POOL, "descriptor pool: no contiguous range");
   struct sd_descriptor_set *set = sd_zalloc(&pool->alloc, sizeof(*set), SD_ALIGN_DEFAULT,
                                             VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
   if (!set)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   sd_object_init(&set->base, VK_OBJECT_TYPE_DESCRIPTOR_SET, device);
   set->pool = pool;
   set->layout = layout;
   sd_descriptor_set_layout_ref(layout);
   set->first_record = first;
   set->records = layout->record_count ? pool->memory + first : NULL;
   set->prev = after;
   set->next = after ? after->next : pool->sets;
   if (set->next)
      set->next->prev = set;
   else
      pool->last = set;
   if (after)
      after->next = set;
   else
      pool->sets = set;
   for (uint32_t t = 0; t < SD_DESCRIPTOR_TYPE_COUNT; t++)
      pool->used[t] += layout->type_counts[t];
   pool->set_count++;

   /* Unwritten descriptors read as zero (a null buffer of range 0); the
    * immutable samplers are in place from the start. */
   if (set->records)
      memset(set->records, 0, layout->record_count * sizeof(union shale_descriptor));
   for (uint32_t n = 0; n < layout->binding_count; n++) {
      const struct sd_descriptor_binding *b = &layout->bindings[n];
      if (b->first_immutable == UINT32_MAX)
         continue;
      for (uint32_t j = 0; j < b->count; j++)
         set->records[b->first_record + j].image.sampler =
            &layout->immutable_samplers[b->first_immutable + j];
   }
   *out = set;
   return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_AllocateDescriptorSets(VkDevice _device, const VkDescriptorSetAllocateInfo *pAllocateInfo,
                          VkDescriptorSet *pDescriptorSets)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_descriptor_pool, pool, pAllocateInfo->descriptorPool);
   uint32_t n = pAllocateInfo->descriptorSetCount;
   VkResult result = VK_SUCCESS;
   uint32_t i;
   for (i = 0; i < n; i++) {
      struct sd_descriptor_set *set = NULL;
      result = sd_descriptor_set_create(device, pool,
                                        sd_descriptor_set_layout_from_handle(
                                           pAllocateInfo->pSetLayouts[i]), &set);
      if (result != VK_SUCCESS)
         break;
      pDescriptorSets[i] = sd_descriptor_set_to_handle(set);
   }
   if (result == VK_SUCCESS)
      return VK_SUCCESS;
   /* All or nothing: free what this call made, every handle reads NULL. */
   for (uint32_t j = 0; j < i; j++)
      sd_descriptor_set_destroy(sd_descriptor_set_from_handle(pDescriptorSets[j]));
   for (uint32_t j = 0; j < n; j++)
      pDescriptorSets[j] = VK_NULL_HANDLE;
   return result;
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_FreeDescriptorSets(VkDevice _device, VkDescriptorPool _pool, uint32_t count,
                      const VkDescriptorSet *pDescriptorSets)
{
   for (uint32_t i = 0; i < count; i++) {
      SD_FROM_HANDLE(sd_descriptor_set, set, pDescriptorSets[i]);
      if (set)
         sd_descriptor_set_destroy(set);
   }
   return VK_SUCCESS;
}

/* ---- writes ---- */

static void
sd_write_buffer(union shale_descriptor *rec, const VkDescriptorBufferInfo *info)
{
   SD_FROM_HANDLE(sd_buffer, buffer, info->buffer);
   if (!buffer) {   /* nullDescriptor style: reads zero */
      memset(rec, 0, sizeof(*rec));
      return;
   }
   VkDeviceSize range = info->range == VK_WHOLE_SIZE ? buffer->size - info->offset : info->range;
   memset(rec, 0, sizeof(*rec));
   rec->buffer.base = buffer->data + info->offset;
   rec->buffer.range = range;
}

static void
sd_write_texel_buffer(union shale_descriptor *rec, VkBufferView _view)
{
   SD_FROM_HANDLE(sd_buffer_view, view, _view);
   memset(rec, 0, sizeof(*rec));
   if (!view)
      return;
   const struct su_format_desc *desc = su_format_desc(view->format);
   uint32_t element_size = desc ? desc->block_size : 1;
   rec->texel_buffer.base = view->buffer->data + view->offset;
   rec->texel_buffer.range = view->range;
   rec->texel_buffer.format = view->format;
   rec->texel_buffer.element_size = element_size;
   uint64_t elements = view->range / element_size;
   rec->texel_buffer.element_count = elements > UINT32_MAX ? UINT32_MAX : (uint32_t)elements;
}

/* Image kinds: the storage-image copy of the view's base level. `sampler`
 * (already in the record for immutable samplers) is kept. Sampled kinds
 * get the sampling routine. */
static void
sd_write_image(union shale_descriptor *rec, VkImageView _view, bool sampled)
{
   SD_FROM_HANDLE(sd_image_view, view, _view);
   const struct shale_sampler_desc *sampler = rec->image.sampler;
   memset(rec, 0, sizeof(*rec));
   rec->image.sampler = sampler;
   if (!view)
      return;
   /* The view's description already resolves levels, layers, 2D views of
    * 3D images and planes: its base level is the storage view. */
   const struct shale_image_view_desc *d = &view->abi;
   bool is_3d = d->view_type == VK_IMAGE_VIEW_TYPE_3D;
   rec->image.base = d->base;
   rec->image.row_pitch = (uint32_t)d->row_pitch[0];
   rec->image.slice_pitch = (uint32_t)d->slice_pitch[0];
   rec->image.width = d->width;
   rec->image.height = d->height;
   rec->image.depth_or_layers = is_3d ? d->depth : d->layer_count;
   rec->image.format = view->format;
   rec->image.texel_size = d->texel_size;
   rec->image.level_count = (uint16_t)d->level_count;
   rec->image.samples = (uint16_t)d->samples;
   rec->image.view = &view->abi;
   /* The sampler is known here for combined records (written just
    * before, or immutable); sampled images get the view's routine, which
    * checks the sampler of each call. */
   if (sampled)
      rec->image.sample_fn = sr_sample_select(&view->abi, sampler);
}

/* A written (not immutable) sampler: the sampler object's description. */
static void
sd_write_sampler(union shale_descriptor *rec, const struct sd_descriptor_binding *b,
                 const VkDescriptorImageInfo *info)
{
   if (b->first_immutable != UINT32_MAX)
      return;
   SD_FROM_HANDLE(sd_sampler, sampler, info->sampler);
   rec->image.sampler = sampler ? &sampler->desc : NULL;
}

/* Writes element `element` of binding `b`; `i` picks the array entry of the
 * write's info arrays. */
static void
sd_write_one(struct sd_descriptor_set *set, const struct sd_descriptor_binding *b,
             uint32_t element, const VkDescriptorImageInfo *image,
             const VkDescriptorBufferInfo *buffer, const VkBufferView *texel)
{
   union shale_descriptor *rec = &set->records[b->first_record + element];
   switch (b->type) {
   case VK_DESCRIPTOR_TYPE_SAMPLER:
      /* Immutable samplers stay (the spec ignores pImageInfo's then). */
      sd_write_sampler(rec, b, image);
      break;
   case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
      sd_write_sampler(rec, b, image);
      sd_write_image(rec, image->imageView, true);
      break;
   case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
      sd_write_image(rec, image->imageView, true);
      break;
   case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
   case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
      sd_write_image(rec, image->imageView, false);
      break;
   case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
   case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
      sd_write_texel_buffer(rec, *texel);
      break;
   case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
   case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
   case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
   case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
      sd_write_buffer(rec, buffer);
      break;
   default:
      break;
   }
}

/* A cursor over (binding, element) that rolls over into the next bindings
 * the way consecutive-binding updates do. Returns NULL past the layout. */
static const struct sd_descriptor_binding *
sd_cursor_resolve(const struct sd_descriptor_set_layout *layout, uint32_t *binding,
                  uint32_t *element)
{
   while (*binding < layout->binding_count) {
      const struct sd_descriptor_binding *b = &layout->bindings[*binding];
      if (*element < b->count)
         return b;
      *element -= b->count;
      (*binding)++;
   }
   return NULL;
}

static void
sd_update_write(const VkWriteDescriptorSet *w)
{
   SD_FROM_HANDLE(sd_descriptor_set, set, w->dstSet);
   uint32_t binding = w->dstBinding, element = w->dstArrayElement;
   for (uint32_t i = 0; i < w->descriptorCount; i++, element++) {
      const struct sd_descriptor_binding *b = sd_cursor_resolve(set->layout, &binding, &element);
      if (!b)
         return;
      sd_write_one(set, b, element, w->pImageInfo ? &w->pImageInfo[i] : NULL,
                   w->pBufferInfo ? &w->pBufferInfo[i] : NULL,
                   w->pTexelBufferView ? &w->pTexelBufferView[i] : NULL);
   }
}

static void
sd_update_copy(const VkCopyDescriptorSet *c)
{
   SD_FROM_HANDLE(sd_descriptor_set, src, c->srcSet);
   SD_FROM_HANDLE(sd_descriptor_set, dst, c->dstSet);
   uint32_t sb = c->srcBinding, se = c->srcArrayElement;
   uint32_t db = c->dstBinding, de = c->dstArrayElement;
   for (uint32_t i = 0; i < c->descriptorCount; i++, se++, de++) {
      const struct sd_descriptor_binding *s = sd_cursor_resolve(src->layout, &sb, &se);
      const struct sd_descriptor_binding *d = sd_cursor_resolve(dst->layout, &db, &de);
      if (!s || !d)
         return;
      union shale_descriptor *to = &dst->records[d->first_record + de];
      const struct shale_sampler_desc *immutable = to->image.sampler;
      memmove(to, &src->records[s->first_record + se], sizeof(*to));
      /* An immutable sampler of the destination stays its own. */
      if (d->first_immutable != UINT32_MAX)
         to->image.sampler = immutable;
   }
}

VKAPI_ATTR void VKAPI_CALL
sd_UpdateDescriptorSets(VkDevice _device, uint32_t writeCount, const VkWriteDescriptorSet *pWrites,
                        uint32_t copyCount, const VkCopyDescriptorSet *pCopies)
{
   for (uint32_t i = 0; i < writeCount; i++)
      sd_update_write(&pWrites[i]);
   for (uint32_t i = 0; i < copyCount; i++)
      sd_update_copy(&pCopies[i]);
}

/* ---- update templates ---- */

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateDescriptorUpdateTemplate(VkDevice _device,
                                  const VkDescriptorUpdateTemplateCreateInfo *pCreateInfo,
                                  const VkAllocationCallbacks *pAllocator,
                                  VkDescriptorUpdateTemplate *pTemplate)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   uint32_t n = pCreateInfo->descriptorUpdateEntryCount;
   struct sd_descriptor_update_template *t =
      sd_device_object_alloc(device, pAllocator, sizeof(*t) + n * sizeof(t->entries[0]),
                             VK_OBJECT_TYPE_DESCRIPTOR_UPDATE_TEMPLATE);
   if (!t)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   t->type = pCreateInfo->templateType;
   t->entry_count = n;
   if (n)
      memcpy(t->entries, pCreateInfo->pDescriptorUpdateEntries, n * sizeof(t->entries[0]));
   *pTemplate = sd_descriptor_update_template_to_handle(t);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyDescriptorUpdateTemplate(VkDevice _device, VkDescriptorUpdateTemplate _template,
                                   const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_descriptor_update_template, t, _template);
   if (t)
      sd_device_object_free(device, pAllocator, t);
}

VKAPI_ATTR void VKAPI_CALL
sd_UpdateDescriptorSetWithTemplate(VkDevice _device, VkDescriptorSet descriptorSet,
                                   VkDescriptorUpdateTemplate _template, const void *pData)
{
   SD_FROM_HANDLE(sd_descriptor_set, set, descriptorSet);
   SD_FROM_HANDLE(sd_descriptor_update_template, t, _template);
   if (t->type != VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET)
      return;   /* push-descriptor templates: VK_KHR_push_descriptor is not supported */
   for (uint32_t k = 0; k < t->entry_count; k++) {
      const VkDescriptorUpdateTemplateEntry *e = &t->entries[k];
      uint32_t binding = e->dstBinding, element = e->dstArrayElement;
      for (uint32_t i = 0; i < e->descriptorCount; i++, element++) {
         const struct sd_descriptor_binding *b =
            sd_cursor_resolve(set->layout, &binding, &element);
         if (!b)
            break;
         const void *p = (const char *)pData + e->offset + (size_t)i * e->stride;
         sd_write_one(set, b, element, p, p, p);
      }
   }
}

/* ---- binding (replay) ---- */

const union shale_descriptor *
sd_descriptor_set_bind(struct sd_descriptor_set *set, uint32_t index, const uint32_t *offsets)
{
   const struct sd_descriptor_set_layout *layout = set->layout;
   if (!layout->dynamic_count)
      return set->records;
   union shale_descriptor *copy = set->bind_copies[index];
   if (!copy) {
      copy = sd_alloc(&set->pool->alloc, layout->record_count * sizeof(*copy), 64,
                      VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
      if (!copy)
         return NULL;
      set->bind_copies[index] = copy;
   }
   memcpy(copy, set->records, layout->record_count * sizeof(*copy));
   for (uint32_t n = 0; n < layout->binding_count; n++) {
      const struct sd_descriptor_binding *b = &layout->bindings[n];
      if (!b->count || !sd_descriptor_type_dynamic(b->type))
         continue;
      for (uint32_t j = 0; j < b->count; j++) {
         union shale_descriptor *rec = &copy[b->first_record + j];
         if (rec->buffer.base)
            rec->buffer.base += offsets[b->first_dynamic + j];
      }
   }
   return copy;
}
