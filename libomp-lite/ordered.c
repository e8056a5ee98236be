/* ordered: the member whose chunk has the turn runs its ordered regions; the turn passes at the
   end of each chunk, in iteration order (sched/iter.c). */
#include "loop_common.h"

void GOMP_ordered_start(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *ws = thr->ws;
  if (ws == NULL || !ws->ordered || thr->chunk_hi == thr->chunk_lo)
    return;
  lite_ordered_wait_turn(ws, thr->chunk_lo);
}

/* Nothing to do: the next chunk's turn starts when this member's chunk is done. */
void GOMP_ordered_end(void) {}
