/* clang_abi: a program built by clang -fopenmp, which calls LLVM's runtime ABI (__kmpc_*, and the
   user API at version VERSION), run on libomp-lite. Each part checks its results:
     parallel   num_threads, if(0), nesting, proc_bind, thread ids, the user API
     loops      static (blocks and chunks), dynamic, guided, runtime, auto; int, unsigned, long,
                unsigned long; negative steps; collapse; lastprivate; nowait; ordered; doacross
     sync       barrier, single, copyprivate, master, masked, critical (named, hint), atomic,
                reductions (+, *, max, min, &&, a user-defined one), sections, locks, nest locks
     tasks      tasks, depend (in, out, inout, mutexinoutset), taskwait, taskgroup, if(0),
                final, priority, detach, taskloop (grainsize, num_tasks), task reductions,
                in_reduction, reduction(task, ...)
     teams      teams distribute parallel for, with a reduction
     mixed      (with the argument `mixed`) a gcc-built library's regions inside and outside
                this program's own: one pool, one numbering, no extra threads
   usage: clang_abi [PART...]   (no PART: all but mixed) */
#include "lite_check.h"

#include <omp.h>
#include <dirent.h>

#define N 1000

static int only(int argc, char **argv, const char *part)
{
    if (argc < 2)
        return strcmp(part, "mixed") != 0;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], part) == 0)
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- parallel */

static void check_parallel(void)
{
    int seen[8] = {0}, n = 0;
#pragma omp parallel num_threads(4)
    {
#pragma omp atomic
        seen[omp_get_thread_num()]++;
#pragma omp single
        n = omp_get_num_threads();
        LITE_EXPECT(omp_in_parallel(), "omp_in_parallel is false in a region of 4");
        LITE_EXPECT(omp_get_level() == 1, "level %d in a region", omp_get_level());
        /* LLVM's omp.h calls this one ompc_capture_affinity. */
        char buf[32], want[32];
        omp_capture_affinity(buf, sizeof buf, "%n/%N");
        snprintf(want, sizeof want, "%d/%d", omp_get_thread_num(), omp_get_num_threads());
        LITE_EXPECT(strcmp(buf, want) == 0, "omp_capture_affinity gave '%s', expected '%s'",
                    buf, want);
    }
    LITE_EXPECT(n == 4, "num_threads(4) gave %d threads", n);
    for (int i = 0; i < 4; i++)
        LITE_EXPECT(seen[i] == 1, "thread %d ran the region %d times", i, seen[i]);

    int off = 0, serial_level = -1;
#pragma omp parallel if (off)
    {
        serial_level = omp_get_level();
        LITE_EXPECT(omp_get_num_threads() == 1, "if(0) region of %d threads",
                    omp_get_num_threads());
    }
    LITE_EXPECT(serial_level == 1, "if(0) region at level %d", serial_level);

    omp_set_max_active_levels(2);
    int inner_total = 0;
#pragma omp parallel num_threads(2)
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(2) reduction(+ : inner_total)
        {
            inner_total += 1;
            LITE_EXPECT(omp_get_level() == 2, "nested level %d", omp_get_level());
            LITE_EXPECT(omp_get_ancestor_thread_num(1) == outer, "ancestor %d, expected %d",
                        omp_get_ancestor_thread_num(1), outer);
        }
    }
    LITE_EXPECT(inner_total == 4, "nested regions ran %d implicit tasks, expected 4", inner_total);
    omp_set_max_active_levels(1);

    int bind = -1;
#pragma omp parallel num_threads(2) proc_bind(close)
#pragma omp single
    bind = omp_get_proc_bind();
    (void)bind; /* without places the binding is the ICV's; what matters is that it ran */
}

/* ---------------------------------------------------------------- loops */

static long a[N];

static void check_loops(void)
{
    long sum = 0, expect = (long)N * (N - 1) / 2;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp parallel for schedule(static, 7) reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += a[i];
    LITE_EXPECT(sum == expect, "static,7 sum %ld, expected %ld", sum, expect);
    sum = 0;
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : sum)
    for (unsigned i = 0; i < N; i++)
        sum += a[i];
    LITE_EXPECT(sum == expect, "dynamic,3 sum %ld, expected %ld", sum, expect);
    sum = 0;
