/* floor: what this machine's hardware charges for the signals every fork and join is made of,
   whatever the runtime: the round trip of a cache line between two CPUs.

   One thread stores a count in its own cache line; a second thread, spinning on that line, sees
   it and answers by storing the same count in a line of its own, on which the first one spins.
   A 2-thread fork and join needs at least this exchange (the fork's signal out, the arrival back),
   so its time per round is the floor under a 2-thread `parallel`, and a stencil region that also
   reads data the other thread wrote pays it again. The two threads are pinned to the first two
   CPUs this process may run on (with one CPU there is no floor to measure: it prints none).

   No OpenMP: plain pthreads, so the figure is the same under every runtime.

   Output, for bench/run-bench:
     floor cpus <a> <b>
     floor roundtrip_ns <ns>        one line per sample (the mean of its rounds)
     floor pause_ns <ns>            the cost of one `pause` (x86; other machines print 0) */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "benchutil.h"

#define ROUNDS_PER_SAMPLE 100000L

struct line {
  _Alignas(64) atomic_long value;
  char pad[64 - sizeof(atomic_long)];
};

static struct line ping, pong;
static long total_rounds;

static void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void pin_to(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static int echo_cpu;

static void *echo(void *unused)
{
  (void)unused;
  pin_to(echo_cpu);
  for (long k = 1; k <= total_rounds; k++) {
    while (atomic_load_explicit(&ping.value, memory_order_acquire) != k)
      spin_pause();
    atomic_store_explicit(&pong.value, k, memory_order_release);
  }
  return NULL;
}

static double pause_ns(void)
{
#if defined(__x86_64__) || defined(__i386__)
  const long count = 2000000;
  double t0 = bench_now();
  for (long k = 0; k < count; k++)
    __builtin_ia32_pause();
  return (bench_now() - t0) / count * 1e9;
#else
  return 0;
#endif
}

int main(int argc, char **argv)
{
  int samples = 5;
  for (int i = 1; i < argc; i++) {
    if ((!strcmp(argv[i], "-s") || !strcmp(argv[i], "--samples")) && i + 1 < argc) {
      samples = (int)bench_parse_long(argv[i + 1], 1, 1000, argv[i]);
      i++;
    } else {
      fprintf(stderr, "usage: floor [-s SAMPLES]\n"
                      "  -s, --samples N   samples of %ld round trips each (default 5)\n",
              ROUNDS_PER_SAMPLE);
      return !strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ? 0 : 2;
    }
  }

  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
    perror("floor: sched_getaffinity");
    return 1;
  }
  int cpus[2], found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
    if (CPU_ISSET(c, &allowed))
      cpus[found++] = c;
  if (found < 2) {
    printf("floor cpus %d\n", found ? cpus[0] : -1);
    return 0;
  }
  printf("floor cpus %d %d\n", cpus[0], cpus[1]);
  fflush(stdout);
  pin_to(cpus[0]);
  echo_cpu = cpus[1];

  /* a first sample warms both threads up and is not reported */
  total_rounds = (samples + 1) * ROUNDS_PER_SAMPLE;
  pthread_t thread;
  if (pthread_create(&thread, NULL, echo, NULL) != 0) {
    fprintf(stderr, "floor: pthread_create failed\n");
    return 1;
  }
  long k = 0;
  for (int s = 0; s <= samples; s++) {
    double t0 = bench_now();
    for (long r = 0; r < ROUNDS_PER_SAMPLE; r++) {
      k++;
      atomic_store_explicit(&ping.value, k, memory_order_release);
      while (atomic_load_explicit(&pong.value, memory_order_acquire) != k)
        spin_pause();
    }
    double ns = (bench_now() - t0) / ROUNDS_PER_SAMPLE * 1e9;
    if (s > 0)
      printf("floor roundtrip_ns %.1f\n", ns);
  }
  pthread_join(thread, NULL);
  printf("floor pause_ns %.1f\n", pause_ns());
  return 0;
}
