/* Nonmonotonic loops under imbalance, and the per-call-site statistics behind stealing.

   usage: ws_steal MODE
     imbalanced  a schedule(nonmonotonic:dynamic) loop of IMB_N iterations whose iteration i
                 costs about i * IMB_K units (triangular), run IMB_RUNS times at one call site
     balanced    a loop of BAL_N iterations of trivial work, run BAL_RUNS times at one call site,
                 one parallel region per run (the time-stepping pattern)
     balanced-inregion  the same with BAL2_N iterations, BAL_RUNS times in one parallel region
     random      per-iteration costs from a seeded PRNG (heavy tailed), under nonmonotonic
                 dynamic and guided, runtime (auto) and monotonic dynamic schedules, many runs
                 at each call site, every iteration exactly once each run, and lastprivate
                 (the final iteration's value) whoever ran it
     chunks      the chunk sizes of nonmonotonic and monotonic dynamic and guided loops (chunk
                 size a variable: 1, 3, 7, 64, the whole loop, more than the loop) under the
                 random costs, stealing included: with schedule(dynamic, k) every k consecutive
                 iterations from the first run on one thread, one after the other; with
                 schedule(guided, k) no thread runs fewer than k consecutive iterations in a
                 row except where they end the loop (OpenMP 5.2, the schedule clause); long
                 and unsigned long long loops, and schedule(runtime) set by omp_set_schedule
     tiny        tiny loops (TINY_N iterations, variable bounds) in many regions, the way a
                 runtime may run them on one thread without the team: mixed in each region with
                 nowait, with a larger loop, a single and a schedule(runtime) loop of the same
                 size; then the tiny loops' work grows until each run takes ~1 ms, and they
                 must be shared by the team again (some iteration runs on a thread other than
                 0) within TINY_GROWN_RUNS regions; then tiny loops in nested teams
     split       short balanced loops run SPLIT_RUNS times each in one region, the loops that
                 libomp-lite runs split once their call sites know them (each member computes
                 its own block, nothing is handed out): chunked dynamic with nowait, guided
                 with a chunk over an unsigned long long range counting down, a nowait loop
                 between two others, a loop with fewer iterations than threads, lastprivate,
                 and tiny loops with nowait, which go whole to one member
   Every mode checks that each iteration runs exactly once per run. Under OMPLITE_LOOP_STATS=1,
   libomp-lite prints one line per loop call site at exit,
     libomp-lite: loop site ADDR threads N iterations COUNT runs R stealing-runs S steals K
       whole-runs W split-runs P counter C
   and the runner (run-ws.sh) checks them: the imbalanced loop must have stolen (steals > 0, or
   moved to the shared counter: C 1),
   the balanced one must mostly not steal (stealing-runs well below runs), the split loops'
   sites must have run split. The trip counts are chosen so that the runner can tell the sites
   apart by them.

   Entry points (gcc 12, objdump): GOMP_loop_nonmonotonic_{dynamic,guided}_start/_next,
   GOMP_loop_maybe_nonmonotonic_runtime_start/_next, GOMP_loop_dynamic_start/_next,
   GOMP_loop_end. */
#include "ws_test.h"

#define IMB_N 1501
#define IMB_K 1
#define IMB_RUNS 50
#define BAL_N 1024
#define BAL_RUNS 200
#define BAL2_N 1000
#define RND_N 2003
#define MAXN 4096
#define TINY_N 64
#define TINY_RUNS 400
#define TINY_GROWN_RUNS 200
#define SPLIT_RUNS 300
#define SPLIT_N1 1001 /* dynamic, 3 */
#define SPLIT_N2 997  /* guided, 5, unsigned long long from 3 * 997 down */
#define SPLIT_N3 1003 /* nowait between two loops */
#define SPLIT_FEW 3   /* fewer iterations than threads (at 4 and more) */
#define SPLIT_TINY 8  /* too small to share: whole to the member that claims it */

static int hits[MAXN];
static unsigned cost[MAXN];

static void imbalanced_loop(void)
{
#pragma omp for schedule(nonmonotonic: dynamic)
    for (long i = 0; i < IMB_N; i++) {
        ws_hit(hits, i);
        ws_work((unsigned long)(i * IMB_K));
    }
}

