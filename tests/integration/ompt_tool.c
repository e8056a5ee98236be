/* ompt_tool.c: a small OMPT tool for ompt_startup.sh, built as a library (OMP_TOOL_LIBRARIES,
   LD_PRELOAD) or linked into the program (ompt_startup.c includes it with -DLINKED_TOOL).
   Compiled against LLVM's omp-tools.h, as real tools are.

   It prints one line per thing the script counts, on stdout:
     tool: start_tool <runtime_version>       its ompt_start_tool was called
     tool: initialize                         its initialize was called
     tool: set <event> = <answer> ok|WRONG    ompt_set_callback's answer, against what the
                                              README's "Attaching a tool (OMPT)" says
     tool: thread_begin / tool: parallel_begin
     tool: finalize                           its finalize was called
   Variants: -DDECLINE: ompt_start_tool returns NULL (the runtime must go on searching);
   OMPT_TEST_REFUSE=1 in the environment: initialize returns 0 (the runtime must then call
   nothing more of the tool, finalize included). OMPT_TEST_QUIET=1: initialize registers
   nothing (the runtime then runs with its hooks off); finalize checks that a registration
   after initialize fails and that thread data still answers:
     tool: quiet late set = <answer> ok|WRONG, thread data ok|WRONG */
#include <omp-tools.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int thread_begins, parallel_begins;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
  (void)type;
  (void)thread_data;
  atomic_fetch_add(&thread_begins, 1);
  printf("tool: thread_begin\n");
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
  (void)encountering_task_data;
  (void)encountering_task_frame;
  (void)parallel_data;
  (void)requested_parallelism;
  (void)flags;
  (void)codeptr_ra;
  atomic_fetch_add(&parallel_begins, 1);
  printf("tool: parallel_begin\n");
}

static void never_called(void) {}

static ompt_function_lookup_t quiet_lookup; /* set when initialize registered nothing */

/* What ompt_set_callback must answer for these events (ompt/entry.c, README): thread_begin and
   parallel_begin are dispatched every time (OpenMP 5.1 allows no other answer for them), and
   nothing is mapped to a device here, so target_map never; 0 is no event at all. */
static int check_set(ompt_set_callback_t set_callback, ompt_callbacks_t event, const char *name,
                     ompt_callback_t cb, ompt_set_result_t want)
{
  ompt_set_result_t got = set_callback(event, cb);
  printf("tool: set %s = %d %s\n", name, (int)got, got == want ? "ok" : "WRONG");
  return got == want;
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num,
                      ompt_data_t *tool_data)
{
  (void)initial_device_num;
  (void)tool_data;
  printf("tool: initialize\n");
  if (getenv("OMPT_TEST_REFUSE") != NULL)
    return 0;
  if (getenv("OMPT_TEST_QUIET") != NULL) {
    quiet_lookup = lookup;
    return 1;
  }
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (set_callback == NULL) {
    printf("tool: no ompt_set_callback WRONG\n");
    return 0;
  }
  check_set(set_callback, ompt_callback_thread_begin, "thread_begin",
            (ompt_callback_t)on_thread_begin, ompt_set_always);
  check_set(set_callback, ompt_callback_parallel_begin, "parallel_begin",
            (ompt_callback_t)on_parallel_begin, ompt_set_always);
  check_set(set_callback, ompt_callback_target_map, "target_map",
            (ompt_callback_t)never_called, ompt_set_never);
  check_set(set_callback, (ompt_callbacks_t)0, "(no event)",
            (ompt_callback_t)never_called, ompt_set_error);
  return 1;
}

static void finalize(ompt_data_t *tool_data)
{
  (void)tool_data;
  if (quiet_lookup != NULL) {
    ompt_set_callback_t set_callback = (ompt_set_callback_t)quiet_lookup("ompt_set_callback");
    ompt_get_thread_data_t get_thread_data =
        (ompt_get_thread_data_t)quiet_lookup("ompt_get_thread_data");
    ompt_set_result_t late = set_callback(ompt_callback_thread_begin,
                                          (ompt_callback_t)on_thread_begin);
    printf("tool: quiet late set = %d %s, thread data %s\n", (int)late,
           late == ompt_set_error ? "ok" : "WRONG", get_thread_data() != NULL ? "ok" : "WRONG");
  }
  printf("tool: finalize after %d thread_begin, %d parallel_begin\n",
         atomic_load(&thread_begins), atomic_load(&parallel_begins));
  fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
  (void)omp_version;
  printf("tool: start_tool %s%s\n", runtime_version,
#ifdef DECLINE
         " (declined)"
#else
         ""
#endif
  );
#ifdef DECLINE
  return NULL;
#else
  static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
  return &result;
#endif
}
