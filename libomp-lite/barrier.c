/* The team barrier: every member stores the barrier's epoch in its own arrival word, the leader
   (thread 0) gathers them and publishes the epoch in the release word the others wait on.
   Two cache-line transfers per member per barrier, no read-modify-write on a shared counter.
   A team of two needs no release: each member waits for the other's arrival word, one transfer
   each way at the same time. In a team with more members than CPUs, the last member to arrive
   releases the others (see lite_barrier_wait). */
#include "internal.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

/* Whether a waiter parked on join_word (the leader; in a barrier of a team of two, the other
   member) can go on once this member has arrived: every other member's word (the barrier's
   arrive, or the region's done) holds value. Waking it at every arrival instead cost it up to
   nthreads - 1 wake-ups per barrier, each a context switch, when it parks (the passive policy,
   CPUs overloaded by other processes). In a cancelled region a member may never reach a
   barrier: wake (a leader does not park in the join of a cancelled region). */
static bool others_arrived(struct lite_pool *pool, struct lite_slot *const *slots,
                           unsigned nthreads, struct lite_slot *self, bool join, uint32_t value)
{
  if (!join && atomic_load_explicit(&pool->team->cancelled, memory_order_relaxed))
    return true;
  /* The leader is the waiter, or (a barrier of a team of two) the member arriving last. */
  for (unsigned i = 1; i < nthreads; i++) {
    struct lite_slot *slot = slots[i];
    if (slot != self && atomic_load(join ? &slot->done : &slot->arrive) != value)
      return false;
  }
  return true;
}

/* Stores a member's arrival word, then wakes the parked waiter if it can go on. Sequentially
   consistent store, then the loads of join_sleepers and of the other members' words: pairs with
   the waiter's lite_park_begin() then re-check, and of two members arriving last together, one
   sees the other's store. Once the last member's done is stored, the leader may start the next
   region: the team size is read before, and the team is not read at all for the join. */
static void arrive(struct lite_pool *pool, struct lite_slot *slot, bool join, uint32_t value)
{
  unsigned nthreads = atomic_load_explicit(&pool->nthreads, memory_order_relaxed);
  /* The next region may also need a larger slots[]: at a join, read the array before the store
     (the leader keeps an array it outgrows until shutdown). Not in a barrier, where the leader
     cannot grow it: reading it there too cost the 2-thread barrier 0.22 -> 0.27 us (syncbench,
     6 interleaved runs). */
  struct lite_slot *const *join_slots = join ? pool->slots : NULL;
  atomic_store(join ? &slot->done : &slot->arrive, value);
  if (join)
    lite_cache_demote(slot); /* the leader reads done next (os.h, team.c lite_team_fork) */
  if (lite_unlikely(atomic_load(&pool->join_sleepers) != 0) &&
      others_arrived(pool, join ? join_slots : pool->slots, nthreads, slot, join, value)) {
    atomic_fetch_add(&pool->join_word, 1);
    lite_futex_wake(&pool->join_word, 1);
  }
}

void lite_barrier_arrive(struct lite_pool *pool, struct lite_slot *slot, uint32_t epoch)
{
  lite_slot_note_cpu(slot);
  arrive(pool, slot, false, epoch);
}

void lite_join_arrive(struct lite_pool *pool, struct lite_slot *slot, uint32_t gen)
{
  lite_slot_note_cpu(slot);
  arrive(pool, slot, true, gen);
}

/* Whether member i counts as arrived at barrier epoch. In a cancelled region a member may have
   gone straight to the end of the region: one that finished it counts as arrived, so that the
   members left behind in a barrier are not waiting for it forever (OpenMP lets a worksharing
   construct be met by only some threads once the region is cancelled). */
