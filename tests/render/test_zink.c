/* zink (Mesa's OpenGL on Vulkan, Debian's libgl1-mesa-dri 22.3) on Shale,
 * against zink on lavapipe, under an Xvfb the test starts.
 *
 * zink 22.3 creates no screen (glXCreateNewContext fails, silently) on a
 * device without VK_KHR_maintenance1, VK_KHR_create_renderpass2,
 * VK_KHR_imageless_framebuffer and VK_KHR_timeline_semaphore (found with a
 * debugger on this machine), and glXCreateNewContext dies (SIGSEGV) on a
 * device without VK_EXT_attachment_feedback_loop_layout: zink asks
 * vkGetPhysicalDeviceImageFormatProperties2 about images with
 * VK_IMAGE_USAGE_ATTACHMENT_FEEDBACK_LOOP_BIT_EXT whether or not the
 * device offers the extension and uses a NULL pointer when the query
 * refuses them. It warns of "incorrect rendering" without logicOp,
 * fillModeNonSolid, shaderClipDistance, scalar block layout,
 * VK_EXT_custom_border_color or VK_EXT_line_rasterization. With all of
 * these, VK_EXT_transform_feedback / VK_EXT_conditional_rendering (GL 3.1),
 * VK_EXT_vertex_attribute_divisor and VK_EXT_depth_clip_enable
 * (GL_ARB_instanced_arrays and GL_ARB_depth_clamp), Shale got OpenGL 3.3
 * and OpenGL ES 3.0 from zink; with tessellationShader, the
 * VK_KHR_maintenance2 name (GL_ARB_tessellation_shader) and R32G32B32
 * uniform texel buffers (GL_ARB_texture_buffer_object_rgb32) OpenGL 4.0;
 * with multiViewport (GL_ARB_viewport_array) OpenGL 4.1; with
 * shaderStorageImageExtendedFormats and shaderStorageImageWriteWithoutFormat
 * (zink's condition for shader images, GL_ARB_shader_image_load_store, the
 * one 4.2 extension that was missing) OpenGL 4.5 and OpenGL ES 3.2: images
 * were all that kept zink from the 4.3 - 4.5 extensions and ES 3.1 / 3.2.
 * OpenGL 4.6 came with VK_KHR_draw_indirect_count
 * (GL_ARB_indirect_parameters) and samplerAnisotropy
 * (GL_ARB_texture_filter_anisotropic).
 *
 * glmark2 runs as zink's users run it, Mesa's glthread on. At OpenGL ES 2.0
 * (Shale before transform feedback) that failed [build] use-vbo=false and
 * both [desktop] scenes: Mesa 22.3's glthread draws client-side vertex
 * arrays through glDrawArraysInstancedBaseInstance, which an ES 2.0
 * context's dispatch lacks, so those draws were dropped with
 * GL_INVALID_OPERATION ("unsupported function called", MESA_DEBUG=1; they
 * never reached Vulkan, as a gfxreconstruct capture showed), and zink on
 * lavapipe failed the same scenes when held to ES 2.0
 * (MESA_GLES_VERSION_OVERRIDE=2.0): a Mesa bug of ES 2.0 contexts, which
 * ES 3.0 contexts do not meet. Held:
 *  - glxinfo -B on lavapipe reports a zink renderer (the reference works);
 *  - while Shale lacks one of those five extensions the test prints which
 *    and SKIPs (77): it cannot pass yet and must not count as passed;
 *  - otherwise glxinfo -B on Shale exits 0, reports "zink (Shale (CPU))"
 *    with no requirements warning and at least OpenGL 4.6 (compatibility
 *    and core) and OpenGL ES 3.2,
 *    and, where glmark2-es2 is installed, every scene glmark2-es2
 *    --validate passes on lavapipe passes on Shale (27 of 27 on this
 *    machine).
 * Skips (77) where Xvfb, glxinfo or zink_dri.so is not installed.
 *
 * For a failure to be understood from the log alone (one ASan run once
 * failed the last eight scenes and left nothing but their names), the test
 * prints how each glmark2 run ended (exit status, 124 when `timeout` killed
 * it, a signal, its wall time), and on a failure the lines of Mesa's,
 * Shale's (its run has SHALE_DEBUG=errors: every error it returns, with
 * why) and the sanitizers' messages, then both runs' whole output.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vulkan/vulkan.h>

#include "check.h"
#include "xvfb_util.h"

/* Seconds each command run gets. On the 2-core machine a glmark2 run on
 * Shale with Mesa's shader cache cold (every new Shale build: zink keys its
 * cache on pipelineCacheUUID, the build's ID) took 180-230 s with the debug
 * build; the ASan build's is slower and may pass this, which ends the run
 * in its last scenes ([conditionals], [function], [loop]): the likely cause
 * of the one-time ASan failure of exactly those eight scenes. The log now
 * says so ("timeout killed it") when it happens. */
