/*
 * hardware/hardware.h: the libhardware HAL module ABI (hw_module_t,
 * hw_module_methods_t, hw_device_t), written for Shale from the ABI facts.
 *
 * Owns: nothing but types and constants. The layouts are a binary contract
 * with Android's hw_get_module() and its callers: a module exports one
 * writable object named HMI whose first member is hw_module_t (the loader
 * writes hw_module_t.dso after dlopen), and open() hands back an object whose
 * first member is hw_device_t.
 *
 * Invariants: hw_module_t is 32 pointer-sized words on ILP32 (128 bytes) and
 * 7 fields + 25 reserved uint64_t on LP64 (248 bytes); hw_device_t is 64 bytes
 * on ILP32 and 120 bytes on LP64. The asserts at the end pin every offset.
 *
 * Threading: plain data; the HAL calls open() once per process.
 */
#ifndef SHALE_HARDWARE_HARDWARE_H
#define SHALE_HARDWARE_HARDWARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAKE_TAG_CONSTANT(a, b, c, d) \
   (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

#define HARDWARE_MODULE_TAG MAKE_TAG_CONSTANT('H', 'W', 'M', 'T') /* 0x48574D54 */
#define HARDWARE_DEVICE_TAG MAKE_TAG_CONSTANT('H', 'W', 'D', 'T') /* 0x48574454 */

/* Module versions are major.minor in 8.8 bits; device versions are
 * major.minor.patch in 8.8.16 bits. */
#define HARDWARE_MAKE_API_VERSION(maj, min) \
   ((uint16_t)((((maj) & 0xff) << 8) | ((min) & 0xff)))
#define HARDWARE_MAKE_API_VERSION_2(maj, min, patch) \
   ((uint32_t)((((maj) & 0xff) << 24) | (((min) & 0xff) << 16) | ((patch) & 0xffff)))
#define HARDWARE_MODULE_API_VERSION(maj, min) HARDWARE_MAKE_API_VERSION(maj, min)
#define HARDWARE_DEVICE_API_VERSION(maj, min) HARDWARE_MAKE_API_VERSION_2(maj, min, 0)
#define HARDWARE_DEVICE_API_VERSION_2(maj, min, patch) \
   HARDWARE_MAKE_API_VERSION_2(maj, min, patch)

/* The version of the hw_module_t/hw_device_t structures themselves. */
#define HARDWARE_HAL_API_VERSION HARDWARE_MAKE_API_VERSION(1, 0)

/* The symbol every HAL module exports, and its name for dlsym(). */
#define HAL_MODULE_INFO_SYM HMI
#define HAL_MODULE_INFO_SYM_AS_STR "HMI"

struct hw_module_t;
struct hw_device_t;

typedef struct hw_module_methods_t {
   /* Opens device `id` of `module`; 0 and *device set on success, a negative
    * errno value on failure. */
   int (*open)(const struct hw_module_t *module, const char *id,
               struct hw_device_t **device);
} hw_module_methods_t;

typedef struct hw_module_t {
   uint32_t tag;                /* HARDWARE_MODULE_TAG */
   uint16_t module_api_version; /* module-specific interface version */
   uint16_t hal_api_version;    /* HARDWARE_HAL_API_VERSION */
   const char *id;              /* e.g. "vulkan"; hw_get_module() compares it */
   const char *name;
   const char *author;
   struct hw_module_methods_t *methods;
   void *dso;                   /* written by the loader: the dlopen() handle */
#if UINTPTR_MAX > 0xffffffffu
   uint64_t reserved[32 - 7];
#else
   uint32_t reserved[32 - 7];
#endif
} hw_module_t;

typedef struct hw_device_t {
   uint32_t tag;                /* HARDWARE_DEVICE_TAG */
   uint32_t version;            /* module-specific device API version */
   struct hw_module_t *module;  /* the module this device came from */
#if UINTPTR_MAX > 0xffffffffu
   uint64_t reserved[12];
#else
   uint32_t reserved[12];
#endif
   int (*close)(struct hw_device_t *device);
} hw_device_t;

#ifndef SH_ABI_ASSERT
#ifdef __cplusplus
#define SH_ABI_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define SH_ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#endif

#if UINTPTR_MAX > 0xffffffffu
SH_ABI_ASSERT(sizeof(void *) == 8, "LP64 layout expects 8-byte pointers");
SH_ABI_ASSERT(offsetof(hw_module_t, module_api_version) == 4, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, hal_api_version) == 6, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, id) == 8, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, name) == 16, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, author) == 24, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, methods) == 32, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, dso) == 40, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, reserved) == 48, "hw_module_t ABI");
SH_ABI_ASSERT(sizeof(hw_module_t) == 248, "hw_module_t ABI: 48 + 25 * 8");
SH_ABI_ASSERT(offsetof(hw_device_t, version) == 4, "hw_device_t ABI");
SH_ABI_ASSERT(offsetof(hw_device_t, module) == 8, "hw_device_t ABI");
SH_ABI_ASSERT(offsetof(hw_device_t, reserved) == 16, "hw_device_t ABI");
SH_ABI_ASSERT(offsetof(hw_device_t, close) == 112, "hw_device_t ABI");
SH_ABI_ASSERT(sizeof(hw_device_t) == 120, "hw_device_t ABI: 16 + 12 * 8 + 8");
#else
SH_ABI_ASSERT(sizeof(void *) == 4, "ILP32 layout expects 4-byte pointers");
SH_ABI_ASSERT(offsetof(hw_module_t, id) == 8, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, dso) == 24, "hw_module_t ABI");
SH_ABI_ASSERT(offsetof(hw_module_t, reserved) == 28, "hw_module_t ABI");
SH_ABI_ASSERT(sizeof(hw_module_t) == 128, "hw_module_t ABI: 28 + 25 * 4");
SH_ABI_ASSERT(offsetof(hw_device_t, module) == 8, "hw_device_t ABI");
SH_ABI_ASSERT(offsetof(hw_device_t, close) == 60, "hw_device_t ABI");
SH_ABI_ASSERT(sizeof(hw_device_t) == 64, "hw_device_t ABI: 12 + 12 * 4 + 4");
#endif
SH_ABI_ASSERT(HARDWARE_MODULE_TAG == 0x48574D54u, "'HWMT'");
SH_ABI_ASSERT(HARDWARE_DEVICE_TAG == 0x48574454u, "'HWDT'");
SH_ABI_ASSERT(HARDWARE_HAL_API_VERSION == 0x0100, "HAL API 1.0");

#ifdef __cplusplus
}
#endif

#endif
