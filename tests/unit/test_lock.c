/* Unit tests for lock.c, critical.c, time.c and fortran.c. Contention comes from plain pthreads,
   so these tests do not depend on the team code. */
#include "lock.h"

#include <check.h>
#include <stdlib.h>
#include <time.h>

/* The Fortran bindings have no C header (gfortran declares them in omp_lib). */
void omp_init_lock_(int32_t *lock);
void omp_destroy_lock_(int32_t *lock);
void omp_set_lock_(int32_t *lock);
void omp_unset_lock_(int32_t *lock);
int32_t omp_test_lock_(int32_t *lock);
void omp_init_nest_lock_(int64_t *lock);
void omp_destroy_nest_lock_(int64_t *lock);
void omp_set_nest_lock_(int64_t *lock);
void omp_unset_nest_lock_(int64_t *lock);
int32_t omp_test_nest_lock_(int64_t *lock);
void lite_fortran_init_legacy_nest_lock(int64_t *lock);
void lite_fortran_set_legacy_nest_lock(int64_t *lock);
void lite_fortran_unset_legacy_nest_lock(int64_t *lock);
int32_t lite_fortran_test_legacy_nest_lock(int64_t *lock);
void omp_set_num_threads_8_(const int64_t *n);
int32_t omp_get_max_threads_(void);
void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk_size);
void omp_get_schedule_8_(int32_t *kind, int64_t *chunk_size);
int32_t omp_get_team_size_8_(const int64_t *level);
int32_t omp_get_ancestor_thread_num_8_(const int64_t *level);
int32_t omp_in_parallel_(void);
double omp_get_wtime_(void);
double omp_get_wtick_(void);

#define MAX_THREADS 8

/* ---------------------------------------------------------------- helpers */