#define RUN_TIMEOUT_S 300

/* How a command run by run_zink ended. */
struct run_result {
   int status;       /* exit status; -1: killed by a signal or not run */
   int signal;       /* the signal that killed the shell, 0: none */
   double seconds;   /* wall time */
};

/* Runs `cmd` with zink on the driver manifest `icd` under `timeout RUN_TIMEOUT_S`
 * (which exits 124 when it kills the command); its output (stdout and
 * stderr) in a malloc'ed string, *res how it ended. */
static char *
run_zink(const char *icd, const char *cmd, struct run_result *res)
{
   setenv("VK_DRIVER_FILES", icd, 1);
   setenv("MESA_LOADER_DRIVER_OVERRIDE", "zink", 1);
   setenv("LIBGL_ALWAYS_SOFTWARE", "1", 1);
   /* Under ci/sanitize.sh (ASan preloaded) the programs run here are
    * Debian's glxinfo and glmark2 with Mesa, whose own leaks would fail
    * them at exit; as render/vkcube does, leaks are not checked in them
    * (Shale's are, by its own tests). */
   const char *asan = getenv("ASAN_OPTIONS");
   if (getenv("LD_PRELOAD") && (!asan || !strstr(asan, "detect_leaks=0"))) {
      char opts[512];
      snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", asan ? asan : "", asan ? ":" : "");
      setenv("ASAN_OPTIONS", opts, 1);
   }
   char full[512];
   snprintf(full, sizeof(full), "timeout %d %s 2>&1", RUN_TIMEOUT_S, cmd);
   struct timespec t0, t1;
   clock_gettime(CLOCK_MONOTONIC, &t0);
   *res = (struct run_result) { .status = -1 };
   FILE *f = popen(full, "r");
   size_t cap = 1 << 16, n = 0;
   char *out = malloc(cap);
   if (!f || !out) {
      free(out);
      if (f)
         pclose(f);
      return NULL;
   }
   size_t got;
   while ((got = fread(out + n, 1, cap - n - 1, f)) > 0) {
      n += got;
      if (n + 1 == cap) {
         char *bigger = realloc(out, cap * 2);
         if (!bigger)
            break;
         out = bigger;
         cap *= 2;
      }
   }
   out[n] = '\0';
   int st = pclose(f);
   clock_gettime(CLOCK_MONOTONIC, &t1);
   res->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
   res->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
   res->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
   return out;
}

/* One line of how a run ended, for the log. */
static void
print_run(FILE *to, const char *what, const struct run_result *r)
{
   fprintf(to, "%s: exit status %d%s, %.1f s", what, r->status,
           r->status == 124 ? " (timeout killed it)" : "", r->seconds);
   if (r->signal)
      fprintf(to, ", killed by signal %d", r->signal);
   fputc('\n', to);
}

/* The lines of a glmark2 run's output that are not its own: messages of
 * Mesa ("MESA", "zink"), of the Vulkan driver ("shale: ", SHALE_DEBUG=errors
 * among them) and of the sanitizers; how many, and printed to `to` when it
 * is not NULL. */
static unsigned
driver_messages(const char *out, FILE *to)
{
   static const char *const keys[] = { "MESA", "ZINK", "zink:", "shale: ", "Sanitizer",
                                       "runtime error", "VUID", "Segmentation", "Aborted" };
   unsigned n = 0;
   for (const char *p = out; p && *p;) {
      const char *e = strchr(p, '\n');
      int len = e ? (int)(e - p) : (int)strlen(p);
      for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
         const char *hit = strstr(p, keys[k]);
         if (hit && hit < p + len) {
            if (to)
               fprintf(to, "   %.*s\n", len, p);
            n++;
            break;
         }
      }
      p = e ? e + 1 : NULL;
   }
   return n;
}

static void
print_line(const char *what, const char *out, const char *key)
{
   const char *p = out ? strstr(out, key) : NULL;
   if (!p)
      return;
   const char *e = strchr(p, '\n');
   printf("%s: %.*s\n", what, e ? (int)(e - p) : (int)strlen(p), p);
}

