/* The warm team: per-thread state, the pools of persistent workers, fork and join.

   A thread that starts a parallel region at nesting level L leads the pool pools[L]: workers
   created once and kept, spinning then parked between regions. Fork publishes one region
   descriptor in the pool's dispatch line; join gathers the members' arrival words. Worker k of a
   pool is team member k in every region, so its caches (and later its binding) stay put. */
#include "internal.h"
#include "profile/profile.h"
#include "task_queue.h"
#include "ompt/ompt.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

LITE_THREAD_LOCAL struct lite_thread *lite_self_tls;

/* Runs lite_thread_release() when a user thread that used the runtime exits. The key must not
   outlive the library: a pthread that ran a dlopen'ed plugin's regions and exits after the
   dlclose ran this destructor from unmapped memory (SIGSEGV in __nptl_deallocate_tsd). So the
   library's destructor deletes it (lite_thread_key_delete); made again if the runtime is used
   after that (a later destructor of the exiting process). */
static pthread_key_t thread_exit_key;
static pthread_mutex_t thread_exit_key_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool thread_exit_key_live;

static void thread_exit(void *arg)
{
  struct lite_thread *thr = arg;
  if (lite_prof_on())
    lite_prof_thread_exit(); /* its sums go to the rows, its profile state goes */
  if (lite_ompt_on())
    lite_ompt_thread_end(thr);
  lite_kmpc_threadprivate_exit();
  lite_thread_release(thr);
  atomic_fetch_sub_explicit(&lite_threads_live, 1, memory_order_relaxed);
  lite_self_tls = NULL;
  free(thr->near);
  free(thr->shown);
  lite_home_free(thr, sizeof *thr);
}

static void make_thread_exit_key(void)
{
  pthread_mutex_lock(&thread_exit_key_lock);
  if (!atomic_load_explicit(&thread_exit_key_live, memory_order_relaxed) &&
      pthread_key_create(&thread_exit_key, thread_exit) == 0)
    atomic_store_explicit(&thread_exit_key_live, true, memory_order_release);
  pthread_mutex_unlock(&thread_exit_key_lock);
}

/* At unload: the threads still alive keep their state (a few hundred bytes each, not freed:
   nothing of the library runs in them any more). */
void lite_thread_key_delete(void)
{
  pthread_mutex_lock(&thread_exit_key_lock);
  if (atomic_load_explicit(&thread_exit_key_live, memory_order_relaxed)) {
    pthread_key_delete(thread_exit_key);
    atomic_store_explicit(&thread_exit_key_live, false, memory_order_relaxed);
  }
  pthread_mutex_unlock(&thread_exit_key_lock);
}

/* A thread's state, zeroed, or NULL without memory: on pages of its own, which its thread
   touches first (a worker's is allocated by its leader, which only passes the pointer on), so
   they are on its node (affinity/home.c). */
static struct lite_thread *thread_alloc(void)
{
  return lite_home_alloc(sizeof(struct lite_thread));
}

/* Makes thr (from thread_alloc) the calling thread's state. */
static struct lite_thread *thread_adopt(struct lite_thread *thr)
{
  thr->icv = lite_env.icv;
  lite_bind_thread_init(thr);
  lite_self_tls = thr;
  atomic_fetch_add_explicit(&lite_threads_live, 1, memory_order_relaxed);
  if (!atomic_load_explicit(&thread_exit_key_live, memory_order_acquire))
    make_thread_exit_key();
  if (atomic_load_explicit(&thread_exit_key_live, memory_order_acquire))
    pthread_setspecific(thread_exit_key, thr);
  return thr;
}

struct lite_thread *lite_thread_create_self(void)
{
  lite_init_once();
  lite_bind_ready();
  struct lite_thread *thr = thread_alloc();
  if (thr == NULL)
    lite_fatal("out of memory allocating thread state");
  thread_adopt(thr);
  lite_ompt_start_once(); /* a tool starts before the first thread-begin it would see */
  if (lite_ompt_on())
    lite_ompt_root_begin(thr);
  return thr;
}

/* ------------------------------------------------------------------------------- team size */

static void warn_clamped_once(unsigned requested)
{
  static _Atomic bool warned;
  if (!atomic_exchange(&warned, true))
    lite_warn("a team of %u threads was requested; using the maximum, %u", requested,
              LITE_MAX_TEAM_THREADS);
}

/* Threads of the contention group in teams right now, counted only when OMP_THREAD_LIMIT is set. */
static _Atomic unsigned threads_in_teams = 1;

void lite_team_after_fork(void) { atomic_store(&threads_in_teams, 1); }

/* num_threads(-3) reaches GOMP_parallel as 4294967293: a conforming program cannot pass a value
   that is not positive, and the clamp to LITE_MAX_TEAM_THREADS would start 4,096 threads for it.
   It is treated as no clause (nthreads-var), with one warning. */
static void warn_negative_once(unsigned requested)
{
  static _Atomic bool warned;
  if (!atomic_exchange(&warned, true))
    lite_warn("num_threads(%d) is not a positive number; using nthreads-var instead",
              (int)requested);
}

