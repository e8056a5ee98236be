/* Doacross loops: ordered(n) with depend(sink: ...) and depend(source). Each loop computes a
   recurrence that reads the values its sinks name, and the result is compared with the same
   recurrence computed sequentially (a value read before its source posted would be the
   sentinel, and the comparison would fail). Shapes: ordered(1) with sink i-1, with sinks i-1
   and i-3 (the latter outside the iteration space for the first iterations), step 2, counting
   down; ordered(2) wavefronts with sinks (i-1,j) and (i,j-1), and with (i-1,j+1) (outside the
   space at the last column); ordered(3); ordered(12), past the 8 dimensions libomp-lite once
   stopped at; collapse(2) ordered(2); unsigned long long; under
   static (default), static with chunks, dynamic, dynamic with chunks, guided and runtime
   schedules; in a region, nested in another, outside any region.

   Entry points (gcc 12, objdump): GOMP_loop_doacross_{static,dynamic,guided,runtime}_start,
   GOMP_loop_{static,dynamic,guided,runtime}_next, GOMP_doacross_post, GOMP_doacross_wait; the
   unsigned long long loops with variable bounds -> GOMP_loop_ull_doacross_*_start,
   GOMP_loop_ull_*_next, GOMP_doacross_ull_post, GOMP_doacross_ull_wait; GOMP_loop_end.
   (Stock libgomp 12 busy-waits in GOMP_doacross_wait: at 16 threads on 2 CPUs this program
   takes minutes there.)

   usage: ws_doacross */
#include "ws_test.h"

#define SENTINEL 0xdeadbeefu
#define N1 600
#define NI 40
#define NJ 37
#define NK 6

static unsigned a1[N1];
static unsigned a2[NI][NJ];
static unsigned a3[8][9][NK];
static int bad_read; /* a sink was passed before its source posted */

static unsigned rd(unsigned v)
{
    if (v == SENTINEL)
        bad_read = 1;
    return v;
}

static unsigned mix(unsigned x, long i) { return x * 2654435761u + (unsigned)i * 40503u + 1u; }

