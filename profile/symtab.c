/* Function names from an object's own symbol table (.symtab), for the sites dladdr cannot name.

   dladdr reads only the dynamic symbols: a program not linked with -rdynamic, or a static
   function, is "0x1f8c09 (mmseqs-avx2)" (issue 40), though most programs built from source keep
   .symtab, which names every function. It is read here at exit, for the report and the trace
   only, and only for the objects that have such a site: the file is mapped read-only, its
   section headers give the symbol table and its strings, and the function whose range holds the
   address names it. Nothing here runs while the profile is off.

   The file is the one the process loaded, as far as cheaply known: the main program through
   /proc/self/exe (its name in the link map is empty), a library by its path, whose ELF and
   program headers must match those mapped in memory (a library rebuilt since it was loaded
   would name the wrong functions). Everything read from the file is bounds-checked: it is
   someone else's. */
#include "profile.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if __SIZEOF_POINTER__ == 8
#define ELFCLASSW ELFCLASS64
#else
#define ELFCLASSW ELFCLASS32
#endif

/* The objects looked at so far (a table names sites in a handful). */
#define SYMTAB_OBJECTS 16

struct symtab_object {
  const struct link_map *map; /* the key; NULL: free */
  const unsigned char *file;  /* the mapped file; NULL: no usable symbol table */
  size_t size;
  const ElfW(Sym) *syms;
  size_t nsyms;
  const char *strs;
  size_t strs_size;
};

static struct symtab_object objects[SYMTAB_OBJECTS];

/* Whether [off, off + len) lies in a file of size bytes. */
static bool inside(size_t size, uint64_t off, uint64_t len)
{
  return off <= size && len <= size - off;
}

/* The file's symbol table, if it has one and it is the object mapped at map. */
static bool load(struct symtab_object *o, const struct link_map *map, const void *base)
{
  const char *path = map->l_name[0] != 0 ? map->l_name : "/proc/self/exe";
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return false;
  struct stat st;
  void *file = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size >= sizeof(ElfW(Ehdr)))
    file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (file == MAP_FAILED)
    return false;
  o->file = file;
  o->size = (size_t)st.st_size;
  const ElfW(Ehdr) *eh = file;
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASSW ||
      eh->e_shentsize != sizeof(ElfW(Shdr)) ||
      !inside(o->size, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr))) ||
      !inside(o->size, eh->e_phoff, (uint64_t)eh->e_phnum * eh->e_phentsize))
    return false;
  /* The headers as loaded: the first page of the object holds them (glibc maps the ELF header
     at the object's base). A rebuilt file differs there in nearly every case. */
  size_t headers = eh->e_phoff + (size_t)eh->e_phnum * eh->e_phentsize;
  if (base == NULL || headers > 4096 || memcmp(base, file, headers) != 0)
    return false;
  const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(o->file + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_entsize != sizeof(ElfW(Sym)) ||
        sh[i].sh_link >= eh->e_shnum)
      continue;
    const ElfW(Shdr) *str = &sh[sh[i].sh_link];
    if (!inside(o->size, sh[i].sh_offset, sh[i].sh_size) ||
        !inside(o->size, str->sh_offset, str->sh_size) || str->sh_size == 0)
      return false;
    o->syms = (const ElfW(Sym) *)(o->file + sh[i].sh_offset);
    o->nsyms = sh[i].sh_size / sizeof(ElfW(Sym));
    o->strs = (const char *)o->file + str->sh_offset;
    o->strs_size = str->sh_size;
    return true;
  }
  return false; /* stripped */
}

static struct symtab_object *object_of(const struct link_map *map, const void *base)
{
  for (unsigned i = 0; i < SYMTAB_OBJECTS; i++) {
    struct symtab_object *o = &objects[i];
    if (o->map == map)
      return o->syms != NULL ? o : NULL;
    if (o->map == NULL) {
      o->map = map;
      if (!load(o, map, base) && o->file != NULL) {
        munmap((void *)o->file, o->size);
        o->file = NULL;
        o->syms = NULL;
      }
      return o->syms != NULL ? o : NULL;
    }
  }
  return NULL; /* more objects than the cache holds: left unnamed */
}

bool lite_prof_symtab_name(const void *addr, const char *object, char *buf, size_t len)
{
  Dl_info info;
  struct link_map *map = NULL;
  if (dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) == 0 || map == NULL)
    return false;
  struct symtab_object *o = object_of(map, info.dli_fbase);
  if (o == NULL)
    return false;
  uintptr_t at = (uintptr_t)addr - map->l_addr;
  for (size_t i = 0; i < o->nsyms; i++) {
    const ElfW(Sym) *s = &o->syms[i];
    unsigned type = ELF64_ST_TYPE(s->st_info); /* the low 4 bits in either class */
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
        at < s->st_value || at - s->st_value >= s->st_size || s->st_name >= o->strs_size)
      continue;
    const char *name = o->strs + s->st_name;
    size_t n = strnlen(name, o->strs_size - s->st_name);
    if (n == 0 || n == o->strs_size - s->st_name) /* empty, or not ended inside the table */
      continue;
    snprintf(buf, len, "%.*s+0x%tx (%s)", (int)n, name, (ptrdiff_t)(at - s->st_value), object);
    return true;
  }
  return false;
}

void lite_prof_symtab_close(void)
{
  for (unsigned i = 0; i < SYMTAB_OBJECTS; i++) {
    if (objects[i].file != NULL)
      munmap((void *)objects[i].file, objects[i].size);
    memset(&objects[i], 0, sizeof objects[i]);
  }
}
