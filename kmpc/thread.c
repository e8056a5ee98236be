/* The per-thread state of the LLVM ABI: a thread's global id, and what it pushed for its next
   fork. */
#include "internal.h"
#include "kmpc.h"

#include <sys/syscall.h>
#include <unistd.h>

static LITE_THREAD_LOCAL int32_t gtid = -1;
static LITE_THREAD_LOCAL struct lite_kmpc_push pushed;
/* Ids handed out so far; 0 is kept for the initial thread, whenever it first asks. */
static _Atomic int32_t next_gtid = 1;

int32_t lite_kmpc_gtid(void)
{
  if (lite_likely(gtid >= 0))
    return gtid;
  if (syscall(SYS_gettid) == getpid())
    gtid = 0;
  else
    gtid = atomic_fetch_add_explicit(&next_gtid, 1, memory_order_relaxed);
  return gtid;
}

struct lite_kmpc_push *lite_kmpc_pushed(void) { return &pushed; }

KMPC_EXPORT int32_t __kmpc_global_thread_num(ident_t *loc)
{
  (void)loc;
  return lite_kmpc_gtid();
}

/* The number of threads the runtime knows of: LLVM counts every thread it registered; here the
   ids handed out so far. */
KMPC_EXPORT int32_t __kmpc_global_num_threads(ident_t *loc)
{
  (void)loc;
  return atomic_load_explicit(&next_gtid, memory_order_relaxed);
}

KMPC_EXPORT int32_t __kmpc_bound_thread_num(ident_t *loc)
{
  (void)loc;
  return omp_get_thread_num();
}

KMPC_EXPORT int32_t __kmpc_bound_num_threads(ident_t *loc)
{
  (void)loc;
  return omp_get_num_threads();
}

KMPC_EXPORT int32_t __kmpc_in_parallel(ident_t *loc)
{
  (void)loc;
  return omp_in_parallel();
}

KMPC_EXPORT void __kmpc_push_num_threads(ident_t *loc, int32_t global_tid, int32_t num_threads)
{
  (void)loc, (void)global_tid;
  pushed.num_threads = num_threads > 0 ? (unsigned)num_threads : 0;
}

KMPC_EXPORT void __kmpc_push_proc_bind(ident_t *loc, int32_t global_tid, int proc_bind)
{
  (void)loc, (void)global_tid;
  /* LLVM's kmp_proc_bind_t numbers false, true, primary, close and spread as omp_proc_bind_t
     does, and GOMP_parallel's flags carry the same number in their low 3 bits. */
  pushed.proc_bind = proc_bind >= 0 && proc_bind <= omp_proc_bind_spread ? (unsigned)proc_bind : 0;
}

KMPC_EXPORT void __kmpc_push_num_teams(ident_t *loc, int32_t global_tid, int32_t num_teams,
                                       int32_t num_threads)
{
  (void)loc, (void)global_tid;
  pushed.num_teams = num_teams > 0 ? (unsigned)num_teams : 0;
  pushed.thread_limit = num_threads > 0 ? (unsigned)num_threads : 0;
}

/* OpenMP 5.1's num_teams(lower: upper): this runtime makes `upper` teams, a number the clause
   allows. */
KMPC_EXPORT void __kmpc_push_num_teams_51(ident_t *loc, int32_t global_tid, int32_t lower,
                                          int32_t upper, int32_t num_threads)
{
  (void)lower;
  __kmpc_push_num_teams(loc, global_tid, upper, num_threads);
}

/* Called by some compilers at the start and end of main: nothing to do (the runtime starts on
   first use and stops at exit). */
KMPC_EXPORT void __kmpc_begin(ident_t *loc, int32_t flags) { (void)loc, (void)flags; }
KMPC_EXPORT void __kmpc_end(ident_t *loc) { (void)loc; }

KMPC_EXPORT int32_t __kmpc_ok_to_fork(ident_t *loc)
{
  (void)loc;
  return 1;
}
