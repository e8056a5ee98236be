/* Nested parallelism and the ICVs that govern it: omp_get_level, omp_get_active_level,
   omp_get_ancestor_thread_num, omp_get_team_size, omp_in_parallel; max-active-levels from
   omp_set_max_active_levels, OMP_MAX_ACTIVE_LEVELS, OMP_NESTED, omp_set_nested and nested
   OMP_NUM_THREADS lists; dynamic adjustment; omp_set_num_threads inside a region, which affects only
   the regions nested in it.

   The environment cases the runner uses: none, OMP_NESTED=true|false, OMP_MAX_ACTIVE_LEVELS=2,
   OMP_NESTED=true OMP_MAX_ACTIVE_LEVELS=1, OMP_NUM_THREADS=3,2, OMP_DYNAMIC=true. */
#include "lite_check.h"
#include <omp.h>

#define MAXT 64

static int env_is(const char *name, const char *value)
{
    const char *s = getenv(name);
    return s && strcasecmp(s, value) == 0;
}

/* Number of entries in a comma-separated OMP_NUM_THREADS list (0 when unset). */
static int nthreads_list(int *vals, int max)
{
    const char *s = getenv("OMP_NUM_THREADS");
    int n = 0;
    while (s && *s && n < max) {
        char *end;
        vals[n++] = (int)strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : NULL;
    }
    return n;
}

/* What every thread of a nested region must see, given the enclosing teams' sizes and its own
   thread numbers at each level. levels[] and tids[] are indexed by level 1..level. */
static void check_position(int level, const int *sizes, const int *tids, int active_level,
                           const char *what)
{
    LITE_EXPECT(omp_get_level() == level, "%s: omp_get_level()=%d, expected %d", what,
                omp_get_level(), level);
    LITE_EXPECT(omp_get_active_level() == active_level, "%s: omp_get_active_level()=%d, "
                "expected %d", what, omp_get_active_level(), active_level);
    LITE_EXPECT(omp_in_parallel() == (active_level > 0), "%s: omp_in_parallel()=%d with active "
                "level %d", what, omp_in_parallel(), active_level);
    LITE_EXPECT(omp_get_ancestor_thread_num(0) == 0, "%s: omp_get_ancestor_thread_num(0)=%d",
                what, omp_get_ancestor_thread_num(0));
    LITE_EXPECT(omp_get_team_size(0) == 1, "%s: omp_get_team_size(0)=%d", what,
                omp_get_team_size(0));
    for (int l = 1; l <= level; l++) {
        LITE_EXPECT(omp_get_ancestor_thread_num(l) == tids[l], "%s: omp_get_ancestor_thread_num"
                    "(%d)=%d, expected %d", what, l, omp_get_ancestor_thread_num(l), tids[l]);
        LITE_EXPECT(omp_get_team_size(l) == sizes[l], "%s: omp_get_team_size(%d)=%d, expected %d",
                    what, l, omp_get_team_size(l), sizes[l]);
    }
    LITE_EXPECT(omp_get_ancestor_thread_num(level + 1) == -1, "%s: omp_get_ancestor_thread_num"
                "(level+1)=%d, expected -1", what, omp_get_ancestor_thread_num(level + 1));
    LITE_EXPECT(omp_get_team_size(level + 1) == -1, "%s: omp_get_team_size(level+1)=%d, "
                "expected -1", what, omp_get_team_size(level + 1));
    LITE_EXPECT(omp_get_ancestor_thread_num(-1) == -1, "%s: omp_get_ancestor_thread_num(-1)=%d",
                what, omp_get_ancestor_thread_num(-1));
    LITE_EXPECT(omp_get_thread_num() == tids[level], "%s: omp_get_thread_num()=%d, expected %d",
                what, omp_get_thread_num(), tids[level]);
    LITE_EXPECT(omp_get_num_threads() == sizes[level], "%s: omp_get_num_threads()=%d, expected %d",
                what, omp_get_num_threads(), sizes[level]);
}

/* Three levels with explicit sizes a, b, c under max-active-levels mal; count every thread of
   the innermost teams. Inactive levels (beyond mal) get teams of one. */
