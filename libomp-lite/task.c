/* Explicit tasks: task, taskwait, taskgroup, taskyield, depend and detach (OpenMP 5.2 §12).

   Every member of a team has its own queue of ready tasks (task_queue.c): a member pushes the
   tasks it makes at its own end and runs them from there, newest first; a member with nothing
   to do steals the oldest task of another member's queue, nearest members first. Threads run
   queued tasks at the task scheduling points where that cannot deadlock a conforming program:
   at barriers and at the end of the region (any task of the team), in taskwait (the waiting
   task's children), in taskgroup end (tasks of the group, and the waiting task's children), and
   while an undeferred task waits for its dependences (its siblings); always from their own
   queue first.

   Locks. No lock is shared by the whole team on the common path. A member queue's lock orders
   its list; a task's references, and the counts of a task's children and of a taskgroup's
   tasks, are atomic (the counts split in two lines: made and queued by their maker, done and
   taken by their runners, struct lite_task); the dependences among the children of a task
   (its table, their predecessor counts and successor lists, and the moment one of them with
   dependences completes) are under that task's own dep_lock. The team's lock (struct lite_tasks) is
   taken only to allocate a member's queue and for detached tasks (a task's end and
   omp_fulfill_event meet there). Lock order: the team's lock, then a dep_lock, then a member
   queue's lock.

   A task runs at once on the encountering thread, which waits for it to complete (undeferred),
   when its if clause is false or it is final or inside a final task; it still waits for its
   dependences first. In a team of one, or outside any parallel region, where no other thread
   could run it, a task whose dependences are met also runs at once, but a detached one completes
   only when its event is fulfilled, without the encountering thread waiting for that.
   Descriptors come from a per-thread cache of blocks (task_alloc), and a throttle runs new tasks
   at once when the creator's queue is long (throttled). bench/taskbench measures both against
   libgomp and LLVM's libomp. */
#include "internal.h"
#include "profile/profile.h"
#include "task_queue.h"
#include "ompt/ompt.h"

#include <stdlib.h>
#include <string.h>

/* gcc's flags argument of GOMP_task and GOMP_taskloop (gomp-constants.h). */
enum {
  TASK_FLAG_UNTIED = 1 << 0,
  TASK_FLAG_FINAL = 1 << 1,
  TASK_FLAG_MERGEABLE = 1 << 2,
  TASK_FLAG_DEPEND = 1 << 3,
  TASK_FLAG_DETACH = 1 << 13,
};

/* The kinds of depend clauses, as gcc encodes them in omp_depend_t objects. */
enum { DEPEND_IN = 1, DEPEND_OUT = 2, DEPEND_INOUT = 3, DEPEND_MUTEXINOUTSET = 4 };

static inline void q_lock(struct lite_tasks *q)
{
  lite_mutex_lock(&q->lock);
  lite_tq_count_touch();
}
static inline void q_unlock(struct lite_tasks *q) { lite_mutex_unlock(&q->lock); }

/* The lock of the dependences among p's children. */
static inline void dep_lock(struct lite_task *p)
{
  lite_mutex_lock(&p->dep_lock);
  lite_tq_count_touch();
}
static inline void dep_unlock(struct lite_task *p) { lite_mutex_unlock(&p->dep_lock); }

/* Under a lock that orders every change of *count: a load and a store; the store is a release,
   for a thread that reads the count without the lock. */
static inline unsigned locked_add(_Atomic unsigned *count, int delta)
{
  unsigned value = atomic_load_explicit(count, memory_order_relaxed) + (unsigned)delta;
  atomic_store_explicit(count, value, memory_order_release);
  return value;
}

static inline enum lite_task_state state_of(const struct lite_task *t)
{
  return __atomic_load_n(&t->state, __ATOMIC_ACQUIRE);
}
static inline void set_state(struct lite_task *t, enum lite_task_state state)
{
  __atomic_store_n(&t->state, state, __ATOMIC_RELEASE);
}

/* After a change a waiter may be waiting for (a task made ready, a task complete): the futex
   call only if someone sleeps, and gen is written only then, so that a team making and running
   tasks with nobody asleep shares no line for it but the read of sleepers. Threads parked in a
   barrier of the team sleep on its barrier words: a ready task wakes one of them to run it.
   The fence orders the change before the load of the sleeper counts, as a parker's
   lite_park_begin orders its count before its second look at what it waits for: one of the
   two sees the other. */
void lite_tasks_wake(struct lite_tasks *q)
{
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load_explicit(&q->sleepers, memory_order_relaxed) != 0) {
    atomic_fetch_add(&q->gen, 1);
    lite_futex_wake(&q->gen, INT32_MAX);
  }
  if (q->pool != NULL && atomic_load_explicit(&q->ready, memory_order_relaxed) != 0)
    lite_barrier_poke(q->pool);
}

/* One wake-up per task pushed is not enough when a thief moves tasks: a batch it puts in its
   own queue wakes one sleeper, and a thread that went to sleep while they were in no queue, or
   whose wake-up a woken thief used for another queue's task, slept on with tasks left in the
   queue of a member that ran a task waiting for them (tasks.c part steal, 256 threads on 2
   CPUs, 231 of 256 tasks started: 25 queued, 25 members asleep in the barrier, 1 run in 20).
   So each thief wakes the next while the team's ready count says tasks may be left; a thread
   woken for nothing settles the count and sleeps again. No fence: the thief's loads of ready
   and of the sleeper counts are sequentially consistent, and a parker counts itself before it
   reads ready, which a queue that holds tasks keeps above 0 (count_in): one of the two sees
   the other. */
void lite_tasks_pass_on(struct lite_tasks *q)
{
  if (q->pool != NULL && atomic_load(&q->ready) != 0)
    lite_barrier_poke(q->pool);
}

/* Whether thr is a member of the team whose tasks q holds (then it is member
   lite_tq_member(thr, q)): thr runs them, or made q as a team of one or outside any region. */
static bool is_member(const struct lite_thread *thr, const struct lite_tasks *q)
{
  return thr != NULL && (thr->team != NULL ? &thr->team->tasks == q : &thr->root_tasks == q);
}

static unsigned team_size(const struct lite_thread *thr)
{
  return thr->team != NULL && thr->team->pool != NULL ? thr->team->nthreads : 1;
}

/* ----------------------------------------------------------------------------- dependences */

struct dep {
  void *addr; /* NULL: omp_all_memory */
  int kind;
};

/* gcc's depend array: either {n, n_out, out..., in...} or {0, n, n_out, n_mutex, n_in, out...,
   mutexinoutset..., in..., omp_depend_t objects...}, where an omp_depend_t holds {addr, kind}. */
static unsigned count_deps(void **depend)
{
  return (unsigned)(uintptr_t)(depend[0] != NULL ? depend[0] : depend[1]);
}

static struct dep dep_at(void **depend, unsigned i)
{
  if (depend[0] != NULL) {
    unsigned nout = (unsigned)(uintptr_t)depend[1];
    return (struct dep){depend[2 + i], i < nout ? DEPEND_OUT : DEPEND_IN};
  }
  unsigned nout = (unsigned)(uintptr_t)depend[2], nmutex = (unsigned)(uintptr_t)depend[3];
  unsigned nin = (unsigned)(uintptr_t)depend[4];
  if (i < nout)
    return (struct dep){depend[5 + i], DEPEND_OUT};
  if (i < nout + nmutex)
    return (struct dep){depend[5 + i], DEPEND_MUTEXINOUTSET};
  if (i < nout + nmutex + nin)
    return (struct dep){depend[5 + i], DEPEND_IN};
  void **obj = depend[5 + i];
  int kind = (int)(uintptr_t)obj[1];
  if (kind < DEPEND_IN || kind > DEPEND_MUTEXINOUTSET)
    lite_fatal("a depend(depobj: ...) clause names an omp_depend_t of unknown kind %d", kind);
  return (struct dep){obj[0], kind};
}

static unsigned addr_hash(void *addr)
{
  uintptr_t a = (uintptr_t)addr;
  return (unsigned)((a >> 3) ^ (a >> 17));
}

static struct lite_dep_entry *dep_lookup(struct lite_dep_table *tab, void *addr, bool add)
{
  if (add && (tab->used + 1) * 2 > tab->cap) {
    unsigned cap = tab->cap != 0 ? tab->cap * 2 : 16;
    struct lite_dep_entry *slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
      lite_fatal("out of memory for task dependences");
    for (unsigned i = 0; i < tab->cap; i++) {
      if (tab->slots[i].addr == NULL)
        continue;
      unsigned j = addr_hash(tab->slots[i].addr) & (cap - 1);
      while (slots[j].addr != NULL)
        j = (j + 1) & (cap - 1);
      slots[j] = tab->slots[i];
    }
    free(tab->slots);
    tab->slots = slots;
    tab->cap = cap;
  }
  if (tab->cap == 0)
    return NULL;
  for (unsigned i = addr_hash(addr) & (tab->cap - 1);; i = (i + 1) & (tab->cap - 1)) {
    struct lite_dep_entry *e = &tab->slots[i];
    if (e->addr == addr)
      return e;
    if (e->addr == NULL) {
      if (!add)
        return NULL;
      e->addr = addr;
      tab->used++;
      return e;
    }
  }
}

static void free_dep_table(struct lite_dep_table *tab)
{
  if (tab == NULL)
    return;
  for (unsigned i = 0; i < tab->cap; i++)
    free(tab->slots[i].readers);
  free(tab->slots);
  free(tab);
}

