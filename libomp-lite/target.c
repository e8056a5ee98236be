/* Target constructs and device memory routines, for a runtime with no offload device (OpenMP 5.2
   §13): every target region runs on the host ("host fallback"), which shares the program's
   memory, so map clauses move nothing and the data constructs have nothing to do but honour
   their depend clauses.

   A target region runs on the encountering thread as the initial thread of the device: outside
   any parallel region and team, with its own implicit task, the initial ICVs and the thread
   limit gcc passes. firstprivate variables are copied when the region starts. nowait regions
   run at once (a deferred task may be run by the thread that meets it), after their depend
   clauses are met. Binaries that carry offload images register them; with no device, those
   images are never used. */
#include "internal.h"
#include "ompt/ompt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* gcc's map kinds and target arguments (gomp-constants.h). */
enum {
  MAP_FIRSTPRIVATE = 12, /* GOMP_MAP_FLAG_SPECIAL | 0 */
  TARGET_ARG_DEVICE_MASK = (1 << 7) - 1,
  TARGET_ARG_SUBSEQUENT_PARAM = 1 << 7,
  TARGET_ARG_ID_MASK = ((1 << 8) - 1) << 8,
  TARGET_ARG_THREAD_LIMIT = 2 << 8,
  TARGET_ARG_VALUE_SHIFT = 16,
  TARGET_FLAG_NOWAIT = 1 << 0,
  TARGET_FLAG_EXIT_DATA = 1 << 1,
};

/* The host's device number: the initial device comes after the offload devices (none). */
static bool is_host(int device) { return device == omp_get_initial_device(); }

/* The thread_limit clause, from gcc's argument list: {id | value << 16} or {id, value} pairs,
   each for all devices or one, NULL-terminated. 0: none. */
static unsigned thread_limit_arg(void **args)
{
  while (args != NULL && *args != NULL) {
    intptr_t id = (intptr_t)*args++;
    intptr_t value = (id & TARGET_ARG_SUBSEQUENT_PARAM) ? (intptr_t)*args++
                                                         : id >> TARGET_ARG_VALUE_SHIFT;
    if ((id & TARGET_ARG_DEVICE_MASK) == 0 && (id & TARGET_ARG_ID_MASK) == TARGET_ARG_THREAD_LIMIT)
      return value > INT_MAX ? UINT32_MAX : value > 0 ? (unsigned)value : 0;
  }
  return 0;
}

/* Runs fn(hostaddrs) as the device's initial thread. The thread's state is put aside whole and
   put back after, as the region starts a new contention group. Outside any parallel region the
   thread's level-0 workers are idle and serve the region; inside one they are busy (this thread
   may be leading them), so the region gets workers of its own, released at its end. */
static void run_on_host(void (*fn)(void *), void **hostaddrs, unsigned thread_limit)
{
  struct lite_thread *thr = lite_self();
  struct lite_thread saved = *thr;
  bool own_pools = thr->team != NULL;
  thr->team = NULL;
  thr->id = 0;
  thr->icv = lite_env.icv;
  if (thread_limit != 0)
    thr->icv.thread_limit = thread_limit;
  thr->bar_epoch = thr->single_count = thr->ws_count = thr->ws_done = 0;
  thr->ws = thr->ws_split = thr->timed_ws = NULL;
  thr->chunk_lo = thr->chunk_hi = 0;
  thr->num_teams = thr->team_num = 0;
  thr->task = NULL;
  memset(&thr->root_tasks, 0, sizeof thr->root_tasks);
  if (own_pools) {
    thr->pools = NULL;
    thr->npools = 0;
    thr->solo = NULL;
    thr->nsolo = 0;
  }
  fn(hostaddrs);
  /* gcc 5 to 8's GOMP_teams began a league of one that ends with the region (teams.c). */
  if (lite_unlikely(thr->ompt_league != saved.ompt_league))
    lite_ompt_teams_step(thr, false, false, 1, NULL);
  /* The region ends with the implicit barrier of its initial task. */
  lite_tasks_drain(thr);
  if (thr->task != NULL)
    lite_task_implicit_end(thr->task);
  if (own_pools)
    lite_thread_release(thr);
  struct lite_pool **pools = thr->pools;
  unsigned npools = thr->npools;
  struct lite_ws **solo = thr->solo;
  unsigned nsolo = thr->nsolo;
  /* The task blocks the thread keeps for reuse (task.c) are the thread's, not the region's:
     the saved list may have lost blocks to the region's tasks, or been freed with its pools
     (ThreadSanitizer: a use after free at the next task after a target region in a parallel
     one). */
  struct lite_task *task_cache = thr->task_cache;
  unsigned task_cache_n = thr->task_cache_n;
  *thr = saved;
  thr->task_cache = task_cache;
  thr->task_cache_n = task_cache_n;
  if (!own_pools) {
    /* Pools and team-of-one entries made by the region stay for later ones. */
    thr->pools = pools;
    thr->npools = npools;
    thr->solo = solo;
    thr->nsolo = nsolo;
  }
}

