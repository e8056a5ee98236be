/* taskloop (OpenMP 5.2 §12.6): the iterations of a loop, split into explicit tasks.

   gcc passes the loop as start, end and step, and a data block whose first two words the runtime
   sets, in each task's own copy, to the bounds of that task's iterations (as two longs, or two
   unsigned long longs for GOMP_taskloop_ull). The construct is a taskgroup unless it says
   nogroup. clang's __kmpc_taskloop (kmpc/task.c) runs on the same engine (lite_taskloop_run).

   The tasks are numbered 0 .. ntasks - 1, each with the iterations the clauses give it (plan);
   they are not made up front. The encountering thread runs them itself, one after another, each
   an included task of its own with its own copy of the data block (lite_task_included_begin,
   end); when its member queue is empty (another member took what it offered, or nothing was
   offered yet), it offers the upper half of the tasks it has not run, as one task (a range) in
   its queue, and a member that takes a range runs it the same way. So a taskloop makes about
   one task per steal, not one per grain: `taskloop grainsize(1)` over 10^7 iterations, 2
   threads, made 10^7 tasks, 250-700 ns each (2.5-7.1 s; issue 38); now a few hundred, 0.05-0.08
   s (libgomp 0.07-0.08 s, which runs them all undeferred on the encountering thread once there
   are more than 64 per thread; LLVM 1.9 s). Each task still runs alone, with its own bounds and its own copy of the data, so the
   grainsize and num_tasks contract, firstprivate, lastprivate (the task with the last iteration
   ends at the loop's own end) and in_reduction hold as before.

   With a tool attached the tasks are made up front instead (make_all), each a task of its own
   made by the encountering thread: a tool expects every task's task-create there, with the
   construct's return address, before the construct's work ends (LLVM's ompt/tasks/taskloop.c),
   while lazily a task in a range another member took was made by that member. Each is then a
   task like any other to the tool: task-create, its schedule events where it runs, its exit
   frame where the runtime calls its body and its creator's enter frame in the creating call
   (ompt/tasks.c, task.c's task_create_traced). Without a tool nothing changes. */
#include "internal.h"
#include "task_queue.h"
#include "ompt/ompt.h"

#include <stdlib.h>
#include <string.h>

/* gcc's flags (gomp-constants.h). */
enum {
  FLAG_UNTIED = 1 << 0,
  FLAG_FINAL = 1 << 1,
  FLAG_PRIORITY = 1 << 4,
  FLAG_UP = 1 << 8,
  FLAG_GRAINSIZE = 1 << 9,
  FLAG_IF = 1 << 10,
  FLAG_NOGROUP = 1 << 11,
  FLAG_REDUCTION = 1 << 12,
  FLAG_STRICT = 1 << 14,
};

/* How n iterations are split into l->ntasks tasks: without `strict`, the first `extra` of them
   get base + 1 iterations and the others base; with it (extra 0), every task but the last gets
   base. grainsize: the clause was grainsize (else num_tasks, or neither when value is 0). */
void lite_taskloop_plan(struct lite_taskloop *l, uint64_t n, bool grainsize, bool strict,
                        uint64_t value)
{
  l->n = n;
  l->extra = 0;
  if (grainsize) {
    uint64_t grain = value != 0 ? value : 1;
    if (strict) {
      /* grainsize(strict: g): exactly g iterations a task, the last one the rest. */
      l->ntasks = n / grain + (n % grain != 0);
      l->base = grain;
      return;
    }
    /* grainsize(g): between g and 2g - 1 iterations a task (fewer only if n < g). */
    l->ntasks = n / grain != 0 ? n / grain : 1;
  } else if (value != 0) {
    l->ntasks = value < n ? value : n; /* num_tasks(k): min(k, n) tasks */
  } else {
    struct lite_thread *thr = lite_self();
    uint64_t threads = thr->team != NULL ? thr->team->nthreads : 1;
    l->ntasks = threads < n ? threads : n; /* as libgomp: one task per thread of the team */
  }
  l->base = n / l->ntasks;
  l->extra = n % l->ntasks;
}

/* Task k's first iteration and its number of iterations. */
static uint64_t first_of(const struct lite_taskloop *l, uint64_t k)
{
  return k * l->base + (k < l->extra ? k : l->extra);
}

static uint64_t count_of(const struct lite_taskloop *l, uint64_t k)
{
  if (k + 1 == l->ntasks)
    return l->n - first_of(l, k);
  return l->base + (k < l->extra);
}

/* gcc's loop: the data block each task copies (through cpyfn when gcc gives one: C++
   firstprivate), and the loop's own bounds, in 64-bit wrapping arithmetic, which is the loop
   type's. */
