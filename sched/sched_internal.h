/* The loop schedules: iteration spaces, hand-out, stealing and per-call-site statistics.
   Internal to libomp-lite; the entry points in libomp-lite/loop*.c call these. */
#ifndef LITE_SCHED_INTERNAL_H
#define LITE_SCHED_INTERNAL_H

#include "internal.h"

/* A lock for sched/'s short critical sections (a stealing range, the call-site table). Holders
   never block while holding, so waiters poll: look before the compare-and-swap (a failing CAS
   takes the line from the holder), and yield once the budget is spent, since with more threads
   than CPUs the holder may be waiting for the CPU a poller holds. */
static inline void lite_sched_lock(_Atomic uint32_t *word)
{
  uint32_t none = 0;
  if (atomic_load_explicit(word, memory_order_relaxed) == 0 &&
      atomic_compare_exchange_strong_explicit(word, &none, 1, memory_order_acquire,
                                              memory_order_relaxed))
    return; /* the common case, before any waiter's set-up */
  struct lite_waiter w;
  lite_waiter_init(&w);
  for (;;) {
    uint32_t free = 0;
    if (atomic_load_explicit(word, memory_order_relaxed) == 0 &&
        atomic_compare_exchange_weak_explicit(word, &free, 1, memory_order_acquire,
                                              memory_order_relaxed))
      return;
    if (!lite_waiter_poll(&w)) {
      lite_os_yield();
      lite_waiter_init(&w);
    }
  }
}
static inline void lite_sched_unlock(_Atomic uint32_t *word)
{
  atomic_store_explicit(word, 0, memory_order_release);
}

/* Member id's range of the loop in ws: in the member's slot for a pool's ring entry (on its own
   node), else in the entry's own array. */
static inline struct lite_range *lite_ws_range(struct lite_ws *ws, unsigned id)
{
  return ws->pool != NULL ? &ws->pool->slots[id]->ranges[ws->ring_index] : &ws->ranges[id];
}

/* Schedule kinds as gcc passes them to GOMP_loop_start (libgomp's numbering). */
enum lite_sched {
  LITE_SCHED_RUNTIME = 0, /* schedule(runtime) without modifier: run-sched-var decides */
  LITE_SCHED_STATIC = 1,
  LITE_SCHED_DYNAMIC = 2,
  LITE_SCHED_GUIDED = 3,
  LITE_SCHED_AUTO = 4,    /* from GOMP_loop_start: schedule(nonmonotonic:runtime) */
};
#define LITE_SCHED_MONOTONIC 0x80000000UL

/* What a loop asks for, before the runtime picks its hand-out. */
struct lite_loop_request {
  enum lite_sched kind;   /* never RUNTIME: resolved by lite_sched_resolve_runtime */
  bool monotonic;         /* monotonic modifier (or ordered) */
  bool ordered;
  uint64_t chunk;         /* 0: the schedule's default */
  void *site;             /* call site (return address), for the statistics */
  bool from_icv;          /* schedule(runtime): kind and chunk come from run-sched-var */
};

/* What a member saw of its loop's call site before claiming the ring entry (lite_sched_look). */
struct lite_loop_look {
  uint64_t mark; /* the mark it would claim the entry with, were it the first (lite_ws_begin_loop):
                    LITE_WS_SPLIT, maybe with LITE_WS_WHOLE, or 0 for a setup */
  bool drawn;   /* it drew whether this run is measured, */
  bool measure; /* and the draw, which its setup then keeps, should it be the first after all */
};

/* schedule(runtime): the current task's run-sched-var. maybe_nonmonotonic: treat dynamic and
   guided as nonmonotonic unless OMP_SCHEDULE said monotonic (OpenMP 5.0). */
void lite_sched_resolve_runtime(struct lite_thread *thr, struct lite_loop_request *req,
                                bool maybe_nonmonotonic);

