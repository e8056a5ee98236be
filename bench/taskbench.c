/* taskbench: the cost of explicit tasks, side by side under every runtime.

   Sixteen rows (bench/run-bench runs one row per process; docs/benchmarks.md has the full
   table), each in microseconds per operation, the unit named by --list:

     task-create     us/task       one thread (single) creates N empty tasks, then taskwait
     task-all        us/task       every thread creates N empty tasks, then taskwait
     fib             us/fib        one fib(n) with two tasks and a taskwait per call, serial below
                                   a cutoff: the time of the whole fib(n), not of one task (the
                                   # line gives its task count and its time without tasks)
     task-dep-chain  us/task       one thread creates a chain of N depend(inout: x) tasks, then
                                   taskwait
     taskloop        us/taskloop   one thread runs `taskloop` over M iterations of a[i]++, with
                                   the runtime's default grainsize
     taskgroup       us/taskgroup  one thread runs `taskgroup` around K empty tasks
   and the shapes of task programs written by others (issue 24):
     task-nested     us/task       one thread makes 16 tasks that each make 16 empty tasks and
                                   wait for them (every task counted)
     tree-leaf       us/task       a binary tree of tasks 14 levels deep, a taskwait per node,
                                   20 iterations of work at the leaves (no serial cutoff)
     tree-node       us/task       the same with the work at every node
     master-busy     us/task       the primary makes 64 tasks of 50 iterations of work and waits,
                                   while the other members work on their own in the same region
     uts             us/node       an unbalanced tree search: one task per node, a node's
                                   children (0, 2 or 3) from a hash of its id, no taskwait below
                                   a taskgroup around the 64 roots (the # line gives the nodes)
   and the fine-grained shapes of EPCC's taskbench that the rows above lack (issue 38):
     task-if0        us/task       every thread creates N `task if(c)` with c false at run time
                                   (undeferred: run at once by their creator), per task of one
                                   thread; the serial_us line gives the same loop with a bare
                                   indirect call instead of the task, on one thread
     task-nested-1   us/task       every thread creates N/2 tasks that each create one empty task
                                   and wait for it, then taskwait (every task counted, per thread)
     tree-leaf-for   us/task       a `for` over nthreads x reps iterations inside `parallel`, each
                                   making a binary tree of tasks 6 levels deep (63 tasks; a task
                                   makes its two children and does not wait: the `for`'s barrier
                                   does), 20 iterations of work at each of the 64 leaves, run by
                                   the tasks of the last level; per task of the whole team
     tree-node-for   us/task       the same with the work in every task (after its children are
                                   made), and none at the leaves
   and taskloop with small grains (issue 38's taskloop bullet):
     taskloop-g1     us/taskloop   one thread runs `taskloop grainsize(1)` over G iterations
                                   (--g1-iters, default 10^7) of a[i]++: one task per iteration
                                   (issue 38; the closing table is at 10^7)

   Every test is one parallel region around `reps` operations, so that no barrier or fork sits
   between two operations: in the one-creator rows a single `single` holds the whole loop of reps,
   and the other threads wait in its closing barrier, where they run the queued tasks (as in EPCC
   taskbench's master-task tests). reps is calibrated as in syncbench and loopbench: doubled
   until one test takes the target time, confirmed by the fastest of three, and until doubling
   reps nearly doubles the time (a region start that costs milliseconds under oversubscription must
   not pass for the cost of the tasks). A sample is the time of one test divided by its operations:
   task-create, task-dep-chain: reps x N tasks; task-all: reps x N, the tasks of one thread (the
   team creates nthreads x N in that time, as EPCC counts its parallel-task test); fib, taskloop,
   taskgroup: reps constructs. Empty tasks need no reference to subtract.

   The empty tasks add one to a threadprivate counter (a plain TLS increment, no runtime call),
   gathered after the timed loop, so every timed run checks that every task ran exactly once (fib's
   tasks, the chain's and the taskloop's iterations count themselves too); fib also checks its
   result, taskloop every element. The same counters tell how much of the work ran on threads
   other than the creator (the thread in the single): empty tasks are cheapest when the creator
   runs them all itself, so the time of a row means little without that share. Before timing, a
   verification
   pass checks the semantics the timed runs cannot see for free: taskwait and taskgroup wait for
   all their tasks, the chain runs in order, each taskloop has finished when the construct ends.
   A wrong result prints FAIL and exits with status 1.

   Output, one line per item, for bench/run-bench:
     runtime <path>, runtime-gomp <path>, threads <team size>   (as syncbench)
     construct <name> sample <value>                            (unit: --list, or the # line)
     construct <name> away <percent>   the share of the tasks (taskloop: iterations) of the
                                       samples that ran on a thread other than the creator
                                       (not for task-all, where every thread creates)
     construct fib serial_us <us>      the same fib(n) without tasks, on one thread (the
                                       fastest of 5)
     construct task-if0 serial_us <us> the same loop with a bare indirect call for each task, on
                                       one thread (the fastest of 5), in us per call
   Lines starting with '#' are information for people. Under libomp-lite with
   OMPLITE_TASK_COUNTERS=1, the runtime adds one at exit, on stderr: its task operations and how
   many of them touched another member's queue or a lock or line shared by the team (issue 24's
   contention count; run one row per process, as run-bench does, to read it per row). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchutil.h"

#define MAX_SAMPLES 1000

static long ntasks = 64;      /* task-create, task-all: tasks per taskwait */
static int fib_n = 30;        /* fib: the argument ... */
static int fib_cutoff = 18;   /* ... and the n below which fib runs serially */
static long chain_len = 64;   /* task-dep-chain: tasks per chain (one taskwait each) */
static long loop_iters = 1024; /* taskloop: iterations */
static long group_tasks = 16; /* taskgroup: tasks per taskgroup */
static long g1_iters = 10000000; /* taskloop-g1: iterations, one a task */
static int nthreads;          /* omp_get_max_threads() */
static volatile int if0_cond; /* task-if0: the if clause, false, read at run time */

