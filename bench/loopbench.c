/* loopbench: the cost of worksharing loops, side by side under every runtime.

   Four families of rows (bench/run-bench runs one row per process; docs/benchmarks.md has the
   full table):

   1. Schedule overhead, ns per iteration, in the manner of EPCC schedbench (Bull, EWOMP 1999):
      inside one parallel region, `reps` x `#pragma omp for schedule(S, C)` over N iterations, each
      a short delay (about 50 ns); the reference is the same N * reps delays split evenly among
      the threads of one region, with no worksharing construct, on P = min(threads, CPUs this
      process may use) CPUs: the time a perfect split would take, measured just before each test
      sample. The
      row reports (test - reference) / (N * reps): the wall-clock time each loop iteration adds,
      with the sample's own reference (values within about +-5 ns/it of 0 are noise here). With P
      threads taking chunks at once, one chunk hand-out costs a thread about P * chunk times that.
      N = 256 iterations per thread: one loop takes about 13 us, a short loop (libomp-lite's
      call-site statistics treat loops over 50 us as long and steal in them; the imbalanced rows
      cover that mode), while the loop's start and closing barrier still add only about 1 ns per
      iteration at 2 threads. Rows: static, dynamic, guided and monotonic:dynamic with
      chunks 1, 4, 16, 64; runtime; the combined `parallel for schedule(dynamic, 1)` (constant
      bounds: GOMP_parallel_loop_nonmonotonic_dynamic, one region per loop); `for ordered
      schedule(static, 1)` whose body is all `ordered` (reference: the delays serially, P = 1).
   2. Tiny loops, us per construct: `parallel for schedule(dynamic)` over 64 elements with
      constant bounds (gcc calls GOMP_parallel_loop_nonmonotonic_dynamic) and with variable bounds
      (GOMP_parallel, then GOMP_loop_nonmonotonic_dynamic_start); an almost empty `parallel`.
   3. An imbalanced loop, us per loop: `parallel for` over 4096 iterations where iteration i costs
      about i / 4096 x 4 delays (triangular: a static split leaves one thread 3/4 of the work),
      schedule(dynamic) and schedule(runtime).
   4. A long memory-bound loop, us per loop: the STREAM triad a[i] = b[i] + s * c[i] over three
      arrays of 16 MB, schedule(static), schedule(dynamic) (chunk 1: the hand-out, not memory,
      then decides under libgomp and LLVM) and schedule(dynamic, 4096).

   Every row checks its result in the timed runs themselves (iteration counts through
   per-thread counters, a reduction, the tiny arrays, the triad's output) and, before timing, in
   a verification pass that each iteration runs exactly once (and in order, for `ordered`). A
   wrong result prints FAIL and exits with status 1.

   Check which entry points each row reaches with `objdump -dr bench/loopbench` (the
   *_omp_fn.* functions and their callers): see the table in docs/history/benchmarks-2026.md,
   "The benchmarks".

   Output, one line per item, for bench/run-bench:
     runtime <path>, runtime-gomp <path>, threads <team size>   (as syncbench)
     construct <name> sample <value>                            (unit: --list, or the # line)
   Lines starting with '#' are information for people. */
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

#define MAX_SAMPLES 1000
#define TINY_N 64           /* the tiny loops: elements */
#define PFOR_N 4096         /* the combined per-iteration row: a constant, so gcc combines */
#define ORDERED_PER_THREAD 64

static long delay_iters = 100;        /* calibrated in main, or -i */
static long iters_per_thread = 256;   /* family 1 */
static long tri_n = 4096;             /* family 3 */
static long triad_n;                  /* family 4: elements per array */
#define TRIAD_WARMUP_S 0.1          /* family 4: untimed loops before the samples */
static int nthreads;                  /* omp_get_max_threads() */
static int ncpus;                     /* P: threads that can run at once */

/* ---- the delay: dependent integer adds the optimiser cannot fold; out of line, so that it
   costs the same inside an outlined function as in the serial reference ---- */
__attribute__((noinline)) static void delay(long n)
{
  unsigned long acc = 0;
  for (long i = 0; i < n; i++) {
    acc += (unsigned long)i;
    __asm__ volatile("" : "+r"(acc));
  }
}

