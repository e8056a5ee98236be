/* sections: each section runs exactly once, with more sections than threads and fewer, as a
   combined parallel sections, as sections inside a parallel region (with and without nowait,
   long nowait chains whose threads drift apart, so that the runtime's ring of worksharing entries
   turns over), orphaned, outside any region, nested; lastprivate (the lexically last section's
   value), lastprivate(conditional:) (the value from the last section that assigned it), and
   reductions.

   Entry points (gcc 12, objdump): parallel sections -> GOMP_parallel_sections +
   GOMP_sections_next + GOMP_sections_end_nowait; with a reduction clause -> GOMP_parallel +
   GOMP_sections_start; sections -> GOMP_sections_start/_next/_end[_nowait];
   lastprivate(conditional:) -> GOMP_sections2_start (with its scratch memory).

   usage: ws_sections */
/* gcc 12 warns about its own temporary for lastprivate(conditional:). */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "ws_test.h"

#define MAXS 24
static int shits[MAXS];
static long lp, lpc, red;

#define SEC(k)                                                                                     \
    _Pragma("omp section")                                                                         \
    {                                                                                              \
        ws_hit(shits, k);                                                                          \
        if ((k) % 4 == 1)                                                                          \
            ws_work(2000);                                                                         \
    }
/* Writes lp, lpc and red: a construct that uses it makes private (or lastprivate, or a
   reduction) every one of them, so that no two sections race on one. */
#define SEC_LP(k)                                                                                  \
    _Pragma("omp section")                                                                         \
    {                                                                                              \
        ws_hit(shits, k);                                                                          \
        lp = 100 + (k);                                                                            \
        if ((k) % 3 == 0)                                                                          \
            lpc = 1000 + (k);                                                                      \
        red += (k) + 1;                                                                            \
        if ((k) % 4 == 1)                                                                          \
            ws_work(1000);                                                                         \
    }
#define SECS3(M, b) M(b) M(b + 1) M(b + 2)
#define SECS10(M) SECS3(M, 0) SECS3(M, 3) SECS3(M, 6) M(9)
#define SECS23(M) SECS3(M, 0) SECS3(M, 3) SECS3(M, 6) SECS3(M, 9) SECS3(M, 12) SECS3(M, 15)       \
    SECS3(M, 18) M(21) M(22)

/* Orphaned sections constructs. */
static void sections1(void)
{
#pragma omp sections
    {
        SEC(0)
    }
}
static void sections3(void)
{
#pragma omp sections
    {
        SECS3(SEC, 0)
    }
}
static void sections10(void)
{
#pragma omp sections
    {
        SECS10(SEC)
    }
}
static void sections23_nowait(void)
{
#pragma omp sections nowait
    {
        SECS23(SEC)
    }
}
static void sections3_nowait(void)
{
#pragma omp sections nowait
    {
        SECS3(SEC, 0)
    }
}
static void sections_lastprivate(void)
{
#pragma omp sections lastprivate(lp) reduction(+: red) private(lpc)
    {
        SECS10(SEC_LP)
    }
}
static void sections_conditional(void)
{
#pragma omp sections lastprivate(conditional: lpc) private(lp, red)
    {
        SECS10(SEC_LP)
    }
}

static char what[200];

static void expect_sections(int n, int times, const char *how)
{
    snprintf(what, sizeof what, "%s (%d sections, %d threads)", how, n, omp_get_max_threads());
    ws_expect_hits(shits, n, times, what);
}