#pragma omp parallel for schedule(guided) reduction(+ : sum)
    for (long i = N - 1; i >= 0; i--)
        sum += a[i];
    LITE_EXPECT(sum == expect, "guided (down) sum %ld, expected %ld", sum, expect);
    sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
    for (unsigned long i = 0; i < N; i += 3)
        sum += a[i];
    long e3 = 0;
    for (int i = 0; i < N; i += 3)
        e3 += i;
    LITE_EXPECT(sum == e3, "runtime sum %ld, expected %ld", sum, e3);
    sum = 0;
#pragma omp parallel for schedule(auto) collapse(2) reduction(+ : sum)
    for (int i = 0; i < 40; i++)
        for (int j = 0; j < 25; j++)
            sum += a[i * 25 + j];
    LITE_EXPECT(sum == expect, "collapse(2) sum %ld, expected %ld", sum, expect);
    sum = 0;
#pragma omp parallel for schedule(nonmonotonic : dynamic) reduction(+ : sum)
    for (long long i = -500; i < 500; i++)
        sum += a[i + 500];
    LITE_EXPECT(sum == expect, "nonmonotonic:dynamic sum %ld, expected %ld", sum, expect);

    int last = -1, last_dyn = -1, last_static = -1;
#pragma omp parallel for lastprivate(last)
    for (int i = 0; i < 103; i++)
        last = i;
    /* monotonic: LLVM 14's own nonmonotonic dynamic (static stealing) loses this lastprivate
       at 3 threads (last_dyn stays -1), and the test must pass on LLVM's libomp too. */
#pragma omp parallel for schedule(monotonic : dynamic, 5) lastprivate(last_dyn)
    for (int i = 0; i < 103; i++)
        last_dyn = i;
#pragma omp parallel for schedule(static, 4) lastprivate(last_static)
    for (int i = 0; i < 103; i += 2)
        last_static = i;
    LITE_EXPECT(last == 102 && last_dyn == 102 && last_static == 102,
                "lastprivate %d %d %d, expected 102", last, last_dyn, last_static);

    int next = 0, out_of_order = 0;
#pragma omp parallel for ordered schedule(dynamic, 2)
    for (int i = 0; i < 200; i++) {
#pragma omp ordered
        {
            if (next != i)
                out_of_order++;
            next++;
        }
    }
    LITE_EXPECT(out_of_order == 0 && next == 200, "ordered: %d out of order", out_of_order);

    static int grid[30][30];
    for (int i = 0; i < 30; i++)
        grid[i][0] = grid[0][i] = 1;
#pragma omp parallel for ordered(2) schedule(static, 1)
    for (int i = 1; i < 30; i++)
        for (int j = 1; j < 30; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            grid[i][j] = (grid[i - 1][j] + grid[i][j - 1]) % 1000003;
#pragma omp ordered depend(source)
        }
    int want[30][30];
    for (int i = 0; i < 30; i++)
        want[i][0] = want[0][i] = 1;
    for (int i = 1; i < 30; i++)
        for (int j = 1; j < 30; j++)
            want[i][j] = (want[i - 1][j] + want[i][j - 1]) % 1000003;
    LITE_EXPECT(memcmp(grid, want, sizeof want) == 0, "doacross: wrong wavefront");
    /* A dispatched doacross loop: clang shares it out through a loop construct of its own,
       inside the doacross one. */
    static long chain[500];
    chain[0] = 1;
#pragma omp parallel for ordered(1) schedule(dynamic, 3) num_threads(3)
    for (int i = 1; i < 500; i++) {
#pragma omp ordered depend(sink : i - 1)
        chain[i] = chain[i - 1] + 1;
#pragma omp ordered depend(source)
    }
    LITE_EXPECT(chain[499] == 500, "dispatched doacross: chain ends at %ld, expected 500",
                chain[499]);

    int first_done = 0, bad = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp for nowait schedule(static)
        for (int i = 0; i < 2; i++)
            if (omp_get_thread_num() == i) {
#pragma omp atomic
                first_done++;
            }
#pragma omp barrier
#pragma omp single
        bad = first_done != 2;
    }
    LITE_EXPECT(!bad, "for nowait then barrier: %d of 2 iterations done", first_done);
}

/* ---------------------------------------------------------------- synchronisation */

struct pair { int lo, hi; };
#pragma omp declare reduction(span : struct pair : \
        omp_out.lo = omp_in.lo < omp_out.lo ? omp_in.lo : omp_out.lo, \
        omp_out.hi = omp_in.hi > omp_out.hi ? omp_in.hi : omp_out.hi) \
    initializer(omp_priv = (struct pair){1 << 30, -(1 << 30)})

