/* Compute through the loader: descriptors, pipelines, dispatches, caches; vs C and lavapipe. */
/*
 * Every shader (tests/api/shaders, GLSL compiled at build time) runs on
 * Shale and its results are checked against a C reference computed here;
 * the same work then runs on lavapipe and the two drivers' results must
 * agree (integers exactly; the float results are exact by construction,
 * except one SAXPY whose tolerance follows Vulkan's precision rules: each
 * multiply and add correctly rounded, or fused).
 *
 * Covered: descriptor pools (accounting, VK_ERROR_OUT_OF_POOL_MEMORY, free
 * with FREE_DESCRIPTOR_SET_BIT, VK_ERROR_FRAGMENTED_POOL, reset), writes
 * (with the roll-over into the next binding), copies and update templates
 * as the shader sees them, dynamic offsets (several binds in one command
 * buffer, one set bound at two set numbers), buffer arrays indexed
 * dynamically, push constants (partial updates), specialization (workgroup
 * size through local_size_x_id, int, bool, float, spec-constant
 * operations), SAXPY, a shared-memory reduction and prefix sum with
 * barriers, contended atomics, a dispatch of 2^20 invocations, indirect and
 * base dispatches, invalid SPIR-V (without the validation layer), robust
 * buffer access, allocation failures in every new create path, the thread
 * pool's size from SHALE_THREADS, the pipeline cache (header, data,
 * merge, truncation, foreign and damaged data, the memory cache kept by the
 * device after every pipeline and cache is gone, re-creation from data on
 * a new device once the last one took the memory cache with it: LLVM
 * compilations counted from SHALE_DEBUG=info logs, times printed, never
 * asserted), the two code tiers (scalar baseline code at once, optimized
 * code from the background; optimized code taking over in the middle of a
 * pipeline's first dispatch, seen in the info log, every result checked;
 * in a pool of two, a worker of a long first dispatch waiting once for the
 * optimized code instead of running baseline code),
 * and shader dumps (SHALE_SHADER_DUMP with a directory: SPIR-V, LLVM IR,
 * native assembly, compile-phase timings, also in the info log; the same
 * code with and without the dump).
 *
 * Parts that need something Shale does not claim yet (update templates,
 * vkCmdDispatchBase, robustBufferAccess, buffer-array dynamic indexing,
 * VK_KHR_maintenance1 for pool exhaustion under the validation layer,
 * creation feedback) run when the claim is there and say so when not.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "capture.h"
#include "outputs.h"
#include "vkt.h"

#include "atomics_spv.h"
#include "dynidx_spv.h"
#include "hurry_spv.h"
#include "ids_spv.h"
#include "reduce_spv.h"
#include "robust_spv.h"
#include "saxpy_spv.h"
#include "scan_spv.h"
#include "select_spv.h"
#include "spec_spv.h"
#include "takeover_spv.h"
#include "twosets_spv.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- devices ---- */

struct dev {
   struct vkt t;
   const char *name;
   bool templates, device_group, maintenance1, feedback, robust, dynamic_indexing;
   PFN_vkCreateDescriptorUpdateTemplateKHR create_template;
   PFN_vkDestroyDescriptorUpdateTemplateKHR destroy_template;
   PFN_vkUpdateDescriptorSetWithTemplateKHR update_with_template;
   PFN_vkCmdDispatchBaseKHR dispatch_base;
};

/* A device of `driver` with every optional extension this test uses that
 * the driver offers; robustBufferAccess only when `robust`. */
static bool
dev_init(struct dev *d, enum vkt_driver driver, bool robust, bool validation)
{
   memset(d, 0, sizeof(*d));
   d->name = vkt_driver_name(driver);
   struct vkt_options probe = { .driver = driver, .no_validation = true };
   if (!vkt_init(&d->t, &probe))
      return false;
   VkPhysicalDevice pdev = d->t.pdev;
   VkPhysicalDeviceFeatures feats;
   vkGetPhysicalDeviceFeatures(pdev, &feats);
   const char *exts[8], *iexts[2];
   uint32_t ne = 0, ni = 0;
   if (vkt_has_device_extension(pdev, "VK_KHR_descriptor_update_template")) {
      exts[ne++] = "VK_KHR_descriptor_update_template";
      d->templates = true;
   }
   if (vkt_has_device_extension(pdev, "VK_KHR_maintenance1")) {
      exts[ne++] = "VK_KHR_maintenance1";
      d->maintenance1 = true;
   }
   if (vkt_has_device_extension(pdev, "VK_EXT_pipeline_creation_feedback")) {
      exts[ne++] = "VK_EXT_pipeline_creation_feedback";
      d->feedback = true;
   }
   if (vkt_has_device_extension(pdev, "VK_KHR_device_group") &&
       vkt_has_instance_extension("VK_KHR_device_group_creation")) {
      exts[ne++] = "VK_KHR_device_group";
      iexts[ni++] = "VK_KHR_device_group_creation";
      d->device_group = true;
   }
   vkt_finish(&d->t);
   VkPhysicalDeviceFeatures want = { 0 };
   if (feats.shaderUniformBufferArrayDynamicIndexing &&
       feats.shaderStorageBufferArrayDynamicIndexing) {
      want.shaderUniformBufferArrayDynamicIndexing = VK_TRUE;
      want.shaderStorageBufferArrayDynamicIndexing = VK_TRUE;
      d->dynamic_indexing = true;
   }
   if (robust) {
      if (!feats.robustBufferAccess)
         return false;
      want.robustBufferAccess = VK_TRUE;
      d->robust = true;
   }
   struct vkt_options opts = {
      .driver = driver,
      .instance_extensions = iexts,
      .instance_extension_count = ni,
      .device_extensions = exts,
      .device_extension_count = ne,
      .features = &want,
      .no_validation = !validation,
   };
   if (!vkt_init(&d->t, &opts))
      return false;
   VkDevice dv = d->t.device;
   if (d->templates) {
      d->create_template = (PFN_vkCreateDescriptorUpdateTemplateKHR)
         vkGetDeviceProcAddr(dv, "vkCreateDescriptorUpdateTemplateKHR");
      d->destroy_template = (PFN_vkDestroyDescriptorUpdateTemplateKHR)
         vkGetDeviceProcAddr(dv, "vkDestroyDescriptorUpdateTemplateKHR");
      d->update_with_template = (PFN_vkUpdateDescriptorSetWithTemplateKHR)
         vkGetDeviceProcAddr(dv, "vkUpdateDescriptorSetWithTemplateKHR");
      CHECK(d->create_template && d->destroy_template && d->update_with_template,
            "%s: template entry points", d->name);
      d->templates = d->create_template && d->destroy_template && d->update_with_template;
   }
   if (d->device_group) {
      d->dispatch_base = (PFN_vkCmdDispatchBaseKHR)vkGetDeviceProcAddr(dv, "vkCmdDispatchBaseKHR");
      CHECK(d->dispatch_base != NULL, "%s: vkCmdDispatchBaseKHR", d->name);
      d->device_group = d->dispatch_base != NULL;
   }
   return true;
}

static void
dev_finish(struct dev *d)
{
   vkt_finish(&d->t);
}

static double
now_ms(void)
{
   struct timespec ts;
   clock_gettime(CLOCK_MONOTONIC, &ts);
   return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- objects (vkt's creators; a failure is a failed CHECK here) ---- */

static VkShaderModule
make_module(struct vkt *t, const uint32_t *code, size_t size)
{
   VkShaderModule m;
   CHECK(vkt_shader_module(t, code, size, &m) == VK_SUCCESS, "shader module");
   return m;
}

static VkDescriptorSetLayout
make_set_layout(struct vkt *t, const VkDescriptorSetLayoutBinding *b, uint32_t n)
{
   VkDescriptorSetLayout l;
   CHECK(vkt_set_layout(t, b, n, &l) == VK_SUCCESS, "set layout of %u bindings", n);
   return l;
}

static VkPipeline
make_pipeline(struct vkt *t, VkPipelineCache cache, VkShaderModule module, VkPipelineLayout layout,
              const VkSpecializationInfo *spec, const void *pnext)
{
   VkPipeline p;
   VkResult r = vkt_compute_pipeline(t, cache, module, layout, spec, 0, pnext, &p);
   CHECK(r == VK_SUCCESS, "vkCreateComputePipelines: %d", r);
   return p;
}

#define BINDING(n, type, count) \
   { (n), (type), (count), VK_SHADER_STAGE_COMPUTE_BIT, NULL }

#define STORAGE VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
#define UNIFORM VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
#define STORAGE_DYN VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC
#define UNIFORM_DYN VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC

/* Bindings 0 and 1: the layout of most shaders here. */
static const VkDescriptorSetLayoutBinding two_storage[] = {
   BINDING(0, STORAGE, 1), BINDING(1, STORAGE, 1),
};

/* A kernel with one or two set layouts (b1 may be NULL), push constants of
 * `push` bytes, specialization `spec`. */
static void
kernel_create(struct vkt *t, struct vkt_kernel *k, const uint32_t *code, size_t size,
              const VkDescriptorSetLayoutBinding *b0, uint32_t n0,
              const VkDescriptorSetLayoutBinding *b1, uint32_t n1, uint32_t push,
              const VkSpecializationInfo *spec, VkPipelineCreateFlags flags)
{
   const struct vkt_kernel_info info = {
      .code = code,
      .code_size = size,
      .bindings = { b0, b1 },
      .binding_counts = { n0, n1 },
      .push_size = push,
      .spec = spec,
      .flags = flags,
   };
   VkResult r = vkt_kernel_create(t, &info, k);
   CHECK(r == VK_SUCCESS, "kernel of %zu bytes of SPIR-V: %d", size, r);
}

static VkDescriptorPool
make_pool(struct vkt *t, uint32_t max_sets, const VkDescriptorPoolSize *sizes, uint32_t n,
          VkDescriptorPoolCreateFlags flags)
{
   VkDescriptorPool p;
   CHECK(vkt_descriptor_pool(t, max_sets, sizes, n, flags, &p) == VK_SUCCESS, "descriptor pool");
   return p;
}

/* A pool big enough for every test's sets. */
static VkDescriptorPool
make_big_pool(struct vkt *t)
{
   const VkDescriptorPoolSize sizes[] = {
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 64 },
      { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 16 },
      { VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC, 16 },
      { VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, 16 },
   };
   return make_pool(t, 32, sizes, ARRAY_SIZE(sizes), 0);
}

static VkDescriptorSet
alloc_set(struct vkt *t, VkDescriptorPool pool, VkDescriptorSetLayout layout)
{
   VkDescriptorSet s = VK_NULL_HANDLE;
   VkResult r = vkt_alloc_sets(t, pool, &layout, 1, &s);
   CHECK(r == VK_SUCCESS, "vkAllocateDescriptorSets: %d", r);
   return s;
}

static void
write_buffer(struct vkt *t, VkDescriptorSet set, uint32_t binding, VkDescriptorType type,
             VkBuffer buffer, VkDeviceSize offset, VkDeviceSize range)
{
   VkDescriptorBufferInfo info = { buffer, offset, range };
   vkt_write_buffers(t, set, binding, 0, type, &info, 1);
}

static struct vkt_buffer
make_buffer(struct vkt *t, VkDeviceSize size)
{
   struct vkt_buffer b;
   VkResult r = vkt_buffer_create(t, size,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                     VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                     VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                     VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                  &b);
   CHECK(r == VK_SUCCESS, "buffer of %llu bytes: %d", (unsigned long long)size, r);
   return b;
}

/* Two buffers bound whole as storage buffers 0 and 1 of a set of their
 * own pool: what most shaders here read and write. */
struct io {
   struct vkt_buffer buf[2];
   VkDescriptorPool pool;
   VkDescriptorSet set;
};

static void
io_create(struct vkt *t, struct io *io, VkDescriptorSetLayout layout, VkDeviceSize size0,
          VkDeviceSize size1)
{
   io->buf[0] = make_buffer(t, size0);
   io->buf[1] = make_buffer(t, size1);
   io->pool = make_big_pool(t);
   io->set = alloc_set(t, io->pool, layout);
   const VkBuffer bufs[2] = { io->buf[0].buffer, io->buf[1].buffer };
   vkt_bind_buffers(t, io->set, NULL, bufs, 2);
}

static void
io_destroy(struct vkt *t, struct io *io)
{
   vkDestroyDescriptorPool(t->device, io->pool, NULL);
   vkt_buffer_destroy(t, &io->buf[0]);
   vkt_buffer_destroy(t, &io->buf[1]);
}

/* Binds a kernel and its sets, dispatches, waits. */
static void
run_kernel(struct vkt *t, const struct vkt_kernel *k, const VkDescriptorSet *sets, uint32_t nsets,
           const void *push, uint32_t push_size, uint32_t x, uint32_t y, uint32_t z)
{
   if (!k->pipeline)
      return;   /* creation failed (already reported) */
   VkResult r = vkt_dispatch(t, k, sets, nsets, push, push_size, x, y, z);
   CHECK(r == VK_SUCCESS, "submit: %d", r);
}

/* One dispatch of one workgroup with sets bound from 0 with two dynamic
 * offsets, and the barrier; submits and waits. */
static void
run_once(struct dev *d, const struct vkt_kernel *k, const VkDescriptorSet *sets, uint32_t nsets,
         const uint32_t offsets[2])
{
   VkCommandBuffer cb = vkt_begin(&d->t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k->layout, 0, nsets, sets, 2,
                           offsets);
   vkCmdDispatch(cb, 1, 1, 1);
   vkt_compute_barrier(cb);
   CHECK(vkt_submit_wait(&d->t, cb) == VK_SUCCESS, "%s: submit", d->name);
}

static uint32_t
hash32(uint32_t x)
{
   x ^= x >> 16;
   x *= 0x7feb352du;
   x ^= x >> 15;
   x *= 0x846ca68bu;
   x ^= x >> 16;
   return x;
}


/* ---- SAXPY and push constants ---- */

struct saxpy_pc {
   float a;
   uint32_t n;
};

static void
test_saxpy(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const uint32_t n = 100003;   /* not a multiple of the workgroup */
   struct vkt_kernel k;
   kernel_create(t, &k, saxpy_spv, sizeof(saxpy_spv), two_storage, 2, NULL, 0,
                 sizeof(struct saxpy_pc), NULL, 0);
   struct io io;
   io_create(t, &io, k.set_layouts[0], n * 4, n * 4 + 64);
   VkDescriptorSet set = io.set;
   write_buffer(t, set, 1, STORAGE, io.buf[1].buffer, 0, n * 4);   /* y[n] is outside */
   float *xs = io.buf[0].map, *ys = io.buf[1].map;

   /* Exact by construction: a * x is a multiple of 1/16 below 2^8, the sum
    * stays below 2^17, so every product and sum is representable. */
   for (uint32_t i = 0; i < n; i++) {
      xs[i] = (float)(i % 1000) * 0.25f - 100.0f;
      ys[i] = (float)(i % 100000) * 0.5f;
   }
   ys[n] = 12345.0f;
   struct saxpy_pc pc = { 1.75f, n };
   run_kernel(t, &k, &set, 1, &pc, sizeof(pc), (n + 63) / 64, 1, 1);
   uint32_t bad = 0;
   for (uint32_t i = 0; i < n; i++) {
      float want = 1.75f * ((float)(i % 1000) * 0.25f - 100.0f) + (float)(i % 100000) * 0.5f;
      if (ys[i] != want && bad++ < 5)
         CHECK(false, "%s saxpy[%u] = %g, expected %g", d->name, i, ys[i], want);
   }
   CHECK(bad == 0, "%s: %u wrong SAXPY results", d->name, bad);
   CHECK(ys[n] == 12345.0f, "%s: SAXPY wrote past n", d->name);
   outputs_keep(out, "saxpy (exact)", ys, n * 4);

   /* Rounding: each multiply and add correctly rounded, or fused: within
    * one ulp of the product plus one of the result of the exact value. */
   for (uint32_t i = 0; i < n; i++) {
      xs[i] = (float)hash32(i) / 4294967296.0f * 200.0f - 100.0f;
      ys[i] = (float)hash32(i + n) / 4294967296.0f * 20.0f;
   }
   pc.a = 1.1f;
   run_kernel(t, &k, &set, 1, &pc, sizeof(pc), (n + 63) / 64, 1, 1);
   bad = 0;
   for (uint32_t i = 0; i < n; i++) {
      double px = (double)1.1f * ((float)hash32(i) / 4294967296.0f * 200.0f - 100.0f);
      double want = px + (float)hash32(i + n) / 4294967296.0f * 20.0f;
      double tol = (fabs(px) + fabs(want)) * 0x1p-23;
      if (!(fabs(ys[i] - want) <= tol) && bad++ < 5)
         CHECK(false, "%s saxpy[%u] = %.9g, expected %.9g +- %.3g", d->name, i, ys[i], want, tol);
   }
   CHECK(bad == 0, "%s: %u SAXPY results off by more than the precision rules", d->name, bad);

   /* Push constants updated piecewise, and again between two dispatches
    * of one command buffer: y = 2 * x + (0.5 * x + y). */
   for (uint32_t i = 0; i < n; i++) {
      xs[i] = (float)(i % 512) - 256.0f;
      ys[i] = (float)(i % 777);
   }
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &set, 0, NULL);
   const float a1 = 0.5f, a2 = 2.0f;
   vkCmdPushConstants(cb, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 4, 4, &n);
   vkCmdPushConstants(cb, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &a1);
   vkCmdDispatch(cb, (n + 63) / 64, 1, 1);
   vkt_compute_barrier(cb);
   vkCmdPushConstants(cb, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &a2);
   vkCmdDispatch(cb, (n + 63) / 64, 1, 1);
   vkt_compute_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "submit");
   bad = 0;
   for (uint32_t i = 0; i < n; i++) {
      float xv = (float)(i % 512) - 256.0f;
      float want = 2.0f * xv + (0.5f * xv + (float)(i % 777));
      if (ys[i] != want && bad++ < 5)
         CHECK(false, "%s push constants: y[%u] = %g, expected %g", d->name, i, ys[i], want);
   }
   CHECK(bad == 0, "%s: %u wrong results with partial push constant updates", d->name, bad);
   outputs_keep(out, "saxpy (push constant updates)", ys, n * 4);
   io_destroy(t, &io);
   vkt_kernel_destroy(t, &k);
}

