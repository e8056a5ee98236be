/* Cancellation: cancel for, cancel sections, cancel parallel and cancellation points, with
   OMP_CANCELLATION=true (the runner's cancel case) and with it unset (cancel is then a no-op).

   cancel for: iteration K cancels the loop; every iteration after K waits at a cancellation
   point until it sees the cancellation (up to a generous bound, then the test fails: a
   cancellation other threads never see). Since those iterations cannot finish before the
   cancel, no chunk may be handed out after it, so: every iteration up to K ran once, at most
   one iteration after K ran per other thread (the one it was waiting in), and the cancelling
   thread ran nothing after its cancel. The loop then ends normally and the region goes on.
   cancel sections: section 0 cancels, the others wait at a cancellation point for it: at most
   one section per thread runs. cancel parallel: members waiting in a barrier (a plain one, and
   the barrier at the end of a worksharing loop) are released, and nobody gets past it. After
   each cancelled construct or region, the next ones run normally. With cancellation off, every
   iteration and section runs and every barrier is passed.

   Entry points (gcc 12, objdump): GOMP_cancel, GOMP_cancellation_point; GOMP_barrier_cancel
   (a barrier in a region that has a cancel parallel) and GOMP_loop_end_cancel (a loop in such
   a region); GOMP_loop_{nonmonotonic_,}{dynamic,guided}_start/_next and
   GOMP_loop_maybe_nonmonotonic_runtime_* with GOMP_loop_end; schedule(static[, 1]) split inline
   by gcc, ending in GOMP_barrier (no worksharing call at all: the cancel must still reach the
   other threads' cancellation points); GOMP_sections_start/_next/_end_nowait.
   A barrier in a function called from the region (orphaned) is the plain GOMP_barrier: gcc
   cannot see the cancel. It is still a cancellation point, so members waiting in it must be let
   out when thread 0 cancels and goes to the end of the region (stock libgomp 12 waits forever
   there: the case fails on the stock route).

   usage: ws_cancel */
#include "ws_test.h"

#define N 20000
#define K 5
#define WAIT_LIMIT_S 10.0 /* a cancellation not seen by then is never seen */

static int hits[N];
static int canceller[WS_MAXT]; /* thread t has cancelled the current construct */
static int ran_after_cancel;   /* the cancelling thread ran an iteration after its cancel */
static int never_saw;          /* a cancellation point did not see the cancellation */
static bool active;

/* Waits at a cancellation point until the construct is cancelled: the pragma leaves it. Once
   one wait has given up, the others do at once (the test fails then anyway). */
#define WAIT_FOR_CANCEL(kind)                                                                      \
    do {                                                                                           \
        double t0_ = ws_now();                                                                     \
        for (;;) {                                                                                 \
            WS_PRAGMA(omp cancellation point kind)                                                 \
            if (never_saw || ws_now() - t0_ > WAIT_LIMIT_S) {                                      \
                never_saw = 1;                                                                     \
                break;                                                                             \
            }                                                                                      \
            ws_sleep_us(20);                                                                       \
        }                                                                                          \
    } while (0)

static void body(long i)
{
    int t = omp_get_thread_num();
    if (canceller[t])
        ran_after_cancel = 1;
    ws_hit(hits, i);
}

/* One orphaned cancellable loop per schedule. */
#define CANCEL_LOOP(name, ...)                                                                     \
    static void name(void)                                                                         \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__)                                                             \
        for (long i = 0; i < N; i++) {                                                             \
            body(i);                                                                               \
            if (i == K) {                                                                          \
                canceller[omp_get_thread_num()] = active;                                          \
                _Pragma("omp cancel for")                                                          \
            } else if (i > K && active) {                                                          \
                WAIT_FOR_CANCEL(for);                                                              \
            }                                                                                      \
        }                                                                                          \
    }

CANCEL_LOOP(c_dynamic, schedule(dynamic))
CANCEL_LOOP(c_dynamic3, schedule(dynamic, 3))
CANCEL_LOOP(c_mdynamic, schedule(monotonic: dynamic))
CANCEL_LOOP(c_guided, schedule(guided))
CANCEL_LOOP(c_mguided, schedule(monotonic: guided))
CANCEL_LOOP(c_runtime, schedule(runtime))
CANCEL_LOOP(c_static, schedule(static))
CANCEL_LOOP(c_static1, schedule(static, 1))

static const struct {
    const char *name;
    void (*fn)(void);
} loops[] = {
    { "dynamic", c_dynamic },
    { "dynamic,3", c_dynamic3 },
    { "monotonic:dynamic", c_mdynamic },
    { "guided", c_guided },
    { "monotonic:guided", c_mguided },
    { "runtime", c_runtime },
    { "static", c_static },
    { "static,1", c_static1 },
};
#define NLOOPS ((int)(sizeof loops / sizeof loops[0]))

static void reset(void)
{
    memset(canceller, 0, sizeof canceller);
    ran_after_cancel = 0;
    never_saw = 0;
}

