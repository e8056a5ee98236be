/* dlclose: a program without OpenMP loads a plugin that uses it (dlclose_plugin.c), runs it,
   unloads it, eight times. Where the unload takes libomp-lite with it (the drop-in libgomp.so.1
   and the rpath routes: the plugin is its only user), the team's workers must be gone when
   dlclose returns: a worker left behind would run code that is no longer mapped. Where
   libomp-lite stays (preloaded), the workers stay too, and the next load reuses them: the
   thread count must not grow from one cycle to the next. Odd cycles wait 20 ms before the
   dlclose (workers parked, or spinning under OMP_WAIT_POLICY=active), even ones unload straight
   after the region (workers still spinning).
   With DLCLOSE_USER_THREAD=1, each cycle runs the plugin from a pthread of the host that lives
   on across the dlclose and exits after it: the runtime's thread-exit destructor (a pthread key
   of the user thread) must not outlive the library, or that exit jumps into unmapped code.
   Usage: dlclose [PLUGIN]  (default: dlclose_plugin.so next to the executable) */
#include "lite_check.h"

#include <dirent.h>
#include <libgen.h>
#include <pthread.h>
#include <time.h>

enum { CYCLES = 8, TEAM = 4 };

static int count_threads(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    LITE_EXPECT(d != NULL, "cannot open /proc/self/task");
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A joined thread can stay listed in /proc for a moment after pthread_join returns (the kernel
   wakes the joiner before it releases the task): wait up to 2 s for the count to reach want. */
static int settled_threads(int want)
{
    int n = count_threads();
    for (int k = 0; k < 200 && n != want; k++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        n = count_threads();
    }
    return n;
}

static int lite_mapped_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name && lite_is_lite_path(info->dlpi_name)) {
        *(int *)data = 1;
        return 1;
    }
    return 0;
}

static int lite_mapped(void)
{
    int mapped = 0;
    dl_iterate_phdr(lite_mapped_cb, &mapped);
    return mapped;
}

/* DLCLOSE_USER_THREAD=1: the host's pthread that runs the plugin, then waits for the main
   thread's dlclose before it exits. */
struct user_thread {
    int (*run)(int, int);
    int cycle, err;
    int stage; /* 0: to run, 1: ran, 2: may exit */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static void *user_thread_main(void *arg)
{
    struct user_thread *u = arg;
    int err = u->run(TEAM, u->cycle);
    pthread_mutex_lock(&u->mu);
    u->err = err;
    u->stage = 1;
    pthread_cond_broadcast(&u->cv);
    while (u->stage != 2)
        pthread_cond_wait(&u->cv, &u->mu);
    pthread_mutex_unlock(&u->mu);
    return NULL; /* the thread's exit destructors run now, after the dlclose */
}

static void *symbol(void *handle, const char *name)
{
    void *p = dlsym(handle, name);
    LITE_EXPECT(p != NULL, "the plugin has no %s: %s", name, dlerror());
    return p;
}

int main(int argc, char **argv)
{
    lite_test_name = "dlclose";
    char path[4096];
    if (argc > 1) {
        snprintf(path, sizeof path, "%s", argv[1]);
    } else {
        char exe[4000];
        ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
        LITE_EXPECT(len > 0, "cannot read /proc/self/exe");
        exe[len] = '\0';
        snprintf(path, sizeof path, "%s/dlclose_plugin.so", dirname(exe));
    }
    int stock = lite_stock_mode();
    int before = count_threads(), kept = -1, unloaded = 0;
    const char *ut = getenv("DLCLOSE_USER_THREAD");
    int user_thread = ut != NULL && strcmp(ut, "1") == 0;

    for (int cycle = 0; cycle < CYCLES; cycle++) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        LITE_EXPECT(h != NULL, "dlopen %s: %s", path, dlerror());
        const void *(*omp_api)(void) = (const void *(*)(void))symbol(h, "plugin_omp_api");
        const void *(*gomp_abi)(void) = (const void *(*)(void))symbol(h, "plugin_gomp_abi");
        int (*run)(int, int) = (int (*)(int, int))symbol(h, "plugin_run");
        if (!stock) {
            const char *api = lite_object_of(omp_api()), *abi = lite_object_of(gomp_abi());
            LITE_EXPECT(lite_is_lite_path(api) && lite_is_lite_path(abi),
                        "the plugin's OpenMP calls go to %s and %s, not to libomp-lite",
                        api ? api : "?", abi ? abi : "?");
            if (lite_check_mode_is("only")) {
                const char *other = NULL;
                dl_iterate_phdr(lite_phdr_cb, &other);
                LITE_EXPECT(other == NULL, "a stock libgomp is mapped in the process: %s", other);
            }
            if (cycle == 0)
                printf("dlclose: the plugin runs on %s\n", abi);
        }
        struct user_thread u = { .run = run, .cycle = cycle, .mu = PTHREAD_MUTEX_INITIALIZER,
                                 .cv = PTHREAD_COND_INITIALIZER };
        pthread_t th;
        int err;
        if (user_thread) {
            LITE_EXPECT(pthread_create(&th, NULL, user_thread_main, &u) == 0, "pthread_create");
            pthread_mutex_lock(&u.mu);
            while (u.stage != 1)
                pthread_cond_wait(&u.cv, &u.mu);
            pthread_mutex_unlock(&u.mu);
            err = u.err;
        } else {
            err = run(TEAM, cycle);
        }
        LITE_EXPECT(err == 0, "cycle %d: the plugin's check %d failed", cycle, err);
        if (cycle % 2) {
            struct timespec ts = { 0, 20 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
        LITE_EXPECT(dlclose(h) == 0, "dlclose: %s", dlerror());
        if (user_thread) {
            pthread_mutex_lock(&u.mu);
            u.stage = 2;
            pthread_cond_broadcast(&u.cv);
            pthread_mutex_unlock(&u.mu);
            LITE_EXPECT(pthread_join(th, NULL) == 0, "pthread_join");
        }

        int mapped = lite_mapped();
        int now = mapped ? count_threads() : settled_threads(before);
        printf("dlclose: cycle %d: libomp-lite %s, %d threads (%d before the first dlopen)\n",
               cycle, mapped ? "still mapped" : "unloaded", now, before);
        if (stock)
            continue;
        if (!mapped) {
            unloaded++;
            LITE_EXPECT(now == before, "cycle %d: libomp-lite was unloaded but %d threads are "
                        "left, %d before the first dlopen", cycle, now, before);
        } else {
            if (kept < 0)
                kept = now;
            LITE_EXPECT(now == kept && now <= before + TEAM - 1,
                        "cycle %d: %d threads after dlclose, %d after the first cycle: the team "
                        "was not reused", cycle, now, kept);
        }
    }
    /* The drop-in and rpath routes load libomp-lite only for the plugin: it must go with it. */
    if (lite_check_mode_is("only"))
        LITE_EXPECT(unloaded == CYCLES, "libomp-lite stayed mapped after %d of %d dlclose calls",
                    CYCLES - unloaded, CYCLES);
    printf("dlclose: %d cycles, libomp-lite unloaded in %d\n", CYCLES, unloaded);
    return 0;
}
