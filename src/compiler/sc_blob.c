/* Compile keys and shader blobs: compiled machine code that can be cached
 * (in memory or in VkPipelineCache data) and linked again without LLVM's
 * optimizer or code generator. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/su_build_id.h"
#include "util/su_sha256.h"
#include "sc_internal.h"
#include "sc_llvm.h"

/* Bump when generated code changes for the same input (key and blobs).
 * Keys and blob identities also carry the compiler's build ID (compiler_build):
 * any rebuild that changes the code makes older blobs miss, so this number
 * matters only for a build without a build ID note. */
#define SC_COMPILER_VERSION "shale-sc 4"
#define SC_BLOB_VERSION 2
#define SC_BLOB_BYTE_ORDER 0x01020304u
#define SC_BLOB_ALIGN 16

/* Blob layout (host byte order; the identity check pins the host):
 *   struct sc_blob_header
 *   struct sc_blob_binding[binding_count]
 *   the stage interface (sc_shader.io, SC_BLOB_IO_SIZE bytes)
 *   identity string (identity_size bytes, no NUL)
 *   zero padding to SC_BLOB_ALIGN
 *   the relocatable object (object_size bytes)
 * digest is the SHA-256 of every byte after it. */
struct sc_blob_header {
   char magic[8];               /* "SHALESC" */
   uint32_t blob_version;
   uint32_t abi_version;        /* SHALE_SHADER_ABI_VERSION */
   uint64_t size;               /* of the whole blob */
   uint8_t digest[SU_SHA256_SIZE];
   uint32_t byte_order;
   uint32_t stage;
   uint32_t simd_width;
   uint32_t local_size[3];
   uint32_t subgroup_count;
   uint32_t shared_size;
   uint32_t scratch_size;
   uint32_t push_constant_size;
   uint32_t binding_count;
   uint32_t identity_size;
   uint32_t reserved;
   uint64_t object_size;
};

struct sc_blob_binding {
   uint32_t set, binding, array_size, type, written;
};

_Static_assert(sizeof(struct sc_blob_header) == 120, "blob header layout");
_Static_assert(sizeof(struct sc_blob_binding) == 20, "blob binding layout");

static const char blob_magic[8] = "SHALESC";

#define SC_BLOB_IO_SIZE sizeof(((struct sc_shader *)0)->io)

/* Limits a blob's metadata must respect (what sc_compile can produce). */
#define SC_BLOB_MAX_SHARED (1u << 20)
#define SC_BLOB_MAX_SCRATCH (1u << 30)
#define SC_BLOB_MAX_INVOCATIONS 65536u

static void
set_message(char *message, size_t size, const char *text)
{
   if (message && size)
      snprintf(message, size, "%s", text);
}

/* The build ID of the object this compiler is linked into, in hex ("none"
 * when the linker wrote none). */
static void
compiler_build(char hex[2 * SU_BUILD_ID_MAX + 1])
{
   uint8_t id[SU_BUILD_ID_MAX];
   size_t size = 0;
   if (!su_build_id((const void *)compiler_build, id, &size)) {
      snprintf(hex, 2 * SU_BUILD_ID_MAX + 1, "none");
      return;
   }
   for (size_t i = 0; i < size; i++)
      snprintf(hex + 2 * i, 3, "%02x", id[i]);
}

/* "compiler version;build ID;target;features;LLVM version" of this compiler. */
static char *
blob_identity(const struct sc_jit *jit)
{
   const char *id = sc_jit_identity(jit);
   char build[2 * SU_BUILD_ID_MAX + 1];
   compiler_build(build);
   size_t len = strlen(SC_COMPILER_VERSION) + 1 + strlen(build) + 1 + strlen(id) + 1;
   char *s = malloc(len);
   if (s)
      snprintf(s, len, "%s;%s;%s", SC_COMPILER_VERSION, build, id);
   return s;
}