/* ---- shared memory and barriers: reduction and prefix sum ---- */

static void
test_reduce(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const uint32_t groups = 4096, n = groups * 256;
   struct vkt_kernel k;
   kernel_create(t, &k, reduce_spv, sizeof(reduce_spv), two_storage, 2, NULL, 0, 0, NULL, 0);
   struct io io;
   io_create(t, &io, k.set_layouts[0], n * 4, (groups + 1) * 4);
   uint32_t *v = io.buf[0].map, *r = io.buf[1].map;
   for (uint32_t i = 0; i < n; i++)
      v[i] = hash32(i);
   memset(r, 0, (groups + 1) * 4);
   run_kernel(t, &k, &io.set, 1, NULL, 0, groups, 1, 1);
   uint32_t total = 0, bad = 0;
   for (uint32_t g = 0; g < groups; g++) {
      uint32_t s = 0;
      for (uint32_t i = 0; i < 256; i++)
         s += hash32(g * 256 + i);
      total += s;
      if (r[1 + g] != s && bad++ < 5)
         CHECK(false, "%s reduce: partial[%u] = %u, expected %u", d->name, g, r[1 + g], s);
   }
   CHECK(bad == 0, "%s: %u wrong partial sums", d->name, bad);
   CHECK(r[0] == total, "%s reduce: total %u, expected %u", d->name, r[0], total);
   outputs_keep(out, "reduction", r, (groups + 1) * 4);
   io_destroy(t, &io);
   vkt_kernel_destroy(t, &k);
}

static void
test_scan(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const uint32_t groups = 512, n = groups * 128;
   struct vkt_kernel k;
   kernel_create(t, &k, scan_spv, sizeof(scan_spv), two_storage, 2, NULL, 0, 0, NULL, 0);
   struct io io;
   io_create(t, &io, k.set_layouts[0], n * 4, n * 4);
   uint32_t *v = io.buf[0].map, *r = io.buf[1].map;
   for (uint32_t i = 0; i < n; i++)
      v[i] = hash32(i + 7) & 0xffff;
   run_kernel(t, &k, &io.set, 1, NULL, 0, groups, 1, 1);
   uint32_t bad = 0, sum = 0;
   for (uint32_t i = 0; i < n; i++) {
      sum = (i % 128 ? sum : 0) + (hash32(i + 7) & 0xffff);
      if (r[i] != sum && bad++ < 5)
         CHECK(false, "%s scan[%u] = %u, expected %u", d->name, i, r[i], sum);
   }
   CHECK(bad == 0, "%s: %u wrong prefix sums", d->name, bad);
   outputs_keep(out, "prefix sum", r, n * 4);
   io_destroy(t, &io);
   vkt_kernel_destroy(t, &k);
}

/* ---- atomics contended across workgroups ---- */

static void
test_atomics(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const uint32_t groups = 256, n = groups * 64;
   struct vkt_kernel k;
   kernel_create(t, &k, atomics_spv, sizeof(atomics_spv), two_storage, 2, NULL, 0, 0, NULL, 0);
   struct io io;
   io_create(t, &io, k.set_layouts[0], 64, n * 4);
   uint32_t *c = io.buf[0].map, *slot = io.buf[1].map;
   memset(c, 0, 64);
   c[3] = 0xffffffffu;
   c[6] = 0xffffffffu;
   c[8] = (uint32_t)INT32_MAX;
   c[9] = (uint32_t)INT32_MIN;
   memset(slot, 0, n * 4);
   run_kernel(t, &k, &io.set, 1, NULL, 0, groups, 1, 1);

   uint32_t want[11] = { n + (n << 16), 0, 0, 0xffffffffu, 0, 0, 0xffffffffu, n,
                         (uint32_t)INT32_MAX, (uint32_t)INT32_MIN, 3 * (n / 4) };
   for (uint32_t g = 0; g < n; g++) {
      uint32_t h = hash32(g);
      want[1] += g;
      want[2] = h > want[2] ? h : want[2];
      want[3] = h < want[3] ? h : want[3];
      want[4] ^= h;
      want[5] |= 1u << (g % 32);
      want[6] &= ~(1u << (g % 29));
      want[8] = (int32_t)h < (int32_t)want[8] ? h : want[8];
      want[9] = (int32_t)h > (int32_t)want[9] ? h : want[9];
   }
   static const char *const names[11] = { "add 1 (+ shared counts)", "add id", "max", "min", "xor",
                                          "or", "and", "ticket", "signed min", "signed max",
                                          "compare-and-swap" };
   for (int i = 0; i < 11; i++)
      CHECK(c[i] == want[i], "%s atomics %s: 0x%08x, expected 0x%08x", d->name, names[i], c[i],
            want[i]);
   /* Tickets: every slot taken by exactly one invocation. */
   uint8_t *seen = calloc(n, 1);
   uint32_t bad = 0;
   for (uint32_t i = 0; i < n; i++) {
      uint32_t g = slot[i] - 1;
      if (g >= n || seen[g]++)
         bad++;
   }
   CHECK(bad == 0, "%s atomics: %u ticket slots wrong", d->name, bad);
   free(seen);
   outputs_keep(out, "atomics", c, 11 * 4);
   io_destroy(t, &io);
   vkt_kernel_destroy(t, &k);
}

/* ---- built-ins: a 2^20-invocation dispatch, indirect and base dispatches ---- */

/* What ids.comp writes for global invocation g of workgroup size (8,4,2)
 * in a dispatch of `n` workgroups. */
static void
ids_expected(const uint32_t g[3], const uint32_t n[3], uint32_t o[4])
{
   const uint32_t ls[3] = { 8, 4, 2 };
   uint32_t l[3], w[3];
   for (int k = 0; k < 3; k++) {
      l[k] = g[k] % ls[k];
      w[k] = g[k] / ls[k];
   }
   o[0] = g[0] | (g[1] << 16);
   o[1] = g[2] | (l[0] << 16) | (l[1] << 20) | (l[2] << 24);
   o[2] = w[0] | (w[1] << 16);
   o[3] = w[2] | (n[0] << 8) | (n[1] << 16) | (n[2] << 24);
}

struct ids_run {
   struct vkt_kernel k;
   struct io io;              /* the entries, the invocation count */
   uint32_t *out, *count;     /* their maps */
   struct vkt_buffer args;
   VkDescriptorSet set;
};

static void
ids_setup(struct dev *d, struct ids_run *r, uint64_t entries, VkPipelineCreateFlags flags)
{
   struct vkt *t = &d->t;
   kernel_create(t, &r->k, ids_spv, sizeof(ids_spv), two_storage, 2, NULL, 0, 16, NULL, flags);
   io_create(t, &r->io, r->k.set_layouts[0], entries * 16, 16);
   r->set = r->io.set;
   r->out = r->io.buf[0].map;
   r->count = r->io.buf[1].map;
   r->args = make_buffer(t, 64);
   memset(r->out, 0xff, entries * 16);
   memset(r->count, 0, 16);
}

static void
ids_teardown(struct dev *d, struct ids_run *r)
{
   struct vkt *t = &d->t;
   io_destroy(t, &r->io);
   vkt_buffer_destroy(t, &r->args);
   vkt_kernel_destroy(t, &r->k);
}

/* Checks the grid `dim` (invocations): entries of workgroups in
 * [base, base + n) hold their built-ins, all others are untouched. */
static uint32_t
ids_check(struct dev *d, const struct ids_run *r, const uint32_t dim[3], const uint32_t base[3],
          const uint32_t n[3], uint32_t *checksum)
{
   const uint32_t *o = r->out;
   const uint32_t ls[3] = { 8, 4, 2 };
   uint32_t bad = 0, sum = 2166136261u;
   for (uint32_t z = 0; z < dim[2]; z++) {
      for (uint32_t y = 0; y < dim[1]; y++) {
         for (uint32_t x = 0; x < dim[0]; x++) {
            const uint32_t g[3] = { x, y, z };
            uint32_t want[4] = { ~0u, ~0u, ~0u, ~0u };
            bool inside = true;
            for (int k = 0; k < 3; k++)
               inside = inside && g[k] / ls[k] >= base[k] && g[k] / ls[k] < base[k] + n[k];
            if (inside)
               ids_expected(g, n, want);
            size_t i = ((size_t)(z * dim[1] + y) * dim[0] + x) * 4;
            for (int c = 0; c < 4; c++)
               sum = (sum ^ o[i + c]) * 16777619u;
            if (memcmp(&o[i], want, 16) && bad++ < 5)
               CHECK(false, "%s ids (%u,%u,%u): %08x %08x %08x %08x, expected %08x %08x %08x %08x",
                     d->name, x, y, z, o[i], o[i + 1], o[i + 2], o[i + 3], want[0], want[1],
                     want[2], want[3]);
         }
      }
   }
   if (checksum)
      *checksum = sum;
   return bad;
}

/* Binds ids.comp's pipeline and set, pushes the grid `dim`. */
static void
ids_bind(VkCommandBuffer cb, const struct ids_run *r, const uint32_t dim[4])
{
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->k.pipeline);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, r->k.layout, 0, 1, &r->set, 0,
                           NULL);
   vkCmdPushConstants(cb, r->k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, 16, dim);
}

/* Submits cb (its dispatches ran workgroups [base, base + n) of 64
 * invocations), checks the count and the grid, keeps the checksum under
 * the name `kept`, tears r down. */
static void
ids_finish(struct dev *d, struct ids_run *r, VkCommandBuffer cb, struct outputs *out,
           const char *what, const char *kept, const uint32_t dim[4], const uint32_t base[3], const uint32_t n[3])
{
   vkt_compute_barrier(cb);
   CHECK(vkt_submit_wait(&d->t, cb) == VK_SUCCESS, "%s %s: submit", d->name, what);
   uint32_t want = n[0] * n[1] * n[2] * 64;
   CHECK(*r->count == want, "%s %s: %u invocations, expected %u", d->name, what, *r->count, want);
   uint32_t sum;
   CHECK(ids_check(d, r, dim, base, n, &sum) == 0, "%s: %s", d->name, what);
   outputs_keep(out, kept, &sum, 4);
   ids_teardown(d, r);
}

