/* The events of target constructs run on the host (OpenMP 5.1 sections 2.14 and 4.5.2.26):
   libomp-lite has no offload device, so target.c runs every target region on the encountering
   thread and the data constructs have nothing to do. A tool still sees each construct: a
   target region's begin before its body and its end after; target enter data, exit data and
   update as a begin and an end with nothing between; target data's begin as enter data and its
   end (GOMP_target_end_data) as exit data, which is what OpenMP 5.1 says of its events (2.14.2)
   and what LLVM's libomptarget reports. nowait constructs are reported with the nowait kinds,
   though they run at once.

   device_num is the host's, omp_get_initial_device(); task_data the encountering task's. The
   emi callback, if the tool registered one, is called instead of the plain one (not both: one
   construct, one report), with no target task (target_task_data NULL: an undeferred target
   construct's target task is included and has no events of its own here, as in LLVM, whose
   runtime reports a target task only when it defers one) and the construct's target_data for
   the tool to fill at the begin; the plain callback gets a target_id from the same counter as
   ompt_get_unique_id. Events that need a device are never dispatched (entry.c says which). */
#include "ompt/ompt.h"

#include <string.h>

static void dispatch(struct lite_ompt_target *target, ompt_scope_endpoint_t endpoint)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *task = lite_current_task(thr);
  int device = omp_get_initial_device();
  ompt_callback_target_emi_t emi = LITE_OMPT_CB(ompt_callback_target_emi);
  if (emi != NULL) {
    emi((ompt_target_t)target->kind, endpoint, device, &task->ompt_data, NULL,
        &target->target_data, target->codeptr);
    return;
  }
  ompt_callback_target_t plain = LITE_OMPT_CB(ompt_callback_target);
  if (plain != NULL)
    plain((ompt_target_t)target->kind, endpoint, device, &task->ompt_data,
          target->target_data.value, target->codeptr);
}

void lite_ompt_target_begin(struct lite_ompt_target *target, int kind, const void *codeptr)
{
  /* The thread state first: a target construct may be the program's first, whose thread state
     decides whether a tool is attached (ompt.h). */
  struct lite_thread *thr = lite_self();
  target->kind = kind;
  target->codeptr = codeptr;
  target->traced = lite_ompt_attached();
  memset(&target->target_data, 0, sizeof target->target_data);
  /* A target region runs outside any league the thread is in (a team's parallel region may
     meet one): its initial task is not that team's (entry.c, ompt_get_task_info). Inside it,
     ompt_get_target_info answers for it. */
  target->league = thr->ompt_league;
  target->outer = thr->ompt_target;
  bool region = kind == ompt_target || kind == ompt_target_nowait;
  if (region) {
    thr->ompt_league = NULL;
    struct lite_team *root = thr->team;
    while (root != NULL && root->parent != NULL)
      root = root->parent;
    target->enclosing_root = root;
  }
  if (target->traced) {
    if (LITE_OMPT_CB(ompt_callback_target_emi) == NULL)
      target->target_data.value = lite_ompt_unique_id();
    dispatch(target, ompt_scope_begin);
  }
  /* Published whole, with the tool's target_data (emi) as the begin left it. */
  if (region)
    __atomic_store_n(&thr->ompt_target, target, __ATOMIC_RELEASE);
}

void lite_ompt_target_end(struct lite_ompt_target *target)
{
  struct lite_thread *thr = lite_self();
  thr->ompt_league = target->league;
  __atomic_store_n(&thr->ompt_target, target->outer, __ATOMIC_RELEASE);
  /* Not after a finalize, nor for a begin no tool saw. */
  if (target->traced && lite_ompt_attached())
    dispatch(target, ompt_scope_end);
}

void lite_ompt_target_op(int kind, const void *codeptr)
{
  struct lite_ompt_target target;
  lite_ompt_target_begin(&target, kind, codeptr);
  lite_ompt_target_end(&target);
}