static int fail(const char *name, const char *what)
{
  printf("FAIL construct %s: %s\n", name, what);
  fflush(stdout);
  return 1;
}

/* The body of every empty task: one add to the executing thread's own counter (gcc makes
   threadprivate variables TLS, so no runtime call and no shared cache line). fib's tasks, the
   chain's and the taskloop's iterations count themselves the same way. */
static long task_count;
#pragma omp threadprivate(task_count)

/* The thread that entered the test's single (the creator of every task but fib's nested ones),
   and what the timed runs ran away from it, for the `away` line (see run_row). */
static int creator;
static long ran_total, ran_away;

/* Called by every thread at the end of a test's region, after a barrier (no task can run on
   this thread afterwards): adds its count to *total and clears it. */
static void gather(long *total)
{
  __atomic_fetch_add(total, task_count, __ATOMIC_RELAXED);
  __atomic_fetch_add(&ran_total, task_count, __ATOMIC_RELAXED);
  if (omp_get_thread_num() != creator)
    __atomic_fetch_add(&ran_away, task_count, __ATOMIC_RELAXED);
  task_count = 0;
}

/* ============================================================================ the tests */

/* task-create: one creator; the others run tasks in the closing barrier of the single. */
static long run_create(long reps)
{
  long n = ntasks, total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
        for (long i = 0; i < n; i++) {
#pragma omp task
          task_count++;
        }
#pragma omp taskwait
      }
    }
    gather(&total);
  }
  return total;
}

/* task-all: every thread creates and waits for its own; the barrier keeps the gather after the
   last task (another thread's task may still run here until then). */
static long run_all(long reps)
{
  long n = ntasks, total = 0;
#pragma omp parallel
  {
    for (long j = 0; j < reps; j++) {
      for (long i = 0; i < n; i++) {
#pragma omp task
        task_count++;
      }
#pragma omp taskwait
    }
#pragma omp barrier
    gather(&total);
  }
  return total;
}

/* fib: both calls a task, then taskwait; fib_serial below the cutoff (gcc turns part of its
   recursion into a loop: the serial time in the # line is what the same fib costs without
   tasks). */
__attribute__((noinline)) static long fib_serial(int n)
{
  return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

static long fib_task(int n)
{
  if (n < fib_cutoff)
    return fib_serial(n);
  long x, y;
#pragma omp task shared(x)
  {
    x = fib_task(n - 1);
    task_count++;
  }
#pragma omp task shared(y)
  {
    y = fib_task(n - 2);
    task_count++;
  }
#pragma omp taskwait
  return x + y;
}

/* the tasks one fib(n) creates */
static long fib_tasks(int n)
{
  return n < fib_cutoff ? 0 : 2 + fib_tasks(n - 1) + fib_tasks(n - 2);
}

static long fib_expect;

/* returns the tasks that ran; *bad counts wrong results */
static long run_fib(long reps, long *bad)
{
  long total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++)
        if (fib_task(fib_n) != fib_expect)
          (*bad)++;
    }
    gather(&total);
  }
  return total;
}

/* task-dep-chain: each task depends on the one before through x. The timed run checks the
   count; the verification pass (order_errors != NULL) also checks that task i saw x == i. */
static long chain_x;