static int fail(const char *name, const char *what)
{
  printf("FAIL construct %s: %s\n", name, what);
  fflush(stdout);
  return 1;
}

/* ===================================================================== family 1: schedules */

/* One parallel region, `reps` worksharing loops of n iterations. Each thread counts the
   iterations it ran (a private counter, added once at the end) so the timed run checks the total
   for free; hits, when not NULL (verification only), counts each iteration. */
#define SCHED_LOOP(fname, directive)                                                     \
  static long fname(long reps, long chunk, long *hits)                                   \
  {                                                                                      \
    long n = iters_per_thread * nthreads, total = 0;                                     \
    (void)chunk;                                                                         \
    _Pragma("omp parallel")                                                              \
    {                                                                                    \
      long mine = 0;                                                                     \
      for (long j = 0; j < reps; j++) {                                                  \
        _Pragma(directive) for (long i = 0; i < n; i++)                                  \
        {                                                                                \
          delay(delay_iters);                                                            \
          mine++;                                                                        \
          if (hits)                                                                      \
            __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);                           \
        }                                                                                \
      }                                                                                  \
      __atomic_fetch_add(&total, mine, __ATOMIC_RELAXED);                                \
    }                                                                                    \
    return total;                                                                        \
  }

/* gcc computes static splits inline (no runtime call but the loop's closing barrier); dynamic
   and guided reach GOMP_loop_nonmonotonic_{dynamic,guided}_start/next, monotonic:dynamic
   GOMP_loop_dynamic_start/next, runtime GOMP_loop_maybe_nonmonotonic_runtime_start/next. */
SCHED_LOOP(loop_static, "omp for schedule(static, chunk)")
SCHED_LOOP(loop_dynamic, "omp for schedule(dynamic, chunk)")
SCHED_LOOP(loop_guided, "omp for schedule(guided, chunk)")
SCHED_LOOP(loop_monotonic, "omp for schedule(monotonic: dynamic, chunk)")
SCHED_LOOP(loop_runtime, "omp for schedule(runtime)")

/* The combined form: constant bounds and chunk, no reduction (gcc does not combine a loop with a
   reduction), so gcc calls GOMP_parallel_loop_nonmonotonic_dynamic once per loop. The count goes
   to a threadprivate counter, gathered by one more region after the timed loops. */
static long pfor_count;
#pragma omp threadprivate(pfor_count)

static long loop_pfor(long reps, long chunk, long *hits)
{
  long total = 0;
  (void)chunk;
  for (long j = 0; j < reps; j++) {
#pragma omp parallel for schedule(dynamic, 1)
    for (long i = 0; i < PFOR_N; i++) {
      delay(delay_iters);
      pfor_count++;
      if (hits)
        __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);
    }
  }
#pragma omp parallel
  {
    __atomic_fetch_add(&total, pfor_count, __ATOMIC_RELAXED);
    pfor_count = 0;
  }
  return total;
}

/* ordered: the whole body is the ordered region, so the loop is serial by construction and its
   reference is the delays serially (P = 1). hits records the order in which iterations ran. */
static long ordered_seq;

static long loop_ordered(long reps, long chunk, long *hits)
{
  long n = (long)ORDERED_PER_THREAD * nthreads, total = 0;
  (void)chunk;
  ordered_seq = 0;
#pragma omp parallel
  {
    /* A team smaller than asked would run the loop serially and fast, and still count every
       iteration: count none, so that the test fails. */
    long mine = omp_get_num_threads() == nthreads ? 0 : -reps * n;
    for (long j = 0; j < reps; j++) {
#pragma omp for ordered schedule(static, 1)
      for (long i = 0; i < n; i++) {
#pragma omp ordered
        {
          delay(delay_iters);
          mine++;
          if (hits)
            hits[i] = ordered_seq++;
        }
      }
    }
    __atomic_fetch_add(&total, mine, __ATOMIC_RELAXED);
  }
  return total;
}

/* ============================================================= families 2, 3, 4: whole loops */

static long tiny[TINY_N];
static long tiny_len = TINY_N; /* read through a volatile pointer: gcc must not see a constant */

static void tiny_const(long reps)
{
  for (long j = 0; j < reps; j++) {
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < TINY_N; i++)
      tiny[i]++;
  }
}

