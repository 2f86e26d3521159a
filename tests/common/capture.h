/*
 * capture: the test process's stderr between capture_begin and
 * capture_end, where the driver's SHALE_DEBUG logs go, so a test can count
 * what the driver says it did (compilations, cache hits). What was captured
 * is echoed to the real stderr as well. Header-only; single-threaded use
 * (other threads' writes to fd 2 in between are captured too).
 */
#ifndef SHALE_TEST_CAPTURE_H
#define SHALE_TEST_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct capture {
   FILE *file;
   int saved;
};

static inline void
capture_begin(struct capture *c)
{
   fflush(stderr);
   c->file = tmpfile();
   c->saved = dup(2);
   if (c->file)
      dup2(fileno(c->file), 2);
}

/* Restores stderr, echoes what was captured, returns it (free it). */
static inline char *
capture_end(struct capture *c)
{
   fflush(stderr);
   dup2(c->saved, 2);
   close(c->saved);
   if (!c->file)
      return calloc(1, 1);
   long size = ftell(c->file);
   char *text = calloc(1, size > 0 ? (size_t)size + 1 : 1);
   rewind(c->file);
   if (text && size > 0 && fread(text, 1, (size_t)size, c->file) != (size_t)size)
      text[0] = '\0';
   fclose(c->file);
   if (text)
      fputs(text, stderr);
   return text;
}

/* How many times needle occurs in text. */
static inline unsigned
count_of(const char *text, const char *needle)
{
   unsigned n = 0;
   for (const char *p = text; p && (p = strstr(p, needle)); p += strlen(needle))
      n++;
   return n;
}

#endif
