/* libomp-lite's internal interface: the state of threads, teams and pools, and the functions
   the construct files share. Everything here is hidden (-fvisibility=hidden); only abi.h exports. */
#ifndef LITE_INTERNAL_H
#define LITE_INTERNAL_H

#include "config.h"
#include "abi.h"
#include "os.h"
#include "affinity/affinity.h"
#include "ompt/omp-tools.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LITE_CACHE_LINE 64
#define LITE_ALIGNED __attribute__((aligned(LITE_CACHE_LINE)))
#define lite_likely(x) __builtin_expect(!!(x), 1)
#define lite_unlikely(x) __builtin_expect(!!(x), 0)

/* Assigns only when the value changes. Data that one thread sets up and others read (a team, a
   loop) then stays shared in the readers' caches from one use to the next, instead of costing
   each of them a transfer of its line, and the writer's later release store waits for no
   store miss. */
#define LITE_SET_IF_CHANGED(field, value)                                                       \
  do {                                                                                          \
    if ((field) != (value))                                                                     \
      (field) = (value);                                                                        \
  } while (0)

/* ---------------------------------------------------------------- ICVs and environment (env.c) */

/* The data-environment ICVs: each implicit task starts with a copy of its parent's. */
struct lite_icv {
  unsigned nthreads;          /* nthreads-var */
  unsigned max_active_levels; /* max-active-levels-var */
  unsigned thread_limit;      /* thread-limit-var */
  bool dynamic;               /* dyn-var */
  omp_sched_t run_sched;      /* run-sched-var, monotonic bit included */
  int run_chunk;              /* its chunk size (0: the default) */
  omp_proc_bind_t bind;       /* bind-var */
  int default_device;         /* default-device-var */
  omp_allocator_handle_t default_allocator; /* def-allocator-var */
};

enum lite_wait_policy { LITE_WAIT_DEFAULT, LITE_WAIT_ACTIVE, LITE_WAIT_PASSIVE };

/* Everything read from the environment once, at load time, and global ICVs. */
struct lite_env {
  struct lite_icv icv;          /* the initial thread's ICVs */
  unsigned *nthreads_list;      /* OMP_NUM_THREADS as a list: entry L is nthreads-var at level L */
  unsigned nthreads_list_len;
  omp_proc_bind_t *bind_list;   /* OMP_PROC_BIND as a list, the same way */
  unsigned bind_list_len;
  const char *places;           /* OMP_PLACES as given (NULL: not set); affinity/bind.c parses it */
  const char *cpu_affinity;     /* GOMP_CPU_AFFINITY as given, the same way */
  const char *kmp_affinity;     /* KMP_AFFINITY as given (NULL: not set); affinity/bind.c reads it */
  const char *kmp_hw_subset;    /* KMP_HW_SUBSET as given, the same way */
  unsigned ncpus;               /* CPUs this process may use (affinity mask, cgroup quota) */
  size_t stacksize;             /* worker stack size in bytes; 0: the system default */
  enum lite_wait_policy wait_policy;
  unsigned long long spincount; /* GOMP_SPINCOUNT, in libgomp's units */
  uint64_t spin_ns;             /* how long a waiter spins before it parks */
  uint64_t yield_ns;            /* how long it polls with yields when threads outnumber CPUs */
  bool cancellation;            /* cancel-var */
  int max_task_priority;        /* max-task-priority-var */
  bool display_affinity;        /* display-affinity-var */
  char *affinity_format;        /* affinity-format-var */
  int num_teams;                /* nteams-var */
  int teams_thread_limit;       /* teams-thread-limit-var */
  enum lite_offload { LITE_OFFLOAD_DEFAULT, LITE_OFFLOAD_MANDATORY, LITE_OFFLOAD_DISABLED }
      target_offload;           /* target-offload-var (OMP_TARGET_OFFLOAD) */
  int display_env;              /* OMP_DISPLAY_ENV: 0 no, 1 true, 2 verbose */
  bool loop_stats;              /* OMPLITE_LOOP_STATS: print per-call-site loop statistics */
  bool tiny_loops;              /* OMPLITE_TINY_LOOPS: run tiny nonmonotonic loops unshared */
  bool load_watch;              /* OMPLITE_LOAD_WATCH: look for load by other processes */
  bool wake_ahead;              /* OMPLITE_WAKE_AHEAD: wake parked members before a predicted fork */
  bool heap_keep;               /* OMPLITE_HEAP_KEEP: set glibc's malloc thresholds (heap.c) */
  /* OMPLITE_PROFILE / OMPLITE_TRACE (profile/profile.h's LITE_PROF_* bits; 0: off). Every hook
     reads it: it shares its line with display_affinity and tiny_loops, which each region and
     loop read already (lite_env is aligned to the line). */
  unsigned char profile;
  unsigned char barrier;        /* OMPLITE_BARRIER: enum lite_barrier_mode */
  unsigned char steal;          /* OMPLITE_STEAL: enum lite_steal_mode */
  /* A tool is attached (ompt/ompt.h says the values): every OMPT hook reads it, on this line
     too. Decided once, before the first thread-begin; cleared when the tool is finalized. */
  unsigned char ompt;
};
extern struct lite_env lite_env;

/* OMPLITE_BARRIER: the tree barrier where it pays (barrier_tree.c), never, or for every team of
   three or more (tests). */
enum lite_barrier_mode { LITE_BARRIER_AUTO, LITE_BARRIER_FLAT, LITE_BARRIER_TREE };

/* OMPLITE_STEAL: how nonmonotonic dynamic/guided loops are handed out (sched/steal.c).
   MONOTONIC: own blocks and stealing, but each thread's chunks in increasing order (the
   default: programs such as MEGAHIT rely on it, since libgomp and LLVM give it); FREE: own
   blocks and stealing in any order (before issue 46); OFF: no own blocks and no stealing, one
   shared counter as for monotonic schedules (libgomp's hand-out). */
enum lite_steal_mode { LITE_STEAL_MONOTONIC, LITE_STEAL_FREE, LITE_STEAL_OFF };

/* Reads the environment into lite_env; run once from the library constructor. */
void lite_env_init(void);
/* Prints the OMP_DISPLAY_ENV block (libgomp's shape) to stderr. */
void lite_env_display(bool verbose);
/* One-line warning on stderr, prefixed "libomp-lite: warning: ". */
void lite_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One-line message on stderr, then abort: for states the runtime cannot continue from. */
void lite_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* An error of the program's own (not of libomp-lite's): the message, then exit(EXIT_FAILURE), as
   libgomp ends such programs. */
