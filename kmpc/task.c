/* Explicit tasks of clang-built code. clang allocates a task through the runtime
   (__kmpc_omp_task_alloc: LLVM's kmp_task_t, the task's private copies after it, its
   shared-variable pointers after those), fills it, and submits it (__kmpc_omp_task, or
   _with_deps). Here each such task travels through GOMP_task as a two-word data block that
   points back to it, so it gets the same queue, dependences, taskwait, taskgroup and
   cancellation as a gcc-built task, and a task of either kind can wait for the other's children.

   Task reductions (taskgroup task_reduction, in_reduction, reduction(task, ...)) follow LLVM's
   protocol and are kept here: a taskgroup of this layer holds the reduction items, each with one
   private copy per member of the team, combined into the shared item when the taskgroup ends. */
#include "internal.h"
#include "kmpc.h"
#include "ompt/ompt.h"

#include <stdlib.h>
#include <string.h>

typedef int32_t (*kmp_routine_entry_t)(int32_t, void *);

typedef union {
  int32_t priority;
  kmp_routine_entry_t destructors;
} kmp_cmplrdata_t;

typedef struct kmp_task {
  void *shareds;
  kmp_routine_entry_t routine;
  int32_t part_id;
  kmp_cmplrdata_t data1; /* destructors, when the flag says so */
  kmp_cmplrdata_t data2; /* priority, when the flag says so */
} kmp_task_t;

/* The compiler's half of LLVM's kmp_tasking_flags_t. */
enum {
  KMPC_TASK_TIED = 1 << 0,
  KMPC_TASK_FINAL = 1 << 1,
  KMPC_TASK_MERGED_IF0 = 1 << 2,
  KMPC_TASK_DESTRUCTORS = 1 << 3,
  KMPC_TASK_PROXY = 1 << 4,
  KMPC_TASK_PRIORITY = 1 << 5,
  KMPC_TASK_DETACHABLE = 1 << 6,
};

/* GOMP_task's flags (libgomp's numbering). */
enum {
  GOMP_UNTIED = 1 << 0,
  GOMP_FINAL = 1 << 1,
  GOMP_DEPEND = 1 << 3,
  GOMP_PRIORITY = 1 << 4,
  GOMP_DETACH = 1 << 13,
};

/* ---------------------------------------------------------------- taskgroups and reductions */

/* One task reduction item, as LLVM's kmp_taskred_data_t holds it. */
struct red_item {
  void *shar;             /* the item the copies combine into */
  void *orig;             /* omp_orig for a two-parameter initializer; NULL: one parameter */
  size_t size;
  void *init;             /* void init(priv) or init(priv, orig); may be NULL */
  void (*fini)(void *);
  void (*comb)(void *, void *);
  bool lazy;              /* copies allocated on first use: priv is an array of pointers */
  char *priv;             /* nth copies of size bytes, or nth pointers */
  char *priv_end;
  unsigned nth;
};

struct kmpc_taskgroup {
  struct kmpc_taskgroup *parent;
  unsigned nitems;
  struct red_item *items;
  bool items_shared;      /* reduction(task, ...): the copies belong to the whole team */
};

/* The taskgroup the running task belongs to: its own innermost one, else the one it was created
   in. A task runs on one thread from start to end, so a stack per thread holds. */
static LITE_THREAD_LOCAL struct kmpc_taskgroup *current_group;

/* ---------------------------------------------------------------- the task block */

/* What the runtime keeps in front of each kmp_task_t. */
struct kmpc_task {
  struct kmpc_taskgroup *group; /* the taskgroup it was created in */
  size_t task_size;             /* sizeof_kmp_task_t: the task and its private copies */
  size_t shareds_size;
  int32_t flags;
  _Atomic int refs;             /* its routine's end, and omp_fulfill_event when detachable */
  void *_Atomic event;          /* GOMP_task's event, for a detachable task */
  struct lite_included included; /* task if(0): the task and the state its end puts back */
  /* A detachable task run by task if(0) (IF0_*): its event is met here, not in task.c. */
  _Atomic int if0;
  ompt_data_t ompt_data;        /* its tool data after its body, for a late fulfill's event */
  /* clang runs an untied task in parts: a part that reaches a scheduling point submits the
     same task again for the next (the first part does nothing else). Each submission holds a
     reference; parts counts them, for a tool, which sees one task. */
  bool submitted;
  _Atomic unsigned parts;
  bool block;                   /* from lite_task_block_get (else malloc), given back to where */
  struct lite_block_home where;
  bool target;                  /* a target task (target nowait: __kmpc_omp_target_task_alloc) */
};

/* A detachable task if(0): not one (NONE), its body running (RUNNING), its event fulfilled
   while the body ran (FULFILLED), the body over first (ENDED). */
enum { IF0_NONE, IF0_RUNNING, IF0_FULFILLED, IF0_ENDED };

#define TASK_OFFSET ((sizeof(struct kmpc_task) + 15) & ~(size_t)15)

static kmp_task_t *task_of(struct kmpc_task *h) { return (kmp_task_t *)((char *)h + TASK_OFFSET); }
static struct kmpc_task *header_of(kmp_task_t *t)
{
  return (struct kmpc_task *)((char *)t - TASK_OFFSET);
}

