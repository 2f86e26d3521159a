/*
 * sr_raster: draws in plain C state, binned into 64x64 tiles, rasterized
 * by the worker pool.
 *
 * Design note
 * -----------
 * Owns: struct sr_context (one per device: the thread pool it borrows, the
 * per-worker scratch memory, memory kept between scenes) and struct sr_scene (one render pass instance
 * or dynamic-rendering instance being drawn: its arena, its tiles' command
 * lists, its post-transform vertices and set-up primitives). Knows no Vulkan
 * objects: the driver hands it attachments as memory descriptions
 * (struct sr_surface), pipeline and dynamic state as one plain-C struct of
 * Vulkan enums (struct sr_draw_state), and per-draw bindings as a snapshot
 * (struct sr_draw_bindings). Compiled code is reached only through
 * include/shale/shader_abi.h (shale_vs_fn, shale_gs_fn, shale_fs_fn,
 * shale_vs_info, shale_gs_info, shale_fs_info).
 *
 * The flow of a draw (sr_scene_draw, on the calling thread, the queue's):
 *  1. Snapshot: the draw's state and bindings are copied into the scene's
 *     arena (the state only when it changed since the last draw: the driver
 *     keeps one struct sr_draw_state per command buffer and marks it dirty),
 *     so later commands can change anything while the draw waits in the
 *     bins. The code pointers (baseline or optimized) are read once here:
 *     a draw never changes code half way.
 *  2. Vertex shading: the draw's vertices (an indexed draw shades each
 *     distinct index value once per instance when the values span at most
 *     about four times the index count, else each index position; the
 *     indices of a draw of 65536 or more are read on the pool when it has
 *     four participants or more, in passes that number the distinct
 *     values in order of first occurrence as the calling thread's single
 *     pass does: each value's smallest position by an atomic minimum,
 *     first occurrences counted per chunk, prefix sums) in
 *     batches of W over the pool (chunks of at least 256 vertices: a
 *     smaller draw is shaded on the calling thread, no worker woken); per
 *     batch the C vertex fetch converts attributes to the shader's input
 *     types (shale_vs_batch.inputs), the compiled vertex
 *     shader writes varying slots, which are kept as one record per vertex
 *     (clip position, point size, clip code, window coordinates, clip and
 *     cull distances, the components the fragment shader reads) in draw
 *     order. A draw runs one instance at a time, and a non-indexed list or
 *     strip draw of more than 49152 vertices in windows of that many
 *     (shade, then steps 3-5): the records live in buffers the scene reuses
 *     for the next window, instance and draw (set-up primitives keep planes,
 *     not records).
 *  3. Primitive assembly (every Vulkan 1.0 list, strip and fan topology,
 *     primitive restart, the provoking vertex; PrimitiveId counts a draw's
 *     primitives per instance, culled ones included), culling by cull
 *     distances, clipping: triangles that cross the near/far planes (not
 *     with no_depth_clip: then w > 0), a user clip plane or the guard band are
 *     clipped, Sutherland-Hodgman in clip space over every varying, new
 *     points interpolated from the inside vertex so neighbours agree; lines
 *     are cut against the same planes; triangles or lines wholly outside the
 *     view volume in x or y are dropped, as are points whose vertex is
 *     outside it. Then face determination and culling on the clipped
 *     polygon, and polygon mode: FILL, or LINE / POINT drawing the
 *     polygon's own edges / vertices (not those clipping made), with the
 *     polygon's facing and depth bias. Rasterizer discard still runs the
 *     vertex shader (its stores are seen) and stops here.
 *     Transform feedback comes first (sr_xfb.c): when the draw has active
 *     buffers (sr_draw.xfb) and the vertex shader captures outputs
 *     (shale_vs_info.xfb), the records also keep the captured components,
 *     and after each window of an instance is shaded the calling thread
 *     walks its primitives in order (strips and fans as separate
 *     triangles and lines keeping their winding, each triangle's provoking
 *     vertex written first, or last in LAST mode; restarts cutting strips
 *     and fans) and appends
 *     each one's vertices to the buffers, before clipping and whatever
 *     rasterizer discard says; a primitive that does not fit in every
 *     buffer it writes is not written (and not counted as written). One
 *     thread, API order: the bytes never depend on SHALE_THREADS.
 *  4. Setup in fixed point: window coordinates snapped to 1/256 pixel
 *     (subPixelPrecisionBits 8), edge functions in 64-bit integers with the
 *     top-left rule as a bias, the bounding box clipped to the scissor of
 *     the primitive's viewport and to the render area, plane equations (struct shale_fs_plane) for z, 1/w and every
 *     input component the fragment shader reads, depth bias (m * slope +
 *     r * constant, clamped; m = max(|dz/dx|, |dz/dy|), r = 2^-n for n-bit
 *     UNORM depth, 2^(e - 23) for float depth, e the exponent of the
 *     primitive's largest |z|). Lines are parallelograms of lineWidth along
 *     the minor axis (non-strict lines, Vulkan's default rasterization),
 *     rectangles of lineWidth (RECTANGULAR, strict) or, for BRESENHAM, the
 *     parallelogram with its ends moved to the first and last columns the
 *     diamond-exit rule gives; their planes vary only along the segment;
 *     points are squares of PointSize
 *     (1.0 unless written; clamped to [1, SR_MAX_POINT_SIZE]) with constant
 *     planes and PointCoord planes; both are set up as two triangles that
 *     share planes.
 *  5. Binning: the primitive's pointer is appended to the command list of
 *     every 64x64 tile its bounding box touches (a later step: only tiles
 *     its edges touch). Bins hold commands in API order: CLEAR (load op,
 *     vkCmdClearAttachments), PRIM, RESOLVE, and are only appended to.
 * Geometry shading (sr_geom.c; a pipeline with a geometry shader,
 * sr_draw_state.gs): between steps 2 and 3. Step 2 shades the instance's
 * vertices as always (no windows: the whole instance at once), but a
 * vertex's record is then the raw output words the geometry shader reads
 * (shale_gs_info.inputs_read's slots, 4 words each; 0 for slots the vertex
 * shader does not write), not a set-up record. The calling thread then
 * assembles the input primitives in order (every list and strip topology,
 * the four adjacency ones by the spec's equations, primitive restart
 * cutting strips; PrimitiveIdIn counts the instance's input primitives)
 * and cuts them into chunks of up to 64 groups of W consecutive
 * primitives (fewer when a chunk's output records would pass about
 * 8 MiB); a batch is one group (a primitive per lane) and one
 * InvocationId (a primitive runs shale_gs_info.invocations times, one
 * call per invocation). The chunk's
 * batches run on the pool's workers: each fills its lanes' input vertex
 * arrays from the records (shale_gs_batch.inputs), calls the compiled
 * shader, and turns every vertex it emitted into a set-up record (the
 * layout of step 2 without a geometry shader, from shale_gs_info.out in
 * place of the vertex shader's interface: position, point size, clip
 * code and window coordinates, distances, fragment inputs, captured
 * components) in the batch's own region of the chunk's buffer, with the
 * lane's strip cuts. Then the calling thread walks the chunk in API order
 * (primitive by primitive, each primitive's invocations from 0 up, each
 * invocation's vertices in emission order) and appends the records to the
 * instance's output list, a restart position between strips (EndPrimitive,
 * the end of an invocation, the end of a lane): so the output is an
 * indexed strip (or point list) with restarts, whatever worker ran which
 * batch, and steps 3-5 run on it unchanged with the geometry shader's
 * output topology (POINT_LIST, LINE_STRIP or TRIANGLE_STRIP, the
 * provoking vertex rules of strips) in place of the draw's (on the
 * calling thread: a list with restarts is never set up in parallel, a
 * later step). Transform feedback captures these output primitives (the
 * geometry shader's Xfb decorations; the vertex shader's are not
 * captured), before clipping and rasterizer discard, on the calling
 * thread. A primitive's PrimitiveId
 * for the fragment shader is the PrimitiveId its provoking vertex was
 * emitted with when the geometry shader writes it (else the output
 * primitive's index in the instance), its layer the provoking
 * vertex's Layer when written (primitives whose Layer is not a layer of
 * the scene are dropped; else the view index), and its viewport the
 * provoking vertex's ViewportIndex when written (multiViewport: that
 * viewport's transform, guard band clipping, depth range and scissor; an
 * index past sr_draw_state.viewport_count drops the primitive, the
 * spec leaving the viewport undefined; else viewport 0, which the
 * records' clip codes and window coordinates are computed for: another
 * viewport's primitive computes its vertices' anew). Vertices past
 * OutputVertices are dropped, as are incomplete strips. Without a
 * geometry shader an adjacency topology draws its primitives' own
 * vertices (lines 1-2, triangles 0-2-4 of each input primitive), the
 * adjacent ones unused. Everything the calling thread appends is in API
 * order and every record is a function of its vertex alone, so frames stay
 * bit-identical at every SHALE_THREADS. The buffers (input primitives,
 * chunk regions, output list) are the instance's own, freed once it is set
 * up; an allocation failure drops the instance's output with
 * VK_ERROR_OUT_OF_HOST_MEMORY.
 * Tessellation (sr_draw_state.tes; sr_tess.h's design note): between
 * steps 2 and 3 as for geometry shading: step 2 writes raw records of the
 * control shader's inputs, sr_tess_draw.c runs the instance's patches
 * (control shader, primitive generator, evaluation shader) on the
 * workers and sets the generated list up in patch order (unit/tess_stages
 * below the API; render/tess through it).
 * Steps 3-4 of an instance with more than 1024 primitives and no restart
 * run in parallel: chunks of 1024 primitives are assembled, clipped and
 * set up on the workers (into per-worker arenas, kept until the flush),
 * each chunk ending with a counting sort of its primitives by tile row
 * (API order kept within a row; a primitive in every row its box meets,
 * with its tile columns and layer beside the pointer), then binned in
 * parallel by tile rows (each row's worker walks every chunk's list of
 * that row in chunk order, reading neither other rows' entries nor the
 * primitives, and appends to its own row's bins); smaller
 * instances and those with restarts run on the calling thread. Every
 * primitive is set up the same whichever worker does it, and bins keep
 * API order, so the result never depends on the thread count.
 *
 * Flush (sr_scene_flush): every tile with commands is rasterized by one
 * worker at a time (su_thread_pool_run over the tiles, handed out one at
 * a time, the tiles with the most commands first, so that the cheap ones
 * are left for the end: see flush_tiles); a tile runs its
 * commands in order: that is how API order per pixel is kept with no locks,
 * and why a frame is bit-identical for every SHALE_THREADS value (no
 * floating-point result depends on which worker ran a tile or in which
 * order tiles ran). For a primitive, the tile worker walks the 4x4-pixel
 * blocks of its bounding box inside the tile, evaluates the three edge
 * functions (rejecting and accepting whole blocks from their extremes,
 * stepped block to block in the loop itself; a block rejected by an edge
 * that does not grow to the right ends its row, one rejected only by
 * edges growing to the right skips to where the last of them reaches
 * the block (one division an edge); a full block on the
 * whole-block path below gets no masks at all (and where the box is whole
 * blocks and its four corner blocks are full, every block is, and none is
 * classified: a tile inside a large triangle), and a block's early tests,
 * when the routine's count says every sample passed (a full block, or any
 * block at one sample), are not read back),
 * builds per-sample coverage masks for the rest (sr_coverage.h: only the edges that
 * cross a block are evaluated per sample, in 32-bit vector lanes where
 * the block's values fit, else in 64 bits), groups covered 2x2 quads W/4 at a time
 * into one shale_fs_quads call (helper lanes fill partial quads; the
 * quads of a primitive's partly covered blocks wait in a batch of the
 * tile's until W/4 of them, from any of its blocks, fill a call, or the
 * primitive ends (small primitives cover a few quads of several blocks);
 * a block that no edge crosses and the box holds is "full": its four
 * quads go to the shader as calls of their own with one mask for every
 * lane, no per-lane look-ups, and centroids are computed only for
 * shaders with CENTROID inputs; per-sample shading calls a block's quads
 * a pass at a time), and runs
 * the per-fragment operations on the results: scissor (already in the
 * box), sample mask, early depth/stencil when the shader allows it
 * (EarlyFragmentTests, or nothing that could change or observe the outcome:
 * no FragDepth, discard, SampleMask output, stencil export, buffer or image
 * side effects, nor alpha to coverage), the fragment shader (once per pixel,
 * or once per covered sample with sample shading, SampleId or sample
 * interpolation), SampleMask output and alpha to coverage, late
 * depth/stencil (every compare and stencil op, masks, references, depth
 * bounds), blending (every factor and op, constants, dual source), logic
 * ops, write masks, sRGB encoding and format packing. Occlusion counts are
 * summed per tile by its worker and added (atomically: integer sums, the
 * same in any order) to the draw's counter when the tile is done; every
 * addition has happened when the flush returns.
 *
 * Pipeline statistics (sr_draw.stats, NULL unless the driver has a
 * statistics query active): sr_vertex_draw adds, on the calling thread,
 * the index positions (restart indices not counted) and primitives
 * assembled (sr_prim_count per run between restarts; incomplete
 * primitives not counted) per instance, and the vertices it actually
 * shaded (each distinct index once for a cached indexed draw, a strip's
 * carried-over vertices again in each window). Clipping invocations are
 * the assembled primitives, clipping primitives what clipping outputs
 * (cull-distance culled, trivially rejected and wholly clipped ones not;
 * a clipped triangle's polygon of n vertices counts n - 2), both counted
 * per setup (chunk sums added in chunk order for a parallel setup), and
 * both 0 with rasterizer discard (the spec allows it); with a geometry
 * shader clipping sees its output primitives. Geometry shader invocations
 * are the input primitives times Invocations, geometry shader primitives
 * the output primitives its strips make (added on the calling thread as
 * it walks the chunks). With tessellation, input assembly primitives are
 * the patches, tessellation control patches every patch (culled ones
 * too: their control shader ran), evaluation invocations the generated
 * points (each distinct point once), and clipping sees the generated
 * primitives (or the geometry shader's output). Fragment shader
 * invocations are the lanes with coverage in each shader call (helper
 * lanes not: once per pixel, or per sample with sample shading), summed
 * per tile and added at the tile's end like occlusion counts. All are
 * integer sums of per-primitive or per-tile work that does not depend on
 * the thread count, so they are the same at every SHALE_THREADS. Without
 * a query the cost is one add per primitive in setup.
 * The fragment back end: compiled per back-end key, with the C code of
 * sr_fragment.c as its reference and fallback.
 *  - The key (struct shale_fb_key, shader_abi.h) is static pipeline state
 *    only: the fragment shader's SIMD width W, the sample count,
 *    alpha-to-one, and per colour attachment its format and whether it is
 *    written, blend enable, the four factors, the two ops and the write
 *    mask. Dynamic state is never in the key: the blend constants (already
 *    clamped per attachment as sr_fragment_setup clamps them), and for the
 *    depth/stencil part the stencil reference and masks and the depth
 *    bounds, are read at run time from the call's context block
 *    (struct shale_fb_context) with the attachments' addresses and pitches.
 *    So one routine serves every framebuffer of the same formats and every
 *    value of the dynamic states. Depth/stencil has a key of its own
 *    (struct shale_fb_ds_key: W, samples, the depth and stencil
 *    attachments' formats, depth test / write / compare op / bounds,
 *    whether FragDepth is the tested depth and depth clamp, and per face
 *    the stencil compare op and its three ops) and a routine of its own
 *    (shale_fb_ds_fn), compiled the same way (sc_compile_fragment_ds,
 *    src/compiler/llvm_backend_ds.c, from sr_fragment_backend_ds_key at
 *    pipeline creation, also for pipelines without a fragment shader,
 *    which get W = 16). It is a separate routine because the tile loop
 *    calls it at two places: early, on the 16 pixels of a block before any
 *    shading (the block's pixels in order, W / 4 rows a call with the
 *    routine's rows promise, the block's coverage array in place; a call
 *    whose rows have no coverage is skipped), and late,
 *    on the shader's W lanes after discard, SampleMask and alpha to
 *    coverage, before the colour routine. Its code tests every lane's
 *    samples as one vector while lanes x samples is at most 64 (every
 *    case today; beyond, it loops over the lanes): each lane's pixel is
 *    one plain load and at most one store of its adjacent samples, an
 *    uncovered lane pointed at a scratch pixel of the routine's stack
 *    (the tile's worker owns the pixels; uncovered samples are stored
 *    unchanged); at W 16 with the rows promise, each row of four pixels
 *    is one masked load and store (the covered lanes' texels), and
 *    uncovered pixels are not touched.
 *  - Where: at graphics pipeline creation (sd_graphics_pipeline.c) the
 *    driver derives the key from its translated state, the subpass's (or
 *    VkPipelineRenderingCreateInfo's) attachment formats and the fragment
 *    shader's width (sr_fragment_backend_key, the same derivation the
 *    rasterizer uses at draw time) and asks the compiler for the routine
 *    (sc_compile_fragment_backend, src/compiler/llvm_backend.c: LLVM IR
 *    built straight from the key, optimized and JIT-linked like shaders).
 *    The compiler caches routines by key for its lifetime, like compute
 *    code is cached by its key, so pipelines that share formats and blend
 *    state share one routine; the first one costs LLVM's optimizer and code
 *    generator (unit/fragment_backend: 77 keys and their C comparisons in
 *    9 s of CPU on this machine, so up to about 0.1 s a key), paid on the
 *    driver's optimizer thread, not in pipeline creation: the pipeline's
 *    state carries the key with no routine, its draws run the C code (the
 *    same pixels), and each draw replayed after the routine is in place
 *    reads it once into its state (sd_cmd_draw.c), so no draw switches
 *    inside itself and no frame depends on when the compile ended.
 *    Routines travel in VkPipelineCache data with the shaders
 *    (sd_backend_cache_get/put), so a pipeline made from cache data
 *    compiles none.
 *  - Shape: a separate routine per key, called by the tile loop right after
 *    the fragment shader on the same W lanes (the shader's outputs are
 *    still in the worker's scratch array), not one function fused with the
 *    shader. The shader's machine code is keyed and cached by its SPIR-V
 *    and is swapped from baseline to optimized code in the background;
 *    fusing would make every (shader, attachments, blend) pair a shader
 *    compile of its own and tie the back end to that swap, for the saving
 *    of one indirect call per W lanes. What the routine removes is the
 *    interpretation: every format, factor, op and mask is a constant of its
 *    code, and it works on W-lane vectors (one plain load of each lane's
 *    pixel, an uncovered lane pointed at a scratch pixel, the blend and
 *    packing in vector registers, one store of the pixel back; gathers
 *    and scatters remain for 3- and 6-byte texels and pixels of more than
 *    16 words), where the C reference switches on each field for each
 *    lane and sample.
 *  - Coverage and order are unchanged: sample mask, alpha to coverage,
 *    early or late depth/stencil run where they ran and hand the colour
 *    routine the final per-lane coverage masks; it writes the colour of
 *    covered samples. The depth/stencil routine takes each lane's coverage
 *    and returns the samples that passed (and their count, for occlusion
 *    queries), doing per sample what sr_fragment_depth_stencil does per
 *    pixel in the same order (depth bounds, stencil test and fail op,
 *    depth test and write, stencil pass / depth-fail op); lanes are
 *    distinct pixels, so handling them side by side changes no result.
 *  - Fallback: sr_fragment_setup derives the key from the state and
 *    framebuffer actually drawn and uses the compiled routine only when it
 *    equals the key the pipeline compiled for (so a render pass with other
 *    formats, another fragment shader width or a failed compile simply
 *    runs the C code). The first slice compiles colour writes for
 *    R8G8B8A8 / B8G8R8A8 UNORM and SRGB, R16G16B16A16_SFLOAT and
 *    R32G32B32A32_SFLOAT attachments with blending (every factor and op,
 *    dual source), write masks and any sample count; then logic ops (on
 *    UNORM, SNORM and integer formats, as sr_fragment_setup applies them)
 *    and every colour format of one 8/16/32/64-bit word whose channels
 *    are UNORM, SNORM, 16-bit float, UINT or SINT fields (R8, R8G8,
 *    B5G6R5, A1R5G5B5, R4G4B4A4, A2B10G10R10, R16..R16G16B16A16 UNORM /
 *    SNORM / SFLOAT, the 8/16-bit integer formats, ...) and of 32-bit
 *    float / uint / sint channels (R32 to R32G32B32A32); then every other
 *    colour attachment format: B10G11R11_UFLOAT (its 11- and 10-bit floats
 *    packed and decoded as su_format does), 3- and 6-byte texels (R8G8B8,
 *    B8G8R8, R16G16B16, read and written as three bytes or halves) and sRGB
 *    with fewer than four channels (and A8B8G8R8_SRGB). E5B9G9R9, 64-bit
 *    channels and SCALED formats, which are no colour attachments, stay in
 *    C. Depth/stencil is compiled for every
 *    depth/stencil format (D16, X8_D24, D32, S8, D16_S8, D24_S8, D32_S8),
 *    compare and stencil op and sample count. The compiled results are
 *    bit-identical to the C reference (unit/fragment_backend compares them
 *    on random states and inputs).
 *
 * Flush points (the driver calls sr_scene_flush, or sr_scene_end): the end
 * of a render pass instance or dynamic rendering instance, the end of each
 * subpass (subpasses may read earlier subpasses' attachments as input
 * attachments; resolves happen there), and before any command inside a
 * render pass that could see the attachments' memory: a pipeline barrier
 * or event in a subpass (self-dependency), a query result copy or reset, a
 * timestamp write. Transfers cannot run inside render passes. A feedback
 * loop (VK_EXT_attachment_feedback_loop_layout: a draw samples an
 * attachment of its own render pass) is one of those barriers: its flush
 * writes every earlier draw's pixels to memory, where the sampler of a
 * later draw reads them (samplers read image memory directly and keep no
 * copy of it); without a barrier such a read sees an undefined mix, as the
 * spec allows.
 *
 * Memory and attachments: the scene draws straight into the attachments'
 * memory (linear layout: row pitch, layer pitch). A multisampled surface
 * keeps a pixel's samples next to each other: sample s of pixel (x, y) of
 * layer l is at base + l * layer_pitch + y * row_pitch + (x * samples + s)
 * * texel_size. LOAD_OP_CLEAR and vkCmdClearAttachments are CLEAR tile
 * commands (a cleared tile is written by its worker, in order with the
 * draws); LOAD_OP_LOAD and DONT_CARE cost nothing (the memory already holds
 * the contents); resolves are RESOLVE tile commands (sample 0 for integer
 * formats, the average otherwise, as Vulkan's rules allow; depth and
 * stencil by the resolve mode asked for: sample 0, minimum, maximum, or
 * the depth average). A tile's commands after its last PRIM (sr_bin's
 * prims_end) write with non-temporal stores (clears, and resolves of
 * cleared pixels: nothing in the tile reads them again); a colour RESOLVE
 * of pixels that a CLEAR since the tile's last PRIM wrote resolves one
 * pixel of the clear's value and fills the destination with it, reading
 * none of the samples; STORE_OP_DONT_CARE (sr_scene_set_discard, at the
 * instance's last flush) drops the CLEARs after a tile's last PRIM that
 * no later RESOLVE reads, and a tile that clears such an attachment
 * whole before its first PRIM keeps its pixels of it in the worker's
 * tile memory instead of the attachment's (sr_tile.c: the demo's 4x
 * colour and depth never reach memory; their resolves read the tile
 * memory). A stored attachment that the driver lets live there
 * (sr_scene_set_tile_memory: no shader of the subpass reads it through
 * descriptors, i.e. not an input attachment) takes the same path when a
 * tile clears it whole before its first PRIM, and the tile is written
 * back to the attachment once, with streaming stores, when the tile's
 * commands are done (vkcube's colour: its clear no longer reads every
 * line for ownership). Streamed or not, in tile memory or not, the bytes
 * in memory after the flush are the same; under DONT_CARE the dropped
 * clears' and tile memory's bytes are never written (the attachment's
 * contents are undefined after the instance).
 *
 * Where MSAA coverage lives: per fragment lane, a sample mask
 * (shale_fs_quads.coverage); depth/stencil and colour are per sample in
 * the surfaces; the shader runs once per pixel unless sample shading asks
 * for more (then once per sample, sample_id set). Sample positions are
 * Vulkan's standard ones (sr_sample_positions()).
 *
 * What is JIT-compiled per state key: the vertex shader and the fragment
 * shader (each a shale_*_fn of the compiler, cached like compute code) and
 * the fragment back end (above: a colour routine per back-end key, called
 * after the fragment shader, and a depth/stencil routine per depth/stencil
 * key, called for early or late tests); next, the vertex fetch fused into
 * the vertex routine.
 *
 * Invariants: a scene's surfaces stay valid until sr_scene_end; every
 * snapshot and set-up primitive lives in the scene's arenas until the
 * flush that runs it (a flush empties the bins and reuses the arenas);
 * sr_scene_draw never
 * touches attachment memory (only flushes do). Errors: only allocation
 * failures, reported as VK_ERROR_OUT_OF_HOST_MEMORY; a scene that failed
 * an allocation drops the commands that failed and stays usable.
 *
 * Memory kept between scenes: a frame's scene would otherwise fault in
 * fresh pages for its arenas, bins and vertex records every time. The
 * context keeps the last ended scene (bins up to 4 MiB, front-end buffers
 * up to 64 MiB, one block per arena) for the next sr_scene_begin, and a
 * pool of standard 256 KiB arena blocks that arenas (the scene's and the
 * per-worker ones) take from and give back to at flushes and scene ends
 * (other blocks, for single allocations over 64 KiB, are heap). The pool is
 * trimmed at every scene end to the most blocks in use at once during the
 * last few scenes (at most 512 MiB), so memory a big scene used is
 * returned once smaller scenes follow; everything goes at
 * sr_context_destroy. Both are locked: workers' arenas take blocks during
 * a parallel setup, and begin/end stay safe from any thread.
 *
 * Threading: a scene belongs to one thread (the queue thread) between
 * begin and end; sr_scene_draw and sr_scene_flush use the context's pool
 * for their parallel parts (one run at a time on a pool). Compiled shaders
 * are called from any worker with const contexts.
 */