static void balanced_loop(long n)
{
#pragma omp for schedule(nonmonotonic: dynamic)
    for (long i = 0; i < n; i++)
        ws_hit(hits, i);
}

/* lastprivate in the random loops: the member that runs the final iteration must copy out, so a
   member that ran the final chunk may run no other chunk after it, stealing or not. Shared
   (static) so that the orphaned loops may list them; reset to NO_VALUE before each region. (Not
   on the nowait loop run ten times in a row: two of its runs would copy out at once.) */
#define LASTPRIVATE_VALUE(i) ((i) * 3 + 1)
#define NO_VALUE (-1L)
static long lp_dynamic, lp_guided, lp_runtime, lp_monotonic;

static void random_dynamic(long n)
{
#pragma omp for schedule(nonmonotonic: dynamic) lastprivate(lp_dynamic)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
        lp_dynamic = LASTPRIVATE_VALUE(i);
    }
}

static void random_dynamic7(long n)
{
#pragma omp for schedule(dynamic, 7) nowait
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
    }
}

static void random_guided(long n)
{
#pragma omp for schedule(guided) lastprivate(lp_guided)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
        lp_guided = LASTPRIVATE_VALUE(i);
    }
}

static void random_runtime(long n)
{
#pragma omp for schedule(runtime) lastprivate(lp_runtime)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
        lp_runtime = LASTPRIVATE_VALUE(i);
    }
}

static void random_monotonic(long n)
{
#pragma omp for schedule(monotonic: dynamic, 3) lastprivate(lp_monotonic)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
        lp_monotonic = LASTPRIVATE_VALUE(i);
    }
}

/* Heavy-tailed costs: mostly cheap, some 100x, a few 1000x, clustered in runs. */
static void make_costs(long n, uint64_t seed)
{
    uint64_t rng = seed;
    for (long i = 0; i < n; i++) {
        uint64_t r = ws_rand_next(&rng);
        unsigned c = (unsigned)(r % 20);
        if (r % 97 == 0)
            c = 20000 + (unsigned)(r % 10000);
        else if (r % 13 == 0)
            c = 2000;
        if ((i / 64) % 5 == (long)(seed % 5))
            c *= 4; /* a costly stretch, in a different block each seed */
        cost[i] = c;
    }
}

/* The chunks mode: for each iteration, the thread that ran it and the iteration that thread ran
   just before it in the same loop (-1: none). A thread's iterations in a row, i, i+1, ..., are
   one chunk or several adjacent ones; a jump starts another. */
static int owner[MAXN];
static long before[MAXN];
static long last_run[WS_MAXT];

static void chunk_see(long i)
{
    int t = omp_get_thread_num();
    owner[i] = t;
    before[i] = t < WS_MAXT ? last_run[t] : -2;
    if (t < WS_MAXT)
        last_run[t] = i;
}

#define CHUNK_LOOP(name, ...)                                                                      \
    static void name(long n, long k)                                                               \
    {                                                                                              \
        WS_PRAGMA(omp for __VA_ARGS__)                                                             \
        for (long i = 0; i < n; i++) {                                                             \
            ws_hit(hits, i);                                                                       \
            chunk_see(i);                                                                          \
            ws_work(cost[i]);                                                                      \
        }                                                                                          \
    }
CHUNK_LOOP(chunk_dynamic, schedule(dynamic, k))
CHUNK_LOOP(chunk_nm_dynamic, schedule(nonmonotonic: dynamic, k))
CHUNK_LOOP(chunk_m_dynamic, schedule(monotonic: dynamic, k))
CHUNK_LOOP(chunk_guided, schedule(guided, k))
CHUNK_LOOP(chunk_m_guided, schedule(monotonic: guided, k))
CHUNK_LOOP(chunk_runtime, schedule(runtime))

/* unsigned long long iterations far from 0, stepping down: GOMP_loop_ull_* */
static void chunk_ull_dynamic(long n, long k)
{
    const unsigned long long top = ~0ULL - 5;
#pragma omp for schedule(dynamic, k)
    for (unsigned long long u = top; u > top - (unsigned long long)n; u--) {
        long i = (long)(top - u);
        ws_hit(hits, i);
        chunk_see(i);
        ws_work(cost[i]);
    }
}

