/*
 * Render-test helpers that CHECK (check.h): static inline, because check.h's
 * counters are per .c file, so each test program counts the checks these
 * make as its own. Include after check.h and draw_util.h.
 */
#ifndef DRAW_CHECK_H
#define DRAW_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "draw_util.h"
#include "vkt.h"

/* The end of a render test's main(): no validation message came (one
 * check), then check_finish's status. */
static inline int
draw_finish(void)
{
   CHECK(vkt_validation_messages() == 0, "validation messages: %u", vkt_validation_messages());
   return check_finish();
}

/* Opens o->driver (options from draw_probe_extension) with device extension
 * ext[0] enabled, `enable` chained as the device's pNext (its feature
 * structure) and `core` as its core features (NULL: none); one check.
 * False when the device could not be made (nothing to vkt_finish). */
static inline bool
draw_open_extension(struct vkt *t, struct vkt_options *o, const char *const *ext, void *enable,
                    const VkPhysicalDeviceFeatures *core)
{
   o->device_extensions = ext;
   o->device_extension_count = 1;
   o->device_pnext = enable;
   o->features = core;
   bool ok = vkt_init(t, o);
   CHECK(ok, "%s: device with %s", vkt_driver_name(o->driver), ext[0]);
   return ok;
}

/* Results that must not depend on the number of worker threads: runs this
 * test program (`self`, argv[0]) three times with SHALE_THREADS 1, 2 and 4
 * and the arguments "--dump PATH", its child mode, which writes `size` bytes
 * of results (`what`, for messages) to PATH; the three runs' bytes go to
 * out, size bytes each (zeros where a run gave none). Checks each run
 * (temporary file, exit status 0, the bytes read: three checks) and that
 * the runs with 2 and 4 threads gave the bytes of the run with 1 (two).
 * False when no temporary file could be made. */
static inline bool
draw_thread_runs(const char *self, const char *what, size_t size, void *out)
{
   static const char *const counts[] = { "1", "2", "4" };
   uint8_t *res = out;
   memset(res, 0, 3 * size);
   for (int i = 0; i < 3; i++) {
      char path[] = "/tmp/shale-threads-XXXXXX";
      int fd = mkstemp(path);
      CHECK(fd >= 0, "temporary file");
      if (fd < 0)
         return false;
      close(fd);
      char cmd[512];
      snprintf(cmd, sizeof(cmd), "SHALE_THREADS=%s '%s' --dump '%s'", counts[i], self, path);
      int rc = system(cmd);
      CHECK(rc == 0, "%s exited with %d", cmd, rc);
      FILE *f = fopen(path, "rb");
      if (f) {
         CHECK(fread(res + i * size, size, 1, f) == 1, "%s: dump read", cmd);
         fclose(f);
      }
      unlink(path);
   }
   for (int i = 1; i < 3; i++)
      CHECK(memcmp(res, res + i * size, size) == 0, "SHALE_THREADS=%s and =1 give the same %s",
            counts[i], what);
   return true;
}

#endif
