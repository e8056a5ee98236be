/* The per-call-site profile (OMPLITE_PROFILE) and the timeline (OMPLITE_TRACE).

   Off by default. Every hook in the runtime is `if (lite_prof_on()) lite_prof_...(...)`: one
   load of lite_env.profile, on the line of lite_env that every region and loop reads anyway
   (display_affinity, tiny_loops), and a branch predicted not taken. The work itself is in
   out-of-line functions here in profile/, so the hot paths keep their shape.

   Rows (site_table.c) are keyed by the construct's call site (the return address of its GOMP_*
   entry point, as sched/site.c keys its loops) and its kind; they only grow, and a row's
   counters are atomic adds, so any thread may add to any row. The report (report.c) and the
   trace (trace.c) are written at exit (init.c's destructor) or when the library is unloaded. */
#ifndef LITE_PROFILE_H
#define LITE_PROFILE_H

#include "internal.h"

#include <stdio.h>

/* lite_env.profile's bits. */
#define LITE_PROF_TABLE 1u
#define LITE_PROF_TRACE 2u

static inline bool lite_prof_on(void) { return lite_unlikely(lite_env.profile != 0); }
static inline bool lite_prof_tracing(void)
{
  return lite_unlikely((lite_env.profile & LITE_PROF_TRACE) != 0);
}

enum lite_prof_kind {
  LITE_PROF_PARALLEL,   /* a parallel region (a combined parallel loop's loop columns too) */
  LITE_PROF_LOOP,       /* a worksharing loop the runtime hands out (not gcc's inline static) */
  LITE_PROF_SECTIONS,   /* a sections construct (its sections count as chunks) */
  LITE_PROF_BARRIER,    /* an explicit barrier (or the one gcc emits after single, sections) */
  LITE_PROF_SINGLE,     /* a single construct: how often, and how often it had a team */
  LITE_PROF_CRITICAL,   /* a critical section (unnamed or named): the wait to enter */
  LITE_PROF_TASK,       /* a task-creating site */
  LITE_PROF_TASKWAIT,
  LITE_PROF_TASKGROUP,
  LITE_PROF_KINDS
};

/* What the runtime decided for a loop run (counted per run in the row). */
enum lite_prof_decision {
  LITE_DEC_STATIC,  /* static or static with a chunk, handed out by the runtime */
  LITE_DEC_DYNAMIC, /* monotonic dynamic: one shared counter */
  LITE_DEC_GUIDED,  /* monotonic guided */
  LITE_DEC_OWN,     /* nonmonotonic, own blocks, no stealing (the entry shared) */
  LITE_DEC_STEAL,   /* nonmonotonic, own blocks, stealing turned on by the site's statistics */
  LITE_DEC_SPLIT,   /* nonmonotonic, split: each member computes its block, nothing shared */
  LITE_DEC_WHOLE,   /* tiny: the first member takes every iteration */
  LITE_DEC_TINY,    /* tiny inside a running team: thread 0 alone, no ring (sched/tiny.c) */
  LITE_DEC_INLINE,  /* a tiny combined parallel loop run on the caller, no team woken */
  LITE_DEC_KINDS
};

struct lite_prof_row {
  const void *key;                 /* the call site; NULL: free (set once, under the CAS) */
  enum lite_prof_kind kind;
  _Atomic(const void *) fn;        /* the outlined function, where there is one */
  _Atomic uint64_t count;          /* runs (regions, loops); members' passes (barrier, critical),
                                      tasks made, waits (taskwait, taskgroup) */
  _Atomic uint64_t wall_ns;        /* wall time of the runs (a loop: its members' mean) */
  _Atomic uint64_t member_ns;      /* the members' time inside, summed over members */
  _Atomic uint64_t wait_ns;        /* the members' wait at its barrier / join / lock */
  _Atomic uint64_t fork_ns;        /* regions: from the call to the leader starting its share */
  _Atomic uint64_t join_ns;        /* regions: from the last member's end to the join's end */
  _Atomic uint64_t chunks, steals; /* loops handed out by the runtime */
  _Atomic uint64_t parks, park_ns, wakes; /* futex sleeps of threads in or after it; wake-ups */
  _Atomic uint64_t tasks_other;    /* tasks: run by a thread other than their creator */
  _Atomic unsigned min_threads, max_threads;
  _Atomic unsigned sched_mask;     /* loops: the schedules seen (1 << enum lite_sched) */
  _Atomic uint64_t decisions[LITE_DEC_KINDS];
  _Atomic unsigned char tail;      /* enum lite_prof_tail: how key was found (hooks.c) */
} LITE_ALIGNED;