/* The device extensions of the first physical device `icd` gives. */
static bool
shale_has(const char *icd, const char *const *names, unsigned n, bool *has)
{
   setenv("VK_DRIVER_FILES", icd, 1);
   VkInstanceCreateInfo ici = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO };
   VkInstance inst;
   if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS)
      return false;
   uint32_t count = 1;
   VkPhysicalDevice pdev;
   VkResult r = vkEnumeratePhysicalDevices(inst, &count, &pdev);
   if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || count == 0) {
      vkDestroyInstance(inst, NULL);
      return false;
   }
   uint32_t ne = 0;
   vkEnumerateDeviceExtensionProperties(pdev, NULL, &ne, NULL);
   VkExtensionProperties *e = calloc(ne ? ne : 1, sizeof(*e));
   vkEnumerateDeviceExtensionProperties(pdev, NULL, &ne, e);
   for (unsigned i = 0; i < n; i++) {
      has[i] = false;
      for (uint32_t j = 0; j < ne; j++)
         has[i] |= strcmp(e[j].extensionName, names[i]) == 0;
   }
   free(e);
   vkDestroyInstance(inst, NULL);
   return true;
}

/* Scenes of a glmark2 --validate run and whether each passed. A scene's
 * name is its line ("[build] use-vbo=false:") up to a message Mesa printed
 * into it ("MESA: warning: ...", which moves "Validation: " to the next
 * line). */
static unsigned
scenes(const char *out, char names[][160], bool *ok, unsigned max)
{
   unsigned n = 0;
   for (const char *p = out; p && (p = strstr(p, "Validation: ")) && n < max; p++) {
      const char *b = p;
      do {
         while (b > out && b[-1] != '\n')
            b--;
      } while (*b != '[' && b > out && --b > out);
      const char *e = b;
      while (e < p && *e != '\n' && strncmp(e, "MESA:", 5) != 0)
         e++;
      while (e > b && e[-1] == ' ')
         e--;
      int len = (int)(e - b);
      snprintf(names[n], 160, "%.*s", len < 159 ? len : 159, b);
      ok[n++] = strncmp(p + 12, "Success", 7) == 0;
   }
   return n;
}

