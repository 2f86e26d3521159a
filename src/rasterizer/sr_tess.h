/*
 * sr_tess: tessellation, the plan for the two shader stages and the
 * fixed-function primitive generator between them.
 *
 * Design note
 * -----------
 * Status: done and claimed: tessellationShader with the limits marked
 * "to report" below (sd_physical_device.c). Pipeline creation
 * (sd_graphics_pipeline.c) takes both stages with the PATCH_LIST
 * topology, patchControlPoints 1 .. 32 and the domain origin, merges
 * their execution modes (refusing a missing domain or spacing and
 * disagreeing stages) and fills sr_draw_state's tessellation fields; a
 * draw reads each stage's code with its block, scratch and width
 * (sd_cmd_draw.c). render/tess draws through the API with the validation
 * layer: every domain, spacing and order, point mode, both origins, a
 * depth-tested mesh, a geometry shader after the stages and PrimitiveId,
 * against a CPU reference and lavapipe, at SHALE_THREADS 1, 2 and 4 and
 * with baseline and vector code; shaderTessellationAndGeometryPointSize
 * (PointSize from the evaluation or geometry shader: render/tess's point
 * mode cases). Multiview runs the stages once per view (sd_cmd_draw.c queues the
 * draw per view; ViewIndex in the tess context; render/multiview). Not
 * offered: patch-list restart, a dynamic patchControlPoints or
 * domain origin (extensions not offered). OutputVertices declared by the
 * evaluation shader alone is taken from that module for the control
 * shader's compile (llvm_tess.c, sc_tess_output_vertices), and
 * control-shader Output variables with initializers are stored in the
 * patch block once per patch before any invocation runs (llvm_memory.c,
 * tcs_output_init); render/tess draws both. This note was the plan the slices followed; each says
 * here what it made true. Done: the shader ABI
 * of both stages (include/shale/shader_abi.h, "Tessellation") and the
 * compiler's translation of them (src/compiler/llvm_tess.c;
 * unit/tess_stages runs compiled control and evaluation shaders on
 * synthetic patches at every SIMD width and checks every output word);
 * the rasterizer's draw path, steps 2-2c below (sr_tess_run.c,
 * sr_tess_draw.c; unit/tess_stages draws patches through sr_scene with a
 * state filled by hand and compares the frame, bit for bit, with a
 * triangle-list draw of the generator's triangles); the
 * primitive generator (sr_tess.c, below; unit/tess); its primitive and vertex counts equal lavapipe's (Mesa 22.3.6:
 * clipping and evaluation shader invocations of one patch) for 288
 * patches over every domain, spacing and point mode, with integer,
 * fractional, below-1 and above-64 levels (an ad hoc program run once,
 * not in the tree; render/tess now compares whole images with
 * lavapipe's). Numbers below marked "to report" are the values the
 * driver reports (the Vulkan minimums).
 *
 * Where it sits in a draw (sr_raster.h's flow; sr_geom.c is the model,
 * as it slotted the geometry stage between vertex shading and assembly):
 *  2. Vertex shading as with a geometry shader: the instance's vertices
 *     (no windows: the whole instance), each record the raw output words
 *     the tessellation control shader (TCS) reads (its inputs_read
 *     slots, 4 words each, 0 where the vertex shader does not write them),
 *     not a set-up record.
 *  2a. Patch assembly on the calling thread: PATCH_LIST only (the one
 *     topology a tessellation pipeline takes); patch p of an instance is
 *     the records of vertex positions p*N .. p*N+N-1, N =
 *     patchControlPoints; a trailing partial patch is dropped; primitive
 *     restart does not apply (patch-list restart is an extension we do
 *     not offer). PrimitiveId of the TCS and TES is p, counted per
 *     instance like an input primitive of the geometry stage.
 *  2b. Per chunk of consecutive patches (bounded like sr_geom.c's chunks,
 *     by a patch count and by the bytes of the output records), on the
 *     pool's workers, one patch after another on one worker:
 *      - the TCS runs the patch (below), leaving its per-vertex outputs
 *        and its per-patch outputs (TessLevelOuter/Inner among them) in
 *        the worker's patch block;
 *      - the primitive generator (this module, plain C, below) turns the
 *        levels into domain points and primitives, or culls the patch;
 *      - the tessellation evaluation shader (TES) runs the patch's domain
 *        points in batches of W (a point per lane, TessCoord per lane, the
 *        patch's TCS outputs the same for every lane), each distinct point
 *        once, writing varying slots as a vertex shader does;
 *      - each point's outputs become a record: a set-up record (the
 *        vertex stage's layout from the TES's interface: position, point
 *        size, clip code and window coordinates, distances, fragment
 *        inputs, captured components) without a geometry shader, or the
 *        raw words the geometry shader reads with one;
 *      - the patch's primitives become indices into its own records.
 *  2c. The calling thread walks the chunk in patch order and appends each
 *     patch's records and its primitives' indices (rebased) to the
 *     instance's output: an indexed TRIANGLE_LIST, LINE_LIST or POINT_LIST
 *     (point mode), which is what step 3 (or the geometry stage's input
 *     assembly, which then takes an index list in place of positions)
 *     sees, provoking vertex rules of lists. The spec lets a patch's
 *     primitives go out in any order but requires all of a patch's before
 *     the next patch's ("Tessellation Primitive Ordering"): patch order is
 *     API order here, and the generator's own order is fixed, so frames
 *     stay bit-identical at every SHALE_THREADS (every record is a
 *     function of its patch alone, as with the geometry stage).
 *  3-5. Unchanged: transform feedback captures the last vertex stage's
 *     output (the TES's Xfb decorations without a geometry shader),
 *     before clipping and rasterizer discard; clipping, face culling
 *     (the window-space winding of the generated triangles, which the
 *     generator orients as VertexOrderCw/Ccw and the domain origin say),
 *     setup and binning as for any list.
 *  Without a fragment-visible PrimitiveId from a geometry shader, the
 *  fragment shader's PrimitiveId is the patch's (the TES's) here, as on
 *  lavapipe; see the end of this note for the spec's wording.
 *
 * The tessellation control stage. A patch's OutputVertices invocations
 * (1 .. 32, maxTessellationPatchSize to report: 32) share the patch's
 * outputs: each writes its own per-vertex outputs (gl_out[InvocationId])
 * and any of the per-patch ones, and after an OpControlBarrier may read
 * every invocation's. That is a compute workgroup's shape, so the TCS is
 * compiled as one: a call runs one whole patch, its invocations the lanes
 * of ceil(OutputVertices / W) subgroups (InvocationId = subgroup * W +
 * lane, lanes past OutputVertices inactive), and OpControlBarrier is the
 * compute stage's barrier (shader_abi.h, "Barriers"): with one subgroup
 * it only orders memory (the lanes run in lock step), with several the
 * compiled patch function is the resumable scheduler compute already uses
 * (every subgroup runs to the barrier, then every subgroup resumes). The
 * per-vertex and per-patch outputs live in the call's patch block (its
 * workgroup memory, laid out by the compiler as it lays out Workgroup
 * variables), not in lane registers, because another invocation reads
 * them; an output load is a load from that block. When the patch has
 * run, the compiled code copies the written outputs out to the patch's
 * per-vertex words ((v * SHALE_SLOT_COUNT + slot) * 4 + c) and patch
 * words (patch slot * 4 + c; TessLevelOuter slot 0, TessLevelInner slot
 * 1, Patch Locations after), the layout the TES reads as it is. The
 * patch's input vertices come in the same per-vertex layout; the
 * shaders' input arrays are one copy per call, not per lane. The spec's rules make this enough: outputs are only read after a
 * barrier that orders the write (else the value is undefined), and
 * barriers sit in uniform control flow of the patch. A patch of fewer
 * invocations than W wastes lanes (3 of 8 for a triangle patch); packing
 * floor(W / OutputVertices) patches into one call when the shader has no
 * barrier is a later optimization, not the first version.
 *
 * The primitive generator (sr_tess.c; the Vulkan spec's "Tessellator"
 * sections). Plain C on the worker that ran the patch's TCS, from: the
 * domain (Triangles, Quads, IsoLines), the spacing (SpacingEqual,
 * SpacingFractionalEven, SpacingFractionalOdd), PointMode, the vertex
 * order (VertexOrderCw/Ccw) and the domain origin
 * (VkPipelineTessellationDomainOriginStateCreateInfo: upper-left unless
 * given), these execution modes merged from both stages at pipeline
 * creation (either stage may declare them), and the patch's 4 outer and 2
 * inner levels. The rules it follows:
 *  - Culling: the patch is discarded, no TES invocation, when a relevant
 *    outer level (Quads 4, Triangles 3, IsoLines 2) is <= 0 or NaN.
 *    Inner levels never cull (NaN and negatives clamp).
 *  - Levels: equal spacing clamps to [1, maxLevel] and rounds up to the
 *    integer n; fractional even clamps to [2, maxLevel] and rounds up to
 *    an even n; fractional odd clamps to [1, maxLevel - 1] and rounds up
 *    to an odd n; maxLevel = maxTessellationGenerationLevel (to report:
 *    64). An edge of level n has n segments: equal ones, or for
 *    fractional spacing n - 2 equal ones of length 1/f (f the clamped
 *    level) and two shorter ones of (f - (n - 2)) / (2f) each, placed
 *    symmetrically (here: next to the middle of the edge), so the edge's
 *    points are a function of f alone (the spec requires identical edges
 *    for identical f) and equal spacing's when f = n. IsoLines' first
 *    outer level (the number of lines) is always equal spacing.
 *  - Triangles: all levels 1 gives one triangle (0,0,1) (1,0,0) (0,1,0);
 *    else an inner level of 1 counts as 1 + epsilon (2 segments, 3 with
 *    fractional odd). The inner level's edge subdivision (n segments)
 *    gives concentric rings: ring r has n - 2(r + 1) segments a side,
 *    corners at barycentric (1 - 2m, m, m) and rotations with m = 2t/3 (t
 *    the inner edge's point r + 1: the perpendiculars of the spec's
 *    construction), its side points the perpendicular projections of the
 *    inner edge's points r + 1 .. n - r - 1; a ring of 0 segments is the
 *    centre point, one of 1 segment a triangle emitted as is. Between two
 *    rings, and between the outer edges (u = 0 edge from outer level 0,
 *    v = 0 from 1, w = 0 from 2) and ring 0, each side's band is stitched
 *    by walking both polylines in parameter order (a + b triangles for a
 *    outer and b inner segments; a fan onto the centre point).
 *  - Quads: all levels 1 gives two triangles; else inner levels of 1
 *    count as 1 + epsilon. Inner level 0 subdivides u, inner level 1
 *    subdivides v; the grid's interior rectangles become two triangles
 *    each; the outer edges (u = 0 from outer level 0, v = 0 from 1,
 *    u = 1 from 2, v = 1 from 3) are stitched to the inner rectangle's
 *    sides as for triangles (a side of one point when its inner level is
 *    2: a fan).
 *  - IsoLines: n0 lines at v = 0, 1/n0, .., (n0 - 1)/n0 (none at v = 1),
 *    each of n1 segments along u from the second outer level and the
 *    spacing.
 *  - Point mode: each distinct vertex once, no other primitive.
 *  - Winding: the spec defines it by the sign of a = u0 v1 - u1 v0 +
 *    u1 v2 - u2 v1 + u2 v0 - u0 v2 (upper-left origin: a < 0 is
 *    counter-clockwise; the lower-left origin flips it); every generated
 *    triangle is put in the requested order by that sign (zero-area ones,
 *    which fractional spacing can make, are left as generated).
 *  - Exactness and watertightness: coordinates are computed in 16.16
 *    fixed point and converted to float exactly (every k / 65536 in
 *    [0, 1] is a float), so a triangle's u + v + w is exactly 1 (also in
 *    float: a sum of multiples of 2^-16 below 2 is exact), an edge's
 *    points are symmetric exactly (the point k from one end is 1 minus the
 *    point k from the other: the second half of an edge is the first half
 *    mirrored in integers), an outer edge's points depend only on its
 *    level and spacing, the same for every edge of every domain, so two
 *    patches sharing an edge with equal outer levels generate the same
 *    points on it bit for bit, whatever the orientation. Interior rings
 *    depend only on the inner level, each outer band only on its edge's
 *    level and the inner level (the spec's invariance rules). A ring's m
 *    is rounded to an even 16.16 value so its sides' middle points split
 *    evenly: every triangle point's rotations and reflections are points
 *    too, exactly, but the centre: 1/3 has no 16.16 value, so it is
 *    (21845, 21845, 21846) / 65536.
 *  - Ordering: the spec leaves the order of a patch's primitives and of a
 *    triangle's vertices (within its winding) to the implementation; here
 *    it is fixed (vertices: outer corners, outer edges, then inner points;
 *    triangles: the outer band then ring by ring inward, or the quad's
 *    inner grid then its four bands), so output never depends on
 *    anything but the patch.
 *
 * The evaluation stage. A TES call runs up to W domain points of one
 * patch: TessCoord per lane (u, v, w; w = 0 for quads and isolines),
 * PrimitiveId and the patch's TCS outputs (per-vertex, gl_in[] of the
 * TES, and per-patch, TessLevelOuter/Inner included) uniform across the
 * call, read from the words the TCS copied out; its outputs are written as a vertex
 * shader's (varying slots, W lanes, the same epilogue for clip distances
 * and transform feedback). A patch's points go W at a time; a patch with
 * fewer points than W leaves lanes idle (batches across patches would
 * need per-lane patch pointers: a later optimization).
 *
 * Threading and memory: the chunks' patches run on the pool's workers;
 * each worker owns its patch block, its generator output and its TES
 * batch buffers, sized at draw time from the pipeline (OutputVertices,
 * output words) and from the generator's bound (at maxLevel 64: at most
 * 65 * 65 = 4225 points and 8192 triangles a patch, from quads); a
 * chunk's output region is bounded in bytes, so a chunk holds fewer
 * patches at high levels. An allocation failure drops the instance's
 * output with VK_ERROR_OUT_OF_HOST_MEMORY, as the geometry stage does.
 * Pipeline statistics: input assembly primitives count patches, TCS
 * patches the patches whose TCS ran, TES invocations the points shaded
 * (each distinct point once), all integer sums in API order.
 *
 * Limits reported (the spec's minimums; the ABI has 32 Locations a vertex
 * and a patch; render/tess draws a 32-control-point patch reading back
 * 12 input and 8 output vec4 a vertex and 4 or 12 patch vec4, every
 * component checked, about as many Locations as the validation layer
 * lets through at these limits: it counts patch Locations and the
 * gl_PerVertex built-ins against the per-vertex ones; unit/tess_stages,
 * without the layer, runs the highest Locations they allow through both
 * stages: per-vertex input and output Location 15, patch Location 29):
 * maxTessellationGenerationLevel 64, maxTessellationPatchSize 32,
 * maxTessellationControlPerVertexInputComponents 64,
 * maxTessellationControlPerVertexOutputComponents 64,
 * maxTessellationControlPerPatchOutputComponents 120,
 * maxTessellationControlTotalOutputComponents 2048,
 * maxTessellationEvaluationInputComponents 64,
 * maxTessellationEvaluationOutputComponents 64; the features
 * tessellationShader and shaderTessellationAndGeometryPointSize (PointSize
 * written by the TES or the geometry shader), and the domain origin
 * structure (core in 1.1).
 *
 * What the shader ABI gained (include/shale/shader_abi.h, "Tessellation",
 * version 13; done):
 *  - Patch slots: a per-patch varying space beside the per-vertex one,
 *    TessLevelOuter[4] and TessLevelInner[2] in two built-in slots, Patch
 *    Locations after them.
 *  - struct shale_tcs_info: OutputVertices, the per-vertex slots read and
 *    written, the patch slots written, the execution modes it declares;
 *    struct shale_tes_info: the modes it declares (pipeline creation
 *    merges the two), inputs read (per-vertex and per-patch), and a vertex
 *    shader's output description (shale_vs_info) for its outputs, as
 *    shale_gs_info has.
 *  - The TCS entry point (shale_tcs_fn): a compute-like call per patch
 *    (context: sets, push constants, cancel, view index; per call: the
 *    patch's input vertices, PrimitiveId, patchControlPoints
 *    (PatchVertices), the patch block (zeroed by the caller), scratch for
 *    the subgroup frames when it has barriers, and where its outputs go).
 *  - The TES entry point (shale_tes_fn): a vertex-shader-like batch
 *    (count, TessCoord per lane, PrimitiveId, PatchVertices, the patch's
 *    per-vertex and patch words, outputs[(slot * 4 + c) * W + lane]).
 * The driver side (pipeline creation linking the stages, the
 * VkPipelineTessellationStateCreateInfo and domain origin, the features,
 * limits and patch-list topology) comes last, once a draw runs end to end.
 *
 * Running a patch (sr_tess_run.c; done, unit/tess_stages): step 2b's
 * per-patch work as one function, the control shader, the generator and
 * the evaluation batches, over a worker's buffers (struct
 * sr_tess_worker) sized once for the largest patch of the draw's merged
 * modes; each batch's outputs go to a callback that makes the records.
 * The draw (sr_tess_draw.c; done as far as unit/tess_stages draws): the
 * vertex stage writes raw records of the control shader's input slots
 * (sr_geom_vertex, as for a geometry shader); sr_tess_instance runs the
 * instance's patches in chunks on the pool's workers (each worker its
 * sr_tess_worker; a chunk's regions bounded in bytes), each patch's
 * set-up records (the evaluation shader's outputs in the layout vdraw_init
 * derives from shale_tes_info.out, PrimitiveId the patch's at
 * prim_id_off) into its own region, then appends the chunk's records and
 * rebased indices in patch order and sets the list up as sr_geom.c does.
 * Indexed and instanced patch draws run as the vertex stage's do
 * (PrimitiveId restarting with each instance; unit/tess_stages). With a
 * geometry shader, the records are the raw words it reads (its input
 * slots from the evaluation shader's outputs) and the list goes to the
 * geometry stage (sr_geom_instance) as its input primitives, its
 * PrimitiveIdIn counting them from 0 per instance ("the number of
 * primitives presented as input to the shader"; unit/tess_stages draws a
 * pass-through geometry shader after tessellation, equal to the frame
 * without it). The fragment shader's PrimitiveId without a geometry
 * shader is the patch's here, as GLSL ("behaves identically as it would
 * in the tessellation control and evaluation languages") and D3D have it
 * and as lavapipe (Mesa 22.3.6) does; the Vulkan text ("the value that
 * would have been presented as input to the geometry shader had it been
 * present") reads as the generated primitive's index, which is what a
 * geometry shader's PrimitiveIdIn is here and on lavapipe. render/tess
 * holds both: the patch index without a geometry shader, the generated
 * triangles' indices (8 a patch) through one; the two paths differ as
 * lavapipe's do, which we follow until the spec's wording is settled
 * upstream. Transform feedback captures the
 * evaluation shader's outputs without a geometry shader (the records keep
 * its Xfb components; unit/tess_stages checks every captured vertex).
 * Pipeline statistics count as the paragraph on them above says
 * (sr_tess_instance, sr_vertex.c's count_stats; unit/tess_stages). The
 * driver side is done (the status paragraph at the top).
 */