static void
test_big_dispatch(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const uint32_t n[3] = { 32, 64, 8 }, base[3] = { 0, 0, 0 };
   const uint32_t dim[4] = { 32 * 8, 64 * 4, 8 * 2, 0 };
   const uint64_t invocations = (uint64_t)dim[0] * dim[1] * dim[2];
   struct ids_run r;
   ids_setup(d, &r, invocations, 0);
   double t0 = now_ms();
   run_kernel(t, &r.k, &r.set, 1, dim, 16, n[0], n[1], n[2]);
   double ms = now_ms() - t0;
   fprintf(stderr, "%s: dispatch of %llu invocations (%u workgroups): %.1f ms incl. submit\n",
           d->name, (unsigned long long)invocations, n[0] * n[1] * n[2], ms);
   CHECK(invocations >= 1u << 20, "big enough");
   CHECK(*r.count == invocations, "%s: %u invocations counted, expected %llu",
         d->name, *r.count, (unsigned long long)invocations);
   uint32_t sum;
   uint32_t bad = ids_check(d, &r, dim, base, n, &sum);
   CHECK(bad == 0, "%s: %u wrong entries in the big dispatch", d->name, bad);
   outputs_keep(out, "big dispatch (checksum)", &sum, 4);
   ids_teardown(d, &r);
}

static void
test_indirect(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const uint32_t n[3] = { 2, 3, 1 }, base[3] = { 0, 0, 0 };
   const uint32_t dim[4] = { 3 * 8, 3 * 4, 2 * 2, 0 };   /* room around the grid */
   struct ids_run r;
   ids_setup(d, &r, (uint64_t)dim[0] * dim[1] * dim[2], 0);
   /* The arguments are written by an earlier command of the same command
    * buffer: the dispatch must read them when it runs. */
   memset(r.args.map, 0x7f, 64);
   const uint32_t args[3] = { n[0], n[1], n[2] };
   const uint32_t zero[3] = { 0, 1, 1 };
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdUpdateBuffer(cb, r.args.buffer, 16, sizeof(args), args);
   vkCmdUpdateBuffer(cb, r.args.buffer, 32, sizeof(zero), zero);
   vkt_compute_barrier(cb);
   ids_bind(cb, &r, dim);
   vkCmdDispatchIndirect(cb, r.args.buffer, 16);
   vkCmdDispatchIndirect(cb, r.args.buffer, 32);   /* x = 0: nothing runs */
   ids_finish(d, &r, cb, out, "indirect dispatch", "indirect dispatch (checksum)", dim, base, n);
}

static void
test_dispatch_base(struct dev *d, struct outputs *out)
{
   if (!d->device_group) {
      fprintf(stderr, "%s: vkCmdDispatchBase not available (no VK_KHR_device_group): skipped\n",
              d->name);
      return;
   }
   const uint32_t n[3] = { 2, 1, 3 }, base[3] = { 1, 2, 0 };
   const uint32_t dim[4] = { 4 * 8, 4 * 4, 4 * 2, 0 };
   struct ids_run r;
   ids_setup(d, &r, (uint64_t)dim[0] * dim[1] * dim[2], VK_PIPELINE_CREATE_DISPATCH_BASE_BIT);
   VkCommandBuffer cb = vkt_begin(&d->t);
   ids_bind(cb, &r, dim);
   d->dispatch_base(cb, base[0], base[1], base[2], n[0], n[1], n[2]);
   ids_finish(d, &r, cb, out, "dispatch base", "dispatch base (checksum)", dim, base, n);
}

/* ---- specialization constants ---- */

struct spec_values {
   uint32_t wg;
   int32_t mul;
   VkBool32 negate;
   float offset;
   uint32_t shift;
};

static const VkSpecializationMapEntry spec_map[] = {
   { 0, offsetof(struct spec_values, wg), 4 },
   { 1, offsetof(struct spec_values, mul), 4 },
   { 2, offsetof(struct spec_values, negate), 4 },
   { 3, offsetof(struct spec_values, offset), 4 },
   { 4, offsetof(struct spec_values, shift), 4 },
};

/* Runs spec.comp's pipeline `k` specialised with `v` over `groups`
 * workgroups and checks everything it wrote against the C reference. */
static void
spec_verify(struct dev *d, struct outputs *out, const struct vkt_kernel *k,
            const struct spec_values *v, uint32_t groups)
{
   struct vkt *t = &d->t;
   uint32_t n = v->wg * groups;
   struct io io;
   io_create(t, &io, k->set_layouts[0], n * 4, (n + 1) * 4);
   run_kernel(t, k, &io.set, 1, NULL, 0, groups, 1, 1);
   const float *of = io.buf[0].map;
   const uint32_t *info_out = io.buf[1].map;
   int32_t mul2 = v->mul * 3 + 1;
   uint32_t mask = (1u << v->shift) - 1u;
   bool both = v->negate && v->mul > 4;
   uint32_t bad = 0;
   for (uint32_t i = 0; i < n; i++) {
      uint32_t l = i % v->wg;
      float fv = (float)((int32_t)i * v->mul) + v->offset;
      float want = v->negate ? -fv : fv;
      uint32_t nb = (((l + 1) % v->wg) * (uint32_t)mul2) & 0xffffu;
      uint32_t want_info = nb | ((i & mask) << 16) | (both ? 0x80000000u : 0u);
      if ((of[i] != want || info_out[i] != want_info) && bad++ < 5)
         CHECK(false, "%s spec (wg %u, mul %d): [%u] = %g / %08x, expected %g / %08x", d->name,
               v->wg, v->mul, i, of[i], info_out[i], want, want_info);
   }
   CHECK(bad == 0, "%s: %u wrong specialised results (wg %u)", d->name, bad, v->wg);
   CHECK(info_out[n] == v->wg, "%s: gl_WorkGroupSize.x = %u, expected %u", d->name, info_out[n],
         v->wg);
   if (out) {
      outputs_keep(out, "specialization (floats)", of, n * 4);
      outputs_keep(out, "specialization (ints)", info_out, (n + 1) * 4);
   }
   io_destroy(t, &io);
}

static void
spec_run(struct dev *d, struct outputs *out, const struct spec_values *sv, uint32_t groups)
{
   const VkSpecializationInfo info = { ARRAY_SIZE(spec_map), spec_map, sizeof(*sv), sv };
   const struct spec_values defaults = { 1, 2, VK_FALSE, 0.5f, 3 };
   struct vkt_kernel k;
   kernel_create(&d->t, &k, spec_spv, sizeof(spec_spv), two_storage, 2, NULL, 0, 0,
                 sv ? &info : NULL, 0);
   spec_verify(d, out, &k, sv ? sv : &defaults, groups);
   vkt_kernel_destroy(&d->t, &k);
}

static void
test_spec(struct dev *d, struct outputs *out)
{
   const struct spec_values a = { 100, 5, VK_TRUE, -1.25f, 5 };
   const struct spec_values b = { 32, 7, VK_FALSE, 3.0f, 1 };
   const struct spec_values c = { 1000, -3, VK_TRUE, 0.0f, 10 };
   spec_run(d, out, NULL, 4);   /* the defaults: a workgroup of one */
   spec_run(d, out, &a, 3);
   spec_run(d, out, &b, 5);
   spec_run(d, out, &c, 2);
}

/* ---- descriptor writes, copies, templates, dynamic offsets ---- */

/* Layout of the data buffer the select shader reads. */
#define SEL_A(k) ((k) * 256u)              /* arr[k]: 16 uints */
#define SEL_U 768u                         /* uniform: uvec4 */
#define SEL_DU(k) (1024u + (k) * 256u)     /* dynamic uniform regions */
#define SEL_DS(k) (2048u + (k) * 256u)     /* dynamic storage regions */
#define SEL_SIZE 3072u

static uint32_t
sel_value(uint32_t offset, uint32_t i)
{
   return hash32(offset * 131 + i) & 0xffffff;
}

static void
sel_fill(uint32_t *data)
{
   for (uint32_t w = 0; w < SEL_SIZE / 4; w++)
      data[w] = sel_value(w * 4 & ~255u, w % 64);
}

/* Checks the select shader's 96 outputs: arrays from regions a[0..2], the
 * uniform, dynamic uniform region du and dynamic storage region ds as it
 * was before the dispatch (`ds_before`). */
static void
sel_check(struct dev *d, const char *what, const uint32_t *o, const uint32_t a[3], uint32_t du,
          const uint32_t *ds_before)
{
   uint32_t bad = 0;
   for (uint32_t i = 0; i < 16; i++) {
      uint32_t want[6] = {
         sel_value(a[0], i), sel_value(a[1], i), sel_value(a[2], i), sel_value(SEL_U, i % 4),
         sel_value(du, i % 4), ds_before[i],
      };
      for (int r = 0; r < 6; r++)
         if (o[r * 16 + i] != want[r] && bad++ < 5)
            CHECK(false, "%s %s: o[%u] = %06x, expected %06x", d->name, what, r * 16 + i,
                  o[r * 16 + i], want[r]);
   }
   CHECK(bad == 0, "%s %s: %u wrong reads", d->name, what, bad);
}

static void
test_select(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const VkPhysicalDeviceLimits *lim = &t->props.limits;
   CHECK(lim->minStorageBufferOffsetAlignment <= 256 && lim->minUniformBufferOffsetAlignment <= 256,
         "%s: offset alignments above 256", d->name);
   const VkDescriptorSetLayoutBinding b0[] = {
      BINDING(0, UNIFORM, 1), BINDING(1, STORAGE, 3), BINDING(2, STORAGE, 1),
   };
   const VkDescriptorSetLayoutBinding b1[] = {
      BINDING(0, UNIFORM_DYN, 1), BINDING(1, STORAGE_DYN, 1),
   };
   struct vkt_kernel k;
   kernel_create(t, &k, select_spv, sizeof(select_spv), b0, 3, b1, 2, 0, NULL, 0);
   struct vkt_buffer data = make_buffer(t, SEL_SIZE), ob = make_buffer(t, 96 * 4);
   VkDescriptorPool pool = make_big_pool(t);
   uint32_t *dm = data.map, *o = ob.map;
   sel_fill(dm);
   VkBuffer db = data.buffer;

   /* a. Writes; the array and the output in one write that rolls over
    * from binding 1 (3 elements) into binding 2. */
   VkDescriptorSet set0 = alloc_set(t, pool, k.set_layouts[0]);
   VkDescriptorSet set1 = alloc_set(t, pool, k.set_layouts[1]);
   write_buffer(t, set0, 0, UNIFORM, db, SEL_U, 16);
   const VkDescriptorBufferInfo roll[4] = {
      { db, SEL_A(0), 64 }, { db, SEL_A(1), 64 }, { db, SEL_A(2), 64 },
      { ob.buffer, 0, VK_WHOLE_SIZE },
   };
   vkt_write_buffers(t, set0, 1, 0, STORAGE, roll, 4);
   write_buffer(t, set1, 0, UNIFORM_DYN, db, SEL_DU(0), 16);
   write_buffer(t, set1, 1, STORAGE_DYN, db, SEL_DS(0), 64);
   VkDescriptorSet sets[2] = { set0, set1 };
   uint32_t ds0[16], ds1[16], ds2[16];
   memcpy(ds0, dm + SEL_DS(0) / 4, 64);
   memcpy(ds1, dm + SEL_DS(1) / 4, 64);
   memcpy(ds2, dm + SEL_DS(2) / 4, 64);
   const uint32_t zero_offsets[2] = { 0, 0 };
   run_once(d, &k, sets, 2, zero_offsets);
   const uint32_t a012[3] = { SEL_A(0), SEL_A(1), SEL_A(2) };
   sel_check(d, "writes", o, a012, SEL_DU(0), ds0);
   outputs_keep(out, "descriptor writes", o, 96 * 4);
   for (uint32_t i = 0; i < 16; i++)
      ds0[i] = ds0[i] * 2 + 1;
   CHECK(!memcmp(dm + SEL_DS(0) / 4, ds0, 64), "%s: dynamic storage write (offset 0)", d->name);

   /* b. Dynamic offsets: two binds of set 1 with different offsets in one
    * command buffer; each dispatch reads and writes its own regions. */
   VkCommandBuffer cb = vkt_begin(t);
   vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
   const uint32_t off1[2] = { 256, 256 }, off2[2] = { 512, 512 };
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 2, sets, 2, off1);
   vkCmdDispatch(cb, 1, 1, 1);
   vkt_compute_barrier(cb);
   vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 1, 1, &set1, 2, off2);
   vkCmdDispatch(cb, 1, 1, 1);
   vkt_compute_barrier(cb);
   CHECK(vkt_submit_wait(t, cb) == VK_SUCCESS, "submit");
   sel_check(d, "dynamic offsets", o, a012, SEL_DU(2), ds2);
   outputs_keep(out, "dynamic offsets", o, 96 * 4);
   for (uint32_t i = 0; i < 16; i++) {
      ds1[i] = ds1[i] * 2 + 1;
      ds2[i] = ds2[i] * 2 + 1;
   }
   CHECK(!memcmp(dm + SEL_DS(0) / 4, ds0, 64), "%s: region 0 touched by later binds", d->name);
   CHECK(!memcmp(dm + SEL_DS(1) / 4, ds1, 64), "%s: dynamic storage write (offset 256)", d->name);
   CHECK(!memcmp(dm + SEL_DS(2) / 4, ds2, 64), "%s: dynamic storage write (offset 512)", d->name);

   /* c. Copies: swap the first two array elements, and copy the last one
    * together with the output (rolling over into binding 2). */
   VkDescriptorSet copy0 = alloc_set(t, pool, k.set_layouts[0]);
   const VkCopyDescriptorSet copies[] = {
      { VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET, NULL, set0, 1, 1, copy0, 1, 0, 1 },
      { VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET, NULL, set0, 1, 0, copy0, 1, 1, 1 },
      { VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET, NULL, set0, 1, 2, copy0, 1, 2, 2 },
      { VK_STRUCTURE_TYPE_COPY_DESCRIPTOR_SET, NULL, set0, 0, 0, copy0, 0, 0, 1 },
   };
   vkUpdateDescriptorSets(t->device, 0, NULL, ARRAY_SIZE(copies), copies);
   VkDescriptorSet csets[2] = { copy0, set1 };
   run_once(d, &k, csets, 2, off1);
   const uint32_t a102[3] = { SEL_A(1), SEL_A(0), SEL_A(2) };
   sel_check(d, "copies", o, a102, SEL_DU(1), ds1);
   outputs_keep(out, "descriptor copies", o, 96 * 4);
   for (uint32_t i = 0; i < 16; i++)
      ds1[i] = ds1[i] * 2 + 1;

   /* d. An update template with strided, interleaved data. */
   if (d->templates) {
      struct {
         VkDescriptorBufferInfo u;
         VkDescriptorBufferInfo arr[6];   /* every other one is used */
         VkDescriptorBufferInfo out;
      } tdata;
      memset(&tdata, 0, sizeof(tdata));
      tdata.u = (VkDescriptorBufferInfo) { db, SEL_U, 16 };
      tdata.arr[0] = (VkDescriptorBufferInfo) { db, SEL_A(2), 64 };
      tdata.arr[2] = (VkDescriptorBufferInfo) { db, SEL_A(1), 64 };
      tdata.arr[4] = (VkDescriptorBufferInfo) { db, SEL_A(0), 64 };
      tdata.out = (VkDescriptorBufferInfo) { ob.buffer, 0, VK_WHOLE_SIZE };
      const VkDescriptorUpdateTemplateEntry entries[] = {
         { 0, 0, 1, UNIFORM, offsetof(__typeof__(tdata), u), 0 },
         { 1, 0, 3, STORAGE, offsetof(__typeof__(tdata), arr), 2 * sizeof(VkDescriptorBufferInfo) },
         { 2, 0, 1, STORAGE, offsetof(__typeof__(tdata), out), 0 },
      };
      VkDescriptorUpdateTemplateCreateInfo tci = {
         .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO,
         .descriptorUpdateEntryCount = ARRAY_SIZE(entries),
         .pDescriptorUpdateEntries = entries,
         .templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET,
         .descriptorSetLayout = k.set_layouts[0],
      };
      VkDescriptorUpdateTemplate tmpl;
      VkResult r = d->create_template(t->device, &tci, NULL, &tmpl);
      CHECK(r == VK_SUCCESS, "vkCreateDescriptorUpdateTemplate: %d", r);
      VkDescriptorSet tset = alloc_set(t, pool, k.set_layouts[0]);
      d->update_with_template(t->device, tset, tmpl, &tdata);
      d->destroy_template(t->device, tmpl, NULL);
      VkDescriptorSet tsets[2] = { tset, set1 };
      run_once(d, &k, tsets, 2, off2);
      const uint32_t a210[3] = { SEL_A(2), SEL_A(1), SEL_A(0) };
      sel_check(d, "update template", o, a210, SEL_DU(2), ds2);
      outputs_keep(out, "update template", o, 96 * 4);
   } else {
      fprintf(stderr, "%s: no VK_KHR_descriptor_update_template: template part skipped\n",
              d->name);
   }

   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_buffer_destroy(t, &data);
   vkt_buffer_destroy(t, &ob);
   vkt_kernel_destroy(t, &k);
}