#define DOACROSS_FNS(sfx, ...)                                                                     \
    /* a[i] = mix(a[i-1], i) */                                                                    \
    static void d1_##sfx(long n)                                                                   \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__)                                                  \
        for (long i = 0; i < n; i++) {                                                             \
            WS_PRAGMA(omp ordered depend(sink: i - 1))                                             \
            a1[i] = mix(i > 0 ? rd(a1[i - 1]) : 7u, i);                                            \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }                                                                                              \
    /* a[i] = mix(a[i-1] + a[i-3], i): i-3 lies outside the space for i < 3 */                     \
    static void d1b_##sfx(long n)                                                                  \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__)                                                  \
        for (long i = 0; i < n; i++) {                                                             \
            if (i % 5 == 2)                                                                        \
                ws_work(400);                                                                      \
            WS_PRAGMA(omp ordered depend(sink: i - 1) depend(sink: i - 3))                         \
            a1[i] = mix((i > 0 ? rd(a1[i - 1]) : 7u) + (i > 2 ? rd(a1[i - 3]) : 5u), i);           \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }                                                                                              \
    /* step 2: i = 1, 3, 5, ...; the sink i - 2 is the previous iteration */                       \
    static void d1s_##sfx(long n)                                                                  \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__)                                                  \
        for (long i = 1; i < 2 * n; i += 2) {                                                      \
            WS_PRAGMA(omp ordered depend(sink: i - 2))                                             \
            a1[i / 2] = mix(i > 1 ? rd(a1[i / 2 - 1]) : 7u, i / 2);                                \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }                                                                                              \
    /* counting down: the sink i + 1 is the previous iteration */                                  \
    static void d1d_##sfx(long n)                                                                  \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__)                                                  \
        for (long i = n - 1; i >= 0; i--) {                                                        \
            WS_PRAGMA(omp ordered depend(sink: i + 1))                                             \
            a1[n - 1 - i] = mix(i < n - 1 ? rd(a1[n - 2 - i]) : 7u, n - 1 - i);                    \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }                                                                                              \
    /* 2D wavefront: a[i][j] = mix(a[i-1][j] + a[i][j-1]) */                                       \
    static void d2_##sfx(long ni, long nj)                                                         \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(2) __VA_ARGS__)                                                  \
        for (long i = 0; i < ni; i++)                                                              \
            for (long j = 0; j < nj; j++) {                                                        \
                WS_PRAGMA(omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1))               \
                a2[i][j] = mix((i > 0 ? rd(a2[i - 1][j]) : 3u) + (j > 0 ? rd(a2[i][j - 1]) : 1u),  \
                               i * 100 + j);                                                       \
                WS_PRAGMA(omp ordered depend(source))                                              \
            }                                                                                      \
    }                                                                                              \
    /* sinks (i-1, j+1) and (i, j-1): at the last column j+1 is outside the space */               \
    static void d2b_##sfx(long ni, long nj)                                                        \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(2) __VA_ARGS__)                                                  \
        for (long i = 0; i < ni; i++)                                                              \
            for (long j = 0; j < nj; j++) {                                                        \
                WS_PRAGMA(omp ordered depend(sink: i - 1, j + 1) depend(sink: i, j - 1))           \
                a2[i][j] = mix((i > 0 && j + 1 < nj ? rd(a2[i - 1][j + 1]) : 3u) +                 \
                               (j > 0 ? rd(a2[i][j - 1]) : 1u), i * 100 + j);                      \
                WS_PRAGMA(omp ordered depend(source))                                              \
            }                                                                                      \
    }                                                                                              \
    static void d3_##sfx(long ni, long nj, long nk)                                                \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(3) __VA_ARGS__)                                                  \
        for (long i = 0; i < ni; i++)                                                              \
            for (long j = 0; j < nj; j++)                                                          \
                for (long k = 0; k < nk; k++) {                                                    \
                    WS_PRAGMA(omp ordered depend(sink: i - 1, j, k) depend(sink: i, j - 1, k)      \
                              depend(sink: i, j, k - 1))                                           \
                    a3[i][j][k] = mix((i > 0 ? rd(a3[i - 1][j][k]) : 1u) +                         \
                                      (j > 0 ? rd(a3[i][j - 1][k]) : 2u) +                         \
                                      (k > 0 ? rd(a3[i][j][k - 1]) : 3u), i * 10000 + j * 100 + k);\
                    WS_PRAGMA(omp ordered depend(source))                                          \
                }                                                                                  \
    }                                                                                              \
    /* collapse(2) ordered(2): both loops are shared out as one */                                 \
    static void d2c_##sfx(long ni, long nj)                                                        \
    {                                                                                              \
        WS_PRAGMA(omp for collapse(2) ordered(2) __VA_ARGS__)                                      \
        for (long i = 0; i < ni; i++)                                                              \
            for (long j = 0; j < nj; j++) {                                                        \
                WS_PRAGMA(omp ordered depend(sink: i - 1, j) depend(sink: i, j - 1))               \
                a2[i][j] = mix((i > 0 ? rd(a2[i - 1][j]) : 3u) + (j > 0 ? rd(a2[i][j - 1]) : 1u),  \
                               i * 100 + j);                                                       \
                WS_PRAGMA(omp ordered depend(source))                                              \
            }                                                                                      \
    }                                                                                              \
    /* unsigned long long with variable bounds: gcc uses the _ull entry points */                  \
    static void du_##sfx(unsigned long long lo, unsigned long long hi)                             \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__)                                                  \
        for (unsigned long long u = lo; u < hi; u++) {                                             \
            long i = (long)(u - lo);                                                               \
            WS_PRAGMA(omp ordered depend(sink: u - 1))                                             \
            a1[i] = mix(i > 0 ? rd(a1[i - 1]) : 7u, i);                                            \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }                                                                                              \
    static void d2u_##sfx(unsigned long long lo, unsigned long long ni, unsigned long long nj)    \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(2) __VA_ARGS__)                                                  \
        for (unsigned long long u = lo; u < lo + ni; u++)                                          \
            for (unsigned long long v = lo; v < lo + nj; v++) {                                    \
                long i = (long)(u - lo), j = (long)(v - lo);                                       \
                WS_PRAGMA(omp ordered depend(sink: u - 1, v) depend(sink: u, v - 1))               \
                a2[i][j] = mix((i > 0 ? rd(a2[i - 1][j]) : 3u) + (j > 0 ? rd(a2[i][j - 1]) : 1u),  \
                               i * 100 + j);                                                       \
                WS_PRAGMA(omp ordered depend(source))                                              \
            }                                                                                      \
    }

