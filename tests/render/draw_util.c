/* The render tests' drawing harness (draw_util.h). */
#include "draw_util.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ref_format.h"

/* Bytes per texel of the colour format, or of the depth aspect as copies
 * to buffers lay it out. */
static uint32_t
texel_size(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_D16_UNORM:
   case VK_FORMAT_D16_UNORM_S8_UINT:
      return 2;
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D24_UNORM_S8_UINT:
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return 4;
   case VK_FORMAT_S8_UINT:
      return 0;   /* no depth aspect */
   default:
      return ref_color_texel_size(f);
   }
}

static bool
is_depth_stencil(VkFormat f)
{
   return f == VK_FORMAT_D16_UNORM || f == VK_FORMAT_D32_SFLOAT ||
          f == VK_FORMAT_X8_D24_UNORM_PACK32 || f == VK_FORMAT_D24_UNORM_S8_UINT ||
          f == VK_FORMAT_D32_SFLOAT_S8_UINT || f == VK_FORMAT_D16_UNORM_S8_UINT;
}

VkResult
draw_single_set(struct vkt *t, VkDescriptorType type, VkShaderStageFlags stages,
                VkDescriptorSetLayout *layout, VkDescriptorPool *pool, VkDescriptorSet *set)
{
   *layout = VK_NULL_HANDLE;
   *pool = VK_NULL_HANDLE;
   *set = VK_NULL_HANDLE;
   const VkDescriptorSetLayoutBinding b = { 0, type, 1, stages, NULL };
   const VkDescriptorPoolSize size = { type, 1 };
   VkResult r = vkt_set_layout(t, &b, 1, layout);
   if (r == VK_SUCCESS)
      r = vkt_descriptor_pool(t, 1, &size, 1, 0, pool);
   if (r == VK_SUCCESS)
      r = vkt_alloc_sets(t, *pool, layout, 1, set);
   return r;
}

bool
draw_probe(enum vkt_driver d, struct vkt *probe)
{
   if (vkt_init(probe, &(struct vkt_options) { .driver = d }))
      return true;
   if (d == VKT_LAVAPIPE)
      printf("lavapipe not available: reference check skipped\n");
   return false;
}

bool
draw_probe_extension(enum vkt_driver d, struct vkt_options *o, const char *ext,
                     void *feature_chain, void *property_chain, VkPhysicalDeviceFeatures *core,
                     bool *has)
{
   static const char *const iexts[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   *o = (struct vkt_options) { .driver = d, .instance_extensions = iexts,
                               .instance_extension_count = 1 };
   if (core)
      memset(core, 0, sizeof(*core));
   struct vkt t;
   if (!vkt_init(&t, o))
      return false;
   *has = vkt_has_device_extension(t.pdev, ext);
   PFN_vkGetPhysicalDeviceFeatures2KHR f2 = (PFN_vkGetPhysicalDeviceFeatures2KHR)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceFeatures2KHR");
   PFN_vkGetPhysicalDeviceProperties2KHR p2 = (PFN_vkGetPhysicalDeviceProperties2KHR)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceProperties2KHR");
   if (*has && f2 && (p2 || !property_chain)) {
      VkPhysicalDeviceFeatures2 ff = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = feature_chain };
      f2(t.pdev, &ff);
      if (core)
         *core = ff.features;
      if (property_chain) {
         VkPhysicalDeviceProperties2 pp = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            .pNext = property_chain };
         p2(t.pdev, &pp);
      }
   }
   vkt_finish(&t);
   return true;
}

uint32_t
draw_pack_rgba8(const float c[4])
{
   uint32_t p = 0;
   for (int i = 0; i < 4; i++)
      p |= (uint32_t)lrintf(c[i] * 255.0f) << (8 * i);
   return p;
}

uint32_t
draw_rand_u32(uint64_t *state)
{
   uint64_t x = *state;
   x ^= x << 13;
   x ^= x >> 7;
   x ^= x << 17;
   *state = x;
   return (uint32_t)(x >> 16);
}

