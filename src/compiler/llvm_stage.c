/* Vertex and fragment stages for the SPMD translator: the shale_vs_fn /
 * shale_fs_fn entry points, stage inputs and outputs (per-lane variables
 * filled from the batch or the plane equations, copied to varying slots at
 * the end), their built-ins, and the interface metadata (shale_vs_info,
 * shale_fs_info). See include/shale/shader_abi.h, "Stage interfaces". */
#include "llvm_private.h"

#include <stddef.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

/* The contexts share their first fields with the compute one: descriptor
 * sets and push constants are found at the same offsets in every stage. */
_Static_assert(offsetof(struct shale_vs_context, sets) == offsetof(struct shale_cs_context, sets),
               "vertex sets");
_Static_assert(offsetof(struct shale_fs_context, sets) == offsetof(struct shale_cs_context, sets),
               "fragment sets");
_Static_assert(offsetof(struct shale_vs_context, push_constants) ==
               offsetof(struct shale_cs_context, push_constants), "vertex push constants");
_Static_assert(offsetof(struct shale_fs_context, push_constants) ==
               offsetof(struct shale_cs_context, push_constants), "fragment push constants");

/* Where a flattened component of a stage variable goes (or comes from):
 * vertex outputs: slot * 4 + component; vertex inputs and fragment inputs
 * and outputs: Location * 4 + component (dual-source Index 1: Location 8);
 * or one of these. */
#define DEST_SKIP 0xffffu         /* a built-in member the shader never touches */
#define DEST_FRAG_DEPTH 0xfff0u
#define DEST_SAMPLE_MASK 0xfff1u
#define DEST_CLIP 0x2000u         /* + i: ClipDistance[i] */
#define DEST_CULL 0x3000u         /* + i: CullDistance[i] */
/* Tessellation stages: per-vertex words are (vertex * SHALE_SLOT_COUNT +
 * slot) * 4 + c (below DEST_CLIP), patch words DEST_PATCH + slot * 4 + c
 * (shader_abi.h, "Tessellation"). */
#define DEST_PATCH 0x4000u

/* A component's kind: its class in the low bits, and whether it is 16-bit
 * (carried widened to a 32-bit word: floats as floats, integers sign- or
 * zero-extended) or 64-bit (two words, low then high, at dest and
 * dest + 1). The stages between see 32-bit words only. */
#define KIND_CLASS 0x3u
#define KIND_16 0x4u
#define KIND_64 0x8u

struct sc_stage_var {
   uint32_t var;       /* variable id */
   uint32_t type;      /* pointee type */
   bool output;
   uint32_t n;         /* flattened components */
   uint16_t *dest;     /* [n] */
   uint8_t *kind;      /* [n] 0 float, 1 signed, 2 unsigned; KIND_16 / KIND_64 */
   uint8_t *interp;    /* [n] fragment inputs: enum shale_interp | flags */
   /* Vertex outputs of an Xfb entry point: per component its byte offset
    * in its XfbBuffer's vertex storage (0xffff: not captured) and buffer;
    * NULL when no component is captured. */
   uint16_t *xfb_offset;
   uint8_t *xfb_buffer;
};

static bool
is_vertex(const struct sc_xlate *x)
{
   return x->model == SpvExecutionModelVertex;
}

static bool
is_geometry(const struct sc_xlate *x)
{
   return x->model == SpvExecutionModelGeometry;
}

static bool
is_tcs(const struct sc_xlate *x)
{
   return x->model == SpvExecutionModelTessellationControl;
}

static bool
is_tes(const struct sc_xlate *x)
{
   return x->model == SpvExecutionModelTessellationEvaluation;
}

/* Stages that write varying slots as a vertex shader does, W lanes at the
 * end of the call: vertex and tessellation evaluation (io.tes.out is
 * io.vs). */
static bool
vertex_like(const struct sc_xlate *x)
{
   return is_vertex(x) || is_tes(x);
}

/* Stages whose outputs are varying slots (shale_vs_info; a geometry
 * shader's io.gs.out is io.vs). */
static bool
slot_outputs(const struct sc_xlate *x)
{
   return vertex_like(x) || is_geometry(x);
}

/* ------------------------------------------------------------------------ */
/* Interface variables                                                       */
/* ------------------------------------------------------------------------ */

bool
sc_stage_in_interface(struct sc_xlate *x, uint32_t id)
{
   const struct sc_inst *ep = &x->m->insts[x->ep->inst];
   /* OpEntryPoint model function "name" interface... */
   uint32_t at = 3;
   while (at < ep->nwords) {
      uint32_t w = ep->w[at++];
      if (!(w & 0xff000000u) || !(w & 0xff0000u) || !(w & 0xff00u) || !(w & 0xffu))
         break;   /* the word holding the name's NUL */
   }
   for (; at < ep->nwords; at++)
      if (ep->w[at] == id)
         return true;
   return false;
}

/* Members of a struct variable the function touches: bit i for member i
 * (all bits when the variable is used as a whole). An output with an
 * initializer counts as written whole: its value is defined from the
 * start whether or not the shader stores it. */
static uint64_t
members_used(struct sc_xlate *x, uint32_t var)
{
   const struct sc_module *m = x->m;
   const struct sc_inst *def = sc_module_def(m, var);
   if (def && def->opcode == SpvOpVariable && def->nwords > 4)
      return ~0ull;
   uint64_t used = 0;
   for (uint32_t b = 0; b < x->f->nblocks; b++) {
      const struct sc_block *blk = &x->f->blocks[b];
      for (uint32_t i = blk->first; i <= blk->term; i++) {
         const struct sc_inst *inst = &m->insts[i];
         if ((inst->opcode == SpvOpAccessChain || inst->opcode == SpvOpInBoundsAccessChain) &&
             inst->w[3] == var && inst->nwords > 4) {
            const struct sc_inst *c = sc_module_def(m, inst->w[4]);
            if (c && c->opcode == SpvOpConstant && c->w[3] < 64)
               used |= 1ull << c->w[3];
            else
               used = ~0ull;
            continue;
         }
         for (unsigned k = 0; k < inst->noperands; k++) {
            const struct sc_operand *op = &m->operands[inst->first_operand + k];
            if (op->kind == SC_OPERAND_ID && inst->w[op->offset] == var)
               used = ~0ull;
         }
      }
   }
   return used;
}

/* Locations a type takes (one per vector or column, two for a vector of
 * three or four 64-bit components). */
static uint32_t
locations_of(struct sc_xlate *x, uint32_t type)
{
   const struct sc_type *t = sc_module_type(x->m, type);
   if (!t)
      return 1;
   switch (t->kind) {
   case SC_T_VECTOR: {
      const struct sc_type *e = sc_module_type(x->m, t->elem);
      return e && e->width == 64 && t->count > 2 ? 2 : 1;
   }
   case SC_T_MATRIX:
      return t->count * locations_of(x, t->elem);
   case SC_T_ARRAY:
      return t->count * locations_of(x, t->elem);
   case SC_T_STRUCT: {
      uint32_t n = 0;
      for (uint32_t i = 0; i < t->count; i++)
         n += locations_of(x, t->members[i]);
      return n;
   }
   default:
      return 1;
   }
}

struct walk {
   struct sc_stage_var *v;
   uint32_t k;          /* next component */
   uint8_t interp;      /* fragment inputs: of the variable or member */
};

static bool
push(struct sc_xlate *x, struct walk *w, uint32_t dest, uint8_t kind)
{
   if (w->k >= w->v->n)
      return sc_fail(x, SC_ERROR_INTERNAL, "stage variable %%%u flattens badly", w->v->var);
   w->v->dest[w->k] = (uint16_t)dest;
   w->v->kind[w->k] = kind;
   if (w->v->interp)
      w->v->interp[w->k] = w->interp;
   w->k++;
   return true;
}

/* Decorations that choose how a fragment input is interpolated. */
static uint8_t
interp_of(struct sc_xlate *x, uint32_t id, uint32_t member, uint8_t inherited)
{
   const struct sc_module *m = x->m;
   uint8_t kind = inherited & SHALE_INTERP_KIND_MASK;
   uint8_t flags = inherited & ~SHALE_INTERP_KIND_MASK;
   if (sc_module_decoration(m, id, member, SpvDecorationFlat, NULL))
      kind = SHALE_INTERP_FLAT;
   if (sc_module_decoration(m, id, member, SpvDecorationNoPerspective, NULL))
      kind = SHALE_INTERP_NOPERSPECTIVE;
   if (sc_module_decoration(m, id, member, SpvDecorationCentroid, NULL))
      flags |= SHALE_INTERP_CENTROID;
   if (sc_module_decoration(m, id, member, SpvDecorationSample, NULL))
      flags |= SHALE_INTERP_SAMPLE;
   return kind | flags;
}

/* Components of a user (Location) variable of type `type` starting at
 * Location loc, Component comp. */
static bool
walk_user(struct sc_xlate *x, struct walk *w, uint32_t type, uint32_t loc, uint32_t comp,
          uint32_t max_loc)
{
   const struct sc_type *t = sc_module_type(x->m, type);
   if (!t)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "stage variable of a bad type");
   switch (t->kind) {
   case SC_T_INT:
   case SC_T_FLOAT: {
      uint8_t kind = t->kind == SC_T_FLOAT ? 0 : t->is_signed ? 1 : 2;
      if (t->width == 16) {
         kind |= KIND_16;
      } else if (t->width == 64) {
         /* Vertex inputs (from the R64* vertex formats) and the stages'
          * interfaces: no attachment takes 64-bit fragment outputs. */
         if (x->model == SpvExecutionModelFragment && w->v->output)
            return sc_fail(x, SC_ERROR_UNSUPPORTED, "64-bit fragment output");
         if (comp % 2)
            return sc_fail(x, SC_ERROR_INVALID_SPIRV, "64-bit stage variable at Component %u",
                           comp % 4);
         kind |= KIND_64;
      } else if (t->width != 32) {
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "%u-bit stage input or output", t->width);
      }
      /* The components of a 64-bit vector continue in the next Location. */
      if (comp >= 4 && (kind & KIND_64) && comp < 8) {
         loc += comp / 4;
         comp %= 4;
      }
      if (loc >= max_loc || comp >= 4)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "stage variable at Location %u Component %u",
                        loc, comp);
      return push(x, w, loc * 4 + comp, kind);
   }
   case SC_T_VECTOR: {
      const struct sc_type *e = sc_module_type(x->m, t->elem);
      uint32_t step = e && e->width == 64 ? 2 : 1;
      for (uint32_t i = 0; i < t->count; i++)
         if (!walk_user(x, w, t->elem, loc, comp + i * step, max_loc))
            return false;
      return true;
   }
   case SC_T_MATRIX: {
      /* A column of three or four 64-bit components takes two Locations. */
      uint32_t step = locations_of(x, t->elem);
      for (uint32_t i = 0; i < t->count; i++)
         if (!walk_user(x, w, t->elem, loc + i * step, 0, max_loc))
            return false;
      return true;
   }
   case SC_T_ARRAY: {
      uint32_t step = locations_of(x, t->elem);
      for (uint32_t i = 0; i < t->count; i++)
         if (!walk_user(x, w, t->elem, loc + i * step, comp, max_loc))
            return false;
      return true;
   }
   case SC_T_STRUCT: {
      uint32_t l = loc;
      uint8_t outer = w->interp;
      for (uint32_t i = 0; i < t->count; i++) {
         uint32_t ml, mc = 0;
         if (sc_module_decoration(x->m, type, i, SpvDecorationLocation, &ml))
            l = ml;
         sc_module_decoration(x->m, type, i, SpvDecorationComponent, &mc);
         if (w->v->interp)
            w->interp = interp_of(x, type, i, outer);
         if (!walk_user(x, w, t->members[i], l, mc, max_loc))
            return false;
         l += locations_of(x, t->members[i]);
      }
      w->interp = outer;
      return true;
   }
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "stage variable of an unsupported type");
   }
}

