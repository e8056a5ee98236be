/* Thread binding at run time: the process's place list, the initial thread's place, the places
   of each team's members, and the nearest-first order of a team's members.

   - At the process's first OpenMP call (lite_bind_ready): binding is in force when bind-var
     asks for it (OMP_PROC_BIND, or OMP_PLACES / GOMP_CPU_AFFINITY alone) and a place list can
     be made inside the CPUs the process started with. The initial thread is bound to place 0
     when it first needs a place: its first team, or a question about its place (libgomp binds
     it at load, LLVM's runtime at its first team). Not at load: a preloaded runtime is loaded
     into shells, `timeout` and launcher scripts, and a mask set there is inherited by every
     program they start, which then ran on one CPU; such a process makes no OpenMP call, so it
     keeps its mask and never loads the topology (about 8 ms of hwloc per process). Nor at its
     first OpenMP call of any kind: a root thread that only sets an ICV keeps its mask (LLVM's
     root-threads-affinity test, whose main thread calls omp_set_num_threads and no more).
   - At a fork: the leader works out the members' places (partition.c) only when something that
     decides them changed (policy, its place and partition, team size), and numbers the result;
     a worker that sees a new number rebinds itself, and only if its place changed. Worker k of
     a pool therefore stays on the same place in every region with the same binding: the static
     blocks it touched stay in its caches and NUMA node.
   - Without binding none of this runs, and no mask is touched: a mask the user set (taskset,
     an MPI launcher, the program itself) stays as it is. */
#include "internal.h"
#include "affinity/affinity.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct lite_binding lite_binding;

/* The topology: loaded at init when binding is asked for, otherwise on first need (the
   nearest-first order). */
static struct lite_topo topo;
static bool topo_ok;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;

/* Says once that the kernel refuses the affinity calls (a seccomp filter); then the topology is
   flat (affinity/topology.c) and nothing is bound. */
static bool affinity_refused(void)
{
  static atomic_flag said = ATOMIC_FLAG_INIT;
  int err = lite_os_affinity_error();
  if (err != 0 && !atomic_flag_test_and_set(&said))
    lite_warn("the affinity system calls are refused (sched_getaffinity: %s); threads are not "
              "bound, and every CPU counts as a core of its own",
              strerror(err));
  return err != 0;
}

static void load_topology(void)
{
  (void)affinity_refused();
  topo_ok = lite_topo_load(&topo, NULL, lite_binding.process_cpus, lite_binding.nprocess);
}

const struct lite_topo *lite_bind_topology(void)
{
  pthread_once(&topo_once, load_topology);
  return topo_ok ? &topo : NULL;
}

static bool bind_requested(void)
{
  if (lite_env.icv.bind != omp_proc_bind_false)
    return true;
  for (unsigned i = 0; i < lite_env.bind_list_len; i++)
    if (lite_env.bind_list[i] != omp_proc_bind_false)
      return true;
  return false;
}

/* ------------------------------------------------------------------ KMP_AFFINITY, KMP_HW_SUBSET */

/* KMP_AFFINITY as read at the first OpenMP call (affinity/kmp_env.c); type UNSET when it is not
   set, names no type, or a standard variable overrode it. */
static struct lite_kmp_affinity kmp;
/* The type it asked for, none and disabled included, when no rival overrode it. */
static enum lite_kmp_type kmp_asked;

/* KMP_AFFINITY's type sets bind-var, unless OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY is
   set: those win, with one warning. LLVM's runtime does the reverse (its KMP_AFFINITY, when it
   names a type, overrides all three); libomp-lite keeps the standard variables' libgomp meaning,
   since a gcc-built program's environment may hold a KMP_AFFINITY meant for another runtime
   (Intel's compiler modules set one). Its modifiers (verbose, granularity) still apply. */
