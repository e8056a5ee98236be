/* Parallel and teams regions of clang-built code: __kmpc_fork_call and __kmpc_fork_teams gather
   the region's shared-variable pointers and run the outlined body through GOMP_parallel and
   GOMP_teams_reg, so the region gets the pool, ICVs, binding and nesting that a gcc-built one
   gets; if(false) regions come as a __kmpc_serialized_parallel pair around a direct call. */
#include "internal.h"
#include "kmpc.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

#include <stdarg.h>

struct fork_frame {
  kmpc_micro fn;
  int argc;
  void **argv;
};

static void run_microtask(void *arg)
{
  struct fork_frame *f = arg;
  int32_t gtid = lite_kmpc_gtid();
  int32_t btid = omp_get_thread_num();
  lite_kmpc_invoke(f->fn, &gtid, &btid, f->argc, f->argv);
}

/* The shared-variable pointers of a variable argument list, in a frame on the caller's stack. */
#define GATHER_ARGS(frame, argc, last)                                                      \
  void *frame##_argv[(argc) > 0 ? (argc) : 1];                                               \
  do {                                                                                       \
    va_list ap;                                                                              \
    va_start(ap, last);                                                                      \
    for (int i = 0; i < (argc); i++)                                                         \
      frame##_argv[i] = va_arg(ap, void *);                                                  \
    va_end(ap);                                                                              \
  } while (0)

KMPC_EXPORT void __kmpc_fork_call(ident_t *loc, int32_t argc, kmpc_micro microtask, ...)
{
  (void)loc;
  if (argc < 0 || argc > 4096)
    lite_error_exit("__kmpc_fork_call: %d shared variables", argc);
  GATHER_ARGS(f, argc, microtask);
  struct fork_frame frame = { microtask, argc, f_argv };
  struct lite_kmpc_push *push = lite_kmpc_pushed();
  unsigned num_threads = push->num_threads, flags = push->proc_bind;
  push->num_threads = 0;
  push->proc_bind = 0;
  /* Profiled, the region's row is the clang caller's site, as a gcc caller's is; so is a
     tool's codeptr_ra, and the encountering task's enter frame is this entry point's. */
  if (lite_ompt_on())
    lite_parallel_run_ompt(__builtin_return_address(0), __builtin_frame_address(0),
                           run_microtask, &frame, num_threads, flags, NULL, NULL);
  else if (lite_prof_on())
    lite_parallel_run_profiled(__builtin_return_address(0), run_microtask, &frame, num_threads,
                               flags, NULL, NULL);
  else
    GOMP_parallel(run_microtask, &frame, num_threads, flags);
}

static void nothing(void *arg) { (void)arg; }

/* The serialized region with a tool: it comes from the program's call (codeptr), the
   encountering task's enter frame and the new implicit task's exit frame are the entry point's
   frame (entry), as in LLVM's libomp: the body runs in the caller's next call, below it. */
static __attribute__((noinline, cold)) void serialized_ompt(const void *codeptr, void *entry)
{
  struct lite_thread *thr = lite_self();
  lite_ompt_fork_from(thr, codeptr, entry, 1);
  GOMP_parallel_start(nothing, NULL, 1);
  ompt_frame_t *frame = &lite_current_task(thr)->ompt_frame;
  frame->exit_frame.ptr = entry;
  frame->exit_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
}

/* parallel if(false): a team of one, whose body the caller runs between the two calls. */
KMPC_EXPORT void __kmpc_serialized_parallel(ident_t *loc, int32_t global_tid)
{
  (void)loc, (void)global_tid;
  struct lite_kmpc_push *push = lite_kmpc_pushed();
  push->num_threads = 0;
  push->proc_bind = 0;
  if (lite_ompt_on())
    serialized_ompt(__builtin_return_address(0), __builtin_frame_address(0));
  else
    GOMP_parallel_start(nothing, NULL, 1);
}

KMPC_EXPORT void __kmpc_end_serialized_parallel(ident_t *loc, int32_t global_tid)
{
  (void)loc, (void)global_tid;
  GOMP_parallel_end();
}

KMPC_EXPORT void __kmpc_fork_teams(ident_t *loc, int32_t argc, kmpc_micro microtask, ...)
{
  (void)loc;
  if (argc < 0 || argc > 4096)
    lite_error_exit("__kmpc_fork_teams: %d shared variables", argc);
  GATHER_ARGS(f, argc, microtask);
  struct fork_frame frame = { microtask, argc, f_argv };
  struct lite_kmpc_push *push = lite_kmpc_pushed();
  unsigned num_teams = push->num_teams, thread_limit = push->thread_limit;
  push->num_teams = 0;
  push->thread_limit = 0;
  /* A tool's codeptr_ra and enter frame are this entry point's, as for __kmpc_fork_call. */
  if (lite_ompt_on())
    lite_teams_run_ompt(__builtin_return_address(0), __builtin_frame_address(0), run_microtask,
                        &frame, num_teams, thread_limit);
  else
    GOMP_teams_reg(run_microtask, &frame, num_teams, thread_limit, 0);
}
