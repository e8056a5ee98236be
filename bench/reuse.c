/* reuse: what binding buys a code whose static blocks stay in each core's cache from one parallel
   region to the next (the DESIGN brief's idea 2: block k of a static loop lands on thread k
   every region; bound, thread k also stays on the same core, so its block stays in that core's
   L2).

   The working set: two arrays of doubles of together L2 x threads x 3/4 bytes, where L2 is the
   per-core level-2 cache (sysconf(_SC_LEVEL2_CACHE_SIZE), else hwloc's sysfs view
   /sys/devices/system/cpu/cpu0/cache/index2/size, else 1 MiB; --l2-kb overrides): each thread's
   block fits its core's L2 with room to spare, the whole set does not fit one core's L2 once
   there are two threads. Each region is
     #pragma omp parallel for schedule(static)
     for (i = 0; i < n; i++) a[i] = a[i] * 0.75 + b[i] * 0.25 + 0.5;
   (a few flops per element: the time is in moving the data, so in where it lies). A sample runs
   R regions (-n, default 2000) back to back and reports microseconds per region.

   bench/run-bench runs two rows of it, with the same binary under each runtime:
     reuse        unbound (OMP_PROC_BIND, OMP_PLACES, GOMP_CPU_AFFINITY removed from the
                  environment): the OS may move threads, and each move leaves a block behind
     reuse-bound  OMP_PROC_BIND=close OMP_PLACES=cores: thread k stays on core k
   The row name (-b) only labels the output, and the program checks that it agrees with the
   binding the runtime reports (omp_get_proc_bind). It calls no places routine.

   Checks: every element follows its own recurrence, so its value after all the regions is known:
   64 elements spread over the array are recomputed serially at the end and must agree to 1e-12
   (FAIL otherwise, exit status 1). Per sample the program also counts how often a thread began a
   region on another CPU than in the region before (sched_getcpu): "# moves" lines.

   Output, for bench/run-bench:
     runtime <path>, runtime-gomp <path>, threads <team size>   (as syncbench)
     construct <name> sample <us per region>
   Lines starting with '#' are information for people. */
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchutil.h"

#define MAX_SAMPLES 1000
#define MAX_THREADS 1024
#define CHECK_POINTS 64

static const char *const row_names[] = {"reuse", "reuse-bound"};
#define NROWS (sizeof row_names / sizeof row_names[0])

static double *a, *b;
static long n;
static long regions_done;        /* every region run on a, for the check */
static int last_cpu[MAX_THREADS];
static long moves;

static long l2_bytes(const char **from)
{
  long v = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
  v = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  if (v > 0) {
    *from = "sysconf";
    return v;
  }
  FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
  if (f) {
    char unit = 0;
    long k;
    if (fscanf(f, "%ld%c", &k, &unit) >= 1 && k > 0) {
      fclose(f);
      *from = "sysfs";
      return unit == 'M' ? k << 20 : unit == 'K' ? k << 10 : k;
    }
    fclose(f);
  }
  *from = "default";
  return 1L << 20;
}

static void region(void)
{
#pragma omp parallel
  {
    int t = omp_get_thread_num();
    int cpu = sched_getcpu();
    if (t < MAX_THREADS) {
      if (last_cpu[t] >= 0 && last_cpu[t] != cpu) {
#pragma omp atomic
        moves++;
      }
      last_cpu[t] = cpu;
    }
#pragma omp for schedule(static)
    for (long i = 0; i < n; i++)
      a[i] = a[i] * 0.75 + b[i] * 0.25 + 0.5;
  }
  regions_done++;
}

static double init_a(long i) { return (double)(i % 1000) * 1e-3; }
static double init_b(long i) { return (double)((i * 7) % 1000) * 1e-3 - 0.5; }

static int check(void)
{
  int bad = 0;
  for (int k = 0; k < CHECK_POINTS; k++) {
    long i = (long)((double)k / CHECK_POINTS * n) + k % 3;
    if (i >= n)
      i = n - 1;
    volatile double x = init_a(i); /* volatile: the same rounding as the loop, step by step */
    double y = init_b(i);
    for (long r = 0; r < regions_done; r++)
      x = x * 0.75 + y * 0.25 + 0.5;
    double d = a[i] - x, m = x < 0 ? -x : x;
    if (d < 0)
      d = -d;
    if (d > 1e-12 * (m > 1 ? m : 1)) {
      if (!bad)
        printf("FAIL: reuse: a[%ld] = %.17g after %ld regions, expected %.17g\n", i, a[i],
               regions_done, (double)x);
      bad = 1;
    }
  }
  return bad;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: reuse [options]\n"
          "  -b, --bench NAME      the row: reuse (unbound) or reuse-bound (default reuse); the\n"
          "                        binding itself comes from the environment (see the source)\n"
          "  -s, --samples N       samples (default 5, at most %d)\n"
          "  -n, --regions N       parallel regions per sample (default 2000)\n"
          "      --l2-kb KB        the per-core L2 size (default: sysconf, sysfs, else 1024)\n"
          "      --list            print the rows and their unit, and exit\n"
          "      --probe           print the runtime, run a few regions and check them\n"
          "The team size comes from OMP_NUM_THREADS.\n",
          MAX_SAMPLES);
}

