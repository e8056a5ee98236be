/* Reductions: every C operator on a parallel region (several at once, which gcc combines under
   GOMP_atomic_start), a worksharing loop reduction, an array section, a user-defined reduction,
   reductions in nested regions, many regions in a row.

   usage: reduction [REGIONS [THREADS]] */
#include "lite_check.h"
#include <omp.h>

struct minmax { long lo, hi; };
#pragma omp declare reduction(mm : struct minmax : \
        omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
        omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = (struct minmax){ 1L << 60, -(1L << 60) })

int main(int argc, char **argv)
{
    LITE_CHECK("reduction");
    int regions = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    int nt = want > 0 ? want : omp_get_max_threads();
    if (regions <= 0)
        regions = nt <= 4 ? 2000 : nt <= 16 ? 300 : 60;

    for (int r = 0; r < regions; r++) {
        long sum = 0, prod = 1, mx = -1000, mn = 1000;
        int land = 1, lor = 0, band = ~0, bor = 0, bxor = 0, size = 0;
        double dsum = 0.0;
#pragma omp parallel num_threads(nt) reduction(+:sum, dsum) reduction(*:prod) \
        reduction(max:mx) reduction(min:mn) reduction(&&:land) reduction(||:lor) \
        reduction(&:band) reduction(|:bor) reduction(^:bxor)
        {
            int t = omp_get_thread_num();
#pragma omp master
            size = omp_get_num_threads();
            sum += t + r;
            dsum += 0.5 * t;
            prod *= (t % 3 == 0) ? 2 : 1;
            mx = mx > t * 10 + r % 7 ? mx : t * 10 + r % 7;
            mn = mn < t - 5 ? mn : t - 5;
            land = land && (t < 1000);
            lor = lor || (t == 1);
            band &= ~(1 << (t % 31));
            bor |= 1 << (t % 31);
            bxor ^= 1 << (t % 31);
        }
        LITE_EXPECT(size == nt, "region %d: a team of %d, expected %d", r, size, nt);
        long n = size, want_prod = 1;
        int want_band = ~0, want_bor = 0, want_bxor = 0;
        for (int t = 0; t < size; t++) {
            want_prod *= (t % 3 == 0) ? 2 : 1;
            want_band &= ~(1 << (t % 31));
            want_bor |= 1 << (t % 31);
            want_bxor ^= 1 << (t % 31);
        }
        LITE_EXPECT(sum == n * (n - 1) / 2 + n * r, "region %d: + gave %ld", r, sum);
        LITE_EXPECT(dsum == 0.25 * (double)(n * (n - 1)), "region %d: double + gave %g", r, dsum);
        LITE_EXPECT(prod == want_prod, "region %d: * gave %ld, expected %ld", r, prod, want_prod);
        LITE_EXPECT(mx == (n - 1) * 10 + r % 7, "region %d: max gave %ld", r, mx);
        LITE_EXPECT(mn == -5, "region %d: min gave %ld", r, mn);
        LITE_EXPECT(land == 1 && lor == (n > 1), "region %d: && gave %d, || gave %d", r, land,
                    lor);
        LITE_EXPECT(band == want_band && bor == want_bor && bxor == want_bxor,
                    "region %d: & | ^ gave %x %x %x, expected %x %x %x", r, band, bor, bxor,
                    want_band, want_bor, want_bxor);
    }

    /* A worksharing loop reduction inside a region, and a combined parallel for. */
    long n_iter = 100000, s1 = 0, s2 = 0;
#pragma omp parallel num_threads(nt)
    {
#pragma omp for reduction(+:s1)
        for (long i = 1; i <= n_iter; i++)
            s1 += i;
    }
    LITE_EXPECT(s1 == n_iter * (n_iter + 1) / 2, "for reduction: %ld", s1);
#pragma omp parallel for num_threads(nt) reduction(+:s2) schedule(static)
    for (long i = 1; i <= n_iter; i++)
        s2 += i % 7;
    long want2 = 0;
    for (long i = 1; i <= n_iter; i++)
        want2 += i % 7;
    LITE_EXPECT(s2 == want2, "parallel for reduction: %ld, expected %ld", s2, want2);

    /* An array section. */
    long hist[8] = { 0 };
#pragma omp parallel for num_threads(nt) reduction(+:hist[0:8]) schedule(static)
    for (int i = 0; i < 8000; i++)
        hist[i % 8] += i % 8;
    for (int k = 0; k < 8; k++)
        LITE_EXPECT(hist[k] == 1000L * k, "array section reduction: hist[%d]=%ld", k, hist[k]);

    /* A user-defined reduction. */
    struct minmax m = { 1L << 60, -(1L << 60) };
#pragma omp parallel for num_threads(nt) reduction(mm:m) schedule(static)
    for (long i = -500; i <= 700; i++) {
        if (i < m.lo) m.lo = i;
        if (i > m.hi) m.hi = i;
    }
    LITE_EXPECT(m.lo == -500 && m.hi == 700, "user-defined reduction: [%ld, %ld]", m.lo, m.hi);

    /* Nested: an inner reduction per outer thread, summed by the outer one. */
    omp_set_max_active_levels(2);
    long outer = 0;
#pragma omp parallel num_threads(2) reduction(+:outer)
    {
        long inner = 0;
#pragma omp parallel num_threads(3) reduction(+:inner)
        inner += omp_get_thread_num() + 1;
        outer += inner;
    }
    LITE_EXPECT(outer == 12, "nested reductions: %ld, expected 12", outer);

    printf("reduction: OK (%d threads, %d regions)\n", nt, regions);
    return 0;
}