#define FOR_SCHEDS(X)                                                                              \
    X(def, )                                                                                       \
    X(st1, schedule(static, 1))                                                                    \
    X(st7, schedule(static, 7))                                                                    \
    X(dy, schedule(dynamic))                                                                       \
    X(dy4, schedule(dynamic, 4))                                                                   \
    X(gu, schedule(guided))                                                                        \
    X(rt, schedule(runtime))

FOR_SCHEDS(DOACROSS_FNS)

struct doacross {
    const char *name;
    void (*d1)(long), (*d1b)(long), (*d1s)(long), (*d1d)(long);
    void (*du)(unsigned long long, unsigned long long);
    void (*d2)(long, long), (*d2b)(long, long), (*d2c)(long, long);
    void (*d2u)(unsigned long long, unsigned long long, unsigned long long);
    void (*d3)(long, long, long);
};
#define ENTRY(sfx, ...)                                                                            \
    { "schedule " #__VA_ARGS__, d1_##sfx, d1b_##sfx, d1s_##sfx, d1d_##sfx, du_##sfx, d2_##sfx,     \
      d2b_##sfx, d2c_##sfx, d2u_##sfx, d3_##sfx },
static const struct doacross table[] = { FOR_SCHEDS(ENTRY) };
#define NTABLE ((int)(sizeof table / sizeof table[0]))

static char what[200];

static void fill(void)
{
    for (int i = 0; i < N1; i++)
        a1[i] = SENTINEL;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            a2[i][j] = SENTINEL;
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 9; j++)
            for (int k = 0; k < NK; k++)
                a3[i][j][k] = SENTINEL;
    bad_read = 0;
}

/* Sequential references. */
static void expect1(long n, int form, const char *how)
{
    unsigned prev = 7u, want[N1];
    for (long i = 0; i < n; i++) {
        if (form == 1)
            want[i] = mix((i > 0 ? want[i - 1] : 7u) + (i > 2 ? want[i - 3] : 5u), i);
        else
            want[i] = mix(prev, i);
        prev = want[i];
    }
    snprintf(what, sizeof what, "%s, %ld iterations, %d threads", how, n, omp_get_max_threads());
    LITE_EXPECT(!bad_read, "%s: a sink let an iteration read a value before its source posted",
                what);
    for (long i = 0; i < n; i++)
        LITE_EXPECT(a1[i] == want[i], "%s: a[%ld] = %#x, expected %#x", what, i, a1[i], want[i]);
    for (long i = n; i < N1; i++)
        LITE_EXPECT(a1[i] == SENTINEL, "%s: a[%ld] written, beyond the loop", what, i);
}

static void expect2(long ni, long nj, bool diagonal, const char *how)
{
    static unsigned want[NI][NJ];
    for (long i = 0; i < ni; i++)
        for (long j = 0; j < nj; j++) {
            unsigned up = diagonal ? (i > 0 && j + 1 < nj ? want[i - 1][j + 1] : 3u)
                                   : (i > 0 ? want[i - 1][j] : 3u);
            want[i][j] = mix(up + (j > 0 ? want[i][j - 1] : 1u), i * 100 + j);
        }
    snprintf(what, sizeof what, "%s, %ld x %ld, %d threads", how, ni, nj, omp_get_max_threads());
    LITE_EXPECT(!bad_read, "%s: a sink let an iteration read a value before its source posted",
                what);
    for (long i = 0; i < ni; i++)
        for (long j = 0; j < nj; j++)
            LITE_EXPECT(a2[i][j] == want[i][j], "%s: a[%ld][%ld] = %#x, expected %#x", what, i, j,
                        a2[i][j], want[i][j]);
}

