/* What the loop, sections and doacross entry points share (implemented in work.c). */
#ifndef LITE_LOOP_COMMON_H
#define LITE_LOOP_COMMON_H

#include "sched/sched_internal.h"

/* Members of the calling thread's team (1 outside any region). */
static inline unsigned lite_loop_team_size(struct lite_thread *thr)
{
  return thr->team != NULL ? thr->team->nthreads : 1;
}

/* Decodes GOMP_loop_start's sched argument: a lite_sched kind, the monotonic bit, RUNTIME for
   schedule(runtime) and AUTO for schedule(nonmonotonic:runtime). */
void lite_loop_request_from_sched(struct lite_thread *thr, struct lite_loop_request *req,
                                  long sched, long chunk, bool ordered, void *site);

/* A loop started by another ABI's entry point (kmpc/loop.c), its request decoded there with the
   caller's own call site; the chunks then come from GOMP_loop_runtime_next (or the ull one). */
bool lite_loop_start_long(struct lite_loop_request *req, long start, long end, long incr,
                          long *istart, long *iend);
bool lite_loop_start_ull(struct lite_loop_request *req, bool up, unsigned long long start,
                         unsigned long long end, unsigned long long incr,
                         unsigned long long *istart, unsigned long long *iend);

/* A doacross construct that is not the thread's current one (clang's: kmpc/doacross.c): started
   with the trip counts of its dimensions, posted to and waited on with logical iteration numbers
   (one per dimension), and left at the end. */
struct lite_ws *lite_doacross_begin_detached(unsigned ncounts, long *counts);
void lite_doacross_post_in(struct lite_ws *ws, const long *counts);
void lite_doacross_wait_in(struct lite_ws *ws, const long *counts);
void lite_doacross_end_detached(struct lite_ws *ws);

/* reduction(task, ...) on a worksharing construct (task_reduction.c): the first member calls it
   between lite_ws_begin and lite_ws_ready, the others after lite_ws_begin. */
void lite_ws_task_reductions(struct lite_thread *thr, struct lite_ws *ws, bool first,
                             uintptr_t *reductions);

/* The first member allocates the zeroed scratch memory GOMP_loop_start asks for (*mem = size). */
void lite_ws_setup_mem(struct lite_ws *ws, void **mem);

/* A member was handed the chunk [lo, hi) of its loop (iteration indices): the profile counts it,
   a tool gets its dispatch event. The hand-outs' one branch, on the two bytes of lite_env that
   say whether either is on (the profile's hook alone was one branch here already); the work is
   out of line (loop.c). */
void lite_loop_chunk_observed(uint64_t lo, uint64_t hi);
static inline void lite_loop_chunk_seen(uint64_t lo, uint64_t hi)
{
  if (lite_unlikely((lite_env.profile | __atomic_load_n(&lite_env.ompt, __ATOMIC_RELAXED)) != 0))
    lite_loop_chunk_observed(lo, hi);
}

/* A member leaves its loop: statistics, the ordered turn, the ring entry (left to the barrier
   when one follows at once: lite_barrier_wait). */
void lite_loop_finish(struct lite_thread *thr, bool barrier_follows);

#endif
