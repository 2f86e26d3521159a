/*
 * sh_android_levels: the numbers Android's feature XMLs and properties carry
 * about a Vulkan driver, computed from what the driver reports.
 *
 * Owns: the encodings of android.hardware.vulkan.version (a Vulkan version
 * number, allowed only as 1.0.3, 1.1.0, 1.2.0, 1.3.0, ...),
 * android.hardware.vulkan.level (0 or 1, from VkPhysicalDeviceFeatures),
 * android.software.vulkan.deqp.level (a date: year in bits 31-16, month in
 * 15-8, day in 7-0, as PackageManager.FEATURE_VULKAN_DEQP_LEVEL documents;
 * 2019-03-01 is 0x07E30301, 2022-03-01 is 0x07E60301) and ro.cpuvulkan.version
 * (the physical device's apiVersion itself, which Android's VSR test compares
 * for equality). ci/android/gen_feature_xml.py mirrors these functions and
 * checks its results against them through tests/android/sh_android_caps.c.
 *
 * Invariants: nothing is claimed that the inputs do not support: a level
 * needs every feature of its list, and a version is never above the
 * apiVersion it came from.
 *
 * Threading: pure functions and constant tables.
 */
#ifndef SH_ANDROID_LEVELS_H
#define SH_ANDROID_LEVELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan_core.h>

/* android.hardware.vulkan.version for a device reporting `api_version`:
 * major.minor.0, except that a 1.0 device declares 1.0.3 (the only 1.0 value
 * Android knows), which needs patch >= 3. 0 when there is no value to
 * declare (variant != 0, major != 1, or 1.0 below patch 3). */
uint32_t sh_android_vulkan_version_feature(uint32_t api_version);

/* Whether year-month-day is a real Gregorian date with 1 <= year <= 65535. */
bool sh_android_date_valid(int year, int month, int day);
/* android.software.vulkan.deqp.level of a date; 0 for an invalid date. */
uint32_t sh_android_deqp_level(int year, int month, int day);
/* The date a deqp level encodes; false (outputs untouched) when it encodes
 * no valid date. */
bool sh_android_deqp_level_decode(uint32_t level, int *year, int *month, int *day);

/* One VkPhysicalDeviceFeatures member a Vulkan hardware level requires. */
struct sh_android_level_requirement {
   int level;            /* 0 or 1 */
   const char *name;     /* the member's name */
   size_t offset;        /* offsetof(VkPhysicalDeviceFeatures, member) */
};
extern const struct sh_android_level_requirement sh_android_level_requirements[];
extern const size_t sh_android_level_requirement_count;

/* The highest android.hardware.vulkan.level the features meet: 1, 0, or -1
 * when not even level 0 (textureCompressionETC2) is met. */
int sh_android_vulkan_level(const VkPhysicalDeviceFeatures *features);

#endif
