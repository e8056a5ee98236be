/* ordered: the member whose chunk has the turn runs its ordered regions; the turn passes at the
   end of each chunk, in iteration order (sched/iter.c), or at the end of the ordered region of a
   chunk of one iteration. */
#include "loop_common.h"
#include "ompt/ompt.h"

/* What a tool's mutex events name: the loop's ordered turn, or, for an ordered construct with
   no ordered loop to bind to (orphaned, or a chunk without iterations), which waits for
   nothing, the calling thread; LLVM's libomp dispatches the events there too. */
static const void *ordered_wait_id(struct lite_thread *thr, struct lite_ws *ws)
{
  return ws != NULL && ws->ordered ? (const void *)ws : (const void *)thr;
}

void GOMP_ordered_start(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *ws = thr->ws;
  if (lite_ompt_on())
    lite_ompt_mutex_acquire(ompt_mutex_ordered, omp_sync_hint_none, ordered_wait_id(thr, ws),
                            __builtin_return_address(0));
  if (ws != NULL && ws->ordered && thr->chunk_hi != thr->chunk_lo)
    lite_ordered_wait_turn(ws, thr->chunk_lo);
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_mutex_acquired, ompt_mutex_ordered, ordered_wait_id(thr, ws),
                    __builtin_return_address(0));
  lite_held_enter(); /* a task run here could wait for the turn: task.c */
}

/* The turn passes when the member's chunk is done: at its next request for a chunk, or here
   when the chunk is one iteration, which runs at most one ordered region (OpenMP 5.2 §15.10.2).
   Passed at the next request, the turn waited for the member's way back into the runtime and
   through the dispatch: clang-built loopbench `ordered`, schedule(static, 1) at 2 threads,
   390 ns an iteration against LLVM's 65. */
void GOMP_ordered_end(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *ws = thr->ws;
  lite_held_leave();
  if (ws != NULL && ws->ordered && thr->chunk_hi - thr->chunk_lo == 1)
    lite_ordered_pass_turn(thr, ws);
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_ordered, ordered_wait_id(thr, ws),
                    __builtin_return_address(0));
}
