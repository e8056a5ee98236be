/* Locks under contention: simple and nestable, set/unset and test, many locks at once, a lock
   held by the initial task across a parallel region, nestable locks owned by tasks rather than
   threads (a nested region's implicit task on the same thread is not the owner), and the OMP_1.0
   entry points
   that binaries built before OpenMP 3.0 call (reached here with dlvsym). Counts are plain
   read-modify-write sequences, exact only if the lock excludes; canaries around each lock object
   catch a runtime that writes beyond the size gcc's omp.h gives it.
   gcc 12's omp.h declares omp_init_lock_with_hint and omp_init_nest_lock_with_hint, but libgomp
   12 does not export them, so no binary can link them on that ABI: when the runtime has them
   (dlvsym, OMP_4.5) they get the same contention tests, else that part is skipped.

   usage: locks [ACQUISITIONS_PER_THREAD [THREADS]] */
#include "lite_check.h"
#include <omp.h>

#define CANARY 0x5eed1e55u
#define NLOCKS 32

struct guarded_lock { unsigned before; omp_lock_t l; unsigned after[4]; };
struct guarded_nest { unsigned before; omp_nest_lock_t l; unsigned after[4]; };

static void guard_init(unsigned *before, unsigned *after)
{
    *before = CANARY;
    for (int i = 0; i < 4; i++)
        after[i] = CANARY;
}

static void guard_check(const unsigned *before, const unsigned *after, const char *what)
{
    LITE_EXPECT(*before == CANARY, "%s: the word before the lock was overwritten", what);
    for (int i = 0; i < 4; i++)
        LITE_EXPECT(after[i] == CANARY, "%s: word %d after the lock was overwritten", what, i);
}

static void slow_increment(long *p)
{
    long v = *(volatile long *)p;
    for (volatile int spin = 0; spin < 3; spin++) { }
    *(volatile long *)p = v + 1;
}

static void enter(int *inside, const char *what)
{
    int was = __atomic_fetch_add(inside, 1, __ATOMIC_ACQ_REL);
    LITE_EXPECT(was == 0, "%s: two threads hold the lock at once", what);
}

static void leave(int *inside)
{
    __atomic_fetch_sub(inside, 1, __ATOMIC_ACQ_REL);
}

static int nt, per;
static const char *hints_state = "hints skipped";

/* Contention on one simple lock; half the acquisitions by set, half by spinning on test. */
static void simple_contention(omp_lock_t *l, const char *what)
{
    long count = 0;
    int inside = 0;
#pragma omp parallel num_threads(nt)
    for (int i = 0; i < per; i++) {
        if (i % 2)
            omp_set_lock(l);
        else
            while (!omp_test_lock(l)) { }
        enter(&inside, what);
        slow_increment(&count);
        leave(&inside);
        omp_unset_lock(l);
    }
    LITE_EXPECT(count == (long)nt * per, "%s: count %ld, expected %ld", what, count,
                (long)nt * per);
}

/* Contention on one nestable lock, taken three deep; omp_test_nest_lock returns the new depth. */
static void nest_contention(omp_nest_lock_t *l, const char *what)
{
    long count = 0;
    int inside = 0;
#pragma omp parallel num_threads(nt)
    for (int i = 0; i < per; i++) {
        omp_set_nest_lock(l);
        enter(&inside, what);
        omp_set_nest_lock(l);
        int depth = omp_test_nest_lock(l);
        LITE_EXPECT(depth == 3, "%s: omp_test_nest_lock by the owner returned %d, expected 3",
                    what, depth);
        slow_increment(&count);
        omp_unset_nest_lock(l);
        omp_unset_nest_lock(l);
        leave(&inside);
        omp_unset_nest_lock(l);
    }
    LITE_EXPECT(count == (long)nt * per, "%s: count %ld, expected %ld", what, count,
                (long)nt * per);
}

