/* Parallel regions: team size and thread numbers, every thread runs the region exactly once, the
   num_threads and if clauses, OMP_NUM_THREADS, omp_set_num_threads, and the pre-gcc-4.9 entry
   points GOMP_parallel_start/GOMP_parallel_end (gcc 12 emits GOMP_parallel; old binaries still
   call the pair, so it is called here directly). */
#include "lite_check.h"
#include <omp.h>

#define MAXT 256

/* The legacy ABI, declared here since gcc 12 no longer emits it. */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
void GOMP_parallel_end(void);
void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

struct team_record {
    int runs[MAXT];        /* how many times thread k ran the region body */
    int size_seen[MAXT];   /* omp_get_num_threads() as thread k saw it */
    int level_seen[MAXT];
    int in_parallel_seen[MAXT];
    int bad_tid;
};

static void record_body(struct team_record *r)
{
    int tid = omp_get_thread_num();
    if (tid < 0 || tid >= MAXT) {
        __atomic_store_n(&r->bad_tid, 1, __ATOMIC_RELAXED);
        return;
    }
    __atomic_fetch_add(&r->runs[tid], 1, __ATOMIC_RELAXED);
    r->size_seen[tid] = omp_get_num_threads();
    r->level_seen[tid] = omp_get_level();
    r->in_parallel_seen[tid] = omp_in_parallel();
}

/* Every thread 0..want-1 ran exactly once, saw team size want; none beyond. */
static void check_team(const struct team_record *r, int want, int want_in_parallel,
                       const char *what)
{
    LITE_EXPECT(!r->bad_tid, "%s: a thread number out of range", what);
    for (int k = 0; k < MAXT; k++) {
        if (k < want) {
            LITE_EXPECT(r->runs[k] == 1, "%s: thread %d ran the region %d times (team of %d)",
                        what, k, r->runs[k], want);
            LITE_EXPECT(r->size_seen[k] == want, "%s: thread %d saw omp_get_num_threads()=%d, "
                        "expected %d", what, k, r->size_seen[k], want);
            LITE_EXPECT(r->level_seen[k] == 1, "%s: thread %d saw omp_get_level()=%d, expected 1",
                        what, k, r->level_seen[k]);
            LITE_EXPECT(r->in_parallel_seen[k] == want_in_parallel,
                        "%s: thread %d saw omp_in_parallel()=%d, expected %d", what, k,
                        r->in_parallel_seen[k], want_in_parallel);
        } else {
            LITE_EXPECT(r->runs[k] == 0, "%s: thread number %d ran in a team of %d", what, k,
                        want);
        }
    }
}

static void legacy_body(void *data)
{
    record_body((struct team_record *)data);
}

static void check_sequential(const char *where)
{
    LITE_EXPECT(omp_get_num_threads() == 1, "%s: omp_get_num_threads()=%d outside any region",
                where, omp_get_num_threads());
    LITE_EXPECT(omp_get_thread_num() == 0, "%s: omp_get_thread_num()=%d outside any region",
                where, omp_get_thread_num());
    LITE_EXPECT(!omp_in_parallel(), "%s: omp_in_parallel() true outside any region", where);
    LITE_EXPECT(omp_get_level() == 0, "%s: omp_get_level()=%d outside any region", where,
                omp_get_level());
}

int main(void)
{
    static struct team_record r;
    char what[64];
    LITE_CHECK("parallel_basics");
    check_sequential("start");

    /* The processors: as many as the runner's nproc saw (LITE_TEST_NPROCS), whether or not
       OMP_PROC_BIND / OMP_PLACES bind the initial thread (libgomp counts them before binding). */
    long nprocs = lite_env_first_long("LITE_TEST_NPROCS", 0);
    if (nprocs > 0)
        LITE_EXPECT(omp_get_num_procs() == nprocs, "omp_get_num_procs()=%d, but %ld processors "
                    "are available to the process", omp_get_num_procs(), nprocs);

    /* The default team: OMP_NUM_THREADS when set (a plain number here), else one per processor. */
    int dflt = omp_get_max_threads();
    long env = lite_env_first_long("OMP_NUM_THREADS", 0);
    if (env > 0)
        LITE_EXPECT(dflt == env, "omp_get_max_threads()=%d, but OMP_NUM_THREADS=%ld", dflt, env);
    else
        LITE_EXPECT(dflt == omp_get_num_procs(), "omp_get_max_threads()=%d with OMP_NUM_THREADS "
                    "unset, omp_get_num_procs()=%d", dflt, omp_get_num_procs());
    LITE_EXPECT(dflt >= 1 && dflt <= MAXT, "omp_get_max_threads()=%d", dflt);
    LITE_EXPECT(!omp_get_dynamic(), "dyn-var is true by default");

    memset(&r, 0, sizeof r);
#pragma omp parallel
    record_body(&r);
    check_team(&r, dflt, dflt > 1, "default team");
    check_sequential("after the default region");

    /* num_threads clause, constant and computed, including more threads than processors. */
    static const int sizes[] = { 1, 2, 3, 4, 7, 8, 17, 2, 1, 5 };
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        memset(&r, 0, sizeof r);
#pragma omp parallel num_threads(n)
        record_body(&r);
        snprintf(what, sizeof what, "num_threads(%d)", n);
        check_team(&r, n, n > 1, what);
    }
    memset(&r, 0, sizeof r);
