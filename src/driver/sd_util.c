/* Error logging for sd_error(). */
#include "sd_util.h"
#include "sd_enum_str.h"

VkResult
sd_error_log(VkResult result, const char *file, int line, const char *msg)
{
   if (su_debug(SU_DEBUG_ERRORS))
      su_log("%s:%d: %s%s%s", file, line, sd_enum_str_VkResult(result), msg ? ": " : "",
             msg ? msg : "");
   return result;
}
