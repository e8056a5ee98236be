/* target and teams on a runtime with no offload device: every target region runs on the host
   (host fallback), on the encountering thread as the initial thread of the device, in the
   program's own memory. gcc (built with offload targets but none installed here) compiles the
   regions for the host only and calls GOMP_target_ext, GOMP_teams4, GOMP_teams_reg and the
   data constructs; stock libgomp takes its host fallback for all of them, so the same checks hold
   there.

   Checks, all exact:
   - the device routines: no devices, the initial device is 0, omp_is_initial_device() everywhere;
   - map(to/from/tofrom) of scalars, arrays and pointer array sections move the values they should
     (a pointer inside the region is the host's: nothing is copied);
   - firstprivate (the default for scalars) is a copy, taken at region start, properly aligned;
     changes inside do not leak out;
   - inside a target region the thread is the device's initial thread: level 0, not in parallel,
     thread 0 of 1, one team; a parallel region in it gets the team size asked for, and so does
     each one when several threads of a parallel region meet a target region at once (each target
     region its own team; the outer team intact afterwards, down to a worksharing loop); a task
     made in a target region has run when the region ends;
   - target teams distribute parallel for with num_teams(4) thread_limit(2) and a reduction: every
     iteration once, 250 per team (dist_schedule(static)), the sum exact, the thread limit 2
     inside and the inner teams min(nthreads-var, 2) threads; target teams num_teams(5) runs its
     body once per team, and a parallel region in a team sees the team's number;
   - teams outside target: num_teams(3) runs each team exactly once; without the clause, the
     league has OMP_NUM_TEAMS teams, or libgomp's 3; OMP_TEAMS_THREAD_LIMIT (or thread_limit)
     bounds the thread limit inside and the parallel regions a team starts; omp_get_num_teams and
     omp_get_team_num inside those parallel regions are the team's;
   - target nowait (in a parallel region and outside any) and the data constructs (enter, exit,
     update) with depend: each waits for the sibling tasks it depends on, and later tasks for it
     (deferred tasks nap before writing, to give a runtime that ignores a dependence the chance
     to show it; nothing is timed);
   - target data with use_device_ptr and use_device_addr: the device pointer is the host's;
   - declare target functions and variables used in target regions;
   - the device memory routines on the initial device: alloc, free, is_present, memcpy with
     offsets, memcpy_rect with 2-D and 3-D sub-blocks (element by element, the untouched elements
     too), the NULL, NULL query, associate/disassociate (EINVAL: there is no device memory);
     a device that does not exist: EINVAL, NULL, host fallback (not under mandatory, where
     libgomp stops the program instead);
   - OMP_TARGET_OFFLOAD=mandatory does not stop the program for the default device (the initial
     one), device(0), device(omp_get_initial_device()), or if(0).

   usage: target            all of the above; the environment cases the runner uses:
                            OMP_NUM_THREADS=1, 2, 4, OMP_NUM_TEAMS=5, OMP_TEAMS_THREAD_LIMIT=2,
                            OMP_TARGET_OFFLOAD=mandatory and disabled, OMP_DEFAULT_DEVICE=0 and 7
          target device7    one target region with device(7), for OMP_TARGET_OFFLOAD=mandatory:
                            the runtime must stop the program (libgomp: exit status 1 and a line
                            naming OMP_TARGET_OFFLOAD); exits 3 if the construct returns
          target default    the same with a plain target region, for OMP_DEFAULT_DEVICE=7
          target data7, enter7, update7
                            the same with target data, target enter data, target update */
#include "lite_check.h"
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <strings.h>
#include <unistd.h>

/* The nthreads-var the program starts with: a target region starts from the initial ICVs. */
static int default_threads;
/* The thread limit outside teams (OMP_THREAD_LIMIT, unset in every case: no limit). */
static int plain_limit;
static int mandatory;

/* Deferred tasks that others depend on nap first, so that a runtime which lets the dependent
   construct go ahead too early would most likely show it. Not a timing assertion. */
static void nap(void) { usleep(2000); }

/* ---------------------------------------------------------------- declare target */

#pragma omp declare target
static int dt_base = 10;
static int dt_table[4] = { 1, 2, 3, 4 };
static int dt_scale(int v) { return v * dt_table[v & 3] + dt_base; }
/* A declare target function with a parallel region of its own. */
static int dt_team_sum(int n)
{
    int sum = 0;
#pragma omp parallel num_threads(n) reduction(+:sum)
    sum += omp_get_thread_num() + 1;
    return sum;
}
#pragma omp end declare target

static void check_declare_target(void)
{
    int r = 0, team = 0;
#pragma omp target map(from: r, team)
    {
        r = dt_scale(5);
        team = dt_team_sum(3);
        dt_base = 20;
        dt_table[2] = 30;
    }
#pragma omp target update from(dt_base, dt_table)
    LITE_EXPECT(r == 5 * 2 + 10, "declare target: dt_scale(5) gave %d in a target region, "
                "expected 20", r);
    LITE_EXPECT(team == 6, "declare target: a 3-thread team summed 1+2+3 to %d", team);
    LITE_EXPECT(dt_base == 20 && dt_table[2] == 30,
                "declare target: the variables are %d and %d after the region, expected 20, 30",
                dt_base, dt_table[2]);
    /* The host's own call sees the same variables. */
    LITE_EXPECT(dt_scale(2) == 2 * 30 + 20, "declare target: dt_scale(2) on the host gave %d",
                dt_scale(2));
}

