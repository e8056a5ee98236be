/* Oversubscription: the usual correctness checks (every thread once, barrier phases, reduction,
   critical, single, copyprivate, locks, atomic) with far more threads than processors: the runner
   uses OMP_NUM_THREADS=4, 16 and 64, and the num_threads clause (an argument) for the same counts
   on this 2-processor machine. No timing is asserted; a runtime whose waits do not let the
   preempted threads run will only time out.

   usage: oversub [THREADS [ROUNDS]]   (THREADS 0 or absent: the default team) */
#include "lite_check.h"
#include <omp.h>

#define MAXT 256

struct slot { int v; char pad[60]; } __attribute__((aligned(64)));
static struct slot slots[MAXT];

int main(int argc, char **argv)
{
    LITE_CHECK("oversub");
    int want = argc > 1 ? atoi(argv[1]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    LITE_EXPECT(nt >= 1 && nt <= MAXT, "1 to %d threads", MAXT);
    if (rounds <= 0)
        rounds = 3000 / nt + 20;

    static int runs[MAXT];
    omp_lock_t lock;
    omp_init_lock(&lock);
    long crit = 0, locked = 0, atom = 0, singles = 0;
    int size = 0, bad = 0;
    for (int rep = 0; rep < 3; rep++) {
        memset(runs, 0, sizeof runs);
#pragma omp parallel num_threads(nt) reduction(+:bad)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp master
            size = n;
            runs[t]++;
            for (int r = 0; r < rounds; r++) {
                slots[t].v = r + rep * rounds;
#pragma omp barrier
                for (int k = 0; k < n; k++)
                    if (slots[k].v != r + rep * rounds)
                        bad++;
#pragma omp critical
                crit++;
                omp_set_lock(&lock);
                locked++;
                omp_unset_lock(&lock);
#pragma omp atomic
                atom++;
                int cp = -1;
#pragma omp single copyprivate(cp)
                {
                    singles++;
                    cp = r;
                }
                if (cp != r)
                    bad++;
            }
        }
        LITE_EXPECT(size == nt, "a team of %d, expected %d", size, nt);
        for (int k = 0; k < nt; k++)
            LITE_EXPECT(runs[k] == 1, "repetition %d: thread %d ran %d times", rep, k, runs[k]);
    }
    long want_each = 3L * nt * rounds;
    LITE_EXPECT(bad == 0, "%d barrier phase or copyprivate errors", bad);
    LITE_EXPECT(crit == want_each, "critical: %ld, expected %ld", crit, want_each);
    LITE_EXPECT(locked == want_each, "lock: %ld, expected %ld", locked, want_each);
    LITE_EXPECT(atom == want_each, "atomic: %ld, expected %ld", atom, want_each);
    LITE_EXPECT(singles == 3L * rounds, "single: %ld, expected %ld", singles, 3L * rounds);
    omp_destroy_lock(&lock);

    /* Many short regions at this size, with a reduction. */
    for (int r = 0; r < rounds; r++) {
        long s = 0;
#pragma omp parallel num_threads(nt) reduction(+:s)
        s += omp_get_thread_num() + 1;
        LITE_EXPECT(s == (long)nt * (nt + 1) / 2, "short region %d: sum %ld", r, s);
    }

    printf("oversub: OK (%d threads on %d processors, %d rounds)\n", nt, omp_get_num_procs(),
           rounds);
    return 0;
}
