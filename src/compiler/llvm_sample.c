/* Sampled-image instructions for the SPMD translator: sampling (explicit
 * LOD, and implicit LOD in fragment shaders with coarse gradients from the
 * quad: one LOD per quad), fetches (multisampled ones with their Sample
 * operand), gathers and LOD queries become one call of the image record's
 * sample_fn (include/shale/shader_abi.h, "Sampling") on a lane-array
 * argument block.
 *
 * Lanes a call does not ask for (the block's lane bits: the control-flow
 * mask, x->mask) keep what the block's result[][] held before the call --
 * a previous instruction's results, not zeros (only a record without a
 * routine reads zeros, stored on that path alone). That is safe because
 * those lanes' values reach no output: helper lanes count as active (they
 * are in x->mask, so their results, which derivatives of later
 * instructions read, are computed), and the lanes left out are only those
 * control flow switched off (their phi/select takes the other path's
 * value) or that terminated (OpKill, OpTerminateInvocation: no later
 * instruction of theirs runs). Passing a narrower mask than the
 * control-flow mask (e.g. leaving helper lanes out) would break this. */
#include "llvm_private.h"

#include <stddef.h>
#include <string.h>

#include <spirv/unified1/spirv.h>


#define ARG(field) offsetof(struct shale_sample_args, field)
#define IMG(field) offsetof(struct shale_image_descriptor, field)
#define LANE_BYTES (SHALE_MAX_SIMD_WIDTH * 4)

/* The parsed image operands of one instruction (ids, 0 when absent). */
struct operands {
   uint32_t bias, lod, dx, dy, const_offset, offset, const_offsets, sample;
   int extend;   /* 1 SignExtend, 2 ZeroExtend, 0 neither */
};

/* The records an instruction reads: the image's, and the sampler's (the
 * same record for a combined image sampler; NULL for fetches). */
struct records {
   LLVMValueRef image, sampler;
   bool vec;   /* either is per lane: both are <W x ptr> then */
};

static LLVMValueRef
gep8(struct sc_xlate *x, LLVMValueRef base, uint64_t off)
{
   LLVMValueRef o = LLVMConstInt(x->t_i64, off, false);
   return LLVMBuildGEP2(x->b, x->t_i8, base, &o, 1, "");
}

/* The function's one argument block (an entry-block alloca shared by
 * every sampling instruction: its contents live only across one call). */
static LLVMValueRef
args_block(struct sc_xlate *x)
{
   static const char name[] = "sc_sample_args";
   LLVMBasicBlockRef bb = LLVMGetInsertBlock(x->eb);
   for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      size_t len;
      const char *n = LLVMGetValueName2(i, &len);
      if (LLVMIsAAllocaInst(i) && len == sizeof(name) - 1 && !memcmp(n, name, len))
         return i;
   }
   LLVMTypeRef t = LLVMArrayType(x->t_i8, sizeof(struct shale_sample_args));
   LLVMValueRef a = LLVMBuildAlloca(x->eb, t, name);
   LLVMSetAlignment(a, 64);
   return a;
}

static void
store_at(struct sc_xlate *x, LLVMValueRef args, uint64_t off, LLVMValueRef v)
{
   LLVMValueRef s = LLVMBuildStore(x->b, v, gep8(x, args, off));
   LLVMSetAlignment(s, 4);
}

/* Component i of v as a W-lane vector of 32-bit floats or integers. */
static bool
lanes32(struct sc_xlate *x, const struct sc_val *v, uint32_t i, bool integer, LLVMValueRef *out)
{
   LLVMValueRef c = sc_comp(x, v, i, true);
   LLVMTypeRef st = LLVMGetElementType(LLVMTypeOf(c));
   if (integer) {
      if (LLVMGetTypeKind(st) != LLVMIntegerTypeKind)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "integer operand expected");
      unsigned w = LLVMGetIntTypeWidth(st);
      LLVMTypeRef t32 = sc_vec_type(x, x->t_i32);
      *out = w == 32 ? c : w > 32 ? LLVMBuildTrunc(x->b, c, t32, "") : LLVMBuildSExt(x->b, c, t32, "");
      return true;
   }
   if (st != x->t_f32)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "sampling with non-32-bit float operands");
   *out = c;
   return true;
}

