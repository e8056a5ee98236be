/* The demonstration program: an ordinary OpenMP code, built by the stock gcc -fopenmp and never
   modified for libomp-lite. A 2-D heat equation on a small grid, many short parallel regions per
   time step (the shape that suffers most from a runtime's fork/join cost). */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 96

static double grid[N][N], next[N][N];

static const char *runtime_path(void)
{
  Dl_info info;
  if (dladdr((void *)omp_get_num_threads, &info) && info.dli_fname != NULL)
    return info.dli_fname;
  return "?";
}

int main(int argc, char **argv)
{
  int steps = argc > 1 ? atoi(argv[1]) : 20000;
  memset(grid, 0, sizeof grid);
  for (int i = 0; i < N; i++)
    grid[0][i] = 100.0; /* a hot edge */

  double t0 = omp_get_wtime();
  double total = 0.0;
  for (int s = 0; s < steps; s++) {
#pragma omp parallel for schedule(static)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        next[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]);
#pragma omp parallel for schedule(static)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++)
        grid[i][j] = next[i][j];
    if (s % 100 == 99) {
      total = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : total)
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          total += grid[i][j];
    }
  }
  double t1 = omp_get_wtime();
  printf("%-44s threads %d  steps %d  heat %.6f  time %.3f s\n", runtime_path(),
         omp_get_max_threads(), steps, total, t1 - t0);
  return 0;
}
