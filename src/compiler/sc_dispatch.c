/* Runs a compute dispatch on the calling thread (tests; the driver's
 * single-threaded fallback). */
#include <stdlib.h>
#include <string.h>

#include "sc_compiler.h"

static void *
aligned_block(uint32_t size)
{
   size_t bytes = ((size_t)(size ? size : 1) + SHALE_MEMORY_ALIGN - 1) & ~(size_t)(SHALE_MEMORY_ALIGN - 1);
   return aligned_alloc(SHALE_MEMORY_ALIGN, bytes);
}

enum sc_result
sc_dispatch_compute(const struct sc_shader *shader, struct shale_cs_context *ctx,
                    const uint32_t base[3], const uint32_t count[3])
{
   if (!shader || shader->stage != VK_SHADER_STAGE_COMPUTE_BIT || !shader->fn.cs)
      return SC_ERROR_INTERNAL;
   for (int k = 0; k < 3; k++) {
      ctx->num_workgroups[k] = count[k];
      ctx->base_workgroup[k] = base[k];
      ctx->local_size[k] = shader->local_size[k];
   }
   struct shale_cs_workgroup wg;
   memset(&wg, 0, sizeof(wg));
   wg.shared_memory = aligned_block(shader->shared_size);
   wg.scratch = aligned_block(shader->scratch_size);
   if (!wg.shared_memory || !wg.scratch) {
      free(wg.shared_memory);
      free(wg.scratch);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   for (uint32_t z = 0; z < count[2]; z++) {
      for (uint32_t y = 0; y < count[1]; y++) {
         for (uint32_t x = 0; x < count[0]; x++) {
            wg.workgroup_id[0] = base[0] + x;
            wg.workgroup_id[1] = base[1] + y;
            wg.workgroup_id[2] = base[2] + z;
            shader->fn.cs(ctx, &wg);
         }
      }
   }
   free(wg.shared_memory);
   free(wg.scratch);
   return SC_SUCCESS;
}
