/* Race-free: shared counters under a named and an unnamed critical, and a single's result read
   after its implicit barrier. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
  long a = 0, b = 0;
  int from_single = 0, bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    for (int i = 0; i < 2000; i++) {
#pragma omp critical
      a++;
#pragma omp critical(other)
      b += 2;
    }
#pragma omp single
    from_single = 42;
    bad += from_single != 42;
  }
  long n = 2000L * omp_get_max_threads();
  printf("a %ld b %ld bad %d\n", a, b, bad);
  return a != n || b != 2 * n || bad != 0;
}
