/* Sampled-image instructions (placeholder: none translated yet). */
#include "llvm_private.h"
