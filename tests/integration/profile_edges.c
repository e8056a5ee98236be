/* OMPLITE_PROFILE on the shapes of other people's programs that showed its rough edges (issue
   40), for tests/integration/profile_check.py's "edges" and "merge" checks (run-routes.sh
   t_profile_edges runs them).

   usage: profile_edges    REPS times each: a parallel for with a reduction; a region whose
                           body ends in a single that makes TASKS tasks, so that gcc makes the
                           single's barrier the body's last call, a tail call (`jmp
                           GOMP_barrier`) whose return address is in the runtime; and a task
                           whose body ends in a taskwait, the same way (`jmp GOMP_taskwait`);
                           and a barrier that thread 0 passes at one construct, the others at
                           another

   Built three ways (tests/integration/local.mk): with -rdynamic, so that dladdr names the
   exported functions; without it, so that only the symbol table (.symtab) names them; and
   stripped (-s), where nothing does. The tail calls need gcc's sibling-call optimisation, which
   -O2 turns on (local.mk asks for it). */
#include "lite_check.h"
#include <omp.h>

#define REPS 10
#define TASKS 8
#define ITERS 1000

/* Per thread: the members' work must not race on one variable (ThreadSanitizer). */
static _Thread_local volatile double sink;

static void work(long n)
{
    double x = 0;
    for (long i = 0; i < n * 200; i++)
        x += (double)i * 1e-9;
    sink += x;
}

__attribute__((noinline)) long site_reduce(void)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) schedule(dynamic, 16)
    for (int i = 0; i < ITERS; i++)
        sum += i;
    return sum;
}

/* A reduction first (its barrier is not the last call), then the single: the member that wins
   it makes the tasks, the others wait in its barrier, the body's tail call. */
__attribute__((noinline)) int site_single_tasks(long *sum)
{
    int runs = 0;
#pragma omp parallel
    {
#pragma omp for reduction(+ : sum[0])
        for (int i = 0; i < ITERS; i++)
            sum[0] += i;
#pragma omp single
        for (int t = 0; t < TASKS; t++) {
#pragma omp task
            {
                work(5);
#pragma omp atomic
                runs++;
            }
        }
    }
    return runs;
}

/* One task a repetition, whose body makes a task and ends waiting for it. */
__attribute__((noinline)) int site_task_wait(void)
{
    int runs = 0;
#pragma omp parallel
    {
#pragma omp single nowait
        {
#pragma omp task
            {
#pragma omp task
                {
                    work(5);
#pragma omp atomic
                    runs++;
                }
#pragma omp taskwait
            }
        }
    }
    return runs;
}

/* Thread 0 passes the team's barrier at one construct, the others at another (a master that
   writes a file, then waits): each row holds its members' passes, and neither may read "count
   0" beside a total. (The empty asm keeps gcc from making GOMP_barrier a tail call.) */
__attribute__((noinline)) void site_leader_barrier(void)
{
    work(50);
#pragma omp barrier
    __asm__ volatile("");
}

__attribute__((noinline)) void site_others_barrier(void)
{
#pragma omp barrier
    __asm__ volatile("");
}

__attribute__((noinline)) void site_split_barrier(void)
{
#pragma omp parallel
    {
        if (omp_get_thread_num() == 0)
            site_leader_barrier();
        else
            site_others_barrier();
    }
    __asm__ volatile(""); /* not a tail call: the region's site is here, not in main */
}

int main(void)
{
    for (int r = 0; r < REPS; r++) {
        long sum = site_reduce();
        LITE_EXPECT(sum == (long)ITERS * (ITERS - 1) / 2, "parallel for reduction: %ld", sum);
        sum = 0;
        int runs = site_single_tasks(&sum);
        LITE_EXPECT(sum == (long)ITERS * (ITERS - 1) / 2, "for reduction: %ld", sum);
        LITE_EXPECT(runs == TASKS, "single: %d of %d tasks ran", runs, TASKS);
        runs = site_task_wait();
        LITE_EXPECT(runs == 1, "task in a task: %d runs", runs);
        site_split_barrier();
    }
    return 0;
}
