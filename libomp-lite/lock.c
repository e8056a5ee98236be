/* The futex mutex behind omp_lock_t, critical and atomic (its fast paths are inline in
   internal.h), and the OpenMP lock API in both of libgomp's layouts: OMP_3.0 (gcc >= 4.4) and the
   legacy OMP_1.0 one that old binaries still call. */
#include "lock.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

#include <pthread.h>

/* ---------------------------------------------------------------- the futex mutex */

/* How long a contended acquirer spins before it sleeps: as long as any waiter (the wait policy's
   spin_ns, 300 us by default, none to speak of under OMP_WAIT_POLICY=passive, cut to 50 us while
   another process competes for our CPUs), as libgomp's mutex spins GOMP_SPINCOUNT polls. A
   fixed 4 us bound lost: two threads taking a lock around a 0.05 us section, the releaser re-takes
   it many times in a row (its cache holds the line), so its partner spun out and slept, and a
   sleeper leaves the mutex marked 2, so that unlocks make system calls (see the slow path below).
   syncbench lock and critical at 2 threads, 400 interleaved samples each: 0.053-0.058 us per
   construct with 4 us, 0.047 with the wait policy's budget and the spin after a wake-up
   (libgomp 0.041-0.047). Time, not iterations, bounds it: pause costs 24 ns here but from 1 to
   40 ns elsewhere. */
/* With more of our threads awake than CPUs, the holder is often waiting for a CPU that the
   spinners hold: spin only briefly, then sleep. syncbench critical and lock at 4 and 16 threads
   on 2 CPUs, two run-bench runs of each (6 rounds): 0.09-0.11 us per construct with 0.5 us
   against 0.10-0.16 us with 4 us (libgomp 0.09-0.15 in the same runs). */
#define MUTEX_SPIN_OVERSUBSCRIBED_NS 500u
/* A waiter that finds the mutex held looks again after 1, 2, 4, ... pauses, up to as many as
   take MUTEX_BACKOFF_MAX_NS. Each look shares the mutex's line with the holder, whose next unlock
   or re-lock must then take it back exclusive, a cache-line transfer (0.12 us here) where the
   holder's own atomics cost a few ns: looking after every pause, as libgomp's mutex does, pays
   that transfer on nearly every section when sections are short. syncbench critical and lock
   (50 ns sections), medians of 5-6 interleaved processes: 0.045-0.058 us a construct at 2
   threads, 0.06-0.08 at 4 and 16 threads on 2 CPUs, without backoff (libgomp 0.044-0.060);
   0.015-0.023 with looks at most 32 pauses (0.3 us) apart, 0.011-0.017 with 64. The price: a
   holder that does not come back sees its lock taken up to one backoff late (2 threads, 2 us
   sections 0.2 us apart: about 4 % slower, with looks 0.3 or 1.2 us apart alike). The cap is a
   time, turned into pauses once: a pause costs 9.6 ns on the machine of these figures and 24-40
   ns on others. */
#define MUTEX_BACKOFF_MAX_NS 300u

static unsigned backoff_max_pauses(void)
{
  static _Atomic unsigned cached;
  unsigned pauses = atomic_load_explicit(&cached, memory_order_relaxed);
  if (lite_likely(pauses != 0))
    return pauses;
  /* The quickest of three runs of 16 pauses: the least disturbed by preemption. */
  uint64_t best = UINT64_MAX;
  for (int run = 0; run < 3; run++) {
    uint64_t start = lite_now_ns();
    for (int k = 0; k < 16; k++)
      lite_cpu_relax();
    uint64_t took = lite_now_ns() - start;
    if (took < best)
      best = took;
  }
  uint64_t fit = best == 0 ? 64 : (uint64_t)MUTEX_BACKOFF_MAX_NS * 16 / best;
  pauses = fit < 4 ? 4 : fit > 64 ? 64 : (unsigned)fit;
  atomic_store_explicit(&cached, pauses, memory_order_relaxed);
  return pauses;
}

/* Pauses between clock reads: a read costs ~21 ns, 16 pauses 150-600 ns, so under 15 %. */
#define MUTEX_PAUSES_PER_CLOCK 16u