#ifndef SR_TESS_H
#define SR_TESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <vulkan/vulkan_core.h>

#include "shale/shader_abi.h"

/* maxTessellationGenerationLevel the generator is built for (the spec's
 * minimum, reported). */
#define SR_TESS_MAX_LEVEL 64
/* 1.0 of the generator's 16.16 fixed-point domain coordinates. */
#define SR_TESS_ONE 65536u

enum sr_tess_domain {
   SR_TESS_TRIANGLES,            /* Triangles: (u, v, w), u + v + w = 1 */
   SR_TESS_QUADS,                /* Quads: (u, v, 0) */
   SR_TESS_ISOLINES,             /* IsoLines: (u, v, 0) */
};

enum sr_tess_spacing {
   SR_TESS_EQUAL,                /* SpacingEqual */
   SR_TESS_FRACTIONAL_EVEN,      /* SpacingFractionalEven */
   SR_TESS_FRACTIONAL_ODD,       /* SpacingFractionalOdd */
};

/* One patch's input to the generator: the merged execution modes, the
 * domain origin and the levels the control shader wrote. */
struct sr_tess_params {
   enum sr_tess_domain domain;
   enum sr_tess_spacing spacing;
   bool point_mode;              /* PointMode */
   bool ccw;                     /* VertexOrderCcw (else VertexOrderCw) */
   bool lower_left;              /* VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT */
   float outer[4];               /* TessLevelOuter */
   float inner[2];               /* TessLevelInner */
};

