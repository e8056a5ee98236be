/* A small OpenMP program for the environment tests (run-routes.sh sets the variables and reads
   stderr): it runs a few regions and checks them, and prints nothing on stderr itself.

   usage: env_probe [--default-max | --any-team]
     --default-max: nthreads-var must be the default, one thread per processor (the bad value of
                    OMP_NUM_THREADS was ignored);
     --any-team:    a team smaller than nthreads-var is accepted (OMP_NUM_THREADS=100000). */
#include "lite_check.h"
#include <omp.h>

int main(int argc, char **argv)
{
    LITE_CHECK("env_probe");
    int max = omp_get_max_threads();
    int any_team = argc > 1 && strcmp(argv[1], "--any-team") == 0;
    if (argc > 1 && strcmp(argv[1], "--default-max") == 0)
        LITE_EXPECT(max == omp_get_num_procs(), "omp_get_max_threads()=%d, expected the default "
                    "%d (one per processor)", max, omp_get_num_procs());
    LITE_EXPECT(max >= 1, "omp_get_max_threads()=%d", max);

    for (int rep = 0; rep < 3; rep++) {
        int size = 0;
        long runs = 0, tidsum = 0;
#pragma omp parallel reduction(+:runs, tidsum)
        {
#pragma omp master
            size = omp_get_num_threads();
            runs++;
            tidsum += omp_get_thread_num();
        }
        long n = size;
        LITE_EXPECT(size >= 1 && size <= max, "a team of %d with omp_get_max_threads()=%d", size,
                    max);
        LITE_EXPECT(runs == n && tidsum == n * (n - 1) / 2, "team of %d: %ld runs, thread "
                    "numbers sum to %ld", size, runs, tidsum);
        if (!omp_get_dynamic() && !any_team)
            LITE_EXPECT(size == max, "dyn false: a team of %d, nthreads-var %d", size, max);
    }
    printf("env_probe: OK (max threads %d)\n", max);
    return 0;
}