/* A row whose construct was the last call of a function the runtime itself called (gcc's tail
   call: `jmp GOMP_barrier`), so that its return address was in the runtime: it is keyed by the
   site the thread entered through instead (hooks.c user_site), and the report says so. */
enum lite_prof_tail {
  LITE_TAIL_NONE,
  LITE_TAIL_REGION, /* key: the site of the region whose body ended with the construct */
  LITE_TAIL_TASK    /* key: the site that created the task whose body ended with it */
};

/* The row of (site, kind), made on first use; never NULL (a full table gives its last row,
   "other sites"). */
struct lite_prof_row *lite_prof_row(const void *site, enum lite_prof_kind kind, const void *fn);
/* Every row in use, for the report: calls f(row, arg) for each. */
void lite_prof_each_row(void (*f)(struct lite_prof_row *row, void *arg), void *arg);
/* The team sizes seen, as a bitmask of sizes 1..63 (bit 0: 64 and more). */
extern _Atomic uint64_t lite_prof_team_sizes;
void lite_prof_note_team(unsigned n);

/* A thread's profile state, allocated on its first hook (lite_prof_self). Only the pointer is
   thread-local (initial-exec, as lite_self_tls): a library loaded by dlopen (OpenBLAS loading
   libgomp.so.1 under python) takes initial-exec TLS from glibc's small reserve, so the state
   itself (~260 bytes) does not go there. */
struct lite_prof_thread {
  struct lite_prof_row *region; /* the region it is a member of (or last was: its idle parks) */
  struct lite_prof_row *loop;   /* the loop it is in, if the runtime hands it out */
  uint64_t loop_start_ns;
  uint64_t chunks, steals;      /* in the current loop (or combined region) so far */
  uint64_t park_start_ns;
  struct lite_prof_row *pending_row; /* the row of the region it is about to fork */
  /* A loop site's numbers, added up here and moved to its row when the thread's next loop is at
     another site, or its region ends: every member adding to the row as they all leave the
     loop's barrier together cost each loop a few transfers of the row's line. */
  struct lite_prof_loop_sums {
    const void *site;
    struct lite_prof_row *row;
    uint64_t count, wall_ns, member_ns, wait_ns, chunks, steals;
    uint64_t decisions[LITE_DEC_KINDS];
    unsigned sched_mask, min_threads, max_threads;
  } sums;
  /* Barrier waits, added up here and moved to the row when another barrier site comes or the
     region ends: every member adding to the row as they all leave a barrier together cost
     ~0.1 us a barrier. */
  const void *bar_site;
  struct lite_prof_row *bar_row;
  uint64_t bar_wait_ns, bar_count;
  unsigned bar_threads;
  struct lite_trace_buf *trace; /* its trace buffer (trace.c), made on its first event */
  /* The creation sites of the tasks it is running, innermost last (a task runs others in its
     taskwait): the site a tail-called taskwait belongs to. Deeper than the array, only counted. */
  unsigned task_depth;
  unsigned task_base; /* task_depth when its innermost region began: deeper ones are its own */
  const void *task_sites[8];
};
extern __thread struct lite_prof_thread *lite_prof_tls __attribute__((tls_model("initial-exec")));
struct lite_prof_thread *lite_prof_thread_make(void);
static inline struct lite_prof_thread *lite_prof_self(void)
{
  struct lite_prof_thread *p = lite_prof_tls;
  return lite_likely(p != NULL) ? p : lite_prof_thread_make();
}
/* At a thread's exit (team.c): its sums go to the rows, and its state goes. */
void lite_prof_thread_exit(void);
void lite_prof_thread_free(struct lite_prof_thread *p); /* site_table.c */

/* ---------------------------------------------------------------- hooks (hooks.c) */

/* A parallel region, timed by its encountering thread (parallel.c): begin before the team size is
   chosen, forked when the leader is about to run its share (team: NULL for a team of one),
   end after the join. setup_ws: a combined construct's loop, read for its decision. */