/* ---------------------------------------------------------------- devices */

static void check_devices(void)
{
    long want_default = lite_env_first_long("OMP_DEFAULT_DEVICE", 0);
    LITE_EXPECT(omp_get_num_devices() == 0, "omp_get_num_devices() = %d, expected 0",
                omp_get_num_devices());
    LITE_EXPECT(omp_get_initial_device() == 0, "omp_get_initial_device() = %d, expected 0",
                omp_get_initial_device());
    LITE_EXPECT(omp_get_device_num() == 0, "omp_get_device_num() = %d on the host",
                omp_get_device_num());
    LITE_EXPECT(omp_is_initial_device(), "omp_is_initial_device() is false on the host");
    LITE_EXPECT(omp_get_default_device() == want_default, "omp_get_default_device() = %d, "
                "expected %ld", omp_get_default_device(), want_default);
}

/* ---------------------------------------------------------------- maps and firstprivate */

#define NARR 64
#define NPTR 100

static void check_maps(void)
{
    int to = 3, from = -1, tofrom = 4;
#pragma omp target map(to: to) map(from: from) map(tofrom: tofrom)
    {
        from = to * 2;
        tofrom += to;
    }
    LITE_EXPECT(from == 6 && tofrom == 7, "scalar maps: from = %d (expected 6), tofrom = %d "
                "(expected 7)", from, tofrom);

    int in[NARR], out[NARR], both[NARR];
    for (int i = 0; i < NARR; i++) {
        in[i] = i;
        out[i] = -1;
        both[i] = 1000 + i;
    }
#pragma omp target map(to: in) map(from: out) map(tofrom: both)
    for (int i = 0; i < NARR; i++) {
        out[i] = in[i] * 3;
        both[i] += in[i];
    }
    for (int i = 0; i < NARR; i++)
        LITE_EXPECT(out[i] == 3 * i && both[i] == 1000 + 2 * i,
                    "array maps: out[%d] = %d, both[%d] = %d", i, out[i], i, both[i]);

    int *p = malloc(NPTR * sizeof *p), *q = malloc(NPTR * sizeof *q);
    LITE_EXPECT(p != NULL && q != NULL, "out of memory");
    for (int i = 0; i < NPTR; i++) {
        p[i] = i;
        q[i] = -1;
    }
    /* Sections of pointed-to arrays, not starting at 0: only they are the region's to touch. */
#pragma omp target map(to: p[10:20]) map(tofrom: q[30:20])
    for (int i = 0; i < 20; i++)
        q[30 + i] = p[10 + i] * 2;
    for (int i = 0; i < NPTR; i++) {
        int want = i >= 30 && i < 50 ? (i - 20) * 2 : -1;
        LITE_EXPECT(q[i] == want, "pointer sections: q[%d] = %d, expected %d", i, q[i], want);
    }
    int *seen = NULL;
#pragma omp target map(tofrom: p[0:NPTR]) map(from: seen)
    {
        seen = p;
        p[NPTR - 1] = -7;
    }
    LITE_EXPECT(seen == p, "a mapped pointer is %p in the region, %p on the host (the host's "
                "memory is the device's)", (void *)seen, (void *)p);
    LITE_EXPECT(p[NPTR - 1] == -7, "a store through a mapped pointer was lost");
    free(p);
    free(q);
}

/* Big and aligned: passed by address and copied by the runtime, not by value. */
struct big {
    _Alignas(64) int v[40];
};

static void check_firstprivate(void)
{
    int x = 5;
    double d = 1.5;
    int arr[8];
    struct big b;
    for (int i = 0; i < 8; i++)
        arr[i] = i * i;
    for (int i = 0; i < 40; i++)
        b.v[i] = 100 + i;
    int saw_x = 0, arr_ok = 0, b_ok = 0, b_aligned = 0, arr_copied = 0;
    double saw_d = 0;
    uintptr_t host_arr = (uintptr_t)arr;
    /* x and d: firstprivate by default (scalars); arr and b: firstprivate by the clause. */
#pragma omp target firstprivate(arr, b) \
        map(from: saw_x, saw_d, arr_ok, b_ok, b_aligned, arr_copied)
    {
        saw_x = x;
        saw_d = d;
        arr_ok = 1;
        for (int i = 0; i < 8; i++)
            arr_ok &= arr[i] == i * i;
        b_ok = 1;
        for (int i = 0; i < 40; i++)
            b_ok &= b.v[i] == 100 + i;
        b_aligned = (uintptr_t)&b % 64 == 0;
        arr_copied = (uintptr_t)arr != host_arr;
        x = 99;
        d = -2.0;
        for (int i = 0; i < 8; i++)
            arr[i] = -1;
        for (int i = 0; i < 40; i++)
            b.v[i] = -1;
    }
    LITE_EXPECT(saw_x == 5 && saw_d == 1.5, "firstprivate scalars: %d and %g in the region, "
                "expected 5 and 1.5", saw_x, saw_d);
    LITE_EXPECT(arr_ok && b_ok, "firstprivate array %s, struct %s in the region",
                arr_ok ? "right" : "WRONG", b_ok ? "right" : "WRONG");
    LITE_EXPECT(arr_copied, "a firstprivate array has the host's address in the region");
    LITE_EXPECT(b_aligned, "a firstprivate _Alignas(64) struct is not 64-byte aligned in the "
                "region");
    LITE_EXPECT(x == 5 && d == 1.5, "firstprivate scalars leaked out: x = %d, d = %g", x, d);
    for (int i = 0; i < 8; i++)
        LITE_EXPECT(arr[i] == i * i, "a firstprivate array leaked out: arr[%d] = %d", i, arr[i]);
    for (int i = 0; i < 40; i++)
        LITE_EXPECT(b.v[i] == 100 + i, "a firstprivate struct leaked out: b.v[%d] = %d", i,
                    b.v[i]);

    /* The copy is taken at region start: a later change on the host is not seen. */
    int y = 1, saw_y = 0;
#pragma omp target map(from: saw_y)
    saw_y = y;
    y = 2;
    LITE_EXPECT(saw_y == 1, "firstprivate y: %d in the region, expected 1", saw_y);
}

