/* omplite_prog.c: the OpenMP program tests/tools/omplite_cmd.sh runs through `omplite`.
     omplite_prog sum    prints a parallel reduction's result (the same on every runtime and run)
     omplite_prog racy   prints the order in which the threads arrived and the time in ns: an
                         output that differs from run to run, which compare must report
     omplite_prog where  prints the file of the runtime that omp_get_thread_num bound to */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "sum";
    if (strcmp(mode, "where") == 0) {
        Dl_info info;
        int threads = 0;
#pragma omp parallel
#pragma omp atomic
        threads++;
        if (!dladdr((void *)omp_get_thread_num, &info) || !info.dli_fname)
            return 1;
        printf("threads %d runtime %s\n", threads, info.dli_fname);
        return 0;
    }
    if (strcmp(mode, "racy") == 0) {
        int order[64], next = 0;
#pragma omp parallel num_threads(2)
        {
            int at;
#pragma omp atomic capture
            at = next++;
            if (at < 64)
                order[at] = omp_get_thread_num();
        }
        for (int i = 0; i < next && i < 64; i++)
            printf("%d ", order[i]);
        printf("%.0f\n", omp_get_wtime() * 1e9);
        return 0;
    }
    long sum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (long i = 1; i <= 100000; i++)
        sum += i;
    printf("sum %ld\n", sum);
    return sum == 5000050000L ? 0 : 1;
}
