/* gfxreconstruct: lavapipe's captures replay on Shale, Shale's on lavapipe; screenshots compared. */
/*
 * Under an Xvfb the test starts, two programs run on lavapipe with the
 * gfxreconstruct capture layer (VK_LAYER_LUNARG_gfxreconstruct):
 *  - vkcube (vulkan-tools), 10 frames (--c 10, FIFO);
 *  - the README's demo in its window (shale_demo --window --frames 6
 *    --present fifo): a lit torus with a mipmapped sRGB texture, depth and
 *    4x MSAA resolved into the swapchain's images, turning a fixed angle
 *    per frame.
 * Each capture is replayed with gfxrecon-replay on lavapipe, on Shale in an
 * X window, and on Shale without X (--wsi headless: Shale's
 * VK_EXT_headless_surface), taking screenshots (BMP) of fixed frames, which
 * are then compared. Each program is captured again on lavapipe, trimmed
 * to a range of frames (GFXRECON_CAPTURE_FRAMES: vkcube 4-10, the demo
 * 3-6; the replayer first rebuilds the state as it stood at the first of
 * them, image and buffer contents included), and that is replayed on
 * Shale. Then each program is captured on Shale (validation layer under
 * the capture layer) and that capture replayed on lavapipe.
 * Replay options:
 *  - -m rebind (resources bound to allocations the replayer makes for the
 *    replay device's memory types and requirements): Shale's memory types
 *    are not lavapipe's, and Shale rounds buffer sizes up to 64 bytes, so
 *    the captured allocations can be too small (-m remap then binds past
 *    the end of the memory: VUID-vkBindBufferMemory-size-01037); -m realign
 *    loses vkcube's texture (a black cube) on both drivers;
 *  - --sync (vkQueueWaitIdle after each submission): the replayer's virtual
 *    swapchain (gfxreconstruct 0.9.18) resets, at every present, the
 *    command buffer that copies a virtual image into the window's image,
 *    without waiting for its previous submission; the validation layer
 *    reports it on lavapipe too (VUID-vkResetCommandBuffer-commandBuffer-
 *    00045), and Shale's debug build asserts on it (gfxreconstruct waits
 *    for a fence there since its pull request 1795, after 0.9.18);
 *  - --validate on Shale (lavapipe's replays of both captures have no
 *    validation message with these options either).
 * Held:
 *  - both programs record on both drivers (exit 0, capture file written),
 *    with no validation message on Shale;
 *  - each replay exits 0, with no validation message on Shale's, and writes
 *    the screenshots asked for;
 *  - Shale's screenshots match lavapipe's within the tolerance render/vkcube
 *    and render/demo use for the same pictures (edges, lighting,
 *    perspective interpolation and filtering round differently; the
 *    measured figures are printed): vkcube, at most 1% of the pixels off by
 *    more than 24/255 in some channel; the demo, at most 8/255 anywhere and
 *    at most 0.5% of the channel values off by more than 1/255; and both
 *    show the scene: on each driver at least 5% of the pixels away from the
 *    corner colour, and at least 256 distinct colours (a replay that lost a
 *    texture or the lighting shows a few flat colours);
 *  - Shale's headless screenshots are identical to its X ones (the same
 *    driver drew the same frames; only the presentation differs);
 *  - Shale's screenshots of the trimmed captures are identical to those of
 *    the same frames of the whole captures (vkcube 5 and 10, the demo 6):
 *    the state rebuilt on Shale draws what the frames before had left;
 *  - lavapipe's replay of the capture made on Shale is identical to its
 *    replay of the capture made on lavapipe: over Shale, the capture layer
 *    recorded the program's work completely (every command and every write
 *    into mapped memory), and the program made the same frames on Shale as
 *    on lavapipe (the same choices from the formats, memory types and
 *    limits each driver reports).
 * Skips (77) where Xvfb, gfxreconstruct (gfxrecon-replay and the capture
 * layer's manifest) or lavapipe is not installed; the vkcube half is left
 * out (printed) where vkcube is not installed.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "xvfb_util.h"

#define GFXR_LAYER_JSON "/usr/share/vulkan/explicit_layer.d/VkLayer_gfxreconstruct.json"
#define GFXR_REPLAY "/usr/bin/gfxrecon-replay"

static char dir[64];

/* Runs argv with the environment changes in env ("NAME=value", or "NAME"
 * to unset), stdout and stderr into log; returns its exit status, or -1
 * after 60 s (then it is killed). */
