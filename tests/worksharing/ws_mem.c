/* The OpenMP 5.0 loop entry points and their shared scratch memory (GOMP_loop_start's and
   GOMP_sections2_start's mem argument): gcc 12 routes lastprivate(conditional:) and
   reduction(inscan, ...) with scan directives through them, keeping per-thread data in the
   memory the runtime hands every member.

   lastprivate(conditional: x): x gets the value of the last iteration (sequentially) that
   assigned it, whichever thread ran it; sets of assigning iterations chosen by a seeded PRNG
   (none, one, the first, the last, dense, sparse), under static, static with a chunk,
   dynamic, guided and runtime schedules, long and unsigned long long loops, collapse(2), a
   combined parallel for, and outside any region; also on ordered and doacross loops, whose
   order and dependences must still hold.
   reduction(inscan, op: s) with scan inclusive and exclusive: the prefix sums (and prefix max,
   prefix product) of seeded random arrays, compared with a sequential scan; orphaned, in a
   combined parallel for, and outside any region.

   Entry points (gcc 12, objdump): GOMP_loop_start (long; sched encodes the schedule, *mem the
   scratch size), GOMP_loop_ull_start, GOMP_loop_ordered_start and GOMP_loop_ull_ordered_start
   (with ordered), GOMP_loop_doacross_start and GOMP_loop_ull_doacross_start (with ordered(1)
   depend), GOMP_ordered_start/_end, GOMP_doacross_[ull_]post/_wait,
   GOMP_loop_{dynamic,guided,runtime,static}_next and the _ull forms, GOMP_loop_end,
   GOMP_barrier between the scan phases, GOMP_atomic_start/_end around the conditional
   comparison, GOMP_parallel for the combined forms.

   usage: ws_mem */
/* gcc 12 warns about its own temporaries for lastprivate(conditional:). */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "ws_test.h"

#define MAXN 5000
static unsigned char assign[MAXN];
static long cx;        /* the lastprivate(conditional:) item */
static long s_sum;     /* the inscan reduction items */
static long s_max;
static double s_prod;
static long in[MAXN], out_inc[MAXN], out_exc[MAXN], out_max[MAXN];
static double out_prod[MAXN];
static int hits[MAXN];

static long value_of(long i) { return i * 7 + 3; }

#define COND_FNS(sfx, ...)                                                                         \
    static void cond_##sfx(long n)                                                                 \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(conditional: cx))                                \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            if (assign[i])                                                                         \
                cx = value_of(i);                                                                  \
        }                                                                                          \
    }                                                                                              \
    /* variable unsigned long long bounds: gcc uses GOMP_loop_ull_start */                         \
    static void condu_##sfx(unsigned long long base, unsigned long long end)                       \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(conditional: cx))                                \
        for (unsigned long long u = base; u < end; u += 3) {                                       \
            long i = (long)((u - base) / 3);                                                       \
            ws_hit(hits, i);                                                                       \
            if (assign[i])                                                                         \
                cx = value_of(i);                                                                  \
        }                                                                                          \
    }                                                                                              \
    static void cond2_##sfx(long n)                                                                \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ collapse(2) lastprivate(conditional: cx))                    \
        for (long i = 0; i < n / 10; i++)                                                          \
            for (long j = 0; j < 10; j++) {                                                        \
                ws_hit(hits, i * 10 + j);                                                          \
                if (assign[i * 10 + j])                                                            \
                    cx = value_of(i * 10 + j);                                                     \
            }                                                                                      \
    }

#define FOR_SCHEDS(X)                                                                              \
    X(def, )                                                                                       \
    X(st3, schedule(static, 3))                                                                    \
    X(dy, schedule(dynamic))                                                                       \
    X(dy5, schedule(dynamic, 5))                                                                   \
    X(mdy, schedule(monotonic: dynamic))                                                           \
    X(gu, schedule(guided))                                                                        \
    X(rt, schedule(runtime))

FOR_SCHEDS(COND_FNS)

struct cond {
    const char *name;
    void (*fn)(long), (*fn2)(long);
    void (*fnu)(unsigned long long, unsigned long long);
};
#define ENTRY(sfx, ...) { "schedule " #__VA_ARGS__, cond_##sfx, cond2_##sfx, condu_##sfx },
static const struct cond conds[] = { FOR_SCHEDS(ENTRY) };
#define NCONDS ((int)(sizeof conds / sizeof conds[0]))

static char what[200];

/* pattern: 0 none, 1 only the first, 2 only the last, 3 one in the middle, 4 dense random,
   5 sparse random. Returns the expected value of cx (initial when none assigns). */
