/* Storage images, texel buffers and image queries for the SPMD translator:
 * texel addresses from descriptor records (shader_abi.h), bounds checks,
 * and format conversion through llvm_texel.c. Sampling instructions go to
 * llvm_sample.c. */
#include "llvm_private.h"

#include <stddef.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "sc_format.h"

#define IMG(field) offsetof(struct shale_image_descriptor, field)
#define TBUF(field) offsetof(struct shale_texel_buffer_descriptor, field)

VkDescriptorType
sc_image_descriptor_type(struct sc_xlate *x, uint32_t type_id)
{
   const struct sc_type *t = sc_module_type(x->m, type_id);
   while (t && (t->kind == SC_T_ARRAY || t->kind == SC_T_RUNTIME_ARRAY))
      t = sc_module_type(x->m, t->elem);
   if (!t)
      return VK_DESCRIPTOR_TYPE_MAX_ENUM;
   if (t->kind == SC_T_SAMPLER)
      return VK_DESCRIPTOR_TYPE_SAMPLER;
   struct sc_image_type it;
   if (!sc_module_image_type(x->m, (uint32_t)(t - x->m->types), &it))
      return VK_DESCRIPTOR_TYPE_MAX_ENUM;
   if (it.dim == SpvDimBuffer)
      return it.sampled == 2 ? VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER
                             : VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
   if (t->kind == SC_T_SAMPLED_IMAGE)
      return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
   if (it.dim == SpvDimSubpassData)
      return VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
   return it.sampled == 2 ? VK_DESCRIPTOR_TYPE_STORAGE_IMAGE : VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
}

/* ------------------------------------------------------------------------ */
/* Records and addresses                                                     */
/* ------------------------------------------------------------------------ */

/* One image access: where the lanes' texels are and which lanes may touch
 * them. Scalar (one texel for the whole call) unless vec. */
struct access {
   struct sc_image_type it;
   bool vec;
   LLVMValueRef rec;        /* record: ptr, or <W x ptr> when rec_vec */
   bool rec_vec;
   LLVMValueRef addr;       /* ptr or <W x ptr> */
   LLVMValueRef mask;       /* i1 or <W x i1> */
   LLVMValueRef fmt;        /* VkFormat from the record (i32, or <W x i32> when rec_vec) */
   const struct sc_texel_format *f;   /* the declared format, or NULL */
};

static LLVMValueRef
gep8(struct sc_xlate *x, LLVMValueRef base, LLVMValueRef off)
{
   return LLVMBuildGEP2(x->b, x->t_i8, base, &off, 1, "");
}

/* A 16-, 32- or 64-bit field of the record(s), as a vector when want_vec. */
static LLVMValueRef
field(struct sc_xlate *x, const struct access *a, size_t offset, LLVMTypeRef t, bool want_vec)
{
   unsigned align = t == x->t_i16 ? 2 : t == x->t_i32 ? 4 : 8;
   if (!a->rec_vec) {
      LLVMValueRef v = LLVMBuildLoad2(x->b, t, gep8(x, a->rec, LLVMConstInt(x->t_i64, offset, 0)), "");
      LLVMSetAlignment(v, align);
      return want_vec ? sc_splat(x, v) : v;
   }
   LLVMValueRef p = gep8(x, a->rec, sc_splat(x, LLVMConstInt(x->t_i64, offset, 0)));
   LLVMTypeRef vt = sc_vec_type(x, t);
   LLVMTypeRef ov[2] = { vt, sc_vec_type(x, x->t_ptr) };
   LLVMValueRef args[4] = { p, LLVMConstInt(x->t_i32, align, 0), x->mask, LLVMConstNull(vt) };
   return sc_intrinsic(x, "llvm.masked.gather", ov, 2, args, 4);
}

static LLVMValueRef
k32(struct sc_xlate *x, bool vec, uint32_t v)
{
   LLVMValueRef c = sc_const_i32(x, v);
   return vec ? sc_splat(x, c) : c;
}

static LLVMValueRef
zext64(struct sc_xlate *x, LLVMValueRef v, bool vec)
{
   return LLVMBuildZExt(x->b, v, vec ? sc_vec_type(x, x->t_i64) : x->t_i64, "");
}

