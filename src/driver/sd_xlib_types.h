/*
 * sd_xlib_types: the four Xlib types vulkan_xlib.h needs, declared exactly
 * as <X11/X.h> and <X11/Xlib.h> declare them (C11 allows the repetition),
 * so the generated entry points can name VK_KHR_xlib_surface's commands
 * without bringing Xlib's macros (None, Status, Bool, ...) into the driver.
 */
#ifndef SD_XLIB_TYPES_H
#define SD_XLIB_TYPES_H

typedef unsigned long XID;
typedef unsigned long VisualID;
typedef XID Window;
typedef struct _XDisplay Display;

#endif