static size_t shareds_offset(size_t task_size)
{
  return (TASK_OFFSET + task_size + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
}

static kmp_task_t *task_alloc(int32_t flags, size_t task_size, size_t shareds_size,
                              kmp_routine_entry_t entry)
{
  if (task_size < sizeof(kmp_task_t))
    task_size = sizeof(kmp_task_t);
  size_t off = shareds_offset(task_size);
  /* A block of the runtime's task memory, as gcc-built tasks get, unless the task is detachable
     (its last reference may go in omp_fulfill_event, from any thread, after its region). With
     malloc, the thread that ran a task freed it into its maker's arena: clang-built taskbench
     taskgroup, 2 threads, 20 % of the samples in malloc and free and their arena lock. */
  struct lite_block_home where = {NULL, NULL};
  struct kmpc_task *h = (flags & KMPC_TASK_DETACHABLE)
                            ? NULL
                            : lite_task_block_get(off + shareds_size, &where);
  bool block = h != NULL;
  if (h == NULL && (h = malloc(off + shareds_size)) == NULL)
    lite_fatal("out of memory allocating a task (%zu bytes)", off + shareds_size);
  h->block = block;
  h->where = where;
  h->group = current_group;
  h->task_size = task_size;
  h->shareds_size = shareds_size;
  h->flags = flags;
  atomic_init(&h->refs, (flags & KMPC_TASK_DETACHABLE) ? 2 : 1);
  atomic_init(&h->event, NULL);
  atomic_init(&h->if0, IF0_NONE);
  h->submitted = false;
  h->target = false;
  atomic_init(&h->parts, 0);
  kmp_task_t *t = task_of(h);
  memset(t, 0, sizeof *t);
  t->shareds = shareds_size > 0 ? (char *)h + off : NULL;
  t->routine = entry;
  return t;
}

static void task_release(struct kmpc_task *h)
{
  if (atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
    return;
  if (h->block)
    lite_task_block_put(h, &h->where);
  else
    free(h);
}

KMPC_EXPORT kmp_task_t *__kmpc_omp_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                              size_t sizeof_kmp_task_t, size_t sizeof_shareds,
                                              kmp_routine_entry_t task_entry)
{
  (void)loc, (void)gtid;
  if (flags & KMPC_TASK_PROXY)
    lite_error_exit("a proxy task (__kmpc_omp_task_alloc with the proxy flag): libomp-lite runs "
                    "no offload device");
  return task_alloc(flags, sizeof_kmp_task_t, sizeof_shareds, task_entry);
}

/* Called by an offload plugin when a proxy task's device work is done: there are none here
   (__kmpc_omp_task_alloc refuses them). */
KMPC_EXPORT void __kmpc_proxy_task_completed_ooo(kmp_task_t *task)
{
  (void)task;
  lite_error_exit("__kmpc_proxy_task_completed_ooo: libomp-lite runs no offload device, so it has "
                  "no proxy tasks");
}

/* target nowait's task: on the host, a task like any other. */
KMPC_EXPORT kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *loc, int32_t gtid, int32_t flags,
                                                     size_t sizeof_kmp_task_t,
                                                     size_t sizeof_shareds,
                                                     kmp_routine_entry_t task_entry,
                                                     int64_t device_id)
{
  (void)device_id;
  kmp_task_t *t = __kmpc_omp_task_alloc(loc, gtid, flags, sizeof_kmp_task_t, sizeof_shareds,
                                        task_entry);
  if (t != NULL)
    header_of(t)->target = true; /* a tool sees it as ompt_task_target */
  return t;
}

/* GOMP_task's data block for a clang-built task. The first word is where GOMP_task puts a
   detachable task's event. */
struct task_ref {
  void *event;
  struct kmpc_task *task;
};

/* With a tool attached: the task's exit frame is this function's, the caller of clang's task
   entry, while it runs (ompt/tasks.c). */
static __attribute__((noinline)) void call_traced(kmp_routine_entry_t routine, int32_t gtid,
                                                  kmp_task_t *t)
{
  struct lite_task *task = lite_self()->task;
  task->ompt_frame.exit_frame.ptr = __builtin_frame_address(0);
  task->ompt_frame.exit_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
  routine(gtid, t);
  /* After the call, which is then no tail call: the frame stays while the routine runs. */
  task->ompt_frame.exit_frame.ptr = NULL;
}

static void run_task(void *arg)
{
  struct task_ref *ref = arg;
  struct kmpc_task *h = ref->task;
  kmp_task_t *t = task_of(h);
  int32_t gtid = lite_kmpc_gtid();
  struct kmpc_taskgroup *saved = current_group;
  current_group = h->group;
  unsigned parts = atomic_load_explicit(&h->parts, memory_order_relaxed);
  if (t->routine == NULL) /* an empty task, for its dependences alone */
    ;
  else if (lite_ompt_on()) {
    /* An untied task's next part is the same task to the tool (submit). */
    struct lite_thread *thr = lite_self();
    h->ompt_data = thr->task->ompt_data;
    call_traced(t->routine, gtid, t);
    thr->ompt_part_continues = atomic_load_explicit(&h->parts, memory_order_relaxed) != parts;
  } else
    t->routine(gtid, t);
  /* The private copies' destructors run after the last part only. */
  bool continues = atomic_load_explicit(&h->parts, memory_order_relaxed) != parts;
  if ((h->flags & KMPC_TASK_DESTRUCTORS) && !continues)
    t->data1.destructors(gtid, t);
  current_group = saved;
  task_release(h);
}

