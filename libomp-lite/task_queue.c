/* The members' ready queues of a team's explicit tasks.

   Each member of a team has its own queue of ready tasks (struct lite_member_q), each under its
   own small lock: the member pushes the tasks it makes (and those its completions release) at
   the tail and takes its next task from the tail too, newest first, as a depth-first walk of
   the task tree wants; a member with nothing to run steals at another member's head, the
   oldest task there (closest to the root of a tree, so the most work for one steal), trying the
   members nearest to it first (lite_bind_nearest: by the topology; without one, by member
   number around its own: id+1, id-1, id+2, ...). A thief with nothing else to do leaves a short
   queue to its maker while the maker is still making tasks, and takes half of a longer queue at
   once (steal_batch below), so that a creator feeding thieves meets them on its queue's line
   once per batch, not once per task. Tasks with a priority wait in a second list, highest
   first, taken before the others by owner and thief alike.

   A lock per queue instead of a lock-free deque (Chase-Lev): the owner's lock is uncontended
   unless a thief is at the same queue, so it costs one locked instruction on a line the owner
   holds (~5 ns here), and a waiting task's rules (a taskwait runs only the waiting task's
   children, a taskgroup end only the group's tasks) need to look inside the queue and take a
   task from its middle, which a deque cannot do safely. See docs/architecture.md, A task.

   The team-wide words are touched rarely: `ready` counts the queues that have held a task
   since a look found them empty (count_in; barrier waiters read it to know whether to look),
   and `holding`, on the same line and written with it, says which (a bit per member, for the
   first 256), so that a thief reads one line instead of every member's; `used` is set once;
   the counts of tasks made and completed are per member (single writer each) and summed only
   by a thread that waits for all of them (the drain at a barrier). */
#include "task_queue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void mq_lock(struct lite_member_q *mq) { lite_mutex_lock(&mq->lock); }
static inline void mq_unlock(struct lite_member_q *mq) { lite_mutex_unlock(&mq->lock); }

static struct lite_member_q *member_queue(struct lite_tasks *q, unsigned m)
{
  return lite_tq_member_queue(q, m);
}

struct lite_member_q *lite_tq_own(struct lite_tasks *q, unsigned m)
{
  struct lite_member_q *mq = member_queue(q, m);
  if (lite_likely(mq != NULL))
    return mq;
  /* Once per member and queue (the pool's queue lives as long as the pool). */
  lite_mutex_lock(&q->lock);
  struct lite_member_q *_Atomic *members = q->members;
  if (members == NULL) {
    members = calloc(LITE_MAX_TEAM_THREADS, sizeof *members);
    if (members == NULL)
      lite_fatal("out of memory for task queues");
    __atomic_store_n(&q->members, members, __ATOMIC_RELEASE);
  }
  /* Zeroed pages of its own, on the node of the member, which is the caller (every caller
     asks for its own queue) and writes it first (affinity/home.c). */
  mq = lite_home_alloc(sizeof *mq);
  if (mq == NULL)
    lite_fatal("out of memory for task queues");
  lite_home_here(mq, sizeof *mq);
  mq->member = m;
  atomic_store_explicit(&members[m], mq, memory_order_release);
  if (m + 1 > atomic_load_explicit(&q->nmembers, memory_order_relaxed))
    atomic_store_explicit(&q->nmembers, m + 1, memory_order_release);
  lite_mutex_unlock(&q->lock);
  return mq;
}

/* Under the member's queue lock, with its count in ready: its bit in the summary. */
static void mark_holding(struct lite_tasks *q, unsigned m, bool on)
{
  if (m >= LITE_TQ_HOLDING_MEMBERS)
    return;
  uint64_t bit = 1ull << (m % 64);
  if (on)
    atomic_fetch_or_explicit(&q->holding[m / 64], bit, memory_order_relaxed);
  else
    atomic_fetch_and_explicit(&q->holding[m / 64], ~bit, memory_order_relaxed);
}

/* Whether member m may hold tasks, by a snapshot of the summary (members without a bit: yes). */
static bool may_hold(const uint64_t *held, unsigned m)
{
  return m >= LITE_TQ_HOLDING_MEMBERS || (held[m / 64] >> (m % 64) & 1) != 0;
}

