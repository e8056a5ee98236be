/* Race-free: a chain of tasks ordered by depend(out)/depend(in, inout) on plain shared data,
   then fan-in: what TSan needs the task dependences (task_create, task_schedule, dependences)
   to see. */
#include <stdio.h>

int main(void)
{
  int a = 0, b = 0, c = 0;
#pragma omp parallel
#pragma omp single
  for (int round = 0; round < 50; round++) {
#pragma omp task depend(out : a)
    a = round + 1;
#pragma omp task depend(in : a) depend(out : b)
    b = a * 2;
#pragma omp task depend(in : a) depend(out : c)
    c = a * 3;
#pragma omp task depend(in : b, c) depend(inout : a)
    a = b + c;
#pragma omp taskwait
  }
  printf("a %d\n", a);
  return a != 250;
}
