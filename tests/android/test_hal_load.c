/* Loads vulkan.shale.so the way Android's loader does (dlopen, HMI, open, dispatch magic). */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hardware/hwvulkan.h>

#include "check.h"

/* The ABI values, spelled out here rather than taken from our headers so
 * that a mistake in a header is caught rather than shared. */
#define ABI_MODULE_TAG 0x48574D54u    /* 'HWMT' */
#define ABI_DEVICE_TAG 0x48574454u    /* 'HWDT' */
#define ABI_MODULE_API_VERSION 0x0001 /* 0.1 */
#define ABI_HAL_API_VERSION 0x0100    /* 1.0 */
#define ABI_DEVICE_API_VERSION 0x00010000u /* 0.1.0 */
#define ABI_DISPATCH_MAGIC ((uintptr_t)0x01CDC0DE)

/* Stands in for the loader's per-object dispatch table: the test writes its
 * address into every dispatchable object, as Android's loader does. */
static const struct { const void *slots[32]; } fake_loader_table;

static uintptr_t
dispatch_word(const void *object)
{
   uintptr_t word;
   memcpy(&word, object, sizeof(word));
   return word;
}

static void
set_dispatch_word(void *object, const void *table)
{
   memcpy(object, &table, sizeof(table));
}

/* Counting allocation callbacks: every allocation the driver makes through
 * them must be freed by the time the instance is destroyed. Each block
 * records its size and the start of the underlying allocation just before
 * the pointer handed out, so reallocation can copy exactly. */
struct alloc_stats {
   long live;
   long total;
   int bad_alignment;
};

struct alloc_header {
   void *raw;
   size_t size;
};

#define ALLOC_MIN_ALIGN 16

static void *VKAPI_PTR
counting_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope)
{
   struct alloc_stats *stats = user;
   (void)scope;
   if (align == 0 || (align & (align - 1)) != 0) {
      stats->bad_alignment++;
      return NULL;
   }
   size_t a = align < ALLOC_MIN_ALIGN ? ALLOC_MIN_ALIGN : align;
   _Static_assert(sizeof(struct alloc_header) <= ALLOC_MIN_ALIGN, "header fits");
   char *raw = aligned_alloc(a, (a + size + a - 1) / a * a);
   if (raw == NULL)
      return NULL;
   char *p = raw + a;
   struct alloc_header hdr = { raw, size };
   memcpy(p - sizeof(hdr), &hdr, sizeof(hdr));
   stats->live++;
   stats->total++;
   return p;
}

static void VKAPI_PTR
counting_free(void *user, void *p)
{
   struct alloc_stats *stats = user;
   if (p == NULL)
      return;
   struct alloc_header hdr;
   memcpy(&hdr, (char *)p - sizeof(hdr), sizeof(hdr));
   free(hdr.raw);
   stats->live--;
}

static void *VKAPI_PTR
counting_realloc(void *user, void *orig, size_t size, size_t align,
                 VkSystemAllocationScope scope)
{
   if (orig == NULL)
      return counting_alloc(user, size, align, scope);
   if (size == 0) {
      counting_free(user, orig);
      return NULL;
   }
   /* Always move, so the driver cannot rely on the block staying put. */
   struct alloc_header hdr;
   memcpy(&hdr, (char *)orig - sizeof(hdr), sizeof(hdr));
   void *p = counting_alloc(user, size, align, scope);
   if (p == NULL)
      return NULL;
   memcpy(p, orig, hdr.size < size ? hdr.size : size);
   counting_free(user, orig);
   return p;
}