/* The trip count of a long loop. */
uint64_t lite_iter_count_long(long start, long end, long incr);
uint64_t lite_iter_count_ull(bool up, unsigned long long start, unsigned long long end,
                             unsigned long long incr);
/* Normalise a loop into ws: count, start, incr, end. */
void lite_iter_init_long(struct lite_ws *ws, long start, long end, long incr);
void lite_iter_init_ull(struct lite_ws *ws, bool up, unsigned long long start,
                        unsigned long long end, unsigned long long incr);
/* The value of iteration index i, and the bound to give gcc for a chunk ending at index hi. */
static inline uint64_t lite_iter_value(const struct lite_ws *ws, uint64_t i)
{
  return ws->start + i * ws->incr;
}
static inline uint64_t lite_iter_bound(const struct lite_ws *ws, uint64_t hi)
{
  return hi == ws->count ? ws->end : ws->start + hi * ws->incr;
}

/* Picks the hand-out for a loop of ws->count iterations on ws->nthreads members, and resets the
   shared state. Called by the first member, before lite_ws_ready. */
void lite_sched_setup(struct lite_ws *ws, const struct lite_loop_request *req);
/* The same, after a lite_sched_look by this member. */
void lite_sched_setup_looked(struct lite_ws *ws, const struct lite_loop_request *req,
                             const struct lite_loop_look *look);

/* Looks at a loop of count iterations before the claim: whether this member would run it split
   (lite_ws_begin_loop), were it the first to meet it: a nonmonotonic loop with its chunk in the
   request, whose call site runs it without stealing, in a run not drawn to be measured; whole,
   if the site found it too small to share. Any member's block then comes from what every
   member knows: the bounds, the chunk, the team. */
void lite_sched_look(struct lite_thread *thr, const struct lite_loop_request *req, uint64_t count,
                     struct lite_loop_look *look);
/* A member's block of a split loop, in iteration indices [lo, hi); false if it is empty. first:
   this member claimed the loop (it counts the run for OMPLITE_LOOP_STATS, and notes a whole one
   for the pool's list of tiny loops); mark: the claim's. */
bool lite_sched_split_block(struct lite_thread *thr, const struct lite_loop_request *req,
                            uint64_t count, bool first, uint64_t mark, uint64_t *lo, uint64_t *hi);

/* The calling member's next chunk [*lo, *hi), or false when the loop is exhausted for it. */
bool lite_sched_next(struct lite_thread *thr, struct lite_ws *ws, uint64_t *lo, uint64_t *hi);

/* The same for a monotonic dynamic loop, which asks once per chunk, inlined into the entry
   points: one fetch-and-add. LITE_NEXT_OTHER when the loop is of another kind (or cancelled):
   then ask lite_sched_next. Behind lite_sched_next, the call, the register saves and the switch
   cost 8.6 ns a chunk on one thread against libgomp's 6.6 (20M chunks of one iteration). */