/* Spin for a bounded time until *word is 0, then try to swing it to value.
   Returns true when the word was acquired. */
static bool spin_then_acquire(_Atomic uint32_t *word, uint32_t value)
{
  uint64_t deadline = 0;
  unsigned backoff = 1, pauses_since_clock = 0, max_backoff = backoff_max_pauses();
  bool oversubscribed = lite_threads_awake() > (int)lite_env.ncpus;
  for (;;) {
    uint32_t seen = atomic_load_explicit(word, memory_order_relaxed);
    if (seen == 0 && atomic_compare_exchange_weak_explicit(word, &seen, value,
                                                           memory_order_acquire,
                                                           memory_order_relaxed))
      return true;
    for (unsigned k = 0; k < backoff; k++)
      lite_cpu_relax();
    pauses_since_clock += backoff;
    backoff = backoff * 2 < max_backoff ? backoff * 2 : max_backoff;
    if (pauses_since_clock >= MUTEX_PAUSES_PER_CLOCK) {
      pauses_since_clock = 0;
      uint64_t now = lite_now_ns();
      if (deadline == 0)
        deadline = now + (oversubscribed ? MUTEX_SPIN_OVERSUBSCRIBED_NS : lite_spin_budget_ns(now));
      else if (now >= deadline)
        return false;
    }
  }
}

static void lock_wait(_Atomic uint32_t *m);

/* A contended mutex (critical, atomic, omp_set_lock, the task queue): under OMPLITE_TRACE, the
   wait is a "lock" interval on the thread's lane. */
void lite_mutex_lock_slow(_Atomic uint32_t *m)
{
  if (lite_prof_tracing()) {
    lite_trace_begin(LITE_TR_LOCK, NULL, lite_now_ns());
    lock_wait(m);
    lite_trace_end(LITE_TR_LOCK, lite_now_ns(), 0, 0);
    return;
  }
  lock_wait(m);
}

static void lock_wait(_Atomic uint32_t *m)
{
  if (spin_then_acquire(m, 1))
    return;
  /* Sleep. Whoever gets the mutex from here on marks it 2 (held, maybe waiters), because it
     cannot know whether other sleepers remain: the unlock then wakes one more than needed at
     worst, never one fewer. */
  while (atomic_exchange_explicit(m, 2, memory_order_acquire) != 0) {
    /* Counted as parked (no sleeper count: the word's 2 tells the unlock to wake), so that the
       other waiters' count of awake threads, which decides how long they spin, leaves it out. */
    lite_park_begin(NULL);
    lite_futex_wait(m, 2);
    lite_park_end(NULL);
    /* Woken, the waiter spins again before it sleeps again: going straight back to sleep kept
       the mutex marked 2 while two threads took turns, so that every unlock made a system call
       (syncbench lock, 2 threads: 21,000-61,000 futex calls a run, against 115 for libgomp). */
    if (spin_then_acquire(m, 2))
      return;
  }
}

void lite_mutex_unlock_slow(_Atomic uint32_t *m) { lite_futex_wake(m, 1); }

/* ---------------------------------------------------------------- omp_lock_t */

_Static_assert(sizeof(omp_lock_t) == sizeof(uint32_t), "omp_lock_t is the futex word");

static inline _Atomic uint32_t *lock_word(omp_lock_t *lock) { return (_Atomic uint32_t *)lock; }

static void lock_init(omp_lock_t *lock) { atomic_init(lock_word(lock), 0); }

/* Warns once per process: a program that passes a bad hint usually does so at every init. */
static void warn_bad_hint(omp_sync_hint_t hint)
{
  static _Atomic bool warned;
  if (!atomic_exchange_explicit(&warned, true, memory_order_relaxed))
    lite_warn("invalid lock hint %#x (unknown bits or contradictory pairs); using the default lock",
              (unsigned)hint);
}