void lite_error_exit(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* ---------------------------------------------------------------- threads, teams, pools */

struct lite_team;
struct lite_pool;
struct lite_ws;
struct lite_prof_row;

/* Per-thread state, one cache-line-aligned block reached through one thread-local pointer. */
/* ---------------------------------------------------------------- explicit tasks (task.c) */

struct lite_task;

/* A taskgroup region: counts the tasks that belong to it until they complete. */
/* Its tasks are counted as a task's children are (struct lite_task): made and queued by the
   threads that make them (atomic adds: a task of the group may make more, on any thread), done
   and taken by those that run them, on another line. */
struct lite_taskgroup {
  struct lite_taskgroup *prev; /* the enclosing taskgroup of the same task */
  _Atomic unsigned made;       /* its tasks, and those in a ready queue with this group as */
  _Atomic unsigned queued;     /* their innermost */
  _Atomic bool cancelled;
  uintptr_t *reductions;       /* its task reductions and the enclosing ones (task_reduction.c) */
  bool workshare;              /* made by a worksharing construct's reduction(task, ...) */
  char line_apart[64];
  _Atomic unsigned done;       /* its tasks complete */
  _Atomic unsigned taken;      /* its tasks taken from a ready queue */
};

/* Where sibling tasks with depend clauses meet: per address, the last task that wrote it (out,
   inout, mutexinoutset) and the readers (in) since then, all still incomplete. */
struct lite_dep_entry {
  void *addr;
  struct lite_task *last_out;
  struct lite_task **readers;
  unsigned nreaders, readers_cap;
};
struct lite_dep_table {
  struct lite_dep_entry *slots; /* open addressing by address, cap a power of two */
  unsigned cap, used;
  struct lite_task *all_memory; /* the last incomplete task with depend(..: omp_all_memory) */
};

enum lite_task_state { LITE_TASK_WAITING, LITE_TASK_READY, LITE_TASK_RUNNING,
                       LITE_TASK_DETACHED, LITE_TASK_DONE };

/* A task: an explicit one (allocated with its data) or a thread's implicit one. next/prev are
   the ready queue's (under that member queue's lock); npred, succ and the dependence table of
   its children under its parent's dep_lock (task.c, "Locks"). */
struct lite_task {
  struct lite_task *parent;           /* the task that created it; NULL for implicit tasks */
  struct lite_tasks *queue;           /* the team's task queues it was created in */
  struct lite_taskgroup *group;       /* the taskgroup it belongs to, if any */
  struct lite_taskgroup *taskgroup;   /* the innermost taskgroup open in it */
  void (*fn)(void *);
  void *data;
  struct lite_task *next, *prev;      /* in a member's ready queue */
  /* Its children, counted on two lines (task.c, lite_task_kids_*): those it made and those
     put in a ready queue here, on the line the thread running it writes as it makes them;
     those complete and those taken from a queue in kids_done and kids_taken, at the end. */
  _Atomic unsigned kids_made;         /* written only by the thread that runs it */
  _Atomic unsigned kids_queued;       /* by its maker, or a completion that releases one */
  _Atomic uint32_t dep_lock;          /* the dependences among its children */
  /* The tasks it depends on not complete yet: changed under its parent's dep_lock, read
     without it by the thread that runs an undeferred task. */
  _Atomic unsigned npred;
  unsigned nsucc, succ_cap;
  struct lite_task **succ;            /* the tasks that depend on it: succ_inline, or malloc'd
                                         past its two (task.c, add_edge) */
  struct lite_task *succ_inline[2];
  void **dep_addrs;                   /* its depend addresses, to take out of the table */
  unsigned ndeps;
  int priority;                       /* its priority clause, at most max-task-priority-var */
  struct lite_dep_table *deps;        /* dependences among its children */
  enum lite_task_state state;         /* __atomic_* where read by another thread */
  bool implicit, final, detach, fulfilled, creator_owns;
  bool parent_ref;                    /* it holds a reference to its parent (not an implicit
                                         one, and not for an included task) */
  bool copied;                        /* its data was copy-constructed (gcc's cpyfn) */
  bool had_children;                  /* it created a task: a pointer to it left this thread */
  bool cached;                        /* a block of LITE_TASK_BLOCK bytes: may go to a cache */
  /* An undeferred task run on its creator's stack (task.c, run_included): only the fields a
     running task reads are set, and it becomes a real task (promoted) before it makes one. */
  bool ephemeral;
  /* Its ICVs are still its creator's, in the thread's (icv_lazy); or they were changed, and icv
     holds the creator's to put back at its end (icv_saved): lite_icv_for_write. */
  bool icv_lazy, icv_saved;
  struct lite_task *promoted;         /* for an ephemeral task: the real one it became */
  struct lite_task *origin;           /* for that one: the ephemeral task (lite_task_identity) */
  /* For a cached block made by a member of a pooled team: the maker's queue, where another
     thread that frees the block gives it back (task.c, task memory), and the maker (compared,
     never followed). */
  struct lite_member_q *home;
  const struct lite_thread *maker;
  struct lite_icv icv;                /* its data environment's ICVs */
  /* With OMPLITE_PROFILE or OMPLITE_TRACE on only: where it was made, and by whom. */
  const void *prof_site;
  const struct lite_thread *prof_creator;
  /* Written by the threads that run and complete its children, over 64 bytes from kids_made
     (_Static_assert in task.c): a thread making tasks that others take and run writes only its
     own line, so its next task does not wait for the line to come back: one creator, one
     thief, empty tasks (taskbench task-create, 2 threads, a 570 ns round trip), 1.07 -> 0.66 us
     a task with the created count's fence gone too (enter_task); master-busy 1.10 -> 0.59. */
  _Atomic unsigned kids_done;         /* its children complete */
  _Atomic unsigned kids_taken;        /* its children taken from a ready queue */
  /* OMPT (ompt/): the tool's data for the task and the task's frames; written only while a
     tool is attached. */
  ompt_data_t ompt_data;
  ompt_frame_t ompt_frame;
  int ompt_type;                      /* its ompt_task_flag_t bits, as task-create said them */
  /* Its private data, for ompt_get_task_memory (ompt/entry.c): gcc's data block as GOMP_task
     copied it, clang's kmp_task_t with its private copies (kmpc/task.c); size 0: none. */
  void *ompt_memory;
  size_t ompt_memory_size;
  /* The task its thread was running when it started this one (NULL: its parent), which
     ompt_get_task_info names as its ancestor, as LLVM's runtime does. */
  struct lite_task *ompt_sched_parent;
  /* Who still points to it: its completion (or its creator, for an undeferred or included
     task), and each child whose block has not gone yet (so that every ancestor of a live task
     is live: a taskwait walks the parents of a queued task, task.c). The thread that drops the
     last reference frees it, and then drops the one it held on its parent (parent_ref). */
  _Atomic unsigned refs;
};

/* One member's ready queue (task_queue.c), on lines of its own: the member pushes and takes at
   the tail, other members steal at the head; tasks with a priority wait in prio, highest
   first, and are taken before the others. created and completed count the tasks this member
   made and completed (single writer each; the drain sums them over the members). */
struct lite_member_q {
  _Atomic uint32_t lock;
  _Atomic unsigned n;                 /* tasks in it: read without the lock */
  _Atomic bool counted;               /* counted in the team's ready (task_queue.c) */
  struct lite_task *head, *tail;
  struct lite_task *prio;
  _Atomic unsigned long created, completed;
  unsigned member;                    /* its member number: its bit in the team's holding */
  /* Task blocks the member made, freed by other threads, for its next tasks: a stack pushed by
     any thread and taken whole by the member; on a line of its own. */
  struct lite_task *_Atomic returns LITE_ALIGNED;
} LITE_ALIGNED;

/* The task queues of a team (or of a thread outside any parallel region): one per member. The
   member queues after the first are allocated at the member's first task, and stay until
   lite_tasks_retire. */
#define LITE_TQ_HOLDING_MEMBERS 256
struct lite_tasks {
  _Atomic uint32_t lock;              /* rare paths: allocating members, omp_fulfill_event */
  _Atomic unsigned ready;             /* member queues counted (task_queue.c): all that hold a
                                         task, and maybe some empty ones */
  /* Which of members 0..255 are counted in ready, a bit each, written with ready and on its
     line, so that a thief of a large team reads one line to know which queues to look at
     (task_queue.c, lite_tq_take). Members from 256 on have no bit and are always looked at. */
  _Atomic uint64_t holding[LITE_TQ_HOLDING_MEMBERS / 64];
  _Atomic uint32_t gen;               /* task waiters' futex word: bumped only for sleepers */
  _Atomic uint32_t sleepers;
  _Atomic bool used;                  /* a task was made here: barriers look at the counts */
  _Atomic unsigned nmembers;          /* member queues allocated (members[0, nmembers)) */
  _Atomic unsigned long foreign_completed; /* completions by threads of no member (fulfil) */
  struct lite_member_q *_Atomic *members; /* LITE_MAX_TEAM_THREADS entries, or NULL */
  struct lite_pool *pool;             /* the team's workers, whose barrier waits run tasks */
  struct lite_member_q local;         /* member 0's */
};

struct lite_thread {
  struct lite_team *team;   /* innermost enclosing team; NULL outside any parallel region */
  unsigned id;              /* thread number in that team */
  unsigned bar_epoch;       /* epoch of the last barrier this thread passed in its team */
  unsigned single_count;    /* single constructs this thread has met (ticket numbering) */
  unsigned ws_count;        /* worksharing constructs this thread has met (ring numbering) */
  unsigned ws_done;         /* every construct up to this number is over for the whole team (a
                               barrier passed since): its ring entry is free (work.c) */
  struct lite_ws *ws;       /* the worksharing construct it is in, if any */
  struct lite_ws *ws_split; /* the ring entry of the split loop it is in (thr->ws is then NULL) */
  struct lite_ws *timed_ws; /* the measured loop it is in, and when it took its first chunk */
  uint64_t timed_start_ns;
  uint64_t tiny_start_ns;   /* thread 0 in a measured tiny loop (sched/tiny.c): its start, */
  unsigned tiny_entry;      /* and the loop's entry in the pool's list of tiny sites */
  uint64_t chunk_lo;        /* its current chunk [chunk_lo, chunk_hi) of an ordered loop */
  uint64_t chunk_hi;
  struct lite_icv icv;      /* the current implicit task's ICVs */
  struct lite_pool **pools; /* pools[L]: the workers this thread leads at nesting level L */
  unsigned npools;
  struct lite_ws **solo;    /* solo[L]: worksharing entry of its team of one at level L */
  unsigned nsolo;
  bool is_worker;           /* created by libomp-lite (not a user/root thread) */
  bool bind_pending;        /* the initial thread, not yet bound to place 0 (affinity/bind.c) */
  unsigned num_teams;       /* the league of the teams region it is in (0: none) */
  unsigned team_num;        /* and its team's number in it */
  struct lite_task *task;   /* the task it runs; NULL: its implicit task outside any region */
  struct lite_task root_task;   /* that implicit task, once it creates tasks */
  struct lite_taskgroup *next_reduction_group; /* for the next region it forks (see
                                                  GOMP_parallel_reductions) */
  struct lite_tasks root_tasks; /* and the queue of the tasks it creates */
  struct lite_task *task_cache; /* task blocks this thread freed, for its next tasks (task.c) */
  unsigned task_cache_n;
  /* Binding (affinity/bind.c): the place it is bound to (-1: none), its implicit task's
     place-partition-var, and the pool binding it applied last as a worker. */
  int place;
  struct lite_partition partition;
  uint32_t bind_seen;
  /* Its nearest-first order of the members of the team it steals in (lite_bind_nearest). */
  unsigned *near;
  const struct lite_pool *near_pool;
  unsigned near_n;
  uint32_t near_gen;
  uint64_t near_until;
  char *shown;              /* its last OMP_DISPLAY_AFFINITY line */
  /* OMPT (ompt/), read and written only while a tool is attached: the tool's thread data; a
     root thread's implicit parallel region around its initial task; the thread's state and
     what it waits for (ompt_get_state); the return address of the entry point whose region it
     forks next, and of the region whose join it is in (read before it leaves the team). */
  ompt_data_t ompt_data;
  ompt_data_t ompt_initial_parallel;
  int ompt_state;
  ompt_wait_id_t ompt_wait_id;
  const void *ompt_codeptr;
  const void *ompt_join_codeptr;
  unsigned ompt_requested;  /* the team size its next region asks for (0: not said) */
  /* Its next region's parallel-begin was dispatched before the team was made (ompt/events.c
     lite_ompt_parallel_announce): the tool's data and what the callback was told, for the
     team to take over. */
  bool ompt_announced;
  int ompt_announced_flags;
  ompt_data_t ompt_announced_data;
  const void *ompt_announced_codeptr;
  bool ompt_began;          /* thread-begin was dispatched for it */
  bool ompt_ws_open;        /* a loop or sections construct's work-begin was dispatched */
  /* The dependences of the task being submitted, as clang's entry point gave them (kmpc/task.c:
     gcc's array merges out and inout); NULL: read them from gcc's array. */
  const ompt_dependence_t *ompt_deps;
  int ompt_ndeps;
  /* The task being submitted is the next part of a clang untied task whose tool data this is
     (kmpc/task.c): no task-create, the same data. */
  const ompt_data_t *ompt_resume;
  bool ompt_part_continues; /* the task part that just returned submitted its next part */
  /* The host teams region whose team it runs now (ompt/league.c), and the target region it runs
     as the host device's initial thread (ompt/target.c; read by other threads, atomically):
     NULL if none. */
  struct lite_ompt_league *ompt_league;
  struct lite_ompt_target *ompt_target;
  /* The memory of the task being submitted, as clang's entry point allocated it (kmpc/task.c:
     the kmp_task_t and its private copies), for ompt_get_task_memory; NULL: its data block. */
  void *ompt_memory;
  size_t ompt_memory_size;
  bool ompt_target_task;    /* the task being submitted is clang's target task (target nowait) */
} LITE_ALIGNED;

/* A team: the threads executing one parallel region. The first line is read by every member at
   the start of each region and rewritten only when something in it changes. */
struct lite_team {
  unsigned nthreads LITE_ALIGNED;
  unsigned level;              /* nesting level of the region (inactive ones count) */
  unsigned active_level;       /* active regions enclosing it, itself included if active */
  struct lite_team *parent;    /* team of the encountering thread, NULL at the outermost */
  unsigned parent_id;          /* the encountering thread's number in that team */
  struct lite_pool *pool;      /* the workers; NULL for a team of one */
  const struct lite_tree *tree; /* the barrier's tree, NULL for the flat barrier */
  struct lite_icv icv;         /* ICVs every implicit task of the region starts with */
  /* The encountering thread's own state, put back when the region ends: on lines the workers
     never read. */
  struct lite_icv saved_icv LITE_ALIGNED;
  unsigned saved_bar_epoch;
  unsigned saved_single_count;
  unsigned saved_ws_count;
  unsigned saved_ws_done;
  struct lite_ws *saved_ws;
  struct lite_ws *saved_ws_split;
  uint64_t saved_chunk_lo;
  uint64_t saved_chunk_hi;
  /* The encountering thread's task. Here, not beside num_teams and reduction_group below:
     save_state writes it at every fork, and the workers read those as they start. Sharing their
     line cost each worker one more cache-line transfer per region: parallel at 2 threads read
     0.727 us with it there and 0.553 here (interleaved syncbench runs, medians of 8). */
  struct lite_task *saved_task;
  struct lite_partition saved_partition;
  _Atomic unsigned single_ticket LITE_ALIGNED; /* single constructs claimed so far */
  void *copyprivate;           /* GOMP_single_copy_end's data, read after a barrier */
  /* A new line: every single construct moves the ticket's line between the members, and a
     member waiting in a barrier of two polls cancelled. Apart, syncbench at 2 threads (10
     interleaved runs) read single 0.695 -> 0.574 us and barrier 0.540 -> 0.493. */
  _Atomic bool cancelled LITE_ALIGNED; /* the parallel region was cancelled */
  _Atomic uint32_t static_cancel; /* a loop gcc split inline (no ws) was cancelled: the epoch
                                     of the barrier that ends it, + 1 */
  struct lite_ws *ring;        /* worksharing constructs in flight (work.c) */
  unsigned ring_mask;          /* ring has ring_mask + 1 entries */
  unsigned num_teams, team_num;   /* the teams region the encountering thread is in */
  struct lite_taskgroup *reduction_group; /* parallel reduction(task, ...): every implicit
                                             task's taskgroup, NULL if none */
  /* The implicit task of thread 0 in this region, written at every fork: on lines of its own,
     like saved_task. */
  struct lite_task leader_task LITE_ALIGNED;
  struct lite_tasks tasks LITE_ALIGNED; /* the explicit tasks of the region (task.c) */
  /* OMPT (ompt/), written by the encountering thread before the members start, only while a
     tool is attached: the tool's data for the region, the user's return address, and the
     encountering thread (whose initial task is the parent of an outermost region's). */
  struct {
    ompt_data_t parallel_data;
    const void *codeptr;
    struct lite_thread *encountering;
    int flags;
  } ompt LITE_ALIGNED;
};

/* The leader writes its saved state and leader_task at every fork; the workers read the first
   line and the cancelled line as they start, and poll cancelled in barriers; single constructs
   move the ticket's line. Keep them apart (each costs a transfer per region when shared). */
#define LITE_TEAM_LINE(field) (offsetof(struct lite_team, field) / LITE_CACHE_LINE)
_Static_assert(LITE_TEAM_LINE(saved_icv) > LITE_TEAM_LINE(icv) &&
                   LITE_TEAM_LINE(saved_task) < LITE_TEAM_LINE(single_ticket),
               "the leader's saved state is on lines of its own");
_Static_assert(LITE_TEAM_LINE(single_ticket) < LITE_TEAM_LINE(cancelled),
               "the single ticket's line is apart from cancelled");
_Static_assert(LITE_TEAM_LINE(reduction_group) < LITE_TEAM_LINE(leader_task),
               "leader_task is on lines of its own");

/* The most threads one team may have: a num_threads clause or ICV above it is clamped (with a
   warning), so that a typo such as 100000 cannot exhaust memory before pthread_create fails. */
#define LITE_MAX_TEAM_THREADS 4096

/* Worksharing constructs a team can have in flight: with nowait, a fast thread may run this many
   constructs ahead of a slow one before it waits for an entry to free up. */
#define LITE_WS_RING 8

/* One member's part of a loop, in iteration indices [lo, hi). */
struct lite_range {
  _Atomic uint32_t lock; /* taken by the owner and by thieves when the loop steals */
  uint32_t tag;          /* the ws ticket the range was set up for (stale otherwise) */
  uint64_t lo, hi;
  uint64_t next_chunk;   /* CYCLIC: the member's next chunk number */
  uint8_t final_chunk;   /* OWN with stealing: what its member did with the loop's final chunk
                            (sched/steal.c) */
  uint64_t taken_end;    /* OWN with stealing: one past the last chunk its member took in this
                            loop; in order (OMPLITE_STEAL=monotonic) it steals none below */
} LITE_ALIGNED;

/* One team member's arrival word, on its own cache line: the leader gathers them at a join or
   barrier, so arrivals never contend on one shared counter. */
struct lite_slot {
  _Atomic uint32_t arrive;    /* epoch of the last barrier this member reached */
  _Atomic uint32_t done;      /* generation of the last region this member finished */
  unsigned ws_count;          /* its worksharing count when it finished (read after done) */
  /* OMPLITE_PROFILE only: when it finished its share of the region, read by the leader after the
     join. On this line, which the leader fetches for done anyway: on the next line it cost each
     profiled region a transfer of that line both ways. */
  uint64_t prof_done_ns;
  /* Read by others only when a wait runs long (wait.c) or the balancer looks (balance.c), so
     they sit on a line of their own: on the arrival line, the member's own check of cpu at
     each barrier met the line while its partner was fetching the arrival, and cost the
     2-thread barrier 0.24 -> 0.16 us (syncbench, 5 interleaved runs of 20 samples). */
  _Atomic int cpu LITE_ALIGNED; /* the CPU it last ran on when it started to wait (see wait.c) */
  _Atomic int tid;            /* its kernel thread id (0: the leader, or not known yet) */
  _Atomic int move_to;        /* the balancer asks the member to move to CPU move_to - 1 (0:
                                 no request); the member does it itself, inside the runtime */
  /* The tree barrier (barrier_tree.c), on the member's own line, which it polls while it
     waits: its parent stores go, and whoever changes what it waits for bumps bell if parked. */
  _Atomic uint32_t go LITE_ALIGNED; /* the last barrier epoch its parent released */
  _Atomic uint32_t bell;
  _Atomic uint32_t parked;
  _Atomic uint32_t idle;      /* it sleeps on bell between regions (team.c, idle_wait) */
  /* Its part of each ring entry's loop (pool->ring[k], sched/): in the member's own memory, on
     its node (affinity/home.c), where it takes its chunks; a thief fetches the line from
     there. In an array of the entry's, first touched by the member that set it up, every
     member's range was on that member's node. */
  struct lite_range ranges[LITE_WS_RING];
} LITE_ALIGNED;

/* The release word's top bit says "the parallel region was cancelled": setting it changes the
   futex word, so that waiters parked in a barrier wake up (no lost wake-up). The next seven
   bits are the task bell, a count lite_barrier_poke adds one to for the same reason: a waiter
   that looked for a ready task and found none, then parked, must not sleep through the wake-up
   of a task made between its look and its futex call. It was one bit, flipped: two pokes
   while a waiter was preempted between its look and its call left the word as it had read it,
   and it slept with tasks queued (tasks.c part steal, 256 threads on 2 CPUs). The epoch is the
   rest (a barrier compares epochs for equality only, so 24 bits wrap harmlessly). */
#define LITE_RELEASE_CANCELLED 0x80000000u
#define LITE_RELEASE_BELL_MASK 0x7f000000u
#define LITE_RELEASE_BELL_ONE 0x01000000u
#define LITE_EPOCH_MASK 0x00ffffffu

/* A call site whose loops thread 0 of a pool's teams runs alone (sched/tiny.c). */
#define LITE_TINY_SITES 8
struct lite_tiny_site {
  void *key;          /* the call site */
  uint64_t count;     /* the trip count it was measured with */
  unsigned nthreads;  /* and the team size */
};

/* The warm workers one thread leads at one nesting level. Worker k always takes team slot k, so
   it is the same OS thread in every region the pool runs. */
/* A pool's serial gaps, join to next fork (gap.c), learned for each of the last LITE_GAP_SITES
   places in a program's rhythm that a long gap followed: the region (its outlined body) and how
   many short gaps came before it since the last long one. */
#define LITE_GAP_SITES 4
struct lite_gap_site {
  void (*fn)(void *); /* the region the gaps follow */
  uint32_t pos;       /* after that many short gaps since the last long one */
  uint64_t mean_ns;   /* average gap */
  uint64_t dev_ns;    /* average absolute deviation of the gap */
  uint32_t samples;   /* gaps seen */
  int32_t outside;    /* forks in a row after (> 0) or before (< 0) the span */
};
/* The leader writes from_ns and until_ns before it publishes a region; the members read them
   when a region ends, and write late_ns, late_dev_ns and (member 1) join_ns and loaded. */
struct lite_gap {
  /* The next fork is expected from_ns to until_ns after the join (until_ns 0: no prediction). */
  _Atomic uint64_t from_ns;
  _Atomic uint64_t until_ns;
  _Atomic uint64_t late_ns;     /* how late the members' timed wake-ups come (average; 0: none yet) */
  _Atomic uint64_t late_dev_ns; /* and the average deviation of that */
  _Atomic uint64_t join_ns;     /* when member 1 left the last region, if it parked (0: unknown) */
  _Atomic bool loaded;          /* member 1's look at the load as this gap began (wait.c) */
  /* Leader only, on its own line: pos changes at every fork. */
  uint32_t pos LITE_ALIGNED;    /* gaps shorter than the spin since the last longer one */
  unsigned ready;               /* sites with GAP_WARMUP gaps or more */
  unsigned next_site;           /* the site a new region takes */
  struct lite_gap_site sites[LITE_GAP_SITES];
};
/* Member 1 left the last region at now, and parks (the gap is longer than its spin) or a
   prediction is out. */
void lite_gap_join(struct lite_gap *g, uint64_t now);
/* The leader forks with no member parked and no prediction out: the gap after region after was
   shorter than the spin budget (learned without reading the clock, so back-to-back regions pay
   nothing). */
void lite_gap_short(struct lite_gap *g, void (*after)(void *));
/* The leader forks at now: learns the gap that ends here, which followed region after (a gap
   of at most spin_ns counts as short). */
void lite_gap_learn(struct lite_gap *g, void (*after)(void *), uint64_t now, uint64_t spin_ns);
/* And publishes the span in which the fork after region next is expected, for gaps that end
   after spin_ns, if allowed. Returns its end (0: none). */
uint64_t lite_gap_predict(struct lite_gap *g, void (*next)(void *), uint64_t spin_ns,
                          bool allowed);
/* Withdraws the prediction just published (the machine is loaded). */
void lite_gap_fork_cancel(struct lite_gap *g);
/* How long before the expected span a member sets its timer. */
uint64_t lite_gap_lead_ns(const struct lite_gap *g);
/* For a member that left a region at left, with a prediction out (else false): when its timer
   wakes it (0: it spins its budget instead, the span starting within it), and until when it
   then spins. */
bool lite_gap_plan(const struct lite_gap *g, uint64_t left, uint64_t spin_ns, uint64_t *wake_at,
                   uint64_t *end);
/* A member's timed wake-up came late ns after its deadline. */
void lite_gap_woke_late(struct lite_gap *g, uint64_t late);
/* Whether the user's settings and the machine let members wake ahead: not with
   OMPLITE_WAKE_AHEAD=false, a passive or active wait policy, no spin, more live threads than
   CPUs, or under load (loaded: lite_wake_ahead_loaded). */
bool lite_gap_allowed(const struct lite_env *env, int live_threads, bool loaded);
/* Whether other processes compete for our CPUs now, as far as the load watch knows (wait.c);
   may_read: count again if the last verdict is stale (reads /proc). */
bool lite_wake_ahead_loaded(uint64_t now, bool may_read);

struct lite_pool {
  /* Dispatch line: the region descriptor, written by the leader once per region, read by every
     spinning worker with one cache-line transfer. gen is also the futex the idle workers park on. */
  _Atomic uint32_t gen LITE_ALIGNED;
  /* The generation the fields below describe. The leader sets it before it rewrites them and
     publishes gen after: a worker that reads gen g and finds desc_gen != g sees the next
     region's fields, so region g is over and it was not one of its members. */
  _Atomic uint32_t desc_gen;
  /* nthreads and quit are atomic because idle workers read them while the leader may be
     rewriting them (the check of desc_gen discards what they read then); relaxed is enough. */
  _Atomic unsigned nthreads;  /* members of the current region, leader included */
  void (*fn)(void *);
  void *data;
  struct lite_team *team;
  uint32_t epoch;             /* barrier epoch the region starts from: past every epoch used */
  unsigned single_base;       /* single_ticket when the region started */
  unsigned ws_base;           /* worksharing count the members start from */
  uint32_t bind_gen;          /* numbers the members' places in assign (0: never bound) */
  struct lite_ws *first_ws;   /* a combined construct's worksharing, set up before the fork */
  _Atomic bool quit;          /* workers leave (pool shutdown) */
  struct lite_slot **slots;   /* slots[k]: member k's arrival word (0 is the leader's) */
  struct lite_slot *leader_slot; /* slots[0], which never moves: idle workers read it while the
                                    leader may be growing slots[] */

  /* Barrier release: the leader stores the epoch once every member has arrived. */
  _Atomic uint32_t release LITE_ALIGNED;
  /* Parked-waiter counts, written only when a thread parks, read by every waker. */
  _Atomic uint32_t gen_sleepers LITE_ALIGNED;
  _Atomic uint32_t release_sleepers LITE_ALIGNED;
  /* The leader parks here while gathering; an arriving member bumps it if join_sleepers > 0. */
  _Atomic uint32_t join_word LITE_ALIGNED;
  _Atomic uint32_t join_sleepers;
  /* Members on call after the region's end park here (team.c), counted in gen_sleepers: a
     ready task (lite_barrier_poke) and the next region (lite_wake_on_call) bump it first. */
  _Atomic uint32_t call_word LITE_ALIGNED;
  /* Workers asleep between regions, each on its own bell (team.c, idle_wait). */
  _Atomic uint32_t idle_sleepers LITE_ALIGNED;
  /* OMPT (ompt/events.c), only while a tool is attached: the generation whose join the leader
     has gathered. A worker's implicit barrier ends for its tool when every member has arrived
     (its release), not when it arrives itself: Archer orders the region's accesses by it. */
  _Atomic uint32_t ompt_joined LITE_ALIGNED;
  /* Members parked in a tree barrier (barrier_tree.c), for lite_barrier_poke. */
  _Atomic uint32_t tree_sleepers LITE_ALIGNED;
  _Atomic unsigned tree_poke_at;  /* where lite_tree_poke looks first */

  struct lite_team team_storage;
  struct lite_ws *ring;       /* the team's worksharing ring (LITE_WS_RING entries) */

  /* Tiny nonmonotonic loops in this pool's regions (sched/tiny.c): the call sites whose loops
     thread 0 runs alone, without the ring. Every member reads the list at loop start; only the
     leader changes it, at the join, when no member is inside a loop, so that all members of a
     region take the same path. */
  struct lite_tiny_site tiny[LITE_TINY_SITES] LITE_ALIGNED;
  unsigned ntiny;
  /* A loop the ring set up as tiny in the current region (site.c judged it so): the leader lists
     it at the join. Written once per such loop until it is listed. */
  void *_Atomic tiny_key LITE_ALIGNED;
  _Atomic uint64_t tiny_count;

  /* Serial gaps (gap.c): the prediction the members read as a region ends. */
  struct lite_gap gap LITE_ALIGNED;

  /* Leader-only bookkeeping, on lines the workers never read. */
  bool busy LITE_ALIGNED;     /* a region is running (shutdown must not touch it) */
  unsigned tiny_runs[LITE_TINY_SITES]; /* runs of each listed tiny site, for sampling */
  bool tiny_drop[LITE_TINY_SITES];     /* measured long: unlist it at the join */
  struct lite_thread *leader;
  unsigned level;             /* nesting level of the regions this pool runs is level + 1 */
  unsigned nworkers;          /* workers started: they hold slots 1..nworkers */
  uint64_t balance_after_ns;  /* lite_team_balance moves no one before then (balance.c) */
  unsigned capacity;          /* slots allocated: slots[0..capacity-1] */
  unsigned slots_len;         /* length of slots[] and threads[] */
  pthread_t *threads;
  /* The arrays slots[] outgrew, freed at shutdown (see grow_arrays in team.c). Lengths double
     from 4, so an unsigned length can outgrow at most 30 of them. */
  struct lite_slot **retired_slots[30];
  unsigned nretired;
  struct lite_pool *next;     /* in the registry of all pools (init.c) */
  /* Binding (affinity/bind.c): the members' places, written by the leader at a fork when the
     key changes, read by each member as it starts. */
  struct lite_member_place *assign;
  unsigned assign_cap;
  struct lite_bind_key bind_key;
  /* The tree barrier's shape (barrier_tree.c), built by the leader at a fork, read by the
     members during the region: for tree_n members, the binding numbered tree_bind_gen, or
     their CPUs as they were before tree_until_ns (unbound). */
  struct lite_tree tree;
  unsigned tree_n;
  uint32_t tree_bind_gen;
  uint64_t tree_until_ns;
  bool tree_wide;             /* it spans more than one L3 cache */
  /* OMPLITE_PROFILE: the row of the region running now (profile/), written at the fork and read
     by the workers only while the profile is on. */
  struct lite_prof_row *prof_row LITE_ALIGNED;
};

/* ---------------------------------------------------------------- affinity/bind.c */

/* A new thread's place and partition: bound to none, the whole list (or the place its mask is
   exactly, for the initial thread bound at load). */
void lite_bind_thread_init(struct lite_thread *thr);
/* The initial thread takes place 0 when it first needs a place: its first team, or a question
   about its place (affinity/bind.c says why not sooner). */
void lite_bind_initial_slow(struct lite_thread *thr);
static inline void lite_bind_initial(struct lite_thread *thr)
{
  if (lite_unlikely(thr->bind_pending))
    lite_bind_initial_slow(thr);
}
/* Before the first team: undoes the stock libgomp's pinning of the initial thread. */
void lite_bind_first_team(struct lite_thread *thr);
/* The leader of a new team of n (flags: GOMP_parallel's, proc_bind in the low bits) works out
   the members' places (each member, the leader too, takes its own as it starts). */
void lite_bind_team_slow(struct lite_thread *thr, struct lite_pool *pool, unsigned n,
                         unsigned flags);
static inline void lite_bind_team(struct lite_thread *thr, struct lite_pool *pool, unsigned n,
                                  unsigned flags)
{
  if (lite_unlikely(lite_binding.on))
    lite_bind_team_slow(thr, pool, n, flags);
}
/* OMP_DISPLAY_AFFINITY: a member starting a region prints its line if it changed. */
void lite_bind_display(struct lite_thread *thr);
/* Member id of pool's region binds itself to its place, if the places changed. */
void lite_bind_member_slow(struct lite_thread *thr, const struct lite_pool *pool, unsigned id);
static inline void lite_bind_member(struct lite_thread *thr, const struct lite_pool *pool,
                                    unsigned id)
{
  if (lite_unlikely(thr->bind_seen != pool->bind_gen))
    lite_bind_member_slow(thr, pool, id);
}
/* The other members of thr's team of n in the order it should steal from them, nearest first by
   the topology (bound: their places; unbound: the CPUs they last waited on); NULL: use member
   numbers. */
const unsigned *lite_bind_nearest(struct lite_thread *thr, const struct lite_pool *pool,
                                  unsigned n);

/* Thread-local data of the runtime: the initial-exec model, a load at a fixed offset from the
   thread pointer. The default model for a shared library calls __tls_get_addr at each access
   (58 call sites: lite_task_create's hottest spot in taskbench task-nested, every
   __kmpc_global_thread_num). The static TLS block that glibc keeps for libraries loaded later
   holds the few words, so dlopen still works (tests/integration dlclose, plugin). */
#define LITE_THREAD_LOCAL __thread __attribute__((tls_model("initial-exec")))

extern LITE_THREAD_LOCAL struct lite_thread *lite_self_tls;

/* The calling thread's state, created on first use. */
struct lite_thread *lite_thread_create_self(void);
static inline struct lite_thread *lite_self(void)
{
  struct lite_thread *thr = lite_self_tls;
  return lite_likely(thr != NULL) ? thr : lite_thread_create_self();
}

/* How many locks, nest-lock levels, critical regions and ordered regions the calling thread is
   inside (lock.c, critical.c, ordered.c, kmpc/sync.c). While it is not 0 the thread's current
   task may hold a lock that a task it would run there waits for: taskyield then runs nothing and
   the throttle defers the new task instead of running it at once (task.c), which otherwise
   deadlocked where libgomp does not (issues 50, 51). Per thread, not per task: OpenMP gives
   locks to tasks, and the tasks run on a thread are nested, so the count is the sum over the
   current task and those suspended below it, which only errs on the side of running nothing.
   A plain thread-local word: no thread state needed (a lock may be set before the first region),
   one add on the lock paths. The decrement stops at 0, so an unset by another thread than the
   setter (not conforming, but libgomp lets it pass) leaves its own thread's count too high,
   which is again the safe side, and never too low. */
extern LITE_THREAD_LOCAL unsigned lite_held;
static inline void lite_held_enter(void) { lite_held++; }
static inline void lite_held_leave(void)
{
  if (lite_likely(lite_held != 0))
    lite_held--;
}

/* ---------------------------------------------------------------- team.c */

/* The number of threads a parallel region with this num_threads clause (0: none) gets, following
   OpenMP 5.2 §10.1.1 (if clause already applied by the caller). */
unsigned lite_team_size_for(struct lite_thread *thr, unsigned num_threads);
/* Sets up a combined construct's worksharing entry (ws->nthreads is already the team size). */
typedef void (*lite_ws_setup_fn)(struct lite_ws *ws, void *arg);
/* Starts fn(data) on threads 1..n-1 of a team led by thr; thr becomes thread 0 of that team.
   n may shrink (thread creation failed, thread limit). setup, if given, prepares the region's
   first worksharing construct (combined parallel loop or sections) before any member runs.
   Returns the team, or NULL if no thread could be started (the caller runs a team of one). */
struct lite_team *lite_team_fork(struct lite_thread *thr, unsigned n, void (*fn)(void *), void *data,
                                 unsigned flags, lite_ws_setup_fn setup, void *setup_arg);
/* Thread 0's end of the region: waits for the other members, restores thr's enclosing state. */
void lite_team_join(struct lite_thread *thr);
/* A team without workers, in caller-provided storage: a serialised region (nthreads 1), or a
   combined loop so small that thread 0 runs all of it (nthreads as requested, barriers empty). */
void lite_team_enter_serial(struct lite_thread *thr, struct lite_team *team, unsigned nthreads,
                            unsigned flags);
void lite_team_leave_serial(struct lite_thread *thr);

/* In a fork() child: no other thread of the parent is in a team any more. */
void lite_team_after_fork(void);
/* Stops a pool's workers and frees it; the pool must be idle. */
void lite_pool_shutdown(struct lite_pool *pool);
/* Worker id of pool (thr, the calling thread) asks for its slot, thread state, task queue and
   stack (with its static TLS) on the node of the CPU it runs on (affinity/home.c): at its start
   and when its place changes. */
void lite_team_member_home(const struct lite_pool *pool, unsigned id, struct lite_thread *thr);
/* Releases everything thr leads (its pools), when thr exits. */
void lite_thread_release(struct lite_thread *thr);
/* The library is unloaded: its pthread key for the threads' exit goes (team.c). */
void lite_thread_key_delete(void);

/* ---------------------------------------------------------------- worksharing (work.c, sched/) */


/* How a loop's iterations are handed out. */
enum lite_handout {
  LITE_HANDOUT_STATIC,  /* one block per member, computed: no shared state */
  LITE_HANDOUT_CYCLIC,  /* static with a chunk: member k takes chunks k, k+n, k+2n, ... */
  LITE_HANDOUT_DYNAMIC, /* monotonic: one shared counter, chunk by chunk */
  LITE_HANDOUT_GUIDED,  /* monotonic guided: the shared counter, chunks shrinking */
  LITE_HANDOUT_OWN,     /* nonmonotonic: each member works through its own static block, and
                           steals from others' when the call site's statistics say it pays */
  LITE_HANDOUT_WHOLE,   /* tiny: the first member that asks takes everything */
};


struct lite_site;

/* One worksharing construct (loop or sections) of a team. Loops are normalised to iteration
   indices 0..count-1; values are start + index * incr in unsigned (wrapping) arithmetic. */
/* A ring entry's ticket: the construct number (ws_count) that holds the entry in the low 32 bits,
   and LITE_WS_SPLIT if the member that claimed it chose to run the loop split: every member runs
   its own static block and reads nothing else of the entry (lite_ws_begin_loop); with
   LITE_WS_WHOLE as well, the claimer's block is the whole loop and the others' are empty (a loop
   too small to share). */
#define LITE_WS_SPLIT ((uint64_t)1 << 32)
#define LITE_WS_WHOLE ((uint64_t)1 << 33)

struct lite_ws {
  _Atomic uint64_t ticket LITE_ALIGNED; /* the construct that holds the entry (see above) */
  _Atomic uint32_t ready;               /* equals ticket once the first member has set it up */
  _Atomic uint32_t left;                /* members that have not finished it yet */
  _Atomic uint32_t ready_sleepers;      /* members parked until the entry is ready */
  _Atomic uint32_t left_sleepers;       /* members parked until the entry is free */
  _Atomic uint32_t freed;               /* bumped when left reaches 0 while someone is parked:
                                           the futex they park on (left itself could go
                                           1 -> 0 -> n -> 1 under a sleeper about to park) */
  enum lite_handout handout;
  bool ordered;                         /* chunks take turns in GOMP_ordered_start */
  bool guided;                          /* OWN: take shrinking chunks */
  bool steal;                           /* OWN: steal when the own block runs out */
  bool in_order;                        /* OWN stealing: each member's chunks in increasing
                                           order (OMPLITE_STEAL=monotonic, sched/steal.c) */
  bool add_ok;                          /* DYNAMIC: the counter cannot overflow, so a plain
                                           fetch-and-add hands out chunks */
  bool fast_add;                        /* DYNAMIC, add_ok and not ordered: the entry points
                                           hand out chunks inline (lite_sched_next_dynamic) */
  unsigned char combined_work;          /* a combined construct's entry, set up in the fork:
                                           its ompt_work_t, for the members' work-begin (a
                                           stale value elsewhere, read only there) */
  unsigned nthreads;
  uint64_t count, chunk, start, incr, end;
  void *mem;                            /* GOMP_loop_start's shared scratch memory */
  size_t mem_size;
  struct lite_pool *pool;               /* a pool's ring entry: its members' ranges are in
                                           their slots (lite_ws_range); NULL for a team of one */
  unsigned ring_index;                  /* which entry of pool->ring */
  struct lite_range *ranges;            /* [nthreads] for STATIC, CYCLIC and OWN, without pool */
  unsigned ranges_cap;
  struct lite_site *site;               /* call-site statistics (sched/site.c) */
  uint64_t start_ns;                    /* when the loop started, if this run is measured */
  _Atomic uint64_t last_done_ns;        /* measured runs: when the last member finished */
  _Atomic uint64_t min_busy_ns, max_busy_ns; /* and the members' own busy times */
  _Atomic uint64_t stolen;              /* chunks taken from other members */
  _Atomic unsigned ranges_left;         /* stealing loops: ranges that may still hold chunks
                                           a thief can take (sched/steal.c) */
  _Atomic bool stuck;                   /* in order: a thief gave up while chunks were left
                                           below its last one (sched/steal.c, site.c) */
  _Atomic unsigned finished;            /* members done, when the run is measured */

  _Atomic uint64_t next LITE_ALIGNED;   /* DYNAMIC, GUIDED, WHOLE: first index not handed out */

  _Atomic uint64_t ordered_turn LITE_ALIGNED; /* first index of the chunk whose turn it is */
  _Atomic uint32_t ordered_gen;         /* bumped at each turn: the futex ordered waiters park on */
  _Atomic uint32_t ordered_sleepers;
  _Atomic bool cancelled;               /* cancel for / cancel sections */

  _Atomic uint64_t *posted;             /* doacross: per chunk, last posted position + 1 */
  size_t posted_cap;
  unsigned ncounts;                     /* doacross: dimensions */
  uintptr_t *task_reductions;           /* reduction(task, ...): the first member's registration */
  uint64_t outer_count;                 /* doacross: trip count of the outermost loop */
  uint64_t *inner_counts;               /* doacross: trip counts of the others (ncounts - 1) */
  unsigned inner_cap;
  _Atomic uint32_t posted_gen;          /* bumped by posts when someone waits */
  _Atomic uint32_t posted_sleepers;
};

/* A member meets its next worksharing construct: returns its entry, and whether it is the first
   (it then sets the entry up and calls lite_ws_ready). */
struct lite_ws *lite_ws_begin(struct lite_thread *thr, bool *first);
/* The same for a loop that may run split (want: the mark this member would claim it with, were it
   the first: 0, LITE_WS_SPLIT, or that and LITE_WS_WHOLE). *mark: the first member's; if not 0,
   this member runs its block, and the entry is only left at the loop's end (lite_loop_finish).
   The first member of a split loop has already released it: it calls no lite_ws_ready. */
struct lite_ws *lite_ws_begin_loop(struct lite_thread *thr, uint64_t want, bool *first,
                                   uint64_t *mark);
void lite_ws_ready(struct lite_ws *ws);
/* A member finishes its current construct (the barrier, if any, is the caller's). */
void lite_ws_end(struct lite_thread *thr);
/* Storage for the entries of a team of one (or of the initial thread outside any region). */
struct lite_ws *lite_ws_solo(struct lite_thread *thr);
/* The leader at the join, every member arrived: updates the pool's list of tiny loops
   (sched/tiny.c). */
void lite_tiny_join(struct lite_pool *pool);

/* ---------------------------------------------------------------- parallel.c */

/* A whole parallel region on the calling thread's behalf (GOMP_parallel and the combined
   constructs), and the first half of one (GOMP_parallel_start and friends; the caller runs its
   share, then GOMP_parallel_end). setup, if given, prepares the first worksharing construct;
   flags: GOMP_parallel's (a proc_bind clause in the low three bits). */
unsigned lite_parallel_run(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                           lite_ws_setup_fn setup, void *arg);
void lite_parallel_begin(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags,
                         lite_ws_setup_fn setup, void *arg);
/* lite_parallel_run with OMPT events (ompt/), from an entry point whose return address is
   codeptr and whose frame is enter; the plain or profiled run if no tool is attached after all
   (the first call decides, ompt/ompt.h). */
unsigned lite_parallel_run_ompt(const void *codeptr, void *enter, void (*fn)(void *), void *data,
                                unsigned num_threads, unsigned flags, lite_ws_setup_fn setup,
                                void *arg);
/* GOMP_teams_reg with OMPT events (ompt/league.c), from an entry point whose return address is
   codeptr and whose frame is enter; the plain league if no tool is attached after all. */
void lite_teams_run_ompt(const void *codeptr, void *enter, void (*fn)(void *), void *data,
                         unsigned num_teams, unsigned thread_limit);
/* lite_parallel_run, timed for OMPLITE_PROFILE and OMPLITE_TRACE (site: the call site). */
unsigned lite_parallel_run_profiled(const void *site, void (*fn)(void *), void *data,
                                    unsigned num_threads, unsigned flags, lite_ws_setup_fn setup,
                                    void *arg);

/* ---------------------------------------------------------------- task.c */

/* Starts t as the implicit task of a thread in a new region (or outside any). */
static inline void lite_task_implicit_init(struct lite_task *t)
{
  t->implicit = true;
  t->final = false;
  t->had_children = false;
  t->ephemeral = false;
  t->icv_lazy = false;
  atomic_store_explicit(&t->kids_made, 0, memory_order_relaxed);
  atomic_store_explicit(&t->kids_queued, 0, memory_order_relaxed);
  atomic_store_explicit(&t->kids_done, 0, memory_order_relaxed);
  atomic_store_explicit(&t->kids_taken, 0, memory_order_relaxed);
  atomic_store_explicit(&t->dep_lock, 0, memory_order_relaxed);
  t->taskgroup = NULL;
  t->deps = NULL;
  t->state = LITE_TASK_RUNNING;
}

/* The task thr runs now; outside any region, its implicit task is made real on first use. */
static inline struct lite_task *lite_current_task(struct lite_thread *thr)
{
  if (thr->task == NULL) {
    lite_task_implicit_init(&thr->root_task);
    thr->task = &thr->root_task;
  }
  return thr->task;
}

/* thr's data-environment ICVs, for a change: an undeferred task that runs with its creator's
   ICVs (icv_lazy: it copied none when it started) first keeps a copy of them, which its end puts
   back (task.c, run_included). */
static inline struct lite_icv *lite_icv_for_write(struct lite_thread *thr)
{
  struct lite_task *t = thr->task;
  if (t != NULL && lite_unlikely(t->icv_lazy)) {
    t->icv = thr->icv;
    t->icv_lazy = false;
    t->icv_saved = true;
  }
  return &thr->icv;
}

/* The task queue explicit tasks created by thr go to. */
static inline struct lite_tasks *lite_tasks_of(struct lite_thread *thr)
{
  return thr->team != NULL ? &thr->team->tasks : &thr->root_tasks;
}

/* The task part of a barrier (and of the end of a region): runs the queue's tasks until none
   is incomplete. One load when no task was ever made there. */
void lite_tasks_drain_slow(struct lite_thread *thr, struct lite_tasks *q);
static inline void lite_tasks_drain(struct lite_thread *thr)
{
  struct lite_tasks *q = lite_tasks_of(thr);
  if (lite_unlikely(atomic_load_explicit(&q->used, memory_order_acquire)))
    lite_tasks_drain_slow(thr, q);
}

/* The queue's memory is about to go (a team of one ends with its encountering thread's frame; a
   pool at its thread's exit): waits until no thread is inside its lock. Another thread's
   omp_fulfill_event completes a task under the lock, and may still hold it when the drain sees
   the queue's count reach 0 without the lock. */
void lite_tasks_retire(struct lite_tasks *q);

/* GOMP_task, with a hook for GOMP_taskloop: prepare(copy, arg) runs on the task's own copy of
   its data before the task can start; priority: the clause's value (0 without one); site: the
   construct's call site, for the profile. */
void lite_task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                      long arg_size, long arg_align, bool if_clause, unsigned flags,
                      void **depend, void *detach, void (*prepare)(void *, void *),
                      void *prepare_arg, int priority, const void *site);
