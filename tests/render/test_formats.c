/* Attachment format features: every claimed format drawn into, against clears of the same values and lavapipe. */
/*
 * For every format Shale reports COLOR_ATTACHMENT on, a full-screen
 * triangle writes a constant (float, uint or int per the format's class)
 * over a cleared attachment; the bytes must equal those of
 * vkCmdClearColorImage with the same value (the spec converts both the
 * same way). On COLOR_ATTACHMENT_BLEND formats, blending with factors
 * ZERO / ONE must keep the cleared bytes, ONE / ZERO must give the drawn
 * ones, and SRC_ALPHA / ONE_MINUS_SRC_ALPHA on the common formats must match
 * lavapipe within one unit of the last place. For every
 * DEPTH_STENCIL_ATTACHMENT format, a draw at z = 0.375 with LESS and
 * stencil REPLACE must leave the bytes of vkCmdClearDepthStencilImage
 * (0.375, 0x5a). The Vulkan 1.0 mandatory attachment formats must be among
 * the claimed ones.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "ref_format.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "const_int_frag_spv.h"
#include "const_uint_frag_spv.h"
#include "fullscreen_vert_spv.h"

#define CHECK_VK(x) CHECK((x) == VK_SUCCESS, "%s", #x)
#define SIZE 16

enum kind { KIND_FLOAT, KIND_UINT, KIND_SINT };

static enum kind
format_kind(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_R8_UINT: case VK_FORMAT_R8G8_UINT: case VK_FORMAT_R8G8B8_UINT:
   case VK_FORMAT_B8G8R8_UINT: case VK_FORMAT_R8G8B8A8_UINT: case VK_FORMAT_B8G8R8A8_UINT:
   case VK_FORMAT_A8B8G8R8_UINT_PACK32: case VK_FORMAT_A2R10G10B10_UINT_PACK32:
   case VK_FORMAT_A2B10G10R10_UINT_PACK32: case VK_FORMAT_R16_UINT: case VK_FORMAT_R16G16_UINT:
   case VK_FORMAT_R16G16B16_UINT: case VK_FORMAT_R16G16B16A16_UINT: case VK_FORMAT_R32_UINT:
   case VK_FORMAT_R32G32_UINT: case VK_FORMAT_R32G32B32_UINT: case VK_FORMAT_R32G32B32A32_UINT:
      return KIND_UINT;
   case VK_FORMAT_R8_SINT: case VK_FORMAT_R8G8_SINT: case VK_FORMAT_R8G8B8_SINT:
   case VK_FORMAT_B8G8R8_SINT: case VK_FORMAT_R8G8B8A8_SINT: case VK_FORMAT_B8G8R8A8_SINT:
   case VK_FORMAT_A8B8G8R8_SINT_PACK32: case VK_FORMAT_A2R10G10B10_SINT_PACK32:
   case VK_FORMAT_A2B10G10R10_SINT_PACK32: case VK_FORMAT_R16_SINT: case VK_FORMAT_R16G16_SINT:
   case VK_FORMAT_R16G16B16_SINT: case VK_FORMAT_R16G16B16A16_SINT: case VK_FORMAT_R32_SINT:
   case VK_FORMAT_R32G32_SINT: case VK_FORMAT_R32G32B32_SINT: case VK_FORMAT_R32G32B32A32_SINT:
      return KIND_SINT;
   default:
      return KIND_FLOAT;
   }
}

static VkClearColorValue
color_value(enum kind k, int which)
{
   VkClearColorValue v;
   if (k == KIND_FLOAT) {
      static const float a[2][4] = { { 0.3f, 0.6f, 0.123f, 0.5f }, { 0.9f, -0.25f, 0.55f, 1.0f } };
      memcpy(v.float32, a[which], sizeof(v.float32));
   } else if (k == KIND_UINT) {
      static const uint32_t a[2][4] = { { 5, 6, 7, 1 }, { 2, 3, 4, 0 } };
      memcpy(v.uint32, a[which], sizeof(v.uint32));
   } else {
      static const int32_t a[2][4] = { { -3, 6, -7, 1 }, { 2, -2, 3, -1 } };
      memcpy(v.int32, a[which], sizeof(v.int32));
   }
   return v;
}

/* The bytes vkCmdClearColorImage / vkCmdClearDepthStencilImage leave. */
static bool
clear_reference(struct vkt *t, VkFormat format, const VkClearValue *value, bool depth,
                uint8_t *out, size_t bytes, size_t stencil_bytes)
{
   /* S8_UINT: the stencil aspect alone (bytes 0). */
   const bool has_depth = depth && format != VK_FORMAT_S8_UINT;
   VkImageAspectFlags aspects = depth ? (has_depth ? VK_IMAGE_ASPECT_DEPTH_BIT : 0) |
                                           (draw_has_stencil(format) ? VK_IMAGE_ASPECT_STENCIL_BIT : 0)
                                      : VK_IMAGE_ASPECT_COLOR_BIT;
   VkImageCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = format,
      .extent = { SIZE, SIZE, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
   struct vkt_image img;
   struct vkt_buffer buf;
   if (vkt_image_create(t, &ici, &img) != VK_SUCCESS)
      return false;
   CHECK_VK(vkt_buffer_create(t, bytes + stencil_bytes + 16, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              &buf));
   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, img.image, aspects, VK_IMAGE_LAYOUT_UNDEFINED,
                     VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL);
   VkImageSubresourceRange range = { aspects, 0, 1, 0, 1 };
   if (depth)
      vkCmdClearDepthStencilImage(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                                  &value->depthStencil, 1, &range);
   else
      vkCmdClearColorImage(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &value->color, 1,
                           &range);
   vkt_image_barrier(cb, img.image, aspects, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   VkBufferImageCopy region = {
      .imageSubresource = { depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 },
      .imageExtent = { SIZE, SIZE, 1 },
   };
   if (!depth || has_depth)
      vkCmdCopyImageToBuffer(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf.buffer, 1,
                             &region);
   if (stencil_bytes) {
      region.bufferOffset = bytes;
      region.imageSubresource.aspectMask = VK_IMAGE_ASPECT_STENCIL_BIT;
      vkCmdCopyImageToBuffer(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf.buffer, 1,
                             &region);
   }
   VkMemoryBarrier mb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL, VK_ACCESS_TRANSFER_WRITE_BIT,
                          VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb,
                        0, NULL, 0, NULL);
   bool ok = vkt_submit_wait(t, cb) == VK_SUCCESS;
   memcpy(out, buf.map, bytes + stencil_bytes);
   vkt_buffer_destroy(t, &buf);
   vkt_image_destroy(t, &img);
   return ok;
}

