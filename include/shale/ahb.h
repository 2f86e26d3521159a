/*
 * shale/ahb.h: the NDK's AHardwareBuffer numbers (formats and usage bits),
 * spelled out for the code that cannot include <android/hardware_buffer.h>:
 * the driver core (src/driver/sd_ahb.c), the host gralloc backend and the
 * tests. The values are the NDK's (android/hardware_buffer.h, API 26+); the
 * formats are also the HAL_PIXEL_FORMAT_* values of the same name.
 *
 * Owns: nothing but constants. Prefixed (SHALE_AHB_) because Android's own
 * headers define the plain names as enumerators.
 */
#ifndef SHALE_AHB_H
#define SHALE_AHB_H

#include <stdint.h>

/* AHARDWAREBUFFER_FORMAT_* */
#define SHALE_AHB_FORMAT_R8G8B8A8_UNORM 0x01
#define SHALE_AHB_FORMAT_R8G8B8X8_UNORM 0x02
#define SHALE_AHB_FORMAT_R8G8B8_UNORM 0x03
#define SHALE_AHB_FORMAT_R5G6B5_UNORM 0x04
#define SHALE_AHB_FORMAT_R16G16B16A16_FLOAT 0x16
#define SHALE_AHB_FORMAT_BLOB 0x21
#define SHALE_AHB_FORMAT_Y8Cb8Cr8_420 0x23
#define SHALE_AHB_FORMAT_R10G10B10A2_UNORM 0x2B
#define SHALE_AHB_FORMAT_D16_UNORM 0x30
#define SHALE_AHB_FORMAT_D24_UNORM 0x31
#define SHALE_AHB_FORMAT_D24_UNORM_S8_UINT 0x32
#define SHALE_AHB_FORMAT_D32_FLOAT 0x33
#define SHALE_AHB_FORMAT_D32_FLOAT_S8_UINT 0x34
#define SHALE_AHB_FORMAT_S8_UINT 0x35

/* AHARDWAREBUFFER_USAGE_* */
#define SHALE_AHB_USAGE_CPU_READ_RARELY UINT64_C(0x2)
#define SHALE_AHB_USAGE_CPU_READ_OFTEN UINT64_C(0x3)
#define SHALE_AHB_USAGE_CPU_READ_MASK UINT64_C(0xF)
#define SHALE_AHB_USAGE_CPU_WRITE_RARELY UINT64_C(0x20)
#define SHALE_AHB_USAGE_CPU_WRITE_OFTEN UINT64_C(0x30)
#define SHALE_AHB_USAGE_CPU_WRITE_MASK UINT64_C(0xF0)
#define SHALE_AHB_USAGE_GPU_SAMPLED_IMAGE (UINT64_C(1) << 8)
#define SHALE_AHB_USAGE_GPU_FRAMEBUFFER (UINT64_C(1) << 9)
#define SHALE_AHB_USAGE_COMPOSER_OVERLAY (UINT64_C(1) << 11)
#define SHALE_AHB_USAGE_PROTECTED_CONTENT (UINT64_C(1) << 14)
#define SHALE_AHB_USAGE_VIDEO_ENCODE (UINT64_C(1) << 16)
#define SHALE_AHB_USAGE_SENSOR_DIRECT_DATA (UINT64_C(1) << 23)
#define SHALE_AHB_USAGE_GPU_DATA_BUFFER (UINT64_C(1) << 24)
#define SHALE_AHB_USAGE_GPU_CUBE_MAP (UINT64_C(1) << 25)
#define SHALE_AHB_USAGE_GPU_MIPMAP_COMPLETE (UINT64_C(1) << 26)
#define SHALE_AHB_USAGE_FRONT_BUFFER (UINT64_C(1) << 32)

/* Every AHARDWAREBUFFER_USAGE_GPU_* bit (the spec's "GPU usage"). */
#define SHALE_AHB_USAGE_GPU_ANY                                                        \
   (SHALE_AHB_USAGE_GPU_SAMPLED_IMAGE | SHALE_AHB_USAGE_GPU_FRAMEBUFFER |              \
    SHALE_AHB_USAGE_GPU_DATA_BUFFER | SHALE_AHB_USAGE_GPU_CUBE_MAP |                   \
    SHALE_AHB_USAGE_GPU_MIPMAP_COMPLETE)

#endif
