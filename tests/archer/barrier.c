/* Race-free: each thread writes its slot, a barrier, then each reads its neighbour's; twice
   per round, so the barrier's both phases are used. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
  int slot[64] = { 0 }, bad = 0;
#pragma omp parallel reduction(+ : bad)
  {
    int me = omp_get_thread_num(), n = omp_get_num_threads();
    for (int round = 1; round <= 100; round++) {
      slot[me] = round * (me + 1);
#pragma omp barrier
      int other = (me + 1) % n;
      bad += slot[other] != round * (other + 1);
#pragma omp barrier
    }
  }
  printf("bad %d\n", bad);
  return bad != 0;
}
