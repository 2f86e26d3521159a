/*
 * shale_demo: a small Vulkan program that renders a real scene on whatever
 * driver the loader picks (point VK_DRIVER_FILES at Shale's manifest): a
 * torus with normals and texture coordinates, drawn by a vertex and a
 * fragment shader with a mipmapped texture (implicit LOD), diffuse and
 * specular light, a D32 depth buffer and 4x MSAA resolved into the picture,
 * which it writes as a PNG.
 *   shale_demo [out.png] [--frames N] [--raw out.rgba]
 *   shale_demo --window [--frames N] [--present immediate|mailbox|fifo]
 * --frames N draws the frame N times and prints frames per second; --raw
 * also writes the pixels as raw RGBA8 rows (the render/demo test compares
 * Shale's picture with lavapipe's through it).
 * --window (where the demo was built with libxcb) opens an X window and
 * presents to it continuously through VK_KHR_xcb_surface and a swapchain,
 * the torus turning a fixed angle per frame, resolving straight into the
 * swapchain's images; it prints frames per second every second and, at the
 * end, over all frames but the first (which includes the shaders'
 * compilation). It stops after N frames (--frames), when the window is
 * closed, or on a key press; a resized window gets a new swapchain
 * (oldSwapchain) when present or acquire says VK_SUBOPTIMAL_KHR or
 * VK_ERROR_OUT_OF_DATE_KHR. --present picks the present mode (default
 * mailbox; FIFO where the one asked for is not offered).
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef SHALE_DEMO_XCB
#include <xcb/xcb.h>
#define VK_USE_PLATFORM_XCB_KHR
#endif
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

enum { WIDTH = 640, HEIGHT = 480, RINGS = 96, SIDES = 48, TEX = 256, TEX_LEVELS = 9,
       MAX_IMAGES = 8 };
#define SAMPLES VK_SAMPLE_COUNT_4_BIT

static VkDevice device;
/* The picture's size: WIDTH x HEIGHT, or the window's. */
static uint32_t width = WIDTH, height = HEIGHT;
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
scene_matrices(float mvp[16], float model[16], float spin)
{
   const float ax = 0.9f, ay = 0.5f + spin;
   float rx[16] = { 1, 0, 0, 0, 0, cosf(ax), sinf(ax), 0, 0, -sinf(ax), cosf(ax), 0, 0, 0, 0, 1 };
   float ry[16] = { cosf(ay), 0, -sinf(ay), 0, 0, 1, 0, 0, sinf(ay), 0, cosf(ay), 0, 0, 0, 0, 1 };
   mat_mul(model, ry, rx);
   float view[16] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 3.2f, 1 };
   const float f = 1.0f / tanf(0.5f * 0.9f), aspect = (float)width / (float)height, zn = 0.5f, zf = 10.0f;
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

/* The scene: what every frame draws with. */
static struct {
   VkFormat format;              /* colour and resolve attachments */
   VkRenderPass render_pass;
   VkPipeline pipeline;
   VkPipelineLayout layout;
   VkDescriptorSet set;
   VkBuffer vbuf, ibuf;
   uint32_t nidx;
} scene = { .format = VK_FORMAT_R8G8B8A8_UNORM };

/* What depends on the picture's size: the 4x colour and depth images, and a
 * view and framebuffer per resolve target (the swapchain's images, or the
 * one offscreen image). */
struct targets {
   struct image color, depth;
   uint32_t count;
   VkImageView views[MAX_IMAGES];
   VkFramebuffer fbs[MAX_IMAGES];
   VkSwapchainKHR chain;
};

static void
targets_make(struct targets *t, const VkImage *images, uint32_t count)
{
   t->color = make_image(scene.format, width, height, 1, SAMPLES,
                         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_IMAGE_ASPECT_COLOR_BIT);
   t->depth = make_image(VK_FORMAT_D32_SFLOAT, width, height, 1, SAMPLES,
                         VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT);
   t->count = count;
   for (uint32_t i = 0; i < count; i++) {
      VkImageViewCreateInfo vci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
         .image = images[i],
         .viewType = VK_IMAGE_VIEW_TYPE_2D,
         .format = scene.format,
         .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
      };
      VK(vkCreateImageView(device, &vci, NULL, &t->views[i]));
      VkImageView views[3] = { t->color.view, t->depth.view, t->views[i] };
      VkFramebufferCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
                                      .renderPass = scene.render_pass, .attachmentCount = 3,
                                      .pAttachments = views, .width = width, .height = height,
                                      .layers = 1 };
      VK(vkCreateFramebuffer(device, &fci, NULL, &t->fbs[i]));
   }
}

