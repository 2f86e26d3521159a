/* Unit test of su_build_id: the build ID it reads from the loaded object that
 * holds an address equals what binutils' readelf reads from that object's
 * file, for this executable and for the C library; an address no object maps
 * has none. The pipeline cache UUID and the compiler's blob identity are
 * keyed by it (a rebuild must invalidate cached machine code). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/su_build_id.h"

/* The "Build ID:" line of readelf -n for a file, in hex; false if none. */
static bool
readelf_build_id(const char *path, char *hex, size_t hex_size)
{
   char command[PATH_MAX + 64];
   snprintf(command, sizeof(command), "readelf -n '%s' 2>/dev/null", path);
   FILE *f = popen(command, "r");
   if (!f)
      return false;
   char line[512];
   bool found = false;
   while (fgets(line, sizeof(line), f)) {
      const char *p = strstr(line, "Build ID: ");
      if (p && !found) {
         found = sscanf(p + 10, "%127s", hex) == 1 && strlen(hex) < hex_size;
      }
   }
   pclose(f);
   return found;
}

static void
to_hex(const uint8_t *id, size_t size, char *hex)
{
   for (size_t i = 0; i < size; i++)
      sprintf(hex + 2 * i, "%02x", id[i]);
   hex[2 * size] = '\0';
}

static void
check_object(const char *what, const void *address, const char *path)
{
   char expected[128];
   CHECK(readelf_build_id(path, expected, sizeof(expected)), "readelf found no build ID in %s (%s)",
         path, what);
   uint8_t id[SU_BUILD_ID_MAX];
   size_t size = 0;
   bool ok = su_build_id(address, id, &size);
   CHECK(ok, "no build ID for %s", what);
   if (!ok)
      return;
   CHECK(size >= 1 && size <= SU_BUILD_ID_MAX, "%s: size %zu", what, size);
   char hex[2 * SU_BUILD_ID_MAX + 1];
   to_hex(id, size, hex);
   CHECK(strcmp(hex, expected) == 0, "%s: %s, readelf says %s", what, hex, expected);
}

int
main(void)
{
   char self[PATH_MAX];
   ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
   CHECK(n > 0, "readlink /proc/self/exe");
   if (n > 0) {
      self[n] = '\0';
      check_object("this executable", (const void *)main, self);
   }

   Dl_info info;
   const void *libc_function = (const void *)dlsym(RTLD_DEFAULT, "fopen");
   CHECK(libc_function && dladdr(libc_function, &info) && info.dli_fname, "dladdr(fopen)");
   if (libc_function && info.dli_fname) {
      check_object("the C library", libc_function, info.dli_fname);
      uint8_t a[SU_BUILD_ID_MAX], b[SU_BUILD_ID_MAX];
      size_t sa = 0, sb = 0;
      CHECK(su_build_id((const void *)main, a, &sa) && su_build_id(libc_function, b, &sb) &&
               (sa != sb || memcmp(a, b, sa) != 0),
            "two objects, two build IDs");
   }

   /* Nothing is mapped at address 16: no object, no build ID, out untouched. */
   uint8_t untouched[SU_BUILD_ID_MAX];
   memset(untouched, 0xa5, sizeof(untouched));
   size_t size = 1234;
   CHECK(!su_build_id((const void *)(uintptr_t)16, untouched, &size), "an unmapped address");
   CHECK(size == 1234 && untouched[0] == 0xa5, "output written on failure");
   return check_finish();
}
