/* Worksharing loops of clang-built code, for the four iteration types LLVM's ABI names 4
   (int32), 4u, 8 (int64) and 8u. Bounds are inclusive there ([lb, ub] by st); the GOMP side
   takes [start, end) by incr.

   Static schedules (__kmpc_for_static_init_*) are computed here, as gcc computes them inline: the
   same blocks for the same loop, so a clang-built loop and a gcc-built one over the same array
   give each thread the same part of it (the design's idea 2). LLVM's own default split is
   "greedy" (ceil(n/T) each, the last threads short); this is gcc's balanced one (the first n mod T
   threads one more).

   Dispatched schedules (__kmpc_dispatch_init_* / _next_*) run on the same loop machinery as
   GOMP_loop_start, with the clang caller's own call site for the per-site statistics, so tiny
   loops, split blocks and stealing apply alike. The loop's state is kept per nesting level of
   the calling thread (a region nested in a loop body runs loops of its own). */
#include "internal.h"
#include "loop_common.h"
#include "kmpc.h"
#include "ompt/ompt.h"

#include <limits.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- static */

/* The calling thread's number and team size for a loop of kind sched: the league's for
   distribute kinds, the team's otherwise. */
static void static_shape(int32_t sched, uint64_t *tid, uint64_t *nth)
{
  if (sched >= KMPC_DIST_STATIC_CHUNKED && sched <= KMPC_DIST_STATIC) {
    *tid = (uint64_t)omp_get_team_num();
    *nth = (uint64_t)omp_get_num_teams();
  } else {
    *tid = (uint64_t)omp_get_thread_num();
    *nth = (uint64_t)omp_get_num_threads();
  }
}

/* One body for the four types: T the iteration type, S the signed type of its stride, U the
   unsigned type of its trip count. Every product is taken in U, where wrap-around is defined
   and gives the right value once converted back to T. */
/* Which construct a static loop is, by clang's ident flags (LLVM's kmp.h: KMP_IDENT_WORK_LOOP
   0x200, KMP_IDENT_WORK_SECTIONS 0x400, KMP_IDENT_WORK_DISTRIBUTE 0x800). */
static ompt_work_t static_work(const ident_t *loc)
{
  if (loc != NULL && (loc->flags & 0x400))
    return ompt_work_sections;
  if (loc != NULL && (loc->flags & 0x800))
    return ompt_work_distribute;
  return ompt_work_loop;
}

static __attribute__((noinline, cold)) void static_begin_ompt(const ident_t *loc, uint64_t trip,
                                                              const void *codeptr)
{
  lite_ompt_ws_begin(static_work(loc), trip, codeptr);
}

/* The dispatch kind of a static split's chunks: a distribute block, clang's sections (each
   section of the member's block is dispatched), or a worksharing loop's chunk. */
static ompt_dispatch_t static_dispatch_kind(const ident_t *loc, int32_t sched)
{
  if (sched >= KMPC_DIST_STATIC_CHUNKED && sched <= KMPC_DIST_STATIC)
    return ompt_dispatch_distribute_chunk;
  return static_work(loc) == ompt_work_sections ? ompt_dispatch_section
                                                : ompt_dispatch_ws_loop_chunk;
}

/* static_split_##suffix computes the member's part. With a tool (tool: a constant, so that the
   plain entry point's copy has no hook at all), it also says the loop's work begin, and the
   entry point's tool path (static_tool_##suffix, reached through the one branch on
   lite_env.ompt) then tells which chunks that gives the member, from what the split returned:
   the first chunk [first, last], the stride to its next one, in the loop [lo, hi] by incr, all
   turned into logical iteration numbers (a member with no iteration gets a first outside
   [lo, hi]). */
