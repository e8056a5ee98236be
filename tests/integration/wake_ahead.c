/* wake_ahead: the shapes wake ahead (issue 48, libomp-lite/gap.c) predicts: parallel steps
   between regular serial gaps of 2 ms, then a serial phase of 1 s, then steps again; and the
   same with irregular gaps of 0.5-5 ms, whose span the members spin through. Every
   step's result is checked, and the workers' CPU time during the long serial phase (the
   process's less the main thread's, from getrusage) must stay far below the phase: a member
   that woke ahead of a fork that never came must park again, not spin on. The bound (a quarter
   of the phase) cannot be reached by a correct runtime however loaded the machine (each member
   spins at most the spin budget, 0.3 ms, then its window, once), and load can only lower a
   spinner's CPU time. Run with OMPLITE_WAKE_AHEAD on and off, passive, and 4 threads. */
#include <omp.h>
#include <stdbool.h>
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

/* n steps, each followed by a gap of 2 ms, or of 0.5-5 ms if irregular. */
static void steps(int n, int *a, bool irregular)
{
  static unsigned hash;
  for (int s = 0; s < n; s++) {
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
    sleep_us(irregular ? 500 + (++hash * 2654435761u) % 4500 : 2000);
  }
}

int main(void)
{
  LITE_CHECK("wake_ahead");
  static int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i % 7;
  for (int round = 0; round < 2; round++) {
    bool irregular = round == 1;
    steps(40, a, irregular);
    double before = others_cpu();
    sleep_us(1000000);
    double used = others_cpu() - before;
    if (used > 0.25)
      lite_fail("workers used %.3f s of CPU during a 1 s serial phase after %s gaps", used,
                irregular ? "irregular" : "regular");
    steps(10, a, irregular);
    printf("wake_ahead: ok after %s gaps (workers' CPU during the serial phase %.4f s)\n",
           irregular ? "irregular" : "regular", used);
  }
  return 0;
}
