/* A compute shader whose pipeline layout lacks what it uses (a set, a
 * binding, a descriptor type, enough array elements, a push-constant range
 * of its stage) is invalid usage: Shale refuses the pipeline with an error
 * code and a SHALE_DEBUG=errors line naming the set and binding, instead of
 * creating one whose dispatch reads a missing set. Runs without the
 * validation layer (it would report each case); a matching layout, also
 * with dynamic buffers, still works and dispatches. Shale only. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "check.h"
#include "vkt.h"

#include "shaders/dynidx_spv.h"
#include "shaders/saxpy_spv.h"
#include "shaders/twosets_spv.h"

static struct vkt t;

#define SSBO VK_DESCRIPTOR_TYPE_STORAGE_BUFFER

static VkDescriptorSetLayoutBinding
binding(uint32_t b, VkDescriptorType type, uint32_t count)
{
   return (VkDescriptorSetLayoutBinding) {
      .binding = b,
      .descriptorType = type,
      .descriptorCount = count,
      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
   };
}

/* A pipeline layout of the given sets (each n[i] bindings) and at most one
 * push-constant range (size 0: none). */
static VkPipelineLayout
layout(const VkDescriptorSetLayoutBinding *const *sets, const uint32_t *n, uint32_t set_count,
       VkShaderStageFlags push_stages, uint32_t push_size, VkDescriptorSetLayout *set_layouts)
{
   for (uint32_t i = 0; i < set_count; i++)
      CHECK(vkt_set_layout(&t, sets[i], n[i], &set_layouts[i]) == VK_SUCCESS, "set layout");
   VkPushConstantRange range = { push_stages, 0, push_size };
   VkPipelineLayoutCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = set_count,
      .pSetLayouts = set_layouts,
      .pushConstantRangeCount = push_size ? 1 : 0,
      .pPushConstantRanges = &range,
   };
   VkPipelineLayout l = VK_NULL_HANDLE;
   CHECK(vkCreatePipelineLayout(t.device, &ci, NULL, &l) == VK_SUCCESS, "pipeline layout");
   return l;
}

struct try_result {
   VkResult result;
   VkPipeline pipeline;
   char *log;
};

static struct try_result
try_pipeline(VkShaderModule module, VkPipelineLayout l)
{
   struct try_result r = { 0 };
   struct capture cap;
   capture_begin(&cap);
   VkComputePipelineCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_COMPUTE_BIT,
         .module = module,
         .pName = "main",
      },
      .layout = l,
   };
   r.pipeline = (VkPipeline)(uintptr_t)0x1234;
   r.result = vkCreateComputePipelines(t.device, VK_NULL_HANDLE, 1, &ci, NULL, &r.pipeline);
   r.log = capture_end(&cap);
   return r;
}

/* One case: the pipeline must be refused, the log naming `needle`. */
static void
refused(const char *what, VkShaderModule module, const VkDescriptorSetLayoutBinding *const *sets,
        const uint32_t *n, uint32_t set_count, VkShaderStageFlags push_stages, uint32_t push_size,
        const char *needle)
{
   VkDescriptorSetLayout sl[4] = { 0 };
   VkPipelineLayout l = layout(sets, n, set_count, push_stages, push_size, sl);
   struct try_result r = try_pipeline(module, l);
   CHECK(r.result == VK_ERROR_UNKNOWN, "%s: vkCreateComputePipelines = %d, expected "
         "VK_ERROR_UNKNOWN", what, r.result);
   CHECK(r.pipeline == VK_NULL_HANDLE, "%s: the failed pipeline's handle is not null", what);
   CHECK(r.log && strstr(r.log, needle), "%s: no error line with \"%s\"", what, needle);
   if (r.result == VK_SUCCESS)
      vkDestroyPipeline(t.device, r.pipeline, NULL);
   free(r.log);
   vkDestroyPipelineLayout(t.device, l, NULL);
   for (uint32_t i = 0; i < set_count; i++)
      vkDestroyDescriptorSetLayout(t.device, sl[i], NULL);
}

/* saxpy with a matching layout (binding 1 as a dynamic storage buffer):
 * created and run, y = 2x + y. */
static void
accepted_saxpy(VkShaderModule module)
{
   VkDescriptorSetLayoutBinding b[2] = {
      binding(0, SSBO, 1), binding(1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1) };
   const VkDescriptorSetLayoutBinding *sets[1] = { b };
   uint32_t n[1] = { 2 };
   VkDescriptorSetLayout sl[1];
   VkPipelineLayout l = layout(sets, n, 1, VK_SHADER_STAGE_COMPUTE_BIT, 8, sl);
   struct try_result r = try_pipeline(module, l);
   free(r.log);
   CHECK(r.result == VK_SUCCESS, "saxpy with a matching layout: %d", r.result);
   if (r.result == VK_SUCCESS) {
      enum { N = 256 };
      struct vkt_buffer x, y;
      CHECK(vkt_buffer_create(&t, N * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &x) == VK_SUCCESS &&
               vkt_buffer_create(&t, N * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &y) == VK_SUCCESS,
            "buffers");
      float *xf = x.map, *yf = y.map;
      for (int i = 0; i < N; i++) {
         xf[i] = (float)i;
         yf[i] = 1.0f;
      }
      VkDescriptorPoolSize sizes[2] = { { SSBO, 1 }, { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 1 } };
      VkDescriptorPool pool;
      VkDescriptorSet set;
      CHECK(vkt_descriptor_pool(&t, 1, sizes, 2, 0, &pool) == VK_SUCCESS, "pool");
      CHECK(vkt_alloc_sets(&t, pool, sl, 1, &set) == VK_SUCCESS, "set");
      VkDescriptorBufferInfo xi = { x.buffer, 0, VK_WHOLE_SIZE }, yi = { y.buffer, 0, VK_WHOLE_SIZE };
      vkt_write_buffers(&t, set, 0, 0, SSBO, &xi, 1);
      vkt_write_buffers(&t, set, 1, 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, &yi, 1);
      VkCommandBuffer cb = vkt_begin(&t);
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipeline);
      uint32_t dyn = 0;
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, l, 0, 1, &set, 1, &dyn);
      struct { float a; uint32_t n; } pc = { 2.0f, N };
      vkCmdPushConstants(cb, l, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(pc), &pc);
      vkCmdDispatch(cb, N / 64, 1, 1);
      CHECK(vkt_submit_wait(&t, cb) == VK_SUCCESS, "saxpy dispatch");
      int bad = 0;
      for (int i = 0; i < N; i++)
         bad += yf[i] != 2.0f * (float)i + 1.0f;
      CHECK(bad == 0, "saxpy with a dynamic buffer: %d wrong", bad);
      vkDestroyDescriptorPool(t.device, pool, NULL);
      vkt_buffer_destroy(&t, &x);
      vkt_buffer_destroy(&t, &y);
      vkDestroyPipeline(t.device, r.pipeline, NULL);
   }
   vkDestroyPipelineLayout(t.device, l, NULL);
   vkDestroyDescriptorSetLayout(t.device, sl[0], NULL);
}