unsigned lite_team_size_for(struct lite_thread *thr, unsigned num_threads)
{
  unsigned active = thr->team != NULL ? thr->team->active_level : 0;
  if (active >= thr->icv.max_active_levels)
    return 1;
  if (lite_unlikely(num_threads > INT_MAX)) {
    warn_negative_once(num_threads);
    num_threads = 0;
  }
  unsigned n = num_threads != 0 ? num_threads : thr->icv.nthreads;
  if (thr->icv.dynamic && n > 1)
    n = lite_dynamic_threads(n);
  if (lite_unlikely(n > LITE_MAX_TEAM_THREADS)) {
    warn_clamped_once(n);
    n = LITE_MAX_TEAM_THREADS;
  }
  if (lite_unlikely(thr->icv.thread_limit != UINT32_MAX)) {
    unsigned busy = atomic_load_explicit(&threads_in_teams, memory_order_relaxed);
    unsigned room = thr->icv.thread_limit > busy ? thr->icv.thread_limit - busy + 1 : 1;
    if (n > room)
      n = room;
  }
  return n > 0 ? n : 1;
}

/* Takes places for the n - 1 new members of a team from the contention group's thread limit,
   as many as are left (OMP_THREAD_LIMIT counts every thread in a team at once, nested teams
   included). A compare-and-swap, not a check then an add: sibling teams forking at the same
   moment must not both take the last places. Returns the team size those places allow. */
static unsigned reserve_threads(unsigned limit, unsigned n)
{
  unsigned busy = atomic_load_explicit(&threads_in_teams, memory_order_relaxed);
  unsigned extra;
  do {
    unsigned room = limit > busy ? limit - busy : 0;
    extra = n - 1 < room ? n - 1 : room;
    if (extra == 0)
      return 1;
  } while (!atomic_compare_exchange_weak_explicit(&threads_in_teams, &busy, busy + extra,
                                                  memory_order_relaxed, memory_order_relaxed));
  return extra + 1;
}

/* ICVs of the implicit tasks of a new region at `level`, from the encountering task's. */
static void child_icv(struct lite_icv *child, const struct lite_icv *parent, unsigned level,
                      unsigned flags)
{
  *child = *parent;
  /* A proc_bind clause (the low bits of flags) becomes the region's bind-var, as in libgomp,
     unless binding is off or OMP_PROC_BIND names this level. */
  if (lite_unlikely((flags & 7) != 0) && parent->bind != omp_proc_bind_false)
    child->bind = (omp_proc_bind_t)(flags & 7);
  if (level < lite_env.nthreads_list_len)
    child->nthreads = lite_env.nthreads_list[level];
  if (level < lite_env.bind_list_len)
    child->bind = lite_env.bind_list[level];
}

/* ----------------------------------------------------------------------------------- pools */

struct worker_start {
  struct lite_pool *pool;
  unsigned id;
  uint32_t gen; /* the pool's generation when the worker was made: it waits for the next */
  struct lite_thread *thr; /* its state, allocated by the leader, which can shrink the team if
                              that fails (a worker cannot: OMP_NUM_THREADS=2,5000 ended in
                              "fatal: out of memory allocating thread state") */
};

/* A member's starting state in a new region: the same for the leader and the workers. */
static void start_member(struct lite_thread *thr, struct lite_pool *pool, unsigned id,
                         struct lite_task *implicit)
{
  lite_task_implicit_init(implicit);
  implicit->taskgroup = pool->team->reduction_group;
  thr->task = implicit;
  thr->team = pool->team;
  thr->num_teams = pool->team->num_teams;
  thr->team_num = pool->team->team_num;
  thr->id = id;
  thr->icv = pool->team->icv;
  thr->bar_epoch = pool->epoch;
  thr->single_count = pool->single_base;
  thr->ws = pool->first_ws;
  thr->ws_split = NULL;
  thr->ws_count = pool->ws_base + (pool->first_ws != NULL);
  thr->ws_done = pool->ws_base;
  thr->chunk_lo = thr->chunk_hi = 0;
  thr->tiny_start_ns = 0;
  /* The leader keeps its place; the partition its implicit task gets may be narrower (spread). */
  if (id != 0)
    lite_bind_member(thr, pool, id);
  else if (lite_unlikely(lite_binding.on))
    thr->partition = pool->assign[0].partition;
  if (lite_unlikely(lite_env.display_affinity))
    lite_bind_display(thr);
}

/* A member that has arrived at the end of region gen waits for the next region, and until it
   starts runs the region's tasks that other members, still inside, make. Without that, parallel
   + master (or single nowait) whose tasks come after a pause ran every task on their maker:
   the others had found no task, arrived and gone (40 tasks of ~1 ms in 5 batches at 2 threads,
   0 run by the other thread, 34 ms; libgomp, whose threads wait in the region's last barrier,
   33 and 21 ms). Tasks wake the members on call as they wake barrier waiters
   (lite_barrier_poke); the leader's gather runs them too. */
/* Waits watch the leader's CPU, as a worker's wait for the next region always has. */
static void wait_on_leader(struct lite_waiter *w, struct lite_pool *pool)
{
  lite_waiter_init(w);
  lite_waiter_watch(w, &pool->leader_slot->cpu);
}

/* A member awake ahead of a predicted fork spins until the fork, a task, or the end of the span
   the fork was expected in (end_ns), whichever comes first. */
static void wake_ahead_window(struct lite_pool *pool, struct lite_tasks *q, uint32_t gen,
                              uint64_t end_ns)
{
  for (unsigned polls = 1;; polls++) {
    if (atomic_load_explicit(&pool->gen, memory_order_acquire) != gen ||
        atomic_load_explicit(&q->ready, memory_order_relaxed) != 0)
      return;
    lite_cpu_relax();
    if (polls % 64 == 0 && lite_now_ns() >= end_ns)
      return;
  }
}

/* Whether another process may need the CPU that a member would spin on ahead of a fork: member
   1's look at the load as the gap began, or what the load watch knows now (wait.c). */
static bool gap_loaded(struct lite_pool *pool)
{
  return atomic_load_explicit(&pool->gap.loaded, memory_order_relaxed) ||
         lite_wake_ahead_loaded(lite_now_ns(), false);
}

