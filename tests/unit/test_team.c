/* Unit tests of team.c, parallel.c, team_api.c and init.c: the warm pools (fork and join at many
   team sizes, stable slots, reuse, shrink and grow), nesting and the team queries at every level,
   GOMP_parallel_start/end, several root threads at once, the team size rules, pool shutdown by
   omp_pause_resource, a worker that cannot be started, OMP_NUM_THREADS lists across levels, and
   fork() and exit() in a process that used a pool.

   Regions are started the way gcc's code does it: GOMP_parallel(fn, data, n, 0) with an outlined
   fn. Worker threads never call ck_assert: they count what they saw, and the test thread checks.
   Every test runs in its own process (Check's fork mode), so changing a global ICV or a wait
   budget in one test does not leak into the next. No assertion depends on timing. */
#include "internal.h"

#include <check.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <time.h>
#include <unistd.h>

#define MAXT 64

/* Atomic loads as functions, so that a failed assertion prints the call, not its expansion. */
static int ld(_Atomic int *p) { return atomic_load(p); }

/* ---------------------------------------------------------------- helpers */

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

/* The distinct OS threads that ran a team member, across regions. */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t seen[1024];
static int nseen;

static void note_thread(pthread_t t)
{
  pthread_mutex_lock(&seen_lock);
  int i = 0;
  while (i < nseen && !pthread_equal(seen[i], t))
    i++;
  if (i == nseen && nseen < 1024)
    seen[nseen++] = t;
  pthread_mutex_unlock(&seen_lock);
}

static int seen_count(void)
{
  pthread_mutex_lock(&seen_lock);
  int n = nseen;
  pthread_mutex_unlock(&seen_lock);
  return n;
}

/* One region's record: each member counts itself in runs[id] and notes its OS thread. */
struct members {
  unsigned expect; /* team size every member must see */
  _Atomic int runs[MAXT];
  _Atomic int bad; /* a member saw the wrong size, an id out of range, or the wrong level */
  pthread_t who[MAXT];
};

static void members_fn(void *arg)
{
  struct members *m = arg;
  int n = omp_get_num_threads();
  int id = omp_get_thread_num();
  if (n != (int)m->expect || id < 0 || id >= n || id >= MAXT) {
    atomic_fetch_add(&m->bad, 1);
    return;
  }
  if (omp_get_level() != 1 || omp_get_active_level() != (n > 1) || omp_in_parallel() != (n > 1))
    atomic_fetch_add(&m->bad, 1);
  atomic_fetch_add(&m->runs[id], 1);
  m->who[id] = pthread_self();
  note_thread(pthread_self());
}

/* Every member 0..n-1 ran exactly once, nobody else ran, and member 0 is the calling thread. */
static void check_members(struct members *m, unsigned n)
{
  ck_assert_int_eq(ld(&m->bad), 0);
  for (unsigned i = 0; i < MAXT; i++)
    ck_assert_msg(atomic_load(&m->runs[i]) == (i < n ? 1 : 0),
                  "team of %u: member %u ran %d times", n, i, atomic_load(&m->runs[i]));
  ck_assert(pthread_equal(m->who[0], pthread_self()));
}

static void run_region(struct members *m, unsigned n)
{
  memset(m, 0, sizeof *m);
  m->expect = n;
  GOMP_parallel(members_fn, m, n, 0);
  check_members(m, n);
}

/* Outside any region the calling thread is the initial thread's implicit task. */
static void check_outside(void)
{
  ck_assert_int_eq(omp_get_num_threads(), 1);
  ck_assert_int_eq(omp_get_thread_num(), 0);
  ck_assert_int_eq(omp_get_level(), 0);
  ck_assert_int_eq(omp_get_active_level(), 0);
  ck_assert_int_eq(omp_in_parallel(), 0);
  ck_assert_int_eq(omp_get_ancestor_thread_num(0), 0);
  ck_assert_int_eq(omp_get_team_size(0), 1);
  ck_assert_int_eq(omp_get_ancestor_thread_num(1), -1);
  ck_assert_int_eq(omp_get_team_size(1), -1);
}

/* ---------------------------------------------------------------- fork and join */

static const unsigned sizes[] = {1, 2, 3, 4, 8, 16};

START_TEST(test_fork_join_sizes)
{
  reset_icv();
  unsigned n = sizes[_i];
  struct members m;
  for (int r = 0; r < 50; r++) {
    run_region(&m, n);
    check_outside();
  }
}
END_TEST

/* Thread k of every region is the same OS thread: slots are stable. */
START_TEST(test_stable_slots)
{
  reset_icv();
  struct members m;
  pthread_t owner[MAXT];
  run_region(&m, 8);
  memcpy(owner, m.who, sizeof owner);
  for (unsigned i = 0; i < 8; i++)
    for (unsigned j = i + 1; j < 8; j++)
      ck_assert(!pthread_equal(owner[i], owner[j]));
  for (int r = 0; r < 300; r++) {
    run_region(&m, 8);
    for (unsigned k = 0; k < 8; k++)
      ck_assert_msg(pthread_equal(m.who[k], owner[k]), "region %d: slot %u moved thread", r, k);
  }
}
END_TEST

/* After warm-up no thread is created: the same 8 OS threads run everything, and the runtime's
   count of live threads stays put. */
START_TEST(test_pool_reused)
{
  reset_icv();
  struct members m;
  run_region(&m, 8);
  int live = atomic_load(&lite_threads_live);
  ck_assert_int_eq(seen_count(), 8);
  static const unsigned seq[] = {8, 4, 2, 8, 1, 5, 7};
  for (int r = 0; r < 700; r++) {
    run_region(&m, seq[r % 7]);
    ck_assert_int_eq(ld(&lite_threads_live), live);
  }
  ck_assert_int_eq(seen_count(), 8);
}
END_TEST