/* What a patch generates: vertices (distinct domain points) and
 * primitives of prim_verts indices each: 3 (triangles), 2 (isolines'
 * segments) or 1 (point mode: every vertex once, in vertex order). */
struct sr_tess_counts {
   uint32_t vertices;
   uint32_t primitives;
   uint32_t prim_verts;
};

/* The edge subdivision of a level under a spacing: the clamped level f
 * (in *clamped when not NULL) and the segment count n it rounds up to
 * (the spec's "Tessellator Spacing"; a NaN level clamps to the low end). */
uint32_t sr_tess_level(enum sr_tess_spacing spacing, float level, float *clamped);

/* Counts of the patch; false (all counts 0) when the patch is culled
 * (a relevant outer level <= 0 or NaN). */
bool sr_tess_count(const struct sr_tess_params *p, struct sr_tess_counts *c);

/* Writes the patch's vertices' (u, v, w) to coord[0 .. vertices - 1] and
 * its primitives' indices to index[0 .. primitives * prim_verts - 1],
 * arrays the caller sized from sr_tess_count (nothing is written for a
 * culled patch). Triangles are in the order the params' winding asks. */
void sr_tess_generate(const struct sr_tess_params *p, float (*coord)[3], uint32_t *index);

/* A patch's output in memory of its own. */
struct sr_tess_patch {
   struct sr_tess_counts n;
   float (*coord)[3];
   uint32_t *index;
};

