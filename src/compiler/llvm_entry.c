/* The compute entry point around the translated body: subgroup loop,
 * resumable bodies and frames for barriers (see shader_abi.h "Barriers"). */
#include "llvm_private.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>
#include <spirv/unified1/spirv.h>

/* ------------------------------------------------------------------------ */
/* Barriers                                                                  */
/* ------------------------------------------------------------------------ */

/* Suspends the subgroup: the slots are saved to its frame and the body
 * returns the resume index; the next call with that index reloads them and
 * continues after the barrier. The save / reload code is written by
 * finish_barriers, when every slot is known. */
bool
sc_emit_barrier(struct sc_xlate *x)
{
   if (!x->barrier_mode) {
      LLVMBuildFence(x->b, LLVMAtomicOrderingSequentiallyConsistent, false, "");
      return true;
   }
   if (x->nresumes == x->cap_resumes) {
      uint32_t cap = x->cap_resumes ? x->cap_resumes * 2 : 8;
      void *p = realloc(x->resumes, cap * sizeof(*x->resumes));
      if (!p)
         return sc_fail(x, SC_ERROR_OUT_OF_MEMORY, "out of memory");
      x->resumes = p;
      x->cap_resumes = cap;
   }
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   if (!x->cur_mask)
      x->cur_mask = sc_persistent_alloca(x, mt, 1);
   struct sc_resume *r = &x->resumes[x->nresumes++];
   r->save = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "suspend");
   r->resume = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "resume");
   r->cont = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "resumed");
   LLVMBuildStore(x->b, x->mask, x->cur_mask);
   LLVMBuildBr(x->b, r->save);
   LLVMPositionBuilderAtEnd(x->b, r->cont);
   if (x->block != SC_NONE && x->cfg->full[x->block])
      x->mask = x->entry_mask;
   else
      x->mask = LLVMBuildLoad2(x->b, mt, x->cur_mask, "mask");
   x->seg = x->nseg++;
   return true;
}

static LLVMValueRef
frame_slot(struct sc_xlate *x, LLVMBuilderRef b, uint32_t offset)
{
   LLVMValueRef off = LLVMConstInt(x->t_i64, offset, false);
   return LLVMBuildGEP2(b, x->t_i8, x->arg_frame, &off, 1, "");
}

/* Copies persistent slot a between its stack home and its frame place (src
 * to dst; the frame side is byte-aligned). Arrays (per-lane variables) are
 * copied with memcpy: SROA would split an array load and store into one
 * access per element. */
static void
copy_slot(struct sc_xlate *x, LLVMBuilderRef b, LLVMValueRef dst, LLVMValueRef src,
          LLVMValueRef a)
{
   LLVMTypeRef t = LLVMGetAllocatedType(a);
   bool to_frame = src == a;
   if (LLVMGetTypeKind(t) == LLVMArrayTypeKind) {
      uint64_t size = LLVMABISizeOfType(LLVMGetModuleDataLayout(x->mod), t);
      unsigned align = LLVMGetAlignment(a);
      LLVMBuildMemCpy(b, dst, to_frame ? 1 : align, src, to_frame ? align : 1,
                      LLVMConstInt(x->t_i64, size, false));
      return;
   }
   LLVMValueRef v = LLVMBuildLoad2(b, t, src, "");
   LLVMValueRef st = LLVMBuildStore(b, v, dst);
   LLVMSetAlignment(to_frame ? st : v, 1);
}

/* ---- Which slots each barrier must keep ----
 *
 * A slot needs saving at a barrier only when, after the resume, some path
 * reads it before writing all of it: liveness of the slots' allocas over
 * the body's LLVM blocks, computed before the save and reload code exists.
 * Reads are loads and the masked, memset and memcpy intrinsics; only a store
 * of the whole alloca kills. A slot whose address reaches anything else
 * (a call, a stored pointer, a select) counts as live everywhere. */