static void snapshot_holding(struct lite_tasks *q, unsigned n, uint64_t *held)
{
  for (unsigned w = 0; w < LITE_TQ_HOLDING_MEMBERS / 64; w++)
    held[w] = w * 64 < n ? atomic_load_explicit(&q->holding[w], memory_order_relaxed) : 0;
}

/* Under mq's lock: one more or one fewer task. The team's ready counts the queues that have
   held a task since a look found them empty: a push counts its queue if it is not counted, and
   nobody uncounts it when it empties, but a thread that looked for a task everywhere and found
   none (lite_tq_settle, below). So a creator whose tasks a thief takes one by one, the queue going
   empty at each, does not write the team's line at each task, which it did when the count
   followed the queues exactly (taskbench, 2 threads, a 570 ns round trip: task-create 0.66 ->
   0.62 us a task, master-busy 0.59 -> 0.53, taskgroup 18.3 -> 16.2 us). A counted queue may
   be empty; an uncounted one never holds a task, which is what a waiter about to sleep needs. */
static void count_in(struct lite_tasks *q, struct lite_member_q *mq, int delta)
{
  unsigned n = atomic_load_explicit(&mq->n, memory_order_relaxed);
  atomic_store_explicit(&mq->n, n + (unsigned)delta, memory_order_relaxed);
  if (delta > 0 && !atomic_load_explicit(&mq->counted, memory_order_relaxed)) {
    atomic_store_explicit(&mq->counted, true, memory_order_relaxed);
    mark_holding(q, mq->member, true);
    atomic_fetch_add(&q->ready, 1);
    lite_tq_count_touch();
  }
}

/* After a look that found no task for a thread: the queues counted in ready and empty now
   (those of every member the queue ever had: a smaller team may follow a larger one) are no
   longer counted, so that ready reads 0 once no task is queued, and the waiters that read it
   go to sleep. */
void lite_tq_settle(struct lite_tasks *q)
{
  if (atomic_load_explicit(&q->ready, memory_order_relaxed) == 0)
    return;
  unsigned n = atomic_load_explicit(&q->nmembers, memory_order_acquire);
  uint64_t held[LITE_TQ_HOLDING_MEMBERS / 64];
  snapshot_holding(q, n == 0 ? 1 : n, held);
  for (unsigned m = 0; m < (n == 0 ? 1 : n); m++) {
    if (!may_hold(held, m))
      continue;
    struct lite_member_q *mq = member_queue(q, m);
    if (mq == NULL || !atomic_load_explicit(&mq->counted, memory_order_relaxed) ||
        atomic_load_explicit(&mq->n, memory_order_relaxed) != 0)
      continue;
    mq_lock(mq);
    if (atomic_load_explicit(&mq->counted, memory_order_relaxed) &&
        atomic_load_explicit(&mq->n, memory_order_relaxed) == 0) {
      atomic_store_explicit(&mq->counted, false, memory_order_relaxed);
      mark_holding(q, m, false);
      atomic_fetch_sub(&q->ready, 1);
      lite_tq_count_touch();
    }
    mq_unlock(mq);
  }
}

/* Under mq's lock: t at its tail. */
static void append(struct lite_tasks *q, struct lite_member_q *mq, struct lite_task *t)
{
  t->next = NULL;
  t->prev = mq->tail;
  if (mq->tail != NULL)
    mq->tail->next = t;
  else
    mq->head = t;
  mq->tail = t;
  count_in(q, mq, 1);
}

void lite_tq_push(struct lite_tasks *q, struct lite_member_q *mq, struct lite_task *t)
{
  /* Counted where a waiter looks before the task can be taken (a taker subtracts after). */
  atomic_fetch_add_explicit(&t->parent->kids_queued, 1, memory_order_release);
  if (t->group != NULL)
    atomic_fetch_add_explicit(&t->group->queued, 1, memory_order_release);
  __atomic_store_n(&t->state, LITE_TASK_READY, __ATOMIC_RELAXED);
  mq_lock(mq);
  if (t->priority > 0) {
    /* Highest first; among equals, oldest first. */
    struct lite_task **at = &mq->prio;
    while (*at != NULL && (*at)->priority >= t->priority)
      at = &(*at)->next;
    t->next = *at;
    *at = t;
    count_in(q, mq, 1);
  } else
    append(q, mq, t);
  mq_unlock(mq);
}

