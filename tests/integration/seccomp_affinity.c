/* seccomp_affinity: an OpenMP program in a sandbox that refuses the affinity or NUMA system
   calls (issues 50 and 51), as some container runtimes and browsers' sandboxes do with a seccomp
   filter. Before its first OpenMP call the program installs a filter of its own that makes the
   named calls fail with the given errno, checks that it works, then runs parallel regions, a
   dynamic and a nonmonotonic loop (stealing asks for the topology), tasks, the place routines
   and an allocator with a placement trait, at each team size given. Before the fix hwloc's
   topology load looped for ever on the refused sched_getaffinity, and the team waited on it.

   usage: seccomp_affinity affinity|setaffinity|numa EPERM|ENOSYS|EINVAL [--exec] N...
     affinity     sched_getaffinity and sched_setaffinity refused
     setaffinity  sched_setaffinity alone refused (the masks can be read, not set)
     numa         mbind, set_mempolicy, get_mempolicy, move_pages and migrate_pages refused
     --exec       the program runs itself again under the filter, so the runtime is loaded
                  inside the sandbox (its load-time look at the mask fails too)
   Prints "seccomp unavailable" and exits 0 where the kernel has no seccomp filters. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "lite_check.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <omp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "seccomp_affinity: the audit arch of this machine is not listed"
#endif

static int errno_named(const char *name)
{
    if (strcmp(name, "EPERM") == 0)
        return EPERM;
    if (strcmp(name, "ENOSYS") == 0)
        return ENOSYS;
    if (strcmp(name, "EINVAL") == 0)
        return EINVAL;
    lite_fail("unknown errno name %s", name);
}

/* A filter that answers each call of nrs[0..n) with err and lets everything else through; a
   call made with another architecture's numbers (x32, i386 on x86_64) is let through as well. */