/* Team size shrinks and grows between regions; the new slots keep their owners too, members
   outside the team never run, and barriers and singles inside see the right team. */
struct shrink_data {
  struct members m;
  _Atomic int singles;
  _Atomic int after_barrier;
};

static void shrink_fn(void *arg)
{
  struct shrink_data *d = arg;
  members_fn(&d->m);
  GOMP_barrier();
  /* Every member has counted itself by now. */
  int sum = 0;
  for (unsigned i = 0; i < d->m.expect; i++)
    sum += atomic_load(&d->m.runs[i]);
  if (sum != (int)d->m.expect)
    atomic_fetch_add(&d->m.bad, 1);
  for (int s = 0; s < 3; s++)
    if (GOMP_single_start())
      atomic_fetch_add(&d->singles, 1);
  GOMP_barrier();
  atomic_fetch_add(&d->after_barrier, 1);
}

START_TEST(test_shrink_grow)
{
  reset_icv();
  static const unsigned seq[] = {2, 8, 3, 16, 1, 5, 16, 2, 4, 1, 9};
  const unsigned nseq = sizeof seq / sizeof seq[0];
  pthread_t owner[MAXT];
  bool owned[MAXT] = {false};
  struct shrink_data d;
  for (unsigned r = 0; r < 40 * nseq; r++) {
    unsigned n = seq[r % nseq];
    memset(&d, 0, sizeof d);
    d.m.expect = n;
    GOMP_parallel(shrink_fn, &d, n, 0);
    check_members(&d.m, n);
    ck_assert_int_eq(ld(&d.singles), 3);
    ck_assert_int_eq(ld(&d.after_barrier), (int)n);
    for (unsigned k = 0; k < n; k++) {
      if (!owned[k]) {
        owner[k] = d.m.who[k];
        owned[k] = true;
      }
      ck_assert_msg(pthread_equal(d.m.who[k], owner[k]), "region %u: slot %u moved", r, k);
    }
  }
  ck_assert_int_eq(seen_count(), 16);
}
END_TEST

/* ---------------------------------------------------------------- nesting and the queries */

struct nest {
  unsigned req[3];    /* num_threads asked at levels 1, 2, 3 */
  unsigned size[3];   /* team sizes expected */
  _Atomic int runs[8][8][8];
  _Atomic int bad;
  char why[160];      /* the first failure, for the message */
};

struct nest_ctx {
  struct nest *nest;
  int ids[3];
};

static void nest_fail(struct nest *n, const char *what, int level, int got, int want)
{
  if (atomic_fetch_add(&n->bad, 1) == 0)
    snprintf(n->why, sizeof n->why, "%s at level %d: got %d, want %d", what, level, got, want);
}

#define NEST_EXPECT(n, what, level, got, want)                                                  \
  do {                                                                                          \
    int got_ = (got), want_ = (want);                                                           \
    if (got_ != want_)                                                                          \
      nest_fail(n, what, level, got_, want_);                                                   \
  } while (0)

/* The answers every query must give in a member at nesting `level` (1..3) with ancestors ids. */
static void nest_check(struct nest *n, int level, const int *ids)
{
  int active = 0;
  for (int l = 0; l < level; l++)
    active += n->size[l] > 1;
  NEST_EXPECT(n, "omp_get_level", level, omp_get_level(), level);
  NEST_EXPECT(n, "omp_get_active_level", level, omp_get_active_level(), active);
  NEST_EXPECT(n, "omp_in_parallel", level, omp_in_parallel(), active > 0);
  NEST_EXPECT(n, "omp_get_num_threads", level, omp_get_num_threads(), (int)n->size[level - 1]);
  NEST_EXPECT(n, "omp_get_thread_num", level, omp_get_thread_num(), ids[level - 1]);
  NEST_EXPECT(n, "ancestor(0)", level, omp_get_ancestor_thread_num(0), 0);
  NEST_EXPECT(n, "team_size(0)", level, omp_get_team_size(0), 1);
  for (int l = 1; l <= level; l++) {
    NEST_EXPECT(n, "ancestor(l)", l, omp_get_ancestor_thread_num(l), ids[l - 1]);
    NEST_EXPECT(n, "team_size(l)", l, omp_get_team_size(l), (int)n->size[l - 1]);
  }
  NEST_EXPECT(n, "ancestor(level+1)", level, omp_get_ancestor_thread_num(level + 1), -1);
  NEST_EXPECT(n, "team_size(level+1)", level, omp_get_team_size(level + 1), -1);
  NEST_EXPECT(n, "ancestor(-1)", level, omp_get_ancestor_thread_num(-1), -1);
  NEST_EXPECT(n, "team_size(-1)", level, omp_get_team_size(-1), -1);
}

static void nest_level3(void *arg)
{
  struct nest_ctx *up = arg;
  struct nest_ctx me = *up;
  me.ids[2] = omp_get_thread_num();
  nest_check(me.nest, 3, me.ids);
  if (me.ids[2] >= 0 && me.ids[2] < 8)
    atomic_fetch_add(&me.nest->runs[me.ids[0]][me.ids[1]][me.ids[2]], 1);
}

static void nest_level2(void *arg)
{
  struct nest_ctx *up = arg;
  struct nest_ctx me = *up;
  me.ids[1] = omp_get_thread_num();
  if (me.ids[1] < 0 || me.ids[1] >= 8) {
    nest_fail(me.nest, "thread number", 2, me.ids[1], 0);
    return;
  }
  nest_check(me.nest, 2, me.ids);
  GOMP_barrier();
  GOMP_parallel(nest_level3, &me, me.nest->req[2], 0);
  /* Back from the inner region: the level-2 answers again. */
  nest_check(me.nest, 2, me.ids);
}

