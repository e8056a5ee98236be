/* Doacross loops (ordered(n) with depend(sink)/depend(source)).

   gcc hands the runtime the trip count of each of the n ordered loops and works in logical
   iteration numbers. The outermost loop is shared out; the inner ones run in order inside one
   iteration. So one word per outer iteration is enough: it holds 1 + the flattened inner position
   of the last depend(source) posted there, and a depend(sink) waits until the word passes the
   position it names. Memory: 8 bytes per outer iteration. */
#include "loop_common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS (sizeof(((struct lite_ws *)0)->counts) / sizeof(long))

static void setup_doacross(struct lite_ws *ws, unsigned ncounts, const uint64_t *counts)
{
  if (ncounts > MAX_DIMS)
    lite_fatal("doacross loop with %u ordered dimensions: libomp-lite supports at most %zu",
               ncounts, MAX_DIMS);
  ws->ncounts = ncounts;
  for (unsigned d = 0; d < ncounts; d++)
    ws->counts[d] = (long)counts[d];
  uint64_t outer = counts[0];
  if (outer > ws->posted_cap) {
    free(ws->posted);
    ws->posted = malloc(outer * sizeof *ws->posted);
    if (ws->posted == NULL)
      lite_fatal("out of memory for a doacross loop of %llu iterations", (unsigned long long)outer);
    ws->posted_cap = outer;
  }
  memset((void *)ws->posted, 0, outer * sizeof *ws->posted);
}

/* Flattened position of (v[1], ..., v[n-1]) within one outer iteration; false if out of range. */
static bool inner_position(const struct lite_ws *ws, const uint64_t *v, uint64_t *pos)
{
  uint64_t p = 0;
  for (unsigned d = 1; d < ws->ncounts; d++) {
    if (v[d] >= (uint64_t)ws->counts[d])
      return false;
    p = p * (uint64_t)ws->counts[d] + v[d];
  }
  *pos = p;
  return true;
}

static void post(const uint64_t *v)
{
  struct lite_ws *ws = lite_self()->ws;
  uint64_t pos;
  if (ws == NULL || ws->posted == NULL || v[0] >= (uint64_t)ws->counts[0] ||
      !inner_position(ws, v, &pos))
    return;
  atomic_store(&ws->posted[v[0]], pos + 1);
  if (atomic_load(&ws->posted_sleepers) != 0) {
    atomic_fetch_add(&ws->posted_gen, 1);
    lite_futex_wake(&ws->posted_gen, INT32_MAX);
  }
}

static void wait_for(const uint64_t *v)
{
  struct lite_ws *ws = lite_self()->ws;
  uint64_t pos;
  /* A dependence on an iteration outside the iteration space is ignored (OpenMP 5.2 §15.9.6). */
  if (ws == NULL || ws->posted == NULL || v[0] >= (uint64_t)ws->counts[0] ||
      !inner_position(ws, v, &pos))
    return;
  _Atomic uint64_t *word = &ws->posted[v[0]];
  struct lite_waiter w;
  lite_waiter_init(&w);
  while (atomic_load_explicit(word, memory_order_acquire) <= pos) {
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(&ws->posted_sleepers);
    uint32_t gen = atomic_load(&ws->posted_gen);
    if (atomic_load(word) <= pos)
      lite_futex_wait(&ws->posted_gen, gen);
    lite_park_end(&ws->posted_sleepers);
    lite_waiter_init(&w);
  }
}

/* ------------------------------------------------------------------------- long variants */

static bool start_doacross(struct lite_loop_request *req, unsigned ncounts, const uint64_t *counts,
                           long *istart, long *iend, void **mem)
{
  struct lite_thread *thr = lite_self();
  bool first;
  struct lite_ws *ws = lite_ws_begin(thr, &first);
  if (first) {
    ws->nthreads = lite_loop_team_size(thr);
    lite_iter_init_long(ws, 0, (long)counts[0], 1);
    /* Chunks go out in order, so a sink always names work that is running or done. */
    req->monotonic = true;
    lite_sched_setup(ws, req);
    setup_doacross(ws, ncounts, counts);
    lite_ws_setup_mem(ws, mem);
    lite_ws_ready(ws);
  }
  if (mem != NULL)
    *mem = ws->mem;
  uint64_t lo, hi;
  if (istart == NULL)
    return true;
  if (!lite_sched_next(thr, ws, &lo, &hi))
    return false;
  *istart = (long)lo;
  *iend = (long)hi;
  return true;
}

static bool start_long(enum lite_sched kind, unsigned ncounts, long *counts, long chunk,
                       long *istart, long *iend)
{
  uint64_t c[MAX_DIMS];
  for (unsigned d = 0; d < ncounts && d < MAX_DIMS; d++)
    c[d] = counts[d] > 0 ? (uint64_t)counts[d] : 0;
  struct lite_loop_request req = {kind, true, false, chunk > 0 ? (uint64_t)chunk : 0, NULL};
  if (kind == LITE_SCHED_RUNTIME)
    lite_sched_resolve_runtime(lite_self(), &req, false);
  return start_doacross(&req, ncounts, c, istart, iend, NULL);
}

bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                     long *iend)
{
  return start_long(LITE_SCHED_STATIC, ncounts, counts, chunk, istart, iend);
}

bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                      long *iend)
{
  return start_long(LITE_SCHED_DYNAMIC, ncounts, counts, chunk, istart, iend);
}

bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                     long *iend)
{
  return start_long(LITE_SCHED_GUIDED, ncounts, counts, chunk, istart, iend);
}

bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)
{
  return start_long(LITE_SCHED_RUNTIME, ncounts, counts, 0, istart, iend);
}

bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                              long *istart, long *iend, uintptr_t *reductions, void **mem)
{
  lite_no_task_reductions(reductions, "GOMP_loop_doacross_start");
  uint64_t c[MAX_DIMS];
  for (unsigned d = 0; d < ncounts && d < MAX_DIMS; d++)
    c[d] = counts[d] > 0 ? (uint64_t)counts[d] : 0;
  struct lite_loop_request req;
  lite_loop_request_from_sched(lite_self(), &req, sched, chunk, false, NULL);
  return start_doacross(&req, ncounts, c, istart, iend, mem);
}

void GOMP_doacross_post(long *counts)
{
  struct lite_ws *ws = lite_self()->ws;
  uint64_t v[MAX_DIMS];
  unsigned n = ws != NULL ? ws->ncounts : 0;
  for (unsigned d = 0; d < n; d++)
    v[d] = counts[d] >= 0 ? (uint64_t)counts[d] : UINT64_MAX;
  if (n > 0)
    post(v);
}

void GOMP_doacross_wait(long first, ...)
{
  struct lite_ws *ws = lite_self()->ws;
  uint64_t v[MAX_DIMS];
  unsigned n = ws != NULL ? ws->ncounts : 0;
  if (n == 0)
    return;
  va_list ap;
  va_start(ap, first);
  v[0] = first >= 0 ? (uint64_t)first : UINT64_MAX;
  for (unsigned d = 1; d < n; d++) {
    long x = va_arg(ap, long);
    v[d] = x >= 0 ? (uint64_t)x : UINT64_MAX;
  }
  va_end(ap);
  wait_for(v);
}

/* ------------------------------------------------------------- unsigned long long variants */

typedef unsigned long long ull; /* gcc's gomp_ull */

static bool start_ull(enum lite_sched kind, unsigned ncounts, ull *counts, ull chunk, ull *istart,
                      ull *iend, long sched, uintptr_t *reductions, void **mem)
{
  lite_no_task_reductions(reductions, "GOMP_loop_ull_doacross_start");
  uint64_t c[MAX_DIMS];
  for (unsigned d = 0; d < ncounts && d < MAX_DIMS; d++)
    c[d] = counts[d];
  struct lite_loop_request req = {kind, true, false, chunk, NULL};
  if (sched >= 0)
    lite_loop_request_from_sched(lite_self(), &req, sched, 0, false, NULL);
  if (sched >= 0 && chunk != 0)
    req.chunk = chunk;
  if (kind == LITE_SCHED_RUNTIME)
    lite_sched_resolve_runtime(lite_self(), &req, false);
  long lo, hi;
  bool got = start_doacross(&req, ncounts, c, istart != NULL ? &lo : NULL, &hi, mem);
  if (got && istart != NULL) {
    *istart = (ull)lo;
    *iend = (ull)hi;
  }
  return got;
}

bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                         ull *iend)
{
  return start_ull(LITE_SCHED_STATIC, ncounts, counts, chunk, istart, iend, -1, NULL, NULL);
}

bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                          ull *iend)
{
  return start_ull(LITE_SCHED_DYNAMIC, ncounts, counts, chunk, istart, iend, -1, NULL, NULL);
}

bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                         ull *iend)
{
  return start_ull(LITE_SCHED_GUIDED, ncounts, counts, chunk, istart, iend, -1, NULL, NULL);
}

bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull *counts, ull *istart, ull *iend)
{
  return start_ull(LITE_SCHED_RUNTIME, ncounts, counts, 0, istart, iend, -1, NULL, NULL);
}

bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull *counts, long sched, ull chunk,
                                  ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
  return start_ull(LITE_SCHED_DYNAMIC, ncounts, counts, chunk, istart, iend, sched, reductions,
                   mem);
}

void GOMP_doacross_ull_post(ull *counts)
{
  struct lite_ws *ws = lite_self()->ws;
  uint64_t v[MAX_DIMS];
  unsigned n = ws != NULL ? ws->ncounts : 0;
  for (unsigned d = 0; d < n; d++)
    v[d] = counts[d];
  if (n > 0)
    post(v);
}

void GOMP_doacross_ull_wait(ull first, ...)
{
  struct lite_ws *ws = lite_self()->ws;
  uint64_t v[MAX_DIMS];
  unsigned n = ws != NULL ? ws->ncounts : 0;
  if (n == 0)
    return;
  va_list ap;
  va_start(ap, first);
  v[0] = first;
  for (unsigned d = 1; d < n; d++)
    v[d] = va_arg(ap, ull);
  va_end(ap);
  wait_for(v);
}
