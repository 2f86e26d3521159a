/* Benchmark: frames per second of three rendering scenes on Shale and lavapipe. */
/*
 * Scenes (shaders/render_*):
 *  (a) vertex-bound: 1,002,528 small lit triangles a frame at 1024x768:
 *      four instances of one indexed height-field sheet (355x355 vertices,
 *      250,632 triangles; each sheet covers about the screen, so triangles
 *      are about 3 pixels), positions and normals as attributes, ambient +
 *      diffuse + specular lighting per vertex in the vertex shader, the
 *      colour interpolated; depth test LESS on D32_SFLOAT; no culling; the
 *      sheets interpenetrate, so depth rejects part of the later ones.
 *  (b) fill-bound: 20 full-screen quads at 1920x1080 (4-vertex strips from
 *      gl_VertexIndex, one draw each with its push constants), blended
 *      SRC_ALPHA / ONE_MINUS_SRC_ALPHA, each sampling a 512x512 RGBA8
 *      texture with its 10 mip levels through texture() with linear
 *      filtering (LINEAR / LINEAR / LINEAR mipmap) at scales from 0.6 to
 *      8.2 repeats across the screen, so both magnified and minified
 *      levels are read.
 *  (c) a torus of 100,352 triangles (225x225 vertices: position, normal,
 *      texture coordinates) at 1280x720, 4x MSAA colour and D32_SFLOAT
 *      depth, back faces culled, depth test LESS, per-pixel diffuse light
 *      on the same mipmapped texture, resolved into a single-sample
 *      attachment at the end of the subpass.
 * Colour attachments are R8G8B8A8_UNORM, cleared by the load op each frame.
 *
 * A frame is one primary command buffer (recorded once, not one-time
 * submit) with one render pass instance, submitted again and again; its
 * time is the wall time from vkQueueSubmit to the fence (bench_submit_wait).
 * WARM_UP_FRAMES frames first (lavapipe compiles its shader variants at the
 * first draw), then FRAMES_MIN to FRAMES_MAX frames within BUDGET_S (two
 * and FRAMES_MIN_SLOW when frames take seconds); the figure is the median
 * frame's rate. The child's CPU time (all its threads) a frame is kept too:
 * on a shared, loaded machine the wall time measures the other users as
 * much as the driver, the CPU time measures the work (not its spread over
 * threads).
 *
 * Each (scene, driver, thread count) runs in its own forked child
 * (bench_util.h), which sets the driver's thread count before the driver
 * loads: SHALE_THREADS=1 / LP_NUM_THREADS=1 for "1 thread", neither
 * variable for "all threads" (both drivers then use every CPU; --threads N
 * sets both to N instead). The child then copies the last frame's
 * (resolved) colour image to the host and returns its mean R, G, B and the
 * share of pixels not of the clear colour; the parent compares Shale's
 * with lavapipe's (same scene, same thread count) and prints no Shale
 * figure for a scene whose image differs beyond a tolerance (a fast frame
 * that draws the wrong thing is no result). A step Shale fails prints
 * "n/a" and the step and VkResult instead of a figure; a format feature
 * or sample count the scene uses and the driver does not report is such a
 * step, unless
 * --force (then the row says it ran without it). BENCH_RENDER_DUMP=<dir>
 * writes each child's image as a PPM.
 *
 * Rows: per scene, the rate at all threads (with the issue's target:
 * 1.5x lavapipe for (a) and (c), 2x for (b)), the CPU time a frame at all
 * threads, the rate at 1 thread, and the thread
 * scaling (all / 1; its "limit" is the thread count, so the share is the
 * parallel efficiency). A "#" line gives the host's own FMA and memset
 * scaling over the same thread counts, to hold the scaling against.
 * For the scaling on a bigger machine without this build's libraries, carry
 * bench_render, libvulkan_shale.so, lavapipe and the libraries they load
 * (LD_LIBRARY_PATH), ICD manifests naming them in VK_DRIVER_FILES, and run
 * with --threads N.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "draw_util.h"
#include "render_color_frag_spv.h"
#include "render_lit_vert_spv.h"
#include "render_mesh_frag_spv.h"
#include "render_mesh_vert_spv.h"
#include "render_quad_frag_spv.h"
#include "render_quad_vert_spv.h"

#define WARM_UP_FRAMES 3
#define FRAMES_MIN 5
#define FRAMES_MIN_SLOW 3
#define FRAMES_MAX 15
#define BUDGET_S 3.0

#define COLOR_FORMAT VK_FORMAT_R8G8B8A8_UNORM
#define DEPTH_FORMAT VK_FORMAT_D32_SFLOAT
#define TEX_SIZE 512u
#define TEX_LEVELS 10u

/* Scene (a). */
#define SHEET_SIDE 355u          /* vertices per side */
#define SHEET_INSTANCES 4u
/* Scene (b). */
#define QUADS 20u
/* Scene (c). */
#define TORUS_SIDE 225u          /* vertices per side (seam duplicated) */

/* Image comparison with lavapipe: mean channel (0-255) and covered share. */
#define MEAN_TOLERANCE 2.0
#define COVERED_TOLERANCE 0.01

enum scene_id { SCENE_A, SCENE_B, SCENE_C, SCENE_COUNT };

/* What a child returns. */
enum {
   R_FRAME_S,      /* median frame time */
   R_CPU_S,        /* median CPU time of the process (all its threads) a frame */
   R_FRAMES,       /* timed frames */
   R_MEAN_R,
   R_MEAN_G,
   R_MEAN_B,
   R_COVERED,      /* share of pixels not of the clear colour */
   R_FAIL,         /* enum fail_step */
   R_RESULT,       /* the failing call's VkResult */
   R_FORCED,       /* 1: ran without the format features it uses (--force) */
   R_COUNT
};

enum fail_step {
   FAIL_NONE,
   FAIL_DEVICE,
   FAIL_FORMAT,
   FAIL_SAMPLES,
   FAIL_RESOURCES,
   FAIL_TEXTURE,
   FAIL_RENDER_PASS,
   FAIL_SHADERS,
   FAIL_PIPELINE,
   FAIL_RECORD,
   FAIL_SUBMIT,
   FAIL_READBACK,
   FAIL_COUNT
};

static const char *const fail_names[FAIL_COUNT] = {
   "", "no device", "attachment format features missing",
   "framebufferColor/DepthSampleCounts lack the sample count",
   "image/buffer/view creation failed", "texture upload failed", "render pass/framebuffer creation failed",
   "shader module creation failed", "graphics pipeline creation failed", "recording failed",
   "frame submission failed", "read-back failed",
};

