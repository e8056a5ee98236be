/* ompt_teams_target.c: the program and the tool of ompt_teams_target.sh, in one file (the tool
   is linked into the program, as in ompt_startup.sh). The program runs a host teams region
   whose teams each run a parallel region of one thread, then (gcc) target constructs: a target
   region, target teams (GOMP_teams4), target data around a target update, enter data and exit
   data, and a target nowait region. clang without -fopenmp-targets compiles the target
   constructs to host code, so its run must show no target event; its target teams is a host
   league (__kmpc_fork_teams).

   The tool prints one line per event ("ev: ..."), every id its own small number in the order
   it gave them (P parallel regions, T tasks, I target constructs), so that the script compares
   the whole sequence with the expected one. Every event comes from the initial thread (the
   parallel regions have one thread), so the order is the program's. In the bodies, probe()
   asks ompt_get_task_info and ompt_get_parallel_info about the levels it is in.
   OMPT_TEST_EMI=1 in the environment: the tool registers ompt_callback_target_emi instead of
   ompt_callback_target. */
#include "lite_check.h"

#include <dlfcn.h>
#include <inttypes.h>
#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_parallel = 1, next_task = 1, next_target = 1;
static ompt_get_task_info_t get_task_info;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_target_info_t get_target_info;
/* Only the initial thread prints (a worker's events would interleave with its own). Not a
   thread-local flag: gcc allows none in code a target region calls. */
static pthread_t initial_thread;
static int initial_known;
static int on_initial(void)
{
  return !initial_known || pthread_equal(pthread_self(), initial_thread);
}
#define printf(...) (on_initial() ? printf(__VA_ARGS__) : 0)
/* A worker's tasks are numbered apart, from 1001, so that the initial thread's stay in order. */
static uint64_t next_worker_task = 1001;
static void *app_base;

int main(void);

/* Where a return address is: main itself, elsewhere in the program, NULL, or outside. */
static const char *where(const void *codeptr)
{
  Dl_info info;
  if (codeptr == NULL)
    return "null";
  if (dladdr(codeptr, &info) == 0)
    return "unknown";
  if (info.dli_sname != NULL && strcmp(info.dli_sname, "main") == 0)
    return "main";
  return info.dli_fbase == app_base ? "app" : "outside";
}

static void flag_names(int flags, char *buf, size_t size)
{
  snprintf(buf, size, "%s%s%s%s%s", flags & ompt_task_initial ? "initial" : "",
           flags & ompt_task_implicit ? "implicit" : "",
           flags & ompt_task_explicit ? "explicit" : "",
           flags & ompt_task_target ? "target" : "",
           flags & ompt_task_undeferred ? "|undeferred" : "");
}

static const char *parallel_kind(int flags)
{
  return flags & ompt_parallel_league ? "teams" : flags & ompt_parallel_team ? "parallel" : "?";
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  (void)thread_data;
  if (type == ompt_thread_initial) {
    initial_thread = pthread_self();
    initial_known = 1;
  }
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr_ra)
{
  parallel_data->value = next_parallel++;
  printf("ev: %s_begin parent=T%" PRIu64 " P%" PRIu64 " requested=%u invoker=%s enter=%s ra=%s\n",
         parallel_kind(flags), encountering_task_data->value, parallel_data->value, requested,
         flags & ompt_parallel_invoker_program ? "program" : "runtime",
         encountering_task_frame->enter_frame.ptr != NULL ? "set" : "none", where(codeptr_ra));
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra)
{
  printf("ev: %s_end P%" PRIu64 " parent=T%" PRIu64 " ra=%s\n", parallel_kind(flags),
         parallel_data->value, encountering_task_data->value, where(codeptr_ra));
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags)
{
  char names[64];
  flag_names(flags, names, sizeof names);
  if (endpoint == ompt_scope_begin) {
    task_data->value = on_initial() ? next_task++
                                    : __atomic_fetch_add(&next_worker_task, 1, __ATOMIC_RELAXED);
    /* A thread's initial task comes with its implicit region, which has no begin event. */
    if (parallel_data->value == 0)
      parallel_data->value = next_parallel++;
    printf("ev: %s_task_begin P%" PRIu64 " T%" PRIu64 " parallelism=%u index=%u\n", names,
           parallel_data->value, task_data->value, actual_parallelism, index);
  } else {
    printf("ev: %s_task_end %s T%" PRIu64 " parallelism=%u index=%u\n", names,
           parallel_data != NULL ? "parallel" : "null", task_data->value, actual_parallelism,
           index);
  }
}

static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
  (void)encountering_task_frame, (void)has_dependences, (void)codeptr_ra;
  char names[64];
  flag_names(flags, names, sizeof names);
  new_task_data->value = on_initial() ? next_task++
                                      : __atomic_fetch_add(&next_worker_task, 1, __ATOMIC_RELAXED);
  printf("ev: task_create parent=T%" PRIu64 " T%" PRIu64 " %s\n", encountering_task_data->value,
         new_task_data->value, names);
}

