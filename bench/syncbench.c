/* syncbench: the overhead of OpenMP synchronisation constructs, in microseconds per construct.

   The method is EPCC syncbench's (Bull, "Measuring Synchronisation and Scheduling Overheads in
   OpenMP", EWOMP 1999), reimplemented here:
     - a test runs the construct `reps` times in a loop, each instance wrapping a short delay (a few
       dozen ns of arithmetic the compiler cannot remove);
     - the reference runs the same loop on one thread with the construct replaced by its body;
     - overhead = (test time - reference time) / reps.
   `reps` is doubled until one test takes at least the target time, so that the clock and the loop
   cost vanish (with two guards for shared machines, see run_construct); every sample is one timed
   test. The reference is timed next to each test and its median is subtracted from every sample,
   so one interrupted reference does not spoil a sample.

   The timed loops contain nothing but the construct and the delay, as in EPCC. Correctness is
   checked where it costs nothing (atomic and reduction sums) and, for the other constructs, by a
   separate verification pass before timing; a wrong result prints FAIL and exits with status 1.

   Output, one line per item, for bench/run-bench:
     runtime <path of the object that defines omp_get_num_threads>
     runtime-gomp <path of the object that defines GOMP_parallel>
     threads <omp_get_max_threads(), the team size every construct is verified to get>
     construct <name> sample <overhead in us>
   Lines starting with '#' are information for people. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

#define MAX_SAMPLES 1000

static long delay_iters = 100; /* calibrated in main */
static int nthreads;

/* ---- the delay: dependent integer adds; the empty asm makes each step opaque to the optimiser,
   so it neither folds the loop nor vectorises it. Out of line, as in EPCC, so that it costs the
   same inside an outlined region as in the reference loop. ---- */
__attribute__((noinline)) static void delay(long n)
{
  unsigned long acc = 0;
  for (long i = 0; i < n; i++) {
    acc += (unsigned long)i;
    __asm__ volatile("" : "+r"(acc));
  }
}

/* ---- per-thread counters for the verification passes, one cache line each ---- */
struct padded {
  long n;
  char pad[64 - sizeof(long)];
} __attribute__((aligned(64)));
static struct padded *slot;

static int fail(const char *construct, const char *what)
{
  printf("FAIL construct %s: %s\n", construct, what);
  fflush(stdout);
  return 1;
}

/* ---- the tests: each returns 0, or 1 after printing FAIL ---- */

static int ref_delay(long reps)
{
  for (long j = 0; j < reps; j++)
    delay(delay_iters);
  return 0;
}

static int test_parallel(long reps)
{
  for (long j = 0; j < reps; j++) {
#pragma omp parallel
    delay(delay_iters);
  }
  return 0;
}

static int test_for(long reps)
{
#pragma omp parallel
  for (long j = 0; j < reps; j++) {
#pragma omp for schedule(static)
    for (int i = 0; i < nthreads; i++)
      delay(delay_iters);
  }
  return 0;
}

static int test_barrier(long reps)
{
#pragma omp parallel
  for (long j = 0; j < reps; j++) {
    delay(delay_iters);
#pragma omp barrier
  }
  return 0;
}

static int test_single(long reps)
{
#pragma omp parallel
  for (long j = 0; j < reps; j++) {
#pragma omp single
    delay(delay_iters);
  }
  return 0;
}

/* critical, lock and atomic: the team shares `reps` instances, so the total serialised work is the
   reference's. reps is a multiple of the team size (see round_reps). */
static int test_critical(long reps)
{
  long each = reps / nthreads;
#pragma omp parallel
  for (long j = 0; j < each; j++) {
#pragma omp critical
    delay(delay_iters);
  }
  return 0;
}

static omp_lock_t bench_lock;

static int test_lock(long reps)
{
  long each = reps / nthreads;
#pragma omp parallel
  for (long j = 0; j < each; j++) {
    omp_set_lock(&bench_lock);
    delay(delay_iters);
    omp_unset_lock(&bench_lock);
  }
  return 0;
}