static void nest_level1(void *arg)
{
  struct nest_ctx me = {arg, {0, 0, 0}};
  me.ids[0] = omp_get_thread_num();
  if (me.ids[0] < 0 || me.ids[0] >= 8) {
    nest_fail(me.nest, "thread number", 1, me.ids[0], 0);
    return;
  }
  nest_check(me.nest, 1, me.ids);
  GOMP_parallel(nest_level2, &me, me.nest->req[1], 0);
  nest_check(me.nest, 1, me.ids);
}

struct nest_case {
  int max_active_levels;
  unsigned req[3];
  unsigned size[3];
};

static const struct nest_case nest_cases[] = {
  {3, {2, 3, 2}, {2, 3, 2}}, /* all active */
  {1, {2, 3, 2}, {2, 1, 1}}, /* inner ones serialised */
  {2, {2, 2, 2}, {2, 2, 1}}, /* third level over the limit */
  {2, {1, 2, 2}, {1, 2, 2}}, /* an if(0)-like team of one does not use up an active level */
  {0, {2, 2, 2}, {1, 1, 1}}, /* no active level at all */
  {1, {1, 1, 3}, {1, 1, 3}}, /* two inactive levels, then an active one */
  {2, {3, 1, 2}, {3, 1, 2}}, /* inactive level between two active ones */
};

START_TEST(test_nested)
{
  reset_icv();
  const struct nest_case *c = &nest_cases[_i];
  omp_set_max_active_levels(c->max_active_levels);
  static struct nest n;
  int live = 0;
  for (int r = 0; r < 20; r++) {
    memset(&n, 0, sizeof n);
    memcpy(n.req, c->req, sizeof n.req);
    memcpy(n.size, c->size, sizeof n.size);
    GOMP_parallel(nest_level1, &n, c->req[0], 0);
    ck_assert_msg(atomic_load(&n.bad) == 0, "case %d, round %d: %s", _i, r, n.why);
    for (unsigned a = 0; a < 8; a++)
      for (unsigned b = 0; b < 8; b++)
        for (unsigned k = 0; k < 8; k++) {
          int want = a < c->size[0] && b < c->size[1] && k < c->size[2];
          ck_assert_msg(atomic_load(&n.runs[a][b][k]) == want, "case %d: member %u.%u.%u ran %d",
                        _i, a, b, k, atomic_load(&n.runs[a][b][k]));
        }
    check_outside();
    /* The nested pools are warm after the first round: no thread is created afterwards. */
    if (r == 0)
      live = atomic_load(&lite_threads_live);
    else
      ck_assert_int_eq(ld(&lite_threads_live), live);
  }
  ck_assert_int_eq(omp_get_max_active_levels(), c->max_active_levels);
}
END_TEST

/* Inside a region the ICV change of one member does not leak to the encountering thread. */
static void set_levels_fn(void *arg)
{
  (void)arg;
  omp_set_max_active_levels(7);
}

START_TEST(test_icv_restored_after_region)
{
  reset_icv();
  omp_set_max_active_levels(2);
  GOMP_parallel(set_levels_fn, NULL, 4, 0);
  ck_assert_int_eq(omp_get_max_active_levels(), 2);
  GOMP_parallel(set_levels_fn, NULL, 1, 0);
  ck_assert_int_eq(omp_get_max_active_levels(), 2);
}
END_TEST

/* ---------------------------------------------------------------- GOMP_parallel_start/end */

static void start_end_inner(void *arg)
{
  struct members *m = arg;
  /* Nested, with max-active-levels 1: a team of one that lives between start and end. */
  struct members inner;
  memset(&inner, 0, sizeof inner);
  inner.expect = 1;
  GOMP_parallel_start(members_fn, &inner, 4);
  if (omp_get_level() != 2 || omp_get_active_level() != 1 || omp_get_team_size(2) != 1)
    atomic_fetch_add(&m->bad, 1);
  /* members_fn also checks level 1, which is wrong here: count the run only. */
  if (omp_get_num_threads() == 1 && omp_get_thread_num() == 0)
    atomic_fetch_add(&inner.runs[0], 1);
  GOMP_parallel_end();
  if (atomic_load(&inner.runs[0]) != 1 || omp_get_level() != 1)
    atomic_fetch_add(&m->bad, 1);
  members_fn(m);
}

START_TEST(test_parallel_start_end)
{
  reset_icv();
  struct members m;
  for (int r = 0; r < 50; r++) {
    for (unsigned n = 1; n <= 4; n++) {
      memset(&m, 0, sizeof m);
      m.expect = n;
      GOMP_parallel_start(members_fn, &m, n);
      members_fn(&m);
      GOMP_parallel_end();
      check_members(&m, n);
      check_outside();
    }
    memset(&m, 0, sizeof m);
    m.expect = 3;
    GOMP_parallel_start(start_end_inner, &m, 3);
    start_end_inner(&m);
    GOMP_parallel_end();
    check_members(&m, 3);
  }
  /* Mixed with GOMP_parallel on the same pool. */
  run_region(&m, 3);
  ck_assert_int_eq(seen_count(), 4);
}
END_TEST

/* ---------------------------------------------------------------- several root threads */

#define ROOTS 4
#define ROOT_REGIONS 300

struct root {
  pthread_t owner[MAXT];
  int failures;
  char why[120];
};

static void root_fn(void *arg)
{
  struct shrink_data *d = arg;
  shrink_fn(d);
}

