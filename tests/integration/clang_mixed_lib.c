/* clang_mixed_lib: a shared library built by gcc -fopenmp (libgomp's ABI), loaded by the
   clang-built clang_abi for its `mixed` part: its regions and queries must run on the same
   runtime, pool and numbering as the program's. */
#include <omp.h>

/* A region of nthreads (0: the ICV's); reports the level and ancestor its thread 0 saw, and
   returns the team size. */
int mixed_region(int nthreads, int *level_seen, int *outer_id_seen)
{
    int n = 0;
#pragma omp parallel num_threads(nthreads > 0 ? nthreads : omp_get_max_threads())
    {
#pragma omp master
        {
            n = omp_get_num_threads();
            *level_seen = omp_get_level();
            *outer_id_seen = omp_get_ancestor_thread_num(omp_get_level() - 1);
        }
    }
    return n;
}

int mixed_thread_num(void) { return omp_get_thread_num(); }