static void
check_extension_list(const hwvulkan_device_t *dev)
{
   uint32_t count = 0;
   CHECK_EQ_INT(dev->EnumerateInstanceExtensionProperties(NULL, &count, NULL), VK_SUCCESS);

   /* One spare entry, filled with a pattern, to catch writes past `count`. */
   VkExtensionProperties *props = malloc((count + 1) * sizeof(*props));
   CHECK(props != NULL, "out of memory");
   if (props == NULL)
      return;
   memset(props, 0xa5, (count + 1) * sizeof(*props));
   VkExtensionProperties pattern;
   memset(&pattern, 0xa5, sizeof(pattern));

   uint32_t filled = count;
   CHECK_EQ_INT(dev->EnumerateInstanceExtensionProperties(NULL, &filled, props), VK_SUCCESS);
   CHECK_EQ_INT(filled, count);
   CHECK(memcmp(&props[count], &pattern, sizeof(pattern)) == 0,
         "EnumerateInstanceExtensionProperties wrote past the count");
   for (uint32_t i = 0; i < filled && i < count; i++) {
      const char *name = props[i].extensionName;
      size_t len = strnlen(name, VK_MAX_EXTENSION_NAME_SIZE);
      CHECK(len > 3 && len < VK_MAX_EXTENSION_NAME_SIZE && strncmp(name, "VK_", 3) == 0,
            "extension %u has a malformed name", i);
      CHECK(props[i].specVersion > 0, "extension %u has specVersion 0", i);
      for (uint32_t j = 0; j < i; j++)
         CHECK(strncmp(name, props[j].extensionName, VK_MAX_EXTENSION_NAME_SIZE) != 0,
               "extension %.*s listed twice", (int)len, name);
   }

   if (count > 0) {
      uint32_t short_count = count - 1;
      CHECK_EQ_INT(dev->EnumerateInstanceExtensionProperties(NULL, &short_count, props),
                   VK_INCOMPLETE);
      CHECK_EQ_INT(short_count, count - 1);
   }

   /* The driver provides no layers. */
   uint32_t layer_count = 0;
   CHECK_EQ_INT(dev->EnumerateInstanceExtensionProperties("VK_LAYER_shale_no_such_layer",
                                                          &layer_count, NULL),
                VK_ERROR_LAYER_NOT_PRESENT);
   free(props);
}

