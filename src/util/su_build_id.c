#define _GNU_SOURCE
#include "su_build_id.h"

#include <elf.h>
#include <link.h>
#include <string.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

struct build_id_search {
   uintptr_t address;
   uint8_t *out;
   size_t size;
   bool found;
};

static size_t
note_align(size_t v, size_t align)
{
   return (v + align - 1) & ~(align - 1);
}

/* Looks for the GNU build ID note in one PT_NOTE segment of `size` bytes. */
static bool
find_note(const uint8_t *p, size_t size, size_t align, struct build_id_search *s)
{
   size_t off = 0;
   while (size - off >= sizeof(ElfW(Nhdr))) {
      ElfW(Nhdr) n;
      memcpy(&n, p + off, sizeof(n));
      size_t name_at = off + sizeof(n);
      if (n.n_namesz > size || n.n_descsz > size)
         return false;
      size_t desc_at = name_at + note_align(n.n_namesz, align);
      size_t next = desc_at + note_align(n.n_descsz, align);
      if (desc_at > size || next > size || desc_at + n.n_descsz > size)
         return false;
      if (n.n_type == NT_GNU_BUILD_ID && n.n_namesz == 4 && memcmp(p + name_at, "GNU", 4) == 0 &&
          n.n_descsz > 0 && n.n_descsz <= SU_BUILD_ID_MAX) {
         memcpy(s->out, p + desc_at, n.n_descsz);
         s->size = n.n_descsz;
         return true;
      }
      if (next <= off)
         return false;
      off = next;
   }
   return false;
}

static int
visit_object(struct dl_phdr_info *info, size_t info_size, void *data)
{
   (void)info_size;
   struct build_id_search *s = data;
   bool contains = false;
   for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      uintptr_t start = info->dlpi_addr + ph->p_vaddr;
      if (ph->p_type == PT_LOAD && s->address >= start && s->address - start < ph->p_memsz)
         contains = true;
   }
   if (!contains)
      return 0;
   for (ElfW(Half) i = 0; i < info->dlpi_phnum && !s->found; i++) {
      const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_NOTE)
         continue;
      size_t align = ph->p_align == 8 ? 8 : 4;
      s->found = find_note((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_filesz, align, s);
   }
   return 1; /* the containing object answers, found or not */
}

bool
su_build_id(const void *address, uint8_t out[SU_BUILD_ID_MAX], size_t *size)
{
   uint8_t id[SU_BUILD_ID_MAX];
   struct build_id_search s = { .address = (uintptr_t)address, .out = id };
   dl_iterate_phdr(visit_object, &s);
   if (!s.found)
      return false;
   memcpy(out, id, s.size);
   *size = s.size;
   return true;
}