static int
run(char *const argv[], const char *const env[], const char *log)
{
   pid_t pid = fork();
   if (pid == 0) {
      int fd = open(log, O_CREAT | O_TRUNC | O_WRONLY, 0600);
      dup2(fd, 1);
      dup2(fd, 2);
      for (int i = 0; env[i]; i++) {
         char name[64];
         const char *eq = strchr(env[i], '=');
         if (!eq) {
            unsetenv(env[i]);
            continue;
         }
         snprintf(name, sizeof(name), "%.*s", (int)(eq - env[i]), env[i]);
         setenv(name, eq + 1, 1);
      }
      execv(argv[0], argv);
      _exit(127);
   }
   int status = -1;
   for (int i = 0; i < 6000; i++) {
      if (waitpid(pid, &status, WNOHANG) == pid)
         return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      usleep(10000);
   }
   kill(pid, SIGKILL);
   waitpid(pid, &status, 0);
   return -1;
}

/* Prints a log's last lines (after a failure) and counts its validation
 * messages. */
static int
log_report(const char *log, bool show)
{
   FILE *f = fopen(log, "r");
   char line[1024];
   int messages = 0;
   while (f && fgets(line, sizeof(line), f)) {
      bool validation = strstr(line, "VUID") || strstr(line, "Validation Error");
      messages += validation;
      if (show || (validation && messages <= 5))
         fprintf(stderr, "  %s: %s", log, line);
   }
   if (f)
      fclose(f);
   return messages;
}

/* Under ci/sanitize.sh, whatever is preloaded (ASan, which the
 * instrumented driver needs in gfxrecon-replay, and lavapipe) stays; the
 * leaks of vkcube, the replayer and the capture layer are not Shale's to
 * report. Otherwise an entry that changes nothing. */
static const char *
asan_env(void)
{
   return getenv("LD_PRELOAD") ? "ASAN_OPTIONS=detect_leaks=0" : "SHALE_TEST_GFXR=1";
}

struct picture {
   int32_t w, h;
   uint8_t *bgr;   /* w * h * 3, top row first */
};