/* Hints select among lock kinds in runtimes with several (LLVM: TSX-speculative, queuing); on
   hardware without transactional memory, which is what this runtime targets, speculation cannot
   be offered and the futex mutex serves every kind well, so each hint gives the same lock. An
   invalid hint (OpenMP 5.2 §2.19.12: contended with uncontended, or speculative with
   nonspeculative; or bits the spec does not define) is not an error the program could handle:
   warn and use the default lock. libgomp 12 does not implement these two routines; they are
   exported once libgomp.map lists them (node OMP_4.5). */
static void check_hint(omp_sync_hint_t hint)
{
  const unsigned known = omp_sync_hint_uncontended | omp_sync_hint_contended |
                         omp_sync_hint_nonspeculative | omp_sync_hint_speculative;
  unsigned h = (unsigned)hint;
  bool contradictory = ((h & omp_sync_hint_uncontended) && (h & omp_sync_hint_contended)) ||
                       ((h & omp_sync_hint_nonspeculative) && (h & omp_sync_hint_speculative));
  if ((h & ~known) != 0 || contradictory)
    warn_bad_hint(hint);
}

void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint)
{
  check_hint(hint);
  lock_init(lock);
  if (lite_ompt_on())
    lite_ompt_lock_init(ompt_mutex_lock, hint, lock, __builtin_return_address(0));
}

/* With a tool, each lock routine also dispatches its events (OpenMP 5.1 section 4.5.2.12-15):
   the wait_id is the lock's address. Out of line, so that the plain path stays a call of the
   mutex. */
static __attribute__((noinline, cold)) void lock_ompt(int op, omp_lock_t *lock,
                                                      const void *codeptr)
{
  switch (op) {
  case 0:
    lock_init(lock);
    lite_ompt_lock_init(ompt_mutex_lock, omp_sync_hint_none, lock, codeptr);
    break;
  case 1:
    lite_ompt_mutex(ompt_callback_lock_destroy, ompt_mutex_lock, lock, codeptr);
    break;
  case 2:
    lite_ompt_mutex_lock(ompt_mutex_lock, lock_word(lock), omp_sync_hint_none, codeptr);
    break;
  case 3:
    lite_mutex_unlock(lock_word(lock));
    lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_lock, lock, codeptr);
    break;
  }
}

static __attribute__((noinline, cold)) int lock_test_ompt(omp_lock_t *lock, const void *codeptr)
{
  lite_ompt_mutex_acquire(ompt_mutex_test_lock, omp_sync_hint_none, lock, codeptr);
  int got = lite_mutex_trylock(lock_word(lock));
  if (got)
    lite_ompt_mutex(ompt_callback_mutex_acquired, ompt_mutex_test_lock, lock, codeptr);
  else
    lite_ompt_mutex_abandon();
  return got;
}

void lite_lock_init(omp_lock_t *lock)
{
  if (lite_ompt_on())
    lock_ompt(0, lock, __builtin_return_address(0));
  else
    lock_init(lock);
}

void lite_lock_destroy(omp_lock_t *lock)
{
  if (lite_ompt_on())
    lock_ompt(1, lock, __builtin_return_address(0));
}

LITE_THREAD_LOCAL unsigned lite_held;

void lite_lock_set(omp_lock_t *lock)
{
  if (lite_ompt_on())
    lock_ompt(2, lock, __builtin_return_address(0));
  else
    lite_mutex_lock(lock_word(lock));
  lite_held_enter();
}

void lite_lock_unset(omp_lock_t *lock)
{
  lite_held_leave();
  if (lite_ompt_on())
    lock_ompt(3, lock, __builtin_return_address(0));
  else
    lite_mutex_unlock(lock_word(lock));
}

int lite_lock_test(omp_lock_t *lock)
{
  int got = lite_ompt_on() ? lock_test_ompt(lock, __builtin_return_address(0))
                           : lite_mutex_trylock(lock_word(lock));
  if (got)
    lite_held_enter();
  return got;
}

/* ---------------------------------------------------------------- omp_nest_lock_t (OMP_3.0) */

_Static_assert(sizeof(struct lite_nest_lock) == sizeof(omp_nest_lock_t), "gcc's omp_nest_lock_t");
_Static_assert(_Alignof(struct lite_nest_lock) <= _Alignof(omp_nest_lock_t), "gcc's alignment");