static long make_assign(long n, int pattern, uint64_t *rng, long initial)
{
    memset(assign, 0, sizeof assign);
    for (long i = 0; i < n; i++) {
        uint64_t r = ws_rand_next(rng);
        switch (pattern) {
        case 1: assign[i] = i == 0; break;
        case 2: assign[i] = i == n - 1; break;
        case 3: assign[i] = i == n / 2; break;
        case 4: assign[i] = r % 3 != 0; break;
        case 5: assign[i] = r % 211 == 0; break;
        default: break;
        }
    }
    long want = initial;
    for (long i = 0; i < n; i++)
        if (assign[i])
            want = value_of(i);
    return want;
}

static void conditional(void)
{
    static const long ns[] = { 0, 1, 2, 10, 370, MAXN };
    uint64_t rng = 12345;
    for (int c = 0; c < NCONDS; c++)
        for (unsigned s = 0; s < sizeof ns / sizeof ns[0]; s++)
            for (int pattern = 0; pattern < 6; pattern++) {
                long n = ns[s];
                long want = make_assign(n, pattern, &rng, -77);
                cx = -77;
#pragma omp parallel
                conds[c].fn(n);
                snprintf(what, sizeof what, "lastprivate(conditional:), %s, %ld iterations, "
                         "pattern %d", conds[c].name, n, pattern);
                ws_expect_hits(hits, n, 1, what);
                LITE_EXPECT(cx == want, "%s: x = %ld, expected %ld", what, cx, want);

                cx = -77;
#pragma omp parallel
                conds[c].fnu(ULLONG_MAX - 3 * (unsigned long long)n, ULLONG_MAX - 2);
                snprintf(what, sizeof what, "lastprivate(conditional:), %s, unsigned long long, "
                         "%ld iterations, pattern %d", conds[c].name, n, pattern);
                ws_expect_hits(hits, n, 1, what);
                LITE_EXPECT(cx == want, "%s: x = %ld, expected %ld", what, cx, want);

                long n10 = n / 10 * 10;
                want = make_assign(n10, pattern, &rng, -77);
                cx = -77;
#pragma omp parallel
                conds[c].fn2(n10);
                snprintf(what, sizeof what, "lastprivate(conditional:), %s, collapse(2), %ld "
                         "iterations, pattern %d", conds[c].name, n10, pattern);
                ws_expect_hits(hits, n10, 1, what);
                LITE_EXPECT(cx == want, "%s: x = %ld, expected %ld", what, cx, want);
            }
    /* Combined, and outside any region. */
    for (int pattern = 0; pattern < 6; pattern++) {
        long n = 1000;
        long want = make_assign(n, pattern, &rng, -5);
        cx = -5;
#pragma omp parallel for schedule(dynamic, 3) lastprivate(conditional: cx)
        for (long i = 0; i < n; i++) {
            ws_hit(hits, i);
            if (assign[i])
                cx = value_of(i);
        }
        snprintf(what, sizeof what, "parallel for lastprivate(conditional:), pattern %d",
                 pattern);
        ws_expect_hits(hits, n, 1, what);
        LITE_EXPECT(cx == want, "%s: x = %ld, expected %ld", what, cx, want);
        cx = -5;
        conds[2].fn(n);
        snprintf(what, sizeof what, "lastprivate(conditional:) outside any region, pattern %d",
                 pattern);
        ws_expect_hits(hits, n, 1, what);
        LITE_EXPECT(cx == want, "%s: x = %ld, expected %ld", what, cx, want);
    }
}

/* ---------------------------------------------- with ordered and doacross loops */

/* lastprivate(conditional:) on an ordered loop goes through GOMP_loop_ordered_start (and the
   _ull form), on a doacross loop through GOMP_loop_doacross_start (and the _ull form). The
   ordered regions must still run in order, the doacross recurrence must still hold. */
static long oseq[MAXN];
static long noseq;
static unsigned dacc[MAXN];