static void stay_on_call(struct lite_thread *thr, struct lite_pool *pool, struct lite_team *team,
                         struct lite_task *implicit, uint32_t gen, struct lite_slot *slot,
                         unsigned id)
{
  struct lite_tasks *q = &team->tasks;
  struct lite_waiter w;
  wait_on_leader(&w, pool);
  /* Wake ahead (gap.c): with the next fork expected in a known span, the member sleeps until a
     lead before it (or spins its budget, when the span starts within it), spins until the fork
     or the span's end, and then parks untimed. */
  uint64_t wake_at = 0, span_end = 0;
  bool spun = false; /* the span was spun through: park untimed, without the budget again */
  bool told_gap = false;
  if (atomic_load_explicit(&pool->gap.until_ns, memory_order_relaxed) != 0) {
    uint64_t left = lite_now_ns();
    if (lite_gap_plan(&pool->gap, left, lite_env.spin_ns, &wake_at, &span_end) && id == 1) {
      /* The gap's start, for the leader's estimate; and the load watch's count, when stale,
         read here, off the fork's path (wait.c). */
      lite_gap_join(&pool->gap, left);
      told_gap = true;
      atomic_store_explicit(&pool->gap.loaded, lite_wake_ahead_loaded(left, true),
                            memory_order_relaxed);
    }
  }
  /* slot: the member's own, read by run_member while the region ran; pool->slots may be
     replaced now, as the leader grows the pool for its next region. */
  while (atomic_load_explicit(&pool->gen, memory_order_acquire) == gen) {
    lite_balance_take_request(slot);
    if (lite_unlikely(atomic_load_explicit(&q->ready, memory_order_relaxed) != 0)) {
      /* The member's own state again while it runs a task (its id never changed). */
      thr->team = team;
      thr->task = implicit;
      bool ran = lite_tasks_help_region(thr, q, gen);
      thr->team = NULL;
      thr->task = NULL;
      if (ran) {
        wait_on_leader(&w, pool); /* back to the plain policy: the gap is not a serial one */
        wake_at = span_end = 0;
        spun = false;
        continue;
      }
    }
    if (wake_at == 0 && !spun && lite_waiter_poll(&w))
      continue;
    if (wake_at == 0 && span_end != 0) {
      /* The budget is spent and the fork still expected: spin on until the span ends. (Back
         in lite_waiter_poll after it, the span's milliseconds read as a preempted spinner, and
         wake-ahead stopped for 20 ms: 38 of 114 random gaps parked.) */
      if (!gap_loaded(pool))
        wake_ahead_window(pool, q, gen, span_end);
      span_end = 0;
      spun = true;
      continue;
    }
    /* A worker idle past its spin gives back the task blocks it kept (task.c) as well as the
       CPU: its cache, and the blocks it made that others ran and gave back. Kept, they added
       up: 769 threads held 20 MiB after 2 minutes of tests/stress-soak.sh, growing (13.6 MiB
       flat without the cache). One free a block, only on the way to a futex sleep. */
    if (thr->task_cache != NULL)
      lite_task_cache_release(thr);
    lite_tq_free_returns(q, id);
    /* On call_word, which a ready task and the next region change before they wake us
       (lite_barrier_poke): pool->gen does not change for a task. */
    /* The gap's start for the leader's estimate (gap.c), once: the time this wait began. */
    if (id == 1 && lite_env.wake_ahead && !told_gap) {
      lite_gap_join(&pool->gap, w.start_ns != 0 ? w.start_ns : lite_now_ns());
      told_gap = true;
    }
    uint32_t bell = atomic_load(&pool->call_word);
    bool timed_out = false;
    lite_park_begin(&pool->gen_sleepers);
    if (atomic_load(&pool->gen) == gen && atomic_load(&q->ready) == 0) {
      if (wake_at != 0)
        timed_out = lite_futex_wait_until(&pool->call_word, bell, wake_at);
      else
        lite_futex_wait(&pool->call_word, bell);
    }
    lite_park_end(&pool->gen_sleepers);
    if (timed_out) {
      uint64_t now = lite_now_ns();
      lite_gap_woke_late(&pool->gap, now > wake_at ? now - wake_at : 0);
      if (!gap_loaded(pool))
        wake_ahead_window(pool, q, gen, span_end);
      wake_at = span_end = 0; /* once per gap: nothing came in the span, so park untimed */
    }
    spun = timed_out;
    wait_on_leader(&w, pool);
  }
}

static void run_member(struct lite_thread *thr, struct lite_pool *pool, unsigned id, uint32_t gen)
{
  lite_balance_take_request(pool->slots[id]); /* one the member did not see while it waited */
  struct lite_task implicit;
  start_member(thr, pool, id, &implicit);
  struct lite_team *team = thr->team;
  if (lite_prof_on())
    lite_prof_member_begin(pool);
  if (lite_ompt_on())
    lite_ompt_member_run(thr, pool->fn, pool->data);
  else
    pool->fn(pool->data);
  /* The implicit barrier at the end of the region: its tasks first, then arrive and go; the
     leader gathers. */
  lite_tasks_drain(thr);
  lite_task_implicit_end(&implicit);
  struct lite_slot *slot = pool->slots[id];
  if (lite_prof_on())
    lite_prof_member_end(slot);
  slot->ws_count = thr->ws_count;
  const struct lite_tree *tree = team->tree;
  struct lite_slot *parent = NULL;
  if (lite_unlikely(tree != NULL)) {
    lite_tree_join_wait(thr, pool, tree, id, gen);
    parent = pool->slots[tree->parent[id]];
  }
  thr->team = NULL;
  thr->task = NULL;
  if (lite_unlikely(tree != NULL))
    lite_tree_join_arrive(slot, parent, gen);
  else
    lite_join_arrive(pool, slot, gen);
  if (lite_ompt_on())
    lite_ompt_member_end(thr, &implicit, team, pool, gen);
  stay_on_call(thr, pool, team, &implicit, gen, slot, id);
}

