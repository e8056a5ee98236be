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
  int numa_os;                      /* the kernel's number of its NUMA node (mbind's), or -1 */
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
/* Keeps only the CPUs for which keep(os, arg) is true, in the same order (KMP_HW_SUBSET). */
void lite_topo_restrict(struct lite_topo *t, bool (*keep)(int os, void *arg), void *arg);
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

/* ---------------------------------------------------------------- tree.c */

/* A team's barrier tree: member i (i > 0) reports its arrival to parent[i] and is released by
   it; member i's children are kids[first[i] .. first[i + 1]), ascending. parent[i] < i always. */
struct lite_tree {
  unsigned n;
  unsigned *parent;
  unsigned *first;
  unsigned *kids;
  unsigned depth;  /* the longest path from a member to member 0, in edges */
};
/* Builds the tree of a team of n members, member i running on os CPU cpus[i] (-1: unknown),
   grouped by t's packages, NUMA nodes, L3 caches and cores (t NULL: no grouping), with at most
   fanin children per member at each level (tree.c says how). Frees what *tree held; false
   (and an empty tree) without memory. */
bool lite_tree_build(struct lite_tree *tree, const struct lite_topo *t, const int *cpus,
                     unsigned n, unsigned fanin);
void lite_tree_free(struct lite_tree *tree);
/* The tree as OMPLITE_BARRIER_TREE shows it: "N members, depth D:" then "child>parent" for
   every member but 0, as in "4 members, depth 1: 1>0 2>0 3>0". Into buf (NUL-terminated when
   size > 0, truncated if need be); returns the length the whole text needs, as snprintf. */
size_t lite_tree_format(const struct lite_tree *tree, char *buf, size_t size);

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
/* The same, with the warnings naming variable name (KMP_AFFINITY's proclist, say). */
bool lite_places_parse_as(const char *name, const char *value, const struct lite_topo *t,
                          struct lite_place_list *out);
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

/* ---------------------------------------------------------------- kmp_env.c */

/* KMP_AFFINITY and KMP_HW_SUBSET, LLVM's and Intel's variables, translated into a place list and
   a binding policy (kmp_env.c says how, and what has no equivalent). */
enum lite_kmp_type {
  LITE_KMP_UNSET,                   /* modifiers only: no rival to OMP_PROC_BIND / OMP_PLACES */
  LITE_KMP_NONE,                    /* not bound */
  LITE_KMP_COMPACT,                 /* places in topology order, one per CPU; close */
  LITE_KMP_SCATTER,                 /* the same with the levels' significance reversed; close */
  LITE_KMP_BALANCED,                /* one place per unit of the granularity; spread */
  LITE_KMP_EXPLICIT,                /* the proclist's places; close */
  LITE_KMP_DISABLED,                /* not bound, KMP_HW_SUBSET ignored */
};
/* Granularity: the unit a thread may float in (LITE_KMP_GRAN_DEFAULT: core, thread for explicit). */
enum lite_kmp_gran {
  LITE_KMP_GRAN_DEFAULT,
  LITE_KMP_GRAN_THREAD,
  LITE_KMP_GRAN_CORE,
  LITE_KMP_GRAN_L2,
  LITE_KMP_GRAN_L3,
  LITE_KMP_GRAN_NUMA,
  LITE_KMP_GRAN_SOCKET,
};
struct lite_kmp_affinity {
  enum lite_kmp_type type;
  enum lite_kmp_gran gran;
  unsigned permute, offset;
  bool verbose, warnings;
  char *proclist;                   /* proclist=[...] rewritten in OMP_PLACES syntax; malloc'd */
};
/* Reads KMP_AFFINITY's value; one warning for each part that is malformed or has no
   equivalent (unless nowarnings says otherwise for the latter). Never fails: what cannot be read
   is left out (a value with no usable part leaves type UNSET). */
void lite_kmp_affinity_parse(const char *value, struct lite_kmp_affinity *out);
void lite_kmp_affinity_free(struct lite_kmp_affinity *a);
/* The place list a's type and granularity give on t (types that bind: compact, scatter,
   balanced, explicit; or balanced's list for UNSET with a granularity). false, with one warning,
   if none could be made. */
bool lite_kmp_places(const struct lite_kmp_affinity *a, const struct lite_topo *t,
                     struct lite_place_list *out);
/* KMP_HW_SUBSET: writes the os numbers of t's CPUs the value keeps into keep (room for
   t->ncpus), ascending, and returns their count; 0 (after one warning) if the value is ignored. */
unsigned lite_kmp_hw_subset(const char *value, const struct lite_topo *t, int *keep);

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

/* ---------------------------------------------------------------- bind.c */

