/* Worksharing bookkeeping: which entry of the team's ring a construct uses.

   Every member counts the worksharing constructs it meets (ws_count); construct k lives in ring
   entry k % LITE_WS_RING. The first member to reach it claims the entry (ticket = k), sets it up
   and marks it ready; the others wait for ready. A loop whose first member marks the claim split
   has no setup: every member runs its own block, or the first one all of a loop too small to
   share (sched/iter.c, lite_sched_look), and only the ticket, ready and left are used. An entry is free again once all members of its
   previous construct have left it. With nowait a fast member may thus run up to the ring size
   ahead of the slowest one, then waits. Teams of one (and the initial thread outside any region)
   use a per-thread entry per nesting level instead: nothing to share, nothing to wait for. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static struct lite_ws *ws_alloc(void)
{
  struct lite_ws *ws = aligned_alloc(LITE_CACHE_LINE, sizeof *ws);
  if (ws == NULL)
    lite_fatal("out of memory allocating a worksharing construct");
  memset(ws, 0, sizeof *ws);
  return ws;
}

struct lite_ws *lite_ws_solo(struct lite_thread *thr)
{
  unsigned level = thr->team != NULL ? thr->team->level : 0;
  if (lite_unlikely(level >= thr->nsolo)) {
    struct lite_ws **solo = realloc(thr->solo, (level + 1) * sizeof *solo);
    if (solo == NULL)
      lite_fatal("out of memory allocating a worksharing construct");
    memset(solo + thr->nsolo, 0, (level + 1 - thr->nsolo) * sizeof *solo);
    thr->solo = solo;
    thr->nsolo = level + 1;
  }
  if (thr->solo[level] == NULL)
    thr->solo[level] = ws_alloc();
  return thr->solo[level];
}

/* Waits until the entry's previous construct is over, or another member claimed it for k; the
   first claims it with the given mark (0, or LITE_WS_SPLIT and maybe LITE_WS_WHOLE). Returns the
   ticket (k and the mark of whoever claimed it). The construct is over once every member has left it (left 0), or once
   this member has passed a barrier after it (ws_done): a loop ending in a barrier does not count
   its members out. */
static uint64_t claim(struct lite_ws *ws, uint32_t k, uint32_t done, uint64_t mode, bool *first)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  for (;;) {
    uint64_t t = atomic_load_explicit(&ws->ticket, memory_order_acquire);
    if ((uint32_t)t == k) {
      *first = false;
      return t;
    }
    /* A member at k has met every construct before k, so an older ticket means the entry's
       previous construct; tickets newer than k cannot appear before k was claimed. */
    uint32_t left = atomic_load_explicit(&ws->left, memory_order_acquire);
    if (left == 0 || (int32_t)((uint32_t)t - done) <= 0) {
      if (atomic_compare_exchange_strong(&ws->ticket, &t, k | mode)) {
        *first = true;
        return k | mode;
      }
      continue;
    }
    if (!lite_waiter_poll(&w)) {
      /* Park on freed, not on left: between our look at left and the futex call, the last
         member may leave (left 0), another claim the entry for k (left = nthreads) and all
         but us leave k (left back to what we saw), and nobody would wake us. */
      lite_park_begin(&ws->left_sleepers);
      for (;;) {
        uint32_t freed = atomic_load(&ws->freed);
        if (atomic_load(&ws->left) == 0 || (uint32_t)atomic_load(&ws->ticket) == k)
          break;
        lite_futex_wait(&ws->freed, freed);
      }
      lite_park_end(&ws->left_sleepers);
      lite_waiter_init(&w);
    }
  }
}

static uint32_t ticket_number(const struct lite_ws *ws)
{
  return (uint32_t)atomic_load_explicit(&ws->ticket, memory_order_relaxed);
}

/* The entry is set up (or, split, claimed) for members members: they may leave it. */
static void release(struct lite_ws *ws, unsigned members)
{
  /* After a construct that ended in a barrier (which did not count its members out) left still
     holds the team size: see lite_sched_setup for why not to store it again. */
  if (atomic_load_explicit(&ws->left, memory_order_relaxed) != members)
    atomic_store_explicit(&ws->left, members, memory_order_relaxed);
  lite_store_and_wake(&ws->ready, ticket_number(ws), &ws->ready_sleepers);
}

struct lite_ws *lite_ws_begin_loop(struct lite_thread *thr, uint64_t want, bool *first,
                                   uint64_t *mark)
{
  struct lite_team *team = thr->team;
  struct lite_ws *ws;
  *mark = 0;
  if (team == NULL || team->pool == NULL) {
    ws = lite_ws_solo(thr);
    atomic_store_explicit(&ws->ticket, (uint32_t)(ticket_number(ws) + 1), memory_order_relaxed);
    *first = true;
  } else {
    uint32_t k = ++thr->ws_count;
    ws = &team->ring[k & team->ring_mask];
    uint64_t t = claim(ws, k, thr->ws_done, want, first);
    if (t & LITE_WS_SPLIT) {
      /* Nothing of the entry but the ticket is read: no setup to wait for. */
      if (*first)
        release(ws, team->nthreads);
      *mark = t & (LITE_WS_SPLIT | LITE_WS_WHOLE);
      thr->ws = NULL;
      thr->ws_split = ws;
      return ws;
    }
    if (!*first)
      lite_wait_until_equal(&ws->ready, k, &ws->ready_sleepers);
  }
  thr->ws = ws;
  return ws;
}