/* Under mq's lock: the first task ok accepts, and takes it out. From the priority list first;
   then the owner from the tail, a thief from the head. */
static struct lite_task *take_from(struct lite_tasks *q, struct lite_member_q *mq, bool owner,
                                   lite_tq_filter ok, void *arg)
{
  for (struct lite_task **at = &mq->prio; *at != NULL; at = &(*at)->next) {
    struct lite_task *t = *at;
    if (ok == NULL || ok(t, arg)) {
      *at = t->next;
      count_in(q, mq, -1);
      return t;
    }
  }
  struct lite_task *t = owner ? mq->tail : mq->head;
  while (t != NULL && ok != NULL && !ok(t, arg))
    t = owner ? t->prev : t->next;
  if (t == NULL)
    return NULL;
  if (t->prev != NULL)
    t->prev->next = t->next;
  else
    mq->head = t->next;
  if (t->next != NULL)
    t->next->prev = t->prev;
  else
    mq->tail = t->prev;
  count_in(q, mq, -1);
  return t;
}

/* After the unlock: the task is running, and no longer ready for its parent or group. */
static struct lite_task *taken(struct lite_task *t)
{
  if (t == NULL)
    return NULL;
  __atomic_store_n(&t->state, LITE_TASK_RUNNING, __ATOMIC_RELAXED);
  atomic_fetch_add_explicit(&t->parent->kids_taken, 1, memory_order_relaxed);
  if (t->group != NULL)
    atomic_fetch_add_explicit(&t->group->taken, 1, memory_order_relaxed);
  lite_tq_count_op();
  return t;
}

/* The team's nearest-first order for member me of n (NULL: by member number). */
static const unsigned *steal_order(struct lite_thread *thr, unsigned me, unsigned n)
{
  if (n <= 2 || thr == NULL || thr->team == NULL || thr->team->pool == NULL ||
      thr->team->nthreads != n || thr->id != me)
    return NULL;
  return lite_bind_nearest(thr, thr->team->pool, n);
}

/* How a thief with nothing else to do steals (lite_tq_take, idle): from a short queue
   (SHORT_QUEUE_TASKS tasks or fewer) only once its maker has made no task for
   SHORT_QUEUE_PATIENCE_NS, and from a longer queue half of its tasks at once (at most
   STEAL_BATCH_MAX), the first to run and the others to its own queue.
   Taken one by one, as soon as they appeared, the tasks of one creator cost that creator its
   queue's line at every task: the thief had locked it since (taskbench task-create at 2 threads,
   a 570 ns round trip: 0.60 us a task, a round trip, against LLVM's 0.98). While it waits, the
   thief does not read the queue, so the creator pushes its next tasks on a line it holds.
   The patience starts again while the maker makes tasks (its count of tasks made grew since the
   thief's last look), so that a maker that makes a task or two and runs them itself, over and
   over, keeps them. Before, with a patience of 2 us from the first sighting only, a taskloop of
   one task per thread (taskbench taskloop, 2 threads, 512 iterations of a[i]++ a task) lost one
   task to the thief every 2 us and then waited at the taskgroup's end for the thief to bring
   the data back: 1.0-2.2 us a loop from run to run, 10-20 % of the iterations away; now 0.85 us,
   none away. A chain of dependent tasks stays with its maker the same way: task-dep-chain
   0.66 -> 0.12 us a task, where the thief had run every link.
   A short queue that no task is added to waits at most the patience, 2 us: nothing beside the
   wake-up of a sleeping thread (tens of us) or a task worth running elsewhere. The patience
   with every other queue runs from the first sighting, so that a busy maker's queue does not
   hold off the thief from another queue's lone task. */
#define SHORT_QUEUE_TASKS 2
#define SHORT_QUEUE_PATIENCE_NS 2000
#define STEAL_BATCH_MAX 32

/* A thief's patience: since when it has seen only short queues (0: it is not waiting); the
   first of them, which it does not read again until the patience is over; since when that
   queue's maker has made no task, and its count of tasks made then. */
static LITE_THREAD_LOCAL struct {
  uint64_t since;
  const struct lite_member_q *queue; /* compared, never followed, but for its counts */
  uint64_t queue_since;
  unsigned long created;
} patience;

