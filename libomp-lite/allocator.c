/* Memory allocators (OpenMP 5.2 §6): omp_init_allocator with its traits, omp_alloc and friends,
   the allocate clause and directive (GOMP_alloc, GOMP_free), and OMP_ALLOCATOR.

   Every memory space is the process's ordinary memory (the host has no other kind that this
   runtime can tell apart: affinity/memory.c says what each space means), so an allocator is
   malloc plus its traits: an alignment, a pool size that bounds the bytes it has out at once,
   and what to do when that or the allocation fails (fall back to the default allocator, return
   NULL, abort, or use another allocator). The high-bandwidth space is refused, as in libgomp
   (omp_init_allocator returns omp_null_allocator), and a pool counts each block with its header
   and alignment slack.

   Two traits ask for more than malloc: pinned (the pages locked in memory) and partition (which
   NUMA nodes the pages are on). Allocators that need either map their blocks through
   affinity/memory.c (whole pages, mbind, mlock), decided once in omp_init_allocator; a failed
   lock fails the allocation (the fallback decides), a placement that cannot be had is left to
   the system. On a machine (or cpuset) of one NUMA node, or without libnuma, a partition alone
   needs nothing: the memory is on the nearest node, the only one, and such an allocator
   mallocs. The predefined allocators never map: omp_alloc on them is malloc and a header.

   Each block carries a header just below the address handed out: where the block starts (a
   mapped one with the low bit set: mappings start on a page, malloc'ed blocks on a word), the
   bytes it counts against its allocator's pool (a mapped block: its mapping, every page), the
   allocator, and the size asked. */
#include "internal.h"
#include "affinity/affinity.h"

#include <stdlib.h>
#include <string.h>

/* The predefined allocators are small numbers (gcc's omp.h); others are pointers to this. */
#define MAX_PREDEFINED 8 /* omp_thread_mem_alloc */

struct allocator {
  omp_memspace_handle_t memspace;
  uintptr_t alignment;
  uintptr_t pool_size;         /* UINTPTR_MAX: no pool */
  _Atomic uintptr_t pool_used;
  omp_allocator_handle_t fb_data;
  uintptr_t fallback;
  enum lite_mem_partition partition;
  bool pinned;
  bool mapped;                 /* blocks come from lite_mem_map (pinned, or placed on NUMA) */
};

struct header {
  void *base;                  /* what malloc returned; a mapping's start + MAPPED */
  size_t counted;              /* bytes counted against the pool: the block with its overhead */
  omp_allocator_handle_t allocator;
  size_t size;                 /* bytes asked for */
};

static struct allocator *custom(omp_allocator_handle_t a)
{
  return (uintptr_t)a > MAX_PREDEFINED ? (struct allocator *)(uintptr_t)a : NULL;
}

static struct header *header_of(void *ptr) { return (struct header *)ptr - 1; }

/* The tag of a mapped block's base (mappings start on a page; malloc's blocks are never odd). */
#define MAPPED ((uintptr_t)1)

/* Gives a block's memory back, the way it was taken. */
static void release(struct header *h)
{
  if ((uintptr_t)h->base & MAPPED)
    lite_mem_unmap((void *)((uintptr_t)h->base & ~MAPPED), h->counted);
  else
    free(h->base);
}

/* ------------------------------------------------------------------------------- allocators */

/* A trait value among the allowed ones; omp_atv_default picks the first. */
static bool pick(uintptr_t value, const uintptr_t *allowed, unsigned n, uintptr_t *out)
{
  if (value == (uintptr_t)omp_atv_default) {
    *out = allowed[0];
    return true;
  }
  for (unsigned i = 0; i < n; i++) {
    if (value == allowed[i]) {
      *out = value;
      return true;
    }
  }
  return false;
}

omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace, int ntraits,
                                          const omp_alloctrait_t traits[])
{
  static const uintptr_t sync_hints[] = {omp_atv_contended, omp_atv_uncontended,
                                         omp_atv_serialized, omp_atv_private};
  static const uintptr_t accesses[] = {omp_atv_all, omp_atv_cgroup, omp_atv_pteam,
                                       omp_atv_thread};
  static const uintptr_t fallbacks[] = {omp_atv_default_mem_fb, omp_atv_null_fb,
                                        omp_atv_abort_fb, omp_atv_allocator_fb};
  static const uintptr_t pinned[] = {omp_atv_false, omp_atv_true};
  static const uintptr_t partitions[] = {omp_atv_environment, omp_atv_nearest, omp_atv_blocked,
                                         omp_atv_interleaved};
  struct allocator a = {memspace, 1, UINTPTR_MAX, 0, omp_null_allocator,
                        omp_atv_default_mem_fb, LITE_MEM_ENVIRONMENT, false, false};
  if ((unsigned)memspace > omp_low_lat_mem_space)
    return omp_null_allocator;
  uintptr_t ignored, pin = omp_atv_false, partition = omp_atv_environment;
  for (int i = 0; i < ntraits; i++) {
    uintptr_t v = traits[i].value;
    bool ok;
    switch (traits[i].key) {
    case omp_atk_sync_hint: ok = pick(v, sync_hints, 4, &ignored); break;
    case omp_atk_access: ok = pick(v, accesses, 4, &ignored); break;
    case omp_atk_partition: ok = pick(v, partitions, 4, &partition); break;
    case omp_atk_fallback: ok = pick(v, fallbacks, 4, &a.fallback); break;
    case omp_atk_pinned: ok = pick(v, pinned, 2, &pin); break;
    case omp_atk_alignment:
      if (v == (uintptr_t)omp_atv_default)
        v = 1;
      ok = v != 0 && (v & (v - 1)) == 0;
      a.alignment = v;
      break;
    case omp_atk_pool_size:
      ok = true;
      a.pool_size = v == (uintptr_t)omp_atv_default ? UINTPTR_MAX : v;
      break;
    case omp_atk_fb_data:
      ok = true;
      a.fb_data = (omp_allocator_handle_t)v;
      break;
    default:
      ok = false;
    }
    if (!ok)
      return omp_null_allocator;
  }
  /* High-bandwidth memory is not told apart from the rest (as in libgomp 12 without memkind):
     refused, so that the program knows. */
  if (memspace == omp_high_bw_mem_space)
    return omp_null_allocator;
  a.pinned = pin == omp_atv_true;
  a.partition = partition == omp_atv_nearest       ? LITE_MEM_NEAREST
                : partition == omp_atv_blocked     ? LITE_MEM_BLOCKED
                : partition == omp_atv_interleaved ? LITE_MEM_INTERLEAVED
                                                   : LITE_MEM_ENVIRONMENT;
  a.mapped = lite_mem_mapped(a.partition, a.pinned);
  if (a.alignment < sizeof(void *))
    a.alignment = sizeof(void *);
  struct allocator *made = malloc(sizeof *made);
  if (made == NULL)
    return omp_null_allocator;
  *made = a;
  return (omp_allocator_handle_t)(uintptr_t)made;
}

void omp_destroy_allocator(omp_allocator_handle_t allocator) { free(custom(allocator)); }

void omp_set_default_allocator(omp_allocator_handle_t allocator)
{
  lite_icv_for_write(lite_self())->default_allocator = allocator;
}

omp_allocator_handle_t omp_get_default_allocator(void)
{
  return lite_self()->icv.default_allocator;
}

/* ---------------------------------------------------------------------------------- blocks */

/* Takes n bytes from a's pool, if it has one; false if they are not there. */
static bool pool_take(struct allocator *a, size_t n)
{
  if (a == NULL || a->pool_size == UINTPTR_MAX)
    return true;
  uintptr_t used = atomic_load_explicit(&a->pool_used, memory_order_relaxed);
  do {
    if (n > a->pool_size || used > a->pool_size - n)
      return false;
  } while (!atomic_compare_exchange_weak_explicit(&a->pool_used, &used, used + n,
                                                  memory_order_relaxed, memory_order_relaxed));
  return true;
}

static void pool_give(struct allocator *a, size_t n)
{
  if (a != NULL && a->pool_size != UINTPTR_MAX)
    atomic_fetch_sub_explicit(&a->pool_used, n, memory_order_relaxed);
}

/* A block of a mapped allocator (pinned or placed): NULL if its pool, the mapping or the lock
   fails (*lock_error: mlock's errno, or 0). Mapped memory reads as zeros: calloc is free. */
static void *allocate_mapped(struct allocator *a, omp_allocator_handle_t allocator, size_t align,
                             size_t size, int *lock_error)
{
  size_t len = lite_mem_length(size, align, sizeof(struct header), a->partition);
  if (len == 0 || !pool_take(a, len))
    return NULL;
  struct lite_mem_block b;
  bool lock_failed;
  int error = lite_mem_map(&b, len, size, align, sizeof(struct header), a->partition, a->pinned,
                           &lock_failed);
  if (error != 0) {
    if (lock_failed)
      *lock_error = error;
    pool_give(a, len);
    return NULL;
  }
  *header_of(b.data) = (struct header){(void *)((uintptr_t)b.base | MAPPED), len, allocator, size};
  return b.data;
}

