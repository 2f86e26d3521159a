/* vkcube (vulkan-tools) on Shale under an Xvfb the test starts; its last frame against lavapipe's. */
/*
 * vkcube runs a fixed number of frames (--c 40, FIFO) in an X window on
 * Shale with the validation layer, and again on lavapipe. A preloaded shim
 * (vkcube_hold.c) holds the window when vkcube destroys it, so this test
 * reads the last frame with xcb_get_image; the cube turns a fixed angle per
 * frame, so both pictures show the same frame. Held:
 *  - vkcube exits 0 on Shale with no validation message;
 *  - the two pictures differ by more than 24 (of 255) in some channel on
 *    at most 1% of the pixels (edges and texture filtering differ slightly;
 *    the measured figures are printed).
 * Skips (77) where Xvfb or vkcube is not installed.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xcb/xcb.h>

#include "check.h"
#include "xvfb_util.h"

struct picture {
   uint32_t w, h;
   uint8_t *bgrx;
};

/* The largest top-level window's pixels. */
static bool
grab(xcb_connection_t *c, struct picture *p)
{
   const xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
   xcb_query_tree_reply_t *tree = xcb_query_tree_reply(c, xcb_query_tree(c, screen->root), NULL);
   if (!tree)
      return false;
   xcb_window_t *kids = xcb_query_tree_children(tree);
   xcb_window_t best = 0;
   uint32_t best_area = 0;
   for (int i = 0; i < xcb_query_tree_children_length(tree); i++) {
      xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, xcb_get_geometry(c, kids[i]), NULL);
      if (g && (uint32_t)g->width * g->height > best_area) {
         best_area = (uint32_t)g->width * g->height;
         best = kids[i];
         p->w = g->width;
         p->h = g->height;
      }
      free(g);
   }
   free(tree);
   if (!best)
      return false;
   xcb_get_image_reply_t *img = xcb_get_image_reply(
      c, xcb_get_image(c, XCB_IMAGE_FORMAT_Z_PIXMAP, best, 0, 0, (uint16_t)p->w, (uint16_t)p->h, ~0u),
      NULL);
   if (!img)
      return false;
   size_t n = (size_t)p->w * p->h * 4;
   bool ok = (size_t)xcb_get_image_data_length(img) >= n;
   if (ok) {
      p->bgrx = malloc(n);
      memcpy(p->bgrx, xcb_get_image_data(img), n);
   }
   free(img);
   return ok;
}

/* Runs vkcube on one driver; its last frame into *p. */
static bool
run_vkcube(xcb_connection_t *c, const char *driver, const char *icd, const char *shim,
           bool validate, struct picture *p)
{
   char hold[64], log[64];
   snprintf(hold, sizeof(hold), "/tmp/shale-vkcube-%d-%s.hold", (int)getpid(), driver);
   snprintf(log, sizeof(log), "/tmp/shale-vkcube-%d-%s.log", (int)getpid(), driver);
   unlink(hold);
   pid_t pid = fork();
   if (pid == 0) {
      int fd = open(log, O_CREAT | O_TRUNC | O_WRONLY, 0600);
      dup2(fd, 1);
      dup2(fd, 2);
      setenv("VK_DRIVER_FILES", icd, 1);
      setenv("NODEVICE_SELECT", "1", 1);
      /* The shim, after whatever is preloaded already (ci/sanitize.sh: ASan,
       * which the instrumented driver needs; vkcube's own leaks are not
       * Shale's to report). */
      char preload[1024];
      const char *prev = getenv("LD_PRELOAD");
      snprintf(preload, sizeof(preload), "%s%s%s", prev ? prev : "", prev ? " " : "", shim);
      setenv("LD_PRELOAD", preload, 1);
      if (prev)
         setenv("ASAN_OPTIONS", "detect_leaks=0", 1);
      setenv("SHALE_TEST_HOLD_FILE", hold, 1);
      if (validate)
         setenv("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation", 1);
      execlp("vkcube", "vkcube", "--c", "40", "--present_mode", "2", (char *)NULL);
      _exit(127);
   }
   bool held = false;
   int status = -1;
   for (int i = 0; i < 3000; i++) {   /* 30 s */
      if (access(hold, F_OK) == 0) {
         held = true;
         break;
      }
      if (waitpid(pid, &status, WNOHANG) == pid) {
         pid = 0;
         break;
      }
      usleep(10000);
   }
   CHECK(held, "%s: vkcube never reached its window's destruction (status %d)", driver, status);
   bool grabbed = held && grab(c, p);
   CHECK(!held || grabbed, "%s: cannot read vkcube's window", driver);
   unlink(hold);
   if (pid) {
      waitpid(pid, &status, 0);
   }
   CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: vkcube exit status %d", driver,
         status);
   FILE *f = fopen(log, "r");
   char line[1024];
   int messages = 0;
   while (f && fgets(line, sizeof(line), f)) {
      if (strstr(line, "VUID") || strstr(line, "Validation Error")) {
         if (messages++ < 5)
            fprintf(stderr, "%s: %s", driver, line);
      }
   }
   if (f)
      fclose(f);
   CHECK(messages == 0, "%s: %d validation messages from vkcube", driver, messages);
   unlink(log);
   return grabbed;
}

