/* The README's profile example (Where the time goes): a triangular loop, iteration i costing i,
   run 20 times with schedule(static) and 20 times with schedule(dynamic). Run it with
   OMPLITE_PROFILE=1 to see the static loop's members wait at the join and the dynamic one steal.

   usage: triangle [N]   (N iterations, default 2000) */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void work(int n)
{
  double x = 0;
  for (int i = 0; i < n * 50; i++)
    x += i * 1e-9;
  sink += x;
}

void tri_static(int n)
{
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++)
    work(i);
}

void tri_dynamic(int n)
{
#pragma omp parallel for schedule(dynamic)
  for (int i = 0; i < n; i++)
    work(i);
}

int main(int argc, char **argv)
{
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  for (int r = 0; r < 20; r++) {
    tri_static(n);
    tri_dynamic(n);
  }
  printf("%g\n", sink);
  return 0;
}