#define DEFINE_STATIC_INIT(suffix, T, S, U)                                                  \
  static __attribute__((noinline, cold)) void static_dispatch_##suffix(                       \
      const ident_t *loc, int32_t sched, T lo, T hi, T first, T last, S stride, S incr,       \
      const void *codeptr)                                                                    \
  {                                                                                           \
    if (incr > 0 ? hi < lo || first < lo || first > hi : lo < hi || first > lo || first < hi) \
      return;                                                                                 \
    U step = incr > 0 ? (U)incr : -(U)incr;                                                   \
    U trip = (incr > 0 ? (U)(hi - lo) : (U)(lo - hi)) / step + 1;                             \
    U at = (incr > 0 ? (U)(first - lo) : (U)(lo - first)) / step;                             \
    U len = (incr > 0 ? (U)(last - first) : (U)(first - last)) / step + 1;                    \
    U every = (incr > 0 ? (U)stride : -(U)stride) / step;                                     \
    lite_ompt_static_chunks(static_dispatch_kind(loc, sched), codeptr, at, len, every, trip); \
  }                                                                                           \
                                                                                              \
  static inline __attribute__((always_inline)) void static_split_##suffix(                    \
      const ident_t *loc, int32_t sched, int32_t *plast, T *plower, T *pupper, S *pstride,    \
      S incr, S chunk, bool tool, const void *codeptr)                                        \
  {                                                                                           \
    T lo = *plower, hi = *pupper;                                                             \
    if (incr > 0 ? hi < lo : lo < hi) { /* no iteration */                                    \
      if (tool)                                                                               \
        static_begin_ompt(loc, 0, codeptr);                                                   \
      if (plast != NULL)                                                                      \
        *plast = 0;                                                                           \
      *pstride = incr;                                                                        \
      return;                                                                                 \
    }                                                                                         \
    U trip = incr > 0 ? (U)((U)(hi - lo) / (U)incr) + 1                                       \
                      : (U)((U)(lo - hi) / (U)(-(U)incr)) + 1;                                \
    if (tool)                                                                                 \
      static_begin_ompt(loc, trip, codeptr);                                                  \
    uint64_t tid, nth;                                                                        \
    static_shape(sched, &tid, &nth);                                                          \
    if (nth <= 1) {                                                                           \
      if (plast != NULL)                                                                      \
        *plast = 1;                                                                           \
      *pstride = (S)(trip * (U)incr);                                                         \
      return;                                                                                 \
    }                                                                                         \
    if (sched == KMPC_SCH_STATIC_CHUNKED || sched == KMPC_DIST_STATIC_CHUNKED) {              \
      U c = chunk < 1 ? 1 : (U)chunk > trip ? trip : (U)chunk;                                \
      U nchunks = trip / c + (trip % c != 0);                                                 \
      U span = c * (U)incr;                                                                   \
      *pstride = (S)(span * (nchunks < nth ? nchunks : (U)nth));                              \
      if (tid < nchunks) {                                                                    \
        *plower = (T)((U)lo + span * (U)tid);                                                 \
        *pupper = (T)((U)*plower + span - (U)incr);                                           \
      } else {                                                                                \
        *plower = (T)((U)hi + (incr > 0 ? 1 : (U)-1));                                        \
      }                                                                                       \
      if (plast != NULL)                                                                      \
        *plast = tid == (nchunks - 1) % nth;                                                  \
      return;                                                                                 \
    }                                                                                         \
    if (sched == KMPC_SCH_STATIC_BALANCED_CHUNKED && chunk > 1) {                            \
      /* schedule(simd: static): one block each, of ceil(trip/T) rounded up to a multiple of   \
         the SIMD width (chunk); the last threads may get less or nothing. */                  \
      U span = (trip + (U)nth - 1) / (U)nth;                                                  \
      span = (span + (U)chunk - 1) / (U)chunk * (U)chunk;                                     \
      U first = span * (U)tid;                                                                \
      U mine = first >= trip ? 0 : trip - first < span ? trip - first : span;                 \
      if (mine == 0) {                                                                        \
        *plower = (T)((U)hi + (incr > 0 ? 1 : (U)-1));                                        \
      } else {                                                                                \
        *plower = (T)((U)lo + first * (U)incr);                                               \
        *pupper = (T)((U)*plower + (mine - 1) * (U)incr);                                     \
      }                                                                                       \
      if (plast != NULL)                                                                      \
        *plast = mine != 0 && first + mine == trip;                                           \
      *pstride = (S)(trip * (U)incr);                                                         \
      return;                                                                                 \
    }                                                                                         \
    /* Unchunked (34, 92 and the other static kinds LLVM may pass): gcc's balanced blocks. */ \
    U q = trip / nth, extra = trip % nth;                                                     \
    U first = q * (U)tid + ((U)tid < extra ? (U)tid : extra);                                 \
    U mine = q + ((U)tid < extra);                                                            \
    if (mine == 0) {                                                                          \
      *plower = (T)((U)hi + (incr > 0 ? 1 : (U)-1));                                          \
    } else {                                                                                  \
      *plower = (T)((U)lo + first * (U)incr);                                                 \
      *pupper = (T)((U)*plower + (mine - 1) * (U)incr);                                       \
    }                                                                                         \
    if (plast != NULL)                                                                        \
      *plast = mine != 0 && first + mine == trip;                                             \
    *pstride = (S)(trip * (U)incr);                                                           \
  }                                                                                           \
                                                                                              \
  static __attribute__((noinline, cold)) void static_tool_##suffix(                           \
      const ident_t *loc, int32_t sched, int32_t *plast, T *plower, T *pupper, S *pstride,    \
      S incr, S chunk, const void *codeptr)                                                   \
  {                                                                                           \
    T lo = *plower, hi = *pupper;                                                             \
    static_split_##suffix(loc, sched, plast, plower, pupper, pstride, incr, chunk, true,      \
                          codeptr);                                                           \
    static_dispatch_##suffix(loc, sched, lo, hi, *plower, *pupper, *pstride, incr, codeptr);  \
  }                                                                                           \
                                                                                              \
  KMPC_EXPORT void __kmpc_for_static_init_##suffix(ident_t *loc, int32_t gtid, int32_t sched, \
                                                   int32_t *plast, T *plower, T *pupper,       \
                                                   S *pstride, S incr, S chunk)                \
  {                                                                                           \
    (void)gtid;                                                                               \
    if (lite_ompt_on())                                                                       \
      static_tool_##suffix(loc, sched, plast, plower, pupper, pstride, incr, chunk,           \
                           __builtin_return_address(0));                                      \
    else                                                                                      \
      static_split_##suffix(loc, sched, plast, plower, pupper, pstride, incr, chunk, false,   \
                            NULL);                                                            \
  }

