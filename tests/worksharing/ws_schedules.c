/* Every loop schedule hands out each iteration exactly once, in every setting a loop meets:
   in a parallel region (the loop's own barrier, then a check by the master before anyone moves
   on), as long chains of nowait loops whose threads drift apart (more loops in a row than the
   runtime's ring of worksharing entries, so fast threads must wait for slow ones to free an
   entry; and loops and sections ending in barriers, whose entries the barrier frees, between
   nowait loops), as orphaned loops (every loop here is in a function of its own), called outside any
   parallel region, and in nested parallel regions (inner teams when OMP_MAX_ACTIVE_LEVELS >= 2,
   teams of one otherwise). Monotonic schedules are checked to be monotonic per thread.

   Entry points (gcc 12, objdump of this file): schedule(static[,c]) and auto are computed
   inline (no loop call; GOMP_barrier at the end); dynamic, guided and nonmonotonic:dynamic ->
   GOMP_loop_nonmonotonic_{dynamic,guided}_start/_next; monotonic:dynamic, monotonic:guided ->
   GOMP_loop_{dynamic,guided}_start/_next; runtime -> GOMP_loop_maybe_nonmonotonic_runtime_*;
   monotonic:runtime -> GOMP_loop_runtime_*; nonmonotonic:runtime ->
   GOMP_loop_nonmonotonic_runtime_*; GOMP_loop_end / GOMP_loop_end_nowait.

   usage: ws_schedules   (team size from OMP_NUM_THREADS) */
#include "ws_test.h"

typedef void loop_fn(long n, int *hits, struct ws_mono *m);

/* One orphaned loop per schedule, with and without nowait. Some iterations cost more than
   others, so that the threads' progress differs. */
#define LOOP_FNS(name, ...)                                                                        \
    static void name(long n, int *hits, struct ws_mono *m)                                         \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__)                                                             \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            if (m != NULL)                                                                         \
                ws_mono_see(m, omp_get_thread_num(), i);                                           \
            if (i % 13 == 5)                                                                       \
                ws_work(300);                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void name##_nowait(long n, int *hits, struct ws_mono *m)                                \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__ nowait)                                                      \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            if (m != NULL)                                                                         \
                ws_mono_see(m, omp_get_thread_num(), i);                                           \
            if (i % 17 == 3)                                                                       \
                ws_work(300);                                                                      \
        }                                                                                          \
    }

LOOP_FNS(l_static, schedule(static))
LOOP_FNS(l_static1, schedule(static, 1))
LOOP_FNS(l_static3, schedule(static, 3))
LOOP_FNS(l_static64, schedule(static, 64))
LOOP_FNS(l_mstatic, schedule(monotonic: static))
LOOP_FNS(l_dynamic, schedule(dynamic))
LOOP_FNS(l_dynamic3, schedule(dynamic, 3))
LOOP_FNS(l_guided, schedule(guided))
LOOP_FNS(l_guided7, schedule(guided, 7))
LOOP_FNS(l_runtime, schedule(runtime))
LOOP_FNS(l_auto, schedule(auto))
LOOP_FNS(l_mdynamic, schedule(monotonic: dynamic))
LOOP_FNS(l_mdynamic5, schedule(monotonic: dynamic, 5))
LOOP_FNS(l_mguided, schedule(monotonic: guided))
LOOP_FNS(l_mguided3, schedule(monotonic: guided, 3))
LOOP_FNS(l_nmdynamic, schedule(nonmonotonic: dynamic))
LOOP_FNS(l_nmdynamic4, schedule(nonmonotonic: dynamic, 4))
LOOP_FNS(l_nmguided, schedule(nonmonotonic: guided))
LOOP_FNS(l_mruntime, schedule(monotonic: runtime))
LOOP_FNS(l_nmruntime, schedule(nonmonotonic: runtime))
LOOP_FNS(l_static_big, schedule(static, 100000))
LOOP_FNS(l_dynamic_big, schedule(dynamic, 4096))
LOOP_FNS(l_guided_big, schedule(guided, 100000))

struct sched {
    const char *name;
    loop_fn *fn, *fn_nowait;
    bool monotonic; /* guaranteed monotonic whatever OMP_SCHEDULE says */
};

