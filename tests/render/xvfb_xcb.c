#include "xvfb_util.h"

#include <xcb/xcb.h>

xcb_connection_t *
xvfb_connect(int first, int count, const char *screen)
{
   if (!xvfb_start(first, count, screen))
      return NULL;
   xcb_connection_t *c = xcb_connect(xvfb_display(), NULL);
   if (xcb_connection_has_error(c)) {
      xcb_disconnect(c);
      xvfb_stop();
      return NULL;
   }
   return c;
}