static void tiny_var(long reps)
{
  long n = *(volatile long *)&tiny_len;
  for (long j = 0; j < reps; j++) {
#pragma omp parallel for schedule(dynamic)
    for (long i = 0; i < n; i++)
      tiny[i]++;
  }
}

/* The same loop with schedule(static): gcc splits it inline, no loop call reaches the runtime,
   but the region passes the bound and the array to its members as tiny-var does. */
static void tiny_static(long reps)
{
  long n = *(volatile long *)&tiny_len;
  for (long j = 0; j < reps; j++) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      tiny[i]++;
  }
}

/* The reference: gcc drops an empty region, so the body is one empty asm statement. */
static void tiny_parallel(long reps)
{
  for (long j = 0; j < reps; j++) {
#pragma omp parallel
    __asm__ volatile("");
  }
}

/* Triangular work: iteration i runs about i / tri_n x 4 delays. */
static inline long tri_cost(long i) { return i * 4 * delay_iters / tri_n; }

/* The sum of i + 1 over the iterations, by one reduction (two would make gcc take a global lock
   per thread); hits as in family 1. */
#define IMBAL_LOOP(fname, directive)                                                     \
  static long fname(long reps, long *hits)                                               \
  {                                                                                      \
    long n = tri_n, sum = 0;                                                             \
    for (long j = 0; j < reps; j++) {                                                    \
      _Pragma(directive) for (long i = 0; i < n; i++)                                    \
      {                                                                                  \
        delay(tri_cost(i));                                                              \
        sum += i + 1;                                                                    \
        if (hits)                                                                        \
          __atomic_fetch_add(&hits[i], 1, __ATOMIC_RELAXED);                             \
      }                                                                                  \
    }                                                                                    \
    return sum;                                                                          \
  }

IMBAL_LOOP(imbal_dynamic, "omp parallel for schedule(dynamic) reduction(+ : sum)")
IMBAL_LOOP(imbal_runtime, "omp parallel for schedule(runtime) reduction(+ : sum)")

/* STREAM triad. Every loop uses a new scalar, so the check after the timed loops sees whether the
   last one wrote every element. Values are small integers: exact in any evaluation order. */
static double *ta, *tb, *tc;
static double triad_scalar;

#define TRIAD_LOOP(fname, directive)                                                     \
  static void fname(long reps)                                                           \
  {                                                                                      \
    long n = triad_n;                                                                    \
    for (long j = 0; j < reps; j++) {                                                    \
      double s = triad_scalar = (double)(1 + (j + 1) % 5);                               \
      _Pragma(directive) for (long i = 0; i < n; i++)                                    \
        ta[i] = tb[i] + s * tc[i];                                                       \
    }                                                                                    \
  }

TRIAD_LOOP(triad_static, "omp parallel for schedule(static)")
TRIAD_LOOP(triad_dynamic, "omp parallel for schedule(dynamic)")
TRIAD_LOOP(triad_dynamic_4k, "omp parallel for schedule(dynamic, 4096)")

static int triad_alloc(void)
{
  if (ta)
    return 0;
  size_t bytes = ((size_t)triad_n * sizeof(double) + 4095) / 4096 * 4096;
  ta = aligned_alloc(4096, bytes);
  tb = aligned_alloc(4096, bytes);
  tc = aligned_alloc(4096, bytes);
  if (!ta || !tb || !tc)
    return fail("triad", "out of memory");
  long n = triad_n;
  /* first touch by the static split the timed loops use */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    ta[i] = 0;
    tb[i] = (double)(i % 1000);
    tc[i] = (double)(i % 7);
  }
  return 0;
}

static int triad_check(const char *name)
{
  double s = triad_scalar;
  for (long i = 0; i < triad_n; i++)
    if (ta[i] != tb[i] + s * tc[i]) {
      char what[96];
      snprintf(what, sizeof what, "element %ld was not written by the last loop", i);
      return fail(name, what);
    }
  return 0;
}

/* ============================================================================ the row table */

enum kind {
  PER_ITER,      /* ns per iteration, minus the ideal split of its delays */
  PER_CONSTRUCT, /* us per construct */
  PER_LOOP,      /* us per loop */
};

struct row {
  const char *name;
  enum kind kind;
  long (*loop)(long reps, long chunk, long *hits); /* PER_ITER */
  long chunk;
  int (*test)(const struct row *r, long reps);     /* the timed run, with its checks */
  int (*verify)(const struct row *r);
};