static bool member_arrived(struct lite_pool *pool, unsigned i, uint32_t epoch)
{
  struct lite_slot *slot = pool->slots[i];
  uint32_t seen = atomic_load_explicit(&slot->arrive, memory_order_acquire);
  /* In a team of two the other member may already have passed this barrier and arrived at the
     next one (it saw our arrival); it cannot get further without us. */
  if (seen == epoch || seen == ((epoch + 1) & LITE_EPOCH_MASK))
    return true;
  return atomic_load_explicit(&pool->team->cancelled, memory_order_relaxed) &&
         atomic_load_explicit(&slot->done, memory_order_acquire) ==
             atomic_load_explicit(&pool->gen, memory_order_relaxed);
}

/* Whether a waiter in a barrier may sleep: not while its team has a ready task to run. */
static bool tasks_ready(struct lite_pool *pool)
{
  return atomic_load(&pool->team->tasks.ready) != 0;
}

/* The leader waits for member i: poll within the wait budget (running the team's ready tasks,
   if any appear), then park on join_word. thr is NULL at the end of a region. */
static void wait_for_member(struct lite_thread *thr, struct lite_pool *pool, unsigned i,
                            uint32_t epoch)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  lite_waiter_watch_slot(&w, pool->slots[i]);
  while (!member_arrived(pool, i, epoch)) {
    if (thr != NULL && lite_tasks_help(thr, &pool->team->tasks)) {
      lite_waiter_init(&w);
      continue;
    }
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(&pool->join_sleepers);
    uint32_t seen = atomic_load(&pool->join_word);
    if (!member_arrived(pool, i, epoch) && !(thr != NULL && tasks_ready(pool)))
      lite_futex_wait(&pool->join_word, seen);
    lite_park_end(&pool->join_sleepers);
    lite_waiter_init(&w);
  }
  lite_waiter_end(&w);
}

void lite_barrier_gather(struct lite_thread *thr, struct lite_pool *pool, unsigned nthreads,
                         uint32_t epoch)
{
  lite_slot_note_cpu(pool->slots[0]);
  /* For last_to_arrive(): sequentially consistent, as the members' arrivals. */
  atomic_store(&pool->slots[0]->arrive, epoch);
  for (unsigned i = 1; i < nthreads; i++)
    if (atomic_load_explicit(&pool->slots[i]->arrive, memory_order_acquire) != epoch)
      wait_for_member(thr, pool, i, epoch);
  atomic_thread_fence(memory_order_acquire);
}

/* A task became ready: wake one thread parked in a barrier of the team, if any, to run it, and
   every member on call after the region's end. Each futex word is changed before its wake-up
   (the release word's bell count, which waiters that poll ignore; the join and call words, which
   are only counters): a waiter looks for a ready task, finds none, counts itself a sleeper and
   calls futex_wait with the word it read, and a wake-up between its look and its call, with the
   word unchanged, found nobody in the kernel's queue and was lost, so that a task that waits
   for another to start hung (tasks.c, part idle_memory, 4 threads under ThreadSanitizer with
   OMP_WAIT_POLICY=passive: 3 runs in 3). One in each place where one sleeps: a sleeper counted
   on release may be awake already (between its futex call and its count's decrement), and
   waking only there left the leader asleep in its gather while the team's other members each
   ran a task that waited for the next one to start (tasks.c, part steal, 3 threads: one run in
   three hung). */
void lite_barrier_poke(struct lite_pool *pool)
{
  if (atomic_load(&pool->release_sleepers) != 0) {
    uint32_t old = atomic_load(&pool->release), bell;
    do
      bell = (old + LITE_RELEASE_BELL_ONE) & LITE_RELEASE_BELL_MASK;
    while (!atomic_compare_exchange_weak(&pool->release, &old,
                                         (old & ~LITE_RELEASE_BELL_MASK) | bell));
    lite_futex_wake(&pool->release, 1);
  }
  if (atomic_load(&pool->join_sleepers) != 0) {
    atomic_fetch_add(&pool->join_word, 1);
    lite_futex_wake(&pool->join_word, 1);
  }
  if (atomic_load(&pool->tree_sleepers) != 0)
    lite_tree_poke(pool);
  lite_wake_on_call(pool);
}

