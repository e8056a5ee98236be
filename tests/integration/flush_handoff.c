/* Handing data between threads through flags, in the style of the OpenMP Examples' memory-model
   programs: the producer writes plain data, flushes, sets a flag with an atomic write; the consumer
   spins on an atomic read of the flag, flushes, reads the data. The runtime is not involved in
   the waiting at all: a runtime that runs team members one after another on one thread, or that
   does not give each member a thread of its own, deadlocks here (the runner's timeout catches it).
   Pairs (thread 2k feeds 2k+1, which acknowledges), then a token passed around a ring of all threads
   with release/acquire atomics.

   usage: flush_handoff [ROUNDS [THREADS]] */
#include "lite_check.h"
#include <omp.h>

#define MAXT 256

struct line { int v; char pad[60]; } __attribute__((aligned(64)));
static struct line data[MAXT], flag[MAXT], ack[MAXT], token[MAXT];

static int read_flag(int *p)
{
    int v;
#pragma omp atomic read
    v = *p;
    return v;
}

/* (gcc 12 warns that v is unused: its lowering of atomic write hides the use.) */
static void write_flag(int *p, int v __attribute__((unused)))
{
#pragma omp atomic write
    *p = v;
}

int main(int argc, char **argv)
{
    LITE_CHECK("flush_handoff");
    int rounds = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (nt < 2)
        nt = 2;
    LITE_EXPECT(nt <= MAXT, "too many threads");
    /* More spinning threads than processors: a handoff may wait for the scheduler to run the
       other side (a tick, milliseconds), so far fewer rounds. */
    if (rounds <= 0)
        rounds = nt <= omp_get_num_procs() ? 3000 : 200 / nt + 5;

    int size = 0, bad = 0;
#pragma omp parallel num_threads(nt) reduction(+:bad)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp master
        size = n;
        int pair = me / 2;
        int partner = me ^ 1;
        if (partner < n) {
            for (int r = 1; r <= rounds; r++) {
                if (me % 2 == 0) {
                    data[pair].v = r * 3 + pair;  /* plain write */
#pragma omp flush
                    write_flag(&flag[pair].v, r);
                    while (read_flag(&ack[pair].v) != r) { }
#pragma omp flush
                } else {
                    while (read_flag(&flag[pair].v) != r) { }
#pragma omp flush
                    if (data[pair].v != r * 3 + pair)  /* plain read */
                        bad++;
#pragma omp flush
                    write_flag(&ack[pair].v, r);
                }
            }
        }
#pragma omp barrier
        /* The ring: thread k waits for the token from k-1, adds to the shared datum, passes on. */
        int ring_rounds = rounds / n + 1;
        for (int r = 0; r < ring_rounds; r++) {
            int expect = r * n + me;
            if (me != 0 || r != 0) {
                int prev = me == 0 ? n - 1 : me - 1;
                int v;
                do {
#pragma omp atomic read acquire
                    v = token[prev].v;
                } while (v != expect);
            }
            if (data[MAXT - 1].v != expect)
                bad++;
            data[MAXT - 1].v = expect + 1;
#pragma omp atomic write release
            token[me].v = expect + 1;
        }
    }
    LITE_EXPECT(size == nt, "a team of %d, expected %d", size, nt);
    LITE_EXPECT(bad == 0, "%d handoffs saw stale data after the flag", bad);
    printf("flush_handoff: OK (%d threads, %d rounds)\n", nt, rounds);
    return 0;
}
