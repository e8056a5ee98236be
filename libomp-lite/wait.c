/* The wait policy: spin for a bounded time, yield when threads outnumber CPUs, then park.

   Figures from DESIGN §5 (2 vCPUs, KVM): waking a parked thread costs 20-25 µs, so a waiter spins
   long enough to cover the usual gap between regions (spin_ns, 300 µs by default) before it
   parks. With more runtime threads awake than CPUs, spinning would hold the CPU the awaited
   thread needs (4 threads on 2 cores: ~4 ms per barrier spinning, ~2 µs yielding every poll), so
   the waiter yields on every poll instead, for yield_ns, then parks. The budget is time, not
   iterations: pause costs differ tenfold between processors. */
#include "internal.h"
#include "profile/profile.h"

#include <limits.h>

_Atomic int lite_threads_live;
_Atomic int lite_threads_parked;

/* Parked threads that a futex wake-up made runnable and that have not run yet. Until a woken
   thread runs it still counts as parked, so the waiters that count the awake threads took it
   for asleep: with 4 threads on 2 CPUs, the two members that had work spun at the join while
   the two woken for the region waited for a CPU, often until the next scheduler tick. A triad
   loop of ~1 ms after a serial pause of 2 ms (workers parked): 1180-1290 us a loop, 980-1020
   counting them (libgomp 1030-1050). The kernel returns 0 from a futex wait only to a thread
   that a wake-up counted, so the adds and the subtractions match; a woken thread may subtract
   before its waker has added, so the count can be -1 for a moment (read as 0). A floor at 0
   there lost the subtraction and left the count at 1 for good: every waiter of a 2-thread team
   then yielded instead of spinning (loopbench ordered 130 -> 260-600 ns/it in some processes). */
_Atomic int lite_threads_waking;

void lite_wake_sent(int n)
{
  atomic_fetch_add_explicit(&lite_threads_waking, n, memory_order_relaxed);
  if (lite_prof_on())
    lite_prof_wakes(n);
}

void lite_wake_arrived(void)
{
  atomic_fetch_sub_explicit(&lite_threads_waking, 1, memory_order_relaxed);
}

int lite_threads_awake(void)
{
  int waking = atomic_load_explicit(&lite_threads_waking, memory_order_relaxed);
  return atomic_load_explicit(&lite_threads_live, memory_order_relaxed) -
         atomic_load_explicit(&lite_threads_parked, memory_order_relaxed) +
         (waking > 0 ? waking : 0);
}

/* Polls between two looks at the clock while spinning: 64 pauses are about 1.5 µs here, and a
   clock read about 20 ns, so the budget is kept to within a few µs for ~1% of overhead. */
#define SPIN_POLLS_PER_CLOCK 64

/* A competing process (which the count of our own threads cannot see) shows up as a spinner
   that was itself preempted: 64 pauses that took longer than PREEMPTED_NS. The spinner then
   parks at once, and for CONTENDED_NS every waiter spins at most CONTENDED_SPIN_NS before it
   parks, instead of spin_ns: spinning would hold the CPU the awaited thread needs, and yielding
   hands it to the other process for a whole tick. DESIGN §5, 2 threads and a busy process:
   "spin 50 µs then futex" 0.15-0.65 µs per barrier, spinning longer costs ms. */
#define PREEMPTED_NS 200000
#define CONTENDED_NS 20000000
#define CONTENDED_SPIN_NS 50000
static _Atomic uint64_t contended_until_ns;

/* See the peer check in lite_waiter_poll. */
#define PEER_CHECK_NS 30000

uint64_t lite_spin_budget_ns(uint64_t now)
{
  uint64_t until = atomic_load_explicit(&contended_until_ns, memory_order_relaxed);
  if (now < until && lite_env.spin_ns > CONTENDED_SPIN_NS)
    return CONTENDED_SPIN_NS;
  return lite_env.spin_ns;
}