/* Whether a blob's identity string (size bytes, no NUL) is this compiler's. */
static enum sc_result
same_identity(struct sc_compiler *compiler, const void *theirs, size_t size, bool *same)
{
   char *identity = blob_identity(compiler->jit);
   if (!identity)
      return SC_ERROR_OUT_OF_MEMORY;
   *same = strlen(identity) == size && !memcmp(identity, theirs, size);
   free(identity);
   return SC_SUCCESS;
}

static size_t
align_up(size_t v)
{
   return (v + SC_BLOB_ALIGN - 1) & ~(size_t)(SC_BLOB_ALIGN - 1);
}

/* What both blob headers open with (start_header, check_opening). */
struct blob_opening {
   char magic[8];
   uint32_t blob_version;
   uint32_t abi_version;
   uint64_t size;
   uint8_t digest[SU_SHA256_SIZE];
   uint32_t byte_order;
};

/* Zeroes a blob's header (header_size bytes) and fills the fields it opens
 * with, but the digest (finish_blob writes it). */
static void
start_header(void *header, size_t header_size, const char magic[8], size_t total)
{
   struct blob_opening o;
   memset(&o, 0, sizeof(o));
   memcpy(o.magic, magic, sizeof(o.magic));
   o.blob_version = SC_BLOB_VERSION;
   o.abi_version = SHALE_SHADER_ABI_VERSION;
   o.size = total;
   o.byte_order = SC_BLOB_BYTE_ORDER;
   memset(header, 0, header_size);
   /* Not the struct's tail padding: the header's own fields follow. */
   memcpy(header, &o, offsetof(struct blob_opening, byte_order) + sizeof(o.byte_order));
}

/* Pads the head of a blob (off bytes written) to SC_BLOB_ALIGN, writes the
 * object after it and the header (header_size bytes) before it, then the
 * digest at digest_at in the header: the SHA-256 of every byte after it. */
static void
finish_blob(uint8_t *out, size_t off, const void *object, size_t object_size, const void *header,
            size_t header_size, size_t digest_at, size_t total)
{
   memset(out + off, 0, align_up(off) - off);
   off = align_up(off);
   memcpy(out + off, object, object_size);
   memcpy(out, header, header_size);
   size_t hashed = digest_at + SU_SHA256_SIZE;
   su_sha256(out + hashed, total - hashed, out + digest_at);
}

/* ------------------------------------------------------------------------ */
/* Keys                                                                      */
/* ------------------------------------------------------------------------ */

static void
hash_u32(struct su_sha256 *h, uint32_t v)
{
   su_sha256_update(h, &v, sizeof(v));
}

static void
hash_string(struct su_sha256 *h, const char *s)
{
   uint32_t len = (uint32_t)strlen(s);
   hash_u32(h, len);
   su_sha256_update(h, s, len);
}

/* Starts a key: its kind, then everything a compiled object depends on
 * besides its request (compiler version and build, blob and ABI versions,
 * target and CPU). */
static void
hash_start(struct su_sha256 *h, struct sc_compiler *compiler, const char *kind)
{
   su_sha256_init(h);
   hash_string(h, kind);
   hash_string(h, SC_COMPILER_VERSION);
   char build[2 * SU_BUILD_ID_MAX + 1];
   compiler_build(build);
   hash_string(h, build);
   hash_u32(h, SC_BLOB_VERSION);
   hash_u32(h, SHALE_SHADER_ABI_VERSION);
   hash_string(h, sc_jit_identity(compiler->jit));
   hash_string(h, sc_jit_cpu_name(compiler->jit));
}

