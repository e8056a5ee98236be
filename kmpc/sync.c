/* Synchronisation constructs of clang-built code: barrier, single, master and masked, critical,
   flush, ordered, copyprivate, reductions and cancellation, each on the mechanism the GOMP entry
   point of the same construct uses. */
#include "internal.h"
#include "kmpc.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

/* The barrier kinds clang's ident flags tell apart (LLVM's kmp.h: KMP_IDENT_BARRIER_EXPL 0x20,
   and the implicit ones of for, sections, single and workshare, 0x40 to 0x1c0). */
#define IDENT_BARRIER_EXPLICIT 0x20
#define IDENT_BARRIER_MASK 0x1e0

KMPC_EXPORT void __kmpc_barrier(ident_t *loc, int32_t gtid)
{
  (void)gtid;
  if (lite_ompt_on()) {
    bool expl = loc == NULL || (loc->flags & IDENT_BARRIER_MASK) == IDENT_BARRIER_EXPLICIT ||
                (loc->flags & IDENT_BARRIER_MASK) == 0;
    lite_ompt_barrier(lite_self(), expl ? ompt_sync_region_barrier_explicit
                                        : ompt_sync_region_barrier_implicit_workshare,
                      __builtin_return_address(0));
  } else if (lite_prof_on())
    lite_prof_barrier(lite_self(), __builtin_return_address(0));
  else
    lite_barrier_wait(lite_self());
}

/* With a tool, the thread that runs the block has its executor's work begin here and end at
   __kmpc_end_single; the others' begins and ends are both here (they skip the block). */
static __attribute__((noinline, cold)) int32_t single_ompt(const void *codeptr)
{
  bool won = lite_single_start_from(codeptr);
  if (won) {
    lite_ompt_work(ompt_work_single_executor, ompt_scope_begin, 1, codeptr);
  } else {
    lite_ompt_work(ompt_work_single_other, ompt_scope_begin, 1, codeptr);
    lite_ompt_work(ompt_work_single_other, ompt_scope_end, 1, codeptr);
  }
  return won;
}

