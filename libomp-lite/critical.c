/* critical and atomic: gcc calls these around a critical region (unnamed or named) and around
   an atomic update it cannot do with one instruction (or a reduction's combination). All three
   are the futex mutex of lock.c. */
#include "internal.h"
#include "profile/profile.h"
#include "ompt/ompt.h"

/* Each mutex on its own cache line: a program hammering atomic must not slow one using critical. */
struct padded_mutex {
  _Atomic uint32_t word;
} LITE_ALIGNED;

static struct padded_mutex unnamed_critical;
static struct padded_mutex atomic_fallback;

/* OpenMP 5.x asks only for an acquire flush on entry, which the mutex gives; older programs
   written to OpenMP 4.5 ("entry is a flush") also count on earlier stores not sinking into the
   region, so a release fence comes first, as in libgomp. It compiles to nothing on x86, whose
   locked instructions are full barriers anyway. */
void GOMP_critical_start(void)
{
  atomic_thread_fence(memory_order_release);
  if (lite_ompt_on())
    lite_ompt_mutex_lock(ompt_mutex_critical, &unnamed_critical.word, omp_sync_hint_none,
                         __builtin_return_address(0));
  else if (lite_prof_on())
    lite_prof_critical(&unnamed_critical.word, __builtin_return_address(0));
  else
    lite_mutex_lock(&unnamed_critical.word);
  lite_held_enter();
}

void GOMP_critical_end(void)
{
  lite_held_leave();
  lite_mutex_unlock(&unnamed_critical.word);
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_critical, &unnamed_critical.word,
                    __builtin_return_address(0));
}

/* gcc gives each name a pointer-sized, zero-initialised common symbol (.gomp_critical_user_NAME)
   and passes its address. Its first 4 bytes serve as the futex word: zero is "free", so no
   allocation and no race to initialise it. */
static inline _Atomic uint32_t *named_mutex(void **pptr)
{
  _Static_assert(sizeof(void *) >= sizeof(uint32_t), "a futex word fits in the name's storage");
  return (_Atomic uint32_t *)pptr;
}

void GOMP_critical_name_start(void **pptr)
{
  atomic_thread_fence(memory_order_release);
  if (lite_ompt_on())
    lite_ompt_mutex_lock(ompt_mutex_critical, named_mutex(pptr), omp_sync_hint_none,
                         __builtin_return_address(0));
  else if (lite_prof_on())
    lite_prof_critical(named_mutex(pptr), __builtin_return_address(0));
  else
    lite_mutex_lock(named_mutex(pptr));
  lite_held_enter();
}

void GOMP_critical_name_end(void **pptr)
{
  lite_held_leave();
  lite_mutex_unlock(named_mutex(pptr));
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_critical, named_mutex(pptr),
                    __builtin_return_address(0));
}

/* With a tool, the mutex events of kind atomic: gcc takes this lock to combine reductions of
   more than one variable, and a race detector (Archer) that does not see it reports each
   combination as a race. */
void GOMP_atomic_start(void)
{
  if (lite_ompt_on())
    lite_ompt_mutex_lock(ompt_mutex_atomic, &atomic_fallback.word, omp_sync_hint_none,
                         __builtin_return_address(0));
  else
    lite_mutex_lock(&atomic_fallback.word);
}

void GOMP_atomic_end(void)
{
  lite_mutex_unlock(&atomic_fallback.word);
  if (lite_ompt_on())
    lite_ompt_mutex(ompt_callback_mutex_released, ompt_mutex_atomic, &atomic_fallback.word,
                    __builtin_return_address(0));
}
