/* Subgroup operations: uniformity of their results (placeholder: none yet). */
#include "sc_subgroup.h"

int
sc_subgroup_result_varying(const struct sc_module *m, const struct sc_inst *inst)
{
   (void)m;
   (void)inst;
   return -1;
}
