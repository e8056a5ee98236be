/* schedule(runtime) under every run-sched-var: the one OMP_SCHEDULE sets (the runner runs this
   program with OMP_SCHEDULE unset, static, static,5, dynamic,4, guided,7, auto,
   monotonic:dynamic, nonmonotonic:guided), then each value omp_set_schedule can set.
   For each: every iteration exactly once; monotonic per thread where the schedule must be
   (monotonic:runtime and ordered loops always, schedule(runtime) when the kind is static or
   carries the monotonic modifier; schedule(nonmonotonic:runtime) never, since its own modifier
   may override the run-sched-var's); and a static kind distributes as OpenMP requires (no chunk:
   at most one contiguous block per thread, blocks in thread order; chunk c: round robin, chunk k
   on thread k % n).

   Entry points (gcc 12): schedule(runtime) -> GOMP_loop_maybe_nonmonotonic_runtime_start/_next;
   monotonic:runtime -> GOMP_loop_runtime_*; nonmonotonic:runtime ->
   GOMP_loop_nonmonotonic_runtime_*; the unsigned long long forms GOMP_loop_ull_*runtime_*;
   ordered -> GOMP_loop_ordered_runtime_*; combined parallel for with constant bounds ->
   GOMP_parallel_loop_{maybe_nonmonotonic_,,nonmonotonic_}runtime.

   usage: ws_runtime */
#include "ws_test.h"

#define N 2003
#define ULLN 1001

static int hits[N];
static int owner[N]; /* thread that ran each iteration */
static struct ws_mono mono;

/* What the current run-sched-var demands of a runtime loop. */
struct expect {
    omp_sched_t kind; /* without the monotonic bit */
    int chunk;
    bool monotonic; /* the modifier, or static */
};

static struct expect current_expect(void)
{
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    struct expect e;
    e.kind = (omp_sched_t)(k & ~omp_sched_monotonic);
    e.chunk = c;
    e.monotonic = (k & omp_sched_monotonic) != 0 || e.kind == omp_sched_static;
    return e;
}

/* The loops, orphaned. mode: 0 runtime, 1 monotonic:runtime, 2 nonmonotonic:runtime. */
static void loop_runtime(long n)
{
#pragma omp for schedule(runtime)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        owner[i] = omp_get_thread_num();
        ws_mono_see(&mono, omp_get_thread_num(), i);
        if (i % 11 == 0)
            ws_work(200);
    }
}

static void loop_mruntime(long n)
{
#pragma omp for schedule(monotonic: runtime) nowait
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        owner[i] = omp_get_thread_num();
        ws_mono_see(&mono, omp_get_thread_num(), i);
        if (i % 7 == 0)
            ws_work(200);
    }
#pragma omp barrier
}

static void loop_nmruntime(long n)
{
#pragma omp for schedule(nonmonotonic: runtime)
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        owner[i] = omp_get_thread_num();
        ws_mono_see(&mono, omp_get_thread_num(), i);
        if (i % 5 == 0)
            ws_work(200);
    }
}

/* Counting down by 3 from n + 99 to 100: logical iteration k is n + 99 - 3k. */
static void loop_runtime_down(long n)
{
    long top = 3 * (n - 1) + 100;
#pragma omp for schedule(runtime)
    for (long v = top; v >= 100; v -= 3) {
        long k = (top - v) / 3;
        ws_hit(hits, k);
        owner[k] = omp_get_thread_num();
        ws_mono_see(&mono, omp_get_thread_num(), k);
    }
}

/* unsigned long long, near the top of its range. */
static void loop_runtime_ull(long n)
{
    unsigned long long base = ULLONG_MAX - (unsigned long long)n;
#pragma omp for schedule(runtime)
    for (unsigned long long v = base; v < ULLONG_MAX; v++) {
        long k = (long)(v - base);
        ws_hit(hits, k);
        owner[k] = omp_get_thread_num();
        ws_mono_see(&mono, omp_get_thread_num(), k);
    }
}

static long order_log[N];
static long order_len;
static void loop_runtime_ordered(long n)
{
#pragma omp for schedule(runtime) ordered
    for (long i = 0; i < n; i++) {
        ws_hit(hits, i);
        owner[i] = omp_get_thread_num();
        ws_mono_see(&mono, omp_get_thread_num(), i);
        if (i % 4 != 1) {
#pragma omp ordered
            order_log[order_len++] = i;
        }
    }
}

