/* Combined parallel for: with constant bounds gcc sets the loop up in the fork call
   (GOMP_parallel_loop_*), with variable bounds it calls GOMP_parallel and the loop's own start.
   Tiny trip counts (0, 1, 2, 3, 64) and larger ones, each run many times in a row at one call
   site (so that a runtime which learns per call site, and may run tiny loops without waking the
   team, does so), with the team size asked for by OMP_NUM_THREADS and by num_threads(16);
   every iteration exactly once, reductions and lastprivate exact, the team size as asked.
   Also: the same call site alternating tiny and large trip counts, combined loops nested in
   another region, and if(0).

   Entry points (gcc 12, objdump): constant bounds -> GOMP_parallel_loop_nonmonotonic_dynamic
   (dynamic, nonmonotonic:dynamic), GOMP_parallel_loop_nonmonotonic_guided (guided),
   GOMP_parallel_loop_dynamic (monotonic:dynamic), GOMP_parallel_loop_guided (monotonic:guided),
   GOMP_parallel_loop_maybe_nonmonotonic_runtime (runtime), GOMP_parallel_loop_runtime
   (monotonic:runtime), GOMP_parallel_loop_nonmonotonic_runtime (nonmonotonic:runtime), with
   GOMP_loop_*_next and GOMP_loop_end_nowait in the outlined function; schedule(static) ->
   GOMP_parallel with the split computed inline; variable bounds, or a lastprivate or reduction
   clause -> GOMP_parallel + GOMP_loop_*_start (gcc then sets the loop up inside the region).
   Constant 0-iteration loops still go through GOMP_parallel_loop_* (objdump).

   usage: ws_combined */
/* The loops of 0 iterations index hits[] in code gcc knows is dead, and warns about it. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#include "ws_test.h"

#define MAXN 4000
static int hits[MAXN];
static int team_seen; /* largest omp_get_num_threads() seen inside */
static long lp;       /* lastprivate */
static long red;      /* reduction(+) */

static void seen_team(void)
{
    int n = omp_get_num_threads(), seen;
#pragma omp atomic read
    seen = team_seen;
    if (n > seen) {
#pragma omp critical(ws_team_seen)
        if (n > team_seen) {
#pragma omp atomic write
            team_seen = n;
        }
    }
}

/* Per (schedule, constant trip count): the plain loop (GOMP_parallel_loop_*), the same with
   num_threads(16), and with lastprivate and reduction clauses, which make gcc use GOMP_parallel
   and the loop's own start instead. */
#define COMBINED(name, N, ...)                                                                     \
    static void name(void)                                                                         \
    {                                                                                              \
        WS_PRAGMA(omp parallel for __VA_ARGS__)                                                    \
        for (int i = 0; i < N; i++) {                                                              \
            ws_hit(hits, i);                                                                       \
            seen_team();                                                                           \
        }                                                                                          \
    }                                                                                              \
    static void name##_16(void)                                                                    \
    {                                                                                              \
        WS_PRAGMA(omp parallel for __VA_ARGS__ num_threads(16))                                    \
        for (int i = 0; i < N; i++) {                                                              \
            ws_hit(hits, i);                                                                       \
            seen_team();                                                                           \
        }                                                                                          \
    }                                                                                              \
    static void name##_cl(void)                                                                    \
    {                                                                                              \
        WS_PRAGMA(omp parallel for __VA_ARGS__ lastprivate(lp) reduction(+: red))                  \
        for (int i = 0; i < N; i++) {                                                              \
            ws_hit(hits, i);                                                                       \
            seen_team();                                                                           \
            lp = 3 * i + 1;                                                                        \
            red += i + 1;                                                                          \
        }                                                                                          \
    }