static void sleep_ms(long ms)
{
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Polls *word until it holds value, for up to 10 s (a loaded machine may not run a new thread
   for a while). Returns whether it did. */
static bool eventually_equals(_Atomic uint32_t *word, uint32_t value)
{
  for (int ms = 0; ms < 10000; ms++) {
    if (atomic_load(word) == value)
      return true;
    sleep_ms(1);
  }
  return false;
}

/* Polls the runtime's count of parked threads until it reads n, for up to 10 s. */
static bool eventually_parked(int n)
{
  for (int ms = 0; ms < 10000; ms++) {
    if (atomic_load(&lite_threads_parked) == n)
      return true;
    sleep_ms(1);
  }
  return false;
}

/* Runs fn(arg) on n pthreads and waits for all of them. */
static void run_threads(int n, void *(*fn)(void *), void *arg)
{
  pthread_t threads[MAX_THREADS];
  ck_assert_int_le(n, MAX_THREADS);
  for (int i = 0; i < n; i++)
    ck_assert_int_eq(pthread_create(&threads[i], NULL, fn, arg), 0);
  for (int i = 0; i < n; i++)
    pthread_join(threads[i], NULL);
}

/* A counter that is incremented non-atomically, in a read-yield-write pattern that loses updates
   quickly when two threads are inside at once. */
struct contended {
  void (*enter)(void *);
  void (*leave)(void *);
  void *mutex;
  int iterations;
  long counter;
};

static void unprotected_increment(long *counter, int i)
{
  long v = *(volatile long *)counter;
  if (i % 64 == 0)
    sched_yield(); /* stretch the window now and then, so that a broken mutex shows at once */
  *(volatile long *)counter = v + 1;
}

static void *contend(void *arg)
{
  struct contended *c = arg;
  for (int i = 0; i < c->iterations; i++) {
    c->enter(c->mutex);
    unprotected_increment(&c->counter, i);
    c->leave(c->mutex);
  }
  return NULL;
}

static void check_exclusion(int nthreads, void (*enter)(void *), void (*leave)(void *), void *m)
{
  struct contended c = {enter, leave, m, 20000, 0};
  run_threads(nthreads, contend, &c);
  ck_assert_int_eq(c.counter, (long)nthreads * c.iterations);
}

/* Runs fn(arg) on a new thread and returns its int result. */
struct int_call {
  int (*fn)(void *);
  void *arg;
  int result;
};
static void *int_call_thread(void *p)
{
  struct int_call *call = p;
  call->result = call->fn(call->arg);
  return NULL;
}
static int on_other_thread(int (*fn)(void *), void *arg)
{
  struct int_call call = {fn, arg, -12345};
  run_threads(1, int_call_thread, &call);
  return call.result;
}

/* Starts a thread that runs fn(arg) and then raises *done; the caller joins it. */
struct blocking_call {
  void (*fn)(void *);
  void *arg;
  _Atomic int done;
  pthread_t thread;
};
static void *blocking_call_thread(void *p)
{
  struct blocking_call *call = p;
  call->fn(call->arg);
  atomic_store(&call->done, 1);
  return NULL;
}
static void start_blocking(struct blocking_call *call, void (*fn)(void *), void *arg)
{
  call->fn = fn;
  call->arg = arg;
  atomic_init(&call->done, 0);
  ck_assert_int_eq(pthread_create(&call->thread, NULL, blocking_call_thread, call), 0);
}

/* A thread that takes a lock, holds it until told to let go, then releases it itself (a nest
   lock may only be released by its owner). */
enum { HOLDER_WAITING, HOLDER_HOLDS, HOLDER_LET_GO };
struct holder {
  void (*enter)(void *);
  void (*leave)(void *);
  void *lock;
  _Atomic int state;
  pthread_t thread;
};
static void *holder_thread(void *p)
{
  struct holder *h = p;
  h->enter(h->lock);
  atomic_store(&h->state, HOLDER_HOLDS);
  while (atomic_load(&h->state) != HOLDER_LET_GO)
    sleep_ms(1);
  h->leave(h->lock);
  return NULL;
}
static void start_holder(struct holder *h, void (*enter)(void *), void (*leave)(void *), void *lock)
{
  h->enter = enter;
  h->leave = leave;
  h->lock = lock;
  atomic_init(&h->state, HOLDER_WAITING);
  ck_assert_int_eq(pthread_create(&h->thread, NULL, holder_thread, h), 0);
}
static void wait_until_held(struct holder *h)
{
  while (atomic_load(&h->state) != HOLDER_HOLDS)
    sleep_ms(1);
}
static void let_go(struct holder *h)
{
  atomic_store(&h->state, HOLDER_LET_GO);
  pthread_join(h->thread, NULL);
}

/* ---------------------------------------------------------------- the futex mutex */

static void mutex_enter(void *m) { lite_mutex_lock(m); }
static void mutex_leave(void *m) { lite_mutex_unlock(m); }

START_TEST(mutex_excludes_under_contention)
{
  static _Atomic uint32_t m;
  check_exclusion(2, mutex_enter, mutex_leave, &m);
  check_exclusion(4, mutex_enter, mutex_leave, &m);
  check_exclusion(8, mutex_enter, mutex_leave, &m);
  ck_assert_uint_eq(atomic_load(&m), 0); /* released, and no waiter mark left behind */
}
END_TEST

START_TEST(woken_threads_count_as_awake)
{
  /* Sleepers that a wake-up made runnable count as awake until they are back (wait.c). */
  int awake = lite_threads_awake();
  lite_wake_sent(2);
  ck_assert_int_eq(lite_threads_awake(), awake + 2);
  lite_wake_arrived();
  ck_assert_int_eq(lite_threads_awake(), awake + 1);
  lite_wake_arrived();
  ck_assert_int_eq(lite_threads_awake(), awake);
  /* A woken thread back before its waker counted the wake-up: none waking in between, and the
     count right afterwards (a floor at 0 once lost the subtraction here). */
  lite_wake_arrived();
  ck_assert_int_eq(lite_threads_awake(), awake);
  lite_wake_sent(1);
  ck_assert_int_eq(lite_threads_awake(), awake);
  ck_assert_int_eq(atomic_load(&lite_threads_waking), 0);
}
END_TEST

START_TEST(mutex_sleeper_is_woken)
{
  /* Hold the mutex well past the spin bound, so the waiter must park and be woken. */
  static _Atomic uint32_t m;
  struct blocking_call call;
  lite_mutex_lock(&m);
  start_blocking(&call, mutex_enter, &m);
  ck_assert(eventually_equals(&m, 2)); /* the waiter gave up spinning and marked it */
  /* and counts as parked, so that other waiters do not count it as a thread wanting a CPU */
  ck_assert(eventually_parked(1));
  sleep_ms(20);
  ck_assert_int_eq(atomic_load(&call.done), 0);
  lite_mutex_unlock(&m);
  pthread_join(call.thread, NULL);
  ck_assert_int_eq(atomic_load(&call.done), 1);
  ck_assert_int_eq(atomic_load(&lite_threads_parked), 0);
  /* The unlock's wake-up counted it as waking, and its return from the futex took it back. */
  ck_assert_int_eq(atomic_load(&lite_threads_waking), 0);
  ck_assert(!lite_mutex_trylock(&m)); /* the woken thread holds it now */
  lite_mutex_unlock(&m);
  ck_assert(lite_mutex_trylock(&m));
  lite_mutex_unlock(&m);
}
END_TEST

/* ---------------------------------------------------------------- omp_lock_t */

static void lock_enter(void *l) { omp_set_lock(l); }
static void lock_leave(void *l) { omp_unset_lock(l); }
static int lock_test(void *l) { return omp_test_lock(l); }
static int lock_test_and_unset(void *l)
{
  int got = omp_test_lock(l);
  if (got)
    omp_unset_lock(l);
  return got;
}

START_TEST(lock_excludes_under_contention)
{
  omp_lock_t lock;
  omp_init_lock(&lock);
  check_exclusion(4, lock_enter, lock_leave, &lock);
  check_exclusion(8, lock_enter, lock_leave, &lock);
  omp_destroy_lock(&lock);
}
END_TEST

START_TEST(test_lock_semantics)
{
  omp_lock_t lock;
  omp_init_lock(&lock);
  ck_assert_int_eq(omp_test_lock(&lock), 1);
  ck_assert_int_eq(omp_test_lock(&lock), 0); /* simple locks do not nest */
  ck_assert_int_eq(on_other_thread(lock_test, &lock), 0);
  omp_unset_lock(&lock);
  ck_assert_int_eq(on_other_thread(lock_test_and_unset, &lock), 1);
  ck_assert_int_eq(omp_test_lock(&lock), 1);
  omp_unset_lock(&lock);
  omp_destroy_lock(&lock);
}
END_TEST

/* lite_held (internal.h), which taskyield and the throttle read: up while the thread holds any
   lock, nest-lock level or critical, back to 0 after, whichever entry point; an unset without
   a set (another thread's lock) leaves it at 0, not below. */
START_TEST(held_count_balances)
{
  ck_assert_uint_eq(lite_held, 0);
  omp_lock_t lock;
  omp_init_lock(&lock);
  omp_set_lock(&lock);
  ck_assert_uint_eq(lite_held, 1);
  omp_unset_lock(&lock);
  ck_assert_int_eq(omp_test_lock(&lock), 1);
  ck_assert_uint_eq(lite_held, 1);
  ck_assert_int_eq(omp_test_lock(&lock), 0); /* a failed test counts nothing */
  ck_assert_uint_eq(lite_held, 1);
  omp_unset_lock(&lock);
  ck_assert_uint_eq(lite_held, 0);
  omp_unset_lock(&lock); /* not held by this thread: not conforming, and not counted below 0 */
  ck_assert_uint_eq(lite_held, 0);

  omp_nest_lock_t nest;
  omp_init_nest_lock(&nest);
  omp_set_nest_lock(&nest);
  ck_assert_int_eq(omp_test_nest_lock(&nest), 2);
  ck_assert_uint_eq(lite_held, 2);
  omp_unset_nest_lock(&nest);
  omp_unset_nest_lock(&nest);
  ck_assert_uint_eq(lite_held, 0);

  GOMP_critical_start();
  static void *name;
  GOMP_critical_name_start(&name);
  ck_assert_uint_eq(lite_held, 2);
  GOMP_critical_name_end(&name);
  GOMP_critical_end();
  ck_assert_uint_eq(lite_held, 0);

  int32_t flock;
  omp_init_lock_(&flock);
  omp_set_lock_(&flock);
  ck_assert_uint_eq(lite_held, 1);
  omp_unset_lock_(&flock);
  ck_assert_uint_eq(lite_held, 0);
  omp_destroy_lock(&lock);
  omp_destroy_nest_lock(&nest);
}
END_TEST

START_TEST(lock_with_hint_accepts_every_hint)
{
  const unsigned hints[] = {
      omp_sync_hint_none,
      omp_sync_hint_uncontended,
      omp_sync_hint_contended,
      omp_sync_hint_nonspeculative,
      omp_sync_hint_speculative,
      omp_sync_hint_contended | omp_sync_hint_speculative,
      omp_sync_hint_uncontended | omp_sync_hint_nonspeculative,
      /* invalid: warned about, then the default lock */
      omp_sync_hint_contended | omp_sync_hint_uncontended,
      omp_sync_hint_speculative | omp_sync_hint_nonspeculative,
      0x10000,
      0xffffffffu,
  };
  for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock_with_hint(&lock, (omp_sync_hint_t)hints[i]);
    ck_assert_int_eq(omp_test_lock(&lock), 1);
    ck_assert_int_eq(omp_test_lock(&lock), 0);
    omp_unset_lock(&lock);
    omp_destroy_lock(&lock);
    omp_init_nest_lock_with_hint(&nest, (omp_sync_hint_t)hints[i]);
    ck_assert_int_eq(omp_test_nest_lock(&nest), 1);
    ck_assert_int_eq(omp_test_nest_lock(&nest), 2);
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    omp_destroy_nest_lock(&nest);
  }
  omp_lock_t lock;
  omp_init_lock_with_hint(&lock, omp_sync_hint_contended);
  check_exclusion(4, lock_enter, lock_leave, &lock);
  omp_destroy_lock(&lock);
}
END_TEST