/* Whether other processes overload our CPUs, which a waiter cannot see from its own threads:
   with more of our threads than CPUs, a yielding waiter then hands a busy process a whole time
   slice at each yield, and a spinning one holds a CPU the awaited thread needs (4 threads and 4
   busy processes on 2 CPUs, ws_combined: 38 s yielding and spinning, 2.2-3.4 s parking at once;
   libgomp 4.1 s). See crowded() below for when it is asked.

   Any waiter reads the kernel's count of runnable tasks at most once per LOAD_CHECK_NS. What is
   left after our awake threads and one per online CPU this process does not use (assume foreign
   load spreads over the machine) is foreign, unless threads we count as parked are runnable
   already (woken, waiting for a CPU): when that count says 2 or more, the threads of this process
   that are runnable are counted one by one, except while the state lasts (the scan reads a file
   per thread, and under overload it can lose the CPU in the middle). Two foreign tasks at two
   checks in a row start (or renew) the overloaded state. One busy process is not overload: the
   preemption check above handles it. A kernel thread that runs for a moment must not start it
   either. OMPLITE_LOAD_WATCH=false turns this off. */
#define LOAD_CHECK_NS 10000000
static _Atomic uint64_t load_checked_ns;
static _Atomic uint64_t overloaded_until_ns;
static _Atomic int load_high_checks;

/* The scan of /proc/self/task reads a file per thread of the process: with many threads it cost
   the square of the team (each waiter's check scanned every thread, and a scan of 4,096 threads
   outlasted the period, so one always ran: 512 threads made 66,168 openat calls in 12 regions,
   and env_bad_values' 4,096 threads took 11.4 s beside two busy loops, 0.9 s without the
   watch). Above SCAN_MAX_THREADS live threads the estimate stands alone: such a team outnumbers
   the CPUs many times over, and parking early is right for it anyway. */
#define SCAN_MAX_THREADS 64

/* An indirect call per count costs nothing beside the file reads behind it (some µs). */
struct lite_load_counts lite_load_counts = {
  .runnable_tasks = lite_os_runnable_tasks,
  .runnable_threads_of_process = lite_os_runnable_threads_of_process,
};

/* Foreign tasks now: exact (the threads of this process counted one by one) once the estimate
   reaches exact_from, for a process of at most SCAN_MAX_THREADS threads of ours. */
static int foreign_tasks(int exact_from)
{
  int runnable = lite_load_counts.runnable_tasks();
  if (runnable < 0)
    return 0;
  int unused_cpus = (int)lite_os_online_cpus() - (int)lite_env.ncpus;
  int others = runnable - (unused_cpus > 0 ? unused_cpus : 0);
  int awake = lite_threads_awake();
  if (others - awake < exact_from ||
      atomic_load_explicit(&lite_threads_live, memory_order_relaxed) > SCAN_MAX_THREADS)
    return others - awake;
  int ours = lite_load_counts.runnable_threads_of_process();
  return others - (ours >= 0 ? ours : awake);
}

/* OMP_DYNAMIC=true: a new team gets at most the CPUs that other processes leave free, as in
   libgomp (which subtracts the one-minute load average) and LLVM. The count is the kernel's
   runnable tasks now, less our own awake threads and the online CPUs this process does not use
   (the estimate of foreign_tasks, without the per-thread scan, so its cost does not grow with
   the process's threads), read at most once per LOAD_CHECK_NS by one thread for the whole
   process; the forks in between use the last answer. 2 busy processes on 2 CPUs: 1 thread, as
   libgomp and LLVM give (2 before). */
static _Atomic uint64_t dynamic_checked_ns;
static _Atomic int dynamic_free_cpus = -1;

unsigned lite_dynamic_threads(unsigned n)
{
  unsigned ncpus = lite_env.ncpus;
  if (n > ncpus)
    n = ncpus;
  int free_cpus = atomic_load_explicit(&dynamic_free_cpus, memory_order_relaxed);
  if (lite_env.load_watch) {
    uint64_t now = lite_now_ns();
    uint64_t last = atomic_load_explicit(&dynamic_checked_ns, memory_order_relaxed);
    if ((free_cpus < 0 || now - last >= LOAD_CHECK_NS) &&
        atomic_compare_exchange_strong(&dynamic_checked_ns, &last, now)) {
      int foreign = foreign_tasks(INT_MAX);
      free_cpus = foreign <= 0 ? (int)ncpus : foreign < (int)ncpus ? (int)ncpus - foreign : 0;
      atomic_store_explicit(&dynamic_free_cpus, free_cpus, memory_order_relaxed);
    }
  }
  if (free_cpus >= 0 && (unsigned)free_cpus < n)
    n = (unsigned)free_cpus;
  return n > 0 ? n : 1;
}

