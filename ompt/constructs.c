/* The events of the constructs inside a region (OpenMP 5.1 section 4.5.2): worksharing, masked,
   the waits of taskwait and taskgroup, mutual exclusion (locks, critical, ordered), reduction,
   flush, cancel and error. Each entry point's hook is one branch on lite_env.ompt and a call
   here, with the user's return address (codeptr_ra) taken where the program called in.

   The binding region and task of an event are the calling thread's current ones (the initial
   task's implicit region outside any team). A wait_id is the address of what is waited for
   (the lock, the critical section's word, the loop's ordered turn): tools compare them, and
   an address names one object as long as it lives. */
#include "ompt/ompt.h"
#include "loop_common.h"

#include <stdlib.h>

static ompt_data_t *region_of(struct lite_thread *thr)
{
  return thr->team != NULL ? &thr->team->ompt.parallel_data : &thr->ompt_initial_parallel;
}

/* ------------------------------------------------------------------------------ worksharing */

void lite_ompt_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, uint64_t count,
                    const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_work_t cb = LITE_OMPT_CB(ompt_callback_work);
  if (cb == NULL)
    return;
  struct lite_thread *thr = lite_self();
  cb(kind, endpoint, region_of(thr), &lite_current_task(thr)->ompt_data, count, codeptr);
}

/* A loop or sections construct begins for the calling member: remembered, so that its end is
   dispatched only after a begin (gcc's combined parallel loops start their loop in the fork,
   where no member calls in, and end it with GOMP_loop_end_nowait). */
void lite_ompt_ws_begin(ompt_work_t kind, uint64_t count, const void *codeptr)
{
  struct lite_thread *thr = lite_self();
  thr->ompt_ws_open = true;
  lite_ompt_work(kind, ompt_scope_begin, count, codeptr);
}

void lite_ompt_combined_begin(struct lite_thread *thr)
{
  struct lite_ws *ws = thr->ws;
  if (ws == NULL || thr->team == NULL)
    return;
  thr->ompt_ws_open = true;
  lite_ompt_work((ompt_work_t)ws->combined_work, ompt_scope_begin, ws->count,
                 thr->team->ompt.codeptr);
}

/* The end of a loop or sections construct (barrier: 0 none, 1 the implicit one, 2 the
   cancellable one): the work's end, the member's share handed back, then the barrier with its
   own events. Returns whether the region was cancelled (barrier 2). */
void lite_ompt_ws_close(ompt_work_t kind, const void *codeptr)
{
  struct lite_thread *thr = lite_self();
  if (thr->ompt_ws_open) {
    thr->ompt_ws_open = false;
    lite_ompt_work(kind, ompt_scope_end, 0, codeptr);
  }
}

bool lite_ompt_ws_end(ompt_work_t kind, int barrier, const void *codeptr)
{
  struct lite_thread *thr = lite_self();
  lite_ompt_ws_close(kind, codeptr);
  lite_loop_finish(thr, barrier == 1);
  if (barrier == 1)
    lite_ompt_barrier(thr, ompt_sync_region_barrier_implicit_workshare, codeptr);
  else if (barrier == 2)
    return lite_ompt_barrier_cancel(thr, ompt_sync_region_barrier_implicit_workshare, codeptr);
  return false;
}

/* ------------------------------------------------------------------------------ dispatch */

/* What a member is handed of a worksharing construct (OpenMP 5.2 section 19.5.2.6): bound to
   the current region and its implicit task, like the construct's work events. Chunks are in
   logical iteration numbers of the iteration space the runtime was given (gcc's loops: counted
   from the loop's start by its step; clang's: its own, already normalised iteration variable,
   which for a distribute parallel for is the team's block). Called from hand-outs that have
   already seen lite_ompt_on(), so the check here is only whether a tool is still attached. */
static void dispatch(ompt_dispatch_t kind, ompt_data_t instance)
{
  if (!lite_ompt_attached())
    return;
  ompt_callback_dispatch_t cb = LITE_OMPT_CB(ompt_callback_dispatch);
  if (cb == NULL)
    return;
  struct lite_thread *thr = lite_self();
  cb(region_of(thr), &lite_current_task(thr)->ompt_data, kind, instance);
}

static void dispatch_chunk(ompt_dispatch_t kind, uint64_t start, uint64_t iterations)
{
  ompt_dispatch_chunk_t chunk = {start, iterations};
  dispatch(kind, (ompt_data_t){.ptr = &chunk});
}

void lite_ompt_ws_chunk(uint64_t lo, uint64_t hi)
{
  dispatch_chunk(ompt_dispatch_ws_loop_chunk, lo, hi - lo);
}

