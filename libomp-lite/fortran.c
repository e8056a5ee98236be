/* The Fortran bindings of the omp_* API, all in one place. gfortran's convention (gcc 12's
   omp_lib.f90 and omp_lib.h declare these without bind(c)): the name gets a trailing '_', every
   argument is passed by reference, default INTEGER and LOGICAL are int32_t (LOGICAL: 0 false,
   1 true), DOUBLE PRECISION results come back as double. The '_8_' names are what omp_lib picks
   for INTEGER(8)/LOGICAL(8) arguments (e.g. under -fdefault-integer-8): their values are
   clamped into int's range, as libgomp does, rather than truncated.

   CHARACTER arguments come as a pointer, not NUL-terminated, and a hidden length (size_t)
   appended after all the other arguments; a CHARACTER result buffer is filled up with blanks. */
#include "lock.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* gcc 12's omp_lib sets omp_lock_kind = 4 and omp_nest_lock_kind = 8.
   - INTEGER(4) holds omp_lock_t (the 4-byte futex word) itself, in both versions.
   - INTEGER(8) is too small for the OMP_3.0 nest lock (16 bytes): it holds a pointer to one,
     allocated by omp_init_nest_lock_ and freed by omp_destroy_nest_lock_ (libgomp does the
     same, so programs that never destroy their locks leak exactly as much under both).
   - INTEGER(8) holds the legacy OMP_1.0 nest lock (8 bytes) itself. */
typedef int32_t fortran_lock;
typedef int64_t fortran_nest_lock;

/* The exported bindings (the lite_fortran_* lock functions reach their omp_*_ names through
   .symver below). */
LITE_EXPORT void lite_fortran_init_lock(fortran_lock *lock);
LITE_EXPORT void lite_fortran_destroy_lock(fortran_lock *lock);
LITE_EXPORT void lite_fortran_set_lock(fortran_lock *lock);
LITE_EXPORT void lite_fortran_unset_lock(fortran_lock *lock);
LITE_EXPORT int32_t lite_fortran_test_lock(fortran_lock *lock);
LITE_EXPORT void lite_fortran_init_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_destroy_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_set_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_unset_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT int32_t lite_fortran_test_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_init_legacy_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_destroy_legacy_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_set_legacy_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void lite_fortran_unset_legacy_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT int32_t lite_fortran_test_legacy_nest_lock(fortran_nest_lock *lock);
LITE_EXPORT void omp_init_lock_with_hint_(fortran_lock *lock, const int32_t *hint);
LITE_EXPORT void omp_init_nest_lock_with_hint_(fortran_nest_lock *lock, const int32_t *hint);
LITE_EXPORT void omp_set_num_threads_(const int32_t *n);
LITE_EXPORT void omp_set_num_threads_8_(const int64_t *n);
LITE_EXPORT int32_t omp_get_num_threads_(void);
LITE_EXPORT int32_t omp_get_max_threads_(void);
LITE_EXPORT int32_t omp_get_thread_num_(void);
LITE_EXPORT int32_t omp_get_num_procs_(void);
LITE_EXPORT int32_t omp_in_parallel_(void);
LITE_EXPORT int32_t omp_in_final_(void);
LITE_EXPORT void omp_fulfill_event_(intptr_t event);
LITE_EXPORT intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits,
                                         const omp_alloctrait_t *traits);
LITE_EXPORT intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits,
                                           const omp_alloctrait_t *traits);