static void expect3(long ni, long nj, long nk, const char *how)
{
    static unsigned want[8][9][NK];
    for (long i = 0; i < ni; i++)
        for (long j = 0; j < nj; j++)
            for (long k = 0; k < nk; k++)
                want[i][j][k] = mix((i > 0 ? want[i - 1][j][k] : 1u) +
                                    (j > 0 ? want[i][j - 1][k] : 2u) +
                                    (k > 0 ? want[i][j][k - 1] : 3u), i * 10000 + j * 100 + k);
    snprintf(what, sizeof what, "%s, %ld x %ld x %ld, %d threads", how, ni, nj, nk,
             omp_get_max_threads());
    LITE_EXPECT(!bad_read, "%s: a sink let an iteration read a value before its source posted",
                what);
    for (long i = 0; i < ni; i++)
        for (long j = 0; j < nj; j++)
            for (long k = 0; k < nk; k++)
                LITE_EXPECT(a3[i][j][k] == want[i][j][k], "%s: a[%ld][%ld][%ld] = %#x, expected "
                            "%#x", what, i, j, k, a3[i][j][k], want[i][j][k]);
}

static void run_all(const struct doacross *d, bool in_region)
{
    static const long ns[] = { 0, 1, 2, 5, 97, N1 };
    char how[120];
    for (unsigned s = 0; s < sizeof ns / sizeof ns[0]; s++) {
        long n = ns[s];
        fill();
        if (in_region) {
#pragma omp parallel
            d->d1(n);
        } else {
            d->d1(n);
        }
        snprintf(how, sizeof how, "ordered(1) sink i-1, %s", d->name);
        expect1(n, 0, how);
        fill();
        if (in_region) {
#pragma omp parallel
            d->d1b(n);
        } else {
            d->d1b(n);
        }
        snprintf(how, sizeof how, "ordered(1) sinks i-1 and i-3, %s", d->name);
        expect1(n, 1, how);
        fill();
        if (in_region) {
#pragma omp parallel
            d->d1s(n);
        } else {
            d->d1s(n);
        }
        snprintf(how, sizeof how, "ordered(1) step 2 sink i-2, %s", d->name);
        expect1(n, 0, how);
        fill();
        if (in_region) {
#pragma omp parallel
            d->d1d(n);
        } else {
            d->d1d(n);
        }
        snprintf(how, sizeof how, "ordered(1) counting down sink i+1, %s", d->name);
        expect1(n, 0, how);
        fill();
        if (in_region) {
#pragma omp parallel
            d->du(ULLONG_MAX - (unsigned long long)n, ULLONG_MAX);
        } else {
            d->du(ULLONG_MAX - (unsigned long long)n, ULLONG_MAX);
        }
        snprintf(how, sizeof how, "ordered(1) unsigned long long near ULLONG_MAX, %s", d->name);
        expect1(n, 0, how);
    }
    static const long dims[][3] = { { NI, NJ, NK }, { 1, NJ, 1 }, { NI, 1, 2 }, { 0, 5, 1 },
                                    { 8, 9, NK }, { 3, 0, 0 } };
    for (unsigned s = 0; s < sizeof dims / sizeof dims[0]; s++) {
        long ni = dims[s][0], nj = dims[s][1], nk = dims[s][2];
        fill();
        if (in_region) {
#pragma omp parallel
            d->d2(ni, nj);
        } else {
            d->d2(ni, nj);
        }
        snprintf(how, sizeof how, "ordered(2) sinks (i-1,j) (i,j-1), %s", d->name);
        expect2(ni, nj, false, how);
        fill();
        if (in_region) {
#pragma omp parallel
            d->d2b(ni, nj);
        } else {
            d->d2b(ni, nj);
        }
        snprintf(how, sizeof how, "ordered(2) sinks (i-1,j+1) (i,j-1), %s", d->name);
        expect2(ni, nj, true, how);
        fill();
        if (in_region) {
#pragma omp parallel
            d->d2c(ni, nj);
        } else {
            d->d2c(ni, nj);
        }
        snprintf(how, sizeof how, "collapse(2) ordered(2), %s", d->name);
        expect2(ni, nj, false, how);
        fill();
        unsigned long long lo = ULLONG_MAX - 100;
        if (in_region) {
#pragma omp parallel
            d->d2u(lo, (unsigned long long)ni, (unsigned long long)nj);
        } else {
            d->d2u(lo, (unsigned long long)ni, (unsigned long long)nj);
        }
        snprintf(how, sizeof how, "ordered(2) unsigned long long near ULLONG_MAX, %s", d->name);
        expect2(ni, nj, false, how);
        if (ni <= 8 && nj <= 9) {
            fill();
            if (in_region) {
#pragma omp parallel
                d->d3(ni, nj, nk);
            } else {
                d->d3(ni, nj, nk);
            }
            snprintf(how, sizeof how, "ordered(3), %s", d->name);
            expect3(ni, nj, nk, how);
        }
    }
}

