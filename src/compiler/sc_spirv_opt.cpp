// SPIR-V legalization through SPIRV-Tools' optimizer, behind a C interface.
//
// SPIRV-Tools 2023.1 (Debian 12) has no C API for its optimizer, so this one
// C++ file wraps spvtools::Optimizer. It sees only words in and words out;
// the rest of the compiler stays C. No exception crosses into C.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include <spirv-tools/optimizer.hpp>
#include <spirv/unified1/spirv.h>

#include "sc_spirv.h"

namespace {

void
set_message(char *message, size_t size, const char *text)
{
   if (message && size) {
      snprintf(message, size, "%s", text);
   }
}

// Function control (Inline, DontInline, Pure, Const) is a hint; the
// translator needs every call inlined, and SPIRV-Tools' inliner leaves
// DontInline functions alone, so the hints are cleared first. The module
// was validated, so instruction lengths can be trusted (a zero length
// stops the walk rather than loop).
std::vector<uint32_t>
clear_function_control(const uint32_t *words, size_t word_count)
{
   std::vector<uint32_t> out(words, words + word_count);
   size_t i = 5;   // the header
   while (i < out.size()) {
      const uint32_t len = out[i] >> 16, opcode = out[i] & 0xffff;
      if (len == 0 || i + len > out.size())
         break;
      if (opcode == SpvOpFunction && len >= 5)
         out[i + 3] = SpvFunctionControlMaskNone;
      i += len;
   }
   return out;
}

} // namespace

extern "C" int
sc_spirv_legalize(int target_env, const uint32_t *words, size_t word_count,
                  const struct sc_spec_constant *spec, uint32_t spec_count,
                  uint32_t **out_words, size_t *out_count,
                  char *message, size_t message_size)
{
   *out_words = nullptr;
   *out_count = 0;
   try {
      std::string first_error;
      spvtools::Optimizer opt(static_cast<spv_target_env>(target_env));
      opt.SetMessageConsumer([&first_error](spv_message_level_t level, const char *,
                                            const spv_position_t &, const char *msg) {
         if (level <= SPV_MSG_ERROR && first_error.empty())
            first_error = msg ? msg : "optimizer error";
      });

      // Specialization: set the requested values, make every spec constant
      // an ordinary constant, then fold what depends on them.
      std::unordered_map<uint32_t, std::vector<uint32_t>> values;
      for (uint32_t i = 0; i < spec_count; i++) {
         std::vector<uint32_t> bits;
         bits.push_back(static_cast<uint32_t>(spec[i].value));
         if (spec[i].size == 8)
            bits.push_back(static_cast<uint32_t>(spec[i].value >> 32));
         values[spec[i].id] = bits;
      }
      opt.RegisterPass(spvtools::CreateFlattenDecorationPass());
      opt.RegisterPass(spvtools::CreateSetSpecConstantDefaultValuePass(values));
      opt.RegisterPass(spvtools::CreateFreezeSpecConstantValuePass());
      opt.RegisterPass(spvtools::CreateFoldSpecConstantOpAndCompositePass());
      opt.RegisterPass(spvtools::CreateUnifyConstantPass());

      // Everything into the entry points, locals into SSA (function control
      // hints cleared first, see clear_function_control). The inliner skips
      // a function whose return is not its last block (an early return in a
      // loop or a switch), so merge-return must give every function a single
      // return first; it wants unreachable blocks gone, hence the dead branch
      // elimination before it (SPIRV-Tools' own legalization order).
      opt.RegisterPass(spvtools::CreateWrapOpKillPass());
      opt.RegisterPass(spvtools::CreateDeadBranchElimPass());
      opt.RegisterPass(spvtools::CreateMergeReturnPass());
      opt.RegisterPass(spvtools::CreateInlineExhaustivePass());
      opt.RegisterPass(spvtools::CreateEliminateDeadFunctionsPass());
      opt.RegisterPass(spvtools::CreatePrivateToLocalPass());
      opt.RegisterPass(spvtools::CreateLocalSingleBlockLoadStoreElimPass());
      opt.RegisterPass(spvtools::CreateLocalSingleStoreElimPass());
      opt.RegisterPass(spvtools::CreateAggressiveDCEPass(true));
      opt.RegisterPass(spvtools::CreateScalarReplacementPass());
      opt.RegisterPass(spvtools::CreateLocalAccessChainConvertPass());
      opt.RegisterPass(spvtools::CreateLocalSingleBlockLoadStoreElimPass());
      opt.RegisterPass(spvtools::CreateLocalSingleStoreElimPass());
      opt.RegisterPass(spvtools::CreateSSARewritePass());
      opt.RegisterPass(spvtools::CreateCCPPass());
      opt.RegisterPass(spvtools::CreateDeadBranchElimPass());
      opt.RegisterPass(spvtools::CreateBlockMergePass());
      opt.RegisterPass(spvtools::CreateSimplificationPass());
      opt.RegisterPass(spvtools::CreateDeadInsertElimPass());
      opt.RegisterPass(spvtools::CreateAggressiveDCEPass(true));
      opt.RegisterPass(spvtools::CreateEliminateDeadConstantPass());

      spvtools::OptimizerOptions options;
      options.set_run_validator(false);   // the caller validated already
      std::vector<uint32_t> result;
      const std::vector<uint32_t> input = clear_function_control(words, word_count);
      if (!opt.Run(input.data(), input.size(), &result, options)) {
         set_message(message, message_size,
                     first_error.empty() ? "SPIR-V legalization failed" : first_error.c_str());
         return -1;
      }
      uint32_t *copy = static_cast<uint32_t *>(malloc(result.size() * sizeof(uint32_t)));
      if (!copy) {
         set_message(message, message_size, "out of memory");
         return -2;
      }
      memcpy(copy, result.data(), result.size() * sizeof(uint32_t));
      *out_words = copy;
      *out_count = result.size();
      return 0;
   } catch (const std::bad_alloc &) {
      set_message(message, message_size, "out of memory");
      return -2;
   } catch (...) {
      set_message(message, message_size, "SPIR-V legalization threw an exception");
      return -1;
   }
}