/* The roots wait for each other before leaving: a root that exits takes its workers with it, and
   their pthread_t values could then be reused by another root's workers. */
static pthread_barrier_t roots_done;

static void *root_main(void *arg)
{
  struct root *root = arg;
  struct shrink_data d;
  reset_icv();
  for (int r = 0; r < ROOT_REGIONS; r++) {
    unsigned n = 2 + r % 2;
    memset(&d, 0, sizeof d);
    d.m.expect = n;
    GOMP_parallel(root_fn, &d, n, 0);
    bool ok = atomic_load(&d.m.bad) == 0 && atomic_load(&d.singles) == 3 &&
              atomic_load(&d.after_barrier) == (int)n && pthread_equal(d.m.who[0], pthread_self());
    for (unsigned k = 0; k < MAXT; k++)
      ok = ok && atomic_load(&d.m.runs[k]) == (k < n ? 1 : 0);
    for (unsigned k = 1; k < n && ok; k++) {
      if (r < 2)
        root->owner[k] = d.m.who[k];
      ok = pthread_equal(root->owner[k], d.m.who[k]);
    }
    if (!ok && root->failures++ == 0)
      snprintf(root->why, sizeof root->why, "region %d of %u threads went wrong", r, n);
  }
  pthread_barrier_wait(&roots_done);
  return NULL;
}

START_TEST(test_concurrent_roots)
{
  reset_icv();
  (void)lite_self();
  int live = atomic_load(&lite_threads_live);
  pthread_t t[ROOTS];
  static struct root roots[ROOTS];
  memset(roots, 0, sizeof roots);
  pthread_barrier_init(&roots_done, NULL, ROOTS);
  for (int i = 0; i < ROOTS; i++)
    ck_assert_int_eq(pthread_create(&t[i], NULL, root_main, &roots[i]), 0);
  /* The test thread runs regions of its own meanwhile. */
  struct members m;
  for (int r = 0; r < 100; r++)
    run_region(&m, 2);
  for (int i = 0; i < ROOTS; i++)
    ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  for (int i = 0; i < ROOTS; i++)
    ck_assert_msg(roots[i].failures == 0, "root %d: %s", i, roots[i].why);
  /* Each root has its own workers. */
  for (int i = 0; i < ROOTS; i++)
    for (int j = i + 1; j < ROOTS; j++)
      for (int a = 1; a < 3; a++)
        for (int b = 1; b < 3; b++)
          ck_assert(!pthread_equal(roots[i].owner[a], roots[j].owner[b]));
  /* The roots' pools went away with them; the test thread keeps its one worker. */
  ck_assert_int_eq(ld(&lite_threads_live), live + 1);
}
END_TEST

/* ---------------------------------------------------------------- team size rules */

struct capture {
  int saved_fd;
  FILE *file;
};

static void capture_begin(struct capture *c)
{
  fflush(stderr);
  c->file = tmpfile();
  ck_assert_ptr_nonnull(c->file);
  c->saved_fd = dup(STDERR_FILENO);
  dup2(fileno(c->file), STDERR_FILENO);
}

static char *capture_end(struct capture *c)
{
  fflush(stderr);
  dup2(c->saved_fd, STDERR_FILENO);
  close(c->saved_fd);
  long size = ftell(c->file);
  char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
  rewind(c->file);
  size_t got = size > 0 ? fread(text, 1, (size_t)size, c->file) : 0;
  text[got] = '\0';
  fclose(c->file);
  return text;
}

START_TEST(test_team_size_rules)
{
  reset_icv();
  struct lite_thread *thr = lite_self();
  thr->icv.nthreads = 5;
  ck_assert_uint_eq(lite_team_size_for(thr, 0), 5); /* nthreads-var */
  ck_assert_uint_eq(lite_team_size_for(thr, 3), 3); /* the clause wins */
  ck_assert_uint_eq(lite_team_size_for(thr, 1), 1);
  ck_assert_uint_eq(lite_team_size_for(thr, 64), 64); /* above the CPUs, dyn-var false: kept */

  /* max-active-levels-var 0: every region is a team of one. */
  thr->icv.max_active_levels = 0;
  ck_assert_uint_eq(lite_team_size_for(thr, 4), 1);
  ck_assert_uint_eq(lite_team_size_for(thr, 0), 1);
  thr->icv.max_active_levels = 1;

  /* dyn-var true caps the team at the CPUs the process may use (and, with the load watch on,
     at those other processes leave free: off here, test_dynamic_team_leaves_busy_cpus has it). */
  bool watch = lite_env.load_watch;
  lite_env.load_watch = false;
  lite_env.ncpus = 3;
  thr->icv.dynamic = true;
  ck_assert_uint_eq(lite_team_size_for(thr, 8), 3);
  ck_assert_uint_eq(lite_team_size_for(thr, 0), 3);
  ck_assert_uint_eq(lite_team_size_for(thr, 2), 2);
  thr->icv.dynamic = false;
  lite_env.load_watch = watch;
  ck_assert_uint_eq(lite_team_size_for(thr, 8), 8);

  /* thread-limit-var: at most that many threads in the contention group. */
  thr->icv.thread_limit = 3;
  ck_assert_uint_eq(lite_team_size_for(thr, 8), 3);
  ck_assert_uint_eq(lite_team_size_for(thr, 2), 2);
  thr->icv.thread_limit = UINT_MAX;

  /* A huge request is clamped, with one warning. */
  struct capture c;
  capture_begin(&c);
  unsigned huge = lite_team_size_for(thr, 100000);
  thr->icv.nthreads = 1000000;
  unsigned huge_icv = lite_team_size_for(thr, 0);
  char *text = capture_end(&c);
  ck_assert_uint_eq(huge, LITE_MAX_TEAM_THREADS);
  ck_assert_uint_eq(huge_icv, LITE_MAX_TEAM_THREADS);
  ck_assert_msg(strstr(text, "100000") != NULL && strstr(text, "4096") != NULL,
                "warning was: '%s'", text);
  free(text);
  ck_assert_uint_eq(lite_team_size_for(thr, LITE_MAX_TEAM_THREADS), LITE_MAX_TEAM_THREADS);
}
END_TEST