/* Draws the constant `draw` over a target cleared to `clear`, with the
 * given blend state (NULL: none), into out (the target's colour bytes). */
static bool
draw_color(struct vkt *t, VkFormat format, enum kind k, const VkClearColorValue *clear,
           const VkClearColorValue *draw, const VkPipelineColorBlendAttachmentState *blend,
           uint8_t *out)
{
   struct draw_target dt = {
      .color_format = format, .width = SIZE, .height = SIZE, .clear_color = *clear,
   };
   if (draw_target_create(t, &dt) != VK_SUCCESS) {
      draw_target_destroy(t, &dt);
      return false;
   }
   const uint32_t *fs = k == KIND_FLOAT ? const_float_frag_spv
                        : k == KIND_UINT ? const_uint_frag_spv : const_int_frag_spv;
   size_t fs_size = k == KIND_FLOAT ? sizeof(const_float_frag_spv)
                    : k == KIND_UINT ? sizeof(const_uint_frag_spv) : sizeof(const_int_frag_spv);
   struct draw_pipeline_info pi = {
      .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
      .fs = fs, .fs_size = fs_size,
      .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
      .polygon_mode = VK_POLYGON_MODE_FILL,
      .blend = blend,
      .push_size = 20,
   };
   struct draw_pipeline p;
   bool ok = draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
   if (ok) {
      VkCommandBuffer cb = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
      uint8_t push[20];
      memcpy(push, draw, 16);
      float z = 0.5f;
      memcpy(push + 16, &z, 4);
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT,
                         0, 20, push);
      vkCmdDraw(cb, 3, 1, 0, 0);
      ok = draw_end(t, &dt, cb) == VK_SUCCESS;
      memcpy(out, dt.readback.map, (size_t)SIZE * SIZE * dt.color_texel);
   }
   draw_pipeline_destroy(t, &p);
   draw_target_destroy(t, &dt);
   return ok;
}

