/* Allocation-failure injection: every create path honours VkAllocationCallbacks and unwinds. */
/*
 * A tracking VkAllocationCallbacks fails the N-th allocation (or reallocation)
 * counted from the start of the operation under test, for N = 1, 2, ... until
 * the operation completes without reaching the failure. It checks the
 * callback protocol as it goes: pUserData passed back, alignment a power of
 * two, scope a valid VkSystemAllocationScope, realloc with the original's
 * alignment, frees only of live pointers, COMMAND-scope allocations gone when
 * the command returns. Pointers it hands out are aligned to exactly what was
 * asked (and deliberately not to twice that), new memory is garbage, freed
 * memory is poisoned, so code that relies on more than it asked for breaks.
 *
 * After every failed operation the result must be VK_ERROR_OUT_OF_HOST_MEMORY
 * (VK_ERROR_OUT_OF_DEVICE_MEMORY where the command may return it) and no
 * allocation made during the operation may still be live; after each case's
 * teardown nothing at all may be live. Each sweep runs twice: failing only the
 * N-th call, and failing every call from the N-th on (unwind paths that
 * allocate). Object cases run with the allocator passed explicitly and
 * inherited from the device.
 *
 * The validation layer stays off: it allocates through the same callbacks.
 * The loader allocates through them too; its failures must come back as
 * VK_ERROR_OUT_OF_HOST_MEMORY like the driver's. Only Shale's manifest is kept
 * in VK_DRIVER_FILES (lavapipe would double the count and is not under test).
 * Cases whose entry point is missing or that fail with a working allocator are
 * skipped with a note; the test fails if no case ran.
 *
 * SHALE_TEST_ALLOC_FAIL_STRIDE=S (default 1: every N) keeps every failure
 * point among a sweep's first and last 64 and every S-th between them, and
 * says so in the sweep's line. ci/tsan.sh sets it: vkCreateInstance makes
 * about 2500 allocations (nearly all the loader's manifest parsing), and
 * each of its 5000 sweeps' instance creations loads and unloads the ICD,
 * which took about 6 minutes under ThreadSanitizer.
 */
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

#include "af_vert_spv.h"
#include "af_geom_spv.h"
#include "af_tesc_spv.h"
#include "af_tese_spv.h"
#include "af_frag_spv.h"

/* ---- the tracking allocator ---- */

#define TA_MAGIC 0x7a110cedu
#define TA_FRAMES 10

struct ta_block {
   struct ta_block *prev, *next;
   void *raw;                       /* what malloc returned */
   size_t size, align;
   VkSystemAllocationScope scope;
   uint64_t serial;                 /* allocation order, 1-based */
   int nframes;
   void *frames[TA_FRAMES];
   uint32_t magic;
};
/* The header sits right before the user pointer: keep its size a multiple of 16. */
#define TA_HDR_SIZE ((sizeof(struct ta_block) + 15) & ~(size_t)15)

static struct {
   pthread_mutex_t lock;
   struct ta_block *live;
   uint64_t live_count;
   uint64_t calls;          /* allocations and growing reallocations */
   uint64_t serial;
   uint64_t fail_at;        /* 0: never */
   bool sticky;             /* fail every call from fail_at on */
   uint64_t injected;       /* failures handed out */
   unsigned errors;         /* callback protocol violations */
} ta = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char ta_user_data[] = "shale-alloc-fail";

static void
ta_error(const char *what, size_t a, size_t b)
{
   /* Called with ta.lock held, possibly from the queue thread. */
   ta.errors++;
   fprintf(stderr, "allocator protocol violation: %s (%zu, %zu)\n", what, a, b);
   void *frames[TA_FRAMES];
   int n = backtrace(frames, TA_FRAMES);
   backtrace_symbols_fd(frames, n, 2);
}

static bool
ta_is_pow2(size_t v)
{
   return v && !(v & (v - 1));
}

static bool
ta_fail_now(void)
{
   ta.calls++;
   if (ta.fail_at && (ta.calls == ta.fail_at || (ta.sticky && ta.calls > ta.fail_at))) {
      ta.injected++;
      return true;
   }
   return false;
}

static struct ta_block *
ta_find(void *p)
{
   for (struct ta_block *b = ta.live; b; b = b->next) {
      if ((char *)b + TA_HDR_SIZE == (char *)p)
         return b;
   }
   return NULL;
}

static void
ta_unlink(struct ta_block *b)
{
   if (b->prev)
      b->prev->next = b->next;
   else
      ta.live = b->next;
   if (b->next)
      b->next->prev = b->prev;
   ta.live_count--;
}

/* A fresh block; lock held. Aligned to `align` and, when it can be, not to
 * 2 * align. */
static void *
ta_new_block(size_t size, size_t align, VkSystemAllocationScope scope)
{
   size_t a = align < 16 ? 16 : align;
   /* raw + slack: room for the header, the alignment, and one extra `align`. */
   if (size > SIZE_MAX / 2)
      return NULL;
   char *raw = malloc(TA_HDR_SIZE + size + 2 * a + 16);
   if (!raw)
      return NULL;
   uintptr_t u = ((uintptr_t)raw + TA_HDR_SIZE + a - 1) & ~(uintptr_t)(a - 1);
   if ((u & (2 * a - 1)) == 0)
      u += a;   /* aligned to a, not to 2a */
   char *p = (char *)u;
   struct ta_block *b = (struct ta_block *)(p - TA_HDR_SIZE);
   memset(b, 0, sizeof(*b));
   b->raw = raw;
   b->size = size;
   b->align = align;
   b->scope = scope;
   b->serial = ++ta.serial;
   b->magic = TA_MAGIC;
   b->nframes = backtrace(b->frames, TA_FRAMES);
   b->next = ta.live;
   if (ta.live)
      ta.live->prev = b;
   ta.live = b;
   ta.live_count++;
   memset(p, 0xa5, size);   /* never zeroed: the driver must not assume it is */
   if (((uintptr_t)p & (align - 1)) != 0)
      ta_error("tracker returned a misaligned pointer", (size_t)(uintptr_t)p, align);
   return p;
}

static void
ta_release(struct ta_block *b)
{
   ta_unlink(b);
   b->magic = 0;
   memset((char *)b + TA_HDR_SIZE, 0xdd, b->size);
   free(b->raw);
}

static bool
ta_check_args(void *user, size_t align, VkSystemAllocationScope scope)
{
   bool ok = true;
   if (user != (void *)ta_user_data) {
      ta_error("pUserData not passed back", (size_t)(uintptr_t)user, 0);
      ok = false;
   }
   if (!ta_is_pow2(align)) {
      ta_error("alignment not a power of two", align, 0);
      ok = false;
   }
   if ((int)scope < (int)VK_SYSTEM_ALLOCATION_SCOPE_COMMAND ||
       (int)scope > (int)VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE) {
      ta_error("invalid VkSystemAllocationScope", (size_t)scope, 0);
      ok = false;
   }
   return ok;
}

static void *VKAPI_PTR
ta_allocation(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   pthread_mutex_lock(&ta.lock);
   void *p = NULL;
   if (ta_check_args(user, align, scope) && !ta_fail_now())
      p = ta_new_block(size, align, scope);
   pthread_mutex_unlock(&ta.lock);
   return p;
}

static void VKAPI_PTR
ta_free(void *user, void *mem)
{
   if (!mem)
      return;
   pthread_mutex_lock(&ta.lock);
   if (user != (void *)ta_user_data)
      ta_error("pUserData not passed back to pfnFree", (size_t)(uintptr_t)user, 0);
   struct ta_block *b = ta_find(mem);
   if (!b)
      ta_error("pfnFree of a pointer that is not live", (size_t)(uintptr_t)mem, 0);
   else
      ta_release(b);
   pthread_mutex_unlock(&ta.lock);
}

static void *VKAPI_PTR
ta_reallocation(void *user, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (!orig)
      return ta_allocation(user, size, align, scope);
   if (size == 0) {
      ta_free(user, orig);
      return NULL;
   }
   pthread_mutex_lock(&ta.lock);
   void *p = NULL;
   struct ta_block *b = ta_find(orig);
   if (!b) {
      ta_error("pfnReallocation of a pointer that is not live", (size_t)(uintptr_t)orig, 0);
   } else if (ta_check_args(user, align, scope)) {
      if (align != b->align)
         ta_error("pfnReallocation alignment differs from the original's", align, b->align);
      if (!ta_fail_now()) {
         /* Always move, so stale pointers to the old block are caught. */
         p = ta_new_block(size, align, scope);
         if (p) {
            memcpy(p, orig, b->size < size ? b->size : size);
            ta_release(b);
         }
      }
   }
   pthread_mutex_unlock(&ta.lock);
   return p;
}

static const VkAllocationCallbacks ta_callbacks = {
   .pUserData = (void *)ta_user_data,
   .pfnAllocation = ta_allocation,
   .pfnReallocation = ta_reallocation,
   .pfnFree = ta_free,
};

static uint64_t
ta_calls(void)
{
   pthread_mutex_lock(&ta.lock);
   uint64_t c = ta.calls;
   pthread_mutex_unlock(&ta.lock);
   return c;
}

/* Fails the n-th call from now (and every later one when sticky). */
static void
ta_arm(uint64_t n, bool sticky)
{
   pthread_mutex_lock(&ta.lock);
   ta.fail_at = ta.calls + n;
   ta.sticky = sticky;
   pthread_mutex_unlock(&ta.lock);
}

/* Disarms; returns whether the armed call was reached. */
static bool
ta_disarm(void)
{
   pthread_mutex_lock(&ta.lock);
   bool reached = ta.fail_at && ta.calls >= ta.fail_at;
   ta.fail_at = 0;
   ta.sticky = false;
   pthread_mutex_unlock(&ta.lock);
   return reached;
}

static uint64_t
ta_mark(void)
{
   pthread_mutex_lock(&ta.lock);
   uint64_t s = ta.serial;
   pthread_mutex_unlock(&ta.lock);
   return s;
}

static const char *
ta_scope_name(VkSystemAllocationScope s)
{
   static const char *const names[] = { "COMMAND", "OBJECT", "CACHE", "DEVICE", "INSTANCE" };
   return (unsigned)s < 5 ? names[s] : "?";
}

/* Live blocks allocated after `mark` (with `scope`, or any when scope < 0);
 * prints each with where it was allocated. */
static unsigned
ta_live_since(uint64_t mark, int scope, const char *what)
{
   unsigned n = 0;
   pthread_mutex_lock(&ta.lock);
   for (struct ta_block *b = ta.live; b; b = b->next) {
      if (b->serial <= mark || (scope >= 0 && (int)b->scope != scope))
         continue;
      if (n++ < 4) {
         fprintf(stderr, "%s: live allocation #%llu, %zu bytes, align %zu, scope %s, from:\n",
                 what, (unsigned long long)b->serial, b->size, b->align, ta_scope_name(b->scope));
         backtrace_symbols_fd(b->frames, b->nframes, 2);
      }
   }
   pthread_mutex_unlock(&ta.lock);
   return n;
}

static unsigned
ta_errors(void)
{
   pthread_mutex_lock(&ta.lock);
   unsigned e = ta.errors;
   pthread_mutex_unlock(&ta.lock);
   return e;
}

/* ---- cases ---- */

