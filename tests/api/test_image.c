/* Images, image views and samplers through the loader: creation of every
 * claimed format in every image type, memory requirements against an
 * independent size model, image-format-properties answers against what
 * creation accepts, linear subresource layouts written through the mapping
 * and read back with a copy, views and samplers (and their allocators). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "ref_format.h"
#include "vkt.h"

/* Smallest bytes per texel (or block) a format can take: colour formats'
 * texel size, the sum of the aspects' sizes for depth/stencil formats. Written
 * from the spec's format definitions, independently of Shale's tables. 0 for
 * compressed and unknown formats. */
static uint32_t
texel_size(VkFormat f)
{
   switch (f) {
   case VK_FORMAT_S8_UINT:
      return 1;
   case VK_FORMAT_D16_UNORM:
      return 2;
   case VK_FORMAT_D16_UNORM_S8_UINT:
      return 3;
   case VK_FORMAT_X8_D24_UNORM_PACK32:
   case VK_FORMAT_D32_SFLOAT:
   case VK_FORMAT_D24_UNORM_S8_UINT:
      return 4;
   case VK_FORMAT_D32_SFLOAT_S8_UINT:
      return 5;
   default:
      return ref_color_texel_size(f);
   }
}

static uint32_t
minify(uint32_t v, uint32_t level)
{
   v >>= level;
   return v ? v : 1;
}

static uint32_t
full_mips(uint32_t w, uint32_t h, uint32_t d)
{
   uint32_t m = w > h ? w : h;
   m = m > d ? m : d;
   uint32_t n = 0;
   while (m) {
      n++;
      m >>= 1;
   }
   return n;
}

/* Lower bound of an image's memory: every texel of every subresource. */
static uint64_t
min_image_size(const VkImageCreateInfo *ci)
{
   uint64_t total = 0;
   for (uint32_t l = 0; l < ci->mipLevels; l++)
      total += (uint64_t)minify(ci->extent.width, l) * minify(ci->extent.height, l) *
               minify(ci->extent.depth, l) * ci->arrayLayers * texel_size(ci->format);
   return total;
}

/* Host allocations made through application callbacks, counted. */
struct counter {
   int live;
   int total;
};

static void *VKAPI_CALL
cnt_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct counter *c = user;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
      return NULL;
   c->live++;
   c->total++;
   return p;
}

static void *VKAPI_CALL
cnt_realloc(void *user, void *old, size_t size, size_t align, VkSystemAllocationScope scope)
{
   /* Not expected for objects this test creates; behave correctly anyway. */
   struct counter *c = user;
   if (!old)
      return cnt_alloc(user, size, align, scope);
   if (!size) {
      free(old);
      c->live--;
      return NULL;
   }
   void *p = cnt_alloc(user, size, align, scope);
   if (p) {
      memcpy(p, old, size);   /* objects are larger than what they shrink to */
      free(old);
      c->live--;
   }
   return p;
}

static void VKAPI_CALL
cnt_free(void *user, void *p)
{
   struct counter *c = user;
   if (p) {
      free(p);
      c->live--;
   }
}

static VkAllocationCallbacks
counting_allocator(struct counter *c)
{
   return (VkAllocationCallbacks) {
      .pUserData = c,
      .pfnAllocation = cnt_alloc,
      .pfnReallocation = cnt_realloc,
      .pfnFree = cnt_free,
   };
}

/* ---- format properties vs creation ---- */

struct usage_feature {
   VkImageUsageFlags usage;
   VkFormatFeatureFlags feature;
};

static const struct usage_feature usage_features[] = {
   { VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_FORMAT_FEATURE_TRANSFER_SRC_BIT },
   { VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_FORMAT_FEATURE_TRANSFER_DST_BIT },
   { VK_IMAGE_USAGE_SAMPLED_BIT, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT },
   { VK_IMAGE_USAGE_STORAGE_BIT, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT },
   { VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT },
   { VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT, VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT },
};

#define TRANSFER_USAGE (VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT)

static const VkImageTiling tilings[] = { VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_TILING_LINEAR };

