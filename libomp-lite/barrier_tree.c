/* The tree barrier: for teams whose members span several L3 caches, NUMA nodes or packages, or
   are many, the barrier and the join gather arrivals up a tree that follows the machine and
   release down it (affinity/tree.c builds the shape), instead of the leader reading every
   member's arrival line and every member reading the leader's release word (barrier.c).

   A member waits for its children's arrival words (each on the child's own line), stores its
   own and waits for its go word, which its parent stores when it is released; then it releases
   its children the same way. Each member polls lines only its parent and its children write, so
   a transfer across a socket or an L3 happens once per group and barrier. The join gathers the
   same way (the done words); the next region's fork releases.

   Parking: a waiter past its spin budget sleeps on its own bell, which whoever changes what it
   waits for (a child's arrival, its parent's release, a ready task) bumps before a wake-up, only
   if it is parked. So waking a parked team costs each member one wake-up of its children, down
   the tree, not the leader a wake-up of everyone.

   When (lite_tree_for_team): never for teams of two (their barrier is one transfer each way
   already), nor with more members than CPUs (the flat barrier's last arriver releases there, and
   a tree would have waiters spin for members that wait for a CPU), nor with cancellation (a
   member of a cancelled region may leave without arriving, which only the flat barrier
   handles). Otherwise for teams that span more than one L3 cache, or have more than
   TREE_FLAT_MAX members: below that, the flat gather's reads of lines in one L3 overlap, and
   the tree's extra level costs a transfer. (No many-core machine was at hand to measure the
   crossover: 8 is the model's, docs/architecture.md "Many cores"; OMPLITE_BARRIER=flat and
   =tree choose either way.) */
#include "internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

/* Children per member at each level of the topology (affinity/tree.c). */
#define TREE_FANIN 4
/* Teams of at most this many members in one L3 cache keep the flat barrier. */
#define TREE_FLAT_MAX 8
/* How long an unbound team's tree holds: its members' CPUs (where each last waited) move. */
#define TREE_REFRESH_NS 100000000u

/* Whether member CPUs cpus[0..n) lie in more than one L3 cache (unknown CPUs count as apart). */
static bool spans_l3s(const struct lite_topo *t, const int *cpus, unsigned n)
{
  const struct lite_topo_cpu *first = t != NULL ? lite_topo_find(t, cpus[0]) : NULL;
  for (unsigned i = 1; i < n; i++) {
    const struct lite_topo_cpu *c = t != NULL ? lite_topo_find(t, cpus[i]) : NULL;
    if (first == NULL || c == NULL || c->l3 != first->l3)
      return true;
  }
  return false;
}

/* Builds the tree of members on CPUs cpus[0..n) into *tree; *wide: they span several L3s. */
static bool build_on(struct lite_tree *tree, bool *wide, const int *cpus, unsigned n)
{
  const struct lite_topo *t = lite_bind_topology();
  bool ok = lite_tree_build(tree, t, cpus, n, TREE_FANIN);
  *wide = ok && spans_l3s(t, cpus, n);
  return ok;
}

static bool build(struct lite_pool *pool, unsigned n)
{
  int *cpus = malloc(n * sizeof *cpus);
  if (cpus == NULL)
    return false;
  for (unsigned i = 0; i < n; i++) {
    if (lite_binding.on)
      cpus[i] = lite_binding.places.places[pool->assign[i].place].cpus[0];
    else
      cpus[i] = atomic_load_explicit(&pool->slots[i]->cpu, memory_order_relaxed);
  }
  bool ok = build_on(&pool->tree, &pool->tree_wide, cpus, n);
  free(cpus);
  return ok;
}

/* Whether a team of n may have a tree at all, and, built, whether it takes it. */
static bool tree_allowed(unsigned n)
{
  return lite_env.barrier == LITE_BARRIER_TREE || (n <= lite_env.ncpus && !lite_env.cancellation);
}
static bool tree_taken(unsigned n, bool wide)
{
  return lite_env.barrier == LITE_BARRIER_TREE || wide || n > TREE_FLAT_MAX;
}

const struct lite_tree *lite_tree_for_team(struct lite_pool *pool, unsigned n)
{
  if (!tree_allowed(n))
    return NULL;
  uint64_t now = 0;
  bool fresh = pool->tree_n == n &&
               (lite_binding.on ? pool->tree_bind_gen == pool->bind_gen
                                : (now = lite_now_ns()) < pool->tree_until_ns);
  if (!fresh) {
    pool->tree_n = 0;
    if (!build(pool, n))
      return NULL;
    pool->tree_n = n;
    pool->tree_bind_gen = pool->bind_gen;
    pool->tree_until_ns = (now != 0 ? now : lite_now_ns()) + TREE_REFRESH_NS;
  }
  return tree_taken(n, pool->tree_wide) ? &pool->tree : NULL;
}

/* The initial thread's first team of nthreads-var, as lite_bind_team_slow places it (bind-var,
   or true, from place 0 over every place) and lite_tree_pick then chooses, through the same
   builder: what the barrier of `#pragma omp parallel` at the program's start will use. */