/* n components of a built-in member or variable that is skipped. */
static bool
skip(struct sc_xlate *x, struct walk *w, uint32_t type)
{
   uint32_t n = sc_ncomp(x, type);
   for (uint32_t i = 0; i < n; i++)
      if (!push(x, w, DEST_SKIP, 0))
         return false;
   return true;
}

static uint32_t
array_size(struct sc_xlate *x, uint32_t type)
{
   const struct sc_type *t = sc_module_type(x->m, type);
   return t && t->kind == SC_T_ARRAY ? t->count : 0;
}

/* An output built-in (a variable or a block member). */
static bool
walk_builtin_output(struct sc_xlate *x, struct walk *w, uint32_t builtin, uint32_t type)
{
   uint32_t n = sc_ncomp(x, type);
   switch (builtin) {
   case SpvBuiltInPosition:
      if (!slot_outputs(x) || n != 4)
         break;
      x->io.vs.outputs_written |= 1ull << SHALE_SLOT_POSITION;
      for (uint32_t i = 0; i < 4; i++)
         if (!push(x, w, SHALE_SLOT_POSITION * 4 + i, 0))
            return false;
      return true;
   case SpvBuiltInPointSize:
      if (!slot_outputs(x) || n != 1)
         break;
      x->io.vs.outputs_written |= 1ull << SHALE_SLOT_POINT_SIZE;
      x->io.vs.writes_point_size = 1;
      return push(x, w, SHALE_SLOT_POINT_SIZE * 4, 0);
   case SpvBuiltInClipDistance:
   case SpvBuiltInCullDistance: {
      if (!slot_outputs(x) || array_size(x, type) != n)
         break;
      bool clip = builtin == SpvBuiltInClipDistance;
      uint8_t *count = clip ? &x->io.vs.clip_distance_count : &x->io.vs.cull_distance_count;
      if (*count)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "two %s outputs",
                        clip ? "ClipDistance" : "CullDistance");
      if (n > 8)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "%u clip or cull distances", n);
      *count = (uint8_t)n;
      for (uint32_t i = 0; i < n; i++)
         if (!push(x, w, (clip ? DEST_CLIP : DEST_CULL) + i, 0))
            return false;
      return true;
   }
   case SpvBuiltInLayer:
   case SpvBuiltInViewportIndex:
      if (!slot_outputs(x) || n != 1)
         break;
      x->io.vs.outputs_written |= 1ull << SHALE_SLOT_LAYER_VIEWPORT;
      if (is_geometry(x) && builtin == SpvBuiltInLayer)
         x->io.gs.writes_layer = 1;
      x->io.vs.writes_layer_viewport |= builtin == SpvBuiltInLayer ? 1 : 2;
      return push(x, w, SHALE_SLOT_LAYER_VIEWPORT * 4 + (builtin == SpvBuiltInLayer ? 0 : 1), 1);
   case SpvBuiltInPrimitiveId:
      if (!is_geometry(x) || n != 1)
         break;
      x->io.vs.outputs_written |= 1ull << SHALE_SLOT_LAYER_VIEWPORT;
      x->io.gs.writes_primitive_id = 1;
      return push(x, w, SHALE_GS_PRIMITIVE_ID_WORD, 1);
   case SpvBuiltInFragDepth:
      if (slot_outputs(x) || n != 1)
         break;
      x->io.fs.writes_frag_depth = 1;
      return push(x, w, DEST_FRAG_DEPTH, 0);
   case SpvBuiltInSampleMask:
      if (slot_outputs(x) || n != 1)
         break;
      x->io.fs.writes_sample_mask = 1;
      return push(x, w, DEST_SAMPLE_MASK, 1);
   default:
      break;
   }
   return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported output built-in %u", builtin);
}

/* Whether the function accesses member `member` of the elements of the
 * arrayed block variable var (OpAccessChain var, vertex, member ...). */
static bool
element_member_used(struct sc_xlate *x, uint32_t var, uint32_t member)
{
   const struct sc_module *m = x->m;
   for (uint32_t b = 0; b < x->f->nblocks; b++) {
      const struct sc_block *blk = &x->f->blocks[b];
      for (uint32_t i = blk->first; i <= blk->term; i++) {
         const struct sc_inst *inst = &m->insts[i];
         if ((inst->opcode != SpvOpAccessChain && inst->opcode != SpvOpInBoundsAccessChain) ||
             inst->w[3] != var)
            continue;
         if (inst->nwords <= 5)
            return true;   /* a whole element (or the whole array) */
         const struct sc_inst *c = sc_module_def(m, inst->w[5]);
         if (!c || c->opcode != SpvOpConstant || c->w[3] == member)
            return true;
      }
   }
   return false;
}

/* The Location of variable id of type type: its own, or that of the first
 * member of the block it is (a block whose members carry the Locations). */
static bool
variable_location(const struct sc_module *m, uint32_t id, uint32_t type, uint32_t *loc)
{
   if (sc_module_decoration(m, id, SC_NONE, SpvDecorationLocation, loc))
      return true;
   const struct sc_type *t = sc_module_type(m, type);
   return t && t->kind == SC_T_STRUCT &&
          sc_module_decoration(m, type, 0, SpvDecorationLocation, loc);
}

/* A geometry shader input, or a tessellation shader's per-vertex input or
 * output: an array over the vertices (an arrayed Location variable or
 * block, or gl_in[] / gl_out[] of built-ins), of at most max_count.
 * Component c of slot s of vertex v is ((v * SHALE_SLOT_COUNT) + s) * 4 +
 * c (shader_abi.h, "Geometry", "Tessellation"). gl_in[].gl_ClipDistance
 * / gl_CullDistance are read where the stage before packed them, and a
 * control shader's gl_out[] ones are packed the same way. */
static bool
describe_arrayed(struct sc_xlate *x, const struct sc_inst *var, struct sc_stage_var *v,
                 uint32_t max_count)
{
   const struct sc_module *m = x->m;
   uint32_t id = var->result_id;
   const struct sc_type *t = sc_module_type(m, v->type);
   if (!t || t->kind != SC_T_ARRAY || !t->count || t->count > max_count)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "stage variable %%%u is not per vertex", id);
   const struct sc_type *et = sc_module_type(m, t->elem);
   bool builtins = et && et->kind == SC_T_STRUCT && et->count &&
                   sc_module_decoration(m, t->elem, 0, SpvDecorationBuiltIn, NULL);
   uint32_t loc = 0, comp = 0, builtin;
   if (sc_module_decoration(m, id, SC_NONE, SpvDecorationBuiltIn, &builtin))
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "per-vertex built-in %u", builtin);
   if (!builtins && !variable_location(m, id, t->elem, &loc))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "stage variable without a Location");
   sc_module_decoration(m, id, SC_NONE, SpvDecorationComponent, &comp);
   struct walk w = { v, 0, 0 };
   /* A control shader's per-vertex clip distances: as many words as its
    * gl_out[]'s ClipDistance member has (the evaluation shader is told:
    * shale_tcs_info.output_clip_distances). Set by gl_out[] alone: a user
    * output described after it must not reset the count. */
   uint32_t clip_out = 0;
   for (uint32_t i = 0; builtins && v->output && i < et->count; i++)
      if (sc_module_decoration(m, t->elem, i, SpvDecorationBuiltIn, &builtin) &&
          builtin == SpvBuiltInClipDistance)
         clip_out = array_size(x, et->members[i]);
   if (clip_out > 8)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "%u clip distances", clip_out);
   if (v->output && builtins)
      x->io.tcs.output_clip_distances = (uint8_t)clip_out;
   for (uint32_t vert = 0; vert < t->count; vert++) {
      uint32_t k0 = w.k;
      if (builtins) {
         for (uint32_t i = 0; i < et->count; i++) {
            uint32_t n = sc_ncomp(x, et->members[i]);
            sc_module_decoration(m, t->elem, i, SpvDecorationBuiltIn, &builtin);
            uint32_t base = builtin == SpvBuiltInPosition && n == 4    ? SHALE_SLOT_POSITION * 4
                            : builtin == SpvBuiltInPointSize && n == 1 ? SHALE_SLOT_POINT_SIZE * 4
                                                                       : SC_NONE;
            /* gl_in[].gl_ClipDistance and gl_CullDistance: the stage
             * before packs them from SHALE_SLOT_CLIP_CULL0 on, its cull
             * distances after its in_clip_distances clip distances
             * (sc_compile_info); components past the 8 words read 0
             * (beyond what it wrote). A control shader's gl_out[] packs
             * them the same way, its cull distances after its own
             * ClipDistance's size (clip_out). */
            const bool dist = builtin == SpvBuiltInClipDistance ||
                              builtin == SpvBuiltInCullDistance;
            uint32_t end = base == SC_NONE ? 0 : base + n;
            if (dist && array_size(x, et->members[i]) == n) {
               const uint32_t before = v->output ? clip_out : x->info->in_clip_distances;
               base = SHALE_SLOT_CLIP_CULL0 * 4 +
                      (builtin == SpvBuiltInCullDistance ? before : 0);
               end = SHALE_SLOT_CLIP_CULL0 * 4 + 8;
               if (v->output && base + n > end)
                  return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                                 "more than 8 clip and cull distances");
            }
            /* An initialized gl_out[] defines every member whether or
             * not the shader stores it (as members_used()). */
            bool used = var->nwords > 4 || element_member_used(x, id, i);
            if (base == SC_NONE && used)
               return sc_fail(x, SC_ERROR_UNSUPPORTED, "per-vertex built-in %u", builtin);
            if (!used)
               base = SC_NONE;   /* not read: no slot to fill */
            for (uint32_t c = 0; c < n; c++)
               if (!push(x, &w, base == SC_NONE || base + c >= end ? DEST_SKIP : base + c, 0))
                  return false;
         }
      } else {
         if (!walk_user(x, &w, t->elem, loc, comp, SHALE_MAX_LOCATIONS))
            return false;
         for (uint32_t k = k0; k < w.k; k++)
            v->dest[k] += SHALE_SLOT_USER * 4;
      }
      for (uint32_t k = k0; k < w.k; k++)
         if (v->dest[k] != DEST_SKIP)
            v->dest[k] += vert * SHALE_SLOT_COUNT * 4;
   }
   if (w.k != v->n)
      return sc_fail(x, SC_ERROR_INTERNAL, "stage variable %%%u flattens badly", id);
   return true;
}

