/* Unit tests of barrier.c, single.c and wait.c: the team barrier over many rounds at several team
   sizes (oversubscribed included) and wait budgets (park at once, the defaults, very long spins),
   single with exactly one winner per construct (with and without barriers between, across
   regions of changing sizes), copyprivate broadcast, the cancellable barrier (a barrier while
   nothing is cancelled; cancel parallel wakes its parked waiters; the pool is sound afterwards),
   and the wait primitives themselves driven by plain pthreads: parked waiters woken by
   lite_store_and_wake, lite_waiter_poll's budget, and its load watch, given the kernel's counts
   by the test (lite_load_counts), never the machine's.

   Team members never call ck_assert: they count what went wrong and the test thread checks.
   Every test runs in its own process (Check's fork mode), so a test may change lite_env's wait
   budgets freely. No assertion depends on how long anything takes; a deadlock fails through
   the test case's timeout.

   The machine may be shared with busy processes, and a barrier then costs up to a scheduler tick
   (4 ms) instead of microseconds. So that the file stays fast, the long loops stop early once a
   time budget is spent: thread 0 looks at the clock before a barrier and every member reads its
   decision after it, so the whole team stops at the same round (at least STOP_EVERY rounds always
   run). Everything is checked over the rounds that did run. */
#include "internal.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 64

/* Atomic loads as functions, so that a failed assertion prints the call, not its expansion. */
static int ld(_Atomic int *p) { return atomic_load(p); }
static uint32_t ld32(_Atomic uint32_t *p) { return atomic_load(p); }

/* Known defaults for the calling thread's ICVs, whatever OMP_* variables the caller set. */
static void reset_icv(void)
{
  struct lite_thread *thr = lite_self();
  thr->icv.dynamic = false;
  thr->icv.thread_limit = UINT_MAX;
  thr->icv.max_active_levels = 1;
}