/* Creates, checks the requirements of, binds and destroys one image. */
static bool
create_and_check(struct vkt *t, const VkImageCreateInfo *ci, const char *what)
{
   VkImage img;
   VkResult r = vkCreateImage(t->device, ci, NULL, &img);
   CHECK(r == VK_SUCCESS, "%s: format %d type %d tiling %d %ux%ux%u mips %u layers %u: %d", what,
         ci->format, ci->imageType, ci->tiling, ci->extent.width, ci->extent.height,
         ci->extent.depth, ci->mipLevels, ci->arrayLayers, r);
   if (r != VK_SUCCESS)
      return false;
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(t->device, img, &req);
   CHECK(req.size >= min_image_size(ci), "%s: format %d size %llu < %llu", what, ci->format,
         (unsigned long long)req.size, (unsigned long long)min_image_size(ci));
   CHECK(req.alignment && !(req.alignment & (req.alignment - 1)), "alignment %llu",
         (unsigned long long)req.alignment);
   CHECK(req.memoryTypeBits != 0 &&
            vkt_memory_type(t, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) >= 0,
         "memoryTypeBits %#x", req.memoryTypeBits);

   /* The *2 form agrees, and dedicated allocations are not needed. */
   VkMemoryDedicatedRequirements ded = { .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS,
                                         .prefersDedicatedAllocation = VK_TRUE,
                                         .requiresDedicatedAllocation = VK_TRUE };
   VkMemoryRequirements2 req2 = { .sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, .pNext = &ded };
   VkImageMemoryRequirementsInfo2 info2 = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2,
      .image = img,
   };
   PFN_vkGetImageMemoryRequirements2KHR get2 = (PFN_vkGetImageMemoryRequirements2KHR)
      vkGetDeviceProcAddr(t->device, "vkGetImageMemoryRequirements2KHR");
   if (get2) {
      get2(t->device, &info2, &req2);
      CHECK(req2.memoryRequirements.size == req.size &&
               req2.memoryRequirements.alignment == req.alignment &&
               req2.memoryRequirements.memoryTypeBits == req.memoryTypeBits,
            "requirements2 differ");
      CHECK(!ded.prefersDedicatedAllocation && !ded.requiresDedicatedAllocation, "dedicated");
   }

   uint32_t sparse = 7;
   vkGetImageSparseMemoryRequirements(t->device, img, &sparse, NULL);
   CHECK_EQ_INT(sparse, 0);

   /* Bind at a non-zero offset honouring the alignment. */
   VkDeviceSize offset = req.alignment * 3;
   VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = offset + req.size,
      .memoryTypeIndex = (uint32_t)vkt_memory_type(t, req.memoryTypeBits, 0),
   };
   VkDeviceMemory mem;
   r = vkAllocateMemory(t->device, &mai, NULL, &mem);
   CHECK(r == VK_SUCCESS, "allocate %d", r);
   if (r == VK_SUCCESS) {
      CHECK_EQ_INT(vkBindImageMemory(t->device, img, mem, offset), VK_SUCCESS);
   }
   vkDestroyImage(t->device, img, NULL);
   if (r == VK_SUCCESS)
      vkFreeMemory(t->device, mem, NULL);
   return true;
}

/* Every format: the query's answer is consistent with the format features
 * and the limits, and creation succeeds across image types, tilings, flags,
 * mip chains and layer counts wherever the query says so. */