/* ---------------------------------------------------------------- the initial thread */

struct state {
    int level, active_level, in_parallel, initial, num_teams, team_num, thread_num, num_threads,
        device_num, thread_limit;
};

static void check_initial_thread_state(const char *where, const struct state *s)
{
    LITE_EXPECT(s->level == 0 && s->active_level == 0, "%s: omp_get_level() = %d, "
                "omp_get_active_level() = %d, expected 0 (the device's initial thread)", where,
                s->level, s->active_level);
    LITE_EXPECT(!s->in_parallel, "%s: omp_in_parallel() is true", where);
    LITE_EXPECT(s->initial, "%s: omp_is_initial_device() is false", where);
    LITE_EXPECT(s->num_teams == 1 && s->team_num == 0, "%s: team %d of %d, expected 0 of 1",
                where, s->team_num, s->num_teams);
    LITE_EXPECT(s->thread_num == 0 && s->num_threads == 1, "%s: thread %d of %d, expected 0 of 1",
                where, s->thread_num, s->num_threads);
    LITE_EXPECT(s->device_num == 0, "%s: omp_get_device_num() = %d", where, s->device_num);
    LITE_EXPECT(s->thread_limit == plain_limit, "%s: omp_get_thread_limit() = %d, expected %d",
                where, s->thread_limit, plain_limit);
}

#pragma omp declare target
static void record_state(struct state *s)
{
    s->level = omp_get_level();
    s->active_level = omp_get_active_level();
    s->in_parallel = omp_in_parallel();
    s->initial = omp_is_initial_device();
    s->num_teams = omp_get_num_teams();
    s->team_num = omp_get_team_num();
    s->thread_num = omp_get_thread_num();
    s->num_threads = omp_get_num_threads();
    s->device_num = omp_get_device_num();
    s->thread_limit = omp_get_thread_limit();
}
#pragma omp end declare target

#define OUTER 4
#define INNER 3
#define ROUNDS 10

static void check_parallel_in_target(void)
{
    struct state s;
#pragma omp target map(from: s)
    record_state(&s);
    check_initial_thread_state("a target region", &s);

    int dflt = 0, three = 0, level = -1, in_par = 0, task_ran = 0;
#pragma omp target map(from: dflt, three, level, in_par) map(tofrom: task_ran)
    {
#pragma omp parallel
        {
#pragma omp master
            dflt = omp_get_num_threads();
        }
#pragma omp parallel num_threads(INNER)
        {
#pragma omp master
            {
                three = omp_get_num_threads();
                level = omp_get_level();
                in_par = omp_in_parallel();
            }
        }
        /* Ends with the region: its initial task's implicit barrier. */
#pragma omp task shared(task_ran)
        task_ran = 1;
    }
    LITE_EXPECT(dflt == default_threads, "a parallel region in a target region: %d threads, "
                "expected %d (nthreads-var)", dflt, default_threads);
    LITE_EXPECT(three == INNER && level == 1 && in_par, "parallel num_threads(%d) in a target "
                "region: %d threads at level %d, in parallel %d", INNER, three, level, in_par);
    LITE_EXPECT(task_ran, "a task in a target region had not run when the region ended");

    /* Several threads meet target regions at once; each starts a team of its own inside. */
    int grid[OUTER][INNER], sizes[OUTER], bad[OUTER], hits[100];
    for (int round = 0; round < ROUNDS; round++) {
        int outer_bad = 0;
        for (int o = 0; o < OUTER; o++) {
            sizes[o] = bad[o] = 0;
            for (int t = 0; t < INNER; t++)
                grid[o][t] = 0;
        }
        for (int i = 0; i < 100; i++)
            hits[i] = 0;
#pragma omp parallel num_threads(OUTER) shared(outer_bad)
        {
            int me = omp_get_thread_num();
            struct state st;
            /* All at once, as far as the runtime lets them. */
#pragma omp barrier
#pragma omp target map(tofrom: grid, sizes, bad) map(from: st)
            {
                record_state(&st);
#pragma omp parallel num_threads(INNER)
                {
                    int t = omp_get_thread_num();
                    grid[me][t] = me * 10 + t + 1;
#pragma omp barrier
                    if (t == 0) {
                        sizes[me] = omp_get_num_threads();
                        for (int k = 0; k < INNER; k++)
                            if (grid[me][k] != me * 10 + k + 1)
                                bad[me] |= 1;
                        if (omp_get_level() != 1 || omp_get_ancestor_thread_num(0) != 0)
                            bad[me] |= 2;
                    }
                }
            }
            check_initial_thread_state("a target region in a parallel region", &st);
            if (omp_get_thread_num() != me || omp_get_num_threads() != OUTER ||
                omp_get_level() != 1 || !omp_in_parallel()) {
#pragma omp atomic write
                outer_bad = 1;
            }
            /* The outer team still works together after its threads' target regions. */
#pragma omp for schedule(dynamic, 3)
            for (int i = 0; i < 100; i++)
                hits[i]++;
        }
        LITE_EXPECT(!outer_bad, "round %d: after a target region, the outer thread's number, "
                    "team size or level changed", round);
        for (int i = 0; i < 100; i++)
            LITE_EXPECT(hits[i] == 1, "round %d: the outer team's loop after the target regions "
                        "ran iteration %d %d times", round, i, hits[i]);
        for (int o = 0; o < OUTER; o++) {
            LITE_EXPECT(sizes[o] == INNER, "round %d: outer thread %d's target region got a "
                        "parallel team of %d, expected %d", round, o, sizes[o], INNER);
            LITE_EXPECT(bad[o] == 0, "round %d: outer thread %d's inner team: %s", round, o,
                        bad[o] & 1 ? "a member's store is missing (not one team?)"
                                   : "wrong level or ancestor");
        }
    }
}