/* The image type and record of an image (or sampled image) value. */
static bool
image_of(struct sc_xlate *x, uint32_t id, struct access *a)
{
   memset(a, 0, sizeof(*a));
   const struct sc_inst *d = sc_module_def(x->m, id);
   if (!d || !sc_module_image_type(x->m, d->type_id, &a->it))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%%%u is not an image", id);
   const struct sc_val *v = sc_operand(x, id, 1, 1);
   if (!v)
      return false;
   a->rec = v->c[0];
   a->rec_vec = !v->uniform;
   return true;
}

/* Integer coordinate component i of c as i32 (0 past its end). */
static LLVMValueRef
coord(struct sc_xlate *x, const struct sc_val *c, uint32_t i, bool vec)
{
   if (i >= c->n)
      return k32(x, vec, 0);
   LLVMValueRef v = sc_comp(x, c, i, vec);
   LLVMTypeRef t = LLVMTypeOf(v);
   LLVMTypeRef st = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
   unsigned w = LLVMGetIntTypeWidth(st);
   LLVMTypeRef t32 = vec ? sc_vec_type(x, x->t_i32) : x->t_i32;
   return w == 32 ? v : w > 32 ? LLVMBuildTrunc(x->b, v, t32, "") : LLVMBuildSExt(x->b, v, t32, "");
}

/* A per-lane copy of value v (v itself may be cached: not changed). */
static bool
per_lane(struct sc_xlate *x, const struct sc_val *v, struct sc_val *out)
{
   *out = sc_new_val(x, v->n, false);
   if (!out->c)
      return false;
   for (uint32_t i = 0; i < v->n; i++)
      out->c[i] = sc_comp(x, v, i, true);
   return true;
}

/* Texel addresses and the lanes in bounds for coordinate value c and, on
 * multisampled images, sample value s (NULL otherwise). */
static bool
address(struct sc_xlate *x, struct access *a, const struct sc_val *c, const struct sc_val *s)
{
   LLVMBuilderRef b = x->b;
   const struct sc_image_type *it = &a->it;
   if (!it->ms != !s)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "a Sample operand %s",
                     it->ms ? "is required on a multisampled image" : "without a multisampled image");
   if (it->ms && it->dim != SpvDim2D && it->dim != SpvDimSubpassData)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "multisampled image of dimension %u", it->dim);
   if (it->dim == SpvDimRect)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "image dimension %u", it->dim);
   /* A subpass input reads the fragment's own pixel (plus the coordinate,
    * an offset Vulkan fixes at (0, 0)) of layer ViewIndex (0 without
    * multiview): per lane. */
   const bool subpass = it->dim == SpvDimSubpassData;
   VkFormat declared = sc_texel_format_from_spirv(it->format);
   if (it->format != SpvImageFormatUnknown && declared == VK_FORMAT_UNDEFINED)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "image format %u", it->format);
   a->f = declared ? sc_texel_format(declared) : NULL;
   bool vec = a->vec = a->rec_vec || !c->uniform || subpass || (s && !s->uniform);
   bool buf = it->dim == SpvDimBuffer;
   LLVMValueRef base = field(x, a, buf ? TBUF(base) : IMG(base), x->t_ptr, vec);
   a->fmt = field(x, a, buf ? TBUF(format) : IMG(format), x->t_i32, false);
   LLVMValueRef size = field(x, a, buf ? TBUF(element_size) : IMG(texel_size), x->t_i32, vec);
   LLVMValueRef in = NULL, off;
   if (buf) {
      LLVMValueRef i = coord(x, c, 0, vec);
      in = LLVMBuildICmp(b, LLVMIntULT, i, field(x, a, TBUF(element_count), x->t_i32, vec), "");
      off = LLVMBuildMul(b, zext64(x, i, vec), zext64(x, size, vec), "");
   } else {
      LLVMValueRef ext[3] = { field(x, a, IMG(width), x->t_i32, vec),
                              field(x, a, IMG(height), x->t_i32, vec),
                              field(x, a, IMG(depth_or_layers), x->t_i32, vec) };
      LLVMValueRef row = field(x, a, IMG(row_pitch), x->t_i32, vec);
      LLVMValueRef slice = field(x, a, IMG(slice_pitch), x->t_i32, vec);
      /* x, y and z: the depth slice, array layer or cube face. */
      LLVMValueRef xyz[3];
      bool used[3] = { true, it->dim != SpvDim1D, it->dim == SpvDim3D || it->dim == SpvDimCube ||
                                                  it->arrayed };
      LLVMValueRef pixel[3];
      switch (it->dim) {
      case SpvDimSubpassData:
         if (!sc_fragment_pixel(x, pixel))
            return false;
         for (int k = 0; k < 2; k++)
            xyz[k] = LLVMBuildAdd(b, pixel[k], coord(x, c, k, vec), "");
         xyz[2] = pixel[2];
         used[2] = true;
         break;
      case SpvDim1D:
         xyz[0] = coord(x, c, 0, vec);
         xyz[1] = k32(x, vec, 0);
         xyz[2] = it->arrayed ? coord(x, c, 1, vec) : k32(x, vec, 0);
         break;
      case SpvDim2D:
      case SpvDim3D:
      case SpvDimCube:
         /* Cube arrays: z is layer * 6 + face. */
         for (int k = 0; k < 3; k++)
            xyz[k] = used[k] ? coord(x, c, k, vec) : k32(x, vec, 0);
         break;
      default:
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "image dimension %u", it->dim);
      }
      for (int k = 0; k < 3; k++) {
         if (!used[k])
            continue;
         LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntULT, xyz[k], ext[k], "");
         in = in ? LLVMBuildAnd(b, in, ok, "") : ok;
      }
      if (s) {
         /* Sample s of texel x is texel x * samples + s of the row. */
         LLVMValueRef n = LLVMBuildZExt(b, field(x, a, IMG(samples), x->t_i16, vec),
                                        vec ? sc_vec_type(x, x->t_i32) : x->t_i32, "");
         LLVMValueRef si = coord(x, s, 0, vec);
         in = LLVMBuildAnd(b, in, LLVMBuildICmp(b, LLVMIntULT, si, n, ""), "");
         xyz[0] = LLVMBuildAdd(b, LLVMBuildMul(b, xyz[0], n, ""), si, "");
      }
      off = LLVMBuildAdd(b, LLVMBuildMul(b, zext64(x, xyz[1], vec), zext64(x, row, vec), ""),
                         LLVMBuildMul(b, zext64(x, xyz[2], vec), zext64(x, slice, vec), ""), "");
      off = LLVMBuildAdd(b, off, LLVMBuildMul(b, zext64(x, xyz[0], vec), zext64(x, size, vec), ""),
                         "");
   }
   /* A declared format is converted with its own texel size: a view of
    * another size (invalid usage) is never accessed. */
   if (a->f)
      in = LLVMBuildAnd(b, in, LLVMBuildICmp(b, LLVMIntEQ, size, k32(x, vec, a->f->size), ""), "");
   a->addr = gep8(x, base, off);
   a->mask = LLVMBuildAnd(b, vec ? x->mask : sc_any(x, x->mask), in, "");
   return true;
}

