/*
 * su_build_id: the GNU build ID of the loaded object (shared library or
 * executable) that contains a given address.
 *
 * Design note
 * -----------
 * Owns: nothing. The linker writes a build ID note (NT_GNU_BUILD_ID, a hash
 * of the object's contents: GNU ld's and lld's --build-id) into a PT_NOTE
 * segment; su_build_id finds the object mapped over the address with
 * dl_iterate_phdr and copies that note's bytes. Cached data whose meaning
 * depends on the exact build (the compiler's machine-code blobs, the
 * pipeline cache UUID) is keyed by it, so any rebuild that changes the code
 * invalidates such data without a version number bumped by hand. The driver
 * is linked with --build-id (src/hal/meson.build, Android.bp's default).
 *
 * Invariants: on success, *size is in [1, SU_BUILD_ID_MAX] and out holds the
 * note's bytes as the linker wrote them; on failure (no object maps the
 * address, or it carries no build ID) it returns false and out is untouched.
 *
 * Threading: reentrant (dl_iterate_phdr holds the dynamic loader's lock
 * while it walks the objects); no state of its own.
 */
#ifndef SU_BUILD_ID_H
#define SU_BUILD_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SU_BUILD_ID_MAX 64

bool su_build_id(const void *address, uint8_t out[SU_BUILD_ID_MAX], size_t *size);

#endif
