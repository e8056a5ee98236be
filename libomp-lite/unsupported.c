/* Entry points of constructs that libomp-lite does not implement yet.

   Each one stops the program with a message naming it. Under LD_PRELOAD, a symbol missing here
   would be taken from the stock libgomp that the binary also loads, and that library would run
   the construct without knowing libomp-lite's teams: silently wrong results. A clear stop is
   better. The ABI test counts these names as absent; each line goes when its construct lands. */
#include "internal.h"

static void __attribute__((noreturn)) unsupported(const char *name, const char *what)
{
  lite_fatal("libomp-lite " LITE_VERSION_STRING " does not implement %s yet (%s); run this "
             "program on the stock libgomp for now", name, what);
}

#define UNSUPPORTED(name, what)                                                                   \
  LITE_EXPORT void name(void);                                                                   \
  void name(void) { unsupported(#name, what); }

#define AFFINITY "places and thread affinity"





UNSUPPORTED(omp_capture_affinity, AFFINITY)
UNSUPPORTED(omp_capture_affinity_, AFFINITY)
UNSUPPORTED(omp_display_affinity, AFFINITY)
UNSUPPORTED(omp_display_affinity_, AFFINITY)
UNSUPPORTED(omp_get_affinity_format, AFFINITY)
UNSUPPORTED(omp_get_affinity_format_, AFFINITY)
UNSUPPORTED(omp_set_affinity_format, AFFINITY)
UNSUPPORTED(omp_set_affinity_format_, AFFINITY)

