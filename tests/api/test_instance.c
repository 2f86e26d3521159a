/* Instance, physical device and device creation through the loader: properties,
 * extension enumeration, and the error codes for unsupported requests. */
#include <string.h>

#include "check.h"
#include "vkt.h"

static void
test_properties(struct vkt *t)
{
   CHECK(t->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU, "deviceType %d", t->props.deviceType);
   CHECK(VK_API_VERSION_MAJOR(t->props.apiVersion) == 1, "apiVersion %#x", t->props.apiVersion);
   CHECK(t->props.limits.maxImageDimension2D >= 4096, "maxImageDimension2D");
   CHECK(t->props.limits.maxMemoryAllocationCount >= 4096, "maxMemoryAllocationCount");

   uint32_t n = 0;
   vkGetPhysicalDeviceQueueFamilyProperties(t->pdev, &n, NULL);
   CHECK_EQ_INT(n, 1);
   VkQueueFamilyProperties q;
   n = 1;
   vkGetPhysicalDeviceQueueFamilyProperties(t->pdev, &n, &q);
   CHECK((q.queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)) ==
            (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT),
         "queue flags %#x", q.queueFlags);
   CHECK_EQ_INT(q.timestampValidBits, 64);

   /* Memory: a coherent host-visible type and a cached non-coherent one. */
   CHECK(vkt_memory_type(t, ~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                    VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) >= 0, "coherent type");
   CHECK(vkt_memory_type(t, ~0u, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                    VK_MEMORY_PROPERTY_HOST_CACHED_BIT) >= 0, "cached type");
   CHECK(vkt_memory_type(t, ~0u, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) >= 0, "device-local type");
}

static void
test_device_extensions(struct vkt *t)
{
   uint32_t n = 0;
   CHECK_EQ_INT(vkEnumerateDeviceExtensionProperties(t->pdev, NULL, &n, NULL), VK_SUCCESS);
   CHECK(n >= 1, "some device extensions");
   VkExtensionProperties props[64];
   uint32_t full = n < 64 ? n : 64;
   CHECK_EQ_INT(vkEnumerateDeviceExtensionProperties(t->pdev, NULL, &full, props), VK_SUCCESS);
   if (n >= 2) {
      uint32_t few = 1;
      CHECK_EQ_INT(vkEnumerateDeviceExtensionProperties(t->pdev, NULL, &few, props), VK_INCOMPLETE);
      CHECK_EQ_INT(few, 1);
   }
   bool found = false;
   for (uint32_t i = 0; i < full; i++)
      found |= strcmp(props[i].extensionName, VK_KHR_BIND_MEMORY_2_EXTENSION_NAME) == 0;
   CHECK(found, "VK_KHR_bind_memory2 listed");
}

/* Unsupported requests, on an instance without the validation layer (they
 * are invalid usage the layer would rightly report). */
