/* Tooling info (VK_EXT_tooling_info, core in Vulkan 1.3) through the loader:
 * Shale builds in no tools, so without layers vkGetPhysicalDeviceToolPropertiesEXT
 * lists none (count 0, VK_SUCCESS, also when asked for entries); with the
 * validation layer the list is the layer's own entries, which Shale's empty
 * list leaves whole (every entry named, the layer's among them). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "vkt.h"

static void
run(bool validation)
{
   struct vkt_options opts = { .driver = VKT_SHALE, .api_version = VK_API_VERSION_1_1,
                               .no_validation = !validation };
   struct vkt t;
   if (!vkt_init(&t, &opts)) {
      CHECK(false, "Shale device");
      return;
   }
   CHECK(vkt_has_device_extension(t.pdev, VK_EXT_TOOLING_INFO_EXTENSION_NAME),
         "Shale lists %s", VK_EXT_TOOLING_INFO_EXTENSION_NAME);
   PFN_vkGetPhysicalDeviceToolPropertiesEXT get = (PFN_vkGetPhysicalDeviceToolPropertiesEXT)
      vkGetInstanceProcAddr(t.instance, "vkGetPhysicalDeviceToolPropertiesEXT");
   CHECK(get != NULL, "vkGetPhysicalDeviceToolPropertiesEXT");
   if (get) {
      uint32_t count = 99;
      VkResult r = get(t.pdev, &count, NULL);
      CHECK(r == VK_SUCCESS, "count query: %d", r);
      VkPhysicalDeviceToolProperties props[8];
      for (int i = 0; i < 8; i++)
         props[i] = (VkPhysicalDeviceToolProperties) {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES,
         };
      uint32_t n = 8;
      r = get(t.pdev, &n, props);
      CHECK(r == VK_SUCCESS, "list query: %d", r);
      printf("%s: %u tools\n", validation ? "with the validation layer" : "no layers", n);
      for (uint32_t i = 0; i < n && i < 8; i++)
         printf("  %s (%s)\n", props[i].name, props[i].layer);
      if (!validation) {
         CHECK(count == 0 && n == 0, "Shale lists %u / %u tools, none built in", count, n);
      } else {
         CHECK(n == count, "count %u, listed %u", count, n);
         for (uint32_t i = 0; i < n && i < 8; i++)
            CHECK(props[i].name[0] != 0, "tool %u without a name", i);
      }
   }
   vkt_finish(&t);
}

int
main(void)
{
   run(false);
   run(true);
   CHECK(vkt_validation_messages() == 0, "%u validation messages", vkt_validation_messages());
   return check_finish();
}