static void three_levels(int a, int b, int c, int mal)
{
    char what[96];
    int want[4] = { 1, a, b, c };
    int eff[4] = { 1, 0, 0, 0 };
    int active[4] = { 0, 0, 0, 0 };
    for (int l = 1; l <= 3; l++) {
        active[l] = active[l - 1];
        eff[l] = 1;
        if (active[l - 1] < mal && want[l] > 1) {
            active[l] = active[l - 1] + 1;
            eff[l] = want[l];
        }
    }
    int inner_runs = 0;
    snprintf(what, sizeof what, "levels %d/%d/%d under max-active-levels %d", a, b, c, mal);
    omp_set_max_active_levels(mal);
#pragma omp parallel num_threads(a)
    {
        int tids[4] = { 0, omp_get_thread_num(), 0, 0 };
        check_position(1, eff, tids, active[1], what);
#pragma omp parallel num_threads(b)
        {
            int tids2[4] = { 0, tids[1], omp_get_thread_num(), 0 };
            check_position(2, eff, tids2, active[2], what);
#pragma omp parallel num_threads(c)
            {
                int tids3[4] = { 0, tids[1], tids2[2], omp_get_thread_num() };
                check_position(3, eff, tids3, active[3], what);
#pragma omp atomic
                inner_runs++;
            }
        }
    }
    LITE_EXPECT(inner_runs == eff[1] * eff[2] * eff[3], "%s: the innermost body ran %d times, "
                "expected %d", what, inner_runs, eff[1] * eff[2] * eff[3]);
}

