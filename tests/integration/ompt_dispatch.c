/* ompt_dispatch.c: the program of ompt_dispatch.sh, with its tool linked in. It checks what
   ompt_callback_dispatch tells a tool (OpenMP 5.2 section 19.5.2.6) for the worksharing
   constructs whose work the runtime hands out, built by gcc and by clang:
     - every chunk of a loop arrives as ompt_dispatch_ws_loop_chunk (3), instance.ptr pointing at
       {start, iterations} in logical iteration numbers; across the team the chunks cover the
       loop's iterations exactly once, and each chunk's iterations ran on the thread that got it
       (dynamic, guided, nonmonotonic, schedule(runtime) set to static with a chunk, an unsigned
       long long loop, a loop counting down by 2, a doacross loop; and clang's static loops,
       chunked and not, which gcc splits inline: those must give no event from a gcc build);
     - each section of a sections construct arrives once, as ompt_dispatch_section (2), on the
       thread that runs it, with a code address;
     - every event binds to the current region and the thread's implicit task (the data the
       implicit-task-begin gave), inside the construct's work begin and end;
     - ompt_set_callback answers ompt_set_sometimes for it.
   Prints "app: done" at the end; any failure is a "ompt_dispatch: FAIL: ..." line (exit 1).
   LLVM 14's omp-tools.h, which tools are built against here, predates OpenMP 5.2's chunk kinds
   and their chunk type: both are spelled out below. */
#include "lite_check.h"

#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define DISPATCH_SECTION 2
#define DISPATCH_WS_LOOP_CHUNK 3
struct chunk52 {
  uint64_t start, iterations;
};

/* ------------------------------------------------------------------------------ the tool */

#define MAX_EVENTS 20000
struct event {
  int kind;
  uint64_t start, iterations;
  const void *ptr;
  pthread_t thread;
};
static struct event events[MAX_EVENTS];
static atomic_int nevents;
static atomic_int wrong; /* events that broke a rule as they came (see bad) */
static char wrong_why[200];

static __thread ompt_data_t *my_region, *my_task;
static __thread int in_work;

static void bad(const char *why)
{
  if (atomic_fetch_add(&wrong, 1) == 0)
    snprintf(wrong_why, sizeof wrong_why, "%s", why);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int team_size,
                             unsigned int thread_num, int flags)
{
  (void)team_size, (void)thread_num, (void)flags;
  if (endpoint == ompt_scope_begin && !(flags & ompt_task_initial)) {
    my_region = parallel_data;
    my_task = task_data;
  } else if (endpoint == ompt_scope_end && !(flags & ompt_task_initial)) {
    my_region = my_task = NULL;
  }
}

static void on_work(ompt_work_t work_type, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *parallel_data, ompt_data_t *task_data, uint64_t count,
                    const void *codeptr_ra)
{
  (void)parallel_data, (void)task_data, (void)count, (void)codeptr_ra;
  if (work_type == ompt_work_loop || work_type == ompt_work_sections)
    in_work = endpoint == ompt_scope_begin;
}

static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data, ompt_dispatch_t kind,
                        ompt_data_t instance)
{
  if (my_region == NULL || parallel_data != my_region)
    bad("parallel_data is not the region's (implicit-task-begin's)");
  if (task_data != my_task)
    bad("task_data is not the thread's implicit task's");
  if (!in_work)
    bad("dispatched outside the construct's work begin and end");
  int i = atomic_fetch_add(&nevents, 1);
  if (i >= MAX_EVENTS) {
    bad("too many events");
    return;
  }
  struct event *e = &events[i];
  e->kind = (int)kind;
  e->thread = pthread_self();
  if ((int)kind == DISPATCH_WS_LOOP_CHUNK) {
    const struct chunk52 *c = instance.ptr;
    e->start = c->start;
    e->iterations = c->iterations;
  } else {
    e->ptr = instance.ptr;
  }
}

static int answer;

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data)
{
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_work, (ompt_callback_t)on_work);
  answer = set(ompt_callback_dispatch, (ompt_callback_t)on_dispatch);
  return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
  return &result;
}

/* ------------------------------------------------------------------------------ the checks */