/* instance.ptr: a code address, as the specification asks for a section. gcc's sections have
   none of their own in the runtime's sight, so it is the return address of the entry point that
   handed the section out (as LLVM's runtime gives too). */
void lite_ompt_section(const void *codeptr)
{
  dispatch(ompt_dispatch_section, (ompt_data_t){.ptr = (void *)codeptr});
}

void lite_ompt_static_chunks(ompt_dispatch_t kind, const void *codeptr, uint64_t first,
                             uint64_t chunk, uint64_t stride, uint64_t trip)
{
  if (chunk == 0)
    return;
  if (stride < chunk) /* one chunk only (the stride of an unchunked split spans the loop) */
    stride = trip;
  for (uint64_t s = first; s < trip; s += stride) {
    uint64_t n = trip - s < chunk ? trip - s : chunk;
    if (kind == ompt_dispatch_section) {
      for (uint64_t i = 0; i < n; i++)
        lite_ompt_section(codeptr);
    } else {
      dispatch_chunk(kind, s, n);
    }
    if (stride > trip - s)
      break;
  }
}

/* ------------------------------------------------------------------------------ doacross */

void lite_ompt_doacross(ompt_dependence_type_t type, const uint64_t *values, unsigned n)
{
  ompt_dependence_t small[8];
  ompt_dependence_t *deps = n <= 8 ? small : malloc(n * sizeof *deps);
  if (deps == NULL)
    lite_fatal("out of memory for a doacross loop's dependences");
  for (unsigned i = 0; i < n; i++) {
    deps[i].variable.value = values[i];
    deps[i].dependence_type = type;
  }
  lite_ompt_dependences(lite_current_task(lite_self()), deps, (int)n);
  if (deps != small)
    free(deps);
}

void lite_ompt_masked(ompt_scope_endpoint_t endpoint, const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_masked_t cb = LITE_OMPT_CB(ompt_callback_masked);
  if (cb == NULL)
    return;
  struct lite_thread *thr = lite_self();
  cb(endpoint, region_of(thr), &lite_current_task(thr)->ompt_data, codeptr);
}

/* ------------------------------------------------------------------------------ sync regions */

/* taskwait, taskgroup and reduction: the construct and its wait as one, each as a pair around
   the wait (begin: before the thread waits; end: after). */
void lite_ompt_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  struct lite_thread *thr = lite_self();
  struct lite_task *t = lite_current_task(thr);
  ompt_callback_sync_region_t region = LITE_OMPT_CB(ompt_callback_sync_region);
  ompt_callback_sync_region_t wait =
      (ompt_callback_sync_region_t)lite_ompt_callbacks[ompt_callback_sync_region_wait];
  if (endpoint == ompt_scope_begin) {
    thr->ompt_state = kind == ompt_sync_region_taskwait    ? ompt_state_wait_taskwait
                      : kind == ompt_sync_region_taskgroup ? ompt_state_wait_taskgroup
                                                           : thr->ompt_state;
    if (region != NULL)
      region(kind, endpoint, region_of(thr), &t->ompt_data, codeptr);
    if (wait != NULL)
      wait(kind, endpoint, region_of(thr), &t->ompt_data, codeptr);
  } else {
    if (wait != NULL)
      wait(kind, endpoint, region_of(thr), &t->ompt_data, codeptr);
    if (region != NULL)
      region(kind, endpoint, region_of(thr), &t->ompt_data, codeptr);
    thr->ompt_state = thr->team != NULL ? ompt_state_work_parallel : ompt_state_work_serial;
  }
}

/* One half of a sync region's events, for a construct whose region and wait begin at different
   places (taskgroup: the region at its start, the wait at its end). */
void lite_ompt_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_sync_region_t cb = LITE_OMPT_CB(ompt_callback_sync_region);
  if (cb == NULL)
    return;
  struct lite_thread *thr = lite_self();
  cb(kind, endpoint, region_of(thr), &lite_current_task(thr)->ompt_data, codeptr);
}

void lite_ompt_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  struct lite_thread *thr = lite_self();
  thr->ompt_state = endpoint == ompt_scope_begin ? ompt_state_wait_taskgroup
                    : thr->team != NULL          ? ompt_state_work_parallel
                                                 : ompt_state_work_serial;
  ompt_callback_sync_region_t cb =
      (ompt_callback_sync_region_t)lite_ompt_callbacks[ompt_callback_sync_region_wait];
  if (cb != NULL)
    cb(kind, endpoint, region_of(thr), &lite_current_task(thr)->ompt_data, codeptr);
}

