/* Device memory and buffers: allocation on every type, mapping, flush and
 * invalidate, commitment, dedicated allocations, the allocation count limit,
 * and buffer memory requirements and binding (memory written by the host is
 * what a copy on the queue reads, and the other way round). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

static void
test_types(struct vkt *t)
{
   for (uint32_t type = 0; type < t->mem_props.memoryTypeCount; type++) {
      VkMemoryPropertyFlags flags = t->mem_props.memoryTypes[type].propertyFlags;
      VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                  .allocationSize = 1 << 20, .memoryTypeIndex = type };
      VkDeviceMemory mem;
      CHECK_EQ_INT(vkAllocateMemory(t->device, &ai, NULL, &mem), VK_SUCCESS);
      VkDeviceSize committed = 0;
      if (flags & VK_MEMORY_PROPERTY_LAZILY_ALLOCATED_BIT) {
         vkGetDeviceMemoryCommitment(t->device, mem, &committed);
         CHECK(committed <= ai.allocationSize, "commitment");
      }
      if (!(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
         vkFreeMemory(t->device, mem, NULL);
         continue;
      }
      /* Map a range at an offset, write, flush; remap the whole and read. */
      VkDeviceSize atom = t->props.limits.nonCoherentAtomSize;
      uint8_t *p;
      CHECK_EQ_INT(vkMapMemory(t->device, mem, atom * 3, atom * 4, 0, (void **)&p), VK_SUCCESS);
      CHECK(((uintptr_t)p % t->props.limits.minMemoryMapAlignment) == (atom * 3) % t->props.limits.minMemoryMapAlignment,
            "map alignment");
      for (VkDeviceSize i = 0; i < atom * 4; i++)
         p[i] = (uint8_t)(i * 7 + type);
      VkMappedMemoryRange range = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = mem,
                                    .offset = atom * 3, .size = atom * 4 };
      CHECK_EQ_INT(vkFlushMappedMemoryRanges(t->device, 1, &range), VK_SUCCESS);
      vkUnmapMemory(t->device, mem);
      CHECK_EQ_INT(vkMapMemory(t->device, mem, 0, VK_WHOLE_SIZE, 0, (void **)&p), VK_SUCCESS);
      range.offset = 0;
      range.size = VK_WHOLE_SIZE;
      CHECK_EQ_INT(vkInvalidateMappedMemoryRanges(t->device, 1, &range), VK_SUCCESS);
      bool same = true, zero = true;
      for (VkDeviceSize i = 0; i < atom * 4; i++)
         same &= p[atom * 3 + i] == (uint8_t)(i * 7 + type);
      for (VkDeviceSize i = 0; i < atom * 3; i++)
         zero &= p[i] == 0;
      CHECK(same, "type %u: data written through the first mapping reads back", type);
      CHECK(zero, "type %u: untouched memory reads as zero", type);
      vkUnmapMemory(t->device, mem);
      vkFreeMemory(t->device, mem, NULL);
   }
}

/* Host writes -> queue copy -> host reads, through a non-coherent type with
 * explicit flush and invalidate. */
static void
test_noncoherent_roundtrip(struct vkt *t)
{
   int type = -1;
   for (uint32_t i = 0; i < t->mem_props.memoryTypeCount; i++) {
      VkMemoryPropertyFlags f = t->mem_props.memoryTypes[i].propertyFlags;
      if ((f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && !(f & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT))
         type = (int)i;
   }
   CHECK(type >= 0, "a non-coherent host-visible type exists");
   if (type < 0)
      return;
   const VkDeviceSize size = 65536;
   VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = size,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT };
   VkBuffer src, dst;
   CHECK_EQ_INT(vkCreateBuffer(t->device, &bci, NULL, &src), VK_SUCCESS);
   CHECK_EQ_INT(vkCreateBuffer(t->device, &bci, NULL, &dst), VK_SUCCESS);
   VkMemoryRequirements req;
   vkGetBufferMemoryRequirements(t->device, src, &req);
   CHECK(req.size >= size, "size");
   CHECK(req.alignment && !(req.alignment & (req.alignment - 1)), "alignment power of two");
   CHECK(req.memoryTypeBits & (1u << type), "buffer allowed in the non-coherent type");
   VkDeviceSize stride = (req.size + req.alignment - 1) & ~(req.alignment - 1);
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = stride * 2, .memoryTypeIndex = (uint32_t)type };
   VkDeviceMemory mem;
   CHECK_EQ_INT(vkAllocateMemory(t->device, &ai, NULL, &mem), VK_SUCCESS);
   CHECK_EQ_INT(vkBindBufferMemory(t->device, src, mem, 0), VK_SUCCESS);
   CHECK_EQ_INT(vkBindBufferMemory(t->device, dst, mem, stride), VK_SUCCESS);
   uint32_t *p;
   CHECK_EQ_INT(vkMapMemory(t->device, mem, 0, VK_WHOLE_SIZE, 0, (void **)&p), VK_SUCCESS);
   for (uint32_t i = 0; i < size / 4; i++)
      p[i] = i * 2654435761u;
   VkMappedMemoryRange range = { .sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, .memory = mem,
                                 .offset = 0, .size = VK_WHOLE_SIZE };
   vkFlushMappedMemoryRanges(t->device, 1, &range);
   VkCommandBuffer cb = vkt_begin(t);
   VkBufferCopy region = { 0, 0, size };
   vkCmdCopyBuffer(cb, src, dst, 1, &region);
   VkMemoryBarrier mb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                        0, NULL, 0, NULL);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   vkInvalidateMappedMemoryRanges(t->device, 1, &range);
   const uint32_t *q = (const uint32_t *)((const uint8_t *)p + stride);
   uint32_t bad = 0;
   for (uint32_t i = 0; i < size / 4; i++)
      bad += q[i] != i * 2654435761u;
   CHECK_EQ_INT(bad, 0);
   vkUnmapMemory(t->device, mem);
   vkDestroyBuffer(t->device, src, NULL);
   vkDestroyBuffer(t->device, dst, NULL);
   vkFreeMemory(t->device, mem, NULL);
}

