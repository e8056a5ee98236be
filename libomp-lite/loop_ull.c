/* The worksharing-loop entry points for unsigned long long iteration variables. Same as
   loop.c, with gcc's direction flag: up is false when the loop counts down (incr is then a
   negative number in two's complement). */
#include "loop_common.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

typedef unsigned long long ull; /* gcc's gomp_ull */

static __attribute__((noinline)) bool next_ull_other(struct lite_thread *thr, struct lite_ws *ws,
                                                     ull *istart, ull *iend)
{
  uint64_t lo, hi;
  if (!lite_sched_next(thr, ws, &lo, &hi))
    return false;
  lite_loop_chunk_seen(lo, hi);
  *istart = lite_iter_value(ws, lo);
  *iend = lite_iter_bound(ws, hi);
  return true;
}

/* As next_long in loop.c: monotonic dynamic loops inline, the others through a call. */
static inline bool next_ull(struct lite_thread *thr, ull *istart, ull *iend)
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
    *istart = lite_iter_value(ws, lo);
    *iend = lite_iter_bound(ws, hi);
    return true;
  default:
    return next_ull_other(thr, ws, istart, iend);
  }
}

static bool start_ull(struct lite_loop_request *req, bool up, ull start, ull end, ull incr,
                      ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *ws;
  uint64_t count = lite_iter_count_ull(up, start, end, incr);
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
    lite_iter_init_ull(ws, up, start, end, incr);
    lite_tiny_setup(thr, ws);
    return next_ull(thr, istart, iend);
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
    *istart = start + lo * incr;
    *iend = hi == count ? end : start + hi * incr;
    return true;
  }
  if (first) {
    LITE_SET_IF_CHANGED(ws->nthreads, lite_loop_team_size(thr));
    lite_iter_init_ull(ws, up, start, end, incr);
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
  return istart == NULL || next_ull(thr, istart, iend);
}

bool lite_loop_start_ull(struct lite_loop_request *req, bool up, ull start, ull end, ull incr,
                         ull *istart, ull *iend)
{
  return start_ull(req, up, start, end, incr, istart, iend, NULL, NULL);
}

static bool start_kind(enum lite_sched kind, bool monotonic, bool ordered, bool up, ull start,
                       ull end, ull incr, ull chunk, ull *istart, ull *iend, void *site)
{
  struct lite_loop_request req = {kind, monotonic || ordered, ordered, chunk, site, false};
  return start_ull(&req, up, start, end, incr, istart, iend, NULL, NULL);
}

static bool start_runtime(bool maybe_nonmonotonic, bool ordered, bool up, ull start, ull end,
                          ull incr, ull *istart, ull *iend, void *site)
{
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, true, ordered, 0, site, false};
  lite_sched_resolve_runtime(lite_self(), &req, maybe_nonmonotonic && !ordered);
  req.monotonic |= ordered;
  return start_ull(&req, up, start, end, incr, istart, iend, NULL, NULL);
}

#define SITE __builtin_return_address(0)

bool GOMP_loop_ull_static_start(bool up, ull start, ull end, ull incr, ull chunk, ull *istart,
                                ull *iend)
{
  return start_kind(LITE_SCHED_STATIC, true, false, up, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ull_dynamic_start(bool up, ull start, ull end, ull incr, ull chunk, ull *istart,
                                 ull *iend)
{
  return start_kind(LITE_SCHED_DYNAMIC, true, false, up, start, end, incr, chunk, istart, iend,
                    SITE);
}

bool GOMP_loop_ull_guided_start(bool up, ull start, ull end, ull incr, ull chunk, ull *istart,
                                ull *iend)
{
  return start_kind(LITE_SCHED_GUIDED, true, false, up, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, ull start, ull end, ull incr, ull chunk,
                                              ull *istart, ull *iend)
{
  return start_kind(LITE_SCHED_DYNAMIC, false, false, up, start, end, incr, chunk, istart, iend,
                    SITE);
}

bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, ull start, ull end, ull incr, ull chunk,
                                             ull *istart, ull *iend)
{
  return start_kind(LITE_SCHED_GUIDED, false, false, up, start, end, incr, chunk, istart, iend,
                    SITE);
}

bool GOMP_loop_ull_runtime_start(bool up, ull start, ull end, ull incr, ull *istart, ull *iend)
{
  return start_runtime(false, false, up, start, end, incr, istart, iend, SITE);
}

bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, ull start, ull end, ull incr, ull *istart,
                                              ull *iend)
{
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, false, false, 0, SITE, false};
  lite_sched_resolve_runtime(lite_self(), &req, true);
  req.monotonic = false;
  return start_ull(&req, up, start, end, incr, istart, iend, NULL, NULL);
}

bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up, ull start, ull end, ull incr,
                                                    ull *istart, ull *iend)
{
  return start_runtime(true, false, up, start, end, incr, istart, iend, SITE);
}

bool GOMP_loop_ull_ordered_static_start(bool up, ull start, ull end, ull incr, ull chunk,
                                        ull *istart, ull *iend)
{
  return start_kind(LITE_SCHED_STATIC, true, true, up, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ull_ordered_dynamic_start(bool up, ull start, ull end, ull incr, ull chunk,
                                         ull *istart, ull *iend)
{
  return start_kind(LITE_SCHED_DYNAMIC, true, true, up, start, end, incr, chunk, istart, iend,
                    SITE);
}

bool GOMP_loop_ull_ordered_guided_start(bool up, ull start, ull end, ull incr, ull chunk,
                                        ull *istart, ull *iend)
{
  return start_kind(LITE_SCHED_GUIDED, true, true, up, start, end, incr, chunk, istart, iend, SITE);
}

bool GOMP_loop_ull_ordered_runtime_start(bool up, ull start, ull end, ull incr, ull *istart,
                                         ull *iend)
{
  return start_runtime(false, true, up, start, end, incr, istart, iend, SITE);
}

bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                         ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
  struct lite_loop_request req;
  lite_loop_request_from_sched(lite_self(), &req, sched, 0, false, SITE);
  if (req.kind != LITE_SCHED_STATIC || chunk != 0)
    req.chunk = chunk != 0 ? chunk : req.chunk;
  return start_ull(&req, up, start, end, incr, istart, iend, reductions, mem);
}

bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                 ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
  struct lite_loop_request req;
  lite_loop_request_from_sched(lite_self(), &req, sched, 0, true, SITE);
  if (chunk != 0)
    req.chunk = chunk;
  return start_ull(&req, up, start, end, incr, istart, iend, reductions, mem);
}

bool GOMP_loop_ull_static_next(ull *istart, ull *iend) { return next_ull(lite_self(), istart, iend); }
bool GOMP_loop_ull_dynamic_next(ull *istart, ull *iend) { return next_ull(lite_self(), istart, iend); }
bool GOMP_loop_ull_guided_next(ull *istart, ull *iend) { return next_ull(lite_self(), istart, iend); }
bool GOMP_loop_ull_runtime_next(ull *istart, ull *iend) { return next_ull(lite_self(), istart, iend); }
bool GOMP_loop_ull_nonmonotonic_dynamic_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_nonmonotonic_guided_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_nonmonotonic_runtime_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_ordered_static_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_ordered_dynamic_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_ordered_guided_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
bool GOMP_loop_ull_ordered_runtime_next(ull *istart, ull *iend)
{
  return next_ull(lite_self(), istart, iend);
}