#ifndef SR_RASTER_H
#define SR_RASTER_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan_core.h>

#include "shale/shader_abi.h"
#include "util/su_format.h"

struct su_thread_pool;

#define SR_TILE_SIZE 64
#define SR_MAX_COLOR_ATTACHMENTS 8
#define SR_MAX_VERTEX_BINDINGS 16
#define SR_MAX_VERTEX_ATTRIBUTES 16
/* maxViewports (multiViewport): viewports and scissors a draw may have. */
#define SR_MAX_VIEWPORTS 16
#define SR_SUBPIXEL_BITS 8
/* Largest framebuffer side (maxFramebufferWidth/Height, maxViewportDimensions)
 * and the guard band: window coordinates within +-SR_GUARD_BAND pixels need
 * no clipping in x and y. */
#define SR_MAX_FRAMEBUFFER_SIZE 8192
#define SR_GUARD_BAND 32768
/* Largest PointSize and lineWidth (pointSizeRange, lineWidthRange: from
 * 1.0; sizes and widths are exact to 1/256 pixel). */
#define SR_MAX_POINT_SIZE 256.0f
#define SR_MAX_LINE_WIDTH 256.0f

/* ---- Attachments ---- */

/* One attachment view: one mip level, `layers` layers, laid out as the
 * design note says (samples of a pixel adjacent). Depth/stencil formats
 * keep both aspects interleaved as su_format_desc describes. */