#define AC_CMDBUFS 4       /* vkAllocateCommandBuffers count */
#define AC_BATCHES 10      /* vkQueueSubmit batches (more than a small stack array) */
#define AC_BUF_SIZE (128 * 1024)

struct ac_ctx {
   struct vkt t;                        /* AC_DEVICE: instance, device, queue, pool */
   const VkAllocationCallbacks *obj;    /* per-object pAllocator: &ta_callbacks or NULL */

   /* AC_GLOBAL / AC_INSTANCE cases */
   VkInstance instance;
   VkPhysicalDevice pdev;
   VkDevice device;

   /* What the operation made, for undo. */
   uint64_t out;
   VkCommandBuffer cbs[AC_CMDBUFS];

   /* Prerequisites. */
   VkBuffer buf[2];
   VkDeviceMemory mem[2];
   uint8_t *map[2];
   VkImage image;
   VkDeviceMemory image_mem;
   VkFormat view_format;
   VkCommandPool pool;
   VkCommandBuffer rec_cb;
   VkCommandBufferResetFlags rec_reset;  /* RELEASE_RESOURCES: every recording allocates anew */
   VkCommandBuffer batch_cb[AC_BATCHES];
   VkSemaphore batch_sem[AC_BATCHES - 1];
   VkFence fence;
   uint8_t *ref;                        /* CPU reference of buf[0] */
   VkImageView view;
   VkRenderPass render_pass;
   VkSurfaceKHR surface;
   VkSwapchainKHR swapchain;
   VkShaderModule modules[5];           /* graphics pipelines: vertex, geometry, fragment,
                                         * tessellation control, evaluation */
   VkPipelineLayout layout;
   void *cache_data;                    /* a cache holding the pipeline, serialized */
   size_t cache_size;
   bool into_cache;                     /* the pipeline goes into a new, empty cache */
   uint32_t image_index;
};

/* Device-level entry points, looked up through vkGetDeviceProcAddr. */
static struct {
   PFN_vkAllocateMemory AllocateMemory;
   PFN_vkFreeMemory FreeMemory;
   PFN_vkCreateBuffer CreateBuffer;
   PFN_vkDestroyBuffer DestroyBuffer;
   PFN_vkBindBufferMemory BindBufferMemory;
   PFN_vkGetBufferMemoryRequirements GetBufferMemoryRequirements;
   PFN_vkMapMemory MapMemory;
   PFN_vkCreateBufferView CreateBufferView;
   PFN_vkDestroyBufferView DestroyBufferView;
   PFN_vkCreateImage CreateImage;
   PFN_vkDestroyImage DestroyImage;
   PFN_vkGetImageMemoryRequirements GetImageMemoryRequirements;
   PFN_vkBindImageMemory BindImageMemory;
   PFN_vkCreateImageView CreateImageView;
   PFN_vkDestroyImageView DestroyImageView;
   PFN_vkCreateSampler CreateSampler;
   PFN_vkDestroySampler DestroySampler;
   PFN_vkCreateCommandPool CreateCommandPool;
   PFN_vkDestroyCommandPool DestroyCommandPool;
   PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
   PFN_vkFreeCommandBuffers FreeCommandBuffers;
   PFN_vkBeginCommandBuffer BeginCommandBuffer;
   PFN_vkEndCommandBuffer EndCommandBuffer;
   PFN_vkResetCommandBuffer ResetCommandBuffer;
   PFN_vkCmdFillBuffer CmdFillBuffer;
   PFN_vkCmdUpdateBuffer CmdUpdateBuffer;
   PFN_vkCmdCopyBuffer CmdCopyBuffer;
   PFN_vkCmdPipelineBarrier CmdPipelineBarrier;
   PFN_vkCreateFence CreateFence;
   PFN_vkDestroyFence DestroyFence;
   PFN_vkWaitForFences WaitForFences;
   PFN_vkResetFences ResetFences;
   PFN_vkGetFenceStatus GetFenceStatus;
   PFN_vkCreateSemaphore CreateSemaphore;
   PFN_vkDestroySemaphore DestroySemaphore;
   PFN_vkCreateEvent CreateEvent;
   PFN_vkDestroyEvent DestroyEvent;
   PFN_vkCreateQueryPool CreateQueryPool;
   PFN_vkDestroyQueryPool DestroyQueryPool;
   PFN_vkQueueSubmit QueueSubmit;
   PFN_vkQueueWaitIdle QueueWaitIdle;
   PFN_vkCreateRenderPass CreateRenderPass;
   PFN_vkDestroyRenderPass DestroyRenderPass;
   PFN_vkCreateFramebuffer CreateFramebuffer;
   PFN_vkDestroyFramebuffer DestroyFramebuffer;
   PFN_vkCreateSwapchainKHR CreateSwapchainKHR;
   PFN_vkDestroySwapchainKHR DestroySwapchainKHR;
   PFN_vkAcquireNextImageKHR AcquireNextImageKHR;
   PFN_vkQueuePresentKHR QueuePresentKHR;
   PFN_vkCreateShaderModule CreateShaderModule;
   PFN_vkDestroyShaderModule DestroyShaderModule;
   PFN_vkCreatePipelineLayout CreatePipelineLayout;
   PFN_vkDestroyPipelineLayout DestroyPipelineLayout;
   PFN_vkCreatePipelineCache CreatePipelineCache;
   PFN_vkDestroyPipelineCache DestroyPipelineCache;
   PFN_vkGetPipelineCacheData GetPipelineCacheData;
   PFN_vkCreateGraphicsPipelines CreateGraphicsPipelines;
   PFN_vkDestroyPipeline DestroyPipeline;
} d;

static void
ac_load_device(VkDevice dev)
{
#define L(name) d.name = (PFN_vk##name)vkGetDeviceProcAddr(dev, "vk" #name)
   L(AllocateMemory); L(FreeMemory); L(CreateBuffer); L(DestroyBuffer); L(BindBufferMemory);
   L(GetBufferMemoryRequirements); L(MapMemory); L(CreateBufferView); L(DestroyBufferView);
   L(CreateImage); L(DestroyImage); L(GetImageMemoryRequirements); L(BindImageMemory);
   L(CreateImageView); L(DestroyImageView); L(CreateSampler); L(DestroySampler);
   L(CreateCommandPool); L(DestroyCommandPool); L(AllocateCommandBuffers); L(FreeCommandBuffers);
   L(BeginCommandBuffer); L(EndCommandBuffer); L(ResetCommandBuffer); L(CmdFillBuffer);
   L(CmdUpdateBuffer); L(CmdCopyBuffer); L(CmdPipelineBarrier); L(CreateFence); L(DestroyFence);
   L(WaitForFences); L(ResetFences); L(GetFenceStatus); L(CreateSemaphore); L(DestroySemaphore);
   L(CreateEvent); L(DestroyEvent); L(CreateQueryPool); L(DestroyQueryPool); L(QueueSubmit);
   L(QueueWaitIdle); L(CreateRenderPass); L(DestroyRenderPass); L(CreateFramebuffer);
   L(DestroyFramebuffer); L(CreateSwapchainKHR); L(DestroySwapchainKHR); L(AcquireNextImageKHR);
   L(QueuePresentKHR); L(CreateShaderModule); L(DestroyShaderModule); L(CreatePipelineLayout);
   L(DestroyPipelineLayout); L(CreatePipelineCache); L(DestroyPipelineCache);
   L(GetPipelineCacheData); L(CreateGraphicsPipelines); L(DestroyPipeline);
#undef L
}

/* What the physical device supports, found once with the default allocator. */
static struct {
   bool props2;          /* VK_KHR_get_physical_device_properties2 on the instance */
   bool wsi;             /* VK_KHR_surface, VK_EXT_headless_surface and VK_KHR_swapchain */
   bool timeline;        /* timeline semaphores usable (extension or 1.2 core + feature) */
   bool timeline_ext;    /* VK_KHR_timeline_semaphore must be enabled for it */
   bool geometry;        /* the geometryShader feature */
   bool tess;            /* the tessellationShader feature */
   uint32_t api_version;
} caps;

enum ac_level { AC_GLOBAL, AC_INSTANCE, AC_DEVICE };

struct ac_case {
   const char *name;
   enum ac_level level;
   bool device_oom_ok;      /* VK_ERROR_OUT_OF_DEVICE_MEMORY is a valid failure */
   bool must_allocate;      /* the operation makes a host object: it must use the callbacks */
   /* Creates what the operation needs; returns NULL or why the case is skipped. */
   const char *(*prepare)(struct ac_ctx *c);
   VkResult (*op)(struct ac_ctx *c);
   /* After a failed op (allocator disarmed): checks, and drops what a failed
    * op may legitimately keep until a reset. */
   void (*after_fail)(struct ac_ctx *c);
   /* After a successful op: checks its result, destroys what it made. */
   void (*undo)(struct ac_ctx *c);
   void (*cleanup)(struct ac_ctx *c);
};

/* -- instance and physical devices -- */

static const char *ac_inst_exts[3];
static uint32_t ac_inst_ext_count;

static VkResult
ac_create_instance(VkInstance *out)
{
   VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "shale-alloc-fail",
      .apiVersion = caps.api_version ? caps.api_version : VK_API_VERSION_1_0,
   };
   VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
      .enabledExtensionCount = ac_inst_ext_count,
      .ppEnabledExtensionNames = ac_inst_exts,
   };
   return vkCreateInstance(&ici, &ta_callbacks, out);
}

static VkResult
op_create_instance(struct ac_ctx *c)
{
   c->instance = VK_NULL_HANDLE;
   return ac_create_instance(&c->instance);
}

static void
undo_instance(struct ac_ctx *c)
{
   vkDestroyInstance(c->instance, &ta_callbacks);
   c->instance = VK_NULL_HANDLE;
}

static VkPhysicalDevice
ac_find_shale(VkInstance instance, VkResult *result)
{
   VkPhysicalDevice devs[8];
   uint32_t count = 8;
   *result = vkEnumeratePhysicalDevices(instance, &count, devs);
   if (*result != VK_SUCCESS && *result != VK_INCOMPLETE)
      return VK_NULL_HANDLE;
   for (uint32_t i = 0; i < count; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devs[i], &p);
      if (strstr(p.deviceName, "Shale"))
         return devs[i];
   }
   return VK_NULL_HANDLE;
}

static VkResult
op_enumerate(struct ac_ctx *c)
{
   VkResult r;
   c->pdev = ac_find_shale(c->instance, &r);
   return r;
}

static void
undo_nothing(struct ac_ctx *c)
{
}

/* -- device -- */