LITE_EXPORT void omp_destroy_allocator_(const intptr_t *allocator);
LITE_EXPORT void omp_set_default_allocator_(const intptr_t *allocator);
LITE_EXPORT intptr_t omp_get_default_allocator_(void);
LITE_EXPORT int32_t omp_get_level_(void);
LITE_EXPORT int32_t omp_get_active_level_(void);
LITE_EXPORT int32_t omp_get_ancestor_thread_num_(const int32_t *level);
LITE_EXPORT int32_t omp_get_ancestor_thread_num_8_(const int64_t *level);
LITE_EXPORT int32_t omp_get_team_size_(const int32_t *level);
LITE_EXPORT int32_t omp_get_team_size_8_(const int64_t *level);
LITE_EXPORT int32_t omp_get_thread_limit_(void);
LITE_EXPORT void omp_set_dynamic_(const int32_t *dynamic);
LITE_EXPORT void omp_set_dynamic_8_(const int64_t *dynamic);
LITE_EXPORT int32_t omp_get_dynamic_(void);
LITE_EXPORT void omp_set_nested_(const int32_t *nested);
LITE_EXPORT void omp_set_nested_8_(const int64_t *nested);
LITE_EXPORT int32_t omp_get_nested_(void);
LITE_EXPORT void omp_set_max_active_levels_(const int32_t *levels);
LITE_EXPORT void omp_set_max_active_levels_8_(const int64_t *levels);
LITE_EXPORT int32_t omp_get_max_active_levels_(void);
LITE_EXPORT int32_t omp_get_supported_active_levels_(void);
LITE_EXPORT void omp_set_schedule_(const int32_t *kind, const int32_t *chunk_size);
LITE_EXPORT void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk_size);
LITE_EXPORT void omp_get_schedule_(int32_t *kind, int32_t *chunk_size);
LITE_EXPORT void omp_get_schedule_8_(int32_t *kind, int64_t *chunk_size);
LITE_EXPORT int32_t omp_get_proc_bind_(void);
LITE_EXPORT int32_t omp_get_num_places_(void);
LITE_EXPORT int32_t omp_get_place_num_procs_(const int32_t *place_num);
LITE_EXPORT int32_t omp_get_place_num_procs_8_(const int64_t *place_num);
LITE_EXPORT void omp_get_place_proc_ids_(const int32_t *place_num, int32_t *ids);
LITE_EXPORT void omp_get_place_proc_ids_8_(const int64_t *place_num, int64_t *ids);
LITE_EXPORT int32_t omp_get_place_num_(void);
LITE_EXPORT int32_t omp_get_partition_num_places_(void);
LITE_EXPORT void omp_get_partition_place_nums_(int32_t *place_nums);
LITE_EXPORT void omp_get_partition_place_nums_8_(int64_t *place_nums);
LITE_EXPORT int32_t omp_get_cancellation_(void);
LITE_EXPORT int32_t omp_get_max_task_priority_(void);
LITE_EXPORT void omp_set_default_device_(const int32_t *device);
LITE_EXPORT void omp_set_default_device_8_(const int64_t *device);
LITE_EXPORT int32_t omp_get_default_device_(void);
LITE_EXPORT int32_t omp_get_num_devices_(void);
LITE_EXPORT int32_t omp_get_device_num_(void);
LITE_EXPORT int32_t omp_get_initial_device_(void);
LITE_EXPORT int32_t omp_is_initial_device_(void);
LITE_EXPORT int32_t omp_get_num_teams_(void);
LITE_EXPORT int32_t omp_get_team_num_(void);
LITE_EXPORT void omp_set_num_teams_(const int32_t *num_teams);
LITE_EXPORT void omp_set_num_teams_8_(const int64_t *num_teams);
LITE_EXPORT int32_t omp_get_max_teams_(void);
LITE_EXPORT void omp_set_teams_thread_limit_(const int32_t *limit);
LITE_EXPORT void omp_set_teams_thread_limit_8_(const int64_t *limit);
LITE_EXPORT int32_t omp_get_teams_thread_limit_(void);
LITE_EXPORT double omp_get_wtime_(void);
LITE_EXPORT double omp_get_wtick_(void);
LITE_EXPORT void omp_display_env_(const int32_t *verbose);
LITE_EXPORT void omp_display_env_8_(const int64_t *verbose);
LITE_EXPORT int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device_num);
LITE_EXPORT int32_t omp_pause_resource_all_(const int32_t *kind);
LITE_EXPORT void omp_set_affinity_format_(const char *format, size_t format_len);
LITE_EXPORT int32_t omp_get_affinity_format_(char *buffer, size_t buffer_len);
LITE_EXPORT void omp_display_affinity_(const char *format, size_t format_len);
LITE_EXPORT int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len,
                                          size_t format_len);

