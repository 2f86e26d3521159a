/* Replay of pipeline and descriptor binding and of the dispatch commands. */
#include <stdatomic.h>
#include <string.h>

#include "compiler/sc_compiler.h"
#include "sd_alloc.h"
#include "sd_buffer.h"
#include "sd_cmd_queue.h"
#include "sd_descriptor.h"
#include "sd_device.h"
#include "sd_exec.h"
#include "sd_pipeline.h"
#include "sd_pipeline_cache.h"
#include "sd_queue.h"
#include "sd_util.h"
#include "util/su_log.h"
#include "util/su_thread_pool.h"

static struct sd_exec_bind_point *
sd_bind_point(struct sd_exec_state *state, VkPipelineBindPoint bp)
{
   return bp == VK_PIPELINE_BIND_POINT_COMPUTE ? &state->compute : &state->graphics;
}

void
sd_exec_BindPipeline(struct sd_exec_state *state, const struct sd_cmd_BindPipeline *cmd)
{
   sd_bind_point(state, cmd->pipelineBindPoint)->pipeline = sd_pipeline_from_handle(cmd->pipeline);
   if (cmd->pipelineBindPoint == VK_PIPELINE_BIND_POINT_GRAPHICS)
      state->draw.dirty = true;
}

void
sd_exec_BindDescriptorSets(struct sd_exec_state *state,
                           const struct sd_cmd_BindDescriptorSets *cmd)
{
   struct sd_exec_bind_point *bp = sd_bind_point(state, cmd->pipelineBindPoint);
   /* Dynamic offsets are consumed set by set, in each set layout's binding
    * order (the spec's rule), so the pipeline layout is not needed. */
   uint32_t next_offset = 0;
   for (uint32_t i = 0; i < cmd->descriptorSetCount; i++) {
      uint32_t index = cmd->firstSet + i;
      SD_FROM_HANDLE(sd_descriptor_set, set, cmd->pDescriptorSets[i]);
      if (!set || index >= SHALE_MAX_DESCRIPTOR_SETS)
         continue;
      uint32_t dynamic = set->layout->dynamic_count;
      if (next_offset + dynamic > cmd->dynamicOffsetCount) {
         sd_queue_replay_failed(state->queue, "vkCmdBindDescriptorSets: too few dynamic offsets");
         return;
      }
      const union shale_descriptor *records =
         sd_descriptor_set_bind(set, index, cmd->pDynamicOffsets + next_offset);
      if (!records && set->layout->record_count) {
         sd_queue_replay_failed(state->queue, "out of memory binding a descriptor set");
         return;
      }
      bp->sets[index] = records;
      /* A binned draw keeps its own copy of a bind copy (the next bind
       * rewrites it); a set's own records stay valid while it is in use. */
      if (bp == &state->graphics)
         state->draw.set_copy_records[index] = dynamic ? set->layout->record_count : 0;
      next_offset += dynamic;
   }
}

/* One dispatch as the workers see it. */
struct sd_dispatch {
   const struct sc_shader *shader;   /* the code the dispatch started with */
   struct sd_compiled_shader *compiled;
   struct sd_runtime *runtime;
   uint64_t total;             /* workgroups */
   unsigned participants;
   struct shale_cs_context ctx;
   uint32_t base[3], count[3];
   uint8_t *memory;            /* per worker: shared memory, then scratch */
   size_t per_worker;
   atomic_bool took_over;      /* optimized code replaced the baseline code mid-dispatch */
   bool timed;                 /* worker 1 timed a workgroup of baseline code */
};

static size_t
sd_align_size(size_t v)
{
   return (v + SHALE_MEMORY_ALIGN - 1) & ~(size_t)(SHALE_MEMORY_ALIGN - 1);
}

static size_t
sd_workgroup_memory(const struct sc_shader *shader)
{
   return sd_align_size(shader->shared_size) + sd_align_size(shader->scratch_size);
}

