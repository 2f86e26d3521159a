/* 64-bit vertex inputs (the R64* vertex formats) through the loader. */
/*
 * What is held here: Shale reports VERTEX_BUFFER on the twelve R64*
 * formats (R64 to R64G64B64A64, UINT, SINT and SFLOAT). vi64.vert reads one
 * attribute of each into double, dvec2-4, uint64_t and i64vec2-4 inputs
 * (dvec3, dvec4, u64vec3 and i64vec4 take two Locations each) and a dmat2x3
 * whose two R64G64B64_SFLOAT columns take two Locations each, Locations 0-15
 * in all; the doubles from a per-vertex binding, the integers from a
 * per-instance one. Each invocation stores every component's 64 bits into a
 * storage buffer (vertexPipelineStoresAndAtomics), drawn 5 vertices x 3
 * instances from firstVertex 2 and firstInstance 1 (points, rasterization
 * discarded); every stored word must equal the attribute's bits in the
 * buffer (the doubles are random finite values, most not representable as
 * floats, so a conversion through 32 bits fails), and no other word may
 * change. On Shale the device enables robustBufferAccess and the full case
 * is drawn a second time with the per-vertex binding bound 4 elements in
 * (ROBUST_ELEMS): vertices 2 and 3 read elements 6 and 7, vertices 4-6 run
 * past the bound range. The spec lets such out-of-bounds attributes read
 * values from within the bound range or zeros; Shale gives zeros (sr_vertex.c),
 * and every word of those vertices, the R64G64B64A64 attribute's second
 * Location included, must be exactly 0 (before the fix that Location read 16
 * bytes past a 16-byte zero array). The same with the integer inputs alone (vi64_int.vert). Runs with
 * SHALE_THREADS 1 and 4, then on lavapipe, which reports the UINT / SINT
 * formats but not the SFLOAT ones (Mesa 22.3): the integer case there,
 * where it gets the SINT formats and u64vec3's second Location wrong (printed,
 * not failed) and must leave the other words alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

#include "const_float_frag_spv.h"
#include "vi64_int_vert_spv.h"
#include "vi64_vert_spv.h"

#define WORDS 26             /* stored per vertex */
#define VWORDS 16            /* per-vertex element: a, b, c, d, m */
#define IWORDS 10            /* per-instance element: e, f, g, h */
#define VERTS 5
#define INSTANCES 3
#define FIRST_VERTEX 2
#define FIRST_INSTANCE 1
#define ELEMS 8              /* elements in each binding */
#define SLOTS 32             /* (InstanceIndex * 8 + VertexIndex) < 32 */
#define FILL 0xa5a5a5a5a5a5a5a5ull
#define ROBUST_ELEMS 4       /* second pass: binding 0 bound this many elements in */

/* Location, binding, format, byte offset of each attribute. */
static const VkVertexInputAttributeDescription attribs[] = {
   { 0, 0, VK_FORMAT_R64_SFLOAT, 0 },
   { 1, 0, VK_FORMAT_R64G64_SFLOAT, 8 },
   { 2, 0, VK_FORMAT_R64G64B64_SFLOAT, 24 },
   { 4, 0, VK_FORMAT_R64G64B64A64_SFLOAT, 48 },
   { 12, 0, VK_FORMAT_R64G64B64_SFLOAT, 80 },
   { 14, 0, VK_FORMAT_R64G64B64_SFLOAT, 104 },
   { 6, 1, VK_FORMAT_R64_UINT, 0 },
   { 7, 1, VK_FORMAT_R64G64_SINT, 8 },
   { 8, 1, VK_FORMAT_R64G64B64_UINT, 24 },
   { 10, 1, VK_FORMAT_R64G64B64A64_SINT, 48 },
};
#define NATTRIBS (sizeof(attribs) / sizeof(attribs[0]))

static const VkFormat formats64[] = {
   VK_FORMAT_R64_UINT, VK_FORMAT_R64_SINT, VK_FORMAT_R64_SFLOAT,
   VK_FORMAT_R64G64_UINT, VK_FORMAT_R64G64_SINT, VK_FORMAT_R64G64_SFLOAT,
   VK_FORMAT_R64G64B64_UINT, VK_FORMAT_R64G64B64_SINT, VK_FORMAT_R64G64B64_SFLOAT,
   VK_FORMAT_R64G64B64A64_UINT, VK_FORMAT_R64G64B64A64_SINT, VK_FORMAT_R64G64B64A64_SFLOAT,
};

static uint64_t
rand64(uint64_t *s)
{
   return (uint64_t)draw_rand_u32(s) << 32 | draw_rand_u32(s);
}

/* A random finite, normal double's bits. */
static uint64_t
rand_double(uint64_t *s)
{
   uint64_t bits = rand64(s);
   uint64_t exp = 1 + draw_rand_u32(s) % 2046;
   return (bits & 0x800fffffffffffffull) | exp << 52;
}