/* Stores the first n components of value id into the lane arrays at off
 * (one array every LANE_BYTES). */
static bool
store_value(struct sc_xlate *x, LLVMValueRef args, uint64_t off, uint32_t id, uint32_t n,
            bool integer)
{
   const struct sc_val *v = sc_operand(x, id, 1, SC_ANY);
   if (!v)
      return false;
   for (uint32_t i = 0; i < n && i < v->n; i++) {
      LLVMValueRef c;
      if (!lanes32(x, v, i, integer, &c))
         return false;
      store_at(x, args, off + i * LANE_BYTES, c);
   }
   return true;
}

static bool
any_varying(struct sc_xlate *x, uint32_t id, bool *varying)
{
   const struct sc_val *v = sc_get(x, id);
   if (!v)
      return false;
   *varying |= !v->uniform;
   return true;
}

/* Image operands from word `at`: Bias, Lod, Grad, ConstOffset, Offset,
 * ConstOffsets, Sample, SignExtend / ZeroExtend (in o->extend; glslang's
 * SPIR-V 1.4 output has one on every integer fetch, sample and gather),
 * and the memory-model ones (no-ops); others are refused. */
static bool
parse_operands(struct sc_xlate *x, const struct sc_inst *inst, uint32_t at, struct operands *o)
{
   memset(o, 0, sizeof(*o));
   if (at >= inst->nwords)
      return true;
   uint32_t mask = inst->w[at++];
   const uint32_t ok = SpvImageOperandsBiasMask | SpvImageOperandsLodMask | SpvImageOperandsGradMask |
                       SpvImageOperandsConstOffsetMask | SpvImageOperandsOffsetMask |
                       SpvImageOperandsConstOffsetsMask | SpvImageOperandsSampleMask |
                       SpvImageOperandsMakeTexelAvailableMask |
                       SpvImageOperandsMakeTexelVisibleMask | SpvImageOperandsNonPrivateTexelMask |
                       SpvImageOperandsVolatileTexelMask | SpvImageOperandsNontemporalMask |
                       SpvImageOperandsSignExtendMask | SpvImageOperandsZeroExtendMask;
   if (mask & ~ok)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "image operands %#x on %s", mask & ~ok,
                     sc_opcode_name(inst->opcode));
   /* Operands follow in the order of their bits: Bias (bit 0), Lod (1),
    * Grad (2, two ids), ConstOffset (3), Offset (4), ConstOffsets (5),
    * Sample (6), then the scopes of MakeTexelAvailable (8) and
    * MakeTexelVisible (9); NonPrivateTexel (10) and the bits above it
    * (SignExtend 12, ZeroExtend 13, Nontemporal 14) take none. */
   if ((mask & SpvImageOperandsSignExtendMask) && (mask & SpvImageOperandsZeroExtendMask))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "both SignExtend and ZeroExtend on %s",
                     sc_opcode_name(inst->opcode));
   o->extend = mask & SpvImageOperandsSignExtendMask ? 1
               : mask & SpvImageOperandsZeroExtendMask ? 2 : 0;
   for (uint32_t bit = 0; bit < 10; bit++) {
      if (!(mask & (1u << bit)) || bit == 7)
         continue;
      unsigned words = bit == 2 ? 2 : 1;
      if (at + words > inst->nwords)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "image operands run past the instruction");
      switch (bit) {
      case 0: o->bias = inst->w[at]; break;
      case 1: o->lod = inst->w[at]; break;
      case 2: o->dx = inst->w[at]; o->dy = inst->w[at + 1]; break;
      case 3: o->const_offset = inst->w[at]; break;
      case 4: o->offset = inst->w[at]; break;
      case 5: o->const_offsets = inst->w[at]; break;
      case 6: o->sample = inst->w[at]; break;
      default: break;
      }
      at += words;
   }
   return true;
}

