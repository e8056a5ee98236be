/* Wake ahead (issue 48): each pool learns the serial gap from a join to its next fork, and
   when the gaps are regular its members sleep through the gap with a deadline a little before
   the expected fork instead of spinning the wait policy's budget and then parking untimed.

   Why: a member parked through a gap costs the next fork a futex wake-up, 20-25 us here
   (DESIGN §5), 40-100 us a region against LLVM's never-sleeping workers at 1-10 ms gaps
   (issue 48's table), and the spin budget before it parks costs 300 us of CPU per gap for
   nothing when the gap is known to be longer. Woken by its own timer ahead of the fork, a
   member spins only a short window and is awake when the fork comes.

   The estimate, updated by the leader at a fork that follows a gap longer than the members'
   spin (lite_gap_fork; a shorter gap only resets it, lite_gap_short, with no clock read, so that
   back-to-back regions pay nothing: the gap's start is the time member 1 left the region,
   which it stores as it parks): an exponential average of
   the gap and of its absolute deviation (weight 1/8: a change of rhythm is followed within a
   dozen regions). The gaps are regular when the deviation is at most an eighth of the mean
   (the random 0.5-5 ms gaps deviate by ~40 %); the prediction is made only then, after
   GAP_WARMUP gaps, for gaps longer than the spin budget (shorter ones the spin already covers),
   and not after GAP_MAX_LATE forks in a row that came after the window a member spins for: a
   program whose gaps grew, or that went serial, stops being predicted; it is predicted again
   once a fork lands inside the window (the averages have caught up).

   Lead: the member's timer is set late_ns + GAP_LEAD_MARGIN_NS before the expected fork, where
   late_ns is how late the timed wake-ups of this pool arrived (an average, measured by the
   members, starting at GAP_LATE_START_NS: the workers' timer slack is cut to GAP_TIMER_SLACK_NS,
   team.c, so the default 50 us slack does not add to it, and a wake-up itself takes 20-25 us).
   Window: after its timer a member spins until 2 deviations + GAP_WINDOW_MIN_NS past the
   expected fork, at most the spin budget, then parks untimed and counts a miss. So each member
   spends at most lead + window of CPU per gap awake, and a program gone serial for good costs
   one such window per member, after which it sleeps as today. */
#include "internal.h"

#define GAP_WARMUP 4
#define GAP_MAX_LATE 3
#define GAP_LEAD_MARGIN_NS 20000
#define GAP_LATE_START_NS 40000
#define GAP_WINDOW_MIN_NS 50000

void lite_gap_join(struct lite_gap *g, uint64_t now)
{
  atomic_store_explicit(&g->join_ns, now, memory_order_relaxed);
}

void lite_gap_short(struct lite_gap *g)
{
  g->samples = 0;
  g->late_forks = 0;
  if (atomic_load_explicit(&g->predict_ns, memory_order_relaxed) != 0)
    atomic_store_explicit(&g->predict_ns, 0, memory_order_relaxed);
}

static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

uint64_t lite_gap_lead_ns(const struct lite_gap *g)
{
  uint64_t late = atomic_load_explicit(&g->late_ns, memory_order_relaxed);
  return (late != 0 ? late : GAP_LATE_START_NS) + GAP_LEAD_MARGIN_NS;
}

uint64_t lite_gap_window_ns(const struct lite_gap *g, uint64_t spin_ns)
{
  /* dev_ns is the leader's, read here by members as they park: a relaxed load (a stale value
     only moves the window by a fraction of a deviation). */
  uint64_t dev = __atomic_load_n(&g->dev_ns, __ATOMIC_RELAXED);
  uint64_t w = lite_gap_lead_ns(g) + 2 * dev + GAP_WINDOW_MIN_NS;
  return w < spin_ns ? w : spin_ns;
}

uint64_t lite_gap_fork(struct lite_gap *g, uint64_t now, uint64_t spin_ns, bool allowed)
{
  uint64_t predict = 0;
  /* Taken once: a stale time (member 1 did not park after the last region) reads as none. */
  uint64_t join = atomic_exchange_explicit(&g->join_ns, 0, memory_order_relaxed);
  if (join != 0 && now > join) {
    uint64_t gap = now - join;
    if (g->samples == 0) {
      g->mean_ns = gap;
      /* unknown yet: irregular until shown otherwise */
      __atomic_store_n(&g->dev_ns, gap / 2, __ATOMIC_RELAXED);
    } else {
      /* Late: the fork came after the window a member spins for past the predicted time. */
      if (g->samples >= GAP_WARMUP && gap > g->mean_ns + 2 * g->dev_ns + GAP_WINDOW_MIN_NS)
        g->late_forks++;
      else
        g->late_forks = 0;
      uint64_t d = absdiff(gap, g->mean_ns);
      __atomic_store_n(&g->dev_ns, g->dev_ns - g->dev_ns / 8 + d / 8, __ATOMIC_RELAXED);
      g->mean_ns = gap > g->mean_ns ? g->mean_ns + (gap - g->mean_ns) / 8
                                    : g->mean_ns - (g->mean_ns - gap) / 8;
    }
    if (g->samples < UINT32_MAX)
      g->samples++;
  }
  if (allowed && g->samples >= GAP_WARMUP && g->dev_ns <= g->mean_ns / 8 &&
      g->late_forks < GAP_MAX_LATE && g->mean_ns > spin_ns + lite_gap_lead_ns(g))
    predict = g->mean_ns;
  if (atomic_load_explicit(&g->predict_ns, memory_order_relaxed) != predict)
    atomic_store_explicit(&g->predict_ns, predict, memory_order_relaxed);
  return predict;
}

void lite_gap_fork_cancel(struct lite_gap *g)
{
  atomic_store_explicit(&g->predict_ns, 0, memory_order_relaxed);
}

void lite_gap_woke_late(struct lite_gap *g, uint64_t late)
{
  uint64_t old = atomic_load_explicit(&g->late_ns, memory_order_relaxed);
  if (old == 0)
    old = GAP_LATE_START_NS;
  /* Racing members may lose an update; an average needs none in particular. */
  atomic_store_explicit(&g->late_ns, old - old / 8 + late / 8, memory_order_relaxed);
}

bool lite_gap_allowed(const struct lite_env *env, int live_threads, bool loaded)
{
  return env->wake_ahead && env->wait_policy != LITE_WAIT_PASSIVE &&
         env->wait_policy != LITE_WAIT_ACTIVE && env->spin_ns != 0 &&
         live_threads <= (int)env->ncpus && !loaded;
}