static inline int clamp_to_int(int64_t value)
{
  return value < INT_MIN ? INT_MIN : value > INT_MAX ? INT_MAX : (int)value;
}

/* A C truth value as a default-kind Fortran LOGICAL: gfortran compares logicals bitwise in
   places (.eqv.), so true must be exactly 1. */
static inline int32_t to_logical(int value) { return value != 0; }

/* ---------------------------------------------------------------- locks */

_Static_assert(sizeof(omp_lock_t) == sizeof(fortran_lock), "omp_lock_t fits INTEGER(4)");
_Static_assert(sizeof(void *) <= sizeof(fortran_nest_lock), "a pointer fits INTEGER(8)");
_Static_assert(sizeof(struct lite_legacy_nest_lock) == sizeof(fortran_nest_lock),
               "the legacy nest lock fits INTEGER(8)");

static inline omp_lock_t *simple_lock(fortran_lock *lock) { return (omp_lock_t *)lock; }

/* memcpy: the INTEGER(8) is not a pointer object as far as C's aliasing rules go. */
static inline omp_nest_lock_t *nest_lock(const fortran_nest_lock *lock)
{
  omp_nest_lock_t *ptr;
  memcpy(&ptr, lock, sizeof ptr);
  return ptr;
}

static inline void set_nest_lock_ptr(fortran_nest_lock *lock, omp_nest_lock_t *ptr)
{
  *lock = 0;
  memcpy(lock, &ptr, sizeof ptr);
}

static omp_nest_lock_t *new_nest_lock(void)
{
  omp_nest_lock_t *ptr = malloc(sizeof *ptr);
  if (ptr == NULL)
    lite_fatal("out of memory allocating a Fortran nest lock (%zu bytes)", sizeof *ptr);
  return ptr;
}

static inline struct lite_legacy_nest_lock *legacy_nest_lock(fortran_nest_lock *lock)
{
  return (struct lite_legacy_nest_lock *)lock;
}

/* Simple lock: one implementation for both versions. */
void lite_fortran_init_lock(fortran_lock *lock) { lite_lock_init(simple_lock(lock)); }
void lite_fortran_destroy_lock(fortran_lock *lock)
{
  lite_lock_destroy(simple_lock(lock));
}
void lite_fortran_set_lock(fortran_lock *lock) { lite_lock_set(simple_lock(lock)); }
void lite_fortran_unset_lock(fortran_lock *lock) { lite_lock_unset(simple_lock(lock)); }
int32_t lite_fortran_test_lock(fortran_lock *lock)
{
  return lite_lock_test(simple_lock(lock));
}

/* Nest lock, OMP_3.0: through the pointer. */
void lite_fortran_init_nest_lock(fortran_nest_lock *lock)
{
  omp_nest_lock_t *ptr = new_nest_lock();
  lite_nest_lock_init(ptr);
  set_nest_lock_ptr(lock, ptr);
}
void lite_fortran_destroy_nest_lock(fortran_nest_lock *lock)
{
  omp_nest_lock_t *ptr = nest_lock(lock);
  lite_nest_lock_destroy(ptr);
  free(ptr);
  set_nest_lock_ptr(lock, NULL);
}
void lite_fortran_set_nest_lock(fortran_nest_lock *lock)
{
  lite_nest_lock_set(nest_lock(lock));
}
void lite_fortran_unset_nest_lock(fortran_nest_lock *lock)
{
  lite_nest_lock_unset(nest_lock(lock));
}
int32_t lite_fortran_test_nest_lock(fortran_nest_lock *lock)
{
  return lite_nest_lock_test(nest_lock(lock));
}

