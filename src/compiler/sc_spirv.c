/* SPIR-V validation (SPIRV-Tools) and parsing into struct sc_module. */
#include "sc_spirv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv-tools/libspirv.h>
#include <spirv/unified1/spirv.h>

/* Largest id bound we accept; SPIR-V's universal limit is 0x3FFFFF. */
#define SC_MAX_BOUND 0x400000u
/* Largest flattened value (scalars) we let a type have. */
#define SC_MAX_NCOMP (1u << 20)

static void __attribute__((format(printf, 3, 4)))
set_message(char *message, size_t size, const char *fmt, ...)
{
   if (message && size) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(message, size, fmt, ap);
      va_end(ap);
   }
}

int
sc_spirv_target_env(const uint32_t *words, size_t nwords, uint32_t api_version)
{
   uint32_t minor = api_version ? VK_API_VERSION_MINOR(api_version) : 3;
   uint32_t spv_minor = 0;
   if (nwords >= 2 && words[0] == SpvMagicNumber)
      spv_minor = (words[1] >> 8) & 0xff;
   /* The lowest Vulkan environment that accepts the module's version. */
   spv_target_env env = SPV_ENV_VULKAN_1_0;
   if (spv_minor >= 6 || minor >= 3)
      env = SPV_ENV_VULKAN_1_3;
   else if (spv_minor == 5 || minor == 2)
      env = SPV_ENV_VULKAN_1_2;
   else if (spv_minor == 4)
      env = SPV_ENV_VULKAN_1_1_SPIRV_1_4;
   else if (spv_minor >= 1 || minor == 1)
      env = SPV_ENV_VULKAN_1_1;
   return env;
}

int
sc_spirv_add_vmm_extension(const uint32_t *words, size_t nwords, uint32_t **out,
                           size_t *out_count)
{
   static const char ext[] = "SPV_KHR_vulkan_memory_model";
   const size_t ext_words = (sizeof(ext) - 1) / 4 + 1;   /* with the NUL, padded */
   *out = NULL;
   *out_count = 0;
   if (!words || nwords < 5 || words[0] != SpvMagicNumber || ((words[1] >> 8) & 0xff) >= 5 ||
       (words[1] >> 16) != 1)
      return 0;
   bool vmm = false;
   size_t pos = 5, after_caps = 5;
   while (pos < nwords) {
      const uint32_t count = words[pos] >> 16, op = words[pos] & 0xffff;
      if (count == 0 || pos + count > nwords)
         return 0;   /* malformed: validation says so */
      if (op == SpvOpCapability && count == 2) {
         if (words[pos + 1] == SpvCapabilityVulkanMemoryModel ||
             words[pos + 1] == SpvCapabilityVulkanMemoryModelDeviceScope)
            vmm = true;
         after_caps = pos + count;
      } else if (op == SpvOpExtension) {
         if (count == 1 + ext_words && memcmp(&words[pos + 1], ext, sizeof(ext)) == 0)
            return 0;   /* declared */
      } else {
         break;   /* past the capability and extension section */
      }
      pos += count;
   }
   if (!vmm)
      return 0;
   uint32_t *copy = malloc((nwords + 1 + ext_words) * sizeof(uint32_t));
   if (!copy)
      return -1;
   memcpy(copy, words, after_caps * sizeof(uint32_t));
   copy[after_caps] = (uint32_t)(1 + ext_words) << 16 | SpvOpExtension;
   memset(&copy[after_caps + 1], 0, ext_words * sizeof(uint32_t));
   memcpy(&copy[after_caps + 1], ext, sizeof(ext));
   memcpy(&copy[after_caps + 1 + ext_words], &words[after_caps],
          (nwords - after_caps) * sizeof(uint32_t));
   *out = copy;
   *out_count = nwords + 1 + ext_words;
   return 0;
}