static void sleep_us(long us)
{
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* The shared decision to stop a loop early (see the top of the file). */
#define STOP_EVERY 256
#define LOOP_BUDGET_NS 150000000ull /* 0.15 s of rounds per loop */

struct stopper {
  uint64_t deadline_ns;
  _Atomic int limit; /* the round after which everyone stops; INT_MAX: none yet */
};

static void stopper_init(struct stopper *s)
{
  s->deadline_ns = lite_now_ns() + LOOP_BUDGET_NS;
  atomic_init(&s->limit, INT_MAX);
}

/* Thread 0, before the barrier that ends round r. */
static void stopper_check(struct stopper *s, unsigned id, int r)
{
  if (id == 0 && r % STOP_EVERY == 0 && lite_now_ns() > s->deadline_ns)
    atomic_store_explicit(&s->limit, r, memory_order_relaxed);
}

/* Every member, after that barrier (which orders thread 0's store before this load). */
static bool stopper_stop(struct stopper *s, int r)
{
  return r % STOP_EVERY == 0 && atomic_load_explicit(&s->limit, memory_order_relaxed) <= r;
}

/* A counter on its own cache line, so that the phase words do not share lines. */
struct padded {
  _Atomic int v;
} LITE_ALIGNED;

/* ---------------------------------------------------------------- barrier phases */

/* Each member writes its phase before barrier r; after it, every member must see every other's
   phase at r (or already r+1: the others may have left this barrier and written the next). */
struct phase_data {
  unsigned n;
  int rounds;
  int straggle_every; /* 0: never; else member (r / every) % n sleeps before barrier r */
  struct stopper stop;
  _Atomic int played;  /* rounds run, as thread 0 saw them */
  struct padded phase[MAXT];
  _Atomic int bad;
  _Atomic int members;
};

static void phase_rounds(struct phase_data *d, unsigned id, unsigned n)
{
  struct lite_thread *thr = lite_self();
  int r;
  for (r = 1; r <= d->rounds; r++) {
    atomic_store_explicit(&d->phase[id].v, r, memory_order_relaxed);
    stopper_check(&d->stop, id, r);
    if (d->straggle_every != 0 && r % d->straggle_every == 0 &&
        (unsigned)(r / d->straggle_every) % n == id)
      sleep_us(1000); /* the others spin out their budget and park */
    /* Both doors: the ABI entry point and the internal call. */
    if (r & 1)
      GOMP_barrier();
    else
      lite_barrier_wait(thr);
    for (unsigned j = 0; j < n; j++) {
      int p = atomic_load_explicit(&d->phase[j].v, memory_order_relaxed);
      if (p != r && p != r + 1)
        atomic_fetch_add(&d->bad, 1);
    }
    if (stopper_stop(&d->stop, r)) {
      r++;
      break;
    }
  }
  if (id == 0)
    atomic_store(&d->played, r - 1);
}

static void phase_fn(void *arg)
{
  struct phase_data *d = arg;
  unsigned n = (unsigned)omp_get_num_threads();
  unsigned id = (unsigned)omp_get_thread_num();
  if (n != d->n || id >= n) {
    atomic_fetch_add(&d->bad, 1);
    return;
  }
  atomic_fetch_add(&d->members, 1);
  phase_rounds(d, id, n);
}

struct barrier_case {
  unsigned n;
  int rounds;
  uint64_t spin_ns;
  uint64_t yield_ns;
  int straggle_every;
  const char *name;
};

#define DEFAULT_BUDGET UINT64_MAX /* keep what the environment gave */
#define LONG_BUDGET 2000000000ull  /* 2 s: never runs out within a round */

static const struct barrier_case barrier_cases[] = {
  {2, 10000, DEFAULT_BUDGET, DEFAULT_BUDGET, 1000, "2 threads, default budgets"},
  {3, 10000, DEFAULT_BUDGET, DEFAULT_BUDGET, 1000, "3 threads, default budgets"},
  {4, 10000, DEFAULT_BUDGET, DEFAULT_BUDGET, 1000, "4 threads, default budgets"},
  {16, 3000, DEFAULT_BUDGET, DEFAULT_BUDGET, 500, "16 threads, default budgets"},
  {64, 300, DEFAULT_BUDGET, DEFAULT_BUDGET, 100, "64 threads, default budgets"},
  {2, 5000, 0, 0, 0, "2 threads, park at once"},
  {3, 3000, 0, 0, 0, "3 threads, park at once"},
  {4, 3000, 0, 0, 0, "4 threads, park at once"},
  {16, 500, 0, 0, 0, "16 threads, park at once"},
  {2, 10000, LONG_BUDGET, LONG_BUDGET, 0, "2 threads, long budgets"},
  {3, 10000, LONG_BUDGET, LONG_BUDGET, 0, "3 threads, long budgets"},
  {4, 10000, LONG_BUDGET, LONG_BUDGET, 0, "4 threads, long budgets"},
  {16, 3000, LONG_BUDGET, LONG_BUDGET, 0, "16 threads, long budgets"},
  {2, 2000, 0, LONG_BUDGET, 0, "2 threads, no spin, long yield"},
  {4, 2000, 20000, 0, 0, "4 threads, short spin, no yield"},
};

static void set_budgets(uint64_t spin_ns, uint64_t yield_ns)
{
  if (spin_ns != DEFAULT_BUDGET)
    lite_env.spin_ns = spin_ns;
  if (yield_ns != DEFAULT_BUDGET)
    lite_env.yield_ns = yield_ns;
}

START_TEST(test_barrier_phases)
{
  reset_icv();
  const struct barrier_case *c = &barrier_cases[_i];
  set_budgets(c->spin_ns, c->yield_ns);
  static struct phase_data d;
  /* Two regions: the second runs on the warm pool, from the epoch the first left. */
  for (int region = 0; region < 2; region++) {
    memset(&d, 0, sizeof d);
    d.n = c->n;
    d.rounds = c->rounds / 2;
    d.straggle_every = c->straggle_every;
    stopper_init(&d.stop);
    GOMP_parallel(phase_fn, &d, c->n, 0);
    int played = atomic_load(&d.played);
    ck_assert_int_ge(played, d.rounds < STOP_EVERY ? d.rounds : STOP_EVERY);
    ck_assert_int_le(played, d.rounds);
    ck_assert_msg(atomic_load(&d.members) == (int)c->n, "%s: %d members ran", c->name,
                  atomic_load(&d.members));
    ck_assert_msg(atomic_load(&d.bad) == 0, "%s: %d phase errors", c->name, atomic_load(&d.bad));
    for (unsigned j = 0; j < c->n; j++)
      ck_assert_int_eq(ld(&d.phase[j].v), played);
  }
}
END_TEST

/* Barriers in regions of changing sizes on one pool: members that sat a region out start the
   next from the right epoch. */
START_TEST(test_barrier_across_sizes)
{
  reset_icv();
  static const unsigned seq[] = {4, 2, 3, 1, 4, 2, 8, 3};
  static struct phase_data d;
  for (int r = 0; r < 80; r++) {
    unsigned n = seq[r % 8];
    memset(&d, 0, sizeof d);
    d.n = n;
    d.rounds = 1 + r % 5;
    stopper_init(&d.stop);
    GOMP_parallel(phase_fn, &d, n, 0);
    ck_assert_int_eq(ld(&d.members), (int)n);
    ck_assert_int_eq(ld(&d.bad), 0);
  }
}
END_TEST

/* A barrier outside any region, and in a team of one, returns at once. */
static void lonely_fn(void *arg)
{
  _Atomic int *count = arg;
  for (int i = 0; i < 1000; i++) {
    GOMP_barrier();
    lite_barrier_wait(lite_self());
  }
  atomic_fetch_add(count, 1);
}

START_TEST(test_barrier_team_of_one)
{
  reset_icv();
  for (int i = 0; i < 1000; i++)
    GOMP_barrier();
  _Atomic int count = 0;
  GOMP_parallel(lonely_fn, &count, 1, 0);
  ck_assert_int_eq(ld(&count), 1);
}
END_TEST

/* Nested teams each have their own barrier: two inner teams of 3 run their rounds independently,
   then meet at the outer barrier. */
struct nested_barrier {
  struct phase_data inner[2];
  struct padded outer_phase[2];
  _Atomic int bad;
};

static void nested_inner_fn(void *arg)
{
  struct phase_data *d = arg;
  phase_fn(d);
}

static void nested_outer_fn(void *arg)
{
  struct nested_barrier *nb = arg;
  unsigned id = (unsigned)omp_get_thread_num();
  if (id >= 2) {
    atomic_fetch_add(&nb->bad, 1);
    return;
  }
  for (int r = 1; r <= 20; r++) {
    struct phase_data *d = &nb->inner[id];
    memset(d, 0, sizeof *d);
    d->n = 3;
    d->rounds = 50;
    stopper_init(&d->stop);
    GOMP_parallel(nested_inner_fn, d, 3, 0);
    if (atomic_load(&d->bad) != 0 || atomic_load(&d->members) != 3)
      atomic_fetch_add(&nb->bad, 1);
    atomic_store(&nb->outer_phase[id].v, r);
    GOMP_barrier();
    for (unsigned j = 0; j < 2; j++) {
      int p = atomic_load(&nb->outer_phase[j].v);
      if (p != r && p != r + 1)
        atomic_fetch_add(&nb->bad, 1);
    }
  }
}

START_TEST(test_barrier_nested)
{
  reset_icv();
  omp_set_max_active_levels(2);
  static struct nested_barrier nb;
  memset(&nb, 0, sizeof nb);
  GOMP_parallel(nested_outer_fn, &nb, 2, 0);
  ck_assert_int_eq(ld(&nb.bad), 0);
}
END_TEST

/* ---------------------------------------------------------------- single */

#define SINGLE_ROUNDS 2000
#define NOWAIT_ROUNDS 20000

struct single_data {
  unsigned n;
  struct stopper stop;
  _Atomic int played;
  _Atomic int winners[SINGLE_ROUNDS];
  _Atomic int nowait_winners[NOWAIT_ROUNDS];
  _Atomic int bad;
};

static void single_fn(void *arg)
{
  struct single_data *d = arg;
  if ((unsigned)omp_get_num_threads() != d->n)
    atomic_fetch_add(&d->bad, 1);
  unsigned id = (unsigned)omp_get_thread_num();
  /* single followed by its implicit barrier: after it, the winner is known to everyone. */
  int r;
  for (r = 0; r < SINGLE_ROUNDS; r++) {
    if (GOMP_single_start())
      atomic_fetch_add(&d->winners[r], 1);
    stopper_check(&d->stop, id, r + 1);
    GOMP_barrier();
    if (atomic_load(&d->winners[r]) != 1)
      atomic_fetch_add(&d->bad, 1);
    if (stopper_stop(&d->stop, r + 1)) {
      r++;
      break;
    }
  }
  if (id == 0)
    atomic_store(&d->played, r);
  /* nowait singles back to back: threads race ahead of each other through many constructs. */
  for (int r = 0; r < NOWAIT_ROUNDS; r++)
    if (GOMP_single_start())
      atomic_fetch_add(&d->nowait_winners[r], 1);
}

static const unsigned single_sizes[] = {2, 3, 4, 16};

START_TEST(test_single_one_winner)
{
  reset_icv();
  unsigned n = single_sizes[_i];
  static struct single_data d;
  for (int region = 0; region < 2; region++) {
    memset(&d, 0, sizeof d);
    d.n = n;
    stopper_init(&d.stop);
    GOMP_parallel(single_fn, &d, n, 0);
    ck_assert_int_eq(ld(&d.bad), 0);
    int played = atomic_load(&d.played);
    ck_assert_int_ge(played, STOP_EVERY);
    for (int r = 0; r < SINGLE_ROUNDS; r++)
      ck_assert_msg(atomic_load(&d.winners[r]) == (r < played), "single %d: %d winners", r,
                    atomic_load(&d.winners[r]));
    for (int r = 0; r < NOWAIT_ROUNDS; r++)
      ck_assert_msg(atomic_load(&d.nowait_winners[r]) == 1, "nowait single %d: %d winners", r,
                    atomic_load(&d.nowait_winners[r]));
  }
}
END_TEST

/* Singles in regions of changing sizes on one pool (the ticket carries across regions), and a
   few regions where only some singles are met before the region ends. */
struct single_seq {
  unsigned n;
  int count;
  _Atomic int winners[16];
  _Atomic int bad;
};

static void single_seq_fn(void *arg)
{
  struct single_seq *d = arg;
  if ((unsigned)omp_get_num_threads() != d->n)
    atomic_fetch_add(&d->bad, 1);
  for (int s = 0; s < d->count; s++)
    if (GOMP_single_start())
      atomic_fetch_add(&d->winners[s], 1);
}

START_TEST(test_single_across_regions)
{
  reset_icv();
  static const unsigned seq[] = {4, 2, 3, 16, 1, 2, 5, 4};
  struct single_seq d;
  for (int r = 0; r < 400; r++) {
    memset(&d, 0, sizeof d);
    d.n = seq[r % 8];
    d.count = r % 7;
    GOMP_parallel(single_seq_fn, &d, d.n, 0);
    ck_assert_int_eq(ld(&d.bad), 0);
    for (int s = 0; s < 16; s++)
      ck_assert_msg(atomic_load(&d.winners[s]) == (s < d.count),
                    "region %d (%u threads): single %d had %d winners", r, d.n, s,
                    atomic_load(&d.winners[s]));
  }
}
END_TEST

/* Outside a region and in a team of one, every single is run by the thread that meets it. */
static void single_alone_fn(void *arg)
{
  _Atomic int *wins = arg;
  for (int i = 0; i < 100; i++)
    if (GOMP_single_start())
      atomic_fetch_add(wins, 1);
}

START_TEST(test_single_alone)
{
  reset_icv();
  for (int i = 0; i < 100; i++)
    ck_assert(GOMP_single_start());
  _Atomic int wins = 0;
  GOMP_parallel(single_alone_fn, &wins, 1, 0);
  ck_assert_int_eq(ld(&wins), 100);
}
END_TEST

/* ---------------------------------------------------------------- copyprivate */

#define COPY_ROUNDS 2000

struct copy_data {
  unsigned n;
  struct stopper stop;
  _Atomic int played;
  _Atomic int winners[COPY_ROUNDS];
  _Atomic int winner_id[COPY_ROUNDS];
  _Atomic int bad;
};

/* What gcc emits for single copyprivate(x): copy_start; the winner runs the block and calls
   copy_end with its data; the others copy out of the pointer they got; then a barrier. */
static void copy_fn(void *arg)
{
  struct copy_data *d = arg;
  int id = omp_get_thread_num();
  int r;
  for (r = 0; r < COPY_ROUNDS; r++) {
    int value; /* the winner's copy-out block lives until the barrier below */
    int got;
    int *p = GOMP_single_copy_start();
    if (p == NULL) {
      atomic_fetch_add(&d->winners[r], 1);
      atomic_store(&d->winner_id[r], id);
      value = r * MAXT + id;
      got = value;
      GOMP_single_copy_end(&value);
    } else {
      got = *p;
    }
    stopper_check(&d->stop, (unsigned)id, r + 1);
    GOMP_barrier();
    if (got / MAXT != r || got % MAXT != atomic_load(&d->winner_id[r]))
      atomic_fetch_add(&d->bad, 1);
    if (stopper_stop(&d->stop, r + 1)) {
      r++;
      break;
    }
  }
  if (id == 0)
    atomic_store(&d->played, r);
}

static const unsigned copy_sizes[] = {2, 3, 4, 16};

START_TEST(test_copyprivate)
{
  reset_icv();
  unsigned n = copy_sizes[_i];
  static struct copy_data d;
  memset(&d, 0, sizeof d);
  d.n = n;
  stopper_init(&d.stop);
  GOMP_parallel(copy_fn, &d, n, 0);
  ck_assert_int_eq(ld(&d.bad), 0);
  int played = atomic_load(&d.played);
  ck_assert_int_ge(played, STOP_EVERY);
  for (int r = 0; r < COPY_ROUNDS; r++)
    ck_assert_msg(atomic_load(&d.winners[r]) == (r < played), "copyprivate %d: %d winners", r,
                  atomic_load(&d.winners[r]));
}
END_TEST

static void copy_alone_fn(void *arg)
{
  _Atomic int *ok = arg;
  int value = 42;
  if (GOMP_single_copy_start() == NULL) {
    GOMP_single_copy_end(&value);
    atomic_fetch_add(ok, 1);
  }
  GOMP_barrier();
}

START_TEST(test_copyprivate_alone)
{
  reset_icv();
  _Atomic int ok = 0;
  copy_alone_fn(&ok);                      /* outside any region */
  GOMP_parallel(copy_alone_fn, &ok, 1, 0); /* team of one */
  ck_assert_int_eq(ld(&ok), 2);
}
END_TEST

/* ---------------------------------------------------------------- cancellable barrier */

#define CANCEL_PARALLEL 1 /* GOMP_cancel's "which" for a parallel region */

/* Without cancellation, GOMP_barrier_cancel is a barrier that returns false. */
struct cancel_phase {
  unsigned n;
  int rounds;
  struct padded phase[MAXT];
  _Atomic int bad;
  _Atomic int members;
};

static void cancel_phase_fn(void *arg)
{
  struct cancel_phase *d = arg;
  unsigned id = (unsigned)omp_get_thread_num();
  atomic_fetch_add(&d->members, 1);
  for (int r = 1; r <= d->rounds; r++) {
    atomic_store_explicit(&d->phase[id].v, r, memory_order_relaxed);
    if (GOMP_barrier_cancel())
      atomic_fetch_add(&d->bad, 1);
    for (unsigned j = 0; j < d->n; j++) {
      int p = atomic_load_explicit(&d->phase[j].v, memory_order_relaxed);
      if (p != r && p != r + 1)
        atomic_fetch_add(&d->bad, 1);
    }
  }
}

static const struct barrier_case cancel_phase_cases[] = {
  {2, 3000, DEFAULT_BUDGET, DEFAULT_BUDGET, 0, "2 threads, default budgets"},
  {4, 1000, DEFAULT_BUDGET, DEFAULT_BUDGET, 0, "4 threads, default budgets"},
  {4, 500, 0, 0, 0, "4 threads, park at once"},
};

static void run_cancel_phases(unsigned n, int rounds)
{
  static struct cancel_phase d;
  memset(&d, 0, sizeof d);
  d.n = n;
  d.rounds = rounds;
  GOMP_parallel(cancel_phase_fn, &d, n, 0);
  ck_assert_int_eq(ld(&d.members), (int)n);
  ck_assert_int_eq(ld(&d.bad), 0);
}

START_TEST(test_barrier_cancel_uncancelled)
{
  reset_icv();
  lite_env.cancellation = true;
  const struct barrier_case *c = &cancel_phase_cases[_i];
  set_budgets(c->spin_ns, c->yield_ns);
  run_cancel_phases(c->n, c->rounds);
}
END_TEST

/* cancel parallel wakes the members parked in a cancellable barrier (and the leader parked in
   its gather, when a member cancels); they all return true. The next regions on the same pool
   have working barriers again. */
struct cancel_data {
  unsigned n;
  unsigned canceller;
  _Atomic int saw_cancel;
  _Atomic int cancel_returned;
  _Atomic int entered; /* members that left the first barrier for the second */
  _Atomic int bad;
};

static void cancel_fn(void *arg)
{
  struct cancel_data *d = arg;
  unsigned id = (unsigned)omp_get_thread_num();
  if (GOMP_barrier_cancel()) /* nothing cancelled yet */
    atomic_fetch_add(&d->bad, 1);
  if (id == d->canceller) {
    /* Let the others reach the second barrier and park there (a bounded wait, no assertion on
       it). A waiter counts as a sleeper until it has run on after its wake-up, so the count is
       read only once everyone has left the first barrier. */
    struct lite_pool *pool = lite_self()->team->pool;
    for (int i = 0; i < 5000 && atomic_load(&d->entered) < (int)d->n - 1; i++)
      sleep_us(1000);
    for (int i = 0; i < 5000; i++) {
      uint32_t parked = atomic_load(&pool->release_sleepers) + atomic_load(&pool->join_sleepers);
      if (parked >= d->n - 1)
        break;
      sleep_us(1000);
    }
    if (GOMP_cancel(CANCEL_PARALLEL, true))
      atomic_fetch_add(&d->cancel_returned, 1);
    return; /* what gcc's code does: on to the end of the region */
  }
  atomic_fetch_add(&d->entered, 1);
  if (GOMP_barrier_cancel()) {
    atomic_fetch_add(&d->saw_cancel, 1);
    if (!GOMP_cancellation_point(CANCEL_PARALLEL))
      atomic_fetch_add(&d->bad, 1);
    return;
  }
  atomic_fetch_add(&d->bad, 1); /* passed a barrier the canceller never reached */
}

struct cancel_case {
  unsigned n;
  unsigned canceller;
  uint64_t spin_ns;
};

static const struct cancel_case cancel_cases[] = {
  {2, 0, 0}, {4, 0, 0}, {4, 2, 0}, {3, 1, DEFAULT_BUDGET}, {4, 0, DEFAULT_BUDGET},
};

START_TEST(test_barrier_cancel_wakes)
{
  reset_icv();
  lite_env.cancellation = true;
  const struct cancel_case *c = &cancel_cases[_i];
  set_budgets(c->spin_ns, c->spin_ns);
  for (int round = 0; round < 5; round++) {
    struct cancel_data d;
    memset(&d, 0, sizeof d);
    d.n = c->n;
    d.canceller = c->canceller;
    GOMP_parallel(cancel_fn, &d, c->n, 0);
    ck_assert_int_eq(ld(&d.bad), 0);
    ck_assert_int_eq(ld(&d.cancel_returned), 1);
    ck_assert_int_eq(ld(&d.saw_cancel), (int)c->n - 1);
    /* The pool is sound after a cancelled region: plain and cancellable barriers work. */
    static struct phase_data pd;
    memset(&pd, 0, sizeof pd);
    pd.n = c->n;
    pd.rounds = 100;
    stopper_init(&pd.stop);
    GOMP_parallel(phase_fn, &pd, c->n, 0);
    ck_assert_int_eq(ld(&pd.members), (int)c->n);
    ck_assert_int_eq(ld(&pd.bad), 0);
    run_cancel_phases(c->n, 100);
  }
  /* Outside any region, and in a team of one, the cancellable barrier returns false at once. */
  ck_assert(!GOMP_barrier_cancel());
}
END_TEST

/* After cancel parallel, the other members may skip or still meet worksharing constructs
   (OpenMP 5.2 allows a worksharing region to be met by only some threads once cancellation is
   requested). A member that meets single copyprivate must not hang in its barriers: they are
   barriers of a cancelled region. This is what gcc emits for

     #pragma omp parallel
     {
       if (omp_get_thread_num() == 0) {
         #pragma omp cancel parallel
       }
       #pragma omp single copyprivate(x)
       x = 42;
     }

   (libgomp 12 deadlocks on this program too; DESIGN §2 asks libomp-lite never to.) */
static void cancel_copy_fn(void *arg)
{
  unsigned canceller = *(unsigned *)arg;
  int x = 0;
  if ((unsigned)omp_get_thread_num() == canceller && GOMP_cancel(CANCEL_PARALLEL, true))
    return;
  int *p = GOMP_single_copy_start();
  if (p == NULL) {
    x = 42;
    GOMP_single_copy_end(&x);
  } else {
    x = *p;
  }
  if (GOMP_barrier_cancel())
    return;
}

START_TEST(test_cancel_then_copyprivate)
{
  reset_icv();
  lite_env.cancellation = true;
  for (unsigned canceller = 0; canceller < 2; canceller++)
    for (int round = 0; round < 10; round++)
      GOMP_parallel(cancel_copy_fn, &canceller, 2, 0);
  /* Reaching this line is the test: a deadlock fails it through the timeout. */
}
END_TEST

/* ---------------------------------------------------------------- wait primitives */

#define WAITERS 4

struct waiter_arg {
  _Atomic uint32_t *word;
  _Atomic uint32_t *sleepers;
  uint32_t value; /* old (wait while) or target (wait until) */
  bool until;
  _Atomic int *done;
  uint32_t seen;  /* the word when the wait returned */
};

static void *waiter_main(void *arg)
{
  struct waiter_arg *a = arg;
  if (a->until)
    lite_wait_until_equal(a->word, a->value, a->sleepers);
  else
    lite_wait_while_equal(a->word, a->value, a->sleepers);
  a->seen = atomic_load(a->word);
  atomic_fetch_add(a->done, 1);
  return NULL;
}

/* Waits (bounded, no assertion on time) until `count` waiters are counted as sleepers. */
static void await_sleepers(_Atomic uint32_t *sleepers, uint32_t count)
{
  for (int i = 0; i < 20000 && atomic_load(sleepers) < count; i++)
    sleep_us(500);
  ck_assert_uint_eq(ld32(sleepers), count);
}

START_TEST(test_wait_while_equal_parked)
{
  lite_env.spin_ns = 0;
  lite_env.yield_ns = 0;
  int parked_before = atomic_load(&lite_threads_parked);
  static _Atomic uint32_t word, sleepers;
  static _Atomic int done;
  atomic_store(&word, 7);
  atomic_store(&sleepers, 0);
  atomic_store(&done, 0);
  pthread_t t[WAITERS];
  struct waiter_arg args[WAITERS];
  for (int i = 0; i < WAITERS; i++) {
    args[i] = (struct waiter_arg){&word, &sleepers, 7, false, &done, 0};
    ck_assert_int_eq(pthread_create(&t[i], NULL, waiter_main, &args[i]), 0);
  }
  await_sleepers(&sleepers, WAITERS);
  ck_assert_int_eq(ld(&done), 0);
  ck_assert_int_eq(ld(&lite_threads_parked), parked_before + WAITERS);
  lite_store_and_wake(&word, 8, &sleepers);
  for (int i = 0; i < WAITERS; i++) {
    pthread_join(t[i], NULL);
    ck_assert_uint_eq(args[i].seen, 8);
  }
  ck_assert_int_eq(ld(&done), WAITERS);
  ck_assert_uint_eq(ld32(&sleepers), 0);
  ck_assert_int_eq(ld(&lite_threads_parked), parked_before);
}
END_TEST

START_TEST(test_wait_until_equal_parked)
{
  lite_env.spin_ns = 0;
  lite_env.yield_ns = 0;
  static _Atomic uint32_t word, sleepers;
  static _Atomic int done;
  atomic_store(&word, 0);
  atomic_store(&sleepers, 0);
  atomic_store(&done, 0);
  pthread_t t[WAITERS];
  struct waiter_arg args[WAITERS];
  for (int i = 0; i < WAITERS; i++) {
    args[i] = (struct waiter_arg){&word, &sleepers, 3, true, &done, 0};
    ck_assert_int_eq(pthread_create(&t[i], NULL, waiter_main, &args[i]), 0);
  }
  await_sleepers(&sleepers, WAITERS);
  /* Values other than the target wake them, and they go back to sleep. */
  lite_store_and_wake(&word, 1, &sleepers);
  lite_store_and_wake(&word, 2, &sleepers);
  sleep_us(2000);
  ck_assert_int_eq(ld(&done), 0);
  lite_store_and_wake(&word, 4, &sleepers);
  ck_assert_int_eq(ld(&done), 0);
  lite_store_and_wake(&word, 3, &sleepers);
  for (int i = 0; i < WAITERS; i++) {
    pthread_join(t[i], NULL);
    ck_assert_uint_eq(args[i].seen, 3);
  }
  ck_assert_int_eq(ld(&done), WAITERS);
  ck_assert_uint_eq(ld32(&sleepers), 0);
}
END_TEST

/* A word that already differs (or already matches) does not wait at all, whatever the budget. */
START_TEST(test_wait_no_wait_needed)
{
  _Atomic uint32_t word = 5, sleepers = 0;
  lite_env.spin_ns = 0;
  lite_env.yield_ns = 0;
  lite_wait_while_equal(&word, 4, &sleepers);
  lite_wait_until_equal(&word, 5, &sleepers);
  lite_env.spin_ns = LONG_BUDGET;
  lite_env.yield_ns = LONG_BUDGET;
  lite_wait_while_equal(&word, 4, &sleepers);
  lite_wait_until_equal(&word, 5, &sleepers);
  /* No sleeper: the store alone. */
  lite_store_and_wake(&word, 9, &sleepers);
  ck_assert_uint_eq(ld32(&word), 9);
  ck_assert_uint_eq(ld32(&sleepers), 0);
}
END_TEST

/* Two threads hand a token back and forth many times; a lost wake-up hangs (and times out).
   Thread 0 decides to stop while it holds the token, so thread 1 sees the decision on its turn
   of the same round. */
struct pingpong {
  _Atomic uint32_t turn;
  _Atomic uint32_t sleepers;
  int rounds;
  bool use_while;
  struct stopper stop;
  int played;
};

static void pingpong_play(struct pingpong *p, uint32_t parity)
{
  int r;
  for (r = 0; r < p->rounds; r++) {
    uint32_t mine = 2 * (uint32_t)r + parity;
    if (p->use_while) {
      /* Wait while the word is still the one before our turn. */
      if (mine > 0)
        lite_wait_while_equal(&p->turn, mine - 1, &p->sleepers);
    } else {
      lite_wait_until_equal(&p->turn, mine, &p->sleepers);
    }
    stopper_check(&p->stop, parity, r + 1);
    bool stop = stopper_stop(&p->stop, r + 1);
    lite_store_and_wake(&p->turn, mine + 1, &p->sleepers);
    if (stop) {
      r++;
      break;
    }
  }
  if (parity == 0)
    p->played = r;
}

static void *pingpong_main(void *arg)
{
  pingpong_play(arg, 1);
  return NULL;
}

struct pingpong_case {
  uint64_t spin_ns;
  uint64_t yield_ns;
  bool use_while;
  int rounds;
};

static const struct pingpong_case pingpong_cases[] = {
  {0, 0, false, 5000},
  {0, 0, true, 5000},
  {DEFAULT_BUDGET, DEFAULT_BUDGET, false, 20000},
  {DEFAULT_BUDGET, DEFAULT_BUDGET, true, 20000},
  {5000, 5000, false, 10000},
};

START_TEST(test_pingpong)
{
  const struct pingpong_case *c = &pingpong_cases[_i];
  set_budgets(c->spin_ns, c->yield_ns);
  static struct pingpong p;
  atomic_store(&p.turn, 0);
  atomic_store(&p.sleepers, 0);
  p.rounds = c->rounds;
  p.use_while = c->use_while;
  stopper_init(&p.stop);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, pingpong_main, &p), 0);
  pingpong_play(&p, 0);
  pthread_join(t, NULL);
  ck_assert_int_ge(p.played, STOP_EVERY);
  ck_assert_uint_eq(ld32(&p.turn), 2 * (uint32_t)p.played);
  ck_assert_uint_eq(ld32(&p.sleepers), 0);
}
END_TEST