/* The records behind a sampled image (or image) value: an OpSampledImage
 * is looked through to its image and sampler, so separate samplers need
 * no second component in the value. */
static bool
records_of(struct sc_xlate *x, uint32_t id, bool fetch, struct records *r)
{
   memset(r, 0, sizeof(*r));
   const struct sc_inst *d = sc_module_def(x->m, id);
   while (d && d->opcode == SpvOpCopyObject)
      d = sc_module_def(x->m, d->w[3]);
   const struct sc_val *img, *smp;
   if (d && d->opcode == SpvOpSampledImage) {
      img = sc_operand(x, d->w[3], 1, 1);
      smp = fetch || !img ? img : sc_operand(x, d->w[4], 1, 1);
   } else {
      img = smp = sc_operand(x, id, 1, 1);
   }
   if (!img || !smp)
      return false;
   r->vec = !img->uniform || (!fetch && !smp->uniform);
   r->image = sc_comp(x, img, 0, r->vec);
   r->sampler = fetch ? NULL : sc_comp(x, smp, 0, r->vec);
   return true;
}

static LLVMValueRef
load_ptr(struct sc_xlate *x, LLVMValueRef rec, uint64_t off)
{
   LLVMValueRef v = LLVMBuildLoad2(x->b, x->t_ptr, gep8(x, rec, off), "");
   LLVMSetAlignment(v, 8);
   return v;
}

/* Zeros into result[][]: what a record without a routine reads. */
static void
zero_results(struct sc_xlate *x, LLVMValueRef args)
{
   LLVMTypeRef iv = sc_vec_type(x, x->t_i32);
   for (uint32_t k = 0; k < 4; k++)
      store_at(x, args, ARG(result) + k * LANE_BYTES, LLVMConstNull(iv));
}

/* fn(view, sampler, args) for one pair of scalar records; when the image
 * record has no routine (not a sampled image, or never written), no call,
 * and with `zero` the results zeroed (the one call of uniform records:
 * the zeros are stored only there, so the results the code reads right
 * after a call come from the routine's stores alone, which the loads can
 * take straight from the store buffer). */
static void
call_one(struct sc_xlate *x, LLVMValueRef image, LLVMValueRef sampler, LLVMValueRef args,
         bool zero)
{
   LLVMBuilderRef b = x->b;
   LLVMValueRef fn = load_ptr(x, image, IMG(sample_fn));
   LLVMValueRef view = load_ptr(x, image, IMG(view));
   LLVMValueRef smp = sampler ? load_ptr(x, sampler, IMG(sampler)) : LLVMConstNull(x->t_ptr);
   LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "sample_call");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "sample_done");
   if (zero) {
      LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "sample_none");
      LLVMBuildCondBr(b, LLVMBuildIsNull(b, fn, ""), none, yes);
      LLVMPositionBuilderAtEnd(b, none);
      zero_results(x, args);
      LLVMBuildBr(b, done);
   } else {
      LLVMBuildCondBr(b, LLVMBuildIsNull(b, fn, ""), done, yes);
   }
   LLVMPositionBuilderAtEnd(b, yes);
   LLVMTypeRef params[3] = { x->t_ptr, x->t_ptr, x->t_ptr };
   LLVMTypeRef fty = LLVMFunctionType(x->t_void, params, 3, false);
   LLVMValueRef cargs[3] = { view, smp, args };
   LLVMBuildCall2(b, fty, fn, cargs, 3, "");
   LLVMBuildBr(b, done);
   LLVMPositionBuilderAtEnd(b, done);
}

static LLVMValueRef
mask_bits(struct sc_xlate *x, LLVMValueRef mask)
{
   LLVMValueRef bits = LLVMBuildBitCast(x->b, mask, LLVMIntTypeInContext(x->ctx, x->W), "");
   return LLVMBuildZExtOrBitCast(x->b, bits, x->t_i32, "");
}

