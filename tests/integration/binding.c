/* binding: places and thread binding (OMP_PLACES, OMP_PROC_BIND, GOMP_CPU_AFFINITY, proc_bind),
   seen from inside each thread through sched_getaffinity and the place routines.

   usage: binding [--mask CPULIST | --inert] [NTHREADS...]
     --mask: restart the program with its affinity mask set to CPULIST first, as `taskset -c`
             would, so that the runtime loads inside that mask.
     --inert: first, before any OpenMP call, the process's mask must still be its parent's: a
             runtime loaded into a process (a shell, `timeout`, a launcher script, by LD_PRELOAD)
             binds nothing until the process uses OpenMP, since the processes it starts inherit
             its mask. Then the checks below, as without it.
   Environment read by the test (the case says what it expects):
     BINDING_EXPECT   bound (default when a binding variable is set) or unbound
     BINDING_PLACES   the place list expected, in OMP_DISPLAY_ENV's shape ("{0},{1}")
     BINDING_MEMBERS  the mask of each member of a team of each size given, under the policy
                      in force, in the same shape, the sizes separated by ';' ("{0},{1};{0}")
   Checked, for each team size given (default 2, 4, 16), for the proc_bind policy in force and
   for each of primary, close and spread as clauses:
     - every place lies inside the process's CPUs, and a bound thread's mask is its place;
     - the members' places follow OpenMP 5.2 section 10.1.3 for T <= P and T > P;
     - member k is on the same place in every region with the same binding;
     - a nested team under spread stays inside its member's subpartition;
     - omp_get_num_procs counts the process's CPUs, not the bound thread's. */
#define _GNU_SOURCE
#include "lite_check.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>

#define MAX_T 64

static cpu_set_t process;  /* the CPUs the process started with */
static int expect_bound;

static void mask_of_self(cpu_set_t *set)
{
    if (sched_getaffinity(0, sizeof *set, set) != 0)
        lite_fail("sched_getaffinity: %s", strerror(errno));
}

static void place_set(int place, cpu_set_t *set)
{
    int ids[CPU_SETSIZE];
    int n = omp_get_place_num_procs(place);
    CPU_ZERO(set);
    omp_get_place_proc_ids(place, ids);
    for (int i = 0; i < n; i++)
        CPU_SET(ids[i], set);
}

static void parse_cpus(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long lo = strtol(s, &end, 10), hi = lo;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            lite_fail("bad CPU list");
    }
}

/* Appends one set of CPUs (ascending) to buf at *at in OMP_DISPLAY_ENV's shape: a run of three
   or more consecutive CPUs as {first:count}, else the numbers, as in "{0:4}" or "{0,4}". */
static void format_ids(char *buf, size_t size, size_t *at, const int *ids, int n)
{
    int run = n >= 3;
    for (int i = 1; i < n && run; i++)
        run = ids[i] == ids[0] + i;
    if (run) {
        *at += (size_t)snprintf(buf + *at, size - *at, "{%d:%d}", ids[0], n);
        return;
    }
    *at += (size_t)snprintf(buf + *at, size - *at, "{");
    for (int i = 0; i < n; i++)
        *at += (size_t)snprintf(buf + *at, size - *at, "%s%d", i ? "," : "", ids[i]);
    *at += (size_t)snprintf(buf + *at, size - *at, "}");
}

/* The place list as OMP_DISPLAY_ENV shows it, for comparison with BINDING_PLACES. */
static void format_places(char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int p = 0; p < omp_get_num_places(); p++) {
        int ids[CPU_SETSIZE], n = omp_get_place_num_procs(p);
        omp_get_place_proc_ids(p, ids);
        if (p > 0)
            at += (size_t)snprintf(buf + at, size - at, ",");
        format_ids(buf, size, &at, ids, n);
    }
}

struct member {
    int place, part_len, part_first, tnum;
    cpu_set_t mask;
};

/* Runs one region of t threads with the given clause (0: none) and records each member. */
static void run_team(int t, int clause, struct member *m)
{
#define BODY                                                                                   \
    {                                                                                          \
        int k = omp_get_thread_num();                                                          \
        if (k < MAX_T) {                                                                       \
            int nums[1024];                                                                    \
            m[k].tnum = omp_get_num_threads();                                                 \
            m[k].place = omp_get_place_num();                                                  \
            m[k].part_len = omp_get_partition_num_places();                                    \
            omp_get_partition_place_nums(nums);                                                \
            m[k].part_first = m[k].part_len > 0 ? nums[0] : -1;                                \
            for (int i = 1; i < m[k].part_len; i++)                                            \
                if (nums[i] != nums[0] + i)                                                    \
                    lite_fail("partition of thread %d is not consecutive", k);                 \
            mask_of_self(&m[k].mask);                                                          \
        }                                                                                      \
    }
    switch (clause) {
    case 0:
#pragma omp parallel num_threads(t)
        BODY
        break;
    case omp_proc_bind_primary:
#pragma omp parallel num_threads(t) proc_bind(primary)
        BODY
        break;
    case omp_proc_bind_close:
#pragma omp parallel num_threads(t) proc_bind(close)
        BODY
        break;
    case omp_proc_bind_spread:
#pragma omp parallel num_threads(t) proc_bind(spread)
        BODY
        break;
    }
#undef BODY
}