struct sr_surface {
   uint8_t *base;                       /* layer 0, pixel (0, 0), sample 0 */
   const struct su_format_desc *format;
   VkFormat vk_format;
   uint32_t width, height, layers;
   uint32_t samples;                    /* 1, 2, 4, 8 */
   uint64_t row_pitch, layer_pitch;     /* bytes */
};

/* The attachments a scene draws into (a subpass, or dynamic rendering).
 * NULL base: the attachment is unused (VK_ATTACHMENT_UNUSED). depth and
 * stencil may be the same surface (a combined format) or either absent. */
struct sr_framebuffer {
   uint32_t color_count;
   struct sr_surface color[SR_MAX_COLOR_ATTACHMENTS];
   struct sr_surface depth, stencil;
   uint32_t width, height, layers;      /* the framebuffer's */
   uint32_t samples;                    /* rasterizationSamples of the subpass */
};

/* ---- Pipeline and dynamic state ---- */

struct sr_vertex_binding {
   uint32_t stride;
   VkVertexInputRate input_rate;
   uint32_t divisor;                    /* 1 unless VK_EXT_vertex_attribute_divisor */
};

struct sr_vertex_attribute {
   uint32_t location, binding;
   VkFormat format;
   uint32_t offset;
};

struct sr_stencil_face {
   VkStencilOp fail_op, pass_op, depth_fail_op;
   VkCompareOp compare_op;
   uint32_t compare_mask, write_mask, reference;
};