enum sc_result
sc_spirv_validate(int target_env, const uint32_t *words, size_t nwords, uint32_t flags,
                  char *message, size_t message_size)
{
   if (!words || nwords < 5 || words[0] != SpvMagicNumber) {
      set_message(message, message_size, "%s", "not a SPIR-V module (bad header)");
      return SC_ERROR_INVALID_SPIRV;
   }
   spv_context ctx = spvContextCreate((spv_target_env)target_env);
   spv_validator_options opts = spvValidatorOptionsCreate();
   if (!ctx || !opts) {
      spvContextDestroy(ctx);
      spvValidatorOptionsDestroy(opts);
      return SC_ERROR_OUT_OF_MEMORY;
   }
   if (flags & SC_COMPILE_SCALAR_BLOCK_LAYOUT) {
      spvValidatorOptionsSetScalarBlockLayout(opts, true);
      spvValidatorOptionsSetWorkgroupScalarBlockLayout(opts, true);
   }
   if (flags & SC_COMPILE_UBO_STANDARD_LAYOUT)
      spvValidatorOptionsSetUniformBufferStandardLayout(opts, true);
   if (flags & SC_COMPILE_LOCAL_SIZE_ID)
      spvValidatorOptionsSetAllowLocalSizeId(opts, true);

   struct spv_const_binary_t binary = { words, nwords };
   spv_diagnostic diag = NULL;
   spv_result_t res = spvValidateWithOptions(ctx, opts, &binary, &diag);
   enum sc_result result = SC_SUCCESS;
   if (res != SPV_SUCCESS) {
      result = res == SPV_ERROR_OUT_OF_MEMORY ? SC_ERROR_OUT_OF_MEMORY : SC_ERROR_INVALID_SPIRV;
      set_message(message, message_size, "invalid SPIR-V: %s",
                  diag && diag->error ? diag->error : "validation failed");
   }
   spvDiagnosticDestroy(diag);
   spvValidatorOptionsDestroy(opts);
   spvContextDestroy(ctx);
   return result;
}

/* ------------------------------------------------------------------------ */
/* Parsing                                                                   */
/* ------------------------------------------------------------------------ */

struct parse_state {
   struct sc_module *m;
   uint32_t cap_insts, cap_operands;
   bool oom;
   bool bad;
};

static spv_result_t
parse_header(void *user, spv_endianness_t endian, uint32_t magic, uint32_t version,
             uint32_t generator, uint32_t id_bound, uint32_t schema)
{
   struct parse_state *ps = user;
   struct sc_module *m = ps->m;
   if (id_bound == 0 || id_bound > SC_MAX_BOUND) {
      ps->bad = true;
      return SPV_ERROR_INVALID_BINARY;
   }
   m->version = version;
   m->bound = id_bound;
   return SPV_SUCCESS;
}

static spv_result_t
parse_inst(void *user, const spv_parsed_instruction_t *pi)
{
   struct parse_state *ps = user;
   struct sc_module *m = ps->m;
   if (pi->words < m->words || pi->words + pi->num_words > m->words + m->nwords) {
      /* Only native-endian modules: the instruction must live in our copy. */
      ps->bad = true;
      return SPV_ERROR_INVALID_BINARY;
   }
   if (m->ninsts == ps->cap_insts) {
      uint32_t cap = ps->cap_insts ? ps->cap_insts * 2 : 256;
      void *p = realloc(m->insts, cap * sizeof(*m->insts));
      if (!p) {
         ps->oom = true;
         return SPV_ERROR_OUT_OF_MEMORY;
      }
      m->insts = p;
      ps->cap_insts = cap;
   }
   while (m->noperands + pi->num_operands > ps->cap_operands) {
      uint32_t cap = ps->cap_operands ? ps->cap_operands * 2 : 1024;
      void *p = realloc(m->operands, cap * sizeof(*m->operands));
      if (!p) {
         ps->oom = true;
         return SPV_ERROR_OUT_OF_MEMORY;
      }
      m->operands = p;
      ps->cap_operands = cap;
   }
   struct sc_inst *inst = &m->insts[m->ninsts++];
   inst->w = pi->words;
   inst->opcode = pi->opcode;
   inst->nwords = pi->num_words;
   inst->type_id = pi->type_id;
   inst->result_id = pi->result_id;
   inst->first_operand = m->noperands;
   inst->noperands = pi->num_operands;
   inst->ext_set = (uint16_t)pi->ext_inst_type;
   for (unsigned i = 0; i < pi->num_operands; i++) {
      struct sc_operand *op = &m->operands[m->noperands++];
      op->offset = pi->operands[i].offset;
      op->nwords = pi->operands[i].num_words;
      switch (pi->operands[i].type) {
      case SPV_OPERAND_TYPE_ID:
      case SPV_OPERAND_TYPE_SCOPE_ID:
      case SPV_OPERAND_TYPE_MEMORY_SEMANTICS_ID:
         op->kind = SC_OPERAND_ID;
         break;
      case SPV_OPERAND_TYPE_TYPE_ID:
         op->kind = SC_OPERAND_TYPE_ID;
         break;
      case SPV_OPERAND_TYPE_RESULT_ID:
         op->kind = SC_OPERAND_RESULT_ID;
         break;
      default:
         op->kind = SC_OPERAND_OTHER;
         break;
      }
   }
   return SPV_SUCCESS;
}

