/* allocators: memory allocators with the traits partition and pinned (OpenMP 5.2 section 6.2),
   checked from outside the runtime: where the kernel put each page (get_mempolicy with
   MPOL_F_NODE | MPOL_F_ADDR, after touching it), and how much of the process is locked
   (/proc/self/status VmLck).

   usage: allocators placement   each partition value, with each memory space, from one thread
                                 and from every member of a team: the pages are where the value
                                 says (on a one-node machine: all on that node)
          allocators kinds       calloc, aligned alloc, realloc between allocators and free on
                                 placed and pinned blocks
          allocators pinned      pinned blocks are locked, while they live and no longer
          allocators fallback    pinned blocks larger than RLIMIT_MEMLOCK follow the fallback
                                 trait (default_mem_fb, null_fb, allocator_fb)
          allocators abort       the same with abort_fb: the program must stop with a message

   The fallback cases need mlock to fail for sure. The tests often run as root, whom
   RLIMIT_MEMLOCK does not bind (CAP_IPC_LOCK): the program first drops CAP_IPC_LOCK from its
   own thread (capset; dropping needs no privilege) and lowers RLIMIT_MEMLOCK to 64 kB, then
   proves the premise with an mlock of its own that must fail. All allocations of those cases
   happen on the main thread, whose capabilities those are. */
#include "lite_check.h"

#include <errno.h>
#include <linux/capability.h>
#include <numaif.h>
#include <omp.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#define MAX_NODES 1024
#define WORD_BITS (sizeof(unsigned long) * 8)

static long page;
static int nodes[MAX_NODES];   /* the nodes this process may use, ascending */
static int nnodes;

static void read_nodes(void)
{
    unsigned long mask[MAX_NODES / WORD_BITS] = {0};
    LITE_EXPECT(get_mempolicy(NULL, mask, MAX_NODES + 1, NULL, MPOL_F_MEMS_ALLOWED) == 0,
                "get_mempolicy(MPOL_F_MEMS_ALLOWED): %s", strerror(errno));
    for (int n = 0; n < MAX_NODES; n++)
        if (mask[n / WORD_BITS] >> (n % WORD_BITS) & 1)
            nodes[nnodes++] = n;
    LITE_EXPECT(nnodes > 0, "no NUMA node allowed");
}

/* The node of the page holding p (touched before). */
static int node_of(const void *p)
{
    int node = -1;
    LITE_EXPECT(get_mempolicy(&node, NULL, 0, (void *)(uintptr_t)p, MPOL_F_NODE | MPOL_F_ADDR) == 0,
                "get_mempolicy(MPOL_F_NODE | MPOL_F_ADDR, %p): %s", p, strerror(errno));
    return node;
}

static int index_of(int node)
{
    for (int i = 0; i < nnodes; i++)
        if (nodes[i] == node)
            return i;
    lite_fail("page on node %d, which the process may not use", node);
}

static long locked_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    LITE_EXPECT(f != NULL, "cannot open /proc/self/status");
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
            break;
    fclose(f);
    LITE_EXPECT(kb >= 0, "no VmLck line in /proc/self/status");
    return kb;
}

static omp_allocator_handle_t make(omp_memspace_handle_t space, omp_uintptr_t partition,
                                   omp_uintptr_t pinned, omp_uintptr_t fallback,
                                   omp_allocator_handle_t fb_data)
{
    omp_alloctrait_t traits[] = {
        {omp_atk_partition, partition},
        {omp_atk_pinned, pinned},
        {omp_atk_fallback, fallback},
        {omp_atk_fb_data, (omp_uintptr_t)fb_data},
    };
    int n = fallback == omp_atv_allocator_fb ? 4 : 3;
    omp_allocator_handle_t a = omp_init_allocator(space, n, traits);
    LITE_EXPECT(a != omp_null_allocator,
                "omp_init_allocator(space %d, partition %lu, pinned %lu, fallback %lu) refused",
                (int)space, (unsigned long)partition, (unsigned long)pinned,
                (unsigned long)fallback);
    return a;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + seed);
}

static void expect_filled(const unsigned char *p, size_t n, unsigned seed, const char *what)
{
    for (size_t i = 0; i < n; i++)
        LITE_EXPECT(p[i] == (unsigned char)(i * 7 + seed), "%s: byte %zu changed", what, i);
}

