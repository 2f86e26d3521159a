/* VkShaderModule: a checked, hashed copy of the SPIR-V words. */
#include "sd_shader.h"

#include <string.h>

#include "sd_device.h"
#include "sd_pipeline_cache.h"
#include "sd_util.h"

#define SD_SPIRV_MAGIC 0x07230203u

static uint32_t
sd_bswap32(uint32_t v)
{
   return __builtin_bswap32(v);
}

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateShaderModule(VkDevice _device, const VkShaderModuleCreateInfo *pCreateInfo,
                      const VkAllocationCallbacks *pAllocator, VkShaderModule *pShaderModule)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   size_t size = pCreateInfo->codeSize;
   const uint32_t *code = pCreateInfo->pCode;
   /* Not SPIR-V at all: the compiler would reject it too; say so now. */
   if (size % 4 != 0 || size < 5 * sizeof(uint32_t) || !code ||
       (code[0] != SD_SPIRV_MAGIC && code[0] != sd_bswap32(SD_SPIRV_MAGIC)))
      return sd_errorf(VK_ERROR_UNKNOWN, "vkCreateShaderModule: not a SPIR-V module");

   struct sd_shader_module *module =
      sd_device_object_alloc(device, pAllocator, sizeof(*module) + size,
                             VK_OBJECT_TYPE_SHADER_MODULE);
   if (!module)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   module->word_count = size / 4;
   if (code[0] == SD_SPIRV_MAGIC) {
      memcpy(module->words, code, size);
   } else {
      for (size_t i = 0; i < module->word_count; i++)
         module->words[i] = sd_bswap32(code[i]);
   }
   struct su_sha256 h;
   su_sha256_init(&h);
   su_sha256_update(&h, module->words, size);
   su_sha256_final(&h, module->sha256);
   *pShaderModule = sd_shader_module_to_handle(module);
   return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL
sd_DestroyShaderModule(VkDevice _device, VkShaderModule _module,
                       const VkAllocationCallbacks *pAllocator)
{
   SD_FROM_HANDLE(sd_device, device, _device);
   SD_FROM_HANDLE(sd_shader_module, module, _module);
   if (module)
      sd_device_object_free(device, pAllocator, module);
}