/* iterations of one construct of a PER_ITER row, and the CPUs its reference divides by */
static long row_iters(const struct row *r)
{
  if (r->loop == loop_pfor)
    return PFOR_N;
  if (r->loop == loop_ordered)
    return (long)ORDERED_PER_THREAD * nthreads;
  return iters_per_thread * nthreads;
}

static int row_parallelism(const struct row *r) { return r->loop == loop_ordered ? 1 : ncpus; }

static int test_iter(const struct row *r, long reps)
{
  long total = r->loop(reps, r->chunk, NULL);
  if (total != reps * row_iters(r))
    return fail(r->name, "the threads ran a wrong number of iterations");
  return 0;
}

static int verify_iter(const struct row *r)
{
  const int reps = 3;
  long n = row_iters(r);
  long *hits = calloc((size_t)n, sizeof *hits);
  if (!hits)
    return fail(r->name, "out of memory");
  int bad = 0;
  if (r->loop == loop_ordered) {
    for (int j = 0; j < reps && !bad; j++) {
      if (r->loop(1, r->chunk, hits) != n)
        bad = fail(r->name, "the threads ran a wrong number of iterations");
      for (long i = 0; i < n && !bad; i++)
        if (hits[i] != i)
          bad = fail(r->name, "the ordered regions ran out of order");
    }
  } else {
    if (r->loop(reps, r->chunk, hits) != reps * n)
      bad = fail(r->name, "the threads ran a wrong number of iterations");
    for (long i = 0; i < n && !bad; i++)
      if (hits[i] != reps)
        bad = fail(r->name, "an iteration ran a wrong number of times");
  }
  free(hits);
  return bad;
}

static int test_tiny(const struct row *r, long reps)
{
  memset(tiny, 0, sizeof tiny);
  if (!strcmp(r->name, "tiny-const"))
    tiny_const(reps);
  else if (!strcmp(r->name, "tiny-var"))
    tiny_var(reps);
  else if (!strcmp(r->name, "tiny-static"))
    tiny_static(reps);
  else {
    tiny_parallel(reps);
    return 0;
  }
  for (int i = 0; i < TINY_N; i++)
    if (tiny[i] != reps)
      return fail(r->name, "an element was updated a wrong number of times");
  return 0;
}

static int verify_tiny(const struct row *r) { return test_tiny(r, 50); }

static int run_imbal(const struct row *r, long reps, long *hits)
{
  long sum = !strcmp(r->name, "imbal-dynamic") ? imbal_dynamic(reps, hits) : imbal_runtime(reps, hits);
  if (sum != reps * (tri_n * (tri_n + 1) / 2))
    return fail(r->name, "the reduced sum over the iterations is wrong");
  return 0;
}

static int test_imbal(const struct row *r, long reps) { return run_imbal(r, reps, NULL); }

static int verify_imbal(const struct row *r)
{
  long *hits = calloc((size_t)tri_n, sizeof *hits);
  if (!hits)
    return fail(r->name, "out of memory");
  int bad = run_imbal(r, 2, hits);
  for (long i = 0; i < tri_n && !bad; i++)
    if (hits[i] != 2)
      bad = fail(r->name, "an iteration ran a wrong number of times");
  free(hits);
  return bad;
}

static int test_triad(const struct row *r, long reps)
{
  if (triad_alloc())
    return 1;
  if (!strcmp(r->name, "triad-static"))
    triad_static(reps);
  else if (!strcmp(r->name, "triad-dynamic"))
    triad_dynamic(reps);
  else
    triad_dynamic_4k(reps);
  return triad_check(r->name);
}

/* the timed runs check themselves; this one also touches the arrays first */
static int verify_triad(const struct row *r) { return test_triad(r, 1); }

#define ITER_ROW(name, loop, chunk) {name, PER_ITER, loop, chunk, test_iter, verify_iter}
#define SCHED_ROWS(prefix, loop)                                                                \
  ITER_ROW(prefix "-1", loop, 1), ITER_ROW(prefix "-4", loop, 4), ITER_ROW(prefix "-16", loop, 16), \
      ITER_ROW(prefix "-64", loop, 64)

