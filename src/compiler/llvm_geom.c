/* Geometry stage for the SPMD translator: execution modes, the output word
 * table, the built-ins InvocationId and PrimitiveId (input), OpEmitVertex
 * and OpEndPrimitive (include/shale/shader_abi.h, "Geometry"). A call's
 * lanes are input primitives; inputs and outputs are per-lane variables as
 * in the vertex stage (llvm_stage.c fills the input arrays and walks the
 * outputs); OpEmitVertex stores the current outputs of the active lanes
 * at each lane's own vertex count (a masked scatter per output word). */
#include "llvm_private.h"

#include <stddef.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

_Static_assert(offsetof(struct shale_gs_context, sets) == offsetof(struct shale_cs_context, sets),
               "geometry sets");
_Static_assert(offsetof(struct shale_gs_context, push_constants) ==
               offsetof(struct shale_cs_context, push_constants), "geometry push constants");
_Static_assert(offsetof(struct shale_gs_context, cancel) == offsetof(struct shale_vs_context, cancel),
               "geometry cancel word");
_Static_assert(offsetof(struct shale_gs_batch, count) == offsetof(struct shale_vs_batch, count),
               "geometry lane count");
_Static_assert(offsetof(struct shale_gs_info, out) == 0, "geometry outputs are io.vs");

#define GS(field) offsetof(struct shale_gs_batch, field)

/* The limits the driver reports (maxGeometry*): OutputVertices and
 * Invocations are checked here. */
#define GEOM_MAX_OUTPUT_VERTICES 256
#define GEOM_MAX_INVOCATIONS 32

static bool
geom_modes(struct sc_xlate *x)
{
   struct shale_gs_info *gs = &x->io.gs;
   gs->invocations = 1;
   const struct sc_inst *inst;
   for (uint32_t i = 0; (inst = sc_next_exec_mode(x, &i));) {
      uint32_t arg = inst->nwords > 3 ? inst->w[3] : 0;
      switch (inst->w[2]) {
      case SpvExecutionModeInputPoints: gs->vertices_in = 1; break;
      case SpvExecutionModeInputLines: gs->vertices_in = 2; break;
      case SpvExecutionModeInputLinesAdjacency: gs->vertices_in = 4; break;
      case SpvExecutionModeTriangles: gs->vertices_in = 3; break;
      case SpvExecutionModeInputTrianglesAdjacency: gs->vertices_in = 6; break;
      case SpvExecutionModeOutputPoints:
         gs->output_topology = VK_PRIMITIVE_TOPOLOGY_POINT_LIST;
         break;
      case SpvExecutionModeOutputLineStrip:
         gs->output_topology = VK_PRIMITIVE_TOPOLOGY_LINE_STRIP;
         break;
      case SpvExecutionModeOutputTriangleStrip:
         gs->output_topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP;
         break;
      case SpvExecutionModeInvocations:
         if (arg < 1 || arg > GEOM_MAX_INVOCATIONS)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "Invocations %u", arg);
         gs->invocations = (uint8_t)arg;
         break;
      case SpvExecutionModeOutputVertices:
         if (arg < 1 || arg > GEOM_MAX_OUTPUT_VERTICES)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "OutputVertices %u", arg);
         gs->output_vertices = (uint16_t)arg;
         break;
      case SpvExecutionModeXfb:
         break;
      default:
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "geometry execution mode %u", inst->w[2]);
      }
   }
   if (!gs->vertices_in || !gs->output_vertices ||
       (gs->output_topology != VK_PRIMITIVE_TOPOLOGY_POINT_LIST &&
        gs->output_topology != VK_PRIMITIVE_TOPOLOGY_LINE_STRIP &&
        gs->output_topology != VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                     "geometry shader without an input primitive, output primitive or OutputVertices");
   return true;
}

