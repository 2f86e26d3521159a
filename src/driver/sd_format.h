/*
 * sd_format: which formats Shale claims, with which format features, and the
 * image-format capability queries built on them.
 *
 * Owns: the mapping from a known format (src/util/su_format) to its
 * VkFormatProperties, and vkGetPhysicalDeviceImageFormatProperties(2), whose
 * answer sd_image's vkCreateImage also uses, so the query and creation agree
 * exactly: an image is created iff the query succeeds for its format, type,
 * tiling, usage and flags and its extent, mip levels, layers and samples are
 * within the answer (and its size within maxResourceSize).
 *
 * Invariants: a feature bit is set only for what the driver does: today the
 * transfer path (copies of every claimed format; blits and clears of every
 * claimed format except the 64-bit-channel ones; linear blit filtering for
 * float-class colour formats) and compute shaders' image and texel-buffer
 * access, claimed only for formats the compiler converts
 * (sc_image_format_features) and tests/api/test_storage.c covers:
 * STORAGE_IMAGE for the 16 mandatory storage formats (R32, RG32, RGBA32
 * UINT/SINT/SFLOAT, RGBA8 UNORM/SNORM/UINT/SINT, RGBA16 UINT/SINT/SFLOAT)
 * and the 23 storage image extended formats (shaderStorageImageExtendedFormats;
 * all 39 loaded and stored, declared and format-less, in compute and
 * fragment shaders by tests/api/test_storage_formats.c);
 * STORAGE_IMAGE_ATOMIC for R32_UINT and R32_SINT; UNIFORM_TEXEL_BUFFER and
 * STORAGE_TEXEL_BUFFER for R32_UINT, R32_SINT, R32_SFLOAT, RGBA8_UNORM and
 * RGBA32_SFLOAT, with STORAGE_TEXEL_BUFFER_ATOMIC for R32_UINT and R32_SINT.
 * SAMPLED_IMAGE (compute shaders through src/rasterizer/sr_sample) for the
 * formats tests/api/sampling/test_sampling.c samples against its reference
 * sampler and lavapipe: every format Vulkan requires it on, the other
 * non-scaled 8/16/32-bit-channel formats lavapipe also samples, and the
 * depth/stencil formats but D16_UNORM_S8_UINT (sd_sampled_formats);
 * SAMPLED_IMAGE_FILTER_LINEAR on the float-class colour formats and the
 * formats with depth.
 * Not claimed: vertex buffers. Claimed: every core 1.0 uncompressed format
 * su_format knows (colour, depth and stencil). Not claimed: compressed formats
 * (no decoders for sampling yet, and no textureCompression* feature), the
 * 1.3 / VK_EXT_4444_formats A4R4G4B4 / A4B4G4R4 formats (the extension is not
 * exposed). Multi-planar formats (VK_KHR_sampler_ycbcr_conversion):
 * G8_B8_R8_3PLANE_420_UNORM and G8_B8R8_2PLANE_420_UNORM, the ones
 * tests/api/ycbcr covers, with SAMPLED_IMAGE (through a Y'CbCr conversion),
 * SAMPLED_IMAGE_FILTER_LINEAR, TRANSFER_SRC/DST, COSITED and MIDPOINT chroma
 * samples, the conversion's LINEAR_FILTER, SEPARATE_RECONSTRUCTION_FILTER and
 * CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE (implicit reconstruction unless
 * forced) and DISJOINT; their images are 2D, one level, one layer.
 * Single-plane formats have no chroma-sample bits of their own: Y'CbCr
 * conversions of four of them exist only as external-format conversions of
 * Android hardware buffers (sd_format_conversion_features).
 * Image usage: TRANSFER_SRC and TRANSFER_DST,
 * STORAGE where the format has STORAGE_IMAGE, SAMPLED where it has
 * SAMPLED_IMAGE, COLOR_ATTACHMENT and DEPTH_STENCIL_ATTACHMENT where it has
 * those features, INPUT_ATTACHMENT and TRANSIENT_ATTACHMENT where it has
 * either. Image create flags: MUTABLE_FORMAT; CUBE_COMPATIBLE (2D
 * only); 2D_ARRAY_COMPATIBLE (3D only, VK_KHR_maintenance1); DISJOINT
 * (multi-planar formats). Sample counts: 1, and 4 (SD_IMAGE_SAMPLE_COUNTS)
 * for 2D optimal images of formats with an
 * attachment feature, not cube compatible, narrowed for SAMPLED and
 * STORAGE usage to the sampledImage*SampleCounts and
 * storageImageSampleCounts limits (shaders read samples by OpImageFetch
 * and subpass inputs).
 *
 * Linear tiling has exactly the features and limits of optimal tiling: the two
 * share one memory layout (see sd_image.h), so nothing the spec lets linear
 * images restrict (mip levels, array layers, 3D, depth/stencil) is restricted.
 *
 * Threading: pure functions.
 */
#ifndef SD_FORMAT_H
#define SD_FORMAT_H

#include <stdbool.h>

#include <vulkan/vulkan_core.h>

struct sd_physical_device;

/* Features of a format with optimal or linear tiling (they are identical). */
VkFormatFeatureFlags sd_format_image_features(VkFormat format);
VkFormatFeatureFlags sd_format_buffer_features(VkFormat format);
/* Whether the vertex fetch reads attributes of this format. */
bool sd_format_vertex_input(VkFormat format);
/* Features of `format` sampled through a Y'CbCr conversion of an external
 * format (sd_ahb): a multi-planar format's own; for the single-plane
 * formats of RGB Android hardware buffers (R8G8B8A8_UNORM,
 * R5G6B5_UNORM_PACK16, A2B10G10R10_UNORM_PACK32, R16G16B16A16_SFLOAT)
 * SAMPLED_IMAGE, their FILTER_LINEAR, COSITED and MIDPOINT chroma samples,
 * the conversion's LINEAR_FILTER, SEPARATE_RECONSTRUCTION_FILTER and
 * CHROMA_RECONSTRUCTION_EXPLICIT_FORCEABLE, which those formats' own
 * properties never show; 0 for any other format. */
VkFormatFeatureFlags sd_format_conversion_features(VkFormat format);

/* The body of vkGetPhysicalDeviceImageFormatProperties: VK_SUCCESS with the
 * limits, or VK_ERROR_FORMAT_NOT_SUPPORTED with *props zeroed. */
VkResult sd_format_image_properties(const struct sd_physical_device *pdev, VkFormat format,
                                    VkImageType type, VkImageTiling tiling,
                                    VkImageUsageFlags usage, VkImageCreateFlags flags,
                                    VkImageFormatProperties *props);

#endif