bool
draw_has_stencil(VkFormat f)
{
   return f == VK_FORMAT_D24_UNORM_S8_UINT || f == VK_FORMAT_D32_SFLOAT_S8_UINT ||
          f == VK_FORMAT_D16_UNORM_S8_UINT || f == VK_FORMAT_S8_UINT;
}

void
draw_vertex_info(struct draw_pipeline_info *pi, const uint32_t *vs, size_t vs_size,
                 const uint32_t *fs, size_t fs_size)
{
   *pi = (struct draw_pipeline_info) {
      .vs = vs, .vs_size = vs_size, .fs = fs, .fs_size = fs_size,
      .stride = sizeof(struct draw_vertex), .attrib_count = 2,
      .attrib_format = { VK_FORMAT_R32G32B32A32_SFLOAT, VK_FORMAT_R32G32B32A32_SFLOAT },
      .attrib_offset = { offsetof(struct draw_vertex, pos), offsetof(struct draw_vertex, color) },
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
   };
}

VkResult
draw_upload(struct vkt *t, const void *data, size_t size, VkBufferUsageFlags usage,
            struct vkt_buffer *out)
{
   VkResult r = vkt_buffer_create(t, size ? size : 4, usage, out);
   if (r == VK_SUCCESS && size)
      memcpy(out->map, data, size);
   return r;
}

VkResult
draw_image_create(struct vkt *t, VkFormat format, uint32_t w, uint32_t h,
                  VkSampleCountFlagBits samples, VkImageUsageFlags usage,
                  VkImageAspectFlags aspect, struct vkt_image *img, VkImageView *view)
{
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = { w, h, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = samples,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   VkResult r = vkt_image_create(t, &ici, img);
   if (r != VK_SUCCESS || !view)
      return r;
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = img->image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = format,
      .subresourceRange = { aspect, 0, 1, 0, 1 },
   };
   return vkCreateImageView(t->device, &vci, NULL, view);
}

/* A one-sample attachment that can be copied from. */
static VkResult
make_image(struct vkt *t, VkFormat format, uint32_t w, uint32_t h, VkImageUsageFlags usage,
           VkImageAspectFlags aspect, struct vkt_image *img, VkImageView *view)
{
   return draw_image_create(t, format, w, h, VK_SAMPLE_COUNT_1_BIT,
                            usage | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, aspect, img, view);
}

const VkSubpassDependency draw_dep_color_to_transfer = {
   .srcSubpass = 0,
   .dstSubpass = VK_SUBPASS_EXTERNAL,
   .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
   .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
   .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
   .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
};

VkResult
draw_color_pass_in(struct vkt *t, VkFormat format, VkImageLayout layout,
                   const VkSubpassDependency *deps, uint32_t n, VkRenderPass *out)
{
   const VkAttachmentDescription att = {
      .format = format,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
   };
   const VkAttachmentReference ref = { 0, layout };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &ref,
   };
   const VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 1,
      .pAttachments = &att,
      .subpassCount = 1,
      .pSubpasses = &sub,
      .dependencyCount = n,
      .pDependencies = deps,
   };
   return vkCreateRenderPass(t->device, &rpci, NULL, out);
}

VkResult
draw_color_pass(struct vkt *t, VkFormat format, const VkSubpassDependency *deps, uint32_t n,
                VkRenderPass *out)
{
   return draw_color_pass_in(t, format, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, deps, n, out);
}

VkResult
draw_nearest_sampler(struct vkt *t, VkSampler *out)
{
   const VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_NEAREST,
      .minFilter = VK_FILTER_NEAREST,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
   };
   return vkCreateSampler(t->device, &sci, NULL, out);
}

VkResult
draw_framebuffer(struct vkt *t, VkRenderPass rp, const VkImageView *views, uint32_t n,
                 uint32_t w, uint32_t h, uint32_t layers, VkFramebuffer *out)
{
   const VkFramebufferCreateInfo fci = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = rp,
      .attachmentCount = n,
      .pAttachments = views,
      .width = w,
      .height = h,
      .layers = layers,
   };
   return vkCreateFramebuffer(t->device, &fci, NULL, out);
}

