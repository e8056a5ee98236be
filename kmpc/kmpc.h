/* kmpc/: LLVM's runtime ABI (the __kmpc_* entry points clang emits, libomp.so.5 at version
   VERSION), mapped onto the teams, loops, tasks and waits the GOMP_* entry points use, so that a
   clang-built program and a gcc-built library share one pool, one set of ICVs and one thread
   numbering. A thin layer: no state of its own beyond what the ABI's protocol needs (a thread's
   global id, the pushed num_threads and proc_bind of its next fork, its dispatched loop).
   Internal: hidden. */
#ifndef LITE_KMPC_H
#define LITE_KMPC_H

#include "abi.h"
#include <stdbool.h>
#include <stdint.h>

#define KMPC_EXPORT __attribute__((visibility("default")))

/* The source location clang passes first to (almost) every entry point. Only flags is read. */
typedef struct ident {
  int32_t reserved_1;
  int32_t flags;
  int32_t reserved_2;
  int32_t reserved_3;
  const char *psource;       /* ";file;function;line;column;;" */
} ident_t;

/* The outlined body of a parallel or teams region: the global and bound thread ids by address,
   then the region's shared variables, one pointer each. */
typedef void (*kmpc_micro)(int32_t *gtid, int32_t *btid, ...);

/* A critical section's name: 32 zeroed bytes the compiler reserves per name. */
typedef int32_t kmp_critical_name[8];

/* Schedule kinds of __kmpc_dispatch_init_* and __kmpc_for_static_init_* (LLVM's kmp.h
   enum sched_type; the modifiers are bits 29 and 30). */
enum {
  KMPC_SCH_STATIC_CHUNKED = 33,
  KMPC_SCH_STATIC = 34,
  KMPC_SCH_DYNAMIC_CHUNKED = 35,
  KMPC_SCH_GUIDED_CHUNKED = 36,
  KMPC_SCH_RUNTIME = 37,
  KMPC_SCH_AUTO = 38,
  KMPC_SCH_TRAPEZOIDAL = 39,
  KMPC_SCH_STATIC_GREEDY = 40,
  KMPC_SCH_STATIC_BALANCED = 41,
  KMPC_SCH_GUIDED_ITERATIVE = 42,
  KMPC_SCH_GUIDED_ANALYTICAL = 43,
  KMPC_SCH_STATIC_STEAL = 44,
  KMPC_SCH_STATIC_BALANCED_CHUNKED = 45,
  KMPC_SCH_GUIDED_SIMD = 46,
  KMPC_SCH_RUNTIME_SIMD = 47,
  KMPC_ORD_LOWER = 64,           /* ordered kinds: the unordered kind + 32 */
  KMPC_ORD_UPPER = 72,
  KMPC_DIST_STATIC_CHUNKED = 91, /* distribute: the unordered kind + 58 */
  KMPC_DIST_STATIC = 92,
  KMPC_NM_LOWER = 160,           /* "nomerge" kinds: the unordered kind + 128 */
  KMPC_NM_UPPER = 200,
  KMPC_SCH_MODIFIER_MONOTONIC = 1 << 29,
  KMPC_SCH_MODIFIER_NONMONOTONIC = 1 << 30,
};

/* ---------------------------------------------------------------- thread.c */

/* The calling thread's global id: 0 for the process's initial thread, then 1, 2, ... in the
   order threads first ask, never reused. Only an identifier: no entry point reads the gtid its
   caller passes, they all find the thread by its thread-local state. */
int32_t lite_kmpc_gtid(void);

/* What __kmpc_push_num_threads and __kmpc_push_proc_bind left for the calling thread's next fork
   (0: nothing); reading clears it. */
struct lite_kmpc_push {
  unsigned num_threads;
  unsigned proc_bind;
  unsigned num_teams;
  unsigned thread_limit;
};
struct lite_kmpc_push *lite_kmpc_pushed(void);

/* ---------------------------------------------------------------- invoke.c */

/* Calls a microtask with argc shared-variable pointers. */
void lite_kmpc_invoke(kmpc_micro fn, int32_t *gtid, int32_t *btid, int argc, void **argv);

/* ---------------------------------------------------------------- sync.c */

int32_t __kmpc_cancellationpoint(ident_t *loc, int32_t gtid, int32_t kind);

#endif
