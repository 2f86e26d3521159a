/* Subgroup operations: uniformity of their results for sc_cfg.c. */
#include "sc_subgroup.h"

#include <spirv/unified1/spirv.h>

int
sc_subgroup_result_varying(const struct sc_module *m, const struct sc_inst *inst)
{
   (void)m;
   switch (inst->opcode) {
   /* One value for the whole subgroup. */
   case SpvOpGroupNonUniformAll:
   case SpvOpGroupNonUniformAny:
   case SpvOpGroupNonUniformAllEqual:
   case SpvOpGroupNonUniformBroadcast:
   case SpvOpGroupNonUniformBroadcastFirst:
   case SpvOpGroupNonUniformBallot:
   case SpvOpSubgroupBallotKHR:
   case SpvOpSubgroupFirstInvocationKHR:
   case SpvOpSubgroupReadInvocationKHR:
   case SpvOpSubgroupAllKHR:
   case SpvOpSubgroupAnyKHR:
   case SpvOpSubgroupAllEqualKHR:
      return 0;
   /* Per invocation whatever the operands. */
   case SpvOpGroupNonUniformElect:
   case SpvOpGroupNonUniformInverseBallot:
      return 1;
   /* Lane reads and functions of the operands alone. */
   case SpvOpGroupNonUniformBallotBitExtract:
   case SpvOpGroupNonUniformBallotFindLSB:
   case SpvOpGroupNonUniformBallotFindMSB:
   case SpvOpGroupNonUniformShuffle:
   case SpvOpGroupNonUniformShuffleXor:
   case SpvOpGroupNonUniformShuffleUp:
   case SpvOpGroupNonUniformShuffleDown:
   case SpvOpGroupNonUniformQuadBroadcast:
   case SpvOpGroupNonUniformQuadSwap:
      return 2;
   /* A count of the value's bits, or of the bits below each invocation. */
   case SpvOpGroupNonUniformBallotBitCount:
      return inst->nwords > 4 && inst->w[4] == SpvGroupOperationReduce ? 2 : 1;
   default:
      break;
   }
   if (inst->opcode >= SpvOpGroupNonUniformIAdd && inst->opcode <= SpvOpGroupNonUniformLogicalXor)
      /* Reductions are uniform; scans and clustered reductions are not. */
      return inst->nwords > 4 && inst->w[4] == SpvGroupOperationReduce ? 0 : 1;
   return -1;
}
