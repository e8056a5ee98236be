/* Barriers: many iterations, each checks that no thread is let through before every thread has
   arrived (phase slots) and that writes before the barrier are seen after it (counter). Direct and
   orphaned barriers, barriers in many short regions, a barrier in a team of one.

   usage: barrier [ITERATIONS [THREADS]]   (0 or absent: defaults; THREADS 0: the default team) */
#include "lite_check.h"
#include <omp.h>

#define MAXT 256

struct slot { int phase; char pad[60]; } __attribute__((aligned(64)));
static struct slot slots[MAXT];
static int counter;

static void orphan_barrier(void)
{
#pragma omp barrier
}

static void phases(int iters)
{
    int me = omp_get_thread_num(), nt = omp_get_num_threads();
    for (int it = 1; it <= iters; it++) {
        slots[me].phase = it;
        if (it % 4 == 0)
            orphan_barrier();
        else {
#pragma omp barrier
        }
        for (int k = 0; k < nt; k++)
            LITE_EXPECT(slots[k].phase == it, "iteration %d: thread %d passed the barrier while "
                        "thread %d was at phase %d (team of %d)", it, me, k, slots[k].phase, nt);
        __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
#pragma omp barrier
        int c = __atomic_load_n(&counter, __ATOMIC_RELAXED);
        LITE_EXPECT(c == it * nt, "iteration %d: thread %d sees the counter at %d after the "
                    "barrier, expected %d", it, me, c, it * nt);
    }
}

int main(int argc, char **argv)
{
    LITE_CHECK("barrier");
    int iters = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    LITE_EXPECT(nt >= 1 && nt <= MAXT, "team of %d out of range", nt);
    if (iters <= 0)  /* about 10000 barrier passes per thread at 2 threads, fewer when crowded */
        iters = nt <= 2 ? 5000 : nt <= 4 ? 2000 : nt <= 16 ? 500 : 100;

    int size = 0;
    counter = 0;
#pragma omp parallel num_threads(nt)
    {
#pragma omp master
        size = omp_get_num_threads();
        phases(iters);
    }
    LITE_EXPECT(size == nt, "a team of %d, expected %d", size, nt);

    /* Barriers right after the fork and right before the join of many short regions. */
    int regions = iters / 20 + 10;
    for (int r = 0; r < regions; r++) {
        counter = 0;
#pragma omp parallel num_threads(nt)
        {
#pragma omp barrier
            phases(2);
#pragma omp barrier
        }
        LITE_EXPECT(counter == 2 * nt, "short region %d: counter %d, expected %d", r, counter,
                    2 * nt);
    }

    /* A barrier in a team of one is a no-op. */
    int zero = 0;
    counter = 0;
#pragma omp parallel if(zero)
    phases(10);

    printf("barrier: OK (%d threads, %d iterations, %d short regions)\n", nt, iters, regions);
    return 0;
}
