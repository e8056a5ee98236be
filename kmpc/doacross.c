/* Doacross loops of clang-built code (ordered(n) with depend(sink)/depend(source)). clang
   describes each ordered dimension by its bounds and step and names iterations by their values;
   gcc's doacross loops (doacross.c) take trip counts and logical iteration numbers. So
   __kmpc_doacross_init starts a doacross construct of the team with the trip counts, without
   handing out iterations and detached from the thread: clang shares the loop out itself, through
   __kmpc_for_static_init or a dispatched loop, which is a construct of its own; a post or wait
   turns values into numbers and names the construct. */
#include "internal.h"
#include "loop_common.h"
#include "kmpc.h"
#include "ompt/ompt.h"

#include <stdlib.h>

struct kmp_dim {
  int64_t lo, up, st; /* inclusive bounds */
};

/* The dimensions of the calling thread's doacross loop, per nesting level. */
struct doacross {
  struct lite_ws *ws;
  unsigned ndims;
  struct kmp_dim *dims;
  long *counts;       /* scratch for one post or wait */
};

static LITE_THREAD_LOCAL struct doacross *loops;
static LITE_THREAD_LOCAL unsigned nloops;

static struct doacross *doacross_here(void)
{
  unsigned level = (unsigned)omp_get_level();
  if (lite_unlikely(level >= nloops)) {
    unsigned n = level + 4;
    struct doacross *d = realloc(loops, n * sizeof *d);
    if (d == NULL)
      lite_fatal("out of memory for a doacross loop's state");
    for (unsigned i = nloops; i < n; i++)
      d[i] = (struct doacross){ NULL, 0, NULL, NULL };
    loops = d;
    nloops = n;
  }
  return &loops[level];
}

/* The logical number of value v in dimension dim, or -1 outside it. */
static long number_of(const struct kmp_dim *dim, int64_t v)
{
  if (dim->st > 0) {
    if (v < dim->lo || v > dim->up)
      return -1;
    return (long)(((uint64_t)v - (uint64_t)dim->lo) / (uint64_t)dim->st);
  }
  if (v > dim->lo || v < dim->up)
    return -1;
  return (long)(((uint64_t)dim->lo - (uint64_t)v) / (uint64_t)-dim->st);
}

KMPC_EXPORT void __kmpc_doacross_init(ident_t *loc, int32_t gtid, int32_t num_dims,
                                      const struct kmp_dim *dims)
{
  (void)loc, (void)gtid;
  struct doacross *d = doacross_here();
  unsigned n = num_dims > 0 ? (unsigned)num_dims : 0;
  if (n > d->ndims) {
    free(d->dims);
    free(d->counts);
    d->dims = malloc(n * sizeof *d->dims);
    d->counts = malloc(n * sizeof *d->counts);
    if (d->dims == NULL || d->counts == NULL)
      lite_fatal("out of memory for a doacross loop's state");
  }
  d->ndims = n;
  for (unsigned i = 0; i < n; i++) {
    d->dims[i] = dims[i];
    long last = number_of(&dims[i], dims[i].up);
    d->counts[i] = number_of(&dims[i], dims[i].lo) < 0 || last < 0 ? 0 : last + 1;
  }
  d->ws = lite_doacross_begin_detached(n, d->counts);
}

/* The values of vec as numbers in d->counts; false if one lies outside its dimension. */
static bool numbers(struct doacross *d, const int64_t *vec)
{
  for (unsigned i = 0; i < d->ndims; i++)
    if ((d->counts[i] = number_of(&d->dims[i], vec[i])) < 0)
      return false;
  return d->ndims > 0;
}

/* For a tool: the iteration vec names, as a sink or a source of the current task, with the
   loop's own values (as LLVM's runtime says them); gcc's loops give theirs the same way
   (doacross.c). int64_t and uint64_t may alias: vec is read as the unsigned values. */
static __attribute__((noinline)) void tool_deps(const struct doacross *d, const int64_t *vec,
                                               ompt_dependence_type_t type)
{
  lite_ompt_doacross(type, (const uint64_t *)vec, d->ndims);
}

KMPC_EXPORT void __kmpc_doacross_wait(ident_t *loc, int32_t gtid, const int64_t *vec)
{
  (void)loc, (void)gtid;
  struct doacross *d = doacross_here();
  if (numbers(d, vec)) {
    if (lite_ompt_on())
      tool_deps(d, vec, ompt_dependence_type_sink);
    lite_doacross_wait_in(d->ws, d->counts);
  }
}

KMPC_EXPORT void __kmpc_doacross_post(ident_t *loc, int32_t gtid, const int64_t *vec)
{
  (void)loc, (void)gtid;
  struct doacross *d = doacross_here();
  if (numbers(d, vec)) {
    if (lite_ompt_on())
      tool_deps(d, vec, ompt_dependence_type_source);
    lite_doacross_post_in(d->ws, d->counts);
  }
}

KMPC_EXPORT void __kmpc_doacross_fini(ident_t *loc, int32_t gtid)
{
  (void)loc, (void)gtid;
  struct doacross *d = doacross_here();
  lite_doacross_end_detached(d->ws);
  d->ws = NULL;
}
