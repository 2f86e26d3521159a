/* placeholder: being written */
#include "check.h"
int main(void) { SKIP("not written yet"); }