/* The kernel's count of runnable tasks as the load watch is given it below: our awake threads,
   one task on each online CPU this process does not use, and `foreign` more; not the machine's,
   which holds whatever else runs there. */
static _Atomic int given_runnable_tasks;
static int runnable_tasks_given(void) { return atomic_load(&given_runnable_tasks); }

static void give_load(int foreign)
{
  int unused_cpus = (int)lite_os_online_cpus() - (int)lite_env.ncpus;
  atomic_store(&given_runnable_tasks,
               lite_threads_awake() + (unused_cpus > 0 ? unused_cpus : 0) + foreign);
  lite_load_counts.runnable_tasks = runnable_tasks_given;
}

/* dyn-var true with the load watch on: the team gets the CPUs other processes leave free. */
START_TEST(test_dynamic_team_leaves_busy_cpus)
{
  reset_icv();
  struct lite_thread *thr = lite_self();
  thr->icv.nthreads = 5;
  thr->icv.dynamic = true;
  lite_env.load_watch = true;
  lite_env.ncpus = 3;
  give_load(1); /* another process keeps one of the 3 CPUs */
  ck_assert_uint_eq(lite_team_size_for(thr, 8), 2);
  ck_assert_uint_eq(lite_team_size_for(thr, 0), 2);
  ck_assert_uint_eq(lite_team_size_for(thr, 1), 1);
  thr->icv.dynamic = false;
  ck_assert_uint_eq(lite_team_size_for(thr, 8), 8);
}
END_TEST

/* The rules inside regions: an active team uses up one active level, a team of one does not. */
struct size_probe {
  unsigned inner[MAXT];
};

static void size_probe_fn(void *arg)
{
  struct size_probe *p = arg;
  struct lite_thread *thr = lite_self();
  p->inner[omp_get_thread_num()] = lite_team_size_for(thr, 4);
}

START_TEST(test_team_size_nested_rules)
{
  reset_icv();
  struct size_probe p;
  memset(&p, 0, sizeof p);
  GOMP_parallel(size_probe_fn, &p, 2, 0); /* active, max-active-levels 1 */
  ck_assert_uint_eq(p.inner[0], 1);
  ck_assert_uint_eq(p.inner[1], 1);
  GOMP_parallel(size_probe_fn, &p, 1, 0); /* inactive */
  ck_assert_uint_eq(p.inner[0], 4);
  omp_set_max_active_levels(2);
  GOMP_parallel(size_probe_fn, &p, 2, 0);
  ck_assert_uint_eq(p.inner[0], 4);
  ck_assert_uint_eq(p.inner[1], 4);
}
END_TEST

/* A region larger than the thread limit gets the limit; nested teams share what is left. */
static void limit_inner_fn(void *arg)
{
  _Atomic int *count = arg;
  atomic_fetch_add(count, 1);
}

static void limit_outer_fn(void *arg)
{
  GOMP_parallel(limit_inner_fn, arg, 4, 0);
}

START_TEST(test_thread_limit_regions)
{
  reset_icv();
  struct lite_thread *thr = lite_self();
  thr->icv.thread_limit = 3;
  struct members m;
  memset(&m, 0, sizeof m);
  m.expect = 3;
  GOMP_parallel(members_fn, &m, 8, 0);
  check_members(&m, 3);
  /* Three threads at level 1 leave no room for nested teams. */
  omp_set_max_active_levels(2);
  _Atomic int count = 0;
  GOMP_parallel(limit_outer_fn, &count, 3, 0);
  ck_assert_int_eq(ld(&count), 3);
  /* After the regions all threads are free again. */
  ck_assert_uint_eq(lite_team_size_for(thr, 8), 3);
}
END_TEST

/* OMP_NUM_THREADS as a list: entry L is nthreads-var inside a region at level L (serialised ones
   included); beyond the list, the value is inherited. */
struct list_probe {
  _Atomic int bad;
  _Atomic int innermost;
};

static void list_level3(void *arg)
{
  struct list_probe *p = arg;
  if (omp_get_num_threads() != 2 || omp_get_max_threads() != 2)
    atomic_fetch_add(&p->bad, 1);
  atomic_fetch_add(&p->innermost, 1);
}

static void list_level2(void *arg)
{
  struct list_probe *p = arg;
  if (omp_get_num_threads() != 3 || omp_get_max_threads() != 2)
    atomic_fetch_add(&p->bad, 1);
  GOMP_parallel(list_level3, p, 0, 0);
}

static void list_level1(void *arg)
{
  struct list_probe *p = arg;
  if (omp_get_num_threads() != 4 || omp_get_max_threads() != 3)
    atomic_fetch_add(&p->bad, 1);
  GOMP_parallel(list_level2, p, 0, 0);
}

static void list_serial(void *arg)
{
  struct list_probe *p = arg;
  /* A team of one at level 1 still takes entry 1. */
  if (omp_get_num_threads() != 1 || omp_get_max_threads() != 3)
    atomic_fetch_add(&p->bad, 1);
}

