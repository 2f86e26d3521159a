/*
 * What the tests of tests/android share when they play Android's loader
 * against vulkan.shale.so: opening the HAL module (dlopen, HMI, "vk0"), the
 * loader's check and overwrite of the dispatch word of every dispatchable
 * object, the commands both programs call (struct emu_vk, which a program's
 * own struct vk overlays by name) with instance, device, queue, command
 * pool and a mapped staging buffer, allocation callbacks that count live
 * blocks and fail on demand, a count of mappings of a named memfd, and a
 * byte pattern for copies. Include after check.h; everything is static
 * inline (a program uses what it needs).
 *
 * ABI values are spelled out rather than taken from the driver's headers.
 */
#ifndef SHALE_TEST_LOADER_EMU_H
#define SHALE_TEST_LOADER_EMU_H

#include <dlfcn.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hardware/hwvulkan.h>
#include <vulkan/vulkan_core.h>

#define ABI_DISPATCH_MAGIC ((uintptr_t)0x01CDC0DE)
#define ABI_MODULE_TAG 0x48574D54u

/* What the loader writes into the dispatch slot: its own table. */
static const struct { const void *slots[64]; } emu_loader_table;

static inline uintptr_t
emu_dispatch_word(const void *object)
{
   uintptr_t word;
   memcpy(&word, object, sizeof(word));
   return word;
}

/* The loader's check on every dispatchable object a driver returns, then
 * its own table in the slot. */
static inline void
take_dispatchable(const void *object, const char *what)
{
   CHECK(object != NULL, "%s is NULL", what);
   if (!object)
      return;
   CHECK(emu_dispatch_word(object) == ABI_DISPATCH_MAGIC, "%s dispatch word 0x%jx", what,
         (uintmax_t)emu_dispatch_word(object));
   const void *table = &emu_loader_table;
   memcpy((void *)object, &table, sizeof(table));
}

/* dlopen + HMI + open("vk0"), as Android's loader does; the module's
 * device, or NULL (after a failed CHECK). */
static inline struct hw_device_t *
emu_hal_open(const char *path)
{
   void *dso = dlopen(path, RTLD_NOW | RTLD_LOCAL);
   CHECK(dso != NULL, "dlopen(%s): %s", path, dlerror());
   if (!dso)
      return NULL;
   hwvulkan_module_t *hmi = dlsym(dso, "HMI");
   CHECK(hmi != NULL, "no HMI");
   if (!hmi)
      return NULL;
   CHECK_EQ_INT(hmi->common.tag, ABI_MODULE_TAG);
   CHECK(hmi->common.id && strcmp(hmi->common.id, "vulkan") == 0, "HMI id");
   hmi->common.dso = dso;
   struct hw_device_t *common = NULL;
   CHECK_EQ_INT(hmi->common.methods->open(&hmi->common, "vk0", &common), 0);
   return common;
}

/* Whether `name` is among `props`; its spec version into *spec (if not NULL). */
static inline bool
emu_has_extension(const VkExtensionProperties *props, uint32_t count, const char *name,
                  uint32_t *spec)
{
   for (uint32_t i = 0; i < count; i++) {
      if (strcmp(props[i].extensionName, name) == 0) {
         if (spec)
            *spec = props[i].specVersion;
         return true;
      }
   }
   return false;
}

/* ---- the driver, as the loader sees it ---- */

#define EMU_PFN_FIELD(name) PFN_vk##name name;

/* The commands every program here calls; a program lists its others. */
#define EMU_INSTANCE_COMMANDS(X)                                                        \
   X(DestroyInstance) X(EnumeratePhysicalDevices) X(EnumerateDeviceExtensionProperties) \
   X(GetPhysicalDeviceMemoryProperties) X(CreateDevice) X(GetDeviceProcAddr)
#define EMU_DEVICE_COMMANDS(X)                                                          \
   X(DestroyDevice) X(GetDeviceQueue) X(CreateImage) X(DestroyImage)                    \
   X(GetImageSubresourceLayout) X(CreateCommandPool) X(DestroyCommandPool)              \
   X(AllocateCommandBuffers) X(BeginCommandBuffer) X(EndCommandBuffer)                  \
   X(CmdPipelineBarrier) X(CmdClearColorImage) X(CmdCopyBufferToImage) X(QueueSubmit)  \
   X(QueueWaitIdle) X(CreateBuffer) X(DestroyBuffer) X(GetBufferMemoryRequirements)     \
   X(AllocateMemory) X(FreeMemory) X(MapMemory) X(BindBufferMemory)