/* GOMP_taskwait and GOMP_taskgroup_end for another entry point (kmpc/), with its caller's site
   for the profile; descendants: the taskwait may run any descendant of the waiting task, as
   LLVM's runtime does (task.c, is_descendant_of), not only its children, as libgomp does. */
void lite_taskwait_from(const void *site, bool descendants);
/* GOMP_taskwait_depend for kmpc/, with its caller's site. */
void lite_taskwait_depend_from(void **depend, const void *site);
/* Whether a taskgroup task t belongs to was cancelled (OMPT: its end's status). */
bool lite_task_group_cancelled(const struct lite_task *t);
/* GOMP_single_start for kmpc/, with its caller's site. */
bool lite_single_start_from(const void *site);
void lite_taskgroup_end_from(const void *site);
void lite_taskgroup_start_from(const void *site);

/* A thread waiting in a barrier runs a ready task of its team, if there is one (so that tasks
   made after it arrived do not all fall to their creator). Returns whether it ran one. */
bool lite_tasks_help_slow(struct lite_thread *thr, struct lite_tasks *q);
static inline bool lite_tasks_help(struct lite_thread *thr, struct lite_tasks *q)
{
  return lite_unlikely(atomic_load_explicit(&q->ready, memory_order_relaxed) != 0) &&
         lite_tasks_help_slow(thr, q);
}

