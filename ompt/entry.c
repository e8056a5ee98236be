/* The runtime entry points a tool reaches through the lookup function (OpenMP 5.1 section
   4.6.1), answered from the runtime's own state: struct lite_thread, lite_team and lite_task.

   ompt_set_callback answers what is true of this runtime: ompt_set_always for an event it
   dispatches every time it happens, ompt_set_sometimes for one it dispatches on some paths
   only, ompt_set_never for one it does not dispatch yet (the callback is then not kept, so a
   tool can tell at initialize time what it will see). dispatched[] says which is which; the
   README's "Attaching a tool (OMPT)" lists the same. */
#include "ompt/ompt.h"
#include "affinity/affinity.h"

#include <stddef.h>
#include <string.h>

ompt_callback_t lite_ompt_callbacks[LITE_OMPT_EVENTS];

static const unsigned char dispatched[LITE_OMPT_EVENTS] = {
  [ompt_callback_thread_begin] = ompt_set_always,
  [ompt_callback_thread_end] = ompt_set_always,
  /* Parallel regions, and host teams regions' leagues (ompt_parallel_league) and their teams'
     initial tasks (league.c), from gcc's GOMP_teams_reg, GOMP_teams4 and GOMP_teams (gcc 5-8,
     whose league the target region's end ends) and clang's __kmpc_fork_teams. */
  [ompt_callback_parallel_begin] = ompt_set_always,
  [ompt_callback_parallel_end] = ompt_set_always,
  [ompt_callback_implicit_task] = ompt_set_always,
  /* Barriers, taskwait and taskgroup: not the reduction kind, nor the barriers gcc's combined
     constructs and single end with (plain GOMP_barrier calls, dispatched as explicit). */
  [ompt_callback_sync_region] = ompt_set_sometimes,
  [ompt_callback_sync_region_wait] = ompt_set_sometimes,
  [ompt_callback_control_tool] = ompt_set_always,
  /* Loops the runtime starts (gcc: every schedule but static, which gcc splits inline, and
     the combined parallel loops; clang: every loop) and sections; single from clang's entry
     points only (gcc calls none at the executor's end); taskloop (count: its tasks); not
     scope. */
  [ompt_callback_work] = ompt_set_sometimes,
  /* clang's master and masked; gcc calls no runtime entry for them. */
  [ompt_callback_masked] = ompt_set_sometimes,
  /* Locks and nest locks of both ABIs, critical, ordered, and gcc's atomic fallback lock
     (GOMP_atomic_start: atomic updates and reductions it combines under it); not the atomics
     compiled to instructions, which the runtime does not see. */
  [ompt_callback_mutex_acquire] = ompt_set_sometimes,
  [ompt_callback_mutex_acquired] = ompt_set_sometimes,
  [ompt_callback_mutex_released] = ompt_set_sometimes,
  [ompt_callback_nest_lock] = ompt_set_always,
  [ompt_callback_lock_init] = ompt_set_always,
  [ompt_callback_lock_destroy] = ompt_set_always,
  /* clang's __kmpc_flush; gcc emits __sync_synchronize for flush and calls nothing. */
  [ompt_callback_flush] = ompt_set_sometimes,
  /* Activated and detected cancellation, and discarded tasks. */
  [ompt_callback_cancel] = ompt_set_sometimes,
  /* clang's reductions: a team of one's, and every thread's combine under the lock (a tool
     that registers this callback gets that method even where clang offers atomics); gcc's
     reductions combine inline, out of the runtime's sight. */
  [ompt_callback_reduction] = ompt_set_sometimes,
  [ompt_callback_error] = ompt_set_always,
  /* Every chunk and section the runtime hands out (gcc's loops of every schedule but static,
     which gcc splits inline; doacross loops; clang's dispatched loops, and its static splits
     and sections at __kmpc_for_static_init, distribute blocks as distribute chunks): OpenMP
     5.2's chunk kinds, and ompt_dispatch_section. Never an iteration kind, nor taskloop's. */
  [ompt_callback_dispatch] = ompt_set_sometimes,
  /* Explicit tasks of both ABIs, taskwait depend's empty task, taskloop's tasks (made up front
     while a tool is attached), taskyield's switch to a task it runs. */
  [ompt_callback_task_create] = ompt_set_always,
  [ompt_callback_task_schedule] = ompt_set_always,
  /* Tasks' depend clauses; doacross sink and source, of gcc's loops and clang's. */
  [ompt_callback_dependences] = ompt_set_sometimes,
  [ompt_callback_task_dependence] = ompt_set_always,
  /* Target constructs of gcc-built programs, all run on the host (target.c): the region, target
     data (its begin as enter data, its end as exit data, as OpenMP 5.1 section 2.14.2 says),
     enter data, exit data, update. clang without -fopenmp-targets compiles them to host code
     that calls no runtime entry: the runtime sees no target region there, as LLVM's does not. */
  [ompt_callback_target] = ompt_set_always,
  [ompt_callback_target_emi] = ompt_set_always,
  /* OpenMP 5.1 (section 4.2.4, Table 4.2) allows only ompt_set_always for these, the events of
     a device and of data moved to it and kernels launched there: none happens here (no device
     but the host, whose memory the regions share, and whose regions are called, not
     launched), so a callback is kept and never called. */
  [ompt_callback_device_initialize] = ompt_set_always,
  [ompt_callback_device_finalize] = ompt_set_always,
  [ompt_callback_device_load] = ompt_set_always,
  [ompt_callback_device_unload] = ompt_set_always,
  [ompt_callback_target_data_op] = ompt_set_always,
  [ompt_callback_target_data_op_emi] = ompt_set_always,
  [ompt_callback_target_submit] = ompt_set_always,
  [ompt_callback_target_submit_emi] = ompt_set_always,
  /* ompt_set_never, left out: target_map and target_map_emi (nothing is mapped). */
};

