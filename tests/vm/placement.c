/* placement: on which NUMA node each team member's memory lies, against the node of its CPU
   (issue 47). Run in the booted guest (tests/vm/guest-checks.sh), on libomp-lite, libgomp and
   LLVM's runtime alike: the rows are what any runtime gives a thread (its stack and its static
   TLS, where gcc puts threadprivate data). On libomp-lite, each member's own state as well
   (its slot's words, its slot's loop ranges, its thread state, its task queue: the blocks
   affinity/home.c homes), found through the runtime's test-only omplite_debug_member_state
   (version OMPLITE_DEBUG_1, looked up with dlsym, so that the other runtimes run this too).

   usage: placement NTHREADS [MIN_PERCENT]
   Each member, bound (OMP_PROC_BIND/OMP_PLACES from the environment), runs 20 regions that
   write 32 KiB of its stack and 8 KiB of threadprivate data; then the initial thread asks the
   kernel where those pages are (move_pages with no target: it reports a page's node and faults
   nothing in, unlike get_mempolicy(MPOL_F_NODE|MPOL_F_ADDR), which would allocate a missing
   page on the caller's node) and compares with the node of the CPU each member ran on (getcpu).
   Prints one line per member and a summary line
     placement: RUNTIME nodes N threads T workers' stack X/Y TLS X/Y worst-member P%
   followed, where the runtime shows its state, by
     slot X/Y ranges X/Y thread X/Y queue X/Y state-worst-member P%
   and, with MIN_PERCENT, fails unless every member has at least that share of its listed
   (present) stack and TLS pages on its own node, and of its state's pages.
   PLACEMENT_PARTITION=1 also checks the allocator partition trait (libomp-lite): interleaved
   pages on every node, nearest on the caller's, blocked in node order. */
#include "../integration/lite_check.h"

#include <dlfcn.h>
#include <errno.h>
#include <numaif.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

#define MAX_T 256
#define STACK_PAGES 8 /* the top 32 KiB: glibc's TCB, static TLS and the first frames */
#define TLS_BYTES 8192
#define PAGE 4096

static __thread char tls_data[TLS_BYTES] __attribute__((aligned(PAGE)));
#pragma omp threadprivate(tls_data)

/* The runtime's own blocks of a member (libomp-lite: affinity/home_debug.c), in its order. */
#define STATE_BLOCKS 4
static const char *const state_names[STATE_BLOCKS] = {"slot", "ranges", "thread", "queue"};
typedef int state_fn(void **addrs, size_t *sizes, int max);
static state_fn *member_state; /* NULL: the runtime does not show its state */

struct member {
    int cpu, node;
    uintptr_t stack_top;
    void *tls;
    int nstate;
    void *state[STATE_BLOCKS];
    size_t state_size[STATE_BLOCKS];
};
static struct member members[MAX_T];

/* Writes most of the top 32 KiB of the stack: the frames of a deep enough call. */
static __attribute__((noinline)) void touch_stack(int depth)
{
    volatile char buf[3000];
    for (size_t i = 0; i < sizeof buf; i += 64)
        buf[i] = (char)i;
    if (depth > 0)
        touch_stack(depth - 1);
}

static void record(void)
{
    int id = omp_get_thread_num();
    unsigned cpu, node;
    if (syscall(SYS_getcpu, &cpu, &node, NULL) != 0)
        lite_fail("getcpu: %s", strerror(errno));
    pthread_attr_t attr;
    void *low;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0 ||
        pthread_attr_getstack(&attr, &low, &size) != 0)
        lite_fail("pthread_getattr_np failed");
    pthread_attr_destroy(&attr);
    members[id] = (struct member){.cpu = (int)cpu, .node = (int)node,
                                  .stack_top = (uintptr_t)low + size, .tls = tls_data};
    for (size_t i = 0; i < TLS_BYTES; i += 64)
        tls_data[i]++;
    touch_stack(8);
    /* A task, so that the member has a task queue (made by its first one), then its blocks. */
#pragma omp task
    tls_data[64]++;
#pragma omp taskwait
    if (member_state != NULL)
        members[id].nstate = member_state(members[id].state, members[id].state_size,
                                          STATE_BLOCKS);
}

/* The node of each page in pages[0..n): status[i] is the node or a negative errno. */
static void nodes_of(void **pages, int *status, unsigned long n)
{
    if (syscall(SYS_move_pages, 0, n, pages, NULL, status, 0) != 0)
        lite_fail("move_pages: %s", strerror(errno));
}

/* Counts the present pages and those on node among n pages from start; where appends each
   page's node (or '-': not present) to where[], for the line of a member below the bar. */
static void count(uintptr_t start, int n, int node, int *present, int *home, char *where)
{
    void *pages[64];
    int status[64];
    n = n < 64 ? n : 64;
    for (int i = 0; i < n; i++)
        pages[i] = (void *)(start + (uintptr_t)i * PAGE);
    nodes_of(pages, status, (unsigned long)n);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(where);
        snprintf(where + len, 8, status[i] < 0 ? " -" : " %d", status[i]);
        if (status[i] < 0)
            continue;
        (*present)++;
        *home += status[i] == node;
    }
}