/* ---------------------------------------------------------------- teams */

#define NLOOP 1000
#define LEAGUE 4

/* What is off in an iteration of the target teams loop: 0 (nothing), or which query (the `what`
   list below) gave *value. */
#pragma omp declare target
static int loop_state_error(int want_threads, int *value)
{
    int team = omp_get_team_num();
    if (omp_get_num_teams() != LEAGUE)
        return *value = omp_get_num_teams(), 1;
    if (team < 0 || team >= LEAGUE)
        return *value = team, 2;
    if (omp_get_thread_limit() != 2)
        return *value = omp_get_thread_limit(), 3;
    if (omp_get_num_threads() != want_threads)
        return *value = omp_get_num_threads(), 4;
    if (omp_get_level() != 1)
        return *value = omp_get_level(), 5;
    return 0;
}
#pragma omp end declare target

static void check_target_teams(void)
{
    long a[NLOOP], sum = 0, want = 0;
    int hits[NLOOP], per_team[LEAGUE] = { 0 }, bad = 0, bad_value = 0;
    for (int i = 0; i < NLOOP; i++) {
        a[i] = 3L * i + 1;
        want += a[i];
        hits[i] = 0;
    }
    int want_threads = default_threads < 2 ? default_threads : 2;
#pragma omp target teams distribute parallel for num_teams(LEAGUE) thread_limit(2) \
        dist_schedule(static) reduction(+:sum) map(to: a) map(tofrom: hits, per_team, bad, \
        bad_value)
    for (int i = 0; i < NLOOP; i++) {
        sum += a[i];
#pragma omp atomic update
        hits[i]++;
        int team = omp_get_team_num(), value = 0;
        int code = loop_state_error(want_threads, &value);
        if (code != 0) {
#pragma omp atomic write
            bad_value = value;
#pragma omp atomic write
            bad = code;
        } else {
#pragma omp atomic update
            per_team[team]++;
        }
    }
    static const char *const what[] = { "", "omp_get_num_teams()", "omp_get_team_num()",
                                         "omp_get_thread_limit()", "omp_get_num_threads()",
                                         "omp_get_level()" };
    LITE_EXPECT(bad == 0, "target teams distribute parallel for: %s = %d in the loop", what[bad],
                bad_value);
    for (int i = 0; i < NLOOP; i++)
        LITE_EXPECT(hits[i] == 1, "target teams distribute parallel for: iteration %d ran %d "
                    "times", i, hits[i]);
    LITE_EXPECT(sum == want, "target teams distribute parallel for: the sum is %ld, expected %ld",
                sum, want);
    for (int t = 0; t < LEAGUE; t++)
        LITE_EXPECT(per_team[t] == NLOOP / LEAGUE, "target teams: team %d ran %d iterations, "
                    "expected %d (dist_schedule(static))", t, per_team[t], NLOOP / LEAGUE);

    /* target teams without distribute: the body once per team; a parallel region in a team sees
       the team's number and the league's size. (gcc 12 allows only distribute, parallel, loop,
       omp_get_num_teams and omp_get_team_num directly in a teams region: every other query is
       made in a parallel region, and each team writes only its own slots.) */
    enum { L5 = 5 };
    int runs[L5] = { 0 }, inner_team[L5], inner_teams[L5], inner_level[L5];
    for (int t = 0; t < L5; t++)
        inner_team[t] = inner_teams[t] = inner_level[t] = -1;
#pragma omp target teams num_teams(L5) map(tofrom: runs, inner_team, inner_teams, inner_level)
    {
        int t = omp_get_team_num();
        if (t >= 0 && t < L5) {
            runs[t]++;
#pragma omp parallel num_threads(2)
            if (omp_get_thread_num() == omp_get_num_threads() - 1) {
                inner_team[t] = omp_get_team_num();
                inner_teams[t] = omp_get_num_teams();
                inner_level[t] = omp_get_level();
            }
        }
    }
    for (int t = 0; t < L5; t++) {
        LITE_EXPECT(runs[t] == 1, "target teams num_teams(%d): team %d ran %d times", L5, t,
                    runs[t]);
        LITE_EXPECT(inner_team[t] == t && inner_teams[t] == L5, "target teams: in a parallel "
                    "region of team %d, team %d of %d", t, inner_team[t], inner_teams[t]);
        LITE_EXPECT(inner_level[t] == 1, "target teams: a parallel region in team %d is at "
                    "level %d, expected 1 (teams add no level)", t, inner_level[t]);
    }
}

