/* Task reductions (OpenMP 5.2 §5.5.8-5.5.10): task_reduction on taskgroup, in_reduction on task
   and taskloop, reduction on taskloop, and reduction(task, ...) on parallel and the worksharing
   constructs (for, sections, scope).

   gcc describes the reduction variables of a construct in a block it passes to the runtime:
     d[0] the number of variables, d[1] the bytes of one thread's copies of them all,
     d[2] their alignment (the runtime replaces it with the address of the copies),
     d[3] an allocator (unused here), d[4] the next block of the same construct (0: none; the
     runtime links the last one to the enclosing taskgroup's blocks), d[5] the runtime's own
     (here: where this registration's chain ends), d[6] the runtime's (the end of the copies),
     then per variable {its original address, the offset of its copy, the runtime's word}.
   The runtime allocates one zeroed set of copies per thread of the team; gcc's code initialises,
   uses (through GOMP_task_reduction_remap, which maps an original address to the calling
   thread's copy) and finally combines them, then unregisters. The blocks of a taskgroup are
   found through the current task's innermost taskgroup, which new taskgroups inherit. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Variable j of block d: {original address, offset of its copy, runtime word}. */
static uintptr_t *entry(uintptr_t *d, size_t j) { return d + 7 + 3 * j; }

static uintptr_t *next_block(const uintptr_t *d) { return (uintptr_t *)d[4]; }

void lite_task_reductions_register(uintptr_t *data, uintptr_t *old, uintptr_t *orig, unsigned n)
{
  for (uintptr_t *d = data;; d = next_block(d)) {
    if (orig != NULL) {
      /* A worksharing construct: the first member to arrive made the copies for all. */
      d[2] = orig[2];
      d[6] = orig[6];
      orig = next_block(orig);
    } else {
      size_t align = d[2] > sizeof(void *) ? (size_t)d[2] : sizeof(void *);
      size_t size = (size_t)d[1] * n;
      void *copies = aligned_alloc(align, size != 0 ? (size + align - 1) & ~(align - 1) : align);
      if (copies == NULL)
        lite_fatal("out of memory for the copies of task reduction variables (%zu bytes)", size);
      memset(copies, 0, size);
      d[2] = (uintptr_t)copies;
      d[6] = d[2] + size;
    }
    for (size_t j = 0; j < d[0]; j++)
      entry(d, j)[2] = (uintptr_t)d;
    if (d[4] == 0) {
      d[4] = (uintptr_t)old;
      break;
    }
  }
  data[5] = (uintptr_t)old; /* where this registration's blocks end */
}

/* Frees the copies of one registration: its blocks, up to the enclosing taskgroup's. */
static void free_copies(uintptr_t *data)
{
  uintptr_t *end = (uintptr_t *)data[5];
  for (uintptr_t *d = data; d != NULL && d != end; d = next_block(d))
    free((void *)d[2]);
}

/* The entry of the variable whose original address is p, in data's blocks. */
static uintptr_t *entry_of_original(uintptr_t *data, uintptr_t p)
{
  for (uintptr_t *d = data; d != NULL; d = next_block(d))
    for (size_t j = 0; j < d[0]; j++)
      if (entry(d, j)[0] == p)
        return entry(d, j);
  return NULL;
}

static unsigned team_size(struct lite_thread *thr)
{
  return thr->team != NULL ? thr->team->nthreads : 1;
}

/* taskgroup task_reduction(...), and taskloop reduction(...), which gcc wraps in a taskgroup. */
void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
  struct lite_thread *thr = lite_self();
  struct lite_taskgroup *g = lite_current_task(thr)->taskgroup;
  if (g == NULL)
    lite_fatal("GOMP_taskgroup_reduction_register outside a taskgroup");
  lite_task_reductions_register(data, g->reductions, NULL, team_size(thr));
  g->reductions = data;
}

void GOMP_taskgroup_reduction_unregister(uintptr_t *data) { free_copies(data); }

/* For i < cnt, ptrs[i] is the original address of a reduction variable, or an address already
   remapped (by this or another thread): it becomes the address of the calling thread's copy.
   For i < cntorig, ptrs[cnt + i] also gets the original address. */
void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
  struct lite_thread *thr = lite_self();
  struct lite_taskgroup *g = lite_current_task(thr)->taskgroup;
  uintptr_t *data = g != NULL ? g->reductions : NULL;
  uintptr_t id = thr->id;
  for (size_t i = 0; i < cnt; i++) {
    uintptr_t p = (uintptr_t)ptrs[i];
    uintptr_t *d, *e = entry_of_original(data, p);
    if (e == NULL) {
      /* A copy's address: the block whose copies hold it, and the entry at its offset. */
      for (d = data; d != NULL && !(p >= d[2] && p < d[6]); d = next_block(d))
        ;
      if (d == NULL || d[1] == 0)
        lite_fatal("no task_reduction or reduction(task, ...) covers the address %p", ptrs[i]);
      uintptr_t offset = (p - d[2]) % d[1];
      for (size_t j = 0; j < d[0] && e == NULL; j++)
        if (entry(d, j)[1] == offset)
          e = entry(d, j);
      if (e == NULL) {
        /* Inside a variable (an array section): the same offset in this thread's copies. */
        ptrs[i] = (void *)(d[2] + id * d[1] + offset);
        if (i < cntorig)
          lite_fatal("no task reduction variable starts at the address %p", (void *)p);
        continue;
      }
    }
    d = (uintptr_t *)e[2];
    ptrs[i] = (void *)(d[2] + id * d[1] + e[1]);
    if (i < cntorig)
      ptrs[cnt + i] = (void *)e[0];
  }
}

/* ---------------------------------------------------------------- on worksharing constructs */

/* Every member of the team opens a taskgroup for the construct's tasks; the first to arrive
   makes the copies (ws->task_reductions), the others register on the same ones. Called between
   lite_ws_begin and lite_ws_ready by the first member, after lite_ws_begin by the others. */
void lite_ws_task_reductions(struct lite_thread *thr, struct lite_ws *ws, bool first,
                             uintptr_t *reductions)
{
  GOMP_taskgroup_start();
  struct lite_taskgroup *g = lite_current_task(thr)->taskgroup;
  g->workshare = true;
  lite_task_reductions_register(reductions, g->reductions, first ? NULL : ws->task_reductions,
                                team_size(thr));
  g->reductions = reductions;
  if (first)
    ws->task_reductions = reductions;
}

/* The end of a worksharing construct with reduction(task, ...), after gcc's code combined the
   copies: the construct's taskgroup ends, thread 0 frees the copies, and all meet at a barrier
   unless the construct was cancelled. */
void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
  struct lite_thread *thr = lite_self();
  uintptr_t *data = lite_current_task(thr)->taskgroup->reductions;
  GOMP_taskgroup_end();
  if (thr->id == 0)
    free_copies(data);
  if (!cancelled)
    lite_barrier_wait(thr);
}

/* parallel reduction(task, ...): every implicit task of the region starts in one taskgroup that
   holds the reductions, registered with the team's final size (team.c). Returns that size, the
   number of copies gcc's code combines. */
unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
                                  unsigned flags)
{
  struct lite_thread *thr = lite_self();
  struct lite_taskgroup group;
  memset(&group, 0, sizeof group);
  group.reductions = *(uintptr_t **)data;
  thr->next_reduction_group = &group;
  return lite_parallel_run(fn, data, num_threads, flags, NULL, NULL);
}