/* A plain loop after a cancelled one: everything runs. */
static void plain_loop(long n)
{
#pragma omp for schedule(dynamic, 2)
    for (long i = 0; i < n; i++)
        ws_hit(hits, i);
}

static void check_cancelled_loop(const char *name, int size, int next_loop_hits)
{
    char what[200];
    snprintf(what, sizeof what, "cancel for, schedule(%s), %d threads, cancellation %s", name,
             size, active ? "on" : "off");
    LITE_EXPECT(!never_saw, "%s: a cancellation point in another iteration never saw the "
                "cancellation (waited %.0f s)", what, WAIT_LIMIT_S);
    LITE_EXPECT(!ran_after_cancel, "%s: the cancelling thread ran an iteration after its cancel",
                what);
    /* The loop after it (plain_loop over K + 1 iterations) adds next_loop_hits to 0..K. */
    long after = 0;
    for (long i = 0; i < N; i++) {
        int want_min = i <= K ? 1 + next_loop_hits : 0;
        if (!active)
            want_min = 1 + (i <= K ? next_loop_hits : 0);
        LITE_EXPECT(hits[i] >= want_min && hits[i] <= want_min + (i > K && active),
                    "%s: iteration %ld ran %d times", what, i, hits[i]);
        if (i > K)
            after += hits[i];
        hits[i] = 0;
    }
    if (active)
        LITE_EXPECT(after <= size - 1, "%s: %ld iterations after the cancelled one ran; at most "
                    "%d (one per other thread) may", what, after, size - 1);
}

static void cancel_for(void)
{
    for (int l = 0; l < NLOOPS; l++) {
        for (int rep = 0; rep < 3; rep++) {
            int size = 0;
            reset();
#pragma omp parallel
            {
#pragma omp master
                size = omp_get_num_threads();
                loops[l].fn();
                plain_loop(K + 1); /* the region goes on: the next loop runs whole */
            }
            check_cancelled_loop(loops[l].name, size, 1);
        }
    }
    /* Outside any region: the cancel (if active) ends the loop on the initial thread. */
    reset();
    c_dynamic();
    LITE_EXPECT(!never_saw && !ran_after_cancel, "cancel for outside any region");
    for (long i = 0; i < N; i++) {
        LITE_EXPECT(hits[i] == (i <= K || !active ? 1 : 0),
                    "cancel for outside any region: iteration %ld ran %d times", i, hits[i]);
        hits[i] = 0;
    }
}

/* cancel for in a loop lexically inside its region: gcc ends it with GOMP_loop_end_cancel. */
static void cancel_for_inline(void)
{
    for (int rep = 0; rep < 5; rep++) {
        int size = 0;
        int passed = 0;
        reset();
#pragma omp parallel
        {
#pragma omp master
            size = omp_get_num_threads();
#pragma omp for schedule(dynamic)
            for (long i = 0; i < N; i++) {
                body(i);
                if (i == K) {
                    canceller[omp_get_thread_num()] = active;
#pragma omp cancel for
                } else if (i > K && active) {
                    WAIT_FOR_CANCEL(for);
                }
            }
#pragma omp atomic update
            passed++;
            plain_loop(K + 1);
        }
        check_cancelled_loop("dynamic (in the region's own body)", size, 1);
        LITE_EXPECT(passed == size, "cancel for: %d of %d threads went on after the loop",
                    passed, size);
    }
}

static int shits[10];
static void cancel_sections(void)
{
    for (int rep = 0; rep < 5; rep++) {
        int size = 0;
        reset();
#pragma omp parallel
        {
#pragma omp master
            size = omp_get_num_threads();
#pragma omp sections
            {
#pragma omp section
                {
                    ws_hit(shits, 0);
#pragma omp cancel sections
                }
#pragma omp section
                {
                    ws_hit(shits, 1);
                    if (active)
                        WAIT_FOR_CANCEL(sections);
                }
#pragma omp section
                {
                    ws_hit(shits, 2);
                    if (active)
                        WAIT_FOR_CANCEL(sections);
                }
#pragma omp section
                {
                    ws_hit(shits, 3);
                    if (active)
                        WAIT_FOR_CANCEL(sections);
                }
#pragma omp section
                {
                    ws_hit(shits, 4);
                    if (active)
                        WAIT_FOR_CANCEL(sections);
                }
#pragma omp section
                {
                    ws_hit(shits, 5);
                    if (active)
                        WAIT_FOR_CANCEL(sections);
                }
            }
        }
        LITE_EXPECT(!never_saw, "cancel sections: a cancellation point never saw it");
        int ran = 0;
        for (int s = 0; s < 6; s++) {
            LITE_EXPECT(shits[s] <= 1, "cancel sections: section %d ran %d times", s, shits[s]);
            LITE_EXPECT(active || shits[s] == 1, "sections (cancellation off): section %d ran "
                        "%d times", s, shits[s]);
            ran += shits[s];
            shits[s] = 0;
        }
        LITE_EXPECT(!active || ran <= size, "cancel sections: %d sections ran on %d threads; "
                    "after the cancel none may start", ran, size);
    }
}