static void
test_formats(struct vkt *t)
{
   const VkPhysicalDeviceLimits *lim = &t->props.limits;
   unsigned claimed = 0, created = 0;
   for (int fi = VK_FORMAT_R4G4_UNORM_PACK8; fi <= VK_FORMAT_ASTC_12x12_SRGB_BLOCK; fi++) {
      const VkFormat f = (VkFormat)fi;
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(t->pdev, f, &fp);
      /* Identical layouts: linear tiling has the same features. */
      CHECK(fp.linearTilingFeatures == fp.optimalTilingFeatures,
            "format %d: linear %#x optimal %#x", f, fp.linearTilingFeatures,
            fp.optimalTilingFeatures);
      const bool is_claimed = fp.optimalTilingFeatures != 0;
      if (is_claimed) {
         claimed++;
         CHECK(texel_size(f) != 0, "format %d claimed but compressed or unknown", f);
      }

      for (unsigned ti = 0; ti < 2; ti++) {
         const VkFormatFeatureFlags feats =
            ti == 0 ? fp.optimalTilingFeatures : fp.linearTilingFeatures;
         for (int type = VK_IMAGE_TYPE_1D; type <= VK_IMAGE_TYPE_3D; type++) {
            /* Each usage alone: supported iff the format has its feature. */
            for (unsigned u = 0; u < sizeof(usage_features) / sizeof(usage_features[0]); u++) {
               VkImageFormatProperties p;
               VkResult r = vkGetPhysicalDeviceImageFormatProperties(
                  t->pdev, f, (VkImageType)type, tilings[ti], usage_features[u].usage, 0, &p);
               const bool has = (feats & usage_features[u].feature) != 0;
               CHECK((r == VK_SUCCESS) == has,
                     "format %d type %d tiling %d usage %#x: %d (feature %d)", f, type,
                     tilings[ti], usage_features[u].usage, r, has);
            }
            VkImageFormatProperties p;
            VkResult r = vkGetPhysicalDeviceImageFormatProperties(
               t->pdev, f, (VkImageType)type, tilings[ti], TRANSFER_USAGE, 0, &p);
            if (!is_claimed) {
               CHECK(r == VK_ERROR_FORMAT_NOT_SUPPORTED, "unclaimed format %d: %d", f, r);
               continue;
            }
            CHECK(r == VK_SUCCESS, "format %d type %d tiling %d: %d", f, type, tilings[ti], r);
            if (r != VK_SUCCESS)
               continue;
            /* The limits, exactly (sd_format.h: linear == optimal). */
            const uint32_t d1 = lim->maxImageDimension1D, d2 = lim->maxImageDimension2D,
                           d3 = lim->maxImageDimension3D;
            VkExtent3D want = type == VK_IMAGE_TYPE_1D   ? (VkExtent3D) { d1, 1, 1 }
                              : type == VK_IMAGE_TYPE_2D ? (VkExtent3D) { d2, d2, 1 }
                                                         : (VkExtent3D) { d3, d3, d3 };
            CHECK(p.maxExtent.width == want.width && p.maxExtent.height == want.height &&
                     p.maxExtent.depth == want.depth,
                  "format %d type %d maxExtent %ux%ux%u", f, type, p.maxExtent.width,
                  p.maxExtent.height, p.maxExtent.depth);
            CHECK_EQ_INT(p.maxMipLevels,
                         full_mips(p.maxExtent.width, p.maxExtent.height, p.maxExtent.depth));
            CHECK_EQ_INT(p.maxArrayLayers,
                         type == VK_IMAGE_TYPE_3D ? 1 : lim->maxImageArrayLayers);
            CHECK(p.sampleCounts & VK_SAMPLE_COUNT_1_BIT, "sampleCounts %#x", p.sampleCounts);
            CHECK(p.maxResourceSize >= (1ull << 31), "maxResourceSize %llu",
                  (unsigned long long)p.maxResourceSize);

            /* The *2 query agrees. */
            VkPhysicalDeviceImageFormatInfo2 info2 = {
               .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
               .format = f,
               .type = (VkImageType)type,
               .tiling = tilings[ti],
               .usage = TRANSFER_USAGE,
            };
            VkImageFormatProperties2 p2 = { .sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2 };
            PFN_vkGetPhysicalDeviceImageFormatProperties2KHR q2 =
               (PFN_vkGetPhysicalDeviceImageFormatProperties2KHR)vkGetInstanceProcAddr(
                  t->instance, "vkGetPhysicalDeviceImageFormatProperties2KHR");
            if (q2) {
               CHECK_EQ_INT(q2(t->pdev, &info2, &p2), VK_SUCCESS);
               CHECK(memcmp(&p2.imageFormatProperties, &p, sizeof(p)) == 0, "*2 answer differs");
            }

            /* Creation: a mip chain and several layers of a small odd
             * extent, and with the flags the query accepts. */
            VkImageCreateInfo ci = {
               .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
               .imageType = (VkImageType)type,
               .format = f,
               .extent = type == VK_IMAGE_TYPE_1D   ? (VkExtent3D) { 37, 1, 1 }
                         : type == VK_IMAGE_TYPE_2D ? (VkExtent3D) { 33, 17, 1 }
                                                    : (VkExtent3D) { 9, 7, 5 },
               .arrayLayers = type == VK_IMAGE_TYPE_3D ? 1 : 3,
               .samples = VK_SAMPLE_COUNT_1_BIT,
               .tiling = tilings[ti],
               .usage = TRANSFER_USAGE,
               .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
            };
            ci.mipLevels = full_mips(ci.extent.width, ci.extent.height, ci.extent.depth);
            created += create_and_check(t, &ci, "mip chain");
            ci.mipLevels = 1;
            ci.arrayLayers = 1;
            created += create_and_check(t, &ci, "single");

            VkImageCreateFlags flag_list[] = { VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT,
                                               VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT };
            for (unsigned k = 0; k < 2; k++) {
               r = vkGetPhysicalDeviceImageFormatProperties(t->pdev, f, (VkImageType)type,
                                                            tilings[ti], TRANSFER_USAGE,
                                                            flag_list[k], &p);
               if (flag_list[k] == VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT) {
                  /* Cube compatibility is for 2D images only. */
                  CHECK((r == VK_SUCCESS) == (type == VK_IMAGE_TYPE_2D), "cube type %d: %d", type,
                        r);
                  if (r != VK_SUCCESS)
                     continue;
                  CHECK(p.maxExtent.width == lim->maxImageDimensionCube, "cube maxExtent");
                  /* A cube array with mips: two cubes. */
                  VkImageCreateInfo cc = ci;
                  cc.flags = flag_list[k];
                  cc.extent = (VkExtent3D) { 16, 16, 1 };
                  cc.mipLevels = 5;
                  cc.arrayLayers = 12;
                  created += create_and_check(t, &cc, "cube");
               } else {
                  CHECK(r == VK_SUCCESS, "mutable type %d: %d", type, r);
                  VkImageCreateInfo mc = ci;
                  mc.flags = flag_list[k];
                  created += create_and_check(t, &mc, "mutable");
               }
            }
         }
      }

      /* Flags and tilings nothing claims are refused. */
      VkImageFormatProperties p;
      CHECK(vkGetPhysicalDeviceImageFormatProperties(t->pdev, f, VK_IMAGE_TYPE_2D,
                                                     VK_IMAGE_TILING_OPTIMAL, TRANSFER_USAGE,
                                                     VK_IMAGE_CREATE_SPARSE_BINDING_BIT,
                                                     &p) == VK_ERROR_FORMAT_NOT_SUPPORTED,
            "sparse accepted for format %d", f);
   }
   CHECK(claimed >= 100, "only %u formats claimed", claimed);
   fprintf(stderr, "%u formats claimed, %u images created\n", claimed, created);
}