/* ordered(12): more ordered dimensions than libomp-lite once had room for (it stopped at 8 and
   aborted beyond); gcc sets no bound (GCC's libgomp.c/doacross-1.c uses 61). The outer loop is
   shared out, the 11 inner ones run 1 to 3 iterations each (96 per outer iteration). Sinks: the
   previous outer iteration at the same inner position, the previous iteration of the innermost
   loop (outside the space where it is 0), and the previous outer iteration one step further along
   the outermost inner loop (outside the space at its last iteration): a runtime that folds the 11
   inner positions in the wrong order lets that one through early. Each iteration checks with
   atomic reads that the iterations its sinks name are done, then marks itself done, once. */
#define M0 30
#define M1 2
#define M2 3
#define M3 1
#define M4 2
#define M5 1
#define M6 2
#define M7 1
#define M8 1
#define M9 2
#define M10 1
#define M11 2
static const long mtrips[12] = { M0, M1, M2, M3, M4, M5, M6, M7, M8, M9, M10, M11 };
#define MINNER (M1 * M2 * M3 * M4 * M5 * M6 * M7 * M8 * M9 * M10 * M11)

static int mdone[M0][MINNER];
static int mlate;  /* sinks whose iteration was not done yet when passed */
static int mtwice; /* iterations that ran more than once */

/* The position of v[1..11] within one outer iteration, the innermost loop varying fastest. */
static long mflat(const long *v)
{
    long f = 0;
    for (int d = 1; d < 12; d++)
        f = f * mtrips[d] + v[d];
    return f;
}

static int mis_done(long i0, long f)
{
    int x;
#pragma omp atomic read
    x = mdone[i0][f];
    return x;
}

static void many_dims_iteration(const long *v)
{
    long f = mflat(v);
    int late = 0, old;
    if (v[0] > 0 && !mis_done(v[0] - 1, f))
        late++;
    if (v[11] > 0 && !mis_done(v[0], f - 1))
        late++;
    if (v[0] > 0 && v[1] + 1 < M1) {
        long w[12];
        memcpy(w, v, sizeof w);
        w[1]++;
        if (!mis_done(v[0] - 1, mflat(w)))
            late++;
    }
    if (late) {
#pragma omp atomic update
        mlate += late;
    }
#pragma omp atomic capture
    { old = mdone[v[0]][f]; mdone[v[0]][f] = 1; }
    if (old) {
#pragma omp atomic update
        mtwice++;
    }
}

#define MANY_DIMS_FN(sfx, ...)                                                                     \
    static void dm_##sfx(long n0)                                                                  \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(12) __VA_ARGS__)                                                 \
        for (long i0 = 0; i0 < n0; i0++)                                                           \
        /* the 11 inner loops, perfectly nested, one per line */                                   \
        for (long i1 = 0; i1 < M1; i1++)                                                           \
        for (long i2 = 0; i2 < M2; i2++)                                                           \
        for (long i3 = 0; i3 < M3; i3++)                                                           \
        for (long i4 = 0; i4 < M4; i4++)                                                           \
        for (long i5 = 0; i5 < M5; i5++)                                                           \
        for (long i6 = 0; i6 < M6; i6++)                                                           \
        for (long i7 = 0; i7 < M7; i7++)                                                           \
        for (long i8 = 0; i8 < M8; i8++)                                                           \
        for (long i9 = 0; i9 < M9; i9++)                                                           \
        for (long i10 = 0; i10 < M10; i10++)                                                       \
        for (long i11 = 0; i11 < M11; i11++) {                                                     \
            const long v[12] = { i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11 };               \
            WS_PRAGMA(omp ordered depend(sink: i0 - 1, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10,    \
                                              i11)                                                 \
                                 depend(sink: i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10,         \
                                              i11 - 1)                                             \
                                 depend(sink: i0 - 1, i1 + 1, i2, i3, i4, i5, i6, i7, i8, i9,      \
                                              i10, i11))                                           \
            many_dims_iteration(v);                                                                \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }

MANY_DIMS_FN(st1, schedule(static, 1))
MANY_DIMS_FN(dy, schedule(dynamic))
MANY_DIMS_FN(def, )

