/* harden: the cases of issue 26 ("hardening") that need a program of their own, one per mode.
   run-routes.sh (t_harden) sets the environment and reads stderr.

   usage: harden schedule KIND CHUNK   omp_get_schedule() must say KIND (static, dynamic, guided,
                                       auto) and CHUNK (OMP_SCHEDULE=guided,abc keeps guided)
          harden negative              num_threads(-3): a team of nthreads-var, right results
          harden dynamic-busy          OMP_DYNAMIC=true while other processes hold every CPU
                                       (the test starts them): some region within 10 s gets a
                                       team of one
          harden regions N COUNT       COUNT regions asking for N threads, results checked (a
                                       thread limit may shrink the teams)
          harden nested COUNT          COUNT outer regions of nthreads-var with nested regions
                                       inside (OMP_NUM_THREADS=2,5000), results checked
          harden runtime-loop N COUNT  COUNT regions of N threads, each with a schedule(runtime)
                                       loop of 100,000 iterations, every iteration run once
          harden mask COUNT            every member of COUNT regions of 4 threads finds its mask
                                       as the process's, and a worker that pins itself keeps
                                       its own mask */
#include "lite_check.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* One region of n threads asked for: every member runs once, with its own number. */
static int run_region(int n)
{
    int size = 0;
    long runs = 0, tidsum = 0;
#pragma omp parallel num_threads(n) reduction(+ : runs, tidsum)
    {
#pragma omp master
        size = omp_get_num_threads();
        runs++;
        tidsum += omp_get_thread_num();
    }
    long s = size;
    LITE_EXPECT(size >= 1 && runs == s && tidsum == s * (s - 1) / 2,
                "a team of %d: %ld runs, thread numbers sum to %ld", size, runs, tidsum);
    return size;
}