/* Nest lock, OMP_1.0: in place. */
void lite_fortran_init_legacy_nest_lock(fortran_nest_lock *lock)
{
  lite_legacy_nest_lock_init(legacy_nest_lock(lock));
}
void lite_fortran_destroy_legacy_nest_lock(fortran_nest_lock *lock)
{
  lite_legacy_nest_lock_destroy(legacy_nest_lock(lock));
}
void lite_fortran_set_legacy_nest_lock(fortran_nest_lock *lock)
{
  lite_legacy_nest_lock_set(legacy_nest_lock(lock));
}
void lite_fortran_unset_legacy_nest_lock(fortran_nest_lock *lock)
{
  lite_legacy_nest_lock_unset(legacy_nest_lock(lock));
}
int32_t lite_fortran_test_legacy_nest_lock(fortran_nest_lock *lock)
{
  return lite_legacy_nest_lock_test(legacy_nest_lock(lock));
}

__asm__(".symver lite_fortran_init_lock, omp_init_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_init_lock, omp_init_lock_@OMP_1.0");
__asm__(".symver lite_fortran_destroy_lock, omp_destroy_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_destroy_lock, omp_destroy_lock_@OMP_1.0");
__asm__(".symver lite_fortran_set_lock, omp_set_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_set_lock, omp_set_lock_@OMP_1.0");
__asm__(".symver lite_fortran_unset_lock, omp_unset_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_unset_lock, omp_unset_lock_@OMP_1.0");
__asm__(".symver lite_fortran_test_lock, omp_test_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_test_lock, omp_test_lock_@OMP_1.0");

__asm__(".symver lite_fortran_init_nest_lock, omp_init_nest_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_destroy_nest_lock, omp_destroy_nest_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_set_nest_lock, omp_set_nest_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_unset_nest_lock, omp_unset_nest_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_test_nest_lock, omp_test_nest_lock_@@OMP_3.0");
__asm__(".symver lite_fortran_init_legacy_nest_lock, omp_init_nest_lock_@OMP_1.0");
__asm__(".symver lite_fortran_destroy_legacy_nest_lock, omp_destroy_nest_lock_@OMP_1.0");
__asm__(".symver lite_fortran_set_legacy_nest_lock, omp_set_nest_lock_@OMP_1.0");
__asm__(".symver lite_fortran_unset_legacy_nest_lock, omp_unset_nest_lock_@OMP_1.0");
__asm__(".symver lite_fortran_test_legacy_nest_lock, omp_test_nest_lock_@OMP_1.0");

/* OpenMP 4.5 (hint: INTEGER(omp_sync_hint_kind = 4), by reference). libgomp 12 exports neither
   name; they become visible once libgomp.map lists them. */
void omp_init_lock_with_hint_(fortran_lock *lock, const int32_t *hint)
{
  omp_init_lock_with_hint(simple_lock(lock), (omp_sync_hint_t)*hint);
}
void omp_init_nest_lock_with_hint_(fortran_nest_lock *lock, const int32_t *hint)
{
  omp_nest_lock_t *ptr = new_nest_lock();
  omp_init_nest_lock_with_hint(ptr, (omp_sync_hint_t)*hint);
  set_nest_lock_ptr(lock, ptr);
}

/* ---------------------------------------------------------------- threads and teams */

void omp_set_num_threads_(const int32_t *n) { omp_set_num_threads(*n); }
void omp_set_num_threads_8_(const int64_t *n) { omp_set_num_threads(clamp_to_int(*n)); }
int32_t omp_get_num_threads_(void) { return omp_get_num_threads(); }
int32_t omp_get_max_threads_(void) { return omp_get_max_threads(); }
int32_t omp_get_thread_num_(void) { return omp_get_thread_num(); }
int32_t omp_get_num_procs_(void) { return omp_get_num_procs(); }
int32_t omp_in_parallel_(void) { return to_logical(omp_in_parallel()); }
int32_t omp_in_final_(void) { return to_logical(omp_in_final()); }
/* integer(omp_event_handle_kind) is an intptr_t, and omp_lib passes it by value. */
void omp_fulfill_event_(intptr_t event) { omp_fulfill_event((omp_event_handle_t)event); }

