/* Structured block order, loop ranges, uniformity and slot analysis. */
#include "sc_cfg.h"
#include "sc_subgroup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

static void
set_message(char *message, size_t size, const char *text)
{
   if (message && size)
      snprintf(message, size, "%s", text);
}

bool
sc_builtin_is_varying(uint32_t builtin)
{
   switch (builtin) {
   case SpvBuiltInWorkgroupId:
   case SpvBuiltInNumWorkgroups:
   case SpvBuiltInWorkgroupSize:
   case SpvBuiltInSubgroupSize:
   case SpvBuiltInSubgroupId:
   case SpvBuiltInNumSubgroups:
   /* One batch of vertices is one instance of one draw; the quads of one
    * fragment call belong to one primitive. */
   case SpvBuiltInInstanceIndex:
   case SpvBuiltInBaseVertex:
   case SpvBuiltInBaseInstance:
   case SpvBuiltInDrawIndex:
   case SpvBuiltInViewIndex:
   case SpvBuiltInFrontFacing:
   case SpvBuiltInPrimitiveId:
   case SpvBuiltInLayer:
   case SpvBuiltInViewportIndex:
   case SpvBuiltInSampleId:
      return false;
   default:
      return true;
   }
}

bool
sc_cfg_is_pointer(const struct sc_module *m, uint32_t id)
{
   const struct sc_inst *inst = sc_module_def(m, id);
   if (!inst || !inst->type_id)
      return false;
   const struct sc_type *t = sc_module_type(m, inst->type_id);
   return t && t->kind == SC_T_POINTER;
}

/* Block index of a label id, or SC_NONE. */
static uint32_t
block_of(const struct sc_cfg *cfg, uint32_t label)
{
   if (label >= cfg->m->bound)
      return SC_NONE;
   uint32_t b = cfg->m->label_block[label];
   if (b >= cfg->nblocks || cfg->f->blocks[b].label != label)
      return SC_NONE;
   return b;
}

static enum sc_result
build_successors(struct sc_cfg *cfg)
{
   const struct sc_module *m = cfg->m;
   uint32_t total = 0;
   cfg->succ_start = calloc(cfg->nblocks + 1, sizeof(uint32_t));
   if (!cfg->succ_start)
      return SC_ERROR_OUT_OF_MEMORY;
   for (uint32_t b = 0; b < cfg->nblocks; b++) {
      const struct sc_inst *t = &m->insts[cfg->f->blocks[b].term];
      uint32_t n = 0;
      for (unsigned i = 0; i < t->noperands; i++) {
         const struct sc_operand *op = &m->operands[t->first_operand + i];
         if (op->kind == SC_OPERAND_ID && block_of(cfg, t->w[op->offset]) != SC_NONE)
            n++;
      }
      total += n;
   }
   cfg->succ = malloc((total ? total : 1) * sizeof(uint32_t));
   if (!cfg->succ)
      return SC_ERROR_OUT_OF_MEMORY;
   uint32_t k = 0;
   for (uint32_t b = 0; b < cfg->nblocks; b++) {
      const struct sc_inst *t = &m->insts[cfg->f->blocks[b].term];
      cfg->succ_start[b] = k;
      for (unsigned i = 0; i < t->noperands; i++) {
         const struct sc_operand *op = &m->operands[t->first_operand + i];
         uint32_t s;
         if (op->kind == SC_OPERAND_ID &&
             (s = block_of(cfg, t->w[op->offset])) != SC_NONE)
            cfg->succ[k++] = s;
      }
   }
   cfg->succ_start[cfg->nblocks] = k;
   return SC_SUCCESS;
}