/* The expected place of member k of a team of t over the partition [lo, lo+p) whose primary
   is on place primary (OpenMP 5.2 section 10.1.3; for T > P, libomp-lite gives the first
   T mod P places one more thread). */
static int expected_place(int policy, int t, int lo, int p, int primary, int k)
{
    int off = primary - lo;
    if (policy == omp_proc_bind_primary)
        return primary;
    if (t > p) {
        int s = t / p, extra = t % p, at = 0, i = 0;
        for (; i < p; i++) {
            int here = s + (i < extra);
            if (k < at + here)
                break;
            at += here;
        }
        return lo + (off + i) % p;
    }
    if (policy == omp_proc_bind_close)
        return lo + (off + k) % p;
    /* spread, t <= p: runs from the partition's start, the primary in the one holding it. */
    int base = p / t, extra = p % t, start[MAX_T + 1], at = 0, mine = 0;
    for (int i = 0; i < t; i++) {
        start[i] = at;
        at += base + (i < extra);
        if (off >= start[i] && off < at)
            mine = i;
    }
    return k == 0 ? primary : lo + start[(mine + k) % t];
}

static void check_team(int t, int clause, int policy)
{
    struct member m[MAX_T], again[MAX_T];
    memset(m, 0, sizeof m);
    int primary = omp_get_place_num();
    int lo = omp_get_partition_num_places() > 0 ? 0 : -1;
    int nums[1024];
    omp_get_partition_place_nums(nums);
    if (lo == 0)
        lo = nums[0];
    int p = omp_get_partition_num_places();
    run_team(t, clause, m);
    run_team(t, clause, again);
    int n = m[0].tnum < MAX_T ? m[0].tnum : MAX_T;
    for (int k = 0; k < n; k++) {
        if (!CPU_EQUAL(&m[k].mask, &process)) {
            cpu_set_t inter;
            CPU_AND(&inter, &m[k].mask, &process);
            if (!CPU_EQUAL(&inter, &m[k].mask))
                lite_fail("t=%d clause=%d: thread %d runs outside the process's CPUs", t, clause, k);
        }
        if (!expect_bound) {
            if (m[k].place != -1 || omp_get_num_places() != 0)
                lite_fail("unbound, but thread %d reports place %d of %d", k, m[k].place,
                          omp_get_num_places());
            continue;
        }
        cpu_set_t want;
        place_set(m[k].place, &want);
        if (!CPU_EQUAL(&want, &m[k].mask))
            lite_fail("t=%d clause=%d: thread %d is on place %d but its mask is not the place's",
                      t, clause, k, m[k].place);
        int exp = expected_place(policy, t, lo, p, primary, k);
        if (m[k].place != exp)
            lite_fail("t=%d policy=%d: thread %d on place %d, expected %d (partition %d+%d, "
                      "primary %d)", t, policy, k, m[k].place, exp, lo, p, primary);
        if (again[k].place != m[k].place)
            lite_fail("t=%d: thread %d moved from place %d to %d between two equal regions", t,
                      k, m[k].place, again[k].place);
        if (policy == omp_proc_bind_spread) {
            int want_len = t > p ? 1 : p / t + (p % t != 0);
            if (m[k].part_len > want_len || m[k].part_len < (t > p ? 1 : p / t))
                lite_fail("spread t=%d: thread %d has a partition of %d places", t, k,
                          m[k].part_len);
            if (m[k].place < m[k].part_first || m[k].place >= m[k].part_first + m[k].part_len)
                lite_fail("spread: thread %d's place is outside its partition", k);
        } else if (m[k].part_len != p || m[k].part_first != lo) {
            lite_fail("policy %d: thread %d's partition changed", policy, k);
        }
    }
}

/* BINDING_MEMBERS: each member's mask in a team of t under the policy in force (no clause), as
   the caller worked it out from the machine (tests/vm/guest-checks.sh from /sys): a check of the
   places that does not start from the runtime's own list, as check_team's does. want: this
   size's part of the variable, len characters. */
static void check_members(int t, const char *want, size_t len)
{
    struct member m[MAX_T];
    char got[8192];
    size_t at = 0;
    got[0] = '\0';
    run_team(t, 0, m);
    for (int k = 0; k < t && k < MAX_T; k++) {
        int ids[CPU_SETSIZE], n = 0;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &m[k].mask))
                ids[n++] = c;
        if (k > 0)
            at += (size_t)snprintf(got + at, sizeof got - at, ",");
        format_ids(got, sizeof got, &at, ids, n);
    }
    if (strlen(got) != len || strncmp(got, want, len) != 0)
        lite_fail("the members of a team of %d run on '%s', expected '%.*s'", t, got, (int)len,
                  want);
    printf("binding: members of %d: %s\n", t, got);
}