/* lite_waiter_poll: false at once when both budgets are 0; true for a while, then false, once the
   spin (or yield) budget is spent; the mode follows the number of awake runtime threads. */
static uint64_t poll_until_false(struct lite_waiter *w, unsigned long long cap, bool *ran_out)
{
  unsigned long long i = 0;
  while (i < cap && lite_waiter_poll(w))
    i++;
  *ran_out = i < cap;
  return i;
}

START_TEST(test_waiter_budget)
{
  (void)lite_self();
  struct lite_waiter w;
  bool ran_out;

  /* Park at once. */
  lite_env.spin_ns = 0;
  lite_env.yield_ns = 0;
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_PARK);
  ck_assert(!lite_waiter_poll(&w));

  /* Spin while the runtime's threads fit the CPUs, for at least spin_ns. */
  lite_env.ncpus = 64;
  lite_env.spin_ns = 200000;
  lite_env.yield_ns = 0;
  uint64_t t0 = lite_now_ns(); /* before init: the budget may start there */
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_SPIN);
  unsigned long long polls = poll_until_false(&w, 1ull << 34, &ran_out);
  uint64_t elapsed = lite_now_ns() - t0;
  ck_assert_msg(ran_out, "the spin budget never ran out");
  ck_assert_uint_ge(polls, 63); /* the clock is not read before 64 polls */
  ck_assert_uint_ge(elapsed, lite_env.spin_ns);

  /* More awake threads than CPUs: yield, for at least yield_ns (foreign load, which would end
     the wait early, is not looked for: test_waiter_foreign_load covers it). */
  lite_env.load_watch = false;
  lite_env.ncpus = 1;
  lite_env.spin_ns = LONG_BUDGET;
  lite_env.yield_ns = 300000;
  atomic_fetch_add(&lite_threads_live, 4);
  t0 = lite_now_ns();
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_YIELD);
  polls = poll_until_false(&w, 1ull << 34, &ran_out);
  elapsed = lite_now_ns() - t0;
  ck_assert_msg(ran_out, "the yield budget never ran out");
  ck_assert_uint_ge(elapsed, lite_env.yield_ns);

  /* Threads parked meanwhile count as asleep: back to spinning. */
  atomic_fetch_add(&lite_threads_parked, 4);
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_SPIN);
  atomic_fetch_sub(&lite_threads_parked, 4);

  /* A spinning waiter re-decides as threads wake: spin, then yield. */
  lite_env.ncpus = 64;
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_SPIN);
  lite_env.ncpus = 1;
  lite_env.yield_ns = LONG_BUDGET;
  for (int i = 0; i < 64; i++)
    ck_assert(lite_waiter_poll(&w)); /* a 2 s budget does not run out in 64 polls */
  ck_assert_int_eq(w.mode, LITE_WAIT_YIELD);
  atomic_fetch_sub(&lite_threads_live, 4);
}
END_TEST

