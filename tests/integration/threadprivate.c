/* threadprivate: values persist from one region to the next when the regions have the same number
   of threads, dyn-var is false and they are not nested (OpenMP's condition), including a large
   threadprivate array and regions separated by serial code; copyin; thread 0's copy is the
   initial thread's.

   usage: threadprivate [REGIONS [THREADS]] */
#include "lite_check.h"
#include <omp.h>

#define BIG 4096

static int tp_int = -1;
static double tp_double = -1.0;
static long tp_big[BIG];
static int tp_copied = 7;
#pragma omp threadprivate(tp_int, tp_double, tp_big, tp_copied)

int main(int argc, char **argv)
{
    LITE_CHECK("threadprivate");
    int regions = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (regions <= 0)
        regions = nt <= 4 ? 1000 : nt <= 16 ? 200 : 50;
    omp_set_dynamic(0);

    /* Every thread starts from the initial values of its copy. */
    int bad_init = 0;
#pragma omp parallel num_threads(nt) reduction(+:bad_init)
    {
        if (omp_get_thread_num() != 0 && (tp_int != -1 || tp_double != -1.0 || tp_big[7] != 0))
            bad_init++;
        int t = omp_get_thread_num();
        tp_int = t * 1000;
        tp_double = t + 0.25;
        for (int i = 0; i < BIG; i++)
            tp_big[i] = (long)t * BIG + i;
    }
    LITE_EXPECT(bad_init == 0, "%d threads started with a non-initial threadprivate copy",
                bad_init);

    /* Each region checks what the same thread number left in the previous one, then moves it
       on; serial code between regions. */
    volatile long serial = 0;
    for (int r = 1; r <= regions; r++) {
        int bad = 0;
#pragma omp parallel num_threads(nt) reduction(+:bad)
        {
            int t = omp_get_thread_num();
            if (tp_int != t * 1000 + r - 1 || tp_double != t + 0.25 * r ||
                tp_big[r % BIG] != (long)t * BIG + r % BIG)
                bad++;
            tp_int = t * 1000 + r;
            tp_double = t + 0.25 * (r + 1);
        }
        LITE_EXPECT(bad == 0, "region %d: %d threads found another thread's or a stale "
                    "threadprivate value", r, bad);
        for (int i = 0; i < 100; i++)
            serial += i;
        if (r % 100 == 0) {
            /* The initial thread is thread 0: its copy is visible outside the regions. */
            LITE_EXPECT(tp_int == r, "after region %d the initial thread's copy is %d", r, tp_int);
        }
    }

    /* copyin: every thread's copy takes the initial thread's value. */
    for (int rep = 0; rep < 50; rep++) {
        tp_copied = 500 + rep;
        int bad = 0;
#pragma omp parallel num_threads(nt) copyin(tp_copied) reduction(+:bad)
        {
            if (tp_copied != 500 + rep)
                bad++;
            tp_copied = -omp_get_thread_num();
        }
        LITE_EXPECT(bad == 0, "copyin %d: %d threads did not get the value", rep, bad);
        LITE_EXPECT(tp_copied == 0, "thread 0's copy after copyin is %d", tp_copied);
    }

    printf("threadprivate: OK (%d threads, %d regions)\n", nt, regions);
    return 0;
}