#define N 1000
#define THREADS 4
static pthread_t ran_on[N]; /* the thread that ran each logical iteration */
static atomic_int runs[N];

static void ran(uint64_t logical)
{
  ran_on[logical] = pthread_self();
  atomic_fetch_add(&runs[logical], 1);
}

static void reset(void)
{
  atomic_store(&nevents, 0);
  memset(events, 0, sizeof events);
  memset(ran_on, 0, sizeof ran_on);
  for (int i = 0; i < N; i++)
    atomic_store(&runs[i], 0);
}

/* After a loop of n logical iterations: each ran once; the chunk events (expected: whether the
   runtime sees this loop's hand-out at all) cover [0, n) once, on the thread that ran their
   iterations, and keep the schedule's chunk size k (0: none said): whole chunks of k, starting
   at a multiple of k, the last one cut at the loop's end (a nonmonotonic loop's member may be
   handed several consecutive chunks at once, which is one event); for guided (k < 0), chunks of
   at least -k but the last. */
static void check_loop(const char *name, uint64_t n, int expected, long k)
{
  LITE_EXPECT(atomic_load(&wrong) == 0, "%s: %s", name, wrong_why);
  static int covered[N];
  memset(covered, 0, sizeof covered);
  for (uint64_t i = 0; i < n; i++)
    LITE_EXPECT(atomic_load(&runs[i]) == 1, "%s: iteration %llu ran %d times", name,
                (unsigned long long)i, atomic_load(&runs[i]));
  int m = atomic_load(&nevents);
  if (!expected) {
    LITE_EXPECT(m == 0, "%s: %d dispatch events for a loop the runtime does not hand out", name,
                m);
    printf("app: %s: no events (split inline)\n", name);
    return;
  }
  for (int j = 0; j < m; j++) {
    struct event *e = &events[j];
    LITE_EXPECT(e->kind == DISPATCH_WS_LOOP_CHUNK, "%s: event of kind %d", name, e->kind);
    LITE_EXPECT(e->iterations > 0, "%s: an empty chunk at %llu", name,
                (unsigned long long)e->start);
    uint64_t end = e->start + e->iterations;
    LITE_EXPECT(k <= 0 || (e->start % (uint64_t)k == 0 &&
                           (e->iterations % (uint64_t)k == 0 || end == n)),
                "%s: chunk [%llu, +%llu) is not made of whole chunks of %ld", name,
                (unsigned long long)e->start, (unsigned long long)e->iterations, k);
    LITE_EXPECT(k >= 0 || e->iterations >= (uint64_t)-k || end == n,
                "%s: guided chunk [%llu, +%llu) under %ld", name, (unsigned long long)e->start,
                (unsigned long long)e->iterations, -k);
    LITE_EXPECT(e->start < n && e->iterations <= n - e->start,
                "%s: chunk [%llu, +%llu) outside [0, %llu)", name,
                (unsigned long long)e->start, (unsigned long long)e->iterations,
                (unsigned long long)n);
    for (uint64_t i = e->start; i < e->start + e->iterations; i++) {
      LITE_EXPECT(covered[i] == 0, "%s: iteration %llu in two chunks", name,
                  (unsigned long long)i);
      covered[i] = 1;
      LITE_EXPECT(pthread_equal(ran_on[i], e->thread),
                  "%s: iteration %llu ran on another thread than its chunk's", name,
                  (unsigned long long)i);
    }
  }
  for (uint64_t i = 0; i < n; i++)
    LITE_EXPECT(covered[i], "%s: iteration %llu in no chunk", name, (unsigned long long)i);
  printf("app: %s: %d chunks cover [0, %llu)\n", name, m, (unsigned long long)n);
}

#define SECTIONS 5
static pthread_t section_ran_on[SECTIONS];