/* The calls: one for uniform records, else one per distinct (image,
 * sampler) pair among the active lanes. */
static void
emit_calls(struct sc_xlate *x, const struct records *r, LLVMValueRef args)
{
   LLVMBuilderRef b = x->b;
   if (!r->vec) {
      call_one(x, r->image, r->sampler, args, true);
      return;
   }
   /* Per-lane records: lanes whose record has no routine read the zeros
    * stored before the calls. */
   zero_results(x, args);
   struct sc_lane_loop l;
   sc_lane_loop_begin(x, &l, x->mask);
   LLVMValueRef img, smp = NULL;
   LLVMValueRef same = sc_lane_loop_same(x, &l, r->image, &img);
   if (r->sampler)
      same = LLVMBuildAnd(b, same, sc_lane_loop_same(x, &l, r->sampler, &smp), "");
   store_at(x, args, ARG(lanes), mask_bits(x, same));
   call_one(x, img, smp, args, false);
   sc_lane_loop_end(x, &l, same);
}

/* Coordinates the image's Dim has (before the array layer). */
static uint32_t
dim_coords(uint32_t dim)
{
   switch (dim) {
   case SpvDim1D:
   case SpvDimBuffer:
      return 1;
   case SpvDim3D:
   case SpvDimCube:
      return 3;
   default:
      return 2;
   }
}

