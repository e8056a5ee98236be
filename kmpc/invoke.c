/* Calling an outlined region body with its shared variables: fn(&gtid, &btid, argv[0], ...,
   argv[argc-1]). C cannot build a call with a count known only at run time, so the call passes a
   fixed number of pointers, the first bucket that holds argc, the rest NULL. On the ABIs this
   builds for (x86-64 and AArch64 System V) the caller owns the argument area and a callee reads
   only the parameters it declares, so the extra ones are harmless; the smallest bucket keeps the
   common call (up to 4 shared variables) within the argument registers. A body with more than
   KMPC_MAX_ARGS shared variables stops the program with a message. */
#include "internal.h"
#include "kmpc.h"
#include "ompt/ompt.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "kmpc/invoke.c passes surplus arguments, which is safe only on x86-64 and AArch64"
#endif

#define KMPC_MAX_ARGS 254

#define A4(o) a[o], a[o + 1], a[o + 2], a[o + 3]
#define A16(o) A4(o), A4(o + 4), A4(o + 8), A4(o + 12)
#define A64(o) A16(o), A16(o + 16), A16(o + 32), A16(o + 48)

typedef void (*micro4)(int32_t *, int32_t *, void *, void *, void *, void *);

/* Inlined into both callers below, so that each calls the body itself. */
static inline __attribute__((always_inline)) void call(kmpc_micro fn, int32_t *gtid,
                                                       int32_t *btid, int argc, void **argv)
{
  if (argc <= 4) {
    void *a[4] = { 0 };
    for (int i = 0; i < argc; i++)
      a[i] = argv[i];
    ((micro4)fn)(gtid, btid, A4(0));
    return;
  }
  if (argc > KMPC_MAX_ARGS)
    lite_error_exit("a parallel or teams region with %d shared variables: libomp-lite passes at "
                    "most %d", argc, KMPC_MAX_ARGS);
  void *a[256];
  int bucket = argc <= 16 ? 16 : argc <= 64 ? 64 : 256;
  for (int i = 0; i < bucket; i++)
    a[i] = i < argc ? argv[i] : NULL;
  if (argc <= 16)
    fn(gtid, btid, A16(0));
  else if (argc <= 64)
    fn(gtid, btid, A64(0));
  else
    fn(gtid, btid, A64(0), A64(64), A64(128), A64(192));
}

/* With a tool attached: the running task's exit frame is this function's, the body's caller
   (ompt/events.c says why), while the body runs. */
static __attribute__((noinline)) void call_traced(kmpc_micro fn, int32_t *gtid, int32_t *btid,
                                                  int argc, void **argv)
{
  struct lite_thread *thr = lite_self();
  struct lite_task *t = lite_current_task(thr);
  void *saved = t->ompt_frame.exit_frame.ptr;
  t->ompt_frame.exit_frame.ptr = __builtin_frame_address(0);
  t->ompt_frame.exit_frame_flags = ompt_frame_runtime | ompt_frame_framepointer;
  call(fn, gtid, btid, argc, argv);
  t->ompt_frame.exit_frame.ptr = saved;
}

void lite_kmpc_invoke(kmpc_micro fn, int32_t *gtid, int32_t *btid, int argc, void **argv)
{
  if (lite_ompt_on())
    call_traced(fn, gtid, btid, argc, argv);
  else
    call(fn, gtid, btid, argc, argv);
}
