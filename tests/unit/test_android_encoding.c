/* Android feature encodings: Vulkan version feature, hardware level, dEQP level dates. */
#include <string.h>

#include "hal/sh_android_levels.h"

#include "check.h"

/* Reference values: AOSP frameworks/native/data/etc's version XMLs
 * (android.hardware.vulkan.version-1_0_3.xml = 4194307, -1_1 = 4198400,
 * -1_3 = 4206592); PackageManager.FEATURE_VULKAN_DEQP_LEVEL's documentation
 * (year in bits 31-16, month in 15-8, day in 7-0; "2019-03-01 is encoded as
 * 0x07E30301") and ANDROID.md's examples (2020-03-01 = 0x07E40301,
 * 2022-03-01 = 0x07E60301). */
static void
check_version_feature(void)
{
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 1, 0)), 4198400);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 1, 239)), 0x401000);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 3, 0)), 4206592);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 3, 275)), 0x403000);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 2, 198)), 0x402000);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 0, 3)), 4194307);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 0, 239)), 0x400003);
   /* Nothing Android could accept. */
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 1, 0, 2)), 0);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(1, 1, 3, 0)), 0);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(VK_MAKE_API_VERSION(0, 2, 0, 0)), 0);
   CHECK_EQ_INT(sh_android_vulkan_version_feature(0), 0);
   /* Never above the device's version. */
   for (uint32_t minor = 0; minor < 8; minor++)
      for (uint32_t patch = 0; patch < 300; patch += 7) {
         uint32_t v = VK_MAKE_API_VERSION(0, 1, minor, patch);
         uint32_t f = sh_android_vulkan_version_feature(v);
         CHECK(f <= v, "feature 0x%x above apiVersion 0x%x", f, v);
      }
}

static void
check_deqp_dates(void)
{
   CHECK_EQ_INT(sh_android_deqp_level(2019, 3, 1), 0x07E30301);
   CHECK_EQ_INT(sh_android_deqp_level(2020, 3, 1), 0x07E40301);
   CHECK_EQ_INT(sh_android_deqp_level(2022, 3, 1), 0x07E60301);
   CHECK_EQ_INT(sh_android_deqp_level(2022, 3, 1), 132514561);
   /* Each field in its bits: year 0x1234 in 31-16, month 12 = 0x0C in 15-8,
    * day 31 = 0x1F in 7-0. */
   CHECK_EQ_INT(sh_android_deqp_level(0x1234, 12, 31), 0x12340C1F);
   CHECK_EQ_INT(sh_android_deqp_level(65535, 1, 1), 0xFFFF0101u);

   /* Real dates only. */
   CHECK(sh_android_date_valid(2024, 2, 29), "2024-02-29 exists");
   CHECK(sh_android_date_valid(2000, 2, 29), "2000-02-29 exists");
   CHECK(!sh_android_date_valid(2023, 2, 29), "2023-02-29 does not exist");
   CHECK(!sh_android_date_valid(1900, 2, 29), "1900-02-29 does not exist");
   CHECK(!sh_android_date_valid(2022, 4, 31), "2022-04-31 does not exist");
   CHECK(sh_android_date_valid(2022, 12, 31), "2022-12-31 exists");
   CHECK(!sh_android_date_valid(2022, 13, 1), "month 13");
   CHECK(!sh_android_date_valid(2022, 0, 1), "month 0");
   CHECK(!sh_android_date_valid(2022, 1, 0), "day 0");
   CHECK(!sh_android_date_valid(0, 1, 1), "year 0");
   CHECK(!sh_android_date_valid(65536, 1, 1), "year beyond 16 bits");
   CHECK_EQ_INT(sh_android_deqp_level(2023, 2, 29), 0);
   CHECK_EQ_INT(sh_android_deqp_level(65536, 1, 1), 0);

   int y = -1, m = -1, d = -1;
   CHECK(sh_android_deqp_level_decode(0x07E60301, &y, &m, &d), "decode 2022-03-01");
   CHECK(y == 2022 && m == 3 && d == 1, "decoded %d-%d-%d", y, m, d);
   CHECK(!sh_android_deqp_level_decode(0, &y, &m, &d), "0 is no date");
   CHECK(!sh_android_deqp_level_decode(0x010307E6, &y, &m, &d),
         "the fields in the opposite order are no date");
   CHECK(y == 2022 && m == 3 && d == 1, "a failed decode wrote its outputs");
   /* Every day of two years (one leap) round-trips. */
   int days = 0;
   for (int year = 2023; year <= 2024; year++)
      for (int month = 1; month <= 12; month++)
         for (int day = 1; day <= 31; day++) {
            uint32_t level = sh_android_deqp_level(year, month, day);
            if (level == 0)
               continue;
            days++;
            int yy = 0, mm = 0, dd = 0;
            CHECK(sh_android_deqp_level_decode(level, &yy, &mm, &dd) && yy == year &&
                     mm == month && dd == day,
                  "%d-%d-%d did not round-trip", year, month, day);
         }
   CHECK_EQ_INT(days, 365 + 366);
}

/* PackageManager.FEATURE_VULKAN_HARDWARE_LEVEL, spelled out by member name. */
static void
set_level0(VkPhysicalDeviceFeatures *f)
{
   f->textureCompressionETC2 = VK_TRUE;
}

static VkBool32 *
level1_member(VkPhysicalDeviceFeatures *f, int i)
{
   VkBool32 *members[] = {
      &f->fullDrawIndexUint32, &f->imageCubeArray, &f->independentBlend, &f->geometryShader,
      &f->tessellationShader, &f->sampleRateShading, &f->textureCompressionASTC_LDR,
      &f->fragmentStoresAndAtomics, &f->shaderImageGatherExtended,
      &f->shaderUniformBufferArrayDynamicIndexing, &f->shaderSampledImageArrayDynamicIndexing,
   };
   return i < (int)(sizeof(members) / sizeof(members[0])) ? members[i] : NULL;
}

static void
check_levels(void)
{
   VkPhysicalDeviceFeatures f;
   memset(&f, 0, sizeof(f));
   CHECK_EQ_INT(sh_android_vulkan_level(&f), -1);

   /* Everything but ETC2 is still not level 0. */
   for (VkBool32 *m = (VkBool32 *)&f; m < (VkBool32 *)(&f + 1); m++)
      *m = VK_TRUE;
   f.textureCompressionETC2 = VK_FALSE;
   CHECK_EQ_INT(sh_android_vulkan_level(&f), -1);

   memset(&f, 0, sizeof(f));
   set_level0(&f);
   CHECK_EQ_INT(sh_android_vulkan_level(&f), 0);
   f.robustBufferAccess = VK_TRUE;   /* not on either list */
   CHECK_EQ_INT(sh_android_vulkan_level(&f), 0);

   int n = 0;
   for (VkBool32 *m; (m = level1_member(&f, n)) != NULL; n++)
      *m = VK_TRUE;
   CHECK_EQ_INT(n, 11);
   CHECK_EQ_INT(sh_android_vulkan_level(&f), 1);
   /* Each level-1 feature is needed. */
   for (int i = 0; i < n; i++) {
      *level1_member(&f, i) = VK_FALSE;
      CHECK(sh_android_vulkan_level(&f) == 0, "level 1 without level-1 feature %d", i);
      *level1_member(&f, i) = VK_TRUE;
   }
   CHECK_EQ_INT(sh_android_level_requirement_count, 12);
}

int
main(void)
{
   check_version_feature();
   check_deqp_dates();
   check_levels();
   return check_finish();
}