typedef uint32_t BITSET_WORD;
#define BITSET_WORDS(n) (((n) + 31) / 32)
#define BITSET_TEST(s, i) (((s)[(i) / 32] >> ((i) % 32)) & 1u)
#define BITSET_SET(s, i) ((s)[(i) / 32] |= 1u << ((i) % 32))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Open-addressing map from LLVM objects (values, blocks) to indices. */
struct ptr_map {
   const void **keys;
   uint32_t *vals;
   uint32_t mask;
};

static bool
ptr_map_init(struct sc_xlate *x, struct ptr_map *m, uint32_t count)
{
   uint32_t cap = 16;
   while (cap < 2 * count)
      cap *= 2;
   m->keys = sc_alloc(x, cap * sizeof(*m->keys));
   m->vals = sc_alloc(x, cap * sizeof(*m->vals));
   m->mask = cap - 1;
   return m->keys && m->vals;
}

static uint32_t *
ptr_map_slot(struct ptr_map *m, const void *key, bool insert)
{
   uint32_t h = (uint32_t)(((uintptr_t)key >> 4) * 2654435761u) & m->mask;
   while (m->keys[h] && m->keys[h] != key)
      h = (h + 1) & m->mask;
   if (!m->keys[h]) {
      if (!insert)
         return NULL;
      m->keys[h] = key;
   }
   return &m->vals[h];
}

static bool
is_intrinsic_call(LLVMValueRef inst, const char *const *names, unsigned count)
{
   LLVMValueRef callee = LLVMGetCalledValue(inst);
   if (!callee || !LLVMIsAFunction(callee))
      return false;
   size_t len;
   const char *name = LLVMGetValueName2(callee, &len);
   for (unsigned i = 0; i < count; i++)
      if (strncmp(name, names[i], strlen(names[i])) == 0)
         return true;
   return false;
}

static const char *const slot_readers[] = {
   "llvm.masked.load.", "llvm.masked.store.", "llvm.masked.gather.", "llvm.masked.scatter.",
   "llvm.memset.", "llvm.memcpy.", "llvm.lifetime.",
};

/* Records v (an alloca, or an address computed from it) as slot i's, and
 * checks that every use of it is one the liveness below understands. */
static bool
map_slot_addresses(struct sc_xlate *x, struct ptr_map *addr, LLVMValueRef v, uint32_t i,
                   unsigned depth)
{
   *ptr_map_slot(addr, v, true) = i;
   for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      switch (LLVMGetInstructionOpcode(user)) {
      case LLVMLoad:
         break;
      case LLVMStore:
         if (LLVMGetOperand(user, 0) == v)
            return false;   /* the address itself is stored */
         break;
      case LLVMGetElementPtr:
      case LLVMBitCast:
         if (LLVMGetOperand(user, 0) != v || depth > 8 ||
             !map_slot_addresses(x, addr, user, i, depth + 1))
            return false;
         break;
      case LLVMCall:
         if (!is_intrinsic_call(user, slot_readers, ARRAY_SIZE(slot_readers)))
            return false;
         break;
      default:
         return false;
      }
   }
   return true;
}

/* Sets live[k * words ..] to the slots that barrier k must save: those live
 * on entry to the block it resumes in. */