/* ------------------------------------------------------------------------------- placement */

static const char *partition_name(omp_uintptr_t p)
{
    switch (p) {
    case omp_atv_nearest: return "nearest";
    case omp_atv_blocked: return "blocked";
    case omp_atv_interleaved: return "interleaved";
    default: return "environment";
    }
}

/* Checks the pages of size bytes at p (touched) against the partition; node_at_call: the node
   the allocating thread ran on at the call (-1: it moved during the call, unknown). */
static void check_pages(const char *what, omp_uintptr_t partition, const unsigned char *p,
                        size_t size, int node_at_call)
{
    /* The data's pages, from the one holding its first byte. */
    uintptr_t first = (uintptr_t)p & ~(uintptr_t)(page - 1);
    size_t npages = ((uintptr_t)p + size - first + (size_t)page - 1) / (size_t)page;
    int prev = -1;
    for (size_t k = 0; k < npages; k++) {
        const unsigned char *at = k == 0 ? p : (const unsigned char *)(first + k * (size_t)page);
        int node = node_of(at);
        int idx = index_of(node);
        switch (partition) {
        case omp_atv_nearest:
            if (node_at_call >= 0)
                LITE_EXPECT(node == node_at_call, "%s: page %zu on node %d, the thread on node %d",
                            what, k, node, node_at_call);
            break;
        case omp_atv_blocked: {
            /* The data's pages dealt into nnodes parts as equal as whole pages allow, the first
               npages % nnodes parts one page longer, part i on the i-th allowed node. The data
               of a blocked allocation starts on a page where there is more than one node. */
            if (nnodes > 1)
                LITE_EXPECT(((uintptr_t)p & (uintptr_t)(page - 1)) == 0,
                            "%s: blocked data at %p, not on a page", what, (const void *)p);
            size_t q = npages / (size_t)nnodes, r = npages % (size_t)nnodes;
            size_t part = k < r * (q + 1) ? k / (q + 1) : r + (k - r * (q + 1)) / q;
            LITE_EXPECT(idx == (int)part, "%s: page %zu of %zu on node %d, expected node %d",
                        what, k, npages, node, nodes[part]);
            break;
        }
        case omp_atv_interleaved:
            /* Round robin: each page on the allowed node after its predecessor's. */
            if (prev >= 0)
                LITE_EXPECT(idx == (prev + 1) % nnodes,
                            "%s: page %zu on node %d after a page on node %d", what, k, node,
                            nodes[prev]);
            break;
        default:
            break;
        }
        prev = idx;
    }
}

/* The node the calling thread runs on. */
static int current_node(void)
{
    unsigned cpu, node;
    LITE_EXPECT(getcpu(&cpu, &node) == 0, "getcpu: %s", strerror(errno));
    return (int)node;
}

/* One allocation of size bytes with a, touched from the allocating thread, checked. */
static void place_one(const char *what, omp_allocator_handle_t a, omp_uintptr_t partition,
                      size_t size)
{
    int before = current_node();
    unsigned char *p = omp_alloc(size, a);
    int after = current_node();
    LITE_EXPECT(p != NULL, "%s: omp_alloc(%zu) returned NULL", what, size);
    fill(p, size, 3);
    check_pages(what, partition, p, size, before == after ? before : -1);
    expect_filled(p, size, 3, what);
    omp_free(p, a);
}

static void test_placement(void)
{
    static const omp_uintptr_t partitions[] = {omp_atv_environment, omp_atv_nearest,
                                               omp_atv_blocked, omp_atv_interleaved};
    static const omp_memspace_handle_t spaces[] = {omp_default_mem_space, omp_large_cap_mem_space,
                                                   omp_const_mem_space, omp_low_lat_mem_space};
    static const size_t sizes[] = {1, 100, 4096, 3 * 4096 + 17, 64 * 4096, 257 * 4096 + 5};
    char what[160];
    for (unsigned s = 0; s < sizeof spaces / sizeof *spaces; s++) {
        for (unsigned p = 0; p < 4; p++) {
            omp_allocator_handle_t a = make(spaces[s], partitions[p], omp_atv_false,
                                            omp_atv_null_fb, omp_null_allocator);
            for (unsigned z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                snprintf(what, sizeof what, "space %d, %s, %zu bytes", (int)spaces[s],
                         partition_name(partitions[p]), sizes[z]);
                place_one(what, a, partitions[p], sizes[z]);
            }
            /* Every member of a team allocates its own: nearest is per thread. */
#pragma omp parallel
            {
                char mine[160];
                snprintf(mine, sizeof mine, "space %d, %s, thread %d", (int)spaces[s],
                         partition_name(partitions[p]), omp_get_thread_num());
                place_one(mine, a, partitions[p], 16 * 4096 + 1);
            }
            omp_destroy_allocator(a);
        }
    }
    /* The high-bandwidth space is refused (it is not told apart from the rest). */
    omp_alloctrait_t t = {omp_atk_partition, omp_atv_nearest};
    LITE_EXPECT(omp_init_allocator(omp_high_bw_mem_space, 1, &t) == omp_null_allocator,
                "omp_high_bw_mem_space accepted");
}