#define S(name, fn, mono) { name, fn, fn##_nowait, mono }
static const struct sched scheds[] = {
    S("static", l_static, true),
    S("static,1", l_static1, true),
    S("static,3", l_static3, true),
    S("static,64", l_static64, true),
    S("monotonic:static", l_mstatic, true),
    S("dynamic", l_dynamic, false),
    S("dynamic,3", l_dynamic3, false),
    S("guided", l_guided, false),
    S("guided,7", l_guided7, false),
    S("runtime", l_runtime, false),
    S("auto", l_auto, false),
    S("monotonic:dynamic", l_mdynamic, true),
    S("monotonic:dynamic,5", l_mdynamic5, true),
    S("monotonic:guided", l_mguided, true),
    S("monotonic:guided,3", l_mguided3, true),
    S("nonmonotonic:dynamic", l_nmdynamic, false),
    S("nonmonotonic:dynamic,4", l_nmdynamic4, false),
    S("nonmonotonic:guided", l_nmguided, false),
    S("monotonic:runtime", l_mruntime, true),
    S("nonmonotonic:runtime", l_nmruntime, false),
    S("static,100000", l_static_big, true),
    S("dynamic,4096", l_dynamic_big, false),
    S("guided,100000", l_guided_big, false),
};
#define NSCHED ((int)(sizeof scheds / sizeof scheds[0]))

static const long trips[] = { 0, 1, 2, 3, 17, 64, 1000, 5003 };
#define NTRIPS ((int)(sizeof trips / sizeof trips[0]))
#define MAXN 5003

static char what[200];

/* A: in a parallel region, with the loop's barrier; the master checks right after it. */
static void in_region(const struct sched *s, long n, int *hits, struct ws_mono *m)
{
    int bad_at = -1, size = 0;
    ws_mono_reset(m);
#pragma omp parallel
    {
#pragma omp master
        size = omp_get_num_threads();
        s->fn(n, hits, m);
        /* The loop's barrier is behind every thread: all iterations are done. */
#pragma omp master
        for (long i = 0; i < n && bad_at < 0; i++)
            if (hits[i] != 1)
                bad_at = (int)i;
#pragma omp barrier
    }
    snprintf(what, sizeof what, "%s, %ld iterations, %d threads, in a region", s->name, n, size);
    LITE_EXPECT(bad_at < 0, "%s: after the loop's barrier iteration %d had run %d times", what,
                bad_at, bad_at >= 0 ? hits[bad_at] : 0);
    ws_expect_hits(hits, n, 1, what);
    if (s->monotonic)
        ws_mono_expect(m, what);
}

/* B: a chain of CHAIN nowait loops of every schedule, the team drifting apart, one thread held
   back at the start so that the others run a full ring ahead and must wait for it. */
#define CHAIN 21
static void nowait_chain(long n, int **hits_k, struct ws_mono *m, int rotate)
{
    int size = 0;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp master
        size = omp_get_num_threads();
        if (t == omp_get_num_threads() - 1 && t > 0)
            ws_sleep_us(3000);
        for (int k = 0; k < CHAIN; k++) {
            ws_drift(k + rotate);
            scheds[(k + rotate) % NSCHED].fn_nowait(n, hits_k[k], &m[k]);
        }
    }
    for (int k = 0; k < CHAIN; k++) {
        const struct sched *s = &scheds[(k + rotate) % NSCHED];
        snprintf(what, sizeof what, "%s, %ld iterations, %d threads, nowait loop %d of a chain",
                 s->name, n, size, k);
        ws_expect_hits(hits_k[k], n, 1, what);
        if (s->monotonic)
            ws_mono_expect(&m[k], what);
        ws_mono_reset(&m[k]);
    }
}

/* B': the same nowait loop CHAIN times in a row (one call site, the ring cycled), each run
   adding one hit per iteration. */
static void same_site_chain(const struct sched *s, long n, int *hits)
{
#pragma omp parallel
    {
        for (int k = 0; k < CHAIN; k++) {
            ws_drift(k);
            s->fn_nowait(n, hits, NULL);
        }
    }
    snprintf(what, sizeof what, "%s, %ld iterations, the same nowait loop %d times in a row",
             s->name, n, CHAIN);
    ws_expect_hits(hits, n, CHAIN, what);
}

