/* gapbench: the shape of issue 48, "parallel step, serial phase, repeat". Each step is a
   parallel loop of ~50 us per thread, then a serial computation of a fixed duration (busy, as a
   real program's serial phase is) on the main thread. Per gap: wall time and CPU time (getrusage
   of the whole process, every thread) per step, in us.

   usage: gapbench [steps] [gaps...]   gaps in us, "r" for a random gap of 500-5000 us
   (default: 0.05, 0.3, 1, 3, 10, 30 ms and r; the steps per gap scale so each row takes ~0.3 s).
          gapbench calibrate           prints the iterations per thread of a ~50 us step
   The team size is OMP_NUM_THREADS's; GAPBENCH_REGIONS=N splits each step into N regions back to
   back (a program's time step of several loops). GAPBENCH_ITERS (per thread) fixes the step's
   size: every process calibrating on its own gave 14,000 to 36,000 iterations on a busy
   machine, so runtimes compared did different work; bench/run-gapbench calibrates once and
   passes it to all of them, interleaved. */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_us(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double cpu_us(void)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec +
         ru.ru_stime.tv_usec;
}

/* Busy for us microseconds: the serial phase. */
static volatile double sink;
static void busy_us(double us)
{
  double end = now_us() + us;
  double x = 1.0;
  while (now_us() < end)
    for (int i = 0; i < 100; i++)
      x = x * 1.0000001 + 1e-9;
  sink = x;
}

static double a[1 << 16];

/* One parallel region of a step. */
static void region(int iters)
{
#pragma omp parallel
  {
    double x = 0;
#pragma omp for schedule(static)
    for (int i = 0; i < iters; i++) {
      double v = a[i & ((1 << 16) - 1)];
      for (int k = 0; k < 8; k++)
        v = v * 0.999 + 0.5;
      x += v;
    }
#pragma omp atomic
    a[0] += x * 1e-30;
  }
}

/* One parallel step: about 50 us of work per thread, whatever the team size, in one region or
   (GAPBENCH_REGIONS) several back to back, as a time step of several loops. */
static int regions = 1;
static void step(int iters)
{
  for (int r = 0; r < regions; r++)
    region(iters / regions);
}

/* Iterations of the step's loop that take ~50 us on one thread: the fastest of 5 timings (a
   preempted one only reads slower). */
static int calibrate(void)
{
  for (int iters = 1000;; iters *= 2) {
    double per = 1e30;
    for (int t = 0; t < 5; t++) {
      double t0 = now_us();
      for (int r = 0; r < 10; r++) {
        double x = 0;
        for (int i = 0; i < iters; i++) {
          double v = a[i & ((1 << 16) - 1)];
          for (int k = 0; k < 8; k++)
            v = v * 0.999 + 0.5;
          x += v;
        }
        sink = x;
      }
      double took = (now_us() - t0) / 10;
      if (took < per)
        per = took;
    }
    if (per > 20 || iters > 1 << 24)
      return (int)(iters * 50.0 / per);
  }
}

int main(int argc, char **argv)
{
  if (argc > 1 && strcmp(argv[1], "calibrate") == 0) {
    printf("%d\n", calibrate());
    return 0;
  }
  const char *defaults[] = {"50", "300", "1000", "3000", "10000", "30000", "r"};
  int steps_arg = argc > 1 ? atoi(argv[1]) : 0;
  int ngaps = argc > 2 ? argc - 2 : (int)(sizeof defaults / sizeof *defaults);
  const char **gaps = argc > 2 ? (const char **)argv + 2 : defaults;
  int nthreads = omp_get_max_threads();
  const char *fixed = getenv("GAPBENCH_ITERS");
  int per_thread = fixed != NULL && atoi(fixed) > 0 ? atoi(fixed) : calibrate();
  int iters = per_thread * nthreads;
  const char *r = getenv("GAPBENCH_REGIONS");
  if (r != NULL && atoi(r) > 1)
    regions = atoi(r);
  srand(12345);
  step(iters); /* the team starts */
  printf("# gapbench: %d threads, ~50 us steps (%d iterations, %d region%s a step)\n", nthreads,
         iters, regions, regions > 1 ? "s" : "");
  printf("%-8s %6s %12s %12s\n", "gap_us", "steps", "wall_us", "cpu_us");
  for (int g = 0; g < ngaps; g++) {
    bool random = strcmp(gaps[g], "r") == 0;
    double gap = random ? 2750 : atof(gaps[g]);
    int steps = steps_arg > 0 ? steps_arg : (int)(300000 / (gap + 60));
    if (steps < 10)
      steps = 10;
    /* a few steps first so that the runtime sees this rhythm (and ours learns it) */
    for (int s = 0; s < 8; s++) {
      step(iters);
      busy_us(random ? 500 + rand() % 4500 : gap);
    }
    double w0 = now_us(), c0 = cpu_us();
    for (int s = 0; s < steps; s++) {
      step(iters);
      busy_us(random ? 500 + rand() % 4500 : gap);
    }
    double wall = (now_us() - w0) / steps, cpu = (cpu_us() - c0) / steps;
    printf("%-8s %6d %12.1f %12.1f\n", gaps[g], steps, wall, cpu);
  }
  return 0;
}