/* calloc, aligned allocations and realloc on placed (and pinned) blocks: the same contents
   whatever kind of block they move between. */
static void test_block_kinds(void)
{
    omp_allocator_handle_t kinds[] = {
        omp_default_mem_alloc,
        make(omp_default_mem_space, omp_atv_blocked, omp_atv_false, omp_atv_null_fb,
             omp_null_allocator),
        make(omp_default_mem_space, omp_atv_interleaved, omp_atv_false, omp_atv_null_fb,
             omp_null_allocator),
        make(omp_default_mem_space, omp_atv_nearest, omp_atv_true, omp_atv_null_fb,
             omp_null_allocator),
        make(omp_default_mem_space, omp_atv_environment, omp_atv_true, omp_atv_null_fb,
             omp_null_allocator),
    };
    unsigned nk = sizeof kinds / sizeof *kinds;
    for (unsigned k = 0; k < nk; k++) {
        omp_allocator_handle_t a = kinds[k];
        size_t n = 5 * 4096 + 3;
        unsigned char *z = omp_calloc(n, 1, a);
        LITE_EXPECT(z != NULL, "kind %u: omp_calloc NULL", k);
        for (size_t i = 0; i < n; i++)
            LITE_EXPECT(z[i] == 0, "kind %u: omp_calloc byte %zu not zero", k, i);
        omp_free(z, a);
        static const size_t aligns[] = {64, 4096, 8192, 1 << 20};
        for (unsigned i = 0; i < 4; i++) {
            unsigned char *q = omp_aligned_calloc(aligns[i], 3, 1000, a);
            LITE_EXPECT(q != NULL && (uintptr_t)q % aligns[i] == 0,
                        "kind %u: omp_aligned_calloc(%zu) gave %p", k, aligns[i], (void *)q);
            for (size_t j = 0; j < 3000; j++)
                LITE_EXPECT(q[j] == 0, "kind %u: omp_aligned_calloc byte %zu not zero", k, j);
            omp_free(q, a);
            q = omp_aligned_alloc(aligns[i], 10000, a);
            LITE_EXPECT(q != NULL && (uintptr_t)q % aligns[i] == 0,
                        "kind %u: omp_aligned_alloc(%zu) gave %p", k, aligns[i], (void *)q);
            fill(q, 10000, 1);
            omp_free(q, omp_null_allocator);
        }
        /* realloc to every kind, growing and shrinking. */
        for (unsigned to = 0; to < nk; to++) {
            size_t size = 3000;
            unsigned char *p = omp_alloc(size, a);
            LITE_EXPECT(p != NULL, "kind %u: omp_alloc NULL", k);
            fill(p, size, 5);
            p = omp_realloc(p, 9 * 4096, kinds[to], a);
            LITE_EXPECT(p != NULL, "realloc %u -> %u (grow) NULL", k, to);
            expect_filled(p, size, 5, "realloc (grow)");
            fill(p, 9 * 4096, 6);
            p = omp_realloc(p, 100, a, kinds[to]);
            LITE_EXPECT(p != NULL, "realloc %u -> %u (shrink) NULL", to, k);
            expect_filled(p, 100, 6, "realloc (shrink)");
            omp_free(p, a);
        }
    }
    for (unsigned k = 1; k < nk; k++)
        omp_destroy_allocator(kinds[k]);
}

/* ---------------------------------------------------------------------------------- pinned */