/* omp_init_lock_with_hint / omp_init_nest_lock_with_hint, when the runtime exports them. */
static void hinted_locks(struct guarded_lock *gl, struct guarded_nest *gn)
{
    typedef void (*init_hint_fn)(omp_lock_t *, omp_sync_hint_t);
    typedef void (*init_nest_hint_fn)(omp_nest_lock_t *, omp_sync_hint_t);
    init_hint_fn init = (init_hint_fn)dlvsym(RTLD_DEFAULT, "omp_init_lock_with_hint", "OMP_4.5");
    init_nest_hint_fn ninit =
        (init_nest_hint_fn)dlvsym(RTLD_DEFAULT, "omp_init_nest_lock_with_hint", "OMP_4.5");
    if (!init || !ninit) {
        printf("locks: omp_init_lock_with_hint is not exported (as in libgomp 12): skipped\n");
        return;
    }
    static const omp_sync_hint_t hints[] = {
        omp_sync_hint_none, omp_sync_hint_uncontended, omp_sync_hint_contended,
        omp_sync_hint_speculative, omp_sync_hint_nonspeculative,
        omp_sync_hint_contended | omp_sync_hint_speculative,
    };
    for (unsigned h = 0; h < sizeof hints / sizeof hints[0]; h++) {
        char what[64];
        snprintf(what, sizeof what, "lock with hint %d", (int)hints[h]);
        init(&gl->l, hints[h]);
        simple_contention(&gl->l, what);
        omp_destroy_lock(&gl->l);
        guard_check(&gl->before, gl->after, what);
        snprintf(what, sizeof what, "nestable lock with hint %d", (int)hints[h]);
        ninit(&gn->l, hints[h]);
        nest_contention(&gn->l, what);
        omp_destroy_nest_lock(&gn->l);
        guard_check(&gn->before, gn->after, what);
    }
    hints_state = "hints tested";
}

/* A lock held by thread 0 is seen as held by everyone else; then released. */
static void held_elsewhere(void)
{
    omp_lock_t l;
    omp_nest_lock_t nl;
    omp_init_lock(&l);
    omp_init_nest_lock(&nl);
    int wrong = 0;
#pragma omp parallel num_threads(nt) reduction(+:wrong)
    for (int rep = 0; rep < 20; rep++) {
        if (omp_get_thread_num() == 0) {
            omp_set_lock(&l);
            omp_set_nest_lock(&nl);
        }
#pragma omp barrier
        if (omp_get_thread_num() != 0) {
            if (omp_test_lock(&l))
                wrong++;
            if (omp_test_nest_lock(&nl) != 0)
                wrong++;
        }
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
            omp_unset_nest_lock(&nl);
            omp_unset_lock(&l);
        }
#pragma omp barrier
#pragma omp single
        {
            if (!omp_test_lock(&l))
                wrong++;
            else
                omp_unset_lock(&l);
            if (omp_test_nest_lock(&nl) != 1)
                wrong++;
            else
                omp_unset_nest_lock(&nl);
        }
    }
    LITE_EXPECT(wrong == 0, "locks held by thread 0: %d wrong test results in other threads",
                wrong);

    /* The initial task holds the lock across a whole region. */
    omp_set_lock(&l);
    wrong = 0;
#pragma omp parallel num_threads(nt) reduction(+:wrong)
    if (omp_get_thread_num() != 0 && omp_test_lock(&l))
        wrong++;
    LITE_EXPECT(wrong == 0, "a lock held by the initial task was taken inside a region");
    omp_unset_lock(&l);
    omp_destroy_lock(&l);
    omp_destroy_nest_lock(&nl);
}

/* OpenMP 3.0 gives nestable locks to tasks, not threads. The implicit task of a nested region is
   another task even when the same thread runs it: the team of one of `parallel if (0)`, and
   thread 0 of an active region (GCC's libgomp.c/lock-1.c). A runtime that keys the owner on the
   thread lets such a task re-enter a lock its encountering task holds: omp_test_nest_lock
   returns depth + 1 there instead of 0. */
