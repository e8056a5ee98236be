/* User threads as roots: several pthreads, each its own initial thread, run many parallel regions
   at the same time, with barriers, reductions and single; each keeps its own nthreads-var
   (omp_set_num_threads in one root does not change another's teams); unnamed critical sections
   exclude across all the roots' teams.

   usage: root_threads [REGIONS [ROOTS]] */
#include "lite_check.h"
#include <omp.h>
#include <pthread.h>

#define MAXROOTS 16
#define MAXT 8

static int regions;
static long critical_count;

struct root {
    int index;
    pthread_t thread;
    int failures;
    char message[200];
};

static void *root_main(void *arg)
{
    struct root *me = arg;
    int want = 2 + me->index % 3;  /* 2, 3 or 4 threads per region */
    LITE_EXPECT(omp_get_level() == 0 && !omp_in_parallel() && omp_get_thread_num() == 0,
                "root %d: not an initial thread (level %d)", me->index, omp_get_level());
    omp_set_num_threads(want);
    for (int r = 0; r < regions && !me->failures; r++) {
        int slots[MAXT] = { 0 };
        long sum = 0;
        int size = 0, single_runs = 0, phase_errors = 0;
#pragma omp parallel reduction(+:sum, phase_errors)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp master
            size = n;
            if (n <= MAXT) {
                slots[t] = r + 1;
#pragma omp barrier
                for (int k = 0; k < n; k++)
                    if (slots[k] != r + 1)
                        phase_errors++;
#pragma omp barrier
            }
#pragma omp single
            single_runs++;
#pragma omp critical
            critical_count++;
            sum += t + 1;
            if (omp_get_level() != 1 || omp_get_ancestor_thread_num(1) != t)
                phase_errors++;
        }
        long n = size;
        if (size != want || sum != n * (n + 1) / 2 || single_runs != 1 || phase_errors) {
            snprintf(me->message, sizeof me->message, "root %d region %d: team %d (expected %d), "
                     "sum %ld, single ran %d times, %d barrier/level errors", me->index, r, size,
                     want, sum, single_runs, phase_errors);
            me->failures++;
        }
        if (omp_get_max_threads() != want) {
            snprintf(me->message, sizeof me->message, "root %d: nthreads-var changed to %d "
                     "(another root's omp_set_num_threads?)", me->index, omp_get_max_threads());
            me->failures++;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    static struct root roots[MAXROOTS];
    LITE_CHECK("root_threads");
    regions = argc > 1 ? atoi(argv[1]) : 0;
    int nroots = argc > 2 ? atoi(argv[2]) : 4;
    if (regions <= 0)
        regions = 1000;
    LITE_EXPECT(nroots >= 1 && nroots <= MAXROOTS, "1 to %d roots", MAXROOTS);

    /* The main thread uses OpenMP first, so its team exists while the roots start theirs. */
    long warm = 0;
#pragma omp parallel reduction(+:warm)
    warm += 1;
    LITE_EXPECT(warm == omp_get_max_threads(), "main thread's region: %ld", warm);

    long expected_critical = 0;
    for (int i = 0; i < nroots; i++) {
        roots[i].index = i;
        expected_critical += (long)regions * (2 + i % 3);
        LITE_EXPECT(pthread_create(&roots[i].thread, NULL, root_main, &roots[i]) == 0,
                    "pthread_create failed");
    }
    /* The main thread keeps running regions of its own meanwhile. */
    for (int r = 0; r < regions; r++) {
        long s = 0;
#pragma omp parallel num_threads(2) reduction(+:s)
        {
#pragma omp critical
            critical_count++;
            s += omp_get_thread_num() + 1;
        }
        LITE_EXPECT(s == 3, "main thread region %d: sum %ld", r, s);
    }
    expected_critical += 2L * regions;
    int failed = 0;
    for (int i = 0; i < nroots; i++) {
        pthread_join(roots[i].thread, NULL);
        if (roots[i].failures) {
            fprintf(stderr, "root_threads: %s\n", roots[i].message);
            failed++;
        }
    }
    LITE_EXPECT(!failed, "%d of %d root threads saw wrong results", failed, nroots);
    LITE_EXPECT(critical_count == expected_critical, "critical across roots: %ld, expected %ld",
                critical_count, expected_critical);

    /* Roots that come and go: a new pthread per region, many times. */
    for (int i = 0; i < 40; i++) {
        struct root one = { .index = i };
        int saved = regions;
        regions = 3;
        LITE_EXPECT(pthread_create(&one.thread, NULL, root_main, &one) == 0,
                    "pthread_create failed");
        pthread_join(one.thread, NULL);
        regions = saved;
        LITE_EXPECT(!one.failures, "short-lived root: %s", one.message);
    }

    printf("root_threads: OK (%d roots, %d regions each)\n", nroots, regions);
    return 0;
}