/* succ may start only after pred completes. The first two successors go in the task itself:
   a chain of dependent tasks made by one thread and run by another (taskbench task-dep-chain,
   2 threads) called malloc at every link and free on the other thread, which then took the
   lock of the maker's arena: 5 % of the time in _int_malloc; 0.96 -> 0.66 us a task without
   (LLVM 1.75, libgomp 1.80; a 550 ns round trip). */
static void add_edge(struct lite_task *pred, struct lite_task *succ)
{
  if (pred == NULL || pred == succ || state_of(pred) == LITE_TASK_DONE)
    return;
  if (pred->succ == NULL) {
    pred->succ = pred->succ_inline;
    pred->succ_cap = 2;
  } else if (pred->nsucc == pred->succ_cap) {
    unsigned cap = pred->succ_cap * 2;
    bool was_inline = pred->succ == pred->succ_inline;
    struct lite_task **succs = realloc(was_inline ? NULL : pred->succ, cap * sizeof *succs);
    if (succs == NULL)
      lite_fatal("out of memory for task dependences");
    if (was_inline)
      memcpy(succs, pred->succ_inline, sizeof pred->succ_inline);
    pred->succ = succs;
    pred->succ_cap = cap;
  }
  pred->succ[pred->nsucc++] = succ;
  locked_add(&succ->npred, 1);
  if (lite_ompt_on())
    lite_ompt_task_dependence(pred, succ);
}

/* Per address, a writer follows every earlier reader and writer; a reader follows the last
   writer. mutexinoutset is ordered like inout, which keeps its mutual exclusion; omp_all_memory
   (a NULL address) follows every earlier sibling with a dependence, and every later one follows
   it. */
static void register_deps(struct lite_task *parent, struct lite_task *t, void **depend)
{
  if (parent->deps == NULL) {
    parent->deps = calloc(1, sizeof *parent->deps);
    if (parent->deps == NULL)
      lite_fatal("out of memory for task dependences");
  }
  struct lite_dep_table *tab = parent->deps;
  for (unsigned i = 0; i < t->ndeps; i++) {
    struct dep d = dep_at(depend, i);
    t->dep_addrs[i] = d.addr;
    if (d.addr == NULL) {
      /* omp_all_memory: after every sibling with a dependence; every later one after it. */
      for (unsigned k = 0; k < tab->cap; k++) {
        struct lite_dep_entry *e = &tab->slots[k];
        add_edge(e->last_out, t);
        for (unsigned r = 0; r < e->nreaders; r++)
          add_edge(e->readers[r], t);
      }
      add_edge(tab->all_memory, t);
      tab->all_memory = t;
      continue;
    }
    add_edge(tab->all_memory, t);
    struct lite_dep_entry *e = dep_lookup(tab, d.addr, true);
    add_edge(e->last_out, t);
    if (d.kind == DEPEND_IN) {
      if (e->nreaders == e->readers_cap) {
        unsigned cap = e->readers_cap != 0 ? e->readers_cap * 2 : 4;
        struct lite_task **readers = realloc(e->readers, cap * sizeof *readers);
        if (readers == NULL)
          lite_fatal("out of memory for task dependences");
        e->readers = readers;
        e->readers_cap = cap;
      }
      e->readers[e->nreaders++] = t;
    } else {
      for (unsigned r = 0; r < e->nreaders; r++)
        add_edge(e->readers[r], t);
      e->nreaders = 0;
      e->last_out = t;
    }
  }
}

/* A completing task leaves its parent's table, which names only incomplete tasks. */
static void unregister_deps(struct lite_task *t)
{
  struct lite_dep_table *tab = t->parent->deps;
  if (tab == NULL)
    return;
  if (tab->all_memory == t)
    tab->all_memory = NULL;
  for (unsigned i = 0; i < t->ndeps; i++) {
    struct lite_dep_entry *e = t->dep_addrs[i] != NULL ? dep_lookup(tab, t->dep_addrs[i], false)
                                                        : NULL;
    if (e == NULL)
      continue;
    if (e->last_out == t)
      e->last_out = NULL;
    for (unsigned r = 0; r < e->nreaders;) {
      if (e->readers[r] == t)
        e->readers[r] = e->readers[--e->nreaders];
      else
        r++;
    }
  }
}

/* ------------------------------------------------------------------------ life of a task */

static bool in_cancelled_group(const struct lite_taskgroup *g)
{
  for (; g != NULL; g = g->prev)
    if (atomic_load_explicit(&g->cancelled, memory_order_relaxed))
      return true;
  return false;
}

/* A task of a cancelled parallel region or taskgroup that has not started is discarded, unless
   its data was copy-constructed: only its body destroys those copies (C++ firstprivate). */
static bool discarded(struct lite_thread *thr, const struct lite_task *t)
{
  if (!lite_env.cancellation || t->copied)
    return false;
  return (thr->team != NULL && atomic_load(&thr->team->cancelled)) || in_cancelled_group(t->group);
}

/* ------------------------------------------------------------------------- task memory */

/* Task descriptors come from a per-thread cache of fixed-size blocks: a task whose descriptor,
   depend addresses and data block fit in LITE_TASK_BLOCK bytes (nearly all: gcc's data blocks
   are a few pointers) reuses a block freed before, with no malloc, and its data block sits
   inline after the descriptor. A block goes back to its maker: the maker frees it into its own
   cache (up to TASK_CACHE_MAX blocks, then to malloc); another thread (a thief, the last child
   of an included task, omp_fulfill_event) pushes it on the returns stack of the maker's member
   queue, which the maker takes whole when its cache runs dry. So where one member makes the
   tasks and others run them, the blocks go round between them with no malloc and no free, and
   the others keep none: before, each thief's cache filled with blocks it never drew from (up
   to 64 KiB a thread) while the maker called malloc for every task and the thieves' free took
   the lock of the maker's malloc arena (taskbench taskgroup, 2 threads: 13 % of the time in
   malloc and free, 2,300 futex calls a second). A team of one, or a task made outside any
   region, has no member queue that outlives the task: its blocks go to the cache of the thread
   that frees them, as before. The returns stacks are freed with the member queues (a pool's
   last region ended, so every block made in it was freed). */
#define LITE_TASK_BLOCK 512
#define TASK_CACHE_MAX 128

_Static_assert(sizeof(struct lite_task) + 16 * sizeof(void *) <= LITE_TASK_BLOCK,
               "a task block holds the descriptor, some depend addresses and data");
_Static_assert(offsetof(struct lite_task, kids_done) >=
                   offsetof(struct lite_task, kids_queued) + sizeof(unsigned) + 64,
               "a task's counts of its children written by others are on another line");

/* Puts block t in thr's cache, if thr has one with room. */
static bool cache_keep(struct lite_thread *thr, struct lite_task *t)
{
  if (thr == NULL || thr->task_cache_n >= TASK_CACHE_MAX)
    return false;
  t->next = thr->task_cache;
  thr->task_cache = t;
  thr->task_cache_n++;
  return true;
}

/* Moves the blocks other threads gave back to home into thr's cache (the excess over its
   bound to malloc). */
static void take_returns(struct lite_thread *thr, struct lite_member_q *home)
{
  struct lite_task *t = atomic_exchange_explicit(&home->returns, NULL, memory_order_acquire);
  while (t != NULL) {
    struct lite_task *next = t->next;
    if (!cache_keep(thr, t))
      free(t);
    t = next;
  }
}

/* A block of LITE_TASK_BLOCK bytes for thr, whose member queue is home (NULL: none). */
static struct lite_task *block_get(struct lite_thread *thr, struct lite_member_q *home)
{
  if (thr->task_cache == NULL && home != NULL &&
      atomic_load_explicit(&home->returns, memory_order_relaxed) != NULL)
    take_returns(thr, home);
  struct lite_task *t = thr->task_cache;
  if (t != NULL) {
    thr->task_cache = t->next;
    thr->task_cache_n--;
  } else if ((t = malloc(LITE_TASK_BLOCK)) == NULL)
    lite_fatal("out of memory creating a task");
  return t;
}

/* Gives block t back: to its maker's returns if another thread frees it, else to the cache of
   the calling thread (which may be no OpenMP thread: omp_fulfill_event), else to malloc. */
static void block_put(struct lite_task *t, struct lite_member_q *home,
                      const struct lite_thread *maker)
{
  struct lite_thread *thr = lite_self_tls;
  if (home != NULL && maker != thr) {
    struct lite_task *top = atomic_load_explicit(&home->returns, memory_order_relaxed);
    do
      t->next = top;
    while (!atomic_compare_exchange_weak_explicit(&home->returns, &top, t, memory_order_release,
                                                  memory_order_relaxed));
    return;
  }
  if (!cache_keep(thr, t))
    free(t);
}

/* With a tool attached, task blocks come from malloc and go back to free: a race detector
   (Archer) sees memory reuse only there. A block reused through the caches, written by its
   maker for a new task after another thread had read it for an old one, read as a race
   (tests/archer taskwait.c, clang-built: 15 runs in 20 with 2 reports). */
static bool block_cache_on(void) { return !lite_ompt_on(); }

static struct lite_task *task_alloc(struct lite_thread *thr, size_t size,
                                    struct lite_member_q *home)
{
  if (size <= LITE_TASK_BLOCK && block_cache_on()) {
    struct lite_task *t = block_get(thr, home);
    memset(t, 0, sizeof *t);
    t->cached = true;
    t->home = home;
    t->maker = thr;
    return t;
  }
  struct lite_task *t = malloc(size);
  if (t == NULL)
    lite_fatal("out of memory creating a task");
  memset(t, 0, sizeof *t);
  return t;
}