/* ------------------------------------------------------------------------------ callbacks */

static ompt_set_result_t set_callback(ompt_callbacks_t event, ompt_callback_t callback)
{
  if ((unsigned)event >= LITE_OMPT_EVENTS || event <= 0 || lite_ompt_quiet())
    return ompt_set_error;
  ompt_set_result_t answer = dispatched[event] ? (ompt_set_result_t)dispatched[event]
                                               : ompt_set_never;
  /* Called from initialize (no thread runs a region yet) or later from any thread: a pointer
     store that readers see whole. A NULL callback unregisters. */
  __atomic_store_n(&lite_ompt_callbacks[event],
                   answer == ompt_set_never ? NULL : callback, __ATOMIC_RELEASE);
  return answer;
}

static int get_callback(ompt_callbacks_t event, ompt_callback_t *callback)
{
  if ((unsigned)event >= LITE_OMPT_EVENTS || event <= 0 || callback == NULL)
    return 0;
  ompt_callback_t cb = __atomic_load_n(&lite_ompt_callbacks[event], __ATOMIC_ACQUIRE);
  if (cb == NULL)
    return 0;
  *callback = cb;
  return 1;
}

/* ------------------------------------------------------------------------------ threads */

/* With no tool attached (its initialize returned 0, or it was finalized) the thread and task
   entry points answer "not available", as LLVM's do: nothing of that state is kept then. */
static ompt_data_t *get_thread_data(void)
{
  struct lite_thread *thr = lite_self_tls;
  return thr != NULL && (lite_ompt_on() || lite_ompt_quiet()) ? &thr->ompt_data : NULL;
}