#define ORDERED_COND_FNS(sfx, ...)                                                                 \
    static void ocond_##sfx(long n)                                                                \
    {                                                                                              \
        WS_PRAGMA(omp for ordered __VA_ARGS__ lastprivate(conditional: cx))                        \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            if (assign[i])                                                                         \
                cx = value_of(i);                                                                  \
            WS_PRAGMA(omp ordered)                                                                 \
            oseq[noseq++] = i;                                                                     \
        }                                                                                          \
    }                                                                                              \
    static void ocondu_##sfx(unsigned long long lo, unsigned long long hi)                         \
    {                                                                                              \
        WS_PRAGMA(omp for ordered __VA_ARGS__ lastprivate(conditional: cx))                        \
        for (unsigned long long u = lo; u < hi; u++) {                                             \
            long i = (long)(u - lo);                                                               \
            ws_hit(hits, i);                                                                       \
            if (assign[i])                                                                         \
                cx = value_of(i);                                                                  \
            WS_PRAGMA(omp ordered)                                                                 \
            oseq[noseq++] = i;                                                                     \
        }                                                                                          \
    }                                                                                              \
    static void dcond_##sfx(long n)                                                                \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__ lastprivate(conditional: cx))                     \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            if (assign[i])                                                                         \
                cx = value_of(i);                                                                  \
            WS_PRAGMA(omp ordered depend(sink: i - 1))                                             \
            dacc[i] = (i > 0 ? dacc[i - 1] : 1u) * 3u + (unsigned)i;                               \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }                                                                                              \
    static void dcondu_##sfx(unsigned long long lo, unsigned long long hi)                         \
    {                                                                                              \
        WS_PRAGMA(omp for ordered(1) __VA_ARGS__ lastprivate(conditional: cx))                     \
        for (unsigned long long u = lo; u < hi; u++) {                                             \
            long i = (long)(u - lo);                                                               \
            ws_hit(hits, i);                                                                       \
            if (assign[i])                                                                         \
                cx = value_of(i);                                                                  \
            WS_PRAGMA(omp ordered depend(sink: u - 1))                                             \
            dacc[i] = (i > 0 ? dacc[i - 1] : 1u) * 3u + (unsigned)i;                               \
            WS_PRAGMA(omp ordered depend(source))                                                  \
        }                                                                                          \
    }

#define FOR_ORDERED_SCHEDS(X)                                                                      \
    X(def, )                                                                                       \
    X(st3, schedule(static, 3))                                                                    \
    X(dy, schedule(dynamic))                                                                       \
    X(gu2, schedule(guided, 2))                                                                    \
    X(rt, schedule(runtime))

FOR_ORDERED_SCHEDS(ORDERED_COND_FNS)

