/* wake_ahead: the shapes wake ahead (issue 48, libomp-lite/gap.c) predicts: parallel steps
   between regular serial gaps of 2 ms, then a serial phase of 1 s, then steps again; and the
   same with irregular gaps of 0.5-5 ms, whose span the members spin through, and with steps of
   three regions, the gap learned for the last. Every
   step's result is checked, and the workers' CPU time during the long serial phase (the
   process's less the main thread's, from getrusage) must stay far below the phase: a member
   that woke ahead of a fork that never came must park again, not spin on. The bound (a quarter
   of the phase) cannot be reached by a correct runtime however loaded the machine (each member
   spins at most the spin budget, 0.3 ms, then its window, once), and load can only lower a
   spinner's CPU time. Run with OMPLITE_WAKE_AHEAD on and off, passive, and 4 threads. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "lite_check.h"

#define N 20000

static double tv_s(struct timeval tv) { return tv.tv_sec + tv.tv_usec / 1e6; }

/* CPU seconds of every thread of the process but the calling one. */
static double others_cpu(void)
{
  struct rusage all, self;
  getrusage(RUSAGE_SELF, &all);
  getrusage(RUSAGE_THREAD, &self);
  return tv_s(all.ru_utime) + tv_s(all.ru_stime) - tv_s(self.ru_utime) - tv_s(self.ru_stime);
}

static void sleep_us(long us)
{
  struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };
  while (nanosleep(&ts, &ts) != 0) {
  }
}

enum shape { REGULAR, IRREGULAR, THREE_REGIONS };
static const char *const shape_name[] = { "regular gaps", "irregular gaps",
                                          "three regions a step" };

/* n steps, each followed by a gap of 2 ms, or of 0.5-5 ms (IRREGULAR); THREE_REGIONS: two more
   regions back to back before each step's checked one (wake ahead learns per region). */
static void steps(int n, int *a, enum shape shape)
{
  static unsigned hash;
  for (int s = 0; s < n; s++) {
    if (shape == THREE_REGIONS)
      for (int r = 0; r < 2; r++) {
#pragma omp parallel for
        for (int i = 0; i < N; i++)
          a[i] += 2;
      }
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < N; i++) {
      a[i] += 1;
      sum += a[i];
    }
    long want = 0;
    for (int i = 0; i < N; i++)
      want += a[i];
    if (sum != want)
      lite_fail("step %d: sum %ld, expected %ld", s, sum, want);
    sleep_us(shape == IRREGULAR ? 500 + (++hash * 2654435761u) % 4500 : 2000);
  }
}

int main(void)
{
  LITE_CHECK("wake_ahead");
  static int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i % 7;
  for (int shape = REGULAR; shape <= THREE_REGIONS; shape++) {
    steps(40, a, shape);
    double before = others_cpu();
    sleep_us(1000000);
    double used = others_cpu() - before;
    if (used > 0.25)
      lite_fail("workers used %.3f s of CPU during a 1 s serial phase after %s", used,
                shape_name[shape]);
    steps(10, a, shape);
    printf("wake_ahead: ok after %s (workers' CPU during the serial phase %.4f s)\n",
           shape_name[shape], used);
  }
  return 0;
}
