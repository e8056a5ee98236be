/* Loop shapes under every schedule: negative and non-unit steps, <= and >= tests, bounds at the
   limits of long (LONG_MAX, LONG_MIN, spans wider than LONG_MAX), unsigned long long near
   ULLONG_MAX and spans wider than LLONG_MAX, int near INT_MAX, pointer loops (constant step:
   gcc 12.2 crashes compiling a pointer loop with a variable step under schedule(static, 3)),
   trip counts of 0 and 1, lastprivate (the sequentially last iteration's values, and the
   iteration variable's value after the loop), reductions (+ * max min && || & | ^ on long, + on
   double), collapse(2), collapse(3) and a triangular collapse(2) (static only: gcc 12 allows no
   other schedule there). Each shape is compared with the same loop run sequentially: every
   iteration exactly once, the same values.

   Entry points (gcc 12, objdump): long and int loops with a runtime-handled schedule ->
   GOMP_loop_nonmonotonic_{dynamic,guided}_*, GOMP_loop_{dynamic,guided}_* (monotonic:),
   GOMP_loop_maybe_nonmonotonic_runtime_*; unsigned long long and pointer loops ->
   GOMP_loop_ull_* of the same kinds; collapse(2)/(3) -> the long forms on the collapsed count;
   static and auto schedules are computed inline. GOMP_loop_end[_nowait].

   usage: ws_bounds */
/* gcc 12 warns about its own temporaries in collapsed loops with lastprivate. */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "ws_test.h"

#define MAXCOUNT 2048
static int hits[MAXCOUNT];

/* Shared results of the orphaned loops (lastprivate and reduction items must be shared in the
   enclosing region, so they live here, not on a thread's stack). */
static long g_i, g_x;
static unsigned long long g_u, g_ux;
static int g_int;
static long r_sum, r_prod, r_max, r_min, r_band, r_bor, r_bxor;
static int r_land, r_lor;
static double r_dsum;
static long c_i, c_j, c_k;

/* X(suffix, handed out by the runtime (not computed inline by gcc), clauses) */
#define FOR_SCHEDS(X)                                                                              \
    X(st, false, schedule(static))                                                                 \
    X(st3, false, schedule(static, 3))                                                             \
    X(dy, true, schedule(dynamic))                                                                 \
    X(dy2, true, schedule(dynamic, 2))                                                             \
    X(gu, true, schedule(guided))                                                                  \
    X(gu5, true, schedule(guided, 5))                                                              \
    X(mdy, true, schedule(monotonic: dynamic))                                                     \
    X(mgu4, true, schedule(monotonic: guided, 4))                                                  \
    X(nmdy3, true, schedule(nonmonotonic: dynamic, 3))                                             \
    X(rt, true, schedule(runtime))                                                                 \
    X(au, false, schedule(auto))

/* Index of a value in its loop: (v - start) / step in unsigned arithmetic (no overflow). */
#define IDX_UP(v, start, step)                                                                     \
    ((long)(((unsigned long)(v) - (unsigned long)(start)) / (unsigned long)(step)))
#define IDX_DOWN(v, start, step)                                                                   \
    ((long)(((unsigned long)(start) - (unsigned long)(v)) / (unsigned long)(step)))

