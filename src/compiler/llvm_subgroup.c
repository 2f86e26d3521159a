/* Subgroup operations in SPMD form (placeholder: none translated yet). */
#include "llvm_private.h"

bool
sc_emit_subgroup(struct sc_xlate *x, const struct sc_inst *inst, bool *handled)
{
   (void)x;
   (void)inst;
   *handled = false;
   return true;
}