static uint32_t
le32(const uint8_t *p)
{
   return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* gfxrecon-replay's screenshots: uncompressed 24- or 32-bit BMPs. */
static bool
bmp_read(const char *path, struct picture *p)
{
   FILE *f = fopen(path, "rb");
   if (!f)
      return false;
   fseek(f, 0, SEEK_END);
   long size = ftell(f);
   fseek(f, 0, SEEK_SET);
   uint8_t *d = size > 54 ? malloc((size_t)size) : NULL;
   bool ok = d && fread(d, 1, (size_t)size, f) == (size_t)size;
   fclose(f);
   ok = ok && d[0] == 'B' && d[1] == 'M';
   uint32_t off = ok ? le32(d + 10) : 0;
   int32_t w = ok ? (int32_t)le32(d + 18) : 0, h = ok ? (int32_t)le32(d + 22) : 0;
   unsigned bpp = ok ? (unsigned)(d[28] | d[29] << 8) : 0;
   ok = ok && le32(d + 30) == 0 && (bpp == 24 || bpp == 32) && w > 0 && h != 0 && w <= 8192 &&
        h <= 8192 && h >= -8192;
   int32_t rows = h < 0 ? -h : h;
   size_t stride = ok ? ((size_t)w * (bpp / 8) + 3) & ~(size_t)3 : 0;
   ok = ok && off + stride * (size_t)rows <= (size_t)size;
   if (ok) {
      p->w = w;
      p->h = rows;
      p->bgr = malloc((size_t)w * rows * 3);
      for (int32_t y = 0; y < rows; y++) {
         const uint8_t *src = d + off + stride * (size_t)(h > 0 ? rows - 1 - y : y);
         for (int32_t x = 0; x < w; x++)
            memcpy(&p->bgr[((size_t)y * w + x) * 3], src + (size_t)x * (bpp / 8), 3);
      }
   }
   free(d);
   return ok;
}

struct capture {
   const char *name;     /* file names' stem */
   const char *frames;   /* --screenshots */
   int shot[4];          /* the frames screenshot */
   int trim[2];          /* the frames of the trimmed capture (first, last) */
   unsigned max_diff;    /* tolerance: differences above max_diff ... */
   double max_share;     /* ... on at most this share of the pixels (vkcube) */
   bool per_value;       /* the demo: max_diff is a bound everywhere, and
                          * at most max_share of the values are off by > 1 */
};

/* Replays dir/<name>-<from>.gfxr (the capture recorded on `from`) with
 * the driver of manifest icd into dir/<out>/: through an X window, or with
 * headless the replayer's VK_EXT_headless_surface (and no DISPLAY); with
 * validate through the validation layer, whose messages fail the test;
 * screenshots of frames (--screenshots), the list in shot[] (0-ended).
 * True when it exited 0 with every screenshot there. */
static bool
replay(const struct capture *cap, const char *from, const char *out, const char *icd,
       bool validate, bool headless, const char *frames, const int shot[4])
{
   char file[128], shots[128], log[160], drv[256];
   snprintf(file, sizeof(file), "%s/%s-%s.gfxr", dir, cap->name, from);
   snprintf(shots, sizeof(shots), "%s/%s", dir, out);
   snprintf(log, sizeof(log), "%s/%s-replay-%s.log", dir, cap->name, out);
   snprintf(drv, sizeof(drv), "VK_DRIVER_FILES=%s", icd);
   mkdir(shots, 0700);
   char *argv[20] = { GFXR_REPLAY, "--screenshots", (char *)frames, "--screenshot-dir", shots,
                      "--screenshot-prefix", (char *)cap->name, "--screenshot-format", "bmp",
                      "-m", "rebind", "--sync" };
   int argc = 12;
   if (validate)
      argv[argc++] = "--validate";
   if (headless) {
      argv[argc++] = "--wsi";
      argv[argc++] = "headless";
   }
   argv[argc++] = file;
   argv[argc] = NULL;
   const char *env[] = { drv, "NODEVICE_SELECT=1", "VK_INSTANCE_LAYERS", "VK_LAYER_PATH",
                         asan_env(), headless ? "DISPLAY" : "SHALE_TEST_GFXR=1", NULL };
   int rc = run(argv, env, log);
   int messages = validate ? log_report(log, false) : 0;
   CHECK(rc == 0, "%s: gfxrecon-replay of %s-%s exited with %d", out, cap->name, from, rc);
   CHECK(messages == 0, "%s: %d validation messages replaying %s-%s", out, messages, cap->name,
         from);
   bool all = true;
   for (int i = 0; i < 4 && shot[i]; i++) {
      char bmp[192];
      snprintf(bmp, sizeof(bmp), "%s/%s_frame_%d.bmp", shots, cap->name, shot[i]);
      all = all && access(bmp, R_OK) == 0;
   }
   CHECK(all, "%s: screenshots of %s-%s missing", out, cap->name, from);
   if (rc != 0 || !all)
      log_report(log, true);
   else
      unlink(log);
   return rc == 0 && all;
}

/* How many distinct colours a picture has. */
static size_t
count_colours(const struct picture *p)
{
   uint8_t *seen = calloc(1u << 21, 1);
   size_t n = 0;
   for (size_t i = 0; seen && i < (size_t)p->w * p->h; i++) {
      const uint8_t *c = &p->bgr[3 * i];
      uint32_t v = (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16;
      n += !(seen[v >> 3] & (1u << (v & 7)));
      seen[v >> 3] |= (uint8_t)(1u << (v & 7));
   }
   free(seen);
   return n;
}

/* Screenshot a_frame of dir/<a_dir>/ against b_frame of dir/<b_dir>/:
 * identical (exact), or within the capture's tolerance. Messages name the
 * frame by b_frame. */
static void
compare(const struct capture *cap, const char *a_dir, int a_frame, const char *b_dir, int frame,
        bool exact)
{
   char a_path[192], b_path[192];
   snprintf(a_path, sizeof(a_path), "%s/%s/%s_frame_%d.bmp", dir, a_dir, cap->name, a_frame);
   snprintf(b_path, sizeof(b_path), "%s/%s/%s_frame_%d.bmp", dir, b_dir, cap->name, frame);
   struct picture a = { 0 }, b = { 0 };
   bool ra = bmp_read(a_path, &a), rb = bmp_read(b_path, &b);
   CHECK(ra && rb, "%s frame %d: screenshots unreadable (%s, %s)", cap->name, frame, a_dir, b_dir);
   if (ra && rb) {
      CHECK(a.w == b.w && a.h == b.h, "%s frame %d: %dx%d from %s, %dx%d from %s", cap->name,
            frame, a.w, a.h, a_dir, b.w, b.h, b_dir);
   }
   if (ra && rb && a.w == b.w && a.h == b.h) {
      size_t n = (size_t)a.w * a.h, off_px = 0, off_values = 0, lit = 0, lit_b = 0, differ = 0;
      size_t colours = count_colours(&a), colours_b = count_colours(&b);
      unsigned worst = 0;
      for (size_t i = 0; i < n; i++) {
         unsigned d = 0;
         for (int c = 0; c < 3; c++) {
            unsigned e = (unsigned)abs((int)a.bgr[3 * i + c] - (int)b.bgr[3 * i + c]);
            d = e > d ? e : d;
            off_values += e > 1;
         }
         worst = d > worst ? d : worst;
         off_px += d > cap->max_diff;
         differ += d != 0;
         lit += memcmp(&a.bgr[3 * i], a.bgr, 3) != 0;
         lit_b += memcmp(&b.bgr[3 * i], b.bgr, 3) != 0;
      }
      if (exact) {
         printf("%s frame %d, %s against %s: %zu pixels differ\n", cap->name, frame, a_dir, b_dir,
                differ);
         CHECK(differ == 0, "%s frame %d: %s differs from %s on %zu pixels (largest %u/255)",
               cap->name, frame, a_dir, b_dir, differ, worst);
      } else {
         printf("%s frame %d, %dx%d, %s against %s: largest difference %u/255; %zu pixels "
                "(%.3f%%) off by more than %u; %zu channel values (%.3f%%) off by more than 1; "
                "pixels away from the corner colour: %zu and %zu; distinct colours: %zu and %zu\n",
                cap->name, frame, a.w, a.h, a_dir, b_dir, worst, off_px,
                100.0 * (double)off_px / (double)n, cap->max_diff, off_values,
                100.0 * (double)off_values / (double)(3 * n), lit, lit_b, colours, colours_b);
         CHECK(lit > n / 20 && colours >= 256, "%s frame %d: %s's screenshot shows no scene",
               cap->name, frame, a_dir);
         CHECK(lit_b > n / 20 && colours_b >= 256, "%s frame %d: %s's screenshot shows no scene",
               cap->name, frame, b_dir);
         if (cap->per_value) {
            CHECK(worst <= cap->max_diff, "%s frame %d: largest difference %u/255", cap->name,
                  frame, worst);
            CHECK((double)off_values <= cap->max_share * (double)(3 * n),
                  "%s frame %d: %zu values off by more than 1/255", cap->name, frame, off_values);
         } else {
            CHECK((double)off_px <= cap->max_share * (double)n,
                  "%s frame %d: %zu pixels off by more than %u/255", cap->name, frame, off_px,
                  cap->max_diff);
         }
      }
   }
   free(a.bgr);
   free(b.bgr);
}

/* Records argv on one driver with the capture layer (and, with validate,
 * the validation layer under it, whose messages fail the test) into
 * dir/<name>-<stem>.gfxr; with trim (frames trim[0] to trim[1] only, the
 * state before them recorded as it stands at trim[0]) the layer makes it
 * dir/<name>-<stem>_frames_<first>_through_<last>.gfxr. */
static bool
record(const struct capture *cap, char *const argv[], const char *stem, const char *icd,
       bool validate, const int *trim)
{
   char file[160], made[192], log[160], drv[256], out[192], frames[64];
   snprintf(file, sizeof(file), "%s/%s-%s.gfxr", dir, cap->name, stem);
   snprintf(log, sizeof(log), "%s/%s-capture-%s.log", dir, cap->name, stem);
   snprintf(drv, sizeof(drv), "VK_DRIVER_FILES=%s", icd);
   snprintf(out, sizeof(out), "GFXRECON_CAPTURE_FILE=%s", file);
   if (trim) {
      snprintf(made, sizeof(made), "%s/%s-%s_frames_%d_through_%d.gfxr", dir, cap->name, stem,
               trim[0], trim[1]);
      snprintf(frames, sizeof(frames), "GFXRECON_CAPTURE_FRAMES=%d-%d", trim[0], trim[1]);
   } else {
      snprintf(made, sizeof(made), "%s", file);
      snprintf(frames, sizeof(frames), "GFXRECON_CAPTURE_FRAMES");
   }
   const char *env[] = { drv, "NODEVICE_SELECT=1",
                         validate ? "VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct:"
                                    "VK_LAYER_KHRONOS_validation"
                                  : "VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct",
                         out, frames, "GFXRECON_CAPTURE_FILE_TIMESTAMP=false",
                         "GFXRECON_LOG_LEVEL=warning", "VK_LAYER_PATH", asan_env(), NULL };
   int rc = run(argv, env, log);
   int messages = validate ? log_report(log, false) : 0;
   bool recorded = rc == 0 && access(made, R_OK) == 0;
   CHECK(recorded, "%s: capture %s failed (exit %d)", cap->name, stem, rc);
   CHECK(messages == 0, "%s: %d validation messages capturing %s", cap->name, messages, stem);
   if (!recorded)
      log_report(log, true);
   else
      unlink(log);
   return recorded;
}

/* Captures argv on lavapipe, replays the capture on lavapipe, on Shale
 * and on Shale without X, and compares the screenshots; captures the
 * frames cap->trim on lavapipe and replays that on Shale; then captures
 * argv on Shale and replays that on lavapipe. */
static void
check_capture(const struct capture *cap, char *const argv[], const char *shale_icd,
              const char *lvp_icd)
{
   if (!record(cap, argv, "lavapipe", lvp_icd, false, NULL))
      return;
   bool l = replay(cap, "lavapipe", "lavapipe", lvp_icd, false, false, cap->frames, cap->shot);
   bool s = replay(cap, "lavapipe", "shale", shale_icd, true, false, cap->frames, cap->shot);
   bool h = replay(cap, "lavapipe", "shale-headless", shale_icd, true, true, cap->frames,
                   cap->shot);
   for (int i = 0; i < 4 && cap->shot[i]; i++) {
      if (l && s)
         compare(cap, "shale", cap->shot[i], "lavapipe", cap->shot[i], false);
      if (s && h)
         compare(cap, "shale-headless", cap->shot[i], "shale", cap->shot[i], true);
   }

   /* The trimmed capture's frame 1 is frame trim[0]: its screenshots of
    * the frames in cap->shot from trim[0] on. */
   int tshot[4] = { 0 }, nt = 0;
   char tframes[32] = "", tstem[64];
   for (int i = 0; i < 4 && cap->shot[i]; i++)
      if (cap->shot[i] >= cap->trim[0] && cap->shot[i] <= cap->trim[1]) {
         tshot[nt] = cap->shot[i] - cap->trim[0] + 1;
         snprintf(tframes + strlen(tframes), sizeof(tframes) - strlen(tframes), "%s%d",
                  nt ? "," : "", tshot[nt]);
         nt++;
      }
   snprintf(tstem, sizeof(tstem), "trim_frames_%d_through_%d", cap->trim[0], cap->trim[1]);
   if (nt && record(cap, argv, "trim", lvp_icd, false, cap->trim) &&
       replay(cap, tstem, "shale-trimmed", shale_icd, true, false, tframes, tshot) && s) {
      for (int i = 0; i < nt; i++)
         compare(cap, "shale-trimmed", tshot[i], "shale", tshot[i] + cap->trim[0] - 1, true);
   }

   if (!record(cap, argv, "shale", shale_icd, true, NULL))
      return;
   bool ls = replay(cap, "shale", "lavapipe-from-shale", lvp_icd, false, false, cap->frames,
                    cap->shot);
   for (int i = 0; i < 4 && cap->shot[i] && l && ls; i++)
      compare(cap, "lavapipe-from-shale", cap->shot[i], "lavapipe", cap->shot[i], true);
}

/* Removes dir and what the test left in it. */
static void
clean_dir(void)
{
   char cmd[128];
   snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
   if (strncmp(dir, "/tmp/shale-gfxr-", 16) == 0 && system(cmd) != 0)
      fprintf(stderr, "could not remove %s\n", dir);
}

int
main(int argc, char **argv)
{
   if (argc < 4) {
      fprintf(stderr, "usage: %s SHALE_ICD_JSON LAVAPIPE_ICD_JSON SHALE_DEMO\n", argv[0]);
      return 1;
   }
   if (access("/usr/bin/Xvfb", X_OK) != 0)
      SKIP("Xvfb is not installed (ci/setup.sh installs xvfb)");
   if (access(GFXR_REPLAY, X_OK) != 0 || access(GFXR_LAYER_JSON, R_OK) != 0)
      SKIP("gfxreconstruct is not installed (ci/setup.sh installs gfxreconstruct)");
   if (access(argv[2], R_OK) != 0)
      SKIP("lavapipe (%s) is not installed: nothing to capture on", argv[2]);
   bool vkcube = access("/usr/bin/vkcube", X_OK) == 0;
   snprintf(dir, sizeof(dir), "/tmp/shale-gfxr-XXXXXX");
   CHECK(mkdtemp(dir) != NULL, "mkdtemp");
   /* :1250 to :1649, apart from render/wsi_x11's, render/vkcube's and render/wsi_demo's. */
   CHECK(xvfb_start(1250, 400, "800x600x24"), "Xvfb did not come up");
   if (!xvfb_display() || check_failures) {
      clean_dir();
      return check_finish();
   }

   if (vkcube) {
      static const struct capture cube = { "vkcube", "1,5,10", { 1, 5, 10 }, { 4, 10 },
                                           24, 0.01, false };
      char *cube_argv[] = { "/usr/bin/vkcube", "--c", "10", "--present_mode", "2", NULL };
      check_capture(&cube, cube_argv, argv[1], argv[2]);
   } else {
      printf("vkcube is not installed (vulkan-tools): its capture is left out\n");
   }
   static const struct capture demo = { "demo", "1,6", { 1, 6 }, { 3, 6 }, 8, 0.005,
                                          true };
   char *demo_argv[] = { argv[3], "--window", "--frames", "6", "--present", "fifo", NULL };
   check_capture(&demo, demo_argv, argv[1], argv[2]);

   xvfb_stop();
   if (!check_failures)
      clean_dir();
   else
      fprintf(stderr, "captures, replay logs and screenshots left in %s\n", dir);
   return check_finish();
}
