/* Linux behind os.h: futex, sched_yield, the affinity mask, cgroup v1 and v2 quotas, thread start. */
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

void lite_futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
  /* Private futex: the word is never shared with another process. 0: woken (not a signal, nor
     a value that had changed already). */
  if (syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0) == 0)
    lite_wake_arrived();
}

bool lite_futex_wait_until(_Atomic uint32_t *word, uint32_t expected, uint64_t deadline_ns)
{
  /* FUTEX_WAIT_BITSET takes an absolute deadline on CLOCK_MONOTONIC (plain FUTEX_WAIT a
     relative one), so a wait restarted after a signal or a task's poke keeps its deadline. */
  struct timespec ts = { (time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u) };
  long r = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_BITSET_PRIVATE, expected, &ts, NULL,
                   FUTEX_BITSET_MATCH_ANY);
  if (r == 0) {
    lite_wake_arrived();
    return false;
  }
  return errno == ETIMEDOUT;
}

void lite_os_timer_slack(unsigned long ns) { (void)prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0); }

void lite_futex_wake(_Atomic uint32_t *word, int n)
{
  long woken = syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
  if (woken > 0)
    lite_wake_sent((int)woken);
}

void lite_os_yield(void) { sched_yield(); }

int lite_os_gettid(void) { return (int)syscall(SYS_gettid); }

bool lite_os_secure(void) { return getauxval(AT_SECURE) != 0; }

int lite_os_cpu(void) { return sched_getcpu(); }

int lite_os_cpu_node(unsigned *cpu, unsigned *node) { return getcpu(cpu, node) == 0 ? 0 : errno; }

int lite_os_mbind(void *start, size_t len, int mode, const unsigned long *nodes,
                  unsigned long maxnode, unsigned flags)
{
  return syscall(SYS_mbind, start, len, mode, nodes, maxnode, flags) == 0 ? 0 : errno;
}

int lite_os_mems_allowed(unsigned long *nodes, unsigned long maxnode)
{
  return syscall(SYS_get_mempolicy, NULL, nodes, maxnode, NULL, MPOL_F_MEMS_ALLOWED) == 0 ? 0
                                                                                           : errno;
}

bool lite_os_move_off_cpu(int tid, int cpu)
{
  cpu_set_t mask, others;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(tid, sizeof mask, &mask) != 0)
    return false;
  others = mask;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0 || sched_setaffinity(tid, sizeof others, &others) != 0)
    return false;
  /* The kernel has moved the thread; the full mask again lets it go anywhere later. */
  sched_setaffinity(tid, sizeof mask, &mask);
  return true;
}

bool lite_os_move_to_cpu(int tid, int cpu)
{
  cpu_set_t mask, target;
  if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(tid, sizeof mask, &mask) != 0 ||
      !CPU_ISSET(cpu, &mask))
    return false;
  CPU_ZERO(&target);
  CPU_SET(cpu, &target);
  if (sched_setaffinity(tid, sizeof target, &target) != 0)
    return false;
  sched_setaffinity(tid, sizeof mask, &mask);
  return true;
}

/* The process's CPUs, as lite_os_process_cpus gives them, read once; a process whose CPUs do not
   fit a cpu_set_t moves nothing. */
static cpu_set_t process_set;
static bool process_set_ok;
static pthread_once_t process_set_once = PTHREAD_ONCE_INIT;

static void read_process_set(void)
{
  int cpus[CPU_SETSIZE];
  unsigned n = lite_os_process_cpus(cpus, CPU_SETSIZE);
  CPU_ZERO(&process_set);
  process_set_ok = n > 0;
  for (unsigned i = 0; i < n; i++) {
    if (cpus[i] < 0 || cpus[i] >= CPU_SETSIZE)
      process_set_ok = false;
    else
      CPU_SET(cpus[i], &process_set);
  }
}

