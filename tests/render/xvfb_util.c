#include "xvfb_util.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t xvfb_pid;
static char xvfb_name[16];

void
xvfb_stop(void)
{
   if (xvfb_pid > 0) {
      kill(xvfb_pid, SIGTERM);
      /* Up to 10 s for it to exit, then SIGKILL: a server stuck in its
       * shutdown must not hang the test (one ASan CI run waited 360 s here,
       * after every check had passed). Said on stderr when it happens. */
      int i = 0;
      while (waitpid(xvfb_pid, NULL, WNOHANG) == 0 && i++ < 1000)
         usleep(10000);
      if (i > 1000) {
         fprintf(stderr, "xvfb_util: Xvfb %s (pid %d) still running 10 s after SIGTERM: SIGKILL\n",
                 xvfb_name, (int)xvfb_pid);
         kill(xvfb_pid, SIGKILL);
         waitpid(xvfb_pid, NULL, 0);
      }
      xvfb_pid = 0;
   }
}

const char *
xvfb_display(void)
{
   return xvfb_pid > 0 ? xvfb_name : NULL;
}

bool
xvfb_start(int first, int count, const char *screen)
{
   int display = -1;
   char sock[32], lock[32];
   for (int i = 0; i < count && display < 0; i++) {
      int d = first + (int)((getpid() + i) % count);
      snprintf(sock, sizeof(sock), "/tmp/.X11-unix/X%d", d);
      snprintf(lock, sizeof(lock), "/tmp/.X%d-lock", d);
      if (access(sock, F_OK) != 0 && access(lock, F_OK) != 0)
         display = d;
   }
   if (display < 0)
      return false;
   snprintf(xvfb_name, sizeof(xvfb_name), ":%d", display);
   xvfb_pid = fork();
   if (xvfb_pid < 0) {
      xvfb_pid = 0;
      return false;
   }
   if (xvfb_pid == 0) {
      freopen("/dev/null", "w", stdout);
      freopen("/dev/null", "w", stderr);
      unsetenv("LD_PRELOAD");   /* the X server is not ours (ci/sanitize.sh preloads ASan) */
      execl("/usr/bin/Xvfb", "Xvfb", xvfb_name, "-screen", "0", screen, "-nolisten", "tcp",
            (char *)NULL);
      _exit(127);
   }
   for (int i = 0; i < 200; i++) {
      if (access(sock, F_OK) == 0) {
         /* Ours, unless another server took the display first (ours
          * then exits). */
         usleep(100000);
         if (waitpid(xvfb_pid, NULL, WNOHANG) == xvfb_pid) {
            xvfb_pid = 0;
            return false;
         }
         setenv("DISPLAY", xvfb_name, 1);
         return true;
      }
      if (waitpid(xvfb_pid, NULL, WNOHANG) == xvfb_pid) {
         xvfb_pid = 0;
         return false;
      }
      usleep(50000);
   }
   xvfb_stop();
   return false;
}