static int get_state(ompt_wait_id_t *wait_id)
{
  struct lite_thread *thr = lite_self_tls;
  /* A tool that registered nothing (lite_ompt_quiet) has no state kept for it: in a region or
     not, as the team says. */
  if (!lite_ompt_on())
    return thr != NULL && thr->team != NULL && lite_ompt_quiet() ? ompt_state_work_parallel
                                                                 : ompt_state_work_serial;
  /* A thread the runtime does not know (one the program made and that never called in): as
     LLVM's libomp, whose answer tools and LLVM's tests expect, work_serial, where OpenMP 5.1
     would allow ompt_state_undefined. */
  if (thr == NULL)
    return ompt_state_work_serial;
  if (wait_id != NULL)
    *wait_id = thr->ompt_wait_id;
  return thr->ompt_state;
}

uint64_t lite_ompt_unique_id(void)
{
  static _Atomic uint64_t next = 1;
  return atomic_fetch_add_explicit(&next, 1, memory_order_relaxed);
}

/* ------------------------------------------------------------------------------ regions and tasks */

/* A root thread's initial task is its root_task: the thread it belongs to. */
static struct lite_thread *root_of(struct lite_task *t)
{
  return (struct lite_thread *)((char *)t - offsetof(struct lite_thread, root_task));
}

/* The thread whose initial task encloses team (the outermost team's encountering thread). */
static struct lite_thread *initial_thread_of(struct lite_team *team)
{
  while (team->parent != NULL)
    team = team->parent;
  return team->ompt.encountering;
}

static int get_parallel_info(int level, ompt_data_t **parallel_data, int *team_size)
{
  struct lite_thread *thr = lite_self_tls;
  if (thr == NULL || level < 0 || !lite_ompt_on())
    return 0;
  struct lite_team *team = thr->team;
  struct lite_thread *root = thr->is_worker ? NULL : thr;
  for (; level > 0 && team != NULL; level--) {
    if (team->parent == NULL)
      root = team->ompt.encountering;
    team = team->parent;
  }
  /* Outside any team of its own, a root thread running a team of a host teams region is in the
     league's region, which the implicit one of its initial task encloses. */
  struct lite_ompt_league *league = team == NULL && root != NULL ? root->ompt_league : NULL;
  if (league != NULL) {
    if (level == 0) {
      if (parallel_data != NULL)
        *parallel_data = &league->parallel_data;
      if (team_size != NULL)
        *team_size = (int)league->size;
      return 2;
    }
    level--;
  }
  if (level > 0)
    return 0;
  if (team != NULL) {
    if (parallel_data != NULL)
      *parallel_data = &team->ompt.parallel_data;
    if (team_size != NULL)
      *team_size = (int)team->nthreads;
    return 2;
  }
  /* The implicit parallel region around a root thread's initial task. */
  if (root == NULL)
    return 0;
  if (parallel_data != NULL)
    *parallel_data = &root->ompt_initial_parallel;
  if (team_size != NULL)
    *team_size = 1;
  return 2;
}

/* Where thr's task at an ancestor level is: the task, the team whose region binds it (NULL: the
   implicit one of an initial task, or a host teams league), the thread number in it, and the
   root thread whose initial task (or league) encloses it, once the walk is outside every team. */
struct task_at {
  struct lite_task *task;
  struct lite_team *team;
  unsigned thread_num;
  struct lite_thread *root;
};

/* The league whose running team's initial task t is (league.c), or NULL. */
static struct lite_ompt_league *league_of(const struct task_at *at)
{
  struct lite_ompt_league *league = at->root != NULL ? at->root->ompt_league : NULL;
  return league != NULL && at->task == &league->initial ? league : NULL;
}

