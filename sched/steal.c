/* Nonmonotonic loops: affinity first, stealing when it pays.

   Member k starts on static block k (the same block at every run of the loop, so its data stays
   in k's cache) and takes chunks from the front of it. When the call site's statistics say the
   loop is short and balanced (site.c), that is all: no atomic operation, one call. Otherwise
   each block has a small lock, taken by its owner per chunk (uncontended: the line stays in the
   owner's cache) and by thieves: a member whose block is empty takes the back half of the
   remaining chunks of the nearest member that has some (by the topology: affinity/bind.c),
   and works through it the same way, so a big victim is split among several thieves instead
   of being serialised on.

   Ranges count chunks, not iterations: chunk c is iterations [c * chunk, (c + 1) * chunk), the
   last one cut at the loop's end. A schedule(dynamic, k) loop must run every k consecutive
   iterations from the start on one thread (OpenMP 5.2, the schedule clause; programs rely on
   it, for example with a chunk as large as the loop so that one thread runs it all), and a
   guided chunk may not be smaller than k unless it holds the last iteration. Blocks, takes and
   steals in whole chunks give both; with the default chunk of 1 nothing changes.

   A thief that finds nothing has looked at every other member's range, each under its lock: in
   a team that outnumbers the CPUs many times over, each member that finishes scans the whole
   team, so a loop cost the square of the team (1,000 threads on 2 CPUs, 20 regions of a
   schedule(runtime) loop: 22-40 s, libgomp 0.5). ranges_left counts the ranges that may still
   hold chunks a thief can take; a thief looks only while it is above zero. It never counts
   fewer than there are: a range is counted off after it is emptied, and a thief that leaves
   its victim some chunks counts its own range in before it takes them. So it reaches zero only
   when no range holds any, and never leaves zero; the hand-out then costs one look at it.

   In order (OMPLITE_STEAL=monotonic, the default): each member runs its chunks in increasing
   order, as libgomp's and LLVM's shared counters give and as OpenMP's monotonic modifier
   promises, though gcc and clang emit the nonmonotonic entry points for a plain
   schedule(dynamic): MEGAHIT 1.2.9 sizes each thread's scratch by the first (largest) bucket it
   gets and aborted 3 runs in 6 at 2 threads when a thief took a bigger bucket later. The
   argument: a member's range, [lo, hi), only ever loses chunks at its back (thieves lower hi)
   and gives them at its front (take_front raises lo), so the chunks a member takes from one
   range come in increasing order, and taken_end, one past the last of them, never falls. A
   thief takes from a victim only chunks at or above its own taken_end: the back half when its
   cut lies there, else just the part above taken_end (the victim keeps the rest, in front of
   what the thief took). So the first chunk of a new range is above every chunk its member ran
   before. The loop's final chunk, set aside below, is the highest of all and its holder runs it
   last. Split, whole and unstealing loops take only from the member's own block, in order.
   Stealing in order cannot balance every loop: a member whose chunks are past everything left
   waits at the end (on a loop whose items shrink, every member but the first). Such a thief
   marks the loop stuck; if the run was also imbalanced by the site's measure, the call site's
   later stealing runs use the shared counter instead (site.c): in order and balanced, without
   the blocks' affinity. */
#include "sched_internal.h"
#include "profile/profile.h"

/* gcc's lastprivate code lets the member whose iteration variable ends past the loop's end copy
   out, so the member that runs the loop's final chunk may run no other chunk after it. In a
   stealing loop, a member whose range comes to hold the final chunk (the last block, or the back
   half of it taken by a thief) sets it aside, out of the thieves' reach, and runs it only when
   it finds nothing left to steal. Run as part of its range instead, it ended the member's share
   of the loop there, however much work the others still had: 4 threads on 2 CPUs, a triad of
   512 chunks after a serial pause (workers parked), a thief sat idle 200 us of a 1250 us loop
   while a member that had lost its CPU worked on. */
enum { FINAL_NOT_HELD, FINAL_HELD, FINAL_RUN };

static uint64_t chunk_count(const struct lite_ws *ws)
{
  return ws->count / ws->chunk + (ws->count % ws->chunk != 0);
}

/* A range's bounds and tag change under its lock, and a thief may look at them without it
   (looks_empty): relaxed atomic stores and loads, plain reads under the lock. */
static void set_lo(struct lite_range *range, uint64_t lo)
{
  __atomic_store_n(&range->lo, lo, __ATOMIC_RELAXED);
}
static void set_hi(struct lite_range *range, uint64_t hi)
{
  __atomic_store_n(&range->hi, hi, __ATOMIC_RELAXED);
}

