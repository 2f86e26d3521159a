/*
 * An Xvfb for the render tests that present to X (render/wsi_x11,
 * render/vkcube, render/wsi_demo, render/gfxr, render/zink): started on a
 * free display of the range each test gives (the ranges are chosen apart so
 * that tests running in parallel do not collide), stopped at the end. xvfb_util.c
 * needs no libxcb; xvfb_connect is in xvfb_xcb.c, for the tests that link
 * libxcb.
 */
#ifndef SHALE_TEST_XVFB_UTIL_H
#define SHALE_TEST_XVFB_UTIL_H

#include <stdbool.h>

/* Starts /usr/bin/Xvfb with one screen of the given geometry ("800x600x24")
 * on the first free display of [first, first + count), counting from
 * first + pid % count (a display is free when neither its socket nor its
 * lock file is there); waits until its socket is there, or gives up after
 * 10 s. Sets DISPLAY and returns true when the server is up (and still
 * running: another server taking the display first makes ours exit). */
bool xvfb_start(int first, int count, const char *screen);

/* The running server's display name (":N"), or NULL. */
const char *xvfb_display(void);

/* Stops the server, if one runs (SIGTERM, then waits for it up to 10 s,
 * then SIGKILL, said on stderr). */
void xvfb_stop(void);

/* xvfb_start, then an xcb connection to the server; NULL (and no server
 * left running) if either fails. */
struct xcb_connection_t *xvfb_connect(int first, int count, const char *screen);

#endif