static const struct row rows[] = {
    SCHED_ROWS("static", loop_static),
    SCHED_ROWS("dynamic", loop_dynamic),
    SCHED_ROWS("guided", loop_guided),
    SCHED_ROWS("mono-dynamic", loop_monotonic),
    ITER_ROW("runtime", loop_runtime, 0),
    ITER_ROW("pfor-dynamic-1", loop_pfor, 1),
    ITER_ROW("ordered", loop_ordered, 1),
    {"tiny-const", PER_CONSTRUCT, NULL, 0, test_tiny, verify_tiny},
    {"tiny-var", PER_CONSTRUCT, NULL, 0, test_tiny, verify_tiny},
    {"tiny-static", PER_CONSTRUCT, NULL, 0, test_tiny, verify_tiny},
    {"tiny-parallel", PER_CONSTRUCT, NULL, 0, test_tiny, verify_tiny},
    {"imbal-dynamic", PER_LOOP, NULL, 0, test_imbal, verify_imbal},
    {"imbal-runtime", PER_LOOP, NULL, 0, test_imbal, verify_imbal},
    {"triad-static", PER_LOOP, NULL, 0, test_triad, verify_triad},
    {"triad-dynamic", PER_LOOP, NULL, 0, test_triad, verify_triad},
    {"triad-dynamic-4k", PER_LOOP, NULL, 0, test_triad, verify_triad},
};
#define NROWS (sizeof rows / sizeof rows[0])

static const char *unit_of(enum kind k)
{
  return k == PER_ITER ? "ns/it" : k == PER_CONSTRUCT ? "us" : "us/loop";
}

/* ============================================================================ measuring */

/* The reference of a PER_ITER row: the ideal split of its delays, run. The delays of reps
   constructs are divided evenly among P threads of one parallel region, with no worksharing
   construct: what the loops would take if scheduling and barriers cost nothing. Measured in
   parallel, not serially divided by P, so that a CPU that runs slower than the other (a busy
   host, a lower clock) slows the reference as it slows the test: on this 2-CPU machine the
   serial reference left 0-25 ns/it of such noise in every row, more than a chunk hand-out costs.
   The ordered row is serial by construction: its reference is the delays on one thread. */
static long ref_delay_count; /* delays of all threads together */
static int ref_threads;      /* P */

static int ref_delays(const struct row *r, long reps)
{
  (void)r, (void)reps;
  long count = ref_delay_count;
  /* P = 1 runs no construct at all: LLVM 14 carries the num_threads(1) of a region serialized
     by its if clause over to the next parallel region (clang-built code), so the ordered row's
     timed region after this reference ran with a team of one there and read 40-60 ns an
     iteration (a direct program of the same loop: 550-1,100). */
  if (ref_threads == 1) {
    for (long k = 0; k < count; k++)
      delay(delay_iters);
    return 0;
  }
  /* The whole team shares the delays, even with more threads than CPUs (where P is the CPUs):
     the same total on the same CPUs takes the same ideal time, and no member is left idle.
     Split among P threads only, the idle members of LLVM's team spun beside them (200 ms of
     KMP_BLOCKTIME) and slowed the reference, not the test: at 4 threads on 2 CPUs its static
     rows read 12-22 ns an iteration below zero, faster than the ideal (+28..47 with
     KMP_BLOCKTIME=0). */
#pragma omp parallel num_threads(nthreads)
  {
    int p = omp_get_num_threads(), t = omp_get_thread_num();
    long mine = count / p + (t < count % p);
    for (long k = 0; k < mine; k++)
      delay(delay_iters);
  }
  return 0;
}

static double timed(int (*fn)(const struct row *, long), const struct row *r, long reps,
                    int *err)
{
  double t0 = bench_now();
  *err |= fn(r, reps);
  return bench_now() - t0;
}

static int team_ok(void)
{
  int bad = 0;
#pragma omp parallel
  if (omp_get_num_threads() != nthreads) {
#pragma omp atomic write
    bad = 1;
  }
  return bad ? fail("team", "the team is smaller than omp_get_max_threads()") : 0;
}