/* The load watch reads the kernel's counts through lite_load_counts; by default the readers of
   os.h, which count the calling thread at least, whatever else the machine runs. */
START_TEST(test_load_counts_read_the_kernel)
{
  ck_assert(lite_load_counts.runnable_tasks == lite_os_runnable_tasks);
  ck_assert(lite_load_counts.runnable_threads_of_process == lite_os_runnable_threads_of_process);
  ck_assert_int_ge(lite_os_runnable_tasks(), 1);
  ck_assert_int_ge(lite_os_runnable_threads_of_process(), 1);
}
END_TEST

/* The counts the load watch is given in the test below, instead of the machine's: 1,000 busy
   threads of another process, or make -j's other tests, must not change its answers. */
static _Atomic int given_runnable_tasks;
static _Atomic int given_runnable_ours;
static int runnable_tasks_given(void) { return atomic_load(&given_runnable_tasks); }
static int runnable_ours_given(void) { return atomic_load(&given_runnable_ours); }

/* The kernel as the load watch will see it: our awake threads all runnable, `foreign` tasks of
   other processes on our CPU, and one on each online CPU this process does not use (where the
   watch assumes foreign load spreads). */
static void give_load(int foreign)
{
  int unused_cpus = (int)lite_os_online_cpus() - (int)lite_env.ncpus;
  int awake = lite_threads_awake();
  atomic_store(&given_runnable_ours, awake);
  atomic_store(&given_runnable_tasks, awake + (unused_cpus > 0 ? unused_cpus : 0) + foreign);
  lite_load_counts.runnable_tasks = runnable_tasks_given;
  lite_load_counts.runnable_threads_of_process = runnable_ours_given;
}