static const VkFormat mandatory_color[] = {
   VK_FORMAT_R5G6B5_UNORM_PACK16, VK_FORMAT_A1R5G5B5_UNORM_PACK16, VK_FORMAT_R8_UNORM,
   VK_FORMAT_R8_UINT, VK_FORMAT_R8_SINT, VK_FORMAT_R8G8_UNORM, VK_FORMAT_R8G8_UINT,
   VK_FORMAT_R8G8_SINT, VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_R8G8B8A8_UINT, VK_FORMAT_R8G8B8A8_SINT,
   VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_B8G8R8A8_SRGB,
   VK_FORMAT_A8B8G8R8_UNORM_PACK32, VK_FORMAT_A8B8G8R8_UINT_PACK32, VK_FORMAT_A8B8G8R8_SINT_PACK32,
   VK_FORMAT_A8B8G8R8_SRGB_PACK32, VK_FORMAT_A2B10G10R10_UNORM_PACK32,
   VK_FORMAT_A2B10G10R10_UINT_PACK32, VK_FORMAT_R16_UINT, VK_FORMAT_R16_SINT,
   VK_FORMAT_R16_SFLOAT, VK_FORMAT_R16G16_UINT, VK_FORMAT_R16G16_SINT, VK_FORMAT_R16G16_SFLOAT,
   VK_FORMAT_R16G16B16A16_UINT, VK_FORMAT_R16G16B16A16_SINT, VK_FORMAT_R16G16B16A16_SFLOAT,
   VK_FORMAT_R32_UINT, VK_FORMAT_R32_SINT, VK_FORMAT_R32_SFLOAT, VK_FORMAT_R32G32_UINT,
   VK_FORMAT_R32G32_SINT, VK_FORMAT_R32G32_SFLOAT, VK_FORMAT_R32G32B32A32_UINT,
   VK_FORMAT_R32G32B32A32_SINT, VK_FORMAT_R32G32B32A32_SFLOAT,
};

/* Blending against lavapipe on common formats: one unit of the last place
 * of 8-bit channels, 1e-3 relative for float ones. */