static const char *target_kind(ompt_target_t kind)
{
  switch (kind) {
  case ompt_target: return "target";
  case ompt_target_enter_data: return "enter_data";
  case ompt_target_exit_data: return "exit_data";
  case ompt_target_update: return "update";
  case ompt_target_nowait: return "target_nowait";
  case ompt_target_enter_data_nowait: return "enter_data_nowait";
  case ompt_target_exit_data_nowait: return "exit_data_nowait";
  case ompt_target_update_nowait: return "update_nowait";
  }
  return "?";
}

static const char *device(int device_num)
{
  return device_num == omp_get_initial_device() ? "host" : "other";
}

/* The plain callback's target ids, numbered in the order they first come. */
static ompt_id_t target_ids[64];
static unsigned ntarget_ids;

static unsigned target_number(ompt_id_t id)
{
  for (unsigned i = 0; i < ntarget_ids; i++)
    if (target_ids[i] == id)
      return i + 1;
  if (ntarget_ids == 64)
    return 0;
  target_ids[ntarget_ids++] = id;
  return ntarget_ids;
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task_data, ompt_id_t target_id, const void *codeptr_ra)
{
  printf("ev: %s %s dev=%s task=T%" PRIu64 " I%u ra=%s\n", target_kind(kind),
         endpoint == ompt_scope_begin ? "begin" : "end", device(device_num), task_data->value,
         target_id != 0 ? target_number(target_id) : 0, where(codeptr_ra));
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra)
{
  if (endpoint == ompt_scope_begin) {
    if (target_data->value != 0)
      printf("ev: WRONG: target_data not zero at the begin\n");
    target_data->value = next_target++;
  }
  printf("ev: %s %s dev=%s task=T%" PRIu64 " I%" PRIu64 " target_task=%s ra=%s (emi)\n",
         target_kind(kind), endpoint == ompt_scope_begin ? "begin" : "end", device(device_num),
         task_data->value, target_data->value, target_task_data != NULL ? "set" : "null",
         where(codeptr_ra));
}

/* The target region the calling thread is in, as the tool numbers it (0: none). */
static unsigned target_now(void)
{
  uint64_t device_num = 0;
  ompt_id_t target_id = 0, host_op_id = 1;
  if (get_target_info(&device_num, &target_id, &host_op_id) != 1)
    return 0;
  if ((int)device_num != omp_get_initial_device() || host_op_id != 0)
    printf("ev: WRONG: target info device %d, host_op_id %" PRIu64 "\n", (int)device_num,
           host_op_id);
  return getenv("OMPT_TEST_EMI") != NULL ? (unsigned)target_id : target_number(target_id);
}

/* The program's own look at where it is, from the innermost level out. */
static void probe(const char *label)
{
  printf("ev: probe %s:", label);
  if (get_task_info == NULL || get_parallel_info == NULL) {
    printf(" no tool\n");
    return;
  }
  for (int level = 0; level < 4; level++) {
    int flags = 0, thread_num = -1;
    ompt_data_t *task = NULL, *parallel = NULL;
    ompt_frame_t *frame = NULL;
    if (get_task_info(level, &flags, &task, &frame, &parallel, &thread_num) != 2)
      break;
    char names[64];
    flag_names(flags, names, sizeof names);
    printf(" task(%d)=T%" PRIu64 " %s P%" PRIu64 " num=%d", level, task->value, names,
           parallel != NULL ? parallel->value : 0, thread_num);
  }
  for (int level = 0; level < 4; level++) {
    ompt_data_t *parallel = NULL;
    int size = -1;
    if (get_parallel_info(level, &parallel, &size) != 2)
      break;
    printf(" parallel(%d)=P%" PRIu64 " size=%d", level, parallel->value, size);
  }
  unsigned target = target_now();
  if (target != 0)
    printf(" target=I%u", target);
  printf("\n");
}

static void check_set(ompt_set_callback_t set_callback, ompt_callbacks_t event, const char *name,
                      ompt_callback_t cb, ompt_set_result_t want)
{
  ompt_set_result_t got = set_callback(event, cb);
  if (got != want)
    printf("tool: set %s = %d WRONG (expected %d)\n", name, (int)got, (int)want);
}

