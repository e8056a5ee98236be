/* The events OMPT dispatches, out of line: each hook in the runtime is one branch on
   lite_env.ompt and a call here. Each function looks up its callback once; a tool that did not
   register one costs the call and a load.

   Frames (OpenMP 5.1 section 4.4.4.28): a task's exit frame is the frame of the runtime
   procedure that called its body (lite_ompt_invoke, or kmpc/invoke.c for clang's outlined
   functions), so that a tool's unwinder finds __builtin_frame_address(1) of the body there;
   its enter frame is that of the runtime entry point it called (GOMP_parallel,
   __kmpc_fork_call, GOMP_barrier...), set while it is inside. Both are frame pointers (the
   functions that take them keep one: gcc sets one up wherever __builtin_frame_address is
   used), and zero while the task is not in that state. */
#include "ompt/ompt.h"

#include <string.h>

#define FRAME_FLAGS (ompt_frame_runtime | ompt_frame_framepointer)

/* Whether callback cb is registered: the tool may still be attached but have none. */
#define HAVE(cb) (cb != NULL)

/* ------------------------------------------------------------------------------ threads */

void lite_ompt_root_begin(struct lite_thread *thr)
{
  if (!lite_ompt_attached())
    return;
  thr->ompt_began = true;
  thr->ompt_state = ompt_state_work_serial;
  ompt_callback_thread_begin_t begin = LITE_OMPT_CB(ompt_callback_thread_begin);
  if (HAVE(begin))
    begin(ompt_thread_initial, &thr->ompt_data);
  /* Its initial task, in the implicit parallel region of one thread around it. */
  struct lite_task *t = lite_current_task(thr);
  memset(&t->ompt_data, 0, sizeof t->ompt_data);
  memset(&t->ompt_frame, 0, sizeof t->ompt_frame);
  thr->ompt_initial_parallel.value = 0;
  ompt_callback_implicit_task_t task = LITE_OMPT_CB(ompt_callback_implicit_task);
  if (HAVE(task))
    task(ompt_scope_begin, &thr->ompt_initial_parallel, &t->ompt_data, 1, 1, ompt_task_initial);
}

void lite_ompt_worker_begin(struct lite_thread *thr)
{
  if (!lite_ompt_attached())
    return;
  thr->ompt_began = true;
  thr->ompt_state = ompt_state_idle;
  ompt_callback_thread_begin_t begin = LITE_OMPT_CB(ompt_callback_thread_begin);
  if (HAVE(begin))
    begin(ompt_thread_worker, &thr->ompt_data);
}

void lite_ompt_thread_end(struct lite_thread *thr)
{
  if (!lite_ompt_attached() || !thr->ompt_began)
    return;
  thr->ompt_began = false;
  if (!thr->is_worker) {
    ompt_callback_implicit_task_t task = LITE_OMPT_CB(ompt_callback_implicit_task);
    /* OpenMP 5.1 gives a NULL parallel_data at an initial task's end; LLVM's libomp passes
       the implicit parallel region's, and tools written against it read it there: Archer
       (libarcher.so, LLVM 14) frees what it put in it at the begin, and died on NULL at every
       exit. The same region's data as at the begin, then. */
    if (HAVE(task))
      task(ompt_scope_end, &thr->ompt_initial_parallel, &thr->root_task.ompt_data, 0, 1,
           ompt_task_initial);
  }
  ompt_callback_thread_end_t end = LITE_OMPT_CB(ompt_callback_thread_end);
  if (HAVE(end))
    end(&thr->ompt_data);
}

/* ------------------------------------------------------------------------------ parallel regions */

void lite_ompt_fork_from(struct lite_thread *thr, const void *codeptr, void *enter,
                         unsigned num_threads)
{
  struct lite_task *t = lite_current_task(thr);
  t->ompt_frame.enter_frame.ptr = enter;
  t->ompt_frame.enter_frame_flags = FRAME_FLAGS;
  thr->ompt_codeptr = codeptr;
  thr->ompt_requested = num_threads != 0 ? num_threads : thr->icv.nthreads;
}