/* The static distribution rules, from owner[]. */
static void check_static(const struct expect *e, long n, int size, const char *what)
{
    if (e->kind != omp_sched_static)
        return;
    if (e->chunk <= 0) {
        for (long i = 1; i < n; i++)
            LITE_EXPECT(owner[i] >= owner[i - 1],
                        "%s: static: iteration %ld on thread %d follows iteration %ld on thread "
                        "%d (blocks must be contiguous, in thread order)", what, i, owner[i],
                        i - 1, owner[i - 1]);
    } else {
        for (long i = 0; i < n; i++)
            LITE_EXPECT(owner[i] == (int)((i / e->chunk) % size),
                        "%s: static,%d: iteration %ld ran on thread %d, expected %ld", what,
                        e->chunk, i, owner[i], (i / e->chunk) % size);
    }
}

typedef void loop_fn(long n);

/* mono: MONO_MUST (monotonic:runtime, ordered), MONO_ICV (plain runtime: as the run-sched-var
   says), MONO_NONE (nonmonotonic:runtime, whose own modifier may override the run-sched-var's:
   OpenMP leaves that combination open). */
enum mono { MONO_MUST, MONO_ICV, MONO_NONE };

static void run(loop_fn *fn, long n, enum mono mono_rule, const char *name, bool set_inside,
                omp_sched_t kind, int chunk)
{
    int size = 0;
    struct expect e = { 0, 0, false };
    ws_mono_reset(&mono);
    order_len = 0;
#pragma omp parallel
    {
        if (set_inside)
            omp_set_schedule(kind, chunk); /* each implicit task's own ICV */
#pragma omp master
        {
            size = omp_get_num_threads();
            e = current_expect();
        }
#pragma omp barrier
        fn(n);
    }
    char what[200];
    snprintf(what, sizeof what, "%s over %ld iterations, run-sched-var %d,%d%s, %d threads", name,
             n, (int)e.kind, e.chunk, e.monotonic ? " (monotonic)" : "", size);
    ws_expect_hits(hits, n, 1, what);
    if (mono_rule == MONO_MUST || (mono_rule == MONO_ICV && e.monotonic))
        ws_mono_expect(&mono, what);
    if (fn != loop_runtime_down && fn != loop_runtime_ull)
        check_static(&e, n, size, what);
    if (fn == loop_runtime_ordered) {
        long want = 0;
        for (long i = 0; i < n; i++)
            want += i % 4 != 1;
        LITE_EXPECT(order_len == want, "%s: %ld ordered regions ran, expected %ld", what,
                    order_len, want);
        for (long k = 1; k < order_len; k++)
            LITE_EXPECT(order_log[k] > order_log[k - 1],
                        "%s: ordered region of iteration %ld ran after that of iteration %ld",
                        what, order_log[k], order_log[k - 1]);
    }
}

/* Combined parallel for, constant bounds: GOMP_parallel_loop_*runtime. */
static void combined(void)
{
    char what[100];
    for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < N; i++)
            ws_hit(hits, i);
        snprintf(what, sizeof what, "parallel for schedule(runtime), %d iterations", N);
        ws_expect_hits(hits, N, 1, what);
        ws_mono_reset(&mono);
#pragma omp parallel for schedule(monotonic: runtime)
        for (int i = 0; i < N; i++) {
            ws_hit(hits, i);
            ws_mono_see(&mono, omp_get_thread_num(), i);
        }
        snprintf(what, sizeof what, "parallel for schedule(monotonic:runtime), %d iterations", N);
        ws_expect_hits(hits, N, 1, what);
        ws_mono_expect(&mono, what);
#pragma omp parallel for schedule(nonmonotonic: runtime)
        for (int i = 0; i < N; i++)
            ws_hit(hits, i);
        snprintf(what, sizeof what, "parallel for schedule(nonmonotonic:runtime), %d iterations",
                 N);
        ws_expect_hits(hits, N, 1, what);
        /* Tiny trip counts through the combined entry point. */
