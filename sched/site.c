/* Per-call-site statistics: does this nonmonotonic loop steal, is it too small to share?

   Keyed by the call site (the return address of the GOMP_loop_*_start call, or the outlined
   function of a combined parallel loop), the team size and the trip count. A site's first run
   steals and is timed; afterwards one run in SAMPLE_EVERY is timed (two clock reads per member,
   ~40 ns), so steady loops pay almost nothing. "Long" and "imbalanced" are judged from each
   member's busy time (its first chunk to its end), so that a member slow to wake up does not make
   a balanced loop look uneven.
   - A run whose busiest member worked longer than LONG_LOOP_NS steals from then on: stealing
     costs an uncontended lock per request, noise next to the work.
   - A short run measured without stealing keeps not stealing unless the members' busy times
     differ by more than a quarter; measured with stealing, the next run is a probe without it.
     A site found imbalanced keeps stealing for HOLD_IMBALANCED runs before it is probed again.
   - A run so short that sharing it cannot pay (LITE_TINY_LOOP_NS, wall clock) makes the site's
     later runs go whole to the first member that asks; a combined parallel loop at such a site
     then runs on the calling thread without waking the team, and one inside a running team on
     its thread 0 (tiny.c). */
#include "sched_internal.h"

#include <stdio.h>

#define SITES 256
#define SAMPLE_EVERY 8
#define HOLD_IMBALANCED 64
#define LONG_LOOP_NS 50000
#define MIN_IMBALANCE_NS 2000

struct lite_site {
  void *key;
  unsigned nthreads;
  uint64_t count;
  unsigned hold;      /* runs left before the next measured one */
  bool steal;
  bool whole;         /* tiny: one member takes every iteration */
  /* For OMPLITE_LOOP_STATS. */
  uint64_t runs, steal_runs, steals, whole_runs;
};

/* Updated by the first and last member of a loop; a race between two teams on one site only
   blurs a heuristic, so plain fields under a lock taken once per measured run would be overkill:
   updates happen under site_lock, reads at plan time are best effort. */
static struct lite_site sites[SITES];
static _Atomic uint32_t site_lock;

static struct lite_site *site_for(void *key)
{
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15ull;
  return &sites[(h >> 32) % SITES];
}

void lite_site_plan(struct lite_ws *ws, void *key)
{
  struct lite_site *site = site_for(key);
  bool measure;
  lite_sched_lock(&site_lock);
  if (site->key != key || site->nthreads != ws->nthreads || site->count != ws->count) {
    site->key = key;
    site->nthreads = ws->nthreads;
    site->count = ws->count;
    site->steal = true;
    site->whole = false;
    site->hold = 0;
    site->runs = site->steal_runs = site->steals = site->whole_runs = 0;
    measure = true;
  } else if (site->hold > 0) {
    site->hold--;
    measure = false;
  } else {
    measure = true;
  }
  site->runs++;
  if (site->whole && lite_env.tiny_loops) {
    ws->handout = LITE_HANDOUT_WHOLE;
    ws->steal = false;
    site->whole_runs++;
  } else {
    ws->steal = site->steal;
    site->steal_runs += site->steal;
  }
  lite_sched_unlock(&site_lock);

  ws->site = site;
  ws->start_ns = measure ? lite_now_ns() : 0;
  atomic_store_explicit(&ws->last_done_ns, 0, memory_order_relaxed);
  atomic_store_explicit(&ws->min_busy_ns, UINT64_MAX, memory_order_relaxed);
  atomic_store_explicit(&ws->max_busy_ns, 0, memory_order_relaxed);
}

bool lite_site_is_tiny(void *key, unsigned nthreads, uint64_t count)
{
  if (!lite_env.tiny_loops)
    return false;
  struct lite_site *site = site_for(key);
  /* Under the lock, so that the four fields read belong to one entry; the answer may be stale
     by the time it is used, which costs one run on the slower path at worst. */
  lite_sched_lock(&site_lock);
  bool tiny = site->key == key && site->nthreads == nthreads && site->count == count && site->whole;
  lite_sched_unlock(&site_lock);
  return tiny;
}

static void store_min(_Atomic uint64_t *word, uint64_t value)
{
  uint64_t seen = atomic_load_explicit(word, memory_order_relaxed);
  while (value < seen && !atomic_compare_exchange_weak(word, &seen, value))
    ;
}