struct scene_info {
   const char *name;
   uint32_t width, height;
   VkSampleCountFlagBits samples;
   bool depth, texture, blend;
   VkPrimitiveTopology topology;
   VkCullModeFlags cull;
   const uint32_t *vs, *fs;
   size_t vs_size, fs_size;
   uint32_t push_size;
   VkShaderStageFlags push_stages;
   uint32_t vertex_stride;          /* 0: no vertex buffer */
   uint32_t attribute_count;        /* float attributes of 3, 3 (and 2) components */
   double target;                   /* the issue's ratio to lavapipe */
};

static const struct scene_info scenes[SCENE_COUNT] = {
   [SCENE_A] = {
      "(a) vertex-bound: 1M lit triangles (4 x 250k, ~3 px), depth, 1024x768",
      1024, 768, VK_SAMPLE_COUNT_1_BIT, true, false, false,
      VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_CULL_MODE_NONE,
      render_lit_vert_spv, render_color_frag_spv, sizeof(render_lit_vert_spv),
      sizeof(render_color_frag_spv), 80, VK_SHADER_STAGE_VERTEX_BIT, 24, 2, 1.5,
   },
   [SCENE_B] = {
      "(b) fill-bound: 20 full-screen blended textured quads, 1920x1080",
      1920, 1080, VK_SAMPLE_COUNT_1_BIT, false, true, true,
      VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP, VK_CULL_MODE_NONE,
      render_quad_vert_spv, render_quad_frag_spv, sizeof(render_quad_vert_spv),
      sizeof(render_quad_frag_spv), 32, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
      0, 0, 2.0,
   },
   [SCENE_C] = {
      "(c) textured lit mesh, 100k triangles, depth, 4x MSAA + resolve, 1280x720",
      1280, 720, VK_SAMPLE_COUNT_4_BIT, true, true, false,
      VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, VK_CULL_MODE_BACK_BIT,
      render_mesh_vert_spv, render_mesh_frag_spv, sizeof(render_mesh_vert_spv),
      sizeof(render_mesh_frag_spv), 128, VK_SHADER_STAGE_VERTEX_BIT, 32, 3, 1.5,
   },
};

/* --force: run a scene even where the driver does not report a format
 * feature or sample count it uses (invalid usage: for trying a driver
 * under development; such rows say so). */
static bool force_formats;

static const float clear_color[4] = { 0.02f, 0.02f, 0.05f, 1.0f };

struct job {
   enum scene_id scene;
   enum vkt_driver driver;
   unsigned threads;   /* 0: the driver's default */
};

struct gfx {
   struct vkt t;
   const struct scene_info *s;
   VkFence fence;
   struct vkt_image color, depth, resolve, texture;
   VkImageView color_view, depth_view, resolve_view, texture_view;
   VkSampler sampler;
   VkRenderPass pass;
   VkFramebuffer framebuffer;
   VkDescriptorSetLayout set_layout;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   VkPipelineLayout layout;
   VkShaderModule vs, fs;
   VkPipeline pipeline;
   struct vkt_buffer vertices, indices, readback;
   uint32_t index_count;
   VkCommandBuffer frame;
   float push[32];           /* scene (a), (c): the frame's push constants */
};