static long run_chain(long reps, long *order_errors)
{
  long n = chain_len, total = 0;
  chain_x = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
        if (order_errors) {
          for (long i = 0; i < n; i++) {
            long want = j * n + i;
#pragma omp task depend(inout : chain_x) firstprivate(want)
            {
              if (chain_x != want)
                __atomic_fetch_add(order_errors, 1, __ATOMIC_RELAXED);
              chain_x++;
              task_count++;
            }
          }
        } else {
          for (long i = 0; i < n; i++) {
#pragma omp task depend(inout : chain_x)
            {
              chain_x++;
              task_count++;
            }
          }
        }
#pragma omp taskwait
      }
    }
    gather(&total);
  }
  return chain_x == total ? total : -1;
}

/* taskloop over a[0..m): default grainsize; the construct is a taskgroup. Each iteration also
   counts itself on its thread (gcc sums that in a register: one add per task). The verification
   pass (check != NULL) also checks after each taskloop that every element is already done. */
static long *loop_a;

static long run_taskloop(long reps, long *check)
{
  long m = loop_iters, total = 0;
  long *a = loop_a;
  memset(a, 0, sizeof *a * (size_t)m);
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
#pragma omp taskloop
        for (long i = 0; i < m; i++) {
          a[i]++;
          task_count++;
        }
        if (check)
          for (long i = 0; i < m; i++)
            if (a[i] != j + 1)
              (*check)++;
      }
    }
    gather(&total);
  }
  return total;
}

/* taskgroup: K empty tasks; the verification pass (done != NULL) counts them atomically and
   checks after each taskgroup that all K are done. */
static long run_taskgroup(long reps, long *done, long *early)
{
  long k = group_tasks, total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
        if (done) {
#pragma omp taskgroup
          for (long i = 0; i < k; i++) {
#pragma omp task
            __atomic_fetch_add(done, 1, __ATOMIC_RELAXED);
          }
          if (__atomic_load_n(done, __ATOMIC_RELAXED) != (j + 1) * k)
            (*early)++;
        } else {
#pragma omp taskgroup
          for (long i = 0; i < k; i++) {
#pragma omp task
            task_count++;
          }
        }
      }
    }
    gather(&total);
  }
  return total;
}


/* ---------------------------------------------- shapes from task programs written by others */

/* A few ns of work the compiler cannot drop: the body of the tree and busy rows. */
static __attribute__((noinline)) long spin_work(long n)
{
  long x = 0;
  for (long i = 0; i < n; i++)
    __asm__ volatile("" : "+r"(x) : "r"(i));
  return x;
}

/* task-nested: one creator makes nest_outer tasks, each of which makes nest_inner empty tasks
   and waits for them; the unit is every task made (outer and inner). */
static long nest_outer = 16, nest_inner = 16;

static long run_nested(long reps)
{
  long total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
        for (long i = 0; i < nest_outer; i++) {
#pragma omp task
          {
            for (long k = 0; k < nest_inner; k++) {
#pragma omp task
              task_count++;
            }
#pragma omp taskwait
            task_count++;
          }
        }
#pragma omp taskwait
      }
    }
    gather(&total);
  }
  return total;
}

/* tree-leaf, tree-node: a recursive binary tree of tree_depth levels, two tasks and a taskwait
   per inner node (no serial cutoff, unlike fib), tree_work iterations of spin_work at the
   leaves only, or at every node. */
static int tree_depth = 14;
static long tree_work = 20;

static long tree(int depth, int every_node)
{
  long r = 0;
  if (every_node || depth == 0)
    r = spin_work(tree_work) & 1;
  if (depth == 0)
    return r + 1;
  long a, b;
#pragma omp task shared(a)
  {
    a = tree(depth - 1, every_node);
    task_count++;
  }
#pragma omp task shared(b)
  {
    b = tree(depth - 1, every_node);
    task_count++;
  }
#pragma omp taskwait
  return a + b + (r & 0);
}

static long run_tree(long reps, int every_node, long *bad)
{
  long total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++)
        if (tree(tree_depth, every_node) != 1L << tree_depth)
          (*bad)++;
    }
    gather(&total);
  }
  return total;
}

/* master-busy: the primary thread makes ntasks tasks of busy_task_work each and waits for
   them, while the other members of the same region run ntasks * busy_task_work / nthreads of
   work of their own first (a loop that is not a worksharing construct), then reach the region's
   end, where they may run what is left. */
static long busy_task_work = 50;

static long run_master_busy(long reps)
{
  long total = 0;
#pragma omp parallel
  {
    for (long j = 0; j < reps; j++) {
#pragma omp master
      {
        creator = omp_get_thread_num();
        for (long i = 0; i < ntasks; i++) {
#pragma omp task
          {
            spin_work(busy_task_work);
            task_count++;
          }
        }
#pragma omp taskwait
      }
      if (omp_get_thread_num() != 0)
        spin_work(ntasks * busy_task_work / nthreads);
    }
#pragma omp barrier
    gather(&total);
  }
  return total;
}