/* The memory policy of the mapping that holds p, as "MODE nodes-mask" (get_mempolicy with
   MPOL_F_ADDR alone reads the policy and faults nothing in). */
static void policy_of(uintptr_t p, char *out, size_t len)
{
    int mode = -1;
    unsigned long mask[1] = {0};
    if (syscall(SYS_get_mempolicy, &mode, mask, 64UL, (void *)p, MPOL_F_ADDR) != 0)
        snprintf(out, len, "unknown (%s)", strerror(errno));
    else
        snprintf(out, len, "%s nodes 0x%lx",
                 mode == MPOL_DEFAULT ? "default" : mode == MPOL_PREFERRED ? "preferred"
                 : mode == MPOL_BIND ? "bind" : mode == MPOL_INTERLEAVE ? "interleave" : "other",
                 mask[0]);
}

static int machine_nodes(void)
{
    int n = 0;
    char path[64];
    for (;; n++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d", n);
        if (access(path, F_OK) != 0)
            return n;
    }
}

/* The allocator partition trait, on libomp-lite: 64 pages, each written by the caller. */
static void check_partition(int nnodes)
{
    static const struct { omp_uintptr_t value; const char *name; } kinds[] = {
        {omp_atv_interleaved, "interleaved"}, {omp_atv_nearest, "nearest"},
        {omp_atv_blocked, "blocked"}};
    for (unsigned k = 0; k < 3; k++) {
        omp_alloctrait_t trait = {omp_atk_partition, kinds[k].value};
        omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, &trait);
        if (a == omp_null_allocator)
            lite_fail("partition %s: no allocator", kinds[k].name);
        size_t len = 64 * PAGE;
        char *p = omp_alloc(len, a);
        if (p == NULL)
            lite_fail("partition %s: no memory", kinds[k].name);
        memset(p, 1, len);
        uintptr_t first = ((uintptr_t)p + PAGE - 1) & ~(uintptr_t)(PAGE - 1);
        void *pages[62];
        int status[62], used[64] = {0}, last = -1, ordered = 1;
        for (int i = 0; i < 62; i++)
            pages[i] = (void *)(first + (uintptr_t)i * PAGE);
        nodes_of(pages, status, 62);
        unsigned cpu, here;
        syscall(SYS_getcpu, &cpu, &here, NULL);
        int distinct = 0, on_here = 0;
        for (int i = 0; i < 62; i++) {
            if (status[i] < 0 || status[i] >= 64)
                lite_fail("partition %s: page %d not present (%d)", kinds[k].name, i, status[i]);
            distinct += used[status[i]]++ == 0;
            on_here += status[i] == (int)here;
            ordered &= status[i] >= last;
            last = status[i];
        }
        printf("partition %s: %d nodes used, %d/62 pages on the caller's node %u, %s\n",
               kinds[k].name, distinct, on_here, here, ordered ? "in node order" : "mixed");
        if (k == 0 && distinct != nnodes)
            lite_fail("interleaved: pages on %d of %d nodes", distinct, nnodes);
        if (k == 1 && on_here != 62)
            lite_fail("nearest: %d of 62 pages on the caller's node", on_here);
        if (k == 2 && (!ordered || distinct != nnodes))
            lite_fail("blocked: pages on %d of %d nodes, %s", distinct, nnodes,
                      ordered ? "ordered" : "not in node order");
        omp_free(p, a);
        omp_destroy_allocator(a);
    }
}

/* The line of /proc/self/numa_maps for the mapping that holds p (its policy, its pages on each
   node, its page size), or "": what showed that a member's stack top had come in a huge page of
   the leader's node (affinity/home.c). */
static void numa_map_of(uintptr_t p, char *out, size_t len)
{
    FILE *maps = fopen("/proc/self/maps", "r"), *numa = fopen("/proc/self/numa_maps", "r");
    char line[512];
    unsigned long lo = 0, hi, start = 0;
    out[0] = 0;
    while (maps != NULL && fgets(line, sizeof line, maps) != NULL)
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && p >= lo && p < hi)
            start = lo;
    while (start != 0 && numa != NULL && fgets(line, sizeof line, numa) != NULL)
        if (strtoul(line, NULL, 16) == start) {
            line[strcspn(line, "\n")] = 0;
            snprintf(out, len, "%s", line);
        }
    if (maps != NULL)
        fclose(maps);
    if (numa != NULL)
        fclose(numa);
}