void lite_ompt_reduction(ompt_scope_endpoint_t endpoint, const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_sync_region_t cb =
      (ompt_callback_sync_region_t)lite_ompt_callbacks[ompt_callback_reduction];
  if (cb == NULL)
    return;
  struct lite_thread *thr = lite_self();
  cb(ompt_sync_region_reduction, endpoint, region_of(thr), &lite_current_task(thr)->ompt_data,
     codeptr);
}

/* ------------------------------------------------------------------------------ mutexes */

/* The state a thread is in while it waits for a mutex of this kind. */
static int mutex_state(ompt_mutex_t kind)
{
  switch (kind) {
  case ompt_mutex_critical: return ompt_state_wait_critical;
  case ompt_mutex_ordered: return ompt_state_wait_ordered;
  case ompt_mutex_atomic: return ompt_state_wait_atomic;
  default: return ompt_state_wait_lock;
  }
}

/* The one mutex implementation (entry.c's mutex_impls: 1, the futex word). */
#define MUTEX_IMPL 1

void lite_ompt_mutex_acquire(ompt_mutex_t kind, unsigned hint, const void *wait_id,
                             const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  struct lite_thread *thr = lite_self();
  thr->ompt_state = mutex_state(kind);
  thr->ompt_wait_id = (ompt_wait_id_t)(uintptr_t)wait_id;
  ompt_callback_mutex_acquire_t cb = LITE_OMPT_CB(ompt_callback_mutex_acquire);
  if (cb != NULL)
    cb(kind, hint, MUTEX_IMPL, (ompt_wait_id_t)(uintptr_t)wait_id, codeptr);
}

/* acquired, released, lock_destroy: event is one of ompt_callback_mutex_acquired,
   ompt_callback_mutex_released, ompt_callback_lock_destroy, which share a signature. */
void lite_ompt_mutex(ompt_callbacks_t event, ompt_mutex_t kind, const void *wait_id,
                     const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  if (event == ompt_callback_mutex_acquired) {
    struct lite_thread *thr = lite_self();
    thr->ompt_state = thr->team != NULL ? ompt_state_work_parallel : ompt_state_work_serial;
    thr->ompt_wait_id = 0;
  }
  ompt_callback_mutex_t cb = (ompt_callback_mutex_t)lite_ompt_callbacks[event];
  if (cb != NULL)
    cb(kind, (ompt_wait_id_t)(uintptr_t)wait_id, codeptr);
}

void lite_ompt_lock_init(ompt_mutex_t kind, unsigned hint, const void *wait_id,
                         const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_mutex_acquire_t cb =
      (ompt_callback_mutex_acquire_t)lite_ompt_callbacks[ompt_callback_lock_init];
  if (cb != NULL)
    cb(kind, hint, MUTEX_IMPL, (ompt_wait_id_t)(uintptr_t)wait_id, codeptr);
}

void lite_ompt_nest_lock(ompt_scope_endpoint_t endpoint, const void *wait_id, const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_nest_lock_t cb = LITE_OMPT_CB(ompt_callback_nest_lock);
  if (cb != NULL)
    cb(endpoint, (ompt_wait_id_t)(uintptr_t)wait_id, codeptr);
}

/* A test that did not get the mutex: the thread works again, and no acquired event. */
void lite_ompt_mutex_abandon(void)
{
  if (!lite_ompt_ready())
    return;
  struct lite_thread *thr = lite_self();
  thr->ompt_state = thr->team != NULL ? ompt_state_work_parallel : ompt_state_work_serial;
  thr->ompt_wait_id = 0;
}

/* A mutex taken by a blocking call: acquire, the wait, acquired. */
void lite_ompt_mutex_lock(ompt_mutex_t kind, _Atomic uint32_t *word, unsigned hint,
                          const void *codeptr)
{
  lite_ompt_mutex_acquire(kind, hint, (const void *)word, codeptr);
  lite_mutex_lock(word);
  lite_ompt_mutex(ompt_callback_mutex_acquired, kind, (const void *)word, codeptr);
}

/* ------------------------------------------------------------------------------ flush, cancel, error */

void lite_ompt_flush(const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_flush_t cb = LITE_OMPT_CB(ompt_callback_flush);
  if (cb != NULL)
    cb(&lite_self()->ompt_data, codeptr);
}

void lite_ompt_cancel(int flags, const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_cancel_t cb = LITE_OMPT_CB(ompt_callback_cancel);
  if (cb != NULL)
    cb(&lite_current_task(lite_self())->ompt_data, flags, codeptr);
}

void lite_ompt_error(bool fatal, const char *message, size_t length, const void *codeptr)
{
  if (!lite_ompt_ready())
    return;
  ompt_callback_error_t cb = LITE_OMPT_CB(ompt_callback_error);
  if (cb != NULL)
    cb(fatal ? ompt_fatal : ompt_warning, message, length, codeptr);
}