static void
ac_device_info(VkDeviceCreateInfo *dci, VkDeviceQueueCreateInfo *qci,
               VkPhysicalDeviceTimelineSemaphoreFeatures *tl, const char **exts)
{
   static const float prio = 1.0f;
   *qci = (VkDeviceQueueCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = 0,
      .queueCount = 1,
      .pQueuePriorities = &prio,
   };
   *tl = (VkPhysicalDeviceTimelineSemaphoreFeatures) {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
      .timelineSemaphore = VK_TRUE,
   };
   uint32_t n = 0;
   if (caps.timeline_ext)
      exts[n++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
   *dci = (VkDeviceCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = caps.timeline ? tl : NULL,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = qci,
      .enabledExtensionCount = n,
      .ppEnabledExtensionNames = exts,
   };
}

static VkResult
op_create_device(struct ac_ctx *c)
{
   VkDeviceCreateInfo dci;
   VkDeviceQueueCreateInfo qci;
   VkPhysicalDeviceTimelineSemaphoreFeatures tl;
   const char *exts[1];
   ac_device_info(&dci, &qci, &tl, exts);
   c->device = VK_NULL_HANDLE;
   return vkCreateDevice(c->pdev, &dci, c->obj, &c->device);
}

static void
undo_device(struct ac_ctx *c)
{
   vkDestroyDevice(c->device, c->obj);
   c->device = VK_NULL_HANDLE;
}

static void
cleanup_instance(struct ac_ctx *c)
{
   if (c->instance)
      vkDestroyInstance(c->instance, &ta_callbacks);
   c->instance = VK_NULL_HANDLE;
}

/* -- helpers for device-level cases -- */

static VkResult
ac_buffer(struct ac_ctx *c, int i, VkBufferUsageFlags usage)
{
   VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = AC_BUF_SIZE,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
   };
   VkResult r = d.CreateBuffer(c->t.device, &bci, NULL, &c->buf[i]);
   if (r != VK_SUCCESS)
      return r;
   VkMemoryRequirements req;
   d.GetBufferMemoryRequirements(c->t.device, c->buf[i], &req);
   int type = vkt_memory_type(&c->t, req.memoryTypeBits,
                              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
   if (type < 0)
      return VK_ERROR_FEATURE_NOT_PRESENT;
   VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req.size,
      .memoryTypeIndex = (uint32_t)type,
   };
   r = d.AllocateMemory(c->t.device, &mai, NULL, &c->mem[i]);
   if (r == VK_SUCCESS)
      r = d.BindBufferMemory(c->t.device, c->buf[i], c->mem[i], 0);
   if (r == VK_SUCCESS)
      r = d.MapMemory(c->t.device, c->mem[i], 0, VK_WHOLE_SIZE, 0, (void **)&c->map[i]);
   if (r == VK_SUCCESS)
      memset(c->map[i], 0, AC_BUF_SIZE);
   return r;
}

static void
ac_cleanup_common(struct ac_ctx *c)
{
   VkDevice dev = c->t.device;
   if (!dev)
      return;
   vkDeviceWaitIdle(dev);
   for (int i = 0; i < 2; i++) {
      if (c->buf[i])
         d.DestroyBuffer(dev, c->buf[i], NULL);
      if (c->mem[i])
         d.FreeMemory(dev, c->mem[i], NULL);
   }
   if (c->render_pass)
      d.DestroyRenderPass(dev, c->render_pass, NULL);
   if (c->view)
      d.DestroyImageView(dev, c->view, NULL);
   if (c->image)
      d.DestroyImage(dev, c->image, NULL);
   if (c->image_mem)
      d.FreeMemory(dev, c->image_mem, NULL);
   if (c->pool)
      d.DestroyCommandPool(dev, c->pool, NULL);
   for (int i = 0; i < AC_BATCHES - 1; i++) {
      if (c->batch_sem[i])
         d.DestroySemaphore(dev, c->batch_sem[i], NULL);
   }
   if (c->fence)
      d.DestroyFence(dev, c->fence, NULL);
   if (c->swapchain)
      d.DestroySwapchainKHR(dev, c->swapchain, NULL);
   if (c->surface)
      vkDestroySurfaceKHR(c->t.instance, c->surface, NULL);
   for (int i = 0; i < 5; i++) {
      if (c->modules[i])
         d.DestroyShaderModule(dev, c->modules[i], NULL);
   }
   if (c->layout)
      d.DestroyPipelineLayout(dev, c->layout, NULL);
   free(c->cache_data);
   free(c->ref);
}

static const char *
prep_none(struct ac_ctx *c)
{
   return NULL;
}

/* -- memory, buffers, views -- */

static VkResult
op_allocate_memory(struct ac_ctx *c)
{
   int type = vkt_memory_type(&c->t, ~0u, 0);
   VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = 65536,
      .memoryTypeIndex = (uint32_t)(type < 0 ? 0 : type),
   };
   VkDeviceMemory m = VK_NULL_HANDLE;
   VkResult r = d.AllocateMemory(c->t.device, &mai, c->obj, &m);
   c->out = (uint64_t)m;
   return r;
}

static void
undo_memory(struct ac_ctx *c)
{
   d.FreeMemory(c->t.device, (VkDeviceMemory)c->out, c->obj);
}

static VkResult
op_create_buffer(struct ac_ctx *c)
{
   VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = 4096,
      .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
   };
   VkBuffer b = VK_NULL_HANDLE;
   VkResult r = d.CreateBuffer(c->t.device, &bci, c->obj, &b);
   c->out = (uint64_t)b;
   return r;
}

static void
undo_buffer(struct ac_ctx *c)
{
   d.DestroyBuffer(c->t.device, (VkBuffer)c->out, c->obj);
}

static bool ac_view_note_printed;

static const char *
prep_buffer_view(struct ac_ctx *c)
{
   if (!d.CreateBufferView)
      return "vkCreateBufferView is not exposed";
   static const VkFormat candidates[] = { VK_FORMAT_R32_UINT, VK_FORMAT_R8G8B8A8_UNORM,
                                          VK_FORMAT_R32G32B32A32_SFLOAT };
   c->view_format = VK_FORMAT_UNDEFINED;
   for (unsigned i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
      VkFormatProperties fp;
      vkGetPhysicalDeviceFormatProperties(c->t.pdev, candidates[i], &fp);
      if (fp.bufferFeatures & VK_FORMAT_FEATURE_UNIFORM_TEXEL_BUFFER_BIT) {
         c->view_format = candidates[i];
         break;
      }
   }
   if (c->view_format == VK_FORMAT_UNDEFINED) {
      /* Invalid usage (no format has texel-buffer features), acceptable here
       * only because this test runs without the layer and checks nothing but
       * allocation and unwinding. */
      c->view_format = VK_FORMAT_R32_UINT;
      if (!ac_view_note_printed)
         fprintf(stderr, "note: vkCreateBufferView: no format reports texel-buffer features; "
                         "running R32_UINT outside valid usage, checking allocation only\n");
      ac_view_note_printed = true;
   }
   return ac_buffer(c, 0, VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT) == VK_SUCCESS
             ? NULL : "buffer creation failed";
}

static VkResult
op_create_buffer_view(struct ac_ctx *c)
{
   VkBufferViewCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO,
      .buffer = c->buf[0],
      .format = c->view_format,
      .offset = 0,
      .range = VK_WHOLE_SIZE,
   };
   VkBufferView v = VK_NULL_HANDLE;
   VkResult r = d.CreateBufferView(c->t.device, &info, c->obj, &v);
   c->out = (uint64_t)v;
   return r;
}

static void
undo_buffer_view(struct ac_ctx *c)
{
   d.DestroyBufferView(c->t.device, (VkBufferView)c->out, c->obj);
}

/* -- images, views, samplers -- */

static VkImageCreateInfo
ac_image_info(VkImageUsageFlags usage)
{
   return (VkImageCreateInfo) {
      .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
      .imageType = VK_IMAGE_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .extent = { 16, 16, 1 },
      .mipLevels = 1,
      .arrayLayers = 1,
      .samples = VK_SAMPLE_COUNT_1_BIT,
      .tiling = VK_IMAGE_TILING_OPTIMAL,
      .usage = usage,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
   };
}

static bool
ac_image_supported(struct ac_ctx *c, VkImageUsageFlags usage)
{
   VkImageFormatProperties p;
   return vkGetPhysicalDeviceImageFormatProperties(c->t.pdev, VK_FORMAT_R8G8B8A8_UNORM,
                                                   VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                   usage, 0, &p) == VK_SUCCESS;
}

static const char *
prep_image(struct ac_ctx *c)
{
   if (!d.CreateImage)
      return "vkCreateImage is not exposed";
   if (!ac_image_supported(c, VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT))
      return "R8G8B8A8_UNORM transfer images are not supported";
   return NULL;
}

static VkResult
op_create_image(struct ac_ctx *c)
{
   VkImageCreateInfo info =
      ac_image_info(VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT);
   VkImage img = VK_NULL_HANDLE;
   VkResult r = d.CreateImage(c->t.device, &info, c->obj, &img);
   c->out = (uint64_t)img;
   return r;
}

static void
undo_image(struct ac_ctx *c)
{
   d.DestroyImage(c->t.device, (VkImage)c->out, c->obj);
}

static const char *
prep_image_view(struct ac_ctx *c)
{
   if (!d.CreateImage || !d.CreateImageView)
      return "vkCreateImage or vkCreateImageView is not exposed";
   /* A view needs a view-compatible usage (sampled is the simplest). */
   VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
   VkFormatProperties fp;
   vkGetPhysicalDeviceFormatProperties(c->t.pdev, VK_FORMAT_R8G8B8A8_UNORM, &fp);
   if (!(fp.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT) ||
       !ac_image_supported(c, usage))
      return "no sampled R8G8B8A8_UNORM images yet (a view needs a view usage)";
   VkImageCreateInfo info = ac_image_info(usage);
   if (d.CreateImage(c->t.device, &info, NULL, &c->image) != VK_SUCCESS)
      return "vkCreateImage failed";
   VkMemoryRequirements req;
   d.GetImageMemoryRequirements(c->t.device, c->image, &req);
   int type = vkt_memory_type(&c->t, req.memoryTypeBits, 0);
   VkMemoryAllocateInfo mai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req.size,
      .memoryTypeIndex = (uint32_t)(type < 0 ? 0 : type),
   };
   if (type < 0 || d.AllocateMemory(c->t.device, &mai, NULL, &c->image_mem) != VK_SUCCESS ||
       d.BindImageMemory(c->t.device, c->image, c->image_mem, 0) != VK_SUCCESS)
      return "image memory failed";
   return NULL;
}

static VkResult
op_create_image_view(struct ac_ctx *c)
{
   VkImageViewCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = c->image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   VkImageView v = VK_NULL_HANDLE;
   VkResult r = d.CreateImageView(c->t.device, &info, c->obj, &v);
   c->out = (uint64_t)v;
   return r;
}

static void
undo_image_view(struct ac_ctx *c)
{
   d.DestroyImageView(c->t.device, (VkImageView)c->out, c->obj);
}

static const char *
prep_sampler(struct ac_ctx *c)
{
   return d.CreateSampler ? NULL : "vkCreateSampler is not exposed";
}

static VkResult
op_create_sampler(struct ac_ctx *c)
{
   VkSamplerCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
      .magFilter = VK_FILTER_NEAREST,
      .minFilter = VK_FILTER_NEAREST,
      .mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST,
      .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
      .maxLod = 0.0f,
      .borderColor = VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
   };
   VkSampler s = VK_NULL_HANDLE;
   VkResult r = d.CreateSampler(c->t.device, &info, c->obj, &s);
   c->out = (uint64_t)s;
   return r;
}

static void
undo_sampler(struct ac_ctx *c)
{
   d.DestroySampler(c->t.device, (VkSampler)c->out, c->obj);
}

/* -- command pools and buffers -- */

static VkResult
op_create_command_pool(struct ac_ctx *c)
{
   VkCommandPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = 0,
   };
   VkCommandPool p = VK_NULL_HANDLE;
   VkResult r = d.CreateCommandPool(c->t.device, &info, c->obj, &p);
   c->out = (uint64_t)p;
   return r;
}

