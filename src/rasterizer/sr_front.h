/*
 * sr_front: the rasterizer's front end inside src/rasterizer (vertex fetch
 * and shading in sr_vertex.c; assembly, clipping, setup in sr_setup.c;
 * binning in sr_bin.c). Private to the front end: the back end sees only
 * sr_scene.h's commands and primitives.
 *
 * A draw is processed one instance at a time: the instance's vertices (one
 * per vertex of a non-indexed draw, one per index position of an indexed
 * draw) are shaded into records (struct sr_vdraw's layout: clip position,
 * point size, clip and cull distances, then the components the fragment
 * shader reads, in plane order, then those transform feedback captures),
 * then captured (sr_xfb.c), assembled, clipped, set up and binned on the
 * calling thread in API order. With a geometry shader (sr_geom.c) the
 * shaded records are the raw output words it reads, and the records of
 * its output are what is captured, set up and binned (sr_raster.h,
 * "Geometry shading"). Records live in the scene's front
 * buffers, reused by the next instance and the next draw: set-up primitives
 * keep only plane equations (in the arena), never pointers to records.
 */
#ifndef SR_FRONT_H
#define SR_FRONT_H

#include "sr_scene.h"

/* Growable buffers, owned by the scene. */
struct sr_front {
   float *verts;                 /* vertex records of the current instance */
   size_t verts_cap;             /* floats */
   uint32_t *shade_vi;           /* per vertex to shade: VertexIndex */
   uint32_t *shade_rec;          /* per vertex to shade: its record */
   uint32_t *pos_rec;            /* per index position: its record */
   uint8_t *restart;             /* per index position: 1 at a restart index */
   size_t pos_cap;               /* entries of the four arrays above */
   uint32_t *map;                /* index value - smallest -> record, or ~0 */
   size_t map_cap;
   /* Per worker: set-up primitives of parallel setup (reset with the
    * scene's arena at each flush). */
   unsigned workers;
   struct sr_worker_arena *arenas;
};

/* One worker's arena of a parallel setup, alone in its cache line: a
 * worker moves its arena's pointer for every primitive it sets up, and
 * arenas sharing a line would pass that line between cores at each
 * allocation (false sharing). */
struct sr_worker_arena {
   _Alignas(64) struct sr_arena arena;
};

/* Set-up primitives of one chunk of a parallel setup, in order, each with
 * the tile rows it touches (row0 .. row1, clamped to 0 .. 0xffff; row0 >
 * row1: none), its tile columns (col0 .. col1) and layer, so that the
 * binning never reads the primitive itself. */
#define SR_PRIM_LIST_NODE 254
struct sr_prim_list_node {
   struct sr_prim_list_node *next;
   uint32_t count;
   uint16_t row0[SR_PRIM_LIST_NODE], row1[SR_PRIM_LIST_NODE];
   uint16_t col0[SR_PRIM_LIST_NODE], col1[SR_PRIM_LIST_NODE];
   uint32_t layer[SR_PRIM_LIST_NODE];
   const struct sr_prim *prims[SR_PRIM_LIST_NODE];
};

/* Vertex record layout: floats. */
#define SR_V_POS 0                /* clip x, y, z, w */
#define SR_V_PSIZE 4              /* PointSize */
#define SR_V_CODE 5               /* clip code bits (sr_setup.c) */
#define SR_V_WIN 6                /* window x, y (fixed point, int32 bits), z, 1/w;
                                   * valid when the clip code has no clip plane bit */
#define SR_V_DIST 10              /* clip distances, then cull distances */

/* Viewport transform of a draw (window = o + h * ndc; z = pz * ndc + oz). */
struct sr_viewport {
   double ox, oy, hx, hy, pz, oz;
};

/* One vertex attribute as the fetch reads it. */
struct sr_fetch_attr {
   uint32_t location;
   const uint8_t *base;          /* NULL: no buffer bound (reads zeros) */
   uint64_t size;
   uint32_t stride, offset;
   bool per_instance;
   uint32_t divisor;
   const struct su_format_desc *format;   /* NULL: location has no attribute */
   uint8_t type;                 /* shader's: 0 float, 1 sint, 2 uint */
   uint8_t copy_channels;        /* > 0: 32-bit words copied as they are: channels of the
                                  * shader's type, or halves of 64-bit channels */
   uint8_t copy_from;            /* the first word copied (4: the second location of a
                                  * three- or four-channel 64-bit attribute) */
   bool copy_wide;               /* 64-bit channels: the words not copied are zeros */
};

