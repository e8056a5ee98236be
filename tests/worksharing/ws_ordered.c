/* ordered: the ordered regions of a loop run one at a time, in iteration order, under every
   schedule an ordered loop can have (static, static with chunks, dynamic, guided, runtime),
   including iterations and whole chunks that skip their ordered region, and work outside the
   region that varies from one iteration to the next; every iteration runs once and each thread's
   iterations increase (an ordered loop is monotonic). Also: counting down by a step, unsigned
   long long loops near ULLONG_MAX, nowait ordered loops back to back, ordered loops outside any
   region and nested in another region, a combined parallel for ordered.

   Entry points (gcc 12, objdump): GOMP_loop_ordered_{static,dynamic,guided,runtime}_start and
   _next (long), GOMP_loop_ull_ordered_*_start/_next (unsigned long long), GOMP_ordered_start and
   GOMP_ordered_end, GOMP_loop_end / GOMP_loop_end_nowait; parallel for ordered -> GOMP_parallel
   with the same inside.

   usage: ws_ordered         (the runner varies OMP_SCHEDULE for the runtime loops)
          ws_ordered turns   only the turn hand-off stress (see turns()) */
#include "ws_test.h"

#define MAXN 3000
#define SLOTS 13
static int hits[MAXN];
/* Per log slot (one per loop running at the same time): the logical iterations in the order
   their ordered regions ran, and the threads inside one of its ordered regions right now. */
static long seq[SLOTS][MAXN];
static long nseq[SLOTS];
static int inside[SLOTS];
static int overlap;
static bool track_mono = true;
static struct ws_mono mono;

/* Does logical iteration k run its ordered region? skip: 0 all, 1 every third skips, 2 whole
   runs of 5 iterations skip, 3 only every 97th runs it. */
static bool takes_part(long k, int skip)
{
    switch (skip) {
    case 0: return true;
    case 1: return k % 3 != 2;
    case 2: return (k / 5) % 2 == 0;
    default: return k % 97 == 11;
    }
}

static void ordered_body(long k, int slot)
{
    int now;
#pragma omp atomic capture
    now = ++inside[slot];
    if (now != 1)
        overlap = 1;
    seq[slot][nseq[slot]++] = k;
    if (k % 41 == 0)
        ws_work(500); /* stay inside a while: an overlap would show */
#pragma omp atomic update
    inside[slot]--;
}

static void iteration(long k)
{
    ws_hit(hits, k);
    if (track_mono)
        ws_mono_see(&mono, omp_get_thread_num(), k);
    if (k % 7 == 3)
        ws_work(300 + 50 * (unsigned long)(k % 5)); /* uneven work before the region */
}