/* Teams outside target (OpenMP 5.0): the league runs on the host. */
static void check_host_teams(void)
{
    long ttl = lite_env_first_long("OMP_TEAMS_THREAD_LIMIT", 0);
    int team_limit = ttl > 0 ? (int)ttl : plain_limit;
    int want_inner = team_limit < 4 ? team_limit : 4;
    LITE_EXPECT(omp_get_teams_thread_limit() == (int)ttl, "omp_get_teams_thread_limit() = %d, "
                "expected %ld", omp_get_teams_thread_limit(), ttl);
    LITE_EXPECT(omp_get_max_teams() == (int)lite_env_first_long("OMP_NUM_TEAMS", 0),
                "omp_get_max_teams() = %d", omp_get_max_teams());

    /* As in target teams, only parallel regions and the two team queries directly in a team. */
    enum { L3 = 3, SLOTS = 64 };
    int runs[SLOTS] = { 0 }, league[SLOTS], size[SLOTS], limit[SLOTS], level[SLOTS];
    int inner_team[SLOTS], inner_teams[SLOTS];
    for (int t = 0; t < SLOTS; t++)
        league[t] = size[t] = limit[t] = level[t] = inner_team[t] = inner_teams[t] = -1;
#pragma omp teams num_teams(L3)
    {
        int t = omp_get_team_num();
        if (t >= 0 && t < SLOTS) {
            runs[t]++;
            league[t] = omp_get_num_teams();
#pragma omp parallel num_threads(4)
            if (omp_get_thread_num() == omp_get_num_threads() - 1) {
                size[t] = omp_get_num_threads();
                limit[t] = omp_get_thread_limit();
                level[t] = omp_get_level();
                inner_team[t] = omp_get_team_num();
                inner_teams[t] = omp_get_num_teams();
            }
        }
    }
    for (int t = 0; t < SLOTS; t++) {
        int want_runs = t < L3;
        LITE_EXPECT(runs[t] == want_runs, "teams num_teams(%d): team %d ran %d times", L3, t,
                    runs[t]);
        if (!want_runs)
            continue;
        LITE_EXPECT(league[t] == L3, "teams num_teams(%d): omp_get_num_teams() = %d in team %d",
                    L3, league[t], t);
        LITE_EXPECT(limit[t] == team_limit, "teams: omp_get_thread_limit() = %d in team %d, "
                    "expected %d", limit[t], t, team_limit);
        LITE_EXPECT(size[t] == want_inner, "teams: team %d's parallel num_threads(4) got %d "
                    "threads, expected %d (thread limit %d)", t, size[t], want_inner,
                    team_limit);
        LITE_EXPECT(level[t] == 1, "teams: team %d's parallel region is at level %d, expected 1",
                    t, level[t]);
        LITE_EXPECT(inner_team[t] == t && inner_teams[t] == L3, "teams: in a parallel region of "
                    "team %d, team %d of %d", t, inner_team[t], inner_teams[t]);
    }
    LITE_EXPECT(omp_get_num_teams() == 1 && omp_get_team_num() == 0,
                "after a teams region: team %d of %d", omp_get_team_num(), omp_get_num_teams());
    LITE_EXPECT(omp_get_thread_limit() == plain_limit, "after a teams region: thread limit %d, "
                "expected %d", omp_get_thread_limit(), plain_limit);

    /* No num_teams clause: OMP_NUM_TEAMS, or libgomp's default of 3 teams. */
    int want_league = (int)lite_env_first_long("OMP_NUM_TEAMS", 3);
    int runs2[SLOTS] = { 0 }, league2 = -1;
#pragma omp teams
    {
        int t = omp_get_team_num();
        if (t >= 0 && t < SLOTS)
            runs2[t]++;
        if (t == 0)
            league2 = omp_get_num_teams();
    }
    LITE_EXPECT(league2 == want_league, "teams without num_teams: omp_get_num_teams() = %d, "
                "expected %d", league2, want_league);
    for (int t = 0; t < SLOTS; t++)
        LITE_EXPECT(runs2[t] == (t < want_league), "teams without num_teams: team %d ran %d "
                    "times", t, runs2[t]);

    /* The thread_limit clause wins over OMP_TEAMS_THREAD_LIMIT. */
    int limit_in = -1;
#pragma omp teams num_teams(1) thread_limit(3)
    {
#pragma omp parallel num_threads(1)
        limit_in = omp_get_thread_limit();
    }
    LITE_EXPECT(limit_in == 3, "teams thread_limit(3): omp_get_thread_limit() = %d", limit_in);
}

/* ---------------------------------------------------------------- nowait and depend */

#define NBUF 32

