/* kmp_affinity: LLVM's KMP_AFFINITY and KMP_HW_SUBSET as libomp-lite translates them
   (affinity/kmp_env.c), seen from inside the program through the place routines,
   omp_get_proc_bind, omp_get_max_threads and each thread's own mask.

   usage: kmp_affinity [NTHREADS]   (default: omp_get_max_threads())
   Environment read by the test (each case says what it expects):
     KMP_EXPECT_PLACES   the place list, in OMP_DISPLAY_ENV's shape ("{0},{1}"; "" for none)
     KMP_EXPECT_BIND     false, true, primary, close or spread: omp_get_proc_bind()
     KMP_EXPECT_THREADS  omp_get_max_threads()
   Then one region of NTHREADS threads: bound, thread k's mask is its place's CPUs and, under
   close with no more threads than places, its place is k (LLVM's compact and scatter give thread
   k the k-th entry of their list); unbound, every thread's place is -1 and its mask the
   process's. Used by run-routes.sh on this machine and by tests/vm/guest-checks.sh in guests. */
#include "lite_check.h"

#include <errno.h>
#include <omp.h>
#include <sched.h>

#define MAX_T 256

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

/* The place list as OMP_DISPLAY_ENV shows it: a run of two or more consecutive CPUs as a:n. */
static void format_places(char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (int p = 0; p < omp_get_num_places() && len + 64 < size; p++) {
        int ids[CPU_SETSIZE], n = omp_get_place_num_procs(p);
        omp_get_place_proc_ids(p, ids);
        len += (size_t)snprintf(out + len, size - len, p ? ",{" : "{");
        for (int i = 0; i < n && len + 32 < size;) {
            int run = 1;
            while (i + run < n && ids[i + run] == ids[i] + run)
                run++;
            len += (size_t)(run > 1 ? snprintf(out + len, size - len, i ? ",%d:%d" : "%d:%d",
                                               ids[i], run)
                                    : snprintf(out + len, size - len, i ? ",%d" : "%d", ids[i]));
            i += run;
        }
        len += (size_t)snprintf(out + len, size - len, "}");
    }
}

static const char *bind_name(omp_proc_bind_t b)
{
    switch (b) {
    case omp_proc_bind_false: return "false";
    case omp_proc_bind_true: return "true";
    case omp_proc_bind_primary: return "primary";
    case omp_proc_bind_close: return "close";
    case omp_proc_bind_spread: return "spread";
    }
    return "?";
}

int main(int argc, char **argv)
{
    lite_test_name = "kmp_affinity";
    cpu_set_t process;
    mask_of_self(&process); /* before any OpenMP call: nothing is bound yet */
    LITE_CHECK("kmp_affinity");

    static char places[1 << 16];
    format_places(places, sizeof places);
    const char *want = getenv("KMP_EXPECT_PLACES");
    if (want != NULL && strcmp(places, want) != 0)
        lite_fail("places %s, expected %s", places, want);
    const char *bind = bind_name(omp_get_proc_bind());
    want = getenv("KMP_EXPECT_BIND");
    if (want != NULL && strcmp(bind, want) != 0)
        lite_fail("omp_get_proc_bind() is %s, expected %s", bind, want);
    want = getenv("KMP_EXPECT_THREADS");
    if (want != NULL && omp_get_max_threads() != atoi(want))
        lite_fail("omp_get_max_threads() = %d, expected %s", omp_get_max_threads(), want);

    int nthreads = argc > 1 ? atoi(argv[1]) : omp_get_max_threads();
    if (nthreads < 1 || nthreads > MAX_T)
        lite_fail("bad thread count %d", nthreads);
    int place_of[MAX_T], team = 0;
    cpu_set_t mask_of[MAX_T];
#pragma omp parallel num_threads(nthreads)
    {
        int k = omp_get_thread_num();
        place_of[k] = omp_get_place_num();
        mask_of_self(&mask_of[k]);
#pragma omp single
        team = omp_get_num_threads();
    }
    if (team != nthreads)
        lite_fail("a team of %d threads, asked for %d", team, nthreads);
    int nplaces = omp_get_num_places();
    for (int k = 0; k < team; k++) {
        if (nplaces == 0) {
            if (place_of[k] != -1 || !CPU_EQUAL(&mask_of[k], &process))
                lite_fail("unbound, but thread %d is on place %d with another mask", k,
                          place_of[k]);
            continue;
        }
        if (place_of[k] < 0 || place_of[k] >= nplaces)
            lite_fail("thread %d is on place %d of %d", k, place_of[k], nplaces);
        cpu_set_t set;
        place_set(place_of[k], &set);
        if (!CPU_EQUAL(&set, &mask_of[k]))
            lite_fail("thread %d's mask is not its place %d", k, place_of[k]);
        if (omp_get_proc_bind() == omp_proc_bind_close && team <= nplaces && place_of[k] != k)
            lite_fail("close: thread %d is on place %d, expected %d", k, place_of[k], k);
    }
    printf("kmp_affinity: %d threads, bind %s, places %s\n", team, bind, places);
    return 0;
}
