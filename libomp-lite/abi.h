/* The libgomp ABI that libomp-lite implements, declared once: every GOMP_* entry point gcc emits
   for host code and the omp_* user API, with libgomp's exact prototypes. The version each symbol
   carries is set by libgomp.map beside this file. Entry points of constructs that later issues
   implement are declared as they land. */
#ifndef LITE_ABI_H
#define LITE_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LITE_EXPORT __attribute__((visibility("default")))

/* ---- user-visible types, with gcc's omp.h layouts ---- */
typedef struct { unsigned char _x[4] __attribute__((aligned(4))); } omp_lock_t;
typedef struct { unsigned char _x[8 + sizeof(void *)] __attribute__((aligned(sizeof(void *)))); } omp_nest_lock_t;

typedef enum omp_sched_t {
  omp_sched_static = 1,
  omp_sched_dynamic = 2,
  omp_sched_guided = 3,
  omp_sched_auto = 4,
  omp_sched_monotonic = 0x80000000U
} omp_sched_t;

typedef enum omp_proc_bind_t {
  omp_proc_bind_false = 0,
  omp_proc_bind_true = 1,
  omp_proc_bind_primary = 2,
  omp_proc_bind_master = 2,
  omp_proc_bind_close = 3,
  omp_proc_bind_spread = 4
} omp_proc_bind_t;

typedef enum omp_sync_hint_t {
  omp_sync_hint_none = 0,
  omp_sync_hint_uncontended = 1,
  omp_sync_hint_contended = 2,
  omp_sync_hint_nonspeculative = 4,
  omp_sync_hint_speculative = 8
} omp_sync_hint_t;
typedef omp_sync_hint_t omp_lock_hint_t;

typedef enum omp_pause_resource_t { omp_pause_soft = 1, omp_pause_hard = 2 } omp_pause_resource_t;

/* omp_control_tool (OpenMP 5.1 section 3.14): its commands and results. */
typedef enum omp_control_tool_t {
  omp_control_tool_start = 1,
  omp_control_tool_pause = 2,
  omp_control_tool_flush = 3,
  omp_control_tool_end = 4
} omp_control_tool_t;
typedef enum omp_control_tool_result_t {
  omp_control_tool_notool = -2,
  omp_control_tool_nocallback = -1,
  omp_control_tool_success = 0,
  omp_control_tool_ignored = 1
} omp_control_tool_result_t;
LITE_EXPORT int omp_control_tool(int command, int modifier, void *arg);
/* Memory spaces, allocators and their traits, as in gcc's omp.h. */
typedef enum omp_memspace_handle_t {
  omp_default_mem_space = 0,
  omp_large_cap_mem_space = 1,
  omp_const_mem_space = 2,
  omp_high_bw_mem_space = 3,
  omp_low_lat_mem_space = 4,
  omp_memspace_handle_t_max__ = UINTPTR_MAX
} omp_memspace_handle_t;
typedef enum omp_allocator_handle_t {
  omp_null_allocator = 0,
  omp_default_mem_alloc = 1,
  omp_large_cap_mem_alloc = 2,
  omp_const_mem_alloc = 3,
  omp_high_bw_mem_alloc = 4,
  omp_low_lat_mem_alloc = 5,
  omp_cgroup_mem_alloc = 6,
  omp_pteam_mem_alloc = 7,
  omp_thread_mem_alloc = 8,
  omp_allocator_handle_t_max__ = UINTPTR_MAX
} omp_allocator_handle_t;
typedef enum omp_alloctrait_key_t {
  omp_atk_sync_hint = 1,
  omp_atk_alignment = 2,
  omp_atk_access = 3,
  omp_atk_pool_size = 4,
  omp_atk_fallback = 5,
  omp_atk_fb_data = 6,
  omp_atk_pinned = 7,
  omp_atk_partition = 8
} omp_alloctrait_key_t;
typedef enum omp_alloctrait_value_t {
  omp_atv_default = UINTPTR_MAX,
  omp_atv_false = 0,
  omp_atv_true = 1,
  omp_atv_contended = 3,
  omp_atv_uncontended = 4,
  omp_atv_serialized = 5,
  omp_atv_private = 6,
  omp_atv_all = 7,
  omp_atv_thread = 8,
  omp_atv_pteam = 9,
  omp_atv_cgroup = 10,
  omp_atv_default_mem_fb = 11,
  omp_atv_null_fb = 12,
  omp_atv_abort_fb = 13,
  omp_atv_allocator_fb = 14,
  omp_atv_environment = 15,
  omp_atv_nearest = 16,
  omp_atv_blocked = 17,
  omp_atv_interleaved = 18
} omp_alloctrait_value_t;
typedef struct omp_alloctrait_t {
  omp_alloctrait_key_t key;
  uintptr_t value;
} omp_alloctrait_t;
/* The handle of a detached task's completion event: pointer-sized, as in gcc's omp.h. */
typedef enum omp_event_handle_t { omp_event_handle_t_max__ = UINTPTR_MAX } omp_event_handle_t;

