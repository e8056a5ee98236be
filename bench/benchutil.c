/* Helpers shared by the benchmark programs; see benchutil.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT */
#endif
#include "benchutil.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bench_usage_now(struct bench_usage *u)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  u->wall = bench_now();
  u->user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6;
  u->sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

void bench_usage_print(const char *name, const struct bench_usage *start)
{
  struct bench_usage end;
  bench_usage_now(&end);
  printf("construct %s cpu %.4f %.4f %.4f\n", name, end.wall - start->wall,
         end.user - start->user, end.sys - start->sys);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(const double *v, int n)
{
  double *s = malloc(sizeof *s * (size_t)n);
  if (!s) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  memcpy(s, v, sizeof *s * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, cmp_double);
  double m = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  free(s);
  return m;
}

long bench_parse_long(const char *s, long lo, long hi, const char *option)
{
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) {
    fprintf(stderr, "bench: %s wants an integer from %ld to %ld, not '%s'\n", option, lo, hi, s);
    exit(2);
  }
  return v;
}

/* dlsym(RTLD_DEFAULT) searches the global scope in the order the program's own references are
   bound (executable, LD_PRELOAD objects, then its libraries), so it names the object that the
   program's calls really reach. */
static const char *defining_object(const char *symbol)
{
  Dl_info info;
  void *addr = dlsym(RTLD_DEFAULT, symbol);
  if (!addr || !dladdr(addr, &info) || !info.dli_fname || !info.dli_fname[0])
    return "unknown";
  return info.dli_fname;
}

void bench_print_runtime(void)
{
  printf("runtime %s\n", defining_object("omp_get_num_threads"));
  printf("runtime-gomp %s\n", defining_object("GOMP_parallel"));
  fflush(stdout);
}

int bench_select(const char *prog, const char *list, const char *(*name_of)(size_t k), size_t n,
                 int *selected)
{
  int all = !strcmp(list, "all");
  for (size_t k = 0; k < n; k++)
    selected[k] = all;
  if (all)
    return 1;
  char *copy = strdup(list), *save = NULL;
  int ok = 1;
  for (char *tok = strtok_r(copy, ",", &save); tok && ok; tok = strtok_r(NULL, ",", &save)) {
    size_t k = 0;
    while (k < n && strcmp(name_of(k), tok))
      k++;
    if (k == n) {
      fprintf(stderr, "%s: unknown name '%s' in '%s'\n", prog, tok, list);
      ok = 0;
    } else {
      selected[k] = 1;
    }
  }
  free(copy);
  return ok;
}