#define EMU_VK_FIELDS                                                                   \
   PFN_vkGetInstanceProcAddr GetInstanceProcAddr;                                       \
   EMU_INSTANCE_COMMANDS(EMU_PFN_FIELD)                                                 \
   EMU_DEVICE_COMMANDS(EMU_PFN_FIELD)                                                   \
   VkInstance instance;                                                                 \
   VkPhysicalDevice pdev;                                                               \
   VkDevice device;                                                                     \
   VkQueue queue;                                                                       \
   VkCommandPool pool;                                                                  \
   uint32_t type_count;                                                                 \
   uint32_t coherent_type;   /* host-visible and coherent */

/* A program's struct vk starts with
 *    union { struct emu_vk emu; struct { EMU_VK_FIELDS }; };
 * so that its code names the members and these helpers take &v->emu. */
struct emu_vk {
   EMU_VK_FIELDS
};

/* Looked up through the driver; DPROC counts a missing one in `all_found`. */
#define IPROC(v, name) (v)->name = (PFN_vk##name)(v)->GetInstanceProcAddr((v)->instance, "vk" #name)
#define DPROC(v, name)                                                                  \
   do {                                                                                 \
      (v)->name = (PFN_vk##name)(v)->GetDeviceProcAddr((v)->device, "vk" #name);        \
      CHECK((v)->name != NULL, "vkGetDeviceProcAddr(vk" #name ") is NULL");             \
      all_found = all_found && (v)->name != NULL;                                       \
   } while (0)

/* The instance (with `exts`) and its first physical device, both taken as
 * the loader takes them; the instance commands above. */
static inline bool
emu_instance_create(struct emu_vk *e, const hwvulkan_device_t *hal, const char *app_name,
                    const char *const *exts, uint32_t ext_count)
{
   e->GetInstanceProcAddr = hal->GetInstanceProcAddr;
   const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = app_name,
      .apiVersion = VK_API_VERSION_1_0,
   };
   const VkInstanceCreateInfo ici = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
      .enabledExtensionCount = ext_count,
      .ppEnabledExtensionNames = exts,
   };
   CHECK_EQ_INT(hal->CreateInstance(&ici, NULL, &e->instance), VK_SUCCESS);
   if (!e->instance)
      return false;
   take_dispatchable(e->instance, "instance");
#define EMU_IPROC(name) IPROC(e, name);
   EMU_INSTANCE_COMMANDS(EMU_IPROC)
#undef EMU_IPROC
   uint32_t count = 1;
   VkResult r = e->EnumeratePhysicalDevices(e->instance, &count, &e->pdev);
   CHECK(r == VK_SUCCESS || r == VK_INCOMPLETE, "EnumeratePhysicalDevices: %d", r);
   take_dispatchable(e->pdev, "physical device");
   return e->pdev != VK_NULL_HANDLE;
}

/* A device with one queue, `exts` and `pnext` (features), created with
 * `alloc`; the device commands above, the queue, a resettable command pool
 * and the coherent memory type. False when any of it is missing. */
static inline bool
emu_device_create(struct emu_vk *e, const char *const *exts, uint32_t ext_count,
                  const void *pnext, const VkAllocationCallbacks *alloc)
{
   const float prio = 1.0f;
   const VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueCount = 1,
      .pQueuePriorities = &prio,
   };
   const VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = pnext,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
      .enabledExtensionCount = ext_count,
      .ppEnabledExtensionNames = exts,
   };
   CHECK_EQ_INT(e->CreateDevice(e->pdev, &dci, alloc, &e->device), VK_SUCCESS);
   if (!e->device)
      return false;
   take_dispatchable(e->device, "device");
   bool all_found = true;
#define EMU_DPROC(name) DPROC(e, name);
   EMU_DEVICE_COMMANDS(EMU_DPROC)
#undef EMU_DPROC
   if (!all_found)
      return false;
   e->GetDeviceQueue(e->device, 0, 0, &e->queue);
   take_dispatchable(e->queue, "queue");
   const VkCommandPoolCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
   };
   CHECK_EQ_INT(e->CreateCommandPool(e->device, &pci, NULL, &e->pool), VK_SUCCESS);
   VkPhysicalDeviceMemoryProperties mp;
   e->GetPhysicalDeviceMemoryProperties(e->pdev, &mp);
   e->type_count = mp.memoryTypeCount;
   e->coherent_type = UINT32_MAX;
   for (uint32_t i = 0; i < mp.memoryTypeCount && e->coherent_type == UINT32_MAX; i++) {
      const VkMemoryPropertyFlags want =
         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      if ((mp.memoryTypes[i].propertyFlags & want) == want)
         e->coherent_type = i;
   }
   CHECK(e->coherent_type != UINT32_MAX, "no host-visible coherent memory type");
   return e->pool != VK_NULL_HANDLE && e->coherent_type != UINT32_MAX;
}