static bool
barrier_liveness(struct sc_xlate *x, BITSET_WORD *live, uint32_t words)
{
   uint32_t nblocks = LLVMCountBasicBlocks(x->fn);
   uint32_t ninst = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(x->fn); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
         ninst++;
   struct ptr_map addr, blocks;
   if (!ptr_map_init(x, &addr, ninst + x->npersist) || !ptr_map_init(x, &blocks, nblocks))
      return false;
   BITSET_WORD *always = sc_alloc(x, words * sizeof(BITSET_WORD));
   BITSET_WORD *use = sc_alloc(x, (size_t)nblocks * words * sizeof(BITSET_WORD));
   BITSET_WORD *def = sc_alloc(x, (size_t)nblocks * words * sizeof(BITSET_WORD));
   BITSET_WORD *in = sc_alloc(x, (size_t)nblocks * words * sizeof(BITSET_WORD));
   LLVMBasicBlockRef *order = sc_alloc(x, nblocks * sizeof(*order));
   if (!always || !use || !def || !in || !order)
      return false;
   for (uint32_t i = 0; i < x->npersist; i++)
      if (!map_slot_addresses(x, &addr, x->persist[i], i, 0))
         BITSET_SET(always, i);
   uint32_t n = 0;
   for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(x->fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      *ptr_map_slot(&blocks, bb, true) = n;
      order[n] = bb;
      BITSET_WORD *u = use + (size_t)n * words, *d = def + (size_t)n * words;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
         unsigned nops = (unsigned)LLVMGetNumOperands(i);
         LLVMOpcode op = LLVMGetInstructionOpcode(i);
         for (unsigned k = 0; k < nops; k++) {
            uint32_t *slot = ptr_map_slot(&addr, LLVMGetOperand(i, k), false);
            if (!slot || BITSET_TEST(d, *slot))
               continue;
            LLVMValueRef a = x->persist[*slot];
            if (op == LLVMStore && k == 1) {
               /* A store to the alloca itself of its whole type kills. */
               if (LLVMGetOperand(i, 1) == a &&
                   LLVMTypeOf(LLVMGetOperand(i, 0)) == LLVMGetAllocatedType(a))
                  BITSET_SET(d, *slot);
               continue;
            }
            if (op == LLVMGetElementPtr || op == LLVMBitCast)
               continue;   /* an address, not an access */
            BITSET_SET(u, *slot);
         }
      }
      n++;
   }
   LLVMBasicBlockRef *cont_of = sc_alloc(x, n * sizeof(*cont_of));
   if (!cont_of)
      return false;
   for (uint32_t k = 0; k < x->nresumes; k++) {
      uint32_t *si = ptr_map_slot(&blocks, x->resumes[k].save, false);
      if (si)
         cont_of[*si] = x->resumes[k].cont;
   }
   /* in = use | (out & ~def), out = union of the successors' in. */
   BITSET_WORD *out = sc_alloc(x, words * sizeof(BITSET_WORD));
   if (!out)
      return false;
   bool changed = true;
   while (changed) {
      changed = false;
      for (uint32_t b = n; b-- > 0;) {
         memset(out, 0, words * sizeof(BITSET_WORD));
         LLVMValueRef term = LLVMGetBasicBlockTerminator(order[b]);
         unsigned nsucc = term ? LLVMGetNumSuccessors(term) : 1;
         for (unsigned s = 0; s < nsucc; s++) {
            /* A barrier's save block (no terminator yet) goes on, after the
             * resume, where the barrier's code continues. */
            LLVMBasicBlockRef succ = term ? LLVMGetSuccessor(term, s) : cont_of[b];
            uint32_t *si = succ ? ptr_map_slot(&blocks, succ, false) : NULL;
            if (!si)
               continue;
            for (uint32_t w = 0; w < words; w++)
               out[w] |= in[(size_t)*si * words + w];
         }
         for (uint32_t w = 0; w < words; w++) {
            size_t at = (size_t)b * words + w;
            BITSET_WORD v = use[at] | (out[w] & ~def[at]);
            if (v != in[at]) {
               in[at] = v;
               changed = true;
            }
         }
      }
   }
   for (uint32_t k = 0; k < x->nresumes; k++) {
      uint32_t *bi = ptr_map_slot(&blocks, x->resumes[k].cont, false);
      for (uint32_t w = 0; w < words; w++)
         live[(size_t)k * words + w] = always[w] | (bi ? in[(size_t)*bi * words + w] : ~(BITSET_WORD)0);
   }
   return true;
}

/* Lays out the persistent slots after the per-lane variables and writes
 * each barrier's save and reload code. */