/* Allocator handles and memory spaces are integer(c_intptr_t); omp_alloctrait is
   {integer(c_int) key; integer(c_intptr_t) value}, the C layout. */
intptr_t omp_init_allocator_(const intptr_t *memspace, const int32_t *ntraits,
                             const omp_alloctrait_t *traits)
{
  return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, *ntraits, traits);
}
intptr_t omp_init_allocator_8_(const intptr_t *memspace, const int64_t *ntraits,
                               const omp_alloctrait_t *traits)
{
  return (intptr_t)omp_init_allocator((omp_memspace_handle_t)*memspace, clamp_to_int(*ntraits),
                                      traits);
}
void omp_destroy_allocator_(const intptr_t *allocator)
{
  omp_destroy_allocator((omp_allocator_handle_t)*allocator);
}
void omp_set_default_allocator_(const intptr_t *allocator)
{
  omp_set_default_allocator((omp_allocator_handle_t)*allocator);
}
intptr_t omp_get_default_allocator_(void) { return (intptr_t)omp_get_default_allocator(); }
int32_t omp_get_level_(void) { return omp_get_level(); }
int32_t omp_get_active_level_(void) { return omp_get_active_level(); }
int32_t omp_get_ancestor_thread_num_(const int32_t *level)
{
  return omp_get_ancestor_thread_num(*level);
}
int32_t omp_get_ancestor_thread_num_8_(const int64_t *level)
{
  return omp_get_ancestor_thread_num(clamp_to_int(*level));
}
int32_t omp_get_team_size_(const int32_t *level) { return omp_get_team_size(*level); }
int32_t omp_get_team_size_8_(const int64_t *level)
{
  return omp_get_team_size(clamp_to_int(*level));
}
int32_t omp_get_thread_limit_(void) { return omp_get_thread_limit(); }

/* ---------------------------------------------------------------- ICVs */

void omp_set_dynamic_(const int32_t *dynamic) { omp_set_dynamic(*dynamic != 0); }
void omp_set_dynamic_8_(const int64_t *dynamic) { omp_set_dynamic(*dynamic != 0); }
int32_t omp_get_dynamic_(void) { return to_logical(omp_get_dynamic()); }
void omp_set_nested_(const int32_t *nested) { omp_set_nested(*nested != 0); }
void omp_set_nested_8_(const int64_t *nested) { omp_set_nested(*nested != 0); }
int32_t omp_get_nested_(void) { return to_logical(omp_get_nested()); }

void omp_set_max_active_levels_(const int32_t *levels)
{
  omp_set_max_active_levels(*levels);
}
void omp_set_max_active_levels_8_(const int64_t *levels)
{
  omp_set_max_active_levels(clamp_to_int(*levels));
}
int32_t omp_get_max_active_levels_(void) { return omp_get_max_active_levels(); }
int32_t omp_get_supported_active_levels_(void)
{
  return omp_get_supported_active_levels();
}

/* The kind is INTEGER(omp_sched_kind = 4) in both forms; only the chunk size widens. */
void omp_set_schedule_(const int32_t *kind, const int32_t *chunk_size)
{
  omp_set_schedule((omp_sched_t)*kind, *chunk_size);
}
void omp_set_schedule_8_(const int32_t *kind, const int64_t *chunk_size)
{
  omp_set_schedule((omp_sched_t)*kind, clamp_to_int(*chunk_size));
}

/* omp_lib's omp_sched_kind constants stop at omp_sched_auto: like libgomp, report the schedule
   without the monotonic modifier, which Fortran code written for OpenMP 4.5 would not expect. */
