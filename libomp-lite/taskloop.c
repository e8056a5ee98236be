/* taskloop (OpenMP 5.2 §12.6): the iterations of a loop, split into explicit tasks.

   gcc passes the loop as start, end and step, and a data block whose first two words the runtime
   sets, in each task's own copy, to the bounds of that task's iterations (as two longs, or two
   unsigned long longs for GOMP_taskloop_ull). The tasks are made by task.c like any other; the
   construct is a taskgroup unless it says nogroup. */
#include "internal.h"

/* gcc's flags (gomp-constants.h). */
enum {
  FLAG_UNTIED = 1 << 0,
  FLAG_FINAL = 1 << 1,
  FLAG_UP = 1 << 8,
  FLAG_GRAINSIZE = 1 << 9,
  FLAG_IF = 1 << 10,
  FLAG_NOGROUP = 1 << 11,
  FLAG_REDUCTION = 1 << 12,
  FLAG_STRICT = 1 << 14,
};

/* How n iterations are split: ntasks tasks; without `strict`, the first `extra` of them get
   base + 1 iterations and the others base; with it, every task but the last gets base. */
struct split {
  uint64_t ntasks, base, extra;
  bool strict;
};

static struct split plan(uint64_t n, unsigned flags, unsigned long num_tasks)
{
  struct split s = {0, 0, 0, false};
  if (flags & FLAG_GRAINSIZE) {
    uint64_t grain = num_tasks != 0 ? num_tasks : 1;
    if (flags & FLAG_STRICT) {
      /* grainsize(strict: g): exactly g iterations a task, the last one the rest. */
      s.ntasks = n / grain + (n % grain != 0);
      s.base = grain;
      s.strict = true;
      return s;
    }
    /* grainsize(g): between g and 2g - 1 iterations a task (fewer only if n < g). */
    s.ntasks = n / grain != 0 ? n / grain : 1;
  } else if (num_tasks != 0) {
    s.ntasks = num_tasks < n ? num_tasks : n; /* num_tasks(k): min(k, n) tasks */
  } else {
    struct lite_thread *thr = lite_self();
    uint64_t threads = thr->team != NULL ? thr->team->nthreads : 1;
    s.ntasks = threads < n ? threads : n; /* as libgomp: one task per thread of the team */
  }
  s.base = n / s.ntasks;
  s.extra = n % s.ntasks;
  return s;
}

static uint64_t iterations_of(const struct split *s, uint64_t task, uint64_t n)
{
  if (s->strict)
    return task + 1 < s->ntasks ? s->base : n - s->base * (s->ntasks - 1);
  return s->base + (task < s->extra);
}

/* The bounds prepare() writes into a task's copy of the data block. */
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

/* Makes the tasks: iteration i is start + i * step in the loop's own type, computed here in
   64-bit wrapping arithmetic, which is that type's; the last task ends at the loop's own end. */
static void make_tasks(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                       long arg_size, long arg_align, unsigned flags, unsigned long num_tasks,
                       int priority, uint64_t start, uint64_t end, uint64_t step, uint64_t n,
                       const void *site)
{
  /* gcc passes a priority only with GOMP_TASK_FLAG_PRIORITY (1 << 4), as libgomp reads it. */
  if (!(flags & (1u << 4)))
    priority = 0;
  struct split s = plan(n, flags, num_tasks);
  unsigned task_flags = flags & (FLAG_UNTIED | FLAG_FINAL);
  bool group = !(flags & FLAG_NOGROUP);
  if (group)
    GOMP_taskgroup_start();
  /* reduction(...) on taskloop: the variables' block is the data block's third word; gcc
     combines the copies and unregisters them after the construct. */
  if (group && (flags & FLAG_REDUCTION))
    GOMP_taskgroup_reduction_register(((uintptr_t **)data)[2]);
  uint64_t first = 0;
  for (uint64_t k = 0; k < s.ntasks; k++) {
    uint64_t count = iterations_of(&s, k, n);
    struct bounds b = {start + first * step, k + 1 == s.ntasks ? end : start + (first + count) * step};
    lite_task_create(fn, data, cpyfn, arg_size, arg_align, (flags & FLAG_IF) != 0, task_flags,
                     NULL, NULL, set_bounds, &b, priority, site);
    first += count;
  }
  if (group)
    GOMP_taskgroup_end();
}

_Static_assert(sizeof(long) == sizeof(uint64_t), "taskloop bounds are written as 64-bit words");

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
  make_tasks(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, (uint64_t)start,
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
  make_tasks(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, start, end, step,
             n, __builtin_return_address(0));
}