/* Marks the binding an image value comes from as written (through OpLoad
 * of a variable or an access chain of one); every storage binding when the
 * value's origin cannot be traced. */
static void
mark_written(struct sc_xlate *x, uint32_t id)
{
   const struct sc_inst *d = sc_module_def(x->m, id);
   for (int depth = 0; d && depth < 16; depth++) {
      if (d->opcode == SpvOpLoad || d->opcode == SpvOpAccessChain ||
          d->opcode == SpvOpInBoundsAccessChain || d->opcode == SpvOpCopyObject) {
         d = sc_module_def(x->m, d->w[3]);
         continue;
      }
      if (d->opcode == SpvOpVariable) {
         uint32_t set, binding;
         if (sc_module_decoration(x->m, d->result_id, SC_NONE, SpvDecorationDescriptorSet, &set) &&
             sc_module_decoration(x->m, d->result_id, SC_NONE, SpvDecorationBinding, &binding)) {
            for (uint32_t i = 0; i < x->nbindings; i++)
               if (x->bindings[i].set == set && x->bindings[i].binding == binding) {
                  x->bindings[i].written = true;
                  return;
               }
         }
      }
      break;
   }
   for (uint32_t i = 0; i < x->nbindings; i++)
      if (x->bindings[i].type == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE ||
          x->bindings[i].type == VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER)
         x->bindings[i].written = true;
}

/* ------------------------------------------------------------------------ */
/* Instructions                                                              */
/* ------------------------------------------------------------------------ */

/* Image operands of read / write / fetch: Sample (its id in *sample, 0
 * without), SignExtend and ZeroExtend matter, memory-model ones are no-ops
 * here; anything else is unsupported. */
