/* loop_order: each thread's chunks of a plain schedule(dynamic), schedule(guided) or
   schedule(runtime) loop come in increasing iteration order (issue 46).

   gcc compiles a plain schedule(dynamic) to the nonmonotonic entry points, so OpenMP lets the
   runtime hand a thread a lower chunk after a higher one; libgomp and LLVM never do, and
   programs rely on it. MEGAHIT 1.2.9 (a genome assembler) sorts its buckets largest first, runs
   a schedule(dynamic) loop over them and sizes each thread's scratch by the first bucket that
   thread gets: under libomp-lite's free stealing a thread met a bigger bucket later and the
   assembler aborted 3 runs in 6 at 2 threads. This program does the same: items sorted by
   size (largest first, and smallest first and even, so that stealing in order has work to
   balance), work proportional to the size, a per-thread scratch sized by the thread's first
   item, and a failure when a thread gets an item after a higher one. Every loop form gcc emits
   for these schedules: the separate loop (GOMP_loop_*_start), the combined parallel loop, the
   unsigned long long loop, and schedule(runtime) with omp_set_schedule. Each loop runs several
   times, so the call site's statistics (sched/site.c) see it stealing and not.

   usage: loop_order [ROUNDS]   (OMP_NUM_THREADS sets the team) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite_check.h"

#define NITEMS 240
#define MAXT 256

enum shape { DESCENDING, ASCENDING, EVEN };

static long item_size[NITEMS];
static long scratch_items; /* items sorted largest first: the first item sizes the scratch */
static int runs[NITEMS];

/* One thread's state, on its own lines. */
struct per_thread {
    long last;        /* the last item it ran in this loop, -1 before the first */
    long cap;         /* its scratch's size: its first item's */
    char *scratch;
    volatile double sink;
    char pad[64];
};
static struct per_thread per[MAXT];

static void set_shape(enum shape shape)
{
    for (long i = 0; i < NITEMS; i++)
        item_size[i] = shape == DESCENDING ? NITEMS - i : shape == ASCENDING ? i + 1 : 40;
    scratch_items = shape == DESCENDING;
    memset(runs, 0, sizeof runs);
}

static void reset_threads(void)
{
    for (int t = 0; t < MAXT; t++) {
        free(per[t].scratch);
        per[t].scratch = NULL;
        per[t].last = -1;
        per[t].cap = 0;
    }
}

/* The body of every loop: item i on the calling thread. */
static void run_item(const char *loop, long i)
{
    int t = omp_get_thread_num();
    struct per_thread *p = &per[t];
    if (p->last >= i)
        lite_fail("%s: thread %d ran item %ld after item %ld", loop, t, i, p->last);
    p->last = i;
    if (p->scratch == NULL) {
        p->cap = scratch_items ? item_size[i] : NITEMS;
        p->scratch = malloc((size_t)p->cap * 64);
        if (p->scratch == NULL)
            lite_fail("out of memory");
    }
    if (item_size[i] > p->cap)
        lite_fail("%s: thread %d: item %ld (size %ld) overruns the scratch sized by its first "
                  "(%ld)", loop, t, i, item_size[i], p->cap);
    double acc = 0;
    for (long k = 0; k < item_size[i] * 64; k++) {
        p->scratch[k] = (char)(k + i);
        acc += p->scratch[k] * 0.5;
    }
    p->sink = acc;
    __atomic_fetch_add(&runs[i], 1, __ATOMIC_RELAXED);
}

static void check_runs(const char *loop)
{
    for (long i = 0; i < NITEMS; i++)
        if (runs[i] != 1)
            lite_fail("%s: item %ld ran %d times", loop, i, runs[i]);
}

static void loops(enum shape shape, int rounds)
{
    for (int r = 0; r < rounds; r++) {
        set_shape(shape);
        reset_threads();
#pragma omp parallel
        {
#pragma omp for schedule(dynamic)
            for (long i = 0; i < NITEMS; i++)
                run_item("for schedule(dynamic)", i);
        }
        check_runs("for schedule(dynamic)");

        set_shape(shape);
        reset_threads();
#pragma omp parallel for schedule(dynamic, 3)
        for (long i = 0; i < NITEMS; i++)
            run_item("parallel for schedule(dynamic, 3)", i);
        check_runs("parallel for schedule(dynamic, 3)");

        set_shape(shape);
        reset_threads();
#pragma omp parallel
        {
#pragma omp for schedule(guided)
            for (long i = 0; i < NITEMS; i++)
                run_item("for schedule(guided)", i);
        }
        check_runs("for schedule(guided)");

        set_shape(shape);
        reset_threads();
#pragma omp parallel for schedule(guided, 2)
        for (unsigned long long u = 0; u < NITEMS; u++)
            run_item("parallel for schedule(guided, 2) (unsigned long long)", (long)u);
        check_runs("parallel for schedule(guided, 2) (unsigned long long)");

        set_shape(shape);
        reset_threads();
        omp_set_schedule(r % 2 ? omp_sched_guided : omp_sched_dynamic, 0);
#pragma omp parallel
        {
#pragma omp for schedule(runtime)
            for (long i = 0; i < NITEMS; i++)
                run_item("for schedule(runtime)", i);
        }
        check_runs("for schedule(runtime)");

        set_shape(shape);
        reset_threads();
#pragma omp parallel
        {
#pragma omp for schedule(dynamic) nowait
            for (unsigned long long u = 0; u < NITEMS; u++)
                run_item("for schedule(dynamic) nowait (unsigned long long)", (long)u);
        }
        check_runs("for schedule(dynamic) nowait (unsigned long long)");
    }
}

int main(int argc, char **argv)
{
    LITE_CHECK("loop_order");
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    if (omp_get_max_threads() > MAXT)
        lite_fail("at most %d threads", MAXT);
    loops(DESCENDING, rounds);
    loops(ASCENDING, rounds);
    loops(EVEN, rounds);
    reset_threads();
    printf("loop_order: OK (%d threads, %d rounds)\n", omp_get_max_threads(), rounds);
    return 0;
}