static inline struct lite_nest_lock *nest(omp_nest_lock_t *lock)
{
  return (struct lite_nest_lock *)lock;
}

/* OpenMP 3.0 gives nest locks to tasks, not threads. An explicit task is its own identity. A
   thread's implicit task is that of the innermost region it is in, one per nesting level at a
   time: a nested region (even a team of one, as `parallel if (0)`) runs a different task, which
   must not count as the owner (GCC's libgomp.c/lock-1.c). The level goes in the top bits, which
   user-space addresses on x86-64 and AArch64 leave clear. */
static inline void *nest_lock_owner_id(void)
{
  struct lite_thread *thr = lite_self();
  if (thr->task != NULL && !thr->task->implicit)
    return (void *)lite_task_identity(thr->task);
  uintptr_t level = thr->team != NULL ? thr->team->level : 0;
  return (void *)((uintptr_t)thr ^ (level << 48));
}

void lite_nest_lock_init(omp_nest_lock_t *lock)
{
  struct lite_nest_lock *l = nest(lock);
  atomic_init(&l->mutex, 0);
  l->count = 0;
  atomic_init(&l->owner, NULL);
  if (lite_ompt_on())
    lite_ompt_lock_init(ompt_mutex_nest_lock, omp_sync_hint_none, lock,
                        __builtin_return_address(0));
}

void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint)
{
  check_hint(hint);
  lite_nest_lock_init(lock);
}

void lite_nest_lock_destroy(omp_nest_lock_t *lock)
{
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_lock_destroy, ompt_mutex_nest_lock, lock,
                    __builtin_return_address(0));
}

/* Another task may store to owner at any time, but only ever its own identity or NULL, so a
   relaxed read tells reliably whether the caller is the owner. */
static inline void nest_lock_set(omp_nest_lock_t *lock)
{
  struct lite_nest_lock *l = nest(lock);
  void *me = nest_lock_owner_id();
  if (atomic_load_explicit(&l->owner, memory_order_relaxed) != me) {
    lite_mutex_lock(&l->mutex);
    atomic_store_explicit(&l->owner, me, memory_order_relaxed);
  }
  l->count++;
}

static inline void nest_lock_unset(omp_nest_lock_t *lock)
{
  struct lite_nest_lock *l = nest(lock);
  if (--l->count == 0) {
    atomic_store_explicit(&l->owner, NULL, memory_order_relaxed);
    lite_mutex_unlock(&l->mutex);
  }
}

static inline int nest_lock_test(omp_nest_lock_t *lock)
{
  struct lite_nest_lock *l = nest(lock);
  void *me = nest_lock_owner_id();
  if (atomic_load_explicit(&l->owner, memory_order_relaxed) == me)
    return ++l->count;
  if (!lite_mutex_trylock(&l->mutex))
    return 0;
  atomic_store_explicit(&l->owner, me, memory_order_relaxed);
  l->count = 1;
  return 1;
}

/* ---------------------------------------------------------------- legacy nest lock (OMP_1.0) */

_Static_assert(sizeof(struct lite_legacy_nest_lock) == 8, "gcc < 4.4's omp_nest_lock_t");

/* The kernel thread id, cached: the system call costs ~100 ns and set/test need it every time.
   A forked child's only thread inherits its parent's cached id, which would then name a thread
   of another process; the fork handler below clears it. */
static LITE_THREAD_LOCAL uint32_t cached_tid;

static void forget_cached_tid(void) { cached_tid = 0; }

__attribute__((constructor)) static void register_tid_fork_handler(void)
{
  pthread_atfork(NULL, NULL, forget_cached_tid);
}

static inline uint32_t my_tid(void)
{
  uint32_t tid = cached_tid;
  if (lite_unlikely(tid == 0))
    cached_tid = tid = (uint32_t)lite_os_gettid();
  return tid;
}