/* site: the clang-built caller, for the profile's task rows. */
static void submit(struct kmpc_task *h, bool if_clause, void **depend, const void *site)
{
  kmp_task_t *t = task_of(h);
  struct task_ref ref = { NULL, h };
  unsigned flags = 0;
  int priority = 0;
  if (!(h->flags & KMPC_TASK_TIED))
    flags |= GOMP_UNTIED;
  if (h->flags & KMPC_TASK_FINAL)
    flags |= GOMP_FINAL;
  if (h->flags & KMPC_TASK_PRIORITY) {
    flags |= GOMP_PRIORITY;
    priority = t->data2.priority;
  }
  if (depend != NULL)
    flags |= GOMP_DEPEND;
  void *detach = NULL;
  if (h->flags & KMPC_TASK_DETACHABLE) {
    flags |= GOMP_DETACH;
    detach = (void *)&h->event;
  }
  /* The next part of an untied task, submitted by the part running: a reference of its own
     (each part's end drops one; before, the first part's end freed the block the next part
     was queued with), and to a tool, the same task going on. */
  if (h->submitted) {
    atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->parts, 1, memory_order_relaxed);
    if (lite_ompt_on())
      lite_self()->ompt_resume = &h->ompt_data;
  }
  h->submitted = true;
  if (lite_ompt_on()) {
    /* Its memory for ompt_get_task_memory: the kmp_task_t and its private copies, as
       __kmpc_omp_task_alloc allocated them, not the two words GOMP_task copies. */
    struct lite_thread *thr = lite_self();
    thr->ompt_memory = t;
    thr->ompt_memory_size = h->task_size;
    thr->ompt_target_task = h->target;
  }
  lite_task_create(run_task, &ref, NULL, sizeof ref, _Alignof(struct task_ref), if_clause, flags,
                   depend, detach, NULL, NULL, priority, site);
}

KMPC_EXPORT int32_t __kmpc_omp_task(ident_t *loc, int32_t gtid, kmp_task_t *new_task)
{
  (void)loc, (void)gtid;
  submit(header_of(new_task), true, NULL, __builtin_return_address(0));
  return 0; /* TASK_CURRENT_NOT_QUEUED: nothing the caller reads */
}

/* ---------------------------------------------------------------- dependences */

typedef struct kmp_depend_info {
  intptr_t base_addr;
  size_t len;
  uint8_t flags;
} kmp_depend_info_t;

enum { DEP_IN = 1, DEP_OUT = 2, DEP_MTX = 4, DEP_SET = 8, DEP_ALL = 0x80 };

/* The two lists of LLVM's depend info in gcc's depend array: {0, n, n_out, n_mutex, n_in,
   out..., mutexinoutset..., in...}. out and inout go together, as gcc passes them; inoutset,
   which this runtime's dependences lack, counts as inout (its tasks then also wait for one
   another: more order, never less); omp_all_memory is the NULL address, as in gcc's array. */
static void **build_depend(int32_t n1, kmp_depend_info_t *l1, int32_t n2, kmp_depend_info_t *l2,
                           void **small, size_t small_len)
{
  size_t n = (size_t)(n1 > 0 ? n1 : 0) + (size_t)(n2 > 0 ? n2 : 0);
  void **dep = 5 + n <= small_len ? small : malloc((5 + n) * sizeof *dep);
  if (dep == NULL)
    lite_fatal("out of memory for a task's dependences");
  size_t k = 5, nout = 0, nmtx = 0, nin = 0;
  /* Three passes, one per kind, in gcc's order. */
  for (int pass = 0; pass < 3; pass++) {
    for (int list = 0; list < 2; list++) {
      kmp_depend_info_t *l = list == 0 ? l1 : l2;
      int32_t m = list == 0 ? n1 : n2;
      for (int32_t i = 0; i < m; i++) {
        uint8_t f = l[i].flags;
        /* omp_all_memory comes as the flag or as the address -1. */
        bool all = (f & DEP_ALL) || l[i].base_addr == (intptr_t)-1;
        int kind = (all || (f & (DEP_OUT | DEP_SET))) ? 0 : (f & DEP_MTX) ? 1 : 2;
        if (kind != pass)
          continue;
        dep[k++] = all ? NULL : (void *)l[i].base_addr;
        if (pass == 0)
          nout++;
        else if (pass == 1)
          nmtx++;
        else
          nin++;
      }
    }
  }
  dep[0] = NULL;
  dep[1] = (void *)(uintptr_t)(k - 5);
  dep[2] = (void *)(uintptr_t)nout;
  dep[3] = (void *)(uintptr_t)nmtx;
  dep[4] = (void *)(uintptr_t)nin;
  return dep;
}

/* For a tool: the dependences as clang gave them (gcc's array, which task.c reads otherwise,
   does not tell out from inout), handed to task.c through the thread (struct lite_thread). */