static int mode_schedule(const char *want_kind, int want_chunk)
{
    static const struct { const char *name; omp_sched_t kind; } kinds[] = {
        { "static", omp_sched_static }, { "dynamic", omp_sched_dynamic },
        { "guided", omp_sched_guided }, { "auto", omp_sched_auto } };
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    omp_sched_t base = (omp_sched_t)(kind & ~omp_sched_monotonic);
    const char *name = "?";
    for (unsigned i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (kinds[i].kind == base)
            name = kinds[i].name;
    LITE_EXPECT(strcmp(name, want_kind) == 0 && chunk == want_chunk,
                "omp_get_schedule: %s, %d; expected %s, %d", name, chunk, want_kind, want_chunk);
    run_region(0);
    printf("harden schedule: %s, %d\n", name, chunk);
    return 0;
}

static int mode_negative(void)
{
    volatile int n = -3;
    int want = omp_get_max_threads();
    for (int rep = 0; rep < 50; rep++) {
        int size = run_region(n);
        LITE_EXPECT(size == want, "num_threads(-3): a team of %d, expected nthreads-var %d", size,
                    want);
    }
    printf("harden negative: teams of %d\n", want);
    return 0;
}

static int mode_dynamic_busy(void)
{
    LITE_EXPECT(omp_get_dynamic(), "OMP_DYNAMIC=true did not set dyn-var");
    int size = 0;
    for (int rep = 0; rep < 200; rep++) {
        size = run_region(0);
        if (size == 1)
            break;
        sleep_ms(50);
    }
    LITE_EXPECT(size == 1, "dyn-var true, every CPU held by another process: a team of %d", size);
    printf("harden dynamic-busy: a team of one\n");
    return 0;
}

static int mode_regions(int n, int count)
{
    int smallest = n, largest = 0;
    for (int rep = 0; rep < count; rep++) {
        int size = run_region(n);
        LITE_EXPECT(size <= n, "a team of %d for num_threads(%d)", size, n);
        if (size < smallest)
            smallest = size;
        if (size > largest)
            largest = size;
    }
    printf("harden regions: %d regions of %d asked, teams of %d to %d\n", count, n, smallest,
           largest);
    return 0;
}

static int mode_runtime_loop(int n, int count)
{
    enum { ITERS = 100000 };
    static unsigned char runs[ITERS];
    for (int rep = 0; rep < count; rep++) {
        memset(runs, 0, sizeof runs);
#pragma omp parallel num_threads(n)
        {
#pragma omp for schedule(runtime)
            for (int i = 0; i < ITERS; i++)
                runs[i]++;
        }
        for (int i = 0; i < ITERS; i++)
            LITE_EXPECT(runs[i] == 1, "region %d: iteration %d ran %d times", rep, i, runs[i]);
    }
    printf("harden runtime-loop: %d regions of %d threads\n", count, n);
    return 0;
}

static int mode_nested(int count)
{
    omp_set_max_active_levels(2);
    long total = 0;
    for (int rep = 0; rep < count; rep++) {
        long inner_runs = 0, expected = 0;
#pragma omp parallel reduction(+ : inner_runs, expected)
        {
            int size = 0;
            long runs = 0;
#pragma omp parallel reduction(+ : runs)
            {
#pragma omp master
                size = omp_get_num_threads();
                runs++;
            }
            inner_runs += runs;
            expected += size;
        }
        LITE_EXPECT(inner_runs == expected && inner_runs >= 1,
                    "nested: %ld inner runs, the teams had %ld members", inner_runs, expected);
        total += inner_runs;
    }
    printf("harden nested: %d outer regions, %ld inner members in all\n", count, total);
    return 0;
}

/* The process's mask, as the main thread has it before any region. */
static cpu_set_t process_mask;

/* Members 2 and 3 crowd onto one CPU at the start of each region (they set a one-CPU mask and
   then the process's again, themselves: user code may), so that the team of 4 is lopsided and
   the runtime's spreading of oversubscribed teams has work to do. Member 1 pins itself to that
   CPU in the first region and keeps that mask. Between barriers every member looks at its mask
   again and again: 2 and 3 must find the process's, 1 its pin. The runtime must never change a
   mask under user code, nor overwrite one the user set. */
static int mode_mask(int count)
{
    LITE_EXPECT(sched_getaffinity(0, sizeof process_mask, &process_mask) == 0,
                "sched_getaffinity");
    int ncpus = CPU_COUNT(&process_mask), first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &process_mask))
            first = c;
    cpu_set_t pin;
    CPU_ZERO(&pin);
    CPU_SET(first, &pin);
    long changed = 0, lost_pin = 0;
    for (int rep = 0; rep < count; rep++) {
#pragma omp parallel num_threads(4) reduction(+ : changed, lost_pin)
        {
            int t = omp_get_thread_num();
            cpu_set_t mine;
            if ((t == 1 && rep == 0) || t >= 2)
                LITE_EXPECT(sched_setaffinity(0, sizeof pin, &pin) == 0, "sched_setaffinity");
            if (t >= 2)
                LITE_EXPECT(sched_setaffinity(0, sizeof process_mask, &process_mask) == 0,
                            "sched_setaffinity");
            for (int b = 0; b < 4; b++) {
#pragma omp barrier
                for (int k = 0; k < 8; k++) {
                    LITE_EXPECT(sched_getaffinity(0, sizeof mine, &mine) == 0,
                                "sched_getaffinity");
                    if (t == 1)
                        lost_pin += !CPU_EQUAL(&mine, &pin);
                    else
                        changed += !CPU_EQUAL(&mine, &process_mask);
                }
            }
        }
    }
    LITE_EXPECT(changed == 0, "%ld looks found a mask other than the process's (%d CPUs)",
                changed, ncpus);
    LITE_EXPECT(lost_pin == 0, "a thread that pinned itself found another mask %ld times",
                lost_pin);
    printf("harden mask: %d regions of 4 threads on %d CPUs, every mask as set\n", count, ncpus);
    return 0;
}

int main(int argc, char **argv)
{
    LITE_CHECK("harden");
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "schedule") == 0 && argc == 4)
        return mode_schedule(argv[2], atoi(argv[3]));
    if (strcmp(mode, "negative") == 0)
        return mode_negative();
    if (strcmp(mode, "dynamic-busy") == 0)
        return mode_dynamic_busy();
    if (strcmp(mode, "regions") == 0 && argc == 4)
        return mode_regions(atoi(argv[2]), atoi(argv[3]));
    if (strcmp(mode, "runtime-loop") == 0 && argc == 4)
        return mode_runtime_loop(atoi(argv[2]), atoi(argv[3]));
    if (strcmp(mode, "nested") == 0 && argc == 3)
        return mode_nested(atoi(argv[2]));
    if (strcmp(mode, "mask") == 0 && argc == 3)
        return mode_mask(atoi(argv[2]));
    fprintf(stderr, "harden: unknown mode or arguments\n");
    return 2;
}