/* run_on_host with a tool attached: the region's begin and end events (ompt/target.c). */
static __attribute__((noinline, cold)) void run_traced(int kind, const void *codeptr,
                                                       void (*fn)(void *), void **hostaddrs,
                                                       unsigned thread_limit)
{
  struct lite_ompt_target target;
  lite_ompt_target_begin(&target, kind, codeptr);
  run_on_host(fn, hostaddrs, thread_limit);
  lite_ompt_target_end(&target);
}

/* firstprivate map entries: copied now into one block (alignment 2^(kind >> 8)), and the region
   gets the copies' addresses. */
static size_t firstprivate_size(size_t mapnum, const size_t *sizes, const unsigned short *kinds,
                                size_t *max_align)
{
  size_t size = 0;
  *max_align = sizeof(void *);
  for (size_t i = 0; i < mapnum; i++) {
    if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE)
      continue;
    size_t align = (size_t)1 << (kinds[i] >> 8);
    if (align > *max_align)
      *max_align = align;
    size = ((size + align - 1) & ~(align - 1)) + sizes[i];
  }
  return size;
}

static void copy_firstprivate(char *block, size_t mapnum, void **hostaddrs, const size_t *sizes,
                              const unsigned short *kinds)
{
  size_t at = 0;
  for (size_t i = 0; i < mapnum; i++) {
    if ((kinds[i] & 0xff) != MAP_FIRSTPRIVATE || hostaddrs[i] == NULL)
      continue;
    size_t align = (size_t)1 << (kinds[i] >> 8);
    at = (at + align - 1) & ~(align - 1);
    memcpy(block + at, hostaddrs[i], sizes[i]);
    hostaddrs[i] = block + at;
    at += sizes[i];
  }
}

/* gcc's device argument: a device number, or these. */
enum { DEVICE_ICV = -1, DEVICE_HOST_FALLBACK = -2 };

/* OMP_TARGET_OFFLOAD=mandatory: a device construct or device memory routine for a device that
   does not exist ends the program. The host itself (the initial device, which is also the
   default device when there are no others), asked for by number or by if(false), is fine, as in
   libgomp. Returns whether the device is the host. */
static bool check_device(int device)
{
  if (device == DEVICE_ICV)
    device = lite_self()->icv.default_device;
  if (device == DEVICE_HOST_FALLBACK || is_host(device))
    return true;
  if (lite_env.target_offload == LITE_OFFLOAD_MANDATORY)
    lite_error_exit("OMP_TARGET_OFFLOAD is set to MANDATORY, but device %d does not exist "
                    "(libomp-lite has no offload device)", device);
  return false;
}

void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                     size_t *sizes, unsigned short *kinds, unsigned flags, void **depend,
                     void **args)
{
  (void)flags; /* nowait: run now */
  check_device(device);
  if (depend != NULL)
    GOMP_taskwait_depend(depend);
  size_t align;
  size_t size = firstprivate_size(mapnum, sizes, kinds, &align);
  char *block = NULL;
  if (size != 0) {
    block = aligned_alloc(align, (size + align - 1) & ~(align - 1));
    if (block == NULL)
      lite_fatal("out of memory for the firstprivate variables of a target region");
    copy_firstprivate(block, mapnum, hostaddrs, sizes, kinds);
  }
  if (lite_ompt_on())
    run_traced(flags & TARGET_FLAG_NOWAIT ? ompt_target_nowait : ompt_target,
               __builtin_return_address(0), fn, hostaddrs, thread_limit_arg(args));
  else
    run_on_host(fn, hostaddrs, thread_limit_arg(args));
  free(block);
}

/* The OpenMP 4.0 form. */
void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                 void **hostaddrs, size_t *sizes, unsigned char *kinds)
{
  (void)unused, (void)mapnum, (void)sizes, (void)kinds;
  check_device(device);
  if (lite_ompt_on())
    run_traced(ompt_target, __builtin_return_address(0), fn, hostaddrs, 0);
  else
    run_on_host(fn, hostaddrs, 0);
}

/* target data, enter data, exit data, update: with the host's memory shared, only their depend
   clauses (on the 5.0 forms) have an effect. With a tool attached, each is reported
   (ompt/target.c): target data's begin as enter data and its end as exit data. */