typedef void chunk_fn(long n, long k);

/* One run of a loop in a region of its own, then the checks. guided: chunks may be longer than
   k and need not start at multiples of k, but never hold fewer than k iterations, except the
   one with the loop's last iteration. */
static void chunk_run(chunk_fn *fn, const char *name, bool guided, long n, long k, int run)
{
    char what[160];
    snprintf(what, sizeof what, "%s, %ld iterations, chunk %ld, run %d", name, n, k, run);
    for (int t = 0; t < WS_MAXT; t++)
        last_run[t] = -1;
#pragma omp parallel
    fn(n, k);
    ws_expect_hits(hits, n, 1, what);
    long run_start = 0;
    for (long i = 0; i < n; i++) {
        bool starts = i == 0 || before[i] != i - 1 || owner[i - 1] != owner[i];
        if (!guided) {
            LITE_EXPECT(!starts || i % k == 0,
                        "%s: thread %d started at iteration %ld, inside the chunk at %ld "
                        "(thread %d ran %ld just before)",
                        what, owner[i], i, i / k * k, owner[i], before[i]);
            continue;
        }
        if (starts && i > 0)
            LITE_EXPECT(i - run_start >= k,
                        "%s: thread %d ran only iterations %ld..%ld in a row, fewer than the "
                        "chunk size", what, owner[i - 1], run_start, i - 1);
        if (starts)
            run_start = i;
    }
}

static void chunks_mode(void)
{
    static const long ns[] = { RND_N, 1, 5, 64, 300 };
    for (uint64_t seed = 1; seed <= 10; seed++) {
        long n = ns[seed % 5];
        const long ks[] = { 1, 3, 7, 64, n, n + 5 };
        make_costs(n, seed);
        for (int j = 0; j < (int)(sizeof ks / sizeof ks[0]); j++) {
            long k = ks[j];
            /* repeated runs at each call site, so that the statistics switch stealing on */
            for (int r = 0; r < 4; r++) {
                chunk_run(chunk_dynamic, "dynamic", false, n, k, r);
                chunk_run(chunk_nm_dynamic, "nonmonotonic:dynamic", false, n, k, r);
                chunk_run(chunk_m_dynamic, "monotonic:dynamic", false, n, k, r);
                chunk_run(chunk_ull_dynamic, "dynamic (unsigned long long)", false, n, k, r);
                chunk_run(chunk_guided, "guided", true, n, k, r);
                chunk_run(chunk_m_guided, "monotonic:guided", true, n, k, r);
                omp_set_schedule(omp_sched_dynamic, (int)k);
                chunk_run(chunk_runtime, "runtime (dynamic)", false, n, k, r);
                omp_set_schedule(omp_sched_guided, (int)k);
                chunk_run(chunk_runtime, "runtime (guided)", true, n, k, r);
            }
        }
    }
}

static int tiny_hits[3][TINY_N];
static int tiny_owner[TINY_N];
static int single_runs;

static void tiny_loop(int *h, long n, unsigned long work)
{
#pragma omp for schedule(dynamic) nowait
    for (long i = 0; i < n; i++) {
        ws_hit(h, i);
        tiny_owner[i] = omp_get_thread_num();
        ws_work(work);
    }
}

static void tiny_guided(int *h, long n)
{
#pragma omp for schedule(nonmonotonic: guided, 2)
    for (long i = 0; i < n; i++)
        ws_hit(h, i);
}

static void tiny_runtime(int *h, long n)
{
#pragma omp for schedule(runtime) nowait
    for (long i = 0; i < n; i++)
        ws_hit(h, i);
}

/* One region of the tiny mode; returns whether a thread other than 0 ran an iteration of the
   first loop. */
