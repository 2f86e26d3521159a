/*
 * shale_demo: a small Vulkan program that renders a real scene on whatever
 * driver the loader picks (point VK_DRIVER_FILES at Shale's manifest): a
 * torus with normals and texture coordinates, drawn by a vertex and a
 * fragment shader with a mipmapped texture (implicit LOD), diffuse and
 * specular light, a D32 depth buffer and 4x MSAA resolved into the picture,
 * which it writes as a PNG.
 *   shale_demo [out.png] [--frames N] [--raw out.rgba]
 * --frames N draws the frame N times and prints frames per second; --raw
 * also writes the pixels as raw RGBA8 rows (the render/demo test compares
 * Shale's picture with lavapipe's through it).
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "mesh_frag_spv.h"
#include "mesh_vert_spv.h"
#include "png_write.h"

#define VK(call)                                                               \
   do {                                                                        \
      VkResult r_ = (call);                                                    \
      if (r_ != VK_SUCCESS) {                                                  \
         fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, r_); \
         exit(1);                                                              \
      }                                                                        \
   } while (0)

enum { WIDTH = 640, HEIGHT = 480, RINGS = 96, SIDES = 48, TEX = 256, TEX_LEVELS = 9 };
#define SAMPLES VK_SAMPLE_COUNT_4_BIT

static VkDevice device;
static VkPhysicalDeviceMemoryProperties mem_props;

struct vertex {
   float pos[3], normal[3], uv[2];
};

static uint32_t
memory_type(uint32_t bits, VkMemoryPropertyFlags flags)
{
   for (uint32_t i = 0; i < mem_props.memoryTypeCount; i++)
      if ((bits & (1u << i)) && (mem_props.memoryTypes[i].propertyFlags & flags) == flags)
         return i;
   fprintf(stderr, "no suitable memory type\n");
   exit(1);
}

static VkDeviceMemory
allocate(VkMemoryRequirements req, VkMemoryPropertyFlags flags)
{
   VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = memory_type(req.memoryTypeBits, flags) };
   VkDeviceMemory mem;
   VK(vkAllocateMemory(device, &ai, NULL, &mem));
   return mem;
}

/* A host-visible buffer, mapped; its memory in *mem. */
static VkBuffer
host_buffer(VkDeviceSize size, VkBufferUsageFlags usage, VkDeviceMemory *mem, void **map)
{
   VkBufferCreateInfo bci = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = size, .usage = usage };
   VkBuffer buf;
   VK(vkCreateBuffer(device, &bci, NULL, &buf));
   VkMemoryRequirements req;
   vkGetBufferMemoryRequirements(device, buf, &req);
   *mem = allocate(req, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
   VK(vkBindBufferMemory(device, buf, *mem, 0));
   VK(vkMapMemory(device, *mem, 0, VK_WHOLE_SIZE, 0, map));
   return buf;
}

struct image {
   VkImage image;
   VkDeviceMemory memory;
   VkImageView view;
};

static struct image
make_image(VkFormat format, uint32_t w, uint32_t h, uint32_t levels, VkSampleCountFlagBits samples,
           VkImageUsageFlags usage, VkImageAspectFlags aspect)
{
   struct image img;
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = { w, h, 1 },
      .mipLevels = levels,
      .arrayLayers = 1,
      .samples = samples,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
   };
   VK(vkCreateImage(device, &ici, NULL, &img.image));
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(device, img.image, &req);
   img.memory = allocate(req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
   VK(vkBindImageMemory(device, img.image, img.memory, 0));
   VkImageViewCreateInfo vci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = img.image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = format,
      .subresourceRange = { aspect, 0, levels, 0, 1 },
   };
   VK(vkCreateImageView(device, &vci, NULL, &img.view));
   return img;
}

static void
destroy_image(struct image *img)
{
   vkDestroyImageView(device, img->view, NULL);
   vkDestroyImage(device, img->image, NULL);
   vkFreeMemory(device, img->memory, NULL);
}