static void
undo_command_pool(struct ac_ctx *c)
{
   d.DestroyCommandPool(c->t.device, (VkCommandPool)c->out, c->obj);
}

/* Command buffers take their pool's allocator: the pool is created with the
 * case's pAllocator (explicit, or NULL to inherit the device's). */
static const char *
prep_pool(struct ac_ctx *c)
{
   VkCommandPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
      .queueFamilyIndex = 0,
   };
   return d.CreateCommandPool(c->t.device, &info, c->obj, &c->pool) == VK_SUCCESS
             ? NULL : "vkCreateCommandPool failed";
}

static void
cleanup_pool(struct ac_ctx *c)
{
   if (c->pool)
      d.DestroyCommandPool(c->t.device, c->pool, c->obj);
   c->pool = VK_NULL_HANDLE;
   ac_cleanup_common(c);
}

static VkResult
op_allocate_command_buffers(struct ac_ctx *c)
{
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = c->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = AC_CMDBUFS,
   };
   /* Garbage in: a failure must overwrite every entry with VK_NULL_HANDLE. */
   memset(c->cbs, 0x5a, sizeof(c->cbs));
   return d.AllocateCommandBuffers(c->t.device, &ai, c->cbs);
}

static void
after_fail_command_buffers(struct ac_ctx *c)
{
   for (int i = 0; i < AC_CMDBUFS; i++)
      CHECK(c->cbs[i] == VK_NULL_HANDLE, "vkAllocateCommandBuffers failed but entry %d is %p", i,
            (void *)c->cbs[i]);
}

static void
undo_command_buffers(struct ac_ctx *c)
{
   for (int i = 0; i < AC_CMDBUFS; i++)
      CHECK(c->cbs[i] != VK_NULL_HANDLE, "entry %d NULL after success", i);
   d.FreeCommandBuffers(c->t.device, c->pool, AC_CMDBUFS, c->cbs);
}

/* -- command recording: a long recording whose arena must grow -- */

#define AC_UPDATES 48         /* 1 KiB updates at [0, 48K) */
#define AC_FILLS 256          /* 64-byte fills at [48K, 64K) */
#define AC_BIG_OFFSET 65536   /* one 32 KiB update: more than an arena block */
#define AC_BIG_SIZE 32768

static uint8_t
ac_pattern(uint32_t i, uint32_t j)
{
   return (uint8_t)(i * 7u + j * 13u + 1u);
}

static const char *
prep_record(struct ac_ctx *c, VkCommandBufferResetFlags reset)
{
   c->rec_reset = reset;
   if (!d.CmdFillBuffer || !d.CmdUpdateBuffer)
      return "vkCmdFillBuffer or vkCmdUpdateBuffer is not exposed";
   const char *why = prep_pool(c);
   if (why)
      return why;
   if (ac_buffer(c, 0, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT) ||
       ac_buffer(c, 1, VK_BUFFER_USAGE_TRANSFER_DST_BIT))
      return "buffer creation failed";
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = c->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
   };
   if (d.AllocateCommandBuffers(c->t.device, &ai, &c->rec_cb) != VK_SUCCESS)
      return "vkAllocateCommandBuffers failed";
   /* The CPU reference of what the recording writes to buffer 0. */
   c->ref = calloc(1, AC_BUF_SIZE);
   for (uint32_t i = 0; i < AC_UPDATES; i++) {
      for (uint32_t j = 0; j < 1024; j++)
         c->ref[i * 1024 + j] = ac_pattern(i, j);
   }
   for (uint32_t i = 0; i < AC_FILLS; i++) {
      uint32_t v = 0x01020304u * (i + 1);
      for (uint32_t j = 0; j < 64; j += 4)
         memcpy(c->ref + 48 * 1024 + i * 64 + j, &v, 4);
   }
   for (uint32_t j = 0; j < AC_BIG_SIZE; j++)
      c->ref[AC_BIG_OFFSET + j] = ac_pattern(1000, j);
   return NULL;
}

/* Every recording starts from an empty pool: each arena block is allocated. */
static const char *
prep_record_fresh(struct ac_ctx *c)
{
   return prep_record(c, VK_COMMAND_BUFFER_RESET_RELEASE_RESOURCES_BIT);
}

/* Blocks of earlier recordings are kept and reused: only blocks beyond them
 * (and blocks too big to reuse) are allocated. */
static const char *
prep_record_reuse(struct ac_ctx *c)
{
   return prep_record(c, 0);
}

static VkResult
op_record(struct ac_ctx *c)
{
   VkCommandBuffer cb = c->rec_cb;
   VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
   VkResult r = d.BeginCommandBuffer(cb, &bi);
   if (r != VK_SUCCESS)
      return r;
   static uint8_t data[AC_BIG_SIZE];
   for (uint32_t i = 0; i < AC_UPDATES; i++) {
      for (uint32_t j = 0; j < 1024; j++)
         data[j] = ac_pattern(i, j);
      d.CmdUpdateBuffer(cb, c->buf[0], i * 1024, 1024, data);
   }
   for (uint32_t i = 0; i < AC_FILLS; i++)
      d.CmdFillBuffer(cb, c->buf[0], 48 * 1024 + i * 64, 64, 0x01020304u * (i + 1));
   for (uint32_t j = 0; j < AC_BIG_SIZE; j++)
      data[j] = ac_pattern(1000, j);
   d.CmdUpdateBuffer(cb, c->buf[0], AC_BIG_OFFSET, AC_BIG_SIZE, data);
   if (d.CmdCopyBuffer && d.CmdPipelineBarrier) {
      VkBufferMemoryBarrier b = {
         .sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER,
         .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
         .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT,
         .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
         .buffer = c->buf[0],
         .offset = 0,
         .size = VK_WHOLE_SIZE,
      };
      d.CmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                           0, NULL, 1, &b, 0, NULL);
      VkBufferCopy region = { 0, 0, AC_BUF_SIZE };
      d.CmdCopyBuffer(cb, c->buf[0], c->buf[1], 1, &region);
   }
   return d.EndCommandBuffer(cb);
}

static void
after_fail_record(struct ac_ctx *c)
{
   /* Blocks recorded before the failure belong to the buffer until reset. */
   CHECK_EQ_INT(d.ResetCommandBuffer(c->rec_cb, c->rec_reset), VK_SUCCESS);
}

static void
undo_record(struct ac_ctx *c)
{
   /* The recording must be whole: run it and compare with the reference. */
   VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &c->rec_cb,
   };
   CHECK_EQ_INT(d.QueueSubmit(c->t.queue, 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
   CHECK_EQ_INT(d.QueueWaitIdle(c->t.queue), VK_SUCCESS);
   CHECK(memcmp(c->map[0], c->ref, AC_BUF_SIZE) == 0, "recorded commands wrote the wrong data");
   if (d.CmdCopyBuffer && d.CmdPipelineBarrier)
      CHECK(memcmp(c->map[1], c->ref, AC_BUF_SIZE) == 0, "copied data differs");
   memset(c->map[0], 0, AC_BUF_SIZE);
   memset(c->map[1], 0, AC_BUF_SIZE);
   CHECK_EQ_INT(d.ResetCommandBuffer(c->rec_cb, c->rec_reset), VK_SUCCESS);
}

/* -- sync objects and query pools -- */

static VkResult
op_create_fence(struct ac_ctx *c)
{
   VkFenceCreateInfo info = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   VkFence f = VK_NULL_HANDLE;
   VkResult r = d.CreateFence(c->t.device, &info, c->obj, &f);
   c->out = (uint64_t)f;
   return r;
}

static void
undo_fence(struct ac_ctx *c)
{
   d.DestroyFence(c->t.device, (VkFence)c->out, c->obj);
}

static VkResult
ac_create_semaphore(struct ac_ctx *c, bool timeline)
{
   VkSemaphoreTypeCreateInfo type = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
      .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE,
      .initialValue = 5,
   };
   VkSemaphoreCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
      .pNext = timeline ? &type : NULL,
   };
   VkSemaphore s = VK_NULL_HANDLE;
   VkResult r = d.CreateSemaphore(c->t.device, &info, c->obj, &s);
   c->out = (uint64_t)s;
   return r;
}

static VkResult
op_create_binary_semaphore(struct ac_ctx *c)
{
   return ac_create_semaphore(c, false);
}

static const char *
prep_timeline(struct ac_ctx *c)
{
   return caps.timeline ? NULL
                        : "timeline semaphores are not supported (no VK_KHR_timeline_semaphore, "
                          "no 1.2 timelineSemaphore feature)";
}

static VkResult
op_create_timeline_semaphore(struct ac_ctx *c)
{
   return ac_create_semaphore(c, true);
}

static void
undo_semaphore(struct ac_ctx *c)
{
   d.DestroySemaphore(c->t.device, (VkSemaphore)c->out, c->obj);
}

static VkResult
op_create_event(struct ac_ctx *c)
{
   VkEventCreateInfo info = { .sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO };
   VkEvent e = VK_NULL_HANDLE;
   VkResult r = d.CreateEvent(c->t.device, &info, c->obj, &e);
   c->out = (uint64_t)e;
   return r;
}

static void
undo_event(struct ac_ctx *c)
{
   d.DestroyEvent(c->t.device, (VkEvent)c->out, c->obj);
}

static const char *
prep_query_pool(struct ac_ctx *c)
{
   return d.CreateQueryPool ? NULL : "vkCreateQueryPool is not exposed";
}

static VkResult
op_create_query_pool(struct ac_ctx *c)
{
   VkQueryPoolCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
      .queryType = VK_QUERY_TYPE_OCCLUSION,
      .queryCount = 8,
   };
   VkQueryPool p = VK_NULL_HANDLE;
   VkResult r = d.CreateQueryPool(c->t.device, &info, c->obj, &p);
   c->out = (uint64_t)p;
   return r;
}

static void
undo_query_pool(struct ac_ctx *c)
{
   d.DestroyQueryPool(c->t.device, (VkQueryPool)c->out, c->obj);
}

/* -- vkQueueSubmit: AC_BATCHES batches chained by binary semaphores, each
 * filling its own slice of buffer 0, the last one with a fence -- */

static const char *
prep_submit(struct ac_ctx *c)
{
   if (!d.CmdFillBuffer)
      return "vkCmdFillBuffer is not exposed";
   const char *why = prep_pool(c);
   if (why)
      return why;
   if (ac_buffer(c, 0, VK_BUFFER_USAGE_TRANSFER_DST_BIT))
      return "buffer creation failed";
   VkCommandBufferAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = c->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = AC_BATCHES,
   };
   if (d.AllocateCommandBuffers(c->t.device, &ai, c->batch_cb) != VK_SUCCESS)
      return "vkAllocateCommandBuffers failed";
   c->ref = calloc(1, AC_BUF_SIZE);
   for (uint32_t i = 0; i < AC_BATCHES; i++) {
      VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
      d.BeginCommandBuffer(c->batch_cb[i], &bi);
      uint32_t v = 0x11111111u * (i + 1);
      d.CmdFillBuffer(c->batch_cb[i], c->buf[0], i * 256, 256, v);
      if (d.EndCommandBuffer(c->batch_cb[i]) != VK_SUCCESS)
         return "recording failed";
      for (uint32_t j = 0; j < 256; j += 4)
         memcpy(c->ref + i * 256 + j, &v, 4);
   }
   VkSemaphoreCreateInfo sci = { .sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO };
   for (uint32_t i = 0; i < AC_BATCHES - 1; i++) {
      if (d.CreateSemaphore(c->t.device, &sci, NULL, &c->batch_sem[i]) != VK_SUCCESS)
         return "vkCreateSemaphore failed";
   }
   VkFenceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
   return d.CreateFence(c->t.device, &fci, NULL, &c->fence) == VK_SUCCESS ? NULL
                                                                          : "vkCreateFence failed";
}