/* A range not yet touched in this loop holds its member's static block of chunks. */
static void range_prepare(struct lite_ws *ws, struct lite_range *range, unsigned id)
{
  uint32_t ticket = (uint32_t)atomic_load_explicit(&ws->ticket, memory_order_relaxed);
  if (range->tag != ticket) {
    uint64_t lo, hi;
    lite_static_block(chunk_count(ws), ws->nthreads, id, &lo, &hi);
    set_lo(range, lo);
    set_hi(range, hi);
    range->final_chunk = FINAL_NOT_HELD;
    range->taken_end = 0;
    __atomic_store_n(&range->tag, ticket, __ATOMIC_RELAXED);
  }
}

/* Whether a victim's range is empty, by a look without its lock: a thief in a team of 256
   that locked every range on its way to the few that still hold chunks moved 255 lines to
   find them. A range prepared for this loop and empty is skipped; one not yet prepared holds
   its block. The two bounds are read apart, so a range being refilled may look empty: the
   thief skips a victim it could have taken from, nothing more. */
static bool looks_empty(const struct lite_range *range, uint32_t ticket)
{
  return __atomic_load_n(&range->tag, __ATOMIC_RELAXED) == ticket &&
         __atomic_load_n(&range->lo, __ATOMIC_RELAXED) >=
             __atomic_load_n(&range->hi, __ATOMIC_RELAXED);
}

/* The iterations of chunks [clo, chi): no product can overflow, since every chunk but the last
   starts below count. */
static void chunk_span(uint64_t count, uint64_t chunk, uint64_t clo, uint64_t chi, uint64_t *lo,
                       uint64_t *hi)
{
  *lo = clo * chunk;
  *hi = chi == count / chunk + (count % chunk != 0) ? count : chi * chunk;
}

static void chunk_iterations(const struct lite_ws *ws, uint64_t clo, uint64_t chi, uint64_t *lo,
                             uint64_t *hi)
{
  chunk_span(ws->count, ws->chunk, clo, chi, lo, hi);
}

/* The same blocks as range_prepare's, from what every member knows: a split loop (work.c). */
void lite_own_block(uint64_t count, uint64_t chunk, unsigned nthreads, unsigned id, uint64_t *lo,
                    uint64_t *hi)
{
  uint64_t clo, chi;
  lite_static_block(count / chunk + (count % chunk != 0), nthreads, id, &clo, &chi);
  chunk_span(count, chunk, clo, chi, lo, hi);
}

void lite_steal_setup(struct lite_ws *ws)
{
  uint64_t nchunks = chunk_count(ws);
  /* Members numbered nchunks or more have empty blocks (lite_static_block). */
  unsigned ranges = nchunks < ws->nthreads ? (unsigned)nchunks : ws->nthreads;
  atomic_store_explicit(&ws->ranges_left, ranges, memory_order_relaxed);
  if (atomic_load_explicit(&ws->stuck, memory_order_relaxed))
    atomic_store_explicit(&ws->stuck, false, memory_order_relaxed);
}

static void range_emptied(struct lite_ws *ws)
{
  atomic_fetch_sub_explicit(&ws->ranges_left, 1, memory_order_relaxed);
}

/* Takes the next chunks from the front of a range (the caller owns or has locked it).

   Several chunks at once: a member that runs chunks k..k+m-1 in one go is indistinguishable
   from one that asked for them one by one (nonmonotonic schedules promise no order), and each
   request saved is a call and, when the loop steals, a lock. Without stealing nobody else can
   take from the range, so it all goes at once. With stealing, a dynamic loop takes an eighth of
   what is left (never less than a chunk): thieves still find seven eighths to share when
   they come, the take shrinks towards the end, and the locks per member fall from one per
   chunk to about 8 ln(block). Guided takes about half of what this member has left, which
   tracks the unassigned iterations divided by the team size while the blocks are even. */
static bool take_front(struct lite_ws *ws, struct lite_range *range, uint64_t *lo, uint64_t *hi)
{
  uint64_t left = range->hi - range->lo;
  if (range->lo >= range->hi)
    return false;
  uint64_t share = !ws->steal ? left : ws->guided ? left / 2 + (left & 1) : left / 8;
  uint64_t size = share > 1 ? share : 1;
  chunk_iterations(ws, range->lo, range->lo + size, lo, hi);
  set_lo(range, range->lo + size);
  range->taken_end = range->lo;
  return true;
}

