/* OMPLITE_PROFILE and OMPLITE_TRACE: programs of a known shape, whose profile table and trace
   tests/integration/profile_check.py then checks (run-routes.sh t_profile runs both).

   usage: profile shape          REGIONS regions at site_regions; one region at site_loops with
                                 LOOPS uneven and LOOPS even loops, BARRIERS barriers, SINGLES
                                 single constructs, CRITICALS critical sections per member, and
                                 SECTIONS sections constructs of two sections, and TASKS
                                 tasks made in a single at site_tasks, with one taskwait;
                                 then a shell (system), which must leave the files alone
          profile fork           CHILD_REGIONS regions in a fork()ed child (its own files), after
                                 REGIONS in the parent; prints "child PID"
          profile roots R        R pthreads, each ROOT_REGIONS regions at site_roots
          profile setuid         ROOT_REGIONS regions at site_roots; prints "secure N", the
                                 kernel's AT_SECURE (1: the setuid bit took effect)
   With PROFILE_TOOL=1 in the environment, the program's own OMPT tool (below) is attached too: it
   counts the task events and prints "tool: T tasks created, R ran" at the end, and the table must
   be the same (with a tool attached, tasks take the runtime's tool path: task.c).
   The counts are fixed below; profile_check.py knows them. Each site is a function of its own,
   exported (the test is linked with -rdynamic) so that the table names it. */
#include "lite_check.h"
#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#define REGIONS 50
#define LOOPS 12
#define BARRIERS 7
#define SINGLES 5
#define CRITICALS 3
#define SECTIONS 4
#define TASKS 30
#define CHILD_REGIONS 9
#define ROOT_REGIONS 20
#define ITERS 64

/* Per thread: the members' work must not race on one variable (ThreadSanitizer). */
static _Thread_local volatile double sink;

/* About n units of work. */
static void work(long n)
{
    double x = 0;
    for (long i = 0; i < n * 200; i++)
        x += (double)i * 1e-9;
    sink += x;
}

__attribute__((noinline)) void site_regions(int *count)
{
    for (int r = 0; r < REGIONS; r++) {
#pragma omp parallel
        {
#pragma omp atomic
            (*count)++;
        }
    }
}

/* One chunk per member (chunk: the loop over the team); the first chunk holds all the work, so
   one member works and the others wait at the loop's barrier. Long (~13 ms of work a run): on a
   loaded machine a member loses its CPU for a scheduler tick (4 ms here) now and then, which
   must not make the even loop below look as uneven as this one. */
__attribute__((noinline)) void site_uneven(long *sum, int chunk)
{
#pragma omp for schedule(monotonic : dynamic, chunk) reduction(+ : sum[0])
    for (int i = 0; i < ITERS; i++) {
        work(i < chunk ? 2000 : 0);
        sum[0] += i;
    }
}

/* Every iteration the same. */
__attribute__((noinline)) void site_even(long *sum, int chunk)
{
#pragma omp for schedule(monotonic : dynamic, chunk) reduction(+ : sum[0])
    for (int i = 0; i < ITERS; i++) {
        work(1000);
        sum[0] += i;
    }
}

/* (The empty asm keeps gcc from making GOMP_barrier a tail call: the call site must be here.) */
__attribute__((noinline)) void site_barrier(void)
{
#pragma omp barrier
    __asm__ volatile("");
}

__attribute__((noinline)) void site_single(int *runs)
{
#pragma omp single nowait
    {
        /* nowait: the next single may run on another thread at the same time. */
#pragma omp atomic
        (*runs)++;
    }
    __asm__ volatile("");
}

__attribute__((noinline)) void site_critical(int *count)
{
#pragma omp critical
    (*count)++;
    __asm__ volatile("");
}

/* Two sections, each run once by some member. */
__attribute__((noinline)) void site_sections(int *runs)
{
#pragma omp sections
    {
#pragma omp section
        {
#pragma omp atomic
            (*runs)++;
        }
#pragma omp section
        {
#pragma omp atomic
            (*runs)++;
        }
    }
}

/* One member makes the tasks; the others may take them as they wait in the single's barrier. */
__attribute__((noinline)) void site_tasks(int *task_runs)
{
#pragma omp single
    {
        for (int t = 0; t < TASKS; t++) {
#pragma omp task
            {
                work(20);
#pragma omp atomic
                (*task_runs)++;
            }
        }
#pragma omp taskwait
        LITE_EXPECT(*task_runs == TASKS, "taskwait returned after %d of %d tasks", *task_runs,
                    TASKS);
    }
}

__attribute__((noinline)) void site_loops(long *sum, int *single_runs, int *critical_count,
                                          int *section_runs, int *task_runs)
{
#pragma omp parallel
    {
        int chunk = (ITERS + omp_get_num_threads() - 1) / omp_get_num_threads();
        for (int l = 0; l < LOOPS; l++) {
            site_uneven(sum, chunk);
            site_even(sum, chunk);
        }
        for (int b = 0; b < BARRIERS; b++)
            site_barrier();
        for (int s = 0; s < SINGLES; s++)
            site_single(single_runs);
        for (int c = 0; c < CRITICALS; c++)
            site_critical(critical_count);
        for (int c = 0; c < SECTIONS; c++)
            site_sections(section_runs);
        site_tasks(task_runs);
    }
}

