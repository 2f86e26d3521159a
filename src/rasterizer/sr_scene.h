/*
 * sr_scene: the rasterizer's private structures shared by its front end
 * (sr_vertex.c: fetch and vertex shading; sr_setup.c: assembly, clipping,
 * setup; sr_bin.c: binning) and its back end (sr_tile.c: coverage and
 * fragment quads; sr_fragment.c: per-fragment operations). Not seen
 * outside src/rasterizer; sr_raster.h says how a draw flows.
 *
 * The boundary between the two ends is the tile command list: the front
 * end appends commands (struct sr_cmd) to the bins of the tiles they touch,
 * in API order; the back end runs a tile's list in order on one worker.
 * Every command and everything it points at lives in the scene's arena
 * (primitives of a parallel setup: in the front end's per-worker arenas)
 * until the flush that runs it, and is immutable once appended; after the
 * tiles ran, the flush empties the bins and resets the arenas.
 *
 * Threading: bins are appended to by the thread that called sr_scene_draw
 * only; during a flush each tile is owned by the one worker running it.
 */
#ifndef SR_SCENE_H
#define SR_SCENE_H

#include "sr_raster.h"

#include <pthread.h>
#include <stddef.h>

/* Set bits of v. __builtin_popcount is a libgcc call without -mpopcnt
 * (the build targets baseline x86-64); this is a few ALU operations. */
