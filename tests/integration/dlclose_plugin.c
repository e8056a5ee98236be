/* dlclose_plugin.c: the OpenMP half of the dlclose test, a shared object built by the stock
   gcc -fopenmp the way a plugin or a scripting language's extension module is built. The host
   (dlclose.c) loads it with dlopen, runs it and unloads it with dlclose, again and again. */
#include <omp.h>
#include <stdint.h>

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

/* The objects that define the OpenMP entry points as this object's calls are bound. */
const void *plugin_omp_api(void) { return (const void *)(uintptr_t)&omp_get_num_threads; }
const void *plugin_gomp_abi(void) { return (const void *)(uintptr_t)&GOMP_parallel; }

/* A few constructs on a team of nthreads; returns 0 when every result is right, else which
   one was wrong. */
int plugin_run(int nthreads, int round)
{
    long ids = 0, iters = 0, tasks = 0;
    int size = 0, bad_barrier = 0;
    int seen[64] = { 0 };
#pragma omp parallel num_threads(nthreads) reduction(+ : ids, bad_barrier)
    {
        int t = omp_get_thread_num();
#pragma omp single
        size = omp_get_num_threads();
        seen[t] = round + 1;
#pragma omp barrier
        for (int k = 0; k < size; k++)
            bad_barrier += seen[k] != round + 1;
        ids += t + 1;
#pragma omp for schedule(dynamic, 3) reduction(+ : iters)
        for (int i = 0; i < 1000; i++)
            iters += i;
#pragma omp single
        for (int k = 0; k < 16; k++) {
#pragma omp task shared(tasks)
            {
#pragma omp atomic
                tasks++;
            }
        }
    }
    if (size != nthreads)
        return 1;
    if (ids != (long)size * (size + 1) / 2)
        return 2;
    if (bad_barrier != 0)
        return 3;
    if (iters != 999L * 1000 / 2)
        return 4;
    if (tasks != 16)
        return 5;
    return 0;
}
