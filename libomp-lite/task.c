/* Explicit tasks: task, taskwait, taskgroup, taskyield, depend and detach (OpenMP 5.2 §12).

   Each team has one task queue (struct lite_tasks, in the team) under one lock: the ready tasks
   in creation order, and in each task the list of its own ready children. A task whose depend
   clauses name incomplete sibling tasks waits in no list until they complete. Threads run queued
   tasks at the task scheduling points where that cannot deadlock a conforming program: at
   barriers and at the end of the region (any task of the team), in taskwait (the waiting task's
   children), in taskgroup end (tasks of the group), and while an undeferred task waits for its
   dependences (its siblings).

   A task runs at once on the encountering thread, which waits for it to complete (undeferred),
   when its if clause is false or it is final or inside a final task; it still waits for its
   dependences first. In a team of one, or outside any parallel region, where no other thread
   could run it, a task whose dependences are met also runs at once, but a detached one completes
   only when its event is fulfilled, without the encountering thread waiting for that.

   One lock per team still orders every creation, start and completion (issue 24 asks for
   per-member queues; see docs/architecture.md, Tasks). Descriptors come from a per-thread cache
   of blocks (task_alloc), and a throttle runs new tasks at once when the queue is long
   (throttled). bench/taskbench measures both against libgomp and LLVM's libomp. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* gcc's flags argument of GOMP_task and GOMP_taskloop (gomp-constants.h). */
enum {
  TASK_FLAG_FINAL = 1 << 1,
  TASK_FLAG_DEPEND = 1 << 3,
  TASK_FLAG_DETACH = 1 << 13,
};

/* The kinds of depend clauses, as gcc encodes them in omp_depend_t objects. */
enum { DEPEND_IN = 1, DEPEND_OUT = 2, DEPEND_INOUT = 3, DEPEND_MUTEXINOUTSET = 4 };

static inline void q_lock(struct lite_tasks *q) { lite_mutex_lock(&q->lock); }
static inline void q_unlock(struct lite_tasks *q) { lite_mutex_unlock(&q->lock); }

/* Under the lock: a count changes by delta (a task's children or npred; the queue's incomplete,
   ready and gen). Only lock holders write them, so a load and a store do; the store is a
   release, so that a thread that reads the count without the lock and sees 0 also sees what the
   tasks wrote. The queue's counts share the lock's cache line, which waiting threads keep
   reading: a locked add there stalls the holder for the line's transfer, plain stores do not
   (they wait in the store buffer, all three at once). taskbench at 2 threads, 50 interleaved
   samples: task-all 1.86 -> 0.81 us a task (libgomp 1.25), fib(30) 1560 -> 1385 us (1300),
   taskgroup 12.0 -> 4.4 us (7.7), task-dep-chain 0.58 -> 0.32 us (0.63). */
static inline unsigned count_add(_Atomic unsigned *count, int delta)
{
  unsigned value = atomic_load_explicit(count, memory_order_relaxed) + (unsigned)delta;
  atomic_store_explicit(count, value, memory_order_release);
  return value;
}

/* Under the lock, after any change a waiter may be waiting for. */
static inline void changed(struct lite_tasks *q) { count_add(&q->gen, 1); }

/* After the unlock: the futex call only if someone sleeps. Threads parked in a barrier of the
   team sleep on its barrier words: a new ready task wakes one of them to run it. The fence
   orders the stores of gen and ready before the loads of the sleeper counts, as a parker's
   lite_park_begin orders its count before its re-check of gen or ready: one of the two sees
   the other. */
static inline void wake(struct lite_tasks *q)
{
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load(&q->sleepers) != 0)
    lite_futex_wake(&q->gen, INT32_MAX);
  if (q->pool != NULL && atomic_load(&q->ready) != 0)
    lite_barrier_poke(q->pool);
}

/* ------------------------------------------------------------------------------ ready lists */