KMPC_EXPORT int32_t __kmpc_single(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  if (lite_ompt_on())
    return single_ompt(__builtin_return_address(0));
  return lite_single_start_from(__builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_end_single(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  if (lite_ompt_on())
    lite_ompt_work(ompt_work_single_executor, ompt_scope_end, 1, __builtin_return_address(0));
}

KMPC_EXPORT int32_t __kmpc_master(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  bool mine = omp_get_thread_num() == 0;
  if (lite_ompt_on() && mine)
    lite_ompt_masked(ompt_scope_begin, __builtin_return_address(0));
  return mine;
}

KMPC_EXPORT void __kmpc_end_master(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  if (lite_ompt_on())
    lite_ompt_masked(ompt_scope_end, __builtin_return_address(0));
}

KMPC_EXPORT int32_t __kmpc_masked(ident_t *loc, int32_t gtid, int32_t filter)
{
  (void)loc, (void)gtid;
  bool mine = omp_get_thread_num() == filter;
  if (lite_ompt_on() && mine)
    lite_ompt_masked(ompt_scope_begin, __builtin_return_address(0));
  return mine;
}

KMPC_EXPORT void __kmpc_end_masked(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  if (lite_ompt_on())
    lite_ompt_masked(ompt_scope_end, __builtin_return_address(0));
}

/* A critical section's name is 32 zeroed bytes of the program's; the first 4 serve as the futex
   word, as gcc's pointer-sized name does in critical.c. clang and gcc name the storage
   differently (".gomp_critical_user_NAME.var" against ".gomp_critical_user_NAME"), so a
   critical section of a clang-built object and one of the same name in a gcc-built object do not
   exclude each other; nor does clang's unnamed one and gcc's. */
static _Atomic uint32_t *critical_word(kmp_critical_name *crit)
{
  return (_Atomic uint32_t *)&(*crit)[0];
}

KMPC_EXPORT void __kmpc_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit)
{
  (void)loc, (void)gtid;
  atomic_thread_fence(memory_order_release);
  if (lite_ompt_on())
    lite_ompt_mutex_lock(ompt_mutex_critical, critical_word(crit), omp_sync_hint_none,
                         __builtin_return_address(0));
  else if (lite_prof_on())
    lite_prof_critical(critical_word(crit), __builtin_return_address(0));
  else
    lite_mutex_lock(critical_word(crit));
  lite_held_enter(); /* taskyield and the throttle read it (task.c) */
}

/* The hint (contended, uncontended, speculative, ...) is a performance hint; the lock is the
   same. */
KMPC_EXPORT void __kmpc_critical_with_hint(ident_t *loc, int32_t gtid, kmp_critical_name *crit,
                                           uint32_t hint)
{
  (void)loc, (void)gtid;
  atomic_thread_fence(memory_order_release);
  if (lite_ompt_on())
    lite_ompt_mutex_lock(ompt_mutex_critical, critical_word(crit), hint,
                         __builtin_return_address(0));
  else if (lite_prof_on())
    lite_prof_critical(critical_word(crit), __builtin_return_address(0));
  else
    lite_mutex_lock(critical_word(crit));
  lite_held_enter(); /* taskyield and the throttle read it (task.c) */
}

KMPC_EXPORT void __kmpc_end_critical(ident_t *loc, int32_t gtid, kmp_critical_name *crit)
{
  (void)loc, (void)gtid;
  lite_held_leave();
  lite_mutex_unlock(critical_word(crit));
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_critical, critical_word(crit),
                    __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_flush(ident_t *loc)
{
  (void)loc;
  atomic_thread_fence(memory_order_seq_cst);
  if (lite_ompt_on())
    lite_ompt_flush(__builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_ordered(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  GOMP_ordered_start();
}

KMPC_EXPORT void __kmpc_end_ordered(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  GOMP_ordered_end();
}

/* single copyprivate: the thread that ran the block (didit) publishes its variables' addresses,
   the others copy from them with the compiler's cpy_func, and a second barrier keeps the
   publisher's variables alive until every copy is made. */
KMPC_EXPORT void __kmpc_copyprivate(ident_t *loc, int32_t gtid, size_t cpy_size, void *cpy_data,
                                    void (*cpy_func)(void *, void *), int32_t didit)
{
  (void)loc, (void)gtid, (void)cpy_size;
  struct lite_thread *thr = lite_self();
  struct lite_team *team = thr->team;
  if (team == NULL || team->nthreads == 1)
    return;
  if (didit)
    team->copyprivate = cpy_data;
  lite_barrier_wait(thr);
  if (!didit)
    cpy_func(cpy_data, team->copyprivate);
  lite_barrier_wait(thr);
}

/* ---------------------------------------------------------------- reductions */

/* The protocol: __kmpc_reduce{_nowait} answers 1 to a thread that must combine its private
   copies into the original variables itself and then call __kmpc_end_reduce{_nowait}, 2 to one
   that must combine them with atomic operations (then only the blocking form calls its end), 0
   to one that has nothing left to do. When clang generated the atomic code (the ident's
   ATOMIC_REDUCE flag, 0x10), every thread gets 2 and no lock is taken: each combines with one
   compare-and-swap on the variable's line, where the lock costs the line of the lock as well;
   otherwise every thread gets 1 and combines under the lock the compiler names (lck), LLVM's
   "critical" method. A team of one answers 1 and takes no lock. The blocking form ends with the
   construct's barrier. */
#define KMPC_IDENT_ATOMIC_REDUCE 0x10

/* The method the calling thread got at its last __kmpc_reduce (its end needs it). */
static LITE_THREAD_LOCAL int32_t reduce_method;

/* Whether a tool takes the reduction events: it then gets the lock method even where clang
   offers the atomic one, as an atomic combine has no end call to mark the region's end (the
   nowait form) and the tool would see no reduction at all; LLVM's libomp reports its tree
   method's combines, which the atomic method here stands for. A team of one (no lock) is a
   reduction region as well. A tool without the callback keeps the atomic method. */
static bool reduction_seen(void)
{
  return lite_ompt_on() && lite_ompt_callbacks[ompt_callback_reduction] != NULL;
}

/* With a tool, a reduction combined under the lock or alone is a reduction region (begin
   here, end at its end call). */
static int32_t reduce_begin(ident_t *loc, int32_t gtid, kmp_critical_name *lck,
                            const void *codeptr)
{
  struct lite_team *team = lite_self()->team;
  if (team == NULL || team->nthreads == 1) {
    reduce_method = 0;
    if (lite_ompt_on())
      lite_ompt_reduction(ompt_scope_begin, codeptr);
  } else if (loc != NULL && (loc->flags & KMPC_IDENT_ATOMIC_REDUCE) && !reduction_seen()) {
    reduce_method = 2;
  } else {
    if (lite_ompt_on()) {
      lite_ompt_reduction(ompt_scope_begin, codeptr);
      atomic_thread_fence(memory_order_release);
      lite_mutex_lock(critical_word(lck));
    } else {
      __kmpc_critical(loc, gtid, lck);
    }
    reduce_method = 1;
  }
  return reduce_method == 2 ? 2 : 1;
}

static void reduce_end(ident_t *loc, int32_t gtid, kmp_critical_name *lck, const void *codeptr)
{
  if (reduce_method == 1) {
    if (lite_ompt_on()) {
      lite_mutex_unlock(critical_word(lck));
      lite_ompt_reduction(ompt_scope_end, codeptr);
    } else {
      __kmpc_end_critical(loc, gtid, lck);
    }
  } else if (reduce_method == 0 && lite_ompt_on()) {
    lite_ompt_reduction(ompt_scope_end, codeptr);
  }
}

KMPC_EXPORT int32_t __kmpc_reduce_nowait(ident_t *loc, int32_t gtid, int32_t num_vars,
                                         size_t reduce_size, void *reduce_data,
                                         void (*reduce_func)(void *, void *),
                                         kmp_critical_name *lck)
{
  (void)num_vars, (void)reduce_size, (void)reduce_data, (void)reduce_func;
  return reduce_begin(loc, gtid, lck, __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_end_reduce_nowait(ident_t *loc, int32_t gtid, kmp_critical_name *lck)
{
  reduce_end(loc, gtid, lck, __builtin_return_address(0));
}

KMPC_EXPORT int32_t __kmpc_reduce(ident_t *loc, int32_t gtid, int32_t num_vars,
                                  size_t reduce_size, void *reduce_data,
                                  void (*reduce_func)(void *, void *), kmp_critical_name *lck)
{
  (void)num_vars, (void)reduce_size, (void)reduce_data, (void)reduce_func;
  return reduce_begin(loc, gtid, lck, __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_end_reduce(ident_t *loc, int32_t gtid, kmp_critical_name *lck)
{
  reduce_end(loc, gtid, lck, __builtin_return_address(0));
  if (lite_ompt_on())
    lite_ompt_barrier(lite_self(), ompt_sync_region_barrier_implicit_workshare,
                      __builtin_return_address(0));
  else
    lite_barrier_wait(lite_self());
}

/* ---------------------------------------------------------------- cancellation */

/* LLVM numbers the constructs 1 parallel, 2 loop, 3 sections, 4 taskgroup; GOMP_cancel takes
   the bits 1, 2, 4, 8. */
static int cancel_which(int32_t kind)
{
  switch (kind) {
  case 1: return 1;
  case 2: return 2;
  case 3: return 4;
  case 4: return 8;
  default: return 0;
  }
}

KMPC_EXPORT int32_t __kmpc_cancel(ident_t *loc, int32_t gtid, int32_t kind)
{
  (void)loc, (void)gtid;
  int which = cancel_which(kind);
  return which != 0 && lite_cancel_from(which, true, __builtin_return_address(0));
}

KMPC_EXPORT int32_t __kmpc_cancellationpoint(ident_t *loc, int32_t gtid, int32_t kind)
{
  (void)loc, (void)gtid;
  int which = cancel_which(kind);
  return which != 0 && lite_cancellation_point_from(which, __builtin_return_address(0));
}

KMPC_EXPORT int32_t __kmpc_cancel_barrier(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  return GOMP_barrier_cancel();
}
