/* One patch through the tessellation stages (sr_tess.h, "Running a
 * patch"): the compiled control shader over the patch's input vertices,
 * the primitive generator on the levels it wrote, the compiled evaluation
 * shader over the generated points W at a time. Plain C on one worker, no
 * allocation per patch: the worker's buffers are sized for the largest
 * patch the draw's modes can generate. */
#include <string.h>

#include "sr_tess.h"

#define VERTEX_WORDS ((size_t)SHALE_TESS_MAX_PATCH_VERTICES * SHALE_SLOT_COUNT * 4)
#define PATCH_WORDS ((size_t)SHALE_PATCH_SLOT_COUNT * 4)

bool
sr_tess_merge_modes(const struct shale_tess_modes *tcs, const struct shale_tess_modes *tes,
                    bool lower_left, struct sr_tess_params *out)
{
   memset(out, 0, sizeof(*out));
   /* Either stage may declare a mode; where both do, they agree (a valid
    * pipeline's rule). */
   uint8_t domain = tes->domain ? tes->domain : tcs->domain;
   uint8_t spacing = tes->spacing ? tes->spacing : tcs->spacing;
   uint8_t order = tes->vertex_order ? tes->vertex_order : tcs->vertex_order;
   if ((tcs->domain && tes->domain && tcs->domain != tes->domain) ||
       (tcs->spacing && tes->spacing && tcs->spacing != tes->spacing) ||
       (tcs->vertex_order && tes->vertex_order && tcs->vertex_order != tes->vertex_order))
      return false;
   switch (domain) {
   case SHALE_TESS_DOMAIN_TRIANGLES: out->domain = SR_TESS_TRIANGLES; break;
   case SHALE_TESS_DOMAIN_QUADS: out->domain = SR_TESS_QUADS; break;
   case SHALE_TESS_DOMAIN_ISOLINES: out->domain = SR_TESS_ISOLINES; break;
   default: return false;
   }
   switch (spacing) {
   case SHALE_TESS_SPACING_EQUAL: out->spacing = SR_TESS_EQUAL; break;
   case SHALE_TESS_SPACING_FRACTIONAL_EVEN: out->spacing = SR_TESS_FRACTIONAL_EVEN; break;
   case SHALE_TESS_SPACING_FRACTIONAL_ODD: out->spacing = SR_TESS_FRACTIONAL_ODD; break;
   default: return false;
   }
   /* Isolines have no winding; triangles without a declared order are
    * counter-clockwise, as GLSL's default. */
   out->ccw = order != SHALE_TESS_ORDER_CW;
   out->point_mode = tcs->point_mode || tes->point_mode;
   out->lower_left = lower_left;
   return true;
}