static void sleep_ms(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0)
    ;
}

/* A yielding waiter parks at once while other processes keep more tasks runnable than there are
   CPUs beyond the runtime's threads (two foreign tasks: the fewest that count), seen at two load
   checks in a row (at least LOAD_CHECK_NS, 10 ms, apart), and only then; the state ends when the
   load does. */
START_TEST(test_waiter_foreign_load)
{
  (void)lite_self();
  lite_env.ncpus = 1;
  lite_env.spin_ns = LONG_BUDGET;
  lite_env.yield_ns = LONG_BUDGET;
  atomic_fetch_add(&lite_threads_live, 4); /* more awake than CPUs: the waiters yield */
  give_load(2);

  /* Not looked for: the waiter yields (a 2 s budget does not run out in 16 polls). */
  struct lite_waiter w;
  bool ran_out;
  lite_env.load_watch = false;
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_YIELD);
  unsigned long long polls = poll_until_false(&w, 16, &ran_out);
  ck_assert_msg(!ran_out, "a yielding waiter gave up after %llu polls", polls);

  /* Looked for: one check sees the load, the next one starts the state, and the next waiter
     parks at once too. */
  lite_env.load_watch = true;
  lite_waiter_init(&w);
  ck_assert_int_eq(w.mode, LITE_WAIT_YIELD);
  ck_assert(lite_waiter_poll(&w));
  sleep_ms(11);
  ck_assert(!lite_waiter_poll(&w));
  lite_waiter_init(&w);
  ck_assert(!lite_waiter_poll(&w));

  /* The load ends: once the state has run out (20 ms after its last check), waiters yield. */
  give_load(0);
  sleep_ms(11);
  lite_waiter_init(&w);
  (void)lite_waiter_poll(&w); /* a check that does not renew the state */
  sleep_ms(25);
  lite_waiter_init(&w);
  ck_assert(lite_waiter_poll(&w));

  /* One foreign task is not overload (the preemption check handles a busy process). */
  give_load(1);
  sleep_ms(11);
  lite_waiter_init(&w);
  ck_assert(lite_waiter_poll(&w));
  sleep_ms(11);
  ck_assert(lite_waiter_poll(&w));
  lite_waiter_init(&w);
  ck_assert(lite_waiter_poll(&w));
  atomic_fetch_sub(&lite_threads_live, 4);
}
END_TEST