/* Layout pass: every written output word gets its index in out_word. */
static bool
layout_word(struct sc_xlate *x, uint32_t d, LLVMValueRef bits, uint32_t xfb_buffer,
            uint32_t xfb_offset, void *data)
{
   (void)bits;
   (void)data;
   struct shale_gs_info *gs = &x->io.gs;
   if (d >= SHALE_SLOT_COUNT * 4)
      return sc_fail(x, SC_ERROR_INTERNAL, "geometry output word %u", d);
   if (!x->gs_word[d]) {
      gs->out_word[gs->out_words] = (uint16_t)d;
      x->gs_word[d] = (uint16_t)++gs->out_words;
   }
   if (d >= SHALE_SLOT_USER * 4)
      gs->out.outputs_written |= 1ull << (d / 4);
   if (xfb_offset != 0xffff) {
      if (gs->out.xfb_count == SHALE_MAX_XFB_COMPONENTS)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than %u transform feedback components",
                        SHALE_MAX_XFB_COMPONENTS);
      gs->out.xfb[gs->out.xfb_count++] = (struct shale_xfb_component) {
         .word = (uint8_t)d, .buffer = (uint8_t)xfb_buffer, .offset = (uint16_t)xfb_offset };
   }
   return true;
}

bool
sc_geom_prologue(struct sc_xlate *x)
{
   if (!geom_modes(x))
      return false;
   x->gs_word = sc_alloc(x, SHALE_SLOT_COUNT * 4 * sizeof(*x->gs_word));
   if (!x->gs_word)
      return false;
   if (!sc_stage_for_outputs(x, false, layout_word, NULL))
      return false;
   struct shale_gs_info *gs = &x->io.gs;
   if (gs->out.clip_distance_count + gs->out.cull_distance_count > 8)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than 8 clip and cull distances");
   for (uint32_t i = 0; i < gs->out.xfb_count; i++) {
      const struct shale_xfb_component *c = &gs->out.xfb[i];
      uint32_t stride = gs->out.xfb_stride[c->buffer];
      if (stride && (uint32_t)c->offset + 4 > stride)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                        "transform feedback Offset %u past XfbBuffer %u's XfbStride %u",
                        c->offset, c->buffer, stride);
   }
   /* Every lane's first vertex starts a strip. */
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   x->gs_cut_slot = sc_persistent_alloca(x, mt, 1);
   LLVMBuildStore(x->ib, LLVMConstAllOnes(mt), x->gs_cut_slot);
   return true;
}

bool
sc_geom_epilogue(struct sc_xlate *x)
{
   /* Outputs go out at each OpEmitVertex; nothing is left to store. */
   return x->err == SC_SUCCESS;
}

bool
sc_geom_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out)
{
   switch (builtin) {
   case SpvBuiltInInvocationId:
      *out = sc_new_val(x, 1, true);
      if (!out->c)
         return false;
      out->c[0] = sc_load_field(x, x->eb, x->arg_wg, GS(invocation_id), x->t_i32, 4);
      return true;
   case SpvBuiltInPrimitiveId: {
      *out = sc_new_val(x, 1, x->W == 1);
      if (!out->c)
         return false;
      LLVMTypeRef t = x->W == 1 ? x->t_i32 : sc_vec_type(x, x->t_i32);
      out->c[0] = sc_load_field(x, x->eb, x->arg_wg, GS(primitive_id), t, 4);
      return true;
   }
   case SpvBuiltInViewIndex:
      *out = sc_new_val(x, 1, true);
      if (!out->c)
         return false;
      out->c[0] = sc_load_field(x, x->eb, x->arg_ctx,
                                offsetof(struct shale_gs_context, view_index), x->t_i32, 4);
      return true;
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported geometry built-in %u", builtin);
   }
}

struct emit {
   LLVMValueRef outputs;   /* batch->outputs */
   LLVMValueRef base;      /* <W x i32> emitted[i] * out_words */
   LLVMValueRef ok;        /* <W x i1> lanes that store */
};

static void
scatter(struct sc_xlate *x, LLVMValueRef val, LLVMValueRef addr, LLVMValueRef mask)
{
   LLVMTypeRef ov[2] = { LLVMTypeOf(val), sc_vec_type(x, x->t_ptr) };
   LLVMValueRef args[4] = { val, addr, sc_const_i32(x, 4), mask };
   sc_intrinsic(x, "llvm.masked.scatter", ov, 2, args, 4);
}