static int run_row(const struct row *r, int samples, double target_s)
{
  double test_t[MAX_SAMPLES], ref_t[MAX_SAMPLES];
  int err = 0;

  if (r->verify(r))
    return 1;

  /* Calibration as in syncbench: double reps until one test takes the target time, confirmed by
     the fastest of three (one preempted test would stop the doubling too early), and until
     doubling reps nearly doubles the time (a region start that costs milliseconds under
     oversubscription must not pass for the cost of the loops), or 30 target times. */
  long reps = 1;
  double prev = 0;
  for (;;) {
    double t = timed(r->test, r, reps, &err);
    /* (one construct that takes the target time needs no confirmation: reps cannot be lower) */
    for (int again = 0; again < 2 && t >= target_s && reps > 1 && !err; again++) {
      double t2 = timed(r->test, r, reps, &err);
      if (t2 < t)
        t = t2;
    }
    if (err)
      return 1;
    if ((t >= target_s && t >= 1.9 * prev) || t >= 30 * target_s || reps >= (1L << 40))
      break;
    prev = t;
    reps *= 2;
  }

  if (r->kind == PER_ITER) {
    /* the ideal split: reps * iters delays, spread over P threads by ref_delays */
    long iters = reps * row_iters(r);
    ref_threads = row_parallelism(r);
    ref_delay_count = iters;
    /* each sample pairs a test with the reference run just before it: the machine's speed
       drifts between seconds far more than between neighbouring milliseconds */
    struct bench_usage usage;
    bench_usage_now(&usage);
    for (int s = 0; s < samples; s++) {
      ref_t[s] = timed(ref_delays, r, reps, &err);
      test_t[s] = timed(r->test, r, reps, &err);
      if (err)
        return 1;
    }
    bench_usage_print(r->name, &usage);
    printf("# construct %s unit ns/it reps %ld iterations %ld P %d reference_us %.3f\n", r->name,
           reps, row_iters(r), ref_threads, bench_median(ref_t, samples) * 1e6);
    for (int s = 0; s < samples; s++)
      printf("construct %s sample %.4f\n", r->name, (test_t[s] - ref_t[s]) / (double)iters * 1e9);
  } else {
    if (r->test == test_triad) {
      /* A process's first 20-40 ms of triad loops ran up to 1.4x slower on these VMs (3800 us
         falling to 2700 over the first ten loops, under every runtime alike, in about half the
         processes): with 5 samples a run, that start decided the row. Run past it untimed. */
      double t0 = bench_now();
      while (bench_now() - t0 < TRIAD_WARMUP_S && !err)
        err |= r->test(r, reps);
      if (err)
        return 1;
    }
    struct bench_usage usage;
    bench_usage_now(&usage);
    for (int s = 0; s < samples; s++) {
      test_t[s] = timed(r->test, r, reps, &err);
      if (err)
        return 1;
    }
    bench_usage_print(r->name, &usage);
    printf("# construct %s unit %s reps %ld\n", r->name, unit_of(r->kind), reps);
    if (r->test == test_imbal) {
      /* for reading the table: the triangular work alone, serially and ideally split */
      double t0 = bench_now();
      for (long i = 0; i < tri_n; i++)
        delay(tri_cost(i));
      double serial = bench_now() - t0;
      printf("# construct %s serial_us %.1f ideal_us %.1f\n", r->name, serial * 1e6,
             serial / (nthreads < ncpus ? nthreads : ncpus) * 1e6);
    }
    for (int s = 0; s < samples; s++)
      printf("construct %s sample %.4f\n", r->name, test_t[s] / (double)reps * 1e6);
  }
  fflush(stdout);
  return 0;
}

/* the fastest of many short runs: the least disturbed by other processes */
static void calibrate_delay(double delay_ns)
{
  long n = 20000;
  double best = 1e30;
  for (int k = 0; k < 50; k++) {
    double t0 = bench_now();
    delay(n);
    double t = bench_now() - t0;
    if (t < best)
      best = t;
  }
  delay_iters = (long)(delay_ns / (best / (double)n * 1e9) + 0.5);
  if (delay_iters < 1)
    delay_iters = 1;
}