static ompt_dependence_t *tool_deps(int32_t n1, kmp_depend_info_t *l1, int32_t n2,
                                    kmp_depend_info_t *l2)
{
  size_t n = (size_t)(n1 > 0 ? n1 : 0) + (size_t)(n2 > 0 ? n2 : 0);
  ompt_dependence_t *deps = malloc((n + 1) * sizeof *deps);
  if (deps == NULL)
    lite_fatal("out of memory for a task's dependences");
  size_t k = 0;
  for (int list = 0; list < 2; list++) {
    kmp_depend_info_t *l = list == 0 ? l1 : l2;
    for (int32_t i = 0; i < (list == 0 ? n1 : n2); i++, k++) {
      uint8_t f = l[i].flags;
      deps[k].variable.ptr = (void *)l[i].base_addr;
      deps[k].dependence_type = (f & DEP_IN) && (f & DEP_OUT) ? ompt_dependence_type_inout
                                : (f & DEP_OUT)                ? ompt_dependence_type_out
                                : (f & DEP_IN)                 ? ompt_dependence_type_in
                                : (f & DEP_MTX) ? ompt_dependence_type_mutexinoutset
                                                : ompt_dependence_type_inoutset;
    }
  }
  struct lite_thread *thr = lite_self();
  thr->ompt_deps = deps;
  thr->ompt_ndeps = (int)n;
  return deps;
}

KMPC_EXPORT int32_t __kmpc_omp_task_with_deps(ident_t *loc, int32_t gtid, kmp_task_t *new_task,
                                              int32_t ndeps, kmp_depend_info_t *dep_list,
                                              int32_t ndeps_noalias,
                                              kmp_depend_info_t *noalias_dep_list)
{
  (void)loc, (void)gtid;
  void *small[32];
  void **dep = build_depend(ndeps, dep_list, ndeps_noalias, noalias_dep_list, small, 32);
  ompt_dependence_t *deps = NULL;
  if (lite_ompt_on() && (uintptr_t)dep[1] > 0)
    deps = tool_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list);
  submit(header_of(new_task), true, (uintptr_t)dep[1] > 0 ? dep : NULL,
         __builtin_return_address(0));
  free(deps);
  if (dep != small)
    free(dep);
  return 0;
}

/* Before an undeferred task with dependences (task if(0) depend(...)), and taskwait
   depend(...): waits for the earlier sibling tasks the clauses name. */
KMPC_EXPORT void __kmpc_omp_wait_deps(ident_t *loc, int32_t gtid, int32_t ndeps,
                                      kmp_depend_info_t *dep_list, int32_t ndeps_noalias,
                                      kmp_depend_info_t *noalias_dep_list)
{
  (void)loc, (void)gtid;
  void *small[32];
  void **dep = build_depend(ndeps, dep_list, ndeps_noalias, noalias_dep_list, small, 32);
  ompt_dependence_t *deps = NULL;
  if (lite_ompt_on() && (uintptr_t)dep[1] > 0)
    deps = tool_deps(ndeps, dep_list, ndeps_noalias, noalias_dep_list);
  if ((uintptr_t)dep[1] > 0)
    lite_taskwait_depend_from(dep, __builtin_return_address(0));
  free(deps);
  if (dep != small)
    free(dep);
}

/* task if(0): clang runs the task's routine itself between these two calls. In between it is
   the thread's current task, an included one: the tasks it creates are its children, and its
   taskwait waits for them. */
KMPC_EXPORT void __kmpc_omp_task_begin_if0(ident_t *loc, int32_t gtid, kmp_task_t *task)
{
  (void)loc, (void)gtid;
  struct kmpc_task *h = header_of(task);
  if (h->flags & KMPC_TASK_DETACHABLE)
    atomic_store(&h->if0, IF0_RUNNING);
  lite_task_included_begin(&h->included, (h->flags & KMPC_TASK_FINAL) != 0);
  if (lite_ompt_on()) {
    /* clang calls the task's entry from the caller's frame: the task's exit frame, and its
       creator's enter frame, are the caller's, as LLVM's runtime says them. */
    struct lite_task *parent = h->included.saved_task;
    void *caller = *(void **)__builtin_frame_address(0); /* the saved frame pointer */
    parent->ompt_frame.enter_frame.ptr = caller;
    parent->ompt_frame.enter_frame_flags = ompt_frame_application | ompt_frame_framepointer;
    int type = ompt_task_explicit | ompt_task_undeferred;
    if (h->included.task->final)
      type |= ompt_task_final;
    if (!(h->flags & KMPC_TASK_TIED))
      type |= ompt_task_untied;
    if (h->flags & KMPC_TASK_MERGED_IF0)
      type |= ompt_task_mergeable;
    lite_ompt_included_begin(h->included.task, parent, type, caller,
                             __builtin_return_address(0));
    h->included.task->ompt_memory = task;
    h->included.task->ompt_memory_size = h->task_size;
  }
}