/* Called without the queue's lock, by any thread, including one that never used OpenMP
   (omp_fulfill_event): that one has no cache. */
static void task_release(struct lite_task *t)
{
  if (t->cached)
    block_put(t, t->home, t->maker);
  else
    free(t);
}

void *lite_task_block_get(size_t size, struct lite_block_home *where)
{
  struct lite_thread *thr = lite_self_tls;
  if (size > LITE_TASK_BLOCK || thr == NULL || !block_cache_on())
    return NULL;
  struct lite_tasks *q = lite_tasks_of(thr);
  bool solo = thr->team == NULL || thr->team->pool == NULL;
  where->home = solo ? NULL : lite_tq_own(q, lite_tq_member(thr, q));
  where->maker = thr;
  return block_get(thr, where->home);
}

void lite_task_block_put(void *block, const struct lite_block_home *where)
{
  block_put(block, where->home, where->maker);
}

void lite_task_cache_release(struct lite_thread *thr)
{
  while (thr->task_cache != NULL) {
    struct lite_task *t = thr->task_cache;
    thr->task_cache = t->next;
    free(t);
  }
  thr->task_cache_n = 0;
}

/* Drops one reference to t (see struct lite_task): the last one frees it, and drops the
   reference it held on its parent, and so on up. Implicit tasks live in their threads' state
   and are never freed. */
static void release_ref(struct lite_task *t)
{
  while (!t->implicit && atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1) {
    struct lite_task *parent = t->parent_ref ? t->parent : NULL;
    task_release(t);
    if (parent == NULL)
      return;
    t = parent;
  }
}

/* Counts one more task made or completed by member `me` of q (single writer: a plain increment
   with a sequentially consistent store, for lite_tq_idle). */
static void count_member(_Atomic unsigned long *counter)
{
  atomic_store(counter, atomic_load_explicit(counter, memory_order_relaxed) + 1);
}

/* t is complete (its body ran, its event, if any, was fulfilled), on thread thr: member me of
   q's team, or no member (me < 0: omp_fulfill_event from another thread, under q's lock). The
   successors its completion makes ready go to the completing member's queue (member 0's for
   another thread), where it takes its next task: a chain of dependent tasks stays on one thread
   while it has nothing else to do. With keep, the first of them goes to *keep instead, not
   queued: the caller runs it next, or queues it (keep_or_push). */
static void complete(struct lite_tasks *q, struct lite_task *t, int me, struct lite_task **keep)
{
  struct lite_task *p = t->parent;
  if (t->ndeps != 0) {
    unsigned nready = 0;
    dep_lock(p);
    set_state(t, LITE_TASK_DONE); /* no successor is added after this (add_edge) */
    unregister_deps(t);
    for (unsigned i = 0; i < t->nsucc; i++) {
      struct lite_task *s = t->succ[i];
      if (locked_add(&s->npred, -1) == 0 && state_of(s) == LITE_TASK_WAITING && !s->creator_owns)
        t->succ[nready++] = s;
    }
    dep_unlock(p);
    unsigned first = 0;
    if (keep != NULL && nready != 0)
      *keep = t->succ[first++];
    if (nready > first) {
      struct lite_member_q *mq = lite_tq_own(q, me >= 0 ? (unsigned)me : 0);
      for (unsigned i = first; i < nready; i++)
        lite_tq_push(q, mq, t->succ[i]);
    }
    if (t->succ != t->succ_inline)
      free(t->succ);
    t->succ = NULL;
    t->nsucc = t->succ_cap = 0;
  } else {
    set_state(t, LITE_TASK_DONE);
  }
  /* The group's count before the parent's: the group ends only in its task, after its tasks. */
  struct lite_taskgroup *g = t->group;
  if (g != NULL)
    atomic_fetch_add_explicit(&g->done, 1, memory_order_release);
  atomic_fetch_add_explicit(&p->kids_done, 1, memory_order_release);
  release_ref(t);
  lite_tq_count_op();
  /* Last, for t and p: a thread that sees the counts agree (the drain at a region's end) may
     end the region at once, and p, an implicit task, is then made again for the next one. */
  if (me >= 0)
    count_member(&lite_tq_own(q, (unsigned)me)->completed);
  else
    atomic_fetch_add(&q->foreign_completed, 1);
}

/* What a waiting thread waits for, which ready tasks it may run meanwhile (ok; NULL: any), and,
   without a lock, whether either may have changed (worth_a_look: read from words that only
   changes relevant to it write). */
struct wait_rule {
  bool (*done)(struct lite_tasks *q, void *arg);
  lite_tq_filter ok;
  bool (*worth_a_look)(struct lite_tasks *q, void *arg);
  /* ok accepts tasks that worth_a_look does not watch (a taskwait's deeper descendants): a
     spinning waiter looks again now and then while the team has a ready task. */
  bool looks_wider;
};

/* A ready task of q for thr (a member) that ok accepts: its own queue first, then stealing. */
static struct lite_task *take_for(struct lite_thread *thr, struct lite_tasks *q, lite_tq_filter ok,
                                  void *arg)
{
  return lite_tq_take(thr, q, lite_tq_member(thr, q), team_size(thr), ok, arg, ok == NULL);
}

/* Completes t's body; then returns the next task this thread runs: without a rule (a thread
   helping in a barrier), a successor t's completion made ready, if any; with one, if its wait is
   not over, such a successor if the rule lets this thread run it, else a task from its own
   queue first, where t's completion put the others. A successor run at once is never queued,
   so that nobody else takes it between its queueing and its completer's next look: a chain of
   dependent tasks then moved between the creator, waiting in a taskwait, and a thread in the
   barrier at every link (taskbench task-dep-chain at 2 threads, 0.54 -> 0.73 us a task, before
   the completer kept it). */
static struct lite_task *finish_body(struct lite_thread *thr, struct lite_task *t,
                                     const struct wait_rule *rule, void *arg)
{
  struct lite_tasks *q = t->queue;
  if (t->deps != NULL) {
    /* No sibling of its children can come now: their dependence table goes. */
    dep_lock(t);
    free_dep_table(t->deps);
    t->deps = NULL;
    dep_unlock(t);
  }
  bool detached = false;
  if (t->detach) {
    q_lock(q);
    if (!t->fulfilled) {
      set_state(t, LITE_TASK_DETACHED);
      detached = true;
    }
    /* Under the lock: once it is unlocked, omp_fulfill_event may complete and free t. */
    if (lite_ompt_on())
      lite_ompt_task_schedule(t, detached ? ompt_task_detach : ompt_task_complete, thr->task);
    q_unlock(q);
  }
  struct lite_task *next = NULL;
  unsigned me = lite_tq_member(thr, q);
  if (!detached)
    complete(q, t, (int)me, &next);
  lite_tasks_wake(q);
  bool more = rule == NULL || !rule->done(q, arg);
  if (next != NULL) {
    if (more && (rule == NULL || rule->ok == NULL || rule->ok(next, arg))) {
      set_state(next, LITE_TASK_RUNNING);
      lite_tq_count_op();
      return next;
    }
    lite_tq_push(q, lite_tq_own(q, me), next);
    lite_tasks_wake(q);
  }
  if (rule != NULL && more)
    return take_for(thr, q, rule->ok, arg);
  return NULL;
}

/* A task's body with the profile on, out of line so that run_body keeps its shape. */
static __attribute__((noinline, cold)) void run_fn_profiled(struct lite_thread *thr,
                                                            struct lite_task *t)
{
  uint64_t start = lite_prof_task_start(t->prof_site);
  t->fn(t->data);
  lite_prof_task_ran(t->prof_site, t->prof_creator != thr, start);
}

/* A task's body with a tool attached: under the tool's eyes (prior: the task it interrupts, why:
   prior's status), and in the profile's row as well when the profile is on. Before, the row was
   left out, and a profiled program with a tool attached showed tasks made but none run. */
static __attribute__((noinline)) void run_body_traced(struct lite_thread *thr,
                                                      struct lite_task *prior,
                                                      struct lite_task *t,
                                                      ompt_task_status_t why)
{
  bool run = !discarded(thr, t);
  bool profiled = run && t->fn != NULL && lite_prof_on();
  uint64_t start = profiled ? lite_prof_task_start(t->prof_site) : 0;
  lite_ompt_task_run(prior, t, run, why);
  if (profiled)
    lite_prof_task_ran(t->prof_site, t->prof_creator != thr, start);
}

/* Runs t's body as the current task, with its own ICVs (unless it is discarded). why: for a
   tool, the status of the task t interrupts (ompt_task_switch, or ompt_task_yield). */
static void run_body(struct lite_thread *thr, struct lite_task *t, ompt_task_status_t why)
{
  struct lite_task *saved_task = thr->task;
  struct lite_icv saved_icv = thr->icv;
  thr->task = t;
  thr->icv = t->icv;
  if (lite_ompt_on())
    run_body_traced(thr, saved_task, t, why);
  else if (t->fn != NULL && !discarded(thr, t)) {
    if (lite_prof_on())
      run_fn_profiled(thr, t);
    else
      t->fn(t->data);
  }
  thr->task = saved_task;
  thr->icv = saved_icv;
}

/* Runs t; returns the task to run next, as finish_body takes it. */
static struct lite_task *run_task_then(struct lite_thread *thr, struct lite_task *t,
                                       const struct wait_rule *rule, void *arg)
{
  run_body(thr, t, ompt_task_switch);
  return finish_body(thr, t, rule, arg);
}