/* A worker between regions spins on gen for its budget, then sleeps on its own slot's bell
   rather than on gen: a fork then wakes only the members of the new team, and not all from
   the leader's thread. The leader rings its children, each member its own as it starts (the
   tree of the team's barrier, or a heap of WAKE_FANOUT by member number), so waking 255
   sleepers costs the leader WAKE_FANOUT system calls, and the wake-ups run down the tree in
   parallel; one futex word for all cost the leader one call that woke every sleeper in turn,
   members of the new team or not. */
#define WAKE_FANOUT 4

static void ring_idle(struct lite_slot *slot)
{
  if (atomic_load(&slot->idle) != 0) {
    atomic_fetch_add(&slot->bell, 1);
    lite_futex_wake(&slot->bell, 1);
  }
}

/* Member id of a region of n members (tree: its barrier's, or NULL) wakes its children if
   they sleep. After the store of gen, which a sleeper reads again after it counts itself idle:
   of the two, one sees the other. */
static void wake_children(struct lite_pool *pool, unsigned id, unsigned n,
                          const struct lite_tree *tree)
{
  if (atomic_load(&pool->idle_sleepers) == 0)
    return;
  if (tree != NULL) {
    for (unsigned k = tree->first[id]; k < tree->first[id + 1]; k++)
      ring_idle(pool->slots[tree->kids[k]]);
    return;
  }
  for (unsigned k = WAKE_FANOUT * id + 1; k <= WAKE_FANOUT * id + WAKE_FANOUT && k < n; k++)
    ring_idle(pool->slots[k]);
}

static void idle_wait(struct lite_pool *pool, struct lite_slot *slot, uint32_t seen)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  lite_waiter_watch(&w, &pool->leader_slot->cpu);
  while (atomic_load_explicit(&pool->gen, memory_order_acquire) == seen) {
    if (lite_waiter_poll(&w))
      continue;
    uint32_t bell = atomic_load(&slot->bell);
    lite_park_begin(&slot->idle);
    atomic_fetch_add(&pool->idle_sleepers, 1);
    while (atomic_load(&pool->gen) == seen) {
      lite_futex_wait(&slot->bell, bell);
      bell = atomic_load(&slot->bell);
    }
    atomic_fetch_sub(&pool->idle_sleepers, 1);
    lite_park_end(&slot->idle);
  }
  atomic_thread_fence(memory_order_acquire);
}

void lite_team_member_home(const struct lite_pool *pool, unsigned id, struct lite_thread *thr)
{
  lite_home_here(pool->slots[id], sizeof *pool->slots[id]);
  lite_home_here(thr, sizeof *thr);
  /* The pool's task queues (not const: a queue is made and taken under their lock) */
  struct lite_tasks *q = (struct lite_tasks *)&pool->team_storage.tasks;
  struct lite_member_q *mq = id != 0 ? lite_tq_member_queue(q, id) : NULL;
  lite_home_here(mq, sizeof *mq);
  lite_home_stack_here();
}

#define WORKER_TIMER_SLACK_NS 1000