/* gcc cannot tell that an orphaned barrier may be in a region with a cancel: it calls the
   plain GOMP_barrier. */
static __attribute__((noinline)) void orphaned_barrier(void)
{
#pragma omp barrier
}

static void cancel_parallel(void)
{
    for (int rep = 0; rep < 5; rep++) {
        int size = 0, passed = 0, passed_loop = 0, after_point = 0;
        never_saw = 0;
        /* Members wait in a plain barrier; thread 0 cancels instead of arriving. */
#pragma omp parallel
        {
#pragma omp master
            size = omp_get_num_threads();
            if (omp_get_thread_num() == 0) {
                ws_sleep_us(1000); /* let the others reach the barrier (not needed for the check) */
#pragma omp cancel parallel
            }
#pragma omp barrier
#pragma omp atomic update
            passed++;
        }
        LITE_EXPECT(passed == (active ? 0 : size), "cancel parallel: %d of %d threads got past "
                    "the barrier, expected %d", passed, size, active ? 0 : size);

        /* Members wait at the end of a worksharing loop (GOMP_loop_end_cancel) that thread 0
           never reaches: it cancels the region first. */
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
                ws_sleep_us(1000);
#pragma omp cancel parallel
            }
#pragma omp for schedule(dynamic)
            for (int i = 0; i < 64; i++)
                ws_hit(hits, i);
#pragma omp atomic update
            passed_loop++;
        }
        LITE_EXPECT(passed_loop == (active ? 0 : size), "cancel parallel: %d of %d threads got "
                    "past a loop's barrier, expected %d", passed_loop, size, active ? 0 : size);
        for (int i = 0; i < 64; i++) {
            LITE_EXPECT(active || hits[i] == 1, "parallel (cancellation off): iteration %d ran "
                        "%d times", i, hits[i]);
            LITE_EXPECT(hits[i] <= 1, "cancelled region: iteration %d ran %d times", i, hits[i]);
            hits[i] = 0;
        }

        /* Members wait in a plain (orphaned) barrier that thread 0 never reaches: it cancels
           the region and goes to its end, which must let them out; the cancellation point
           after the barrier then ends their region too. */
        int passed_orphaned = 0;
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
                ws_sleep_us(1000);
#pragma omp cancel parallel
            }
            orphaned_barrier();
#pragma omp cancellation point parallel
#pragma omp atomic update
            passed_orphaned++;
        }
        LITE_EXPECT(passed_orphaned == (active ? 0 : size), "cancel parallel: %d of %d threads "
                    "went on after an orphaned barrier, expected %d", passed_orphaned, size,
                    active ? 0 : size);

        /* Members poll a cancellation point until thread 0 cancels. */
#pragma omp parallel
        {
            if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
            } else if (active) {
                double t0 = ws_now();
                for (;;) {
#pragma omp cancellation point parallel
                    if (ws_now() - t0 > WAIT_LIMIT_S) {
                        never_saw = 1;
                        break;
                    }
                    ws_sleep_us(20);
                }
            }
#pragma omp atomic update
            after_point++;
        }
        LITE_EXPECT(!never_saw, "cancellation point parallel never saw the cancellation");
        LITE_EXPECT(after_point == (active ? 0 : size), "cancel parallel: %d threads went on "
                    "past it, expected %d", after_point, active ? 0 : size);

        /* A normal region afterwards: barriers, a loop, a single, all threads. */
        int count = 0;
#pragma omp parallel
        {
            for (int b = 0; b < 3; b++) {
#pragma omp barrier
            }
            plain_loop(1000);
#pragma omp single
            count = omp_get_num_threads();
        }
        for (int i = 0; i < 1000; i++) {
            LITE_EXPECT(hits[i] == 1, "the region after a cancelled one: iteration %d ran %d "
                        "times", i, hits[i]);
            hits[i] = 0;
        }
        LITE_EXPECT(count == size, "the region after a cancelled one has %d threads", count);
    }
}

int main(void)
{
    LITE_CHECK("ws_cancel");
    active = omp_get_cancellation() != 0;
    const char *env = getenv("OMP_CANCELLATION");
    bool want = env != NULL && strcasecmp(env, "true") == 0;
    LITE_EXPECT(active == want, "omp_get_cancellation() = %d with OMP_CANCELLATION=%s", active,
                env ? env : "(unset)");
    cancel_for();
    ws_note("cancel for (orphaned loops): ok, cancellation %s", active ? "on" : "off");
    cancel_for_inline();
    ws_note("cancel for (in the region): ok");
    cancel_sections();
    ws_note("cancel sections: ok");
    cancel_parallel();
    ws_note("PASS");
    return 0;
}
