/* The worksharing-loop entry points for long iteration variables: GOMP_loop_*_start/next,
   GOMP_loop_start (OpenMP 5.0 form), the ordered variants and GOMP_loop_end*. Each is a thin
   layer: the ring entry comes from work.c, the hand-out from sched/. */
#include "loop_common.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

void lite_loop_chunk_observed(uint64_t lo, uint64_t hi)
{
  lite_prof_chunk();
  if (lite_ompt_on())
    lite_ompt_ws_chunk(lo, hi);
}

static __attribute__((noinline)) bool next_long_other(struct lite_thread *thr,
                                                      struct lite_ws *ws, long *istart,
                                                      long *iend)
{
  uint64_t lo, hi;
  if (!lite_sched_next(thr, ws, &lo, &hi))
    return false;
  lite_loop_chunk_seen(lo, hi);
  *istart = (long)lite_iter_value(ws, lo);
  *iend = (long)lite_iter_bound(ws, hi);
  return true;
}

/* Monotonic dynamic loops inline, every other kind through a call (see lite_sched_next_dynamic):
   the fast path then needs no stack frame. loop_ull.c has the same function for its types: one
   shared helper returning the two values through pointers gave the entry points a frame again
   (one thread, 20M one-iteration chunks: 7.9 ns a chunk against 6.9; libgomp 7.0). */
static inline bool next_long(struct lite_thread *thr, long *istart, long *iend)
{
  struct lite_ws *ws = thr->ws;
  uint64_t lo, hi;
  if (ws == NULL)
    return false;
  switch (lite_sched_next_dynamic(ws, &lo, &hi)) {
  case LITE_NEXT_NONE:
    return false;
  case LITE_NEXT_GOT:
    lite_loop_chunk_seen(lo, hi);
    *istart = (long)lite_iter_value(ws, lo);
    *iend = (long)lite_iter_bound(ws, hi);
    return true;
  default:
    return next_long_other(thr, ws, istart, iend);
  }
}

/* Starts the loop (the first member sets it up), shares GOMP_loop_start's scratch memory, and
   hands out the first chunk unless istart is NULL. */
static bool start_long(struct lite_loop_request *req, long start, long end, long incr,
                       long *istart, long *iend, uintptr_t *reductions, void **mem)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *ws;
  uint64_t count = lite_iter_count_long(start, end, incr);
  if (lite_ompt_on())
    lite_ompt_ws_begin(ompt_work_loop, count, req->site);
  bool plain = istart != NULL && reductions == NULL && mem == NULL;
  if (plain && lite_tiny_in_team(thr, req, count)) {
    ws = lite_tiny_begin(thr);
    if (lite_prof_on())
      lite_prof_loop_begin(req->site, LITE_PROF_SCHED(req), ws != NULL, LITE_DEC_TINY,
                           lite_loop_team_size(thr));
    if (ws == NULL)
      return false; /* thread 0 runs this tiny loop alone */
    lite_iter_init_long(ws, start, end, incr);
    lite_tiny_setup(thr, ws);
    return next_long(thr, istart, iend);
  }
  struct lite_loop_look look = {0, false, false};
  if (plain)
    lite_sched_look(thr, req, count, &look);
  bool first;
  uint64_t mark;
  ws = lite_ws_begin_loop(thr, look.mark, &first, &mark);
  if (mark != 0) {
    if (lite_prof_on())
      lite_prof_loop_begin(req->site, LITE_PROF_SCHED(req), first,
                           (mark & LITE_WS_WHOLE) ? LITE_DEC_WHOLE : LITE_DEC_SPLIT,
                           lite_loop_team_size(thr));
    uint64_t lo, hi;
    if (!lite_sched_split_block(thr, req, count, first, mark, &lo, &hi))
      return false;
    lite_loop_chunk_seen(lo, hi);
    *istart = (long)((uint64_t)start + lo * (uint64_t)incr);
    *iend = hi == count ? end : (long)((uint64_t)start + hi * (uint64_t)incr);
    return true;
  }
  if (first) {
    LITE_SET_IF_CHANGED(ws->nthreads, lite_loop_team_size(thr));
    lite_iter_init_long(ws, start, end, incr);
    lite_sched_setup_looked(ws, req, &look);
    lite_tiny_note(thr, ws, req);
    lite_ws_setup_mem(ws, mem);
    if (reductions != NULL)
      lite_ws_task_reductions(thr, ws, true, reductions);
    lite_ws_ready(ws);
  } else if (reductions != NULL) {
    lite_ws_task_reductions(thr, ws, false, reductions);
  }
  if (lite_prof_on())
    lite_prof_loop_begin(req->site, LITE_PROF_SCHED(req), first,
                         first ? lite_prof_ws_decision(ws) : LITE_DEC_KINDS, ws->nthreads);
  if (mem != NULL)
    *mem = ws->mem;
  return istart == NULL || next_long(thr, istart, iend);
}

bool lite_loop_start_long(struct lite_loop_request *req, long start, long end, long incr,
                          long *istart, long *iend)
{
  return start_long(req, start, end, incr, istart, iend, NULL, NULL);
}

/* schedule(kind) with the given modifiers; chunk as gcc passes it. */
static bool start_kind(enum lite_sched kind, bool monotonic, bool ordered, long start, long end,
                       long incr, long chunk, long *istart, long *iend, void *site)
{
  struct lite_loop_request req = {kind, monotonic || ordered, ordered,
                                  chunk > 0 ? (uint64_t)chunk : 0, site, false};
  return start_long(&req, start, end, incr, istart, iend, NULL, NULL);
}

