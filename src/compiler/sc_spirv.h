/*
 * SPIR-V front of the compiler: validation, legalization and the in-memory
 * module the translator reads.
 *
 * Design note
 * -----------
 * Owns: struct sc_module and every array in it (one allocation per array,
 * freed by sc_module_free). The module keeps its own copy of the legalized
 * words; instructions point into it.
 * Invariants: after sc_module_parse succeeds, every id below bound that is
 * defined has def[id] set, every type id has types[id].kind != SC_T_NONE, the
 * functions' blocks are complete (label .. terminator) and decorations are
 * sorted by (target, member) for sc_module_decoration(). Ids are checked
 * against bound when used, so a lookup never reads out of bounds.
 * Threading: a module is built and read by one compile on one thread.
 */
#ifndef SC_SPIRV_H
#define SC_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_compiler.h"

#define SC_NONE UINT32_MAX

enum sc_type_kind {
   SC_T_NONE = 0,
   SC_T_VOID,
   SC_T_BOOL,
   SC_T_INT,
   SC_T_FLOAT,
   SC_T_VECTOR,
   SC_T_MATRIX,
   SC_T_ARRAY,
   SC_T_RUNTIME_ARRAY,
   SC_T_STRUCT,
   SC_T_POINTER,
   SC_T_FUNCTION,
   SC_T_IMAGE,           /* elem: sampled type; operands in the defining instruction */
   SC_T_SAMPLER,
   SC_T_SAMPLED_IMAGE,   /* elem: the image type */
   SC_T_OPAQUE,          /* events, acceleration structures...: not translatable */
};

struct sc_type {
   uint8_t kind;         /* enum sc_type_kind */
   uint8_t width;        /* bits of a scalar */
   uint8_t is_signed;
   uint32_t elem;        /* component / element / pointee type id */
   uint32_t count;       /* vector size, matrix columns, array length, members */
   uint32_t storage;     /* pointer storage class */
   uint32_t ncomp;       /* scalars in a flattened value of this type */
   uint32_t inst;        /* defining instruction */
   const uint32_t *members; /* struct member type ids (count of them) */
};

struct sc_inst {
   const uint32_t *w;    /* words; w[0] = word count << 16 | opcode */
   uint16_t opcode;
   uint16_t nwords;
   uint32_t type_id;     /* 0 when none */
   uint32_t result_id;   /* 0 when none */
   uint32_t first_operand;
   uint16_t noperands;
   uint16_t ext_set;     /* spv_ext_inst_type_t of OpExtInst */
};

/* Operand kinds (SPIRV-Tools' operand types, reduced to what we need). */
enum sc_operand_kind {
   SC_OPERAND_OTHER = 0,   /* literals, enums, strings */
   SC_OPERAND_ID,          /* an <id> of a value, label, scope or semantics */
   SC_OPERAND_TYPE_ID,     /* the result type */
   SC_OPERAND_RESULT_ID,   /* the result id */
};

struct sc_operand {
   uint16_t offset;      /* word offset in the instruction */
   uint16_t nwords;
   uint32_t kind;        /* enum sc_operand_kind */
};

struct sc_decoration {
   uint32_t target;
   uint32_t member;      /* SC_NONE for OpDecorate */
   uint32_t decoration;
   uint32_t value;       /* first literal, 0 when none */
};

struct sc_block {
   uint32_t label;       /* result id of OpLabel */
   uint32_t first;       /* instruction after OpLabel */
   uint32_t term;        /* terminator instruction */
   uint32_t merge;       /* OpSelectionMerge / OpLoopMerge instruction or SC_NONE */
};

struct sc_function {
   uint32_t id;
   uint32_t inst;        /* OpFunction */
   uint32_t nblocks;
   struct sc_block *blocks;
   uint32_t first_param; /* instruction index of the first OpFunctionParameter */
   uint32_t nparams;
};

struct sc_entry_point {
   uint32_t model;       /* SpvExecutionModel */
   uint32_t function;
   const char *name;
   uint32_t inst;
};