static void check_depend(int nthreads)
{
    int v = 0, v_seen = -1, buf[NBUF], enter_ok = 0, update_ok = 0, exit_ok = 0, chain_ok = 0;
#pragma omp parallel num_threads(nthreads)
#pragma omp single
    {
        /* A chain through two target nowait regions. */
#pragma omp task depend(out: v) shared(v)
        {
            nap();
            v = 1;
        }
#pragma omp target nowait depend(inout: v) map(tofrom: v)
        v = v * 10 + 2;
#pragma omp target nowait depend(inout: v) map(tofrom: v)
        v = v * 10 + 3;
#pragma omp task depend(in: v) shared(v, v_seen)
        v_seen = v;
#pragma omp taskwait

        /* Without nowait, a data construct returns once the tasks it depends on are done. */
#pragma omp task depend(out: buf[0]) shared(buf)
        {
            nap();
            for (int i = 0; i < NBUF; i++)
                buf[i] = i + 1;
        }
#pragma omp target enter data map(to: buf[0:NBUF]) depend(inout: buf[0])
        enter_ok = buf[0] == 1 && buf[NBUF - 1] == NBUF;
#pragma omp task depend(out: buf[0]) shared(buf)
        {
            nap();
            for (int i = 0; i < NBUF; i++)
                buf[i] *= 2;
        }
#pragma omp target update to(buf[0:NBUF]) depend(inout: buf[0])
        update_ok = buf[0] == 2 && buf[NBUF - 1] == 2 * NBUF;
#pragma omp task depend(out: buf[0]) shared(buf)
        {
            nap();
            for (int i = 0; i < NBUF; i++)
                buf[i] += 1;
        }
#pragma omp target exit data map(from: buf[0:NBUF]) depend(inout: buf[0])
        exit_ok = buf[0] == 3 && buf[NBUF - 1] == 2 * NBUF + 1;

        /* The nowait forms, in a chain that ends in a task and a taskwait. */
#pragma omp task depend(out: buf[0]) shared(buf)
        {
            nap();
            for (int i = 0; i < NBUF; i++)
                buf[i] = 0;
        }
#pragma omp target enter data map(to: buf[0:NBUF]) depend(inout: buf[0]) nowait
#pragma omp target nowait depend(inout: buf[0]) map(tofrom: buf[0:NBUF])
        for (int i = 0; i < NBUF; i++)
            buf[i] += 100 + i;
#pragma omp target update from(buf[0:NBUF]) depend(inout: buf[0]) nowait
#pragma omp task depend(in: buf[0]) shared(buf, chain_ok)
        {
            chain_ok = 1;
            for (int i = 0; i < NBUF; i++)
                chain_ok &= buf[i] == 100 + i;
        }
#pragma omp target exit data map(release: buf[0:NBUF]) depend(inout: buf[0]) nowait
#pragma omp taskwait
    }
    LITE_EXPECT(v == 123 && v_seen == 123, "%d threads: task, two target nowait regions and a "
                "task in a depend chain: v = %d, the last task saw %d, expected 123", nthreads, v,
                v_seen);
    LITE_EXPECT(enter_ok, "%d threads: target enter data depend(inout) returned before the task "
                "it depends on was done", nthreads);
    LITE_EXPECT(update_ok, "%d threads: target update depend(inout) returned before the task "
                "it depends on was done", nthreads);
    LITE_EXPECT(exit_ok, "%d threads: target exit data depend(inout) returned before the task it "
                "depends on was done", nthreads);
    LITE_EXPECT(chain_ok, "%d threads: enter data, target, update (all nowait) and a task in a "
                "depend chain: the task did not see the target region's stores", nthreads);
}

/* target nowait outside any parallel region, then a task that depends on it. Run last: stock
   libgomp 12 gives the initial thread an implicit team of one for such a region, and later
   parallel regions with tasks then hang now and then (in 5 rounds of this and a 4-thread region
   with a task, 4 runs in 10 hung); libomp-lite runs the region at once. */
static void check_toplevel_nowait(void)
{
    int x = 0, seen = -1;
#pragma omp target nowait depend(out: x) map(tofrom: x)
    x = 42;
#pragma omp task depend(in: x) shared(x, seen)
    seen = x;
#pragma omp taskwait
    LITE_EXPECT(x == 42 && seen == 42, "target nowait depend(out) then task depend(in), no "
                "parallel region: x = %d, the task saw %d", x, seen);
}

/* ---------------------------------------------------------------- target data */

static void check_target_data(void)
{
    int *p = malloc(NPTR * sizeof *p), *host = p, *dev = NULL;
    LITE_EXPECT(p != NULL, "out of memory");
    int arr[16] = { 0 }, *arr_dev = NULL;
    for (int i = 0; i < NPTR; i++)
        p[i] = i;
#pragma omp target data map(tofrom: p[0:NPTR]) use_device_ptr(p)
    dev = p;
    LITE_EXPECT(dev == host, "target data use_device_ptr: the device pointer is %p, the host's "
                "%p", (void *)dev, (void *)host);
#pragma omp target data map(tofrom: arr) use_device_addr(arr)
    arr_dev = &arr[0];
    LITE_EXPECT(arr_dev == &arr[0], "target data use_device_addr: the device address is %p, the "
                "host's %p", (void *)arr_dev, (void *)&arr[0]);

    /* A target region in a data region, and a region given the device pointer. */
#pragma omp target data map(tofrom: p[0:NPTR])
    {
#pragma omp target
        for (int i = 0; i < NPTR; i++)
            p[i] *= 2;
#pragma omp target data use_device_ptr(p)
        {
#pragma omp target is_device_ptr(p)
            p[0] = -5;
        }
    }
    LITE_EXPECT(p[0] == -5, "a target region with is_device_ptr: p[0] = %d", p[0]);
    for (int i = 1; i < NPTR; i++)
        LITE_EXPECT(p[i] == 2 * i, "target data: p[%d] = %d, expected %d", i, p[i], 2 * i);
    free(p);
}