/* Counts, allocates (from alloc, COMMAND scope; malloc when NULL) and
 * generates. VK_ERROR_OUT_OF_HOST_MEMORY leaves *out empty with nothing
 * allocated; a culled patch allocates nothing. */
VkResult sr_tess_patch_build(const struct sr_tess_params *p, const VkAllocationCallbacks *alloc,
                             struct sr_tess_patch *out);
void sr_tess_patch_free(struct sr_tess_patch *patch, const VkAllocationCallbacks *alloc);

/* ---- Running a patch (sr_tess_run.c) ---- */

/* A draw's tessellation stages, set up once per draw. */
struct sr_tess_stages {
   shale_tcs_fn tcs;
   const struct shale_tcs_info *tcs_io;
   uint32_t tcs_block_size;      /* sc_shader.shared_size of the control shader */
   uint32_t tcs_scratch_size;    /* its sc_shader.scratch_size */
   shale_tes_fn tes;
   const struct shale_tes_info *tes_io;
   uint32_t tes_width;           /* W of the evaluation shader */
   uint32_t patch_vertices;      /* patchControlPoints: PatchVertices of the control shader */
   struct sr_tess_params mode;   /* sr_tess_merge_modes (levels unused) */
};

/* The generator's modes from the two stages' declarations and the domain
 * origin; false when neither declares the domain or the spacing, or the
 * two disagree. Triangles without a declared order are counter-clockwise. */