static bool
image_operands(struct sc_xlate *x, const struct sc_inst *inst, uint32_t at, int *extend,
               uint32_t *sample)
{
   *extend = 0;
   *sample = 0;
   if (at >= inst->nwords)
      return true;
   uint32_t mask = inst->w[at];
   const uint32_t ok = SpvImageOperandsMakeTexelAvailableMask | SpvImageOperandsMakeTexelVisibleMask |
                       SpvImageOperandsNonPrivateTexelMask | SpvImageOperandsVolatileTexelMask |
                       SpvImageOperandsSignExtendMask | SpvImageOperandsZeroExtendMask |
                       SpvImageOperandsNontemporalMask | SpvImageOperandsSampleMask;
   if (mask & ~ok)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "image operands %#x on %s", mask,
                     sc_opcode_name(inst->opcode));
   /* Sample (bit 6) is the first operand with an id among these. */
   if (mask & SpvImageOperandsSampleMask) {
      if (at + 1 >= inst->nwords)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "image operands run past the instruction");
      *sample = inst->w[at + 1];
   }
   if (mask & SpvImageOperandsSignExtendMask)
      *extend = 1;
   if (mask & SpvImageOperandsZeroExtendMask)
      *extend = 2;
   return true;
}

static bool
integer_sampled(struct sc_xlate *x, const struct sc_image_type *it)
{
   const struct sc_type *t = sc_module_type(x->m, it->sampled_type);
   return t && t->kind == SC_T_INT;
}

/* OpImageRead, and OpImageFetch on uniform texel buffers. */
static bool
emit_read(struct sc_xlate *x, const struct sc_inst *inst)
{
   struct access a;
   int extend;
   uint32_t sid;
   if (!image_of(x, inst->w[3], &a) || !image_operands(x, inst, 5, &extend, &sid))
      return false;
   const struct sc_val *c = sc_operand(x, inst->w[4], 1, SC_ANY);
   const struct sc_val *smp = c && sid ? sc_operand(x, sid, 1, 1) : NULL;
   if (!c || (sid && !smp) || !address(x, &a, c, smp))
      return false;
   bool integer = integer_sampled(x, &a.it);
   if (a.f && sc_texel_is_integer(a.f) != integer)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "image format and sampled type disagree");
   LLVMValueRef comps[4];
   sc_texel_load(x, a.f, a.fmt, integer, extend, a.addr, a.mask, comps);
   /* Outside the image: (0, 0, 0, 1). */
   for (int k = 0; k < 4; k++)
      comps[k] = LLVMBuildSelect(x->b, a.mask, comps[k],
                                 k32(x, a.vec, k < 3 ? 0 : integer ? 1 : 0x3f800000), "");
   uint32_t n = sc_ncomp(x, inst->type_id);
   if (n > 4)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "image read of %u components", n);
   struct sc_val r = sc_new_val(x, n, !a.vec);
   if (!r.c)
      return false;
   for (uint32_t i = 0; i < n; i++) {
      LLVMTypeRef st = sc_llvm_scalar(x, sc_scalar_at(x, inst->type_id, i));
      if (st != x->t_i32 && st != x->t_f32)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "image read into a non-32-bit type");
      r.c[i] = st == x->t_f32 ? LLVMBuildBitCast(x->b, comps[i], a.vec ? sc_vec_type(x, st) : st, "")
                              : comps[i];
   }
   return sc_set(x, inst->result_id, r);
}

static bool
emit_write(struct sc_xlate *x, const struct sc_inst *inst)
{
   struct access a;
   int extend;
   uint32_t sid;
   if (!image_of(x, inst->w[1], &a) || !image_operands(x, inst, 4, &extend, &sid))
      return false;
   const struct sc_val *c = sc_operand(x, inst->w[2], 1, SC_ANY);
   const struct sc_val *texel = c ? sc_operand(x, inst->w[3], 1, SC_ANY) : NULL;
   const struct sc_val *smp = texel && sid ? sc_operand(x, sid, 1, 1) : NULL;
   if (!c || !texel || (sid && !smp))
      return false;
   if (a.it.sampled != 2)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpImageWrite to a sampled image");
   /* The texel may vary where the address does not: write per lane then. */
   struct sc_val cv = *c;
   if (!texel->uniform && cv.uniform && !per_lane(x, c, &cv))
      return false;
   if (!address(x, &a, &cv, smp))
      return false;
   bool integer = integer_sampled(x, &a.it);
   LLVMValueRef comps[4];
   for (uint32_t i = 0; i < 4; i++) {
      if (i >= texel->n) {
         comps[i] = k32(x, a.vec, 0);
         continue;
      }
      LLVMValueRef v = sc_comp(x, texel, i, a.vec);
      LLVMTypeRef t = LLVMTypeOf(v);
      LLVMTypeRef st = a.vec ? LLVMGetElementType(t) : t;
      if (st != x->t_i32 && st != x->t_f32)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "image write of a non-32-bit type");
      comps[i] = st == x->t_f32 ? LLVMBuildBitCast(x->b, v, a.vec ? sc_vec_type(x, x->t_i32)
                                                                : x->t_i32, "") : v;
   }
   mark_written(x, inst->w[1]);
   sc_texel_store(x, a.f, a.fmt, integer, a.addr, a.mask, comps);
   return true;
}

