/* The program's heap: one setting of glibc's malloc, made at load, so that a program that
   allocates its temporaries at every time step keeps reusing the same pages.

   glibc's malloc starts with a mmap threshold of 128 KiB and a trim threshold of 128 KiB, and
   adjusts both as the program runs: when a mmapped block is freed, the mmap threshold rises to
   its size (at most 32 MiB) and the trim threshold to twice that. A code whose temporaries are a
   few arrays of ~1 MiB each, malloc'd at every step and freed at its end (bench/heapchurn.c),
   then gets them from the heap's top from the second step on, and at the end of the step the
   freed top, 24 MiB against a trim threshold of 2 MiB, goes back to the kernel. The next step
   grows the heap again (brk) and faults in and zeroes every page: 35 brk calls and ~6000 page
   faults a step, 1947 brk calls in 55 steps, 6-15 ms of system time a step (2 threads, 2 CPUs,
   131072 cells), under stock libgomp and libomp-lite alike.

   LLVM's libomp escapes it by accident: at load it mallocs and frees a block of 1 MiB, which
   raises the mmap threshold just above the program's 1 MiB arrays, so the first step's
   temporaries come from the heap; then, as the first parallel region opens inside that step, the
   runtime's own lasting allocations (thread and team descriptors) land above them and pin the
   heap's top, which can never be trimmed again (30 brk calls in 55 steps, 1.3 ms of system time
   a step). A program whose first parallel region comes before its first step (heapchurn -p)
   churns under LLVM too: 1986 brk calls. libomp-lite's first-region allocations land below the
   temporaries (the first step's are still mmapped then); pinning the top on purpose would help
   only programs of that one shape.

   So at load libomp-lite sets the two thresholds to where glibc's own adjustment ends once the
   program has freed a 32 MiB block: blocks up to 32 MiB come from the heap, and up to 64 MiB
   of free memory at the heap's top stays with the process. heapchurn then makes ~0 brk calls a
   step and faults no pages after the first; the price is resident memory: up to 64 MiB of freed
   memory per arena is kept rather than returned (docs/history/benchmarks-2026.md, "The heap churn").

   What the user set wins. Nothing is set when any of glibc's variables for these settings is in
   the environment (MALLOC_TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_, MALLOC_TOP_PAD_,
   MALLOC_MMAP_MAX_, or the same settings in GLIBC_TUNABLES), nor with OMPLITE_HEAP_KEEP=false.
   A program's own mallopt comes after this constructor (libomp-lite, preloaded or linked, is
   initialised before the program's code runs), so it replaces these values. Loaded later, by
   dlopen (a Python program whose numpy loads OpenBLAS, which loads libomp-lite as its
   libgomp.so.1), it cannot tell whether the program has called mallopt already (glibc has no
   way to read the thresholds back), so it sets nothing once the process's heap holds more than
   LITE_HEAP_STARTED bytes: a process starting up has used a few hundred KiB at most when the
   libraries' constructors run (python3 itself: 4 MiB and more by the time it imports numpy). */
#include "internal.h"
#include "env.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

/* glibc's ceiling for its dynamic mmap threshold on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX),
   and the trim threshold its adjustment pairs with it. */
#define LITE_HEAP_MMAP_THRESHOLD (32 << 20)
#define LITE_HEAP_TRIM_THRESHOLD (64 << 20)
/* More than this in malloc's hands (heap and mmapped blocks) at load: the program is running. */
#define LITE_HEAP_STARTED (2u << 20)

bool lite_heap_user_set(lite_getenv_fn get)
{
  static const char *const vars[] = {
    "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_MMAP_MAX_",
  };
  static const char *const tunables[] = {
    "glibc.malloc.trim_threshold", "glibc.malloc.mmap_threshold", "glibc.malloc.top_pad",
    "glibc.malloc.mmap_max",
  };
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
    if (get(vars[i]) != NULL)
      return true;
  const char *t = get("GLIBC_TUNABLES");
  if (t != NULL)
    for (size_t i = 0; i < sizeof tunables / sizeof tunables[0]; i++)
      if (strstr(t, tunables[i]) != NULL)
        return true;
  return false;
}

static const char *process_getenv(const char *name) { return getenv(name); }

bool lite_heap_init(void)
{
#ifdef __SANITIZE_THREAD__
  /* ThreadSanitizer's runtime replaces malloc: glibc's thresholds would govern nothing. */
  return false;
#endif
  if (!lite_env.heap_keep || lite_heap_user_set(process_getenv))
    return false;
  struct mallinfo2 mi = mallinfo2();
  if (mi.arena + mi.hblkhd > LITE_HEAP_STARTED)
    return false;
  /* The mmap threshold first: either call alone turns glibc's adjustment off, and a trim
     threshold with the mmap threshold left at 128 KiB would put every array in its own mapping,
     unmapped and faulted in again at every step just the same. */
  if (mallopt(M_MMAP_THRESHOLD, LITE_HEAP_MMAP_THRESHOLD) != 1)
    return false;
  return mallopt(M_TRIM_THRESHOLD, LITE_HEAP_TRIM_THRESHOLD) == 1;
}
