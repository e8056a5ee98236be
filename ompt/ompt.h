/* OMPT, the tool interface (OpenMP 5.1 chapter 4): what the rest of the runtime calls.

   Every hook is one branch on lite_env.ompt (lite_ompt_on), which is false unless a tool's
   initialize returned nonzero: the hot paths read that byte on the line they read for
   lite_env.profile already, and the work is in the out-of-line functions below (events.c).
   The tool's data lives in our own structures, so that the pointers handed to it stay put as
   long as the thing they describe: a thread's in struct lite_thread, a parallel region's in its
   struct lite_team, a task's (and its frame) in struct lite_task. */
#ifndef LITE_OMPT_H
#define LITE_OMPT_H

#include "internal.h"

/* lite_env.ompt: 0 no tool, 1 a tool is attached, LITE_OMPT_UNDECIDED from the library's
   initialisation until the first thread state decides (start.c). An entry point that finds it
   nonzero takes its slow path, which makes the thread state (deciding) and then looks again
   with lite_ompt_attached: so the first region of a program is seen whole by its tool. */
#define LITE_OMPT_UNDECIDED 2
/* After the tool's finalize: no events, but the hooks still take their slow paths, so that the
   leader of a region running across ompt_finalize_tool still tells its members the join is
   over (lite_ompt_join_done), as they wait for that whenever they saw a tool at their join. */
#define LITE_OMPT_FINALIZED 3
/* Relaxed atomic loads: start.c decides the value once, at the first thread state, while other
   root threads may already be at an entry point (they take the slow path until they see it). */
static inline unsigned char lite_ompt_state(void)
{
  return __atomic_load_n(&lite_env.ompt, __ATOMIC_RELAXED);
}
static inline bool lite_ompt_on(void) { return lite_unlikely(lite_ompt_state() != 0); }
static inline bool lite_ompt_attached(void) { return lite_ompt_state() == 1; }
/* For a hook whose entry point may be the program's first OpenMP call (omp_init_lock, before
   any region): makes the thread state, which decides, and then says whether a tool is attached;
   the tool's initialize then comes before the first event it could see. */
static inline bool lite_ompt_ready(void)
{
  if (lite_unlikely(lite_ompt_state() == LITE_OMPT_UNDECIDED))
    (void)lite_self();
  return lite_ompt_attached();
}

/* start.c: finds and starts a tool, once, at the first thread state the runtime makes (so before
   the first region and before the initial thread's thread-begin); sets lite_env.ompt. */
void lite_ompt_start_once(void);
/* At unload or exit: the calling root thread's end events, then the tool's finalize. */
void lite_ompt_finish(void);
/* The tool's finalize, once (ompt_finalize_tool and lite_ompt_finish). */
void lite_ompt_finalize(void);
/* A tool is attached that registered no callback in its initialize: the hooks are off, and
   only thread data and the machine's queries answer (start.c). */
bool lite_ompt_quiet(void);

/* entry.c: the tool's registered callbacks, by event number. */
#define LITE_OMPT_EVENTS 40
extern ompt_callback_t lite_ompt_callbacks[LITE_OMPT_EVENTS];
/* The callback registered for event (a name from omp-tools.h, whose type is name##_t). */
#define LITE_OMPT_CB(event) ((event##_t)lite_ompt_callbacks[event])
ompt_interface_fn_t lite_ompt_lookup(const char *name);
/* ompt_get_unique_id: a number not given before, for the whole process. */
uint64_t lite_ompt_unique_id(void);

/* events.c: thread begin and end. A root thread (one that made its own state: the initial
   thread, or a pthread of the program) also begins and ends its initial task. */
void lite_ompt_root_begin(struct lite_thread *thr);
void lite_ompt_worker_begin(struct lite_thread *thr);
void lite_ompt_thread_end(struct lite_thread *thr);

/* The encountering thread's entry point says where its region comes from (codeptr: the
   user's return address; enter: the entry point's frame), before it forks. */
void lite_ompt_fork_from(struct lite_thread *thr, const void *codeptr, void *enter,
                         unsigned num_threads);
/* parallel-begin for thr's next region, before the fork touches anything (n: the team size
   asked for, when the entry point did not say): the callback may start regions itself. */
void lite_ompt_parallel_announce(struct lite_thread *thr, unsigned n);
/* A new team (pooled or of one), described but not yet started: it takes over the announced
   region's tool data (announcing it first if that was not done: a team of one). */