/* CPU time of this process, all threads, in seconds. */
static double
cpu_now(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
   return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- matrices (column-major, as GLSL reads them) ---- */

static void
mat_identity(float *m)
{
   memset(m, 0, 16 * sizeof(float));
   m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void
mat_mul(float *r, const float *a, const float *b)
{
   float t[16];
   for (int c = 0; c < 4; c++)
      for (int row = 0; row < 4; row++) {
         float sum = 0.0f;
         for (int k = 0; k < 4; k++)
            sum += a[k * 4 + row] * b[c * 4 + k];
         t[c * 4 + row] = sum;
      }
   memcpy(r, t, sizeof(t));
}

/* Vulkan clip space: y down, depth 0 (near) to 1 (far). */
static void
mat_perspective(float *m, float fovy, float aspect, float near, float far)
{
   float g = 1.0f / tanf(0.5f * fovy);
   memset(m, 0, 16 * sizeof(float));
   m[0] = g / aspect;
   m[5] = -g;
   m[10] = far / (near - far);
   m[11] = -1.0f;
   m[14] = near * far / (near - far);
}

static void
mat_translate(float *m, float x, float y, float z)
{
   mat_identity(m);
   m[12] = x;
   m[13] = y;
   m[14] = z;
}

static void
mat_rotate_x(float *m, float a)
{
   mat_identity(m);
   m[5] = m[10] = cosf(a);
   m[6] = sinf(a);
   m[9] = -sinf(a);
}

static void
mat_rotate_y(float *m, float a)
{
   mat_identity(m);
   m[0] = m[10] = cosf(a);
   m[2] = -sinf(a);
   m[8] = sinf(a);
}

/* ---- geometry ---- */

/* Scene (a): a sheet over [-2, 2] x [-1.5, 1.5], height 0.05 sin(9x) cos(7y). */
static bool
make_sheet(struct gfx *g)
{
   const uint32_t n = SHEET_SIDE, quads = n - 1;
   g->index_count = quads * quads * 6;
   if (vkt_buffer_create(&g->t, (VkDeviceSize)n * n * 24, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                         &g->vertices) ||
       vkt_buffer_create(&g->t, (VkDeviceSize)g->index_count * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                         &g->indices))
      return false;
   float *v = g->vertices.map;
   for (uint32_t j = 0; j < n; j++)
      for (uint32_t i = 0; i < n; i++) {
         float x = -2.0f + 4.0f * (float)i / (float)quads;
         float y = -1.5f + 3.0f * (float)j / (float)quads;
         float h = 0.05f * sinf(9.0f * x) * cosf(7.0f * y);
         float dx = 0.45f * cosf(9.0f * x) * cosf(7.0f * y);
         float dy = -0.35f * sinf(9.0f * x) * sinf(7.0f * y);
         float len = sqrtf(dx * dx + dy * dy + 1.0f);
         float *p = v + ((size_t)j * n + i) * 6;
         p[0] = x;
         p[1] = y;
         p[2] = h;
         p[3] = -dx / len;
         p[4] = -dy / len;
         p[5] = 1.0f / len;
      }
   uint32_t *idx = g->indices.map;
   for (uint32_t j = 0; j < quads; j++)
      for (uint32_t i = 0; i < quads; i++) {
         uint32_t a = j * n + i, b = a + 1, c = a + n, d = c + 1;
         *idx++ = a;
         *idx++ = b;
         *idx++ = c;
         *idx++ = b;
         *idx++ = d;
         *idx++ = c;
      }
   /* Tilted back 20 degrees, 2.6 units from the camera, 60 degrees high. */
   float proj[16], view[16], model[16], mvp[16];
   mat_perspective(proj, 60.0f * (float)M_PI / 180.0f, 1024.0f / 768.0f, 0.5f, 10.0f);
   mat_translate(view, 0.0f, 0.0f, -2.6f);
   mat_rotate_x(model, -20.0f * (float)M_PI / 180.0f);
   mat_mul(mvp, view, model);
   mat_mul(mvp, proj, mvp);
   memcpy(g->push, mvp, sizeof(mvp));
   float l[3] = { 0.3f, 0.4f, 0.87f };
   float ll = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
   g->push[16] = l[0] / ll;
   g->push[17] = l[1] / ll;
   g->push[18] = l[2] / ll;
   g->push[19] = -0.04f;   /* each instance further away */
   return true;
}

/* Scene (c): a torus of radii 1 and 0.42, outward normals, counter-clockwise
 * seen from outside; texture repeated 8 times around, twice across. */
static bool
make_torus(struct gfx *g)
{
   const uint32_t n = TORUS_SIDE, quads = n - 1;
   g->index_count = quads * quads * 6;
   if (vkt_buffer_create(&g->t, (VkDeviceSize)n * n * 32, VK_BUFFER_USAGE_VERTEX_BUFFER_BIT,
                         &g->vertices) ||
       vkt_buffer_create(&g->t, (VkDeviceSize)g->index_count * 4, VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                         &g->indices))
      return false;
   float *v = g->vertices.map;
   for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = 0; j < n; j++) {
         float fu = (float)i / (float)quads, fv = (float)j / (float)quads;
         float u = 2.0f * (float)M_PI * fu, w = 2.0f * (float)M_PI * fv;
         float cu = cosf(u), su = sinf(u), cv = cosf(w), sv = sinf(w);
         float *p = v + ((size_t)i * n + j) * 8;
         p[0] = (1.0f + 0.42f * cv) * cu;
         p[1] = (1.0f + 0.42f * cv) * su;
         p[2] = 0.42f * sv;
         p[3] = cv * cu;
         p[4] = cv * su;
         p[5] = sv;
         p[6] = 8.0f * fu;
         p[7] = 2.0f * fv;
      }
   uint32_t *idx = g->indices.map;
   for (uint32_t i = 0; i < quads; i++)
      for (uint32_t j = 0; j < quads; j++) {
         uint32_t a = i * n + j, b = a + n, c = a + 1, d = b + 1;
         *idx++ = a;
         *idx++ = b;
         *idx++ = c;
         *idx++ = b;
         *idx++ = d;
         *idx++ = c;
      }
   float proj[16], view[16], rx[16], ry[16], model[16], mvp[16];
   mat_perspective(proj, 50.0f * (float)M_PI / 180.0f, 1280.0f / 720.0f, 0.5f, 10.0f);
   mat_translate(view, 0.0f, 0.0f, -3.3f);
   mat_rotate_x(rx, -55.0f * (float)M_PI / 180.0f);
   mat_rotate_y(ry, 25.0f * (float)M_PI / 180.0f);
   mat_mul(model, ry, rx);
   mat_mul(mvp, view, model);
   mat_mul(mvp, proj, mvp);
   memcpy(g->push, mvp, sizeof(mvp));
   memcpy(g->push + 16, model, sizeof(model));
   return true;
}

/* ---- resources ---- */

static VkResult
make_view(struct gfx *g, VkImage image, VkFormat format, VkImageAspectFlags aspect,
          uint32_t levels, VkImageView *out)
{
   VkImageViewCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = format,
      .subresourceRange = { aspect, 0, levels, 0, 1 },
   };
   return vkCreateImageView(g->t.device, &info, NULL, out);
}

static VkResult
make_image(struct gfx *g, VkFormat format, VkSampleCountFlagBits samples, uint32_t width,
           uint32_t height, uint32_t levels, VkImageUsageFlags usage, struct vkt_image *out)
{
   VkImageCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = { width, height, 1 },
      .mipLevels = levels,
      .arrayLayers = 1,
      .samples = samples,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   return vkt_image_create(&g->t, &info, out);
}

/* A colourful 512x512 pattern with alpha from 0.35 to 0.95 and its mip
 * chain (2x2 box filter), uploaded through a staging buffer. */