struct sr_blend_attachment {
   bool blend_enable;
   VkBlendFactor src_color, dst_color, src_alpha, dst_alpha;
   VkBlendOp color_op, alpha_op;
   VkColorComponentFlags write_mask;
};

/* Everything a draw's fixed-function stages and shaders need. The driver
 * fills it from the pipeline at bind time and patches the dynamic parts from
 * vkCmdSet*; it is compared and copied as a whole, so keep it free of
 * padding garbage (memset before filling). */
struct sr_draw_state {
   /* Shaders: fs NULL means no fragment shader (depth-only passes). */
   shale_vs_fn vs;
   shale_fs_fn fs;
   uint32_t vs_width, fs_width;         /* SIMD widths the code was compiled for */
   struct shale_vs_info vs_io;
   struct shale_fs_info fs_io;
   /* Geometry shader ("Geometry shading"), NULL: none. */
   shale_gs_fn gs;
   uint32_t gs_width;
   struct shale_gs_info gs_io;
   /* Tessellation (sr_tess.h), both stages or neither (tes NULL: none),
    * a geometry shader after them or not. The block and scratch sizes are
    * the control shader's sc_shader.shared_size and scratch_size. */
   shale_tcs_fn tcs;
   shale_tes_fn tes;
   uint32_t tcs_block_size, tcs_scratch_size, tes_width;
   uint32_t patch_control_points;
   uint32_t tess_lower_left;            /* VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT */
   struct shale_tcs_info tcs_io;
   struct shale_tes_info tes_io;