struct lite_ws *lite_ws_begin(struct lite_thread *thr, bool *first)
{
  uint64_t mark;
  return lite_ws_begin_loop(thr, 0, first, &mark);
}

void lite_ws_ready(struct lite_ws *ws)
{
  release(ws, ws->nthreads);
}

static void leave(struct lite_ws *ws)
{
  /* Sequentially consistent with claim()'s count of sleepers then look at left: either the
     sleeper sees left at 0, or we see it counted and bump freed after its look. */
  if (atomic_fetch_sub(&ws->left, 1) == 1 && atomic_load(&ws->left_sleepers) != 0) {
    atomic_fetch_add(&ws->freed, 1);
    lite_futex_wake(&ws->freed, INT32_MAX);
  }
}

void lite_ws_end(struct lite_thread *thr)
{
  struct lite_ws *ws = thr->ws;
  thr->ws = NULL;
  if (ws != NULL)
    leave(ws);
}

/* A member leaves a split loop that no barrier follows. The first member stores left after its
   claim, so the others wait for its release first (it comes at once: a split loop has no setup). */
static void leave_split(struct lite_thread *thr, struct lite_ws *ws)
{
  lite_wait_until_equal(&ws->ready, thr->ws_count, &ws->ready_sleepers);
  leave(ws);
}

/* ------------------------------------------------------------------- shared by the loops */

#include "loop_common.h"

void lite_loop_request_from_sched(struct lite_thread *thr, struct lite_loop_request *req,
                                  long sched, long chunk, bool ordered, void *site)
{
  bool monotonic = ((unsigned long)sched & LITE_SCHED_MONOTONIC) != 0;
  unsigned long kind = (unsigned long)sched & ~LITE_SCHED_MONOTONIC;
  req->from_icv = false;
  req->ordered = ordered;
  req->site = site;
  req->chunk = chunk > 0 ? (uint64_t)chunk : 0;
  req->monotonic = monotonic || ordered;
  switch (kind) {
  case LITE_SCHED_STATIC:
  case LITE_SCHED_DYNAMIC:
  case LITE_SCHED_GUIDED:
    req->kind = (enum lite_sched)kind;
    break;
  case LITE_SCHED_AUTO: /* schedule(nonmonotonic:runtime) */
    lite_sched_resolve_runtime(thr, req, true);
    req->monotonic = ordered;
    break;
  case LITE_SCHED_RUNTIME:
  default:
    lite_sched_resolve_runtime(thr, req, !monotonic);
    req->monotonic |= ordered;
    break;
  }
}

void lite_ws_setup_mem(struct lite_ws *ws, void **mem)
{
  if (mem == NULL)
    return;
  size_t size = (size_t)(uintptr_t)*mem;
  if (size > ws->mem_size) {
    free(ws->mem);
    ws->mem = aligned_alloc(LITE_CACHE_LINE, (size + LITE_CACHE_LINE - 1) & ~(size_t)(LITE_CACHE_LINE - 1));
    if (ws->mem == NULL)
      lite_fatal("out of memory for a loop's shared data (%zu bytes)", size);
    ws->mem_size = size;
  }
  if (size > 0)
    memset(ws->mem, 0, size);
}

void lite_loop_finish(struct lite_thread *thr, bool barrier_follows)
{
  if (lite_unlikely(thr->tiny_start_ns != 0))
    lite_tiny_done(thr);
  struct lite_ws *ws = thr->ws;
  if (ws == NULL) {
    struct lite_ws *split = thr->ws_split;
    if (split != NULL) {
      thr->ws_split = NULL;
      if (!barrier_follows)
        leave_split(thr, split);
    }
    return;
  }
  lite_ordered_pass_turn(thr, ws);
  if (ws->site != NULL && (ws->start_ns != 0 || lite_env.loop_stats)) {
    lite_site_member_done(thr, ws);
    /* The last member to finish records the run, before anyone can free the entry. In a
       combined loop run by thread 0 alone (no workers), thread 0 is the only member. */
    unsigned members = thr->team != NULL && thr->team->pool == NULL ? 1 : ws->nthreads;
    if (atomic_fetch_add(&ws->finished, 1) + 1 == members)
      lite_site_loop_done(ws);
  }
  /* Before a barrier, leaving the entry is the barrier's job (ws_done, claim): a count-out on
     the entry's first line, which the other members also write, cost the member that finished
     last a transfer before it could arrive. */
  if (barrier_follows)
    thr->ws = NULL;
  else
    lite_ws_end(thr);
}
