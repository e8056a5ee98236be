/* The scope construct: gcc calls into the runtime only for reduction(task, ...) on it. Its
   worksharing entry exists only to share the first member's copies of the variables with the
   others; each member leaves it as soon as it has them. gcc ends the construct with a barrier,
   its combining code and GOMP_workshare_task_reduction_unregister. */
#include "loop_common.h"

void GOMP_scope_start(uintptr_t *reductions)
{
  if (reductions == NULL)
    return;
  struct lite_thread *thr = lite_self();
  bool first;
  struct lite_ws *ws = lite_ws_begin(thr, &first);
  if (first) {
    ws->nthreads = lite_loop_team_size(thr);
    lite_ws_task_reductions(thr, ws, true, reductions);
    lite_ws_ready(ws);
  } else {
    lite_ws_task_reductions(thr, ws, false, reductions);
  }
  lite_ws_end(thr);
}
