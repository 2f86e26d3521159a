/* Logging and SHALE_DEBUG parsing. */
#include "su_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __ANDROID__
#include <android/log.h>
#include <sys/system_properties.h>
#endif

static uint32_t su_flags;
static pthread_once_t su_flags_once = PTHREAD_ONCE_INIT;

static void
su_parse_flags(void)
{
   const char *env = getenv("SHALE_DEBUG");
   if (!env)
      return;
   static const struct { const char *name; uint32_t flag; } names[] = {
      { "errors", SU_DEBUG_ERRORS },
      { "info", SU_DEBUG_INFO },
      { "cmds", SU_DEBUG_CMDS },
      { "all", ~0u },
   };
   const char *p = env;
   while (*p) {
      size_t len = strcspn(p, ",");
      for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
         if (strlen(names[i].name) == len && strncmp(p, names[i].name, len) == 0)
            su_flags |= names[i].flag;
      }
      p += len;
      if (*p == ',')
         p++;
   }
}

uint32_t
su_debug_flags(void)
{
   pthread_once(&su_flags_once, su_parse_flags);
   return su_flags;
}

bool
su_debug_files_allowed(void)
{
#ifdef __ANDROID__
   char value[PROP_VALUE_MAX] = "";
   __system_property_get("ro.debuggable", value);
   return strcmp(value, "1") == 0;
#else
   return true;
#endif
}

void
su_log(const char *fmt, ...)
{
   char buf[1024];
   va_list ap;
   va_start(ap, fmt);
   vsnprintf(buf, sizeof(buf), fmt, ap);
   va_end(ap);
#ifdef __ANDROID__
   __android_log_print(ANDROID_LOG_INFO, "shale", "%s", buf);
#else
   fprintf(stderr, "shale: %s\n", buf);
#endif
}
