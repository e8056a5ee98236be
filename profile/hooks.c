/* What the runtime's hooks record, while the profile is on: regions, loops, barriers, single,
   critical, futex sleeps and wake-ups, tasks. Each hook adds to its row (site_table.c) and, when
   the trace is on, opens or closes an interval on the calling thread's lane (trace.c). */
#include "profile.h"
#include "loop_common.h"

#include <link.h>
#include <pthread.h>
#include <string.h>

static void add(_Atomic uint64_t *counter, uint64_t value)
{
  if (value != 0)
    atomic_fetch_add_explicit(counter, value, memory_order_relaxed);
}

static void note_threads(struct lite_prof_row *row, unsigned n)
{
  unsigned seen = atomic_load_explicit(&row->max_threads, memory_order_relaxed);
  while (n > seen &&
         !atomic_compare_exchange_weak_explicit(&row->max_threads, &seen, n,
                                                memory_order_relaxed, memory_order_relaxed))
    ;
  seen = atomic_load_explicit(&row->min_threads, memory_order_relaxed);
  while ((seen == 0 || n < seen) &&
         !atomic_compare_exchange_weak_explicit(&row->min_threads, &seen, n,
                                                memory_order_relaxed, memory_order_relaxed))
    ;
}

/* A loop whose end did not come through GOMP_loop_end* (a clang-built dispatch loop ends in
   kmpc/): its interval closes when the thread's next loop or its region's end comes, so that
   the lane's intervals still nest. */
static void close_open_loop(struct lite_prof_thread *p, uint64_t now)
{
  if (p->loop == NULL)
    return;
  if (lite_prof_tracing())
    lite_trace_end(LITE_TR_LOOP, now, p->chunks, p->steals);
  p->sums.chunks += p->chunks;
  p->sums.steals += p->steals;
  p->loop = NULL;
  p->chunks = p->steals = 0;
}

/* Moves the thread's sums for its last loop site to the row. */
static void flush_loops(struct lite_prof_thread *p)
{
  struct lite_prof_loop_sums *sums = &p->sums;
  struct lite_prof_row *row = sums->row;
  if (row == NULL)
    return;
  add(&row->count, sums->count);
  add(&row->wall_ns, sums->wall_ns);
  add(&row->member_ns, sums->member_ns);
  add(&row->wait_ns, sums->wait_ns);
  add(&row->chunks, sums->chunks);
  add(&row->steals, sums->steals);
  for (unsigned d = 0; d < LITE_DEC_KINDS; d++)
    add(&row->decisions[d], sums->decisions[d]);
  if (sums->sched_mask & ~atomic_load_explicit(&row->sched_mask, memory_order_relaxed))
    atomic_fetch_or_explicit(&row->sched_mask, sums->sched_mask, memory_order_relaxed);
  if (sums->max_threads != 0) {
    note_threads(row, sums->min_threads);
    note_threads(row, sums->max_threads);
  }
  memset(sums, 0, sizeof *sums);
}

static void flush_barriers(struct lite_prof_thread *p);

/* ------------------------------------------------------------- sites inside the runtime */

/* A construct's site is its entry point's return address: the user's code, unless the user's
   function ended with the call. gcc makes the last call of an outlined function a tail call
   (`jmp GOMP_barrier` for the implicit barrier of a single, for or sections that ends a region's
   body; `jmp GOMP_taskwait` ending a task's), and the return address is then the runtime's own
   call of the outlined function: run_member for the workers, lite_parallel_run_profiled for the
   leader, task.c for a task. Those rows read "barrier 0x13189 (libomp-lite.so.0)", a site no user
   can act on, and the leader's waits and the workers' went to two rows, the workers' with count 0
   (issue 40). Such a site becomes the one the thread entered the function through: the creation
   site of the task it runs, else the site of its region. The check is two compares, on the
   profiled path only. */
static uintptr_t runtime_lo, runtime_hi;
static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;

static int find_runtime(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  uintptr_t self = (uintptr_t)arg;
  for (unsigned i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz) {
      runtime_lo = lo;
      runtime_hi = lo + ph->p_memsz;
      return 1;
    }
  }
  return 0;
}