static void
targets_destroy(struct targets *t)
{
   for (uint32_t i = 0; i < t->count; i++) {
      vkDestroyFramebuffer(device, t->fbs[i], NULL);
      vkDestroyImageView(device, t->views[i], NULL);
   }
   destroy_image(&t->color);
   destroy_image(&t->depth);
   t->count = 0;
}

/* The render pass: 4x colour and depth, resolved into the target, which
 * ends up presentable (present) or ready for a copy out. */
static VkRenderPass
make_render_pass(bool present)
{
   VkAttachmentDescription att[3] = {
      { 0, scene.format, SAMPLES, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
      { 0, VK_FORMAT_D32_SFLOAT, SAMPLES, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
      { 0, scene.format, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        present ? VK_IMAGE_LAYOUT_PRESENT_SRC_KHR : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL },
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
   const VkPipelineStageFlags attach_stages = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                                              VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                                              VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
   const VkAccessFlags attach_writes = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                                       VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
   VkSubpassDependency deps[2] = {
      { VK_SUBPASS_EXTERNAL, 0, VK_PIPELINE_STAGE_TRANSFER_BIT,
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
        VK_ACCESS_TRANSFER_READ_BIT,
        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT, 0 },
      { 0, VK_SUBPASS_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
        VK_ACCESS_TRANSFER_READ_BIT, 0 },
   };
   if (present) {
      /* The previous frame's attachment writes (the same 4x images), and
       * the acquire semaphore's wait at colour output; nothing to make
       * visible to the presentation engine but the finished writes. */
      deps[0] = (VkSubpassDependency) { VK_SUBPASS_EXTERNAL, 0, attach_stages, attach_stages,
                                        attach_writes,
                                        attach_writes |
                                           VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
                                        0 };
      deps[1] = (VkSubpassDependency) { 0, VK_SUBPASS_EXTERNAL,
                                        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                        VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                        VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, 0, 0 };
   }
   VkRenderPassCreateInfo rpci = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 3, .pAttachments = att,
      .subpassCount = 1, .pSubpasses = &sub,
      .dependencyCount = 2, .pDependencies = deps,
   };
   VkRenderPass rp;
   VK(vkCreateRenderPass(device, &rpci, NULL, &rp));
   return rp;
}

/* One frame into framebuffer fb (width x height), the torus turned by
 * `spin` radians; then copied into `readback` where there is one (its
 * target in TRANSFER_SRC_OPTIMAL, `image`). */
static void
record(VkCommandBuffer cb, VkFramebuffer fb, float spin, VkImage image, VkBuffer readback)
{
   VkCommandBufferBeginInfo begin = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   VK(vkBeginCommandBuffer(cb, &begin));
   VkClearValue clears[2] = { { .color = { { 0.06f, 0.07f, 0.10f, 1.0f } } },
                              { .depthStencil = { 1.0f, 0 } } };
   VkRenderPassBeginInfo rbi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
                                 .renderPass = scene.render_pass, .framebuffer = fb,
                                 .renderArea = { { 0, 0 }, { width, height } },
                                 .clearValueCount = 2, .pClearValues = clears };
   vkCmdBeginRenderPass(cb, &rbi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, scene.pipeline);
   VkViewport viewport = { 0, 0, (float)width, (float)height, 0, 1 };
   VkRect2D scissor = { { 0, 0 }, { width, height } };
   vkCmdSetViewport(cb, 0, 1, &viewport);
   vkCmdSetScissor(cb, 0, 1, &scissor);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, scene.layout, 0, 1, &scene.set,
                           0, NULL);
   VkDeviceSize zero = 0;
   vkCmdBindVertexBuffers(cb, 0, 1, &scene.vbuf, &zero);
   vkCmdBindIndexBuffer(cb, scene.ibuf, 0, VK_INDEX_TYPE_UINT32);
   float pc[32];
   scene_matrices(pc, pc + 16, spin);
   vkCmdPushConstants(cb, scene.layout, VK_SHADER_STAGE_VERTEX_BIT, 0, sizeof(pc), pc);
   vkCmdDrawIndexed(cb, scene.nidx, 1, 0, 0, 0);
   vkCmdEndRenderPass(cb);
   if (readback) {
      VkBufferImageCopy rc = { .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
                               .imageExtent = { width, height, 1 } };
      vkCmdCopyImageToBuffer(cb, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback, 1, &rc);
      VkMemoryBarrier hb = { .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                             .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                             .dstAccessMask = VK_ACCESS_HOST_READ_BIT };
      vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                           &hb, 0, NULL, 0, NULL);
   }
   VK(vkEndCommandBuffer(cb));
}

