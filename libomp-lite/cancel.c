/* Cancellation: cancel and cancellation point for parallel, for, sections and taskgroup
   (OMP_CANCELLATION). A cancelled loop hands out no more chunks; a cancelled region releases its
   cancellable barriers (barrier.c); the tasks of a cancelled region or taskgroup that have not
   started are discarded (task.c). */
#include "loop_common.h"
#include "ompt/ompt.h"

enum { CANCEL_PARALLEL = 1, CANCEL_LOOP = 2, CANCEL_SECTIONS = 4, CANCEL_TASKGROUP = 8 };

static bool is_cancelled(struct lite_thread *thr, int which)
{
  if (thr->team != NULL && atomic_load(&thr->team->cancelled))
    return true;
  if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
    if (thr->ws != NULL)
      return atomic_load(&thr->ws->cancelled);
    /* A static loop gcc splits inline has no entry: the team word names the loop by the epoch
       of the barrier that ends it. */
    return thr->team != NULL && thr->team->pool != NULL &&
           atomic_load(&thr->team->static_cancel) == thr->bar_epoch + 1;
  }
  if (which & CANCEL_TASKGROUP)
    return lite_taskgroup_cancelled(thr);
  return false;
}

/* OMPT's construct flags for GOMP's (which names one construct). */
static int ompt_construct(int which)
{
  return which & CANCEL_PARALLEL   ? ompt_cancel_parallel
         : which & CANCEL_LOOP     ? ompt_cancel_loop
         : which & CANCEL_SECTIONS ? ompt_cancel_sections
                                   : ompt_cancel_taskgroup;
}

static bool cancel(int which, bool do_cancel);

/* With a tool: the cancellation it activated, or the one it detected. */
static __attribute__((noinline, cold)) bool cancel_ompt(int which, bool do_cancel,
                                                        const void *codeptr)
{
  bool cancelled = cancel(which, do_cancel);
  if (cancelled)
    lite_ompt_cancel(ompt_construct(which) |
                         (do_cancel ? ompt_cancel_activated : ompt_cancel_detected),
                     codeptr);
  return cancelled;
}

bool lite_cancel_from(int which, bool do_cancel, const void *codeptr)
{
  if (lite_ompt_on() && lite_env.cancellation)
    return cancel_ompt(which, do_cancel, codeptr);
  return GOMP_cancel(which, do_cancel);
}

bool lite_cancellation_point_from(int which, const void *codeptr)
{
  if (lite_ompt_on() && lite_env.cancellation)
    return cancel_ompt(which, false, codeptr);
  return GOMP_cancellation_point(which);
}

bool GOMP_cancellation_point(int which)
{
  if (!lite_env.cancellation)
    return false;
  if (lite_ompt_on())
    return cancel_ompt(which, false, __builtin_return_address(0));
  return is_cancelled(lite_self(), which);
}

/* GOMP_cancel's work, without events. */
static bool cancel(int which, bool do_cancel)
{
  struct lite_thread *thr = lite_self();
  if (!do_cancel)
    return is_cancelled(thr, which);
  if (which & CANCEL_PARALLEL) {
    lite_team_cancel(thr);
    return true;
  }
  if (which & (CANCEL_LOOP | CANCEL_SECTIONS)) {
    if (thr->ws != NULL)
      atomic_store(&thr->ws->cancelled, true);
    else if (thr->team != NULL && thr->team->pool != NULL)
      atomic_store(&thr->team->static_cancel, thr->bar_epoch + 1);
    return true;
  }
  if (which & CANCEL_TASKGROUP) {
    lite_taskgroup_cancel(thr);
    return true;
  }
  return false;
}

bool GOMP_cancel(int which, bool do_cancel)
{
  if (!lite_env.cancellation)
    return false;
  if (lite_ompt_on())
    return cancel_ompt(which, do_cancel, __builtin_return_address(0));
  return cancel(which, do_cancel);
}