/* dl_iterate_phdr, not dladdr: dladdr takes the loader's lock, which a thread inside dlopen holds
   while a library's constructor runs, perhaps waiting in a parallel region for this thread. */
static void locate_runtime(void)
{
  dl_iterate_phdr(find_runtime, (void *)(uintptr_t)lite_prof_in_runtime);
}

bool lite_prof_in_runtime(const void *addr)
{
  pthread_once(&runtime_once, locate_runtime);
  return (uintptr_t)addr >= runtime_lo && (uintptr_t)addr < runtime_hi;
}

/* The site to key a barrier, taskwait or taskgroup row by (tail: how it was found). */
static const void *user_site(struct lite_prof_thread *p, const void *site,
                             enum lite_prof_tail *tail)
{
  *tail = LITE_TAIL_NONE;
  if (!lite_prof_in_runtime(site))
    return site;
  if (p->task_depth > p->task_base) {
    if (p->task_depth > sizeof p->task_sites / sizeof p->task_sites[0])
      return site; /* too deep to know which task: the runtime's address, as before */
    *tail = LITE_TAIL_TASK;
    return p->task_sites[p->task_depth - 1];
  }
  if (p->region != NULL && p->region->key != NULL) {
    *tail = LITE_TAIL_REGION;
    return p->region->key;
  }
  return site;
}

/* The row of a construct keyed by user_site. */
static struct lite_prof_row *tail_row(const void *site, enum lite_prof_kind kind,
                                      enum lite_prof_tail tail)
{
  struct lite_prof_row *row = lite_prof_row(site, kind, NULL);
  if (tail != LITE_TAIL_NONE &&
      atomic_load_explicit(&row->tail, memory_order_relaxed) != (unsigned char)tail)
    atomic_store_explicit(&row->tail, (unsigned char)tail, memory_order_relaxed);
  return row;
}

/* ------------------------------------------------------------------------ parallel regions */

void lite_prof_region_begin(struct lite_prof_region *r, const void *site, const void *fn)
{
  struct lite_prof_thread *p = lite_prof_self();
  r->t0 = lite_now_ns();
  r->t1 = r->t2 = 0;
  /* A nested region that ended its parent's body (a tail-called GOMP_parallel) has the
     runtime's address for its site: its outlined function names it instead, one row each (the
     enclosing region's site is that region's own row). */
  if (fn != NULL && lite_prof_in_runtime(site) && !lite_prof_in_runtime(fn))
    site = fn;
  r->row = lite_prof_row(site, LITE_PROF_PARALLEL, fn);
  r->saved_region = p->region;
  r->saved_loop = p->loop;
  r->saved_chunks = p->chunks;
  r->saved_steals = p->steals;
  r->saved_task_base = p->task_base;
  p->task_base = p->task_depth; /* a task running this region is not in its body */
  p->region = r->row;
  p->loop = NULL;
  p->chunks = p->steals = 0;
  p->pending_row = r->row;
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_PARALLEL, site, r->t0);
}

void lite_prof_region_forked(struct lite_prof_region *r, struct lite_thread *thr, bool combined)
{
  r->t1 = lite_now_ns();
  lite_prof_self()->pending_row = NULL;
  if (combined && thr->ws != NULL)
    add(&r->row->decisions[lite_prof_ws_decision(thr->ws)], 1);
}

void lite_prof_region_joining(struct lite_prof_region *r)
{
  r->t2 = lite_now_ns();
  close_open_loop(lite_prof_self(), r->t2); /* before the join's interval opens */
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_JOIN, NULL, r->t2);
}