static VkResult
op_submit(struct ac_ctx *c)
{
   VkSubmitInfo si[AC_BATCHES];
   static const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
   for (uint32_t i = 0; i < AC_BATCHES; i++) {
      si[i] = (VkSubmitInfo) {
         .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
         .waitSemaphoreCount = i > 0,
         .pWaitSemaphores = i > 0 ? &c->batch_sem[i - 1] : NULL,
         .pWaitDstStageMask = &stage,
         .commandBufferCount = 1,
         .pCommandBuffers = &c->batch_cb[i],
         .signalSemaphoreCount = i < AC_BATCHES - 1,
         .pSignalSemaphores = i < AC_BATCHES - 1 ? &c->batch_sem[i] : NULL,
      };
   }
   return d.QueueSubmit(c->t.queue, AC_BATCHES, si, c->fence);
}

static bool
ac_all_zero(const uint8_t *p, size_t n)
{
   for (size_t i = 0; i < n; i++) {
      if (p[i])
         return false;
   }
   return true;
}

static void
after_fail_submit(struct ac_ctx *c)
{
   /* A failed submission changes nothing: no work ran, the fence and the
    * semaphores are untouched. */
   CHECK_EQ_INT(d.QueueWaitIdle(c->t.queue), VK_SUCCESS);
   CHECK_EQ_INT(d.GetFenceStatus(c->t.device, c->fence), VK_NOT_READY);
   CHECK(ac_all_zero(c->map[0], AC_BUF_SIZE), "a failed vkQueueSubmit ran work");
}

static void
undo_submit(struct ac_ctx *c)
{
   CHECK_EQ_INT(d.WaitForFences(c->t.device, 1, &c->fence, VK_TRUE, 10ull * 1000 * 1000 * 1000),
                VK_SUCCESS);
   CHECK_EQ_INT(d.QueueWaitIdle(c->t.queue), VK_SUCCESS);
   CHECK(memcmp(c->map[0], c->ref, AC_BUF_SIZE) == 0, "submitted batches wrote the wrong data");
   memset(c->map[0], 0, AC_BUF_SIZE);
   CHECK_EQ_INT(d.ResetFences(c->t.device, 1, &c->fence), VK_SUCCESS);
}

/* -- render passes and framebuffers -- */

/* Three subpasses: the first clears and writes attachment 0, the second
 * reads it as an input attachment and writes attachment 1, the third writes
 * 1 and preserves 0; a dependency between the first two (every array the
 * 1.0 form lowers is non-empty). */
static VkResult
ac_render_pass(struct ac_ctx *c, const VkAllocationCallbacks *alloc, VkRenderPass *out)
{
   const VkAttachmentDescription att[2] = {
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL },
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_LOAD,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
   };
   const VkAttachmentReference col0 = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference in0 = { 0, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL };
   const VkAttachmentReference col1 = { 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const uint32_t preserve = 0;
   const VkSubpassDescription sub[3] = {
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &col0 },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .inputAttachmentCount = 1,
        .pInputAttachments = &in0, .colorAttachmentCount = 1, .pColorAttachments = &col1 },
      { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS, .colorAttachmentCount = 1,
        .pColorAttachments = &col1, .preserveAttachmentCount = 1, .pPreserveAttachments = &preserve },
   };
   const VkSubpassDependency dep = {
      0, 1, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
      VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_ACCESS_INPUT_ATTACHMENT_READ_BIT,
      VK_DEPENDENCY_BY_REGION_BIT,
   };
   const VkRenderPassCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2,
      .pAttachments = att,
      .subpassCount = 3,
      .pSubpasses = sub,
      .dependencyCount = 1,
      .pDependencies = &dep,
   };
   *out = VK_NULL_HANDLE;
   return d.CreateRenderPass(c->t.device, &info, alloc, out);
}

static VkResult
op_create_render_pass(struct ac_ctx *c)
{
   VkRenderPass rp;
   VkResult r = ac_render_pass(c, c->obj, &rp);
   c->out = (uint64_t)rp;
   return r;
}

static void
undo_render_pass(struct ac_ctx *c)
{
   d.DestroyRenderPass(c->t.device, (VkRenderPass)c->out, c->obj);
}

static const char *
prep_framebuffer(struct ac_ctx *c)
{
   const char *why = prep_image_view(c);
   if (why)
      return why;
   const VkImageViewCreateInfo vi = {
      .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
      .image = c->image,
      .viewType = VK_IMAGE_VIEW_TYPE_2D,
      .format = VK_FORMAT_R8G8B8A8_UNORM,
      .subresourceRange = { VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1 },
   };
   if (d.CreateImageView(c->t.device, &vi, NULL, &c->view) != VK_SUCCESS)
      return "vkCreateImageView failed";
   if (ac_render_pass(c, NULL, &c->render_pass) != VK_SUCCESS)
      return "vkCreateRenderPass failed";
   return NULL;
}

static VkResult
op_create_framebuffer(struct ac_ctx *c)
{
   const VkImageView views[2] = { c->view, c->view };
   const VkFramebufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = c->render_pass,
      .attachmentCount = 2,
      .pAttachments = views,
      .width = 16,
      .height = 16,
      .layers = 1,
   };
   VkFramebuffer fb = VK_NULL_HANDLE;
   VkResult r = d.CreateFramebuffer(c->t.device, &info, c->obj, &fb);
   c->out = (uint64_t)fb;
   return r;
}

static void
undo_framebuffer(struct ac_ctx *c)
{
   d.DestroyFramebuffer(c->t.device, (VkFramebuffer)c->out, c->obj);
}

/* -- graphics pipelines -- */

/* A render pass of one R8G8B8A8 colour and one D32 depth attachment, so the
 * pipeline has both fragment back-end routines (blending, a depth test). */
static VkResult
ac_gfx_render_pass(struct ac_ctx *c)
{
   const VkAttachmentDescription att[2] = {
      { 0, VK_FORMAT_R8G8B8A8_UNORM, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL },
      { 0, VK_FORMAT_D32_SFLOAT, VK_SAMPLE_COUNT_1_BIT, VK_ATTACHMENT_LOAD_OP_CLEAR,
        VK_ATTACHMENT_STORE_OP_STORE, VK_ATTACHMENT_LOAD_OP_DONT_CARE,
        VK_ATTACHMENT_STORE_OP_DONT_CARE, VK_IMAGE_LAYOUT_UNDEFINED,
        VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL },
   };
   const VkAttachmentReference col = { 0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL };
   const VkAttachmentReference depth = { 1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL };
   const VkSubpassDescription sub = {
      .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS,
      .colorAttachmentCount = 1,
      .pColorAttachments = &col,
      .pDepthStencilAttachment = &depth,
   };
   const VkRenderPassCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
      .attachmentCount = 2,
      .pAttachments = att,
      .subpassCount = 1,
      .pSubpasses = &sub,
   };
   return d.CreateRenderPass(c->t.device, &info, NULL, &c->render_pass);
}

/* Creates a graphics pipeline (kind 0: vertex and fragment stages, 1: and
 * the geometry stage, 2: and the tessellation stages) into `cache` with
 * allocator `alloc`. */
static VkResult
ac_gfx_pipeline(struct ac_ctx *c, int kind, VkPipelineCache cache,
                const VkAllocationCallbacks *alloc, VkPipeline *out)
{
   const bool geometry = kind == 1, tess = kind == 2;
   VkPipelineShaderStageCreateInfo stages[4] = {
      { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0, VK_SHADER_STAGE_VERTEX_BIT,
        c->modules[0], "main", NULL },
      { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
        VK_SHADER_STAGE_FRAGMENT_BIT, c->modules[2], "main", NULL },
      { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
        VK_SHADER_STAGE_GEOMETRY_BIT, c->modules[1], "main", NULL },
      { VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, NULL, 0,
        VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT, c->modules[4], "main", NULL },
   };
   if (tess) {
      stages[2].stage = VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT;
      stages[2].module = c->modules[3];
   }
   const VkPipelineTessellationDomainOriginStateCreateInfo origin = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO,
      .domainOrigin = VK_TESSELLATION_DOMAIN_ORIGIN_LOWER_LEFT,
   };
   const VkPipelineTessellationStateCreateInfo ts = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_TESSELLATION_STATE_CREATE_INFO,
      .pNext = caps.api_version >= VK_API_VERSION_1_1 ? &origin : NULL,
      .patchControlPoints = 3,
   };
   const VkVertexInputBindingDescription vb = { 0, 32, VK_VERTEX_INPUT_RATE_VERTEX };
   const VkVertexInputAttributeDescription va[2] = {
      { 0, 0, VK_FORMAT_R32G32B32A32_SFLOAT, 0 },
      { 1, 0, VK_FORMAT_R8G8B8A8_UNORM, 16 },
   };
   const VkPipelineVertexInputStateCreateInfo vi = {
      VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO, NULL, 0, 1, &vb, 2, va,
   };
   const VkPipelineInputAssemblyStateCreateInfo ia = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
      .topology = tess ? VK_PRIMITIVE_TOPOLOGY_PATCH_LIST : VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
   };
   const VkPipelineViewportStateCreateInfo vp = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO,
      .viewportCount = 1,
      .scissorCount = 1,
   };
   const VkPipelineRasterizationStateCreateInfo rs = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
      .polygonMode = VK_POLYGON_MODE_FILL,
      .cullMode = VK_CULL_MODE_NONE,
      .lineWidth = 1.0f,
   };
   const VkPipelineMultisampleStateCreateInfo ms = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO,
      .rasterizationSamples = VK_SAMPLE_COUNT_1_BIT,
   };
   const VkPipelineDepthStencilStateCreateInfo ds = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO,
      .depthTestEnable = VK_TRUE,
      .depthWriteEnable = VK_TRUE,
      .depthCompareOp = VK_COMPARE_OP_LESS,
   };
   const VkPipelineColorBlendAttachmentState blend = {
      VK_TRUE, VK_BLEND_FACTOR_SRC_ALPHA, VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA, VK_BLEND_OP_ADD,
      VK_BLEND_FACTOR_ONE, VK_BLEND_FACTOR_ZERO, VK_BLEND_OP_ADD, 0xf,
   };
   const VkPipelineColorBlendStateCreateInfo cb = {
      .sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO,
      .attachmentCount = 1,
      .pAttachments = &blend,
   };
   const VkDynamicState dyn[2] = { VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR };
   const VkPipelineDynamicStateCreateInfo dy = {
      VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO, NULL, 0, 2, dyn,
   };
   const VkGraphicsPipelineCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
      .stageCount = tess ? 4 : geometry ? 3 : 2,
      .pStages = stages,
      .pTessellationState = tess ? &ts : NULL,
      .pVertexInputState = &vi,
      .pInputAssemblyState = &ia,
      .pViewportState = &vp,
      .pRasterizationState = &rs,
      .pMultisampleState = &ms,
      .pDepthStencilState = &ds,
      .pColorBlendState = &cb,
      .pDynamicState = &dy,
      .layout = c->layout,
      .renderPass = c->render_pass,
   };
   *out = (VkPipeline)(uintptr_t)0x1234;
   VkResult r = d.CreateGraphicsPipelines(c->t.device, cache, 1, &info, alloc, out);
   CHECK(r == VK_SUCCESS || *out == VK_NULL_HANDLE,
         "vkCreateGraphicsPipelines failed (%d) but left a handle", r);
   return r;
}