/* Creation at the limits the query reports (R8_UNORM, so the largest fits
 * maxResourceSize). No memory is bound: creation itself allocates none. */
static void
test_limits(struct vkt *t)
{
   for (int type = VK_IMAGE_TYPE_1D; type <= VK_IMAGE_TYPE_3D; type++) {
      VkImageFormatProperties p;
      VkResult r = vkGetPhysicalDeviceImageFormatProperties(t->pdev, VK_FORMAT_R8_UNORM,
                                                            (VkImageType)type,
                                                            VK_IMAGE_TILING_OPTIMAL,
                                                            TRANSFER_USAGE, 0, &p);
      CHECK_EQ_INT(r, VK_SUCCESS);
      if (r != VK_SUCCESS)
         continue;
      VkImageCreateInfo ci = {
         .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
         .imageType = (VkImageType)type,
         .format = VK_FORMAT_R8_UNORM,
         .extent = p.maxExtent,
         .mipLevels = p.maxMipLevels,
         .arrayLayers = 1,
         .samples = VK_SAMPLE_COUNT_1_BIT,
         .tiling = VK_IMAGE_TILING_OPTIMAL,
         .usage = TRANSFER_USAGE,
      };
      /* 3D at the full extent is 8 GiB: keep to what maxResourceSize allows. */
      if (type == VK_IMAGE_TYPE_3D)
         ci.extent.depth = 64;
      VkImage img;
      if (min_image_size(&ci) * 2 > p.maxResourceSize)
         continue;
      r = vkCreateImage(t->device, &ci, NULL, &img);
      CHECK(r == VK_SUCCESS, "max extent type %d: %d", type, r);
      if (r == VK_SUCCESS) {
         VkMemoryRequirements req;
         vkGetImageMemoryRequirements(t->device, img, &req);
         CHECK(req.size >= min_image_size(&ci), "max extent size");
         vkDestroyImage(t->device, img, NULL);
      }
      /* The maximum layer count, one level. */
      if (type != VK_IMAGE_TYPE_3D) {
         ci.extent = (VkExtent3D) { 4, type == VK_IMAGE_TYPE_2D ? 4 : 1, 1 };
         ci.mipLevels = 1;
         ci.arrayLayers = p.maxArrayLayers;
         r = vkCreateImage(t->device, &ci, NULL, &img);
         CHECK(r == VK_SUCCESS, "max layers type %d: %d", type, r);
         if (r == VK_SUCCESS)
            vkDestroyImage(t->device, img, NULL);
      }
   }
}

/* Without the validation layer: creation refuses what the query refuses
 * (invalid usage, but Shale reports it rather than building a broken image),
 * and honours pAllocator for images, views and samplers. Image views need a
 * usage (sampled, storage, attachment) Shale does not claim yet, so no valid
 * view exists: views are created here, outside validation, to test their
 * creation, VK_REMAINING_* resolution paths and destruction. */
static void
test_without_layer(void)
{
   struct vkt t;
   struct vkt_options o = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&t, &o)) {
      CHECK(0, "shale device (no layer)");
      return;
   }
   VkImageCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { 16, 16, 1 },
      .mipLevels = 5,
      .arrayLayers = 6,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = TRANSFER_USAGE,
      .flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT,
   };
   struct { const char *what; VkImageCreateInfo ci; } bad[8];
   unsigned nbad = 0;
   VkImageFormatProperties p;