   /* Vertex input and assembly. */
   uint32_t binding_mask;               /* bit b: bindings[b] valid */
   struct sr_vertex_binding bindings[SR_MAX_VERTEX_BINDINGS];
   uint32_t attribute_count;
   struct sr_vertex_attribute attributes[SR_MAX_VERTEX_ATTRIBUTES];
   VkPrimitiveTopology topology;
   bool primitive_restart;
   bool provoking_last;                 /* VK_EXT_provoking_vertex LAST (default first) */

   /* Viewports and scissors, viewport_count of each (0 counts as 1, for
    * states filled from a memset); the last pre-rasterization stage's
    * ViewportIndex (a geometry shader's, else a vertex or tessellation
    * evaluation shader's, VK_EXT_shader_viewport_index_layer) picks one per
    * primitive, else viewport 0 ("Geometry shading", "Controlling the
    * Viewport"). Scissors
    * are always applied (the driver passes each one's intersection with
    * the render area). */
   uint32_t viewport_count;
   VkViewport viewports[SR_MAX_VIEWPORTS];
   VkRect2D scissors[SR_MAX_VIEWPORTS];

   /* Rasterization. */
   bool rasterizer_discard;
   bool depth_clamp;
   /* Primitives are not clipped against z = 0 and z = w: depth_clamp, or
    * !depthClipEnable when the pipeline gives VK_EXT_depth_clip_enable's
    * struct (false, the zero value: clipped). */
   bool no_depth_clip;
   VkPolygonMode polygon_mode;
   VkCullModeFlags cull_mode;
   VkFrontFace front_face;
   bool depth_bias_enable;
   float depth_bias_constant, depth_bias_clamp, depth_bias_slope;
   float line_width;
   /* VkLineRasterizationModeEXT (VK_EXT_line_rasterization): DEFAULT (0)
    * and RECTANGULAR_SMOOTH are the non-strict parallelogram, RECTANGULAR
    * the strict rectangle, BRESENHAM the diamond-exit rule (sr_setup.c). */
   uint32_t line_mode;