static int
compare_decorations(const void *a, const void *b)
{
   const struct sc_decoration *x = a, *y = b;
   if (x->target != y->target)
      return x->target < y->target ? -1 : 1;
   if (x->member != y->member)
      return x->member < y->member ? -1 : 1;
   if (x->decoration != y->decoration)
      return x->decoration < y->decoration ? -1 : 1;
   return 0;
}

const struct sc_inst *
sc_module_def(const struct sc_module *m, uint32_t id)
{
   if (id >= m->bound || m->def[id] == SC_NONE)
      return NULL;
   return &m->insts[m->def[id]];
}

const struct sc_type *
sc_module_type(const struct sc_module *m, uint32_t type_id)
{
   if (type_id >= m->bound || m->types[type_id].kind == SC_T_NONE)
      return NULL;
   return &m->types[type_id];
}

bool
sc_module_decoration(const struct sc_module *m, uint32_t id, uint32_t member, uint32_t dec,
                     uint32_t *value)
{
   size_t lo = 0, hi = m->ndecorations;
   struct sc_decoration key = { id, member, dec, 0 };
   while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      int c = compare_decorations(&m->decorations[mid], &key);
      if (c == 0) {
         if (value)
            *value = m->decorations[mid].value;
         return true;
      }
      if (c < 0)
         lo = mid + 1;
      else
         hi = mid;
   }
   return false;
}

static uint32_t
saturating_mul(uint32_t a, uint32_t b)
{
   uint64_t r = (uint64_t)a * b;
   return r > SC_MAX_NCOMP ? SC_MAX_NCOMP + 1 : (uint32_t)r;
}

/* Fills m->types[id] for a type-declaring instruction. */
static enum sc_result
parse_type(struct sc_module *m, uint32_t index, char *message, size_t message_size)
{
   const struct sc_inst *inst = &m->insts[index];
   const uint32_t *w = inst->w;
   uint32_t id = inst->result_id;
   struct sc_type *t = &m->types[id];
   const struct sc_type *e;
   t->inst = index;
   switch (inst->opcode) {
   case SpvOpTypeVoid:
      t->kind = SC_T_VOID;
      break;
   case SpvOpTypeBool:
      t->kind = SC_T_BOOL;
      t->width = 1;
      t->ncomp = 1;
      break;
   case SpvOpTypeInt:
      t->kind = SC_T_INT;
      t->width = (uint8_t)w[2];
      t->is_signed = w[3] != 0;
      t->ncomp = 1;
      break;
   case SpvOpTypeFloat:
      t->kind = SC_T_FLOAT;
      t->width = (uint8_t)w[2];
      t->ncomp = 1;
      break;
   case SpvOpTypeVector:
   case SpvOpTypeMatrix:
      e = sc_module_type(m, w[2]);
      if (!e)
         return SC_ERROR_INVALID_SPIRV;
      t->kind = inst->opcode == SpvOpTypeVector ? SC_T_VECTOR : SC_T_MATRIX;
      t->elem = w[2];
      t->count = w[3];
      t->ncomp = saturating_mul(e->ncomp, w[3]);
      break;
   case SpvOpTypeArray: {
      e = sc_module_type(m, w[2]);
      const struct sc_inst *len = sc_module_def(m, w[3]);
      if (!e)
         return SC_ERROR_INVALID_SPIRV;
      if (!len || len->opcode != SpvOpConstant) {
         set_message(message, message_size, "%s",
                     "array length is not a constant after specialization");
         return SC_ERROR_UNSUPPORTED;
      }
      if (len->nwords > 4 && len->w[4] != 0) {
         set_message(message, message_size, "%s", "array length above 2^32");
         return SC_ERROR_UNSUPPORTED;
      }
      t->kind = SC_T_ARRAY;
      t->elem = w[2];
      t->count = len->w[3];
      t->ncomp = saturating_mul(e->ncomp, t->count);
      break;
   }
   case SpvOpTypeRuntimeArray:
      if (!sc_module_type(m, w[2]))
         return SC_ERROR_INVALID_SPIRV;
      t->kind = SC_T_RUNTIME_ARRAY;
      t->elem = w[2];
      break;
   case SpvOpTypeStruct: {
      t->kind = SC_T_STRUCT;
      t->count = inst->nwords - 2;
      t->members = &w[2];
      uint32_t n = 0;
      for (uint32_t i = 0; i < t->count; i++) {
         e = sc_module_type(m, w[2 + i]);
         if (!e)
            return SC_ERROR_INVALID_SPIRV;
         n += e->ncomp;
         if (n > SC_MAX_NCOMP)
            n = SC_MAX_NCOMP + 1;
      }
      t->ncomp = n;
      break;
   }
   case SpvOpTypePointer:
      t->kind = SC_T_POINTER;
      t->storage = w[2];
      t->elem = w[3];
      break;
   case SpvOpTypeFunction:
      t->kind = SC_T_FUNCTION;
      break;
   case SpvOpTypeForwardPointer:
      break;
   /* Images and samplers are values of one component: the address of
    * their descriptor record. */
   case SpvOpTypeImage:
      if (inst->nwords < 9 || !sc_module_type(m, w[2]))
         return SC_ERROR_INVALID_SPIRV;
      t->kind = SC_T_IMAGE;
      t->elem = w[2];
      t->ncomp = 1;
      break;
   case SpvOpTypeSampler:
      t->kind = SC_T_SAMPLER;
      t->ncomp = 1;
      break;
   case SpvOpTypeSampledImage:
      e = sc_module_type(m, w[2]);
      if (!e || e->kind != SC_T_IMAGE)
         return SC_ERROR_INVALID_SPIRV;
      t->kind = SC_T_SAMPLED_IMAGE;
      t->elem = w[2];
      t->ncomp = 1;
      break;
   default:
      t->kind = SC_T_OPAQUE;
      break;
   }
   return SC_SUCCESS;
}