struct ocond {
    const char *name;
    void (*ordered)(long), (*doacross)(long);
    void (*ordered_ull)(unsigned long long, unsigned long long);
    void (*doacross_ull)(unsigned long long, unsigned long long);
};
#define OENTRY(sfx, ...)                                                                           \
    { "schedule " #__VA_ARGS__, ocond_##sfx, dcond_##sfx, ocondu_##sfx, dcondu_##sfx },
static const struct ocond oconds[] = { FOR_ORDERED_SCHEDS(OENTRY) };
#define NOCONDS ((int)(sizeof oconds / sizeof oconds[0]))

static void check_ordered_log(long n, const char *how)
{
    LITE_EXPECT(noseq == n, "%s: %ld ordered regions ran, expected %ld", how, noseq, n);
    for (long i = 0; i < n; i++)
        LITE_EXPECT(oseq[i] == i, "%s: ordered region number %ld belongs to iteration %ld", how,
                    i, oseq[i]);
    noseq = 0;
}

static void check_recurrence(long n, const char *how)
{
    unsigned v = 1u;
    for (long i = 0; i < n; i++) {
        v = v * 3u + (unsigned)i;
        LITE_EXPECT(dacc[i] == v, "%s: doacross value [%ld] = %#x, expected %#x", how, i,
                    dacc[i], v);
    }
}

static void conditional_ordered(void)
{
    static const long ns[] = { 0, 1, 7, 500 };
    uint64_t rng = 99;
    for (int c = 0; c < NOCONDS; c++)
        for (unsigned s = 0; s < sizeof ns / sizeof ns[0]; s++)
            for (int pattern = 0; pattern < 6; pattern += 1 + (ns[s] < 100)) {
                long n = ns[s];
                unsigned long long lo = ULLONG_MAX - 2 * (unsigned long long)n;
                long want = make_assign(n, pattern, &rng, -9);
                for (int form = 0; form < 4; form++) {
                    cx = -9;
                    noseq = 0;
#pragma omp parallel
                    {
                        switch (form) {
                        case 0: oconds[c].ordered(n); break;
                        case 1: oconds[c].ordered_ull(lo, lo + (unsigned long long)n); break;
                        case 2: oconds[c].doacross(n); break;
                        default: oconds[c].doacross_ull(lo, lo + (unsigned long long)n); break;
                        }
                    }
                    static const char *forms[] = { "ordered", "ordered, unsigned long long",
                                                   "ordered(1) doacross",
                                                   "ordered(1) doacross, unsigned long long" };
                    snprintf(what, sizeof what, "lastprivate(conditional:) on an %s loop, %s, "
                             "%ld iterations, pattern %d", forms[form], oconds[c].name, n,
                             pattern);
                    ws_expect_hits(hits, n, 1, what);
                    LITE_EXPECT(cx == want, "%s: x = %ld, expected %ld", what, cx, want);
                    if (form < 2)
                        check_ordered_log(n, what);
                    else
                        check_recurrence(n, what);
                }
            }
}

/* ---------------------------------------------------------------------------- inscan */

static void scan_inclusive(long n)
{
#pragma omp for reduction(inscan, +: s_sum)
    for (long i = 0; i < n; i++) {
        s_sum += in[i];
#pragma omp scan inclusive(s_sum)
        out_inc[i] = s_sum;
    }
}

static void scan_exclusive(long n)
{
#pragma omp for reduction(inscan, +: s_sum)
    for (long i = 0; i < n; i++) {
        out_exc[i] = s_sum;
#pragma omp scan exclusive(s_sum)
        s_sum += in[i];
    }
}

static void scan_max_prod(long n)
{
#pragma omp for reduction(inscan, max: s_max) reduction(inscan, *: s_prod)
    for (long i = 0; i < n; i++) {
        s_max = s_max > in[i] ? s_max : in[i];
        s_prod *= (in[i] % 3 == 0) ? 2.0 : ((in[i] % 3 == 1) ? 0.5 : 1.0);
#pragma omp scan inclusive(s_max, s_prod)
        out_max[i] = s_max;
        out_prod[i] = s_prod;
    }
}

static void check_scans(long n, const char *how, bool exclusive_too, bool maxprod)
{
    long sum = 100, mx = LONG_MIN;
    double prod = 1.0;
    for (long i = 0; i < n; i++) {
        if (exclusive_too)
            LITE_EXPECT(out_exc[i] == sum, "%s: exclusive scan [%ld] = %ld, expected %ld", how,
                        i, out_exc[i], sum);
        sum += in[i];
        LITE_EXPECT(out_inc[i] == sum, "%s: inclusive scan [%ld] = %ld, expected %ld", how, i,
                    out_inc[i], sum);
        if (maxprod) {
            mx = mx > in[i] ? mx : in[i];
            prod *= (in[i] % 3 == 0) ? 2.0 : ((in[i] % 3 == 1) ? 0.5 : 1.0);
            LITE_EXPECT(out_max[i] == mx, "%s: max scan [%ld] = %ld, expected %ld", how, i,
                        out_max[i], mx);
            LITE_EXPECT(out_prod[i] == prod, "%s: * scan [%ld] = %g, expected %g", how, i,
                        out_prod[i], prod);
        }
    }
}

static void inscan(void)
{
    static const long ns[] = { 0, 1, 2, 3, 17, 999, MAXN };
    uint64_t rng = 777;
    for (unsigned s = 0; s < sizeof ns / sizeof ns[0]; s++) {
        long n = ns[s];
        for (long i = 0; i < n; i++)
            in[i] = (long)(ws_rand_next(&rng) % 2001) - 1000;
        char how[100];
        snprintf(how, sizeof how, "reduction(inscan) over %ld elements, %d threads", n,
                 omp_get_max_threads());
        s_sum = 100;
#pragma omp parallel
        scan_inclusive(n);
        s_sum = 100;
#pragma omp parallel
        scan_exclusive(n);
        s_max = LONG_MIN;
        s_prod = 1.0;
#pragma omp parallel
        scan_max_prod(n);
        check_scans(n, how, true, true);

        /* Combined parallel for. */
        s_sum = 100;
#pragma omp parallel for reduction(inscan, +: s_sum)
        for (long i = 0; i < n; i++) {
            s_sum += in[i];
#pragma omp scan inclusive(s_sum)
            out_inc[i] = s_sum;
        }
        snprintf(how, sizeof how, "parallel for reduction(inscan) over %ld elements", n);
        check_scans(n, how, false, false);

        /* Outside any region. */
        s_sum = 100;
        scan_inclusive(n);
        s_sum = 100;
        scan_exclusive(n);
        snprintf(how, sizeof how, "reduction(inscan) outside any region, %ld elements", n);
        check_scans(n, how, true, false);
    }
}

int main(void)
{
    LITE_CHECK("ws_mem");
    conditional();
    conditional_ordered();
    ws_note("lastprivate(conditional:): ok");
    inscan();
    ws_note("PASS");
    return 0;
}
