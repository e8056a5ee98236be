/* Cancellation: cancel and cancellation point for parallel, for, sections and taskgroup
   (OMP_CANCELLATION). A cancelled loop hands out no more chunks; a cancelled region releases its
   cancellable barriers (barrier.c); the tasks of a cancelled region or taskgroup that have not
   started are discarded (task.c). */
#include "loop_common.h"

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

bool GOMP_cancellation_point(int which)
{
  if (!lite_env.cancellation)
    return false;
  return is_cancelled(lite_self(), which);
}

bool GOMP_cancel(int which, bool do_cancel)
{
  if (!lite_env.cancellation)
    return false;
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
