/* LLVM's own user extensions (omp.h's kmp_* routines), which clang-built programs may call:
   stack size, spin time ("blocktime"), the library mode, memory, and the affinity masks. Each
   maps onto what this runtime has; the settings it has no use for are accepted and kept, so
   that a program that sets one and reads it back sees its value. */
#include "internal.h"
#include "env.h"
#include "kmpc.h"

#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

KMPC_EXPORT size_t kmp_get_stacksize_s(void) { return lite_env.stacksize; }
KMPC_EXPORT int kmp_get_stacksize(void) { return (int)lite_env.stacksize; }

/* OMP_STACKSIZE for the worker threads started from now on. */
KMPC_EXPORT void kmp_set_stacksize_s(size_t size) { lite_env.stacksize = size; }
KMPC_EXPORT void kmp_set_stacksize(int size)
{
  if (size > 0)
    kmp_set_stacksize_s((size_t)size);
}

/* LLVM's blocktime is how long a waiting thread spins before it sleeps, in milliseconds: this
   runtime's spin time. OMP_WAIT_POLICY=active reads as INT_MAX (spin for ever), as in LLVM. */
KMPC_EXPORT int kmp_get_blocktime(void)
{
  if (lite_env.wait_policy == LITE_WAIT_ACTIVE)
    return INT_MAX;
  uint64_t ms = lite_env.spin_ns / 1000000;
  return ms > INT_MAX ? INT_MAX : (int)ms;
}
KMPC_EXPORT void kmp_set_blocktime(int ms)
{
  if (ms >= 0)
    lite_env.spin_ns = (uint64_t)ms * 1000000;
}

/* The library mode (1 serial, 2 turnaround, 3 throughput): a tuning hint here. */
static int library_mode = 3;
KMPC_EXPORT int kmp_get_library(void) { return library_mode; }
KMPC_EXPORT void kmp_set_library(int mode)
{
  if (mode >= 1 && mode <= 3)
    library_mode = mode;
}
KMPC_EXPORT void kmp_set_library_serial(void) { kmp_set_library(1); }
KMPC_EXPORT void kmp_set_library_turnaround(void) { kmp_set_library(2); }
KMPC_EXPORT void kmp_set_library_throughput(void) { kmp_set_library(3); }

/* Settings given as a string, "NAME=VALUE" items apart by spaces or '|', as LLVM takes them at
   run time: OMP_TARGET_OFFLOAD (anything but mandatory and disabled is default, as in LLVM),
   KMP_BLOCKTIME, OMP_STACKSIZE and KMP_STACKSIZE; the rest are LLVM's own knobs, ignored. */
static void set_default(const char *name, size_t nlen, const char *value)
{
  size_t bytes;
  if (nlen == 18 && strncmp(name, "OMP_TARGET_OFFLOAD", nlen) == 0) {
    lite_env.target_offload = strcasecmp(value, "mandatory") == 0 ? LITE_OFFLOAD_MANDATORY
                              : strcasecmp(value, "disabled") == 0 ? LITE_OFFLOAD_DISABLED
                                                                   : LITE_OFFLOAD_DEFAULT;
  } else if (nlen == 13 && strncmp(name, "KMP_BLOCKTIME", nlen) == 0) {
    kmp_set_blocktime(atoi(value));
  } else if (nlen == 13 && (strncmp(name, "OMP_STACKSIZE", nlen) == 0 ||
                            strncmp(name, "KMP_STACKSIZE", nlen) == 0)) {
    if (lite_parse_stacksize(value, &bytes))
      kmp_set_stacksize_s(bytes);
  }
}

KMPC_EXPORT void kmp_set_defaults(const char *settings)
{
  if (settings == NULL)
    return;
  char *copy = strdup(settings);
  if (copy == NULL)
    return;
  char *save = NULL;
  for (char *item = strtok_r(copy, " \t|", &save); item != NULL;
       item = strtok_r(NULL, " \t|", &save)) {
    char *eq = strchr(item, '=');
    if (eq != NULL)
      set_default(item, (size_t)(eq - item), eq + 1);
  }
  free(copy);
}

/* The dispatch buffer count: an LLVM knob with no counterpart here. */
KMPC_EXPORT void kmp_set_disp_num_buffers(int n) { (void)n; }
KMPC_EXPORT void kmp_set_warnings_on(void) {}
KMPC_EXPORT void kmp_set_warnings_off(void) {}

KMPC_EXPORT void *kmp_malloc(size_t size) { return malloc(size); }
KMPC_EXPORT void *kmp_calloc(size_t n, size_t size) { return calloc(n, size); }
KMPC_EXPORT void *kmp_realloc(void *ptr, size_t size) { return realloc(ptr, size); }
KMPC_EXPORT void kmp_free(void *ptr) { free(ptr); }
KMPC_EXPORT void *kmp_aligned_malloc(size_t size, size_t alignment)
{
  void *p;
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
}

/* Affinity masks: a kmp_affinity_mask_t holds a pointer to a cpu_set_t. The set and unset
   routines answer -1 for a CPU the process may not use, as LLVM's do. */
typedef void *kmp_affinity_mask_t;

KMPC_EXPORT void kmp_create_affinity_mask(kmp_affinity_mask_t *mask)
{
  cpu_set_t *set = calloc(1, sizeof *set);
  if (set == NULL)
    lite_fatal("out of memory for an affinity mask");
  *mask = set;
}

KMPC_EXPORT void kmp_destroy_affinity_mask(kmp_affinity_mask_t *mask)
{
  free(*mask);
  *mask = NULL;
}

static bool usable_cpu(int proc)
{
  cpu_set_t allowed;
  return proc >= 0 && proc < CPU_SETSIZE &&
         sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_ISSET(proc, &allowed);
}

KMPC_EXPORT int kmp_set_affinity_mask_proc(int proc, kmp_affinity_mask_t *mask)
{
  if (mask == NULL || *mask == NULL || !usable_cpu(proc))
    return -1;
  CPU_SET(proc, (cpu_set_t *)*mask);
  return 0;
}

KMPC_EXPORT int kmp_unset_affinity_mask_proc(int proc, kmp_affinity_mask_t *mask)
{
  if (mask == NULL || *mask == NULL || !usable_cpu(proc))
    return -1;
  CPU_CLR(proc, (cpu_set_t *)*mask);
  return 0;
}

KMPC_EXPORT int kmp_get_affinity_mask_proc(int proc, kmp_affinity_mask_t *mask)
{
  if (mask == NULL || *mask == NULL || proc < 0 || proc >= CPU_SETSIZE)
    return -1;
  return CPU_ISSET(proc, (cpu_set_t *)*mask) ? 1 : 0;
}

KMPC_EXPORT int kmp_set_affinity(kmp_affinity_mask_t *mask)
{
  if (mask == NULL || *mask == NULL)
    return -1;
  return sched_setaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)*mask) == 0 ? 0 : -1;
}

KMPC_EXPORT int kmp_get_affinity(kmp_affinity_mask_t *mask)
{
  if (mask == NULL || *mask == NULL)
    return -1;
  return sched_getaffinity(0, sizeof(cpu_set_t), (cpu_set_t *)*mask) == 0 ? 0 : -1;
}

KMPC_EXPORT int kmp_get_affinity_max_proc(void) { return (int)lite_os_online_cpus(); }

/* Whether cancellation of the kind (1 parallel, 2 loop, 3 sections, 4 taskgroup) was requested
   for the construct the caller is in. */
KMPC_EXPORT int kmp_get_cancellation_status(int kind)
{
  return __kmpc_cancellationpoint(NULL, 0, kind);
}