/* parallel-begin, before anything of the team exists: the tool's callback may call the OpenMP
   API and start regions of its own (OpenMP 5.1 section 4.1 puts no limit on that). Dispatched
   from inside the fork, after the pool's descriptor was marked for the next generation, a
   region the callback started in the same pool published that generation first and the
   callback's caller then published it again: its members never saw a new region and the join
   waited for them forever (issue 50). So the callback runs before the fork touches any shared
   state, as LLVM's runtime does it, and its data is copied into the team once it exists. What
   a region of the callback's own changes on this thread is put back: the parent task's enter
   frame (its fork sets it, its end clears it) and a pending reduction(task) group. */
void lite_ompt_parallel_announce(struct lite_thread *thr, unsigned n)
{
  if (!lite_ompt_attached() || thr->ompt_announced)
    return;
  const void *codeptr = thr->ompt_codeptr;
  unsigned requested = thr->ompt_requested != 0 ? thr->ompt_requested : n;
  int flags = ompt_parallel_invoker_program | ompt_parallel_team;
  thr->ompt_codeptr = NULL;
  thr->ompt_requested = 0;
  ompt_data_t data = { .value = 0 };
  ompt_callback_parallel_begin_t begin = LITE_OMPT_CB(ompt_callback_parallel_begin);
  if (HAVE(begin)) {
    struct lite_task *parent = lite_current_task(thr);
    ompt_frame_t frame = parent->ompt_frame;
    struct lite_taskgroup *group = thr->next_reduction_group;
    thr->next_reduction_group = NULL;
    begin(&parent->ompt_data, &parent->ompt_frame, &data, requested, flags, codeptr);
    parent->ompt_frame = frame;
    thr->next_reduction_group = group;
  }
  thr->ompt_announced_data = data;
  thr->ompt_announced_codeptr = codeptr;
  thr->ompt_announced_flags = flags;
  thr->ompt_announced = true;
}

void lite_ompt_parallel_begin(struct lite_thread *thr, struct lite_team *team, unsigned n)
{
  if (!lite_ompt_attached())
    return;
  lite_ompt_parallel_announce(thr, n); /* a team of one: not announced yet */
  thr->ompt_announced = false;
  team->ompt.parallel_data = thr->ompt_announced_data;
  team->ompt.codeptr = thr->ompt_announced_codeptr;
  team->ompt.encountering = thr;
  team->ompt.flags = thr->ompt_announced_flags;
}

void lite_ompt_implicit_begin(struct lite_thread *thr)
{
  if (!lite_ompt_attached())
    return;
  struct lite_task *t = thr->task;
  struct lite_team *team = thr->team;
  memset(&t->ompt_data, 0, sizeof t->ompt_data);
  memset(&t->ompt_frame, 0, sizeof t->ompt_frame);
  thr->ompt_state = ompt_state_work_parallel;
  ompt_callback_implicit_task_t task = LITE_OMPT_CB(ompt_callback_implicit_task);
  if (HAVE(task))
    task(ompt_scope_begin, &team->ompt.parallel_data, &t->ompt_data, team->nthreads, thr->id,
         ompt_task_implicit);
  lite_ompt_combined_begin(thr);
}

__attribute__((noinline)) void lite_ompt_invoke(struct lite_thread *thr, void (*fn)(void *),
                                                void *data)
{
  struct lite_task *t = thr->task;
  t->ompt_frame.exit_frame.ptr = __builtin_frame_address(0);
  t->ompt_frame.exit_frame_flags = FRAME_FLAGS;
  fn(data);
  /* The body has returned: the task is in the runtime again, at no particular frame. */
  t->ompt_frame.exit_frame.ptr = NULL;
}

/* Both halves of a barrier for the calling thread's current task. */
static void sync_events(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                        ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
  ompt_callback_sync_region_t region = LITE_OMPT_CB(ompt_callback_sync_region);
  ompt_callback_sync_region_t wait =
      (ompt_callback_sync_region_t)lite_ompt_callbacks[ompt_callback_sync_region_wait];
  if (endpoint == ompt_scope_begin) {
    if (HAVE(region))
      region(kind, endpoint, parallel, task, codeptr);
    if (HAVE(wait))
      wait(kind, endpoint, parallel, task, codeptr);
  } else {
    if (HAVE(wait))
      wait(kind, endpoint, parallel, task, codeptr);
    if (HAVE(region))
      region(kind, endpoint, parallel, task, codeptr);
  }
}