void lite_legacy_nest_lock_init(struct lite_legacy_nest_lock *lock)
{
  atomic_init(&lock->owner, 0);
  lock->count = 0;
  if (lite_ompt_on())
    lite_ompt_lock_init(ompt_mutex_nest_lock, omp_sync_hint_none, lock,
                        __builtin_return_address(0));
}

void lite_legacy_nest_lock_destroy(struct lite_legacy_nest_lock *lock)
{
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_lock_destroy, ompt_mutex_nest_lock, lock,
                    __builtin_return_address(0));
}

/* The lock is held by another thread: spin, then sleep until the owner word falls to 0.
   As with the mutex, an acquirer that may have slept takes the lock with the waiters bit set. */
static void legacy_nest_lock_wait(struct lite_legacy_nest_lock *lock, uint32_t tid)
{
  if (spin_then_acquire(&lock->owner, tid))
    return;
  for (;;) {
    uint32_t seen = atomic_load_explicit(&lock->owner, memory_order_relaxed);
    if (seen == 0) {
      if (atomic_compare_exchange_weak_explicit(&lock->owner, &seen, tid | LITE_LEGACY_WAITERS,
                                                memory_order_acquire, memory_order_relaxed))
        return;
      continue;
    }
    if (!(seen & LITE_LEGACY_WAITERS) &&
        !atomic_compare_exchange_weak_explicit(&lock->owner, &seen, seen | LITE_LEGACY_WAITERS,
                                               memory_order_relaxed, memory_order_relaxed))
      continue;
    lite_park_begin(NULL);
    lite_futex_wait(&lock->owner, seen | LITE_LEGACY_WAITERS);
    lite_park_end(NULL);
  }
}

static inline void legacy_set(struct lite_legacy_nest_lock *lock)
{
  uint32_t tid = my_tid();
  uint32_t seen = 0;
  if (atomic_compare_exchange_strong_explicit(&lock->owner, &seen, tid, memory_order_acquire,
                                              memory_order_relaxed)) {
    lock->count = 1;
    return;
  }
  if ((seen & ~LITE_LEGACY_WAITERS) == tid) {
    lock->count++;
    return;
  }
  legacy_nest_lock_wait(lock, tid);
  lock->count = 1;
}

static inline void legacy_unset(struct lite_legacy_nest_lock *lock)
{
  if (--lock->count == 0 &&
      (atomic_exchange_explicit(&lock->owner, 0, memory_order_release) & LITE_LEGACY_WAITERS))
    lite_futex_wake(&lock->owner, 1);
}

static inline int legacy_test(struct lite_legacy_nest_lock *lock)
{
  uint32_t tid = my_tid();
  /* Look first, as lite_mutex_trylock does: callers spin on test. */
  uint32_t seen = atomic_load_explicit(&lock->owner, memory_order_relaxed);
  if (seen == 0 &&
      atomic_compare_exchange_strong_explicit(&lock->owner, &seen, tid, memory_order_acquire,
                                              memory_order_relaxed)) {
    lock->count = 1;
    return 1;
  }
  if ((seen & ~LITE_LEGACY_WAITERS) == tid)
    return ++lock->count;
  return 0;
}

/* ---------------------------------------------------------------- nest locks with a tool */

/* Both layouts: every set begins with the mutex's acquire (as LLVM's libomp and its OMPT tests
   have it: the caller cannot know it will not wait); the first acquisition then ends as a
   mutex's (acquired), a nested one as the nest lock's scope begin; the last release is the mutex's, an inner one the scope's end. owned:
   whether the calling task held it before; count: its count after the operation. */
static void nest_set_events(const void *lock, bool owned, const void *codeptr)
{
  if (owned) {
    lite_ompt_mutex_abandon(); /* the thread did not wait: working again */
    lite_ompt_nest_lock(ompt_scope_begin, lock, codeptr);
  } else
    lite_ompt_mutex(ompt_callback_mutex_acquired, ompt_mutex_nest_lock, lock, codeptr);
}

static void nest_test_events(const void *lock, int count, const void *codeptr)
{
  if (count > 1)
    lite_ompt_nest_lock(ompt_scope_begin, lock, codeptr);
  else if (count == 1)
    lite_ompt_mutex(ompt_callback_mutex_acquired, ompt_mutex_test_nest_lock, lock, codeptr);
  else
    lite_ompt_mutex_abandon();
}