static bool find_task(struct lite_thread *thr, int level, struct task_at *at)
{
  at->task = thr->task;
  at->team = thr->team;
  at->thread_num = thr->team != NULL ? thr->id : 0;
  at->root = thr->team == NULL ? thr : NULL;
  if (at->task == NULL) {
    if (thr->is_worker || thr->team != NULL)
      return false; /* a worker between regions runs no task */
    at->task = &thr->root_task; /* the initial task, not made real yet */
  }
  for (; level > 0; level--) {
    struct lite_task *t = at->task;
    if (!t->implicit && t->parent != NULL) {
      at->task = t->ompt_sched_parent != NULL ? t->ompt_sched_parent : t->parent;
      continue;
    }
    struct lite_team *team = at->team;
    if (team == NULL) {
      /* A team's initial task: its parent is the task that met the teams construct. An
         initial task of a thread has none. */
      struct lite_ompt_league *league = league_of(at);
      if (league == NULL)
        return false;
      at->task = league->encountering;
      at->thread_num = 0;
      continue;
    }
    at->task = team->saved_task;
    if (at->task == NULL)
      at->task = &initial_thread_of(team)->root_task;
    at->thread_num = team->parent != NULL ? team->parent_id : 0;
    if (team->parent == NULL)
      at->root = team->ompt.encountering;
    at->team = team->parent;
  }
  return true;
}

static int get_task_info(int level, int *flags, ompt_data_t **task_data, ompt_frame_t **task_frame,
                         ompt_data_t **parallel_data, int *thread_num)
{
  struct lite_thread *thr = lite_self_tls;
  struct task_at at;
  if (thr == NULL || level < 0 || !lite_ompt_on() || !find_task(thr, level, &at))
    return 0;
  struct lite_task *t = at.task;
  bool initial = t->implicit && at.team == NULL;
  struct lite_ompt_league *league = initial ? league_of(&at) : NULL;
  if (flags != NULL) /* an implicit task is undeferred, as LLVM's runtime says */
    *flags = initial      ? ompt_task_initial
             : t->implicit ? ompt_task_implicit | ompt_task_undeferred
                           : t->ompt_type;
  if (task_data != NULL)
    *task_data = &t->ompt_data;
  if (task_frame != NULL)
    *task_frame = &t->ompt_frame;
  if (parallel_data != NULL)
    *parallel_data = league != NULL ? &league->parallel_data
                     : initial      ? &root_of(t)->ompt_initial_parallel
                                    : &at.team->ompt.parallel_data;
  if (thread_num != NULL) /* a team's initial task: its team's number in the league */
    *thread_num = league != NULL ? (int)league->index : (int)at.thread_num;
  return 2;
}

/* The memory of the calling explicit task's data, in one block (0): gcc's data block as GOMP_task
   copied it (arg_size bytes), clang's kmp_task_t with its private copies as
   __kmpc_omp_task_alloc allocated them (task.c and kmpc/task.c keep them in the task while a
   tool is attached). Implicit and initial tasks have none, nor has taskwait depend's empty
   task. The value returned is the number of blocks after this one: always 0 (OpenMP 5.1
   §4.6.1.14; LLVM 14's runtime answered 1 for the one block, and its later releases 0). */
static int get_task_memory(void **addr, size_t *size, int block)
{
  struct lite_thread *thr = lite_self_tls;
  struct lite_task *t = thr != NULL ? thr->task : NULL;
  void *at = NULL;
  size_t n = 0;
  if (t != NULL && !t->implicit && block == 0 && lite_ompt_on() && t->ompt_memory_size != 0) {
    at = t->ompt_memory;
    n = t->ompt_memory_size;
  }
  if (addr != NULL)
    *addr = at;
  if (size != NULL)
    *size = n;
  return 0;
}

/* ------------------------------------------------------------------------------ places */

static int get_num_procs(void) { return omp_get_num_procs(); }

static int get_num_places(void) { return (int)lite_binding.places.n; }

/* Writes up to ids_size of the place's CPUs, returns how many it has (0: no such place). */
static int get_place_proc_ids(int place_num, int ids_size, int *ids)
{
  if (place_num < 0 || (unsigned)place_num >= lite_binding.places.n)
    return 0;
  const struct lite_place *p = &lite_binding.places.places[place_num];
  for (unsigned i = 0; ids != NULL && i < p->ncpus && (int)i < ids_size; i++)
    ids[i] = p->cpus[i];
  return (int)p->ncpus;
}