size_t lite_tree_describe(char *buf, size_t size)
{
  unsigned n = lite_env.icv.nthreads < lite_env.icv.thread_limit ? lite_env.icv.nthreads
                                                                  : lite_env.icv.thread_limit;
  if (n <= 2 || lite_env.barrier == LITE_BARRIER_FLAT || !tree_allowed(n))
    return (size_t)snprintf(buf, size, "flat");
  if (!lite_binding.on)
    return (size_t)snprintf(buf, size, "unbound: made at each fork from the members' CPUs");
  omp_proc_bind_t bind = lite_env.icv.bind != omp_proc_bind_false ? lite_env.icv.bind
                                                                 : omp_proc_bind_true;
  struct lite_partition all = {0, lite_binding.places.n};
  struct lite_member_place *assign = malloc(n * sizeof *assign);
  int *cpus = malloc(n * sizeof *cpus);
  struct lite_tree tree = {0};
  bool wide = false, ok = assign != NULL && cpus != NULL;
  if (ok) {
    lite_partition_assign(bind, all, 0, n, assign);
    for (unsigned i = 0; i < n; i++)
      cpus[i] = lite_binding.places.places[assign[i].place].cpus[0];
    ok = build_on(&tree, &wide, cpus, n);
  }
  size_t len = !ok                    ? (size_t)snprintf(buf, size, "out of memory")
               : !tree_taken(n, wide) ? (size_t)snprintf(buf, size, "flat")
                                      : lite_tree_format(&tree, buf, size);
  lite_tree_free(&tree);
  free(cpus);
  free(assign);
  return len;
}

/* Wakes slot's member if it sleeps on its bell. The caller's store of what it waits for comes
   first (sequentially consistent), then this load of parked; the waiter counts itself parked,
   then looks again: one of the two sees the other. */
static void ring(struct lite_slot *slot)
{
  if (atomic_load(&slot->parked) != 0) {
    atomic_fetch_add(&slot->bell, 1);
    lite_futex_wake(&slot->bell, 1);
  }
}

static bool tasks_ready(struct lite_pool *pool)
{
  return atomic_load(&pool->team->tasks.ready) != 0;
}

/* Waits until *word holds value, running the team's ready tasks meanwhile (thr in the team),
   then parking on self's bell. */
static void wait_word(struct lite_thread *thr, struct lite_pool *pool, struct lite_slot *self,
                      _Atomic uint32_t *word, uint32_t value)
{
  if (atomic_load_explicit(word, memory_order_acquire) == value)
    return;
  struct lite_waiter w;
  lite_waiter_init(&w);
  while (atomic_load_explicit(word, memory_order_acquire) != value) {
    if (lite_tasks_help(thr, &pool->team->tasks)) {
      lite_waiter_init(&w);
      continue;
    }
    if (lite_waiter_poll(&w))
      continue;
    uint32_t bell = atomic_load(&self->bell);
    lite_park_begin(&self->parked);
    atomic_fetch_add(&pool->tree_sleepers, 1);
    if (atomic_load(word) != value && !tasks_ready(pool))
      lite_futex_wait(&self->bell, bell);
    atomic_fetch_sub(&pool->tree_sleepers, 1);
    lite_park_end(&self->parked);
    lite_waiter_init(&w);
  }
  lite_waiter_end(&w);
}

static void wait_for_children(struct lite_thread *thr, struct lite_pool *pool,
                              const struct lite_tree *tree, unsigned me, bool join,
                              uint32_t value)
{
  struct lite_slot *self = pool->slots[me];
  for (unsigned k = tree->first[me]; k < tree->first[me + 1]; k++) {
    struct lite_slot *kid = pool->slots[tree->kids[k]];
    wait_word(thr, pool, self, join ? &kid->done : &kid->arrive, value);
  }
}

void lite_tree_barrier(struct lite_thread *thr, struct lite_pool *pool, const struct lite_tree *tree,
                       uint32_t epoch)
{
  unsigned me = thr->id;
  struct lite_slot *self = pool->slots[me];
  lite_slot_note_cpu(self);
  wait_for_children(thr, pool, tree, me, false, epoch);
  atomic_store(&self->arrive, epoch);
  if (me != 0) {
    ring(pool->slots[tree->parent[me]]);
    wait_word(thr, pool, self, &self->go, epoch);
  }
  for (unsigned k = tree->first[me]; k < tree->first[me + 1]; k++) {
    struct lite_slot *kid = pool->slots[tree->kids[k]];
    atomic_store(&kid->go, epoch);
    ring(kid);
  }
  atomic_thread_fence(memory_order_acquire);
  /* Each child's arrival line and go line; its own arrival line (the parent read it last), the
     parent's parked word and its own go line (the parent wrote it). */
  lite_lines_touched(2 * (tree->first[me + 1] - tree->first[me]) + (me != 0 ? 3 : 0));
}

void lite_tree_join_wait(struct lite_thread *thr, struct lite_pool *pool,
                         const struct lite_tree *tree, unsigned id, uint32_t gen)
{
  if (id == 0)
    lite_slot_note_cpu(pool->slots[0]);
  wait_for_children(thr, pool, tree, id, true, gen);
  atomic_thread_fence(memory_order_acquire);
}

void lite_tree_join_arrive(struct lite_slot *slot, struct lite_slot *parent, uint32_t gen)
{
  lite_slot_note_cpu(slot);
  atomic_store(&slot->done, gen);
  ring(parent);
}

/* One member per ready task, as the flat barrier's futex wakes one: the scan starts past the
   member rung last, since a member rung stays counted as parked until it runs, and a scan from
   the start found the same one again and again (tasks.c, part steal: 64 members, one of them
   making tasks that each wait for all of them to start, hung with the others asleep). */
void lite_tree_poke(struct lite_pool *pool)
{
  unsigned n = atomic_load_explicit(&pool->nthreads, memory_order_relaxed);
  unsigned at = atomic_load_explicit(&pool->tree_poke_at, memory_order_relaxed);
  for (unsigned k = 0; k < n; k++) {
    unsigned i = (at + k) % n;
    struct lite_slot *slot = pool->slots[i];
    if (atomic_load(&slot->parked) != 0) {
      atomic_store_explicit(&pool->tree_poke_at, i + 1, memory_order_relaxed);
      atomic_fetch_add(&slot->bell, 1);
      lite_futex_wake(&slot->bell, 1);
      return;
    }
  }
}
