/* The members' ready queues of a team's tasks (task_queue.c), for task.c. */
#ifndef LITE_TASK_QUEUE_H
#define LITE_TASK_QUEUE_H

#include "internal.h"

/* Which member of q's team thr is: its number in the team when q is its team's, else 0 (a team
   of one, a thread outside any region, or a thread of another team fulfilling an event). */
static inline unsigned lite_tq_member(const struct lite_thread *thr, const struct lite_tasks *q)
{
  return thr != NULL && thr->team != NULL && &thr->team->tasks == q && thr->team->pool != NULL
             ? thr->id
             : 0;
}

/* Task t's children not complete yet, and those of them in a ready queue (struct lite_task).
   The count on the other threads' line is read first: the difference is never below the true
   count at the second read, so a waiter may look once too often but never sleeps through a
   change. Exact for the thread that runs t, the only one that makes its children. */
static inline unsigned lite_task_kids_live(const struct lite_task *t)
{
  unsigned done = atomic_load_explicit(&t->kids_done, memory_order_acquire);
  return atomic_load_explicit(&t->kids_made, memory_order_relaxed) - done;
}
static inline unsigned lite_task_kids_ready(const struct lite_task *t)
{
  unsigned taken = atomic_load_explicit(&t->kids_taken, memory_order_acquire);
  return atomic_load_explicit(&t->kids_queued, memory_order_acquire) - taken;
}

/* The same for a taskgroup's tasks. */
static inline unsigned lite_group_live(const struct lite_taskgroup *g)
{
  unsigned done = atomic_load_explicit(&g->done, memory_order_acquire);
  return atomic_load_explicit(&g->made, memory_order_acquire) - done;
}
static inline unsigned lite_group_ready(const struct lite_taskgroup *g)
{
  unsigned taken = atomic_load_explicit(&g->taken, memory_order_acquire);
  return atomic_load_explicit(&g->queued, memory_order_acquire) - taken;
}

/* Member m's queue, allocated at the first call for it (under q's lock). */
struct lite_member_q *lite_tq_own(struct lite_tasks *q, unsigned m);

/* Puts t, ready, at the owner's end of queue mq of q (its priority list if it has one). */
void lite_tq_push(struct lite_tasks *q, struct lite_member_q *mq, struct lite_task *t);

/* Takes a ready task that ok (NULL: any) accepts, for member `me` of a team of n: from its own
   queue first (highest priority, then the newest), then from the other members' (highest
   priority, then the oldest), nearest first. NULL if none. idle: the thread has nothing else
   to do (a barrier, the end of its region), so it may leave a short queue to its maker for a
   while and steal several tasks at once (task_queue.c); a waiter for some tasks only (taskwait,
   taskgroup end, dependences) takes one at a time, at once. */
typedef bool (*lite_tq_filter)(const struct lite_task *t, void *arg);
struct lite_task *lite_tq_take(struct lite_thread *thr, struct lite_tasks *q, unsigned me,
                               unsigned n, lite_tq_filter ok, void *arg, bool idle);

/* Member m's queue, NULL if it has none yet. */
static inline struct lite_member_q *lite_tq_member_queue(struct lite_tasks *q, unsigned m)
{
  if (m == 0)
    return &q->local;
  struct lite_member_q *_Atomic *members = __atomic_load_n(&q->members, __ATOMIC_ACQUIRE);
  return members != NULL ? atomic_load_explicit(&members[m], memory_order_acquire) : NULL;
}

/* Tasks queued in member m's queue (0 if it has none): read without a lock (inline: the
   throttle reads it for every task, task.c). */
static inline unsigned lite_tq_length(struct lite_tasks *q, unsigned m)
{
  struct lite_member_q *mq = lite_tq_member_queue(q, m);
  return mq != NULL ? atomic_load_explicit(&mq->n, memory_order_relaxed) : 0;
}

/* Uncounts from q's ready the member queues that are empty (task_queue.c, count_in): after a
   look that found no task, or when every task is complete. */
void lite_tq_settle(struct lite_tasks *q);

/* After a change a waiter may wait for (a task made ready, a task complete): wakes q's
   sleepers, and a thread parked in a barrier of its team if a task is ready (task.c). */
void lite_tasks_wake(struct lite_tasks *q);
/* After a thief took a task: if the team may still hold ready tasks, wakes one more thread
   parked in a barrier of the team (task.c). */
void lite_tasks_pass_on(struct lite_tasks *q);

/* Whether every task made in q is complete (the sums of the members' counts agree). */
bool lite_tq_idle(struct lite_tasks *q);

/* Frees the task blocks other threads gave back to member m (task.c), for a member going idle. */
void lite_tq_free_returns(struct lite_tasks *q, unsigned m);

/* Frees the member queues (the queue's memory is about to go). */
void lite_tq_free(struct lite_tasks *q);

/* The contention counters (OMPLITE_TASK_COUNTERS): a task operation (creation, start,
   completion), and a touch of a line or lock shared with other members (another member's queue,
   the team's ready count or lock, a parent's dependence lock). Per thread; added to the
   process's totals at the end of each implicit task, printed at exit. */
extern LITE_THREAD_LOCAL unsigned long lite_tq_ops, lite_tq_touches;
static inline void lite_tq_count_op(void) { lite_tq_ops++; }
static inline void lite_tq_count_touch(void) { lite_tq_touches++; }
void lite_tq_counters_flush(void);

#endif