/* Shader modules, layout and render pass; for the cached cases also the data
 * of a cache that holds the pipeline (machine code and back-end routines). */
static const char *
ac_prep_gfx(struct ac_ctx *c, int kind, bool cached)
{
   if (kind == 1 && !caps.geometry)
      return "geometryShader is not supported";
   if (kind == 2 && !caps.tess)
      return "tessellationShader is not supported";
   const struct { const uint32_t *code; size_t size; } src[5] = {
      { af_vert_spv, sizeof(af_vert_spv) },
      { af_geom_spv, sizeof(af_geom_spv) },
      { af_frag_spv, sizeof(af_frag_spv) },
      { af_tesc_spv, sizeof(af_tesc_spv) },
      { af_tese_spv, sizeof(af_tese_spv) },
   };
   for (int i = 0; i < 5; i++) {
      const VkShaderModuleCreateInfo mi = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0,
                                            src[i].size, src[i].code };
      if (d.CreateShaderModule(c->t.device, &mi, NULL, &c->modules[i]) != VK_SUCCESS)
         return "vkCreateShaderModule failed";
   }
   const VkPipelineLayoutCreateInfo li = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
   if (d.CreatePipelineLayout(c->t.device, &li, NULL, &c->layout) != VK_SUCCESS)
      return "vkCreatePipelineLayout failed";
   if (ac_gfx_render_pass(c) != VK_SUCCESS)
      return "vkCreateRenderPass failed";
   if (!cached)
      return NULL;
   const VkPipelineCacheCreateInfo ci = { VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO };
   VkPipelineCache cache;
   if (d.CreatePipelineCache(c->t.device, &ci, NULL, &cache) != VK_SUCCESS)
      return "vkCreatePipelineCache failed";
   VkPipeline p;
   const char *why = NULL;
   if (ac_gfx_pipeline(c, kind, cache, NULL, &p) != VK_SUCCESS) {
      why = "vkCreateGraphicsPipelines failed";
   } else {
      d.DestroyPipeline(c->t.device, p, NULL);
      if (d.GetPipelineCacheData(c->t.device, cache, &c->cache_size, NULL) != VK_SUCCESS ||
          !(c->cache_data = malloc(c->cache_size)) ||
          d.GetPipelineCacheData(c->t.device, cache, &c->cache_size, c->cache_data) != VK_SUCCESS)
         why = "vkGetPipelineCacheData failed";
   }
   d.DestroyPipelineCache(c->t.device, cache, NULL);
   return why;
}

static const char *prep_gfx(struct ac_ctx *c) { return ac_prep_gfx(c, false, false); }
static const char *prep_gfx_geom(struct ac_ctx *c) { return ac_prep_gfx(c, true, false); }
static const char *prep_gfx_cached(struct ac_ctx *c) { return ac_prep_gfx(c, false, true); }
static const char *prep_gfx_geom_cached(struct ac_ctx *c) { return ac_prep_gfx(c, true, true); }
static const char *prep_gfx_tess(struct ac_ctx *c) { return ac_prep_gfx(c, 2, false); }
static const char *prep_gfx_tess_cached(struct ac_ctx *c) { return ac_prep_gfx(c, 2, true); }

static const char *
prep_gfx_geom_into(struct ac_ctx *c)
{
   c->into_cache = true;
   return ac_prep_gfx(c, true, false);
}

/* Without a cache, into an empty cache (which then stores the shaders and
 * back-end routines), or from a cache made from the prepared data (a pipeline
 * whose shaders and routines are loaded, not compiled); the caches are made
 * with the allocator under test. */
static VkResult
ac_op_gfx(struct ac_ctx *c, int kind)
{
   VkPipelineCache cache = VK_NULL_HANDLE;
   if (c->cache_data || c->into_cache) {
      const VkPipelineCacheCreateInfo ci = { VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, NULL,
                                             0, c->cache_size, c->cache_data };
      VkResult r = d.CreatePipelineCache(c->t.device, &ci, c->obj, &cache);
      if (r != VK_SUCCESS)
         return r;
   }
   VkPipeline p = VK_NULL_HANDLE;
   VkResult r = ac_gfx_pipeline(c, kind, cache, c->obj, &p);
   if (cache)
      d.DestroyPipelineCache(c->t.device, cache, c->obj);
   c->out = (uint64_t)p;
   return r;
}

static VkResult op_create_gfx(struct ac_ctx *c) { return ac_op_gfx(c, false); }
static VkResult op_create_gfx_geom(struct ac_ctx *c) { return ac_op_gfx(c, true); }
static VkResult op_create_gfx_tess(struct ac_ctx *c) { return ac_op_gfx(c, 2); }

static void
undo_gfx(struct ac_ctx *c)
{
   d.DestroyPipeline(c->t.device, (VkPipeline)c->out, c->obj);
}

/* -- graphics pipelines on a cold runtime -- */

/* The shader runtime and its memory cache live while a device does
 * (sd_pipeline_cache.h), so in the cases above the shaders the prepare
 * step compiled are memory-cache hits and the cache data's shader blobs are
 * never copied and linked. Here each operation creates the device (the
 * only one: the runtime starts empty) and on it the pipeline from cache
 * data, so every shader and back-end routine blob is copied and linked,
 * with the allocator under test; destroying the device ends the runtime.
 * c->t.device is that device (the graphics helpers above use it); modules
 * and layout are made with `alloc`, the render pass with the device's. */