static void *
run_alloc(const VkAllocationCallbacks *a, size_t size)
{
   size = (size + SHALE_MEMORY_ALIGN - 1) & ~(size_t)(SHALE_MEMORY_ALIGN - 1);
   if (!size)
      size = SHALE_MEMORY_ALIGN;
   if (!a)
      return aligned_alloc(SHALE_MEMORY_ALIGN, size);
   return a->pfnAllocation(a->pUserData, size, SHALE_MEMORY_ALIGN,
                           VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
}

static void
run_free(const VkAllocationCallbacks *a, void *p)
{
   if (!a)
      free(p);
   else if (p)
      a->pfnFree(a->pUserData, p);
}

VkResult
sr_tess_worker_init(struct sr_tess_worker *w, const struct sr_tess_stages *s,
                    const VkAllocationCallbacks *alloc)
{
   memset(w, 0, sizeof(*w));
   w->alloc = alloc;
   /* The largest patch of the draw's modes: every level at the maximum
    * (counts grow with the levels). */
   struct sr_tess_params p = s->mode;
   for (int k = 0; k < 4; k++)
      p.outer[k] = SR_TESS_MAX_LEVEL;
   p.inner[0] = p.inner[1] = SR_TESS_MAX_LEVEL;
   struct sr_tess_counts c;
   sr_tess_count(&p, &c);
   w->max_vertices = c.vertices;
   w->max_indices = c.primitives * c.prim_verts;
   const uint32_t width = s->tes_width ? s->tes_width : 1;
   w->block = run_alloc(alloc, s->tcs_block_size);
   w->scratch = run_alloc(alloc, s->tcs_scratch_size);
   w->outputs = run_alloc(alloc, VERTEX_WORDS * 4);
   w->patch = run_alloc(alloc, PATCH_WORDS * 4);
   w->tes_out = run_alloc(alloc, (size_t)SHALE_SLOT_COUNT * 4 * width * 4);
   w->coord = run_alloc(alloc, (size_t)(w->max_vertices ? w->max_vertices : 1) * sizeof(*w->coord));
   w->index = run_alloc(alloc, (size_t)(w->max_indices ? w->max_indices : 1) * 4);
   if (!w->block || !w->scratch || !w->outputs || !w->patch || !w->tes_out || !w->coord ||
       !w->index) {
      sr_tess_worker_finish(w);
      return VK_ERROR_OUT_OF_HOST_MEMORY;
   }
   /* Words the control shader does not write read as 0 in the
    * evaluation shader (defined values, the same on every run). */
   memset(w->outputs, 0, VERTEX_WORDS * 4);
   memset(w->patch, 0, PATCH_WORDS * 4);
   return VK_SUCCESS;
}

void
sr_tess_worker_finish(struct sr_tess_worker *w)
{
   const VkAllocationCallbacks *a = w->alloc;
   run_free(a, w->block);
   run_free(a, w->scratch);
   run_free(a, w->outputs);
   run_free(a, w->patch);
   run_free(a, w->tes_out);
   run_free(a, w->coord);
   run_free(a, w->index);
   memset(w, 0, sizeof(*w));
}

static float
word_float(uint32_t u)
{
   float f;
   memcpy(&f, &u, 4);
   return f;
}

void
sr_tess_run_patch(const struct sr_tess_stages *s, struct sr_tess_worker *w,
                  const struct shale_tess_context *ctx, const uint32_t *inputs,
                  uint32_t primitive_id, sr_tess_emit_fn emit, void *data,
                  struct sr_tess_counts *counts)
{
   memset(counts, 0, sizeof(*counts));
   /* The control shader: one call for the whole patch, over a zeroed
    * patch block. Outputs it does not write keep the worker's earlier
    * values: zero, since no control shader writes them. */
   memset(w->block, 0, s->tcs_block_size);
   struct shale_tcs_patch patch = {
      .patch_block = w->block,
      .scratch = w->scratch,
      .primitive_id = primitive_id,
      .patch_vertices = s->patch_vertices,
      .inputs = inputs,
      .outputs = w->outputs,
      .patch_outputs = w->patch,
   };
   s->tcs(ctx, &patch);

   /* The generator, on the levels it wrote. */
   struct sr_tess_params p = s->mode;
   for (int k = 0; k < 4; k++)
      p.outer[k] = word_float(w->patch[SHALE_PATCH_SLOT_TESS_OUTER * 4 + k]);
   for (int k = 0; k < 2; k++)
      p.inner[k] = word_float(w->patch[SHALE_PATCH_SLOT_TESS_INNER * 4 + k]);
   struct sr_tess_counts c;
   if (!sr_tess_count(&p, &c))
      return;   /* culled: no evaluation shader invocation */
   if (c.vertices > w->max_vertices || c.primitives * c.prim_verts > w->max_indices)
      return;   /* cannot happen: the bound is the maximum levels' */
   sr_tess_generate(&p, w->coord, w->index);
   *counts = c;

   /* The evaluation shader over the points, W at a time. */
   const uint32_t width = s->tes_width ? s->tes_width : 1;
   for (uint32_t first = 0; first < c.vertices; first += width) {
      struct shale_tes_batch batch = {
         .count = c.vertices - first < width ? c.vertices - first : width,
         .primitive_id = primitive_id,
         .patch_vertices = s->tcs_io->output_vertices,
         .inputs = w->outputs,
         .patch_inputs = w->patch,
         .outputs = w->tes_out,
      };
      for (uint32_t i = 0; i < width; i++) {
         const float *uvw = w->coord[first + (i < batch.count ? i : 0)];
         for (int k = 0; k < 3; k++)
            batch.tess_coord[k][i] = uvw[k];
      }
      s->tes(ctx, &batch);
      emit(data, w->tes_out, width, first, batch.count);
   }
}