DEFINE_STATIC_INIT(4, int32_t, int32_t, uint32_t)
DEFINE_STATIC_INIT(4u, uint32_t, int32_t, uint32_t)
DEFINE_STATIC_INIT(8, int64_t, int64_t, uint64_t)
DEFINE_STATIC_INIT(8u, uint64_t, int64_t, uint64_t)

/* The end of a static loop: nothing (the barrier, if any, is a separate call). */
KMPC_EXPORT void __kmpc_for_static_fini(ident_t *loc, int32_t gtid)
{
  (void)gtid;
  if (lite_ompt_on())
    lite_ompt_ws_close(static_work(loc), __builtin_return_address(0));
}

/* distribute parallel for, combined: the team's share of the league's block first (its
   distribute chunk, returned in *pupperd), then the thread's share of that. */
#define DEFINE_DIST_FOR_STATIC_INIT(suffix, T, S)                                             \
  KMPC_EXPORT void __kmpc_dist_for_static_init_##suffix(ident_t *loc, int32_t gtid,           \
                                                        int32_t sched, int32_t *plast,         \
                                                        T *plower, T *pupper, T *pupperd,      \
                                                        S *pstride, S incr, S chunk)           \
  {                                                                                           \
    int32_t last_team = 0;                                                                    \
    S team_stride;                                                                            \
    T hi = *pupper;                                                                           \
    __kmpc_for_static_init_##suffix(loc, gtid, KMPC_DIST_STATIC, &last_team, plower, pupper,  \
                                    &team_stride, incr, 0);                                   \
    if (incr > 0 ? *pupper > hi : *pupper < hi)                                               \
      *pupper = hi;                                                                           \
    *pupperd = *pupper;                                                                       \
    if (incr > 0 ? *pupper < *plower : *plower < *pupper) {                                   \
      if (plast != NULL)                                                                      \
        *plast = 0;                                                                           \
      *pstride = incr;                                                                        \
      return;                                                                                 \
    }                                                                                         \
    int32_t last_thread = 0;                                                                  \
    __kmpc_for_static_init_##suffix(loc, gtid, sched, &last_thread, plower, pupper, pstride,  \
                                    incr, chunk);                                             \
    if (plast != NULL)                                                                        \
      *plast = last_team && last_thread;                                                      \
  }

