/* libFuzzer target: VkPipelineCache initial data, through the driver's own
 * entry points (the ICD's vk_icdGetInstanceProcAddr, no loader):
 * vkCreatePipelineCache with the input, vkGetPipelineCacheData,
 * vkMergePipelineCaches, then vkCreateComputePipelines with the cache (the
 * lookup: a matching entry's blob goes through sc_shader_deserialize).
 *
 * Seeds: real cache data of one compute pipeline (SAXPY), written by this
 * program when SHALE_FUZZ_WRITE_SEED names a file (ci/fuzz.sh does so before
 * fuzzing). Two fix-ups let mutations get past checks no mutation passes by
 * chance, without making the input less than what an application can hand
 * the driver:
 *  - data whose header says VK_PIPELINE_CACHE_HEADER_VERSION_ONE gets this
 *    device's vendor, device and cache UUID (data for another device is
 *    ignored as the spec says, a path a few compares long);
 *  - a blob whose relocatable object (its last bytes) is exactly the seed's
 *    gets its SHA-256 digest recomputed, so the blob's metadata checks
 *    (sc_blob.c) are fuzzed too. Blobs with any other object keep their
 *    digest: feeding LLVM's object linker garbage that carries a valid digest
 *    is beyond what the digest promises. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "util/su_sha256.h"
#include "saxpy_spv.h"

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                  const char *pName);
VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pVersion);

#define HEADER_SIZE 32
#define PREAMBLE_SIZE 16
#define ENTRY_SIZE 40            /* key[32], flags, blob size */
#define BLOB_DIGEST_OFFSET 24
#define BLOB_HASHED_OFFSET 56
#define BLOB_HEADER_SIZE 120

static VkInstance instance;
static VkDevice device;
static VkPhysicalDeviceProperties props;
static VkShaderModule module;
static VkDescriptorSetLayout set_layout;
static VkPipelineLayout pipeline_layout;
static uint8_t *ref_object;
static size_t ref_object_size;
static unsigned long pipelines_created, pipelines_refused;

static void
print_stats(void)
{
   fprintf(stderr, "fuzz_pipeline_cache: %lu pipelines created, %lu refused\n",
           pipelines_created, pipelines_refused);
}

#define FN(name) static PFN_##name name##_
FN(vkCreatePipelineCache);
FN(vkDestroyPipelineCache);
FN(vkGetPipelineCacheData);
FN(vkMergePipelineCaches);
FN(vkCreateComputePipelines);
FN(vkDestroyPipeline);

static void
check(VkResult r, const char *what)
{
   if (r != VK_SUCCESS) {
      fprintf(stderr, "fuzz_pipeline_cache: %s: %d\n", what, r);
      abort();
   }
}

static uint32_t
get32(const uint8_t *p)
{
   return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static VkResult
create_pipeline(VkPipelineCache cache, VkPipeline *out)
{
   VkComputePipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
      .stage = {
         .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
         .stage = VK_SHADER_STAGE_COMPUTE_BIT,
         .module = module,
         .pName = "main",
      },
      .layout = pipeline_layout,
   };
   return vkCreateComputePipelines_(device, cache, 1, &info, NULL, out);
}

/* The cache data of `cache` (malloc'ed). */
static uint8_t *
cache_data(VkPipelineCache cache, size_t *size)
{
   check(vkGetPipelineCacheData_(device, cache, size, NULL), "vkGetPipelineCacheData size");
   uint8_t *data = malloc(*size ? *size : 1);
   if (!data)
      abort();
   VkResult r = vkGetPipelineCacheData_(device, cache, size, data);
   if (r != VK_SUCCESS) {
      fprintf(stderr, "fuzz_pipeline_cache: vkGetPipelineCacheData: %d\n", r);
      abort();
   }
   return data;
}