#define BAD(w, field, value)                                                  \
   do {                                                                       \
      bad[nbad].what = w;                                                     \
      bad[nbad].ci = ci;                                                      \
      bad[nbad].ci.flags = 0;                                                 \
      bad[nbad].ci.field = value;                                             \
      nbad++;                                                                 \
   } while (0)
   BAD("compressed format", format, VK_FORMAT_BC1_RGB_UNORM_BLOCK);
   BAD("color attachment usage", usage, TRANSFER_USAGE | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
   bad[nbad - 1].ci.format = VK_FORMAT_R64_UINT;   /* copies only: no attachment feature */
   BAD("too many mips", mipLevels, 6);
   BAD("too wide", extent.width, t.props.limits.maxImageDimension2D + 1);
   BAD("4 samples", samples, VK_SAMPLE_COUNT_4_BIT);
   BAD("too many layers", arrayLayers, t.props.limits.maxImageArrayLayers + 1);
   BAD("sparse", flags, VK_IMAGE_CREATE_SPARSE_BINDING_BIT);
#undef BAD
   for (unsigned i = 0; i < nbad; i++) {
      VkImage img = VK_NULL_HANDLE;
      VkResult r = vkCreateImage(t.device, &bad[i].ci, NULL, &img);
      CHECK(r < 0, "%s: created (%d)", bad[i].what, r);
      if (r == VK_SUCCESS)
         vkDestroyImage(t.device, img, NULL);
   }
   /* Each refusal matches the query's. */
   CHECK(vkGetPhysicalDeviceImageFormatProperties(t.pdev, VK_FORMAT_BC1_RGB_UNORM_BLOCK,
                                                  VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                  TRANSFER_USAGE, 0, &p) < 0, "BC1 query");
   CHECK(vkGetPhysicalDeviceImageFormatProperties(t.pdev, VK_FORMAT_R64_UINT,
                                                  VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                  TRANSFER_USAGE | VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
                                                  0, &p) < 0, "color attachment query");

   /* Allocator use: image, views of every type, sampler. */
   struct counter c = { 0, 0 };
   VkAllocationCallbacks ac = counting_allocator(&c);
   VkImage img;
   VkResult r = vkCreateImage(t.device, &ci, &ac, &img);
   CHECK(r == VK_SUCCESS, "cube image: %d", r);
   CHECK(c.live >= 1, "image allocation bypassed pAllocator");
   VkImage img1d = VK_NULL_HANDLE, img3d = VK_NULL_HANDLE;
   VkImageCreateInfo c1 = ci;
   c1.flags = 0;
   c1.imageType = VK_IMAGE_TYPE_1D;
   c1.extent = (VkExtent3D) { 64, 1, 1 };
   c1.mipLevels = 7;
   c1.arrayLayers = 4;
   CHECK_EQ_INT(vkCreateImage(t.device, &c1, NULL, &img1d), VK_SUCCESS);
   VkImageCreateInfo c3 = c1;
   c3.imageType = VK_IMAGE_TYPE_3D;
   c3.extent = (VkExtent3D) { 8, 8, 8 };
   c3.mipLevels = 4;
   c3.arrayLayers = 1;
   CHECK_EQ_INT(vkCreateImage(t.device, &c3, NULL, &img3d), VK_SUCCESS);

   if (r == VK_SUCCESS) {
      VkMemoryRequirements req;
      vkGetImageMemoryRequirements(t.device, img, &req);
      VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                   .allocationSize = req.size, .memoryTypeIndex = 0 };
      VkDeviceMemory mem;
      CHECK_EQ_INT(vkAllocateMemory(t.device, &mai, NULL, &mem), VK_SUCCESS);
      /* vkBindImageMemory2 with an unknown struct chained: ignored. */
      VkBaseInStructure unknown = { .sType = (VkStructureType)1000999000 };
      VkBindImageMemoryInfo bind = { .sType = VK_STRUCTURE_TYPE_BIND_IMAGE_MEMORY_INFO,
                                     .pNext = &unknown, .image = img, .memory = mem };
      PFN_vkBindImageMemory2KHR bind2 =
         (PFN_vkBindImageMemory2KHR)vkGetDeviceProcAddr(t.device, "vkBindImageMemory2KHR");
      if (bind2)
         CHECK_EQ_INT(bind2(t.device, 1, &bind), VK_SUCCESS);
      else
         CHECK_EQ_INT(vkBindImageMemory(t.device, img, mem, 0), VK_SUCCESS);

#define C VK_IMAGE_ASPECT_COLOR_BIT
#define ALL_MIPS VK_REMAINING_MIP_LEVELS
#define ALL_LAYERS VK_REMAINING_ARRAY_LAYERS
      struct { VkImage image; VkImageViewType type; VkImageSubresourceRange range; } views[] = {
         { img, VK_IMAGE_VIEW_TYPE_2D, { C, 1, 1, 2, 1 } },
         { img, VK_IMAGE_VIEW_TYPE_2D_ARRAY, { C, 0, ALL_MIPS, 0, ALL_LAYERS } },
         { img, VK_IMAGE_VIEW_TYPE_CUBE, { C, 2, ALL_MIPS, 0, 6 } },
         { img, VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, { C, 0, 1, 0, ALL_LAYERS } },
         { img1d, VK_IMAGE_VIEW_TYPE_1D, { C, 3, ALL_MIPS, 3, 1 } },
         { img1d, VK_IMAGE_VIEW_TYPE_1D_ARRAY, { C, 0, ALL_MIPS, 1, ALL_LAYERS } },
         { img3d, VK_IMAGE_VIEW_TYPE_3D, { C, 0, ALL_MIPS, 0, 1 } },
      };
#undef C
#undef ALL_MIPS
#undef ALL_LAYERS
      for (unsigned i = 0; i < sizeof(views) / sizeof(views[0]); i++) {
         if (!views[i].image)
            continue;
         VkImageViewCreateInfo vci = {
            .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
            .image = views[i].image,
            .viewType = views[i].type,
            .format = VK_FORMAT_R8G8B8A8_UNORM,
            .components = { VK_COMPONENT_SWIZZLE_B, VK_COMPONENT_SWIZZLE_IDENTITY,
                            VK_COMPONENT_SWIZZLE_ONE, VK_COMPONENT_SWIZZLE_ZERO },
            .subresourceRange = views[i].range,
         };
         int before = c.live;
         VkImageView view;
         r = vkCreateImageView(t.device, &vci, &ac, &view);
         CHECK(r == VK_SUCCESS, "view %u: %d", i, r);
         if (r != VK_SUCCESS)
            continue;
         CHECK(c.live > before, "view %u allocation bypassed pAllocator", i);
         vkDestroyImageView(t.device, view, &ac);
         CHECK(c.live == before, "view %u leaked (%d live, %d before)", i, c.live, before);
      }
      vkDestroyImageView(t.device, VK_NULL_HANDLE, NULL);
      vkDestroyImage(t.device, img, &ac);
      vkFreeMemory(t.device, mem, NULL);
   }
   vkDestroyImage(t.device, img1d, NULL);
   vkDestroyImage(t.device, img3d, NULL);
   vkDestroyImage(t.device, VK_NULL_HANDLE, NULL);
   CHECK(c.live == 0, "%d allocations live after destroying everything", c.live);
   vkt_finish(&t);
}

