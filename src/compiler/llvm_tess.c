/* Tessellation stages for the SPMD translator (include/shale/shader_abi.h,
 * "Tessellation"; the draw path's plan: src/rasterizer/sr_tess.h).
 *
 * The control shader (TCS) is translated as a compute workgroup of
 * OutputVertices x 1 x 1 invocations (llvm_entry.c: the subgroup loop,
 * and the resumable body when OpControlBarrier meets several subgroups);
 * InvocationId is the local invocation index. Its Output variables live
 * in the patch block, which is the workgroup memory of that call
 * (llvm_memory.c places them there), so every invocation reads the
 * others' writes after a barrier; the body's end in the last subgroup
 * copies them out to the per-vertex and patch words (llvm_stage.c,
 * tcs_epilogue). Its inputs, and the evaluation shader's (TES), are
 * per-lane variables filled from the patch's words, the same in every
 * lane. The TES is otherwise a vertex shader: TessCoord per lane, outputs
 * in varying slots. This file: the execution modes and the built-ins. */
#include "llvm_private.h"

#include <stddef.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

_Static_assert(offsetof(struct shale_tess_context, sets) == offsetof(struct shale_cs_context, sets),
               "tessellation sets");
_Static_assert(offsetof(struct shale_tess_context, push_constants) ==
               offsetof(struct shale_cs_context, push_constants), "tessellation push constants");
_Static_assert(offsetof(struct shale_tess_context, cancel) ==
               offsetof(struct shale_cs_context, cancel), "tessellation cancel word");
_Static_assert(offsetof(struct shale_tcs_patch, patch_block) ==
               offsetof(struct shale_cs_workgroup, shared_memory), "patch block is shared memory");
_Static_assert(offsetof(struct shale_tcs_patch, scratch) ==
               offsetof(struct shale_cs_workgroup, scratch), "control shader scratch");
_Static_assert(offsetof(struct shale_tes_batch, count) == offsetof(struct shale_vs_batch, count),
               "evaluation lane count");
_Static_assert(offsetof(struct shale_tes_info, out) == 0, "evaluation outputs are io.vs");

static bool
is_tcs(const struct sc_xlate *x)
{
   return x->model == SpvExecutionModelTessellationControl;
}

/* Execution modes of a tessellation entry point: OutputVertices and those
 * of the primitive generator (either stage). Vulkan lets OutputVertices
 * be declared by either stage (equal where both do); the control shader's
 * workgroup is compiled from its own declaration, else from the
 * evaluation shader's, which the pipeline reads from that module first
 * (sc_compile_info.tess_output_vertices, sc_tess_output_vertices). The
 * evaluation shader's own is only checked for range (its PatchVertices is
 * the control shader's OutputVertices, given with each batch). */
bool
sc_tess_modes(struct sc_xlate *x)
{
   bool tcs = is_tcs(x);
   struct shale_tess_modes *md = tcs ? &x->io.tcs.modes : &x->io.tes.modes;
   const struct sc_inst *inst;
   for (uint32_t i = 0; (inst = sc_next_exec_mode(x, &i));) {
      uint32_t arg = inst->nwords > 3 ? inst->w[3] : 0;
      switch (inst->w[2]) {
      case SpvExecutionModeTriangles: md->domain = SHALE_TESS_DOMAIN_TRIANGLES; break;
      case SpvExecutionModeQuads: md->domain = SHALE_TESS_DOMAIN_QUADS; break;
      case SpvExecutionModeIsolines: md->domain = SHALE_TESS_DOMAIN_ISOLINES; break;
      case SpvExecutionModeSpacingEqual: md->spacing = SHALE_TESS_SPACING_EQUAL; break;
      case SpvExecutionModeSpacingFractionalEven:
         md->spacing = SHALE_TESS_SPACING_FRACTIONAL_EVEN;
         break;
      case SpvExecutionModeSpacingFractionalOdd:
         md->spacing = SHALE_TESS_SPACING_FRACTIONAL_ODD;
         break;
      case SpvExecutionModeVertexOrderCw: md->vertex_order = SHALE_TESS_ORDER_CW; break;
      case SpvExecutionModeVertexOrderCcw: md->vertex_order = SHALE_TESS_ORDER_CCW; break;
      case SpvExecutionModePointMode: md->point_mode = 1; break;
      case SpvExecutionModeOutputVertices:
         if (arg < 1 || arg > SHALE_TESS_MAX_PATCH_VERTICES)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "OutputVertices %u", arg);
         if (tcs)
            x->io.tcs.output_vertices = (uint8_t)arg;
         break;
      case SpvExecutionModeXfb:
         /* Captures the evaluation shader's outputs (the last vertex stage
          * without a geometry shader); zink puts it on every stage. */
         break;
      default:
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "tessellation execution mode %u", inst->w[2]);
      }
   }
   if (tcs && !x->io.tcs.output_vertices) {
      uint32_t ov = x->info->tess_output_vertices;
      if (ov < 1 || ov > SHALE_TESS_MAX_PATCH_VERTICES)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                        "OutputVertices %u: declared by neither tessellation stage, or beyond "
                        "maxTessellationPatchSize", ov);
      x->io.tcs.output_vertices = (uint8_t)ov;
   }
   return true;
}