#ifdef SHALE_DEMO_XCB
/* ---- --window: an xcb window and a swapchain ---- */

struct window {
   xcb_connection_t *conn;
   xcb_window_t win;
   xcb_atom_t wm_protocols, wm_delete;
   VkSurfaceKHR surface;
   VkPresentModeKHR mode;
};

static xcb_atom_t
intern(xcb_connection_t *c, const char *name)
{
   xcb_intern_atom_reply_t *r =
      xcb_intern_atom_reply(c, xcb_intern_atom(c, 0, (uint16_t)strlen(name), name), NULL);
   xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
   free(r);
   return a;
}

static bool
window_open(struct window *w)
{
   w->conn = xcb_connect(NULL, NULL);
   if (xcb_connection_has_error(w->conn)) {
      fprintf(stderr, "cannot connect to the X server (DISPLAY)\n");
      return false;
   }
   const xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(w->conn)).data;
   w->win = xcb_generate_id(w->conn);
   const uint32_t values[2] = { screen->black_pixel,
                                XCB_EVENT_MASK_KEY_PRESS | XCB_EVENT_MASK_STRUCTURE_NOTIFY };
   xcb_create_window(w->conn, XCB_COPY_FROM_PARENT, w->win, screen->root, 0, 0, WIDTH, HEIGHT, 0,
                     XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
                     XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
   const char title[] = "shale_demo";
   xcb_change_property(w->conn, XCB_PROP_MODE_REPLACE, w->win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
                       sizeof(title) - 1, title);
   w->wm_protocols = intern(w->conn, "WM_PROTOCOLS");
   w->wm_delete = intern(w->conn, "WM_DELETE_WINDOW");
   xcb_change_property(w->conn, XCB_PROP_MODE_REPLACE, w->win, w->wm_protocols, XCB_ATOM_ATOM, 32,
                       1, &w->wm_delete);
   xcb_map_window(w->conn, w->win);
   xcb_flush(w->conn);
   return true;
}

/* True once the window was closed or a key pressed. */
static bool
window_quit(struct window *w)
{
   bool quit = false;
   xcb_generic_event_t *e;
   while ((e = xcb_poll_for_event(w->conn)) != NULL) {
      const uint8_t type = e->response_type & 0x7f;
      if (type == XCB_KEY_PRESS)
         quit = true;
      else if (type == XCB_CLIENT_MESSAGE &&
               ((xcb_client_message_event_t *)e)->data.data32[0] == w->wm_delete)
         quit = true;
      free(e);
   }
   return quit || xcb_connection_has_error(w->conn);
}

/* A swapchain for the window's current size (the old one retired), and
 * the targets over its images. */