#define ALL_TRIPS(X, sfx, ...)                                                                     \
    X(sfx##_0, 0, __VA_ARGS__)                                                                     \
    X(sfx##_1, 1, __VA_ARGS__)                                                                     \
    X(sfx##_2, 2, __VA_ARGS__)                                                                     \
    X(sfx##_3, 3, __VA_ARGS__)                                                                     \
    X(sfx##_64, 64, __VA_ARGS__)                                                                   \
    X(sfx##_1000, 1000, __VA_ARGS__)

#define FOR_SCHEDS(X)                                                                              \
    X(st, schedule(static))                                                                        \
    X(st5, schedule(static, 5))                                                                    \
    X(dy, schedule(dynamic))                                                                       \
    X(dy3, schedule(dynamic, 3))                                                                   \
    X(gu, schedule(guided))                                                                        \
    X(gu7, schedule(guided, 7))                                                                    \
    X(mdy, schedule(monotonic: dynamic))                                                           \
    X(mgu, schedule(monotonic: guided))                                                            \
    X(nmdy2, schedule(nonmonotonic: dynamic, 2))                                                   \
    X(rt, schedule(runtime))                                                                       \
    X(mrt, schedule(monotonic: runtime))                                                           \
    X(nmrt, schedule(nonmonotonic: runtime))

#define DEFINE_SCHED(sfx, ...) ALL_TRIPS(COMBINED, sfx, __VA_ARGS__)
FOR_SCHEDS(DEFINE_SCHED)

struct combined {
    const char *name;
    int n;
    void (*fn)(void), (*fn16)(void), (*fncl)(void);
};
#define ENTRY_TRIP(name, N, ...) { #__VA_ARGS__, N, name, name##_16, name##_cl },
#define ENTRY_SCHED(sfx, ...) ALL_TRIPS(ENTRY_TRIP, sfx, __VA_ARGS__)
static const struct combined table[] = { FOR_SCHEDS(ENTRY_SCHED) };
#define NTABLE ((int)(sizeof table / sizeof table[0]))

static char what[200];

/* clauses: the loop had lastprivate(lp) and reduction(+: red). */
static void check(const char *name, int n, int want_team, const char *how, bool clauses)
{
    snprintf(what, sizeof what, "parallel for %s, %d iterations, %s%s", name, n, how,
             clauses ? ", lastprivate and reduction" : "");
    ws_expect_hits(hits, n, 1, what);
    if (n > 0)
        LITE_EXPECT(team_seen == want_team, "%s: the loop body saw a team of %d, expected %d",
                    what, team_seen, want_team);
    if (clauses) {
        if (n > 0)
            LITE_EXPECT(lp == 3 * (n - 1) + 1, "%s: lastprivate gave %ld, expected %d", what, lp,
                        3 * (n - 1) + 1);
        LITE_EXPECT(red == 1000 + (long)n * (n + 1) / 2, "%s: reduction gave %ld, expected %ld",
                    what, red, 1000 + (long)n * (n + 1) / 2);
    }
    lp = -1;
    red = 1000;
    team_seen = 0;
}

/* Variable bounds: GOMP_parallel + the loop's own start. */
static void variable(int n)
{
#pragma omp parallel for schedule(dynamic) lastprivate(lp) reduction(+: red)
    for (int i = 0; i < n; i++) {
        ws_hit(hits, i);
        seen_team();
        lp = 3 * i + 1;
        red += i + 1;
    }
}

static void variable_guided(int lo, int hi)
{
#pragma omp parallel for schedule(guided, 2) lastprivate(lp) reduction(+: red)
    for (int i = lo; i < hi; i++) {
        ws_hit(hits, i - lo);
        seen_team();
        lp = 3 * (i - lo) + 1;
        red += i - lo + 1;
    }
}

int main(void)
{
    LITE_CHECK("ws_combined");
    int nt = ws_threads();
    int reps = nt <= 4 ? 60 : 25;
    lp = -1;
    red = 1000;

    for (int e = 0; e < NTABLE; e++) {
        const struct combined *c = &table[e];
        for (int r = 0; r < reps; r++) {
            c->fn();
            check(c->name, c->n, nt, "OMP_NUM_THREADS threads", false);
        }
        for (int r = 0; r < reps / 2; r++) {
            c->fn16();
            check(c->name, c->n, 16, "num_threads(16)", false);
        }
        for (int r = 0; r < reps / 2; r++) {
            c->fncl();
            check(c->name, c->n, nt, "OMP_NUM_THREADS threads", true);
        }
    }
    ws_note("constant bounds: ok (%d runs per loop)", reps);

    /* One call site, trip counts alternating between tiny and large. */
    static const int ns[] = { 0, 1, 2, 3, 64, 3000, 2, 1, 3000, 64, 0, 3, 1000, 1 };
    for (int r = 0; r < 4; r++)
        for (unsigned k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            for (int rep = 0; rep < 5; rep++) {
                variable(ns[k]);
                check("schedule(dynamic) (variable bounds)", ns[k], nt, "OMP_NUM_THREADS threads",
                      true);
                variable_guided(-ns[k], 0);
                check("schedule(guided, 2) (variable bounds)", ns[k], nt,
                      "OMP_NUM_THREADS threads", true);
            }
        }
    ws_note("variable bounds: ok");

    /* Nested in a region of two: each inner combined loop has its own team (or a team of one
       when max-active-levels is 1). The outer threads share nothing but the hit counters,
       which the two inner loops fill once each, so the counts come out at 2. */
    int inner_want = omp_get_max_active_levels() >= 2 ? (nt < 4 ? nt : 4) : 1;
    for (int r = 0; r < 20; r++) {
        int inner_seen[2] = { 0, 0 };
        int n = r % 2 ? 3 : 500;
#pragma omp parallel num_threads(2)
        {
            int o = omp_get_thread_num();
#pragma omp parallel for schedule(dynamic) num_threads(inner_want)
            for (int i = 0; i < n; i++) {
                ws_hit(hits, i);
                int seen;
#pragma omp atomic read
                seen = inner_seen[o];
                if (omp_get_num_threads() > seen) {
#pragma omp atomic write
                    inner_seen[o] = omp_get_num_threads(); /* every writer agrees */
                }
            }
        }
        snprintf(what, sizeof what, "nested parallel for, %d iterations", n);
        ws_expect_hits(hits, n, 2, what);
        LITE_EXPECT(inner_seen[0] == inner_want && inner_seen[1] == inner_want,
                    "%s: inner teams of %d and %d, expected %d", what, inner_seen[0],
                    inner_seen[1], inner_want);
    }
    /* Combined loops with constant bounds (GOMP_parallel_loop_*, tiny ones included) started
       by both threads of an outer region at once: each runs every iteration, so twice in all. */
    for (int r = 0; r < 10; r++) {
        for (int e = 0; e < NTABLE; e++) {
#pragma omp parallel num_threads(2)
            table[e].fn();
            snprintf(what, sizeof what, "parallel for %s, %d iterations, nested in a region of 2",
                     table[e].name, table[e].n);
            ws_expect_hits(hits, table[e].n, 2, what);
            team_seen = 0;
        }
    }
    ws_note("nested: ok");

    /* if(0): a team of one runs all of it. */
    for (int r = 0; r < 10; r++) {
        int size = 0;
#pragma omp parallel for schedule(dynamic) if (0)
        for (int i = 0; i < 64; i++) {
            ws_hit(hits, i);
            size = omp_get_num_threads();
        }
        ws_expect_hits(hits, 64, 1, "parallel for if(0)");
        LITE_EXPECT(size == 1, "parallel for if(0): a team of %d", size);
    }
    ws_note("PASS");
    return 0;
}
