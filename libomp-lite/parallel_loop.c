/* The combined parallel worksharing loops, GOMP_parallel_loop_*: the loop is set up before the
   team starts, so the outlined function only calls GOMP_loop_*_next. */
#include "loop_common.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

struct combined_loop {
  long start, end, incr;
  struct lite_loop_request req;
};

static void setup_combined(struct lite_ws *ws, void *arg)
{
  struct combined_loop *loop = arg;
  lite_iter_init_long(ws, loop->start, loop->end, loop->incr);
  lite_sched_setup(ws, &loop->req);
  ws->combined_work = ompt_work_loop;
}

/* A nonmonotonic loop whose call site ran too briefly to be worth sharing (sched/site.c) runs on
   the calling thread, as thread 0 of a team of the requested size whose other members have no
   iterations and so need not wake: they would only find the loop empty. A static schedule fixes
   which thread runs which iteration, so it never takes this path. */
static bool run_unshared(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                         struct combined_loop *loop, const void *site)
{
  if (loop->req.kind == LITE_SCHED_STATIC || loop->req.monotonic)
    return false;
  struct lite_thread *thr = lite_self();
  unsigned n = lite_team_size_for(thr, num_threads);
  if (n < 2 ||
      !lite_site_is_tiny(loop->req.site, n, lite_iter_count_long(loop->start, loop->end, loop->incr)))
    return false;
  struct lite_prof_region r;
  if (lite_prof_on())
    lite_prof_region_begin(&r, site, (const void *)fn);
  struct lite_team team;
  lite_team_enter_serial(thr, &team, n, flags);
  bool first;
  struct lite_ws *ws = lite_ws_begin(thr, &first);
  ws->nthreads = n;
  setup_combined(ws, loop);
  lite_ws_ready(ws);
  if (lite_prof_on())
    lite_prof_region_forked(&r, thr, false);
  fn(data);
  lite_team_leave_serial(thr);
  if (lite_prof_on())
    lite_prof_region_end(&r, NULL, 1, LITE_DEC_INLINE);
  return true;
}

/* Starts the combined construct's region: blocking (GOMP_parallel_loop_*) runs it to its end,
   a tiny loop on the caller alone; otherwise (the pre-4.9 *_start entry points) it only forks.
   With a tool, the region is GOMP_parallel's, from the entry point's frame (enter) and the
   user's return address (site), and never the unshared shortcut, which has no events. */
static void start_region(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                         struct combined_loop *loop, bool blocking, const void *site, void *enter)
{
  if (!blocking) {
    lite_parallel_begin(fn, data, num_threads, flags, setup_combined, loop);
    return;
  }
  if (lite_ompt_on()) {
    lite_parallel_run_ompt(site, enter, fn, data, num_threads, flags, setup_combined, loop);
    return;
  }
  if (run_unshared(fn, data, num_threads, flags, loop, site))
    return;
  if (lite_prof_on())
    lite_parallel_run_profiled(site, fn, data, num_threads, flags, setup_combined, loop);
  else
    lite_parallel_run(fn, data, num_threads, flags, setup_combined, loop);
}

static void run(void (*fn)(void *), void *data, unsigned num_threads, long start, long end,
                long incr, enum lite_sched kind, bool monotonic, long chunk, unsigned flags,
                bool blocking, const void *site, void *enter)
{
  uint64_t req_chunk = chunk > 0 ? (uint64_t)chunk : 0;
  struct combined_loop loop = {start, end, incr,
                               {kind, monotonic, false, req_chunk, (void *)fn, false}};
  start_region(fn, data, num_threads, flags, &loop, blocking, site, enter);
}

static void run_runtime(void (*fn)(void *), void *data, unsigned num_threads, long start,
                        long end, long incr, bool maybe_nonmonotonic, bool nonmonotonic,
                        unsigned flags, bool blocking, const void *site, void *enter)
{
  struct combined_loop loop = {start, end, incr,
                               {LITE_SCHED_DYNAMIC, true, false, 0, (void *)fn, false}};
  lite_sched_resolve_runtime(lite_self(), &loop.req, maybe_nonmonotonic || nonmonotonic);
  if (nonmonotonic)
    loop.req.monotonic = false;
  start_region(fn, data, num_threads, flags, &loop, blocking, site, enter);
}

/* The call site, for the profile and the tool (the statistics of sched/site.c key combined
   loops by fn), and the entry point's frame, the tool's enter frame: taken only with a tool, so
   that gcc sets up a frame pointer on that path alone (as GOMP_parallel). */
#define SITE __builtin_return_address(0)
#define ENTER_FRAME (lite_ompt_on() ? __builtin_frame_address(0) : NULL)

void GOMP_parallel_loop_static(void (*fn)(void *), void *data, unsigned num_threads, long start,
                               long end, long incr, long chunk, unsigned flags)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_STATIC, true, chunk, flags, true,
      SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_dynamic(void (*fn)(void *), void *data, unsigned num_threads, long start,
                                long end, long incr, long chunk, unsigned flags)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_DYNAMIC, true, chunk, flags, true,
      SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_guided(void (*fn)(void *), void *data, unsigned num_threads, long start,
                               long end, long incr, long chunk, unsigned flags)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_GUIDED, true, chunk, flags, true,
      SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void *), void *data, unsigned num_threads,
                                             long start, long end, long incr, long chunk,
                                             unsigned flags)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_DYNAMIC, false, chunk, flags, true,
      SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void *), void *data, unsigned num_threads,
                                            long start, long end, long incr, long chunk,
                                            unsigned flags)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_GUIDED, false, chunk, flags, true,
      SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_runtime(void (*fn)(void *), void *data, unsigned num_threads, long start,
                                long end, long incr, unsigned flags)
{
  run_runtime(fn, data, num_threads, start, end, incr, false, false, flags, true,
      SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_nonmonotonic_runtime(void (*fn)(void *), void *data,
                                             unsigned num_threads, long start, long end,
                                             long incr, unsigned flags)
{
  run_runtime(fn, data, num_threads, start, end, incr, false, true, flags, true, SITE, ENTER_FRAME);
}

void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*fn)(void *), void *data,
                                                   unsigned num_threads, long start, long end,
                                                   long incr, unsigned flags)
{
  run_runtime(fn, data, num_threads, start, end, incr, true, false, flags, true, SITE, ENTER_FRAME);
}

/* The pre-4.9 forms: the caller runs fn(data) itself, then GOMP_parallel_end. */
void GOMP_parallel_loop_static_start(void (*fn)(void *), void *data, unsigned num_threads,
                                     long start, long end, long incr, long chunk)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_STATIC, true, chunk, 0, false,
      SITE, NULL);
}

void GOMP_parallel_loop_dynamic_start(void (*fn)(void *), void *data, unsigned num_threads,
                                      long start, long end, long incr, long chunk)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_DYNAMIC, true, chunk, 0, false,
      SITE, NULL);
}

void GOMP_parallel_loop_guided_start(void (*fn)(void *), void *data, unsigned num_threads,
                                     long start, long end, long incr, long chunk)
{
  run(fn, data, num_threads, start, end, incr, LITE_SCHED_GUIDED, true, chunk, 0, false,
      SITE, NULL);
}

void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads,
                                      long start, long end, long incr)
{
  run_runtime(fn, data, num_threads, start, end, incr, false, false, 0, false, SITE, NULL);
}
