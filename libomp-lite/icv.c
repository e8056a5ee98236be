/* The ICV part of the omp_* user API. Data-environment ICVs live in the calling thread's current
   implicit task (lite_self()->icv); global ones in lite_env. Where OpenMP leaves a corner to the
   implementation, libgomp 12's observed behaviour is followed, so that programs see no difference. */
#include "env.h"

#include <limits.h>

static struct lite_icv *icv_of_self(void) { return &lite_self()->icv; }
static struct lite_icv *icv_to_change(void) { return lite_icv_for_write(lite_self()); }

/* libgomp treats a count below 1 as 1. A count above LITE_MAX_TEAM_THREADS is kept, as libgomp
   keeps it (omp_get_max_threads reports it); the team size is clamped, with a warning, at fork. */
void omp_set_num_threads(int n) { icv_to_change()->nthreads = n < 1 ? 1u : (unsigned)n; }

int omp_get_max_threads(void)
{
  unsigned n = icv_of_self()->nthreads;
  return n > INT_MAX ? INT_MAX : (int)n;
}

/* The affinity mask, not the cgroup quota: that is what libgomp reports. Asked of the kernel each
   time, as libgomp does, so that a program which changes its mask sees the change; but with
   threads bound, the process's CPUs as it started (a bound thread's own mask is one place). */
int omp_get_num_procs(void)
{
  lite_init_once();
  lite_bind_ready();
  if (lite_binding.on)
    return (int)lite_binding.nprocess;
  return (int)lite_os_affinity_cpus();
}

void omp_set_dynamic(int dynamic) { icv_to_change()->dynamic = dynamic != 0; }

int omp_get_dynamic(void) { return icv_of_self()->dynamic; }

/* Deprecated in OpenMP 5.0: true raises max-active-levels-var to the supported maximum, false
   lowers it to 1 (a value already 0 or 1 stays). */
void omp_set_nested(int nested)
{
  struct lite_icv *icv = icv_to_change();
  if (nested)
    icv->max_active_levels = LITE_MAX_ACTIVE_LEVELS;
  else if (icv->max_active_levels > 1)
    icv->max_active_levels = 1;
}

int omp_get_nested(void) { return icv_of_self()->max_active_levels > 1; }

void omp_set_max_active_levels(int levels)
{
  if (levels < 0)
    return; /* OpenMP: a negative value is ignored */
  icv_to_change()->max_active_levels =
      (unsigned)levels > LITE_MAX_ACTIVE_LEVELS ? LITE_MAX_ACTIVE_LEVELS : (unsigned)levels;
}

int omp_get_max_active_levels(void) { return (int)icv_of_self()->max_active_levels; }

int omp_get_supported_active_levels(void) { return LITE_MAX_ACTIVE_LEVELS; }

int omp_get_thread_limit(void)
{
  unsigned limit = icv_of_self()->thread_limit;
  return limit > INT_MAX ? INT_MAX : (int)limit;
}

/* A chunk below 1 stores 0, "the kind's default"; auto takes no chunk and keeps the stored one;
   an unknown kind is ignored, all as in libgomp. */
void omp_set_schedule(omp_sched_t kind, int chunk_size)
{
  struct lite_icv *icv = icv_to_change();
  switch ((unsigned)kind & ~(unsigned)omp_sched_monotonic) {
  case omp_sched_static:
  case omp_sched_dynamic:
  case omp_sched_guided:
    icv->run_chunk = chunk_size < 1 ? 0 : chunk_size;
    break;
  case omp_sched_auto:
    break;
  default:
    return;
  }
  icv->run_sched = kind;
}

/* Reports the default chunk as libgomp does: 0 for static, 1 for the other kinds. */
void omp_get_schedule(omp_sched_t *kind, int *chunk_size)
{
  const struct lite_icv *icv = icv_of_self();
  bool is_static = ((unsigned)icv->run_sched & ~(unsigned)omp_sched_monotonic) == omp_sched_static;
  *kind = icv->run_sched;
  *chunk_size = icv->run_chunk == 0 && !is_static ? 1 : icv->run_chunk;
}

omp_proc_bind_t omp_get_proc_bind(void) { return icv_of_self()->bind; }

int omp_get_cancellation(void) { return lite_env.cancellation; }

int omp_get_max_task_priority(void) { return lite_env.max_task_priority; }

/* ---------------------------------------------------------------- devices: host only */

/* libgomp 12 maps a negative device number to 0 (it predates omp_initial_device = -1). */
void omp_set_default_device(int device)
{
  icv_to_change()->default_device = device < 0 ? 0 : device;
}

int omp_get_default_device(void) { return icv_of_self()->default_device; }

int omp_get_num_devices(void) { return 0; }

/* The initial (host) device is numbered after the offload devices: here, 0. */
int omp_get_initial_device(void) { return omp_get_num_devices(); }

int omp_get_device_num(void) { return omp_get_initial_device(); }

int omp_is_initial_device(void) { return 1; }

/* ---------------------------------------------------------------- teams */

/* Negative values are ignored; 0 means "no request", as in libgomp. */
void omp_set_num_teams(int num_teams)
{
  if (num_teams >= 0)
    lite_env.num_teams = num_teams;
}

int omp_get_max_teams(void) { return lite_env.num_teams; }

void omp_set_teams_thread_limit(int limit)
{
  if (limit >= 0)
    lite_env.teams_thread_limit = limit;
}

int omp_get_teams_thread_limit(void) { return lite_env.teams_thread_limit; }

/* ---------------------------------------------------------------- the rest */

void omp_display_env(int verbose) { lite_env_display(verbose != 0); }