static void check_sections(const char *name)
{
  LITE_EXPECT(atomic_load(&wrong) == 0, "%s: %s", name, wrong_why);
  int m = atomic_load(&nevents);
  LITE_EXPECT(m == SECTIONS, "%s: %d dispatch events for %d sections", name, m, SECTIONS);
  /* Each thread got as many sections as it ran. */
  for (int k = 0; k < m; k++) {
    LITE_EXPECT(events[k].kind == DISPATCH_SECTION, "%s: event of kind %d", name, events[k].kind);
    LITE_EXPECT(events[k].ptr != NULL, "%s: a section without a code address", name);
    int got = 0, ran_here = 0;
    for (int j = 0; j < m; j++)
      got += pthread_equal(events[j].thread, events[k].thread);
    for (int s = 0; s < SECTIONS; s++)
      ran_here += pthread_equal(section_ran_on[s], events[k].thread);
    LITE_EXPECT(got == ran_here, "%s: a thread got %d sections and ran %d", name, got, ran_here);
  }
  printf("app: %s: %d sections dispatched once each\n", name, m);
}

int main(void)
{
  LITE_CHECK("ompt_dispatch");
#ifdef __clang__
  const int clang = 1;
#else
  const int clang = 0;
#endif

  reset();
#pragma omp parallel for num_threads(THREADS) schedule(dynamic, 3)
  for (int i = 0; i < N; i++)
    ran((uint64_t)i);
  /* The tool starts with the runtime's first thread state: read its answer after a region. */
  LITE_EXPECT(answer == ompt_set_sometimes, "ompt_set_callback(dispatch) answered %d", answer);
  check_loop("dynamic,3", N, 1, 3);

  reset();
#pragma omp parallel num_threads(THREADS)
#pragma omp for schedule(guided, 2) nowait
  for (long i = 0; i < N; i++)
    ran((uint64_t)i);
  check_loop("guided,2", N, 1, -2);

  reset();
#pragma omp parallel for num_threads(THREADS) schedule(nonmonotonic : dynamic, 7)
  for (int i = 0; i < N; i++)
    ran((uint64_t)i);
  check_loop("nonmonotonic:dynamic,7", N, 1, 7);

  reset();
  omp_set_schedule(omp_sched_static, 5);
#pragma omp parallel for num_threads(THREADS) schedule(runtime)
  for (int i = 0; i < N; i++)
    ran((uint64_t)i);
  check_loop("runtime (static,5)", N, 1, 5);

  reset();
#pragma omp parallel for num_threads(THREADS) schedule(dynamic, 4)
  for (unsigned long long i = 0; i < N; i++)
    ran(i);
  check_loop("unsigned long long dynamic,4", N, 1, 4);

  /* Counting down by 2 from N - 1: logical iteration k is the value N - 1 - 2k. */
  reset();
#pragma omp parallel for num_threads(THREADS) schedule(dynamic, 3)
  for (int i = N - 1; i >= 0; i -= 2)
    ran((uint64_t)(N - 1 - i) / 2);
  check_loop("down by 2, dynamic,3", N / 2, 1, 3);

  reset();
#pragma omp parallel for num_threads(THREADS) ordered(1) schedule(dynamic, 2)
  for (int i = 0; i < N; i++) {
#pragma omp ordered depend(sink : i - 1)
    ran((uint64_t)i);
#pragma omp ordered depend(source)
  }
  check_loop("doacross dynamic,2", N, 1, 2);

  /* gcc splits static schedules inline: no runtime call, no event; clang asks
     __kmpc_for_static_init, which dispatches the member's chunks. */
  reset();
#pragma omp parallel for num_threads(THREADS) schedule(static, 6)
  for (int i = 0; i < N; i++)
    ran((uint64_t)i);
  check_loop("static,6", N, clang, 6);

  reset();
#pragma omp parallel for num_threads(THREADS) schedule(static)
  for (int i = 0; i < N; i++)
    ran((uint64_t)i);
  check_loop("static", N, clang, 0);

  reset();
#pragma omp parallel sections num_threads(THREADS)
  {
#pragma omp section
    section_ran_on[0] = pthread_self();
#pragma omp section
    section_ran_on[1] = pthread_self();
#pragma omp section
    section_ran_on[2] = pthread_self();
#pragma omp section
    section_ran_on[3] = pthread_self();
#pragma omp section
    section_ran_on[4] = pthread_self();
  }
  check_sections("sections");

  printf("app: done\n");
  return 0;
}
