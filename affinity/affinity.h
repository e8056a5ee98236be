/* affinity/: the machine's topology (hwloc), the place list (OMP_PLACES, GOMP_CPU_AFFINITY), the
   assignment of team members to places (OMP_PROC_BIND, proc_bind), the distance order between
   CPUs, the affinity display format, and NUMA memory placement (libnuma). Internal: hidden. */
#ifndef LITE_AFFINITY_H
#define LITE_AFFINITY_H

#include "abi.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------- topology.c */

/* One CPU (hwloc PU) the process may use, with the ids of the objects that hold it. Ids are
   numbers unique among objects of the same kind (hwloc logical indexes); -1: no such object (a
   machine without an L3 cache, say). */
struct lite_topo_cpu {
  int os;                           /* the operating system's CPU number */
  int core, l2, l3, numa, package;
};

/* The CPUs this process may use, in hwloc's logical order (nearby CPUs next to each other). */
struct lite_topo {
  unsigned ncpus;
  struct lite_topo_cpu *cpus;
  int max_os;                       /* the largest os number of the machine, mask or not */
  int *slot_of_os;                  /* [0 .. max_os]: the index in cpus of that os number, or -1 */
};

/* Reads a topology. desc NULL: this machine, restricted to the CPUs this process may use (its
   affinity mask and cgroup cpuset). Otherwise a synthetic description (hwloc syntax, such as
   "pack:2 numa:2 core:8 pu:2") or, if desc names a readable file, an XML export; allowed (a
   list of nallowed os numbers), if given, restricts it as a process mask would. Returns false
   (and leaves *t empty) if hwloc cannot load it. In a synthetic topology the os numbers are
   hwloc's: the logical order (0, 1, 2, ...) unless the description gives them, as in
   "core:4 pu:2(indexes=0,4,1,5,2,6,3,7)". For this machine it never fails: without hwloc it
   falls back to the kernel's affinity mask (core = os, every other id 0). A PU that hwloc puts
   in no Core object counts as a core of its own. */
bool lite_topo_load(struct lite_topo *t, const char *desc, const int *allowed, unsigned nallowed);
void lite_topo_free(struct lite_topo *t);
/* The entry of os CPU number cpu, or NULL if the process may not use it. */
const struct lite_topo_cpu *lite_topo_find(const struct lite_topo *t, int cpu);

/* How far apart two CPUs are: the innermost object they share. */
enum lite_distance {
  LITE_DIST_SAME_CPU,
  LITE_DIST_SAME_CORE,
  LITE_DIST_SAME_L2,
  LITE_DIST_SAME_L3,
  LITE_DIST_SAME_NUMA,
  LITE_DIST_SAME_PACKAGE,
  LITE_DIST_FAR,
};
enum lite_distance lite_topo_distance(const struct lite_topo *t, int cpu_a, int cpu_b);

/* The other members of a team in the order a member should look at them (for stealing work):
   order[0..n-2] gets every member but `self`, nearest first by lite_topo_distance of their CPUs
   (cpus[i]: member i's CPU, -1 if unknown: counted as far), ties broken by member number
   going up from self and wrapping around. */
void lite_topo_nearest_order(const struct lite_topo *t, const int *cpus, unsigned n, unsigned self,
                             unsigned *order);

/* ---------------------------------------------------------------- places.c */

/* A place: a set of CPUs (os numbers, ascending, no repeats). */
struct lite_place {
  unsigned ncpus;
  int *cpus;
};
struct lite_place_list {
  unsigned n;
  struct lite_place *places;
};

/* OMP_PLACES: an abstract name (threads, cores, ll_caches, numa_domains, sockets, with an
   optional count: cores(4)) or the explicit syntax of OpenMP 5.2 (places in braces, intervals
   {0:4}, {0:4}:8:4, exclusion with '!'). CPUs the topology does not hold (outside the process's
   mask) are taken out of their places, and places left empty are dropped: one warning if that
   happened. Returns false with *out empty on a syntax error (after one warning naming the
   variable and its value) or when no place is left (one warning: threads run unbound); value
   NULL: false, no warning. Abstract places come in hwloc's logical order; excluding a CPU or a
   place that is not there is an error, as in libgomp. See places.c for the finer choices. */
bool lite_places_parse(const char *value, const struct lite_topo *t, struct lite_place_list *out);
/* GOMP_CPU_AFFINITY: a list of CPUs and ranges ("0 3 1-2 4-15:2", separated by spaces or
   commas), one place per CPU, in the order given, as libgomp makes them. The same rules. */
bool lite_places_parse_gomp_cpu_affinity(const char *value, const struct lite_topo *t,
                                         struct lite_place_list *out);
/* The default place list when binding is asked for and no list is given: cores. */
bool lite_places_default(const struct lite_topo *t, struct lite_place_list *out);
void lite_places_free(struct lite_place_list *list);
/* Writes the list in OMP_DISPLAY_ENV's shape, libgomp's: places separated by commas, a run of two
   or more consecutive CPUs as first:count, as in "{0:2},{2:2}" or "{0,4},{1:2,5}". buf is
   NUL-terminated when size > 0 (truncated if need be); returns the length the whole text needs,
   as snprintf does. */
size_t lite_places_format(const struct lite_place_list *list, char *buf, size_t size);

/* ---------------------------------------------------------------- partition.c */

/* A place partition: places lo .. lo+len-1 of the place list. */
struct lite_partition {
  unsigned lo, len;
};

/* Where one member of a new team runs, and the partition its implicit task gets. */
struct lite_member_place {
  unsigned place;
  struct lite_partition partition;
};

/* The OpenMP 5.2 assignment (section 10.1.3) of a team of nthreads members to places, for the
   policy bind (primary/master, close, spread; true is close, as in libgomp), when the
   encountering thread runs on place `primary` (a place number, like out[].place: an index into
   the place list, part.lo <= primary < part.lo + part.len) of its partition `part`. out[k] is
   member k's, out[0] the primary thread's own. For T > P each place gets floor(T/P) members
   with consecutive member numbers, and the first T mod P places, in the order visited from the
   primary thread's place on, one more. spread with T <= P cuts the partition into T runs of
   consecutive places from its first place on (the first P mod T runs one place longer); the
   primary thread keeps its place and gets the run that holds it, the next members take the first
   place of the following runs, wrapping around. false (or a primary outside part) puts every
   member on the primary thread's place, as primary does. */
void lite_partition_assign(omp_proc_bind_t bind, struct lite_partition part, unsigned primary,
                           unsigned nthreads, struct lite_member_place *out);

/* ---------------------------------------------------------------- format.c */

/* The affinity display of OpenMP 5.2 section 10.2.5 (omp_display_affinity, omp_capture_affinity,
   OMP_DISPLAY_AFFINITY): expands format (NULL: affinity-format-var) for the calling thread into
   buf, truncated to size, NUL-terminated; returns the length the full text needs. */
size_t lite_affinity_capture(char *buf, size_t size, const char *format);

/* ---------------------------------------------------------------- memory.c (libnuma) */

/* See affinity/memory.c: the NUMA traits of the allocators. */

#endif