void lite_ompt_parallel_begin(struct lite_thread *thr, struct lite_team *team, unsigned n);
/* The calling member has started its implicit task in thr->team: implicit-task-begin. */
void lite_ompt_implicit_begin(struct lite_thread *thr);
/* Runs fn(data) as the body of thr's current task, its exit frame set to this call's frame. */
void lite_ompt_invoke(struct lite_thread *thr, void (*fn)(void *), void *data);
/* The region's implicit barrier (the join) begins for the calling member. */
void lite_ompt_join_begin(struct lite_thread *thr);
/* A worker's share of a region: implicit-task-begin, the body, the join's beginning. */
void lite_ompt_member_run(struct lite_thread *thr, void (*fn)(void *), void *data);
/* A worker has arrived at the join of team's region gen of pool (its implicit task is the one given):
   once the leader has gathered every member (its release), barrier end, then implicit-task-end,
   with no parallel data (the region is over). */
void lite_ompt_member_end(struct lite_thread *thr, struct lite_task *implicit,
                          struct lite_team *team, struct lite_pool *pool, uint32_t gen);
/* The leader has gathered the join of region gen: its members' barriers end. */
void lite_ompt_join_done(struct lite_pool *pool, uint32_t gen);
/* The encountering thread left team (its state is the enclosing one again): barrier end (if
   the team had a join), implicit-task-end, parallel-end. */
void lite_ompt_parallel_end(struct lite_thread *thr, struct lite_team *team, bool joined);

/* A barrier the program asked for (kind: explicit, or a worksharing construct's implicit
   one), at the entry point whose return address is codeptr. */
void lite_ompt_barrier(struct lite_thread *thr, ompt_sync_region_t kind, const void *codeptr);
bool lite_ompt_barrier_cancel(struct lite_thread *thr, ompt_sync_region_t kind,
                              const void *codeptr);

/* constructs.c: the constructs inside a region, each with the user's return address. */
void lite_ompt_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, uint64_t count,
                    const void *codeptr);
/* A loop or sections construct: begin (remembered), end (only after a begin), the member's
   share handed back (lite_loop_finish) and the barrier (0 none, 1 plain, 2 cancellable). */
void lite_ompt_ws_begin(ompt_work_t kind, uint64_t count, const void *codeptr);
bool lite_ompt_ws_end(ompt_work_t kind, int barrier, const void *codeptr);
/* A member of a combined construct's team (gcc's GOMP_parallel_loop_*, GOMP_parallel_sections,
   whose worksharing entry the fork set up: thr->ws at the implicit task's start) begins its
   work, from the region's return address, as LLVM's GOMP layer gives it; nothing otherwise. */
void lite_ompt_combined_begin(struct lite_thread *thr);
/* The work's end alone (a static loop of clang's, whose barrier is a call of its own). */
void lite_ompt_ws_close(ompt_work_t kind, const void *codeptr);
/* Dispatch events, from hand-outs that saw lite_ompt_on(): a worksharing loop's chunk of
   logical iterations [lo, hi); a section (codeptr: the entry point's return address); the
   chunks a static split gives the calling member (kind: ws_loop_chunk, distribute_chunk, or
   section for each iteration of clang's static sections): chunk iterations from first, then
   every stride, while under trip. */
void lite_ompt_ws_chunk(uint64_t lo, uint64_t hi);
void lite_ompt_section(const void *codeptr);
void lite_ompt_static_chunks(ompt_dispatch_t kind, const void *codeptr, uint64_t first,
                             uint64_t chunk, uint64_t stride, uint64_t trip);
/* An ordered depend(sink) or depend(source) of a doacross loop, in force (inside the iteration
   space): the iteration's n values, as dependences of the current task. */
void lite_ompt_doacross(ompt_dependence_type_t type, const uint64_t *values, unsigned n);
void lite_ompt_masked(ompt_scope_endpoint_t endpoint, const void *codeptr);
/* taskwait, taskgroup: the sync region and its wait, begin or end. */
void lite_ompt_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, const void *codeptr);
/* One half: the region's events, or its wait's (and the thread's state). */
void lite_ompt_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           const void *codeptr);
void lite_ompt_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         const void *codeptr);
void lite_ompt_reduction(ompt_scope_endpoint_t endpoint, const void *codeptr);
void lite_ompt_mutex_acquire(ompt_mutex_t kind, unsigned hint, const void *wait_id,
                             const void *codeptr);
/* event: ompt_callback_mutex_acquired, _mutex_released or _lock_destroy. */
void lite_ompt_mutex(ompt_callbacks_t event, ompt_mutex_t kind, const void *wait_id,
                     const void *codeptr);
/* A test that did not get the mutex. */
void lite_ompt_mutex_abandon(void);
void lite_ompt_lock_init(ompt_mutex_t kind, unsigned hint, const void *wait_id,
                         const void *codeptr);
void lite_ompt_nest_lock(ompt_scope_endpoint_t endpoint, const void *wait_id, const void *codeptr);
/* acquire, lite_mutex_lock(word), acquired. */
void lite_ompt_mutex_lock(ompt_mutex_t kind, _Atomic uint32_t *word, unsigned hint,
                          const void *codeptr);