static inline uint32_t
sr_popcount(uint32_t v)
{
   v = v - ((v >> 1) & 0x55555555u);
   v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
   return (((v + (v >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

/* ---- Arena ---- */

struct sr_arena_block;

/* Standard-size arena blocks kept by the context (one per device) for the
 * next flush or scene, so a frame reuses memory the last one touched
 * instead of faulting in fresh pages. Bounded: at each scene end
 * (sr_block_pool_trim) it keeps at most as many blocks as were in use at
 * once during the last SR_BLOCK_POOL_HISTORY scenes (never more than
 * SR_BLOCK_POOL_MAX_BYTES in all) and frees the rest. Locked: arenas of
 * workers take and return blocks during a parallel setup. */
#define SR_BLOCK_POOL_HISTORY 4
struct sr_block_pool {
   pthread_mutex_t lock;
   const VkAllocationCallbacks *alloc;
   struct sr_arena_block *free;  /* free standard blocks */
   uint32_t free_count;
   uint32_t in_use;              /* standard blocks held by arenas */
   uint32_t peak;                /* most in use at once since the last trim */
   uint32_t history[SR_BLOCK_POOL_HISTORY];   /* the last trims' peaks */
   uint32_t history_next;
};

void sr_block_pool_init(struct sr_block_pool *pool, const VkAllocationCallbacks *alloc);
/* Frees the free blocks beyond the high-water mark (see above). */
void sr_block_pool_trim(struct sr_block_pool *pool);
/* Frees every free block; no arena may still hold blocks of the pool. */
void sr_block_pool_finish(struct sr_block_pool *pool);

struct sr_arena {
   const VkAllocationCallbacks *alloc;
   struct sr_block_pool *pool;   /* where standard blocks come from and go; NULL: the heap */
   struct sr_arena_block *blocks;
   uint8_t *cur, *end;
};

void sr_arena_init(struct sr_arena *a, const VkAllocationCallbacks *alloc,
                   struct sr_block_pool *pool);
/* 16-byte aligned (64 for sizes of 64 or more); NULL when out of memory. */
void *sr_arena_alloc(struct sr_arena *a, size_t size);
/* Forgets every allocation but keeps one block for reuse, the other
 * standard blocks going back to the pool (a flush does this once nothing
 * points into the arena any more). */
void sr_arena_reset(struct sr_arena *a);
void sr_arena_finish(struct sr_arena *a);

/* Heap memory of the rasterizer: through `alloc` (scope OBJECT) when it is
 * non-NULL, else aligned malloc. align is a power of two. */
void *sr_alloc(const VkAllocationCallbacks *alloc, size_t size, size_t align);
void *sr_zalloc(const VkAllocationCallbacks *alloc, size_t size, size_t align);
void sr_free(const VkAllocationCallbacks *alloc, void *ptr);

/* ---- A draw as binned ---- */

/* The immutable snapshot a draw's primitives point at. */
struct sr_draw_snapshot {
   const struct sr_draw_state *state;   /* shared by consecutive draws with equal state */
   struct shale_fs_context fs_ctx;      /* sets, push constants (in the snapshot), samples */
   uint8_t *push_constants;             /* SHALE_MAX_PUSH_CONSTANTS_SIZE bytes */
   uint64_t *occlusion;
   uint64_t *fs_invocations;            /* sr_stats.fs_invocations, or NULL */
   uint32_t fs_input_count;             /* planes per primitive: 2 + used input components */
   /* fs input component (l * 4 + c, or a clip / cull distance at
    * SHALE_FS_CLIP_INPUT + ...) -> index into a primitive's planes, or
    * 0xff when the shader does not read it. */
   uint8_t plane_index[SHALE_FS_INPUT_COMPONENTS];
};

/* A set-up triangle (lines and points become two of these). Window
 * coordinates are fixed point with SR_SUBPIXEL_BITS fraction bits: the
 * sample point of pixel (x, y) at position (sx, sy) in [0, 1) is
 * (x * 256 + sx * 256, y * 256 + sy * 256); the pixel centre is +128.
 * Edge i is E_i(X, Y) = a[i] * X + b[i] * Y + c[i] for such fixed-point
 * (X, Y); setup orients the edges so that the inside is positive whatever
 * the winding, and folds the top-left rule into c: a point is covered
 * exactly when E_i(X, Y) >= 0 for i = 0, 1, 2 (c[i] is one less than the
 * exact edge function for edges that are neither top nor left). Magnitudes:
 * |X|, |Y| < (SR_GUARD_BAND + SR_MAX_FRAMEBUFFER_SIZE) << 8, so a, b fit 32
 * bits (kept so; products are taken in 64 bits) and every E_i fits in 64. */
struct sr_prim {
   const struct sr_draw_snapshot *draw;
   int64_t c[3];
   int32_t a[3], b[3];
   int32_t min_x, min_y, max_x, max_y;  /* pixel box, inclusive, inside scissor */
   uint32_t layer;
   uint32_t primitive_id;
   /* Depth: z(x, y) at pixel coordinates, bias included; clamped to the
    * viewport's depth range (or [0, 1] with depth clamp) per sample. */
   struct shale_fs_plane z;
   float depth_min, depth_max;          /* the clamp range */
   bool front_facing;
   bool is_point, is_line;
   uint8_t viewport_index;              /* ViewportIndex (< SR_MAX_VIEWPORTS) */
   /* planes[0] z (no bias), planes[1] 1/w, then the fragment inputs in
    * snapshot->plane_index order; for points, point_coord: the PointCoord
    * planes s, t (kept after the inputs), else NULL. */
   const struct shale_fs_plane *planes;
   const struct shale_fs_plane *point_coord;
};
/* Two cache lines a primitive (the arena gives 64-byte alignment from 64
 * bytes): the tile loop reads one per primitive per tile. */
_Static_assert(sizeof(struct sr_prim) <= 128, "struct sr_prim grew past two cache lines");

/* ---- Tile command lists ---- */

enum sr_cmd_kind {
   SR_CMD_PRIM,
   SR_CMD_CLEAR,
   SR_CMD_RESOLVE,
};

/* CLEAR and RESOLVE commands are appended to the bins of every layer they
 * cover (one command record shared by those bins); the tile of layer L
 * writes only layer L, so no two workers write the same memory. */
struct sr_clear_cmd {
   uint32_t attachment;                 /* colour index or SR_ATTACHMENT_DEPTH_STENCIL */
   VkImageAspectFlags aspects;
   VkClearValue value;
   VkRect2D rect;
   uint32_t base_layer, layer_count;
};

struct sr_resolve_cmd {
   uint32_t attachment;                 /* colour index or SR_ATTACHMENT_DEPTH_STENCIL */
   struct sr_surface dst;
   VkRect2D rect;
   uint32_t layer_count;                /* layers 0 .. layer_count-1 of src and dst */
   /* Depth/stencil only: VK_RESOLVE_MODE_* per aspect, NONE skips it. */
   VkResolveModeFlagBits depth_mode, stencil_mode;
};

struct sr_cmd {
   enum sr_cmd_kind kind;
   union {
      const struct sr_prim *prim;
      const struct sr_clear_cmd *clear;
      const struct sr_resolve_cmd *resolve;
   };
};

/* A tile's commands: a chain of fixed-size chunks in API order. */
#define SR_BIN_CHUNK 62
struct sr_bin_chunk {
   struct sr_bin_chunk *next;
   uint32_t count;
   struct sr_cmd cmds[SR_BIN_CHUNK];
};

struct sr_bin {
   struct sr_bin_chunk *first, *last;
   uint32_t count;                      /* commands appended */
   /* Position after the last PRIM (0: none): commands from there on come
    * after every primitive of the tile (the tile loop streams those
    * clears' stores and fills resolves of cleared pixels). */
   uint32_t prims_end;
};

/* One worker's memory, used by one worker at a time: the vertex shader's
 * batch arrays while vertices are shaded, the fragment shader's arrays and a
 * full plane array (planes[2 + k] as the ABI indexes them, expanded
 * from a primitive's compact planes) while tiles run. SHALE_MEMORY_ALIGN
 * aligned. */
#define SR_TILE_MEM_BYTES (256u * 1024u)
struct sr_worker_scratch {
   _Alignas(SHALE_MEMORY_ALIGN) uint32_t vs_inputs[SHALE_MAX_LOCATIONS * 4 * SHALE_MAX_SIMD_WIDTH];
   _Alignas(SHALE_MEMORY_ALIGN) uint32_t vs_outputs[SHALE_SLOT_COUNT * 4 * SHALE_MAX_SIMD_WIDTH];
   _Alignas(SHALE_MEMORY_ALIGN) uint32_t fs_outputs[SHALE_FS_OUTPUT_LOCATIONS * 4 *
                                                    SHALE_MAX_SIMD_WIDTH];
   _Alignas(SHALE_MEMORY_ALIGN) float frag_depth[SHALE_MAX_SIMD_WIDTH];
   _Alignas(SHALE_MEMORY_ALIGN) uint32_t sample_mask[SHALE_MAX_SIMD_WIDTH];
   _Alignas(SHALE_MEMORY_ALIGN) struct shale_fs_plane planes[2 + SHALE_FS_INPUT_COMPONENTS];
   /* sr_tile.c's tile memory: a tile's pixels of attachments the flush
    * discards, or stores with a write-back at the tile's end (a 4x RGBA8
    * colour and a 4x D32 depth tile take 64 KiB each). */
   _Alignas(64) uint8_t tile_mem[SR_TILE_MEM_BYTES];
};

struct sr_context {
   struct su_thread_pool *pool;
   const VkAllocationCallbacks *alloc;
   unsigned workers;
   struct sr_worker_scratch **scratch;   /* [workers] */
   const uint32_t *cancel;               /* the contexts' cancel word, or NULL */
   /* Memory kept between scenes (see sr_block_pool): arena blocks, and the
    * last ended scene with its bins, front buffers and per-worker arenas,
    * which the next sr_scene_begin takes over (under blocks.lock). */
   struct sr_block_pool blocks;
   struct sr_scene *spare;
};

struct sr_scene {
   struct sr_context *ctx;
   struct sr_arena arena;
   struct sr_framebuffer fb;
   VkRect2D render_area;
   uint32_t layer_count;
   uint32_t view_mask;                  /* multiview: layers resolves cover; 0: all */
   uint32_t tiles_x, tiles_y;
   struct sr_bin *bins;                 /* [layer][tiles_y][tiles_x] */
   size_t bins_cap;                     /* bins allocated */
   bool dirty;                          /* commands since the last flush */
   uint32_t discard;                    /* sr_scene_set_discard's, for the next flush */
   uint32_t tile_memory;                /* sr_scene_set_tile_memory's */
   const struct sr_draw_state *last_state;   /* arena copy of the last draw's state */
   uint32_t primitive_count;            /* PrimitiveId source within a draw */
   struct sr_front *front;              /* the front end's private buffers (sr_front.h) */
};

/* The watchdog cancelled the submission (shader_abi.h "Cancellation"): the
 * rasterizer's own loops (draws, instances, vertex windows and batches,
 * tiles) stop at their next step, as compiled code stops at its next loop
 * header. What was left undone is undefined, as after a GPU reset. */
static inline bool
sr_scene_cancelled(const struct sr_scene *scene)
{
   const uint32_t *c = scene->ctx->cancel;
   return c && __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* Front end -> bins: appends cmd to every tile (of `layer`) that the pixel
 * box [x0, x1] x [y0, y1] touches. */
VkResult sr_bin_box(struct sr_scene *scene, uint32_t layer, int32_t x0, int32_t y0,
                    int32_t x1, int32_t y1, struct sr_cmd cmd);

/* Whether resolves cover layer `l` (sr_scene_set_view_mask). */
static inline bool
sr_scene_resolves_layer(const struct sr_scene *scene, uint32_t l)
{
   return !scene->view_mask || (l < 32 && (scene->view_mask >> l & 1));
}

/* Back end: runs one tile's commands (flush, on a worker), with
 * scene->ctx->scratch[worker] for the fragment arrays. Occlusion
 * counts and fragment shader invocations (pipeline statistics) are summed
 * per tile and added to the draws' counters (atomically) when the tile is
 * done. sr_tile.c also defines sr_sample_positions(). */
void sr_tile_run(struct sr_scene *scene, uint32_t layer, uint32_t tx, uint32_t ty,
                 unsigned worker);

/* Back end (sr_resolve.c): runs a RESOLVE command on the pixels
 * [x0, x1] x [y0, y1] of layer `layer` (a tile's share of it).
 * cleared (colour resolves; NULL when not known): every sample of those
 * pixels of the source holds this clear's value, as its CLEAR wrote it:
 * the resolve computes one pixel's result from a copy of them and fills
 * the destination with it (the bytes the whole resolve writes: a pixel's
 * result depends on its samples alone). stream: the destination's stores
 * may be non-temporal (nothing in the tile reads them): the fills of
 * cleared pixels, and the AVX2 rows of 4-sample RGBA8-style resolves.
 * `cleared` is used only for sources of at most SR_RESOLVE_CLEARED_MAX_SAMPLES
 * samples (the copy's buffer); for more, the samples are read, so a caller
 * that holds the clear back (sr_tile.c) must have written it first: it
 * passes `cleared` under the same condition. */
#define SR_RESOLVE_CLEARED_MAX_SAMPLES 16
void sr_resolve_run(const struct sr_framebuffer *fb, const struct sr_resolve_cmd *r,
                    uint32_t layer, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                    const struct sr_clear_cmd *cleared, bool stream);

/* For tests only: the vector rows that 4-sample RGBA8-style colour
 * resolves (sr_resolve.c) may take, so that a test on a CPU with AVX-512
 * runs the rows another CPU would: ALL as the CPU allows; NO_AVX512
 * without the AVX-512 row (the FMA row, AVX2 with FMA, takes its pixels:
 * a CPU without AVX-512); NO_FMA without it too (the AVX2 row, vdivps);
 * NO_AVX2 without any (the scalar row). Read at each resolve; set it only
 * while no scene runs. */
enum sr_resolve_rows {
   SR_RESOLVE_ROWS_ALL,
   SR_RESOLVE_ROWS_NO_AVX512,
   SR_RESOLVE_ROWS_NO_FMA,
   SR_RESOLVE_ROWS_NO_AVX2,
};
extern enum sr_resolve_rows sr_resolve_test_rows;

#endif
