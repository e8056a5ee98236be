/* The OpenMP user API under LLVM's version name: a clang-built binary binds omp_get_thread_num
   and the rest at version VERSION (libomp.so.5's), gcc-built ones at OMP_1.0 and later. Each
   name below gets a second, non-default version VERSION through a one-instruction trampoline to
   the one implementation (a symbol can carry only one version; the lock routines, whose
   layouts differ, get theirs in lock.c). The trampoline jumps through the library's own export,
   so it needs no prototype: it leaves every argument register as the caller set it. The device
   memory routines (omp_target_*) are not here: LLVM's libomp does not export them (its
   libomptarget does). */
#include "internal.h"
#include "kmpc.h"

#if defined(__x86_64__)
#define TAIL_JUMP(target) __asm__("jmp " #target "@PLT")
#elif defined(__aarch64__)
#define TAIL_JUMP(target) __asm__("b " #target)
#else
#error "kmpc/omp_api.c: no tail jump for this architecture"
#endif

#define AT_VERSION(name)                                                                      \
  LITE_EXPORT __attribute__((naked)) void lite_kmpc_##name(void) { TAIL_JUMP(name); }     \
  __asm__(".symver lite_kmpc_" #name ", " #name "@VERSION");

#define OMP_API(X) \
  X(omp_aligned_alloc) \
  X(omp_aligned_calloc) \
  X(omp_alloc) \
  X(omp_calloc) \
  X(omp_capture_affinity) \
  X(omp_destroy_allocator) \
  X(omp_display_affinity) \
  X(omp_display_env) \
  X(omp_free) \
  X(omp_fulfill_event) \
  X(omp_get_active_level) \
  X(omp_get_affinity_format) \
  X(omp_get_ancestor_thread_num) \
  X(omp_get_cancellation) \
  X(omp_get_default_allocator) \
  X(omp_get_default_device) \
  X(omp_get_device_num) \
  X(omp_get_dynamic) \
  X(omp_get_initial_device) \
  X(omp_get_level) \
  X(omp_get_max_active_levels) \
  X(omp_get_max_task_priority) \
  X(omp_get_max_teams) \
  X(omp_get_max_threads) \
  X(omp_get_nested) \
  X(omp_get_num_devices) \
  X(omp_get_num_places) \
  X(omp_get_num_procs) \
  X(omp_get_num_teams) \
  X(omp_get_num_threads) \
  X(omp_get_partition_num_places) \
  X(omp_get_partition_place_nums) \
  X(omp_get_place_num) \
  X(omp_get_place_num_procs) \
  X(omp_get_place_proc_ids) \
  X(omp_get_proc_bind) \
  X(omp_get_schedule) \
  X(omp_get_supported_active_levels) \
  X(omp_get_team_num) \
  X(omp_get_team_size) \
  X(omp_get_teams_thread_limit) \
  X(omp_get_thread_limit) \
  X(omp_get_thread_num) \
  X(omp_get_wtick) \
  X(omp_get_wtime) \
  X(omp_in_final) \
  X(omp_in_parallel) \
  X(omp_init_allocator) \
  X(omp_is_initial_device) \
  X(omp_pause_resource) \
  X(omp_pause_resource_all) \
  X(omp_realloc) \
  X(omp_set_affinity_format) \
  X(omp_set_default_allocator) \
  X(omp_set_default_device) \
  X(omp_set_dynamic) \
  X(omp_set_max_active_levels) \
  X(omp_set_nested) \
  X(omp_set_num_teams) \
  X(omp_set_num_threads) \
  X(omp_set_schedule) \
  X(omp_set_teams_thread_limit)

OMP_API(AT_VERSION)

/* LLVM's omp.h renames four routines for C (omp_capture_affinity is ompc_capture_affinity, ...),
   and LLVM exports four more ompc_ forms: the same routines under another name. */
#define OMPC_NAME(name)                                                                       \
  LITE_EXPORT __attribute__((naked)) void ompc_##name(void) { TAIL_JUMP(omp_##name); }

OMPC_NAME(set_affinity_format)
OMPC_NAME(get_affinity_format)
OMPC_NAME(display_affinity)
OMPC_NAME(capture_affinity)
OMPC_NAME(get_ancestor_thread_num)
OMPC_NAME(get_team_size)
OMPC_NAME(set_max_active_levels)
OMPC_NAME(set_schedule)