int main(int argc, char **argv)
{
    lite_test_name = "placement";
    const char *runtime = getenv("PLACEMENT_RUNTIME");
    runtime = runtime != NULL ? runtime : "lite";
    if (strcmp(runtime, "lite") == 0)
        lite_check_runtime("placement", (const void *)omp_get_num_places);
    int n = argc > 1 ? atoi(argv[1]) : 16;
    int min_percent = argc > 2 ? atoi(argv[2]) : -1;
    if (n < 1 || n > MAX_T)
        lite_fail("bad thread count %d", n);
    member_state = (state_fn *)dlsym(RTLD_DEFAULT, "omplite_debug_member_state");
    if (strcmp(runtime, "lite") == 0 && member_state == NULL)
        lite_fail("libomp-lite's omplite_debug_member_state is not there: %s", dlerror());
    for (int r = 0; r < 20; r++) {
#pragma omp parallel num_threads(n)
        record();
    }
    int nnodes = machine_nodes();
    int sp = 0, sh = 0, tp = 0, th = 0, worst = 100, state_worst = 100;
    int bp[STATE_BLOCKS] = {0}, bh[STATE_BLOCKS] = {0}; /* the state's pages, per block */
    for (int id = 0; id < n; id++) {
        struct member *m = &members[id];
        int s_present = 0, s_home = 0, t_present = 0, t_home = 0;
        char where[2][64 * 8] = {"", ""};
        count(m->stack_top - STACK_PAGES * PAGE, STACK_PAGES, m->node, &s_present, &s_home,
              where[0]);
        count((uintptr_t)m->tls, TLS_BYTES / PAGE, m->node, &t_present, &t_home, where[1]);
        int all = s_present + t_present, home = s_home + t_home;
        int percent = all > 0 ? 100 * home / all : 100;
        if (id > 0 && percent < worst) /* the initial thread's stack is the program's own */
            worst = percent;
        /* The runtime's blocks: whole pages, a block may share its first and last. */
        int b_present = 0, b_home = 0;
        char state_where[STATE_BLOCKS][64 * 8] = {""};
        for (int b = 0; b < m->nstate && b < STATE_BLOCKS; b++) {
            if (m->state[b] == NULL || m->state_size[b] == 0)
                continue;
            uintptr_t lo = (uintptr_t)m->state[b] & ~(uintptr_t)(PAGE - 1);
            uintptr_t hi = (uintptr_t)m->state[b] + m->state_size[b];
            int present = 0, home_pages = 0;
            count(lo, (int)((hi - lo + PAGE - 1) / PAGE), m->node, &present, &home_pages,
                  state_where[b]);
            b_present += present, b_home += home_pages;
            if (id > 0)
                bp[b] += present, bh[b] += home_pages;
        }
        int state_percent = b_present > 0 ? 100 * b_home / b_present : 100;
        if (id > 0 && m->nstate > 0 && state_percent < state_worst)
            state_worst = state_percent;
        printf("member %3d cpu %3d node %d: stack %d/%d TLS %d/%d", id, m->cpu, m->node, s_home,
               s_present, t_home, t_present);
        if (m->nstate > 0)
            printf(" state %d/%d", b_home, b_present);
        printf(" on its node\n");
        if (id > 0 && min_percent >= 0 && m->nstate > 0 && state_percent < min_percent)
            for (int b = 0; b < STATE_BLOCKS; b++)
                printf("  member %d below %d%%: its %s at %p (%zu bytes) on nodes%s\n", id,
                       min_percent, state_names[b], m->state[b], m->state_size[b],
                       state_where[b]);
        if (id > 0 && min_percent >= 0 && percent < min_percent) {
            char policy[64];
            char map[512];
            policy_of(m->stack_top - PAGE, policy, sizeof policy);
            numa_map_of(m->stack_top - PAGE, map, sizeof map);
            printf("  member %d below %d%%: stack pages on nodes%s, TLS on%s; policy %s\n"
                   "  its stack mapping: %s\n",
                   id, min_percent, where[0], where[1], policy, map);
        }
        if (id > 0) {
            sp += s_present, sh += s_home, tp += t_present, th += t_home;
        }
    }
    printf("placement: %s nodes %d threads %d workers' stack %d/%d TLS %d/%d worst-member %d%%",
           runtime, nnodes, n, sh, sp, th, tp, worst);
    int shown = 0; /* members whose runtime showed their state (0 but for libomp-lite) */
    for (int id = 1; id < n; id++)
        shown += members[id].nstate > 0;
    if (shown > 0) {
        for (int b = 0; b < STATE_BLOCKS; b++)
            printf(" %s %d/%d", state_names[b], bh[b], bp[b]);
        printf(" state-worst-member %d%%", state_worst);
    }
    printf("\n");
    if (min_percent >= 0 && worst < min_percent)
        lite_fail("a member has %d%% of its pages on its node (want %d%%)", worst, min_percent);
    if (member_state != NULL && n > 1 && shown != n - 1)
        lite_fail("the runtime showed the state of %d of its %d workers", shown, n - 1);
    if (min_percent >= 0 && state_worst < min_percent)
        lite_fail("a member has %d%% of its state's pages on its node (want %d%%)", state_worst,
                  min_percent);
    const char *part = getenv("PLACEMENT_PARTITION");
    if (part != NULL && strcmp(part, "1") == 0 && nnodes > 1)
        check_partition(nnodes);
    return 0;
}