/* A tessellation shader's Patch variable (an input of the evaluation
 * shader, an output of the control shader): TessLevelOuter / Inner or
 * Locations, at DEST_PATCH + patch slot * 4 + c. */
static bool
describe_patch(struct sc_xlate *x, const struct sc_inst *var, struct sc_stage_var *v)
{
   const struct sc_module *m = x->m;
   uint32_t id = var->result_id, builtin, loc, comp = 0;
   struct walk w = { v, 0, 0 };
   if (sc_module_decoration(m, id, SC_NONE, SpvDecorationBuiltIn, &builtin)) {
      uint32_t n = sc_ncomp(x, v->type), slot;
      if (builtin == SpvBuiltInTessLevelOuter && n == 4 && array_size(x, v->type) == 4)
         slot = SHALE_PATCH_SLOT_TESS_OUTER;
      else if (builtin == SpvBuiltInTessLevelInner && n == 2 && array_size(x, v->type) == 2)
         slot = SHALE_PATCH_SLOT_TESS_INNER;
      else
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "tessellation patch built-in %u", builtin);
      for (uint32_t c = 0; c < n; c++)
         if (!push(x, &w, DEST_PATCH + slot * 4 + c, 0))
            return false;
      return true;
   }
   if (!variable_location(m, id, v->type, &loc))
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "stage variable without a Location");
   sc_module_decoration(m, id, SC_NONE, SpvDecorationComponent, &comp);
   if (!walk_user(x, &w, v->type, loc, comp, SHALE_MAX_LOCATIONS))
      return false;
   for (uint32_t k = 0; k < w.k; k++)
      v->dest[k] += DEST_PATCH + SHALE_PATCH_SLOT_USER * 4;
   if (w.k != v->n)
      return sc_fail(x, SC_ERROR_INTERNAL, "stage variable %%%u flattens badly", id);
   return true;
}

/* Whether a tessellation shader's variable is per patch. */
static bool
is_patch_variable(struct sc_xlate *x, uint32_t id)
{
   uint32_t builtin;
   if (sc_module_decoration(x->m, id, SC_NONE, SpvDecorationPatch, NULL))
      return true;
   return sc_module_decoration(x->m, id, SC_NONE, SpvDecorationBuiltIn, &builtin) &&
          (builtin == SpvBuiltInTessLevelOuter || builtin == SpvBuiltInTessLevelInner);
}

/* Records the Location components of an input or output variable. */
static bool
describe_variable(struct sc_xlate *x, const struct sc_inst *var, struct sc_stage_var *v)
{
   const struct sc_module *m = x->m;
   uint32_t id = var->result_id;
   const struct sc_type *t = sc_module_type(m, v->type);
   struct walk w = { v, 0, 0 };
   uint32_t builtin, loc, comp = 0;
   bool fs_input = !slot_outputs(x) && !v->output;
   if (is_geometry(x) && !v->output)
      return describe_arrayed(x, var, v, SHALE_GS_MAX_VERTICES_IN);
   if ((is_tcs(x) || is_tes(x)) && (is_tcs(x) || !v->output)) {
      /* Tessellation inputs, and the control shader's outputs. */
      if (is_patch_variable(x, id))
         return describe_patch(x, var, v);
      return describe_arrayed(x, var, v, SHALE_TESS_MAX_PATCH_VERTICES);
   }
   if (fs_input) {
      v->interp = sc_alloc(x, v->n);
      if (!v->interp)
         return false;
      w.interp = interp_of(x, id, SC_NONE, SHALE_INTERP_SMOOTH);
   }
   if (sc_module_decoration(m, id, SC_NONE, SpvDecorationBuiltIn, &builtin))
      return walk_builtin_output(x, &w, builtin, v->type);
   if (t && t->kind == SC_T_STRUCT && t->count &&
       sc_module_decoration(m, v->type, 0, SpvDecorationBuiltIn, NULL)) {
      /* gl_PerVertex: only the members the shader touches count. */
      uint64_t used = members_used(x, id);
      for (uint32_t i = 0; i < t->count; i++) {
         if (!sc_module_decoration(m, v->type, i, SpvDecorationBuiltIn, &builtin))
            return sc_fail(x, SC_ERROR_INVALID_SPIRV, "block mixing built-ins and locations");
         bool ok = i < 64 && (used >> i & 1) ? walk_builtin_output(x, &w, builtin, t->members[i])
                                            : skip(x, &w, t->members[i]);
         if (!ok)
            return false;
      }
   } else {
      if (!variable_location(m, id, v->type, &loc))
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "stage variable without a Location");
      sc_module_decoration(m, id, SC_NONE, SpvDecorationComponent, &comp);
      uint32_t max_loc = SHALE_MAX_LOCATIONS;
      if (!slot_outputs(x) && v->output) {
         uint32_t index = 0;
         sc_module_decoration(m, id, SC_NONE, SpvDecorationIndex, &index);
         if (index == 1) {
            if (loc != 0)
               return sc_fail(x, SC_ERROR_UNSUPPORTED, "Index 1 at Location %u", loc);
            loc = 8;
            max_loc = 9;
         } else {
            max_loc = 8;
         }
      }
      if (!walk_user(x, &w, v->type, loc, comp, max_loc))
         return false;
      if (slot_outputs(x) && v->output)
         for (uint32_t k = 0; k < w.k; k++)
            v->dest[k] += SHALE_SLOT_USER * 4;   /* Location l is slot SHALE_SLOT_USER + l */
   }
   if (w.k != v->n)
      return sc_fail(x, SC_ERROR_INTERNAL, "stage variable %%%u flattens badly", id);
   return true;
}

/* ------------------------------------------------------------------------ */
/* Transform feedback                                                        */
/* ------------------------------------------------------------------------ */

/* Whether the entry point declares the Xfb execution mode. */
static bool
xfb_mode(struct sc_xlate *x)
{
   const struct sc_inst *inst;
   for (uint32_t i = 0; (inst = sc_next_exec_mode(x, &i));)
      if (inst->w[2] == SpvExecutionModeXfb)
         return true;
   return false;
}

static bool
xfb_stride(struct sc_xlate *x, uint32_t buffer, uint32_t stride)
{
   if (buffer >= SHALE_MAX_XFB_BUFFERS || stride > 0xfffc || stride % 4)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "XfbBuffer %u with XfbStride %u", buffer, stride);
   x->io.vs.xfb_stride[buffer] = (uint16_t)stride;
   return true;
}

/* Components k0 .. k0 + n - 1 of v go to `buffer` from byte `offset` on,
 * tightly packed in order (spec, "Transform Feedback"): 4 bytes each, 8 for
 * a 64-bit component, whose low word is captured at its offset and its high
 * word 4 bytes after. Every component lies at an offset aligned to its
 * size. (A 16-bit component is refused where it is captured: the spec
 * requires captured components of at least 32 bits.) */
static bool
xfb_range(struct sc_xlate *x, struct sc_stage_var *v, uint32_t k0, uint32_t n, uint32_t buffer,
          uint32_t offset)
{
   if (buffer >= SHALE_MAX_XFB_BUFFERS || offset % 4)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "transform feedback output at XfbBuffer %u Offset %u",
                     buffer, offset);
   if (!v->xfb_offset) {
      v->xfb_offset = sc_alloc(x, (v->n ? v->n : 1) * sizeof(*v->xfb_offset));
      v->xfb_buffer = sc_alloc(x, v->n ? v->n : 1);
      if (!v->xfb_offset || !v->xfb_buffer)
         return false;
      memset(v->xfb_offset, 0xff, (v->n ? v->n : 1) * sizeof(*v->xfb_offset));
   }
   uint64_t at = offset;
   for (uint32_t j = 0; j < n && k0 + j < v->n; j++) {
      uint32_t size = v->kind[k0 + j] & KIND_64 ? 8 : 4;
      if (at % size || at + size > 0xfffc)
         return sc_fail(x, SC_ERROR_UNSUPPORTED,
                        "transform feedback component at XfbBuffer %u Offset %llu",
                        buffer, (unsigned long long)at);
      v->xfb_offset[k0 + j] = (uint16_t)at;
      v->xfb_buffer[k0 + j] = (uint8_t)buffer;
      at += size;
   }
   return true;
}

/* The XfbBuffer, XfbStride and Offset decorations of a vertex output: on
 * the variable (the whole variable from Offset on), or Offset on members of
 * its block (gl_PerVertex included), XfbBuffer and XfbStride on the
 * variable or the member. */
static bool
describe_xfb(struct sc_xlate *x, uint32_t id, struct sc_stage_var *v)
{
   const struct sc_module *m = x->m;
   uint32_t buffer = SC_NONE, stride, offset;
   sc_module_decoration(m, id, SC_NONE, SpvDecorationXfbBuffer, &buffer);
   if (buffer != SC_NONE && sc_module_decoration(m, id, SC_NONE, SpvDecorationXfbStride, &stride) &&
       !xfb_stride(x, buffer, stride))
      return false;
   if (sc_module_decoration(m, id, SC_NONE, SpvDecorationOffset, &offset))
      return buffer == SC_NONE || xfb_range(x, v, 0, v->n, buffer, offset);
   const struct sc_type *t = sc_module_type(m, v->type);
   if (!t || t->kind != SC_T_STRUCT)
      return true;
   uint32_t k = 0;
   for (uint32_t i = 0; i < t->count; i++) {
      uint32_t nk = sc_ncomp(x, t->members[i]), mb = buffer;
      sc_module_decoration(m, v->type, i, SpvDecorationXfbBuffer, &mb);
      if (mb != SC_NONE && sc_module_decoration(m, v->type, i, SpvDecorationXfbStride, &stride) &&
          !xfb_stride(x, mb, stride))
         return false;
      if (mb != SC_NONE && sc_module_decoration(m, v->type, i, SpvDecorationOffset, &offset) &&
          !xfb_range(x, v, k, nk, mb, offset))
         return false;
      k += nk;
   }
   return true;
}

/* Records a stage variable in x->stage_vars; false when it is not one
 * (or on failure, x->err set). */