static void check_load(uint64_t now)
{
  int high = 0;
  bool was = now < atomic_load_explicit(&overloaded_until_ns, memory_order_relaxed);
  if (foreign_tasks(was ? INT_MAX : 2) >= 2)
    high = atomic_load_explicit(&load_high_checks, memory_order_relaxed) + 1;
  atomic_store_explicit(&load_high_checks, high, memory_order_relaxed);
  if (high >= 2)
    atomic_store_explicit(&overloaded_until_ns, now + CONTENDED_NS, memory_order_relaxed);
}

/* One reader at a time for the whole process, and the period counts from the end of the last
   check: the exchange claims the check with a time LOAD_CLAIM_NS ahead, so that no other waiter
   starts one while it runs (a check that outlasted the period let the next waiter start another
   at once), and the end of the check sets the real time. A claim that never ends (a fork()
   while a thread of the parent held it) only delays the child's checks by that much. */
#define LOAD_CLAIM_NS 1000000000ull
static bool overloaded(uint64_t now)
{
  if (!lite_env.load_watch)
    return false;
  uint64_t last = atomic_load_explicit(&load_checked_ns, memory_order_relaxed);
  if (now >= last && now - last >= LOAD_CHECK_NS &&
      atomic_compare_exchange_strong(&load_checked_ns, &last, now + LOAD_CLAIM_NS)) {
    check_load(now);
    atomic_store_explicit(&load_checked_ns, lite_now_ns(), memory_order_relaxed);
  }
  return now < atomic_load_explicit(&overloaded_until_ns, memory_order_relaxed);
}

/* Whether a waiter parks at once: other processes overload the CPUs, and the runtime's own
   threads outnumber them, so that the awaited thread may wait for this very CPU. With no more
   threads than CPUs, spinning under overload keeps the team's share of the CPUs: 2 threads and 2
   busy processes on 2 CPUs, stencil 36-39 ms a run spinning, 390 ms parking at once (libgomp
   63-120); 4 threads and 4 busy processes: 5.6 s spinning once the others parked, 0.19-0.66 s
   parking at once (libgomp 0.21). */
static bool crowded(uint64_t now)
{
  return atomic_load_explicit(&lite_threads_live, memory_order_relaxed) > (int)lite_env.ncpus &&
         overloaded(now);
}

/* The balancer's question (balance.c) needs an answer it can trust both ways: moving a worker onto
   a CPU that a busy process holds costs whole time slices per region (4 threads and a busy
   process on 2 CPUs: `parallel` 1750-2000 us instead of 2.5), and a team kept lopsided for
   nothing loses a tenth of a memory-bound loop (triad-dynamic-4k at 4 threads on 2 CPUs).

   The kernel's count of runnable tasks holds every awake thread of ours, but only some of the
   parked ones: a thread that has just gone to sleep can stay counted (Linux 6.12 and later keep
   a sleeper that ran past its fair share queued until it is picked: at the joins of that loop
   the count read 3 or 4 where 2 of ours ran, 2 slept, and nothing else ran), and one being woken
   is counted once the kernel has queued it. Counting every live thread of ours as runnable
   gives a floor for the foreign tasks, counting none of the parked ones a ceiling: above zero
   the floor says foreign, at zero or below the ceiling says none, and in between (parked threads
   that may or may not be counted) nothing is known. The answer is kept for VERDICT_NS; an
   unknown one asks for a count (count_wanted), which the thread whose wake-up leaves no one
   parked takes (the floor and the ceiling are one then), or a yielding waiter. Threads of ours
   blocked elsewhere (a system call of the program's) can hide a foreign task; those asleep on a
   lock count as parked.
   The preempted-spinner state is no evidence here: with more members than CPUs, they preempt
   one another. */
#define VERDICT_NS 10000000
static _Atomic bool count_wanted;
static _Atomic uint64_t counted_ns; /* when the last answer was counted: 0 for never */
static _Atomic bool counted_foreign;

/* Reads the kernel's count and, when it settles the question, keeps the answer. */
static enum lite_load count(uint64_t now)
{
  int parked = atomic_load(&lite_threads_parked);
  int runnable = lite_load_counts.runnable_tasks();
  if (runnable < 0 || atomic_load(&lite_threads_parked) != parked)
    return LITE_LOAD_UNKNOWN;
  int unused_cpus = (int)lite_os_online_cpus() - (int)lite_env.ncpus;
  int others = runnable - (unused_cpus > 0 ? unused_cpus : 0) -
               atomic_load_explicit(&lite_threads_live, memory_order_relaxed);
  /* others: the floor; others + parked: the ceiling */
  enum lite_load load = others > 0            ? LITE_LOAD_FOREIGN
                        : others + parked <= 0 ? LITE_LOAD_NONE
                                               : LITE_LOAD_UNKNOWN;
  if (load != LITE_LOAD_UNKNOWN) {
    atomic_store_explicit(&counted_foreign, load == LITE_LOAD_FOREIGN, memory_order_relaxed);
    atomic_store_explicit(&counted_ns, now, memory_order_release);
    atomic_store_explicit(&count_wanted, false, memory_order_relaxed);
  }
  return load;
}