/* Arrays of buffers indexed with dynamically uniform values. */
static void
test_dynamic_indexing(struct dev *d, struct outputs *out)
{
   if (!d->dynamic_indexing) {
      fprintf(stderr, "%s: buffer-array dynamic indexing not claimed: skipped\n", d->name);
      return;
   }
   struct vkt *t = &d->t;
   const VkDescriptorSetLayoutBinding b[] = {
      BINDING(0, STORAGE, 3), BINDING(1, UNIFORM, 2), BINDING(2, STORAGE, 1),
   };
   struct vkt_kernel k;
   kernel_create(t, &k, dynidx_spv, sizeof(dynidx_spv), b, 3, NULL, 0, 4, NULL, 0);
   struct vkt_buffer data = make_buffer(t, SEL_SIZE), ob = make_buffer(t, 6 * 16 * 4);
   sel_fill(data.map);
   VkDescriptorPool pool = make_big_pool(t);
   VkDescriptorSet set = alloc_set(t, pool, k.set_layouts[0]);
   /* Array elements in an order the shader cannot guess. */
   const VkDescriptorBufferInfo arr[3] = {
      { data.buffer, SEL_A(2), 64 }, { data.buffer, SEL_A(0), 64 }, { data.buffer, SEL_A(1), 64 },
   };
   const VkDescriptorBufferInfo ubo[2] = {
      { data.buffer, SEL_DU(1), 16 }, { data.buffer, SEL_U, 16 },
   };
   vkt_write_buffers(t, set, 0, 0, STORAGE, arr, 3);
   vkt_write_buffers(t, set, 1, 0, UNIFORM, ubo, 2);
   write_buffer(t, set, 2, STORAGE, ob.buffer, 0, VK_WHOLE_SIZE);
   const uint32_t sel = 1;
   run_kernel(t, &k, &set, 1, &sel, 4, 6, 1, 1);
   const uint32_t *o = ob.map;
   uint32_t bad = 0;
   for (uint32_t g = 0; g < 6; g++) {
      for (uint32_t i = 0; i < 16; i++) {
         uint32_t a = (uint32_t)arr[g % 3].offset, u = (uint32_t)ubo[(sel + g) & 1].offset;
         uint32_t want = sel_value(a, i) * 3 + sel_value(u, i % 4);
         if (o[g * 16 + i] != want && bad++ < 5)
            CHECK(false, "%s dynamic indexing [%u][%u] = %u, expected %u", d->name, g, i,
                  o[g * 16 + i], want);
      }
   }
   CHECK(bad == 0, "%s: %u wrong reads through dynamically indexed arrays", d->name, bad);
   outputs_keep(out, "dynamic indexing", o, 6 * 16 * 4);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_buffer_destroy(t, &data);
   vkt_buffer_destroy(t, &ob);
   vkt_kernel_destroy(t, &k);
}

/* One descriptor set bound at set numbers 0 and 1 with different dynamic
 * offsets in the same vkCmdBindDescriptorSets. */
static void
test_two_sets(struct dev *d, struct outputs *out)
{
   struct vkt *t = &d->t;
   const VkDescriptorSetLayoutBinding b[] = { BINDING(0, STORAGE_DYN, 1) };
   struct vkt_kernel k;
   memset(&k, 0, sizeof(k));
   k.module = make_module(t, twosets_spv, sizeof(twosets_spv));
   k.set_layouts[0] = make_set_layout(t, b, 1);
   k.set_count = 1;
   const VkDescriptorSetLayout both[2] = { k.set_layouts[0], k.set_layouts[0] };
   VkPipelineLayoutCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 2,
      .pSetLayouts = both,
   };
   CHECK(vkCreatePipelineLayout(t->device, &ci, NULL, &k.layout) == VK_SUCCESS, "layout");
   k.pipeline = make_pipeline(t, VK_NULL_HANDLE, k.module, k.layout, NULL, NULL);
   struct vkt_buffer buf = make_buffer(t, 512);
   uint32_t *m = buf.map;
   for (uint32_t i = 0; i < 128; i++)
      m[i] = 5 + i * 3;
   VkDescriptorPool pool = make_big_pool(t);
   VkDescriptorSet set = alloc_set(t, pool, k.set_layouts[0]);
   write_buffer(t, set, 0, STORAGE_DYN, buf.buffer, 0, 16);
   const VkDescriptorSet sets[2] = { set, set };
   const uint32_t offsets[2] = { 0, 256 };
   run_once(d, &k, sets, 2, offsets);
   for (uint32_t i = 0; i < 4; i++) {
      CHECK(m[i] == 5 + i * 3, "%s two sets: a[%u] changed", d->name, i);
      CHECK(m[64 + i] == (5 + i * 3) * 10 + i, "%s two sets: b[%u] = %u, expected %u", d->name, i,
            m[64 + i], (5 + i * 3) * 10 + i);
   }
   CHECK(m[68] == 5 + 68 * 3, "%s two sets: wrote past the range", d->name);
   outputs_keep(out, "one set at two set numbers", m, 512);
   vkDestroyDescriptorPool(t->device, pool, NULL);
   vkt_buffer_destroy(t, &buf);
   vkt_kernel_destroy(t, &k);
}

/* ---- descriptor pools ---- */

/* Shale only. Allocating past a pool's limits is valid usage from
 * VK_KHR_maintenance1 on (VK_ERROR_OUT_OF_POOL_MEMORY); without it the
 * validation layer flags it, so the device runs without the layer then. */
static void
test_pools(void)
{
   struct dev d;
   if (!dev_init(&d, VKT_SHALE, false, true)) {
      CHECK(false, "no Shale device");
      return;
   }
   if (!d.maintenance1) {
      dev_finish(&d);
      fprintf(stderr, "pools: no VK_KHR_maintenance1: pool exhaustion runs without the layer\n");
      if (!dev_init(&d, VKT_SHALE, false, false)) {
         CHECK(false, "no Shale device");
         return;
      }
   }
   struct vkt *t = &d.t;
   const VkDescriptorSetLayoutBinding two[] = { BINDING(0, STORAGE, 2) };
   const VkDescriptorSetLayoutBinding one[] = { BINDING(0, STORAGE, 1) };
   const VkDescriptorSetLayoutBinding mixed[] = {
      BINDING(0, UNIFORM, 1), BINDING(3, STORAGE, 1), BINDING(5, UNIFORM_DYN, 2),
   };
   VkDescriptorSetLayout l2 = make_set_layout(t, two, 1);
   VkDescriptorSetLayout l1 = make_set_layout(t, one, 1);
   VkDescriptorSetLayout lm = make_set_layout(t, mixed, ARRAY_SIZE(mixed));
   VkDescriptorSetLayout l0 = make_set_layout(t, NULL, 0);

   /* Accounting: 3 storage buffers, 1 uniform buffer, 2 sets. */
   const VkDescriptorPoolSize sizes[] = { { STORAGE, 3 }, { UNIFORM, 1 } };
   VkDescriptorPool pool = make_pool(t, 2, sizes, ARRAY_SIZE(sizes), 0);
   VkDescriptorSet s[4];
   CHECK(vkt_alloc_sets(t, pool, &l2, 1, &s[0]) == VK_SUCCESS, "first set");
   s[1] = (VkDescriptorSet)(uintptr_t)0x1234;
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, &l2, 1, &s[1]), VK_ERROR_OUT_OF_POOL_MEMORY);
   CHECK(s[1] == VK_NULL_HANDLE, "failed allocation left a handle");
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, &lm, 1, &s[1]), VK_ERROR_OUT_OF_POOL_MEMORY);   /* no dynamic */
   CHECK(vkt_alloc_sets(t, pool, &l1, 1, &s[1]) == VK_SUCCESS, "last storage buffer");
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, &l0, 1, &s[2]), VK_ERROR_OUT_OF_POOL_MEMORY);   /* maxSets */
   CHECK(vkResetDescriptorPool(t->device, pool, 0) == VK_SUCCESS, "reset");
   /* All or nothing: the second of two fails, the first is given back. */
   const VkDescriptorSetLayout pair[2] = { l2, l2 };
   s[0] = s[1] = (VkDescriptorSet)(uintptr_t)0x1234;
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, pair, 2, s), VK_ERROR_OUT_OF_POOL_MEMORY);
   CHECK(s[0] == VK_NULL_HANDLE && s[1] == VK_NULL_HANDLE, "handles of a failed allocation");
   const VkDescriptorSetLayout fits[2] = { l2, l1 };
   CHECK(vkt_alloc_sets(t, pool, fits, 2, s) == VK_SUCCESS, "pool holds 2 + 1 after the failure");
   vkDestroyDescriptorPool(t->device, pool, NULL);

   /* Free: four single-descriptor sets; freeing gives the space back. */
   const VkDescriptorPoolSize four[] = { { STORAGE, 4 } };
   pool = make_pool(t, 4, four, 1, VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT);
   const VkDescriptorSetLayout ones[4] = { l1, l1, l1, l1 };
   CHECK(vkt_alloc_sets(t, pool, ones, 4, s) == VK_SUCCESS, "four sets");
   VkDescriptorSet extra[4];
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, &l1, 1, extra), VK_ERROR_OUT_OF_POOL_MEMORY);
   CHECK(extra[0] == VK_NULL_HANDLE, "handle");
   CHECK(vkt_alloc_sets(t, pool, ones, 4, extra) == VK_ERROR_OUT_OF_POOL_MEMORY, "full");
   vkResetDescriptorPool(t->device, pool, 0);
   CHECK(vkt_alloc_sets(t, pool, ones, 4, s) == VK_SUCCESS, "four sets after reset");
   CHECK(vkFreeDescriptorSets(t->device, pool, 1, &s[1]) == VK_SUCCESS, "free");
   VkDescriptorSet again;
   CHECK(vkt_alloc_sets(t, pool, &l1, 1, &again) == VK_SUCCESS, "same-size set after a free");
   s[1] = again;
   /* Free two sets that are not neighbours: two descriptors are free but
    * not contiguous, so a two-descriptor set does not fit. */
   const VkDescriptorSet odd[2] = { s[0], s[2] };
   CHECK(vkFreeDescriptorSets(t->device, pool, 2, odd) == VK_SUCCESS, "free two");
   VkDescriptorSet big = (VkDescriptorSet)(uintptr_t)0x1234;
   CHECK_EQ_INT(vkt_alloc_sets(t, pool, &l2, 1, &big), VK_ERROR_FRAGMENTED_POOL);
   CHECK(big == VK_NULL_HANDLE, "handle after fragmentation");
   const VkDescriptorSet rest[3] = { s[1], VK_NULL_HANDLE, s[3] };
   CHECK(vkFreeDescriptorSets(t->device, pool, 3, rest) == VK_SUCCESS, "free with a null handle");
   CHECK(vkt_alloc_sets(t, pool, &l2, 1, &big) == VK_SUCCESS, "two after everything was freed");
   const VkDescriptorSetLayout two_ones[2] = { l1, l1 };
   CHECK(vkt_alloc_sets(t, pool, two_ones, 2, s) == VK_SUCCESS, "and two more");
   vkDestroyDescriptorPool(t->device, pool, NULL);   /* frees the live sets */

   /* Empty layouts take no descriptors, only a set. */
   pool = make_pool(t, 3, four, 1, 0);
   const VkDescriptorSetLayout empties[3] = { l0, l0, l0 };
   CHECK(vkt_alloc_sets(t, pool, empties, 3, s) == VK_SUCCESS, "empty sets");
   vkDestroyDescriptorPool(t->device, pool, NULL);

   vkDestroyDescriptorSetLayout(t->device, l0, NULL);
   vkDestroyDescriptorSetLayout(t->device, l1, NULL);
   vkDestroyDescriptorSetLayout(t->device, lm, NULL);
   vkDestroyDescriptorSetLayout(t->device, l2, NULL);
   dev_finish(&d);
}

/* ---- invalid SPIR-V (Shale, without the validation layer) ---- */