static bool
record_stage_variable(struct sc_xlate *x, const struct sc_inst *var)
{
   uint32_t storage = var->w[3];
   if ((!sc_is_graphics(x) && !is_tcs(x)) ||
       (storage != SpvStorageClassInput && storage != SpvStorageClassOutput))
      return false;
   const struct sc_module *m = x->m;
   uint32_t id = var->result_id;
   if (!sc_stage_in_interface(x, id))
      return false;
   if (storage == SpvStorageClassInput &&
       sc_module_decoration(m, id, SC_NONE, SpvDecorationBuiltIn, NULL))
      return false;   /* built-ins are read where used (sc_builtin_value) */
   if (!members_used(x, id))
      return false;   /* never read nor written: not part of what the stage does */
   const struct sc_type *pt = sc_module_type(m, var->type_id);
   if (!pt || pt->kind != SC_T_POINTER)
      return false;
   const struct sc_type *t = sc_module_type(m, pt->elem);
   if (storage == SpvStorageClassInput && !is_geometry(x) && t && t->kind == SC_T_STRUCT && t->count &&
       sc_module_decoration(m, pt->elem, 0, SpvDecorationBuiltIn, NULL)) {
      sc_fail(x, SC_ERROR_UNSUPPORTED, "input block of built-ins");
      return false;
   }
   if (x->nstage_vars % 16 == 0) {
      struct sc_stage_var *grown = sc_alloc(x, (x->nstage_vars + 16) * sizeof(*grown));
      if (!grown)
         return false;
      if (x->nstage_vars)
         memcpy(grown, x->stage_vars, x->nstage_vars * sizeof(*grown));
      x->stage_vars = grown;
   }
   struct sc_stage_var *v = &x->stage_vars[x->nstage_vars];
   memset(v, 0, sizeof(*v));
   v->var = id;
   v->type = pt->elem;
   v->output = storage == SpvStorageClassOutput;
   v->n = sc_ncomp(x, v->type);
   v->dest = sc_alloc(x, (v->n ? v->n : 1) * sizeof(*v->dest));
   v->kind = sc_alloc(x, v->n ? v->n : 1);
   if (!v->dest || !v->kind || !describe_variable(x, var, v))
      return false;
   if (v->output && slot_outputs(x) && xfb_mode(x) && !describe_xfb(x, id, v))
      return false;
   x->nstage_vars++;
   return true;
}

bool
sc_stage_lane_variable(struct sc_xlate *x, const struct sc_inst *var)
{
   if (is_tcs(x) && var->w[3] == SpvStorageClassOutput)
      return false;   /* in the patch block: sc_stage_patch_variable */
   return record_stage_variable(x, var);
}

bool
sc_stage_patch_variable(struct sc_xlate *x, const struct sc_inst *var)
{
   if (!is_tcs(x) || var->w[3] != SpvStorageClassOutput)
      return false;
   return record_stage_variable(x, var);
}

/* ------------------------------------------------------------------------ */
/* Entry, prologue and epilogue                                              */
/* ------------------------------------------------------------------------ */

LLVMValueRef
sc_field_ptr(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef base, size_t offset)
{
   LLVMValueRef o = LLVMConstInt(x->t_i64, offset, false);
   return LLVMBuildGEP2(b, x->t_i8, base, &o, 1, "");
}

LLVMValueRef
sc_load_field(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef base, size_t offset,
              LLVMTypeRef type, unsigned align)
{
   LLVMValueRef v = LLVMBuildLoad2(b, type, sc_field_ptr(x, b, base, offset), "");
   LLVMSetAlignment(v, align);
   return v;
}

LLVMValueRef
sc_stage_entry_mask(struct sc_xlate *x)
{
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   if (!slot_outputs(x) || x->W == 1)
      return LLVMConstAllOnes(mt);
   /* Vertex (geometry) lanes count .. W-1 hold no vertex (primitive):
    * they start inactive. */
   LLVMValueRef count = sc_load_field(x, x->eb, x->arg_wg, offsetof(struct shale_vs_batch, count),
                                   x->t_i32, 4);
   return LLVMBuildICmp(x->eb, LLVMIntULT, x->lane_ids, sc_splat_with(x, x->eb, count), "live");
}

/* Component k of v (of kind `kind`) as W lanes of 32-bit integer bits:
 * words[0], and for a 64-bit component its high half in words[1]. */
static void
bits32(struct sc_xlate *x, const struct sc_val *v, uint32_t k, uint8_t kind,
       LLVMValueRef words[2])
{
   LLVMValueRef c = sc_comp(x, v, k, true);
   LLVMTypeRef et = LLVMGetElementType(LLVMTypeOf(c));
   LLVMTypeRef vi32 = sc_vec_type(x, x->t_i32);
   words[1] = NULL;
   if (et == x->t_f16)
      c = LLVMBuildFPExt(x->b, c, sc_vec_type(x, x->t_f32), "");
   else if (et == x->t_f64)
      c = LLVMBuildBitCast(x->b, c, sc_vec_type(x, x->t_i64), "");
   else if (et == x->t_i16)
      c = (kind & KIND_CLASS) == 1 ? LLVMBuildSExt(x->b, c, vi32, "") : LLVMBuildZExt(x->b, c, vi32, "");
   et = LLVMGetElementType(LLVMTypeOf(c));
   if (et == x->t_i64) {
      LLVMValueRef hi = LLVMBuildLShr(x->b, c, sc_splat_with(x, x->b, LLVMConstInt(x->t_i64, 32, false)), "");
      words[1] = LLVMBuildTrunc(x->b, hi, vi32, "");
      c = LLVMBuildTrunc(x->b, c, vi32, "");
   }
   if (LLVMGetElementType(LLVMTypeOf(c)) == x->t_f32)
      c = LLVMBuildBitCast(x->b, c, vi32, "");
   words[0] = c;
}

/* A stage input component read as 32-bit words (lo, and hi for KIND_64)
 * in the shader's type: 16-bit ones narrowed, 64-bit ones joined. */
static LLVMValueRef
narrow_input(struct sc_xlate *x, LLVMValueRef lo, LLVMValueRef hi, uint8_t kind)
{
   if (kind & KIND_64) {
      LLVMTypeRef v64 = sc_vec_type(x, x->t_i64);
      LLVMValueRef l = LLVMBuildZExt(x->b, LLVMBuildBitCast(x->b, lo, sc_vec_type(x, x->t_i32), ""),
                                     v64, "");
      LLVMValueRef h = LLVMBuildZExt(x->b, LLVMBuildBitCast(x->b, hi, sc_vec_type(x, x->t_i32), ""),
                                     v64, "");
      h = LLVMBuildShl(x->b, h, sc_splat_with(x, x->b, LLVMConstInt(x->t_i64, 32, false)), "");
      LLVMValueRef c = LLVMBuildOr(x->b, l, h, "");
      return (kind & KIND_CLASS) == 0 ? LLVMBuildBitCast(x->b, c, sc_vec_type(x, x->t_f64), "") : c;
   }
   if (kind & KIND_16)
      return (kind & KIND_CLASS) == 0 ? LLVMBuildFPTrunc(x->b, lo, sc_vec_type(x, x->t_f16), "")
                                      : LLVMBuildTrunc(x->b, lo, sc_vec_type(x, x->t_i16), "");
   return lo;
}

static LLVMValueRef
from_bits32(struct sc_xlate *x, LLVMValueRef bits, uint8_t kind)
{
   LLVMTypeRef t = LLVMTypeOf(bits);
   if (kind != 0)
      return bits;
   return LLVMBuildBitCast(x->b, bits, LLVMGetTypeKind(t) == LLVMVectorTypeKind ?
                                          sc_vec_type(x, x->t_f32) : x->t_f32, "");
}

/* A vertex input component: W lanes of inputs[(l * 4 + c) * W + i]. */
static LLVMValueRef
vertex_input(struct sc_xlate *x, LLVMValueRef inputs, uint32_t dest, uint8_t kind)
{
   LLVMValueRef p = sc_field_ptr(x, x->b, inputs, (size_t)dest * x->W * 4);
   LLVMValueRef v = LLVMBuildLoad2(x->b, sc_vec_type(x, x->t_i32), p, "");
   LLVMSetAlignment(v, 4);
   return from_bits32(x, v, kind);
}

static bool fragment_lane_state(struct sc_xlate *x);
static LLVMValueRef fragment_input(struct sc_xlate *x, uint32_t dest, uint8_t kind,
                                   uint8_t interp);

/* A tessellation shader's input word (shader_abi.h, "Tessellation"): the
 * patch's, the same in every lane; records it as read. */
static LLVMValueRef
tess_input(struct sc_xlate *x, LLVMValueRef inputs, LLVMValueRef patch, uint32_t dest,
           uint8_t kind)
{
   LLVMValueRef from = inputs;
   if (dest >= DEST_PATCH) {
      dest -= DEST_PATCH;
      from = patch;
      if (is_tes(x))
         x->io.tes.patch_read |= 1ull << (dest / 4);
   } else if (is_tes(x)) {
      x->io.tes.inputs_read |= 1ull << (dest / 4 % SHALE_SLOT_COUNT);
   } else {
      x->io.tcs.inputs_read |= 1ull << (dest / 4 % SHALE_SLOT_COUNT);
   }
   LLVMValueRef w = sc_load_field(x, x->b, from, (size_t)dest * 4, x->t_i32, 4);
   return from_bits32(x, sc_splat_with(x, x->b, w), kind);
}