/* Linear images: subresource layouts are consistent (inside the memory,
 * disjoint, pitches cover the texels), and texels written through the
 * mapping at those offsets come back through vkCmdCopyImageToBuffer. */
static void
test_linear_layout(struct vkt *t, VkFormat format, VkImageType type, VkExtent3D extent,
                   uint32_t mips, uint32_t layers)
{
   const uint32_t ts = texel_size(format);
   VkImageCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = type,
      .format = format,
      .extent = extent,
      .mipLevels = mips,
      .arrayLayers = layers,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_LINEAR,
      .usage = TRANSFER_USAGE,
      .initialLayout = VK_IMAGE_LAYOUT_PREINITIALIZED,
   };
   struct vkt_image img;
   VkResult r = vkt_image_create(t, &ci, &img);
   CHECK(r == VK_SUCCESS, "linear image format %d: %d", format, r);
   if (r != VK_SUCCESS)
      return;
   VkMemoryRequirements req;
   vkGetImageMemoryRequirements(t->device, img.image, &req);
   uint8_t *map;
   CHECK_EQ_INT(vkMapMemory(t->device, img.memory, 0, VK_WHOLE_SIZE, 0, (void **)&map), VK_SUCCESS);

   /* Subresources in (level, layer) order; the tight copy of all of them. */
   VkSubresourceLayout lay[64];
   uint64_t tight_off[64];
   uint64_t tight = 0;
   unsigned n = 0;
   for (uint32_t l = 0; l < mips; l++) {
      const uint32_t w = minify(extent.width, l), h = minify(extent.height, l),
                     d = minify(extent.depth, l);
      for (uint32_t a = 0; a < layers; a++, n++) {
         VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, l, a };
         vkGetImageSubresourceLayout(t->device, img.image, &sub, &lay[n]);
         const VkSubresourceLayout *s = &lay[n];
         CHECK(s->rowPitch >= (uint64_t)w * ts, "rowPitch %llu < %u",
               (unsigned long long)s->rowPitch, w * ts);
         if (d > 1)
            CHECK(s->depthPitch >= s->rowPitch * h, "depthPitch");
         if (layers > 1)
            CHECK(s->arrayPitch >= s->rowPitch * h * d, "arrayPitch");
         CHECK(s->size >= s->rowPitch * (h - 1) + (uint64_t)w * ts, "size");
         CHECK(s->offset + s->size <= req.size, "subresource %u past the memory", n);
         if (n > 0)
            CHECK(s->offset >= lay[n - 1].offset + lay[n - 1].size,
                  "subresource %u overlaps or precedes the previous one", n);
         tight_off[n] = tight;
         tight += (uint64_t)w * h * d * ts;
      }
   }

   /* A distinct byte pattern per subresource and texel. */
   n = 0;
   for (uint32_t l = 0; l < mips; l++) {
      const uint32_t w = minify(extent.width, l), h = minify(extent.height, l),
                     d = minify(extent.depth, l);
      for (uint32_t a = 0; a < layers; a++, n++)
         for (uint32_t z = 0; z < d; z++)
            for (uint32_t y = 0; y < h; y++)
               for (uint32_t x = 0; x < w * ts; x++)
                  map[lay[n].offset + z * lay[n].depthPitch + y * lay[n].rowPitch + x] =
                     (uint8_t)(x * 7 + y * 13 + z * 29 + a * 31 + l * 37 + 1);
   }

   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, tight, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf), VK_SUCCESS);
   memset(buf.map, 0xEE, tight);
   VkCommandBuffer cb = vkt_begin(t);
   vkt_image_barrier(cb, img.image, VK_IMAGE_ASPECT_COLOR_BIT, VK_IMAGE_LAYOUT_PREINITIALIZED,
                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
   n = 0;
   for (uint32_t l = 0; l < mips; l++) {
      VkBufferImageCopy region = {
         .bufferOffset = tight_off[n],
         .imageSubresource = { VK_IMAGE_ASPECT_COLOR_BIT, l, 0, layers },
         .imageExtent = { minify(extent.width, l), minify(extent.height, l),
                          minify(extent.depth, l) },
      };
      vkCmdCopyImageToBuffer(cb, img.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf.buffer, 1,
                             &region);
      n += layers;
   }
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);

   unsigned bad = 0;
   n = 0;
   const uint8_t *out = buf.map;
   for (uint32_t l = 0; l < mips; l++) {
      const uint32_t w = minify(extent.width, l), h = minify(extent.height, l),
                     d = minify(extent.depth, l);
      for (uint32_t a = 0; a < layers; a++, n++)
         for (uint32_t z = 0; z < d; z++)
            for (uint32_t y = 0; y < h; y++)
               for (uint32_t x = 0; x < w * ts; x++) {
                  const uint8_t want = (uint8_t)(x * 7 + y * 13 + z * 29 + a * 31 + l * 37 + 1);
                  const uint8_t got = out[tight_off[n] + ((uint64_t)z * h + y) * w * ts + x];
                  if (got != want && bad++ < 5)
                     CHECK(0, "format %d level %u layer %u (%u,%u,%u) byte: %#x, want %#x", format,
                           l, a, x, y, z, got, want);
               }
   }
   CHECK(bad == 0, "format %d type %d: %u bytes differ", format, type, bad);
   vkUnmapMemory(t->device, img.memory);
   vkt_buffer_destroy(t, &buf);
   vkt_image_destroy(t, &img);
}