DEFINE_DIST_FOR_STATIC_INIT(4, int32_t, int32_t)
DEFINE_DIST_FOR_STATIC_INIT(4u, uint32_t, int32_t)
DEFINE_DIST_FOR_STATIC_INIT(8, int64_t, int64_t)
DEFINE_DIST_FOR_STATIC_INIT(8u, uint64_t, int64_t)

/* The league's chunk of a distribute loop with dist_schedule(static, chunk): the first chunk of
   the calling team, and the stride to its next one. */
#define DEFINE_TEAM_STATIC_INIT(suffix, T, S)                                                 \
  KMPC_EXPORT void __kmpc_team_static_init_##suffix(ident_t *loc, int32_t gtid,               \
                                                    int32_t *plast, T *plower, T *pupper,      \
                                                    S *pstride, S incr, S chunk)               \
  {                                                                                           \
    __kmpc_for_static_init_##suffix(loc, gtid, KMPC_DIST_STATIC_CHUNKED, plast, plower,       \
                                    pupper, pstride, incr, chunk);                            \
  }

DEFINE_TEAM_STATIC_INIT(4, int32_t, int32_t)
DEFINE_TEAM_STATIC_INIT(4u, uint32_t, int32_t)
DEFINE_TEAM_STATIC_INIT(8, int64_t, int64_t)
DEFINE_TEAM_STATIC_INIT(8u, uint64_t, int64_t)

/* ---------------------------------------------------------------- dispatch */

/* A dispatched loop of one thread at one nesting level, in the GOMP side's terms. */
struct dispatch {
  bool started;         /* its first chunk was asked for */
  bool ull;             /* on the unsigned long long side (8 and 8u), else long */
  bool up;
  bool bias;            /* 8: signed values moved to the unsigned side by flipping bit 63 */
  int64_t stride;       /* LLVM's st */
  unsigned long long start, end, incr; /* [start, end) by incr, as long or ull */
  unsigned long long last;             /* the last iteration's value, same side */
  bool last_elsewhere;  /* distribute: the last iteration is in another team's block */
  struct lite_loop_request req;
};

static LITE_THREAD_LOCAL struct dispatch *dispatches;
static LITE_THREAD_LOCAL unsigned ndispatches;

static struct dispatch *dispatch_here(void)
{
  unsigned level = (unsigned)omp_get_level();
  if (lite_unlikely(level >= ndispatches)) {
    unsigned n = level + 4;
    struct dispatch *d = realloc(dispatches, n * sizeof *d);
    if (d == NULL)
      lite_fatal("out of memory for a loop's state");
    dispatches = d;
    ndispatches = n;
  }
  return &dispatches[level];
}