static bool is_short(unsigned n) { return n != 0 && n <= SHORT_QUEUE_TASKS; }

/* Whether a thief with nothing else to do leaves vq alone for now (above). */
static bool wait_for_more(const struct lite_member_q *vq)
{
  uint64_t now;
  if (patience.since != 0 && vq == patience.queue) {
    now = lite_now_ns();
    if (now - patience.queue_since < SHORT_QUEUE_PATIENCE_NS)
      return true;
    unsigned long created = atomic_load_explicit(&vq->created, memory_order_relaxed);
    if (created == patience.created ||
        !is_short(atomic_load_explicit(&vq->n, memory_order_relaxed)))
      return false;
    patience.queue_since = now; /* its maker is still at work on it: wait again */
    patience.created = created;
    return true;
  }
  if (!is_short(atomic_load_explicit(&vq->n, memory_order_relaxed)))
    return false;
  now = lite_now_ns();
  if (patience.since == 0) {
    patience.since = patience.queue_since = now;
    patience.queue = vq;
    patience.created = atomic_load_explicit(&vq->created, memory_order_relaxed);
    return true;
  }
  return now - patience.since < SHORT_QUEUE_PATIENCE_NS;
}

/* Puts the tasks a thief took from another queue, still ready and counted so for their
   parents and groups, in the thief's own queue. */
static void requeue(struct lite_tasks *q, unsigned me, struct lite_task **moved, unsigned k)
{
  struct lite_member_q *mq = lite_tq_own(q, me);
  mq_lock(mq);
  for (unsigned i = 0; i < k; i++)
    append(q, mq, moved[i]);
  mq_unlock(mq);
  /* As after a push: while they moved, the tasks were in no queue, and a thread that looked
     then found none and may be going to sleep. */
  lite_tasks_wake(q);
}

/* Steals from vq for a thief with nothing else to do (above): the task it runs next, after
   moving the others of its batch to its own queue. */
static struct lite_task *steal_batch(struct lite_tasks *q, struct lite_member_q *vq, unsigned me,
                                     lite_tq_filter ok, void *arg)
{
  struct lite_task *moved[STEAL_BATCH_MAX];
  unsigned k = 0;
  mq_lock(vq);
  struct lite_task *t = take_from(q, vq, false, ok, arg);
  if (t != NULL && t->priority == 0) {
    unsigned more = atomic_load_explicit(&vq->n, memory_order_relaxed) / 2;
    while (k < more && k < STEAL_BATCH_MAX && vq->prio == NULL && vq->head != NULL &&
           (moved[k] = take_from(q, vq, false, ok, arg)) != NULL)
      k++;
  }
  mq_unlock(vq);
  if (k != 0)
    requeue(q, me, moved, k);
  return t;
}

struct lite_task *lite_tq_take(struct lite_thread *thr, struct lite_tasks *q, unsigned me,
                               unsigned n, lite_tq_filter ok, void *arg, bool idle)
{
  struct lite_member_q *mq = member_queue(q, me);
  if (mq != NULL && atomic_load_explicit(&mq->n, memory_order_relaxed) != 0) {
    mq_lock(mq);
    struct lite_task *t = take_from(q, mq, true, ok, arg);
    mq_unlock(mq);
    if (t != NULL)
      return taken(t);
  }
  if (n <= 1 || atomic_load_explicit(&q->ready, memory_order_relaxed) == 0) {
    lite_tq_settle(q);
    return NULL;
  }
  const unsigned *near = steal_order(thr, me, n);
  bool waiting = false; /* for a short queue: not a look that found nothing */
  /* Which queues hold tasks, from one line: a thief of 256 members looked at up to 255 queues'
     lines, one miss each, to find the one that a single producer fills. */
  uint64_t held[LITE_TQ_HOLDING_MEMBERS / 64];
  snapshot_holding(q, n, held);
  for (unsigned d = 1; d < n; d++) {
    unsigned victim = near != NULL ? near[d - 1]
                      : d % 2     ? (me + (d + 1) / 2) % n
                                  : (me + n - (d / 2) % n) % n;
    if (victim == me || !may_hold(held, victim))
      continue;
    struct lite_member_q *vq = member_queue(q, victim);
    if (vq == NULL)
      continue;
    if (idle && wait_for_more(vq)) {
      waiting = true;
      continue;
    }
    if (atomic_load_explicit(&vq->n, memory_order_relaxed) == 0)
      continue;
    lite_tq_count_touch();
    struct lite_task *t;
    if (idle)
      t = steal_batch(q, vq, me, ok, arg);
    else {
      mq_lock(vq);
      t = take_from(q, vq, false, ok, arg);
      mq_unlock(vq);
    }
    if (t != NULL) {
      patience.since = 0;
      lite_tasks_pass_on(q);
      return taken(t);
    }
  }
  if (waiting)
    return NULL;
  patience.since = 0;
  lite_tq_settle(q);
  return NULL;
}