struct lite_prof_region {
  struct lite_prof_row *row, *saved_region, *saved_loop;
  uint64_t t0, t1, t2;
  uint64_t saved_chunks, saved_steals;
  unsigned saved_task_base;
};
void lite_prof_region_begin(struct lite_prof_region *r, const void *site, const void *fn);
void lite_prof_region_forked(struct lite_prof_region *r, struct lite_thread *thr, bool combined);
void lite_prof_region_joining(struct lite_prof_region *r);
void lite_prof_region_end(struct lite_prof_region *r, struct lite_team *team, unsigned n,
                          enum lite_prof_decision inline_decision);
/* A worker starts / ends its share of a region of pool (team.c run_member). */
void lite_prof_member_begin(struct lite_pool *pool);
void lite_prof_member_end(struct lite_slot *slot);
/* The leader at the fork: the row the workers add to (team.c lite_team_fork). */
static inline void lite_prof_fork_publish(struct lite_pool *pool)
{
  struct lite_prof_thread *p = lite_prof_self();
  LITE_SET_IF_CHANGED(pool->prof_row, p->pending_row);
  p->pending_row = NULL;
}

/* A member starts a loop the runtime hands out (loop.c, loop_ull.c): first, if it claimed the
   run (it counts it and its decision); sched: the request's kind, | 8 if nonmonotonic. */
#define LITE_PROF_SCHED(req) ((int)(req)->kind | ((req)->monotonic ? 0 : 8))
void lite_prof_loop_begin(const void *site, int sched, bool first, enum lite_prof_decision dec,
                          unsigned nthreads);
/* The same for a sections construct (sections.c); its end is lite_prof_loop_end's. */
void lite_prof_sections_begin(const void *site, bool first, unsigned nthreads);
/* The decision of a ring loop the member set up (first member), from its entry. */
enum lite_prof_decision lite_prof_ws_decision(const struct lite_ws *ws);
/* A member got a chunk / stole one (sched/steal.c). */
static inline void lite_prof_chunk(void)
{
  if (lite_prof_on())
    lite_prof_self()->chunks++;
}
static inline void lite_prof_steal(void)
{
  if (lite_prof_on())
    lite_prof_self()->steals++;
}
/* GOMP_loop_end and friends with the profile on: finish, the barrier if any, and the record. */
bool lite_prof_loop_end(struct lite_thread *thr, int barrier); /* 0 none, 1 plain, 2 cancel */

/* A barrier at site (barrier.c), a single (single.c), a critical section's wait (critical.c). */
void lite_prof_barrier(struct lite_thread *thr, const void *site);
/* Moves what the calling thread added up (barrier waits) to the rows: at a region's end, and at
   exit for the thread that writes the report. */
void lite_prof_flush_thread(void);
void lite_prof_single(const void *site, bool won);
void lite_prof_critical(_Atomic uint32_t *mutex, const void *site);

/* Futex sleeps and wake-ups (wait.c, os_linux.c's report). */
void lite_prof_park_begin(void);
void lite_prof_park_end(void);
void lite_prof_wakes(int n);

/* Tasks: for task.c (docs/architecture.md, "The profile", says where each call goes). site: the
   return address of GOMP_task (or GOMP_taskwait, GOMP_taskgroup_end), which task.c keeps in the
   task while the profile is on.
   - lite_prof_task_created(site): GOMP_task made a task there (deferred or not).
   - start = lite_prof_task_start(site) just before a task's body runs, and
     lite_prof_task_ran(site, other_thread, start) just after (other_thread: it runs on a thread
     other than the one that created it).
   - start = lite_prof_taskwait_begin() when the encountering task starts waiting in taskwait,
     lite_prof_taskwait_end(site, start) when it goes on; the same pair for taskgroup's end. */