#define SHAPES(sfx, ...)                                                                           \
    static void up_##sfx(long start, long end, long step)                                          \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_i, g_x))                                       \
        for (g_i = start; g_i < end; g_i += step) {                                                \
            ws_hit(hits, IDX_UP(g_i, start, step));                                                \
            g_x = g_i ^ 0x5a5a;                                                                    \
        }                                                                                          \
    }                                                                                              \
    static void upeq_##sfx(long start, long end, long step)                                        \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_i, g_x))                                       \
        for (g_i = start; g_i <= end; g_i += step) {                                               \
            ws_hit(hits, IDX_UP(g_i, start, step));                                                \
            g_x = g_i ^ 0x5a5a;                                                                    \
        }                                                                                          \
    }                                                                                              \
    static void down_##sfx(long start, long end, long step)                                        \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_i, g_x))                                       \
        for (g_i = start; g_i > end; g_i -= step) {                                                \
            ws_hit(hits, IDX_DOWN(g_i, start, step));                                              \
            g_x = g_i ^ 0x5a5a;                                                                    \
        }                                                                                          \
    }                                                                                              \
    static void downeq_##sfx(long start, long end, long step)                                      \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_i, g_x))                                       \
        for (g_i = start; g_i >= end; g_i -= step) {                                               \
            ws_hit(hits, IDX_DOWN(g_i, start, step));                                              \
            g_x = g_i ^ 0x5a5a;                                                                    \
        }                                                                                          \
    }                                                                                              \
    static void ullup_##sfx(unsigned long long start, unsigned long long end,                     \
                            unsigned long long step)                                               \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_u, g_ux))                                      \
        for (g_u = start; g_u < end; g_u += step) {                                                \
            ws_hit(hits, (long)((g_u - start) / step));                                            \
            g_ux = g_u ^ 0xa5a5;                                                                   \
        }                                                                                          \
    }                                                                                              \
    static void ulldown_##sfx(unsigned long long start, unsigned long long end,                   \
                              unsigned long long step)                                             \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_u, g_ux))                                      \
        for (g_u = start; g_u > end; g_u -= step) {                                                \
            ws_hit(hits, (long)((start - g_u) / step));                                            \
            g_ux = g_u ^ 0xa5a5;                                                                   \
        }                                                                                          \
    }                                                                                              \
    static void intup_##sfx(int start, int end, int step)                                          \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ lastprivate(g_int))                                          \
        for (g_int = start; g_int < end; g_int += step)                                            \
            ws_hit(hits, (long)(((unsigned)g_int - (unsigned)start) / (unsigned)step));            \
    }                                                                                              \
    static void ptr_##sfx(char *base, long n)                                                      \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__)                                                             \
        for (char *p = base; p < base + n; p += 3)                                                 \
            ws_hit(hits, (p - base) / 3);                                                          \
    }                                                                                              \
    static void red_##sfx(long n)                                                                  \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ reduction(+: r_sum, r_dsum) reduction(*: r_prod)             \
                  reduction(max: r_max) reduction(min: r_min) reduction(&&: r_land)                \
                  reduction(||: r_lor) reduction(&: r_band) reduction(|: r_bor)                    \
                  reduction(^: r_bxor))                                                            \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            r_sum += i * i - 7;                                                                    \
            r_dsum += 0.5 * (double)i;                                                             \
            r_prod *= i % 97 == 3 ? -2 : (i % 50 == 7 ? 3 : 1);                                    \
            r_max = r_max > (i * 37) % 1009 ? r_max : (i * 37) % 1009;                             \
            r_min = r_min < 500 - (i * 53) % 997 ? r_min : 500 - (i * 53) % 997;                   \
            r_land = r_land && (i != 12345);                                                       \
            r_lor = r_lor || (i == n / 2);                                                         \
            r_band &= ~(1l << (i % 61));                                                           \
            r_bor |= 1l << ((i * 7) % 53);                                                         \
            r_bxor ^= i * 0x9e3779b9l;                                                             \
        }                                                                                          \
    }                                                                                              \
    static void col2_##sfx(long a, long b)                                                         \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ collapse(2) lastprivate(c_i, c_j))                           \
        for (c_i = 0; c_i < a; c_i++)                                                              \
            for (c_j = b - 1; c_j >= 0; c_j -= 1)                                                  \
                ws_hit(hits, c_i * b + c_j);                                                       \
    }                                                                                              \
    static void col3_##sfx(long a, long b, long c)                                                 \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ collapse(3) lastprivate(c_k))                                \
        for (long i = 0; i < a; i++)                                                               \
            for (long j = -3; j < b - 3; j++)                                                      \
                for (c_k = 0; c_k < 2 * c; c_k += 2)                                               \
                    ws_hit(hits, (i * b + (j + 3)) * c + c_k / 2);                                 \
    }

#define DEFINE(sfx, by_runtime, ...) SHAPES(sfx, __VA_ARGS__)
FOR_SCHEDS(DEFINE)

/* gcc 12 allows non-rectangular loop nests with the default (static) schedule only. */
static void tri(long n)
{
#pragma omp for collapse(2)
    for (long i = 0; i < n; i++)
        for (long j = i; j < n; j++)
            ws_hit(hits, i * n + j);
}