bool
sc_emit_sample(struct sc_xlate *x, const struct sc_inst *inst)
{
   LLVMBuilderRef b = x->b;
   const uint32_t opc = inst->opcode;
   const bool fetch = opc == SpvOpImageFetch;
   const bool query_lod = opc == SpvOpImageQueryLod;
   const bool gather = opc == SpvOpImageGather || opc == SpvOpImageDrefGather;
   const bool implicit = query_lod || opc == SpvOpImageSampleImplicitLod ||
                         opc == SpvOpImageSampleDrefImplicitLod ||
                         opc == SpvOpImageSampleProjImplicitLod ||
                         opc == SpvOpImageSampleProjDrefImplicitLod;
   const bool dref = opc == SpvOpImageSampleDrefExplicitLod ||
                     opc == SpvOpImageSampleProjDrefExplicitLod || opc == SpvOpImageDrefGather ||
                     opc == SpvOpImageSampleDrefImplicitLod ||
                     opc == SpvOpImageSampleProjDrefImplicitLod;
   const bool proj = opc == SpvOpImageSampleProjExplicitLod ||
                     opc == SpvOpImageSampleProjDrefExplicitLod ||
                     opc == SpvOpImageSampleProjImplicitLod ||
                     opc == SpvOpImageSampleProjDrefImplicitLod;
   if (implicit && x->model != SpvExecutionModelFragment)
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "%s: implicit LOD needs derivatives, which only fragment shaders have",
                     sc_opcode_name(opc));
   const struct sc_inst *sd = sc_module_def(x->m, inst->w[3]);
   struct sc_image_type it;
   if (!sd || !sc_module_image_type(x->m, sd->type_id, &it))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s on a non-image", sc_opcode_name(opc));
   /* Multisampled images: fetches only (the Sample operand picks the sample). */
   if ((it.ms && !fetch) || it.dim == SpvDimSubpassData || it.dim == SpvDimRect ||
       it.dim == SpvDimBuffer)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "%s on image dimension %u%s", sc_opcode_name(opc),
                     it.dim, it.ms ? " (multisampled)" : "");
   struct operands o;
   uint32_t at = dref || gather ? 6 : 5;
   if (!parse_operands(x, inst, at, &o))
      return false;
   if (query_lod && at < inst->nwords)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "image operands on OpImageQueryLod");
   if (o.extend) {
      /* The routine converts integer texels by the view's format: SINT
       * sign-extended, UINT zero-extended. Vulkan requires that format to
       * agree in signedness with the Sampled Type, so an extension that
       * agrees with the Sampled Type (what glslang emits: SignExtend for
       * isampler, ZeroExtend for usampler) is what the routine does. The
       * other way round would need the texel's width: refused. */
      const struct sc_type *st = sc_module_type(x->m, it.sampled_type);
      if (!st || st->kind != SC_T_INT)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                        "SignExtend / ZeroExtend on %s of a non-integer image",
                        sc_opcode_name(opc));
      if ((o.extend == 1) != (st->is_signed != 0))
         return sc_fail(x, SC_ERROR_UNSUPPORTED,
                        "%s on %s of an image whose Sampled Type is %ssigned",
                        o.extend == 1 ? "SignExtend" : "ZeroExtend", sc_opcode_name(opc),
                        st->is_signed ? "" : "un");
   }
   if (!fetch && !gather && !implicit && !o.lod && !o.dx)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s without Lod or Grad", sc_opcode_name(opc));
   if ((implicit && (o.lod || o.dx)) || (!implicit && o.bias))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s with a Lod, Grad or Bias it cannot take",
                     sc_opcode_name(opc));
   if ((fetch || gather) && o.dx)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "Grad on %s", sc_opcode_name(opc));
   if (!it.ms != !o.sample || (o.sample && o.lod))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s: a Sample operand %s", sc_opcode_name(opc),
                     it.ms ? "is required on a multisampled image" : "without a multisampled image");

   struct records r;
   if (!records_of(x, inst->w[3], fetch, &r))
      return false;
   /* Per lane when anything is; otherwise lane 0 answers for all. */
   bool vec = r.vec;
   const uint32_t ids[] = { inst->w[4], dref || gather ? inst->w[5] : 0, o.lod, o.dx, o.dy,
                            o.offset, o.bias, o.sample };
   for (unsigned i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
      if (ids[i] && !any_varying(x, ids[i], &vec))
         return false;

   LLVMValueRef args = args_block(x);
   uint32_t op = query_lod ? SHALE_SAMPLE_QUERY_LOD : fetch ? SHALE_SAMPLE_FETCH
                 : gather ? SHALE_SAMPLE_GATHER
                 : o.dx || implicit ? SHALE_SAMPLE_GRAD : SHALE_SAMPLE_LOD;
   const uint32_t ncoord = dim_coords(it.dim);

   /* Coordinates (Proj: divided by q, as is D_ref). */
   const struct sc_val *c = sc_operand(x, inst->w[4], 1, SC_ANY);
   if (!c)
      return false;
   LLVMValueRef q = NULL;
   if (proj) {
      if (it.arrayed || it.dim == SpvDimCube || c->n <= ncoord)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "projective sampling of this image");
      if (!lanes32(x, c, ncoord, false, &q))
         return false;
   }
   for (uint32_t i = 0; i < c->n && i < 4; i++) {
      if (proj && i >= ncoord)
         break;
      LLVMValueRef v;
      if (!lanes32(x, c, i, fetch, &v))
         return false;
      if (q)
         v = LLVMBuildFDiv(b, v, q, "");
      store_at(x, args, ARG(coord) + i * LANE_BYTES, v);
      if (implicit && i < ncoord) {
         /* Implicit LOD: the (projected) coordinate's gradients from the
          * quad, coarse (one LOD per quad: sc_stage_derivative). */
         store_at(x, args, ARG(grad) + i * LANE_BYTES, sc_stage_derivative(x, v, false));
         store_at(x, args, ARG(grad) + (3 + i) * LANE_BYTES, sc_stage_derivative(x, v, true));
      }
   }
   if (o.bias) {
      if (!store_value(x, args, ARG(lod), o.bias, 1, false))
         return false;
      op |= SHALE_SAMPLE_BIAS;
   }
   if (dref) {
      const struct sc_val *d = sc_operand(x, inst->w[5], 1, 1);
      LLVMValueRef v;
      if (!d || !lanes32(x, d, 0, false, &v))
         return false;
      if (q)
         v = LLVMBuildFDiv(b, v, q, "");
      store_at(x, args, ARG(dref), v);
      op |= SHALE_SAMPLE_DREF;
   }
   if (o.lod && !store_value(x, args, ARG(lod), o.lod, 1, fetch))
      return false;
   if (o.sample) {
      if (!store_value(x, args, ARG(lod), o.sample, 1, true))
         return false;
      op |= SHALE_SAMPLE_SAMPLE;
   } else if (fetch && !o.lod)
      store_at(x, args, ARG(lod), sc_splat(x, sc_const_i32(x, 0)));
   if (o.dx && (!store_value(x, args, ARG(grad), o.dx, 3, false) ||
                !store_value(x, args, ARG(grad) + 3 * LANE_BYTES, o.dy, 3, false)))
      return false;
   if (o.const_offset || o.offset) {
      if (it.dim == SpvDimCube)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "offsets on a cube image");
      if (!store_value(x, args, ARG(offset), o.const_offset ? o.const_offset : o.offset, 3, true))
         return false;
      /* Components the operand lacks read as 0. */
      const struct sc_val *ov = sc_get(x, o.const_offset ? o.const_offset : o.offset);
      for (uint32_t i = ov ? ov->n : 0; i < 3; i++)
         store_at(x, args, ARG(offset) + i * LANE_BYTES, sc_splat(x, sc_const_i32(x, 0)));
      op |= SHALE_SAMPLE_OFFSET;
   }
   if (gather && !dref) {
      const struct sc_val *comp = sc_operand(x, inst->w[5], 1, 1);
      if (!comp)
         return false;
      LLVMValueRef cv = comp->uniform ? comp->c[0]
                                      : LLVMBuildExtractElement(b, comp->c[0], sc_const_i32(x, 0), "");
      store_at(x, args, ARG(component), LLVMBuildIntCast2(b, cv, x->t_i32, false, ""));
   }
   if (o.const_offsets) {
      if (!gather)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "ConstOffsets on %s", sc_opcode_name(opc));
      const struct sc_val *offs = sc_operand(x, o.const_offsets, 8, 8);
      if (!offs)
         return false;
      if (!offs->uniform)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "ConstOffsets must be 4 constant 2-vectors");
      for (uint32_t i = 0; i < 8; i++)
         store_at(x, args, ARG(gather_offsets) + i * 4,
                  LLVMBuildIntCast2(b, offs->c[i], x->t_i32, true, ""));
      op |= SHALE_SAMPLE_GATHER_OFFSETS;
   }
   store_at(x, args, ARG(op), sc_const_i32(x, op));
   store_at(x, args, ARG(lanes), vec ? mask_bits(x, x->mask) : sc_const_i32(x, 1));
   /* A record without a routine reads zeros (emit_calls). */
   LLVMTypeRef iv = sc_vec_type(x, x->t_i32);
   emit_calls(x, &r, args);

   uint32_t n = sc_ncomp(x, inst->type_id);
   if (n < 1 || n > 4)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s returning %u components", sc_opcode_name(opc), n);
   struct sc_val res = sc_new_val(x, n, !vec);
   if (!res.c)
      return false;
   for (uint32_t k = 0; k < n; k++) {
      LLVMTypeRef st = sc_llvm_scalar(x, sc_scalar_at(x, inst->type_id, k));
      if (st != x->t_i32 && st != x->t_f32)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "%s into a non-32-bit type", sc_opcode_name(opc));
      LLVMValueRef v = LLVMBuildLoad2(b, iv, gep8(x, args, ARG(result) + k * LANE_BYTES), "");
      LLVMSetAlignment(v, 4);
      if (!vec)
         v = LLVMBuildExtractElement(b, v, sc_const_i32(x, 0), "");
      if (st == x->t_f32)
         v = LLVMBuildBitCast(b, v, vec ? sc_vec_type(x, st) : st, "");
      res.c[k] = v;
   }
   return sc_set(x, inst->result_id, res);
}