/* Runs t and the successors its completion keeps for this thread (finish_body). */
static void run_task(struct lite_thread *thr, struct lite_task *t)
{
  struct lite_task *next = run_task_then(thr, t, NULL, NULL);
  while (next != NULL)
    next = run_task_then(thr, next, NULL, NULL);
}

/* -------------------------------------------------------------------------------- waiting */

/* How often a spinning waiter whose rule looks wider than it watches looks again, in polls
   (~30 ns each here): a look that finds nothing steals nothing, but reads the other members'
   queue counts. */
#define WIDER_LOOK_POLLS 64

static bool any_ready(struct lite_tasks *q)
{
  return atomic_load_explicit(&q->ready, memory_order_acquire) != 0;
}

/* Waits until rule's worth_a_look says yes: spin, yield or sleep, as every wait in libomp-lite
   (wait.c). The spin polls words of the waiting task, its group or the team's count of queues
   with tasks, which the threads making and running tasks write only when something relevant
   to a waiter changed. A sleeper parks on gen, which lite_tasks_wake bumps when it sees one. */
static void wait_for_a_change(struct lite_tasks *q, const struct wait_rule *rule, void *arg,
                              struct lite_waiter *w)
{
  unsigned polls = 0;
  while (!rule->worth_a_look(q, arg)) {
    if (lite_waiter_poll(w)) {
      if (rule->looks_wider && ++polls % WIDER_LOOK_POLLS == 0 && any_ready(q))
        return;
      continue;
    }
    uint32_t gen = atomic_load(&q->gen);
    lite_park_begin(&q->sleepers);
    if (!rule->worth_a_look(q, arg) && atomic_load(&q->gen) == gen)
      lite_futex_wait(&q->gen, gen);
    lite_park_end(&q->sleepers);
    lite_waiter_init(w);
  }
}

/* Runs what rule lets it run until rule says done. */
static void wait_until(struct lite_thread *thr, struct lite_tasks *q, const struct wait_rule *rule,
                       void *arg)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  while (!rule->done(q, arg)) {
    struct lite_task *t = take_for(thr, q, rule->ok, arg);
    if (t != NULL) {
      while (t != NULL)
        t = run_task_then(thr, t, rule, arg);
      lite_waiter_init(&w);
      continue;
    }
    wait_for_a_change(q, rule, arg, &w);
  }
}

static bool is_child_of(const struct lite_task *t, void *task) { return t->parent == task; }

/* Whether t descends from task: what a taskwait of clang-built code may run (lite_taskwait_from).
   OpenMP's second scheduling constraint allows any descendant of the waiting task (the tasks
   tied to this thread and not in a barrier are the waiting task and its ancestors), and LLVM's
   runtime runs them; libgomp runs only children, and gcc-built code keeps that. What running
   only children costs: in fib's taskwait, a thread whose children another thread had taken idled while that
   thread's queue held their children (taskbench fib, 2 threads, 1,410 us against 1,140 with
   descendants). The walk reads only live tasks: t is queued, and a task holds a reference to
   its parent while its block lives (parent_ref; an implicit parent, which ends the walk, lives
   while its tasks run). */
static bool is_descendant_of(const struct lite_task *t, void *task)
{
  for (;;) {
    if (t->parent == task)
      return true;
    if (!t->parent_ref)
      return false;
    t = t->parent;
  }
}

static bool is_sibling_of(const struct lite_task *t, void *task)
{
  return t->parent == ((struct lite_task *)task)->parent;
}

/* What a taskgroup end waits for (group) and from which task (cur). */
struct group_wait {
  struct lite_taskgroup *group;
  struct lite_task *cur;
};

/* A task of the group, or a child of the waiting task. A task of the group may depend on a
   child made before the group began (dependences join siblings), and nobody else may be left
   to run that one: the members that arrived at the end of the region have gone, and a thread
   waiting in a taskgroup of its own would not take it. A child of the waiting task is a
   descendant of every task tied to this thread, so OpenMP's scheduling constraint allows it.
   (GCC's depend-3.c, 4 threads, workers parking at once: about 1 run in 20 hung.) A queued
   task's groups are open: each is counting it or a group nested in it. */
static bool in_group(const struct lite_task *t, void *arg)
{
  const struct group_wait *wait = arg;
  if (t->parent == wait->cur)
    return true;
  for (const struct lite_taskgroup *g = t->group; g != NULL; g = g->prev)
    if (g == wait->group)
      return true;
  return false;
}

static bool team_idle(struct lite_tasks *q, void *arg)
{
  (void)arg;
  return lite_tq_idle(q);
}

static bool no_children(struct lite_tasks *q, void *task)
{
  (void)q;
  return lite_task_kids_live(task) == 0;
}

static bool no_predecessors(struct lite_tasks *q, void *task)
{
  (void)q;
  return atomic_load_explicit(&((struct lite_task *)task)->npred, memory_order_acquire) == 0;
}

static bool task_done(struct lite_tasks *q, void *task)
{
  (void)q;
  return state_of(task) == LITE_TASK_DONE;
}

static bool group_done(struct lite_tasks *q, void *arg)
{
  (void)q;
  const struct group_wait *wait = arg;
  return lite_group_live(wait->group) == 0;
}

static bool drain_changed(struct lite_tasks *q, void *arg) { return any_ready(q) || team_idle(q, arg); }

static bool children_changed(struct lite_tasks *q, void *task)
{
  struct lite_task *t = task;
  return no_children(q, t) || lite_task_kids_ready(t) != 0;
}

static bool siblings_changed(struct lite_tasks *q, void *task)
{
  struct lite_task *t = task;
  return no_predecessors(q, t) || lite_task_kids_ready(t->parent) != 0;
}

static bool detach_changed(struct lite_tasks *q, void *task)
{
  return task_done(q, task) || any_ready(q);
}

static bool group_changed(struct lite_tasks *q, void *arg)
{
  const struct group_wait *wait = arg;
  return group_done(q, arg) ||
         lite_group_ready(wait->group) != 0 ||
         lite_task_kids_ready(wait->cur) != 0;
}

static const struct wait_rule drain_rule = {team_idle, NULL, drain_changed, false};
static const struct wait_rule taskwait_rule = {no_children, is_child_of, children_changed, false};
static const struct wait_rule taskwait_deep_rule = {no_children, is_descendant_of,
                                                    children_changed, true};
static const struct wait_rule deps_rule = {no_predecessors, is_sibling_of, siblings_changed, false};
static const struct wait_rule detach_rule = {task_done, NULL, detach_changed, false};
static const struct wait_rule taskgroup_rule = {group_done, in_group, group_changed, false};

/* Runs t, then the successors each completion keeps for it (finish_body). */
static void run_chain(struct lite_thread *thr, struct lite_task *t)
{
  while (t != NULL)
    t = run_task_then(thr, t, NULL, NULL);
}

bool lite_tasks_help_slow(struct lite_thread *thr, struct lite_tasks *q)
{
  struct lite_task *t = take_for(thr, q, NULL, NULL);
  run_chain(thr, t);
  return t != NULL;
}

/* Under the queue's lock, as a task of the next region is pushed under it by a thread that had
   seen the next generation: a look at the generation there sees it too. */
struct region_gen {
  struct lite_pool *pool;
  uint32_t gen;
};

static bool of_region(const struct lite_task *t, void *arg)
{
  (void)t;
  const struct region_gen *r = arg;
  return atomic_load_explicit(&r->pool->gen, memory_order_relaxed) == r->gen;
}

bool lite_tasks_help_region(struct lite_thread *thr, struct lite_tasks *q, uint32_t gen)
{
  struct region_gen r = {q->pool, gen};
  /* Not take_for: the team's size and nearest-first order may be changing for the next region;
     the queues the team has are enough to look in. */
  unsigned me = lite_tq_member(thr, q);
  unsigned n = atomic_load_explicit(&q->nmembers, memory_order_acquire); /* 0's not counted */
  if (n < me + 1)
    n = me + 1;
  if (n < 2)
    n = 2;
  struct lite_task *t = lite_tq_take(NULL, q, me, n, of_region, &r, true);
  run_chain(thr, t);
  return t != NULL;
}

void lite_tasks_drain_slow(struct lite_thread *thr, struct lite_tasks *q)
{
  if (!lite_tq_idle(q))
    wait_until(thr, q, &drain_rule, NULL);
  /* Every queue is empty now: ready goes back to 0 (count_in), and the members on call after
     the region do not come looking (the leader may be setting up the next region's team). */
  lite_tq_settle(q);
}

void lite_tasks_retire(struct lite_tasks *q)
{
  q_lock(q);
  q_unlock(q);
  lite_tq_free(q);
}

void lite_task_implicit_end(struct lite_task *t)
{
  free_dep_table(t->deps);
  t->deps = NULL;
  lite_tq_counters_flush();
}

/* --------------------------------------------------------------------------- entry points */

/* A new task of the current task, not counted anywhere yet. home: the maker's member queue in
   a pooled team, else NULL (task memory, above). */