/* uts: an unbalanced tree search, one task per node, no taskwait below the root: the number of
   children of a node comes from a hash of its id (geometric, mean just below 1, so the tree is
   deep and lopsided), and uts_work iterations of spin_work per node. The unit is us per node;
   the # line gives the nodes of one tree. */
static long uts_work = 20;
static unsigned uts_root_children = 64;

static unsigned uts_hash(unsigned long x)
{
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdUL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53UL;
  x ^= x >> 33;
  return (unsigned)x;
}

/* children: 0 with probability 1/2, else 2 with 0.48, else 3 (mean 1.02 capped by depth) */
static unsigned uts_children(unsigned long id, int depth)
{
  if (depth >= 60)
    return 0;
  unsigned h = uts_hash(id) % 100;
  return h < 50 ? 0 : h < 98 ? 2 : 3;
}

static void uts_node(unsigned long id, int depth)
{
  spin_work(uts_work);
  task_count++;
  unsigned n = uts_children(id, depth);
  for (unsigned c = 0; c < n; c++) {
    unsigned long child = (unsigned long)uts_hash(id * 4 + c + 1) << 8 | c;
#pragma omp task firstprivate(child, depth)
    uts_node(child, depth + 1);
  }
}

static long uts_count(unsigned long id, int depth)
{
  long n = 1;
  unsigned k = uts_children(id, depth);
  for (unsigned c = 0; c < k; c++)
    n += uts_count((unsigned long)uts_hash(id * 4 + c + 1) << 8 | c, depth + 1);
  return n;
}

static long uts_nodes(void)
{
  static long n; /* counted once, outside the timed runs */
  if (n == 0)
    for (unsigned r = 0; r < uts_root_children; r++)
      n += uts_count(r + 1, 1);
  return n;
}

static long run_uts(long reps)
{
  long total = 0;
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
#pragma omp taskgroup
        for (unsigned r = 0; r < uts_root_children; r++) {
          unsigned long id = r + 1;
#pragma omp task firstprivate(id)
          uts_node(id, 1);
        }
      }
    }
    gather(&total);
  }
  return total;
}

/* task-if0: every thread makes ntasks undeferred tasks per rep; each task copies its iteration
   to a threadprivate word too, so that the task has data (gcc passes its firstprivate copy in
   the data block, as a real one would). */
static long if0_last;
#pragma omp threadprivate(if0_last)

static long run_if0(long reps)
{
  long n = ntasks, total = 0;
#pragma omp parallel
  {
    for (long j = 0; j < reps; j++) {
      for (long i = 0; i < n; i++) {
#pragma omp task if(if0_cond) firstprivate(i)
        {
          if0_last = i;
          task_count++;
        }
      }
    }
#pragma omp barrier
    gather(&total);
  }
  return total;
}

/* The reference for task-if0: the same body through a bare indirect call, with its data block on
   the caller's stack, as gcc's outlined task function gets it. */
struct if0_data {
  long i;
};

static __attribute__((noinline)) void if0_body(void *arg)
{
  if0_last = ((struct if0_data *)arg)->i;
  task_count++;
}

static void (*volatile if0_fn)(void *) = if0_body;

/* the best of 5 times of reps x ntasks calls, in us per call */
static double if0_call_us(long reps)
{
  double best = 1e30;
  for (int k = 0; k < 5; k++) {
    double t0 = bench_now();
    for (long j = 0; j < reps; j++) {
      void (*fn)(void *) = if0_fn;
      for (long i = 0; i < ntasks; i++) {
        struct if0_data d = {i};
        fn(&d);
      }
    }
    double t = bench_now() - t0;
    if (t < best)
      best = t;
  }
  task_count = 0;
  return best / (double)(reps * ntasks) * 1e6;
}

/* task-nested-1: every thread makes ntasks / 2 tasks per rep, each of which makes one empty task
   and waits for it (EPCC's nested task test, with one inner task per outer one). */
static long nested1_outer(void) { return ntasks / 2 > 0 ? ntasks / 2 : 1; }

static long run_nested1(long reps)
{
  long n = nested1_outer(), total = 0;
#pragma omp parallel
  {
    for (long j = 0; j < reps; j++) {
      for (long i = 0; i < n; i++) {
#pragma omp task
        {
#pragma omp task
          task_count++;
#pragma omp taskwait
          task_count++;
        }
      }
#pragma omp taskwait
    }
#pragma omp barrier
    gather(&total);
  }
  return total;
}

/* tree-leaf-for, tree-node-for: EPCC's leaf and branch task trees, made inside a worksharing
   loop. A task at level d > 0 makes two tasks of level d - 1 and does not wait for them; the
   tasks of level 0 are not made: their work runs in their parent (at the leaves), or every task
   works after making its children (at every node). The `for`'s barrier waits for every tree. */
#define FOR_TREE_DEPTH 6

