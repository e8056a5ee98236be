/* The machine's topology through hwloc (2.x): the CPUs this process may use, each with the ids of
   the core, caches, NUMA node and package that hold it, and the distance order between CPUs.
   Loading the real machine never fails: without hwloc's answer it falls back to the kernel's
   affinity mask, one core per CPU; and where the kernel refuses to show masks (a seccomp
   filter), to the online CPUs, one core each, without asking hwloc at all: libhwloc 2.9 retries
   a refused sched_getaffinity for ever inside hwloc_topology_load (issues 50, 51). */
#include "affinity/affinity.h"
#include "os.h"

#include <hwloc.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- building the table */

/* The os -> entry table that makes lite_topo_find a lookup (nearest_order calls it n^2 times). */
static bool index_by_os(struct lite_topo *t)
{
  if (t->max_os < 0)
    t->max_os = 0;
  for (unsigned i = 0; i < t->ncpus; i++)
    if (t->cpus[i].os > t->max_os)
      t->max_os = t->cpus[i].os;
  t->slot_of_os = malloc(((size_t)t->max_os + 1) * sizeof *t->slot_of_os);
  if (t->slot_of_os == NULL)
    return false;
  for (int os = 0; os <= t->max_os; os++)
    t->slot_of_os[os] = -1;
  for (unsigned i = 0; i < t->ncpus; i++)
    t->slot_of_os[t->cpus[i].os] = (int)i;
  return true;
}

static bool in_list(int os, const int *list, unsigned n)
{
  for (unsigned i = 0; i < n; i++)
    if (list[i] == os)
      return true;
  return false;
}

/* ---------------------------------------------------------------- hwloc */

/* desc: NULL (this machine), a readable file (an XML export) or a synthetic description. */
static bool open_hwloc(hwloc_topology_t *topo, const char *desc)
{
  if (hwloc_topology_init(topo) != 0)
    return false;
  int err = 0;
  if (desc != NULL && access(desc, R_OK) == 0)
    err = hwloc_topology_set_xml(*topo, desc);
  else if (desc != NULL)
    err = hwloc_topology_set_synthetic(*topo, desc);
  if (err == 0)
    err = hwloc_topology_load(*topo);
  if (err != 0)
    hwloc_topology_destroy(*topo);
  return err == 0;
}

/* The CPUs the process may use: hwloc's allowed set (the cgroup cpuset), and the caller's list
   or, for this machine without one, the calling thread's affinity mask (the runtime passes the
   process's mask as it started: the initial thread may have been pinned since by the stock
   libgomp). NULL without memory. */
static hwloc_bitmap_t usable_cpus(hwloc_topology_t topo, bool this_machine, const int *allowed,
                                  unsigned nallowed)
{
  hwloc_bitmap_t set = hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(topo));
  hwloc_bitmap_t other = hwloc_bitmap_alloc();
  if (set == NULL || other == NULL) {
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(other);
    return NULL;
  }
  if (this_machine && allowed == NULL &&
      hwloc_get_cpubind(topo, other, HWLOC_CPUBIND_THREAD) == 0)
    hwloc_bitmap_and(set, set, other);
  if (allowed != NULL) {
    hwloc_bitmap_zero(other);
    for (unsigned i = 0; i < nallowed; i++)
      if (allowed[i] >= 0)
        hwloc_bitmap_set(other, (unsigned)allowed[i]);
    hwloc_bitmap_and(set, set, other);
  }
  hwloc_bitmap_free(other);
  return set;
}

static int ancestor_id(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_obj_t pu)
{
  hwloc_obj_t obj = hwloc_get_ancestor_obj_by_type(topo, type, pu);
  return obj != NULL ? (int)obj->logical_index : -1;
}

/* NUMA nodes hang off the tree as memory children in hwloc 2, so they are no ancestor of a PU:
   the node whose cpuset holds it is. */