static bool start_runtime(bool maybe_nonmonotonic, bool ordered, long start, long end, long incr,
                          long *istart, long *iend, void *site)
{
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, true, ordered, 0, site, false};
  lite_sched_resolve_runtime(lite_self(), &req, maybe_nonmonotonic && !ordered);
  req.monotonic |= ordered;
  return start_long(&req, start, end, incr, istart, iend, NULL, NULL);
}

#define SITE __builtin_return_address(0)

bool GOMP_loop_static_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
  return start_kind(LITE_SCHED_STATIC, true, false, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_dynamic_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
  return start_kind(LITE_SCHED_DYNAMIC, true, false, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_guided_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
  return start_kind(LITE_SCHED_GUIDED, true, false, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_nonmonotonic_dynamic_start(long start, long end, long incr, long chunk,
                                          long *istart, long *iend)
{
  return start_kind(LITE_SCHED_DYNAMIC, false, false, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_nonmonotonic_guided_start(long start, long end, long incr, long chunk,
                                         long *istart, long *iend)
{
  return start_kind(LITE_SCHED_GUIDED, false, false, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
  return start_runtime(false, false, start, end, incr, istart, iend, SITE);
}

bool GOMP_loop_nonmonotonic_runtime_start(long start, long end, long incr, long *istart,
                                          long *iend)
{
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, false, false, 0, SITE, false};
  lite_sched_resolve_runtime(lite_self(), &req, true);
  req.monotonic = false;
  return start_long(&req, start, end, incr, istart, iend, NULL, NULL);
}

bool GOMP_loop_maybe_nonmonotonic_runtime_start(long start, long end, long incr, long *istart,
                                                long *iend)
{
  return start_runtime(true, false, start, end, incr, istart, iend, SITE);
}

bool GOMP_loop_ordered_static_start(long start, long end, long incr, long chunk, long *istart,
                                    long *iend)
{
  return start_kind(LITE_SCHED_STATIC, true, true, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ordered_dynamic_start(long start, long end, long incr, long chunk, long *istart,
                                     long *iend)
{
  return start_kind(LITE_SCHED_DYNAMIC, true, true, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ordered_guided_start(long start, long end, long incr, long chunk, long *istart,
                                    long *iend)
{
  return start_kind(LITE_SCHED_GUIDED, true, true, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
  return start_runtime(false, true, start, end, incr, istart, iend, SITE);
}

/* The OpenMP 5.0 forms: sched as gcc encodes it (see lite_loop_request_from_sched); *mem holds
   the size of scratch memory the members share, and gets its (zeroed) address. */
bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart,
                     long *iend, uintptr_t *reductions, void **mem)
{
  struct lite_loop_request req;
  lite_loop_request_from_sched(lite_self(), &req, sched, chunk, false, SITE);
  return start_long(&req, start, end, incr, istart, iend, reductions, mem);
}

bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                             long *istart, long *iend, uintptr_t *reductions, void **mem)
{
  struct lite_loop_request req;
  lite_loop_request_from_sched(lite_self(), &req, sched, chunk, true, SITE);
  return start_long(&req, start, end, incr, istart, iend, reductions, mem);
}

/* Every _next variant hands out whatever the loop's start chose. */
bool GOMP_loop_static_next(long *istart, long *iend) { return next_long(lite_self(), istart, iend); }
bool GOMP_loop_dynamic_next(long *istart, long *iend) { return next_long(lite_self(), istart, iend); }
bool GOMP_loop_guided_next(long *istart, long *iend) { return next_long(lite_self(), istart, iend); }
bool GOMP_loop_runtime_next(long *istart, long *iend) { return next_long(lite_self(), istart, iend); }
bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_nonmonotonic_guided_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_nonmonotonic_runtime_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_ordered_static_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_ordered_dynamic_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_ordered_guided_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}
bool GOMP_loop_ordered_runtime_next(long *istart, long *iend)
{
  return next_long(lite_self(), istart, iend);
}

/* The profiled ends, out of line, so that the plain paths take no stack frame for them (see
   GOMP_barrier). barrier: 0 none, 1 plain, 2 cancellable. */
static __attribute__((noinline, cold)) bool loop_end_profiled(int barrier)
{
  return lite_prof_loop_end(lite_self(), barrier);
}

void GOMP_loop_end(void)
{
  if (lite_ompt_on()) {
    lite_ompt_ws_end(ompt_work_loop, 1, __builtin_return_address(0));
    return;
  }
  if (lite_prof_on()) {
    loop_end_profiled(1);
    return;
  }
  struct lite_thread *thr = lite_self();
  lite_loop_finish(thr, true);
  lite_barrier_wait(thr);
}

void GOMP_loop_end_nowait(void)
{
  if (lite_ompt_on()) {
    lite_ompt_ws_end(ompt_work_loop, 0, __builtin_return_address(0));
    return;
  }
  if (lite_prof_on()) {
    loop_end_profiled(0);
    return;
  }
  lite_loop_finish(lite_self(), false);
}

bool GOMP_loop_end_cancel(void)
{
  if (lite_ompt_on())
    return lite_ompt_ws_end(ompt_work_loop, 2, __builtin_return_address(0));
  if (lite_prof_on())
    return loop_end_profiled(2);
  struct lite_thread *thr = lite_self();
  lite_loop_finish(thr, false);
  return lite_barrier_wait_cancel(thr);
}