/* Unlike omp_get_place_num, no question here binds the initial thread: a tool's look must not
   change what it looks at (-1 until the thread takes its place). */
static int get_place_num(void)
{
  struct lite_thread *thr = lite_self_tls;
  return thr != NULL && !thr->bind_pending ? thr->place : -1;
}

static int get_partition_place_nums(int size, int *place_nums)
{
  struct lite_thread *thr = lite_self_tls;
  if (thr == NULL || thr->bind_pending)
    return 0;
  struct lite_partition part = thr->partition;
  for (unsigned i = 0; place_nums != NULL && i < part.len && (int)i < size; i++)
    place_nums[i] = (int)(part.lo + i);
  return (int)part.len;
}

/* -1 (unavailable) on a thread the runtime does not know, or with no tool attached. */
static int get_proc_id(void)
{
  return (lite_ompt_on() || lite_ompt_quiet()) && lite_self_tls != NULL ? lite_os_cpu() : -1;
}

/* ------------------------------------------------------------------------------ enumerations */

struct named { int value; const char *name; };

static const struct named states[] = {
  { ompt_state_work_serial, "ompt_state_work_serial" },
  { ompt_state_work_parallel, "ompt_state_work_parallel" },
  { ompt_state_work_reduction, "ompt_state_work_reduction" },
  { ompt_state_wait_barrier_implicit_parallel, "ompt_state_wait_barrier_implicit_parallel" },
  { ompt_state_wait_barrier_implicit_workshare, "ompt_state_wait_barrier_implicit_workshare" },
  { ompt_state_wait_barrier_explicit, "ompt_state_wait_barrier_explicit" },
  { ompt_state_wait_barrier_implementation, "ompt_state_wait_barrier_implementation" },
  { ompt_state_wait_barrier_teams, "ompt_state_wait_barrier_teams" },
  { ompt_state_wait_taskwait, "ompt_state_wait_taskwait" },
  { ompt_state_wait_taskgroup, "ompt_state_wait_taskgroup" },
  { ompt_state_wait_mutex, "ompt_state_wait_mutex" },
  { ompt_state_wait_lock, "ompt_state_wait_lock" },
  { ompt_state_wait_critical, "ompt_state_wait_critical" },
  { ompt_state_wait_atomic, "ompt_state_wait_atomic" },
  { ompt_state_wait_ordered, "ompt_state_wait_ordered" },
  { ompt_state_idle, "ompt_state_idle" },
  { ompt_state_overhead, "ompt_state_overhead" },
};

/* One lock implementation behind every mutex (lock.c's futex word); 0 is "none". */
static const struct named mutex_impls[] = {
  { 0, "mutex_impl_none" },
  { 1, "futex" },
};

/* The element after current; 0 at the end. A walk starts from first, which is not in the list
   (ompt_state_undefined for the states), or from the list's first element (ompt_mutex_impl_none,
   0, for the mutex implementations). */
static int enumerate(const struct named *list, size_t n, int first, int current, int *next,
                     const char **next_name)
{
  size_t i = 0;
  if (current != first) {
    while (i < n && list[i].value != current)
      i++;
    if (i >= n)
      return 0;
    i++;
  }
  if (i >= n)
    return 0;
  if (next != NULL)
    *next = list[i].value;
  if (next_name != NULL)
    *next_name = list[i].name;
  return 1;
}

static int enumerate_states(int current, int *next, const char **next_name)
{
  return enumerate(states, sizeof states / sizeof *states, ompt_state_undefined, current, next,
                   next_name);
}

static int enumerate_mutex_impls(int current, int *next, const char **next_name)
{
  return enumerate(mutex_impls, sizeof mutex_impls / sizeof *mutex_impls, -1, current, next,
                   next_name);
}