/* The same for a member that has arrived at the end of region gen of q's pool: a ready task, if
   the region is still the pool's current one (a new region's tasks are not its business). */
bool lite_tasks_help_region(struct lite_thread *thr, struct lite_tasks *q, uint32_t gen);

/* After the drain at the end of an implicit task: frees what its children left. */
void lite_task_implicit_end(struct lite_task *t);

/* When thr's state goes: frees the task blocks it kept for reuse. */
void lite_task_cache_release(struct lite_thread *thr);

/* task_reduction.c: the registration of task reductions with `n` copies (one per thread). */
void lite_task_reductions_register(uintptr_t *data, uintptr_t *old, uintptr_t *orig, unsigned n);

/* Whether the taskgroup the current task is in (or an enclosing one) was cancelled. */
/* An included task whose body the caller runs between the two calls (clang's task if(0),
   kmpc/task.c): the state to put back at its end. */
/* Another layer's per-task memory (a clang-built task's header and data, kmpc/task.c) in the
   blocks task descriptors come in (task.c, task memory): NULL when size does not fit one (or the
   caller is no OpenMP thread); else where records where lite_task_block_put gives it back. */
struct lite_block_home {
  struct lite_member_q *home;
  const struct lite_thread *maker;
};
void *lite_task_block_get(size_t size, struct lite_block_home *where);
void lite_task_block_put(void *block, const struct lite_block_home *where);

