/*
 * sd_shader: VkShaderModule.
 *
 * Owns: a copy of the module's SPIR-V words (in native byte order: a module
 * given in the other byte order is swapped once here) and the SHA-256 of
 * those words, which pipeline keys reuse instead of hashing the code again.
 *
 * Invariants: immutable after creation. Creation checks only the outer shape
 * (a whole number of words, at least the 5-word header, the SPIR-V magic
 * number); everything else is validated when a pipeline compiles an entry
 * point, which returns an error for invalid SPIR-V (never crashes). A module
 * may be destroyed while pipelines made from it live: they keep nothing of it.
 *
 * Threading: immutable.
 */
#ifndef SD_SHADER_H
#define SD_SHADER_H

#include <stddef.h>
#include <stdint.h>

#include "sd_object.h"

struct sd_shader_module {
   struct sd_object base;
   size_t word_count;
   uint8_t sha256[32];
   uint32_t words[];
};

SD_DEFINE_NONDISP_HANDLE_CASTS(sd_shader_module, base, VkShaderModule,
                               VK_OBJECT_TYPE_SHADER_MODULE)

#endif