bool
sc_stage_prologue(struct sc_xlate *x)
{
   if (x->err)
      return false;
   LLVMBuilderRef saved = x->b;
   LLVMValueRef saved_mask = x->mask;
   x->b = x->ib;
   x->mask = LLVMConstAllOnes(sc_vec_type(x, x->t_i1));
   LLVMValueRef inputs = NULL;
   bool ok = true;
   if (is_vertex(x))
      inputs = sc_load_field(x, x->eb, x->arg_wg, offsetof(struct shale_vs_batch, inputs),
                          x->t_ptr, 8);
   else if (is_geometry(x))
      inputs = sc_load_field(x, x->eb, x->arg_wg, offsetof(struct shale_gs_batch, inputs),
                          x->t_ptr, 8);
   else if (is_tcs(x))
      inputs = sc_load_field(x, x->eb, x->arg_wg, offsetof(struct shale_tcs_patch, inputs),
                          x->t_ptr, 8);
   else if (!is_tes(x))
      ok = fragment_lane_state(x);
   LLVMValueRef patch_inputs = NULL;
   if (is_tes(x)) {
      inputs = sc_load_field(x, x->eb, x->arg_wg, offsetof(struct shale_tes_batch, inputs),
                             x->t_ptr, 8);
      patch_inputs = sc_load_field(x, x->eb, x->arg_wg,
                                   offsetof(struct shale_tes_batch, patch_inputs), x->t_ptr, 8);
   }
   for (uint32_t i = 0; ok && i < x->nstage_vars; i++) {
      const struct sc_stage_var *v = &x->stage_vars[i];
      if (v->output && is_tcs(x))
         continue;   /* in the patch block, which the caller zeroes */
      const struct sc_ptr *p = sc_get_ptr(x, v->var);
      if (!p) {
         ok = false;
         break;
      }
      if (v->output) {
         const struct sc_inst *var = sc_module_def(x->m, v->var);
         if (var && var->nwords > 4)
            continue;   /* its initializer is stored already (sc_memory_init) */
         /* Outputs start as zeros: a path that never writes one copies
          * defined values out. */
         uint32_t size, align;
         sc_layout_size_align(x->m, v->type, &size, &align);
         LLVMBuildMemSet(x->b, p->base, LLVMConstInt(x->t_i8, 0, false),
                         LLVMConstInt(x->t_i64, (uint64_t)(size ? size : 4) * x->W, false), 4);
         continue;
      }
      struct sc_val val = sc_new_val(x, v->n, false);
      if (!val.c) {
         ok = false;
         break;
      }
      for (uint32_t k = 0; k < v->n; k++) {
         uint8_t kind = v->kind[k], cls = kind & KIND_CLASS;
         LLVMValueRef lo, hi = NULL;
         if ((is_geometry(x) || is_tcs(x) || is_tes(x)) && v->dest[k] == DEST_SKIP) {
            lo = LLVMConstNull(sc_vec_type(x, x->t_i32));
            hi = kind & KIND_64 ? lo : NULL;
         } else if (is_tcs(x) || is_tes(x)) {
            lo = tess_input(x, inputs, patch_inputs, v->dest[k], kind & KIND_64 ? 2 : cls);
            if (kind & KIND_64)
               hi = tess_input(x, inputs, patch_inputs, v->dest[k] + 1u, 2);
         } else if (is_geometry(x)) {
            /* ((vertex * SHALE_SLOT_COUNT + slot) * 4 + c) * W + lane; a
             * 64-bit component is two words. */
            x->io.gs.inputs_read |= 1ull << (v->dest[k] / 4 % SHALE_SLOT_COUNT);
            lo = vertex_input(x, inputs, v->dest[k], kind & KIND_64 ? 2 : cls);
            if (kind & KIND_64) {
               x->io.gs.inputs_read |= 1ull << ((v->dest[k] + 1u) / 4 % SHALE_SLOT_COUNT);
               hi = vertex_input(x, inputs, v->dest[k] + 1u, 2);
            }
         } else if (is_vertex(x)) {
            /* A 64-bit component is two words of its Location (the
             * fetch copies R64* channels there as they are). */
            uint32_t loc = v->dest[k] / 4;
            x->io.vs.inputs_read |= 1u << loc;
            x->io.vs.input_type[loc] = cls;
            lo = vertex_input(x, inputs, v->dest[k], kind & KIND_64 ? 2 : cls);
            if (kind & KIND_64)
               hi = vertex_input(x, inputs, v->dest[k] + 1u, 2);
         } else if (kind & KIND_64) {
            if ((v->interp[k] & SHALE_INTERP_KIND_MASK) != SHALE_INTERP_FLAT) {
               ok = sc_fail(x, SC_ERROR_INVALID_SPIRV, "64-bit fragment input without Flat");
               break;
            }
            lo = fragment_input(x, v->dest[k], 2, v->interp[k]);
            hi = lo ? fragment_input(x, v->dest[k] + 1, 2, v->interp[k]) : NULL;
            if (!hi)
               lo = NULL;
         } else {
            lo = fragment_input(x, v->dest[k], cls, v->interp[k]);
         }
         val.c[k] = lo ? narrow_input(x, lo, hi, kind) : NULL;
         if (!val.c[k]) {
            ok = false;
            break;
         }
      }
      if (ok) {
         /* Tessellation inputs are the patch's: uniform, in memory shared
          * by the lanes (sc_memory_init). */
         if (x->W == 1 || is_tcs(x) || is_tes(x)) {
            for (uint32_t k = 0; k < v->n; k++)
               val.c[k] = LLVMBuildExtractElement(x->b, val.c[k], sc_const_i32(x, 0), "");
            val.uniform = true;
         }
         ok = sc_store_value(x, p, &val);
      }
   }
   x->b = saved;
   x->mask = saved_mask;
   if (ok && is_geometry(x))
      ok = sc_geom_prologue(x);
   return ok && x->err == SC_SUCCESS;
}

static bool fragment_epilogue(struct sc_xlate *x);

/* The control shader's end (shader_abi.h, "Tessellation"): once the whole
 * patch has run, which is when its last subgroup ends (barriers are in
 * uniform control flow, so every subgroup ends in the same round, the last
 * one last), the written outputs are copied from the patch block to the
 * per-vertex and patch words. */
static bool
tcs_epilogue(struct sc_xlate *x)
{
   LLVMBuilderRef b = x->b;
   LLVMBasicBlockRef copy = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "tcs_copy");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "tcs_done");
   LLVMValueRef last = LLVMBuildICmp(b, LLVMIntEQ, x->arg_sg, sc_const_i32(x, x->subgroups - 1),
                                     "");
   LLVMBuildCondBr(b, last, copy, done);
   LLVMPositionBuilderAtEnd(b, copy);
   x->mask = LLVMConstAllOnes(sc_vec_type(x, x->t_i1));
   LLVMValueRef outputs = sc_load_field(x, b, x->arg_wg, offsetof(struct shale_tcs_patch, outputs),
                                        x->t_ptr, 8);
   LLVMValueRef patch = sc_load_field(x, b, x->arg_wg,
                                      offsetof(struct shale_tcs_patch, patch_outputs), x->t_ptr, 8);
   for (uint32_t i = 0; i < x->nstage_vars; i++) {
      const struct sc_stage_var *v = &x->stage_vars[i];
      if (!v->output)
         continue;
      const struct sc_ptr *p = sc_get_ptr(x, v->var);
      struct sc_val val;
      if (!p || !sc_load_value(x, p, v->type, &val))
         return false;
      for (uint32_t k = 0; k < v->n; k++) {
         uint32_t d = v->dest[k];
         if (d == DEST_SKIP)
            continue;
         LLVMValueRef words[2];
         bits32(x, &val, k, v->kind[k], words);
         for (uint32_t h = 0; h < 2 && words[h]; h++) {
            uint32_t w = d + h;
            LLVMValueRef to;
            if (w >= DEST_PATCH) {
               w -= DEST_PATCH;
               x->io.tcs.patch_written |= 1ull << (w / 4);
               to = sc_field_ptr(x, b, patch, (size_t)w * 4);
            } else {
               x->io.tcs.outputs_written |= 1ull << (w / 4 % SHALE_SLOT_COUNT);
               to = sc_field_ptr(x, b, outputs, (size_t)w * 4);
            }
            LLVMValueRef one = LLVMBuildExtractElement(b, words[h], sc_const_i32(x, 0), "");
            LLVMValueRef s = LLVMBuildStore(b, one, to);
            LLVMSetAlignment(s, 4);
         }
      }
   }
   LLVMBuildBr(b, done);
   LLVMPositionBuilderAtEnd(b, done);
   return true;
}

/* A captured 16-bit component: the spec ("Transform Feedback") requires
 * every component of a captured output to be at least 32 bits, so no valid
 * pipeline has one. */
static bool
xfb_16bit(struct sc_xlate *x)
{
   return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                  "transform feedback of a 16-bit output (captured components must be 32 or "
                  "64 bits)");
}

/* Where a vertex output component goes: slot * 4 + component, or SC_NONE. */
static uint32_t
vertex_slot(struct sc_xlate *x, uint32_t dest)
{
   if (dest == DEST_SKIP)
      return SC_NONE;
   if (dest >= DEST_CULL)
      dest = x->io.vs.clip_distance_count + (dest - DEST_CULL);
   else if (dest >= DEST_CLIP)
      dest = dest - DEST_CLIP;
   else
      return dest;
   x->io.vs.outputs_written |= 1ull << (SHALE_SLOT_CLIP_CULL0 + dest / 4);
   return SHALE_SLOT_CLIP_CULL0 * 4 + dest;
}

bool
sc_stage_for_outputs(struct sc_xlate *x, bool load, sc_output_fn fn, void *data)
{
   for (uint32_t i = 0; i < x->nstage_vars; i++) {
      const struct sc_stage_var *v = &x->stage_vars[i];
      if (!v->output)
         continue;
      struct sc_val val;
      if (load) {
         const struct sc_ptr *p = sc_get_ptr(x, v->var);
         if (!p || !sc_load_value(x, p, v->type, &val))
            return false;
      }
      for (uint32_t k = 0; k < v->n; k++) {
         uint32_t d = vertex_slot(x, v->dest[k]);
         if (d == SC_NONE)
            continue;
         uint32_t xo = v->xfb_offset ? v->xfb_offset[k] : 0xffff;
         uint32_t xb = v->xfb_offset ? v->xfb_buffer[k] : 0;
         if (xo != 0xffff && (v->kind[k] & KIND_16))
            return xfb_16bit(x);
         LLVMValueRef words[2] = { NULL, NULL };
         if (load)
            bits32(x, &val, k, v->kind[k], words);
         if (!fn(x, d, words[0], xb, xo, data))
            return false;
         /* A 64-bit component's high word is the next slot word, captured
          * 4 bytes after its low word. */
         if ((v->kind[k] & KIND_64) &&
             !fn(x, d + 1, words[1], xb, xo == 0xffff ? 0xffff : xo + 4, data))
            return false;
      }
   }
   return true;
}