#pragma omp parallel num_threads(3)
    record_body(&r);
    check_team(&r, 3, 1, "num_threads(3) constant");

    /* if(0): a team of one; the region still counts as a (inactive) level. */
    int zero = 0;
    memset(&r, 0, sizeof r);
#pragma omp parallel if(zero) num_threads(4)
    {
        record_body(&r);
        LITE_EXPECT(omp_get_active_level() == 0, "if(0): omp_get_active_level()=%d",
                    omp_get_active_level());
    }
    check_team(&r, 1, 0, "if(0) num_threads(4)");
    int one = 1;
    memset(&r, 0, sizeof r);
#pragma omp parallel if(one) num_threads(4)
    record_body(&r);
    check_team(&r, 4, 1, "if(1) num_threads(4)");

    /* omp_set_num_threads sets the default of the following regions. */
    omp_set_num_threads(3);
    LITE_EXPECT(omp_get_max_threads() == 3, "omp_set_num_threads(3): omp_get_max_threads()=%d",
                omp_get_max_threads());
    memset(&r, 0, sizeof r);
#pragma omp parallel
    record_body(&r);
    check_team(&r, 3, 1, "after omp_set_num_threads(3)");
    omp_set_num_threads(dflt);

    /* Shared data written by each thread is visible to the initial thread after the region. */
    static int slot[MAXT];
#pragma omp parallel num_threads(6)
    slot[omp_get_thread_num()] = 100 + omp_get_thread_num();
    for (int k = 0; k < 6; k++)
        LITE_EXPECT(slot[k] == 100 + k, "slot %d holds %d after the region", k, slot[k]);

    /* Many regions in a row, alternating team sizes. */
    for (int it = 0; it < 2000; it++) {
        int n = 1 + it % 4;
        int count = 0;
#pragma omp parallel num_threads(n)
        {
#pragma omp atomic
            count += omp_get_thread_num() + 1;
        }
        LITE_EXPECT(count == n * (n + 1) / 2, "region %d (num_threads(%d)): sum of thread "
                    "numbers + 1 is %d, expected %d", it, n, count, n * (n + 1) / 2);
    }

    /* The pre-4.9 ABI: GOMP_parallel_start starts the team; the caller runs fn itself as
       thread 0, then GOMP_parallel_end joins. 0 threads means the default. */
    static const unsigned legacy_sizes[] = { 2, 4, 1, 0, 3 };
    for (unsigned i = 0; i < sizeof legacy_sizes / sizeof legacy_sizes[0]; i++) {
        unsigned n = legacy_sizes[i];
        for (int rep = 0; rep < 50; rep++) {
            memset(&r, 0, sizeof r);
            GOMP_parallel_start(legacy_body, &r, n);
            legacy_body(&r);
            GOMP_parallel_end();
            snprintf(what, sizeof what, "GOMP_parallel_start(%u)", n);
            check_team(&r, n ? (int)n : dflt, (n ? (int)n : dflt) > 1, what);
            check_sequential(what);
        }
    }
    /* And GOMP_parallel called by hand, which gcc 12 emits for every region. */
    memset(&r, 0, sizeof r);
    GOMP_parallel(legacy_body, &r, 5, 0);
    check_team(&r, 5, 1, "GOMP_parallel(5) by hand");
    check_sequential("end");

    printf("parallel_basics: OK (default team %d)\n", dflt);
    return 0;
}
