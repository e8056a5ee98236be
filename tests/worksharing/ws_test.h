/* ws_test.h: shared by the worksharing tests (the C programs of tests/worksharing).

   The proof that a program runs on libomp-lite and the failure report come from the integration
   tests' lite_check.h (LITE_CHECK, LITE_EXPECT); this adds what the worksharing tests have in
   common: per-iteration hit counters checked for "exactly once", a per-thread monotonicity
   tracker, a seeded PRNG, busy work, drift between threads, and one-line progress notes. */
#ifndef WS_TEST_H
#define WS_TEST_H

#include "../integration/lite_check.h"

#include <limits.h>
#include <omp.h>
#include <stdbool.h>
#include <time.h>

/* Most threads a test records per-thread data for (the runner uses at most 16 per level). */
#define WS_MAXT 256

/* PRAGMA(omp for schedule(dynamic)): a directive built by a macro from its clauses. */
#define WS_PRAGMA(x) _Pragma(#x)

static __attribute__((unused)) void *ws_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    LITE_EXPECT(p != NULL, "out of memory (%zu x %zu bytes)", n, size);
    return p;
}

/* Every counter of hits[0..n) must equal want; they are reset to 0 for the next use. */
static __attribute__((unused)) void ws_expect_hits(int *hits, long n, int want, const char *what)
{
    for (long i = 0; i < n; i++) {
        LITE_EXPECT(hits[i] == want, "%s: iteration %ld of %ld ran %d times, expected %d", what, i,
                    n, hits[i], want);
        hits[i] = 0;
    }
}

static __attribute__((unused)) void ws_hit(int *hits, long i)
{
#pragma omp atomic update
    hits[i]++;
}

/* Monotonicity per thread: each thread's successive iterations (logical numbers) increase. */
struct ws_mono {
    long last[WS_MAXT];
    int bad; /* a violation seen: the first one's details follow */
    long bad_prev, bad_next;
    int bad_thread;
};

static __attribute__((unused)) void ws_mono_reset(struct ws_mono *m)
{
    for (int t = 0; t < WS_MAXT; t++)
        m->last[t] = LONG_MIN;
    m->bad = 0;
}

/* Thread t executes logical iteration k. Each thread writes only its own slot. */
static __attribute__((unused)) void ws_mono_see(struct ws_mono *m, int t, long k)
{
    if (t < 0 || t >= WS_MAXT)
        return;
    if (k <= m->last[t]) {
#pragma omp critical(ws_mono)
        if (!m->bad) {
            m->bad = 1;
            m->bad_prev = m->last[t];
            m->bad_next = k;
            m->bad_thread = t;
        }
    }
    m->last[t] = k;
}

static __attribute__((unused)) void ws_mono_expect(const struct ws_mono *m, const char *what)
{
    LITE_EXPECT(!m->bad, "%s: not monotonic: thread %d ran iteration %ld after iteration %ld",
                what, m->bad_thread, m->bad_next, m->bad_prev);
}

/* A seeded PRNG (splitmix64), the same sequence on every runtime. */
static __attribute__((unused)) uint64_t ws_rand_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Busy work the compiler cannot remove: about units * a few ns. The sink is per thread, so
   that the test programs themselves have no data race (ThreadSanitizer runs them). */
static _Thread_local volatile unsigned long ws_sink;
static __attribute__((unused)) void ws_work(unsigned long units)
{
    unsigned long x = units;
    for (unsigned long k = 0; k < units; k++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    ws_sink = x;
}

/* Drift: thread t of the team lags behind the others by a thread- and step-dependent amount,
   so that nowait constructs find their team spread over several of them. */
static __attribute__((unused)) void ws_drift(int step)
{
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    if (n > 1 && (step % n) == t)
        ws_work(20000 + 3000ul * (unsigned long)(step % 7));
    else if ((t + step) % 3 == 0)
        ws_work(500);
}

/* A real sleep (for the waits that must not burn a CPU the others need). */
static __attribute__((unused)) void ws_sleep_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static __attribute__((unused)) double ws_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The team size the tests ask for: OMP_NUM_THREADS's first number, or the runtime's default. */
static __attribute__((unused)) int ws_threads(void)
{
    return omp_get_max_threads();
}

static void ws_note(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static __attribute__((unused)) void ws_note(const char *fmt, ...)
{
    va_list ap;
    printf("%s: ", lite_test_name);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

#endif