bool sr_tess_merge_modes(const struct shale_tess_modes *tcs, const struct shale_tess_modes *tes,
                         bool lower_left, struct sr_tess_params *out);

/* One worker's memory for running patches: the control shader's patch
 * block and scratch, the patch's per-vertex and patch words, one batch of
 * evaluation outputs, the generator's output sized for the largest patch
 * of the draw's modes. Not shared between threads. */
struct sr_tess_worker {
   const VkAllocationCallbacks *alloc;
   void *block, *scratch;
   uint32_t *outputs;            /* per-vertex words (shader_abi.h, "Tessellation") */
   uint32_t *patch;              /* patch words */
   uint32_t *tes_out;            /* SHALE_SLOT_COUNT * 4 * W words */
   float (*coord)[3];            /* [max_vertices] */
   uint32_t *index;              /* [max_indices] */
   uint32_t max_vertices, max_indices;
};

/* Allocates from alloc (COMMAND scope; aligned_alloc when NULL);
 * VK_ERROR_OUT_OF_HOST_MEMORY leaves nothing allocated. */
VkResult sr_tess_worker_init(struct sr_tess_worker *w, const struct sr_tess_stages *s,
                             const VkAllocationCallbacks *alloc);
void sr_tess_worker_finish(struct sr_tess_worker *w);

/* Called with each batch of evaluated points: lane i (< count) of
 * outputs (outputs[(slot * 4 + c) * w + i], shale_tes_batch's layout) is
 * point first + i of the patch. */
typedef void (*sr_tess_emit_fn)(void *data, const uint32_t *outputs, uint32_t w, uint32_t first,
                                uint32_t count);

/* Runs one patch: the control shader on `inputs` (per-vertex words of
 * SHALE_TESS_MAX_PATCH_VERTICES vertices, the first patch_vertices the
 * patch's), the generator on the levels it wrote, the evaluation shader
 * on each generated point once, in the generator's order, emit after each
 * batch. *counts is the patch's (all 0 when culled: no evaluation call);
 * its primitives' indices are then in w->index. */
void sr_tess_run_patch(const struct sr_tess_stages *s, struct sr_tess_worker *w,
                       const struct shale_tess_context *ctx, const uint32_t *inputs,
                       uint32_t primitive_id, sr_tess_emit_fn emit, void *data,
                       struct sr_tess_counts *counts);

#endif