void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                          unsigned short *kinds)
{
  (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
  check_device(device);
  if (lite_ompt_on())
    lite_ompt_target_op(ompt_target_enter_data, __builtin_return_address(0));
}

void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs,
                      size_t *sizes, unsigned char *kinds)
{
  (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
  check_device(device);
  if (lite_ompt_on())
    lite_ompt_target_op(ompt_target_enter_data, __builtin_return_address(0));
}

void GOMP_target_end_data(void)
{
  if (lite_ompt_on())
    lite_ompt_target_op(ompt_target_exit_data, __builtin_return_address(0));
}

void GOMP_target_update(int device, const void *unused, size_t mapnum, void **hostaddrs,
                        size_t *sizes, unsigned char *kinds)
{
  (void)unused, (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
  check_device(device);
  if (lite_ompt_on())
    lite_ompt_target_op(ompt_target_update, __builtin_return_address(0));
}

void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                            unsigned short *kinds, unsigned flags, void **depend)
{
  (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
  check_device(device);
  if (depend != NULL)
    GOMP_taskwait_depend(depend);
  if (lite_ompt_on())
    lite_ompt_target_op(flags & TARGET_FLAG_NOWAIT ? ompt_target_update_nowait
                                                   : ompt_target_update,
                        __builtin_return_address(0));
}

void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                 unsigned short *kinds, unsigned flags, void **depend)
{
  (void)mapnum, (void)hostaddrs, (void)sizes, (void)kinds;
  check_device(device);
  if (depend != NULL)
    GOMP_taskwait_depend(depend);
  if (lite_ompt_on()) {
    bool exit = flags & TARGET_FLAG_EXIT_DATA, nowait = flags & TARGET_FLAG_NOWAIT;
    int kind = exit ? (nowait ? ompt_target_exit_data_nowait : ompt_target_exit_data)
                    : (nowait ? ompt_target_enter_data_nowait : ompt_target_enter_data);
    lite_ompt_target_op(kind, __builtin_return_address(0));
  }
}

/* Offload images: there is no device to load them on. */
void GOMP_offload_register_ver(unsigned version, const void *host_table, int target_type,
                               const void *target_data)
{
  (void)version, (void)host_table, (void)target_type, (void)target_data;
}

void GOMP_offload_register(const void *host_table, int target_type, const void *target_data)
{
  (void)host_table, (void)target_type, (void)target_data;
}

void GOMP_offload_unregister_ver(unsigned version, const void *host_table, int target_type,
                                 const void *target_data)
{
  (void)version, (void)host_table, (void)target_type, (void)target_data;
}

void GOMP_offload_unregister(const void *host_table, int target_type, const void *target_data)
{
  (void)host_table, (void)target_type, (void)target_data;
}

/* ---------------------------------------------------------------- device memory routines */

/* A device number given to a memory routine: the host, or none (NULL, EINVAL...). */
static bool memory_device(int device) { return device >= 0 && check_device(device); }

void *omp_target_alloc(size_t size, int device)
{
  return memory_device(device) ? malloc(size) : NULL;
}

void omp_target_free(void *ptr, int device)
{
  if (memory_device(device))
    free(ptr);
}

int omp_target_is_present(const void *ptr, int device)
{
  return ptr == NULL || memory_device(device);
}

int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                      size_t src_offset, int dst_device, int src_device)
{
  if (!memory_device(dst_device) || !memory_device(src_device))
    return EINVAL;
  memmove((char *)dst + dst_offset, (const char *)src + src_offset, length);
  return 0;
}

/* One dimension after another: dims[0] is the outermost; volume, offsets and dims count
   elements. */
static void copy_rect(char *dst, const char *src, size_t elem, int ndims, const size_t *volume,
                      const size_t *dst_off, const size_t *src_off, const size_t *dst_dims,
                      const size_t *src_dims)
{
  if (ndims == 1) {
    memmove(dst + dst_off[0] * elem, src + src_off[0] * elem, volume[0] * elem);
    return;
  }
  size_t dst_slice = elem, src_slice = elem;
  for (int d = 1; d < ndims; d++) {
    dst_slice *= dst_dims[d];
    src_slice *= src_dims[d];
  }
  for (size_t j = 0; j < volume[0]; j++)
    copy_rect(dst + (dst_off[0] + j) * dst_slice, src + (src_off[0] + j) * src_slice, elem,
              ndims - 1, volume + 1, dst_off + 1, src_off + 1, dst_dims + 1, src_dims + 1);
}

int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size, int num_dims,
                           const size_t *volume, const size_t *dst_offsets,
                           const size_t *src_offsets, const size_t *dst_dimensions,
                           const size_t *src_dimensions, int dst_device, int src_device)
{
  if (dst == NULL && src == NULL)
    return INT_MAX; /* the query: any number of dimensions */
  if (!memory_device(dst_device) || !memory_device(src_device) || num_dims < 1 || dst == NULL ||
      src == NULL)
    return EINVAL;
  copy_rect(dst, src, element_size, num_dims, volume, dst_offsets, src_offsets, dst_dimensions,
            src_dimensions);
  return 0;
}

/* Associating host memory with device memory needs a device. */
int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr, size_t size,
                             size_t device_offset, int device)
{
  (void)host_ptr, (void)device_ptr, (void)size, (void)device_offset, (void)device;
  return EINVAL;
}

int omp_target_disassociate_ptr(const void *ptr, int device)
{
  (void)ptr, (void)device;
  return EINVAL;
}