/* Calls f(blob, size) for each entry blob of Shale cache data. */
static void
for_each_blob(uint8_t *data, size_t size, void (*f)(uint8_t *blob, size_t size))
{
   if (size < HEADER_SIZE + PREAMBLE_SIZE)
      return;
   uint32_t header = get32(data);
   if (header < HEADER_SIZE || header > size - PREAMBLE_SIZE || memcmp(data + header, "SHPC", 4))
      return;
   uint32_t count = get32(data + header + 12);
   size_t at = header + PREAMBLE_SIZE;
   for (uint32_t i = 0; i < count && size - at >= ENTRY_SIZE; i++) {
      size_t blob = get32(data + at + 36);
      size_t padded = (blob + 3) & ~(size_t)3;
      if (padded > size - at - ENTRY_SIZE)
         return;
      f(data + at + ENTRY_SIZE, blob);
      at += ENTRY_SIZE + padded;
   }
}

static void
take_reference(uint8_t *blob, size_t size)
{
   if (ref_object || size < BLOB_HEADER_SIZE)
      return;
   uint64_t object_size;
   memcpy(&object_size, blob + BLOB_HEADER_SIZE - 8, 8);
   if (object_size == 0 || object_size > size - BLOB_HEADER_SIZE)
      abort();
   ref_object_size = object_size;
   ref_object = malloc(object_size);
   if (!ref_object)
      abort();
   memcpy(ref_object, blob + size - object_size, object_size);
}

static void
fix_digest(uint8_t *blob, size_t size)
{
   if (size < BLOB_HEADER_SIZE + ref_object_size ||
       memcmp(blob + size - ref_object_size, ref_object, ref_object_size))
      return;
   uint8_t digest[SU_SHA256_SIZE];
   su_sha256(blob + BLOB_HASHED_OFFSET, size - BLOB_HASHED_OFFSET, digest);
   memcpy(blob + BLOB_DIGEST_OFFSET, digest, sizeof(digest));
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
   (void)argc;
   (void)argv;
   uint32_t version = 5;
   check(vk_icdNegotiateLoaderICDInterfaceVersion(&version), "negotiate");
#define GIPA(name) ((PFN_##name)vk_icdGetInstanceProcAddr(instance, #name))
   VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .apiVersion = VK_API_VERSION_1_0,
   };
   VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
   };
   check(GIPA(vkCreateInstance)(&ici, NULL, &instance), "vkCreateInstance");
   uint32_t n = 1;
   VkPhysicalDevice pd;
   VkResult r = GIPA(vkEnumeratePhysicalDevices)(instance, &n, &pd);
   if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n < 1)
      check(VK_ERROR_INITIALIZATION_FAILED, "vkEnumeratePhysicalDevices");
   GIPA(vkGetPhysicalDeviceProperties)(pd, &props);
   float priority = 1.0f;
   VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueCount = 1,
      .pQueuePriorities = &priority,
   };
   VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
   };
   check(GIPA(vkCreateDevice)(pd, &dci, NULL, &device), "vkCreateDevice");
   PFN_vkGetDeviceProcAddr gdpa = GIPA(vkGetDeviceProcAddr);