static __attribute__((noinline, cold)) int nest_ompt(int op, omp_nest_lock_t *lock,
                                                     const void *codeptr)
{
  struct lite_nest_lock *l = nest(lock);
  bool owned = atomic_load_explicit(&l->owner, memory_order_relaxed) == nest_lock_owner_id();
  switch (op) {
  case 0:
    lite_ompt_mutex_acquire(ompt_mutex_nest_lock, omp_sync_hint_none, lock, codeptr);
    nest_lock_set(lock);
    nest_set_events(lock, owned, codeptr);
    return 0;
  case 1: {
    bool last = l->count == 1;
    nest_lock_unset(lock);
    if (last)
      lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_nest_lock, lock, codeptr);
    else
      lite_ompt_nest_lock(ompt_scope_end, lock, codeptr);
    return 0;
  }
  default: {
    if (!owned)
      lite_ompt_mutex_acquire(ompt_mutex_test_nest_lock, omp_sync_hint_none, lock, codeptr);
    int count = nest_lock_test(lock);
    nest_test_events(lock, count, codeptr);
    return count;
  }
  }
}

/* Nest locks count every level in lite_held (a set or a successful test, an unset), so the two
   balance one to one whatever the nesting. */
void lite_nest_lock_set(omp_nest_lock_t *lock)
{
  if (lite_ompt_on())
    nest_ompt(0, lock, __builtin_return_address(0));
  else
    nest_lock_set(lock);
  lite_held_enter();
}

void lite_nest_lock_unset(omp_nest_lock_t *lock)
{
  lite_held_leave();
  if (lite_ompt_on())
    nest_ompt(1, lock, __builtin_return_address(0));
  else
    nest_lock_unset(lock);
}

int lite_nest_lock_test(omp_nest_lock_t *lock)
{
  int count = lite_ompt_on() ? nest_ompt(2, lock, __builtin_return_address(0))
                             : nest_lock_test(lock);
  if (count != 0)
    lite_held_enter();
  return count;
}

static __attribute__((noinline, cold)) int legacy_ompt(int op, struct lite_legacy_nest_lock *lock,
                                                       const void *codeptr)
{
  bool owned = (atomic_load_explicit(&lock->owner, memory_order_relaxed) &
                ~LITE_LEGACY_WAITERS) == my_tid();
  switch (op) {
  case 0:
    lite_ompt_mutex_acquire(ompt_mutex_nest_lock, omp_sync_hint_none, lock, codeptr);
    legacy_set(lock);
    nest_set_events(lock, owned, codeptr);
    return 0;
  case 1: {
    bool last = lock->count == 1;
    legacy_unset(lock);
    if (last)
      lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_nest_lock, lock, codeptr);
    else
      lite_ompt_nest_lock(ompt_scope_end, lock, codeptr);
    return 0;
  }
  default: {
    if (!owned)
      lite_ompt_mutex_acquire(ompt_mutex_test_nest_lock, omp_sync_hint_none, lock, codeptr);
    int count = legacy_test(lock);
    nest_test_events(lock, count, codeptr);
    return count;
  }
  }
}

void lite_legacy_nest_lock_set(struct lite_legacy_nest_lock *lock)
{
  if (lite_ompt_on())
    legacy_ompt(0, lock, __builtin_return_address(0));
  else
    legacy_set(lock);
  lite_held_enter();
}

void lite_legacy_nest_lock_unset(struct lite_legacy_nest_lock *lock)
{
  lite_held_leave();
  if (lite_ompt_on())
    legacy_ompt(1, lock, __builtin_return_address(0));
  else
    legacy_unset(lock);
}

int lite_legacy_nest_lock_test(struct lite_legacy_nest_lock *lock)
{
  int count = lite_ompt_on() ? legacy_ompt(2, lock, __builtin_return_address(0))
                             : legacy_test(lock);
  if (count != 0)
    lite_held_enter();
  return count;
}