static bool tiny_region(long n, unsigned long work)
{
    memset(tiny_hits, 0, sizeof tiny_hits);
    memset(tiny_owner, 0, sizeof tiny_owner);
#pragma omp parallel
    {
        tiny_loop(tiny_hits[0], n, work);
        balanced_loop(BAL2_N);
        tiny_guided(tiny_hits[1], n);
#pragma omp single nowait
        single_runs++;
        tiny_runtime(tiny_hits[2], n);
    }
    for (int k = 0; k < 3; k++)
        ws_expect_hits(tiny_hits[k], n, 1, "a tiny loop");
    for (long i = 0; i < n; i++)
        if (tiny_owner[i] != 0)
            return true;
    return false;
}

/* Tiny loops in nested teams: each outer member leads an inner team (its own pool), whose
   regions run tiny loops at one call site; every iteration once per inner region. */
static int nested_hits[2][TINY_N];

static bool nested_tiny_regions(long n, int runs)
{
    int bad = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        int o = omp_get_thread_num();
        for (int r = 0; r < runs; r++) {
            memset(nested_hits[o], 0, sizeof nested_hits[o]);
#pragma omp parallel num_threads(2)
            {
#pragma omp for schedule(dynamic) nowait
                for (long i = 0; i < n; i++)
#pragma omp atomic
                    nested_hits[o][i]++;
            }
            for (long i = 0; i < n; i++)
                bad += nested_hits[o][i] != 1;
        }
    }
    omp_set_max_active_levels(1);
    return bad == 0;
}

static int split_hits[5][MAXN];
static long lp_split;

/* One run of the split loops; the member's own work between them differs, so that members meet
   the loops at different times. */
static void split_loops(void)
{
    int me = omp_get_thread_num();
#pragma omp for schedule(nonmonotonic: dynamic, 3) nowait
    for (long i = 0; i < SPLIT_N1; i++)
        ws_hit(split_hits[0], i);
    ws_work((unsigned long)(me % 3) * 50);
#pragma omp for schedule(guided, 5) lastprivate(lp_split)
    for (unsigned long long u = 3ull * SPLIT_N2; u > 0; u -= 3) {
        ws_hit(split_hits[1], (long)(u / 3 - 1));
        lp_split = (long)u;
    }
#pragma omp for schedule(nonmonotonic: dynamic) nowait
    for (long i = SPLIT_N3 - 1; i >= 0; i--)
        ws_hit(split_hits[2], i);
#pragma omp for schedule(nonmonotonic: dynamic)
    for (long i = 0; i < SPLIT_FEW; i++) {
        ws_hit(split_hits[3], i);
        ws_work(400); /* not tiny: shared among the members, most of which have none */
    }
    for (int k = 0; k < 3; k++) {
#pragma omp for schedule(guided) nowait
        for (long i = 0; i < SPLIT_TINY; i++)
            ws_hit(split_hits[4], i);
    }
#pragma omp barrier
}

static void split_mode(void)
{
#pragma omp parallel
    for (int r = 0; r < SPLIT_RUNS; r++) {
        split_loops();
#pragma omp single
        {
            LITE_EXPECT(lp_split == 3, "split: lastprivate of the guided loop is %ld, not 3",
                        lp_split);
            lp_split = 0;
        }
    }
    ws_expect_hits(split_hits[0], SPLIT_N1, SPLIT_RUNS, "split: dynamic, 3, nowait");
    ws_expect_hits(split_hits[1], SPLIT_N2, SPLIT_RUNS, "split: guided, 5, down, ull");
    ws_expect_hits(split_hits[2], SPLIT_N3, SPLIT_RUNS, "split: nowait between loops");
    ws_expect_hits(split_hits[3], SPLIT_FEW, SPLIT_RUNS, "split: fewer iterations than threads");
    ws_expect_hits(split_hits[4], SPLIT_TINY, 3 * SPLIT_RUNS, "split: tiny loops, nowait");
}