static void
finish_barriers(struct sc_xlate *x)
{
   LLVMTargetDataRef td = LLVMGetModuleDataLayout(x->mod);
   uint32_t *offs = sc_alloc(x, (x->npersist + 1) * sizeof(uint32_t));
   if (!offs)
      return;
   uint32_t off = (x->lane_frame_size + 15) & ~15u;
   for (uint32_t i = 0; i < x->npersist; i++) {
      LLVMTypeRef t = LLVMGetAllocatedType(x->persist[i]);
      uint32_t size = (uint32_t)LLVMABISizeOfType(td, t);
      uint32_t align = LLVMABIAlignmentOfType(td, t);
      if (LLVMGetAlignment(x->persist[i]) > align)
         align = LLVMGetAlignment(x->persist[i]);   /* byte arrays of vectors */
      off = (off + align - 1) / align * align;
      offs[i] = off;
      off += size;
   }
   x->frame_size = (off + 63) & ~63u;
   uint32_t words = BITSET_WORDS(x->npersist ? x->npersist : 1);
   BITSET_WORD *live = sc_alloc(x, (size_t)(x->nresumes ? x->nresumes : 1) * words *
                                      sizeof(BITSET_WORD));
   if (!live)
      return;
   if (!barrier_liveness(x, live, words))
      memset(live, 0xff, (size_t)x->nresumes * words * sizeof(BITSET_WORD));
   LLVMBuilderRef b = LLVMCreateBuilderInContext(x->ctx);
   for (uint32_t k = 0; k < x->nresumes; k++) {
      const BITSET_WORD *keep = live + (size_t)k * words;
      LLVMPositionBuilderAtEnd(b, x->resumes[k].save);
      for (uint32_t i = 0; i < x->npersist; i++)
         if (BITSET_TEST(keep, i))
            copy_slot(x, b, frame_slot(x, b, offs[i]), x->persist[i], x->persist[i]);
      LLVMBuildRet(b, sc_const_i32(x, k + 1));
      LLVMPositionBuilderAtEnd(b, x->resumes[k].resume);
      for (uint32_t i = 0; i < x->npersist; i++)
         if (BITSET_TEST(keep, i))
            copy_slot(x, b, x->persist[i], frame_slot(x, b, offs[i]), x->persist[i]);
      LLVMBuildBr(b, x->resumes[k].cont);
   }
   LLVMDisposeBuilder(b);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

static void
init_types(struct sc_xlate *x)
{
   x->t_void = LLVMVoidTypeInContext(x->ctx);
   x->t_i1 = LLVMInt1TypeInContext(x->ctx);
   x->t_i8 = LLVMInt8TypeInContext(x->ctx);
   x->t_i16 = LLVMInt16TypeInContext(x->ctx);
   x->t_i32 = LLVMInt32TypeInContext(x->ctx);
   x->t_i64 = LLVMInt64TypeInContext(x->ctx);
   x->t_f16 = LLVMHalfTypeInContext(x->ctx);
   x->t_f32 = LLVMFloatTypeInContext(x->ctx);
   x->t_f64 = LLVMDoubleTypeInContext(x->ctx);
   x->t_ptr = LLVMPointerTypeInContext(x->ctx, 0);
}

static void
add_fn_attr(struct sc_xlate *x, LLVMValueRef fn, const char *key, const char *value)
{
   LLVMAttributeRef a = LLVMCreateStringAttribute(x->ctx, key, strlen(key), value, strlen(value));
   LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, a);
}

static void
add_enum_attr(struct sc_xlate *x, LLVMValueRef fn, unsigned index, const char *name)
{
   unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
   LLVMAddAttributeAtIndex(fn, index, LLVMCreateEnumAttribute(x->ctx, kind, 0));
}

void
sc_set_function_attrs(struct sc_xlate *x, LLVMValueRef fn)
{
   char width[16];
   snprintf(width, sizeof(width), "%u", x->W * 32);
   add_fn_attr(x, fn, "prefer-vector-width", width);
   add_fn_attr(x, fn, "min-legal-vector-width", width);
   add_enum_attr(x, fn, LLVMAttributeFunctionIndex, "nounwind");
}

/* The body: one subgroup of W lanes, from the first block to the end.
 * Without barriers: void body(ctx, wg, sg). With them it is resumable:
 * i32 body(ctx, wg, sg, frame, resume) returns the barrier to resume at
 * (1..n) or SC_BODY_DONE, and starts at the top when resume is 0. */
