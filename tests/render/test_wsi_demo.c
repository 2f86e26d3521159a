/* The demo's --window mode under an Xvfb the test starts: frames presented, a resize, no validation message. */
/*
 * demo/shale_demo (argv[1]) --window --frames 12 --present immediate runs
 * on Shale (manifest argv[2]) with the validation layer. When it reports
 * its first frame, the test resizes its window to 400x300 (from its own
 * connection, as a window manager would). Held:
 *  - the demo exits 0, having presented all 12 frames, and prints frames
 *    per second;
 *  - present or acquire reported the resize (VK_SUBOPTIMAL_KHR or
 *    VK_ERROR_OUT_OF_DATE_KHR), and the demo made a new swapchain with
 *    oldSwapchain for 400 x 300 and presented the rest with it;
 *  - no validation message.
 * The same program runs 6 frames on lavapipe (argv[3]) and must exit 0
 * with its frames per second: the demo's window mode is not Shale's alone.
 * Skips (77) where Xvfb is not installed or the demo was built without
 * libxcb.
 */
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

/* Resizes the top-level window of 640x480 (the demo's) to w x h. */
static bool
resize_demo_window(xcb_connection_t *c, uint16_t w, uint16_t h)
{
   const xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
   xcb_query_tree_reply_t *tree = xcb_query_tree_reply(c, xcb_query_tree(c, screen->root), NULL);
   if (!tree)
      return false;
   xcb_window_t *kids = xcb_query_tree_children(tree);
   bool done = false;
   for (int i = 0; i < xcb_query_tree_children_length(tree) && !done; i++) {
      xcb_get_geometry_reply_t *g = xcb_get_geometry_reply(c, xcb_get_geometry(c, kids[i]), NULL);
      if (g && g->width == 640 && g->height == 480) {
         const uint32_t size[2] = { w, h };
         xcb_configure_window(c, kids[i], XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT,
                              size);
         free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));   /* round trip */
         done = true;
      }
      free(g);
   }
   free(tree);
   return done;
}

struct outcome {
   int status;
   bool first, resized, recreated, finished, fps;
   int validation;
};

/* Runs the demo on one driver; resizes its window after the first frame
 * when `resize`. */
static struct outcome
run_demo(xcb_connection_t *c, const char *demo, const char *icd, const char *frames,
         bool validate, bool resize)
{
   struct outcome o = { .status = -1 };
   int fds[2];
   if (pipe(fds) != 0)
      return o;
   pid_t pid = fork();
   if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      setenv("VK_DRIVER_FILES", icd, 1);
      setenv("NODEVICE_SELECT", "1", 1);
      if (validate)
         setenv("VK_INSTANCE_LAYERS", "VK_LAYER_KHRONOS_validation", 1);
      execl(demo, demo, "--window", "--frames", frames, "--present", "immediate", (char *)NULL);
      _exit(127);
   }
   close(fds[1]);
   FILE *f = fdopen(fds[0], "r");
   char line[1024], want[64];
   snprintf(want, sizeof(want), "%s frames presented", frames);
   while (f && fgets(line, sizeof(line), f)) {
      fprintf(stderr, "  %s", line);
      if (strstr(line, "VUID") || strstr(line, "Validation Error"))
         o.validation++;
      if (strstr(line, "first frame rendered and presented")) {
         o.first = true;
         if (resize)
            o.resized = resize_demo_window(c, 400, 300);
      }
      if (strstr(line, "swapchain recreated for 400 x 300"))
         o.recreated = true;
      if (strstr(line, want)) {
         o.finished = true;
         o.fps = strstr(line, "frames per second") != NULL;
      }
   }
   if (f)
      fclose(f);
   waitpid(pid, &o.status, 0);
   return o;
}

int
main(int argc, char **argv)
{
   if (argc < 4) {
      fprintf(stderr, "usage: %s SHALE_DEMO SHALE_ICD_JSON LAVAPIPE_ICD_JSON\n", argv[0]);
      return 1;
   }
   if (access("/usr/bin/Xvfb", X_OK) != 0)
      SKIP("Xvfb is not installed (ci/setup.sh installs xvfb)");
   /* :850 to :949, apart from the other tests that start an Xvfb. */
   xcb_connection_t *c = xvfb_connect(850, 100, "800x600x24");
   CHECK(c != NULL, "Xvfb did not come up");
   if (!c)
      return check_finish();

   fprintf(stderr, "Shale:\n");
   struct outcome s = run_demo(c, argv[1], argv[2], "12", true, true);
   if (WIFEXITED(s.status) && WEXITSTATUS(s.status) == 2) {
      xvfb_stop();
      SKIP("the demo was built without libxcb");
   }
   CHECK(WIFEXITED(s.status) && WEXITSTATUS(s.status) == 0, "Shale: demo exit status %d",
         s.status);
   CHECK(s.first, "Shale: no first frame reported");
   CHECK(s.resized, "Shale: the demo's 640x480 window was not found to resize");
   CHECK(s.recreated, "Shale: no swapchain made for the resized window");
   CHECK(s.finished && s.fps, "Shale: 12 frames and their rate not reported");
   CHECK(s.validation == 0, "Shale: %d validation messages", s.validation);

   fprintf(stderr, "lavapipe:\n");
   struct outcome l = run_demo(c, argv[1], argv[3], "6", false, false);
   CHECK(WIFEXITED(l.status) && WEXITSTATUS(l.status) == 0, "lavapipe: demo exit status %d",
         l.status);
   CHECK(l.finished && l.fps, "lavapipe: 6 frames and their rate not reported");

   xcb_disconnect(c);
   xvfb_stop();
   return check_finish();
}