void lite_prof_region_end(struct lite_prof_region *r, struct lite_team *team, unsigned n,
                          enum lite_prof_decision inline_decision)
{
  struct lite_prof_thread *p = lite_prof_self();
  struct lite_prof_row *row = r->row;
  uint64_t t3 = lite_now_ns();
  close_open_loop(p, t3);
  flush_loops(p);
  flush_barriers(p);
  uint64_t t1 = r->t1 != 0 ? r->t1 : r->t0;
  uint64_t t2 = r->t2 != 0 ? r->t2 : t3;
  uint64_t span = t3 > t1 ? t3 - t1 : 0;
  /* The members' wait at the join: from the end of each one's share to the end of the join. The
     leader read the workers' words in the join (acquire): their times are visible. */
  uint64_t wait = t3 - t2, last = t2;
  if (team != NULL && team->pool != NULL)
    for (unsigned i = 1; i < n; i++) {
      uint64_t done = team->pool->slots[i]->prof_done_ns;
      if (done >= t1 && done <= t3) {
        wait += t3 - done;
        if (done > last)
          last = done;
      }
    }
  add(&row->count, 1);
  add(&row->wall_ns, t3 - r->t0);
  add(&row->fork_ns, t1 - r->t0);
  add(&row->join_ns, t3 - last);
  add(&row->member_ns, span * n);
  add(&row->wait_ns, wait);
  add(&row->chunks, p->chunks);
  add(&row->steals, p->steals);
  if (inline_decision != LITE_DEC_KINDS)
    add(&row->decisions[inline_decision], 1);
  note_threads(row, n);
  lite_prof_note_team(n);
  if (lite_prof_tracing()) {
    if (r->t2 != 0)
      lite_trace_end(LITE_TR_JOIN, t3, 0, 0);
    lite_trace_end(LITE_TR_PARALLEL, t3, n, p->chunks);
  }
  p->region = r->saved_region;
  p->loop = r->saved_loop;
  p->chunks = r->saved_chunks;
  p->steals = r->saved_steals;
  p->task_base = r->saved_task_base;
  p->pending_row = NULL;
}

void lite_prof_member_begin(struct lite_pool *pool)
{
  struct lite_prof_thread *p = lite_prof_self();
  p->region = pool->prof_row;
  p->loop = NULL;
  p->chunks = p->steals = 0;
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_PARALLEL, p->region != NULL ? p->region->key : NULL, lite_now_ns());
}

void lite_prof_member_end(struct lite_slot *slot)
{
  struct lite_prof_thread *p = lite_prof_self();
  uint64_t now = lite_now_ns();
  close_open_loop(p, now);
  flush_loops(p);
  flush_barriers(p);
  if (p->region != NULL) {
    add(&p->region->chunks, p->chunks);
    add(&p->region->steals, p->steals);
  }
  p->chunks = p->steals = 0;
  slot->prof_done_ns = now;
  if (lite_prof_tracing())
    lite_trace_end(LITE_TR_PARALLEL, now, 0, 0);
}

/* ----------------------------------------------------------------------------------- loops */

enum lite_prof_decision lite_prof_ws_decision(const struct lite_ws *ws)
{
  switch (ws->handout) {
  case LITE_HANDOUT_STATIC:
  case LITE_HANDOUT_CYCLIC:
    return LITE_DEC_STATIC;
  case LITE_HANDOUT_DYNAMIC:
    return LITE_DEC_DYNAMIC;
  case LITE_HANDOUT_GUIDED:
    return LITE_DEC_GUIDED;
  case LITE_HANDOUT_WHOLE:
    return LITE_DEC_WHOLE;
  case LITE_HANDOUT_OWN:
  default:
    return ws->steal ? LITE_DEC_STEAL : LITE_DEC_OWN;
  }
}

static void ws_begin(enum lite_prof_kind kind, const void *site, int sched, bool first,
                     enum lite_prof_decision dec, unsigned nthreads)
{
  struct lite_prof_thread *p = lite_prof_self();
  uint64_t now = lite_now_ns();
  close_open_loop(p, now);
  struct lite_prof_loop_sums *sums = &p->sums;
  if (sums->site != site || sums->row == NULL || sums->row->kind != kind) {
    flush_loops(p);
    sums->row = lite_prof_row(site, kind, NULL);
    sums->site = site;
  }
  p->loop = sums->row;
  p->loop_start_ns = now;
  p->chunks = p->steals = 0;
  if (first) {
    sums->count++;
    sums->decisions[dec]++;
    sums->sched_mask |= 1u << (sched & 15);
    if (sums->min_threads == 0 || nthreads < sums->min_threads)
      sums->min_threads = nthreads;
    if (nthreads > sums->max_threads)
      sums->max_threads = nthreads;
  }
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_LOOP, site, now);
}

