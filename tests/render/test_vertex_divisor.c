/* VK_EXT_vertex_attribute_divisor through the loader. */
/*
 * What is held here: 16 R32G32B32A32_SFLOAT attributes, attribute k read
 * from binding k % 5 of a 5-binding layout: binding 0 per vertex, bindings
 * 1-4 per instance with divisors 0, 1, 3 and UINT32_MAX (binding 2's 1 set
 * through the struct, the others too), drawn 2 vertices x 8 instances with
 * firstVertex 3 and firstInstance 5 (and a second draw with firstInstance
 * 0). Every fetched value must equal the CPU's element per the spec's
 * formula: divisor 0 reads element firstInstance for every instance,
 * otherwise firstInstance + (InstanceIndex - firstInstance) / divisor. The
 * features (both) and maxVertexAttribDivisor (UINT32_MAX) Shale reports are
 * checked; lavapipe, when it offers the extension, draws the same and must
 * agree with the CPU (the zero divisor only if it reports it).
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "draw_check.h"
#include "draw_util.h"
#include "vi_probe.h"
#include "vkt.h"

#define NA 16
#define NB 5
#define VERTS 2
#define INSTANCES 8
#define FIRST_VERTEX 3
#define BUF_FLOATS 1024

static const uint32_t divisors[NB] = { 1, 0, 1, 3, UINT32_MAX };

static void
run(enum vkt_driver which, uint32_t first_instance)
{
   VkPhysicalDeviceVertexAttributeDivisorFeaturesEXT f = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_FEATURES_EXT };
   VkPhysicalDeviceVertexAttributeDivisorPropertiesEXT pr = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_PROPERTIES_EXT };
   struct vkt_options o;
   struct vkt t;
   bool has;
   if (!draw_probe_extension(which, &o, VK_EXT_VERTEX_ATTRIBUTE_DIVISOR_EXTENSION_NAME, &f, &pr, NULL,
                             &has)) {
      CHECK(which == VKT_LAVAPIPE, "Shale device missing");
      return;
   }
   const char *dn = vkt_driver_name(which);
   if (which == VKT_SHALE) {
      CHECK(has, "shale: VK_EXT_vertex_attribute_divisor not offered");
      CHECK(f.vertexAttributeInstanceRateDivisor && f.vertexAttributeInstanceRateZeroDivisor,
            "shale: features %u %u", f.vertexAttributeInstanceRateDivisor,
            f.vertexAttributeInstanceRateZeroDivisor);
      CHECK_EQ_INT(pr.maxVertexAttribDivisor, UINT32_MAX);
   }
   if (!has || !f.vertexAttributeInstanceRateDivisor) {
      fprintf(stderr, "%s: no vertex attribute divisor, not run\n", dn);
      return;
   }
   bool zero = f.vertexAttributeInstanceRateZeroDivisor;
   if (!zero)
      fprintf(stderr, "%s: no zero divisor: binding 1 uses divisor 1\n", dn);
   bool big = pr.maxVertexAttribDivisor == UINT32_MAX;
   if (!big)
      fprintf(stderr, "%s: maxVertexAttribDivisor %u: binding 4 uses it\n", dn, pr.maxVertexAttribDivisor);
   static const char *const dexts[] = { VK_EXT_VERTEX_ATTRIBUTE_DIVISOR_EXTENSION_NAME };
   VkPhysicalDeviceVertexAttributeDivisorFeaturesEXT enable = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VERTEX_ATTRIBUTE_DIVISOR_FEATURES_EXT,
      .vertexAttributeInstanceRateDivisor = VK_TRUE,
      .vertexAttributeInstanceRateZeroDivisor = zero,
   };
   if (!draw_open_extension(&t, &o, dexts, &enable, NULL))
      return;

   uint32_t div[NB];
   memcpy(div, divisors, sizeof(div));
   if (!zero)
      div[1] = 1;
   if (!big)
      div[4] = pr.maxVertexAttribDivisor;
   static float data[BUF_FLOATS];
   for (uint32_t i = 0; i < BUF_FLOATS; i++)
      data[i] = (float)i + 0.25f;
   VkVertexInputBindingDescription bindings[NB];
   VkVertexInputBindingDivisorDescriptionEXT bdiv[NB - 1];
   for (uint32_t b = 0; b < NB; b++) {
      bindings[b] = (VkVertexInputBindingDescription) {
         b, 16 * NA, b ? VK_VERTEX_INPUT_RATE_INSTANCE : VK_VERTEX_INPUT_RATE_VERTEX,
      };
      if (b)
         bdiv[b - 1] = (VkVertexInputBindingDivisorDescriptionEXT) { b, div[b] };
   }
   VkVertexInputAttributeDescription attribs[NA];
   for (uint32_t k = 0; k < NA; k++)
      attribs[k] = (VkVertexInputAttributeDescription) { k, k % NB, VK_FORMAT_R32G32B32A32_SFLOAT, 16 * k };
   VkPipelineVertexInputDivisorStateCreateInfoEXT dsi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_DIVISOR_STATE_CREATE_INFO_EXT,
      .vertexBindingDivisorCount = NB - 1,
      .pVertexBindingDivisors = bdiv,
   };
   VkPipelineVertexInputStateCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO,
      .pNext = &dsi,
      .vertexBindingDescriptionCount = NB,
      .pVertexBindingDescriptions = bindings,
      .vertexAttributeDescriptionCount = NA,
      .pVertexAttributeDescriptions = attribs,
   };
   struct vi_probe probe;
   const VkDeviceSize offs[NB] = { 0 };
   const float *img = vi_probe_draw(&t, &probe, &vi, data, sizeof(data), offs, NA, VERTS, INSTANCES,
                                    FIRST_VERTEX, first_instance);
   if (img) {
      unsigned bad = 0;
      for (uint32_t k = 0; k < NA; k++)
         for (uint32_t col = 0; col < VERTS * INSTANCES; col++) {
            uint32_t b = k % NB, i = col / VERTS;   /* i: InstanceIndex - firstInstance */
            uint64_t elem;
            if (b == 0)
               elem = FIRST_VERTEX + col % VERTS;
            else if (div[b] == 0)
               elem = first_instance;
            else
               elem = first_instance + i / div[b];
            const float *want = data + elem * 4 * NA + 4 * k;
            const float *got = img + (k * VI_PROBE_SIZE + col) * 4;
            for (int c = 0; c < 4; c++)
               if (got[c] != want[c] && bad++ < 8)
                  fprintf(stderr, "%s: firstInstance %u, attribute %u (divisor %u), column %u, "
                          "component %d: %g, expected %g\n", dn, first_instance, k, div[b], col, c,
                          got[c], want[c]);
         }
      CHECK(bad == 0, "%s: firstInstance %u: %u wrong components", dn, first_instance, bad);
   }
   vi_probe_destroy(&t, &probe);
   vkt_finish(&t);
}

int
main(void)
{
   run(VKT_SHALE, 5);
   run(VKT_SHALE, 0);
   run(VKT_LAVAPIPE, 5);
   run(VKT_LAVAPIPE, 0);
   return draw_finish();
}
