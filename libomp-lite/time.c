/* omp_get_wtime and omp_get_wtick: elapsed wall-clock time, from the monotonic clock so that
   adjustments of the system time (NTP, date) never make an interval negative. */
#include "internal.h"

double omp_get_wtime(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double omp_get_wtick(void)
{
  struct timespec res;
  if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
    return 1e-9; /* cannot fail for CLOCK_MONOTONIC on Linux; a plausible answer all the same */
  return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}
