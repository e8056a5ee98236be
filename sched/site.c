/* Per-call-site statistics: does this nonmonotonic loop steal, is it too small to share?

   Keyed by the call site (the return address of the GOMP_loop_*_start call, or the outlined
   function of a combined parallel loop), the team size and the trip count. A site's first run
   steals and is timed; afterwards one run in SAMPLE_EVERY, drawn at random, is timed, and the
   period doubles up to SAMPLE_MOST while the timed runs keep confirming that a short loop is
   balanced (or tiny). A timed run costs its members two clock reads each, shared counters and
   the lock, ~0.5 us at 2 threads: back-to-back 64-iteration guided loops took 20% longer timing
   one run in 8 than timing none (OMPLITE_TINY_LOOPS=0, ~500 against ~400 ns a loop). "Long"
   and "imbalanced" are judged from each member's busy time (its first chunk to its end), so
   that a member slow to wake up does not make a balanced loop look uneven.
   - A run whose busiest member worked longer than LONG_LOOP_NS steals from then on: stealing
     costs an uncontended lock per request, noise next to the work.
   - A short run measured without stealing keeps not stealing unless the members' busy times
     differ by more than a quarter; measured with stealing, the next run is a probe without it.
     A site found imbalanced by two probes in a row keeps stealing, measured one run in
     HOLD_IMBALANCED, until a probe finds it balanced. After a first imbalanced probe it steals
     once, measured, and probes again: a short loop is found imbalanced now and then by chance
     (a 6.5 us loop whose member lost 2 us to an interrupt), and holding on to stealing for
     HOLD_IMBALANCED runs each time cost loopbench's guided and dynamic rows 0.06-0.12 ns/it at
     2 threads (600 samples each, against never finding a short loop imbalanced).
   - A run so short that sharing it cannot pay (LITE_TINY_LOOP_NS, wall clock) makes the site's
     later runs go whole to the first member that asks; a combined parallel loop at such a site
     then runs on the calling thread without waking the team, and one inside a running team on
     its thread 0 (tiny.c).

   An unmeasured run only reads the site: one word (plan) holds the decisions with a tag of the
   key, team size and trip count they belong to. Writing the site at every run (a run count
   under a lock) moved its line between the members that set loops up in turn, ~0.1 us per
   loop: loopbench guided-1/-4 and dynamic-1 at 2 threads read 1.27-1.32 ns/it with it and
   1.11-1.14 without any site work (medians of 400 samples). The lock, the exact fields and the
   counters for OMPLITE_LOOP_STATS serve the measured runs, new sites and the statistics mode. */
#include "sched_internal.h"

#include <stdio.h>

#define SITE_SETS 64
#define SITE_WAYS 4
#define SAMPLE_EVERY 8
#define SAMPLE_MOST 64
#define HOLD_IMBALANCED 64
#define LONG_LOOP_NS 50000
#define MIN_IMBALANCE_NS 2000

/* The plan word: steal and whole, the sampling period (0: measure the next run), and the tag in
   the bits above. */
#define PLAN_STEAL 1u
#define PLAN_WHOLE 2u
#define PLAN_HOLD_SHIFT 2
#define PLAN_HOLD_MASK 0xffu
#define PLAN_TAG_SHIFT 10
#define PLAN_TAG_MASK (~(uint64_t)0 << PLAN_TAG_SHIFT)
_Static_assert(SAMPLE_MOST <= PLAN_HOLD_MASK && HOLD_IMBALANCED <= PLAN_HOLD_MASK,
               "a sampling period fits in the plan word");

struct lite_site {
  _Atomic uint64_t plan; /* read without the lock; written under it */
  void *key;
  unsigned nthreads;
  uint64_t count;
  unsigned hold;      /* one measured run in hold, at random; 0: the next run */
  bool steal;
  bool whole;         /* tiny: one member takes every iteration */
  _Atomic bool counter; /* in order, a stealing run got stuck (steal.c): steal no more in order,
                           hand out from the shared counter; read without the lock */
  unsigned imbalanced_probes; /* imbalanced runs without stealing, in a row */
  uint64_t stamp;     /* site_clock at its last use under the lock: the least recent gives way */
  /* For OMPLITE_LOOP_STATS. */
  uint64_t runs, steal_runs, steals, whole_runs, split_runs;
} LITE_ALIGNED;