static void
swapchain_make(VkPhysicalDevice pdev, struct window *w, struct targets *t, VkSwapchainKHR old)
{
   VkSurfaceCapabilitiesKHR caps;
   VK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(pdev, w->surface, &caps));
   if (caps.currentExtent.width != UINT32_MAX) {
      width = caps.currentExtent.width;
      height = caps.currentExtent.height;
   }
   uint32_t count = caps.minImageCount + 1;
   if (caps.maxImageCount && count > caps.maxImageCount)
      count = caps.maxImageCount;
   VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
   if (!(caps.supportedCompositeAlpha & alpha))
      alpha = (VkCompositeAlphaFlagBitsKHR)(caps.supportedCompositeAlpha &
                                            -caps.supportedCompositeAlpha);
   VkSwapchainCreateInfoKHR ci = {
      .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
      .surface = w->surface,
      .minImageCount = count,
      .imageFormat = scene.format,
      .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
      .imageExtent = { width, height },
      .imageArrayLayers = 1,
      .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .preTransform = caps.currentTransform,
      .compositeAlpha = alpha,
      .presentMode = w->mode,
      .clipped = VK_TRUE,
      .oldSwapchain = old,
   };
   VK(vkCreateSwapchainKHR(device, &ci, NULL, &t->chain));
   uint32_t n = 0;
   VK(vkGetSwapchainImagesKHR(device, t->chain, &n, NULL));
   if (n > MAX_IMAGES) {
      fprintf(stderr, "the swapchain has %u images, more than %u\n", n, MAX_IMAGES);
      exit(1);
   }
   VkImage images[MAX_IMAGES];
   VK(vkGetSwapchainImagesKHR(device, t->chain, &n, images));
   targets_make(t, images, n);
}

/* Presents frames until `frames` (0: until the window closes). */
static int
run_window(VkPhysicalDevice pdev, VkQueue queue, VkCommandPool pool, struct window *w,
           unsigned frames)
{
   struct targets t = { 0 };
   swapchain_make(pdev, w, &t, VK_NULL_HANDLE);
   printf("window %u x %u, %u swapchain images, present mode %d\n", width, height, t.count,
          (int)w->mode);
   VkSemaphore acquired[2], rendered[MAX_IMAGES];
   VkFence inflight[2];
   VkCommandBuffer cbs[2];
   const VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
   const VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO,
                                   .flags = VK_FENCE_CREATE_SIGNALED_BIT };
   for (int i = 0; i < 2; i++) {
      VK(vkCreateSemaphore(device, &sci, NULL, &acquired[i]));
      VK(vkCreateFence(device, &fci, NULL, &inflight[i]));
   }
   for (int i = 0; i < MAX_IMAGES; i++)
      VK(vkCreateSemaphore(device, &sci, NULL, &rendered[i]));
   VkCommandBufferAllocateInfo cbai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 2 };
   VK(vkAllocateCommandBuffers(device, &cbai, cbs));

   const double t0 = now();
   double first = 0.0, tick = 0.0;
   unsigned f = 0, tick_frame = 0, recreated = 0;
   while ((!frames || f < frames) && !window_quit(w)) {
      const unsigned slot = f % 2;
      VK(vkWaitForFences(device, 1, &inflight[slot], VK_TRUE, UINT64_MAX));
      uint32_t index;
      VkResult r = vkAcquireNextImageKHR(device, t.chain, UINT64_MAX, acquired[slot],
                                         VK_NULL_HANDLE, &index);
      bool stale = r == VK_SUBOPTIMAL_KHR;
      if (r == VK_SUCCESS || r == VK_SUBOPTIMAL_KHR) {
         VK(vkResetFences(device, 1, &inflight[slot]));
         VK(vkResetCommandBuffer(cbs[slot], 0));
         record(cbs[slot], t.fbs[index], 0.02f * (float)f, VK_NULL_HANDLE, VK_NULL_HANDLE);
         const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
         VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                             .waitSemaphoreCount = 1, .pWaitSemaphores = &acquired[slot],
                             .pWaitDstStageMask = &stage,
                             .commandBufferCount = 1, .pCommandBuffers = &cbs[slot],
                             .signalSemaphoreCount = 1, .pSignalSemaphores = &rendered[index] };
         VK(vkQueueSubmit(queue, 1, &si, inflight[slot]));
         VkPresentInfoKHR pi = { .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                                 .waitSemaphoreCount = 1, .pWaitSemaphores = &rendered[index],
                                 .swapchainCount = 1, .pSwapchains = &t.chain,
                                 .pImageIndices = &index };
         r = vkQueuePresentKHR(queue, &pi);
         stale |= r == VK_SUBOPTIMAL_KHR;
         if (r != VK_SUCCESS && r != VK_SUBOPTIMAL_KHR && r != VK_ERROR_OUT_OF_DATE_KHR) {
            fprintf(stderr, "vkQueuePresentKHR: %d\n", r);
            exit(1);
         }
         if (++f == 1) {
            /* The first frame's time is to its completion (the shaders'
             * compilation included), not to the return of the present. */
            VK(vkWaitForFences(device, 1, &inflight[slot], VK_TRUE, UINT64_MAX));
            first = now() - t0;
            tick = now();
            tick_frame = f;
            printf("first frame rendered and presented (%.1f ms)\n", first * 1e3);
            fflush(stdout);
         }
      } else if (r != VK_ERROR_OUT_OF_DATE_KHR) {
         fprintf(stderr, "vkAcquireNextImageKHR: %d\n", r);
         exit(1);
      }
      if (stale || r == VK_ERROR_OUT_OF_DATE_KHR) {
         /* The window changed size: a new swapchain, the old one retired. */
         VK(vkDeviceWaitIdle(device));
         targets_destroy(&t);
         VkSwapchainKHR old = t.chain;
         swapchain_make(pdev, w, &t, old);
         vkDestroySwapchainKHR(device, old, NULL);
         recreated++;
         printf("swapchain recreated for %u x %u\n", width, height);
         fflush(stdout);
      }
      const double tn = now();
      if (f > 1 && tn - tick >= 1.0) {
         printf("%.1f frames per second\n", (f - tick_frame) / (tn - tick));
         fflush(stdout);
         tick = tn;
         tick_frame = f;
      }
   }
   VK(vkDeviceWaitIdle(device));
   const double total = now() - t0;
   printf("%u frames presented, first %.1f ms", f, first * 1e3);
   if (f > 1)
      printf(", then %.1f frames per second", (f - 1) / (total - first));
   printf(" (%u swapchain recreations)\n", recreated);

   vkFreeCommandBuffers(device, pool, 2, cbs);
   for (int i = 0; i < 2; i++) {
      vkDestroySemaphore(device, acquired[i], NULL);
      vkDestroyFence(device, inflight[i], NULL);
   }
   for (int i = 0; i < MAX_IMAGES; i++)
      vkDestroySemaphore(device, rendered[i], NULL);
   targets_destroy(&t);
   vkDestroySwapchainKHR(device, t.chain, NULL);
   return 0;
}