static hwloc_obj_t numa_of(hwloc_topology_t topo, unsigned os)
{
  hwloc_obj_t node = NULL;
  while ((node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, node)) != NULL)
    if (node->cpuset != NULL && hwloc_bitmap_isset(node->cpuset, os))
      return node;
  return NULL;
}

static struct lite_topo_cpu describe_pu(hwloc_topology_t topo, hwloc_obj_t pu, int ncores)
{
  hwloc_obj_t node = numa_of(topo, pu->os_index);
  struct lite_topo_cpu c = {
      .os = (int)pu->os_index,
      .core = ancestor_id(topo, HWLOC_OBJ_CORE, pu),
      .l2 = ancestor_id(topo, HWLOC_OBJ_L2CACHE, pu),
      .l3 = ancestor_id(topo, HWLOC_OBJ_L3CACHE, pu),
      .numa = node != NULL ? (int)node->logical_index : -1,
      .numa_os = node != NULL ? (int)node->os_index : -1,
      .package = ancestor_id(topo, HWLOC_OBJ_PACKAGE, pu),
  };
  /* A PU without a Core object (some virtual machines) is a core of its own; numbering it after
     the real cores keeps core ids unique. */
  if (c.core < 0)
    c.core = ncores + (int)pu->logical_index;
  return c;
}

static bool load_hwloc(struct lite_topo *t, const char *desc, const int *allowed,
                       unsigned nallowed)
{
  hwloc_topology_t topo;
  if (!open_hwloc(&topo, desc))
    return false;
  bool ok = false;
  hwloc_bitmap_t usable = usable_cpus(topo, desc == NULL, allowed, nallowed);
  int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  t->cpus = npus > 0 ? calloc((size_t)npus, sizeof *t->cpus) : NULL;
  if (usable != NULL && t->cpus != NULL) {
    /* PUs by logical index: hwloc's depth-first order, nearby CPUs next to each other. */
    for (int i = 0; i < npus; i++) {
      hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
      if (pu != NULL && hwloc_bitmap_isset(usable, pu->os_index))
        t->cpus[t->ncpus++] = describe_pu(topo, pu, ncores > 0 ? ncores : 0);
    }
    t->max_os = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
    ok = true;
  }
  hwloc_bitmap_free(usable);
  hwloc_topology_destroy(topo);
  return ok;
}

/* ---------------------------------------------------------------- fallback without hwloc */

/* The kernel's affinity mask of the calling thread (or the caller's list), one core per CPU;
   every other id 0, and no NUMA node (numa_os -1). */
static bool load_from_mask(struct lite_topo *t, const int *allowed, unsigned nallowed)
{
  long conf = sysconf(_SC_NPROCESSORS_CONF);
  int ncpu_bits = conf > 1024 ? (int)conf : 1024;
  cpu_set_t *mask = CPU_ALLOC((size_t)ncpu_bits);
  size_t size = CPU_ALLOC_SIZE((size_t)ncpu_bits);
  if (mask == NULL)
    return false;
  bool have_mask = allowed == NULL && sched_getaffinity(0, size, mask) == 0;
  t->cpus = calloc((size_t)ncpu_bits, sizeof *t->cpus);
  if (t->cpus == NULL) {
    CPU_FREE(mask);
    return false;
  }
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  for (int os = 0; os < ncpu_bits; os++) {
    bool usable = have_mask ? CPU_ISSET_S((size_t)os, size, mask) : os < (online > 0 ? online : 1);
    if (usable && (allowed == NULL || in_list(os, allowed, nallowed)))
      t->cpus[t->ncpus++] = (struct lite_topo_cpu){.os = os, .core = os, .numa_os = -1};
  }
  t->max_os = conf > 0 ? (int)conf - 1 : 0;
  CPU_FREE(mask);
  return true;
}

/* ---------------------------------------------------------------- the interface */