static void
test_invalid_spirv(void)
{
   struct dev d;
   if (!dev_init(&d, VKT_SHALE, false, false)) {
      CHECK(false, "no Shale device");
      return;
   }
   struct vkt *t = &d.t;
   /* SAXPY's valid module and its layout. */
   const struct vkt_kernel_info info = {
      .code = saxpy_spv,
      .code_size = sizeof(saxpy_spv),
      .bindings = { two_storage },
      .binding_counts = { 2 },
      .push_size = 8,
      .no_pipeline = true,
   };
   struct vkt_kernel saxpy;
   CHECK(vkt_kernel_create(t, &info, &saxpy) == VK_SUCCESS, "saxpy's module and layout");
   const VkPipelineLayout layout = saxpy.layout;
   const size_t nwords = sizeof(saxpy_spv) / 4;
   uint32_t *words = malloc(sizeof(saxpy_spv));

   /* Not SPIR-V at all: refused by vkCreateShaderModule. */
   memcpy(words, saxpy_spv, sizeof(saxpy_spv));
   words[0] = 0xdeadbeef;
   VkShaderModuleCreateInfo mci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = sizeof(saxpy_spv),
      .pCode = words,
   };
   VkShaderModule m = VK_NULL_HANDLE;
   /* The code: VK_ERROR_UNKNOWN, core since Vulkan 1.0 and allowed from any
    * command when the application's input is invalid; the commands' own
    * lists offer only out-of-memory codes and VK_NV_glsl_shader's. */
   VkResult r = vkCreateShaderModule(t->device, &mci, NULL, &m);
   CHECK(r == VK_ERROR_UNKNOWN, "bad magic: vkCreateShaderModule returned %d", r);
   mci.codeSize = 12;
   words[0] = saxpy_spv[0];
   r = vkCreateShaderModule(t->device, &mci, NULL, &m);
   CHECK(r == VK_ERROR_UNKNOWN, "3 words: vkCreateShaderModule returned %d", r);

   /* Damaged modules: accepted as modules, refused by the pipeline. */
   struct {
      const char *what;
      size_t keep_words;
      size_t word;
      uint32_t value;
      const char *entry;
   } cases[] = {
      { "an unknown opcode", nwords, 40, (7u << 16) | 0xfff0u, "main" },
      { "a truncated module", 60, 0, 0, "main" },
      { "an id past the bound", nwords, 3, 4, "main" },
      { "a missing entry point", nwords, 0, 0, "nope" },
   };
   for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
      memcpy(words, saxpy_spv, sizeof(saxpy_spv));
      if (cases[c].word)
         words[cases[c].word] = cases[c].value;
      mci.codeSize = cases[c].keep_words * 4;
      mci.pCode = words;
      m = VK_NULL_HANDLE;
      r = vkCreateShaderModule(t->device, &mci, NULL, &m);
      if (r != VK_SUCCESS) {
         CHECK(r < 0, "%s: module result %d", cases[c].what, r);
         continue;
      }
      VkComputePipelineCreateInfo pci = {
         .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
         .stage = { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                    VK_SHADER_STAGE_COMPUTE_BIT, m, cases[c].entry, NULL },
         .layout = layout,
      };
      VkPipeline p = (VkPipeline)(uintptr_t)0x1234;
      r = vkCreateComputePipelines(t->device, VK_NULL_HANDLE, 1, &pci, NULL, &p);
      CHECK(r == VK_ERROR_UNKNOWN, "%s: vkCreateComputePipelines returned %d", cases[c].what, r);
      CHECK(p == VK_NULL_HANDLE, "%s: pipeline handle not NULL", cases[c].what);
      vkDestroyShaderModule(t->device, m, NULL);
   }

   /* A batch with a bad pipeline in the middle: the others are made. */
   const VkShaderModule good = saxpy.module;
   VkComputePipelineCreateInfo batch[3];
   for (int i = 0; i < 3; i++)
      batch[i] = (VkComputePipelineCreateInfo) {
         .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
         .stage = { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                    VK_SHADER_STAGE_COMPUTE_BIT, good, i == 1 ? "missing" : "main", NULL },
         .layout = layout,
      };
   VkPipeline ps[3];
   r = vkCreateComputePipelines(t->device, VK_NULL_HANDLE, 3, batch, NULL, ps);
   CHECK(r < 0, "batch: %d", r);
   CHECK(ps[0] && !ps[1] && ps[2], "batch handles: %p %p %p", (void *)ps[0], (void *)ps[1],
         (void *)ps[2]);
   for (int i = 0; i < 3; i++)
      vkDestroyPipeline(t->device, ps[i], NULL);

   /* Random damage: every outcome is an error code or a pipeline, never a
    * crash (the pipelines are not run). */
   uint32_t seed = 12345, errors = 0, made = 0;
   for (int i = 0; i < 300; i++) {
      memcpy(words, saxpy_spv, sizeof(saxpy_spv));
      for (int f = 0; f < 1 + i % 3; f++) {
         seed = seed * 1664525u + 1013904223u;
         size_t w = 5 + (seed >> 8) % (nwords - 5);
         seed = seed * 1664525u + 1013904223u;
         words[w] ^= (i & 1) ? 1u << (seed >> 27) : seed;
      }
      mci.codeSize = sizeof(saxpy_spv);
      m = VK_NULL_HANDLE;
      if (vkCreateShaderModule(t->device, &mci, NULL, &m) != VK_SUCCESS) {
         errors++;
         continue;
      }
      VkComputePipelineCreateInfo pci = batch[0];
      pci.stage.module = m;
      VkPipeline p = VK_NULL_HANDLE;
      r = vkCreateComputePipelines(t->device, VK_NULL_HANDLE, 1, &pci, NULL, &p);
      if (r == VK_SUCCESS) {
         CHECK(p != VK_NULL_HANDLE, "success without a pipeline");
         made++;
      } else {
         CHECK(r < 0 && p == VK_NULL_HANDLE, "fuzz %d: result %d", i, r);
         errors++;
      }
      vkDestroyPipeline(t->device, p, NULL);
      vkDestroyShaderModule(t->device, m, NULL);
   }
   fprintf(stderr, "damaged SPIR-V: %u refused, %u still valid and compiled\n", errors, made);
   CHECK(errors > 0, "random damage never detected");

   free(words);
   vkt_kernel_destroy(t, &saxpy);
   dev_finish(&d);
}

/* ---- pipeline cache ---- */

static uint32_t
le32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint8_t *
cache_data(struct vkt *t, VkPipelineCache cache, size_t *size)
{
   *size = 0;
   CHECK(vkGetPipelineCacheData(t->device, cache, size, NULL) == VK_SUCCESS, "size query");
   uint8_t *data = malloc(*size ? *size : 1);
   VkResult r = vkGetPipelineCacheData(t->device, cache, size, data);
   CHECK(r == VK_SUCCESS, "vkGetPipelineCacheData: %d", r);
   return data;
}

static void
check_header(struct vkt *t, const uint8_t *data, size_t size, const char *what)
{
   CHECK(size >= 32, "%s: %zu bytes", what, size);
   if (size < 32)
      return;
   CHECK(le32(data) == 32, "%s: header length %u", what, le32(data));
   CHECK(le32(data + 4) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE, "%s: header version %u", what,
         le32(data + 4));
   CHECK(le32(data + 8) == t->props.vendorID, "%s: vendorID", what);
   CHECK(le32(data + 12) == t->props.deviceID, "%s: deviceID", what);
   CHECK(!memcmp(data + 16, t->props.pipelineCacheUUID, VK_UUID_SIZE), "%s: pipelineCacheUUID",
         what);
}

static VkPipelineCache
make_cache(struct vkt *t, const void *data, size_t size)
{
   VkPipelineCache c;
   VkResult r = vkt_pipeline_cache(t, data, size, &c);
   CHECK(r == VK_SUCCESS, "vkCreatePipelineCache: %d", r);
   return c;
}

/* Creates spec.comp's pipeline through `cache` and counts, from the
 * driver's SHALE_DEBUG=info log, LLVM compilations and cache hits. */
static VkPipeline
cached_pipeline(struct vkt *t, VkPipelineCache cache, VkShaderModule module,
                VkPipelineLayout layout, const VkSpecializationInfo *spec, unsigned *compiles,
                unsigned *app_hits, unsigned *memory_hits, double *ms, const void *pnext)
{
   struct capture cap;
   capture_begin(&cap);
   double t0 = now_ms();
   VkPipeline p = make_pipeline(t, cache, module, layout, spec, pnext);
   *ms = now_ms() - t0;
   char *log = capture_end(&cap);
   *compiles = count_of(log, "LLVM compile");
   *app_hits = count_of(log, "pipeline cache hit in") + count_of(log, "pipeline cache data hit");
   *memory_hits = count_of(log, "memory cache hit in");
   free(log);
   return p;
}

/* A Shale device and spec.comp's module and layout, without a pipeline. */
static bool
spec_kernel_begin(struct dev *d, struct vkt_kernel *k)
{
   memset(k, 0, sizeof(*k));
   if (!dev_init(d, VKT_SHALE, false, true)) {
      CHECK(false, "no Shale device");
      return false;
   }
   const struct vkt_kernel_info info = {
      .code = spec_spv,
      .code_size = sizeof(spec_spv),
      .bindings = { two_storage },
      .binding_counts = { 2 },
      .no_pipeline = true,
   };
   CHECK(vkt_kernel_create(&d->t, &info, k) == VK_SUCCESS, "spec.comp's module and layout");
   return true;
}

/* Destroys the kernel (its pipeline too) and the device: with no Shale
 * device left in the process, the shader runtime and its memory cache are
 * gone. */
static void
spec_kernel_end(struct dev *d, struct vkt_kernel *k)
{
   vkt_kernel_destroy(&d->t, k);
   dev_finish(d);
}

/* Two tiers: a pipeline that misses every cache runs baseline code at once
 * while the optimizer compiles its optimized code; writing cache data
 * waits for the optimized code, and both codes compute the same results
 * (SHALE_JIT_BASELINE=0 turns the baseline tier off). */
static void
test_tiers(void)
{
   const char *env = getenv("SHALE_JIT_BASELINE");
   bool tiers = !(env && strcmp(env, "0") == 0);
   struct dev d;
   struct vkt_kernel k;
   if (!spec_kernel_begin(&d, &k))
      return;
   struct vkt *t = &d.t;
   const struct spec_values sv = { 32, 7919, VK_TRUE, -1.5f, 5 };
   const VkSpecializationInfo spec = { ARRAY_SIZE(spec_map), spec_map, sizeof(sv), &sv };
   VkPipelineCache c1 = make_cache(t, NULL, 0);

   struct capture cap;
   capture_begin(&cap);
   k.pipeline = make_pipeline(t, c1, k.module, k.layout, &spec, NULL);
   spec_verify(&d, NULL, &k, &sv, 4);   /* at once: usually baseline code */
   size_t size1;
   uint8_t *data1 = cache_data(t, c1, &size1);   /* waits for the optimized code */
   char *log = capture_end(&cap);
   unsigned baseline = count_of(log, "baseline code (optimized code follows)");
   unsigned scalar = count_of(log, "scalar baseline code (optimized code follows)");
   unsigned optimized = count_of(log, "optimized code in place");
   unsigned refused = count_of(log, "no scalar baseline code");
   free(log);
   if (tiers) {
      CHECK(baseline == 1 && optimized == 1,
            "two tiers: %u baseline compiles, %u optimized codes placed before the cache data",
            baseline, optimized);
      /* spec.comp uses no subgroups: its baseline code is scalar. */
      CHECK(scalar == 1 && refused == 0, "spec.comp: %u scalar baseline compiles, %u refused",
            scalar, refused);
   } else {
      CHECK(baseline == 0 && optimized == 0 && scalar == 0 && refused == 0,
            "SHALE_JIT_BASELINE=0: %u baseline (%u scalar, %u refused), %u optimized", baseline,
            scalar, refused, optimized);
   }
   spec_verify(&d, NULL, &k, &sv, 4);   /* optimized code now */

   /* The data holds the optimized code: a new device links it, no LLVM. */
   vkDestroyPipeline(t->device, k.pipeline, NULL);
   k.pipeline = VK_NULL_HANDLE;
   vkDestroyPipelineCache(t->device, c1, NULL);
   spec_kernel_end(&d, &k);
   if (!spec_kernel_begin(&d, &k)) {
      free(data1);
      return;
   }
   t = &d.t;
   VkPipelineCache c2 = make_cache(t, data1, size1);
   unsigned compiles, app_hits, mem_hits;
   double ms;
   k.pipeline = cached_pipeline(t, c2, k.module, k.layout, &spec, &compiles, &app_hits,
                                &mem_hits, &ms, NULL);
   CHECK(compiles == 0 && app_hits == 1, "reloaded optimized code: %u compilations, %u hits",
         compiles, app_hits);
   spec_verify(&d, NULL, &k, &sv, 4);
   vkDestroyPipelineCache(t->device, c2, NULL);
   spec_kernel_end(&d, &k);
   free(data1);
}

/* ---- optimized code taking over from baseline code mid-dispatch ---- */

/* takeover.comp's rounds for invocation i, its hash chain, and its result
 * (its chain mixed with its right neighbour's in the workgroup of 64). */
static uint32_t
takeover_rounds(uint32_t i)
{
   return 32 + (hash32(i + 0x9e3779b9u) & 63);
}

static uint32_t
takeover_chain(uint32_t i, uint32_t seed)
{
   uint32_t x = i ^ seed, n = takeover_rounds(i);
   for (uint32_t r = 0; r < n; r++)
      x = hash32(x) + r;
   return x;
}

/* The results of takeover.comp and hurry.comp: each invocation's value
 * mixed with its right neighbour's in the workgroup of 64. */
static void
neighbour_mix(uint32_t *want, uint32_t n, uint32_t seed, uint32_t (*value)(uint32_t, uint32_t))
{
   for (uint32_t g = 0; g < n; g += 64) {
      uint32_t x[64];
      for (uint32_t l = 0; l < 64; l++)
         x[l] = value(g + l, seed);
      for (uint32_t l = 0; l < 64; l++)
         want[g + l] = x[l] ^ x[(l + 1) % 64] * 0x9e3779b9u;
   }
}

static void
takeover_expected(uint32_t *want, uint32_t n, uint32_t seed)
{
   neighbour_mix(want, n, seed, takeover_chain);
}

/* hurry.comp's rounds for invocation i, and its result: x = i ^ seed stepped
 * rounds times through x * 1664525 + 1013904223 (mod 2^32), here by
 * composing the affine map with itself (O(log rounds)) instead of looping,
 * mixed with its right neighbour's x in the workgroup of 64. */
static uint32_t
hurry_rounds(uint32_t i)
{
   return 2048 + (hash32(i ^ 0x5bd1e995u) & 255);
}

