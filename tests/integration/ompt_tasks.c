/* ompt_tasks: what an OMPT tool sees of tasks, gcc-built, with the program's own tool linked in
   (ompt_start_tool below; built against the runtime's omp-tools.h):
   - a taskloop's tasks: every task-create from the encountering thread, with the construct's
     return address, the encountering task as parent and its enter frame set, before the
     taskloop's work ends; each task, while its body runs, with an exit frame set (LLVM's
     ompt/tasks/taskloop.c needs the first; libomp-lite made the tasks lazily, some on other
     threads);
   - ompt_get_task_memory: inside a task, its data block (holding its firstprivate value),
     returning 0 (no further block); nothing in an implicit task;
   - taskyield: a task-schedule with prior status ompt_task_yield to the yielding task's child,
     and the complete back (libomp-lite's taskyield used to run no task).
   Every check is exact; nothing is timed. Stock libgomp has no OMPT: run-routes.sh runs it on
   libomp-lite only. */
#include "lite_check.h"
#include <omp-tools.h>
#include <omp.h>

static ompt_get_task_memory_t get_task_memory;
static ompt_get_task_info_t get_task_info;
static ompt_get_thread_data_t get_thread_data;
static int tool_on;

/* The taskloop's task-creates, counted while it is open (between its work begin and end). */
static const void *loop_codeptr;
static int loop_open, loop_creates, loop_wrong_thread, loop_wrong_parent, loop_no_enter_frame;
static ompt_data_t *loop_parent;
static int yields, yield_returns;
static ompt_data_t *yielded_to;

static void on_work(ompt_work_t work_type, ompt_scope_endpoint_t endpoint,
                    ompt_data_t *parallel_data, ompt_data_t *task_data, uint64_t count,
                    const void *codeptr_ra)
{
    (void)parallel_data, (void)count;
    if (work_type != ompt_work_taskloop)
        return;
    if (endpoint == ompt_scope_begin) {
        loop_codeptr = codeptr_ra;
        loop_parent = task_data;
        get_thread_data()->value = 1; /* the encountering thread */
        __atomic_store_n(&loop_open, 1, __ATOMIC_SEQ_CST);
    } else {
        __atomic_store_n(&loop_open, 0, __ATOMIC_SEQ_CST);
        get_thread_data()->value = 0;
    }
}

static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
    (void)new_task_data, (void)flags, (void)has_dependences;
    if (!__atomic_load_n(&loop_open, __ATOMIC_SEQ_CST) || codeptr_ra != loop_codeptr)
        return;
    /* Only the encountering thread writes these while the loop is open, if the runtime is right;
       a creation on another thread is counted atomically. */
    if (get_thread_data()->value != 1) {
        __atomic_fetch_add(&loop_wrong_thread, 1, __ATOMIC_RELAXED);
        return;
    }
    loop_creates++;
    if (encountering_task_data != loop_parent)
        loop_wrong_parent++;
    if (encountering_task_frame == NULL || encountering_task_frame->enter_frame.ptr == NULL)
        loop_no_enter_frame++;
}

static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
    if (prior_task_status == ompt_task_yield) {
        __atomic_fetch_add(&yields, 1, __ATOMIC_RELAXED);
        __atomic_store_n(&yielded_to, next_task_data, __ATOMIC_RELAXED);
    } else if (prior_task_status == ompt_task_complete &&
               prior_task_data == __atomic_load_n(&yielded_to, __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&yield_returns, 1, __ATOMIC_RELAXED);
    }
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data)
{
    (void)initial_device_num, (void)tool_data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    get_task_memory = (ompt_get_task_memory_t)lookup("ompt_get_task_memory");
    get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
    get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
    set(ompt_callback_work, (ompt_callback_t)on_work);
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    tool_on = 1;
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    (void)omp_version, (void)runtime_version;
    static ompt_start_tool_result_t tool = {tool_initialize, tool_finalize, {0}};
    return &tool;
}

/* ------------------------------------------------------------------------------- the program */

enum { ITERS = 40, NUM_TASKS = 8, MAGIC = 0x5eed1e55 };

static int grain_no_exit_frame, grain_runs;

static void grain_check(void)
{
    ompt_frame_t *frame = NULL;
    int flags = 0;
    LITE_EXPECT(get_task_info(0, &flags, NULL, &frame, NULL, NULL) == 2,
                "ompt_get_task_info(0) inside a taskloop task answered nothing");
    LITE_EXPECT(flags & ompt_task_explicit, "a taskloop task's flags are 0x%x, not explicit", flags);
    if (frame->exit_frame.ptr == NULL)
        __atomic_fetch_add(&grain_no_exit_frame, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&grain_runs, 1, __ATOMIC_RELAXED);
}