VkResult
draw_layered_color_target(struct vkt *t, VkFormat format, uint32_t w, uint32_t h, uint32_t layers,
                          struct vkt_image *img, VkImageView *view, VkRenderPass *rp,
                          VkFramebuffer *fb)
{
   const VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = { w, h, 1 },
      .mipLevels = 1,
      .arrayLayers = layers,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   VkResult r = vkt_image_create(t, &ici, img);
   if (r == VK_SUCCESS) {
      const VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
         .image = img->image,
         .viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY,
         .format = format,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, layers },
      };
      r = vkCreateImageView(t->device, &vci, NULL, view);
   }
   if (r == VK_SUCCESS)
      r = draw_color_pass(t, format, &draw_dep_color_to_transfer, 1, rp);
   if (r == VK_SUCCESS)
      r = draw_framebuffer(t, *rp, view, 1, w, h, layers, fb);
   return r;
}

void
draw_color_target_destroy(struct vkt *t, struct vkt_image *img, VkImageView view, VkRenderPass rp,
                          VkFramebuffer fb)
{
   vkDestroyFramebuffer(t->device, fb, NULL);
   vkDestroyRenderPass(t->device, rp, NULL);
   vkDestroyImageView(t->device, view, NULL);
   if (img->image)
      vkt_image_destroy(t, img);
}

void
draw_copy_to_buffer(VkCommandBuffer cb, VkImage image, VkImageAspectFlags aspect, uint32_t w,
                    uint32_t h, VkBuffer buf, VkDeviceSize offset)
{
   VkBufferImageCopy region = {
      .bufferOffset = offset,
      .imageSubresource = { aspect, 0, 0, 1 },
      .imageExtent = { w, h, 1 },
   };
   vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf, 1, &region);
}

void
draw_host_barrier(VkCommandBuffer cb)
{
   VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                        0, NULL, 0, NULL);
}

void
draw_begin_pass_cleared(VkCommandBuffer cb, VkRenderPass rp, VkFramebuffer fb, uint32_t w,
                        uint32_t h)
{
   const VkClearValue clear = { .color = { { 0, 0, 0, 0 } } };
   const VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = rp,
      .framebuffer = fb,
      .renderArea = { { 0, 0 }, { w, h } },
      .clearValueCount = 1,
      .pClearValues = &clear,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
}

VkResult
draw_pipeline_layout(struct vkt *t, VkDescriptorSetLayout set, VkShaderStageFlags stages,
                     uint32_t push_size, VkPipelineLayout *out)
{
   VkPushConstantRange push = { stages, 0, push_size };
   VkPipelineLayoutCreateInfo plci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = set ? 1 : 0,
      .pSetLayouts = &set,
      .pushConstantRangeCount = push_size ? 1 : 0,
      .pPushConstantRanges = &push,
   };
   return vkCreatePipelineLayout(t->device, &plci, NULL, out);
}