/* OpImageQuerySize(Lod), OpImageQueryLevels, OpImageQuerySamples. */
static bool
emit_query(struct sc_xlate *x, const struct sc_inst *inst)
{
   struct access a;
   if (!image_of(x, inst->w[3], &a))
      return false;
   const struct sc_val *l = NULL;
   if (inst->opcode == SpvOpImageQuerySizeLod && !(l = sc_operand(x, inst->w[4], 1, 1)))
      return false;
   bool vec = a.rec_vec || (l && !l->uniform);
   a.vec = vec;
   LLVMBuilderRef b = x->b;
   uint32_t n = sc_ncomp(x, inst->type_id);
   struct sc_val r = sc_new_val(x, n, !vec);
   if (!r.c)
      return false;
   LLVMValueRef v[4] = { NULL };
   uint32_t count = 0;
   switch (inst->opcode) {
   case SpvOpImageQueryLevels:
   case SpvOpImageQuerySamples: {
      LLVMValueRef w = field(x, &a, inst->opcode == SpvOpImageQueryLevels ? IMG(level_count)
                                                                          : IMG(samples),
                             x->t_i16, vec);
      v[0] = LLVMBuildZExt(b, w, vec ? sc_vec_type(x, x->t_i32) : x->t_i32, "");
      count = 1;
      break;
   }
   default: {
      if (a.it.dim == SpvDimBuffer) {
         v[count++] = field(x, &a, TBUF(element_count), x->t_i32, vec);
         break;
      }
      LLVMValueRef lod = NULL;
      if (l) {
         lod = sc_comp(x, l, 0, vec);
         /* Past 31 the shift would be undefined; the lod is invalid anyway. */
         LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, lod, k32(x, vec, 31), "");
         lod = LLVMBuildSelect(b, big, k32(x, vec, 31), lod, "");
      }
      LLVMValueRef w = field(x, &a, IMG(width), x->t_i32, vec);
      LLVMValueRef h = field(x, &a, IMG(height), x->t_i32, vec);
      LLVMValueRef d = field(x, &a, IMG(depth_or_layers), x->t_i32, vec);
      bool has_h = a.it.dim != SpvDim1D, has_d = a.it.dim == SpvDim3D || a.it.arrayed;
      LLVMValueRef *dims[3] = { &w, &h, &d };
      for (int k = 0; k < 3; k++) {
         bool minified = k < 2 || a.it.dim == SpvDim3D;
         if (!lod || !minified)
            continue;
         LLVMValueRef s = LLVMBuildLShr(b, *dims[k], lod, "");
         LLVMValueRef zero = LLVMBuildICmp(b, LLVMIntEQ, s, k32(x, vec, 0), "");
         *dims[k] = LLVMBuildSelect(b, zero, k32(x, vec, 1), s, "");
      }
      if (a.it.dim == SpvDimCube && a.it.arrayed)
         d = LLVMBuildUDiv(b, d, k32(x, vec, 6), "");   /* cubes, not faces */
      v[count++] = w;
      if (has_h)
         v[count++] = h;
      if (has_d)
         v[count++] = d;
      break;
   }
   }
   if (n != count)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%s with %u components, expected %u",
                     sc_opcode_name(inst->opcode), n, count);
   for (uint32_t i = 0; i < n; i++) {
      LLVMTypeRef st = sc_llvm_scalar(x, sc_scalar_at(x, inst->type_id, i));
      LLVMTypeRef t = vec ? sc_vec_type(x, st) : st;
      unsigned width = LLVMGetIntTypeWidth(st);
      r.c[i] = width == 32 ? v[i] : width > 32 ? LLVMBuildZExt(b, v[i], t, "")
                                               : LLVMBuildTrunc(b, v[i], t, "");
   }
   return sc_set(x, inst->result_id, r);
}