int
main(int argc, char **argv)
{
   if (argc < 3) {
      fprintf(stderr, "usage: %s shale_icd.json lvp_icd.json\n", argv[0]);
      return 1;
   }
   const char *shale = argv[1], *lvp = argv[2];
   if (access("/usr/bin/Xvfb", X_OK) != 0)
      SKIP("Xvfb is not installed (ci/setup.sh installs xvfb)");
   if (access("/usr/bin/glxinfo", X_OK) != 0)
      SKIP("glxinfo is not installed (mesa-utils)");
   if (access("/usr/lib/x86_64-linux-gnu/dri/zink_dri.so", R_OK) != 0)
      SKIP("zink is not installed (libgl1-mesa-dri)");
   if (access(lvp, R_OK) != 0)
      SKIP("lavapipe is not installed (mesa-vulkan-drivers)");
   /* Displays :950-:1249 (the other X tests use other ranges). */
   if (!xvfb_start(950, 300, "800x600x24"))
      SKIP("Xvfb did not start");
   atexit(xvfb_stop);

   struct run_result rr;
   char *ref = run_zink(lvp, "glxinfo -B", &rr);
   CHECK(rr.status == 0 && ref && strstr(ref, "OpenGL renderer string: zink ("),
         "zink on lavapipe: glxinfo -B exit %d:\n%s", rr.status, ref ? ref : "");
   print_line("lavapipe", ref, "OpenGL renderer string");
   print_line("lavapipe", ref, "OpenGL version string");

   static const char *const needed[] = { "VK_KHR_maintenance1", "VK_KHR_create_renderpass2",
                                         "VK_KHR_imageless_framebuffer",
                                         "VK_KHR_timeline_semaphore",
                                         "VK_EXT_attachment_feedback_loop_layout" };
   enum { NEEDED = sizeof(needed) / sizeof(needed[0]) };
   bool has[NEEDED];
   CHECK(shale_has(shale, needed, NEEDED, has), "Shale's device extensions");
   char missing[256] = "";
   for (unsigned i = 0; i < NEEDED; i++)
      if (!has[i])
         snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s", needed[i]);
   if (missing[0]) {
      free(ref);
      if (check_failures)
         return check_finish();
      SKIP("zink 22.3 creates no GL context on Shale until it offers:%s (%d checks on lavapipe held)",
           missing, check_count);
   }

   char *out = run_zink(shale, "glxinfo -B", &rr);
   CHECK(rr.status == 0 && out && strstr(out, "OpenGL renderer string: zink (Shale (CPU))"),
         "zink on Shale: glxinfo -B exit %d:\n%s", rr.status, out ? out : "");
   CHECK(out && !strstr(out, "doesn't support base Zink requirements"),
         "zink on Shale: requirements warning:\n%s", out ? out : "");
   CHECK(out && strstr(out, "Max compat profile version: ") &&
            atof(strstr(out, "Max compat profile version: ") + 28) >= 4.6 - 1e-6,
         "zink on Shale: OpenGL 4.6 or later (compatibility)");
   CHECK(out && strstr(out, "Max core profile version: ") &&
            atof(strstr(out, "Max core profile version: ") + 26) >= 4.6 - 1e-6,
         "zink on Shale: OpenGL 4.6 or later (core)");
   CHECK(out && strstr(out, "Max GLES[23] profile version: ") &&
            atof(strstr(out, "Max GLES[23] profile version: ") + 30) >= 3.2 - 1e-6,
         "zink on Shale: OpenGL ES 3.2 or later");
   print_line("shale", out, "OpenGL renderer string");
   print_line("shale", out, "OpenGL version string");
   print_line("shale", out, "Max compat profile version");
   print_line("lavapipe", ref, "Max compat profile version");
   print_line("shale", out, "Max GLES[23] profile version");
   free(out);
   free(ref);

   if (access("/usr/bin/glmark2-es2", X_OK) != 0) {
      printf("glmark2-es2 is not installed (glmark2-es2-x11): scenes not compared\n");
      return check_finish();
   }
   static char lnames[64][160], snames[64][160];
   static bool lok[64], sok[64];
   const char *gm = "glmark2-es2 --validate -s 64x64";
   struct run_result lr, sr;
   char *lo = run_zink(lvp, gm, &lr);
   unsigned ln = lo ? scenes(lo, lnames, lok, 64) : 0;
   print_run(stdout, "glmark2-es2 on lavapipe", &lr);
   /* Shale's errors (VkResults other than success, with why) go into the
    * output kept for a failure. */
   bool debug_set = getenv("SHALE_DEBUG") != NULL;
   if (!debug_set)
      setenv("SHALE_DEBUG", "errors", 1);
   char *so = run_zink(shale, gm, &sr);
   if (!debug_set)
      unsetenv("SHALE_DEBUG");
   unsigned sn = so ? scenes(so, snames, sok, 64) : 0;
   print_run(stdout, "glmark2-es2 on Shale", &sr);
   int failures_before = check_failures;
   unsigned lpass = 0, spass = 0;
   for (unsigned i = 0; i < ln; i++) {
      lpass += lok[i];
      bool found = false;
      for (unsigned j = 0; j < sn; j++) {
         if (strcmp(lnames[i], snames[j]) == 0) {
            found = true;
            spass += sok[j] && lok[i];
            CHECK(!lok[i] || sok[j], "glmark2 scene %s passes on lavapipe, not on Shale", lnames[i]);
         }
      }
      CHECK(found || !lok[i], "glmark2 scene %s: no result on Shale", lnames[i]);
   }
   printf("glmark2-es2 --validate: %u of %u scenes pass on lavapipe, %u of those on Shale\n", lpass,
          ln, spass);
   printf("glmark2-es2 on Shale: %u lines of driver messages\n", so ? driver_messages(so, NULL) : 0);
   /* A glmark2 that ran nothing on lavapipe would hold Shale to nothing. */
   CHECK(lpass > 0, "glmark2-es2 on lavapipe: no scene passed:\n%s", lo ? lo : "");
   if (check_failures != failures_before) {
      /* What a failure needs to be understood later: how the run ended
       * (a timeout, a signal), the driver's and Mesa's messages, and the
       * whole output of both runs. */
      print_run(stderr, "glmark2-es2 on lavapipe", &lr);
      print_run(stderr, "glmark2-es2 on Shale", &sr);
      fprintf(stderr, "glmark2-es2 on Shale: driver messages:\n");
      if (so)
         driver_messages(so, stderr);
      fprintf(stderr, "---- glmark2-es2 on Shale (SHALE_DEBUG=%s):\n%s\n----\n",
              debug_set ? getenv("SHALE_DEBUG") : "errors", so ? so : "(no output)");
      fprintf(stderr, "---- glmark2-es2 on lavapipe:\n%s\n----\n", lo ? lo : "(no output)");
   }
   free(lo);
   free(so);
   return check_finish();
}