static struct lite_task *new_task(struct lite_thread *thr, struct lite_task *parent,
                                  struct lite_tasks *q, struct lite_member_q *home,
                                  unsigned ndeps, size_t data_size, size_t data_align)
{
  size_t head = sizeof(struct lite_task) + ndeps * sizeof(void *);
  size_t size = head + (data_size != 0 ? data_size + data_align - 1 : 0);
  struct lite_task *t = task_alloc(thr, size, home);
  t->parent = parent;
  t->queue = q;
  t->group = parent->taskgroup;
  t->taskgroup = t->group;
  t->dep_addrs = (void **)(t + 1);
  t->ndeps = ndeps;
  t->icv = thr->icv;
  if (data_size != 0)
    t->data = (void *)(((uintptr_t)t + head + data_align - 1) & ~(uintptr_t)(data_align - 1));
  t->state = LITE_TASK_WAITING;
  atomic_init(&t->refs, 1);
  return t;
}

/* Counts t in its parent, its taskgroup and its creator's count of tasks made, before another
   thread can see it. */
static void enter_task(struct lite_tasks *q, struct lite_member_q *mine, struct lite_task *parent,
                       struct lite_task *t)
{
  /* A store, not an atomic add: only this thread makes parent's children (struct lite_task). */
  atomic_store_explicit(&parent->kids_made,
                        atomic_load_explicit(&parent->kids_made, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  if (!parent->implicit) {
    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    t->parent_ref = true;
  }
  if (!parent->had_children)
    parent->had_children = true;
  if (t->group != NULL)
    atomic_fetch_add_explicit(&t->group->made, 1, memory_order_relaxed);
  if (lite_unlikely(!atomic_load_explicit(&q->used, memory_order_relaxed))) {
    atomic_store(&q->used, true);
    lite_tq_count_touch();
  }
  /* A release store, not count_member's fence: the push that publishes t comes after it, and a
     drain that reads t's completion reads this count too (lite_tq_idle). */
  atomic_store_explicit(&mine->created,
                        atomic_load_explicit(&mine->created, memory_order_relaxed) + 1,
                        memory_order_release);
  lite_tq_count_op();
}

/* The encountering thread runs t now, after its dependences; a detached t also waits for its
   event, as libgomp does. The creator's reference goes last. */
static void run_undeferred(struct lite_thread *thr, struct lite_tasks *q, struct lite_task *t)
{
  if (atomic_load_explicit(&t->npred, memory_order_acquire) != 0)
    wait_until(thr, q, &deps_rule, t);
  run_task(thr, t);
  if (t->detach)
    wait_until(thr, q, &detach_rule, t);
  release_ref(t);
}

/* After an included task's body: its children may outlive it, and the last of them to complete
   frees it (release_ref). */
static void end_included(struct lite_task *t)
{
  if (!t->had_children) {
    task_release(t);
    return;
  }
  if (t->deps != NULL) {
    dep_lock(t);
    free_dep_table(t->deps);
    t->deps = NULL;
    dep_unlock(t);
  }
  set_state(t, LITE_TASK_DONE);
  release_ref(t);
}

/* ---------------------------------------------------------------- the undeferred path */

/* An undeferred task without dependences or detach (if(0), inside a final task, throttled) runs
   at once on its creator, and no other thread can see it unless it makes a task: so it is neither
   counted nor queued, it takes no lock, and its descriptor is ephemeral, on its creator's stack
   (clang's if(0): in a cached block, kmpc/task.c), with only what a running task reads set: its
   parent, finality and taskgroups (taskwait knows that it has no children). Its ICVs stay in the
   thread, its creator's, until the task changes one (lite_icv_for_write keeps the creator's then,
   and the end puts them back). Should it make a task, whose block points to its parent and may
   outlive the creator's frame, or a taskgroup, whose end watches the counts of its children,
   a real descriptor takes its place first (promote), and ends as an included task
   (end_included). So the task costs a dozen stores beside the call of its body: `task if(c)`
   in a loop by both members of a team of 2, best of 200 runs of 20,000 tasks, 23.2 -> 3.8 ns a
   task (libgomp 6.7, LLVM 50; a GOMP_task that only calls fn(data), the floor of the ABI's
   ten-argument call, 1.6; the bare indirect call 1.0), where each took a block, cleared its
   256 bytes and copied the ICVs twice. And GCC's cancel-taskgroup-1, a tree search whose tasks below
   level 10 are if(0) (about 25 million of them), took 15-30 s at 4 threads on 2 CPUs, against
   libgomp's 0.2 s, when each went through the shared lock three times.
   Where the 3.9-4.3 ns of an if(0) task go now (the same loop in a team of one, best of 200 runs
   of 20,000, variants built and run alternately; callgrind: 58 instructions in GOMP_task, 92 in
   libgomp's, and 19 in the caller to pass the ten arguments): the checks and a tail jump to
   fn(data), 2.4-2.5 ns; making the task current around its body (thr->task set and put back,
   which turns the jump into a call and a return), 3.5-3.6; the descriptor's other fields,
   3.9-4.3; the bare indirect call 1.0-1.1. Each is read by something the body may do: taskwait
   and a nested task (parent, ephemeral, promoted), omp_in_final (final), cancel taskgroup and
   in_reduction (the taskgroups), omp_set_* (the ICV flags). Tried and not kept: the slow path
   as a sibling call and the body's run out of line (5.0 ns: gcc still saved six registers in
   GOMP_task and three in the callee), the flags written as one word, the second look at the
   profile dropped (both within the noise). */
static inline void ephemeral_begin(struct lite_thread *thr, struct lite_task *e,
                                   struct lite_task *parent, bool final)
{
  e->parent = parent;
  e->group = parent->taskgroup;
  e->taskgroup = e->group;
  e->implicit = false;
  e->final = final;
  e->ephemeral = true;
  e->icv_lazy = true;
  e->icv_saved = false;
  e->promoted = NULL;
  thr->task = e;
}

/* The end of a task that was promoted, or that changed its ICVs. */
static __attribute__((noinline)) void ephemeral_end_slow(struct lite_thread *thr,
                                                         struct lite_task *e)
{
  struct lite_task *t = e->promoted != NULL ? e->promoted : e;
  if (t->icv_saved)
    thr->icv = t->icv;
  if (e->promoted != NULL)
    end_included(e->promoted);
}

static inline void ephemeral_end(struct lite_thread *thr, struct lite_task *e,
                                 struct lite_task *parent)
{
  thr->task = parent;
  if (lite_unlikely(e->promoted != NULL || e->icv_saved))
    ephemeral_end_slow(thr, e);
}

/* Ephemeral task e, the current one, is about to make a task: a descriptor of its own takes its
   place, with e's state, and keeps e's address as its identity (lite_task_identity). */
static __attribute__((noinline)) struct lite_task *promote(struct lite_thread *thr,
                                                          struct lite_task *e)
{
  struct lite_task *t = new_task(thr, e->parent, lite_tasks_of(thr), NULL, 0, 0, 1);
  t->group = e->group;
  t->taskgroup = e->taskgroup;
  t->final = e->final;
  t->icv_lazy = e->icv_lazy;
  t->icv_saved = e->icv_saved;
  if (e->icv_saved)
    t->icv = e->icv;
  t->state = LITE_TASK_RUNNING;
  t->creator_owns = true;
  t->origin = e;
  if (lite_ompt_on()) { /* what a tool was told of e (lite_ompt_included_begin) goes with it */
    t->ompt_data = e->ompt_data;
    t->ompt_frame = e->ompt_frame;
    t->ompt_type = e->ompt_type;
    t->ompt_sched_parent = e->ompt_sched_parent;
    t->ompt_memory = e->ompt_memory;
    t->ompt_memory_size = e->ompt_memory_size;
  }
  e->promoted = t;
  thr->task = t;
  return t;
}

/* The body of an ephemeral task with the profile on, out of line. */
static __attribute__((noinline, cold)) void run_ephemeral_profiled(struct lite_thread *thr,
                                                                   struct lite_task *e,
                                                                   void (*fn)(void *), void *data,
                                                                   const void *site)
{
  e->fn = fn;
  e->data = data;
  e->prof_site = site;
  e->prof_creator = thr;
  run_fn_profiled(thr, e);
}

static inline __attribute__((always_inline)) void run_included(struct lite_thread *thr,
                                                              struct lite_task *parent,
                                                              void (*fn)(void *), void *data,
                                                              bool final, const void *site)
{
  struct lite_task e;
  ephemeral_begin(thr, &e, parent, final);
  if (lite_prof_on())
    run_ephemeral_profiled(thr, &e, fn, data, site);
  else
    fn(data);
  ephemeral_end(thr, &e, parent);
}

/* The same for a task whose data gcc copy-constructs (C++ firstprivate, cpyfn): the copy on the
   creator's stack, as libgomp makes it, unless it is large. */
#define INCLUDED_COPY_STACK_MAX 16384

static __attribute__((noinline)) void run_included_copied(struct lite_thread *thr,
                                                          struct lite_task *parent,
                                                          void (*fn)(void *), void *data,
                                                          void (*cpyfn)(void *, void *),
                                                          long arg_size, long arg_align,
                                                          bool final, const void *site)
{
  size_t align = arg_align > 1 ? (size_t)arg_align : 1;
  size_t size = (size_t)arg_size + align - 1;
  bool on_stack = size <= INCLUDED_COPY_STACK_MAX;
  char stack_buf[on_stack ? size : 1];
  char *buf = on_stack ? stack_buf : malloc(size);
  if (buf == NULL)
    lite_fatal("out of memory for a task's data (%zu bytes)", size);
  void *copy = (void *)(((uintptr_t)buf + align - 1) & ~(uintptr_t)(align - 1));
  cpyfn(copy, data);
  run_included(thr, parent, fn, copy, final, site);
  if (!on_stack)
    free(buf);
}

const void *lite_task_identity(const struct lite_task *t)
{
  return !t->ephemeral && t->origin != NULL ? (const void *)t->origin : (const void *)t;
}

/* An included task whose body its compiler runs itself, between the two calls (clang's task
   if(0): kmpc/task.c): an ephemeral task in a block of the thread's cache. */
void lite_task_included_begin(struct lite_included *inc, bool final)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *parent = lite_current_task(thr);
  struct lite_task *e = block_get(thr, NULL);
  inc->task = e;
  inc->saved_task = parent;
  ephemeral_begin(thr, e, parent, final || parent->final);
}

void lite_task_included_end(struct lite_included *inc)
{
  struct lite_thread *thr = lite_self();
  ephemeral_end(thr, inc->task, inc->saved_task);
  if (!cache_keep(thr, inc->task))
    free(inc->task);
}

/* The throttle: when the creator's own queue already holds enough ready tasks for each member
   of the team, a new task without depend clauses or detach runs at once on its creator,
   undeferred, as a task that is not required to be deferred may (OpenMP 5.2 §12.1: whether a
   task is deferred is up to the implementation unless its if clause is false). Every member
   then has queued work to take while the creator runs it, and the creator stops paying for a
   block, a queue entry and a wake-up for tasks nobody else is free to take (an undeferred task
   costs a few ns, a deferred one 60-100: run_included). Enough is:
   - for a task made by an implicit task (a loop or a single that feeds the team),
     THROTTLE_PER_MEMBER, libgomp's bound on its team's one queue (team->task_count > 64 *
     nthreads): with one creator, as in most programs, the two defer the same tasks, and a
     creator whose tasks vary in size leaves the others plenty to balance with;
   - for a task made by an explicit task (nested and recursive shapes: a task that makes tasks,
     and often waits for them), NESTED_THROTTLE_PER_MEMBER: work-first below that, as its
     children then run depth-first on their creator, while the older tasks in the queue, the
     ones nearer the root of a tree and the larger, stay for the thieves, which take half of a
     queue longer than two at once (task_queue.c). Measured at 2 threads (taskbench, medians of
     15 samples, us a task, 64 -> 8 -> 4 -> 2 per member; libgomp, LLVM): task-nested 0.171 ->
     0.074 -> 0.047 -> 0.033 (0.60, 0.51); tree-leaf 0.062 -> 0.092 -> 0.093 -> 0.034 (0.49,
     0.40); tree-node 0.065 -> 0.118 -> 0.106 -> 0.037 (0.45, 0.35); tree-leaf-for 0.133 ->
     0.0098 -> 0.0102 -> 0.0099 (0.0071, 0.62); uts 0.267 -> 0.040 -> 0.036 -> 0.025 (0.73,
     0.57), with 40-54 % of the trees' and uts's tasks still run by the other member at 2, as
     at 64. Bounds of 8 or 4 tasks per member let the queue grow just enough for a thief to
     halve it, and the two members then took turns stealing the tree's tasks back and forth.
     A flat creator at 2 per member instead of 64 gained little (task-create 0.30 -> 0.29,
     master-busy 0.27 -> 0.29, task-all 0.22 -> 0.28: within the spread) and is not worth
     libgomp's slack.
   "Each member" counts the members that can run at once: no more than the CPUs (lite_env.ncpus).
   With more threads than CPUs, the members beyond them take a queued task only when the
   scheduler gives them a slice, and a queue as long as the team is wide only made that many
   more tasks deferred and moved: 16 threads on 2 CPUs (taskbench, medians of 4 interleaved runs
   of 7 samples, us a task, the machine shared with other jobs; before -> after, libgomp):
   tree-node 0.84 -> 0.14 (0.55), tree-leaf 0.80 -> 0.20 (0.82); 4 threads: tree-leaf 0.42 ->
   0.18 (0.62), tree-node 0.41 -> 0.20 (0.58), uts 0.133 -> 0.083 (1.13), task-nested-1 2.4 ->
   1.5 (5.5), fib and the rows of an implicit creator unchanged. Up to the CPUs, the same bound
   as before.
   For an implicit creator, never below the team's size, though: its queue must be able to hold
   a task for every member, as libgomp's does. Tasks that wait for each other to start, one per
   member, are valid on a runtime that defers them; with the bound at 64 x 2 CPUs, a creator at
   256 threads ran its task after the 128th queued one at once, and waited in it for tasks it
   had not made yet (tests/integration/tasks.c part steal deadlocked in every run). Not for an
   explicit creator, whose bound of 2 per CPU is what made the trees fast (the floor at 16
   threads on 2 CPUs: tree-leaf 0.019 -> 0.064 us a task, tree-node 0.021 -> 0.064).
   The length is read without the lock: a stale value only moves the moment the throttle starts
   or stops. */
#define THROTTLE_PER_MEMBER 64
#define NESTED_THROTTLE_PER_MEMBER 2

static inline bool throttled(struct lite_thread *thr, const struct lite_task *parent)
{
  unsigned per_member = parent->implicit ? THROTTLE_PER_MEMBER : NESTED_THROTTLE_PER_MEMBER;
  unsigned nthreads = thr->team->nthreads;
  unsigned members = nthreads < lite_env.ncpus ? nthreads : lite_env.ncpus;
  unsigned bound = per_member * members;
  if (parent->implicit && bound < nthreads)
    bound = nthreads;
  return lite_tq_length(&thr->team->tasks, thr->id) > bound;
}

/* The lowest stack address at which the runtime still nests a task it chose to run on top of
   the running one (taskyield, the throttle, a team of one): half-way down the thread's stack,
   found once per thread (pthread_getattr_np: a few us for a worker, a read of /proc/self/maps
   for the initial thread); 0 until then, UINTPTR_MAX if the stack is unknown (then nothing is
   nested by choice, as taskyield in libgomp). A forked child keeps its thread's stack, and so
   the value. Half, so that a task nested by choice starts with at least half the stack free,
   and below that the choice is only deferral: the task is queued, and a barrier or taskwait
   runs it later from a shallower frame. Tasks the program nests itself (if(0), final, a
   taskwait's children) still nest as deep as the program asks, as in libgomp. */
static LITE_THREAD_LOCAL uintptr_t stack_floor;

static __attribute__((noinline, cold)) uintptr_t find_stack_floor(void)
{
  uintptr_t lo;
  size_t size;
  stack_floor = lite_os_stack_bounds(&lo, &size) ? lo + size / 2 : UINTPTR_MAX;
  return stack_floor;
}

static inline bool stack_room(void)
{
  uintptr_t floor = stack_floor != 0 ? stack_floor : find_stack_floor();
  return (uintptr_t)__builtin_frame_address(0) > floor;
}

/* The throttle of a creator inside a lock, nest lock, critical or ordered region (lite_held):
   a task run at once there runs under the lock, and one that takes the same lock waits for its
   creator, which waits for it: 50 children that took their creator's lock hung at 1, 2 and 4
   threads (issue 51), where libgomp queues 64 a thread first. So such a creator queues, in a
   team of one too, up to HELD_QUEUE_MAX tasks in its own queue: 16,384 blocks of 512 bytes,
   8 MiB, is the memory bound, 256 times libgomp's queue, and only beyond it does a task run at
   once, as libgomp's do beyond 64. Outside any region (no team, no queue that a region's end
   drains) the task still runs at once, as libgomp's. */
#define HELD_QUEUE_MAX 16384

static __attribute__((noinline, cold)) bool throttled_held(struct lite_thread *thr)
{
  return lite_tq_length(&thr->team->tasks, thr->id) > HELD_QUEUE_MAX;
}

/* Whether a task without depend or detach runs at once on its creator: it is undeferred, or no
   other thread could run it (a team of one, or no region), or the throttle says so. */
static inline bool runs_at_once(struct lite_thread *thr, const struct lite_task *parent,
                                bool if_clause)
{
  if (!if_clause || parent->final)
    return true;
  struct lite_team *team = thr->team;
  if (team == NULL)
    return true;
  if (lite_unlikely(lite_held != 0))
    return throttled_held(thr) && stack_room();
  return (team->pool == NULL || throttled(thr, parent)) && stack_room();
}

static bool creation_cancelled(struct lite_thread *thr, struct lite_task *parent)
{
  return lite_env.cancellation &&
         ((thr->team != NULL && atomic_load(&thr->team->cancelled)) ||
          in_cancelled_group(parent->taskgroup));
}

/* The ompt_task_flag_t bits of a task a tool is told of: undeferred as LLVM's runtime says it
   (an if(0) task, one inside a final task, one made in a team of one; not the throttle's, nor
   a task with a final clause itself), taskwait for taskwait depend's empty task (fn NULL). */
static int ompt_type_of(void (*fn)(void *), unsigned flags, bool final, bool undeferred)
{
  if (fn == NULL)
    return ompt_task_taskwait | ompt_task_undeferred | ompt_task_mergeable;
  int type = ompt_task_explicit;
  if (undeferred)
    type |= ompt_task_undeferred;
  if (flags & TASK_FLAG_UNTIED)
    type |= ompt_task_untied;
  if (final)
    type |= ompt_task_final;
  if (flags & TASK_FLAG_MERGEABLE)
    type |= ompt_task_mergeable;
  return type;
}

/* The dependences of t for a tool: as clang's entry point gave them (thr->ompt_deps), else
   from gcc's array, whose out covers inout (reported as inout, the kind that orders most). */
static __attribute__((noinline)) void ompt_dependences(struct lite_thread *thr,
                                                       struct lite_task *t, void **depend,
                                                       unsigned ndeps)
{
  if (thr->ompt_deps != NULL) {
    const ompt_dependence_t *given = thr->ompt_deps;
    thr->ompt_deps = NULL; /* not for a task the undeferred t may make */
    lite_ompt_dependences(t, given, thr->ompt_ndeps);
    return;
  }
  ompt_dependence_t small[16] = {{{0}, 0}};
  ompt_dependence_t *deps = ndeps <= 16 ? small : malloc(ndeps * sizeof *deps);
  if (deps == NULL)
    lite_fatal("out of memory for a task's dependences");
  for (unsigned i = 0; i < ndeps; i++) {
    struct dep d = dep_at(depend, i);
    deps[i].variable.ptr = d.addr;
    deps[i].dependence_type = d.kind == DEPEND_IN    ? ompt_dependence_type_in
                              : d.kind == DEPEND_OUT ? ompt_dependence_type_inout
                              : d.kind == DEPEND_INOUT ? ompt_dependence_type_inout
                                                       : ompt_dependence_type_mutexinoutset;
  }
  lite_ompt_dependences(t, deps, (int)ndeps);
  if (deps != small)
    free(deps);
}

static inline __attribute__((always_inline)) void
task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
            long arg_align, bool if_clause, unsigned flags, void **depend, void *detach,
            void (*prepare)(void *, void *), void *prepare_arg, int priority, const void *site);

