/* single and single with copyprivate.

   Each single construct a thread meets gets the next number in that thread's count; the first
   thread to move the team's ticket from number-1 to number runs the block. Threads that reach a
   single late find the ticket already past it. The count and ticket carry on across regions, so
   a fork need not reset the ticket's cache line. */
#include "internal.h"
#include "ompt/ompt.h"
#include "profile/profile.h"

static inline bool single_start(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_team *team = thr->team;
  if (team == NULL || team->nthreads == 1)
    return true;
  unsigned mine = ++thr->single_count;
  unsigned expected = mine - 1;
  /* Cheap look first: a late thread sees the ticket past its number without a locked op. */
  if (atomic_load_explicit(&team->single_ticket, memory_order_relaxed) != expected)
    return false;
  return atomic_compare_exchange_strong_explicit(&team->single_ticket, &expected, mine,
                                                 memory_order_acq_rel, memory_order_relaxed);
}

/* Out of line, so that the plain path takes no stack frame for it (see GOMP_barrier). */
static __attribute__((noinline, cold)) bool single_profiled(const void *site)
{
  bool won = single_start();
  lite_prof_single(site, won);
  return won;
}

static inline bool single_start_from(const void *site)
{
  if (lite_prof_on())
    return single_profiled(site);
  return single_start();
}

/* With a tool: ompt_callback_work, single_executor or single_other, as for clang's single
   (kmpc/sync.c). gcc calls nothing at the end of a plain single's block, so the executor's end
   comes with its begin, here, as the others' do: a tool sees every single once, begun and
   ended, on every member (LLVM's runtime, on the same gcc-built program, sends the executor's
   begin alone, and never its end). */
static __attribute__((noinline, cold)) bool single_ompt(const void *codeptr)
{
  bool won = single_start_from(codeptr);
  ompt_work_t kind = won ? ompt_work_single_executor : ompt_work_single_other;
  lite_ompt_work(kind, ompt_scope_begin, 1, codeptr);
  lite_ompt_work(kind, ompt_scope_end, 1, codeptr);
  return won;
}

bool GOMP_single_start(void)
{
  if (lite_ompt_on())
    return single_ompt(__builtin_return_address(0));
  return single_start_from(__builtin_return_address(0));
}

bool lite_single_start_from(const void *site) { return single_start_from(site); }

/* Returns NULL to the thread that runs the block (it then calls GOMP_single_copy_end), and the
   block's copyprivate data to the others, after the winner published it.
   With a tool, the executor's work begins here and ends in GOMP_single_copy_end, the others'
   begins and ends are both here, around their wait, and each wait is an implicit barrier of
   the construct (LLVM's runtime sends no work event for these two). */
static __attribute__((noinline, cold)) void *single_copy_ompt(const void *codeptr)
{
  if (single_start_from(codeptr)) {
    lite_ompt_work(ompt_work_single_executor, ompt_scope_begin, 1, codeptr);
    return NULL;
  }
  struct lite_thread *thr = lite_self();
  lite_ompt_work(ompt_work_single_other, ompt_scope_begin, 1, codeptr);
  lite_ompt_barrier(thr, ompt_sync_region_barrier_implicit_workshare, codeptr);
  lite_ompt_work(ompt_work_single_other, ompt_scope_end, 1, codeptr);
  return thr->team->copyprivate;
}

void *GOMP_single_copy_start(void)
{
  if (lite_ompt_on())
    return single_copy_ompt(__builtin_return_address(0));
  if (single_start())
    return NULL;
  struct lite_thread *thr = lite_self();
  lite_barrier_wait(thr);
  return thr->team->copyprivate;
}

void GOMP_single_copy_end(void *data)
{
  struct lite_thread *thr = lite_self();
  if (thr->team != NULL)
    thr->team->copyprivate = data;
  if (lite_ompt_on()) {
    const void *codeptr = __builtin_return_address(0);
    lite_ompt_work(ompt_work_single_executor, ompt_scope_end, 1, codeptr);
    lite_ompt_barrier(thr, ompt_sync_region_barrier_implicit_workshare, codeptr);
    return;
  }
  lite_barrier_wait(thr);
}