/* Whether the calling thread's mask (read into *mask) is the process's. */
static bool own_mask_is_process(cpu_set_t *mask)
{
  pthread_once(&process_set_once, read_process_set);
  return process_set_ok && sched_getaffinity(0, sizeof *mask, mask) == 0 &&
         CPU_EQUAL(mask, &process_set);
}

bool lite_os_move_self_off_cpu(int cpu)
{
  cpu_set_t mask, others;
  if (cpu < 0 || cpu >= CPU_SETSIZE || !own_mask_is_process(&mask))
    return false;
  others = mask;
  CPU_CLR(cpu, &others);
  if (CPU_COUNT(&others) == 0 || sched_setaffinity(0, sizeof others, &others) != 0)
    return false;
  sched_setaffinity(0, sizeof mask, &mask);
  return true;
}

bool lite_os_move_self_to_cpu(int cpu)
{
  cpu_set_t mask, target;
  if (cpu < 0 || cpu >= CPU_SETSIZE || !own_mask_is_process(&mask) || !CPU_ISSET(cpu, &mask))
    return false;
  CPU_ZERO(&target);
  CPU_SET(cpu, &target);
  if (sched_setaffinity(0, sizeof target, &target) != 0)
    return false;
  sched_setaffinity(0, sizeof mask, &mask);
  return true;
}

bool lite_os_affinity_bitmap(uint64_t *bits, unsigned limit)
{
  cpu_set_t mask;
  if (lite_os_affinity_error() != 0 || sched_getaffinity(0, sizeof mask, &mask) != 0)
    return false;
  for (unsigned c = 0; c < limit; c++) {
    if (c % 64 == 0)
      bits[c / 64] = 0;
    if (c < CPU_SETSIZE && CPU_ISSET(c, &mask))
      bits[c / 64] |= (uint64_t)1 << (c % 64);
  }
  return true;
}

unsigned lite_os_online_cpus(void)
{
  static _Atomic unsigned online; /* 0: not read yet (sysconf reads a file) */
  unsigned n = atomic_load_explicit(&online, memory_order_relaxed);
  if (n == 0) {
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    n = count > 0 ? (unsigned)count : 1;
    atomic_store_explicit(&online, n, memory_order_relaxed);
  }
  return n;
}

/* Reads a small /proc file into buf (NUL-terminated) with plain read(2), no stdio: a waiting
   thread calls this, and stdio would allocate. Returns its length, or -1. */
static ssize_t read_small_file(int dirfd, const char *path, char *buf, size_t size)
{
  int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  ssize_t len = read(fd, buf, size - 1);
  close(fd);
  if (len < 0)
    return -1;
  buf[len] = '\0';
  return len;
}

int lite_os_runnable_tasks(void)
{
  /* "0.62 1.83 3.85 2/79 24222": the fourth field is runnable/total. */
  char buf[128];
  if (read_small_file(AT_FDCWD, "/proc/loadavg", buf, sizeof buf) <= 0)
    return -1;
  const char *p = buf;
  for (int field = 0; field < 3; field++) {
    p = strchr(p, ' ');
    if (p == NULL)
      return -1;
    p++;
  }
  char *end;
  long runnable = strtol(p, &end, 10);
  return end != p && *end == '/' ? (int)runnable : -1;
}

