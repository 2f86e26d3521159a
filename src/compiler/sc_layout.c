/* Memory layout of SPIR-V types: explicit (Offset / ArrayStride /
 * MatrixStride decorations) where the module gives it, natural otherwise. */
#include "sc_layout.h"

#include <spirv/unified1/spirv.h>

/* Saturates like the helpers below: a huge size must not wrap to a small
 * stride. */
static uint32_t
align_up(uint32_t v, uint32_t a)
{
   uint64_t r = a ? ((uint64_t)v + a - 1) / a * a : v;
   return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

/* Sizes saturate at UINT32_MAX instead of wrapping. */
static uint32_t
sat_mul(uint32_t a, uint32_t b)
{
   uint64_t r = (uint64_t)a * b;
   return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

static uint32_t
sat_add(uint32_t a, uint32_t b)
{
   uint64_t r = (uint64_t)a + b;
   return r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

static uint32_t
scalar_bytes(const struct sc_type *t)
{
   return t->kind == SC_T_BOOL ? 4 : t->width / 8;
}

void
sc_layout_size_align(const struct sc_module *m, uint32_t type_id, uint32_t *size,
                     uint32_t *align)
{
   const struct sc_type *t = sc_module_type(m, type_id);
   uint32_t s = 0, a = 1;
   if (!t) {
      *size = 0;
      *align = 1;
      return;
   }
   switch (t->kind) {
   case SC_T_BOOL:
   case SC_T_INT:
   case SC_T_FLOAT:
      s = a = scalar_bytes(t);
      break;
   case SC_T_VECTOR: {
      const struct sc_type *e = sc_module_type(m, t->elem);
      a = scalar_bytes(e);
      s = sat_mul(a, t->count);
      break;
   }
   case SC_T_MATRIX: {
      uint32_t cs, ca;
      sc_layout_size_align(m, t->elem, &cs, &ca);
      a = ca;
      s = sat_mul(align_up(cs, ca), t->count);
      break;
   }
   case SC_T_ARRAY:
   case SC_T_RUNTIME_ARRAY: {
      uint32_t es, ea;
      sc_layout_size_align(m, t->elem, &es, &ea);
      a = ea;
      s = t->kind == SC_T_ARRAY ? sat_mul(sc_layout_array_stride(m, type_id), t->count) : 0;
      break;
   }
   case SC_T_STRUCT:
      for (uint32_t i = 0; i < t->count; i++) {
         uint32_t ms, ma;
         sc_layout_size_align(m, t->members[i], &ms, &ma);
         uint32_t off = sc_layout_member_offset(m, type_id, i);
         if (ma > a)
            a = ma;
         if (sat_add(off, ms) > s)
            s = sat_add(off, ms);
      }
      s = align_up(s, a);
      break;
   default:
      break;
   }
   *size = s;
   *align = a;
}

uint32_t
sc_layout_array_stride(const struct sc_module *m, uint32_t type_id)
{
   uint32_t stride;
   if (sc_module_decoration(m, type_id, SC_NONE, SpvDecorationArrayStride, &stride))
      return stride;
   const struct sc_type *t = sc_module_type(m, type_id);
   uint32_t es, ea;
   sc_layout_size_align(m, t->elem, &es, &ea);
   return align_up(es, ea);
}

uint32_t
sc_layout_member_offset(const struct sc_module *m, uint32_t struct_id, uint32_t member)
{
   uint32_t off;
   if (sc_module_decoration(m, struct_id, member, SpvDecorationOffset, &off))
      return off;
   const struct sc_type *t = sc_module_type(m, struct_id);
   off = 0;
   for (uint32_t i = 0; i <= member && i < t->count; i++) {
      uint32_t ms, ma;
      sc_layout_size_align(m, t->members[i], &ms, &ma);
      off = align_up(off, ma);
      if (i == member)
         return off;
      off = sat_add(off, ms);
   }
   return off;
}

void
sc_layout_matrix(const struct sc_module *m, uint32_t struct_id, uint32_t member,
                 uint32_t member_type, uint32_t *stride, bool *row_major)
{
   *row_major = sc_module_decoration(m, struct_id, member, SpvDecorationRowMajor, NULL);
   if (sc_module_decoration(m, struct_id, member, SpvDecorationMatrixStride, stride))
      return;
   /* Natural: column-major, columns packed at their alignment. */
   const struct sc_type *t = sc_module_type(m, member_type);
   while (t && (t->kind == SC_T_ARRAY || t->kind == SC_T_RUNTIME_ARRAY))
      t = sc_module_type(m, t->elem);
   *stride = 0;
   if (t && t->kind == SC_T_MATRIX) {
      uint32_t cs, ca;
      sc_layout_size_align(m, t->elem, &cs, &ca);
      *stride = align_up(cs, ca);
   }
   *row_major = false;
}