/* ---------------------------------------------------------------- omp_nest_lock_t */

static void nest_enter(void *l) { omp_set_nest_lock(l); }
static void nest_leave(void *l) { omp_unset_nest_lock(l); }
static int nest_test(void *l) { return omp_test_nest_lock(l); }

/* Enter twice, leave twice: exclusion must hold with nesting in the way. */
static void nest_enter_twice(void *l)
{
  omp_set_nest_lock(l);
  ck_assert_int_eq(omp_test_nest_lock(l), 2);
}
static void nest_leave_twice(void *l)
{
  omp_unset_nest_lock(l);
  omp_unset_nest_lock(l);
}

START_TEST(nest_lock_counts_and_owner)
{
  omp_nest_lock_t lock;
  omp_init_nest_lock(&lock);
  ck_assert_int_eq(omp_test_nest_lock(&lock), 1);
  omp_set_nest_lock(&lock);
  ck_assert_int_eq(omp_test_nest_lock(&lock), 3);
  ck_assert_int_eq(on_other_thread(nest_test, &lock), 0);

  /* Another thread blocks in set until the count falls to zero. */
  struct holder other;
  start_holder(&other, nest_enter, nest_leave, &lock);
  omp_unset_nest_lock(&lock);
  omp_unset_nest_lock(&lock);
  sleep_ms(30);
  ck_assert_int_eq(atomic_load(&other.state), HOLDER_WAITING);
  omp_unset_nest_lock(&lock);
  wait_until_held(&other);

  /* Now the other thread owns it: the caller can neither test nor nest into it. */
  ck_assert_int_eq(omp_test_nest_lock(&lock), 0);
  let_go(&other);
  ck_assert_int_eq(omp_test_nest_lock(&lock), 1);
  omp_unset_nest_lock(&lock);
  omp_destroy_nest_lock(&lock);
}
END_TEST