static void push_ready(struct lite_tasks *q, struct lite_task *t)
{
  t->state = LITE_TASK_READY;
  t->next = NULL;
  t->prev = q->tail;
  if (q->tail != NULL)
    q->tail->next = t;
  else
    q->head = t;
  q->tail = t;
  struct lite_task *p = t->parent;
  t->sib_prev = NULL;
  t->sib_next = p->ready_children;
  if (p->ready_children != NULL)
    p->ready_children->sib_prev = t;
  /* Atomic: a waiting task reads it without the lock (children_changed). */
  __atomic_store_n(&p->ready_children, t, __ATOMIC_RELEASE);
  count_add(&q->ready, 1);
  changed(q);
}

static void take_ready(struct lite_tasks *q, struct lite_task *t)
{
  if (t->prev != NULL)
    t->prev->next = t->next;
  else
    q->head = t->next;
  if (t->next != NULL)
    t->next->prev = t->prev;
  else
    q->tail = t->prev;
  struct lite_task *p = t->parent;
  if (t->sib_prev != NULL)
    t->sib_prev->sib_next = t->sib_next;
  else
    __atomic_store_n(&p->ready_children, t->sib_next, __ATOMIC_RELAXED);
  if (t->sib_next != NULL)
    t->sib_next->sib_prev = t->sib_prev;
  count_add(&q->ready, -1);
  t->state = LITE_TASK_RUNNING;
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

/* succ may start only after pred completes. */
static void add_edge(struct lite_task *pred, struct lite_task *succ)
{
  if (pred == NULL || pred == succ || pred->state == LITE_TASK_DONE)
    return;
  if (pred->nsucc == pred->succ_cap) {
    unsigned cap = pred->succ_cap != 0 ? pred->succ_cap * 2 : 4;
    struct lite_task **succs = realloc(pred->succ, cap * sizeof *succs);
    if (succs == NULL)
      lite_fatal("out of memory for task dependences");
    pred->succ = succs;
    pred->succ_cap = cap;
  }
  pred->succ[pred->nsucc++] = succ;
  count_add(&succ->npred, 1);
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
   are a few pointers) reuses a block the thread freed before, with no malloc, and its data
   block sits inline after the descriptor. A block goes to the cache of the thread that frees it
   (the one that completed the task), up to TASK_CACHE_MAX blocks, then back to malloc. Where a
   thread makes every task and others run them, the others' caches fill and the maker keeps
   calling malloc, as before; where a thread runs what it made (a member's own tasks, a tree
   below a taskwait, the throttled tasks that run at once) no allocation is left. */
#define LITE_TASK_BLOCK 512
#define TASK_CACHE_MAX 128

_Static_assert(sizeof(struct lite_task) + 16 * sizeof(void *) <= LITE_TASK_BLOCK,
               "a task block holds the descriptor, some depend addresses and data");

static struct lite_task *task_alloc(struct lite_thread *thr, size_t size)
{
  if (size <= LITE_TASK_BLOCK) {
    struct lite_task *t = thr->task_cache;
    if (t != NULL) {
      thr->task_cache = t->next;
      thr->task_cache_n--;
    } else if ((t = malloc(LITE_TASK_BLOCK)) == NULL)
      lite_fatal("out of memory creating a task");
    memset(t, 0, sizeof *t);
    t->cached = true;
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
  struct lite_thread *thr = lite_self_tls;
  if (t->cached && thr != NULL && thr->task_cache_n < TASK_CACHE_MAX) {
    t->next = thr->task_cache;
    thr->task_cache = t;
    thr->task_cache_n++;
    return;
  }
  free(t);
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

/* Memory to free once the task lock is released. A task usually goes back to the arena of the
   thread that made it, and free() then takes that arena's lock, which the making thread holds
   while it allocates the next task: freeing under the task lock made the two wait for each
   other, and both locks ended in futex calls (task-create at 2 threads, perf: a quarter of the
   time in futex wakes). Tasks (is_task) go to task_release, the rest to free. */
struct garbage {
  void *p[3];
  bool is_task[3];
  unsigned n;
};

static void discard(struct garbage *g, void *p)
{
  if (p != NULL) {
    g->is_task[g->n] = false;
    g->p[g->n++] = p;
  }
}

static void empty_garbage(struct garbage *g)
{
  for (unsigned i = 0; i < g->n; i++) {
    if (g->is_task[i])
      task_release(g->p[i]);
    else
      free(g->p[i]);
  }
  g->n = 0;
}

/* Memory of a task: freed once it is done and none of its children still points to it. */
static void maybe_free(struct lite_task *t, struct garbage *g)
{
  if (!t->implicit && !t->creator_owns && t->state == LITE_TASK_DONE &&
      atomic_load_explicit(&t->children, memory_order_relaxed) == 0) {
    g->is_task[g->n] = true;
    g->p[g->n++] = t;
  }
}

/* Under the lock: t is complete (its body ran, its event, if any, was fulfilled). What is to be
   freed goes to g (at most three blocks). */
static void complete(struct lite_tasks *q, struct lite_task *t, struct garbage *g)
{
  t->state = LITE_TASK_DONE;
  struct lite_task *p = t->parent;
  if (t->ndeps != 0)
    unregister_deps(t);
  for (unsigned i = 0; i < t->nsucc; i++) {
    struct lite_task *s = t->succ[i];
    if (count_add(&s->npred, -1) == 0 && s->state == LITE_TASK_WAITING && !s->creator_owns)
      push_ready(q, s);
  }
  discard(g, t->succ);
  t->succ = NULL;
  t->nsucc = t->succ_cap = 0;
  if (t->group != NULL)
    t->group->incomplete--;
  count_add(&p->children, -1);
  maybe_free(t, g);
  maybe_free(p, g);
  /* Last, for t and p: a thread that sees the count reach 0 without the lock (the drain at a
     region's end) may end the region at once, and p, an implicit task, is then made again for
     the next one (ThreadSanitizer saw maybe_free read the leader's implicit task while the
     leader rewrote it). */
  count_add(&q->incomplete, -1);
  changed(q);
}

/* Under the lock: whether the wait is over, and which ready task the waiter may run meanwhile.
   Without the lock, if not NULL: whether either may have changed, from words of the waiting
   task that only changes relevant to it write (see children_changed). */
struct wait_rule {
  bool (*done)(struct lite_tasks *q, void *arg);
  struct lite_task *(*pick)(struct lite_tasks *q, void *arg);
  bool (*worth_a_look)(void *arg);
};

/* Completes t's body; then, if rule is given and its wait is not over, takes the next task the
   rule lets this thread run, under the same lock. Without that, the tasks that t's completion
   made ready (its dependent siblings) went to whichever waiting thread looked first, usually
   another one: a chain of dependent tasks moved between threads at every link (72% of its tasks
   away from the creator at 4 threads on 2 CPUs, 1.38 us a link against libgomp's 0.95). */
static struct lite_task *finish_body(struct lite_tasks *q, struct lite_task *t,
                                     const struct wait_rule *rule, void *arg)
{
  struct garbage g = {.n = 0};
  struct lite_task *next = NULL;
  q_lock(q);
  /* No sibling of its children can come now: their dependence table goes. */
  free_dep_table(t->deps);
  t->deps = NULL;
  if (t->detach && !t->fulfilled)
    t->state = LITE_TASK_DETACHED;
  else
    complete(q, t, &g);
  if (rule != NULL && !rule->done(q, arg) && (next = rule->pick(q, arg)) != NULL)
    take_ready(q, next);
  q_unlock(q);
  empty_garbage(&g);
  wake(q);
  return next;
}

/* Runs t's body as the current task, with its own ICVs (unless it is discarded). */
static void run_body(struct lite_thread *thr, struct lite_task *t)
{
  struct lite_task *saved_task = thr->task;
  struct lite_icv saved_icv = thr->icv;
  thr->task = t;
  thr->icv = t->icv;
  if (t->fn != NULL && !discarded(thr, t))
    t->fn(t->data);
  thr->task = saved_task;
  thr->icv = saved_icv;
}

/* Runs t; returns the task to run next, as finish_body takes it. */
static struct lite_task *run_task_then(struct lite_thread *thr, struct lite_task *t,
                                       const struct wait_rule *rule, void *arg)
{
  run_body(thr, t);
  return finish_body(t->queue, t, rule, arg);
}

static void run_task(struct lite_thread *thr, struct lite_task *t)
{
  run_task_then(thr, t, NULL, NULL);
}

/* -------------------------------------------------------------------------------- waiting */

/* Waits until rule's worth_a_look says yes. The spin polls the waiting task's own words, not
   the queue's gen: gen shares the queue lock's line, which the threads making and running
   tasks need, and each poll after a change pulled that line from them. A sleeper still parks
   on gen, which every change bumps after making it. */
static void wait_for_a_change(struct lite_tasks *q, const struct wait_rule *rule, void *arg,
                              struct lite_waiter *w)
{
  while (!rule->worth_a_look(arg)) {
    if (lite_waiter_poll(w))
      continue;
    uint32_t gen = atomic_load(&q->gen);
    lite_park_begin(&q->sleepers);
    if (!rule->worth_a_look(arg) && atomic_load(&q->gen) == gen)
      lite_futex_wait(&q->gen, gen);
    lite_park_end(&q->sleepers);
    lite_waiter_init(w);
  }
}

/* Runs what rule lets it run until rule says done; between tasks, waits for the queue to change
   (spin, yield or sleep, as every wait in libomp-lite: wait.c). */
static void wait_until(struct lite_thread *thr, struct lite_tasks *q, const struct wait_rule *rule,
                       void *arg)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  for (;;) {
    uint32_t gen = atomic_load(&q->gen);
    q_lock(q);
    if (rule->done(q, arg)) {
      q_unlock(q);
      return;
    }
    struct lite_task *t = rule->pick(q, arg);
    if (t != NULL)
      take_ready(q, t);
    q_unlock(q);
    if (t != NULL) {
      while (t != NULL)
        t = run_task_then(thr, t, rule, arg);
      lite_waiter_init(&w);
      continue;
    }
    if (rule->worth_a_look != NULL) {
      wait_for_a_change(q, rule, arg, &w);
      continue;
    }
    while (atomic_load(&q->gen) == gen) {
      if (lite_waiter_poll(&w))
        continue;
      lite_park_begin(&q->sleepers);
      if (atomic_load(&q->gen) == gen)
        lite_futex_wait(&q->gen, gen);
      lite_park_end(&q->sleepers);
      lite_waiter_init(&w);
    }
  }
}

static struct lite_task *pick_any(struct lite_tasks *q, void *arg)
{
  (void)arg;
  return q->head;
}

static struct lite_task *pick_child(struct lite_tasks *q, void *task)
{
  (void)q;
  return ((struct lite_task *)task)->ready_children;
}

static struct lite_task *pick_sibling(struct lite_tasks *q, void *task)
{
  (void)q;
  return ((struct lite_task *)task)->parent->ready_children;
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
   (GCC's depend-3.c, 4 threads, workers parking at once: about 1 run in 20 hung.) */
static struct lite_task *pick_in_group(struct lite_tasks *q, void *arg)
{
  const struct group_wait *wait = arg;
  for (struct lite_task *t = q->head; t != NULL; t = t->next) {
    if (t->parent == wait->cur)
      return t;
    for (struct lite_taskgroup *g = t->group; g != NULL; g = g->prev)
      if (g == wait->group)
        return t;
  }
  return NULL;
}

static bool queue_empty(struct lite_tasks *q, void *arg)
{
  (void)arg;
  return atomic_load_explicit(&q->incomplete, memory_order_relaxed) == 0;
}

static bool no_children(struct lite_tasks *q, void *task)
{
  (void)q;
  return atomic_load_explicit(&((struct lite_task *)task)->children, memory_order_relaxed) == 0;
}

static bool no_predecessors(struct lite_tasks *q, void *task)
{
  (void)q;
  return atomic_load_explicit(&((struct lite_task *)task)->npred, memory_order_relaxed) == 0;
}

static bool task_done(struct lite_tasks *q, void *task)
{
  (void)q;
  return ((struct lite_task *)task)->state == LITE_TASK_DONE;
}

static bool group_done(struct lite_tasks *q, void *arg)
{
  (void)q;
  return ((const struct group_wait *)arg)->group->incomplete == 0;
}

/* Without the lock, what done and pick read for a taskwait (the waiting task's children) and
   for an undeferred task waiting for its dependences (its predecessors, its siblings). */
static bool children_changed(void *task)
{
  struct lite_task *t = task;
  return atomic_load_explicit(&t->children, memory_order_acquire) == 0 ||
         __atomic_load_n(&t->ready_children, __ATOMIC_ACQUIRE) != NULL;
}

static bool siblings_changed(void *task)
{
  struct lite_task *t = task;
  return atomic_load_explicit(&t->npred, memory_order_acquire) == 0 ||
         __atomic_load_n(&t->parent->ready_children, __ATOMIC_ACQUIRE) != NULL;
}

static const struct wait_rule drain_rule = {queue_empty, pick_any, NULL};
static const struct wait_rule taskwait_rule = {no_children, pick_child, children_changed};
static const struct wait_rule deps_rule = {no_predecessors, pick_sibling, siblings_changed};
static const struct wait_rule detach_rule = {task_done, pick_any, NULL};
static const struct wait_rule taskgroup_rule = {group_done, pick_in_group, NULL};

bool lite_tasks_help_slow(struct lite_thread *thr, struct lite_tasks *q)
{
  q_lock(q);
  struct lite_task *t = q->head;
  if (t != NULL)
    take_ready(q, t);
  q_unlock(q);
  if (t != NULL)
    run_task(thr, t);
  return t != NULL;
}

bool lite_tasks_help_region(struct lite_thread *thr, struct lite_tasks *q, uint32_t gen)
{
  /* Under the lock: a task of the next region was queued by a thread that had seen its
     generation, so a look at the generation after taking the lock sees it too. */
  q_lock(q);
  struct lite_task *t = NULL;
  if (atomic_load_explicit(&q->pool->gen, memory_order_relaxed) == gen && q->head != NULL) {
    t = q->head;
    take_ready(q, t);
  }
  q_unlock(q);
  if (t != NULL)
    run_task(thr, t);
  return t != NULL;
}

void lite_tasks_drain_slow(struct lite_thread *thr, struct lite_tasks *q)
{
  wait_until(thr, q, &drain_rule, NULL);
}

void lite_tasks_retire(struct lite_tasks *q)
{
  q_lock(q);
  q_unlock(q);
}

void lite_task_implicit_end(struct lite_task *t)
{
  free_dep_table(t->deps);
  t->deps = NULL;
}

/* --------------------------------------------------------------------------- entry points */

/* A new task of the current task: counted everywhere it must be waited for, its dependences
   registered. Returns it with the lock held. */
static struct lite_task *new_task(struct lite_thread *thr, struct lite_task *parent,
                                  struct lite_tasks *q, unsigned ndeps, size_t data_size,
                                  size_t data_align)
{
  size_t head = sizeof(struct lite_task) + ndeps * sizeof(void *);
  size_t size = head + (data_size != 0 ? data_size + data_align - 1 : 0);
  struct lite_task *t = task_alloc(thr, size);
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
  return t;
}

/* Counts t in and registers its dependences: under the lock. */
static void enter_task(struct lite_tasks *q, struct lite_task *parent, struct lite_task *t,
                       void **depend)
{
  count_add(&parent->children, 1);
  parent->had_children = true;
  if (t->group != NULL)
    t->group->incomplete++;
  count_add(&q->incomplete, 1);
  if (t->ndeps != 0)
    register_deps(parent, t, depend);
}

/* The encountering thread runs t now, after its dependences; a detached t also waits for its
   event, as libgomp does. */
static void run_undeferred(struct lite_thread *thr, struct lite_tasks *q, struct lite_task *t)
{
  if (atomic_load_explicit(&t->npred, memory_order_acquire) != 0)
    wait_until(thr, q, &deps_rule, t);
  run_task(thr, t);
  if (t->detach)
    wait_until(thr, q, &detach_rule, t);
  struct garbage g = {.n = 0};
  q_lock(q);
  t->creator_owns = false;
  maybe_free(t, &g);
  q_unlock(q);
  empty_garbage(&g);
}

/* After an included task's body: its children may outlive it, and the last of them to complete
   frees it (maybe_free). */
static void end_included(struct lite_tasks *q, struct lite_task *t)
{
  if (!t->had_children) {
    task_release(t);
    return;
  }
  struct garbage g = {.n = 0};
  q_lock(q);
  free_dep_table(t->deps);
  t->deps = NULL;
  t->state = LITE_TASK_DONE;
  t->creator_owns = false;
  maybe_free(t, &g);
  q_unlock(q);
  empty_garbage(&g);
}

/* An included task whose body its compiler runs itself, between the two calls (clang's task
   if(0): kmpc/task.c): the task is the thread's current one in between, as run_body makes it. */
void lite_task_included_begin(struct lite_included *inc, bool final)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *parent = lite_current_task(thr);
  struct lite_task *t = new_task(thr, parent, lite_tasks_of(thr), 0, 0, 1);
  t->final = final || parent->final;
  t->state = LITE_TASK_RUNNING;
  t->creator_owns = true;
  inc->task = t;
  inc->saved_task = thr->task;
  inc->saved_icv = thr->icv;
  thr->task = t;
  thr->icv = t->icv;
}

void lite_task_included_end(struct lite_included *inc)
{
  struct lite_thread *thr = lite_self();
  thr->task = inc->saved_task;
  thr->icv = inc->saved_icv;
  end_included(inc->task->queue, inc->task);
}

/* An undeferred task without dependences, detach or copy constructor: the encountering thread
   runs it at once and no other thread can see it, so it is neither counted nor queued, and the
   queue's lock is not taken, unless the task creates tasks of its own (they point to it).
   GCC's cancel-taskgroup-1, a tree search whose tasks below level 10 are if(0) (about 25
   million of them), took 15-30 s at 4 threads on 2 CPUs, against libgomp's 0.2 s, when each
   went through the shared lock three times; now 0.4-0.5 s (LLVM's libomp: 4.5 s). */
static void run_included(struct lite_thread *thr, struct lite_task *parent, struct lite_tasks *q,
                         void (*fn)(void *), void *data, bool final)
{
  struct lite_task *t = new_task(thr, parent, q, 0, 0, 1);
  t->fn = fn;
  t->data = data;
  t->final = final;
  t->state = LITE_TASK_RUNNING;
  t->creator_owns = true;
  run_body(thr, t);
  end_included(q, t);
}
/* The throttle: when the team's queue already holds THROTTLE_PER_MEMBER ready tasks for each
   member, a new task without depend clauses or detach runs at once on its creator, undeferred,
   as a task that is not required to be deferred may (OpenMP 5.2 §12.1: whether a task is
   deferred is up to the implementation unless its if clause is false). Every member then has
   enough queued work to stay busy while the creator runs one; and the creator stops paying
   for a queue entry, a lock and a wake-up for tasks nobody else is free to take. libgomp runs
   the same test with 64 per member (team->task_count > 64 * nthreads). The count is read
   without the lock: a stale value only moves the moment the throttle starts or stops. */
#define THROTTLE_PER_MEMBER 64

static bool throttled(struct lite_thread *thr, struct lite_tasks *q)
{
  unsigned ready = atomic_load_explicit(&q->ready, memory_order_relaxed);
  return ready > THROTTLE_PER_MEMBER * thr->team->nthreads;
}

static bool creation_cancelled(struct lite_thread *thr, struct lite_task *parent)
{
  return lite_env.cancellation &&
         ((thr->team != NULL && atomic_load(&thr->team->cancelled)) ||
          in_cancelled_group(parent->taskgroup));
}

void lite_task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, void *detach, void (*prepare)(void *, void *),
                      void *prepare_arg)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *parent = lite_current_task(thr);
  if (creation_cancelled(thr, parent))
    return;
  struct lite_tasks *q = lite_tasks_of(thr);
  bool undeferred = !if_clause || parent->final;
  bool solo = thr->team == NULL || thr->team->pool == NULL;
  unsigned ndeps = (flags & TASK_FLAG_DEPEND) ? count_deps(depend) : 0;
  bool final = (flags & TASK_FLAG_FINAL) || parent->final;
  if (!undeferred && !solo && ndeps == 0 && !(flags & TASK_FLAG_DETACH) && throttled(thr, q))
    undeferred = true;
  if (undeferred && ndeps == 0 && !(flags & TASK_FLAG_DETACH) && cpyfn == NULL &&
      prepare == NULL) {
    run_included(thr, parent, q, fn, data, final);
    return;
  }
  /* An undeferred task may use the caller's block, which outlives it; the others and a
     copy-constructed one get their own. */
  bool copy = !undeferred || cpyfn != NULL || prepare != NULL;
  size_t align = arg_align > 1 ? (size_t)arg_align : 1;
  struct lite_task *t = new_task(thr, parent, q, ndeps, copy ? (size_t)arg_size : 0, align);
  t->fn = fn;
  t->final = final;
  t->creator_owns = undeferred;
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
  q_lock(q);
  enter_task(q, parent, t, depend);
  bool no_pred = atomic_load_explicit(&t->npred, memory_order_relaxed) == 0;
  bool run_now = solo && !undeferred && no_pred;
  bool ready = !undeferred && !run_now && no_pred;
  if (run_now)
    t->state = LITE_TASK_RUNNING;
  if (ready)
    push_ready(q, t);
  q_unlock(q);
  if (ready)
    wake(q);
  if (undeferred)
    run_undeferred(thr, q, t);
  else if (run_now)
    run_task(thr, t);
}

void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
               long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
               void *detach)
{
  (void)priority; /* a hint; this queue runs tasks in creation order */
  lite_task_create(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, detach, NULL,
                   NULL);
}