/* Binding in force for the process: the place list, and the CPUs the process started with. */
struct lite_binding {
  bool on;                       /* threads are bound: there is a place list */
  struct lite_place_list places;
  int *process_cpus;             /* ascending */
  unsigned nprocess;
};
extern struct lite_binding lite_binding;

/* What decides a team's places: the leader's pool recomputes them only when it changes. */
struct lite_bind_key {
  omp_proc_bind_t bind;
  struct lite_partition partition;
  unsigned primary;
  unsigned nthreads;
};

/* At load, before the environment is read: records the CPUs the process started with, and
   returns how many. */
unsigned lite_bind_process_init(void);
/* At the first OpenMP call (and before anything reads the binding or copies the ICVs): decides
   once whether threads are bound and makes the place list. Binds no thread. After
   lite_init_once (the environment must have been read). */
void lite_bind_ready(void);
/* The topology of the process's CPUs, loaded on first use; NULL if hwloc cannot read it. */
const struct lite_topo *lite_bind_topology(void);

/* ---------------------------------------------------------------- format.c */

/* The affinity display of OpenMP 5.2 section 10.2.5 (omp_display_affinity, omp_capture_affinity,
   OMP_DISPLAY_AFFINITY): expands format (NULL or "": affinity-format-var) for the calling thread
   into buf, truncated to size, NUL-terminated (nothing written if size is 0); returns the length
   the full text needs, without the NUL. A malformed format ends the program with a message
   (exit status 1), as libgomp does; a width above LITE_AFFINITY_WIDTH_MAX is cut to it, with
   one warning a process. format.c's header comment lists the fields. */
size_t lite_affinity_capture(char *buf, size_t size, const char *format);
/* The widest a field may be (format.c says why this much). */
#define LITE_AFFINITY_WIDTH_MAX 16384
/* Prints the calling thread's line in affinity-format-var, and a newline, on stderr (one write):
   what OMP_DISPLAY_AFFINITY=true asks for each thread of a team whose affinity changed. */
void lite_affinity_display_self(void);
/* The CPUs set in bits (bit c of bits[c / 64], for c below ncpus) as %A prints them, libgomp's
   list of numbers and ranges: "0-3,8,10-11". Into buf as lite_affinity_capture writes; returns
   the length the full text needs. */
size_t lite_affinity_format_cpus(const uint64_t *bits, unsigned ncpus, char *buf, size_t size);
/* affinity-format-var, to read: the string returned stays as it is until
   lite_affinity_format_release(*held), whatever omp_set_affinity_format does meanwhile. */
struct lite_counted_format;
const char *lite_affinity_format_hold(struct lite_counted_format **held);
void lite_affinity_format_release(struct lite_counted_format *held);
/* In a child after fork(): the lock of affinity-format-var is free again. */
void lite_affinity_format_after_fork(void);

/* ---------------------------------------------------------------- home.c */

/* A member's own state (slot, thread state, task queue) on pages of its own, placed on the node
   of the member's CPU by the member itself (see home.c). lite_home_alloc: zeroed pages, no page
   touched yet; NULL without memory. lite_home_here: by the block's member, on the node of the
   CPU it runs on; nothing on a machine of one node. */
void *lite_home_alloc(size_t size);
void lite_home_free(void *p, size_t size);
void lite_home_here(void *p, size_t size);
/* lite_home_here for the calling thread's whole stack, with its static TLS at the top. */
void lite_home_stack_here(void);
/* The machine as lite_home_here sees it, replaceable by tests (a synthetic topology of several
   nodes on this one-node machine): the count of nodes (read once, until lite_home_forget), the
   kernel's node of a CPU (-1: unknown), and the request for a block's pages. */
struct lite_home_ops {
  unsigned (*nodes)(void);
  int (*node_of_cpu)(int cpu);
  void (*move)(void *start, size_t len, int node);
};
extern struct lite_home_ops lite_home_ops;
void lite_home_forget(void);

/* ---------------------------------------------------------------- home_debug.c */

/* Test-only, exported at OMPLITE_DEBUG_1 (tests/vm/placement.c): the calling member's homed
   blocks, in this order: its slot's words (arrival, done, go, bell), its slot's loop ranges,
   its thread state, its task queue (NULL and size 0 until the member made a task, and for
   member 0, whose queue is the pool's). Fills addrs[0..3] and sizes[0..3] and returns 4; 0
   (nothing written) outside a parallel region of two or more threads, or with max < 4. */
#define LITE_DEBUG_MEMBER_BLOCKS 4
LITE_EXPORT int omplite_debug_member_state(void **addrs, size_t *sizes, int max);

/* ---------------------------------------------------------------- memory.c (libnuma) */