static void
test_errors(void)
{
   VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_0 };
   VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app };
   VkInstance instance;
   CHECK_EQ_INT(vkCreateInstance(&ici, NULL, &instance), VK_SUCCESS);
   uint32_t count = 8;
   VkPhysicalDevice devs[8];
   vkEnumeratePhysicalDevices(instance, &count, devs);
   VkPhysicalDevice pdev = VK_NULL_HANDLE;
   for (uint32_t i = 0; i < count; i++) {
      VkPhysicalDeviceProperties p;
      vkGetPhysicalDeviceProperties(devs[i], &p);
      if (strstr(p.deviceName, "Shale"))
         pdev = devs[i];
   }
   CHECK(pdev != VK_NULL_HANDLE, "Shale found");
   if (!pdev) {
      vkDestroyInstance(instance, NULL);
      return;
   }
   float prio = 1.0f;
   VkDeviceQueueCreateInfo qci = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueCount = 1, .pQueuePriorities = &prio };
   const char *bad_ext[] = { "VK_KHR_no_such_extension" };
   VkDeviceCreateInfo dci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = 1, .ppEnabledExtensionNames = bad_ext };
   VkDevice device = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateDevice(pdev, &dci, NULL, &device), VK_ERROR_EXTENSION_NOT_PRESENT);

   /* Every feature Shale reports false must be refused. */
   VkPhysicalDeviceFeatures supported;
   vkGetPhysicalDeviceFeatures(pdev, &supported);
   VkBool32 *bits = (VkBool32 *)&supported;
   unsigned refused = 0, unsupported = 0;
   for (unsigned i = 0; i < sizeof(supported) / sizeof(VkBool32); i++) {
      if (bits[i])
         continue;
      unsupported++;
      VkPhysicalDeviceFeatures want = { 0 };
      ((VkBool32 *)&want)[i] = VK_TRUE;
      VkDeviceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                 .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                                 .pEnabledFeatures = &want };
      refused += vkCreateDevice(pdev, &fci, NULL, &device) == VK_ERROR_FEATURE_NOT_PRESENT;
   }
   CHECK(refused == unsupported, "%u of %u unsupported features refused", refused, unsupported);

   /* Every feature Shale reports true is accepted, alone and all together. */
   unsigned accepted = 0, supported_count = 0;
   for (unsigned i = 0; i < sizeof(supported) / sizeof(VkBool32); i++) {
      if (!bits[i])
         continue;
      supported_count++;
      VkPhysicalDeviceFeatures want = { 0 };
      ((VkBool32 *)&want)[i] = VK_TRUE;
      VkDeviceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                 .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                                 .pEnabledFeatures = &want };
      device = VK_NULL_HANDLE;
      if (vkCreateDevice(pdev, &fci, NULL, &device) == VK_SUCCESS) {
         accepted++;
         vkDestroyDevice(device, NULL);
      }
   }
   CHECK(accepted == supported_count, "%u of %u supported features accepted", accepted,
         supported_count);
   VkDeviceCreateInfo all = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci,
                              .pEnabledFeatures = &supported };
   device = VK_NULL_HANDLE;
   CHECK_EQ_INT(vkCreateDevice(pdev, &all, NULL, &device), VK_SUCCESS);
   if (device)
      vkDestroyDevice(device, NULL);

   /* The same through VkPhysicalDeviceFeatures2 in pNext. */
   VkPhysicalDeviceFeatures2 f2 = { .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 };
   if (!supported.robustBufferAccess) {
      f2.features.robustBufferAccess = VK_TRUE;
      VkDeviceCreateInfo fci = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f2,
                                 .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci };
      const char *ext[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME };
      (void)ext;
      CHECK_EQ_INT(vkCreateDevice(pdev, &fci, NULL, &device), VK_ERROR_FEATURE_NOT_PRESENT);
   }

   /* A valid device still works after the failures. */
   VkDeviceCreateInfo ok = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci };
   CHECK_EQ_INT(vkCreateDevice(pdev, &ok, NULL, &device), VK_SUCCESS);
   if (device) {
      VkQueue q = VK_NULL_HANDLE;
      vkGetDeviceQueue(device, 0, 0, &q);
      CHECK(q != VK_NULL_HANDLE, "queue");
      CHECK_EQ_INT(vkDeviceWaitIdle(device), VK_SUCCESS);
      vkDestroyDevice(device, NULL);
   }
   vkDestroyInstance(instance, NULL);
}

int
main(void)
{
   struct vkt t;
   const char *exts[] = { VK_KHR_BIND_MEMORY_2_EXTENSION_NAME };
   struct vkt_options o = { .device_extensions = exts, .device_extension_count = 1 };
   CHECK(vkt_init(&t, &o), "vkt_init");
   if (t.device) {
      test_properties(&t);
      test_device_extensions(&t);
      vkt_finish(&t);
   }
   test_errors();
   CHECK_EQ_INT(vkt_validation_messages(), 0);
   return check_finish();
}