static int32_t fortran_sched_kind(omp_sched_t kind)
{
  return (int32_t)((unsigned)kind & ~(unsigned)omp_sched_monotonic);
}
void omp_get_schedule_(int32_t *kind, int32_t *chunk_size)
{
  omp_sched_t k;
  int chunk;
  omp_get_schedule(&k, &chunk);
  *kind = fortran_sched_kind(k);
  *chunk_size = chunk;
}
void omp_get_schedule_8_(int32_t *kind, int64_t *chunk_size)
{
  omp_sched_t k;
  int chunk;
  omp_get_schedule(&k, &chunk);
  *kind = fortran_sched_kind(k);
  *chunk_size = chunk;
}

int32_t omp_get_proc_bind_(void) { return (int32_t)omp_get_proc_bind(); }

/* ---------------------------------------------------------------- places */

int32_t omp_get_num_places_(void) { return omp_get_num_places(); }
int32_t omp_get_place_num_procs_(const int32_t *place_num)
{
  return omp_get_place_num_procs(*place_num);
}
int32_t omp_get_place_num_procs_8_(const int64_t *place_num)
{
  return omp_get_place_num_procs(clamp_to_int(*place_num));
}
void omp_get_place_proc_ids_(const int32_t *place_num, int32_t *ids)
{
  omp_get_place_proc_ids(*place_num, ids);
}
/* INTEGER(8) ids: the C routine writes ints, widened here one by one. */
void omp_get_place_proc_ids_8_(const int64_t *place_num, int64_t *ids)
{
  int place = clamp_to_int(*place_num);
  int n = omp_get_place_num_procs(place);
  int *narrow = n > 0 ? malloc((size_t)n * sizeof *narrow) : NULL;
  if (narrow == NULL)
    return;
  omp_get_place_proc_ids(place, narrow);
  for (int i = 0; i < n; i++)
    ids[i] = narrow[i];
  free(narrow);
}
int32_t omp_get_place_num_(void) { return omp_get_place_num(); }
int32_t omp_get_partition_num_places_(void) { return omp_get_partition_num_places(); }
void omp_get_partition_place_nums_(int32_t *place_nums)
{
  omp_get_partition_place_nums(place_nums);
}
void omp_get_partition_place_nums_8_(int64_t *place_nums)
{
  int n = omp_get_partition_num_places();
  int *narrow = n > 0 ? malloc((size_t)n * sizeof *narrow) : NULL;
  if (narrow == NULL)
    return;
  omp_get_partition_place_nums(narrow);
  for (int i = 0; i < n; i++)
    place_nums[i] = narrow[i];
  free(narrow);
}
int32_t omp_get_cancellation_(void) { return to_logical(omp_get_cancellation()); }
int32_t omp_get_max_task_priority_(void) { return omp_get_max_task_priority(); }

/* ---------------------------------------------------------------- devices and teams */

void omp_set_default_device_(const int32_t *device) { omp_set_default_device(*device); }
void omp_set_default_device_8_(const int64_t *device)
{
  omp_set_default_device(clamp_to_int(*device));
}
int32_t omp_get_default_device_(void) { return omp_get_default_device(); }
int32_t omp_get_num_devices_(void) { return omp_get_num_devices(); }
int32_t omp_get_device_num_(void) { return omp_get_device_num(); }
int32_t omp_get_initial_device_(void) { return omp_get_initial_device(); }
int32_t omp_is_initial_device_(void) { return to_logical(omp_is_initial_device()); }

int32_t omp_get_num_teams_(void) { return omp_get_num_teams(); }
int32_t omp_get_team_num_(void) { return omp_get_team_num(); }
void omp_set_num_teams_(const int32_t *num_teams) { omp_set_num_teams(*num_teams); }
void omp_set_num_teams_8_(const int64_t *num_teams)
{
  omp_set_num_teams(clamp_to_int(*num_teams));
}
int32_t omp_get_max_teams_(void) { return omp_get_max_teams(); }
void omp_set_teams_thread_limit_(const int32_t *limit)
{
  omp_set_teams_thread_limit(*limit);
}
void omp_set_teams_thread_limit_8_(const int64_t *limit)
{
  omp_set_teams_thread_limit(clamp_to_int(*limit));
}
int32_t omp_get_teams_thread_limit_(void) { return omp_get_teams_thread_limit(); }