struct gomp_loop {
  struct lite_taskloop l;
  void (*fn)(void *);
  void *data;
  void (*cpyfn)(void *, void *);
  size_t arg_size;
  uint64_t start, end, step;
};

_Static_assert(sizeof(long) == sizeof(uint64_t), "taskloop bounds are written as 64-bit words");

/* gcc's data blocks are a few words (the bounds, then a pointer or value per variable): copied
   word by word, with no loop and no call to memcpy (callgrind, taskloop grainsize(1) with a
   reduction on one thread: the runtime's instructions a task 98 with a loop of words, 87 with
   the switch; libgomp's 52). words: the block's size in words if it has at most 8, else 0. */
static unsigned words_of(size_t size) { return size % 8 == 0 && size <= 64 ? size / 8 : 0; }

static inline void copy_block(void *dst, const void *src, size_t size, unsigned words)
{
  uint64_t *d = dst;
  const uint64_t *s = src;
  switch (words) {
  case 8: d[7] = s[7]; /* fall through */
  case 7: d[6] = s[6]; /* fall through */
  case 6: d[5] = s[5]; /* fall through */
  case 5: d[4] = s[4]; /* fall through */
  case 4: d[3] = s[3]; /* fall through */
  case 3: d[2] = s[2]; /* fall through */
  case 2: d[1] = s[1]; /* fall through */
  case 1: d[0] = s[0]; break;
  default: memcpy(dst, src, size);
  }
}

static void run_gomp_task(struct lite_taskloop *l, void *copy, uint64_t first, uint64_t count,
                          bool last)
{
  const struct gomp_loop *g = (const struct gomp_loop *)l;
  if (g->cpyfn != NULL)
    g->cpyfn(copy, g->data);
  else
    copy_block(copy, g->data, g->arg_size, words_of(g->arg_size));
  uint64_t *words = copy;
  words[0] = g->start + first * g->step;
  words[1] = last ? g->end : g->start + (first + count) * g->step;
  g->fn(copy);
}

/* ------------------------------------------------------------------------- the engine */

/* Tasks [lo, hi) of l, as one task offered to the other members. */
struct range {
  struct lite_taskloop *l;
  uint64_t lo, hi;
};

static void range_task(void *arg);

/* Drops a reference to a nogroup loop's state (its ranges may outlive the construct). */
static void loop_unref(struct lite_taskloop *l)
{
  if (atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1 && l->release != NULL)
    l->release(l);
}

/* The taskgroup or the team the running task belongs to was cancelled: the tasks not started
   yet are discarded, as task.c discards queued ones. */
static bool cancelled(struct lite_thread *thr)
{
  return (thr->team != NULL && atomic_load(&thr->team->cancelled)) ||
         lite_taskgroup_cancelled(thr);
}

/* A copy of the data block on the stack, for a task's data of up to this many bytes (gcc's
   blocks are a few words: the bounds, and a pointer or value per variable). */
#define COPY_ON_STACK 512

/* Runs tasks [lo, hi) of l on this thread, one after another, each an included task (its own
   descriptor, ICVs and final flag; the one descriptor serves every task that made no task of its
   own, since nothing can point to it then), offering the upper half of what is left as a range
   whenever this member's queue is empty. Offered ranges are children of the task running this
   one (the encountering task, or a range): in a taskgroup, the group waits for them all; with
   nogroup a range waits for its own before it ends, so that the encountering task's taskwait,
   which waits for its children, waits for every task of the loop. Returns whether it offered
   any. gcc: l is gcc's (a direct call to run_gomp_task, its fields in locals, which the copy's
   stores do not make the compiler read again: callgrind, taskloop grainsize(1) with a
   reduction on one thread, the runtime's instructions a task 87 -> 63; libgomp's 52). */