static void store_max(_Atomic uint64_t *word, uint64_t value)
{
  uint64_t seen = atomic_load_explicit(word, memory_order_relaxed);
  while (value > seen && !atomic_compare_exchange_weak(word, &seen, value))
    ;
}

void lite_site_member_started(struct lite_thread *thr, struct lite_ws *ws)
{
  thr->timed_ws = ws;
  thr->timed_start_ns = lite_now_ns();
}

/* A member's busy time runs from its first chunk to its end, so that a member that was slow to
   wake up (or was descheduled before it started) does not make a balanced loop look uneven. */
void lite_site_member_done(struct lite_thread *thr, struct lite_ws *ws)
{
  if (ws->start_ns == 0)
    return;
  uint64_t now = lite_now_ns();
  uint64_t busy = thr->timed_ws == ws && now > thr->timed_start_ns ? now - thr->timed_start_ns : 0;
  thr->timed_ws = NULL;
  store_max(&ws->last_done_ns, now);
  store_min(&ws->min_busy_ns, busy);
  store_max(&ws->max_busy_ns, busy);
}

void lite_site_loop_done(struct lite_ws *ws)
{
  struct lite_site *site = ws->site;
  if (site == NULL)
    return;
  uint64_t stolen = atomic_load_explicit(&ws->stolen, memory_order_relaxed);
  lite_sched_lock(&site_lock);
  site->steals += stolen;
  if (ws->start_ns != 0 && site->count == ws->count && site->nthreads == ws->nthreads) {
    uint64_t last = atomic_load_explicit(&ws->last_done_ns, memory_order_relaxed);
    uint64_t run = last > ws->start_ns ? last - ws->start_ns : 0;
    uint64_t busiest = atomic_load_explicit(&ws->max_busy_ns, memory_order_relaxed);
    uint64_t idlest = atomic_load_explicit(&ws->min_busy_ns, memory_order_relaxed);
    uint64_t spread = busiest > idlest ? busiest - idlest : 0;
    if (ws->handout == LITE_HANDOUT_WHOLE) {
      site->whole = run < 2 * LITE_TINY_LOOP_NS;
      site->hold = SAMPLE_EVERY;
    } else if (run < LITE_TINY_LOOP_NS && !ws->steal) {
      site->whole = true;
      site->hold = SAMPLE_EVERY;
    } else if (busiest > LONG_LOOP_NS) {
      site->steal = true;
      site->hold = SAMPLE_EVERY;
    } else if (!ws->steal) {
      bool imbalanced = spread > MIN_IMBALANCE_NS && spread * 4 > busiest;
      site->steal = imbalanced;
      site->hold = imbalanced ? HOLD_IMBALANCED : SAMPLE_EVERY;
    } else {
      site->steal = false; /* probe: is it balanced without stealing? */
      site->hold = 0;
    }
  }
  lite_sched_unlock(&site_lock);
}

bool lite_site_tiny_run(void *key, unsigned nthreads, uint64_t count, uint64_t run_ns)
{
  struct lite_site *site = site_for(key);
  bool tiny = run_ns < 2 * LITE_TINY_LOOP_NS;
  lite_sched_lock(&site_lock);
  if (site->key == key && site->nthreads == nthreads && site->count == count) {
    site->runs++;
    site->whole_runs++;
    if (run_ns != 0) {
      site->whole = tiny;
      site->hold = SAMPLE_EVERY;
    }
  }
  lite_sched_unlock(&site_lock);
  return tiny;
}

/* OMPLITE_LOOP_STATS=1: one line per call site at exit, for tests and tuning. */
__attribute__((destructor)) static void print_site_stats(void)
{
  if (!lite_env.loop_stats)
    return;
  for (unsigned i = 0; i < SITES; i++) {
    struct lite_site *s = &sites[i];
    if (s->key != NULL)
      fprintf(stderr,
              "libomp-lite: loop site %p threads %u iterations %llu runs %llu stealing-runs %llu "
              "steals %llu whole-runs %llu\n",
              s->key, s->nthreads, (unsigned long long)s->count, (unsigned long long)s->runs,
              (unsigned long long)s->steal_runs, (unsigned long long)s->steals,
              (unsigned long long)s->whole_runs);
  }
}