static void shape(void)
{
    int count = 0, single_runs = 0, critical_count = 0, section_runs = 0, task_runs = 0;
    long sum = 0;
    int n = omp_get_max_threads();
    site_regions(&count);
    LITE_EXPECT(count == REGIONS * n, "regions: %d member runs, expected %d", count, REGIONS * n);
    site_loops(&sum, &single_runs, &critical_count, &section_runs, &task_runs);
    LITE_EXPECT(sum == 2L * LOOPS * (ITERS * (ITERS - 1) / 2), "loops: sum %ld", sum);
    LITE_EXPECT(single_runs == SINGLES, "single ran %d times", single_runs);
    LITE_EXPECT(critical_count == CRITICALS * n, "critical: %d", critical_count);
    LITE_EXPECT(section_runs == 2 * SECTIONS, "sections: %d runs", section_runs);
    LITE_EXPECT(task_runs == TASKS, "tasks: %d runs", task_runs);
    /* A helper process with the same environment (on the preload route it loads libomp-lite
       too) must not overwrite this program's files: it ran no construct. */
    LITE_EXPECT(system("true") == 0, "system(\"true\") failed");
}

__attribute__((noinline)) void site_child(int *count)
{
    for (int r = 0; r < CHILD_REGIONS; r++) {
#pragma omp parallel
        {
#pragma omp atomic
            (*count)++;
        }
    }
}

static void forked(void)
{
    int count = 0;
    site_regions(&count);
    fflush(stdout);
    pid_t pid = fork();
    LITE_EXPECT(pid >= 0, "fork failed");
    if (pid == 0) {
        int c = 0;
        site_child(&c);
        exit(c == CHILD_REGIONS * omp_get_max_threads() ? 0 : 3);
    }
    int status;
    LITE_EXPECT(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                "the child failed (status %d)", status);
    printf("child %d\n", (int)pid);
}

__attribute__((noinline)) void site_roots(int *count)
{
    for (int r = 0; r < ROOT_REGIONS; r++) {
#pragma omp parallel num_threads(2)
        {
#pragma omp atomic
            (*count)++;
        }
    }
}

static void *root_main(void *arg)
{
    site_roots(arg);
    return NULL;
}

static void roots(int nroots)
{
    pthread_t threads[16];
    int counts[16] = {0};
    for (int i = 0; i < nroots; i++)
        LITE_EXPECT(pthread_create(&threads[i], NULL, root_main, &counts[i]) == 0,
                    "pthread_create");
    for (int i = 0; i < nroots; i++) {
        pthread_join(threads[i], NULL);
        LITE_EXPECT(counts[i] == 2 * ROOT_REGIONS, "root %d: %d member runs", i, counts[i]);
    }
}

/* Run with the setuid bit (run-routes.sh t_profile_files): the profile must ignore the files
   the environment names. */
static void setuid_run(void)
{
    int count = 0;
    site_roots(&count);
    LITE_EXPECT(count == 2 * ROOT_REGIONS, "%d member runs", count);
    printf("secure %lu\n", getauxval(AT_SECURE));
}

/* ------------------------------------------------------------------------ the tool (PROFILE_TOOL) */

static int tool_created, tool_ran;

static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
    (void)encountering_task_data, (void)encountering_task_frame, (void)new_task_data;
    (void)has_dependences, (void)codeptr_ra;
    if (flags & ompt_task_explicit)
        __atomic_fetch_add(&tool_created, 1, __ATOMIC_RELAXED);
}

static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
    (void)prior_task_data, (void)next_task_data;
    if (prior_task_status == ompt_task_complete)
        __atomic_fetch_add(&tool_ran, 1, __ATOMIC_RELAXED);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    printf("tool: %d tasks created, %d ran\n", tool_created, tool_ran);
    fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t tool = {tool_initialize, tool_finalize, {0}};
    const char *on = getenv("PROFILE_TOOL");
    return on != NULL && strcmp(on, "1") == 0 ? &tool : NULL;
}

int main(int argc, char **argv)
{
    lite_check_runtime("profile", (const void *)omp_get_max_threads);
    const char *mode = argc > 1 ? argv[1] : "shape";
    if (strcmp(mode, "shape") == 0)
        shape();
    else if (strcmp(mode, "fork") == 0)
        forked();
    else if (strcmp(mode, "roots") == 0)
        roots(argc > 2 ? atoi(argv[2]) : 3);
    else if (strcmp(mode, "setuid") == 0)
        setuid_run();
    else
        lite_fail("unknown mode %s", mode);
    return 0;
}