/* ---------------------------------------------------------------- device memory routines */

/* The rectangle copies: element by element, every element of the destination (the ones outside
   the copied block must stay as they were). */
static void check_memcpy_rect(int host)
{
    enum { SR = 6, SC = 8, DR = 5, DC = 7 };
    int src2[SR][SC], dst2[DR][DC];
    for (int r = 0; r < SR; r++)
        for (int c = 0; c < SC; c++)
            src2[r][c] = 100 * r + c;
    for (int r = 0; r < DR; r++)
        for (int c = 0; c < DC; c++)
            dst2[r][c] = -1;
    size_t vol2[2] = { 3, 4 }, doff2[2] = { 1, 2 }, soff2[2] = { 2, 3 };
    size_t ddim2[2] = { DR, DC }, sdim2[2] = { SR, SC };
    int rc = omp_target_memcpy_rect(dst2, src2, sizeof(int), 2, vol2, doff2, soff2, ddim2, sdim2,
                                    host, host);
    LITE_EXPECT(rc == 0, "omp_target_memcpy_rect 2-D returned %d", rc);
    for (int r = 0; r < DR; r++)
        for (int c = 0; c < DC; c++) {
            int in = r >= 1 && r < 4 && c >= 2 && c < 6;
            int want = in ? 100 * (r - 1 + 2) + (c - 2 + 3) : -1;
            LITE_EXPECT(dst2[r][c] == want, "omp_target_memcpy_rect 2-D: dst[%d][%d] = %d, "
                        "expected %d", r, c, dst2[r][c], want);
        }

    enum { S0 = 4, S1 = 5, S2 = 6, D0 = 3, D1 = 4, D2 = 7 };
    static long src3[S0][S1][S2], dst3[D0][D1][D2];
    for (int i = 0; i < S0; i++)
        for (int j = 0; j < S1; j++)
            for (int k = 0; k < S2; k++)
                src3[i][j][k] = 10000L * i + 100L * j + k;
    for (int i = 0; i < D0; i++)
        for (int j = 0; j < D1; j++)
            for (int k = 0; k < D2; k++)
                dst3[i][j][k] = -1;
    size_t vol3[3] = { 2, 3, 4 }, doff3[3] = { 1, 0, 3 }, soff3[3] = { 2, 1, 1 };
    size_t ddim3[3] = { D0, D1, D2 }, sdim3[3] = { S0, S1, S2 };
    rc = omp_target_memcpy_rect(dst3, src3, sizeof(long), 3, vol3, doff3, soff3, ddim3, sdim3,
                                host, host);
    LITE_EXPECT(rc == 0, "omp_target_memcpy_rect 3-D returned %d", rc);
    for (int i = 0; i < D0; i++)
        for (int j = 0; j < D1; j++)
            for (int k = 0; k < D2; k++) {
                int in = i >= 1 && i < 3 && j < 3 && k >= 3;
                long want = in ? 10000L * (i - 1 + 2) + 100L * (j + 1) + (k - 3 + 1) : -1;
                LITE_EXPECT(dst3[i][j][k] == want, "omp_target_memcpy_rect 3-D: dst[%d][%d][%d] "
                            "= %ld, expected %ld", i, j, k, dst3[i][j][k], want);
            }

    rc = omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, host, host);
    LITE_EXPECT(rc == INT_MAX, "omp_target_memcpy_rect(NULL, NULL, ...) = %d, expected INT_MAX "
                "(any number of dimensions)", rc);
    if (!mandatory) {
        rc = omp_target_memcpy_rect(dst2, src2, sizeof(int), 2, vol2, doff2, soff2, ddim2, sdim2,
                                    7, host);
        LITE_EXPECT(rc == EINVAL, "omp_target_memcpy_rect to device 7 returned %d, expected "
                    "EINVAL", rc);
    }
}

