/* critical: unnamed and named sections, counts exact under contention (the increments are plain
   read-modify-write sequences, wrong unless the section excludes), at most one thread inside each
   name at any time, different names nested, a hint, orphaned sections, and criticals of different
   regions excluding each other (one name, one lock, process-wide).

   usage: critical [INCREMENTS_PER_THREAD [THREADS]] */
#include "lite_check.h"
#include <omp.h>

static long unnamed_count, alpha_count, beta_count, gamma_count, orphan_count;
static int inside_unnamed, inside_alpha, inside_beta;

/* A deliberately racy increment: load, a little work, store. */
static void slow_increment(long *p)
{
    long v = *(volatile long *)p;
    for (volatile int spin = 0; spin < 3; spin++) { }
    *(volatile long *)p = v + 1;
}

static void enter(int *inside, const char *name)
{
    int was = __atomic_fetch_add(inside, 1, __ATOMIC_ACQ_REL);
    LITE_EXPECT(was == 0, "two threads inside critical %s at once", name);
}

static void leave(int *inside)
{
    __atomic_fetch_sub(inside, 1, __ATOMIC_ACQ_REL);
}

static void orphan_critical(void)
{
#pragma omp critical
    {
        enter(&inside_unnamed, "(unnamed, orphaned)");
        slow_increment(&orphan_count);
        leave(&inside_unnamed);
    }
}

int main(int argc, char **argv)
{
    LITE_CHECK("critical");
    int per = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (per <= 0)
        per = 40000 / nt + 100;

    int size = 0;
#pragma omp parallel num_threads(nt)
    {
#pragma omp master
        size = omp_get_num_threads();
        for (int i = 0; i < per; i++) {
#pragma omp critical
            {
                enter(&inside_unnamed, "(unnamed)");
                slow_increment(&unnamed_count);
                leave(&inside_unnamed);
            }
#pragma omp critical(alpha)
            {
                enter(&inside_alpha, "alpha");
                slow_increment(&alpha_count);
                if (i % 8 == 0) {
                    /* A different name nested inside: allowed, and must not deadlock. */
#pragma omp critical(beta)
                    {
                        enter(&inside_beta, "beta");
                        slow_increment(&beta_count);
                        leave(&inside_beta);
                    }
                }
                leave(&inside_alpha);
            }
#pragma omp critical(beta)
            {
                enter(&inside_beta, "beta");
                slow_increment(&beta_count);
                leave(&inside_beta);
            }
#pragma omp critical(gamma) hint(omp_sync_hint_contended)
            slow_increment(&gamma_count);
            if (i % 4 == 0)
                orphan_critical();
        }
    }
    long n = size;
    LITE_EXPECT(size == nt, "a team of %d, expected %d", size, nt);
    LITE_EXPECT(unnamed_count == n * per, "unnamed critical: count %ld, expected %ld",
                unnamed_count, n * per);
    LITE_EXPECT(alpha_count == n * per, "critical(alpha): count %ld, expected %ld", alpha_count,
                n * per);
    long beta_want = n * per + n * ((per + 7) / 8);
    LITE_EXPECT(beta_count == beta_want, "critical(beta): count %ld, expected %ld", beta_count,
                beta_want);
    LITE_EXPECT(gamma_count == n * per, "critical(gamma) with a hint: count %ld, expected %ld",
                gamma_count, n * per);
    LITE_EXPECT(orphan_count == n * ((per + 3) / 4), "orphaned critical: count %ld, expected %ld",
                orphan_count, n * ((per + 3) / 4));

    /* One name excludes across all teams: nested regions, each with its own team, all inside
       the same name. */
    omp_set_max_active_levels(2);
    long across = 0;
#pragma omp parallel num_threads(2)
#pragma omp parallel num_threads(2)
    for (int i = 0; i < per / 4 + 10; i++) {
#pragma omp critical(across_teams)
        slow_increment(&across);
    }
    LITE_EXPECT(across == 4L * (per / 4 + 10), "critical across nested teams: count %ld, "
                "expected %ld", across, 4L * (per / 4 + 10));

    printf("critical: OK (%d threads, %d increments each)\n", nt, per);
    return 0;
}
