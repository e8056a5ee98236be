/* Race-free: a shared counter under omp_set_lock, a nest lock taken twice, and omp_test_lock. */
#include <omp.h>
#include <stdio.h>

int main(void)
{
  omp_lock_t lock;
  omp_nest_lock_t nest;
  omp_init_lock(&lock);
  omp_init_nest_lock(&nest);
  long counter = 0, nested = 0, tested = 0;
#pragma omp parallel
  for (int i = 0; i < 2000; i++) {
    omp_set_lock(&lock);
    counter++;
    omp_unset_lock(&lock);
    omp_set_nest_lock(&nest);
    omp_set_nest_lock(&nest);
    nested++;
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    while (!omp_test_lock(&lock))
      ;
    tested++;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
  long n = 2000L * omp_get_max_threads();
  printf("counter %ld nested %ld tested %ld\n", counter, nested, tested);
  return counter != n || nested != n || tested != n;
}