static void
test_dedicated(struct vkt *t)
{
   VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = 4096,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT };
   VkBuffer buf;
   CHECK_EQ_INT(vkCreateBuffer(t->device, &bci, NULL, &buf), VK_SUCCESS);
   PFN_vkGetBufferMemoryRequirements2KHR get_req2 = (PFN_vkGetBufferMemoryRequirements2KHR)
      vkGetDeviceProcAddr(t->device, "vkGetBufferMemoryRequirements2KHR");
   PFN_vkBindBufferMemory2KHR bind2 = (PFN_vkBindBufferMemory2KHR)
      vkGetDeviceProcAddr(t->device, "vkBindBufferMemory2KHR");
   CHECK(get_req2 && bind2, "the *2 entry points of the enabled extensions");
   if (!get_req2 || !bind2) {
      vkDestroyBuffer(t->device, buf, NULL);
      return;
   }
   VkMemoryDedicatedRequirements ded = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS,
                                         .prefersDedicatedAllocation = 7,
                                         .requiresDedicatedAllocation = 7 };
   VkMemoryRequirements2 req = { .sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &ded };
   VkBufferMemoryRequirementsInfo2 info = { .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_REQUIREMENTS_INFO_2,
                                            .buffer = buf };
   get_req2(t->device, &info, &req);
   CHECK(req.memoryRequirements.size >= 4096, "size");
   CHECK(ded.prefersDedicatedAllocation == VK_FALSE && ded.requiresDedicatedAllocation == VK_FALSE,
         "dedicated requirements written");
   VkMemoryDedicatedAllocateInfo dai = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                         .buffer = buf };
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .pNext = &dai,
                               .allocationSize = req.memoryRequirements.size,
                               .memoryTypeIndex = (uint32_t)vkt_memory_type(
                                  t, req.memoryRequirements.memoryTypeBits,
                                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) };
   VkDeviceMemory mem;
   CHECK_EQ_INT(vkAllocateMemory(t->device, &ai, NULL, &mem), VK_SUCCESS);
   VkBindBufferMemoryInfo bi = { .sType = VK_STRUCTURE_TYPE_BIND_BUFFER_MEMORY_INFO, .buffer = buf,
                                 .memory = mem, .memoryOffset = 0 };
   CHECK_EQ_INT(bind2(t->device, 1, &bi), VK_SUCCESS);
   vkDestroyBuffer(t->device, buf, NULL);
   vkFreeMemory(t->device, mem, NULL);
}

/* maxMemoryAllocationCount is enforced: exactly that many live allocations,
 * then VK_ERROR_TOO_MANY_OBJECTS; freeing one makes room again. Run without
 * the validation layer (going over the limit is invalid usage it reports). */
static void
test_allocation_limit(void)
{
   struct vkt t;
   struct vkt_options o = { .no_validation = true };
   CHECK(vkt_init(&t, &o), "vkt_init");
   if (!t.device)
      return;
   uint32_t limit = t.props.limits.maxMemoryAllocationCount;
   CHECK(limit >= 4096, "limit %u meets the spec's minimum", limit);
   VkDeviceMemory *mems = calloc(limit, sizeof(*mems));
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = 64, .memoryTypeIndex = 0 };
   uint32_t ok = 0;
   for (uint32_t i = 0; i < limit; i++)
      ok += vkAllocateMemory(t.device, &ai, NULL, &mems[i]) == VK_SUCCESS;
   CHECK_EQ_INT(ok, limit);
   VkDeviceMemory extra = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, NULL, &extra), VK_ERROR_TOO_MANY_OBJECTS);
   vkFreeMemory(t.device, mems[0], NULL);
   CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, NULL, &mems[0]), VK_SUCCESS);
   for (uint32_t i = 0; i < limit; i++)
      vkFreeMemory(t.device, mems[i], NULL);
   free(mems);
   /* An allocation larger than the heap fails cleanly. */
   ai.allocationSize = t.mem_props.memoryHeaps[0].size + 4096;
   CHECK_EQ_INT(vkAllocateMemory(t.device, &ai, NULL, &extra), VK_ERROR_OUT_OF_DEVICE_MEMORY);
   vkt_finish(&t);
}

int
main(void)
{
   struct vkt t;
   const char *exts[] = { VK_KHR_BIND_MEMORY_2_EXTENSION_NAME,
                          VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME,
                          VK_KHR_DEDICATED_ALLOCATION_EXTENSION_NAME };
   struct vkt_options o = { .device_extensions = exts, .device_extension_count = 3 };
   CHECK(vkt_init(&t, &o), "vkt_init");
   if (t.device) {
      test_types(&t);
      test_noncoherent_roundtrip(&t);
      test_dedicated(&t);
      vkt_finish(&t);
   }
   test_allocation_limit();
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