int main(int argc, char **argv)
{
    LITE_CHECK("ws_steal");
    const char *mode = argc > 1 ? argv[1] : "random";
    char what[100];
    if (strcmp(mode, "imbalanced") == 0) {
        for (int r = 0; r < IMB_RUNS; r++) {
#pragma omp parallel
            imbalanced_loop();
            snprintf(what, sizeof what, "imbalanced loop, run %d", r);
            ws_expect_hits(hits, IMB_N, 1, what);
        }
    } else if (strcmp(mode, "balanced") == 0) {
        for (int r = 0; r < BAL_RUNS; r++) {
#pragma omp parallel
            balanced_loop(BAL_N);
        }
        ws_expect_hits(hits, BAL_N, BAL_RUNS, "balanced loop, one region per run");
    } else if (strcmp(mode, "balanced-inregion") == 0) {
#pragma omp parallel
        for (int r = 0; r < BAL_RUNS; r++)
            balanced_loop(BAL2_N);
        ws_expect_hits(hits, BAL2_N, BAL_RUNS, "balanced loop, all runs in one region");
    } else if (strcmp(mode, "random") == 0) {
        static const long ns[] = { RND_N, 1, 5, 64, 300 };
        for (uint64_t seed = 1; seed <= 12; seed++) {
            long n = ns[seed % 5];
            make_costs(n, seed);
            for (int r = 0; r < 6; r++) {
                lp_dynamic = lp_guided = lp_runtime = lp_monotonic = NO_VALUE;
#pragma omp parallel
                {
                    random_dynamic(n);
                    random_guided(n);
                    random_runtime(n);
                    random_monotonic(n);
                    for (int k = 0; k < 10; k++)
                        random_dynamic7(n);
                }
                snprintf(what, sizeof what, "random costs, seed %llu, %ld iterations, run %d",
                         (unsigned long long)seed, n, r);
                ws_expect_hits(hits, n, 14, what);
                const long want = LASTPRIVATE_VALUE(n - 1);
                const long got[] = { lp_dynamic, lp_guided, lp_runtime, lp_monotonic };
                const char *names[] = { "nonmonotonic:dynamic", "guided", "runtime",
                                        "monotonic:dynamic,3" };
                for (int k = 0; k < 4; k++)
                    LITE_EXPECT(got[k] == want, "%s: lastprivate under %s is %ld, expected %ld",
                                what, names[k], got[k], want);
            }
        }
    } else if (strcmp(mode, "chunks") == 0) {
        chunks_mode();
    } else if (strcmp(mode, "split") == 0) {
        split_mode();
    } else if (strcmp(mode, "tiny") == 0) {
        long n = TINY_N; /* a variable: gcc calls GOMP_loop_*_start, not GOMP_parallel_loop_* */
        for (int r = 0; r < TINY_RUNS; r++)
            tiny_region(n, 0);
        ws_expect_hits(hits, BAL2_N, TINY_RUNS, "the larger loop between tiny ones");
        if (single_runs != TINY_RUNS) {
            fprintf(stderr, "FAIL: the single ran %d times in %d regions\n", single_runs,
                    TINY_RUNS);
            exit(1);
        }
        bool shared = false;
        int r;
        /* ~1 ms a loop: long enough for a member parked under load to wake up and take a
           chunk. With ~100 us (work 2000), thread 0 took every chunk of 200 regions in one CI
           run under ThreadSanitizer on a loaded machine (3 threads on 2 CPUs): a member that
           parks at once wakes in tens to hundreds of microseconds there. */
        for (r = 0; r < TINY_GROWN_RUNS && !shared; r++)
            shared = tiny_region(n, 20000);
        /* Only with a second CPU: on one, thread 0 taking every chunk before the others are
           scheduled is the right outcome (seen with taskset -c 0 under ThreadSanitizer). */
        if (ws_threads() > 1 && omp_get_num_procs() > 1 && !shared) {
            fprintf(stderr, "FAIL: a loop of %ld iterations that takes ~1 ms ran on thread 0 "
                    "alone for %d regions\n", n, TINY_GROWN_RUNS);
            exit(1);
        }
        ws_note("tiny: shared again after %d regions of grown work", r);
        if (!nested_tiny_regions(n, TINY_RUNS)) {
            fprintf(stderr, "FAIL: a tiny loop in nested teams missed or repeated iterations\n");
            exit(1);
        }
    } else {
        fprintf(stderr,
                "usage: ws_steal imbalanced|balanced|balanced-inregion|random|chunks|tiny|split\n");
        return 2;
    }
    ws_note("%s: PASS (%d threads)", mode, omp_get_max_threads());
    return 0;
}