struct sc_module {
   uint32_t *words;
   size_t nwords;
   uint32_t version;     /* header word 1 */
   uint32_t bound;
   struct sc_inst *insts;
   uint32_t ninsts;
   struct sc_operand *operands;
   uint32_t noperands;
   uint32_t *def;                  /* [bound] defining instruction or SC_NONE */
   struct sc_type *types;          /* [bound] */
   uint32_t *label_block;          /* [bound] block index of a label in its function */
   struct sc_decoration *decorations;
   uint32_t ndecorations;
   struct sc_function *functions;
   uint32_t nfunctions;
   struct sc_entry_point *entry_points;
   uint32_t nentry_points;
   uint32_t glsl450;               /* id of the GLSL.std.450 import or 0 */
};

/* Maps the module's SPIR-V version and the requested Vulkan version to a
 * SPIRV-Tools target environment (spv_target_env). */
int sc_spirv_target_env(const uint32_t *words, size_t nwords, uint32_t api_version);

/* Mesa 22.3's zink declares the VulkanMemoryModel capabilities in SPIR-V
 * 1.3 modules without the SPV_KHR_vulkan_memory_model OpExtension that
 * SPIR-V before 1.5 needs for them (the spec's validity rules; lavapipe does
 * not validate). For such a module (version < 1.5, the capability declared,
 * the extension not), returns a malloc'd copy with the OpExtension added
 * after the capabilities in *out (*out_count words): the meaning is the
 * module's own, only the declaration it left out is added. Returns 0 and
 * sets *out = NULL where the module needs nothing, -1 when out of memory. */
int sc_spirv_add_vmm_extension(const uint32_t *words, size_t nwords, uint32_t **out,
                               size_t *out_count);

/* Validates with SPIRV-Tools. */
enum sc_result sc_spirv_validate(int target_env, const uint32_t *words, size_t nwords,
                                 uint32_t flags, char *message, size_t message_size);

/* Legalizes (sc_spirv_opt.cpp). Returns 0, -1 on failure, -2 out of memory;
 * *out_words is malloc()ed. */
#ifdef __cplusplus
extern "C"
#endif
int sc_spirv_legalize(int target_env, const uint32_t *words, size_t word_count,
                      const struct sc_spec_constant *spec, uint32_t spec_count,
                      uint32_t **out_words, size_t *out_count,
                      char *message, size_t message_size);

/* Parses legalized words into m, taking ownership of words (freed by
 * sc_module_free even on failure). */
enum sc_result sc_module_parse(struct sc_module *m, int target_env, uint32_t *words,
                               size_t nwords, char *message, size_t message_size);
void sc_module_free(struct sc_module *m);

/* Workgroup size of the entry point function fn of an unspecialized module:
 * LocalSize / LocalSizeId, overridden by a WorkgroupSize built-in constant,
 * with specialization constants resolved to the given values or defaults. */
enum sc_result sc_module_local_size(const struct sc_module *m, uint32_t fn,
                                    const struct sc_spec_constant *spec, uint32_t nspec,
                                    uint32_t size[3]);

/* Finds decoration dec on id (member SC_NONE) or on a struct member. */
bool sc_module_decoration(const struct sc_module *m, uint32_t id, uint32_t member,
                          uint32_t dec, uint32_t *value);

/* The instruction defining id, or NULL when id is out of range / undefined. */
const struct sc_inst *sc_module_def(const struct sc_module *m, uint32_t id);

/* The type of id's type id, or NULL. */
const struct sc_type *sc_module_type(const struct sc_module *m, uint32_t type_id);

/* OpTypeImage operands (of an image, or of a sampled image's image). */
struct sc_image_type {
   uint32_t sampled_type;   /* scalar type id */
   uint32_t dim;            /* SpvDim */
   uint32_t depth, arrayed, ms, sampled, format;   /* format: SpvImageFormat */
};

bool sc_module_image_type(const struct sc_module *m, uint32_t type_id, struct sc_image_type *out);

/* Whether opcode is one of the atomic instructions Shale translates
 * (OpAtomicLoad .. OpAtomicXor, OpAtomicStore included, and the float
 * add/min/max of SPV_EXT_shader_atomic_float*). */
bool sc_opcode_is_atomic(uint32_t opcode);

/* "OpFoo" for an opcode ("OpUnknown" if the grammar lacks it); GLSL.std.450
 * instruction names likewise (sc_spirv_names.c, generated). */
const char *sc_opcode_name(uint32_t opcode);
const char *sc_glsl450_name(uint32_t inst);

#endif