/* The surface's format the demo renders in (UNORM, as the PNG), and the
 * present mode asked for where offered (else FIFO, always offered). */
static bool
window_choose(VkPhysicalDevice pdev, struct window *w, VkPresentModeKHR want)
{
   VkBool32 ok = VK_FALSE;
   VK(vkGetPhysicalDeviceSurfaceSupportKHR(pdev, 0, w->surface, &ok));
   if (!ok) {
      fprintf(stderr, "queue family 0 cannot present to the window\n");
      return false;
   }
   uint32_t n = 0;
   VK(vkGetPhysicalDeviceSurfaceFormatsKHR(pdev, w->surface, &n, NULL));
   VkSurfaceFormatKHR *formats = calloc(n ? n : 1, sizeof(*formats));
   VK(vkGetPhysicalDeviceSurfaceFormatsKHR(pdev, w->surface, &n, formats));
   VkFormat pick = VK_FORMAT_UNDEFINED;
   for (uint32_t i = 0; i < n; i++) {
      if (formats[i].colorSpace != VK_COLOR_SPACE_SRGB_NONLINEAR_KHR)
         continue;
      if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM ||
          (formats[i].format == VK_FORMAT_R8G8B8A8_UNORM && pick == VK_FORMAT_UNDEFINED))
         pick = formats[i].format;
   }
   free(formats);
   if (pick == VK_FORMAT_UNDEFINED) {
      fprintf(stderr, "the surface offers neither B8G8R8A8_UNORM nor R8G8B8A8_UNORM\n");
      return false;
   }
   scene.format = pick;
   VkPresentModeKHR modes[8];
   n = 8;
   VkResult r = vkGetPhysicalDeviceSurfacePresentModesKHR(pdev, w->surface, &n, modes);
   if (r != VK_SUCCESS && r != VK_INCOMPLETE)
      VK(r);
   w->mode = VK_PRESENT_MODE_FIFO_KHR;
   for (uint32_t i = 0; i < n; i++)
      if (modes[i] == want)
         w->mode = want;
   if (w->mode != want)
      printf("present mode %d is not offered: FIFO\n", (int)want);
   return true;
}
#endif