START_TEST(test_nthreads_list)
{
  reset_icv();
  static unsigned list[] = {4, 3, 2};
  lite_env.nthreads_list = list;
  lite_env.nthreads_list_len = 3;
  omp_set_num_threads(4);
  omp_set_max_active_levels(3);
  struct list_probe p;
  memset(&p, 0, sizeof p);
  GOMP_parallel(list_level1, &p, 0, 0);
  ck_assert_int_eq(ld(&p.bad), 0);
  ck_assert_int_eq(ld(&p.innermost), 4 * 3 * 2);
  GOMP_parallel(list_serial, &p, 1, 0);
  ck_assert_int_eq(ld(&p.bad), 0);
  ck_assert_int_eq(omp_get_max_threads(), 4);
}
END_TEST

/* A worker that cannot be started shrinks the team, with a warning, and the region still runs
   with the threads it has; the regions that follow within the backoff (10 ms after one failure)
   keep that team without trying again or warning again; a region after it grows the team. */
START_TEST(test_thread_start_failure)
{
  reset_icv();
  struct members m;
  run_region(&m, 3);
  size_t saved = lite_env.stacksize;
  lite_env.stacksize = (size_t)1 << 62; /* no mmap can give that: pthread_create fails */
  struct capture c;
  capture_begin(&c);
  memset(&m, 0, sizeof m);
  m.expect = 3;
  GOMP_parallel(members_fn, &m, 6, 0);
  char *text = capture_end(&c);
  check_members(&m, 3);
  ck_assert_msg(strstr(text, "could not start thread 3") != NULL, "warning was: '%s'", text);
  free(text);
  lite_env.stacksize = saved;
  /* Within the backoff: no try, no warning (the region may also come after it on a slow
     machine, and then gets its 6). */
  capture_begin(&c);
  memset(&m, 0, sizeof m);
  m.expect = 3;
  GOMP_parallel(members_fn, &m, 6, 0);
  text = capture_end(&c);
  ck_assert_msg(text[0] == '\0', "a second warning: '%s'", text);
  free(text);
  if (ld(&m.bad) == 0)
    check_members(&m, 3);
  struct timespec backoff = {0, 20 * 1000 * 1000};
  nanosleep(&backoff, NULL);
  run_region(&m, 6);
  ck_assert_int_eq(seen_count(), 6);
}
END_TEST

/* ---------------------------------------------------------------- pool shutdown */

static void pause_inside_fn(void *arg)
{
  _Atomic int *results = arg;
  if (omp_get_thread_num() == 0)
    atomic_store(&results[0], omp_pause_resource(omp_pause_soft, omp_get_initial_device()));
  GOMP_barrier();
  atomic_fetch_add(&results[1], 1);
}

static void nested_pair_fn(void *arg)
{
  GOMP_parallel(members_fn, arg, 2, 0);
}

START_TEST(test_pause_resource)
{
  reset_icv();
  struct members m;
  (void)lite_self();
  int base = atomic_load(&lite_threads_live);
  run_region(&m, 4);
  ck_assert_int_eq(ld(&lite_threads_live), base + 3);

  /* A bad device, and a pause from inside a region, are refused and change nothing. (Any kind
     is accepted, as libgomp does.) */
  ck_assert_int_eq(omp_pause_resource(omp_pause_soft, omp_get_initial_device() + 5), -1);
  _Atomic int results[2] = {0, 0};
  GOMP_parallel(pause_inside_fn, results, 4, 0);
  ck_assert_int_eq(ld(&results[0]), -1);
  ck_assert_int_eq(ld(&results[1]), 4);
  ck_assert_int_eq(ld(&lite_threads_live), base + 3);

  for (int round = 0; round < 20; round++) {
    omp_pause_resource_t kind = round % 2 ? omp_pause_hard : omp_pause_soft;
    int rc = round % 3 ? omp_pause_resource(kind, omp_get_initial_device())
                       : omp_pause_resource_all(kind);
    ck_assert_int_eq(rc, 0);
    ck_assert_int_eq(ld(&lite_threads_live), base);
    /* A pause with nothing to free is fine too. */
    ck_assert_int_eq(omp_pause_resource_all(omp_pause_soft), 0);
    for (int r = 0; r < 5; r++)
      run_region(&m, 2 + (unsigned)round % 4);
    ck_assert_int_eq(ld(&lite_threads_live), base + 1 + round % 4);
  }

  /* Nested pools: the workers' own pools go with them. */
  omp_pause_resource_all(omp_pause_soft);
  omp_set_max_active_levels(2);
  for (int round = 0; round < 5; round++) {
    struct members inner;
    memset(&inner, 0, sizeof inner);
    inner.expect = 2;
    /* Both level-1 members start a pair that counts itself in inner (members_fn's level check
       fails at level 2 by design: only the runs are looked at here). */
    GOMP_parallel(nested_pair_fn, &inner, 2, 0);
    ck_assert_int_eq(ld(&inner.runs[0]), 2);
    ck_assert_int_eq(ld(&inner.runs[1]), 2);
    ck_assert_int_eq(ld(&lite_threads_live), base + 3);
    ck_assert_int_eq(omp_pause_resource_all(omp_pause_hard), 0);
    ck_assert_int_eq(ld(&lite_threads_live), base);
  }
}
END_TEST

/* libgomp refuses a pause at any nesting level, inactive ones included (gomp_pause_host returns
   -1 when ts.level != 0): "#pragma omp parallel if(0)" around omp_pause_resource gives -1. */
static void pause_in_team_of_one_fn(void *arg)
{
  _Atomic int *rc = arg;
  atomic_store(rc, omp_pause_resource(omp_pause_soft, omp_get_initial_device()));
}