/* ---------------------------------------------------------------- the rest */

double omp_get_wtime_(void) { return omp_get_wtime(); }
double omp_get_wtick_(void) { return omp_get_wtick(); }

/* The argument is a LOGICAL. */
void omp_display_env_(const int32_t *verbose) { omp_display_env(*verbose != 0); }
void omp_display_env_8_(const int64_t *verbose) { omp_display_env(*verbose != 0); }

/* INTEGER(omp_pause_resource_kind = 4). */
int32_t omp_pause_resource_(const int32_t *kind, const int32_t *device_num)
{
  return omp_pause_resource((omp_pause_resource_t)*kind, *device_num);
}
int32_t omp_pause_resource_all_(const int32_t *kind)
{
  return omp_pause_resource_all((omp_pause_resource_t)*kind);
}

/* ---------------------------------------------------------------- the affinity format */

/* A Fortran string as a C string: in small if it fits, else in malloc'd memory (the caller frees
   what is not small). Trailing blanks stay part of it, as libgomp keeps them. */
static char *c_string(const char *s, size_t len, char *small, size_t small_size)
{
  char *c = len < small_size ? small : malloc(len + 1);
  if (c == NULL)
    lite_fatal("out of memory for a Fortran string argument (%zu bytes)", len + 1);
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

/* The length of a text as a default INTEGER, for the two functions that return one. */
static int32_t fortran_length(size_t len) { return len > INT32_MAX ? INT32_MAX : (int32_t)len; }

void omp_set_affinity_format_(const char *format, size_t format_len)
{
  char small[256];
  char *c = c_string(format, format_len, small, sizeof small);
  omp_set_affinity_format(c);
  if (c != small)
    free(c);
}

/* The format, cut to the buffer or padded with blanks; returns its whole length. */
int32_t omp_get_affinity_format_(char *buffer, size_t buffer_len)
{
  size_t len = omp_get_affinity_format(NULL, 0), got;
  char *c = NULL;
  /* Another thread may set a longer format between the two calls: then read again. */
  do {
    free(c);
    c = malloc(len + 1);
    if (c == NULL)
      lite_fatal("out of memory for the affinity format (%zu bytes)", len + 1);
    got = len;
    len = omp_get_affinity_format(c, got + 1);
  } while (len > got);
  size_t n = len < buffer_len ? len : buffer_len;
  memcpy(buffer, c, n);
  memset(buffer + n, ' ', buffer_len - n);
  free(c);
  return fortran_length(len);
}

/* An empty format (zero length) stands for affinity-format-var, as NULL does in C. */
void omp_display_affinity_(const char *format, size_t format_len)
{
  char small[256];
  char *c = format_len > 0 ? c_string(format, format_len, small, sizeof small) : NULL;
  omp_display_affinity(c);
  if (c != NULL && c != small)
    free(c);
}

/* The text, cut to the buffer (no NUL: Fortran has none) or padded with blanks; returns its
   whole length. One capture, into room for the C routine's NUL, so that the length and the text
   agree. */
int32_t omp_capture_affinity_(char *buffer, const char *format, size_t buffer_len,
                              size_t format_len)
{
  char small_format[256], small_text[512];
  char *c = format_len > 0 ? c_string(format, format_len, small_format, sizeof small_format)
                           : NULL;
  char *text = buffer_len < sizeof small_text ? small_text : malloc(buffer_len + 1);
  if (text == NULL)
    lite_fatal("out of memory for an affinity display (%zu bytes)", buffer_len + 1);
  size_t len = omp_capture_affinity(text, buffer_len + 1, c);
  size_t n = len < buffer_len ? len : buffer_len;
  memcpy(buffer, text, n);
  memset(buffer + n, ' ', buffer_len - n);
  if (text != small_text)
    free(text);
  if (c != NULL && c != small_format)
    free(c);
  return fortran_length(len);
}