/* Moves the back half of a victim's remaining chunks (in order: of those above the thief's last
   chunk) into the thief's range. */
static bool steal_from(struct lite_ws *ws, unsigned victim, struct lite_range *mine)
{
  struct lite_range *range = lite_ws_range(ws, victim);
  lite_sched_lock(&range->lock);
  range_prepare(ws, range, victim);
  uint64_t left = range->hi > range->lo ? range->hi - range->lo : 0;
  if (left == 0) {
    lite_sched_unlock(&range->lock);
    return false;
  }
  uint64_t take = left / 2 + (left & 1);
  uint64_t hi = range->hi;
  /* In order: nothing below the thief's last chunk. Only the thief writes its taken_end. */
  if (ws->in_order && hi - take < mine->taken_end) {
    if (hi <= mine->taken_end) {
      lite_sched_unlock(&range->lock);
      if (!atomic_load_explicit(&ws->stuck, memory_order_relaxed))
        atomic_store_explicit(&ws->stuck, true, memory_order_relaxed);
      return false;
    }
    take = hi - mine->taken_end;
  }
  set_hi(range, hi - take);
  if (take < left) /* two ranges hold chunks now; all of them moved: still one */
    atomic_fetch_add_explicit(&ws->ranges_left, 1, memory_order_relaxed);
  lite_sched_unlock(&range->lock);

  lite_sched_lock(&mine->lock);
  set_lo(mine, hi - take);
  set_hi(mine, hi);
  lite_sched_unlock(&mine->lock);
  atomic_fetch_add_explicit(&ws->stolen, 1, memory_order_relaxed);
  lite_prof_steal();
  return true;
}

/* The calling member's order of the other members of its team, if the topology gives one. */
static const unsigned *nearest_members(unsigned n)
{
  struct lite_thread *thr = lite_self_tls;
  if (thr == NULL || thr->team == NULL || thr->team->pool == NULL || thr->team->nthreads != n)
    return NULL;
  return lite_bind_nearest(thr, thr->team->pool, n);
}

bool lite_steal_next(struct lite_ws *ws, unsigned id, uint64_t *lo, uint64_t *hi)
{
  struct lite_range *mine = lite_ws_range(ws, id);
  if (!ws->steal) {
    range_prepare(ws, mine, id);
    return take_front(ws, mine, lo, hi);
  }
  uint64_t nchunks = chunk_count(ws);
  for (;;) {
    lite_sched_lock(&mine->lock);
    range_prepare(ws, mine, id);
    if (mine->hi == nchunks && mine->lo < mine->hi) {
      set_hi(mine, mine->hi - 1);
      mine->final_chunk = FINAL_HELD;
      if (mine->lo == mine->hi)
        range_emptied(ws);
    }
    bool got = mine->final_chunk != FINAL_RUN && take_front(ws, mine, lo, hi);
    if (got && mine->lo == mine->hi)
      range_emptied(ws);
    uint8_t final_chunk = mine->final_chunk;
    lite_sched_unlock(&mine->lock);
    if (got)
      return true;
    if (final_chunk == FINAL_RUN)
      return false;
    /* Nearest first: by the topology where it is known (affinity/bind.c), else by member
       number: id+1, id-1, id+2, id-2, ... */
    unsigned n = ws->nthreads;
    uint32_t ticket = (uint32_t)atomic_load_explicit(&ws->ticket, memory_order_relaxed);
    const unsigned *near = nearest_members(n);
    bool stole = false;
    for (unsigned d = 1; d < n && !stole; d++) {
      if (atomic_load_explicit(&ws->ranges_left, memory_order_relaxed) == 0)
        break;
      unsigned victim = near != NULL ? near[d - 1]
                        : d % 2     ? (id + (d + 1) / 2) % n
                                    : (id + n - (d / 2) % n) % n;
      if (victim != id && !looks_empty(lite_ws_range(ws, victim), ticket))
        stole = steal_from(ws, victim, mine);
    }
    if (stole)
      continue;
    if (final_chunk != FINAL_HELD)
      return false;
    /* Only the owner changes final_chunk once the range is prepared; the lock orders it with
       a thief's range_prepare all the same. */
    lite_sched_lock(&mine->lock);
    mine->final_chunk = FINAL_RUN;
    lite_sched_unlock(&mine->lock);
    chunk_iterations(ws, nchunks - 1, nchunks, lo, hi);
    return true;
  }
}