static void test_pinned(void)
{
    static const omp_uintptr_t partitions[] = {omp_atv_environment, omp_atv_nearest,
                                               omp_atv_blocked, omp_atv_interleaved};
    for (unsigned p = 0; p < 4; p++) {
        omp_allocator_handle_t a = make(omp_default_mem_space, partitions[p], omp_atv_true,
                                        omp_atv_null_fb, omp_null_allocator);
        long before = locked_kb();
        size_t size = 40 * 4096 + 11;
        unsigned char *b = omp_alloc(size, a);
        LITE_EXPECT(b != NULL, "pinned %s: omp_alloc NULL (RLIMIT_MEMLOCK too low?)",
                    partition_name(partitions[p]));
        long during = locked_kb();
        /* At least the data's pages (41, of 4 kB or more), at most a few more for the header. */
        LITE_EXPECT(during - before >= (long)(size + 4095) / 4096 * 4,
                    "pinned %s: VmLck grew by %ld kB for %zu bytes", partition_name(partitions[p]),
                    during - before, size);
        fill(b, size, 9);
        check_pages("pinned", partitions[p], b, size, -1);
        /* Growing keeps it pinned (a new pinned block), and the old one is unlocked. */
        b = omp_realloc(b, 2 * size, a, a);
        LITE_EXPECT(b != NULL, "pinned realloc NULL");
        expect_filled(b, size, 9, "pinned realloc");
        long grown = locked_kb();
        LITE_EXPECT(grown - before >= (long)(2 * size + 4095) / 4096 * 4 &&
                        grown - before < (during - before) * 2 + 16,
                    "pinned realloc: VmLck %ld kB, %ld kB before the first block, %ld with it",
                    grown, before, during);
        /* Moving it to the default allocator unlocks it. */
        b = omp_realloc(b, size, omp_default_mem_alloc, a);
        LITE_EXPECT(b != NULL, "pinned -> default realloc NULL");
        expect_filled(b, size, 9, "pinned -> default realloc");
        LITE_EXPECT(locked_kb() == before, "VmLck %ld kB after the block left the pinned "
                    "allocator, %ld kB before", locked_kb(), before);
        omp_free(b, omp_default_mem_alloc);
        /* Freeing unlocks too. */
        b = omp_calloc(size, 1, a);
        LITE_EXPECT(b != NULL && locked_kb() > before, "pinned calloc not locked");
        omp_free(b, a);
        LITE_EXPECT(locked_kb() == before, "VmLck %ld kB after omp_free, %ld kB before",
                    locked_kb(), before);
        omp_destroy_allocator(a);
    }
}

/* -------------------------------------------------------------------------------- fallback */

/* Makes mlock of more than 64 kB fail for this thread, and proves it. */
static void limit_locking(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2];
    LITE_EXPECT(syscall(SYS_capget, &hdr, caps) == 0, "capget: %s", strerror(errno));
    caps[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
    caps[CAP_IPC_LOCK / 32].permitted &= ~(1u << (CAP_IPC_LOCK % 32));
    caps[CAP_IPC_LOCK / 32].inheritable &= ~(1u << (CAP_IPC_LOCK % 32));
    LITE_EXPECT(syscall(SYS_capset, &hdr, caps) == 0, "capset (dropping CAP_IPC_LOCK): %s",
                strerror(errno));
    struct rlimit lim = {64 * 1024, 64 * 1024};
    LITE_EXPECT(setrlimit(RLIMIT_MEMLOCK, &lim) == 0, "setrlimit(RLIMIT_MEMLOCK): %s",
                strerror(errno));
    size_t n = 1 << 20;
    void *probe = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    LITE_EXPECT(probe != MAP_FAILED, "mmap of the probe failed");
    LITE_EXPECT(mlock(probe, n) != 0, "mlock of 1 MiB succeeded with RLIMIT_MEMLOCK 64 kB and no "
                "CAP_IPC_LOCK: cannot test the fallbacks");
    munmap(probe, n);
}