/* Destroys the device (with its pool) and the instance, whichever exist. */
static inline void
emu_teardown(struct emu_vk *e)
{
   if (e->device) {
      e->DestroyCommandPool(e->device, e->pool, NULL);
      e->DestroyDevice(e->device, NULL);
   }
   if (e->instance)
      e->DestroyInstance(e->instance, NULL);
}

/* A buffer of `size` bytes on coherent memory, mapped for its life. */
struct staging {
   VkBuffer buffer;
   VkDeviceMemory memory;
   uint8_t *map;
};

static inline bool
staging_create(struct emu_vk *e, struct staging *st, VkDeviceSize size, VkBufferUsageFlags usage)
{
   const VkBufferCreateInfo bi = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      .size = size,
      .usage = usage,
   };
   CHECK_EQ_INT(e->CreateBuffer(e->device, &bi, NULL, &st->buffer), VK_SUCCESS);
   VkMemoryRequirements req;
   e->GetBufferMemoryRequirements(e->device, st->buffer, &req);
   const VkMemoryAllocateInfo ai = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
      .allocationSize = req.size,
      .memoryTypeIndex = e->coherent_type,
   };
   CHECK_EQ_INT(e->AllocateMemory(e->device, &ai, NULL, &st->memory), VK_SUCCESS);
   CHECK_EQ_INT(e->BindBufferMemory(e->device, st->buffer, st->memory, 0), VK_SUCCESS);
   void *map = NULL;
   CHECK_EQ_INT(e->MapMemory(e->device, st->memory, 0, VK_WHOLE_SIZE, 0, &map), VK_SUCCESS);
   st->map = map;
   return map != NULL;
}

static inline void
staging_destroy(struct emu_vk *e, struct staging *st)
{
   e->DestroyBuffer(e->device, st->buffer, NULL);
   e->FreeMemory(e->device, st->memory, NULL);
}

/* Lines of /proc/self/maps naming `what` (a memfd's name: the mappings of
 * it, the driver's and the test's); -1 without /proc. */
static inline int
count_maps(const char *what)
{
   FILE *f = fopen("/proc/self/maps", "r");
   if (!f)
      return -1;
   char line[512];
   int n = 0;
   while (fgets(line, sizeof(line), f))
      n += strstr(line, what) != NULL;
   fclose(f);
   return n;
}

/* A byte of a reproducible pattern (seed, index). */
static inline uint8_t
pattern(uint32_t seed, size_t i)
{
   uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull ^ ((uint64_t)seed << 17);
   return (uint8_t)(x >> 31);
}

/* ---- allocation callbacks that count, and fail on demand ---- */

struct alloc_ctl {
   atomic_long live;
   atomic_int fail_in;   /* fail the allocation this many allocations from now; <0 never */
};

static inline void *VKAPI_PTR
ctl_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct alloc_ctl *c = user;
   if (atomic_load(&c->fail_in) >= 0 && atomic_fetch_sub(&c->fail_in, 1) == 0)
      return NULL;
   void *p = NULL;
   if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1))
      return NULL;
   atomic_fetch_add(&c->live, 1);
   return p;
}

static inline void VKAPI_PTR
ctl_free(void *user, void *p)
{
   struct alloc_ctl *c = user;
   if (p) {
      atomic_fetch_sub(&c->live, 1);
      free(p);
   }
}

static inline void *VKAPI_PTR
ctl_realloc(void *user, void *orig, size_t size, size_t align, VkSystemAllocationScope scope)
{
   if (!orig)
      return ctl_alloc(user, size, align, scope);
   if (size == 0) {
      ctl_free(user, orig);
      return NULL;
   }
   void *p = ctl_alloc(user, size, align, scope);
   if (!p)
      return NULL;
   size_t old = malloc_usable_size(orig);
   memcpy(p, orig, old < size ? old : size);
   ctl_free(user, orig);
   return p;
}

/* Callbacks counting into `ctl`. */
static inline VkAllocationCallbacks
ctl_callbacks(struct alloc_ctl *ctl)
{
   return (VkAllocationCallbacks) {
      .pUserData = ctl,
      .pfnAllocation = ctl_alloc,
      .pfnReallocation = ctl_realloc,
      .pfnFree = ctl_free,
   };
}

#endif
