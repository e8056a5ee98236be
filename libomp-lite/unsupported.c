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





UNSUPPORTED(omp_get_num_places, AFFINITY)
UNSUPPORTED(omp_get_num_places_, AFFINITY)
UNSUPPORTED(omp_get_partition_num_places, AFFINITY)
UNSUPPORTED(omp_get_partition_num_places_, AFFINITY)
UNSUPPORTED(omp_get_partition_place_nums, AFFINITY)
UNSUPPORTED(omp_get_partition_place_nums_, AFFINITY)
UNSUPPORTED(omp_get_partition_place_nums_8_, AFFINITY)
UNSUPPORTED(omp_get_place_num, AFFINITY)
UNSUPPORTED(omp_get_place_num_, AFFINITY)
UNSUPPORTED(omp_get_place_num_procs, AFFINITY)
UNSUPPORTED(omp_get_place_num_procs_, AFFINITY)
UNSUPPORTED(omp_get_place_num_procs_8_, AFFINITY)
UNSUPPORTED(omp_get_place_proc_ids, AFFINITY)
UNSUPPORTED(omp_get_place_proc_ids_, AFFINITY)
UNSUPPORTED(omp_get_place_proc_ids_8_, AFFINITY)