void lite_prof_task_created_slow(const void *site);
uint64_t lite_prof_task_start_slow(const void *site);
void lite_prof_task_ran_slow(const void *site, bool other_thread, uint64_t start_ns);
uint64_t lite_prof_wait_begin_slow(enum lite_prof_kind kind);
void lite_prof_wait_end_slow(const void *site, enum lite_prof_kind kind, uint64_t start_ns);
static inline void lite_prof_task_created(const void *site)
{
  if (lite_prof_on())
    lite_prof_task_created_slow(site);
}
static inline uint64_t lite_prof_task_start(const void *site)
{
  return lite_prof_on() ? lite_prof_task_start_slow(site) : 0;
}
static inline void lite_prof_task_ran(const void *site, bool other_thread, uint64_t start_ns)
{
  if (lite_prof_on())
    lite_prof_task_ran_slow(site, other_thread, start_ns);
}
static inline uint64_t lite_prof_taskwait_begin(void)
{
  return lite_prof_on() ? lite_prof_wait_begin_slow(LITE_PROF_TASKWAIT) : 0;
}
static inline void lite_prof_taskwait_end(const void *site, uint64_t start_ns)
{
  if (lite_prof_on())
    lite_prof_wait_end_slow(site, LITE_PROF_TASKWAIT, start_ns);
}
static inline uint64_t lite_prof_taskgroup_begin(void)
{
  return lite_prof_on() ? lite_prof_wait_begin_slow(LITE_PROF_TASKGROUP) : 0;
}
static inline void lite_prof_taskgroup_end(const void *site, uint64_t start_ns)
{
  if (lite_prof_on())
    lite_prof_wait_end_slow(site, LITE_PROF_TASKGROUP, start_ns);
}

/* ---------------------------------------------------------------- the trace (trace.c) */

/* Event names (trace.c's names[] in this order). */
enum lite_trace_name {
  LITE_TR_PARALLEL, LITE_TR_LOOP, LITE_TR_BARRIER, LITE_TR_JOIN, LITE_TR_CRITICAL,
  LITE_TR_PARKED, LITE_TR_TASK, LITE_TR_TASKWAIT, LITE_TR_TASKGROUP, LITE_TR_LOCK,
  LITE_TR_NAMES
};
/* Opens / closes an interval on the calling thread's lane (B and E events). A B that does not
   fit is dropped with its E, so what is kept always nests; arg goes with the E. */
void lite_trace_begin(enum lite_trace_name name, const void *site, uint64_t ts);
void lite_trace_end(enum lite_trace_name name, uint64_t ts, uint64_t arg1, uint64_t arg2);

/* ---------------------------------------------------------------- life cycle */

/* env.c: OMPLITE_PROFILE's path (NULL: stderr) and OMPLITE_TRACE's; the trace buffer size. */
extern const char *lite_prof_path;
extern const char *lite_trace_path;
extern unsigned lite_trace_events;
#define LITE_TRACE_EVENTS_DEFAULT 65536u
/* At exit or unload (init.c): the report, the trace. Once per process. */
void lite_prof_finish(void);
void lite_prof_report(void);
void lite_trace_write(void);
/* In a fork() child (init.c): empty tables and buffers; the files get a .PID suffix. */
void lite_prof_fork_child(void);
void lite_prof_after_fork(void);  /* site_table.c's part */
void lite_trace_after_fork(void); /* trace.c's part */
/* The file path names: "%p" replaced by the pid, ".PID" appended in a forked child, into buf
   (len bytes). NULL if that does not fit: cut, the name could be another file's. */
const char *lite_prof_file_name(const char *path, char *buf, size_t len);

/* An output file (output.c says what is refused, and why). */
struct lite_prof_file {
  FILE *f;
  const char *var;  /* "OMPLITE_PROFILE" or "OMPLITE_TRACE", for the warnings */
  char name[4096];  /* the path as expanded: PATH_MAX, its NUL included */
};
/* Opens the file path names (lite_prof_file_name) for var's output, from its start. Returns
   false after one warning naming var, the file and why, ending with otherwise (what happens
   instead: "; the profile goes to stderr"). */
bool lite_prof_file_open(struct lite_prof_file *file, const char *var, const char *path,
                         const char *otherwise);
/* Closes it; one warning if any write or the close failed (then returns false). */
bool lite_prof_file_close(struct lite_prof_file *file);

/* Whether addr is in libomp-lite's own code (its executable segment, found once). */
bool lite_prof_in_runtime(const void *addr);

/* The name of an address: "function+0xoff (object)" (dladdr, else the object's symbol table),
   into buf; false where neither names the function: "0xoff (object)", the offset in the object. */
bool lite_prof_name(const void *addr, char *buf, size_t len);
/* symtab.c: addr's function from the symbol table of the file of its object, named object in buf;
   false if the object has none (stripped) or is not the file it was loaded from. At exit only:
   the files stay mapped until lite_prof_symtab_close. */
bool lite_prof_symtab_name(const void *addr, const char *object, char *buf, size_t len);
void lite_prof_symtab_close(void);

#endif
