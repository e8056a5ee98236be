/* Wake ahead (issue 48): each pool learns the serial gap from a join to its next fork, and
   while the gaps fall in a known span its members sleep through the gap with a deadline a
   little before the span begins, then spin until the fork, instead of spinning the wait
   policy's budget and then parking untimed.

   Why: a member parked through a gap costs the next fork a futex wake-up, 20-25 us on KVM (DESIGN
   §5), 40-100 us a region against LLVM's never-sleeping workers at 1-10 ms gaps (issue 48's
   table), and the spin budget before it parks costs 300 us of CPU per gap for nothing when the
   gap is known to be longer. Woken by its own timer ahead of the fork, a member spins only
   while the fork may come and is awake when it does.

   The estimate, updated by the leader at a fork that follows a gap longer than the members'
   spin (lite_gap_learn; a shorter gap is only counted and resets its site, lite_gap_short,
   with no clock read, so that back-to-back regions pay nothing: the gap's start is the time
   member 1 left the region, which it stores as it parks, or as it leaves when a prediction is
   out), is kept per site: the region the gap follows (its outlined body, pool->fn) and how many
   short gaps came since the last long one, for the last LITE_GAP_SITES sites. A time step of
   several loops has short gaps between its regions and one long serial phase after the last:
   with one estimate per pool the short gaps reset it at every step, and nothing was ever
   predicted; keyed by the region alone, a step that runs one loop function three times learned
   1 ms and 0 for one site and spun through every gap (gapbench, GAPBENCH_REGIONS=3: 2.1 ms of
   CPU a step at 1 ms gaps; 1.1 with the position, at LLVM's wall). clang's regions all run
   through one trampoline, so there the position alone tells the sites apart.
   Per site: the average of the gap and of its absolute deviation, plain over the first 8 gaps,
   then exponential (weight 1/8). The next fork is expected between mean - 2 dev and mean + 2
   dev (gapbench's uniform 0.5-5 ms gaps: dev is a quarter of the range, so that is the range;
   a regular rhythm has a span of tens of us). A prediction is made after GAP_WARMUP gaps, when
   the span ends after the spin budget (else the spin covers it), and when the span with the
   lead and GAP_WINDOW_MIN_NS is at most GAP_WINDOW_MAX_NS: the most a member spins in one gap.
   10 ms is above libgomp's default spin here (300,000 polls, 4-6 ms of CPU per gap at 10 ms
   gaps) and far under LLVM's 200 ms blocktime, so a member never spins longer than they do, and
   wider spans (gaps of 1 to 100 ms) are left to the untimed park. After GAP_MAX_OUTSIDE forks in
   a row on one side of the span (a program whose gaps grew or shrank, or that went serial and
   has cost one window per member), the estimate starts over from the last gap: followed by the
   averages, the span stayed wide for some 20 gaps after a change from 3 to 10 ms (dev 0.9 ms),
   and the members spun through it (gapbench's 10 ms row: 2 ms of CPU a step more).

   A member (lite_gap_plan) sets its timer lead ns before the span: lead is how late the timed
   wake-ups of this pool arrive, their average plus twice their deviation plus
   GAP_LEAD_MARGIN_NS, at most GAP_LEAD_MAX_NS. The workers' timer slack is cut to 1 us (team.c),
   yet in this Firecracker VM a timed sleep of 10-30 ms comes back 60-550 us late (p10-p90, 130
   us in the median; 1 ms sleeps 40-75 us), growing with the sleep: the average alone left the
   member late at one fork in two at 30 ms (gapbench +90 us a step against LLVM). When the span
   starts within the spin budget, the member does not sleep: it spins the budget and on to the
   span's end (gaps just over the budget, 0.3 ms in gapbench, had parked right before every
   fork). */
#include "internal.h"

#include <string.h>

#define GAP_WARMUP 4
#define GAP_MAX_OUTSIDE 3
#define GAP_LEAD_MARGIN_NS 20000
#define GAP_LEAD_MAX_NS 1000000
#define GAP_LATE_START_NS 40000
#define GAP_WINDOW_MIN_NS 50000
#define GAP_WINDOW_MAX_NS 10000000