/* A draw's geometry shader (sr_geom.c), set up once per draw: the raw
 * vertex records it reads and where each output word lands. */
struct sr_geom {
   uint32_t in_stride;           /* words per raw vertex record: 4 per input slot */
   uint32_t in_slots;
   uint8_t in_slot[SHALE_SLOT_COUNT];      /* the input slots, in record order */
   uint64_t vs_written;                    /* the vertex shader's outputs_written */
   uint16_t out_j[SHALE_SLOT_COUNT * 4];   /* output word -> shale_gs_info.out_word index, or 0xffff */
};

/* One draw being processed by the front end (on the caller's stack). */
struct sr_vdraw {
   struct sr_scene *scene;
   const struct sr_draw_state *st;
   const struct sr_draw_bindings *bind;
   const struct sr_draw *draw;
   const struct sr_draw_snapshot *snap;
   struct shale_vs_context vs_ctx;

   /* Record layout. */
   uint32_t stride;              /* floats per record */
   uint32_t clip_count, cull_count;
   uint32_t attr_off, attr_count;
   uint16_t attr_src[SHALE_FS_INPUT_COMPONENTS];   /* vs output word (slot * 4 + c), or 0xffff */
   uint8_t attr_interp[SHALE_FS_INPUT_COMPONENTS]; /* enum shale_interp kind per record attr */
   bool writes_point_size;
   /* Transform feedback: the draw's buffers (NULL: no capture), the
    * buffers it writes (bound, with components and a stride) and where
    * the captured components (shale_vs_info.xfb order) sit in a record. */
   struct sr_xfb *xfb;
   uint32_t xfb_used;
   uint32_t xfb_off, xfb_count;

   /* Fetch. */
   uint32_t fetch_count;
   struct sr_fetch_attr fetch[SHALE_MAX_LOCATIONS];

   /* Vertices of the current instance. A non-indexed draw shades vertex
    * first + j into record j; an indexed draw shades each distinct index
    * value once when the values span a small range (a post-transform
    * cache as wide as the draw), else each index position. */
   uint32_t count;               /* positions (of the window, see sr_vertex_draw) */
   uint32_t first_pos;           /* non-indexed: the window's first position */
   uint32_t shade_count;         /* vertices to shade */
   uint32_t instance;            /* 0 .. instance_count - 1 */
   float *verts;                 /* front->verts */
   const uint32_t *shade_vi;     /* VertexIndex per shaded vertex; NULL: first + j */
   const uint32_t *shade_rec;    /* record per shaded vertex; NULL: j */
   const uint32_t *pos_rec;      /* record per position; NULL: the position */
   const uint8_t *restart;       /* NULL when no position restarts */

   /* Setup (sr_setup_draw): per viewport (viewport_count of them) its
    * transform and the pixels it may touch (scissor, render area:
    * x0, y0, x1, y1 inclusive); records hold viewport 0's clip codes and
    * window coordinates. */
   uint32_t viewport_count;
   struct sr_viewport vp[SR_MAX_VIEWPORTS];
   int32_t box[SR_MAX_VIEWPORTS][4];
   uint32_t clip_planes;         /* clip code bits that call for clipping */
   uint32_t primitive_id;        /* next PrimitiveId of the instance */
   uint64_t clip_out;            /* primitives clipping output (pipeline statistics) */
   /* Geometry shading (sr_geom.c): NULL without a geometry shader. The
    * records of the output primitives hold the PrimitiveId, Layer and
    * ViewportIndex the provoking vertex was emitted with at prim_id_off /
    * layer_off / viewport_off (0: not written: PrimitiveId counts, the
    * layer is the view index, the viewport 0). Without a geometry shader,
    * a vertex or tessellation evaluation shader's Layer and ViewportIndex
    * (VK_EXT_shader_viewport_index_layer) sit in its records after the
    * transform feedback words, at layer_off / viewport_off
    * (sr_vertex.c vdraw_init). */
   const struct sr_geom *geom;
   uint32_t prim_id_off, layer_off, viewport_off;
   uint32_t layer;               /* layer of the primitive being set up */
   uint32_t viewport;            /* viewport of the primitive being set up */
   uint64_t gs_invocations, gs_primitives;
   /* Tessellation (sr_tess_draw.c): patches run, points evaluated and
    * primitives generated (pipeline statistics). */
   uint64_t tcs_patches, tes_invocations, tess_primitives;
   VkResult result;              /* first allocation failure */
   /* Where set-up primitives go: arena and bins (serial setup), or a
    * worker's arena and a chunk's list (parallel setup, binned after). */
   struct sr_arena *arena;
   struct sr_prim_list_node *list_first, *list_last;
};

