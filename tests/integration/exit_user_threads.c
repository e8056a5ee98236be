/* exit() from a user thread while other user threads are inside parallel regions (issue 51:
   "SIGSEGV once in 81 runs" on the drop-in route). Several pthreads each run parallel regions
   in a loop, each its own root with its own team; once every root is inside its loop, one of
   them calls exit(0) while the others are still running regions. The process must end with
   status 0: no crash in the runtime's exit path (its destructor, thread-exit hooks, workers
   still running) and no hang. A loop of runs of this program is the test (run-routes.sh).

   ROUNDS: the regions each root runs before it counts as started (0: exit as soon as every
   root has entered its first region, while the others may still be starting their workers);
   INSIDE 1: the exit is called by a member of a region (thread 1 of the last root's team,
   thread 0 if the team has one thread), not between regions.

   usage: exit_user_threads [ROOTS [THREADS [ROUNDS [INSIDE]]]] */
#include "lite_check.h"
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>

#define MAXROOTS 16

static atomic_int started;
static int nroots;
static int nthreads;
static long rounds_first;
static int inside;
static _Thread_local volatile long sink; /* per root: the roots do not share it */

static void *root_main(void *arg)
{
    int index = (int)(long)arg;
    long rounds = 0;
    for (;;) {
        long sum = 0;
#pragma omp parallel num_threads(nthreads) reduction(+:sum)
        {
            sum += omp_get_thread_num() + 1;
            if (rounds == 0 && omp_get_thread_num() == 0)
                atomic_fetch_add(&started, 1);
            if (inside && index == nroots - 1 && rounds > rounds_first &&
                atomic_load(&started) >= nroots && omp_get_thread_num() == (nthreads > 1))
                exit(0);
#pragma omp barrier
#pragma omp for schedule(dynamic)
            for (int i = 0; i < 64; i++)
                sum += i & 1;
        }
        sink += sum;
        /* Serial work between regions, as a program has: the root's pool is idle then, which
           the old unload took as free to shut down while the root was about to fork on it. */
        for (int k = 0; k < 1000 * (index + 1); k++)
            sink += k;
        /* The last root leaves once all are inside their loops: the others are mid-region. */
        if (++rounds > rounds_first && !inside && index == nroots - 1 &&
            atomic_load(&started) >= nroots)
            exit(0);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    LITE_CHECK("exit_user_threads");
    nroots = argc > 1 ? atoi(argv[1]) : 4;
    nthreads = argc > 2 ? atoi(argv[2]) : 2;
    rounds_first = argc > 3 ? atol(argv[3]) : 20;
    inside = argc > 4 ? atoi(argv[4]) : 0;
    LITE_EXPECT(nroots >= 2 && nroots <= MAXROOTS, "2 to %d roots", MAXROOTS);
    LITE_EXPECT(nthreads >= 1, "a team of at least one thread");
    pthread_t t[MAXROOTS];
    for (int i = 0; i < nroots; i++)
        LITE_EXPECT(pthread_create(&t[i], NULL, root_main, (void *)(long)i) == 0,
                    "pthread_create");
    for (int i = 0; i < nroots; i++)
        pthread_join(t[i], NULL);
    lite_fail("no root called exit()");
}