void lite_gap_join(struct lite_gap *g, uint64_t now)
{
  atomic_store_explicit(&g->join_ns, now, memory_order_relaxed);
}

static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* avg moved by 1/n of the way to x. */
static uint64_t average(uint64_t avg, uint64_t x, uint32_t n)
{
  return x > avg ? avg + (x - avg) / n : avg - (avg - x) / n;
}

uint64_t lite_gap_lead_ns(const struct lite_gap *g)
{
  uint64_t late = atomic_load_explicit(&g->late_ns, memory_order_relaxed);
  uint64_t dev = atomic_load_explicit(&g->late_dev_ns, memory_order_relaxed);
  uint64_t lead = (late != 0 ? late : GAP_LATE_START_NS) + 2 * dev + GAP_LEAD_MARGIN_NS;
  return lead < GAP_LEAD_MAX_NS ? lead : GAP_LEAD_MAX_NS;
}

bool lite_gap_plan(const struct lite_gap *g, uint64_t left, uint64_t spin_ns, uint64_t *wake_at,
                   uint64_t *end)
{
  uint64_t until = atomic_load_explicit(&g->until_ns, memory_order_relaxed);
  if (until == 0)
    return false;
  /* from_ns is written before until_ns at the fork, and both before the region was published */
  uint64_t from = atomic_load_explicit(&g->from_ns, memory_order_relaxed);
  uint64_t lead = lite_gap_lead_ns(g);
  *wake_at = from > lead + spin_ns ? left + from - lead : 0;
  *end = left + until + GAP_WINDOW_MIN_NS;
  return true;
}

/* The site of region fn's gaps after pos short ones (NULL: none yet); make: take a place for
   it, the next in turn. */
static struct lite_gap_site *site_of(struct lite_gap *g, void (*fn)(void *), uint32_t pos,
                                     bool make)
{
  for (unsigned i = 0; i < LITE_GAP_SITES; i++)
    if (g->sites[i].fn == fn && g->sites[i].pos == pos)
      return &g->sites[i];
  if (!make)
    return NULL;
  struct lite_gap_site *s = &g->sites[g->next_site++ % LITE_GAP_SITES];
  if (s->samples >= GAP_WARMUP)
    g->ready--;
  memset(s, 0, sizeof *s);
  s->fn = fn;
  s->pos = pos;
  return s;
}

static void site_reset(struct lite_gap *g, struct lite_gap_site *s)
{
  if (s->samples >= GAP_WARMUP)
    g->ready--;
  s->samples = 0;
  s->outside = 0;
}

static void short_gap(struct lite_gap *g)
{
  if (g->pos < UINT32_MAX)
    g->pos++;
}

void lite_gap_short(struct lite_gap *g, void (*after)(void *))
{
  struct lite_gap_site *s = g->ready != 0 ? site_of(g, after, g->pos, false) : NULL;
  if (s != NULL && s->samples != 0)
    site_reset(g, s);
  short_gap(g);
}

static void learn(struct lite_gap *g, struct lite_gap_site *s, uint64_t gap)
{
  /* Outside: the fork came after the span the members spin for (+1), or well before it (-1);
     counted while on the same side, as a change of rhythm moves them, not scattered gaps. */
  int side = 0;
  if (s->samples >= GAP_WARMUP) {
    uint64_t reach = 2 * s->dev_ns + GAP_WINDOW_MIN_NS;
    side = gap > s->mean_ns + reach ? 1 : gap + reach < s->mean_ns ? -1 : 0;
  }
  s->outside = side != 0 && (s->outside > 0) == (side > 0) ? s->outside + side : side;
  if (s->outside >= GAP_MAX_OUTSIDE || s->outside <= -GAP_MAX_OUTSIDE)
    site_reset(g, s); /* a new rhythm: learn it afresh, from this gap */
  if (s->samples == 0) {
    s->mean_ns = gap;
  } else {
    /* The plain average of the gaps and deviations seen, then an exponential one of weight 1/8
       (a change of rhythm is followed within a dozen regions). The first deviation is the first
       one seen: a guess averaged in stayed in the span for 20 gaps, spinning through most of
       them. */
    uint64_t d = absdiff(gap, s->mean_ns);
    uint32_t n = s->samples < 8 ? s->samples : 8;
    s->dev_ns = n == 1 ? d : average(s->dev_ns, d, n);
    s->mean_ns = average(s->mean_ns, gap, n + 1 < 8 ? n + 1 : 8);
  }
  if (s->samples < UINT32_MAX && ++s->samples == GAP_WARMUP)
    g->ready++;
}