/* The code for the next workgroup: baseline code gives way to optimized
 * code as soon as the optimizer has put it in place (workgroups are
 * independent; both codes are kept alive by the pipeline), when its shared
 * memory and scratch fit in what the dispatch allocated. */
static const struct sc_shader *
sd_dispatch_code(struct sd_dispatch *d, const struct sc_shader *current)
{
   if (!current->baseline)
      return current;
   const struct sc_shader *now = atomic_load_explicit(&d->compiled->shader, memory_order_acquire);
   if (now == current || sd_workgroup_memory(now) > d->per_worker)
      return current;
   atomic_store_explicit(&d->took_over, true, memory_order_relaxed);
   return now;
}

/* Baseline code runs several times slower than optimized code, and the
 * optimizer thread yields to the dispatch's workers, which hold every CPU.
 * So one worker (the first that is not the caller) times its first
 * workgroup of baseline code and, when the rest of the dispatch would run
 * longer on baseline code than an optimized compile takes (estimated from
 * the baseline compile's time), moves the compile to the front of the
 * optimizer's queue and waits for it (a bounded time): the optimizer gets
 * that CPU, and the worker goes on with optimized code. */
#define SD_OPTIMIZE_COST_FACTOR 8.0

static void
sd_dispatch_wait_for_optimized(struct sd_dispatch *d, const struct sc_shader *baseline,
                               uint64_t next, double first_ms)
{
   double left_ms = first_ms * (double)(d->total - next) / d->participants;
   if (left_ms <= SD_OPTIMIZE_COST_FACTOR * baseline->compile_ms)
      return;
   uint64_t t0 = sd_now_ns();
   sd_optimizer_hurry(d->runtime, d->compiled);
   /* A busy machine can slow the compile far beyond the estimate: the
    * wait is bounded by twice the estimate and by the work left. */
   double limit = 2.0 * SD_OPTIMIZE_COST_FACTOR * baseline->compile_ms;
   bool settled = sd_compiled_shader_settle_for(d->runtime, d->compiled,
                                                limit < left_ms ? limit : left_ms);
   if (su_debug(SU_DEBUG_INFO))
      su_log("dispatch: %llu workgroups: a worker %s %.2f ms for the optimized code "
             "(about %.0f ms of baseline work were left)", (unsigned long long)d->total,
             settled ? "waited" : "stopped waiting after", (sd_now_ns() - t0) / 1e6, left_ms);
}

static void
sd_dispatch_range(void *data, uint64_t begin, uint64_t end, unsigned worker)
{
   struct sd_dispatch *d = data;
   struct shale_cs_workgroup wg;
   memset(&wg, 0, sizeof(wg));
   uint8_t *mem = d->memory ? d->memory + (size_t)worker * d->per_worker : NULL;
   const struct sc_shader *shader = d->shader;
   const uint64_t cx = d->count[0], cxy = (uint64_t)d->count[0] * d->count[1];
   for (uint64_t i = begin; i < end; i++) {
      if (__atomic_load_n(d->ctx.cancel, __ATOMIC_RELAXED))
         break;   /* the watchdog cancelled the submission */
      shader = sd_dispatch_code(d, shader);
      wg.shared_memory = mem;
      wg.scratch = mem ? mem + sd_align_size(shader->shared_size) : NULL;
      uint64_t z = i / cxy, rest = i % cxy;
      wg.workgroup_id[0] = d->base[0] + (uint32_t)(rest % cx);
      wg.workgroup_id[1] = d->base[1] + (uint32_t)(rest / cx);
      wg.workgroup_id[2] = d->base[2] + (uint32_t)z;
      bool timed = worker == 1 && shader->baseline && !d->timed;
      uint64_t t0 = timed ? sd_now_ns() : 0;
      shader->fn.cs(&d->ctx, &wg);
      if (timed) {
         d->timed = true;
         sd_dispatch_wait_for_optimized(d, shader, i + 1, (sd_now_ns() - t0) / 1e6);
      }
   }
}