static void expect_many_dims(long n0, const char *how)
{
    char w[200];
    snprintf(w, sizeof w, "ordered(12), %s, %ld x %d iterations, %d threads", how, n0, MINNER,
             omp_get_max_threads());
    LITE_EXPECT(mlate == 0, "%s: %d sinks passed before their iterations were done", w, mlate);
    LITE_EXPECT(mtwice == 0, "%s: %d iterations ran more than once", w, mtwice);
    for (long i = 0; i < M0; i++)
        for (long f = 0; f < MINNER; f++)
            LITE_EXPECT(mdone[i][f] == (i < n0), "%s: iteration (%ld, inner position %ld) %s", w,
                        i, f, i < n0 ? "did not run" : "ran, beyond the loop");
}

static void run_many_dims(void)
{
    static const struct { const char *name; void (*fn)(long); } scheds[] = {
        { "schedule(static, 1)", dm_st1 },
        { "schedule(dynamic)", dm_dy },
        { "schedule default", dm_def },
    };
    static const long n0s[] = { 0, 1, 2, 7, M0 };
    char how[120];
    for (unsigned s = 0; s < sizeof scheds / sizeof scheds[0]; s++)
        for (unsigned k = 0; k < sizeof n0s / sizeof n0s[0]; k++)
            for (int in_region = 1; in_region >= 0; in_region--) {
                memset(mdone, 0, sizeof mdone);
                mlate = mtwice = 0;
                if (in_region) {
#pragma omp parallel
                    scheds[s].fn(n0s[k]);
                } else {
                    scheds[s].fn(n0s[k]);
                }
                snprintf(how, sizeof how, "%s, %s", scheds[s].name,
                         in_region ? "in a region" : "outside any region");
                expect_many_dims(n0s[k], how);
            }
}

/* A loop nest with no iterations in some ordered dimension: gfortran then leaves the trip counts
   after that dimension unset (libgomp.fortran/doacross3.f90, a collapse(2) ordered(4) nest whose
   innermost loop is empty, passed stack garbage there, and libomp-lite stopped now and then on a
   count "past 2^64"). The entry point is called as gfortran calls it, with huge values where its
   garbage was, so that the case is the same at every run: no depend clause can run in such a
   loop, and the runtime must not read those counts. The outer iterations are still handed out. */
bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                     long *iend);
bool GOMP_loop_static_next(long *istart, long *iend);
void GOMP_loop_end(void);

static void unset_counts(long outer)
{
    long counts[4] = { outer, 0, LONG_MAX, LONG_MAX };
    long handed = 0;
    if (outer == 0)
        counts[1] = counts[2] = LONG_MAX; /* nothing after an empty outer dimension is set */
#pragma omp parallel
    {
        long s, e, mine = 0;
        if (GOMP_loop_doacross_static_start(4, counts, 0, &s, &e))
            do
                mine += e - s;
            while (GOMP_loop_static_next(&s, &e));
        GOMP_loop_end();
#pragma omp atomic
        handed += mine;
    }
    LITE_EXPECT(handed == outer, "doacross nest of %ld outer iterations with an empty dimension "
                "and unset counts after it: %ld outer iterations handed out", outer, handed);
}

int main(void)
{
    LITE_CHECK("ws_doacross");
    unset_counts(0);
    unset_counts(5);
    ws_note("doacross nests with an empty dimension: ok");
    for (int t = 0; t < NTABLE; t++)
        run_all(&table[t], true);
    ws_note("doacross loops in a region: ok");
    for (int t = 0; t < NTABLE; t++)
        run_all(&table[t], false);
    ws_note("doacross loops outside any region: ok");
    run_many_dims();
    ws_note("ordered(12) loops: ok");
    /* Nested: an inner team of 3 in each of two outer threads, one after the other (the arrays
       are shared, so the two inner loops must not run at the same time). */
    for (int t = 0; t < NTABLE; t++) {
        fill();
#pragma omp parallel num_threads(2)
        {
            for (int o = 0; o < 2; o++) {
                if (omp_get_thread_num() == o) {
#pragma omp parallel num_threads(3)
                    table[t].d2(NI, NJ);
                }
#pragma omp barrier
            }
        }
        char how[100];
        snprintf(how, sizeof how, "nested ordered(2), %s", table[t].name);
        expect2(NI, NJ, false, how);
    }
    ws_note("PASS");
    return 0;
}