/* Written under site_lock, by the first member of a measured run (or of a new site) and by the
   last one; plan mirrors the decisions for the readers that take no lock. A reader may act on a
   decision a moment old, or two teams on one site may interleave: either only blurs a
   heuristic.

   A key's entry is one of the SITE_WAYS of the set it hashes to; a new key takes the one used
   least recently under the lock. (With one entry per hash, two loops of one program whose keys
   met took the entry from each other at every run, and each run was then a new site's first:
   measured, and stealing. The ThreadSanitizer build of ws_steal met it, two of four loops.) */
static struct lite_site sites[SITE_SETS][SITE_WAYS];
static _Atomic uint32_t site_lock;
static uint64_t site_clock; /* under site_lock */

static struct lite_site *site_set(void *key)
{
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= 0x9e3779b97f4a7c15ull;
  return sites[(h >> 32) % SITE_SETS];
}

static uint64_t site_tag(void *key, unsigned nthreads, uint64_t count)
{
  uint64_t h = (uint64_t)(uintptr_t)key ^ (count * 0xbf58476d1ce4e5b9ull) ^ nthreads;
  h ^= h >> 31;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 29;
  return h << PLAN_TAG_SHIFT;
}

unsigned lite_site_set_of(void *key)
{
  return (unsigned)((site_set(key) - &sites[0][0]) / SITE_WAYS);
}

/* Without the lock: the entry whose plan carries tag (of key, a team size and a trip count), or
   NULL. */
static struct lite_site *site_find(void *key, uint64_t tag)
{
  struct lite_site *set = site_set(key);
  for (unsigned w = 0; w < SITE_WAYS; w++)
    if ((atomic_load_explicit(&set[w].plan, memory_order_relaxed) & PLAN_TAG_MASK) == tag)
      return &set[w];
  return NULL;
}

static uint64_t find_plan(void *key, uint64_t tag)
{
  struct lite_site *site = site_find(key, tag);
  return site != NULL ? atomic_load_explicit(&site->plan, memory_order_relaxed) : 0;
}

/* Under site_lock: the entry of key, or the one of its set used least recently, for key to take
   (the caller then resets it). */
static struct lite_site *site_take(void *key)
{
  struct lite_site *set = site_set(key), *oldest = &set[0];
  for (unsigned w = 0; w < SITE_WAYS; w++) {
    if (set[w].key == key)
      return &set[w];
    if (set[w].stamp < oldest->stamp)
      oldest = &set[w];
  }
  return oldest;
}

/* Under site_lock: the entry of key with this team size and trip count, or NULL. */
static struct lite_site *site_exact(void *key, unsigned nthreads, uint64_t count)
{
  struct lite_site *set = site_set(key);
  for (unsigned w = 0; w < SITE_WAYS; w++)
    if (set[w].key == key && set[w].nthreads == nthreads && set[w].count == count)
      return &set[w];
  return NULL;
}

/* Under site_lock: the decisions, for the readers of plan. A store only when something changed,
   so that the line stays shared in every reader's cache. */
static void publish(struct lite_site *site)
{
  uint64_t plan = site_tag(site->key, site->nthreads, site->count) |
                  (uint64_t)site->hold << PLAN_HOLD_SHIFT | (site->steal ? PLAN_STEAL : 0) |
                  (site->whole ? PLAN_WHOLE : 0);
  if (atomic_load_explicit(&site->plan, memory_order_relaxed) != plan)
    atomic_store_explicit(&site->plan, plan, memory_order_relaxed);
}

/* One in period, at random (xorshift32; each thread starts from the same seed, so a test that
   runs one thread sees the same draws every time). */
static bool one_in(unsigned period)
{
  static LITE_THREAD_LOCAL uint32_t state;
  uint32_t x = state != 0 ? state : 0x2545f491u;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  state = x;
  return x % period == 0;
}

/* Whether a run at a site with this plan word is measured: always while the site is new (the
   tag is another's) or its period is 0, else one run in the period, at random. */