/* taskloop.c: a taskloop's tasks, for GOMP_taskloop and __kmpc_taskloop (kmpc/task.c). The
   caller fills it, plans the split (lite_taskloop_plan), and calls lite_taskloop_run inside the
   construct's taskgroup; with nogroup, l must be on the heap: the last of its tasks to end calls
   release, maybe after lite_taskloop_run returned. run runs one task, iterations [first, first +
   count) of n (last: it has the last one), on copy: copy_size bytes aligned to copy_align, for
   the task's own data, which run fills from the construct's. make instead makes that task, a
   task of its own submitted now, for the tasks made up front: with a tool attached, and where
   eager says so (taskloop.c). release may be NULL (l is the caller's). */
struct lite_taskloop {
  void (*run)(struct lite_taskloop *l, void *copy, uint64_t first, uint64_t count, bool last);
  void (*make)(struct lite_taskloop *l, uint64_t first, uint64_t count, bool last);
  void (*release)(struct lite_taskloop *l);
  bool eager;                        /* every task made up front, tool or not */
  size_t copy_size, copy_align;
  uint64_t n, ntasks, base, extra;   /* lite_taskloop_plan's */
  bool deferred;                     /* the if clause: false runs every task on the caller */
  bool final, nogroup;
  unsigned flags;                    /* GOMP_task's flags for the tasks (untied) */
  int priority;
  const void *site;                  /* the construct's call site, for the profile */
  _Atomic unsigned refs;             /* nogroup: the tasks still to end, and the construct */
};
void lite_taskloop_plan(struct lite_taskloop *l, uint64_t n, bool grainsize, bool strict,
                        uint64_t value);