/* A long add: gcc emits `lock add` inline, with no runtime call. Its reference is the same count
   of plain adds on one thread, as in EPCC. */
static long atomic_sum;

static int ref_atomic(long reps)
{
  long x = 0;
  for (long j = 0; j < reps; j++) {
    x += 1;
    __asm__ volatile("" : "+r"(x));
  }
  atomic_sum = x;
  return 0;
}

static int test_atomic(long reps)
{
  long each = reps / nthreads;
  atomic_sum = 0;
#pragma omp parallel
  for (long j = 0; j < each; j++) {
#pragma omp atomic
    atomic_sum += 1;
  }
  if (atomic_sum != each * nthreads)
    return fail("atomic", "the atomic sum is wrong");
  return 0;
}

static int test_reduction(long reps)
{
  long sum = 0;
  for (long j = 0; j < reps; j++) {
#pragma omp parallel reduction(+ : sum)
    {
      delay(delay_iters);
      sum += 1;
    }
  }
  if (sum != reps * nthreads)
    return fail("reduction", "the reduction sum is wrong");
  return 0;
}

/* ---- verification passes: semantics the timed loops cannot check for free ---- */

#define VERIFY_REPS 50

static void clear_slots(void)
{
  for (int i = 0; i < nthreads; i++)
    slot[i].n = 0;
}

static int team_ok(const char *construct)
{
  int bad = 0;
#pragma omp parallel
  if (omp_get_num_threads() != nthreads) {
#pragma omp atomic write
    bad = 1;
  }
  if (bad)
    return fail(construct, "the team is smaller than omp_get_max_threads()");
  return 0;
}

static int verify_parallel(void)
{
  if (team_ok("parallel"))
    return 1;
  clear_slots();
  for (int j = 0; j < VERIFY_REPS; j++) {
#pragma omp parallel
    slot[omp_get_thread_num()].n++;
  }
  for (int i = 0; i < nthreads; i++)
    if (slot[i].n != VERIFY_REPS)
      return fail("parallel", "a thread missed a region");
  return 0;
}

static int verify_for(void)
{
  int bad = 0;
  long *hits = calloc((size_t)nthreads * 4, sizeof *hits);
  if (!hits)
    return fail("for", "out of memory");
#pragma omp parallel
  for (int j = 0; j < VERIFY_REPS; j++) {
#pragma omp for schedule(static)
    for (int i = 0; i < nthreads * 4; i++)
      hits[i]++;
  }
  for (int i = 0; i < nthreads * 4; i++)
    if (hits[i] != VERIFY_REPS)
      bad = 1;
  free(hits);
  return bad ? fail("for", "an iteration ran a wrong number of times") : 0;
}

static int verify_barrier(void)
{
  int bad = 0;
  clear_slots();
#pragma omp parallel
  {
    int me = omp_get_thread_num();
    for (int j = 1; j <= VERIFY_REPS; j++) {
      __atomic_store_n(&slot[me].n, j, __ATOMIC_RELAXED);
#pragma omp barrier
      for (int i = 0; i < nthreads; i++)
        if (__atomic_load_n(&slot[i].n, __ATOMIC_RELAXED) != j) {
#pragma omp atomic write
          bad = 1;
        }
#pragma omp barrier
    }
  }
  return bad ? fail("barrier", "a thread passed the barrier before the others arrived") : 0;
}

static int verify_single(void)
{
  long count = 0;
#pragma omp parallel
  for (int j = 0; j < VERIFY_REPS; j++) {
#pragma omp single
    count++;
  }
  return count != VERIFY_REPS ? fail("single", "a single ran a wrong number of times") : 0;
}

/* read, delay, write: a broken mutual exclusion loses updates */
static long excl_count;

static void slow_increment(void)
{
  long v = excl_count;
  delay(delay_iters);
  __asm__ volatile("" ::: "memory");
  excl_count = v + 1;
}