static void for_tree(int level, int every_node)
{
  if (level == 0) {
    if (!every_node)
      spin_work(tree_work);
    return;
  }
#pragma omp task
  {
    for_tree(level - 1, every_node);
    for_tree(level - 1, every_node);
    if (every_node)
      spin_work(tree_work);
    task_count++;
  }
}

static long for_tree_tasks(void) { return (1L << FOR_TREE_DEPTH) - 1; }

static long run_for_tree(long reps, int every_node)
{
  long total = 0;
  long trees = reps * nthreads;
#pragma omp parallel
  {
#pragma omp for
    for (long j = 0; j < trees; j++)
      for_tree(FOR_TREE_DEPTH, every_node);
    gather(&total);
  }
  return total;
}

/* taskloop-g1: taskloop grainsize(1) over g1_a[0..g1_iters), one task per iteration; each
   iteration counts itself on its thread. The timed run checks the count; the verification pass
   also checks every element after each taskloop. */
static unsigned char *g1_a;

static long run_taskloop_g1(long reps, long *check)
{
  long m = g1_iters, total = 0;
  unsigned char *a = g1_a;
  memset(a, 0, (size_t)m);
#pragma omp parallel
  {
#pragma omp single
    {
      creator = omp_get_thread_num();
      for (long j = 0; j < reps; j++) {
#pragma omp taskloop grainsize(1)
        for (long i = 0; i < m; i++) {
          a[i]++;
          task_count++;
        }
        if (check)
          for (long i = 0; i < m; i++)
            if (a[i] != (unsigned char)(j + 1))
              (*check)++;
      }
    }
    gather(&total);
  }
  return total;
}

/* ============================================================================ the row table */

struct row {
  const char *name;
  const char *unit;
  long (*ops)(long reps);       /* the operations in a test of reps: the divisor of a sample */
  int (*test)(long reps);       /* the timed run, with its checks */
  int (*verify)(void);
  int one_creator; /* the tasks come from the single's thread (fib: from it and its tasks) */
};

static long ops_tasks(long reps) { return reps * ntasks; }
static long ops_chain(long reps) { return reps * chain_len; }
static long ops_reps(long reps) { return reps; }

static int test_create(long reps)
{
  return run_create(reps) != reps * ntasks
             ? fail("task-create", "a task ran a wrong number of times")
             : 0;
}

static int test_all(long reps)
{
  return run_all(reps) != reps * ntasks * nthreads
             ? fail("task-all", "a task ran a wrong number of times")
             : 0;
}

static int test_fib(long reps)
{
  long bad = 0;
  if (run_fib(reps, &bad) != reps * fib_tasks(fib_n))
    return fail("fib", "a task ran a wrong number of times");
  return bad ? fail("fib", "the result is wrong") : 0;
}

static int test_chain(long reps)
{
  return run_chain(reps, NULL) != reps * chain_len
             ? fail("task-dep-chain", "the chain ran a wrong number of tasks")
             : 0;
}

static int test_taskloop(long reps)
{
  if (run_taskloop(reps, NULL) != reps * loop_iters)
    return fail("taskloop", "the threads ran a wrong number of iterations");
  for (long i = 0; i < loop_iters; i++)
    if (loop_a[i] != reps)
      return fail("taskloop", "an iteration ran a wrong number of times");
  return 0;
}

static int test_taskgroup(long reps)
{
  return run_taskgroup(reps, NULL, NULL) != reps * group_tasks
             ? fail("taskgroup", "a task ran a wrong number of times")
             : 0;
}

/* taskwait waits for every child: each creator counts its own children atomically (one counter
   per thread, own cache line) and looks after every taskwait. */
struct padded {
  long n;
  char pad[64 - sizeof(long)];
} __attribute__((aligned(64)));

static int verify_taskwait(const char *name, int everyone)
{
  const long reps = 20;
  long n = ntasks, early = 0;
  struct padded *done = aligned_alloc(64, sizeof *done * (size_t)nthreads);
  if (!done)
    return fail(name, "out of memory");
  memset(done, 0, sizeof *done * (size_t)nthreads);
#pragma omp parallel
  {
    int creates = everyone;
#pragma omp single nowait
    creates = 1;
    if (creates) {
      long *mine = &done[omp_get_thread_num()].n;
      for (long j = 0; j < reps; j++) {
        for (long i = 0; i < n; i++) {
#pragma omp task
          __atomic_fetch_add(mine, 1, __ATOMIC_RELAXED);
        }
#pragma omp taskwait
        if (__atomic_load_n(mine, __ATOMIC_RELAXED) != (j + 1) * n)
          __atomic_fetch_add(&early, 1, __ATOMIC_RELAXED);
      }
    }
  }
  long sum = 0;
  for (int t = 0; t < nthreads; t++)
    sum += done[t].n;
  free(done);
  if (early)
    return fail(name, "taskwait returned before all its tasks had run");
  if (sum != reps * n * (everyone ? nthreads : 1))
    return fail(name, "a task ran a wrong number of times");
  return 0;
}