static uint32_t
hurry_value(uint32_t i, uint32_t seed)
{
   uint32_t a = 1, c = 0;                       /* the steps taken so far */
   uint32_t pa = 1664525u, pc = 1013904223u;    /* 2^k steps */
   for (uint32_t n = hurry_rounds(i); n; n >>= 1) {
      if (n & 1) {
         c = pa * c + pc;
         a *= pa;
      }
      pc = pa * pc + pc;
      pa *= pa;
   }
   return a * (i ^ seed) + c;
}

static void
hurry_expected(uint32_t *want, uint32_t n, uint32_t seed)
{
   neighbour_mix(want, n, seed, hurry_value);
}

/* One way of running a long first dispatch of a new pipeline. */
struct takeover_variant {
   const char *name;
   const char *threads;          /* SHALE_THREADS: the pool's participants */
   const uint32_t *code;         /* SPIR-V: rounds[] in binding 0, results in 1, SEED */
   size_t code_size;
   uint32_t (*rounds)(uint32_t i);
   void (*expected)(uint32_t *want, uint32_t n, uint32_t seed);
   uint32_t seed;                /* of the first attempt; one more for each next */
   uint32_t first_groups;        /* doubled for each next attempt */
   unsigned attempts;
};

/* What one attempt's dispatch did, from the info log. */
struct takeover_seen {
   bool took_over;               /* optimized code took over from scalar baseline code */
   bool waited;                  /* a worker waited for the optimized code (or gave up) */
   bool took_over_after_wait;    /* ... and got it */
   double baseline_ms, optimize_ms, waited_ms, left_ms;   /* -1: not logged */
};

/* The number after `key` in the first line of `log` that contains `line`
 * (anywhere in the log when `line` is NULL); -1 when there is none. */
static double
log_number(const char *log, const char *line, const char *key)
{
   const char *p = log;
   if (line) {
      const char *hit = strstr(log, line);
      if (!hit)
         return -1.0;
      while (hit > log && hit[-1] != '\n')
         hit--;
      p = hit;
   }
   const char *end = strchr(p, '\n');
   const char *k = strstr(p, key);
   double v;
   if (!k || (line && end && k > end) || sscanf(k + strlen(key), "%lf", &v) != 1)
      return -1.0;
   return v;
}

/* One attempt: a pipeline new to every cache (SEED = seed) and at once one
 * dispatch of `groups` workgroups; every result checked, and the log's
 * takeover and wait lines: at most one each, for this dispatch; a worker
 * waits only in a pool of 2 or more, and optimized code takes over after
 * it waited; with SHALE_JIT_BASELINE=0 neither happens. */
static void
takeover_attempt(struct dev *d, const struct takeover_variant *v, const struct vkt_kernel *mod,
                 uint32_t seed, uint32_t groups, bool tiers, struct takeover_seen *seen)
{
   struct vkt *t = &d->t;
   const uint32_t n = groups * 64;
   struct io io;
   io_create(t, &io, mod->set_layouts[0], (VkDeviceSize)n * 4, (VkDeviceSize)n * 4);
   uint32_t *rounds = io.buf[0].map, *o = io.buf[1].map;
   for (uint32_t i = 0; i < n; i++)
      rounds[i] = v->rounds(i);
   memset(o, 0xa5, (size_t)n * 4);

   const VkSpecializationMapEntry entry = { 0, 0, 4 };
   const VkSpecializationInfo spec = { 1, &entry, 4, &seed };
   struct vkt_kernel k = *mod;
   VkPipelineCache cache = make_cache(t, NULL, 0);
   struct capture cap;
   capture_begin(&cap);
   double t0 = now_ms();
   k.pipeline = make_pipeline(t, cache, k.module, k.layout, &spec, NULL);
   double t1 = now_ms();
   run_kernel(t, &k, &io.set, 1, NULL, 0, groups, 1, 1);
   double t2 = now_ms();
   size_t size;
   free(cache_data(t, cache, &size));   /* waits for the optimized code */
   char *log = capture_end(&cap);

   char want_took[160], want_wait[96], want_gave_up[112];
   snprintf(want_took, sizeof(want_took), "dispatch: %u workgroups: optimized code took over "
            "from scalar baseline code mid-dispatch", groups);
   snprintf(want_wait, sizeof(want_wait), "dispatch: %u workgroups: a worker waited ", groups);
   /* On a busy machine the wait is cut short: no takeover is owed then. */
   snprintf(want_gave_up, sizeof(want_gave_up),
            "dispatch: %u workgroups: a worker stopped waiting after ", groups);
   unsigned took_over = count_of(log, want_took), any = count_of(log, "optimized code took over");
   unsigned waited = count_of(log, want_wait), gave_up = count_of(log, want_gave_up);
   unsigned any_wait = count_of(log, "a worker waited") +
                       count_of(log, "a worker stopped waiting");
   const char *baseline_line = "scalar baseline code (optimized code follows)";
   unsigned scalar = count_of(log, baseline_line);
   unsigned optimized = count_of(log, "optimized code in place");
   seen->baseline_ms = log_number(log, baseline_line, "LLVM compile ");
   seen->optimize_ms = log_number(log, NULL, "compiled in the background in ");
   seen->waited_ms = log_number(log, want_wait, "waited ");
   seen->left_ms = log_number(log, want_wait, "(about ");
   free(log);
   CHECK(any == took_over && took_over <= 1, "%s: %u takeover lines, %u as expected (\"%s\")",
         v->name, any, took_over, want_took);
   CHECK(any_wait == waited + gave_up && waited + gave_up <= 1,
         "%s: %u wait lines, %u as expected (\"%s\" or \"%s\")", v->name, any_wait,
         waited + gave_up, want_wait, want_gave_up);
   if (strcmp(v->threads, "1") == 0)
      CHECK(any_wait == 0, "%s: a worker waited in a pool of one participant", v->name);
   if (waited)
      CHECK(took_over == 1, "%s: a worker waited for the optimized code, which never took over",
            v->name);
   if (tiers)
      CHECK(scalar == 1 && optimized == 1,
            "%s: %u scalar baseline compiles, %u optimized codes placed", v->name, scalar,
            optimized);
   else
      CHECK(scalar == 0 && optimized == 0 && any == 0 && any_wait == 0,
            "SHALE_JIT_BASELINE=0 (%s): %u baseline compiles, %u optimized, %u takeovers, "
            "%u waits", v->name, scalar, optimized, any, any_wait);
   seen->took_over = took_over == 1;
   seen->waited = waited + gave_up == 1;
   seen->took_over_after_wait = waited == 1;

   uint32_t bad = 0, *ref = malloc((size_t)n * 4);
   CHECK(ref != NULL, "%s: reference of %u words", v->name, n);
   if (ref)
      v->expected(ref, n, seed);
   for (uint32_t i = 0; i < n && ref; i++) {
      if (o[i] != ref[i] && bad++ < 5)
         CHECK(false, "%s (%u workgroups): [%u] = %08x, expected %08x", v->name, groups, i,
               o[i], ref[i]);
   }
   free(ref);
   CHECK(bad == 0, "%s: %u wrong results of %u (%u workgroups)", v->name, bad, n, groups);
   char compile[96] = "no background compile", wait[96] = "no worker waited";
   if (seen->optimize_ms >= 0.0)
      snprintf(compile, sizeof(compile), "baseline compile %.1f ms, optimized compile %.1f ms",
               seen->baseline_ms, seen->optimize_ms);
   if (seen->waited)
      snprintf(wait, sizeof(wait), "a worker waited %.1f ms (about %.0f ms of baseline work left)",
               seen->waited_ms, seen->left_ms);
   fprintf(stderr, "%s: %u workgroups, %s participant(s): create %.1f ms, dispatch %.1f ms incl. "
           "submit, %s: %s, %s\n", v->name, groups, v->threads, t1 - t0, t2 - t1, compile, wait,
           seen->took_over ? "optimized code took over" : "no takeover");

   vkDestroyPipeline(t->device, k.pipeline, NULL);
   vkDestroyPipelineCache(t->device, cache, NULL);
   io_destroy(t, &io);
}

/* A Shale device whose pool has v->threads participants: SHALE_THREADS is
 * read when the runtime starts, which is now (no other Shale device is
 * alive here), and restored after. */
static bool
takeover_device(struct dev *d, const struct takeover_variant *v)
{
   const char *threads = getenv("SHALE_THREADS");
   char *saved = threads ? strdup(threads) : NULL;
   setenv("SHALE_THREADS", v->threads, 1);
   struct capture cap;
   capture_begin(&cap);
   bool ok = dev_init(d, VKT_SHALE, false, true);
   char *log = capture_end(&cap);
   if (saved)
      setenv("SHALE_THREADS", saved, 1);
   else
      unsetenv("SHALE_THREADS");
   free(saved);
   if (!ok) {
      free(log);
      CHECK(false, "no Shale device");
      return false;
   }
   char want[64];
   snprintf(want, sizeof(want), "runtime: %s worker threads", v->threads);
   CHECK(strstr(log, want) != NULL, "%s: \"%s\" not logged", v->name, want);
   free(log);
   return true;
}

/* A variant's attempts, each with a new pipeline and a dispatch twice as
 * big as the one before, until the dispatch did what the variant is for:
 * optimized code took over (one participant), or a worker waited for it
 * (two). One attempt with SHALE_JIT_BASELINE=0. */
static void
takeover_variant_run(const struct takeover_variant *v, bool tiers)
{
   struct dev d;
   if (!takeover_device(&d, v))
      return;
   struct vkt *t = &d.t;
   struct vkt_kernel mod;
   const struct vkt_kernel_info info = {
      .code = v->code,
      .code_size = v->code_size,
      .bindings = { two_storage },
      .binding_counts = { 2 },
      .no_pipeline = true,
   };
   VkResult r = vkt_kernel_create(t, &info, &mod);
   CHECK(r == VK_SUCCESS, "%s: module and layout: %d", v->name, r);
   if (r != VK_SUCCESS) {
      vkt_kernel_destroy(t, &mod);
      dev_finish(&d);
      return;
   }

   const bool lends = strcmp(v->threads, "1") != 0;
   double t0 = now_ms();
   bool done = false;
   unsigned attempts = 0;
   uint32_t groups = v->first_groups;
   for (; attempts < (tiers ? v->attempts : 1) && !done; groups *= 2) {
      struct takeover_seen seen;
      takeover_attempt(&d, v, &mod, v->seed + attempts, groups, tiers, &seen);
      done = lends ? seen.waited : seen.took_over;
      attempts++;
   }
   const char *what = lends ? "a worker waiting for the optimized code" :
                              "optimized code taking over";
   fprintf(stderr, "%s: %s %s after %u attempt(s), %.0f ms in all\n", v->name, what,
           done ? "seen" : "not seen", attempts, now_ms() - t0);
   /* Whether a lone participant's dispatch overlaps the niced optimizer's
    * compile depends on what else the machine runs (test processes in
    * parallel): reported, not required. With two participants a worker
    * always waits for the compile, by design. */
   if (tiers && lends)
      CHECK(done, "%s: no %s in %u attempts (up to %u workgroups)", v->name, what, attempts,
            groups / 2);
   vkt_kernel_destroy(t, &mod);
   dev_finish(&d);
}

/* A pipeline that misses every cache and at once runs one long dispatch:
 * the optimized code, compiled in the background meanwhile, takes over
 * from the scalar baseline code between workgroups, and every result is
 * right either way. When the optimizer was done before the dispatch began
 * or after it ended, another new pipeline runs a dispatch twice as big.
 * - One pool participant (SHALE_THREADS=1): the optimizer thread, niced,
 *   gets the other CPU instead of competing with dispatch workers; no
 *   worker waits.
 * - Two (SHALE_THREADS=2), the dispatch's baseline work far longer than 8
 *   baseline compiles: a worker lends its CPU to the optimizer, waiting
 *   for the optimized code once, which then takes over. */
static void
test_takeover(void)
{
   const char *env = getenv("SHALE_JIT_BASELINE");
   bool tiers = !(env && strcmp(env, "0") == 0);
   static const struct takeover_variant alone = {
      .name = "takeover",
      .threads = "1",
      .code = takeover_spv,
      .code_size = sizeof(takeover_spv),
      .rounds = takeover_rounds,
      .expected = takeover_expected,
      .seed = 0x7a6b0000u,   /* values no other test specialises with */
      .first_groups = 2048,
      .attempts = 3,
   };
   static const struct takeover_variant lent = {
      .name = "takeover (2 participants)",
      .threads = "2",
      .code = hurry_spv,
      .code_size = sizeof(hurry_spv),
      .rounds = hurry_rounds,
      .expected = hurry_expected,
      .seed = 0x7a6c0000u,
      /* About 300 ms of baseline work per participant left after the
       * first workgroup (2,048 to 2,303 steps an invocation), against 8
       * baseline compiles of 5 ms (8 to 14 ms under ASan) on a 2-CPU
       * machine; the optimized code, about 3.5 times as fast, does most. */
      .first_groups = 4096,
      .attempts = 3,
   };
   takeover_variant_run(&alone, tiers);
   takeover_variant_run(&lent, tiers);
}

