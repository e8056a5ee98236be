/* The task events (OpenMP 5.1 sections 4.5.2.7-4.5.2.10): task-create, task-schedule,
   dependences and task-dependence, dispatched from task.c and kmpc/task.c, each behind one
   lite_ompt_on() branch there (a taskloop's tasks are made as tasks of their own while a tool
   is attached: taskloop.c).

   What a tool sees is the task that exists: a task task.c runs at once on its creator is a real
   descriptor while a tool is attached (task.c skips its ephemeral path then), so its task_data
   stays put for its whole life, from task-create to its completing task-schedule; an included
   task on a block of the thread's cache (clang's if(0)) has its own block
   for its life too, and keeps its data if it becomes a real descriptor (task.c, promote).

   Frames: a task's exit frame is the frame of the runtime procedure that calls its body
   (lite_ompt_task_run here; kmpc/task.c's run_task for clang's task entry; for clang's if(0),
   which calls the body from user code, the user's frame); the creating task's enter frame is
   set by the creating entry point while it is inside (task.c, task_create_traced). */
#include "ompt/ompt.h"

#include <string.h>

#define FRAME_FLAGS (ompt_frame_runtime | ompt_frame_framepointer)

void lite_ompt_task_create(struct lite_task *parent, struct lite_task *t, int type,
                           bool has_deps, const void *codeptr)
{
  t->ompt_type = type;
  if (!lite_ompt_attached())
    return;
  ompt_callback_task_create_t cb = LITE_OMPT_CB(ompt_callback_task_create);
  if (cb != NULL)
    cb(&parent->ompt_data, &parent->ompt_frame, &t->ompt_data, type, has_deps, codeptr);
}

void lite_ompt_task_schedule(struct lite_task *prior, ompt_task_status_t status,
                             struct lite_task *next)
{
  if (!lite_ompt_attached() || prior == NULL)
    return;
  ompt_callback_task_schedule_t cb = LITE_OMPT_CB(ompt_callback_task_schedule);
  if (cb != NULL)
    cb(&prior->ompt_data, status, next != NULL ? &next->ompt_data : NULL);
}

void lite_ompt_dependences(struct lite_task *t, const ompt_dependence_t *deps, int n)
{
  if (!lite_ompt_attached())
    return;
  ompt_callback_dependences_t cb = LITE_OMPT_CB(ompt_callback_dependences);
  if (cb != NULL)
    cb(&t->ompt_data, deps, n);
}

void lite_ompt_task_dependence(struct lite_task *pred, struct lite_task *succ)
{
  if (!lite_ompt_attached())
    return;
  ompt_callback_task_dependence_t cb = LITE_OMPT_CB(ompt_callback_task_dependence);
  if (cb != NULL)
    cb(&pred->ompt_data, &succ->ompt_data);
}

__attribute__((noinline)) void lite_ompt_task_run(struct lite_task *prior, struct lite_task *t,
                                                  bool run, ompt_task_status_t why)
{
  t->ompt_sched_parent = prior;
  lite_ompt_task_schedule(prior, why, t);
  if (!run && t->fn != NULL && lite_ompt_attached()) { /* discarded: its region was cancelled */
    ompt_callback_cancel_t cancel = LITE_OMPT_CB(ompt_callback_cancel);
    if (cancel != NULL)
      cancel(&t->ompt_data,
             (lite_task_group_cancelled(t) ? ompt_cancel_taskgroup : ompt_cancel_parallel) |
                 ompt_cancel_discarded_task,
             NULL);
  }
  if (run && t->fn != NULL) {
    t->ompt_frame.exit_frame.ptr = __builtin_frame_address(0);
    t->ompt_frame.exit_frame_flags = FRAME_FLAGS;
    t->fn(t->data);
    t->ompt_frame.exit_frame.ptr = NULL;
  }
  /* A detachable task's end is said by task.c, which decides under a lock whether its event
     was fulfilled (ompt_task_complete) or not yet (ompt_task_detach). */
  struct lite_thread *thr = lite_self();
  bool continues = thr->ompt_part_continues; /* an untied task's part (kmpc/task.c) */
  thr->ompt_part_continues = false;
  /* A task that ends in a cancelled taskgroup ends cancelled, as LLVM's runtime says it. */
  ompt_task_status_t status = continues                     ? ompt_task_switch
                              : lite_task_group_cancelled(t) ? ompt_task_cancel
                                                             : ompt_task_complete;
  if (!t->detach)
    lite_ompt_task_schedule(t, status, prior);
}

void lite_ompt_included_begin(struct lite_task *e, struct lite_task *parent, int type,
                              void *exit_frame, const void *codeptr)
{
  memset(&e->ompt_data, 0, sizeof e->ompt_data);
  memset(&e->ompt_frame, 0, sizeof e->ompt_frame);
  e->ompt_memory = NULL; /* its entry point says it, if it has any (kmpc/task.c) */
  e->ompt_memory_size = 0;
  e->ompt_sched_parent = parent;
  lite_ompt_task_create(parent, e, type, false, codeptr);
  lite_ompt_task_schedule(parent, ompt_task_switch, e);
  if (exit_frame != NULL) {
    e->ompt_frame.exit_frame.ptr = exit_frame;
    e->ompt_frame.exit_frame_flags = ompt_frame_application | ompt_frame_framepointer;
  }
}

void lite_ompt_included_end(struct lite_task *e, struct lite_task *parent,
                            ompt_task_status_t status)
{
  /* The descriptor that ran it: a real one if it made a task (task.c, promote). */
  struct lite_task *t = e->promoted != NULL ? e->promoted : e;
  t->ompt_frame.exit_frame.ptr = NULL;
  if (status == ompt_task_complete && lite_task_group_cancelled(t))
    status = ompt_task_cancel;
  lite_ompt_task_schedule(t, status, e->ompt_sched_parent != NULL ? e->ompt_sched_parent : parent);
}