static void check_sync(void)
{
    int counter = 0, named = 0, hinted = 0, atomics = 0, masters = 0, masked = 0, singles = 0;
#pragma omp parallel num_threads(4)
    {
        for (int k = 0; k < 500; k++) {
#pragma omp critical
            counter++;
#pragma omp critical(other)
            named++;
#pragma omp critical(hinted) hint(omp_sync_hint_contended)
            hinted++;
#pragma omp atomic
            atomics++;
        }
#pragma omp master
        masters++;
#pragma omp masked filter(2)
        masked += omp_get_thread_num();
#pragma omp barrier
#pragma omp single
        singles++;
    }
    LITE_EXPECT(counter == 2000 && named == 2000 && hinted == 2000 && atomics == 2000,
                "critical %d, named %d, hinted %d, atomic %d, expected 2000", counter, named,
                hinted, atomics);
    LITE_EXPECT(masters == 1 && masked == 2 && singles == 1, "master %d, masked %d, single %d",
                masters, masked, singles);

    int shared_copy = 0, wrong = 0;
#pragma omp parallel num_threads(3) firstprivate(shared_copy) reduction(+ : wrong)
    {
#pragma omp single copyprivate(shared_copy)
        shared_copy = 42 + omp_get_num_threads();
        wrong += shared_copy != 45;
    }
    LITE_EXPECT(wrong == 0, "copyprivate: %d threads saw another value", wrong);

    long prod = 1, mx = -1, mn = 1 << 30;
    int all = 1;
    struct pair span = {1 << 30, -(1 << 30)};
#pragma omp parallel for reduction(* : prod) reduction(max : mx) reduction(min : mn) \
        reduction(&& : all) reduction(span : span) num_threads(3)
    for (int i = 1; i <= 20; i++) {
        prod *= i % 3 == 0 ? 2 : 1;
        mx = i > mx ? i : mx;
        mn = i < mn ? i : mn;
        all = all && i > 0;
        span.lo = i < span.lo ? i : span.lo;
        span.hi = i > span.hi ? i : span.hi;
    }
    LITE_EXPECT(prod == 64 && mx == 20 && mn == 1 && all && span.lo == 1 && span.hi == 20,
                "reductions: * %ld, max %ld, min %ld, && %d, span %d..%d", prod, mx, mn, all,
                span.lo, span.hi);

    int sections_run[3] = {0, 0, 0};
#pragma omp parallel sections num_threads(2)
    {
#pragma omp section
        sections_run[0]++;
#pragma omp section
        sections_run[1]++;
#pragma omp section
        sections_run[2]++;
    }
    LITE_EXPECT(sections_run[0] == 1 && sections_run[1] == 1 && sections_run[2] == 1,
                "sections ran %d %d %d times", sections_run[0], sections_run[1], sections_run[2]);

    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    int locked = 0, nested = 0;
#pragma omp parallel num_threads(4)
    for (int k = 0; k < 200; k++) {
        omp_set_lock(&lock);
        locked++;
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest);
        omp_set_nest_lock(&nest);
        nested++;
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
    }
    LITE_EXPECT(locked == 800 && nested == 800, "locks: %d and %d, expected 800", locked, nested);
    LITE_EXPECT(omp_test_nest_lock(&nest) == 1 && omp_test_nest_lock(&nest) == 2,
                "omp_test_nest_lock does not count nesting");
    omp_unset_nest_lock(&nest);
    omp_unset_nest_lock(&nest);
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
}

/* ---------------------------------------------------------------- tasks */

static long fib(int n)
{
    if (n < 2)
        return n;
    long x, y;
#pragma omp task shared(x) firstprivate(n)
    x = fib(n - 1);
#pragma omp task shared(y) firstprivate(n)
    y = fib(n - 2);
#pragma omp taskwait
    return x + y;
}

/* A tree of tasks that end before their children (no taskwait): a taskwait above them may run
   any of them (libomp-lite lets a clang-built taskwait run descendants, walking each queued
   task's parents, which must stay valid after they end). */
static int spawned;

static void spawn(int depth)
{
#pragma omp atomic
    spawned++;
    if (depth == 0)
        return;
#pragma omp task firstprivate(depth)
    spawn(depth - 1);
#pragma omp task firstprivate(depth)
    spawn(depth - 1);
}

