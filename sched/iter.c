/* Iteration spaces and the hand-out of chunks.

   Every loop is normalised to iteration indices 0..count-1, computed in unsigned 64-bit
   arithmetic so that bounds at the limits of long and unsigned long long are exact; gcc gets
   start + index * incr back (wrapping, then reinterpreted), and the loop's own end value for the
   last chunk so that start + count * incr, which may overflow, is never formed. */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------------- iteration spaces */

static uint64_t trip_count(uint64_t distance, uint64_t step)
{
  return distance / step + (distance % step != 0);
}

uint64_t lite_iter_count_long(long start, long end, long incr)
{
  if (incr > 0)
    return start < end ? trip_count((uint64_t)end - (uint64_t)start, (uint64_t)incr) : 0;
  if (incr < 0)
    return start > end ? trip_count((uint64_t)start - (uint64_t)end, -(uint64_t)incr) : 0;
  return 0; /* a zero increment is not a valid OpenMP loop */
}

/* Written only when they change, as everything in a loop's setup: see lite_sched_setup. */
void lite_iter_init_long(struct lite_ws *ws, long start, long end, long incr)
{
  LITE_SET_IF_CHANGED(ws->start, (uint64_t)start);
  LITE_SET_IF_CHANGED(ws->incr, (uint64_t)incr);
  LITE_SET_IF_CHANGED(ws->end, (uint64_t)end);
  LITE_SET_IF_CHANGED(ws->count, lite_iter_count_long(start, end, incr));
}

uint64_t lite_iter_count_ull(bool up, unsigned long long start, unsigned long long end,
                             unsigned long long incr)
{
  if (up)
    return start < end && incr != 0 ? trip_count(end - start, incr) : 0;
  /* incr is negative, as two's complement */
  return start > end && incr != 0 ? trip_count(start - end, -incr) : 0;
}

void lite_iter_init_ull(struct lite_ws *ws, bool up, unsigned long long start,
                        unsigned long long end, unsigned long long incr)
{
  LITE_SET_IF_CHANGED(ws->start, start);
  LITE_SET_IF_CHANGED(ws->incr, incr);
  LITE_SET_IF_CHANGED(ws->end, end);
  LITE_SET_IF_CHANGED(ws->count, lite_iter_count_ull(up, start, end, incr));
}

/* ------------------------------------------------------------------------------ schedules */

void lite_sched_resolve_runtime(struct lite_thread *thr, struct lite_loop_request *req,
                                bool maybe_nonmonotonic)
{
  omp_sched_t run = thr->icv.run_sched;
  bool monotonic_env = (run & omp_sched_monotonic) != 0;
  req->from_icv = true;
  switch (run & ~omp_sched_monotonic) {
  case omp_sched_static:
    req->kind = LITE_SCHED_STATIC;
    break;
  case omp_sched_guided:
    req->kind = LITE_SCHED_GUIDED;
    break;
  case omp_sched_auto:
    /* auto is ours to choose: affinity-first blocks with stealing when it pays. */
    req->kind = LITE_SCHED_AUTO;
    break;
  case omp_sched_dynamic:
  default:
    req->kind = LITE_SCHED_DYNAMIC;
    break;
  }
  req->chunk = thr->icv.run_chunk > 0 ? (uint64_t)thr->icv.run_chunk : 0;
  if (monotonic_env)
    req->monotonic = true;
  else if (maybe_nonmonotonic && req->kind != LITE_SCHED_STATIC)
    req->monotonic = false;
}

static void reserve_ranges(struct lite_ws *ws)
{
  if (ws->pool != NULL || ws->nthreads <= ws->ranges_cap)
    return; /* a pool's members have theirs in their slots */
  free(ws->ranges);
  ws->ranges = aligned_alloc(LITE_CACHE_LINE, ws->nthreads * sizeof *ws->ranges);
  if (ws->ranges == NULL)
    lite_fatal("out of memory starting a loop of %u threads", ws->nthreads);
  memset(ws->ranges, 0, ws->nthreads * sizeof *ws->ranges);
  ws->ranges_cap = ws->nthreads;
}

void lite_sched_setup(struct lite_ws *ws, const struct lite_loop_request *req)
{
  lite_sched_setup_looked(ws, req, NULL);
}