static void
blend_vs_lavapipe(struct vkt *t)
{
   struct vkt lvp;
   if (!vkt_init(&lvp, &(struct vkt_options) { .driver = VKT_LAVAPIPE })) {
      printf("lavapipe not available: blend comparison skipped\n");
      return;
   }
   static const VkFormat formats[] = { VK_FORMAT_R8G8B8A8_UNORM, VK_FORMAT_B8G8R8A8_UNORM,
                                       VK_FORMAT_R8G8B8A8_SRGB, VK_FORMAT_R32G32B32A32_SFLOAT };
   VkPipelineColorBlendAttachmentState blend = {
      .blendEnable = VK_TRUE,
      .srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA,
      .dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .colorBlendOp = VK_BLEND_OP_ADD,
      .srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
      .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA,
      .alphaBlendOp = VK_BLEND_OP_ADD,
      .colorWriteMask = 0xf,
   };
   for (unsigned i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
      VkClearColorValue c0 = color_value(KIND_FLOAT, 0), c1 = color_value(KIND_FLOAT, 1);
      c1.float32[1] = 0.25f;
      c1.float32[3] = 0.375f;
      uint32_t ts = ref_color_texel_size(formats[i]);
      uint8_t *a = malloc((size_t)SIZE * SIZE * ts), *b = malloc((size_t)SIZE * SIZE * ts);
      bool ok = draw_color(t, formats[i], KIND_FLOAT, &c0, &c1, &blend, a) &&
                draw_color(&lvp, formats[i], KIND_FLOAT, &c0, &c1, &blend, b);
      CHECK(ok, "blend draws of format %d", formats[i]);
      unsigned bad = 0;
      if (ts == 4) {
         for (size_t j = 0; ok && j < (size_t)SIZE * SIZE * 4; j++)
            bad += abs((int)a[j] - (int)b[j]) > 1;
      } else {
         for (size_t j = 0; ok && j < (size_t)SIZE * SIZE * 4; j++) {
            float x = ((float *)a)[j], y = ((float *)b)[j];
            bad += fabsf(x - y) > 1e-3f * fmaxf(1.0f, fabsf(y));
         }
      }
      CHECK(bad == 0, "format %d: %u blended values differ from lavapipe", formats[i], bad);
      free(a);
      free(b);
   }
   vkt_finish(&lvp);
}

static void
test_color_formats(struct vkt *t)
{
   unsigned claimed = 0;
   bool mandatory_ok = true;
   for (unsigned i = 0; i < sizeof(mandatory_color) / sizeof(mandatory_color[0]); i++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, mandatory_color[i], &fp);
      if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT)) {
         fprintf(stderr, "mandatory colour attachment format %d not claimed\n", mandatory_color[i]);
         mandatory_ok = false;
      }
   }
   CHECK(mandatory_ok, "every mandatory colour attachment format is claimed");

   for (VkFormat f = 1; f <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK; f++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, f, &fp);
      if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT))
         continue;
      claimed++;
      enum kind k = format_kind(f);
      uint32_t ts = ref_color_texel_size(f);
      size_t bytes = (size_t)SIZE * SIZE * ts;
      uint8_t *got = malloc(bytes), *want = malloc(bytes);
      VkClearColorValue c0 = color_value(k, 0), c1 = color_value(k, 1);
      VkClearValue v1 = { .color = c1 }, v0 = { .color = c0 };
      bool ok = draw_color(t, f, k, &c0, &c1, NULL, got) &&
                clear_reference(t, f, &v1, false, want, bytes, 0);
      CHECK(ok, "format %d drawn", f);
      CHECK(!ok || memcmp(got, want, bytes) == 0, "format %d: drawn bytes equal cleared ones", f);
      if (ok && (fp.optimalTilingFeatures & VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT)) {
         VkPipelineColorBlendAttachmentState keep = {
            .blendEnable = VK_TRUE,
            .srcColorBlendFactor = VK_BLEND_FACTOR_ZERO, .dstColorBlendFactor = VK_BLEND_FACTOR_ONE,
            .colorBlendOp = VK_BLEND_OP_ADD,
            .srcAlphaBlendFactor = VK_BLEND_FACTOR_ZERO, .dstAlphaBlendFactor = VK_BLEND_FACTOR_ONE,
            .alphaBlendOp = VK_BLEND_OP_ADD, .colorWriteMask = 0xf,
         };
         VkPipelineColorBlendAttachmentState replace = keep;
         replace.srcColorBlendFactor = replace.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
         replace.dstColorBlendFactor = replace.dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
         ok = draw_color(t, f, k, &c0, &c1, &keep, got) &&
              clear_reference(t, f, &v0, false, want, bytes, 0);
         CHECK(ok && memcmp(got, want, bytes) == 0, "format %d: blend ZERO/ONE keeps the clear", f);
         ok = draw_color(t, f, k, &c0, &c1, &replace, got) &&
              clear_reference(t, f, &v1, false, want, bytes, 0);
         CHECK(ok && memcmp(got, want, bytes) == 0, "format %d: blend ONE/ZERO writes the value",
               f);
      }
      free(got);
      free(want);
   }
   printf("%u colour attachment formats drawn\n", claimed);
}