START_TEST(test_pause_refused_in_inactive_region)
{
  reset_icv();
  struct members m;
  run_region(&m, 2);
  _Atomic int rc = 99;
  GOMP_parallel(pause_in_team_of_one_fn, &rc, 1, 0);
  ck_assert_int_eq(ld(&rc), -1);
  /* The pool is still there, and still works. */
  run_region(&m, 2);
  ck_assert_int_eq(seen_count(), 2);
}
END_TEST

/* ---------------------------------------------------------------- fork and exit */

/* What a child process runs: regions at several sizes, checked without Check (the child must
   not talk to the test runner). Returns the exit status: 0 when everything ran right. */
struct child_data {
  _Atomic int runs[MAXT];
  _Atomic int bad;
  _Atomic int phase[MAXT];
  unsigned n;
};

static void child_fn(void *arg)
{
  struct child_data *d = arg;
  int id = omp_get_thread_num();
  if (omp_get_num_threads() != (int)d->n || id < 0 || id >= (int)d->n) {
    atomic_fetch_add(&d->bad, 1);
    return;
  }
  atomic_fetch_add(&d->runs[id], 1);
  for (int r = 1; r <= 20; r++) {
    atomic_store_explicit(&d->phase[id], r, memory_order_relaxed);
    GOMP_barrier();
    for (unsigned j = 0; j < d->n; j++) {
      int p = atomic_load_explicit(&d->phase[j], memory_order_relaxed);
      if (p != r && p != r + 1)
        atomic_fetch_add(&d->bad, 1);
    }
  }
}

static int child_regions(void)
{
  static const unsigned seq[] = {2, 4, 3, 1, 4};
  struct child_data d;
  for (int r = 0; r < 50; r++) {
    memset(&d, 0, sizeof d);
    d.n = seq[r % 5];
    GOMP_parallel(child_fn, &d, d.n, 0);
    if (atomic_load(&d.bad) != 0)
      return 2;
    for (unsigned k = 0; k < MAXT; k++)
      if (atomic_load(&d.runs[k]) != (k < d.n ? 1 : 0))
        return 3;
  }
  if (omp_get_level() != 0 || omp_in_parallel())
    return 4;
  /* One fresh pool of 3 workers, plus this thread (the parent's workers did not come along). */
  if (atomic_load(&lite_threads_live) != 4)
    return 5;
  return 0;
}

/* Waits for pid within a generous bound (a hang must fail the test, not leave a process behind),
   and returns its exit status, or -1 after killing it, or 1000 + signal. */
static int wait_child(pid_t pid)
{
  int status;
  for (int i = 0; i < 15000; i++) {
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid)
      return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
    if (got < 0 && errno != EINTR)
      return -2;
    sleep_us(1000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

static pid_t fork_child(int (*body)(void))
{
  fflush(NULL);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    exit(body());
  return pid;
}

START_TEST(test_fork_after_regions)
{
  reset_icv();
  struct members m;
  run_region(&m, 4);
  /* Workers are still spinning on the dispatch line here. */
  ck_assert_int_eq(wait_child(fork_child(child_regions)), 0);
  /* The parent's pool is untouched. */
  for (int r = 0; r < 20; r++)
    run_region(&m, 4);
  ck_assert_int_eq(seen_count(), 4);
}
END_TEST

START_TEST(test_fork_with_parked_workers)
{
  reset_icv();
  lite_env.spin_ns = 0;
  lite_env.yield_ns = 0;
  struct members m;
  run_region(&m, 4);
  /* Let the workers park (no timing assertion: this only bounds the wait). */
  for (int i = 0; i < 5000 && atomic_load(&lite_threads_parked) < 3; i++)
    sleep_us(1000);
  ck_assert_int_eq(wait_child(fork_child(child_regions)), 0);
  run_region(&m, 4);
}
END_TEST

/* A child forks again: the grandchild uses OpenMP too. */
static int child_then_grandchild(void)
{
  int rc = child_regions();
  if (rc != 0)
    return rc;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0)
    return 10;
  if (pid == 0)
    exit(child_regions());
  int status = wait_child(pid);
  return status == 0 ? 0 : 20;
}

START_TEST(test_fork_twice)
{
  reset_icv();
  struct members m;
  run_region(&m, 3);
  ck_assert_int_eq(wait_child(fork_child(child_then_grandchild)), 0);
}
END_TEST

/* fork() while another root thread is busy running regions. */
static _Atomic bool busy_stop;

static void *busy_root(void *arg)
{
  (void)arg;
  reset_icv();
  struct child_data d;
  while (!atomic_load(&busy_stop)) {
    memset(&d, 0, sizeof d);
    d.n = 2;
    GOMP_parallel(child_fn, &d, 2, 0);
  }
  return NULL;
}

static int child_from_busy(void)
{
  /* The forking thread had no pool: here it creates the first, next to nothing. */
  int rc = child_regions();
  return rc;
}

START_TEST(test_fork_while_other_root_busy)
{
  reset_icv();
  pthread_t t;
  atomic_store(&busy_stop, false);
  ck_assert_int_eq(pthread_create(&t, NULL, busy_root, NULL), 0);
  sleep_us(2000);
  for (int i = 0; i < 3; i++)
    ck_assert_int_eq(wait_child(fork_child(child_from_busy)), 0);
  atomic_store(&busy_stop, true);
  pthread_join(t, NULL);
}
END_TEST

/* fork() from a thread that never called into the runtime, while the test thread has a pool. */
static void *fresh_forker(void *arg)
{
  int *status = arg;
  *status = wait_child(fork_child(child_regions));
  return NULL;
}

START_TEST(test_fork_from_fresh_thread)
{
  reset_icv();
  struct members m;
  run_region(&m, 4);
  pthread_t t;
  int status = -100;
  ck_assert_int_eq(pthread_create(&t, NULL, fresh_forker, &status), 0);
  pthread_join(t, NULL);
  ck_assert_int_eq(status, 0);
  run_region(&m, 4);
}
END_TEST

/* OMP_THREAD_LIMIT after fork(): the child has one thread, so the whole limit is free there, even
   if other threads of the parent were in teams when it forked. */
static _Atomic bool limit_root_in_region, limit_root_stop;

static void limit_busy_fn(void *arg)
{
  (void)arg;
  if (omp_get_thread_num() == 0) {
    atomic_store(&limit_root_in_region, true);
    while (!atomic_load(&limit_root_stop))
      sleep_us(200);
  }
}

static void *limit_root(void *arg)
{
  (void)arg;
  reset_icv();
  lite_self()->icv.thread_limit = 4;
  GOMP_parallel(limit_busy_fn, NULL, 3, 0);
  return NULL;
}

static void team_size_fn(void *arg)
{
  if (omp_get_thread_num() == 0)
    *(int *)arg = omp_get_num_threads();
}

static int child_team_under_limit(void)
{
  int n = 0;
  GOMP_parallel(team_size_fn, &n, 4, 0);
  return n; /* the exit status: 4 expected */
}

START_TEST(test_fork_frees_thread_limit)
{
  reset_icv();
  lite_self()->icv.thread_limit = 4;
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, limit_root, NULL), 0);
  while (!atomic_load(&limit_root_in_region))
    sleep_us(200);
  int status = wait_child(fork_child(child_team_under_limit));
  atomic_store(&limit_root_stop, true);
  pthread_join(t, NULL);
  ck_assert_int_eq(status, 4);
  /* In the parent, the limit is free again once the other team has ended. */
  int n = 0;
  GOMP_parallel(team_size_fn, &n, 4, 0);
  ck_assert_int_eq(n, 4);
}
END_TEST

