/* lite_check.h: shared by the integration tests (C and C++).

   1. Proof that the program runs on libomp-lite, whichever route loaded it (LD_PRELOAD, the drop-in
      libgomp.so.1 through LD_LIBRARY_PATH, or a -L/rpath link): every omp_* and GOMP_* symbol that
      the executable imports is looked up the way the dynamic linker binds it (name and version,
      through dlvsym), and the object that defines it must have "omp-lite" in its path. Checking
      every import, not just one, catches the LD_PRELOAD trap: an entry point libomp-lite lacks
      silently falls through to the system libgomp, which is loaded too.
      LITE_CHECK=stock (or off) skips the proof, to run the same binaries on stock libgomp;
      LITE_CHECK=only also fails if a stock libgomp, or LLVM's libomp, is mapped at all (the
      ldpath and rpath routes).
   2. Failure reporting: LITE_FAIL prints "<test>: FAIL: ..." and leaves with status 1 at once
      (_exit, so a broken runtime cannot hang the exit path of a failed test). */
#ifndef LITE_CHECK_H
#define LITE_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *lite_test_name = "test";

static void lite_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2), unused));
static void lite_fail(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    int n = snprintf(buf, sizeof buf, "%s: FAIL: ", lite_test_name);
    va_start(ap, fmt);
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    fflush(stdout);
    /* One write, so that concurrent failures from several threads do not interleave mid-line. */
    size_t len = strlen(buf);
    if (len < sizeof buf - 1)
        buf[len++] = '\n';
    if (write(2, buf, len) < 0) { /* nothing more to do */ }
    _exit(1);
}

/* LITE_EXPECT(cond, "printf format", ...): fail with the message unless cond holds. */
#define LITE_EXPECT(cond, ...) do { if (!(cond)) lite_fail(__VA_ARGS__); } while (0)

static int lite_check_mode_is(const char *mode)
{
    const char *s = getenv("LITE_CHECK");
    return s && strcmp(s, mode) == 0;
}

static int lite_stock_mode(void) __attribute__((unused));
static int lite_stock_mode(void)
{
    return lite_check_mode_is("stock") || lite_check_mode_is("off");
}

static const char *lite_object_of(const void *addr)
{
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname)
        return NULL;
    return info.dli_fname;
}

static int lite_is_lite_path(const char *path)
{
    return path && strstr(path, "omp-lite") != NULL;
}

static int lite_phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    const char *name = info->dlpi_name;
    (void)size;
    if (name && (strstr(name, "libgomp") || strstr(name, "libomp.so")) &&
        !lite_is_lite_path(name)) {
        *(const char **)data = name;
        return 1;
    }
    return 0;
}

/* The version name that the executable's symbol index i needs, or NULL when unversioned. */
static const char *lite_needed_version(const char *base, const ElfW(Shdr) *verneed,
                                       const ElfW(Shdr) *shdrs, unsigned idx)
{
    const char *strtab;
    const char *p;
    if (!verneed || idx < 2)
        return NULL;
    strtab = base + shdrs[verneed->sh_link].sh_offset;
    p = base + verneed->sh_offset;
    for (;;) {
        const ElfW(Verneed) *vn = (const ElfW(Verneed) *)p;
        const char *a = p + vn->vn_aux;
        for (unsigned k = 0; k < vn->vn_cnt; k++) {
            const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)a;
            if (aux->vna_other == idx)
                return strtab + aux->vna_name;
            a += aux->vna_next;
        }
        if (!vn->vn_next)
            return NULL;
        p += vn->vn_next;
    }
}

/* Check every import of /proc/self/exe that an OpenMP runtime defines (omp_, GOMP_ from gcc's
   code; __kmpc_, kmp_, ompc_ from clang's); returns how many were checked. */