static void
sd_dispatch_run(struct sd_exec_state *state, const uint32_t base[3], const uint32_t count[3])
{
   struct sd_pipeline *pipeline = state->compute.pipeline;
   if (!pipeline || !count[0] || !count[1] || !count[2] || state->cond_discard)
      return;
   const struct sc_shader *shader = sd_pipeline_compute_shader(pipeline);
   struct su_thread_pool *pool = pipeline->runtime->pool;
   struct sd_dispatch d = {
      .shader = shader,
      .compiled = pipeline->compute,
      .runtime = pipeline->runtime,
      .base = { base[0], base[1], base[2] },
      .count = { count[0], count[1], count[2] },
   };
   memcpy(d.ctx.sets, state->compute.sets, sizeof(d.ctx.sets));
   d.ctx.push_constants = state->push_constants;
   d.ctx.cancel = &state->device->cancel;
   for (int k = 0; k < 3; k++) {
      d.ctx.num_workgroups[k] = count[k];
      d.ctx.base_workgroup[k] = base[k];
      d.ctx.local_size[k] = shader->local_size[k];
   }

   /* Shared memory and scratch for each participant of the pool. */
   unsigned workers = su_thread_pool_size(pool);
   d.per_worker = sd_workgroup_memory(shader);
   const VkAllocationCallbacks *alloc = &state->device->alloc;
   if (d.per_worker) {
      d.memory = sd_alloc(alloc, d.per_worker * workers, SHALE_MEMORY_ALIGN,
                          VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
      if (!d.memory) {
         sd_queue_replay_failed(state->queue, "out of memory for a dispatch's shared memory");
         return;
      }
   }
   uint64_t total = (uint64_t)count[0] * count[1] * count[2];
   /* Pipeline statistics: every invocation of every workgroup runs. */
   if (state->stats.query)
      state->stats.cs_invocations +=
         total * shader->local_size[0] * shader->local_size[1] * shader->local_size[2];
   d.total = total;
   d.participants = workers;
   su_thread_pool_run(pool, total, 0, sd_dispatch_range, &d);
   sd_free(alloc, d.memory);
   if (atomic_load(&d.took_over) && su_debug(SU_DEBUG_INFO))
      su_log("dispatch: %llu workgroups: optimized code took over from %s baseline code "
             "mid-dispatch", (unsigned long long)total, shader->simd_width == 1 ? "scalar" : "vector");
}

void
sd_exec_Dispatch(struct sd_exec_state *state, const struct sd_cmd_Dispatch *cmd)
{
   const uint32_t base[3] = { 0, 0, 0 };
   const uint32_t count[3] = { cmd->groupCountX, cmd->groupCountY, cmd->groupCountZ };
   sd_dispatch_run(state, base, count);
}

void
sd_exec_DispatchBase(struct sd_exec_state *state, const struct sd_cmd_DispatchBase *cmd)
{
   const uint32_t base[3] = { cmd->baseGroupX, cmd->baseGroupY, cmd->baseGroupZ };
   const uint32_t count[3] = { cmd->groupCountX, cmd->groupCountY, cmd->groupCountZ };
   sd_dispatch_run(state, base, count);
}

/* vkCmdSetDeviceMask: the only valid mask is 1 (the group's one device),
 * which every command already runs on. */
void
sd_exec_SetDeviceMask(struct sd_exec_state *state, const struct sd_cmd_SetDeviceMask *cmd)
{
}

void
sd_exec_DispatchIndirect(struct sd_exec_state *state, const struct sd_cmd_DispatchIndirect *cmd)
{
   SD_FROM_HANDLE(sd_buffer, buffer, cmd->buffer);
   /* Read when the command runs: earlier commands may have written it. */
   VkDispatchIndirectCommand args;
   memcpy(&args, buffer->data + cmd->offset, sizeof(args));
   const uint32_t base[3] = { 0, 0, 0 };
   const uint32_t count[3] = { args.x, args.y, args.z };
   sd_dispatch_run(state, base, count);
}
