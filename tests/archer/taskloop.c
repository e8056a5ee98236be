/* Race-free: a taskloop's tasks each write their own elements, then a reduction over them, a
   lastprivate and a nogroup taskloop waited for by taskwait. With a tool attached (Archer) the
   tasks are made up front by the encountering thread (libomp-lite/taskloop.c), each a task of
   its own whose completion Archer must see ordered before the taskloop's end. */
#include <stdio.h>

int main(void)
{
  int v[256], w[256], last = -1;
  long sum = 0;
#pragma omp parallel
#pragma omp single
  {
#pragma omp taskloop grainsize(8) shared(v)
    for (int i = 0; i < 256; i++)
      v[i] = i;
#pragma omp taskloop reduction(+ : sum) lastprivate(last) num_tasks(16)
    for (int i = 0; i < 256; i++) {
      sum += v[i];
      last = i;
    }
#pragma omp taskloop nogroup grainsize(32) shared(v, w)
    for (int i = 0; i < 256; i++)
      w[i] = 2 * v[i];
#pragma omp taskwait
    for (int i = 0; i < 256; i++)
      sum += w[i];
  }
  printf("sum %ld last %d\n", sum, last);
  return sum != 3 * 32640 || last != 255;
}
