/* Race-free: an ordered region appends to a shared list in iteration order. */
#include <stdio.h>

int main(void)
{
  int list[1000], len = 0;
#pragma omp parallel for ordered schedule(dynamic, 3)
  for (int i = 0; i < 1000; i++) {
    int v = i * 2;
#pragma omp ordered
    list[len++] = v;
  }
  int bad = len != 1000;
  for (int i = 0; i < len; i++)
    bad += list[i] != 2 * i;
  printf("len %d bad %d\n", len, bad);
  return bad != 0;
}