/* LLVM's schedule number, modifiers and chunk as a loop request. */
static void decode_sched(struct lite_loop_request *req, int32_t sched, int64_t chunk, void *site)
{
  /* clang marks every dynamic, guided and runtime schedule with one of the modifier bits
     (nonmonotonic unless the program said monotonic, OpenMP 5.0's default); a kind without
     either, as LLVM reads it, is monotonic. */
  bool monotonic = (sched & KMPC_SCH_MODIFIER_NONMONOTONIC) == 0;
  int32_t kind = sched & ~(KMPC_SCH_MODIFIER_MONOTONIC | KMPC_SCH_MODIFIER_NONMONOTONIC);
  bool ordered = false;
  if (kind >= KMPC_NM_LOWER && kind < KMPC_NM_UPPER)
    kind -= KMPC_NM_LOWER - 32;
  if (kind > KMPC_ORD_LOWER && kind < KMPC_ORD_UPPER) {
    kind -= KMPC_ORD_LOWER - 32;
    ordered = true;
  }
  req->ordered = ordered;
  req->site = site;
  req->from_icv = false;
  req->chunk = chunk > 0 ? (uint64_t)chunk : 0;
  switch (kind) {
  case KMPC_SCH_STATIC_CHUNKED:
    req->kind = LITE_SCHED_STATIC;
    break;
  case KMPC_SCH_STATIC:
  case KMPC_SCH_STATIC_GREEDY:
  case KMPC_SCH_STATIC_BALANCED:
  case KMPC_SCH_STATIC_BALANCED_CHUNKED:
  case KMPC_SCH_AUTO: /* gcc makes schedule(auto) static too */
    req->kind = LITE_SCHED_STATIC;
    req->chunk = 0;
    break;
  case KMPC_SCH_DYNAMIC_CHUNKED:
  case KMPC_SCH_STATIC_STEAL: /* LLVM's form of nonmonotonic dynamic */
    req->kind = LITE_SCHED_DYNAMIC;
    break;
  case KMPC_SCH_GUIDED_CHUNKED:
  case KMPC_SCH_GUIDED_ITERATIVE:
  case KMPC_SCH_GUIDED_ANALYTICAL:
  case KMPC_SCH_GUIDED_SIMD:
  case KMPC_SCH_TRAPEZOIDAL:
    req->kind = LITE_SCHED_GUIDED;
    break;
  case KMPC_SCH_RUNTIME:
  case KMPC_SCH_RUNTIME_SIMD:
  default:
    req->kind = LITE_SCHED_DYNAMIC;
    req->monotonic = true;
    req->chunk = 0;
    lite_sched_resolve_runtime(lite_self(), req, !monotonic && !ordered);
    req->monotonic |= ordered;
    /* schedule(simd: runtime): chunk is the SIMD width; the chunks handed out are multiples
       of it (the run-sched-var's chunk, default 1, times the width, as LLVM makes them). */
    if (kind == KMPC_SCH_RUNTIME_SIMD && chunk > 1)
      req->chunk = (req->chunk > 0 ? req->chunk : 1) * (uint64_t)chunk;
    return;
  }
  req->monotonic = monotonic || ordered || req->kind == LITE_SCHED_STATIC;
}

/* Records a loop of [lb, ub] by st; the values already on the GOMP side (long or ull). */
static void dispatch_setup(struct dispatch *d, bool ull, bool bias, unsigned long long lb,
                           unsigned long long ub, int64_t st, int32_t sched, int64_t chunk,
                           void *site)
{
  d->started = false;
  d->last_elsewhere = false;
  d->ull = ull;
  d->bias = bias;
  d->stride = st;
  d->up = st > 0;
  d->start = lb;
  d->incr = (unsigned long long)st;
  d->end = d->up ? ub + 1 : ub - 1;
  if (d->up ? (ull ? ub == ULLONG_MAX : (long)ub == LONG_MAX)
            : (ull ? ub == 0 : (long)ub == LONG_MIN))
    lite_error_exit("a dispatched loop whose last bound is the limit of its type: libomp-lite "
                    "cannot express its end");
  /* The last iteration: lb + (trip - 1) * st, if there is one. */
  unsigned long long span = d->up ? ub - lb : lb - ub;
  bool empty = ull ? (d->up ? ub < lb : ub > lb) : (d->up ? (long)ub < (long)lb : (long)ub > (long)lb);
  unsigned long long step = d->up ? d->incr : -d->incr;
  d->last = empty ? lb : lb + (span / step) * d->incr;
  decode_sched(&d->req, sched, chunk, site);
}