static void nest_owned_by_task(void)
{
    omp_nest_lock_t nl;
    omp_init_nest_lock(&nl);
    int depth = omp_test_nest_lock(&nl);
    LITE_EXPECT(depth == 1, "nest lock: omp_test_nest_lock of a free lock returned %d, expected 1",
                depth);
    omp_set_nest_lock(&nl);

    int inner = -1, level = -1;
#pragma omp parallel if (0) shared(inner, level)
    {
        level = omp_get_level();
        inner = omp_test_nest_lock(&nl);
    }
    LITE_EXPECT(level == 1, "parallel if (0): omp_get_level() %d inside, expected 1", level);
    LITE_EXPECT(inner == 0, "a nest lock held twice by the initial task: omp_test_nest_lock in the "
                "implicit task of a parallel if (0) returned %d, expected 0 (not the owner)",
                inner);
    depth = omp_test_nest_lock(&nl);
    LITE_EXPECT(depth == 3, "nest lock: back in the initial task, omp_test_nest_lock returned %d, "
                "expected 3", depth);

    /* An active region: thread 0 is the initial thread, but runs a different task. */
    int wrong = 0;
#pragma omp parallel num_threads(nt > 1 ? nt : 2) reduction(+:wrong)
    if (omp_test_nest_lock(&nl) != 0)
        wrong++;
    LITE_EXPECT(wrong == 0, "a nest lock held by the initial task: %d implicit tasks of a region "
                "took it (thread 0 runs on the initial thread but is another task)", wrong);
    depth = omp_test_nest_lock(&nl);
    LITE_EXPECT(depth == 4, "nest lock: after the region, omp_test_nest_lock returned %d, "
                "expected 4", depth);
    for (int k = 0; k < 4; k++)
        omp_unset_nest_lock(&nl);

    /* Nested active regions: each outer implicit task holds its own lock; the inner team its
       thread starts (whose thread 0 is that same thread) must find it held. */
    int saved_levels = omp_get_max_active_levels();
    omp_set_max_active_levels(2);
    omp_nest_lock_t outer_locks[2];
    for (int k = 0; k < 2; k++)
        omp_init_nest_lock(&outer_locks[k]);
    int nested_wrong = 0, back_wrong = 0, outer_threads = 0;
#pragma omp parallel num_threads(2) reduction(+:nested_wrong, back_wrong, outer_threads)
    {
        omp_nest_lock_t *mine = &outer_locks[omp_get_thread_num()];
        omp_set_nest_lock(mine);
#pragma omp parallel num_threads(2) reduction(+:nested_wrong)
        if (omp_test_nest_lock(mine) != 0)
            nested_wrong++;
#pragma omp parallel if (0) reduction(+:nested_wrong)
        if (omp_test_nest_lock(mine) != 0)
            nested_wrong++;
        if (omp_test_nest_lock(mine) != 2)
            back_wrong++;
        omp_unset_nest_lock(mine);
        omp_unset_nest_lock(mine);
        outer_threads++;
    }
    omp_set_max_active_levels(saved_levels);
    LITE_EXPECT(nested_wrong == 0, "nested regions: %d inner implicit tasks took the nest lock "
                "their outer task holds", nested_wrong);
    LITE_EXPECT(back_wrong == 0, "nested regions: %d outer tasks did not get depth 2 from "
                "omp_test_nest_lock after their inner regions", back_wrong);
    /* Free again: every task released what it took. */
    for (int k = 0; k < 2; k++) {
        if (k < outer_threads) {
            depth = omp_test_nest_lock(&outer_locks[k]);
            LITE_EXPECT(depth == 1, "nested regions: lock %d left held (test returned %d)", k,
                        depth);
            omp_unset_nest_lock(&outer_locks[k]);
        }
        omp_destroy_nest_lock(&outer_locks[k]);
    }
    depth = omp_test_nest_lock(&nl);
    LITE_EXPECT(depth == 1, "nest lock: after unsetting it four times, omp_test_nest_lock "
                "returned %d, expected 1 (free)", depth);
    omp_unset_nest_lock(&nl);
    omp_destroy_nest_lock(&nl);
}

/* Many locks, threads hitting them in different orders. */
static void many_locks(void)
{
    static omp_lock_t locks[NLOCKS];
    static long counts[NLOCKS];
    for (int k = 0; k < NLOCKS; k++) {
        omp_init_lock(&locks[k]);
        counts[k] = 0;
    }
#pragma omp parallel num_threads(nt)
    {
        unsigned x = 12345u + 977u * (unsigned)omp_get_thread_num();
        for (int i = 0; i < per; i++) {
            x = x * 1103515245u + 12345u;
            int k = (int)((x >> 16) % NLOCKS);
            omp_set_lock(&locks[k]);
            slow_increment(&counts[k]);
            omp_unset_lock(&locks[k]);
        }
    }
    long total = 0;
    for (int k = 0; k < NLOCKS; k++) {
        total += counts[k];
        omp_destroy_lock(&locks[k]);
    }
    LITE_EXPECT(total == (long)nt * per, "%d locks: counts sum to %ld, expected %ld", NLOCKS,
                total, (long)nt * per);
}

/* The OMP_1.0 lock entry points. On gcc's old omp.h a simple lock is 4 bytes and a nestable one
   8 bytes (pointer-free); they must work on exactly that much memory. */
typedef void (*lock_fn)(void *);
typedef int (*test_fn)(void *);