static void check_tasks(void)
{
    long f = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
    f = fib(20);
    LITE_EXPECT(f == 6765, "fib(20) = %ld, expected 6765", f);

    for (int rep = 0; rep < 20; rep++) {
        int waited = -1;
        spawned = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
#pragma omp task shared(waited)
            {
#pragma omp task
                spawn(9);
#pragma omp task
                spawn(9);
#pragma omp taskwait
                waited = 1;
            }
        }
        LITE_EXPECT(waited == 1 && spawned == 2 * 1023, "a tree of tasks that end before their "
                    "children: %d of %d ran (the taskwait %s)", spawned, 2 * 1023,
                    waited == 1 ? "returned" : "did not return");
    }

    /* A chain through depend(inout), fed by depend(out) and read by depend(in). */
    int x = 0, reads_ok = 0, mutex_count = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp task depend(out : x)
        x = 1;
        for (int k = 0; k < 50; k++) {
#pragma omp task depend(inout : x) firstprivate(k)
            x = x + 1;
        }
        for (int k = 0; k < 10; k++) {
#pragma omp task depend(mutexinoutset : mutex_count)
            mutex_count++;
        }
#pragma omp task depend(in : x) depend(in : mutex_count) shared(reads_ok)
        reads_ok = x == 51 && mutex_count == 10;
#pragma omp taskwait
    }
    LITE_EXPECT(reads_ok, "depend: x %d, mutexinoutset %d", x, mutex_count);

    int group_done = 0, undeferred = 0, in_final = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int k = 0; k < 20; k++) {
#pragma omp task
                {
#pragma omp task
                    {
#pragma omp atomic
                        group_done++;
                    }
                }
            }
        }
        LITE_EXPECT(group_done == 20, "taskgroup ended with %d of 20 grandchildren done",
                    group_done);
        int here = 0;
#pragma omp task if (0) shared(here)
        here = 1;
        undeferred = here;
#pragma omp task final(1) shared(in_final)
        in_final = omp_in_final();
#pragma omp taskwait
#pragma omp task priority(3)
        {
        }
    }
    LITE_EXPECT(undeferred && in_final, "if(0) task ran at once: %d; in final task: %d",
                undeferred, in_final);

    /* A taskwait in an if(0) task waits for that task's children only: not for a sibling that
       waits for the if(0) task itself (waiting for it would deadlock). */
    int flag = 0, child_done = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task shared(flag)
        {
            int seen = 0;
            while (!seen) {
#pragma omp atomic read
                seen = flag;
            }
        }
#pragma omp task if (0) shared(flag, child_done)
        {
#pragma omp task shared(child_done)
            child_done = 1;
#pragma omp taskwait
            LITE_EXPECT(child_done == 1, "taskwait in an if(0) task did not wait for its child");
#pragma omp atomic write
            flag = 1;
        }
#pragma omp taskwait
    }

    int fulfilled = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) shared(fulfilled)
        fulfilled = 1;
#pragma omp task firstprivate(ev)
        omp_fulfill_event(ev);
#pragma omp taskwait
        LITE_EXPECT(fulfilled == 1, "detached task did not run");
    }

    /* task detach if(0), its event fulfilled inside (early) and by a later task (late): clang
       runs it through __kmpc_omp_task_begin_if0, and omp_fulfill_event used to wait forever for
       a submission that never came. */
    int early = 0, late = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        omp_event_handle_t ev1, ev2;
#pragma omp task detach(ev1) if(0) shared(early)
        {
            early = 1;
            omp_fulfill_event(ev1);
        }
#pragma omp task detach(ev2) if(0) shared(late)
        late = 1;
#pragma omp task firstprivate(ev2)
        omp_fulfill_event(ev2);