bool
sc_module_image_type(const struct sc_module *m, uint32_t type_id, struct sc_image_type *out)
{
   const struct sc_type *t = sc_module_type(m, type_id);
   if (t && t->kind == SC_T_SAMPLED_IMAGE)
      t = sc_module_type(m, t->elem);
   if (!t || t->kind != SC_T_IMAGE)
      return false;
   const uint32_t *w = m->insts[t->inst].w;
   out->sampled_type = w[2];
   out->dim = w[3];
   out->depth = w[4];
   out->arrayed = w[5];
   out->ms = w[6];
   out->sampled = w[7];
   out->format = w[8];
   return true;
}

static bool
is_terminator(uint32_t opcode)
{
   switch (opcode) {
   case SpvOpBranch:
   case SpvOpBranchConditional:
   case SpvOpSwitch:
   case SpvOpReturn:
   case SpvOpReturnValue:
   case SpvOpKill:
   case SpvOpUnreachable:
   case SpvOpTerminateInvocation:
   case SpvOpIgnoreIntersectionKHR:
   case SpvOpTerminateRayKHR:
      return true;
   default:
      return false;
   }
}

/* Splits functions into blocks. */
static enum sc_result
parse_functions(struct sc_module *m)
{
   uint32_t nfuncs = 0;
   for (uint32_t i = 0; i < m->ninsts; i++)
      nfuncs += m->insts[i].opcode == SpvOpFunction;
   if (!nfuncs)
      return SC_SUCCESS;
   m->functions = calloc(nfuncs, sizeof(*m->functions));
   if (!m->functions)
      return SC_ERROR_OUT_OF_MEMORY;

   struct sc_function *f = NULL;
   struct sc_block *b = NULL;
   uint32_t cap = 0;
   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      switch (inst->opcode) {
      case SpvOpFunction:
         f = &m->functions[m->nfunctions++];
         f->id = inst->result_id;
         f->inst = i;
         f->first_param = i + 1;
         b = NULL;
         cap = 0;
         break;
      case SpvOpFunctionParameter:
         if (f)
            f->nparams++;
         break;
      case SpvOpFunctionEnd:
         if (b)
            return SC_ERROR_INVALID_SPIRV;
         f = NULL;
         break;
      case SpvOpLabel:
         if (!f || b)
            return SC_ERROR_INVALID_SPIRV;
         if (f->nblocks == cap) {
            cap = cap ? cap * 2 : 16;
            void *p = realloc(f->blocks, cap * sizeof(*f->blocks));
            if (!p)
               return SC_ERROR_OUT_OF_MEMORY;
            f->blocks = p;
         }
         b = &f->blocks[f->nblocks];
         b->label = inst->result_id;
         b->first = i + 1;
         b->term = SC_NONE;
         b->merge = SC_NONE;
         m->label_block[inst->result_id] = f->nblocks++;
         break;
      default:
         if (!b)
            break;
         if (inst->opcode == SpvOpSelectionMerge || inst->opcode == SpvOpLoopMerge)
            b->merge = i;
         if (is_terminator(inst->opcode)) {
            b->term = i;
            b = NULL;
         }
         break;
      }
   }
   return f ? SC_ERROR_INVALID_SPIRV : SC_SUCCESS;
}