static inline __attribute__((always_inline)) bool run_tasks(struct lite_taskloop *l, uint64_t lo,
                                                             uint64_t hi, bool gcc)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *cur = lite_current_task(thr);
  struct lite_member_q *mine = NULL;
  if (l->deferred && !cur->final && thr->team != NULL && thr->team->pool != NULL &&
      thr->team->nthreads > 1) {
    struct lite_tasks *q = lite_tasks_of(thr);
    mine = lite_tq_own(q, lite_tq_member(thr, q));
  }
  _Alignas(64) char small[COPY_ON_STACK];
  size_t need = l->copy_size + l->copy_align - 1;
  char *block = need <= sizeof small ? small : malloc(need);
  if (block == NULL)
    lite_fatal("out of memory for a taskloop task's data (%zu bytes)", need);
  void *copy = (void *)(((uintptr_t)block + l->copy_align - 1) & ~(uintptr_t)(l->copy_align - 1));
  const uint64_t base = l->base, extra = l->extra, ntasks = l->ntasks;
  const struct gomp_loop g = gcc ? *(const struct gomp_loop *)l : (struct gomp_loop){0};
  struct lite_included inc;
  bool open = false, offered = false;
  uint64_t first = first_of(l, lo);
  uint64_t at = g.start + first * g.step; /* gcc: the first iteration of task k */
  const unsigned words = words_of(g.arg_size);
  for (uint64_t k = lo; k < hi; k++) {
    if (mine != NULL && hi - k > 1 && atomic_load_explicit(&mine->n, memory_order_relaxed) == 0) {
      struct range r = {l, k + (hi - k + 1) / 2, hi};
      hi = r.lo;
      if (open) /* the range is a child of the task running this one, not of the last grain */
        thr->task = inc.saved_task;
      if (l->nogroup)
        atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
      lite_task_create(range_task, &r, NULL, sizeof r, _Alignof(struct range), true, l->flags,
                       NULL, NULL, NULL, NULL, l->priority, l->site);
      offered = true;
      if (open)
        thr->task = inc.task;
    }
    if (lite_unlikely(lite_env.cancellation) && cancelled(thr))
      break;
    if (!open) {
      lite_task_included_begin(&inc, l->final);
      open = true;
    }
    bool last = k + 1 == ntasks;
    uint64_t count = last ? l->n - first : base + (k < extra);
    if (gcc) {
      if (g.cpyfn != NULL)
        g.cpyfn(copy, g.data);
      else
        copy_block(copy, g.data, g.arg_size, words);
      uint64_t *words = copy;
      words[0] = at;
      at += count * g.step;
      words[1] = last ? g.end : at; /* where gcc's code looks for lastprivate */
      g.fn(copy);
    } else {
      l->run(l, copy, first, count, last);
    }
    first += count;
    /* A grain that made a task (its descriptor was promoted: the children point to it) or
       changed an ICV ends here, which puts the ICVs back: the next grain gets another. While
       the descriptor stays open the thread's ICVs are the encountering task's, which the next
       grain and a range offered in between both start from. */
    if (inc.task->promoted != NULL || inc.task->icv_saved) {
      lite_task_included_end(&inc);
      open = false;
    }
  }
  if (open)
    lite_task_included_end(&inc);
  if (block != small)
    free(block);
  return offered;
}

static bool run_range(struct lite_taskloop *l, uint64_t lo, uint64_t hi)
{
  return l->run == run_gomp_task ? run_tasks(l, lo, hi, true) : run_tasks(l, lo, hi, false);
}

static void range_task(void *arg)
{
  const struct range *r = arg;
  struct lite_taskloop *l = r->l;
  bool offered = run_range(l, r->lo, r->hi);
  if (l->nogroup) {
    if (offered)
      lite_taskwait_from(l->site, true);
    loop_unref(l);
  }
}

/* Every task made now, in order, by the encountering thread (l->make), each copying the
   construct's data as it is made: none needs l afterwards. */
static void make_all(struct lite_taskloop *l)
{
  for (uint64_t k = 0; k < l->ntasks; k++)
    l->make(l, first_of(l, k), count_of(l, k), k + 1 == l->ntasks);
}

void lite_taskloop_run(struct lite_taskloop *l)
{
  if (l->nogroup)
    atomic_init(&l->refs, 1);
  /* Before the run: with nogroup, the last range may free l. */
  uint64_t ntasks = l->ntasks;
  const void *site = l->site;
  if (lite_ompt_on()) {
    lite_ompt_work(ompt_work_taskloop, ompt_scope_begin, ntasks, site);
    make_all(l);
    lite_ompt_work(ompt_work_taskloop, ompt_scope_end, ntasks, site);
  } else if (l->eager)
    make_all(l);
  else
    run_range(l, 0, l->ntasks);
  if (l->nogroup)
    loop_unref(l);
}

/* ------------------------------------------------------------------------- gcc's entry points */

static void free_gomp_loop(struct lite_taskloop *l) { free(l); }

/* The bounds set_bounds writes into a task's copy of the data block, made up front. */
struct bounds {
  uint64_t lo, hi;
};

static void set_bounds(void *data, void *arg)
{
  const struct bounds *b = arg;
  uint64_t *words = data;
  words[0] = b->lo;
  words[1] = b->hi;
}

/* One task made up front (make_all), as GOMP_task makes one: its own copy of the data block
   (copy-constructed through cpyfn when gcc gives one), with its bounds. */