KMPC_EXPORT void __kmpc_omp_task_complete_if0(ident_t *loc, int32_t gtid, kmp_task_t *task)
{
  (void)loc, (void)gtid;
  struct kmpc_task *h = header_of(task);
  /* A detachable task completes when its event is fulfilled too; the thread does not wait
     for that (undeferred: it waits for the body), as on LLVM's runtime. */
  ompt_task_status_t status = ompt_task_complete;
  if (h->flags & KMPC_TASK_DETACHABLE) {
    h->ompt_data = h->included.task->ompt_data;
    int running = IF0_RUNNING;
    if (atomic_compare_exchange_strong(&h->if0, &running, IF0_ENDED))
      status = ompt_task_detach;
  }
  if (lite_ompt_on()) {
    lite_ompt_included_end(h->included.task, h->included.saved_task, status);
    h->included.saved_task->ompt_frame.enter_frame.ptr = NULL;
  }
  lite_task_included_end(&h->included);
  if (h->flags & KMPC_TASK_DESTRUCTORS)
    task->data1.destructors(lite_kmpc_gtid(), task);
  task_release(h);
}

KMPC_EXPORT int32_t __kmpc_omp_taskwait(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  /* Any descendant of the waiting task may run meanwhile, as on LLVM's runtime, which this code
     was written for (libomp-lite/task.c, is_descendant_of). */
  lite_taskwait_from(__builtin_return_address(0), true);
  return 0;
}

KMPC_EXPORT int32_t __kmpc_omp_taskyield(ident_t *loc, int32_t gtid, int end_part)
{
  (void)loc, (void)gtid, (void)end_part;
  GOMP_taskyield();
  return 0;
}

/* ---------------------------------------------------------------- detach */

/* detach(event): the handle is the task's block with its low bit set (omp_fulfill_event, in
   task.c, tells the two kinds apart by that bit), whose GOMP event GOMP_task fills in when the
   task is submitted. */
KMPC_EXPORT omp_event_handle_t __kmpc_task_allow_completion_event(ident_t *loc, int32_t gtid,
                                                                  kmp_task_t *task)
{
  (void)loc, (void)gtid;
  return (omp_event_handle_t)((uintptr_t)header_of(task) | 1);
}

/* The event of a detachable task run by task if(0) (__kmpc_omp_task_begin_if0): fulfilled while
   its body runs (early) or after (late); either way its last reference goes. Before, nothing
   was ever submitted to GOMP_task for it and omp_fulfill_event waited forever (LLVM's OMPT
   tests task_early_fulfill and task_late_fulfill hung, with or without a tool). */
static void fulfill_if0(struct kmpc_task *h)
{
  int running = IF0_RUNNING;
  bool early = atomic_compare_exchange_strong(&h->if0, &running, IF0_FULFILLED);
  if (lite_ompt_on()) {
    struct lite_task *t = h->included.task; /* still running, when early */
    if (early)
      lite_ompt_task_schedule(t->promoted != NULL ? t->promoted : t, ompt_task_early_fulfill,
                              NULL);
    else if (lite_ompt_attached()) {
      ompt_callback_task_schedule_t cb = LITE_OMPT_CB(ompt_callback_task_schedule);
      if (cb != NULL)
        cb(&h->ompt_data, ompt_task_late_fulfill, NULL);
    }
  }
  task_release(h);
}

void lite_kmpc_fulfill_event(omp_event_handle_t event)
{
  struct kmpc_task *h = (struct kmpc_task *)((uintptr_t)event & ~(uintptr_t)1);
  void *gomp_event;
  /* Submitted by now, unless another thread got the handle through a shared variable while
     the encountering thread was still between __kmpc_task_allow_completion_event and
     __kmpc_omp_task or __kmpc_omp_task_begin_if0: then only for a moment. */
  while ((gomp_event = atomic_load_explicit(&h->event, memory_order_acquire)) == NULL) {
    if (atomic_load(&h->if0) != IF0_NONE) {
      fulfill_if0(h);
      return;
    }
    lite_os_yield();
  }
  omp_fulfill_event((omp_event_handle_t)(uintptr_t)gomp_event);
  task_release(h);
}

/* ---------------------------------------------------------------- taskgroup */

KMPC_EXPORT void __kmpc_taskgroup(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  struct kmpc_taskgroup *g = calloc(1, sizeof *g);
  if (g == NULL)
    lite_fatal("out of memory starting a taskgroup");
  g->parent = current_group;
  current_group = g;
  lite_taskgroup_start_from(__builtin_return_address(0));
}

static void combine_items(struct kmpc_taskgroup *g)
{
  for (unsigned i = 0; i < g->nitems; i++) {
    struct red_item *it = &g->items[i];
    for (unsigned j = 0; j < it->nth; j++) {
      void *priv = it->lazy ? ((void **)it->priv)[j] : it->priv + j * it->size;
      if (priv == NULL)
        continue;
      it->comb(it->shar, priv);
      if (it->fini != NULL)
        it->fini(priv);
      if (it->lazy)
        free(priv);
    }
    free(it->priv);
  }
}

static void end_group(struct kmpc_taskgroup *g);

KMPC_EXPORT void __kmpc_end_taskgroup(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  struct kmpc_taskgroup *g = current_group;
  lite_taskgroup_end_from(__builtin_return_address(0));
  if (g == NULL)
    return; /* unbalanced: a taskgroup begun by a gcc-built caller */
  end_group(g);
}

/* The items' initial copies: all now, or on first use when the compiler asked for that. */
static void init_item(struct red_item *it, unsigned j)
{
  void *priv = it->lazy ? ((void **)it->priv)[j] : it->priv + j * it->size;
  if (it->init == NULL)
    memset(priv, 0, it->size);
  else if (it->orig != NULL)
    ((void (*)(void *, void *))it->init)(priv, it->orig);
  else
    ((void (*)(void *))it->init)(priv);
}