/* A count asked for, taken by a waiter at most once per COUNT_TRY_NS: its reads cost a few us. */
#define COUNT_TRY_NS 100000
static _Atomic uint64_t count_tried_ns;

static void count_if_wanted(uint64_t now)
{
  if (!atomic_load_explicit(&count_wanted, memory_order_relaxed))
    return;
  uint64_t tried = atomic_load_explicit(&count_tried_ns, memory_order_relaxed);
  if (now - tried >= COUNT_TRY_NS &&
      atomic_compare_exchange_strong(&count_tried_ns, &tried, now))
    (void)count(now);
}

enum lite_load lite_foreign_load(uint64_t now)
{
  if (!lite_env.load_watch)
    return LITE_LOAD_NONE;
  if (overloaded(now))
    return LITE_LOAD_FOREIGN;
  enum lite_load load = count(now);
  if (load != LITE_LOAD_UNKNOWN)
    return load;
  uint64_t counted = atomic_load_explicit(&counted_ns, memory_order_acquire);
  if (counted != 0 && now < counted + VERDICT_NS)
    return atomic_load_explicit(&counted_foreign, memory_order_relaxed) ? LITE_LOAD_FOREIGN
                                                                         : LITE_LOAD_NONE;
  atomic_store_explicit(&count_wanted, true, memory_order_relaxed);
  return LITE_LOAD_UNKNOWN;
}

static enum lite_wait_mode wait_mode_now(void)
{
  if (lite_env.spin_ns == 0 && lite_env.yield_ns == 0)
    return LITE_WAIT_PARK;
  return lite_threads_awake() > (int)lite_env.ncpus ? LITE_WAIT_YIELD : LITE_WAIT_SPIN;
}

/* Where to go when a leader's wait finds the awaited worker on its own CPU. With the other CPUs
   idle, the leader moves itself to one of them (below). Under foreign load, the other CPUs are
   busy with another process's work, and a leader moved there got half a CPU, for the region and
   for the program's serial code after it: numpy's 256x256 products at 2 threads beside a busy
   process, 0.46-0.58 s against LLVM's 0.28-0.41, the main thread on the busy CPU in 18 of 20
   samples. Sharing its CPU with its own worker costs a switch to it at every such wait instead:
   nothing beside a long region, but twice LLVM's time for back-to-back short ones (syncbench
   `parallel` beside a busy process, 0.47 -> 2.54 us a region, LLVM 1.31). So under foreign load
   the leader yields to the worker, and moves only after COLOC_SHORT_RUN waits in a row that
   ended within COLOC_SHORT_NS of that yield, all within COLOC_RUN_NS: the worker had little left
   to do, and the regions come back to back, so that a switch at each would cost more than the
   leader's serial code on a shared CPU. numpy's products come about 1 ms apart, with Python
   between them: counted over any span of time, four short waits in a row still moved the
   leader there, and a run with one move stayed slow (numpy-256x256 beside a busy process, 8
   alternated processes: 0.325 s (0.260..0.381) with the move, 0.190 (0.170..0.265) with a 1 ms
   window, LLVM 0.237 (0.195..0.457); 200 us was too short: syncbench parallel beside the busy
   process 0.65 -> 69 us a region, as back-to-back waits each cost the worker's 30 us spin).
   (A wait that yields also waits for the worker's own spin, 30 us, before it gives the CPU
   back.) */
#define COLOC_SHORT_NS 100000
#define COLOC_SHORT_RUN 4
#define COLOC_RUN_NS 1000000
static LITE_THREAD_LOCAL unsigned coloc_short_run;
static LITE_THREAD_LOCAL uint64_t coloc_run_start_ns; /* the first yield of the run */

/* The load as a co-located leader needs it (see above): the last verdict while it holds, else
   one count, which keeps its answer when it settles the question. */