void lite_wake_on_call(struct lite_pool *pool)
{
  if (atomic_load(&pool->gen_sleepers) != 0) {
    atomic_fetch_add(&pool->call_word, 1);
    lite_futex_wake(&pool->call_word, INT32_MAX);
  }
}

/* Publishes a barrier's release, keeping the cancellation bit if it is set. */
static void release(struct lite_pool *pool, uint32_t epoch)
{
  uint32_t old = atomic_load(&pool->release);
  while (!atomic_compare_exchange_weak(&pool->release, &old,
                                       epoch | (old & LITE_RELEASE_CANCELLED)))
    ;
  if (atomic_load(&pool->release_sleepers) != 0)
    lite_futex_wake(&pool->release, INT32_MAX);
}

/* Whether the calling member, just arrived at barrier epoch, finds every other member (the
   leader included) arrived too. Sequentially consistent loads after its own arrival's store: of
   two members arriving last together, at least one sees the other. No member can be past this
   barrier yet, since it needs the caller's arrival. */
static bool last_to_arrive(struct lite_pool *pool, unsigned nthreads, struct lite_slot *self,
                           uint32_t epoch)
{
  for (unsigned i = 0; i < nthreads; i++) {
    struct lite_slot *slot = pool->slots[i];
    if (slot != self && atomic_load(&slot->arrive) != epoch)
      return false;
  }
  return true;
}

/* A member waits for the leader's release of epoch (the cancellation bit aside), running the
   team's ready tasks if any appear meanwhile. */
static void wait_for_release(struct lite_thread *thr, struct lite_pool *pool, uint32_t epoch)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  lite_waiter_watch(&w, &pool->slots[0]->cpu);
  for (;;) {
    uint32_t seen = atomic_load_explicit(&pool->release, memory_order_acquire);
    if ((seen & LITE_EPOCH_MASK) == epoch)
      return;
    if (lite_tasks_help(thr, &pool->team->tasks)) {
      lite_waiter_init(&w);
      continue;
    }
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(&pool->release_sleepers);
    if (atomic_load(&pool->release) == seen && !tasks_ready(pool))
      lite_futex_wait(&pool->release, seen);
    lite_park_end(&pool->release_sleepers);
    lite_waiter_init(&w);
  }
}

/* The leader's end of a cancelled region: members still in a barrier of the region are
   released once every member that has not finished is waiting in that same barrier. */
static bool release_stragglers(struct lite_pool *pool, unsigned nthreads, uint32_t gen)
{
  uint32_t epoch = 0;
  bool waiting = false;
  for (unsigned i = 1; i < nthreads; i++) {
    struct lite_slot *slot = pool->slots[i];
    if (atomic_load(&slot->done) == gen)
      continue;
    uint32_t arrived = atomic_load(&slot->arrive);
    if ((atomic_load(&pool->release) & LITE_EPOCH_MASK) == arrived)
      return false; /* running: it passed its last barrier */
    if (waiting && arrived != epoch)
      return false;
    epoch = arrived;
    waiting = true;
  }
  if (waiting)
    release(pool, epoch);
  return waiting;
}