void lite_prof_loop_begin(const void *site, int sched, bool first, enum lite_prof_decision dec,
                          unsigned nthreads)
{
  ws_begin(LITE_PROF_LOOP, site, sched, first, dec, nthreads);
}

void lite_prof_sections_begin(const void *site, bool first, unsigned nthreads)
{
  ws_begin(LITE_PROF_SECTIONS, site, LITE_SCHED_DYNAMIC, first, LITE_DEC_DYNAMIC, nthreads);
}

bool lite_prof_loop_end(struct lite_thread *thr, int barrier)
{
  struct lite_prof_thread *p = lite_prof_self();
  unsigned n = lite_loop_team_size(thr);
  bool cancelled = false;
  lite_loop_finish(thr, barrier == 1);
  uint64_t finished = lite_now_ns(); /* the wait is the barrier's alone */
  if (barrier != 0 && lite_prof_tracing())
    lite_trace_begin(LITE_TR_BARRIER, NULL, finished);
  if (barrier == 1)
    lite_barrier_wait(thr);
  else if (barrier == 2)
    cancelled = lite_barrier_wait_cancel(thr);
  uint64_t out = barrier != 0 ? lite_now_ns() : finished;
  if (lite_prof_tracing() && barrier != 0)
    lite_trace_end(LITE_TR_BARRIER, out, 0, 0);
  if (p->loop != NULL) {
    uint64_t span = out > p->loop_start_ns ? out - p->loop_start_ns : 0;
    p->sums.member_ns += span;
    p->sums.wall_ns += span / (n > 0 ? n : 1);
    p->sums.wait_ns += out - finished;
    close_open_loop(p, out);
  } else if (p->region != NULL) {
    /* A combined parallel loop (set up at the fork): its chunks go to the region's row. */
    add(&p->region->chunks, p->chunks);
    add(&p->region->steals, p->steals);
  }
  p->chunks = p->steals = 0;
  return cancelled;
}

/* ------------------------------------------------------------ barrier, single, critical */

static void flush_barriers(struct lite_prof_thread *p)
{
  struct lite_prof_row *row = p->bar_row;
  if (row == NULL)
    return;
  add(&row->wait_ns, p->bar_wait_ns);
  add(&row->count, p->bar_count);
  if (p->bar_count != 0)
    note_threads(row, p->bar_threads);
  p->bar_row = NULL;
  p->bar_site = NULL;
  p->bar_wait_ns = p->bar_count = 0;
}

void lite_prof_barrier(struct lite_thread *thr, const void *site)
{
  struct lite_prof_thread *p = lite_prof_self();
  enum lite_prof_tail tail;
  site = user_site(p, site, &tail);
  uint64_t start = lite_now_ns();
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_BARRIER, site, start);
  lite_barrier_wait(thr);
  uint64_t end = lite_now_ns();
  if (p->bar_site != site) {
    flush_barriers(p);
    p->bar_row = tail_row(site, LITE_PROF_BARRIER, tail);
    p->bar_site = site;
  }
  /* Every member counts its pass, as the total sums every member's wait: counted once per team
     by thread 0, a barrier construct that thread 0 never met (it passed the team's barrier
     elsewhere: `if (omp_get_thread_num() == 0) { ...; barrier } else barrier`, or a tail call
     before issue 40's fix) read "count 0" beside a total of 158 ms. mean-us is then one member's
     mean wait there. */
  p->bar_wait_ns += end - start;
  p->bar_count++;
  p->bar_threads = thr->team != NULL ? thr->team->nthreads : 1;
  if (lite_prof_tracing())
    lite_trace_end(LITE_TR_BARRIER, end, 0, 0);
}

void lite_prof_flush_thread(void)
{
  struct lite_prof_thread *p = lite_prof_self();
  close_open_loop(p, lite_now_ns());
  flush_loops(p);
  flush_barriers(p);
}

void lite_prof_thread_exit(void)
{
  struct lite_prof_thread *p = lite_prof_tls;
  if (p == NULL)
    return;
  lite_prof_flush_thread();
  lite_prof_thread_free(p);
}