static void kmp_decide(void)
{
  lite_kmp_affinity_parse(lite_env.kmp_affinity, &kmp);
  if (kmp.type == LITE_KMP_UNSET)
    return;
  const char *rival = lite_env.bind_list_len > 0  ? "OMP_PROC_BIND"
                      : lite_env.places != NULL   ? "OMP_PLACES"
                      : lite_env.cpu_affinity != NULL ? "GOMP_CPU_AFFINITY"
                                                      : NULL;
  if (rival != NULL) {
    lite_warn("KMP_AFFINITY='%.200s' names a type, and %s is set: %s decides the binding "
              "(the standard variables win in libomp-lite)",
              lite_env.kmp_affinity, rival, rival);
    kmp.type = LITE_KMP_UNSET;
    return;
  }
  kmp_asked = kmp.type;
  switch (kmp.type) {
  case LITE_KMP_COMPACT:
  case LITE_KMP_SCATTER:
  case LITE_KMP_EXPLICIT: lite_env.icv.bind = omp_proc_bind_close; break;
  case LITE_KMP_BALANCED: lite_env.icv.bind = omp_proc_bind_spread; break;
  default: lite_env.icv.bind = omp_proc_bind_false; kmp.type = LITE_KMP_UNSET; break;
  }
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Whether os is in the ascending list of struct cpu_list. */
struct cpu_list {
  const int *cpus;
  unsigned n;
};
static bool listed(int os, void *arg)
{
  const struct cpu_list *l = arg;
  return bsearch(&os, l->cpus, l->n, sizeof *l->cpus, cmp_int) != NULL;
}

/* KMP_HW_SUBSET: the CPUs it keeps become the process's CPUs, the default team follows their
   count, and threads are bound over them (their cores, unless KMP_AFFINITY or OMP_PLACES says
   otherwise) unless a variable says not to bind: libomp-lite confines threads only through
   places. */
static void apply_hw_subset(void)
{
  const char *value = lite_env.kmp_hw_subset;
  if (value == NULL)
    return;
  if (kmp_asked == LITE_KMP_DISABLED) {
    lite_warn("KMP_HW_SUBSET='%.200s' is ignored: KMP_AFFINITY=disabled", value);
    return;
  }
  const struct lite_topo *t = lite_bind_topology();
  if (t == NULL || affinity_refused() || t->ncpus == 0)
    return;
  int *keep = malloc(t->ncpus * sizeof *keep);
  unsigned n = keep != NULL ? lite_kmp_hw_subset(value, t, keep) : 0;
  if (n == 0) {
    free(keep);
    return;
  }
  struct cpu_list kept = {keep, n};
  lite_topo_restrict(&topo, listed, &kept);
  free(lite_binding.process_cpus);
  lite_binding.process_cpus = keep;
  lite_binding.nprocess = n;
  if (n < lite_env.ncpus)
    lite_env.ncpus = n;
  if (lite_env.nthreads_list_len == 0)
    lite_env.icv.nthreads = lite_env.ncpus;
  if (lite_env.icv.bind == omp_proc_bind_false && lite_env.bind_list_len == 0 &&
      kmp_asked != LITE_KMP_NONE)
    lite_env.icv.bind = omp_proc_bind_true;
}

/* KMP_AFFINITY=verbose: what came of it, one line on stderr. */
static void kmp_verbose(void)
{
  static const char *const names[] = {"false", "true", "primary", "close", "spread"};
  size_t len = lite_binding.on ? lite_places_format(&lite_binding.places, NULL, 0) : 0;
  char *text = malloc(len + 256);
  if (text == NULL)
    return;
  int n = snprintf(text, 256, "libomp-lite: KMP_AFFINITY: %u CPU%s, ", lite_binding.nprocess,
               lite_binding.nprocess == 1 ? "" : "s");
  if (!lite_binding.on) {
    strcpy(text + n, "threads are not bound\n");
  } else {
    n += snprintf(text + n, 64, "bind %s, places ", names[lite_env.icv.bind % 5]);
    lite_places_format(&lite_binding.places, text + n, len + 1);
    strcat(text, "\n");
  }
  fputs(text, stderr);
  free(text);
}

/* The place list of the environment: OMP_PLACES, else GOMP_CPU_AFFINITY, else cores. An invalid
   list (already warned about) counts as unset when OMP_PROC_BIND asked for binding, and turns
   binding off when the list alone asked for it, as in libgomp. */
static bool make_places(const struct lite_topo *t, struct lite_place_list *places)
{
  const struct lite_env *env = &lite_env;
  if (kmp.type != LITE_KMP_UNSET) /* a binding type of KMP_AFFINITY that no rival overrode */
    return lite_kmp_places(&kmp, t, places);
  if (env->places != NULL && lite_places_parse(env->places, t, places))
    return true;
  if (env->places == NULL && env->cpu_affinity != NULL &&
      lite_places_parse_gomp_cpu_affinity(env->cpu_affinity, t, places))
    return true;
  if (env->bind_list_len == 0 && (env->places != NULL || env->cpu_affinity != NULL))
    return false;
  if (kmp.gran != LITE_KMP_GRAN_DEFAULT) { /* KMP_AFFINITY=granularity=... alone: its units */
    struct lite_kmp_affinity units = {.type = LITE_KMP_BALANCED, .gran = kmp.gran};
    return lite_kmp_places(&units, t, places);
  }
  return lite_places_default(t, places);
}

static void bind_to_place(int tid, unsigned place)
{
  static atomic_flag said = ATOMIC_FLAG_INIT;
  const struct lite_place *p = &lite_binding.places.places[place];
  /* Refused (a seccomp filter on sched_setaffinity alone, a cpuset changed under us): the
     thread runs where it is; its place number still says where the binding meant it to be. */
  if (!lite_os_bind_thread(tid, p->cpus, p->ncpus) && !atomic_flag_test_and_set(&said))
    lite_warn("a thread could not be bound to its place (sched_setaffinity: %s); threads that "
              "cannot be bound run unbound",
              strerror(errno));
}

unsigned lite_bind_process_init(void)
{
  unsigned cap = lite_os_max_cpus();
  lite_binding.process_cpus = malloc(cap * sizeof *lite_binding.process_cpus);
  if (lite_binding.process_cpus != NULL)
    lite_binding.nprocess = lite_os_process_cpus(lite_binding.process_cpus, cap);
  return lite_binding.nprocess > 0 ? lite_binding.nprocess : lite_os_affinity_cpus();
}

static void bind_places(void)
{
  if (!bind_requested())
    return;
  if (affinity_refused()) {
    if (lite_env.bind_list_len == 0)
      lite_env.icv.bind = omp_proc_bind_false;
    return;
  }
  if (lite_binding.nprocess == 0)
    return;
  const struct lite_topo *t = lite_bind_topology();
  if (t == NULL) {
    lite_warn("the machine's topology could not be read (hwloc); threads are not bound");
  } else if (make_places(t, &lite_binding.places)) {
    lite_binding.on = true;
    return;
  }
  if (lite_env.bind_list_len == 0)
    lite_env.icv.bind = omp_proc_bind_false;
}

static void bind_init(void)
{
  kmp_decide();
  apply_hw_subset();
  bind_places();
  if (kmp.verbose)
    kmp_verbose();
}

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;

void lite_bind_ready(void) { pthread_once(&bind_once, bind_init); }

/* The stock libgomp's constructor may have run after ours and pinned the initial thread to its
   own first place: put it where libomp-lite's binding says (or back on the process's CPUs). */
void lite_bind_first_team(struct lite_thread *thr)
{
  if (!lite_os_stock_pinned_self())
    return;
  if (lite_binding.on)
    bind_to_place(0, thr->place >= 0 ? (unsigned)thr->place : 0);
  else
    lite_os_bind_thread(0, lite_binding.process_cpus, lite_binding.nprocess);
}

/* Whether the sorted lists a[0..n) and place p hold the same CPUs. */
static bool same_cpus(const int *a, unsigned n, const struct lite_place *p)
{
  return n == p->ncpus && memcmp(a, p->cpus, n * sizeof *a) == 0;
}

void lite_bind_thread_init(struct lite_thread *thr)
{
  thr->place = -1;
  thr->partition = (struct lite_partition){0, 0};
  if (!lite_binding.on)
    return;
  thr->partition.len = lite_binding.places.n;
  if (lite_os_gettid() == (int)getpid()) {
    thr->bind_pending = true;
    return;
  }
  /* A thread bound to exactly one place (a pthread the bound initial thread started inherits
     its mask) is on it. */
  unsigned cap = lite_os_max_cpus();
  int *cpus = malloc(cap * sizeof *cpus);
  unsigned n = cpus != NULL ? lite_os_thread_cpus(0, cpus, cap) : 0;
  for (unsigned p = 0; p < lite_binding.places.n && n > 0; p++) {
    if (same_cpus(cpus, n, &lite_binding.places.places[p])) {
      thr->place = (int)p;
      break;
    }
  }
  free(cpus);
}

void lite_bind_initial_slow(struct lite_thread *thr)
{
  thr->bind_pending = false;
  if (!lite_binding.on)
    return;
  bind_to_place(0, 0);
  thr->place = 0;
}

/* A thread that was never bound (a user's pthread) starts a team: it takes the place of its
   partition that holds the CPU it runs on (else the partition's first) and is bound there. */
static void place_primary(struct lite_thread *thr)
{
  int cpu = lite_os_cpu();
  unsigned chosen = thr->partition.lo;
  for (unsigned i = 0; i < thr->partition.len; i++) {
    unsigned p = (thr->partition.lo + i) % lite_binding.places.n;
    const struct lite_place *place = &lite_binding.places.places[p];
    for (unsigned c = 0; c < place->ncpus; c++)
      if (place->cpus[c] == cpu) {
        chosen = p;
        i = thr->partition.len;
        break;
      }
  }
  thr->place = (int)chosen;
  bind_to_place(0, chosen);
}

void lite_bind_team_slow(struct lite_thread *thr, struct lite_pool *pool, unsigned n,
                         unsigned flags)
{
  /* gcc passes a proc_bind clause in the low bits of flags; without one, bind-var decides. */
  omp_proc_bind_t bind = (omp_proc_bind_t)(flags & 7);
  if (bind == omp_proc_bind_false)
    bind = thr->icv.bind != omp_proc_bind_false ? thr->icv.bind : omp_proc_bind_true;
  lite_bind_initial(thr);
  if (thr->place < 0)
    place_primary(thr);
  struct lite_bind_key key = {bind, thr->partition, (unsigned)thr->place, n};
  if (pool->bind_gen == 0 || memcmp(&key, &pool->bind_key, sizeof key) != 0) {
    if (n > pool->assign_cap) {
      struct lite_member_place *assign = realloc(pool->assign, n * sizeof *assign);
      if (assign == NULL)
        lite_fatal("out of memory placing a team of %u threads", n);
      pool->assign = assign;
      pool->assign_cap = n;
    }
    lite_partition_assign(bind, thr->partition, (unsigned)thr->place, n, pool->assign);
    pool->bind_key = key;
    /* Workers compare it with the one they last applied; 0 means never bound. */
    pool->bind_gen = pool->bind_gen + 1 != 0 ? pool->bind_gen + 1 : 1;
  }
}

void lite_bind_member_slow(struct lite_thread *thr, const struct lite_pool *pool, unsigned id)
{
  const struct lite_member_place *mine = &pool->assign[id];
  if (thr->place != (int)mine->place) {
    bind_to_place(0, mine->place);
    thr->place = (int)mine->place;
    if (id != 0) /* the leader's own state is where it runs already */
      lite_team_member_home(pool, id, thr);
  }
  thr->partition = mine->partition;
  thr->bind_seen = pool->bind_gen;
}

/* ------------------------------------------------------------------ OMP_DISPLAY_AFFINITY */

/* A member prints its line when a region starts and the line differs from the one it printed
   last (a new place, team size or nesting level), as libgomp does. */
void lite_bind_display(struct lite_thread *thr)
{
  char line[512];
  lite_affinity_capture(line, sizeof line, NULL);
  if (thr->shown != NULL && strcmp(thr->shown, line) == 0)
    return;
  free(thr->shown);
  thr->shown = strdup(line);
  lite_affinity_display_self();
}

/* ------------------------------------------------------------------ nearest first */

/* How long an unbound team's order holds: its members' CPUs (where each last waited) move. */
#define NEAR_REFRESH_NS 100000000u
/* Unbound teams of more than this many members per CPU take no order (below). */
#define NEAR_MAX_SHARE 4

const unsigned *lite_bind_nearest(struct lite_thread *thr, const struct lite_pool *pool,
                                  unsigned n)
{
  if (n <= 2)
    return NULL; /* one other member: no order to choose */
  /* An unbound team many times the CPUs: where each member last waited changes with every
     time slice, and most members share each CPU; the order would say nothing and cost the
     square of the team to make. */
  if (!lite_binding.on && n > NEAR_MAX_SHARE * lite_env.ncpus)
    return NULL;
  uint64_t now = 0;
  bool same_team = thr->near_pool == pool && thr->near_n == n;
  if (same_team && lite_binding.on && thr->near_gen == pool->bind_gen)
    return thr->near;
  if (same_team && !lite_binding.on && (now = lite_now_ns()) < thr->near_until)
    return thr->near;
  const struct lite_topo *t = lite_bind_topology();
  if (t == NULL)
    return NULL;
  unsigned *order = realloc(thr->near, n * sizeof *order);
  int *cpus = malloc(n * sizeof *cpus);
  if (order == NULL || cpus == NULL) {
    free(cpus);
    thr->near = order;
    thr->near_pool = NULL;
    return NULL;
  }
  for (unsigned i = 0; i < n; i++) {
    if (lite_binding.on) {
      const struct lite_place *p = &lite_binding.places.places[pool->assign[i].place];
      cpus[i] = p->cpus[0];
    } else {
      cpus[i] = atomic_load_explicit(&pool->slots[i]->cpu, memory_order_relaxed);
    }
  }
  lite_topo_nearest_order(t, cpus, n, thr->id, order);
  free(cpus);
  thr->near = order;
  thr->near_pool = pool;
  thr->near_n = n;
  thr->near_gen = pool->bind_gen;
  thr->near_until = (now != 0 ? now : lite_now_ns()) + NEAR_REFRESH_NS;
  return order;
}