   /* Multisampling. */
   uint32_t samples;                    /* rasterizationSamples */
   bool sample_shading;
   float min_sample_shading;
   uint32_t sample_mask;                /* pSampleMask[0], all ones without one */
   bool alpha_to_coverage, alpha_to_one;

   /* Depth and stencil. */
   bool depth_test, depth_write;
   VkCompareOp depth_compare;
   bool depth_bounds_test;
   float min_depth_bounds, max_depth_bounds;
   bool stencil_test;
   struct sr_stencil_face stencil[2];   /* front, back */

   /* Colour blending, per colour attachment of the framebuffer. */
   bool logic_op_enable;
   VkLogicOp logic_op;
   float blend_constants[4];
   struct sr_blend_attachment blend[SR_MAX_COLOR_ATTACHMENTS];

   /* The compiled fragment back end ("The fragment back end" above) and the
    * key it was compiled for; NULL: none (the C back end runs). */
   shale_fb_color_fn fb_color;
   struct shale_fb_key fb_key;
   /* Likewise the compiled depth/stencil routine and its key. */
   shale_fb_ds_fn fb_ds;
   struct shale_fb_ds_key fb_ds_key;
};

/* ---- Per-draw bindings and the draw ---- */

struct sr_vertex_buffer {
   const uint8_t *base;                 /* buffer memory + offset */
   uint64_t size;                       /* bytes readable from base */
};