START_TEST(nest_lock_excludes_under_contention)
{
  omp_nest_lock_t lock;
  omp_init_nest_lock(&lock);
  check_exclusion(4, nest_enter_twice, nest_leave_twice, &lock);
  check_exclusion(8, nest_enter, nest_leave, &lock);
  omp_destroy_nest_lock(&lock);
}
END_TEST

/* ---------------------------------------------------------------- the legacy nest lock */

static void legacy_enter(void *l) { lite_legacy_nest_lock_set(l); }
static void legacy_leave(void *l) { lite_legacy_nest_lock_unset(l); }
static int legacy_test(void *l) { return lite_legacy_nest_lock_test(l); }
static void legacy_enter_twice(void *l)
{
  lite_legacy_nest_lock_set(l);
  lite_legacy_nest_lock_set(l);
}
static void legacy_leave_twice(void *l)
{
  lite_legacy_nest_lock_unset(l);
  lite_legacy_nest_lock_unset(l);
}

START_TEST(legacy_nest_lock_counts_and_owner)
{
  struct lite_legacy_nest_lock lock;
  lite_legacy_nest_lock_init(&lock);
  ck_assert_int_eq(lite_legacy_nest_lock_test(&lock), 1);
  lite_legacy_nest_lock_set(&lock);
  ck_assert_int_eq(lite_legacy_nest_lock_test(&lock), 3);
  ck_assert_int_eq(lock.count, 3);
  const uint32_t me = (uint32_t)lite_os_gettid();
  ck_assert_uint_eq(atomic_load(&lock.owner), me);
  ck_assert_int_eq(on_other_thread(legacy_test, &lock), 0);

  struct holder other;
  start_holder(&other, legacy_enter, legacy_leave, &lock);
  /* Past the spin the waiter marks the word and sleeps. */
  ck_assert(eventually_equals(&lock.owner, me | LITE_LEGACY_WAITERS));
  ck_assert(eventually_parked(1));
  sleep_ms(20);
  ck_assert_int_eq(atomic_load(&other.state), HOLDER_WAITING);
  legacy_leave_twice(&lock);
  ck_assert_int_eq(atomic_load(&other.state), HOLDER_WAITING);
  lite_legacy_nest_lock_unset(&lock);
  wait_until_held(&other);
  ck_assert_int_eq(lite_legacy_nest_lock_test(&lock), 0);
  ck_assert_int_eq(atomic_load(&lite_threads_parked), 0);
  let_go(&other);
  ck_assert_uint_eq(atomic_load(&lock.owner), 0);
  lite_legacy_nest_lock_destroy(&lock);
}
END_TEST