static void make_gomp_task(struct lite_taskloop *l, uint64_t first, uint64_t count, bool last)
{
  const struct gomp_loop *g = (const struct gomp_loop *)l;
  struct bounds b = {g->start + first * g->step,
                     last ? g->end : g->start + (first + count) * g->step};
  unsigned task_flags = l->flags | (l->final ? FLAG_FINAL : 0);
  lite_task_create(g->fn, g->data, g->cpyfn, (long)g->arg_size, (long)l->copy_align,
                   l->deferred, task_flags, NULL, NULL, set_bounds, &b, l->priority, l->site);
}

static void taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                     long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                     uint64_t start, uint64_t end, uint64_t step, uint64_t n, const void *site)
{
  bool group = !(flags & FLAG_NOGROUP);
  size_t align = arg_align > 1 ? (size_t)arg_align : 1;
  struct gomp_loop local, *g = &local;
  /* nogroup with a copy constructor: each task's data must be copy-constructed from the
     encountering task's variables, which may be gone once the construct returns, so the tasks
     are made up front, as GOMP_task makes them (its throttle runs them at once past a queue
     length); so they are with a tool attached (lite_taskloop_run). Either way no task reads
     the loop's state after the construct. */
  bool eager = !group && cpyfn != NULL;
  if (!group && !eager && !lite_ompt_on()) {
    /* Its ranges may run after the construct, and the encountering task's block is gone then:
       a copy, with the loop's state, freed by the last range. */
    g = malloc(sizeof *g + (size_t)arg_size + align);
    if (g == NULL)
      lite_fatal("out of memory for a taskloop");
    void *copy = (void *)(((uintptr_t)(g + 1) + align - 1) & ~(uintptr_t)(align - 1));
    memcpy(copy, data, (size_t)arg_size);
    data = copy;
  }
  *g = (struct gomp_loop){
      .l = {.run = run_gomp_task,
            .make = make_gomp_task,
            .release = g != &local ? free_gomp_loop : NULL,
            .eager = eager,
            .copy_size = (size_t)arg_size,
            .copy_align = align,
            .deferred = (flags & FLAG_IF) != 0,
            .final = (flags & FLAG_FINAL) != 0,
            .nogroup = !group,
            .flags = flags & FLAG_UNTIED,
            /* gcc passes a priority only with its flag, as libgomp reads it */
            .priority = (flags & FLAG_PRIORITY) ? priority : 0,
            .site = site},
      .fn = fn,
      .data = data,
      .cpyfn = cpyfn,
      .arg_size = (size_t)arg_size,
      .start = start,
      .end = end,
      .step = step};
  lite_taskloop_plan(&g->l, n, flags & FLAG_GRAINSIZE, flags & FLAG_STRICT, num_tasks);
  if (group)
    GOMP_taskgroup_start();
  /* reduction(...) on taskloop: the variables' block is the data block's third word; gcc
     combines the copies and unregisters them after the construct. */
  if (group && (flags & FLAG_REDUCTION))
    GOMP_taskgroup_reduction_register(((uintptr_t **)data)[2]);
  lite_taskloop_run(&g->l);
  if (group)
    GOMP_taskgroup_end();
}

/* A loop with no iterations makes no task. With a reduction clause, gcc then reads the third
   word of the block that the data block's third word points to, to learn that no reduction was
   registered: it must be 0. */
static void no_iterations(void *data, unsigned flags)
{
  if ((flags & (FLAG_REDUCTION | FLAG_NOGROUP)) == FLAG_REDUCTION)
    ((uintptr_t **)data)[2][2] = 0;
}

void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                   long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                   long start, long end, long step)
{
  if (step == 0 || (step > 0 ? start >= end : start <= end)) {
    no_iterations(data, flags);
    return;
  }
  /* The trip count, from the distance in unsigned arithmetic (exact over the whole range). */
  uint64_t span = step > 0 ? (uint64_t)end - (uint64_t)start : (uint64_t)start - (uint64_t)end;
  uint64_t stride = step > 0 ? (uint64_t)step : (uint64_t)0 - (uint64_t)step;
  uint64_t n = (span - 1) / stride + 1;
  taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, (uint64_t)start,
           (uint64_t)end, (uint64_t)step, n, __builtin_return_address(0));
}

void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,
                       int priority, unsigned long long start, unsigned long long end,
                       unsigned long long step)
{
  bool up = flags & FLAG_UP; /* gcc's direction: step is negative, as two's complement, if not */
  if (step == 0 || (up ? start >= end : start <= end)) {
    no_iterations(data, flags);
    return;
  }
  uint64_t span = up ? end - start : start - end;
  uint64_t stride = up ? step : (uint64_t)0 - step;
  uint64_t n = (span - 1) / stride + 1;
  taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step, n,
           __builtin_return_address(0));
}