static VkResult
make_texture(struct gfx *g)
{
   VkResult r = make_image(g, COLOR_FORMAT, VK_SAMPLE_COUNT_1_BIT, TEX_SIZE, TEX_SIZE, TEX_LEVELS,
                           VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, &g->texture);
   if (r != VK_SUCCESS)
      return r;
   VkDeviceSize total = 0;
   for (uint32_t l = 0; l < TEX_LEVELS; l++) {
      uint32_t s = TEX_SIZE >> l;
      total += (VkDeviceSize)s * s * 4;
   }
   struct vkt_buffer staging;
   r = vkt_buffer_create(&g->t, total, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, &staging);
   if (r != VK_SUCCESS)
      return r;
   uint8_t *level = staging.map;
   for (uint32_t y = 0; y < TEX_SIZE; y++)
      for (uint32_t x = 0; x < TEX_SIZE; x++) {
         uint8_t *p = level + ((size_t)y * TEX_SIZE + x) * 4;
         bool check = ((x >> 5) ^ (y >> 5)) & 1;
         p[0] = (uint8_t)(check ? 230 : 40 + (x >> 2));
         p[1] = (uint8_t)((x * 7 + y * 3) & 0xff);
         p[2] = (uint8_t)(check ? 60 + (y >> 2) : 200);
         p[3] = (uint8_t)(90 + (((x ^ y) >> 3) & 0x3f) * 2.4);
      }
   VkBufferImageCopy regions[TEX_LEVELS];
   VkDeviceSize offset = 0;
   for (uint32_t l = 0; l < TEX_LEVELS; l++) {
      uint32_t s = TEX_SIZE >> l;
      regions[l] = (VkBufferImageCopy) {
         .bufferOffset = offset,
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, l, 0, 1 },
         .imageExtent = { s, s, 1 },
      };
      if (l + 1 < TEX_LEVELS) {
         const uint8_t *src = level;
         uint8_t *dst = level + (size_t)s * s * 4;
         uint32_t h = s / 2;
         for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < h; x++)
               for (int c = 0; c < 4; c++) {
                  const uint8_t *q = src + ((size_t)(2 * y) * s + 2 * x) * 4 + c;
                  dst[((size_t)y * h + x) * 4 + c] =
                     (uint8_t)((q[0] + q[4] + q[(size_t)s * 4] + q[(size_t)s * 4 + 4] + 2) / 4);
               }
         level = dst;
      }
      offset += (VkDeviceSize)s * s * 4;
   }
   VkCommandBuffer cb = vkt_begin(&g->t);
   if (!cb) {
      vkt_buffer_destroy(&g->t, &staging);
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   }
   vkt_image_barrier(cb, g->texture.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   vkCmdCopyBufferToImage(cb, staging.buffer, g->texture.image,
                          VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, TEX_LEVELS, regions);
   vkt_image_barrier(cb, g->texture.image, VK_IMAGE_ASPECT_COLOR_BIT,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
   r = vkt_submit_wait(&g->t, cb);
   vkt_buffer_destroy(&g->t, &staging);
   if (r != VK_SUCCESS)
      return r;
   r = make_view(g, g->texture.image, COLOR_FORMAT, VK_IMAGE_ASPECT_COLOR_BIT, TEX_LEVELS,
                 &g->texture_view);
   if (r != VK_SUCCESS)
      return r;
   VkSamplerCreateInfo si = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_LINEAR,
      .minFilter = VK_FILTER_LINEAR,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .maxLod = VK_LOD_CLAMP_NONE,
   };
   r = vkCreateSampler(g->t.device, &si, NULL, &g->sampler);
   if (r != VK_SUCCESS)
      return r;
   VkDescriptorSetLayoutBinding b = {
      0, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1, VK_SHADER_STAGE_FRAGMENT_BIT, NULL,
   };
   if ((r = vkt_set_layout(&g->t, &b, 1, &g->set_layout)) != VK_SUCCESS)
      return r;
   VkDescriptorPoolSize ps = { VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1 };
   if ((r = vkt_descriptor_pool(&g->t, 1, &ps, 1, 0, &g->pool)) != VK_SUCCESS ||
       (r = vkt_alloc_sets(&g->t, g->pool, &g->set_layout, 1, &g->set)) != VK_SUCCESS)
      return r;
   VkDescriptorImageInfo ii = { g->sampler, g->texture_view,
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   VkWriteDescriptorSet w = {
      .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
      .dstSet = g->set,
      .descriptorCount = 1,
      .descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
      .pImageInfo = &ii,
   };
   vkUpdateDescriptorSets(g->t.device, 1, &w, 0, NULL);
   return VK_SUCCESS;
}

/* Attachments, render pass (colour, depth, resolve) and framebuffer. */
static VkResult
make_targets(struct gfx *g)
{
   const struct scene_info *s = g->s;
   bool msaa = s->samples != VK_SAMPLE_COUNT_1_BIT;
   VkResult r = draw_image_create(&g->t, COLOR_FORMAT, s->width, s->height, s->samples,
                                  VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
                                     (msaa ? 0 : VK_IMAGE_USAGE_TRANSFER_SRC_BIT),
                                  VK_IMAGE_ASPECT_COLOR_BIT, &g->color, &g->color_view);
   if (r == VK_SUCCESS && s->depth)
      r = draw_image_create(&g->t, DEPTH_FORMAT, s->width, s->height, s->samples,
                            VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_IMAGE_ASPECT_DEPTH_BIT,
                            &g->depth, &g->depth_view);
   if (r == VK_SUCCESS && msaa)
      r = draw_image_create(&g->t, COLOR_FORMAT, s->width, s->height, VK_SAMPLE_COUNT_1_BIT,
                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            VK_IMAGE_ASPECT_COLOR_BIT, &g->resolve, &g->resolve_view);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&g->t, (VkDeviceSize)s->width * s->height * 4,
                            VK_BUFFER_USAGE_TRANSFER_DST_BIT, &g->readback);
   return r;
}

static VkResult
make_render_pass(struct gfx *g)
{
   const struct scene_info *s = g->s;
   bool msaa = s->samples != VK_SAMPLE_COUNT_1_BIT;
   VkAttachmentDescription att[3];
   VkImageView views[3];
   uint32_t count = 0;
   att[count] = (VkAttachmentDescription) {
      .format = COLOR_FORMAT,
      .samples = s->samples,
      .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
      .storeOp = msaa ? VK_ATTACHMENT_STORE_OP_DONT_CARE : VK_ATTACHMENT_STORE_OP_STORE,
      .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
      .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
      .finalLayout = msaa ? VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL
                          : VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
   };
   views[count++] = g->color_view;
   VkAttachmentReference color_ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   VkAttachmentReference depth_ref = { 0, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   VkAttachmentReference resolve_ref = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   if (s->depth) {
      depth_ref.attachment = count;
      att[count] = (VkAttachmentDescription) {
         .format = DEPTH_FORMAT,
         .samples = s->samples,
         .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
         .storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
      };
      views[count++] = g->depth_view;
   }
   if (msaa) {
      resolve_ref.attachment = count;
      att[count] = (VkAttachmentDescription) {
         .format = COLOR_FORMAT,
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
         .stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE,
         .stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE,
         .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
         .finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      };
      views[count++] = g->resolve_view;
   }
   VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &color_ref,
      .pResolveAttachments = msaa ? &resolve_ref : NULL,
      .pDepthStencilAttachment = s->depth ? &depth_ref : NULL,
   };
   /* The previous frame's read-back copy and attachment writes come first;
    * the read-back copy waits for this frame's writes. */
   VkSubpassDependency deps[2] = {
      {
         .srcSubpass = VK_SUBPASS_EXTERNAL,
         .dstSubpass = 0,
         .srcStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT |
                         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                         VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT |
                         VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT |
                          VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT |
                          VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT,
      },
      {
         .srcSubpass = 0,
         .dstSubpass = VK_SUBPASS_EXTERNAL,
         .srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
         .dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT,
         .srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
      },
   };
   VkRenderPassCreateInfo rp = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = count,
      .pAttachments = att,
      .subpassCount = 1,
      .pSubpasses = &sub,
      .dependencyCount = 2,
      .pDependencies = deps,
   };
   VkResult r = vkCreateRenderPass(g->t.device, &rp, NULL, &g->pass);
   if (r != VK_SUCCESS)
      return r;
   return draw_framebuffer(&g->t, g->pass, views, count, s->width, s->height, 1,
                           &g->framebuffer);
}

