/* A minimal PNG writer (8-bit RGBA, stored deflate blocks, no dependency)
 * for the demo and the render tests' output images. */
#ifndef PNG_WRITE_H
#define PNG_WRITE_H

#include <stdbool.h>
#include <stdint.h>

/* rows are `stride` bytes apart, each width*4 bytes of RGBA8. */
bool png_write_rgba8(const char *path, uint32_t width, uint32_t height, const uint8_t *pixels,
                     uint32_t stride);

#endif
