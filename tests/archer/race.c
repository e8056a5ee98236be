/* A real data race: every thread increments the same variable with no synchronisation. A race
   detector must report it. The result is not checked (it is what the race makes it). */
#include <stdio.h>

int main(void)
{
  long counter = 0;
#pragma omp parallel num_threads(2)
  for (int i = 0; i < 10000; i++)
    counter++;
  printf("counter %ld\n", counter);
  return 0;
}