void lite_gap_learn(struct lite_gap *g, void (*after)(void *), uint64_t now, uint64_t spin_ns)
{
  /* Taken once: a stale time (member 1 did not park after the last region) reads as none. */
  uint64_t join = atomic_exchange_explicit(&g->join_ns, 0, memory_order_relaxed);
  if (join == 0 || now <= join) {
    g->pos = 0; /* a member parked: a long gap, of unknown length */
    return;
  }
  uint64_t gap = now - join;
  if (gap <= spin_ns) {
    /* short, though a prediction was out: the site that made it learns it (and, after a few,
       starts over); no site is made for short gaps */
    struct lite_gap_site *s = site_of(g, after, g->pos, false);
    if (s != NULL)
      learn(g, s, gap);
    short_gap(g);
    return;
  }
  learn(g, site_of(g, after, g->pos, true), gap);
  g->pos = 0;
}

uint64_t lite_gap_predict(struct lite_gap *g, void (*next)(void *), uint64_t spin_ns,
                          bool allowed)
{
  struct lite_gap_site *s = allowed && g->ready != 0 ? site_of(g, next, g->pos, false) : NULL;
  uint64_t from = 0, until = 0;
  if (s != NULL && s->samples >= GAP_WARMUP) {
    from = s->mean_ns > 2 * s->dev_ns ? s->mean_ns - 2 * s->dev_ns : 0;
    until = s->mean_ns + 2 * s->dev_ns;
    if (until + GAP_WINDOW_MIN_NS <= spin_ns ||
        until - from + lite_gap_lead_ns(g) + GAP_WINDOW_MIN_NS > GAP_WINDOW_MAX_NS)
      until = 0;
  }
  if (until != 0 && atomic_load_explicit(&g->from_ns, memory_order_relaxed) != from)
    atomic_store_explicit(&g->from_ns, from, memory_order_relaxed);
  if (atomic_load_explicit(&g->until_ns, memory_order_relaxed) != until)
    atomic_store_explicit(&g->until_ns, until, memory_order_relaxed);
  return until;
}

void lite_gap_fork_cancel(struct lite_gap *g)
{
  atomic_store_explicit(&g->until_ns, 0, memory_order_relaxed);
}

void lite_gap_woke_late(struct lite_gap *g, uint64_t late)
{
  uint64_t old = atomic_load_explicit(&g->late_ns, memory_order_relaxed);
  if (old == 0)
    old = GAP_LATE_START_NS;
  uint64_t dev = atomic_load_explicit(&g->late_dev_ns, memory_order_relaxed);
  /* Racing members may lose an update; an average needs none in particular. */
  atomic_store_explicit(&g->late_dev_ns, average(dev, absdiff(late, old), 8), memory_order_relaxed);
  atomic_store_explicit(&g->late_ns, average(old, late, 8), memory_order_relaxed);
}

bool lite_gap_allowed(const struct lite_env *env, int live_threads, bool loaded)
{
  return env->wake_ahead && env->wait_policy != LITE_WAIT_PASSIVE &&
         env->wait_policy != LITE_WAIT_ACTIVE && env->spin_ns != 0 &&
         live_threads <= (int)env->ncpus && !loaded;
}