/* The last iteration of the chunk [s, e) that starts at s, by the loop's step: the GOMP side
   ends a chunk at the next chunk's start, or at the loop's end, which needs not be an
   iteration (a loop of [0, 9] by 3 ends at 10, its last iteration is 9). */
static unsigned long long chunk_last(const struct dispatch *d, unsigned long long s,
                                     unsigned long long e)
{
  unsigned long long step = d->up ? d->incr : -d->incr;
  unsigned long long span = d->up ? e - s : s - e;
  return s + ((span - 1) / step) * d->incr;
}

/* The next chunk, inclusive, on the GOMP side's values; false when the loop is done for the
   calling thread, which then leaves it: the tool's loop-end then has the return address of the
   program's last __kmpc_dispatch_next (codeptr), as LLVM gives, not one inside the runtime. */
static bool dispatch_next(struct dispatch *d, int32_t *plast, unsigned long long *lb,
                          unsigned long long *ub, const void *codeptr)
{
  bool got;
  unsigned long long s, e;
  if (d->ull) {
    got = d->started ? GOMP_loop_ull_runtime_next(&s, &e)
                     : lite_loop_start_ull(&d->req, d->up, d->start, d->end, d->incr, &s, &e);
  } else {
    long ls, le;
    got = d->started ? GOMP_loop_runtime_next(&ls, &le)
                     : lite_loop_start_long(&d->req, (long)d->start, (long)d->end,
                                            (long)d->incr, &ls, &le);
    s = (unsigned long long)ls;
    e = (unsigned long long)le;
  }
  d->started = true;
  if (!got) {
    if (lite_ompt_on())
      lite_ompt_ws_end(ompt_work_loop, 0, codeptr);
    else
      GOMP_loop_end_nowait();
    return false;
  }
  *lb = s;
  *ub = chunk_last(d, s, e);
  if (plast != NULL)
    *plast = !d->last_elsewhere && *ub == d->last;
  return true;
}

#define BIAS (1ULL << 63)