/* ---------------------------------------------------------------- exported names */

/* The simple lock has one layout in both versions, so one implementation carries both names.
   The nest lock's OMP_1.0 name takes the legacy layout, which the C type system cannot see: the
   symbol is all the caller knows. The plain names in abi.h come only from these directives. */
__asm__(".symver lite_lock_init, omp_init_lock@@OMP_3.0");
__asm__(".symver lite_lock_init, omp_init_lock@OMP_1.0");
__asm__(".symver lite_lock_destroy, omp_destroy_lock@@OMP_3.0");
__asm__(".symver lite_lock_destroy, omp_destroy_lock@OMP_1.0");
__asm__(".symver lite_lock_set, omp_set_lock@@OMP_3.0");
__asm__(".symver lite_lock_set, omp_set_lock@OMP_1.0");
__asm__(".symver lite_lock_unset, omp_unset_lock@@OMP_3.0");
__asm__(".symver lite_lock_unset, omp_unset_lock@OMP_1.0");
__asm__(".symver lite_lock_test, omp_test_lock@@OMP_3.0");
__asm__(".symver lite_lock_test, omp_test_lock@OMP_1.0");

__asm__(".symver lite_nest_lock_init, omp_init_nest_lock@@OMP_3.0");
__asm__(".symver lite_nest_lock_destroy, omp_destroy_nest_lock@@OMP_3.0");
__asm__(".symver lite_nest_lock_set, omp_set_nest_lock@@OMP_3.0");
__asm__(".symver lite_nest_lock_unset, omp_unset_nest_lock@@OMP_3.0");
__asm__(".symver lite_nest_lock_test, omp_test_nest_lock@@OMP_3.0");
__asm__(".symver lite_legacy_nest_lock_init, omp_init_nest_lock@OMP_1.0");
__asm__(".symver lite_legacy_nest_lock_destroy, omp_destroy_nest_lock@OMP_1.0");
__asm__(".symver lite_legacy_nest_lock_set, omp_set_nest_lock@OMP_1.0");
__asm__(".symver lite_legacy_nest_lock_unset, omp_unset_nest_lock@OMP_1.0");
__asm__(".symver lite_legacy_nest_lock_test, omp_test_nest_lock@OMP_1.0");

/* LLVM's ABI (kmpc/, version VERSION, for clang-built programs): its omp_lock_t and
   omp_nest_lock_t are one pointer each. The simple lock's futex word fits; the nest lock takes
   the legacy 8-byte layout, whose owner is a thread, as LLVM's is. */
LITE_EXPORT void lite_legacy_nest_lock_init_with_hint(struct lite_legacy_nest_lock *lock,
                                                      omp_sync_hint_t hint);
void lite_legacy_nest_lock_init_with_hint(struct lite_legacy_nest_lock *lock,
                                          omp_sync_hint_t hint)
{
  check_hint(hint);
  lite_legacy_nest_lock_init(lock);
}

__asm__(".symver lite_lock_init, omp_init_lock@VERSION");
__asm__(".symver lite_lock_destroy, omp_destroy_lock@VERSION");
__asm__(".symver lite_lock_set, omp_set_lock@VERSION");
__asm__(".symver lite_lock_unset, omp_unset_lock@VERSION");
__asm__(".symver lite_lock_test, omp_test_lock@VERSION");
__asm__(".symver omp_init_lock_with_hint, omp_init_lock_with_hint@VERSION");
__asm__(".symver lite_legacy_nest_lock_init, omp_init_nest_lock@VERSION");
__asm__(".symver lite_legacy_nest_lock_init_with_hint, omp_init_nest_lock_with_hint@VERSION");
__asm__(".symver lite_legacy_nest_lock_destroy, omp_destroy_nest_lock@VERSION");
__asm__(".symver lite_legacy_nest_lock_set, omp_set_nest_lock@VERSION");
__asm__(".symver lite_legacy_nest_lock_unset, omp_unset_nest_lock@VERSION");
__asm__(".symver lite_legacy_nest_lock_test, omp_test_nest_lock@VERSION");