/* Children of b in the ordering DFS: merge, continue, then real successors. */
static uint32_t
dfs_children(const struct sc_cfg *cfg, uint32_t b, uint32_t *out)
{
   const struct sc_module *m = cfg->m;
   const struct sc_block *blk = &cfg->f->blocks[b];
   uint32_t n = 0;
   if (blk->merge != SC_NONE) {
      const struct sc_inst *mi = &m->insts[blk->merge];
      uint32_t s = block_of(cfg, mi->w[1]);
      if (s != SC_NONE)
         out[n++] = s;
      if (mi->opcode == SpvOpLoopMerge && (s = block_of(cfg, mi->w[2])) != SC_NONE)
         out[n++] = s;
   }
   for (uint32_t i = cfg->succ_start[b]; i < cfg->succ_start[b + 1]; i++)
      out[n++] = cfg->succ[i];
   return n;
}

static enum sc_result
build_order(struct sc_cfg *cfg, char *message, size_t message_size)
{
   uint32_t nb = cfg->nblocks;
   uint32_t maxchildren = 2;
   for (uint32_t b = 0; b < nb; b++) {
      uint32_t n = cfg->succ_start[b + 1] - cfg->succ_start[b] + 2;
      if (n > maxchildren)
         maxchildren = n;
   }
   uint32_t *stack_b = malloc(nb * sizeof(uint32_t));
   uint32_t *stack_i = malloc(nb * sizeof(uint32_t));
   uint32_t *children = malloc(maxchildren * sizeof(uint32_t));
   uint32_t *post = malloc(nb * sizeof(uint32_t));
   uint8_t *seen = calloc(nb, 1);
   cfg->order = malloc(nb * sizeof(uint32_t));
   cfg->pos = malloc(nb * sizeof(uint32_t));
   if (!stack_b || !stack_i || !children || !post || !seen || !cfg->order || !cfg->pos) {
      free(stack_b), free(stack_i), free(children), free(post), free(seen);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   uint32_t sp = 0, npost = 0;
   stack_b[sp] = 0;
   stack_i[sp++] = 0;
   seen[0] = 1;
   while (sp) {
      uint32_t b = stack_b[sp - 1];
      uint32_t n = dfs_children(cfg, b, children);
      uint32_t i = stack_i[sp - 1];
      while (i < n && seen[children[i]])
         i++;
      if (i < n) {
         stack_i[sp - 1] = i + 1;
         seen[children[i]] = 1;
         stack_b[sp] = children[i];
         stack_i[sp++] = 0;
      } else {
         post[npost++] = b;
         sp--;
      }
   }
   for (uint32_t b = 0; b < nb; b++)
      cfg->pos[b] = SC_NONE;
   cfg->norder = npost;
   for (uint32_t i = 0; i < npost; i++) {
      cfg->order[i] = post[npost - 1 - i];
      cfg->pos[cfg->order[i]] = i;
   }
   free(stack_b), free(stack_i), free(children), free(post), free(seen);

   /* Loops and their ranges. */
   const struct sc_module *m = cfg->m;
   cfg->header_loop = malloc(nb * sizeof(uint32_t));
   cfg->loop_of = malloc(nb * sizeof(uint32_t));
   cfg->loop_ending = malloc((npost ? npost : 1) * sizeof(uint32_t));
   cfg->loops = calloc(nb, sizeof(struct sc_loop));
   cfg->loop_next_ending = malloc(nb * sizeof(uint32_t));
   if (!cfg->header_loop || !cfg->loop_of || !cfg->loop_ending || !cfg->loops ||
       !cfg->loop_next_ending)
      return SC_ERROR_OUT_OF_MEMORY;
   for (uint32_t b = 0; b < nb; b++) {
      cfg->header_loop[b] = SC_NONE;
      cfg->loop_of[b] = SC_NONE;
   }
   for (uint32_t i = 0; i < npost; i++)
      cfg->loop_ending[i] = SC_NONE;
   /* Headers in order, so a parent loop gets a lower index than its children. */
   for (uint32_t p = 0; p < npost; p++) {
      uint32_t b = cfg->order[p];
      const struct sc_block *blk = &cfg->f->blocks[b];
      if (blk->merge == SC_NONE || m->insts[blk->merge].opcode != SpvOpLoopMerge)
         continue;
      const struct sc_inst *mi = &m->insts[blk->merge];
      struct sc_loop *l = &cfg->loops[cfg->nloops];
      l->header = b;
      l->merge = block_of(cfg, mi->w[1]);
      l->cont = block_of(cfg, mi->w[2]);
      if (l->merge == SC_NONE || l->cont == SC_NONE || cfg->pos[l->merge] == SC_NONE ||
          cfg->pos[l->merge] <= p) {
         set_message(message, message_size, "unstructured loop");
         return SC_ERROR_UNSUPPORTED;
      }
      l->first = p;
      l->last = cfg->pos[l->merge] - 1;
      l->parent = SC_NONE;
      cfg->header_loop[b] = cfg->nloops++;
   }
   for (uint32_t li = 0; li < cfg->nloops; li++) {
      struct sc_loop *l = &cfg->loops[li];
      /* The innermost earlier loop whose range holds this header is the parent. */
      for (uint32_t pj = li; pj-- > 0;) {
         if (cfg->loops[pj].first < l->first && cfg->loops[pj].last >= l->first) {
            if (cfg->loops[pj].last < l->last) {
               set_message(message, message_size, "overlapping loop constructs");
               return SC_ERROR_UNSUPPORTED;
            }
            l->parent = pj;
            break;
         }
      }
      for (uint32_t p = l->first; p <= l->last; p++)
         cfg->loop_of[cfg->order[p]] = li;
   }
   /* Loops ending at one position, innermost (latest header) first. */
   for (uint32_t li = cfg->nloops; li-- > 0;) {
      uint32_t end = cfg->loops[li].last;
      cfg->loop_next_ending[li] = SC_NONE;
      uint32_t *link = &cfg->loop_ending[end];
      while (*link != SC_NONE)
         link = &cfg->loop_next_ending[*link];
      *link = li;
   }

   /* Every edge goes forward except back edges to the header of a loop
    * whose range holds the source. */
   for (uint32_t b = 0; b < nb; b++) {
      if (cfg->pos[b] == SC_NONE)
         continue;
      for (uint32_t i = cfg->succ_start[b]; i < cfg->succ_start[b + 1]; i++) {
         uint32_t s = cfg->succ[i];
         if (cfg->pos[s] > cfg->pos[b])
            continue;
         uint32_t li = cfg->header_loop[s];
         if (li != SC_NONE && cfg->pos[b] >= cfg->loops[li].first &&
             cfg->pos[b] <= cfg->loops[li].last)
            continue;
         set_message(message, message_size, "unstructured control flow");
         return SC_ERROR_UNSUPPORTED;
      }
   }
   return SC_SUCCESS;
}

static bool
loop_contains(const struct sc_cfg *cfg, uint32_t loop, uint32_t block)
{
   for (uint32_t l = cfg->loop_of[block]; l != SC_NONE; l = cfg->loops[l].parent)
      if (l == loop)
         return true;
   return false;
}

/* Whether an operand is a value id (not a type, label or literal). */
static bool
is_value_operand(const struct sc_module *m, const struct sc_operand *op, uint32_t id)
{
   if (op->kind != SC_OPERAND_ID)
      return false;
   const struct sc_inst *d = sc_module_def(m, id);
   return d && d->opcode != SpvOpLabel && d->opcode != SpvOpFunction &&
          !(d->opcode >= SpvOpTypeVoid && d->opcode <= SpvOpTypeForwardPointer);
}

/* Records that id is used in block ub; pointer-producing instructions are
 * recomputed where used, so their operands count as used there too (but
 * a pointer phi is read from its own incoming storage). */
static void
note_use(struct sc_cfg *cfg, uint32_t id, uint32_t ub, uint32_t us, unsigned depth)
{
   const struct sc_module *m = cfg->m;
   if (id >= m->bound || cfg->def_block[id] == SC_NONE || depth > 64)
      return;
   const struct sc_inst *d = sc_module_def(m, id);
   if (d->opcode == SpvOpPhi && sc_cfg_is_pointer(m, id))
      return;
   if (d->opcode != SpvOpVariable && sc_cfg_is_pointer(m, id)) {
      for (unsigned i = 0; i < d->noperands; i++) {
         const struct sc_operand *op = &m->operands[d->first_operand + i];
         if (op->kind != SC_OPERAND_ID)
            continue;
         uint32_t v = d->w[op->offset];
         if (is_value_operand(m, op, v))
            note_use(cfg, v, ub, us, depth + 1);
      }
      return;
   }
   if (d->opcode == SpvOpVariable)
      return;
   uint32_t db = cfg->def_block[id];
   if (cfg->def_seg[id] == us)
      return;
   uint8_t need = 1;
   uint32_t dl = cfg->loop_of[db];
   if (dl != SC_NONE && !loop_contains(cfg, dl, ub))
      need = 2;
   if (cfg->slot[id] < need)
      cfg->slot[id] = need;
}

/* Whether f is a geometry shader's entry point: its lanes are primitives,
 * each with its own PrimitiveId (PrimitiveIdIn). */
static bool
is_geometry_entry(const struct sc_module *m, const struct sc_function *f)
{
   for (uint32_t i = 0; i < m->nentry_points; i++)
      if (m->entry_points[i].function == f->id &&
          m->entry_points[i].model == SpvExecutionModelGeometry)
         return true;
   return false;
}

static bool
is_varying_variable(const struct sc_module *m, const struct sc_function *f, const struct sc_inst *var)
{
   uint32_t storage = var->w[3];
   uint32_t builtin;
   if (storage == SpvStorageClassFunction || storage == SpvStorageClassPrivate ||
       storage == SpvStorageClassOutput)
      return true;
   if (storage == SpvStorageClassInput) {
      if (sc_module_decoration(m, var->result_id, SC_NONE, SpvDecorationBuiltIn, &builtin))
         return sc_builtin_is_varying(builtin) ||
                (builtin == SpvBuiltInPrimitiveId && is_geometry_entry(m, f));
      return true;
   }
   return false;
}

/* Whether OpImageRead inst reads a subpass input (SubpassData): at each
 * fragment's own pixel, whatever its operands. */
static bool
reads_subpass_input(const struct sc_module *m, const struct sc_inst *inst)
{
   const struct sc_inst *img = inst->nwords > 3 ? sc_module_def(m, inst->w[3]) : NULL;
   struct sc_image_type it;
   return img && img->nwords > 1 && sc_module_image_type(m, img->w[1], &it) &&
          it.dim == SpvDimSubpassData;
}

/* A branch is divergent when its condition / selector is varying. */
static bool
block_diverges(const struct sc_cfg *cfg, uint32_t b)
{
   const struct sc_inst *t = &cfg->m->insts[cfg->f->blocks[b].term];
   if (t->opcode == SpvOpBranchConditional || t->opcode == SpvOpSwitch) {
      uint32_t c = t->w[1];
      return c < cfg->m->bound && cfg->varying[c];
   }
   return false;
}

/* Marks the blocks reachable from two different successors of divergent
 * block d without following back edges of loops that contain d. */
static void
mark_joins(struct sc_cfg *cfg, uint32_t d, uint8_t *join, uint32_t *reach, uint32_t *queue)
{
   uint32_t nb = cfg->nblocks;
   for (uint32_t b = 0; b < nb; b++)
      reach[b] = SC_NONE;
   for (uint32_t i = cfg->succ_start[d]; i < cfg->succ_start[d + 1]; i++) {
      uint32_t s0 = cfg->succ[i];
      uint32_t tag = s0;
      uint32_t head = 0, tail = 0;
      if (reach[s0] == tag)
         continue;
      if (reach[s0] != SC_NONE)
         join[s0] = 1;
      else
         reach[s0] = tag;
      queue[tail++] = s0;
      while (head < tail) {
         uint32_t b = queue[head++];
         if (b == d)
            continue;
         for (uint32_t k = cfg->succ_start[b]; k < cfg->succ_start[b + 1]; k++) {
            uint32_t s = cfg->succ[k];
            uint32_t hl = cfg->header_loop[s];
            if (hl != SC_NONE && loop_contains(cfg, hl, d) && loop_contains(cfg, hl, b))
               continue;   /* a back edge of a loop around d */
            if (reach[s] == tag)
               continue;
            if (reach[s] != SC_NONE) {
               join[s] = 1;
               continue;
            }
            reach[s] = tag;
            if (tail < nb)
               queue[tail++] = s;
         }
      }
   }
}

static enum sc_result
analyze_values(struct sc_cfg *cfg)
{
   const struct sc_module *m = cfg->m;
   const struct sc_function *f = cfg->f;
   uint32_t nb = cfg->nblocks;
   uint8_t *join = calloc(nb, 1);
   uint32_t *reach = malloc(nb * sizeof(uint32_t));
   uint32_t *queue = malloc(nb * sizeof(uint32_t));
   if (!join || !reach || !queue) {
      free(join), free(reach), free(queue);
      return SC_ERROR_OUT_OF_MEMORY;
   }

   /* Definitions. Function parameters do not exist (everything is inlined).
    * Segments: blocks split after each OpControlBarrier. */
   uint32_t seg = 0;
   for (uint32_t b = 0; b < nb; b++) {
      const struct sc_block *blk = &f->blocks[b];
      cfg->seg_base[b] = seg;
      for (uint32_t i = blk->first; i <= blk->term; i++) {
         const struct sc_inst *inst = &m->insts[i];
         if (inst->result_id) {
            cfg->def_block[inst->result_id] = b;
            cfg->def_seg[inst->result_id] = seg;
         }
         if (inst->opcode == SpvOpControlBarrier) {
            cfg->has_barrier = true;
            seg++;
         }
      }
      cfg->seg_last[b] = seg++;
   }

   /* Uniformity to a fixed point. Global variables start as well. Scalar
    * code has one invocation per call: nothing varies. */
   for (uint32_t i = 0; i < m->ninsts && !cfg->scalar; i++) {
      const struct sc_inst *inst = &m->insts[i];
      if (inst->opcode == SpvOpVariable && inst->w[3] != SpvStorageClassFunction &&
          is_varying_variable(m, f, inst))
         cfg->varying[inst->result_id] = 1;
   }
   bool changed = !cfg->scalar;
   while (changed) {
      changed = false;
      for (uint32_t p = 0; p < cfg->norder; p++) {
         uint32_t b = cfg->order[p];
         const struct sc_block *blk = &f->blocks[b];
         for (uint32_t i = blk->first; i <= blk->term; i++) {
            const struct sc_inst *inst = &m->insts[i];
            uint32_t r = inst->result_id;
            if (!r || cfg->varying[r])
               continue;
            bool v = false;
            switch (inst->opcode) {
            case SpvOpVariable:
               v = is_varying_variable(m, f, inst);
               break;
            case SpvOpPhi:
               if (join[b]) {
                  v = true;
                  break;
               }
               for (uint32_t k = 3; k + 1 < inst->nwords; k += 2) {
                  uint32_t val = inst->w[k];
                  uint32_t pb = block_of(cfg, inst->w[k + 1]);
                  if (val < m->bound && cfg->varying[val])
                     v = true;
                  /* Leaving a loop whose lanes exit in different iterations. */
                  for (uint32_t l = pb != SC_NONE ? cfg->loop_of[pb] : SC_NONE; l != SC_NONE;
                       l = cfg->loops[l].parent)
                     if (cfg->loops[l].divergent && !loop_contains(cfg, l, b))
                        v = true;
               }
               break;
            default: {
               if (sc_opcode_is_atomic(inst->opcode)) {
                  v = true;   /* each lane sees its own order of the updates */
                  break;
               }
               if (inst->opcode == SpvOpIsHelperInvocationEXT) {
                  v = true;   /* per lane, no operands */
                  break;
               }
               if (inst->opcode == SpvOpImageRead && reads_subpass_input(m, inst)) {
                  v = true;   /* each lane reads its own pixel */
                  break;
               }
               int sg = sc_subgroup_result_varying(m, inst);
               if (sg == 0 || sg == 1) {
                  v = sg == 1;
                  break;
               }
               for (unsigned k = 0; k < inst->noperands && !v; k++) {
                  const struct sc_operand *op = &m->operands[inst->first_operand + k];
                  uint32_t id = inst->w[op->offset];
                  if (op->kind == SC_OPERAND_ID && id < m->bound && cfg->varying[id])
                     v = true;
               }
               break;
            }
            }
            if (v) {
               cfg->varying[r] = 1;
               changed = true;
            }
         }
         if (block_diverges(cfg, b)) {
            uint32_t l = cfg->loop_of[b];
            for (; l != SC_NONE; l = cfg->loops[l].parent) {
               if (!cfg->loops[l].divergent) {
                  cfg->loops[l].divergent = true;
                  changed = true;
               }
            }
         }
      }
      /* Joins of divergent branches and values leaving divergent loops. */
      for (uint32_t b = 0; b < nb; b++)
         if (cfg->pos[b] != SC_NONE && block_diverges(cfg, b))
            mark_joins(cfg, b, join, reach, queue);
      for (uint32_t p = 0; p < cfg->norder; p++) {
         uint32_t b = cfg->order[p];
         const struct sc_block *blk = &f->blocks[b];
         for (uint32_t i = blk->first; i <= blk->term; i++) {
            const struct sc_inst *inst = &m->insts[i];
            for (unsigned k = 0; k < inst->noperands; k++) {
               const struct sc_operand *op = &m->operands[inst->first_operand + k];
               uint32_t id = inst->w[op->offset];
               if (op->kind != SC_OPERAND_ID || id >= m->bound || cfg->varying[id] ||
                   cfg->def_block[id] == SC_NONE)
                  continue;
               uint32_t ub = b;
               if (inst->opcode == SpvOpPhi && (k % 2) == 0 && k >= 2) {
                  ub = block_of(cfg, inst->w[op->offset + 1]);
                  if (ub == SC_NONE)
                     continue;
               }
               for (uint32_t l = cfg->loop_of[cfg->def_block[id]]; l != SC_NONE;
                    l = cfg->loops[l].parent) {
                  if (cfg->loops[l].divergent && !loop_contains(cfg, l, ub)) {
                     cfg->varying[id] = 1;
                     changed = true;
                     break;
                  }
               }
            }
         }
      }
   }

   /* Slots. */
   for (uint32_t p = 0; p < cfg->norder; p++) {
      uint32_t b = cfg->order[p];
      const struct sc_block *blk = &f->blocks[b];
      uint32_t useg = cfg->seg_base[b];
      for (uint32_t i = blk->first; i <= blk->term; i++) {
         const struct sc_inst *inst = &m->insts[i];
         if (inst->opcode == SpvOpPhi) {
            for (uint32_t k = 3; k + 1 < inst->nwords; k += 2) {
               uint32_t pb = block_of(cfg, inst->w[k + 1]);
               if (pb != SC_NONE)
                  note_use(cfg, inst->w[k], pb, cfg->seg_last[pb], 0);
            }
            continue;
         }
         for (unsigned k = 0; k < inst->noperands; k++) {
            const struct sc_operand *op = &m->operands[inst->first_operand + k];
            uint32_t id = inst->w[op->offset];
            if (is_value_operand(m, op, id))
               note_use(cfg, id, b, useg, 0);
         }
         if (inst->opcode == SpvOpControlBarrier)
            useg++;
      }
   }
   free(join), free(reach), free(queue);
   return SC_SUCCESS;
}

/* Blocks whose lane mask is always the entry mask ("full"): a block runs
 * for all the lanes that entered the function unless it is control
 * dependent on a divergent branch, or on a branch in a block that is not
 * full itself. Control dependence comes from post-dominators (bit sets,
 * with a virtual exit after every block without successors). Without an
 * exit from some block (an infinite loop), nothing is full. */
static enum sc_result
analyze_full(struct sc_cfg *cfg)
{
   uint32_t nb = cfg->nblocks;
   cfg->full = calloc(nb, 1);
   if (!cfg->full)
      return SC_ERROR_OUT_OF_MEMORY;
   if (nb > 4096)
      return SC_SUCCESS;   /* quadratic sets: too big to be worth it */
   uint32_t words = (nb + 63) / 64;
   uint64_t *pd = malloc((size_t)nb * words * sizeof(uint64_t));
   uint64_t *tmp = malloc(words * sizeof(uint64_t));
   if (!pd || !tmp) {
      free(pd), free(tmp);
      return SC_ERROR_OUT_OF_MEMORY;
   }
#define PD(b) (pd + (size_t)(b) * words)
#define HAS(set, i) (((set)[(i) / 64] >> ((i) % 64)) & 1)
   /* Post-dominator sets to a fixed point, from "everything" down. */
   for (uint32_t b = 0; b < nb; b++) {
      bool exit = cfg->succ_start[b] == cfg->succ_start[b + 1];
      for (uint32_t w = 0; w < words; w++)
         PD(b)[w] = exit ? 0 : ~0ull;
      PD(b)[b / 64] |= 1ull << (b % 64);
   }
   bool changed = !cfg->scalar;
   while (changed) {
      changed = false;
      for (uint32_t p = cfg->norder; p-- > 0;) {
         uint32_t b = cfg->order[p];
         if (cfg->succ_start[b] == cfg->succ_start[b + 1])
            continue;
         for (uint32_t w = 0; w < words; w++)
            tmp[w] = ~0ull;
         for (uint32_t i = cfg->succ_start[b]; i < cfg->succ_start[b + 1]; i++)
            for (uint32_t w = 0; w < words; w++)
               tmp[w] &= PD(cfg->succ[i])[w];
         tmp[b / 64] |= 1ull << (b % 64);
         for (uint32_t w = 0; w < words; w++) {
            if (tmp[w] != PD(b)[w]) {
               PD(b)[w] = tmp[w];
               changed = true;
            }
         }
      }
   }
   /* A block that reaches no exit keeps "everything": give up. Reuse full
    * as "reaches an exit" meanwhile. */
   changed = true;
   while (changed) {
      changed = false;
      for (uint32_t p = cfg->norder; p-- > 0;) {
         uint32_t b = cfg->order[p];
         bool r = cfg->succ_start[b] == cfg->succ_start[b + 1];
         for (uint32_t i = cfg->succ_start[b]; i < cfg->succ_start[b + 1] && !r; i++)
            r = cfg->full[cfg->succ[i]];
         if (r && !cfg->full[b]) {
            cfg->full[b] = 1;
            changed = true;
         }
      }
   }
   for (uint32_t p = 0; p < cfg->norder; p++) {
      if (!cfg->full[cfg->order[p]]) {
         memset(cfg->full, 0, nb);
         free(pd), free(tmp);
         return SC_SUCCESS;
      }
   }
   for (uint32_t p = 0; p < cfg->norder; p++)
      cfg->full[cfg->order[p]] = 1;
   /* b depends on branch a when b post-dominates a successor of a but does
    * not strictly post-dominate a. */
   changed = true;
   while (changed) {
      changed = false;
      for (uint32_t p = 0; p < cfg->norder; p++) {
         uint32_t a = cfg->order[p];
         uint32_t first = cfg->succ_start[a], end = cfg->succ_start[a + 1];
         bool branch = false;
         for (uint32_t i = first + 1; i < end; i++)
            if (cfg->succ[i] != cfg->succ[first])
               branch = true;
         if (!branch || (cfg->full[a] && !block_diverges(cfg, a)))
            continue;
         for (uint32_t i = first; i < end; i++) {
            const uint64_t *ps = PD(cfg->succ[i]);
            for (uint32_t b = 0; b < nb; b++) {
               if (!cfg->full[b] || !HAS(ps, b))
                  continue;
               if (b != a && HAS(PD(a), b))
                  continue;
               cfg->full[b] = 0;
               changed = true;
            }
         }
      }
   }
#undef PD
#undef HAS
   free(pd), free(tmp);
   return SC_SUCCESS;
}

/* Subgroup built-ins: their values depend on the SIMD width. */
static bool
is_subgroup_builtin(uint32_t builtin)
{
   switch (builtin) {
   case SpvBuiltInSubgroupSize:
   case SpvBuiltInSubgroupId:
   case SpvBuiltInNumSubgroups:
   case SpvBuiltInSubgroupLocalInvocationId:
   case SpvBuiltInSubgroupEqMask:
   case SpvBuiltInSubgroupGeMask:
   case SpvBuiltInSubgroupGtMask:
   case SpvBuiltInSubgroupLeMask:
   case SpvBuiltInSubgroupLtMask:
      return true;
   default:
      return false;
   }
}

/* Scalar code runs one invocation per call, so subgroups would have one
 * invocation: a shader that can observe its subgroups (subgroup
 * instructions or built-ins) keeps the width the device reports. */
static enum sc_result
check_scalar(const struct sc_module *m, char *message, size_t message_size)
{
   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      uint32_t builtin;
      if (sc_subgroup_result_varying(m, inst) >= 0 ||
          (inst->opcode == SpvOpVariable &&
           sc_module_decoration(m, inst->result_id, SC_NONE, SpvDecorationBuiltIn, &builtin) &&
           is_subgroup_builtin(builtin))) {
         set_message(message, message_size, "scalar code: the shader uses subgroups");
         return SC_ERROR_UNSUPPORTED;
      }
   }
   return SC_SUCCESS;
}