int
main(int argc, char **argv)
{
   const char *out = "shale-demo.png", *raw = NULL;
   unsigned frames = 1;
   bool window = false, frames_given = false;
   VkPresentModeKHR want_mode = VK_PRESENT_MODE_MAILBOX_KHR;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--frames") && i + 1 < argc) {
         frames = (unsigned)atoi(argv[++i]);
         frames_given = true;
      } else if (!strcmp(argv[i], "--raw") && i + 1 < argc) {
         raw = argv[++i];
      } else if (!strcmp(argv[i], "--window")) {
         window = true;
      } else if (!strcmp(argv[i], "--present") && i + 1 < argc) {
         const char *m = argv[++i];
         if (!strcmp(m, "immediate"))
            want_mode = VK_PRESENT_MODE_IMMEDIATE_KHR;
         else if (!strcmp(m, "mailbox"))
            want_mode = VK_PRESENT_MODE_MAILBOX_KHR;
         else if (!strcmp(m, "fifo"))
            want_mode = VK_PRESENT_MODE_FIFO_KHR;
         else {
            fprintf(stderr, "--present: immediate, mailbox or fifo\n");
            return 2;
         }
      } else if (argv[i][0] == '-' && argv[i][1]) {
         fprintf(stderr, "usage: %s [out.png] [--frames N] [--raw out.rgba]\n"
                         "       %s --window [--frames N] [--present immediate|mailbox|fifo]\n",
                 argv[0], argv[0]);
         return 2;
      } else {
         out = argv[i];
      }
   }
#ifndef SHALE_DEMO_XCB
   if (window) {
      fprintf(stderr, "--window: this demo was built without libxcb\n");
      return 2;
   }
#else
   struct window win = { 0 };
   if (window && !window_open(&win))
      return 1;
#endif
   if (window && !frames_given)
      frames = 0;   /* until the window closes */
   else if (frames < 1)
      frames = 1;

   VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "shale_demo", .apiVersion = VK_API_VERSION_1_0 };
   const char *inst_ext[2] = { "VK_KHR_surface", "VK_KHR_xcb_surface" };
   VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app,
                                .enabledExtensionCount = window ? 2 : 0,
                                .ppEnabledExtensionNames = inst_ext };
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
#ifdef SHALE_DEMO_XCB
   if (window) {
      const VkXcbSurfaceCreateInfoKHR xci = { .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
                                              .connection = win.conn, .window = win.win };
      VK(vkCreateXcbSurfaceKHR(instance, &xci, NULL, &win.surface));
      if (!window_choose(pdev, &win, want_mode))
         return 1;
   }