/* A block of malloc: the header and alignment slack count against the pool. */
static inline void *allocate_malloced(struct allocator *a, omp_allocator_handle_t allocator,
                                      size_t align, size_t size, bool zero)
{
  size_t counted = sizeof(struct header) + (align > sizeof(void *) ? align - sizeof(void *) : 0);
  if (__builtin_add_overflow(size, counted, &counted) || !pool_take(a, counted))
    return NULL;
  char *base = zero ? calloc(1, counted) : malloc(counted);
  if (base == NULL) {
    pool_give(a, counted);
    return NULL;
  }
  uintptr_t at = ((uintptr_t)base + sizeof(struct header) + align - 1) & ~(uintptr_t)(align - 1);
  *header_of((void *)at) = (struct header){base, counted, allocator, size};
  return (void *)at;
}

static void *allocate(size_t alignment, size_t size, omp_allocator_handle_t allocator, bool zero)
{
  if (size == 0)
    return NULL;
  if (allocator == omp_null_allocator)
    allocator = lite_self()->icv.default_allocator;
  for (;;) {
    struct allocator *a = custom(allocator);
    size_t align = alignment;
    if (a != NULL && a->alignment > align)
      align = a->alignment;
    if (align < sizeof(void *))
      align = sizeof(void *);
    int lock_error = 0;
    void *p = a != NULL && a->mapped ? allocate_mapped(a, allocator, align, size, &lock_error)
                                     : allocate_malloced(a, allocator, align, size, zero);
    if (p != NULL)
      return p;
    /* It failed: the allocator's fallback says what next. */
    if (a == NULL)
      return NULL;
    switch (a->fallback) {
    case omp_atv_null_fb:
      return NULL;
    case omp_atv_abort_fb:
      if (lock_error != 0)
        lite_fatal("cannot pin %zu bytes in memory (mlock: %s; an allocator with pinned=true "
                   "and fallback abort_fb)", size, strerror(lock_error));
      lite_fatal("out of memory allocating %zu bytes (an allocator with fallback abort_fb)", size);
    case omp_atv_allocator_fb:
      allocator = a->fb_data;
      break;
    default:
      /* default_mem_fb: the default allocator, unless this attempt was already just that (no
         pool, no alignment of the allocator's own, malloc'ed), which would fail again. */
      if (!a->mapped && a->pool_size == UINTPTR_MAX &&
          align == (alignment > sizeof(void *) ? alignment : sizeof(void *)))
        return NULL;
      allocator = omp_default_mem_alloc;
    }
  }
}

void *omp_aligned_alloc(size_t alignment, size_t size, omp_allocator_handle_t allocator)
{
  return allocate(alignment, size, allocator, false);
}

void *omp_alloc(size_t size, omp_allocator_handle_t allocator)
{
  return allocate(1, size, allocator, false);
}

void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size,
                         omp_allocator_handle_t allocator)
{
  size_t total;
  if (__builtin_mul_overflow(nmemb, size, &total))
    return allocate(alignment, SIZE_MAX, allocator, true); /* fails, through the fallbacks */
  return allocate(alignment, total, allocator, true);
}

void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t allocator)
{
  return omp_aligned_calloc(1, nmemb, size, allocator);
}

void omp_free(void *ptr, omp_allocator_handle_t allocator)
{
  (void)allocator; /* the block knows its own */
  if (ptr == NULL)
    return;
  struct header *h = header_of(ptr);
  pool_give(custom(h->allocator), h->counted);
  release(h);
}

void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                  omp_allocator_handle_t free_allocator)
{
  if (ptr == NULL)
    return omp_alloc(size, allocator);
  if (size == 0) {
    omp_free(ptr, free_allocator);
    return NULL;
  }
  struct header *h = header_of(ptr);
  if (allocator == omp_null_allocator)
    allocator = h->allocator;
  /* Within one pool, the old block's bytes count as free for the new one, as if the block were
     resized in place: a full pool can still resize. */
  struct allocator *a = custom(allocator);
  bool same_pool = a != NULL && a->pool_size != UINTPTR_MAX && allocator == h->allocator;
  if (same_pool)
    pool_give(a, h->counted);
  void *fresh = allocate(1, size, allocator, false);
  if (fresh == NULL) {
    if (same_pool) /* the old block stays: it counts again */
      atomic_fetch_add_explicit(&a->pool_used, h->counted, memory_order_relaxed);
    return NULL; /* the old block stays, as with realloc */
  }
  memcpy(fresh, ptr, h->size < size ? h->size : size);
  if (!same_pool)
    pool_give(custom(h->allocator), h->counted);
  release(h);
  return fresh;
}

/* The allocate clause and directive: an allocation gcc cannot let fail. */
void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
  void *p = omp_aligned_alloc(alignment, size, (omp_allocator_handle_t)allocator);
  if (p == NULL && size != 0)
    lite_fatal("out of memory allocating %zu bytes", size);
  return p;
}

void GOMP_free(void *ptr, uintptr_t allocator) { omp_free(ptr, (omp_allocator_handle_t)allocator); }