void lite_join_gather(struct lite_thread *thr, struct lite_pool *pool, unsigned nthreads,
                      uint32_t gen)
{
  lite_slot_note_cpu(pool->slots[0]);
  if (lite_unlikely(atomic_load_explicit(&pool->team->cancelled, memory_order_relaxed))) {
    /* A member may wait for the leader in a barrier of a team of two (lite_barrier_wait):
       the leader that went to the end of a cancelled region counts as arrived. */
    atomic_store(&pool->slots[0]->done, gen);
    atomic_fetch_add(&pool->join_word, 1);
    lite_futex_wake(&pool->join_word, INT32_MAX);
  }
  for (unsigned i = 1; i < nthreads; i++) {
    _Atomic uint32_t *word = &pool->slots[i]->done;
    struct lite_waiter w;
    lite_waiter_init(&w);
    lite_waiter_watch_slot(&w, pool->slots[i]);
    while (atomic_load_explicit(word, memory_order_acquire) != gen) {
      if (lite_unlikely(atomic_load_explicit(&pool->team->cancelled, memory_order_relaxed)) &&
          release_stragglers(pool, nthreads, gen))
        lite_waiter_init(&w);
      /* A member still in the region may make tasks: the leader, waiting in the region's last
         barrier, runs them as any member waiting in a barrier does. */
      if (lite_tasks_help(thr, &pool->team->tasks)) {
        lite_waiter_init(&w);
        continue;
      }
      if (lite_waiter_poll(&w))
        continue;
      lite_park_begin(&pool->join_sleepers);
      uint32_t seen = atomic_load(&pool->join_word);
      if (atomic_load(word) != gen && !atomic_load(&pool->team->cancelled) && !tasks_ready(pool))
        lite_futex_wait(&pool->join_word, seen);
      lite_park_end(&pool->join_sleepers);
      lite_waiter_init(&w);
    }
    lite_waiter_end(&w);
  }
  atomic_thread_fence(memory_order_acquire);
}

void lite_barrier_wait(struct lite_thread *thr)
{
  /* Every task of the team completes at a barrier. A thread runs them before it arrives: one
     that arrives to find none left cannot be needed for them, since only tasks make tasks. */
  lite_tasks_drain(thr);
  struct lite_team *team = thr->team;
  if (team == NULL || team->pool == NULL)
    return; /* a team of one, or a small combined loop run by thread 0 alone */
  struct lite_pool *pool = team->pool;
  uint32_t epoch = ++thr->bar_epoch & LITE_EPOCH_MASK;
  if (team->nthreads == 2) {
    /* One transfer instead of two in a row: syncbench barrier at 2 threads, 5 interleaved
       runs, 0.16-0.20 us with gather and release, 0.11-0.13 us this way (LLVM 0.18-0.21). */
    unsigned other = 1 - thr->id;
    lite_barrier_arrive(pool, pool->slots[thr->id], epoch);
    if (!member_arrived(pool, other, epoch))
      wait_for_member(thr, pool, other, epoch);
    atomic_thread_fence(memory_order_acquire);
    lite_lines_touched(2); /* its arrival line, which the other read last; the other's */
  } else if (lite_unlikely(team->tree != NULL)) {
    lite_tree_barrier(thr, pool, team->tree, epoch); /* many members, or several L3 caches */
  } else if (thr->id == 0) {
    lite_barrier_gather(thr, pool, team->nthreads, epoch);
    release(pool, epoch);
    lite_lines_touched(team->nthreads); /* every other arrival line, the release line */
    lite_team_balance(pool, team->nthreads);
  } else {
    struct lite_slot *slot = pool->slots[thr->id];
    lite_barrier_arrive(pool, slot, epoch);
    lite_balance_take_request(slot); /* the leader balances after it releases: see balance.c */
    /* With more members than CPUs, the last member to arrive releases the others itself: the
       leader may be waiting for its turn on a CPU, and the others for it. syncbench, 3
       interleaved runs of 7 samples: 4 threads on 2 CPUs, barrier 5.5-9.8 -> 3.9-4.7 us and
       single 6.1-7.5 -> 3.8-4.6; 16 threads, barrier 33-53 -> 22-37. The leader's release,
       later, stores the same epoch again. Not in a cancelled region, where arrivals count
       differently (member_arrived). */
    if (team->nthreads > lite_env.ncpus &&
        !atomic_load_explicit(&team->cancelled, memory_order_relaxed) &&
        last_to_arrive(pool, team->nthreads, slot, epoch)) {
      release(pool, epoch);
      lite_lines_touched(team->nthreads); /* as the leader's gather and release */
    } else {
      wait_for_release(thr, pool, epoch);
      lite_lines_touched(2); /* its arrival line, which the leader read last; the release */
    }
    atomic_thread_fence(memory_order_acquire);
  }
  lite_lines_barrier_end(team->nthreads);
  /* Every member has finished every worksharing construct it met before this barrier (or the
     whole region, if cancelled): their ring entries are free (work.c claim). */
  thr->ws_done = thr->ws_count;
}

