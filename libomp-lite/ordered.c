/* ordered: the member whose chunk has the turn runs its ordered regions; the turn passes at the
   end of each chunk, in iteration order (sched/iter.c). */
#include "loop_common.h"

void GOMP_ordered_start(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *ws = thr->ws;
  if (ws == NULL || !ws->ordered || thr->chunk_hi == thr->chunk_lo)
    return;
  uint64_t lo = thr->chunk_lo;
  while (atomic_load_explicit(&ws->ordered_turn, memory_order_acquire) != lo) {
    uint32_t gen = atomic_load(&ws->ordered_gen);
    if (atomic_load(&ws->ordered_turn) == lo)
      break;
    lite_wait_while_equal(&ws->ordered_gen, gen, &ws->ordered_sleepers);
  }
}

/* Nothing to do: the next chunk's turn starts when this member's chunk is done. */
void GOMP_ordered_end(void) {}