/* LLVM's two input layouts: kmp_taskred_input_t (with reduce_orig) and the older
   kmp_task_red_input_t (without). */
typedef struct {
  void *shar, *orig;
  size_t size;
  void *init, *fini, *comb;
  uint32_t flags;
} kmp_taskred_input_t;
typedef struct {
  void *shar;
  size_t size;
  void *init, *fini, *comb;
  uint32_t flags;
} kmp_task_red_input_t;

static struct red_item *make_items(int num, const void *data, bool with_orig, unsigned nth)
{
  struct red_item *items = calloc((size_t)num, sizeof *items);
  if (items == NULL)
    lite_fatal("out of memory for task reductions");
  for (int i = 0; i < num; i++) {
    struct red_item *it = &items[i];
    uint32_t flags;
    if (with_orig) {
      const kmp_taskred_input_t *in = &((const kmp_taskred_input_t *)data)[i];
      *it = (struct red_item){ in->shar, in->orig != NULL ? in->orig : in->shar, in->size,
                               in->init, (void (*)(void *))in->fini,
                               (void (*)(void *, void *))in->comb, false, NULL, NULL, nth };
      flags = in->flags;
    } else {
      const kmp_task_red_input_t *in = &((const kmp_task_red_input_t *)data)[i];
      *it = (struct red_item){ in->shar, NULL, in->size, in->init, (void (*)(void *))in->fini,
                               (void (*)(void *, void *))in->comb, false, NULL, NULL, nth };
      flags = in->flags;
    }
    it->lazy = (flags & 1) != 0;
    size_t bytes = it->lazy ? nth * sizeof(void *) : nth * it->size;
    it->priv = calloc(1, bytes > 0 ? bytes : 1);
    if (it->priv == NULL)
      lite_fatal("out of memory for task reduction copies");
    it->priv_end = it->priv + bytes;
    if (!it->lazy)
      for (unsigned j = 0; j < nth; j++)
        init_item(it, j);
  }
  return items;
}

static void *reduction_init(int num, const void *data, bool with_orig)
{
  struct kmpc_taskgroup *g = current_group;
  if (g == NULL)
    lite_error_exit("task reduction outside a taskgroup");
  unsigned nth = (unsigned)omp_get_num_threads();
  if (nth == 1 || num <= 0)
    return g;
  g->items = make_items(num, data, with_orig, nth);
  g->nitems = (unsigned)num;
  return g;
}

KMPC_EXPORT void *__kmpc_taskred_init(int gtid, int num, void *data)
{
  (void)gtid;
  return reduction_init(num, data, true);
}

KMPC_EXPORT void *__kmpc_task_reduction_init(int gtid, int num, void *data)
{
  (void)gtid;
  return reduction_init(num, data, false);
}

/* The calling thread's copy of the item `data` names (its shared address, or any thread's
   copy), in taskgroup tskgrp or an enclosing one. */
KMPC_EXPORT void *__kmpc_task_reduction_get_th_data(int gtid, void *tskgrp, void *data)
{
  (void)gtid;
  unsigned nth = (unsigned)omp_get_num_threads();
  if (nth == 1)
    return data;
  unsigned tid = (unsigned)omp_get_thread_num();
  for (struct kmpc_taskgroup *g = tskgrp != NULL ? tskgrp : current_group; g != NULL;
       g = g->parent) {
    for (unsigned i = 0; i < g->nitems; i++) {
      struct red_item *it = &g->items[i];
      if (tid >= it->nth)
        continue;
      if (!it->lazy) {
        if (data == it->shar || ((char *)data >= it->priv && (char *)data < it->priv_end))
          return it->priv + tid * it->size;
        continue;
      }
      void **copies = (void **)it->priv;
      bool found = data == it->shar;
      for (unsigned j = 0; !found && j < it->nth; j++)
        found = copies[j] == data;
      if (!found)
        continue;
      if (copies[tid] == NULL) {
        copies[tid] = malloc(it->size > 0 ? it->size : 1);
        if (copies[tid] == NULL)
          lite_fatal("out of memory for a task reduction copy");
        init_item(it, tid);
      }
      return copies[tid];
    }
  }
  lite_error_exit("in_reduction names an item of no enclosing task reduction");
}

/* reduction(task, ...) on parallel (is_ws 0) or a worksharing construct (is_ws 1): each member
   forms a taskgroup; the first to arrive makes the copies, the others share them, each with its
   own shared item; the last member to end its taskgroup combines every copy into its item
   (the construct's own reduction then combines the members' items). */
struct team_reduction {
  struct team_reduction *next;
  const void *team;
  int is_ws;
  struct red_item *items;   /* the copies every member shares */
  unsigned nitems;
  unsigned finished;
};

static struct team_reduction *team_reductions;
static _Atomic uint32_t team_reductions_lock;

/* The team reduction of team, if a member began one (a list: rare, and short). */
static struct team_reduction *team_reduction_find(const void *team, int is_ws)
{
  for (struct team_reduction *r = team_reductions; r != NULL; r = r->next)
    if (r->team == team && r->is_ws == is_ws)
      return r;
  return NULL;
}