static VkResult
make_pipeline(struct gfx *g)
{
   const struct scene_info *s = g->s;
   VkResult r = draw_pipeline_layout(&g->t, s->texture ? g->set_layout : VK_NULL_HANDLE,
                                     s->push_stages, s->push_size, &g->layout);
   if (r != VK_SUCCESS)
      return r;
   VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = s->samples,
   };
   VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = s->depth,
      .depthWriteEnable = s->depth,
      .depthCompareOp = VK_COMPARE_OP_LESS,
      .maxDepthBounds = 1.0f,
   };
   VkPipelineColorBlendAttachmentState blend = {
      .blendEnable = s->blend,
      .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
      .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = 0xf,
   };
   VkViewport viewport = { 0.0f, 0.0f, (float)s->width, (float)s->height, 0.0f, 1.0f };
   VkRect2D scissor = { { 0, 0 }, { s->width, s->height } };
   /* Positions and normals (3 floats), then texture coordinates (2). */
   struct draw_pipeline_info info = {
      .vs_module = g->vs,
      .fs_module = g->fs,
      .layout = g->layout,
      .stride = s->vertex_stride,
      .attrib_count = s->attribute_count,
      .attrib_format = { VK_FORMAT_R32G32B32_SFLOAT, VK_FORMAT_R32G32B32_SFLOAT,
                         VK_FORMAT_R32G32_SFLOAT },
      .attrib_offset = { 0, 12, 24 },
      .topology = s->topology,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .cull_mode = s->cull,
      .front_face = VK_FRONT_FACE_COUNTER_CLOCKWISE,
      .depth_stencil = &ds,
      .blend = &blend,
      .multisample = &ms,
      .viewport = &viewport,
      .scissor = &scissor,
      .render_pass = g->pass,
      .color_count = 1,
   };
   struct draw_pipeline p;
   r = draw_pipeline_create(&g->t, NULL, &info, &p);   /* owns nothing but the pipeline */
   g->pipeline = p.pipeline;
   return r;
}

/* The frame's command buffer. */
static VkResult
record_frame(struct gfx *g)
{
   const struct scene_info *s = g->s;
   g->frame = vkt_begin_flags(&g->t, 0);
   if (!g->frame)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   VkCommandBuffer cb = g->frame;
   VkClearValue clears[3];
   uint32_t n = 0;
   memcpy(clears[n++].color.float32, clear_color, sizeof(clear_color));
   if (s->depth)
      clears[n++].depthStencil = (VkClearDepthStencilValue) { 1.0f, 0 };
   if (s->samples != VK_SAMPLE_COUNT_1_BIT)
      memcpy(clears[n++].color.float32, clear_color, sizeof(clear_color));
   VkRenderPassBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
      .renderPass = g->pass,
      .framebuffer = g->framebuffer,
      .renderArea = { { 0, 0 }, { s->width, s->height } },
      .clearValueCount = n,
      .pClearValues = clears,
   };
   vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, g->pipeline);
   if (s->texture)
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, g->layout, 0, 1, &g->set, 0,
                              NULL);
   if (s->vertex_stride) {
      VkDeviceSize offset = 0;
      vkCmdBindVertexBuffers(cb, 0, 1, &g->vertices.buffer, &offset);
      vkCmdBindIndexBuffer(cb, g->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
      vkCmdPushConstants(cb, g->layout, s->push_stages, 0, s->push_size, g->push);
      vkCmdDrawIndexed(cb, g->index_count, s == &scenes[SCENE_A] ? SHEET_INSTANCES : 1, 0, 0, 0);
   } else {
      for (uint32_t q = 0; q < QUADS; q++) {
         float scale = 0.6f + 0.4f * (float)q;
         float push[8] = {
            0.55f + 0.45f * sinf(0.7f * (float)q), 0.55f + 0.45f * sinf(1.3f * (float)q + 1.0f),
            0.55f + 0.45f * sinf(2.1f * (float)q + 2.0f), 0.3f + 0.02f * (float)q,
            scale, scale * (float)s->height / (float)s->width, 0.037f * (float)q,
            0.011f * (float)q,
         };
         vkCmdPushConstants(cb, g->layout, s->push_stages, 0, sizeof(push), push);
         vkCmdDraw(cb, 4, 1, 0, 0);
      }
   }
   vkCmdEndRenderPass(cb);
   return vkEndCommandBuffer(cb);
}

/* Copies the final colour image to g->readback and computes the image
 * statistics into out. */
static VkResult
read_back(struct gfx *g, double *out)
{
   const struct scene_info *s = g->s;
   VkCommandBuffer cb = vkt_begin(&g->t);
   if (!cb)
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   VkImage image = s->samples != VK_SAMPLE_COUNT_1_BIT ? g->resolve.image : g->color.image;
   draw_copy_to_buffer(cb, image, VK_IMAGE_ASPECT_COLOR_BIT, s->width, s->height,
                       g->readback.buffer, 0);
   draw_host_barrier(cb);
   VkResult r = vkt_submit_wait(&g->t, cb);
   if (r != VK_SUCCESS)
      return r;
   const uint8_t *p = g->readback.map;
   uint8_t clear[3];
   for (int c = 0; c < 3; c++)
      clear[c] = (uint8_t)lrintf(clear_color[c] * 255.0f);
   double sum[3] = { 0 };
   uint64_t covered = 0, pixels = (uint64_t)s->width * s->height;
   for (uint64_t i = 0; i < pixels; i++, p += 4) {
      bool other = false;
      for (int c = 0; c < 3; c++) {
         sum[c] += p[c];
         other |= abs((int)p[c] - (int)clear[c]) > 2;
      }
      covered += other;
   }
   for (int c = 0; c < 3; c++)
      out[R_MEAN_R + c] = sum[c] / (double)pixels;
   out[R_COVERED] = (double)covered / (double)pixels;
   return VK_SUCCESS;
}

/* With BENCH_RENDER_DUMP=<dir>: the read-back image as a PPM, to look at. */
static void
dump_image(struct gfx *g, const struct job *job, const char *threads)
{
   const char *dir = getenv("BENCH_RENDER_DUMP");
   if (!dir || !*dir)
      return;
   char path[512];
   snprintf(path, sizeof(path), "%s/render_%c_%s_%s.ppm", dir, 'a' + job->scene,
            vkt_driver_name(job->driver), threads);
   FILE *f = fopen(path, "wb");
   if (!f)
      return;
   fprintf(f, "P6\n%u %u\n255\n", g->s->width, g->s->height);
   const uint8_t *p = g->readback.map;
   for (uint64_t i = 0; i < (uint64_t)g->s->width * g->s->height; i++, p += 4)
      fwrite(p, 1, 3, f);
   fclose(f);
}