void lite_sched_setup_looked(struct lite_ws *ws, const struct lite_loop_request *req,
                             const struct lite_loop_look *look)
{
  uint64_t chunk = req->chunk == 0 ? 1 : req->chunk;
  /* OMPLITE_STEAL=off: nonmonotonic loops as monotonic ones, from the shared counter. */
  bool monotonic = req->monotonic || lite_env.steal == LITE_STEAL_OFF;
  enum lite_handout handout;
  switch (req->kind) {
  case LITE_SCHED_STATIC:
    handout = req->chunk == 0 ? LITE_HANDOUT_STATIC : LITE_HANDOUT_CYCLIC;
    break;
  case LITE_SCHED_GUIDED:
    handout = monotonic ? LITE_HANDOUT_GUIDED : LITE_HANDOUT_OWN;
    break;
  case LITE_SCHED_DYNAMIC:
  case LITE_SCHED_AUTO:
  default:
    handout = monotonic ? LITE_HANDOUT_DYNAMIC : LITE_HANDOUT_OWN;
    break;
  }
  if (ws->nthreads == 1 && handout == LITE_HANDOUT_OWN)
    handout = LITE_HANDOUT_STATIC; /* one member: its block is everything */
  /* A member asks once more after its last chunk, so the counter passes count by at most one
     chunk per member: a plain add cannot overflow. Should anything ask again, it would take
     2^62 more requests to wrap. */
  bool add_ok = ws->count <= UINT64_MAX / 2 && chunk <= UINT64_MAX / 4 / (ws->nthreads + 1);

  /* Every field is written only when its value changes: most loops set up what the entry
     already holds. A store takes the line out of the other members' caches, which read it at
     their first request; on the first line it also competes with them, since they poll ready
     there while this member sets the loop up (each store can then cost a round trip of the
     line); and a store miss on any line delays lite_ws_ready's release of the entry.
     loopbench dynamic-1, guided-1/-4 at 2 threads, for next, ordered_turn and cancelled alone:
     1.28-1.40 -> 1.22-1.35 ns/it (medians of 400 samples). */
  LITE_SET_IF_CHANGED(ws->ordered, req->ordered);
  LITE_SET_IF_CHANGED(ws->guided, req->kind == LITE_SCHED_GUIDED);
  LITE_SET_IF_CHANGED(ws->chunk, chunk);
  LITE_SET_IF_CHANGED(ws->add_ok, add_ok);
  if (atomic_load_explicit(&ws->next, memory_order_relaxed) != 0)
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
  if (atomic_load_explicit(&ws->ordered_turn, memory_order_relaxed) != 0)
    atomic_store_explicit(&ws->ordered_turn, 0, memory_order_relaxed);
  if (atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
    atomic_store_explicit(&ws->cancelled, false, memory_order_relaxed);
  if (handout == LITE_HANDOUT_OWN) {
    handout = lite_site_plan(ws, req->site, look != NULL && look->drawn ? &look->measure : NULL);
  } else {
    LITE_SET_IF_CHANGED(ws->steal, false);
    LITE_SET_IF_CHANGED(ws->site, NULL);
    LITE_SET_IF_CHANGED(ws->start_ns, 0);
  }
  LITE_SET_IF_CHANGED(ws->handout, handout);
  if (handout == LITE_HANDOUT_STATIC || handout == LITE_HANDOUT_CYCLIC ||
      handout == LITE_HANDOUT_OWN)
    reserve_ranges(ws);
  if (handout == LITE_HANDOUT_OWN && ws->steal) {
    LITE_SET_IF_CHANGED(ws->in_order, lite_env.steal == LITE_STEAL_MONOTONIC);
    lite_steal_setup(ws);
  }
  /* Not for a site's fallback from stealing in order (lite_site_plan: DYNAMIC with steal),
     which takes several chunks at a time (next_share). */
  LITE_SET_IF_CHANGED(ws->fast_add, handout == LITE_HANDOUT_DYNAMIC && add_ok && !req->ordered &&
                                        !ws->steal);
}

/* A split loop takes no setup from the first member: each member runs its own block of
   chunks, computed from the bounds, the chunk and the team, and the first member only claims
   the ring entry (lite_ws_begin_loop). Short balanced loops, whose site runs them without
   stealing, spent more on the setup than on their hand-out: the first member's claim, its
   setup and its release crossed the cores one after the other before the others could start.
   Back-to-back 64-iteration guided loops at 2 threads (OMPLITE_TINY_LOOPS=0), per-process
   medians of 16 processes: 397-617 -> 323-440 ns a loop (a static loop, the barrier alone:
   165-215).

   Every member must come to the same blocks, so only a request whose every input is the same
   in all members qualifies: an explicit nonmonotonic dynamic or guided schedule (not
   schedule(runtime), whose run-sched-var a member may have changed on its own), in a team with
   workers, without cancellation (cancel for marks the shared entry, which a split loop never
   reads). Whether the site steals or goes whole is read from its plan word, which may change
   between two members' looks: the first member's choice, in the ticket, decides for all. */
void lite_sched_look(struct lite_thread *thr, const struct lite_loop_request *req, uint64_t count,
                     struct lite_loop_look *look)
{
  struct lite_team *team = thr->team;
  look->mark = 0;
  look->drawn = look->measure = false;
  if (req->monotonic || req->ordered || req->from_icv || req->kind == LITE_SCHED_STATIC ||
      lite_env.steal == LITE_STEAL_OFF || team == NULL || team->pool == NULL || team->nthreads < 2 || lite_env.cancellation)
    return;
  look->drawn = true;
  bool whole;
  if (lite_site_may_split(req->site, team->nthreads, count, &look->measure, &whole))
    look->mark = LITE_WS_SPLIT | (whole ? LITE_WS_WHOLE : 0);
}

bool lite_sched_split_block(struct lite_thread *thr, const struct lite_loop_request *req,
                            uint64_t count, bool first, uint64_t mark, uint64_t *lo, uint64_t *hi)
{
  unsigned nthreads = thr->team->nthreads;
  bool whole = (mark & LITE_WS_WHOLE) != 0;
  if (first && lite_unlikely(lite_env.loop_stats))
    lite_site_split_run(req->site, nthreads, count, whole);
  if (whole) {
    /* The first to meet the loop is the first that asks: it runs every iteration. */
    if (first)
      lite_tiny_note_whole(thr, req, count);
    *lo = 0;
    *hi = first ? count : 0;
  } else {
    lite_own_block(count, req->chunk == 0 ? 1 : req->chunk, nthreads, thr->id, lo, hi);
  }
  return *lo < *hi;
}

/* ------------------------------------------------------------------------------- hand-out */

void lite_static_block(uint64_t count, unsigned n, unsigned id, uint64_t *lo, uint64_t *hi)
{
  uint64_t q = count / n, r = count % n;
  *lo = id * q + (id < r ? id : r);
  *hi = *lo + q + (id < r);
}

static struct lite_range *own_range(struct lite_ws *ws, unsigned id)
{
  struct lite_range *range = lite_ws_range(ws, id);
  uint32_t ticket = (uint32_t)atomic_load_explicit(&ws->ticket, memory_order_relaxed);
  if (range->tag != ticket) {
    range->tag = ticket;
    range->next_chunk = 0;
    range->lo = range->hi = 0;
    if (ws->handout == LITE_HANDOUT_STATIC)
      lite_static_block(ws->count, ws->nthreads, id, &range->lo, &range->hi);
  }
  return range;
}

static bool next_static(struct lite_ws *ws, unsigned id, uint64_t *lo, uint64_t *hi)
{
  struct lite_range *range = own_range(ws, id);
  if (range->lo >= range->hi)
    return false;
  *lo = range->lo;
  *hi = range->hi;
  range->lo = range->hi;
  return true;
}

static bool next_cyclic(struct lite_ws *ws, unsigned id, uint64_t *lo, uint64_t *hi)
{
  struct lite_range *range = own_range(ws, id);
  uint64_t nchunks = trip_count(ws->count, ws->chunk);
  uint64_t c = id + range->next_chunk * ws->nthreads;
  if (ws->count == 0 || c >= nchunks || c < id /* wrapped */)
    return false;
  range->next_chunk++;
  *lo = c * ws->chunk;
  *hi = ws->count - *lo < ws->chunk ? ws->count : *lo + ws->chunk;
  return true;
}

static bool next_dynamic(struct lite_ws *ws, uint64_t *lo, uint64_t *hi)
{
  uint64_t chunk = ws->chunk;
  uint64_t start;
  if (lite_likely(ws->add_ok)) {
    /* One fetch-and-add and nothing before it, as libgomp does: a load first fetches the
       contended line shared, and the add must then fetch it again to own it. (A/B at 2 threads,
       mono-dynamic-1/-4: within the noise, 65-97 ns/it either way.) */
    start = atomic_fetch_add(&ws->next, chunk);
    if (start >= ws->count)
      return false;
  } else {
    start = atomic_load(&ws->next);
    do {
      if (start >= ws->count)
        return false;
    } while (!atomic_compare_exchange_weak(&ws->next, &start,
                                           ws->count - start < chunk ? ws->count : start + chunk));
  }
  *lo = start;
  *hi = ws->count - start < chunk ? ws->count : start + chunk;
  return true;
}

static bool next_guided(struct lite_ws *ws, uint64_t *lo, uint64_t *hi)
{
  uint64_t start = atomic_load(&ws->next);
  uint64_t size;
  do {
    if (start >= ws->count)
      return false;
    uint64_t left = ws->count - start;
    size = trip_count(left, ws->nthreads);
    if (size < ws->chunk)
      size = ws->chunk;
    if (size > left)
      size = left;
  } while (!atomic_compare_exchange_weak(&ws->next, &start, start + size));
  *lo = start;
  *hi = start + size;
  return true;
}

/* The fallback of a nonmonotonic dynamic loop that stealing in order could not balance
   (site.c, steal.c): the shared counter, in whole chunks, an eighth of a member's share of what
   is left at a time (never less than one chunk). A member's takes still come in increasing
   order, and a loop of one-iteration chunks costs no atomic operation per iteration: loopbench
   triad-dynamic (2M iterations of one) took 80 ms a loop so on a loaded machine, where a noisy
   run had switched the site, against 5 ms on own blocks. */
static bool next_share(struct lite_ws *ws, uint64_t *lo, uint64_t *hi)
{
  uint64_t start = atomic_load_explicit(&ws->next, memory_order_relaxed);
  uint64_t size;
  do {
    if (start >= ws->count)
      return false;
    uint64_t left = ws->count - start;
    uint64_t chunks = left / ws->chunk / (8 * (uint64_t)ws->nthreads);
    size = (chunks > 1 ? chunks : 1) * ws->chunk;
    if (size > left)
      size = left;
  } while (!atomic_compare_exchange_weak(&ws->next, &start, start + size));
  *lo = start;
  *hi = start + size;
  return true;
}

static bool next_whole(struct lite_ws *ws, uint64_t *lo, uint64_t *hi)
{
  uint64_t none = 0;
  if (ws->count == 0 || atomic_load_explicit(&ws->next, memory_order_relaxed) != 0 ||
      !atomic_compare_exchange_strong(&ws->next, &none, ws->count))
    return false;
  *lo = 0;
  *hi = ws->count;
  return true;
}

/* Ordered loops: the turn is the first index of the chunk whose ordered regions may run; a
   member passes it on when it is done with a chunk, once the chunks before it have passed it
   (chunks are handed out in iteration order). Waiters poll the turn itself. Only one that parks
   needs the generation, its futex: a passer bumps it after storing the turn, and only when
   someone sleeps, so the common hand-off is one store and one load. (The store of the turn and
   the parker's count are sequentially consistent: either the passer sees the parker, or the
   parker, re-reading the turn after it counted itself, sees the new one. The bump is an atomic
   add, never a store of a value read before: see lite_bump_and_wake.) */
void lite_ordered_wait_turn(struct lite_ws *ws, uint64_t lo)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  while (atomic_load_explicit(&ws->ordered_turn, memory_order_acquire) != lo) {
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(&ws->ordered_sleepers);
    uint32_t gen = atomic_load(&ws->ordered_gen);
    if (atomic_load(&ws->ordered_turn) != lo)
      lite_futex_wait(&ws->ordered_gen, gen);
    lite_park_end(&ws->ordered_sleepers);
    /* Woken: the turn moved, maybe to the chunk just before ours. Wait afresh. */
    lite_waiter_init(&w);
  }
  atomic_thread_fence(memory_order_acquire);
}

