/* Texel formats generated code converts (storage images, texel buffers). */
#include "sc_format.h"

#include <spirv/unified1/spirv.h>

#include "sc_compiler.h"

#define R_(f, k, b) { f, (b) / 8, k, 1, { 0 }, { 0 }, { b } }
#define RG_(f, k, b) { f, 2 * (b) / 8, k, 2, { 0, 1 }, { 0, b }, { b, b } }
#define RGB_(f, k, b) { f, 3 * (b) / 8, k, 3, { 0, 1, 2 }, { 0, b, 2 * (b) }, { b, b, b } }
#define RGBA_(f, k, b) \
   { f, 4 * (b) / 8, k, 4, { 0, 1, 2, 3 }, { 0, b, 2 * (b), 3 * (b) }, { b, b, b, b } }

static const struct sc_texel_format formats[] = {
   R_(VK_FORMAT_R8_UNORM, SC_TEXEL_UNORM, 8),
   R_(VK_FORMAT_R8_SNORM, SC_TEXEL_SNORM, 8),
   R_(VK_FORMAT_R8_UINT, SC_TEXEL_UINT, 8),
   R_(VK_FORMAT_R8_SINT, SC_TEXEL_SINT, 8),
   RG_(VK_FORMAT_R8G8_UNORM, SC_TEXEL_UNORM, 8),
   RG_(VK_FORMAT_R8G8_SNORM, SC_TEXEL_SNORM, 8),
   RG_(VK_FORMAT_R8G8_UINT, SC_TEXEL_UINT, 8),
   RG_(VK_FORMAT_R8G8_SINT, SC_TEXEL_SINT, 8),
   RGBA_(VK_FORMAT_R8G8B8A8_UNORM, SC_TEXEL_UNORM, 8),
   RGBA_(VK_FORMAT_R8G8B8A8_SNORM, SC_TEXEL_SNORM, 8),
   RGBA_(VK_FORMAT_R8G8B8A8_UINT, SC_TEXEL_UINT, 8),
   RGBA_(VK_FORMAT_R8G8B8A8_SINT, SC_TEXEL_SINT, 8),
   { VK_FORMAT_B8G8R8A8_UNORM, 4, SC_TEXEL_UNORM, 4, { 2, 1, 0, 3 }, { 0, 8, 16, 24 },
     { 8, 8, 8, 8 } },
   /* A8B8G8R8 packed in a little-endian word is R8G8B8A8 in memory. */
   RGBA_(VK_FORMAT_A8B8G8R8_UNORM_PACK32, SC_TEXEL_UNORM, 8),
   RGBA_(VK_FORMAT_A8B8G8R8_SNORM_PACK32, SC_TEXEL_SNORM, 8),
   RGBA_(VK_FORMAT_A8B8G8R8_UINT_PACK32, SC_TEXEL_UINT, 8),
   RGBA_(VK_FORMAT_A8B8G8R8_SINT_PACK32, SC_TEXEL_SINT, 8),
   { VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, SC_TEXEL_UNORM, 4, { 0, 1, 2, 3 },
     { 0, 10, 20, 30 }, { 10, 10, 10, 2 } },
   { VK_FORMAT_A2B10G10R10_UINT_PACK32, 4, SC_TEXEL_UINT, 4, { 0, 1, 2, 3 },
     { 0, 10, 20, 30 }, { 10, 10, 10, 2 } },
   { VK_FORMAT_B10G11R11_UFLOAT_PACK32, 4, SC_TEXEL_UFLOAT, 3, { 0, 1, 2 }, { 0, 11, 22 },
     { 11, 11, 10 } },
   R_(VK_FORMAT_R16_UNORM, SC_TEXEL_UNORM, 16),
   R_(VK_FORMAT_R16_SNORM, SC_TEXEL_SNORM, 16),
   R_(VK_FORMAT_R16_UINT, SC_TEXEL_UINT, 16),
   R_(VK_FORMAT_R16_SINT, SC_TEXEL_SINT, 16),
   R_(VK_FORMAT_R16_SFLOAT, SC_TEXEL_SFLOAT, 16),
   RG_(VK_FORMAT_R16G16_UNORM, SC_TEXEL_UNORM, 16),
   RG_(VK_FORMAT_R16G16_SNORM, SC_TEXEL_SNORM, 16),
   RG_(VK_FORMAT_R16G16_UINT, SC_TEXEL_UINT, 16),
   RG_(VK_FORMAT_R16G16_SINT, SC_TEXEL_SINT, 16),
   RG_(VK_FORMAT_R16G16_SFLOAT, SC_TEXEL_SFLOAT, 16),
   RGBA_(VK_FORMAT_R16G16B16A16_UNORM, SC_TEXEL_UNORM, 16),
   RGBA_(VK_FORMAT_R16G16B16A16_SNORM, SC_TEXEL_SNORM, 16),
   RGBA_(VK_FORMAT_R16G16B16A16_UINT, SC_TEXEL_UINT, 16),
   RGBA_(VK_FORMAT_R16G16B16A16_SINT, SC_TEXEL_SINT, 16),
   RGBA_(VK_FORMAT_R16G16B16A16_SFLOAT, SC_TEXEL_SFLOAT, 16),
   R_(VK_FORMAT_R32_UINT, SC_TEXEL_UINT, 32),
   R_(VK_FORMAT_R32_SINT, SC_TEXEL_SINT, 32),
   R_(VK_FORMAT_R32_SFLOAT, SC_TEXEL_SFLOAT, 32),
   RG_(VK_FORMAT_R32G32_UINT, SC_TEXEL_UINT, 32),
   RG_(VK_FORMAT_R32G32_SINT, SC_TEXEL_SINT, 32),
   RG_(VK_FORMAT_R32G32_SFLOAT, SC_TEXEL_SFLOAT, 32),
   /* 12-byte texels: uniform texel buffers only (no SPIR-V Image Format
    * names them, and they are no storage format of sd_format.c). */
   RGB_(VK_FORMAT_R32G32B32_UINT, SC_TEXEL_UINT, 32),
   RGB_(VK_FORMAT_R32G32B32_SINT, SC_TEXEL_SINT, 32),
   RGB_(VK_FORMAT_R32G32B32_SFLOAT, SC_TEXEL_SFLOAT, 32),
   RGBA_(VK_FORMAT_R32G32B32A32_UINT, SC_TEXEL_UINT, 32),
   RGBA_(VK_FORMAT_R32G32B32A32_SINT, SC_TEXEL_SINT, 32),
   RGBA_(VK_FORMAT_R32G32B32A32_SFLOAT, SC_TEXEL_SFLOAT, 32),
};