bool
sc_stage_epilogue(struct sc_xlate *x)
{
   if (x->err)
      return false;
   if (is_geometry(x))
      return sc_geom_epilogue(x);
   if (is_tcs(x))
      return tcs_epilogue(x);
   if (!vertex_like(x))
      return fragment_epilogue(x);
   if (x->io.vs.clip_distance_count + x->io.vs.cull_distance_count > 8)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "more than 8 clip and cull distances");
   x->mask = LLVMConstAllOnes(sc_vec_type(x, x->t_i1));
   LLVMValueRef outputs = sc_load_field(x, x->b, x->arg_wg,
                                        is_tes(x) ? offsetof(struct shale_tes_batch, outputs)
                                                  : offsetof(struct shale_vs_batch, outputs),
                                        x->t_ptr, 8);
   for (uint32_t i = 0; i < x->nstage_vars; i++) {
      const struct sc_stage_var *v = &x->stage_vars[i];
      if (!v->output)
         continue;
      const struct sc_ptr *p = sc_get_ptr(x, v->var);
      struct sc_val val;
      if (!p || !sc_load_value(x, p, v->type, &val))
         return false;
      for (uint32_t k = 0; k < v->n; k++) {
         uint32_t d = vertex_slot(x, v->dest[k]);
         if (d == SC_NONE)
            continue;
         if (d >= SHALE_SLOT_USER * 4)
            x->io.vs.outputs_written |= 1ull << (d / 4);
         LLVMValueRef words[2];
         bits32(x, &val, k, v->kind[k], words);
         if (words[1])
            x->io.vs.outputs_written |= 1ull << ((d + 1) / 4);
         if (v->xfb_offset && v->xfb_offset[k] != 0xffff) {
            if (v->kind[k] & KIND_16)
               return xfb_16bit(x);
            /* A 64-bit component: its low word, then its high word 4 bytes on. */
            for (int h = 0; h < 2 && words[h]; h++) {
               if (x->io.vs.xfb_count == SHALE_MAX_XFB_COMPONENTS)
                  return sc_fail(x, SC_ERROR_UNSUPPORTED,
                                 "more than %u transform feedback components",
                                 SHALE_MAX_XFB_COMPONENTS);
               x->io.vs.xfb[x->io.vs.xfb_count++] = (struct shale_xfb_component) {
                  .word = (uint8_t)(d + h), .buffer = v->xfb_buffer[k],
                  .offset = (uint16_t)(v->xfb_offset[k] + 4 * h) };
            }
         }
         for (int h = 0; h < 2 && words[h]; h++) {
            LLVMValueRef to = sc_field_ptr(x, x->b, outputs, (size_t)(d + h) * x->W * 4);
            LLVMValueRef s = LLVMBuildStore(x->b, words[h], to);
            LLVMSetAlignment(s, 4);
         }
      }
   }
   /* Every captured component lies inside its vertex's XfbStride bytes
    * (the rasterizer writes it there, trusting this; a buffer without an
    * XfbStride is never written). */
   for (uint32_t i = 0; i < x->io.vs.xfb_count; i++) {
      const struct shale_xfb_component *c = &x->io.vs.xfb[i];
      uint32_t stride = x->io.vs.xfb_stride[c->buffer];
      if (stride && (uint32_t)c->offset + 4 > stride)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV,
                        "transform feedback Offset %u past XfbBuffer %u's XfbStride %u",
                        c->offset, c->buffer, x->io.vs.xfb_stride[c->buffer]);
   }
   return true;
}

bool
sc_stage_build_entry(struct sc_xlate *x, const char *name)
{
   if (x->lane_frame_size)
      return sc_fail(x, SC_ERROR_UNSUPPORTED,
                     "more than 16 KiB of private variables in a vertex or fragment shader");
   LLVMTypeRef params[2] = { x->t_ptr, x->t_ptr };
   LLVMTypeRef fty = LLVMFunctionType(x->t_void, params, 2, false);
   LLVMValueRef fn = LLVMAddFunction(x->mod, name, fty);
   sc_set_function_attrs(x, fn);
   LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(x->ctx, fn, "entry");
   LLVMBuilderRef b = x->b;
   LLVMPositionBuilderAtEnd(b, entry);
   LLVMValueRef args[4] = { LLVMGetParam(fn, 0), LLVMGetParam(fn, 1), sc_const_i32(x, 0),
                            LLVMConstNull(x->t_ptr) };
   LLVMBuildCall2(b, LLVMGlobalGetValueType(x->fn), x->fn, args, 4, "");
   LLVMBuildRetVoid(b);
   return true;
}

/* ------------------------------------------------------------------------ */
/* Built-ins                                                                 */
/* ------------------------------------------------------------------------ */

static bool
uniform_u32(struct sc_xlate *x, LLVMValueRef base, size_t offset, struct sc_val *out)
{
   *out = sc_new_val(x, 1, true);
   if (!out->c)
      return false;
   out->c[0] = sc_load_field(x, x->eb, base, offset, x->t_i32, 4);
   return true;
}

static bool
fragment_builtin(struct sc_xlate *x, uint32_t builtin, struct sc_val *out);

bool
sc_stage_builtin_value(struct sc_xlate *x, uint32_t builtin, struct sc_val *out)
{
   if (is_geometry(x))
      return sc_geom_builtin_value(x, builtin, out);
   if (is_tcs(x) || is_tes(x))
      return sc_tess_builtin_value(x, builtin, out);
   if (is_vertex(x)) {
      switch (builtin) {
      case SpvBuiltInVertexIndex: {
         *out = sc_new_val(x, 1, x->W == 1);
         if (!out->c)
            return false;
         LLVMTypeRef t = x->W == 1 ? x->t_i32 : sc_vec_type(x, x->t_i32);
         out->c[0] = sc_load_field(x, x->eb, x->arg_wg,
                                   offsetof(struct shale_vs_batch, vertex_index), t, 4);
         return true;
      }
      case SpvBuiltInInstanceIndex:
         return uniform_u32(x, x->arg_wg, offsetof(struct shale_vs_batch, instance_index), out);
      case SpvBuiltInBaseVertex:
         return uniform_u32(x, x->arg_ctx, offsetof(struct shale_vs_context, base_vertex), out);
      case SpvBuiltInBaseInstance:
         return uniform_u32(x, x->arg_ctx, offsetof(struct shale_vs_context, base_instance), out);
      case SpvBuiltInDrawIndex:
         return uniform_u32(x, x->arg_ctx, offsetof(struct shale_vs_context, draw_index), out);
      case SpvBuiltInViewIndex:
         return uniform_u32(x, x->arg_ctx, offsetof(struct shale_vs_context, view_index), out);
      default:
         break;
      }
   } else if (x->model == SpvExecutionModelFragment) {
      return fragment_builtin(x, builtin, out);
   }
   return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported built-in %u", builtin);
}

/* ------------------------------------------------------------------------ */
/* Fragment                                                                  */
/* ------------------------------------------------------------------------ */

#define QUADS(field) offsetof(struct shale_fs_quads, field)

static bool
is_fragment(const struct sc_xlate *x)
{
   return x->model == SpvExecutionModelFragment;
}

/* <W x i32> constant of f(lane). */
static LLVMValueRef
lane_consts(struct sc_xlate *x, uint32_t (*f)(uint32_t))
{
   LLVMValueRef e[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t i = 0; i < x->W; i++)
      e[i] = sc_const_i32(x, f(i));
   return LLVMConstVector(e, x->W);
}

static uint32_t lane_quad(uint32_t i) { return i / 4; }
static uint32_t lane_dx(uint32_t i) { return i & 1; }
static uint32_t lane_dy(uint32_t i) { return (i >> 1) & 1; }
static uint32_t lane_or1(uint32_t i) { return i | 1; }
static uint32_t lane_and1(uint32_t i) { return i & ~1u; }
static uint32_t lane_or2(uint32_t i) { return i | 2; }
static uint32_t lane_and2(uint32_t i) { return i & ~2u; }
static uint32_t quad_lane0(uint32_t i) { return i & ~3u; }
static uint32_t quad_lane1(uint32_t i) { return (i & ~3u) | 1; }
static uint32_t quad_lane2(uint32_t i) { return (i & ~3u) | 2; }

static LLVMValueRef
shuffle(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef v, uint32_t (*f)(uint32_t))
{
   return LLVMBuildShuffleVector(b, v, LLVMGetPoison(LLVMTypeOf(v)), lane_consts(x, f), "");
}

/* Pixel x or y of each lane: quads->x[i / 4] + (i & 1) (or y, (i >> 1) & 1).
 * The quads' coordinates are one vector load (W / 4 words): the tile loop
 * stores each array with one vector store just before the call
 * (sr_tile.c), so the load takes the stored value (a vector load of
 * several scalar stores would wait for them to reach the cache). */
static LLVMValueRef
pixel_coord(struct sc_xlate *x, size_t field, uint32_t (*step)(uint32_t))
{
   LLVMBuilderRef b = x->eb;
   LLVMTypeRef qt = LLVMVectorType(x->t_i32, x->W / 4);
   LLVMValueRef q = LLVMBuildLoad2(b, qt, sc_field_ptr(x, b, x->arg_wg, field), "");
   LLVMSetAlignment(q, 4);
   LLVMValueRef idx[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t i = 0; i < x->W; i++)
      idx[i] = sc_const_i32(x, i / 4);
   LLVMValueRef v = LLVMBuildShuffleVector(b, q, LLVMGetPoison(qt), LLVMConstVector(idx, x->W), "");
   v = LLVMBuildAdd(b, v, lane_consts(x, step), "");
   return LLVMBuildSIToFP(b, v, sc_vec_type(x, x->t_f32), "");
}

/* Where inputs are evaluated (entry block, once): the pixel centre, or the
 * shaded sample's position; the centroid for CENTROID inputs. */
static void
fragment_positions(struct sc_xlate *x)
{
   if (x->frag_pos[0])
      return;
   LLVMBuilderRef b = x->eb;
   LLVMValueRef sid = sc_load_field(x, b, x->arg_wg, QUADS(sample_id), x->t_i32, 4);
   LLVMValueRef per = LLVMBuildICmp(b, LLVMIntNE, sid, sc_const_i32(x, ~0u), "per_sample");
   LLVMValueRef sidx = LLVMBuildSelect(b, per, LLVMBuildAnd(b, sid, sc_const_i32(x, 31), ""),
                                       sc_const_i32(x, 0), "");
   LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, sidx, sc_const_i32(x, 8), ""),
                                   sc_const_i32(x, offsetof(struct shale_fs_context,
                                                            sample_positions)), "");
   LLVMValueRef half = LLVMConstReal(x->t_f32, 0.5);
   LLVMValueRef pervec = sc_splat_with(x, b, per);
   static const size_t qfield[2] = { QUADS(x), QUADS(y) };
   static const size_t cfield[2] = { QUADS(centroid[0]), QUADS(centroid[1]) };
   for (int k = 0; k < 2; k++) {
      LLVMValueRef o = LLVMBuildAdd(b, off, sc_const_i32(x, 4 * k), "");
      LLVMValueRef sp = LLVMBuildGEP2(b, x->t_i8, x->arg_ctx, &o, 1, "");
      LLVMValueRef s = LLVMBuildLoad2(b, x->t_f32, sp, "");
      LLVMSetAlignment(s, 4);
      x->frag_sample[k] = LLVMBuildSelect(b, per, s, half, "");
      LLVMValueRef px = pixel_coord(x, qfield[k], k ? lane_dy : lane_dx);
      x->frag_pos[k] = LLVMBuildFAdd(b, px, sc_splat_with(x, b, x->frag_sample[k]), "");
      LLVMValueRef c = sc_load_field(x, b, x->arg_wg, cfield[k], sc_vec_type(x, x->t_f32), 4);
      x->frag_centroid[k] = LLVMBuildSelect(b, pervec, x->frag_pos[k], c, "");
   }
}

bool
sc_fragment_pixel(struct sc_xlate *x, LLVMValueRef out[3])
{
   if (x->model != SpvExecutionModelFragment)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "a subpass input outside a fragment shader");
   fragment_positions(x);
   /* frag_pos is the pixel plus a sample offset in [0, 1): truncation
    * gives the pixel (window coordinates are never negative). */
   for (int k = 0; k < 2; k++)
      out[k] = LLVMBuildFPToSI(x->eb, x->frag_pos[k], sc_vec_type(x, x->t_i32), "");
   /* The layer: the view index (multiview reads the view's own layer; 0
    * without multiview). */
   out[2] = sc_splat_with(x, x->eb, sc_load_field(x, x->eb, x->arg_ctx,
                                               offsetof(struct shale_fs_context, view_index),
                                               x->t_i32, 4));
   return true;
}