static int lite_check_imports(void)
{
    struct stat st;
    int fd = open("/proc/self/exe", O_RDONLY);
    LITE_EXPECT(fd >= 0, "cannot open /proc/self/exe");
    LITE_EXPECT(fstat(fd, &st) == 0, "cannot stat /proc/self/exe");
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    LITE_EXPECT(map != MAP_FAILED, "cannot map /proc/self/exe");

    const char *base = (const char *)map;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)map;
    LITE_EXPECT(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0, "/proc/self/exe is not ELF");
    const ElfW(Shdr) *sh = (const ElfW(Shdr) *)(base + eh->e_shoff);
    const ElfW(Shdr) *dynsym = NULL, *versym = NULL, *verneed = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type == SHT_DYNSYM) dynsym = &sh[i];
        if (sh[i].sh_type == SHT_GNU_versym) versym = &sh[i];
        if (sh[i].sh_type == SHT_GNU_verneed) verneed = &sh[i];
    }
    LITE_EXPECT(dynsym != NULL, "the executable has no dynamic symbol table");

    const ElfW(Sym) *syms = (const ElfW(Sym) *)(base + dynsym->sh_offset);
    const char *strtab = base + sh[dynsym->sh_link].sh_offset;
    const ElfW(Half) *vers = versym ? (const ElfW(Half) *)(base + versym->sh_offset) : NULL;
    size_t n = dynsym->sh_size / sizeof(ElfW(Sym));
    int checked = 0;
    for (size_t i = 1; i < n; i++) {
        const char *name = strtab + syms[i].st_name;
        if (syms[i].st_shndx != SHN_UNDEF)
            continue;
        if (strncmp(name, "omp_", 4) != 0 && strncmp(name, "GOMP_", 5) != 0 &&
            strncmp(name, "__kmpc_", 7) != 0 && strncmp(name, "kmp_", 4) != 0 &&
            strncmp(name, "ompc_", 5) != 0)
            continue;
        const char *ver = vers ? lite_needed_version(base, verneed, sh, vers[i] & 0x7fff) : NULL;
        void *addr = ver ? dlvsym(RTLD_DEFAULT, name, ver) : dlsym(RTLD_DEFAULT, name);
        if (!addr && (syms[i].st_info >> 4) == STB_WEAK)
            continue;
        LITE_EXPECT(addr != NULL, "imported symbol %s@%s is defined by no loaded object",
                    name, ver ? ver : "(none)");
        const char *obj = lite_object_of(addr);
        LITE_EXPECT(lite_is_lite_path(obj),
                    "%s@%s resolves to %s, not to libomp-lite (no \"omp-lite\" in the path)",
                    name, ver ? ver : "(none)", obj ? obj : "(unknown object)");
        checked++;
    }
    munmap(map, (size_t)st.st_size);
    return checked;
}

/* Call first thing in main. sample: the address of an omp_ function the program calls, as the
   program sees it (through its GOT). */
static void lite_check_runtime(const char *test_name, const void *sample) __attribute__((unused));
static void lite_check_runtime(const char *test_name, const void *sample)
{
    lite_test_name = test_name;
    if (lite_stock_mode()) {
        const char *obj = sample ? lite_object_of(sample) : NULL;
        printf("%s: LITE_CHECK=stock: not checking the runtime (%s)\n", test_name,
               obj ? obj : "?");
        return;
    }
    const char *obj = sample ? lite_object_of(sample) : NULL;
    if (sample)
        LITE_EXPECT(lite_is_lite_path(obj),
                    "the program's OpenMP calls go to %s, not to libomp-lite "
                    "(set LITE_CHECK=stock to run on another runtime)", obj ? obj : "(unknown)");
    int n = lite_check_imports();
    if (lite_check_mode_is("only")) {
        const char *stock = NULL;
        dl_iterate_phdr(lite_phdr_cb, &stock);
        LITE_EXPECT(stock == NULL, "a stock libgomp is mapped in the process: %s", stock);
    }
    printf("%s: runs on %s (%d OpenMP imports checked)\n", test_name, obj ? obj : "libomp-lite", n);
    fflush(stdout);
}

/* The first number of an environment variable such as OMP_NUM_THREADS=3,2, or dflt when unset. */
static long lite_env_first_long(const char *name, long dflt) __attribute__((unused));
static long lite_env_first_long(const char *name, long dflt)
{
    const char *s = getenv(name);
    return s && *s ? strtol(s, NULL, 10) : dflt;
}

/* The address of a function as a data pointer, for dladdr. */
#define LITE_FN_ADDR(f) ((const void *)(uintptr_t)&(f))
#define LITE_CHECK(test_name) lite_check_runtime((test_name), LITE_FN_ADDR(omp_get_num_threads))

#endif