static void
test_pipeline_cache(void)
{
   struct dev d;
   struct vkt_kernel k;
   if (!spec_kernel_begin(&d, &k))
      return;
   struct vkt *t = &d.t;
   /* Values no other part of this test uses, so nothing is cached yet. */
   const struct spec_values sv = { 64, 12347, VK_FALSE, 0.25f, 4 };
   const VkSpecializationInfo spec = { ARRAY_SIZE(spec_map), spec_map, sizeof(sv), &sv };

   /* An empty cache: the header the spec defines. */
   VkPipelineCache c1 = make_cache(t, NULL, 0);
   size_t empty_size;
   uint8_t *empty = cache_data(t, c1, &empty_size);
   check_header(t, empty, empty_size, "empty cache");

   /* Cold, then again through the same cache. */
   unsigned compiles, app_hits, mem_hits;
   double cold_ms, hit_ms;
   VkPipeline p1 = cached_pipeline(t, c1, k.module, k.layout, &spec, &compiles, &app_hits,
                                   &mem_hits, &cold_ms, NULL);
   CHECK(compiles == 1, "first creation: %u LLVM compilations", compiles);
   VkPipelineCreationFeedback fb = { 0 }, stage_fb = { 0 };
   VkPipelineCreationFeedbackCreateInfo fbi = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CREATION_FEEDBACK_CREATE_INFO,
      .pPipelineCreationFeedback = &fb,
      .pipelineStageCreationFeedbackCount = 1,
      .pPipelineStageCreationFeedbacks = &stage_fb,
   };
   VkPipeline p2 = cached_pipeline(t, c1, k.module, k.layout, &spec, &compiles, &app_hits,
                                   &mem_hits, &hit_ms, d.feedback ? &fbi : NULL);
   CHECK(compiles == 0 && app_hits == 1, "second creation: %u compilations, %u cache hits",
         compiles, app_hits);
   fprintf(stderr, "pipeline creation: cold %.2f ms (LLVM), pipeline cache hit %.3f ms (%.0fx)\n",
           cold_ms, hit_ms, hit_ms > 0 ? cold_ms / hit_ms : 0.0);
   if (d.feedback) {
      CHECK(fb.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT, "feedback valid");
      CHECK(fb.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT,
            "feedback: cache hit");
   }
   /* The cached pipeline computes the right thing. */
   k.pipeline = p2;
   spec_verify(&d, NULL, &k, &sv, 3);

   /* Data with the entry; a new cache from it hits without LLVM. */
   size_t size1;
   uint8_t *data1 = cache_data(t, c1, &size1);
   check_header(t, data1, size1, "cache with one pipeline");
   CHECK(size1 > empty_size, "data grew with a pipeline: %zu -> %zu", empty_size, size1);
   VkPipelineCache c2 = make_cache(t, data1, size1);
   size_t size2;
   uint8_t *data2 = cache_data(t, c2, &size2);
   CHECK(size2 == size1 && !memcmp(data1, data2, size1), "data read back differs");
   VkPipeline p3 = cached_pipeline(t, c2, k.module, k.layout, &spec, &compiles, &app_hits,
                                   &mem_hits, &hit_ms, NULL);
   CHECK(compiles == 0 && app_hits + mem_hits == 1, "from cache data: %u compilations",
         compiles);
   k.pipeline = p3;
   spec_verify(&d, NULL, &k, &sv, 2);

   /* Merge into an empty cache: same entries, and hits through it. */
   VkPipelineCache c3 = make_cache(t, NULL, 0);
   CHECK(vkMergePipelineCaches(t->device, c3, 1, &c1) == VK_SUCCESS, "merge");
   size_t size3;
   uint8_t *data3 = cache_data(t, c3, &size3);
   CHECK(size3 == size1 && !memcmp(data1, data3, size1), "merged data differs");
   VkPipeline p4 = cached_pipeline(t, c3, k.module, k.layout, &spec, &compiles, &app_hits,
                                   &mem_hits, &hit_ms, NULL);
   CHECK(compiles == 0 && app_hits == 1, "through a merged cache: %u compilations, %u hits",
         compiles, app_hits);

   /* Short buffers: below the header nothing; otherwise whole entries. */
   uint8_t buf[256];
   size_t small = 16;
   CHECK_EQ_INT(vkGetPipelineCacheData(t->device, c1, &small, buf), VK_INCOMPLETE);
   CHECK(small == 0, "too small for the header: %zu bytes reported", small);
   small = size1 - 1;
   CHECK_EQ_INT(vkGetPipelineCacheData(t->device, c1, &small, buf), VK_INCOMPLETE);
   CHECK(small >= 32 && small < size1, "one byte short: %zu", small);
   check_header(t, buf, small, "truncated data");
   VkPipelineCache c4 = make_cache(t, buf, small);   /* valid data, fewer entries */
   size_t size4;
   uint8_t *data4 = cache_data(t, c4, &size4);
   CHECK(size4 == empty_size, "truncated data kept %zu bytes", size4);
   free(data4);
   vkDestroyPipelineCache(t->device, c4, NULL);

   /* Data of another device (UUID changed) or garbage is ignored. */
   memcpy(buf, data1, size1 < sizeof(buf) ? size1 : sizeof(buf));
   buf[20] ^= 0x55;
   c4 = make_cache(t, buf, size1 < sizeof(buf) ? size1 : sizeof(buf));
   data4 = cache_data(t, c4, &size4);
   CHECK(size4 == empty_size, "foreign data kept: %zu bytes", size4);
   free(data4);
   vkDestroyPipelineCache(t->device, c4, NULL);
   for (size_t i = 0; i < sizeof(buf); i++)
      buf[i] = (uint8_t)hash32((uint32_t)i);
   c4 = make_cache(t, buf, sizeof(buf));
   vkDestroyPipelineCache(t->device, c4, NULL);

   vkDestroyPipeline(t->device, p1, NULL);
   vkDestroyPipeline(t->device, p2, NULL);
   vkDestroyPipeline(t->device, p3, NULL);
   vkDestroyPipeline(t->device, p4, NULL);
   vkDestroyPipelineCache(t->device, c1, NULL);
   vkDestroyPipelineCache(t->device, c2, NULL);
   vkDestroyPipelineCache(t->device, c3, NULL);

   /* No pipeline or cache is left, but the device holds the runtime: its
    * memory cache still has the shader. */
   VkPipeline p5 = cached_pipeline(t, VK_NULL_HANDLE, k.module, k.layout, &spec, &compiles,
                                   &app_hits, &mem_hits, &hit_ms, NULL);
   CHECK(compiles == 0 && mem_hits == 1,
         "after every pipeline and cache is gone, same device: %u compilations, %u memory hits",
         compiles, mem_hits);
   k.pipeline = p5;
   spec_kernel_end(&d, &k);

   /* A fresh device in a process with no other: the runtime started again,
    * its memory cache empty. A cache made from the data links the machine
    * code it carries: still no LLVM. */
   if (!spec_kernel_begin(&d, &k))
      goto out;
   t = &d.t;
   VkPipelineCache c5 = make_cache(t, data1, size1);
   p5 = cached_pipeline(t, c5, k.module, k.layout, &spec, &compiles, &app_hits, &mem_hits, &hit_ms,
                        d.feedback ? &fbi : NULL);
   CHECK(compiles == 0 && app_hits == 1 && mem_hits == 0,
         "from reloaded data, new device: %u compilations, %u hits, %u memory hits", compiles,
         app_hits, mem_hits);
   fprintf(stderr, "pipeline creation from reloaded cache data (new device): %.3f ms\n", hit_ms);
   if (d.feedback)
      CHECK(fb.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT,
            "feedback: hit from data");
   k.pipeline = p5;
   spec_verify(&d, NULL, &k, &sv, 1);
   /* Its data again holds the same entry (serialized from the linked code). */
   size_t size5;
   uint8_t *data5 = cache_data(t, c5, &size5);
   CHECK(size5 == size1, "data after linking: %zu bytes, was %zu", size5, size1);
   free(data5);
   vkDestroyPipelineCache(t->device, c5, NULL);
   spec_kernel_end(&d, &k);

   /* Damaged machine code in otherwise valid data, on a fresh device again
    * (so no memory cache can answer): the blob is refused (the compiler
    * checks a digest), the shader compiled again, and the pipeline works. */
   if (!spec_kernel_begin(&d, &k))
      goto out;
   t = &d.t;
   uint8_t *damaged = malloc(size1);
   memcpy(damaged, data1, size1);
   damaged[size1 - 100] ^= 0x40;
   VkPipelineCache c6 = make_cache(t, damaged, size1);
   VkPipeline p6 = cached_pipeline(t, c6, k.module, k.layout, &spec, &compiles, &app_hits,
                                   &mem_hits, &hit_ms, NULL);
   CHECK(compiles == 1 && app_hits == 0, "damaged blob: %u compilations, %u hits", compiles,
         app_hits);
   k.pipeline = p6;
   spec_verify(&d, NULL, &k, &sv, 2);
   vkDestroyPipelineCache(t->device, c6, NULL);
   free(damaged);
   spec_kernel_end(&d, &k);

out:
   free(empty);
   free(data1);
   free(data2);
   free(data3);
}

/* ---- shader dumps and compile-phase timings (Shale) ---- */

static char *
read_whole_file(const char *path, size_t *size)
{
   *size = 0;
   FILE *f = fopen(path, "rb");
   if (!f)
      return NULL;
   fseek(f, 0, SEEK_END);
   long n = ftell(f);
   rewind(f);
   char *data = calloc(1, n > 0 ? (size_t)n + 1 : 1);
   if (n > 0 && fread(data, 1, (size_t)n, f) != (size_t)n)
      n = 0;
   fclose(f);
   *size = n > 0 ? (size_t)n : 0;
   return data;
}

/* Files in dir; removes them too when `remove` is set. */
static unsigned
dir_files(const char *dir, bool remove)
{
   unsigned n = 0;
   DIR *dp = opendir(dir);
   if (!dp)
      return 0;
   for (struct dirent *e; (e = readdir(dp));) {
      if (e->d_name[0] == '.')
         continue;
      n++;
      if (remove) {
         char path[512];
         snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
         unlink(path);
      }
   }
   closedir(dp);
   return n;
}

/* SHALE_SHADER_DUMP=all with SHALE_SHADER_DUMP_DIR: a compiled shader's
 * SPIR-V, its disassembly, its LLVM IR (translated and optimized), the
 * native assembly and the phase timings land there; the SHALE_DEBUG=info
 * compile line carries the phase timings. Dumping does not change the
 * code: the cache data of the same pipeline compiled without the dump, on
 * a fresh device, is byte for byte the same. */
static void
test_shader_dump(void)
{
   char dir[] = "/tmp/shale-dump-XXXXXX";
   if (!mkdtemp(dir)) {
      CHECK(false, "mkdtemp");
      return;
   }
   struct dev d;
   struct vkt_kernel k;
   if (!spec_kernel_begin(&d, &k)) {
      rmdir(dir);
      return;
   }
   struct vkt *t = &d.t;
   /* Values no other part of this test uses: this compiles. */
   const struct spec_values sv = { 48, 4243, VK_TRUE, 1.5f, 2 };
   const VkSpecializationInfo spec = { ARRAY_SIZE(spec_map), spec_map, sizeof(sv), &sv };

   setenv("SHALE_SHADER_DUMP", "all", 1);
   setenv("SHALE_SHADER_DUMP_DIR", dir, 1);
   VkPipelineCache c1 = make_cache(t, NULL, 0);
   struct capture cap;
   capture_begin(&cap);
   double t0 = now_ms();
   k.pipeline = make_pipeline(t, c1, k.module, k.layout, &spec, NULL);
   double outer_ms = now_ms() - t0;
   char *log = capture_end(&cap);
   unsetenv("SHALE_SHADER_DUMP");
   unsetenv("SHALE_SHADER_DUMP_DIR");

   /* The info line: total and every phase, none above the total, the
    * total within the time vkCreateComputePipelines took. */
   char key[17] = "";
   double total = -1.0, ph[7] = { -1, -1, -1, -1, -1, -1, -1 };
   const char *line = strstr(log, "pipeline: compute shader ");
   int got = line ? sscanf(line,
                           "pipeline: compute shader %16[0-9a-f] (\"main\"): LLVM compile %lf ms "
                           "(validate %lf, legalize %lf, parse %lf, translate %lf, optimize %lf, "
                           "codegen %lf, link %lf)",
                           key, &total, &ph[0], &ph[1], &ph[2], &ph[3], &ph[4], &ph[5], &ph[6])
                  : 0;
   CHECK(got == 9, "compile line with phase timings not found in the info log (%d fields)", got);
   double sum = 0.0;
   for (int i = 0; i < 7; i++) {
      CHECK(ph[i] >= 0.0, "phase %d: %.3f ms", i, ph[i]);
      sum += ph[i];
   }
   CHECK(got == 9 && sum <= total + 0.05 && total <= outer_ms + 0.05,
         "phases %.3f ms, compile %.3f ms, vkCreateComputePipelines %.3f ms", sum, total,
         outer_ms);
   fprintf(stderr, "compile phases (ms): validate %.2f, legalize %.2f, parse %.2f, "
           "translate %.2f, optimize %.2f, codegen %.2f, link %.2f; sc_compile %.2f\n",
           ph[0], ph[1], ph[2], ph[3], ph[4], ph[5], ph[6], total);
   free(log);

   /* The files, named by the key the log gave. */
   static const struct { const char *ext, *want; } files[] = {
      { "spv", NULL },                           /* compared with the module */
      { "spvasm", "OpEntryPoint GLCompute" },
      { "ll", "@shale_entry(" },                 /* as translated */
      { "opt.ll", "define void @shale_entry(" },
      { "s", "shale_entry:" },                   /* the entry point's label */
      { "time", "codegen" },
   };
   for (unsigned i = 0; i < ARRAY_SIZE(files) && got == 9; i++) {
      char path[512];
      snprintf(path, sizeof(path), "%s/%s.%s", dir, key, files[i].ext);
      size_t size;
      char *text = read_whole_file(path, &size);
      CHECK(text && size > 0, "dump: %s missing or empty", path);
      if (text && !files[i].want)
         CHECK(size == sizeof(spec_spv) && !memcmp(text, spec_spv, size),
               "dump: %s is not the module's SPIR-V", path);
      else if (text)
         CHECK(strstr(text, files[i].want) != NULL, "dump: %s lacks \"%s\"", path,
               files[i].want);
      free(text);
   }
   unsigned dumped = dir_files(dir, false);
   CHECK(dumped == ARRAY_SIZE(files), "dump: %u files written, expected %zu", dumped,
         ARRAY_SIZE(files));
   spec_verify(&d, NULL, &k, &sv, 2);
   size_t size1;
   uint8_t *data1 = cache_data(t, c1, &size1);
   vkDestroyPipelineCache(t->device, c1, NULL);
   spec_kernel_end(&d, &k);
   dir_files(dir, true);
   CHECK(rmdir(dir) == 0, "rmdir %s", dir);

   /* The same pipeline without the dump, on a fresh device (the memory
    * cache is gone with the first): compiled again, the same code. */
   if (spec_kernel_begin(&d, &k)) {
      t = &d.t;
      VkPipelineCache c2 = make_cache(t, NULL, 0);
      unsigned compiles, app_hits, mem_hits;
      double ms;
      k.pipeline = cached_pipeline(t, c2, k.module, k.layout, &spec, &compiles, &app_hits,
                                   &mem_hits, &ms, NULL);
      CHECK(compiles == 1, "without the dump: %u compilations", compiles);
      size_t size2;
      uint8_t *data2 = cache_data(t, c2, &size2);
      CHECK(size2 == size1 && !memcmp(data1, data2, size1),
            "cache data differs with and without the dump (%zu vs %zu bytes)", size1, size2);
      free(data2);
      vkDestroyPipelineCache(t->device, c2, NULL);
      spec_kernel_end(&d, &k);
   }
   free(data1);
}