#define SC_BODY_DONE UINT32_MAX

static bool
build_body(struct sc_xlate *x)
{
   LLVMTypeRef params[5] = { x->t_ptr, x->t_ptr, x->t_i32, x->t_ptr, x->t_i32 };
   LLVMTypeRef fty = x->barrier_mode ? LLVMFunctionType(x->t_i32, params, 5, false)
                                     : LLVMFunctionType(x->t_void, params, 4, false);
   x->fn = LLVMAddFunction(x->mod, "sc_subgroup", fty);
   LLVMSetLinkage(x->fn, LLVMInternalLinkage);
   sc_set_function_attrs(x, x->fn);
   add_enum_attr(x, x->fn, 1, "noalias");
   add_enum_attr(x, x->fn, 2, "noalias");
   x->arg_ctx = LLVMGetParam(x->fn, 0);
   x->arg_wg = LLVMGetParam(x->fn, 1);
   x->arg_sg = LLVMGetParam(x->fn, 2);
   x->arg_frame = LLVMGetParam(x->fn, 3);
   add_enum_attr(x, x->fn, 4, "noalias");
   if (x->barrier_mode)
      x->arg_resume = LLVMGetParam(x->fn, 4);
   x->entry = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "entry");
   x->init = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "init");
   LLVMPositionBuilderAtEnd(x->eb, x->entry);
   LLVMPositionBuilderAtEnd(x->ib, x->init);

   /* Not a persistent slot: a resumed call counts again from zero, so it
    * polls at the first loop header it reaches. */
   x->poll_count = LLVMBuildAlloca(x->eb, x->t_i32, "polls");
   LLVMBuildStore(x->eb, sc_const_i32(x, 0), x->poll_count);
   x->cancelled = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "cancelled");

   LLVMValueRef lanes[SHALE_MAX_SIMD_WIDTH];
   for (uint32_t i = 0; i < x->W; i++)
      lanes[i] = sc_const_i32(x, i);
   x->lane_ids = LLVMConstVector(lanes, x->W);

   uint32_t nb = x->f->nblocks;
   x->inmask = sc_alloc(x, nb * sizeof(LLVMValueRef));
   x->bb_head = sc_alloc(x, nb * sizeof(LLVMBasicBlockRef));
   if (!x->inmask || !x->bb_head)
      return false;
   x->reach = sc_alloc(x, nb * sizeof(LLVMValueRef));
   x->bb_body = sc_alloc(x, nb * sizeof(LLVMBasicBlockRef));
   if (!x->reach || !x->bb_body)
      return false;
   LLVMTypeRef mt = sc_vec_type(x, x->t_i1);
   /* Full blocks entered only through uniform branches of full blocks are
    * jumped to directly and need no "reached" flag. */
   uint8_t *flagged = sc_alloc(x, nb);
   if (!flagged)
      return false;
   flagged[x->cfg->order[0]] = 1;
   for (uint32_t p = 0; p < x->cfg->norder; p++) {
      uint32_t b = x->cfg->order[p];
      const struct sc_inst *t = &x->m->insts[x->f->blocks[b].term];
      bool uniform_edges = x->cfg->full[b] &&
         (t->opcode == SpvOpBranch ||
          ((t->opcode == SpvOpBranchConditional || t->opcode == SpvOpSwitch) &&
           (t->w[1] >= x->m->bound || !x->cfg->varying[t->w[1]])));
      for (uint32_t i = x->cfg->succ_start[b]; i < x->cfg->succ_start[b + 1]; i++)
         if (!uniform_edges)
            flagged[x->cfg->succ[i]] = 1;
   }
   for (uint32_t p = 0; p < x->cfg->norder; p++) {
      uint32_t b = x->cfg->order[p];
      if (x->cfg->full[b] && !flagged[b]) {
         /* x->reach[b] stays NULL. */
      } else if (x->cfg->full[b]) {
         x->reach[b] = sc_persistent_alloca(x, x->t_i1, 1);
         LLVMBuildStore(x->ib, LLVMConstNull(x->t_i1), x->reach[b]);
      } else {
         x->inmask[b] = sc_persistent_alloca(x, mt, 1);
         LLVMBuildStore(x->ib, LLVMConstNull(mt), x->inmask[b]);
      }
      x->bb_head[b] = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "block");
      x->bb_body[b] = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "body");
   }
   LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(x->ctx, x->fn, "exit");

   /* Lanes past the workgroup's last invocation start inactive. */
   uint32_t total = x->local_size[0] * x->local_size[1] * x->local_size[2];
   LLVMValueRef init;
   if (sc_is_graphics(x)) {
      init = sc_stage_entry_mask(x);
   } else if (total % x->W == 0) {
      init = LLVMConstAllOnes(mt);
   } else {
      /* In the entry block, which every call (and resume) runs. */
      LLVMValueRef first = LLVMBuildMul(x->eb, x->arg_sg, sc_const_i32(x, x->W), "");
      LLVMValueRef idx = LLVMBuildAdd(x->eb, sc_splat_with(x, x->eb, first), x->lane_ids, "");
      init = LLVMBuildICmp(x->eb, LLVMIntULT, idx, sc_splat_with(x, x->eb, sc_const_i32(x, total)),
                           "entry_mask");
   }
   x->entry_mask = init;
   uint32_t b0 = x->cfg->order[0];
   if (x->cfg->full[b0])
      LLVMBuildStore(x->ib, LLVMConstInt(x->t_i1, 1, false), x->reach[b0]);
   else
      LLVMBuildStore(x->ib, init, x->inmask[b0]);

   x->block = SC_NONE;
   x->seg = x->nseg++;
   if (!sc_memory_init(x))
      return false;
   if (sc_has_stage_io(x) && !sc_stage_prologue(x))
      return false;

   for (uint32_t p = 0; p < x->cfg->norder; p++) {
      LLVMBasicBlockRef next = p + 1 < x->cfg->norder ? x->bb_head[x->cfg->order[p + 1]] : exit;
      if (!sc_emit_block(x, p, next))
         return false;
   }
   LLVMPositionBuilderAtEnd(x->b, exit);
   if (sc_has_stage_io(x) && !sc_stage_epilogue(x))
      return false;
   /* Cancelled: the outputs stay as they are (undefined), and a resumable
    * body reports this subgroup finished. */
   for (int k = 0; k < 2; k++) {
      if (k)
         LLVMPositionBuilderAtEnd(x->b, x->cancelled);
      if (x->barrier_mode)
         LLVMBuildRet(x->b, sc_const_i32(x, SC_BODY_DONE));
      else
         LLVMBuildRetVoid(x->b);
   }
   LLVMBuildBr(x->ib, x->bb_head[x->cfg->order[0]]);

   if (!x->barrier_mode) {
      LLVMBuildBr(x->eb, x->init);
      return true;
   }
   finish_barriers(x);
   LLVMValueRef sw = LLVMBuildSwitch(x->eb, x->arg_resume, exit, x->nresumes + 1);
   LLVMAddCase(sw, sc_const_i32(x, 0), x->init);
   for (uint32_t k = 0; k < x->nresumes; k++)
      LLVMAddCase(sw, sc_const_i32(x, k + 1), x->resumes[k].resume);
   return x->err == SC_SUCCESS;
}

