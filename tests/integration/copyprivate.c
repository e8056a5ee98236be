/* single copyprivate (GOMP_single_copy_start/end): the executing thread's private values reach
   every thread, for several types at once (int, double, long double, a struct with an array, a
   pointer, a threadprivate variable), over many iterations, and a single with copyprivate
   immediately followed by another.

   usage: copyprivate [ITERATIONS [THREADS]] */
#include "lite_check.h"
#include <omp.h>

struct blob {
    int a[7];
    char name[24];
    short s;
};

static int tp;
#pragma omp threadprivate(tp)

static void make_blob(struct blob *b, int it, int tid)
{
    for (int i = 0; i < 7; i++)
        b->a[i] = it * 31 + i * 7 + tid;
    snprintf(b->name, sizeof b->name, "it%d-t%d", it, tid);
    b->s = (short)(it ^ 0x5a5a);
}

int main(int argc, char **argv)
{
    LITE_CHECK("copyprivate");
    int iters = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (iters <= 0)
        iters = nt <= 4 ? 1500 : nt <= 16 ? 500 : 100;

    static int shared_array[64];
    int failures = 0;
#pragma omp parallel num_threads(nt) reduction(+:failures)
    {
        int tid = omp_get_thread_num();
        for (int it = 0; it < iters; it++) {
            int i = -1, who = -1;
            double d = -1.0;
            long double ld = -1.0L;
            struct blob b;
            int *p = NULL;
            memset(&b, 0, sizeof b);
            tp = -tid - 1;
#pragma omp single copyprivate(i, d, ld, b, p, who, tp)
            {
                who = tid;
                i = it * 3 + 1;
                d = it * 0.5 + tid;
                ld = (long double)it * 1e-3L + tid;
                make_blob(&b, it, tid);
                p = &shared_array[it % 64];
                tp = it * 11 + tid;
            }
            struct blob expect;
            memset(&expect, 0, sizeof expect);
            make_blob(&expect, it, who);
            if (who < 0 || who >= omp_get_num_threads() || i != it * 3 + 1 ||
                d != it * 0.5 + who || ld != (long double)it * 1e-3L + who ||
                memcmp(&b, &expect, sizeof b) != 0 || p != &shared_array[it % 64] ||
                tp != it * 11 + who) {
                fprintf(stderr, "copyprivate: iteration %d thread %d: wrong values (executor %d, "
                        "i=%d, d=%g, blob %s, p %s, tp=%d)\n", it, tid, who, i, d, b.name,
                        p == &shared_array[it % 64] ? "ok" : "wrong", tp);
                failures++;
            }
            /* Back to back: a second copyprivate single with no other code between. */
            int j = -1;
#pragma omp single copyprivate(j)
            j = it + 1000;
            if (j != it + 1000)
                failures++;
        }
    }
    LITE_EXPECT(failures == 0, "%d wrong copyprivate broadcasts (see above)", failures);
    printf("copyprivate: OK (%d threads, %d iterations)\n", nt, iters);
    return 0;
}
