/* The placement and pinning of allocators' blocks (OpenMP 5.2 section 6.2: the traits partition
   and pinned), with the kernel's NUMA calls (libomp-lite/os_linux.c). allocator.c asks
   lite_mem_mapped once per allocator; blocks of the allocators that need it are mapped here,
   and everything else stays malloc'ed.

   Why mapped: mbind and mlock act on whole pages. Two malloc'ed blocks can share a page, and a
   lock does not nest (munlock of one block would unlock its neighbour), so a placed or pinned
   block gets pages of its own, from mmap, and goes back with munmap. The price is a page at
   least per block and a few system calls per allocation: these traits suit buffers, not small
   objects (which is what programs ask them for).

   What the partition values do where the process may use memory on n > 1 nodes (its cpuset's
   mems, read once):
   - nearest: MPOL_PREFERRED on the node of the CPU the allocating thread runs on at the call
     (getcpu). Preferred, not bound: the trait says where memory should be, and a full node
     should spill rather than fail the allocation.
   - blocked: the data's pages dealt into n parts as equal as whole pages allow, part i
     preferred on the i-th allowed node (ascending). The data then starts on a page of its own
     (the header, below it, takes the page before it, with part 0), so the parts are exact.
   - interleaved: MPOL_INTERLEAVE over the allowed nodes (page by page, round robin).
   - environment: nothing; the system's policy (first touch, or numactl's).
   On one node, or where the kernel refuses the NUMA calls (a kernel without NUMA, a seccomp
   filter: one warning when a partition is asked for), every value is already satisfied by
   ordinary memory (it is on the nearest node, the only one) and nothing is done at all: the
   allocator does not even map its blocks unless they are pinned. A failed mbind is not a failed
   allocation either: the partition places memory, it does not promise it (the block keeps the
   system's placement; a refused one is said once). Pinning is a promise: when mlock fails (RLIMIT_MEMLOCK, no
   CAP_IPC_LOCK), the allocation fails and the allocator's fallback trait decides.

   Memory spaces: each one is all the nodes above. The host has ordinary DRAM only as far as
   this runtime can tell (the kernel does not say which node, if any, is high-bandwidth memory or
   large-capacity memory), so omp_default_mem_space, omp_large_cap_mem_space,
   omp_const_mem_space and omp_low_lat_mem_space all mean it (the nearest node already is the
   lowest-latency memory a thread has, and the default policy puts first-touched pages there);
   omp_high_bw_mem_space is refused by omp_init_allocator, as libgomp 12 does without memkind,
   so that a program can tell. */
#include "internal.h"
#include "affinity/affinity.h"

#include <errno.h>
#include <limits.h>
#include <linux/mempolicy.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WORD_BITS (sizeof(unsigned long) * CHAR_BIT)
#define MASK_WORDS (LITE_MEM_MAX_NODES / WORD_BITS)
/* mbind and get_mempolicy take the mask's bit count plus one (the kernel drops one). */
#define MASK_MAXNODE (LITE_MEM_MAX_NODES + 1)

/* The machine as placement sees it, read once (the first allocator with a partition or pinned
   trait reads it; a program that never makes one never asks the kernel). */
static struct {
  size_t page;
  unsigned nnodes;                  /* nodes the process may use; 0: NUMA calls refused */
  int refused;                      /* the errno of get_mempolicy's refusal, or 0 */
  int nodes[LITE_MEM_MAX_NODES];    /* their numbers, ascending */
  unsigned long allowed[MASK_WORDS];/* the same as a mask: the interleave set */
} machine;
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;

static void read_machine(void)
{
  long page = sysconf(_SC_PAGESIZE);
  machine.page = page > 0 ? (size_t)page : 4096;
  /* The cpuset's mems. Refused: no NUMA, said once if a partition is asked for. */
  machine.refused = lite_os_mems_allowed(machine.allowed, MASK_MAXNODE);
  if (machine.refused != 0) {
    memset(machine.allowed, 0, sizeof machine.allowed);
    return;
  }
  for (unsigned node = 0; node < LITE_MEM_MAX_NODES; node++)
    if (machine.allowed[node / WORD_BITS] >> (node % WORD_BITS) & 1)
      machine.nodes[machine.nnodes++] = (int)node;
}

static void read_machine_once(void) { pthread_once(&machine_once, read_machine); }

/* One warning for the process when the kernel refuses a placement the program asked for. */
static void say_refused(const char *call, int err)
{
  static atomic_flag said = ATOMIC_FLAG_INIT;
  if (!atomic_flag_test_and_set(&said))
    lite_warn("NUMA memory placement is refused (%s: %s); allocators' memory is not placed",
              call, strerror(err));
}

/* ------------------------------------------------------------------------------- decisions */

bool lite_mem_mapped_for(enum lite_mem_partition partition, bool pinned, unsigned nnodes)
{
  return pinned || (partition != LITE_MEM_ENVIRONMENT && nnodes > 1);
}

bool lite_mem_mapped(enum lite_mem_partition partition, bool pinned)
{
  if (pinned)
    return true;
  if (partition == LITE_MEM_ENVIRONMENT)
    return false;
  read_machine_once();
  if (machine.refused != 0)
    say_refused("get_mempolicy", machine.refused);
  return lite_mem_mapped_for(partition, pinned, machine.nnodes);
}