static void *legacy(const char *name)
{
    void *p = dlvsym(RTLD_DEFAULT, name, "OMP_1.0");
    LITE_EXPECT(p != NULL, "%s@OMP_1.0 is not defined", name);
    if (!lite_stock_mode()) {
        const char *obj = lite_object_of(p);
        LITE_EXPECT(lite_is_lite_path(obj), "%s@OMP_1.0 resolves to %s, not libomp-lite", name,
                    obj ? obj : "?");
    }
    return p;
}

static void legacy_locks(void)
{
    lock_fn init = (lock_fn)legacy("omp_init_lock"), set = (lock_fn)legacy("omp_set_lock");
    lock_fn unset = (lock_fn)legacy("omp_unset_lock"), destroy = (lock_fn)legacy("omp_destroy_lock");
    test_fn test = (test_fn)legacy("omp_test_lock");
    lock_fn ninit = (lock_fn)legacy("omp_init_nest_lock");
    lock_fn nset = (lock_fn)legacy("omp_set_nest_lock");
    lock_fn nunset = (lock_fn)legacy("omp_unset_nest_lock");
    lock_fn ndestroy = (lock_fn)legacy("omp_destroy_nest_lock");
    test_fn ntest = (test_fn)legacy("omp_test_nest_lock");

    static struct { unsigned before; int l; unsigned after[4]; } old;
    static struct { unsigned before; struct { int a, b; } l; unsigned after[4]; } oldn;
    guard_init(&old.before, old.after);
    guard_init(&oldn.before, oldn.after);
    init(&old.l);
    ninit(&oldn.l);
    long count = 0, ncount = 0;
    int inside = 0, ninside = 0, wrong = 0;
#pragma omp parallel num_threads(nt) reduction(+:wrong)
    for (int i = 0; i < per / 2 + 1; i++) {
        if (i % 2)
            set(&old.l);
        else
            while (!test(&old.l)) { }
        enter(&inside, "OMP_1.0 simple lock");
        slow_increment(&count);
        leave(&inside);
        unset(&old.l);

        nset(&oldn.l);
        enter(&ninside, "OMP_1.0 nestable lock");
        nset(&oldn.l);
        if (ntest(&oldn.l) != 3)
            wrong++;
        slow_increment(&ncount);
        nunset(&oldn.l);
        nunset(&oldn.l);
        leave(&ninside);
        nunset(&oldn.l);
    }
    destroy(&old.l);
    ndestroy(&oldn.l);
    long want = (long)nt * (per / 2 + 1);
    LITE_EXPECT(count == want, "OMP_1.0 simple lock: count %ld, expected %ld", count, want);
    LITE_EXPECT(ncount == want, "OMP_1.0 nestable lock: count %ld, expected %ld", ncount, want);
    LITE_EXPECT(wrong == 0, "OMP_1.0 omp_test_nest_lock by the owner: %d wrong depths", wrong);
    guard_check(&old.before, old.after, "OMP_1.0 simple lock (4 bytes)");
    guard_check(&oldn.before, oldn.after, "OMP_1.0 nestable lock (8 bytes)");
}

int main(int argc, char **argv)
{
    LITE_CHECK("locks");
    per = argc > 1 ? atoi(argv[1]) : 0;
    int want = argc > 2 ? atoi(argv[2]) : 0;
    nt = want > 0 ? want : omp_get_max_threads();
    if (per <= 0)
        per = 20000 / nt + 50;

    static struct guarded_lock gl;
    static struct guarded_nest gn;
    guard_init(&gl.before, gl.after);
    guard_init(&gn.before, gn.after);

    omp_init_lock(&gl.l);
    simple_contention(&gl.l, "simple lock");
    omp_destroy_lock(&gl.l);
    guard_check(&gl.before, gl.after, "simple lock");

    omp_init_nest_lock(&gn.l);
    nest_contention(&gn.l, "nestable lock");
    omp_destroy_nest_lock(&gn.l);
    guard_check(&gn.before, gn.after, "nestable lock");

    hinted_locks(&gl, &gn);
    held_elsewhere();
    nest_owned_by_task();
    many_locks();
    legacy_locks();

    /* Init and destroy many times (a runtime that allocates per lock must not leak or fail). */
    for (int i = 0; i < 100000; i++) {
        omp_lock_t l;
        omp_init_lock(&l);
        omp_set_lock(&l);
        omp_unset_lock(&l);
        omp_destroy_lock(&l);
    }

    printf("locks: OK (%d threads, %d acquisitions each, %s)\n", nt, per, hints_state);
    return 0;
}