void GOMP_taskwait(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *cur = thr->task;
  /* Outside the lock: only cur adds children, so 0 stays 0 */
  if (cur == NULL || atomic_load_explicit(&cur->children, memory_order_acquire) == 0)
    return;
  wait_until(thr, lite_tasks_of(thr), &taskwait_rule, cur);
}

/* taskwait depend(...): waits for the earlier sibling tasks its clauses name, through an empty
   undeferred task with those dependences. */
void GOMP_taskwait_depend(void **depend)
{
  GOMP_task(NULL, NULL, NULL, 0, 1, false, TASK_FLAG_DEPEND, depend, 0, NULL);
}

/* A task scheduling point where nothing must happen: the tasks that could run here are run by
   the other threads of the team, or at the next taskwait or barrier. */
void GOMP_taskyield(void) {}

void GOMP_taskgroup_start(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *cur = lite_current_task(thr);
  struct lite_taskgroup *g = malloc(sizeof *g);
  if (g == NULL)
    lite_fatal("out of memory starting a taskgroup");
  g->prev = cur->taskgroup;
  g->incomplete = 0;
  atomic_init(&g->cancelled, false);
  g->reductions = g->prev != NULL ? g->prev->reductions : NULL; /* in_reduction sees them */
  g->workshare = false;
  cur->taskgroup = g;
}

void GOMP_taskgroup_end(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *cur = lite_current_task(thr);
  struct lite_taskgroup *g = cur->taskgroup;
  if (g == NULL)
    return;
  struct group_wait wait = {g, cur};
  wait_until(thr, lite_tasks_of(thr), &taskgroup_rule, &wait);
  cur->taskgroup = g->prev;
  free(g);
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
  struct garbage g = {.n = 0};
  q_lock(q);
  if (t->fulfilled)
    lite_fatal("omp_fulfill_event: the event was fulfilled already");
  t->fulfilled = true;
  if (t->state == LITE_TASK_DETACHED)
    complete(q, t, &g);
  /* Under the lock, unlike elsewhere: when this thread is not a member of t's team, the team may
     end as soon as the lock is free, and a team of one goes with its encountering thread's frame
     (see lite_tasks_retire). Waking after the unlock read a reused frame's bytes as the queue's
     pool, and crashed. */
  wake(q);
  q_unlock(q);
  empty_garbage(&g);
}

int omp_in_final(void)
{
  struct lite_task *t = lite_self()->task;
  return t != NULL && t->final;
}
