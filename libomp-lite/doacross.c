/* Doacross loops (ordered(n) with depend(sink)/depend(source)).

   gcc hands the runtime the trip count of each of the n ordered loops and works in logical
   iteration numbers. The outermost loop is shared out; the inner ones run in order inside one
   iteration. So one word per outer iteration is enough: it holds 1 + the flattened inner position
   of the last depend(source) posted there, and a depend(sink) waits until the word passes the
   position it names. Memory: 8 bytes per outer iteration. */
#include "loop_common.h"
#include "ompt/ompt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The trip count of dimension d as gcc passes it: a long (0 or less: no iterations) or an
   unsigned long long. */
static uint64_t count_at(const void *counts, bool is_ull, unsigned d)
{
  if (is_ull)
    return ((const unsigned long long *)counts)[d];
  long c = ((const long *)counts)[d];
  return c > 0 ? (uint64_t)c : 0;
}

/* Any number of dimensions: gcc's ordered(n) has no bound (GCC's doacross-1.c uses 61). */
static void setup_doacross(struct lite_ws *ws, unsigned ncounts, const void *counts, bool is_ull)
{
  unsigned inner = ncounts > 0 ? ncounts - 1 : 0;
  if (inner > ws->inner_cap) {
    free(ws->inner_counts);
    ws->inner_counts = malloc(inner * sizeof *ws->inner_counts);
    if (ws->inner_counts == NULL)
      lite_fatal("out of memory for a doacross loop of %u dimensions", ncounts);
    ws->inner_cap = inner;
  }
  ws->ncounts = ncounts;
  uint64_t outer = ncounts > 0 ? count_at(counts, is_ull, 0) : 0;
  ws->outer_count = outer;
  /* Positions within one outer iteration are flattened into one word; a product past 2^64 would
     mean more inner iterations than any program can run, but must not wrap silently. A loop with
     no iterations in some dimension runs no depend clause at all, and gcc may leave the counts
     after that dimension unset (gfortran does: libgomp.fortran/doacross3.f90 failed here now and
     then, on a count that was stack garbage): they are not read. */
  uint64_t span = 1;
  for (unsigned d = 1; d < ncounts && outer != 0; d++) {
    uint64_t c = count_at(counts, is_ull, d);
    ws->inner_counts[d - 1] = c;
    if (c == 0)
      break;
    if (span > UINT64_MAX / c)
      lite_fatal("doacross loop whose inner ordered loops have more than 2^64 iterations");
    span *= c;
  }
  if (outer > ws->posted_cap) {
    free(ws->posted);
    ws->posted = malloc(outer * sizeof *ws->posted);
    if (ws->posted == NULL)
      lite_fatal("out of memory for a doacross loop of %llu iterations", (unsigned long long)outer);
    ws->posted_cap = outer;
  }
  memset((void *)ws->posted, 0, outer * sizeof *ws->posted);
}

/* Folds the logical iteration v of ordered dimension d (1 and up) into a flattened position
   within one outer iteration; false if v lies outside that dimension. */
static inline bool fold(const struct lite_ws *ws, unsigned d, uint64_t v, uint64_t *pos)
{
  uint64_t c = ws->inner_counts[d - 1];
  if (v >= c)
    return false;
  *pos = *pos * c + v;
  return true;
}

/* The doacross loop the calling thread is in, if any. */
static struct lite_ws *doacross_ws(void)
{
  struct lite_ws *ws = lite_self()->ws;
  return ws != NULL && ws->posted != NULL && ws->ncounts > 0 ? ws : NULL;
}

static void post(struct lite_ws *ws, uint64_t outer, uint64_t pos)
{
  atomic_store(&ws->posted[outer], pos + 1);
  if (atomic_load(&ws->posted_sleepers) != 0) {
    atomic_fetch_add(&ws->posted_gen, 1);
    lite_futex_wake(&ws->posted_gen, INT32_MAX);
  }
}