static int install_filter(const int *nrs, unsigned n, int err)
{
    struct sock_filter prog[32];
    unsigned k = 0;
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                             offsetof(struct seccomp_data, arch));
    prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_AUDIT_ARCH, 1, 0);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                                             offsetof(struct seccomp_data, nr));
    for (unsigned i = 0; i < n; i++) {
        /* Equal: skip to the ERRNO return after the ALLOW below. */
        prog[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i],
                                                 (unsigned char)(n - i), 0);
    }
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    prog[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
                                             SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA));
    struct sock_fprog fprog = {.len = (unsigned short)k, .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

static void check_refused(long ret, int err, const char *what)
{
    LITE_EXPECT(ret == -1 && errno == err, "the filter does not refuse %s (ret %ld, errno %d)",
                what, ret, errno);
}

/* One round at n threads: every construct the runtime may reach the topology or a mask from. */
static void run(int n, int numa)
{
    omp_set_num_threads(n);
    int members = 0;
#pragma omp parallel
    {
#pragma omp atomic
        members++;
    }
    LITE_EXPECT(members == n, "%d threads: %d members ran the region", n, members);

    long sum = 0;
#pragma omp parallel for schedule(dynamic, 7) reduction(+ : sum)
    for (int i = 0; i < 10000; i++)
        sum += i;
    LITE_EXPECT(sum == 49995000L, "%d threads: dynamic loop sum %ld", n, sum);

    /* Nonmonotonic: the members steal, nearest first, which loads the topology. Run a few
       times so that the call site's statistics turn stealing on. */
    for (int rep = 0; rep < 20; rep++) {
        sum = 0;
#pragma omp parallel for schedule(nonmonotonic : dynamic, 3) reduction(+ : sum)
        for (int i = 0; i < 3000; i++) {
            if (i % 97 == 0)
                for (volatile int spin = 0; spin < 20000; spin++) {}
            sum += i;
        }
        LITE_EXPECT(sum == 4498500L, "%d threads: nonmonotonic loop sum %ld", n, sum);
    }

    long tasks = 0;
#pragma omp parallel
#pragma omp single
    for (int t = 0; t < 200; t++) {
#pragma omp task shared(tasks)
        {
#pragma omp atomic
            tasks++;
        }
    }
    LITE_EXPECT(tasks == 200, "%d threads: %ld tasks ran", n, tasks);

    /* The place routines answer from what they know: counts that agree, a place in range. */
    int places = omp_get_num_places();
    LITE_EXPECT(places >= 0, "omp_get_num_places() = %d", places);
    for (int p = 0; p < places; p++) {
        int procs = omp_get_place_num_procs(p);
        LITE_EXPECT(procs > 0 && procs <= 65536, "place %d has %d procs", p, procs);
        int *ids = malloc((size_t)procs * sizeof *ids);
        LITE_EXPECT(ids != NULL, "out of memory");
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < procs; i++)
            LITE_EXPECT(ids[i] >= 0, "place %d: proc id %d", p, ids[i]);
        free(ids);
    }
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
        int me = omp_get_place_num();
        int part = omp_get_partition_num_places();
        if (me < -1 || me >= places || part < 0 || part > places)
            bad++;
    }
    LITE_EXPECT(bad == 0, "%d members gave a place or partition out of range", bad);

    if (numa) {
        /* A placement trait asks for mbind: refused, the memory must still be there. */
        omp_alloctrait_t traits[] = {{omp_atk_partition, omp_atv_interleaved}};
        omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 1, traits);
        LITE_EXPECT(a != omp_null_allocator, "omp_init_allocator failed");
        char *p = omp_alloc(1 << 20, a);
        LITE_EXPECT(p != NULL, "omp_alloc with a partition trait failed");
        memset(p, 1, 1 << 20);
        omp_free(p, a);
        omp_destroy_allocator(a);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s affinity|setaffinity|numa EPERM|ENOSYS|EINVAL [--exec] N...\n",
                argv[0]);
        return 2;
    }
    const char *what = argv[1];
    int err = errno_named(argv[2]);
    int at = 3, again = 0, execed = 0;
    if (strcmp(argv[at], "--exec") == 0) {
        again = 1;
        at++;
    } else if (strcmp(argv[at], "--execed") == 0) {
        execed = 1;
        at++;
    }
    int aff[] = {SYS_sched_getaffinity, SYS_sched_setaffinity};
    int setaff[] = {SYS_sched_setaffinity};
    int numa[] = {SYS_mbind, SYS_set_mempolicy, SYS_get_mempolicy, SYS_move_pages,
                  SYS_migrate_pages};
    int is_numa = strcmp(what, "numa") == 0;
    if (!execed) {
        int rc;
        if (strcmp(what, "affinity") == 0)
            rc = install_filter(aff, 2, err);
        else if (strcmp(what, "setaffinity") == 0)
            rc = install_filter(setaff, 1, err);
        else if (is_numa)
            rc = install_filter(numa, 5, err);
        else
            lite_fail("unknown call set %s", what);
        if (rc != 0) {
            printf("seccomp unavailable (%s): nothing tested\n", strerror(errno));
            return 0;
        }
        if (again) {
            argv[at - 1] = "--execed";
            execv("/proc/self/exe", argv);
            lite_fail("execv: %s", strerror(errno));
        }
    }
    /* The filter holds (and, after --exec, still holds). */
    cpu_set_t mask;
    if (is_numa) {
        int mode;
        check_refused(syscall(SYS_get_mempolicy, &mode, NULL, 0, NULL, 0), err, "get_mempolicy");
    } else {
        CPU_ZERO(&mask);
        CPU_SET(0, &mask);
        if (strcmp(what, "affinity") == 0)
            check_refused(syscall(SYS_sched_getaffinity, 0, sizeof mask, &mask), err,
                          "sched_getaffinity");
        check_refused(syscall(SYS_sched_setaffinity, 0, sizeof mask, &mask), err,
                      "sched_setaffinity");
    }

    LITE_CHECK("seccomp_affinity");
    for (; at < argc; at++)
        run(atoi(argv[at]), is_numa);
    printf("seccomp_affinity: ok (%s refused with %s)\n", what, argv[2]);
    return 0;
}