/* Word d of every storing lane i: outputs[(k * out_words + j) * W + i]. */
static bool
emit_word(struct sc_xlate *x, uint32_t d, LLVMValueRef bits, uint32_t xfb_buffer,
          uint32_t xfb_offset, void *data)
{
   (void)xfb_buffer;
   (void)xfb_offset;
   const struct emit *e = data;
   LLVMBuilderRef b = x->b;
   if (d >= SHALE_SLOT_COUNT * 4 || !x->gs_word[d])
      return sc_fail(x, SC_ERROR_INTERNAL, "geometry output word %u has no place", d);
   LLVMValueRef j = sc_splat(x, sc_const_i32(x, x->gs_word[d] - 1u));
   LLVMValueRef idx = LLVMBuildAdd(b, e->base, j, "");
   idx = LLVMBuildMul(b, idx, sc_splat(x, sc_const_i32(x, x->W)), "");
   idx = LLVMBuildAdd(b, idx, x->lane_ids, "");
   LLVMValueRef addr = LLVMBuildGEP2(b, x->t_i32, e->outputs, &idx, 1, "");
   scatter(x, bits, addr, e->ok);
   return true;
}

bool
sc_geom_emit(struct sc_xlate *x, const struct sc_inst *inst)
{
   if (x->model != SpvExecutionModelGeometry || !x->gs_cut_slot)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s outside a geometry shader",
                     sc_opcode_name(inst->opcode));
   if (inst->nwords > 1)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "geometry streams");
   LLVMBuilderRef b = x->b;
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1), it = sc_vec_type(x, x->t_i32);
   LLVMValueRef cut = LLVMBuildLoad2(b, mt, x->gs_cut_slot, "");
   if (inst->opcode == SpvOpEndPrimitive) {
      LLVMBuildStore(b, LLVMBuildOr(b, cut, x->mask, ""), x->gs_cut_slot);
      return true;
   }
   const struct shale_gs_info *gs = &x->io.gs;
   LLVMValueRef em_ptr = sc_field_ptr(x, b, x->arg_wg, GS(emitted));
   LLVMValueRef em = LLVMBuildLoad2(b, it, em_ptr, "emitted");
   LLVMSetAlignment(em, 4);
   LLVMValueRef room = LLVMBuildICmp(b, LLVMIntULT, em, sc_splat(x, sc_const_i32(x, gs->output_vertices)),
                                     "");
   struct emit e;
   e.ok = LLVMBuildAnd(b, x->mask, room, "");
   e.outputs = sc_load_field(x, b, x->arg_wg, GS(outputs), x->t_ptr, 8);
   e.base = LLVMBuildMul(b, em, sc_splat(x, sc_const_i32(x, gs->out_words)), "");
   if (!sc_stage_for_outputs(x, true, emit_word, &e))
      return false;
   /* cut[k * W + i]: whether vertex k starts a strip. */
   LLVMValueRef cutp = sc_load_field(x, b, x->arg_wg, GS(cut), x->t_ptr, 8);
   LLVMValueRef idx = LLVMBuildMul(b, em, sc_splat(x, sc_const_i32(x, x->W)), "");
   idx = LLVMBuildAdd(b, idx, x->lane_ids, "");
   scatter(x, LLVMBuildZExt(b, cut, it, ""), LLVMBuildGEP2(b, x->t_i32, cutp, &idx, 1, ""), e.ok);
   LLVMBuildStore(b, LLVMBuildAnd(b, cut, LLVMBuildNot(b, x->mask, ""), ""), x->gs_cut_slot);
   LLVMValueRef st = LLVMBuildStore(b, LLVMBuildAdd(b, em, LLVMBuildZExt(b, e.ok, it, ""), ""), em_ptr);
   LLVMSetAlignment(st, 4);
   return true;
}
