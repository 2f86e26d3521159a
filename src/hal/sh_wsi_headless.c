/* VK_EXT_headless_surface: surfaces without a window, shown on a virtual display (sh_wsi.h). */
#include <stdlib.h>

#include "driver/sd_alloc.h"
#include "driver/sd_entrypoints.h"
#include "driver/sd_instance.h"
#include "driver/sd_util.h"
#include "sh_wsi.h"
#include "util/su_log.h"

#define SH_HEADLESS_DEFAULT_HZ 60

VKAPI_ATTR VkResult VKAPI_CALL
sd_CreateHeadlessSurfaceEXT(VkInstance _instance, const VkHeadlessSurfaceCreateInfoEXT *pCreateInfo,
                            const VkAllocationCallbacks *pAllocator, VkSurfaceKHR *pSurface)
{
   SD_FROM_HANDLE(sd_instance, instance, _instance);
   struct sh_surface *s = sh_surface_alloc(instance, pAllocator, VK_ICD_WSI_PLATFORM_HEADLESS);
   if (!s)
      return sd_error(VK_ERROR_OUT_OF_HOST_MEMORY);
   *pSurface = (VkSurfaceKHR)(uintptr_t)s;
   return VK_SUCCESS;
}

/* No window: the swapchain decides the extent (currentExtent stays
 * 0xFFFFFFFF), and the surface never goes away. */
static VkResult
sh_headless_capabilities(struct sh_surface *surface, VkSurfaceCapabilitiesKHR *caps)
{
   return VK_SUCCESS;
}

static VkResult
sh_headless_init(struct sh_swapchain *chain, struct sh_surface *surface)
{
   return VK_SUCCESS;
}

static void
sh_headless_finish(struct sh_swapchain *chain)
{
}

/* SHALE_WSI_HEADLESS_HZ: refreshes per second of the virtual display
 * (1 to 10000; default 60). */
static uint64_t
sh_headless_refresh_ns(struct sh_swapchain *chain)
{
   unsigned long hz = SH_HEADLESS_DEFAULT_HZ;
   const char *env = getenv("SHALE_WSI_HEADLESS_HZ");
   if (env && *env) {
      char *end;
      unsigned long v = strtoul(env, &end, 10);
      if (*end == '\0' && v >= 1 && v <= 10000)
         hz = v;
      else
         su_log("SHALE_WSI_HEADLESS_HZ=%s is not 1 to 10000; using %d", env,
                SH_HEADLESS_DEFAULT_HZ);
   }
   return 1000000000ull / hz;
}

/* Nothing to show the pixels on. */
static VkResult
sh_headless_display(struct sh_swapchain *chain, uint32_t index)
{
   return VK_SUCCESS;
}

const struct sh_wsi_platform sh_wsi_headless = {
   .id = VK_ICD_WSI_PLATFORM_HEADLESS,
   .get_capabilities = sh_headless_capabilities,
   .init = sh_headless_init,
   .finish = sh_headless_finish,
   .refresh_ns = sh_headless_refresh_ns,
   .display = sh_headless_display,
};