/* ------------------------------------------------------------------------------ devices */

/* Inside a target region (all run on the host, ompt/target.c): the host's device number and
   the region's id (the tool's target_data value, with the emi callback). The region is the
   one its initial thread runs: the calling thread, or the thread that encountered the
   outermost team it is in, unless that team was already there when the region began (its
   other members are not in the region). No host operation is ever in progress. Such a member
   reads the record while its thread may leave the region and its frame: what it read counts
   only if the record is still published after. */
static int get_target_info(uint64_t *device_num, ompt_id_t *target_id, ompt_id_t *host_op_id)
{
  struct lite_thread *thr = lite_self_tls;
  if (thr == NULL || !lite_ompt_on())
    return 0;
  struct lite_team *root_team = thr->team;
  while (root_team != NULL && root_team->parent != NULL)
    root_team = root_team->parent;
  struct lite_thread *root = root_team != NULL ? root_team->ompt.encountering : thr;
  if (root == NULL)
    return 0;
  struct lite_ompt_target *target = __atomic_load_n(&root->ompt_target, __ATOMIC_ACQUIRE);
  struct lite_team *enclosing;
  ompt_id_t id;
  for (;;) {
    if (target == NULL)
      return 0;
    enclosing = target->enclosing_root;
    id = target->target_data.value;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    struct lite_ompt_target *again = __atomic_load_n(&root->ompt_target, __ATOMIC_ACQUIRE);
    if (again == target)
      break;
    target = again;
  }
  if (root_team != NULL && root_team == enclosing)
    return 0;
  if (device_num != NULL)
    *device_num = (uint64_t)omp_get_initial_device();
  if (target_id != NULL)
    *target_id = id;
  if (host_op_id != NULL)
    *host_op_id = 0;
  return 1;
}

static int get_num_devices(void) { return 0; }

/* Called by the program: as LLVM's libomp, which shuts the runtime down there, the calling
   root thread's end events (if it is outside any region) come before the tool's finalize. */
static void finalize_tool(void) { lite_ompt_finish(); }

/* ------------------------------------------------------------------------------ lookup */

ompt_interface_fn_t lite_ompt_lookup(const char *name)
{
  static const struct {
    const char *name;
    ompt_interface_fn_t fn;
  } entries[] = {
#define ENTRY(n, f) { n, (ompt_interface_fn_t)(f) }
    ENTRY("ompt_set_callback", set_callback),
    ENTRY("ompt_get_callback", get_callback),
    ENTRY("ompt_get_thread_data", get_thread_data),
    ENTRY("ompt_get_state", get_state),
    ENTRY("ompt_get_unique_id", lite_ompt_unique_id),
    ENTRY("ompt_get_parallel_info", get_parallel_info),
    ENTRY("ompt_get_task_info", get_task_info),
    ENTRY("ompt_get_task_memory", get_task_memory),
    ENTRY("ompt_get_num_procs", get_num_procs),
    ENTRY("ompt_get_num_places", get_num_places),
    ENTRY("ompt_get_place_proc_ids", get_place_proc_ids),
    ENTRY("ompt_get_place_num", get_place_num),
    ENTRY("ompt_get_partition_place_nums", get_partition_place_nums),
    ENTRY("ompt_get_proc_id", get_proc_id),
    ENTRY("ompt_enumerate_states", enumerate_states),
    ENTRY("ompt_enumerate_mutex_impls", enumerate_mutex_impls),
    ENTRY("ompt_get_target_info", get_target_info),
    ENTRY("ompt_get_num_devices", get_num_devices),
    ENTRY("ompt_finalize_tool", finalize_tool),
#undef ENTRY
  };
  for (size_t i = 0; name != NULL && i < sizeof entries / sizeof *entries; i++)
    if (strcmp(name, entries[i].name) == 0)
      return entries[i].fn;
  return NULL;
}
