/* Each member's own state on its own NUMA node (issue 41, "memory on the right node").

   What a member polls or writes on every construct is its own: its slot (the arrival, done, go
   and bell words that the barrier, the join and the wake-up use), its thread state (its counts
   of worksharing constructs and singles, its current loop) and its task queue. On a machine of
   several nodes, a line homed on another node costs every miss a trip across the interconnect
   (130-400 ns against 40-100 ns, docs/architecture.md "Many cores"), and these lines miss at
   every barrier, since other members write them. So each of them gets pages of its own
   (lite_home_alloc), and its member asks for them on the node of the CPU it runs on
   (lite_home_here): a worker when it starts and again when a binding moves it to another
   place; a member's task queue when the member makes it.

   Why pages of their own: the kernel places memory a page at a time. The 192-byte slots came
   from the leader's malloc, 21 to a page beside the leader's own data, all on the leader's
   node, and a member's first write could not move them.
   Why mbind with MPOL_MF_MOVE, not first touch alone: a new slot is written by the leader before
   its worker runs (its arrival and done words must not look arrived at any epoch the pool will
   use), so its page is already the leader's when the worker starts; the move takes it over.
   The thread state and the task queue are first written by their member anyway, so there the
   call only states the policy.

   The worker's stack and its static TLS (issue 47): glibc maps a thread's stack and puts the
   thread's control block and static TLS (gcc's threadprivate variables of the program and of the
   libraries loaded at start) at its top, and the creating thread, the leader, writes them there
   before the worker runs: in a 16-member team bound spread over 4 nodes of a booted guest, every
   worker's stack top and TLS were on the leader's node, under libgomp and LLVM's runtime alike.
   So the worker, when it homes its state, also asks for its whole stack mapping
   (pthread_getattr_np: from above the guard page to the top, TLS included) with the same call:
   the pages already touched move, the ones it touches later are taken on its node. Why not our
   own stacks (mmap, mbind, pthread_attr_setstack before the thread runs): that would copy what
   glibc already does right (OMP_STACKSIZE, the guard page, its cache of stacks, their release
   when a thread is joined or after fork) for the few pages written before the worker's first
   instruction; moving them costs one mbind per worker start, on machines of several nodes only.

   The cost: a page or two per block (256 members: 3-6 MiB), an mmap per block at the pool's
   growth, and on a machine of several nodes one mbind per block when a worker starts or
   changes node. On one node (this machine) lite_home_here is one load: no system call, and
   nothing on the fork, barrier or loop paths changes. */
#include "internal.h"
#include "affinity/affinity.h"

#include <linux/mempolicy.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef __SANITIZE_ADDRESS__
/* LeakSanitizer looks for pointers in malloc's blocks, stacks and globals, not in our own
   mappings: the heap blocks these states point to (a thread's pools, its task cache) would read
   as leaked at exit (tests/asan: 8 bytes, the initial thread's pools). */
#include <sanitizer/lsan_interface.h>
#define home_lsan_root(base, len) __lsan_register_root_region(base, len)
#define home_lsan_unroot(base, len) __lsan_unregister_root_region(base, len)
#else
#define home_lsan_root(base, len) ((void)0)
#define home_lsan_unroot(base, len) ((void)0)
#endif

static size_t page_size(void)
{
  /* Root threads may ask at once (each its first team): relaxed loads and stores of one value. */
  static size_t page;
  size_t size = __atomic_load_n(&page, __ATOMIC_RELAXED);
  if (size == 0) {
    long p = sysconf(_SC_PAGESIZE);
    size = p > 0 ? (size_t)p : 4096;
    __atomic_store_n(&page, size, __ATOMIC_RELAXED);
  }
  return size;
}

static size_t round_to(size_t n, size_t unit) { return (n + unit - 1) & ~(unit - 1); }

/* Blocks start at different offsets in their pages (cache colouring). Put at the start of
   every page, the members' slots, thread states and queues would all fall in the same few sets
   of the L1 cache, which indexes by the offset in the page: a leader gathering 15 arrival
   words at offset 0 would want 15 ways of one set (Zen 5's L1D has 12). The first version did
   that; one run of syncbench `for` at 16 threads on 2 CPUs read 69.6 us (56.6..77.1) against
   54.0 (51.9..57.3) before it, on a machine loaded by other work, but 12 interleaved rounds
   later read the same for both (61.7 (55..77.5) against 62.2 (55..79.1); coloured 55.5
   (53.7..76.1)). Kept as argued, not shown: it costs a page of address space per block. Each
   block takes the next lines of a cursor that runs through a page; the mapping has a page
   more than the block needs, so the block may cross into it. */