/* The profiled barrier, out of line: with its call inline, the plain path took a stack frame,
   and the 2-thread barrier read 0.081 -> 0.0875 us (10 interleaved processes, medians). */
static __attribute__((noinline, cold)) void barrier_profiled(const void *site)
{
  lite_prof_barrier(lite_self(), site);
}

void GOMP_barrier(void)
{
  if (lite_ompt_on()) {
    lite_ompt_barrier(lite_self(), ompt_sync_region_barrier_explicit,
                      __builtin_return_address(0));
    return;
  }
  if (lite_prof_on()) {
    barrier_profiled(__builtin_return_address(0));
    return;
  }
  lite_barrier_wait(lite_self());
}

/* ----------------------------------------------------------------------- cancellable barrier */

/* Waits for every member's arrival, or for the region's cancellation. */
static bool gather_or_cancel(struct lite_pool *pool, struct lite_team *team, unsigned nthreads,
                             uint32_t epoch)
{
  for (unsigned i = 1; i < nthreads; i++) {
    struct lite_waiter w;
    lite_waiter_init(&w);
    while (!member_arrived(pool, i, epoch)) {
      if (atomic_load(&team->cancelled))
        return true;
      if (lite_waiter_poll(&w))
        continue;
      lite_park_begin(&pool->join_sleepers);
      uint32_t seen = atomic_load(&pool->join_word);
      if (!member_arrived(pool, i, epoch) && !atomic_load(&team->cancelled))
        lite_futex_wait(&pool->join_word, seen);
      lite_park_end(&pool->join_sleepers);
      lite_waiter_init(&w);
    }
  }
  return false;
}

bool lite_barrier_wait_cancel(struct lite_thread *thr)
{
  lite_tasks_drain(thr);
  struct lite_team *team = thr->team;
  if (team == NULL || team->pool == NULL)
    return team != NULL && atomic_load(&team->cancelled);
  struct lite_pool *pool = team->pool;
  uint32_t epoch = ++thr->bar_epoch & LITE_EPOCH_MASK;
  if (thr->id == 0) {
    if (gather_or_cancel(pool, team, team->nthreads, epoch))
      return true;
    release(pool, epoch);
    return atomic_load(&team->cancelled);
  }
  lite_barrier_arrive(pool, pool->slots[thr->id], epoch);
  struct lite_waiter w;
  lite_waiter_init(&w);
  for (;;) {
    uint32_t seen = atomic_load_explicit(&pool->release, memory_order_acquire);
    if ((seen & LITE_RELEASE_CANCELLED) || atomic_load(&team->cancelled))
      return true;
    if ((seen & LITE_EPOCH_MASK) == epoch)
      return false;
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(&pool->release_sleepers);
    if (atomic_load(&pool->release) == seen)
      lite_futex_wait(&pool->release, seen);
    lite_park_end(&pool->release_sleepers);
    lite_waiter_init(&w);
  }
}

void lite_team_cancel(struct lite_thread *thr)
{
  struct lite_team *team = thr->team;
  if (team == NULL || atomic_exchange(&team->cancelled, true))
    return;
  struct lite_pool *pool = team->pool;
  if (pool == NULL)
    return;
  /* Changing the futex words wakes whoever sleeps in a cancellable barrier: members on the
     release word, the leader on the join word. */
  atomic_fetch_or(&pool->release, LITE_RELEASE_CANCELLED);
  lite_futex_wake(&pool->release, INT32_MAX);
  atomic_fetch_add(&pool->join_word, 1);
  lite_futex_wake(&pool->join_word, INT32_MAX);
}

bool GOMP_barrier_cancel(void)
{
  return lite_barrier_wait_cancel(lite_self());
}