void lite_ompt_flush(const void *codeptr);
void lite_ompt_cancel(int flags, const void *codeptr);
void lite_ompt_error(bool fatal, const char *message, size_t length, const void *codeptr);

/* tasks.c: the task events. task-create for t, made by parent (type: ompt_task_flag_t bits,
   kept in t for ompt_get_task_info); codeptr: the user's return address. */
void lite_ompt_task_create(struct lite_task *parent, struct lite_task *t, int type,
                           bool has_deps, const void *codeptr);
void lite_ompt_task_schedule(struct lite_task *prior, ompt_task_status_t status,
                             struct lite_task *next);
void lite_ompt_dependences(struct lite_task *t, const ompt_dependence_t *deps, int n);
/* succ may start only after pred completes. */
void lite_ompt_task_dependence(struct lite_task *pred, struct lite_task *succ);
/* Runs t's body (unless !run: discarded) as the current task, prior the task it interrupts:
   switch, the body with t's exit frame set to this call's frame, complete (not for a
   detachable task, whose end task.c says). why: prior's status in the switch (ompt_task_switch,
   or ompt_task_yield when prior yields at a taskyield). */
void lite_ompt_task_run(struct lite_task *prior, struct lite_task *t, bool run,
                        ompt_task_status_t why);
/* An included task on its creator's thread (clang's if(0)), e: its
   descriptor, the current task between the two: task-create and the switch to it; the end.
   exit_frame: the user's frame that calls its body, or NULL. */
void lite_ompt_included_begin(struct lite_task *e, struct lite_task *parent, int type,
                              void *exit_frame, const void *codeptr);
void lite_ompt_included_end(struct lite_task *e, struct lite_task *parent,
                            ompt_task_status_t status);

/* league.c: a host teams region (teams.c), a league whose teams run one after another on the
   encountering thread: parallel-begin and -end with ompt_parallel_league around it, and each
   team's initial task, the thread's current task while the team runs, begins and ends with
   ompt_task_initial. The league lives as long as the region (on the entry point's stack, or
   allocated for gcc's GOMP_teams4, whose league spans calls). */
struct lite_ompt_league {
  ompt_data_t parallel_data;
  const void *codeptr;
  unsigned size;                    /* its teams */
  unsigned index;                   /* the running team's number */
  int flags;
  bool stepped;                     /* GOMP_teams4's: allocated, one call a team */
  struct lite_task *encountering;   /* the task that met the construct */
  struct lite_ompt_league *outer;   /* the thread's ompt_league before */
  struct lite_task initial;         /* the running team's initial task */
};
/* requested: the number of teams the construct asked for (0: none said); enter: the entry
   point's frame, the encountering task's enter frame during the region (NULL: none); invoker:
   ompt_parallel_invoker_runtime where the runtime calls each team's body (GOMP_teams_reg,
   __kmpc_fork_teams: LLVM's answer for both), _program where the program does (GOMP_teams4). */
void lite_ompt_league_begin(struct lite_thread *thr, struct lite_ompt_league *league,
                            const void *codeptr, void *enter, unsigned requested, unsigned size,
                            int invoker);
/* Team thr->team_num of the league begins (its initial task becomes the thread's task) or ends. */
void lite_ompt_team_begin(struct lite_thread *thr, struct lite_ompt_league *league);
void lite_ompt_team_end(struct lite_thread *thr, struct lite_ompt_league *league);
void lite_ompt_league_end(struct lite_thread *thr, struct lite_ompt_league *league);
/* GOMP_teams4's call (first: the league's first; more: its answer, thr's team_num the next
   team's): the events of the teams it ends and begins. GOMP_teams (gcc 5-8) begins a league of
   one with (true, true), and its target region's end closes it with (false, false). */
void lite_ompt_teams_step(struct lite_thread *thr, bool first, bool more, unsigned requested,
                          const void *codeptr);

/* target.c: target constructs run on the host (libomp-lite/target.c). A construct's events,
   kind an ompt_target_t, begin and end around its work, the same record passed to both. */
struct lite_ompt_target {
  ompt_data_t target_data;          /* the tool's (emi), or our target_id in its value */
  const void *codeptr;
  int kind;
  bool traced;                      /* a tool was attached at the begin */
  /* For a target region: the encountering thread's league, put aside, and target region; and
     the outermost team it was in, whose members are not in this region (entry.c,
     ompt_get_target_info), NULL if none. */
  struct lite_ompt_league *league;
  struct lite_ompt_target *outer;
  struct lite_team *enclosing_root;
};
void lite_ompt_target_begin(struct lite_ompt_target *target, int kind, const void *codeptr);
void lite_ompt_target_end(struct lite_ompt_target *target);
/* A construct with no region (target enter data, exit data, update): begin, then end. */
void lite_ompt_target_op(int kind, const void *codeptr);

/* omp_control_tool's work. */
int lite_ompt_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr,
                           void *enter);

#endif