/* Completed counts first, then created: a task's creation is counted before it can run, so
   every completion read is matched by a creation read after it, and equal sums mean that no
   task read as created is incomplete. Sequentially consistent, with the counters' stores. */
bool lite_tq_idle(struct lite_tasks *q)
{
  unsigned n = atomic_load_explicit(&q->nmembers, memory_order_acquire);
  if (n == 0)
    n = 1;
  unsigned long completed = atomic_load(&q->foreign_completed);
  for (unsigned m = 0; m < n; m++) {
    struct lite_member_q *mq = member_queue(q, m);
    if (mq != NULL)
      completed += atomic_load(&mq->completed);
  }
  unsigned long created = 0;
  for (unsigned m = 0; m < n; m++) {
    struct lite_member_q *mq = member_queue(q, m);
    if (mq != NULL)
      created += atomic_load(&mq->created);
  }
  return created == completed;
}

/* The task blocks given back to mq's member and not taken (task.c). */
static void free_returns(struct lite_member_q *mq)
{
  struct lite_task *t = atomic_exchange_explicit(&mq->returns, NULL, memory_order_acquire);
  while (t != NULL) {
    struct lite_task *next = t->next;
    free(t);
    t = next;
  }
}

void lite_tq_free_returns(struct lite_tasks *q, unsigned m)
{
  struct lite_member_q *mq = member_queue(q, m);
  if (mq != NULL && atomic_load_explicit(&mq->returns, memory_order_relaxed) != NULL)
    free_returns(mq);
}

void lite_tq_free(struct lite_tasks *q)
{
  free_returns(&q->local);
  atomic_store_explicit(&q->local.counted, false, memory_order_relaxed);
  atomic_store_explicit(&q->ready, 0, memory_order_relaxed);
  for (unsigned w = 0; w < LITE_TQ_HOLDING_MEMBERS / 64; w++)
    atomic_store_explicit(&q->holding[w], 0, memory_order_relaxed);
  struct lite_member_q *_Atomic *members = q->members;
  if (members == NULL)
    return;
  for (unsigned m = 1; m < LITE_MAX_TEAM_THREADS; m++) {
    struct lite_member_q *mq = atomic_load_explicit(&members[m], memory_order_relaxed);
    if (mq != NULL) {
      free_returns(mq);
      lite_home_free(mq, sizeof *mq);
    }
  }
  free(members);
  q->members = NULL;
  atomic_store_explicit(&q->nmembers, 0, memory_order_relaxed);
}

/* ----------------------------------------------------------------- contention counters */

LITE_THREAD_LOCAL unsigned long lite_tq_ops, lite_tq_touches;
static _Atomic unsigned long total_ops, total_touches;
static bool counters_on;

__attribute__((constructor)) static void counters_init(void)
{
  const char *v = getenv("OMPLITE_TASK_COUNTERS");
  counters_on = v != NULL && *v != '\0' && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

void lite_tq_counters_flush(void)
{
  if (!counters_on)
    return;
  atomic_fetch_add_explicit(&total_ops, lite_tq_ops, memory_order_relaxed);
  atomic_fetch_add_explicit(&total_touches, lite_tq_touches, memory_order_relaxed);
  lite_tq_ops = lite_tq_touches = 0;
}

__attribute__((destructor)) static void counters_print(void)
{
  if (!counters_on)
    return;
  lite_tq_counters_flush();
  unsigned long ops = atomic_load(&total_ops), touches = atomic_load(&total_touches);
  fprintf(stderr, "# libomp-lite task counters: %lu task operations, %lu shared touches (%.3f per "
                  "operation)\n",
          ops, touches, ops != 0 ? (double)touches / (double)ops : 0.0);
}
