/* atomic: updates of every width gcc handles inline, and of the types it cannot do lock-free, for
   which it brackets a plain update with GOMP_atomic_start/GOMP_atomic_end (long double, __int128
   without cmpxchg16b); capture forms hand out unique tickets; read/write of a long double never
   shows a torn value.

   usage: atomic [UPDATES_PER_THREAD [THREADS]] */
#include "lite_check.h"
#include <omp.h>

#define MAXT 256

static char c8;
static short s16;
static int i32;
static long i64;
static float f32;
static double f64;
static long double f80;
static __int128 i128;
static long double torn_probe;

int main(int argc, char **argv)
{
    LITE_CHECK("atomic");
    int per = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (per <= 0)
        per = 40000 / nt + 50;
    static int *seen;
    seen = calloc((size_t)nt * (size_t)per, sizeof *seen);
    LITE_EXPECT(seen != NULL, "out of memory");

    int size = 0, bad_tickets = 0, torn = 0;
#pragma omp parallel num_threads(nt) reduction(+:bad_tickets, torn)
    {
#pragma omp master
        size = omp_get_num_threads();
        int tid = omp_get_thread_num();
        for (int i = 0; i < per; i++) {
#pragma omp atomic
            c8 ^= (char)(1 << (tid % 7));
#pragma omp atomic
            s16 += 1;
#pragma omp atomic update
            i32 += 2;
#pragma omp atomic
            i64 += 3;
#pragma omp atomic
            f32 += 1.0f;
#pragma omp atomic
            f64 += 0.5;
#pragma omp atomic
            f80 += 0.25L;
#pragma omp atomic
            i128 += ((__int128)1 << 70) + 1;

            /* capture: every ticket handed out exactly once */
            long t;
#pragma omp atomic capture
            t = i64++;
            long ticket = t;
            (void)ticket;
            int v;
#pragma omp atomic capture
            { v = i32; i32 += 1; }
            if (v < 0)
                bad_tickets++;

            /* long double read/write through the runtime's atomic lock: a reader sees one of the
               values written, never a mix of two */
            if (tid % 2 == 0) {
                /* integer part k, fraction k * 2^-40: exact in a long double's 64-bit mantissa */
#pragma omp atomic write
                torn_probe = (long double)(tid + 1) + (long double)(tid + 1) / 1099511627776.0L;
            } else {
                long double r;
#pragma omp atomic read
                r = torn_probe;
                long k = (long)r;
                if (r != 0.0L && ((r - (long double)k) * 1099511627776.0L != (long double)k ||
                                  k < 1 || k > nt))
                    torn++;
            }
        }
    }
    LITE_EXPECT(size == nt, "a team of %d, expected %d", size, nt);
    long n = size;
    long total = n * per;

    /* A separate pass for the tickets, so the counter starts from zero. */
    long next = 0;
#pragma omp parallel num_threads(nt)
    for (int i = 0; i < per; i++) {
        long t;
#pragma omp atomic capture
        t = next++;
        if (t >= 0 && t < total)
            __atomic_fetch_add(&seen[t], 1, __ATOMIC_RELAXED);
        else
            __atomic_fetch_add(&bad_tickets, 1, __ATOMIC_RELAXED);
    }
    for (long t = 0; t < total; t++)
        LITE_EXPECT(seen[t] == 1, "atomic capture: ticket %ld handed out %d times", t, seen[t]);
    LITE_EXPECT(next == total, "atomic capture: counter %ld, expected %ld", next, total);
    LITE_EXPECT(bad_tickets == 0, "atomic capture: %d tickets out of range", bad_tickets);

    char c8_want = 0;
    for (int k = 0; k < size; k++)
        if (per % 2)
            c8_want ^= (char)(1 << (k % 7));
    LITE_EXPECT(c8 == c8_want, "char ^= : %d, expected %d", c8, c8_want);
    LITE_EXPECT(s16 == (short)total, "short += 1: %d, expected %d", s16, (short)total);
    LITE_EXPECT(i32 == 3 * total, "int += 2 (and capture += 1): %d, expected %ld", i32,
                3 * total);
    LITE_EXPECT(i64 == 4 * total, "long += 3 (and capture ++): %ld, expected %ld", i64,
                4 * total);
    LITE_EXPECT(f32 == (float)total, "float += 1: %g, expected %ld", f32, total);
    LITE_EXPECT(f64 == 0.5 * total, "double += 0.5: %g, expected %g", f64, 0.5 * total);
    LITE_EXPECT(f80 == 0.25L * total, "long double += 0.25 (GOMP_atomic_start): %Lg, "
                "expected %Lg", f80, 0.25L * total);
    __int128 i128_want = (((__int128)1 << 70) + 1) * total;
    LITE_EXPECT(i128 == i128_want, "__int128 += 2^70+1: wrong sum (low word %lu, expected %lu)",
                (unsigned long)i128, (unsigned long)i128_want);
    LITE_EXPECT(torn == 0, "atomic read of a long double saw %d torn values", torn);

    free(seen);
    printf("atomic: OK (%d threads, %d updates each)\n", nt, per);
    return 0;
}
