/* ompt_reentry.c: the program ompt_reentry.sh runs under ompt_reentry_tool.c, whose callbacks
   start regions of their own: outermost regions with a loop and an explicit barrier, nested
   regions, a few hundred of them, each checking its team and its results. Prints
   "app: done" at the end; "app: WRONG ..." on a wrong result.

   usage: ompt_reentry [REGIONS] */
#include "lite_check.h"
#include <omp.h>

int main(int argc, char **argv)
{
    LITE_CHECK("ompt_reentry");
    int regions = argc > 1 ? atoi(argv[1]) : 100;
    int want = omp_get_max_threads();
    for (int r = 0; r < regions; r++) {
        long sum = 0;
        int size = 0, wrong = 0;
#pragma omp parallel reduction(+:sum, wrong)
        {
            int n = omp_get_num_threads();
#pragma omp master
            size = n;
#pragma omp for schedule(dynamic, 3)
            for (int i = 0; i < 100; i++)
                sum += i;
#pragma omp barrier
            if (r % 10 == 0) {
#pragma omp parallel num_threads(2) reduction(+:wrong)
                wrong += omp_get_level() != 2;
            }
            wrong += omp_get_level() != 1;
        }
        if (size != want || sum != 4950 || wrong) {
            printf("app: WRONG region %d: team %d (expected %d), sum %ld, %d wrong levels\n", r,
                   size, want, sum, wrong);
            return 1;
        }
    }
    printf("app: done\n");
    return 0;
}