VkResult
draw_target_create(struct vkt *t, struct draw_target *dt)
{
   VkResult r;
   VkAttachmentDescription att[2];
   VkAttachmentReference color_ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference depth_ref = { 0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkImageView views[2];
   uint32_t n = 0;
   dt->color_texel = texel_size(dt->color_format);
   dt->depth_texel = texel_size(dt->depth_format);
   if (dt->color_format) {
      r = make_image(t, dt->color_format, dt->width, dt->height,
                     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT, &dt->color,
                     &dt->color_view);
      if (r != VK_SUCCESS)
         return r;
      color_ref.attachment = n;
      views[n] = dt->color_view;
      att[n++] = (VkAttachmentDescription) {
         .format = dt->color_format,
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      };
   }
   if (dt->depth_format) {
      VkImageAspectFlags aspect =
         (is_depth_stencil(dt->depth_format) ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) |
         (draw_has_stencil(dt->depth_format) ? VK_IMAGE_ASPECT_STENCIL_BIT : 0);
      r = make_image(t, dt->depth_format, dt->width, dt->height,
                     VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, aspect, &dt->depth,
                     &dt->depth_view);
      if (r != VK_SUCCESS)
         return r;
      depth_ref.attachment = n;
      views[n] = dt->depth_view;
      att[n++] = (VkAttachmentDescription) {
         .format = dt->depth_format,
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_STORE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      };
   }
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = dt->color_format ? 1 : 0,
      .pColorAttachments = dt->color_format ? &color_ref : NULL,
      .pDepthStencilAttachment = dt->depth_format ? &depth_ref : NULL,
   };
   /* The copies after the pass read what the pass wrote. */
   VkSubpassDependency dep = {
      .srcSubpass = 0,
      .dstSubpass = VK_SUBPASS_EXTERNAL,
      .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                      VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
      .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
      .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = n,
      .pAttachments = att,
      .subpassCount = 1,
      .pSubpasses = &sub,
      .dependencyCount = 1,
      .pDependencies = &dep,
   };
   r = vkCreateRenderPass(t->device, &rpci, NULL, &dt->render_pass);
   if (r != VK_SUCCESS)
      return r;
   r = draw_framebuffer(t, dt->render_pass, views, n, dt->width, dt->height, 1, &dt->framebuffer);
   if (r != VK_SUCCESS)
      return r;
   VkDeviceSize pixels = (VkDeviceSize)dt->width * dt->height;
   return vkt_buffer_create(t, pixels * (dt->color_texel + dt->depth_texel + 1) + 16,
                            VK_BUFFER_USAGE_TRANSFER_DST_BIT, &dt->readback);
}

void
draw_target_destroy(struct vkt *t, struct draw_target *dt)
{
   vkDestroyFramebuffer(t->device, dt->framebuffer, NULL);
   vkDestroyRenderPass(t->device, dt->render_pass, NULL);
   vkDestroyImageView(t->device, dt->color_view, NULL);
   vkDestroyImageView(t->device, dt->depth_view, NULL);
   vkt_image_destroy(t, &dt->color);
   vkt_image_destroy(t, &dt->depth);
   vkt_buffer_destroy(t, &dt->readback);
}

