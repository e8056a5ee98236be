/* The OpenMP lock implementations that lock.c defines and fortran.c wraps. Each one is exported
   under its libgomp name only through .symver (name@@OMP_3.0 and/or name@OMP_1.0), so C callers
   inside the library reach them by these internal names. (omp_init_lock_with_hint and
   omp_init_nest_lock_with_hint have one version only and keep their plain abi.h names.) */
#ifndef LITE_LOCK_H
#define LITE_LOCK_H

#include "internal.h"

/* omp_nest_lock_t as gcc >= 4.4 lays it out (OMP_3.0, 16 bytes). */
struct lite_nest_lock {
  _Atomic uint32_t mutex; /* a lite_mutex */
  int count;              /* times the owner holds it; touched only by the owner */
  void *_Atomic owner;    /* the owning task; read by others only to learn "not mine" */
};

/* The legacy (OMP_1.0, gcc < 4.4) nest lock: 8 bytes. The owner word is also the futex word:
   0 when free, else the owner's kernel thread id, with LITE_LEGACY_WAITERS set once a thread
   may be sleeping on it (thread ids stay below 2^22, so the top bit is free). */
struct lite_legacy_nest_lock {
  _Atomic uint32_t owner;
  int count;
};
#define LITE_LEGACY_WAITERS 0x80000000u

/* omp_lock_t: the futex word itself, in both versions. */
LITE_EXPORT void lite_lock_init(omp_lock_t *lock);
LITE_EXPORT void lite_lock_destroy(omp_lock_t *lock);
LITE_EXPORT void lite_lock_set(omp_lock_t *lock);
LITE_EXPORT void lite_lock_unset(omp_lock_t *lock);
LITE_EXPORT int lite_lock_test(omp_lock_t *lock);

/* omp_nest_lock_t, OMP_3.0 layout. */
LITE_EXPORT void lite_nest_lock_init(omp_nest_lock_t *lock);
LITE_EXPORT void lite_nest_lock_destroy(omp_nest_lock_t *lock);
LITE_EXPORT void lite_nest_lock_set(omp_nest_lock_t *lock);
LITE_EXPORT void lite_nest_lock_unset(omp_nest_lock_t *lock);
LITE_EXPORT int lite_nest_lock_test(omp_nest_lock_t *lock);

/* The legacy nest lock, OMP_1.0 layout (struct lite_legacy_nest_lock). */
LITE_EXPORT void lite_legacy_nest_lock_init(struct lite_legacy_nest_lock *lock);
LITE_EXPORT void lite_legacy_nest_lock_destroy(struct lite_legacy_nest_lock *lock);
LITE_EXPORT void lite_legacy_nest_lock_set(struct lite_legacy_nest_lock *lock);
LITE_EXPORT void lite_legacy_nest_lock_unset(struct lite_legacy_nest_lock *lock);
LITE_EXPORT int lite_legacy_nest_lock_test(struct lite_legacy_nest_lock *lock);

#endif