/* Creates, uses and destroys one instance as Android's loader would. */
static void
check_instance(const hwvulkan_device_t *dev, const VkAllocationCallbacks *allocator)
{
   const VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "test_hal_load",
      .apiVersion = VK_API_VERSION_1_0,
   };
   const VkInstanceCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
   };

   /* An extension nobody provides must be refused. */
   const char *bogus = "VK_SHALE_no_such_extension";
   VkInstanceCreateInfo bad_info = info;
   bad_info.enabledExtensionCount = 1;
   bad_info.ppEnabledExtensionNames = &bogus;
   VkInstance bad_instance = VK_NULL_HANDLE;
   CHECK_EQ_INT(dev->CreateInstance(&bad_info, allocator, &bad_instance),
                VK_ERROR_EXTENSION_NOT_PRESENT);

   VkInstance instance = VK_NULL_HANDLE;
   VkResult res = dev->CreateInstance(&info, allocator, &instance);
   CHECK_EQ_INT(res, VK_SUCCESS);
   CHECK(instance != VK_NULL_HANDLE, "CreateInstance returned no instance");
   if (res != VK_SUCCESS || instance == VK_NULL_HANDLE)
      return;
   CHECK(dispatch_word(instance) == ABI_DISPATCH_MAGIC,
         "instance dispatch word is 0x%jx, expected 0x01CDC0DE",
         (uintmax_t)dispatch_word(instance));
   set_dispatch_word(instance, &fake_loader_table);

   /* What the loader's InitDriverTable needs for a 1.0 instance. */
   static const char *const required[] = {
      "vkDestroyInstance", "vkEnumeratePhysicalDevices", "vkGetInstanceProcAddr",
      "vkGetPhysicalDeviceProperties", "vkGetPhysicalDeviceQueueFamilyProperties",
      "vkGetPhysicalDeviceMemoryProperties", "vkGetPhysicalDeviceFeatures",
      "vkGetPhysicalDeviceFormatProperties", "vkCreateDevice",
      "vkEnumerateDeviceExtensionProperties", "vkGetDeviceProcAddr",
   };
   for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++)
      CHECK(dev->GetInstanceProcAddr(instance, required[i]) != NULL,
            "GetInstanceProcAddr(instance, %s) is NULL", required[i]);
   CHECK(dev->GetInstanceProcAddr(instance, "vkShaleNoSuchCommand") == NULL,
         "GetInstanceProcAddr returned a function for an unknown name");

   PFN_vkDestroyInstance destroy_instance = (PFN_vkDestroyInstance)
      dev->GetInstanceProcAddr(instance, "vkDestroyInstance");
   PFN_vkEnumeratePhysicalDevices enumerate = (PFN_vkEnumeratePhysicalDevices)
      dev->GetInstanceProcAddr(instance, "vkEnumeratePhysicalDevices");
   PFN_vkGetPhysicalDeviceProperties get_props = (PFN_vkGetPhysicalDeviceProperties)
      dev->GetInstanceProcAddr(instance, "vkGetPhysicalDeviceProperties");

   if (enumerate) {
      uint32_t count = 0;
      CHECK_EQ_INT(enumerate(instance, &count, NULL), VK_SUCCESS);
      CHECK(count >= 1, "no physical device (the CPU is always there)");
      VkPhysicalDevice pdevs[8], again[8];
      if (count > 8)
         count = 8;
      uint32_t filled = count;
      res = enumerate(instance, &filled, pdevs);
      CHECK(res == VK_SUCCESS || res == VK_INCOMPLETE, "EnumeratePhysicalDevices: %d", res);
      CHECK_EQ_INT(filled, count);
      for (uint32_t i = 0; i < filled && i < count; i++) {
         CHECK(pdevs[i] != VK_NULL_HANDLE, "physical device %u is NULL", i);
         if (pdevs[i] == VK_NULL_HANDLE)
            continue;
         CHECK(dispatch_word(pdevs[i]) == ABI_DISPATCH_MAGIC,
               "physical device %u dispatch word is 0x%jx, expected 0x01CDC0DE", i,
               (uintmax_t)dispatch_word(pdevs[i]));
         set_dispatch_word(pdevs[i], &fake_loader_table);
         if (get_props) {
            VkPhysicalDeviceProperties props;
            memset(&props, 0, sizeof(props));
            get_props(pdevs[i], &props);
            CHECK_EQ_INT(props.deviceType, VK_PHYSICAL_DEVICE_TYPE_CPU);
            CHECK_EQ_INT(VK_API_VERSION_MAJOR(props.apiVersion), 1);
            CHECK(strnlen(props.deviceName, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE) > 0 &&
                  strnlen(props.deviceName, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE) <
                     VK_MAX_PHYSICAL_DEVICE_NAME_SIZE,
                  "physical device %u has a malformed name", i);
         }
      }

      /* A short array gets VK_INCOMPLETE. */
      uint32_t none = 0;
      CHECK_EQ_INT(enumerate(instance, &none, again), VK_INCOMPLETE);
      CHECK_EQ_INT(none, 0);

      /* Enumerating again returns the same handles and leaves the loader's
       * dispatch word alone. */
      uint32_t refilled = count;
      res = enumerate(instance, &refilled, again);
      CHECK(res == VK_SUCCESS || res == VK_INCOMPLETE, "EnumeratePhysicalDevices: %d", res);
      CHECK_EQ_INT(refilled, count);
      for (uint32_t i = 0; i < refilled && i < count; i++) {
         CHECK(again[i] == pdevs[i], "physical device %u changed between calls", i);
         CHECK(again[i] == VK_NULL_HANDLE ||
               dispatch_word(again[i]) == (uintptr_t)&fake_loader_table,
               "the driver rewrote physical device %u's dispatch word", i);
      }
   }

   CHECK(dispatch_word(instance) == (uintptr_t)&fake_loader_table,
         "the driver rewrote the instance's dispatch word");
   if (destroy_instance)
      destroy_instance(instance, allocator);
}