START_TEST(legacy_nest_lock_excludes_under_contention)
{
  struct lite_legacy_nest_lock lock;
  lite_legacy_nest_lock_init(&lock);
  check_exclusion(4, legacy_enter_twice, legacy_leave_twice, &lock);
  check_exclusion(8, legacy_enter, legacy_leave, &lock);
  ck_assert_uint_eq(atomic_load(&lock.owner), 0);
}
END_TEST

/* ---------------------------------------------------------------- critical and atomic */

static void critical_enter(void *unused) { GOMP_critical_start(); }
static void critical_leave(void *unused) { GOMP_critical_end(); }
static void named_enter(void *name) { GOMP_critical_name_start(name); }
static void named_leave(void *name) { GOMP_critical_name_end(name); }
static void atomic_enter(void *unused) { GOMP_atomic_start(); }
static void atomic_leave(void *unused) { GOMP_atomic_end(); }

/* What gcc emits for each name: a pointer-sized, zero-initialised common symbol. */
static void *critical_name_a, *critical_name_b;

START_TEST(critical_excludes_under_contention)
{
  check_exclusion(4, critical_enter, critical_leave, NULL);
  check_exclusion(4, named_enter, named_leave, &critical_name_a);
  check_exclusion(4, atomic_enter, atomic_leave, NULL);
  ck_assert_ptr_null(critical_name_a); /* the word is back to "free" */
}
END_TEST