unsigned lite_mem_nodes(int *nodes, unsigned max)
{
  read_machine_once();
  for (unsigned i = 0; i < machine.nnodes && i < max; i++)
    nodes[i] = machine.nodes[i];
  return machine.nnodes;
}

/* The alignment the data gets: blocked placement starts it on a page. */
static size_t data_align(size_t align, size_t page, bool page_data)
{
  return page_data && align < page ? page : align;
}

size_t lite_mem_map_length(size_t size, size_t align, size_t header, size_t page, bool page_data)
{
  size_t a = data_align(align, page, page_data);
  /* The most bytes before the data: a mapping starts on a page, so alignments up to a page come
     exactly; a larger one may cost up to a - page more. */
  size_t lead = a <= page ? (header + a - 1) & ~(a - 1)
                          : ((header + page - 1) & ~(page - 1)) + (a - page);
  size_t len;
  if (__builtin_add_overflow(lead, size, &len) || __builtin_add_overflow(len, page - 1, &len))
    return 0;
  return len & ~(page - 1);
}

uintptr_t lite_mem_data_at(uintptr_t base, size_t align, size_t header, size_t page,
                           bool page_data)
{
  size_t a = data_align(align, page, page_data);
  return (base + header + a - 1) & ~(uintptr_t)(a - 1);
}

void lite_mem_blocked_part(size_t size, size_t page, unsigned nparts, unsigned i, size_t *lo,
                           size_t *hi)
{
  size_t npages = size / page + (size % page != 0);
  size_t q = npages / nparts, r = npages % nparts;
  size_t first = i * q + (i < r ? i : r);
  size_t end = first + q + (i < r);
  *lo = first * page < size ? first * page : size;
  *hi = end * page < size ? end * page : size;
}

void lite_mem_blocked_range(size_t len, size_t data_off, size_t size, size_t page,
                            unsigned nparts, unsigned i, size_t *start, size_t *end)
{
  size_t lo, hi;
  lite_mem_blocked_part(size, page, nparts, i, &lo, &hi);
  if (lo == hi) {
    *start = *end = 0;
    return;
  }
  *start = i == 0 ? 0 : data_off + lo;
  *end = hi == size ? len : data_off + hi;
}

/* ---------------------------------------------------------------------------------- blocks */

static void prefer(void *start, size_t len, unsigned node)
{
  unsigned long mask[MASK_WORDS] = {0};
  mask[node / WORD_BITS] = 1UL << (node % WORD_BITS);
  /* A hint: on failure the pages keep the system's placement. */
  int err = lite_os_mbind(start, len, MPOL_PREFERRED, mask, MASK_MAXNODE, 0);
  if (err != 0)
    say_refused("mbind", err);
}

/* Sets the placement policy of a fresh mapping (no page is there yet: each will be allocated
   where the policy says when first touched, or by mlock). */
static void place(char *base, size_t len, char *data, size_t size,
                  enum lite_mem_partition partition)
{
  switch (partition) {
  case LITE_MEM_NEAREST: {
    unsigned cpu, node;
    if (lite_os_cpu_node(&cpu, &node) == 0 && node < LITE_MEM_MAX_NODES &&
        (machine.allowed[node / WORD_BITS] >> (node % WORD_BITS) & 1))
      prefer(base, len, node);
    break;
  }
  case LITE_MEM_BLOCKED:
    for (unsigned i = 0; i < machine.nnodes; i++) {
      size_t start, end;
      lite_mem_blocked_range(len, (size_t)(data - base), size, machine.page, machine.nnodes, i,
                             &start, &end);
      if (start < end)
        prefer(base + start, end - start, (unsigned)machine.nodes[i]);
    }
    break;
  case LITE_MEM_INTERLEAVED: {
    int err = lite_os_mbind(base, len, MPOL_INTERLEAVE, machine.allowed, MASK_MAXNODE, 0);
    if (err != 0)
      say_refused("mbind", err);
    break;
  }
  case LITE_MEM_ENVIRONMENT:
    break;
  }
}

size_t lite_mem_length(size_t size, size_t align, size_t header,
                       enum lite_mem_partition partition)
{
  read_machine_once();
  bool page_data = partition == LITE_MEM_BLOCKED && machine.nnodes > 1;
  return lite_mem_map_length(size, align, header, machine.page, page_data);
}

int lite_mem_map(struct lite_mem_block *b, size_t len, size_t size, size_t align, size_t header,
                 enum lite_mem_partition partition, bool pinned, bool *lock_failed)
{
  read_machine_once();
  *lock_failed = false;
  bool page_data = partition == LITE_MEM_BLOCKED && machine.nnodes > 1;
  char *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return errno != 0 ? errno : ENOMEM;
  char *data = (char *)lite_mem_data_at((uintptr_t)base, align, header, machine.page, page_data);
  if (machine.nnodes > 1)
    place(base, len, data, size, partition);
  if (pinned) {
    /* The pages of the header and the data, not the alignment slack around them. mlock faults
       them in, after the policy above: they are placed and locked at once. */
    uintptr_t page = machine.page;
    uintptr_t lo = ((uintptr_t)data - header) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)data + size + page - 1) & ~(page - 1);
    if (mlock((void *)lo, hi - lo) != 0) {
      int error = errno != 0 ? errno : EAGAIN;
      munmap(base, len);
      *lock_failed = true;
      return error;
    }
  }
  *b = (struct lite_mem_block){base, len, data};
  return 0;
}

void lite_mem_unmap(void *base, size_t len) { munmap(base, len); }