int
main(int argc, char **argv)
{
   if (argc < 2) {
      fprintf(stderr, "usage: %s path/to/vulkan.shale.so\n", argv[0]);
      return 1;
   }

   /* Android's loader: android_load_sphal_library(path, RTLD_NOW | RTLD_LOCAL). */
   void *dso = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
   CHECK(dso != NULL, "dlopen(%s): %s", argv[1], dlerror());
   if (dso == NULL)
      return check_finish();

   hwvulkan_module_t *hmi = dlsym(dso, "HMI");
   CHECK(hmi != NULL, "dlsym(HMI): %s", dlerror());
   if (hmi == NULL)
      return check_finish();

   /* Nothing of the driver or of the desktop loader interface leaks out
    * (tests/check_exports.py checks the full export list). */
   CHECK(dlsym(dso, "vkCreateInstance") == NULL, "vkCreateInstance is visible");
   CHECK(dlsym(dso, "vk_icdGetInstanceProcAddr") == NULL, "vk_icdGetInstanceProcAddr is visible");
   CHECK(dlsym(dso, "sd_CreateInstance") == NULL, "sd_CreateInstance is exported");

   /* hw_get_module(): tag and id, then it stores the handle in dso, so HMI
    * must be writable. */
   CHECK_EQ_INT(hmi->common.tag, ABI_MODULE_TAG);
   CHECK(hmi->common.id != NULL && strcmp(hmi->common.id, "vulkan") == 0,
         "HMI.common.id is \"%s\", expected \"vulkan\"", hmi->common.id ? hmi->common.id : "(null)");
   hmi->common.dso = dso;
   CHECK(hmi->common.dso == dso, "HMI.common.dso did not keep the handle");
   CHECK_EQ_INT(hmi->common.module_api_version, ABI_MODULE_API_VERSION);
   CHECK_EQ_INT(hmi->common.hal_api_version, ABI_HAL_API_VERSION);
   CHECK(hmi->common.name != NULL && hmi->common.name[0] != '\0', "HMI.common.name is empty");
   CHECK(hmi->common.author != NULL && hmi->common.author[0] != '\0',
         "HMI.common.author is empty");
   CHECK(hmi->common.methods != NULL && hmi->common.methods->open != NULL,
         "HMI.common.methods->open is missing");
   if (hmi->common.methods == NULL || hmi->common.methods->open == NULL)
      return check_finish();

   /* An unknown device id fails and clears the output. */
   struct hw_device_t sentinel;
   struct hw_device_t *bad = &sentinel;
   CHECK_EQ_INT(hmi->common.methods->open(&hmi->common, "vk1", &bad), -EINVAL);
   CHECK(bad == NULL, "open(\"vk1\") left *device set");

   struct hw_device_t *common = NULL;
   CHECK_EQ_INT(hmi->common.methods->open(&hmi->common, "vk0", &common), 0);
   CHECK(common != NULL, "open(\"vk0\") returned no device");
   if (common == NULL)
      return check_finish();
   hwvulkan_device_t *dev = (hwvulkan_device_t *)common;
   CHECK_EQ_INT(dev->common.tag, ABI_DEVICE_TAG);
   CHECK_EQ_INT(dev->common.version, ABI_DEVICE_API_VERSION);
   CHECK(dev->common.module == &hmi->common, "device's module is not HMI");
   CHECK(dev->common.close != NULL, "device has no close");
   CHECK(dev->EnumerateInstanceExtensionProperties != NULL &&
         dev->CreateInstance != NULL && dev->GetInstanceProcAddr != NULL,
         "device lacks an entry point");
   if (dev->EnumerateInstanceExtensionProperties == NULL || dev->CreateInstance == NULL ||
       dev->GetInstanceProcAddr == NULL)
      return check_finish();

   /* Global commands through GetInstanceProcAddr(NULL, ...), as the loader
    * asks for vkEnumerateInstanceVersion (NULL means a 1.0 driver). */
   CHECK(dev->GetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance") != NULL,
         "GetInstanceProcAddr(NULL, vkCreateInstance) is NULL");
   CHECK(dev->GetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties") != NULL,
         "GetInstanceProcAddr(NULL, vkEnumerateInstanceExtensionProperties) is NULL");
   PFN_vkEnumerateInstanceVersion enumerate_version = (PFN_vkEnumerateInstanceVersion)
      dev->GetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
   if (enumerate_version) {
      uint32_t version = 0;
      CHECK_EQ_INT(enumerate_version(&version), VK_SUCCESS);
      CHECK_EQ_INT(VK_API_VERSION_VARIANT(version), 0);
      CHECK_EQ_INT(VK_API_VERSION_MAJOR(version), 1);
      CHECK(VK_API_VERSION_MINOR(version) >= 1,
            "vkEnumerateInstanceVersion exists, so the version must be 1.1 or later");
   }

   check_extension_list(dev);

   /* The loader passes the application's allocator through (often NULL). */
   check_instance(dev, NULL);

   struct alloc_stats stats = { 0 };
   const VkAllocationCallbacks allocator = {
      .pUserData = &stats,
      .pfnAllocation = counting_alloc,
      .pfnReallocation = counting_realloc,
      .pfnFree = counting_free,
   };
   check_instance(dev, &allocator);
   CHECK(stats.total > 0, "the instance allocated nothing through pAllocator");
   CHECK_EQ_INT(stats.live, 0);
   CHECK_EQ_INT(stats.bad_alignment, 0);

   CHECK_EQ_INT(dev->common.close(&dev->common), 0);

   /* Android never unloads the HAL, so neither do we. */
   return check_finish();
}