static int usable_cpus(void)
{
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return 1;
  int n = CPU_COUNT(&set);
  return n > 0 ? n : 1;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: loopbench [options]\n"
          "  -b, --bench LIST        comma-separated rows, or 'all' (default); --list names them\n"
          "  -s, --samples N         samples per row (default 20, at most %d)\n"
          "  -t, --target-us US      target time of one sample in us (default 1000)\n"
          "  -d, --delay-ns NS       the delay of one iteration in ns (default 50)\n"
          "  -i, --delay-iters N     the delay in loop steps (overrides -d)\n"
          "      --iters-per-thread N  schedule rows: iterations per thread per loop (default 256)\n"
          "      --tri-n N           imbalanced rows: iterations (default 4096)\n"
          "      --triad-mb MB       triad rows: MB per array (default 16)\n"
          "      --list              print every row and its unit, and exit\n"
          "      --probe             print the runtime, verify the rows, time nothing\n"
          "      --calibrate         print the delay_iters for --delay-ns, and exit\n"
          "The team size comes from OMP_NUM_THREADS.\n",
          MAX_SAMPLES);
}

static const char *rows_name(size_t k) { return rows[k].name; }

int main(int argc, char **argv)
{
  const char *list = "all";
  int samples = 20, probe = 0, calibrate = 0;
  double target_us = 1000, delay_ns = 50;
  long iters = 0, triad_mb = 16;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--probe")) {
      probe = 1;
      continue;
    }
    if (!strcmp(a, "--calibrate")) {
      calibrate = 1;
      continue;
    }
    if (!strcmp(a, "--list")) {
      for (size_t k = 0; k < NROWS; k++)
        printf("%s %s\n", rows[k].name, unit_of(rows[k].kind));
      return 0;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!v) {
      usage(stderr);
      return 2;
    }
    if (!strcmp(a, "-b") || !strcmp(a, "--bench"))
      list = v;
    else if (!strcmp(a, "-s") || !strcmp(a, "--samples"))
      samples = (int)bench_parse_long(v, 1, MAX_SAMPLES, a);
    else if (!strcmp(a, "-t") || !strcmp(a, "--target-us"))
      target_us = (double)bench_parse_long(v, 1, 100000000, a);
    else if (!strcmp(a, "-d") || !strcmp(a, "--delay-ns"))
      delay_ns = (double)bench_parse_long(v, 0, 1000000, a);
    else if (!strcmp(a, "-i") || !strcmp(a, "--delay-iters"))
      iters = bench_parse_long(v, 1, 100000000, a);
    else if (!strcmp(a, "--iters-per-thread"))
      iters_per_thread = bench_parse_long(v, 1, 1L << 24, a);
    else if (!strcmp(a, "--tri-n"))
      tri_n = bench_parse_long(v, 2, 1L << 24, a);
    else if (!strcmp(a, "--triad-mb"))
      triad_mb = bench_parse_long(v, 1, 4096, a);
    else {
      usage(stderr);
      return 2;
    }
    i++;
  }

  /* which rows, validated before anything runs */
  int selected[NROWS];
  if (!bench_select("loopbench", list, rows_name, NROWS, selected)) {
    return 2;
  }

  if (calibrate) {
    calibrate_delay(delay_ns);
    printf("delay_iters %ld\n", delay_iters);
    return 0;
  }

  nthreads = omp_get_max_threads();
  ncpus = usable_cpus();
  if (ncpus > nthreads)
    ncpus = nthreads;
  triad_n = triad_mb * (1L << 20) / (long)sizeof(double);
  bench_print_runtime();
  printf("threads %d\n", nthreads);

  if (iters)
    delay_iters = iters;
  else
    calibrate_delay(delay_ns);
  double t0 = bench_now();
  delay(delay_iters * 1000);
  printf("# delay_iters %ld delay_ns %.1f samples %d target_us %.0f P %d iters_per_thread %ld "
         "tri_n %ld triad_mb %ld OMP_SCHEDULE %s\n",
         delay_iters, (bench_now() - t0) / 1000 * 1e9, samples, target_us, ncpus,
         iters_per_thread, tri_n, triad_mb, getenv("OMP_SCHEDULE") ? getenv("OMP_SCHEDULE") : "unset");
  fflush(stdout);

  int status = team_ok();
  if (status)
    return status;
  for (size_t k = 0; k < NROWS; k++) {
    if (!selected[k])
      continue;
    if (probe)
      status |= rows[k].verify(&rows[k]);
    else
      status |= run_row(&rows[k], samples, target_us * 1e-6);
  }
  if (probe && !status)
    printf("probe ok\n");
  free(ta);
  free(tb);
  free(tc);
  return status;
}
