/* Process life cycle: initialisation at load, fork, and unload.

   - Load: the environment is read once, by the constructor or by the first call into the
     runtime, whichever comes first (another library's constructor may use OpenMP before ours).
   - fork(): the child has only the forking thread; the pools' workers did not come along. The
     child forgets every pool (their memory is left alone: other threads' state is not safe to
     touch) and builds new ones on its next parallel region.
   - Unload (dlclose): idle pools of root threads are shut down and their workers joined, so no
     thread runs code that is about to be unmapped. A pool that is running a region (exit called
     from inside one) is left alone.
   - exit(): only the exiting thread's own pools are shut down. Another pthread may be about to
     fork on its pool (between its pools[] read and pool->busy) while exit runs: shutting that
     pool down freed it under its leader (issue 51, "exit_user_threads": SIGSEGV once in 81
     runs). The process ends with exit_group, which stops those threads wherever they are, as it
     stops libgomp's (whose unload touches no pool). */
#include "internal.h"
#include "env.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

#include <stdlib.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lite_pool *registry;

void lite_registry_add(struct lite_pool *pool)
{
  pthread_mutex_lock(&registry_lock);
  pool->next = registry;
  registry = pool;
  pthread_mutex_unlock(&registry_lock);
}

void lite_registry_remove(struct lite_pool *pool)
{
  pthread_mutex_lock(&registry_lock);
  for (struct lite_pool **p = &registry; *p != NULL; p = &(*p)->next) {
    if (*p == pool) {
      *p = pool->next;
      break;
    }
  }
  pthread_mutex_unlock(&registry_lock);
}

static void before_fork(void) { pthread_mutex_lock(&registry_lock); }

static void after_fork_in_parent(void) { pthread_mutex_unlock(&registry_lock); }

static void after_fork_in_child(void)
{
  registry = NULL;
  pthread_mutex_init(&registry_lock, NULL);
  struct lite_thread *thr = lite_self_tls;
  atomic_store(&lite_threads_live, thr != NULL ? 1 : 0);
  atomic_store(&lite_threads_parked, 0);
  atomic_store(&lite_threads_waking, 0);
  lite_team_after_fork();
  lite_affinity_format_after_fork();
  if (lite_env.profile != 0)
    lite_prof_fork_child();
  if (thr != NULL) {
    thr->pools = NULL;
    thr->npools = 0;
  }
}

static void init(void)
{
  lite_env_init();
  lite_env.ompt = LITE_OMPT_UNDECIDED; /* until the first thread state (ompt/start.c) */
  lite_heap_init();
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

void lite_init_once(void) { pthread_once(&init_once, init); }

/* The stock libgomp's constructor may run after ours and pin the initial thread: check again
   before the first team. */
static _Atomic bool first_team_seen;
/* Set by an exit handler: the unload below is the process's exit, not a dlclose. Registered
   at the first team, after main started (glibc registers the dynamic linker's destructor
   pass, _dl_fini, before main: ours runs first, handlers running in reverse order). A dlclose
   runs the library's destructors before its exit handlers (__cxa_finalize comes last in
   .fini_array order), so exiting is still false there. Registered before main (a region in
   another library's constructor), it runs after the destructors: the unload then shuts every
   idle pool down, as a dlclose does. */
static _Atomic bool exiting;
static void note_exit(void) { atomic_store(&exiting, true); }

void lite_before_first_team(struct lite_thread *thr)
{
  if (!atomic_exchange(&first_team_seen, true)) {
    lite_bind_first_team(thr);
    atexit(note_exit);
  }
}

__attribute__((constructor)) static void lite_load(void) { lite_init_once(); }

__attribute__((destructor)) static void lite_unload(void)
{
  for (;;) {
    pthread_mutex_lock(&registry_lock);
    struct lite_pool *pool = registry;
    /* Workers' own (nested) pools are shut down by those workers as they leave; at exit, other
       root threads' pools are theirs (see the top). */
    struct lite_thread *self = lite_self_tls;
    bool all = !atomic_load(&exiting);
    while (pool != NULL &&
           (pool->busy || pool->leader->is_worker || (!all && pool->leader != self)))
      pool = pool->next;
    pthread_mutex_unlock(&registry_lock);
    if (pool == NULL)
      break;
    struct lite_thread *leader = pool->leader;
    for (unsigned level = 0; level < leader->npools; level++)
      if (leader->pools[level] == pool)
        leader->pools[level] = NULL;
    lite_pool_shutdown(pool);
  }
  /* OMPLITE_PROFILE and OMPLITE_TRACE: after the shutdown, so that the workers' last sleeps
     are closed; threads still running (a busy pool, other pthreads) may add to what is
     written, which the writers allow. */
  lite_prof_finish();
  /* A tool: the initial thread's end, then its finalize, once the workers have ended. */
  lite_ompt_finish();
  /* Last: the workers joined above ran the key's destructor as they left. */
  lite_thread_key_delete();
}