static void check_memory_routines(void)
{
    int host = omp_get_initial_device();
    enum { N = 64 };
    int *d = omp_target_alloc(N * sizeof(int), host);
    LITE_EXPECT(d != NULL, "omp_target_alloc on the initial device returned NULL");
    LITE_EXPECT(omp_target_is_present(d, host) == 1, "omp_target_is_present(alloc'd, host) = %d",
                omp_target_is_present(d, host));
    int local = 0;
    LITE_EXPECT(omp_target_is_present(&local, host) == 1, "omp_target_is_present(&local, host) "
                "= %d", omp_target_is_present(&local, host));
    LITE_EXPECT(omp_target_is_present(NULL, host) == 1, "omp_target_is_present(NULL, host) = %d",
                omp_target_is_present(NULL, host));

    int src[N];
    for (int i = 0; i < N; i++) {
        src[i] = 7 * i;
        d[i] = -1;
    }
    /* 10 ints from src[20] to d[5]; offsets count bytes. */
    int rc = omp_target_memcpy(d, src, 10 * sizeof(int), 5 * sizeof(int), 20 * sizeof(int), host,
                               host);
    LITE_EXPECT(rc == 0, "omp_target_memcpy returned %d", rc);
    for (int i = 0; i < N; i++) {
        int want = i >= 5 && i < 15 ? 7 * (i + 15) : -1;
        LITE_EXPECT(d[i] == want, "omp_target_memcpy: d[%d] = %d, expected %d", i, d[i], want);
    }
    /* The allocated memory is usable in a target region (is_device_ptr). */
#pragma omp target is_device_ptr(d)
    for (int i = 0; i < N; i++)
        d[i] = i;
    for (int i = 0; i < N; i++)
        LITE_EXPECT(d[i] == i, "omp_target_alloc'd memory written in a target region: d[%d] = %d",
                    i, d[i]);

    LITE_EXPECT(omp_target_associate_ptr(src, d, sizeof src, 0, host) == EINVAL,
                "omp_target_associate_ptr on the initial device did not return EINVAL");
    LITE_EXPECT(omp_target_disassociate_ptr(src, host) == EINVAL,
                "omp_target_disassociate_ptr on the initial device did not return EINVAL");
    if (!mandatory) {
        /* Under mandatory, libgomp stops the program for a device that does not exist. */
        rc = omp_target_memcpy(d, src, sizeof(int), 0, 0, 7, host);
        LITE_EXPECT(rc == EINVAL, "omp_target_memcpy to device 7 returned %d, expected EINVAL",
                    rc);
        rc = omp_target_memcpy(d, src, sizeof(int), 0, 0, host, 7);
        LITE_EXPECT(rc == EINVAL, "omp_target_memcpy from device 7 returned %d, expected EINVAL",
                    rc);
        void *p7 = omp_target_alloc(16, 7);
        LITE_EXPECT(p7 == NULL, "omp_target_alloc on device 7 returned %p", p7);
    }
    omp_target_free(d, host);
    omp_target_free(NULL, host);
    check_memcpy_rect(host);
}

/* ---------------------------------------------------------------- OMP_TARGET_OFFLOAD */

static void check_device_clauses(void)
{
    int ran = 0, initial = 0;
    /* The initial device, by number, and if(0): never an error, mandatory or not. */
#pragma omp target device(0) map(tofrom: ran)
    ran++;
#pragma omp target device(omp_get_initial_device()) map(tofrom: ran)
    ran++;
#pragma omp target if(0) map(tofrom: ran)
    ran++;
#pragma omp target if(0) device(7) map(tofrom: ran, initial)
    {
        ran++;
        initial = omp_is_initial_device();
    }
    LITE_EXPECT(ran == 4 && initial, "target device(0), device(initial), if(0), if(0) device(7): "
                "%d of 4 ran", ran);
    if (!mandatory) {
        /* Without mandatory, a device that does not exist means the host. */
#pragma omp target device(7) map(tofrom: ran)
        ran++;
#pragma omp target data device(7) map(tofrom: ran)
        {
#pragma omp target device(7) map(tofrom: ran)
            ran++;
        }
#pragma omp target update device(7) to(ran)
        LITE_EXPECT(ran == 6, "target device(7) without mandatory: %d of 2 ran", ran - 4);
    }
}

/* The cases that must stop the program under OMP_TARGET_OFFLOAD=mandatory: a construct for a
   device that does not exist (libgomp: every device construct, as OpenMP 5.2 asks). Returns 0
   for an unknown mode. */
static int must_stop(const char *mode)
{
    int ran = 0, x = 0;
    const char *what;
    (void)x; /* named only in map clauses, which gcc does not count as a use */
    fflush(stdout);
    if (strcmp(mode, "device7") == 0) {
        what = "a target region with device(7)";
#pragma omp target device(7) map(tofrom: ran)
        ran = 1;
    } else if (strcmp(mode, "default") == 0) {
        what = "a target region for the default device";
#pragma omp target map(tofrom: ran)
        ran = 1;
    } else if (strcmp(mode, "data7") == 0) {
        what = "target data with device(7)";
#pragma omp target data device(7) map(tofrom: x)
        ran = 1;
    } else if (strcmp(mode, "enter7") == 0) {
        what = "target enter data with device(7)";
#pragma omp target enter data device(7) map(to: x)
    } else if (strcmp(mode, "update7") == 0) {
        what = "target update with device(7)";
#pragma omp target update device(7) to(x)
    } else {
        return 0;
    }
    /* Not lite_fail: its status 1 is the one the runtime's error exits with. */
    fprintf(stderr, "target: FAIL: %s %s under OMP_TARGET_OFFLOAD=mandatory (default device "
            "%d)\n", what, ran ? "ran its body" : "returned", omp_get_default_device());
    _exit(3);
}

int main(int argc, char **argv)
{
    LITE_CHECK("target");
    const char *offload = getenv("OMP_TARGET_OFFLOAD");
    mandatory = offload != NULL && strcasecmp(offload, "mandatory") == 0;
    if (argc > 1) {
        must_stop(argv[1]);
        lite_fail("usage: target [device7|default|data7|enter7|update7] (got '%s')", argv[1]);
    }
    default_threads = omp_get_max_threads();
    plain_limit = (int)lite_env_first_long("OMP_THREAD_LIMIT", INT_MAX);

    check_devices();
    check_maps();
    check_firstprivate();
    check_parallel_in_target();
    check_target_teams();
    check_host_teams();
    check_depend(default_threads);
    check_depend(4);
    check_target_data();
    check_declare_target();
    check_memory_routines();
    check_device_clauses();
    check_toplevel_nowait();
    printf("target: OK (%d threads, OMP_TARGET_OFFLOAD=%s)\n", default_threads,
           offload ? offload : "(unset)");
    return 0;
}