int
main(void)
{
   setenv("SHALE_DEBUG", "errors", 1);
   struct vkt_options opts = { .driver = VKT_SHALE, .no_validation = true };
   if (!vkt_init(&t, &opts)) {
      CHECK(0, "shale without validation");
      return check_finish();
   }
   VkShaderModule saxpy, twosets, dynidx;
   CHECK(vkt_shader_module(&t, saxpy_spv, sizeof(saxpy_spv), &saxpy) == VK_SUCCESS &&
            vkt_shader_module(&t, twosets_spv, sizeof(twosets_spv), &twosets) == VK_SUCCESS &&
            vkt_shader_module(&t, dynidx_spv, sizeof(dynidx_spv), &dynidx) == VK_SUCCESS,
         "shader modules");
   const VkShaderStageFlags CS = VK_SHADER_STAGE_COMPUTE_BIT;

   /* First a matching layout, so the later cases find its code in the
    * memory cache (whose key leaves push-constant ranges out). */
   accepted_saxpy(saxpy);

   VkDescriptorSetLayoutBinding only0[1] = { binding(0, SSBO, 1) };
   VkDescriptorSetLayoutBinding both[2] = { binding(0, SSBO, 1), binding(1, SSBO, 1) };
   VkDescriptorSetLayoutBinding ubo1[2] = {
      binding(0, SSBO, 1), binding(1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 1) };
   VkDescriptorSetLayoutBinding img1[2] = {
      binding(0, SSBO, 1), binding(1, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1) };
   VkDescriptorSetLayoutBinding skip1[2] = { binding(0, SSBO, 1), binding(2, SSBO, 1) };
   const uint32_t one[2] = { 1, 1 }, two[2] = { 2, 2 };

   const VkDescriptorSetLayoutBinding *s_only0[1] = { only0 };
   refused("binding 1 missing", saxpy, s_only0, one, 1, CS, 8, "set 0, binding 1");
   const VkDescriptorSetLayoutBinding *s_skip1[1] = { skip1 };
   refused("binding 1 absent between 0 and 2", saxpy, s_skip1, two, 1, CS, 8, "set 0, binding 1");
   refused("no sets", saxpy, NULL, NULL, 0, CS, 8, "set 0, binding 0");
   const VkDescriptorSetLayoutBinding *s_ubo1[1] = { ubo1 };
   refused("uniform buffer for a storage buffer", saxpy, s_ubo1, two, 1, CS, 8,
           "set 0, binding 1 as DESCRIPTOR_TYPE_STORAGE_BUFFER");
   const VkDescriptorSetLayoutBinding *s_img1[1] = { img1 };
   refused("storage image for a storage buffer", saxpy, s_img1, two, 1, CS, 8,
           "DESCRIPTOR_TYPE_STORAGE_IMAGE");
   const VkDescriptorSetLayoutBinding *s_both[1] = { both };
   refused("no push-constant range", saxpy, s_both, two, 1, 0, 0, "push-constant range");
   refused("push constants for another stage", saxpy, s_both, two, 1,
           VK_SHADER_STAGE_VERTEX_BIT, 8, "push-constant range");
   refused("push-constant range too short", saxpy, s_both, two, 1, CS, 4, "8 bytes of push");

   /* twosets: set 1 missing. */
   const VkDescriptorSetLayoutBinding *s_set0[1] = { only0 };
   refused("set 1 missing", twosets, s_set0, one, 1, 0, 0, "set 1, binding 0");
   /* dynidx: arr[3] at binding 0 with two descriptors. */
   VkDescriptorSetLayoutBinding dyn_short[3] = {
      binding(0, SSBO, 2), binding(1, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 2), binding(2, SSBO, 1) };
   const VkDescriptorSetLayoutBinding *s_dyn[1] = { dyn_short };
   const uint32_t three[1] = { 3 };
   refused("array of 3 with 2 descriptors", dynidx, s_dyn, three, 1, CS, 4,
           "3 descriptors of set 0, binding 0");

   vkDestroyShaderModule(t.device, saxpy, NULL);
   vkDestroyShaderModule(t.device, twosets, NULL);
   vkDestroyShaderModule(t.device, dynidx, NULL);
   vkt_finish(&t);
   return check_finish();
}