void
draw_pipeline_state_init(struct draw_pipeline_state *st, const struct draw_target *dt,
                         const struct draw_pipeline_info *info, VkShaderModule vs,
                         VkShaderModule fs, VkPipelineLayout layout)
{
   memset(st, 0, sizeof(*st));
   st->stages[0] = (VkPipelineShaderStageCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
      .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs, .pName = "main",
   };
   st->stages[1] = (VkPipelineShaderStageCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
      .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fs, .pName = "main",
   };
   st->binding = (VkVertexInputBindingDescription) {
      0, info->stride, VK_VERTEX_INPUT_RATE_VERTEX,
   };
   for (uint32_t i = 0; i < info->attrib_count; i++)
      st->attribs[i] = (VkVertexInputAttributeDescription) {
         i, 0, info->attrib_format[i], info->attrib_offset[i],
      };
   st->vi = (VkPipelineVertexInputStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
      .vertexBindingDescriptionCount = info->attrib_count ? 1 : 0,
      .pVertexBindingDescriptions = &st->binding,
      .vertexAttributeDescriptionCount = info->attrib_count,
      .pVertexAttributeDescriptions = st->attribs,
   };
   st->ia = (VkPipelineInputAssemblyStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
      .topology = info->topology,
      .primitiveRestartEnable = info->primitive_restart,
   };
   uint32_t w = dt ? dt->width : 0, h = dt ? dt->height : 0;
   assert(dt || info->dynamic_viewport_scissor || (info->viewport && info->scissor));
   st->viewport = info->viewport ? *info->viewport
                                 : (VkViewport) { 0, 0, (float)w, (float)h, 0, 1 };
   st->scissor = info->scissor ? *info->scissor : (VkRect2D) { { 0, 0 }, { w, h } };
   st->vp = (VkPipelineViewportStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
      .viewportCount = 1,
      .pViewports = &st->viewport,
      .scissorCount = 1,
      .pScissors = &st->scissor,
   };
   st->rs = (VkPipelineRasterizationStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .polygonMode = info->polygon_mode,
      .cullMode = info->cull_mode,
      .frontFace = info->front_face,
      .lineWidth = 1.0f,
   };
   st->ms = (VkPipelineMultisampleStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
   };
   uint32_t colors = dt ? (dt->color_format ? 1 : 0) : info->color_count;
   assert(colors <= DRAW_MAX_COLORS);
   for (uint32_t i = 0; i < colors; i++)
      st->blend[i] = info->blend ? *info->blend
                                 : (VkPipelineColorBlendAttachmentState) { .colorWriteMask = 0xf };
   st->cb = (VkPipelineColorBlendStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = colors,
      .pAttachments = st->blend,
   };
   st->no_ds = (VkPipelineDepthStencilStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
   };
   const VkPipelineDepthStencilStateCreateInfo *depth_stencil = info->depth_stencil;
   if (dt)
      depth_stencil = dt->depth_format ? (depth_stencil ? depth_stencil : &st->no_ds) : NULL;
   uint32_t dyn_count = 0;
   if (info->dynamic_viewport_scissor) {
      st->dyn[dyn_count++] = VK_DYNAMIC_STATE_VIEWPORT;
      st->dyn[dyn_count++] = VK_DYNAMIC_STATE_SCISSOR;
   }
   for (uint32_t i = 0; i < info->dynamic_state_count && dyn_count < DRAW_MAX_DYNAMIC; i++)
      st->dyn[dyn_count++] = info->dynamic_states[i];
   st->ds = (VkPipelineDynamicStateCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
      .dynamicStateCount = dyn_count,
      .pDynamicStates = st->dyn,
   };
   st->info = (VkGraphicsPipelineCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
      .stageCount = fs ? 2 : 1,
      .pStages = st->stages,
      .pVertexInputState = info->vertex_input ? info->vertex_input : &st->vi,
      .pInputAssemblyState = &st->ia,
      .pViewportState = &st->vp,
      .pRasterizationState = info->rasterization ? info->rasterization : &st->rs,
      .pMultisampleState = info->multisample ? info->multisample : &st->ms,
      .pDepthStencilState = depth_stencil,
      .pColorBlendState = info->color_blend ? info->color_blend : &st->cb,
      .pDynamicState = dyn_count ? &st->ds : NULL,
      .layout = layout,
      .renderPass = dt ? dt->render_pass : info->render_pass,
      .subpass = info->subpass,
   };
}

VkResult
draw_pipeline_create_geometry(struct vkt *t, struct draw_pipeline_state *st, VkShaderModule gs,
                              VkPipeline *out)
{
   VkPipelineShaderStageCreateInfo stages[3];
   uint32_t n = st->info.stageCount;
   memcpy(stages, st->info.pStages, n * sizeof(stages[0]));
   if (gs)
      stages[n++] = (VkPipelineShaderStageCreateInfo){
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_GEOMETRY_BIT,
         .module = gs,
         .pName = "main",
      };
   VkGraphicsPipelineCreateInfo info = st->info;
   info.stageCount = n;
   info.pStages = stages;
   return vkCreateGraphicsPipelines(t->device, VK_NULL_HANDLE, 1, &info, NULL, out);
}

