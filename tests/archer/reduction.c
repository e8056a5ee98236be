/* Race-free: a reduction; each thread's partial sum is combined by the runtime. */
#include <stdio.h>

int main(void)
{
  long sum = 0;
  double prod = 1.0;
#pragma omp parallel for reduction(+ : sum) reduction(* : prod)
  for (int i = 0; i < 100000; i++) {
    sum += i;
    if (i % 10000 == 0)
      prod *= 2.0;
  }
  printf("sum %ld prod %g\n", sum, prod);
  return sum != 4999950000L || prod != 1024.0;
}