/* B'': a long run of tiny nowait loops (RACE_LOOPS in one region, the ring cycled thousands of
   times), where a member that must wait for an entry to be freed parks at once under
   OMP_WAIT_POLICY=passive (run-ws.sh runs it so). A parked member once slept forever when,
   before its futex call, the entry's last member left, another claimed it and all but the
   sleeper left again (the departure count back where the sleeper had seen it): 10 runs in 10
   of this program hung at 3 threads on 2 CPUs. */
#define RACE_LOOPS 20000
static void ring_race(const struct sched *s, long n, int *hits)
{
#pragma omp parallel
    for (int k = 0; k < RACE_LOOPS; k++)
        s->fn_nowait(n, hits, NULL);
    snprintf(what, sizeof what, "%s, %ld iterations, %d nowait loops in a row", s->name, n,
             RACE_LOOPS);
    ws_expect_hits(hits, n, RACE_LOOPS, what);
}

/* B''': loops and sections that end in a barrier, CHAIN of each in one region, between nowait
   loops, the team drifting apart. A member leaves such a construct's ring entry without counting
   itself out (the barrier says everyone is done): every entry is reused several times in each
   mode, the nowait loops letting fast members run ahead into entries that barrier-ended
   constructs held. */
static void barrier_chain(long n, int **hits_k, int rotate)
{
    int size = 0, sections_seen[CHAIN][3];
    memset(sections_seen, 0, sizeof sections_seen);
#pragma omp parallel
    {
#pragma omp master
        size = omp_get_num_threads();
        for (int k = 0; k < CHAIN; k++) {
            ws_drift(k + rotate);
            scheds[(k + rotate) % NSCHED].fn(n, hits_k[k], NULL);
            scheds[(k + rotate + 3) % NSCHED].fn_nowait(n, hits_k[k], NULL);
#pragma omp sections
            {
#pragma omp section
                __atomic_fetch_add(&sections_seen[k][0], 1, __ATOMIC_RELAXED);
#pragma omp section
                __atomic_fetch_add(&sections_seen[k][1], 1, __ATOMIC_RELAXED);
#pragma omp section
                {
                    ws_drift(k);
                    __atomic_fetch_add(&sections_seen[k][2], 1, __ATOMIC_RELAXED);
                }
            }
        }
    }
    for (int k = 0; k < CHAIN; k++) {
        snprintf(what, sizeof what, "%s then %s nowait, %ld iterations, %d threads, loop pair %d of "
                 "a chain ending in barriers", scheds[(k + rotate) % NSCHED].name,
                 scheds[(k + rotate + 3) % NSCHED].name, n, size, k);
        ws_expect_hits(hits_k[k], n, 2, what);
        for (int j = 0; j < 3; j++)
            LITE_EXPECT(sections_seen[k][j] == 1, "section %d of sections %d in a chain ending in "
                        "barriers ran %d times (%d threads)", j, k, sections_seen[k][j], size);
    }
}

/* C: orphaned loops called outside any parallel region: the initial thread runs them all. */
static void outside(const struct sched *s, long n, int *hits, struct ws_mono *m)
{
    ws_mono_reset(m);
    s->fn(n, hits, m);
    s->fn_nowait(n, hits, NULL);
    snprintf(what, sizeof what, "%s, %ld iterations, outside any parallel region", s->name, n);
    ws_expect_hits(hits, n, 2, what);
    ws_mono_expect(m, what);
}

/* D: nested regions: two outer threads, each leading an inner team running its own loops. */
static void nested(const struct sched *s, long n, int *hits2, int inner)
{
    int inner_size[2] = { 0, 0 };
    int want_inner = omp_get_max_active_levels() >= 2 ? inner : 1;
#pragma omp parallel num_threads(2)
    {
        int o = omp_get_thread_num();
#pragma omp parallel num_threads(inner)
        {
#pragma omp master
            inner_size[o] = omp_get_num_threads();
            s->fn(n, hits2 + o * n, NULL);
            for (int k = 0; k < 10; k++)
                s->fn_nowait(n, hits2 + o * n, NULL);
        }
        s->fn(n, hits2 + o * n, NULL); /* the outer team's own loop, between the inner ones */
    }
    for (int o = 0; o < 2; o++) {
        LITE_EXPECT(inner_size[o] == want_inner,
                    "%s: nested region of outer thread %d has %d threads, expected %d", s->name,
                    o, inner_size[o], want_inner);
    }
    snprintf(what, sizeof what, "%s, %ld iterations, nested (2 x %d threads)", s->name, n,
             want_inner);
    /* Each half of hits2 belongs to one outer thread: 11 runs of its inner loops, plus its share
       of the outer team's loop, whose iterations the two halves together hold once each. */
    for (long i = 0; i < n; i++) {
        int outer_hits = hits2[i] - 11 + hits2[n + i] - 11;
        LITE_EXPECT(hits2[i] >= 11 && hits2[n + i] >= 11 && outer_hits == 1,
                    "%s: iteration %ld ran %d and %d times in the two halves, expected 11 each "
                    "plus one outer run", what, i, hits2[i], hits2[n + i]);
        hits2[i] = hits2[n + i] = 0;
    }
}