VkResult
draw_pipeline_create(struct vkt *t, const struct draw_target *dt,
                     const struct draw_pipeline_info *info, struct draw_pipeline *p)
{
   memset(p, 0, sizeof(*p));
   p->dynamic_viewport_scissor = info->dynamic_viewport_scissor;
   VkShaderModule vs = info->vs_module, fs = info->fs_module;
   VkResult r = VK_SUCCESS;
   if (!vs && (r = vkt_shader_module(t, info->vs, info->vs_size, &p->vs)) == VK_SUCCESS)
      vs = p->vs;
   if (r == VK_SUCCESS && !fs && info->fs &&
       (r = vkt_shader_module(t, info->fs, info->fs_size, &p->fs)) == VK_SUCCESS)
      fs = p->fs;
   if (r != VK_SUCCESS)
      return r;
   p->layout = info->layout;
   if (!p->layout) {
      r = draw_pipeline_layout(t, info->set_layout,
                               VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                               info->push_size, &p->layout);
      if (r != VK_SUCCESS)
         return r;
      p->own_layout = true;
   }
   struct draw_pipeline_state st;
   draw_pipeline_state_init(&st, dt, info, vs, fs, p->layout);
   r = vkCreateGraphicsPipelines(t->device, info->cache, 1, &st.info, NULL, &p->pipeline);
   if (r != VK_SUCCESS)
      fprintf(stderr, "%s: vkCreateGraphicsPipelines: %d\n", vkt_driver_name(t->driver), r);
   return r;
}

void
draw_pipeline_destroy(struct vkt *t, struct draw_pipeline *p)
{
   vkDestroyPipeline(t->device, p->pipeline, NULL);
   if (p->own_layout)
      vkDestroyPipelineLayout(t->device, p->layout, NULL);
   vkDestroyShaderModule(t->device, p->vs, NULL);
   vkDestroyShaderModule(t->device, p->fs, NULL);
}

VkCommandBuffer
draw_begin(struct vkt *t, const struct draw_target *dt, const struct draw_pipeline *p,
           VkBuffer vertices)
{
   VkCommandBuffer cb = vkt_begin(t);
   VkClearValue clears[2];
   uint32_t n = 0;
   if (dt->color_format)
      clears[n++].color = dt->clear_color;
   if (dt->depth_format)
      clears[n++].depthStencil = (VkClearDepthStencilValue) { dt->clear_depth, dt->clear_stencil };
   VkRenderPassBeginInfo rbi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = dt->render_pass,
      .framebuffer = dt->framebuffer,
      .renderArea = { { 0, 0 }, { dt->width, dt->height } },
      .clearValueCount = n,
      .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   if (p) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p->pipeline);
   }
   if (p && p->dynamic_viewport_scissor) {
      VkViewport viewport = { 0, 0, (float)dt->width, (float)dt->height, 0, 1 };
      VkRect2D scissor = { { 0, 0 }, { dt->width, dt->height } };
      vkCmdSetViewport(cb, 0, 1, &viewport);
      vkCmdSetScissor(cb, 0, 1, &scissor);
   }
   if (vertices) {
      VkDeviceSize offset = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &vertices, &offset);
   }
   return cb;
}

VkResult
draw_end(struct vkt *t, struct draw_target *dt, VkCommandBuffer cb)
{
   vkCmdEndRenderPass(cb);
   VkDeviceSize offset = 0;
   if (dt->color_format) {
      draw_copy_to_buffer(cb, dt->color.image, VK_IMAGE_ASPECT_COLOR_BIT, dt->width, dt->height,
                          dt->readback.buffer, 0);
      offset = (VkDeviceSize)dt->width * dt->height * dt->color_texel;
   }
   if (dt->depth_format && (is_depth_stencil(dt->depth_format) ||
                            dt->depth_format == VK_FORMAT_S8_UINT)) {
      if (is_depth_stencil(dt->depth_format))
         draw_copy_to_buffer(cb, dt->depth.image, VK_IMAGE_ASPECT_DEPTH_BIT, dt->width,
                             dt->height, dt->readback.buffer, offset);
      offset += (VkDeviceSize)dt->width * dt->height * dt->depth_texel;
      if (draw_has_stencil(dt->depth_format))
         draw_copy_to_buffer(cb, dt->depth.image, VK_IMAGE_ASPECT_STENCIL_BIT, dt->width,
                             dt->height, dt->readback.buffer, offset);
   }
   /* The copies and any shader stores of the draws (storage buffers) are
    * visible to the host. */
   VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_VERTEX_SHADER_BIT |
                               VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                        VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
   return vkt_submit_wait(t, cb);
}