static void *worker_main(void *arg)
{
  struct worker_start start = *(struct worker_start *)arg;
  free(arg);
  struct lite_pool *pool = start.pool;
  struct lite_thread *thr = thread_adopt(start.thr);
  thr->is_worker = true;
  if (lite_ompt_on())
    lite_ompt_worker_begin(thr);
  atomic_store_explicit(&pool->slots[start.id]->tid, lite_os_gettid(), memory_order_relaxed);
  struct lite_slot *slot = pool->slots[start.id]; /* the slot stays; slots[] may move */
  lite_team_member_home(pool, start.id, thr);
  /* Only the workers' own threads: a timed wake-up ahead of a fork (gap.c) would otherwise come
     up to the default 50 us late. Their other sleeps have no timer. */
  lite_os_timer_slack(WORKER_TIMER_SLACK_NS);
  uint32_t seen = start.gen;
  for (;;) {
    idle_wait(pool, slot, seen);
    /* Read the descriptor and make sure it belongs to the generation read (seqlock): a worker
       that was not a member of region gen may wake up after that region ended, while the leader
       is already writing the next region's fields. */
    uint32_t gen = atomic_load_explicit(&pool->gen, memory_order_acquire);
    uint32_t before = atomic_load_explicit(&pool->desc_gen, memory_order_acquire);
    bool quit = atomic_load_explicit(&pool->quit, memory_order_relaxed);
    unsigned nthreads = atomic_load_explicit(&pool->nthreads, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    uint32_t after = atomic_load_explicit(&pool->desc_gen, memory_order_relaxed);
    seen = gen;
    if (before != gen || after != gen)
      continue; /* region gen is over, without this worker */
    if (quit)
      break;
    if (start.id < nthreads) {
      wake_children(pool, start.id, nthreads, pool->team->tree);
      run_member(thr, pool, start.id, gen);
    }
  }
  return NULL;
}

static struct lite_pool *pool_create(struct lite_thread *leader, unsigned level)
{
  lite_before_first_team(leader);
  /* Without memory the region runs as a team of one (lite_team_fork gets NULL). */
  struct lite_pool *pool = aligned_alloc(LITE_CACHE_LINE, sizeof *pool);
  if (pool == NULL)
    return NULL;
  memset(pool, 0, sizeof *pool);
  pool->leader = leader;
  pool->level = level;
  pool->team_storage.pool = pool;
  pool->team_storage.tasks.pool = pool;
  pool->ring = aligned_alloc(LITE_CACHE_LINE, LITE_WS_RING * sizeof *pool->ring);
  if (pool->ring == NULL) {
    free(pool);
    return NULL;
  }
  memset(pool->ring, 0, LITE_WS_RING * sizeof *pool->ring);
  for (unsigned k = 0; k < LITE_WS_RING; k++) {
    pool->ring[k].pool = pool;
    pool->ring[k].ring_index = k;
  }
  pool->team_storage.ring = pool->ring;
  pool->team_storage.ring_mask = LITE_WS_RING - 1;
  lite_registry_add(pool);
  return pool;
}

/* Makes slots[] and threads[] at least n long (a power of two). The old slots[] is retired, not
   freed: the member that arrives last at a join may still be reading it while the leader grows
   the pool for its next region (barrier.c, arrive). */
static bool grow_arrays(struct lite_pool *pool, unsigned n)
{
  unsigned len = pool->slots_len ? pool->slots_len : 4;
  while (len < n)
    len *= 2;
  pthread_t *threads = realloc(pool->threads, len * sizeof *threads);
  if (threads == NULL)
    return false;
  pool->threads = threads;
  struct lite_slot **slots = calloc(len, sizeof *slots);
  if (slots == NULL)
    return false;
  if (pool->slots != NULL) {
    memcpy(slots, pool->slots, pool->slots_len * sizeof *slots);
    pool->retired_slots[pool->nretired++] = pool->slots;
  }
  pool->slots = slots;
  pool->slots_len = len;
  return true;
}

static bool pool_reserve(struct lite_pool *pool, unsigned n)
{
  if (n <= pool->capacity)
    return true;
  if (n > pool->slots_len && !grow_arrays(pool, n))
    return false;
  while (pool->capacity < pool->slots_len) {
    /* Zeroed pages of its own, which its worker moves to its node (lite_team_member_home). */
    struct lite_slot *slot = lite_home_alloc(sizeof *slot);
    if (slot == NULL)
      break;
    pool->slots[pool->capacity++] = slot;
  }
  if (pool->leader_slot == NULL && pool->capacity > 0) /* written once: idle workers read it */
    pool->leader_slot = pool->slots[0];
  return n <= pool->capacity;
}

/* A thread that cannot be started (a process or pids limit, memory) usually cannot be started
   at the next region either: trying at every region cost a pthread_create and a warning each
   (2,004 warnings in 2,000 regions under prlimit --nproc). So the first failure warns, once
   for the process, and no pool tries to start a thread for START_BACKOFF_MIN_NS; each failure
   in a row doubles that, up to START_BACKOFF_MAX_NS, and a success resets it. Meanwhile teams
   get the workers their pools have: the results stay right, with fewer threads. */
#define START_BACKOFF_MIN_NS 10000000ull
#define START_BACKOFF_MAX_NS 10000000000ull
static _Atomic uint64_t start_retry_ns;   /* no thread is started before then */
static _Atomic uint64_t start_backoff_ns; /* the last wait set; 0 after a success */

static void start_failed(unsigned id, unsigned n, int err)
{
  static _Atomic bool warned;
  uint64_t backoff = atomic_load_explicit(&start_backoff_ns, memory_order_relaxed);
  backoff = backoff < START_BACKOFF_MIN_NS ? START_BACKOFF_MIN_NS
            : backoff * 2 > START_BACKOFF_MAX_NS ? START_BACKOFF_MAX_NS
                                                 : backoff * 2;
  atomic_store_explicit(&start_backoff_ns, backoff, memory_order_relaxed);
  atomic_store_explicit(&start_retry_ns, lite_now_ns() + backoff, memory_order_relaxed);
  if (!atomic_exchange(&warned, true))
    lite_warn("could not start thread %u of a team of %u (%s); teams get the threads that could "
              "be started, and more are tried again now and then", id, n,
              err > 0 ? strerror(err) : "out of memory");
}

/* Makes sure workers 1..n-1 exist; returns how many members the pool can run (n or fewer). */
static unsigned pool_grow(struct lite_pool *pool, unsigned n)
{
  if (n - 1 <= pool->nworkers)
    return n;
  if (lite_unlikely(atomic_load_explicit(&start_retry_ns, memory_order_relaxed) != 0) &&
      lite_now_ns() < atomic_load_explicit(&start_retry_ns, memory_order_relaxed))
    return pool->nworkers + 1;
  if (!pool_reserve(pool, n))
    n = pool->capacity;
  while (pool->nworkers + 1 < n) {
    unsigned id = pool->nworkers + 1;
    struct worker_start *start = malloc(sizeof *start);
    struct lite_thread *thr = start != NULL ? thread_alloc() : NULL;
    int err = thr == NULL ? -1 : 0;
    if (thr != NULL) {
      *start = (struct worker_start){pool, id, atomic_load(&pool->gen), thr};
      /* A new slot must not look arrived at any epoch or generation the pool will use. */
      atomic_store(&pool->slots[id]->arrive, pool->epoch);
      atomic_store(&pool->slots[id]->done, atomic_load(&pool->gen));
      err = lite_os_thread_start(&pool->threads[id], lite_env.stacksize, worker_main, start);
    }
    if (err != 0) {
      lite_home_free(thr, sizeof *thr);
      free(start);
      start_failed(id, n, err);
      return id;
    }
    pool->nworkers = id;
  }
  if (lite_unlikely(atomic_load_explicit(&start_backoff_ns, memory_order_relaxed) != 0)) {
    atomic_store_explicit(&start_backoff_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&start_retry_ns, 0, memory_order_relaxed);
  }
  return n;
}

void lite_pool_shutdown(struct lite_pool *pool)
{
  lite_registry_remove(pool);
  uint32_t next_gen = atomic_load(&pool->gen) + 1;
  atomic_store(&pool->desc_gen, next_gen);
  atomic_store_explicit(&pool->quit, true, memory_order_relaxed);
  atomic_store(&pool->gen, next_gen);
  for (unsigned i = 1; i <= pool->nworkers; i++)
    ring_idle(pool->slots[i]);
  lite_wake_on_call(pool);
  for (unsigned i = 1; i <= pool->nworkers; i++)
    pthread_join(pool->threads[i], NULL);
  for (unsigned i = 0; i < pool->capacity; i++)
    lite_home_free(pool->slots[i], sizeof *pool->slots[i]);
  for (unsigned i = 0; i < LITE_WS_RING; i++) {
    free(pool->ring[i].ranges);
    free(pool->ring[i].mem);
    free(pool->ring[i].posted);
    free(pool->ring[i].inner_counts);
  }
  free(pool->ring);
  free(pool->slots);
  for (unsigned i = 0; i < pool->nretired; i++)
    free(pool->retired_slots[i]);
  free(pool->threads);
  free(pool->assign);
  lite_tree_free(&pool->tree);
  lite_tasks_retire(&pool->team_storage.tasks);
  free(pool);
}

void lite_thread_release(struct lite_thread *thr)
{
  for (unsigned level = 0; level < thr->npools; level++)
    if (thr->pools[level] != NULL)
      lite_pool_shutdown(thr->pools[level]);
  free(thr->pools);
  thr->pools = NULL;
  thr->npools = 0;
  for (unsigned level = 0; level < thr->nsolo; level++) {
    if (thr->solo[level] != NULL) {
      free(thr->solo[level]->ranges);
      free(thr->solo[level]->mem);
      free(thr->solo[level]->posted);
      free(thr->solo[level]->inner_counts);
      free(thr->solo[level]);
    }
  }
  free(thr->solo);
  thr->solo = NULL;
  thr->nsolo = 0;
  lite_task_cache_release(thr);
}

static struct lite_pool *pool_for_level(struct lite_thread *thr, unsigned level)
{
  if (lite_likely(level < thr->npools && thr->pools[level] != NULL))
    return thr->pools[level];
  if (level >= thr->npools) {
    struct lite_pool **pools = realloc(thr->pools, (level + 1) * sizeof *pools);
    if (pools == NULL)
      return NULL;
    memset(pools + thr->npools, 0, (level + 1 - thr->npools) * sizeof *pools);
    thr->pools = pools;
    thr->npools = level + 1;
  }
  thr->pools[level] = pool_create(thr, level);
  return thr->pools[level];
}

/* ------------------------------------------------------------------------------ fork, join */

/* Makes team the encountering thread's innermost team, as thread 0, saving what it had. */
static void save_state(struct lite_thread *thr, struct lite_team *team)
{
  team->saved_icv = thr->icv;
  team->saved_bar_epoch = thr->bar_epoch;
  team->saved_single_count = thr->single_count;
  team->saved_ws = thr->ws;
  team->saved_ws_split = thr->ws_split;
  team->saved_ws_count = thr->ws_count;
  team->saved_ws_done = thr->ws_done;
  team->saved_chunk_lo = thr->chunk_lo;
  team->saved_chunk_hi = thr->chunk_hi;
  team->saved_task = thr->task;
  team->saved_partition = thr->partition;
}

static void leave_team(struct lite_thread *thr, struct lite_team *team)
{
  thr->team = team->parent;
  thr->id = team->parent_id;
  thr->icv = team->saved_icv;
  thr->bar_epoch = team->saved_bar_epoch;
  thr->single_count = team->saved_single_count;
  thr->ws = team->saved_ws;
  thr->ws_split = team->saved_ws_split;
  thr->ws_count = team->saved_ws_count;
  thr->ws_done = team->saved_ws_done;
  thr->chunk_lo = team->saved_chunk_lo;
  thr->chunk_hi = team->saved_chunk_hi;
  thr->task = team->saved_task;
  thr->partition = team->saved_partition;
}

/* Fills in a team's description. A pool's team (fresh false) is rewritten only where a field
   changes, since its idle workers poll the line; a team of one (fresh true) lives in the
   encountering thread's frame or in new memory, and comparing its never-set fields read
   uninitialised memory (some 14,000 valgrind errors in a 3-thread nesting stress). */
#define DESCRIBE(field, value)                                                                  \
  do {                                                                                          \
    if (fresh)                                                                                  \
      team->field = (value);                                                                    \
    else                                                                                        \
      LITE_SET_IF_CHANGED(team->field, (value));                                                \
  } while (0)
static void describe_team(struct lite_team *team, struct lite_thread *thr, unsigned nthreads,
                          unsigned flags, bool fresh)
{
  struct lite_team *parent = thr->team;
  unsigned level = parent != NULL ? parent->level : 0;
  unsigned active = parent != NULL ? parent->active_level : 0;
  DESCRIBE(nthreads, nthreads);
  DESCRIBE(level, level + 1);
  DESCRIBE(active_level, nthreads > 1 ? active + 1 : active);
  DESCRIBE(parent, parent);
  DESCRIBE(parent_id, thr->id);
  DESCRIBE(num_teams, thr->num_teams);
  DESCRIBE(team_num, thr->team_num);
  /* parallel reduction(task, ...): the per-thread copies are made for the final team size. */
  struct lite_taskgroup *group = thr->next_reduction_group;
  if (lite_unlikely(group != NULL)) {
    thr->next_reduction_group = NULL;
    lite_task_reductions_register(group->reductions, NULL, NULL, nthreads);
  }
  DESCRIBE(reduction_group, group);
  if (fresh) {
    child_icv(&team->icv, &thr->icv, level + 1, flags);
    return;
  }
  struct lite_icv icv;
  memset(&icv, 0, sizeof icv); /* its padding too: memcmp reads it */
  child_icv(&icv, &thr->icv, level + 1, flags);
  if (memcmp(&icv, &team->icv, sizeof icv) != 0)
    team->icv = icv;
}
#undef DESCRIBE

/* The leader learns the gap that ends here, which followed the last region (pool->fn), and tells
   the members whether to sleep through the one after region fn. A pool with no site ready and
   no member parked pays nothing: no clock, no table. The load watch is asked what it knows,
   without a count (member 1 counts as the gap starts, and each member looks at that verdict
   again when its timer wakes it). */
static void gap_fork(struct lite_pool *pool, unsigned n, void (*fn)(void *))
{
  struct lite_gap *g = &pool->gap;
  if (atomic_load_explicit(&g->until_ns, memory_order_relaxed) == 0 &&
      atomic_load_explicit(&pool->gen_sleepers, memory_order_relaxed) == 0) {
    /* A gap's start left by member 1, parked and then woken for a task, is no gap's: dropped
       (on the line just read, so this costs back-to-back regions nothing). */
    if (atomic_load_explicit(&g->join_ns, memory_order_relaxed) != 0)
      atomic_store_explicit(&g->join_ns, 0, memory_order_relaxed);
    lite_gap_short(g, pool->fn);
    if (g->ready == 0)
      return;
  } else {
    lite_gap_learn(g, pool->fn, lite_now_ns(), lite_env.spin_ns);
  }
  bool allowed = lite_gap_allowed(&lite_env, atomic_load(&lite_threads_live), false) &&
                 n <= lite_env.ncpus;
  if (lite_gap_predict(g, fn, lite_env.spin_ns, allowed) != 0 &&
      lite_wake_ahead_loaded(lite_now_ns(), false))
    lite_gap_fork_cancel(g);
}

struct lite_team *lite_team_fork(struct lite_thread *thr, unsigned n, void (*fn)(void *), void *data,
                                 unsigned flags, lite_ws_setup_fn setup, void *setup_arg)
{
  if (lite_ompt_on())
    lite_ompt_parallel_announce(thr, n); /* first: its callback may start regions in this pool */
  unsigned level = thr->team != NULL ? thr->team->level : 0;
  struct lite_pool *pool = pool_for_level(thr, level);
  if (pool == NULL)
    return NULL;
  bool limited = lite_unlikely(thr->icv.thread_limit != UINT32_MAX);
  if (limited && (n = reserve_threads(thr->icv.thread_limit, n)) < 2)
    return NULL;
  unsigned wanted = n;
  n = pool_grow(pool, n);
  if (lite_env.wake_ahead)
    gap_fork(pool, n, fn);
  if (limited && n < wanted)
    atomic_fetch_sub(&threads_in_teams, wanted - (n < 2 ? 1 : n));
  if (n < 2)
    return NULL;
  lite_bind_team(thr, pool, n, flags);
  const struct lite_tree *tree = lite_tree_pick(pool, n);

  /* Mark the descriptor as the next generation's before rewriting it (see worker_main): the
     writer's side of a seqlock, so a release fence orders the mark before the fields. */
  uint32_t next_gen = atomic_load_explicit(&pool->gen, memory_order_relaxed) + 1;
  atomic_store_explicit(&pool->desc_gen, next_gen, memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  struct lite_team *team = &pool->team_storage;
  describe_team(team, thr, n, flags, false);
  LITE_SET_IF_CHANGED(team->tree, tree);
  if (lite_unlikely(atomic_load_explicit(&team->cancelled, memory_order_relaxed))) {
    atomic_store(&team->cancelled, false);
    atomic_fetch_and(&pool->release, LITE_EPOCH_MASK);
  }
  pool->busy = true;
  /* The idle workers poll gen on the descriptor's line: each field is stored only when it
     changes, so that a repeated region writes the line twice (desc_gen, gen). */
  if (atomic_load_explicit(&pool->nthreads, memory_order_relaxed) != n)
    atomic_store_explicit(&pool->nthreads, n, memory_order_relaxed);
  LITE_SET_IF_CHANGED(pool->fn, fn);
  LITE_SET_IF_CHANGED(pool->data, data);
  LITE_SET_IF_CHANGED(pool->team, team);
  unsigned single_base = atomic_load_explicit(&team->single_ticket, memory_order_relaxed);
  LITE_SET_IF_CHANGED(pool->single_base, single_base);
  if (setup != NULL) {
    /* A combined construct: its worksharing entry is ready before anyone looks for it. Every
       entry is free here, since the previous region's members have all left. */
    struct lite_ws *ws = &pool->ring[(pool->ws_base + 1) & (LITE_WS_RING - 1)];
    atomic_store_explicit(&ws->ticket, (uint32_t)(pool->ws_base + 1), memory_order_relaxed);
    ws->nthreads = n;
    setup(ws, setup_arg);
    lite_ws_ready(ws);
    LITE_SET_IF_CHANGED(pool->first_ws, ws);
  } else if (pool->first_ws != NULL) {
    pool->first_ws = NULL;
  }
  if (lite_prof_on())
    lite_prof_fork_publish(pool);
  if (lite_ompt_on())
    lite_ompt_parallel_begin(thr, team, n); /* the announced data, before any member starts */
  atomic_store(&pool->gen, next_gen);
  wake_children(pool, 0, n, tree);
  lite_wake_on_call(pool); /* members still on call from the last region */
  /* The workers read the line next. With the join's demote (barrier.c arrive), 14 interleaved
     processes at 2 threads: parallel 0.306 -> 0.281 us, reduction 0.384 -> 0.321 (medians). */
  lite_cache_demote(&pool->gen);
  /* And the region's data, which the encountering thread has just written on its stack: the
     workers read it right after gen, a second transfer in a row. A body that reads one captured
     variable cost 0.08-0.27 us more than an empty region without this, 0.02-0.1 with it (8
     processes each); loopbench tiny-var 0.545 -> 0.292 us, tiny-static 0.836 -> 0.619 (8
     interleaved processes at 2 threads). Demoted before gen's store instead, the data cost the
     leader a refetch on its way to gen: 0.1-0.3 us slower regions. */
  if (data != NULL)
    lite_cache_demote(data);

  save_state(thr, team);
  start_member(thr, pool, 0, &team->leader_task);
  if (lite_ompt_on())
    lite_ompt_implicit_begin(thr);
  return team;
}

void lite_team_join(struct lite_thread *thr)
{
  struct lite_team *team = thr->team;
  struct lite_pool *pool = team->pool;
  if (lite_ompt_on())
    lite_ompt_join_begin(thr);
  lite_tasks_drain(thr);
  lite_task_implicit_end(&team->leader_task);
  uint32_t gen = atomic_load_explicit(&pool->gen, memory_order_relaxed);
  if (lite_unlikely(team->tree != NULL))
    lite_tree_join_wait(thr, pool, team->tree, 0, gen);
  else
    lite_join_gather(thr, pool, team->nthreads, gen);
  if (lite_ompt_on())
    lite_ompt_join_done(pool, gen);
  lite_team_balance(pool, team->nthreads);
  /* The next region's barriers start past every epoch this one used. Members pass the same
     barriers and worksharing constructs, except when a cancelled region released some of them
     early: a tree team has no cancellation (barrier_tree.c), and the leader's own counts stand
     for all (reading every member's line here would undo the tree's gather). */
  uint32_t epoch = thr->bar_epoch;
  unsigned ws_count = thr->ws_count;
  for (unsigned i = 1; i < team->nthreads && team->tree == NULL; i++) {
    uint32_t seen = atomic_load_explicit(&pool->slots[i]->arrive, memory_order_relaxed);
    if ((int32_t)(seen - epoch) > 0)
      epoch = seen;
    if ((int)(pool->slots[i]->ws_count - ws_count) > 0)
      ws_count = pool->slots[i]->ws_count;
  }
  LITE_SET_IF_CHANGED(pool->epoch, epoch);
  LITE_SET_IF_CHANGED(pool->ws_base, ws_count);
  lite_tiny_join(pool);
  thr->tiny_start_ns = 0; /* a cancelled region may have skipped the end of a timed tiny loop */
  /* A cancelled region: members that jumped to its end skipped worksharing constructs others
     entered, so those entries still count them as inside. Everyone has left now. */
  if (lite_unlikely(atomic_load_explicit(&team->cancelled, memory_order_relaxed)))
    for (unsigned k = 0; k < LITE_WS_RING; k++)
      atomic_store_explicit(&pool->ring[k].left, 0, memory_order_relaxed);
  pool->busy = false;
  if (lite_unlikely(thr->icv.thread_limit != UINT32_MAX))
    atomic_fetch_sub(&threads_in_teams, team->nthreads - 1);
  leave_team(thr, team);
  if (lite_ompt_on())
    lite_ompt_parallel_end(thr, team, true);
}

void lite_team_enter_serial(struct lite_thread *thr, struct lite_team *team, unsigned nthreads,
                            unsigned flags)
{
  describe_team(team, thr, nthreads, flags, true);
  if (lite_ompt_on())
    lite_ompt_parallel_begin(thr, team, nthreads);
  team->pool = NULL;
  team->tree = NULL;
  atomic_init(&team->single_ticket, 0);
  atomic_init(&team->cancelled, false);
  team->copyprivate = NULL;
  team->ring = NULL;
  team->ring_mask = 0;
  memset(&team->tasks, 0, sizeof team->tasks);
  save_state(thr, team);
  lite_task_implicit_init(&team->leader_task);
  team->leader_task.taskgroup = team->reduction_group;
  thr->task = &team->leader_task;
  thr->team = team;
  thr->id = 0;
  thr->icv = team->icv;
  thr->bar_epoch = 0;
  thr->single_count = 0;
  thr->ws = thr->ws_split = NULL;
  thr->ws_count = thr->ws_done = 0;
  thr->chunk_lo = thr->chunk_hi = 0;
  if (lite_ompt_on())
    lite_ompt_implicit_begin(thr);
}

void lite_team_leave_serial(struct lite_thread *thr)
{
  struct lite_team *team = thr->team;
  lite_tasks_drain(thr);
  if (thr->team->leader_task.had_children) /* one may have been fulfilled by another thread */
    lite_tasks_retire(&thr->team->tasks);
  lite_task_implicit_end(&thr->team->leader_task);
  leave_team(thr, team);
  if (lite_ompt_on())
    lite_ompt_parallel_end(thr, team, false);
}