struct shapes {
    const char *name;
    bool by_runtime;
    void (*up)(long, long, long), (*upeq)(long, long, long), (*down)(long, long, long),
        (*downeq)(long, long, long);
    void (*ullup)(unsigned long long, unsigned long long, unsigned long long);
    void (*ulldown)(unsigned long long, unsigned long long, unsigned long long);
    void (*intup)(int, int, int);
    void (*ptr)(char *, long);
    void (*red)(long);
    void (*col2)(long, long), (*col3)(long, long, long);
};
#define ENTRY(sfx, by_runtime, ...)                                                                \
    { #__VA_ARGS__, by_runtime, up_##sfx, upeq_##sfx, down_##sfx, downeq_##sfx, ullup_##sfx,     \
      ulldown_##sfx, intup_##sfx, ptr_##sfx, red_##sfx, col2_##sfx, col3_##sfx },
static const struct shapes table[] = { FOR_SCHEDS(ENTRY) };
#define NTABLE ((int)(sizeof table / sizeof table[0]))

static char what[300];

/* ------------------------------------------------------------------ signed long loops */

enum op { UP, UPEQ, DOWN, DOWNEQ };
static const char *op_name[] = { "<", "<=", ">", ">=" };

/* The loop run sequentially: count, last iteration's value, the variable after the loop. */
static void reference(enum op op, long start, long end, long step, long *count, long *last,
                      long *after)
{
    long c = 0, v = start, l = 0;
    switch (op) {
    case UP:     for (v = start; v < end; v += step) { l = v; c++; } break;
    case UPEQ:   for (v = start; v <= end; v += step) { l = v; c++; } break;
    case DOWN:   for (v = start; v > end; v -= step) { l = v; c++; } break;
    case DOWNEQ: for (v = start; v >= end; v -= step) { l = v; c++; } break;
    }
    *count = c;
    *last = l;
    *after = v;
}

static void long_case(const struct shapes *s, enum op op, long start, long end, long step)
{
    long count, last, after;
    reference(op, start, end, step, &count, &last, &after);
    LITE_EXPECT(count <= MAXCOUNT, "test bug: %ld iterations", count);
    g_i = 0x1234;
    g_x = 0x4321;
    void (*fn)(long, long, long) = op == UP ? s->up : op == UPEQ ? s->upeq
                                                 : op == DOWN ? s->down : s->downeq;
#pragma omp parallel
    fn(start, end, step);
    snprintf(what, sizeof what, "%s: for (i = %ld; i %s %ld; i %s= %ld)", s->name, start,
             op_name[op], end, op <= UPEQ ? "+" : "-", step);
    ws_expect_hits(hits, count, 1, what);
    if (count > 0) {
        LITE_EXPECT(g_x == (last ^ 0x5a5a), "%s: lastprivate(x) is %ld, expected %ld", what,
                    g_x ^ 0x5a5a, last);
        LITE_EXPECT(g_i == after, "%s: lastprivate(i) is %ld, expected %ld", what, g_i, after);
    }
}

static void long_loops(const struct shapes *s)
{
    long_case(s, DOWN, 100, -7, 3);
    long_case(s, DOWNEQ, 100, -7, 3);
    long_case(s, UP, -50, 50, 7);
    long_case(s, UPEQ, -50, 48, 7);
    long_case(s, UP, 0, 1000, 1);
    long_case(s, UP, LONG_MAX - 1000, LONG_MAX, 1);
    long_case(s, UPEQ, LONG_MAX - 1000, LONG_MAX - 5, 5);
    long_case(s, UP, LONG_MAX - 1000, LONG_MAX - 1, 999);
    long_case(s, DOWN, LONG_MIN + 1000, LONG_MIN, 1);
    long_case(s, DOWNEQ, LONG_MIN + 1005, LONG_MIN + 5, 5);
    /* Spans wider than LONG_MAX (the trip count only fits in unsigned arithmetic) and steps
       near LONG_MAX. gcc's own inline static schedule computes the count in long and gets
       these wrong, and so does stock libgomp 12 in places (guided over a wide span, a chunk
       times a huge step): only the schedules libomp-lite hands out take them, and not on stock
       libgomp (LITE_CHECK=stock). */
    if (s->by_runtime && !lite_stock_mode()) {
        long_case(s, DOWN, -1, LONG_MIN + LONG_MAX / 2, LONG_MAX / 2);
        long_case(s, UP, LONG_MIN, LONG_MAX - (1l << 61), 1l << 61);
        long_case(s, DOWN, LONG_MAX, LONG_MIN + (1l << 61), 1l << 61);
        long_case(s, UP, LONG_MIN + 1, LONG_MAX - LONG_MAX / 300 - 1, LONG_MAX / 300);
    }
    /* Trip counts of 0 and 1. */
    long_case(s, UP, 5, 5, 1);
    long_case(s, UP, 5, -5, 1);
    long_case(s, DOWN, -5, 5, 2);
    long_case(s, UPEQ, 5, 4, 1);
    long_case(s, UP, 5, 6, 1);
    long_case(s, UP, 5, 100, 1000);
    long_case(s, DOWN, 5, 4, 1);
    long_case(s, DOWNEQ, LONG_MIN + 1, LONG_MIN + 1, 1);
    long_case(s, UPEQ, LONG_MAX - 1, LONG_MAX - 1, 1);
}

/* ------------------------------------------------------------ unsigned long long loops */

static void ull_case(const struct shapes *s, bool up, unsigned long long start,
                     unsigned long long end, unsigned long long step)
{
    long count = 0;
    unsigned long long v, last = 0;
    if (up)
        for (v = start; v < end; v += step) { last = v; count++; }
    else
        for (v = start; v > end; v -= step) { last = v; count++; }
    LITE_EXPECT(count <= MAXCOUNT, "test bug: %ld iterations", count);
    g_u = 0x1234;
    g_ux = 0x4321;
#pragma omp parallel
    {
        if (up)
            s->ullup(start, end, step);
        else
            s->ulldown(start, end, step);
    }
    snprintf(what, sizeof what, "%s: for (unsigned long long u = %#llx; u %s %#llx; u %s= %#llx)",
             s->name, start, up ? "<" : ">", end, up ? "+" : "-", step);
    ws_expect_hits(hits, count, 1, what);
    if (count > 0) {
        LITE_EXPECT(g_ux == (last ^ 0xa5a5), "%s: lastprivate(x) is %#llx, expected %#llx", what,
                    g_ux ^ 0xa5a5, last);
        LITE_EXPECT(g_u == v, "%s: lastprivate(u) is %#llx, expected %#llx", what, g_u, v);
    }
}

static void ull_loops(const struct shapes *s)
{
    ull_case(s, true, ULLONG_MAX - 1000, ULLONG_MAX, 1);
    ull_case(s, true, ULLONG_MAX - 1001, ULLONG_MAX, 7);
    ull_case(s, false, ULLONG_MAX, ULLONG_MAX - 1000, 1);
    ull_case(s, false, ULLONG_MAX, ULLONG_MAX - 1000, 3);
    ull_case(s, true, 5, ULLONG_MAX - (1ull << 62), 1ull << 62);
    ull_case(s, false, ULLONG_MAX, 1ull << 60, 1ull << 60);
    ull_case(s, true, 0, ULLONG_MAX - ULLONG_MAX / 1000, ULLONG_MAX / 1000);
    ull_case(s, true, 1ull << 63, (1ull << 63) + 1, 1);
    ull_case(s, true, 7, 7, 1);
    ull_case(s, false, 7, 8, 1);
    ull_case(s, false, 1, 0, 1);
}

/* --------------------------------------------------------------------- other shapes */

static void int_and_ptr_loops(const struct shapes *s)
{
    static char buf[1000];
    struct { int start, end, step; } ints[] = {
        { INT_MAX - 500, INT_MAX, 1 }, { INT_MIN, INT_MIN + 900, 3 }, { -10, 10, 40 }, { 3, 3, 1 },
    };
    for (unsigned k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        long count = 0;
        int v, last = 0;
        for (v = ints[k].start; v < ints[k].end; v += ints[k].step) { last = v; count++; }
        (void)last;
        g_int = 77;
#pragma omp parallel
        s->intup(ints[k].start, ints[k].end, ints[k].step);
        snprintf(what, sizeof what, "%s: for (int i = %d; i < %d; i += %d)", s->name,
                 ints[k].start, ints[k].end, ints[k].step);
        ws_expect_hits(hits, count, 1, what);
        if (count > 0)
            LITE_EXPECT(g_int == v, "%s: lastprivate(i) is %d, expected %d", what, g_int, v);
    }
    for (long n = 0; n <= 999; n += 333) {
        long count = (n + 2) / 3;
#pragma omp parallel
        s->ptr(buf, n);
        snprintf(what, sizeof what, "%s: for (char *p = buf; p < buf + %ld; p += 3)", s->name, n);
        ws_expect_hits(hits, count, 1, what);
    }
}

static void reductions(const struct shapes *s, long n)
{
    long sum = 100, prod = 1, mx = -5, mn = 5, band = -1, bor = 0, bxor = 0x77;
    int land = 1, lor = 0;
    double dsum = 0.25;
    for (long i = 0; i < n; i++) {
        sum += i * i - 7;
        dsum += 0.5 * (double)i;
        prod *= i % 97 == 3 ? -2 : (i % 50 == 7 ? 3 : 1);
        mx = mx > (i * 37) % 1009 ? mx : (i * 37) % 1009;
        mn = mn < 500 - (i * 53) % 997 ? mn : 500 - (i * 53) % 997;
        land = land && (i != 12345);
        lor = lor || (i == n / 2);
        band &= ~(1l << (i % 61));
        bor |= 1l << ((i * 7) % 53);
        bxor ^= i * 0x9e3779b9l;
    }
    r_sum = 100, r_prod = 1, r_max = -5, r_min = 5, r_band = -1, r_bor = 0, r_bxor = 0x77;
    r_land = 1, r_lor = 0, r_dsum = 0.25;
#pragma omp parallel
    s->red(n);
    snprintf(what, sizeof what, "%s: reductions over %ld iterations", s->name, n);
    ws_expect_hits(hits, n, 1, what);
    LITE_EXPECT(r_sum == sum, "%s: + gave %ld, expected %ld", what, r_sum, sum);
    LITE_EXPECT(r_dsum == dsum, "%s: double + gave %.17g, expected %.17g", what, r_dsum, dsum);
    LITE_EXPECT(r_prod == prod, "%s: * gave %ld, expected %ld", what, r_prod, prod);
    LITE_EXPECT(r_max == mx, "%s: max gave %ld, expected %ld", what, r_max, mx);
    LITE_EXPECT(r_min == mn, "%s: min gave %ld, expected %ld", what, r_min, mn);
    LITE_EXPECT(r_land == land && r_lor == lor, "%s: && gave %d (expected %d), || gave %d "
                "(expected %d)", what, r_land, land, r_lor, lor);
    LITE_EXPECT(r_band == band && r_bor == bor && r_bxor == bxor,
                "%s: & | ^ gave %#lx %#lx %#lx, expected %#lx %#lx %#lx", what, r_band, r_bor,
                r_bxor, band, bor, bxor);
}

static void collapsed(const struct shapes *s)
{
    static const long dims[][3] = { { 7, 13, 3 }, { 1, 1, 1 }, { 0, 5, 2 }, { 5, 0, 2 },
                                    { 3, 4, 0 }, { 31, 2, 5 }, { 2, 40, 1 } };
    for (unsigned d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        long a = dims[d][0], b = dims[d][1], c = dims[d][2];
        c_i = c_j = c_k = -99;
#pragma omp parallel
        s->col2(a, b);
        snprintf(what, sizeof what, "%s: collapse(2) %ld x %ld", s->name, a, b);
        ws_expect_hits(hits, a * b, 1, what);
        if (a * b > 0)
            LITE_EXPECT(c_i == a && c_j == -1, "%s: lastprivate(i, j) = (%ld, %ld), expected "
                        "(%ld, -1)", what, c_i, c_j, a);
#pragma omp parallel
        s->col3(a, b, c);
        snprintf(what, sizeof what, "%s: collapse(3) %ld x %ld x %ld", s->name, a, b, c);
        ws_expect_hits(hits, a * b * c, 1, what);
        if (a * b * c > 0)
            LITE_EXPECT(c_k == 2 * c, "%s: lastprivate(k) = %ld, expected %ld", what, c_k, 2 * c);
    }
}

static void triangular(void)
{
    for (long n = 0; n <= 40; n += 13) {
#pragma omp parallel
        tri(n);
        snprintf(what, sizeof what, "triangular collapse(2), n = %ld", n);
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                LITE_EXPECT(hits[i * n + j] == (j >= i), "%s: (%ld, %ld) ran %d times", what, i,
                            j, hits[i * n + j]);
        memset(hits, 0, sizeof hits);
    }
}

int main(void)
{
    LITE_CHECK("ws_bounds");
    for (int t = 0; t < NTABLE; t++) {
        const struct shapes *s = &table[t];
        long_loops(s);
        ull_loops(s);
        int_and_ptr_loops(s);
        reductions(s, 0);
        reductions(s, 1);
        reductions(s, 1000);
        collapsed(s);
    }
    triangular();
    /* Outside any parallel region (the initial thread alone) and in a team of one. */
    const struct shapes *s = &table[2];
    s->up(-3, 1000, 7);
    ws_expect_hits(hits, (1003 + 6) / 7, 1, "dynamic: orphaned loop outside any region");
    LITE_EXPECT(g_i == -3 + 7 * ((1003 + 6) / 7), "outside any region: lastprivate(i) is %ld",
                g_i);
    s->ullup(ULLONG_MAX - 100, ULLONG_MAX, 1);
    ws_expect_hits(hits, 100, 1, "dynamic: unsigned long long loop outside any region");
    ws_note("PASS (%d schedules, %d threads)", NTABLE, omp_get_max_threads());
    return 0;
}
