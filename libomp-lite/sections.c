/* sections: section numbers 1..count handed out one at a time, in order, from a shared counter
   (a sections construct is rarely hot, and a monotonic hand-out keeps libgomp's order). */
#include "loop_common.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

static void setup_sections(struct lite_ws *ws, unsigned count)
{
  struct lite_loop_request req = {LITE_SCHED_DYNAMIC, true, false, 1, NULL, false};
  lite_iter_init_long(ws, 0, (long)count, 1);
  lite_sched_setup(ws, &req);
}

/* The next section for the calling member; codeptr: the entry point's return address, which a
   tool gets with the section (ompt_callback_dispatch). */
static unsigned next_section(struct lite_thread *thr, const void *codeptr)
{
  uint64_t lo, hi;
  if (thr->ws == NULL || !lite_sched_next(thr, thr->ws, &lo, &hi))
    return 0;
  lite_prof_chunk();
  if (lite_ompt_on())
    lite_ompt_section(codeptr);
  return (unsigned)lo + 1;
}

static unsigned start_sections(unsigned count, uintptr_t *reductions, void **mem,
                               const void *site)
{
  struct lite_thread *thr = lite_self();
  if (lite_ompt_on())
    lite_ompt_ws_begin(ompt_work_sections, count, site);
  bool first;
  struct lite_ws *ws = lite_ws_begin(thr, &first);
  if (first) {
    LITE_SET_IF_CHANGED(ws->nthreads, lite_loop_team_size(thr));
    setup_sections(ws, count);
    lite_ws_setup_mem(ws, mem);
    if (reductions != NULL)
      lite_ws_task_reductions(thr, ws, true, reductions);
    lite_ws_ready(ws);
  } else if (reductions != NULL) {
    lite_ws_task_reductions(thr, ws, false, reductions);
  }
  if (mem != NULL)
    *mem = ws->mem;
  if (lite_prof_on())
    lite_prof_sections_begin(site, first, ws->nthreads);
  return next_section(thr, site);
}

unsigned GOMP_sections_start(unsigned count)
{
  return start_sections(count, NULL, NULL, __builtin_return_address(0));
}

unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
  return start_sections(count, reductions, mem, __builtin_return_address(0));
}

unsigned GOMP_sections_next(void)
{
  return next_section(lite_self(), __builtin_return_address(0));
}

/* The profiled ends, out of line (see GOMP_barrier). barrier: 0 none, 1 plain, 2 cancellable. */
static __attribute__((noinline, cold)) bool end_profiled(int barrier)
{
  return lite_prof_loop_end(lite_self(), barrier);
}

void GOMP_sections_end(void)
{
  if (lite_ompt_on()) {
    lite_ompt_ws_end(ompt_work_sections, 1, __builtin_return_address(0));
    return;
  }
  if (lite_prof_on()) {
    end_profiled(1);
    return;
  }
  struct lite_thread *thr = lite_self();
  lite_loop_finish(thr, true);
  lite_barrier_wait(thr);
}

void GOMP_sections_end_nowait(void)
{
  if (lite_ompt_on()) {
    lite_ompt_ws_end(ompt_work_sections, 0, __builtin_return_address(0));
    return;
  }
  if (lite_prof_on()) {
    end_profiled(0);
    return;
  }
  lite_loop_finish(lite_self(), false);
}

bool GOMP_sections_end_cancel(void)
{
  if (lite_ompt_on())
    return lite_ompt_ws_end(ompt_work_sections, 2, __builtin_return_address(0));
  if (lite_prof_on())
    return end_profiled(2);
  struct lite_thread *thr = lite_self();
  lite_loop_finish(thr, false);
  return lite_barrier_wait_cancel(thr);
}

/* ---------------------------------------------------------- combined parallel sections */

static void setup_combined(struct lite_ws *ws, void *arg)
{
  setup_sections(ws, *(unsigned *)arg);
  ws->combined_work = ompt_work_sections;
}

void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                            unsigned flags)
{
  /* With a tool, GOMP_parallel's region: the entry point's frame, the user's return address. */
  if (lite_ompt_on())
    lite_parallel_run_ompt(__builtin_return_address(0), __builtin_frame_address(0), fn, data,
                           num_threads, flags, setup_combined, &count);
  else if (lite_prof_on())
    lite_parallel_run_profiled(__builtin_return_address(0), fn, data, num_threads, flags,
                               setup_combined, &count);
  else
    lite_parallel_run(fn, data, num_threads, flags, setup_combined, &count);
}

void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads,
                                  unsigned count)
{
  lite_parallel_begin(fn, data, num_threads, 0, setup_combined, &count);
}