static enum lite_load load_for_move(uint64_t now)
{
  if (!lite_env.load_watch)
    return LITE_LOAD_NONE;
  if (overloaded(now))
    return LITE_LOAD_FOREIGN;
  uint64_t counted = atomic_load_explicit(&counted_ns, memory_order_acquire);
  if (counted != 0 && now < counted + VERDICT_NS)
    return atomic_load_explicit(&counted_foreign, memory_order_relaxed) ? LITE_LOAD_FOREIGN
                                                                         : LITE_LOAD_NONE;
  return count(now);
}

/* Wake ahead (gap.c) spins a window into CPUs that another process may need: not while a
   spinner was lately preempted, nor while the load watch sees or suspects foreign load (an
   unknown verdict counts as load: beside one busy process on 2 CPUs the count cannot tell).
   may_read: whether a stale verdict may be counted again, which reads /proc (15-60 us after a
   long serial phase here). The leader's fork asks without reading: it read the count on every
   fork after gaps of 10 ms and more, 40-60 us each time, before publishing the region
   (gapbench at 10 ms: +70 us a step against LLVM); member 1 reads as the gap starts, when its
   time costs nothing. Without reading, what is not known is no load. */
bool lite_wake_ahead_loaded(uint64_t now, bool may_read)
{
  if (now < atomic_load_explicit(&contended_until_ns, memory_order_relaxed))
    return true;
  if (may_read)
    return load_for_move(now) != LITE_LOAD_NONE;
  if (!lite_env.load_watch)
    return false;
  if (now < atomic_load_explicit(&overloaded_until_ns, memory_order_relaxed))
    return true;
  uint64_t counted = atomic_load_explicit(&counted_ns, memory_order_acquire);
  return counted != 0 && now < counted + VERDICT_NS &&
         atomic_load_explicit(&counted_foreign, memory_order_relaxed);
}

void lite_waiter_end(const struct lite_waiter *w)
{
  if (w->coloc_yield_ns == 0)
    return;
  uint64_t now = lite_now_ns();
  if (now - w->coloc_yield_ns >= COLOC_SHORT_NS) {
    coloc_short_run = 0;
    return;
  }
  if (coloc_short_run == 0 || now - coloc_run_start_ns > COLOC_RUN_NS) {
    coloc_short_run = 0; /* a new run starts with this wait */
    coloc_run_start_ns = w->coloc_yield_ns;
  }
  coloc_short_run++;
}

void lite_waiter_init(struct lite_waiter *w)
{
  w->polls = 0;
  w->peer_cpu = NULL;
  w->peer_tid = 0;
  w->coloc_yield_ns = 0;
  w->mode = wait_mode_now();
  /* Most waits end within a few polls: the clock is first read after SPIN_POLLS_PER_CLOCK of
     them (a yielding waiter, at its first poll), which moves the budget by about 1.5 µs. Read
     here for a yielding waiter, it cost every wait that never polled a clock_gettime: with 16
     threads on 2 CPUs, every lock of a stealing loop's range (clang-built loopbench `runtime`,
     16 % of the samples in __vdso_clock_gettime). */
  w->start_ns = 0;
  w->last_ns = 0;
}