static void
gfx_finish(struct gfx *g)
{
   VkDevice d = g->t.device;
   if (!d)
      return;
   vkDeviceWaitIdle(d);
   if (g->frame)
      vkFreeCommandBuffers(d, g->t.pool, 1, &g->frame);
   if (g->pipeline)
      vkDestroyPipeline(d, g->pipeline, NULL);
   if (g->layout)
      vkDestroyPipelineLayout(d, g->layout, NULL);
   if (g->vs)
      vkDestroyShaderModule(d, g->vs, NULL);
   if (g->fs)
      vkDestroyShaderModule(d, g->fs, NULL);
   if (g->framebuffer)
      vkDestroyFramebuffer(d, g->framebuffer, NULL);
   if (g->pass)
      vkDestroyRenderPass(d, g->pass, NULL);
   if (g->pool)
      vkDestroyDescriptorPool(d, g->pool, NULL);
   if (g->set_layout)
      vkDestroyDescriptorSetLayout(d, g->set_layout, NULL);
   if (g->sampler)
      vkDestroySampler(d, g->sampler, NULL);
   VkImageView views[4] = { g->color_view, g->depth_view, g->resolve_view, g->texture_view };
   for (int i = 0; i < 4; i++)
      if (views[i])
         vkDestroyImageView(d, views[i], NULL);
   vkt_image_destroy(&g->t, &g->color);
   vkt_image_destroy(&g->t, &g->depth);
   vkt_image_destroy(&g->t, &g->resolve);
   vkt_image_destroy(&g->t, &g->texture);
   vkt_buffer_destroy(&g->t, &g->vertices);
   vkt_buffer_destroy(&g->t, &g->indices);
   vkt_buffer_destroy(&g->t, &g->readback);
   if (g->fence)
      vkDestroyFence(d, g->fence, NULL);
}

static bool
format_has(struct gfx *g, VkFormat format, VkFormatFeatureFlags want)
{
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(g->t.pdev, format, &fp);
   return (fp.optimalTilingFeatures & want) == want;
}

/* Sets up a scene, renders and times it, reads it back (a child). */
static bool
run_scene(void *arg, double *out)
{
   const struct job *job = arg;
   const char *var = job->driver == VKT_SHALE ? "SHALE_THREADS" : "LP_NUM_THREADS";
   unsetenv("SHALE_THREADS");
   unsetenv("LP_NUM_THREADS");
   if (job->threads) {
      char n[16];
      snprintf(n, sizeof(n), "%u", job->threads);
      setenv(var, n, 1);
   }
   out[R_FAIL] = FAIL_DEVICE;
   out[R_RESULT] = VK_SUCCESS;
   struct gfx g;
   memset(&g, 0, sizeof(g));
   g.s = &scenes[job->scene];
   const struct scene_info *s = g.s;
   if (!bench_device_init(&g.t, job->driver))
      return false;
   VkResult r = VK_SUCCESS;
   enum fail_step step = FAIL_FORMAT;
   VkFormatFeatureFlags color_want = VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT |
                                     (s->blend ? VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT : 0);
   const char *missing = NULL;
   if (!format_has(&g, COLOR_FORMAT, color_want))
      missing = s->blend ? "R8G8B8A8_UNORM: COLOR_ATTACHMENT(_BLEND)"
                         : "R8G8B8A8_UNORM: COLOR_ATTACHMENT";
   else if (s->depth && !format_has(&g, DEPTH_FORMAT, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT))
      missing = "D32_SFLOAT: DEPTH_STENCIL_ATTACHMENT";
   else if (s->texture &&
            !format_has(&g, COLOR_FORMAT, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT |
                                             VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT))
      missing = "R8G8B8A8_UNORM: SAMPLED_IMAGE(_FILTER_LINEAR)";
   out[R_FORCED] = 0.0;
   if (missing) {
      printf("# %s: %.3s: optimal-tiling format feature not reported: %s%s\n",
             vkt_driver_name(job->driver), s->name, missing,
             force_formats ? "; going on (--force)" : "");
      if (!force_formats)
         goto fail;
      out[R_FORCED] = 1.0;
   }
   step = FAIL_SAMPLES;
   if (s->samples != VK_SAMPLE_COUNT_1_BIT &&
       (!(g.t.props.limits.framebufferColorSampleCounts & s->samples) ||
        !(g.t.props.limits.framebufferDepthSampleCounts & s->samples))) {
      if (!force_formats)
         goto fail;
      printf("# %s: %.3s: framebufferColor/DepthSampleCounts lack %u samples; going on (--force)\n",
             vkt_driver_name(job->driver), s->name, (unsigned)s->samples);
      out[R_FORCED] = 1.0;
   }
   step = FAIL_RESOURCES;
   VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   if ((r = vkCreateFence(g.t.device, &fci, NULL, &g.fence)) != VK_SUCCESS ||
       (r = make_targets(&g)) != VK_SUCCESS)
      goto fail;
   if (job->scene == SCENE_A ? !make_sheet(&g) : job->scene == SCENE_C ? !make_torus(&g) : false) {
      r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
      goto fail;
   }
   step = FAIL_TEXTURE;
   if (s->texture && (r = make_texture(&g)) != VK_SUCCESS)
      goto fail;
   step = FAIL_RENDER_PASS;
   if ((r = make_render_pass(&g)) != VK_SUCCESS)
      goto fail;
   step = FAIL_SHADERS;
   if ((r = vkt_shader_module(&g.t, s->vs, s->vs_size, &g.vs)) != VK_SUCCESS ||
       (r = vkt_shader_module(&g.t, s->fs, s->fs_size, &g.fs)) != VK_SUCCESS)
      goto fail;
   step = FAIL_PIPELINE;
   if ((r = make_pipeline(&g)) != VK_SUCCESS)
      goto fail;
   step = FAIL_RECORD;
   if ((r = record_frame(&g)) != VK_SUCCESS)
      goto fail;

   step = FAIL_SUBMIT;
   r = VK_ERROR_DEVICE_LOST;   /* what a failed submit or wait is reported as */
   double warm[WARM_UP_FRAMES], warm_cpu[WARM_UP_FRAMES], frames[FRAMES_MAX], cpu[FRAMES_MAX];
   unsigned warm_n = 0, n = 0;
   double begin = bench_now();
   /* Slow frames: two warm-up frames (the first compiles) and fewer timed
    * ones, so a driver at seconds a frame still finishes. */
   while (warm_n < WARM_UP_FRAMES && (warm_n < 2 || bench_now() - begin < BUDGET_S)) {
      double c0 = cpu_now();
      warm[warm_n] = bench_submit_wait(&g.t, g.frame, g.fence);
      warm_cpu[warm_n] = cpu_now() - c0;
      if (warm[warm_n++] < 0.0)
         goto fail;
   }
   char threads[32];
   if (job->threads)
      snprintf(threads, sizeof(threads), "%s=%u", var, job->threads);
   else
      snprintf(threads, sizeof(threads), "default-threads");
   printf("# %s, %s: %.3s: warm-up (ms):", vkt_driver_name(job->driver), threads, s->name);
   for (unsigned i = 0; i < warm_n; i++)
      printf(" %.1f", warm[i] * 1e3);
   /* All threads': the first frame's includes the background compiles. */
   printf("; CPU time (ms):");
   for (unsigned i = 0; i < warm_n; i++)
      printf(" %.1f", warm_cpu[i] * 1e3);
   printf("\n");
   unsigned min_frames = warm[warm_n - 1] > BUDGET_S / FRAMES_MIN ? FRAMES_MIN_SLOW : FRAMES_MIN;
   begin = bench_now();
   while (n < FRAMES_MAX && (n < min_frames || bench_now() - begin < BUDGET_S)) {
      double c0 = cpu_now();
      frames[n] = bench_submit_wait(&g.t, g.frame, g.fence);
      cpu[n] = cpu_now() - c0;
      if (frames[n++] < 0.0)
         goto fail;
   }
   printf("# %s, %s: %.3s: frames (ms):", vkt_driver_name(job->driver), threads, s->name);
   for (unsigned i = 0; i < n; i++)
      printf(" %.1f", frames[i] * 1e3);
   printf("; CPU time (ms):");
   for (unsigned i = 0; i < n; i++)
      printf(" %.1f", cpu[i] * 1e3);
   out[R_FRAME_S] = bench_median(frames, n);
   out[R_CPU_S] = bench_median(cpu, n);
   out[R_FRAMES] = n;
   printf("; medians %.1f, CPU %.1f\n", out[R_FRAME_S] * 1e3, out[R_CPU_S] * 1e3);

   step = FAIL_READBACK;
   if ((r = read_back(&g, out)) != VK_SUCCESS)
      goto fail;
   printf("# %s, %s: %.3s: image: mean RGB %.2f %.2f %.2f, covered %.4f\n",
          vkt_driver_name(job->driver), threads, s->name, out[R_MEAN_R], out[R_MEAN_G],
          out[R_MEAN_B], out[R_COVERED]);
   dump_image(&g, job, threads);
   out[R_FAIL] = FAIL_NONE;
   gfx_finish(&g);
   vkt_finish(&g.t);
   return true;
fail:
   out[R_FAIL] = step;
   out[R_RESULT] = r;
   out[R_FRAME_S] = NAN;
   printf("# %s: %.3s: %s (VkResult %d)\n", vkt_driver_name(job->driver), s->name,
          fail_names[step], (int)r);
   gfx_finish(&g);
   vkt_finish(&g.t);
   return false;
}