/* With a tool attached: the creating task's enter frame is this call's while it is inside
   (the task-create event, and an undeferred task's body run from here). */
static __attribute__((noinline)) void task_create_traced(
    void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
    long arg_align, bool if_clause, unsigned flags, void **depend, void *detach,
    void (*prepare)(void *, void *), void *prepare_arg, int priority, const void *site)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *parent = lite_current_task(thr);
  bool mine = parent->ompt_frame.enter_frame.ptr == NULL;
  if (mine) {
    parent->ompt_frame.enter_frame.ptr = __builtin_frame_address(0);
    parent->ompt_frame.enter_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
  }
  task_create(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach, prepare,
              prepare_arg, priority, site);
  if (mine) {
    parent->ompt_frame.enter_frame.ptr = NULL;
    thr->task->ompt_frame.enter_frame.ptr = NULL; /* parent promoted meanwhile */
  }
  thr->ompt_deps = NULL;
  thr->ompt_resume = NULL;
  thr->ompt_memory = NULL;
  thr->ompt_target_task = false;
}

void lite_task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, void *detach, void (*prepare)(void *, void *),
                      void *prepare_arg, int priority, const void *site)
{
  if (lite_ompt_on())
    task_create_traced(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach,
                       prepare, prepare_arg, priority, site);
  else
    task_create(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach, prepare,
                prepare_arg, priority, site);
}