int
main(int argc, char **argv)
{
   if (access("/usr/bin/Xvfb", X_OK) != 0)
      SKIP("Xvfb is not installed (ci/setup.sh installs xvfb)");
   if (access("/usr/bin/vkcube", X_OK) != 0)
      SKIP("vkcube is not installed (vulkan-tools)");
   if (argc < 4) {
      fprintf(stderr, "usage: %s SHALE_ICD_JSON LAVAPIPE_ICD_JSON HOLD_SHIM\n", argv[0]);
      return 1;
   }
   /* :450 to :849, apart from the other tests that start an Xvfb. */
   xcb_connection_t *c = xvfb_connect(450, 400, "800x600x24");
   CHECK(c != NULL, "Xvfb did not come up");
   if (!c)
      return check_finish();
   struct picture shale = { 0 }, lvp = { 0 };
   bool s = run_vkcube(c, "shale", argv[1], argv[3], true, &shale);
   bool l = run_vkcube(c, "lavapipe", argv[2], argv[3], false, &lvp);
   if (s && l) {
      CHECK(shale.w == lvp.w && shale.h == lvp.h, "window sizes %ux%u and %ux%u", shale.w,
            shale.h, lvp.w, lvp.h);
      size_t n = (size_t)shale.w * shale.h, off = 0;
      unsigned worst = 0;
      uint64_t lit = 0;
      for (size_t i = 0; i < n && shale.w == lvp.w && shale.h == lvp.h; i++) {
         unsigned d = 0;
         for (int ch = 0; ch < 3; ch++) {
            unsigned e = (unsigned)abs((int)shale.bgrx[4 * i + ch] - (int)lvp.bgrx[4 * i + ch]);
            d = e > d ? e : d;
         }
         worst = d > worst ? d : worst;
         off += d > 24;
         lit += lvp.bgrx[4 * i] != lvp.bgrx[0] || lvp.bgrx[4 * i + 1] != lvp.bgrx[1];
      }
      fprintf(stderr,
              "vkcube frame 40, %ux%u: %zu pixels (%.3f%%) differ by more than 24, largest "
              "difference %u; %llu pixels differ from lavapipe's corner colour\n",
              shale.w, shale.h, off, 100.0 * (double)off / (double)n, worst,
              (unsigned long long)lit);
      CHECK(lit > n / 20, "lavapipe's picture shows no cube");
      CHECK(off * 100 <= n, "Shale's vkcube frame differs from lavapipe's on %zu pixels", off);
   }
   free(shale.bgrx);
   free(lvp.bgrx);
   xcb_disconnect(c);
   xvfb_stop();
   return check_finish();
}