/* ---- the parent ---- */

enum config { CFG_SHALE_ALL, CFG_LVP_ALL, CFG_SHALE_ONE, CFG_LVP_ONE, CFG_COUNT };

struct scene_result {
   double r[CFG_COUNT][R_COUNT];
   bool ran[CFG_COUNT];
};

/* Why a configuration has no figure ("" if it has one). */
static void
explain(const double *r, bool ran, char *buf, size_t size)
{
   buf[0] = '\0';
   if (!ran)
      return;
   if (isnan(r[R_FAIL]))
      snprintf(buf, size, "no result (the child crashed or was killed)");
   else if (r[R_FAIL] != FAIL_NONE && r[R_FAIL] < FAIL_COUNT && r[R_RESULT] != VK_SUCCESS)
      snprintf(buf, size, "%s (VkResult %d)", fail_names[(int)r[R_FAIL]], (int)r[R_RESULT]);
   else if (r[R_FAIL] != FAIL_NONE && r[R_FAIL] < FAIL_COUNT)
      snprintf(buf, size, "%s", fail_names[(int)r[R_FAIL]]);
}

/* Whether Shale's image of configuration `sh` matches lavapipe's `lvp`
 * (both must have one); the reason in buf when not. */
static bool
images_match(const double *sh, const double *lvp, char *buf, size_t size)
{
   double worst = 0.0;
   for (int c = 0; c < 3; c++)
      worst = fmax(worst, fabs(sh[R_MEAN_R + c] - lvp[R_MEAN_R + c]));
   double cov = fabs(sh[R_COVERED] - lvp[R_COVERED]);
   if (worst <= MEAN_TOLERANCE && cov <= COVERED_TOLERANCE)
      return true;
   snprintf(buf, size,
            "image differs from lavapipe's (mean RGB %.1f %.1f %.1f vs %.1f %.1f %.1f, "
            "covered %.3f vs %.3f)",
            sh[R_MEAN_R], sh[R_MEAN_G], sh[R_MEAN_B], lvp[R_MEAN_R], lvp[R_MEAN_G],
            lvp[R_MEAN_B], sh[R_COVERED], lvp[R_COVERED]);
   return false;
}

static double
fps(const double *r)
{
   return r[R_FAIL] == FAIL_NONE ? 1.0 / r[R_FRAME_S] : NAN;
}

static void
usage(void)
{
   fprintf(stderr, "usage: bench_render [--no-header] [--driver shale|lavapipe] [--scene a|b|c] "
                   "[--threads N] [--no-single] [--force]\n"
                   "(--threads: the 'all threads' count for both drivers, default every CPU;\n"
                   " --no-single: skip the 1-thread runs; --driver/--scene for profiling;\n"
                   " --force: run even where a format feature or sample count used is not reported)\n");
   exit(2);
}