static void *modifier_init(ident_t *loc, int gtid, int is_ws, int num, const void *data,
                           bool with_orig)
{
  __kmpc_taskgroup(loc, gtid);
  struct kmpc_taskgroup *g = current_group;
  unsigned nth = (unsigned)omp_get_num_threads();
  if (nth == 1 || num <= 0)
    return g;
  const void *team = lite_self()->team;
  lite_mutex_lock(&team_reductions_lock);
  struct team_reduction *r = team_reduction_find(team, is_ws);
  if (r == NULL) {
    r = calloc(1, sizeof *r);
    if (r == NULL)
      lite_fatal("out of memory for task reductions");
    r->team = team;
    r->is_ws = is_ws;
    r->items = make_items(num, data, with_orig, nth);
    r->nitems = (unsigned)num;
    r->next = team_reductions;
    team_reductions = r;
  }
  lite_mutex_unlock(&team_reductions_lock);
  /* Its own copy of the items: the shared copies, its own shared item. */
  g->items = malloc((size_t)num * sizeof *g->items);
  if (g->items == NULL)
    lite_fatal("out of memory for task reductions");
  memcpy(g->items, r->items, (size_t)num * sizeof *g->items);
  for (int i = 0; i < num; i++)
    g->items[i].shar = with_orig ? ((const kmp_taskred_input_t *)data)[i].shar
                                 : ((const kmp_task_red_input_t *)data)[i].shar;
  g->nitems = (unsigned)num;
  g->items_shared = true;
  return g;
}

/* A member's taskgroup of a team reduction ends: the last one combines. */
static void end_team_group(struct kmpc_taskgroup *g)
{
  const void *team = lite_self()->team;
  lite_mutex_lock(&team_reductions_lock);
  struct team_reduction *r = NULL, **link;
  for (link = &team_reductions; *link != NULL; link = &(*link)->next) {
    if ((*link)->team == team && (*link)->nitems == g->nitems &&
        (*link)->items[0].priv == g->items[0].priv) {
      r = *link;
      break;
    }
  }
  bool last = r != NULL && ++r->finished == r->items[0].nth;
  if (last)
    *link = r->next;
  lite_mutex_unlock(&team_reductions_lock);
  if (last) {
    combine_items(g);
    free(r->items);
    free(r);
  }
}

static void end_group(struct kmpc_taskgroup *g)
{
  if (g->nitems > 0) {
    if (g->items_shared)
      end_team_group(g);
    else
      combine_items(g);
  }
  free(g->items);
  current_group = g->parent;
  free(g);
}

KMPC_EXPORT void *__kmpc_taskred_modifier_init(ident_t *loc, int gtid, int is_ws, int num,
                                               void *data)
{
  return modifier_init(loc, gtid, is_ws, num, data, true);
}

KMPC_EXPORT void *__kmpc_task_reduction_modifier_init(ident_t *loc, int gtid, int is_ws,
                                                      int num, void *data)
{
  return modifier_init(loc, gtid, is_ws, num, data, false);
}

KMPC_EXPORT void __kmpc_task_reduction_modifier_fini(ident_t *loc, int gtid, int is_ws)
{
  (void)is_ws;
  __kmpc_end_taskgroup(loc, gtid);
}

/* ---------------------------------------------------------------- taskloop */

/* A taskloop of clang's, on the engine gcc's taskloop runs on (libomp-lite/taskloop.c): each
   task, when it runs, a copy of the pattern task (the whole block: private copies and shared
   pointers, its shareds pointer moved to its own copy) on the runner's scratch block, then the
   compiler's task_dup for firstprivate copy construction and the lastprivate flag, its bounds,
   and its routine, as run_task runs a task. Before, every chunk was a task block made up front
   and queued (10^7 of them for grainsize(1) over 10^7 iterations). */
struct kmpc_loop {
  struct lite_taskloop l;
  kmp_task_t *pattern;
  void (*task_dup)(kmp_task_t *, kmp_task_t *, int);
  struct kmpc_taskgroup *group; /* its tasks' taskgroup (current_group while they run) */
  size_t lb_off, ub_off;        /* where the pattern keeps its bounds */
  uint64_t lo;
  int64_t st;
};

static void run_loop_task(struct lite_taskloop *l, void *copy, uint64_t first, uint64_t count,
                          bool last)
{
  const struct kmpc_loop *k = (const struct kmpc_loop *)l;
  struct kmpc_task *ph = header_of(k->pattern);
  struct kmpc_task *h = copy;
  memcpy(h, ph, TASK_OFFSET + ph->task_size);
  kmp_task_t *t = task_of(h);
  if (ph->shareds_size > 0) {
    void *shareds = (char *)h + shareds_offset(ph->task_size);
    memcpy(shareds, k->pattern->shareds, ph->shareds_size);
    t->shareds = shareds;
  }
  if (k->task_dup != NULL)
    k->task_dup(t, k->pattern, last);
  *(uint64_t *)((char *)t + k->lb_off) = k->lo + first * (uint64_t)k->st;
  *(uint64_t *)((char *)t + k->ub_off) = k->lo + (first + count - 1) * (uint64_t)k->st;
  int32_t gtid = lite_kmpc_gtid();
  struct kmpc_taskgroup *saved = current_group;
  current_group = k->group;
  t->routine(gtid, t);
  if (h->flags & KMPC_TASK_DESTRUCTORS)
    t->data1.destructors(gtid, t);
  current_group = saved;
}

