/* ompt_counts.c: the program of ompt_counts.sh, with a counting OMPT tool linked in (exported
   with -rdynamic, so that either runtime finds its ompt_start_tool). Built once by the stock gcc
   against the system libgomp and run on LLVM's runtime and on libomp-lite (each LD_PRELOADed),
   it prints one line per callback, kind and endpoint with how many times it came:
     count <callback> <kind> <endpoint> <n>
   The script compares the two runtimes' lines (issue 46: gcc's single sent no work event).
   Constructs: parallel, a schedule(dynamic) loop, single (plain, nowait, copyprivate), tasks
   with taskwait, a lock, an explicit barrier, then static and guided loops, sections, critical,
   ordered, master and masked, a lone taskwait; each in its own region of 4 threads, counted
   apart (phase), with the barriers of every kind counted as one kind, 1 (see on_sync). The tool counts only events that come the same way
   on every run: no task-schedule (who runs a task varies) and no wait events. */
#include "lite_check.h"

#include <omp-tools.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { MAXKIND = 32, MAXPHASE = 16 };
static atomic_int parallel_n[MAXPHASE][2], implicit_n[MAXPHASE][2], work_n[MAXPHASE][MAXKIND][2],
    sync_n[MAXPHASE][MAXKIND][2], task_create_n[MAXPHASE], mutex_acquire_n[MAXPHASE][MAXKIND],
    mutex_acquired_n[MAXPHASE][MAXKIND], mutex_released_n[MAXPHASE][MAXKIND],
    lock_init_n[MAXPHASE][MAXKIND], lock_destroy_n[MAXPHASE][MAXKIND], masked_n[MAXPHASE][2];
/* The program's part now running (set between regions, on the initial thread). An event
   counts for the part its implicit task began in (a worker's end may come after the initial
   thread moved on): the task's data keeps it, and the thread's for the events without one. */
static atomic_int phase;
static __thread int thread_phase;
#define P thread_phase
static int task_phase(ompt_data_t *task)
{
  return task != NULL && task->value > 0 && task->value < MAXPHASE ? (int)task->value
                                                                   : thread_phase;
}

static int ep(ompt_scope_endpoint_t e) { return e == ompt_scope_begin ? 0 : 1; }
static int k(int kind) { return kind >= 0 && kind < MAXKIND ? kind : 0; }

static void on_parallel_begin(ompt_data_t *a, const ompt_frame_t *b, ompt_data_t *c, unsigned d,
                              int e, const void *f)
{
  (void)a, (void)b, (void)c, (void)d, (void)e, (void)f;
  atomic_fetch_add(&parallel_n[P][0], 1);
}
static void on_parallel_end(ompt_data_t *a, ompt_data_t *b, int c, const void *d)
{
  (void)a, (void)b, (void)c, (void)d;
  atomic_fetch_add(&parallel_n[P][1], 1);
}
static void on_implicit_task(ompt_scope_endpoint_t e, ompt_data_t *a, ompt_data_t *b, unsigned c,
                             unsigned d, int flags)
{
  (void)a, (void)c, (void)d;
  if (!(flags & ompt_task_implicit)) /* the initial task's are the runtimes' own business */
    return;
  if (e == ompt_scope_begin)
    b->value = (uint64_t)(thread_phase = atomic_load(&phase));
  atomic_fetch_add(&implicit_n[task_phase(b)][ep(e)], 1);
}
static void on_work(ompt_work_t kind, ompt_scope_endpoint_t e, ompt_data_t *a, ompt_data_t *b,
                    uint64_t c, const void *d)
{
  (void)a, (void)c, (void)d;
  atomic_fetch_add(&work_n[task_phase(b)][k(kind)][ep(e)], 1);
}
static void on_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t e, ompt_data_t *a,
                    ompt_data_t *b, const void *c)
{
  (void)a, (void)c;
  /* Barriers of every kind as one: LLVM 14 calls gcc's barriers "implicit" (2) or
     "implementation" (4), OpenMP 5.1 tells explicit (3), workshare (8) and parallel (9) apart. */
  int barrier = kind == ompt_sync_region_barrier || kind == 2 || kind == 3 || kind == 4 ||
                kind == 8 || kind == 9;
  atomic_fetch_add(&sync_n[task_phase(b)][barrier ? 1 : k(kind)][ep(e)], 1);
}
static void on_task_create(ompt_data_t *a, const ompt_frame_t *b, ompt_data_t *c, int flags,
                           int d, const void *f)
{
  (void)b, (void)c, (void)d, (void)f;
  if (flags & ompt_task_explicit)
    atomic_fetch_add(&task_create_n[task_phase(a)], 1);
}
static void on_mutex_acquire(ompt_mutex_t kind, unsigned a, unsigned b, ompt_wait_id_t c,
                             const void *d)
{
  (void)a, (void)b, (void)c, (void)d;
  atomic_fetch_add(&mutex_acquire_n[P][k(kind)], 1);
}
static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t a, const void *b)
{
  (void)a, (void)b;
  atomic_fetch_add(&mutex_acquired_n[P][k(kind)], 1);
}
static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t a, const void *b)
{
  (void)a, (void)b;
  atomic_fetch_add(&mutex_released_n[P][k(kind)], 1);
}
static void on_lock_init(ompt_mutex_t kind, unsigned a, unsigned b, ompt_wait_id_t c,
                         const void *d)
{
  (void)a, (void)b, (void)c, (void)d;
  atomic_fetch_add(&lock_init_n[P][k(kind)], 1);
}
static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t a, const void *b)
{
  (void)a, (void)b;
  atomic_fetch_add(&lock_destroy_n[P][k(kind)], 1);
}
static void on_masked(ompt_scope_endpoint_t e, ompt_data_t *a, ompt_data_t *b, const void *c)
{
  (void)a, (void)b, (void)c;
  atomic_fetch_add(&masked_n[P][ep(e)], 1);
}