bool lite_topo_load(struct lite_topo *t, const char *desc, const int *allowed, unsigned nallowed)
{
  memset(t, 0, sizeof *t);
  bool ok = !(desc == NULL && lite_os_affinity_error() != 0) &&
            load_hwloc(t, desc, allowed, nallowed);
  /* On this machine, hwloc failing (or disagreeing with the kernel about every CPU) must not
     leave the runtime without CPUs: the kernel's mask is always there. */
  if (desc == NULL && (!ok || (t->ncpus == 0 && allowed == NULL))) {
    lite_topo_free(t);
    ok = load_from_mask(t, allowed, nallowed);
  }
  if (ok)
    ok = index_by_os(t);
  if (!ok)
    lite_topo_free(t);
  return ok;
}

void lite_topo_free(struct lite_topo *t)
{
  free(t->cpus);
  free(t->slot_of_os);
  memset(t, 0, sizeof *t);
}

void lite_topo_restrict(struct lite_topo *t, bool (*keep)(int os, void *arg), void *arg)
{
  unsigned n = 0;
  for (unsigned i = 0; i < t->ncpus; i++)
    if (keep(t->cpus[i].os, arg))
      t->cpus[n++] = t->cpus[i];
  t->ncpus = n;
  /* max_os stays the machine's largest number: the table keeps its size, only entries go. */
  for (int os = 0; os <= t->max_os && t->slot_of_os != NULL; os++)
    t->slot_of_os[os] = -1;
  for (unsigned i = 0; i < n && t->slot_of_os != NULL; i++)
    t->slot_of_os[t->cpus[i].os] = (int)i;
}

const struct lite_topo_cpu *lite_topo_find(const struct lite_topo *t, int cpu)
{
  if (cpu < 0 || cpu > t->max_os || t->slot_of_os == NULL || t->slot_of_os[cpu] < 0)
    return NULL;
  return &t->cpus[t->slot_of_os[cpu]];
}

/* -1 is "no such object": two CPUs without an L3 do not share one. */
static bool share(int id_a, int id_b) { return id_a >= 0 && id_a == id_b; }

enum lite_distance lite_topo_distance(const struct lite_topo *t, int cpu_a, int cpu_b)
{
  const struct lite_topo_cpu *a = lite_topo_find(t, cpu_a), *b = lite_topo_find(t, cpu_b);
  if (a == NULL || b == NULL)
    return LITE_DIST_FAR;
  if (a->os == b->os)
    return LITE_DIST_SAME_CPU;
  if (share(a->core, b->core))
    return LITE_DIST_SAME_CORE;
  if (share(a->l2, b->l2))
    return LITE_DIST_SAME_L2;
  if (share(a->l3, b->l3))
    return LITE_DIST_SAME_L3;
  if (share(a->numa, b->numa))
    return LITE_DIST_SAME_NUMA;
  if (share(a->package, b->package))
    return LITE_DIST_SAME_PACKAGE;
  return LITE_DIST_FAR;
}

/* Nearest first; within a distance members go up from self, wrapping around. A count per
   distance, then the placing pass: 2 * n distance look-ups and no allocation (it runs for every
   member of a team; one pass per distance, 7 * n look-ups, was a fifth of a 1,000-thread
   team's time in a stealing loop). */
void lite_topo_nearest_order(const struct lite_topo *t, const int *cpus, unsigned n, unsigned self,
                             unsigned *order)
{
  unsigned at[LITE_DIST_FAR + 1] = {0};
  if (self >= n)
    return;
  for (unsigned step = 1; step < n; step++)
    at[lite_topo_distance(t, cpus[self], cpus[(self + step) % n])]++;
  for (unsigned d = 0, k = 0; d <= LITE_DIST_FAR; d++) {
    unsigned count = at[d];
    at[d] = k;
    k += count;
  }
  for (unsigned step = 1; step < n; step++) {
    unsigned m = (self + step) % n;
    order[at[lite_topo_distance(t, cpus[self], cpus[m])]++] = m;
  }
}