#pragma omp taskwait
        LITE_EXPECT(early == 1 && late == 1, "detach if(0): early %d, late %d", early, late);
    }

    /* Untied tasks run in parts (clang submits the task again at each scheduling point); each
       part's copy of the private data must live until the last part. */
    int untied_sum = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    for (int k = 0; k < 50; k++) {
        int priv[8];
        for (int i = 0; i < 8; i++)
            priv[i] = k + i;
#pragma omp task untied firstprivate(priv) shared(untied_sum)
        {
            int s = 0;
            for (int i = 0; i < 8; i++)
                s += priv[i];
#pragma omp taskyield
#pragma omp task shared(s)
            s += 0;
#pragma omp taskwait
            for (int i = 0; i < 8; i++)
                s += priv[i];
#pragma omp atomic
            untied_sum += s;
        }
    }
    LITE_EXPECT(untied_sum == 2 * (8 * (49 * 50 / 2) + 50 * 28), "untied parts: sum %d, expected %d",
                untied_sum, 2 * (8 * (49 * 50 / 2) + 50 * 28));

    long tl_sum = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp taskloop grainsize(7) reduction(+ : tl_sum)
        for (int i = 0; i < N; i++)
            tl_sum += a[i];
    }
    long expect = (long)N * (N - 1) / 2;
    LITE_EXPECT(tl_sum == expect, "taskloop grainsize sum %ld, expected %ld", tl_sum, expect);
    tl_sum = 0;
    int tl_last = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskloop num_tasks(5) lastprivate(tl_last) shared(tl_sum)
    for (int i = 0; i < 100; i++) {
#pragma omp atomic
        tl_sum += i;
        tl_last = i;
    }
    LITE_EXPECT(tl_sum == 4950 && tl_last == 99, "taskloop num_tasks: sum %ld, last %d", tl_sum,
                tl_last);

    long red = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : red)
        {
            for (int i = 0; i < 100; i++) {
#pragma omp task in_reduction(+ : red) firstprivate(i)
                red += i;
            }
        }
    }
    LITE_EXPECT(red == 4950, "task_reduction: %ld, expected 4950", red);

    long mod = 0;
#pragma omp parallel num_threads(3) reduction(task, + : mod)
    {
        mod += 1;
#pragma omp task in_reduction(+ : mod)
        mod += 10;
    }
    LITE_EXPECT(mod == 33, "reduction(task, +): %ld, expected 33", mod);
}

/* ---------------------------------------------------------------- teams */

static void check_teams(void)
{
    long sum = 0;
#pragma omp teams num_teams(3)
#pragma omp distribute parallel for reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += a[i];
    long expect = (long)N * (N - 1) / 2;
    LITE_EXPECT(sum == expect, "teams distribute parallel for: %ld, expected %ld", sum, expect);
    /* num_teams(4) is an upper bound: every team there is must run once. */
    int teams = 0, league = 0;
#pragma omp teams num_teams(4) reduction(+ : teams) reduction(max : league)
    {
        teams += omp_get_team_num() < omp_get_num_teams();
        league = omp_get_num_teams();
    }
    LITE_EXPECT(league >= 1 && league <= 4 && teams == league,
                "teams: %d teams ran in a league of %d", teams, league);
}

/* ---------------------------------------------------------------- mixed */

/* In the gcc-built library (clang_mixed_lib.c). */
int mixed_region(int nthreads, int *level_seen, int *outer_id_seen);
int mixed_thread_num(void);

static int count_threads(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    LITE_EXPECT(d != NULL, "cannot read /proc/self/task");
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void check_mixed(void)
{
    /* The library's region, then this program's, at 4 threads: one pool of 3 workers. */
    int level = -1, outer = -1;
    LITE_EXPECT(mixed_region(4, &level, &outer) == 4, "the library's region is not 4 threads");
    LITE_EXPECT(level == 1, "the library's region outside ours is at level %d", level);
#pragma omp parallel num_threads(4)
    {
    }
    int threads = count_threads();
    LITE_EXPECT(threads == 4, "%d threads after a gcc-built and a clang-built region of 4 "
                "(two runtimes would have 7)", threads);
    /* Inside this program's region: the library sees our thread numbers and nesting. */
    int wrong = 0;
#pragma omp parallel num_threads(2) reduction(+ : wrong)
    {
        int me = omp_get_thread_num(), lvl = -1, anc = -1;
        wrong += mixed_thread_num() != me;
        mixed_region(2, &lvl, &anc);
        wrong += lvl != 2 || anc != me;
    }
    LITE_EXPECT(wrong == 0, "inside our region the library saw other thread numbers or levels");
    /* And the library's ICV changes are ours. */
    omp_set_num_threads(3);
    int n = 0;
#pragma omp parallel
#pragma omp single
    n = omp_get_num_threads();
    LITE_EXPECT(n == 3 && mixed_region(0, &level, &outer) == 3,
                "omp_set_num_threads(3): our region %d threads, the library's another", n);
}

int main(int argc, char **argv)
{
    LITE_CHECK("clang_abi");
    for (int i = 0; i < N; i++)
        a[i] = i;
    if (only(argc, argv, "parallel"))
        check_parallel();
    if (only(argc, argv, "loops"))
        check_loops();
    if (only(argc, argv, "sync"))
        check_sync();
    if (only(argc, argv, "tasks"))
        check_tasks();
    if (only(argc, argv, "teams"))
        check_teams();
    if (only(argc, argv, "mixed"))
        check_mixed();
    printf("clang_abi: OK\n");
    return 0;
}