static inline __attribute__((always_inline)) void
task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
            long arg_align, bool if_clause, unsigned flags, void **depend, void *detach,
            void (*prepare)(void *, void *), void *prepare_arg, int priority, const void *site)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *parent = lite_current_task(thr);
  if (creation_cancelled(thr, parent))
    return;
  lite_prof_task_created(site);
  struct lite_tasks *q = lite_tasks_of(thr);
  bool undeferred = !if_clause || parent->final;
  bool solo = thr->team == NULL || thr->team->pool == NULL;
  unsigned ndeps = (flags & TASK_FLAG_DEPEND) ? count_deps(depend) : 0;
  bool final = (flags & TASK_FLAG_FINAL) || parent->final;
  if (!undeferred && ndeps == 0 && !(flags & TASK_FLAG_DETACH) &&
      runs_at_once(thr, parent, if_clause))
    undeferred = true;
  /* With a tool attached, a real descriptor: its data stays put for the tool (ompt/tasks.c). */
  if (undeferred && ndeps == 0 && !(flags & TASK_FLAG_DETACH) && prepare == NULL &&
      !lite_ompt_on()) {
    if (cpyfn == NULL)
      run_included(thr, parent, fn, data, final, site);
    else
      run_included_copied(thr, parent, fn, data, cpyfn, arg_size, arg_align, final, site);
    return;
  }
  if (lite_unlikely(parent->ephemeral))
    parent = promote(thr, parent);
  /* An undeferred task may use the caller's block, which outlives it; the others and a
     copy-constructed one get their own. */
  bool copy = !undeferred || cpyfn != NULL || prepare != NULL;
  size_t align = arg_align > 1 ? (size_t)arg_align : 1;
  struct lite_member_q *mine = lite_tq_own(q, lite_tq_member(thr, q));
  struct lite_task *t =
      new_task(thr, parent, q, solo ? NULL : mine, ndeps, copy ? (size_t)arg_size : 0, align);
  if (lite_prof_on()) {
    t->prof_site = site;
    t->prof_creator = thr;
  }
  t->fn = fn;
  t->final = final;
  t->creator_owns = undeferred;
  if (undeferred)
    atomic_init(&t->refs, 2); /* its completion's and its creator's */
  /* A hint, at most max-task-priority-var (OpenMP 5.2 §12.5). */
  t->priority = priority <= 0 ? 0
                : priority > lite_env.max_task_priority ? lite_env.max_task_priority
                                                         : priority;
  if (flags & TASK_FLAG_DETACH) {
    /* The event handle goes to the detach variable and, for the task's own copy, to the first
       word of its data block, where gcc keeps the event. */
    t->detach = true;
    *(void **)detach = t;
    if (data != NULL)
      *(void **)data = t;
  }
  if (!copy)
    t->data = data;
  else if (cpyfn != NULL) {
    cpyfn(t->data, data);
    t->copied = true;
  }
  else
    memcpy(t->data, data, (size_t)arg_size);
  if (prepare != NULL)
    prepare(t->data, prepare_arg);
  if (lite_ompt_on()) {
    /* Its data block for ompt_get_task_memory, unless clang's entry point said otherwise. */
    t->ompt_memory = thr->ompt_memory != NULL ? thr->ompt_memory : t->data;
    t->ompt_memory_size = thr->ompt_memory != NULL ? thr->ompt_memory_size
                          : fn != NULL             ? (size_t)arg_size
                                                   : 0;
    thr->ompt_memory = NULL;
    int type = ompt_type_of(fn, flags, final, !if_clause || parent->final || solo);
    if (thr->ompt_target_task) /* the task that encloses a target region, not the program's */
      type = (type & ~ompt_task_explicit) | ompt_task_target;
    thr->ompt_target_task = false;
    if (thr->ompt_resume != NULL) { /* an untied task's next part */
      t->ompt_data = *thr->ompt_resume;
      t->ompt_type = type;
      thr->ompt_resume = NULL;
    } else {
      lite_ompt_task_create(parent, t, type, ndeps != 0, site);
      if (ndeps != 0)
        ompt_dependences(thr, t, depend, ndeps);
    }
  }
  enter_task(q, mine, parent, t);
  bool no_pred = true;
  if (ndeps != 0) {
    /* Decided under the lock: a predecessor that completes after it makes t ready itself. */
    dep_lock(parent);
    register_deps(parent, t, depend);
    no_pred = atomic_load_explicit(&t->npred, memory_order_relaxed) == 0;
    dep_unlock(parent);
  }
  /* A team of one runs a deferred task at once, unless its creator holds a lock or the stack is
     half full (runs_at_once). */
  bool run_now =
      solo && !undeferred && no_pred && (thr->team == NULL || (lite_held == 0 && stack_room()));
  if (run_now)
    t->state = LITE_TASK_RUNNING;
  else if (!undeferred && no_pred) {
    lite_tq_push(q, mine, t);
    lite_tasks_wake(q);
  }
  if (undeferred)
    run_undeferred(thr, q, t);
  else if (run_now)
    run_task(thr, t);
}

/* A task that runs at once (if(0), inside a final task, throttled, in a team of one) with nothing
   that needs lite_task_create (dependences, detach, a copy constructor, cancellation, the
   profile) runs here, before lite_task_create's prologue and its ten arguments, and inlined:
   5.3 -> 3.8 ns an if(0) task (as measured at run_included); a throttled one in taskbench
   tree-leaf-for, at 2 threads, 0.0099 -> 0.0072 us a task (libgomp 0.0072). */
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
               void *detach)
{
  struct lite_thread *thr = lite_self_tls;
  struct lite_task *parent = thr != NULL ? thr->task : NULL;
  if (parent != NULL && !(flags & (TASK_FLAG_DEPEND | TASK_FLAG_DETACH)) && cpyfn == NULL &&
      !lite_env.cancellation && !lite_prof_on() && !lite_ompt_on() &&
      runs_at_once(thr, parent, if_clause)) {
    run_included(thr, parent, fn, data, (flags & TASK_FLAG_FINAL) || parent->final, NULL);
    return;
  }
  lite_task_create(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach, NULL,
                   NULL, priority, __builtin_return_address(0));
}

static void taskwait(struct lite_thread *thr, bool descendants)
{
  struct lite_task *cur = thr->task;
  /* Only cur adds children, so 0 stays 0; an ephemeral task has made none (its counts are not
     set: run_included). */
  if (cur == NULL || cur->ephemeral || lite_task_kids_live(cur) == 0)
    return;
  wait_until(thr, lite_tasks_of(thr), descendants ? &taskwait_deep_rule : &taskwait_rule, cur);
}

