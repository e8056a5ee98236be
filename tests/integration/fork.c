/* fork() from a program that used OpenMP: the child starts with only the forking thread, yet runs
   parallel regions (barriers, reductions, critical, a larger team than the parent's) and exits
   cleanly; the parent keeps using its team meanwhile and afterwards; a grandchild too; and a fork
   straight after a region, while the workers may still be spinning. */
#include "lite_check.h"
#include <omp.h>
#include <sys/wait.h>

static int regions_ok(int regions, int nt, const char *who)
{
    for (int r = 0; r < regions; r++) {
        long sum = 0;
        int slots[64] = { 0 }, bad = 0, size = 0;
        long crit = 0;
#pragma omp parallel num_threads(nt) reduction(+:sum, bad)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
#pragma omp master
            size = n;
            slots[t] = r + 1;
#pragma omp barrier
            for (int k = 0; k < n; k++)
                if (slots[k] != r + 1)
                    bad++;
#pragma omp critical
            crit++;
            sum += t + 1;
        }
        long n = size;
        if (size != nt || sum != n * (n + 1) / 2 || bad || crit != n) {
            fprintf(stderr, "fork: %s: region %d: team %d (expected %d), sum %ld, crit %ld, "
                    "%d barrier errors\n", who, r, size, nt, sum, crit, bad);
            return 0;
        }
    }
    return 1;
}

/* Fork; the child runs regions and exits with 0 when they were right. */
static pid_t spawn(int child_threads, int grandchild)
{
    fflush(stdout);
    pid_t pid = fork();
    LITE_EXPECT(pid >= 0, "fork failed");
    if (pid == 0) {
        lite_test_name = "fork (child)";
        int ok = regions_ok(200, child_threads, "child");
        if (ok && grandchild) {
            pid_t g = spawn(3, 0);
            ok = regions_ok(100, 2, "child while its child runs");
            int status = 0;
            ok = ok && waitpid(g, &status, 0) == g && WIFEXITED(status) &&
                 WEXITSTATUS(status) == 0;
        }
        exit(ok ? 0 : 1);  /* exit, not _exit: the runtime's exit path must be clean too */
    }
    return pid;
}

static void reap(pid_t pid, const char *what)
{
    int status = 0;
    LITE_EXPECT(waitpid(pid, &status, 0) == pid, "%s: waitpid failed", what);
    LITE_EXPECT(WIFEXITED(status), "%s: the child died (signal %d)", what,
                WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    LITE_EXPECT(WEXITSTATUS(status) == 0, "%s: the child's regions were wrong (status %d)",
                what, WEXITSTATUS(status));
}

int main(void)
{
    LITE_CHECK("fork");
    int nt = omp_get_max_threads();
    LITE_EXPECT(nt <= 60, "at most 60 threads here");
    LITE_EXPECT(regions_ok(100, nt, "parent before fork"), "parent's regions before the fork");

    /* A child with a larger team than the parent's, one with a grandchild. */
    pid_t a = spawn(nt + 2, 0);
    pid_t b = spawn(2, 1);
    LITE_EXPECT(regions_ok(300, nt, "parent while children run"), "parent's regions while the "
                "children run");
    reap(a, "child a");
    reap(b, "child b (with a grandchild)");

    /* Fork right after a region, many times. */
    for (int i = 0; i < 10; i++) {
        long s = 0;
#pragma omp parallel num_threads(nt) reduction(+:s)
        s += 1;
        LITE_EXPECT(s == nt, "region before fork %d: %ld", i, s);
        reap(spawn(i % 2 ? 2 : 4, 0), "child forked right after a region");
    }

    LITE_EXPECT(regions_ok(100, nt, "parent after the children"), "parent's regions after the "
                "children");
    printf("fork: OK (parent team %d)\n", nt);
    return 0;
}