/* The module's words as they are (no parse: bounds-checked reads only).
 * OpEntryPoint: model, id, name (a nul-terminated string in words);
 * OpExecutionMode: target id, mode, literals. */
uint32_t
sc_tess_output_vertices(const uint32_t *words, size_t word_count, const char *entry_point)
{
   if (!words || !entry_point || word_count < 5 || words[0] != SpvMagicNumber)
      return 0;
   const size_t name_len = strlen(entry_point);
   uint32_t id = 0;
   for (int pass = 0; pass < 2; pass++) {
      for (size_t i = 5; i < word_count;) {
         const uint32_t n = words[i] >> 16, op = words[i] & 0xffff;
         if (n == 0 || n > word_count - i)
            return 0;
         if (pass == 0 && op == SpvOpEntryPoint && n >= 4 &&
             words[i + 1] == SpvExecutionModelTessellationEvaluation) {
            const char *name = (const char *)&words[i + 3];
            const size_t room = (size_t)(n - 3) * 4;
            if (name_len < room && !memcmp(name, entry_point, name_len + 1)) {
               id = words[i + 2];
               break;
            }
         }
         if (pass == 1 && op == SpvOpExecutionMode && n >= 4 && words[i + 1] == id &&
             words[i + 2] == SpvExecutionModeOutputVertices)
            return words[i + 3];
         if (op == SpvOpFunction)
            break;   /* execution modes come before every function */
         i += n;
      }
      if (!id)
         return 0;
   }
   return 0;
}

static bool
uniform_field(struct sc_xlate *x, LLVMValueRef base, size_t offset, struct sc_val *out)
{
   *out = sc_new_val(x, 1, true);
   if (!out->c)
      return false;
   out->c[0] = sc_load_field(x, x->eb, base, offset, x->t_i32, 4);
   return true;
}

bool
sc_tess_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out)
{
   bool tcs = is_tcs(x);
   switch (builtin) {
   case SpvBuiltInInvocationId:
      if (!tcs)
         break;
      return sc_builtin_value(x, SpvBuiltInLocalInvocationIndex, out);
   case SpvBuiltInPrimitiveId:
      return uniform_field(x, x->arg_wg, tcs ? offsetof(struct shale_tcs_patch, primitive_id)
                                              : offsetof(struct shale_tes_batch, primitive_id),
                           out);
   case SpvBuiltInPatchVertices:
      return uniform_field(x, x->arg_wg, tcs ? offsetof(struct shale_tcs_patch, patch_vertices)
                                              : offsetof(struct shale_tes_batch, patch_vertices),
                           out);
   case SpvBuiltInViewIndex:
      return uniform_field(x, x->arg_ctx, offsetof(struct shale_tess_context, view_index), out);
   case SpvBuiltInTessCoord: {
      if (tcs)
         break;
      bool scalar = x->W == 1;
      *out = sc_new_val(x, 3, scalar);
      if (!out->c)
         return false;
      LLVMTypeRef t = scalar ? x->t_f32 : sc_vec_type(x, x->t_f32);
      for (uint32_t k = 0; k < 3; k++)
         out->c[k] = sc_load_field(x, x->eb, x->arg_wg,
                                   offsetof(struct shale_tes_batch, tess_coord[0]) +
                                      (size_t)k * SHALE_MAX_SIMD_WIDTH * 4,
                                   t, 4);
      return true;
   }
   case SpvBuiltInTessLevelOuter:
   case SpvBuiltInTessLevelInner: {
      /* Evaluation inputs: patch slot 0 (outer) or 1 (inner). */
      if (tcs)
         break;
      bool outer = builtin == SpvBuiltInTessLevelOuter;
      uint32_t slot = outer ? SHALE_PATCH_SLOT_TESS_OUTER : SHALE_PATCH_SLOT_TESS_INNER;
      uint32_t n = outer ? 4 : 2;
      *out = sc_new_val(x, n, true);
      if (!out->c)
         return false;
      LLVMValueRef patch = sc_load_field(x, x->eb, x->arg_wg,
                                         offsetof(struct shale_tes_batch, patch_inputs),
                                         x->t_ptr, 8);
      for (uint32_t k = 0; k < n; k++)
         out->c[k] = sc_load_field(x, x->eb, patch, ((size_t)slot * 4 + k) * 4, x->t_f32, 4);
      x->io.tes.patch_read |= 1ull << slot;
      return true;
   }
   default:
      break;
   }
   return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported tessellation %s built-in %u",
                  tcs ? "control" : "evaluation", builtin);
}