int lite_os_runnable_threads_of_process(void)
{
  /* /proc/self/task/TID/stat: "TID (comm) S ...", S the state; comm may hold ") ". The directory
     is read with getdents64 into a stack buffer (opendir would allocate). */
  struct dirent64_raw {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
  };
  int dir = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return -1;
  _Alignas(8) char entries[2048];
  char stat[512];
  int count = 0;
  long len;
  while ((len = syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0) {
    for (long at = 0; at < len;) {
      const struct dirent64_raw *d = (const void *)(entries + at);
      at += d->reclen;
      if (d->name[0] < '0' || d->name[0] > '9')
        continue;
      char path[64];
      snprintf(path, sizeof path, "%.40s/stat", d->name);
      if (read_small_file(dir, path, stat, sizeof stat) <= 0)
        continue; /* the thread has just exited */
      const char *close_paren = strrchr(stat, ')');
      if (close_paren != NULL && close_paren[1] == ' ' && close_paren[2] == 'R')
        count++;
    }
  }
  close(dir);
  return len < 0 ? -1 : count;
}

int lite_os_affinity_error(void)
{
  static _Atomic int error = -1; /* -1: not asked yet */
  int e = atomic_load_explicit(&error, memory_order_relaxed);
  if (e >= 0)
    return e;
  e = EINVAL;
  /* EINVAL: the mask is smaller than the kernel's; any other errno is a refusal. */
  for (size_t ncpu = CPU_SETSIZE; ncpu <= 1u << 20 && e == EINVAL; ncpu *= 2) {
    cpu_set_t *set = CPU_ALLOC(ncpu);
    if (set == NULL)
      return 0; /* no memory: no answer, asked again next time */
    e = sched_getaffinity(0, CPU_ALLOC_SIZE(ncpu), set) == 0 ? 0 : errno;
    CPU_FREE(set);
  }
  atomic_store_explicit(&error, e, memory_order_relaxed);
  return e;
}

unsigned lite_os_affinity_cpus(void)
{
  /* Masks wider than the default cpu_set_t exist on big machines: grow until the kernel agrees.
     Refused (a seccomp filter): the online CPUs. */
  for (size_t ncpu = CPU_SETSIZE; ncpu <= 1u << 20 && lite_os_affinity_error() == 0; ncpu *= 2) {
    cpu_set_t *set = CPU_ALLOC(ncpu);
    size_t size = CPU_ALLOC_SIZE(ncpu);
    if (set == NULL)
      break;
    if (sched_getaffinity(0, size, set) == 0) {
      unsigned count = (unsigned)CPU_COUNT_S(size, set);
      CPU_FREE(set);
      return count > 0 ? count : 1;
    }
    CPU_FREE(set);
    if (errno != EINVAL)
      break;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned)n : 1;
}

/* This process's path in the hierarchy that controls the CPU, from its /proc/self/cgroup file
   (proc_cgroup): the "0::/path" line of cgroup v2, or with v1 the line whose controllers
   include "cpu" ("4:cpu,cpuacct:/path"). *v1 says which it found; v1 wins where both are
   present (a hybrid system, whose v2 tree holds no cpu controller). NULL if neither. */
static char *own_cgroup_path(const char *proc_cgroup, bool *v1)
{
  FILE *f = fopen(proc_cgroup, "r");
  if (f == NULL)
    return NULL;
  char line[4096];
  char *v2_path = NULL, *v1_path = NULL;
  while (v1_path == NULL && fgets(line, sizeof line, f) != NULL) {
    line[strcspn(line, "\n")] = '\0';
    char *controllers = strchr(line, ':');
    char *path = controllers != NULL ? strchr(controllers + 1, ':') : NULL;
    if (path == NULL)
      continue;
    *path++ = '\0';
    *controllers++ = '\0';
    if (*controllers == '\0') {
      if (v2_path == NULL && strcmp(line, "0") == 0)
        v2_path = strdup(path);
      continue;
    }
    for (char *save, *c = strtok_r(controllers, ",", &save); c != NULL;
         c = strtok_r(NULL, ",", &save))
      if (strcmp(c, "cpu") == 0) {
        v1_path = strdup(path);
        break;
      }
  }
  fclose(f);
  *v1 = v1_path != NULL;
  if (v1_path != NULL) {
    free(v2_path);
    return v1_path;
  }
  return v2_path;
}

/* Whole CPUs (rounded up) of a quota and a period, 0 for none. */
static unsigned quota_cpus(unsigned long long quota, unsigned long long period)
{
  if (quota == 0 || period == 0)
    return 0;
  unsigned long long cpus = (quota + period - 1) / period;
  return cpus > UINT_MAX ? UINT_MAX : (unsigned)cpus;
}

/* Reads one cpu.max file: "max 100000" (no quota) or "QUOTA PERIOD". Returns whole CPUs
   (rounded up) or 0 when there is no quota or the file cannot be read. */
static unsigned read_cpu_max(const char *file)
{
  FILE *f = fopen(file, "r");
  if (f == NULL)
    return 0;
  char quota[32];
  unsigned long long period = 0;
  unsigned cpus = 0;
  if (fscanf(f, "%31s %llu", quota, &period) == 2 && strcmp(quota, "max") != 0) {
    char *end;
    unsigned long long q = strtoull(quota, &end, 10);
    if (*end == '\0')
      cpus = quota_cpus(q, period);
  }
  fclose(f);
  return cpus;
}

/* cgroup v1 splits it in two files of the directory: cpu.cfs_quota_us ("-1": no quota) and
   cpu.cfs_period_us. */
static unsigned read_cfs_quota(const char *dir)
{
  char file[PATH_MAX + 32];
  long long quota = -1, period = 0;
  snprintf(file, sizeof file, "%s/cpu.cfs_quota_us", dir);
  FILE *f = fopen(file, "r");
  if (f == NULL)
    return 0;
  int got = fscanf(f, "%lld", &quota);
  fclose(f);
  if (got != 1 || quota <= 0)
    return 0;
  snprintf(file, sizeof file, "%s/cpu.cfs_period_us", dir);
  if ((f = fopen(file, "r")) == NULL)
    return 0;
  got = fscanf(f, "%lld", &period);
  fclose(f);
  return got == 1 && period > 0 ? quota_cpus((unsigned long long)quota,
                                             (unsigned long long)period)
                                : 0;
}

unsigned lite_os_cgroup_quota_at(const char *root, const char *proc_cgroup)
{
  bool v1;
  char *path = own_cgroup_path(proc_cgroup, &v1);
  if (path == NULL)
    return 0;
  /* A quota anywhere up the hierarchy limits this process: take the smallest. cgroup v1's cpu
     controller is mounted at ROOT/cpu (often a link to ROOT/cpu,cpuacct). In a container the
     path is the host's and the container sees its own group at the mount's top: the walk up
     reaches it. */
  unsigned best = 0;
  char dir[PATH_MAX];
  for (;;) {
    snprintf(dir, sizeof dir, "%s%s%s", root, v1 ? "/cpu" : "", strcmp(path, "/") ? path : "");
    unsigned q;
    if (v1) {
      q = read_cfs_quota(dir);
    } else {
      char file[PATH_MAX + 16];
      snprintf(file, sizeof file, "%s/cpu.max", dir);
      q = read_cpu_max(file);
    }
    if (q > 0 && (best == 0 || q < best))
      best = q;
    char *slash = strrchr(path, '/');
    if (slash == NULL || (slash == path && path[1] == '\0'))
      break;
    if (slash == path)
      slash[1] = '\0'; /* go up to "/" */
    else
      *slash = '\0';
  }
  free(path);
  return best;
}

unsigned lite_os_cgroup_cpu_quota(const char *root)
{
  return lite_os_cgroup_quota_at(root, "/proc/self/cgroup");
}

unsigned lite_os_available_cpus(void)
{
  unsigned cpus = lite_os_affinity_cpus();
  unsigned quota = lite_os_cgroup_cpu_quota("/sys/fs/cgroup");
  return quota > 0 && quota < cpus ? quota : cpus;
}

int lite_os_thread_start(pthread_t *thread, size_t stacksize, void *(*fn)(void *), void *arg)
{
  pthread_attr_t attr;
  int err = pthread_attr_init(&attr);
  if (err != 0)
    return err;
  if (stacksize > 0 && (err = pthread_attr_setstacksize(&attr, stacksize)) != 0) {
    pthread_attr_destroy(&attr);
    return err;
  }
  err = pthread_create(thread, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  return err;
}

/* Masks as lists of CPU numbers: the affinity code never sees a cpu_set_t. Sized for the
   machine's configured CPUs, at least CPU_SETSIZE. */
static size_t mask_cpus(void)
{
  long conf = sysconf(_SC_NPROCESSORS_CONF);
  return conf > CPU_SETSIZE ? (size_t)conf : CPU_SETSIZE;
}

static unsigned set_to_list(const cpu_set_t *set, size_t size, size_t ncpus, int *cpus,
                            unsigned cap)
{
  unsigned n = 0;
  for (size_t c = 0; c < ncpus && n < cap; c++)
    if (CPU_ISSET_S(c, size, set))
      cpus[n++] = (int)c;
  return n;
}

unsigned lite_os_thread_cpus(int tid, int *cpus, unsigned cap)
{
  size_t ncpus = mask_cpus();
  cpu_set_t *set = CPU_ALLOC(ncpus);
  size_t size = CPU_ALLOC_SIZE(ncpus);
  unsigned n = 0;
  if (set != NULL && sched_getaffinity(tid, size, set) == 0)
    n = set_to_list(set, size, ncpus, cpus, cap);
  CPU_FREE(set);
  return n;
}

bool lite_os_bind_thread(int tid, const int *cpus, unsigned n)
{
  size_t ncpus = mask_cpus();
  cpu_set_t *set = CPU_ALLOC(ncpus);
  size_t size = CPU_ALLOC_SIZE(ncpus);
  if (set == NULL)
    return false;
  CPU_ZERO_S(size, set);
  for (unsigned i = 0; i < n; i++)
    if (cpus[i] >= 0 && (size_t)cpus[i] < ncpus)
      CPU_SET_S((size_t)cpus[i], size, set);
  bool ok = CPU_COUNT_S(size, set) > 0 && sched_setaffinity(tid, size, set) == 0;
  if (!ok && CPU_COUNT_S(size, set) == 0)
    errno = EINVAL; /* the callers report errno */
  CPU_FREE(set);
  return ok;
}

unsigned lite_os_max_cpus(void) { return (unsigned)mask_cpus(); }

/* The stock libgomp's place routines, when it is loaded beside libomp-lite (LD_PRELOAD). */
struct stock_places {
  int (*num_procs)(void);
  int (*num_places)(void);
  int (*place_num)(void);
  int (*place_num_procs)(int);
  void (*place_proc_ids)(int, int *);
};

static bool find_stock(struct stock_places *s)
{
  s->num_procs = (int (*)(void))dlsym(RTLD_NEXT, "omp_get_num_procs");
  s->num_places = (int (*)(void))dlsym(RTLD_NEXT, "omp_get_num_places");
  s->place_num = (int (*)(void))dlsym(RTLD_NEXT, "omp_get_place_num");
  s->place_num_procs = (int (*)(int))dlsym(RTLD_NEXT, "omp_get_place_num_procs");
  s->place_proc_ids = (void (*)(int, int *))dlsym(RTLD_NEXT, "omp_get_place_proc_ids");
  return s->num_procs != NULL && s->num_places != NULL && s->place_num != NULL &&
         s->place_num_procs != NULL && s->place_proc_ids != NULL;
}

/* Adds the CPUs of the stock libgomp's place p to the sorted set cpus[0..n) (room for cap). */
static unsigned add_stock_place(const struct stock_places *s, int p, int *cpus, unsigned n,
                                unsigned cap)
{
  int count = s->place_num_procs(p);
  if (count <= 0 || count > 65536)
    return n;
  int *ids = malloc((size_t)count * sizeof *ids);
  if (ids == NULL)
    return n;
  s->place_proc_ids(p, ids);
  for (int i = 0; i < count; i++) {
    unsigned at = 0;
    while (at < n && cpus[at] < ids[i])
      at++;
    if ((at < n && cpus[at] == ids[i]) || n == cap)
      continue;
    memmove(cpus + at + 1, cpus + at, (n - at) * sizeof *cpus);
    cpus[at] = ids[i];
    n++;
  }
  free(ids);
  return n;
}

bool lite_os_stock_pinned_self(void)
{
  struct stock_places s;
  if (!find_stock(&s))
    return false;
  int place = s.place_num();
  if (place < 0 || place >= s.num_places())
    return false;
  unsigned cap = lite_os_max_cpus();
  int *mine = malloc(cap * sizeof *mine), *theirs = malloc(cap * sizeof *theirs);
  bool pinned = false;
  if (mine != NULL && theirs != NULL) {
    unsigned n = lite_os_thread_cpus(0, mine, cap);
    unsigned m = add_stock_place(&s, place, theirs, 0, cap);
    pinned = n > 0 && n == m && memcmp(mine, theirs, n * sizeof *mine) == 0 &&
             (int)n < s.num_procs();
  }
  free(mine);
  free(theirs);
  return pinned;
}

/* The calling thread's mask when the dynamic linker loaded libomp-lite, before any library's
   constructor ran. Under LD_PRELOAD the stock libgomp is loaded too, and with a binding variable
   set its constructor pins the initial thread to its first place; it runs before ours (the
   dynamic linker initialises the preloaded library after the program's own libraries), and it
   may even pin outside a taskset mask (GOMP_CPU_AFFINITY=0-1 under taskset -c 1 went to CPU 0).
   Relocation comes before every constructor, so an IFUNC resolver, which the dynamic linker
   calls while it relocates libomp-lite, sees the mask the process started with. It makes the
   system call itself: libc may not be initialised yet. */
#define LOAD_MASK_WORDS 128 /* 8192 CPUs */
static uint64_t load_mask[LOAD_MASK_WORDS];
static long load_mask_bytes; /* what the kernel wrote; 0: not recorded */

/* Not under ThreadSanitizer: its instrumented resolver would run before the sanitizer's runtime
   is set up, and crashed every program. That build is used as libgomp.so.1 alone, where no stock
   libgomp pins anything, and the mask read at the first call is right. */
#ifndef __SANITIZE_THREAD__

static long raw_sched_getaffinity(void *mask, unsigned long size)
{
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"((long)SYS_sched_getaffinity), "D"(0L), "S"(size), "d"(mask)
                   : "rcx", "r11", "memory");
  return ret;
}

static void load_probe_done(void) {}

static void (*resolve_load_probe(void))(void)
{
  long bytes = raw_sched_getaffinity(load_mask, sizeof load_mask);
  load_mask_bytes = bytes > 0 ? bytes : 0;
  return load_probe_done;
}

void lite_os_load_probe(void) __attribute__((ifunc("resolve_load_probe")));
/* The address taken here makes the linker resolve the IFUNC at load time (IRELATIVE). */
void (*const lite_os_load_probe_ref)(void) = lite_os_load_probe;
#endif

unsigned lite_os_process_cpus(int *cpus, unsigned cap)
{
  if (load_mask_bytes == 0)
    return lite_os_thread_cpus(0, cpus, cap);
  unsigned n = 0;
  for (unsigned c = 0; c < (unsigned)load_mask_bytes * 8 && n < cap; c++)
    if (load_mask[c / 64] >> (c % 64) & 1)
      cpus[n++] = (int)c;
  return n;
}

bool lite_os_stack_bounds(uintptr_t *lo, size_t *size)
{
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0)
    return false;
  void *addr = NULL;
  size_t bytes = 0;
  int err = pthread_attr_getstack(&attr, &addr, &bytes);
  pthread_attr_destroy(&attr);
  if (err != 0 || addr == NULL || bytes == 0)
    return false;
  *lo = (uintptr_t)addr;
  *size = bytes;
  return true;
}
