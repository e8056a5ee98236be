/* The remote-line count of --enable-line-count builds (a debug build; configure.ac): how many
   cache lines that other members write each member touches per barrier, or how many lines it
   writes that others then read, so that the flat barrier's O(N) and the tree's O(log N) can be
   seen in a run, not only in the model (docs/architecture.md, "Many cores"). Per team size:
   barriers counted, and the largest and the mean count of one member in one barrier, printed
   at exit as "# libomp-lite barrier lines: ..." on stderr. bench/lines runs it. */
#include "internal.h"

#ifdef LITE_LINE_COUNT
#include <stdio.h>

#define LINES_MAX_TEAM 4097

static _Atomic unsigned long barriers[LINES_MAX_TEAM], lines[LINES_MAX_TEAM];
static _Atomic unsigned most[LINES_MAX_TEAM];
static LITE_THREAD_LOCAL unsigned now;

void lite_lines_touched(unsigned n) { now += n; }

void lite_lines_barrier_end(unsigned nmembers)
{
  unsigned n = nmembers < LINES_MAX_TEAM ? nmembers : LINES_MAX_TEAM - 1;
  atomic_fetch_add_explicit(&barriers[n], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&lines[n], now, memory_order_relaxed);
  unsigned seen = atomic_load_explicit(&most[n], memory_order_relaxed);
  while (now > seen && !atomic_compare_exchange_weak(&most[n], &seen, now))
    ;
  now = 0;
}

__attribute__((destructor)) static void lines_report(void)
{
  for (unsigned n = 0; n < LINES_MAX_TEAM; n++) {
    unsigned long b = atomic_load(&barriers[n]);
    if (b != 0)
      fprintf(stderr,
              "# libomp-lite barrier lines: %u members, %lu member barriers, at most %u remote "
              "lines, %.2f on average, per member per barrier\n",
              n, b, atomic_load(&most[n]), (double)atomic_load(&lines[n]) / (double)b);
  }
}
#endif
