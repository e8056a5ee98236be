/* Spreading a team with more members than CPUs evenly over them.

   Members of such a team take turns on each CPU, so a region lasts as long as the share of the
   most crowded CPU. The kernel places the threads, and it often keeps a lopsided placement for a
   long time: 4 threads on 2 CPUs, a parallel region with about 2 µs of work per member took
   12.2-13.8 µs while 3 members shared one CPU (tens of thousands of regions in a row) and
   8.4-10.2 µs with 2 on each; the stencil benchmark took 29 or 43 ms a run from one process to
   the next.

   So the leader, once every member has arrived at a join or a barrier (each noted its CPU as it
   arrived), counts the members per CPU. When one CPU holds two members more than another CPU of
   the mask, it asks one worker to move across. The worker does it itself, the next time it is
   inside the runtime (waiting at a barrier or for the next region, or starting a region): it
   reads its mask, sets the one CPU, and puts back exactly the mask it read before it returns to
   user code; and only if that mask is the process's. A nudge, not a binding, so the kernel stays
   free to move it again. (The leader used to move the worker with sched_setaffinity from its
   own thread: a program that read its mask between the two calls saw one CPU, twice in 20,000
   regions, and a thread that had pinned itself could have its pin overwritten by the second
   call.) The move now waits for the worker to come back into the runtime: at the next barrier,
   the end of the region, or while it waits for the next one. Not while other processes compete for
   the CPUs (the kernel's placement then counts them too, and we cannot), and at most once every
   BALANCE_HOLD_NS, so that a kernel that prefers another placement is not fought at every
   region: a move costs two system calls and a migration, some µs. */
#include "internal.h"

#include <string.h>

/* The largest team looked at, and the CPU numbers counted; larger teams and CPU numbers are left
   to the kernel. */
#define BALANCE_MAX_MEMBERS 64
#define BALANCE_CPUS 256
/* The time after a move, or after a lopsided placement that could not be mended, before the
   next one. In time, not in looks: a region can be as short as a few µs or as long as a run.
   Longer after other processes were seen: that look reads /proc (a file per thread of ours when
   the kernel's count says some task is foreign, 50-100 µs at 16 threads), and such load often
   lasts; not so long that a passing one keeps the team lopsided for many regions. */
#define BALANCE_HOLD_NS 1000000
#define BALANCE_FOREIGN_HOLD_NS 20000000

_Atomic unsigned long lite_balance_moves;

/* Whether some CPU holds more than its share of the n members: more than n / ncpus, rounded up.
   The CPUs numbered BALANCE_CPUS or above, or unknown (-1), end the count (false). */
bool lite_balance_lopsided(const int *cpus, unsigned n, unsigned ncpus)
{
  uint8_t count[BALANCE_CPUS];
  unsigned fair = (n + ncpus - 1) / ncpus;
  bool over = false;
  memset(count, 0, sizeof count);
  for (unsigned i = 0; i < n; i++) {
    if (cpus[i] < 0 || cpus[i] >= BALANCE_CPUS)
      return false;
    if (++count[cpus[i]] > fair)
      over = true;
  }
  return over;
}

bool lite_balance_plan(const int *cpus, unsigned n, const uint64_t *allowed,
                       struct lite_balance_move *move)
{
  uint8_t count[BALANCE_CPUS];
  memset(count, 0, sizeof count);
  for (unsigned i = 0; i < n; i++) {
    if (cpus[i] < 0 || cpus[i] >= BALANCE_CPUS)
      return false;
    count[cpus[i]]++;
  }
  int most = -1, least = -1;
  for (int c = 0; c < BALANCE_CPUS; c++) {
    if (!(allowed[c / 64] >> (c % 64) & 1))
      continue;
    if (most < 0 || count[c] > count[most])
      most = c;
    if (least < 0 || count[c] < count[least])
      least = c;
  }
  if (most < 0 || count[most] < count[least] + 2)
    return false;
  /* The last worker on the crowded CPU: the leader (member 0) is never moved. */
  for (unsigned i = n; i-- > 1;)
    if (cpus[i] == most) {
      move->member = i;
      move->cpu = least;
      return true;
    }
  return false;
}

void lite_team_balance(struct lite_pool *pool, unsigned nthreads)
{
  /* Bound members stay on their places: moving one would undo the binding. */
  if (nthreads <= lite_env.ncpus || nthreads > BALANCE_MAX_MEMBERS || lite_binding.on)
    return;
  int cpus[BALANCE_MAX_MEMBERS];
  for (unsigned i = 0; i < nthreads; i++)
    cpus[i] = atomic_load_explicit(&pool->slots[i]->cpu, memory_order_relaxed);
  if (!lite_balance_lopsided(cpus, nthreads, lite_env.ncpus))
    return;
  uint64_t now = lite_now_ns();
  if (now < pool->balance_after_ns)
    return;
  /* Unknown load: a count is asked for (the next thread to wake takes it), for a later look. */
  pool->balance_after_ns = now + BALANCE_HOLD_NS;
  enum lite_load load = lite_foreign_load(now);
  if (load == LITE_LOAD_FOREIGN)
    pool->balance_after_ns = now + BALANCE_FOREIGN_HOLD_NS;
  if (load != LITE_LOAD_NONE)
    return;
  uint64_t allowed[BALANCE_CPUS / 64];
  struct lite_balance_move move;
  if (!lite_os_affinity_bitmap(allowed, BALANCE_CPUS) ||
      !lite_balance_plan(cpus, nthreads, allowed, &move))
    return;
  atomic_store_explicit(&pool->slots[move.member]->move_to, move.cpu + 1, memory_order_relaxed);
}

void lite_balance_move_self(struct lite_slot *slot, int to)
{
  atomic_store_explicit(&slot->move_to, 0, memory_order_relaxed);
  if (lite_os_move_self_to_cpu(to - 1))
    atomic_fetch_add_explicit(&lite_balance_moves, 1, memory_order_relaxed);
}
