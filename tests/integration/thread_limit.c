/* OMP_THREAD_LIMIT (thread-limit-var): the most threads the contention group may have in teams at
   once, the initial thread and the threads of every nested team together, not each team on its
   own. Sibling teams that fork at the same moment compete for the last places: a runtime that
   reads the free places, then takes them, lets two siblings take the same ones (GCC's
   libgomp.c/thread-limit-1.c found that in libomp-lite).

   Checks, with the limit L from omp_get_thread_limit() (OMP_THREAD_LIMIT when set):
   - a top-level `parallel num_threads(8)` gets exactly min(8, L) threads, and a plain `parallel`
     min(omp_get_max_threads(), L), before and after the nested part (places given back);
   - nested `parallel num_threads(5)` > `num_threads(5)` > `num_threads(2)` with three active
     levels, and 2 > 5 > 2 (whose outer team leaves places over when L is small, for the two
     siblings to race for), the outer threads released from a barrier together so that their
     inner forks meet: the threads inside the innermost teams at once, counted with an atomic
     capture counter while each sleeps a little so that the teams overlap, never exceed L; every
     team has 1 to L threads;
   - when the outer team takes every place (L up to 16), each nested team is a team of one.
   Without a limit (L is INT_MAX) every team gets what it asks (OMP_DYNAMIC is false), up to 50
   threads at once.

   The environment cases the runner uses: none, OMP_THREAD_LIMIT=6, OMP_THREAD_LIMIT=3,
   OMP_THREAD_LIMIT=6 OMP_NUM_THREADS=4.

   usage: thread_limit */
#include "lite_check.h"
#include <limits.h>
#include <omp.h>
#include <unistd.h>

#define REPS 8
#define LEAF_NAPS 3

static int inside, max_inside;
static int bad_size; /* a team larger than the limit, or (no limit) not of the size asked for */
static int bad_size_level, bad_size_got, bad_size_asked;

static void note_bad_size(int level, int got, int asked)
{
#pragma omp critical(thread_limit_bad)
    if (!bad_size) {
        bad_size = 1;
        bad_size_level = level;
        bad_size_got = got;
        bad_size_asked = asked;
    }
}

/* Each team at nesting level `level` (1 to 3) asked for `asked` threads. */
static void check_team(int level, int asked, int limit)
{
    int n = omp_get_num_threads();
    if (n < 1 || n > limit || (limit == INT_MAX && !omp_get_dynamic() && n != asked))
        note_bad_size(level, n, asked);
}

/* One thread of an innermost team: counts itself in, records the most seen, naps so that the
   other teams get there too, counts itself out. */
static void leaf(void)
{
    for (int k = 0; k < LEAF_NAPS; k++) {
        int now;
#pragma omp atomic capture
        now = ++inside;
        int seen = __atomic_load_n(&max_inside, __ATOMIC_RELAXED);
        while (now > seen && !__atomic_compare_exchange_n(&max_inside, &seen, now, 1,
                                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED)) { }
        usleep(2000);
#pragma omp atomic update
        inside--;
    }
}

/* Teams of n1 > n2 > n3 threads asked for. */
static void nested(int limit, int n1, int n2, int n3)
{
#pragma omp parallel num_threads(n1)
    {
        check_team(1, n1, limit);
        /* Every outer thread forks its inner team at the same moment: the race for places. */
#pragma omp barrier
#pragma omp parallel num_threads(n2)
        {
            check_team(2, n2, limit);
#pragma omp parallel num_threads(n3)
            {
                check_team(3, n3, limit);
                leaf();
            }
        }
    }
}

static int team_size(int asked)
{
    int n = 0;
    if (asked > 0) {
#pragma omp parallel num_threads(asked)
#pragma omp single
        n = omp_get_num_threads();
    } else {
#pragma omp parallel
#pragma omp single
        n = omp_get_num_threads();
    }
    return n;
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* Top-level teams: nothing else holds places, so the limit alone cuts them. */
static void top_level(int limit, const char *when)
{
    int n = team_size(8);
    LITE_EXPECT(n == min_int(8, limit), "%s: parallel num_threads(8) with thread limit %d: %d "
                "threads, expected %d", when, limit, n, min_int(8, limit));
    int want = min_int(omp_get_max_threads(), limit);
    n = team_size(0);
    LITE_EXPECT(n == want, "%s: parallel (nthreads-var %d) with thread limit %d: %d threads, "
                "expected %d", when, omp_get_max_threads(), limit, n, want);
}

int main(void)
{
    LITE_CHECK("thread_limit");
    int limit = omp_get_thread_limit();
    long env = lite_env_first_long("OMP_THREAD_LIMIT", 0);
    if (env > 0)
        LITE_EXPECT(limit == env, "omp_get_thread_limit() = %d, OMP_THREAD_LIMIT is %ld", limit,
                    env);
    else
        LITE_EXPECT(limit == INT_MAX, "omp_get_thread_limit() = %d without OMP_THREAD_LIMIT, "
                    "expected INT_MAX", limit);
    LITE_EXPECT(!omp_get_dynamic(), "dynamic adjustment is on; the expected sizes assume off");
    int in_region = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
    in_region = omp_get_thread_limit();
    LITE_EXPECT(in_region == limit, "omp_get_thread_limit() = %d in a region, %d outside",
                in_region, limit);

    top_level(limit, "before nesting");

    omp_set_max_active_levels(3);
    for (int rep = 0; rep < REPS; rep++) {
        nested(limit, 5, 5, 2);
        nested(limit, 2, 5, 2);
        LITE_EXPECT(inside == 0, "threads counted in but not out: %d", inside);
    }
    int most = max_inside;
    LITE_EXPECT(!bad_size, "nested level %d: a team of %d threads (thread limit %d, asked %d)",
                bad_size_level, bad_size_got, limit, bad_size_asked);
    LITE_EXPECT(most <= limit, "nested teams: %d threads in the innermost teams at once, "
                "thread limit %d", most, limit);
    LITE_EXPECT(most <= 5 * 5 * 2, "nested teams: %d threads at once, at most 50 asked for", most);
    LITE_EXPECT(most >= 1, "nested teams: no thread reached the innermost level");

    /* An outer team that takes every place leaves none for the teams nested in it. */
    if (limit <= 16) {
        int outer = 0, wrong = 0;
#pragma omp parallel num_threads(limit) reduction(+:wrong)
        {
#pragma omp single
            outer = omp_get_num_threads();
#pragma omp parallel num_threads(3)
            if (omp_get_thread_num() == 0 && omp_get_num_threads() != 1)
                wrong++;
        }
        LITE_EXPECT(outer == limit, "parallel num_threads(%d) at the limit: %d threads", limit,
                    outer);
        LITE_EXPECT(wrong == 0, "with all %d places taken by the outer team, %d nested teams "
                    "still got more than one thread", limit, wrong);
    }

    top_level(limit, "after nesting");
    printf("thread_limit: OK (limit %d, at most %d threads at once in the innermost teams)\n",
           limit, most);
    return 0;
}