/* What a draw reads besides its state; copied into the scene at the draw. */
struct sr_draw_bindings {
   const union shale_descriptor *sets[SHALE_MAX_DESCRIPTOR_SETS];
   /* Records of sets[i] that sr_scene_draw copies into the snapshot: the
    * driver's bind copies (dynamic offsets applied) are rewritten by the
    * next bind, so a binned draw keeps its own; 0 when sets[i] stays valid
    * until the scene ends. */
   uint32_t set_copy_records[SHALE_MAX_DESCRIPTOR_SETS];
   _Alignas(16) uint8_t push_constants[SHALE_MAX_PUSH_CONSTANTS_SIZE];
   struct sr_vertex_buffer vertex_buffers[SR_MAX_VERTEX_BINDINGS];
   const uint8_t *index_base;           /* buffer memory + offset; indexed draws */
   uint64_t index_size;                 /* bytes readable from index_base */
   VkIndexType index_type;
};

/* Transform feedback (VK_EXT_transform_feedback) of a draw: the active
 * buffers and the counters the draw advances. The driver owns it; the
 * draw captures in sr_scene_draw, on the calling thread ("Transform
 * feedback" in the design note). */
struct sr_xfb {
   uint8_t *base[SHALE_MAX_XFB_BUFFERS];     /* bound buffer + offset; NULL: not active */
   uint64_t size[SHALE_MAX_XFB_BUFFERS];     /* bytes the binding allows from base */
   uint64_t offset[SHALE_MAX_XFB_BUFFERS];   /* bytes written from base (advanced) */
   uint64_t primitives_written;              /* added to by every draw */
   uint64_t primitives_needed;
};

/* Pipeline statistics (VK_QUERY_TYPE_PIPELINE_STATISTICS) a draw adds to
 * while the driver has a statistics query active ("Pipeline statistics" in
 * the design note). */
struct sr_stats {
   uint64_t ia_vertices;        /* index positions (restarts not), per instance */
   uint64_t ia_primitives;      /* primitives assembled (restarts cut, not counted) */
   uint64_t vs_invocations;     /* vertices shaded */
   uint64_t gs_invocations;     /* input primitives x Invocations */
   uint64_t gs_primitives;      /* primitives of the geometry shader's output strips */
   uint64_t tcs_patches;        /* patches whose tessellation control shader ran */
   uint64_t tes_invocations;    /* domain points evaluated (each distinct point once) */
   uint64_t clip_invocations;   /* primitives entering clipping (0 with rasterizer discard) */
   uint64_t clip_primitives;    /* primitives clipping outputs (a clipped polygon: n - 2) */
   uint64_t fs_invocations;     /* covered lanes shaded; added atomically at the flush */
};

struct sr_draw {
   bool indexed;
   uint32_t count;                      /* vertexCount or indexCount */
   uint32_t instance_count;
   uint32_t first;                      /* firstVertex or firstIndex */
   int32_t vertex_offset;               /* vertexOffset (indexed) */
   uint32_t first_instance;
   uint32_t draw_index;                 /* DrawIndex (multi-draw indirect) */
   /* Multiview: the driver queues a draw once per view of the subpass's
    * view mask; ViewIndex is view_index and the primitives go to layer
    * view_index of the attachments. 0 without multiview. */
   uint32_t view_index;
   /* Occlusion query counter the passed samples are added to at the flush,
    * or NULL. `precise` false allows any nonzero count for nonzero. */
   uint64_t *occlusion;
   /* Transform feedback active for this draw, or NULL. */
   struct sr_xfb *xfb;
   /* Pipeline statistics counters this draw adds to, or NULL: the front
    * end's during sr_scene_draw, fs_invocations at the flush. */
   struct sr_stats *stats;
};

/* ---- Context and scene ---- */

struct sr_context;
struct sr_scene;

/* The pool is borrowed (the driver's runtime owns it). */
VkResult sr_context_create(struct su_thread_pool *pool, const VkAllocationCallbacks *alloc,
                           struct sr_context **out);
void sr_context_destroy(struct sr_context *ctx);
/* The watchdog's cancel word (shader_abi.h "Cancellation"), handed to every
 * vertex and fragment call of later scenes; NULL (the default): none. Once
 * it is set, the rasterizer's own loops stop too (sr_scene_cancelled): new
 * draws are dropped, the instance and vertex-window loops and the vertex
 * batches stop (nothing of a partly shaded window is assembled), and a
 * flush skips its remaining tiles. */
void sr_context_set_cancel(struct sr_context *ctx, const uint32_t *cancel);

/* Begins drawing into fb within render_area (clipped to the framebuffer).
 * The scene keeps a copy of fb. */
