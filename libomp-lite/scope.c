/* The scope construct: gcc calls into the runtime only for task reductions on it. */
#include "loop_common.h"

void GOMP_scope_start(uintptr_t *reductions)
{
  lite_no_task_reductions(reductions, "GOMP_scope_start");
}