void lite_taskloop_run(struct lite_taskloop *l);

struct lite_included {
  struct lite_task *task, *saved_task;
};
void lite_task_included_begin(struct lite_included *inc, bool final);
/* What identifies running task t (nest locks): an undeferred task that made a task keeps its
   first address (task.c, promote). */
const void *lite_task_identity(const struct lite_task *t);
void lite_task_included_end(struct lite_included *inc);

/* A clang-built task's event handle (kmpc/task.c) has its low bit set: a gcc-built task's is the
   task's address. omp_fulfill_event passes those to lite_kmpc_fulfill_event. */
static inline bool lite_kmpc_event(omp_event_handle_t event) { return ((uintptr_t)event & 1) != 0; }
void lite_kmpc_fulfill_event(omp_event_handle_t event);
/* Destroys the calling thread's copies of clang's non-TLS threadprivate variables (kmpc/). */
void lite_kmpc_threadprivate_exit(void);
bool lite_taskgroup_cancelled(struct lite_thread *thr);
void lite_taskgroup_cancel(struct lite_thread *thr);

/* ---------------------------------------------------------------- barrier.c */

/* The team barrier, for every member of thr's team. */
void lite_barrier_wait(struct lite_thread *thr);
/* The same as a cancellation point: returns true, possibly before every member arrived, once
   the parallel region is cancelled. */