/* A word of a plane equation, marked !invariant.load: the planes do not
 * change while the shader runs, so llvm_jit.c's sink_invariant_loads may
 * move the load below a sampler call to where its value is used (instead
 * of the value living in a register spilled around the call). */
static LLVMValueRef
plane_load(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef pl, size_t offset, LLVMTypeRef type)
{
   LLVMValueRef v = sc_load_field(x, b, pl, offset, type, 4);
   LLVMSetMetadata(v, LLVMGetMDKindIDInContext(x->ctx, "invariant.load", 14),
                   LLVMMDNodeInContext(x->ctx, NULL, 0));
   return v;
}

/* a * px + b * py + c of the plane at address pl, per lane. */
static LLVMValueRef
plane_at(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef pl, LLVMValueRef px, LLVMValueRef py)
{
   LLVMValueRef e[3];
   for (int k = 0; k < 3; k++)
      e[k] = sc_splat_with(x, b, plane_load(x, b, pl, 4 * (size_t)k, x->t_f32));
   LLVMValueRef v = LLVMBuildFAdd(b, LLVMBuildFMul(b, e[0], px, ""), LLVMBuildFMul(b, e[1], py, ""), "");
   return LLVMBuildFAdd(b, v, e[2], "");
}

static LLVMValueRef
planes_ptr(struct sc_xlate *x)
{
   return sc_load_field(x, x->eb, x->arg_wg, QUADS(planes), x->t_ptr, 8);
}

/* The clip w of each lane for perspective-correct inputs: one reciprocal
 * of the 1/w plane (planes[1]) at the pixel or sample position (centroid:
 * at the centroid), in the entry block, which every SMOOTH input then
 * multiplies by (the plane of v/w times w). One division a lane for all
 * inputs; v * RN(1/iw) may differ from RN(v / iw) in the last bit (at
 * most about 1.5 ulp from the exact quotient, against 0.5 for the
 * division), within the spec's interpolation precision (the plane
 * evaluation's own roundings are larger). */
static LLVMValueRef
clip_w(struct sc_xlate *x, bool centroid)
{
   if (!x->frag_w[centroid]) {
      LLVMBuilderRef b = x->eb;
      LLVMValueRef px = centroid ? x->frag_centroid[0] : x->frag_pos[0];
      LLVMValueRef py = centroid ? x->frag_centroid[1] : x->frag_pos[1];
      LLVMValueRef iw =
         plane_at(x, b, sc_field_ptr(x, b, planes_ptr(x), sizeof(struct shale_fs_plane)), px, py);
      x->frag_w[centroid] = LLVMBuildFDiv(b, sc_splat_with(x, b, LLVMConstReal(x->t_f32, 1.0)),
                                          iw, "clip_w");
   }
   return x->frag_w[centroid];
}

static LLVMValueRef
fragment_input(struct sc_xlate *x, uint32_t dest, uint8_t kind, uint8_t interp)
{
   LLVMBuilderRef b = x->b;
   fragment_positions(x);
   x->io.fs.interp[dest] = interp;
   LLVMValueRef planes = planes_ptr(x);
   LLVMValueRef pl = sc_field_ptr(x, b, planes, (2 + (size_t)dest) * sizeof(struct shale_fs_plane));
   uint8_t k = interp & SHALE_INTERP_KIND_MASK;
   if (k == SHALE_INTERP_FLAT) {
      LLVMValueRef c = plane_load(x, b, pl, offsetof(struct shale_fs_plane, c), x->t_i32);
      return from_bits32(x, sc_splat_with(x, b, c), kind);
   }
   if (kind != 0) {
      sc_fail(x, SC_ERROR_INVALID_SPIRV, "integer fragment input without Flat");
      return NULL;
   }
   bool centroid = (interp & SHALE_INTERP_CENTROID) && !(interp & SHALE_INTERP_SAMPLE);
   LLVMValueRef px = centroid ? x->frag_centroid[0] : x->frag_pos[0];
   LLVMValueRef py = centroid ? x->frag_centroid[1] : x->frag_pos[1];
   LLVMValueRef v = plane_at(x, b, pl, px, py);
   if (k == SHALE_INTERP_SMOOTH)
      v = LLVMBuildFMul(b, v, clip_w(x, centroid), "");
   return v;
}

/* Execution modes of the entry point (fragment). */
static bool
fragment_modes(struct sc_xlate *x)
{
   const struct sc_inst *inst;
   for (uint32_t i = 0; (inst = sc_next_exec_mode(x, &i));) {
      switch (inst->w[2]) {
      case SpvExecutionModeEarlyFragmentTests: x->io.fs.early_fragment_tests = 1; break;
      case SpvExecutionModeDepthGreater: x->io.fs.depth_mode = 1; break;
      case SpvExecutionModeDepthLess: x->io.fs.depth_mode = 2; break;
      case SpvExecutionModeDepthUnchanged: x->io.fs.depth_mode = 3; break;
      case SpvExecutionModeOriginUpperLeft:
      case SpvExecutionModeDepthReplacing:
      case SpvExecutionModeXfb:   /* zink puts it on every stage: nothing to capture here */
         break;
      default:
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "fragment execution mode %u", inst->w[2]);
      }
   }
   return true;
}

/* Helper state: the lanes whose writes count (covered, in a quad of the
 * call, not demoted) and the discarded ones (init block). */
static bool
fragment_lane_state(struct sc_xlate *x)
{
   LLVMBuilderRef b = x->ib;
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   x->live_slot = sc_persistent_alloca(x, mt, 1);
   x->kill_slot = sc_persistent_alloca(x, mt, 1);
   LLVMValueRef cov =
      sc_load_field(x, x->eb, x->arg_wg, QUADS(coverage), sc_vec_type(x, x->t_i32), 4);
   LLVMValueRef n = sc_load_field(x, x->eb, x->arg_wg, QUADS(quad_count), x->t_i32, 4);
   LLVMValueRef in_quad = LLVMBuildICmp(b, LLVMIntULT, lane_consts(x, lane_quad),
                                        sc_splat_with(x, b, n), "");
   LLVMValueRef covered = LLVMBuildICmp(b, LLVMIntNE, cov, LLVMConstNull(LLVMTypeOf(cov)), "");
   LLVMBuildStore(b, LLVMBuildAnd(b, in_quad, covered, ""), x->live_slot);
   return fragment_modes(x);
}

LLVMValueRef
sc_stage_live_mask(struct sc_xlate *x)
{
   LLVMValueRef live = LLVMBuildLoad2(x->b, sc_vec_type(x, x->t_i1), x->live_slot, "live");
   return LLVMBuildAnd(x->b, x->mask, live, "");
}

int
sc_stage_guard(struct sc_xlate *x, const struct sc_inst *inst)
{
   if (!is_fragment(x))
      return 0;
   if (sc_opcode_is_atomic(inst->opcode)) {
      x->io.fs.has_side_effects = 1;
      return 1;
   }
   uint32_t ptr;
   switch (inst->opcode) {
   case SpvOpStore:
   case SpvOpCopyMemory:
      ptr = inst->w[1];
      break;
   case SpvOpImageWrite:
      x->io.fs.has_side_effects = 1;
      return 2;
   default:
      return 0;
   }
   const struct sc_inst *d = sc_module_def(x->m, ptr);
   const struct sc_type *t = d ? sc_module_type(x->m, d->type_id) : NULL;
   if (!t || t->kind != SC_T_POINTER)
      return 0;
   switch (t->storage) {
   case SpvStorageClassStorageBuffer:
   case SpvStorageClassUniform:
   case SpvStorageClassPhysicalStorageBuffer:
      x->io.fs.has_side_effects = 1;
      return 2;
   default:
      return 0;
   }
}

/* Marks the lanes of mask discarded (and helpers from now on). */
static void
discard_lanes(struct sc_xlate *x, LLVMValueRef mask)
{
   LLVMBuilderRef b = x->b;
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   LLVMValueRef k = LLVMBuildLoad2(b, mt, x->kill_slot, "");
   LLVMBuildStore(b, LLVMBuildOr(b, k, mask, ""), x->kill_slot);
   LLVMValueRef l = LLVMBuildLoad2(b, mt, x->live_slot, "");
   LLVMBuildStore(b, LLVMBuildAnd(b, l, LLVMBuildNot(b, mask, ""), ""), x->live_slot);
   x->io.fs.can_discard = 1;
}

bool
sc_stage_kill(struct sc_xlate *x)
{
   if (!is_fragment(x) || !x->kill_slot)
      return sc_fail(x, SC_ERROR_INVALID_SPIRV, "discard outside a fragment shader");
   discard_lanes(x, x->mask);
   return true;
}

static bool
fragment_epilogue(struct sc_xlate *x)
{
   LLVMBuilderRef b = x->b;
   x->mask = LLVMConstAllOnes(sc_vec_type(x, x->t_i1));
   LLVMValueRef outputs = sc_load_field(x, b, x->arg_wg, QUADS(outputs), x->t_ptr, 8);
   LLVMValueRef depth = sc_load_field(x, b, x->arg_wg, QUADS(frag_depth), x->t_ptr, 8);
   LLVMValueRef smask = sc_load_field(x, b, x->arg_wg, QUADS(sample_mask), x->t_ptr, 8);
   for (uint32_t i = 0; i < x->nstage_vars; i++) {
      const struct sc_stage_var *v = &x->stage_vars[i];
      if (!v->output)
         continue;
      const struct sc_ptr *p = sc_get_ptr(x, v->var);
      struct sc_val val;
      if (!p || !sc_load_value(x, p, v->type, &val))
         return false;
      for (uint32_t k = 0; k < v->n; k++) {
         uint32_t d = v->dest[k];
         LLVMValueRef at;
         if (d == DEST_SKIP) {
            continue;
         } else if (d == DEST_FRAG_DEPTH) {
            at = depth;
         } else if (d == DEST_SAMPLE_MASK) {
            at = smask;
         } else {
            uint32_t loc = d / 4;
            if (loc < 8 && (x->info->fs_unused_outputs & (1u << loc)))
               continue;   /* nothing reads it (sc_compile_info) */
            if (loc < 8) {
               x->io.fs.outputs_written |= 1u << loc;
               x->io.fs.output_type[loc] = v->kind[k] & KIND_CLASS;
            } else {
               x->io.fs.dual_source = 1;
            }
            at = sc_field_ptr(x, b, outputs, (size_t)d * x->W * 4);
         }
         LLVMValueRef words[2];
         bits32(x, &val, k, v->kind[k], words);   /* never 64-bit (walk_user) */
         LLVMValueRef s = LLVMBuildStore(b, words[0], at);
         LLVMSetAlignment(s, 4);
      }
   }
   LLVMValueRef kill = LLVMBuildLoad2(b, sc_vec_type(x, x->t_i1), x->kill_slot, "");
   kill = LLVMBuildBitCast(b, kill, LLVMIntTypeInContext(x->ctx, x->W), "");
   kill = LLVMBuildZExt(b, kill, x->t_i32, "");
   LLVMValueRef s = LLVMBuildStore(b, kill, sc_field_ptr(x, b, x->arg_wg, QUADS(kill_mask)));
   LLVMSetAlignment(s, 4);
   return true;
}

