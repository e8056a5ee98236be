/* Helpers shared by the benchmark programs: the clock, medians, argument parsing, and the report
   of which OpenMP runtime the process really runs on. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>

/* seconds on CLOCK_MONOTONIC: our own clock, so every runtime is timed the same way */
double bench_now(void);

/* The process's CPU time (user and system, all its threads, from getrusage) beside the wall
   clock, to tell how many CPUs a runtime keeps busy over the samples of one row: the whole
   process's rusage (run-bench's `cpu` lines) is mostly its single-threaded start-up in a short
   run (0.06 s processes read 0.5 CPUs busy at 2 threads under every runtime). */
struct bench_usage {
  double wall, user, sys;
};
void bench_usage_now(struct bench_usage *u);
/* prints "construct NAME cpu WALL_S USER_S SYS_S" for the window since start */
void bench_usage_print(const char *name, const struct bench_usage *start);

/* median of n values (n >= 1); the array is left unchanged */
double bench_median(const double *v, int n);

/* parse an integer in [lo, hi] or exit with a message naming the option */
long bench_parse_long(const char *s, long lo, long hi, const char *option);

/* mark in selected[0..n) the entries a comma-separated list names ("all": every one), where
   name_of(k) is entry k's name; returns false after a message if a name is unknown */
int bench_select(const char *prog, const char *list, const char *(*name_of)(size_t k), size_t n,
                 int *selected);

/* print "runtime <path>" and "runtime-gomp <path>": the objects that define omp_get_num_threads
   and GOMP_parallel in this process, as the dynamic linker resolved them (LD_PRELOAD included),
   so that bench/run-bench can check that a run used the runtime it meant. */
void bench_print_runtime(void);

#endif
