/* The rest of LLVM's ABI that clang 14 emits for host code: the allocate directive's
   allocators, the error directive, the affinity clause, the target-offload policy. (OMPT
   tools start in ompt/start.c.) */
#include "internal.h"
#include "kmpc.h"

#include <stdlib.h>

KMPC_EXPORT void *__kmpc_alloc(int gtid, size_t size, omp_allocator_handle_t allocator)
{
  (void)gtid;
  return omp_alloc(size, allocator);
}

KMPC_EXPORT void *__kmpc_aligned_alloc(int gtid, size_t align, size_t size,
                                       omp_allocator_handle_t allocator)
{
  (void)gtid;
  return omp_aligned_alloc(align, size, allocator);
}

KMPC_EXPORT void *__kmpc_calloc(int gtid, size_t nmemb, size_t size,
                                omp_allocator_handle_t allocator)
{
  (void)gtid;
  return omp_calloc(nmemb, size, allocator);
}

KMPC_EXPORT void *__kmpc_realloc(int gtid, void *ptr, size_t size,
                                 omp_allocator_handle_t allocator,
                                 omp_allocator_handle_t free_allocator)
{
  (void)gtid;
  return omp_realloc(ptr, size, allocator, free_allocator);
}

KMPC_EXPORT void __kmpc_free(int gtid, void *ptr, omp_allocator_handle_t allocator)
{
  (void)gtid;
  omp_free(ptr, allocator);
}

KMPC_EXPORT omp_allocator_handle_t __kmpc_init_allocator(int gtid, omp_memspace_handle_t memspace,
                                                        int ntraits,
                                                        const omp_alloctrait_t traits[])
{
  (void)gtid;
  return omp_init_allocator(memspace, ntraits, traits);
}

KMPC_EXPORT void __kmpc_destroy_allocator(int gtid, omp_allocator_handle_t allocator)
{
  (void)gtid;
  omp_destroy_allocator(allocator);
}

KMPC_EXPORT void __kmpc_set_default_allocator(int gtid, omp_allocator_handle_t allocator)
{
  (void)gtid;
  omp_set_default_allocator(allocator);
}

KMPC_EXPORT omp_allocator_handle_t __kmpc_get_default_allocator(int gtid)
{
  (void)gtid;
  return omp_get_default_allocator();
}

/* The error directive: severity 1 warning, 2 fatal; the message (NULL: none) is a C string. */
KMPC_EXPORT void __kmpc_error(ident_t *loc, int severity, const char *message)
{
  (void)loc;
  if (severity == 1)
    GOMP_warning(message, (size_t)-1);
  else
    GOMP_error(message, (size_t)-1);
}

/* A task's affinity clause: a hint this runtime does not use. */
KMPC_EXPORT int32_t __kmpc_omp_reg_task_with_affinity(ident_t *loc, int32_t gtid, void *task,
                                                      int32_t naffins, void *affin_list)
{
  (void)loc, (void)gtid, (void)task, (void)naffins, (void)affin_list;
  return 0;
}

/* target-offload-var as LLVM numbers it: 0 disabled, 1 default, 2 mandatory. */
KMPC_EXPORT int __kmpc_get_target_offload(void)
{
  switch (lite_env.target_offload) {
  case LITE_OFFLOAD_DISABLED: return 0;
  case LITE_OFFLOAD_MANDATORY: return 2;
  default: return 1;
  }
}