/* ---- robust buffer access (Shale, when claimed) ---- */

static void
test_robust(void)
{
   struct dev d;
   if (!dev_init(&d, VKT_SHALE, true, true)) {
      fprintf(stderr, "robustBufferAccess not claimed: robust part skipped\n");
      return;
   }
   struct vkt *t = &d.t;
   struct vkt_kernel k;
   kernel_create(t, &k, robust_spv, sizeof(robust_spv), two_storage, 2, NULL, 0, 4, NULL, 0);
   struct io io;
   io_create(t, &io, k.set_layouts[0], 512, 256);
   uint32_t *v = io.buf[0].map, *o = io.buf[1].map;
   for (uint32_t i = 0; i < 128; i++)
      v[i] = 1000 + i;
   memset(o, 0xab, 256);
   write_buffer(t, io.set, 0, STORAGE, io.buf[0].buffer, 64, 40);   /* elements 16 .. 25 */
   const uint32_t count = 10;
   run_kernel(t, &k, &io.set, 1, &count, 4, 1, 1, 1);
   for (uint32_t i = 0; i < 64; i++)
      CHECK(o[i] == (i < 10 ? 1016 + i : 0), "robust read [%u] = %u", i, o[i]);
   for (uint32_t i = 0; i < 128; i++)
      CHECK(v[i] == 1000 + i, "robust: out-of-range write landed at element %u", i);
   io_destroy(t, &io);
   vkt_kernel_destroy(t, &k);
   dev_finish(&d);
}

/* ---- allocation failures (Shale, without the validation layer) ---- */

/* An allocator that fails the fail_at-th allocation (counted from 1) and
 * counts live blocks, so every unwind path can be seen to free. */
struct fail_alloc {
   unsigned calls, fail_at, live;
};

static VKAPI_ATTR void *VKAPI_CALL
fa_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct fail_alloc *f = user;
   if (++f->calls == f->fail_at)
      return NULL;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
      return NULL;
   f->live++;
   return p;
}

static VKAPI_ATTR void *VKAPI_CALL
fa_realloc(void *user, void *old, size_t size, size_t align, VkSystemAllocationScope scope)
{
   return NULL;   /* Shale never reallocates these objects */
}

static VKAPI_ATTR void VKAPI_CALL
fa_free(void *user, void *p)
{
   struct fail_alloc *f = user;
   if (p) {
      f->live--;
      free(p);
   }
}

enum fa_op {
   FA_SHADER_MODULE, FA_SET_LAYOUT, FA_PIPELINE_LAYOUT, FA_POOL, FA_SETS, FA_CACHE,
   FA_PIPELINE, FA_PIPELINE_CACHED, FA_TEMPLATE, FA_OP_COUNT
};

static const char *const fa_names[FA_OP_COUNT] = {
   "vkCreateShaderModule", "vkCreateDescriptorSetLayout", "vkCreatePipelineLayout",
   "vkCreateDescriptorPool", "vkAllocateDescriptorSets (pool allocator)",
   "vkCreatePipelineCache (with data)", "vkCreateComputePipelines",
   "vkCreateComputePipelines (into a cache)", "vkCreateDescriptorUpdateTemplate",
};

static void
test_alloc_failures(void)
{
   struct dev d;
   if (!dev_init(&d, VKT_SHALE, false, false)) {
      CHECK(false, "no Shale device");
      return;
   }
   struct vkt *t = &d.t;
   VkDevice dev = t->device;
   const VkDescriptorSetLayoutBinding b[] = {
      BINDING(0, STORAGE, 1), BINDING(1, STORAGE, 1), BINDING(4, UNIFORM_DYN, 2),
   };
   VkDescriptorSetLayout sl = make_set_layout(t, b, 2);
   VkPushConstantRange range = { VK_SHADER_STAGE_COMPUTE_BIT, 0, 8 };
   VkPipelineLayoutCreateInfo lci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &sl,
      .pushConstantRangeCount = 1,
      .pPushConstantRanges = &range,
   };
   VkPipelineLayout pl;
   CHECK(vkCreatePipelineLayout(dev, &lci, NULL, &pl) == VK_SUCCESS, "layout");
   VkShaderModule module = make_module(t, saxpy_spv, sizeof(saxpy_spv));
   VkPipelineCache seeded = make_cache(t, NULL, 0);
   VkPipeline seed = make_pipeline(t, seeded, module, pl, NULL, NULL);
   size_t seed_size;
   uint8_t *seed_data = cache_data(t, seeded, &seed_size);

   for (int op = 0; op < FA_OP_COUNT; op++) {
      if (op == FA_TEMPLATE && !d.templates)
         continue;
      /* Owners of the objects under test that need an allocator too. */
      struct fail_alloc pool_fa = { 0 };
      VkAllocationCallbacks pool_cb = { &pool_fa, fa_alloc, fa_realloc, fa_free, NULL, NULL };
      VkDescriptorPool pool = VK_NULL_HANDLE;
      VkPipelineCache cache = VK_NULL_HANDLE;
      unsigned n;
      for (n = 1; n < 100; n++) {
         struct fail_alloc fa = { 0, n, 0 };
         VkAllocationCallbacks cb = { &fa, fa_alloc, fa_realloc, fa_free, NULL, NULL };
         VkResult r = VK_ERROR_UNKNOWN;
         uint64_t obj = 0;
         VkDescriptorSet sets[3] = { 0 };
         switch (op) {
         case FA_SHADER_MODULE: {
            VkShaderModuleCreateInfo ci = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0,
                                            sizeof(saxpy_spv), saxpy_spv };
            VkShaderModule m = VK_NULL_HANDLE;
            r = vkCreateShaderModule(dev, &ci, &cb, &m);
            if (r == VK_SUCCESS)
               vkDestroyShaderModule(dev, m, &cb);
            break;
         }
         case FA_SET_LAYOUT: {
            VkDescriptorSetLayoutCreateInfo ci = {
               VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, NULL, 0, ARRAY_SIZE(b), b,
            };
            VkDescriptorSetLayout l = VK_NULL_HANDLE;
            r = vkCreateDescriptorSetLayout(dev, &ci, &cb, &l);
            if (r == VK_SUCCESS)
               vkDestroyDescriptorSetLayout(dev, l, &cb);
            break;
         }
         case FA_PIPELINE_LAYOUT: {
            VkPipelineLayout l = VK_NULL_HANDLE;
            r = vkCreatePipelineLayout(dev, &lci, &cb, &l);
            if (r == VK_SUCCESS)
               vkDestroyPipelineLayout(dev, l, &cb);
            break;
         }
         case FA_POOL: {
            const VkDescriptorPoolSize sizes[] = { { STORAGE, 8 } };
            VkDescriptorPoolCreateInfo ci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL,
                                              0, 4, 1, sizes };
            VkDescriptorPool p = VK_NULL_HANDLE;
            r = vkCreateDescriptorPool(dev, &ci, &cb, &p);
            if (r == VK_SUCCESS)
               vkDestroyDescriptorPool(dev, p, &cb);
            break;
         }
         case FA_SETS: {
            /* The pool's allocator fails while three sets are made. */
            const VkDescriptorPoolSize sizes[] = { { STORAGE, 8 } };
            VkDescriptorPoolCreateInfo ci = { VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, NULL,
                                              0, 4, 1, sizes };
            pool_fa = (struct fail_alloc) { 0, 0, 0 };
            CHECK(vkCreateDescriptorPool(dev, &ci, &pool_cb, &pool) == VK_SUCCESS, "pool");
            unsigned base = pool_fa.live;
            pool_fa.calls = 0;
            pool_fa.fail_at = n;
            const VkDescriptorSetLayout three[3] = { sl, sl, sl };
            r = vkt_alloc_sets(t, pool, three, 3, sets);
            if (r != VK_SUCCESS) {
               CHECK(!sets[0] && !sets[1] && !sets[2], "handles after a failed allocation");
               CHECK(pool_fa.live == base, "%s: %u blocks left after failure %u",
                     fa_names[op], pool_fa.live - base, n);
            }
            pool_fa.fail_at = 0;
            vkDestroyDescriptorPool(dev, pool, &pool_cb);
            CHECK(pool_fa.live == 0, "pool blocks left");
            fa.live = 0;
            break;
         }
         case FA_CACHE: {
            VkPipelineCacheCreateInfo ci = { VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, NULL, 0,
                                             seed_size, seed_data };
            r = vkCreatePipelineCache(dev, &ci, &cb, &cache);
            if (r == VK_SUCCESS)
               vkDestroyPipelineCache(dev, cache, &cb);
            break;
         }
         case FA_PIPELINE:
         case FA_PIPELINE_CACHED: {
            VkPipelineCache into = VK_NULL_HANDLE;
            if (op == FA_PIPELINE_CACHED)
               CHECK(vkCreatePipelineCache(dev, &(VkPipelineCacheCreateInfo) {
                        VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, NULL, 0, 0, NULL }, &cb,
                        &into) == VK_SUCCESS || n == 1, "cache");
            VkComputePipelineCreateInfo ci = {
               .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
               .stage = { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
                          VK_SHADER_STAGE_COMPUTE_BIT, module, "main", NULL },
               .layout = pl,
            };
            VkPipeline p = (VkPipeline)(uintptr_t)0x1234;
            r = vkCreateComputePipelines(dev, into, 1, &ci, &cb, &p);
            if (r == VK_SUCCESS)
               vkDestroyPipeline(dev, p, &cb);
            else
               CHECK(p == VK_NULL_HANDLE, "pipeline handle after a failure");
            vkDestroyPipelineCache(dev, into, &cb);
            break;
         }
         case FA_TEMPLATE: {
            const VkDescriptorUpdateTemplateEntry e = { 0, 0, 1, STORAGE, 0, 0 };
            VkDescriptorUpdateTemplateCreateInfo ci = {
               .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_UPDATE_TEMPLATE_CREATE_INFO,
               .descriptorUpdateEntryCount = 1,
               .pDescriptorUpdateEntries = &e,
               .templateType = VK_DESCRIPTOR_UPDATE_TEMPLATE_TYPE_DESCRIPTOR_SET,
               .descriptorSetLayout = sl,
            };
            VkDescriptorUpdateTemplate tmpl = VK_NULL_HANDLE;
            r = d.create_template(dev, &ci, &cb, &tmpl);
            if (r == VK_SUCCESS)
               d.destroy_template(dev, tmpl, &cb);
            break;
         }
         }
         (void)obj;
         CHECK(r == VK_SUCCESS || r == VK_ERROR_OUT_OF_HOST_MEMORY, "%s, failure %u: result %d",
               fa_names[op], n, r);
         CHECK(fa.live == 0, "%s, failure %u: %u blocks still live", fa_names[op], n, fa.live);
         if (r == VK_SUCCESS && fa.calls < n && pool_fa.calls < n)
            break;   /* completed without reaching the failure */
      }
      CHECK(n < 100, "%s: never completed", fa_names[op]);
      fprintf(stderr, "allocation failures: %s unwinds at each of %u allocations\n", fa_names[op],
              n - 1);
   }
   free(seed_data);
   vkDestroyPipeline(dev, seed, NULL);
   vkDestroyPipelineCache(dev, seeded, NULL);
   vkDestroyShaderModule(dev, module, NULL);
   vkDestroyPipelineLayout(dev, pl, NULL);
   vkDestroyDescriptorSetLayout(dev, sl, NULL);
   dev_finish(&d);
}

/* ---- the whole suite, and the drivers compared ---- */

static void
run_suite(struct dev *d, struct outputs *out)
{
   test_saxpy(d, out);
   test_reduce(d, out);
   test_scan(d, out);
   test_atomics(d, out);
   test_big_dispatch(d, out);
   test_indirect(d, out);
   test_dispatch_base(d, out);
   test_spec(d, out);
   test_select(d, out);
   test_dynamic_indexing(d, out);
   test_two_sets(d, out);
}

/* The pool sizes from SHALE_THREADS: one participant (the queue thread
 * alone) and more threads than CPUs. The runtime reads it when it starts,
 * which is when the first device exists again (no other is alive here). */
static void
test_threads(void)
{
   static const char *const sizes[] = { "1", "5" };
   for (unsigned i = 0; i < ARRAY_SIZE(sizes); i++) {
      setenv("SHALE_THREADS", sizes[i], 1);
      struct dev d;
      struct capture cap;
      capture_begin(&cap);
      bool ok = dev_init(&d, VKT_SHALE, false, true);
      char *log = capture_end(&cap);
      if (!ok) {
         free(log);
         CHECK(false, "no Shale device");
         break;
      }
      struct outputs out = { 0 };
      test_atomics(&d, &out);
      char want[64];
      snprintf(want, sizeof(want), "runtime: %s worker threads", sizes[i]);
      CHECK(strstr(log, want) != NULL, "SHALE_THREADS=%s: \"%s\" not logged", sizes[i], want);
      free(log);
      test_reduce(&d, &out);
      test_scan(&d, &out);
      outputs_free(&out);
      dev_finish(&d);
   }
   unsetenv("SHALE_THREADS");
}

static void
compare(const struct outputs *a, const struct outputs *b)
{
   unsigned compared = outputs_compare("compute", a, b);
   fprintf(stderr, "lavapipe comparison: %u of %u results compared\n", compared, a->count);
   CHECK(compared >= 10, "too few results compared with lavapipe");
}

int
main(void)
{
   /* The driver logs LLVM compilations and cache hits with SHALE_DEBUG=info;
    * the pipeline cache test counts them. */
   const char *dbg = getenv("SHALE_DEBUG");
   char flags[256];
   snprintf(flags, sizeof(flags), "%s%sinfo", dbg ? dbg : "", dbg && *dbg ? "," : "");
   setenv("SHALE_DEBUG", flags, 1);

   struct outputs shale = { 0 }, lvp = { 0 };
   struct dev d;
   if (!dev_init(&d, VKT_SHALE, false, true)) {
      CHECK(false, "no Shale device");
      return check_finish();
   }
   run_suite(&d, &shale);
   dev_finish(&d);
   test_pools();
   test_invalid_spirv();
   test_pipeline_cache();
   test_tiers();
   test_shader_dump();
   test_robust();
   test_alloc_failures();
   test_threads();
   test_takeover();

   if (dev_init(&d, VKT_LAVAPIPE, false, true)) {
      run_suite(&d, &lvp);
      dev_finish(&d);
      compare(&shale, &lvp);
   } else {
      fprintf(stderr, "lavapipe not available: comparison skipped\n");
   }
   outputs_free(&shale);
   outputs_free(&lvp);
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