int main(void)
{
    LITE_CHECK("nested");
    int list[8];
    int nlist = nthreads_list(list, 8);
    int supported = omp_get_supported_active_levels();
    LITE_EXPECT(supported >= 1, "omp_get_supported_active_levels()=%d", supported);

    /* The initial max-active-levels, as libgomp 12 derives it from the environment. */
    int mal0 = omp_get_max_active_levels();
    long env_mal = lite_env_first_long("OMP_MAX_ACTIVE_LEVELS", -1);
    if (env_mal >= 0)
        LITE_EXPECT(mal0 == (env_mal < supported ? env_mal : supported),
                    "OMP_MAX_ACTIVE_LEVELS=%ld: omp_get_max_active_levels()=%d", env_mal, mal0);
    else if (env_is("OMP_NESTED", "true") || nlist > 1)
        LITE_EXPECT(mal0 > 1, "OMP_NESTED=true or a nested OMP_NUM_THREADS list: "
                    "omp_get_max_active_levels()=%d, expected more than 1", mal0);
    else
        LITE_EXPECT(mal0 == 1, "default omp_get_max_active_levels()=%d, expected 1", mal0);
    LITE_EXPECT(omp_get_nested() == (mal0 > 1), "omp_get_nested()=%d with max-active-levels %d",
                omp_get_nested(), mal0);
    LITE_EXPECT(omp_get_dynamic() == env_is("OMP_DYNAMIC", "true"), "omp_get_dynamic()=%d with "
                "OMP_DYNAMIC=%s", omp_get_dynamic(), getenv("OMP_DYNAMIC") ? getenv("OMP_DYNAMIC")
                : "(unset)");

    /* The default nesting, as the environment set it: an inner region is active only when
       max-active-levels allows it. */
    if (!omp_get_dynamic()) {
        int outer = nlist > 0 ? list[0] : omp_get_max_threads();
        int inner_req = nlist > 1 ? list[1] : outer;
        int inner = mal0 > 1 ? inner_req : 1;
        int runs = 0;
#pragma omp parallel
        {
            LITE_EXPECT(omp_get_num_threads() == outer, "default outer team %d, expected %d",
                        omp_get_num_threads(), outer);
            LITE_EXPECT(omp_get_max_threads() == inner_req, "nthreads-var inside the outer "
                        "region is %d, expected %d", omp_get_max_threads(), inner_req);
#pragma omp parallel
            {
                LITE_EXPECT(omp_get_num_threads() == inner, "default inner team %d, expected %d "
                            "(max-active-levels %d)", omp_get_num_threads(), inner, mal0);
                LITE_EXPECT(omp_get_level() == 2 &&
                                omp_get_active_level() == (outer > 1) + (inner > 1),
                            "default nesting: level %d, active level %d", omp_get_level(),
                            omp_get_active_level());
                if (nlist > 1)  /* beyond the list, the last value repeats */
                    LITE_EXPECT(omp_get_max_threads() == list[nlist > 2 ? 2 : 1],
                                "nthreads-var at level 2 is %d", omp_get_max_threads());
#pragma omp atomic
                runs++;
            }
        }
        LITE_EXPECT(runs == outer * inner, "default nesting: inner bodies ran %d times, "
                    "expected %d", runs, outer * inner);
    }

    /* omp_set_max_active_levels, including out-of-range values. */
    omp_set_max_active_levels(supported + 1000);
    LITE_EXPECT(omp_get_max_active_levels() == supported, "omp_set_max_active_levels(too many): "
                "got %d, supported %d", omp_get_max_active_levels(), supported);
    omp_set_max_active_levels(2);
    omp_set_max_active_levels(-1);
    LITE_EXPECT(omp_get_max_active_levels() == 2, "a negative max-active-levels was not "
                "ignored: %d", omp_get_max_active_levels());
    omp_set_max_active_levels(0);
    LITE_EXPECT(omp_get_max_active_levels() == 0, "omp_set_max_active_levels(0): got %d",
                omp_get_max_active_levels());
    LITE_EXPECT(!omp_get_nested(), "omp_get_nested() true with max-active-levels 0");
#pragma omp parallel num_threads(3)
    {
        LITE_EXPECT(omp_get_num_threads() == 1 && omp_get_level() == 1 &&
                    omp_get_active_level() == 0 && !omp_in_parallel(),
                    "max-active-levels 0: team %d, level %d, active %d, in_parallel %d",
                    omp_get_num_threads(), omp_get_level(), omp_get_active_level(),
                    omp_in_parallel());
    }

    /* omp_set_nested (deprecated, still in the ABI). */
    omp_set_nested(1);
    LITE_EXPECT(omp_get_nested() && omp_get_max_active_levels() > 1, "omp_set_nested(1): nested "
                "%d, max-active-levels %d", omp_get_nested(), omp_get_max_active_levels());
    omp_set_nested(0);
    LITE_EXPECT(!omp_get_nested() && omp_get_max_active_levels() == 1, "omp_set_nested(0): "
                "nested %d, max-active-levels %d", omp_get_nested(), omp_get_max_active_levels());

    /* Three explicit levels under every max-active-levels from 0 to 4. */
    if (!omp_get_dynamic()) {
        for (int mal = 0; mal <= 4; mal++) {
            three_levels(2, 3, 2, mal);
            three_levels(3, 1, 2, mal);
        }
        for (int rep = 0; rep < 30; rep++)
            three_levels(2, 2, 2, 2);
    }

    /* omp_set_num_threads inside a region changes the nthreads-var of that thread's task only: it
       sizes the regions nested in it, not the enclosing or the following top-level ones. */
    if (!omp_get_dynamic()) {
        omp_set_max_active_levels(2);
        omp_set_num_threads(3);
        int sizes[3] = { 0, 0, 0 };
#pragma omp parallel
        {
            int tid = omp_get_thread_num();
            omp_set_num_threads(tid + 2);
            LITE_EXPECT(omp_get_max_threads() == tid + 2, "thread %d: omp_set_num_threads(%d) "
                        "inside a region: omp_get_max_threads()=%d", tid, tid + 2,
                        omp_get_max_threads());
#pragma omp barrier
#pragma omp parallel
            {
#pragma omp master
                sizes[tid] = omp_get_num_threads();
            }
        }
        for (int k = 0; k < 3; k++)
            LITE_EXPECT(sizes[k] == k + 2, "the region nested in thread %d has %d threads after "
                        "its omp_set_num_threads(%d)", k, sizes[k], k + 2);
        LITE_EXPECT(omp_get_max_threads() == 3, "omp_set_num_threads inside a region leaked out: "
                    "omp_get_max_threads()=%d, expected 3", omp_get_max_threads());
        int outer_size = 0;
#pragma omp parallel
        {
#pragma omp master
            outer_size = omp_get_num_threads();
        }
        LITE_EXPECT(outer_size == 3, "the next top-level region has %d threads, expected 3",
                    outer_size);
    }

    /* Dynamic adjustment: the runtime may give fewer threads (at least one), never more; every
       thread of the team it gives runs once. */
    omp_set_dynamic(1);
    LITE_EXPECT(omp_get_dynamic(), "omp_set_dynamic(1) did not stick");
    omp_set_max_active_levels(1);
    for (int rep = 0; rep < 200; rep++) {
        int n = 1 + rep % 6, size = 0, runs = 0, tidsum = 0;
#pragma omp parallel num_threads(n)
        {
#pragma omp master
            size = omp_get_num_threads();
#pragma omp atomic
            runs++;
#pragma omp atomic
            tidsum += omp_get_thread_num();
        }
        LITE_EXPECT(size >= 1 && size <= n, "dynamic: a team of %d for num_threads(%d)", size, n);
        LITE_EXPECT(runs == size && tidsum == size * (size - 1) / 2, "dynamic: team of %d: %d "
                    "runs, thread numbers sum to %d", size, runs, tidsum);
    }
    omp_set_dynamic(0);
    LITE_EXPECT(!omp_get_dynamic(), "omp_set_dynamic(0) did not stick");
    {
        int size = 0;
#pragma omp parallel num_threads(5)
        {
#pragma omp master
            size = omp_get_num_threads();
        }
        LITE_EXPECT(size == 5, "dyn false again: num_threads(5) gave %d", size);
    }

    printf("nested: OK (initial max-active-levels %d, supported %d)\n", mal0, supported);
    return 0;
}