static void
test_samplers(struct vkt *t)
{
   struct counter c = { 0, 0 };
   VkAllocationCallbacks ac = counting_allocator(&c);
   VkSamplerCreateInfo base = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_LINEAR,
      .minFilter = VK_FILTER_NEAREST,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_LINEAR,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_REPEAT,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .mipLodBias = 0.5f,
      .maxAnisotropy = 1.0f,
      .minLod = 0.0f,
      .maxLod = VK_LOD_CLAMP_NONE,
      .borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
   };
   VkSamplerCreateInfo list[6];
   for (unsigned i = 0; i < 6; i++)
      list[i] = base;
   list[1].addressModeU = list[1].addressModeV = list[1].addressModeW =
      VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
   list[1].borderColor = VK_BORDER_COLOR_INT_OPAQUE_WHITE;
   list[2].compareEnable = VK_TRUE;
   list[2].compareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
   list[3].unnormalizedCoordinates = VK_TRUE;   /* with the restrictions it brings */
   list[3].minFilter = list[3].magFilter = VK_FILTER_NEAREST;
   list[3].mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
   list[3].addressModeU = list[3].addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
   list[3].addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
   list[3].minLod = list[3].maxLod = 0.0f;
   list[3].mipLodBias = 0.0f;
   list[4].mipLodBias = -t->props.limits.maxSamplerLodBias;
   list[4].minLod = 2.0f;
   list[4].maxLod = 3.5f;
   list[5].borderColor = VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK;
   list[5].addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER;
   for (unsigned i = 0; i < 6; i++) {
      VkSampler s;
      VkResult r = vkCreateSampler(t->device, &list[i], i & 1 ? &ac : NULL, &s);
      CHECK(r == VK_SUCCESS, "sampler %u: %d", i, r);
      if (r != VK_SUCCESS)
         continue;
      if (i & 1)
         CHECK(c.live == 1, "sampler %u: %d live allocations", i, c.live);
      vkDestroySampler(t->device, s, i & 1 ? &ac : NULL);
      CHECK(c.live == 0, "sampler %u leaked", i);
   }
   CHECK(c.total == 3, "%d allocations through pAllocator, want 3", c.total);
   vkDestroySampler(t->device, VK_NULL_HANDLE, NULL);
}

/* VK_IMAGE_CREATE_ALIAS_BIT (VK_KHR_bind_memory2): two linear R8G8B8A8_UINT
 * images with the flag, bound to the same memory, read each other's texels
 * (dEQP-VK.memory.binding.aliasing.suballocated.image_* failed image
 * creation: the flag was refused). Texels written through the mapped memory
 * at image A's layout are copied out of image B. */