void lite_prof_single(const void *site, bool won)
{
  if (won)
    add(&lite_prof_row(site, LITE_PROF_SINGLE, NULL)->count, 1);
}

void lite_prof_critical(_Atomic uint32_t *mutex, const void *site)
{
  uint64_t start = lite_now_ns();
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_CRITICAL, site, start);
  lite_mutex_lock(mutex);
  uint64_t end = lite_now_ns();
  struct lite_prof_row *row = lite_prof_row(site, LITE_PROF_CRITICAL, NULL);
  add(&row->count, 1);
  add(&row->wait_ns, end - start);
  if (lite_prof_tracing())
    lite_trace_end(LITE_TR_CRITICAL, end, 0, 0);
}

/* ------------------------------------------------------------------- sleeps and wake-ups */

/* A sleep counts in the row of what the thread is in: its loop, else its region (a worker
   between regions: the region it ran last, whose end it waits after). */
static struct lite_prof_row *current_row(void)
{
  struct lite_prof_thread *p = lite_prof_self();
  return p->loop != NULL ? p->loop : p->region;
}

void lite_prof_park_begin(void)
{
  uint64_t now = lite_now_ns();
  lite_prof_self()->park_start_ns = now;
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_PARKED, NULL, now);
}

void lite_prof_park_end(void)
{
  struct lite_prof_thread *p = lite_prof_self();
  uint64_t now = lite_now_ns(), start = p->park_start_ns;
  struct lite_prof_row *row = current_row();
  if (row != NULL && start != 0) {
    add(&row->parks, 1);
    add(&row->park_ns, now > start ? now - start : 0);
  }
  p->park_start_ns = 0;
  if (lite_prof_tracing())
    lite_trace_end(LITE_TR_PARKED, now, 0, 0);
}

void lite_prof_wakes(int n)
{
  struct lite_prof_row *row = current_row();
  if (row != NULL && n > 0)
    add(&row->wakes, (uint64_t)n);
}

/* ----------------------------------------------------------------------------------- tasks */

void lite_prof_task_created_slow(const void *site)
{
  add(&lite_prof_row(site, LITE_PROF_TASK, NULL)->count, 1);
}

uint64_t lite_prof_task_start_slow(const void *site)
{
  struct lite_prof_thread *p = lite_prof_self();
  if (p->task_depth < sizeof p->task_sites / sizeof p->task_sites[0])
    p->task_sites[p->task_depth] = site;
  p->task_depth++;
  uint64_t now = lite_now_ns();
  if (lite_prof_tracing())
    lite_trace_begin(LITE_TR_TASK, site, now);
  return now;
}

void lite_prof_task_ran_slow(const void *site, bool other_thread, uint64_t start_ns)
{
  struct lite_prof_thread *p = lite_prof_self();
  if (p->task_depth > 0)
    p->task_depth--;
  uint64_t now = lite_now_ns();
  struct lite_prof_row *row = lite_prof_row(site, LITE_PROF_TASK, NULL);
  add(&row->member_ns, now > start_ns ? now - start_ns : 0);
  if (other_thread)
    add(&row->tasks_other, 1);
  if (lite_prof_tracing())
    lite_trace_end(LITE_TR_TASK, now, other_thread, 0);
}

uint64_t lite_prof_wait_begin_slow(enum lite_prof_kind kind)
{
  uint64_t now = lite_now_ns();
  if (lite_prof_tracing())
    lite_trace_begin(kind == LITE_PROF_TASKWAIT ? LITE_TR_TASKWAIT : LITE_TR_TASKGROUP, NULL,
                     now);
  return now;
}

void lite_prof_wait_end_slow(const void *site, enum lite_prof_kind kind, uint64_t start_ns)
{
  uint64_t now = lite_now_ns();
  enum lite_prof_tail tail;
  site = user_site(lite_prof_self(), site, &tail);
  struct lite_prof_row *row = tail_row(site, kind, tail);
  add(&row->count, 1);
  add(&row->wait_ns, now > start_ns ? now - start_ns : 0);
  if (lite_prof_tracing())
    lite_trace_end(kind == LITE_PROF_TASKWAIT ? LITE_TR_TASKWAIT : LITE_TR_TASKGROUP, now, 0, 0);
}