static void test_fallback(void)
{
    limit_locking();
    size_t big = 1 << 20;
    long before = locked_kb();

    /* Within the limit, pinning still works. */
    omp_allocator_handle_t nul = make(omp_default_mem_space, omp_atv_environment, omp_atv_true,
                                      omp_atv_null_fb, omp_null_allocator);
    void *small = omp_alloc(16 * 1024, nul);
    LITE_EXPECT(small != NULL, "a pinned 16 kB block under a 64 kB limit failed");
    LITE_EXPECT(locked_kb() >= before + 16, "the pinned 16 kB block is not locked");
    omp_free(small, nul);

    /* null_fb: NULL. */
    LITE_EXPECT(omp_alloc(big, nul) == NULL, "null_fb: a pinned 1 MiB block over the limit");
    LITE_EXPECT(omp_calloc(big, 1, nul) == NULL, "null_fb: omp_calloc over the limit");

    /* default_mem_fb (also the default): ordinary memory, unlocked. */
    omp_allocator_handle_t dflt = make(omp_default_mem_space, omp_atv_nearest, omp_atv_true,
                                       omp_atv_default_mem_fb, omp_null_allocator);
    unsigned char *p = omp_alloc(big, dflt);
    LITE_EXPECT(p != NULL, "default_mem_fb: NULL");
    LITE_EXPECT(locked_kb() == before, "default_mem_fb: VmLck %ld kB, %ld before", locked_kb(),
                before);
    fill(p, big, 2);
    p = omp_realloc(p, 2 * big, dflt, dflt);
    LITE_EXPECT(p != NULL, "default_mem_fb: realloc NULL");
    expect_filled(p, big, 2, "default_mem_fb realloc");
    omp_free(p, dflt);
    omp_alloctrait_t only_pinned = {omp_atk_pinned, omp_atv_true};
    omp_allocator_handle_t implicit = omp_init_allocator(omp_default_mem_space, 1, &only_pinned);
    LITE_EXPECT(implicit != omp_null_allocator, "pinned allocator refused");
    p = omp_aligned_calloc(64, big, 1, implicit);
    LITE_EXPECT(p != NULL && (uintptr_t)p % 64 == 0 && p[big - 1] == 0,
                "the default fallback: omp_aligned_calloc gave %p", (void *)p);
    omp_free(p, implicit);

    /* allocator_fb: fb_data's block (this one aligns to 2 MiB, which no other would). */
    omp_alloctrait_t huge_align = {omp_atk_alignment, 2 << 20};
    omp_allocator_handle_t fb = omp_init_allocator(omp_default_mem_space, 1, &huge_align);
    LITE_EXPECT(fb != omp_null_allocator, "an allocator aligned to 2 MiB refused");
    omp_allocator_handle_t other = make(omp_default_mem_space, omp_atv_interleaved, omp_atv_true,
                                        omp_atv_allocator_fb, fb);
    p = omp_alloc(big, other);
    LITE_EXPECT(p != NULL && (uintptr_t)p % (2 << 20) == 0,
                "allocator_fb: %p, not fb_data's block", (void *)p);
    LITE_EXPECT(locked_kb() == before, "allocator_fb: the block is locked");
    omp_free(p, other);
    LITE_EXPECT(locked_kb() == before, "VmLck %ld kB at the end, %ld before", locked_kb(), before);
    omp_destroy_allocator(nul);
    omp_destroy_allocator(dflt);
    omp_destroy_allocator(implicit);
    omp_destroy_allocator(other);
    omp_destroy_allocator(fb);
}

static void test_abort(void)
{
    limit_locking();
    omp_allocator_handle_t a = make(omp_default_mem_space, omp_atv_environment, omp_atv_true,
                                    omp_atv_abort_fb, omp_null_allocator);
    fflush(stdout);
    void *p = omp_alloc(1 << 20, a);
    lite_fail("abort_fb: the program went on (%p)", p);
}

int main(int argc, char **argv)
{
    LITE_CHECK("allocators");
    page = sysconf(_SC_PAGESIZE);
    read_nodes();
    const char *mode = argc > 1 ? argv[1] : "placement";
    printf("allocators: %s, %d NUMA node(s) allowed, pages of %ld bytes\n", mode, nnodes, page);
    if (strcmp(mode, "placement") == 0) {
        test_placement();
    } else if (strcmp(mode, "kinds") == 0) {
        test_block_kinds();
    } else if (strcmp(mode, "pinned") == 0) {
        test_pinned();
    } else if (strcmp(mode, "fallback") == 0) {
        test_fallback();
    } else if (strcmp(mode, "abort") == 0) {
        test_abort();
    } else {
        lite_fail("unknown mode %s", mode);
    }
    printf("allocators: %s passed\n", mode);
    return 0;
}