int main(int argc, char **argv)
{
  const char *row = "reuse";
  int samples = 5, probe = 0;
  long nregions = 2000, l2_kb = 0;

  for (int i = 1; i < argc; i++) {
    const char *o = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(o, "--list")) {
      for (size_t k = 0; k < NROWS; k++)
        printf("%s us/region\n", row_names[k]);
      return 0;
    }
    if (!strcmp(o, "--probe")) {
      probe = 1;
      continue;
    }
    if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!v) {
      usage(stderr);
      return 2;
    }
    if (!strcmp(o, "-b") || !strcmp(o, "--bench"))
      row = v;
    else if (!strcmp(o, "-s") || !strcmp(o, "--samples"))
      samples = (int)bench_parse_long(v, 1, MAX_SAMPLES, o);
    else if (!strcmp(o, "-n") || !strcmp(o, "--regions"))
      nregions = bench_parse_long(v, 1, 100000000, o);
    else if (!strcmp(o, "--l2-kb"))
      l2_kb = bench_parse_long(v, 1, 1L << 22, o);
    else {
      usage(stderr);
      return 2;
    }
    i++;
  }
  /* a comma-separated list naming one row, as run-bench passes it */
  int bound_row = -1;
  for (size_t k = 0; k < NROWS; k++)
    if (!strcmp(row, row_names[k]))
      bound_row = (int)k;
  if (bound_row < 0) {
    fprintf(stderr, "reuse: unknown row '%s' (reuse or reuse-bound)\n", row);
    return 2;
  }

  int nthreads = omp_get_max_threads();
  const char *l2_from = "--l2-kb";
  long l2 = l2_kb ? l2_kb << 10 : l2_bytes(&l2_from);
  long ws = l2 / 4 * 3 * nthreads;           /* bytes, both arrays */
  n = ws / (2 * (long)sizeof(double));
  if (n < 1024)
    n = 1024;
  a = aligned_alloc(64, ((size_t)n * sizeof(double) + 63) / 64 * 64);
  b = aligned_alloc(64, ((size_t)n * sizeof(double) + 63) / 64 * 64);
  if (!a || !b) {
    fprintf(stderr, "reuse: out of memory\n");
    return 1;
  }
  /* first touch by the team, block by block as the loop will use them */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    a[i] = init_a(i);
    b[i] = init_b(i);
  }
  for (int t = 0; t < MAX_THREADS; t++)
    last_cpu[t] = -1;

  bench_print_runtime();
  printf("threads %d\n", nthreads);
  int bind = omp_get_proc_bind();
  printf("# reuse row %s l2_bytes %ld (%s) working_set_bytes %ld elements %ld regions %ld "
         "proc_bind %d OMP_PROC_BIND %s OMP_PLACES %s\n",
         row, l2, l2_from, 2 * n * (long)sizeof(double), n, nregions, bind,
         getenv("OMP_PROC_BIND") ? getenv("OMP_PROC_BIND") : "unset",
         getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "unset");
  /* the row must be what the environment asked for */
  if ((bound_row == 1) != (bind != omp_proc_bind_false)) {
    printf("FAIL: reuse: row %s but omp_get_proc_bind() is %d (is OMP_PROC_BIND %s?)\n", row,
           bind, bound_row == 1 ? "set" : "unset");
    return 1;
  }
  fflush(stdout);

  if (probe) {
    for (int r = 0; r < 20; r++)
      region();
    if (check())
      return 1;
    printf("probe ok\n");
    return 0;
  }

  for (int r = 0; r < nregions / 10 + 1; r++) /* warm-up: caches filled, team started */
    region();
  struct bench_usage usage;
  bench_usage_now(&usage);
  for (int s = 0; s < samples; s++) {
    moves = 0;
    double t0 = bench_now();
    for (long r = 0; r < nregions; r++)
      region();
    double t = bench_now() - t0;
    printf("construct %s sample %.4f\n", row, t / (double)nregions * 1e6);
    printf("# moves %ld of %ld thread-regions\n", moves, nregions * nthreads);
    fflush(stdout);
  }
  bench_usage_print(row, &usage);
  int status = check();
  free(a);
  free(b);
  return status;
}