START_TEST(critical_mutexes_are_independent)
{
  /* Holding one must not block any other. */
  struct blocking_call call;
  GOMP_critical_start();
  start_blocking(&call, atomic_enter, NULL);
  pthread_join(call.thread, NULL);
  GOMP_atomic_end();
  start_blocking(&call, named_enter, &critical_name_a);
  pthread_join(call.thread, NULL);
  GOMP_critical_name_end(&critical_name_a);
  GOMP_critical_end();

  GOMP_critical_name_start(&critical_name_a);
  start_blocking(&call, named_enter, &critical_name_b);
  pthread_join(call.thread, NULL);
  GOMP_critical_name_end(&critical_name_b);
  start_blocking(&call, critical_enter, NULL);
  pthread_join(call.thread, NULL);
  GOMP_critical_end();
  /* ...while the same name does block. */
  start_blocking(&call, named_enter, &critical_name_a);
  sleep_ms(20);
  ck_assert_int_eq(atomic_load(&call.done), 0);
  GOMP_critical_name_end(&critical_name_a);
  pthread_join(call.thread, NULL);
  ck_assert_int_eq(atomic_load(&call.done), 1);
  GOMP_critical_name_end(&critical_name_a);
}
END_TEST

/* ---------------------------------------------------------------- time */

START_TEST(wtime_is_monotonic_and_wtick_positive)
{
  double previous = omp_get_wtime();
  for (int i = 0; i < 10000; i++) {
    double now = omp_get_wtime();
    ck_assert(now >= previous);
    previous = now;
  }
  double before = omp_get_wtime();
  sleep_ms(20);
  double elapsed = omp_get_wtime() - before;
  ck_assert(elapsed >= 0.019 && elapsed < 5.0);
  double tick = omp_get_wtick();
  ck_assert(tick > 0.0 && tick <= 1e-3);
}
END_TEST

/* ---------------------------------------------------------------- Fortran bindings */

START_TEST(fortran_locks)
{
  int32_t lock;
  omp_init_lock_(&lock);
  ck_assert_int_eq(omp_test_lock_(&lock), 1);
  ck_assert_int_eq(omp_test_lock_(&lock), 0);
  omp_unset_lock_(&lock);
  omp_set_lock_(&lock);
  omp_unset_lock_(&lock);
  omp_destroy_lock_(&lock);

  /* OMP_3.0: INTEGER(8) holds a pointer to the 16-byte lock. */
  int64_t nest = 0;
  omp_init_nest_lock_(&nest);
  ck_assert(nest != 0);
  omp_set_nest_lock_(&nest);
  ck_assert_int_eq(omp_test_nest_lock_(&nest), 2);
  omp_unset_nest_lock_(&nest);
  omp_unset_nest_lock_(&nest);
  ck_assert_int_eq(omp_test_nest_lock_(&nest), 1);
  omp_unset_nest_lock_(&nest);
  omp_destroy_nest_lock_(&nest);
  ck_assert(nest == 0);

  /* OMP_1.0: INTEGER(8) holds the legacy lock itself. */
  int64_t legacy = -1;
  lite_fortran_init_legacy_nest_lock(&legacy);
  ck_assert(legacy == 0);
  lite_fortran_set_legacy_nest_lock(&legacy);
  ck_assert_int_eq(lite_fortran_test_legacy_nest_lock(&legacy), 2);
  lite_fortran_unset_legacy_nest_lock(&legacy);
  lite_fortran_unset_legacy_nest_lock(&legacy);
  ck_assert(legacy == 0);
}
END_TEST