static void
test_depth_formats(struct vkt *t)
{
   static const VkFormat mandatory[] = { VK_FORMAT_D16_UNORM };
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(t->pdev, mandatory[0], &fp);
   CHECK(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT,
         "D16_UNORM is a depth attachment format");
   static const VkFormat all[] = {
      VK_FORMAT_D16_UNORM, VK_FORMAT_X8_D24_UNORM_PACK32, VK_FORMAT_D32_SFLOAT,
      VK_FORMAT_S8_UINT, VK_FORMAT_D16_UNORM_S8_UINT, VK_FORMAT_D24_UNORM_S8_UINT,
      VK_FORMAT_D32_SFLOAT_S8_UINT,
   };
   for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
      VkFormat f = all[i];
      vkGetPhysicalDeviceFormatProperties(t->pdev, f, &fp);
      if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT))
         continue;
      struct draw_target dt = {
         .color_format = VK_FORMAT_UNDEFINED, .depth_format = f, .width = SIZE, .height = SIZE,
         .clear_depth = 1.0f, .clear_stencil = 0,
      };
      CHECK_VK(draw_target_create(t, &dt));
      bool stencil = draw_has_stencil(f);
      VkStencilOpState so = {
         .failOp = VK_STENCIL_OP_KEEP, .passOp = VK_STENCIL_OP_REPLACE,
         .depthFailOp = VK_STENCIL_OP_KEEP, .compareOp = VK_COMPARE_OP_ALWAYS,
         .compareMask = 0xff, .writeMask = 0xff, .reference = 0x5a,
      };
      VkPipelineDepthStencilStateCreateInfo ds = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
         .depthTestEnable = f != VK_FORMAT_S8_UINT, .depthWriteEnable = f != VK_FORMAT_S8_UINT,
         .depthCompareOp = VK_COMPARE_OP_LESS,
         .stencilTestEnable = stencil, .front = so, .back = so,
      };
      struct draw_pipeline_info pi = {
         .vs = fullscreen_vert_spv, .vs_size = sizeof(fullscreen_vert_spv),
         .topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
         .polygon_mode = VK_POLYGON_MODE_FILL,
         .depth_stencil = &ds,
         .push_size = 20,
      };
      struct draw_pipeline p;
      bool ok = draw_pipeline_create(t, &dt, &pi, &p) == VK_SUCCESS;
      size_t bytes = (size_t)SIZE * SIZE * dt.depth_texel, sbytes = stencil ? SIZE * SIZE : 0;
      uint8_t *want = malloc(bytes + sbytes);
      if (ok) {
         VkCommandBuffer cb = draw_begin(t, &dt, &p, VK_NULL_HANDLE);
         uint8_t push[20] = { 0 };
         float z = 0.375f;
         memcpy(push + 16, &z, 4);
         vkCmdPushConstants(cb, p.layout,
                            VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 20, push);
         vkCmdDraw(cb, 3, 1, 0, 0);
         ok = draw_end(t, &dt, cb) == VK_SUCCESS;
         VkClearValue v = { .depthStencil = { 0.375f, 0x5a } };
         ok = ok && clear_reference(t, f, &v, true, want, bytes, sbytes);
      }
      CHECK(ok, "depth format %d drawn", f);
      CHECK(!ok || memcmp(dt.readback.map, want, bytes + sbytes) == 0,
            "depth format %d: drawn depth/stencil equal the cleared ones", f);
      free(want);
      draw_pipeline_destroy(t, &p);
      draw_target_destroy(t, &dt);
   }
}

int
main(void)
{
   struct vkt t;
   if (!draw_open_shale(&t))
      return check_finish();
   test_color_formats(&t);
   test_depth_formats(&t);
   blend_vs_lavapipe(&t);
   return draw_close_shale(&t);
}
