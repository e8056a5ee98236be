/* GOMP_parallel and the older GOMP_parallel_start/end pair: decide the team size, fork, run the
   leader's share, join. A region that gets one thread runs as a team of one on the caller. */
#include "internal.h"

#include <stdlib.h>

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
  (void)flags; /* proc_bind: placement is the affinity module's (a later issue) */
  struct lite_thread *thr = lite_self();
  unsigned n = lite_team_size_for(thr, num_threads);
  if (n > 1 && lite_team_fork(thr, n, fn, data) != NULL) {
    fn(data);
    lite_team_join(thr);
    return;
  }
  struct lite_team serial;
  lite_team_enter_serial(thr, &serial);
  fn(data);
  lite_team_leave_serial(thr);
}

/* gcc before 4.9 emitted GOMP_parallel_start(fn, data, n); fn(data); GOMP_parallel_end(). */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
  struct lite_thread *thr = lite_self();
  unsigned n = lite_team_size_for(thr, num_threads);
  if (n > 1 && lite_team_fork(thr, n, fn, data) != NULL)
    return;
  /* A team of one must outlive this call: it ends in GOMP_parallel_end. */
  struct lite_team *serial = malloc(sizeof *serial);
  if (serial == NULL)
    lite_fatal("out of memory starting a parallel region");
  lite_team_enter_serial(thr, serial);
}

void GOMP_parallel_end(void)
{
  struct lite_thread *thr = lite_self();
  struct lite_team *team = thr->team;
  if (team->pool != NULL) {
    lite_team_join(thr);
  } else {
    lite_team_leave_serial(thr);
    free(team);
  }
}