enum sc_result
sc_module_parse(struct sc_module *m, int target_env, uint32_t *words, size_t nwords,
                char *message, size_t message_size)
{
   memset(m, 0, sizeof(*m));
   m->words = words;
   m->nwords = nwords;

   struct parse_state ps = { .m = m };
   spv_context ctx = spvContextCreate((spv_target_env)target_env);
   if (!ctx)
      return SC_ERROR_OUT_OF_MEMORY;
   spv_diagnostic diag = NULL;
   spv_result_t res = spvBinaryParse(ctx, &ps, words, nwords, parse_header, parse_inst, &diag);
   spvContextDestroy(ctx);
   if (res != SPV_SUCCESS || ps.oom || ps.bad) {
      set_message(message, message_size, "SPIR-V parse error: %s",
                  diag && diag->error ? diag->error : "bad module");
      spvDiagnosticDestroy(diag);
      return ps.oom ? SC_ERROR_OUT_OF_MEMORY : SC_ERROR_INVALID_SPIRV;
   }
   spvDiagnosticDestroy(diag);

   m->def = malloc(m->bound * sizeof(*m->def));
   m->label_block = malloc(m->bound * sizeof(*m->label_block));
   m->types = calloc(m->bound, sizeof(*m->types));
   if (!m->def || !m->label_block || !m->types)
      return SC_ERROR_OUT_OF_MEMORY;
   memset(m->def, 0xff, m->bound * sizeof(*m->def));
   memset(m->label_block, 0xff, m->bound * sizeof(*m->label_block));

   uint32_t ndec = 0, nentry = 0;
   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      if (inst->result_id) {
         if (inst->result_id >= m->bound)
            return SC_ERROR_INVALID_SPIRV;
         m->def[inst->result_id] = i;
      }
      if (inst->opcode == SpvOpDecorate || inst->opcode == SpvOpMemberDecorate ||
          inst->opcode == SpvOpDecorateId)
         ndec++;
      if (inst->opcode == SpvOpEntryPoint)
         nentry++;
   }

   m->decorations = calloc(ndec ? ndec : 1, sizeof(*m->decorations));
   m->entry_points = calloc(nentry ? nentry : 1, sizeof(*m->entry_points));
   if (!m->decorations || !m->entry_points)
      return SC_ERROR_OUT_OF_MEMORY;

   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      const uint32_t *w = inst->w;
      struct sc_decoration *d;
      switch (inst->opcode) {
      case SpvOpDecorate:
      case SpvOpDecorateId:
         d = &m->decorations[m->ndecorations++];
         d->target = w[1];
         d->member = SC_NONE;
         d->decoration = w[2];
         d->value = inst->nwords > 3 ? w[3] : 0;
         break;
      case SpvOpMemberDecorate:
         d = &m->decorations[m->ndecorations++];
         d->target = w[1];
         d->member = w[2];
         d->decoration = w[3];
         d->value = inst->nwords > 4 ? w[4] : 0;
         break;
      case SpvOpEntryPoint: {
         struct sc_entry_point *ep = &m->entry_points[m->nentry_points++];
         ep->model = w[1];
         ep->function = w[2];
         ep->name = (const char *)&w[3];
         ep->inst = i;
         break;
      }
      case SpvOpExtInstImport:
         if (inst->nwords >= 3 && !strncmp((const char *)&w[2], "GLSL.std.450",
                                           (inst->nwords - 2) * 4))
            m->glsl450 = inst->result_id;
         break;
      default:
         if (inst->opcode >= SpvOpTypeVoid && inst->opcode <= SpvOpTypeForwardPointer &&
             inst->result_id) {
            enum sc_result r = parse_type(m, i, message, message_size);
            if (r != SC_SUCCESS)
               return r;
         } else if (inst->result_id && inst->opcode >= SpvOpTypeVoid &&
                    (inst->opcode == SpvOpTypeAccelerationStructureKHR ||
                     inst->opcode == SpvOpTypeRayQueryKHR ||
                     inst->opcode == SpvOpTypeCooperativeMatrixNV)) {
            m->types[inst->result_id].kind = SC_T_OPAQUE;
            m->types[inst->result_id].inst = i;
         }
         break;
      }
   }
   qsort(m->decorations, m->ndecorations, sizeof(*m->decorations), compare_decorations);
   return parse_functions(m);
}