bool
sc_image_texel_pointer(struct sc_xlate *x, const struct sc_inst *inst, struct sc_ptr *p)
{
   const struct sc_ptr *ip = sc_get_ptr(x, inst->w[3]);
   if (!ip)
      return false;
   if (ip->kind != SC_PTR_DESCRIPTOR)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpImageTexelPointer on a non-image");
   struct access a;
   memset(&a, 0, sizeof(a));
   if (!sc_module_image_type(x->m, ip->type, &a.it))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "OpImageTexelPointer on a non-image");
   /* Sample: the sample's texel on multisampled images, 0 otherwise. */
   const struct sc_inst *sample = sc_module_def(x->m, inst->w[5]);
   bool zero = sample && (sample->opcode == SpvOpConstantNull ||
                          (sample->opcode == SpvOpConstant && sample->w[3] == 0));
   if (!a.it.ms && !zero)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "a nonzero Sample on a single-sampled image");
   a.rec = ip->base;
   a.rec_vec = ip->base_varying;
   const struct sc_val *c = sc_operand(x, inst->w[4], 1, SC_ANY);
   const struct sc_val *s = c && a.it.ms ? sc_operand(x, inst->w[5], 1, 1) : NULL;
   if (!c || (a.it.ms && !s))
      return false;
   /* Atomics run per lane: make the address per lane. */
   struct sc_val cv, sv;
   if (!per_lane(x, c, &cv) || (s && !per_lane(x, s, &sv)) || !address(x, &a, &cv, s ? &sv : NULL))
      return false;
   if (a.f && a.f->size != 4)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "image atomics on a %u-byte format", a.f->size);
   const struct sc_type *pt = sc_module_type(x->m, inst->type_id);
   memset(p, 0, sizeof(*p));
   p->kind = SC_PTR_MEM;
   p->storage = SpvStorageClassImage;
   p->type = pt ? pt->elem : 0;
   p->base = a.addr;
   p->base_varying = true;
   p->offset = sc_const_i32(x, 0);
   p->valid = a.mask;
   p->binding_use = ip->binding_use;
   return true;
}


static bool
is_buffer_image(struct sc_xlate *x, uint32_t id)
{
   const struct sc_inst *d = sc_module_def(x->m, id);
   struct sc_image_type it;
   return d && sc_module_image_type(x->m, d->type_id, &it) && it.dim == SpvDimBuffer;
}

bool
sc_emit_image(struct sc_xlate *x, const struct sc_inst *inst, bool *handled)
{
   *handled = true;
   switch (inst->opcode) {
   case SpvOpImageRead:
      return emit_read(x, inst);
   case SpvOpImageFetch:
      /* Texel buffers here; sampled images through their sampling routine. */
      return is_buffer_image(x, inst->w[3]) ? emit_read(x, inst) : sc_emit_sample(x, inst);
   case SpvOpImageSampleExplicitLod:
   case SpvOpImageSampleDrefExplicitLod:
   case SpvOpImageSampleProjExplicitLod:
   case SpvOpImageSampleProjDrefExplicitLod:
   case SpvOpImageGather:
   case SpvOpImageDrefGather:
      return sc_emit_sample(x, inst);
   case SpvOpImageSampleImplicitLod:
   case SpvOpImageSampleDrefImplicitLod:
   case SpvOpImageSampleProjImplicitLod:
   case SpvOpImageSampleProjDrefImplicitLod:
   case SpvOpImageQueryLod:
      if (x->model == SpvExecutionModelFragment)
         return sc_emit_sample(x, inst);
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "%s: implicit LOD needs derivatives, which only fragment shaders have",
                     sc_opcode_name(inst->opcode));
   case SpvOpImageWrite:
      return emit_write(x, inst);
   case SpvOpImageQuerySize:
   case SpvOpImageQuerySizeLod:
   case SpvOpImageQueryLevels:
   case SpvOpImageQuerySamples:
      return emit_query(x, inst);
   case SpvOpImageTexelPointer:
      return true;   /* computed where used (sc_get_ptr) */
   case SpvOpSampledImage:
   case SpvOpImage: {
      /* The image's record stands for the pair; sampling instructions look
       * through OpSampledImage to its sampler (llvm_sample.c). */
      const struct sc_val *v = sc_operand(x, inst->w[3], 1, 1);
      if (!v)
         return false;
      struct sc_val r = sc_new_val(x, 1, v->uniform);
      if (!r.c)
         return false;
      r.c[0] = v->c[0];
      return sc_set(x, inst->result_id, r);
   }
   default:
      *handled = false;
      return true;
   }
}