static bool draw_measure(uint64_t plan, uint64_t tag)
{
  unsigned hold = (plan >> PLAN_HOLD_SHIFT) & PLAN_HOLD_MASK;
  return (plan & PLAN_TAG_MASK) != tag || hold == 0 || one_in(hold);
}

bool lite_site_may_split(void *key, unsigned nthreads, uint64_t count, bool *measure,
                         bool *whole)
{
  uint64_t tag = site_tag(key, nthreads, count);
  uint64_t plan = find_plan(key, tag);
  *measure = draw_measure(plan, tag);
  *whole = (plan & PLAN_WHOLE) && lite_env.tiny_loops; /* whole overrides steal, as in plan */
  return !*measure && (*whole || !(plan & PLAN_STEAL));
}

void lite_site_split_run(void *key, unsigned nthreads, uint64_t count, bool whole)
{
  lite_sched_lock(&site_lock);
  struct lite_site *site = site_exact(key, nthreads, count);
  if (site != NULL) {
    site->runs++;
    if (whole)
      site->whole_runs++;
    else
      site->split_runs++;
  }
  lite_sched_unlock(&site_lock);
}

enum lite_handout lite_site_plan(struct lite_ws *ws, void *key, const bool *drawn)
{
  uint64_t tag = site_tag(key, ws->nthreads, ws->count);
  struct lite_site *site = site_find(key, tag);
  uint64_t plan = site != NULL ? atomic_load_explicit(&site->plan, memory_order_relaxed) : 0;
  bool measure = site == NULL || (drawn != NULL ? *drawn : draw_measure(plan, tag));
  bool steal = plan & PLAN_STEAL, whole = plan & PLAN_WHOLE;

  if (measure || lite_env.loop_stats) {
    lite_sched_lock(&site_lock);
    site = site_take(key);
    site->stamp = ++site_clock;
    if (site->key != key || site->nthreads != ws->nthreads || site->count != ws->count) {
      site->key = key;
      site->nthreads = ws->nthreads;
      site->count = ws->count;
      site->steal = true;
      site->whole = false;
      site->hold = 0;
      site->imbalanced_probes = 0;
      atomic_store_explicit(&site->counter, false, memory_order_relaxed);
      site->runs = site->steal_runs = site->steals = site->whole_runs = site->split_runs = 0;
      publish(site);
      measure = true;
    }
    steal = site->steal;
    whole = site->whole;
    site->runs++;
    if (whole && lite_env.tiny_loops)
      site->whole_runs++;
    else
      site->steal_runs += steal;
    lite_sched_unlock(&site_lock);
  }

  whole = whole && lite_env.tiny_loops;
  /* Written only when they change, as everything in a loop's setup (lite_sched_setup); the
     counters of measured runs only when this run is measured or counted. */
  LITE_SET_IF_CHANGED(ws->steal, steal && !whole);
  LITE_SET_IF_CHANGED(ws->site, site);
  if (!measure && !lite_env.loop_stats) {
    LITE_SET_IF_CHANGED(ws->start_ns, 0);
  } else {
    ws->start_ns = measure ? lite_now_ns() : 0;
    atomic_store_explicit(&ws->last_done_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->min_busy_ns, UINT64_MAX, memory_order_relaxed);
    atomic_store_explicit(&ws->max_busy_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->stolen, 0, memory_order_relaxed);
    atomic_store_explicit(&ws->finished, 0, memory_order_relaxed);
  }
  if (whole)
    return LITE_HANDOUT_WHOLE;
  /* A stealing run of a site that stealing in order could not balance: the shared counter,
     in order too. ws->steal stays set, so that the run counts as a stealing one here, and so
     that a dynamic loop takes several chunks at a time (iter.c, next_share). The switch holds
     for the site's life in the table (a new trip count or team makes a new site). */
  if (steal && lite_env.steal == LITE_STEAL_MONOTONIC &&
      atomic_load_explicit(&site->counter, memory_order_relaxed))
    return ws->guided ? LITE_HANDOUT_GUIDED : LITE_HANDOUT_DYNAMIC;
  return LITE_HANDOUT_OWN;
}