static void wait_for(struct lite_ws *ws, uint64_t outer, uint64_t pos)
{
  _Atomic uint64_t *word = &ws->posted[outer];
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

/* codeptr: the return address of gcc's entry point, for a tool's work and dispatch events; NULL
   for clang's detached construct, whose loop is a construct of its own with its own events. */
static bool start_doacross(struct lite_loop_request *req, unsigned ncounts, const void *counts,
                           bool is_ull, long *istart, long *iend, uintptr_t *reductions,
                           void **mem, const void *codeptr)
{
  struct lite_thread *thr = lite_self();
  if (lite_ompt_on() && codeptr != NULL)
    lite_ompt_ws_begin(ompt_work_loop, ncounts > 0 ? count_at(counts, is_ull, 0) : 0, codeptr);
  bool first;
  struct lite_ws *ws = lite_ws_begin(thr, &first);
  if (first) {
    LITE_SET_IF_CHANGED(ws->nthreads, lite_loop_team_size(thr));
    lite_iter_init_long(ws, 0, (long)count_at(counts, is_ull, 0), 1);
    /* Chunks go out in order, so a sink always names work that is running or done. */
    req->monotonic = true;
    lite_sched_setup(ws, req);
    setup_doacross(ws, ncounts, counts, is_ull);
    lite_ws_setup_mem(ws, mem);
    if (reductions != NULL)
      lite_ws_task_reductions(thr, ws, true, reductions);
    lite_ws_ready(ws);
  } else if (reductions != NULL) {
    lite_ws_task_reductions(thr, ws, false, reductions);
  }
  if (mem != NULL)
    *mem = ws->mem;
  uint64_t lo, hi;
  if (istart == NULL)
    return true;
  if (!lite_sched_next(thr, ws, &lo, &hi))
    return false;
  if (lite_ompt_on())
    lite_ompt_ws_chunk(lo, hi);
  *istart = (long)lo;
  *iend = (long)hi;
  return true;
}

static bool start_long(enum lite_sched kind, unsigned ncounts, long *counts, long chunk,
                       long *istart, long *iend, const void *codeptr)
{
  struct lite_loop_request req = {kind, true, false, chunk > 0 ? (uint64_t)chunk : 0, NULL, false};
  if (kind == LITE_SCHED_RUNTIME)
    lite_sched_resolve_runtime(lite_self(), &req, false);
  return start_doacross(&req, ncounts, counts, false, istart, iend, NULL, NULL, codeptr);
}

#define SITE __builtin_return_address(0)

bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                     long *iend)
{
  return start_long(LITE_SCHED_STATIC, ncounts, counts, chunk, istart, iend, SITE);
}

bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                      long *iend)
{
  return start_long(LITE_SCHED_DYNAMIC, ncounts, counts, chunk, istart, iend, SITE);
}

bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk, long *istart,
                                     long *iend)
{
  return start_long(LITE_SCHED_GUIDED, ncounts, counts, chunk, istart, iend, SITE);
}

bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)
{
  return start_long(LITE_SCHED_RUNTIME, ncounts, counts, 0, istart, iend, SITE);
}

bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                              long *istart, long *iend, uintptr_t *reductions, void **mem)
{
  struct lite_loop_request req;
  lite_loop_request_from_sched(lite_self(), &req, sched, chunk, false, NULL);
  return start_doacross(&req, ncounts, counts, false, istart, iend, reductions, mem, SITE);
}

/* A dependence on an iteration outside the iteration space is ignored (OpenMP 5.2 §15.9.6), and
   so is a post outside it. gcc passes logical iteration numbers; a negative long is outside. */
/* The outer iteration and the flattened inner position of the logical iteration numbers counts
   (one per dimension); false if one lies outside its dimension (a negative long is outside). */
static bool position_of(const struct lite_ws *ws, const long *counts, uint64_t *outer,
                        uint64_t *pos)
{
  if (counts[0] < 0 || (uint64_t)counts[0] >= ws->outer_count)
    return false;
  *pos = 0;
  for (unsigned d = 1; d < ws->ncounts; d++)
    if (counts[d] < 0 || !fold(ws, d, (uint64_t)counts[d], pos))
      return false;
  *outer = (uint64_t)counts[0];
  return true;
}

/* For a tool: a depend(source) or depend(sink) in force, as the dependences of the current task
   that name the iteration (lite_ompt_doacross, clang's loops' too: kmpc/doacross.c); gcc's
   values are logical iteration numbers, which a tool gets as they are. counts: n longs, or n
   unsigned long longs if is_ull. */
static __attribute__((noinline, cold)) void tool_deps(ompt_dependence_type_t type, unsigned n,
                                                      const void *counts, bool is_ull)
{
  uint64_t values[n];
  for (unsigned d = 0; d < n; d++)
    values[d] = is_ull ? ((const unsigned long long *)counts)[d]
                       : (uint64_t)((const long *)counts)[d];
  lite_ompt_doacross(type, values, n);
}

/* The same for a wait, its values read again from the caller's arguments (ap: after first). */
static __attribute__((noinline, cold)) void tool_sink(unsigned n, uint64_t first, bool is_ull,
                                                      va_list ap)
{
  uint64_t values[n];
  values[0] = first;
  for (unsigned d = 1; d < n; d++)
    values[d] = is_ull ? va_arg(ap, unsigned long long) : (uint64_t)va_arg(ap, long);
  lite_ompt_doacross(ompt_dependence_type_sink, values, n);
}

void GOMP_doacross_post(long *counts)
{
  struct lite_ws *ws = doacross_ws();
  uint64_t outer, pos;
  if (ws != NULL && position_of(ws, counts, &outer, &pos)) {
    if (lite_ompt_on())
      tool_deps(ompt_dependence_type_source, ws->ncounts, counts, false);
    post(ws, outer, pos);
  }
}

void GOMP_doacross_wait(long first, ...)
{
  struct lite_ws *ws = doacross_ws();
  if (ws == NULL || first < 0 || (uint64_t)first >= ws->outer_count)
    return;
  uint64_t pos = 0;
  bool inside = true;
  va_list ap;
  va_start(ap, first);
  for (unsigned d = 1; d < ws->ncounts && inside; d++) {
    long v = va_arg(ap, long);
    inside = v >= 0 && fold(ws, d, (uint64_t)v, &pos);
  }
  va_end(ap);
  if (!inside)
    return;
  if (lite_ompt_on()) {
    va_start(ap, first);
    tool_sink(ws->ncounts, (uint64_t)first, false, ap);
    va_end(ap);
  }
  wait_for(ws, (uint64_t)first, pos);
}