bool lite_barrier_wait_cancel(struct lite_thread *thr);
/* Cancels thr's parallel region and wakes the members waiting in cancellable barriers. */
/* GOMP_cancel and GOMP_cancellation_point for another entry point (kmpc/), whose caller's
   return address is codeptr (OMPT's cancel event). */
bool lite_cancel_from(int which, bool do_cancel, const void *codeptr);
bool lite_cancellation_point_from(int which, const void *codeptr);
void lite_team_cancel(struct lite_thread *thr);
/* A member's arrival at a barrier of epoch; the leader's gather of members 1..n-1. */
void lite_barrier_arrive(struct lite_pool *pool, struct lite_slot *slot, uint32_t epoch);
void lite_barrier_gather(struct lite_thread *thr, struct lite_pool *pool, unsigned nthreads,
                         uint32_t epoch);
void lite_barrier_poke(struct lite_pool *pool);
/* Wakes the members on call after the region's end (team.c), if any sleep. */
void lite_wake_on_call(struct lite_pool *pool);
/* The same for the end of a region (generation gen). The join has its own word so that it does
   not depend on every member having passed the same number of barriers (cancellation). */
void lite_join_arrive(struct lite_pool *pool, struct lite_slot *slot, uint32_t gen);
void lite_join_gather(struct lite_thread *thr, struct lite_pool *pool, unsigned nthreads,
                      uint32_t gen);

/* ---------------------------------------------------------------- barrier_lines.c */

/* --enable-line-count builds only: the calling member touched n lines that other members write
   (or wrote a line they read) in the barrier under way; lite_lines_barrier_end closes its count
   for a barrier of a team of nmembers. Nothing in other builds. */
#ifdef LITE_LINE_COUNT
void lite_lines_touched(unsigned n);
void lite_lines_barrier_end(unsigned nmembers);
#else
static inline void lite_lines_touched(unsigned n) { (void)n; }
static inline void lite_lines_barrier_end(unsigned nmembers) { (void)nmembers; }
#endif

/* ---------------------------------------------------------------- barrier_tree.c */

/* The leader of a new team of n: the tree its barriers and its join use (built or refreshed
   in pool->tree), or NULL for the flat ones. */
const struct lite_tree *lite_tree_for_team(struct lite_pool *pool, unsigned n);
/* OMP_DISPLAY_ENV=verbose's OMPLITE_BARRIER_TREE: the barrier the initial thread's first team of
   nthreads-var gets with the binding in force, "flat", "unbound: ..." or the tree as
   lite_tree_format writes it. After lite_bind_ready. Into buf as snprintf. */
size_t lite_tree_describe(char *buf, size_t size);
static inline const struct lite_tree *lite_tree_pick(struct lite_pool *pool, unsigned n)
{
  if (lite_likely(n <= 2 || lite_env.barrier == LITE_BARRIER_FLAT))
    return NULL;
  return lite_tree_for_team(pool, n);
}
/* A barrier of epoch along thr's team's tree. */
void lite_tree_barrier(struct lite_thread *thr, struct lite_pool *pool, const struct lite_tree *tree,
                       uint32_t epoch);
/* The end of region gen: member id (thr still in the team, so that it runs the region's tasks
   while it waits) waits for its children's arrival at the join. */
void lite_tree_join_wait(struct lite_thread *thr, struct lite_pool *pool,
                         const struct lite_tree *tree, unsigned id, uint32_t gen);