START_TEST(fortran_time)
{
  double t0 = omp_get_wtime_();
  ck_assert(omp_get_wtime_() >= t0);
  ck_assert(omp_get_wtick_() > 0.0);
}
END_TEST

/* These go through icv.c and team_api.c: they check that 64-bit arguments are clamped into
   int's range rather than truncated (2^32 + 3 truncates to 3). */
START_TEST(fortran_clamps_64bit_arguments)
{
  const int64_t wraps_to_3 = (INT64_C(1) << 32) + 3;
  const int64_t five = 5;
  omp_set_num_threads_8_(&five);
  ck_assert_int_eq(omp_get_max_threads_(), 5);
  omp_set_num_threads_8_(&wraps_to_3);
  ck_assert_int_ne(omp_get_max_threads_(), 3);

  const int32_t dynamic = omp_sched_dynamic;
  const int64_t chunk = 7;
  int32_t kind = 0;
  int64_t got_chunk = 0;
  omp_set_schedule_8_(&dynamic, &chunk);
  omp_get_schedule_8_(&kind, &got_chunk);
  ck_assert_int_eq(kind, omp_sched_dynamic);
  ck_assert_int_eq(got_chunk, 7);
  /* The monotonic modifier is not reported to Fortran (libgomp does the same). */
  const int32_t monotonic_dynamic = (int32_t)(omp_sched_monotonic | omp_sched_dynamic);
  omp_set_schedule_8_(&monotonic_dynamic, &chunk);
  omp_get_schedule_8_(&kind, &got_chunk);
  ck_assert_int_eq(kind, omp_sched_dynamic);

  const int64_t level_0 = 0;
  ck_assert_int_eq(omp_in_parallel_(), 0);
  ck_assert_int_eq(omp_get_team_size_8_(&level_0), 1);
  ck_assert_int_eq(omp_get_team_size_8_(&wraps_to_3), -1);
  ck_assert_int_eq(omp_get_ancestor_thread_num_8_(&level_0), 0);
  ck_assert_int_eq(omp_get_ancestor_thread_num_8_(&wraps_to_3), -1);
}
END_TEST

static Suite *lock_suite(void)
{
  Suite *s = suite_create("lock");
  TCase *mutex = tcase_create("mutex");
  tcase_set_timeout(mutex, 60); /* 8 threads on 2 shared cores, each waiter may park */
  tcase_add_test(mutex, mutex_excludes_under_contention);
  tcase_add_test(mutex, mutex_sleeper_is_woken);
  tcase_add_test(mutex, woken_threads_count_as_awake);
  suite_add_tcase(s, mutex);

  TCase *locks = tcase_create("omp_locks");
  tcase_set_timeout(locks, 60);
  tcase_add_test(locks, lock_excludes_under_contention);
  tcase_add_test(locks, test_lock_semantics);
  tcase_add_test(locks, lock_with_hint_accepts_every_hint);
  tcase_add_test(locks, held_count_balances);
  tcase_add_test(locks, nest_lock_counts_and_owner);
  tcase_add_test(locks, nest_lock_excludes_under_contention);
  tcase_add_test(locks, legacy_nest_lock_counts_and_owner);
  tcase_add_test(locks, legacy_nest_lock_excludes_under_contention);
  suite_add_tcase(s, locks);

  TCase *critical = tcase_create("critical");
  tcase_set_timeout(critical, 60);
  tcase_add_test(critical, critical_excludes_under_contention);
  tcase_add_test(critical, critical_mutexes_are_independent);
  suite_add_tcase(s, critical);

  TCase *time = tcase_create("time");
  tcase_add_test(time, wtime_is_monotonic_and_wtick_positive);
  suite_add_tcase(s, time);

  TCase *fortran = tcase_create("fortran");
  tcase_add_test(fortran, fortran_locks);
  tcase_add_test(fortran, fortran_time);
  tcase_add_test(fortran, fortran_clamps_64bit_arguments);
  suite_add_tcase(s, fortran);
  return s;
}

int main(void)
{
  SRunner *runner = srunner_create(lock_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