/* Value of a 32-bit integer (spec) constant after specialization. */
static bool
resolve_u32(const struct sc_module *m, uint32_t id, const struct sc_spec_constant *spec,
            uint32_t nspec, uint32_t *value)
{
   const struct sc_inst *d = sc_module_def(m, id);
   if (!d || d->nwords < 4)
      return false;
   if (d->opcode == SpvOpConstant) {
      *value = d->w[3];
      return true;
   }
   if (d->opcode != SpvOpSpecConstant)
      return false;
   *value = d->w[3];
   uint32_t spec_id;
   if (sc_module_decoration(m, id, SC_NONE, SpvDecorationSpecId, &spec_id)) {
      for (uint32_t i = 0; i < nspec; i++)
         if (spec[i].id == spec_id)
            *value = (uint32_t)spec[i].value;
   }
   return true;
}

enum sc_result
sc_module_local_size(const struct sc_module *m, uint32_t fn, const struct sc_spec_constant *spec,
                     uint32_t nspec, uint32_t size[3])
{
   bool found = false;
   size[0] = size[1] = size[2] = 1;
   for (uint32_t i = 0; i < m->ninsts; i++) {
      const struct sc_inst *inst = &m->insts[i];
      if ((inst->opcode != SpvOpExecutionMode && inst->opcode != SpvOpExecutionModeId) ||
          inst->nwords < 6 || inst->w[1] != fn)
         continue;
      if (inst->w[2] == SpvExecutionModeLocalSize) {
         for (int k = 0; k < 3; k++)
            size[k] = inst->w[3 + k];
         found = true;
      } else if (inst->w[2] == SpvExecutionModeLocalSizeId) {
         for (int k = 0; k < 3; k++)
            if (!resolve_u32(m, inst->w[3 + k], spec, nspec, &size[k]))
               return SC_ERROR_UNSUPPORTED;
         found = true;
      }
   }
   for (uint32_t i = 0; i < m->ndecorations; i++) {
      const struct sc_decoration *d = &m->decorations[i];
      if (d->decoration != SpvDecorationBuiltIn || d->value != SpvBuiltInWorkgroupSize ||
          d->member != SC_NONE)
         continue;
      const struct sc_inst *c = sc_module_def(m, d->target);
      if (!c || (c->opcode != SpvOpConstantComposite && c->opcode != SpvOpSpecConstantComposite) ||
          c->nwords < 6)
         continue;
      for (int k = 0; k < 3; k++)
         if (!resolve_u32(m, c->w[3 + k], spec, nspec, &size[k]))
            return SC_ERROR_UNSUPPORTED;
      found = true;
   }
   return found ? SC_SUCCESS : SC_ERROR_INVALID_SPIRV;
}

void
sc_module_free(struct sc_module *m)
{
   for (uint32_t i = 0; i < m->nfunctions; i++)
      free(m->functions[i].blocks);
   free(m->functions);
   free(m->entry_points);
   free(m->decorations);
   free(m->types);
   free(m->label_block);
   free(m->def);
   free(m->operands);
   free(m->insts);
   free(m->words);
   memset(m, 0, sizeof(*m));
}

bool
sc_opcode_is_atomic(uint32_t opcode)
{
   switch (opcode) {
   case SpvOpAtomicLoad:
   case SpvOpAtomicStore:
   case SpvOpAtomicExchange:
   case SpvOpAtomicCompareExchange:
   case SpvOpAtomicCompareExchangeWeak:
   case SpvOpAtomicIIncrement:
   case SpvOpAtomicIDecrement:
   case SpvOpAtomicIAdd:
   case SpvOpAtomicISub:
   case SpvOpAtomicSMin:
   case SpvOpAtomicUMin:
   case SpvOpAtomicSMax:
   case SpvOpAtomicUMax:
   case SpvOpAtomicAnd:
   case SpvOpAtomicOr:
   case SpvOpAtomicXor:
   case SpvOpAtomicFAddEXT:
   case SpvOpAtomicFMinEXT:
   case SpvOpAtomicFMaxEXT:
      return true;
   default:
      return false;
   }
}