static void check_taskloop(void)
{
    int hits[ITERS] = {0};
#pragma omp parallel num_threads(2) shared(hits)
#pragma omp single
    {
#pragma omp taskloop num_tasks(NUM_TASKS) shared(hits)
        for (int i = 0; i < ITERS; i++) {
            hits[i]++;
            if (i % (ITERS / NUM_TASKS) == 0)
                grain_check();
        }
    }
    for (int i = 0; i < ITERS; i++)
        LITE_EXPECT(hits[i] == 1, "taskloop: iteration %d ran %d times", i, hits[i]);
    LITE_EXPECT(loop_wrong_thread == 0, "taskloop: %d task-creates came from another thread than "
                "the encountering one", loop_wrong_thread);
    LITE_EXPECT(loop_creates == NUM_TASKS, "taskloop: %d task-creates from the encountering thread "
                "before the work's end, expected %d", loop_creates, NUM_TASKS);
    LITE_EXPECT(loop_wrong_parent == 0, "taskloop: %d task-creates name another parent than the "
                "encountering task", loop_wrong_parent);
    LITE_EXPECT(loop_no_enter_frame == 0, "taskloop: %d task-creates without the encountering "
                "task's enter frame", loop_no_enter_frame);
    LITE_EXPECT(grain_runs == NUM_TASKS, "taskloop: %d tasks checked, expected %d", grain_runs,
                NUM_TASKS);
    LITE_EXPECT(grain_no_exit_frame == 0, "taskloop: %d tasks ran without an exit frame",
                grain_no_exit_frame);
}

static void check_task_memory(void)
{
    void *addr = (void *)1;
    size_t size = 1;
    int implicit_rc = -1, task_rc = -1, found = 0;
    void *implicit_addr = (void *)1;
    size_t implicit_size = 1, task_size = 0;
    int x = MAGIC;
#pragma omp parallel num_threads(2) shared(implicit_rc, task_rc, found, implicit_addr, \
                                           implicit_size, task_size)
#pragma omp single
    {
        implicit_rc = get_task_memory(&implicit_addr, &implicit_size, 0);
#pragma omp task firstprivate(x) shared(task_rc, found, task_size)
        {
            task_rc = get_task_memory(&addr, &size, 0);
            task_size = size;
            /* x's value is in the block the runtime copied the task's data into (gcc's body
               then reads it into a local of its own). */
            for (size_t k = 0; addr != NULL && k + sizeof x <= size; k++)
                found |= memcmp((char *)addr + k, &x, sizeof x) == 0;
        }
#pragma omp taskwait
    }
    LITE_EXPECT(implicit_rc == 0 && implicit_addr == NULL && implicit_size == 0,
                "task memory of an implicit task: %d, %p, %zu (expected 0, none)", implicit_rc,
                implicit_addr, implicit_size);
    LITE_EXPECT(task_rc == 0, "task memory: returned %d, expected 0 (no block after block 0)",
                task_rc);
    LITE_EXPECT(task_size >= sizeof x, "task memory: %zu bytes", task_size);
    LITE_EXPECT(found, "task memory: the block (%zu bytes) does not hold the task's firstprivate "
                "copy", task_size);
}

static void check_taskyield(void)
{
    int flag = 0, team = 0;
#pragma omp parallel num_threads(2) shared(flag, team)
    {
        if (omp_get_thread_num() == 0) {
            team = omp_get_num_threads();
#pragma omp task shared(flag)
            __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);
            /* The other member waits outside any scheduling point: only this yield runs it. */
            while (!__atomic_load_n(&flag, __ATOMIC_ACQUIRE)) {
#pragma omp taskyield
            }
            __atomic_store_n(&flag, 2, __ATOMIC_RELEASE);
        } else {
            while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) != 2)
                ;
        }
    }
    LITE_EXPECT(yields == 1, "taskyield: %d task-schedules with ompt_task_yield, expected 1",
                yields);
    LITE_EXPECT(yield_returns == 1, "taskyield: the task run in the yield completed %d times "
                "back to the yielding task", yield_returns);
    (void)team;
}

int main(void)
{
    LITE_CHECK("ompt_tasks");
    omp_set_dynamic(0);
    LITE_EXPECT(tool_on, "the program's own tool was not started");
    check_taskloop();
    check_task_memory();
    check_taskyield();
    printf("ompt_tasks: OK\n");
    return 0;
}