static void check_nested(int t)
{
    int bad = 0;
    omp_set_max_active_levels(2);
#pragma omp parallel num_threads(t) proc_bind(spread)
    {
        int first = -1, len = omp_get_partition_num_places(), nums[1024];
        omp_get_partition_place_nums(nums);
        if (len > 0)
            first = nums[0];
#pragma omp parallel num_threads(3) proc_bind(close)
        {
            int pl = omp_get_place_num();
            if (expect_bound && (pl < first || pl >= first + len)) {
#pragma omp atomic
                bad++;
            }
        }
    }
    omp_set_max_active_levels(1);
    if (bad)
        lite_fail("nested close teams left their spread subpartitions (%d threads)", bad);
}

int main(int argc, char **argv)
{
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--mask") == 0) {
        if (getenv("BINDING_RESTARTED") == NULL) {
            cpu_set_t set;
            parse_cpus(argv[2], &set);
            if (sched_setaffinity(0, sizeof set, &set) != 0)
                lite_fail("cannot set the mask %s", argv[2]);
            setenv("BINDING_RESTARTED", argv[2], 1);
            execv("/proc/self/exe", argv);
            lite_fail("execv: %s", strerror(errno));
        }
        first = 3;
    }
    if (argc > 1 && strcmp(argv[1], "--inert") == 0) {
        cpu_set_t mine, parent;
        mask_of_self(&mine);
        if (sched_getaffinity(getppid(), sizeof parent, &parent) != 0)
            lite_fail("cannot read the parent's mask");
        if (!CPU_EQUAL(&mine, &parent))
            lite_fail("before any OpenMP call the process's mask has %d CPUs, its parent's %d: "
                      "the runtime bound the initial thread at load", CPU_COUNT(&mine),
                      CPU_COUNT(&parent));
        first = 2;
    }
    lite_check_runtime("binding", (const void *)omp_get_num_places);
    const char *restarted = getenv("BINDING_RESTARTED");
    if (restarted != NULL)
        parse_cpus(restarted, &process);
    else if (sched_getaffinity(getppid(), sizeof process, &process) != 0)
        lite_fail("cannot read the parent's mask");
    const char *expect = getenv("BINDING_EXPECT");
    expect_bound = expect != NULL ? strcmp(expect, "bound") == 0
                                  : getenv("OMP_PROC_BIND") != NULL || getenv("OMP_PLACES") != NULL ||
                                        getenv("GOMP_CPU_AFFINITY") != NULL;
    if (omp_get_num_procs() != CPU_COUNT(&process))
        lite_fail("omp_get_num_procs() = %d, the process has %d CPUs", omp_get_num_procs(),
                  CPU_COUNT(&process));
    const char *want_places = getenv("BINDING_PLACES");
    if (want_places != NULL) {
        char got[4096];
        format_places(got, sizeof got);
        if (strcmp(got, want_places) != 0)
            lite_fail("places are '%s', expected '%s'", got, want_places);
    }
    for (int p = 0; p < omp_get_num_places(); p++) {
        cpu_set_t set, inter;
        place_set(p, &set);
        CPU_AND(&inter, &set, &process);
        if (CPU_COUNT(&set) == 0 || !CPU_EQUAL(&inter, &set))
            lite_fail("place %d is empty or outside the process's CPUs", p);
    }
    if (expect_bound && omp_get_place_num() != 0)
        lite_fail("the initial thread is on place %d, not 0", omp_get_place_num());

    int sizes[16] = {2, 4, 16}, nsizes = 3;
    if (argc > first) {
        nsizes = 0;
        for (int i = first; i < argc && nsizes < 16; i++)
            sizes[nsizes++] = atoi(argv[i]);
    }
    int policy = omp_get_proc_bind();
    if (policy == omp_proc_bind_true || policy == omp_proc_bind_false)
        policy = omp_proc_bind_close; /* true: libomp-lite places as close */
    const char *want_members = getenv("BINDING_MEMBERS");
    for (int i = 0; i < nsizes; i++) {
        if (want_members != NULL) {
            size_t len = strcspn(want_members, ";");
            check_members(sizes[i], want_members, len);
            want_members = want_members[len] == ';' ? want_members + len + 1 : NULL;
        }
        check_team(sizes[i], 0, policy);
        check_team(sizes[i], omp_proc_bind_primary, omp_proc_bind_primary);
        check_team(sizes[i], omp_proc_bind_close, omp_proc_bind_close);
        check_team(sizes[i], omp_proc_bind_spread, omp_proc_bind_spread);
    }
    check_nested(2);
    printf("binding: ok (%d places, bound: %s)\n", omp_get_num_places(), expect_bound ? "yes" : "no");
    return 0;
}