VkResult sr_scene_begin(struct sr_context *ctx, const struct sr_framebuffer *fb,
                        const VkRect2D *render_area, uint32_t layer_count,
                        struct sr_scene **out);

/* Clears part of an attachment, in order with draws (LOAD_OP_CLEAR on the
 * render area, vkCmdClearAttachments on its rects). attachment is a colour
 * index, or SR_ATTACHMENT_DEPTH_STENCIL with aspects DEPTH and/or STENCIL. */
#define SR_ATTACHMENT_DEPTH_STENCIL 0xffffffffu
VkResult sr_scene_clear(struct sr_scene *scene, uint32_t attachment, VkImageAspectFlags aspects,
                        const VkClearValue *value, const VkRect2D *rect,
                        uint32_t base_layer, uint32_t layer_count);

VkResult sr_scene_draw(struct sr_scene *scene, const struct sr_draw_state *state,
                       const struct sr_draw_bindings *bindings, const struct sr_draw *draw);

/* Resolves colour attachment `attachment` (all its samples) into dst over
 * the render area, in order with draws, at the next flush. */
VkResult sr_scene_resolve(struct sr_scene *scene, uint32_t attachment,
                          const struct sr_surface *dst);

/* Resolves the depth and/or stencil attachment into dst (one sample, a
 * format with the aspects resolved) over the render area, in order with
 * draws, at the next flush. depth_mode: VK_RESOLVE_MODE_NONE (skip),
 * SAMPLE_ZERO, AVERAGE, MIN or MAX; stencil_mode: NONE, SAMPLE_ZERO, MIN
 * or MAX. The other aspect of a combined dst is kept. */
VkResult sr_scene_resolve_depth_stencil(struct sr_scene *scene, const struct sr_surface *dst,
                                        VkResolveModeFlagBits depth_mode,
                                        VkResolveModeFlagBits stencil_mode);

/* Rasterizes everything binned so far: on return every earlier command's
 * pixels are in memory. The scene stays open for more commands. */
void sr_scene_flush(struct sr_scene *scene);

/* Store op DONT_CARE: the attachments whose contents in the render area
 * nothing needs after the next flush (the driver says so right before a
 * render pass instance's or rendering instance's last flush, never before
 * one inside it): bit i colour attachment i, SR_DISCARD_DEPTH_STENCIL the
 * depth/stencil attachment (its depth and stencil alike). A tile then
 * writes no CLEAR of those that comes after its last primitive
 * (sr_bin.prims_end) unless a later RESOLVE of the tile reads its pixels:
 * a colour resolve of pixels a clear wrote takes the clear's value
 * without reading them (sr_resolve_run's `cleared`). Pixels outside the
 * render area, and the other tiles' and earlier flushes' pixels, are
 * written as always. Reset by the flush. */
#define SR_DISCARD_DEPTH_STENCIL (1u << 31)
void sr_scene_set_discard(struct sr_scene *scene, uint32_t mask);

/* Attachments (sr_scene_set_discard's bits) the scene's flushes may keep
 * in tile memory while a tile runs although they are stored (sr_tile.c:
 * a tile that clears one whole before its first primitive draws it in
 * the worker's cache-resident buffer and writes the tile back to the
 * attachment once, with streaming stores, when its commands are done):
 * the driver's promise that no shader reads them through descriptors
 * before the flush ends (it leaves the subpass's input attachments out).
 * 0 (the default) keeps every stored attachment in its memory; reset by
 * sr_scene_set_framebuffer. The bytes in memory after the flush are the
 * same either way. */
void sr_scene_set_tile_memory(struct sr_scene *scene, uint32_t mask);

/* Multiview: later resolves (colour and depth/stencil) cover only the
 * layers whose bit is set in view_mask (the current subpass's or rendering
 * instance's view mask: one layer per view); 0 (the default): every layer
 * of the scene. Clears and draws name their layers themselves. */
void sr_scene_set_view_mask(struct sr_scene *scene, uint32_t view_mask);

/* Replaces the framebuffer (next subpass) after a flush. */
void sr_scene_set_framebuffer(struct sr_scene *scene, const struct sr_framebuffer *fb);

/* Flushes and ends the scene. Its memory (bins, arenas, front-end buffers)
 * may stay with the context for the next scene ("Memory kept between
 * scenes" above). */
void sr_scene_end(struct sr_scene *scene);

/* The fragment back-end key of `state` (its fragment shader compiled for
 * `width` lanes) drawing into colour attachments of `formats` (VK_FORMAT_UNDEFINED:
 * unused) with `samples` samples: what the rasterizer will compare with
 * state->fb_key at draw time. false: no colour is written, or the state
 * has nothing a key describes. */
bool sr_fragment_backend_key(const struct sr_draw_state *state, uint32_t width,
                             uint32_t color_count, const VkFormat *formats, uint32_t samples,
                             struct shale_fb_key *key);

/* The depth/stencil key of `state` (its fragment shader compiled for
 * `width` lanes; 0: no fragment shader) drawing with depth and stencil
 * attachments of depth_format / stencil_format (VK_FORMAT_UNDEFINED:
 * none) with `samples` samples: what the rasterizer compares with
 * state->fb_ds_key. false: no depth or stencil test happens. */
bool sr_fragment_backend_ds_key(const struct sr_draw_state *state, uint32_t width,
                                VkFormat depth_format, VkFormat stencil_format,
                                uint32_t samples, struct shale_fb_ds_key *key);

/* Vulkan's standard sample positions for `samples` (1, 2, 4, 8, 16):
 * positions[s][0..1] in [0, 1). */
const float (*sr_sample_positions(uint32_t samples))[2];

#endif