static void ordered_pass_turn(struct lite_thread *thr, struct lite_ws *ws)
{
  if (thr->chunk_hi == thr->chunk_lo)
    return;
  lite_ordered_wait_turn(ws, thr->chunk_lo);
  atomic_store(&ws->ordered_turn, thr->chunk_hi);
  if (atomic_load(&ws->ordered_sleepers) != 0)
    lite_bump_and_wake(&ws->ordered_gen, &ws->ordered_sleepers);
  thr->chunk_lo = thr->chunk_hi = 0;
}

void lite_ordered_pass_turn(struct lite_thread *thr, struct lite_ws *ws)
{
  if (ws->ordered)
    ordered_pass_turn(thr, ws);
}

bool lite_sched_next(struct lite_thread *thr, struct lite_ws *ws, uint64_t *lo, uint64_t *hi)
{
  if (ws->ordered)
    ordered_pass_turn(thr, ws);
  if (lite_unlikely(atomic_load_explicit(&ws->cancelled, memory_order_relaxed)))
    return false;
  if (lite_unlikely(ws->start_ns != 0) && thr->timed_ws != ws)
    lite_site_member_started(thr, ws);
  unsigned id = thr->team != NULL ? thr->id : 0;
  bool got;
  switch (ws->handout) {
  case LITE_HANDOUT_STATIC:
    got = next_static(ws, id, lo, hi);
    break;
  case LITE_HANDOUT_CYCLIC:
    got = next_cyclic(ws, id, lo, hi);
    break;
  case LITE_HANDOUT_DYNAMIC: /* with steal: a site's fallback from stealing in order */
    got = ws->steal ? next_share(ws, lo, hi) : next_dynamic(ws, lo, hi);
    break;
  case LITE_HANDOUT_GUIDED:
    got = next_guided(ws, lo, hi);
    break;
  case LITE_HANDOUT_OWN:
    got = lite_steal_next(ws, id, lo, hi);
    break;
  case LITE_HANDOUT_WHOLE:
  default:
    got = next_whole(ws, lo, hi);
    break;
  }
  if (got && ws->ordered) {
    thr->chunk_lo = *lo;
    thr->chunk_hi = *hi;
  }
  return got;
}