static _Atomic size_t colour_cursor;

static size_t map_length(size_t size) { return round_to(size, page_size()) + page_size(); }

void *lite_home_alloc(size_t size)
{
  size_t lines = round_to(size, LITE_CACHE_LINE);
  size_t offset = atomic_fetch_add_explicit(&colour_cursor, lines, memory_order_relaxed) %
                  page_size() & ~(size_t)(LITE_CACHE_LINE - 1);
  char *base = mmap(NULL, map_length(size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  if (base == MAP_FAILED)
    return NULL;
  /* No transparent huge page here: with the default "always", these small mappings merge with
     their anonymous neighbours, among them the first worker's stack that glibc maps just below,
     and a 2 MiB page could then hold that stack's top (its TCB and TLS) and the states above it,
     on the node of whoever touched it first. A worker's mbind of its stack splits such a page
     but did not move it: in the booted 16-CPU guest member 1's stack top stayed on the leader's
     first node in 6 of about 130 runs (numa_maps: 486 pages present, exactly those from the top
     down to the 2 MiB boundary), none in 80 runs with this call. */
  (void)madvise(base, map_length(size), MADV_NOHUGEPAGE);
  home_lsan_root(base, map_length(size));
  return base + offset;
}

static uintptr_t page_of(const void *p) { return (uintptr_t)p & ~(uintptr_t)(page_size() - 1); }

void lite_home_free(void *p, size_t size)
{
  if (p != NULL) {
    home_lsan_unroot((void *)page_of(p), map_length(size));
    munmap((void *)page_of(p), map_length(size));
  }
}

/* ------------------------------------------------------------------ the default operations */

static unsigned machine_nodes(void)
{
  int nodes[2];
  return lite_mem_nodes(nodes, 2);
}

static int node_of_cpu(int cpu)
{
  const struct lite_topo *t = lite_bind_topology();
  const struct lite_topo_cpu *c = t != NULL ? lite_topo_find(t, cpu) : NULL;
  return c != NULL ? c->numa_os : -1;
}

static void move_to_node(void *start, size_t len, int node)
{
  unsigned long mask[LITE_MEM_MAX_NODES / (sizeof(unsigned long) * 8)] = {0};
  if (node < 0 || node >= LITE_MEM_MAX_NODES)
    return;
  mask[node / (sizeof(unsigned long) * 8)] = 1UL << (node % (sizeof(unsigned long) * 8));
  /* Preferred, not bound: a full node spills instead of failing. A failure (a kernel without
     NUMA, a seccomp filter, a cpuset without the node) leaves the pages where they are, and
     says nothing: the runtime's own state, which no one asked to place. */
  (void)lite_os_mbind(start, len, MPOL_PREFERRED, mask, LITE_MEM_MAX_NODES + 1, MPOL_MF_MOVE);
}

struct lite_home_ops lite_home_ops = {
    .nodes = machine_nodes,
    .node_of_cpu = node_of_cpu,
    .move = move_to_node,
};

/* The count of nodes, read once: 0 until then. */
static _Atomic unsigned nodes_seen;

void lite_home_here(void *p, size_t size)
{
  if (p == NULL)
    return;
  unsigned nodes = atomic_load_explicit(&nodes_seen, memory_order_relaxed);
  if (lite_unlikely(nodes == 0)) {
    nodes = lite_home_ops.nodes();
    nodes = nodes > 0 ? nodes : 1;
    atomic_store_explicit(&nodes_seen, nodes, memory_order_relaxed);
  }
  if (nodes < 2)
    return;
  int node = lite_home_ops.node_of_cpu(lite_os_cpu());
  if (node >= 0) {
    uintptr_t start = page_of(p);
    uintptr_t end = round_to((uintptr_t)p + size, page_size());
    lite_home_ops.move((void *)start, end - start, node);
  }
}

/* The calling thread's stack and static TLS (see above). */
void lite_home_stack_here(void)
{
  if (atomic_load_explicit(&nodes_seen, memory_order_relaxed) == 1)
    return;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return;
  void *low;
  size_t size;
  if (pthread_attr_getstack(&attr, &low, &size) == 0 && size > 0)
    lite_home_here(low, size);
  pthread_attr_destroy(&attr);
}

void lite_home_forget(void) { atomic_store_explicit(&nodes_seen, 0, memory_order_relaxed); }
