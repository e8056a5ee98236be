/* clang_threadprivate: threadprivate C++ objects in a program built by clang++ -fopenmp
   -fnoopenmp-use-tls, which keeps them out of thread-local storage: the runtime makes each
   thread's copy (__kmpc_threadprivate_register, __kmpc_threadprivate_cached) and must destroy it
   when the thread ends. Parts:
     copies   each thread of a region of 3 gets its own constructed copy, which keeps its value
              from one region to the next (the team's workers persist)
     dtor     runs this program again (part `child`) and counts what the child's copies went
              through: every object constructed (the variable itself and each thread's copy) is
              destroyed exactly once by the time the child has exited, the workers' copies by the
              runtime as it shuts down, the variable itself by the C++ exit sequence
   usage: clang_threadprivate PART */
#include "lite_check.h"

#include <omp.h>
#include <atomic>

static std::atomic<int> constructed;

struct counted {
    int value;
    counted() : value(7) { constructed++; }
    counted(const counted &other) : value(other.value) { constructed++; }
    ~counted()
    {
        /* After main has returned nothing can count for us: write a mark the parent counts. */
        static const char mark[] = "~\n";
        if (write(1, mark, sizeof mark - 1) < 0)
            _exit(3);
    }
};

static counted object;
#pragma omp threadprivate(object)

static void use_copies(void)
{
    int values[3] = {0}, n = 0;
    const void *addresses[3] = {0};
#pragma omp parallel num_threads(3)
    {
        int t = omp_get_thread_num();
        values[t] = object.value;
        addresses[t] = &object;
        object.value = 100 + t;
#pragma omp single
        n = omp_get_num_threads();
    }
    LITE_EXPECT(n == 3, "num_threads(3) gave %d threads", n);
    for (int t = 0; t < n; t++) {
        LITE_EXPECT(values[t] == 7, "thread %d's copy started at %d, expected 7", t, values[t]);
        for (int u = 0; u < t; u++)
            LITE_EXPECT(addresses[t] != addresses[u], "threads %d and %d share a copy", u, t);
    }
#pragma omp parallel num_threads(3)
    {
        int t = omp_get_thread_num();
        LITE_EXPECT(object.value == 100 + t, "thread %d's copy holds %d, expected %d", t,
                    object.value, 100 + t);
    }
}

static void count_child_marks(const char *self)
{
    char command[4096];
    snprintf(command, sizeof command, "'%s' child", self);
    FILE *child = popen(command, "r");
    LITE_EXPECT(child != NULL, "cannot run %s", command);
    char line[128];
    int made = -1, destroyed = 0;
    while (fgets(line, sizeof line, child) != NULL) {
        if (strcmp(line, "~\n") == 0)
            destroyed++;
        else if (sscanf(line, "made %d", &made) != 1)
            printf("child: %s", line);
    }
    int status = pclose(child);
    LITE_EXPECT(status == 0, "the child exited with status %d", status);
    /* The variable itself and one copy for each of the two workers. */
    LITE_EXPECT(made == 3, "the child constructed %d objects, expected 3", made);
    LITE_EXPECT(destroyed == made, "the child destroyed %d of its %d objects", destroyed, made);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: clang_threadprivate copies|dtor\n");
        return 2;
    }
    if (strcmp(argv[1], "child") == 0) {
        use_copies();
        printf("made %d\n", constructed.load());
        fflush(stdout);
        return 0;
    }
    LITE_CHECK("clang_threadprivate");
    if (strcmp(argv[1], "copies") == 0)
        use_copies();
    else if (strcmp(argv[1], "dtor") == 0)
        count_child_marks(argv[0]);
    else {
        fprintf(stderr, "clang_threadprivate: unknown part %s\n", argv[1]);
        return 2;
    }
    printf("clang_threadprivate %s: ok\n", argv[1]);
    return 0;
}