int main(void)
{
    LITE_CHECK("ws_schedules");
    int nt = ws_threads();
    int *hits = ws_calloc(MAXN, sizeof *hits);
    int *hits2 = ws_calloc(2 * MAXN, sizeof *hits2);
    int *hits_k[CHAIN];
    static struct ws_mono m, mk[CHAIN];
    for (int k = 0; k < CHAIN; k++) {
        hits_k[k] = ws_calloc(MAXN, sizeof *hits_k[k]);
        ws_mono_reset(&mk[k]);
    }

    for (int si = 0; si < NSCHED; si++)
        for (int ti = 0; ti < NTRIPS; ti++)
            in_region(&scheds[si], trips[ti], hits, &m);
    ws_note("every schedule in a region: ok (%d threads)", nt);

    for (int ti = 0; ti < NTRIPS; ti++)
        for (int rotate = 0; rotate < NSCHED; rotate += 7)
            nowait_chain(trips[ti], hits_k, mk, rotate + ti);
    for (int si = 0; si < NSCHED; si++) {
        same_site_chain(&scheds[si], 3, hits);
        same_site_chain(&scheds[si], 777, hits);
    }
    ws_note("nowait chains of %d loops: ok", CHAIN);

    for (int ti = 0; ti < NTRIPS; ti++)
        barrier_chain(trips[ti], hits_k, ti);
    ws_note("chains of %d loops and sections ending in barriers: ok", CHAIN);

    for (int si = 0; si < NSCHED; si++)
        if (strcmp(scheds[si].name, "dynamic,3") == 0 ||
            strcmp(scheds[si].name, "monotonic:dynamic") == 0)
            ring_race(&scheds[si], 1, hits);
    ws_note("%d tiny nowait loops in a row: ok", RACE_LOOPS);

    for (int si = 0; si < NSCHED; si++)
        for (int ti = 0; ti < NTRIPS; ti++)
            outside(&scheds[si], trips[ti], hits, &m);
    ws_note("orphaned loops outside any region: ok");

    int inner = nt > 4 ? 4 : nt;
    for (int si = 0; si < NSCHED; si++) {
        nested(&scheds[si], 1, hits2, inner);
        nested(&scheds[si], 300, hits2, inner);
    }
    ws_note("nested regions (max-active-levels %d): ok", omp_get_max_active_levels());

    /* Regions of changing sizes one after another (the same pool, its ring entries and
       per-thread ranges reused by teams of other sizes), each with a nowait chain. */
    for (int r = 0; r < 3 * nt; r++) {
        int want = 1 + (r * 7) % nt, size = 0;
#pragma omp parallel num_threads(want)
        {
#pragma omp master
            size = omp_get_num_threads();
            for (int k = 0; k < CHAIN; k++)
                scheds[(k + r) % NSCHED].fn_nowait(trips[(k + r) % NTRIPS], hits_k[k], NULL);
        }
        LITE_EXPECT(size == want, "a region of num_threads(%d) has %d threads", want, size);
        for (int k = 0; k < CHAIN; k++) {
            snprintf(what, sizeof what, "%s, %ld iterations, nowait loop %d in a region of %d "
                     "threads after one of another size", scheds[(k + r) % NSCHED].name,
                     trips[(k + r) % NTRIPS], k, want);
            ws_expect_hits(hits_k[k], trips[(k + r) % NTRIPS], 1, what);
        }
    }
    ws_note("regions of changing sizes: ok");

    /* Loops in a region after all that: the runtime's state is still sound. */
    for (int si = 0; si < NSCHED; si++)
        in_region(&scheds[si], 1000, hits, &m);
    ws_note("PASS");
    return 0;
}
