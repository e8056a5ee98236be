/* Nonmonotonic loops under imbalance, and the per-call-site statistics behind stealing.

   usage: ws_steal MODE
     imbalanced  a schedule(nonmonotonic:dynamic) loop of IMB_N iterations whose iteration i
                 costs about i * IMB_K units (triangular), run IMB_RUNS times at one call site
     balanced    a loop of BAL_N iterations of trivial work, run BAL_RUNS times at one call site,
                 one parallel region per run (the time-stepping pattern)
     balanced-inregion  the same with BAL2_N iterations, BAL_RUNS times in one parallel region
     random      per-iteration costs from a seeded PRNG (heavy tailed), under nonmonotonic
                 dynamic and guided, runtime (auto) and monotonic dynamic schedules, many runs
                 at each call site, every iteration exactly once each run
   Every mode checks that each iteration runs exactly once per run. Under OMPLITE_LOOP_STATS=1,
   libomp-lite prints one line per loop call site at exit,
     libomp-lite: loop site ADDR threads N iterations COUNT runs R stealing-runs S steals K
   and the runner (run-ws.sh) checks them: the imbalanced loop must have stolen (steals > 0),
   the balanced one must mostly not steal (stealing-runs well below runs). The trip counts are
   chosen so that the runner can tell the sites apart by them.

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

static void random_dynamic(long n)
{
#pragma omp for schedule(nonmonotonic: dynamic)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
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
#pragma omp for schedule(guided)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
    }
}

static void random_runtime(long n)
{
#pragma omp for schedule(runtime)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
    }
}

static void random_monotonic(long n)
{
#pragma omp for schedule(monotonic: dynamic, 3)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        ws_work(cost[i]);
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
            }
        }
    } else {
        fprintf(stderr, "usage: ws_steal imbalanced|balanced|balanced-inregion|random\n");
        return 2;
    }
    ws_note("%s: PASS (%d threads)", mode, omp_get_max_threads());
    return 0;
}