static int verify_critical(void)
{
  excl_count = 0;
#pragma omp parallel
  for (int j = 0; j < VERIFY_REPS; j++) {
#pragma omp critical
    slow_increment();
  }
  if (excl_count != (long)VERIFY_REPS * nthreads)
    return fail("critical", "two threads were inside the critical section at once");
  return 0;
}

static int verify_lock(void)
{
  excl_count = 0;
#pragma omp parallel
  for (int j = 0; j < VERIFY_REPS; j++) {
    omp_set_lock(&bench_lock);
    slow_increment();
    omp_unset_lock(&bench_lock);
  }
  if (excl_count != (long)VERIFY_REPS * nthreads)
    return fail("lock", "two threads held the lock at once");
  return 0;
}

static int verify_atomic(void)
{
  return test_atomic((long)VERIFY_REPS * nthreads);
}

static int verify_reduction(void)
{
  return test_reduction(VERIFY_REPS);
}

/* ---- the table of constructs ---- */

struct construct {
  const char *name;
  int (*test)(long reps);
  int (*ref)(long reps);
  int (*verify)(void);
  int shared_reps; /* the team shares the reps: keep them a multiple of the team size */
};

static const struct construct constructs[] = {
    {"parallel", test_parallel, ref_delay, verify_parallel, 0},
    {"for", test_for, ref_delay, verify_for, 0},
    {"barrier", test_barrier, ref_delay, verify_barrier, 0},
    {"single", test_single, ref_delay, verify_single, 0},
    {"critical", test_critical, ref_delay, verify_critical, 1},
    {"lock", test_lock, ref_delay, verify_lock, 1},
    {"atomic", test_atomic, ref_atomic, verify_atomic, 1},
    {"reduction", test_reduction, ref_delay, verify_reduction, 0},
};
#define NCONSTRUCTS (sizeof constructs / sizeof constructs[0])

static long round_reps(const struct construct *c, long reps)
{
  if (c->shared_reps && reps % nthreads)
    reps += nthreads - reps % nthreads;
  return reps;
}

static double timed(int (*fn)(long), long reps, int *err)
{
  double t0 = bench_now();
  *err |= fn(reps);
  return bench_now() - t0;
}

static int run_construct(const struct construct *c, int samples, double target_s)
{
  double test_t[MAX_SAMPLES], ref_t[MAX_SAMPLES];
  int err = 0;

  if (c->verify())
    return 1;

  /* EPCC's calibration: double reps until one test takes the target time; this also warms up
     the team. On a shared machine one preempted test (a scheduler tick is 4 ms here) would stop
     the doubling far too early, so a test that reaches the target is timed twice more and the
     fastest of the three decides.
     Most tests open one parallel region around their loop. When a region start is expensive
     (oversubscription, a busy CPU: milliseconds) a test of a few reps already passes the target,
     and the samples would measure the region start, not the construct. So the doubling also goes
     on until doubling reps nearly doubles the time (the fixed cost is then below a ninth of the
     total), or the test takes 30 target times. */
  long reps = round_reps(c, 1);
  double prev = 0;
  for (;;) {
    double t = timed(c->test, reps, &err);
    for (int again = 0; again < 2 && t >= target_s && !err; again++) {
      double t2 = timed(c->test, reps, &err);
      if (t2 < t)
        t = t2;
    }
    if (err)
      return 1;
    if ((t >= target_s && t >= 1.9 * prev) || t >= 30 * target_s || reps >= (1L << 40))
      break;
    prev = t;
    reps = round_reps(c, reps * 2);
  }

  struct bench_usage usage;
  bench_usage_now(&usage);
  for (int s = 0; s < samples; s++) {
    ref_t[s] = timed(c->ref, reps, &err);
    test_t[s] = timed(c->test, reps, &err);
    if (err)
      return 1;
  }
  bench_usage_print(c->name, &usage);
  double ref = bench_median(ref_t, samples);
  printf("# construct %s reps %ld reference_us %.3f\n", c->name, reps, ref * 1e6);
  for (int s = 0; s < samples; s++)
    printf("construct %s sample %.4f\n", c->name, (test_t[s] - ref) / (double)reps * 1e6);
  fflush(stdout);
  return 0;
}