/* ---- GOMP_* entry points: parallel regions (parallel.c) ---- */
LITE_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads,
                               unsigned flags);
LITE_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads);
LITE_EXPORT void GOMP_parallel_end(void);

/* barrier.c */
LITE_EXPORT void GOMP_barrier(void);

/* single.c */
LITE_EXPORT bool GOMP_single_start(void);
LITE_EXPORT void *GOMP_single_copy_start(void);
LITE_EXPORT void GOMP_single_copy_end(void *data);

/* critical.c */
LITE_EXPORT void GOMP_critical_start(void);
LITE_EXPORT void GOMP_critical_end(void);
LITE_EXPORT void GOMP_critical_name_start(void **pptr);
LITE_EXPORT void GOMP_critical_name_end(void **pptr);
LITE_EXPORT void GOMP_atomic_start(void);
LITE_EXPORT void GOMP_atomic_end(void);

/* ---- worksharing: loops (loop.c, loop_ull.c, parallel_loop.c), sections, ordered, doacross,
   cancellation, scope ---- */
/* loop.c */
LITE_EXPORT bool GOMP_loop_static_start(long start, long end, long incr, long chunk,
                                        long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_dynamic_start(long start, long end, long incr, long chunk,
                                         long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_guided_start(long start, long end, long incr, long chunk,
                                        long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_nonmonotonic_dynamic_start(long start, long end, long incr,
                                                      long chunk, long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_nonmonotonic_guided_start(long start, long end, long incr, long chunk,
                                                     long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_runtime_start(long start, long end, long incr, long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_nonmonotonic_runtime_start(long start, long end, long incr,
                                                      long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_maybe_nonmonotonic_runtime_start(long start, long end, long incr,
                                                            long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_static_start(long start, long end, long incr, long chunk,
                                                long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_dynamic_start(long start, long end, long incr, long chunk,
                                                 long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_guided_start(long start, long end, long incr, long chunk,
                                                long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart,
                                                 long *iend);
LITE_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
                                 long *istart, long *iend, uintptr_t *reductions, void **mem);
LITE_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
                                         long *istart, long *iend, uintptr_t *reductions,
                                         void **mem);
LITE_EXPORT bool GOMP_loop_static_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_dynamic_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_guided_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_runtime_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_nonmonotonic_guided_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_nonmonotonic_runtime_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_static_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_dynamic_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_guided_next(long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_ordered_runtime_next(long *istart, long *iend);
LITE_EXPORT void GOMP_loop_end(void);
LITE_EXPORT void GOMP_loop_end_nowait(void);
LITE_EXPORT bool GOMP_loop_end_cancel(void);
/* parallel_loop.c */
LITE_EXPORT void GOMP_parallel_loop_static(void (*fn)(void *), void *data, unsigned num_threads,
                                           long start, long end, long incr, long chunk,
                                           unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_dynamic(void (*fn)(void *), void *data, unsigned num_threads,
                                            long start, long end, long incr, long chunk,
                                            unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_guided(void (*fn)(void *), void *data, unsigned num_threads,
                                           long start, long end, long incr, long chunk,
                                           unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_nonmonotonic_dynamic(void (*fn)(void *), void *data,
                                                         unsigned num_threads, long start, long end,
                                                         long incr, long chunk, unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_nonmonotonic_guided(void (*fn)(void *), void *data,
                                                        unsigned num_threads, long start, long end,
                                                        long incr, long chunk, unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_runtime(void (*fn)(void *), void *data, unsigned num_threads,
                                            long start, long end, long incr, unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_nonmonotonic_runtime(void (*fn)(void *), void *data,
                                                         unsigned num_threads, long start, long end,
                                                         long incr, unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*fn)(void *), void *data,
                                                               unsigned num_threads, long start,
                                                               long end, long incr, unsigned flags);
LITE_EXPORT void GOMP_parallel_loop_static_start(void (*fn)(void *), void *data,
                                                 unsigned num_threads, long start, long end,
                                                 long incr, long chunk);
LITE_EXPORT void GOMP_parallel_loop_dynamic_start(void (*fn)(void *), void *data,
                                                  unsigned num_threads, long start, long end,
                                                  long incr, long chunk);
LITE_EXPORT void GOMP_parallel_loop_guided_start(void (*fn)(void *), void *data,
                                                 unsigned num_threads, long start, long end,
                                                 long incr, long chunk);
LITE_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data,
                                                  unsigned num_threads, long start, long end,
                                                  long incr);
/* sections.c */
LITE_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads,
                                        unsigned count, unsigned flags);
LITE_EXPORT void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads,
                                              unsigned count);
/* loop_ull.c */
LITE_EXPORT bool GOMP_loop_ull_static_start(bool up, unsigned long long start,
                                            unsigned long long end, unsigned long long incr,
                                            unsigned long long chunk, unsigned long long *istart,
                                            unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_dynamic_start(bool up, unsigned long long start,
                                             unsigned long long end, unsigned long long incr,
                                             unsigned long long chunk,
                                             unsigned long long *istart, unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_guided_start(bool up, unsigned long long start,
                                            unsigned long long end, unsigned long long incr,
                                            unsigned long long chunk, unsigned long long *istart,
                                            unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, unsigned long long start,
                                                          unsigned long long end,
                                                          unsigned long long incr,
                                                          unsigned long long chunk,
                                                          unsigned long long *istart,
                                                          unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, unsigned long long start,
                                                         unsigned long long end,
                                                         unsigned long long incr,
                                                         unsigned long long chunk,
                                                         unsigned long long *istart,
                                                         unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_runtime_start(bool up, unsigned long long start,
                                             unsigned long long end, unsigned long long incr,
                                             unsigned long long *istart, unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, unsigned long long start,
                                                          unsigned long long end,
                                                          unsigned long long incr,
                                                          unsigned long long *istart,
                                                          unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up,
                                                                unsigned long long start,
                                                                unsigned long long end,
                                                                unsigned long long incr,
                                                                unsigned long long *istart,
                                                                unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_static_start(bool up, unsigned long long start,
                                                    unsigned long long end,
                                                    unsigned long long incr,
                                                    unsigned long long chunk,
                                                    unsigned long long *istart,
                                                    unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_dynamic_start(bool up, unsigned long long start,
                                                     unsigned long long end,
                                                     unsigned long long incr,
                                                     unsigned long long chunk,
                                                     unsigned long long *istart,
                                                     unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_guided_start(bool up, unsigned long long start,
                                                    unsigned long long end,
                                                    unsigned long long incr,
                                                    unsigned long long chunk,
                                                    unsigned long long *istart,
                                                    unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_runtime_start(bool up, unsigned long long start,
                                                     unsigned long long end,
                                                     unsigned long long incr,
                                                     unsigned long long *istart,
                                                     unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_start(bool up, unsigned long long start, unsigned long long end,
                                     unsigned long long incr, long sched,
                                     unsigned long long chunk, unsigned long long *istart,
                                     unsigned long long *iend, uintptr_t *reductions, void **mem);
LITE_EXPORT bool GOMP_loop_ull_ordered_start(bool up, unsigned long long start,
                                             unsigned long long end, unsigned long long incr,
                                             long sched, unsigned long long chunk,
                                             unsigned long long *istart,
                                             unsigned long long *iend, uintptr_t *reductions,
                                             void **mem);
LITE_EXPORT bool GOMP_loop_ull_static_next(unsigned long long *istart, unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_dynamic_next(unsigned long long *istart, unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_guided_next(unsigned long long *istart, unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_runtime_next(unsigned long long *istart, unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_nonmonotonic_dynamic_next(unsigned long long *istart,
                                                         unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_nonmonotonic_guided_next(unsigned long long *istart,
                                                        unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_nonmonotonic_runtime_next(unsigned long long *istart,
                                                         unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(unsigned long long *istart,
                                                               unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_static_next(unsigned long long *istart,
                                                   unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_dynamic_next(unsigned long long *istart,
                                                    unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_guided_next(unsigned long long *istart,
                                                   unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_ordered_runtime_next(unsigned long long *istart,
                                                    unsigned long long *iend);
/* sections.c */
LITE_EXPORT unsigned GOMP_sections_start(unsigned count);
LITE_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem);
LITE_EXPORT unsigned GOMP_sections_next(void);
LITE_EXPORT void GOMP_sections_end(void);
LITE_EXPORT void GOMP_sections_end_nowait(void);
LITE_EXPORT bool GOMP_sections_end_cancel(void);
/* ordered.c */
LITE_EXPORT void GOMP_ordered_start(void);
LITE_EXPORT void GOMP_ordered_end(void);
/* doacross.c */
LITE_EXPORT bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk,
                                                 long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk,
                                                  long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk,
                                                 long *istart, long *iend);
LITE_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
                                                  long *iend);
LITE_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
                                          long *istart, long *iend, uintptr_t *reductions,
                                          void **mem);
LITE_EXPORT void GOMP_doacross_post(long *counts);
LITE_EXPORT void GOMP_doacross_wait(long first, ...);
LITE_EXPORT bool GOMP_loop_ull_doacross_static_start(unsigned ncounts,
                                                     unsigned long long *counts,
                                                     unsigned long long chunk,
                                                     unsigned long long *istart,
                                                     unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts,
                                                      unsigned long long *counts,
                                                      unsigned long long chunk,
                                                      unsigned long long *istart,
                                                      unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts,
                                                     unsigned long long *counts,
                                                     unsigned long long chunk,
                                                     unsigned long long *istart,
                                                     unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts,
                                                      unsigned long long *counts,
                                                      unsigned long long *istart,
                                                      unsigned long long *iend);
LITE_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts,
                                              long sched, unsigned long long chunk,
                                              unsigned long long *istart,
                                              unsigned long long *iend, uintptr_t *reductions,
                                              void **mem);
LITE_EXPORT void GOMP_doacross_ull_post(unsigned long long *counts);
LITE_EXPORT void GOMP_doacross_ull_wait(unsigned long long first, ...);
/* cancel.c */
LITE_EXPORT bool GOMP_cancellation_point(int which);
LITE_EXPORT bool GOMP_cancel(int which, bool do_cancel);
/* scope.c */
LITE_EXPORT void GOMP_scope_start(uintptr_t *reductions);
/* error.c: the error directive */
LITE_EXPORT void GOMP_warning(const char *msg, size_t msglen);
LITE_EXPORT void GOMP_error(const char *msg, size_t msglen);
/* barrier.c */
LITE_EXPORT bool GOMP_barrier_cancel(void);

/* ---- omp_* user API: threads and teams (team.c) ---- */
LITE_EXPORT int omp_get_num_threads(void);
LITE_EXPORT int omp_get_thread_num(void);
LITE_EXPORT int omp_in_parallel(void);
LITE_EXPORT int omp_get_level(void);
LITE_EXPORT int omp_get_active_level(void);
LITE_EXPORT int omp_get_ancestor_thread_num(int level);
LITE_EXPORT int omp_get_team_size(int level);

/* ---- explicit tasks (task.c, taskloop.c, task_reduction.c) ---- */
LITE_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                           long arg_size, long arg_align, bool if_clause, unsigned flags,
                           void **depend, int priority, void *detach);
LITE_EXPORT void GOMP_taskwait(void);
LITE_EXPORT void GOMP_taskwait_depend(void **depend);
LITE_EXPORT void GOMP_taskyield(void);
LITE_EXPORT void GOMP_taskgroup_start(void);
LITE_EXPORT void GOMP_taskgroup_end(void);
LITE_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                               long arg_size, long arg_align, unsigned flags,
                               unsigned long num_tasks, int priority, long start, long end,
                               long step);
LITE_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data,
                                   void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                                   unsigned flags, unsigned long num_tasks, int priority,
                                   unsigned long long start, unsigned long long end,
                                   unsigned long long step);
LITE_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t *data);
LITE_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t *data);
LITE_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs);
LITE_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled);
LITE_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data,
                                              unsigned num_threads, unsigned flags);
LITE_EXPORT int omp_in_final(void);
LITE_EXPORT void omp_fulfill_event(omp_event_handle_t event);

/* ---- target and teams, on the host (target.c, teams.c) ---- */
LITE_EXPORT void GOMP_target_ext(int device, void (*fn)(void *), size_t mapnum, void **hostaddrs,
                                 size_t *sizes, unsigned short *kinds, unsigned flags,
                                 void **depend, void **args);
LITE_EXPORT void GOMP_target(int device, void (*fn)(void *), const void *unused, size_t mapnum,
                             void **hostaddrs, size_t *sizes, unsigned char *kinds);
LITE_EXPORT void GOMP_target_data_ext(int device, size_t mapnum, void **hostaddrs, size_t *sizes,
                                      unsigned short *kinds);
LITE_EXPORT void GOMP_target_data(int device, const void *unused, size_t mapnum, void **hostaddrs,
                                  size_t *sizes, unsigned char *kinds);
LITE_EXPORT void GOMP_target_end_data(void);
LITE_EXPORT void GOMP_target_update(int device, const void *unused, size_t mapnum,
                                    void **hostaddrs, size_t *sizes, unsigned char *kinds);
LITE_EXPORT void GOMP_target_update_ext(int device, size_t mapnum, void **hostaddrs,
                                        size_t *sizes, unsigned short *kinds, unsigned flags,
                                        void **depend);
LITE_EXPORT void GOMP_target_enter_exit_data(int device, size_t mapnum, void **hostaddrs,
                                             size_t *sizes, unsigned short *kinds,
                                             unsigned flags, void **depend);
LITE_EXPORT void GOMP_offload_register_ver(unsigned version, const void *host_table,
                                           int target_type, const void *target_data);
LITE_EXPORT void GOMP_offload_register(const void *host_table, int target_type,
                                       const void *target_data);
LITE_EXPORT void GOMP_offload_unregister_ver(unsigned version, const void *host_table,
                                             int target_type, const void *target_data);
LITE_EXPORT void GOMP_offload_unregister(const void *host_table, int target_type,
                                         const void *target_data);
LITE_EXPORT void GOMP_teams_reg(void (*fn)(void *), void *data, unsigned num_teams,
                                unsigned thread_limit, unsigned flags);
LITE_EXPORT bool GOMP_teams4(unsigned num_teams_low, unsigned num_teams_high,
                             unsigned thread_limit, bool first);
LITE_EXPORT void GOMP_teams(unsigned num_teams, unsigned thread_limit);
LITE_EXPORT int omp_get_num_teams(void);
LITE_EXPORT int omp_get_team_num(void);
LITE_EXPORT void *omp_target_alloc(size_t size, int device);
LITE_EXPORT void omp_target_free(void *ptr, int device);
LITE_EXPORT int omp_target_is_present(const void *ptr, int device);
LITE_EXPORT int omp_target_memcpy(void *dst, const void *src, size_t length, size_t dst_offset,
                                  size_t src_offset, int dst_device, int src_device);
LITE_EXPORT int omp_target_memcpy_rect(void *dst, const void *src, size_t element_size,
                                       int num_dims, const size_t *volume,
                                       const size_t *dst_offsets, const size_t *src_offsets,
                                       const size_t *dst_dimensions,
                                       const size_t *src_dimensions, int dst_device,
                                       int src_device);
LITE_EXPORT int omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                         size_t size, size_t device_offset, int device);
LITE_EXPORT int omp_target_disassociate_ptr(const void *ptr, int device);

/* ---- memory allocators (allocator.c) ---- */
LITE_EXPORT omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace, int ntraits,
                                                      const omp_alloctrait_t traits[]);
LITE_EXPORT void omp_destroy_allocator(omp_allocator_handle_t allocator);
LITE_EXPORT void omp_set_default_allocator(omp_allocator_handle_t allocator);
LITE_EXPORT omp_allocator_handle_t omp_get_default_allocator(void);
LITE_EXPORT void *omp_alloc(size_t size, omp_allocator_handle_t allocator);
LITE_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size,
                                    omp_allocator_handle_t allocator);
LITE_EXPORT void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t allocator);
LITE_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                                     omp_allocator_handle_t allocator);
LITE_EXPORT void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                              omp_allocator_handle_t free_allocator);
LITE_EXPORT void omp_free(void *ptr, omp_allocator_handle_t allocator);
LITE_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator);
LITE_EXPORT void GOMP_free(void *ptr, uintptr_t allocator);

/* ICVs (icv.c) */
LITE_EXPORT void omp_set_num_threads(int n);
LITE_EXPORT int omp_get_max_threads(void);
LITE_EXPORT int omp_get_num_procs(void);
LITE_EXPORT void omp_set_dynamic(int dynamic);
LITE_EXPORT int omp_get_dynamic(void);
LITE_EXPORT void omp_set_nested(int nested);
LITE_EXPORT int omp_get_nested(void);
LITE_EXPORT void omp_set_max_active_levels(int levels);
LITE_EXPORT int omp_get_max_active_levels(void);
LITE_EXPORT int omp_get_supported_active_levels(void);
LITE_EXPORT int omp_get_thread_limit(void);
LITE_EXPORT void omp_set_schedule(omp_sched_t kind, int chunk_size);
LITE_EXPORT void omp_get_schedule(omp_sched_t *kind, int *chunk_size);
LITE_EXPORT omp_proc_bind_t omp_get_proc_bind(void);
LITE_EXPORT int omp_get_cancellation(void);
LITE_EXPORT int omp_get_max_task_priority(void);
LITE_EXPORT void omp_set_default_device(int device);
LITE_EXPORT int omp_get_default_device(void);
LITE_EXPORT int omp_get_num_devices(void);
LITE_EXPORT int omp_get_device_num(void);
LITE_EXPORT int omp_get_initial_device(void);
LITE_EXPORT int omp_is_initial_device(void);
LITE_EXPORT void omp_set_num_teams(int num_teams);
LITE_EXPORT int omp_get_max_teams(void);
LITE_EXPORT void omp_set_teams_thread_limit(int limit);
LITE_EXPORT int omp_get_teams_thread_limit(void);
LITE_EXPORT void omp_display_env(int verbose);
LITE_EXPORT int omp_pause_resource(omp_pause_resource_t kind, int device_num);
LITE_EXPORT int omp_pause_resource_all(omp_pause_resource_t kind);

/* Places (affinity/place_api.c) */
LITE_EXPORT int omp_get_num_places(void);
LITE_EXPORT int omp_get_place_num_procs(int place_num);
LITE_EXPORT void omp_get_place_proc_ids(int place_num, int *ids);
LITE_EXPORT int omp_get_place_num(void);
LITE_EXPORT int omp_get_partition_num_places(void);
LITE_EXPORT void omp_get_partition_place_nums(int *place_nums);

/* The affinity display (affinity/format.c) */
LITE_EXPORT void omp_set_affinity_format(const char *format);
LITE_EXPORT size_t omp_get_affinity_format(char *buffer, size_t size);
LITE_EXPORT void omp_display_affinity(const char *format);
LITE_EXPORT size_t omp_capture_affinity(char *buffer, size_t size, const char *format);

/* time.c */
LITE_EXPORT double omp_get_wtime(void);
LITE_EXPORT double omp_get_wtick(void);

/* Locks (lock.c). The plain names here are the OMP_3.0 layouts; lock.c also exports the OMP_1.0
   (legacy) implementations under the same names through .symver. */
LITE_EXPORT void omp_init_lock(omp_lock_t *lock);
LITE_EXPORT void omp_init_lock_with_hint(omp_lock_t *lock, omp_sync_hint_t hint);
LITE_EXPORT void omp_destroy_lock(omp_lock_t *lock);
LITE_EXPORT void omp_set_lock(omp_lock_t *lock);
LITE_EXPORT void omp_unset_lock(omp_lock_t *lock);
LITE_EXPORT int omp_test_lock(omp_lock_t *lock);
LITE_EXPORT void omp_init_nest_lock(omp_nest_lock_t *lock);
LITE_EXPORT void omp_init_nest_lock_with_hint(omp_nest_lock_t *lock, omp_sync_hint_t hint);
LITE_EXPORT void omp_destroy_nest_lock(omp_nest_lock_t *lock);
LITE_EXPORT void omp_set_nest_lock(omp_nest_lock_t *lock);
LITE_EXPORT void omp_unset_nest_lock(omp_nest_lock_t *lock);
LITE_EXPORT int omp_test_nest_lock(omp_nest_lock_t *lock);

#endif
