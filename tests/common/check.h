/*
 * Minimal test assertions shared by every Shale test program. A test program
 * is one executable registered with meson's test(); it exits 0 when every
 * CHECK held, 1 otherwise, and 77 (meson's "skip") only through SKIP().
 */
#ifndef SHALE_TEST_CHECK_H
#define SHALE_TEST_CHECK_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;
static int check_count;

#define CHECK(cond, ...)                                                     \
   do {                                                                      \
      check_count++;                                                         \
      if (!(cond)) {                                                         \
         check_failures++;                                                   \
         fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__,    \
                 #cond);                                                     \
         fprintf(stderr, __VA_ARGS__);                                       \
         fputc('\n', stderr);                                                \
      }                                                                      \
   } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
   CHECK((long long)(a) == (long long)(b), "%s = %lld, expected %lld", #a,    \
         (long long)(a), (long long)(b))

#define SKIP(...)                                                            \
   do {                                                                      \
      fprintf(stderr, "SKIP: " __VA_ARGS__);                                 \
      fputc('\n', stderr);                                                   \
      exit(77);                                                              \
   } while (0)

/* Open file descriptors of this process, not counting the one this call
 * uses (-1 without /proc). Leak checks compare two readings. */
static inline int
check_open_fds(void)
{
   DIR *d = opendir("/proc/self/fd");
   if (!d)
      return -1;
   int n = 0;
   struct dirent *e;
   while ((e = readdir(d)) != NULL)
      n += e->d_name[0] != '.';
   closedir(d);
   return n - 1;
}

/* Call at the end of main(). A program that checked nothing fails. */
static inline int check_finish(void)
{
   if (check_count == 0) {
      fprintf(stderr, "no CHECK ran: a test must assert something\n");
      return 1;
   }
   fprintf(stderr, "%d checks, %d failed\n", check_count, check_failures);
   return check_failures ? 1 : 0;
}

#endif