void lite_ompt_join_begin(struct lite_thread *thr)
{
  if (!lite_ompt_attached())
    return;
  struct lite_team *team = thr->team;
  /* The region's return address is the encountering thread's: a worker's implicit barrier has
     no user code of its own to return to (LLVM passes NULL, which tools expect). */
  thr->ompt_join_codeptr = thr->id == 0 ? team->ompt.codeptr : NULL;
  thr->ompt_state = ompt_state_wait_barrier_implicit_parallel;
  sync_events(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin,
              &team->ompt.parallel_data, &thr->task->ompt_data, thr->ompt_join_codeptr);
}

void lite_ompt_member_run(struct lite_thread *thr, void (*fn)(void *), void *data)
{
  lite_ompt_implicit_begin(thr);
  lite_ompt_invoke(thr, fn, data);
  lite_ompt_join_begin(thr);
}

/* The end of a member's implicit task, after the join: the region may already be over (a
   worker does not wait for the others), so no parallel data goes with it. parallelism: the
   team's size for the primary thread, 0 for the others, as LLVM's runtime reports them (its
   test tasks/taskloop.c checks the primary's). */
static void implicit_end(struct lite_thread *thr, ompt_data_t *task_data, bool joined,
                         unsigned parallelism)
{
  if (joined)
    sync_events(ompt_sync_region_barrier_implicit_parallel, ompt_scope_end, NULL, task_data,
                thr->ompt_join_codeptr);
  ompt_callback_implicit_task_t task = LITE_OMPT_CB(ompt_callback_implicit_task);
  if (HAVE(task))
    task(ompt_scope_end, NULL, task_data, parallelism, thr->id, ompt_task_implicit);
}

/* Whether the leader has gathered the join of region gen (or a later one). */
static bool join_gathered(struct lite_pool *pool, uint32_t gen)
{
  return (int32_t)(atomic_load_explicit(&pool->ompt_joined, memory_order_acquire) - gen) >= 0;
}

void lite_ompt_member_end(struct lite_thread *thr, struct lite_task *implicit,
                          struct lite_team *team, struct lite_pool *pool, uint32_t gen)
{
  /* The member is released from the implicit barrier when every member has arrived, which
     only the leader's gather knows: it waits for that, as a member of a barrier would, before
     the barrier's end (a tool's happens-before edge from the others' work to this thread's
     next) and its implicit task's. Meanwhile it runs the tasks other members still make, in
     its implicit task, as it would on call (team.c stay_on_call), and parks where members on
     call park: a ready task and lite_ompt_join_done both ring call_word. Waited for even
     after a finalize (LITE_OMPT_FINALIZED), where the leader still says when the join ends. */
  struct lite_tasks *q = &team->tasks;
  struct lite_waiter w;
  lite_waiter_init(&w);
  while (!join_gathered(pool, gen)) {
    if (atomic_load_explicit(&q->ready, memory_order_relaxed) != 0) {
      thr->team = team;
      thr->task = implicit;
      bool ran = lite_tasks_help_region(thr, q, gen);
      thr->team = NULL;
      thr->task = NULL;
      if (ran) {
        lite_waiter_init(&w);
        continue;
      }
    }
    if (lite_waiter_poll(&w))
      continue;
    uint32_t bell = atomic_load(&pool->call_word);
    lite_park_begin(&pool->gen_sleepers);
    if (!join_gathered(pool, gen) && atomic_load(&q->ready) == 0)
      lite_futex_wait(&pool->call_word, bell);
    lite_park_end(&pool->gen_sleepers);
    lite_waiter_init(&w);
  }
  if (!lite_ompt_attached())
    return;
  implicit_end(thr, &implicit->ompt_data, true, 0);
  thr->ompt_state = ompt_state_idle;
}