const struct sc_texel_format *
sc_texel_formats(uint32_t *count)
{
   *count = sizeof(formats) / sizeof(formats[0]);
   return formats;
}

const struct sc_texel_format *
sc_texel_format(VkFormat format)
{
   for (uint32_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
      if (formats[i].format == format)
         return &formats[i];
   return NULL;
}

VkFormat
sc_texel_format_from_spirv(uint32_t f)
{
   switch (f) {
   case SpvImageFormatRgba32f: return VK_FORMAT_R32G32B32A32_SFLOAT;
   case SpvImageFormatRgba16f: return VK_FORMAT_R16G16B16A16_SFLOAT;
   case SpvImageFormatR32f: return VK_FORMAT_R32_SFLOAT;
   case SpvImageFormatRgba8: return VK_FORMAT_R8G8B8A8_UNORM;
   case SpvImageFormatRgba8Snorm: return VK_FORMAT_R8G8B8A8_SNORM;
   case SpvImageFormatRg32f: return VK_FORMAT_R32G32_SFLOAT;
   case SpvImageFormatRg16f: return VK_FORMAT_R16G16_SFLOAT;
   case SpvImageFormatR11fG11fB10f: return VK_FORMAT_B10G11R11_UFLOAT_PACK32;
   case SpvImageFormatR16f: return VK_FORMAT_R16_SFLOAT;
   case SpvImageFormatRgba16: return VK_FORMAT_R16G16B16A16_UNORM;
   case SpvImageFormatRgb10A2: return VK_FORMAT_A2B10G10R10_UNORM_PACK32;
   case SpvImageFormatRg16: return VK_FORMAT_R16G16_UNORM;
   case SpvImageFormatRg8: return VK_FORMAT_R8G8_UNORM;
   case SpvImageFormatR16: return VK_FORMAT_R16_UNORM;
   case SpvImageFormatR8: return VK_FORMAT_R8_UNORM;
   case SpvImageFormatRgba16Snorm: return VK_FORMAT_R16G16B16A16_SNORM;
   case SpvImageFormatRg16Snorm: return VK_FORMAT_R16G16_SNORM;
   case SpvImageFormatRg8Snorm: return VK_FORMAT_R8G8_SNORM;
   case SpvImageFormatR16Snorm: return VK_FORMAT_R16_SNORM;
   case SpvImageFormatR8Snorm: return VK_FORMAT_R8_SNORM;
   case SpvImageFormatRgba32i: return VK_FORMAT_R32G32B32A32_SINT;
   case SpvImageFormatRgba16i: return VK_FORMAT_R16G16B16A16_SINT;
   case SpvImageFormatRgba8i: return VK_FORMAT_R8G8B8A8_SINT;
   case SpvImageFormatR32i: return VK_FORMAT_R32_SINT;
   case SpvImageFormatRg32i: return VK_FORMAT_R32G32_SINT;
   case SpvImageFormatRg16i: return VK_FORMAT_R16G16_SINT;
   case SpvImageFormatRg8i: return VK_FORMAT_R8G8_SINT;
   case SpvImageFormatR16i: return VK_FORMAT_R16_SINT;
   case SpvImageFormatR8i: return VK_FORMAT_R8_SINT;
   case SpvImageFormatRgba32ui: return VK_FORMAT_R32G32B32A32_UINT;
   case SpvImageFormatRgba16ui: return VK_FORMAT_R16G16B16A16_UINT;
   case SpvImageFormatRgba8ui: return VK_FORMAT_R8G8B8A8_UINT;
   case SpvImageFormatR32ui: return VK_FORMAT_R32_UINT;
   case SpvImageFormatRgb10a2ui: return VK_FORMAT_A2B10G10R10_UINT_PACK32;
   case SpvImageFormatRg32ui: return VK_FORMAT_R32G32_UINT;
   case SpvImageFormatRg16ui: return VK_FORMAT_R16G16_UINT;
   case SpvImageFormatRg8ui: return VK_FORMAT_R8G8_UINT;
   case SpvImageFormatR16ui: return VK_FORMAT_R16_UINT;
   case SpvImageFormatR8ui: return VK_FORMAT_R8_UINT;
   default: return VK_FORMAT_UNDEFINED;
   }
}

uint32_t
sc_image_format_features(VkFormat format)
{
   const struct sc_texel_format *f = sc_texel_format(format);
   if (!f)
      return 0;
   uint32_t features = SC_IMAGE_FORMAT_LOAD_STORE;
   if (format == VK_FORMAT_R32_UINT || format == VK_FORMAT_R32_SINT)
      features |= SC_IMAGE_FORMAT_ATOMIC;
   return features;
}