VkResult sr_front_init(struct sr_scene *scene);
/* At a flush, once the tiles ran: frees the workers' primitives. */
void sr_front_reset(struct sr_scene *scene);
void sr_front_finish(struct sr_scene *scene);

/* sr_vertex.c: the whole draw (shading, then sr_setup_instance per instance). */
VkResult sr_vertex_draw(struct sr_scene *scene, const struct sr_draw_snapshot *snap,
                        const struct sr_draw_bindings *bindings, const struct sr_draw *draw);

/* The record of one shaded vertex before setup (any worker): lane i of
 * outputs `o` of width w, laid out by io (the vertex shader's, or the
 * evaluation shader's in sr_tess_draw.c) into r: position, point size,
 * distances, fragment inputs, transform feedback words. */
void sr_vertex_record(const struct sr_vdraw *vd, const struct shale_vs_info *io, const uint32_t *o,
                      uint32_t w, uint32_t i, float *r);

/* sr_setup.c: the draw's setup constants (once per draw, after the record
 * layout is known). */
void sr_setup_draw(struct sr_vdraw *vd);
/* Clip code and window coordinates of one shaded record (any worker). */
void sr_setup_vertex(const struct sr_vdraw *vd, float *r);
/* sr_bin.c: appends cmd to the tiles of tile row ty (of `layer`) that the
 * pixel columns [x0, x1] touch, allocating from `arena`; one worker per
 * tile row at a time. The caller marks the scene dirty. */
VkResult sr_bin_row(struct sr_scene *scene, struct sr_arena *arena, uint32_t layer, uint32_t ty, int32_t x0,
                    int32_t x1, struct sr_cmd cmd);

/* sr_geom.c: the raw record of one shaded vertex (any worker: lane i of
 * outputs `o` of width w into record rec); the geometry stage (or the
 * adjacency topologies without one) of the current instance: assembles
 * its input primitives, runs the shader, then captures, sets up and bins
 * its output like sr_setup_instance. */
void sr_geom_init(struct sr_vdraw *vd, struct sr_geom *g);
/* sr_geom_init's tables alone: the input slots and output words of gi, the
 * stage before having written `written` (its outputs_written); the
 * tessellation stages' geometry shader input (sr_tess_draw.c). */
void sr_geom_table(const struct shale_gs_info *gi, uint64_t written, struct sr_geom *g);
void sr_geom_vertex(const struct sr_vdraw *vd, const uint32_t *o, uint32_t w, uint32_t i, uint32_t rec);
/* The same words into r, with g's input slots (the tessellation stages'
 * records for a geometry shader, sr_tess_draw.c). */
void sr_geom_words(const struct sr_geom *g, const uint32_t *o, uint32_t w, uint32_t i, uint32_t *r);
void sr_geom_instance(struct sr_vdraw *vd);
/* Whether the draw's topology has adjacency. */
bool sr_geom_adjacency(VkPrimitiveTopology topology);
/* Grows array *p of *cap elements of `elem` bytes to hold `need` (doubling,
 * from 1024; the old elements kept); false: out of memory, *p and *cap
 * unchanged. The geometry stage's and the tessellation stages' lists. */
bool sr_geom_grow(const VkAllocationCallbacks *alloc, void **p, size_t *cap, size_t need, size_t elem);

/* sr_tess_draw.c: the raw records of the control shader's input slots
 * (sr_geom_vertex makes them, with g as for a geometry shader); the
 * tessellation stages of the current instance: patches, control shader,
 * generator, evaluation shader, then capture, setup and binning of the
 * generated list (sr_tess.h, steps 2a-2c). */
void sr_tess_draw_init(struct sr_vdraw *vd, struct sr_geom *g);
void sr_tess_instance(struct sr_vdraw *vd);

/* sr_xfb.c: appends the current window's primitives to the transform
 * feedback buffers (calling thread, after shading). */
void sr_xfb_capture(struct sr_vdraw *vd);

/* Primitives of n positions of a topology, without restarts. */
uint32_t sr_prim_count(VkPrimitiveTopology topology, uint32_t n);
/* Assembles, clips, sets up and bins the current instance's primitives
 * from vd->verts (PrimitiveId from vd->primitive_id on). */
void sr_setup_instance(struct sr_vdraw *vd);

#endif