#endif

   float priority = 1.0f;
   VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = 0, .queueCount = 1,
                                   .pQueuePriorities = &priority };
   const char *dev_ext[1] = { "VK_KHR_swapchain" };
   VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = window ? 1 : 0,
                              .ppEnabledExtensionNames = dev_ext };
   VK(vkCreateDevice(pdev, &dci, NULL, &device));
   VkQueue queue;
   vkGetDeviceQueue(device, 0, 0, &queue);

   /* Geometry and texture, through host-visible buffers. */
   const uint32_t nverts = (RINGS + 1) * (SIDES + 1), nidx = RINGS * SIDES * 6;
   scene.nidx = nidx;
   VkDeviceMemory vmem, imem, smem, rmem = VK_NULL_HANDLE;
   void *vmap, *imap, *smap, *rmap = NULL;
   scene.vbuf = host_buffer(nverts * sizeof(struct vertex), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                            &vmem, &vmap);
   scene.ibuf = host_buffer(nidx * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, &imem, &imap);
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
   VkBuffer readback = VK_NULL_HANDLE;
   if (!window)
      readback = host_buffer((VkDeviceSize)WIDTH * HEIGHT * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             &rmem, &rmap);

   struct image tex = make_image(VK_FORMAT_R8G8B8A8_SRGB, TEX, TEX, TEX_LEVELS, VK_SAMPLE_COUNT_1_BIT,
                                 VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                 VK_IMAGE_ASPECT_COLOR_BIT);
   scene.render_pass = make_render_pass(window);

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
   VK(vkAllocateDescriptorSets(device, &dsai, &scene.set));
   VkDescriptorImageInfo dii = { sampler, tex.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkWriteDescriptorSet w = { .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = scene.set,
                              .descriptorCount = 1,
                              .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                              .pImageInfo = &dii };
   vkUpdateDescriptorSets(device, 1, &w, 0, NULL);

   VkPushConstantRange pcr = { VK_SHADER_STAGE_VERTEX_BIT, 0, 128 };
   VkPipelineLayoutCreateInfo plci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1, .pSetLayouts = &dsl,
                                       .pushConstantRangeCount = 1, .pPushConstantRanges = &pcr };
   VK(vkCreatePipelineLayout(device, &plci, NULL, &scene.layout));
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
   /* Viewport and scissor are set per frame: a window changes size. */
   VkPipelineViewportStateCreateInfo vp = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
      .viewportCount = 1, .scissorCount = 1 };
   const VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
   VkPipelineDynamicStateCreateInfo dys = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO,
      .dynamicStateCount = 2, .pDynamicStates = dyn };
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
      .pColorBlendState = &cb_state, .pDynamicState = &dys, .layout = scene.layout,
      .renderPass = scene.render_pass, .subpass = 0 };
   VK(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &gpci, NULL, &scene.pipeline));

   VkCommandPoolCreateInfo cpci = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
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
   vkFreeCommandBuffers(device, pool, 2, cbs);

   int status = 0;
#ifdef SHALE_DEMO_XCB
   if (window)
      status = run_window(pdev, queue, pool, &win, frames);
#endif
   if (!window) {
      /* The frame: draw, resolve, copy out. */
      struct image resolved = make_image(scene.format, WIDTH, HEIGHT, 1, VK_SAMPLE_COUNT_1_BIT,
                                         VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                            VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                         VK_IMAGE_ASPECT_COLOR_BIT);
      struct targets t = { 0 };
      targets_make(&t, &resolved.image, 1);
      VK(vkAllocateCommandBuffers(device, &cbai, cbs));
      cb = cbs[1];
      record(cb, t.fbs[0], 0.0f, resolved.image, readback);
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
      targets_destroy(&t);
      destroy_image(&resolved);
   }

   vkDestroyCommandPool(device, pool, NULL);
   vkDestroyPipeline(device, scene.pipeline, NULL);
   vkDestroyShaderModule(device, vs, NULL);
   vkDestroyShaderModule(device, fs, NULL);
   vkDestroyPipelineLayout(device, scene.layout, NULL);
   vkDestroyDescriptorPool(device, dpool, NULL);
   vkDestroyDescriptorSetLayout(device, dsl, NULL);
   vkDestroySampler(device, sampler, NULL);
   vkDestroyRenderPass(device, scene.render_pass, NULL);
   destroy_image(&tex);
   VkBuffer bufs[4] = { scene.vbuf, scene.ibuf, staging, readback };
   VkDeviceMemory mems[4] = { vmem, imem, smem, rmem };
   for (int i = 0; i < 4; i++) {
      vkDestroyBuffer(device, bufs[i], NULL);
      vkFreeMemory(device, mems[i], NULL);
   }
   vkDestroyDevice(device, NULL);
#ifdef SHALE_DEMO_XCB
   if (window) {
      vkDestroySurfaceKHR(instance, win.surface, NULL);
      xcb_destroy_window(win.conn, win.win);
      xcb_disconnect(win.conn);
   }
#endif
   vkDestroyInstance(instance, NULL);
   return status;
}