/* void name(const struct shale_cs_context *, const struct shale_cs_workgroup *):
 * runs the body for each subgroup of the workgroup. With barriers, it runs
 * every unfinished subgroup up to its next barrier, round after round, with
 * the subgroups' states and frames in the workgroup's scratch memory. */
static bool
build_compute_entry(struct sc_xlate *x, const char *name)
{
   LLVMTypeRef params[2] = { x->t_ptr, x->t_ptr };
   LLVMTypeRef fty = LLVMFunctionType(x->t_void, params, 2, false);
   LLVMValueRef fn = LLVMAddFunction(x->mod, name, fty);
   sc_set_function_attrs(x, fn);
   LLVMValueRef ctx = LLVMGetParam(fn, 0), wg = LLVMGetParam(fn, 1);
   LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(x->ctx, fn, "entry");
   LLVMBasicBlockRef round = LLVMAppendBasicBlockInContext(x->ctx, fn, "round");
   LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(x->ctx, fn, "loop");
   LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(x->ctx, fn, "run");
   LLVMBasicBlockRef next_bb = LLVMAppendBasicBlockInContext(x->ctx, fn, "next");
   LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(x->ctx, fn, "round_end");
   LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(x->ctx, fn, "done");
   LLVMBuilderRef b = x->b;
   LLVMTypeRef body_ty = LLVMGlobalGetValueType(x->fn);
   LLVMValueRef done_state = sc_const_i32(x, SC_BODY_DONE);

   LLVMPositionBuilderAtEnd(b, entry);
   LLVMValueRef states = NULL, frames = NULL, pending = NULL;
   LLVMValueRef sp = LLVMConstInt(x->t_i64, offsetof(struct shale_cs_workgroup, scratch), 0);
   LLVMValueRef scratch = LLVMBuildLoad2(b, x->t_ptr, LLVMBuildGEP2(b, x->t_i8, wg, &sp, 1, ""), "");
   if (x->barrier_mode) {
      pending = LLVMBuildAlloca(b, x->t_i1, "pending");
      states = scratch;
      LLVMValueRef fo = LLVMConstInt(x->t_i64, ((uint64_t)x->subgroups * 4 + 63) & ~63ull, 0);
      frames = LLVMBuildGEP2(b, x->t_i8, states, &fo, 1, "");
      LLVMValueRef args[4] = { states, LLVMConstInt(x->t_i8, 0, 0),
                               LLVMConstInt(x->t_i64, (uint64_t)x->subgroups * 4, 0),
                               LLVMConstInt(x->t_i1, 0, 0) };
      LLVMTypeRef ov[2] = { x->t_ptr, x->t_i64 };
      sc_intrinsic(x, "llvm.memset", ov, 2, args, 4);
   }
   LLVMBuildBr(b, round);

   LLVMPositionBuilderAtEnd(b, round);
   if (pending)
      LLVMBuildStore(b, LLVMConstInt(x->t_i1, 0, 0), pending);
   LLVMBuildBr(b, loop);

   LLVMPositionBuilderAtEnd(b, loop);
   LLVMValueRef sg = LLVMBuildPhi(b, x->t_i32, "sg");
   LLVMValueRef st = NULL, st_ptr = NULL;
   if (x->barrier_mode) {
      LLVMValueRef idx = LLVMBuildZExt(b, sg, x->t_i64, "");
      st_ptr = LLVMBuildGEP2(b, x->t_i32, states, &idx, 1, "");
      st = LLVMBuildLoad2(b, x->t_i32, st_ptr, "");
      LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, st, done_state, ""), run, next_bb);
   } else {
      LLVMBuildBr(b, run);
   }

   LLVMPositionBuilderAtEnd(b, run);
   if (x->barrier_mode) {
      LLVMValueRef idx = LLVMBuildZExt(b, sg, x->t_i64, "");
      LLVMValueRef fo = LLVMBuildMul(b, idx, LLVMConstInt(x->t_i64, x->frame_size, 0), "");
      LLVMValueRef frame = LLVMBuildGEP2(b, x->t_i8, frames, &fo, 1, "");
      LLVMValueRef args[5] = { ctx, wg, sg, frame, st };
      LLVMValueRef nst = LLVMBuildCall2(b, body_ty, x->fn, args, 5, "");
      LLVMBuildStore(b, nst, st_ptr);
      LLVMValueRef again = LLVMBuildICmp(b, LLVMIntNE, nst, done_state, "");
      LLVMValueRef p = LLVMBuildLoad2(b, x->t_i1, pending, "");
      LLVMBuildStore(b, LLVMBuildOr(b, p, again, ""), pending);
   } else {
      /* Subgroups run one after the other: they share one frame. */
      LLVMValueRef args[4] = { ctx, wg, sg, scratch };
      LLVMBuildCall2(b, body_ty, x->fn, args, 4, "");
   }
   LLVMBuildBr(b, next_bb);

   LLVMPositionBuilderAtEnd(b, next_bb);
   LLVMValueRef next = LLVMBuildAdd(b, sg, sc_const_i32(x, 1), "");
   LLVMValueRef more = LLVMBuildICmp(b, LLVMIntULT, next, sc_const_i32(x, x->subgroups), "");
   LLVMBuildCondBr(b, more, loop, after);
   LLVMValueRef in_vals[2] = { sc_const_i32(x, 0), next };
   LLVMBasicBlockRef in_bbs[2] = { round, next_bb };
   LLVMAddIncoming(sg, in_vals, in_bbs, 2);

   LLVMPositionBuilderAtEnd(b, after);
   if (pending)
      LLVMBuildCondBr(b, LLVMBuildLoad2(b, x->t_i1, pending, ""), round, done);
   else
      LLVMBuildBr(b, done);
   LLVMPositionBuilderAtEnd(b, done);
   LLVMBuildRetVoid(b);
   return true;
}