/* exit() while the workers spin, and while they are parked, is clean. */
static int exit_after_regions(void)
{
  int rc = child_regions();
  return rc;
}

static int exit_after_parking(void)
{
  lite_env.spin_ns = 0;
  lite_env.yield_ns = 0;
  int rc = child_regions();
  for (int i = 0; i < 5000 && atomic_load(&lite_threads_parked) < 3; i++)
    sleep_us(1000);
  return rc;
}

START_TEST(test_exit_is_clean)
{
  reset_icv();
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(wait_child(fork_child(exit_after_regions)), 0);
    ck_assert_int_eq(wait_child(fork_child(exit_after_parking)), 0);
  }
}
END_TEST

/* exit() from inside a region, by thread 0 or by a worker, while the others wait at a barrier:
   the process ends with that status (the busy pool is left alone, nothing hangs). */
static int exit_member;

static void exit_inside_fn(void *arg)
{
  (void)arg;
  GOMP_barrier();
  if (omp_get_thread_num() == exit_member)
    exit(0);
  GOMP_barrier();
}

static int exit_inside_region(void)
{
  for (int r = 0; r < 3; r++)
    GOMP_parallel(exit_inside_fn, NULL, 3, 0);
  return 9; /* not reached */
}

START_TEST(test_exit_inside_region)
{
  reset_icv();
  for (exit_member = 0; exit_member < 3; exit_member++)
    ck_assert_int_eq(wait_child(fork_child(exit_inside_region)), 0);
}
END_TEST

/* ---------------------------------------------------------------- the suite */

static Suite *team_suite(void)
{
  Suite *s = suite_create("team");

  TCase *tc = tcase_create("fork_join");
  tcase_set_timeout(tc, 20);
  tcase_add_loop_test(tc, test_fork_join_sizes, 0, (int)(sizeof sizes / sizeof sizes[0]));
  tcase_add_test(tc, test_stable_slots);
  tcase_add_test(tc, test_pool_reused);
  tcase_add_test(tc, test_shrink_grow);
  tcase_add_test(tc, test_parallel_start_end);
  tcase_add_test(tc, test_concurrent_roots);
  suite_add_tcase(s, tc);

  tc = tcase_create("nesting");
  tcase_set_timeout(tc, 20);
  tcase_add_loop_test(tc, test_nested, 0, (int)(sizeof nest_cases / sizeof nest_cases[0]));
  tcase_add_test(tc, test_icv_restored_after_region);
  suite_add_tcase(s, tc);

  tc = tcase_create("team_size");
  tcase_set_timeout(tc, 20);
  tcase_add_test(tc, test_team_size_rules);
  tcase_add_test(tc, test_dynamic_team_leaves_busy_cpus);
  tcase_add_test(tc, test_team_size_nested_rules);
  tcase_add_test(tc, test_thread_limit_regions);
  tcase_add_test(tc, test_nthreads_list);
  tcase_add_test(tc, test_thread_start_failure);
  suite_add_tcase(s, tc);

  tc = tcase_create("lifecycle");
  tcase_set_timeout(tc, 30);
  tcase_add_test(tc, test_pause_resource);
  tcase_add_test(tc, test_pause_refused_in_inactive_region);
  tcase_add_test(tc, test_fork_after_regions);
  tcase_add_test(tc, test_fork_with_parked_workers);
  tcase_add_test(tc, test_fork_twice);
  tcase_add_test(tc, test_fork_while_other_root_busy);
  tcase_add_test(tc, test_fork_from_fresh_thread);
  tcase_add_test(tc, test_fork_frees_thread_limit);
  tcase_add_test(tc, test_exit_is_clean);
  tcase_add_test(tc, test_exit_inside_region);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(team_suite());
  /* Each test in its own process whatever CK_FORK says: the tests change globals and count
     threads from a fresh start, and the timeouts that catch a deadlock need fork mode. */
  srunner_set_fork_status(sr, CK_FORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