/* A torus around the y axis: RINGS x SIDES quads. */
static void
make_torus(struct vertex *v, uint32_t *idx)
{
   const float R = 1.0f, r = 0.42f, pi = 3.14159265f;
   for (int i = 0; i <= RINGS; i++)
      for (int j = 0; j <= SIDES; j++) {
         float u = (float)i / RINGS * 2.0f * pi, w = (float)j / SIDES * 2.0f * pi;
         struct vertex *p = &v[i * (SIDES + 1) + j];
         float cx = cosf(u), sx = sinf(u), cw = cosf(w), sw = sinf(w);
         p->pos[0] = (R + r * cw) * cx;
         p->pos[1] = r * sw;
         p->pos[2] = (R + r * cw) * sx;
         p->normal[0] = cw * cx;
         p->normal[1] = sw;
         p->normal[2] = cw * sx;
         p->uv[0] = (float)i / RINGS * 6.0f;
         p->uv[1] = (float)j / SIDES * 2.0f;
      }
   uint32_t n = 0;
   for (int i = 0; i < RINGS; i++)
      for (int j = 0; j < SIDES; j++) {
         uint32_t a = i * (SIDES + 1) + j, b = a + SIDES + 1;
         uint32_t q[6] = { a, b, a + 1, a + 1, b, b + 1 };
         memcpy(&idx[n], q, sizeof(q));
         n += 6;
      }
}

static void
mat_mul(float *out, const float *a, const float *b)
{
   float t[16];
   for (int c = 0; c < 4; c++)
      for (int r = 0; r < 4; r++) {
         float s = 0.0f;
         for (int k = 0; k < 4; k++)
            s += a[k * 4 + r] * b[c * 4 + k];
         t[c * 4 + r] = s;
      }
   memcpy(out, t, sizeof(t));
}

/* Column-major model and model-view-projection matrices of the scene
 * (Vulkan clip space: y down, z in [0, 1]). */
static void
scene_matrices(float mvp[16], float model[16])
{
   const float ax = 0.9f, ay = 0.5f;
   float rx[16] = { 1, 0, 0, 0, 0, cosf(ax), sinf(ax), 0, 0, -sinf(ax), cosf(ax), 0, 0, 0, 0, 1 };
   float ry[16] = { cosf(ay), 0, -sinf(ay), 0, 0, 1, 0, 0, sinf(ay), 0, cosf(ay), 0, 0, 0, 0, 1 };
   mat_mul(model, ry, rx);
   float view[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 3.2f, 1 };
   const float f = 1.0f / tanf(0.5f * 0.9f), aspect = (float)WIDTH / HEIGHT, zn = 0.5f, zf = 10.0f;
   float proj[16] = { f / aspect, 0, 0, 0, 0, -f, 0, 0, 0, 0, zf / (zf - zn), 1,
                      0, 0, -zn * zf / (zf - zn), 0 };
   float vm[16];
   mat_mul(vm, view, model);
   mat_mul(mvp, proj, vm);
}

/* Texture level `level` of a checkerboard with a warm/cool tint, each level
 * the box-filtered one above it. */
static void
make_texture(uint8_t *levels[TEX_LEVELS])
{
   for (uint32_t y = 0; y < TEX; y++)
      for (uint32_t x = 0; x < TEX; x++) {
         uint8_t *p = &levels[0][(y * TEX + x) * 4];
         bool dark = ((x / 32) ^ (y / 32)) & 1;
         p[0] = dark ? 60 : 235;
         p[1] = dark ? 90 : 180 + (uint8_t)(x / 4);
         p[2] = dark ? 160 : 90;
         p[3] = 255;
      }
   for (uint32_t l = 1; l < TEX_LEVELS; l++) {
      uint32_t s = TEX >> l, ps = s * 2;
      for (uint32_t y = 0; y < s; y++)
         for (uint32_t x = 0; x < s; x++)
            for (int c = 0; c < 4; c++) {
               const uint8_t *u = levels[l - 1];
               unsigned sum = u[((2 * y) * ps + 2 * x) * 4 + c] + u[((2 * y) * ps + 2 * x + 1) * 4 + c] +
                              u[((2 * y + 1) * ps + 2 * x) * 4 + c] +
                              u[((2 * y + 1) * ps + 2 * x + 1) * 4 + c];
               levels[l][(y * s + x) * 4 + c] = (uint8_t)((sum + 2) / 4);
            }
   }
}