/* The array size of the Input variable decorated as `builtin`, 0 if none. */
static uint32_t
input_builtin_size(struct sc_xlate *x, uint32_t builtin)
{
   const struct sc_module *m = x->m;
   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      uint32_t b;
      if (inst->opcode != SpvOpVariable || inst->w[3] != SpvStorageClassInput ||
          !sc_module_decoration(m, inst->result_id, SC_NONE, SpvDecorationBuiltIn, &b) ||
          b != builtin)
         continue;
      const struct sc_type *pt = sc_module_type(m, inst->type_id);
      return pt && pt->kind == SC_T_POINTER ? array_size(x, pt->elem) : 0;
   }
   return 0;
}

static bool
fragment_builtin(struct sc_xlate *x, uint32_t builtin, struct sc_val *out)
{
   LLVMBuilderRef b = x->eb;
   struct shale_fs_info *io = &x->io.fs;
   switch (builtin) {
   case SpvBuiltInFragCoord: {
      fragment_positions(x);
      *out = sc_new_val(x, 4, false);
      if (!out->c)
         return false;
      LLVMValueRef planes = planes_ptr(x);
      out->c[0] = x->frag_pos[0];
      out->c[1] = x->frag_pos[1];
      out->c[2] = plane_at(x, b, planes, x->frag_pos[0], x->frag_pos[1]);
      out->c[3] = plane_at(x, b, sc_field_ptr(x, b, planes, sizeof(struct shale_fs_plane)),
                           x->frag_pos[0], x->frag_pos[1]);
      io->reads_frag_coord = 1;
      return true;
   }
   case SpvBuiltInPointCoord: {
      fragment_positions(x);
      *out = sc_new_val(x, 2, false);
      if (!out->c)
         return false;
      LLVMValueRef pc = sc_load_field(x, b, x->arg_wg, QUADS(point_coord), x->t_ptr, 8);
      pc = LLVMBuildSelect(b, LLVMBuildIsNull(b, pc, ""), x->zero_page, pc, "");
      for (int k = 0; k < 2; k++)
         out->c[k] = plane_at(x, b, sc_field_ptr(x, b, pc, k * sizeof(struct shale_fs_plane)),
                              x->frag_pos[0], x->frag_pos[1]);
      io->reads_point_coord = 1;
      return true;
   }
   case SpvBuiltInFrontFacing: {
      *out = sc_new_val(x, 1, true);
      if (!out->c)
         return false;
      LLVMValueRef f = sc_load_field(x, b, x->arg_wg, QUADS(front_facing), x->t_i32, 4);
      out->c[0] = LLVMBuildICmp(b, LLVMIntNE, f, sc_const_i32(x, 0), "");
      io->reads_front_facing = 1;
      return true;
   }
   case SpvBuiltInSampleId: {
      *out = sc_new_val(x, 1, true);
      if (!out->c)
         return false;
      LLVMValueRef sid = sc_load_field(x, b, x->arg_wg, QUADS(sample_id), x->t_i32, 4);
      LLVMValueRef per = LLVMBuildICmp(b, LLVMIntNE, sid, sc_const_i32(x, ~0u), "");
      out->c[0] = LLVMBuildSelect(b, per, sid, sc_const_i32(x, 0), "");
      io->reads_sample_id = 1;
      return true;
   }
   case SpvBuiltInSamplePosition:
      fragment_positions(x);
      *out = sc_new_val(x, 2, true);
      if (!out->c)
         return false;
      out->c[0] = x->frag_sample[0];
      out->c[1] = x->frag_sample[1];
      io->reads_sample_id = 1;
      return true;
   case SpvBuiltInSampleMask:
      *out = sc_new_val(x, 1, false);
      if (!out->c)
         return false;
      out->c[0] = sc_load_field(x, b, x->arg_wg, QUADS(coverage), sc_vec_type(x, x->t_i32), 4);
      io->reads_sample_mask = 1;
      return true;
   case SpvBuiltInHelperInvocation: {
      /* Where it is read: demotion changes it. */
      *out = sc_new_val(x, 1, false);
      if (!out->c)
         return false;
      LLVMValueRef l = LLVMBuildLoad2(x->b, sc_vec_type(x, x->t_i1), x->live_slot, "");
      out->c[0] = LLVMBuildNot(x->b, l, "helper");
      return true;
   }
   case SpvBuiltInLayer:
      io->reads_layer = 1;
      return uniform_u32(x, x->arg_wg, QUADS(layer), out);
   case SpvBuiltInViewportIndex:
      return uniform_u32(x, x->arg_wg, QUADS(viewport_index), out);
   case SpvBuiltInPrimitiveId:
      io->reads_primitive_id = 1;
      return uniform_u32(x, x->arg_wg, QUADS(primitive_id), out);
   case SpvBuiltInViewIndex:
      return uniform_u32(x, x->arg_ctx, offsetof(struct shale_fs_context, view_index), out);
   case SpvBuiltInClipDistance:
   case SpvBuiltInCullDistance: {
      /* The vertex shader's distances, interpolated (SMOOTH planes the
       * rasterizer sets up at SHALE_FS_CLIP_INPUT). */
      uint32_t n = input_builtin_size(x, builtin);
      if (n == 0 || n > 8)
         return sc_fail(x, SC_ERROR_UNSUPPORTED, "%u fragment clip or cull distances", n);
      *out = sc_new_val(x, n, false);
      if (!out->c)
         return false;
      uint32_t first = SHALE_FS_CLIP_INPUT + (builtin == SpvBuiltInCullDistance ? 8 : 0);
      LLVMBuilderRef saved = x->b;
      x->b = b;   /* cached for the whole call: computed in the entry block */
      for (uint32_t i = 0; i < n; i++) {
         out->c[i] = fragment_input(x, first + i, 0, SHALE_INTERP_SMOOTH);
         if (!out->c[i]) {
            x->b = saved;
            return false;
         }
      }
      x->b = saved;
      return true;
   }
   default:
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported fragment built-in %u", builtin);
   }
}

/* ------------------------------------------------------------------------ */
/* Derivatives, demotion                                                     */
/* ------------------------------------------------------------------------ */

enum deriv { DERIV_X, DERIV_Y, DERIV_WIDTH };

/* d/dx or d/dy of one W-lane component from the quad's lanes. */
static LLVMValueRef
derivative(struct sc_xlate *x, LLVMValueRef v, bool dy, bool coarse)
{
   LLVMBuilderRef b = x->b;
   LLVMValueRef hi, lo;
   if (coarse) {
      hi = shuffle(x, b, v, dy ? quad_lane2 : quad_lane1);
      lo = shuffle(x, b, v, quad_lane0);
   } else {
      hi = shuffle(x, b, v, dy ? lane_or2 : lane_or1);
      lo = shuffle(x, b, v, dy ? lane_and2 : lane_and1);
   }
   return LLVMBuildFSub(b, hi, lo, "");
}

LLVMValueRef
sc_stage_derivative(struct sc_xlate *x, LLVMValueRef v, bool dy)
{
   x->io.fs.uses_derivatives = 1;
   return derivative(x, v, dy, true);
}

static bool
emit_derivative(struct sc_xlate *x, const struct sc_inst *inst, enum deriv kind, bool coarse)
{
   const struct sc_val *a = sc_operand(x, inst->w[3], 1, SC_ANY);
   if (!a)
      return false;
   struct sc_val r = sc_new_val(x, a->n, a->uniform);
   if (!r.c)
      return false;
   x->io.fs.uses_derivatives = 1;
   for (uint32_t i = 0; i < a->n; i++) {
      LLVMValueRef v = a->c[i];
      if (a->uniform) {
         r.c[i] = LLVMConstNull(LLVMTypeOf(v));   /* the same in every lane */
         continue;
      }
      if (kind != DERIV_WIDTH) {
         r.c[i] = derivative(x, v, kind == DERIV_Y, coarse);
         continue;
      }
      LLVMTypeRef t = LLVMTypeOf(v);
      LLVMValueRef dx = derivative(x, v, false, coarse);
      LLVMValueRef dy = derivative(x, v, true, coarse);
      dx = sc_intrinsic(x, "llvm.fabs", &t, 1, &dx, 1);
      dy = sc_intrinsic(x, "llvm.fabs", &t, 1, &dy, 1);
      r.c[i] = LLVMBuildFAdd(x->b, dx, dy, "");
   }
   return sc_set(x, inst->result_id, r);
}

bool
sc_emit_stage(struct sc_xlate *x, const struct sc_inst *inst, bool *handled)
{
   *handled = true;
   enum deriv kind;
   bool coarse = false;
   switch (inst->opcode) {
   case SpvOpDPdx: kind = DERIV_X; break;
   case SpvOpDPdy: kind = DERIV_Y; break;
   case SpvOpFwidth: kind = DERIV_WIDTH; break;
   case SpvOpDPdxFine: kind = DERIV_X; break;
   case SpvOpDPdyFine: kind = DERIV_Y; break;
   case SpvOpFwidthFine: kind = DERIV_WIDTH; break;
   case SpvOpDPdxCoarse: kind = DERIV_X; coarse = true; break;
   case SpvOpDPdyCoarse: kind = DERIV_Y; coarse = true; break;
   case SpvOpFwidthCoarse: kind = DERIV_WIDTH; coarse = true; break;
   case SpvOpDemoteToHelperInvocation:
      if (!is_fragment(x) || !x->live_slot)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "demote outside a fragment shader");
      discard_lanes(x, x->mask);
      return true;
   case SpvOpEmitVertex:
   case SpvOpEndPrimitive:
      return sc_geom_emit(x, inst);
   case SpvOpIsHelperInvocationEXT: {
      if (!is_fragment(x) || !x->live_slot)
         return sc_fail(x, SC_ERROR_INVALID_SPIRV, "helper query outside a fragment shader");
      struct sc_val r = sc_new_val(x, 1, false);
      if (!r.c)
         return false;
      LLVMValueRef l = LLVMBuildLoad2(x->b, sc_vec_type(x, x->t_i1), x->live_slot, "");
      r.c[0] = LLVMBuildNot(x->b, l, "helper");
      return sc_set(x, inst->result_id, r);
   }
   default:
      *handled = false;
      return true;
   }
   if (!is_fragment(x))
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "%s outside a fragment shader",
                     sc_opcode_name(inst->opcode));
   return emit_derivative(x, inst, kind, coarse);
}