bool lite_waiter_poll(struct lite_waiter *w)
{
  switch (w->mode) {
  case LITE_WAIT_SPIN:
    lite_cpu_relax();
    if (++w->polls % SPIN_POLLS_PER_CLOCK != 0)
      return true;
    uint64_t now = lite_now_ns();
    if (w->start_ns == 0) {
      w->start_ns = w->last_ns = now;
    } else {
      if (now - w->last_ns > PREEMPTED_NS) {
        atomic_store_explicit(&contended_until_ns, now + CONTENDED_NS, memory_order_relaxed);
        return false;
      }
      w->last_ns = now;
      if (now - w->start_ns > lite_spin_budget_ns(now) || crowded(now))
        return false;
      /* The scheduler may put the awaited thread on this CPU (a futex wake-up lands the wakee
         next to the waker) while the other CPU idles: spinning then delays it by the whole
         budget (0.3-1.2 ms barriers were measured at 2 threads on 2 idle CPUs). A wait that has
         not ended after PEER_CHECK_NS, for a thread that said it runs here, yields to it.
         Checking sooner turned every barrier of a co-located pair into two context switches
         (~11 us) even when the pair would have been separated by the next wake-up. */
      if (w->peer_cpu != NULL && now - w->start_ns > PEER_CHECK_NS) {
        int cpu = lite_os_cpu();
        /* A leader waiting for a worker leaves the CPU to it, moving itself to another one;
           one pair of sched_setaffinity calls ends the co-location instead of paying for it at
           every barrier. The leader moves itself, not the worker (which runs user code, and
           would see its mask change), and only if its mask is the process's (see os.h).
           Otherwise the waiter yields. */
        if (atomic_load_explicit(w->peer_cpu, memory_order_relaxed) == cpu) {
          /* Decided once per wait: the load is read at most once, and mostly from the last
             verdict (each read of /proc/loadavg costs system calls on the shared CPU). */
          if (w->coloc_yield_ns == 0 && w->peer_tid != 0 && coloc_short_run < COLOC_SHORT_RUN &&
              load_for_move(now) != LITE_LOAD_NONE)
            w->peer_tid = 0;
          if (w->peer_tid != 0 && lite_os_move_self_off_cpu(cpu)) {
            coloc_short_run = 0;
          } else {
            if (w->coloc_yield_ns == 0)
              w->coloc_yield_ns = now;
            lite_os_yield();
          }
        }
      }
    }
    /* Threads may have woken since this wait began: re-decide spin or yield. */
    w->mode = wait_mode_now();
    return true;
  case LITE_WAIT_YIELD: {
    uint64_t now = lite_now_ns();
    if (w->start_ns == 0)
      w->start_ns = now;
    if (now - w->start_ns > lite_env.yield_ns || crowded(now))
      return false;
    count_if_wanted(now);
    /* A yielding waiter that turns to spinning must not take the time since its last clock
       reading here for a preemption (valgrind found last_ns unset on that path). */
    w->last_ns = now;
    lite_os_yield();
    w->polls++;
    if (w->polls % 8 == 0)
      w->mode = wait_mode_now();
    return true;
  }
  case LITE_WAIT_PARK:
  default:
    return false;
  }
}

void lite_park_begin(_Atomic uint32_t *sleepers)
{
  /* Sequentially consistent: the waker stores its word and then reads *sleepers; we count
     ourselves and then re-read the word. One of the two must see the other. */
  if (sleepers != NULL)
    atomic_fetch_add(sleepers, 1);
  atomic_fetch_add_explicit(&lite_threads_parked, 1, memory_order_relaxed);
  if (lite_prof_on())
    lite_prof_park_begin();
}

void lite_park_end(_Atomic uint32_t *sleepers)
{
  if (lite_prof_on())
    lite_prof_park_end();
  bool last = atomic_fetch_sub_explicit(&lite_threads_parked, 1, memory_order_relaxed) == 1;
  if (sleepers != NULL)
    atomic_fetch_sub_explicit(sleepers, 1, memory_order_relaxed);
  if (lite_unlikely(last && atomic_load_explicit(&count_wanted, memory_order_relaxed)))
    (void)count(lite_now_ns());
}

void lite_wait_while_equal(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleepers)
{
  lite_wait_while_equal_watch(word, old, sleepers, NULL);
}

void lite_wait_while_equal_watch(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleepers,
                                 _Atomic int *peer_cpu)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  lite_waiter_watch(&w, peer_cpu);
  while (atomic_load_explicit(word, memory_order_acquire) == old) {
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(sleepers);
    while (atomic_load(word) == old)
      lite_futex_wait(word, old);
    lite_park_end(sleepers);
    break;
  }
  atomic_thread_fence(memory_order_acquire);
}

void lite_wait_until_equal(_Atomic uint32_t *word, uint32_t target, _Atomic uint32_t *sleepers)
{
  struct lite_waiter w;
  lite_waiter_init(&w);
  while (atomic_load_explicit(word, memory_order_acquire) != target) {
    if (lite_waiter_poll(&w))
      continue;
    lite_park_begin(sleepers);
    uint32_t seen;
    while ((seen = atomic_load(word)) != target)
      lite_futex_wait(word, seen);
    lite_park_end(sleepers);
    break;
  }
  atomic_thread_fence(memory_order_acquire);
}

void lite_store_and_wake(_Atomic uint32_t *word, uint32_t value, _Atomic uint32_t *sleepers)
{
  atomic_store(word, value);
  /* No system call unless someone sleeps (futex_wake with no waiter still costs ~155 ns). */
  if (atomic_load(sleepers) != 0)
    lite_futex_wake(word, INT_MAX);
}

void lite_bump_and_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleepers)
{
  atomic_fetch_add(word, 1);
  if (atomic_load(sleepers) != 0)
    lite_futex_wake(word, INT_MAX);
}