/* The placement and pinning of allocators' blocks (OpenMP 5.2 section 6.2, the traits partition
   and pinned). Blocks that need either are mapped here (mmap: whole pages, placed with mbind,
   locked with mlock) instead of malloc'ed; the allocator keeps its header below the data. The
   functions marked pure read nothing of the machine (the unit tests call them with made-up
   numbers); the others read it once, on first use (libnuma, the page size). */

/* The partition trait, as placement acts on it. */
enum lite_mem_partition {
  LITE_MEM_ENVIRONMENT,             /* the system's policy: nothing done */
  LITE_MEM_NEAREST,                 /* the node of the allocating thread's CPU */
  LITE_MEM_BLOCKED,                 /* n parts of about equal whole pages, part i on node i */
  LITE_MEM_INTERLEAVED,             /* pages round robin over the nodes */
};

/* Most NUMA nodes placement knows: nodes numbered from this on are left to the system. */
#define LITE_MEM_MAX_NODES 1024

/* Whether an allocator with these traits maps its blocks: pinned always; a partition other than
   environment only where libnuma works and the process may use more than one node (on one node,
   or without libnuma, malloc'ed memory already is where the trait asks: on the nearest, only,
   node). Called by omp_init_allocator, once per allocator: omp_alloc never asks. */
bool lite_mem_mapped(enum lite_mem_partition partition, bool pinned);
/* The same decision for a process that may use nnodes nodes (0: libnuma unavailable). Pure. */
bool lite_mem_mapped_for(enum lite_mem_partition partition, bool pinned, unsigned nnodes);

/* The NUMA nodes the process may place memory on (its cpuset's mems), ascending: the count, and
   the node numbers in nodes[0..count-1] (up to max of them). 0 if libnuma is unavailable. */
unsigned lite_mem_nodes(int *nodes, unsigned max);

/* Pure layout of a mapped block: size bytes of data aligned to align (a power of two), with
   header bytes (at most a page) free just below the data, on pages of page bytes. page_data:
   the data starts on a page boundary (blocked placement: its parts are then whole pages).
   lite_mem_map_length: the bytes to map (whole pages), 0 if that overflows. lite_mem_data_at:
   where the data starts in a mapping at base (a multiple of page). */
size_t lite_mem_map_length(size_t size, size_t align, size_t header, size_t page, bool page_data);
uintptr_t lite_mem_data_at(uintptr_t base, size_t align, size_t header, size_t page,
                           bool page_data);

/* Pure: part i (0 <= i < nparts) of size bytes of page-aligned data blocked over nparts nodes,
   as data offsets [*lo, *hi). The data's pages are dealt as a static schedule deals iterations:
   each part gets npages / nparts consecutive pages and the first npages % nparts parts one more
   (the last page may be partial: the part holding it ends at size). A part is empty (*lo == *hi)
   when the data has fewer pages than there are nodes. */
void lite_mem_blocked_part(size_t size, size_t page, unsigned nparts, unsigned i, size_t *lo,
                           size_t *hi);

/* Pure: the range of a blocked mapping (len bytes, the data page-aligned at data_off, size
   bytes) that part i's node is asked for, as offsets from the mapping's start [*start, *end):
   part i's data pages, with the pages below the data (the header's) added to part 0 and the
   pages after it to the part that ends the data, so the non-empty ranges tile the mapping in
   order. Empty (*start == *end) where the part is. */
void lite_mem_blocked_range(size_t len, size_t data_off, size_t size, size_t page,
                            unsigned nparts, unsigned i, size_t *start, size_t *end);

/* A mapped block. */
struct lite_mem_block {
  void *base;                       /* the mapping */
  size_t len;                       /* its length: lite_mem_length's */
  void *data;                       /* the data: aligned, header bytes free below it */
};

/* The length lite_mem_map will map for this block (0: too large); the caller counts it against
   its pool before mapping. */
size_t lite_mem_length(size_t size, size_t align, size_t header,
                       enum lite_mem_partition partition);
/* Maps len (lite_mem_length's) bytes for the block, places them as partition says where the
   process has more than one node, and locks the pages of the header and data if pinned. The
   data reads as zeros. Placement is a hint: where mbind fails, the pages keep the system's
   placement and the block is still made. Returns 0, or the errno of the failed mmap (*locked
   false) or of the failed mlock (*locked true), with nothing left mapped: the allocator's
   fallback then decides. */
int lite_mem_map(struct lite_mem_block *b, size_t len, size_t size, size_t align, size_t header,
                 enum lite_mem_partition partition, bool pinned, bool *lock_failed);
/* Unmaps a block lite_mem_map made (its locks go with it). */
void lite_mem_unmap(void *base, size_t len);

#endif