KMPC_EXPORT void __kmpc_dispatch_init_4(ident_t *loc, int32_t gtid, int32_t sched, int32_t lb,
                                        int32_t ub, int32_t st, int32_t chunk)
{
  (void)loc, (void)gtid;
  dispatch_setup(dispatch_here(), false, false, (unsigned long long)(long)lb,
                 (unsigned long long)(long)ub, st, sched, chunk, __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_dispatch_init_4u(ident_t *loc, int32_t gtid, int32_t sched, uint32_t lb,
                                         uint32_t ub, int32_t st, int32_t chunk)
{
  (void)loc, (void)gtid;
  dispatch_setup(dispatch_here(), false, false, (unsigned long long)(long)lb,
                 (unsigned long long)(long)ub, st, sched, chunk, __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_dispatch_init_8(ident_t *loc, int32_t gtid, int32_t sched, int64_t lb,
                                        int64_t ub, int64_t st, int64_t chunk)
{
  (void)loc, (void)gtid;
  dispatch_setup(dispatch_here(), true, true, (unsigned long long)lb ^ BIAS,
                 (unsigned long long)ub ^ BIAS, st, sched, chunk, __builtin_return_address(0));
}

KMPC_EXPORT void __kmpc_dispatch_init_8u(ident_t *loc, int32_t gtid, int32_t sched, uint64_t lb,
                                         uint64_t ub, int64_t st, int64_t chunk)
{
  (void)loc, (void)gtid;
  dispatch_setup(dispatch_here(), true, false, lb, ub, st, sched, chunk,
                 __builtin_return_address(0));
}

/* One body for the four types: T the bound type, S the stride's; from_gomp turns a value of
   the GOMP side into T (the 8-byte signed type moves back from the unsigned side). */
#define DEFINE_DISPATCH_NEXT(suffix, T, S, from_gomp)                                         \
  KMPC_EXPORT int __kmpc_dispatch_next_##suffix(ident_t *loc, int32_t gtid, int32_t *plast,   \
                                                T *plb, T *pub, S *pst)                       \
  {                                                                                           \
    (void)loc, (void)gtid;                                                                    \
    struct dispatch *d = dispatch_here();                                                     \
    unsigned long long lb, ub;                                                                \
    if (!dispatch_next(d, plast, &lb, &ub, __builtin_return_address(0)))                      \
      return 0;                                                                               \
    *plb = (T)from_gomp(lb);                                                                  \
    *pub = (T)from_gomp(ub);                                                                  \
    if (pst != NULL)                                                                          \
      *pst = (S)d->stride;                                                                    \
    return 1;                                                                                 \
  }

#define FROM_LONG(v) (long)(v)
#define FROM_ULL(v) (v)
#define FROM_BIASED(v) ((v) ^ BIAS)

DEFINE_DISPATCH_NEXT(4, int32_t, int32_t, FROM_LONG)
DEFINE_DISPATCH_NEXT(4u, uint32_t, int32_t, FROM_LONG)
DEFINE_DISPATCH_NEXT(8, int64_t, int64_t, FROM_BIASED)
DEFINE_DISPATCH_NEXT(8u, uint64_t, int64_t, FROM_ULL)

/* The end of an ordered loop's iteration: nothing, the ordered turn passes at the end of each
   chunk or of a one-iteration chunk's ordered region (ordered.c). */
KMPC_EXPORT void __kmpc_dispatch_fini_4(ident_t *loc, int32_t gtid) { (void)loc, (void)gtid; }
KMPC_EXPORT void __kmpc_dispatch_fini_4u(ident_t *loc, int32_t gtid) { (void)loc, (void)gtid; }
KMPC_EXPORT void __kmpc_dispatch_fini_8(ident_t *loc, int32_t gtid) { (void)loc, (void)gtid; }
KMPC_EXPORT void __kmpc_dispatch_fini_8u(ident_t *loc, int32_t gtid) { (void)loc, (void)gtid; }

/* distribute parallel for with a dispatched schedule: the team's block of the league's split
   first, then the dispatched loop over it. */
#define DEFINE_DIST_DISPATCH_INIT(suffix, T, S)                                               \
  KMPC_EXPORT void __kmpc_dist_dispatch_init_##suffix(ident_t *loc, int32_t gtid,             \
                                                      int32_t sched, int32_t *plast, T lb,     \
                                                      T ub, S st, S chunk)                     \
  {                                                                                           \
    S team_stride;                                                                            \
    T hi = ub;                                                                                \
    int32_t team_last = 0;                                                                    \
    __kmpc_for_static_init_##suffix(loc, gtid, KMPC_DIST_STATIC, &team_last, &lb, &ub,        \
                                    &team_stride, st, 0);                                     \
    if (st > 0 ? ub > hi : ub < hi)                                                           \
      ub = hi;                                                                                \
    if (plast != NULL)                                                                        \
      *plast = team_last;                                                                     \
    __kmpc_dispatch_init_##suffix(loc, gtid, sched, lb, ub, st, chunk);                       \
    dispatch_here()->last_elsewhere = !team_last;                                             \
  }

DEFINE_DIST_DISPATCH_INIT(4, int32_t, int32_t)
DEFINE_DIST_DISPATCH_INIT(4u, uint32_t, int32_t)
DEFINE_DIST_DISPATCH_INIT(8, int64_t, int64_t)
DEFINE_DIST_DISPATCH_INIT(8u, uint64_t, int64_t)
