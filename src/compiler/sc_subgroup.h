/*
 * Subgroup operations at the SPIR-V level: what the uniformity analysis
 * (sc_cfg.c) needs to know about their results.
 *
 * Design note
 * -----------
 * Owns nothing; pure functions of the instruction. Threading: any.
 */
#ifndef SC_SUBGROUP_H
#define SC_SUBGROUP_H

#include "sc_spirv.h"

/* For a subgroup instruction (OpGroupNonUniform*, the SPV_KHR_shader_ballot
 * and SPV_KHR_subgroup_vote opcodes): 0 when its result is the same in every
 * active lane, 1 when it may differ per lane, 2 when it varies exactly when
 * an operand varies. -1 for any other instruction. */
int sc_subgroup_result_varying(const struct sc_module *m, const struct sc_inst *inst);

#endif