/* A task made up front (with a tool attached: libomp-lite/taskloop.c, make_all), as LLVM's
   runtime makes a taskloop's tasks: a block of its own as __kmpc_omp_task_alloc makes one, a
   copy of the pattern with its shareds in its own block, its bounds, task_dup, and submitted as
   a task of clang's. */
static void make_loop_task(struct lite_taskloop *l, uint64_t first, uint64_t count, bool last)
{
  const struct kmpc_loop *k = (const struct kmpc_loop *)l;
  struct kmpc_task *ph = header_of(k->pattern);
  kmp_task_t *t = task_alloc(ph->flags, ph->task_size, ph->shareds_size, k->pattern->routine);
  void *shareds = t->shareds;
  memcpy(t, k->pattern, ph->task_size);
  t->shareds = shareds;
  if (ph->shareds_size > 0)
    memcpy(shareds, k->pattern->shareds, ph->shareds_size);
  if (k->task_dup != NULL)
    k->task_dup(t, k->pattern, last);
  *(uint64_t *)((char *)t + k->lb_off) = k->lo + first * (uint64_t)k->st;
  *(uint64_t *)((char *)t + k->ub_off) = k->lo + (first + count - 1) * (uint64_t)k->st;
  header_of(t)->group = k->group;
  submit(header_of(t), l->deferred, NULL, l->site);
}

/* nogroup: the last task to end frees the pattern and the loop. */
static void free_loop(struct lite_taskloop *l)
{
  struct kmpc_loop *k = (struct kmpc_loop *)l;
  task_release(header_of(k->pattern));
  free(k);
}

static void taskloop(ident_t *loc, int32_t gtid, kmp_task_t *task, int if_val, uint64_t *lb,
                     uint64_t *ub, int64_t st, int nogroup, int sched, uint64_t grainsize,
                     bool strict, void (*task_dup)(kmp_task_t *, kmp_task_t *, int),
                     const void *site)
{
  int64_t lo = (int64_t)*lb, hi = (int64_t)*ub;
  uint64_t trip = 0;
  if (st > 0 && lo <= hi)
    trip = ((uint64_t)hi - (uint64_t)lo) / (uint64_t)st + 1;
  else if (st < 0 && lo >= hi)
    trip = ((uint64_t)lo - (uint64_t)hi) / (uint64_t)-st + 1;
  if (!nogroup)
    __kmpc_taskgroup(loc, gtid);
  struct kmpc_task *ph = header_of(task);
  struct kmpc_loop local, *k = &local;
  if (trip > 0 && nogroup && (k = malloc(sizeof *k)) == NULL)
    lite_fatal("out of memory for a taskloop");
  if (trip > 0) {
    *k = (struct kmpc_loop){
        .l = {.run = run_loop_task,
              .make = make_loop_task,
              .release = free_loop,
              .copy_size = shareds_offset(ph->task_size) + ph->shareds_size,
              .copy_align = 16,
              .deferred = if_val != 0,
              .final = (ph->flags & KMPC_TASK_FINAL) != 0,
              .nogroup = nogroup != 0,
              .flags = (ph->flags & KMPC_TASK_TIED) ? 0 : GOMP_UNTIED,
              .priority = (ph->flags & KMPC_TASK_PRIORITY) ? task->data2.priority : 0,
              .site = site},
        .pattern = task,
        .task_dup = task_dup,
        .group = current_group,
        .lb_off = (size_t)((char *)lb - (char *)task),
        .ub_off = (size_t)((char *)ub - (char *)task),
        .lo = (uint64_t)lo,
        .st = st};
    /* num_tasks and grainsize as OpenMP 5.2 section 12.6 sets them; neither: one per team
       member, as gcc's taskloop makes. */
    if (sched == 1 && grainsize > 0)
      lite_taskloop_plan(&k->l, trip, true, strict, grainsize);
    else
      lite_taskloop_plan(&k->l, trip, false, false, sched == 2 ? grainsize : 0);
    lite_taskloop_run(&k->l);
  }
  if (!nogroup)
    __kmpc_end_taskgroup(loc, gtid);
  /* The pattern never runs. Its copies are made as the tasks run, up to the taskgroup's end;
     with nogroup, free_loop releases it after the last. */
  if (trip == 0 || !nogroup)
    task_release(ph);
}

KMPC_EXPORT void __kmpc_taskloop(ident_t *loc, int32_t gtid, kmp_task_t *task, int if_val,
                                 uint64_t *lb, uint64_t *ub, int64_t st, int nogroup, int sched,
                                 uint64_t grainsize, void *task_dup)
{
  taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, false,
           (void (*)(kmp_task_t *, kmp_task_t *, int))task_dup, __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_taskloop_5(ident_t *loc, int32_t gtid, kmp_task_t *task, int if_val,
                                   uint64_t *lb, uint64_t *ub, int64_t st, int nogroup,
                                   int sched, uint64_t grainsize, int modifier, void *task_dup)
{
  taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched, grainsize, modifier != 0,
           (void (*)(kmp_task_t *, kmp_task_t *, int))task_dup, __builtin_return_address(0));
}