/* ---- calibration of the delay ---- */

static void calibrate_delay(double delay_ns)
{
  /* the fastest of many short runs: the least disturbed by other processes */
  long n = 20000;
  double best = 1e30;
  for (int k = 0; k < 50; k++) {
    double t0 = bench_now();
    delay(n);
    double t = bench_now() - t0;
    if (t < best)
      best = t;
  }
  double per_iter_ns = best / (double)n * 1e9;
  delay_iters = (long)(delay_ns / per_iter_ns + 0.5);
  if (delay_iters < 1)
    delay_iters = 1;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: syncbench [options]\n"
          "  -c, --construct LIST   comma-separated constructs, or 'all' (default all):\n"
          "                         parallel,for,barrier,single,critical,lock,atomic,reduction\n"
          "  -s, --samples N        samples per construct (default 20, at most %d)\n"
          "  -t, --target-us US     target time of one sample in us (default 1000)\n"
          "  -d, --delay-ns NS      length of the delay body in ns (default 50)\n"
          "  -i, --delay-iters N    length of the delay body in loop steps (overrides -d)\n"
          "      --probe            print the runtime, verify the constructs, time nothing\n"
          "      --calibrate        print the delay_iters for --delay-ns, and exit\n"
          "The team size comes from OMP_NUM_THREADS.\n",
          MAX_SAMPLES);
}

static const char *constructs_name(size_t k) { return constructs[k].name; }

int main(int argc, char **argv)
{
  const char *list = "all";
  int samples = 20, probe = 0, calibrate = 0;
  double target_us = 1000, delay_ns = 50;
  long iters = 0;

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
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!v) {
      usage(stderr);
      return 2;
    }
    if (!strcmp(a, "-c") || !strcmp(a, "--construct"))
      list = v;
    else if (!strcmp(a, "-s") || !strcmp(a, "--samples"))
      samples = (int)bench_parse_long(v, 1, MAX_SAMPLES, a);
    else if (!strcmp(a, "-t") || !strcmp(a, "--target-us"))
      target_us = (double)bench_parse_long(v, 1, 100000000, a);
    else if (!strcmp(a, "-d") || !strcmp(a, "--delay-ns"))
      delay_ns = (double)bench_parse_long(v, 0, 1000000, a);
    else if (!strcmp(a, "-i") || !strcmp(a, "--delay-iters"))
      iters = bench_parse_long(v, 1, 100000000, a);
    else {
      usage(stderr);
      return 2;
    }
    i++;
  }

  /* which constructs, validated before anything runs */
  int selected[NCONSTRUCTS];
  if (!bench_select("syncbench", list, constructs_name, NCONSTRUCTS, selected)) {
      usage(stderr);
    return 2;
  }

  if (calibrate) {
    calibrate_delay(delay_ns);
    printf("delay_iters %ld\n", delay_iters);
    return 0;
  }

  nthreads = omp_get_max_threads();
  slot = aligned_alloc(64, sizeof *slot * (size_t)nthreads);
  if (!slot) {
    fprintf(stderr, "syncbench: out of memory\n");
    return 1;
  }
  omp_init_lock(&bench_lock);
  bench_print_runtime();
  printf("threads %d\n", nthreads);

  if (iters)
    delay_iters = iters;
  else
    calibrate_delay(delay_ns);
  double t0 = bench_now();
  delay(delay_iters * 1000);
  printf("# delay_iters %ld delay_ns %.1f samples %d target_us %.0f\n", delay_iters,
         (bench_now() - t0) / 1000 * 1e9, samples, target_us);
  fflush(stdout);

  int status = 0;
  for (size_t k = 0; k < NCONSTRUCTS; k++) {
    if (!selected[k])
      continue;
    if (probe)
      status |= constructs[k].verify();
    else
      status |= run_construct(&constructs[k], samples, target_us * 1e-6);
  }
  if (probe && !status)
    printf("probe ok\n");
  omp_destroy_lock(&bench_lock);
  free(slot);
  return status;
}