static void draw_case(enum vkt_driver which, const char *threads, bool int_only);

static void
run(enum vkt_driver which, const char *threads)
{
   if (threads)
      setenv("SHALE_THREADS", threads, 1);
   const char *dn = vkt_driver_name(which);
   struct vkt t;
   if (!draw_probe(which, &t)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   VkPhysicalDeviceFeatures f;
   vkGetPhysicalDeviceFeatures(t.pdev, &f);
   unsigned missing = 0, missing_float = 0;
   for (size_t i = 0; i < sizeof(formats64) / sizeof(formats64[0]); i++) {
      VkFormatProperties p;
      vkGetPhysicalDeviceFormatProperties(t.pdev, formats64[i], &p);
      if (!(p.bufferFeatures & VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT)) {
         missing++;
         missing_float += i % 3 == 2;
         fprintf(stderr, "%s: format %d without VERTEX_BUFFER\n", dn, formats64[i]);
      }
   }
   vkt_finish(&t);
   if (which == VKT_SHALE) {
      CHECK(missing == 0, "shale: %u R64* formats without VERTEX_BUFFER", missing);
      CHECK(f.shaderFloat64 && f.shaderInt64 && f.vertexPipelineStoresAndAtomics,
            "shale: features %u %u %u", f.shaderFloat64, f.shaderInt64,
            f.vertexPipelineStoresAndAtomics);
   }
   /* Drivers with the UINT / SINT formats only draw the integer inputs. */
   if (missing != missing_float || !f.shaderInt64 || !f.vertexPipelineStoresAndAtomics) {
      fprintf(stderr, "%s: R64* vertex formats or features missing (%u formats), not run\n", dn,
              missing);
      return;
   }
   const bool int_only = missing_float || !f.shaderFloat64;
   if (int_only)
      fprintf(stderr, "%s: no R64*_SFLOAT vertex formats: 64-bit integer inputs only\n", dn);
   draw_case(which, threads, int_only);
   if (which == VKT_SHALE)
      draw_case(which, threads, true);
}

static void
draw_case(enum vkt_driver which, const char *threads, bool int_only)
{
   const char *dn = vkt_driver_name(which);
   struct vkt t;
   /* The out-of-range pass (Shale's full case) needs robustBufferAccess. */
   const bool robust = which == VKT_SHALE && !int_only;
   const VkPhysicalDeviceFeatures enable = {
      .robustBufferAccess = robust, .shaderFloat64 = !int_only, .shaderInt64 = VK_TRUE,
      .vertexPipelineStoresAndAtomics = VK_TRUE,
   };
   if (!vkt_init(&t, &(struct vkt_options) { .driver = which, .features = &enable })) {
      CHECK(false, "%s: device with shaderInt64, vertexPipelineStoresAndAtomics", dn);
      return;
   }

   uint64_t seed = 0x6a09e667f3bcc908ull;
   static uint64_t vdata[ELEMS * VWORDS], idata[ELEMS * IWORDS];
   for (size_t i = 0; i < ELEMS * VWORDS; i++)
      vdata[i] = rand_double(&seed);
   for (size_t i = 0; i < ELEMS * IWORDS; i++)
      idata[i] = rand64(&seed);

   struct draw_target dt = { .color_format = VK_FORMAT_R8G8B8A8_UNORM, .width = 4, .height = 4 };
   VkResult r = draw_target_create(&t, &dt);
   CHECK(r == VK_SUCCESS, "%s: target: %d", dn, r);
   VkDescriptorSetLayout sl;
   VkDescriptorPool pool;
   VkDescriptorSet set;
   r = draw_single_set(&t, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_SHADER_STAGE_VERTEX_BIT, &sl, &pool,
                       &set);
   CHECK(r == VK_SUCCESS, "%s: descriptor set: %d", dn, r);
   struct vkt_buffer vb = { 0 }, ib = { 0 }, out = { 0 };
   r = draw_upload(&t, vdata, sizeof(vdata), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &vb);
   if (r == VK_SUCCESS)
      r = draw_upload(&t, idata, sizeof(idata), VK_BUFFER_USAGE_VERTEX_BUFFER_BIT, &ib);
   if (r == VK_SUCCESS)
      r = vkt_buffer_create(&t, SLOTS * WORDS * 8, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &out);
   CHECK(r == VK_SUCCESS, "%s: buffers: %d", dn, r);

   const VkVertexInputBindingDescription bindings[] = {
      { 0, VWORDS * 8, VK_VERTEX_INPUT_RATE_VERTEX },
      { 1, IWORDS * 8, VK_VERTEX_INPUT_RATE_INSTANCE },
   };
   const VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
      .vertexBindingDescriptionCount = 2,
      .pVertexBindingDescriptions = bindings,
      /* The integer attributes are the last four. */
      .vertexAttributeDescriptionCount = int_only ? 4 : NATTRIBS,
      .pVertexAttributeDescriptions = int_only ? attribs + NATTRIBS - 4 : attribs,
   };
   const VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .rasterizerDiscardEnable = VK_TRUE,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .lineWidth = 1.0f,
   };
   struct draw_pipeline_info pi = {
      .vs = int_only ? vi64_int_vert_spv : vi64_vert_spv,
      .vs_size = int_only ? sizeof(vi64_int_vert_spv) : sizeof(vi64_vert_spv),
      .fs = const_float_frag_spv, .fs_size = sizeof(const_float_frag_spv),
      .vertex_input = &vi,
      .rasterization = &rs,
      .topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST,
      .set_layout = sl,
      .push_size = 16,
   };
   struct draw_pipeline p = { 0 };
   r = draw_pipeline_create(&t, &dt, &pi, &p);
   CHECK(r == VK_SUCCESS, "%s: pipeline with 64-bit vertex inputs: %d", dn, r);

   for (uint32_t pass = 0; pass < (robust ? 2u : 1u) && p.pipeline && out.map; pass++) {
      /* Pass 1: binding 0 starts base elements in; elements past the end of
       * the buffer are out of range and read as zeros. */
      const uint32_t base = pass ? ROBUST_ELEMS : 0;
      uint64_t *o = out.map;
      for (size_t i = 0; i < SLOTS * WORDS; i++)
         o[i] = FILL;
      vkt_write_buffers(&t, set, 0, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                        &(VkDescriptorBufferInfo) { out.buffer, 0, VK_WHOLE_SIZE }, 1);
      VkCommandBuffer cb = draw_begin(&t, &dt, &p, VK_NULL_HANDLE);
      const VkBuffer bufs[2] = { vb.buffer, ib.buffer };
      const VkDeviceSize offs[2] = { (VkDeviceSize)base * VWORDS * 8, 0 };
      vkCmdBindVertexBuffers(cb, 0, 2, bufs, offs);
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, p.layout, 0, 1, &set, 0, NULL);
      const float color[4] = { 0 };
      vkCmdPushConstants(cb, p.layout, VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16,
                         color);
      vkCmdDraw(cb, VERTS, INSTANCES, FIRST_VERTEX, FIRST_INSTANCE);
      r = draw_end(&t, &dt, cb);
      CHECK(r == VK_SUCCESS, "%s: drawn: %d", dn, r);

      unsigned bad = 0, stray = 0, checked = 0;
      for (uint32_t s = 0; s < SLOTS; s++) {
         uint32_t inst = s / 8, vtx = s % 8;
         bool drawn = inst >= FIRST_INSTANCE && inst < FIRST_INSTANCE + INSTANCES &&
                      vtx >= FIRST_VERTEX && vtx < FIRST_VERTEX + VERTS;
         for (uint32_t k = 0; k < WORDS; k++) {
            uint64_t got = o[s * WORDS + k];
            if (!drawn || (int_only && k < VWORDS)) {
               stray += got != FILL;
               continue;
            }
            uint64_t want = k >= VWORDS              ? idata[inst * IWORDS + k - VWORDS]
                            : vtx + base < ELEMS ? vdata[(vtx + base) * VWORDS + k]
                                                 : 0;
            checked++;
            if (got != want && bad++ < 8 && which == VKT_SHALE)
               fprintf(stderr, "%s (threads %s, pass %u): vertex %u instance %u word %u: %016llx, "
                       "expected %016llx\n", dn, threads ? threads : "-", pass, vtx, inst, k,
                       (unsigned long long)got, (unsigned long long)want);
         }
      }
      /* lavapipe (Mesa 22.3.6) reports the R64 integer formats but fetches
       * the SINT ones and the second Location of u64vec3 through 32-bit
       * values (0x7fffffff7fffffff and the like): the reference is the
       * buffer, so its departures are printed, not failed, as
       * render/vertex_input does for formats lavapipe gets wrong. */
      if (which == VKT_LAVAPIPE && bad) {
         printf("lavapipe departs from the buffer's words on %u of %u words: not compared\n", bad,
                checked);
         bad = 0;
      }
      CHECK(bad == 0 && checked == VERTS * INSTANCES * (int_only ? IWORDS : WORDS),
            "%s (threads %s%s%s): %u of %u words wrong", dn, threads ? threads : "-",
            int_only ? ", integers only" : "", pass ? ", vertices past the range" : "", bad, checked);
      CHECK(stray == 0, "%s (threads %s): %u words written outside the drawn inputs", dn,
            threads ? threads : "-", stray);
   }
   draw_pipeline_destroy(&t, &p);
   vkt_buffer_destroy(&t, &out);
   vkt_buffer_destroy(&t, &ib);
   vkt_buffer_destroy(&t, &vb);
   vkDestroyDescriptorPool(t.device, pool, NULL);
   vkDestroyDescriptorSetLayout(t.device, sl, NULL);
   draw_target_destroy(&t, &dt);
   vkt_finish(&t);
}

int
main(void)
{
   return draw_run_threads_and_lavapipe(run);
}