static VkResult
ac_cold_device(struct ac_ctx *c, const VkAllocationCallbacks *alloc)
{
   VkDeviceCreateInfo dci;
   VkDeviceQueueCreateInfo qci;
   VkPhysicalDeviceTimelineSemaphoreFeatures tl;
   const char *exts[1];
   ac_device_info(&dci, &qci, &tl, exts);
   c->t.device = VK_NULL_HANDLE;
   VkResult r = vkCreateDevice(c->pdev, &dci, alloc, &c->t.device);
   if (r != VK_SUCCESS) {
      c->t.device = VK_NULL_HANDLE;
      return r;
   }
   ac_load_device(c->t.device);
   const struct { const uint32_t *code; size_t size; int slot; } src[2] = {
      { af_vert_spv, sizeof(af_vert_spv), 0 },
      { af_frag_spv, sizeof(af_frag_spv), 2 },
   };
   for (int i = 0; i < 2; i++) {
      const VkShaderModuleCreateInfo mi = { VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, NULL, 0,
                                            src[i].size, src[i].code };
      r = d.CreateShaderModule(c->t.device, &mi, alloc, &c->modules[src[i].slot]);
      if (r != VK_SUCCESS)
         return r;
   }
   const VkPipelineLayoutCreateInfo li = { VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
   r = d.CreatePipelineLayout(c->t.device, &li, alloc, &c->layout);
   return r != VK_SUCCESS ? r : ac_gfx_render_pass(c);
}

static void
ac_cold_device_destroy(struct ac_ctx *c, const VkAllocationCallbacks *alloc)
{
   VkDevice dev = c->t.device;
   if (!dev)
      return;
   if (c->render_pass)
      d.DestroyRenderPass(dev, c->render_pass, NULL);
   for (int i = 0; i < 3; i++)
      if (c->modules[i])
         d.DestroyShaderModule(dev, c->modules[i], alloc);
   if (c->layout)
      d.DestroyPipelineLayout(dev, c->layout, alloc);
   vkDestroyDevice(dev, alloc);
   c->render_pass = VK_NULL_HANDLE;
   memset(c->modules, 0, sizeof(c->modules));
   c->layout = VK_NULL_HANDLE;
   c->t.device = VK_NULL_HANDLE;
}

/* The data of a cache holding the pipeline, made on a device of its own
 * that is gone when this returns (and the runtime with it). */
static const char *
prep_gfx_cold(struct ac_ctx *c)
{
   const char *why = NULL;
   VkPipelineCache cache = VK_NULL_HANDLE;
   VkPipeline p = VK_NULL_HANDLE;
   const VkPipelineCacheCreateInfo ci = { VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO };
   if (ac_cold_device(c, NULL) != VK_SUCCESS)
      why = "vkCreateDevice or its shader modules, layout or render pass failed";
   else if (d.CreatePipelineCache(c->t.device, &ci, NULL, &cache) != VK_SUCCESS)
      why = "vkCreatePipelineCache failed";
   else if (ac_gfx_pipeline(c, false, cache, NULL, &p) != VK_SUCCESS)
      why = "vkCreateGraphicsPipelines failed";
   else if (d.GetPipelineCacheData(c->t.device, cache, &c->cache_size, NULL) != VK_SUCCESS ||
            !(c->cache_data = malloc(c->cache_size)) ||
            d.GetPipelineCacheData(c->t.device, cache, &c->cache_size, c->cache_data) !=
               VK_SUCCESS)
      why = "vkGetPipelineCacheData failed";
   if (p && p != (VkPipeline)(uintptr_t)0x1234)
      d.DestroyPipeline(c->t.device, p, NULL);
   if (cache)
      d.DestroyPipelineCache(c->t.device, cache, NULL);
   ac_cold_device_destroy(c, NULL);
   return why;
}

/* vkCreateDevice, then a cache from the data and the pipeline from it. A
 * failure destroys all of it again. */
static VkResult
op_create_gfx_cold(struct ac_ctx *c)
{
   VkPipeline p = VK_NULL_HANDLE;
   VkPipelineCache cache = VK_NULL_HANDLE;
   VkResult r = ac_cold_device(c, c->obj);
   if (r == VK_SUCCESS) {
      const VkPipelineCacheCreateInfo ci = { VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO, NULL,
                                             0, c->cache_size, c->cache_data };
      r = d.CreatePipelineCache(c->t.device, &ci, c->obj, &cache);
   }
   if (r == VK_SUCCESS)
      r = ac_gfx_pipeline(c, false, cache, c->obj, &p);
   if (cache)
      d.DestroyPipelineCache(c->t.device, cache, c->obj);
   if (r != VK_SUCCESS) {
      ac_cold_device_destroy(c, c->obj);
      p = VK_NULL_HANDLE;
   }
   c->out = (uint64_t)p;
   return r;
}

static void
undo_gfx_cold(struct ac_ctx *c)
{
   d.DestroyPipeline(c->t.device, (VkPipeline)c->out, c->obj);
   ac_cold_device_destroy(c, c->obj);
}

static void
cleanup_gfx_cold(struct ac_ctx *c)
{
   ac_cold_device_destroy(c, NULL);
   free(c->cache_data);
   c->cache_data = NULL;
   cleanup_instance(c);
}

/* -- window-system integration -- */

static const char *
prep_wsi(struct ac_ctx *c)
{
   return caps.wsi ? NULL : "no VK_EXT_headless_surface and VK_KHR_swapchain";
}

static VkResult
ac_create_surface(struct ac_ctx *c, const VkAllocationCallbacks *alloc, VkSurfaceKHR *out)
{
   PFN_vkCreateHeadlessSurfaceEXT create = (PFN_vkCreateHeadlessSurfaceEXT)vkGetInstanceProcAddr(
      c->t.instance, "vkCreateHeadlessSurfaceEXT");
   const VkHeadlessSurfaceCreateInfoEXT info = {
      .sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT,
   };
   *out = VK_NULL_HANDLE;
   return create(c->t.instance, &info, alloc, out);
}

static VkResult
op_create_surface(struct ac_ctx *c)
{
   VkSurfaceKHR s;
   VkResult r = ac_create_surface(c, c->obj, &s);
   c->out = (uint64_t)s;
   return r;
}

static void
undo_surface(struct ac_ctx *c)
{
   vkDestroySurfaceKHR(c->t.instance, (VkSurfaceKHR)c->out, c->obj);
}

static const char *
prep_surface(struct ac_ctx *c)
{
   if (!caps.wsi)
      return "no VK_EXT_headless_surface and VK_KHR_swapchain";
   return ac_create_surface(c, NULL, &c->surface) == VK_SUCCESS ? NULL
                                                                : "vkCreateHeadlessSurfaceEXT failed";
}

static VkResult
ac_create_swapchain(struct ac_ctx *c, const VkAllocationCallbacks *alloc, VkSwapchainKHR *out)
{
   const VkSwapchainCreateInfoKHR info = {
      .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
      .surface = c->surface,
      .minImageCount = 3,
      .imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
      .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
      .imageExtent = { 32, 16 },
      .imageArrayLayers = 1,
      .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
      .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
      .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
      .presentMode = VK_PRESENT_MODE_IMMEDIATE_KHR,
      .clipped = VK_TRUE,
   };
   *out = VK_NULL_HANDLE;
   return d.CreateSwapchainKHR(c->t.device, &info, alloc, out);
}

static VkResult
op_create_swapchain(struct ac_ctx *c)
{
   VkSwapchainKHR s;
   VkResult r = ac_create_swapchain(c, c->obj, &s);
   c->out = (uint64_t)s;
   return r;
}

static void
undo_swapchain(struct ac_ctx *c)
{
   d.DestroySwapchainKHR(c->t.device, (VkSwapchainKHR)c->out, c->obj);
}

/* A swapchain with an image acquired, ready to present. */
static const char *
prep_present(struct ac_ctx *c)
{
   const char *why = prep_surface(c);
   if (why)
      return why;
   if (ac_create_swapchain(c, NULL, &c->swapchain) != VK_SUCCESS)
      return "vkCreateSwapchainKHR failed";
   if (d.AcquireNextImageKHR(c->t.device, c->swapchain, UINT64_MAX, VK_NULL_HANDLE,
                             VK_NULL_HANDLE, &c->image_index) != VK_SUCCESS)
      return "vkAcquireNextImageKHR failed";
   return NULL;
}

static VkResult
op_present(struct ac_ctx *c)
{
   const VkPresentInfoKHR info = {
      .sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
      .swapchainCount = 1,
      .pSwapchains = &c->swapchain,
      .pImageIndices = &c->image_index,
   };
   return d.QueuePresentKHR(c->t.queue, &info);
}

/* A failed present leaves the image acquired; a successful one is
 * followed by the next acquire (IMMEDIATE frees an image at once). */
static void
undo_present(struct ac_ctx *c)
{
   VkResult r = d.AcquireNextImageKHR(c->t.device, c->swapchain, UINT64_MAX, VK_NULL_HANDLE,
                                      VK_NULL_HANDLE, &c->image_index);
   CHECK(r == VK_SUCCESS, "vkAcquireNextImageKHR after a present: %d", r);
}

static const struct ac_case ac_cases[] = {
   { "vkCreateInstance", AC_GLOBAL, false, true, NULL, op_create_instance, NULL, undo_instance,
     cleanup_instance },
   { "vkEnumeratePhysicalDevices", AC_INSTANCE, false, false, NULL, op_enumerate, NULL,
     undo_nothing, cleanup_instance },
   { "vkCreateDevice", AC_INSTANCE, false, true, NULL, op_create_device, NULL, undo_device,
     cleanup_instance },
   { "vkAllocateMemory", AC_DEVICE, true, true, prep_none, op_allocate_memory, NULL, undo_memory,
     ac_cleanup_common },
   { "vkCreateBuffer", AC_DEVICE, false, true, prep_none, op_create_buffer, NULL, undo_buffer,
     ac_cleanup_common },
   { "vkCreateBufferView", AC_DEVICE, false, true, prep_buffer_view, op_create_buffer_view, NULL,
     undo_buffer_view, ac_cleanup_common },
   { "vkCreateImage", AC_DEVICE, false, true, prep_image, op_create_image, NULL, undo_image,
     ac_cleanup_common },
   { "vkCreateImageView", AC_DEVICE, false, true, prep_image_view, op_create_image_view, NULL,
     undo_image_view, ac_cleanup_common },
   { "vkCreateSampler", AC_DEVICE, false, true, prep_sampler, op_create_sampler, NULL,
     undo_sampler, ac_cleanup_common },
   { "vkCreateCommandPool", AC_DEVICE, false, true, prep_none, op_create_command_pool, NULL,
     undo_command_pool, ac_cleanup_common },
   { "vkAllocateCommandBuffers", AC_DEVICE, false, true, prep_pool, op_allocate_command_buffers,
     after_fail_command_buffers, undo_command_buffers, cleanup_pool },
   { "command recording (fresh blocks)", AC_DEVICE, false, true, prep_record_fresh, op_record,
     after_fail_record, undo_record, cleanup_pool },
   { "command recording (reused blocks)", AC_DEVICE, false, false, prep_record_reuse, op_record,
     after_fail_record, undo_record, cleanup_pool },
   { "vkCreateFence", AC_DEVICE, false, true, prep_none, op_create_fence, NULL, undo_fence,
     ac_cleanup_common },
   { "vkCreateSemaphore (binary)", AC_DEVICE, false, true, prep_none, op_create_binary_semaphore,
     NULL, undo_semaphore, ac_cleanup_common },
   { "vkCreateSemaphore (timeline)", AC_DEVICE, false, true, prep_timeline,
     op_create_timeline_semaphore, NULL, undo_semaphore, ac_cleanup_common },
   { "vkCreateEvent", AC_DEVICE, false, true, prep_none, op_create_event, NULL, undo_event,
     ac_cleanup_common },
   { "vkCreateQueryPool", AC_DEVICE, false, true, prep_query_pool, op_create_query_pool, NULL,
     undo_query_pool, ac_cleanup_common },
   { "vkQueueSubmit", AC_DEVICE, true, false, prep_submit, op_submit, after_fail_submit,
     undo_submit, cleanup_pool },
   { "vkCreateRenderPass", AC_DEVICE, false, true, prep_none, op_create_render_pass, NULL,
     undo_render_pass, ac_cleanup_common },
   { "vkCreateFramebuffer", AC_DEVICE, false, true, prep_framebuffer, op_create_framebuffer, NULL,
     undo_framebuffer, ac_cleanup_common },
   { "vkCreateGraphicsPipelines", AC_DEVICE, false, true, prep_gfx, op_create_gfx, NULL, undo_gfx,
     ac_cleanup_common },
   { "vkCreateGraphicsPipelines (geometry stage)", AC_DEVICE, false, true, prep_gfx_geom,
     op_create_gfx_geom, NULL, undo_gfx, ac_cleanup_common },
   { "vkCreateGraphicsPipelines (geometry stage, into a cache)", AC_DEVICE, false, true,
     prep_gfx_geom_into, op_create_gfx_geom, NULL, undo_gfx, ac_cleanup_common },
   { "vkCreateGraphicsPipelines (from cache data)", AC_DEVICE, false, true, prep_gfx_cached,
     op_create_gfx, NULL, undo_gfx, ac_cleanup_common },
   { "vkCreateDevice + vkCreateGraphicsPipelines (from cache data, empty runtime)", AC_INSTANCE,
     false, true, prep_gfx_cold, op_create_gfx_cold, NULL, undo_gfx_cold, cleanup_gfx_cold },
   { "vkCreateGraphicsPipelines (geometry stage, from cache data)", AC_DEVICE, false, true,
     prep_gfx_geom_cached, op_create_gfx_geom, NULL, undo_gfx, ac_cleanup_common },
   { "vkCreateGraphicsPipelines (tessellation stages)", AC_DEVICE, false, true, prep_gfx_tess,
     op_create_gfx_tess, NULL, undo_gfx, ac_cleanup_common },
   { "vkCreateGraphicsPipelines (tessellation stages, from cache data)", AC_DEVICE, false, true,
     prep_gfx_tess_cached, op_create_gfx_tess, NULL, undo_gfx, ac_cleanup_common },
   { "vkCreateHeadlessSurfaceEXT", AC_DEVICE, false, true, prep_wsi, op_create_surface, NULL,
     undo_surface, ac_cleanup_common },
   { "vkCreateSwapchainKHR", AC_DEVICE, true, true, prep_surface, op_create_swapchain, NULL,
     undo_swapchain, ac_cleanup_common },
   { "vkQueuePresentKHR", AC_DEVICE, false, true, prep_present, op_present, NULL, undo_present,
     ac_cleanup_common },
};

/* Whether the create/destroy pair a device-level case tests is exposed (the
 * case is skipped when it is not). */
static bool
ac_entry_present(const struct ac_case *k)
{
   if (k->op == op_allocate_memory) return d.AllocateMemory && d.FreeMemory;
   if (k->op == op_create_buffer) return d.CreateBuffer && d.DestroyBuffer;
   if (k->op == op_create_buffer_view) return d.CreateBufferView && d.DestroyBufferView;
   if (k->op == op_create_image) return d.CreateImage && d.DestroyImage;
   if (k->op == op_create_image_view) return d.CreateImageView && d.DestroyImageView;
   if (k->op == op_create_sampler) return d.CreateSampler && d.DestroySampler;
   if (k->op == op_create_command_pool) return d.CreateCommandPool && d.DestroyCommandPool;
   if (k->op == op_create_fence) return d.CreateFence && d.DestroyFence;
   if (k->op == op_create_binary_semaphore || k->op == op_create_timeline_semaphore)
      return d.CreateSemaphore && d.DestroySemaphore;
   if (k->op == op_create_event) return d.CreateEvent && d.DestroyEvent;
   if (k->op == op_create_query_pool) return d.CreateQueryPool && d.DestroyQueryPool;
   if (k->op == op_create_render_pass) return d.CreateRenderPass && d.DestroyRenderPass;
   if (k->op == op_create_framebuffer)
      return d.CreateFramebuffer && d.DestroyFramebuffer && d.CreateRenderPass;
   if (k->op == op_create_gfx || k->op == op_create_gfx_geom)
      return d.CreateShaderModule && d.CreatePipelineLayout && d.CreatePipelineCache &&
             d.GetPipelineCacheData && d.CreateGraphicsPipelines && d.DestroyPipeline;
   if (k->op == op_create_swapchain || k->op == op_present)
      return !caps.wsi || (d.CreateSwapchainKHR && d.DestroySwapchainKHR &&
                           d.AcquireNextImageKHR && d.QueuePresentKHR);
   return true;
}

struct ac_stats {
   unsigned runs, skips, failures_injected;
};

static const char *
ac_setup(const struct ac_case *k, struct ac_ctx *c)
{
   if (k->level == AC_GLOBAL)
      return NULL;
   if (k->level == AC_INSTANCE) {
      if (ac_create_instance(&c->instance) != VK_SUCCESS)
         return "vkCreateInstance failed with a working allocator";
      if (k->op == op_enumerate)
         return NULL;
      VkResult r;
      c->pdev = ac_find_shale(c->instance, &r);
      if (!c->pdev)
         return "no Shale physical device";
      return k->prepare ? k->prepare(c) : NULL;
   }
   const char *dev_exts[2];
   uint32_t n_dev_exts = 0;
   if (caps.timeline_ext)
      dev_exts[n_dev_exts++] = VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME;
   if (caps.wsi)
      dev_exts[n_dev_exts++] = VK_KHR_SWAPCHAIN_EXTENSION_NAME;
   VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
      .timelineSemaphore = VK_TRUE,
   };
   struct vkt_options opts = {
      .driver = VKT_SHALE,
      .api_version = caps.api_version,
      .instance_extensions = ac_inst_exts,
      .instance_extension_count = ac_inst_ext_count,
      .device_extensions = dev_exts,
      .device_extension_count = n_dev_exts,
      .device_pnext = caps.timeline ? &tl : NULL,
      .features = &(VkPhysicalDeviceFeatures) { .geometryShader = caps.geometry,
                                                .tessellationShader = caps.tess },
      .alloc = &ta_callbacks,
      .no_validation = true,
   };
   if (!vkt_init(&c->t, &opts))
      return "vkt_init failed with a working allocator";
   ac_load_device(c->t.device);
   if (!ac_entry_present(k))
      return "entry point not exposed by vkGetDeviceProcAddr";
   return k->prepare(c);
}

