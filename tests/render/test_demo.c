/* The README's demo renders on Shale what it renders on lavapipe. */
/*
 * Runs demo/shale_demo (argv[1]) once on each driver (VK_DRIVER_FILES
 * narrowed to one manifest) and compares the raw pictures: a lit, textured,
 * depth-tested torus with 4x MSAA resolved. Rasterization, depth and
 * coverage follow exact rules, but lighting (pow, normalize), perspective
 * interpolation, trilinear filtering and 4x resolves may round differently: at most 8/255
 * per channel anywhere, and at most 0.5% of the pixels off by more than
 * 1/255. The torus must cover a good part of the picture, and the picture
 * must not be one colour.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define W 640
#define H 480

static uint8_t *
run_demo(const char *demo, const char *manifest)
{
   char raw[] = "/tmp/shale-demo-XXXXXX";
   int fd = mkstemp(raw);
   if (fd < 0)
      return NULL;
   close(fd);
   char cmd[1024];
   snprintf(cmd, sizeof(cmd), "VK_DRIVER_FILES='%s' '%s' /dev/null --raw '%s' >&2", manifest, demo,
            raw);
   int rc = system(cmd);
   CHECK(rc == 0, "%s exited with %d", cmd, rc);
   uint8_t *px = calloc((size_t)W * H, 4);
   FILE *f = fopen(raw, "rb");
   if (f) {
      CHECK(fread(px, 4, (size_t)W * H, f) == (size_t)W * H, "%s: picture read", manifest);
      fclose(f);
   }
   unlink(raw);
   return px;
}

int
main(int argc, char **argv)
{
   const char *shale = getenv("SHALE_ICD_JSON"), *lvp = getenv("LVP_ICD_JSON");
   CHECK(argc == 2 && shale, "usage: render_demo <shale_demo>, SHALE_ICD_JSON set");
   if (argc != 2 || !shale)
      return check_finish();
   uint8_t *a = run_demo(argv[1], shale);
   unsigned covered = 0, colours = 0;
   for (size_t i = 0; i < (size_t)W * H; i++) {
      covered += a[i * 4] > 30 || a[i * 4 + 1] > 30;
      colours += memcmp(&a[i * 4], a, 4) != 0;
   }
   CHECK(covered > W * H / 5, "the torus covers %u pixels", covered);
   CHECK(colours > 0, "the picture has more than one colour");
   if (lvp && access(lvp, R_OK) == 0) {
      uint8_t *b = run_demo(argv[1], lvp);
      unsigned off = 0, worst = 0;
      for (size_t i = 0; i < (size_t)W * H * 4; i++) {
         unsigned d = (unsigned)abs((int)a[i] - (int)b[i]);
         worst = d > worst ? d : worst;
         off += d > 1;
      }
      printf("demo vs lavapipe: largest difference %u/255, %u channel values off by more than 1\n",
             worst, off);
      CHECK(worst <= 8, "largest difference %u/255", worst);
      CHECK(off <= (unsigned)(W * H * 4 / 200), "%u values off by more than 1/255", off);
      free(b);
   } else {
      printf("lavapipe not installed: comparison skipped\n");
   }
   free(a);
   return check_finish();
}