#define ORDERED_FNS(name, ...)                                                                     \
    static void name(long n, int skip)                                                             \
    {                                                                                              \
        WS_PRAGMA(omp for ordered __VA_ARGS__)                                                     \
        for (long i = 0; i < n; i++) {                                                             \
            iteration(i);                                                                    \
            if (takes_part(i, skip)) {                                                             \
                WS_PRAGMA(omp ordered)                                                             \
                ordered_body(i, 0);                                                                \
            }                                                                                      \
            if (i % 11 == 4)                                                                       \
                ws_work(200); /* and after it */                                                   \
        }                                                                                          \
    }                                                                                              \
    static void name##_nowait(long n, int skip, int slot)                                          \
    {                                                                                              \
        WS_PRAGMA(omp for ordered nowait __VA_ARGS__)                                              \
        for (long i = 0; i < n; i++) {                                                             \
            iteration(i);                                                                          \
            if (takes_part(i, skip)) {                                                             \
                WS_PRAGMA(omp ordered)                                                             \
                ordered_body(i, slot);                                                             \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void name##_down(long n, int skip)                                                      \
    {                                                                                              \
        long top = 5 * n - 3;                                                                      \
        WS_PRAGMA(omp for ordered __VA_ARGS__)                                                     \
        for (long v = top; v > -3; v -= 5) {                                                       \
            long k = (top - v) / 5;                                                                \
            iteration(k);                                                                    \
            if (takes_part(k, skip)) {                                                             \
                WS_PRAGMA(omp ordered)                                                             \
                ordered_body(k, 0);                                                                \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    static void name##_ull(long n, int skip)                                                       \
    {                                                                                              \
        unsigned long long base = ULLONG_MAX - 2 * (unsigned long long)n;                          \
        WS_PRAGMA(omp for ordered __VA_ARGS__)                                                     \
        for (unsigned long long v = base; v < ULLONG_MAX - 1; v += 2) {                            \
            long k = (long)((v - base) / 2);                                                       \
            iteration(k);                                                                    \
            if (takes_part(k, skip)) {                                                             \
                WS_PRAGMA(omp ordered)                                                             \
                ordered_body(k, 0);                                                                \
            }                                                                                      \
        }                                                                                          \
    }

ORDERED_FNS(o_static, schedule(static))
ORDERED_FNS(o_static1, schedule(static, 1))
ORDERED_FNS(o_static4, schedule(static, 4))
ORDERED_FNS(o_dynamic, schedule(dynamic))
ORDERED_FNS(o_dynamic3, schedule(dynamic, 3))
ORDERED_FNS(o_guided, schedule(guided))
ORDERED_FNS(o_guided2, schedule(guided, 2))
ORDERED_FNS(o_mdynamic, schedule(monotonic: dynamic, 2))
ORDERED_FNS(o_runtime, schedule(runtime))
ORDERED_FNS(o_default, )

typedef void ordered_fn(long n, int skip);
struct ordered_loop {
    const char *name;
    ordered_fn *fn;
    void (*nowait)(long n, int skip, int slot);
    ordered_fn *down, *ull;
};
#define E(name, fn) { name, fn, fn##_nowait, fn##_down, fn##_ull }
static const struct ordered_loop loops[] = {
    E("static", o_static),          E("static,1", o_static1),
    E("static,4", o_static4),       E("dynamic", o_dynamic),
    E("dynamic,3", o_dynamic3),     E("guided", o_guided),
    E("guided,2", o_guided2),       E("monotonic:dynamic,2", o_mdynamic),
    E("runtime", o_runtime),        E("(no schedule clause)", o_default),
};
#define NLOOPS ((int)(sizeof loops / sizeof loops[0]))

static char what[200];

static void reset(void)
{
    for (int k = 0; k < SLOTS; k++)
        nseq[k] = 0;
    overlap = 0;
    ws_mono_reset(&mono);
}

/* The ordered regions logged in slot ran in iteration order, each once. */
static void verify_slot(long n, int skip, int slot)
{
    long per = 0;
    for (long k = 0; k < n; k++)
        per += takes_part(k, skip);
    LITE_EXPECT(nseq[slot] == per, "%s: %ld ordered regions ran, expected %ld", what, nseq[slot],
                per);
    long pos = 0;
    for (long k = 0; k < n; k++)
        if (takes_part(k, skip)) {
            LITE_EXPECT(seq[slot][pos] == k, "%s: ordered region number %ld belongs to iteration "
                        "%ld, expected %ld", what, pos, seq[slot][pos], k);
            pos++;
        }
}

/* After one loop of n iterations: every iteration once, the ordered regions in order, one at a
   time, each thread's iterations increasing. */
static void verify(long n, int skip, const char *how)
{
    snprintf(what, sizeof what, "%s, %ld iterations, skip pattern %d, %d threads", how, n, skip,
             omp_get_max_threads());
    ws_expect_hits(hits, n, 1, what);
    LITE_EXPECT(!overlap, "%s: two ordered regions ran at the same time", what);
    verify_slot(n, skip, 0);
    ws_mono_expect(&mono, what);
    reset();
}

/* The turn passes at every iteration: many short loops of empty ordered regions,
   schedule(static, 1), run by a team larger than the CPUs. A lost wake-up in the hand-off leaves
   a thread asleep with the turn and the team waiting for it, which the runner's timeout reports.
   Under ThreadSanitizer (make check-tsan), 3 of 4 runs of this at 16 threads hung with the
   library before 046fb65, whose passer could move the turn's generation back; plain runs on 2
   CPUs practically never hit that window. */
static void turns(void)
{
    long bad = 0;
    for (int r = 0; r < 40; r++) {
        long next = 0;
#pragma omp parallel for ordered schedule(static, 1) reduction(+: bad)
        for (long i = 0; i < 2000; i++) {
#pragma omp ordered
            {
                if (next != i)
                    bad++;
                next = i + 1;
            }
        }
        LITE_EXPECT(bad == 0 && next == 2000, "turns: loop %d ran %ld ordered regions out of "
                    "order and ended at %ld, expected 2000", r, bad, next);
    }
    ws_note("turns: 40 loops of 2000 turns: ok");
}

int main(int argc, char **argv)
{
    LITE_CHECK("ws_ordered");
    if (argc > 1 && strcmp(argv[1], "turns") == 0) {
        turns();
        ws_note("PASS");
        return 0;
    }
    static const long sizes[] = { 0, 1, 2, 7, 100, 401 };
    reset();
    for (int l = 0; l < NLOOPS; l++) {
        const struct ordered_loop *o = &loops[l];
        for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int skip = 0; skip < 4; skip++) {
                long n = sizes[s];
                if (n > 100 && skip % 2 == 0)
                    continue; /* the long loop with two of the patterns is enough */
#pragma omp parallel
                o->fn(n, skip);
                snprintf(what, sizeof what, "ordered %s", o->name);
                verify(n, skip, what);
#pragma omp parallel
                o->down(n, skip);
                snprintf(what, sizeof what, "ordered %s, counting down by 5", o->name);
                verify(n, skip, what);
                if (n > MAXN / 2)
                    continue;
#pragma omp parallel
                o->ull(n, skip);
                snprintf(what, sizeof what, "ordered %s, unsigned long long near ULLONG_MAX",
                         o->name);
                verify(n, skip, what);
            }
        /* Twelve nowait ordered loops back to back: the ring of worksharing entries turns over
           while threads are still in the earlier loops' ordered regions. Loops may overlap in
           time, so each logs into its own slot. */
        long n = 120;
        track_mono = false; /* a thread's iterations restart at 0 with each loop */
#pragma omp parallel
        {
            for (int k = 0; k < 12; k++) {
                ws_drift(k);
                o->nowait(n, k % 3, 1 + k);
            }
        }
        track_mono = true;
        snprintf(what, sizeof what, "12 nowait ordered %s loops back to back", o->name);
        ws_expect_hits(hits, n, 12, what);
        LITE_EXPECT(!overlap, "%s: two ordered regions of one loop ran at the same time", what);
        for (int k = 0; k < 12; k++)
            verify_slot(n, k % 3, 1 + k);
        reset();
    }
    ws_note("ordered loops in a region: ok");

    /* Outside any region, and nested (inner teams when OMP_MAX_ACTIVE_LEVELS >= 2): here the
       regions of the two inner loops interleave, so each inner loop logs into its own list. */
    for (int l = 0; l < NLOOPS; l++) {
        loops[l].fn(300, 1);
        snprintf(what, sizeof what, "ordered %s outside any region", loops[l].name);
        verify(300, 1, what);
    }
    for (int l = 0; l < NLOOPS; l++) {
#pragma omp parallel num_threads(1)
        {
#pragma omp parallel num_threads(3)
            loops[l].fn(200, 2);
        }
        snprintf(what, sizeof what, "ordered %s in a region nested in a team of one",
                 loops[l].name);
        verify(200, 2, what);
    }
    ws_note("outside and nested: ok");

    /* Combined parallel for ordered. */
    for (int r = 0; r < 20; r++) {
        long n = r % 2 ? 5 : 400;
#pragma omp parallel for ordered schedule(dynamic, 2)
        for (long i = 0; i < n; i++) {
            iteration(i);
#pragma omp ordered
            ordered_body(i, 0);
        }
        verify(n, 0, "parallel for ordered schedule(dynamic, 2)");
    }
    ws_note("PASS");
    return 0;
}