void lite_ompt_join_done(struct lite_pool *pool, uint32_t gen)
{
  /* Sequentially consistent store, then lite_wake_on_call's read of the sleepers: pairs with
     lite_park_begin and the re-read above. */
  atomic_store(&pool->ompt_joined, gen);
  lite_wake_on_call(pool);
}

void lite_ompt_parallel_end(struct lite_thread *thr, struct lite_team *team, bool joined)
{
  if (!lite_ompt_attached())
    return;
  /* The thread has left the team: a region a callback below starts at the same level reuses
     the pool's team and rewrites it. What the events need of it is read first. */
  ompt_data_t parallel_data = team->ompt.parallel_data;
  ompt_data_t task_data = team->leader_task.ompt_data;
  const void *codeptr = team->ompt.codeptr;
  int flags = team->ompt.flags;
  unsigned nthreads = team->nthreads;
  unsigned id = thr->id;
  thr->id = 0; /* the leader's number in the team it left */
  if (joined)
    thr->ompt_join_codeptr = codeptr;
  implicit_end(thr, &task_data, joined, nthreads);
  thr->id = id;
  thr->ompt_state = thr->team != NULL ? ompt_state_work_parallel : ompt_state_work_serial;
  struct lite_task *parent = lite_current_task(thr);
  ompt_callback_parallel_end_t end = LITE_OMPT_CB(ompt_callback_parallel_end);
  if (HAVE(end))
    end(&parallel_data, &parent->ompt_data, flags, codeptr);
  parent->ompt_frame.enter_frame.ptr = NULL;
}

/* ------------------------------------------------------------------------------ barriers */

/* The parallel region binding thr's barrier: its team's, or its initial task's. */
static ompt_data_t *binding_region(struct lite_thread *thr)
{
  return thr->team != NULL ? &thr->team->ompt.parallel_data : &thr->ompt_initial_parallel;
}

static int wait_state(ompt_sync_region_t kind)
{
  return kind == ompt_sync_region_barrier_explicit ? ompt_state_wait_barrier_explicit
         : kind == ompt_sync_region_barrier_implicit_workshare
             ? ompt_state_wait_barrier_implicit_workshare
             : ompt_state_wait_barrier_implementation;
}

/* A barrier from its entry point: the task's enter frame is this call's while it waits. */
__attribute__((noinline)) static struct lite_task *barrier_enter(struct lite_thread *thr,
                                                                 ompt_sync_region_t kind,
                                                                 const void *codeptr,
                                                                 void *frame)
{
  struct lite_task *t = lite_current_task(thr);
  t->ompt_frame.enter_frame.ptr = frame;
  t->ompt_frame.enter_frame_flags = FRAME_FLAGS;
  thr->ompt_state = wait_state(kind);
  sync_events(kind, ompt_scope_begin, binding_region(thr), &t->ompt_data, codeptr);
  return t;
}

static void barrier_leave(struct lite_thread *thr, struct lite_task *t, ompt_sync_region_t kind,
                          const void *codeptr)
{
  sync_events(kind, ompt_scope_end, binding_region(thr), &t->ompt_data, codeptr);
  thr->ompt_state = thr->team != NULL ? ompt_state_work_parallel : ompt_state_work_serial;
  t->ompt_frame.enter_frame.ptr = NULL;
}

__attribute__((noinline)) void lite_ompt_barrier(struct lite_thread *thr, ompt_sync_region_t kind,
                                                 const void *codeptr)
{
  if (!lite_ompt_attached()) {
    lite_barrier_wait(thr);
    return;
  }
  struct lite_task *t = barrier_enter(thr, kind, codeptr, __builtin_frame_address(0));
  lite_barrier_wait(thr);
  barrier_leave(thr, t, kind, codeptr);
}

__attribute__((noinline)) bool lite_ompt_barrier_cancel(struct lite_thread *thr,
                                                        ompt_sync_region_t kind,
                                                        const void *codeptr)
{
  if (!lite_ompt_attached())
    return lite_barrier_wait_cancel(thr);
  struct lite_task *t = barrier_enter(thr, kind, codeptr, __builtin_frame_address(0));
  bool cancelled = lite_barrier_wait_cancel(thr);
  barrier_leave(thr, t, kind, codeptr);
  return cancelled;
}
