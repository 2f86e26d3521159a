/*
 * Control-flow and uniformity analysis of one SPIR-V function, ahead of
 * SPMD translation.
 *
 * Design note
 * -----------
 * Owns: struct sc_cfg and its arrays (sc_cfg_free).
 *
 * Block order: a reverse post-order of the CFG in which a header's merge
 * block (and a loop's continue target) is visited first, so each loop
 * construct occupies one contiguous range [loop.first, loop.last] of
 * positions ending just before its merge block. Every edge goes forward in
 * this order except loop back edges, which go from inside a loop's range to
 * its header. The translator emits blocks in this order with per-block lane
 * masks and closes each loop range with "jump back while any lane took the
 * back edge".
 *
 * Uniformity: varying[id] says whether a value can differ between the lanes
 * of one SPMD call. Sources of divergence: per-invocation built-ins, loads
 * from per-lane (Function/Private) memory, atomics; propagated through
 * operands, through phis at joins of divergent branches, and out of loops
 * that lanes leave in different iterations.
 *
 * Scalar code (one invocation per call, SIMD width 1) has no divergence:
 * every value is uniform and every block of a function with an exit is
 * full. Shaders that use subgroups are refused (their subgroups would shrink
 * to one invocation).
 *
 * Full blocks: a block control dependent only on uniform branches of full
 * blocks (post-dominator based) always runs with the lanes that entered the
 * function, so the translator gives it the entry mask and a scalar "reached"
 * flag; loops made of such blocks become plain scalar loops LLVM can unroll.
 *
 * Slots: a value used in another block than its definition lives in a slot
 * (a stack variable the optimizer turns back into SSA), because a block may
 * be skipped at run time when none of its lanes is active. Blocks are split
 * into segments after each OpControlBarrier (a subgroup may suspend there),
 * and a value used in another segment needs a slot too. Slot value 2 marks
 * values whose slot must only be written on active lanes (a loop can redefine
 * them after some lanes already left with the old value).
 *
 * Threading: one compile, one thread.
 */
#ifndef SC_CFG_H
#define SC_CFG_H

#include "sc_spirv.h"

struct sc_loop {
   uint32_t header, merge, cont;   /* block indices */
   uint32_t first, last;           /* positions in order[] */
   uint32_t parent;                /* enclosing loop or SC_NONE */
   bool divergent;                 /* contains a divergent branch */
};

struct sc_cfg {
   const struct sc_module *m;
   const struct sc_function *f;
   uint32_t nblocks;
   uint32_t norder;
   uint32_t *order;          /* [norder] block indices, emission order */
   uint32_t *pos;            /* [nblocks] position in order or SC_NONE */
   uint32_t *succ_start;     /* [nblocks + 1] into succ */
   uint32_t *succ;           /* successor block indices, terminator order */
   uint32_t *loop_of;        /* [nblocks] innermost loop or SC_NONE */
   uint32_t *loop_ending;    /* [norder] first loop whose range ends here, SC_NONE */
   uint32_t *loop_next_ending; /* [nloops] next (outer) loop ending at the same position */
   uint32_t *header_loop;    /* [nblocks] loop this block heads or SC_NONE */
   struct sc_loop *loops;
   uint32_t nloops;
   uint32_t *def_block;      /* [bound] block defining id, SC_NONE outside the function */
   uint32_t *def_seg;        /* [bound] segment defining id */
   uint32_t *seg_base;       /* [nblocks] first segment of each block */
   uint32_t *seg_last;       /* [nblocks] segment of each block's terminator */
   uint8_t *varying;         /* [bound] */
   uint8_t *slot;            /* [bound] 0: none, 1: slot, 2: masked slot */
   uint8_t *full;            /* [nblocks] runs with every lane that entered, or not at all */
   bool has_barrier;
   bool scalar;              /* one invocation per call: nothing varies */
};

/* scalar: analysis for scalar code (one invocation per call): every value
 * is uniform; SC_ERROR_UNSUPPORTED when the shader uses subgroups. */
enum sc_result sc_cfg_build(struct sc_cfg *cfg, const struct sc_module *m,
                            const struct sc_function *f, bool scalar, char *message,
                            size_t message_size);
void sc_cfg_free(struct sc_cfg *cfg);

/* Per-invocation built-ins differ per lane; the rest are uniform. */
bool sc_builtin_is_varying(uint32_t builtin);

/* Whether an instruction's result is a pointer (SPIR-V logical pointer). */
bool sc_cfg_is_pointer(const struct sc_module *m, uint32_t id);

#endif