/* Checks the workgroup size (found by the caller before legalization). */
static bool
check_local_size(struct sc_xlate *x)
{
   uint64_t total = (uint64_t)x->local_size[0] * x->local_size[1] * x->local_size[2];
   if (total == 0 || total > 65536)
      return sc_fail(x, SC_ERROR_UNSUPPORTED, "workgroup of %llu invocations",
                     (unsigned long long)total);
   x->subgroups = (uint32_t)((total + x->W - 1) / x->W);
   return true;
}

enum sc_result
sc_translate(struct sc_xlate *x, const struct sc_entry_point *ep, const char *name)
{
   init_types(x);
   x->ids = calloc(x->m->bound, sizeof(*x->ids));
   if (!x->ids)
      return SC_ERROR_OUT_OF_MEMORY;
   for (uint32_t i = 0; i < x->m->bound; i++)
      x->ids[i].cache_seg = SC_NONE;
   x->b = LLVMCreateBuilderInContext(x->ctx);
   x->eb = LLVMCreateBuilderInContext(x->ctx);
   x->ib = LLVMCreateBuilderInContext(x->ctx);

   bool ok = false;
   x->ep = ep;
   if (ep->model == SpvExecutionModelTessellationControl) {
      /* A workgroup of OutputVertices invocations per patch (llvm_tess.c). */
      if (sc_tess_modes(x)) {
         x->local_size[0] = x->io.tcs.output_vertices;
         x->local_size[1] = x->local_size[2] = 1;
         if (check_local_size(x)) {
            x->barrier_mode = x->cfg->has_barrier && x->subgroups > 1;
            ok = build_body(x) && build_compute_entry(x, name);
         }
      }
   } else if (sc_is_graphics(x)) {
      x->subgroups = 1;
      ok = (ep->model != SpvExecutionModelTessellationEvaluation || sc_tess_modes(x)) &&
           build_body(x) && sc_stage_build_entry(x, name);
   } else if (ep->model != SpvExecutionModelGLCompute) {
      sc_fail(x, SC_ERROR_UNSUPPORTED, "unsupported shader stage (execution model %u)",
              ep->model);
   } else if (check_local_size(x)) {
      x->barrier_mode = x->cfg->has_barrier && x->subgroups > 1;
      ok = build_body(x) && build_compute_entry(x, name);
   }
   LLVMDisposeBuilder(x->b);
   LLVMDisposeBuilder(x->eb);
   LLVMDisposeBuilder(x->ib);
   if (!ok && x->err == SC_SUCCESS)
      sc_fail(x, SC_ERROR_INTERNAL, "translation failed");
   return x->err;
}

void
sc_xlate_finish(struct sc_xlate *x)
{
   sc_arena_free(x);
   free(x->ids);
   free(x->bindings);
   free(x->shared_offset);
   free(x->persist);
   free(x->resumes);
   x->ids = NULL;
}