enum lite_next { LITE_NEXT_NONE, LITE_NEXT_GOT, LITE_NEXT_OTHER };
static inline enum lite_next lite_sched_next_dynamic(struct lite_ws *ws, uint64_t *lo,
                                                     uint64_t *hi)
{
  if (!ws->fast_add || atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
    return LITE_NEXT_OTHER;
  uint64_t chunk = ws->chunk, count = ws->count;
  uint64_t start = atomic_fetch_add(&ws->next, chunk);
  if (start >= count)
    return LITE_NEXT_NONE;
  *lo = start;
  *hi = count - start < chunk ? count : start + chunk;
  return LITE_NEXT_GOT;
}

/* The static block of member id of n: the first count % n members get one iteration more. */
void lite_static_block(uint64_t count, unsigned n, unsigned id, uint64_t *lo, uint64_t *hi);

/* Ordered loops: the member's current chunk is done; pass the turn to the next chunk once the
   chunks before it have passed it. */
void lite_ordered_pass_turn(struct lite_thread *thr, struct lite_ws *ws);
/* Waits until the chunk that starts at index lo has the ordered turn. */
void lite_ordered_wait_turn(struct lite_ws *ws, uint64_t lo);

/* Nonmonotonic hand-out (steal.c): own block first, then steal from the nearest members.
   lite_steal_setup: a stealing loop's setup, by the member that sets the loop up. */
void lite_steal_setup(struct lite_ws *ws);
bool lite_steal_next(struct lite_ws *ws, unsigned id, uint64_t *lo, uint64_t *hi);
/* Member id's own block of a nonmonotonic loop, in iterations [lo, hi): all it runs unless the
   loop steals. */
void lite_own_block(uint64_t count, uint64_t chunk, unsigned nthreads, unsigned id, uint64_t *lo,
                    uint64_t *hi);

/* Per-call-site statistics (site.c): choose whether a nonmonotonic loop steals or goes whole to
   one member (the hand-out returned: OWN or WHOLE), and record how its run went. measure: this
   run's draw, if lite_site_may_split made it; NULL to draw here. */
enum lite_handout lite_site_plan(struct lite_ws *ws, void *site, const bool *measure);
/* Read without the lock: the site's plan runs a loop of count iterations on nthreads members
   without stealing (whole, *whole, if tiny loops are on and it is one), and this run is not
   drawn to be measured (*measure). */
bool lite_site_may_split(void *site, unsigned nthreads, uint64_t count, bool *measure,
                         bool *whole);
/* A split run (whole: a tiny loop's), counted for OMPLITE_LOOP_STATS. */
void lite_site_split_run(void *site, unsigned nthreads, uint64_t count, bool whole);
/* For tests: the set of the statistics table that a call site's entry is in. */
unsigned lite_site_set_of(void *site);
/* True if a loop of count iterations at this site, with this team size, is too small to share. */
bool lite_site_is_tiny(void *site, unsigned nthreads, uint64_t count);
void lite_site_member_started(struct lite_thread *thr, struct lite_ws *ws);
void lite_site_member_done(struct lite_thread *thr, struct lite_ws *ws);
void lite_site_loop_done(struct lite_ws *ws);
/* Tiny loops: a run shorter than this (wall clock) with the team costs less than sharing it (a
   fork and join alone is ~0.6 µs here, a wake-up from the futex 20 µs), so the site's later runs
   go whole to one member (site.c); run whole, it stays tiny while under twice that. */
#define LITE_TINY_LOOP_NS 2000
/* A tiny loop that thread 0 ran alone inside a running team (tiny.c). run_ns: its measured
   time, or 0 if this run was not measured. Returns false if the site is no longer tiny. */
bool lite_site_tiny_run(void *key, unsigned nthreads, uint64_t count, uint64_t run_ns);

/* Tiny loops inside a running team (tiny.c). A nonmonotonic loop at a call site the pool lists
   as tiny runs on thread 0 alone, and the other members find it empty, all without touching the
   ring: no cache line moves between the members. */
/* Whether the calling member's loop is one of those (every member of the region agrees); it
   remembers which, for lite_tiny_setup. */
bool lite_tiny_in_team(struct lite_thread *thr, const struct lite_loop_request *req,
                       uint64_t count);
/* Begins it: thread 0 gets a private entry to set up with lite_iter_init_*, then
   lite_tiny_setup; the others get NULL and have no iterations. */
struct lite_ws *lite_tiny_begin(struct lite_thread *thr);
void lite_tiny_setup(struct lite_thread *thr, struct lite_ws *ws);
/* Thread 0 leaves a measured one (from lite_loop_finish). */
void lite_tiny_done(struct lite_thread *thr);
/* The first member set up a ring loop: if site.c made it tiny, the pool lists it at the join. */
void lite_tiny_note(struct lite_thread *thr, const struct lite_ws *ws,
                    const struct lite_loop_request *req);
/* The same for a loop of count iterations that the first member claimed whole (split). */
void lite_tiny_note_whole(struct lite_thread *thr, const struct lite_loop_request *req,
                          uint64_t count);

#endif