static int verify_create(void) { return verify_taskwait("task-create", 0) || test_create(3); }
static int verify_all(void) { return verify_taskwait("task-all", 1) || test_all(3); }
static int verify_fib(void) { return test_fib(2); }

static int verify_chain(void)
{
  const long reps = 5;
  long order_errors = 0;
  if (run_chain(reps, &order_errors) != reps * chain_len)
    return fail("task-dep-chain", "the chain ran a wrong number of tasks");
  if (order_errors)
    return fail("task-dep-chain", "a task of the chain ran before the one it depends on");
  return 0;
}

static int verify_taskloop(void)
{
  long check = 0;
  run_taskloop(5, &check);
  if (check)
    return fail("taskloop", "the taskloop ended before all its iterations had run");
  return test_taskloop(3);
}

static int verify_taskgroup(void)
{
  const long reps = 20;
  long done = 0, early = 0;
  run_taskgroup(reps, &done, &early);
  if (early)
    return fail("taskgroup", "the taskgroup ended before all its tasks had run");
  if (done != reps * group_tasks)
    return fail("taskgroup", "a task ran a wrong number of times");
  return test_taskgroup(3);
}


static long tree_tasks(void) { return 2 * ((1L << tree_depth) - 1); }
static long ops_nested(long reps) { return reps * nest_outer * (nest_inner + 1); }
static long ops_tree(long reps) { return reps * tree_tasks(); }
static long ops_uts(long reps) { return reps * uts_nodes(); }

static int test_nested(long reps)
{
  return run_nested(reps) != ops_nested(reps)
             ? fail("task-nested", "a task ran a wrong number of times")
             : 0;
}

static int test_tree_as(const char *name, long reps, int every_node)
{
  long bad = 0;
  if (run_tree(reps, every_node, &bad) != reps * tree_tasks())
    return fail(name, "a task ran a wrong number of times");
  return bad ? fail(name, "the result is wrong") : 0;
}

static int test_tree_leaf(long reps) { return test_tree_as("tree-leaf", reps, 0); }
static int test_tree_node(long reps) { return test_tree_as("tree-node", reps, 1); }

static int test_master_busy(long reps)
{
  return run_master_busy(reps) != reps * ntasks
             ? fail("master-busy", "a task ran a wrong number of times")
             : 0;
}

static int test_uts(long reps)
{
  return run_uts(reps) != ops_uts(reps) ? fail("uts", "a node ran a wrong number of times") : 0;
}

static long ops_if0(long reps) { return reps * ntasks; }
static long ops_nested1(long reps) { return reps * nested1_outer() * 2; }
static long ops_for_tree(long reps) { return reps * nthreads * for_tree_tasks(); }

static int test_if0(long reps)
{
  return run_if0(reps) != reps * ntasks * nthreads
             ? fail("task-if0", "a task ran a wrong number of times")
             : 0;
}

static int test_nested1(long reps)
{
  return run_nested1(reps) != ops_nested1(reps) * nthreads
             ? fail("task-nested-1", "a task ran a wrong number of times")
             : 0;
}

static int test_tree_leaf_for(long reps)
{
  return run_for_tree(reps, 0) != ops_for_tree(reps)
             ? fail("tree-leaf-for", "a task ran a wrong number of times")
             : 0;
}

static int test_tree_node_for(long reps)
{
  return run_for_tree(reps, 1) != ops_for_tree(reps)
             ? fail("tree-node-for", "a task ran a wrong number of times")
             : 0;
}

/* The taskwait and taskgroup in these rows are checked by the counts: a node or task that ran
   late would be missing from the gather after the region (tasks counted before the single
   ends, the only place the count is read). */
static int verify_nested(void) { return test_nested(3); }
static int verify_tree_leaf(void) { return test_tree_leaf(2); }
static int verify_tree_node(void) { return test_tree_node(2); }
static int verify_master_busy(void) { return test_master_busy(5); }
static int verify_uts(void) { return test_uts(1); }
static int verify_if0(void) { return test_if0(3); }
static int verify_nested1(void) { return test_nested1(3); }
static int verify_tree_leaf_for(void) { return test_tree_leaf_for(2); }
static int verify_tree_node_for(void) { return test_tree_node_for(2); }

static int test_taskloop_g1(long reps)
{
  return run_taskloop_g1(reps, NULL) != reps * g1_iters
             ? fail("taskloop-g1", "the threads ran a wrong number of iterations")
             : 0;
}