int
main(int argc, char **argv)
{
   bench_setup();
   bool header = true, run_sh = true, run_lvp = true, single = true;
   int only = -1;
   unsigned all = 0;
   for (int i = 1; i < argc; i++) {
      if (!strcmp(argv[i], "--no-header")) {
         header = false;
      } else if (!strcmp(argv[i], "--force")) {
         force_formats = true;
      } else if (!strcmp(argv[i], "--no-single")) {
         single = false;
      } else if (!strcmp(argv[i], "--driver") && i + 1 < argc) {
         i++;
         run_sh = !strcmp(argv[i], "shale");
         run_lvp = !strcmp(argv[i], "lavapipe");
         if (!run_sh && !run_lvp)
            usage();
      } else if (!strcmp(argv[i], "--scene") && i + 1 < argc) {
         i++;
         if (strlen(argv[i]) != 1 || argv[i][0] < 'a' || argv[i][0] > 'c')
            usage();
         only = argv[i][0] - 'a';
      } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
         all = (unsigned)atoi(argv[++i]);
         if (all < 1 || all > 256)
            usage();
      } else {
         usage();
      }
   }
   long cpus = sysconf(_SC_NPROCESSORS_ONLN);
   unsigned all_n = all ? all : (unsigned)(cpus > 0 ? cpus : 1);

   static struct scene_result res[SCENE_COUNT];
   bool ok = true;
   for (int sc = 0; sc < SCENE_COUNT; sc++) {
      if (only >= 0 && sc != only)
         continue;
      for (int cfg = 0; cfg < CFG_COUNT; cfg++) {
         bool shale = cfg == CFG_SHALE_ALL || cfg == CFG_SHALE_ONE;
         bool one = cfg == CFG_SHALE_ONE || cfg == CFG_LVP_ONE;
         for (int k = 0; k < R_COUNT; k++)
            res[sc].r[cfg][k] = NAN;
         if ((shale && !run_sh) || (!shale && !run_lvp) || (one && !single))
            continue;
         struct job job = { sc, shale ? VKT_SHALE : VKT_LAVAPIPE, one ? 1 : all };
         res[sc].ran[cfg] = true;
         bool good = bench_in_child(run_scene, &job, res[sc].r[cfg], R_COUNT);
         /* A Shale failure is reported in the table; lavapipe's is the harness's. */
         if (!good && !shale)
            ok = false;
      }
   }

   /* The host's own scaling over the same thread counts. */
   double fma1 = bench_host_fma_gflops(1), fma_all = bench_host_fma_gflops(all_n);
   double fill1 = bench_host_fill_gbs(1), fill_all = bench_host_fill_gbs(all_n);
   printf("# host C loops now: %s FMA %.0f GFLOP/s at 1 thread, %.0f at %u (x%.2f); "
          "memset 64 MiB %.1f GB/s at 1 thread, %.1f at %u (x%.2f)\n",
          bench_host_fma_isa(), fma1, fma_all, all_n, fma_all / fma1, fill1, fill_all, all_n, fill_all / fill1);

   if (header)
      bench_print_header();
   for (int sc = 0; sc < SCENE_COUNT; sc++) {
      if (only >= 0 && sc != only)
         continue;
      const struct scene_info *s = &scenes[sc];
      struct scene_result *sr = &res[sc];
      double f[CFG_COUNT];
      char why[CFG_COUNT][256];
      for (int cfg = 0; cfg < CFG_COUNT; cfg++) {
         f[cfg] = fps(sr->r[cfg]);
         explain(sr->r[cfg], sr->ran[cfg], why[cfg], sizeof(why[cfg]));
      }
      /* Shale's figure stands only if its picture is lavapipe's. */
      for (int cfg = CFG_SHALE_ALL; cfg <= CFG_SHALE_ONE; cfg += 2) {
         int ref = cfg + 1;
         if (!isnan(f[cfg]) && !isnan(f[ref]) &&
             !images_match(sr->r[cfg], sr->r[ref], why[cfg], sizeof(why[cfg])))
            f[cfg] = NAN;
      }
      char name[160], target[320];
      /* All threads, with the target. */
      char label[32];
      if (all)
         snprintf(label, sizeof(label), "%u thread%s", all, all == 1 ? "" : "s");
      else
         snprintf(label, sizeof(label), "all threads (%u)", all_n);
      snprintf(name, sizeof(name), "%s, %s", s->name, label);
      if (why[CFG_SHALE_ALL][0])
         snprintf(target, sizeof(target), ">= %.1fx lavapipe: n/a: Shale: %s", s->target,
                  why[CFG_SHALE_ALL]);
      else if (why[CFG_LVP_ALL][0])
         snprintf(target, sizeof(target), ">= %.1fx lavapipe: n/a: lavapipe: %s", s->target,
                  why[CFG_LVP_ALL]);
      else
         snprintf(target, sizeof(target), ">= %.1fx lavapipe: %s", s->target,
                  isnan(f[CFG_SHALE_ALL] / f[CFG_LVP_ALL]) ? "n/a"
                  : f[CFG_SHALE_ALL] / f[CFG_LVP_ALL] >= s->target ? "MET" : "NOT MET");
      if (sr->r[CFG_SHALE_ALL][R_FORCED] == 1.0)
         strncat(target, " (Shale does not report a format feature or sample count used: ran with --force)",
                 sizeof(target) - strlen(target) - 1);
      bench_print_row(name, "frames/s", f[CFG_SHALE_ALL], f[CFG_LVP_ALL], false, 0.0, NULL,
                      target);
      snprintf(name, sizeof(name), "%s, CPU time a frame, %s", s->name, label);
      bench_print_row(name, "CPU ms", isnan(f[CFG_SHALE_ALL]) ? NAN : 1e3 * sr->r[CFG_SHALE_ALL][R_CPU_S],
                      isnan(f[CFG_LVP_ALL]) ? NAN : 1e3 * sr->r[CFG_LVP_ALL][R_CPU_S], true, 0.0,
                      NULL, NULL);
      if (!single)
         continue;
      snprintf(name, sizeof(name), "%s, 1 thread", s->name);
      if (why[CFG_SHALE_ONE][0])
         snprintf(target, sizeof(target), "n/a: Shale: %s", why[CFG_SHALE_ONE]);
      else if (sr->r[CFG_SHALE_ONE][R_FORCED] == 1.0)
         snprintf(target, sizeof(target), "Shale ran with --force (format feature or sample count not reported)");
      else
         snprintf(target, sizeof(target), "-");
      bench_print_row(name, "frames/s", f[CFG_SHALE_ONE], f[CFG_LVP_ONE], false, 0.0, NULL,
                      target);
      snprintf(name, sizeof(name), "%s, thread scaling (%u threads / 1)", s->name, all_n);
      char limit[64];
      snprintf(limit, sizeof(limit), "%u threads (host FMA x%.2f)", all_n, fma_all / fma1);
      bench_print_row(name, "x", f[CFG_SHALE_ALL] / f[CFG_SHALE_ONE],
                      f[CFG_LVP_ALL] / f[CFG_LVP_ONE], false, (double)all_n, limit, NULL);
   }
   if (!ok)
      fprintf(stderr, "bench_render: lavapipe failed a scene\n");
   return ok ? 0 : 1;
}
