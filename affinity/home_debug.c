/* A test-only look at where a member's own state is (tests/vm/placement.c): the addresses and
   sizes of the blocks affinity/home.c puts on the member's node, which no program can see
   otherwise. Exported at a version node of its own, OMPLITE_DEBUG_1 (libgomp.map), never at one
   of libgomp's: no binary built against libgomp needs it, and under LD_PRELOAD its name clashes
   with nothing. It reads the calling thread's own state only and changes nothing. */
#include "internal.h"
#include "task_queue.h"
#include "affinity/affinity.h"

int omplite_debug_member_state(void **addrs, size_t *sizes, int max)
{
  struct lite_thread *thr = lite_self_tls;
  struct lite_pool *pool = thr != NULL && thr->team != NULL ? thr->team->pool : NULL;
  if (pool == NULL || addrs == NULL || sizes == NULL || max < LITE_DEBUG_MEMBER_BLOCKS)
    return 0;
  struct lite_slot *slot = pool->slots[thr->id];
  /* Member 0's queue is the pool's own (tasks.local); a worker's is made on its first task. */
  struct lite_member_q *mq =
      thr->id != 0 ? lite_tq_member_queue(&thr->team->tasks, thr->id) : NULL;
  addrs[0] = slot;
  sizes[0] = offsetof(struct lite_slot, ranges);
  addrs[1] = slot->ranges;
  sizes[1] = sizeof slot->ranges;
  addrs[2] = thr;
  sizes[2] = sizeof *thr;
  addrs[3] = mq;
  sizes[3] = mq != NULL ? sizeof *mq : 0;
  return LITE_DEBUG_MEMBER_BLOCKS;
}