/* ---------------------------------------------------------------- the suite */

static Suite *barrier_suite(void)
{
  Suite *s = suite_create("barrier");

  TCase *tc = tcase_create("barrier");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_barrier_phases, 0,
                      (int)(sizeof barrier_cases / sizeof barrier_cases[0]));
  tcase_add_test(tc, test_barrier_across_sizes);
  tcase_add_test(tc, test_barrier_team_of_one);
  tcase_add_test(tc, test_barrier_nested);
  suite_add_tcase(s, tc);

  tc = tcase_create("single");
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_single_one_winner, 0,
                      (int)(sizeof single_sizes / sizeof single_sizes[0]));
  tcase_add_test(tc, test_single_across_regions);
  tcase_add_test(tc, test_single_alone);
  tcase_add_loop_test(tc, test_copyprivate, 0, (int)(sizeof copy_sizes / sizeof copy_sizes[0]));
  tcase_add_test(tc, test_copyprivate_alone);
  suite_add_tcase(s, tc);

  tc = tcase_create("cancel");
  tcase_set_timeout(tc, 10);
  tcase_add_loop_test(tc, test_barrier_cancel_uncancelled, 0,
                      (int)(sizeof cancel_phase_cases / sizeof cancel_phase_cases[0]));
  tcase_add_loop_test(tc, test_barrier_cancel_wakes, 0,
                      (int)(sizeof cancel_cases / sizeof cancel_cases[0]));
  suite_add_tcase(s, tc);

  /* Its own case with a short timeout: a deadlock here must not cost the file much time. */
  tc = tcase_create("cancel_copyprivate");
  tcase_set_timeout(tc, 3);
  tcase_add_test(tc, test_cancel_then_copyprivate);
  suite_add_tcase(s, tc);

  tc = tcase_create("wait");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_wait_while_equal_parked);
  tcase_add_test(tc, test_wait_until_equal_parked);
  tcase_add_test(tc, test_wait_no_wait_needed);
  tcase_add_loop_test(tc, test_pingpong, 0,
                      (int)(sizeof pingpong_cases / sizeof pingpong_cases[0]));
  tcase_add_test(tc, test_waiter_budget);
  tcase_add_test(tc, test_load_counts_read_the_kernel);
  tcase_add_test(tc, test_waiter_foreign_load);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(barrier_suite());
  /* Each test in its own process whatever CK_FORK says: the tests change globals and count
     threads from a fresh start, and the timeouts that catch a deadlock need fork mode. */
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