static void
ac_teardown(const struct ac_case *k, struct ac_ctx *c)
{
   if (k->level == AC_DEVICE) {
      k->cleanup(c);
      vkt_finish(&c->t);
   } else {
      k->cleanup(c);
   }
}

/* SHALE_TEST_ALLOC_FAIL_STRIDE, at least 1. */
static uint64_t
ac_stride(void)
{
   const char *s = getenv("SHALE_TEST_ALLOC_FAIL_STRIDE");
   long v = s ? atol(s) : 1;
   return v > 1 ? (uint64_t)v : 1;
}

/* The failure point after n in a sweep of `calls` allocations. */
static uint64_t
ac_next(uint64_t n, uint64_t calls, uint64_t stride)
{
   if (n < 64 || n + 64 >= calls)
      return n + 1;
   uint64_t next = n + stride;
   return next + 64 > calls ? calls - 63 : next;
}

/* One sweep of one case. Returns false when the case was skipped. */
static bool
ac_run(const struct ac_case *k, bool explicit_alloc, bool sticky, struct ac_stats *st)
{
   char label[160];
   snprintf(label, sizeof(label), "%s [%s allocator, %s]", k->name,
            explicit_alloc ? "explicit" : "inherited", sticky ? "fail from N on" : "fail N-th");
   struct ac_ctx c;
   memset(&c, 0, sizeof(c));
   c.obj = explicit_alloc ? &ta_callbacks : NULL;
   unsigned errors0 = ta_errors();

   const char *why = ac_setup(k, &c);
   VkResult r = VK_SUCCESS;
   uint64_t calls = 0;
   if (!why) {
      /* Probe with a working allocator. */
      uint64_t c0 = ta_calls();
      r = k->op(&c);
      calls = ta_calls() - c0;
      if (r != VK_SUCCESS)
         why = "fails with a working allocator";
      else
         k->undo(&c);
   }
   if (why) {
      fprintf(stderr, "SKIP case %s: %s (result %d)\n", label, why, r);
      ac_teardown(k, &c);
      CHECK(ta_live_since(0, -1, label) == 0, "%s: allocations live after teardown", label);
      CHECK(ta_errors() == errors0, "%s: allocator protocol violations", label);
      st->skips++;
      return false;
   }
   if (k->must_allocate)
      CHECK(calls > 0, "%s makes a host object but never called the allocator", label);

   unsigned failures = 0;
   int check_failures0 = check_failures;
   const uint64_t stride = ac_stride();
   for (uint64_t n = 1; n < 100000; n = ac_next(n, calls, stride)) {
      uint64_t mark = ta_mark();
      ta_arm(n, sticky);
      r = k->op(&c);
      bool reached = ta_disarm();
      CHECK(ta_live_since(mark, VK_SYSTEM_ALLOCATION_SCOPE_COMMAND, label) == 0,
            "%s, N=%llu: COMMAND-scope allocation outlived the command", label,
            (unsigned long long)n);
      if (r == VK_SUCCESS) {
         k->undo(&c);
         if (!reached)
            break;
         continue; /* recovered from the failure: allowed */
      }
      failures++;
      CHECK(reached, "%s, N=%llu: failed (%d) without an injected failure", label,
            (unsigned long long)n, r);
      CHECK(r == VK_ERROR_OUT_OF_HOST_MEMORY ||
               (k->device_oom_ok && r == VK_ERROR_OUT_OF_DEVICE_MEMORY),
            "%s, N=%llu: returned %d, expected VK_ERROR_OUT_OF_HOST_MEMORY", label,
            (unsigned long long)n, r);
      if (k->after_fail)
         k->after_fail(&c);
      unsigned leaked = ta_live_since(mark, -1, label);
      CHECK(leaked == 0, "%s, N=%llu: %u allocations of the failed call still live", label,
            (unsigned long long)n, leaked);
      if (check_failures - check_failures0 > 20)
         break; /* enough said about this sweep */
   }
   ac_teardown(k, &c);
   unsigned live = ta_live_since(0, -1, label);
   CHECK(live == 0, "%s: %u allocations live after destroying everything", label, live);
   CHECK(ta_errors() == errors0, "%s: allocator protocol violations", label);
   fprintf(stderr, "case %s: %llu allocation calls, %u injected failures unwound", label,
           (unsigned long long)calls, failures);
   if (stride > 1 && calls > 128)
      fprintf(stderr, " (one failure point in %llu between the first and last 64)",
              (unsigned long long)stride);
   fputc('\n', stderr);
   st->runs++;
   st->failures_injected += failures;
   return true;
}

/* Keeps only Shale's manifest in VK_DRIVER_FILES, and implicit layers out. */
static void
ac_restrict_loader(void)
{
   const char *files = getenv("VK_DRIVER_FILES");
   if (files) {
      char *copy = strdup(files);
      char kept[4096] = "";
      for (char *tok = strtok(copy, ":"); tok; tok = strtok(NULL, ":")) {
         if (strstr(tok, "shale") && strlen(kept) + strlen(tok) + 2 < sizeof(kept)) {
            if (kept[0])
               strcat(kept, ":");
            strcat(kept, tok);
         }
      }
      if (kept[0])
         setenv("VK_DRIVER_FILES", kept, 1);
      free(copy);
   } else {
      fprintf(stderr, "note: VK_DRIVER_FILES is not set; every installed driver is loaded\n");
   }
   setenv("VK_LOADER_LAYERS_DISABLE", "~implicit~", 1);
   setenv("NODEVICE_SELECT", "1", 1);
}

/* Finds what the device supports, with the default allocator. */
static bool
ac_probe_caps(void)
{
   uint32_t n = 0;
   vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
   VkExtensionProperties *props = calloc(n ? n : 1, sizeof(*props));
   vkEnumerateInstanceExtensionProperties(NULL, &n, props);
   bool surface = false, headless = false;
   for (uint32_t i = 0; i < n; i++) {
      if (!strcmp(props[i].extensionName, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME))
         caps.props2 = true;
      surface |= !strcmp(props[i].extensionName, VK_KHR_SURFACE_EXTENSION_NAME);
      headless |= !strcmp(props[i].extensionName, VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME);
   }
   free(props);
   if (caps.props2)
      ac_inst_exts[ac_inst_ext_count++] = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;
   const uint32_t inst_exts_plain = ac_inst_ext_count;
   if (surface && headless) {
      ac_inst_exts[ac_inst_ext_count++] = VK_KHR_SURFACE_EXTENSION_NAME;
      ac_inst_exts[ac_inst_ext_count++] = VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME;
   }

   struct vkt t;
   struct vkt_options opts = {
      .instance_extensions = ac_inst_exts,
      .instance_extension_count = ac_inst_ext_count,
      .no_validation = true,
   };
   if (!vkt_init(&t, &opts))
      return false;
   caps.api_version = t.props.apiVersion;
   VkPhysicalDeviceFeatures feats;
   vkGetPhysicalDeviceFeatures(t.pdev, &feats);
   caps.geometry = feats.geometryShader;
   caps.tess = feats.tessellationShader;
   n = 0;
   vkEnumerateDeviceExtensionProperties(t.pdev, NULL, &n, NULL);
   props = calloc(n ? n : 1, sizeof(*props));
   vkEnumerateDeviceExtensionProperties(t.pdev, NULL, &n, props);
   bool ext = false, swapchain = false;
   for (uint32_t i = 0; i < n; i++) {
      ext |= !strcmp(props[i].extensionName, VK_KHR_TIMELINE_SEMAPHORE_EXTENSION_NAME);
      swapchain |= !strcmp(props[i].extensionName, VK_KHR_SWAPCHAIN_EXTENSION_NAME);
   }
   free(props);
   caps.wsi = surface && headless && swapchain;
   if (!caps.wsi)
      ac_inst_ext_count = inst_exts_plain;
   bool core12 = VK_API_VERSION_MINOR(caps.api_version) >= 2;
   if ((ext || core12) && caps.props2) {
      VkPhysicalDeviceTimelineSemaphoreFeatures tl = {
         .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
      };
      VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &tl };
      PFN_vkGetPhysicalDeviceFeatures2KHR get = (PFN_vkGetPhysicalDeviceFeatures2KHR)
         vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceFeatures2KHR");
      if (get) {
         get(t.pdev, &f2);
         caps.timeline = tl.timelineSemaphore;
         caps.timeline_ext = caps.timeline && !core12;
      }
   }
   vkt_finish(&t);
   return true;
}

int
main(void)
{
   ac_restrict_loader();
   if (!ac_probe_caps()) {
      CHECK(false, "Shale is not available");
      return check_finish();
   }
   struct ac_stats st = { 0 };
   unsigned case_runs = 0;
   for (unsigned i = 0; i < sizeof(ac_cases) / sizeof(ac_cases[0]); i++) {
      const struct ac_case *k = &ac_cases[i];
      bool ran = false;
      for (int sticky = 0; sticky < 2; sticky++) {
         /* The instance is always created with the callbacks: nothing to inherit. */
         int modes = k->level == AC_GLOBAL || k->op == op_enumerate ? 1 : 2;
         for (int m = 0; m < modes; m++)
            ran |= ac_run(k, m == 0, sticky, &st);
      }
      case_runs += ran;
   }
   fprintf(stderr, "%u of %zu cases ran (%u sweeps, %u skipped), %u injected failures\n",
           case_runs, sizeof(ac_cases) / sizeof(ac_cases[0]), st.runs, st.skips,
           st.failures_injected);
   CHECK(case_runs > 0, "no case ran");
   CHECK(st.failures_injected > 0, "no failure was injected");
   return check_finish();
}