bool lite_site_is_tiny(void *key, unsigned nthreads, uint64_t count)
{
  if (!lite_env.tiny_loops)
    return false;
  /* The answer may be stale by the time it is used, which costs one run on the slower path at
     worst. */
  uint64_t tag = site_tag(key, nthreads, count);
  uint64_t plan = find_plan(key, tag);
  return (plan & PLAN_WHOLE) && (plan & PLAN_TAG_MASK) == tag;
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

/* The sampling period after a timed run that kept the site's decision: twice the last one, up to
   SAMPLE_MOST, once a timed run already confirmed it (a period of at least SAMPLE_EVERY). */
static unsigned confirmed_hold(const struct lite_site *site)
{
  return site->hold < SAMPLE_EVERY ? SAMPLE_EVERY
         : 2 * site->hold > SAMPLE_MOST ? SAMPLE_MOST
                                        : 2 * site->hold;
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
    /* Stealing in order left a member idle while chunks were left, and the run came out
       imbalanced: the counter from now on. Stuck alone is no reason: in a balanced loop the
       member with the last block often finishes first and finds only chunks below its own
       (loopbench triad-dynamic went 13 -> 93 ms a loop, the counter's chunks of one iteration,
       when any stuck run switched). */
    if (ws->handout == LITE_HANDOUT_OWN && ws->steal &&
        atomic_load_explicit(&ws->stuck, memory_order_relaxed) && spread > MIN_IMBALANCE_NS &&
        spread * 4 > busiest)
      atomic_store_explicit(&site->counter, true, memory_order_relaxed);
    if (ws->handout == LITE_HANDOUT_WHOLE) {
      site->whole = run < 2 * LITE_TINY_LOOP_NS;
      site->hold = site->whole ? confirmed_hold(site) : SAMPLE_EVERY;
    } else if (run < LITE_TINY_LOOP_NS && !ws->steal) {
      /* (Found tiny again where tiny loops are switched off: OMPLITE_TINY_LOOPS=0.) */
      site->hold = site->whole ? confirmed_hold(site) : SAMPLE_EVERY;
      site->whole = true;
    } else if (busiest > LONG_LOOP_NS) {
      site->steal = true;
      site->hold = SAMPLE_EVERY;
    } else if (!ws->steal) {
      bool imbalanced = spread > MIN_IMBALANCE_NS && spread * 4 > busiest;
      site->imbalanced_probes = imbalanced ? site->imbalanced_probes + 1 : 0;
      site->steal = imbalanced;
      site->hold = !imbalanced                      ? confirmed_hold(site)
                   : site->imbalanced_probes >= 2 ? HOLD_IMBALANCED
                                                  : 0; /* one run stealing, then a probe */
    } else {
      site->steal = false; /* probe: is it balanced without stealing? */
      site->hold = 0;
    }
    publish(site);
  }
  lite_sched_unlock(&site_lock);
}

bool lite_site_tiny_run(void *key, unsigned nthreads, uint64_t count, uint64_t run_ns)
{
  bool tiny = run_ns < 2 * LITE_TINY_LOOP_NS;
  lite_sched_lock(&site_lock);
  struct lite_site *site = site_exact(key, nthreads, count);
  if (site != NULL) {
    site->stamp = ++site_clock;
    site->runs++;
    site->whole_runs++;
    if (run_ns != 0) {
      site->whole = tiny;
      site->hold = SAMPLE_EVERY;
      publish(site);
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
  for (unsigned i = 0; i < SITE_SETS * SITE_WAYS; i++) {
    struct lite_site *s = &sites[i / SITE_WAYS][i % SITE_WAYS];
    if (s->key != NULL)
      fprintf(stderr,
              "libomp-lite: loop site %p threads %u iterations %llu runs %llu stealing-runs %llu "
              "steals %llu whole-runs %llu split-runs %llu counter %d\n",
              s->key, s->nthreads, (unsigned long long)s->count, (unsigned long long)s->runs,
              (unsigned long long)s->steal_runs, (unsigned long long)s->steals,
              (unsigned long long)s->whole_runs, (unsigned long long)s->split_runs,
              (int)atomic_load_explicit(&s->counter, memory_order_relaxed));
  }
}
