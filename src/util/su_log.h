/*
 * su_log: logging and debug switches for every module.
 *
 * Owns: the SHALE_DEBUG flag set (parsed once from the environment) and the
 * log sink (stderr on the host; the Android log on Android builds).
 *
 * Invariants: nothing here writes files. Features that would write dumps or
 * traces to disk must ask su_debug_files_allowed() first, which on Android
 * answers true only for debuggable processes (ro.debuggable or a debuggable
 * app); on the host it is always true.
 *
 * Threading: su_debug_flags() initialises once (pthread_once); logging is
 * thread-safe (one fprintf per message).
 */
#ifndef SU_LOG_H
#define SU_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum su_debug_flag {
   SU_DEBUG_ERRORS = 1u << 0,   /* log every error code returned to the app */
   SU_DEBUG_INFO   = 1u << 1,   /* log object creation and driver decisions */
   SU_DEBUG_CMDS   = 1u << 2,   /* log each replayed command */
};

/* Flags from SHALE_DEBUG (comma-separated: errors, info, cmds, all). */
uint32_t su_debug_flags(void);
static inline bool su_debug(enum su_debug_flag f) { return (su_debug_flags() & f) != 0; }

/* Whether debug output may be written to files (see the design note). */
bool su_debug_files_allowed(void);

void su_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
