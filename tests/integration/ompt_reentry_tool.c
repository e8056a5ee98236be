/* ompt_reentry_tool.c: an OMPT tool whose callbacks call the OpenMP API and start parallel
   regions of their own (issue 50), built as a library by ompt_reentry.sh and named by
   OMP_TOOL_LIBRARIES. parallel-begin and parallel-end of the program's outermost regions start
   a new top-level team (parallel-begin comes before the program's team exists, on the thread
   that forks it: the same pool); implicit-task-begin, work-begin (a loop) and
   sync-region-begin (an explicit barrier) start a nested region inside the team; the initial
   thread's thread-begin starts one before the program's first region. Every callback calls
   omp_get_thread_num, omp_get_num_threads and omp_get_level. A thread-local flag keeps the
   tool's own regions from starting more; OMPT_REENTRY_LIMIT bounds how many regions each kind
   of callback starts (default 64), so that a run stays short at 16 threads; OMPT_REENTRY_ONLY
   names the one kind that starts regions (the others then only call the API), to compare
   with runtimes that cannot take them all (LLVM 14 hangs on a region from the initial
   thread's thread-begin, and crashes in omp_get_num_threads from a worker's sync-region-end);
   OMPT_REENTRY_NOAPI=1 leaves the API calls out, for the same reason.

   Each region the tool starts checks its team (every member counted once, thread numbers in
   range); a mismatch prints "tool: WRONG ...". At finalize: "tool: started K from CALLBACK"
   per kind, and "tool: api calls N". */
#include <omp-tools.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { FROM_THREAD, FROM_PBEGIN, FROM_PEND, FROM_ITASK, FROM_WORK, FROM_SYNC, KINDS };
static const char *const kind_name[KINDS] = { "thread_begin", "parallel_begin", "parallel_end",
                                              "implicit_task", "work", "sync_region" };
static atomic_int started[KINDS];
static atomic_long api_calls;
static int limit = 64;
static const char *only;
static int noapi;
static _Thread_local int in_tool;

/* What a callback asks of the API: must answer, and sensibly, from any callback. */
static void ask_api(void)
{
    if (noapi)
        return;
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    if (t < 0 || n < 1 || t >= n || omp_get_level() < 0)
        printf("tool: WRONG api answer: thread %d of %d, level %d\n", t, n, omp_get_level());
    atomic_fetch_add(&api_calls, 1);
}

static void region_from(enum kind k)
{
    ask_api();
    if (in_tool || (only != NULL && strcmp(only, kind_name[k]) != 0) ||
        atomic_fetch_add(&started[k], 1) >= limit)
        return;
    in_tool = 1;
    int want = 2, size = 0;
    atomic_int members = 0, bad = 0;
#pragma omp parallel num_threads(want)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (t == 0)
            size = n;
        if (t < 0 || t >= n)
            atomic_fetch_add(&bad, 1);
        atomic_fetch_add(&members, 1);
#pragma omp barrier
    }
    if (bad || members != size || size < 1 || size > want)
        printf("tool: WRONG region from %s: %d members of a team of %d, %d bad numbers\n",
               kind_name[k], (int)members, size, (int)bad);
    in_tool = 0;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
    (void)data;
    if (type == ompt_thread_initial)
        region_from(FROM_THREAD);
    else
        ask_api();
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned requested, int flags, const void *codeptr)
{
    (void)task; (void)frame; (void)requested; (void)flags; (void)codeptr;
    parallel->value = 0x5eed;
    if (omp_get_level() == 0)
        region_from(FROM_PBEGIN);
    else
        ask_api();
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags,
                            const void *codeptr)
{
    (void)task; (void)flags; (void)codeptr;
    if (parallel->value != 0x5eed)
        printf("tool: WRONG parallel data at the end: %#lx\n", (unsigned long)parallel->value);
    if (omp_get_level() == 0)
        region_from(FROM_PEND);
    else
        ask_api();
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                             ompt_data_t *task, unsigned n, unsigned index, int flags)
{
    (void)parallel; (void)task; (void)n; (void)index;
    if (endpoint == ompt_scope_begin && (flags & ompt_task_implicit))
        region_from(FROM_ITASK);
    else
        ask_api();
}

static void on_work(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *codeptr)
{
    (void)parallel; (void)task; (void)count; (void)codeptr;
    if (endpoint == ompt_scope_begin && type == ompt_work_loop)
        region_from(FROM_WORK);
    else
        ask_api();
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)parallel; (void)task; (void)codeptr;
    if (endpoint == ompt_scope_begin && kind == ompt_sync_region_barrier_explicit)
        region_from(FROM_SYNC);
    else
        ask_api();
}

static int initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device; (void)data;
    const char *l = getenv("OMPT_REENTRY_LIMIT");
    if (l != NULL)
        limit = atoi(l);
    only = getenv("OMPT_REENTRY_ONLY");
    noapi = getenv("OMPT_REENTRY_NOAPI") != NULL;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
    set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    set(ompt_callback_work, (ompt_callback_t)on_work);
    set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    return 1;
}

static void finalize(ompt_data_t *data)
{
    (void)data;
    for (int k = 0; k < KINDS; k++)
        printf("tool: started %d from %s\n", started[k] < limit ? (int)started[k] : limit,
               kind_name[k]);
    printf("tool: api calls %ld\n", (long)api_calls);
    fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version; (void)runtime_version;
    static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
    return &result;
}
