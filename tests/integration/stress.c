/* stress: random nesting from several user threads, every result checked (issue 26).

   usage: stress [REGIONS [USERS]]   (default 2000 regions for each of 3 user threads)
          REGIONS 0: run for STRESS_SECONDS seconds instead (tests/stress-soak.sh)

   Each user thread (a pthread of the program) runs REGIONS top-level regions. A region's team
   has 1 to nthreads-var threads (OMP_NUM_THREADS: run at 2 and 16), and inside it, up to 3
   levels deep, nested regions of 1 to 4 threads, chosen at random but the same way in every
   member (the choices come from a seed all members share). Every region checks: the thread
   numbers, a reduction, a single that makes tasks (taskwait, then their sum), a critical
   section and an OpenMP lock that every member passes once, and a barrier. A wrong result
   stops the program (exit 1); a deadlock is the test's timeout. */
#include "lite_check.h"

#include <omp.h>
#include <pthread.h>
#include <time.h>

enum { MAX_LEVELS = 3 };

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

static int top_threads;

/* One region at nesting level `level` (1: top), whose choices come from seed. Returns the
   number of regions it ran, nested ones included. */
static long region(int level, unsigned seed)
{
    unsigned s = seed;
    int n = level == 1 ? 1 + (int)(next_rand(&s) % (unsigned)top_threads)
                       : 1 + (int)(next_rand(&s) % 4);
    int ntasks = (int)(next_rand(&s) % 6);
    int nest = level < MAX_LEVELS && next_rand(&s) % 4 == 0;
    unsigned child_seed = next_rand(&s) * 2654435761u + (unsigned)level;
    int size = 0;
    long idsum = 0, crit = 0, locked = 0, task_sum = 0, nested = 0, arrived = 0, bad = 0;
    omp_lock_t lock;
    omp_init_lock(&lock);
#pragma omp parallel num_threads(n) reduction(+ : idsum, nested, bad)
    {
        int t = omp_get_thread_num();
#pragma omp single
        size = omp_get_num_threads();
        idsum += t + 1;
#pragma omp critical
        crit++;
        omp_set_lock(&lock);
        locked++;
        omp_unset_lock(&lock);
#pragma omp atomic
        arrived++;
#pragma omp barrier
        bad += arrived != size; /* everyone arrived before anyone passed */
#pragma omp single
        {
            for (int k = 1; k <= ntasks; k++) {
#pragma omp task shared(task_sum) firstprivate(k)
                {
#pragma omp atomic
                    task_sum += k;
                }
            }
#pragma omp taskwait
            bad += task_sum != (long)ntasks * (ntasks + 1) / 2;
        }
        if (nest)
            nested += region(level + 1, child_seed + (unsigned)t);
    }
    omp_destroy_lock(&lock);
    long sz = size;
    LITE_EXPECT(size == n || (size >= 1 && size < n),
                "level %d: a team of %d for num_threads(%d)", level, size, n);
    LITE_EXPECT(idsum == sz * (sz + 1) / 2, "level %d: team of %d, thread numbers + 1 sum to %ld",
                level, size, idsum);
    LITE_EXPECT(crit == sz && locked == sz, "level %d: team of %d, critical %ld, lock %ld", level,
                size, crit, locked);
    LITE_EXPECT(bad == 0, "level %d: team of %d, %ld wrong barrier or task results", level, size,
                bad);
    LITE_EXPECT(task_sum == (long)ntasks * (ntasks + 1) / 2, "level %d: tasks summed to %ld",
                level, task_sum);
    return 1 + nested;
}

struct user {
    unsigned seed;
    int regions;
    double until; /* with regions 0: run until then (CLOCK_MONOTONIC seconds) */
    long ran;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void *user_main(void *arg)
{
    struct user *u = arg;
    unsigned s = u->seed;
    omp_set_max_active_levels(MAX_LEVELS); /* this thread's own ICVs, as libomp-lite keeps them */
    for (int i = 0; u->regions > 0 ? i < u->regions : now_s() < u->until; i++)
        u->ran += region(1, next_rand(&s));
    return NULL;
}

int main(int argc, char **argv)
{
    LITE_CHECK("stress");
    int regions = argc > 1 ? atoi(argv[1]) : 2000;
    int users = argc > 2 ? atoi(argv[2]) : 3;
    LITE_EXPECT(regions >= 0 && users > 0 && users <= 16, "usage: stress [REGIONS [USERS]]");
    double until = now_s() + (getenv("STRESS_SECONDS") ? atof(getenv("STRESS_SECONDS")) : 10);
    top_threads = omp_get_max_threads();
    omp_set_max_active_levels(MAX_LEVELS);
    struct user u[16];
    pthread_t th[16];
    for (int i = 0; i < users; i++) {
        u[i] = (struct user){ .seed = 12345u + 7919u * (unsigned)i, .regions = regions,
                              .until = until };
        LITE_EXPECT(pthread_create(&th[i], NULL, user_main, &u[i]) == 0, "pthread_create");
    }
    long total = 0;
    for (int i = 0; i < users; i++) {
        LITE_EXPECT(pthread_join(th[i], NULL) == 0, "pthread_join");
        total += u[i].ran;
    }
    printf("stress: %d user threads, %ld regions in all (top teams up to %d)\n", users, total,
           top_threads);
    return 0;
}