static int verify_taskloop_g1(void)
{
  long check = 0;
  if (run_taskloop_g1(2, &check) != 2 * g1_iters)
    return fail("taskloop-g1", "the threads ran a wrong number of iterations");
  return check ? fail("taskloop-g1", "the taskloop ended before all its iterations had run once")
               : 0;
}

static const struct row rows[] = {
    {"task-create", "us/task", ops_tasks, test_create, verify_create, 1},
    {"task-all", "us/task", ops_tasks, test_all, verify_all, 0},
    {"fib", "us/fib", ops_reps, test_fib, verify_fib, 1},
    {"task-dep-chain", "us/task", ops_chain, test_chain, verify_chain, 1},
    {"taskloop", "us/taskloop", ops_reps, test_taskloop, verify_taskloop, 1},
    {"taskgroup", "us/taskgroup", ops_reps, test_taskgroup, verify_taskgroup, 1},
    {"task-nested", "us/task", ops_nested, test_nested, verify_nested, 1},
    {"tree-leaf", "us/task", ops_tree, test_tree_leaf, verify_tree_leaf, 1},
    {"tree-node", "us/task", ops_tree, test_tree_node, verify_tree_node, 1},
    {"master-busy", "us/task", ops_tasks, test_master_busy, verify_master_busy, 1},
    {"uts", "us/node", ops_uts, test_uts, verify_uts, 1},
    {"task-if0", "us/task", ops_if0, test_if0, verify_if0, 0},
    {"task-nested-1", "us/task", ops_nested1, test_nested1, verify_nested1, 0},
    {"tree-leaf-for", "us/task", ops_for_tree, test_tree_leaf_for, verify_tree_leaf_for, 0},
    {"tree-node-for", "us/task", ops_for_tree, test_tree_node_for, verify_tree_node_for, 0},
    {"taskloop-g1", "us/taskloop", ops_reps, test_taskloop_g1, verify_taskloop_g1, 1},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* ============================================================================ measuring */

static double timed(int (*fn)(long), long reps, int *err)
{
  double t0 = bench_now();
  *err |= fn(reps);
  return bench_now() - t0;
}

static int team_ok(void)
{
  int bad = 0;
#pragma omp parallel
  if (omp_get_num_threads() != nthreads) {
#pragma omp atomic write
    bad = 1;
  }
  return bad ? fail("team", "the team is smaller than omp_get_max_threads()") : 0;
}

static int run_row(const struct row *r, int samples, double target_s)
{
  double test_t[MAX_SAMPLES];
  int err = 0;

  if (r->verify())
    return 1;

  /* Calibration as in syncbench and loopbench: double reps until one test takes the target
     time, confirmed by the fastest of three (one preempted test would stop the doubling too
     early), and until doubling reps nearly doubles the time, or 30 target times. Confirmed at
     reps = 1 too (unlike loopbench): one task operation takes microseconds, so a first test
     over the target is a test that waited for a CPU, and stopping there would time single
     operations, each sample as noisy as one scheduler tick. */
  long reps = 1;
  double prev = 0;
  for (;;) {
    double t = timed(r->test, reps, &err);
    for (int again = 0; again < 2 && t >= target_s && !err; again++) {
      double t2 = timed(r->test, reps, &err);
      if (t2 < t)
        t = t2;
    }
    if (err)
      return 1;
    if ((t >= target_s && t >= 1.9 * prev) || t >= 30 * target_s || reps >= (1L << 40))
      break;
    prev = t;
    reps *= 2;
  }

  ran_total = ran_away = 0;
  struct bench_usage usage;
  bench_usage_now(&usage);
  for (int s = 0; s < samples; s++) {
    test_t[s] = timed(r->test, reps, &err);
    if (err)
      return 1;
  }
  bench_usage_print(r->name, &usage);
  printf("# construct %s unit %s reps %ld operations %ld\n", r->name, r->unit, reps, r->ops(reps));
  if (r->test == test_fib) {
    /* for reading the table: the tasks of one fib, and the same fib without tasks */
    double best = 1e30;
    for (int k = 0; k < 5; k++) {
      double t0 = bench_now();
      if (fib_serial(fib_n) != fib_expect)
        return fail("fib", "the serial result is wrong");
      double t = bench_now() - t0;
      if (t < best)
        best = t;
    }
    printf("# construct fib n %d cutoff %d tasks %ld\n", fib_n, fib_cutoff, fib_tasks(fib_n));
    printf("construct fib serial_us %.1f\n", best * 1e6);
  }
  if (r->test == test_if0)
    printf("construct task-if0 serial_us %.4f\n", if0_call_us(reps));
  for (int s = 0; s < samples; s++)
    printf("construct %s sample %.4f\n", r->name, test_t[s] / (double)r->ops(reps) * 1e6);
  /* How much of the work the other threads took: empty tasks cost least where the creator runs
     them all itself, so a fast row with 0% away is a runtime that did not spread the tasks. */
  if (r->one_creator && ran_total > 0)
    printf("construct %s away %.1f\n", r->name, 100.0 * (double)ran_away / (double)ran_total);
  fflush(stdout);
  return 0;
}

static void usage(FILE *f)
{
  fprintf(f,
          "usage: taskbench [options]\n"
          "  -b, --bench LIST        comma-separated rows, or 'all' (default); --list names them\n"
          "  -s, --samples N         samples per row (default 20, at most %d)\n"
          "  -t, --target-us US      target time of one sample in us (default 1000)\n"
          "      --tasks N           task-create, task-all: tasks per taskwait (default 64)\n"
          "      --fib-n N           fib: the argument (default 30)\n"
          "      --fib-cutoff N      fib: serial below this n (default 18)\n"
          "      --chain N           task-dep-chain: tasks per chain (default 64)\n"
          "      --loop-iters M      taskloop: iterations (default 1024)\n"
          "      --group-tasks K     taskgroup: tasks per taskgroup (default 16)\n"
          "      --g1-iters G        taskloop-g1: iterations (default 10000000)\n"
          "      --list              print every row and its unit, and exit\n"
          "      --probe             print the runtime, verify the rows, time nothing\n"
          "The team size comes from OMP_NUM_THREADS.\n",
          MAX_SAMPLES);
}

static const char *rows_name(size_t k) { return rows[k].name; }

int main(int argc, char **argv)
{
  const char *list = "all";
  int samples = 20, probe = 0;
  double target_us = 1000;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--probe")) {
      probe = 1;
      continue;
    }
    if (!strcmp(a, "--list")) {
      for (size_t k = 0; k < NROWS; k++)
        printf("%s %s\n", rows[k].name, rows[k].unit);
      return 0;
    }
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    }
    if (!v) {
      usage(stderr);
      return 2;
    }
    if (!strcmp(a, "-b") || !strcmp(a, "--bench"))
      list = v;
    else if (!strcmp(a, "-s") || !strcmp(a, "--samples"))
      samples = (int)bench_parse_long(v, 1, MAX_SAMPLES, a);
    else if (!strcmp(a, "-t") || !strcmp(a, "--target-us"))
      target_us = (double)bench_parse_long(v, 1, 100000000, a);
    else if (!strcmp(a, "--tasks"))
      ntasks = bench_parse_long(v, 1, 1L << 20, a);
    else if (!strcmp(a, "--fib-n"))
      fib_n = (int)bench_parse_long(v, 2, 40, a);
    else if (!strcmp(a, "--fib-cutoff"))
      fib_cutoff = (int)bench_parse_long(v, 2, 40, a);
    else if (!strcmp(a, "--chain"))
      chain_len = bench_parse_long(v, 1, 1L << 20, a);
    else if (!strcmp(a, "--loop-iters"))
      loop_iters = bench_parse_long(v, 1, 1L << 24, a);
    else if (!strcmp(a, "--group-tasks"))
      group_tasks = bench_parse_long(v, 1, 1L << 20, a);
    else if (!strcmp(a, "--g1-iters"))
      g1_iters = bench_parse_long(v, 1, 1L << 30, a);
    else {
      usage(stderr);
      return 2;
    }
    i++;
  }

  /* which rows, validated before anything runs */
  int selected[NROWS];
  if (!bench_select("taskbench", list, rows_name, NROWS, selected)) {
    return 2;
  }

  nthreads = omp_get_max_threads();
  fib_expect = fib_serial(fib_n);
  printf("# uts nodes %ld tree_depth %d tree_tasks %ld\n", uts_nodes(), tree_depth, tree_tasks());
  loop_a = malloc(sizeof *loop_a * (size_t)loop_iters);
  g1_a = malloc((size_t)g1_iters);
  if (!loop_a || !g1_a) {
    fprintf(stderr, "taskbench: out of memory\n");
    return 1;
  }
  bench_print_runtime();
  printf("threads %d\n", nthreads);
  printf("# samples %d target_us %.0f tasks %ld fib_n %d fib_cutoff %d chain %ld loop_iters %ld "
         "group_tasks %ld g1_iters %ld\n",
         samples, target_us, ntasks, fib_n, fib_cutoff, chain_len, loop_iters, group_tasks,
         g1_iters);
  fflush(stdout);

  int status = team_ok();
  if (status)
    return status;
  for (size_t k = 0; k < NROWS; k++) {
    if (!selected[k])
      continue;
    if (probe)
      status |= rows[k].verify();
    else
      status |= run_row(&rows[k], samples, target_us * 1e-6);
  }
  if (probe && !status)
    printf("probe ok\n");
  free(loop_a);
  free(g1_a);
  return status;
}
