/* LD_PRELOAD shim for render/vkcube: holds the window open at exit so the test can read the last frame. */
/*
 * vkcube destroys its window right after its last frame. Loaded with
 * LD_PRELOAD, this library's xcb_destroy_window first creates the file
 * named by SHALE_TEST_HOLD_FILE, then waits (at most 20 s) until the test
 * has read the window and removed the file, then destroys the window.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <xcb/xcb.h>

__attribute__((visibility("default"))) xcb_void_cookie_t
xcb_destroy_window(xcb_connection_t *c, xcb_window_t window);

xcb_void_cookie_t
xcb_destroy_window(xcb_connection_t *c, xcb_window_t window)
{
   xcb_void_cookie_t (*real)(xcb_connection_t *, xcb_window_t) =
      (xcb_void_cookie_t(*)(xcb_connection_t *, xcb_window_t))dlsym(RTLD_NEXT,
                                                                    "xcb_destroy_window");
   const char *hold = getenv("SHALE_TEST_HOLD_FILE");
   if (hold && *hold) {
      xcb_flush(c);
      int fd = open(hold, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
      if (fd >= 0) {
         close(fd);
         for (int i = 0; i < 2000 && access(hold, F_OK) == 0; i++)
            usleep(10000);
      }
   }
   return real(c, window);
}
