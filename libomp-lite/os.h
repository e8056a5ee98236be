/* The operating system behind one door: futexes, yielding, clocks, CPU counts and thread
   creation. Nothing else in libomp-lite makes a system call itself. */
#ifndef LITE_OS_H
#define LITE_OS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* Sleep while *word == expected (returns on wake-up, signal, or if the value differs already).
   Both tell the wait policy (wait.c) about threads woken that have not run yet. */
void lite_futex_wait(_Atomic uint32_t *word, uint32_t expected);
/* The same until CLOCK_MONOTONIC reaches deadline_ns; true if it returned for the deadline. */
bool lite_futex_wait_until(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline_ns);
/* This thread's timer slack (how late the kernel may fire its timers), in ns. */
void lite_os_timer_slack(unsigned long ns);
/* Wake up to n threads sleeping on word. */
void lite_futex_wake(_Atomic uint32_t *word, int n);

/* Give the CPU to another runnable thread, if any. */
void lite_os_yield(void);

static inline void lite_cpu_relax(void) { __builtin_ia32_pause(); }

/* Hint that another core reads the line at p next: cldemote moves it out of this core's own
   caches to the shared level, so that the reader's miss need not fetch it from this core. Its
   encoding is a hint-NOP, so processors without it ignore it. A minimal fork and join of two
   threads (a generation stored one way, then back) read 0.27 us a round without it and 0.20-0.22
   with it on the project's machine; storing arrival words of a barrier that both threads wait
   on did not gain (0.16 us either way). team.c lite_team_fork also demotes the region's data. */
static inline void lite_cache_demote(const void *p)
{
  __asm__ volatile("cldemote %0" : : "m"(*(const char *)p));
}

/* Monotonic time in nanoseconds (vDSO clock_gettime, about 20 ns here). */
static inline uint64_t lite_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The number of CPUs in this process's affinity mask. */
unsigned lite_os_affinity_cpus(void);
/* 0 when the kernel lets this process read thread masks (sched_getaffinity), else the errno of
   its refusal: EPERM or ENOSYS from a seccomp filter (some sandboxes and containers), EINVAL
   when no mask size up to 2^20 CPUs is accepted. Asked once, at the first call; libhwloc must
   not be asked for this machine when it is not 0 (it retries the call for ever). */
int lite_os_affinity_error(void);
/* The CPU quota of this process's cgroup, rounded up to whole CPUs; 0 if none is set: cgroup v2
   (cpu.max) or v1 (cpu.cfs_quota_us / cpu.cfs_period_us under ROOT/cpu), the smallest up the
   hierarchy. root is the cgroup file system's mount point ("/sys/fs/cgroup"), a parameter for
   the tests, as is the file that names the process's groups ("/proc/self/cgroup"). */
unsigned lite_os_cgroup_cpu_quota(const char *root);
unsigned lite_os_cgroup_quota_at(const char *root, const char *proc_cgroup);
/* CPUs the default team should use: the affinity mask, capped by the cgroup quota. */
unsigned lite_os_available_cpus(void);

/* CPU masks as ascending lists of CPU numbers. The CPUs of thread tid's mask (0: the caller), at
   most cap of them; returns how many (0: unreadable). */
unsigned lite_os_thread_cpus(int tid, int *cpus, unsigned cap);
/* Binds thread tid (0: the caller) to the listed CPUs. */
bool lite_os_bind_thread(int tid, const int *cpus, unsigned n);
/* An upper bound of CPU numbers + 1 (the size of the lists above). */
unsigned lite_os_max_cpus(void);
/* The CPUs this process may use, as it started: the loading thread's mask when libomp-lite was
   loaded, before any constructor ran (under LD_PRELOAD the stock libgomp's constructor, which
   runs first, may pin the initial thread). */
unsigned lite_os_process_cpus(int *cpus, unsigned cap);
/* Whether the calling thread's mask is exactly the place the stock libgomp pinned it to, and
   narrower than the process's. */
bool lite_os_stock_pinned_self(void);

/* The CPU the calling thread runs on (rseq or vDSO: a few ns). */
int lite_os_cpu(void);
/* The CPU and NUMA node the calling thread runs on (getcpu); 0, or the errno. */
int lite_os_cpu_node(unsigned *cpu, unsigned *node);

/* NUMA memory policy: the kernel's calls made here, not through libnuma, whose constructor
   reads masks and, when a sandbox refuses sched_getaffinity, prints a warning in every process
   the preloaded runtime is loaded into. Masks of unsigned longs, maxnode as the kernel takes it
   (bits + 1). Each returns 0, or the errno of the failure (EPERM, ENOSYS from a seccomp filter
   or a kernel without NUMA). */
int lite_os_mbind(void *start, size_t len, int mode, const unsigned long *nodes,
                  unsigned long maxnode, unsigned flags);
/* The nodes this process may place memory on (its cpuset's mems), into nodes. */
int lite_os_mems_allowed(unsigned long *nodes, unsigned long maxnode);

/* Moves thread tid (0: the caller) off cpu, to another CPU of its affinity mask, leaving the
   mask as it was. Returns false if there is no other CPU. */
bool lite_os_move_off_cpu(int tid, int cpu);
/* The runtime's moves: the calling thread, inside the runtime, moves itself off cpu (resp. to
   cpu) and puts back exactly the mask it read, so that user code never sees another mask; and
   only if that mask is the process's (as at load): a thread the user or the binding pinned is
   never moved. Return false when nothing was done. */
bool lite_os_move_self_off_cpu(int cpu);
bool lite_os_move_self_to_cpu(int cpu);
/* Moves thread tid (0: the caller) to cpu, which must be in its affinity mask, then gives it its
   mask back: the kernel leaves it there until its own balancing moves it. Returns false if cpu
   is not in the mask or a call failed. */
bool lite_os_move_to_cpu(int tid, int cpu);
/* The CPUs below limit (a multiple of 64) in the calling thread's affinity mask, as a bitmap:
   bit c of bits[c / 64]. Returns false if the mask cannot be read. */
bool lite_os_affinity_bitmap(uint64_t *bits, unsigned limit);

/* CPUs online on the machine (not only those this process may use); read once. */
unsigned lite_os_online_cpus(void);

/* Tasks runnable on the whole system now, the caller included (the kernel's nr_running, from
   /proc/loadavg: one read of a small file, some µs), or -1 if unknown. */
int lite_os_runnable_tasks(void);

/* Threads of this process runnable now, the caller included (one small file read per thread of
   the process), or -1 if unknown. */
int lite_os_runnable_threads_of_process(void);

/* The kernel's id of the calling thread. */
int lite_os_gettid(void);

/* Whether the process runs with privileges its user lacks (setuid, setgid, file capabilities:
   the kernel's AT_SECURE, which also makes glibc ignore LD_PRELOAD and secure_getenv answer
   NULL): then env.c ignores every variable that names a file. */
bool lite_os_secure(void);

/* Starts a detached-or-joinable thread with the given stack size (0: the system default).
   Returns 0 or the pthread_create error number. */
int lite_os_thread_start(pthread_t *thread, size_t stacksize, void *(*fn)(void *), void *arg);

/* The lowest address of the calling thread's stack (pthread_getattr_np: for the initial thread
   glibc reads /proc/self/maps and the stack rlimit) and its size; false if unknown. */
bool lite_os_stack_bounds(uintptr_t *lo, size_t *size);

#endif
