/* Race-free: child tasks each write their own element, the parent reads them all after
   taskwait; and a task tree whose results flow up through taskwait. */
#include <stdio.h>

static int fib(int n)
{
  if (n < 2)
    return n;
  int x, y;
#pragma omp task shared(x)
  x = fib(n - 1);
#pragma omp task shared(y)
  y = fib(n - 2);
#pragma omp taskwait
  return x + y;
}

int main(void)
{
  int v[64], sum = 0, f = 0;
#pragma omp parallel
#pragma omp single
  {
    for (int i = 0; i < 64; i++) {
#pragma omp task firstprivate(i) shared(v)
      v[i] = i;
    }
#pragma omp taskwait
    for (int i = 0; i < 64; i++)
      sum += v[i];
    f = fib(15);
  }
  printf("sum %d fib %d\n", sum, f);
  return sum != 2016 || f != 610;
}