/* clang's doacross loops (kmpc/doacross.c) share their iterations out through a loop of their
   own (static, or dispatched: a construct of the team's too), so the doacross construct cannot
   stay the thread's current one: it is started, then detached, and named in each post and wait
   and at its end. A team's members detach the same entry. */
struct lite_ws *lite_doacross_begin_detached(unsigned ncounts, long *counts)
{
  struct lite_thread *thr = lite_self();
  struct lite_loop_request req;
  lite_loop_request_from_sched(thr, &req, LITE_SCHED_STATIC, 0, false, NULL);
  start_doacross(&req, ncounts, counts, false, NULL, NULL, NULL, NULL, NULL);
  struct lite_ws *ws = thr->ws;
  thr->ws = NULL;
  return ws;
}

void lite_doacross_post_in(struct lite_ws *ws, const long *counts)
{
  uint64_t outer, pos;
  if (ws != NULL && ws->posted != NULL && position_of(ws, counts, &outer, &pos))
    post(ws, outer, pos);
}

void lite_doacross_wait_in(struct lite_ws *ws, const long *counts)
{
  uint64_t outer, pos;
  if (ws != NULL && ws->posted != NULL && position_of(ws, counts, &outer, &pos))
    wait_for(ws, outer, pos);
}

void lite_doacross_end_detached(struct lite_ws *ws)
{
  struct lite_thread *thr = lite_self();
  struct lite_ws *current = thr->ws;
  thr->ws = ws;
  lite_loop_finish(thr, false);
  thr->ws = current;
}

/* ------------------------------------------------------------- unsigned long long variants */

typedef unsigned long long ull; /* gcc's gomp_ull */

static bool start_ull(enum lite_sched kind, unsigned ncounts, ull *counts, ull chunk, ull *istart,
                      ull *iend, long sched, uintptr_t *reductions, void **mem,
                      const void *codeptr)
{
  struct lite_loop_request req = {kind, true, false, chunk, NULL, false};
  if (sched >= 0)
    lite_loop_request_from_sched(lite_self(), &req, sched, 0, false, NULL);
  if (sched >= 0 && chunk != 0)
    req.chunk = chunk;
  if (kind == LITE_SCHED_RUNTIME)
    lite_sched_resolve_runtime(lite_self(), &req, false);
  long lo, hi;
  bool got = start_doacross(&req, ncounts, counts, true, istart != NULL ? &lo : NULL, &hi,
                            reductions, mem, codeptr);
  if (got && istart != NULL) {
    *istart = (ull)lo;
    *iend = (ull)hi;
  }
  return got;
}

bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                         ull *iend)
{
  return start_ull(LITE_SCHED_STATIC, ncounts, counts, chunk, istart, iend, -1, NULL, NULL, SITE);
}

bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                          ull *iend)
{
  return start_ull(LITE_SCHED_DYNAMIC, ncounts, counts, chunk, istart, iend, -1, NULL, NULL, SITE);
}

bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, ull *counts, ull chunk, ull *istart,
                                         ull *iend)
{
  return start_ull(LITE_SCHED_GUIDED, ncounts, counts, chunk, istart, iend, -1, NULL, NULL, SITE);
}

bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, ull *counts, ull *istart, ull *iend)
{
  return start_ull(LITE_SCHED_RUNTIME, ncounts, counts, 0, istart, iend, -1, NULL, NULL, SITE);
}

bool GOMP_loop_ull_doacross_start(unsigned ncounts, ull *counts, long sched, ull chunk,
                                  ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
  return start_ull(LITE_SCHED_DYNAMIC, ncounts, counts, chunk, istart, iend, sched, reductions,
                   mem, SITE);
}

void GOMP_doacross_ull_post(ull *counts)
{
  struct lite_ws *ws = doacross_ws();
  if (ws == NULL || counts[0] >= ws->outer_count)
    return;
  uint64_t pos = 0;
  for (unsigned d = 1; d < ws->ncounts; d++)
    if (!fold(ws, d, counts[d], &pos))
      return;
  if (lite_ompt_on())
    tool_deps(ompt_dependence_type_source, ws->ncounts, counts, true);
  post(ws, counts[0], pos);
}

void GOMP_doacross_ull_wait(ull first, ...)
{
  struct lite_ws *ws = doacross_ws();
  if (ws == NULL || first >= ws->outer_count)
    return;
  uint64_t pos = 0;
  bool inside = true;
  va_list ap;
  va_start(ap, first);
  for (unsigned d = 1; d < ws->ncounts && inside; d++)
    inside = fold(ws, d, va_arg(ap, ull), &pos);
  va_end(ap);
  if (!inside)
    return;
  if (lite_ompt_on()) {
    va_start(ap, first);
    tool_sink(ws->ncounts, first, true, ap);
    va_end(ap);
  }
  wait_for(ws, first, pos);
}