int main(void)
{
    LITE_CHECK("ws_sections");
    int nt = ws_threads();
    int reps = nt <= 4 ? 40 : 15;

    for (int r = 0; r < reps; r++) {
        /* Combined parallel sections: GOMP_parallel_sections. */
#pragma omp parallel sections
        {
            SEC(0)
        }
        expect_sections(1, 1, "parallel sections");
#pragma omp parallel sections
        {
            SECS3(SEC, 0)
        }
        expect_sections(3, 1, "parallel sections");
#pragma omp parallel sections num_threads(16)
        {
            SECS10(SEC)
        }
        expect_sections(10, 1, "parallel sections num_threads(16)");
#pragma omp parallel sections
        {
            SECS23(SEC)
        }
        expect_sections(23, 1, "parallel sections");
        /* With clauses: GOMP_parallel + GOMP_sections_start. */
        lp = -1;
        red = 7;
#pragma omp parallel sections lastprivate(lp) reduction(+: red) private(lpc)
        {
            SECS10(SEC_LP)
        }
        expect_sections(10, 1, "parallel sections lastprivate reduction");
        LITE_EXPECT(lp == 109, "%s: lastprivate gave %ld, expected 109", what, lp);
        LITE_EXPECT(red == 7 + 55, "%s: reduction gave %ld, expected 62", what, red);
    }
    ws_note("parallel sections: ok");

    for (int r = 0; r < reps; r++) {
        lp = -1;
        red = 0;
        lpc = -1;
#pragma omp parallel
        {
            sections1();
#pragma omp master
            LITE_EXPECT(shits[0] == 1, "sections: after its barrier, the section ran %d times",
                        shits[0]);
#pragma omp barrier
#pragma omp single
            shits[0] = 0;
            sections3();
            sections10();
            sections_lastprivate();
#pragma omp single
            LITE_EXPECT(lp == 109 && red == 55, "sections lastprivate reduction: lp %ld, "
                        "red %ld, expected 109 and 55", lp, red);
            sections_conditional();
        }
        for (int s = 0; s < 10; s++)
            LITE_EXPECT(shits[s] == (s < 3 ? 4 : 3), "sections in a region (3, 10, 10 with "
                        "lastprivate, 10 with conditional): section %d ran %d times, expected %d",
                        s, shits[s], s < 3 ? 4 : 3);
        memset(shits, 0, sizeof shits);
        LITE_EXPECT(lpc == 1009, "sections lastprivate(conditional:) gave %ld, expected 1009",
                    lpc);
    }
    ws_note("sections in a region: ok");

    /* Nowait chains: 12 constructs in a row, the team drifting apart, one thread held back. */
    for (int r = 0; r < reps / 4 + 1; r++) {
#pragma omp parallel
        {
            if (omp_get_thread_num() == omp_get_num_threads() - 1)
                ws_sleep_us(2000);
            for (int k = 0; k < 12; k++) {
                ws_drift(k);
                if (k % 2)
                    sections23_nowait();
                else
                    sections3_nowait();
            }
        }
        for (int s = 0; s < 23; s++)
            LITE_EXPECT(shits[s] == (s < 3 ? 12 : 6), "12 nowait sections constructs: section "
                        "%d ran %d times, expected %d", s, shits[s], s < 3 ? 12 : 6);
        memset(shits, 0, sizeof shits);
    }
    ws_note("nowait chains: ok");

    /* Outside any region: the initial thread runs every section, in order. */
    sections10();
    expect_sections(10, 1, "sections outside any region");
    sections23_nowait();
    expect_sections(23, 1, "nowait sections outside any region");
    lp = -1;
    red = 0;
    sections_lastprivate();
    LITE_EXPECT(lp == 109 && red == 55, "sections lastprivate outside any region: %ld %ld", lp,
                red);
    expect_sections(10, 1, "sections lastprivate outside any region");

    /* Nested: two outer threads each lead an inner team through its own sections. */
    for (int r = 0; r < 10; r++) {
#pragma omp parallel num_threads(2)
        {
#pragma omp parallel num_threads(3)
            {
                sections10();
                sections3_nowait();
            }
        }
        for (int s = 0; s < 10; s++)
            LITE_EXPECT(shits[s] == (s < 3 ? 4 : 2), "nested sections: section %d ran %d times",
                        s, shits[s]);
        memset(shits, 0, sizeof shits);
    }
    ws_note("PASS");
    return 0;
}