enum sc_result
sc_cfg_build(struct sc_cfg *cfg, const struct sc_module *m, const struct sc_function *f,
             bool scalar, char *message, size_t message_size)
{
   memset(cfg, 0, sizeof(*cfg));
   cfg->m = m;
   cfg->f = f;
   cfg->nblocks = f->nblocks;
   cfg->scalar = scalar;
   if (!f->nblocks) {
      set_message(message, message_size, "entry point has no body");
      return SC_ERROR_INVALID_SPIRV;
   }
   if (scalar) {
      enum sc_result r = check_scalar(m, message, message_size);
      if (r != SC_SUCCESS)
         return r;
   }
   cfg->def_block = malloc(m->bound * sizeof(uint32_t));
   cfg->def_seg = malloc(m->bound * sizeof(uint32_t));
   cfg->seg_base = malloc(f->nblocks * sizeof(uint32_t));
   cfg->seg_last = malloc(f->nblocks * sizeof(uint32_t));
   cfg->varying = calloc(m->bound, 1);
   cfg->slot = calloc(m->bound, 1);
   if (!cfg->def_block || !cfg->def_seg || !cfg->seg_base || !cfg->seg_last || !cfg->varying ||
       !cfg->slot)
      return SC_ERROR_OUT_OF_MEMORY;
   memset(cfg->def_block, 0xff, m->bound * sizeof(uint32_t));
   memset(cfg->def_seg, 0xff, m->bound * sizeof(uint32_t));
   enum sc_result r = build_successors(cfg);
   if (r == SC_SUCCESS)
      r = build_order(cfg, message, message_size);
   if (r == SC_SUCCESS)
      r = analyze_values(cfg);
   if (r == SC_SUCCESS)
      r = analyze_full(cfg);
   return r;
}

void
sc_cfg_free(struct sc_cfg *cfg)
{
   free(cfg->order);
   free(cfg->pos);
   free(cfg->succ_start);
   free(cfg->succ);
   free(cfg->loop_of);
   free(cfg->loop_ending);
   free(cfg->loop_next_ending);
   free(cfg->header_loop);
   free(cfg->loops);
   free(cfg->def_block);
   free(cfg->def_seg);
   free(cfg->seg_base);
   free(cfg->seg_last);
   free(cfg->varying);
   free(cfg->slot);
   free(cfg->full);
   memset(cfg, 0, sizeof(*cfg));
}