static void never_called(void) { printf("ev: WRONG: a callback that is never dispatched\n"); }

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data)
{
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  get_target_info = (ompt_get_target_info_t)lookup("ompt_get_target_info");
  check_set(set, ompt_callback_thread_begin, "thread_begin", (ompt_callback_t)on_thread_begin,
            ompt_set_always);
  check_set(set, ompt_callback_parallel_begin, "parallel_begin",
            (ompt_callback_t)on_parallel_begin, ompt_set_always);
  check_set(set, ompt_callback_parallel_end, "parallel_end", (ompt_callback_t)on_parallel_end,
            ompt_set_always);
  check_set(set, ompt_callback_implicit_task, "implicit_task", (ompt_callback_t)on_implicit_task,
            ompt_set_always);
  check_set(set, ompt_callback_task_create, "task_create", (ompt_callback_t)on_task_create,
            ompt_set_always);
  if (getenv("OMPT_TEST_EMI") != NULL)
    check_set(set, ompt_callback_target_emi, "target_emi", (ompt_callback_t)on_target_emi,
              ompt_set_always);
  else
    check_set(set, ompt_callback_target, "target", (ompt_callback_t)on_target,
              ompt_set_always);
  /* No device, no data movement, no kernel: OpenMP 5.1 allows only always for these events,
     which never happen here (the callback must then never be called); target_map: never. */
  check_set(set, ompt_callback_device_initialize, "device_initialize", never_called,
            ompt_set_always);
  check_set(set, ompt_callback_target_data_op, "target_data_op", never_called, ompt_set_always);
  check_set(set, ompt_callback_target_submit, "target_submit", never_called, ompt_set_always);
  check_set(set, ompt_callback_target_map, "target_map", never_called, ompt_set_never);
  check_set(set, ompt_callback_target_data_op_emi, "target_data_op_emi", never_called,
            ompt_set_always);
  check_set(set, ompt_callback_target_submit_emi, "target_submit_emi", never_called,
            ompt_set_always);
  check_set(set, ompt_callback_target_map_emi, "target_map_emi", never_called, ompt_set_never);
  return 1;
}

static void finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
  fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  (void)omp_version, (void)runtime_version;
  Dl_info info;
  if (dladdr((void *)main, &info) != 0)
    app_base = info.dli_fbase;
  static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
  return &result;
}

#ifndef __clang__
/* A target region as gcc 5 to 8 compiled target teams: GOMP_teams (OpenMP 4.5) at the start of
   the region's body, with no call at the league's end (the region's end ends it). */
void GOMP_teams(unsigned num_teams, unsigned thread_limit);
void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                     size_t *sizes, unsigned short *kinds, unsigned flags, void **depend,
                     void **args);
static void legacy_teams_body(void *data)
{
  (void)data;
  GOMP_teams(1, 0);
  probe("legacy team");
}
#endif

int main(void)
{
  LITE_CHECK("ompt_teams_target");
  /* The runtime starts the tool at its first thread state, which this call makes. */
  (void)omp_get_thread_num();
  probe("main");
  int sum = 0;
#pragma omp teams num_teams(2) reduction(+ : sum)
  {
    probe("team");
#pragma omp parallel num_threads(1)
    probe("team's parallel");
    sum += omp_get_team_num() + 1;
  }
  LITE_EXPECT(sum == 3, "teams sum %d, expected 3", sum);

  int x = 1, in_target[2] = { -1, -1 };
#pragma omp target map(tofrom : x, in_target)
  {
    probe("target");
    x++;
    /* Both threads of a parallel region in the target region are in it. */
#pragma omp parallel num_threads(2)
    in_target[omp_get_thread_num()] = get_target_info != NULL ? (int)target_now() : 0;
  }
  printf("ev: target's parallel: target I%d I%d\n", in_target[0], in_target[1]);
  /* A thread of a parallel region whose primary thread runs a target region is not in it. */
  int outside = -1;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() != 2) {
      outside = 0; /* no other thread to look (never so here: nothing limits the team) */
    } else if (omp_get_thread_num() == 0) {
#pragma omp target map(tofrom : outside)
      {
#pragma omp atomic write
        outside = -2;
        while (__atomic_load_n(&outside, __ATOMIC_ACQUIRE) == -2)
          ;
      }
    } else {
      while (__atomic_load_n(&outside, __ATOMIC_ACQUIRE) != -2)
        ;
      __atomic_store_n(&outside, get_target_info != NULL ? (int)target_now() : 0,
                       __ATOMIC_RELEASE);
    }
  }
  printf("ev: beside a target region: target I%d\n", outside);
  int teams = 0;
#pragma omp target teams num_teams(2) reduction(+ : teams)
  {
    probe("target team");
    teams++;
  }
  LITE_EXPECT(teams == 2, "target teams ran %d teams, expected 2", teams);
#pragma omp target data map(tofrom : x)
  {
#pragma omp target update to(x)
  }
#pragma omp target enter data map(to : x)
#pragma omp target exit data map(from : x)
#pragma omp target nowait map(tofrom : x)
  x++;
#pragma omp taskwait
  LITE_EXPECT(x == 3, "x %d, expected 3", x);
#ifndef __clang__
  GOMP_target_ext(-1, legacy_teams_body, 0, NULL, NULL, NULL, 0, NULL, NULL);
#endif
  printf("app: done\n");
  return 0;
}
