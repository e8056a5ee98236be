/* The environment parsers behind lite_env_init, exposed for the unit tests and for icv.c.
   Each parser reads one value (surrounding whitespace and letter case ignored) and returns false
   for a malformed one without printing anything; the caller warns and keeps the default. */
#ifndef LITE_ENV_H
#define LITE_ENV_H

#include "internal.h"

#include <stdio.h>

/* The deepest nesting of active parallel regions supported (omp_get_supported_active_levels). */
#define LITE_MAX_ACTIVE_LEVELS 255u

/* A getenv replacement, so that tests can feed values without touching the process environment. */
typedef const char *(*lite_getenv_fn)(const char *name);

bool lite_parse_bool(const char *s, bool *out);
/* A decimal number with an optional '+', at most max. */
bool lite_parse_ulong(const char *s, unsigned long long max, unsigned long long *out);
/* A comma-separated list of positive thread counts (entries above UINT_MAX saturate). On success
   *list is a malloc'd array of *len entries. */
bool lite_parse_nthreads_list(const char *s, unsigned **list, unsigned *len);
/* [monotonic:|nonmonotonic:]kind[,chunk], libgomp's meaning: a plain static carries the monotonic
   bit, other kinds do not; chunk 0 or absent stores 0 (the default). */
bool lite_parse_schedule(const char *s, omp_sched_t *kind, int *chunk);
/* true, false, or a comma-separated list of primary/master/close/spread (true and false only
   alone). On success *list is a malloc'd array of *len entries. */
bool lite_parse_proc_bind_list(const char *s, omp_proc_bind_t **list, unsigned *len);
/* A number with an optional B/K/M/G suffix; no suffix means K. */
bool lite_parse_stacksize(const char *s, size_t *bytes);
/* A number with an optional k/M/G/T suffix (powers of 1000), or infinite/infinity (ULLONG_MAX). */
bool lite_parse_spincount(const char *s, unsigned long long *count);
bool lite_parse_wait_policy(const char *s, enum lite_wait_policy *out);
/* true (1), false (0) or verbose (2). */
bool lite_parse_display_env(const char *s, int *out);

/* Fills *env from the variables get returns, defaults included; ncpus is the CPU count the
   default team size follows. Warns about each malformed value. secure: the process runs setuid
   or setgid (lite_os_secure): the variables that name a file are ignored, with one warning. */
void lite_env_parse(struct lite_env *env, lite_getenv_fn get, unsigned ncpus, bool secure);
/* Frees what lite_env_parse allocated. */
void lite_env_free(struct lite_env *env);
/* The OMP_DISPLAY_ENV block for *env, written to out. */
void lite_env_print(FILE *out, const struct lite_env *env, bool verbose);

/* heap.c: true if the environment sets any of glibc's malloc thresholds (MALLOC_*_ variables,
   GLIBC_TUNABLES), which libomp-lite then leaves alone. */
bool lite_heap_user_set(lite_getenv_fn get);
/* heap.c: sets glibc's mmap and trim thresholds unless the user set them or OMPLITE_HEAP_KEEP
   is false; returns true if it did. */
bool lite_heap_init(void);

#endif
