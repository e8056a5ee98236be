/* ompt_startup.c: the program of ompt_startup.sh. It proves it runs on libomp-lite
   (lite_check.h), runs two parallel regions of two threads, and prints "app: done". With
   -DLINKED_TOOL it carries the tool itself (ompt_tool.c): the tool-in-the-program route, where
   the runtime must find the program's own ompt_start_tool. */
#include "lite_check.h"

#include <omp.h>
#include <stdio.h>

#ifdef LINKED_TOOL
#include "ompt_tool.c"
#endif

int main(void)
{
  LITE_CHECK("ompt_startup");
  int sum = 0;
  for (int round = 0; round < 2; round++) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
  }
  LITE_EXPECT(sum == 6, "sum %d, expected 6", sum);
  printf("app: done\n");
  return 0;
}
