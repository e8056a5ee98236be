/* Tiny loops inside a running team: no cache line moves between the members.

   site.c sends a tiny nonmonotonic loop whole to the first member that asks, but inside a team
   that is already running the ring still costs every member a claim, a wait for the entry to be
   set up and a departure count: three cache lines that cross cores, ~0.9 µs per loop on a 2-vCPU
   VM whose line round trip is ~0.5 µs, where the whole loop (64 increments) takes 30 ns.

   So a pool keeps a short list of the call sites (with team size and trip count) that site.c
   found tiny. A member that meets a loop on the list needs nobody: thread 0 runs every iteration
   from a private entry, the others have none. The members must all agree on the list, or one
   could run iterations that another hands out through the ring; so the list changes only at the
   join, by the leader, when every member has left every loop of the region:
   - a loop the ring ran whole (its first member noted it in pool->tiny_key) joins the list, if
     site.c still calls it tiny;
   - thread 0 times one run in SAMPLE_EVERY of a listed loop; one that took longer than twice
     LITE_TINY_LOOP_NS (the work grew) leaves the list and site.c's tiny mode.
   Only explicit dynamic and guided schedules qualify: schedule(runtime) reads run-sched-var,
   which a member may have changed on its own. */
#include "sched_internal.h"

#define SAMPLE_EVERY 8

static int lookup(const struct lite_pool *pool, void *key, unsigned nthreads, uint64_t count)
{
  for (unsigned i = 0; i < pool->ntiny; i++) {
    const struct lite_tiny_site *t = &pool->tiny[i];
    if (t->key == key && t->count == count && t->nthreads == nthreads)
      return (int)i;
  }
  return -1;
}

bool lite_tiny_in_team(struct lite_thread *thr, const struct lite_loop_request *req,
                       uint64_t count)
{
  struct lite_team *team = thr->team;
  if (team == NULL || team->pool == NULL || team->pool->ntiny == 0)
    return false;
  if (req->monotonic || req->ordered || req->from_icv || req->kind == LITE_SCHED_STATIC)
    return false;
  int entry = lookup(team->pool, req->site, team->nthreads, count);
  if (entry < 0)
    return false;
  thr->tiny_entry = (unsigned)entry;
  return true;
}

struct lite_ws *lite_tiny_begin(struct lite_thread *thr)
{
  thr->ws_count++; /* the ring's numbering goes on as if the loop had used it */
  if (thr->id != 0) {
    thr->ws = NULL;
    return NULL;
  }
  struct lite_ws *ws = lite_ws_solo(thr);
  atomic_store_explicit(&ws->ticket,
                        (uint32_t)(atomic_load_explicit(&ws->ticket, memory_order_relaxed) + 1),
                        memory_order_relaxed);
  ws->nthreads = 1;
  thr->ws = ws;
  return ws;
}

void lite_tiny_setup(struct lite_thread *thr, struct lite_ws *ws)
{
  struct lite_pool *pool = thr->team->pool;
  unsigned entry = thr->tiny_entry;
  struct lite_loop_request whole = {LITE_SCHED_STATIC, true, false, 0, NULL, false};
  lite_sched_setup(ws, &whole); /* one member, no chunk: its block is every iteration */
  lite_ws_ready(ws);
  if (++pool->tiny_runs[entry] % SAMPLE_EVERY == 0)
    thr->tiny_start_ns = lite_now_ns();
  else if (lite_env.loop_stats)
    lite_site_tiny_run(pool->tiny[entry].key, pool->tiny[entry].nthreads, ws->count, 0);
}

void lite_tiny_done(struct lite_thread *thr)
{
  uint64_t run = lite_now_ns() - thr->tiny_start_ns;
  thr->tiny_start_ns = 0;
  struct lite_pool *pool = thr->team->pool;
  unsigned entry = thr->tiny_entry;
  const struct lite_tiny_site *t = &pool->tiny[entry];
  if (!lite_site_tiny_run(t->key, t->nthreads, t->count, run == 0 ? 1 : run))
    pool->tiny_drop[entry] = true;
}

void lite_tiny_note_whole(struct lite_thread *thr, const struct lite_loop_request *req,
                          uint64_t count)
{
  if (req->from_icv || thr->team == NULL || thr->team->pool == NULL)
    return;
  /* Stored only when they change: a tiny loop run many times in one region would otherwise move
     the pool's line to whichever member claimed it last, at every run. */
  struct lite_pool *pool = thr->team->pool;
  if (atomic_load_explicit(&pool->tiny_count, memory_order_relaxed) != count)
    atomic_store_explicit(&pool->tiny_count, count, memory_order_relaxed);
  if (atomic_load_explicit(&pool->tiny_key, memory_order_relaxed) != req->site)
    atomic_store_explicit(&pool->tiny_key, req->site, memory_order_relaxed);
}

void lite_tiny_note(struct lite_thread *thr, const struct lite_ws *ws,
                    const struct lite_loop_request *req)
{
  if (ws->handout == LITE_HANDOUT_WHOLE)
    lite_tiny_note_whole(thr, req, ws->count);
}

void lite_tiny_join(struct lite_pool *pool)
{
  for (unsigned i = 0; i < pool->ntiny;) {
    if (pool->tiny_drop[i]) {
      unsigned last = --pool->ntiny;
      pool->tiny[i] = pool->tiny[last];
      pool->tiny_runs[i] = pool->tiny_runs[last];
      pool->tiny_drop[i] = pool->tiny_drop[last];
      pool->tiny_drop[last] = false;
    } else {
      i++;
    }
  }
  void *key = atomic_load_explicit(&pool->tiny_key, memory_order_relaxed);
  if (lite_likely(key == NULL))
    return;
  uint64_t count = atomic_load_explicit(&pool->tiny_count, memory_order_relaxed);
  atomic_store_explicit(&pool->tiny_key, NULL, memory_order_relaxed);
  unsigned nthreads = atomic_load_explicit(&pool->nthreads, memory_order_relaxed);
  /* The key and count may come from two loops noted at once: site.c must confirm the pair. */
  if (lookup(pool, key, nthreads, count) >= 0 || !lite_site_is_tiny(key, nthreads, count))
    return;
  /* A full list gives up an entry picked by the trip count: any one will do, and a site that
     loses its place comes back through the ring. */
  unsigned i = pool->ntiny < LITE_TINY_SITES ? pool->ntiny++ : (unsigned)(count % LITE_TINY_SITES);
  pool->tiny[i] = (struct lite_tiny_site){key, count, nthreads};
  pool->tiny_runs[i] = 0;
  pool->tiny_drop[i] = false;
}