static VkShaderModule
module(const uint32_t *code, size_t size)
{
   VkShaderModuleCreateInfo ci = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                   .codeSize = size, .pCode = code };
   VkShaderModule m;
   VK(vkCreateShaderModule(device, &ci, NULL, &m));
   return m;
}

static void
barrier(VkCommandBuffer cb, VkImage image, uint32_t levels, VkImageLayout from, VkImageLayout to,
        VkAccessFlags src, VkAccessFlags dst, VkPipelineStageFlags src_stage,
        VkPipelineStageFlags dst_stage)
{
   VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER,
      .srcAccessMask = src,
      .dstAccessMask = dst,
      .oldLayout = from,
      .newLayout = to,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = image,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, levels, 0, 1 },
   };
   vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 0, NULL, 0, NULL, 1, &b);
}

static double
now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
   const char *out = "shale-demo.png", *raw = NULL;
   unsigned frames = 1;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--frames") && i + 1 < argc)
         frames = (unsigned)atoi(argv[++i]);
      else if (!strcmp(argv[i], "--raw") && i + 1 < argc)
         raw = argv[++i];
      else
         out = argv[i];
   }
   if (frames < 1)
      frames = 1;

   VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "shale_demo", .apiVersion = VK_API_VERSION_1_0 };
   VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app };
   VkInstance instance;
   VK(vkCreateInstance(&ici, NULL, &instance));
   uint32_t count = 1;
   VkPhysicalDevice pdev;
   VkResult er = vkEnumeratePhysicalDevices(instance, &count, &pdev);
   if ((er != VK_SUCCESS && er != VK_INCOMPLETE) || count == 0) {
      fprintf(stderr, "no Vulkan device\n");
      return 1;
   }
   VkPhysicalDeviceProperties props;
   vkGetPhysicalDeviceProperties(pdev, &props);
   vkGetPhysicalDeviceMemoryProperties(pdev, &mem_props);
   printf("device: %s (Vulkan %u.%u.%u)\n", props.deviceName, VK_API_VERSION_MAJOR(props.apiVersion),
          VK_API_VERSION_MINOR(props.apiVersion), VK_API_VERSION_PATCH(props.apiVersion));

   float priority = 1.0f;
   VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = 0, .queueCount = 1,
                                   .pQueuePriorities = &priority };
   VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci };
   VK(vkCreateDevice(pdev, &dci, NULL, &device));
   VkQueue queue;
   vkGetDeviceQueue(device, 0, 0, &queue);

   /* Geometry and texture, through host-visible buffers. */
   const uint32_t nverts = (RINGS + 1) * (SIDES + 1), nidx = RINGS * SIDES * 6;
   VkDeviceMemory vmem, imem, smem, rmem;
   void *vmap, *imap, *smap, *rmap;
   VkBuffer vbuf = host_buffer(nverts * sizeof(struct vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                               &vmem, &vmap);
   VkBuffer ibuf = host_buffer(nidx * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &imem, &imap);
   make_torus(vmap, imap);
   VkDeviceSize tex_bytes = 0, level_offset[TEX_LEVELS];
   for (int l = 0; l < TEX_LEVELS; l++) {
      level_offset[l] = tex_bytes;
      tex_bytes += (VkDeviceSize)(TEX >> l) * (TEX >> l) * 4;
   }
   VkBuffer staging = host_buffer(tex_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &smem, &smap);
   uint8_t *levels[TEX_LEVELS];
   for (int l = 0; l < TEX_LEVELS; l++)
      levels[l] = (uint8_t *)smap + level_offset[l];
   make_texture(levels);
   VkBuffer readback = host_buffer((VkDeviceSize)WIDTH * HEIGHT * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                   &rmem, &rmap);

   struct image tex = make_image(VK_FORMAT_R8G8B8A8_SRGB, TEX, TEX, TEX_LEVELS, VK_SAMPLE_COUNT_1_BIT,
                                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                 VK_IMAGE_ASPECT_COLOR_BIT);
   struct image color = make_image(VK_FORMAT_R8G8B8A8_UNORM, WIDTH, HEIGHT, 1, SAMPLES,
                                   VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
   struct image depth = make_image(VK_FORMAT_D32_SFLOAT, WIDTH, HEIGHT, 1, SAMPLES,
                                   VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                   VK_IMAGE_ASPECT_DEPTH_BIT);
   struct image resolved = make_image(VK_FORMAT_R8G8B8A8_UNORM, WIDTH, HEIGHT, 1,
                                      VK_SAMPLE_COUNT_1_BIT,
                                      VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                         VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                      VK_IMAGE_ASPECT_COLOR_BIT);

   /* Render pass: 4x colour and depth, resolved into `resolved`. */
   VkAttachmentDescription att[3] = {
      { 0, VK_FORMAT_R8G8B8A8_UNORM, SAMPLES, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
      { 0, VK_FORMAT_D32_SFLOAT, SAMPLES, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
   };
   VkAttachmentReference cref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference dref = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkAttachmentReference rref = { 2, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &cref,
      .pResolveAttachments = &rref,
      .pDepthStencilAttachment = &dref,
   };
   VkSubpassDependency deps[2] = {
      { VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
        VK_ACCESS_TRANSFER_READ_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, 0 },
      { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        VK_ACCESS_TRANSFER_READ_BIT, 0 },
   };
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 3, .pAttachments = att,
      .subpassCount = 1, .pSubpasses = &sub,
      .dependencyCount = 2, .pDependencies = deps,
   };
   VkRenderPass rp;
   VK(vkCreateRenderPass(device, &rpci, NULL, &rp));
   VkImageView views[3] = { color.view, depth.view, resolved.view };
   VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                   .renderPass = rp, .attachmentCount = 3, .pAttachments = views,
                                   .width = WIDTH, .height = HEIGHT, .layers = 1 };
   VkFramebuffer fb;
   VK(vkCreateFramebuffer(device, &fci, NULL, &fb));

   /* Sampler, descriptor set, pipeline. */
   VkSamplerCreateInfo sci = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_LINEAR, .minFilter = VK_FILTER_LINEAR,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT, .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .maxLod = VK_LOD_CLAMP_NONE,
   };
   VkSampler sampler;
   VK(vkCreateSampler(device, &sci, NULL, &sampler));
   VkDescriptorSetLayoutBinding binding = { 0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1,
                                            VK_SHADER_STAGE_FRAGMENT_BIT, NULL };
   VkDescriptorSetLayoutCreateInfo dslci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 1, .pBindings = &binding };
   VkDescriptorSetLayout dsl;
   VK(vkCreateDescriptorSetLayout(device, &dslci, NULL, &dsl));
   VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 };
   VkDescriptorPoolCreateInfo dpci = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = 1, .poolSizeCount = 1, .pPoolSizes = &ps };
   VkDescriptorPool dpool;
   VK(vkCreateDescriptorPool(device, &dpci, NULL, &dpool));
   VkDescriptorSetAllocateInfo dsai = { .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                        .descriptorPool = dpool, .descriptorSetCount = 1,
                                        .pSetLayouts = &dsl };
   VkDescriptorSet set;
   VK(vkAllocateDescriptorSets(device, &dsai, &set));
   VkDescriptorImageInfo dii = { sampler, tex.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = set,
                              .descriptorCount = 1,
                              .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                              .pImageInfo = &dii };
   vkUpdateDescriptorSets(device, 1, &w, 0, NULL);

   VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, 128 };
   VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1, .pSetLayouts = &dsl,
                                       .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr };
   VkPipelineLayout layout;
   VK(vkCreatePipelineLayout(device, &plci, NULL, &layout));
   VkShaderModule vs = module(mesh_vert_spv, sizeof(mesh_vert_spv));
   VkShaderModule fs = module(mesh_frag_spv, sizeof(mesh_frag_spv));
   VkPipelineShaderStageCreateInfo stages[2] = {
      { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        .stage = VK_SHADER_STAGE_VERTEX_BIT, .module = vs, .pName = "main" },
      { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        .stage = VK_SHADER_STAGE_FRAGMENT_BIT, .module = fs, .pName = "main" },
   };
   VkVertexInputBindingDescription vib = { 0, sizeof(struct vertex), VK_VERTEX_INPUT_RATE_VERTEX };
   VkVertexInputAttributeDescription via[3] = {
      { 0, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(struct vertex, pos) },
      { 1, 0, VK_FORMAT_R32G32B32_SFLOAT, offsetof(struct vertex, normal) },
      { 2, 0, VK_FORMAT_R32G32_SFLOAT, offsetof(struct vertex, uv) },
   };
   VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
      .vertexBindingDescriptionCount = 1, .pVertexBindingDescriptions = &vib,
      .vertexAttributeDescriptionCount = 3, .pVertexAttributeDescriptions = via };
   VkPipelineInputAssemblyStateCreateInfo ia = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
   VkViewport viewport = { 0, 0, WIDTH, HEIGHT, 0, 1 };
   VkRect2D scissor = { { 0, 0 }, { WIDTH, HEIGHT } };
   VkPipelineViewportStateCreateInfo vp = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
      .viewportCount = 1, .pViewports = &viewport, .scissorCount = 1, .pScissors = &scissor };
   VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .polygonMode = VK_POLYGON_MODE_FILL, .cullMode = VK_CULL_MODE_BACK_BIT,
      .frontFace = VK_FRONT_FACE_CLOCKWISE, .lineWidth = 1.0f };
   VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = SAMPLES };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE, .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS };
   VkPipelineColorBlendAttachmentState cba = { .colorWriteMask = 0xf };
   VkPipelineColorBlendStateCreateInfo cb_state = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = 1, .pAttachments = &cba };
   VkGraphicsPipelineCreateInfo gpci = {
      .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
      .stageCount = 2, .pStages = stages,
      .pVertexInputState = &vi, .pInputAssemblyState = &ia, .pViewportState = &vp,
      .pRasterizationState = &rs, .pMultisampleState = &ms, .pDepthStencilState = &ds,
      .pColorBlendState = &cb_state, .layout = layout, .renderPass = rp, .subpass = 0 };
   VkPipeline pipeline;
   VK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &gpci, NULL, &pipeline));

   VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = 0 };
   VkCommandPool pool;
   VK(vkCreateCommandPool(device, &cpci, NULL, &pool));
   VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 2 };
   VkCommandBuffer cbs[2];
   VK(vkAllocateCommandBuffers(device, &cbai, cbs));
   VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };

   /* Upload: the texture's levels. */
   VkCommandBuffer cb = cbs[0];
   VK(vkBeginCommandBuffer(cb, &begin));
   barrier(cb, tex.image, TEX_LEVELS, VK_IMAGE_LAYOUT_UNDEFINED,
           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0, VK_ACCESS_TRANSFER_WRITE_BIT,
           VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT);
   VkBufferImageCopy regions[TEX_LEVELS];
   for (uint32_t l = 0; l < TEX_LEVELS; l++)
      regions[l] = (VkBufferImageCopy) {
         .bufferOffset = level_offset[l],
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1 },
         .imageExtent = { TEX >> l, TEX >> l, 1 },
      };
   vkCmdCopyBufferToImage(cb, staging, tex.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, TEX_LEVELS,
                          regions);
   barrier(cb, tex.image, TEX_LEVELS, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
           VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
           VK_ACCESS_SHADER_READ_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
           VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT);
   VK(vkEndCommandBuffer(cb));
   VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                       .pCommandBuffers = &cb };
   VK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
   VK(vkQueueWaitIdle(queue));

   /* The frame: draw, resolve, copy out. */
   cb = cbs[1];
   VK(vkBeginCommandBuffer(cb, &begin));
   VkClearValue clears[2] = { { .color = { { 0.06f, 0.07f, 0.10f, 1.0f } } },
                              { .depthStencil = { 1.0f, 0 } } };
   VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                 .renderPass = rp, .framebuffer = fb,
                                 .renderArea = { { 0, 0 }, { WIDTH, HEIGHT } },
                                 .clearValueCount = 2, .pClearValues = clears };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, NULL);
   VkDeviceSize zero = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &vbuf, &zero);
   vkCmdBindIndexBuffer(cb, ibuf, 0, VK_INDEX_TYPE_UINT32);
   float pc[32];
   scene_matrices(pc, pc + 16);
   vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(pc), pc);
   vkCmdDrawIndexed(cb, nidx, 1, 0, 0, 0);
   vkCmdEndRenderPass(cb);
   VkBufferImageCopy rc = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                            .imageExtent = { WIDTH, HEIGHT, 1 } };
   vkCmdCopyImageToBuffer(cb, resolved.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1,
                          &rc);
   VkMemoryBarrier hb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb,
                        0, NULL, 0, NULL);
   VK(vkEndCommandBuffer(cb));
   si.pCommandBuffers = &cb;
   double t0 = now(), first = 0.0;
   for (unsigned f = 0; f < frames; f++) {
      VK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
      VK(vkQueueWaitIdle(queue));
      if (f == 0)
         first = now() - t0;
   }
   double total = now() - t0;
   printf("%u x %u, %u triangles, 4x MSAA: first frame %.1f ms", WIDTH, HEIGHT, nidx / 3,
          first * 1e3);
   if (frames > 1)
      printf(", then %.1f frames per second", (frames - 1) / (total - first));
   printf("\n");

   int status = 0;
   if (png_write_rgba8(out, WIDTH, HEIGHT, rmap, WIDTH * 4)) {
      printf("wrote %s\n", out);
   } else {
      fprintf(stderr, "could not write %s\n", out);
      status = 1;
   }

   if (raw) {
      FILE *f = fopen(raw, "wb");
      if (!f || fwrite(rmap, 4, (size_t)WIDTH * HEIGHT, f) != (size_t)WIDTH * HEIGHT) {
         fprintf(stderr, "could not write %s\n", raw);
         status = 1;
      }
      if (f)
         fclose(f);
   }

   vkDestroyCommandPool(device, pool, NULL);
   vkDestroyPipeline(device, pipeline, NULL);
   vkDestroyShaderModule(device, vs, NULL);
   vkDestroyShaderModule(device, fs, NULL);
   vkDestroyPipelineLayout(device, layout, NULL);
   vkDestroyDescriptorPool(device, dpool, NULL);
   vkDestroyDescriptorSetLayout(device, dsl, NULL);
   vkDestroySampler(device, sampler, NULL);
   vkDestroyFramebuffer(device, fb, NULL);
   vkDestroyRenderPass(device, rp, NULL);
   destroy_image(&tex);
   destroy_image(&color);
   destroy_image(&depth);
   destroy_image(&resolved);
   VkBuffer bufs[5] = { vbuf, ibuf, staging, readback, VK_NULL_HANDLE };
   VkDeviceMemory mems[4] = { vmem, imem, smem, rmem };
   for (int i = 0; i < 4; i++) {
      vkDestroyBuffer(device, bufs[i], NULL);
      vkFreeMemory(device, mems[i], NULL);
   }
   vkDestroyDevice(device, NULL);
   vkDestroyInstance(instance, NULL);
   return status;
}
