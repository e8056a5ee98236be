/* omplite-measure: the timer behind `omplite compare`. Runs one command and writes its wall
   time, user and system CPU time, maximum resident set size and exit status to a file.

   usage: omplite-measure RESULT [NAME=VALUE]... -- CMD [ARG]...
          omplite-measure --display-env LIBRARY

   Why a C helper: GNU time is not installed by default, a shell's `times` gives no RSS, and
   python3 may be missing; wait4() gives all three for exactly the one child. The NAME=VALUE
   settings are applied in the child only, after fork, so the runtime under test is never loaded
   into this process. RESULT gets one line: "wall_s user_s sys_s maxrss_kb status", where status
   is the exit status, or 128+N for a child killed by signal N (as the shell reports it); 127 if
   CMD could not be started.

   --display-env: loads LIBRARY, an OpenMP runtime, and makes one call into it, so that it prints
   its OMP_DISPLAY_ENV block (set OMP_DISPLAY_ENV=true): the settings `omplite doctor` reports as
   the runtime reads them. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int display_env(const char *library)
{
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        fprintf(stderr, "omplite-measure: cannot load %s: %s\n", library, dlerror());
        return 1;
    }
    int (*max_threads)(void) = (int (*)(void))dlsym(handle, "omp_get_max_threads");
    if (!max_threads) {
        fprintf(stderr, "omplite-measure: %s has no omp_get_max_threads\n", library);
        return 1;
    }
    max_threads();
    return 0;
}

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--display-env") == 0)
        return display_env(argv[2]);
    int first = 2;
    while (first < argc && strcmp(argv[first], "--") != 0)
        first++;
    if (argc < 4 || first + 1 >= argc) {
        fprintf(stderr, "usage: omplite-measure RESULT [NAME=VALUE]... -- CMD [ARG]...\n");
        return 2;
    }
    FILE *result = fopen(argv[1], "w");
    if (!result) {
        fprintf(stderr, "omplite-measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "omplite-measure: fork: %s\n", strerror(errno));
        return 2;
    }
    if (pid == 0) {
        for (int i = 2; i < first; i++) {
            char *eq = strchr(argv[i], '=');
            if (!eq)
                continue;
            *eq = '\0';
            if (eq[1] == '\0')
                unsetenv(argv[i]);
            else
                setenv(argv[i], eq + 1, 1);
        }
        execvp(argv[first + 1], argv + first + 1);
        fprintf(stderr, "omplite-measure: %s: %s\n", argv[first + 1], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "omplite-measure: wait4: %s\n", strerror(errno));
            return 2;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double wall = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
    fprintf(result, "%.6f %.6f %.6f %ld %d\n", wall, seconds(usage.ru_utime),
            seconds(usage.ru_stime), usage.ru_maxrss, code);
    if (fclose(result) != 0) {
        fprintf(stderr, "omplite-measure: %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    return code;
}
