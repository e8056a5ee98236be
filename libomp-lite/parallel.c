/* GOMP_parallel and the older GOMP_parallel_start/end pair: decide the team size, fork, run the
   leader's share, join. A region that gets one thread runs as a team of one on the caller.
   The combined constructs (parallel loop, parallel sections) come through the same two
   functions with a setup for their first worksharing construct. */
#include "internal.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

#include <stdlib.h>

/* A team of one: its worksharing construct, if any, is set up in the thread's own entry. */
static void enter_serial(struct lite_thread *thr, struct lite_team *team, unsigned flags,
                         lite_ws_setup_fn setup, void *arg)
{
  lite_team_enter_serial(thr, team, 1, flags);
  if (setup != NULL) {
    bool first;
    struct lite_ws *ws = lite_ws_begin(thr, &first);
    ws->nthreads = 1;
    setup(ws, arg);
    lite_ws_ready(ws);
    if (lite_ompt_on()) /* its implicit task began before the entry: the work begins now */
      lite_ompt_combined_begin(thr);
  }
}

unsigned lite_parallel_run(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                           lite_ws_setup_fn setup, void *arg)
{
  struct lite_thread *thr = lite_self();
  unsigned n = lite_team_size_for(thr, num_threads);
  struct lite_team *team;
  if (n > 1 && (team = lite_team_fork(thr, n, fn, data, flags, setup, arg)) != NULL) {
    n = team->nthreads;
    fn(data);
    lite_team_join(thr);
    return n;
  }
  struct lite_team serial;
  enter_serial(thr, &serial, flags, setup, arg);
  fn(data);
  lite_team_leave_serial(thr);
  return 1;
}

/* lite_parallel_run with OMPLITE_PROFILE or OMPLITE_TRACE on: the same steps, timed. A copy, so
   that the plain path keeps its shape; site: the entry point's return address. */
unsigned lite_parallel_run_profiled(const void *site, void (*fn)(void *), void *data,
                                    unsigned num_threads, unsigned flags, lite_ws_setup_fn setup,
                                    void *arg)
{
  struct lite_prof_region r;
  lite_prof_region_begin(&r, site, (const void *)fn);
  struct lite_thread *thr = lite_self();
  unsigned n = lite_team_size_for(thr, num_threads);
  struct lite_team *team;
  if (n > 1 && (team = lite_team_fork(thr, n, fn, data, flags, setup, arg)) != NULL) {
    n = team->nthreads;
    lite_prof_region_forked(&r, thr, setup != NULL);
    fn(data);
    lite_prof_region_joining(&r);
    lite_team_join(thr);
    lite_prof_region_end(&r, team, n, LITE_DEC_KINDS);
    return n;
  }
  struct lite_team serial;
  enter_serial(thr, &serial, flags, setup, arg);
  lite_prof_region_forked(&r, thr, setup != NULL);
  fn(data);
  lite_team_leave_serial(thr);
  lite_prof_region_end(&r, NULL, 1, LITE_DEC_KINDS);
  return 1;
}

/* lite_parallel_run with a tool attached: another copy, whose members run their bodies through
   lite_ompt_invoke (their exit frames) and whose fork and join dispatch the region's events
   (team.c). OMPLITE_PROFILE does not time the regions a tool sees. */
unsigned lite_parallel_run_ompt(const void *codeptr, void *enter, void (*fn)(void *), void *data,
                                unsigned num_threads, unsigned flags, lite_ws_setup_fn setup,
                                void *arg)
{
  struct lite_thread *thr = lite_self(); /* the first call decides whether a tool is attached */
  if (!lite_ompt_attached())
    return lite_prof_on() ? lite_parallel_run_profiled(codeptr, fn, data, num_threads, flags,
                                                       setup, arg)
                          : lite_parallel_run(fn, data, num_threads, flags, setup, arg);
  lite_ompt_fork_from(thr, codeptr, enter, num_threads);
  unsigned n = lite_team_size_for(thr, num_threads);
  struct lite_team *team;
  if (n > 1 && (team = lite_team_fork(thr, n, fn, data, flags, setup, arg)) != NULL) {
    n = team->nthreads;
    lite_ompt_invoke(thr, fn, data);
    lite_team_join(thr);
    return n;
  }
  struct lite_team serial;
  enter_serial(thr, &serial, flags, setup, arg);
  lite_ompt_invoke(thr, fn, data);
  lite_team_leave_serial(thr);
  return 1;
}

void lite_parallel_begin(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                         lite_ws_setup_fn setup, void *arg)
{
  struct lite_thread *thr = lite_self();
  unsigned n = lite_team_size_for(thr, num_threads);
  if (n > 1 && lite_team_fork(thr, n, fn, data, flags, setup, arg) != NULL)
    return;
  /* A team of one must outlive this call: it ends in GOMP_parallel_end. */
  struct lite_team *serial = malloc(sizeof *serial);
  if (serial == NULL)
    lite_fatal("out of memory starting a parallel region");
  enter_serial(thr, serial, flags, setup, arg);
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
  /* The frame address only on this path: gcc then sets up a frame pointer there alone. */
  if (lite_ompt_on())
    lite_parallel_run_ompt(__builtin_return_address(0), __builtin_frame_address(0), fn, data,
                           num_threads, flags, NULL, NULL);
  else if (lite_prof_on())
    lite_parallel_run_profiled(__builtin_return_address(0), fn, data, num_threads, flags, NULL,
                               NULL);
  else
    lite_parallel_run(fn, data, num_threads, flags, NULL, NULL);
}

/* gcc before 4.9 emitted GOMP_parallel_start(fn, data, n); fn(data); GOMP_parallel_end(). */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
  lite_parallel_begin(fn, data, num_threads, 0, NULL, NULL);
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