/* The profile's taskwait row, out of line. */
static __attribute__((noinline, cold)) void taskwait_profiled(struct lite_thread *thr,
                                                              const void *site, bool descendants)
{
  uint64_t start = lite_prof_taskwait_begin();
  taskwait(thr, descendants);
  lite_prof_taskwait_end(site, start);
}

void lite_taskwait_from(const void *site, bool descendants)
{
  if (lite_ompt_on()) {
    lite_ompt_sync(ompt_sync_region_taskwait, ompt_scope_begin, site);
    if (lite_prof_on()) /* the profile's row with a tool attached too */
      taskwait_profiled(lite_self(), site, descendants);
    else
      taskwait(lite_self(), descendants);
    lite_ompt_sync(ompt_sync_region_taskwait, ompt_scope_end, site);
  } else if (lite_prof_on())
    taskwait_profiled(lite_self(), site, descendants);
  else
    taskwait(lite_self(), descendants);
}

void GOMP_taskwait(void) { lite_taskwait_from(__builtin_return_address(0), false); }

/* taskwait depend(...): waits for the earlier sibling tasks its clauses name, through an empty
   undeferred task with those dependences. */
void GOMP_taskwait_depend(void **depend)
{
  lite_taskwait_depend_from(depend, __builtin_return_address(0));
}

void lite_taskwait_depend_from(void **depend, const void *site)
{
  uint64_t start = lite_prof_taskwait_begin();
  lite_task_create(NULL, NULL, NULL, 0, 1, false, TASK_FLAG_DEPEND, depend, NULL, NULL, NULL, 0,
                   site);
  lite_prof_taskwait_end(site, start);
}

/* taskyield (OpenMP 5.2 §12.7): the current task may be suspended for another. It runs one
   ready task, if there is one that the task scheduling constraints let it run here: a
   descendant of the yielding task, the rule a taskwait of clang's runs by (is_descendant_of;
   the yielding task and the tied tasks suspended below it on this thread are its ancestors, or
   wait in a barrier), so no task run here waits for the one that yields. Before, it returned
   at once, as libgomp's does: a task that spun on a flag with taskyield until a task it had made
   set it waited for another thread to run that task, and forever in a team whose other members
   were busy (LLVM's ompt/tasks/taskyield.c, where a tool also expects the switch with
   ompt_task_yield). With nothing queued in the team it costs one load (ready).
   It runs nothing, as libgomp's, in two cases (issue 50):
   - while the thread is inside a lock, nest lock, critical or ordered region (lite_held): the
     task run here could be one that waits for that lock, on the thread that holds it, under
     the yielding task that will never get back to release it; a task holding an omp_lock_t
     that yielded while a child it had made wanted the lock hung at 1, 2 and 4 threads;
   - when less than half of the thread's stack is left (stack_room): each task run here nests
     on top of the one that yields, so a chain of tasks that each make a child and yield (no
     taskwait) grew the stack by a frame set per task and overflowed it at 10^5 tasks.
   A tool is told of the switch (ompt_task_yield) only when a task runs. */
static bool yield_over(struct lite_tasks *q, void *arg)
{
  (void)q, (void)arg;
  return true;
}

/* One task run, then back: the successors its completion makes ready go to the queue
   (finish_body, with a rule that is over at once). */
static const struct wait_rule yield_rule = {yield_over, is_descendant_of, yield_over, false};

/* How many tasks taskyield nests on this thread at most, whatever the stack left: with the stack
   bound alone, a chain of tasks that each make the next and yield nested thousands of them per
   thread before stopping (10^5 links a member at 2 threads: 0.62 s of CPU, 0.44 s with this
   bound; the machine loaded, one run each). YIELD_DEPTH_MAX levels still let that many tasks in
   a row spin on a flag with taskyield until a child sets it (LLVM's ompt/tasks/taskyield.c
   needs one level). */
#define YIELD_DEPTH_MAX 64
static LITE_THREAD_LOCAL unsigned yield_depth;

static __attribute__((noinline)) void taskyield(struct lite_thread *thr, struct lite_tasks *q)
{
  if (yield_depth >= YIELD_DEPTH_MAX || !stack_room())
    return;
  struct lite_task *cur = lite_current_task(thr);
  struct lite_task *t = take_for(thr, q, yield_rule.ok, cur);
  if (t == NULL)
    return;
  /* For a tool, the yielding task's enter frame is this call's while the other task runs. */
  bool frame = lite_ompt_on() && cur->ompt_frame.enter_frame.ptr == NULL;
  if (frame) {
    cur->ompt_frame.enter_frame.ptr = __builtin_frame_address(0);
    cur->ompt_frame.enter_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
  }
  yield_depth++;
  run_body(thr, t, ompt_task_yield);
  finish_body(thr, t, &yield_rule, cur);
  yield_depth--;
  if (frame)
    cur->ompt_frame.enter_frame.ptr = NULL;
}

void GOMP_taskyield(void)
{
  struct lite_thread *thr = lite_self_tls;
  if (thr != NULL && thr->team != NULL && lite_held == 0 && any_ready(&thr->team->tasks))
    taskyield(thr, &thr->team->tasks);
}

void GOMP_taskgroup_start(void) { lite_taskgroup_start_from(__builtin_return_address(0)); }

void lite_taskgroup_start_from(const void *site)
{
  /* The region begins here, its wait at the end (lite_taskgroup_end_from), as LLVM's runtime
     dispatches them. */
  if (lite_ompt_on())
    lite_ompt_sync_region(ompt_sync_region_taskgroup, ompt_scope_begin, site);
  struct lite_thread *thr = lite_self();
  struct lite_task *cur = lite_current_task(thr);
  /* Its end may wait, and watch the counts of cur's children, which an ephemeral task lacks. */
  if (cur->ephemeral)
    cur = promote(thr, cur);
  struct lite_taskgroup *g = malloc(sizeof *g);
  if (g == NULL)
    lite_fatal("out of memory starting a taskgroup");
  g->prev = cur->taskgroup;
  atomic_init(&g->made, 0);
  atomic_init(&g->queued, 0);
  atomic_init(&g->done, 0);
  atomic_init(&g->taken, 0);
  atomic_init(&g->cancelled, false);
  g->reductions = g->prev != NULL ? g->prev->reductions : NULL; /* in_reduction sees them */
  g->workshare = false;
  cur->taskgroup = g;
}

void GOMP_taskgroup_end(void) { lite_taskgroup_end_from(__builtin_return_address(0)); }

void lite_taskgroup_end_from(const void *site)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *cur = lite_current_task(thr);
  struct lite_taskgroup *g = cur->taskgroup;
  if (g == NULL)
    return;
  struct group_wait wait = {g, cur};
  uint64_t start = lite_prof_taskgroup_begin();
  if (lite_ompt_on())
    lite_ompt_sync_wait(ompt_sync_region_taskgroup, ompt_scope_begin, site);
  if (!group_done(NULL, &wait))
    wait_until(thr, lite_tasks_of(thr), &taskgroup_rule, &wait);
  if (lite_ompt_on()) {
    lite_ompt_sync_wait(ompt_sync_region_taskgroup, ompt_scope_end, site);
    lite_ompt_sync_region(ompt_sync_region_taskgroup, ompt_scope_end, site);
  }
  lite_prof_taskgroup_end(site, start);
  cur->taskgroup = g->prev;
  free(g);
}

bool lite_task_group_cancelled(const struct lite_task *t)
{
  return lite_env.cancellation && in_cancelled_group(t->group);
}

bool lite_taskgroup_cancelled(struct lite_thread *thr)
{
  return thr->task != NULL && in_cancelled_group(thr->task->taskgroup);
}

/* cancel taskgroup binds to the innermost taskgroup region the program wrote: a worksharing
   construct's own taskgroup (reduction(task, ...)) is not one. */
void lite_taskgroup_cancel(struct lite_thread *thr)
{
  struct lite_taskgroup *g = lite_current_task(thr)->taskgroup;
  if (g != NULL && g->workshare && g->prev != NULL)
    g = g->prev;
  if (g != NULL)
    atomic_store(&g->cancelled, true);
}

void omp_fulfill_event(omp_event_handle_t event)
{
  if (lite_kmpc_event(event)) { /* a clang-built task's event (kmpc/task.c) */
    lite_kmpc_fulfill_event(event);
    return;
  }
  struct lite_task *t = (struct lite_task *)(uintptr_t)event;
  struct lite_tasks *q = t->queue;
  struct lite_thread *thr = lite_self_tls;
  int me = is_member(thr, q) ? (int)lite_tq_member(thr, q) : -1;
  if (me >= 0)
    lite_tq_own(q, (unsigned)me); /* not under q's lock, which allocating takes */
  q_lock(q);
  if (t->fulfilled)
    lite_fatal("omp_fulfill_event: the event was fulfilled already");
  t->fulfilled = true;
  if (lite_ompt_on())
    lite_ompt_task_schedule(t, state_of(t) == LITE_TASK_DETACHED ? ompt_task_late_fulfill
                                                                 : ompt_task_early_fulfill, NULL);
  if (state_of(t) == LITE_TASK_DETACHED)
    complete(q, t, me, NULL);
  /* Under the lock, unlike elsewhere: when this thread is not a member of t's team, the team may
     end as soon as the lock is free, and a team of one goes with its encountering thread's frame
     (see lite_tasks_retire). Waking after the unlock read a reused frame's bytes as the queue's
     pool, and crashed. */
  lite_tasks_wake(q);
  q_unlock(q);
}

int omp_in_final(void)
{
  struct lite_task *t = lite_self()->task;
  return t != NULL && t->final;
}