static void
test_alias(struct vkt *t)
{
   VkImageFormatProperties ifp;
   CHECK_EQ_INT(vkGetPhysicalDeviceImageFormatProperties(
                   t->pdev, VK_FORMAT_R8G8B8A8_UINT, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_LINEAR,
                   VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                   VK_IMAGE_CREATE_ALIAS_BIT, &ifp),
                VK_SUCCESS);
   const VkImageCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, .flags = VK_IMAGE_CREATE_ALIAS_BIT,
      .imageType = VK_IMAGE_TYPE_2D, .format = VK_FORMAT_R8G8B8A8_UINT,
      .extent = { 257, 33, 1 }, .mipLevels = 1, .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT, .tiling = VK_IMAGE_TILING_LINEAR,
      .usage = VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
      .initialLayout = VK_IMAGE_LAYOUT_PREINITIALIZED,
   };
   VkImage img[2] = { VK_NULL_HANDLE, VK_NULL_HANDLE };
   for (int i = 0; i < 2; i++)
      CHECK_EQ_INT(vkCreateImage(t->device, &ci, NULL, &img[i]), VK_SUCCESS);
   if (!img[0] || !img[1])
      goto out;
   VkMemoryRequirements req[2];
   for (int i = 0; i < 2; i++)
      vkGetImageMemoryRequirements(t->device, img[i], &req[i]);
   CHECK(req[0].size == req[1].size, "aliased images need %llu and %llu bytes",
         (unsigned long long)req[0].size, (unsigned long long)req[1].size);
   VkMemoryAllocateInfo mai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = req[0].size, .memoryTypeIndex = 0 };
   VkDeviceMemory mem;
   CHECK_EQ_INT(vkAllocateMemory(t->device, &mai, NULL, &mem), VK_SUCCESS);
   for (int i = 0; i < 2; i++)
      CHECK_EQ_INT(vkBindImageMemory(t->device, img[i], mem, 0), VK_SUCCESS);
   const VkImageSubresource sub = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0 };
   VkSubresourceLayout lay;
   vkGetImageSubresourceLayout(t->device, img[0], &sub, &lay);
   uint8_t *m;
   CHECK_EQ_INT(vkMapMemory(t->device, mem, 0, VK_WHOLE_SIZE, 0, (void **)&m), VK_SUCCESS);
   for (uint32_t y = 0; y < 33; y++)
      for (uint32_t x = 0; x < 257 * 4; x++)
         m[lay.offset + y * lay.rowPitch + x] = (uint8_t)(x * 7 + y * 13);
   VkMappedMemoryRange range = { VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, NULL, mem, 0,
                                 VK_WHOLE_SIZE };
   vkFlushMappedMemoryRanges(t->device, 1, &range);
   struct vkt_buffer buf;
   CHECK_EQ_INT(vkt_buffer_create(t, 257 * 33 * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, &buf),
                VK_SUCCESS);
   VkCommandBuffer cb = vkt_begin(t);
   const VkImageMemoryBarrier b = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER, .srcAccessMask = VK_ACCESS_HOST_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT, .oldLayout = VK_IMAGE_LAYOUT_PREINITIALIZED,
      .newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
      .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED, .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
      .image = img[1], .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                        NULL, 0, NULL, 1, &b);
   const VkBufferImageCopy r = { 0, 0, 0, { VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1 }, { 0, 0, 0 },
                                 { 257, 33, 1 } };
   vkCmdCopyImageToBuffer(cb, img[1], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buf.buffer, 1, &r);
   const VkMemoryBarrier hb = { VK_STRUCTURE_TYPE_MEMORY_BARRIER, NULL,
                                VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_HOST_READ_BIT };
   vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb,
                        0, NULL, 0, NULL);
   CHECK_EQ_INT(vkt_submit_wait(t, cb), VK_SUCCESS);
   const uint8_t *o = buf.map;
   unsigned bad = 0;
   for (uint32_t y = 0; y < 33; y++)
      for (uint32_t x = 0; x < 257 * 4; x++)
         bad += o[y * 257 * 4 + x] != (uint8_t)(x * 7 + y * 13);
   CHECK(bad == 0, "aliased image: %u bytes differ", bad);
   vkt_buffer_destroy(t, &buf);
   vkUnmapMemory(t->device, mem);
   vkFreeMemory(t->device, mem, NULL);
out:
   for (int i = 0; i < 2; i++)
      vkDestroyImage(t->device, img[i], NULL);
}

int
main(void)
{
   const char *exts[] = { VK_KHR_GET_MEMORY_REQUIREMENTS_2_EXTENSION_NAME,
                          VK_KHR_BIND_MEMORY_2_EXTENSION_NAME };
   const char *iexts[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
   struct vkt_options o = {
      .driver = VKT_SHALE,
      .device_extensions = exts,
      .device_extension_count = 2,
      .instance_extensions = iexts,
      .instance_extension_count = 1,
   };
   struct vkt t;
   if (!vkt_init(&t, &o)) {
      CHECK(0, "shale device not available");
      return check_finish();
   }
   test_formats(&t);
   test_limits(&t);

   /* Linear layouts: 1-, 3-, 8- and 12-byte texels; 2D arrays, 3D, 1D arrays. */
   const VkImageType t1 = VK_IMAGE_TYPE_1D, t2 = VK_IMAGE_TYPE_2D, t3 = VK_IMAGE_TYPE_3D;
   test_linear_layout(&t, VK_FORMAT_R8_UNORM, t2, (VkExtent3D) { 19, 11, 1 }, 3, 3);
   test_linear_layout(&t, VK_FORMAT_R8G8B8_UNORM, t2, (VkExtent3D) { 13, 6, 1 }, 4, 2);
   test_linear_layout(&t, VK_FORMAT_R16G16B16A16_SFLOAT, t3, (VkExtent3D) { 9, 7, 5 }, 3, 1);
   test_linear_layout(&t, VK_FORMAT_R32G32B32_SFLOAT, t1, (VkExtent3D) { 23, 1, 1 }, 2, 2);
   test_linear_layout(&t, VK_FORMAT_B8G8R8A8_SRGB, t2, (VkExtent3D) { 64, 64, 1 }, 7, 1);
   test_samplers(&t);
   test_alias(&t);
   vkt_finish(&t);

   test_without_layer();

   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