static int initialize(ompt_function_lookup_t lookup, int num, ompt_data_t *data)
{
  (void)num, (void)data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_work, (ompt_callback_t)on_work);
  set(ompt_callback_sync_region, (ompt_callback_t)on_sync);
  set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
  set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
  set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
  set(ompt_callback_lock_init, (ompt_callback_t)on_lock_init);
  set(ompt_callback_lock_destroy, (ompt_callback_t)on_lock_destroy);
  set(ompt_callback_masked, (ompt_callback_t)on_masked);
  return 1;
}

static const char *const phase_names[MAXPHASE] = {
    "start", "parallel", "for-dynamic", "single", "task", "lock", "barrier", "for-static",
    "for-guided", "sections", "critical", "ordered", "master-masked", "taskwait-alone",
    "single-copyprivate"};

static void print2(int ph, const char *what, atomic_int n[2], int kind)
{
  for (int e = 0; e < 2; e++)
    if (atomic_load(&n[e]) != 0)
      printf("count %s %s %d %s %d\n", phase_names[ph], what, kind, e == 0 ? "begin" : "end",
             atomic_load(&n[e]));
}
static void print1(int ph, const char *what, atomic_int *n, int kind)
{
  if (atomic_load(n) != 0)
    printf("count %s %s %d - %d\n", phase_names[ph], what, kind, atomic_load(n));
}

static void finalize(ompt_data_t *data)
{
  (void)data;
  for (int p = 1; p < MAXPHASE && phase_names[p] != NULL; p++) {
    print2(p, "parallel", parallel_n[p], 0);
    print2(p, "implicit_task", implicit_n[p], 0);
    for (int i = 0; i < MAXKIND; i++) {
      print2(p, "work", work_n[p][i], i);
      print2(p, "sync_region", sync_n[p][i], i);
      print1(p, "mutex_acquire", &mutex_acquire_n[p][i], i);
      print1(p, "mutex_acquired", &mutex_acquired_n[p][i], i);
      print1(p, "mutex_released", &mutex_released_n[p][i], i);
      print1(p, "lock_init", &lock_init_n[p][i], i);
      print1(p, "lock_destroy", &lock_destroy_n[p][i], i);
    }
    print1(p, "task_create", &task_create_n[p], 0);
    print2(p, "masked", masked_n[p], 0);
  }
  fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
  (void)version, (void)runtime;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}

/* ------------------------------------------------------------------------- the program */

int main(void)
{
  LITE_CHECK("ompt_counts"); /* LITE_CHECK=stock on LLVM's runtime */
  volatile long sum = 0;
  omp_lock_t lock;

  atomic_store(&phase, 1);
#pragma omp parallel
  __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);

  atomic_store(&phase, 2);
#pragma omp parallel
  {
#pragma omp for schedule(dynamic) reduction(+ : sum)
    for (int i = 0; i < 100; i++)
      sum += i;
  }

  atomic_store(&phase, 3);
#pragma omp parallel
  {
#pragma omp single
    __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
#pragma omp single nowait
    __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
  }

  atomic_store(&phase, 14);
#pragma omp parallel
  {
    int x = omp_get_thread_num();
#pragma omp single copyprivate(x)
    x = 7;
    if (x != 7)
      abort();
  }

  atomic_store(&phase, 4);
#pragma omp parallel
  {
#pragma omp single
    {
      for (int i = 0; i < 8; i++) {
#pragma omp task
        __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
      }
#pragma omp taskwait
    }
  }

  atomic_store(&phase, 5);
  omp_init_lock(&lock);
#pragma omp parallel
  {
    omp_set_lock(&lock);
    sum += 1;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);

  atomic_store(&phase, 6);
#pragma omp parallel
  {
#pragma omp barrier
  }

  /* Not compared by the script, printed for a look at the other entry points. */
  atomic_store(&phase, 7);
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int i = 0; i < 100; i++)
      __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
  }
  atomic_store(&phase, 8);
#pragma omp parallel
  {
#pragma omp for schedule(guided)
    for (int i = 0; i < 100; i++)
      __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
  }
  atomic_store(&phase, 9);
#pragma omp parallel sections
  {
#pragma omp section
    __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
#pragma omp section
    __atomic_fetch_add(&sum, 2, __ATOMIC_RELAXED);
  }
  atomic_store(&phase, 10);
#pragma omp parallel
  {
#pragma omp critical
    sum += 1;
  }
  atomic_store(&phase, 11);
#pragma omp parallel
  {
#pragma omp for ordered schedule(dynamic)
    for (int i = 0; i < 8; i++) {
#pragma omp ordered
      sum += i;
    }
  }
  atomic_store(&phase, 12);
#pragma omp parallel
  {
#pragma omp master
    __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
#pragma omp masked filter(1)
    __atomic_fetch_add(&sum, 1, __ATOMIC_RELAXED);
  }
  atomic_store(&phase, 13);
#pragma omp parallel
  {
#pragma omp taskwait
  }
  atomic_store(&phase, 0);
  printf("app: done %ld\n", (long)sum);
  return 0;
}
