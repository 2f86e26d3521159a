/* Android feature levels: Vulkan version, hardware level and dEQP date encodings. */
#include "sh_android_levels.h"

uint32_t
sh_android_vulkan_version_feature(uint32_t api_version)
{
   if (VK_API_VERSION_VARIANT(api_version) != 0 || VK_API_VERSION_MAJOR(api_version) != 1)
      return 0;
   uint32_t minor = VK_API_VERSION_MINOR(api_version);
   if (minor == 0)
      return VK_API_VERSION_PATCH(api_version) >= 3 ? VK_MAKE_API_VERSION(0, 1, 0, 3) : 0;
   return VK_MAKE_API_VERSION(0, 1, minor, 0);
}

static bool
is_leap_year(int year)
{
   return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

bool
sh_android_date_valid(int year, int month, int day)
{
   static const int days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
   if (year < 1 || year > 0xFFFF || month < 1 || month > 12 || day < 1)
      return false;
   int last = days[month - 1] + (month == 2 && is_leap_year(year) ? 1 : 0);
   return day <= last;
}

uint32_t
sh_android_deqp_level(int year, int month, int day)
{
   if (!sh_android_date_valid(year, month, day))
      return 0;
   return (uint32_t)year << 16 | (uint32_t)month << 8 | (uint32_t)day;
}

bool
sh_android_deqp_level_decode(uint32_t level, int *year, int *month, int *day)
{
   int y = (int)(level >> 16), m = (int)((level >> 8) & 0xFF), d = (int)(level & 0xFF);
   if (!sh_android_date_valid(y, m, d))
      return false;
   *year = y;
   *month = m;
   *day = d;
   return true;
}

#define SH_REQ(lvl, member) { lvl, #member, offsetof(VkPhysicalDeviceFeatures, member) }

/* Android's PackageManager.FEATURE_VULKAN_HARDWARE_LEVEL documentation. */
const struct sh_android_level_requirement sh_android_level_requirements[] = {
   SH_REQ(0, textureCompressionETC2),
   SH_REQ(1, fullDrawIndexUint32),
   SH_REQ(1, imageCubeArray),
   SH_REQ(1, independentBlend),
   SH_REQ(1, geometryShader),
   SH_REQ(1, tessellationShader),
   SH_REQ(1, sampleRateShading),
   SH_REQ(1, textureCompressionASTC_LDR),
   SH_REQ(1, fragmentStoresAndAtomics),
   SH_REQ(1, shaderImageGatherExtended),
   SH_REQ(1, shaderUniformBufferArrayDynamicIndexing),
   SH_REQ(1, shaderSampledImageArrayDynamicIndexing),
};
const size_t sh_android_level_requirement_count =
   sizeof(sh_android_level_requirements) / sizeof(sh_android_level_requirements[0]);

int
sh_android_vulkan_level(const VkPhysicalDeviceFeatures *features)
{
   int level = 1;
   for (size_t i = 0; i < sh_android_level_requirement_count; i++) {
      const struct sh_android_level_requirement *r = &sh_android_level_requirements[i];
      const VkBool32 *member = (const VkBool32 *)((const char *)features + r->offset);
      if (!*member && r->level - 1 < level)
         level = r->level - 1;
   }
   return level;
}