/* Then its own arrival, reported to parent (its slot, read before: the leader may change the
   pool's arrays once this store is seen). */
void lite_tree_join_arrive(struct lite_slot *slot, struct lite_slot *parent, uint32_t gen);
/* A ready task: wakes one member parked in a tree barrier, if any. */
void lite_tree_poke(struct lite_pool *pool);

/* ---------------------------------------------------------------- balance.c */

/* The leader, every member of an nthreads team arrived: with more members than CPUs, moves a
   worker from a crowded CPU to a less crowded one (see balance.c). */
void lite_team_balance(struct lite_pool *pool, unsigned nthreads);
/* Its two decisions, on the members' CPUs (cpus[i]: member i's): whether some CPU holds more
   than its share of the members, and which worker to move where, given the CPUs of the mask
   (a bitmap of 256 CPUs). */
struct lite_balance_move {
  unsigned member;
  int cpu;
};
bool lite_balance_lopsided(const int *cpus, unsigned n, unsigned ncpus);
bool lite_balance_plan(const int *cpus, unsigned n, const uint64_t *allowed,
                       struct lite_balance_move *move);
/* Workers moved so far (the tests read it). */
extern _Atomic unsigned long lite_balance_moves;
/* A member inside the runtime (waiting at a barrier or for the next region) moves itself where
   the balancer asked, if it was asked (balance.c). */
void lite_balance_move_self(struct lite_slot *slot, int to);
static inline void lite_balance_take_request(struct lite_slot *slot)
{
  int to = atomic_load_explicit(&slot->move_to, memory_order_relaxed);
  if (lite_unlikely(to != 0))
    lite_balance_move_self(slot, to);
}

/* ---------------------------------------------------------------- wait.c */

/* How a waiter waits right now: spin with pause while every runtime thread can have a CPU, poll
   with yields while they outnumber the CPUs, park at once under OMP_WAIT_POLICY=passive. */
enum lite_wait_mode { LITE_WAIT_SPIN, LITE_WAIT_YIELD, LITE_WAIT_PARK };

/* One wait's budget. Use: lite_waiter_init(&w); while (!ready) if (!lite_waiter_poll(&w)) park. */
struct lite_waiter {
  uint64_t start_ns;
  uint64_t last_ns;   /* the previous clock reading, to notice that the waiter was preempted */
  unsigned polls;
  enum lite_wait_mode mode;
  _Atomic int *peer_cpu; /* where the awaited thread said it runs, if known */
  int peer_tid;          /* and its kernel id, if known (a worker): the waiter, a leader, may
                            then move itself off the CPU they share */
  uint64_t coloc_yield_ns; /* when it first yielded to that thread on their CPU (0: never) */
};
void lite_waiter_init(struct lite_waiter *w);
/* After a wait that watched a worker (lite_waiter_watch_slot) has ended: learns from it whether
   this leader's waits for a worker sharing its CPU are short (wait.c). */
void lite_waiter_end(const struct lite_waiter *w);
/* The waiter waits for the thread whose CPU *cpu is (a struct lite_slot's cpu): if that is the
   waiter's own CPU, the awaited thread cannot run while the waiter spins, so it yields. */
static inline void lite_waiter_watch(struct lite_waiter *w, _Atomic int *cpu)
{
  w->peer_cpu = cpu;
}
/* The same for a worker's slot: the leader may move the worker to another CPU. */
static inline void lite_waiter_watch_slot(struct lite_waiter *w, struct lite_slot *slot)
{
  w->peer_cpu = &slot->cpu;
  w->peer_tid = atomic_load_explicit(&slot->tid, memory_order_relaxed);
}
/* A thread about to wait says where it runs. */
static inline void lite_slot_note_cpu(struct lite_slot *slot)
{
  int cpu = lite_os_cpu();
  if (atomic_load_explicit(&slot->cpu, memory_order_relaxed) != cpu)
    atomic_store_explicit(&slot->cpu, cpu, memory_order_relaxed);
}
/* Pauses or yields once; false once the time budget is spent and the caller should park. */
bool lite_waiter_poll(struct lite_waiter *w);

/* Wait while *word == old (resp. until *word == target): poll within the budget, then park on the
   futex. *sleepers counts parked waiters, so a waker makes a system call only if someone sleeps. */
void lite_wait_while_equal(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleepers);
/* The same, waiting on the thread whose CPU *peer_cpu is (see lite_waiter_watch). */
void lite_wait_while_equal_watch(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleepers,
                                 _Atomic int *peer_cpu);
void lite_wait_until_equal(_Atomic uint32_t *word, uint32_t target, _Atomic uint32_t *sleepers);
/* Whether other processes compete for our CPUs, as the balancer must know it: the waiters'
   overloaded state, or the kernel's count of runnable tasks (now, or within 10 ms) held more
   tasks than all our live threads (foreign), or no more than our awake ones (none). Unknown when
   no count settled it (parked threads of ours may or may not be in the count): one is asked for,
   which the thread whose wake-up leaves none parked, or a yielding waiter, takes. Always none
   with OMPLITE_LOAD_WATCH=false. */
enum lite_load { LITE_LOAD_NONE, LITE_LOAD_FOREIGN, LITE_LOAD_UNKNOWN };
enum lite_load lite_foreign_load(uint64_t now);
/* OMP_DYNAMIC=true: the threads a team of n may get, at most the CPUs other processes leave free
   (wait.c). */
unsigned lite_dynamic_threads(unsigned n);
/* How long a waiter may spin now: the wait policy's spin_ns, cut short while another process
   competes for our CPUs. */
uint64_t lite_spin_budget_ns(uint64_t now);
/* Store value into *word (sequentially consistent) and wake its parked waiters, if any. */
void lite_store_and_wake(_Atomic uint32_t *word, uint32_t value, _Atomic uint32_t *sleepers);
/* Add one to *word, a generation count several threads may bump at once, and wake its parked
   waiters, if any. A store of a generation read earlier could take it back to a value a waiter
   already saw, and that waiter would sleep through the change it waits for. */
void lite_bump_and_wake(_Atomic uint32_t *word, _Atomic uint32_t *sleepers);
/* Bookkeeping around a futex sleep, for the oversubscription decision; sleepers (the count a
   waker reads to skip the system call) may be NULL where the word itself says someone sleeps. */
void lite_park_begin(_Atomic uint32_t *sleepers);
void lite_park_end(_Atomic uint32_t *sleepers);

/* Threads the runtime knows (workers and threads that called into it) and those parked now. */
extern _Atomic int lite_threads_live;
extern _Atomic int lite_threads_parked;
/* Parked ones that a futex wake-up has made runnable, until they run (wait.c). */
extern _Atomic int lite_threads_waking;
/* Those awake or about to be: the woken ones count as awake already. */
int lite_threads_awake(void);
/* The futex layer's reports: n sleepers woken; a sleeper back from a wake-up. */
void lite_wake_sent(int n);
void lite_wake_arrived(void);

/* The kernel's counts that the load watch reads (os.h's readers by default), reached through
   pointers so that a unit test can give it the counts it wants: read from the machine, they
   held every other process's threads, and a test beside 1,000 busy threads took that load for
   its own case's. Only tests change them, before any thread of theirs waits. */
struct lite_load_counts {
  int (*runnable_tasks)(void);
  int (*runnable_threads_of_process)(void);
};
extern struct lite_load_counts lite_load_counts;

/* ---------------------------------------------------------------- init.c */

/* Reads the environment and installs the fork and exit handlers, once. */
void lite_init_once(void);
/* Checks, once, that nothing pinned the initial thread behind libomp-lite's back (thr: the
   thread about to lead the first team). */
void lite_before_first_team(struct lite_thread *thr);
/* The registry of pools, so that fork and unload can find them. */
void lite_registry_add(struct lite_pool *pool);
void lite_registry_remove(struct lite_pool *pool);

/* ---------------------------------------------------------------- lock.c (for critical.c) */

/* The futex mutex behind omp_lock_t, critical and atomic: 0 free, 1 held, 2 held with waiters. */
void lite_mutex_lock_slow(_Atomic uint32_t *m);
void lite_mutex_unlock_slow(_Atomic uint32_t *m);
static inline void lite_mutex_lock(_Atomic uint32_t *m)
{
  uint32_t free = 0;
  if (lite_unlikely(!atomic_compare_exchange_strong_explicit(m, &free, 1, memory_order_acquire,
                                                             memory_order_relaxed)))
    lite_mutex_lock_slow(m);
}
static inline void lite_mutex_unlock(_Atomic uint32_t *m)
{
  if (lite_unlikely(atomic_exchange_explicit(m, 0, memory_order_release) == 2))
    lite_mutex_unlock_slow(m);
}
/* Look before the compare-and-swap: programs spin on omp_test_lock, and a failing CAS takes the
   line exclusive, so a dozen spinners keep pulling it away from the holder, who needs it to
   unlock. A load shares it. (Under ThreadSanitizer, whose CAS takes a lock of its own per
   address, 16 threads spinning by CAS on 2 CPUs starved the holder's unlock for minutes.) */
static inline bool lite_mutex_trylock(_Atomic uint32_t *m)
{
  uint32_t free = 0;
  return atomic_load_explicit(m, memory_order_relaxed) == 0 &&
         atomic_compare_exchange_strong_explicit(m, &free, 1, memory_order_acquire,
                                                 memory_order_relaxed);
}

#endif