#define GDPA(name) name##_ = (PFN_##name)gdpa(device, #name)
   GDPA(vkCreatePipelineCache);
   GDPA(vkDestroyPipelineCache);
   GDPA(vkGetPipelineCacheData);
   GDPA(vkMergePipelineCaches);
   GDPA(vkCreateComputePipelines);
   GDPA(vkDestroyPipeline);

   VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = sizeof(saxpy_spv),
      .pCode = saxpy_spv,
   };
   check(((PFN_vkCreateShaderModule)gdpa(device, "vkCreateShaderModule"))(device, &smci, NULL,
                                                                          &module),
         "vkCreateShaderModule");
   VkDescriptorSetLayoutBinding bindings[2] = {
      { 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
      { 1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL },
   };
   VkDescriptorSetLayoutCreateInfo dslci = {
      .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
      .bindingCount = 2,
      .pBindings = bindings,
   };
   check(((PFN_vkCreateDescriptorSetLayout)gdpa(device, "vkCreateDescriptorSetLayout"))(
            device, &dslci, NULL, &set_layout),
         "vkCreateDescriptorSetLayout");
   VkPushConstantRange range = { VK_SHADER_STAGE_COMPUTE_BIT, 0, 8 };
   VkPipelineLayoutCreateInfo plci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
      .setLayoutCount = 1,
      .pSetLayouts = &set_layout,
      .pushConstantRangeCount = 1,
      .pPushConstantRanges = &range,
   };
   check(((PFN_vkCreatePipelineLayout)gdpa(device, "vkCreatePipelineLayout"))(device, &plci,
                                                                              NULL,
                                                                              &pipeline_layout),
         "vkCreatePipelineLayout");

   /* The reference data: one pipeline's entry (optimized code: getting the
    * data waits for it). */
   VkPipelineCacheCreateInfo pcci = { .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO };
   VkPipelineCache cache;
   check(vkCreatePipelineCache_(device, &pcci, NULL, &cache), "vkCreatePipelineCache");
   VkPipeline pipeline;
   check(create_pipeline(cache, &pipeline), "vkCreateComputePipelines");
   vkDestroyPipeline_(device, pipeline, NULL);
   size_t size;
   uint8_t *seed = cache_data(cache, &size);
   vkDestroyPipelineCache_(device, cache, NULL);
   for_each_blob(seed, size, take_reference);
   if (!ref_object) {
      fprintf(stderr, "fuzz_pipeline_cache: no entry in the reference data\n");
      abort();
   }
   const char *path = getenv("SHALE_FUZZ_WRITE_SEED");
   if (path) {
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(seed, 1, size, f) != size || fclose(f)) {
         fprintf(stderr, "fuzz_pipeline_cache: cannot write %s\n", path);
         abort();
      }
   }
   free(seed);
   atexit(print_stats);
   return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
   uint8_t *copy = malloc(size ? size : 1);
   if (!copy)
      return 0;
   memcpy(copy, data, size);
   if (size >= HEADER_SIZE && get32(copy + 4) == VK_PIPELINE_CACHE_HEADER_VERSION_ONE) {
      memcpy(copy + 8, &props.vendorID, 4);
      memcpy(copy + 12, &props.deviceID, 4);
      memcpy(copy + 16, props.pipelineCacheUUID, VK_UUID_SIZE);
      for_each_blob(copy, size, fix_digest);
   }

   VkPipelineCacheCreateInfo pcci = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
      .initialDataSize = size,
      .pInitialData = copy,
   };
   VkPipelineCache cache, merged;
   VkResult r = vkCreatePipelineCache_(device, &pcci, NULL, &cache);
   free(copy);   /* the cache keeps its own copy */
   if (r != VK_SUCCESS) {
      fprintf(stderr, "fuzz_pipeline_cache: vkCreatePipelineCache: %d\n", r);
      abort();   /* only out-of-memory would be allowed; none here */
   }
   VkPipelineCacheCreateInfo empty = { .sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO };
   check(vkCreatePipelineCache_(device, &empty, NULL, &merged), "vkCreatePipelineCache (empty)");
   check(vkMergePipelineCaches_(device, merged, 1, &cache), "vkMergePipelineCaches");

   /* The lookup: the entry's blob is linked, or dropped and compiled. */
   VkPipeline pipeline;
   r = create_pipeline(cache, &pipeline);
   if (r == VK_SUCCESS) {
      vkDestroyPipeline_(device, pipeline, NULL);
      pipelines_created++;
   } else {
      pipelines_refused++;   /* a linked blob whose metadata disagrees with the layout */
   }

   /* Writing data back: what loaded comes out again in the same format. */
   size_t out_size;
   free(cache_data(cache, &out_size));
   free(cache_data(merged, &out_size));
   vkDestroyPipelineCache_(device, merged, NULL);
   vkDestroyPipelineCache_(device, cache, NULL);
   return 0;
}
