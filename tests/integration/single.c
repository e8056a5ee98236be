/* single: exactly one thread executes each instance, with the implicit barrier and with nowait
   (where threads run ahead through many instances before the others reach the first), orphaned,
   and in a team of one.

   usage: single [ITERATIONS [THREADS]] */
#include "lite_check.h"
#include <omp.h>

#define MAXT 256
#define NOWAIT_MAX 20000

static int runs[NOWAIT_MAX];
static int runs_b[NOWAIT_MAX];
static int executor[NOWAIT_MAX];

static int orphan_single(int it)
{
    int mine = 0;
#pragma omp single
    {
        runs[it]++;
        mine = 1;
    }
    return mine;
}

int main(int argc, char **argv)
{
    LITE_CHECK("single");
    int iters = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (iters <= 0)
        iters = nt <= 4 ? 3000 : nt <= 16 ? 800 : 200;
    if (iters > NOWAIT_MAX)
        iters = NOWAIT_MAX;

    /* With the implicit barrier: after each single, its effect is visible to every thread. */
    int count = 0;
#pragma omp parallel num_threads(nt)
    {
        for (int it = 0; it < iters; it++) {
#pragma omp single
            {
                count++;
                executor[it] = omp_get_thread_num();
            }
            LITE_EXPECT(count == it + 1, "single %d: thread %d sees the count %d after the "
                        "single's barrier, expected %d", it, omp_get_thread_num(), count, it + 1);
#pragma omp barrier
        }
    }
    LITE_EXPECT(count == iters, "%d single instances executed %d times", iters, count);

    /* nowait: no barrier, threads may be many instances apart; each instance still runs once.
       Two singles per iteration, the second with a different body. */
    memset(runs, 0, sizeof runs);
    memset(runs_b, 0, sizeof runs_b);
    int mine_total = 0;
#pragma omp parallel num_threads(nt) reduction(+:mine_total)
    {
        for (int it = 0; it < iters; it++) {
#pragma omp single nowait
            {
                __atomic_fetch_add(&runs[it], 1, __ATOMIC_RELAXED);
                mine_total++;
            }
#pragma omp single nowait
            __atomic_fetch_add(&runs_b[it], 1, __ATOMIC_RELAXED);
            if (omp_get_thread_num() == 0 && it % 512 == 0)
                usleep(100);  /* let the others run ahead */
        }
    }
    for (int it = 0; it < iters; it++) {
        LITE_EXPECT(runs[it] == 1, "single nowait instance %d ran %d times", it, runs[it]);
        LITE_EXPECT(runs_b[it] == 1, "second single nowait instance %d ran %d times", it,
                    runs_b[it]);
    }
    LITE_EXPECT(mine_total == iters, "single nowait: executors counted %d, expected %d",
                mine_total, iters);

    /* Orphaned single, called from a function, across several regions. */
    memset(runs, 0, sizeof runs);
    int regions = 20, per = iters / regions + 1;
    for (int r = 0; r < regions; r++) {
        int executed = 0;
#pragma omp parallel num_threads(nt) reduction(+:executed)
        for (int i = 0; i < per; i++)
            executed += orphan_single(r * per + i);
        LITE_EXPECT(executed == per, "orphaned single in region %d: %d executions for %d "
                    "instances", r, executed, per);
    }
    for (int i = 0; i < regions * per; i++)
        LITE_EXPECT(runs[i] == 1, "orphaned single instance %d ran %d times", i, runs[i]);

    /* A team of one executes every single. */
    int zero = 0, alone = 0;
#pragma omp parallel if(zero)
    for (int i = 0; i < 10; i++) {
#pragma omp single
        alone++;
    }
    LITE_EXPECT(alone == 10, "team of one: %d of 10 singles ran", alone);

    printf("single: OK (%d threads, %d instances)\n", nt, iters);
    return 0;
}