enum sc_result
sc_compile_key(struct sc_compiler *compiler, const struct sc_compile_info *info,
               uint8_t key[SC_COMPILE_KEY_SIZE])
{
   if (!compiler || !info || !info->entry_point || (!info->words && info->word_count) ||
       (!info->spec_constants && info->spec_constant_count) ||
       (!info->set_layouts && info->set_layout_count))
      return SC_ERROR_INTERNAL;
   struct su_sha256 h;
   hash_start(&h, compiler, "shale compile key");
   hash_u32(&h, info->simd_width ? info->simd_width : sc_default_simd_width());
   hash_u32(&h, (uint32_t)info->stage);
   hash_u32(&h, info->api_version);
   hash_u32(&h, info->flags & ~(uint32_t)SC_COMPILE_BASELINE);
   hash_u32(&h, info->stage == VK_SHADER_STAGE_FRAGMENT_BIT ? info->fs_unused_outputs & 0xff : 0);
   hash_u32(&h, info->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT
                   ? info->tess_output_vertices : 0);
   hash_u32(&h, info->stage == VK_SHADER_STAGE_GEOMETRY_BIT ||
                      info->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT ||
                      info->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT
                   ? info->in_clip_distances
                   : 0);
   hash_string(&h, info->entry_point);
   uint64_t nwords = info->word_count;
   su_sha256_update(&h, &nwords, sizeof(nwords));
   if (nwords)
      su_sha256_update(&h, info->words, info->word_count * sizeof(uint32_t));
   hash_u32(&h, info->spec_constant_count);
   for (uint32_t i = 0; i < info->spec_constant_count; i++) {
      const struct sc_spec_constant *c = &info->spec_constants[i];
      hash_u32(&h, c->id);
      hash_u32(&h, c->size);
      su_sha256_update(&h, &c->value, sizeof(c->value));
   }
   hash_u32(&h, info->set_layout_count);
   for (uint32_t s = 0; s < info->set_layout_count; s++) {
      const struct sc_set_layout *l = &info->set_layouts[s];
      uint32_t n = l->bindings ? l->binding_count : 0;
      hash_u32(&h, l->bindings != NULL);
      hash_u32(&h, n);
      for (uint32_t b = 0; b < n; b++) {
         hash_u32(&h, l->bindings[b].first_record);
         hash_u32(&h, l->bindings[b].array_size);
      }
   }
   su_sha256_final(&h, key);
   return SC_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Serialization                                                             */
/* ------------------------------------------------------------------------ */

enum sc_result
sc_shader_serialize(const struct sc_shader *shader, void *data, size_t *size)
{
   if (!shader || !shader->code || !size)
      return SC_ERROR_INTERNAL;
   const void *object;
   size_t object_size;
   sc_jit_code_object(shader->code, &object, &object_size);
   char *identity = blob_identity(sc_jit_code_owner(shader->code));
   if (!identity)
      return SC_ERROR_OUT_OF_MEMORY;
   size_t identity_size = strlen(identity);
   size_t head = sizeof(struct sc_blob_header) +
                 shader->binding_count * sizeof(struct sc_blob_binding) + SC_BLOB_IO_SIZE +
                 identity_size;
   size_t total = align_up(head) + object_size;
   if (!data) {
      free(identity);
      *size = total;
      return SC_SUCCESS;
   }
   if (*size < total) {
      free(identity);
      return SC_ERROR_TOO_SMALL;
   }
   uint8_t *out = data;
   struct sc_blob_header h;
   start_header(&h, sizeof(h), blob_magic, total);
   h.stage = (uint32_t)shader->stage;
   h.simd_width = shader->simd_width;
   memcpy(h.local_size, shader->local_size, sizeof(h.local_size));
   h.subgroup_count = shader->subgroup_count;
   h.shared_size = shader->shared_size;
   h.scratch_size = shader->scratch_size;
   h.push_constant_size = shader->push_constant_size;
   h.binding_count = shader->binding_count;
   h.identity_size = (uint32_t)identity_size;
   h.object_size = object_size;
   size_t off = sizeof(h);
   for (uint32_t i = 0; i < shader->binding_count; i++) {
      const struct sc_binding_use *u = &shader->bindings[i];
      struct sc_blob_binding b = { u->set, u->binding, u->array_size, (uint32_t)u->type,
                                   u->written ? 1u : 0u };
      memcpy(out + off, &b, sizeof(b));
      off += sizeof(b);
   }
   memcpy(out + off, &shader->io, SC_BLOB_IO_SIZE);
   off += SC_BLOB_IO_SIZE;
   memcpy(out + off, identity, identity_size);
   off += identity_size;
   free(identity);
   finish_blob(out, off, object, object_size, &h, sizeof(h),
               offsetof(struct sc_blob_header, digest), total);
   *size = total;
   return SC_SUCCESS;
}

static bool
valid_descriptor_type(uint32_t type)
{
   return type <= VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT ||
          type == VK_DESCRIPTOR_TYPE_INLINE_UNIFORM_BLOCK;
}

static void __attribute__((format(printf, 3, 4)))
kind_message(char *message, size_t size, const char *format, ...)
{
   if (!message || !size)
      return;
   va_list ap;
   va_start(ap, format);
   vsnprintf(message, size, format, ap);
   va_end(ap);
}

/* Reads a blob's header (header_size bytes) into header after the checks
 * both kinds of blob open with: size, magic, versions, digest, byte order.
 * what names the kind in messages ("shader", "back-end"). */
static enum sc_result
check_opening(const uint8_t *in, size_t size, void *header, size_t header_size,
              const char magic[8], const char *what, char *message, size_t message_size)
{
   if (size < header_size) {
      kind_message(message, message_size, "%s blob truncated", what);
      return SC_ERROR_INVALID_BLOB;
   }
   memcpy(header, in, header_size);
   struct blob_opening h;
   memcpy(&h, in, sizeof(h));
   if (memcmp(h.magic, magic, sizeof(h.magic))) {
      kind_message(message, message_size, "not a %s blob", what);
      return SC_ERROR_INVALID_BLOB;
   }
   if (h.blob_version != SC_BLOB_VERSION || h.abi_version != SHALE_SHADER_ABI_VERSION) {
      kind_message(message, message_size, "%s blob of another version", what);
      return SC_ERROR_INCOMPATIBLE_BLOB;
   }
   if (h.size != size) {
      kind_message(message, message_size, "%s blob of the wrong size (truncated?)", what);
      return SC_ERROR_INVALID_BLOB;
   }
   uint8_t digest[SU_SHA256_SIZE];
   size_t hashed = offsetof(struct blob_opening, digest) + SU_SHA256_SIZE;
   su_sha256(in + hashed, size - hashed, digest);
   if (memcmp(digest, h.digest, sizeof(digest))) {
      kind_message(message, message_size, "%s blob checksum mismatch (corrupted)", what);
      return SC_ERROR_INVALID_BLOB;
   }
   if (h.byte_order != SC_BLOB_BYTE_ORDER) {
      kind_message(message, message_size, "%s blob of another byte order", what);
      return SC_ERROR_INCOMPATIBLE_BLOB;
   }
   return SC_SUCCESS;
}

/* Everything but the object: layout, checksum, host, metadata. */
static enum sc_result
check_blob(struct sc_compiler *compiler, const uint8_t *in, size_t size,
           struct sc_blob_header *h, char *message, size_t message_size)
{
   enum sc_result r = check_opening(in, size, h, sizeof(*h), blob_magic, "shader", message,
                                    message_size);
   if (r != SC_SUCCESS)
      return r;
   /* Sizes, without overflow: each part is bounded by the blob's size. */
   if (h->binding_count > size / sizeof(struct sc_blob_binding) || h->identity_size > size ||
       h->object_size > size || h->object_size == 0) {
      set_message(message, message_size, "shader blob with bad sizes");
      return SC_ERROR_INVALID_BLOB;
   }
   size_t head = sizeof(*h) + (size_t)h->binding_count * sizeof(struct sc_blob_binding) +
                 SC_BLOB_IO_SIZE + h->identity_size;
   if (head > size || align_up(head) + h->object_size != size) {
      set_message(message, message_size, "shader blob with bad sizes");
      return SC_ERROR_INVALID_BLOB;
   }
   bool same;
   if (same_identity(compiler, in + head - h->identity_size, h->identity_size, &same) !=
       SC_SUCCESS)
      return SC_ERROR_OUT_OF_MEMORY;
   if (!same) {
      set_message(message, message_size,
                  "shader blob for another target, CPU features or compiler version");
      return SC_ERROR_INCOMPATIBLE_BLOB;
   }
   /* Metadata as sc_compile makes it. */
   uint64_t invocations = (uint64_t)h->local_size[0] * h->local_size[1] * h->local_size[2];
   uint32_t W = h->simd_width;
   bool ok = (h->stage == VK_SHADER_STAGE_COMPUTE_BIT || h->stage == VK_SHADER_STAGE_VERTEX_BIT ||
              h->stage == VK_SHADER_STAGE_GEOMETRY_BIT ||
              h->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT ||
              h->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT ||
              (h->stage == VK_SHADER_STAGE_FRAGMENT_BIT && W != 1)) &&
             (W == 1 || W == 4 || W == 8 || W == 16) &&
             invocations >= 1 && invocations <= SC_BLOB_MAX_INVOCATIONS &&
             h->subgroup_count == (invocations + W - 1) / W &&
             h->shared_size <= SC_BLOB_MAX_SHARED && h->scratch_size <= SC_BLOB_MAX_SCRATCH &&
             h->push_constant_size <= SHALE_MAX_PUSH_CONSTANTS_SIZE;
   for (uint32_t i = 0; ok && i < h->binding_count; i++) {
      struct sc_blob_binding b;
      memcpy(&b, in + sizeof(*h) + i * sizeof(b), sizeof(b));
      ok = b.set < SHALE_MAX_DESCRIPTOR_SETS && b.written <= 1 && valid_descriptor_type(b.type);
   }
   if (ok && h->stage == VK_SHADER_STAGE_VERTEX_BIT) {
      struct shale_vs_info vs;
      memcpy(&vs, in + sizeof(*h) + h->binding_count * sizeof(struct sc_blob_binding), sizeof(vs));
      ok = vs.clip_distance_count + vs.cull_distance_count <= 8;
   }
   if (ok && h->stage == VK_SHADER_STAGE_GEOMETRY_BIT) {
      /* The rasterizer sizes its buffers from these (sr_geom.c). */
      struct shale_gs_info gs;
      memcpy(&gs, in + sizeof(*h) + h->binding_count * sizeof(struct sc_blob_binding), sizeof(gs));
      ok = gs.out.clip_distance_count + gs.out.cull_distance_count <= 8 &&
           (gs.vertices_in == 1 || gs.vertices_in == 2 || gs.vertices_in == 3 ||
            gs.vertices_in == 4 || gs.vertices_in == 6) &&
           gs.invocations >= 1 && gs.invocations <= 32 && gs.output_vertices >= 1 &&
           gs.output_vertices <= 256 && gs.out_words <= SHALE_SLOT_COUNT * 4 &&
           gs.out.xfb_count <= SHALE_MAX_XFB_COMPONENTS &&
           (gs.output_topology == VK_PRIMITIVE_TOPOLOGY_POINT_LIST ||
            gs.output_topology == VK_PRIMITIVE_TOPOLOGY_LINE_STRIP ||
            gs.output_topology == VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP);
      for (uint32_t j = 0; ok && j < gs.out_words; j++)
         ok = gs.out_word[j] < SHALE_SLOT_COUNT * 4;
      for (uint32_t j = 0; ok && j < gs.out.xfb_count; j++)
         ok = gs.out.xfb[j].word < SHALE_SLOT_COUNT * 4 && gs.out.xfb[j].buffer < SHALE_MAX_XFB_BUFFERS &&
              (!gs.out.xfb_stride[gs.out.xfb[j].buffer] ||
               gs.out.xfb[j].offset + 4u <= gs.out.xfb_stride[gs.out.xfb[j].buffer]);
   }
   if (ok && h->stage == VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT) {
      /* The workgroup is the output patch (llvm_tess.c). */
      struct shale_tcs_info tcs;
      memcpy(&tcs, in + sizeof(*h) + h->binding_count * sizeof(struct sc_blob_binding), sizeof(tcs));
      ok = tcs.output_vertices >= 1 && tcs.output_vertices <= SHALE_TESS_MAX_PATCH_VERTICES &&
           h->local_size[0] == tcs.output_vertices && h->local_size[1] == 1 &&
           h->local_size[2] == 1 && tcs.modes.domain <= SHALE_TESS_DOMAIN_ISOLINES &&
           tcs.modes.spacing <= SHALE_TESS_SPACING_FRACTIONAL_ODD &&
           tcs.modes.vertex_order <= SHALE_TESS_ORDER_CCW &&
           tcs.patch_written < 1ull << SHALE_PATCH_SLOT_COUNT && tcs.output_clip_distances <= 8;
   }
   if (ok && h->stage == VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT) {
      struct shale_tes_info tes;
      memcpy(&tes, in + sizeof(*h) + h->binding_count * sizeof(struct sc_blob_binding), sizeof(tes));
      ok = tes.out.clip_distance_count + tes.out.cull_distance_count <= 8 &&
           tes.out.xfb_count <= SHALE_MAX_XFB_COMPONENTS &&
           tes.modes.domain <= SHALE_TESS_DOMAIN_ISOLINES &&
           tes.modes.spacing <= SHALE_TESS_SPACING_FRACTIONAL_ODD &&
           tes.modes.vertex_order <= SHALE_TESS_ORDER_CCW &&
           tes.patch_read < 1ull << SHALE_PATCH_SLOT_COUNT;
      for (uint32_t j = 0; ok && j < tes.out.xfb_count; j++)
         ok = tes.out.xfb[j].word < SHALE_SLOT_COUNT * 4 &&
              tes.out.xfb[j].buffer < SHALE_MAX_XFB_BUFFERS &&
              (!tes.out.xfb_stride[tes.out.xfb[j].buffer] ||
               tes.out.xfb[j].offset + 4u <= tes.out.xfb_stride[tes.out.xfb[j].buffer]);
   }
   if (!ok) {
      set_message(message, message_size, "shader blob with bad metadata");
      return SC_ERROR_INVALID_BLOB;
   }
   return SC_SUCCESS;
}

static enum sc_result
deserialize(struct sc_compiler *compiler, const void *data, size_t size, struct sc_shader **out,
            char *message, size_t message_size)
{
   double start = sc_now_ms();
   if (message && message_size)
      message[0] = '\0';
   if (!out)
      return SC_ERROR_INTERNAL;
   *out = NULL;
   if (!compiler || (!data && size)) {
      set_message(message, message_size, "bad arguments");
      return SC_ERROR_INTERNAL;
   }
   const uint8_t *in = data;
   struct sc_blob_header h;
   enum sc_result r = check_blob(compiler, in, size, &h, message, message_size);
   if (r != SC_SUCCESS)
      return r;

   struct sc_shader *shader = calloc(1, sizeof(*shader));
   if (!shader)
      return SC_ERROR_OUT_OF_MEMORY;
   shader->stage = (VkShaderStageFlagBits)h.stage;
   shader->simd_width = h.simd_width;
   memcpy(shader->local_size, h.local_size, sizeof(h.local_size));
   shader->subgroup_count = h.subgroup_count;
   shader->shared_size = h.shared_size;
   shader->scratch_size = h.scratch_size;
   shader->push_constant_size = h.push_constant_size;
   shader->binding_count = h.binding_count;
   if (h.binding_count) {
      shader->bindings = calloc(h.binding_count, sizeof(*shader->bindings));
      if (!shader->bindings) {
         free(shader);
         return SC_ERROR_OUT_OF_MEMORY;
      }
   }
   for (uint32_t i = 0; i < h.binding_count; i++) {
      struct sc_blob_binding b;
      memcpy(&b, in + sizeof(h) + i * sizeof(b), sizeof(b));
      shader->bindings[i] = (struct sc_binding_use) {
         .set = b.set, .binding = b.binding, .array_size = b.array_size,
         .type = (VkDescriptorType)b.type, .written = b.written != 0,
      };
   }
   memcpy(&shader->io, in + sizeof(h) + h.binding_count * sizeof(struct sc_blob_binding),
          SC_BLOB_IO_SIZE);
   void *entry = NULL;
   r = sc_jit_load(compiler->jit, in + size - h.object_size, h.object_size, &shader->code,
                   &entry, message, message_size);
   if (r != SC_SUCCESS) {
      free(shader->bindings);
      free(shader);
      return r;
   }
   shader->fn.cs = (shale_cs_fn)(uintptr_t)entry;
   shader->compile_ms = sc_now_ms() - start;
   *out = shader;
   return SC_SUCCESS;
}

enum sc_result
sc_shader_deserialize(struct sc_compiler *compiler, const void *data, size_t size,
                      struct sc_shader **out, char *message, size_t message_size)
{
   if (!sc_exit_enter()) {
      if (out)
         *out = NULL;
      set_message(message, message_size, "the process is exiting");
      return SC_ERROR_INTERNAL;
   }
   enum sc_result r = deserialize(compiler, data, size, out, message, message_size);
   sc_exit_leave();
   return r;
}

/* ------------------------------------------------------------------------ */
/* Back-end routines                                                         */
/* ------------------------------------------------------------------------ */

/* Back-end blob layout (host byte order, like shader blobs):
 *   struct sc_backend_blob_header
 *   the key (key_size bytes: struct shale_fb_key or shale_fb_ds_key)
 *   identity string (identity_size bytes, no NUL)
 *   zero padding to SC_BLOB_ALIGN
 *   the relocatable object (object_size bytes)
 * digest is the SHA-256 of every byte after it. */
struct sc_backend_blob_header {
   char magic[8];               /* "SHALEFB" */
   uint32_t blob_version;
   uint32_t abi_version;
   uint64_t size;
   uint8_t digest[SU_SHA256_SIZE];
   uint32_t byte_order;
   uint32_t kind;               /* 0: colour, 1: depth/stencil */
   uint32_t key_size;
   uint32_t identity_size;
   uint64_t object_size;
};

_Static_assert(sizeof(struct sc_backend_blob_header) == 80, "back-end blob header layout");

static const char backend_magic[8] = "SHALEFB";

#define SAME_FIELD(f)                                                                   \
   _Static_assert(offsetof(struct sc_blob_header, f) == offsetof(struct blob_opening, f) && \
                     offsetof(struct sc_backend_blob_header, f) ==                          \
                        offsetof(struct blob_opening, f),                                   \
                  "blob opening " #f)
SAME_FIELD(magic);
SAME_FIELD(blob_version);
SAME_FIELD(abi_version);
SAME_FIELD(size);
SAME_FIELD(digest);
SAME_FIELD(byte_order);
#undef SAME_FIELD

/* The key bytes of a routine request; false for a bad request. */
static bool
backend_request(const struct shale_fb_key *key, const struct shale_fb_ds_key *ds_key,
                const void **k, size_t *size)
{
   if ((key == NULL) == (ds_key == NULL))
      return false;
   *k = ds_key ? (const void *)ds_key : (const void *)key;
   *size = ds_key ? sizeof(*ds_key) : sizeof(*key);
   return true;
}

enum sc_result
sc_backend_cache_key(struct sc_compiler *compiler, const struct shale_fb_key *key,
                     const struct shale_fb_ds_key *ds_key, uint8_t out[SC_COMPILE_KEY_SIZE])
{
   const void *k;
   size_t size;
   if (!compiler || !backend_request(key, ds_key, &k, &size))
      return SC_ERROR_INTERNAL;
   struct su_sha256 h;
   hash_start(&h, compiler, "shale back-end key");
   hash_u32(&h, ds_key != NULL);
   hash_u32(&h, (uint32_t)size);
   su_sha256_update(&h, k, size);
   su_sha256_final(&h, out);
   return SC_SUCCESS;
}

enum sc_result
sc_backend_serialize(struct sc_compiler *compiler, const struct shale_fb_key *key,
                     const struct shale_fb_ds_key *ds_key, void *data, size_t *size)
{
   const void *k;
   size_t key_size;
   if (!compiler || !size || !backend_request(key, ds_key, &k, &key_size))
      return SC_ERROR_INTERNAL;
   const void *object;
   size_t object_size;
   if (!sc_backend_object(compiler, ds_key != NULL, k, key_size, &object, &object_size))
      return SC_ERROR_INTERNAL;
   char *identity = blob_identity(compiler->jit);
   if (!identity)
      return SC_ERROR_OUT_OF_MEMORY;
   size_t identity_size = strlen(identity);
   size_t head = sizeof(struct sc_backend_blob_header) + key_size + identity_size;
   size_t total = align_up(head) + object_size;
   if (!data || *size < total) {
      free(identity);
      if (!data) {
         *size = total;
         return SC_SUCCESS;
      }
      return SC_ERROR_TOO_SMALL;
   }
   uint8_t *out = data;
   struct sc_backend_blob_header h;
   start_header(&h, sizeof(h), backend_magic, total);
   h.kind = ds_key != NULL;
   h.key_size = (uint32_t)key_size;
   h.identity_size = (uint32_t)identity_size;
   h.object_size = object_size;
   size_t off = sizeof(h);
   memcpy(out + off, k, key_size);
   off += key_size;
   memcpy(out + off, identity, identity_size);
   off += identity_size;
   free(identity);
   finish_blob(out, off, object, object_size, &h, sizeof(h),
               offsetof(struct sc_backend_blob_header, digest), total);
   *size = total;
   return SC_SUCCESS;
}

static enum sc_result
backend_deserialize(struct sc_compiler *compiler, const void *k, size_t key_size, bool ds,
                    const uint8_t *in, size_t size, char *message, size_t message_size)
{
   struct sc_backend_blob_header h;
   enum sc_result r = check_opening(in, size, &h, sizeof(h), backend_magic, "back-end", message,
                                    message_size);
   if (r != SC_SUCCESS)
      return r;
   if (h.identity_size > size || h.object_size > size || h.object_size == 0 ||
       h.key_size != key_size) {
      set_message(message, message_size, "back-end blob with bad sizes");
      return SC_ERROR_INVALID_BLOB;
   }
   size_t head = sizeof(h) + key_size + h.identity_size;
   if (head > size || align_up(head) + h.object_size != size) {
      set_message(message, message_size, "back-end blob with bad sizes");
      return SC_ERROR_INVALID_BLOB;
   }
   if (h.kind != (uint32_t)ds || memcmp(in + sizeof(h), k, key_size)) {
      set_message(message, message_size, "back-end blob of another key");
      return SC_ERROR_INVALID_BLOB;
   }
   bool same;
   if (same_identity(compiler, in + sizeof(h) + key_size, h.identity_size, &same) != SC_SUCCESS)
      return SC_ERROR_OUT_OF_MEMORY;
   if (!same) {
      set_message(message, message_size,
                  "back-end blob for another target, CPU features or compiler version");
      return SC_ERROR_INCOMPATIBLE_BLOB;
   }
   struct sc_jit_code *code = NULL;
   void *entry = NULL;
   r = sc_jit_load(compiler->jit, in + size - h.object_size, h.object_size, &code, &entry, message,
                   message_size);
   if (r != SC_SUCCESS)
      return r;
   return sc_backend_insert(compiler, ds, k, key_size, code, entry);
}

enum sc_result
sc_backend_deserialize(struct sc_compiler *compiler, const struct shale_fb_key *key,
                       const struct shale_fb_ds_key *ds_key, const void *data, size_t size,
                       char *message, size_t message_size)
{
   if (message && message_size)
      message[0] = '\0';
   const void *k;
   size_t key_size;
   if (!compiler || (!data && size) || !backend_request(key, ds_key, &k, &key_size)) {
      set_message(message, message_size, "bad arguments");
      return SC_ERROR_INTERNAL;
   }
   if (!sc_exit_enter()) {
      set_message(message, message_size, "the process is exiting");
      return SC_ERROR_INTERNAL;
   }
   enum sc_result r = backend_deserialize(compiler, k, key_size, ds_key != NULL, data, size,
                                          message, message_size);
   sc_exit_leave();
   return r;
}