#pragma omp parallel for schedule(runtime)
        for (int i = 0; i < 3; i++)
            ws_hit(hits, i);
        ws_expect_hits(hits, 3, 1, "parallel for schedule(runtime), 3 iterations");
    }
}

static void all_loops(bool set_inside, omp_sched_t kind, int chunk)
{
    static const long sizes[] = { 0, 1, 5, 64, N };
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        long n = sizes[s];
        run(loop_runtime, n, MONO_ICV, "schedule(runtime)", set_inside, kind, chunk);
        run(loop_mruntime, n, MONO_MUST, "schedule(monotonic:runtime)", set_inside, kind, chunk);
        run(loop_nmruntime, n, MONO_NONE, "schedule(nonmonotonic:runtime)", set_inside, kind,
            chunk);
        run(loop_runtime_down, n, MONO_ICV, "schedule(runtime), counting down by 3", set_inside,
            kind, chunk);
        run(loop_runtime_ull, n < ULLN ? n : ULLN, MONO_ICV,
            "schedule(runtime), unsigned long long near ULLONG_MAX", set_inside, kind, chunk);
        run(loop_runtime_ordered, n, MONO_MUST, "schedule(runtime) ordered", set_inside, kind,
            chunk);
    }
}

/* OMP_SCHEDULE as the runtime reports it. */
static void check_env_schedule(void)
{
    const char *env = getenv("OMP_SCHEDULE");
    if (env == NULL || *env == '\0')
        return;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", env);
    bool mono = false;
    char *kind = buf, *colon = strchr(buf, ':');
    if (colon != NULL) {
        *colon = '\0';
        mono = strcasecmp(buf, "monotonic") == 0;
        kind = colon + 1;
    }
    int chunk = -1;
    char *comma = strchr(kind, ',');
    if (comma != NULL) {
        *comma = '\0';
        chunk = atoi(comma + 1);
    }
    omp_sched_t want = strcasecmp(kind, "static") == 0    ? omp_sched_static
                       : strcasecmp(kind, "dynamic") == 0 ? omp_sched_dynamic
                       : strcasecmp(kind, "guided") == 0  ? omp_sched_guided
                                                          : omp_sched_auto;
    omp_sched_t k;
    int c;
    omp_get_schedule(&k, &c);
    LITE_EXPECT((k & ~omp_sched_monotonic) == want,
                "OMP_SCHEDULE=%s: omp_get_schedule gives kind %#x, expected %d", env, (unsigned)k,
                (int)want);
    LITE_EXPECT(!mono || (k & omp_sched_monotonic),
                "OMP_SCHEDULE=%s: omp_get_schedule lost the monotonic modifier (kind %#x)", env,
                (unsigned)k);
    if (chunk > 0)
        LITE_EXPECT(c == chunk, "OMP_SCHEDULE=%s: omp_get_schedule gives chunk %d", env, c);
}

int main(void)
{
    LITE_CHECK("ws_runtime");
    check_env_schedule();
    const char *env = getenv("OMP_SCHEDULE");
    all_loops(false, omp_sched_static, 0);
    combined();
    ws_note("OMP_SCHEDULE=%s: ok", env ? env : "(unset)");
    if (env != NULL) {
        ws_note("PASS"); /* the values omp_set_schedule sets: once, in the run without it */
        return 0;
    }

    static const struct {
        omp_sched_t kind;
        int chunk;
    } sets[] = {
        { omp_sched_static, 0 },
        { omp_sched_static, 1 },
        { omp_sched_static, 6 },
        { omp_sched_dynamic, 1 },
        { omp_sched_dynamic, 9 },
        { omp_sched_guided, 0 },
        { omp_sched_guided, 4 },
        { omp_sched_auto, 0 },
        { (omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2 },
        { (omp_sched_t)(omp_sched_guided | omp_sched_monotonic), 0 },
        { (omp_sched_t)(omp_sched_static | omp_sched_monotonic), 3 },
    };
    for (unsigned s = 0; s < sizeof sets / sizeof sets[0]; s++) {
        bool inside = s % 2 == 1;
        if (!inside)
            omp_set_schedule(sets[s].kind, sets[s].chunk);
        all_loops(inside, sets[s].kind, sets[s].chunk);
        if (!inside)
            combined();
    }
    ws_note("omp_set_schedule values: ok");
    ws_note("PASS");
    return 0;
}
